//! Runs `sink_bench` as a reader would (a quick run, bad input, `--summarize`) and checks in
//! the built binary that the three timing functions have the shape the seed claims.

use measure::data;
use sink_bench::asm;
use sink_bench::kernel::PASS_SUM;
use sink_bench::report::{self, Entry};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_sink_bench");

/// A scratch folder of this test's own, removed first if left over.
fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("sink_bench-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn run(args: &[&str], env: &[(&str, &str)], tmp: &Path) -> Output {
    let mut c = Command::new(BIN);
    c.args(args).env("TMPDIR", tmp);
    for v in [
        "QUICK",
        "REPS",
        "RUNS",
        "SETTLE_MS",
        "SINK_BENCH_INNER",
        "SINK_BENCH_CHILD",
    ] {
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

#[test]
fn quick_run_saves_parses_and_summarises() {
    let tmp = scratch("quick");
    // QUICK=1, the seed's way of asking for a smoke run.
    let out = run(&[], &[("QUICK", "1"), ("SETTLE_MS", "20")], &tmp);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    let text = String::from_utf8(out.stdout).unwrap();
    let f = data::parse(&text).unwrap_or_else(|e| panic!("output does not parse: {e}"));
    assert_eq!(f.meta("quick"), Some("yes"), "QUICK=1 is a quick run");
    assert_eq!(f.meta_num("runs"), Some(10.0));
    assert!(!text.contains("WARNING: built without full optimisation"));

    // It wrote its files under ${TMPDIR}, and the raw file is exactly what it printed.
    let dir = tmp.join("sink_bench-quick");
    let raw = std::fs::read_to_string(dir.join("sink_bench.txt")).unwrap();
    assert_eq!(raw, text);
    let summary = std::fs::read_to_string(dir.join("sink_bench.summary.md")).unwrap();
    assert!(
        summary.contains("| (b) sum passed to black_box | 10 |"),
        "{summary}"
    );
    assert!(
        summary.contains("| cold pass, fresh processes | 10 |"),
        "{summary}"
    );

    // Part 1: the checksum is right, and the discarded variant costs nothing next to the loop.
    let expected = 10.0 * f64::from(PASS_SUM);
    assert_eq!(f.meta_num("checksum"), Some(expected));
    assert!(
        text.contains(
            "checksum 9175040.0 over 10 passes, expected 9175040.0 (917504.0 per pass): ok"
        )
    );
    let med = |col: &str| measure::stats::median(&nums(&f, "part1_passes", col)).unwrap();
    assert_eq!(nums(&f, "part1_passes", "sink_ns").len(), 10);
    assert!(
        med("discarded_ns") * 100.0 < med("sink_ns"),
        "the dead loop was removed: {} ns against {} ns",
        med("discarded_ns"),
        med("sink_ns")
    );
    // The two ways of consuming the sum run the same loop: within a factor of 1.5.
    let r = med("checksum_ns") / med("sink_ns");
    assert!((1.0 / 1.5..1.5).contains(&r), "(c)/(b) = {r}");

    // Parts 2 and 3: ten passes in one process, ten fresh processes, one cold shot.
    assert_eq!(nums(&f, "warm_in_process", "ns").len(), 10);
    assert_eq!(nums(&f, "fresh_processes", "warm_ns").len(), 10);
    assert_eq!(nums(&f, "cold_in_process", "ns").len(), 1);
    // The cold pass takes the page faults of a fresh mapping; the warm pass takes fewer.
    let cold_faults = nums(&f, "fresh_processes", "cold_faults");
    let warm_faults = nums(&f, "fresh_processes", "warm_faults");
    for (c, w) in cold_faults.iter().zip(&warm_faults) {
        assert!(c > w, "cold pass {c} faults, warm pass {w}");
    }
    assert!(nums(&f, "cold_in_process", "faults")[0] > 0.0);

    // The RESULT lines hold every series and a computed conclusion for each part.
    let entries = report::parse_results(&text).unwrap();
    let series: Vec<&str> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Series { key, .. } => Some(key.as_str()),
            _ => None,
        })
        .collect();
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
    let conclusions = entries
        .iter()
        .filter(|e| matches!(e, Entry::Conclusion(_)))
        .count();
    assert!(conclusions >= 7, "{conclusions} conclusions");
    for key in ["load_before", "load_after", "clock", "checksum", "code"] {
        assert!(
            entries
                .iter()
                .any(|e| matches!(e, Entry::Note { key: k, .. } if k == key)),
            "no note {key}"
        );
    }
    // The listing of the three functions is in the output, as human text.
    for sym in asm::FUNCTIONS {
        assert!(text.contains(&format!("<{sym}>:")), "no listing of {sym}");
    }

    // --summarize rebuilds the summary from a copy of the saved output, measuring nothing.
    let again = scratch("summarize");
    std::fs::write(again.join("sink_bench.txt"), &raw).unwrap();
    let s = run(
        &[
            "--summarize",
            again.join("sink_bench.txt").to_str().unwrap(),
        ],
        &[],
        &tmp,
    );
    assert!(s.status.success(), "{}", String::from_utf8_lossy(&s.stderr));
    let rebuilt = std::fs::read_to_string(again.join("sink_bench.summary.md")).unwrap();
    assert_eq!(rebuilt, summary);
    // A quick run never goes into the README.
    let readme = std::fs::read_to_string(sink_bench::save::readme_path()).unwrap();
    let refused = run(
        &[
            "--summarize",
            again.join("sink_bench.txt").to_str().unwrap(),
            "--update-readme",
        ],
        &[],
        &tmp,
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is a quick run"));
    assert_eq!(
        std::fs::read_to_string(sink_bench::save::readme_path()).unwrap(),
        readme
    );
    let _ = std::fs::remove_dir_all(&again);
    let _ = std::fs::remove_dir_all(&tmp);
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    let tmp = scratch("bad");
    /// Arguments, environment, and what the one line on stderr must say.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 8] = [
        (&["--bogus"], &[], "unknown argument"),
        (&["--reps", "5"], &[], "below 10"),
        (&[], &[("RUNS", "3")], "RUNS=3 is below 10"),
        (&[], &[("REPS", "lots")], "whole number"),
        (&[], &[("QUICK", "perhaps")], "QUICK"),
        (&["--quick", "--update-readme"], &[], "refuses a quick run"),
        (
            &["--summarize", "/nonexistent/sink_bench.txt"],
            &[],
            "cannot read",
        ),
        (&[], &[("SINK_BENCH_CHILD", "nonsense")], "SINK_BENCH_CHILD"),
    ];
    for (args, env, want) in cases {
        let out = run(args, env, &tmp);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?} {env:?}: {err}");
        assert!(err.contains(want), "{args:?} {env:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
    // A refused quick run wrote nothing.
    assert!(!tmp.join("sink_bench-quick").exists());
    let _ = std::fs::remove_dir_all(&tmp);
}

fn tools_present() -> bool {
    ["nm", "objdump"]
        .iter()
        .all(|t| Command::new(t).arg("--version").output().is_ok())
}

#[test]
fn the_timing_functions_have_the_shape_the_seed_claims() {
    if !tools_present() {
        eprintln!("nm or objdump not installed: shape check skipped");
        return;
    }
    let listings = asm::disassemble(Path::new(BIN)).unwrap();
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
        assert!(
            s.chain_run >= 4,
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
    // Every finding the program prints holds.
    for (v, s) in shapes.iter().enumerate() {
        for (ok, what) in asm::findings(v, s) {
            assert!(ok, "variant {v}: {what}");
        }
    }
}

#[test]
fn a_failing_fresh_process_is_reported_and_fails_the_run() {
    let tmp = scratch("child");
    let out = run(
        &["--reps", "10", "--runs", "10", "--settle-ms", "0"],
        &[("SINK_BENCH_TEST_CHILD_FAILS", "1")],
        &tmp,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("the first (discarded) fresh process failed: it exited with status 3")
            && err.contains("failing on purpose"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let _ = std::fs::remove_dir_all(&tmp);
}
