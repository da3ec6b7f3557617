//! # branch: the cost of a fork in the road
//!
//! Run with: `cargo run -p branch` (add `-- --quick` for a smoke run of a few seconds).
//!
//! The appendix's section on branch prediction, in Rust. The machine overlaps instructions
//! like an assembly line, so at an `if` it must guess which way the program goes before it
//! knows; a wrong guess throws the work in flight away. The famous demonstration sums the
//! values of 128 or more from 4M values in 0..256, once in random order and once sorted:
//! same values, same work, only the predictability of the `if` differs.
//!
//! Before anything is timed, this program reads its own machine code back (`nm`, `objdump`)
//! and says what the compiler made of each loop, because today's compilers often remove the
//! branch altogether and then there is nothing to measure. Three versions of the same sum:
//!
//! 1. as written: the compiler chooses (rustc 1.95 vectorises it);
//! 2. a real branch kept: `std::hint::black_box(())` in the taken arm costs no instruction
//!    but stops the compiler from turning the `if` into anything else;
//! 3. branchless arithmetic (`x & mask`), kept scalar by an opaque barrier on the running sum
//!    so that it compares one element at a time with the real branch.
//!
//! From the real branch's random-minus-sorted time it derives the cost of one misprediction,
//! then runs the real branch over patterns of different regularity.
//!
//! `--valgrind-kernel random|sorted` runs only the real-branch function once on a small
//! input and exits: that is what `cargo xtask verify` runs under callgrind's branch simulator.

use branch::shape::{self, Shape, Verdict};
use measure::cli::{self, Opt};
use measure::clock;
use measure::data::{Block, Value, meta};
use measure::keep::{black_box, opaque_i64};
use measure::ring;
use measure::stats::Summary;

/// 4M values: 16 MiB of `i32`, as in the appendix.
const N: usize = 1 << 22;
/// Values are in 0..256; the `if` takes those of 128 or more (half of them).
const THRESHOLD: i32 = 128;

/// 1. As written: the compiler may do what it likes with the `if`.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn branch_as_written(a: &[i32], t: i32) -> i64 {
    let mut s: i64 = 0;
    for &x in a {
        if x >= t {
            s += i64::from(x);
        }
    }
    s
}

/// 2. The same loop with a real branch kept. `black_box(())` is an opaque no-op the compiler
///    must execute only when the condition holds, so the condition must stay a jump.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn branch_real(a: &[i32], t: i32) -> i64 {
    let mut s: i64 = 0;
    for &x in a {
        if x >= t {
            black_box(());
            s += i64::from(x);
        }
    }
    s
}

/// 3. The condition turned into arithmetic: a mask of all ones or all zeros. The running sum
///    passes through an opaque register barrier, so the loop stays scalar (one element at a
///    time, like the real branch) instead of being vectorised.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn branch_branchless(a: &[i32], t: i32) -> i64 {
    let mut s: i64 = 0;
    for &x in a {
        let mask = -i64::from(x >= t); // -1 (all ones) if true, 0 if false
        s = opaque_i64(s + (i64::from(x) & mask));
    }
    s
}

type Kernel = fn(&[i32], i32) -> i64;

/// The three variants: label, symbol, function.
const VARIANTS: [(&str, &str, Kernel); 3] = [
    ("as written", "branch_as_written", branch_as_written),
    ("real branch kept", "branch_real", branch_real),
    (
        "branchless arithmetic",
        "branch_branchless",
        branch_branchless,
    ),
];

const OPTS: &[Opt] = &[
    Opt {
        name: "--rounds",
        value: Some("COUNT"),
        help: "timed rounds of every variant (default 31, 7 with --quick)",
    },
    Opt {
        name: "--valgrind-kernel",
        value: Some("random|sorted"),
        help: "only run branch_real once over --n values in that order, then exit (for callgrind)",
    },
    Opt {
        name: "--n",
        value: Some("COUNT"),
        help: "values for --valgrind-kernel (default 100000)",
    },
];

const ABOUT: &str = "the cost of a fork in the road: a branch on random and sorted data";

