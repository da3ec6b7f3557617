//! The tables of fp_cost: the human lines and the `#DATA` blocks (and `#META` facts) beside
//! them, so that `main.rs` keeps to the questions and the verdicts.

use crate::fpenv;
use crate::kernels::OPS;
use crate::shape::Shapes;
use crate::timing::{DOTS, Denormals, Operations, Widths};
use measure::clock::CoreClock;
use measure::data::{Block, meta};
use measure::stats::Summary;

/// Every kernel's shape, one line each, and the `shape` block.
pub fn shapes(shapes: &Shapes) {
    let mut b = Block::new("shape", &["kernel:text", "verdict:text"]);
    for s in &shapes.0 {
        println!("    {:<20} {}", s.symbol, s.text);
        b.row(vec![s.symbol.into(), s.word.into()]);
    }
    b.print();
}

/// The control register before, during and after the flush-to-zero rounds, and whether the
/// switch was verified; as a line and as `#META fp_control_*`.
pub fn flush_switch(d: &Denormals) {
    let ok = d.switch_ok();
    match (d.register, d.switches.first()) {
        (None, _) => {
            println!("  flush-to-zero: skipped (no known control register on this architecture)")
        }
        (Some(reg), Some(sw)) => {
            println!(
                "  flush-to-zero: {reg} {:#x} -> {:#x} while timing ({}), then {:#x}: {}",
                sw.before,
                sw.during,
                fpenv::NAMES,
                sw.after,
                if ok {
                    format!(
                        "set and restored, verified on all {} switches",
                        d.switches.len()
                    )
                } else if d.switches.iter().any(|s| !s.took()) {
                    "the bits did not take: FTZ/DAZ columns not measured".into()
                } else {
                    "! the register was NOT restored".into()
                }
            );
            meta("fp_control_register", reg);
            meta("fp_flush_bits", fpenv::NAMES);
            meta("fp_control_before", format!("{:#x}", sw.before));
            meta("fp_control_during", format!("{:#x}", sw.during));
            meta("fp_control_after", format!("{:#x}", sw.after));
            meta("fp_control_restored", if ok { "yes" } else { "no" });
        }
        (Some(_), None) => println!("  flush-to-zero: not run"),
    }
}

/// Normal and denormal, FTZ/DAZ off and on: the table, the ratio row, the `denormal` block.
pub fn denormal_table(d: &Denormals) {
    let row = |name: &str, off: String, on: String| println!("  {name:<30} {off:>26} {on:>26}");
    let opt = |s: &Option<Summary>| {
        s.as_ref()
            .map_or("not measured".to_string(), Summary::median_range)
    };
    println!();
    row(
        "ns per element",
        "FTZ/DAZ off (IEEE)".into(),
        "FTZ/DAZ on".into(),
    );
    row(
        "a[] = 1.0 (normal)",
        d.normal_off.median_range(),
        opt(&d.normal_on),
    );
    row(
        "a[] = MIN_POSITIVE/8 (denormal)",
        d.denormal_off.median_range(),
        opt(&d.denormal_on),
    );
    row(
        "denormal / normal",
        format!("{:.2} x", d.ratio_off()),
        d.ratio_on()
            .map_or("-".to_string(), |r| format!("{r:.2} x")),
    );
    let mut b = Block::new(
        "denormal",
        &[
            "values:text",
            "ftz_daz:text",
            "median_ns",
            "min_ns",
            "max_ns",
        ],
    );
    for (values, mode, s) in [
        ("normal", "off", Some(d.normal_off)),
        ("denormal", "off", Some(d.denormal_off)),
        ("normal", "on", d.normal_on),
        ("denormal", "on", d.denormal_on),
    ] {
        b.row(vec![
            values.into(),
            mode.into(),
            s.map(|s| s.median).into(),
            s.map(|s| s.min).into(),
            s.map(|s| s.max).into(),
        ]);
    }
    b.print();
}

/// The four dot products with the shape of their code, and the `width` block.
pub fn width_table(w: &Widths, shapes: &Shapes) {
    println!(
        "  {:<22} {:>26}   code in this binary",
        "", "ns per element"
    );
    let mut b = Block::new(
        "width",
        &[
            "variant:text",
            "type:text",
            "order:text",
            "shape:text",
            "median_ns",
            "min_ns",
            "max_ns",
        ],
    );
    for (dot, t) in DOTS.iter().zip(&w.times) {
        let shape = shapes.of(dot.symbol);
        println!("  {:<22} {:>26}   {shape}", dot.label, t.median_range());
        b.row(vec![
            format!("{}_{}", dot.ty, dot.order).into(),
            dot.ty.into(),
            dot.order.into(),
            shape.into(),
            t.median.into(),
            t.min.into(),
            t.max.into(),
        ]);
    }
    b.print();
}

/// Latency and throughput of every operation, in ns and cycles, and the `ops` block.
pub fn ops_table(o: &Operations, cc: &CoreClock, shapes: &Shapes) {
    let cyc = |ns: f64| cc.cycles(ns).map_or("-".to_string(), |c| format!("{c:.1}"));
    println!(
        "  {:<9} {:<16} {:>24} {:>7} {:>24} {:>7} {:>9}",
        "operation", "one step", "latency ns", "cycles", "throughput ns", "cycles", "in flight"
    );
    let mut b = Block::new(
        "ops",
        &[
            "op:text",
            "step:text",
            "chain_ns",
            "chain_min_ns",
            "chain_max_ns",
            "latency_ns",
            "latency_cycles",
            "throughput_ns",
            "throughput_min_ns",
            "throughput_max_ns",
            "throughput_cycles",
            "shape:text",
        ],
    );
    for (op, t) in OPS.iter().zip(&o.ops) {
        let shown = if op.plus_add {
            format!("{:.3} (-add)", t.alone)
        } else {
            t.chain.median_range()
        };
        println!(
            "  {:<9} {:<16} {:>24} {:>7} {:>24} {:>7} {:>9.1}",
            op.name,
            op.step,
            shown,
            cyc(t.alone),
            t.throughput.median_range(),
            cyc(t.throughput.median),
            t.alone / t.throughput.median
        );
        let [sl, st] = [op.latency_symbol, op.throughput_symbol].map(|s| shapes.of(s));
        let shape = if sl == st {
            sl.to_string()
        } else {
            format!("{sl}/{st}")
        };
        b.row(vec![
            op.name.into(),
            op.step.replace(' ', "").into(),
            t.chain.median.into(),
            t.chain.min.into(),
            t.chain.max.into(),
            t.alone.into(),
            cc.cycles(t.alone).into(),
            t.throughput.median.into(),
            t.throughput.min.into(),
            t.throughput.max.into(),
            cc.cycles(t.throughput.median).into(),
            shape.into(),
        ]);
    }
    b.print();
}
