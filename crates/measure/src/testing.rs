//! Helpers for the experiments' integration tests, which run the built binary
//! (`env!("CARGO_BIN_EXE_<name>")`) and read what it printed.
//!
//! Every binary is started through [`command`]: through the runner cargo was given for the
//! target the test was built for (`CARGO_TARGET_<TRIPLE>_RUNNER`, such as `qemu-aarch64 -L
//! /usr/aarch64-linux-gnu` in `cargo xtask cross-test`), as cargo starts the test itself, so
//! the same tests run on the machine and under an emulator.

use crate::data::{self, DataFile};
use std::process::Command;

/// A command that starts the built program `bin` the way cargo starts this test: through the
/// configured runner of this build's target ([`crate::emulation::runner`]), if any.
pub fn command(bin: &str) -> Command {
    crate::emulation::prefixed(&crate::emulation::runner(), bin)
}

/// Whether this test runs emulated ([`crate::emulation::emulated`]): timing checks and
/// verdicts are then left out, and the test says so on stderr once per call.
pub fn emulated(what: &str) -> bool {
    let e = crate::emulation::emulated();
    if e {
        eprintln!("emulated: {what} not checked (times are not the machine's)");
    }
    e
}

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
    let out = command(bin)
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
    let out = command(bin)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {bin}: {e}"));
    check_bad_input(&out, program, args);
}

/// `bin` under `ulimit -v kib` (started as `sh -c "ulimit -v KIB && exec BIN ARGS"`): the
/// program gets at most `kib` KiB of address space. Add the program's arguments.
///
/// `None` (with a line on stderr) where a runner is configured: the limit would bind the
/// emulator, whose own code buffer alone takes 128 MiB (qemu-aarch64: "allocate 134217728
/// bytes for jit buffer: Cannot allocate memory"), not the program.
pub fn command_within(bin: &str, kib: u64) -> Option<Command> {
    if !crate::emulation::runner().is_empty() {
        eprintln!(
            "skipped: a run under ulimit -v {kib} (the limit would bind the runner, {}, not \
             the program)",
            crate::emulation::runner_variable(crate::emulation::TARGET)
        );
        return None;
    }
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(bin);
    Some(c)
}

