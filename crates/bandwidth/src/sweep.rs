//! Measuring every kernel at one working set: warm-up, lap counts sized by time, interleaved
//! rounds, and a check after every timed round that the kernel really did its work.
//!
//! A round of one kernel is: one untimed lap (the warm-up: it brings the working set into
//! whatever level holds it, and after a kernel with non-temporal stores it brings back what
//! those stores sent to memory), then the timed part. The kernels take turns (read, write,
//! copy, ... then again): whatever the machine does during the run reaches all of them alike.
//!
//! - **Short laps** (at least three fit in a round of [`Plan::round_ns`], a fraction of a
//!   millisecond): the timed part is enough laps in one call to last about a round. Every
//!   round is judged by its evidence of disturbance (`measure::rounds`): a disturbed one is
//!   set aside and replaced, within a budget, and the figures come from the clean rounds.
//! - **Long laps** (a working set beyond the inner caches; from memory a lap lasts
//!   milliseconds, longer than a scheduler slice): the timed part is one lap cut into
//!   consecutive segments of at most about a round, each a call of the kernel over a
//!   contiguous slice of the lap and each judged by its own evidence (`measure::segments`).
//!   Every repetition is rebuilt from clean time: a disturbed segment, and the one after it,
//!   is replaced by the median of the same segment in the other repetitions. At such a
//!   working set every kernel is taken this way (a kernel whose lap is short takes its short
//!   round as one segment), so the kernels still take turns.
//!
//! Bytes moved: a read or a write over a working set of `W` bytes moves `W` bytes a lap; a copy
//! moves `W/2` bytes from the first half into the second, so it reads `W/2` and writes `W/2`:
//! `W` bytes a lap too, counted as STREAM counts a copy (read plus written).

use crate::kernels::{BLOCK, Fun, Kernel};
use measure::clock::time_ns;
use measure::disturb::{Load, Probe, Tally};
use measure::rounds::{self, Step, Timed, Want};
use measure::segments::{self, Segmented, Step as SegStep};
use measure::stats::{Summary, sorted_but_largest};
use std::hint::black_box;
use std::ops::Range;

/// How long and how often one working set is measured.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Clean rounds of every kernel per working set and pass, where a lap is short.
    pub rounds: usize,
    /// Repetitions of every kernel where a lap is long (each has its warm-up lap besides):
    /// fewer, so that a run takes no longer than before.
    pub long_rounds: usize,
    /// The time a round aims at (never less than one lap), and the most a segment of a
    /// long lap lasts, in nanoseconds.
    pub round_ns: f64,
    /// The most extra rounds (or repetitions) per kernel, working set and pass when rounds
    /// (or segments) are disturbed...
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

    /// The rounds to take at a working set whose laps are all short.
    pub fn want(&self) -> Want {
        Want {
            clean: self.rounds,
            max_rounds: self.rounds + self.extra_rounds,
            budget_ns: self.budget_ns,
            warm_every: false,
        }
    }

    /// The repetitions to take at a working set where some lap is long: each after its
    /// warm-up lap, more of them until every segment has clean samples.
    pub fn segmented(&self) -> segments::Want {
        segments::Want::new(self.long_rounds, self.extra_rounds, self.budget_ns).warm_every()
    }
}

/// How one kernel's timed part is taken at one working set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    /// This many laps in one call, together about a round long.
    Laps(u64),
    /// One lap, cut into this many consecutive segments of at most about a round each.
    Segments(usize),
}

impl Take {
    /// For a lap of `lap_ns` over `blocks` blocks: laps for about `round_ns` where at least
    /// three fit (a round then lasts under 1.5 `round_ns`), else one lap in segments of at
    /// most about `round_ns`.
    pub fn of(lap_ns: f64, round_ns: f64, blocks: u64) -> Take {
        if lap_ns * 2.0 < round_ns {
            Take::Laps(((round_ns / lap_ns).ceil() as u64).clamp(1, 1 << 32))
        } else {
            Take::Segments(segments::parts_for(lap_ns, round_ns, blocks))
        }
    }

