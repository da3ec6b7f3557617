//! The timed rounds of the three questions. The variants of a comparison take turns, one
//! round each (A B C D A B C D ...), through [`measure::rounds`]: each round is bracketed by
//! evidence of disturbance, a variant warms up before its first round and after a disturbed
//! one, and rounds go on until every variant has the clean rounds asked for (within a small
//! budget of extra rounds). A round lasts a fraction of a millisecond where the quantity
//! allows, so that it fits between two preemptions; the figures come from the clean rounds.
//! Every kernel's result is checked against what it must be: a loop that did not do the work
//! it was timed for stops the program (exit 1) instead of printing a number.

use crate::fpenv::{self, Switch};
use crate::kernels::{self, CHAINS, OPS, PER_ELEMENT};
use crate::switch;
use measure::clock;
use measure::disturb::{Probe, Site, Tally};
use measure::keep::black_box;
use measure::rounds::{self, Step, Timed, Want};
use measure::stats::{self, Split, Summary};

/// Two arrays of this many `f64`: 32 KiB together.
pub const N: usize = 2048;
/// A timed batch of section 3 lasts at least this long (0.3 ms): the clock's step is under
/// 0.01% of it, and it fits between two preemptions.
pub const BATCH_NS: f64 = 300_000.0;
/// The time extra rounds of one comparison may take when rounds are disturbed.
pub const EXTRA_BUDGET_NS: u64 = 300_000_000;

/// The rounds asked of every comparison: `clean` clean rounds per variant, at most three
/// times as many, extra rounds within [`EXTRA_BUDGET_NS`].
pub fn want(clean: usize) -> Want {
    Want::new(clean).budget(EXTRA_BUDGET_NS)
}

/// The rounds of one comparison: one [`Timed`] per variant, and all of them counted with the
/// load around the block.
pub struct Rounds {
    pub timed: Vec<Timed>,
    pub tally: Tally,
}

impl Rounds {
    /// Variant `k`'s summary of its clean rounds (of every round where none was clean).
    pub fn summary(&self, k: usize) -> Summary {
        self.timed[k].summary().expect("every variant has rounds")
    }

    /// Variant `k`'s rounds, with the block's load.
    pub fn tally_of(&self, k: usize) -> Tally {
        let t = self.timed[k].tally();
        self.tally.load.map_or(t, |l| t.with_load(l))
    }
}

/// Times `n` variants interleaved ([`rounds::interleaved`]) inside a [`Window`] on `core`.
/// With `scan`, the rounds come in two passes, the second with the variants in the opposite
/// order, so that no variant always follows the same one (measure::scan's rule, for the
/// placements of 3a).
fn timed(
    want: &Want,
    site: Site,
    n: usize,
    scan: bool,
    mut step: impl FnMut(Step) -> f64,
) -> Rounds {
    // Taken again while the core's share (or, at a memory-bound site, the memory reference)
    // was unsteady during it (measure::retake).
    let (timed, load) = measure::retake::take_at(site, || {
        let mut probe = Probe::new();
        if scan {
            both_ways(&mut probe, want, n, &mut step)
        } else {
            rounds::interleaved(&mut probe, want, n, &mut step)
        }
    });
    Rounds {
        tally: rounds::tally(&timed).with_load(load),
        timed,
    }
}

/// The rounds of `n` variants, half of them in order and half in reverse order, each
/// variant's rounds gathered in its place.
fn both_ways(
    probe: &mut Probe,
    want: &Want,
    n: usize,
    step: &mut impl FnMut(Step) -> f64,
) -> Vec<rounds::Timed> {
    let first = Want::new(want.clean.div_ceil(2)).budget(want.budget_ns / 2);
    let second = Want::new(want.clean - first.clean).budget(want.budget_ns / 2);
    let mut out = rounds::interleaved(probe, &first, n, &mut *step);
    let back = rounds::interleaved(probe, &second, n, |s| {
        step(match s {
            Step::Warm(i) => Step::Warm(n - 1 - i),
            Step::Time(i) => Step::Time(n - 1 - i),
        })
    });
    for (i, b) in back.into_iter().enumerate() {
        let o = &mut out[n - 1 - i];
        for (v, e) in b.values.into_iter().zip(b.evidence) {
            o.push(v, e);
        }
    }
    out
}

