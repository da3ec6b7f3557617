//! `cargo xtask figures` as a user meets it: where the figures go, what a bad saved file
//! does (one line per failure naming the file, exit 2, the previous figures kept), values at
//! the ends of f64 drawn without hanging, and the same bytes twice.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

fn results(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../results")
        .join(name)
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xtask-fig-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// Runs xtask with a deadline; `None` if it had to be killed.
fn run(args: &[&str], deadline: Duration) -> Option<Output> {
    let mut child = Command::new(XTASK)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xtask starts");
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return Some(child.wait_with_output().expect("output"));
        }
        if start.elapsed() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn figures(from: &Path, out: &Path) -> Output {
    run(
        &[
            "figures",
            "--from",
            from.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        Duration::from_secs(120),
    )
    .expect("figures finished in time")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A copy of the reference run's saved outputs (the `.txt` files and appendix-c).
fn copy_reference(to: &Path) {
    fs::create_dir_all(to.join("appendix-c")).unwrap();
    for e in fs::read_dir(results("amd-epyc-zen4-2c")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "txt") {
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
    for e in fs::read_dir(results("amd-epyc-zen4-2c").join("appendix-c"))
        .unwrap()
        .flatten()
    {
        fs::copy(e.path(), to.join("appendix-c").join(e.file_name())).unwrap();
    }
}

fn svgs(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    v.sort();
    v
}

#[test]
fn from_without_out_is_refused_and_help_works() {
    let o = run(&["figures", "--from", "/tmp"], Duration::from_secs(30)).unwrap();
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("--out") && e.contains("book-figures"), "{e}");
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    let h = run(&["figures", "--help"], Duration::from_secs(30)).unwrap();
    assert!(h.status.success());
    assert!(String::from_utf8_lossy(&h.stdout).contains("--from DIR"));
}

#[test]
fn the_reference_run_draws_every_figure_twice_the_same() {
    let d = scratch("twice");
    let (a, b) = (d.join("a"), d.join("b"));
    for o in [&a, &b] {
        let out = figures(&results("amd-epyc-zen4-2c"), o);
        assert!(out.status.success(), "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("into {}", o.display())),
            "says where they went"
        );
    }
    let names = svgs(&a);
    assert!(names.len() >= 23, "{names:?}");
    for n in [
        "clock_probe-traps.svg",
        "branch-pipeline.svg",
        "false_sharing-lines.svg",
    ] {
        assert!(
            names.contains(&n.to_string()),
            "{n} (Figures 105.1, 105.4, 105.5)"
        );
    }
    for n in &names {
        let x = fs::read(a.join(n)).unwrap();
        assert_eq!(
            x,
            fs::read(b.join(n)).unwrap(),
            "{n}: same input, same bytes"
        );
        let text = String::from_utf8_lossy(&x);
        assert!(!text.contains("NaN"), "{n} has NaN");
    }
    // Nothing but the figures is left behind.
    assert!(
        fs::read_dir(&a)
            .unwrap()
            .flatten()
            .all(|e| e.file_name().to_string_lossy().ends_with(".svg"))
    );
    let _ = fs::remove_dir_all(&d);
}

/// `text` with the first value after `prefix` on the first line starting with it set to `v`.
fn with_value(text: &str, prefix: &str, v: &str) -> String {
    let mut done = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| match l.strip_prefix(prefix) {
            Some(rest) if !done => {
                done = true;
                let tail = rest.split_once(' ').map_or("", |(_, t)| t);
                format!("{prefix}{v} {tail}")
            }
            _ => l.to_string(),
        })
        .collect();
    lines.join("\n") + "\n"
}

#[test]
fn extreme_finite_values_on_log_axes_finish_quickly() {
    // The case from issue 16: 1e308 in cache_ladder's first row, and its friends.
    let d = scratch("extreme");
    let from = d.join("r");
    copy_reference(&from);
    let text = fs::read_to_string(from.join("cache_ladder.txt")).unwrap();
    for (i, v) in ["1e308", "5e-324", "1e-308", "-1e308", "0"]
        .iter()
        .enumerate()
    {
        let bad = with_value(&text, "#DATA 32 L1d ", v);
        assert_ne!(bad, text, "the row to change is in the reference run");
        fs::write(from.join("cache_ladder.txt"), bad).unwrap();
        let stride_text =
            fs::read_to_string(results("amd-epyc-zen4-2c").join("stride.txt")).unwrap();
        let stride = with_value(&stride_text, "#DATA 64 ", v);
        assert_ne!(
            stride, stride_text,
            "the stride row is in the reference run"
        );
        fs::write(from.join("stride.txt"), stride).unwrap();
        let out = d.join(format!("o{i}"));
        let o = run(
            &[
                "figures",
                "--from",
                from.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            Duration::from_secs(60),
        )
        .unwrap_or_else(|| panic!("figures hung on {v}"));
        assert!(o.status.success(), "{v}: {}", stderr(&o));
        assert!(!stderr(&o).contains("panicked"));
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn a_failing_drawer_keeps_its_previous_figures_and_names_the_file() {
    let d = scratch("keep");
    let from = d.join("r");
    copy_reference(&from);
    let out = d.join("figs");
    assert!(figures(&from, &out).status.success());
    let before = fs::read(out.join("stride-cost.svg")).unwrap();
    let lines_before = fs::read(out.join("stride-lines.svg")).unwrap();
    // stride's output loses its "layout" block: the file parses, the drawer cannot draw.
    let text = fs::read_to_string(from.join("stride.txt")).unwrap();
    let cut = text.replace("#DATA-BEGIN layout", "#DATA-BEGIN layout_renamed");
    fs::write(from.join("stride.txt"), cut).unwrap();
    // tlb_walk's output is malformed (a bad number on a known line).
    let tlb = fs::read_to_string(from.join("tlb_walk.txt")).unwrap();
    let line = tlb
        .lines()
        .position(|l| l.starts_with("#DATA 16 64 "))
        .unwrap()
        + 1;
    fs::write(
        from.join("tlb_walk.txt"),
        tlb.replacen("#DATA 16 64 ", "#DATA 16 six ", 1),
    )
    .unwrap();
    // Some other, unrelated file in the destination.
    fs::write(out.join("notes.md"), "mine").unwrap();

    let o = figures(&from, &out);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    let stride_line = e
        .lines()
        .find(|l| l.contains("stride.txt"))
        .unwrap_or_else(|| panic!("{e}"));
    assert!(
        stride_line.contains("\"layout\""),
        "names the missing block: {stride_line}"
    );
    let tlb_line = e
        .lines()
        .find(|l| l.contains("tlb_walk.txt"))
        .unwrap_or_else(|| panic!("{e}"));
    assert!(
        tlb_line.contains(&format!("line {line}")),
        "names the line: {tlb_line}"
    );
    assert!(!e.contains("panicked"));
    // The failed experiments' figures are the previous ones, byte for byte...
    assert_eq!(fs::read(out.join("stride-cost.svg")).unwrap(), before);
    assert_eq!(
        fs::read(out.join("stride-lines.svg")).unwrap(),
        lines_before
    );
    assert!(out.join("tlb_walk-pages.svg").is_file());
    // ...the others were drawn, and nothing else was touched.
    assert!(out.join("cache_ladder-latency.svg").is_file());
    assert_eq!(fs::read_to_string(out.join("notes.md")).unwrap(), "mine");
    assert!(
        !fs::read_dir(&out)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with(".tmp"))
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn a_figure_no_longer_drawn_is_removed_and_said() {
    let d = scratch("stale");
    let from = d.join("r");
    copy_reference(&from);
    let out = d.join("figs");
    assert!(figures(&from, &out).status.success());
    assert!(out.join("false_sharing-c2c.svg").is_file());
    // A later run without pinning has no core-to-core survey.
    let text = fs::read_to_string(from.join("false_sharing.txt")).unwrap();
    fs::write(
        from.join("false_sharing.txt"),
        text.replace("#META c2c_cores 0,1", "#META c2c_skipped unpinned"),
    )
    .unwrap();
    let o = figures(&from, &out);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!out.join("false_sharing-c2c.svg").exists());
    assert!(String::from_utf8_lossy(&o.stdout).contains("removed"));
    let _ = fs::remove_dir_all(&d);
}
