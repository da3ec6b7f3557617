//! The robustness suite: hostile but fair input to xtask. Every case asserts the exit status,
//! the one-line message, and where files existed before, that they are byte-identical after.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

fn xtask(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(XTASK);
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("xtask runs")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xtask-robust-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// Exit 2, exactly one line on stderr, containing `needle`, no panic.
fn one_line_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{needle:?} in {err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut m = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                m.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                );
            }
        }
    }
    m
}

fn reference() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/amd-epyc-zen4-2c")
}

/// A folder of stand-in experiment binaries: every experiment prints a tiny valid output,
/// except those in `failing`, which crash.
fn fake_bins(dir: &Path, failing: &[&str]) -> PathBuf {
    let bins = dir.join("bins");
    fs::create_dir_all(&bins).unwrap();
    for exp in [
        "clock_probe",
        "cache_ladder",
        "stride",
        "tlb_walk",
        "branch",
        "fp_cost",
        "false_sharing",
        "sink_bench",
        "env_scan",
    ] {
        let body = if failing.contains(&exp) {
            "echo 'half a report'; kill -SEGV $$".to_string()
        } else {
            format!(
                "echo '== {exp} =='; echo '#META quick yes'; echo '#DATA-BEGIN key_figures'; \
                 echo '#COLUMNS figure:text value unit:text'; echo '#DATA fake 1.5 ns'; \
                 echo '#DATA-END'"
            )
        };
        let p = bins.join(exp);
        fs::write(
            &p,
            format!("#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n{body}\n"),
        )
        .unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    }
    bins
}

/// `run-all --quick --only <only> --label lab --out <dir>` with the stand-in binaries `bins`.
fn quick_run(dir: &Path, only: &str, bins: &Path) -> Output {
    xtask(
        &[
            "run-all",
            "--quick",
            "--only",
            only,
            "--label",
            "lab",
            "--out",
            dir.to_str().unwrap(),
        ],
        &[("MM_XTASK_BINS", bins)],
    )
}

/// A copy of the reference run (the raw outputs and figures) as `<dir>/lab`.
fn copy_reference(dir: &Path) -> PathBuf {
    let lab = dir.join("lab");
    fs::create_dir_all(lab.join("figures")).unwrap();
    for e in fs::read_dir(reference()).unwrap().flatten() {
        if e.path().is_file() {
            fs::copy(e.path(), lab.join(e.file_name())).unwrap();
        }
    }
    for e in fs::read_dir(reference().join("figures")).unwrap().flatten() {
        fs::copy(e.path(), lab.join("figures").join(e.file_name())).unwrap();
    }
    lab
}