/// Question 1: the four-accumulator loop over normals and denormals, with FTZ/DAZ off and on.
pub struct Denormals {
    pub normal_off: Summary,
    pub denormal_off: Summary,
    /// With flush-to-zero on; `None` where it could not be set and verified.
    pub normal_on: Option<Summary>,
    pub denormal_on: Option<Summary>,
    /// The control register, if this architecture has a known one.
    pub register: Option<&'static str>,
    /// Every switch of the register, as read back.
    pub switches: Vec<Switch>,
    /// The rounds of each row: normal off, denormal off, normal on, denormal on.
    pub tallies: [Tally; 4],
    /// All the rounds, with the load around them.
    pub tally: Tally,
}

impl Denormals {
    /// Whether every switch took and was undone.
    pub fn switch_ok(&self) -> bool {
        !self.switches.is_empty() && self.switches.iter().all(|s| s.took() && s.restored())
    }
    /// Denormal over normal, in IEEE mode.
    pub fn ratio_off(&self) -> f64 {
        self.denormal_off.median / self.normal_off.median
    }
    /// Denormal over normal, with flush-to-zero.
    pub fn ratio_on(&self) -> Option<f64> {
        Some(self.denormal_on?.median / self.normal_on?.median)
    }
    /// Whether every denormal round (IEEE mode) was slower than every normal one.
    pub fn apart(&self) -> bool {
        self.denormal_off.min > self.normal_off.max
    }
    /// The same with flush-to-zero on; `None` where it was not measured.
    pub fn apart_on(&self) -> Option<bool> {
        Some(self.denormal_on?.min > self.normal_on?.max)
    }
}

/// Times [`kernels::fp_dot4_f64`] over `a[] = 1.0` and `a[] = tiny`, each with the flush
/// bits off and on: ns per element. A round whose switch was refused measures nothing (NaN),
/// and the flush-to-zero rows are then left out.
pub fn denormals(tiny: f64, reps: usize, want: &Want, core: Option<usize>) -> Denormals {
    let ones = vec![1.0f64; N];
    let tinies = vec![tiny; N];
    let b = vec![1.0f64; N];
    let want_sum = |k: usize| match k {
        0 | 2 => (N * reps) as f64,
        1 => (N * reps) as f64 * tiny,
        _ => 0.0,
    };
    let mut switches: Vec<Switch> = Vec::new();
    // normal off, denormal off, normal on, denormal on: interleaved.
    let arrays = [&ones, &tinies, &ones, &tinies];
    let run = |k: usize| {
        clock::time_ns(|| {
            kernels::fp_dot4_f64(black_box(arrays[k]), black_box(&b), black_box(reps))
        })
    };
    let r = timed(want, Site::on(core), 4, false, |step| match step {
        Step::Warm(k) => run(k).0,
        Step::Time(k) => {
            let (t, s) = if k < 2 {
                run(k)
            } else {
                match fpenv::with_flush(|| run(k)) {
                    Some((r, sw)) => {
                        switches.push(sw);
                        if !sw.took() {
                            return f64::NAN; // refused: nothing measured with the mode on
                        }
                        r
                    }
                    None => return f64::NAN,
                }
            };
            check_sum("fp_dot4_f64", s, want_sum(k));
            t / (N * reps) as f64
        }
    });
    let mut d = Denormals {
        normal_off: r.summary(0),
        denormal_off: r.summary(1),
        normal_on: None,
        denormal_on: None,
        register: fpenv::register(),
        switches,
        tallies: std::array::from_fn(|k| r.tally_of(k)),
        tally: r.tally,
    };
    if d.switch_ok() {
        (d.normal_on, d.denormal_on) = (Some(r.summary(2)), Some(r.summary(3)));
    }
    d
}

/// The appendix's per-element table: ns per element of each of [`PER_ELEMENT`] over two
/// arrays of `len` elements.
pub struct PerElement {
    /// Elements in each of the two arrays.
    pub len: usize,
    /// One per operation of [`PER_ELEMENT`], in its order.
    pub ops: Vec<Summary>,
    /// The multiply with case 0's block at each placement of [`switch::PLACED`] (bytes past a
    /// 64-byte line), in order; empty when not scanned.
    pub placements: Vec<(usize, Summary)>,
    /// The values each operation's figures come from (its clean rounds), in the order of
    /// `ops`.
    pub op_values: Vec<Vec<f64>>,
    /// The rounds of each operation, in the order of `ops`.
    pub op_tallies: Vec<Tally>,
    /// The rounds of each placement, in the order of `placements`.
    pub placement_tallies: Vec<Tally>,
    /// All the rounds, with the load around them.
    pub tally: Tally,
}

