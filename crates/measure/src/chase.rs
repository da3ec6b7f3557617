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
//! how long and how often, and [`Plan::interleaved`] runs rings in turn (A B A B ...), each
//! timed round after its own warm-up.

use crate::clock::now_ns;
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
    let chunk = n.clamp(4096, 1 << 16);
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

/// How long and how often a chase experiment measures one point: the timed rounds, the time
/// a round aims at, and the warm-up (discarded) before every timed round.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Timed rounds per point and pass (the appendix takes the median of 5).
    pub rounds: usize,
    /// The length a round aims at, in nanoseconds.
    pub round_ns: f64,
    /// Warm-up before every timed round: at least one lap and this long...
    pub warm_min_ns: u64,
    /// ... unless this much time comes first.
    pub warm_cap_ns: u64,
}

impl Plan {
    /// A smoke run (`--quick`): three rounds of `round_ns`, the fewest that give a median and
    /// a spread with the slowest round left out; warm-ups of at least 0.2 ms, at most 5 ms.
    pub const fn quick(round_ns: f64) -> Plan {
        Plan {
            rounds: 3,
            round_ns,
            warm_min_ns: 200_000,
            warm_cap_ns: 5_000_000,
        }
    }

    /// A full run: the appendix's five rounds of `round_ns`; warm-ups of at least 1 ms and
    /// at most `warm_cap_ns`.
    pub const fn full(round_ns: f64, warm_cap_ns: u64) -> Plan {
        Plan {
            rounds: 5,
            round_ns,
            warm_min_ns: 1_000_000,
            warm_cap_ns,
        }
    }

    /// Records the plan as `#META rounds_per_pass` and `#META round_ms`.
    pub fn meta(&self) {
        crate::data::meta("rounds_per_pass", self.rounds);
        crate::data::meta("round_ms", self.round_ns / 1e6);
    }

    /// Warms `ring` up before a timed round ([`warm_up`] for one lap and the plan's minimum,
    /// or its cap): returns the warm-up's nanoseconds per step.
    pub fn warm(&self, ring: &mut Ring<'_>) -> f64 {
        warm_up(ring, 1, self.warm_min_ns, self.warm_cap_ns)
    }

    /// The steps of one round at `ns_per_step` (a warm-up's estimate), at least `floor`
    /// ([`steps_for`] with the plan's round length).
    pub fn steps(&self, ns_per_step: f64, floor: u64) -> u64 {
        steps_for(ns_per_step, self.round_ns, floor)
    }

    /// Times `rings` in turn: a first warm-up of each sizes its rounds (at least `floor`
    /// steps), then `rounds` times over, each ring is warmed up again and timed (A B C A B C:
    /// whatever the machine does during the run reaches every ring alike, and no ring starts
    /// a round cold after the others evicted it). Returns nanoseconds per step, one vector
    /// per ring, rounds in order.
    pub fn interleaved(&self, rings: &mut [Ring<'_>], floor: u64) -> Vec<Vec<f64>> {
        let steps: Vec<u64> = rings
            .iter_mut()
            .map(|r| {
                let est = self.warm(r);
                self.steps(est, floor)
            })
            .collect();
        let mut out = vec![Vec::with_capacity(self.rounds); rings.len()];
        for _ in 0..self.rounds {
            for (i, r) in rings.iter_mut().enumerate() {
                self.warm(r);
                out[i].push(timed_round(r, steps[i]));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ring::{DEFAULT_SEED, sattolo};

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
        // Two laps of 1000 slots in one chunk of 4096 steps: the cursor is 4096 steps on.
        let lap = r.lap();
        assert_eq!(r.cursor(), lap[4096 % 1000]);
        let t = timed_round(&mut r, 1000);
        assert!(t > 0.0 && t.is_finite());
        assert_eq!(
            r.cursor(),
            lap[4096 % 1000],
            "a whole lap returns to the same slot"
        );
    }

    #[test]
    fn plans_and_interleaved_rounds_time_every_ring() {
        let (q, f) = (Plan::quick(1e6), Plan::full(1e7, 4e7 as u64));
        assert_eq!((q.rounds, f.rounds), (3, 5));
        assert!(q.warm_min_ns < q.warm_cap_ns && f.warm_min_ns < f.warm_cap_ns);
        assert_eq!(q.steps(2.0, 1), 500_000);
        assert_eq!(q.steps(2.0, 1 << 20), 1 << 20);
        let plan = Plan {
            rounds: 4,
            round_ns: 1e5,
            warm_min_ns: 0,
            warm_cap_ns: 1_000_000,
        };
        let next = sattolo(500, 9);
        let (mut a, mut b) = (vec![0u64; 500], vec![0u64; 500 * 8]);
        let mut rings = [
            Ring::build(&mut a, Link::Index, &next, |k| k),
            Ring::build(&mut b, Link::Address, &next, |k| 8 * k),
        ];
        let t = plan.interleaved(&mut rings, 1000);
        assert_eq!(t.len(), 2);
        assert!(t.iter().all(|v| v.len() == 4), "{t:?}");
        assert!(
            t.iter().flatten().all(|x| *x > 0.0 && x.is_finite()),
            "{t:?}"
        );
        assert!(plan.interleaved(&mut [], 1).is_empty());
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
