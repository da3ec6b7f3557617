//! `cargo xtask run-all`: build once, run every experiment as its own process, one at a time,
//! save the raw output, check every `#DATA` block, write CSV, a summary and figures.
//!
//! The steps, each in its own function, carry one [`RunRecord`]:
//! [`Plan::new`] (what to run, where to) → [`build`] → [`run_each`] (with each experiment's
//! step after its run, from its descriptor in [`crate::experiments`]) → [`keep::carry_over`]
//! (the previous files of experiments not rerun, or rerun and failed) → [`publish::publish`]
//! (figures, summary, `index.html`, the descriptors' steps on publishing, the swap into
//! place). Each saved
//! output is parsed once: [`Outcome`] carries this run's, and publishing loads the folder once
//! for the figures and both summaries.
//!
//! Everything is written into a temporary folder beside the destination and moved into place
//! at the end, so an interrupted run leaves the previous results untouched. Files that run-all
//! did not create are never deleted.

mod keep;
mod one;
#[cfg(test)]
mod one_value;
mod page;
mod publish;
mod summary;
mod table;
mod watch;

use crate::error::{Result, bad, failed};
use crate::experiments::NAMES;
use crate::flags;
use crate::project::root;
use measure::facts::MachineFacts;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub use one::{Outcome, Stamp, run_one};

/// What this run will do, decided before anything runs.
pub struct Plan {
    pub quick: bool,
    pub chosen: Vec<&'static str>,
    pub label: String,
    /// The folder holding `<label>/`.
    pub out: PathBuf,
    /// `out/<label>`.
    pub dest: PathBuf,
    /// The temporary folder the new results are built in.
    pub tmp: PathBuf,
    pub facts: MachineFacts,
    /// The watchdog's limit for each experiment.
    pub timeout: Duration,
}

/// Everything that happened in this run.
pub struct RunRecord {
    pub outcomes: Vec<Outcome>,
    pub load_before: Option<[f64; 3]>,
    pub load_after: Option<[f64; 3]>,
    pub started_utc: String,
    pub commit: Option<String>,
    pub wall_s: f64,
}

/// `cargo xtask run-all`.
pub fn command(o: &flags::RunAll) -> Result<()> {
    let plan = Plan::new(o)?;
    keep::clean_stale(&plan.out, &plan.label);
    fs::create_dir_all(&plan.tmp)
        .map_err(|e| bad(format!("--out {}: not writable: {e}", plan.out.display())))?;
    let bins = match build() {
        Ok(b) => b,
        Err(e) => {
            let _ = fs::remove_dir_all(&plan.tmp);
            return Err(e);
        }
    };
    let record = run_each(&plan, &bins);
    if let Err(e) = refuse_emulated(o.label.as_deref(), &record) {
        let _ = fs::remove_dir_all(&plan.tmp);
        return Err(e);
    }
    keep::carry_over(&plan, &record);
    publish::publish(&plan, &record).inspect_err(|_| {
        // A failed publish (a full disk, say) gives the temporary folder's space back now,
        // not at the next run; the previous results are whole.
        let _ = fs::remove_dir_all(&plan.tmp);
    })?;
    // A short recap; the full summary is in summary.md.
    print!("{}", publish::recap(&plan, &record));
    eprintln!("run-all: results in {}", plan.dest.display());
    let failed_names: Vec<&str> = record
        .outcomes
        .iter()
        .filter(|o| !o.ok)
        .map(|o| o.name.as_str())
        .collect();
    if failed_names.is_empty() {
        Ok(())
    } else {
        Err(failed(format!("failed: {}", failed_names.join(", "))))
    }
}

/// An emulated run (an output saying `#META emulated yes`) is no machine's results: it is
/// saved only under a label given on purpose. Refused with one line, exit status 2, and nothing
/// saved.
fn refuse_emulated(label: Option<&str>, record: &RunRecord) -> Result<()> {
    let key = measure::schema::run::META_EMULATED;
    let emulated: Vec<&str> = (record.outcomes.iter())
        .filter(|o| o.saved.as_ref().is_some_and(|f| f.meta(key) == Some("yes")))
        .map(|o| o.name.as_str())
        .collect();
    match (label, emulated.first()) {
        (None, Some(first)) => Err(bad(format!(
            "{first} ran emulated (#META emulated yes): its times are not this machine's; \
             nothing was saved (give --label NAME to save the run under that name)"
        ))),
        _ => Ok(()),
    }
}

impl Plan {
    /// Checks the options and decides the folders. Creates `out` (only).
    pub fn new(o: &flags::RunAll) -> Result<Plan> {
        let chosen: Vec<&'static str> = match &o.only {
            None => NAMES.to_vec(),
            Some(list) => {
                for n in list {
                    if !NAMES.contains(&n.as_str()) {
                        return Err(bad(format!(
                            "--only: no experiment named {} (known: {})",
                            measure::cli::echo(n),
                            NAMES.join(", ")
                        )));
                    }
                }
                NAMES
                    .iter()
                    .copied()
                    .filter(|e| list.iter().any(|n| n == e))
                    .collect()
            }
        };
        let facts = MachineFacts::read();
        let label = crate::project::label(o.label.as_deref(), &facts)?;
        // A quick run is a smoke test: it never replaces reference results unless told where.
        let out = o.out.clone().unwrap_or_else(|| {
            if o.quick {
                std::env::temp_dir().join("machine-measured-quick")
            } else {
                root().join("results")
            }
        });
        fs::create_dir_all(&out)
            .map_err(|e| bad(format!("--out {}: cannot create: {e}", out.display())))?;
        let tmp = out.join(format!(".tmp-{label}-{}", std::process::id()));
        let dest = out.join(&label);
        check_dest(&dest)?;
        let (full, quick) = flags::TIMEOUT_S;
        let timeout_s = o.timeout_s.unwrap_or(if o.quick { quick } else { full });
        Ok(Plan {
            quick: o.quick,
            chosen,
            label,
            out,
            dest,
            tmp,
            facts,
            timeout: Duration::from_secs(timeout_s),
        })
    }
}

