//! The run's rows and how they are printed: the human tables of each section and their
//! `#DATA` blocks (`shape`, `variants`, `mispredict`, `patterns`). Every timed row ends with
//! its `rounds` and `disturbed_rounds`.

use crate::PerVersion;
use crate::bench::{Orders, Pattern};
use branch::shape::{Shape, Verdict};
use measure::clock::CoreClock;
use measure::data::{Block, Value};
use measure::disturb::Tally;
use measure::fmt::{WIDTH, median_min_max, wrap_to};
use measure::out::Out;
use measure::stats::Summary;

/// Section 1: each version's verdict read from the binary, with its sentence.
pub fn print_shapes(shapes: &PerVersion<Result<Verdict, String>>) {
    for (v, s) in shapes.iter() {
        let text = match s {
            Ok(s) => format!("{}: {}", s.shape, s.sentence()),
            Err(e) => format!("could not check ({e})"),
        };
        let first = format!("  {:<22}: ", v.label());
        println!("{}", wrap_to(&text, &first, &" ".repeat(26), WIDTH));
    }
}

/// The `shape` block: one row per version, `unchecked` where the binary could not be read.
pub fn shape_block(shapes: &PerVersion<Result<Verdict, String>>) -> Block {
    let mut b = Block::new(
        ::branch::schema::shape::BLOCK,
        ::branch::schema::shape::COLUMNS,
    );
    for (version, v) in shapes.iter() {
        let (verdict, loops, forks): (Value, Value, Value) = match v {
            Ok(v) => (v.shape.word().into(), v.loops.into(), v.forks.len().into()),
            Err(_) => ("unchecked".into(), Value::Missing, Value::Missing),
        };
        b.row(vec![
            version.label().into(),
            version.symbol().into(),
            verdict,
            loops,
            forks,
        ]);
    }
    b
}

/// Section 2: the random/sorted table, its footnote and the `variants` block.
pub fn print_orders(out: &mut Out, found: &Orders, expect: i64) {
    let orders = &found.orders;
    println!(
        "\n  {:<22} {:>24} {:>24} {:>14}",
        "ns per element", "random order", "sorted order", "random/sorted"
    );
    let mut b = Block::new(
        ::branch::schema::variants::BLOCK,
        ::branch::schema::variants::COLUMNS,
    );
    for (v, o) in orders.iter() {
        let (r, s) = (&o.random, &o.sorted);
        println!(
            "  {:<22} {:>24} {:>24} {:>12.2} x",
            v.label(),
            r.median_range(),
            s.median_range(),
            o.ratio()
        );
        let mut row = vec![
            v.label().into(),
            o.shape.map_or("unchecked", Shape::word).into(),
        ];
        row.extend(median_min_max(Some(r)));
        row.extend(median_min_max(Some(s)));
        row.extend([
            o.ratio().into(),
            o.tally.rounds.into(),
            o.tally.disturbed.into(),
        ]);
        b.row(row);
    }
    println!(
        "  (median, min..max over the clean rounds; every slice's sum was checked, {expect} in all)"
    );
    out.block(&b);
}

/// Section 2b's table: each build of the one source over random and sorted data, and its
/// `same_source` block.
pub fn print_builds(out: &mut Out, built: &[crate::bench::Built]) {
    println!(
        "\n  {:<26} {:>22} {:>22} {:>14}",
        "ns per element", "random order", "sorted order", "random/sorted"
    );
    let mut b = Block::new(
        ::branch::schema::same_source::BLOCK,
        ::branch::schema::same_source::COLUMNS,
    );
    for o in built {
        let (r, s) = (&o.random, &o.sorted);
        let ratio = r.median / s.median;
        println!(
            "  {:<26} {:>22} {:>22} {:>12.2} x",
            o.label,
            r.median_range(),
            s.median_range(),
            ratio
        );
        let mut row = vec![
            o.label.into(),
            o.shape.map_or("unchecked", Shape::word).into(),
        ];
        row.extend(median_min_max(Some(r)));
        row.extend(median_min_max(Some(s)));
        row.extend([
            ratio.into(),
            o.tally.rounds.into(),
            o.tally.disturbed.into(),
        ]);
        b.row(row);
    }
    out.block(&b);
}

