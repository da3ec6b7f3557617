//! `cargo xtask lab gather DIR...`: a class's saved checks as one Markdown table, one row per
//! student, one column per exercise, each cell the verdict and the median ratio. A DIR is
//! one student's folder (`labs-results/alice/`, holding `<exercise>.txt`) or a folder of
//! such folders (`labs-results/`, or the folders students handed in). Nothing is written.

use crate::error::{Result, bad};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One saved check: the student, the exercise, the cell to show.
#[derive(Debug, Clone, PartialEq)]
struct Cell {
    student: String,
    lab: String,
    text: String,
}

pub fn command(dirs: &[PathBuf]) -> Result<()> {
    let mut files = Vec::new();
    for d in dirs {
        if !d.is_dir() {
            return Err(bad(format!("{}: not a folder", d.display())));
        }
        files.extend(student_files(d));
    }
    if files.is_empty() {
        return Err(bad(
            "no saved lab check (<student>/<exercise>.txt) in the folders given",
        ));
    }
    let mut cells = Vec::new();
    for f in &files {
        match read(f) {
            Ok(c) => cells.push(c),
            Err(e) => eprintln!("lab gather: {}: {e} (left out)", f.display()),
        }
    }
    print!("{}", table(&cells));
    Ok(())
}

/// The `.txt` files of `dir` if it holds any, else those of its subfolders.
fn student_files(dir: &Path) -> Vec<PathBuf> {
    let txt = |d: &Path| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> = std::fs::read_dir(d)
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        v.retain(|p| p.is_file() && p.extension().is_some_and(|e| e == "txt"));
        v.sort();
        v
    };
    let own = txt(dir);
    if !own.is_empty() {
        return own;
    }
    let mut subs: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.is_dir())
                .collect()
        })
        .unwrap_or_default();
    subs.sort();
    subs.iter().flat_map(|s| txt(s)).collect()
}

/// One saved file as a cell; `Err` says what is wrong with it.
fn read(path: &Path) -> std::result::Result<Cell, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    let f = measure::data::parse(&text).map_err(|e| e.to_string())?;
    let get = |k: &str| {
        f.meta(k)
            .ok_or_else(|| format!("no #META {k}: not a saved lab check"))
    };
    let verdict = get("verdict")?;
    if super::judge::Verdict::from_word(verdict).is_none() {
        return Err(format!("unknown verdict {verdict:?}"));
    }
    let ratio = f
        .meta_num("ratio_median")
        .map_or(String::new(), |r| format!(" {r:.2}x"));
    Ok(Cell {
        student: get("student")?.to_string(),
        lab: get("lab")?.to_string(),
        text: format!("{verdict}{ratio}"),
    })
}

/// The cells as a Markdown table (a later file for the same student and exercise wins).
fn table(cells: &[Cell]) -> String {
    let mut labs: Vec<&str> = cells.iter().map(|c| c.lab.as_str()).collect();
    labs.sort_unstable();
    labs.dedup();
    let mut rows: BTreeMap<&str, BTreeMap<&str, &str>> = BTreeMap::new();
    for c in cells {
        rows.entry(&c.student).or_default().insert(&c.lab, &c.text);
    }
    let mut s = format!("| student | {} |\n", labs.join(" | "));
    s.push_str(&format!("|---|{}\n", "---|".repeat(labs.len())));
    for (student, row) in &rows {
        let cols: Vec<&str> = labs
            .iter()
            .map(|l| row.get(l).copied().unwrap_or("-"))
            .collect();
        s.push_str(&format!("| {student} | {} |\n", cols.join(" | ")));
    }
    let passes = |lab: &&str| {
        cells
            .iter()
            .filter(|c| c.lab == *lab && c.text.starts_with("PASS"))
            .count()
    };
    let totals: Vec<String> = labs.iter().map(|l| passes(l).to_string()).collect();
    s.push_str(&format!("| PASS count | {} |\n", totals.join(" | ")));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(student: &str, lab: &str, text: &str) -> Cell {
        Cell {
            student: student.into(),
            lab: lab.into(),
            text: text.into(),
        }
    }

    #[test]
    fn one_row_per_student_one_column_per_exercise() {
        let t = table(&[
            cell("bob", "tlb", "NOT YET 1.01x"),
            cell("alice", "branch", "PASS 9.10x"),
            cell("alice", "tlb", "PASS 20.00x"),
        ]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines[0], "| student | branch | tlb |");
        assert_eq!(lines[2], "| alice | PASS 9.10x | PASS 20.00x |");
        assert_eq!(lines[3], "| bob | - | NOT YET 1.01x |");
        assert_eq!(lines[4], "| PASS count | 1 | 1 |");
    }
}
