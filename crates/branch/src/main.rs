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
//!
//! Where to start reading: `main` below, which follows the appendix's section top to bottom.
//! The three kernels are right under this comment; `bench.rs` builds the arrays and times
//! them interleaved, `report.rs` prints the tables, and `shape.rs` (the library half, shared
//! with the tests) reads the compiled loops back.

mod bench;
mod report;
mod same;

use bench::{Order, Orders, Pattern, PatternTimes, Regularity};
use branch::shape::{self, Shape, Verdict};
use measure::cli::{self, Opt};
use measure::disturb::Tally;
use measure::fmt::{bytes, say};
use measure::keep::{black_box, opaque_i64};
use measure::out::Out;
use measure::ring;
use measure::show::marked;
use measure::stats::Summary;
use report::{Miss, MissFound, PatternRow, PatternsFound};

/// 4M values: 16 MiB of `i32`, as in the appendix.
const N: usize = 1 << 22;
/// Values are in 0..256; the `if` takes those of 128 or more (half of them).
const THRESHOLD: i32 = 128;
/// The most clean rounds asked of every case (a round sums one slice of 64K values).
const MAX_ROUNDS: u64 = 1001;
/// The most values `--valgrind-kernel` runs over: four times the experiment's (64 MiB). Under
/// callgrind that already takes minutes.
const MAX_N: u64 = 4 * N as u64;
/// The arrays alive at once at the most: the five pattern arrays (the random one reused).
const PEAK_BYTES: u64 = 5 * (N * std::mem::size_of::<i32>()) as u64;

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

/// The three versions of the sum, in the order of the appendix's table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The compiler chooses what to make of the `if`.
    AsWritten,
    /// A real branch kept.
    RealBranch,
    /// The condition turned into arithmetic.
    Branchless,
}

impl Version {
    pub const ALL: [Version; 3] = [Version::AsWritten, Version::RealBranch, Version::Branchless];

    pub fn label(self) -> &'static str {
        match self {
            Version::AsWritten => "as written",
            Version::RealBranch => "real branch kept",
            Version::Branchless => "branchless arithmetic",
        }
    }
    /// Its symbol in the binary.
    pub fn symbol(self) -> &'static str {
        match self {
            Version::AsWritten => "branch_as_written",
            Version::RealBranch => "branch_real",
            Version::Branchless => "branch_branchless",
        }
    }
    pub fn kernel(self) -> Kernel {
        match self {
            Version::AsWritten => branch_as_written,
            Version::RealBranch => branch_real,
            Version::Branchless => branch_branchless,
        }
    }
}

/// One value for each version, by name.
#[derive(Debug, Clone)]
pub struct PerVersion<T> {
    pub as_written: T,
    pub real: T,
    pub branchless: T,
}

impl<T> PerVersion<T> {
    pub fn from_fn(mut f: impl FnMut(Version) -> T) -> PerVersion<T> {
        PerVersion {
            as_written: f(Version::AsWritten),
            real: f(Version::RealBranch),
            branchless: f(Version::Branchless),
        }
    }
    pub fn get(&self, v: Version) -> &T {
        match v {
            Version::AsWritten => &self.as_written,
            Version::RealBranch => &self.real,
            Version::Branchless => &self.branchless,
        }
    }
    /// The versions in table order, each with its value.
    pub fn iter(&self) -> impl Iterator<Item = (Version, &T)> {
        Version::ALL.into_iter().map(move |v| (v, self.get(v)))
    }
}

const OPTS: &[Opt] = &[
    Opt {
        name: "--rounds",
        value: Some("COUNT"),
        help: "clean timed rounds of every variant, 3 to 1001 (default 101, 21 with --quick)",
    },
    Opt {
        name: "--valgrind-kernel",
        value: Some("random|sorted"),
        help: "only run branch_real once over --n values in that order, then exit (for callgrind)",
    },
    Opt {
        name: "--n",
        value: Some("COUNT"),
        help: "values for --valgrind-kernel, up to 16777216 (default 100000)",
    },
];

const ABOUT: &str = "the cost of a fork in the road: a branch on random and sorted data";

