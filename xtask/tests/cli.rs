//! Bad input to xtask gets one clear line and exit status 2, and destroys nothing;
//! figures are deterministic.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

fn xtask(args: &[&str]) -> Output {
    Command::new(XTASK).args(args).output().expect("xtask runs")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xtask-test-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny")
}

fn assert_clean_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert!(
        err.contains(needle),
        "stderr should mention {needle:?}: {err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
        "{err}"
    );
}

#[test]
fn unknown_command_and_flags() {
    assert_clean_error(&xtask(&["frobnicate"]), "unknown command");
    assert_clean_error(&xtask(&["run-all", "--fast"]), "unknown argument");
    assert_clean_error(&xtask(&["run-all", "--label"]), "needs a value");
    assert_clean_error(&xtask(&["run-all", "--quick=yes"]), "takes no value");
    assert_clean_error(&xtask(&["figures", "--bogus", "x"]), "unknown argument");
}

#[test]
fn only_naming_a_missing_experiment() {
    assert_clean_error(
        &xtask(&["run-all", "--only", "clock_probe,warp_drive"]),
        "warp_drive",
    );
    assert_clean_error(&xtask(&["run-all", "--only", ","]), "names no experiment");
}

#[test]
fn bad_label_is_refused() {
    assert_clean_error(&xtask(&["run-all", "--label", "../escape"]), "--label");
}

#[test]
fn unwritable_out_is_refused() {
    let d = scratch("unwritable");
    let file = d.join("a-file");
    fs::write(&file, "not a folder").unwrap();
    let out = file.join("results");
    assert_clean_error(
        &xtask(&["run-all", "--quick", "--out", out.to_str().unwrap()]),
        "--out",
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "not a folder");
}

#[test]
fn malformed_saved_output_is_refused_and_nothing_is_lost() {
    let d = scratch("malformed");
    let from = d.join("results");
    fs::create_dir_all(&from).unwrap();
    fs::write(
        from.join("clock_probe.txt"),
        "== x ==\n#DATA-BEGIN trap_three_samples\n#COLUMNS round ns\n#DATA 1 abc\n#DATA-END\n",
    )
    .unwrap();
    let out = d.join("figs");
    fs::create_dir_all(&out).unwrap();
    fs::write(out.join("keep.svg"), "<svg/>").unwrap();
    let o = xtask(&[
        "figures",
        "--from",
        from.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_clean_error(&o, "line 4");
    assert_clean_error(&o, "clock_probe.txt");
    assert_eq!(fs::read_to_string(out.join("keep.svg")).unwrap(), "<svg/>");
}

#[test]
fn missing_results_folder_is_refused() {
    let d = scratch("missing-from");
    assert_clean_error(
        &xtask(&[
            "figures",
            "--from",
            "/nonexistent/results/x",
            "--out",
            d.join("figs").to_str().unwrap(),
        ]),
        "cannot read results folder",
    );
}

#[test]
fn figures_are_deterministic() {
    let d = scratch("determinism");
    let (a, b) = (d.join("a"), d.join("b"));
    for o in [&a, &b] {
        let out = xtask(&[
            "figures",
            "--from",
            fixture().to_str().unwrap(),
            "--out",
            o.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let fa = fs::read(a.join("clock_probe-trap3.svg")).expect("figure drawn");
    let fb = fs::read(b.join("clock_probe-trap3.svg")).unwrap();
    assert!(fa.starts_with(b"<svg"));
    assert_eq!(fa, fb, "same input must give the same bytes");
}

#[test]
fn appendix_c_without_the_seed_is_refused() {
    assert_clean_error(
        &xtask(&["appendix-c", "--seed", "/nonexistent/appendix.txt"]),
        "cannot read the appendix text",
    );
}

#[test]
fn compare_needs_two_folders() {
    // The rest of compare is tested in compare.rs.
    assert_clean_error(&xtask(&["compare", "only-one"]), "two results folders");
}

#[test]
fn handout_numbers_come_from_the_reference_run() {
    // Every "What to expect" section and instructor note is rendered from the committed
    // reference run; a typed or stale number makes this fail (run `cargo xtask handouts`).
    let out = xtask(&["handouts", "--check"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
