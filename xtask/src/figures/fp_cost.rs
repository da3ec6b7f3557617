//! fp_cost's figures, each bar with its min..max whisker and the key ratio written:
//!
//! - `fp_cost-ops.svg`: the cost of each operation as latency (one dependent chain) and
//!   throughput (independent chains), log scale, beside the appendix's per-element table as
//!   measured here (section 3a) and the C program's (dashed outlines) when saved; divide
//!   against multiply written as its key figure defines it (per element where saved, else
//!   throughput).
//! - `fp_cost-denormal.svg`: denormal against normal values, with and without
//!   flush-to-zero; denormal / normal written for each mode.
//! - `fp_cost-width.svg`: float against double in strict order and with lanes; double /
//!   float written for each order.
//! - `fp_cost-placement.svg`: the appendix's per-element multiply with its block at each
//!   placement in a 64-byte line of code, beside the add and the C program's multiply;
//!   slowest / fastest written. Drawn only from runs that saved the `placement` block, on
//!   x86-64 (the only architecture with the placed code).

use super::chart::{AxisSpec, Bar, BarChart, BarSeries, Dash, HLine, color};
use super::{
    DrawError, Figure, Reference, Saved, appendix_reference, need_block, need_nums, need_texts,
    opt_nums,
};
use ::fp_cost::schema as sc;
use measure::data::{Block, DataFile};

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(sc::EXPERIMENT)?;
    let (ops_fig, appendix) = ops_figure(saved, run)?;
    let den_fig = denormal_figure(saved, run)?;
    let width_fig = width_figure(saved, run)?;
    let mut figs = vec![ops_fig, den_fig, width_fig];

    // The same multiply at other addresses (runs before the placement block have none). Only
    // x86-64 has the placed code: elsewhere every row ran the compiler's one loop, and a
    // figure of blocks "moved along a line" would say what did not happen.
    let placed_code = run.meta("arch").is_none_or(|a| a == "x86_64");
    if placed_code && let Some(pl) = run.block(sc::placement::BLOCK) {
        let c_mul = match &appendix {
            Some(r) => r
                .pairs("c1", "c2")?
                .iter()
                .find(|(k, _)| *k == 0.0)
                .map(|&(_, v)| (r.label.clone(), v)),
            None => None,
        };
        figs.push(placement(saved, run, pl, c_mul)?);
    }
    Ok(figs)
}

/// `fp_cost-ops.svg`: latency and throughput of each operation, beside the per-element
/// table and the C program's numbers; also the C program's output, for the placement figure.
fn ops_figure(saved: &Saved, run: &DataFile) -> Result<(Figure, Option<Reference>), DrawError> {
    let cpu = run.meta("cpu_family").unwrap_or("CPU unknown");
    let o = need_block(run, sc::ops::BLOCK)?;
    let ops = need_texts(o, sc::ops::OP)?;
    if ops.is_empty() {
        return Err(format!("{} is empty", super::block_name(o)).into());
    }
    let latency = latency_bars(o, ops.len())?;
    let tp = need_nums(o, sc::ops::THROUGHPUT_NS)?;
    let (tmin, tmax) = (
        opt_nums(o, sc::ops::THROUGHPUT_MIN_NS),
        opt_nums(o, sc::ops::THROUGHPUT_MAX_NS),
    );
    let throughput: Vec<Option<Bar>> = (0..ops.len())
        .map(|i| tp[i].map(|v| Bar::spread(v, tmin[i], tmax[i])))
        .collect();
    let mut c = BarChart::new(
        &format!(
            "Table 105.24: the cost of one f64 operation ({}; {cpu})",
            saved.label
        ),
        AxisSpec::log10("time per operation (ns, median, log scale)"),
    );
    c.width = 1000;
    c.categories = ops.clone();
    c.series.push(BarSeries::new(
        "latency: one dependent chain",
        latency,
        color(1),
    ));
    c.series.push(BarSeries::new(
        "throughput: independent chains",
        throughput.clone(),
        color(0),
    ));
    c.whisker_label = "bars: min..max of the rounds (latency: of its chain)".into();
    c.mark_disturbed(&crate::marks::disturbed_rows(run, o));
    let per_element = per_element_series(run, &ops, &mut c)?;
    let appendix = appendix_reference(saved, sc::EXPERIMENT)?;
    if let Some(r) = &appendix {
        appendix_series(r, &ops, &mut c)?;
    }
    div_mul_bracket(&mut c, run, &ops, &throughput, per_element);
    Ok((Figure::new("fp_cost-ops.svg", c.render()?), appendix))
}

