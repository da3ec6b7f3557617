//! The measuring mechanics: how the two stride walks and the three layout loops are timed,
//! interleaved and checked. What they time lives in [`crate::walk`] and [`crate::layout`];
//! what is printed about the results lives in the report modules.

use crate::layout::{self, Particle, stride_sum_aos_x, stride_sum_soa_x};
use crate::report::Row;
use crate::walk::{self, Plan, stride_walk_fresh, stride_walk_wrap};
use measure::clock;
use measure::keep::black_box;
use measure::mem::Region;
use measure::scan::{self, DEFAULT_TOLERANCE, Order};
use measure::stats::Summary;

/// The first `len` bytes of the region, borrowed from it (so they cannot outlive the
/// mapping). The region may be longer (it is mapped in whole 2 MiB pages); the walks and
/// their plans use exactly `len`. Panics if the region is shorter.
pub fn bytes(region: &mut Region, len: usize) -> &mut [u8] {
    assert!(len <= region.len(), "the buffer is longer than its region");
    // SAFETY: the region is a private read-write mapping of at least `len` bytes, alive and
    // not otherwise accessed for as long as this exclusive borrow lasts.
    unsafe { std::slice::from_raw_parts_mut(region.as_ptr(), len) }
}

/// What the appendix's walk and the fresh-lines walk visit at each stride (and must sum to).
pub fn plans(
    len: usize,
    strides: &[usize],
    accesses: usize,
    shift: usize,
    line: Option<u64>,
    page: u64,
) -> Vec<(Plan, Plan)> {
    let line = line.map(|l| l as usize);
    strides
        .iter()
        .map(|&s| {
            (
                walk::plan(len, s, accesses, 0, line, page as usize),
                walk::plan(len, s, accesses, shift, line, page as usize),
            )
        })
        .collect()
}

/// Walks every stride once per pass (in the pass's order), and pools each stride's rounds
/// over the passes into one [`Row`], with the passes' agreement.
pub fn sweep(
    buf: &[u8],
    strides: &[usize],
    plans: &[(Plan, Plan)],
    orders: &[Order],
    accesses: usize,
    shift: usize,
    rounds: usize,
) -> Vec<Row> {
    let idx: Vec<usize> = (0..strides.len()).collect();
    let result = scan::run(&idx, orders, |&i, _pass| {
        measure_point(buf, strides[i], accesses, shift, rounds, &plans[i])
    });
    result
        .points
        .iter()
        .map(|pt| {
            let i = pt.param;
            let pool = |f: fn(&Point) -> &Vec<f64>| {
                let all: Vec<f64> = pt
                    .passes
                    .iter()
                    .flat_map(|p| f(p).iter().copied())
                    .collect();
                Summary::of(&all).expect("rounds > 0")
            };
            let a_wrap = pt.agreement(DEFAULT_TOLERANCE, |m| median(&m.wrap));
            let a_fresh = pt.agreement(DEFAULT_TOLERANCE, |m| median(&m.fresh));
            Row {
                stride: strides[i] as u64,
                wrap: pool(|p| &p.wrap),
                fresh: pool(|p| &p.fresh),
                wrap_spread: a_wrap.spread,
                fresh_spread: a_fresh.spread,
                agree: a_wrap.agree && a_fresh.agree,
                plan: plans[i].0,
                fresh_plan: plans[i].1,
                passes: pt
                    .passes
                    .iter()
                    .zip(&result.orders)
                    .map(|(p, o)| (o.name(), median(&p.wrap), median(&p.fresh)))
                    .collect(),
            }
        })
        .collect()
}

/// One stride in one pass: ns per access of every round, for both walks.
struct Point {
    wrap: Vec<f64>,
    fresh: Vec<f64>,
}

