//! The marks of a busy machine where they are read (issue 21): summary.md, index.html, the
//! figures, compare; and `cargo xtask noise` with stand-in experiments. The saved files are
//! the reference run's, with a small synthetic `disturbance` block added, because runs saved
//! before the experiments recorded the evidence have none.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");
const LEGEND: &str =
    "hollow: provisional (disturbed rounds, a moved or low core share, or moved memory)";

fn xtask(args: &[&str], bins: &Path) -> Output {
    Command::new(XTASK)
        .args(args)
        .env("MM_XTASK_BINS", bins)
        .env(TAG, tag())
        .output()
        .expect("xtask runs")
}

/// `xtask args`, which must succeed (its stderr shown where it does not).
fn xtask_ok(args: &[&str], bins: &Path) -> Output {
    let out = xtask(args, bins);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// `xtask noise --quick --only clock_probe --out out`, then `extra`; it must succeed.
fn noise_of_clock_probe(out: &Path, extra: &[&str], bins: &Path) -> Output {
    let mut args = vec![
        "noise",
        "--quick",
        "--only",
        "clock_probe",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(extra);
    xtask_ok(&args, bins)
}

/// An environment variable every process xtask starts inherits, to find them afterwards.
const TAG: &str = "MM_XTASK_MARKS_TEST";

fn tag() -> String {
    format!("{TAG}={}", std::process::id())
}

/// The processes still running that this test's xtask started (the disturbers, say).
fn leftovers() -> Vec<String> {
    let mut out = Vec::new();
    for e in fs::read_dir("/proc").unwrap().flatten() {
        let env = fs::read(e.path().join("environ")).unwrap_or_default();
        if env.split(|&b| b == 0).any(|v| v == tag().as_bytes()) {
            let cmd = fs::read(e.path().join("cmdline")).unwrap_or_default();
            out.push(String::from_utf8_lossy(&cmd).replace('\0', " "));
        }
    }
    out
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xtask-marks-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn reference() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/amd-epyc-zen4-2c")
}

/// A stand-in experiment binary `name` in `bins` running the shell `body`.
fn stand_in(bins: &Path, name: &str, body: &str) {
    fs::create_dir_all(bins).unwrap();
    let p = bins.join(name);
    fs::write(
        &p,
        format!("#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n{body}\n"),
    )
    .unwrap();
    fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
}

/// A `disturbance` block: `(result, provisional, contended)` rows.
fn disturbance(rows: &[(&str, bool, bool)]) -> String {
    let yn = |b: bool| if b { "yes" } else { "no" };
    let mut s = "#DATA-BEGIN disturbance\n#COLUMNS result:text rounds disturbed_rounds lost_ms \
                 on_core_cores steal_share elsewhere_cores provisional:text contended:text\n"
        .to_string();
    for (r, p, c) in rows {
        let k = if *p { 9 } else { 0 };
        s.push_str(&format!(
            "#DATA {r} 31 {k} 4.5 0.5 0 0.3 {} {}\n",
            yn(*p),
            yn(*c)
        ));
    }
    let n = rows.iter().filter(|r| r.1).count();
    s + &format!(
        "#DATA-END\n#META provisional_results {n} of {}\n",
        rows.len()
    )
}

/// A copy of the reference run as `<dir>/lab`, and a stand-in cache_ladder that prints the
/// reference output with `extra` added; then `run-all --only cache_ladder` into it.
fn run_with(dir: &Path, extra: &str) -> PathBuf {
    let lab = dir.join("lab");
    fs::create_dir_all(lab.join("figures")).unwrap();
    for e in fs::read_dir(reference()).unwrap().flatten() {
        if e.path().is_file() {
            fs::copy(e.path(), lab.join(e.file_name())).unwrap();
        }
    }
    let text = fs::read_to_string(reference().join("cache_ladder.txt")).unwrap() + extra;
    let saved = dir.join("cache_ladder.out");
    fs::write(&saved, text).unwrap();
    let bins = dir.join("bins");
    stand_in(&bins, "cache_ladder", &format!("cat '{}'", saved.display()));
    let args = [
        "run-all",
        "--only",
        "cache_ladder",
        "--label",
        "lab",
        "--out",
    ];
    xtask_ok(&[&args[..], &[dir.to_str().unwrap()]].concat(), &bins);
    lab
}

/// The fields of one CSV line, with quoted fields (which may hold commas) unquoted.
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out
}

fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?}"))
}