/// Refuses a results folder that run-all cannot replace safely: a symbolic link (its
/// swap would replace the link by a folder and move files out of the link's target) or
/// anything that is not a folder (a file named like the label).
fn check_dest(dest: &Path) -> Result<()> {
    match fs::symlink_metadata(dest) {
        Ok(m) if m.file_type().is_symlink() => Err(bad(format!(
            "{} is a symbolic link: give --out the folder that holds its target, or remove the \
             link; nothing was changed",
            dest.display()
        ))),
        Ok(m) if !m.is_dir() => Err(bad(format!(
            "{} exists and is not a folder: move it or choose another --label; nothing was \
             changed",
            dest.display()
        ))),
        _ => Ok(()),
    }
}

impl RunRecord {
    /// The experiments that ran well in this run.
    pub fn good_now(&self) -> Vec<&str> {
        self.outcomes
            .iter()
            .filter(|o| o.ok)
            .map(|o| o.name.as_str())
            .collect()
    }
}

/// Builds every experiment binary once (optimised by the workspace profile) and returns the
/// folder holding them. The test seam `MM_XTASK_BINS=DIR` skips the build and runs the
/// programs in DIR instead (the robustness tests use stand-ins that fail on purpose).
pub fn build() -> Result<PathBuf> {
    if let Some(dir) = std::env::var_os("MM_XTASK_BINS") {
        return Ok(PathBuf::from(dir));
    }
    eprintln!("run-all: building the experiments once ...");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let st = Command::new(&cargo)
        .args(["build", "--workspace", "--bins", "--quiet"])
        .current_dir(root())
        .status();
    if !matches!(st, Ok(s) if s.success()) {
        return Err(failed(
            "the build failed; nothing was run and no result was changed",
        ));
    }
    Ok(std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| root().join("target/debug")))
}

/// Runs the chosen experiments one at a time into the temporary folder.
pub fn run_each(plan: &Plan, bins: &Path) -> RunRecord {
    // One core for every single-threaded experiment: the highest allowed one (core 0 takes
    // more interrupts). The experiments pin themselves to it and print whether that held;
    // run-all itself stays unpinned so multi-threaded experiments can use every core.
    let core = measure::pin::allowed_cores().last().copied();
    let load_before = measure::facts::load_average();
    let started = Instant::now();
    let started_utc = crate::project::utc_now();
    let commit = crate::project::commit();
    let stamp = one::Stamp {
        utc: started_utc.clone(),
        commit: commit.clone().unwrap_or_else(|| "unknown".into()),
    };
    let mut outcomes = Vec::new();
    let n = plan.chosen.len();
    for (i, exp) in plan.chosen.iter().enumerate() {
        eprintln!(
            "[{}/{n}] {exp} ... (elapsed {:.0} s)",
            i + 1,
            started.elapsed().as_secs_f64()
        );
        let mut o = one::run_one(bins, exp, plan.quick, core, &plan.tmp, &stamp, plan.timeout);
        let step = crate::experiments::find(exp).and_then(|e| e.after_run);
        if let (Some(step), true) = (step, o.ok) {
            o.take(step(bins, &plan.tmp), &plan.tmp);
        }
        eprintln!("[{}/{n}] {exp}: {} in {:.1} s", i + 1, o.status, o.wall_s);
        outcomes.push(o);
    }
    RunRecord {
        outcomes,
        load_before,
        load_after: measure::facts::load_average(),
        started_utc,
        commit,
        wall_s: started.elapsed().as_secs_f64(),
    }
}

/// After `cargo xtask figures --from DIR --out DIR/figures`, a results folder's figures
/// redrawn in place: rewrites `DIR/index.html` (from its summary, saved outputs and figures),
/// so the page shows what the folder holds. Nothing for another `--out`, or a folder without
/// `summary.md`.
pub fn page_after_figures(o: &crate::flags::Figures) -> crate::error::Result<()> {
    let (Some(from), Some(out)) = (&o.from, &o.out) else {
        return Ok(());
    };
    let (Ok(dir), Ok(figs)) = (from.canonicalize(), out.canonicalize()) else {
        return Ok(());
    };
    if figs != dir.join("figures") || !dir.join("summary.md").is_file() {
        return Ok(());
    }
    let label = dir
        .file_name()
        .map_or_else(|| "results".into(), |n| n.to_string_lossy().into_owned());
    let p = page::write_run_index(&dir, &label).map_err(crate::error::bad)?;
    println!("wrote {}", p.display());
    Ok(())
}