fn main() {
    let args = cli::parse("branch", ABOUT, OPTS);
    if let Some(order) = args.value("--valgrind-kernel") {
        let n = args.count("--n", 100_000, 1) as usize;
        std::process::exit(valgrind_kernel(order, n));
    }
    if args.value("--n").is_some() {
        cli::fail("branch", "--n only goes with --valgrind-kernel");
    }
    let mut exp = measure::start!("branch", ABOUT, OPTS);
    let quick = exp.args.quick;
    let rounds = exp.args.count("--rounds", if quick { 7 } else { 31 }, 3) as usize;
    exp.pin_main_thread();
    meta("n", N);
    meta("threshold", THRESHOLD);
    meta("seed", format!("{:#x}", ring::DEFAULT_SEED));
    meta("rounds", rounds);

    // == The clock, for cycles beside nanoseconds.
    exp.section("the core clock (to speak in cycles too)");
    let cc = exp.core_clock();

    // == 1. Before measuring: is there still a branch?
    exp.section("1. before measuring: is there still a branch? (this binary, read back)");
    let shapes = read_shapes();
    let mut sb = Block::new(
        "shape",
        &[
            "variant:text",
            "symbol:text",
            "verdict:text",
            "loops",
            "forks",
        ],
    );
    for ((label, sym, _), v) in VARIANTS.iter().zip(&shapes) {
        match v {
            Ok(v) => {
                println!("  {label:<22}: {}", v.shape);
                println!("  {:<22}  {}", "", v.sentence());
                sb.row(vec![
                    (*label).into(),
                    (*sym).into(),
                    v.shape.word().into(),
                    v.loops.into(),
                    v.forks.len().into(),
                ]);
            }
            Err(e) => {
                println!("  {label:<22}: could not check ({e})");
                sb.row(vec![
                    (*label).into(),
                    (*sym).into(),
                    "unchecked".into(),
                    Value::Missing,
                    Value::Missing,
                ]);
            }
        }
    }
    let shape_of = |k: usize| shapes[k].as_ref().ok().map(|v| v.shape);
    if shape_of(1) == Some(Shape::Branch) {
        println!("  * the real-branch version is what branch prediction can be measured on.");
    } else if shape_of(1).is_some() {
        println!(
            "  ! the real-branch version has no branch in this build: its numbers below do not measure prediction."
        );
    }
    sb.print();

    // == 2. The same data, the same computation, only the order differs.
    exp.section("2. the same data, the same computation, only the order differs");
    let random = random_values(N, ring::DEFAULT_SEED);
    let mut sorted = random.clone();
    sorted.sort_unstable();
    let expect = reference_sum(&random);
    assert_eq!(
        expect,
        reference_sum(&sorted),
        "a sorted copy has the same sum"
    );
    let taken = random.iter().filter(|&&x| x >= THRESHOLD).count() as f64 / N as f64;
    println!(
        "  summing the values of {THRESHOLD} or more among {N} values in 0..256 (16 MiB), {rounds} rounds,\n  \
         the six cases interleaved; {:.1}% of the values pass the test. Both arrays hold the same values.\n",
        taken * 100.0
    );
    let mut cases = Vec::new();
    for (label, _, f) in VARIANTS {
        cases.push(Case {
            label,
            f,
            data: &random,
            expect,
        });
        cases.push(Case {
            label,
            f,
            data: &sorted,
            expect,
        });
    }
    let times = time_interleaved(&cases, rounds);
    println!(
        "  {:<24} {:>24} {:>24} {:>14}",
        "ns per element", "random order", "sorted order", "random/sorted"
    );
    let mut vb = Block::new(
        "variants",
        &[
            "variant:text",
            "shape:text",
            "random_ns",
            "random_min_ns",
            "random_max_ns",
            "sorted_ns",
            "sorted_min_ns",
            "sorted_max_ns",
            "random_over_sorted",
        ],
    );
    let mut ratios = [0.0f64; 3];
    for (k, (label, _, _)) in VARIANTS.iter().enumerate() {
        let (r, s) = (times[2 * k], times[2 * k + 1]);
        ratios[k] = r.median / s.median;
        println!(
            "  {label:<24} {:>24} {:>24} {:>12.2} x",
            show(&r),
            show(&s),
            ratios[k]
        );
        vb.row(vec![
            (*label).into(),
            shape_of(k).map_or("unchecked", Shape::word).into(),
            r.median.into(),
            r.min.into(),
            r.max.into(),
            s.median.into(),
            s.min.into(),
            s.max.into(),
            ratios[k].into(),
        ]);
    }
    println!(
        "  (median, min..max over the rounds; every sum returned {expect}, checked against a plain iterator)"
    );
    vb.print();
    println!();
    for k in 0..3 {
        println!(
            "  * {}",
            order_sentence(VARIANTS[k].0, shape_of(k), &times[2 * k], &times[2 * k + 1])
        );
    }
    let (real_s, less_s) = (times[3], times[5]);
    if less_s.min > real_s.max {
        println!(
            "  * on sorted data the predicted branch beats the branchless code ({:.2} x): computing every\n    element costs more than a branch that is guessed right.",
            less_s.median / real_s.median
        );
    } else if less_s.max < real_s.min {
        println!(
            "  * even on sorted data the branchless code is faster than the predicted branch here ({:.2} x).",
            real_s.median / less_s.median
        );
    }
    exp.key_figure("as_written_random_over_sorted", ratios[0], "x");
    exp.key_figure("real_branch_random_over_sorted", ratios[1], "x");

    // == 3. The cost of one misprediction.
    exp.section("3. the cost of one misprediction (derived from the real branch)");
    let miss_rate = taken.min(1.0 - taken);
    let (real_r, real_s) = (times[2], times[3]);
    let extra = real_r.median - real_s.median;
    let mut mb = Block::new(
        "mispredict",
        &[
            "extra_ns_per_element",
            "miss_rate",
            "ns_per_miss",
            "ns_per_miss_low",
            "ns_per_miss_high",
            "cycles_per_miss",
        ],
    );
    let per_miss = if shape_of(1) != Some(Shape::Branch) && shape_of(1).is_some() {
        println!("  not derived: the real-branch function has no branch in this build.");
        None
    } else if extra <= 0.0 || real_r.min <= real_s.max {
        println!(
            "  not derived: random order was not clearly slower than sorted (medians {:.3} and {:.3} ns, ranges overlap).",
            real_r.median, real_s.median
        );
        None
    } else {
        let per = extra / miss_rate;
        let lo = (real_r.min - real_s.max) / miss_rate;
        let hi = (real_r.max - real_s.min) / miss_rate;
        println!("  extra time per element, random minus sorted : {extra:.3} ns (medians)");
        println!(
            "  share of random-order guesses that must fail: {miss_rate:.3} ({:.1}% of the values pass the test, in no order:\n  {:46}no guess beats the majority; sorted order is taken as missing almost never,\n  {:46}which `cargo xtask verify` checks in a branch simulator)",
            taken * 100.0,
            "",
            ""
        );
        println!(
            "  so one misprediction costs about            : {per:.1} ns  (from the rounds' extremes: {lo:.1} .. {hi:.1} ns)"
        );
        if let Some(c) = cc.cycles(per) {
            println!(
                "                                                {c:.0} cycles at {:.2} GHz",
                cc.ghz.unwrap_or(0.0)
            );
        }
        Some((per, lo, hi))
    };
    mb.row(vec![
        extra.into(),
        miss_rate.into(),
        per_miss.map(|p| p.0).into(),
        per_miss.map(|p| p.1).into(),
        per_miss.map(|p| p.2).into(),
        per_miss.and_then(|p| cc.cycles(p.0)).into(),
    ]);
    mb.print();
    exp.key_figure("mispredict", per_miss.map(|p| p.0), "ns");
    exp.key_figure(
        "mispredict_cycles",
        per_miss.and_then(|p| cc.cycles(p.0)),
        "cycles",
    );
    drop(sorted);

    // == 4. How regular must it be to be predicted?
    exp.section("4. how regular must it be to be predicted? (the real branch, by pattern)");
    let patterns = pattern_arrays(random);
    let cases: Vec<Case> = patterns
        .iter()
        .map(|p| Case {
            label: p.name,
            f: branch_real,
            data: &p.values,
            expect: reference_sum(&p.values),
        })
        .collect();
    let times = time_interleaved(&cases, rounds);
    let always = times[0].median;
    println!(
        "  {:<16} {:>8} {:>24} {:>12}   what the time says",
        "pattern", "taken", "ns per element", "vs always"
    );
    let mut pb = Block::new(
        "patterns",
        &[
            "pattern:text",
            "period",
            "taken_share",
            "median_ns",
            "min_ns",
            "max_ns",
            "vs_always",
            "implied_miss_share",
        ],
    );
    for (p, t) in patterns.iter().zip(&times) {
        let vs = t.median / always;
        let implied = per_miss.map(|m| ((t.median - always) / m.0).max(0.0));
        let note = if vs <= 1.3 {
            "predicted: about as cheap as always-true".to_string()
        } else {
            match implied {
                Some(s) => format!(
                    "mispredicted: the extra time is about {:.0}% of elements paying one miss",
                    s * 100.0
                ),
                None => format!("{vs:.1} x always-true"),
            }
        };
        println!(
            "  {:<16} {:>7.1}% {:>24} {:>10.2} x   {note}",
            p.name,
            p.taken * 100.0,
            show(t),
            vs
        );
        pb.row(vec![
            p.name.into(),
            p.period.into(),
            p.taken.into(),
            t.median.into(),
            t.min.into(),
            t.max.into(),
            vs.into(),
            implied.into(),
        ]);
    }
    println!(
        "  (the shares taken differ by pattern; the taken arm adds one addition, so always-true is\n   the most work and still the baseline)"
    );
    pb.print();
    let worst = times
        .iter()
        .zip(&patterns)
        .max_by(|a, b| a.0.median.total_cmp(&b.0.median))
        .map(|(_, p)| p.name)
        .unwrap_or("?");
    println!("  * the slowest pattern here is \"{worst}\".");
    let regular_max = times[1..4].iter().map(|t| t.median).fold(0.0, f64::max);
    if times[4].median > 1.5 * regular_max {
        println!(
            "  * every periodic pattern is far cheaper than the random one: short periods are learned.\n    What costs is not a branch but a branch that cannot be predicted."
        );
    } else {
        println!(
            "  * some periodic pattern cost about as much as the random one here: this predictor did not learn it."
        );
    }
    exp.finish();
}

