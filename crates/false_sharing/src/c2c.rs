//! Core-to-core latency: one cache line passed back and forth between two pinned threads.
//!
//! Beyond the appendix. The survey uses a compare-and-swap ping-pong, the method of the
//! public tool core-to-core-latency: one flag in a line of its own; the *initiator* on core
//! `from` spins on an atomic compare-and-swap that turns the responder's value into its own,
//! the *responder* on core `to` spins on the reverse. Each success needs the line to come
//! over from the other core, so one round trip is two transfers of ownership, and half a
//! round trip estimates the one-way cost. The initiator times batches of round trips (long
//! enough that the clock's step is far below 1% of a batch) after one discarded warm-up
//! batch, and the pair is reported by the median and the minimum of its batches.
//!
//! Two other ways to pass the line are measured on one pair beside it ([`Method`]), because
//! they are what such code often does and they read slower: spinning on plain loads until
//! the partner's number appears, then storing the answer, with and without `pause` in the
//! spin. A spinning load fetches the line shared and the store must then ask for it again
//! (a second transfer); without `pause` the spin also runs ahead with loads that are thrown
//! away when the line leaves. Batch size and the clock do not matter: batches of 200 and
//! of 5000 round trips gave the same figure.
//!
//! Every batch is judged by the evidence of both threads ([`measure::disturb`]): each marks
//! its own probe at the batch's ends, outside the timed span (the initiator waits for the
//! responder's mark before it starts the next batch), and a batch in which either thread lost
//! time to other work is set aside. The figures come from the clean batches.
//!
//! A wait that grows very long (a partner descheduled by another process) yields, so two
//! spinners never starve each other. A pair is measured only when both threads are seen on
//! their requested cores before and after; a ping-pong between two threads sharing one core
//! would measure the scheduler. All pairs of a big machine take long (64 cores: 2016 pairs),
//! so pairs are visited in a seeded random order until a time budget is spent, and the report
//! says how many were.

use measure::clock::now_ns;
use measure::disturb::{Evidence, Probe, Tally};
use measure::pin;
use measure::ring;
use measure::rounds::Timed;
use measure::stats::Summary;
use measure::team::Core;
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

impl Plan {
    /// The plan of the three-method comparison on one pair: fewer batches per run, as each
    /// method runs several times, interleaved.
    pub fn for_methods(&self) -> Plan {
        Plan {
            batches: (self.batches / 3).max(2),
            ..*self
        }
    }
}

/// One direction of one pair, measured with one [`Method`].
#[derive(Debug, Clone)]
pub struct Pair {
    pub method: Method,
    pub from: usize,
    pub to: usize,
    /// Where the initiator and the responder were seen (start of the run).
    pub from_on: Option<usize>,
    pub to_on: Option<usize>,
    /// Both threads seen on their requested cores, before and after.
    pub verified: bool,
    /// Nanoseconds per round trip over the clean batches (over all when none was clean);
    /// `None` if not measured.
    pub round_trip_ns: Option<Summary>,
    /// The batches themselves (ns per round trip), empty if not measured.
    pub batches: Vec<f64>,
    /// Per batch, the evidence of the more disturbed of the two threads.
    pub evidence: Vec<Evidence>,
}

impl Pair {
    /// The batches with their evidence.
    pub fn timed(&self) -> Timed {
        Timed {
            values: self.batches.clone(),
            evidence: self.evidence.clone(),
        }
    }

    /// The batches counted.
    pub fn tally(&self) -> Tally {
        self.timed().tally()
    }
}