/// Each operation's latency: the chain's time less any +1 step it carries; its spread is
/// the chain's, shifted by the same amount.
fn latency_bars(o: &Block, n: usize) -> Result<Vec<Option<Bar>>, DrawError> {
    let lat = need_nums(o, sc::ops::LATENCY_NS)?;
    let chain = opt_nums(o, sc::ops::CHAIN_NS);
    let (cmin, cmax) = (
        opt_nums(o, sc::ops::CHAIN_MIN_NS),
        opt_nums(o, sc::ops::CHAIN_MAX_NS),
    );
    Ok((0..n)
        .map(|i| {
            let v = lat[i]?;
            let shift = chain[i].map(|c| c - v);
            let lo = cmin[i].zip(shift).map(|(m, s)| m - s);
            let hi = cmax[i].zip(shift).map(|(m, s)| m - s);
            Some(Bar::spread(v, lo, hi))
        })
        .collect())
}

/// The per-element series: its index among the chart's series, and its bars.
type PerElement = (usize, Vec<Option<Bar>>);

/// The appendix's own table, measured here (section 3a: its loop over two arrays in L1),
/// where the run saved it; returns its series' index and bars.
fn per_element_series(
    run: &DataFile,
    ops: &[String],
    c: &mut BarChart,
) -> Result<Option<PerElement>, DrawError> {
    let Some(pe) = run.block(sc::per_element::BLOCK) else {
        return Ok(None);
    };
    let case = need_texts(pe, sc::per_element::CASE)?;
    let ns = need_nums(pe, sc::per_element::MEDIAN_NS)?;
    let (lo, hi) = (
        opt_nums(pe, sc::per_element::MIN_NS),
        opt_nums(pe, sc::per_element::MAX_NS),
    );
    let table: Vec<Option<Bar>> = ops
        .iter()
        .map(|name| {
            let i = case.iter().position(|c| *c == format!("l1_{name}"))?;
            ns.get(i)
                .copied()
                .flatten()
                .map(|v| Bar::spread(v, lo[i], hi[i]))
        })
        .collect();
    let mut per_element = None;
    if table.iter().any(Option::is_some) {
        per_element = Some((c.series.len(), table.clone()));
        c.series.push(BarSeries::new(
            "per element (3a): the appendix's loop, measured here",
            table,
            color(2),
        ));
    }
    Ok(per_element)
}

/// Divide over multiply as its key figure defines it: per element (the appendix's table,
/// which Table 105.26 quotes) where the run saved that series (`per_element`: its index and
/// bars), else throughput.
fn div_mul_bracket(
    c: &mut BarChart,
    run: &DataFile,
    ops: &[String],
    throughput: &[Option<Bar>],
    per_element: Option<PerElement>,
) {
    let at = |name: &str| ops.iter().position(|o| o == name);
    if let (Some(m), Some(d)) = (at("multiply"), at("divide")) {
        match per_element {
            Some((si, pe)) => {
                let x = Bar::over(pe[d], pe[m]);
                let x = super::key_or(run, sc::key::PER_ELEMENT_DIV_OVER_MUL, x);
                c.bracket((si, m), (si, d), "divide / multiply, per element", x);
            }
            None => {
                let x = Bar::over(throughput[d], throughput[m]);
                let x = super::key_or(run, sc::key::DIV_OVER_MUL_THROUGHPUT, x);
                c.bracket((1, m), (1, d), "divide / multiply, throughput", x);
            }
        }
    }
}

