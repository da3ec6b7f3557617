//! `cargo xtask compare DIR... [--out DIR] [--baseline LABEL] [--index-chase]`: any number of
//! results folders, compared on one figure and in one table.
//!
//! Measuring stays one machine at a time; what scales is the comparison. Each results folder
//! (a run of `run-all`, a run's `appendix-c/`, or the book's numbers in
//! `results/appendix-book/` and `results/appendix-phone/`) is one machine. `compare` writes
//! into `--out` (default: `compare/` under the temporary directory):
//!
//! - `compare.md`: the machines, the headline effects, every key figure side by side with its
//!   ratio to the baseline, the figures, and every missing part ([`md`]);
//! - `compare.csv`: every number of every machine as one tidy long table ([`csv`]);
//! - `compare-*.svg`: one overlay figure per appendix figure ([`figures`], drawn by [`plot`]);
//! - `index.html`: all of it on one static page ([`html`]).
//!
//! The pieces: [`load`] finds and reads the folders, [`appendix`] gives the appendix's bare
//! blocks this project's names, [`keyfig`] and [`effects`] read the headline numbers.
//! [`write_run_index`] writes one run's `index.html` (for `run-all`).
//!
//! Bad input (fewer than two folders, a path that is not a results folder, an unwritable
//! `--out`, a `--baseline` that names none of the folders) is one line and exit status 2, with
//! nothing written. A malformed file inside a folder is reported by file and line, and the
//! folder's other experiments still count.

mod appendix;
mod csv;
mod effects;
mod figures;
mod html;
mod keyfig;
mod load;
mod md;
mod plot;

#[allow(unused_imports)] // for run-all: one run's index.html
pub use html::write_run_index;

use measure::data::DataFile;
use std::fs;
use std::path::{Path, PathBuf};

pub const USAGE: &str =
    "cargo xtask compare DIR DIR... [--out DIR] [--baseline LABEL] [--index-chase]";

const HELP: &str = "\
usage: cargo xtask compare DIR DIR... [--out DIR] [--baseline LABEL] [--index-chase]

Compares two or more results folders (results/<label>/, a run's appendix-c/, or the book's
numbers in results/appendix-book/ and results/appendix-phone/) and writes into --out
(default: compare/ under the temporary directory):
  compare.md      the machines, the effects, every key figure with its ratio to the baseline
  compare.csv     every number: machine,experiment,block,row,column,value,unit
  compare-*.svg   one overlay figure per appendix figure, one series per machine
  index.html      all of it on one static page

  --out DIR         where to write
  --baseline LABEL  the machine the ratios are against (default: the first folder)
  --index-chase     also draw the index chase of each run on the latency figure";

/// What one comparison wrote.
pub struct Written {
    /// The terminal report (stdout).
    pub report: String,
    /// Malformed files, one line each (stderr).
    pub warnings: Vec<String>,
}

#[derive(Debug)]
struct Options {
    dirs: Vec<PathBuf>,
    out: PathBuf,
    baseline: Option<String>,
    index_chase: bool,
}

/// Input echoed in a message, cut to about 80 characters.
fn shown(s: &str) -> String {
    format!("{:?}", plot::clip(s, 80))
}

fn parse_args(args: &[String]) -> Result<Option<Options>, String> {
    let mut o = Options {
        dirs: Vec::new(),
        out: std::env::temp_dir().join("compare"),
        baseline: None,
        index_chase: false,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |inline: Option<String>| {
            inline
                .or_else(|| it.next().cloned())
                .filter(|v| !v.is_empty())
                .ok_or_else(|| format!("{name} needs a value ({USAGE})"))
        };
        match name {
            "-h" | "--help" => return Ok(None),
            "--out" => o.out = PathBuf::from(value(inline)?),
            "--baseline" => o.baseline = Some(value(inline)?),
            "--index-chase" if inline.is_none() => o.index_chase = true,
            "--index-chase" => return Err("--index-chase takes no value".into()),
            n if n.starts_with('-') && n.len() > 1 => {
                return Err(format!("unknown argument {} ({USAGE})", shown(a)));
            }
            _ => o.dirs.push(PathBuf::from(a)),
        }
    }
    if o.dirs.len() < 2 {
        return Err(format!(
            "compare needs at least two results folders, got {}: {USAGE}",
            o.dirs.len()
        ));
    }
    Ok(Some(o))
}

