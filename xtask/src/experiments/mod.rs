//! The experiments as xtask knows them: one [`Experiment`] descriptor each, in one table
//! ([`ALL`]), in the order run-all runs them (the clock first). A descriptor holds everything
//! xtask needs to know about its experiment: its name and what its crate's `schema` declares
//! (the block each key figure comes from, each key figure in words, the columns that key its
//! blocks' rows), its figure drawer with the files it may write, the steps run-all takes for
//! it beyond running it (branch's callgrind check after its run, sink_bench's listing after
//! its run and its summary when the run is published), and which of its key figures come from
//! several threads. run-all, figures, compare, handouts and noise iterate this table; none of
//! them names an experiment to treat it specially.
//!
//! Where it stands in xtask's layers: above the mechanisms it names (`figures` with its
//! drawers, `verify`, `sink_bench`, `marks`, `project`), below the commands that use it
//! (`run_all`, `compare`, `handouts`, `noise`). The mechanisms below never name the table: they
//! are handed what they need of it (the names for [`crate::figures::Saved::load`], the drawers
//! for [`crate::figures::publish`], a key figure's source block for [`crate::marks`]), so no
//! import goes back up (`xtask/tests/layers.rs`).

#[cfg(test)]
mod checks;
mod steps;

use crate::figures::{self, Drawer, Drawers, Saved};
use measure::data::DataFile;
use std::collections::BTreeMap;
use std::path::Path;

pub use steps::After;

/// A step run after a good run of the experiment, given the folder of the built binaries and
/// the folder the run is saved in.
pub type AfterRun = fn(bins: &Path, dir: &Path) -> After;

/// A step run when a run that holds a good output of this experiment is published, given
/// the new results folder and every output in it, parsed: `Err` is a warning, one line that
/// names the file not written (the run stands).
pub type OnPublish = fn(dir: &Path, saved: &Saved) -> Result<(), String>;

/// One experiment, as xtask knows it.
pub struct Experiment {
    /// Its name: its crate, its binary, the stem of its saved files (`<name>.txt`).
    pub name: &'static str,
    /// The block each key figure comes from (`<name>::schema::KEY_SOURCES`).
    pub key_sources: measure::key::Sources,
    /// Every key figure it declares, with what it is in words (`<name>::schema::key::ALL`).
    pub key_words: &'static [(&'static str, &'static str)],
    /// Its blocks with the columns that name their rows (`compare.csv`'s `row`), as each
    /// block declares them (`<name>::schema::ROW_KEYS`).
    pub row_keys: measure::schema::RowKeys,
    /// Its figure drawer.
    pub draw: Drawer,
    /// Every figure file the drawer may write (one it no longer draws is removed).
    pub figures: &'static [&'static str],
    /// What run-all does after a good run of it, beyond saving it.
    pub after_run: Option<AfterRun>,
    /// What run-all writes beside its good output when the run is published.
    pub on_publish: Option<OnPublish>,
    /// Which of its key figures come from two threads or more.
    pub threads: Threads,
}

/// Which key figures of an experiment come from two threads or more: results of the whole
/// machine, which a busy loop on one core must change (`cargo xtask noise` counts them apart).
pub enum Threads {
    /// None: every key figure is one thread's.
    One,
    /// Every key figure.
    Every,
    /// These key figures.
    These(&'static [&'static str]),
}

impl Experiment {
    /// Whether key figure `name` comes from two threads or more ([`Threads`]).
    pub fn multi_threaded(&self, name: &str) -> bool {
        match self.threads {
            Threads::One => false,
            Threads::Every => true,
            Threads::These(keys) => keys.contains(&name),
        }
    }
}

