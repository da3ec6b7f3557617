//! Runs the built experiment and reads what it prints.

const BIN: &str = env!("CARGO_BIN_EXE_branch");

/// One quick run shared by the tests that read its output (its report and its data).
fn quick() -> &'static (String, measure::data::DataFile) {
    static RUN: std::sync::OnceLock<(String, measure::data::DataFile)> = std::sync::OnceLock::new();
    RUN.get_or_init(|| measure::testing::run_and_parse(BIN, &["--quick"]))
}

/// Each key figure is marked by the result it is read from: that result was recorded.
#[test]
fn every_key_figure_finds_the_result_it_is_read_from() {
    let sources = ::branch::schema::KEY_SOURCES;
    measure::testing::check_key_sources(&quick().1, sources).unwrap();
}

#[test]
fn a_quick_run_prints_every_block_with_sane_numbers() {
    let f = &quick().1;
    let shape = f.block("shape").unwrap();
    assert_eq!(
        shape.texts("symbol").unwrap(),
        ["branch_as_written", "branch_real", "branch_branchless"]
    );
    let v = f.block("variants").unwrap();
    assert_eq!(v.rows.len(), 3);
    for col in ["random_ns", "sorted_ns", "random_over_sorted"] {
        for x in v.nums(col).unwrap() {
            let x = x.unwrap();
            assert!(x > 0.0 && x.is_finite(), "{col} = {x}");
        }
    }
    // min <= median <= max for every reported figure.
    for (lo, mid, hi) in [
        ("random_min_ns", "random_ns", "random_max_ns"),
        ("sorted_min_ns", "sorted_ns", "sorted_max_ns"),
    ] {
        let (a, b, c) = (
            v.nums(lo).unwrap(),
            v.nums(mid).unwrap(),
            v.nums(hi).unwrap(),
        );
        for i in 0..3 {
            assert!(a[i] <= b[i] && b[i] <= c[i]);
        }
    }
    let p = f.block("patterns").unwrap();
    assert_eq!(p.nums("period").unwrap(), [1., 2., 4., 16., 0.].map(Some));
    let share = p.nums("taken_share").unwrap();
    assert_eq!(share[0], Some(1.0));
    assert_eq!(share[3], Some(1.0 / 16.0));
    assert!((share[4].unwrap() - 0.5).abs() < 0.01);
    let m = f.block("mispredict").unwrap();
    assert!((m.nums("miss_rate").unwrap()[0].unwrap() - 0.5).abs() < 0.01);
    // Every timed row carries its rounds: at least the 21 clean ones asked of a quick run, for
    // each of the row's cases (random and sorted; one pattern).
    let mut timed = vec![("variants", 42.0), ("mispredict", 42.0), ("patterns", 21.0)];
    if cfg!(target_arch = "x86_64") {
        timed.push(("same_source", 42.0));
    }
    for (block, least) in timed {
        let b = f.block(block).unwrap();
        let (r, d) = (
            b.nums("rounds").unwrap(),
            b.nums("disturbed_rounds").unwrap(),
        );
        for (r, d) in r.iter().zip(&d) {
            assert!(r.unwrap() >= least && d.unwrap() <= r.unwrap(), "{block}");
        }
    }
    let d = f.block("disturbance").unwrap();
    let results = d.texts("result").unwrap();
    if cfg!(target_arch = "x86_64") {
        assert_eq!(
            results,
            ["variants", "same_source", "mispredict", "patterns"]
        );
        // Section 2b's two builds: the compiler's conditional move, and the forced branch.
        let b = f.block("same_source").unwrap();
        assert_eq!(b.texts("shape").unwrap(), ["cmov", "branch"]);
    } else {
        assert_eq!(results, ["variants", "mispredict", "patterns"]);
    }
    assert!(f.meta("clock_ghz_estimate").is_some());
    assert!(f.block("key_figures").is_some());
}

#[test]
fn the_valgrind_kernel_mode_runs_only_the_kernel() {
    for order in ["random", "sorted"] {
        let out = measure::testing::command(BIN)
            .args(["--valgrind-kernel", order, "--n", "1000"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert_eq!(text.lines().count(), 1, "{text}");
        assert!(text.starts_with(&format!("branch_real over 1000 {order} values")));
        let (got, want) = text.trim().split_once(", expected ").unwrap();
        assert!(got.ends_with(want), "{text}");
    }
}

#[test]
fn the_report_reads_top_to_bottom_within_100_columns() {
    let text = measure::testing::assert_report_of(
        "branch",
        &quick().0,
        &[
            "== 1. before measuring: is there still a branch? (this binary, read back) ==",
            "== 2. the same data, the same computation, only the order differs ==",
            "== 3. the cost of one misprediction (derived from the real branch) ==",
            "== 4. how regular must it be to be predicted? (the real branch, by pattern) ==",
        ],
    );
    // Each section ends with its reading.
    assert_eq!(text.matches("how to read this run:").count(), 5, "{text}");
    assert!(
        text.contains("2b. the same source, built two ways"),
        "{text}"
    );
    // About 111 lines on a quiet machine; each of the five readings can open with a
    // provisional mark of two or three lines (122 in a quick run beside a busy loop).
    measure::testing::assert_report_length(&text, 120, 135);
}

#[test]
fn bad_arguments_get_one_line_and_exit_2() {
    for args in [
        &["--valgrind-kernel", "shuffled"][..],
        &["--rounds", "x"],
        &["--rounds", "1"],
        &["--rounds", "1002"],
        &["--bogus"],
        &["--n", "5"],
        &["--valgrind-kernel", "random", "--n", "99999999999"],
        &["--valgrind-kernel", "random", "--n", "16777217"],
    ] {
        measure::testing::assert_bad_input(BIN, "branch", args);
    }
    measure::testing::assert_not_utf8_refused(BIN, "branch");
}

#[test]
fn too_little_memory_is_one_line_and_exit_2_not_an_abort() {
    // 64 MiB of values do not fit in 50 MB of address space.
    let Some(e) = measure::testing::assert_bad_input_within(
        BIN,
        "branch",
        &["--valgrind-kernel", "random", "--n", "16777216"],
        50_000,
    ) else {
        return;
    };
    assert!(e.contains("not enough memory"), "{e}");
    // Nor do the experiment's five arrays of 16 MiB in 60 MB: refused before anything runs.
    let e = measure::testing::assert_bad_input_within(BIN, "branch", &["--quick"], 60_000)
        .expect("no runner");
    assert!(
        e.contains("not enough memory") && e.contains("ulimit -v"),
        "{e}"
    );
}