#[test]
fn a_disturbed_result_is_marked_in_summary_index_figures_and_compare() {
    let d = scratch("disturbed");
    let lab = run_with(
        &d,
        &disturbance(&[("latency", true, true), ("knees", false, false)]),
    );
    let summary = fs::read_to_string(lab.join("summary.md")).unwrap();
    let row = line_with(&summary, "| `first_index_ns` |");
    assert!(
        row.contains("| provisional: ") && row.contains("(contention)"),
        "{row}"
    );
    assert!(summary.contains("**provisional: 1 of 2 results**; contention: 1"));
    let table = line_with(&summary, "| random access within L1 (index chase) |");
    assert!(table.contains("provisional: "), "{table}");
    // Other experiments' figures and rows, saved before any evidence, carry no mark.
    assert!(!line_with(&summary, "| `stride_1` |").contains("provisional"));
    assert!(line_with(&summary, "| stride | kept").contains("| not recorded |"));
    assert!(summary.contains("other cores were busy while it was measured"));
    let index = fs::read_to_string(lab.join("index.html")).unwrap();
    assert!(
        index.contains("provisional: "),
        "index.html carries the mark"
    );
    let fig = fs::read_to_string(lab.join("figures/cache_ladder-latency.svg")).unwrap();
    assert!(
        fig.contains(LEGEND),
        "the figure's legend names the hollow points"
    );
    let stride = fs::read_to_string(lab.join("figures/stride-cost.svg")).unwrap();
    assert!(!stride.contains(LEGEND));

    let cmp = d.join("cmp");
    let out = Command::new(XTASK)
        .args([
            "compare",
            lab.to_str().unwrap(),
            reference().to_str().unwrap(),
        ])
        .args(["--out", cmp.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = fs::read_to_string(cmp.join("compare.csv")).unwrap();
    assert!(csv.contains("lab,cache_ladder,latency,4,index_ns,"));
    let lat = line_with(&csv, "lab,cache_ladder,latency,4,index_ns,");
    assert!(lat.ends_with(",yes"), "{lat}");
    let kf = line_with(&csv, "lab,cache_ladder,key_figures,first_index_ns,value,");
    assert!(kf.ends_with(",yes"), "{kf}");
    let old = line_with(&csv, "amd-epyc-zen4-2c,cache_ladder,latency,4,index_ns,");
    assert!(
        old.ends_with(','),
        "no evidence recorded: empty, not provisional: {old}"
    );
    let md = fs::read_to_string(cmp.join("compare.md")).unwrap();
    assert!(line_with(&md, "[`first_index_ns`] |").contains("provisional: "));
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn a_quiet_run_prints_no_mark() {
    let d = scratch("quiet");
    let lab = run_with(
        &d,
        &disturbance(&[("latency", false, false), ("knees", false, false)]),
    );
    let summary = fs::read_to_string(lab.join("summary.md")).unwrap();
    assert!(!summary.contains("provisional:") && !summary.contains("(contention)"));
    assert!(line_with(&summary, "| cache_ladder | ok").contains("| none of 2 results |"));
    let index = fs::read_to_string(lab.join("index.html")).unwrap();
    assert!(!index.contains("provisional:"));
    let fig = fs::read_to_string(lab.join("figures/cache_ladder-latency.svg")).unwrap();
    assert!(!fig.contains(LEGEND));
    let _ = fs::remove_dir_all(&d);
}

/// A stand-in clock_probe that looks for its sibling `xtask noise-busy` (a child of the same
/// xtask): beside it, it reports 2 ns and a provisional result; otherwise 1 ns and a clean one.
const SEES_THE_BUSY_LOOP: &str = r##"busy=no
for d in /proc/[0-9]*; do
  c=$(tr '\0' ' ' < "$d/cmdline" 2>/dev/null)
  case "$c" in *noise-busy*)
    p=$(sed 's/.*) //' "$d/stat" 2>/dev/null | cut -d' ' -f2)
    [ "$p" = "$PPID" ] && busy=yes;;
  esac
done
v=1; [ $busy = yes ] && v=2
echo '#DATA-BEGIN key_figures'; echo '#COLUMNS figure:text value unit:text'
echo "#DATA clock_read $v ns"; echo '#DATA-END'
echo '#DATA-BEGIN disturbance'
cols='result:text rounds disturbed_rounds lost_ms on_core_cores steal_share'
echo "#COLUMNS $cols elsewhere_cores provisional:text contended:text"
echo "#DATA clock_cost 21 9 1 0.5 0 0 $busy no"; echo '#DATA-END'"##;

#[test]
fn noise_runs_four_ways_and_reports_what_moved_and_what_was_marked() {
    let d = scratch("noise");
    let bins = d.join("bins");
    stand_in(&bins, "clock_probe", SEES_THE_BUSY_LOOP);
    let out_dir = d.join("out");
    let out = noise_of_clock_probe(&out_dir, &[], &bins);
    let err = String::from_utf8_lossy(&out.stderr);
    let md = fs::read_to_string(out_dir.join("noise.md")).unwrap();
    let csv = fs::read_to_string(out_dir.join("noise.csv")).unwrap();
    assert!(
        md.contains("quiet: no mark on any of 1 key figures."),
        "{md}"
    );
    assert!(
        md.contains("beside the busy loop on the same core: 0 of 1 key figures within 10%")
            && md.contains("of the 1 that moved more, 1 were marked"),
        "{md}"
    );
    assert!(
        md.contains("| clock_probe | 1 of 1 | 0 of 0 | 0 of 1 | 1 of 1 |"),
        "{md}"
    );
    let row = line_with(&csv, "clock_probe,clock_read,ns,");
    assert!(
        row.starts_with("clock_probe,clock_read,ns,1,no,2,2,provisional,"),
        "{row}"
    );
    assert!(out_dir.join("noise/busy/clock_probe.txt").is_file());
    assert_eq!(
        leftovers(),
        Vec::<String>::new(),
        "every disturber was stopped"
    );
    // --saved writes the same files again from the saved runs, running nothing (the stand-in
    // is gone: a run would fail).
    fs::remove_file(bins.join("clock_probe")).unwrap();
    fs::remove_file(out_dir.join("noise.md")).unwrap();
    noise_of_clock_probe(&out_dir, &["--saved"], &bins);
    assert_eq!(fs::read_to_string(out_dir.join("noise.md")).unwrap(), md);
    assert_eq!(fs::read_to_string(out_dir.join("noise.csv")).unwrap(), csv);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus > 1 {
        assert!(
            row.ends_with(",1,1,no,1,1,no,1"),
            "the streamer is not the busy loop, and the second quiet run is quiet: {row}"
        );
    } else {
        assert_eq!(
            err.lines()
                .filter(|l| l.contains("memory streamer: skipped"))
                .count(),
            1
        );
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn noise_refuses_an_unknown_experiment() {
    let d = scratch("noise-bad");
    let out = xtask(
        &["noise", "--only", "nope", "--out", d.to_str().unwrap()],
        &d,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("no experiment named"));
    assert!(!d.join("noise.md").exists());
    let _ = fs::remove_dir_all(&d);
}

/// The real clock_probe, quick, four ways: when its binary is built beside xtask's (a
/// `cargo build` of the workspace) and the machine has two CPUs; otherwise one line says why
/// not. It takes about two seconds. clock_probe's quiet quick run must carry no mark.
#[test]
fn noise_on_the_real_clock_probe() {
    let bins = Path::new(XTASK).parent().unwrap().to_path_buf();
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 || !bins.join("clock_probe").is_file() {
        println!("skipped: needs two CPUs and a built clock_probe beside xtask (cargo build)");
        return;
    }
    let d = scratch("noise-real");
    noise_of_clock_probe(&d, &[], &bins);
    assert_eq!(
        leftovers(),
        Vec::<String>::new(),
        "every disturber was stopped"
    );
    let csv = fs::read_to_string(d.join("noise.csv")).unwrap();
    let row = csv_fields(line_with(&csv, "clock_probe,clock_read,ns,"));
    for i in [3, 5, 8] {
        assert!(
            row[i].parse::<f64>().is_ok_and(|v| v > 0.0),
            "a value each way: {row:?}"
        );
    }
    // Beside a busy loop on its own core, every round waits for the core: always marked.
    assert!(row[7].contains("provisional"), "busy: marked: {row:?}");
    // Every figure the busy loop moved by more than 10% is marked where it is read.
    for line in csv.lines().skip(1) {
        let f = csv_fields(line);
        if f[6].parse::<f64>().is_ok_and(|r| !(0.9..=1.1).contains(&r)) {
            assert!(f[7].contains("provisional"), "moved, so marked: {f:?}");
        }
    }
    // Quiet: no mark unless that run's own evidence says so (a test binary running beside it
    // on a shared machine may disturb it; a mark without evidence may never appear).
    let quiet = fs::read_to_string(d.join("noise/quiet/clock_probe.txt")).unwrap();
    if quiet
        .lines()
        .any(|l| l.starts_with("#META provisional_results 0 of"))
    {
        assert!(!row[4].contains("provisional"), "quiet: no mark: {row:?}");
    }
    let _ = fs::remove_dir_all(&d);
}
