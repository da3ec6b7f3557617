//! Core-to-core latency: one cache line passed back and forth between two pinned threads.
//!
//! Beyond the appendix. The *initiator* on core `from` writes an odd number into a shared
//! line; the *responder* on core `to` waits until it sees that number and answers with the
//! next one; the initiator waits to see the answer, and so on. Every step needs the line to
//! leave one core's cache for the other's, so one round trip is two transfers of ownership,
//! and half a round trip estimates the one-way cost. The initiator times batches of round
//! trips (long enough that the clock's step is far below 1% of a batch) after one discarded
//! warm-up batch, and the pair is reported by the median and the minimum of its batches.
//!
//! The waits spin without `pause`: that instruction alone can cost over a hundred cycles on
//! some cores and would be measured as latency. A wait that grows very long (a partner
//! descheduled by another process) yields, so two spinners never starve each other.
//!
//! A pair is measured only when both threads are seen on their requested cores before and
//! after; a ping-pong between two threads sharing one core would measure the scheduler.
//! All pairs of a big machine take long (64 cores: 2016 pairs), so pairs are visited in a
//! seeded random order until a time budget is spent, and the report says how many were.

use crate::cores::Core;
use measure::clock::now_ns;
use measure::pin;
use measure::ring;
use measure::stats::Summary;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

/// How much to measure.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    /// Timed batches per direction (after one discarded warm-up batch).
    pub batches: usize,
    /// Round trips per batch.
    pub per_batch: u64,
    /// Stop starting new pairs once this much time has passed.
    pub budget_ns: u64,
}

impl Plan {
    /// The full run: 15 batches of 2000 round trips per direction, at most 20 s in all;
    /// `--quick`: 5 batches of 1000, at most 2 s.
    pub fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                batches: 5,
                per_batch: 1000,
                budget_ns: 2_000_000_000,
            }
        } else {
            Plan {
                batches: 15,
                per_batch: 2000,
                budget_ns: 20_000_000_000,
            }
        }
    }
}

/// One direction of one pair.
#[derive(Debug, Clone)]
pub struct Pair {
    pub from: usize,
    pub to: usize,
    /// Where the initiator and the responder were seen (start of the run).
    pub from_on: Option<usize>,
    pub to_on: Option<usize>,
    /// Both threads seen on their requested cores, before and after.
    pub verified: bool,
    /// Nanoseconds per round trip, one value per batch; `None` if not measured.
    pub round_trip_ns: Option<Summary>,
}

/// The result of a survey of pairs.
#[derive(Debug, Clone)]
pub struct Survey {
    /// Measured directions (both directions of every visited pair).
    pub pairs: Vec<Pair>,
    /// Unordered pairs visited, and how many there are in all.
    pub visited: usize,
    pub total: usize,
    pub elapsed_ns: u64,
}

/// A cache line of its own (256 bytes covers every line size in use, 64 and 128 included).
#[repr(C, align(256))]
struct Line(AtomicU64);

const PENDING: u8 = 0;
const READY: u8 = 1;
const FAILED: u8 = 2;

/// Spins until `cond`, without `pause`; yields only once a wait has grown very long.
#[inline(always)]
fn wait_for(cond: impl Fn() -> bool) {
    let mut spins: u32 = 0;
    while !cond() {
        spins = spins.wrapping_add(1);
        if spins > 1 << 20 {
            std::thread::yield_now();
        }
    }
}

/// Pins to `core`, says whether that worked, and waits for the partner's word.
fn meet(core: usize, mine: &AtomicU8, theirs: &AtomicU8) -> (pin::Pinning, bool) {
    let p = pin::pin_current_thread(core);
    mine.store(if p.verified() { READY } else { FAILED }, Ordering::Release);
    wait_for(|| theirs.load(Ordering::Acquire) != PENDING);
    let both = p.verified() && theirs.load(Ordering::Acquire) == READY;
    (p, both)
}