impl PerElement {
    /// Operation `k`'s median over the multiply's: the appendix's "vs multiply" column.
    pub fn vs_multiply(&self, k: usize) -> f64 {
        self.ops[k].median / self.ops[0].median
    }

    /// The spread of operation `k`'s ratio to the multiply, round by round: the `j`-th
    /// clean round of each over the other (the variants take turns, so those rounds ran close
    /// together); `None` with fewer than one round each.
    pub fn ratio_spread(&self, k: usize) -> Option<Summary> {
        let ratios: Vec<f64> = self.op_values[k]
            .iter()
            .zip(&self.op_values[0])
            .map(|(x, m)| x / m)
            .collect();
        Summary::of(&ratios)
    }

    /// Whether operation `k`'s rounds fell into two groups ([`stats::split`]): then a median
    /// describes neither.
    pub fn split(&self, k: usize) -> Option<Split> {
        stats::split(&self.op_values[k], stats::SPLIT_GAP, stats::SPLIT_MIN_SHARE)
    }

    /// The bytes of the two arrays together.
    pub fn bytes(&self) -> u64 {
        (2 * self.len * std::mem::size_of::<f64>()) as u64
    }
}

/// Times [`switch::fp_per_element`] (the multiply's block in one line of code) for every
/// operation of [`PER_ELEMENT`], interleaved,
/// over `a[i] = 1 + i * 1e-6` and `b[i] = 1.000001` (the appendix's values), `len` elements
/// each. A timed batch repeats the pass as often as [`BATCH_NS`] takes (at least once, over arrays
/// that long), each call its own count. With `scan`, each round also times the multiply at
/// every other placement of [`switch::PLACED`] (GCC's among them), and the rounds come in two passes in opposite
/// orders. Every call must return bit for bit the plainly written sum.
pub fn per_element(len: usize, want: &Want, scan: bool, core: Option<usize>) -> PerElement {
    let a: Vec<f64> = (0..len).map(|i| 1.0 + i as f64 * 1e-6).collect();
    let b = vec![1.000_001f64; len];
    // The timed calls of a round, (loop, op): every operation, then the other placements'
    // multiplies.
    let mut calls: Vec<(switch::Loop, usize)> = (0..PER_ELEMENT.len())
        .map(|k| (switch::fp_per_element as switch::Loop, k))
        .collect();
    let others: Vec<(usize, switch::Loop)> = switch::PLACED
        .into_iter()
        .filter(|&(at, _)| scan && at != switch::BASELINE_PLACEMENT)
        .collect();
    calls.extend(others.iter().map(|&(_, f)| (f, 0)));
    // Each call's passes per batch, and the sum it must return.
    let plan: Vec<(usize, f64)> = calls
        .iter()
        .map(|&(kernel, k)| {
            let reps = clock::calibrate_reps(BATCH_NS, || {
                black_box(kernel(black_box(&a), black_box(&b), 1, k));
            }) as usize;
            (reps, kernels::per_element_expected(&a, &b, reps, k))
        })
        .collect();
    let run = |i: usize| {
        let ((kernel, k), (reps, want)) = (calls[i], plan[i]);
        let (t, got) =
            clock::time_ns(|| kernel(black_box(&a), black_box(&b), black_box(reps), black_box(k)));
        if got.to_bits() != want.to_bits() {
            eprintln!("fp_cost: error: operation {}", PER_ELEMENT[k].0);
            fail_sum("fp_per_element", got, want);
        }
        t / (len * reps) as f64
    };
    let r = timed(want, Site::on(core), calls.len(), scan, |step| match step {
        Step::Warm(i) | Step::Time(i) => run(i),
    });
    let n = PER_ELEMENT.len();
    let mut placements: Vec<(usize, Summary, Tally)> = others
        .iter()
        .enumerate()
        .map(|(j, &(at, _))| (at, r.summary(n + j), r.tally_of(n + j)))
        .collect();
    if scan {
        placements.push((switch::BASELINE_PLACEMENT, r.summary(0), r.tally_of(0)));
        placements.sort_by_key(|&(at, _, _)| at);
    }
    PerElement {
        len,
        ops: (0..n).map(|k| r.summary(k)).collect(),
        op_values: (0..n).map(|k| r.timed[k].used()).collect(),
        op_tallies: (0..n).map(|k| r.tally_of(k)).collect(),
        placement_tallies: placements.iter().map(|p| p.2).collect(),
        placements: placements.into_iter().map(|(at, s, _)| (at, s)).collect(),
        tally: r.tally,
    }
}