#[test]
fn appendix_c_label_cannot_escape_out() {
    let d = scratch("label");
    let seed = d.join("seed.txt");
    fs::write(
        &seed,
        "examples-en/apx-measured/stride/stride.c\nint main(void){return 0;}\nOutput\n",
    )
    .unwrap();
    let out = d.join("a/b/c");
    for label in ["../../escaped", "/abs/olute", ".hidden", "a/b"] {
        let o = xtask(
            &[
                "appendix-c",
                "--seed",
                seed.to_str().unwrap(),
                "--label",
                label,
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        one_line_error(&o, "--label");
    }
    assert!(!d.join("a").exists(), "nothing was written");
}

#[test]
fn appendix_c_with_an_empty_seed_writes_nothing() {
    let d = scratch("empty-seed");
    let out = d.join("out");
    let o = xtask(
        &[
            "appendix-c",
            "--seed",
            "/dev/null",
            "--label",
            "x",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    one_line_error(&o, "no listing");
    assert!(!out.exists(), "no empty folder is left behind");
}

#[test]
fn figures_from_a_scratch_run_never_replace_the_book_figures() {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../book-figures");
    let before = snapshot(&book);
    let o = xtask(&["figures", "--from", reference().to_str().unwrap()], &[]);
    one_line_error(&o, "--from needs --out");
    assert_eq!(snapshot(&book), before);
}

#[test]
fn help_on_every_subcommand() {
    for sub in [
        "run-all",
        "figures",
        "compare",
        "appendix-c",
        "verify",
        "handouts",
    ] {
        let o = xtask(&[sub, "--help"], &[]);
        assert_eq!(o.status.code(), Some(0), "{sub}");
        assert!(String::from_utf8_lossy(&o.stdout).contains(sub), "{sub}");
    }
}

#[test]
fn verify_refuses_a_missing_binary_and_a_tiny_n() {
    one_line_error(
        &xtask(&["verify", "--bin", "/nonexistent"], &[]),
        "no such file",
    );
    one_line_error(&xtask(&["verify", "--n", "1"], &[]), "between 1000");
    one_line_error(
        &xtask(&["verify", "--n", "99999999999"], &[]),
        "between 1000",
    );
}

#[test]
fn no_command_is_one_line() {
    one_line_error(&xtask(&[], &[]), "no command given");
}

#[test]
fn junk_is_not_echoed_whole() {
    let junk = "x".repeat(100_000);
    let o = xtask(&["run-all", &junk], &[]);
    one_line_error(&o, "characters");
    assert!(o.stderr.len() < 300, "{} bytes", o.stderr.len());
}

#[test]
fn only_rerun_keeps_foreign_files_and_completes_the_summary() {
    let d = scratch("only");
    let lab = copy_reference(&d);
    fs::write(lab.join("notes.md"), "a teacher's notes").unwrap();
    fs::create_dir_all(lab.join("extra")).unwrap();
    fs::write(lab.join("extra/x.txt"), "x").unwrap();
    let bins = fake_bins(&d, &[]);
    let o = quick_run(&d, "stride", &bins);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        fs::read_to_string(lab.join("notes.md")).unwrap(),
        "a teacher's notes"
    );
    assert_eq!(fs::read_to_string(lab.join("extra/x.txt")).unwrap(), "x");
    let summary = fs::read_to_string(lab.join("summary.md")).unwrap();
    assert!(
        summary.contains("A rerun of part of the folder, in quick (smoke) mode,"),
        "{summary}"
    );
    assert!(
        summary.contains("1 of 10 experiments ran now (stride)"),
        "{summary}"
    );
    assert!(
        summary.contains("; 9 row(s) kept from earlier runs, each with its own date and commit."),
        "{summary}"
    );
    // The terminal gets a short recap, not the summary: no `#` line, within 100 columns.
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.lines()
            .all(|l| l.chars().count() <= 100 && !l.starts_with('#')),
        "{out}"
    );
    assert!(
        out.contains("run-all (quick): 1 of 10 experiments ran"),
        "{out}"
    );
    assert!(out.contains("index.html"), "{out}");
    // Kept rows carry their key figures, read back from the saved outputs.
    assert!(
        summary.contains("| cache_ladder | kept from an earlier run |"),
        "{summary}"
    );
    assert!(
        summary.contains("| clock_probe | clock_read |"),
        "{summary}"
    );
    assert!(summary.contains("mixes quick and full"), "{summary}");
    let figs = fs::read_dir(lab.join("figures")).unwrap().count();
    assert!(figs >= 20, "figures kept: {figs}");
    assert!(
        fs::read_dir(&d)
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().starts_with('.')),
        "no temporary folder left"
    );
}

#[test]
fn a_crashing_rerun_keeps_the_previous_output_and_figures() {
    let d = scratch("crash");
    let lab = copy_reference(&d);
    let before = snapshot(&lab);
    let bins = fake_bins(&d, &["stride"]);
    let o = quick_run(&d, "stride", &bins);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let after = snapshot(&lab);
    for (p, bytes) in &before {
        let name = p.to_string_lossy();
        if name == "summary.md" || name == "index.html" {
            // Rewritten by every run: the summary says what happened now.
            continue;
        }
        if name.starts_with("figures/") {
            // Redrawn from the same saved data with the current drawers: present, not lost.
            assert!(after.contains_key(p), "{name} vanished");
            continue;
        }
        assert_eq!(after.get(p), Some(bytes), "{name} changed or vanished");
    }
    assert!(lab.join("stride.failed.txt").is_file());
    let summary = fs::read_to_string(lab.join("summary.md")).unwrap();
    assert!(
        summary.contains("previous output kept (stale)"),
        "{summary}"
    );
}

#[test]
fn stale_temporary_folders_are_cleaned() {
    let d = scratch("stale");
    fs::create_dir_all(d.join(".tmp-lab-999999999/junk")).unwrap();
    let bins = fake_bins(&d, &[]);
    let o = quick_run(&d, "clock_probe", &bins);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!d.join(".tmp-lab-999999999").exists());
}

#[test]
fn a_fresh_folder_says_not_run_and_claims_nothing_kept() {
    let d = scratch("fresh-only");
    let bins = fake_bins(&d, &[]);
    let o = quick_run(&d, "stride", &bins);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = fs::read_to_string(d.join("lab").join("summary.md")).unwrap();
    assert!(summary.contains("; 9 row(s) not run."), "{summary}");
    assert!(!summary.contains("kept from earlier runs"), "{summary}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.lines()
            .all(|l| l.chars().count() <= 100 && !l.starts_with('#')),
        "{out}"
    );
    let _ = fs::remove_dir_all(&d);
}
