//! `cargo xtask figures`: redraw every figure from saved results, measuring nothing.
//!
//! Each experiment with figures has a module here with one function,
//! `draw(&Saved) -> Result<Vec<Figure>, DrawError>` (a [`Drawer`]). The experiment's
//! descriptor (in the `experiments` module, the layer above) names it with the files it may
//! write and hands them down here as [`Drawers`]: this module names no experiment. A drawer
//! reads the parsed `#DATA` of its experiment (and, where it compares, the appendix's saved
//! numbers) and returns SVG text; this module writes the files.
//!
//! Publishing is careful ([`publish`]): every figure is drawn into a temporary folder inside
//! the destination first, and only the figures drawn are moved into place. A drawer that
//! fails (a malformed or incomplete saved file) leaves that experiment's previous figures
//! as they were, and the failure is listed in the [`Report`], naming the file and, where
//! there is one, the line. Drawing is deterministic: same input, same bytes.

pub mod bandwidth;
pub mod branch;
pub mod cache_ladder;
pub mod chart;
pub mod clock_probe;
mod command;
pub mod env_scan;
pub mod false_sharing;
pub mod fp_cost;
pub mod sink_bench;
pub mod stride;
pub mod tlb_walk;

pub use command::command;
#[cfg(test)]
pub mod checks;

use measure::data::{self, DataFile};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

pub use chart::Geometry;

/// One drawn figure: its file name (`cache_ladder-latency.svg`), SVG text, and where it put
/// things (for the structural tests).
pub struct Figure {
    pub file: String,
    pub svg: String,
    #[allow(dead_code)]
    pub geometry: Geometry,
}

impl Figure {
    pub fn new(file: &str, (svg, geometry): (String, Geometry)) -> Figure {
        Figure {
            file: file.into(),
            svg,
            geometry,
        }
    }
}

/// Why a drawer could not draw: a message, and the file at fault when it is not the
/// experiment's own saved output (the appendix's numbers, say).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrawError {
    pub file: Option<PathBuf>,
    pub message: String,
}

impl From<String> for DrawError {
    fn from(message: String) -> DrawError {
        DrawError {
            file: None,
            message,
        }
    }
}
impl From<&str> for DrawError {
    fn from(message: &str) -> DrawError {
        DrawError::from(message.to_string())
    }
}