/// Every experiment, in run-all's order: the one list of experiments.
pub const ALL: [Experiment; 10] = [
    Experiment {
        name: ::clock_probe::schema::EXPERIMENT,
        key_sources: ::clock_probe::schema::KEY_SOURCES,
        key_words: ::clock_probe::schema::key::ALL,
        row_keys: ::clock_probe::schema::ROW_KEYS,
        draw: figures::clock_probe::draw,
        figures: &["clock_probe-traps.svg", "clock_probe-trap3.svg"],
        after_run: None,
        on_publish: None,
        threads: Threads::One,
    },
    Experiment {
        name: ::cache_ladder::schema::EXPERIMENT,
        key_sources: ::cache_ladder::schema::KEY_SOURCES,
        key_words: ::cache_ladder::schema::key::ALL,
        row_keys: ::cache_ladder::schema::ROW_KEYS,
        draw: figures::cache_ladder::draw,
        figures: &["cache_ladder-latency.svg"],
        after_run: None,
        on_publish: None,
        threads: Threads::One,
    },
    Experiment {
        name: ::stride::schema::EXPERIMENT,
        key_sources: ::stride::schema::KEY_SOURCES,
        key_words: ::stride::schema::key::ALL,
        row_keys: ::stride::schema::ROW_KEYS,
        draw: figures::stride::draw,
        figures: &["stride-cost.svg", "stride-lines.svg", "stride-layout.svg"],
        after_run: None,
        on_publish: None,
        threads: Threads::One,
    },
    Experiment {
        name: ::tlb_walk::schema::EXPERIMENT,
        key_sources: ::tlb_walk::schema::KEY_SOURCES,
        key_words: ::tlb_walk::schema::key::ALL,
        row_keys: ::tlb_walk::schema::ROW_KEYS,
        draw: figures::tlb_walk::draw,
        figures: &["tlb_walk-pages.svg", "tlb_walk-huge.svg"],
        after_run: None,
        on_publish: None,
        threads: Threads::One,
    },
    Experiment {
        name: ::branch::schema::EXPERIMENT,
        key_sources: ::branch::schema::KEY_SOURCES,
        key_words: ::branch::schema::key::ALL,
        row_keys: ::branch::schema::ROW_KEYS,
        draw: figures::branch::draw,
        figures: &[
            "branch-variants.svg",
            "branch-patterns.svg",
            "branch-pipeline.svg",
        ],
        after_run: Some(steps::verify_branch),
        on_publish: None,
        threads: Threads::One,
    },
    Experiment {
        name: ::fp_cost::schema::EXPERIMENT,
        key_sources: ::fp_cost::schema::KEY_SOURCES,
        key_words: ::fp_cost::schema::key::ALL,
        row_keys: ::fp_cost::schema::ROW_KEYS,
        draw: figures::fp_cost::draw,
        figures: &[
            "fp_cost-ops.svg",
            "fp_cost-denormal.svg",
            "fp_cost-width.svg",
            "fp_cost-placement.svg",
        ],
        after_run: None,
        on_publish: None,
        threads: Threads::One,
    },
    Experiment {
        name: ::false_sharing::schema::EXPERIMENT,
        key_sources: ::false_sharing::schema::KEY_SOURCES,
        key_words: ::false_sharing::schema::key::ALL,
        row_keys: ::false_sharing::schema::ROW_KEYS,
        draw: figures::false_sharing::draw,
        figures: &[
            "false_sharing-lines.svg",
            "false_sharing-distance.svg",
            "false_sharing-threads.svg",
            "false_sharing-shared.svg",
            "false_sharing-c2c.svg",
        ],
        after_run: None,
        on_publish: None,
        threads: Threads::Every,
    },
    Experiment {
        name: ::sink_bench::schema::EXPERIMENT,
        key_sources: ::sink_bench::schema::KEY_SOURCES,
        key_words: ::sink_bench::schema::key::ALL,
        row_keys: ::sink_bench::schema::ROW_KEYS,
        draw: figures::sink_bench::draw,
        figures: &["sink_bench-variants.svg", "sink_bench-spread.svg"],
        after_run: Some(steps::sink_bench_listing),
        on_publish: Some(steps::sink_bench_summary),
        threads: Threads::One,
    },
    Experiment {
        name: ::env_scan::schema::EXPERIMENT,
        key_sources: ::env_scan::schema::KEY_SOURCES,
        key_words: ::env_scan::schema::key::ALL,
        row_keys: ::env_scan::schema::ROW_KEYS,
        draw: figures::env_scan::draw,
        figures: &["env_scan-deviation.svg", "env_scan-regions.svg"],
        after_run: None,
        on_publish: None,
        threads: Threads::One,
    },
    Experiment {
        name: ::bandwidth::schema::EXPERIMENT,
        key_sources: ::bandwidth::schema::KEY_SOURCES,
        key_words: ::bandwidth::schema::key::ALL,
        row_keys: ::bandwidth::schema::ROW_KEYS,
        draw: figures::bandwidth::draw,
        figures: &["bandwidth-working-set.svg"],
        after_run: None,
        on_publish: None,
        threads: Threads::These(&[
            ::bandwidth::schema::key::ALL_CORES_READ_GBS,
            ::bandwidth::schema::key::ALL_CORES_OVER_ONE,
        ]),
    },
];

