//! `cargo xtask lab`: the lab exercises under `labs/`.
//!
//! - `list`: every exercise with its target, read from its README.
//! - `check NAME [--solution FILE]`: builds the exercise optimised (with FILE in place of
//!   its `src/solution.rs` when given: the build script copies it, the student's file is
//!   never written), runs its binary, which checks correctness and times the baseline
//!   against the solution in interleaved rounds, judges the `#DATA` it prints
//!   ([`judge`]), prints one screen and saves the run as `labs-results/<student>/NAME.txt`.
//! - `gather DIR...`: a class's saved results as one table ([`gather`]).

mod gather;
pub mod judge;

use crate::error::{Result, bad, failed};
use crate::flags::{Lab, LabCheck};
use crate::project::root;
use judge::{Judgement, Verdict};
use measure::fmt::field;
use std::path::{Path, PathBuf};
use std::process::Command;

/// `cargo xtask lab ...`.
pub fn command(o: &Lab) -> Result<()> {
    match o {
        Lab::List => list(),
        Lab::Check(c) => check(c),
        Lab::Gather(dirs) => gather::command(dirs),
    }
}

/// The exercises: every folder under `labs/` with a README.md, but the shared `labkit`.
pub fn exercises() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("labs"))
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.path().join("README.md").is_file() && e.file_name() != "labkit")
                .filter_map(|e| e.file_name().into_string().ok())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// The README's title after "Lab: " and its target ("**3.0x**"), for `lab list`.
fn title_and_target(name: &str) -> (String, String) {
    let text = std::fs::read_to_string(root().join("labs").join(name).join("README.md"))
        .unwrap_or_default();
    let title = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# Lab: "))
        .unwrap_or(name)
        .to_string();
    let target = text
        .split("**")
        .find(|w| w.ends_with('x') && w[..w.len() - 1].parse::<f64>().is_ok())
        .unwrap_or("?")
        .to_string();
    (title, target)
}

fn list() -> Result<()> {
    let names = exercises();
    println!(
        "{} lab exercises (labs/NAME/README.md has the task):\n",
        names.len()
    );
    println!("  {:<14} {:<7} what", "name", "target");
    for n in &names {
        let (title, target) = title_and_target(n);
        println!("  {n:<14} {target:<7} {title}");
    }
    println!("\ncheck one with: cargo xtask lab check NAME [--solution FILE]");
    Ok(())
}

/// Whose results these are: `--student`, else the host's name; bad input unless it is a safe
/// folder name.
fn student(given: Option<&str>) -> Result<String> {
    let who = given.map_or_else(host_name, str::to_string);
    if crate::project::valid_label(&who) {
        Ok(who)
    } else {
        Err(bad(format!(
            "--student {}: use letters, digits, '-', '_' and '.' (one folder name)",
            measure::cli::echo(&who)
        )))
    }
}

/// This machine's host name (`/proc/sys/kernel/hostname`), or "host".
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "host".into())
}