/// Elements of each array that one round of section 4 runs over: 64K, 1 MiB of the two.
pub const SLICE: usize = 1 << 16;

/// Section 4: the per-element table of [`per_element`], over arrays of `len` elements far
/// beyond the last-level cache. A round runs one operation over one [`SLICE`] of the arrays
/// (0.1 to 0.5 ms), the next slice each round, each operation starting at its own slice: the
/// data streams from memory as in one pass over the whole arrays, and a round fits between
/// two preemptions. Every slice's sum is computed before the rounds and checked bit for bit.
/// The block's window is at `site`: beyond the caches it reads the memory reference too, so
/// that a change of the memory's speed during it marks it.
pub fn per_element_sliced(len: usize, want: &Want, site: Site) -> PerElement {
    let a: Vec<f64> = (0..len).map(|i| 1.0 + i as f64 * 1e-6).collect();
    let b = vec![1.000_001f64; len];
    let step = SLICE.min(len);
    let slices = len / step;
    let range = |j: usize| (j % slices) * step..(j % slices + 1) * step;
    let sums: Vec<Vec<f64>> = (0..PER_ELEMENT.len())
        .map(|k| {
            (0..slices)
                .map(|j| kernels::per_element_expected(&a[range(j)], &b[range(j)], 1, k))
                .collect()
        })
        .collect();
    let run = |k: usize, j: usize| {
        let (a, b) = (&a[range(j)], &b[range(j)]);
        let (t, got) = clock::time_ns(|| {
            switch::fp_per_element(black_box(a), black_box(b), black_box(1), black_box(k))
        });
        let want = sums[k][j % slices];
        if got.to_bits() != want.to_bits() {
            eprintln!(
                "fp_cost: error: operation {} over slice {j}",
                PER_ELEMENT[k].0
            );
            fail_sum("fp_per_element", got, want);
        }
        t / step as f64
    };
    let n = PER_ELEMENT.len();
    let mut next: Vec<usize> = (0..n).map(|k| k * slices / n).collect();
    let r = timed(want, site, n, false, |s| match s {
        // A warm-up runs the slice before the next one: it is not timed again soon.
        Step::Warm(k) => run(k, next[k] + slices - 1),
        Step::Time(k) => {
            next[k] += 1;
            run(k, next[k] - 1)
        }
    });
    PerElement {
        len,
        ops: (0..n).map(|k| r.summary(k)).collect(),
        op_values: (0..n).map(|k| r.timed[k].used()).collect(),
        op_tallies: (0..n).map(|k| r.tally_of(k)).collect(),
        placements: vec![],
        placement_tallies: vec![],
        tally: r.tally,
    }
}

/// One dot-product variant of question 2.
pub struct Dot {
    pub symbol: &'static str,
    /// `double` or `float`.
    pub ty: &'static str,
    /// `strict` or `lanes`.
    pub order: &'static str,
}

/// Question 2's variants, in the order they are timed and printed: the appendix's pair
/// first (four scalar accumulators), then one accumulator in strict order, then lanes.
pub const DOTS: [Dot; 6] = [
    Dot {
        symbol: "fp_dot_four_f64",
        ty: "double",
        order: "four",
    },
    Dot {
        symbol: "fp_dot_four_f32",
        ty: "float",
        order: "four",
    },
    Dot {
        symbol: "fp_dot_strict_f64",
        ty: "double",
        order: "strict",
    },
    Dot {
        symbol: "fp_dot_strict_f32",
        ty: "float",
        order: "strict",
    },
    Dot {
        symbol: "fp_dot_lanes_f64",
        ty: "double",
        order: "lanes",
    },
    Dot {
        symbol: "fp_dot_lanes_f32",
        ty: "float",
        order: "lanes",
    },
];

