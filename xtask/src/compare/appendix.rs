//! Appendix-style files (bare `#DATA` blocks) in this project's block and column names.
//!
//! The appendix's C programs print one bare block each (columns `c1`, `c2`, ...), and the
//! transcriptions in `results/appendix-book/` and `results/appendix-phone/` add one more bare
//! block of `#DATA <value> <figure> <unit>` rows (see their README.md). Here each is given the
//! names of the block this project prints for the same measurement, so that `compare` lines
//! them up:
//!
//! | experiment | the C program's block | becomes |
//! |---|---|---|
//! | cache_ladder | `kib random_ns [seq_ns] [where]` | `latency`: `kib index_ns seq_ns where` (the C program chases indices) |
//! | stride | `stride_bytes ns` | `stride`: `stride_bytes appendix_ns` |
//! | tlb_walk | `pages ns` | `pages`: `pages offset0_ns` (one slot at offset 0 of each page) |
//! | branch | `period ns` | `patterns`: `pattern period median_ns` |
//! | fp_cost | `op ns` | `ops`: `op appendix_loop_ns` (`a[i] op b[i]` into four accumulators) |
//! | false_sharing | `distance ns` | `distance`: `distance_bytes ns_median vs_split_median` |
//!
//! The `value figure unit` rows become a `key_figures` block (`figure value unit low high`;
//! a figure given twice is a range, `low`..`high`, with no `value`), except the
//! `vs_split_<N>b` rows, which fill `distance`'s `vs_split_median`. Any other bare block is
//! kept as it is.

use crate::book::{figure_rows, is_figures};
use ::cache_ladder::schema as cl;
use measure::data::{Block, DataFile, Value};
use measure::schema;

/// The first bare block that is the C program's own (not a figure block).
fn program_block(f: &DataFile) -> Option<&Block> {
    f.bare_blocks().find(|b| !is_figures(b))
}

/// A numeric column of a bare block by position (0-based), if numeric.
fn col(b: &Block, i: usize) -> Option<Vec<Option<f64>>> {
    match b.columns.get(i) {
        Some(c) if !c.text => Some(b.rows.iter().map(|r| r[i].num()).collect()),
        _ => None,
    }
}

fn ident(s: &str) -> String {
    let t: String = s
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if t.is_empty() { "_".into() } else { t }
}

const PATTERNS: [(f64, &str); 5] = [
    (1.0, "always_true"),
    (2.0, "alternating"),
    (4.0, "one_in_four"),
    (16.0, "one_in_sixteen"),
    (0.0, "random"),
];
const OPS: [&str; 5] = ["multiply", "add", "divide", "sqrt", "sin"];

/// A figure row of an appendix file: name, value, unit.
type Figure = (String, f64, String);
/// The rows of a C program's block: its first two numeric columns, side by side.
type Pairs<'a> =
    std::iter::Zip<std::slice::Iter<'a, Option<f64>>, std::slice::Iter<'a, Option<f64>>>;

/// The experiment's file in this project's names.
pub fn translate(exp: &str, f: &DataFile) -> DataFile {
    let mut out = DataFile {
        meta: f.meta.clone(),
        blocks: Vec::new(),
    };
    let prog = program_block(f);
    let figures = figure_rows(f);
    let named = prog.and_then(|b| named_program_block(exp, b, &figures));
    let used_program = named.is_some();
    out.blocks.extend(named);
    // The phone's false sharing: ratios by distance with no nanoseconds.
    if exp == ::false_sharing::schema::EXPERIMENT && !used_program {
        out.blocks.extend(ratio_only_distance(&figures));
    }
    // Every other bare block is kept as it is.
    for b in f.bare_blocks() {
        let is_prog = used_program && prog.is_some_and(|p| std::ptr::eq(p, b));
        if !is_prog && !is_figures(b) {
            out.blocks.push(b.clone());
        }
    }
    out.blocks.extend(key_figures_block(exp, &figures));
    out
}

/// The C program's block under this project's block and column names, if the experiment
/// has one and the block's first two columns are numeric.
fn named_program_block(exp: &str, b: &Block, figures: &[Figure]) -> Option<Block> {
    let (Some(x), Some(y)) = (col(b, 0), col(b, 1)) else {
        return None;
    };
    let rows = x.iter().zip(&y);
    match exp {
        cl::EXPERIMENT => Some(latency_block(b, rows)),
        ::stride::schema::EXPERIMENT => Some(pairs(
            ::stride::schema::stride::BLOCK,
            ::stride::schema::stride::STRIDE_BYTES,
            ::stride::schema::stride::APPENDIX_NS,
            rows,
        )),
        ::tlb_walk::schema::EXPERIMENT => Some(pairs(
            ::tlb_walk::schema::pages::BLOCK,
            ::tlb_walk::schema::pages::PAGES,
            ::tlb_walk::schema::pages::OFFSET0_NS,
            rows,
        )),
        ::branch::schema::EXPERIMENT => Some(patterns_block(rows)),
        ::fp_cost::schema::EXPERIMENT => Some(ops_block(rows)),
        ::false_sharing::schema::EXPERIMENT => {
            let mut nb = distance_block();
            for (d, v) in rows {
                let split = d.and_then(|d| vs_split(figures, d));
                nb.row(vec![(*d).into(), (*v).into(), split.into()]);
            }
            Some(nb)
        }
        _ => None,
    }
}