/// Reads this very executable back and classifies the three variants.
fn read_shapes() -> Vec<Result<Verdict, String>> {
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            let msg = format!("cannot find this executable: {e}");
            return VARIANTS.iter().map(|_| Err(msg.clone())).collect();
        }
    };
    VARIANTS
        .iter()
        .map(|(_, sym, _)| shape::check(&exe, sym).map_err(|e| e.to_string()))
        .collect()
}

/// A sentence about one variant's random/sorted comparison, computed from its numbers.
fn order_sentence(label: &str, shape: Option<Shape>, r: &Summary, s: &Summary) -> String {
    let ratio = r.median / s.median;
    let apart = r.min > s.max || r.max < s.min;
    let checked = shape.map_or("unchecked".to_string(), |s| format!("checked: {s}"));
    match (apart && ratio > 1.2, shape) {
        (false, Some(Shape::Branch)) => format!(
            "{label}: a branch is there ({checked}), yet random order is not clearly slower ({ratio:.2} x)"
        ),
        (false, _) => format!(
            "{label}: order makes no clear difference ({ratio:.2} x): there is nothing to predict ({checked})"
        ),
        (true, Some(Shape::Branch)) => format!(
            "{label}: random order is {ratio:.2} x slower ({checked}): that is the price of wrong guesses"
        ),
        (true, _) => format!(
            "{label}: random order is {ratio:.2} x slower although no branch was found ({checked})"
        ),
    }
}

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

