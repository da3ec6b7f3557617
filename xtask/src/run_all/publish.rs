//! Publishing a run: figures, summary, `index.html`, each experiment's step on publishing
//! (sink_bench's summary), and the swap of the new folder into place (keeping files run-all
//! did not make).

use super::{Plan, RunRecord, keep, summary};
use crate::error::{Result, failed};
use crate::figures::Saved;
use std::collections::BTreeMap;
use std::fs;

/// Draws the figures, writes `summary.md`, moves the new folder into place. Returns the
/// summary text.
pub fn publish(plan: &Plan, record: &RunRecord) -> Result<String> {
    let saved = load(plan, record).map_err(failed)?;
    let figures_note = figures(plan, &saved);
    let rows = summary::rows(&saved, record);
    let text = summary::summary_md(plan, record, &rows, &figures_note);
    fs::write(plan.tmp.join("summary.md"), &text).map_err(|e| {
        failed(format!(
            "cannot write summary.md: {e}; the previous results are kept, the new ones \
                 were discarded"
        ))
    })?;
    // One page with the summary and every figure, for a student to open.
    if let Err(e) = super::page::write_run_index(&plan.tmp, &plan.label) {
        eprintln!("run-all: warning: index.html not written: {e}");
    }
    steps_on_publish(plan, record, &saved);
    swap_into_place(plan, record)?;
    Ok(text)
}

/// Every saved output in the new folder, parsed once: this run's as [`super::one::run_one`]
/// parsed them, the kept ones from their files. `Err`: the folder cannot be read.
fn load(plan: &Plan, record: &RunRecord) -> std::result::Result<Saved, String> {
    let now: BTreeMap<String, _> = record
        .outcomes
        .iter()
        .filter_map(|o| Some((o.name.clone(), o.saved.clone()?)))
        .collect();
    let mut saved = crate::experiments::load_with(&plan.tmp, now)?;
    saved.label = plan.label.clone();
    Ok(saved)
}

/// Draws this machine's figures into `figures/` of the new folder, over the previous ones
/// (copied there by [`keep::carry_over`]): a drawer that fails leaves its previous figure.
fn figures(plan: &Plan, saved: &Saved) -> String {
    let dir = plan.tmp.join("figures");
    match crate::experiments::publish_figures(saved, &dir) {
        Ok(r) if r.ok() => format!("{} in `figures/`.", r.summary()),
        Ok(r) => {
            let why: Vec<String> = r
                .failed
                .iter()
                .map(|f| format!("- {}", f.message))
                .collect();
            format!(
                "**{}** in `figures/`; the failed experiments keep their previous figures:\n\n{}",
                r.summary(),
                why.join("\n")
            )
        }
        Err(e) => format!("**Drawing failed**: {e}. The previous figures are kept."),
    }
}

/// The old folder aside, the new one in, foreign files carried over, the old one removed.
fn swap_into_place(plan: &Plan, record: &RunRecord) -> Result<()> {
    let old = plan
        .out
        .join(format!(".old-{}-{}", plan.label, std::process::id()));
    if plan.dest.exists() {
        fs::rename(&plan.dest, &old).map_err(|e| {
            failed(format!(
                "cannot move the previous {} aside: {e}; it is kept, the new results were \
                 discarded",
                plan.dest.display()
            ))
        })?;
    }
    if let Err(e) = fs::rename(&plan.tmp, &plan.dest) {
        let _ = fs::rename(&old, &plan.dest);
        return Err(failed(format!(
            "cannot move results into {}: {e}; the previous results are kept, the new ones \
             were discarded",
            plan.dest.display()
        )));
    }
    if old.exists() {
        let good_now = record.good_now();
        keep::carry_foreign(&old, &plan.dest, &good_now);
        let _ = fs::remove_dir_all(&old);
    }
    Ok(())
}

/// Each experiment's step on publishing ([`crate::experiments::Experiment::on_publish`]),
/// for those that ran well now: sink_bench's summary beside its output. A step that fails is
/// a warning.
fn steps_on_publish(plan: &Plan, record: &RunRecord, saved: &Saved) {
    for e in &crate::experiments::ALL {
        let Some(step) = e.on_publish else { continue };
        if !record.outcomes.iter().any(|o| o.name == e.name && o.ok) {
            continue;
        }
        if let Err(why) = step(&plan.tmp, saved) {
            eprintln!("run-all: warning: {why}");
        }
    }
}

/// What the terminal shows at the end of a run (the full summary stays in `summary.md`): what
/// ran, what failed, which results are provisional or measured under contention, and where
/// the page is. At most 100 columns, no `#` line.
pub fn recap(plan: &Plan, record: &RunRecord) -> String {
    let mode = if plan.quick { "quick" } else { "full" };
    let names = |f: &dyn Fn(&super::one::Outcome) -> bool| -> Vec<&str> {
        record
            .outcomes
            .iter()
            .filter(|o| f(o))
            .map(|o| o.name.as_str())
            .collect()
    };
    let mark = |o: &super::one::Outcome| {
        o.saved
            .as_ref()
            .and_then(crate::marks::read)
            .map(|e| e.overall())
            .unwrap_or_default()
    };
    let mut text = vec![format!(
        "run-all ({mode}): {} of {} experiments ran, {:.0} s.",
        record.outcomes.len(),
        crate::experiments::NAMES.len(),
        record.wall_s
    )];
    let mut list = |what: &str, v: Vec<&str>| {
        if !v.is_empty() {
            text.push(format!("{what}: {}.", v.join(", ")));
        }
    };
    list("ran", names(&|o| o.ok));
    list("failed (see summary.md)", names(&|o| !o.ok));
    list(
        concat!(
            "provisional (",
            measure::provisional_causes!(),
            "; rerun on a quiet machine)"
        ),
        names(&|o| mark(o).provisional),
    );
    list(
        "measured under contention (other cores busy)",
        names(&|o| mark(o).contended),
    );
    text.push(format!(
        "The page: {}; the full summary: summary.md beside it.",
        plan.dest.join("index.html").display()
    ));
    let mut out = String::new();
    for t in text {
        for l in measure::fmt::wrap_to(&t, "", "  ", 100).lines() {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}