/// cache_ladder's `latency` block from the C program's ladder (its optional third numeric
/// column is the sequential time, its text column the level).
fn latency_block(b: &Block, rows: Pairs) -> Block {
    let seq = col(b, 2);
    let where_at = b.columns.iter().position(|c| c.text);
    let where_col = format!("{}:text", cl::latency::WHERE);
    let mut cols = vec![cl::latency::KIB, cl::latency::INDEX_NS];
    if seq.is_some() {
        cols.push(cl::latency::SEQ_NS);
    }
    if where_at.is_some() {
        cols.push(&where_col);
    }
    let mut nb = Block::new(cl::latency::BLOCK, &cols);
    for (i, (k, v)) in rows.enumerate() {
        let mut row: Vec<Value> = vec![(*k).into(), (*v).into()];
        if let Some(s) = &seq {
            row.push(s[i].into());
        }
        if let Some(w) = where_at {
            row.push(match &b.rows[i][w] {
                Value::Text(t) => Value::Text(t.clone()),
                _ => Value::Missing,
            });
        }
        nb.row(row);
    }
    nb
}

/// branch's `patterns` block: each period gets its pattern's name.
fn patterns_block(rows: Pairs) -> Block {
    use ::branch::schema::patterns as pat;
    let pattern = format!("{}:text", pat::PATTERN);
    let mut nb = Block::new(pat::BLOCK, &[&pattern, pat::PERIOD, pat::MEDIAN_NS]);
    for (p, v) in rows {
        let name = p.map_or_else(
            || "unknown".to_string(),
            |p| {
                PATTERNS
                    .iter()
                    .find(|(q, _)| *q == p)
                    .map_or_else(|| ident(&format!("period_{p}")), |(_, n)| n.to_string())
            },
        );
        nb.row(vec![name.into(), (*p).into(), (*v).into()]);
    }
    nb
}

/// fp_cost's `ops` block: each operation's index gets its name.
fn ops_block(rows: Pairs) -> Block {
    use ::fp_cost::schema::{APPENDIX_LOOP_NS, ops};
    let op = format!("{}:text", ops::OP);
    let mut nb = Block::new(ops::BLOCK, &[&op, APPENDIX_LOOP_NS]);
    for (k, v) in rows {
        let name = k
            .filter(|k| k.fract() == 0.0 && *k >= 0.0 && (*k as usize) < OPS.len())
            .map_or_else(
                || ident(&format!("op_{}", k.unwrap_or(-1.0))),
                |k| OPS[k as usize].to_string(),
            );
        nb.row(vec![name.into(), (*v).into()]);
    }
    nb
}

/// false_sharing's `distance` block from the `vs_split_<N>b` figures alone (no
/// nanoseconds), if there are any.
fn ratio_only_distance(figures: &[Figure]) -> Option<Block> {
    let mut ds: Vec<f64> = figures
        .iter()
        .filter_map(|(n, _, _)| split_distance(n))
        .collect();
    ds.dedup();
    if ds.is_empty() {
        return None;
    }
    let mut nb = distance_block();
    for d in ds {
        nb.row(vec![d.into(), Value::Missing, vs_split(figures, d).into()]);
    }
    Some(nb)
}

/// The `key_figures` block from the figure rows (false_sharing's `vs_split_<N>b` rows
/// left out), if any remain.
fn key_figures_block(exp: &str, figures: &[Figure]) -> Option<Block> {
    let kf: Vec<&Figure> = figures
        .iter()
        .filter(|(n, _, _)| {
            exp != ::false_sharing::schema::EXPERIMENT || split_distance(n).is_none()
        })
        .collect();
    if kf.is_empty() {
        return None;
    }
    let mut nb = Block::new(
        schema::key_figures::BLOCK,
        &[
            schema::key_figures::COLUMNS,
            &[schema::key_figures::LOW, schema::key_figures::HIGH],
        ]
        .concat(),
    );
    let mut seen: Vec<&str> = Vec::new();
    for (name, _, unit) in &kf {
        if seen.contains(&name.as_str()) {
            continue;
        }
        seen.push(name);
        let vals: Vec<f64> = kf.iter().filter(|r| &r.0 == name).map(|r| r.1).collect();
        nb.row(key_figure_row(name, unit, &vals));
    }
    Some(nb)
}

