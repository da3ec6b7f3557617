//! `cargo xtask compare DIR... [--out DIR] [--baseline LABEL] [--pointer-chase]`: any number of
//! results folders, compared on one figure and in one table.
//!
//! Measuring stays one machine at a time; what scales is the comparison. Each results folder
//! (a run of `run-all`, a run's `appendix-c/`, or the book's numbers in
//! `results/appendix-book/` and `results/appendix-phone/`) is one machine. `compare` writes
//! into `--out` (default: `compare/` under the temporary directory):
//!
//! - `compare.md`: the machines, the headline effects, every key figure side by side with its
//!   ratio to the baseline, the figures, and every missing part ([`md`]; beyond six machines,
//!   machines are rows and the class is summarised: [`class`]);
//! - `compare.csv`: every number of every machine as one tidy long table ([`csv`]);
//! - `compare-*.svg`: one overlay figure per appendix figure, and bandwidth by working set
//!   ([`figures`], drawn with the single-run figures' charts);
//! - `index.html`: all of it on one static page ([`html`]).
//!
//! The pieces: [`load`] finds and reads the folders, [`appendix`] gives the appendix's bare
//! blocks this project's names, [`keyfig`] and [`effects`] read the headline numbers.
//! One run's `index.html` is `run_all::page`'s, with [`html`]'s converter.
//!
//! Bad input (fewer than two folders, a path that is not a results folder, an unwritable
//! `--out`, a `--baseline` that names none of the folders) is one line and exit status 2, with
//! nothing written. A malformed file inside a folder is reported by file and line, and the
//! folder's other experiments still count.

pub(crate) mod appendix;
mod class;
pub mod csv;
mod effects;
mod figures;
pub(crate) mod html;
mod keyfig;
pub(crate) mod load;
mod md;

use std::fs;
use std::path::Path;

/// What one comparison wrote.
pub struct Written {
    /// The terminal report (stdout).
    pub report: String,
    /// Malformed files, one line each (stderr).
    pub warnings: Vec<String>,
}

/// Input echoed in a message, cut to about 80 characters.
fn shown(s: &str) -> String {
    format!("{:?}", clip(s, 80))
}

pub use crate::figures::chart::clip;

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
    measure::fmt::wrap_to(text, first, rest, width)
        .lines()
        .map(str::to_string)
        .collect()
}

/// Runs a comparison. `Err`: bad input, one line.
pub fn run(o: &crate::flags::Compare) -> Result<Written, String> {
    let mut machines = Vec::new();
    for d in &o.dirs {
        machines.push(load::load(d)?);
    }
    load::label_all(&mut machines);
    let base = match &o.baseline {
        None => 0,
        Some(b) => baseline(&machines, b)?,
    };

    // Everything is made in memory first; then written.
    let rows = csv::rows(&machines);
    let csv_text = csv::render(&rows);
    let figs = figures::draw_all(&machines, base, o.pointer_chase)?;
    let md_text = md::render(&machines, base, &figs, rows.len());
    let inline: Vec<(String, String)> = figs
        .iter()
        .map(|f| (f.file.to_string(), f.svg.clone()))
        .collect();
    let html_text = html::compare_page(&md_text, &inline);

    let out = &o.out;
    check_out(out)?;
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
    Ok(Written {
        report,
        warnings: warnings(&machines),
    })
}

/// The index of the machine `--baseline b` names: by its label, else by its folder's name
/// where that names one machine only.
fn baseline(machines: &[load::Machine], b: &str) -> Result<usize, String> {
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
        ([i, ..], _) | ([], [i]) => Ok(*i),
        _ => {
            let labels: Vec<&str> = machines.iter().map(|m| m.label.as_str()).collect();
            Err(format!(
                "--baseline {} is not among the folders compared ({})",
                shown(b),
                clip(&labels.join(", "), 200)
            ))
        }
    }
}

/// Refuses an `--out` that is a file, or a results folder (whose own index.html would be
/// replaced).
fn check_out(out: &Path) -> Result<(), String> {
    if out.exists() && !out.is_dir() {
        return Err(format!(
            "cannot write --out {}: it is not a folder",
            out.display()
        ));
    }
    if load::present_experiments(out).is_ok() {
        return Err(format!(
            "--out {} is a results folder; give the comparison a folder of its own",
            out.display()
        ));
    }
    Ok(())
}

/// One warning line per experiment file left out.
fn warnings(machines: &[load::Machine]) -> Vec<String> {
    machines
        .iter()
        .flat_map(|m| {
            m.problems.iter().map(move |p| {
                format!(
                    "compare: warning: {p} (left out; {}'s other experiments still count)",
                    m.label
                )
            })
        })
        .collect()
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
                clip(&m.label, 30),
                m.dir.display()
            ));
        }
        lines.push(String::new());
        lines.push("Effects (computed the same way for every machine; how: compare.md):".into());
        for e in effects::EFFECTS {
            lines.push(format!("  {}", e.name));
            for m in ms {
                let first = format!("    {:width$}  ", clip(&m.label, 30));
                let rest = " ".repeat(first.chars().count());
                lines.extend(wrap(&(e.cell)(m).render(), 100, &first, &rest));
            }
        }
    } else {
        lines.push(String::new());
        lines.push("Effects (how many machines with the numbers show each):".into());
        for e in effects::EFFECTS {
            let cells: Vec<effects::Cell> = ms.iter().map(|m| (e.cell)(m)).collect();
            let (yes, with) = effects::tally(&cells);
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

/// `cargo xtask compare`: prints the report; bad input is one line and exit status 2.
pub fn command(o: &crate::flags::Compare) -> crate::error::Result<()> {
    let w = run(o).map_err(crate::error::bad)?;
    for l in &w.warnings {
        eprintln!("{}", clip(l, 300));
    }
    print!("{}", w.report);
    Ok(())
}

/// A number with four significant digits for tables ("23.42", "0.01234", "6702").
pub fn sig4(x: f64) -> String {
    measure::fmt::sig(x, 4)
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
    fn wrapping_keeps_lines_short() {
        let w = wrap(&"word ".repeat(60), 40, "  ", "    ");
        assert!(w.len() > 1);
        assert!(w.iter().all(|l| l.chars().count() <= 40));
        assert!(w[1].starts_with("    word"));
    }
}
