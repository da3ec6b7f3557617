//! The measuring mechanics: the arrays the kernels run over, the sums they must return, and
//! the interleaved timing of sections 2 (three variants, random and sorted) and 4 (patterns).

use crate::{Kernel, N, PerVersion, THRESHOLD, Version};
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

/// One version timed over random and sorted data (per-element nanoseconds).
pub struct Order {
    pub version: Version,
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

/// Times the three versions over random and sorted data, the six cases interleaved.
pub fn time_orders(
    random: &[i32],
    sorted: &[i32],
    expect: i64,
    shapes: &PerVersion<Option<Shape>>,
    rounds: usize,
) -> PerVersion<Order> {
    let cases: Vec<Case> = Version::ALL
        .iter()
        .flat_map(|&v| {
            [random, sorted].map(|data| Case {
                label: v.label(),
                f: v.kernel(),
                data,
                expect,
            })
        })
        .collect();
    let times = time_interleaved(&cases, rounds);
    PerVersion::from_fn(|v| {
        let k = Version::ALL
            .iter()
            .position(|&x| x == v)
            .expect("every version is timed");
        Order {
            version: v,
            shape: *shapes.get(v),
            random: times[2 * k],
            sorted: times[2 * k + 1],
        }
    })
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
