//! Issue 27: `run-all` does not save an emulated run (an output saying `#META emulated yes`)
//! as a results folder unless it is given a label on purpose; and `cross-test` says in one
//! line what is missing, and skips.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xtask-emulated-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// A stand-in clock_probe that prints a tiny valid output, said to be emulated.
fn emulated_bins(dir: &Path) -> PathBuf {
    let bins = dir.join("bins");
    fs::create_dir_all(&bins).unwrap();
    let p = bins.join("clock_probe");
    fs::write(
        &p,
        "#!/bin/sh\n[ \"$1\" = --help ] && exit 0\necho '== clock_probe =='\n\
         echo '#META quick yes'\necho '#META emulated yes'\necho '#DATA-BEGIN key_figures'\n\
         echo '#COLUMNS figure:text value unit:text'\necho '#DATA fake 1.5 ns'\n\
         echo '#DATA-END'\n",
    )
    .unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    bins
}

fn run_all(dir: &Path, bins: &Path, label: Option<&str>) -> Output {
    let mut c = Command::new(XTASK);
    c.args(["run-all", "--quick", "--only", "clock_probe", "--out"])
        .arg(dir)
        .env("MM_XTASK_BINS", bins);
    if let Some(l) = label {
        c.args(["--label", l]);
    }
    c.output().expect("xtask runs")
}

/// The folders in `dir` other than `bins`.
fn saved(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "bins")
        .collect();
    v.sort();
    v
}

#[test]
fn an_emulated_run_is_saved_only_under_a_label_given_on_purpose() {
    let dir = scratch("label");
    let bins = emulated_bins(&dir);
    let out = run_all(&dir, &bins, None);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let last = err.trim_end().lines().last().unwrap_or("");
    assert!(
        last.starts_with("xtask: error: clock_probe ran emulated (#META emulated yes)")
            && last.contains("--label NAME"),
        "{err}"
    );
    assert_eq!(
        err.lines().filter(|l| l.contains("error")).count(),
        1,
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(saved(&dir).is_empty(), "saved: {:?}", saved(&dir));
    // With a label, it is saved under that name.
    let out = run_all(&dir, &bins, Some("qemu-smoke"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(saved(&dir), ["qemu-smoke"]);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn cross_test_says_in_one_line_what_is_missing_and_skips() {
    // A machine with none of the four: an empty PATH, and no rustc to ask for the library.
    let dir = scratch("missing");
    let out = Command::new(XTASK)
        .arg("cross-test")
        .env("PATH", &dir)
        .env("RUSTC", dir.join("rustc"))
        .output()
        .expect("xtask runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "skipped is not a failure");
    assert_eq!(text.trim_end().lines().count(), 1, "{text}");
    assert!(text.starts_with("cross-test: skipped: missing "), "{text}");
    for how in [
        "rustup target add aarch64-unknown-linux-gnu",
        "apt-get install gcc-aarch64-linux-gnu",
        "apt-get install qemu-user",
        "apt-get install binutils-aarch64-linux-gnu",
    ] {
        assert!(text.contains(how), "{how}: {text}");
    }
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let _ = fs::remove_dir_all(&dir);
}