/// One figure's row: its value if given once, else the range of its values.
fn key_figure_row(name: &str, unit: &str, vals: &[f64]) -> Vec<Value> {
    if vals.len() == 1 {
        return vec![
            name.into(),
            vals[0].into(),
            unit.into(),
            Value::Missing,
            Value::Missing,
        ];
    }
    let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    vec![
        name.into(),
        Value::Missing,
        unit.into(),
        lo.into(),
        hi.into(),
    ]
}

fn pairs(name: &str, x: &str, y: &str, rows: Pairs) -> Block {
    let mut nb = Block::new(name, &[x, y]);
    for (a, b) in rows {
        nb.row(vec![(*a).into(), (*b).into()]);
    }
    nb
}

/// false_sharing's `distance` block with the columns the appendix's numbers fill.
fn distance_block() -> Block {
    use ::false_sharing::schema::distance as d;
    Block::new(
        d::BLOCK,
        &[d::DISTANCE_BYTES, d::NS_MEDIAN, d::VS_SPLIT_MEDIAN],
    )
}

/// `vs_split_8b` -> 8.
fn split_distance(name: &str) -> Option<f64> {
    name.strip_prefix("vs_split_")?
        .strip_suffix('b')?
        .parse::<f64>()
        .ok()
}

fn vs_split(figures: &[(String, f64, String)], d: f64) -> Option<f64> {
    figures
        .iter()
        .find(|(n, _, _)| split_distance(n) == Some(d))
        .map(|r| r.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::data::parse;

    #[test]
    fn the_c_programs_ladder_becomes_the_latency_block() {
        let f = parse(
            "#DATA-BEGIN\n#DATA 4 1.440 0.380 L1\n#DATA 32768 76.730 0.640 main memory\n#DATA-END\n\
             #DATA-BEGIN\n#DATA 61.5 ladder_factor x\n#DATA-END\n",
        )
        .unwrap();
        let t = translate("cache_ladder", &f);
        let l = t.block("latency").unwrap();
        assert_eq!(l.nums("kib").unwrap(), vec![Some(4.0), Some(32768.0)]);
        assert_eq!(l.nums("index_ns").unwrap(), vec![Some(1.44), Some(76.73)]);
        assert_eq!(l.texts("where").unwrap(), vec!["L1", "main memory"]);
        let k = t.block("key_figures").unwrap();
        assert_eq!(k.texts("figure").unwrap(), vec!["ladder_factor"]);
        assert_eq!(k.nums("value").unwrap(), vec![Some(61.5)]);
        assert_eq!(k.texts("unit").unwrap(), vec!["x"]);
    }

    #[test]
    fn a_figure_given_twice_is_a_range_and_ratios_fill_the_distance_block() {
        let f = parse("#DATA-BEGIN\n#DATA 200 clock_read ns\n#DATA 265 clock_read ns\n#DATA-END\n")
            .unwrap();
        let k = translate("clock_probe", &f);
        let k = k.block("key_figures").unwrap();
        assert_eq!(k.nums("value").unwrap(), vec![None]);
        assert_eq!(k.nums("low").unwrap(), vec![Some(200.0)]);
        assert_eq!(k.nums("high").unwrap(), vec![Some(265.0)]);
        let f = parse(
            "#DATA-BEGIN\n#DATA 1.03 vs_split_8b x\n#DATA 1.00 vs_split_128b x\n\
             #DATA 2.9 baseline_increment ns\n#DATA-END\n",
        )
        .unwrap();
        let t = translate("false_sharing", &f);
        let d = t.block("distance").unwrap();
        assert_eq!(
            d.nums("distance_bytes").unwrap(),
            vec![Some(8.0), Some(128.0)]
        );
        assert_eq!(d.nums("ns_median").unwrap(), vec![None, None]);
        assert_eq!(
            d.nums("vs_split_median").unwrap(),
            vec![Some(1.03), Some(1.0)]
        );
        let k = t.block("key_figures").unwrap();
        assert_eq!(k.texts("figure").unwrap(), vec!["baseline_increment"]);
    }

    #[test]
    fn patterns_and_operations_get_their_names() {
        let f = parse("#DATA-BEGIN\n#DATA 1 0.496\n#DATA 0 3.914\n#DATA 7 1\n#DATA-END\n").unwrap();
        let p = translate("branch", &f);
        assert_eq!(
            p.block("patterns").unwrap().texts("pattern").unwrap(),
            vec!["always_true", "random", "period_7"]
        );
        let f = parse("#DATA-BEGIN\n#DATA 0 0.361\n#DATA 4 8.208\n#DATA-END\n").unwrap();
        let o = translate("fp_cost", &f);
        assert_eq!(
            o.block("ops").unwrap().texts("op").unwrap(),
            vec!["multiply", "sin"]
        );
    }
}
