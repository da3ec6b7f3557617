//! `cargo xtask appendix-c`: run the appendix's own C programs on this machine, so their
//! numbers can be drawn beside ours.
//!
//! The C programs are part of the specification (`../shared/seeds/002_*.txt`), not of this
//! repository: this command extracts each listing from the seed at run time, compiles it with
//! the system C compiler into a scratch folder, runs it, and saves its stdout (bare `#DATA`
//! blocks) as `results/<label>/appendix-c/<program>.txt`. Figures then draw those numbers as a
//! reference series. Nothing of the C source is kept.

use crate::{fail, options, root};
use std::fs;
use std::path::{Path, PathBuf};
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

pub fn main(args: &[String]) -> i32 {
    let mut seed = root().join("../shared/seeds/002_50202221d9c5188a.txt");
    let mut label: Option<String> = None;
    let mut out = root().join("results");
    for (k, v) in options(args, &["--seed", "--label", "--out"], &[]) {
        let v = v.unwrap_or_default();
        match k.as_str() {
            "--seed" => seed = PathBuf::from(v),
            "--label" => label = Some(v),
            _ => out = PathBuf::from(v),
        }
    }
    let text = fs::read_to_string(&seed).unwrap_or_else(|e| {
        fail(&format!(
            "cannot read the appendix text {}: {e} (give it with --seed FILE)",
            seed.display()
        ))
    });
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    if Command::new(&cc)
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_err()
    {
        fail(&format!(
            "no C compiler ({cc}) found: install gcc or set CC"
        ));
    }
    let label = label
        .unwrap_or_else(|| crate::run_all::default_label(&measure::facts::MachineFacts::read()));
    let dest = out.join(&label).join("appendix-c");
    if let Err(e) = fs::create_dir_all(&dest) {
        fail(&format!("cannot create {}: {e}", dest.display()));
    }
    let scratch = std::env::temp_dir().join(format!("appendix-c-{}", std::process::id()));
    if let Err(e) = fs::create_dir_all(&scratch) {
        fail(&format!("cannot create {}: {e}", scratch.display()));
    }
    let mut failed = 0;
    for name in PROGRAMS {
        match build_and_run(&text, name, &cc, &scratch, &dest) {
            Ok(n) => eprintln!("appendix-c: {name}: ok ({n} #DATA blocks)"),
            Err(e) => {
                failed += 1;
                eprintln!("appendix-c: {name}: {e}");
            }
        }
    }
    let _ = fs::remove_dir_all(&scratch);
    eprintln!("appendix-c: outputs in {}", dest.display());
    i32::from(failed > 0)
}

fn build_and_run(
    seed: &str,
    name: &str,
    cc: &str,
    scratch: &Path,
    dest: &Path,
) -> Result<usize, String> {
    let src = extract(seed, name).ok_or("listing not found in the appendix text")?;
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