/// All the batches of several pairs as one tally.
pub fn tally(pairs: &[Pair]) -> Tally {
    pairs
        .iter()
        .fold(Tally::default(), |t, p| t.merge(&p.tally()))
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

/// [`wait_for`] with `pause` (`std::hint::spin_loop`) in the spin.
#[inline(always)]
fn wait_pausing(cond: impl Fn() -> bool) {
    let mut spins: u32 = 0;
    while !cond() {
        std::hint::spin_loop();
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

/// How the two threads pass the line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// One atomic compare-and-swap per step, spun until it succeeds: the survey's method.
    Cas,
    /// Spin on loads with `pause` until the partner's number appears, then store the answer.
    LoadStorePause,
    /// The same without `pause`.
    LoadStore,
}

impl Method {
    /// Every method, the survey's first.
    pub const ALL: [Method; 3] = [Method::Cas, Method::LoadStorePause, Method::LoadStore];

    /// A short name for `#DATA`.
    pub fn label(self) -> &'static str {
        match self {
            Method::Cas => "compare_and_swap",
            Method::LoadStorePause => "load_store_pause",
            Method::LoadStore => "load_store",
        }
    }

    /// The method in words, for the table.
    pub fn words(self) -> &'static str {
        match self {
            Method::Cas => "compare-and-swap",
            Method::LoadStorePause => "load, then store; pause in the spin",
            Method::LoadStore => "load, then store; no pause",
        }
    }
}