/// The appendix's C program prints one bare block: operation index, ns per element of
/// `a[i] op b[i]` into four accumulators (0 multiply, 1 add, 2 divide, 3 sqrt, 4 sin).
fn appendix_series(r: &Reference, ops: &[String], c: &mut BarChart) -> Result<(), DrawError> {
    let pairs = r.pairs("c1", "c2")?;
    let matched: Vec<Option<Bar>> = ops
        .iter()
        .map(|name| {
            let k = C_ORDER.iter().position(|o| o == name)? as f64;
            pairs
                .iter()
                .find(|(i, _)| *i == k)
                .map(|(_, v)| Bar::new(*v))
        })
        .collect();
    if matched.iter().any(Option::is_some) {
        c.series.push(BarSeries::reference(
            format!("{}: a[i] op b[i]", r.label),
            matched,
        ));
    }
    Ok(())
}

/// `fp_cost-denormal.svg`: denormals against normal values, with and without flush-to-zero.
fn denormal_figure(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    let d = need_block(run, sc::denormal::BLOCK)?;
    let values = need_texts(d, sc::denormal::VALUES)?;
    let mode = need_texts(d, sc::denormal::FTZ_DAZ)?;
    let med = need_nums(d, sc::denormal::MEDIAN_NS)?;
    let (dmin, dmax) = (
        opt_nums(d, sc::denormal::MIN_NS),
        opt_nums(d, sc::denormal::MAX_NS),
    );
    let cell = |v: &str, m: &str| {
        (0..values.len().min(mode.len()))
            .find(|&i| values[i] == v && mode[i] == m)
            .and_then(|i| med[i].map(|x| Bar::spread(x, dmin[i], dmax[i])))
    };
    let reg = run
        .meta(sc::META_FP_CONTROL_REGISTER)
        .unwrap_or("control register");
    let mut c = BarChart::new(
        &format!(
            "Table 105.22: denormal against normal values, with and without flush-to-zero ({})",
            saved.label
        ),
        AxisSpec::log10("time per element (ns, median, log scale)"),
    );
    c.categories = vec![
        "FTZ/DAZ off (IEEE arithmetic)".into(),
        format!("FTZ/DAZ on ({reg})"),
    ];
    c.series.push(BarSeries::new(
        "a[] = 1.0 (normal)",
        vec![cell("normal", "off"), cell("normal", "on")],
        color(0),
    ));
    c.series.push(BarSeries::new(
        "a[] = MIN_POSITIVE / 8 (denormal)",
        vec![cell("denormal", "off"), cell("denormal", "on")],
        color(1),
    ));
    if c.series
        .iter()
        .all(|s| s.values.iter().all(Option::is_none))
    {
        return Err(format!("{} has no measured row", super::block_name(d)).into());
    }
    c.mark_disturbed(&crate::marks::disturbed_by(
        run,
        d,
        sc::denormal::FTZ_DAZ,
        &["off", "on"],
    ));
    for cat in 0..2 {
        let x = Bar::over(c.series[1].values[cat], c.series[0].values[cat]);
        c.bracket((0, cat), (1, cat), "denormal / normal", x);
    }
    if c.series.iter().all(|s| s.values[1].is_none()) {
        c.categories.truncate(1);
        c.skipped = Some(format!(
            "FTZ/DAZ on: not measured (this CPU has no {reg} flush bits the run could set)"
        ));
    }
    book_denormals(saved, &mut c)?;
    c.plot_height = 360;
    Ok(Figure::new("fp_cost-denormal.svg", c.render()?))
}

