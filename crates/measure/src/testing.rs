//! Helpers for the experiments' integration tests, which run the built binary
//! (`env!("CARGO_BIN_EXE_<name>")`) and read what it printed.

use crate::data::{self, DataFile};
use std::process::Command;

/// Runs `bin` with `args`, requires exit status 0, and returns its stdout and the parsed
/// `#DATA`. Panics with the program's stderr (or the parse error) otherwise.
pub fn run_and_parse(bin: &str, args: &[&str]) -> (String, DataFile) {
    let text = run_ok(bin, args);
    let parsed =
        data::parse(&text).unwrap_or_else(|e| panic!("{bin} {args:?}: output does not parse: {e}"));
    (text, parsed)
}

/// Runs `bin` with `args`, requires exit status 0 (else panics with its stderr), and returns
/// its stdout.
fn run_ok(bin: &str, args: &[&str]) -> String {
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
    String::from_utf8(out.stdout).expect("output is UTF-8")
}

/// Asserts that `bin args` is refused the way bad input must be: exit status 2 and exactly
/// one line on stderr, starting with `<program>: error:`, and no panic.
pub fn assert_bad_input(bin: &str, program: &str, args: &[&str]) {
    let out = Command::new(bin)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    check_bad_input(&out, program, args);
}

/// [`assert_bad_input`] for a run under `ulimit -v kib` (started as `sh -c "ulimit -v KIB;
/// exec BIN ARGS"`): a plan that does not fit the address space is refused with one line and
/// exit status 2, not an out-of-memory abort. Returns the line.
pub fn assert_bad_input_within(bin: &str, program: &str, args: &[&str], kib: u64) -> String {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(bin)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run sh for {bin}: {e}"));
    check_bad_input(&out, program, args);
    String::from_utf8_lossy(&out.stderr).trim_end().to_string()
}

fn check_bad_input(out: &std::process::Output, program: &str, args: &[&str]) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.starts_with(&format!("{program}: error:")),
        "{args:?}: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// Asserts that an argument that is not UTF-8 (`--quick` and then `--x=\xff`) is refused as
/// bad input ([`assert_bad_input`]'s exit status 2 and one line), not a panic.
pub fn assert_not_utf8_refused(bin: &str, program: &str) {
    use std::os::unix::ffi::OsStrExt;
    let out = Command::new(bin)
        .arg("--quick")
        .arg(std::ffi::OsStr::from_bytes(b"--x=\xff"))
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    check_bad_input(&out, program, &["--quick", "--x=\\xff"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("argument 2 is not valid UTF-8"), "{err}");
}

/// Asserts that `bin args` ends quietly when its stdout is a pipe whose reader has gone:
/// closed before the start (`head -c0`), and with `after_one_line` also after the first
/// line (`head -1`; only for a run that prints for longer than the test takes to close the
/// pipe). Quietly, as Unix tools end: killed by SIGPIPE with nothing on stderr.
pub fn assert_quiet_on_closed_pipe(bin: &str, args: &[&str], after_one_line: bool) {
    use std::io::BufRead;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let check = |child: std::process::Child, when: &str| {
        let out = child.wait_with_output().expect("waits");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.is_empty(),
            "{bin} {args:?}, pipe closed {when}: stderr {err}"
        );
        assert_eq!(
            out.status.signal(),
            Some(libc::SIGPIPE),
            "{bin} {args:?}, pipe closed {when}: {:?}",
            out.status
        );
    };
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    let child = Command::new(bin)
        .args(args)
        .stdout(writer)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    check(child, "before the start");
    if !after_one_line {
        return;
    }
    let mut child = Command::new(bin)
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    let mut first = String::new();
    let mut stdout = std::io::BufReader::new(child.stdout.take().expect("piped"));
    stdout.read_line(&mut first).expect("one line");
    assert!(!first.is_empty(), "{bin} {args:?} printed nothing");
    drop(stdout);
    check(child, "after one line");
}

/// The machine code of the `#[unsafe(no_mangle)]` function `symbol` in the built binary
/// `bin`, read by [`asm::disassemble`](crate::asm::disassemble), for the tests that check a
/// kernel's shape. Panics where it cannot be read: a missing `nm` or `objdump` is named (the
/// check needs binutils and is not skipped), as is a missing symbol.
pub fn function(bin: &str, symbol: &str) -> crate::asm::Function {
    match crate::asm::disassemble(std::path::Path::new(bin), symbol) {
        Ok(f) => f,
        Err(crate::asm::AsmError::ToolMissing(t)) => panic!(
            "{t} is needed to check the code shape of {symbol}: install binutils (the check cannot be skipped)"
        ),
        Err(e) => panic!("{symbol}: {e}"),
    }
}

/// Runs `bin args --no-data` (the report as a terminal shows it) and asserts the report
/// rules: exit status 0, no line starting with `#`, no line wider than
/// [`fmt::WIDTH`](crate::fmt::WIDTH) columns, the one collapsed data line at the end, and
/// every heading in `headings` present. Returns the report.
pub fn assert_report(bin: &str, args: &[&str], headings: &[&str]) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.push("--no-data");
    let text = run_ok(bin, &all);
    check_report(&text, headings).unwrap_or_else(|e| panic!("{bin} {all:?}: {e}\n{text}"));
    text
}

/// The report rules of [`assert_report`] on a captured report; `Err` says which was broken.
pub fn check_report(text: &str, headings: &[&str]) -> Result<(), String> {
    for (i, l) in text.lines().enumerate() {
        if l.starts_with('#') {
            return Err(format!("line {} starts with '#': {l}", i + 1));
        }
        let w = l.chars().count();
        if w > crate::fmt::WIDTH {
            return Err(format!("line {} is {w} columns wide: {l}", i + 1));
        }
    }
    let last = text.lines().last().unwrap_or("");
    if !last.starts_with("[data:") {
        return Err(format!(
            "the report does not end with the data line: {last:?}"
        ));
    }
    for h in headings {
        if !text.contains(h) {
            return Err(format!("heading {h:?} is missing"));
        }
    }
    Ok(())
}

/// Lines of a report (as [`assert_report`] returns it), without the data line.
pub fn report_lines(text: &str) -> usize {
    text.lines().filter(|l| !l.starts_with("[data:")).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_report_rule_is_checked() {
        let ok = "== x ==\n  fine\n[data: 1 #DATA blocks, 0 #META lines hidden]\n";
        assert_eq!(check_report(ok, &["== x =="]), Ok(()));
        assert_eq!(report_lines(ok), 2);
        let hash = ok.replace("  fine", "#META a b");
        assert!(
            check_report(&hash, &[])
                .unwrap_err()
                .contains("starts with '#'")
        );
        let wide = ok.replace("fine", &"w".repeat(crate::fmt::WIDTH));
        assert!(
            check_report(&wide, &[])
                .unwrap_err()
                .contains("columns wide")
        );
        let no_data = "== x ==\n  fine\n";
        assert!(
            check_report(no_data, &[])
                .unwrap_err()
                .contains("data line")
        );
        assert!(
            check_report(ok, &["== y =="])
                .unwrap_err()
                .contains("missing")
        );
    }
}
