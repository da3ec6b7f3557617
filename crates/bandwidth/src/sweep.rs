//! Measuring every kernel at one working set: warm-up, lap counts sized by time, interleaved
//! rounds, and a check after every timed round that the kernel really did its work.
//!
//! A round of one kernel is: one untimed lap (the warm-up: it brings the working set into
//! whatever level holds it, and after a kernel with non-temporal stores it brings back what
//! those stores sent to memory), then `laps` timed laps in one call, a fraction of a
//! millisecond where a lap is short. The kernels take turns (read, write, copy, ... then
//! again): whatever the machine does during the run reaches all of them alike. Every round is
//! judged by its evidence of disturbance (`measure::rounds`): a disturbed one is set aside and
//! replaced, within a budget, and the figures come from the clean rounds.
//!
//! Bytes moved: a read or a write over a working set of `W` bytes moves `W` bytes a lap; a copy
//! moves `W/2` bytes from the first half into the second, so it reads `W/2` and writes `W/2`:
//! `W` bytes a lap too, counted as STREAM counts a copy (read plus written).

use crate::kernels::{Fun, Kernel};
use measure::disturb::{Probe, Tally};
use measure::rounds::{self, Step, Timed, Want};
use measure::stats::{Summary, sorted_but_largest};
use std::hint::black_box;

/// How long and how often one working set is measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Clean rounds of every kernel per working set and pass, where a lap is short.
    pub rounds: usize,
    /// Clean rounds where a round is a lap or two (a lap cannot be cut short, and each round
    /// has its warm-up lap besides): fewer, so that a run takes no longer than before.
    pub long_rounds: usize,
    /// The time a round aims at (never less than one lap), in nanoseconds.
    pub round_ns: f64,
    /// The most extra rounds per kernel, working set and pass when rounds are disturbed...
    pub extra_rounds: usize,
    /// ... within this time per working set and pass.
    pub budget_ns: u64,
}

impl Plan {
    pub fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                rounds: 7,
                long_rounds: 3,
                round_ns: 0.2e6,
                extra_rounds: 6,
                budget_ns: 10_000_000,
            }
        } else {
            Plan {
                rounds: 11,
                long_rounds: 5,
                round_ns: 0.3e6,
                extra_rounds: 10,
                budget_ns: 20_000_000,
            }
        }
    }

    /// The rounds to take at a working set whose kernels need `laps` laps for a round.
    pub fn want(&self, laps: &[u64]) -> Want {
        let clean = if laps.iter().all(|&l| l >= 2) {
            self.rounds
        } else {
            self.long_rounds
        };
        Want {
            clean,
            max_rounds: clean + self.extra_rounds,
            budget_ns: self.budget_ns,
            warm_every: false,
        }
    }
}

/// The value the write kernels store in round `r` (never 0, different every round, so that a
/// write that did not happen is caught).
fn value(r: usize) -> u64 {
    0x9e37_79b9_7f4a_7c15 ^ (r as u64).wrapping_mul(0x0100_0000_0100_0001)
}

/// Word positions of a few samples spread over `n` words (used to check writes and copies).
fn samples(n: usize) -> impl Iterator<Item = usize> {
    (0..8).map(move |k| (k * n / 8 + 3 * k + 1).min(n - 1))
}

/// Calls kernel `k` for `laps` laps over the first `n` words of `m` (a copy: the first half
/// into the second). Returns what a read returns, 0 for the others.
fn call(k: &Kernel, m: &mut [u64], n: usize, v: u64, laps: u64) -> u64 {
    match k.fun {
        Fun::Read(f) => f(black_box(&m[..n]), laps),
        Fun::Write(f) => {
            f(black_box(&mut m[..n]), v, laps);
            0
        }
        Fun::Copy(f) => {
            let (s, d) = m[..n].split_at_mut(n / 2);
            f(d, s, laps);
            0
        }
    }
}

/// One round of kernel `k`: a warm-up lap, then `laps` timed laps. Returns the nanoseconds
/// of the timed laps and the share of them the thread spent on its core (its CPU time over
/// the wall time). Panics if the kernel did not do its work (a programming error).
pub fn round(k: &Kernel, m: &mut [u64], n: usize, laps: u64, r: usize) -> (f64, f64) {
    let v = value(r);
    let warm = call(k, m, n, v, 1);
    // Marks that only the timed laps can overwrite: a write must store `v` over them, a copy
    // must carry the marked source words into the destination.
    let mark = !v ^ 0x5a5a;
    match k.fun {
        Fun::Write(_) => samples(n).for_each(|i| m[i] = mark),
        Fun::Copy(_) => samples(n / 2).for_each(|i| m[i] = mark ^ i as u64),
        Fun::Read(_) => {}
    }
    let (got, ns, share) = on_core(|| call(k, m, n, v, laps));
    let name = k.name();
    match k.fun {
        Fun::Read(_) => assert_eq!(
            got,
            warm.wrapping_mul(laps),
            "{name}: the timed laps' sum is not {laps} times the warm-up lap's"
        ),
        Fun::Write(_) => assert!(
            samples(n).all(|i| m[i] == v),
            "{name}: the timed laps did not write every word"
        ),
        Fun::Copy(_) => assert!(
            samples(n / 2).all(|i| m[n / 2 + i] == mark ^ i as u64),
            "{name}: the timed laps did not copy every word"
        ),
    }
    (ns.max(1.0), share)
}