fn main() {
    let args = cli::parse("branch", ABOUT, OPTS);
    if let Some(order) = args.value("--valgrind-kernel") {
        let n = args.count("--n", 100_000, 1, MAX_N) as usize;
        std::process::exit(valgrind_kernel(order, n));
    }
    if args.value("--n").is_some() {
        cli::fail("branch", "--n only goes with --valgrind-kernel");
    }
    let mut exp = measure::start!("branch", ABOUT, OPTS);
    exp.key_sources(::branch::schema::KEY_SOURCES);
    let quick = exp.args.quick;
    let rounds = exp
        .args
        .count("--rounds", if quick { 21 } else { 101 }, 3, MAX_ROUNDS) as usize;
    if let Err(e) = measure::mem::guard(PEAK_BYTES) {
        cli::fail(
            exp.name,
            &format!("the arrays take up to {} at once: {e}", bytes(PEAK_BYTES)),
        );
    }
    let core = exp.pin_main_thread().map(|p| p.requested);
    exp.out.meta(::branch::schema::META_N, N);
    exp.out.meta("threshold", THRESHOLD);
    exp.out.meta("seed", format!("{:#x}", ring::DEFAULT_SEED));
    exp.out.meta("rounds", rounds);
    exp.out.meta("values_per_round", bench::CHUNK);

    // == 1. Before measuring: is there still a branch?
    exp.section("1. before measuring: is there still a branch? (this binary, read back)");
    let verdicts = read_shapes();
    let shapes = PerVersion::from_fn(|v| verdicts.get(v).as_ref().ok().map(|v| v.shape));
    for (v, s) in shapes.iter() {
        let key = v.symbol().replace("branch_", "shape_");
        exp.out.meta(&key, s.map_or("unchecked", Shape::word));
    }
    report::print_shapes(&verdicts);
    exp.out.block(&report::shape_block(&verdicts));
    read_out(&mut exp.out, &[shape_sentence(&shapes)]);

    // == 2. The same data, the same computation, only the order differs.
    exp.section("2. the same data, the same computation, only the order differs");
    let random =
        bench::random_values(N, ring::DEFAULT_SEED).unwrap_or_else(|e| cli::fail(exp.name, &e));
    let mut sorted = random.clone();
    sorted
        .chunks_mut(bench::CHUNK)
        .for_each(<[i32]>::sort_unstable);
    let sums = bench::chunk_sums(&random);
    assert_eq!(
        sums,
        bench::chunk_sums(&sorted),
        "sorting keeps each slice's sum"
    );
    let taken = bench::taken_share(&random);
    say(&order_intro(taken, rounds), "  ");
    let want = bench::want(rounds);
    let orders = bench::time_orders((&random, &sorted, &sums), &shapes, &want, core);
    report::print_orders(&mut exp.out, &orders, sums.iter().sum());
    read_out(&mut exp.out, &orders_verdict(&orders));
    exp.disturbance(::branch::schema::variants::BLOCK, &orders.tally);
    let o = &orders.orders;
    exp.key_figure("as_written_random_over_sorted", o.as_written.ratio(), "x");
    exp.key_figure(
        ::branch::schema::key::REAL_BRANCH_RANDOM_OVER_SORTED,
        o.real.ratio(),
        "x",
    );

    // == 2b. The same source, only the compiler's choices differ.
    exp.section("2b. the same source, built two ways: only the compiler's choices differ");
    same_source((&random, &sorted, &sums), &want, core, &mut exp);

    // == 3. The cost of one misprediction.
    exp.section("3. the cost of one misprediction (derived from the real branch)");
    let cc = exp.core_clock();
    let derived = derive_miss(&orders.orders.real, taken);
    if let Ok(m) = &derived.miss {
        report::print_miss(&derived, m, &cc);
    }
    exp.out.block(&report::miss_block(&derived, &cc));
    read_out(&mut exp.out, &miss_verdict(&derived, &cc));
    exp.disturbance(::branch::schema::mispredict::BLOCK, &derived.tally);
    let miss = derived.miss.ok();
    exp.key_figure(::branch::schema::key::MISPREDICT, miss.map(|m| m.ns), "ns");
    exp.key_figure(
        "mispredict_cycles",
        miss.and_then(|m| cc.cycles(m.ns)),
        "cycles",
    );
    drop(sorted);

    // == 4. How regular must it be to be predicted?
    exp.section("4. how regular must it be to be predicted? (the real branch, by pattern)");
    let patterns = bench::pattern_arrays(random).unwrap_or_else(|e| cli::fail(exp.name, &e));
    let timed = bench::time_patterns(&patterns, branch_real, &want, core);
    let found = judge_patterns(&patterns, timed, miss);
    report::print_patterns(&mut exp.out, &found.rows);
    let reading = patterns_verdict(&found);
    exp.out.meta("verdict_patterns", periodic_word(&found.rows));
    read_out(&mut exp.out, &reading);
    exp.disturbance(::branch::schema::patterns::BLOCK, &found.tally);
    exp.finish();
}

