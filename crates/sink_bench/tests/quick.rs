//! Runs `sink_bench` as a reader would (a quick run on a terminal and piped, bad input) and
//! checks in the built binary that the three timing functions have the shape the seed claims.

use measure::data;
use measure::testing::{assert_report, report_lines};
use sink_bench::asm;
use sink_bench::kernel::PASS_SUM;
use std::path::Path;
use std::process::Output;

const BIN: &str = env!("CARGO_BIN_EXE_sink_bench");

/// The environment variables the program reads, removed so the test's own cannot leak in.
const ENV: [&str; 8] = [
    "QUICK",
    "REPS",
    "RUNS",
    "SETTLE_MS",
    "MM_CORE",
    "SINK_BENCH_CHILD",
    "SINK_BENCH_FIRST",
    "SINK_BENCH_TEST_CHILD_FAILS",
];

fn run(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = measure::testing::command(BIN);
    c.args(args);
    for v in ENV {
        c.env_remove(v);
    }
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("sink_bench runs")
}

fn nums(f: &data::DataFile, block: &str, col: &str) -> Vec<f64> {
    f.block(block)
        .unwrap_or_else(|| panic!("missing block {block}"))
        .nums(col)
        .unwrap_or_else(|| panic!("block {block} has no column {col}"))
        .into_iter()
        .map(|v| v.expect("measured"))
        .collect()
}

/// The measured cells of a column (part 1's rounds hold NA where a variant took fewer passes).
fn present(f: &data::DataFile, block: &str, col: &str) -> Vec<f64> {
    f.block(block)
        .and_then(|b| b.nums(col))
        .unwrap_or_else(|| panic!("block {block} has no column {col}"))
        .into_iter()
        .flatten()
        .collect()
}

#[test]
fn the_report_reads_top_to_bottom_within_the_rules() {
    let text = assert_report(
        BIN,
        &["--quick", "--show-asm", "--pin", "--settle-ms", "20"],
        &[
            "== the machine",
            "== the start every process makes",
            "== the clock, and the latency of one float add ==",
            "== part 1: three ways to treat the result",
            "== part 2: one run is not a measurement",
            "== part 3: the cold pass",
            "== the code that was timed",
        ],
    );
    // The listings are the long part, and only there with --show-asm.
    assert!(report_lines(&text) > 200, "{} lines", report_lines(&text));
    // Pinning is an option, and a pinned run says that it departs from the seed.
    assert!(
        text.contains(
            "  departs        : --pin: every process pinned to one core; the seed pins nothing"
        ),
        "{text}"
    );
    // The plain run is the binary's second execution, and says so.
    assert!(text.contains("this is the binary's second"), "{text}");
    // The shape check's verdict in one line, and with --show-asm the listings.
    assert!(
        text.lines()
            .any(|l| l.starts_with("  shape check    : as claimed: (a) no float add")),
        "{text}"
    );
    for sym in asm::FUNCTIONS {
        assert!(text.contains(&format!("<{sym}>:")), "no listing of {sym}");
    }
    // Each verdict once: the report has no RESULT lines any more.
    assert!(!text.contains("RESULT"), "{text}");
    if !measure::testing::says_emulated(&text) {
        assert_eq!(text.matches("removed the loop").count(), 1, "{text}");
    }
}

