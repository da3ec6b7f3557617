//! The measuring mechanics: how the two stride walks and the three layout loops are timed,
//! interleaved and checked. What they time lives in [`crate::walk`] and [`crate::layout`];
//! what is printed about the results lives in the report modules.

use crate::layout::{self, Particle, stride_sum_aos_x, stride_sum_soa_x};
use crate::report::{PassRow, Row};
use crate::walk::{self, Plan, stride_walk_fresh, stride_walk_wrap};
use measure::clock;
use measure::disturb::{Probe, Tally};
use measure::keep::black_box;
use measure::mem::Region;
use measure::rounds::{self, Step, Timed, Want};
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

/// How the walks' rounds are taken: `clean` clean rounds per walk, stride and pass; a round
/// is one whole walk of the fixed count (cutting it short would change what it visits), so a
/// disturbed one is replaced, up to [`WALK_EXTRA_ROUNDS`] more, within [`WALK_BUDGET_NS`].
pub fn walk_want(clean: usize) -> Want {
    Want {
        clean,
        max_rounds: clean + WALK_EXTRA_ROUNDS,
        budget_ns: WALK_BUDGET_NS,
        warm_every: false,
    }
}

/// The most extra rounds per walk, stride and pass when rounds are disturbed.
pub const WALK_EXTRA_ROUNDS: usize = 2;
/// The time given to those extra rounds, per stride and pass.
pub const WALK_BUDGET_NS: u64 = 20_000_000;