    /// Laps in the timed part.
    pub fn laps(self) -> u64 {
        match self {
            Take::Laps(l) => l,
            Take::Segments(_) => 1,
        }
    }

    /// Segments of the timed part (a short round is one).
    pub fn parts(self) -> usize {
        match self {
            Take::Laps(_) => 1,
            Take::Segments(p) => p,
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

/// The words one lap of kernel `k` walks over a working set of `n` words: all of them, or for
/// a copy the source half (each source word goes to the same place in the other half).
fn lap_words(k: &Kernel, n: usize) -> usize {
    match k.fun {
        Fun::Copy(_) => n / 2,
        Fun::Read(_) | Fun::Write(_) => n,
    }
}

/// Segment `j` of `parts` of a lap of `words` words: a range of whole blocks
/// ([`BLOCK`] bytes, so every kernel's step divides it), the segments consecutive and
/// together the whole lap.
pub fn span(words: usize, parts: usize, j: usize) -> Range<usize> {
    let per = BLOCK / 8;
    let r = segments::range((words / per) as u64, parts, j);
    r.start as usize * per..r.end as usize * per
}

/// Calls kernel `k` for `laps` laps over the words `at` of the lap (of the first `n` words of
/// `m`; for a copy, of the first half, copied to the same place in the second). Returns what
/// a read returns, 0 for the others.
fn call(k: &Kernel, m: &mut [u64], n: usize, v: u64, laps: u64, at: Range<usize>) -> u64 {
    match k.fun {
        Fun::Read(f) => f(black_box(&m[at]), laps),
        Fun::Write(f) => {
            f(black_box(&mut m[at]), v, laps);
            0
        }
        Fun::Copy(f) => {
            let (s, d) = m[..n].split_at_mut(n / 2);
            f(&mut d[at.clone()], &s[at], laps);
            0
        }
    }
}

/// The untimed start of a round of kernel `k` storing `v`: a warm-up lap (its sum returned),
/// then marks that only the timed laps can overwrite: a write must store `v` over them, a
/// copy must carry the marked source words into the destination.
fn prepare(k: &Kernel, m: &mut [u64], n: usize, v: u64) -> u64 {
    let warm = call(k, m, n, v, 1, 0..lap_words(k, n));
    let mark = !v ^ 0x5a5a;
    match k.fun {
        Fun::Write(_) => samples(n).for_each(|i| m[i] = mark),
        Fun::Copy(_) => samples(n / 2).for_each(|i| m[i] = mark ^ i as u64),
        Fun::Read(_) => {}
    }
    warm
}

/// Panics unless the timed `laps` laps of kernel `k` did their work (a programming error): a
/// read's sum `got` is `laps` times the warm-up lap's `warm`, a write stored `v` over the
/// marks, a copy carried the marked words across.
fn check(k: &Kernel, m: &[u64], n: usize, v: u64, laps: u64, (got, warm): (u64, u64)) {
    let name = k.name();
    let mark = !v ^ 0x5a5a;
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
}

/// One round of kernel `k`: a warm-up lap, then `laps` timed laps. Returns the nanoseconds
/// of the timed laps and the share of them the thread spent on its core (its CPU time over
/// the wall time). Panics if the kernel did not do its work (a programming error).
pub fn round(k: &Kernel, m: &mut [u64], n: usize, laps: u64, r: usize) -> (f64, f64) {
    let v = value(r);
    let warm = prepare(k, m, n, v);
    let (got, ns, share) = on_core(|| call(k, m, n, v, laps, 0..lap_words(k, n)));
    check(k, m, n, v, laps, (got, warm));
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

/// How long one lap of kernel `k` takes: laps are quadrupled from one until a call lasts a
/// quarter of `round_ns`, and that call's time is divided by its laps. A call's time is its
/// time on the core (its wall time times its share on the core), so that a preemption during
/// the sizing cannot make a short lap look long (and have it timed a lap at a time).
pub fn lap_ns(k: &Kernel, m: &mut [u64], n: usize, round_ns: f64) -> f64 {
    let mut laps = 1u64;
    loop {
        let (ns, share) = round(k, m, n, laps, 0);
        let ns = ns * share.clamp(0.0, 1.0);
        if ns >= round_ns / 4.0 || laps >= 1 << 30 {
            return ns / laps as f64;
        }
        laps *= 4;
    }
}

/// One kernel's rounds at one working set.
#[derive(Debug, Clone, Default)]
pub struct Taken {
    /// GB/s of the rounds the figures come from: the clean rounds (every round where none
    /// was clean), or every repetition of a segmented round, rebuilt from clean segments.
    pub gbs: Vec<f64>,
    /// The rounds (or segments) behind them, and how many were disturbed.
    pub tally: Tally,
    /// Nanoseconds of every undisturbed segment (none where whole rounds were taken).
    pub clean_segments_ns: Vec<f64>,
}

impl Taken {
    /// From whole rounds, judged one by one.
    pub fn of_rounds(t: &Timed) -> Taken {
        Taken {
            gbs: t.used(),
            tally: t.tally(),
            clean_segments_ns: Vec::new(),
        }
    }

    /// From segmented repetitions, each moving `bytes` bytes.
    pub fn of_segments(s: &Segmented, bytes: f64) -> Taken {
        let clean = s.ns.iter().flatten().zip(s.evidence.iter().flatten());
        Taken {
            gbs: s.rounds_ns().iter().map(|ns| bytes / ns.max(1.0)).collect(),
            tally: s.tally(),
            clean_segments_ns: clean
                .filter(|(_, e)| !e.disturbed())
                .map(|(ns, _)| *ns)
                .collect(),
        }
    }
}

/// Every kernel's rounds at one working set.
#[derive(Debug, Clone)]
pub struct Measured {
    /// Per kernel (in the order given).
    pub kernels: Vec<Taken>,
    /// The load around them: one working set in one pass is taken in a window of its own.
    pub load: Load,
}

impl Measured {
    /// Rounds (or segments) whose evidence says other work took the core.
    pub fn disturbed(&self) -> usize {
        self.kernels.iter().map(|t| t.tally.disturbed).sum()
    }
}

/// Measures every kernel at a working set of `bytes`: each kernel's lap is timed first, and
/// if every lap is short, in interleaved rounds judged by their evidence ([`in_rounds`]),
/// otherwise in interleaved repetitions timed in segments ([`in_segments`]).
pub fn measure(
    probe: &mut Probe,
    kernels: &[Kernel],
    m: &mut [u64],
    bytes: usize,
    plan: &Plan,
) -> Measured {
    let n = bytes / 8;
    let takes: Vec<Take> = kernels
        .iter()
        .map(|k| {
            let lap = lap_ns(k, m, n, plan.round_ns);
            Take::of(lap, plan.round_ns, (lap_words(k, n) * 8 / BLOCK) as u64)
        })
        .collect();
    let kernels = if takes.iter().all(|t| matches!(t, Take::Laps(_))) {
        in_rounds(probe, kernels, m, bytes, plan, &takes)
    } else {
        in_segments(probe, kernels, m, bytes, plan, &takes)
    };
    Measured {
        kernels,
        load: Load::default(),
    }
}

/// Interleaved rounds ([`rounds::interleaved`]): a disturbed round (other work took the
/// core: it measures the scheduler, not the memory) is set aside and replaced, within the
/// plan's budget. Every round warms itself up (its first lap), so no separate warm-up is
/// asked for.
fn in_rounds(
    probe: &mut Probe,
    kernels: &[Kernel],
    m: &mut [u64],
    bytes: usize,
    plan: &Plan,
    takes: &[Take],
) -> Vec<Taken> {
    let n = bytes / 8;
    let mut taken = 0;
    let timed = rounds::interleaved(probe, &plan.want(), kernels.len(), |step| match step {
        Step::Warm(_) => 0.0,
        Step::Time(i) => {
            taken += 1;
            let laps = takes[i].laps();
            let (ns, _) = round(&kernels[i], m, n, laps, taken);
            bytes as f64 * laps as f64 / ns
        }
    });
    timed.iter().map(Taken::of_rounds).collect()
}

/// Interleaved repetitions in segments ([`segments::interleaved`]): each repetition of a
/// kernel is its warm-up lap, then its timed part segment by segment, checked once complete
/// (a read's sum over the segments must be the laps' sum); every repetition is rebuilt from
/// clean segments.
fn in_segments(
    probe: &Probe,
    kernels: &[Kernel],
    m: &mut [u64],
    bytes: usize,
    plan: &Plan,
    takes: &[Take],
) -> Vec<Taken> {
    let n = bytes / 8;
    let parts: Vec<usize> = takes.iter().map(|t| t.parts()).collect();
    // Per kernel, its repetition under way: the value it stores, the warm-up lap's sum, and
    // the sum of its segments so far.
    let mut now = vec![(0u64, 0u64, 0u64); kernels.len()];
    let mut taken = 0;
    let reps = segments::interleaved(probe, &plan.segmented(), &parts, |step| match step {
        SegStep::Warm(i) => {
            taken += 1;
            let v = value(taken);
            now[i] = (v, prepare(&kernels[i], m, n, v), 0);
            0.0
        }
        SegStep::Time(i, j) => {
            let (k, t) = (&kernels[i], takes[i]);
            let (v, warm, sum) = &mut now[i];
            let at = span(lap_words(k, n), t.parts(), j);
            let (ns, got) = time_ns(|| call(k, m, n, *v, t.laps(), at));
            *sum = sum.wrapping_add(black_box(got));
            if j + 1 == t.parts() {
                check(k, m, n, *v, t.laps(), (*sum, *warm));
            }
            ns.max(1.0)
        }
    });
    reps.iter()
        .zip(takes)
        .map(|(s, t)| Taken::of_segments(s, bytes as f64 * t.laps() as f64))
        .collect()
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
    /// Summarises one kernel's rounds from every pass (each pass's clean rounds, or its
    /// repetitions rebuilt from clean segments), with the tally of all of them.
    pub fn of_taken(passes: &[&Taken]) -> Option<Cell> {
        let slices: Vec<&[f64]> = passes.iter().map(|t| t.gbs.as_slice()).collect();
        Some(Cell {
            tally: passes
                .iter()
                .fold(Tally::default(), |t, p| t.merge(&p.tally)),
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

    fn plan(round_ns: f64) -> Plan {
        Plan {
            rounds: 2,
            long_rounds: 2,
            round_ns,
            extra_rounds: 2,
            budget_ns: 1_000_000,
        }
    }

    /// Measures every kernel at `bytes` and checks the shape of what came back.
    fn measured(bytes: usize, plan: &Plan) -> Measured {
        let mut m = measure::mem::Region::new(1 << 20).unwrap();
        let words = m.as_u64_mut();
        crate::fill(words);
        let ks = kernels::all(Width::detect());
        let out = measure(&mut Probe::new(), &ks, words, bytes, plan);
        assert_eq!(out.kernels.len(), ks.len());
        for (k, t) in ks.iter().zip(&out.kernels) {
            // Two rounds (repetitions), or up to two more where some were disturbed; the
            // figures come from the clean rounds (every repetition, rebuilt).
            assert!((1..=4).contains(&t.gbs.len()), "{}", k.name());
            assert!(
                t.gbs.iter().all(|g| *g > 0.0 && g.is_finite()),
                "{}",
                k.name()
            );
        }
        out
    }

    #[test]
    fn every_kernel_measures_and_checks_itself() {
        // Rounds of 2 ms: a lap over 16 KiB is far shorter (even unoptimised or emulated), so
        // every kernel is timed in whole rounds.
        let out = measured(16 << 10, &plan(2e6));
        for t in &out.kernels {
            assert!(!t.tally.segments, "16 KiB laps are short: whole rounds");
            assert!(
                (2..=4).contains(&t.tally.rounds),
                "{} rounds",
                t.tally.rounds
            );
        }
        assert!(out.disturbed() <= 2 * out.kernels.len());
    }

    #[test]
    fn long_laps_are_timed_in_segments_and_checked_whole() {
        // Rounds of 1 us: a lap over 512 KiB is longer (it would take over 500 GB/s not to
        // be), so every kernel's lap is cut into segments, and each repetition's read sum,
        // writes and copies are checked over the whole lap (a wrong cut would panic).
        let out = measured(512 << 10, &plan(1_000.0));
        for t in &out.kernels {
            assert!(t.tally.segments && (2..=4).contains(&t.gbs.len()));
            assert!(t.tally.rounds > t.gbs.len(), "{} segments", t.tally.rounds);
        }
    }

    #[test]
    fn a_short_lap_is_counted_in_laps_a_long_one_in_segments() {
        assert_eq!(Take::of(10_000.0, 300_000.0, 64), Take::Laps(30));
        assert_eq!(Take::of(140_000.0, 300_000.0, 64), Take::Laps(3));
        assert_eq!(Take::of(150_000.0, 300_000.0, 64), Take::Segments(1));
        assert_eq!(Take::of(100e6, 0.3e6, 1 << 20), Take::Segments(334));
        assert_eq!(Take::of(100e6, 0.3e6, 100), Take::Segments(100));
        assert_eq!(Take::of(0.0, 0.3e6, 8), Take::Laps(1 << 32));
        assert_eq!(Take::of(f64::NAN, 0.3e6, 8), Take::Segments(1));
        assert_eq!((Take::Laps(7).laps(), Take::Laps(7).parts()), (7, 1));
        assert_eq!(
            (Take::Segments(9).laps(), Take::Segments(9).parts()),
            (1, 9)
        );
    }

    #[test]
    fn segments_are_whole_blocks_and_cover_the_lap_once() {
        let per = BLOCK / 8;
        for (words, parts) in [(per, 1), (10 * per, 3), (1 << 20, 334), (7 * per, 7)] {
            let spans: Vec<_> = (0..parts).map(|j| span(words, parts, j)).collect();
            assert_eq!(spans[0].start, 0);
            assert_eq!(spans[parts - 1].end, words);
            for w in spans.windows(2) {
                assert_eq!(w[0].end, w[1].start);
            }
            for s in &spans {
                assert!(s.start.is_multiple_of(per) && s.end > s.start, "{s:?}");
            }
        }
    }

    #[test]
    #[should_panic(expected = "not 1 times the warm-up lap's")]
    fn a_read_missing_a_segment_is_caught() {
        let mut m = measure::mem::Region::new(1 << 20).unwrap();
        let words = m.as_u64_mut();
        crate::fill(words);
        let ks = kernels::all(Width::detect());
        let k = &ks[1];
        let n = 64 << 10;
        let warm = prepare(k, words, n, 1);
        let got: u64 = (0..3)
            .map(|j| call(k, words, n, 1, 1, span(n, 4, j)))
            .fold(0, u64::wrapping_add);
        check(k, words, n, 1, 1, (got, warm));
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
    fn cells_of_taken_rounds_use_the_clean_ones_and_count_the_rest() {
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
        let t = Taken::of_rounds(&t);
        let c = Cell::of_taken(&[&t, &t]).unwrap();
        assert_eq!(c.gbs.n, 4, "the disturbed rounds are set aside");
        assert_eq!(c.gbs.min, 10.0);
        assert_eq!((c.tally.rounds, c.tally.disturbed), (6, 2));
    }

    #[test]
    fn short_laps_get_more_rounds_than_long_ones() {
        let p = Plan::new(false);
        assert_eq!(p.want().clean, p.rounds);
        let s = p.segmented();
        assert_eq!(
            (s.reps, s.max_reps),
            (p.long_rounds, p.long_rounds + p.extra_rounds)
        );
        assert!(
            s.warm_every,
            "every repetition needs its warm-up lap, checked against"
        );
        assert!(p.rounds >= 11 && p.long_rounds <= 5);
    }
}