#[test]
fn quick_run_piped_parses_every_block() {
    // QUICK=1, the seed's way of asking for a smoke run; piped, so the data part is whole.
    let out = run(&[], &[("QUICK", "1"), ("SETTLE_MS", "20")]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    let text = String::from_utf8(out.stdout).unwrap();
    let f = data::parse(&text).unwrap_or_else(|e| panic!("output does not parse: {e}"));
    // Each key figure is marked by the result it is read from: that result was recorded.
    measure::testing::check_key_sources(&f, ::sink_bench::schema::KEY_SOURCES).unwrap();
    assert_eq!(f.meta("quick"), Some("yes"), "QUICK=1 is a quick run");
    assert_eq!(f.meta_num("runs"), Some(10.0));
    assert_eq!(
        f.meta("execution"),
        Some("2"),
        "the second execution measures"
    );
    assert!(!text.contains("WARNING: built without full optimisation"));
    // The seed's default: one thread, nothing pinned.
    assert_eq!(f.meta("pinned"), Some("no"), "unpinned by default");
    assert!(
        text.contains("  pinning        : none, as the seed"),
        "{text}"
    );
    assert!(!text.contains("departs"), "{text}");
    // Without --show-asm the listings stay out; the one-line verdict does not.
    assert!(!text.contains("<sink_bench_time_sink>:"));
    assert!(text.contains("  shape check    : "));
    // The report's length does not depend on REPS or RUNS: a full run has as many lines.
    let human = text.lines().filter(|l| !l.starts_with('#')).count();
    assert!(human <= 160, "{human} report lines");
    for name in [
        "part1_passes",
        "warm_in_process",
        "fresh_processes",
        "fresh_first_discarded",
        "cold_in_process",
        "series_summary",
        "summary_figures",
        "key_figures",
    ] {
        assert!(f.block(name).is_some(), "no block {name}");
    }

    // Part 1: the checksum is right over every (c) pass (10 timed, a warm-up, and one more of
    // each for a disturbed pass), and the discarded variant costs nothing next to the loop.
    let expected = f.meta_num("checksum_expected").unwrap();
    assert_eq!(f.meta_num("checksum"), Some(expected));
    let sums = expected / f64::from(PASS_SUM);
    assert!(
        sums.fract() == 0.0 && (11.0..=60.0).contains(&sums),
        "{sums} passes"
    );
    let med = |col: &str| measure::stats::median(&present(&f, "part1_passes", col)).unwrap();
    // At least the 10 passes asked for, at most three times as many (disturbed ones retaken).
    let sink = present(&f, "part1_passes", "sink_ns").len();
    assert!((10..=30).contains(&sink), "{sink} passes of (b)");
    let disturbed: f64 = nums(&f, "part1_passes", "disturbed_rounds").iter().sum();
    let taken: f64 = nums(&f, "part1_passes", "rounds").iter().sum();
    assert!(
        disturbed <= taken && taken >= 30.0,
        "{disturbed} of {taken}"
    );
    assert!(
        med("discarded_ns") * 100.0 < med("sink_ns"),
        "the dead loop was removed: {} ns against {} ns",
        med("discarded_ns"),
        med("sink_ns")
    );
    // The checksum variant kept the loop too. (That (b) and (c) run the same loop is checked
    // in the code, by the shape test below; their ratio is the run's noise, not asserted.)
    assert!(
        med("discarded_ns") * 100.0 < med("checksum_ns"),
        "the checksum kept the loop: {} ns against {} ns",
        med("discarded_ns"),
        med("checksum_ns")
    );

    // Parts 2 and 3: ten passes in one process, ten fresh processes, one cold shot, and the
    // discarded first execution.
    let warm_in = nums(&f, "warm_in_process", "ns").len();
    assert!((10..=30).contains(&warm_in), "{warm_in} warm passes");
    assert_eq!(nums(&f, "fresh_processes", "warm_ns").len(), 10);
    assert_eq!(nums(&f, "cold_in_process", "ns").len(), 1);
    assert_eq!(nums(&f, "fresh_first_discarded", "cold_ns").len(), 1);
    // The cold pass takes the page faults of a fresh mapping; the warm pass takes fewer.
    let cold_faults = nums(&f, "fresh_processes", "cold_faults");
    let warm_faults = nums(&f, "fresh_processes", "warm_faults");
    for (c, w) in cold_faults.iter().zip(&warm_faults) {
        assert!(c > w, "cold pass {c} faults, warm pass {w}");
    }
    assert!(nums(&f, "cold_in_process", "faults")[0] > 0.0);

    // What the summary is built from: every series, every figure, a verdict per part.
    let series = f.block("series_summary").unwrap().texts("series").unwrap();
    assert_eq!(
        series,
        [
            "discarded",
            "sink",
            "checksum",
            "warm_in_process",
            "warm_fresh",
            "cold_in_process",
            "cold_fresh"
        ]
    );
    assert_eq!(f.block("summary_figures").unwrap().rows.len(), 12);
    let verdicts = f
        .meta
        .iter()
        .filter(|(k, _)| k.starts_with("verdict_"))
        .count();
    assert!(verdicts >= 7, "{verdicts} verdicts");
    for key in ["load_before", "load_after", "clock_read_ns", "code_check"] {
        assert!(f.meta(key).is_some(), "no #META {key}");
    }
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    /// Arguments, environment, and what the one line on stderr must say.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 10] = [
        (&["--bogus"], &[], "unknown argument"),
        (&["--reps", "5"], &[], "cannot show a spread"),
        (&[], &[("RUNS", "3")], "RUNS must lie between 10 and 1000"),
        (
            &[],
            &[("RUNS", "99999999")],
            "RUNS must lie between 10 and 1000",
        ),
        (&[], &[("REPS", "lots")], "whole number"),
        (&[], &[("QUICK", "perhaps")], "QUICK"),
        (&["--out", "/tmp/x"], &[], "unknown argument"),
        (&["--summarize", "x"], &[], "unknown argument"),
        (&[], &[("SINK_BENCH_CHILD", "nonsense")], "SINK_BENCH_CHILD"),
        (&[], &[("SINK_BENCH_FIRST", "nonsense")], "SINK_BENCH_FIRST"),
    ];
    for (args, env, want) in cases {
        let out = run(args, env);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}: {err}");
        assert!(err.contains(want), "{args:?} {env:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
        assert!(out.stdout.is_empty(), "nothing measured: {args:?} {env:?}");
    }
    measure::testing::assert_not_utf8_refused(BIN, "sink_bench");
}