/// Measures the ping-pong from core `from` to core `to`.
pub fn ping_pong(from: usize, to: usize, plan: &Plan) -> Pair {
    let line = Line(AtomicU64::new(0));
    let (from_ok, to_ok) = (AtomicU8::new(PENDING), AtomicU8::new(PENDING));
    let total = (plan.batches as u64 + 1) * plan.per_batch;
    let (a, b) = std::thread::scope(|s| {
        let responder = s.spawn(|| {
            let (p, go) = meet(to, &to_ok, &from_ok);
            if go {
                for i in 0..total {
                    let want = 2 * i + 1;
                    wait_for(|| line.0.load(Ordering::Acquire) == want);
                    line.0.store(want + 1, Ordering::Release);
                }
            }
            (p, pin::current_cpu())
        });
        let initiator = s.spawn(|| {
            let (p, go) = meet(from, &from_ok, &to_ok);
            let mut batches = Vec::with_capacity(plan.batches);
            if go {
                let mut i: u64 = 0;
                for batch in 0..=plan.batches {
                    let t0 = now_ns();
                    for _ in 0..plan.per_batch {
                        let v = 2 * i + 1;
                        line.0.store(v, Ordering::Release);
                        wait_for(|| line.0.load(Ordering::Acquire) == v + 1);
                        i += 1;
                    }
                    let t1 = now_ns();
                    if batch > 0 {
                        batches.push((t1 - t0) as f64 / plan.per_batch as f64);
                    }
                }
            }
            (p, pin::current_cpu(), batches)
        });
        (
            initiator.join().expect("initiator panicked"),
            responder.join().expect("responder panicked"),
        )
    });
    let ((pa, end_a, batches), (pb, end_b)) = (a, b);
    let verified = pa.verified() && pb.verified() && end_a == Some(from) && end_b == Some(to);
    Pair {
        from,
        to,
        from_on: pa.running_on,
        to_on: pb.running_on,
        verified,
        round_trip_ns: if verified {
            Summary::of(&batches)
        } else {
            None
        },
    }
}

/// All unordered pairs of `cores`, in a seeded random order.
pub fn pair_order(cores: &[Core], seed: u64) -> Vec<(usize, usize)> {
    let mut ids: Vec<usize> = cores.iter().map(|c| c.id).collect();
    ids.sort_unstable();
    let mut pairs = Vec::new();
    for (k, &a) in ids.iter().enumerate() {
        for &b in &ids[k + 1..] {
            pairs.push((a, b));
        }
    }
    ring::shuffle(&mut ring::rng(seed), &mut pairs);
    pairs
}

/// Measures both directions of pairs in [`pair_order`] until the budget is spent (at least
/// one pair is always measured).
pub fn survey(cores: &[Core], plan: &Plan) -> Survey {
    let order = pair_order(cores, ring::DEFAULT_SEED);
    let t0 = now_ns();
    let mut pairs = Vec::new();
    let mut visited = 0;
    for &(a, b) in &order {
        if visited > 0 && now_ns() - t0 >= plan.budget_ns {
            break;
        }
        pairs.push(ping_pong(a, b, plan));
        pairs.push(ping_pong(b, a, plan));
        visited += 1;
    }
    Survey {
        pairs,
        visited,
        total: order.len(),
        elapsed_ns: now_ns() - t0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_order_covers_every_unordered_pair_once() {
        let cores: Vec<Core> = (0..5)
            .map(|id| Core {
                id,
                package: None,
                core: None,
            })
            .collect();
        let mut p = pair_order(&cores, 7);
        assert_eq!(p.len(), 10);
        assert!(p.iter().all(|(a, b)| a < b));
        p.sort_unstable();
        p.dedup();
        assert_eq!(p.len(), 10);
        assert_eq!(pair_order(&cores, 7), pair_order(&cores, 7));
    }

    #[test]
    fn a_pair_that_cannot_be_pinned_is_not_measured() {
        let ok = measure::pin::allowed_cores()[0];
        let plan = Plan {
            batches: 2,
            per_batch: 10,
            budget_ns: 0,
        };
        let p = ping_pong(ok, 100_000, &plan);
        assert!(!p.verified);
        assert!(p.round_trip_ns.is_none());
    }

    #[test]
    fn two_cores_ping_pong_and_the_count_adds_up() {
        let cores = measure::pin::allowed_cores();
        if cores.len() < 2 {
            return; // nothing to pair on a one-core machine
        }
        let plan = Plan {
            batches: 3,
            per_batch: 200,
            budget_ns: 0,
        };
        let p = ping_pong(cores[0], cores[1], &plan);
        assert!(p.verified, "{p:?}");
        let s = p.round_trip_ns.unwrap();
        assert_eq!(s.n, 3);
        assert!(s.min > 0.0);
    }
}
