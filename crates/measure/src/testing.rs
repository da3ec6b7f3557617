//! Helpers for the experiments' integration tests, which run the built binary
//! (`env!("CARGO_BIN_EXE_<name>")`) and read what it printed.

use crate::data::{self, DataFile};
use std::process::Command;

/// Runs `bin` with `args`, requires exit status 0, and returns its stdout and the parsed
/// `#DATA`. Panics with the program's stderr (or the parse error) otherwise.
pub fn run_and_parse(bin: &str, args: &[&str]) -> (String, DataFile) {
    let out = Command::new(bin)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    assert!(
        out.status.success(),
        "{bin} {args:?} exited with {:?}:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).expect("output is UTF-8");
    let parsed =
        data::parse(&text).unwrap_or_else(|e| panic!("{bin} {args:?}: output does not parse: {e}"));
    (text, parsed)
}

/// Asserts that `bin args` is refused the way bad input must be: exit status 2 and exactly
/// one line on stderr, starting with `<program>: error:`, and no panic.
pub fn assert_bad_input(bin: &str, program: &str, args: &[&str]) {
    let out = Command::new(bin)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.starts_with(&format!("{program}: error:")),
        "{args:?}: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}