/// Section 2b: `same/sum.rs` built twice (see `build.rs`), each build's shape read back
/// from this binary, both timed side by side over the random and sorted values; or, where
/// the builds are missing, why.
fn same_source(
    data: (&[i32], &[i32], &[i64]),
    want: &measure::rounds::Want,
    core: Option<usize>,
    exp: &mut measure::run::Experiment,
) {
    if same::BUILDS.is_empty() {
        read_out(
            &mut exp.out,
            &[format!(
                "skipped: this binary does not hold the two builds ({}).",
                same::WHY_NOT
            )],
        );
        return;
    }
    say(
        "the appendix's first row is one C source built plainly (GCC made a conditional move) \
         and with if-conversion switched off (a branch); sections 1 and 2 instead keep a real \
         branch with black_box(()) in the source. Here the source does not change: same/sum.rs \
         is compiled twice by this rustc at -C opt-level=3 (loop vectorisation off in both), the \
         second time telling LLVM's x86 backend to turn every conditional move into a branch. \
         Each build, as read back from this binary:",
        "  ",
    );
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"));
    let builds: Vec<_> = same::BUILDS
        .iter()
        .map(|&(label, sym, flag, f)| {
            let v = match &exe {
                Ok(p) => shape::check(p, sym).map_err(|e| e.to_string()),
                Err(e) => Err(e.clone()),
            };
            let text = match &v {
                Ok(v) => format!("{}: {}", v.shape, v.sentence()),
                Err(e) => format!("could not check ({e})"),
            };
            say(&format!("{label} ({sym}): {text}"), "  ");
            (label, flag, v.ok().map(|v| v.shape), f)
        })
        .collect();
    let (built, tally) = bench::time_builds(data, &builds, want, core);
    report::print_builds(&mut exp.out, &built);
    read_out(&mut exp.out, &same::verdict(&built, &tally));
    exp.disturbance(::branch::schema::same_source::BLOCK, &tally);
}

/// Prints a section's reading: "how to read this run:" and one `*` line per sentence.
fn read_out(out: &mut Out, sentences: &[String]) {
    println!("\n  how to read this run:");
    for s in sentences {
        out.conclude(s);
    }
}

/// What section 2 times, and the rounds it takes.
fn order_intro(taken: f64, rounds: usize) -> String {
    let c = bench::CHUNK;
    format!(
        "summing the values of {THRESHOLD} or more among {N} values in 0..256 (16 MiB), a slice \
         of {c} values a round, {rounds} clean rounds of each of the six cases, interleaved (up to \
         {} extra rounds / {} ms when rounds are disturbed); {:.1}% of the values pass the test. \
         The sorted array holds the same values, each slice of {c} sorted.",
        2 * rounds,
        bench::EXTRA_BUDGET_NS / 1_000_000,
        taken * 100.0
    )
}

/// Reads this very executable back and classifies the three versions.
fn read_shapes() -> PerVersion<Result<Verdict, String>> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"));
    PerVersion::from_fn(|v| match &exe {
        Ok(p) => shape::check(p, v.symbol()).map_err(|e| e.to_string()),
        Err(e) => Err(e.clone()),
    })
}

