//! Runs `clock_probe --quick` and checks what it printed (piped, every block; on a terminal,
//! the report), and checks in the built binary that the "discarded" sum really was deleted
//! while the "used" one kept its loop.

use measure::asm::{self, AsmError};
use measure::data;
use std::path::Path;
use std::sync::{Mutex, MutexGuard, OnceLock};

const BIN: &str = env!("CARGO_BIN_EXE_clock_probe");

/// One timed run at a time: two runs side by side would measure each other.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// One quick run shared by the tests that read its output (its report and its data).
fn quick_run() -> &'static (String, data::DataFile) {
    static RUN: OnceLock<(String, data::DataFile)> = OnceLock::new();
    RUN.get_or_init(|| {
        let _g = one_at_a_time();
        measure::testing::run_and_parse(BIN, &["--quick"])
    })
}

/// Each key figure is marked by the result it is read from: that result was recorded.
#[test]
fn every_key_figure_finds_the_result_it_is_read_from() {
    let sources = ::clock_probe::schema::KEY_SOURCES;
    measure::testing::check_key_sources(&quick_run().1, sources).unwrap();
}

#[test]
fn quick_run_parses_and_reports_every_section() {
    let (text, f) = quick_run();
    for block in [
        "clock_resolution",
        "clock_cost",
        "trap_one",
        "times_ten",
        "trap_two",
        "trap_three_samples",
        "trap_three_summary",
        "key_figures",
    ] {
        assert!(f.block(block).is_some(), "missing block {block}");
    }
    let res = f.block("clock_resolution").unwrap();
    // Three clocks asked, and on AArch64 the counter under them (CNTVCT_EL0).
    let asked = if cfg!(target_arch = "aarch64") { 4 } else { 3 };
    assert_eq!(res.rows.len(), asked, "{asked} clocks asked");
    // Reading the clock costs something, and the observed step is not below zero.
    let cost = f.block("clock_cost").unwrap().nums("median_ns").unwrap();
    assert!(cost.iter().all(|c| c.is_some_and(|c| c > 0.0)));
    assert!(f.meta_num("clock_min_step_ns").is_some_and(|s| s > 0.0));
    // Trap three: 51 samples in a quick run, and the summary is ordered.
    let samples = f.block("trap_three_samples").unwrap();
    assert_eq!(samples.rows.len(), 51);
    // Every timed row carries its rounds (a trap-three sample is one round); trap three has no
    // row in the disturbance block, since interruptions are what it shows.
    for (block, least) in [
        ("clock_cost", 21.0),
        ("trap_one", 11.0),
        ("times_ten", 11.0),
        ("trap_two", 3.0),
        ("trap_three_samples", 1.0),
    ] {
        let b = f.block(block).unwrap();
        let (r, d) = (
            b.nums("rounds").unwrap(),
            b.nums("disturbed_rounds").unwrap(),
        );
        for (r, d) in r.iter().zip(&d) {
            assert!(r.unwrap() >= least && d.unwrap() <= r.unwrap(), "{block}");
        }
    }
    assert_eq!(
        f.block("disturbance").unwrap().texts("result").unwrap(),
        ["clock_cost", "core_clock", "times_ten", "trap_two"]
    );
    let s = f.block("trap_three_summary").unwrap().nums("ns").unwrap();
    let (min, median, max) = (s[0].unwrap(), s[1].unwrap(), s[4].unwrap());
    assert!(min <= median && median <= max);
    // Trap two: first touch of fresh memory costs more than the second fill (page faults
    // are orders of magnitude dearer than a write to an attached page).
    let t2 = f.block("trap_two").unwrap().nums("median_ns").unwrap();
    assert!(t2[0].unwrap() > t2[1].unwrap());
    // Facts: every reported cache size carries a source.
    for (k, v) in &f.meta {
        let is_cache = k.starts_with('l') && k[1..].starts_with(|c: char| c.is_ascii_digit());
        if is_cache && k.ends_with("_size_bytes") && v != "unknown" {
            assert!(
                v.split_whitespace().nth(1).is_some(),
                "{k} has no source: {v}"
            );
        }
    }
    assert!(
        !text.contains("WARNING: built without full optimisation"),
        "the dev profile must be optimised"
    );
    let emulated = measure::fmt::yes_no(measure::emulation::emulated());
    assert_eq!(f.meta("emulated"), Some(emulated));
}

