//! # xtask: the project's own tools
//!
//! ```text
//! cargo xtask run-all [--quick] [--only a,b] [--label NAME] [--out DIR]
//! cargo xtask figures [--from DIR --out DIR]
//! cargo xtask compare DIR_A DIR_B
//! cargo xtask appendix-c [--seed FILE] [--label NAME] [--out DIR]
//! cargo xtask verify [--n COUNT] [--bin PATH]
//! ```
//!
//! Nothing here measures: run-all starts the experiment binaries and saves what they print;
//! figures and compare read saved output only. Bad input gets one line on stderr and exit 2.

mod appendix_c;
mod compare;
mod figures;
mod run_all;
mod verify;

use std::path::PathBuf;

/// Every experiment, in the order run-all runs them (the clock first).
pub const EXPERIMENTS: &[&str] = &[
    "clock_probe",
    "cache_ladder",
    "stride",
    "tlb_walk",
    "branch",
    "fp_cost",
    "false_sharing",
    "sink_bench",
    "env_scan",
];

/// The results folder the book's figures (`book-figures/`) are drawn from.
pub const BOOK_RESULTS: &str = "results/amd-epyc-2c";

/// The workspace root (xtask lives one level below it).
pub fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}

/// Prints `xtask: error: msg` and exits 2.
pub fn fail(msg: &str) -> ! {
    eprintln!("xtask: error: {msg}");
    std::process::exit(2)
}

const USAGE: &str = "usage:
  cargo xtask run-all [--quick] [--only a,b] [--label NAME] [--out DIR]
  cargo xtask figures [--from DIR --out DIR]
  cargo xtask compare DIR_A DIR_B
  cargo xtask appendix-c [--seed FILE] [--label NAME] [--out DIR]
  cargo xtask verify [--n COUNT] [--bin PATH]";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else {
        eprintln!("{USAGE}");
        std::process::exit(2);
    };
    let rest = &args[1..];
    let code = match cmd.as_str() {
        "run-all" => run_all::main(rest),
        "figures" => figures::main(rest),
        "compare" => compare::main(rest),
        "appendix-c" => appendix_c::main(rest),
        "verify" => verify::main(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            0
        }
        other => fail(&format!("unknown command {other:?}\n{USAGE}")),
    };
    std::process::exit(code);
}

/// Splits `--name value` / `--name=value` options; flags listed in `flags` take no value.
pub fn options(args: &[String], valued: &[&str], flags: &[&str]) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        if flags.contains(&name.as_str()) {
            if inline.is_some() {
                fail(&format!("{name} takes no value"));
            }
            out.push((name, None));
        } else if valued.contains(&name.as_str()) {
            let v = inline
                .or_else(|| it.next().cloned())
                .unwrap_or_else(|| fail(&format!("{name} needs a value")));
            out.push((name, Some(v)));
        } else {
            fail(&format!("unknown argument {a:?}"));
        }
    }
    out
}