/// [`assert_bad_input`] for a run under `ulimit -v kib` ([`command_within`]): a plan that does
/// not fit the address space is refused with one line and exit status 2, not an out-of-memory
/// abort. Returns the line; `None` where [`command_within`] skips the run.
pub fn assert_bad_input_within(
    bin: &str,
    program: &str,
    args: &[&str],
    kib: u64,
) -> Option<String> {
    let out = command_within(bin, kib)?
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run sh for {bin}: {e}"));
    check_bad_input(&out, program, args);
    Some(String::from_utf8_lossy(&out.stderr).trim_end().to_string())
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
    let out = command(bin)
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
    // Under qemu-user the emulator, not the program, meets the closed pipe and reports the
    // signal itself on stderr: the program's own ending cannot be seen from here.
    if emulated("the ending on a closed pipe") {
        return;
    }
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
/// kernel's shape, with the tools of the binary's architecture ([`crate::asm::tools`]). Panics
/// where it cannot be read: a missing `nm` or `objdump` is named (the check needs binutils and
/// is not skipped), as is a missing symbol.
pub fn function(bin: &str, symbol: &str) -> crate::asm::Function {
    match crate::asm::disassemble(std::path::Path::new(bin), symbol) {
        Ok(f) => f,
        Err(crate::asm::AsmError::ToolMissing(t)) => panic!(
            "{t} is needed to check the code shape of {symbol}: install {} (the check cannot \
             be skipped)",
            crate::asm::package(&t)
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
    check_report(&text, headings)
        .and_then(|()| check_recap(&text))
        .unwrap_or_else(|e| panic!("{bin} {all:?}: {e}\n{text}"));
    text
}

/// [`assert_report`] on a run already made: `text` is the output of `program` with its data
/// (piped). The report is what `--no-data` would print: the lines before the data part, then
/// the one collapsed line ([`crate::out::collapsed_line`]). This spares a test a second run
/// of the experiment; fails when a report line comes after the data part began.
pub fn assert_report_of(program: &str, text: &str, headings: &[&str]) -> String {
    let report = without_data(program, text).unwrap_or_else(|e| panic!("{program}: {e}\n{text}"));
    check_report(&report, headings)
        .and_then(|()| check_recap(&report))
        .unwrap_or_else(|e| panic!("{program}: {e}\n{report}"));
    report
}

/// The report of a run's output with its data, as `--no-data` prints it (see
/// [`assert_report_of`]).
pub fn without_data(program: &str, text: &str) -> Result<String, String> {
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with('#'))
        .ok_or("no data part")?;
    if let Some(l) = lines[at..].iter().find(|l| !l.starts_with('#')) {
        return Err(format!("a report line after the data part began: {l:?}"));
    }
    let count = |tag: &str| lines[at..].iter().filter(|l| l.starts_with(tag)).count();
    let collapsed = crate::out::collapsed_line(program, count("#DATA-BEGIN"), count("#META"));
    Ok(format!("{}\n{collapsed}\n", lines[..at].join("\n")))
}

/// The recap rule ([`crate::recap`]): the report's last heading is the recap's, and under it
/// come 1 to [`MAX_LINES`](crate::recap::MAX_LINES) lines before the closing fields.
pub fn check_recap(text: &str) -> Result<(), String> {
    let lines: Vec<&str> = text.lines().collect();
    let last = lines.iter().rposition(|l| l.starts_with("== "));
    let Some(at) = last.filter(|&i| lines[i] == crate::recap::HEADING) else {
        return Err("the last heading is not the recap's".into());
    };
    let n = lines[at + 1..]
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .count();
    if n == 0 || n > crate::recap::MAX_LINES {
        return Err(format!(
            "the recap has {n} lines, not 1 to {}",
            crate::recap::MAX_LINES
        ));
    }
    Ok(())
}

/// The report rules of [`assert_report`] on a captured report; `Err` says which was broken.
///
/// A report that opens by saying it ran emulated ([`crate::emulation::OPENING`]) must print no
/// verdict about speed: no "How to read this run:" and no `  * ` conclusion, and the
/// heading "How to read this run:" is looked for as [`crate::emulation::NO_VERDICT`].
pub fn check_report(text: &str, headings: &[&str]) -> Result<(), String> {
    let emulated = says_emulated(text);
    for (i, l) in text.lines().enumerate() {
        if emulated && (l.contains(HOW_TO_READ) || l.starts_with("  * ")) {
            return Err(format!("line {}: a verdict in an emulated run: {l}", i + 1));
        }
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
    for &h in headings {
        let h = if emulated && h == HOW_TO_READ {
            crate::emulation::NO_VERDICT
        } else {
            h
        };
        if !text.contains(h) {
            return Err(format!("heading {h:?} is missing"));
        }
    }
    Ok(())
}

/// The words that open a section's verdict paragraph ([`crate::fmt::how_to_read`]).
const HOW_TO_READ: &str = "How to read this run:";

/// Whether a report opens by saying that it ran emulated: a line of its title paragraph (up
/// to the first blank line) starts with [`crate::emulation::OPENING`].
pub fn says_emulated(text: &str) -> bool {
    text.lines()
        .take_while(|l| !l.is_empty())
        .any(|l| l.starts_with(crate::emulation::OPENING))
}

/// Lines of a report (as [`assert_report`] returns it), without the data line, without
/// the recap ([`crate::recap`], at most one screen of its own, checked by [`check_recap`])
/// and without the emulation notices (the opening that says so, to the end of its
/// paragraph or the next heading, and each [`crate::emulation::NO_VERDICT`] line): the
/// limits the experiments' tests set are on the report itself, the same natively and under
/// qemu.
pub fn report_lines(text: &str) -> usize {
    let (mut in_recap, mut in_opening) = (false, false);
    text.lines()
        .filter(|l| {
            in_recap = (in_recap || *l == crate::recap::HEADING) && !l.trim().is_empty();
            in_opening = (in_opening || l.starts_with(crate::emulation::OPENING))
                && !l.trim().is_empty()
                && !l.starts_with("==");
            let notice = in_opening || l.trim() == crate::emulation::NO_VERDICT;
            !in_recap && !notice && !l.starts_with("[data:")
        })
        .count()
}

/// Asserts that a report (as [`assert_report`] returns it) is at most `quiet` lines
/// ([`report_lines`]) where nothing in it is marked, and at most `marked` where a reading
/// carries a mark ("provisional:" or "contention:", two or three lines each on a disturbed
/// host): the marks may lengthen a report, nothing else may.
pub fn assert_report_length(text: &str, quiet: usize, marked: usize) {
    let n = report_lines(text);
    let is_marked = text.contains("provisional:") || text.contains("contention:");
    let limit = if is_marked { marked } else { quiet };
    assert!(
        n <= limit,
        "{n} report lines (at most {limit}{})",
        if is_marked { ", marked" } else { "" }
    );
}

/// A synthetic [`Tally`](crate::disturb::Tally) for tests of verdicts: `rounds` rounds,
/// `disturbed` of them disturbed, `on_core` cores of other work on core 1 (the experiment's),
/// `elsewhere` cores of it on the other cores, and no steal.
pub fn tally(
    rounds: usize,
    disturbed: usize,
    on_core: f64,
    elsewhere: f64,
) -> crate::disturb::Tally {
    crate::disturb::Tally {
        rounds,
        disturbed,
        load: Some(crate::disturb::Load {
            core: Some(1),
            on_core: Some(on_core),
            steal: Some(0.0),
            elsewhere: Some(elsewhere),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// Checks that every key figure the run printed with a value is listed in `sources`, and that
/// one read from a result (not [`WHOLE_RUN`](crate::key::WHOLE_RUN) or
/// [`UNTIMED`](crate::key::UNTIMED)) finds that result in the run's `disturbance` block: a
/// misspelt source would silently give the figure the whole run's mark instead. A block finds
/// its parts (`block/part`), as the marks do ([`crate::key::of_block`]).
pub fn check_key_sources(f: &DataFile, sources: crate::key::Sources) -> Result<(), String> {
    let results = f
        .block(crate::schema::disturbance::BLOCK)
        .and_then(|b| b.texts(crate::schema::disturbance::RESULT))
        .ok_or("no disturbance block")?;
    for k in crate::key::read(f).iter().filter(|k| k.value.is_some()) {
        if !sources.iter().any(|(name, _)| *name == k.name) {
            return Err(format!("{}: no source declared", k.name));
        }
        if let crate::key::Source::Result(b) = crate::key::source(sources, &k.name)
            && !results.iter().any(|r| crate::key::of_block(r, b))
        {
            return Err(format!("{}: no `{b}` result", k.name));
        }
    }
    Ok(())
}

/// A synthetic [`Load`](crate::disturb::Load) of one quiet window on core 1 whose core
/// share read 3.7 as it opened and `after` as it closed: 3.6 is steady, 2.2 moved.
pub fn share_load(after: f64) -> crate::disturb::Load {
    use crate::clock::share::Share;
    crate::disturb::Load {
        wall_s: 0.01,
        core: Some(1),
        on_core: Some(0.0),
        steal: Some(0.0),
        elsewhere: Some(0.0),
        share: Some((Share { ratio: 3.7 }, Share { ratio: after })),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_figure_must_find_the_result_it_is_read_from() {
        let out = "#DATA-BEGIN key_figures\n#COLUMNS figure:text value unit:text\n\
                   #DATA first_ns 1.2 ns\n#DATA gone_ns NA ns\n#DATA-END\n\
                   #DATA-BEGIN disturbance\n#COLUMNS result:text rounds\n\
                   #DATA latency/first 21\n#DATA-END\n";
        let f = data::parse(out).unwrap();
        assert_eq!(
            check_key_sources(&f, &[("first_ns", "latency/first")]),
            Ok(())
        );
        // A block finds its parts; a part, only itself.
        assert_eq!(check_key_sources(&f, &[("first_ns", "latency")]), Ok(()));
        let wrong = check_key_sources(&f, &[("first_ns", "latency/frist")]);
        assert_eq!(wrong, Err("first_ns: no `latency/frist` result".into()));
        let none = check_key_sources(&f, &[("gone_ns", "nowhere")]);
        assert_eq!(none, Err("first_ns: no source declared".into()));
        // The whole run, or no round at all: nothing to find.
        const WHOLE: crate::key::Sources = &[("first_ns", crate::key::WHOLE_RUN)];
        const UNTIMED: crate::key::Sources = &[("first_ns", crate::key::UNTIMED)];
        for whole in [WHOLE, UNTIMED] {
            assert_eq!(check_key_sources(&f, whole), Ok(()));
        }
    }

    #[test]
    fn the_recap_ends_the_report_within_its_lines() {
        let h = crate::recap::HEADING;
        let ok = format!("== 1. a ==\n  x\n\n{h}\n  a 1 ns\n\n  wall time : 1 s\n");
        assert_eq!(check_recap(&ok), Ok(()));
        let late = format!("{h}\n  a 1 ns\n\n== 2. b ==\n");
        assert!(check_recap(&late).unwrap_err().contains("last heading"));
        assert!(check_recap("== 1. a ==\n").is_err());
        let long = format!("{h}\n{}\n", "  a 1 ns\n".repeat(11));
        assert!(check_recap(&long).unwrap_err().contains("11 lines"));
        assert!(check_recap(&format!("{h}\n\n")).is_err());
        // The recap is not counted among the report's lines; the blank line after it is.
        assert_eq!(report_lines(&ok), 5);
    }

    #[test]
    fn the_report_of_a_run_with_data_is_what_no_data_prints() {
        let run = "== x ==\n  fine\n#META a 1\n#DATA-BEGIN b\n#DATA 1\n#DATA-END\n#META c 2\n";
        let want = format!(
            "== x ==\n  fine\n{}\n",
            crate::out::collapsed_line("p", 1, 2)
        );
        assert_eq!(without_data("p", run), Ok(want));
        let late = run.replace("#META c 2", "  a report line late");
        assert!(
            without_data("p", &late)
                .unwrap_err()
                .contains("report line after")
        );
        assert!(without_data("p", "== x ==\n").is_err());
    }

    /// A marked report may run to the longer limit; an unmarked one may not.
    #[test]
    fn only_marks_may_lengthen_a_report() {
        let quiet = "== x ==\n  a\n  b\n  c\n";
        let marked = "== x ==\n  provisional: 1 of 9 rounds\n  b\n  c\n";
        assert_report_length(quiet, 4, 4);
        assert_report_length(marked, 3, 4);
        let too_long = std::panic::catch_unwind(|| assert_report_length(quiet, 3, 4));
        assert!(too_long.is_err(), "an unmarked report over its limit");
        let too_long = std::panic::catch_unwind(|| assert_report_length(marked, 4, 3));
        assert!(too_long.is_err(), "a marked report over the marked limit");
    }

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

    #[test]
    fn an_emulated_report_may_print_no_verdict() {
        let emu = "== x: y ==\nemulated: times are not the machine's (MM_EMULATED=1)\n\
                   == 1. a ==\n  (emulated: no verdict about speed)\n\
                   [data: 1 #DATA blocks, 0 #META lines hidden]\n";
        assert!(says_emulated(emu));
        assert!(!says_emulated("== x ==\n  fine\n"));
        // The notices are not counted: the title and the section heading are.
        assert_eq!(report_lines(emu), 2);
        let wrapped = emu.replace("(MM_EMULATED=1)", "(MM_EMULATED=1,\n  set by hand)\n");
        assert_eq!(
            report_lines(&wrapped),
            3,
            "the blank line counts: {wrapped}"
        );
        assert_eq!(
            check_report(emu, &["== 1. a ==", "How to read this run:"]),
            Ok(())
        );
        let verdict = emu.replace("(emulated: no verdict about speed)", "* 3x faster");
        assert!(
            check_report(&verdict, &[])
                .unwrap_err()
                .contains("a verdict")
        );
        let how = emu.replace(
            "(emulated: no verdict about speed)",
            "How to read this run: x",
        );
        assert!(check_report(&how, &[]).unwrap_err().contains("a verdict"));
        let none = emu.replace("  (emulated: no verdict about speed)\n", "");
        assert!(
            check_report(&none, &["How to read this run:"])
                .unwrap_err()
                .contains("missing")
        );
    }
}
