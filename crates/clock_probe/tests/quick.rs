//! Runs `clock_probe --quick` and checks what it printed, and checks in the built binary
//! that the "discarded" sum really was deleted while the "used" one kept its loop.

use measure::data;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_clock_probe");

fn quick_run() -> (String, data::DataFile) {
    let out = Command::new(BIN)
        .arg("--quick")
        .output()
        .expect("clock_probe runs");
    assert!(out.status.success(), "exit status {:?}", out.status);
    let text = String::from_utf8(out.stdout).expect("utf-8 output");
    let parsed = data::parse(&text).unwrap_or_else(|e| panic!("output does not parse: {e}"));
    (text, parsed)
}

#[test]
fn quick_run_parses_and_reports_every_section() {
    let (text, f) = quick_run();
    for block in [
        "clock_resolution",
        "clock_cost",
        "trap_one",
        "trap_two",
        "trap_three_samples",
        "trap_three_summary",
        "key_figures",
    ] {
        assert!(f.block(block).is_some(), "missing block {block}");
    }
    let res = f.block("clock_resolution").unwrap();
    assert_eq!(res.rows.len(), 3, "three clocks asked");
    // Reading the clock costs something, and the observed step is not below zero.
    let cost = f.block("clock_cost").unwrap().nums("median_ns").unwrap();
    assert!(cost.iter().all(|c| c.is_some_and(|c| c > 0.0)));
    assert!(f.meta_num("clock_min_step_ns").is_some_and(|s| s > 0.0));
    // Trap three: 51 samples in a quick run, and the summary is ordered.
    let samples = f.block("trap_three_samples").unwrap();
    assert_eq!(samples.rows.len(), 51);
    let s = f.block("trap_three_summary").unwrap().nums("ns").unwrap();
    let (min, median, max) = (s[0].unwrap(), s[1].unwrap(), s[4].unwrap());
    assert!(min <= median && median <= max);
    // Trap two: first touch of fresh memory costs more than the second fill (page faults
    // are orders of magnitude dearer than a write to an attached page).
    let t2 = f.block("trap_two").unwrap().nums("median_ns").unwrap();
    assert!(t2[0].unwrap() > t2[1].unwrap());
    // Facts: every reported cache size carries a source.
    for (k, v) in &f.meta {
        let is_cache = k.starts_with('l') && k[1..].starts_with(|c: char| c.is_ascii_digit());
        if is_cache && k.ends_with("_size_bytes") && v != "unknown" {
            assert!(
                v.split_whitespace().nth(1).is_some(),
                "{k} has no source: {v}"
            );
        }
    }
    assert!(
        !text.contains("WARNING: built without full optimisation"),
        "the dev profile must be optimised"
    );
}

#[test]
fn bad_arguments_exit_2_without_a_backtrace() {
    let out = Command::new(BIN).arg("--bogus").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown argument"), "{err}");
    assert!(!err.contains("panicked"));
}

/// The disassembly of one function from the built binary, if objdump can find it.
fn disassemble(symbol: &str) -> Option<String> {
    let out = Command::new("objdump")
        .args([
            "-d",
            "--no-show-raw-insn",
            &format!("--disassemble={symbol}"),
            BIN,
        ])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let start = text.find(&format!("<{symbol}>:"))?;
    Some(
        text[start..]
            .lines()
            .skip(1)
            .take_while(|l| !l.trim().is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// True if some jump in the listing goes backwards (a loop).
fn has_backward_jump(listing: &str) -> bool {
    listing.lines().any(|l| {
        let mut parts = l.split_whitespace();
        let Some(addr) = parts
            .next()
            .and_then(|a| u64::from_str_radix(a.trim_end_matches(':'), 16).ok())
        else {
            return false;
        };
        let Some(op) = parts.next() else { return false };
        if !op.starts_with('j') && !op.starts_with('b') {
            return false;
        }
        parts
            .next()
            .and_then(|t| u64::from_str_radix(t, 16).ok())
            .is_some_and(|target| target <= addr)
    })
}

#[test]
fn the_discarded_sum_was_deleted_and_the_used_one_kept() {
    if Command::new("objdump").arg("--version").output().is_err() {
        eprintln!("objdump not installed: shape check skipped");
        return;
    }
    let kept = disassemble("clock_probe_sum_kept").expect("the used sum is in the binary");
    assert!(
        has_backward_jump(&kept),
        "the used sum must keep its loop:\n{kept}"
    );
    // The discarded sum is either gone entirely (calls to it removed, then the function) or
    // reduced to a body with no loop.
    if let Some(disc) = disassemble("clock_probe_sum_discarded") {
        assert!(
            !has_backward_jump(&disc),
            "the discarded sum still loops:\n{disc}"
        );
    }
}
