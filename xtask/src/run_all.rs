//! `cargo xtask run-all`: build once, run every experiment as its own process, one at a time,
//! save the raw output, check every `#DATA` block, write CSV and a summary, draw the figures.
//!
//! Everything is written into a temporary folder beside the destination and moved into place
//! at the end, so an interrupted run leaves the previous results untouched.

use crate::{EXPERIMENTS, fail, figures, options, root};
use measure::data::{self, DataFile};
use measure::facts::{MachineFacts, load_average};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// What happened to one experiment.
struct Outcome {
    name: String,
    status: String,
    ok: bool,
    wall_s: f64,
    key_figures: Vec<(String, Option<f64>, String)>,
    notes: Vec<String>,
}

/// A label from the CPU model and core count: "amd-epyc-2c".
pub fn default_label(f: &MachineFacts) -> String {
    let model = f.cpu_model.clone().unwrap_or_else(|| f.arch.to_string());
    let mut slug = String::new();
    for w in model
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let w = w.to_ascii_lowercase();
        if matches!(
            w.as_str(),
            "processor" | "cpu" | "with" | "radeon" | "graphics" | "r" | "tm" | "core"
        ) || w.ends_with("ghz")
        {
            continue;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(&w);
        if slug.len() > 30 {
            break;
        }
    }
    format!("{slug}-{}c", f.logical_cores.unwrap_or(0))
}