/// Writes `text` to `dir/name` through a temporary file, so a reader never sees half a file.
fn write_file(dir: &Path, name: &str, text: &str) -> Result<(), String> {
    let p = dir.join(name);
    let tmp = dir.join(format!(".{name}.tmp"));
    fs::write(&tmp, text)
        .and_then(|_| fs::rename(&tmp, &p))
        .map_err(|e| {
            let _ = fs::remove_file(&tmp);
            format!("cannot write --out {}: {e}", dir.display())
        })
}

/// Wraps `text` at word boundaries into lines of at most `width` columns, each prefixed.
fn wrap(text: &str, width: usize, first: &str, rest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = first.to_string();
    let mut empty = true;
    for w in text.split_whitespace() {
        if !empty && cur.chars().count() + 1 + w.chars().count() > width {
            out.push(std::mem::replace(&mut cur, rest.to_string()));
            empty = true;
        }
        if !empty {
            cur.push(' ');
        }
        cur.push_str(w);
        empty = false;
    }
    out.push(cur);
    out
}

/// Runs a comparison. `Ok(None)`: help was asked for. `Err`: bad input, one line.
pub fn command(args: &[String]) -> Result<Option<Written>, String> {
    let Some(o) = parse_args(args)? else {
        return Ok(None);
    };
    let mut machines = Vec::new();
    for d in &o.dirs {
        machines.push(load::load(d)?);
    }
    load::label_all(&mut machines);
    let base = match &o.baseline {
        None => 0,
        Some(b) => {
            let exact: Vec<usize> = (0..machines.len())
                .filter(|&i| machines[i].label == *b)
                .collect();
            let by_name: Vec<usize> = (0..machines.len())
                .filter(|&i| {
                    machines[i]
                        .dir
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy() == *b)
                })
                .collect();
            match (exact.as_slice(), by_name.as_slice()) {
                ([i, ..], _) | ([], [i]) => *i,
                _ => {
                    let labels: Vec<&str> = machines.iter().map(|m| m.label.as_str()).collect();
                    return Err(format!(
                        "--baseline {} is not among the folders compared ({})",
                        shown(b),
                        plot::clip(&labels.join(", "), 200)
                    ));
                }
            }
        }
    };

    // Everything is made in memory first; then written.
    let rows = csv::rows(&machines);
    let csv_text = csv::render(&rows);
    let figs = figures::draw_all(&machines, base, o.index_chase)?;
    let md_text = md::render(&machines, base, &figs, rows.len());
    let inline: Vec<(String, String)> = figs
        .iter()
        .map(|f| (f.file.to_string(), f.svg.clone()))
        .collect();
    let html_text = html::compare_page(&md_text, &inline);

    let out = &o.out;
    if out.exists() && !out.is_dir() {
        return Err(format!(
            "cannot write --out {}: it is not a folder",
            out.display()
        ));
    }
    if load::present_experiments(out).is_ok() {
        // Its own index.html (written by run-all) would be replaced.
        return Err(format!(
            "--out {} is a results folder; give the comparison a folder of its own",
            out.display()
        ));
    }
    fs::create_dir_all(out).map_err(|e| format!("cannot write --out {}: {e}", out.display()))?;
    write_file(out, "compare.md", &md_text)?;
    write_file(out, "compare.csv", &csv_text)?;
    for f in &figs {
        write_file(out, f.file, &f.svg)?;
    }
    write_file(out, "index.html", &html_text)?;
    // An overlay an earlier comparison drew that this one does not (its data is gone) would
    // mislead beside the others.
    for stale in figures::FILES {
        if !figs.iter().any(|f| f.file == *stale) {
            let _ = fs::remove_file(out.join(stale));
        }
    }

    let report = report(&machines, base, &figs, rows.len(), out);
    let warnings = machines
        .iter()
        .flat_map(|m| {
            m.problems.iter().map(move |p| {
                format!(
                    "compare: warning: {p} (left out; {}'s other experiments still count)",
                    m.label
                )
            })
        })
        .collect();
    Ok(Some(Written { report, warnings }))
}

