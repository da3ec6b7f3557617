//! `compare.csv`: every number of every machine as one tidy long table.
//!
//! Columns `machine,experiment,block,row,column,value,unit,provisional`, one line per numeric
//! cell:
//! - `machine`: the folder's label (unique in the comparison);
//! - `experiment`, `block`, `column`: the `#DATA` names (`cache_ladder`, `latency`,
//!   `pointer_ns`); bare blocks that have no name here are `block1`, `block2`, ...;
//! - `row`: what the row is about, from the block's key columns (`4` for 4 KiB in `latency`,
//!   `clock_read` in `key_figures`, `64/forward` where two columns make the key); the key
//!   columns that are numbers appear as values too, so a pivot gives them back as columns;
//! - `value`: a plain number (shortest exact form, always with a decimal point or exponent);
//! - `unit`: from the column name (`_ns` -> `ns`, `kib` -> `KiB`, ratios -> `x`), or the
//!   `unit` column of `key_figures`; empty where the number has none (a count, an index);
//! - `provisional`: `yes` where the run's evidence says the number came from disturbed rounds
//!   (its block, or the row itself, or for a key figure the result it comes from: see
//!   [`crate::marks`]), `no` where it says they were clean, empty where the run recorded no
//!   evidence for it (runs saved before it did, untimed blocks, the book's numbers).
//!
//! Cells that were not measured (`NA`) and text cells have no line. The key
//! `machine,experiment,block,row,column` is unique.

use super::load::Machine;
use measure::data::{Block, Value, format_num};
use measure::schema;
use std::collections::BTreeMap;

pub const HEADER: &str = "machine,experiment,block,row,column,value,unit,provisional";

/// One line of the table.
pub struct Row<'a> {
    pub machine: &'a str,
    pub experiment: &'a str,
    pub block: String,
    pub row: String,
    pub column: &'a str,
    pub value: f64,
    pub unit: String,
    /// `Some(true)`: from disturbed rounds; `None`: no evidence recorded.
    pub provisional: Option<bool>,
}

/// The unit of a column, from its name (units are part of column names in `#DATA`).
pub fn unit_of(column: &str) -> &'static str {
    let c = column;
    let ends = |s: &str| c == s.trim_start_matches('_') || c.ends_with(s);
    if c == "ns" || c.starts_with("ns_") || c.contains("_ns_") || ends("_ns") {
        "ns"
    } else if ends("_kib") {
        "KiB"
    } else if ends("_bytes") {
        "bytes"
    } else if ends("_pct") {
        "%"
    } else if ends("_cycles") || c.starts_with("cycles_") {
        "cycles"
    } else if ends("_ghz") {
        "GHz"
    } else if ends("_ms") {
        "ms"
    } else if c.ends_with("_s") {
        "s"
    } else if c == "pages" {
        "pages"
    } else if c == "threads" {
        "threads"
    } else if c == "factor"
        || c.ends_with("_factor")
        || c == "ratio"
        || c.starts_with("vs_")
        || c.contains("_over_")
    {
        "x"
    } else {
        ""
    }
}

fn cell_key(v: &Value) -> String {
    match v {
        Value::Num(x) => format_num(*x),
        Value::Text(t) => t.clone(),
        Value::Missing => "NA".into(),
    }
}

/// The row keys of a block, unique within it.
fn row_keys(experiment: &str, b: &Block) -> Vec<String> {
    let name = b.name.as_deref().unwrap_or("");
    // The key figures' block is every experiment's; the others' keys are in the descriptors.
    let known = if name == schema::key_figures::BLOCK {
        Some(&[schema::key_figures::FIGURE][..])
    } else {
        let listed = crate::experiments::find(experiment).map_or(&[][..], |e| e.row_keys);
        listed.iter().find(|(n, _)| *n == name).map(|(_, k)| *k)
    };
    let idx: Vec<usize> = match known {
        Some(k) => k.iter().filter_map(|c| b.col_index(c)).collect(),
        None => {
            // Leading text columns, as few as make the rows unique.
            let texts: Vec<usize> = (0..b.columns.len())
                .take_while(|&i| b.columns[i].text)
                .collect();
            (1..=texts.len())
                .map(|n| texts[..n].to_vec())
                .find(|cols| unique(b, cols))
                .unwrap_or_default()
        }
    };
    let mut keys: Vec<String> = b
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if idx.is_empty() {
                (i + 1).to_string()
            } else {
                idx.iter()
                    .map(|&c| cell_key(&r[c]))
                    .collect::<Vec<_>>()
                    .join("/")
            }
        })
        .collect();
    // A key that repeats (a changed format, a hand-edited file) is numbered.
    let mut count: BTreeMap<String, usize> = BTreeMap::new();
    for k in &keys {
        *count.entry(k.clone()).or_default() += 1;
    }
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for k in keys.iter_mut() {
        if count[k.as_str()] > 1 {
            let n = seen.entry(k.clone()).or_default();
            *n += 1;
            *k = format!("{k}#{n}");
        }
    }
    keys
}