/// Issue 27: a run that knows it is emulated (forced here with `MM_EMULATED=1`) opens by
/// saying so, prints no verdict about speed (one line a section instead), and records
/// `#META emulated yes`; any other value of the override is refused like bad input.
#[test]
fn an_emulated_run_says_so_and_withholds_its_verdicts() {
    let _g = one_at_a_time();
    let run = |value: &str, args: &[&str]| {
        measure::testing::command(BIN)
            .args(args)
            .env("MM_EMULATED", value)
            .output()
            .expect("runs")
    };
    let out = run("1", &["--quick"]);
    assert!(out.status.success());
    let piped = String::from_utf8(out.stdout).unwrap();
    let text = measure::testing::assert_report_of(
        "clock_probe",
        &piped,
        &["== 6. trap three", "How to read this run:"],
    );
    assert!(text.lines().nth(1).is_some_and(|l| l
        .starts_with("emulated: times are not the machine's (MM_EMULATED=1)")));
    // Once a section: sections 1 to 6, the core clock's and the recap's.
    let withheld = text.matches("(emulated: no verdict about speed)").count();
    assert_eq!(withheld, 8, "{text}");
    let f = data::parse(&piped).unwrap();
    assert_eq!(f.meta("emulated"), Some("yes"));
    let out = run("maybe", &["--quick"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(
        err.trim_end(),
        "clock_probe: error: MM_EMULATED must be 1 (emulated) or 0 (not), not \"maybe\""
    );
    assert!(out.stdout.is_empty());
}

/// Issue 13 (2): the appendix's guard "multiply the input by ten": the used sum's time
/// follows its input (10N over N between 5 and 20), the discarded sum's does not.
#[test]
fn ten_times_the_input_takes_about_ten_times_as_long() {
    let (_, f) = quick_run();
    let b = f.block("times_ten").unwrap();
    let variant = b.texts("variant").unwrap();
    let n = b.nums("elements").unwrap();
    let t = b.nums("median_ns").unwrap();
    let at = |v: &str, big: bool| {
        let rows: Vec<usize> = (0..variant.len()).filter(|&i| variant[i] == v).collect();
        assert_eq!(rows.len(), 2, "{v}: N and 10N");
        let (a, z) = (rows[0], rows[1]);
        let ratio = n[z].unwrap() / n[a].unwrap();
        assert!((ratio - 10.0).abs() < 0.01, "the input grew {ratio}x");
        t[if big { z } else { a }].unwrap()
    };
    let used = at("used", true) / at("used", false);
    assert!((5.0..=20.0).contains(&used), "used 10N / N = {used}");
    assert!(
        at("discarded", true) < at("used", false),
        "the discarded sum ran"
    );
}

#[test]
fn the_report_reads_on_a_terminal() {
    let _g = one_at_a_time();
    let text = measure::testing::assert_report(
        BIN,
        &["--quick"],
        &[
            "== 1. this machine's numbers",
            "== 2. clock resolution",
            "== 3. the cost of reading the clock",
            "== core clock estimate (beyond the appendix) ==",
            "== 4. trap one",
            "== 5. trap two",
            "== 6. trap three",
        ],
    );
    if !measure::testing::says_emulated(&text) {
        assert!(text.matches("How to read this run:").count() >= 7, "{text}");
        assert!(text.contains("Ten times the input"));
    }
}

#[test]
fn bad_arguments_exit_2_without_a_backtrace() {
    measure::testing::assert_bad_input(BIN, "clock_probe", &["--bogus"]);
    measure::testing::assert_bad_input(BIN, "clock_probe", &["stray"]);
    measure::testing::assert_not_utf8_refused(BIN, "clock_probe");
}

/// Issue 22 (5): `clock_probe --quick | head -1` and `clock_probe --help | head -c0` end
/// quietly (SIGPIPE), not with a panic in `println!`.
#[test]
fn a_closed_pipe_ends_it_quietly() {
    measure::testing::assert_quiet_on_closed_pipe(BIN, &["--quick"], true);
    measure::testing::assert_quiet_on_closed_pipe(BIN, &["--help"], false);
}

#[test]
fn the_discarded_sum_was_deleted_and_the_used_one_kept() {
    let kept = match asm::disassemble(Path::new(BIN), "clock_probe_sum_kept") {
        Ok(f) => f,
        Err(AsmError::ToolMissing(t)) => {
            eprintln!("skipped: {t} is not installed, the shape was not checked");
            return;
        }
        Err(e) => panic!("the used sum must be in the binary: {e}"),
    };
    assert!(!kept.loops().is_empty(), "the used sum must keep its loop");
    // The discarded sum is either gone entirely (calls to it removed, then the function) or
    // reduced to a body with no loop.
    match asm::disassemble(Path::new(BIN), "clock_probe_sum_discarded") {
        Ok(f) => assert!(f.loops().is_empty(), "the discarded sum still loops"),
        Err(AsmError::NoSymbol(_)) => {}
        Err(e) => panic!("{e}"),
    }
}
