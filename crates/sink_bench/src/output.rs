//! What a run prints besides its verdicts: the lines about the settings, the start, the clock
//! and the fresh processes, the part 1 table, the `#DATA` blocks of the passes, and the
//! `RESULT` notes and figures the summary is built from. The statistics of a series, the
//! spread tables and the summary itself are in [`crate::report`].

use crate::fresh::{Begun, ChildResult};
use crate::kernel::{N, PASS_SUM};
use crate::options::Settings;
use crate::report::{SeriesStats, conclusion_line, figure_line, note_line};
use measure::clock::CoreClock;
use measure::data::{Block, meta};
use measure::facts::MachineFacts;
use measure::run::Experiment;
use measure::stats::Summary;
use std::collections::BTreeSet;
use std::fmt::Display;

/// The verdicts of a run: each printed where it is reached, and all of them kept for the
/// `RESULT conclusion` lines.
#[derive(Debug, Default)]
pub struct Says(Vec<String>);

impl Says {
    pub fn say(&mut self, s: String) {
        println!("  * {s}");
        self.0.push(s);
    }
}

/// A value, or "unknown" where there is none.
pub fn show_opt<T: Display>(v: Option<T>) -> String {
    v.map_or("unknown".into(), |v| v.to_string())
}

/// The number of logical cores, or "?".
fn cores(facts: &MachineFacts) -> String {
    facts
        .logical_cores
        .map_or("?".to_string(), |n| n.to_string())
}

fn load_text(l: Option<[f64; 3]>) -> String {
    l.map_or("unknown".to_string(), |[a, b, c]| {
        format!("{a:.2} {b:.2} {c:.2}")
    })
}

/// The conditions: was anything else running beside the benchmark?
pub fn load_verdict(exp: &Experiment, after: Option<[f64; 3]>) -> String {
    match (exp.load_before, after) {
        (Some([b, ..]), Some([a, ..])) if b > 1.0 || a > 1.0 => format!(
            "The load average was {b:.2} before the run and {a:.2} after it: other work ran on this {}-core machine, so the spreads above include whatever of it reached the benchmark's core; a run at a load below 1 is the one to compare against.",
            cores(&exp.facts)
        ),
        (Some([b, ..]), Some([a, ..])) => format!(
            "The load average was {b:.2} before the run and {a:.2} after it, below 1: little else ran beside the benchmark."
        ),
        _ => "The load average could not be read, so how much other work ran beside the benchmark is unknown.".to_string(),
    }
}

/// The settings line and their `#META`.
pub fn settings(set: &Settings) {
    println!(
        "  settings       : REPS {}, RUNS {}, SETTLE_MS {}{}",
        set.reps,
        set.runs,
        set.settle_ms,
        if set.quick { " (quick)" } else { "" }
    );
    meta("reps", set.reps);
    meta("runs", set.runs);
    meta("settle_ms", set.settle_ms);
}

/// The pinning line of a run with `--no-pin`.
pub fn unpinned() {
    println!(
        "  pinning        : off (--no-pin): the kernel places this process and every fresh one"
    );
    meta("pinned", "no");
}

/// The start this process made: its array, the cold pass, the fill and the settle.
pub fn start(b: &Begun, page: u64, pages: u64, settle_ms: u64) {
    println!(
        "  array          : {N} floats, {} bytes, {pages} pages of {page} bytes; small pages {}",
        N * 4,
        if b.small_pages {
            "asked for (MADV_NOHUGEPAGE accepted)"
        } else {
            "not guaranteed (MADV_NOHUGEPAGE refused)"
        }
    );
    println!(
        "  cold pass      : {} ns, {} minor page faults during it (getrusage)",
        b.cold_ns,
        show_opt(b.cold_faults)
    );
    println!(
        "  then           : filled with (i & 7) * 0.25; the loop repeated for {settle_ms} ms ({} passes); one more pass discarded",
        b.settle_passes
    );
    meta("settle_passes", b.settle_passes);
}

/// The clock's smallest step and the cost of one read.
pub fn clock(step: f64, read: f64) {
    println!("  smallest non-zero step of the clock : {step:.0} ns");
    println!("  one clock_gettime(MONOTONIC)        : {read:.1} ns (median of 11 batches)");
    meta("clock_min_step_ns", step);
    meta("clock_read_ns", format!("{read:.2}"));
}

/// The latency of one dependent float add, or why it is unknown.
pub fn add_latency(lat: Option<&Summary>, cc: &CoreClock) {
    match lat {
        Some(l) => {
            println!(
                "  one dependent scalar float add      : {:.3} ns{} (a register-only chain in inline assembly)",
                l.median,
                cc.cycles(l.median)
                    .map_or(String::new(), |c| format!(", {c:.2} cycles"))
            );
            meta("add_latency_ns", format!("{:.4}", l.median));
        }
        None => {
            println!(
                "  one dependent scalar float add      : unknown (no chain kernel for this architecture)"
            );
            meta("add_latency_ns", "unknown");
        }
    }
}