impl std::fmt::Display for DrawError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.file {
            Some(p) => write!(f, "{}: {}", p.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// The saved results of one machine, parsed.
pub struct Saved {
    /// The folder (`results/<label>`), for drawers that read files beside the raw output.
    pub dir: PathBuf,
    /// The folder's name.
    pub label: String,
    /// experiment name -> parsed raw output.
    pub runs: BTreeMap<String, DataFile>,
    /// experiment name -> why its saved output could not be read or parsed.
    pub broken: BTreeMap<String, Broken>,
}

/// A saved `<experiment>.txt` that could not be used.
#[derive(Debug)]
pub struct Broken {
    pub path: PathBuf,
    /// `false`: the file could not be read; `true`: it did not parse.
    pub malformed: bool,
    /// The reader's or the parser's message (the parser's names the line).
    pub why: String,
}

impl Broken {
    /// The message with the file: "cannot read `<path>`: ..." or "`<path>`: line 3: ...".
    pub fn message(&self) -> String {
        if self.malformed {
            format!("{}: {}", self.path.display(), self.why)
        } else {
            format!("cannot read {}: {}", self.path.display(), self.why)
        }
    }
}

impl Saved {
    /// Reads and parses every `<experiment>.txt` in `dir`, for each experiment of
    /// `experiments`. A file that does not parse is kept in `broken` with its file and line;
    /// the others are drawn.
    pub fn load(dir: &Path, experiments: &[&str]) -> Result<Saved, String> {
        Saved::load_with(dir, experiments, BTreeMap::new())
    }

    /// [`Saved::load`], taking the outputs in `parsed` as they are instead of parsing their
    /// files again (run-all's outputs of this run, parsed when they were saved).
    pub fn load_with(
        dir: &Path,
        experiments: &[&str],
        mut parsed: BTreeMap<String, DataFile>,
    ) -> Result<Saved, String> {
        let rd = fs::read_dir(dir)
            .map_err(|e| format!("cannot read results folder {}: {e}", dir.display()))?;
        let mut runs = BTreeMap::new();
        let mut broken = BTreeMap::new();
        let mut names: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
        names.sort();
        for p in names {
            let Some(stem) = p.file_stem().and_then(|s| s.to_str()) else {
                continue;
            };
            if p.extension().and_then(|e| e.to_str()) != Some("txt") || !experiments.contains(&stem)
            {
                continue;
            }
            if let Some(f) = parsed.remove(stem) {
                runs.insert(stem.to_string(), f);
                continue;
            }
            let (malformed, why) = match crate::project::read_regular_text(&p) {
                Err(e) => (false, e.to_string()),
                Ok(text) => match data::parse(&text) {
                    Ok(f) => {
                        runs.insert(stem.to_string(), f);
                        continue;
                    }
                    Err(e) => (true, e.to_string()),
                },
            };
            let name = stem.to_string();
            broken.insert(
                name,
                Broken {
                    path: p,
                    malformed,
                    why,
                },
            );
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
            broken,
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
            broken: BTreeMap::new(),
        }
    }

    /// [`Saved::from_text`] in a folder that does not exist (no appendix numbers beside it).
    #[cfg(test)]
    pub fn test(experiment: &str, text: &str) -> Saved {
        Saved::from_text(experiment, text, PathBuf::from("/nonexistent/results/test"))
    }

    pub fn run(&self, experiment: &str) -> Option<&DataFile> {
        self.runs.get(experiment)
    }

    /// The experiment's saved output, or an error naming it.
    pub fn need(&self, experiment: &str) -> Result<&DataFile, DrawError> {
        self.run(experiment)
            .ok_or_else(|| DrawError::from(format!("no saved {experiment} output")))
    }
}

/// An experiment's figure drawer: its saved run in, its figures (or why not) out.
pub type Drawer = fn(&Saved) -> Result<Vec<Figure>, DrawError>;

/// The experiments' drawers, in the order they are drawn: each one's name, its drawer, and
/// every file the drawer may write (a drawer that no longer draws one of them, because the
/// run could not measure it, has that old file removed). Built from the descriptors in
/// the `experiments` module.
pub type Drawers<'a> = [(&'a str, Drawer, &'a [&'a str])];

/// For the drawers' tests: draws `saved` twice, checks that the figures are `files` in this
/// order and that both drawings are the same bytes, and returns them.
#[cfg(test)]
pub fn draw_twice(draw: Drawer, saved: &Saved, files: &[&str]) -> Vec<Figure> {
    let a = draw(saved).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = a.iter().map(|f| f.file.as_str()).collect();
    assert_eq!(names, files);
    let b = draw(saved).unwrap_or_else(|e| panic!("{e}"));
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(x.svg, y.svg, "{} is not deterministic", x.file);
    }
    a
}

/// A drawer that could not draw.
#[derive(Debug, Clone)]
#[allow(dead_code)] // every field is part of what run-all may put in its summary
pub struct Failure {
    pub experiment: String,
    /// The file at fault (the experiment's saved output, or the appendix's numbers).
    pub file: PathBuf,
    /// One line: the file, the line or block where possible, and what is wrong.
    pub message: String,
    /// Figures of this experiment left as they were from an earlier run.
    pub kept: Vec<PathBuf>,
}

/// What one `figures` run did: run-all puts [`Report::summary`] in its summary.
#[derive(Debug, Clone, Default)]
#[allow(dead_code)] // every field is part of what run-all may put in its summary
pub struct Report {
    pub from: PathBuf,
    pub out: PathBuf,
    /// Figures written (moved into place).
    pub drawn: Vec<PathBuf>,
    /// Drawers that failed; their experiments' previous figures were kept.
    pub failed: Vec<Failure>,
    /// Old figures removed because their drawer ran and no longer draws them.
    pub removed: Vec<PathBuf>,
}

