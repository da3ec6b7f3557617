//! Pointer chasing: rings a load cannot run ahead of, and the two kernels that walk them.
//!
//! A ring is `slots` 8-byte slots placed anywhere in a buffer of `u64` words (packed one after
//! another for the memory ladder; one per page for the TLB walk), linked in the order of a
//! single-cycle permutation ([`ring::sattolo`](crate::ring::sattolo)), so that following the
//! links visits every slot exactly once per lap and never closes early into a small ring that
//! fits in a cache. Where slot `k` lives is the caller's choice: a function `pos(k)` giving
//! its word position in the buffer.
//!
//! Two ways of storing a link, both walked one dependent load at a time:
//!
//! - [`Link::Index`]: each slot holds the word position of the next slot, and the walk is
//!   `p = buf[p]`, the appendix's `p = next[p]`. Every step is a load whose address is
//!   computed from the previous load (base + 8 x p): on x86-64 a scaled-index addressing mode.
//! - [`Link::Address`]: each slot holds the address of the next slot, and the walk is
//!   `p = *p`: one plain load per step, the least latency the hardware allows (what lmbench
//!   and multichase measure).
//!
//! The kernels [`measure_chase_index`] and [`measure_chase_address`] keep stable symbol names
//! so that a test can find them in a built binary and check that each step is one load.
//! [`Ring`] is the safe way in: it links the slots itself, keeps the buffer borrowed while it
//! exists (so nobody can break a link), and remembers where the last walk stopped, so
//! successive rounds continue around the ring instead of re-walking its first stretch.
//! [`warm_up`], [`steps_for`] and [`timed_round`] are the round mechanics both chase
//! experiments share: warm up and discard, size a round by time, time it. A [`Plan`] holds
//! how long and how often, and [`Plan::judged`] runs rings in turn (A B A B ...), each short
//! timed round after its own warm-up and judged by its evidence of disturbance, until every
//! ring has enough clean rounds ([`crate::rounds`]).

use crate::clock::now_ns;
use crate::disturb::Probe;
use crate::rounds::{Step, Timed, Want};
use std::hint::black_box;

/// How a slot names its successor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    /// The word position of the next slot: `p = buf[p]`.
    Index,
    /// The address of the next slot: `p = *p`.
    Address,
}

impl Link {
    pub fn name(&self) -> &'static str {
        match self {
            Link::Index => "index",
            Link::Address => "address",
        }
    }
}

/// Follows an index ring `steps` times from word position `start`; returns where it stopped.
///
/// # Safety
/// `base` must point to readable `u64` words, and the word at `start` and at every position
/// reached from it must hold a position of such a word (a ring built by [`Ring::build`]).
#[inline(never)]
#[unsafe(no_mangle)]
pub unsafe fn measure_chase_index(base: *const u64, start: usize, steps: u64) -> usize {
    let mut p = start;
    for _ in 0..steps {
        // SAFETY: the caller guarantees every reachable word holds an in-bounds position.
        p = unsafe { *base.add(p) } as usize;
    }
    p
}

/// Follows an address ring `steps` times from `start`; returns the address where it stopped.
///
/// # Safety
/// `start` and every address reached from it must point to a readable `u64` that holds the
/// address of another such word (a ring built by [`Ring::build`]).
#[inline(never)]
#[unsafe(no_mangle)]
pub unsafe fn measure_chase_address(start: *const u64, steps: u64) -> *const u64 {
    let mut p = start;
    for _ in 0..steps {
        // SAFETY: the caller guarantees every reachable word holds a valid slot address.
        p = unsafe { *p } as *const u64;
    }
    p
}

/// A ring of linked slots inside a borrowed buffer, with a cursor that remembers where the
/// last walk stopped.
pub struct Ring<'a> {
    buf: &'a mut [u64],
    link: Link,
    slots: usize,
    first: usize,
    /// Word position of the slot the next walk starts from.
    cursor: usize,
}