fn show(s: &Summary) -> String {
    format!("{:.3} ({:.3}..{:.3})", s.median, s.min, s.max)
}

/// `n` seeded random values in 0..256.
fn random_values(n: usize, seed: u64) -> Vec<i32> {
    let mut r = ring::rng(seed);
    (0..n).map(|_| ring::below(&mut r, 256) as i32).collect()
}

/// The sum the kernels must return, computed the plain way.
fn reference_sum(a: &[i32]) -> i64 {
    a.iter()
        .filter(|&&x| x >= THRESHOLD)
        .map(|&x| i64::from(x))
        .sum()
}

struct Pattern {
    name: &'static str,
    /// 0 for random.
    period: usize,
    taken: f64,
    values: Vec<i32>,
}

/// The five patterns, each `N` values of 200 (taken) or 10 (not taken). The first array
/// reuses `spare`'s memory.
fn pattern_arrays(spare: Vec<i32>) -> Vec<Pattern> {
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
            let taken = v.iter().filter(|&&x| x >= THRESHOLD).count() as f64 / v.len() as f64;
            Pattern {
                name,
                period,
                taken,
                values: v,
            }
        })
        .collect()
}

/// `--valgrind-kernel`: one call of `branch_real` over `n` values, nothing else, so that a
/// branch simulator's counts for that function are the branch's alone. Returns the exit code.
fn valgrind_kernel(order: &str, n: usize) -> i32 {
    let mut a = random_values(n, ring::DEFAULT_SEED);
    match order {
        "random" => {}
        "sorted" => a.sort_unstable(),
        other => cli::fail(
            "branch",
            &format!("--valgrind-kernel wants random or sorted, not {other:?}"),
        ),
    }
    let expect = reference_sum(&a);
    let s = branch_real(black_box(&a), black_box(THRESHOLD));
    println!(
        "branch_real over {n} {order} values (threshold {THRESHOLD}): sum {s}, expected {expect}"
    );
    if s == expect { 0 } else { 1 }
}