impl Report {
    pub fn ok(&self) -> bool {
        self.failed.is_empty()
    }

    /// One line: "20 figures drawn; stride failed (previous figures kept)".
    pub fn summary(&self) -> String {
        let mut s = format!("{} figures drawn", self.drawn.len());
        if !self.failed.is_empty() {
            let names: Vec<String> = self
                .failed
                .iter()
                .map(|f| {
                    if f.kept.is_empty() {
                        format!("{} failed", f.experiment)
                    } else {
                        format!(
                            "{} failed ({} previous figures kept)",
                            f.experiment,
                            f.kept.len()
                        )
                    }
                })
                .collect();
            s.push_str(&format!("; {}", names.join(", ")));
        }
        s
    }
}

/// Draws every figure whose experiment has saved results in `from` and publishes it into
/// `out`: drawn into a temporary folder inside `out`, then moved into place one file at a
/// time. A drawer that fails leaves its previous figures in place and is listed in the
/// report. `label` names the machine in titles (default: the folder's name).
///
/// `Err` only when nothing can be done: `from` unreadable or holding no experiment output,
/// or `out` not writable.
pub fn publish(
    from: &Path,
    out: &Path,
    label: Option<&str>,
    drawers: &Drawers,
) -> Result<Report, String> {
    let names: Vec<&str> = drawers.iter().map(|d| d.0).collect();
    let mut saved = Saved::load(from, &names)?;
    if let Some(l) = label {
        saved.label = l.to_string();
    }
    publish_saved(&saved, out, drawers)
}

/// [`publish`] from results already loaded: `saved.dir` is the folder they came from.
pub fn publish_saved(saved: &Saved, out: &Path, drawers: &Drawers) -> Result<Report, String> {
    let from = saved.dir.as_path();
    if saved.runs.is_empty() && saved.broken.is_empty() {
        return Err(format!(
            "{} holds no saved experiment output (<experiment>.txt)",
            from.display()
        ));
    }
    let existed = out.exists();
    fs::create_dir_all(out).map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    remove_stale_temporaries(out);
    let tmp = out.join(format!(".tmp-figures-{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let result = draw_into(saved, drawers, out, &tmp);
    let _ = fs::remove_dir_all(&tmp);
    if !existed {
        // Made here and still empty (nothing could be drawn): not left behind.
        let _ = fs::remove_dir(out);
    }
    result
}

fn draw_into(saved: &Saved, drawers: &Drawers, out: &Path, tmp: &Path) -> Result<Report, String> {
    let from = saved.dir.as_path();
    let mut report = Report {
        from: from.to_path_buf(),
        out: out.to_path_buf(),
        ..Report::default()
    };
    for (exp, draw, files) in drawers {
        let saved_file = from.join(format!("{exp}.txt"));
        let previous: Vec<PathBuf> = files
            .iter()
            .map(|f| out.join(f))
            .filter(|p| p.is_file())
            .collect();
        if let Some(b) = saved.broken.get(*exp) {
            report.failed.push(Failure {
                experiment: exp.to_string(),
                file: saved_file,
                message: b.message(),
                kept: previous,
            });
            continue;
        }
        if saved.run(exp).is_none() {
            continue;
        }
        // A drawer's panic is a bug, but it must not lose the other figures.
        let drawn = std::panic::catch_unwind(|| draw(saved)).unwrap_or_else(|_| {
            Err(DrawError::from(
                "the drawer panicked (a bug in xtask: please report it with this file)",
            ))
        });
        match drawn {
            Err(e) => {
                let file = e.file.clone().unwrap_or_else(|| saved_file.clone());
                report.failed.push(Failure {
                    experiment: exp.to_string(),
                    message: format!("{}: {}", file.display(), e.message),
                    file,
                    kept: previous,
                });
            }
            Ok(figs) => {
                let mut staged = Vec::new();
                for f in &figs {
                    let p = tmp.join(&f.file);
                    fs::write(&p, &f.svg)
                        .map_err(|e| format!("cannot write {}: {e}", p.display()))?;
                    staged.push(f.file.clone());
                }
                for name in &staged {
                    let dest = out.join(name);
                    fs::rename(tmp.join(name), &dest).map_err(|e| {
                        format!("cannot move a figure into {}: {e}", dest.display())
                    })?;
                    report.drawn.push(dest);
                }
                for p in previous {
                    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    if !staged.iter().any(|s| s == name) && fs::remove_file(&p).is_ok() {
                        report.removed.push(p);
                    }
                }
            }
        }
    }
    Ok(report)
}

/// Removes `.tmp-figures-<pid>` folders left in `out` by xtask runs that are no longer
/// running (a zombie is not running).
fn remove_stale_temporaries(out: &Path) {
    let Ok(rd) = fs::read_dir(out) else { return };
    for e in rd.flatten() {
        let name = e.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(".tmp-figures-"))
            .and_then(|p| p.parse::<u32>().ok())
        else {
            continue;
        };
        if pid != std::process::id() && !crate::project::running(pid, Some("xtask")) {
            let _ = fs::remove_dir_all(e.path());
        }
    }
}

/// The points with the smallest and the largest x among those `keep` accepts, where the two
/// differ in x: the ends a key ratio compares.
pub fn ends(
    points: &[chart::Pt],
    keep: impl Fn(&chart::Pt) -> bool,
) -> Option<(chart::Pt, chart::Pt)> {
    let kept = || points.iter().filter(|p| keep(p));
    let a = kept().min_by(|a, b| a.x.total_cmp(&b.x))?;
    let z = kept().max_by(|a, b| a.x.total_cmp(&b.x))?;
    (a.x < z.x).then_some((*a, *z))
}

/// The key figure `name` as the run saved it, else `computed`: a ratio written on a figure is
/// the one its key figure defines, so the figure, the summary and `compare` quote one number.
pub fn key_or(run: &DataFile, name: &str, computed: Option<f64>) -> Option<f64> {
    measure::key::find(run, name)
        .and_then(|k| k.value)
        .filter(|v| v.is_finite())
        .or(computed)
}

/// A block every drawer needs, or an error naming it.
pub fn need_block<'a>(f: &'a DataFile, block: &str) -> Result<&'a data::Block, DrawError> {
    f.block(block)
        .ok_or_else(|| DrawError::from(format!("no #DATA block {block:?}")))
}

