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
use measure::segments::{self, Segmented, Step as SegStep};
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

/// How the walks' rounds are taken: `reps` repetitions per walk, stride and pass. A walk
/// of the fixed count lasts up to tens of milliseconds (cutting it short would change what
/// it visits), longer than a scheduler slice, so it is timed in segments of about
/// [`SEGMENT_NS`] ([`measure::segments`]): a disturbed segment is rebuilt from the same
/// segment of the other repetitions, and up to [`WALK_EXTRA_ROUNDS`] more repetitions are
/// taken, within [`WALK_BUDGET_NS`], until every segment has clean samples.
pub fn walk_want(reps: usize) -> segments::Want {
    segments::Want::new(reps, WALK_EXTRA_ROUNDS, WALK_BUDGET_NS)
}

/// The most extra repetitions per walk, stride and pass when segments are disturbed.
pub const WALK_EXTRA_ROUNDS: usize = 4;
/// The time given to those extra repetitions, per stride and pass.
pub const WALK_BUDGET_NS: u64 = 40_000_000;
/// The length a walk's segment aims at: well inside a scheduler slice.
pub const SEGMENT_NS: f64 = 200_000.0;

/// Walks every stride once per pass (in the pass's order), and pools each stride's rounds
/// over the passes into one [`Row`], with the passes' agreement. The pooled figures come
/// from the rounds rebuilt from clean segments.
pub fn sweep(
    buf: &[u8],
    strides: &[usize],
    plans: &[(Plan, Plan)],
    orders: &[Order],
    walk: (usize, usize),
    want: &segments::Want,
    site: measure::disturb::Site,
) -> Vec<Row> {
    let idx: Vec<usize> = (0..strides.len()).collect();
    let probe = Probe::new();
    let name = |&i: &usize| format!("stride {}", strides[i]);
    // Each stride of each pass in its own window, taken again there while the core's share
    // was unsteady (within the scan's budget); its walks carry that window's load.
    let mut parts = measure::retake::Parts::new();
    let result = scan::run_named(&idx, orders, name, |&i, _pass| {
        let (mut p, load) = parts.take_at(site, || {
            measure_point(&probe, want, buf, strides[i], walk, &plans[i])
        });
        for w in [&mut p.wrap, &mut p.fresh] {
            w.tally = w.tally.with_load(load);
        }
        p
    });
    result
        .points
        .iter()
        .map(|pt| {
            let i = pt.param;
            let pool = |f: fn(&Point) -> &Walked| {
                let mut all = Walked {
                    shortest_ns: f64::INFINITY,
                    ..Walked::default()
                };
                for p in &pt.passes {
                    all.values.extend_from_slice(&f(p).values);
                    all.tally = all.tally.merge(&f(p).tally);
                    all.shortest_ns = all.shortest_ns.min(f(p).shortest_ns);
                }
                all
            };
            let (wrap, fresh) = (pool(|p| &p.wrap), pool(|p| &p.fresh));
            let a_wrap = pt.agreement(DEFAULT_TOLERANCE, |m| median(&m.wrap.values));
            let a_fresh = pt.agreement(DEFAULT_TOLERANCE, |m| median(&m.fresh.values));
            Row {
                stride: strides[i] as u64,
                wrap: Summary::of(&wrap.values).expect("rounds > 0"),
                fresh: Summary::of(&fresh.values).expect("rounds > 0"),
                tally: wrap.tally.merge(&fresh.tally),
                shortest_ns: wrap.shortest_ns.min(fresh.shortest_ns),
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
                        wrap_ns: median(&p.wrap.values),
                        fresh_ns: median(&p.fresh.values),
                        tally: p.wrap.tally.merge(&p.fresh.tally),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// One walk's rounds: nanoseconds per access of every repetition, rebuilt from clean
/// segments, and the segments counted.
#[derive(Debug, Clone, Default)]
struct Walked {
    values: Vec<f64>,
    tally: Tally,
    shortest_ns: f64,
}

impl Walked {
    fn of(s: &Segmented, accesses: usize) -> Walked {
        Walked {
            values: s.per_unit(accesses as f64),
            tally: s.tally(),
            shortest_ns: s.ns.iter().flatten().copied().fold(f64::INFINITY, f64::min),
        }
    }
}

/// One stride in one pass: both walks.
struct Point {
    wrap: Walked,
    fresh: Walked,
}

/// Times interleaved repetitions of both walks at `stride` (`walk` = accesses, shift), in
/// segments, each walk after a discarded warm-up when cold, checking every repetition's sum
/// against the plan.
fn measure_point(
    probe: &Probe,
    want: &segments::Want,
    buf: &[u8],
    stride: usize,
    (accesses, shift): (usize, usize),
    plans: &(Plan, Plan),
) -> Point {
    let warm = (accesses / 8).max(1);
    let kernel = |i: usize, from: usize, n: usize| {
        if i == 0 {
            stride_walk_wrap(black_box(buf), black_box(stride), from, n)
        } else {
            stride_walk_fresh(
                black_box(buf),
                black_box(stride),
                (from, n),
                black_box(shift),
            )
        }
    };
    // The warm-up, timed once, sizes the segments: a walk is about 8 warm-ups long.
    let parts: Vec<usize> = (0..2)
        .map(|i| {
            let (t, s) = clock::time_ns(|| kernel(i, 0, warm));
            black_box(s);
            segments::parts_for(t * (accesses / warm) as f64, SEGMENT_NS, accesses as u64)
        })
        .collect();
    let sums = [plans.0.sum, plans.1.sum];
    let mut acc = [0u64; 2];
    let t = segments::interleaved(probe, want, &parts, |step| match step {
        SegStep::Warm(i) => {
            black_box(kernel(i, 0, warm));
            0.0
        }
        SegStep::Time(i, k) => {
            let r = segments::range(accesses as u64, parts[i], k);
            let (t, s) = clock::time_ns(|| kernel(i, r.start as usize, (r.end - r.start) as usize));
            acc[i] = if k == 0 { s } else { acc[i] + s };
            if k + 1 == parts[i] {
                let what = ["the appendix walk", "the fresh-lines walk"][i];
                verify(what, stride, black_box(acc[i]), sums[i]);
            }
            t
        }
    });
    Point {
        wrap: Walked::of(&t[0], accesses),
        fresh: Walked::of(&t[1], accesses),
    }
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
