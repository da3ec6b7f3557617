//! The start and the end of every experiment, so each `main.rs` can begin with its subject.
//!
//! [`start!`](crate::start) parses the arguments, opens the experiment's own data part
//! (`exp.out`, a [`crate::out::Out`]: every `#DATA` and `#META` line is held back until the
//! human report is done, and each section's readings are kept for the recap), warns loudly if the binary was
//! built without optimisation, prints the machine's facts, and records the load average and a
//! CPU-time snapshot; [`Experiment::pin_main_thread`] pins and verifies;
//! [`Experiment::core_clock`] estimates the core clock before the measurements;
//! [`Experiment::finish`] estimates it again after them and compares the two, prints how much
//! *other* work ran beside the experiment (from `/proc/stat` against its own CPU time), the
//! wall time, and then the data part.

use crate::cli::{self, Args, Opt};
use crate::clock::{self, CoreClock, RunClock};
use crate::data::{Block, Value};
use crate::facts::{self, MachineFacts};
use crate::out::Out;
use crate::pin::{self, Pinning};
use crate::quiet;
use std::sync::OnceLock;
use std::time::Instant;

/// The optimisation level `measure` was built with (the workspace profile sets every crate alike).
pub const OPT_LEVEL: &str = env!("MEASURE_OPT_LEVEL");
/// The cargo profile `measure` was built with.
pub const PROFILE: &str = env!("MEASURE_PROFILE");

/// Starts an experiment: `start!("cache_ladder", "what it shows", &[options])`.
///
/// A macro so that `cfg!(debug_assertions)` is evaluated in the experiment's own crate.
#[macro_export]
macro_rules! start {
    ($name:expr, $about:expr, $opts:expr) => {
        $crate::run::Experiment::start($name, $about, $opts, cfg!(debug_assertions))
    };
}

/// A running experiment.
pub struct Experiment {
    pub name: &'static str,
    pub args: Args,
    pub facts: MachineFacts,
    pub load_before: Option<[f64; 3]>,
    /// The data part and the readings: everything the experiment records goes through it.
    pub out: Out,
    cpu_before: quiet::Snapshot,
    t0: Instant,
    key_figures: Block,
    /// One row per result: the evidence of disturbance behind it.
    disturbance: Block,
    /// The first [`Experiment::core_clock`] estimate, compared with one taken at the finish.
    clock_before: OnceLock<CoreClock>,
    /// The core's share read beside that estimate ([`crate::clock::share`]).
    share_before: Option<crate::clock::share::Share>,
    /// Warn beside the other-work figure when the 1-minute load average is above this.
    load_warn_above: Option<f64>,
    /// The block each key figure comes from ([`Experiment::key_sources`]).
    key_sources: crate::key::Sources,
}

/// Whether a build with these settings is the optimised one this project needs.
pub fn is_optimised(opt_level: &str, debug_assertions: bool) -> bool {
    opt_level == "3" && !debug_assertions
}