fn check(c: &LabCheck) -> Result<()> {
    let names = exercises();
    if !names.contains(&c.name) {
        return Err(bad(format!(
            "no lab exercise {} (exercises: {})",
            measure::cli::echo(&c.name),
            names.join(", ")
        )));
    }
    let who = student(c.student.as_deref())?;
    let solution = match &c.solution {
        Some(p) => Some(
            std::fs::canonicalize(p)
                .ok()
                .filter(|p| p.is_file())
                .ok_or_else(|| bad(format!("--solution {}: no such file", p.display())))?,
        ),
        None => None,
    };
    let out = c.out.clone().unwrap_or_else(|| root().join("labs-results"));
    let bin = build(&c.name, solution.as_deref())?;
    eprintln!(
        "lab {}: checking correctness, then timing (a few seconds) ...",
        c.name
    );
    let output = Command::new(&bin)
        .output()
        .map_err(|e| failed(format!("cannot run {}: {e}", bin.display())))?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if !output.status.success() {
        return Err(failed(format!(
            "the exercise's program failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let data = measure::data::parse(&text)
        .map_err(|e| failed(format!("the exercise printed malformed #DATA: {e}")))?;
    let j = judge::judge(&data).map_err(failed)?;
    let shown = solution.as_ref().map_or_else(
        || format!("labs/{}/src/solution.rs", c.name),
        |p| p.display().to_string(),
    );
    let saved = save(&out, &who, &j, &shown, &text);
    print!("{}", screen(&j, &shown, &saved));
    match j.verdict {
        Verdict::Refused => Err(failed(format!("lab {}: the solution was refused", c.name))),
        _ => saved.map(|_| ()).map_err(failed),
    }
}

/// Builds the exercise's binary (the workspace's optimised dev profile), with `solution` in
/// place of its own file when given, and returns its path.
///
/// A swapped-in solution is built in the `lab-swapped` profile (the dev profile under another
/// folder, `target/lab-swapped/`), so that checking one does not overwrite the exercise's own
/// binary: the next plain check, or `cargo run -p lab_NAME`, does not rebuild it, and a file
/// checked again unchanged is not rebuilt either.
fn build(name: &str, solution: Option<&Path>) -> Result<PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let package = format!("lab_{name}");
    let mut cmd = Command::new(&cargo);
    cmd.args(["build", "--quiet", "-p", &package, "--bin", &package])
        .current_dir(root());
    match solution {
        Some(p) => cmd.env("MM_LAB_SOLUTION", p).args(["--profile", SWAPPED]),
        None => cmd.env_remove("MM_LAB_SOLUTION"),
    };
    eprintln!("lab {name}: building (optimised) ...");
    let st = cmd.status();
    if !matches!(st, Ok(s) if s.success()) {
        return Err(failed(format!(
            "lab {name}: the exercise does not build (the compiler's messages are above)"
        )));
    }
    let dir = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| root().join("target/debug"));
    if solution.is_none() {
        return Ok(dir.join(package));
    }
    let target = dir.parent().unwrap_or(&dir);
    Ok(target.join(SWAPPED).join(package))
}

/// The cargo profile (and folder under `target/`) of exercises built with another solution.
const SWAPPED: &str = "lab-swapped";

/// The one screen of a check.
fn screen(j: &Judgement, solution: &str, saved: &std::result::Result<PathBuf, String>) -> String {
    let what = match j.measure.as_str() {
        "scaling" => "x10 scaling",
        _ => "speedup",
    };
    let which = if j.disturbed == j.rounds {
        "rounds, none clean"
    } else {
        "clean rounds"
    };
    let ratio = j.ratio.map_or("not measured".into(), |s| {
        format!(
            "{:.2}x (median of {} {which}; {:.2}x..{:.2}x)",
            s.median, s.n, s.min, s.max
        )
    });
    let mut lines = vec![
        format!("lab {}: {}", j.lab, solution),
        field(what, &ratio),
        field("target", &format!("{:.1}x", j.target)),
        field(
            "rounds",
            &format!("{} timed, {} disturbed", j.rounds, j.disturbed),
        ),
        field("verdict", j.verdict.word()),
        field("why", &j.why),
    ];
    if j.verdict == Verdict::NotYet {
        lines.push(field("hint", &j.hint));
    }
    lines.push(match saved {
        Ok(p) => field("saved", &p.display().to_string()),
        Err(e) => field("not saved", e),
    });
    lines.join("\n") + "\n"
}

/// Saves the run as `<out>/<student>/<lab>.txt`: the checker's verdict as `#META` lines, then
/// the exercise's own output. Written through a temporary file; only this file is replaced.
fn save(
    out: &Path,
    who: &str,
    j: &Judgement,
    solution: &str,
    text: &str,
) -> std::result::Result<PathBuf, String> {
    let dir = out.join(who);
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let s = j.ratio;
    let num = |v: Option<f64>| v.map_or("NA".into(), measure::data::format_num);
    let head = [
        measure::data::meta_line("student", who),
        measure::data::meta_line("checked_utc", crate::project::utc_now()),
        measure::data::meta_line(
            "commit",
            crate::project::commit().unwrap_or("unknown".into()),
        ),
        measure::data::meta_line("solution", solution),
        measure::data::meta_line("verdict", j.verdict.word()),
        measure::data::meta_line("why", &j.why),
        measure::data::meta_line("ratio_median", num(s.map(|s| s.median))),
        measure::data::meta_line("ratio_min", num(s.map(|s| s.min))),
        measure::data::meta_line("ratio_max", num(s.map(|s| s.max))),
        measure::data::meta_line("rounds_disturbed", j.disturbed),
    ];
    let body = head.join("\n") + "\n" + text;
    let path = dir.join(format!("{}.txt", j.lab));
    let tmp = dir.join(format!(".{}.txt.tmp", j.lab));
    std::fs::write(&tmp, body)
        .and_then(|_| std::fs::rename(&tmp, &path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            format!("cannot write {}: {e}", path.display())
        })?;
    Ok(path)
}