/// Runs `f` and returns what it returned, the wall nanoseconds it took, and the share of
/// them the calling thread spent on its core (its CPU time over the wall time; 1 where the
/// thread's CPU clock cannot be read).
pub fn on_core<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let r = measure::clock::on_core(f);
    let ns = r.ns();
    (r.out, ns, r.cpu_share.unwrap_or(1.0))
}

/// How many laps make a round of kernel `k` last about `round_ns`: laps are quadrupled from
/// one until a call lasts a quarter of that, then scaled. Never fewer than one.
pub fn laps_for(k: &Kernel, m: &mut [u64], n: usize, round_ns: f64) -> u64 {
    let mut laps = 1u64;
    loop {
        let (ns, _) = round(k, m, n, laps, 0);
        if ns >= round_ns / 4.0 || laps >= 1 << 30 {
            return ((laps as f64 * round_ns / ns).ceil() as u64).clamp(1, 1 << 32);
        }
        laps *= 4;
    }
}

/// Every kernel's rounds at one working set.
#[derive(Debug, Clone)]
pub struct Measured {
    /// GB/s per kernel (in the order given), one value per round, with its evidence.
    pub gbs: Vec<Timed>,
}

impl Measured {
    /// Rounds set aside because their evidence says other work took the core.
    pub fn disturbed(&self) -> usize {
        self.gbs.iter().map(Timed::disturbed_count).sum()
    }
}

/// Measures every kernel at a working set of `bytes`, in interleaved rounds judged by their
/// evidence ([`rounds::interleaved`]): a disturbed round (other work took the core: it
/// measures the scheduler, not the memory) is set aside and replaced, within the plan's
/// budget. Every round warms itself up (its first lap), so no separate warm-up is asked for.
pub fn measure(
    probe: &mut Probe,
    kernels: &[Kernel],
    m: &mut [u64],
    bytes: usize,
    plan: &Plan,
) -> Measured {
    let n = bytes / 8;
    let laps: Vec<u64> = kernels
        .iter()
        .map(|k| laps_for(k, m, n, plan.round_ns))
        .collect();
    let mut taken = 0;
    let gbs = rounds::interleaved(probe, &plan.want(&laps), kernels.len(), |step| match step {
        Step::Warm(_) => 0.0,
        Step::Time(i) => {
            taken += 1;
            let (ns, _) = round(&kernels[i], m, n, laps[i], taken);
            bytes as f64 * laps[i] as f64 / ns
        }
    });
    Measured { gbs }
}

/// One kernel at one working set, over both passes.
#[derive(Debug, Clone, Copy)]
pub struct Cell {
    /// GB/s over the clean rounds of every pass.
    pub gbs: Summary,
    /// The rounds behind it, and how many were disturbed (and set aside).
    pub tally: Tally,
    /// How far the passes' medians disagree (max/min - 1).
    pub pass_spread: f64,
    /// The largest spread of one pass's rounds (max/min - 1), its slowest round left out.
    pub round_spread: f64,
}

/// Passes agree within this share...
pub const PASS_TOLERANCE: f64 = measure::scan::DEFAULT_TOLERANCE;
/// ... and rounds within this share, or the point is unstable.
pub const ROUND_TOLERANCE: f64 = 0.25;

impl Cell {
    /// Summarises one kernel's rounds from every pass (`passes[p]` = that pass's rounds).
    pub fn of(passes: &[&[f64]]) -> Option<Cell> {
        let all: Vec<f64> = passes.iter().flat_map(|p| p.iter().copied()).collect();
        let medians: Vec<f64> = passes
            .iter()
            .filter_map(|p| measure::stats::median(p))
            .collect();
        let lo = medians.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = medians.iter().copied().fold(0.0, f64::max);
        let round_spread = passes
            .iter()
            .map(|p| spread_but_slowest(p))
            .fold(0.0, f64::max);
        Some(Cell {
            gbs: Summary::of(&all)?,
            tally: Tally::default(),
            pass_spread: if lo > 0.0 {
                hi / lo - 1.0
            } else {
                f64::INFINITY
            },
            round_spread,
        })
    }
    /// Summarises one kernel's timed rounds from every pass: each pass's clean rounds (all of
    /// them where none was clean, which the tally then says).
    pub fn of_timed(passes: &[&Timed]) -> Option<Cell> {
        let used: Vec<Vec<f64>> = passes.iter().map(|t| t.used()).collect();
        let slices: Vec<&[f64]> = used.iter().map(Vec::as_slice).collect();
        Some(Cell {
            tally: rounds::tally(passes.iter().copied()),
            ..Cell::of(&slices)?
        })
    }
    pub fn agree(&self) -> bool {
        self.pass_spread <= PASS_TOLERANCE
    }
    pub fn stable(&self) -> bool {
        self.agree() && self.round_spread <= ROUND_TOLERANCE
    }
}

