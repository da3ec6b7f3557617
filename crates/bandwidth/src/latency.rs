//! Latency under load: cache_ladder's pointer chase over a region beyond the last-level
//! cache, on one pinned thread, while the other cores read their own regions as fast as they
//! can (what Intel's Memory Latency Checker calls "loaded latency"). Idle and loaded rounds
//! alternate in one run (idle, loaded, loaded, idle, ...), so drift reaches both alike.
//!
//! The ring has one slot per cache line, visited in a random single-cycle order (Sattolo), so
//! every step is a dependent load that misses where the region does not fit, and no
//! prefetcher can guess the next line.
//!
//! Rounds are short (a fraction of a millisecond, after a warm-up) and taken by
//! `measure::rounds` until enough are clean. A round counts only when its evidence shows no
//! disturbance of the chasing thread (a round in which other work took the core measures the
//! scheduler, not the memory) and, for a loaded round, when the streamers really streamed.

use crate::team;
use measure::chase::{Link, Plan, Ring, timed_round};
use measure::clock::now_ns;
use measure::disturb::{Probe, Tally};
use measure::ring;
use measure::rounds::{self, Step, Timed, Want};
use measure::stats::Summary;
use measure::team::Seen;

/// The most extra rounds of each kind when rounds are disturbed...
pub const EXTRA_ROUNDS: usize = 10;
/// ... within this time.
pub const BUDGET_NS: u64 = 60_000_000;

/// The rounds to take: `plan.rounds` clean ones of each kind, each after a warm-up.
pub fn want(plan: &Plan) -> Want {
    Want {
        clean: plan.rounds,
        max_rounds: plan.rounds + EXTRA_ROUNDS,
        budget_ns: BUDGET_NS,
        warm_every: true,
    }
}

/// What the run measured.
pub struct Loaded {
    /// Nanoseconds per step, one per idle round, with its evidence.
    pub idle: Timed,
    /// Nanoseconds per step, one per loaded round, with its evidence.
    pub loaded: Timed,
    /// What the streamers read during each loaded round, in GB/s (all of them together).
    pub stream_gbs: Vec<f64>,
    /// The chasing thread's CPU time over wall time in each idle and each loaded round.
    pub idle_share: Vec<f64>,
    pub loaded_share: Vec<f64>,
    /// Where each streamer ran.
    pub streamers: Vec<Seen>,
}

/// The load: streamers on `cores`, one region each, reading `chunk` bytes at a time with
/// `read`.
pub struct Load<'a> {
    pub cores: &'a [usize],
    pub regions: Vec<&'a [u64]>,
    pub chunk: usize,
    pub read: fn(&[u64], u64) -> u64,
}

impl Loaded {
    /// Every round, idle and loaded, counted.
    pub fn tally(&self) -> Tally {
        rounds::tally([&self.idle, &self.loaded])
    }
}

/// Builds the ring over the first `bytes` of `mem` (one slot per `line` bytes) and times it
/// in alternating idle and loaded rounds, each after a warm-up (the streamers switched on
/// before a loaded round's warm-up, off after it), until [`want`] is met.
pub fn measure(mem: &mut [u64], bytes: usize, line: usize, plan: &Plan, load: Load<'_>) -> Loaded {
    let stride = (line / 8).max(1);
    let slots = (bytes / 8 / stride).max(2);
    let next = ring::sattolo(slots, ring::DEFAULT_SEED);
    let mut ring = Ring::build(&mut mem[..slots * stride], Link::Address, &next, |k| {
        k * stride
    });
    drop(next);
    let mut stream_gbs = Vec::new();
    let (mut idle_share, mut loaded_share) = (Vec::new(), Vec::new());
    // One timed round and the share of it the chasing thread spent on its core.
    let round = |ring: &mut Ring<'_>, steps: u64| {
        let (ns, _, share) = crate::sweep::on_core(|| timed_round(ring, steps));
        (ns, share)
    };
    let mut probe = Probe::new();
    let (mut timed, streamers) =
        team::with_streamers(load.cores, load.regions, load.chunk, load.read, |st| {
            // A round of at least the plan's length at 200 ns a step (a miss to memory rarely
            // takes less), so that a warm-up slowed by other work cannot shrink it to a sliver.
            let floor = (plan.round_ns / 200.0) as u64;
            let steps = plan.steps(plan.warm(&mut ring), floor);
            rounds::interleaved(&mut probe, &want(plan), 2, |step| match step {
                Step::Warm(0) => plan.warm(&mut ring),
                Step::Warm(_) => {
                    st.start();
                    plan.warm(&mut ring)
                }
                Step::Time(0) => {
                    let (ns, share) = round(&mut ring, steps);
                    idle_share.push(share);
                    ns
                }
                Step::Time(_) => {
                    let (b0, t0) = (st.bytes(), now_ns());
                    let (ns, share) = round(&mut ring, steps);
                    let (b1, t1) = (st.bytes(), now_ns());
                    st.stop();
                    loaded_share.push(share);
                    stream_gbs.push((b1 - b0) as f64 / (t1 - t0).max(1) as f64);
                    ns
                }
            })
        });
    let loaded = timed.pop().expect("two kinds of round");
    let idle = timed.pop().expect("two kinds of round");
    Loaded {
        idle,
        loaded,
        stream_gbs,
        idle_share,
        loaded_share,
        streamers,
    }
}

/// What the rounds support.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// The idle rounds that count (the chaser kept its core), if any.
    pub idle: Option<Summary>,
    /// The loaded rounds that count (the chaser kept its core, the streamers streamed), if any.
    pub loaded: Option<Summary>,
    /// What the streamers read in the loaded rounds that count (in all, if none counts).
    pub stream_gbs: Summary,
    /// Per idle and per loaded round: whether it counts.
    pub idle_counts: Vec<bool>,
    pub loaded_counts: Vec<bool>,
    /// Loaded over idle, when rounds of both kinds count and the ratio is one the load can
    /// cause.
    pub ratio: Option<f64>,
    /// Why there is no ratio, if there is none.
    pub why_not: Option<String>,
}