/// `fp_cost-width.svg`: float against double, in strict order and with lanes.
fn width_figure(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    let w = need_block(run, sc::width::BLOCK)?;
    let ty = need_texts(w, sc::width::TYPE)?;
    let order = need_texts(w, sc::width::ORDER)?;
    let shape = w
        .texts(sc::width::SHAPE)
        .unwrap_or_else(|| vec![String::new(); ty.len()]);
    let ns = need_nums(w, sc::width::MEDIAN_NS)?;
    let (wmin, wmax) = (
        opt_nums(w, sc::width::MIN_NS),
        opt_nums(w, sc::width::MAX_NS),
    );
    let mut orders: Vec<String> = Vec::new();
    for o in &order {
        if !orders.contains(o) {
            orders.push(o.clone());
        }
    }
    let mut c = BarChart::new(
        &format!(
            "Table 105.23: float against double, a dot product in strict order and with lanes ({})",
            saved.label
        ),
        AxisSpec::linear("time per element (ns, median)").starting_at_zero(),
    );
    c.x_title = "order of the additions [the code shape read back from the binary]".into();
    c.categories = width_categories(&orders, &order, &shape);
    let names: Vec<&str> = orders.iter().map(String::as_str).collect();
    c.mark_disturbed(&crate::marks::disturbed_by(
        run,
        w,
        sc::width::ORDER,
        &names,
    ));
    for (k, t) in ["double", "float"].iter().enumerate() {
        let vals = orders
            .iter()
            .map(|o| {
                (0..ty.len().min(order.len()))
                    .find(|&i| ty[i] == *t && &order[i] == o)
                    .and_then(|i| ns[i].map(|v| Bar::spread(v, wmin[i], wmax[i])))
            })
            .collect();
        c.series.push(BarSeries::new(*t, vals, color(k)));
    }
    for cat in 0..orders.len() {
        let x = Bar::over(c.series[0].values[cat], c.series[1].values[cat]);
        c.bracket((0, cat), (1, cat), "double / float", x);
    }
    c.plot_height = 360;
    Ok(Figure::new("fp_cost-width.svg", c.render()?))
}

/// Each order's category name, with the code shape read back from the binary when saved.
fn width_categories(orders: &[String], order: &[String], shape: &[String]) -> Vec<String> {
    orders
        .iter()
        .map(|o| {
            let s = order
                .iter()
                .zip(shape)
                .find(|(a, _)| *a == o)
                .map_or("", |(_, s)| s.as_str());
            let name = if o == "lanes" {
                "with lanes".to_string()
            } else {
                format!("{o} order")
            };
            if s.is_empty() {
                name
            } else {
                format!("{name} [{s}]")
            }
        })
        .collect()
}

/// The book's own denormal test beside ours, as a category of its own: its normal and
/// denormal times and the ratio it printed (73.2x on the author's x86), from the book's
/// printed numbers ([`super::book_figures`]); nothing where they are not found.
fn book_denormals(saved: &Saved, c: &mut BarChart) -> Result<(), DrawError> {
    let Some(book) = super::book_figures(saved, sc::EXPERIMENT)? else {
        return Ok(());
    };
    let get = |name: &str| book.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
    let (Some(normal), Some(denormal)) = (get("normal_per_element"), get("denormal_per_element"))
    else {
        return Ok(());
    };
    let cat = c.categories.len();
    c.categories
        .push("the book's x86 machine, FTZ/DAZ off (as printed)".into());
    for (s, v) in c.series.iter_mut().zip([normal, denormal]) {
        s.values.resize(cat, None);
        s.values.push(Some(Bar::new(v)));
    }
    let mut quoted = vec![false; cat];
    quoted.push(true);
    c.mark_reference(
        &quoted,
        "cross: the book's numbers, as printed (not measured here)",
    );
    // The ratio as the book printed it, so that it reads as the book's everywhere.
    let x = get("denormal_over_normal").or_else(|| super::chart::div(denormal, normal));
    c.bracket((0, cat), (1, cat), "the book: denormal / normal", x);
    Ok(())
}