/// Question 2: ns per element of each of [`DOTS`], and the sum each returned.
pub struct Widths {
    pub times: Vec<Summary>,
    pub sums: [f64; DOTS.len()],
    /// The rounds of each variant, in the order of `times`.
    pub tallies: Vec<Tally>,
    /// All the rounds, with the load around them.
    pub tally: Tally,
}

impl Widths {
    /// The median of the variant of `ty` ("double", "float") and `order`.
    pub fn median(&self, ty: &str, order: &str) -> f64 {
        let k = DOTS
            .iter()
            .position(|d| d.ty == ty && d.order == order)
            .expect("a variant of DOTS");
        self.times[k].median
    }

    /// How many times faster float ran than double in `order`.
    pub fn float_gain(&self, order: &str) -> f64 {
        self.median("double", order) / self.median("float", order)
    }

    /// The sum the variant of `ty` and `order` returned.
    pub fn sum(&self, ty: &str, order: &str) -> f64 {
        let k = DOTS
            .iter()
            .position(|d| d.ty == ty && d.order == order)
            .expect("a variant of DOTS");
        self.sums[k]
    }
}

/// The arrays of question 2, in both widths.
struct Arrays {
    a64: Vec<f64>,
    b64: Vec<f64>,
    a32: Vec<f32>,
    b32: Vec<f32>,
}

impl Arrays {
    /// Variant `k` of [`DOTS`] over these arrays, `reps` times.
    fn dot(&self, k: usize, reps: usize) -> f64 {
        let (a64, b64, a32, b32) = (&self.a64, &self.b64, &self.a32, &self.b32);
        let (a64, b64, a32, b32) = (
            black_box(a64),
            black_box(b64),
            black_box(a32),
            black_box(b32),
        );
        let reps = black_box(reps);
        match DOTS[k].symbol {
            "fp_dot_four_f64" => kernels::fp_dot_four_f64(a64, b64, reps),
            "fp_dot_four_f32" => f64::from(kernels::fp_dot_four_f32(a32, b32, reps)),
            "fp_dot_strict_f64" => kernels::fp_dot_strict_f64(a64, b64, reps),
            "fp_dot_strict_f32" => f64::from(kernels::fp_dot_strict_f32(a32, b32, reps)),
            "fp_dot_lanes_f64" => kernels::fp_dot_lanes_f64(a64, b64, reps),
            _ => f64::from(kernels::fp_dot_lanes_f32(a32, b32, reps)),
        }
    }
}

/// Times the four dot products of [`DOTS`], interleaved. Every call must give bit for bit
/// what the first gave, and that must be the sum (to 1e-9 in double, 2e-2 in float).
pub fn widths(reps: usize, want: &Want, core: Option<usize>) -> Widths {
    let a64: Vec<f64> = (0..N).map(|i| 1.0 + i as f64 * 1e-6).collect();
    let arrays = Arrays {
        a32: a64.iter().map(|&x| x as f32).collect(),
        b32: vec![1.000_001f32; N],
        b64: vec![1.000_001f64; N],
        a64,
    };
    let exact: f64 = arrays
        .a64
        .iter()
        .zip(&arrays.b64)
        .map(|(x, y)| x * y)
        .sum::<f64>()
        * reps as f64;
    let mut first: [Option<f64>; DOTS.len()] = [None; DOTS.len()];
    let r = timed(want, Site::on(core), DOTS.len(), false, |step| {
        let (Step::Warm(k) | Step::Time(k)) = step;
        let dot = &DOTS[k];
        let (t, s) = clock::time_ns(|| arrays.dot(k, reps));
        match first[k] {
            None => {
                let tol = if dot.ty == "float" { 2e-2 } else { 1e-9 };
                if ((s - exact) / exact).abs() > tol {
                    fail_sum(dot.symbol, s, exact);
                }
                first[k] = Some(s);
            }
            Some(v) if v.to_bits() != s.to_bits() => fail_sum(dot.symbol, s, v),
            Some(_) => {}
        }
        t / (N * reps) as f64
    });
    Widths {
        times: (0..DOTS.len()).map(|k| r.summary(k)).collect(),
        tallies: (0..DOTS.len()).map(|k| r.tally_of(k)).collect(),
        sums: first.map(|s| s.expect("every variant ran")),
        tally: r.tally,
    }
}