impl<'a> Ring<'a> {
    /// Links `next.len()` slots, slot `k` at word position `pos(k)` of `buf`, so that slot `k`
    /// leads to slot `next[k]`. `next` should be a single cycle (use
    /// [`ring::sattolo`](crate::ring::sattolo)) for the ring to cover every slot; `pos` should
    /// give distinct positions. Panics (a programming error) if `next` is empty, names a slot
    /// that does not exist, or `pos` points outside `buf`: those checks are what make the
    /// unchecked walks safe. Words that are not slots are left as they are.
    pub fn build(
        buf: &'a mut [u64],
        link: Link,
        next: &[usize],
        pos: impl Fn(usize) -> usize,
    ) -> Ring<'a> {
        let n = next.len();
        assert!(n > 0, "a ring needs at least one slot");
        let len = buf.len();
        let base = buf.as_mut_ptr() as usize;
        for (k, &to) in next.iter().enumerate() {
            assert!(to < n, "next[{k}] = {to} names no slot (there are {n})");
            let (here, there) = (pos(k), pos(to));
            assert!(
                here < len && there < len,
                "slot position outside the buffer"
            );
            buf[here] = match link {
                Link::Index => there as u64,
                Link::Address => (base + there * 8) as u64,
            };
        }
        let first = pos(0);
        Ring {
            buf,
            link,
            slots: n,
            first,
            cursor: first,
        }
    }

    pub fn link(&self) -> Link {
        self.link
    }

    /// The number of slots (the steps of one lap).
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// The whole buffer, read-only (for a sequential sweep over the same memory).
    pub fn words(&self) -> &[u64] {
        self.buf
    }

    /// Word position of the slot the next walk starts from.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Puts the cursor back on slot 0.
    pub fn rewind(&mut self) {
        self.cursor = self.first;
    }

    /// Walks `steps` links from the cursor with the kernel of this ring's kind and leaves the
    /// cursor where the walk stopped. Returns that word position (pass it to `black_box`).
    pub fn chase(&mut self, steps: u64) -> usize {
        let base = self.buf.as_ptr();
        self.cursor = match self.link {
            // SAFETY: `build` wrote an in-bounds position into every slot, the cursor is a
            // slot, and the buffer stays borrowed (unchanged) for the ring's lifetime.
            Link::Index => unsafe { measure_chase_index(base, self.cursor, steps) },
            Link::Address => {
                // SAFETY: as above, with addresses of slots inside this very buffer.
                let end = unsafe { measure_chase_address(base.add(self.cursor), steps) };
                (end as usize - base as usize) / 8
            }
        };
        self.cursor
    }

    /// Follows one lap from slot 0 by reading the links (no timing, no unsafe walk) and
    /// returns the word positions visited, in order, starting with slot 0's. For a ring built
    /// from a single cycle that is every slot exactly once.
    pub fn lap(&self) -> Vec<usize> {
        let base = self.buf.as_ptr() as usize;
        let mut out = Vec::with_capacity(self.slots);
        let mut p = self.first;
        for _ in 0..self.slots {
            out.push(p);
            let v = self.buf[p] as usize;
            p = match self.link {
                Link::Index => v,
                Link::Address => (v - base) / 8,
            };
        }
        out
    }
}

/// Warms a ring up before timing it: walks it in chunks until at least `laps` laps and at
/// least `min_ns` have passed, or `cap_ns` has (a lap of a ring far larger than the caches
/// takes seconds, and its first stretch already reaches the steady state of missing
/// everywhere). Returns the warm-up's nanoseconds per step, an estimate to size rounds with.
///
/// Warm up before *every* timed round when several rings take turns: the other rings' walks
/// evict this one, and a round that starts cold measures the refill, not the latency.
pub fn warm_up(ring: &mut Ring<'_>, laps: u64, min_ns: u64, cap_ns: u64) -> f64 {
    let n = ring.slots() as u64;
    // Small chunks, so that a warm-up of a ring far beyond the caches (150 ns a step) stops
    // within about a millisecond of its cap.
    let chunk = n.clamp(1024, 8192);
    let t0 = now_ns();
    let mut done = 0u64;
    loop {
        black_box(ring.chase(chunk));
        done += chunk;
        let spent = now_ns() - t0;
        if (done >= laps * n && spent >= min_ns) || spent >= cap_ns {
            return spent as f64 / done as f64;
        }
    }
}