/// Judges the rounds: a round counts when its evidence shows no disturbance of the chaser;
/// a loaded round also needs its streamers to have read at least `min_gbs` (unknown: any
/// amount). Loaded faster than idle (under 0.9x) cannot come from the load and gives no
/// ratio.
pub fn judge(l: &Loaded, min_gbs: Option<f64>) -> Verdict {
    let clean = |t: &Timed| -> Vec<bool> { t.evidence.iter().map(|e| !e.disturbed()).collect() };
    let idle_counts = clean(&l.idle);
    let loaded_counts: Vec<bool> = clean(&l.loaded)
        .into_iter()
        .enumerate()
        .map(|(i, c)| c && min_gbs.is_none_or(|m| l.stream_gbs[i] >= m))
        .collect();
    let pick = |v: &[f64], keep: &[bool]| {
        Summary::of(
            &v.iter()
                .zip(keep)
                .filter(|p| *p.1)
                .map(|p| *p.0)
                .collect::<Vec<_>>(),
        )
    };
    let (idle, loaded) = (
        pick(&l.idle.values, &idle_counts),
        pick(&l.loaded.values, &loaded_counts),
    );
    let stream_gbs = if loaded.is_some() {
        pick(&l.stream_gbs, &loaded_counts)
    } else {
        Summary::of(&l.stream_gbs)
    }
    .expect("loaded rounds");
    let (ratio, why_not) = match (idle, loaded) {
        (None, _) => (
            None,
            Some(
                "in every idle round other work took the chasing thread's core (its evidence \
                 says so)"
                    .to_string(),
            ),
        ),
        (_, None) => (
            None,
            Some(format!(
                "in no loaded round did the chaser keep its core while the streamers read {}: \
                 other work took the cores, so this run did not measure a loaded memory",
                min_gbs.map_or("anything".into(), |m| format!("{m:.1} GB/s or more"))
            )),
        ),
        (Some(i), Some(s)) if s.median / i.median < 0.9 => (
            None,
            Some(format!(
                "the chase was faster loaded than idle ({:.2}x), which the load cannot cause",
                s.median / i.median
            )),
        ),
        (Some(i), Some(s)) => (Some(s.median / i.median), None),
    };
    Verdict {
        idle,
        loaded,
        stream_gbs,
        idle_counts,
        loaded_counts,
        ratio,
        why_not,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::disturb::Evidence;

    fn ev(disturbed: bool) -> Evidence {
        Evidence {
            wall_ns: 300_000,
            switches: u64::from(disturbed),
            waited_ns: Some(if disturbed { 1_000_000 } else { 0 }),
            off_cpu_ns: 0,
        }
    }

    fn timed(v: &[f64]) -> Timed {
        Timed {
            values: v.to_vec(),
            evidence: vec![ev(false); v.len()],
        }
    }

    fn run(idle: &[f64], loaded: &[f64], gbs: &[f64]) -> Loaded {
        Loaded {
            idle: timed(idle),
            loaded: timed(loaded),
            stream_gbs: gbs.to_vec(),
            idle_share: vec![1.0; idle.len()],
            loaded_share: vec![1.0; loaded.len()],
            streamers: Vec::new(),
        }
    }

    #[test]
    fn only_rounds_whose_streamers_streamed_count() {
        let v = judge(
            &run(&[100.0, 102.0], &[150.0, 101.0, 160.0], &[20.0, 0.0, 22.0]),
            Some(10.0),
        );
        assert_eq!(v.loaded_counts, vec![true, false, true]);
        assert_eq!(v.loaded.unwrap().median, 155.0);
        assert!((v.ratio.unwrap() - 155.0 / 101.0).abs() < 1e-12);
        assert_eq!(v.stream_gbs.median, 21.0);
    }

    #[test]
    fn no_streaming_or_a_faster_load_gives_no_ratio() {
        let v = judge(&run(&[100.0], &[150.0], &[0.0]), Some(10.0));
        assert!(v.ratio.is_none() && v.loaded.is_none());
        assert!(
            v.why_not
                .unwrap()
                .contains("did not measure a loaded memory")
        );
        let v = judge(&run(&[300.0], &[150.0], &[20.0]), Some(10.0));
        assert!(v.ratio.is_none());
        assert!(v.why_not.unwrap().contains("faster loaded than idle"));
        // Without an expectation every round counts.
        assert_eq!(
            judge(&run(&[100.0], &[120.0], &[0.0]), None).loaded_counts,
            vec![true]
        );
    }

    #[test]
    fn rounds_in_which_the_chaser_lost_its_core_do_not_count() {
        let mut l = run(&[100.0, 900.0, 101.0], &[130.0, 950.0], &[20.0, 20.0]);
        l.idle.evidence = vec![ev(false), ev(true), ev(false)];
        l.loaded.evidence = vec![ev(false), ev(true)];
        assert_eq!((l.tally().rounds, l.tally().disturbed), (5, 2));
        let v = judge(&l, Some(10.0));
        assert_eq!(v.idle_counts, vec![true, false, true]);
        assert_eq!(v.loaded_counts, vec![true, false]);
        assert_eq!(v.idle.unwrap().median, 100.5);
        assert_eq!(v.loaded.unwrap().median, 130.0);
        l.idle.evidence = vec![ev(true); 3];
        assert!(
            judge(&l, Some(10.0))
                .why_not
                .unwrap()
                .contains("every idle round")
        );
    }
}