/// "block "latency" (line 40)".
pub fn block_name(b: &data::Block) -> String {
    match (&b.name, b.line) {
        (Some(n), 0) => format!("block {n:?}"),
        (Some(n), l) => format!("block {n:?} (line {l})"),
        (None, 0) => "the bare block".into(),
        (None, l) => format!("the bare block at line {l}"),
    }
}

/// A numeric column, or an error naming the block, its line and the column.
pub fn need_nums(b: &data::Block, col: &str) -> Result<Vec<Option<f64>>, DrawError> {
    b.nums(col)
        .ok_or_else(|| DrawError::from(format!("{} has no numeric column {col:?}", block_name(b))))
}

/// A text column, or an error naming the block, its line and the column.
pub fn need_texts(b: &data::Block, col: &str) -> Result<Vec<String>, DrawError> {
    b.texts(col)
        .ok_or_else(|| DrawError::from(format!("{} has no text column {col:?}", block_name(b))))
}

/// An optional numeric column (added in later runs): missing means "not drawn".
pub fn opt_nums(b: &data::Block, col: &str) -> Vec<Option<f64>> {
    b.nums(col).unwrap_or_else(|| vec![None; b.rows.len()])
}

/// The distinct finite values of a column, sorted: at most `most` of them, the smallest.
pub fn distinct(col: &[Option<f64>], most: usize) -> Vec<f64> {
    let mut v: Vec<f64> = col
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v.truncate(most);
    v
}

/// A median column with its min and max columns (each of those may be missing: the bar then
/// has no whisker).
pub struct Spread {
    median: Vec<Option<f64>>,
    lo: Vec<Option<f64>>,
    hi: Vec<Option<f64>>,
}

