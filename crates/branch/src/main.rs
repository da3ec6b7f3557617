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
//! them interleaved, `verdict.rs` reads each section's result (pure functions),
//! `report.rs` prints the tables, and `shape.rs` (the library half, shared
//! with the tests) reads the compiled loops back.

mod bench;
mod report;
mod same;
mod verdict;

use branch::shape::{self, Shape, Verdict};
use measure::cli::{self, Opt};
use measure::fmt::{bytes, say};
use measure::keep::{black_box, opaque_i64};
use measure::ring;

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
    exp.out.reading(&[verdict::shape_sentence(&shapes)]);

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
    exp.out.reading(&verdict::orders_verdict(&orders));
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
    let derived = verdict::derive_miss(&orders.orders.real, taken);
    if let Ok(m) = &derived.miss {
        report::print_miss(&derived, m, &cc);
    }
    exp.out.block(&report::miss_block(&derived, &cc));
    exp.out.reading(&verdict::miss_verdict(&derived, &cc));
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
    let found = verdict::judge_patterns(&patterns, timed, miss);
    report::print_patterns(&mut exp.out, &found.rows);
    let reading = verdict::patterns_verdict(&found);
    exp.out
        .meta("verdict_patterns", verdict::periodic_word(&found.rows));
    exp.out.reading(&reading);
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
        exp.out.reading(&[format!(
            "skipped: this binary does not hold the two builds ({}).",
            same::WHY_NOT
        )]);
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
    exp.out.reading(&verdict::same_source(&built, &tally));
    exp.disturbance(::branch::schema::same_source::BLOCK, &tally);
}

/// What section 2 times, and the rounds it takes.
fn order_intro(taken: f64, rounds: usize) -> String {
    let c = bench::CHUNK;
    format!(
        "summing the values of {THRESHOLD} or more among {N} values in 0..256 (16 MiB), a slice \
         of {c} values a round, {rounds} clean rounds of each of the six cases, interleaved (up to \
         {} extra rounds / {} ms when rounds are disturbed; {}); {:.1}% of the values pass the \
         test. The sorted array holds the same values, each slice of {c} sorted.",
        2 * rounds,
        bench::EXTRA_BUDGET_NS / 1_000_000,
        measure::retake::promise(),
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
