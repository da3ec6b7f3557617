//! `summary.md`: every experiment's row, whether run now or kept, with when, at which commit
//! and under what conditions it ran, its key figures, and the appendix's Table 105.26 for
//! this machine. Everything comes from the saved outputs in the folder, each parsed once
//! (this run's as they were saved, kept ones from their files), so a kept experiment's row is
//! as complete as one run now.

use super::{Plan, RunRecord};
use crate::experiments::NAMES;
use crate::figures::Saved;
use measure::data::DataFile;
use measure::{fmt, key, quiet};
use std::fmt::Write as _;

/// One experiment's saved output in the folder, and how it got there.
pub struct Row<'a> {
    pub name: &'static str,
    /// `None`: the folder holds no output of this experiment.
    pub saved: Option<&'a DataFile>,
    /// `Some(status)` when it ran in this run.
    pub now: Option<(bool, String, f64)>,
    /// Why a saved file could not be read.
    pub unreadable: Option<String>,
}

impl Row<'_> {
    fn meta(&self, k: &str) -> Option<&str> {
        self.saved.and_then(|f| f.meta(k))
    }
    fn status(&self) -> String {
        match (&self.now, &self.saved) {
            (Some((true, s, _)), _) => s.clone(),
            (Some((false, s, _)), Some(_)) => format!("**{s}**; previous output kept (stale)"),
            (Some((false, s, _)), None) => format!("**{s}**"),
            (None, Some(_)) => "kept from an earlier run".into(),
            (None, None) => match &self.unreadable {
                Some(e) => format!("unreadable: {e}"),
                None => "not run".into(),
            },
        }
    }
    fn mode(&self) -> &str {
        match self.meta("quick") {
            Some("yes") => "quick",
            Some("no") => "full",
            _ => "-",
        }
    }
    fn taken(&self) -> String {
        match (self.meta("saved_utc"), self.meta("saved_commit")) {
            (Some(u), Some(c)) => format!("{u}, {c}"),
            _ if self.saved.is_some() => "unknown (saved before run-all stamped outputs)".into(),
            _ => "-".into(),
        }
    }
    fn other_cores(&self) -> Option<f64> {
        self.saved?
            .meta_num(measure::schema::run::META_OTHER_CPU_CORES)
    }
    fn clock_ghz(&self) -> Option<f64> {
        self.saved?
            .meta_num(measure::schema::run::META_CLOCK_GHZ_ESTIMATE)
    }
}

/// Every experiment's row, from the folder's saved outputs (parsed once, by run-all).
pub fn rows<'a>(saved: &'a Saved, record: &RunRecord) -> Vec<Row<'a>> {
    NAMES
        .iter()
        .map(|&name| {
            let now = record
                .outcomes
                .iter()
                .find(|o| o.name == name)
                .map(|o| (o.ok, o.status.clone(), o.wall_s));
            let unreadable = saved
                .broken
                .get(name)
                .filter(|b| b.malformed)
                .map(|b| format!("{name}.txt: {}", b.why));
            Row {
                name,
                saved: saved.run(name),
                now,
                unreadable,
            }
        })
        .collect()
}

/// The summary of the folder `dir` after this run.
pub fn summary_md(plan: &Plan, record: &RunRecord, rows: &[Row], figures_note: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# machine-measured results: {}\n", plan.label);
    let _ = writeln!(s, "{}\n", header(plan, record, rows));
    let _ = writeln!(s, "## Machine\n\n```");
    for l in plan.facts.describe() {
        let _ = writeln!(s, "{l}");
    }
    let _ = writeln!(s, "```\n");
    conditions(&mut s, record, rows);
    experiments(&mut s, rows);
    key_figures(&mut s, rows);
    table_105_26(&mut s, plan, rows);
    let _ = writeln!(s, "## Figures\n\n{figures_note}\n");
    let notes: Vec<String> = record
        .outcomes
        .iter()
        .flat_map(|o| o.notes.iter().map(move |n| format!("- {}: {n}", o.name)))
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(s, "## Notes\n\n{}\n", notes.join("\n"));
    }
    s.trim_end().to_string() + "\n"
}