impl Spread {
    /// Reads the three columns; only the median is required.
    pub fn read(b: &data::Block, [median, min, max]: [&str; 3]) -> Result<Spread, DrawError> {
        Ok(Spread {
            median: need_nums(b, median)?,
            lo: opt_nums(b, min),
            hi: opt_nums(b, max),
        })
    }

    /// How many rows the median column has.
    pub fn rows(&self) -> usize {
        self.median.len()
    }

    /// Row `i` as a bar; `None` where its median is missing.
    pub fn bar(&self, i: usize) -> Option<chart::Bar> {
        self.median[i].map(|v| chart::Bar::spread(v, self.lo[i], self.hi[i]))
    }

    /// The rows as points at `x` (a row without its x or its median is left out).
    pub fn points(&self, x: &[Option<f64>]) -> Vec<chart::Pt> {
        (0..x.len().min(self.median.len()))
            .filter_map(|i| {
                Some(chart::Pt::spread(
                    x[i]?,
                    self.median[i]?,
                    self.lo[i],
                    self.hi[i],
                ))
            })
            .collect()
    }

    /// The first `rows` rows as bars.
    pub fn bars(&self, rows: usize) -> Vec<Option<chart::Bar>> {
        (0..rows).map(|i| self.bar(i)).collect()
    }
}

/// The cache line size the machine reports (`bytes`), as a vertical mark on a byte axis.
pub fn line_size(bytes: f64) -> chart::Vertical {
    chart::Vertical {
        x: bytes,
        label: format!("line {} B", chart::num(bytes)),
        kind: chart::VerticalKind::Reported,
        legend: "cache line size the machine reports".into(),
    }
}

/// The appendix's own numbers for an experiment, drawn beside ours when saved.
pub struct Reference {
    /// The legend's name for them.
    pub label: String,
    pub path: PathBuf,
    pub file: DataFile,
}

impl Reference {
    /// The first bare block's columns `c1` and `c2` as one dashed series, named by the
    /// reference's label.
    pub fn series(&self) -> Result<chart::Series, DrawError> {
        let pts = self.points("c2")?;
        Ok(chart::Series::new(
            self.label.clone(),
            pts,
            chart::Style::reference(),
        ))
    }

    /// The first bare block's columns `c1` and `c2` as points, or an error where no row has
    /// both numbers.
    pub fn first_points(&self) -> Result<Vec<chart::Pt>, DrawError> {
        let pts = self.points("c2")?;
        if pts.is_empty() {
            return Err(self.error("the bare block has no rows with numbers in columns 1 and 2"));
        }
        Ok(pts)
    }

    /// The first bare block's columns `c1` (x) and `y` as the appendix's points.
    pub fn points(&self, y: &str) -> Result<Vec<chart::Pt>, DrawError> {
        Ok(self
            .pairs("c1", y)?
            .into_iter()
            .map(|(x, y)| chart::Pt::new(x, y))
            .collect())
    }

    /// The first bare block's columns `c1`, `c2`, ... as pairs, or an error naming the file.
    pub fn pairs(&self, x: &str, y: &str) -> Result<Vec<(f64, f64)>, DrawError> {
        let blk = self
            .file
            .bare_blocks()
            .next()
            .ok_or_else(|| self.error("has no bare #DATA block"))?;
        let (Some(xs), Some(ys)) = (blk.nums(x), blk.nums(y)) else {
            return Err(self.error(&format!(
                "{} has no numeric columns {} and {}",
                block_name(blk),
                &x[1..],
                &y[1..]
            )));
        };
        Ok(xs
            .into_iter()
            .zip(ys)
            .filter_map(|(a, b)| Some((a?, b?)))
            .collect())
    }

    pub fn error(&self, msg: &str) -> DrawError {
        DrawError {
            file: Some(self.path.clone()),
            message: msg.to_string(),
        }
    }
}