/// Prints and records part 1's checksum against the expected one; returns the text.
pub fn checksum(checksum: f64, expected: f64, reps: usize) -> String {
    let text = format!(
        "{checksum:.1} over {reps} passes, expected {expected:.1} ({PASS_SUM:.1} per pass): {}",
        if checksum == expected {
            "ok"
        } else {
            "MISMATCH"
        }
    );
    println!("  checksum {text}");
    meta("checksum", checksum);
    meta("checksum_expected", expected);
    text
}

/// Part 1's table: the three variants against (b), the second of them.
pub fn part1_table(p1: &[SeriesStats]) {
    let b = p1[1].summary.median;
    println!(
        "\n  {:<34} {:>11} {:>11} {:>11} {:>11} {:>9}",
        "variant", "median ns", "min ns", "max ns", "ns/element", "vs (b)"
    );
    for st in p1 {
        let s = &st.summary;
        println!(
            "  {:<34} {:>11.0} {:>11.0} {:>11.0} {:>11.4} {:>9.5}",
            st.label,
            s.median,
            s.min,
            s.max,
            s.median / N as f64,
            s.median / b
        );
    }
}

/// Part 1's passes, one row per round: `part1_passes`.
pub fn part1_block(passes: &[Vec<f64>; 3]) {
    let mut block = Block::new(
        "part1_passes",
        &["round", "discarded_ns", "sink_ns", "checksum_ns"],
    );
    let [pa, pb, pc] = passes;
    for (r, ((a, b), c)) in pa.iter().zip(pb).zip(pc).enumerate() {
        block.row(vec![r.into(), (*a).into(), (*b).into(), (*c).into()]);
    }
    block.print();
}

/// How the fresh processes ran, and the discarded first one.
pub fn fresh_processes(
    core: Option<usize>,
    pinned: usize,
    first: &ChildResult,
    kids: &[ChildResult],
) {
    let runs = kids.len();
    let cpus: BTreeSet<usize> = kids.iter().filter_map(|k| k.cpu).collect();
    println!(
        "  fresh processes: {runs} measured after one discarded; {}; they ran their warm pass on core(s) {:?}",
        if core.is_some() {
            format!("{pinned} of {runs} pinned and verified")
        } else {
            "unpinned".to_string()
        },
        cpus
    );
    println!(
        "  first execution (discarded): cold pass {} ns, warm pass {} ns",
        first.cold_ns, first.warm_ns
    );
}

/// Part 2's passes: `warm_in_process`, `fresh_processes` and `fresh_first_discarded`.
pub fn part2_blocks(warm_in: &[f64], first: &ChildResult, kids: &[ChildResult]) {
    let mut b = Block::new("warm_in_process", &["pass", "ns"]);
    for (i, v) in warm_in.iter().enumerate() {
        b.row(vec![i.into(), (*v).into()]);
    }
    b.print();
    let mut b = Block::new(
        "fresh_processes",
        &[
            "process",
            "cold_ns",
            "warm_ns",
            "cold_faults",
            "warm_faults",
            "cpu",
        ],
    );
    for (i, k) in kids.iter().enumerate() {
        b.row(vec![
            (i + 1).into(),
            k.cold_ns.into(),
            k.warm_ns.into(),
            k.cold_faults.into(),
            k.warm_faults.into(),
            k.cpu.into(),
        ]);
    }
    b.print();
    let mut b = Block::new(
        "fresh_first_discarded",
        &["cold_ns", "warm_ns", "cold_faults", "warm_faults"],
    );
    b.row(vec![
        first.cold_ns.into(),
        first.warm_ns.into(),
        first.cold_faults.into(),
        first.warm_faults.into(),
    ]);
    b.print();
}

/// The page faults of the cold and warm passes.
pub fn faults(this_cold: Option<u64>, fresh_cold_median: Option<f64>, fresh_warm_max: Option<u64>) {
    println!(
        "  page faults    : {} during this process's cold pass, median {} in the fresh ones' cold passes, at most {} in their warm passes",
        show_opt(this_cold),
        fresh_cold_median.map_or("unknown".into(), |f| format!("{f:.0}")),
        show_opt(fresh_warm_max)
    );
}

/// This process's cold pass: `cold_in_process`.
pub fn cold_block(ns: f64, faults: Option<u64>) {
    let mut b = Block::new("cold_in_process", &["ns", "faults"]);
    b.row(vec![ns.into(), faults.into()]);
    b.print();
}