/// Times `rounds` interleaved rounds of both walks at `stride` (after a discarded warm-up),
/// checking every round's sum against the plan.
fn measure_point(
    buf: &[u8],
    stride: usize,
    accesses: usize,
    shift: usize,
    rounds: usize,
    plans: &(Plan, Plan),
) -> Point {
    let warm = (accesses / 8).max(1);
    black_box(stride_walk_wrap(black_box(buf), stride, warm));
    black_box(stride_walk_fresh(black_box(buf), stride, warm, shift));
    let mut p = Point {
        wrap: Vec::with_capacity(rounds),
        fresh: Vec::with_capacity(rounds),
    };
    for _ in 0..rounds {
        let (t, s) = clock::time_ns(|| {
            stride_walk_wrap(black_box(buf), black_box(stride), black_box(accesses))
        });
        verify("the appendix walk", stride, black_box(s), plans.0.sum);
        p.wrap.push(t / accesses as f64);
        let (t, s) = clock::time_ns(|| {
            stride_walk_fresh(
                black_box(buf),
                black_box(stride),
                black_box(accesses),
                black_box(shift),
            )
        });
        verify("the fresh-lines walk", stride, black_box(s), plans.1.sum);
        p.fresh.push(t / accesses as f64);
    }
    p
}

/// A wrong sum means the loop did not read what it should: no number may be printed.
fn verify(what: &str, stride: usize, got: u64, want: u64) {
    if got != want {
        eprintln!(
            "stride: error: {what} at stride {stride} returned {got}, expected {want}: the kernel did not read what was planned"
        );
        std::process::exit(1);
    }
}

fn median(v: &[f64]) -> f64 {
    measure::stats::median(v).unwrap_or(f64::NAN)
}

/// The three layout loops, timed: ns per element, and what every sum was checked against.
pub struct LayoutTimes {
    pub aos: Summary,
    pub soa: Summary,
    /// The SoA loop over `small_n` values that sit in L1, `reps` times: the compute floor.
    pub floor: Summary,
    pub rounds: usize,
    pub small_n: usize,
    pub reps: usize,
    /// The exact sum of both big arrays, and of the small one over all its repetitions.
    pub want: f64,
    pub want_small: f64,
}

/// Times `rounds` interleaved rounds of AoS, SoA and the SoA floor (AoS, SoA, floor, AoS, ...),
/// after a discarded warm-up. Every sum must be exact, or the program stops with exit 1.
pub fn layouts(aos: &[Particle], xs: &[f64], small_n: usize, rounds: usize) -> LayoutTimes {
    let n = xs.len();
    let reps = n / small_n;
    let small = &xs[..small_n];
    let want = layout::expected_sum(n);
    let want_small = layout::expected_sum(small_n) * reps as f64;
    let floor = || {
        let mut s = 0.0;
        for _ in 0..reps {
            s += stride_sum_soa_x(black_box(small));
        }
        s
    };
    black_box(stride_sum_aos_x(black_box(aos)));
    black_box(stride_sum_soa_x(black_box(xs)));
    black_box(floor());
    let (mut t_aos, mut t_soa, mut t_floor) = (Vec::new(), Vec::new(), Vec::new());
    let mut sums = Vec::new();
    for _ in 0..rounds {
        let (t, s) = clock::time_ns(|| stride_sum_aos_x(black_box(aos)));
        t_aos.push(t / n as f64);
        sums.push(("array of structs", black_box(s), want));
        let (t, s) = clock::time_ns(|| stride_sum_soa_x(black_box(xs)));
        t_soa.push(t / n as f64);
        sums.push(("x array", black_box(s), want));
        let (t, s) = clock::time_ns(floor);
        t_floor.push(t / (reps * small_n) as f64);
        sums.push(("small x array", black_box(s), want_small));
    }
    for (what, got, want) in &sums {
        if got != want {
            eprintln!("stride: error: the {what} sum returned {got}, expected {want}");
            std::process::exit(1);
        }
    }
    LayoutTimes {
        aos: Summary::of(&t_aos).expect("rounds > 0"),
        soa: Summary::of(&t_soa).expect("rounds > 0"),
        floor: Summary::of(&t_floor).expect("rounds > 0"),
        rounds: t_aos.len(),
        small_n,
        reps,
        want,
        want_small,
    }
}
