//! The measuring mechanics: the arrays the kernels run over, the sums they must return, and
//! the interleaved timing of sections 2 (three variants, random and sorted) and 4 (patterns).
//!
//! A round times one slice of [`CHUNK`] values, not the whole array: about 0.3 ms for the
//! real branch on random order, short enough to fit between two preemptions of a shared core
//! (the scheduler's slice is a few milliseconds). Each case starts at its own slice and takes
//! the next one every round, so the cases of one round never read the same memory and no
//! slice comes back before the whole array has passed: the data streams from memory as it did
//! when a round summed all of it, and no predictor can learn a repeated pattern. Rounds are
//! judged by their evidence ([`measure::rounds`]); the figures come from the clean ones.

use crate::{Kernel, N, PerVersion, THRESHOLD, Version};
use branch::shape::Shape;
use measure::clock;
use measure::disturb::{Probe, Tally};
use measure::keep::black_box;
use measure::ring;
use measure::rounds::{self, Step, Timed, Want};
use measure::stats::Summary;

/// The values one round sums: 64K values, 256 KiB of `i32`.
pub const CHUNK: usize = 1 << 16;
/// The time extra rounds may take, beyond the clean rounds asked for, when rounds are disturbed.
pub const EXTRA_BUDGET_NS: u64 = 250_000_000;

/// The rounds asked for: `clean` clean rounds per case, at most three times as many rounds,
/// extra rounds within [`EXTRA_BUDGET_NS`].
pub fn want(clean: usize) -> Want {
    Want::new(clean).budget(EXTRA_BUDGET_NS)
}

/// One timed case: a kernel over an array with the sum each slice must return.
struct Case<'a> {
    label: &'static str,
    f: Kernel,
    data: &'a [i32],
    sums: &'a [i64],
}

/// The sum of every [`CHUNK`] of `a` (the last one may be shorter).
pub fn chunk_sums(a: &[i32]) -> Vec<i64> {
    a.chunks(CHUNK).map(reference_sum).collect()
}

/// Runs case `c` over its slice `k` and checks the sum; a wrong sum ends the program.
fn run_slice(c: &Case, k: usize) -> usize {
    let k = k % c.sums.len();
    let slice = &c.data[k * CHUNK..((k + 1) * CHUNK).min(c.data.len())];
    let s = (c.f)(black_box(slice), black_box(THRESHOLD));
    if s != c.sums[k] {
        eprintln!(
            "branch: error: {} returned {s} over slice {k}, but its sum is {}",
            c.label, c.sums[k]
        );
        std::process::exit(1);
    }
    slice.len()
}

/// Times every case, interleaved (A B C A B C ...), one slice a round, until each has
/// `want.clean` clean rounds; returns per-element nanoseconds per case. Case `i` of `n` starts
/// at slice `i * slices / n`; a warm-up (before the first round and after a disturbed one)
/// runs the slice before the next one, which is not timed again soon.
fn time_interleaved(probe: &mut Probe, cases: &[Case], want: &Want) -> Vec<Timed> {
    let n = cases.len();
    let mut next: Vec<usize> = (0..n).map(|i| i * cases[i].sums.len() / n).collect();
    rounds::interleaved(probe, want, n, |step| match step {
        Step::Warm(i) => {
            let slices = cases[i].sums.len();
            run_slice(&cases[i], next[i] + slices - 1);
            0.0
        }
        Step::Time(i) => {
            let (t, len) = clock::time_ns(|| run_slice(&cases[i], next[i]));
            next[i] += 1;
            t / len as f64
        }
    })
}

/// One version timed over random and sorted data (per-element nanoseconds, clean rounds).
#[derive(Debug, Clone)]
pub struct Order {
    pub version: Version,
    pub shape: Option<Shape>,
    pub random: Summary,
    pub sorted: Summary,
    /// The rounds of both orders.
    pub tally: Tally,
}

impl Order {
    /// Random median over sorted median.
    pub fn ratio(&self) -> f64 {
        self.random.median / self.sorted.median
    }
}

/// Section 2's result: the three versions, and the rounds behind them with the load around.
#[derive(Debug, Clone)]
pub struct Orders {
    pub orders: PerVersion<Order>,
    pub tally: Tally,
}

/// Times the three versions over random and sorted data, the six cases interleaved. `sorted`
/// holds the values of `random` with each slice sorted; `sums` are their slices' sums.
pub fn time_orders(
    (random, sorted, sums): (&[i32], &[i32], &[i64]),
    shapes: &PerVersion<Option<Shape>>,
    want: &Want,
    core: Option<usize>,
) -> Orders {
    let cases: Vec<Case> = Version::ALL
        .iter()
        .flat_map(|&v| {
            [random, sorted].map(|data| Case {
                label: v.label(),
                f: v.kernel(),
                data,
                sums,
            })
        })
        .collect();
    let (times, load) =
        measure::retake::take(core, || time_interleaved(&mut Probe::new(), &cases, want));
    let orders = PerVersion::from_fn(|v| {
        let k = Version::ALL
            .iter()
            .position(|&x| x == v)
            .expect("every version is timed");
        let (r, s) = (&times[2 * k], &times[2 * k + 1]);
        Order {
            version: v,
            shape: *shapes.get(v),
            random: r.summary().expect("rounds >= 1"),
            sorted: s.summary().expect("rounds >= 1"),
            tally: rounds::tally([r, s]).with_load(load),
        }
    });
    Orders {
        orders,
        tally: rounds::tally(&times).with_load(load),
    }
}