impl Experiment {
    /// See [`start!`](crate::start).
    pub fn start(
        name: &'static str,
        about: &str,
        opts: &[Opt],
        debug_assertions: bool,
    ) -> Experiment {
        let args = cli::parse(name, about, opts);
        let emulated = crate::emulation::detect()
            .unwrap_or_else(|e| cli::fail(name, e))
            .clone();
        println!(
            "{}",
            crate::fmt::wrap_to(
                &format!("== {name}: {about} =="),
                "",
                "   ",
                crate::fmt::WIDTH
            )
        );
        if emulated.emulated {
            println!("{}", opening_line(&emulated.sign));
        }
        if !is_optimised(OPT_LEVEL, debug_assertions) {
            let msg = format!(
                "!!! WARNING: built without full optimisation (opt-level {OPT_LEVEL}, debug assertions {}).\n\
                 !!! Every number below measures debug code, not the machine. Rebuild with the workspace profiles.",
                if debug_assertions { "on" } else { "off" }
            );
            println!("{msg}");
            eprintln!("{msg}");
        }
        let mut out = Out::new();
        out.meta("experiment", name);
        out.meta(
            "build",
            format!("opt-level {OPT_LEVEL} profile {PROFILE} debug_assertions {debug_assertions}"),
        );
        out.meta("quick", if args.quick { "yes" } else { "no" });
        out.meta(
            crate::schema::run::META_EMULATED,
            crate::fmt::yes_no(emulated.emulated),
        );
        let facts = MachineFacts::read();
        println!("\n== the machine (every value with its source) ==");
        for l in facts.describe() {
            println!("  {l}");
        }
        out.metas(facts.meta());
        let load_before = facts::load_average();
        report_load(&mut out, "before", load_before);
        let cpu_before = quiet::snapshot();
        let key_figures = Block::new(
            crate::schema::key_figures::BLOCK,
            crate::schema::key_figures::COLUMNS,
        );
        let disturbance = Block::new(
            crate::schema::disturbance::BLOCK,
            crate::schema::disturbance::COLUMNS,
        );
        Experiment {
            name,
            args,
            facts,
            load_before,
            out,
            cpu_before,
            t0: Instant::now(),
            key_figures,
            disturbance,
            clock_before: OnceLock::new(),
            share_before: None,
            load_warn_above: None,
            key_sources: &[],
        }
    }

    /// Asks for a warning beside the other-work figure at the finish when the 1-minute load
    /// average, before or after the run, is above `limit` (sink_bench's seed warns above 1).
    pub fn warn_on_load_above(&mut self, limit: f64) {
        self.load_warn_above = Some(limit);
    }

    /// Pins the calling (main) thread to `MM_CORE` or the default core, prints what happened,
    /// and records it. Returns the verified pinning, if any.
    pub fn pin_main_thread(&mut self) -> Option<Pinning> {
        match pin::default_core() {
            Err(e) => cli::fail(self.name, &e),
            Ok(None) => {
                println!("  pinning        : skipped (no core list available); running unpinned");
                self.out.meta(crate::schema::run::META_PINNED, "no");
                None
            }
            Ok(Some(core)) => {
                let p = pin::pin_current_thread(core);
                println!("  pinning        : {p}");
                self.out.meta(
                    crate::schema::run::META_PINNED,
                    if p.verified() { "yes" } else { "no" },
                );
                self.out
                    .meta(crate::schema::run::META_PINNED_CORE, p.requested);
                self.out.meta(
                    "running_on_core",
                    p.running_on.map_or("unknown".into(), |c| c.to_string()),
                );
                Some(p)
            }
        }
    }

    /// Estimates the core clock before the measurements ([`clock::estimate_core_clock`], 5
    /// rounds in a quick run, 11 otherwise), prints one line and records
    /// `#META clock_ghz_estimate`, so that the experiment can print cycles beside nanoseconds.
    /// [`Experiment::finish`] then estimates it again and compares the two. An architecture
    /// without the add-chain kernel gets "unknown", and no cycles are printed.
    pub fn core_clock(&mut self) -> CoreClock {
        let cc = clock::estimate_core_clock(self.clock_rounds());
        println!("{}", crate::fmt::field("core clock", &cc.describe()));
        self.out.meta(
            crate::schema::run::META_CLOCK_GHZ_ESTIMATE,
            cc.ghz.map_or("unknown".into(), |g| format!("{g:.3}")),
        );
        let _ = self.clock_before.set(cc.clone());
        self.share_before = crate::clock::share::probe();
        if let Some(s) = self.share_before {
            self.out.meta(
                crate::schema::run::META_CORE_SHARE_BEFORE,
                format!("{:.3}", s.ratio),
            );
        }
        cc
    }

    /// Rounds of a core-clock estimate: 5 in a quick run, 11 otherwise.
    fn clock_rounds(&self) -> usize {
        if self.args.quick { 5 } else { 11 }
    }

