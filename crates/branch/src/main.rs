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

mod bench;
mod report;

use bench::{Order, Pattern};
use branch::shape::{self, Shape, Verdict};
use measure::cli::{self, Opt};
use measure::data::meta;
use measure::keep::{black_box, opaque_i64};
use measure::ring;
use measure::stats::Summary;
use report::{Miss, PatternRow};

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

/// One version of the sum: its label, its symbol in the binary, the function.
struct Variant {
    label: &'static str,
    symbol: &'static str,
    f: Kernel,
}

/// The three versions, in the order of the appendix's table.
const VARIANTS: [Variant; 3] = [
    Variant {
        label: "as written",
        symbol: "branch_as_written",
        f: branch_as_written,
    },
    Variant {
        label: "real branch kept",
        symbol: "branch_real",
        f: branch_real,
    },
    Variant {
        label: "branchless arithmetic",
        symbol: "branch_branchless",
        f: branch_branchless,
    },
];
/// Index of the as-written sum in `VARIANTS`.
const AS_WRITTEN: usize = 0;
/// Index of the real branch in `VARIANTS`.
const REAL: usize = 1;
/// Index of the branchless arithmetic in `VARIANTS`.
const BRANCHLESS: usize = 2;

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
        let n = args.count("--n", 100_000, 1, 100_000_000) as usize;
        std::process::exit(valgrind_kernel(order, n));
    }
    if args.value("--n").is_some() {
        cli::fail("branch", "--n only goes with --valgrind-kernel");
    }
    let mut exp = measure::start!("branch", ABOUT, OPTS);
    let quick = exp.args.quick;
    let rounds = exp
        .args
        .count("--rounds", if quick { 7 } else { 31 }, 3, 10_001) as usize;
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
    let verdicts = read_shapes();
    let shapes: Vec<Option<Shape>> = verdicts
        .iter()
        .map(|v| v.as_ref().ok().map(|v| v.shape))
        .collect();
    report::print_shapes(&VARIANTS, &verdicts);
    if let Some(s) = real_branch_sentence(shapes[REAL]) {
        println!("  {s}");
    }
    report::shape_block(&VARIANTS, &verdicts).print();

    // == 2. The same data, the same computation, only the order differs.
    exp.section("2. the same data, the same computation, only the order differs");
    let random = bench::random_values(N, ring::DEFAULT_SEED);
    let mut sorted = random.clone();
    sorted.sort_unstable();
    let expect = bench::reference_sum(&random);
    assert_eq!(
        expect,
        bench::reference_sum(&sorted),
        "a sorted copy has the same sum"
    );
    let taken = bench::taken_share(&random);
    println!(
        "  summing the values of {THRESHOLD} or more among {N} values in 0..256 (16 MiB), {rounds} rounds,\n  \
         the six cases interleaved; {:.1}% of the values pass the test. Both arrays hold the same values.\n",
        taken * 100.0
    );
    let orders = bench::time_orders(&random, &sorted, expect, &shapes, rounds);
    report::print_orders(&orders, expect);
    for o in &orders {
        println!("  * {}", order_sentence(o));
    }
    if let Some(s) = predicted_vs_branchless(&orders[REAL].sorted, &orders[BRANCHLESS].sorted) {
        println!("  * {s}");
    }
    exp.key_figure(
        "as_written_random_over_sorted",
        orders[AS_WRITTEN].ratio(),
        "x",
    );
    exp.key_figure("real_branch_random_over_sorted", orders[REAL].ratio(), "x");

    // == 3. The cost of one misprediction.
    exp.section("3. the cost of one misprediction (derived from the real branch)");
    let miss_rate = taken.min(1.0 - taken);
    let real = &orders[REAL];
    let extra = real.random.median - real.sorted.median;
    let miss = match cost_of_a_miss(real, miss_rate) {
        Ok(m) => {
            report::print_miss(extra, miss_rate, taken, &m, &cc);
            Some(m)
        }
        Err(why) => {
            println!("  not derived: {why}");
            None
        }
    };
    report::miss_block(extra, miss_rate, miss, &cc).print();
    exp.key_figure("mispredict", miss.map(|m| m.ns), "ns");
    exp.key_figure(
        "mispredict_cycles",
        miss.and_then(|m| cc.cycles(m.ns)),
        "cycles",
    );
    drop(sorted);

    // == 4. How regular must it be to be predicted?
    exp.section("4. how regular must it be to be predicted? (the real branch, by pattern)");
    let patterns = bench::pattern_arrays(random);
    let times = bench::time_patterns(&patterns, branch_real, rounds);
    let rows: Vec<PatternRow> = patterns
        .iter()
        .zip(&times)
        .map(|(p, t)| judge_pattern(p, *t, times[0].median, miss))
        .collect();
    report::print_patterns(&rows);
    let worst = rows
        .iter()
        .max_by(|a, b| a.time.median.total_cmp(&b.time.median))
        .map_or("?", |r| r.pattern.name);
    println!("  * the slowest pattern here is \"{worst}\".");
    println!("  * {}", periodic_sentence(&times));
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
        .map(|v| shape::check(&exe, v.symbol).map_err(|e| e.to_string()))
        .collect()
}

