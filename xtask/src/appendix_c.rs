//! `cargo xtask appendix-c`: run the appendix's own C programs on this machine, so their
//! numbers can be drawn beside ours.
//!
//! The C programs are part of the specification (`../shared/seeds/002_*.txt`), not of this
//! repository: this command extracts each listing from the seed at run time, compiles it with
//! the system C compiler into a scratch folder, runs it, and saves its stdout (bare `#DATA`
//! blocks) as `results/<label>/appendix-c/<program>.txt`. Figures then draw those numbers as a
//! reference series. Nothing of the C source is kept.

use crate::error::{Result, bad, failed};
use crate::project::root;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// The programs the appendix prints, by name.
pub const PROGRAMS: &[&str] = &[
    "clock_probe",
    "cache_ladder",
    "stride",
    "tlb_walk",
    "branch",
    "false_sharing",
    "fp_cost",
];

/// Extracts the listing of `name` from the appendix text: the lines after
/// `examples-en/apx-measured/<name>/<name>.c` up to the line `Output`.
pub fn extract(seed: &str, name: &str) -> Option<String> {
    let marker = format!("examples-en/apx-measured/{name}/{name}.c");
    let mut lines = seed.lines().skip_while(|l| l.trim() != marker);
    lines.next()?;
    let body: Vec<&str> = lines.take_while(|l| l.trim() != "Output").collect();
    (!body.is_empty()).then(|| body.join("\n") + "\n")
}

/// `cargo xtask appendix-c`.
pub fn command(o: &crate::flags::AppendixC) -> Result<()> {
    let seed = o
        .seed
        .clone()
        .unwrap_or_else(|| root().join("../shared/seeds/002_50202221d9c5188a.txt"));
    let out = o.out.clone().unwrap_or_else(|| root().join("results"));
    let label = crate::project::label(o.label.as_deref(), &measure::facts::MachineFacts::read())?;
    let text = fs::read_to_string(&seed).map_err(|e| {
        bad(format!(
            "cannot read the appendix text {}: {e} (give it with --seed FILE)",
            seed.display()
        ))
    })?;
    let listings: Vec<(&str, String)> = PROGRAMS
        .iter()
        .filter_map(|n| extract(&text, n).map(|src| (*n, src)))
        .collect();
    if listings.is_empty() {
        return Err(bad(format!(
            "{}: no listing of the appendix's programs found (expected lines such as \
             examples-en/apx-measured/stride/stride.c)",
            seed.display()
        )));
    }
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    if Command::new(&cc)
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        return Err(bad(format!(
            "no C compiler ({cc}) found: install gcc or set CC"
        )));
    }
    let dest = out.join(&label).join("appendix-c");
    fs::create_dir_all(&dest).map_err(|e| bad(format!("cannot create {}: {e}", dest.display())))?;
    let scratch = std::env::temp_dir().join(format!("appendix-c-{}", std::process::id()));
    fs::create_dir_all(&scratch)
        .map_err(|e| failed(format!("cannot create {}: {e}", scratch.display())))?;
    let mut failures = Vec::new();
    for name in PROGRAMS {
        let Some((_, src)) = listings.iter().find(|(n, _)| n == name) else {
            eprintln!("appendix-c: {name}: listing not found in the appendix text");
            failures.push(*name);
            continue;
        };
        match build_and_run(src, name, &cc, &scratch, &dest) {
            Ok(n) => eprintln!("appendix-c: {name}: ok ({n} #DATA blocks)"),
            Err(e) => {
                failures.push(*name);
                eprintln!("appendix-c: {name}: {e}");
            }
        }
    }
    let _ = fs::remove_dir_all(&scratch);
    eprintln!("appendix-c: outputs in {}", dest.display());
    if failures.is_empty() {
        Ok(())
    } else {
        Err(failed(format!("failed: {}", failures.join(", "))))
    }
}

fn build_and_run(
    src: &str,
    name: &str,
    cc: &str,
    scratch: &Path,
    dest: &Path,
) -> std::result::Result<usize, String> {
    let c = scratch.join(format!("{name}.c"));
    let exe = scratch.join(name);
    fs::write(&c, src).map_err(|e| e.to_string())?;
    // The printed listings use `bool` without <stdbool.h> and MAP_ANONYMOUS under a strict
    // _POSIX_C_SOURCE, as a C23 compiler and a newer libc allow; these two flags give older
    // compilers the same. Optimisation as the appendix's builds: -O2.
    let st = Command::new(cc)
        .args([
            "-O2",
            "-std=gnu11",
            "-include",
            "stdbool.h",
            "-D_DEFAULT_SOURCE",
            "-pthread",
            "-o",
        ])
        .arg(&exe)
        .arg(&c)
        .arg("-lm")
        .output()
        .map_err(|e| format!("compiler failed to start: {e}"))?;
    if !st.status.success() {
        return Err(format!(
            "does not compile: {}",
            String::from_utf8_lossy(&st.stderr)
                .lines()
                .next()
                .unwrap_or("")
        ));
    }
    let run = Command::new(&exe)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run: {e}"))?;
    if !run.status.success() {
        return Err(format!("exited with {:?}", run.status.code()));
    }
    let text = String::from_utf8_lossy(&run.stdout).to_string();
    let parsed =
        measure::data::parse(&text).map_err(|e| format!("its output does not parse: {e}"))?;
    fs::write(dest.join(format!("{name}.txt")), &text).map_err(|e| e.to_string())?;
    Ok(parsed.blocks.len())
}

#[cfg(test)]
mod tests {
    use super::extract;

    #[test]
    fn extracts_between_the_path_line_and_output() {
        let seed = "prose\nexamples-en/apx-measured/stride/stride.c\nint main(void)\n{ return 0; }\nOutput\n== x ==\n";
        assert_eq!(
            extract(seed, "stride").unwrap(),
            "int main(void)\n{ return 0; }\n"
        );
        assert!(extract(seed, "branch").is_none());
    }
}