/// One step of a round trip with `m`: wait until `line` holds `want` (the partner's last
/// word), then write `next`.
#[inline(always)]
fn step(m: Method, line: &AtomicU64, want: u64, next: u64) {
    match m {
        Method::Cas => wait_for(|| {
            line.compare_exchange(want, next, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        }),
        Method::LoadStorePause => {
            wait_pausing(|| line.load(Ordering::Acquire) == want);
            line.store(next, Ordering::Release);
        }
        Method::LoadStore => {
            wait_for(|| line.load(Ordering::Acquire) == want);
            line.store(next, Ordering::Release);
        }
    }
}

/// Measures the ping-pong from core `from` to core `to` with `m`.
pub fn ping_pong(m: Method, from: usize, to: usize, plan: &Plan) -> Pair {
    let line = Line(AtomicU64::new(0));
    // How many batches the responder has marked the end of (a line of its own).
    let marked = Line(AtomicU64::new(0));
    let (from_ok, to_ok) = (AtomicU8::new(PENDING), AtomicU8::new(PENDING));
    let total = (plan.batches as u64 + 1) * plan.per_batch;
    let (a, b) = std::thread::scope(|s| {
        let responder = s.spawn(|| {
            let (p, go) = meet(to, &to_ok, &from_ok);
            let probe = Probe::new();
            let mut marks = vec![probe.mark()];
            if go {
                for i in 0..total {
                    let want = 2 * i + 1;
                    step(m, &line.0, want, want + 1);
                    if (i + 1) % plan.per_batch == 0 {
                        marks.push(probe.mark());
                        marked.0.store((i + 1) / plan.per_batch, Ordering::Release);
                    }
                }
            }
            (p, pin::current_cpu(), marks)
        });
        let initiator = s.spawn(|| {
            let (p, go) = meet(from, &from_ok, &to_ok);
            let probe = Probe::new();
            let mut batches = Vec::with_capacity(plan.batches);
            let mut evidence = Vec::with_capacity(plan.batches);
            if go {
                let mut i: u64 = 0;
                for batch in 0..=plan.batches {
                    // The responder's mark of the last batch's end is outside every batch.
                    wait_for(|| marked.0.load(Ordering::Acquire) >= batch as u64);
                    let before = probe.mark();
                    let t0 = now_ns();
                    for _ in 0..plan.per_batch {
                        // Round trip i: the initiator turns 2i into 2i+1, the responder 2i+1
                        // into 2i+2.
                        step(m, &line.0, 2 * i, 2 * i + 1);
                        i += 1;
                    }
                    // The last answer must arrive before the clock is read.
                    wait_for(|| line.0.load(Ordering::Acquire) == 2 * i);
                    let t1 = now_ns();
                    let e = Evidence::between(&before, &probe.mark());
                    if batch > 0 {
                        batches.push((t1 - t0) as f64 / plan.per_batch as f64);
                        evidence.push(e);
                    }
                }
            }
            (p, pin::current_cpu(), batches, evidence)
        });
        (
            initiator.join().expect("initiator panicked"),
            responder.join().expect("responder panicked"),
        )
    });
    let ((pa, end_a, batches, mine), (pb, end_b, marks)) = (a, b);
    let verified = pa.verified() && pb.verified() && end_a == Some(from) && end_b == Some(to);
    // Batch k (after the warm-up, batch 0) lies between the responder's marks k and k + 1.
    let evidence: Vec<Evidence> = mine
        .iter()
        .enumerate()
        .map(|(k, e)| {
            let theirs = marks
                .get(k + 1)
                .zip(marks.get(k + 2))
                .map(|(a, b)| Evidence::between(a, b));
            measure::team::worst([Some(*e), theirs].into_iter().flatten()).unwrap_or(*e)
        })
        .collect();
    let mut pair = Pair {
        method: m,
        from,
        to,
        from_on: pa.running_on,
        to_on: pb.running_on,
        verified,
        round_trip_ns: None,
        batches: if verified { batches } else { Vec::new() },
        evidence: if verified { evidence } else { Vec::new() },
    };
    pair.round_trip_ns = pair.timed().summary();
    pair
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

/// Measures both directions of pairs in [`pair_order`] with [`Method::Cas`] until the budget
/// is spent (at least one pair is always measured).
pub fn survey(cores: &[Core], plan: &Plan) -> Survey {
    let order = pair_order(cores, ring::DEFAULT_SEED);
    let t0 = now_ns();
    let mut pairs = Vec::new();
    let mut visited = 0;
    for &(a, b) in &order {
        if visited > 0 && now_ns() - t0 >= plan.budget_ns {
            break;
        }
        pairs.push(ping_pong(Method::Cas, a, b, plan));
        pairs.push(ping_pong(Method::Cas, b, a, plan));
        visited += 1;
    }
    Survey {
        pairs,
        visited,
        total: order.len(),
        elapsed_ns: now_ns() - t0,
    }
}

/// Every [`Method`] on both directions of the pair `a`, `b`: `rounds` rounds, the methods
/// and directions interleaved within each, each run `plan.batches` batches after its warm-up.
/// One entry per method and direction, its batches gathered over the rounds.
pub fn methods(a: usize, b: usize, plan: &Plan, rounds: usize) -> Vec<Pair> {
    let mut out: Vec<Pair> = Vec::new();
    for _ in 0..rounds {
        for m in Method::ALL {
            for (from, to) in [(a, b), (b, a)] {
                let p = ping_pong(m, from, to, plan);
                match out.iter_mut().find(|q| q.method == m && q.from == from) {
                    Some(q) => {
                        q.verified &= p.verified;
                        q.batches.extend(p.batches);
                        q.evidence.extend(p.evidence);
                    }
                    None => out.push(p),
                }
            }
        }
    }
    for p in &mut out {
        if !p.verified {
            p.batches.clear();
            p.evidence.clear();
        }
        p.round_trip_ns = p.timed().summary();
    }
    out
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
        let p = ping_pong(Method::Cas, ok, 100_000, &plan);
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
        for m in Method::ALL {
            let p = ping_pong(m, cores[0], cores[1], &plan);
            assert!(p.verified, "{p:?}");
            let s = p.round_trip_ns.unwrap();
            assert_eq!(p.evidence.len(), 3, "one piece of evidence a batch");
            assert_eq!(s.n, p.timed().used().len());
            assert!(s.min > 0.0);
        }
        let all = methods(cores[0], cores[1], &plan, 2);
        assert_eq!(all.len(), 6, "three methods, two directions");
        assert!(
            all.iter()
                .all(|p| p.batches.len() == 6 && p.evidence.len() == 6)
        );
    }
}
