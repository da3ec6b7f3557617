//! The run's rows and how they are printed: the human tables of each section and their
//! `#DATA` blocks (`shape`, `variants`, `mispredict`, `patterns`).

use crate::Variant;
use crate::bench::{Order, Pattern};
use branch::shape::{Shape, Verdict};
use measure::clock::CoreClock;
use measure::data::{Block, Value};
use measure::stats::Summary;

/// The same three figures as `#DATA` cells: median, min, max.
fn cells(s: &Summary) -> [Value; 3] {
    [s.median.into(), s.min.into(), s.max.into()]
}

/// Section 1: each variant's verdict read from the binary, with its sentence.
pub fn print_shapes(variants: &[Variant], shapes: &[Result<Verdict, String>]) {
    for (Variant { label, .. }, v) in variants.iter().zip(shapes) {
        match v {
            Ok(v) => {
                println!("  {label:<22}: {}", v.shape);
                println!("  {:<22}  {}", "", v.sentence());
            }
            Err(e) => println!("  {label:<22}: could not check ({e})"),
        }
    }
}

/// The `shape` block: one row per variant, `unchecked` where the binary could not be read.
pub fn shape_block(variants: &[Variant], shapes: &[Result<Verdict, String>]) -> Block {
    let mut b = Block::new(
        "shape",
        &[
            "variant:text",
            "symbol:text",
            "verdict:text",
            "loops",
            "forks",
        ],
    );
    for (var, v) in variants.iter().zip(shapes) {
        let (verdict, loops, forks): (Value, Value, Value) = match v {
            Ok(v) => (v.shape.word().into(), v.loops.into(), v.forks.len().into()),
            Err(_) => ("unchecked".into(), Value::Missing, Value::Missing),
        };
        b.row(vec![
            var.label.into(),
            var.symbol.into(),
            verdict,
            loops,
            forks,
        ]);
    }
    b
}

/// Section 2: the random/sorted table, its footnote and the `variants` block.
pub fn print_orders(orders: &[Order], expect: i64) {
    println!(
        "  {:<24} {:>24} {:>24} {:>14}",
        "ns per element", "random order", "sorted order", "random/sorted"
    );
    let mut b = Block::new(
        "variants",
        &[
            "variant:text",
            "shape:text",
            "random_ns",
            "random_min_ns",
            "random_max_ns",
            "sorted_ns",
            "sorted_min_ns",
            "sorted_max_ns",
            "random_over_sorted",
        ],
    );
    for o in orders {
        let (r, s) = (&o.random, &o.sorted);
        println!(
            "  {:<24} {:>24} {:>24} {:>12.2} x",
            o.label,
            r.median_range(),
            s.median_range(),
            o.ratio()
        );
        let mut row = vec![
            o.label.into(),
            o.shape.map_or("unchecked", Shape::word).into(),
        ];
        row.extend(cells(r));
        row.extend(cells(s));
        row.push(o.ratio().into());
        b.row(row);
    }
    println!(
        "  (median, min..max over the rounds; every sum returned {expect}, checked against a plain iterator)"
    );
    b.print();
    println!();
}

/// The cost of one misprediction, with the range the rounds' extremes allow.
#[derive(Clone, Copy)]
pub struct Miss {
    pub ns: f64,
    pub low: f64,
    pub high: f64,
}

/// Section 3: how the cost of one misprediction was derived.
pub fn print_miss(extra: f64, miss_rate: f64, taken: f64, m: &Miss, cc: &CoreClock) {
    println!("  extra time per element, random minus sorted : {extra:.3} ns (medians)");
    println!(
        "  share of random-order guesses that must fail: {miss_rate:.3} ({:.1}% of the values pass the test, in no order:\n  {:46}no guess beats the majority; sorted order is taken as missing almost never,\n  {:46}which `cargo xtask verify` checks in a branch simulator)",
        taken * 100.0,
        "",
        ""
    );
    println!(
        "  so one misprediction costs about            : {:.1} ns  (from the rounds' extremes: {:.1} .. {:.1} ns)",
        m.ns, m.low, m.high
    );
    if let Some(c) = cc.cycles(m.ns) {
        println!(
            "                                                {c:.0} cycles at {:.2} GHz",
            cc.ghz.unwrap_or(0.0)
        );
    }
}

/// The `mispredict` block (one row; `NA` where the cost was not derived).
pub fn miss_block(extra: f64, miss_rate: f64, m: Option<Miss>, cc: &CoreClock) -> Block {
    let mut b = Block::new(
        "mispredict",
        &[
            "extra_ns_per_element",
            "miss_rate",
            "ns_per_miss",
            "ns_per_miss_low",
            "ns_per_miss_high",
            "cycles_per_miss",
        ],
    );
    b.row(vec![
        extra.into(),
        miss_rate.into(),
        m.map(|m| m.ns).into(),
        m.map(|m| m.low).into(),
        m.map(|m| m.high).into(),
        m.and_then(|m| cc.cycles(m.ns)).into(),
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
}

/// Section 4: the table by pattern, its footnote and the `patterns` block.
pub fn print_patterns(rows: &[PatternRow]) {
    println!(
        "  {:<16} {:>8} {:>24} {:>12}   what the time says",
        "pattern", "taken", "ns per element", "vs always"
    );
    let mut b = Block::new(
        "patterns",
        &[
            "pattern:text",
            "period",
            "taken_share",
            "median_ns",
            "min_ns",
            "max_ns",
            "vs_always",
            "implied_miss_share",
        ],
    );
    for r in rows {
        let (p, t) = (r.pattern, &r.time);
        println!(
            "  {:<16} {:>7.1}% {:>24} {:>10.2} x   {}",
            p.name,
            p.taken * 100.0,
            t.median_range(),
            r.vs_always,
            r.note
        );
        let mut row = vec![p.name.into(), p.period.into(), p.taken.into()];
        row.extend(cells(t));
        row.extend([r.vs_always.into(), r.implied_miss.into()]);
        b.row(row);
    }
    println!(
        "  (the shares taken differ by pattern; the taken arm adds one addition, so always-true is\n   the most work and still the baseline)"
    );
    b.print();
}