fn report(
    ms: &[load::Machine],
    base: usize,
    figs: &[figures::Overlay],
    rows: usize,
    out: &Path,
) -> String {
    let mut lines = vec![format!(
        "compare: {} machines, ratios against {}",
        ms.len(),
        ms[base].label
    )];
    let width = ms
        .iter()
        .map(|m| m.label.chars().count())
        .max()
        .unwrap_or(8)
        .min(30);
    if ms.len() <= 8 {
        for m in ms {
            lines.push(format!(
                "  {:width$}  {}",
                plot::clip(&m.label, 30),
                m.dir.display()
            ));
        }
        lines.push(String::new());
        lines.push("Effects (computed the same way for every machine; how: compare.md):".into());
        for e in effects::EFFECTS {
            lines.push(format!("  {}", e.name));
            for m in ms {
                let first = format!("    {:width$}  ", plot::clip(&m.label, 30));
                let rest = " ".repeat(first.chars().count());
                lines.extend(wrap(&(e.cell)(m).render(), 100, &first, &rest));
            }
        }
    } else {
        lines.push(String::new());
        lines.push("Effects (how many machines with the numbers show each):".into());
        for e in effects::EFFECTS {
            let cells: Vec<effects::Cell> = ms.iter().map(|m| (e.cell)(m)).collect();
            let yes = cells.iter().filter(|c| c.shows() == Some(true)).count();
            let with = cells.iter().filter(|c| c.shows().is_some()).count();
            let text = if with > 0 {
                format!(
                    "{}: {yes} of {with}; {}: {}",
                    e.name,
                    ms[base].label,
                    cells[base].render()
                )
            } else {
                format!("{}: {}: {}", e.name, ms[base].label, cells[base].render())
            };
            lines.extend(wrap(&text, 100, "  ", "    "));
        }
    }
    let missing = md::missing_parts(ms).len();
    lines.push(String::new());
    if missing > 0 {
        lines.push(format!(
            "{missing} missing or odd part(s), each listed in compare.md."
        ));
    }
    lines.extend(wrap(
        &format!(
            "wrote {}: compare.md, compare.csv ({rows} numbers), {} figure(s), index.html",
            out.display(),
            figs.len()
        ),
        100,
        "",
        "  ",
    ));
    let mut s = lines.join("\n");
    s.push('\n');
    s
}

/// The `compare` subcommand: prints the report, or one line and exit 2 on bad input.
pub fn main(args: &[String]) -> i32 {
    match command(args) {
        Ok(None) => {
            println!("{HELP}");
            0
        }
        Ok(Some(w)) => {
            for l in &w.warnings {
                eprintln!("{}", plot::clip(l, 300));
            }
            print!("{}", w.report);
            0
        }
        Err(e) => crate::fail(&e),
    }
}

/// A number with four significant digits for tables ("23.42", "0.01234", "6702").
pub fn sig4(x: f64) -> String {
    if !x.is_finite() {
        return "NA".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (3 - mag).clamp(0, 12) as usize;
    format!("{x:.decimals$}")
}

/// `(figure, value, unit)` from an experiment's `key_figures` block.
pub fn key_figures(f: Option<&DataFile>) -> Vec<(String, Option<f64>, String)> {
    let Some(b) = f.and_then(|f| f.block("key_figures")) else {
        return Vec::new();
    };
    let (Some(n), Some(v), Some(u)) = (b.texts("figure"), b.nums("value"), b.texts("unit")) else {
        return Vec::new();
    };
    n.into_iter()
        .zip(v)
        .zip(u)
        .map(|((n, v), u)| (n, v, u))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_significant_digits() {
        assert_eq!(sig4(23.4234), "23.42");
        assert_eq!(sig4(6702.4), "6702");
        assert_eq!(sig4(0.0123456), "0.01235");
        assert_eq!(sig4(123456.0), "123456");
        assert_eq!(sig4(f64::NAN), "NA");
    }

    #[test]
    fn arguments() {
        let a = |v: &[&str]| parse_args(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert!(a(&["x"]).unwrap_err().contains("two results folders"));
        assert!(a(&[]).unwrap_err().contains("got 0"));
        assert!(
            a(&["x", "y", "--bogus"])
                .unwrap_err()
                .contains("unknown argument")
        );
        assert!(
            a(&["x", "y", "--out"])
                .unwrap_err()
                .contains("needs a value")
        );
        assert!(a(&["x", "y", "--index-chase=1"]).is_err());
        let o = a(&["x", "--out=/tmp/o", "y", "--baseline", "y", "--index-chase"])
            .unwrap()
            .unwrap();
        assert_eq!(o.dirs.len(), 2);
        assert_eq!(o.out, PathBuf::from("/tmp/o"));
        assert_eq!(o.baseline.as_deref(), Some("y"));
        assert!(o.index_chase);
        assert!(a(&["--help"]).unwrap().is_none());
        let long = "--".to_string() + &"z".repeat(10_000);
        assert!(a(&["x", "y", &long]).unwrap_err().len() < 200);
    }

    #[test]
    fn wrapping_keeps_lines_short() {
        let w = wrap(&"word ".repeat(60), 40, "  ", "    ");
        assert!(w.len() > 1);
        assert!(w.iter().all(|l| l.chars().count() <= 40));
        assert!(w[1].starts_with("    word"));
    }
}