#[test]
fn the_timing_functions_have_the_shape_the_seed_claims() {
    // Missing binutils fails the test: the shape cannot be taken on trust.
    let listings: Vec<_> = asm::FUNCTIONS
        .iter()
        .map(|f| measure::testing::function(BIN, f))
        .collect();
    let shapes: Vec<asm::Shape> = listings.iter().map(asm::analyse).collect();
    let listing = |v: usize| asm::listing(&listings[v]).join("\n");
    for (v, s) in shapes.iter().enumerate() {
        assert_eq!(
            s.clock_reads.len(),
            2,
            "two clock reads in every variant:\n{}",
            listing(v)
        );
        assert!(
            s.clock_target.contains("clock_gettime"),
            "the clock read is a call to clock_gettime, not {:?}",
            s.clock_target
        );
    }
    // (a): nothing between the two clock reads; no float add anywhere.
    let a = &shapes[0];
    assert_eq!(a.scalar_adds + a.packed_adds, 0, "{}", listing(0));
    assert_eq!(a.scalar_adds_between, 0);
    assert!(!a.loop_between);
    assert!(a.insns_between <= 12, "{}", listing(0));
    // (b) and (c): a loop of dependent scalar adds between the reads, no vector adds.
    for v in [1, 2] {
        let s = &shapes[v];
        assert!(
            s.loop_between,
            "no loop between the clock reads:\n{}",
            listing(v)
        );
        // x86-64 unrolls the chain by 8, AArch64 by 2.
        let unrolled = if cfg!(target_arch = "aarch64") { 2 } else { 4 };
        assert!(
            s.chain_run >= unrolled,
            "no chain of dependent adds:\n{}",
            listing(v)
        );
        assert_eq!(s.scalar_adds, s.scalar_adds_between, "every add is timed");
        assert_eq!(
            s.packed_adds,
            0,
            "the reduction was reassociated:\n{}",
            listing(v)
        );
    }
    // (c): the sum is stored through the caller's pointer before the second read.
    assert!(
        shapes[2].stores.iter().any(|st| !st.2),
        "no store through the out pointer:\n{}",
        listing(2)
    );
    // Every finding the program prints holds, and so its one-line verdict says so.
    for (v, s) in shapes.iter().enumerate() {
        for (ok, what) in asm::findings(v, s) {
            assert!(ok, "variant {v}: {what}");
        }
    }
    let check = asm::CodeCheck::of(Path::new(BIN));
    assert!(check.failures().is_empty());
    assert!(
        check.verdict().starts_with("as claimed"),
        "{}",
        check.verdict()
    );
    // The file run-all saves: the verdict, every function's listing and its findings.
    let text = asm::listing_text(Path::new(BIN), &check);
    assert!(text.contains("shape check: as claimed"), "{text}");
    for f in asm::FUNCTIONS {
        assert!(text.contains(&format!(": {f}\n")), "{f} missing:\n{text}");
    }
    assert!(
        text.contains("-> yes: ") && !text.contains("NOT AS CLAIMED"),
        "{text}"
    );
}

#[test]
fn a_failing_fresh_process_is_reported_and_fails_the_run() {
    let out = run(
        &["--reps", "10", "--runs", "10", "--settle-ms", "0"],
        &[("SINK_BENCH_TEST_CHILD_FAILS", "1")],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("fresh process 1 of 10 failed: it exited with status 3")
            && err.contains("failing on purpose"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
