//! Saving a run and summarising saved runs, the part the seed's `run.sh` did around the
//! benchmark.
//!
//! When a run is to be saved (`--out DIR`, or any quick run), this process does not measure:
//! it starts the binary again as the measuring process (marked by [`INNER_ENV`]), passes its
//! output through line by line, and afterwards writes `DIR/sink_bench.txt` (the raw output)
//! and `DIR/sink_bench.summary.md` (the table built from the `RESULT` lines). That makes the
//! measuring process the binary's second execution, so the first one, which pays for the
//! kernel's first look at a freshly written file, is never the one measured.
//!
//! `--summarize FILE` does the second half alone for an output saved elsewhere (by
//! `cargo xtask run-all`, say), and `--update-readme` pastes the summary into the crate's
//! README between its marker lines.

use crate::options::{self, Settings};
use crate::report;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Set in the environment of the measuring process a saving run starts.
pub const INNER_ENV: &str = "SINK_BENCH_INNER";
/// The raw output's file name (the name `cargo xtask run-all` gives it too).
pub const RAW_FILE: &str = "sink_bench.txt";
/// The summary's file name.
pub const SUMMARY_FILE: &str = "sink_bench.summary.md";

/// The crate's README, the lab handout that carries the latest summary.
pub fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

/// Decides, before anything is measured or printed, whether this process saves or summarises
/// instead of measuring. `Some(exit status)` if it did; `None` to go on and measure.
pub fn dispatch() -> Option<i32> {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.iter().any(|a| a == "--help" || a == "-h") {
        return None; // the measuring path prints the usage
    }
    // Malformed arguments are reported (exit 2) by the measuring path's parser.
    let args = measure::cli::parse_from("sink_bench", options::OPTS, &argv).ok()?;
    let set = match options::settings(&args, |k| std::env::var(k).ok()) {
        Ok(s) => s,
        Err(e) => measure::cli::fail("sink_bench", &e),
    };
    if let Some(file) = &set.summarize {
        let code = summarize(file, set.update_readme);
        if code == 0
            && let Ok(md) = std::fs::read_to_string(file.with_file_name(SUMMARY_FILE))
        {
            print!("{md}");
        }
        return Some(code);
    }
    match &set.out {
        Some(dir) if std::env::var_os(INNER_ENV).is_none() => Some(run_and_save(&argv, &set, dir)),
        _ => None,
    }
}

fn run_and_save(argv: &[String], set: &Settings, dir: &Path) -> i32 {
    if let Err(e) = std::fs::create_dir_all(dir) {
        measure::cli::fail(
            "sink_bench",
            &format!("--out {}: cannot create it: {e}", dir.display()),
        );
    }
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("sink_bench: error: cannot find this program's own file: {e}");
            return 1;
        }
    };
    let mut cmd = Command::new(exe);
    cmd.args(argv).env(INNER_ENV, "1").stdin(Stdio::null());
    if set.quick && !argv.iter().any(|a| a == "--quick") {
        cmd.arg("--quick"); // QUICK=1 becomes the flag, so the output's #META says quick
    }
    let mut child = match cmd.stdout(Stdio::piped()).spawn() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("sink_bench: error: cannot start the measuring process: {e}");
            return 1;
        }
    };
    let mut raw = String::new();
    if let Some(out) = child.stdout.take() {
        let stdout = std::io::stdout();
        for line in BufReader::new(out).lines() {
            let Ok(line) = line else { break };
            let mut lock = stdout.lock();
            let _ = writeln!(lock, "{line}");
            let _ = lock.flush();
            raw.push_str(&line);
            raw.push('\n');
        }
    }
    let status = child.wait();
    let raw_path = dir.join(RAW_FILE);
    if let Err(e) = std::fs::write(&raw_path, &raw) {
        eprintln!(
            "sink_bench: error: cannot write {}: {e}",
            raw_path.display()
        );
        return 1;
    }
    match status {
        Ok(s) if s.success() => {}
        Ok(s) => {
            eprintln!(
                "sink_bench: the measuring process failed ({s}); its output is in {}, and no summary was made",
                raw_path.display()
            );
            return s.code().unwrap_or(1);
        }
        Err(e) => {
            eprintln!("sink_bench: error: lost the measuring process: {e}");
            return 1;
        }
    }
    eprintln!("sink_bench: raw output saved in {}", raw_path.display());
    summarize(&raw_path, set.update_readme)
}

/// Builds `sink_bench.summary.md` beside a saved raw output, and optionally pastes it into
/// the README. Returns the exit status.
pub fn summarize(raw: &Path, update_readme: bool) -> i32 {
    let text = match std::fs::read_to_string(raw) {
        Ok(t) => t,
        Err(e) => measure::cli::fail(
            "sink_bench",
            &format!("--summarize {}: cannot read it: {e}", raw.display()),
        ),
    };
    if update_readme
        && measure::data::parse(&text)
            .ok()
            .is_some_and(|f| f.meta("quick") == Some("yes"))
    {
        measure::cli::fail(
            "sink_bench",
            &format!(
                "{} is a quick run; --update-readme puts full runs only into the README",
                raw.display()
            ),
        );
    }
    let entries = match report::parse_results(&text) {
        Ok(e) => e,
        Err(e) => measure::cli::fail("sink_bench", &format!("{}: {e}", raw.display())),
    };
    let md = report::summary_markdown(&entries);
    let path = raw.parent().unwrap_or(Path::new(".")).join(SUMMARY_FILE);
    if let Err(e) = std::fs::write(&path, &md) {
        eprintln!("sink_bench: error: cannot write {}: {e}", path.display());
        return 1;
    }
    eprintln!("sink_bench: summary written to {}", path.display());
    if update_readme {
        let readme = readme_path();
        let updated = std::fs::read_to_string(&readme)
            .map_err(|e| format!("cannot read {}: {e}", readme.display()))
            .and_then(|r| report::replace_summary(&r, &md))
            .and_then(|r| {
                std::fs::write(&readme, r)
                    .map_err(|e| format!("cannot write {}: {e}", readme.display()))
            });
        match updated {
            Ok(()) => eprintln!(
                "sink_bench: README summary replaced ({} .. {}) in {}",
                report::BEGIN,
                report::END,
                readme.display()
            ),
            Err(e) => {
                eprintln!("sink_bench: error: {e}");
                return 1;
            }
        }
    }
    0
}