/// The appendix's own numbers for `exp`, to draw beside ours, if saved:
/// `<dir>/appendix-c/<exp>.txt` (the appendix's C program run on this machine) first, then
/// `<dir>/../appendix-book/<exp>.txt` (the outputs printed in the book, on the author's
/// machine). Both hold the C programs' bare `#DATA` blocks. A malformed file is an error
/// naming the file and line.
pub fn appendix_reference(saved: &Saved, exp: &str) -> Result<Option<Reference>, DrawError> {
    let candidates = [
        (
            saved.dir.join("appendix-c").join(format!("{exp}.txt")),
            "appendix's C program, this machine",
        ),
        (
            saved
                .dir
                .parent()
                .unwrap_or(Path::new("."))
                .join("appendix-book")
                .join(format!("{exp}.txt")),
            "appendix, as printed in the book",
        ),
    ];
    for (p, label) in candidates {
        if p.is_file() {
            let fail = |m: String| DrawError {
                file: Some(p.clone()),
                message: m,
            };
            let text = crate::project::read_regular_text(&p)
                .map_err(|e| fail(format!("cannot read: {e}")))?;
            let file = data::parse(&text).map_err(|e| fail(e.to_string()))?;
            return Ok(Some(Reference {
                label: label.to_string(),
                path: p,
                file,
            }));
        }
    }
    Ok(None)
}

/// The book's printed figures for `exp` (`value figure unit` rows: name and value), from
/// `results/appendix-book/<exp>.txt` beside the saved folder, else in this project's own
/// `results/` (a folder drawn from elsewhere still shows the book's numbers). `None` where
/// neither exists.
pub fn book_figures(saved: &Saved, exp: &str) -> Result<Option<Vec<(String, f64)>>, DrawError> {
    let name = format!("{exp}.txt");
    let beside = saved
        .dir
        .parent()
        .unwrap_or(Path::new("."))
        .join("appendix-book");
    let own = crate::project::root().join("results").join("appendix-book");
    let Some(p) = [beside, own]
        .into_iter()
        .map(|d| d.join(&name))
        .find(|p| p.is_file())
    else {
        return Ok(None);
    };
    let fail = |m: String| DrawError {
        file: Some(p.clone()),
        message: m,
    };
    let text =
        crate::project::read_regular_text(&p).map_err(|e| fail(format!("cannot read: {e}")))?;
    let file = data::parse(&text).map_err(|e| fail(e.to_string()))?;
    Ok(Some(
        crate::book::figure_rows(&file)
            .into_iter()
            .map(|(n, v, _)| (n, v))
            .collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_sorts_drops_repeats_and_non_numbers_and_caps() {
        let col = [
            Some(4.0),
            None,
            Some(1.0),
            Some(f64::NAN),
            Some(4.0),
            Some(2.0),
        ];
        assert_eq!(distinct(&col, 10), vec![1.0, 2.0, 4.0]);
        assert_eq!(distinct(&col, 2), vec![1.0, 2.0]);
    }

    #[test]
    fn spread_reads_whiskers_when_present_and_skips_missing_rows() {
        let f = data::parse(
            "#DATA-BEGIN t\n#COLUMNS x med lo hi\n#DATA 1 5 4 6\n#DATA 2 NA 1 1\n#DATA NA 3 2 4\n\
             #DATA-END\n",
        )
        .unwrap();
        let b = f.block("t").unwrap();
        let s = Spread::read(b, ["med", "lo", "hi"]).unwrap();
        assert_eq!(s.rows(), 3);
        assert_eq!(
            s.bars(2),
            vec![Some(chart::Bar::spread(5.0, Some(4.0), Some(6.0))), None]
        );
        let x = b.nums("x").unwrap();
        let pts = s.points(&x);
        assert_eq!(pts, vec![chart::Pt::spread(1.0, 5.0, Some(4.0), Some(6.0))]);
        let bare = Spread::read(b, ["med", "nope", "nope"]).unwrap();
        assert_eq!(bare.bar(0), Some(chart::Bar::new(5.0)));
        let missing = Spread::read(b, ["none", "lo", "hi"]).err().unwrap();
        assert!(missing.to_string().contains("\"none\""), "{missing}");
    }
}
