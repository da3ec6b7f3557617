//! The human report's lines and tables: the settings, the start, the clock, the part 1
//! table, the spread tables of parts 2 and 3, the fresh processes and the code check. Each
//! function prints its lines (never one starting with `#`, never wider than 100 columns) and
//! records the `#META` line of each fact it prints. The verdict sentences are printed by
//! [`crate::verdicts`], the `#DATA` blocks written by [`crate::blocks`].

use crate::asm::CodeCheck;
use crate::fresh::{Begun, ChildResult};
use crate::kernel::{N, PASS_SUM};
use crate::options::Settings;
use crate::stats::SeriesStats;
use measure::clock::CoreClock;
use measure::fmt::{WIDTH, wrap_to};
use measure::out::Out;
use measure::stats::Summary;
use std::collections::BTreeSet;
use std::fmt::Display;

/// Prints `  name           : text`, wrapped to the report width under the value.
pub fn field(name: &str, text: &str) {
    println!("{}", measure::fmt::field(name, text));
}

/// A value, or "unknown" where there is none.
fn show_opt<T: Display>(v: Option<T>) -> String {
    v.map_or("unknown".into(), |v| v.to_string())
}

/// The settings line and their `#META`.
pub fn settings(out: &mut Out, set: &Settings) {
    field(
        "settings",
        &format!(
            "REPS {}, RUNS {}, SETTLE_MS {}{}",
            set.reps,
            set.runs,
            set.settle_ms,
            if set.quick { " (quick)" } else { "" }
        ),
    );
    out.meta("reps", set.reps);
    out.meta("runs", set.runs);
    out.meta("settle_ms", set.settle_ms);
}

/// The pinning line of a default run: one thread, nothing pinned, as the seed ran.
pub fn unpinned(out: &mut Out) {
    field(
        "pinning",
        "none, as the seed: one thread, the kernel places this process and every fresh one \
         (--pin to pin them)",
    );
    out.meta("pinned", "no");
}

/// Said before the pinning line of a run with `--pin`.
pub fn pinned_by_option() {
    field(
        "departs",
        "--pin: every process pinned to one core; the seed pins nothing (one thread, default \
         placement), so these numbers are not its conditions",
    );
}

/// The start this process made: its array, the cold pass, the fill and the settle.
pub fn start(out: &mut Out, b: &Begun, page: u64, pages: u64, settle_ms: u64) {
    field(
        "array",
        &format!(
            "{N} floats, {}, {pages} pages of {}; small pages {}",
            measure::fmt::bytes((N * 4) as u64),
            measure::fmt::bytes(page),
            if b.small_pages {
                "asked for (MADV_NOHUGEPAGE accepted)"
            } else {
                "not guaranteed (MADV_NOHUGEPAGE refused)"
            }
        ),
    );
    field(
        "cold pass",
        &format!(
            "{} ns, {} minor page faults during it (getrusage)",
            b.cold_ns,
            show_opt(b.cold_faults)
        ),
    );
    field(
        "then",
        &format!(
            "filled with (i & 7) * 0.25; the loop repeated for {settle_ms} ms ({} passes); \
             one more pass discarded",
            b.settle_passes
        ),
    );
    out.meta("settle_passes", b.settle_passes);
}

/// How passes are judged, and the budget of extra passes.
pub fn rounds(extra_ns: u64) {
    field(
        "passes",
        &format!(
            "each judged by its thread's own evidence (time waiting for the core, or off it); \
             figures from the clean ones; up to 3x the passes asked for, within {} ms of extra \
             passes, when passes here are disturbed. A fresh process's passes cannot be taken \
             again: each is judged by its own evidence, reported in its result line.",
            extra_ns / 1_000_000
        ),
    );
}

/// Which execution of the binary this is, and the discarded first one.
pub fn execution(out: &mut Out, first: &ChildResult) {
    field(
        "execution",
        &format!(
            "this is the binary's second; the first made the same start and one warm pass \
             (cold {} ns, warm {} ns) and was discarded: a freshly built binary's first run can \
             pay extra in its cold pass",
            first.cold_ns, first.warm_ns
        ),
    );
    out.meta("execution", 2);
}

/// The clock's smallest step and the cost of one read.
pub fn clock(out: &mut Out, step: f64, read: f64) {
    field(
        "clock step",
        &format!("{step:.0} ns (smallest non-zero step)"),
    );
    field(
        "clock read",
        &format!("{read:.1} ns per clock_gettime(MONOTONIC) (median of 11 batches)"),
    );
    out.meta("clock_min_step_ns", step);
    out.meta("clock_read_ns", format!("{read:.2}"));
}

/// The latency of one dependent float add, or why it is unknown.
pub fn add_latency(out: &mut Out, lat: Option<&Summary>, cc: &CoreClock) {
    match lat {
        Some(l) => {
            field(
                "float add",
                &format!(
                    "{:.3} ns{} per dependent scalar add (a register-only chain, inline assembly)",
                    l.median,
                    cc.cycles(l.median)
                        .map_or(String::new(), |c| format!(", {c:.2} cycles"))
                ),
            );
            out.meta("add_latency_ns", format!("{:.4}", l.median));
        }
        None => {
            field(
                "float add",
                "unknown (no chain kernel for this architecture)",
            );
            out.meta("add_latency_ns", "unknown");
        }
    }
}

