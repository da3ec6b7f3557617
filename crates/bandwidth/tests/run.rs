//! Runs the built binary with `--quick` and checks what it prints: the report keeps the
//! report rules, every `#DATA` block parses with the shape the figure needs, and one robust
//! physical fact holds (reading a working set that fits the first-level cache is more than
//! twice as fast as reading the largest one). Where a boundary falls, how threads scale and
//! what a loaded chase costs are not asserted: on a shared machine they move from run to run.

use measure::data::{Block, DataFile};
use std::sync::OnceLock;

const BIN: &str = env!("CARGO_BIN_EXE_bandwidth");

/// One quick run shared by the tests that read its output (its report and its data).
fn quick_run() -> &'static (String, DataFile) {
    static OUT: OnceLock<(String, DataFile)> = OnceLock::new();
    OUT.get_or_init(|| measure::testing::run_and_parse(BIN, &["--quick"]))
}

fn quick() -> &'static DataFile {
    &quick_run().1
}

fn block(name: &str) -> &'static Block {
    quick()
        .block(name)
        .unwrap_or_else(|| panic!("no #DATA block {name}"))
}

/// The rows of the `bandwidth` block for one kernel: (KiB, median, min, max GB/s).
fn curve(kernel: &str) -> Vec<(f64, f64, f64, f64)> {
    let b = block("bandwidth");
    let names = b.texts("kernel").unwrap();
    let n = |c: &str| b.nums(c).unwrap();
    let (kib, g, lo, hi) = (n("kib"), n("gbs"), n("gbs_min"), n("gbs_max"));
    (0..names.len())
        .filter(|&i| names[i] == kernel)
        .map(|i| {
            (
                kib[i].unwrap(),
                g[i].unwrap(),
                lo[i].unwrap(),
                hi[i].unwrap(),
            )
        })
        .collect()
}

#[test]
fn the_quick_report_keeps_the_report_rules() {
    let text = measure::testing::assert_report_of(
        "bandwidth",
        &quick_run().0,
        &[
            "== 1. the kernels",
            "== 2. bandwidth by working set",
            "== 3. boundaries",
            "== 4. non-temporal stores",
            "== 5. all cores",
            "== 6. latency under load",
            "== 7. verdicts",
            "L1 limit",
            "wall time",
        ],
    );
    // A disturbed run's readings carry their marks (a "provisional:" clause and a "contention:"
    // sentence each, up to seven readings): they may add lines, a quiet run's report may not.
    measure::testing::assert_report_length(&text, 120, 160);
    // Every section ends with what to read from it (not in an emulated run: no verdicts).
    if !measure::testing::says_emulated(&text) {
        assert!(text.matches("\n  * ").count() >= 7, "{text}");
    }
}

#[test]
fn every_kernel_has_every_size_with_ordered_spread() {
    let kernels = block("kernels").texts("kernel").unwrap();
    for want in [
        "read_plain",
        "read_explicit",
        "write_plain",
        "write_explicit",
        "copy_plain",
        "copy_explicit",
    ] {
        assert!(kernels.iter().any(|k| k == want), "{kernels:?}");
    }
    if cfg!(target_arch = "x86_64") {
        assert!(kernels.iter().any(|k| k == "write_stream"));
        assert!(kernels.iter().any(|k| k == "copy_stream"));
        let nt = block("kernels").texts("non_temporal").unwrap();
        for (k, n) in kernels.iter().zip(&nt) {
            assert_eq!(n == "yes", k.ends_with("_stream"), "{k}: non_temporal {n}");
        }
    }
    let first = curve("read_plain");
    assert_eq!(first[0].0, 4.0, "the smallest working set is 4 KiB");
    assert!(first.windows(2).all(|w| w[1].0 > w[0].0), "sizes ascend");
    for k in &kernels {
        let c = curve(k);
        assert_eq!(c.len(), first.len(), "{k}: one row per size");
        for (kib, g, lo, hi) in c {
            assert!(
                lo <= g && g <= hi && lo > 0.0,
                "{k} at {kib} KiB: {lo} {g} {hi}"
            );
        }
    }
    let wh = block("bandwidth").texts("where").unwrap();
    assert!(wh.iter().all(|w| !w.is_empty()));
    let st = block("bandwidth").texts("stable").unwrap();
    assert!(st.iter().all(|s| s == "yes" || s == "no"));
}

#[test]
fn reading_the_first_level_cache_is_over_twice_as_fast_as_the_largest_set() {
    if measure::testing::emulated("L1 against the largest set") {
        return;
    }
    // The explicit read: the best of the sizes up to 16 KiB (inside every L1d there is)
    // against the largest working set, which is beyond the last-level cache.
    let c = curve("read_explicit");
    let l1 = c
        .iter()
        .filter(|p| p.0 <= 16.0)
        .map(|p| p.1)
        .fold(0.0, f64::max);
    let largest = c.last().unwrap().1;
    assert!(
        l1 > 2.0 * largest,
        "{l1} GB/s in L1, {largest} GB/s at the largest set"
    );
}

/// Each key figure is marked by the result it is read from: that result was recorded.
#[test]
fn every_key_figure_finds_the_result_it_is_read_from() {
    let sources = ::bandwidth::schema::KEY_SOURCES;
    measure::testing::check_key_sources(quick(), sources).unwrap();
}

#[test]
fn the_other_blocks_are_there_and_consistent() {
    let f = quick();
    assert_eq!(f.meta("experiment"), Some("bandwidth"));
    assert!(f.meta("clock_ghz_estimate").is_some());
    assert!(f.meta("l1_limit_source").is_some());
    assert!(f.block("boundaries").is_some(), "printed even when empty");
    let t = block("threads");
    let status = t.texts("status").unwrap();
    assert_eq!(status[0], "measured", "one thread is always measured");
    let threads = t.nums("threads").unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get()) as f64;
    for (n, s) in threads.iter().zip(&status) {
        // A row that needs more cores than there are is skipped, never faked.
        if n.unwrap() > cores {
            assert_eq!(s, "skipped");
        }
    }
    match f.block("loaded_latency") {
        Some(l) => {
            let states = l.texts("state").unwrap();
            assert!(states.iter().any(|s| s == "idle") && states.iter().any(|s| s == "loaded"));
            assert!(l.nums("ns").unwrap().iter().all(|v| v.unwrap() > 0.0));
        }
        None => assert_eq!(f.meta("loaded_latency"), Some("skipped")),
    }
    let levels = block("levels").texts("level").unwrap();
    assert!(!levels.is_empty());
    let kf = block("key_figures").texts("figure").unwrap();
    for want in [
        "l1_over_memory_read",
        "all_cores_over_one",
        "loaded_over_idle",
    ] {
        assert!(kf.iter().any(|k| k == want), "{kf:?}");
    }
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    for args in [
        &["--max", "1K"][..],
        &["--max", "lots"],
        &["--max", "1000000G"],
        &["--max", "1024G", "--quick"],
        &["--threads", "0"],
        &["--threads", "5000"],
        &["--threads", "x"],
        &["--bogus"],
        &["--quick", "--quick=1"],
    ] {
        measure::testing::assert_bad_input(BIN, "bandwidth", args);
    }
}