    /// When [`Experiment::core_clock`] was called: estimates the clock again, prints the
    /// before and after figures with the spread of every round, says so where they differ by
    /// more than 2%, and records `#META clock_ghz_before`, `clock_ghz_after`,
    /// `clock_spread_pct` and `clock_moved`.
    fn clock_after(&mut self) {
        let Some(before) = self.clock_before.get() else {
            return;
        };
        let after = clock::estimate_core_clock(self.clock_rounds());
        if let Some(r) = RunClock::between(before, &after) {
            println!("{}", clock_line(&r));
            self.out.metas(r.meta());
        }
        self.share_after();
    }

    /// Reads the core's share again ([`crate::clock::share`]), records `#META
    /// core_share_after` and `core_share_moved`, and prints one line when it moved.
    fn share_after(&mut self) {
        use crate::clock::share;
        let (Some(before), Some(after)) = (self.share_before, share::probe()) else {
            return;
        };
        self.out.meta(
            crate::schema::run::META_CORE_SHARE_AFTER,
            format!("{:.3}", after.ratio),
        );
        let moved = share::moved(before, after);
        self.out.meta(
            crate::schema::run::META_CORE_SHARE_MOVED,
            if moved { "yes" } else { "no" },
        );
        if moved {
            println!(
                "{}",
                crate::fmt::field("! core share", &share::describe(before, after))
            );
        }
    }

    /// Prints a section heading (and, in an emulated run, lets the section say once that it
    /// withholds its verdicts).
    pub fn section(&mut self, title: &str) {
        self.out.section(title);
        println!("\n== {title} ==");
    }

    /// Records one of the experiment's headline figures (for run-all's summary.md):
    /// `exp.key_figure("l1_latency", 1.09, "ns")`. Pass `None` for "could not be measured".
    pub fn key_figure(&mut self, figure: &str, value: impl Into<Value>, unit: &str) {
        self.key_figures
            .row(vec![figure.into(), value.into(), unit.into()]);
    }

    /// Records the evidence of disturbance behind one result (`result` names its block, or
    /// `block/part`), for the `disturbance` block that figures, the summary and `compare`
    /// read.
    pub fn disturbance(&mut self, result: &str, t: &crate::disturb::Tally) {
        self.disturbance.row(disturbance_row(result, t));
    }

    /// Records two rows of a scan taken point by point, and the two together, as the results
    /// `[a, b, both]` that key figures read from one row, the other, or both (a ratio).
    pub fn disturbance_pair(
        &mut self,
        [a, b, both]: [&str; 3],
        ta: &crate::disturb::Tally,
        tb: &crate::disturb::Tally,
    ) {
        self.disturbance(a, ta);
        self.disturbance(b, tb);
        self.disturbance(both, &ta.merge(tb));
    }

    /// Names the block each key figure comes from (the experiment's `schema::KEY_SOURCES`),
    /// so the recap marks each figure by its own block's evidence.
    pub fn key_sources(&mut self, sources: crate::key::Sources) {
        self.key_sources = sources;
    }

    /// Records the key figures, prints the other work seen during the run, the load after
    /// and the wall time, and then writes the data part (whole, or as one line on a terminal).
    pub fn finish(mut self) {
        println!();
        self.print_recap();
        if !self.key_figures.rows.is_empty() {
            self.out.block(&self.key_figures);
        }
        self.report_disturbance();
        self.clock_after();
        match quiet::between(&self.cpu_before, &quiet::snapshot()) {
            Some(w) => {
                println!("  other work     : {}", w.describe());
                self.out.meta(
                    crate::schema::run::META_OTHER_CPU_CORES,
                    format!("{:.3}", w.cores()),
                );
                self.out.meta("other_cpu_s", format!("{:.2}", w.cpu_s));
            }
            None => {
                println!("  other work     : unknown (/proc/stat unreadable)");
                self.out
                    .meta(crate::schema::run::META_OTHER_CPU_CORES, "unknown");
            }
        }
        let load_after = facts::load_average();
        if let Some(w) = self
            .load_warn_above
            .and_then(|l| load_warning(self.load_before, load_after, l))
        {
            println!("{}", crate::fmt::field("! load", &w));
            self.out.meta("load_warning", "yes");
        }
        report_load(&mut self.out, "after", load_after);
        let wall = self.t0.elapsed().as_secs_f64();
        println!("  wall time      : {wall:.1} s");
        self.out
            .meta(crate::schema::run::META_WALL_S, format!("{wall:.2}"));
        self.out.write(self.name, self.args.data);
    }
}