fn valid_label(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

pub fn main(args: &[String]) -> i32 {
    let mut quick = false;
    let mut only: Option<Vec<String>> = None;
    let mut label: Option<String> = None;
    let mut out: Option<PathBuf> = None;
    for (k, v) in options(args, &["--only", "--label", "--out"], &["--quick"]) {
        match (k.as_str(), v) {
            ("--quick", _) => quick = true,
            ("--only", Some(v)) => {
                only = Some(
                    v.split(',')
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty())
                        .collect(),
                )
            }
            ("--label", Some(v)) => label = Some(v),
            ("--out", Some(v)) => out = Some(PathBuf::from(v)),
            _ => unreachable!("options() only returns the names it was given"),
        }
    }
    let chosen: Vec<&str> = match &only {
        None => EXPERIMENTS.to_vec(),
        Some(list) => {
            if list.is_empty() {
                fail("--only names no experiment");
            }
            for n in list {
                if !EXPERIMENTS.contains(&n.as_str()) {
                    fail(&format!(
                        "--only: no experiment named {n:?} (known: {})",
                        EXPERIMENTS.join(", ")
                    ));
                }
            }
            EXPERIMENTS
                .iter()
                .copied()
                .filter(|e| list.iter().any(|n| n == e))
                .collect()
        }
    };
    let facts = MachineFacts::read();
    let label = label.unwrap_or_else(|| default_label(&facts));
    if !valid_label(&label) {
        fail(&format!(
            "--label {label:?}: use letters, digits, '-', '_' and '.'"
        ));
    }
    // A quick run is a smoke test: it never replaces reference results unless told where to go.
    let out = out.unwrap_or_else(|| {
        if quick {
            std::env::temp_dir().join("machine-measured-quick")
        } else {
            root().join("results")
        }
    });
    if let Err(e) = fs::create_dir_all(&out) {
        fail(&format!("--out {}: cannot create: {e}", out.display()));
    }
    let tmp = out.join(format!(".tmp-{label}-{}", std::process::id()));
    if let Err(e) = fs::create_dir_all(&tmp) {
        fail(&format!("--out {}: not writable: {e}", out.display()));
    }
    let dest = out.join(&label);

    // Build once: every experiment binary, optimised by the workspace profile.
    eprintln!("run-all: building the experiments once ...");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let st = Command::new(&cargo)
        .args(["build", "--workspace", "--bins", "--quiet"])
        .current_dir(root())
        .status();
    if !matches!(st, Ok(s) if s.success()) {
        let _ = fs::remove_dir_all(&tmp);
        eprintln!("run-all: error: the build failed; nothing was run and no result was changed");
        return 1;
    }
    let bin_dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| root().join("target/debug"));

    // One core for every single-threaded experiment: the highest allowed one (core 0 takes
    // more interrupts). The experiments pin themselves to it and print whether that held;
    // run-all itself stays unpinned so multi-threaded experiments can use every core.
    let core = measure::pin::allowed_cores().last().copied();
    let load_before = load_average();
    if let Some([l1, _, _]) = load_before
        && l1 > 1.0
    {
        {
            eprintln!(
                "run-all: warning: the 1-minute load average is {l1:.2} (above 1): other work is running, and the measurements will include it"
            );
        }
    }
    let started = Instant::now();
    let mut outcomes = Vec::new();
    let n = chosen.len();
    for (i, exp) in chosen.iter().enumerate() {
        eprintln!(
            "[{}/{n}] {exp} ... (elapsed {:.0} s)",
            i + 1,
            started.elapsed().as_secs_f64()
        );
        let mut o = run_one(&bin_dir, exp, quick, core, &tmp);
        if *exp == "branch" && o.ok {
            verify_branch(&bin_dir, &tmp, &mut o);
        }
        eprintln!("[{}/{n}] {exp}: {} in {:.1} s", i + 1, o.status, o.wall_s);
        outcomes.push(o);
    }
    let load_after = load_average();

    // Keep the previous results of experiments not rerun (--only), so the folder stays whole.
    let mut kept = Vec::new();
    if dest.is_dir()
        && let Ok(rd) = fs::read_dir(&dest)
    {
        {
            for e in rd.flatten() {
                let p = e.path();
                let fname = e.file_name().to_string_lossy().to_string();
                let exp = fname.split('.').next().unwrap_or("").to_string();
                if !EXPERIMENTS.contains(&exp.as_str())
                    || chosen.contains(&exp.as_str())
                    || !p.is_file()
                {
                    continue;
                }
                if fs::copy(&p, tmp.join(&fname)).is_ok() && fname == format!("{exp}.txt") {
                    kept.push(exp);
                }
            }
        }
    }
    kept.sort();
    // The appendix's C programs' outputs (cargo xtask appendix-c) are not rerun by run-all.
    let c_dir = dest.join("appendix-c");
    if c_dir.is_dir() {
        let _ = fs::create_dir_all(tmp.join("appendix-c"));
        for e in fs::read_dir(&c_dir).into_iter().flatten().flatten() {
            let _ = fs::copy(e.path(), tmp.join("appendix-c").join(e.file_name()));
        }
    }

    // Figures for this machine, from the files now in the folder.
    let fig_dir = tmp.join("figures");
    let fig_note = match figures::draw_all(&tmp, &fig_dir, Some(&label)) {
        Ok(f) => format!("{} figures in figures/", f.len()),
        Err(e) => format!("figures failed: {e}"),
    };
    let summary = summary_md(
        &label,
        quick,
        &facts,
        load_before,
        load_after,
        &outcomes,
        &kept,
        &fig_note,
    );
    if let Err(e) = fs::write(tmp.join("summary.md"), &summary) {
        fail(&format!("cannot write summary.md: {e}"));
    }

    // Move into place: the old folder aside, the new one in, the old one removed.
    let old = out.join(format!(".old-{label}-{}", std::process::id()));
    if dest.exists()
        && let Err(e) = fs::rename(&dest, &old)
    {
        {
            fail(&format!(
                "cannot move the previous {} aside: {e}; new results left in {}",
                dest.display(),
                tmp.display()
            ));
        }
    }
    if let Err(e) = fs::rename(&tmp, &dest) {
        let _ = fs::rename(&old, &dest);
        fail(&format!("cannot move results into {}: {e}", dest.display()));
    }
    let _ = fs::remove_dir_all(&old);
    // A full sink_bench run into the repository's own results refreshes the summary its lab
    // handout carries (between its marker lines) and writes sink_bench.summary.md beside it.
    let sink_ok = outcomes.iter().any(|o| o.name == "sink_bench" && o.ok);
    if !quick && sink_ok && out == root().join("results") {
        let st = Command::new(bin_dir.join("sink_bench"))
            .arg("--summarize")
            .arg(dest.join("sink_bench.txt"))
            .arg("--update-readme")
            .stdout(Stdio::null())
            .status();
        if !matches!(st, Ok(s) if s.success()) {
            eprintln!("run-all: warning: could not refresh sink_bench's README summary");
        }
    }
    print!("{summary}");
    eprintln!("run-all: results in {}", dest.display());
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|o| !o.ok)
        .map(|o| o.name.as_str())
        .collect();
    if failed.is_empty() && !fig_note.starts_with("figures failed") {
        0
    } else {
        eprintln!(
            "run-all: failed: {}",
            if failed.is_empty() {
                fig_note.clone()
            } else {
                failed.join(", ")
            }
        );
        1
    }
}