fn unique(b: &Block, cols: &[usize]) -> bool {
    let mut seen = std::collections::BTreeSet::new();
    b.rows.iter().all(|r| {
        seen.insert(
            cols.iter()
                .map(|&c| cell_key(&r[c]))
                .collect::<Vec<_>>()
                .join("/"),
        )
    })
}

/// Every numeric cell of every machine, in machine, experiment and file order.
pub fn rows(machines: &[Machine]) -> Vec<Row<'_>> {
    let mut out = Vec::new();
    for m in machines {
        for exp in crate::experiments::NAMES.iter() {
            let Some(f) = m.runs.get(*exp) else { continue };
            for (block, b) in crate::project::named_blocks(f) {
                let keys = row_keys(exp, b);
                let unit_col = (block == schema::key_figures::BLOCK)
                    .then(|| b.col_index(schema::key_figures::UNIT))
                    .flatten();
                let marks = provisional(f, exp, &block, b, &keys);
                for ((r, key), prov) in b.rows.iter().zip(&keys).zip(marks) {
                    for (c, col) in b.columns.iter().enumerate() {
                        let Value::Num(v) = r[c] else { continue };
                        let unit = match unit_col.map(|u| &r[u]) {
                            Some(Value::Text(u)) => u.clone(),
                            _ => unit_of(&col.name).to_string(),
                        };
                        out.push(Row {
                            machine: &m.label,
                            experiment: exp,
                            block: block.clone(),
                            row: key.clone(),
                            column: &col.name,
                            value: v,
                            unit,
                            provisional: prov,
                        });
                    }
                }
            }
        }
    }
    out
}

/// Per row of block `b` (named `block`, keyed `keys`) of `exp`'s saved run `f`: whether its
/// numbers are provisional, by the run's evidence; `None` where there is none.
fn provisional(
    f: &measure::data::DataFile,
    exp: &str,
    block: &str,
    b: &Block,
    keys: &[String],
) -> Vec<Option<bool>> {
    use crate::marks;
    if block == schema::key_figures::BLOCK {
        return keys
            .iter()
            .map(|k| crate::experiments::key_mark(f, exp, k).map(|m| m.provisional))
            .collect();
    }
    let whole = marks::block(f, block).map(|m| m.provisional);
    let has_rounds = b.col_index(schema::disturbance::DISTURBED_ROUNDS).is_some();
    marks::disturbed_rows(f, b)
        .into_iter()
        .map(|d| match (whole, has_rounds) {
            (None, false) => None,
            (w, _) => Some(d || w == Some(true)),
        })
        .collect()
}

/// A number in its shortest exact form, always readable as a float (`4.0`, `0.986153`, `1e-7`).
pub fn number(v: f64) -> String {
    format!("{v:?}")
}

/// The table as CSV text, the header first.
pub fn render(rows: &[Row<'_>]) -> String {
    let header = HEADER.split(',').map(String::from).collect();
    let lines = rows.iter().map(|r| {
        let provisional = match r.provisional {
            Some(true) => "yes",
            Some(false) => "no",
            None => "",
        };
        vec![
            r.machine.into(),
            r.experiment.into(),
            r.block.clone(),
            r.row.clone(),
            r.column.into(),
            number(r.value),
            r.unit.clone(),
            provisional.into(),
        ]
    });
    crate::csv_text::lines(std::iter::once(header).chain(lines))
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::data::parse;

    #[test]
    fn units_come_from_column_names() {
        for (c, u) in [
            ("pointer_ns", "ns"),
            ("ns_median", "ns"),
            ("ns", "ns"),
            ("kib", "KiB"),
            ("span_kib", "KiB"),
            ("distance_bytes", "bytes"),
            ("huge_backing_pct", "%"),
            ("index_cycles", "cycles"),
            ("vs_split_median", "x"),
            ("random_over_sorted", "x"),
            ("factor", "x"),
            ("round", ""),
            ("extra_ns_per_element", "ns"),
            ("cycles_per_miss", "cycles"),
            ("pages", "pages"),
        ] {
            assert_eq!(unit_of(c), u, "{c}");
        }
    }

    #[test]
    fn row_keys_are_unique_even_when_the_key_repeats() {
        let f = parse(
            "#DATA-BEGIN stride\n#COLUMNS stride_bytes appendix_ns\n#DATA 1 0.5\n#DATA 1 0.6\n\
             #DATA 2 0.7\n#DATA-END\n",
        )
        .unwrap();
        let k = row_keys("stride", &f.blocks[0]);
        assert_eq!(k, vec!["1#1", "1#2", "2"]);
        let f = parse("#DATA-BEGIN odd\n#COLUMNS a b\n#DATA 1 2\n#DATA-END\n").unwrap();
        assert_eq!(row_keys("x", &f.blocks[0]), vec!["1"]);
    }

    #[test]
    fn numbers() {
        assert_eq!(number(4.0), "4.0");
        assert_eq!(number(0.986153), "0.986153");
        assert!(number(1e-7).parse::<f64>().is_ok());
    }
}