/// Walks every stride once per pass (in the pass's order), and pools each stride's rounds
/// over the passes into one [`Row`], with the passes' agreement. The pooled figures come
/// from the clean rounds ([`Timed::summary`]).
pub fn sweep(
    buf: &[u8],
    strides: &[usize],
    plans: &[(Plan, Plan)],
    orders: &[Order],
    walk: (usize, usize),
    want: &Want,
) -> Vec<Row> {
    let idx: Vec<usize> = (0..strides.len()).collect();
    let mut probe = Probe::new();
    let result = scan::run(&idx, orders, |&i, _pass| {
        measure_point(&mut probe, want, buf, strides[i], walk, &plans[i])
    });
    result
        .points
        .iter()
        .map(|pt| {
            let i = pt.param;
            let pool = |f: fn(&Point) -> &Timed| {
                let mut all = Timed::default();
                for p in &pt.passes {
                    all.values.extend_from_slice(&f(p).values);
                    all.evidence.extend_from_slice(&f(p).evidence);
                }
                all
            };
            let (wrap, fresh) = (pool(|p| &p.wrap), pool(|p| &p.fresh));
            let a_wrap = pt.agreement(DEFAULT_TOLERANCE, |m| median(&m.wrap.used()));
            let a_fresh = pt.agreement(DEFAULT_TOLERANCE, |m| median(&m.fresh.used()));
            Row {
                stride: strides[i] as u64,
                wrap: wrap.summary().expect("rounds > 0"),
                fresh: fresh.summary().expect("rounds > 0"),
                tally: rounds::tally([&wrap, &fresh]),
                wrap_spread: a_wrap.spread,
                fresh_spread: a_fresh.spread,
                agree: a_wrap.agree && a_fresh.agree,
                plan: plans[i].0,
                fresh_plan: plans[i].1,
                passes: pt
                    .passes
                    .iter()
                    .zip(&result.orders)
                    .map(|(p, o)| PassRow {
                        order: o.name(),
                        wrap_ns: median(&p.wrap.used()),
                        fresh_ns: median(&p.fresh.used()),
                        tally: rounds::tally([&p.wrap, &p.fresh]),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// One stride in one pass: ns per access of every round, for both walks, with evidence.
struct Point {
    wrap: Timed,
    fresh: Timed,
}

/// Times interleaved rounds of both walks at `stride` (`walk` = accesses, shift), each after
/// a discarded warm-up when cold, checking every round's sum against the plan.
fn measure_point(
    probe: &mut Probe,
    want: &Want,
    buf: &[u8],
    stride: usize,
    (accesses, shift): (usize, usize),
    plans: &(Plan, Plan),
) -> Point {
    let warm = (accesses / 8).max(1);
    let mut t = rounds::interleaved(probe, want, 2, |step| match step {
        Step::Warm(0) => {
            black_box(stride_walk_wrap(black_box(buf), stride, warm));
            0.0
        }
        Step::Warm(_) => {
            black_box(stride_walk_fresh(black_box(buf), stride, warm, shift));
            0.0
        }
        Step::Time(0) => {
            let (t, s) = clock::time_ns(|| {
                stride_walk_wrap(black_box(buf), black_box(stride), black_box(accesses))
            });
            verify("the appendix walk", stride, black_box(s), plans.0.sum);
            t / accesses as f64
        }
        Step::Time(_) => {
            let (t, s) = clock::time_ns(|| {
                stride_walk_fresh(
                    black_box(buf),
                    black_box(stride),
                    black_box(accesses),
                    black_box(shift),
                )
            });
            verify("the fresh-lines walk", stride, black_box(s), plans.1.sum);
            t / accesses as f64
        }
    });
    let fresh = t.pop().expect("two walks");
    let wrap = t.pop().expect("two walks");
    Point { wrap, fresh }
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

/// Elements per round of the two big layouts: 256 Ki elements, a fraction of a millisecond
/// (2 MiB of x values, 14 MiB of structs), so that a round fits between two preemptions.
pub const CHUNK: usize = 256 << 10;
/// The most extra rounds per layout loop when rounds are disturbed.
pub const LAYOUT_EXTRA_ROUNDS: usize = 20;
/// The time given to those extra rounds.
pub const LAYOUT_BUDGET_NS: u64 = 40_000_000;

/// The three layout loops, timed: ns per element of every round, and what every sum was
/// checked against.
pub struct LayoutTimes {
    pub aos: Timed,
    pub soa: Timed,
    /// The SoA loop over `small_n` values that sit in L1, `reps` times: the compute floor.
    pub floor: Timed,
    /// Elements per round (a chunk of the big arrays, or `reps` times the small one).
    pub chunk: usize,
    pub small_n: usize,
    pub reps: usize,
    /// The rounds, their disturbance and the load around them (set by the caller).
    pub tally: Tally,
}

impl LayoutTimes {
    /// The clean rounds' summary of one loop.
    pub fn summary(t: &Timed) -> Summary {
        t.summary().expect("rounds > 0")
    }
}

/// Times interleaved rounds of AoS, SoA and the SoA floor (AoS, SoA, floor, AoS, ...) until
/// each has `clean` clean rounds. A round of AoS or SoA sums the next chunk of [`CHUNK`]
/// elements (walking on through the arrays, so each chunk comes from memory as in a whole
/// pass); a round of the floor sums the small array `CHUNK / small_n` times. A loop is
/// warmed up (the tail of the chunk before, or the small array) before its first round and
/// after a disturbed one. Every sum must be exact, or the program stops with exit 1.
pub fn layouts(aos: &[Particle], xs: &[f64], small_n: usize, clean: usize) -> LayoutTimes {
    let n = xs.len();
    let chunk = CHUNK.min(n);
    let chunks = n / chunk;
    let reps = chunk / small_n;
    let small = &xs[..small_n];
    let want_small = layout::expected_sum(small_n) * reps as f64;
    let floor = || {
        let mut s = 0.0;
        for _ in 0..reps {
            s += stride_sum_soa_x(black_box(small));
        }
        s
    };
    let mut next = [0usize; 2];
    let mut wrong = Vec::new();
    let want = Want {
        clean,
        max_rounds: clean + LAYOUT_EXTRA_ROUNDS,
        budget_ns: LAYOUT_BUDGET_NS,
        warm_every: false,
    };
    let mut probe = Probe::new();
    let mut t = rounds::interleaved(&mut probe, &want, 3, |step| {
        let range = |k: usize| (k % chunks) * chunk..(k % chunks + 1) * chunk;
        match step {
            Step::Warm(2) => black_box(floor()),
            Step::Warm(i) => {
                let r = range(next[i] + chunks - 1);
                let tail = r.end - 4096.min(chunk)..r.end;
                if i == 0 {
                    black_box(stride_sum_aos_x(black_box(&aos[tail])))
                } else {
                    black_box(stride_sum_soa_x(black_box(&xs[tail])))
                }
            }
            Step::Time(2) => {
                let (t, s) = clock::time_ns(floor);
                if black_box(s) != want_small {
                    wrong.push(("small x array", s, want_small));
                }
                t / (reps * small_n) as f64
            }
            Step::Time(i) => {
                let r = range(next[i]);
                next[i] += 1;
                let want = layout::expected_range(r.start, r.end);
                let (t, s) = if i == 0 {
                    clock::time_ns(|| stride_sum_aos_x(black_box(&aos[r])))
                } else {
                    clock::time_ns(|| stride_sum_soa_x(black_box(&xs[r])))
                };
                if black_box(s) != want {
                    let what = ["array of structs", "x array"][i];
                    wrong.push((what, s, want));
                }
                t / chunk as f64
            }
        }
    });
    if let Some((what, got, want)) = wrong.first() {
        eprintln!("stride: error: the {what} sum returned {got}, expected {want}");
        std::process::exit(1);
    }
    let floor_t = t.pop().expect("three loops");
    let soa = t.pop().expect("three loops");
    let aos_t = t.pop().expect("three loops");
    LayoutTimes {
        tally: rounds::tally([&aos_t, &soa, &floor_t]),
        aos: aos_t,
        soa,
        floor: floor_t,
        chunk,
        small_n,
        reps,
    }
}
