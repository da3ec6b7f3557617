//! The appendix's printed figures as saved: the transcriptions in `results/appendix-book/`
//! and `results/appendix-phone/` hold, beside the C programs' bare blocks, one bare block of
//! `#DATA <value> <figure> <unit>` rows (see their README.md). Read here, below the figures,
//! `compare` and the handouts, which all quote them.

use measure::data::{Block, DataFile};

/// A `value figure unit` row block: one number, then a text of exactly two words.
pub fn is_figures(b: &Block) -> bool {
    b.columns.len() == 2
        && !b.columns[0].text
        && b.columns[1].text
        && b.rows.iter().all(|r| {
            r[1].text()
                .is_some_and(|t| t.split_whitespace().count() == 2)
        })
}

/// `(figure, value, unit)` from the figure blocks, in file order.
pub fn figure_rows(f: &DataFile) -> Vec<(String, f64, String)> {
    let mut out = Vec::new();
    for b in f.bare_blocks().filter(|b| is_figures(b)) {
        for r in &b.rows {
            let (Some(v), Some(t)) = (r[0].num(), r[1].text()) else {
                continue;
            };
            let mut w = t.split_whitespace();
            if let (Some(name), Some(unit)) = (w.next(), w.next()) {
                out.push((name.to_string(), v, unit.to_string()));
            }
        }
    }
    out
}