/// One build of section 5's source timed over random and sorted data.
#[derive(Debug, Clone)]
pub struct Built {
    pub label: &'static str,
    /// The compiler setting that differs.
    pub flag: &'static str,
    pub shape: Option<Shape>,
    pub random: Summary,
    pub sorted: Summary,
    /// The rounds of both orders.
    pub tally: Tally,
}

/// Times each build of `builds` (label, flag, shape, kernel) over random and sorted data,
/// every case interleaved as in [`time_orders`]; returns them and all their rounds.
pub fn time_builds(
    (random, sorted, sums): (&[i32], &[i32], &[i64]),
    builds: &[(&'static str, &'static str, Option<Shape>, Kernel)],
    want: &Want,
    core: Option<usize>,
) -> (Vec<Built>, Tally) {
    let cases: Vec<Case> = builds
        .iter()
        .flat_map(|&(label, _, _, f)| {
            [random, sorted].map(|data| Case {
                label,
                f,
                data,
                sums,
            })
        })
        .collect();
    let (times, load) =
        measure::retake::take(core, || time_interleaved(&mut Probe::new(), &cases, want));
    let built = builds
        .iter()
        .enumerate()
        .map(|(k, &(label, flag, shape, _))| {
            let (r, s) = (&times[2 * k], &times[2 * k + 1]);
            Built {
                label,
                flag,
                shape,
                random: r.summary().expect("rounds >= 1"),
                sorted: s.summary().expect("rounds >= 1"),
                tally: rounds::tally([r, s]).with_load(load),
            }
        })
        .collect();
    (built, rounds::tally(&times).with_load(load))
}

/// `n` seeded random values in 0..256, or "not enough memory".
pub fn random_values(n: usize, seed: u64) -> Result<Vec<i32>, String> {
    let mut r = ring::rng(seed);
    let mut v = measure::mem::try_vec(n, 0i32)?;
    for x in v.iter_mut() {
        *x = ring::below(&mut r, 256) as i32;
    }
    Ok(v)
}

/// The sum the kernels must return, computed the plain way.
pub fn reference_sum(a: &[i32]) -> i64 {
    a.iter()
        .filter(|&&x| x >= THRESHOLD)
        .map(|&x| i64::from(x))
        .sum()
}

/// The share of `a`'s values that pass the test.
pub fn taken_share(a: &[i32]) -> f64 {
    a.iter().filter(|&&x| x >= THRESHOLD).count() as f64 / a.len() as f64
}

/// How regular a pattern is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Regularity {
    /// Taken every time.
    Always,
    /// Taken once every `n` values (`n` at least 2).
    Periodic(usize),
    /// Taken at random, half the time.
    Random,
}

impl Regularity {
    /// The period as `#DATA` writes it: 1 always, 0 random.
    pub fn period(self) -> usize {
        match self {
            Regularity::Always => 1,
            Regularity::Periodic(n) => n,
            Regularity::Random => 0,
        }
    }
}

/// One pattern of taken and not-taken values for the real branch.
pub struct Pattern {
    pub name: &'static str,
    pub kind: Regularity,
    pub taken: f64,
    pub values: Vec<i32>,
}

/// The five patterns, each `N` values of 200 (taken) or 10 (not taken). The first array
/// reuses `spare`'s memory; "not enough memory" if the others cannot be allocated.
pub fn pattern_arrays(spare: Vec<i32>) -> Result<Vec<Pattern>, String> {
    let mut r = ring::rng(ring::DEFAULT_SEED ^ 0x5eed);
    let specs = [
        ("always true", Regularity::Always),
        ("alternating", Regularity::Periodic(2)),
        ("one in four", Regularity::Periodic(4)),
        ("one in sixteen", Regularity::Periodic(16)),
        ("random", Regularity::Random),
    ];
    let mut spare = Some(spare);
    specs
        .iter()
        .map(|&(name, kind)| {
            let mut v = match spare.take() {
                Some(v) => v,
                None => measure::mem::try_vec(N, 0)?,
            };
            for (i, x) in v.iter_mut().enumerate() {
                let take = match kind {
                    Regularity::Random => ring::below(&mut r, 2) == 1,
                    k => i % k.period() == 0,
                };
                *x = if take { 200 } else { 10 };
            }
            Ok(Pattern {
                name,
                kind,
                taken: taken_share(&v),
                values: v,
            })
        })
        .collect()
}

/// Section 4's timing: each pattern's clean rounds and their tally, and the tally of all.
pub struct PatternTimes {
    pub times: Vec<(Summary, Tally)>,
    pub tally: Tally,
}

/// Times `f` over every pattern, the patterns interleaved.
pub fn time_patterns(
    patterns: &[Pattern],
    f: Kernel,
    want: &Want,
    core: Option<usize>,
) -> PatternTimes {
    let sums: Vec<Vec<i64>> = patterns.iter().map(|p| chunk_sums(&p.values)).collect();
    let cases: Vec<Case> = patterns
        .iter()
        .zip(&sums)
        .map(|(p, sums)| Case {
            label: p.name,
            f,
            data: &p.values,
            sums,
        })
        .collect();
    let (times, load) =
        measure::retake::take(core, || time_interleaved(&mut Probe::new(), &cases, want));
    PatternTimes {
        times: times
            .iter()
            .map(|t| (t.summary().expect("rounds >= 1"), t.tally().with_load(load)))
            .collect(),
        tally: rounds::tally(&times).with_load(load),
    }
}