fn run_one(bin_dir: &Path, exp: &str, quick: bool, core: Option<usize>, tmp: &Path) -> Outcome {
    let bin = bin_dir.join(exp);
    let mut o = Outcome {
        name: exp.into(),
        status: String::new(),
        ok: false,
        wall_s: 0.0,
        key_figures: Vec::new(),
        notes: Vec::new(),
    };
    // The first execution of a freshly built binary pays for loading it: run it once, discarded.
    let _ = Command::new(&bin)
        .arg("--help")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let mut cmd = Command::new(&bin);
    if quick {
        cmd.arg("--quick");
    }
    if let Some(c) = core {
        cmd.env("MM_CORE", c.to_string());
    }
    let t0 = Instant::now();
    let res = cmd.stdin(Stdio::null()).output();
    o.wall_s = t0.elapsed().as_secs_f64();
    let output = match res {
        Ok(out) => out,
        Err(e) => {
            o.status = format!("failed to start: {e}");
            return o;
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let _ = fs::write(tmp.join(format!("{exp}.txt")), &stdout);
    if !output.stderr.is_empty() {
        let _ = fs::write(tmp.join(format!("{exp}.stderr.txt")), &output.stderr);
    }
    let parsed = match data::parse(&stdout) {
        Ok(p) => Some(p),
        Err(e) => {
            o.notes.push(format!("malformed #DATA output: {e}"));
            None
        }
    };
    if let Some(p) = &parsed {
        write_csvs(exp, p, tmp, &mut o.notes);
        o.key_figures = crate::compare::key_figures(Some(p));
    }
    match (output.status.code(), &parsed) {
        (Some(0), Some(_)) => {
            o.ok = true;
            o.status = "ok".into();
        }
        (Some(0), None) => o.status = "failed (malformed output)".into(),
        (Some(c), _) => o.status = format!("failed (exit status {c})"),
        (None, _) => o.status = "crashed (killed by a signal)".into(),
    }
    o
}

/// After a good branch run: the clock-free check of what branch measured (`cargo xtask
/// verify`, callgrind's branch simulator), saved as `branch.verify.txt`. A missing valgrind
/// is a note, not a failure; a simulation that contradicts the experiment fails the run.
fn verify_branch(bin_dir: &Path, tmp: &Path, o: &mut Outcome) {
    let Ok(me) = std::env::current_exe() else {
        return;
    };
    let res = Command::new(me)
        .args(["verify", "--bin"])
        .arg(bin_dir.join("branch"))
        .stdin(Stdio::null())
        .output();
    match res {
        Ok(out) => {
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            let _ = fs::write(tmp.join("branch.verify.txt"), &text);
            if text.contains("valgrind not found") {
                o.notes
                    .push("verify: valgrind not found, the branch simulation was skipped".into());
            } else if out.status.success() {
                o.notes.push(
                    "verify: callgrind's branch simulation agrees (branch.verify.txt)".into(),
                );
            } else {
                o.ok = false;
                o.status =
                    "failed (the branch simulation contradicts it: branch.verify.txt)".into();
            }
        }
        Err(e) => o.notes.push(format!("verify: could not start: {e}")),
    }
}

fn write_csvs(exp: &str, f: &DataFile, dir: &Path, notes: &mut Vec<String>) {
    let mut bare = 0;
    for b in &f.blocks {
        let name = match &b.name {
            Some(n) => n.clone(),
            None => {
                bare += 1;
                format!("block{bare}")
            }
        };
        let p = dir.join(format!("{exp}.{name}.csv"));
        if let Err(e) = fs::write(&p, b.to_csv()) {
            notes.push(format!("cannot write {}: {e}", p.display()));
        }
    }
}

fn fmt_load(l: Option<[f64; 3]>) -> String {
    l.map_or("unknown".into(), |[a, b, c]| {
        format!("{a:.2} {b:.2} {c:.2}")
    })
}

/// Today's date and time in UTC, from the system clock (no time-zone database needed).
fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

#[allow(clippy::too_many_arguments)]
fn summary_md(
    label: &str,
    quick: bool,
    facts: &MachineFacts,
    before: Option<[f64; 3]>,
    after: Option<[f64; 3]>,
    outcomes: &[Outcome],
    kept: &[String],
    fig_note: &str,
) -> String {
    let mut s = String::new();
    let commit = Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(root())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    let _ = writeln!(s, "# machine-measured results: {label}\n");
    let _ = writeln!(
        s,
        "{} run of {}, commit {}. Raw output per experiment in `<experiment>.txt`, every `#DATA` block as `<experiment>.<block>.csv`, figures in `figures/`.\n",
        if quick { "A quick (smoke)" } else { "A full" },
        utc_now(),
        commit.as_deref().unwrap_or("unknown")
    );
    let _ = writeln!(s, "## Machine\n\n```");
    for l in facts.describe() {
        let _ = writeln!(s, "{l}");
    }
    let _ = writeln!(s, "```\n\n## Conditions\n");
    let _ = writeln!(
        s,
        "- load average before: {} (1, 5, 15 minutes)",
        fmt_load(before)
    );
    let _ = writeln!(s, "- load average after:  {}", fmt_load(after));
    for (when, l) in [("before", before), ("after", after)] {
        if let Some([a, _, _]) = l
            && a > 1.0
        {
            {
                let _ = writeln!(
                    s,
                    "- **warning**: the 1-minute load {when} the run was {a:.2}, above 1: the measurements include other work"
                );
            }
        }
    }
    let _ = writeln!(
        s,
        "\n## Experiments\n\n| experiment | status | wall time | key figures |\n|---|---|---:|---|"
    );
    for o in outcomes {
        let figs: Vec<String> = o
            .key_figures
            .iter()
            .map(|(n, v, u)| match v {
                Some(v) => format!("{n} {} {u}", crate::compare::sig4(*v)),
                None => format!("{n} not measured"),
            })
            .collect();
        let _ = writeln!(
            s,
            "| {} | {} | {:.1} s | {} |",
            o.name,
            o.status,
            o.wall_s,
            figs.join("; ")
        );
    }
    for k in kept {
        let _ = writeln!(
            s,
            "| {k} | kept from the previous run (not rerun) | - | see {k}.txt |"
        );
    }
    let notes: Vec<String> = outcomes
        .iter()
        .flat_map(|o| o.notes.iter().map(move |n| format!("- {}: {n}", o.name)))
        .collect();
    let _ = writeln!(s, "\nFigures: {fig_note}.");
    if !notes.is_empty() {
        let _ = writeln!(s, "\n## Notes\n\n{}", notes.join("\n"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels() {
        let mut f = MachineFacts::read();
        f.cpu_model = Some("AMD EPYC 9R14 96-Core Processor".into());
        f.logical_cores = Some(2);
        assert_eq!(default_label(&f), "amd-epyc-9r14-96-2c");
        f.cpu_model = Some("AMD EPYC".into());
        assert_eq!(default_label(&f), "amd-epyc-2c");
        assert!(valid_label("amd-epyc-2c"));
        assert!(!valid_label("../x"));
        assert!(!valid_label(".hidden"));
    }

    /// A fake experiment: a shell script standing in for a binary.
    fn fake(dir: &Path, name: &str, body: &str) {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(name);
        fs::write(
            &p,
            format!("#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n{body}\n"),
        )
        .unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn failures_crashes_and_malformed_output_are_recorded_not_fatal() {
        let d = std::env::temp_dir().join(format!("run-one-{}", std::process::id()));
        let (bins, out) = (d.join("bin"), d.join("out"));
        fs::create_dir_all(&bins).unwrap();
        fs::create_dir_all(&out).unwrap();
        fake(
            &bins,
            "good",
            "echo '#DATA-BEGIN key_figures'; echo '#COLUMNS figure:text value unit:text'; echo '#DATA x 1.5 ns'; echo '#DATA-END'",
        );
        fake(&bins, "exits", "echo partial; exit 3");
        fake(&bins, "crashes", "kill -SEGV $$");
        fake(&bins, "garbled", "echo '#DATA-BEGIN a'; echo '#DATA 1'");
        let good = run_one(&bins, "good", true, None, &out);
        assert!(good.ok, "{}", good.status);
        assert_eq!(
            good.key_figures,
            vec![("x".to_string(), Some(1.5), "ns".to_string())]
        );
        assert!(out.join("good.key_figures.csv").is_file());
        let e = run_one(&bins, "exits", true, None, &out);
        assert!(!e.ok && e.status.contains("exit status 3"), "{}", e.status);
        assert_eq!(
            fs::read_to_string(out.join("exits.txt")).unwrap(),
            "partial\n"
        );
        let c = run_one(&bins, "crashes", true, None, &out);
        assert!(!c.ok && c.status.contains("signal"), "{}", c.status);
        let g = run_one(&bins, "garbled", true, None, &out);
        assert!(!g.ok && g.status.contains("malformed"), "{}", g.status);
        assert!(
            g.notes.iter().any(|n| n.contains("line 2")),
            "{:?}",
            g.notes
        );
        let m = run_one(&bins, "missing", true, None, &out);
        assert!(
            !m.ok && m.status.contains("failed to start"),
            "{}",
            m.status
        );
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn utc_date_shape() {
        let d = utc_now();
        assert_eq!(d.len(), "2026-11-29 23:59 UTC".len());
        assert!(d.starts_with("20"));
    }
}