/// How many steps make a round last about `target_ns` at `ns_per_step`, never fewer than
/// `floor` (and never more than 2^32, so a bogus estimate cannot hang a run).
pub fn steps_for(ns_per_step: f64, target_ns: f64, floor: u64) -> u64 {
    let s = if ns_per_step > 0.0 && ns_per_step.is_finite() {
        (target_ns / ns_per_step).ceil()
    } else {
        floor as f64
    };
    (s as u64).clamp(floor.max(1), 1 << 32)
}

/// One timed round of `steps` links from the ring's cursor: nanoseconds per step.
pub fn timed_round(ring: &mut Ring<'_>, steps: u64) -> f64 {
    let t0 = now_ns();
    black_box(ring.chase(black_box(steps)));
    (now_ns() - t0) as f64 / steps as f64
}

/// How long and how often a chase experiment measures one point: the clean rounds wanted,
/// the time a round aims at, the warm-ups (discarded), and the budget for extra rounds when
/// rounds are disturbed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Clean timed rounds wanted per ring and pass.
    pub rounds: usize,
    /// The length a round aims at, in nanoseconds.
    pub round_ns: f64,
    /// Every warm-up walks at least one lap and this long...
    pub warm_min_ns: u64,
    /// ... unless this much time comes first (the first warm-up of a ring)...
    pub warm_cap_ns: u64,
    /// ... or this much (the warm-up before every later round of it).
    pub rewarm_cap_ns: u64,
    /// Extra rounds (beyond `rounds` of each ring) stop after this long.
    pub budget_ns: u64,
}

impl Plan {
    /// A smoke run (`--quick`): seven clean rounds of `round_ns`; a first warm-up of at least
    /// 0.2 ms, at most 5 ms; later ones of 0.25 to 0.5 ms; 10 ms of extra rounds.
    pub const fn quick(round_ns: f64) -> Plan {
        Plan {
            rounds: 7,
            round_ns,
            warm_min_ns: 200_000,
            warm_cap_ns: 5_000_000,
            rewarm_cap_ns: 500_000,
            budget_ns: 10_000_000,
        }
    }

    /// A full run: fifteen clean rounds of `round_ns`; a first warm-up of at least 1 ms and at
    /// most `warm_cap_ns`, later ones of at least `round_ns` and at most twice that (a ring
    /// that fits a cache walks a whole lap in less; one that does not is read from memory
    /// whatever came before); 50 ms of extra rounds.
    pub const fn full(round_ns: f64, warm_cap_ns: u64) -> Plan {
        Plan {
            rounds: 15,
            round_ns,
            warm_min_ns: 1_000_000,
            warm_cap_ns,
            rewarm_cap_ns: 2 * round_ns as u64,
            budget_ns: 50_000_000,
        }
    }