/// One operation of question 3: ns per operation.
pub struct OpTimes {
    /// One dependent chain, as timed (sqrt and sin: with their add).
    pub chain: Summary,
    /// The operation's latency alone: the chain's median, less the add's for sqrt and sin.
    /// `None` when that difference is not positive: the rounds were disturbed so much that
    /// the add's median exceeded the whole chain's, and nothing can be said.
    pub alone: Option<f64>,
    /// [`CHAINS`] independent chains, per operation.
    pub throughput: Summary,
    /// The rounds of both.
    pub tally: Tally,
}

/// Question 3: each of [`OPS`], in its order.
pub struct Operations {
    pub ops: Vec<OpTimes>,
    /// The add's latency (subtracted from the sqrt and sin chains).
    pub add_latency: f64,
    /// All the rounds, with the load around them.
    pub tally: Tally,
}

/// Times every operation's latency and throughput kernel, interleaved (variant `2k` is
/// operation `k`'s chain, `2k + 1` its throughput), with batches of at least `min_batch_ns`.
pub fn operations(min_batch_ns: f64, want: &Want, core: Option<usize>) -> Operations {
    let x0s: [f64; CHAINS] = std::array::from_fn(|k| 1.0 + k as f64 / CHAINS as f64);
    let plan: Vec<(usize, usize)> = OPS
        .iter()
        .map(|op| {
            let nl = 1024
                * clock::calibrate_reps(min_batch_ns, || {
                    black_box((op.latency)(black_box(1024), 1.0, op.c));
                }) as usize;
            let nt = 1024
                * clock::calibrate_reps(min_batch_ns, || {
                    black_box((op.throughput)(black_box(1024), x0s, op.c));
                }) as usize;
            (nl.max(1024), nt.max(1024))
        })
        .collect();
    let r = timed(want, Site::on(core), 2 * OPS.len(), false, |step| {
        let (Step::Warm(v) | Step::Time(v)) = step;
        let (op, (nl, nt)) = (&OPS[v / 2], plan[v / 2]);
        if v % 2 == 0 {
            let (t, x) =
                clock::time_ns(|| (op.latency)(black_box(nl), black_box(1.0), black_box(op.c)));
            if !op.check(nl, 1.0, x) {
                fail_sum(op.latency_symbol, x, op.expected(nl, 1.0));
            }
            return t / nl as f64;
        }
        let (u, xs) =
            clock::time_ns(|| (op.throughput)(black_box(nt), black_box(x0s), black_box(op.c)));
        for (c, (&got, &x0)) in xs.iter().zip(&x0s).enumerate() {
            if !op.check(nt, x0, got) {
                eprintln!("fp_cost: error: chain {c} of {}", op.throughput_symbol);
                fail_sum(op.throughput_symbol, got, op.expected(nt, x0));
            }
        }
        u / (nt * CHAINS) as f64
    });
    // OPS[1] is the add. sqrt and sin chains also add a constant each step: subtract it.
    let add_latency = r.summary(2).median;
    let ops = OPS
        .iter()
        .enumerate()
        .map(|(k, op)| {
            let chain = r.summary(2 * k);
            OpTimes {
                chain,
                alone: if op.plus_add {
                    Some(chain.median - add_latency).filter(|&a| a > 0.0)
                } else {
                    Some(chain.median)
                },
                throughput: r.summary(2 * k + 1),
                tally: rounds::tally([&r.timed[2 * k], &r.timed[2 * k + 1]])
                    .with_load(r.tally.load.unwrap_or_default()),
            }
        })
        .collect();
    Operations {
        ops,
        add_latency,
        tally: r.tally,
    }
}

/// A kernel returned the wrong value: the loop did not do the work it was timed for.
fn fail_sum(sym: &str, got: f64, want: f64) -> ! {
    eprintln!("fp_cost: error: {sym} returned {got:e}, expected {want:e}");
    std::process::exit(1)
}

fn check_sum(sym: &str, got: f64, want: f64) {
    let ok = if want == 0.0 {
        got == 0.0
    } else {
        ((got - want) / want).abs() < 1e-12
    };
    if !ok {
        fail_sum(sym, got, want);
    }
}