/// Which bars are unstable: their rounds' spread, (max - min) / median, is over three times
/// the median spread of all the bars and over half their median. Returns the marks and that
/// typical spread.
fn unstable_spreads(bars: &[Option<Bar>]) -> (Vec<bool>, f64) {
    let spread = |b: &Bar| Some((b.hi? - b.lo?) / b.v).filter(|s| s.is_finite());
    let all: Vec<f64> = bars.iter().flatten().filter_map(spread).collect();
    let typical = measure::stats::median(&all).unwrap_or(0.0);
    let marks = bars
        .iter()
        .map(|b| {
            b.and_then(|b| spread(&b))
                .is_some_and(|s| s > 3.0 * typical && s > 0.5)
        })
        .collect();
    (marks, typical)
}

/// 0.226 -> "23%".
fn percent(f: f64) -> String {
    format!("{:.0}%", f * 100.0)
}

/// A count in words up to twelve ("eight"), in digits beyond.
fn count_word(n: usize) -> String {
    const WORDS: [&str; 13] = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
        "eleven", "twelve",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| w.to_string())
}

/// The operations of the C program's bare block, by index.
const C_ORDER: [&str; 5] = ["multiply", "add", "divide", "sqrt", "sin"];

/// `fp_cost-placement.svg`: one bar per placement of the multiply's block, GCC's named, the
/// add of section 3a and the C program's multiply (`c_mul`: its label and ns) as lines.
fn placement(
    saved: &Saved,
    run: &measure::data::DataFile,
    pl: &measure::data::Block,
    c_mul: Option<(String, f64)>,
) -> Result<Figure, DrawError> {
    let at = need_nums(pl, sc::placement::PLACEMENT_BYTES)?;
    let gcc = need_texts(pl, sc::placement::AS_GCC)?;
    let ns = need_nums(pl, sc::placement::MEDIAN_NS)?;
    let (lo, hi) = (
        opt_nums(pl, sc::placement::MIN_NS),
        opt_nums(pl, sc::placement::MAX_NS),
    );
    let n = at.len().min(gcc.len()).min(ns.len());
    let mut c = BarChart::new(
        &format!(
            "Beyond Table 105.24, the same multiply at {} addresses: the appendix's \
             per-element loop, its multiply block moved along a 64-byte line of code ({})",
            count_word(n),
            saved.label
        ),
        AxisSpec::linear("time per element (ns, median)").starting_at_zero(),
    );
    c.x_title = "where the multiply's block starts: bytes past the start of a 64-byte line".into();
    c.categories = (0..n)
        .map(|i| {
            let bytes = at[i].map_or("?".into(), |b| format!("{b}"));
            if gcc[i] == "yes" {
                format!("{bytes} = GCC's")
            } else {
                bytes
            }
        })
        .collect();
    let bars: Vec<Option<Bar>> = (0..n)
        .map(|i| ns[i].map(|v| Bar::spread(v, lo[i], hi[i])))
        .collect();
    if bars.iter().all(Option::is_none) {
        return Err(format!("{} has no measured row", super::block_name(pl)).into());
    }
    c.series.push(BarSeries::new(
        "multiply a*b, in GCC's code for the appendix's loop",
        bars.clone(),
        color(0),
    ));
    c.mark_disturbed(&crate::marks::disturbed_rows(run, pl)[..n]);
    let (unstable, typical) = unstable_spreads(&bars);
    c.mark_unstable(
        &unstable,
        &format!(
            "ring: unstable, its rounds spread over {} of its median (3x the placements' \
             typical {}); its whisker is cut, not the axis",
            percent(3.0 * typical),
            percent(typical)
        ),
    );
    placement_references(run, c_mul, &mut c)?;
    let by = |better: fn(f64, f64) -> bool| {
        (0..n)
            .filter_map(|i| bars[i].map(|b| (i, b.v)))
            .reduce(|a, b| if better(b.1, a.1) { b } else { a })
    };
    if let (Some((fast, _)), Some((slow, _))) = (by(|a, b| a < b), by(|a, b| a > b)) {
        let x = Bar::over(bars[slow], bars[fast]);
        c.bracket((0, fast), (0, slow), "slowest / fastest", x);
    }
    c.mark_missing = false;
    c.plot_height = 360;
    Ok(Figure::new("fp_cost-placement.svg", c.render()?))
}

