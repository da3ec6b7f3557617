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
