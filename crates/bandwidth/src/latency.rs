//! Latency under load: cache_ladder's pointer chase over a region beyond the last-level
//! cache, on one pinned thread, while the other cores read their own regions as fast as they
//! can (what Intel's Memory Latency Checker calls "loaded latency"). Idle and loaded rounds
//! alternate in one run (idle, loaded, loaded, idle, ...), so drift reaches both alike.
//!
//! The ring has one slot per cache line, visited in a random single-cycle order (Sattolo), so
//! every step is a dependent load that misses where the region does not fit, and no
//! prefetcher can guess the next line.
//!
//! A round counts only when the chasing thread kept its core (its CPU time at least 90% of
//! the round's wall time: a round in which other work took the core measures the scheduler,
//! not the memory) and, for a loaded round, when the streamers really streamed.

use crate::team;
use measure::chase::{Link, Plan, Ring, timed_round};
use measure::clock::now_ns;
use measure::ring;
use measure::stats::Summary;
use measure::team::Seen;

/// What the run measured.
pub struct Loaded {
    /// Nanoseconds per step, one per idle round.
    pub idle: Vec<f64>,
    /// Nanoseconds per step, one per loaded round.
    pub loaded: Vec<f64>,
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

/// Builds the ring over the first `bytes` of `mem` (one slot per `line` bytes) and times it
/// in alternating idle and loaded rounds.
pub fn measure(mem: &mut [u64], bytes: usize, line: usize, plan: &Plan, load: Load<'_>) -> Loaded {
    let stride = (line / 8).max(1);
    let slots = (bytes / 8 / stride).max(2);
    let next = ring::sattolo(slots, ring::DEFAULT_SEED);
    let mut ring = Ring::build(&mut mem[..slots * stride], Link::Address, &next, |k| {
        k * stride
    });
    drop(next);
    let (mut idle, mut loaded, mut stream_gbs) = (Vec::new(), Vec::new(), Vec::new());
    let (mut idle_share, mut loaded_share) = (Vec::new(), Vec::new());
    // One timed round and the share of it the chasing thread spent on its core.
    let round = |ring: &mut Ring<'_>, steps: u64| {
        let (ns, _, share) = crate::sweep::on_core(|| timed_round(ring, steps));
        (ns, share)
    };
    let ((), streamers) =
        team::with_streamers(load.cores, load.regions, load.chunk, load.read, |st| {
            // A round of at least the plan's length at 200 ns a step (a miss to memory rarely takes
            // less), so that a warm-up slowed by other work cannot shrink it to a sliver.
            let floor = (plan.round_ns / 200.0) as u64;
            let steps = plan.steps(plan.warm(&mut ring), floor);
            for r in 0..plan.rounds {
                for load in [r % 2 == 1, r % 2 == 0] {
                    if load {
                        st.start();
                        plan.warm(&mut ring);
                        let (b0, t0) = (st.bytes(), now_ns());
                        let (ns, share) = round(&mut ring, steps);
                        let (b1, t1) = (st.bytes(), now_ns());
                        loaded.push(ns);
                        loaded_share.push(share);
                        st.stop();
                        stream_gbs.push((b1 - b0) as f64 / (t1 - t0).max(1) as f64);
                    } else {
                        plan.warm(&mut ring);
                        let (ns, share) = round(&mut ring, steps);
                        idle.push(ns);
                        idle_share.push(share);
                    }
                }
            }
        });
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

/// Judges the rounds: a round counts when the chaser kept its core; a loaded round also
/// needs its streamers to have read at least `min_gbs` (unknown: any amount). Loaded faster
/// than idle (under 0.9x) cannot come from the load and gives no ratio.
pub fn judge(l: &Loaded, min_gbs: Option<f64>) -> Verdict {
    let on_core = |s: f64| s >= team::ON_CORE;
    let idle_counts: Vec<bool> = l.idle_share.iter().map(|&s| on_core(s)).collect();
    let loaded_counts: Vec<bool> = (0..l.loaded.len())
        .map(|i| on_core(l.loaded_share[i]) && min_gbs.is_none_or(|m| l.stream_gbs[i] >= m))
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
    let (idle, loaded) = (pick(&l.idle, &idle_counts), pick(&l.loaded, &loaded_counts));
    let stream_gbs = if loaded.is_some() {
        pick(&l.stream_gbs, &loaded_counts)
    } else {
        Summary::of(&l.stream_gbs)
    }
    .expect("loaded rounds");
    let (ratio, why_not) = match (idle, loaded) {
        (None, _) => (
            None,
            Some("in every idle round other work took the chasing thread's core".to_string()),
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

    fn run(idle: &[f64], loaded: &[f64], gbs: &[f64]) -> Loaded {
        Loaded {
            idle: idle.to_vec(),
            loaded: loaded.to_vec(),
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
        l.idle_share = vec![1.0, 0.3, 0.99];
        l.loaded_share = vec![0.98, 0.2];
        let v = judge(&l, Some(10.0));
        assert_eq!(v.idle_counts, vec![true, false, true]);
        assert_eq!(v.loaded_counts, vec![true, false]);
        assert_eq!(v.idle.unwrap().median, 100.5);
        assert_eq!(v.loaded.unwrap().median, 130.0);
        l.idle_share = vec![0.1; 3];
        assert!(
            judge(&l, Some(10.0))
                .why_not
                .unwrap()
                .contains("every idle round")
        );
    }
}
