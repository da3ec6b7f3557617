//! Publishing a run: figures, summary, the swap of the new folder into place (keeping files
//! run-all did not make), and the sink_bench handout refresh.

use super::{Plan, RunRecord, keep, summary};
use crate::error::{Result, failed};
use crate::project::root;
use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// Draws the figures, writes `summary.md`, moves the new folder into place. Returns the
/// summary text.
pub fn publish(plan: &Plan, record: &RunRecord, bins: &Path) -> Result<String> {
    let figures_note = figures(plan);
    let rows = summary::rows(&plan.tmp, record);
    let text = summary::summary_md(plan, record, &rows, &figures_note);
    fs::write(plan.tmp.join("summary.md"), &text)
        .map_err(|e| failed(format!("cannot write summary.md: {e}")))?;
    // One page with the summary and every figure, for a student to open.
    if let Err(e) = crate::compare::write_run_index(&plan.tmp) {
        eprintln!("run-all: warning: index.html not written: {e}");
    }
    swap_into_place(plan, record)?;
    refresh_sink_bench_handout(plan, record, bins);
    Ok(text)
}

/// Draws this machine's figures into `figures/` of the new folder, over the previous ones
/// (copied there by [`keep::carry_over`]): a drawer that fails leaves its previous figure.
fn figures(plan: &Plan) -> String {
    let dir = plan.tmp.join("figures");
    match crate::figures::draw_all(&plan.tmp, &dir, Some(&plan.label)) {
        Ok(f) => format!("{} figures drawn in `figures/`.", f.len()),
        Err(e) => {
            format!("**Drawing failed**: {e}. Figures not redrawn keep their previous version.")
        }
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
                "cannot move the previous {} aside: {e}; new results left in {}",
                plan.dest.display(),
                plan.tmp.display()
            ))
        })?;
    }
    if let Err(e) = fs::rename(&plan.tmp, &plan.dest) {
        let _ = fs::rename(&old, &plan.dest);
        return Err(failed(format!(
            "cannot move results into {}: {e}",
            plan.dest.display()
        )));
    }
    if old.exists() {
        let good_now: Vec<&str> = record
            .outcomes
            .iter()
            .filter(|o| o.ok)
            .map(|o| o.name.as_str())
            .collect();
        keep::carry_foreign(&old, &plan.dest, &good_now);
        let _ = fs::remove_dir_all(&old);
    }
    Ok(())
}

/// A full sink_bench run into the repository's own results refreshes the summary its lab
/// handout carries (between its marker lines) and writes `sink_bench.summary.md` beside it.
fn refresh_sink_bench_handout(plan: &Plan, record: &RunRecord, bins: &Path) {
    let sink_ok = record
        .outcomes
        .iter()
        .any(|o| o.name == "sink_bench" && o.ok);
    if plan.quick || !sink_ok || plan.out != root().join("results") {
        return;
    }
    let st = Command::new(bins.join("sink_bench"))
        .arg("--summarize")
        .arg(plan.dest.join("sink_bench.txt"))
        .arg("--update-readme")
        .stdout(Stdio::null())
        .status();
    if !matches!(st, Ok(s) if s.success()) {
        eprintln!("run-all: warning: could not refresh sink_bench's README summary");
    }
}