/// Whether the real-branch version can measure prediction at all, and what the other two
/// versions became.
fn shape_sentence(shapes: &PerVersion<Option<Shape>>) -> String {
    let others: Vec<String> = shapes
        .iter()
        .filter(|(v, _)| *v != Version::RealBranch)
        .map(|(v, s)| format!("{} {}", v.label(), s.map_or("unchecked", Shape::word)))
        .collect();
    let branchy = shapes
        .iter()
        .filter(|(v, s)| *v != Version::RealBranch && **s == Some(Shape::Branch))
        .count();
    let others = format!(
        "{} ({})",
        match branchy {
            0 => "the other two have no jump to predict",
            1 => "one of the other two has a jump as well",
            _ => "the other two have jumps as well",
        },
        others.join(", ")
    );
    match shapes.real {
        Some(Shape::Branch) => format!(
            "the real-branch version has its jump: it is what branch prediction can be measured \
             on; {others}."
        ),
        Some(_) => format!(
            "! the real-branch version has no branch in this build: its numbers below do not \
             measure prediction; {others}."
        ),
        None => "the binary could not be read back, so no version's shape is known.".into(),
    }
}

/// A sentence about one variant's random/sorted comparison, computed from its numbers.
fn order_sentence(o: &Order) -> String {
    let (label, r, s, ratio) = (o.version.label(), &o.random, &o.sorted, o.ratio());
    let apart = r.min > s.max || r.max < s.min;
    let checked = o
        .shape
        .map_or("unchecked".to_string(), |s| format!("checked: {s}"));
    if apart && ratio < 1.0 / 1.2 {
        return format!(
            "{label}: sorted order is {:.2} x slower, every round ({checked}): not what branch \
             prediction explains; rerun before reading anything into it",
            1.0 / ratio
        );
    }
    match (apart && ratio > 1.2, o.shape) {
        (false, Some(Shape::Branch)) => format!(
            "{label}: a branch is there ({checked}), yet random order is not clearly slower ({ratio:.2} x)"
        ),
        (false, None) => {
            format!("{label}: order makes no clear difference ({ratio:.2} x) ({checked})")
        }
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
            "on sorted data the predicted branch beats the branchless code ({:.2} x): computing \
             every element costs more than a branch that is guessed right.",
            less.median / real.median
        ))
    } else if less.max < real.min {
        Some(format!(
            "even on sorted data the branchless code is faster than the predicted branch here \
             ({:.2} x).",
            real.median / less.median
        ))
    } else {
        None
    }
}

/// Section 3's result from the real branch's two orders: the cost of one misprediction, or
/// why it cannot be derived, with the rounds behind it.
fn derive_miss(real: &Order, taken: f64) -> MissFound {
    let miss_rate = taken.min(1.0 - taken);
    let (r, s) = (&real.random, &real.sorted);
    let extra = r.median - s.median;
    let miss = if real.shape.is_some_and(|s| s != Shape::Branch) {
        Err("the real-branch function has no branch in this build.".into())
    } else if extra <= 0.0 || r.min <= s.max {
        Err(format!(
            "random order was not clearly slower than sorted (medians {:.3} and {:.3} ns, ranges \
             overlap).",
            r.median, s.median
        ))
    } else {
        Ok(Miss {
            ns: extra / miss_rate,
            low: (r.min - s.max) / miss_rate,
            high: (r.max - s.min) / miss_rate,
        })
    };
    MissFound {
        extra,
        miss_rate,
        taken,
        miss,
        tally: real.tally,
    }
}

/// Section 3's reading, marked when its rounds were disturbed.
fn miss_verdict(found: &MissFound, cc: &measure::clock::CoreClock) -> Vec<String> {
    let s = match &found.miss {
        Ok(m) => format!(
            "each wrong guess throws away about {:.1} ns of work{}: the pipeline is emptied and \
             refilled. The book's machine read about 6 ns.",
            m.ns,
            cc.cycles(m.ns)
                .map_or(String::new(), |c| format!(", some {c:.0} cycles"))
        ),
        Err(why) => format!("not derived: {why}"),
    };
    marked(&found.tally, false, vec![s])
}

/// Section 2's reading: one sentence per version and, on sorted data, the predicted branch
/// against the branchless code; marked when the rounds were disturbed.
fn orders_verdict(found: &Orders) -> Vec<String> {
    let o = &found.orders;
    let mut out: Vec<String> = o.iter().map(|(_, o)| order_sentence(o)).collect();
    out.extend(predicted_vs_branchless(
        &o.real.sorted,
        &o.branchless.sorted,
    ));
    marked(&found.tally, false, out)
}