/// max/min - 1 of one pass's GB/s with its slowest round (the lowest rate) left out, when
/// there are three or more: one interrupted round is tolerated, two are not.
fn spread_but_slowest(gbs: &[f64]) -> f64 {
    // The slowest round is the longest time: sort the times, leave out the largest.
    let times: Vec<f64> = gbs.iter().map(|g| 1.0 / g).collect();
    let s = sorted_but_largest(&times);
    match (s.first(), s.last()) {
        (Some(&lo), Some(&hi)) if lo > 0.0 => hi / lo - 1.0,
        _ => f64::INFINITY,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{self, Width};

    #[test]
    fn samples_stay_inside_and_spread() {
        for n in [32usize, 384, 1 << 20] {
            let s: Vec<usize> = samples(n).collect();
            assert_eq!(s.len(), 8);
            assert!(s.iter().all(|&i| i < n), "{n}: {s:?}");
            assert!(s[7] >= n / 2, "{n}: {s:?}");
        }
        assert_ne!(value(1), value(2));
        assert!((0..100).all(|r| value(r) != 0));
    }

    #[test]
    fn every_kernel_measures_and_checks_itself() {
        let mut m = measure::mem::Region::new(1 << 20).unwrap();
        let words = m.as_u64_mut();
        let ks = kernels::all(Width::detect());
        let plan = Plan {
            rounds: 2,
            long_rounds: 2,
            round_ns: 20_000.0,
            extra_rounds: 2,
            budget_ns: 1_000_000,
        };
        let out = measure(&mut Probe::new(), &ks, words, 64 << 10, &plan);
        assert_eq!(out.gbs.len(), ks.len());
        for (k, v) in ks.iter().zip(&out.gbs) {
            // Two clean rounds, or up to two more where rounds were disturbed.
            assert!((2..=4).contains(&v.values.len()), "{}", k.name());
            assert_eq!(v.values.len(), v.evidence.len());
            assert!(
                v.values.iter().all(|g| *g > 0.0 && g.is_finite()),
                "{}",
                k.name()
            );
        }
        assert!(out.disturbed() <= 2 * ks.len());
    }

    #[test]
    fn cells_summarise_passes_and_flag_disagreement() {
        let a = [10.0, 10.5, 9.8];
        let b = [10.1, 10.2, 10.0];
        let c = Cell::of(&[&a, &b]).unwrap();
        assert_eq!(c.gbs.n, 6);
        assert!(c.agree() && c.stable(), "{c:?}");
        let slow = [5.0, 5.1, 5.2];
        let d = Cell::of(&[&a, &slow]).unwrap();
        assert!(!d.agree());
        // One interrupted round is tolerated, two are not.
        assert!(Cell::of(&[&[10.0, 10.0, 2.0], &b]).unwrap().stable());
        assert!(!Cell::of(&[&[10.0, 2.0, 2.0, 10.0], &b]).unwrap().stable());
    }

    #[test]
    fn cells_of_timed_rounds_use_the_clean_ones_and_count_the_rest() {
        use measure::disturb::Evidence;
        let ev = |bad: bool| Evidence {
            wall_ns: 300_000,
            switches: u64::from(bad),
            waited_ns: Some(if bad { 1_000_000 } else { 0 }),
            off_cpu_ns: 0,
        };
        let t = Timed {
            values: vec![10.0, 3.0, 10.2],
            evidence: vec![ev(false), ev(true), ev(false)],
        };
        let c = Cell::of_timed(&[&t, &t]).unwrap();
        assert_eq!(c.gbs.n, 4, "the disturbed rounds are set aside");
        assert_eq!(c.gbs.min, 10.0);
        assert_eq!((c.tally.rounds, c.tally.disturbed), (6, 2));
    }

    #[test]
    fn short_laps_get_more_rounds_than_long_ones() {
        let p = Plan::new(false);
        assert_eq!(p.want(&[8, 40]).clean, p.rounds);
        assert_eq!(p.want(&[8, 1]).clean, p.long_rounds);
        assert!(p.rounds >= 11 && p.long_rounds <= 5);
    }
}
