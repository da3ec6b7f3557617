//! Latency under load: cache_ladder's pointer chase over a region beyond the last-level
//! cache, on one pinned thread, while the other cores read their own regions as fast as they
//! can (what Intel's Memory Latency Checker calls "loaded latency"). Idle and loaded rounds
//! alternate in one run (idle, loaded, loaded, idle, ...), so drift reaches both alike.
//!
//! The ring has one slot per cache line, visited in a random single-cycle order (Sattolo), so
//! every step is a dependent load that misses where the region does not fit, and no
//! prefetcher can guess the next line.

use crate::team::{self, Seen};
use measure::chase::{Link, Plan, Ring, timed_round};
use measure::clock::now_ns;
use measure::ring;
use measure::stats::Summary;

/// What the run measured.
pub struct Loaded {
    /// Nanoseconds per step, one per idle round.
    pub idle: Vec<f64>,
    /// Nanoseconds per step, one per loaded round.
    pub loaded: Vec<f64>,
    /// What the streamers read during each loaded round, in GB/s (all of them together).
    pub stream_gbs: Vec<f64>,
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
                        loaded.push(timed_round(&mut ring, steps));
                        let (b1, t1) = (st.bytes(), now_ns());
                        st.stop();
                        stream_gbs.push((b1 - b0) as f64 / (t1 - t0).max(1) as f64);
                    } else {
                        plan.warm(&mut ring);
                        idle.push(timed_round(&mut ring, steps));
                    }
                }
            }
        });
    Loaded {
        idle,
        loaded,
        stream_gbs,
        streamers,
    }
}

/// What the rounds support.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub idle: Summary,
    /// The loaded rounds that count (their streamers streamed), if any.
    pub loaded: Option<Summary>,
    /// What the streamers read in the rounds that count (in all rounds, if none counts).
    pub stream_gbs: Summary,
    /// Per loaded round: whether it counts.
    pub counts: Vec<bool>,
    /// Loaded rounds that count, of all loaded rounds.
    pub counted: usize,
    pub rounds: usize,
    /// Loaded over idle, when rounds count and the ratio is one the load can cause.
    pub ratio: Option<f64>,
    /// Why there is no ratio, if there is none.
    pub why_not: Option<String>,
}

/// Judges the rounds: a loaded round counts when its streamers read at least `min_gbs`
/// (unknown: every round counts); loaded faster than idle (under 0.9x) cannot come from the
/// load and gives no ratio.
pub fn judge(l: &Loaded, min_gbs: Option<f64>) -> Verdict {
    let idle = Summary::of(&l.idle).expect("idle rounds");
    let counts = |i: usize| min_gbs.is_none_or(|m| l.stream_gbs[i] >= m);
    let kept: Vec<usize> = (0..l.loaded.len()).filter(|&i| counts(i)).collect();
    let pick =
        |v: &[f64], from: &[usize]| Summary::of(&from.iter().map(|&i| v[i]).collect::<Vec<_>>());
    let loaded = pick(&l.loaded, &kept);
    let all: Vec<usize> = (0..l.loaded.len()).collect();
    let stream_gbs =
        pick(&l.stream_gbs, if kept.is_empty() { &all } else { &kept }).expect("loaded rounds");
    let (ratio, why_not) = match loaded {
        None => (
            None,
            Some(format!(
                "in no loaded round did the streamers read {} GB/s or more: other work held them \
                 off their cores, so this run did not load the memory",
                min_gbs.map_or("-".into(), |m| format!("{m:.1}"))
            )),
        ),
        Some(s) if s.median / idle.median < 0.9 => (
            None,
            Some(format!(
                "the chase was faster loaded than idle ({:.2}x), which the load cannot cause: other \
                 work disturbed the idle rounds",
                s.median / idle.median
            )),
        ),
        Some(s) => (Some(s.median / idle.median), None),
    };
    Verdict {
        idle,
        loaded,
        stream_gbs,
        counts: (0..l.loaded.len()).map(counts).collect(),
        counted: kept.len(),
        rounds: l.loaded.len(),
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
            streamers: Vec::new(),
        }
    }

    #[test]
    fn only_rounds_whose_streamers_streamed_count() {
        let v = judge(
            &run(&[100.0, 102.0], &[150.0, 101.0, 160.0], &[20.0, 0.0, 22.0]),
            Some(10.0),
        );
        assert_eq!((v.counted, v.rounds), (2, 3));
        assert_eq!(v.loaded.unwrap().median, 155.0);
        assert!((v.ratio.unwrap() - 155.0 / 101.0).abs() < 1e-12);
        assert_eq!(v.stream_gbs.median, 21.0);
    }

    #[test]
    fn no_streaming_or_a_faster_load_gives_no_ratio() {
        let v = judge(&run(&[100.0], &[150.0], &[0.0]), Some(10.0));
        assert!(v.ratio.is_none() && v.loaded.is_none());
        assert!(v.why_not.unwrap().contains("did not load"));
        let v = judge(&run(&[300.0], &[150.0], &[20.0]), Some(10.0));
        assert!(v.ratio.is_none());
        assert!(v.why_not.unwrap().contains("faster loaded than idle"));
        // Without an expectation every round counts.
        assert_eq!(judge(&run(&[100.0], &[120.0], &[0.0]), None).counted, 1);
    }
}