    /// The plan's `#META` facts: `rounds_per_pass` (clean rounds wanted) and `round_ms`.
    #[must_use]
    pub fn meta(&self) -> [(&'static str, f64); 2] {
        [
            ("rounds_per_pass", self.rounds as f64),
            ("round_ms", self.round_ns / 1e6),
        ]
    }

    /// What [`rounds::interleaved`](crate::rounds::interleaved) is asked for: the plan's
    /// clean rounds, at most three times as many, within its budget, warming up before every
    /// round (rings of one size evict each other from the caches).
    pub fn want(&self) -> Want {
        Want::new(self.rounds).budget(self.budget_ns).warm_every()
    }

    /// "up to N extra rounds / X ms per ring set when rounds are disturbed": the budget, for
    /// the report.
    pub fn budget_text(&self) -> String {
        format!(
            "up to {} extra rounds / {} ms per point when rounds are disturbed",
            2 * self.rounds,
            self.budget_ns / 1_000_000
        )
    }

    /// Warms `ring` up before its first timed round ([`warm_up`] for one lap and the plan's
    /// minimum, or its cap): returns the warm-up's nanoseconds per step.
    pub fn warm(&self, ring: &mut Ring<'_>) -> f64 {
        warm_up(ring, 1, self.warm_min_ns, self.warm_cap_ns)
    }

    /// Warms `ring` up before a later round: one lap and half of [`Plan::rewarm_cap_ns`], or
    /// that cap, so the warm-up before every round stays bounded by the round's own length.
    pub fn rewarm(&self, ring: &mut Ring<'_>) -> f64 {
        let cap = self.rewarm_cap_ns;
        warm_up(ring, 1, cap / 2, cap)
    }

    /// Whether a lap of `slots` steps at `ns_per_step` fits in the first warm-up's cap: a
    /// ring that does not is far beyond the caches, and its rounds read memory whatever ran
    /// before them.
    pub fn lap_fits(&self, ns_per_step: f64, slots: usize) -> bool {
        ns_per_step * slots as f64 <= self.warm_cap_ns as f64
    }

    /// The steps of one round at `ns_per_step` (a warm-up's estimate), at least `floor`
    /// ([`steps_for`] with the plan's round length).
    pub fn steps(&self, ns_per_step: f64, floor: u64) -> u64 {
        steps_for(ns_per_step, self.round_ns, floor)
    }

    /// Times `rings` in turn, judged ([`rounds::interleaved`](crate::rounds::interleaved)
    /// with [`Plan::want`]): A B C A B C until each has the plan's clean rounds, every round
    /// bracketed by `probe`'s evidence and preceded by a warm-up (whatever the machine does
    /// reaches every ring alike, and no ring starts a round cold after the others evicted
    /// it). A ring's first warm-up ([`Plan::warm`]) sizes its rounds (at least `floor` steps);
    /// later ones are [`Plan::rewarm`]. `prime(ring, first)` runs before each warm-up (a
    /// sweep in order that refills the caches fast, say), with `first` true before the first
    /// one and before every one of a ring whose lap fits [`Plan::lap_fits`]: priming a ring
    /// far beyond the caches before every round would cost more than the round and change
    /// nothing it finds. Returns nanoseconds per step, one [`Timed`] per ring.
    pub fn judged(
        &self,
        probe: &mut Probe,
        rings: &mut [Ring<'_>],
        floor: u64,
        mut prime: impl FnMut(&Ring<'_>, bool),
    ) -> Vec<Timed> {
        // Per ring: steps per round (0 before the first warm-up), and whether a lap fits.
        let mut sized: Vec<(u64, bool)> = vec![(0, true); rings.len()];
        let want = self.want();
        // A warm-up cut by a preemption is done again by `interleaved` (twice at most).
        crate::rounds::interleaved(probe, &want, rings.len(), |step| match step {
            Step::Warm(i) => {
                let (r, (steps, fits)) = (&mut rings[i], sized[i]);
                prime(r, steps == 0 || fits);
                if steps == 0 {
                    let est = self.warm(r);
                    sized[i] = (self.steps(est, floor), self.lap_fits(est, r.slots()));
                } else {
                    self.rewarm(r);
                }
                0.0
            }
            Step::Time(i) => timed_round(&mut rings[i], sized[i].0.max(1)),
        })
    }
}

/// The numbers of chains [`Ring::chase_parallel`] walks at once (memory-level parallelism, as
/// multichase's `parallelN` and lmbench's `par_mem`).
pub const PARALLEL: [usize; 5] = [1, 2, 4, 8, 16];

/// Writes one parallel-chase kernel per chain count, each under its own stable symbol.
macro_rules! parallel_chase {
    ($($name:ident = $n:literal),* $(,)?) => {$(
        #[doc = concat!("Follows ", stringify!($n), " address chains at once, `steps` steps \
            each: every step is ", stringify!($n), " loads, each depending only on its own \
            chain's last load, so the core can have that many misses in flight. The cursors \
            are updated in place.")]
        ///
        /// # Safety
        /// Every cursor must be a slot of an address ring ([`Ring::build`] with
        /// [`Link::Address`]), as for [`measure_chase_address`].
        #[inline(never)]
        #[unsafe(no_mangle)]
        pub unsafe fn $name(cursors: &mut [*const u64; $n], steps: u64) {
            let mut c = *cursors;
            for _ in 0..steps {
                for p in c.iter_mut() {
                    // SAFETY: the caller guarantees every reachable word holds a slot address.
                    *p = unsafe { **p } as *const u64;
                }
            }
            *cursors = c;
        }
    )*};
}

parallel_chase!(
    measure_chase_par1 = 1,
    measure_chase_par2 = 2,
    measure_chase_par4 = 4,
    measure_chase_par8 = 8,
    measure_chase_par16 = 16,
);

/// `n` cursors spread evenly along arc `arc` of `arcs` equal arcs of `lap` (a ring's
/// [`Ring::lap`], slot positions): the starts of `n` chains that never meet while they walk
/// in step (each keeps the same distance behind the one ahead), and that follow no other
/// arc's chains closely (which would find the lines those had just brought into the caches).
/// Take the lap once per ring: following it is one dependent load per slot, a third of a
/// second for a ring of 16 MiB in lines that miss every cache.
pub fn spread(lap: &[usize], n: usize, arc: usize, arcs: usize) -> Vec<usize> {
    assert!(arc < arcs, "arc {arc} of {arcs}");
    let len = lap.len() / arcs;
    (0..n).map(|k| lap[arc * len + k * len / n]).collect()
}

impl Ring<'_> {
    /// Walks the chains whose cursors (word positions of slots) are given, `steps` steps
    /// each, all at once, with the kernel for their count (one of [`PARALLEL`]), and leaves
    /// the cursors where the chains stopped. Panics (a programming error) on an index ring,
    /// another count, or a cursor outside the buffer.
    pub fn chase_parallel(&self, cursors: &mut [usize], steps: u64) {
        assert_eq!(
            self.link,
            Link::Address,
            "parallel chains walk an address ring"
        );
        assert!(
            cursors.iter().all(|&c| c < self.buf.len()),
            "a cursor outside the ring"
        );
        let base = self.buf.as_ptr();
        // SAFETY: every cursor is inside the buffer (checked) and, as the caller's slots of
        // this address ring, links only to slots of it; the buffer stays borrowed.
        let ptrs: Vec<*const u64> = cursors.iter().map(|&c| unsafe { base.add(c) }).collect();
        macro_rules! run {
            ($f:ident, $n:literal) => {{
                let mut a: [*const u64; $n] = ptrs.try_into().expect("the count was matched");
                // SAFETY: as above.
                unsafe { $f(&mut a, steps) };
                a.to_vec()
            }};
        }
        let end = match cursors.len() {
            1 => run!(measure_chase_par1, 1),
            2 => run!(measure_chase_par2, 2),
            4 => run!(measure_chase_par4, 4),
            8 => run!(measure_chase_par8, 8),
            16 => run!(measure_chase_par16, 16),
            n => panic!("no parallel chase of {n} chains (see PARALLEL)"),
        };
        for (c, p) in cursors.iter_mut().zip(end) {
            *c = (p as usize - base as usize) / 8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ring::{DEFAULT_SEED, sattolo};

    #[test]
    fn parallel_chains_walk_the_lap_from_their_spread_starts() {
        let n = 1000;
        let next = sattolo(n, DEFAULT_SEED);
        let mut buf = vec![0u64; n];
        let r = Ring::build(&mut buf, Link::Address, &next, |k| k);
        let lap = r.lap();
        let at = |p: usize| lap.iter().position(|&q| q == p).unwrap();
        for (arc, chains) in PARALLEL.into_iter().enumerate() {
            let mut c = spread(&lap, chains, arc, PARALLEL.len());
            let starts: Vec<usize> = c.iter().map(|&p| at(p)).collect();
            assert_eq!(
                starts[0],
                arc * 200,
                "arc {arc} of 5 starts {arc}/5 of the lap on"
            );
            assert!(
                starts
                    .iter()
                    .all(|&s| s >= arc * 200 && s < (arc + 1) * 200)
            );
            r.chase_parallel(&mut c, 37);
            for (k, &p) in c.iter().enumerate() {
                assert_eq!(at(p), (starts[k] + 37) % n, "chain {k} of {chains}");
            }
        }
    }

    /// Checks the ring property for one layout and both link kinds: one lap from slot 0 visits
    /// every slot's position exactly once and the next step returns to slot 0.
    fn check_ring(n: usize, words: usize, pos: impl Fn(usize) -> usize + Copy) {
        let next = sattolo(n, DEFAULT_SEED);
        for link in [Link::Index, Link::Address] {
            let mut buf = vec![0u64; words];
            let mut r = Ring::build(&mut buf, link, &next, pos);
            let lap = r.lap();
            assert_eq!(lap.len(), n);
            let mut seen = lap.clone();
            seen.sort_unstable();
            let mut want: Vec<usize> = (0..n).map(pos).collect();
            want.sort_unstable();
            assert_eq!(seen, want, "n={n} {link:?}: every slot once per lap");
            // The unsafe kernel agrees with the safe walk, step by step and around the lap.
            for s in [1usize, 2, n - 1, n, n + 3, 3 * n] {
                r.rewind();
                let end = r.chase(s as u64);
                assert_eq!(end, lap[s % n], "n={n} {link:?} after {s} steps");
            }
            // Successive walks continue where the last one stopped.
            r.rewind();
            r.chase(1);
            assert_eq!(r.chase(1), lap[2 % n]);
        }
    }

    #[test]
    fn packed_rings_visit_every_slot_once_per_lap() {
        for n in [1usize, 2, 3, 8, 512, 4096, 10_007] {
            check_ring(n, n, |k| k);
        }
    }

    #[test]
    fn strided_rings_visit_every_slot_once_per_lap() {
        // One slot per 4 KiB page at offset 0, as the appendix's TLB walk places them.
        check_ring(64, 64 * 512, |k| k * 512);
        // One slot per page, page i on line i mod 64 (8 words a line): the second TLB column.
        check_ring(300, 300 * 512, |k| k * 512 + (k % 64) * 8);
        // A slot every 3 words with an offset: any injective layout works.
        check_ring(100, 400, |k| 5 + 3 * k);
    }

    #[test]
    fn index_ring_holds_positions_and_address_ring_holds_addresses() {
        let next = vec![1, 2, 0];
        let mut buf = vec![0u64; 8];
        {
            let r = Ring::build(&mut buf, Link::Index, &next, |k| 2 * k);
            assert_eq!(&r.words()[..6], &[2, 0, 4, 0, 0, 0]);
        }
        let base = buf.as_ptr() as u64;
        let r = Ring::build(&mut buf, Link::Address, &next, |k| 2 * k);
        assert_eq!(r.words()[0], base + 16);
        assert_eq!(r.words()[4], base);
        assert_eq!(r.slots(), 3);
    }

    #[test]
    fn rounds_are_sized_by_time_and_warm_up_walks_the_laps_asked() {
        assert_eq!(steps_for(2.0, 1000.0, 1), 500);
        assert_eq!(steps_for(2.0, 1000.0, 4096), 4096);
        assert_eq!(steps_for(0.0, 1000.0, 7), 7);
        assert_eq!(steps_for(f64::NAN, 1000.0, 7), 7);
        assert_eq!(steps_for(1e-9, 1e9, 1), 1 << 32);
        let next = sattolo(1000, 3);
        let mut buf = vec![0u64; 1000];
        let mut r = Ring::build(&mut buf, Link::Address, &next, |k| k);
        let est = warm_up(&mut r, 2, 0, u64::MAX);
        assert!(est > 0.0 && est.is_finite());
        // Two laps of 1000 slots in chunks of 1024 steps: the cursor is 2048 steps on.
        let lap = r.lap();
        assert_eq!(r.cursor(), lap[2048 % 1000]);
        let t = timed_round(&mut r, 1000);
        assert!(t > 0.0 && t.is_finite());
        assert_eq!(
            r.cursor(),
            lap[2048 % 1000],
            "a whole lap returns to the same slot"
        );
    }

    #[test]
    fn plans_and_judged_rounds_time_every_ring() {
        let (q, f) = (Plan::quick(2.5e5), Plan::full(5e5, 4e7 as u64));
        assert_eq!((q.rounds, f.rounds), (7, 15));
        assert!(q.warm_min_ns < q.warm_cap_ns && f.warm_min_ns < f.warm_cap_ns);
        assert_eq!(
            f.rewarm_cap_ns, 1_000_000,
            "later warm-ups are bounded by the round"
        );
        assert_eq!(q.steps(2.0, 1), 125_000);
        assert_eq!(q.steps(2.0, 1 << 20), 1 << 20);
        assert!(f.want().warm_every && f.want().clean == 15);
        assert!(f.lap_fits(10.0, 1000) && !f.lap_fits(100.0, 1 << 20));
        let plan = Plan {
            rounds: 4,
            round_ns: 1e5,
            warm_min_ns: 0,
            warm_cap_ns: 1_000_000,
            rewarm_cap_ns: 100_000,
            budget_ns: 0,
        };
        let next = sattolo(500, 9);
        let (mut a, mut b) = (vec![0u64; 500], vec![0u64; 500 * 8]);
        let mut rings = [
            Ring::build(&mut a, Link::Index, &next, |k| k),
            Ring::build(&mut b, Link::Address, &next, |k| 8 * k),
        ];
        let mut primed = Vec::new();
        let mut probe = Probe::new();
        let t = plan.judged(&mut probe, &mut rings, 1000, |r, first| {
            primed.push((r.link(), first))
        });
        assert_eq!(t.len(), 2);
        assert!(t.iter().all(|v| v.values.len() >= 4), "{t:?}");
        assert!(
            t.iter()
                .flat_map(|x| &x.values)
                .all(|x| *x > 0.0 && x.is_finite()),
            "{t:?}"
        );
        // Every round is primed and warmed up (again, up to twice, when a warm-up was
        // disturbed); these small rings fit, so always fully.
        let rounds: usize = t.iter().map(|x| x.values.len()).sum();
        assert!((rounds..=3 * rounds).contains(&primed.len()), "{primed:?}");
        assert!(primed.iter().all(|p| p.1));
        // The rings are warmed in turn; a disturbed warm-up repeats its own ring first.
        let mut order: Vec<Link> = primed.iter().map(|p| p.0).collect();
        order.dedup();
        assert_eq!(order[..2], [Link::Index, Link::Address], "{primed:?}");
        assert!(plan.judged(&mut probe, &mut [], 1, |_, _| ()).is_empty());
    }

    #[test]
    #[should_panic(expected = "outside the buffer")]
    fn positions_outside_the_buffer_are_refused() {
        let mut buf = vec![0u64; 4];
        Ring::build(&mut buf, Link::Index, &[1, 0], |k| k * 4);
    }

    #[test]
    #[should_panic(expected = "names no slot")]
    fn links_to_missing_slots_are_refused() {
        let mut buf = vec![0u64; 4];
        Ring::build(&mut buf, Link::Address, &[1, 2], |k| k);
    }
}
