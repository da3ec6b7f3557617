//! The `#DATA` blocks of a run, which `measure` holds back into the data part after the
//! report: every pass of every series, the discarded first execution, the statistics of each
//! series, and the figures the summary (`cargo xtask run-all`) is built from.

use crate::fresh::ChildResult;
use crate::stats::SeriesStats;
use measure::data::{Block, Value};
use measure::disturb::Evidence;
use measure::out::Out;
use measure::rounds::Timed;

/// Part 1's passes, one row per round: `part1_passes`, with how many variants the round
/// holds (a variant with more disturbed passes takes more rounds; NA where it took fewer)
/// and how many of them were disturbed.
pub fn part1(out: &mut Out, passes: &[Timed; 3]) {
    let mut block = Block::new(
        crate::schema::part1_passes::BLOCK,
        crate::schema::part1_passes::COLUMNS,
    );
    let longest = passes.iter().map(|t| t.values.len()).max().unwrap_or(0);
    for r in 0..longest {
        let mut row: Vec<Value> = vec![r.into()];
        row.extend(passes.iter().map(|t| t.values.get(r).copied().into()));
        let taken = passes.iter().filter_map(|t| t.evidence.get(r));
        row.push(taken.clone().count().into());
        row.push(taken.filter(|e| e.disturbed()).count().into());
        block.row(row);
    }
    out.block(&block);
}

/// `(1, 0 or 1)`: the `rounds` and `disturbed_rounds` cells of a row of one pass.
fn one(e: &Evidence) -> [Value; 2] {
    [1.into(), usize::from(e.disturbed()).into()]
}

/// Part 2's passes: `warm_in_process`, `fresh_processes`, and `fresh_first_discarded` (the
/// binary's first execution, which made the same start and was discarded).
pub fn part2(out: &mut Out, warm_in: &Timed, first: &ChildResult, kids: &[ChildResult]) {
    let mut b = Block::new(
        crate::schema::warm_in_process::BLOCK,
        crate::schema::warm_in_process::COLUMNS,
    );
    for (i, (v, e)) in warm_in.values.iter().zip(&warm_in.evidence).enumerate() {
        let mut row: Vec<Value> = vec![i.into(), (*v).into()];
        row.extend(one(e));
        b.row(row);
    }
    out.block(&b);
    let mut b = Block::new(
        crate::schema::fresh_processes::BLOCK,
        crate::schema::fresh_processes::COLUMNS,
    );
    for (i, k) in kids.iter().enumerate() {
        b.row(vec![
            (i + 1).into(),
            k.cold_ns.into(),
            k.warm_ns.into(),
            k.cold_faults.into(),
            k.warm_faults.into(),
            k.cpu.into(),
            2.into(),
            [k.cold_ev, k.warm_ev]
                .iter()
                .filter(|e| e.disturbed())
                .count()
                .into(),
        ]);
    }
    out.block(&b);
    let mut b = Block::new(
        crate::schema::fresh_first_discarded::BLOCK,
        crate::schema::fresh_first_discarded::COLUMNS,
    );
    b.row(vec![
        first.cold_ns.into(),
        first.warm_ns.into(),
        first.cold_faults.into(),
        first.warm_faults.into(),
    ]);
    out.block(&b);
}

/// This process's cold pass: `cold_in_process`.
pub fn cold(out: &mut Out, ns: f64, faults: Option<u64>, ev: &Evidence) {
    let mut b = Block::new(
        crate::schema::cold_in_process::BLOCK,
        crate::schema::cold_in_process::COLUMNS,
    );
    let mut row: Vec<Value> = vec![ns.into(), faults.into()];
    row.extend(one(ev));
    b.row(row);
    out.block(&b);
}

/// Every series' statistics: `series_summary`, one row per series (its key in `series`).
pub fn series(out: &mut Out, series: &[&SeriesStats]) {
    let mut b = Block::new(
        crate::schema::series_summary::BLOCK,
        crate::schema::series_summary::COLUMNS,
    );
    for st in series {
        let s = &st.summary;
        let spread = |v: f64| -> Value { if s.n > 1 { v.into() } else { Value::Missing } };
        let over = |k: usize| -> Value { st.over.map(|o| o[k] * 100.0).into() };
        b.row(vec![
            st.key.into(),
            s.n.into(),
            s.min.into(),
            s.median.into(),
            s.max.into(),
            spread(s.cv * 100.0),
            spread(s.max_over_min),
            over(0),
            over(1),
            over(2),
            st.timed.values.len().into(),
            st.timed.disturbed_count().into(),
        ]);
    }
    out.block(&b);
}

/// The figures of a run, `None` where one could not be measured. Their names are the
/// `figure` column of `summary_figures`; `xtask/src/sink_bench.rs` labels them.
pub struct Figures {
    pub clock_step: f64,
    pub a_over_b_median: f64,
    pub a_max_over_b_median: f64,
    pub c_over_b_median: f64,
    pub ns_per_element: f64,
    pub cycles_per_element: Option<f64>,
    pub add_latency: Option<f64>,
    pub fresh_over_in_process_median: f64,
    pub cold_shot_over_fresh_median: f64,
    pub cold_shot_over_fresh_min: f64,
    pub cold_over_warm: f64,
    pub cold_faults: Option<f64>,
}

/// The figures as the `summary_figures` block: `figure`, `value`, `unit`.
pub fn figures(out: &mut Out, f: &Figures) {
    let mut b = Block::new(
        crate::schema::summary_figures::BLOCK,
        crate::schema::summary_figures::COLUMNS,
    );
    let rows: [(&str, Option<f64>, &str); 12] = [
        ("clock_step", Some(f.clock_step), "ns"),
        ("a_over_b_median", Some(f.a_over_b_median), "x"),
        ("a_max_over_b_median", Some(f.a_max_over_b_median), "x"),
        ("c_over_b_median", Some(f.c_over_b_median), "x"),
        ("ns_per_element", Some(f.ns_per_element), "ns"),
        ("cycles_per_element", f.cycles_per_element, "cycles"),
        ("add_latency", f.add_latency, "ns"),
        (
            "fresh_over_in_process_median",
            Some(f.fresh_over_in_process_median),
            "x",
        ),
        (
            "cold_shot_over_fresh_median",
            Some(f.cold_shot_over_fresh_median),
            "x",
        ),
        (
            "cold_shot_over_fresh_min",
            Some(f.cold_shot_over_fresh_min),
            "x",
        ),
        ("cold_over_warm", Some(f.cold_over_warm), "x"),
        ("cold_faults", f.cold_faults, "faults"),
    ];
    for (name, value, unit) in rows {
        b.row(vec![name.into(), value.into(), unit.into()]);
    }
    out.block(&b);
}