/// One pattern against always-true: predicted if within 1.3 x, unclear if dearer but with
/// rounds overlapping always-true's, else how many misses its extra time implies.
fn judge_pattern(
    p: &Pattern,
    (time, tally): (Summary, Tally),
    always: Option<Summary>,
    miss: Option<Miss>,
) -> PatternRow<'_> {
    let base = always.map_or(f64::NAN, |a| a.median);
    let vs_always = time.median / base;
    let implied_miss = miss.map(|m| ((time.median - base) / m.ns).max(0.0));
    let note = if vs_always <= 1.3 {
        "predicted: as cheap as always-true".to_string()
    } else if always.is_some_and(|a| time.min <= a.max) {
        "unclear: rounds overlap".to_string()
    } else {
        match implied_miss {
            Some(s) => format!("missed: as if {:.0}% paid a miss", s * 100.0),
            None => format!("{vs_always:.1} x always-true"),
        }
    };
    PatternRow {
        pattern: p,
        time,
        vs_always,
        implied_miss,
        note,
        tally,
    }
}

/// Section 4's rows, each pattern judged against always-true.
fn judge_patterns(
    patterns: &[Pattern],
    timed: PatternTimes,
    miss: Option<Miss>,
) -> PatternsFound<'_> {
    let always = patterns
        .iter()
        .zip(&timed.times)
        .find(|(p, _)| p.kind == Regularity::Always)
        .map(|(_, t)| t.0);
    PatternsFound {
        rows: patterns
            .iter()
            .zip(timed.times)
            .map(|(p, t)| judge_pattern(p, t, always, miss))
            .collect(),
        tally: timed.tally,
    }
}

/// Section 4's reading: the slowest pattern and whether the periodic ones were learned;
/// marked when the rounds were disturbed.
fn patterns_verdict(found: &PatternsFound) -> Vec<String> {
    let worst = found
        .rows
        .iter()
        .max_by(|a, b| a.time.median.total_cmp(&b.time.median))
        .map_or("?", |r| r.pattern.name);
    let out = vec![
        format!("the slowest pattern here is \"{worst}\"."),
        periodic_verdict(&found.rows),
    ];
    marked(&found.tally, false, out)
}

/// The first word of the periodic verdict, for `#META verdict_patterns` (never marked).
fn periodic_word(rows: &[PatternRow]) -> String {
    let s = periodic_verdict(rows);
    s.split(':').next().unwrap_or(&s).to_string()
}

/// Whether the predictor learned the periodic patterns: each compared with the random one.
fn periodic_verdict(rows: &[PatternRow]) -> String {
    let regular_max = rows
        .iter()
        .filter(|r| matches!(r.pattern.kind, Regularity::Periodic(_)))
        .map(|r| r.time.median)
        .fold(0.0, f64::max);
    let Some(random) = rows.iter().find(|r| r.pattern.kind == Regularity::Random) else {
        return "no random pattern was timed.".into();
    };
    if random.time.median > 1.5 * regular_max {
        format!(
            "every periodic pattern is far cheaper than the random one ({:.1}x the dearest of \
             them): short periods are learned. What costs is not a branch but a branch that \
             cannot be predicted.",
            random.time.median / regular_max
        )
    } else {
        "some periodic pattern cost about as much as the random one here: this predictor did not \
         learn it."
            .into()
    }
}