/// Prints and records part 1's checksum against the expected one.
pub fn checksum(out: &mut Out, checksum: f64, expected: f64, reps: usize) {
    field(
        "checksum",
        &format!(
            "{checksum:.1} over {reps} passes, expected {expected:.1} ({PASS_SUM:.1} per pass): {}",
            if checksum == expected {
                "ok"
            } else {
                "MISMATCH"
            }
        ),
    );
    out.meta("checksum", checksum);
    out.meta("checksum_expected", expected);
}

/// Part 1's table: the three variants against (b), the second of them.
pub fn part1_table(p1: &[SeriesStats]) {
    let b = p1[1].summary.median;
    println!(
        "\n  {:<32} {:>11} {:>11} {:>11} {:>11} {:>9}",
        "variant", "median ns", "min ns", "max ns", "ns/element", "vs (b)"
    );
    for st in p1 {
        let s = &st.summary;
        println!(
            "  {:<32} {:>11.0} {:>11.0} {:>11.0} {:>11.4} {:>9.5}",
            st.label,
            s.median,
            s.min,
            s.max,
            s.median / N as f64,
            s.median / b
        );
    }
}

/// How the fresh processes ran.
pub fn fresh_processes(out: &mut Out, core: Option<usize>, pinned: usize, kids: &[ChildResult]) {
    let runs = kids.len();
    let cpus: BTreeSet<usize> = kids.iter().filter_map(|k| k.cpu).collect();
    let cpus: Vec<String> = cpus.iter().map(usize::to_string).collect();
    field(
        "fresh processes",
        &format!(
            "{runs}, one after the other; {}; their warm passes ran on core(s) {}",
            if core.is_some() {
                format!("{pinned} of {runs} pinned and verified")
            } else {
                "unpinned".to_string()
            },
            if cpus.is_empty() {
                "unknown".to_string()
            } else {
                cpus.join(", ")
            }
        ),
    );
    out.meta("fresh_pinned_verified", pinned);
}

/// A spread table: a heading, then one row per series.
pub fn spread_table(series: &[&SeriesStats]) {
    println!(
        "\n  {:<26} {:>4} {:>9} {:>9} {:>9} {:>6} {:>7} {:>6} {:>6} {:>6}",
        "series", "n", "min ns", "median", "max ns", "cv %", "max/min", ">2 %", ">5 %", ">10 %"
    );
    for st in series {
        let s = &st.summary;
        let (cv, mm) = if s.n > 1 {
            (
                format!("{:.2}", s.cv * 100.0),
                format!("{:.3}", s.max_over_min),
            )
        } else {
            ("-".into(), "-".into())
        };
        let over = |k: usize| {
            st.over
                .map_or("-".into(), |o| format!("{:.1}", o[k] * 100.0))
        };
        println!(
            "  {:<26} {:>4} {:>9.0} {:>9.0} {:>9.0} {:>6} {:>7} {:>6} {:>6} {:>6}",
            st.label,
            s.n,
            s.min,
            s.median,
            s.max,
            cv,
            mm,
            over(0),
            over(1),
            over(2)
        );
    }
}

/// The page faults of the cold and warm passes.
pub fn faults(this_cold: Option<u64>, fresh_cold_median: Option<f64>, fresh_warm_max: Option<u64>) {
    field(
        "page faults",
        &format!(
            "{} in this process's cold pass; median {} in the fresh ones' cold passes, at most \
             {} in their warm passes",
            show_opt(this_cold),
            fresh_cold_median.map_or("unknown".into(), |f| format!("{f:.0}")),
            show_opt(fresh_warm_max)
        ),
    );
}

/// The code check: its verdict in one line, what did not hold, how the clock is read, and
/// with `--show-asm` the listings with the findings under each.
pub fn code(out: &mut Out, check: &CodeCheck, show_asm: bool) {
    let verdict = check.verdict();
    field("shape check", &verdict);
    out.meta("code_check", &verdict);
    for f in check.failures() {
        println!("{}", wrap_to(&f, "    ! ", "      ", WIDTH));
    }
    let (no_syscall, source) = crate::asm::clock_read();
    let target = check
        .clock_target()
        .unwrap_or("an unidentified clock function");
    let source = source.unwrap_or_else(|| "unreadable".into());
    field(
        "clock read",
        &match no_syscall {
            Some(true) => format!(
                "a call to {target}, answered in the vDSO (clock source {source}): no system call"
            ),
            Some(false) => format!("a call to {target}; no vDSO is mapped: a system call"),
            None => format!(
                "a call to {target}; a vDSO is mapped, but whether clock source {source} lets it \
                 answer without a system call is not known here"
            ),
        },
    );
    let CodeCheck::Done(fs) = check else {
        return;
    };
    if !show_asm {
        field("listings", "add --show-asm to print the three functions");
        return;
    }
    for c in fs {
        println!("\n  {} : {}", c.variant, c.function);
        for line in &c.listing {
            println!("{}", cut(&format!("    {line}")));
        }
        for (ok, what) in &c.findings {
            let first = if *ok {
                "    -> yes: "
            } else {
                "    -> NOT AS CLAIMED: "
            };
            println!("{}", wrap_to(what, first, "       ", WIDTH));
        }
    }
}

/// A listing line cut to the report width (objdump's trailing annotation can be long).
fn cut(line: &str) -> String {
    if line.chars().count() <= WIDTH {
        line.to_string()
    } else {
        let head: String = line.chars().take(WIDTH - 3).collect();
        format!("{head}...")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_listing_lines_are_cut_to_the_width() {
        let long = format!("    {}", "x".repeat(150));
        let c = cut(&long);
        assert_eq!(c.chars().count(), WIDTH);
        assert!(c.ends_with("..."));
        assert_eq!(cut("    short"), "    short");
    }
}