/// Table 105.26 from the saved outputs, the book's phone column and this folder's C programs.
fn table_105_26(s: &mut String, plan: &Plan, rows: &[Row]) {
    let phone = super::table::appendix(&crate::project::root().join("results/appendix-phone"));
    let c = super::table::appendix(&plan.dest.join("appendix-c"));
    let src = super::table::Sources {
        ours: rows
            .iter()
            .filter_map(|r| Some((r.name.to_string(), r.saved?)))
            .collect(),
        phone: phone.as_ref().map(super::table::refs),
        c: c.as_ref().map(super::table::refs),
    };
    super::table::write(s, &src);
}

fn header(plan: &Plan, record: &RunRecord, rows: &[Row]) -> String {
    let ran: Vec<&str> = record.outcomes.iter().map(|o| o.name.as_str()).collect();
    let all = ran.len() == NAMES.len();
    let mode = if plan.quick { "quick (smoke)" } else { "full" };
    let commit = record.commit.as_deref().unwrap_or("unknown");
    let mixed = rows.iter().filter(|r| r.saved.is_some()).any(|r| {
        r.mode()
            != rows
                .iter()
                .find(|r| r.saved.is_some())
                .map_or("-", Row::mode)
    });
    let mut h = if all {
        format!(
            "A {mode} run of all {} experiments, started {}, commit {commit}, {:.0} s in all.",
            NAMES.len(),
            record.started_utc,
            record.wall_s
        )
    } else {
        // The other rows: kept from earlier runs (each with its date and commit), or not run.
        let kept = rows
            .iter()
            .filter(|r| r.now.is_none() && r.saved.is_some())
            .count();
        let absent = NAMES.len().saturating_sub(ran.len() + kept);
        let mut others = Vec::new();
        if kept > 0 {
            others.push(format!(
                "{kept} row(s) kept from earlier runs, each with its own date and commit"
            ));
        }
        if absent > 0 {
            others.push(format!("{absent} row(s) not run"));
        }
        // Nothing kept: a fresh folder, so nothing was rerun.
        let what = if kept > 0 {
            "A rerun of part of the folder"
        } else {
            "A run of part of the experiments"
        };
        format!(
            "{what}, in {mode} mode, started {}, commit {commit}: {} of {} experiments ran now \
             ({}); {}.",
            record.started_utc,
            ran.len(),
            NAMES.len(),
            ran.join(", "),
            others.join("; ")
        )
    };
    if mixed {
        h.push_str(" **The folder mixes quick and full outputs** (see the mode column).");
    }
    h.push_str(
        " Raw output per experiment in `<experiment>.txt`, every `#DATA` block as \
         `<experiment>.<block>.csv`, figures in `figures/`.",
    );
    h
}

fn conditions(s: &mut String, record: &RunRecord, rows: &[Row]) {
    let _ = writeln!(s, "## Conditions\n");
    let _ = writeln!(
        s,
        "- Load average before the run: {}; after: {} (1, 5, 15 minutes). A pinned \
         experiment raises the load by itself, so the load is recorded, not judged.",
        fmt::load(record.load_before),
        fmt::load(record.load_after)
    );
    let noisy: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            r.other_cores()
                .filter(|&c| c > quiet::WARN_CORES)
                .map(|c| format!("{} ({c:.2} cores)", r.name))
        })
        .collect();
    let seen: Vec<f64> = rows.iter().filter_map(Row::other_cores).collect();
    if seen.is_empty() {
        let _ = writeln!(s, "- Other work beside the experiments: not recorded.");
    } else if noisy.is_empty() {
        let max = seen.iter().cloned().fold(0.0, f64::max);
        let _ = writeln!(
            s,
            "- Other work beside the experiments: quiet (at most {max:.2} cores of other \
             processes' CPU time in any experiment, against a warning threshold of {:.2}).",
            quiet::WARN_CORES
        );
    } else {
        let _ = writeln!(
            s,
            "- **Warning**: other processes ran beside {}; their numbers include that work. \
             Rerun them on a quiet machine (`--only`).",
            noisy.join(", ")
        );
    }
    let clocks: Vec<(f64, &str)> = rows
        .iter()
        .filter_map(|r| r.clock_ghz().map(|g| (g, r.name)))
        .collect();
    if let (Some(lo), Some(hi)) = (
        clocks.iter().min_by(|a, b| a.0.total_cmp(&b.0)),
        clocks.iter().max_by(|a, b| a.0.total_cmp(&b.0)),
    ) {
        // The rows may come from several runs (`--only`): "the saved outputs", not "the run".
        let range = if format!("{:.3}", lo.0) == format!("{:.3}", hi.0) {
            format!("{:.3} GHz in every saved output that has one", lo.0)
        } else {
            format!(
                "{:.3} GHz ({}) to {:.3} GHz ({}), {:.2}% apart across the saved outputs",
                lo.0,
                lo.1,
                hi.0,
                hi.1,
                (hi.0 / lo.0 - 1.0) * 100.0
            )
        };
        let _ = writeln!(
            s,
            "- Core clock estimates: {range}; each experiment took one before and one after its \
             measurements (the spread column), and its cycles columns use its own estimate."
        );
    }
    let _ = writeln!(s);
}