/// `--valgrind-kernel`: one call of `branch_real` over `n` values, nothing else, so that a
/// branch simulator's counts for that function are the branch's alone. Returns the exit code.
fn valgrind_kernel(order: &str, n: usize) -> i32 {
    let sort = match order {
        "random" => false,
        "sorted" => true,
        other => cli::fail(
            "branch",
            &format!(
                "--valgrind-kernel wants random or sorted, not {}",
                cli::echo(other)
            ),
        ),
    };
    let mut a = bench::random_values(n, ring::DEFAULT_SEED).unwrap_or_else(|e| {
        cli::fail(
            "branch",
            &format!("--n {n} values ({}): {e}", bytes(4 * n as u64)),
        )
    });
    if sort {
        a.sort_unstable();
    }
    let expect = bench::reference_sum(&a);
    let s = branch_real(black_box(&a), black_box(THRESHOLD));
    println!(
        "branch_real over {n} {order} values (threshold {THRESHOLD}): sum {s}, expected {expect}"
    );
    if s == expect { 0 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(random: &[f64], sorted: &[f64]) -> Order {
        Order {
            version: Version::RealBranch,
            shape: Some(Shape::Branch),
            random: Summary::of(random).unwrap(),
            sorted: Summary::of(sorted).unwrap(),
            tally: Tally::default(),
        }
    }

    /// A tally of 60 rounds: quiet, or with 20 disturbed and half a core of other work.
    fn tally(disturbed: bool) -> Tally {
        let load = measure::disturb::Load {
            core: Some(1),
            on_core: Some(if disturbed { 0.5 } else { 0.0 }),
            steal: Some(0.0),
            elsewhere: Some(if disturbed { 1.0 } else { 0.0 }),
            ..Default::default()
        };
        Tally {
            rounds: 60,
            disturbed: if disturbed { 20 } else { 0 },
            load: Some(load),
            ..Default::default()
        }
    }

    fn orders(disturbed: bool) -> Orders {
        let o = PerVersion::from_fn(|v| Order {
            version: v,
            ..order(&[3.0, 3.1, 3.2], &[0.4, 0.5, 0.6])
        });
        Orders {
            orders: o,
            tally: tally(disturbed),
        }
    }

    fn pattern(name: &'static str, kind: Regularity) -> Pattern {
        Pattern {
            name,
            kind,
            taken: 0.5,
            values: vec![],
        }
    }

    /// Every reading of sections 2 to 4 from synthetic results, quiet or disturbed.
    fn readings(disturbed: bool) -> Vec<Vec<String>> {
        let o = orders(disturbed);
        let mut real = o.orders.real.clone();
        real.tally = tally(disturbed);
        let miss = derive_miss(&real, 0.5);
        assert!(miss.miss.is_ok());
        let patterns = [
            pattern("always true", Regularity::Always),
            pattern("alternating", Regularity::Periodic(2)),
            pattern("random", Regularity::Random),
        ];
        let s = |m: f64| Summary::of(&[m, m * 1.1]).unwrap();
        let timed = PatternTimes {
            times: [0.5, 0.6, 4.0].map(|m| (s(m), tally(disturbed))).to_vec(),
            tally: tally(disturbed),
        };
        let found = judge_patterns(&patterns, timed, miss.miss.clone().ok());
        vec![
            orders_verdict(&o),
            miss_verdict(&miss, &measure::clock::CoreClock::default()),
            patterns_verdict(&found),
        ]
    }

    #[test]
    fn a_disturbed_result_never_reads_unmarked() {
        for r in readings(true) {
            assert!(
                r[0].starts_with("provisional: 20 of 60 rounds were disturbed"),
                "{r:?}"
            );
            assert!(r[0].contains("0.50 cores of other work on core 1"), "{r:?}");
            // Nothing here reads the shared levels: contention is not named.
            assert!(!r.iter().any(|s| s.contains("contention")), "{r:?}");
        }
    }

    #[test]
    fn a_quiet_result_reads_without_marks() {
        for r in readings(false) {
            assert!(!r.is_empty());
            assert!(!r.iter().any(|s| s.contains("provisional")), "{r:?}");
        }
        let r = readings(false);
        assert!(
            r[1][0].starts_with("each wrong guess throws away about 5.2 ns"),
            "{r:?}"
        );
        assert!(
            r[2][1].starts_with("every periodic pattern is far cheaper"),
            "{r:?}"
        );
    }

    #[test]
    fn the_order_sentence_follows_the_ranges() {
        let s = order_sentence(&order(&[3.0, 3.1, 3.2], &[0.4, 0.5, 0.6]));
        assert!(s.contains("random order is") && s.contains("slower"), "{s}");
        let s = order_sentence(&order(&[0.4, 0.5, 3.2], &[0.4, 0.5, 0.6]));
        assert!(s.contains("not clearly slower"), "{s}");
        // Sorted clearly slower is said as it is, never as "no clear difference".
        let s = order_sentence(&order(&[0.4, 0.5, 0.6], &[3.0, 3.1, 3.2]));
        assert!(
            s.contains("sorted order is") && !s.contains("no clear"),
            "{s}"
        );
    }
}