/// What the `RESULT note` lines say about the conditions of the run.
pub struct Conditions<'a> {
    /// The experiment: its machine facts and the load average before the run.
    pub exp: &'a Experiment,
    pub set: &'a Settings,
    /// The core this process and the fresh ones were pinned to, if any.
    pub core: Option<usize>,
    /// How many fresh processes verified their pinning.
    pub pinned_fresh: usize,
    pub load_after: Option<[f64; 3]>,
    pub clock_step_ns: f64,
    pub clock_read_ns: f64,
    pub checksum: &'a str,
    pub code: &'a str,
}

impl Conditions<'_> {
    /// The `RESULT note` lines.
    pub fn lines(&self) -> Vec<String> {
        let (set, facts) = (self.set, &self.exp.facts);
        let kind = if set.quick {
            "a quick (smoke)"
        } else {
            "a full"
        };
        let pinning = match self.core {
            Some(c) => format!(
                "this process and the fresh ones pinned to core {c} ({} of {} fresh pinnings verified)",
                self.pinned_fresh, set.runs
            ),
            None => "none: the kernel placed every process".to_string(),
        };
        vec![
            note_line(
                "run",
                &format!(
                    "{kind} run, REPS {}, RUNS {}, SETTLE_MS {}",
                    set.reps, set.runs, set.settle_ms
                ),
            ),
            note_line(
                "machine",
                &format!(
                    "{} ({}, {} logical cores, kernel {})",
                    facts.cpu_model.as_deref().unwrap_or("unknown CPU"),
                    facts.arch,
                    cores(facts),
                    facts.kernel.as_deref().unwrap_or("unknown")
                ),
            ),
            note_line("pinning", &pinning),
            note_line("load_before", &load_text(self.exp.load_before)),
            note_line("load_after", &load_text(self.load_after)),
            note_line(
                "clock",
                &format!(
                    "smallest step {:.0} ns, one read {:.1} ns",
                    self.clock_step_ns, self.clock_read_ns
                ),
            ),
            note_line("checksum", self.checksum),
            note_line("code", self.code),
        ]
    }
}

/// The figures of the summary table; `None` where one could not be measured.
pub struct Figures {
    pub clock_step: f64,
    pub a_over_b_median: f64,
    pub a_max_over_b_median: f64,
    pub c_over_b_median: f64,
    pub ns_per_element: f64,
    pub cycles_per_element: Option<f64>,
    pub add_latency: Option<f64>,
    pub fresh_over_in_process_median: f64,
    pub cold_shot_over_fresh_median: f64,
    pub cold_shot_over_fresh_min: f64,
    pub cold_over_warm: f64,
    pub cold_faults: Option<f64>,
}

impl Figures {
    /// The `RESULT figure` lines, in the summary's order.
    pub fn lines(&self) -> Vec<String> {
        let f = self;
        [
            (
                "clock_step",
                Some(f.clock_step),
                "ns",
                "smallest step of the clock",
            ),
            (
                "a_over_b_median",
                Some(f.a_over_b_median),
                "x",
                "(a) median / (b) median",
            ),
            (
                "a_max_over_b_median",
                Some(f.a_max_over_b_median),
                "x",
                "(a) max / (b) median",
            ),
            (
                "c_over_b_median",
                Some(f.c_over_b_median),
                "x",
                "(c) median / (b) median",
            ),
            (
                "ns_per_element",
                Some(f.ns_per_element),
                "ns",
                "(b) median per element",
            ),
            (
                "cycles_per_element",
                f.cycles_per_element,
                "cycles",
                "(b) median per element, at the core clock estimate",
            ),
            (
                "add_latency",
                f.add_latency,
                "ns",
                "one dependent scalar float add (register-only chain)",
            ),
            (
                "fresh_over_in_process_median",
                Some(f.fresh_over_in_process_median),
                "x",
                "warm pass: fresh-process median / in-process median",
            ),
            (
                "cold_shot_over_fresh_median",
                Some(f.cold_shot_over_fresh_median),
                "x",
                "cold pass: the one in-process shot / fresh-process median",
            ),
            (
                "cold_shot_over_fresh_min",
                Some(f.cold_shot_over_fresh_min),
                "x",
                "cold pass: the one in-process shot / fresh-process minimum",
            ),
            (
                "cold_over_warm",
                Some(f.cold_over_warm),
                "x",
                "cold pass / warm pass (fresh-process medians)",
            ),
            (
                "cold_faults",
                f.cold_faults,
                "faults",
                "page faults in a fresh process's cold pass (median)",
            ),
        ]
        .iter()
        .map(|&(key, value, unit, label)| figure_line(key, value, unit, label))
        .collect()
    }
}

/// Prints the `RESULT` lines: notes, series, figures, then the conclusions.
pub fn results(notes: &Conditions, series: &[&SeriesStats], figures: &Figures, says: &Says) {
    let lines = notes
        .lines()
        .into_iter()
        .chain(series.iter().map(|st| st.result_line()))
        .chain(figures.lines())
        .chain(says.0.iter().map(|s| conclusion_line(s)));
    for r in lines {
        println!("{r}");
    }
}