impl Experiment {
    /// Prints the recap ([`crate::recap`]): the key figures and each section's first reading,
    /// marked as their rounds demand; nothing when there is neither.
    fn print_recap(&self) {
        let figures = crate::recap::figures(self.key_sources, &self.key_figures, &self.disturbance);
        let readings = self.out.readings();
        if figures.is_empty() && readings.is_empty() {
            return;
        }
        let emulated = crate::emulation::emulated();
        println!("{}", crate::recap::HEADING);
        for l in crate::recap::lines(&figures, &readings, emulated) {
            println!("{l}");
        }
        println!();
    }

    /// Prints one line on the disturbance behind the results, records `#META
    /// provisional_results`, and writes the `disturbance` block (when any result recorded one).
    fn report_disturbance(&mut self) {
        let rows = &self.disturbance.rows;
        if rows.is_empty() {
            return;
        }
        let col = self
            .disturbance
            .col_index(crate::schema::disturbance::PROVISIONAL)
            .expect("declared");
        let n = rows.iter().filter(|r| r[col].text() == Some("yes")).count();
        self.out.meta(
            crate::schema::disturbance::META_PROVISIONAL,
            format!("{n} of {}", rows.len()),
        );
        let line = if n == 0 {
            format!(
                "none: every result of {} came from clean rounds",
                rows.len()
            )
        } else {
            format!(
                "{n} of {} results provisional ({})",
                rows.len(),
                crate::provisional_causes!()
            )
        };
        println!("{}", crate::fmt::field("disturbance", &line));
        self.out.block(&self.disturbance);
    }
}

/// The `disturbance` row of one result.
pub fn disturbance_row(result: &str, t: &crate::disturb::Tally) -> Vec<Value> {
    let l = t.load.unwrap_or_default();
    let r3 = |x: Option<f64>| -> Value { x.map(|v| (v * 1000.0).round() / 1000.0).into() };
    let r1 = |x: Option<f64>| -> Value { x.map(|v| (v * 10.0).round() / 10.0).into() };
    vec![
        result.into(),
        t.rounds.into(),
        t.disturbed.into(),
        ((t.lost_ns as f64 / 1e4).round() / 100.0).into(),
        r3(l.on_core),
        r3(l.steal),
        r3(l.elsewhere),
        t.provisional().into(),
        t.contended().into(),
        r3(l.share.map(|s| s.0.ratio)),
        r3(l.share.map(|s| s.1.ratio)),
        r3(l.share_best.map(|s| s.ratio)),
        (l.retakes + 1).into(),
        r1(l.memory.map(|m| m.0.ns)),
        r1(l.memory.map(|m| m.1.ns)),
    ]
}

/// The line an emulated report opens with: [`OPENING`](crate::emulation::OPENING) and the
/// sign it rests on, wrapped to the report's width.
fn opening_line(sign: &str) -> String {
    crate::fmt::wrap_to(
        &format!("{} ({sign})", crate::emulation::OPENING),
        "",
        "  ",
        crate::fmt::WIDTH,
    )
}

/// The before-and-after line, wrapped to the report's width when the clock moved.
fn clock_line(r: &RunClock) -> String {
    crate::fmt::field("core clock", &r.describe())
}