fn experiments(s: &mut String, rows: &[Row]) {
    let _ = writeln!(
        s,
        "## Experiments\n\n| experiment | status | mode | taken (UTC, commit) | wall time | \
         load before | other work | core clock | provisional results |\n\
         |---|---|---|---|---:|---|---:|---:|---|"
    );
    for r in rows {
        let wall = match (
            &r.now,
            r.saved
                .and_then(|f| f.meta_num(measure::schema::run::META_WALL_S)),
        ) {
            (Some((true, _, w)), _) => format!("{w:.1} s"),
            (_, Some(w)) => format!("{w:.1} s"),
            _ => "-".into(),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.name,
            r.status(),
            r.mode(),
            r.taken(),
            wall,
            r.meta("load_before").unwrap_or("-"),
            r.other_cores()
                .map_or("-".into(), |c| format!("{c:.2} cores")),
            r.clock_ghz().map_or("-".into(), |g| {
                match r
                    .saved
                    .and_then(|f| f.meta_num(measure::schema::run::META_CLOCK_SPREAD_PCT))
                {
                    Some(p) => format!("{g:.3} GHz ({p:.2}% spread)"),
                    None => format!("{g:.3} GHz"),
                }
            }),
            r.saved.map_or("-".into(), crate::marks::describe),
        );
    }
    let _ = writeln!(s);
}

/// The key figures, each named in words as its experiment declares it
/// ([`crate::experiments::key_in_words`]), its name in the data beside it.
pub fn key_figures(s: &mut String, rows: &[Row]) {
    let _ = writeln!(
        s,
        "## Key figures\n\n| experiment | key figure | value | name in the data |\n\
         |---|---|---:|---|"
    );
    for r in rows {
        let figs = r.saved.map(key::read).unwrap_or_default();
        if figs.is_empty() {
            let _ = writeln!(s, "| {} | (none saved) | - | - |", r.name);
        }
        for (i, k) in figs.iter().enumerate() {
            let who = if i == 0 { r.name } else { "" };
            let m = mark(r, &k.name);
            let words = crate::experiments::key_in_words(r.name, &k.name).unwrap_or(&k.name);
            let _ = writeln!(
                s,
                "| {who} | {words} | {} | `{}` |",
                m.on(&k.show(4)),
                k.name
            );
        }
    }
    let _ = writeln!(s);
    marks_legend(s, rows);
}

/// The mark of key figure `name` of the row's experiment (none where nothing was recorded).
fn mark(r: &Row, name: &str) -> crate::marks::Mark {
    r.saved
        .and_then(|f| crate::experiments::key_mark(f, r.name, name))
        .unwrap_or_default()
}

/// What the marks in the tables mean, said once, only when a figure carries one.
fn marks_legend(s: &mut String, rows: &[Row]) {
    let any = |p: fn(crate::marks::Mark) -> bool| {
        rows.iter().any(|r| {
            r.saved
                .is_some_and(|f| key::read(f).iter().any(|k| p(mark(r, &k.name))))
        })
    };
    if any(|m| m.provisional) {
        let _ = writeln!(
            s,
            "\"provisional:\" before a figure: the result it comes from had disturbed rounds \
             (other work on the experiment's core, or steal), as its report says; rerun it on a \
             quiet machine (`--only`).\n"
        );
    }
    if any(|m| m.contended) {
        let _ = writeln!(
            s,
            "\"(contention)\" after a figure: other cores were busy while it was measured, \
             sharing the last cache level and memory with it. That is contention, not noise: \
             the figure is right for a shared machine, not for an idle one.\n"
        );
    }
}