/// Every experiment's name, in run-all's order, from [`ALL`].
pub const NAMES: [&str; ALL.len()] = {
    let mut names = [""; ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = ALL[i].name;
        i += 1;
    }
    names
};

/// The experiment named `name`; `None` for a name that is no experiment.
pub fn find(name: &str) -> Option<&'static Experiment> {
    ALL.iter().find(|e| e.name == name)
}

/// The block each key figure of `experiment` comes from, as the experiment declares it;
/// none for a name that is no experiment.
pub fn key_sources(experiment: &str) -> measure::key::Sources {
    find(experiment).map_or(&[], |e| e.key_sources)
}

/// Every key figure `experiment` declares, with what it is in words; none for a name that is
/// no experiment.
pub fn key_words(experiment: &str) -> &'static [(&'static str, &'static str)] {
    find(experiment).map_or(&[], |e| e.key_words)
}

/// Key figure `name` of `experiment` in words, as its experiment declares it; `None` for a
/// figure it does not declare (the book's folders name a few of their own).
pub fn key_in_words(experiment: &str, name: &str) -> Option<&'static str> {
    key_words(experiment)
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, w)| *w)
}

/// The mark of key figure `name` of `experiment` in its saved run `f` ([`crate::marks`]),
/// from the block the experiment declares it comes from.
pub fn key_mark(f: &DataFile, experiment: &str, name: &str) -> Option<crate::marks::Mark> {
    crate::marks::key_figure(f, key_sources(experiment), name)
}

/// Every experiment's drawer with its files, for [`crate::figures::publish`].
pub fn drawers() -> Vec<(&'static str, Drawer, &'static [&'static str])> {
    ALL.iter().map(|e| (e.name, e.draw, e.figures)).collect()
}

/// Every experiment's saved output in `dir`, parsed ([`Saved::load`]).
pub fn load(dir: &Path) -> Result<Saved, String> {
    Saved::load(dir, &NAMES)
}

/// [`load`], taking the outputs in `parsed` as they are.
pub fn load_with(dir: &Path, parsed: BTreeMap<String, DataFile>) -> Result<Saved, String> {
    Saved::load_with(dir, &NAMES, parsed)
}

/// Draws every experiment's figures from `saved` into `out` ([`crate::figures::publish_saved`]).
pub fn publish_figures(saved: &Saved, out: &Path) -> Result<figures::Report, String> {
    let drawers: &Drawers = &drawers();
    figures::publish_saved(saved, out, drawers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::root;

    /// Every key figure a committed run wrote is declared, in words, by its experiment; and
    /// no two of an experiment's figures share a name or their words.
    #[test]
    fn every_saved_key_figure_has_words() {
        let results = root().join("results");
        let mut seen = 0;
        for dir in std::fs::read_dir(&results).unwrap().flatten() {
            for exp in NAMES {
                let Ok(text) = std::fs::read_to_string(dir.path().join(format!("{exp}.txt")))
                else {
                    continue;
                };
                let Ok(f) = measure::data::parse(&text) else {
                    continue;
                };
                for k in measure::key::read(&f) {
                    seen += 1;
                    let at = format!("{}/{exp}: {}", dir.path().display(), k.name);
                    assert!(key_in_words(exp, &k.name).is_some(), "{at} has no words");
                }
            }
        }
        assert!(seen > 90, "only {seen} key figures found");
        for exp in NAMES {
            let all = key_words(exp);
            for (i, (n, w)) in all.iter().enumerate() {
                let later = &all[i + 1..];
                assert!(
                    later.iter().all(|(m, v)| m != n && v != w),
                    "{exp}: {n} twice"
                );
            }
        }
    }

    /// No two experiments share a name or a figure file, and every figure file is named
    /// after its experiment (`<name>-...svg`), so a results folder's files say whose they are.
    #[test]
    fn names_and_figure_files_are_each_one_experiment_s() {
        for (i, e) in ALL.iter().enumerate() {
            assert!(ALL[i + 1..].iter().all(|o| o.name != e.name), "{}", e.name);
            for f in e.figures {
                assert!(
                    f.starts_with(&format!("{}-", e.name)) && f.ends_with(".svg"),
                    "{f}"
                );
            }
        }
        assert_eq!(find("branch").map(|e| e.name), Some("branch"));
        // compare reads a machine's numbers from the first saved file that has them.
        assert_eq!(NAMES[0], "clock_probe", "the clock first");
        assert!(find("no_such").is_none() && key_words("no_such").is_empty());
    }
}