/// Whether the real-branch version can measure prediction at all (nothing if unchecked).
fn real_branch_sentence(real: Option<Shape>) -> Option<&'static str> {
    match real? {
        Shape::Branch => {
            Some("* the real-branch version is what branch prediction can be measured on.")
        }
        _ => Some(
            "! the real-branch version has no branch in this build: its numbers below do not measure prediction.",
        ),
    }
}

/// A sentence about one variant's random/sorted comparison, computed from its numbers.
fn order_sentence(o: &Order) -> String {
    let (label, r, s, ratio) = (o.label, &o.random, &o.sorted, o.ratio());
    let apart = r.min > s.max || r.max < s.min;
    let checked = o
        .shape
        .map_or("unchecked".to_string(), |s| format!("checked: {s}"));
    match (apart && ratio > 1.2, o.shape) {
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

/// On sorted data, the predicted branch against the branchless code: a sentence only when
/// their ranges do not overlap.
fn predicted_vs_branchless(real: &Summary, less: &Summary) -> Option<String> {
    if less.min > real.max {
        Some(format!(
            "on sorted data the predicted branch beats the branchless code ({:.2} x): computing every\n    element costs more than a branch that is guessed right.",
            less.median / real.median
        ))
    } else if less.max < real.min {
        Some(format!(
            "even on sorted data the branchless code is faster than the predicted branch here ({:.2} x).",
            real.median / less.median
        ))
    } else {
        None
    }
}

/// The cost of one misprediction from the real branch's random-minus-sorted time, or why it
/// cannot be derived.
fn cost_of_a_miss(real: &Order, miss_rate: f64) -> Result<Miss, String> {
    let (r, s) = (&real.random, &real.sorted);
    if real.shape.is_some_and(|s| s != Shape::Branch) {
        return Err("the real-branch function has no branch in this build.".into());
    }
    let extra = r.median - s.median;
    if extra <= 0.0 || r.min <= s.max {
        return Err(format!(
            "random order was not clearly slower than sorted (medians {:.3} and {:.3} ns, ranges overlap).",
            r.median, s.median
        ));
    }
    Ok(Miss {
        ns: extra / miss_rate,
        low: (r.min - s.max) / miss_rate,
        high: (r.max - s.min) / miss_rate,
    })
}

/// One pattern against always-true: predicted if within 1.3 x, else how many misses its
/// extra time implies.
fn judge_pattern(p: &Pattern, time: Summary, always: f64, miss: Option<Miss>) -> PatternRow<'_> {
    let vs_always = time.median / always;
    let implied_miss = miss.map(|m| ((time.median - always) / m.ns).max(0.0));
    let note = if vs_always <= 1.3 {
        "predicted: about as cheap as always-true".to_string()
    } else {
        match implied_miss {
            Some(s) => format!(
                "mispredicted: the extra time is about {:.0}% of elements paying one miss",
                s * 100.0
            ),
            None => format!("{vs_always:.1} x always-true"),
        }
    };
    PatternRow {
        pattern: p,
        time,
        vs_always,
        implied_miss,
        note,
    }
}

/// Whether the predictor learned the periodic patterns (times in `pattern_arrays` order:
/// always true, three periods, random).
fn periodic_sentence(times: &[Summary]) -> &'static str {
    let regular_max = times[1..4].iter().map(|t| t.median).fold(0.0, f64::max);
    if times[4].median > 1.5 * regular_max {
        "every periodic pattern is far cheaper than the random one: short periods are learned.\n    What costs is not a branch but a branch that cannot be predicted."
    } else {
        "some periodic pattern cost about as much as the random one here: this predictor did not learn it."
    }
}

/// `--valgrind-kernel`: one call of `branch_real` over `n` values, nothing else, so that a
/// branch simulator's counts for that function are the branch's alone. Returns the exit code.
fn valgrind_kernel(order: &str, n: usize) -> i32 {
    let mut a = bench::random_values(n, ring::DEFAULT_SEED);
    match order {
        "random" => {}
        "sorted" => a.sort_unstable(),
        other => cli::fail(
            "branch",
            &format!("--valgrind-kernel wants random or sorted, not {other:?}"),
        ),
    }
    let expect = bench::reference_sum(&a);
    let s = branch_real(black_box(&a), black_box(THRESHOLD));
    println!(
        "branch_real over {n} {order} values (threshold {THRESHOLD}): sum {s}, expected {expect}"
    );
    if s == expect { 0 } else { 1 }
}