/// The placement figure's references: the add of section 3a and the C program's multiply
/// (`c_mul`), as horizontal lines.
fn placement_references(
    run: &DataFile,
    c_mul: Option<(String, f64)>,
    c: &mut BarChart,
) -> Result<(), DrawError> {
    let pe = need_block(run, sc::per_element::BLOCK)?;
    let case = need_texts(pe, sc::per_element::CASE)?;
    let pe_ns = need_nums(pe, sc::per_element::MEDIAN_NS)?;
    if let Some(add) = (0..case.len().min(pe_ns.len()))
        .find(|&i| case[i] == "l1_add")
        .and_then(|i| pe_ns[i])
    {
        c.hlines.push(HLine {
            y: add,
            label: "add a+b, in its own place in the same loop (3a)".into(),
            color: color(2),
            dash: Dash::Short,
        });
    }
    if let Some((label, v)) = c_mul {
        c.hlines.push(HLine {
            y: v,
            label: format!("{label}: multiply a*b"),
            color: super::chart::BLACK_C,
            dash: Dash::Long,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::draw_twice;

    /// Every figure, in order; the last only from runs with the `placement` block.
    const FILES: [&str; 4] = [
        "fp_cost-ops.svg",
        "fp_cost-denormal.svg",
        "fp_cost-width.svg",
        "fp_cost-placement.svg",
    ];

    const RUN: &str = "\
#META cpu_family AuthenticAMD family 0x1a model 0x2 (Zen 5)
#META fp_control_register MXCSR
#DATA-BEGIN ops
#COLUMNS op:text step:text chain_ns chain_min_ns chain_max_ns latency_ns latency_cycles throughput_ns throughput_min_ns throughput_max_ns throughput_cycles shape:text
#DATA multiply x=x*c 0.787 0.779 0.789 0.787 3 0.132 0.131 0.136 0.5 scalar
#DATA add x=x+c 0.522 0.518 0.597 0.522 2 0.130 0.13 0.133 0.5 scalar
#DATA divide x=x/c 3.41 3.39 3.44 3.41 13 1.04 1.03 1.07 4 scalar
#DATA sqrt x=sqrt(x)+1 6.02 5.98 6.2 5.5 21 1.95 1.94 1.98 7.4 scalar
#DATA sin x=sin(x)+1 13.2 13 13.5 12.7 48 8.29 8.09 8.34 31.5 scalar
#DATA-END
#DATA-BEGIN denormal
#COLUMNS values:text ftz_daz:text median_ns min_ns max_ns
#DATA normal off 0.134 0.133 0.135
#DATA denormal off 0.139 0.135 0.145
#DATA normal on NA NA NA
#DATA denormal on NA NA NA
#DATA-END
#DATA-BEGIN width
#COLUMNS variant:text type:text order:text shape:text median_ns min_ns max_ns
#DATA double_strict double strict scalar 0.52 0.51 0.55
#DATA float_strict float strict scalar 0.52 0.51 0.55
#DATA double_lanes double lanes vectorised 0.13 0.13 0.13
#DATA float_lanes float lanes vectorised 0.065 0.064 0.066
#DATA-END
";

    #[test]
    fn draws_three_figures_deterministically_with_unmeasured_cells_said() {
        let s = Saved::test("fp_cost", RUN);
        let f = draw_twice(draw, &s, &FILES[..3]);
        assert!(f[0].svg.contains("Zen 5"));
        assert!(f[0].svg.contains("divide / multiply, throughput = 7.88x"));
        assert!(f[1].svg.contains("denormal / normal = 1.04x"));
        assert!(f[1].svg.contains("FTZ/DAZ on: not measured"));
        assert!(f[2].svg.contains("with lanes [vectorised]"));
        assert!(f[2].svg.contains("strict order [scalar]"));
        assert!(f[2].svg.contains("double / float = 2.00x"));
    }

    #[test]
    fn a_spread_three_times_the_typical_one_is_unstable() {
        let b = |v: f64, lo: f64, hi: f64| Some(Bar::spread(v, Some(lo), Some(hi)));
        let bars = [
            b(1.0, 0.9, 1.2),
            b(1.0, 0.95, 1.25),
            b(1.0, 0.9, 3.0),
            None,
            b(1.0, 1.0, 1.3),
        ];
        let (marks, typical) = unstable_spreads(&bars);
        assert_eq!(marks, vec![false, false, true, false, false]);
        assert!((typical - 0.3).abs() < 1e-9, "{typical}");
        // A small spread is never unstable, however calm the others are.
        let calm = [b(1.0, 1.0, 1.01), b(1.0, 1.0, 1.01), b(1.0, 1.0, 1.2)];
        assert_eq!(unstable_spreads(&calm).0, vec![false; 3]);
    }

    #[test]
    fn a_missing_block_is_an_error_naming_it() {
        let e = draw(&Saved::test("fp_cost", "#META quick yes\n"))
            .err()
            .unwrap();
        assert!(e.message.contains("ops"), "{e}");
        let no_width = RUN.split("#DATA-BEGIN width").next().unwrap();
        let e = draw(&Saved::test("fp_cost", no_width)).err().unwrap();
        assert!(e.message.contains("width"), "{e}");
    }

    #[test]
    fn the_placements_are_drawn_when_saved_with_the_spread_written() {
        let run = format!(
            "{RUN}\
#DATA-BEGIN per_element
#COLUMNS op:text expr:text array:text array_bytes median_ns min_ns max_ns vs_multiply case:text
#DATA multiply a*b l1 32768 0.344 0.341 0.7 1 l1_multiply
#DATA add a+b l1 32768 0.273 0.272 0.42 0.79 l1_add
#DATA-END
#DATA-BEGIN placement
#COLUMNS placement_bytes as_gcc:text median_ns min_ns max_ns
#DATA 0 no 0.277 0.27 0.56
#DATA 8 no 0.345 0.34 0.71
#DATA 24 yes 0.344 0.34 0.7
#DATA 56 no NA NA NA
#DATA-END
"
        );
        let s = Saved::test("fp_cost", &run);
        let f = draw_twice(draw, &s, &FILES);
        let svg = &f[3].svg;
        assert!(svg.contains("slowest / fastest = 1.25x"), "{svg}");
        assert!(
            svg.contains("Beyond Table 105.24, the same multiply at four addresses"),
            "{svg}"
        );
        assert!(!svg.contains("unstable"), "no placement's rounds stand out");
        assert!(
            svg.contains("24 = GCC&apos;s") || svg.contains("24 = GCC's"),
            "{svg}"
        );
        assert!(svg.contains("add a+b, in its own place"), "{svg}");
        // The ops figure carries the run's own per-element table beside the chains.
        assert!(f[0].svg.contains("per element (3a)"), "{}", f[0].svg);
        // A planted unstable placement (one round at 5 ns) is ringed, and its whisker is cut
        // at the axis instead of squashing the others.
        let shaky = run.replace("#DATA 8 no 0.345 0.34 0.71", "#DATA 8 no 0.345 0.34 5");
        let f = draw(&Saved::test("fp_cost", &shaky)).expect("drawn");
        let svg = &f[3].svg;
        assert!(svg.contains("ring: unstable"), "{svg}");
        assert!(svg.contains("max 5.00 (cut)"), "{svg}");
        assert!(
            !svg.contains(">\n5\n<") && !svg.contains(">\n4\n<"),
            "no tick at 4 or 5 ns"
        );
        // Another architecture runs no placed code: no figure says it moved anything.
        let arm = format!("#META arch aarch64\n{run}");
        draw_twice(draw, &Saved::test("fp_cost", &arm), &FILES[..3]);
    }
}
