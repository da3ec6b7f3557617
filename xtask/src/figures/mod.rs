//! `cargo xtask figures`: redraw every figure from saved results, measuring nothing.
//!
//! Each experiment with figures has a module here with one function,
//! `draw(&Saved) -> Result<Vec<Figure>, String>`, registered in [`DRAWERS`]. A drawer reads
//! the parsed `#DATA` of its experiment (and, where it compares, other saved files) and
//! returns SVG text; this module writes the files. Drawing is deterministic: same input,
//! same bytes.

mod branch;
mod cache_ladder;
pub mod chart;
mod clock_probe;
mod command;
mod env_scan;
mod false_sharing;
mod fp_cost;
mod sink_bench;
mod stride;
mod tlb_walk;

pub use command::command;
use measure::data::{self, DataFile};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// One drawn figure: its file name (`cache_ladder-latency.svg`) and SVG text.
pub struct Figure {
    pub file: String,
    pub svg: String,
}

/// The saved results of one machine, parsed.
pub struct Saved {
    /// The folder (results/<label>), for drawers that read files beside the raw output.
    #[allow(dead_code)]
    pub dir: PathBuf,
    /// The folder's name.
    pub label: String,
    /// experiment name -> parsed raw output.
    pub runs: BTreeMap<String, DataFile>,
}

impl Saved {
    /// Reads and parses every `<experiment>.txt` in `dir`. A malformed file is an error that
    /// names the file and line.
    pub fn load(dir: &Path) -> Result<Saved, String> {
        let rd = fs::read_dir(dir)
            .map_err(|e| format!("cannot read results folder {}: {e}", dir.display()))?;
        let mut runs = BTreeMap::new();
        let mut names: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        for p in names {
            let Some(stem) = p.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if p.extension().and_then(|e| e.to_str()) != Some("txt")
                || !crate::project::EXPERIMENTS.contains(&stem)
            {
                continue;
            }
            let text =
                fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            let parsed = data::parse(&text).map_err(|e| format!("{}: {e}", p.display()))?;
            runs.insert(stem.to_string(), parsed);
        }
        let label = dir
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or("results")
            .to_string();
        Ok(Saved {
            dir: dir.to_path_buf(),
            label,
            runs,
        })
    }

    /// A saved run made from text, labelled "test", for the drawers' tests: `experiment`'s
    /// output, as if saved in `dir` (which need not exist). Panics if the text does not parse.
    #[cfg(test)]
    pub fn from_text(experiment: &str, text: &str, dir: PathBuf) -> Saved {
        let parsed = data::parse(text).unwrap_or_else(|e| panic!("test input: {e}"));
        Saved {
            dir,
            label: "test".into(),
            runs: BTreeMap::from([(experiment.to_string(), parsed)]),
        }
    }

    pub fn run(&self, experiment: &str) -> Option<&DataFile> {
        self.runs.get(experiment)
    }
}

type Drawer = fn(&Saved) -> Result<Vec<Figure>, String>;

/// Every experiment's figure drawer.
pub const DRAWERS: &[(&str, Drawer)] = &[
    ("clock_probe", clock_probe::draw),
    ("cache_ladder", cache_ladder::draw),
    ("stride", stride::draw),
    ("tlb_walk", tlb_walk::draw),
    ("branch", branch::draw),
    ("fp_cost", fp_cost::draw),
    ("false_sharing", false_sharing::draw),
    ("sink_bench", sink_bench::draw),
    ("env_scan", env_scan::draw),
];

/// Draws every figure whose experiment has saved results in `from` into `out`. `label`
/// names the machine in titles (default: the folder's name).
/// Returns the files written, in order.
pub fn draw_all(from: &Path, out: &Path, label: Option<&str>) -> Result<Vec<PathBuf>, String> {
    let mut saved = Saved::load(from)?;
    if let Some(l) = label {
        saved.label = l.to_string();
    }
    if saved.runs.is_empty() {
        return Err(format!(
            "{} holds no saved experiment output (<experiment>.txt)",
            from.display()
        ));
    }
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    let mut written = Vec::new();
    for (exp, draw) in DRAWERS {
        if saved.run(exp).is_none() {
            continue;
        }
        for f in draw(&saved).map_err(|e| format!("{exp}: {e}"))? {
            let p = out.join(&f.file);
            fs::write(&p, f.svg).map_err(|e| format!("cannot write {}: {e}", p.display()))?;
            written.push(p);
        }
    }
    Ok(written)
}

/// A block every drawer needs, or an error naming what is missing.
pub fn need_block<'a>(f: &'a DataFile, exp: &str, block: &str) -> Result<&'a data::Block, String> {
    f.block(block)
        .ok_or_else(|| format!("saved {exp} output has no #DATA block {block:?}"))
}

/// A numeric column, or an error naming what is missing.
pub fn need_nums(b: &data::Block, col: &str) -> Result<Vec<Option<f64>>, String> {
    b.nums(col).ok_or_else(|| {
        format!(
            "block {:?} has no column {col:?}",
            b.name.as_deref().unwrap_or("")
        )
    })
}

/// The appendix's own numbers for `exp`, to draw beside ours, if saved:
/// `<dir>/appendix-c/<exp>.txt` (the appendix's C program run on this machine) first, then
/// `<dir>/../appendix-book/<exp>.txt` (the outputs printed in the book, on the author's
/// machine). Both hold the C programs' bare `#DATA` blocks. Returns a legend label and the
/// parsed file; a malformed file is an error naming file and line.
#[allow(dead_code)]
pub fn appendix_reference(saved: &Saved, exp: &str) -> Result<Option<(String, DataFile)>, String> {
    let candidates = [
        (
            saved.dir.join("appendix-c").join(format!("{exp}.txt")),
            "appendix C program, this machine",
        ),
        (
            saved
                .dir
                .parent()
                .unwrap_or(Path::new("."))
                .join("appendix-book")
                .join(format!("{exp}.txt")),
            "appendix, the book's machine",
        ),
    ];
    for (p, label) in candidates {
        if p.is_file() {
            let text =
                fs::read_to_string(&p).map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            let f = data::parse(&text).map_err(|e| format!("{}: {e}", p.display()))?;
            return Ok(Some((label.to_string(), f)));
        }
    }
    Ok(None)
}
