//! The measuring mechanics: the arrays the kernels run over, the sums they must return, and
//! the interleaved timing of sections 2 (three variants, random and sorted) and 4 (patterns).

use crate::{Kernel, N, THRESHOLD, VARIANTS};
use branch::shape::Shape;
use measure::clock;
use measure::keep::black_box;
use measure::ring;
use measure::stats::Summary;

/// One timed case: a kernel over an array with the sum it must return.
struct Case<'a> {
    label: &'static str,
    f: Kernel,
    data: &'a [i32],
    expect: i64,
}

/// Times every case once per round, interleaved (A B C A B C ...), after one discarded
/// warm-up round; returns per-element nanoseconds per case. A wrong sum ends the program.
fn time_interleaved(cases: &[Case], rounds: usize) -> Vec<Summary> {
    let mut ns: Vec<Vec<f64>> = vec![Vec::with_capacity(rounds); cases.len()];
    for round in 0..=rounds {
        for (k, c) in cases.iter().enumerate() {
            let (t, s) = clock::time_ns(|| (c.f)(black_box(c.data), black_box(THRESHOLD)));
            if s != c.expect {
                eprintln!(
                    "branch: error: {} returned {s}, but the sum is {}",
                    c.label, c.expect
                );
                std::process::exit(1);
            }
            if round > 0 {
                ns[k].push(t / c.data.len() as f64);
            }
        }
    }
    ns.iter()
        .map(|v| Summary::of(v).expect("rounds >= 1"))
        .collect()
}

/// One variant timed over random and sorted data (per-element nanoseconds).
pub struct Order {
    pub label: &'static str,
    pub shape: Option<Shape>,
    pub random: Summary,
    pub sorted: Summary,
}

impl Order {
    /// Random median over sorted median.
    pub fn ratio(&self) -> f64 {
        self.random.median / self.sorted.median
    }
}

/// Times the three variants over random and sorted data, the six cases interleaved.
pub fn time_orders(
    random: &[i32],
    sorted: &[i32],
    expect: i64,
    shapes: &[Option<Shape>],
    rounds: usize,
) -> Vec<Order> {
    let cases: Vec<Case> = VARIANTS
        .iter()
        .flat_map(|v| {
            [random, sorted].map(|data| Case {
                label: v.label,
                f: v.f,
                data,
                expect,
            })
        })
        .collect();
    let times = time_interleaved(&cases, rounds);
    VARIANTS
        .iter()
        .enumerate()
        .map(|(k, v)| Order {
            label: v.label,
            shape: shapes[k],
            random: times[2 * k],
            sorted: times[2 * k + 1],
        })
        .collect()
}

/// `n` seeded random values in 0..256.
pub fn random_values(n: usize, seed: u64) -> Vec<i32> {
    let mut r = ring::rng(seed);
    (0..n).map(|_| ring::below(&mut r, 256) as i32).collect()
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

/// One pattern of taken and not-taken values for the real branch.
pub struct Pattern {
    pub name: &'static str,
    /// 0 for random.
    pub period: usize,
    pub taken: f64,
    pub values: Vec<i32>,
}

/// The five patterns, each `N` values of 200 (taken) or 10 (not taken). The first array
/// reuses `spare`'s memory.
pub fn pattern_arrays(spare: Vec<i32>) -> Vec<Pattern> {
    let mut r = ring::rng(ring::DEFAULT_SEED ^ 0x5eed);
    let specs = [
        ("always true", 1usize),
        ("alternating", 2),
        ("one in four", 4),
        ("one in sixteen", 16),
        ("random", 0),
    ];
    let mut spare = Some(spare);
    specs
        .iter()
        .map(|&(name, period)| {
            let mut v = spare.take().unwrap_or_else(|| vec![0; N]);
            for (i, x) in v.iter_mut().enumerate() {
                let take = if period == 0 {
                    ring::below(&mut r, 2) == 1
                } else {
                    i % period == 0
                };
                *x = if take { 200 } else { 10 };
            }
            Pattern {
                name,
                period,
                taken: taken_share(&v),
                values: v,
            }
        })
        .collect()
}

/// Times `f` over every pattern, the patterns interleaved.
pub fn time_patterns(patterns: &[Pattern], f: Kernel, rounds: usize) -> Vec<Summary> {
    let cases: Vec<Case> = patterns
        .iter()
        .map(|p| Case {
            label: p.name,
            f,
            data: &p.values,
            expect: reference_sum(&p.values),
        })
        .collect();
    time_interleaved(&cases, rounds)
}