/// The cost of one misprediction, with the range the rounds' extremes allow.
#[derive(Clone, Copy)]
pub struct Miss {
    pub ns: f64,
    pub low: f64,
    pub high: f64,
}

/// Section 3's result: the cost of one misprediction or why it was not derived, from the real
/// branch's rounds (counted in `tally`).
pub struct MissFound {
    /// Random median minus sorted median, per element.
    pub extra: f64,
    /// The share of random-order guesses that must fail.
    pub miss_rate: f64,
    /// The share of values that pass the test.
    pub taken: f64,
    pub miss: Result<Miss, String>,
    pub tally: Tally,
}

/// Section 3: how the cost of one misprediction was derived.
pub fn print_miss(found: &MissFound, m: &Miss, cc: &CoreClock) {
    let (extra, miss_rate, taken) = (found.extra, found.miss_rate, found.taken);
    println!("  extra time per element, random minus sorted : {extra:.3} ns (medians)");
    println!(
        "  share of random-order guesses that must fail: {miss_rate:.3} ({:.1}% pass the test, in no order)",
        taken * 100.0
    );
    println!(
        "  so one misprediction costs about            : {:.1} ns{} (rounds' extremes: {:.1} .. {:.1})",
        m.ns,
        cc.cycles(m.ns)
            .map_or(String::new(), |c| format!(", {c:.0} cycles")),
        m.low,
        m.high
    );
    println!(
        "{}",
        wrap_to(
            "no guess beats the majority on random order; sorted order is taken as missing \
             almost never, which `cargo xtask verify` checks in a branch simulator.",
            "  ",
            "  ",
            WIDTH
        )
    );
}

/// The `mispredict` block (one row; `NA` where the cost was not derived).
pub fn miss_block(found: &MissFound, cc: &CoreClock) -> Block {
    let (extra, miss_rate, m) = (found.extra, found.miss_rate, found.miss.as_ref().ok());
    let mut b = Block::new(
        ::branch::schema::mispredict::BLOCK,
        ::branch::schema::mispredict::COLUMNS,
    );
    b.row(vec![
        extra.into(),
        miss_rate.into(),
        m.map(|m| m.ns).into(),
        m.map(|m| m.low).into(),
        m.map(|m| m.high).into(),
        m.and_then(|m| cc.cycles(m.ns)).into(),
        found.tally.rounds.into(),
        found.tally.disturbed.into(),
    ]);
    b
}

/// One pattern timed, compared with always-true, with what the time says.
pub struct PatternRow<'a> {
    pub pattern: &'a Pattern,
    pub time: Summary,
    pub vs_always: f64,
    /// The share of elements whose extra time one misprediction each would explain.
    pub implied_miss: Option<f64>,
    pub note: String,
    pub tally: Tally,
}

/// Section 4's result: one row a pattern, and the rounds of all of them.
pub struct PatternsFound<'a> {
    pub rows: Vec<PatternRow<'a>>,
    pub tally: Tally,
}

/// Section 4: the table by pattern, its footnote and the `patterns` block.
pub fn print_patterns(out: &mut Out, rows: &[PatternRow]) {
    println!(
        "  {:<14} {:>6} {:>24} {:>10}  what the time says",
        "pattern", "taken", "ns per element", "vs always"
    );
    let mut b = Block::new(
        ::branch::schema::patterns::BLOCK,
        ::branch::schema::patterns::COLUMNS,
    );
    for r in rows {
        let (p, t) = (r.pattern, &r.time);
        println!(
            "  {:<14} {:>5.1}% {:>24} {:>8.2} x  {}",
            p.name,
            p.taken * 100.0,
            t.median_range(),
            r.vs_always,
            r.note
        );
        let mut row = vec![p.name.into(), p.kind.period().into(), p.taken.into()];
        row.extend(median_min_max(Some(t)));
        row.extend([
            r.vs_always.into(),
            r.implied_miss.into(),
            r.tally.rounds.into(),
            r.tally.disturbed.into(),
        ]);
        b.row(row);
    }
    println!(
        "{}",
        wrap_to(
            "(the shares taken differ by pattern; the taken arm adds one addition, so always-true \
             is the most work and still the baseline)",
            "  ",
            "   ",
            WIDTH
        )
    );
    out.block(&b);
}
