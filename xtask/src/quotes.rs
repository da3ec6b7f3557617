//! Numbers typed by hand into prose (or into a table the code writes), outside the generated
//! sections, each tied to the saved file it quotes and checked by `cargo xtask handouts` (with
//! or without `--check`): the text as written must hold the number the file has, to the
//! digits shown.

use crate::project::root;
use std::path::Path;

/// One quoted number: in `file`, the text `text` with `{}` where the number stands; the saved
/// output `source` (relative to the root) holds it as the figure row `figure` of a bare
/// `value figure unit` block (the appendix folders' form); shown with `digits` significant
/// digits.
pub struct Quote {
    pub file: &'static str,
    pub text: &'static str,
    pub source: &'static str,
    pub figure: &'static str,
    pub digits: usize,
}

const PHONE_LADDER: &str = "results/appendix-phone/cache_ladder.txt";
const BOOK_LADDER: &str = "results/appendix-book/cache_ladder.txt";

const fn q(
    file: &'static str,
    text: &'static str,
    source: &'static str,
    figure: &'static str,
) -> Quote {
    Quote {
        file,
        text,
        source,
        figure,
        digits: 3,
    }
}

/// Every number quoted by hand.
pub const QUOTES: &[Quote] = &[
    q(
        "README.md",
        "(L1 to memory about {}x",
        PHONE_LADDER,
        "ladder_factor",
    ),
    q(
        "README.md",
        "against {}x on the book's x86",
        BOOK_LADDER,
        "ladder_factor",
    ),
    q(
        "docs/INSTRUCTOR.md",
        "L1 to memory is about {}x on the phone",
        PHONE_LADDER,
        "ladder_factor",
    ),
    q(
        "docs/INSTRUCTOR.md",
        "against {}x on the book's x86",
        BOOK_LADDER,
        "ladder_factor",
    ),
    q(
        "docs/INSTRUCTOR.md",
        "8 bytes apart is {}x in the book",
        "results/appendix-book/false_sharing.txt",
        "vs_split_8b",
    ),
    q(
        "docs/INSTRUCTOR.md",
        "penalty is {}x in the book",
        "results/appendix-book/fp_cost.txt",
        "denormal_over_normal",
    ),
    q(
        "docs/instructor/fp_cost.md",
        "the book's x86 machine printed {}x",
        "results/appendix-book/fp_cost.txt",
        "denormal_over_normal",
    ),
    // The book column of Table 105.26 in every summary.md, from the book's printed output.
    q(
        "xtask/src/run_all/table.rs",
        "\"{}x a perfect split (8 bytes)\"",
        "results/appendix-book/false_sharing.txt",
        "vs_split_8b",
    ),
    q(
        "xtask/src/run_all/table.rs",
        "\"{}x\",",
        "results/appendix-book/fp_cost.txt",
        "denormal_over_normal",
    ),
    wall("env_scan took {} s"),
    wall("cache_ladder {} s"),
    wall("false_sharing {} s"),
    wall("env_scan, the longest, takes {} s"),
    q("README.md", "{} s in all for a full", SUMMARY, TOTAL),
];

/// The figure name of a summary's total time ("66 s in all" in its first lines).
const TOTAL: &str = "total time";

/// A wall time quoted in the README from the reference run's summary table.
const fn wall(text: &'static str) -> Quote {
    q("README.md", text, SUMMARY, "wall time")
}

/// The reference run's summary: its experiments table has a "wall time" column.
const SUMMARY: &str = "results/amd-epyc-zen5-2c/summary.md";

/// The quotes that disagree with their files, one line each (none when all agree).
pub fn check() -> Vec<String> {
    check_in(&root(), QUOTES)
}

fn check_in(root: &Path, quotes: &[Quote]) -> Vec<String> {
    quotes.iter().filter_map(|q| one(root, q).err()).collect()
}

fn one(root: &Path, q: &Quote) -> Result<(), String> {
    let src =
        std::fs::read_to_string(root.join(q.source)).map_err(|e| format!("{}: {e}", q.source))?;
    let shown = if q.source.ends_with(".md") {
        let experiment = q.text.split([' ', ',']).next().unwrap_or("");
        let found = if q.figure == TOTAL {
            summary_total(&src)
        } else {
            summary_wall(&src, experiment)
        };
        found.ok_or_else(|| format!("{}: no {} for {experiment}", q.source, q.figure))?
    } else {
        let f = measure::data::parse(&src).map_err(|e| format!("{}: {e}", q.source))?;
        let v = crate::book::figure_rows(&f)
            .into_iter()
            .find(|(name, _, _)| name == q.figure)
            .map(|(_, v, _)| v)
            .ok_or_else(|| format!("{}: no figure {}", q.source, q.figure))?;
        measure::fmt::sig(v, q.digits)
    };
    let want = q.text.replace("{}", &shown);
    let text =
        std::fs::read_to_string(root.join(q.file)).map_err(|e| format!("{}: {e}", q.file))?;
    if text.contains(&want) {
        Ok(())
    } else {
        Err(format!(
            "{}: no \"{want}\" ({} in {})",
            q.file, q.figure, q.source
        ))
    }
}

/// A summary's total time, as written before " s in all".
fn summary_total(summary: &str) -> Option<String> {
    let at = summary.find(" s in all")?;
    let before = &summary[..at];
    let start = before.rfind(' ').map_or(0, |i| i + 1);
    Some(before[start..].to_string())
}

/// The wall time (the number, as written) of `experiment` in a summary's experiments table.
fn summary_wall(summary: &str, experiment: &str) -> Option<String> {
    let mut col = None;
    for line in summary.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.get(1) == Some(&"experiment") {
            col = cells.iter().position(|c| *c == "wall time");
        } else if cells.get(1) == Some(&experiment) {
            let cell = cells.get(col?)?;
            return cell.strip_suffix(" s").map(str::to_string);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_quote_agrees_with_its_file() {
        assert_eq!(check(), Vec::<String>::new());
    }

    #[test]
    fn a_wall_time_is_read_from_the_summary_table() {
        let t = "| experiment | status | wall time |\n|---|---|---:|\n| stride | ok | 3.3 s |\n";
        assert_eq!(summary_wall(t, "stride").as_deref(), Some("3.3"));
        assert_eq!(summary_wall(t, "branch"), None);
        let head = "A full run of all 10 experiments, started then, 66 s in all. Raw";
        assert_eq!(summary_total(head).as_deref(), Some("66"));
        assert_eq!(summary_total("no total here"), None);
    }

    #[test]
    fn a_changed_number_is_found() {
        let wrong = [q(
            "README.md",
            "(L1 to memory about {}x",
            PHONE_LADDER,
            "ladder_factor",
        )];
        assert!(check_in(&root(), &wrong).is_empty());
        let dir = std::env::temp_dir().join(format!("quotes-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("results/appendix-phone")).unwrap();
        std::fs::copy(root().join(PHONE_LADDER), dir.join(PHONE_LADDER)).unwrap();
        std::fs::write(dir.join("README.md"), "(L1 to memory about 133x").unwrap();
        let found = check_in(&dir, &wrong);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(found.len(), 1, "{found:?}");
    }
}