/// The warning when the 1-minute load average before or after the run is above `limit`, or
/// `None` (also when neither is known).
pub fn load_warning(
    before: Option<[f64; 3]>,
    after: Option<[f64; 3]>,
    limit: f64,
) -> Option<String> {
    let high = |l: Option<[f64; 3]>| l.map(|l| l[0]).filter(|&a| a > limit);
    if high(before).is_none() && high(after).is_none() {
        return None;
    }
    let show = |l: Option<[f64; 3]>| l.map_or("unknown".into(), |l| format!("{:.2}", l[0]));
    Some(format!(
        "the 1-minute load average was {} before and {} after, above {limit}: other work ran \
         on the machine, so the spreads include it; take the full run on a quiet machine",
        show(before),
        show(after)
    ))
}

/// Prints and records a load average. It is not judged here: a pinned experiment raises the
/// load by itself. The other work seen beside the run ([`quiet`]) is what is judged.
fn report_load(out: &mut Out, when: &str, load: Option<[f64; 3]>) {
    match load {
        Some([a, b, c]) => {
            println!("  load {when:<9} : {a:.2} {b:.2} {c:.2} (1, 5, 15 minutes)");
            out.meta(&format!("load_{when}"), format!("{a:.2} {b:.2} {c:.2}"));
        }
        None => {
            println!("  load {when:<9} : unknown (/proc/loadavg unreadable)");
            out.meta(&format!("load_{when}"), "unknown");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_load_warning_speaks_only_above_its_limit() {
        let l = |a: f64| Some([a, 0.0, 0.0]);
        assert_eq!(load_warning(l(0.9), l(1.0), 1.0), None);
        assert_eq!(load_warning(None, None, 1.0), None);
        let w = load_warning(l(0.5), l(1.5), 1.0).unwrap();
        assert!(w.contains("0.50 before and 1.50 after, above 1"), "{w}");
        assert!(
            load_warning(l(7.2), None, 1.0)
                .unwrap()
                .contains("7.20 before and unknown")
        );
    }

    #[test]
    fn optimisation_check() {
        assert!(is_optimised("3", false));
        assert!(!is_optimised("0", false));
        assert!(!is_optimised("3", true));
    }

    #[test]
    fn the_clock_line_is_labelled_and_fits() {
        let at = |g: f64| clock::CoreClock {
            ghz: Some(g),
            round_ghz: vec![g],
            ..Default::default()
        };
        let calm = clock_line(&RunClock::between(&at(4.275), &at(4.281)).unwrap());
        assert_eq!(
            calm,
            "  core clock     : 4.275 GHz before, 4.281 GHz after: 0.14% apart (every round within 0.14%)"
        );
        let moved = clock_line(&RunClock::between(&at(3.94), &at(4.43)).unwrap());
        assert!(moved.lines().count() > 1);
        assert!(
            moved
                .lines()
                .all(|l| l.chars().count() <= crate::fmt::WIDTH)
        );
        assert!(
            moved
                .lines()
                .skip(1)
                .all(|l| l.starts_with("                   "))
        );
        let words = moved.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("the clock moved during the run"), "{moved}");
    }

    #[test]
    fn an_emulated_report_opens_by_saying_so() {
        let l = opening_line("/proc/cpuinfo describes an x86_64 CPU, not aarch64 (qemu-user)");
        assert!(l.starts_with("emulated: times are not the machine's (/proc/cpuinfo"));
        assert!(l.lines().all(|l| l.chars().count() <= crate::fmt::WIDTH));
        assert!(!l.starts_with('#'));
    }

    #[test]
    fn this_workspace_builds_measure_optimised() {
        // The workspace's dev profile is opt-level 3: `cargo test` and `cargo run` alike.
        assert_eq!(
            OPT_LEVEL, "3",
            "the workspace profile must build at opt-level 3"
        );
    }
}
