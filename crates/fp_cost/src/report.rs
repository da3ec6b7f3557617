//! The tables of fp_cost: the human lines and the `#DATA` blocks (and `#META` facts) beside
//! them, so that `main.rs` keeps to the questions and what the numbers say.

use crate::fpenv;
use crate::kernels::{OPS, PER_ELEMENT};
use crate::shape::Shapes;
use crate::switch::{BASELINE_PLACEMENT, GCC_PLACEMENT};
use crate::timing::{DOTS, Denormals, Operations, PerElement, Widths};
use measure::clock::CoreClock;
use measure::data::{Block, Value};
use measure::disturb::Tally;
use measure::fmt::{median_min_max, wrap_to};
use measure::out::Out;
use measure::stats::Summary;

/// A row's last two cells: its rounds and how many of them were disturbed.
fn evidence(t: &Tally) -> [Value; 2] {
    [t.rounds.into(), t.disturbed.into()]
}

/// "0.127 (0.126..0.140)": a median with its range, three decimals.
fn cell(s: &Summary) -> String {
    s.median_range()
}

/// Every kernel's shape in the `shape` block, and for people what was not as intended:
/// the laned loops must be vectorised, every other timed loop scalar (the appendix's
/// denormal loop may be either: it is the compiler's choice, and it is reported).
pub fn shapes(out: &mut Out, shapes: &Shapes) {
    let mut b = Block::new(
        ::fp_cost::schema::shape::BLOCK,
        ::fp_cost::schema::shape::COLUMNS,
    );
    for s in &shapes.0 {
        b.row(vec![s.symbol.into(), s.word.into()]);
    }
    out.block(&b);
    let want = |sym: &str| {
        if sym == "fp_dot4_f64" {
            None
        } else if sym.starts_with("fp_dot_lanes") {
            Some("vectorised")
        } else {
            Some("scalar")
        }
    };
    let mnemonics = |word: &str| {
        let mut m: Vec<&str> = shapes
            .0
            .iter()
            .filter(|s| s.word == word && want(s.symbol).is_some())
            .flat_map(|s| s.mnemonics.iter().map(String::as_str))
            .collect();
        m.sort_unstable();
        m.dedup();
        m.join(", ")
    };
    let wrong: Vec<String> = shapes
        .0
        .iter()
        .filter_map(|s| {
            let w = want(s.symbol)?;
            (s.word != w).then(|| format!("{} ({}, wanted {w})", s.symbol, s.text))
        })
        .collect();
    let text = if wrong.is_empty() {
        format!(
            "the code of every timed loop, read back from this binary: the laned dot products are \
             vectorised ({}); every other loop is scalar ({}), except section 1's, whose shape is \
             the compiler's choice and is given there.",
            mnemonics("vectorised"),
            mnemonics("scalar"),
        )
    } else {
        format!(
            "the code read back from this binary is NOT as intended: {}. The rows of those loops \
             do not measure what their names say.",
            wrong.join("; ")
        )
    };
    measure::fmt::say(&text, "  ");
}

/// The control register before, during and after the flush-to-zero rounds, and whether the
/// switch was verified; as a line and as `#META fp_control_*`.
pub fn flush_switch(out: &mut Out, d: &Denormals) {
    let ok = d.switch_ok();
    let text = match (d.register, d.switches.first()) {
        (None, _) => {
            "flush-to-zero: skipped (no known control register on this architecture)".to_string()
        }
        (Some(_), None) => "flush-to-zero: not run".to_string(),
        (Some(reg), Some(sw)) => {
            out.meta(::fp_cost::schema::META_FP_CONTROL_REGISTER, reg);
            out.meta("fp_flush_bits", fpenv::NAMES);
            out.meta("fp_control_before", format!("{:#x}", sw.before));
            out.meta("fp_control_during", format!("{:#x}", sw.during));
            out.meta("fp_control_after", format!("{:#x}", sw.after));
            out.meta("fp_control_restored", if ok { "yes" } else { "no" });
            format!(
                "flush-to-zero: {reg} {:#x} -> {:#x} while timing ({}), then {:#x}: {}",
                sw.before,
                sw.during,
                fpenv::NAMES,
                sw.after,
                if ok {
                    format!(
                        "set and restored, verified on all {} switches.",
                        d.switches.len()
                    )
                } else if d.switches.iter().any(|s| !s.took()) {
                    "the bits did not take: FTZ/DAZ columns not measured.".into()
                } else {
                    "! the register was NOT restored.".into()
                }
            )
        }
    };
    println!("{}", wrap_to(&text, "  ", "    ", measure::fmt::WIDTH));
}

/// Normal and denormal, FTZ/DAZ off and on: the table, the ratio row, the `denormal` block.
pub fn denormal_table(out: &mut Out, d: &Denormals) {
    let row = |name: &str, off: String, on: String| println!("  {name:<26} {off:>22}  {on:>22}");
    let opt = |s: &Option<Summary>| s.as_ref().map_or("not measured".to_string(), cell);
    println!();
    row(
        "ns per element",
        "FTZ/DAZ off (IEEE)".into(),
        "FTZ/DAZ on".into(),
    );
    row("a[] = 1.0 (normal)", cell(&d.normal_off), opt(&d.normal_on));
    row(
        "a[] = MIN_POSITIVE/8",
        cell(&d.denormal_off),
        opt(&d.denormal_on),
    );
    row(
        "denormal / normal",
        format!("{:.2}x", d.ratio_off()),
        d.ratio_on().map_or("-".to_string(), |r| format!("{r:.2}x")),
    );
    let mut b = Block::new(
        ::fp_cost::schema::denormal::BLOCK,
        ::fp_cost::schema::denormal::COLUMNS,
    );
    for ((values, mode, s), t) in [
        ("normal", "off", Some(d.normal_off)),
        ("denormal", "off", Some(d.denormal_off)),
        ("normal", "on", d.normal_on),
        ("denormal", "on", d.denormal_on),
    ]
    .into_iter()
    .zip(&d.tallies)
    {
        let mut r: Vec<Value> = vec![values.into(), mode.into()];
        r.extend(median_min_max(s.as_ref()));
        r.extend(evidence(t));
        b.row(r);
    }
    out.block(&b);
}

/// The dot products, one row per accumulation order with double and float side by side, the
/// float's gain and the shape of the code; and the `width` block.
pub fn width_table(out: &mut Out, w: &Widths, shapes: &Shapes) {
    println!(
        "  {:<28} {:>20}  {:>20}  {:>6}  code",
        "ns per element", "double", "float", "gain"
    );
    for order in ["four", "strict", "lanes"] {
        let k = |ty: &str| {
            DOTS.iter()
                .position(|d| d.ty == ty && d.order == order)
                .expect("a variant")
        };
        let (kd, kf) = (k("double"), k("float"));
        let label = match order {
            "four" => "four accumulators (appendix)",
            "strict" => "one accumulator",
            _ => "lanes (reordering granted)",
        };
        let (sd, sf) = (shapes.of(DOTS[kd].symbol), shapes.of(DOTS[kf].symbol));
        println!(
            "  {label:<28} {:>20}  {:>20}  {:>5.2}x  {}",
            cell(&w.times[kd]),
            cell(&w.times[kf]),
            w.float_gain(order),
            if sd == sf {
                sd.to_string()
            } else {
                format!("{sd}/{sf}")
            }
        );
    }
    let mut b = Block::new(
        ::fp_cost::schema::width::BLOCK,
        ::fp_cost::schema::width::COLUMNS,
    );
    for ((dot, t), tally) in DOTS.iter().zip(&w.times).zip(&w.tallies) {
        let mut r: Vec<Value> = vec![
            format!("{}_{}", dot.ty, dot.order).into(),
            dot.ty.into(),
            dot.order.into(),
            shapes.of(dot.symbol).into(),
        ];
        r.extend(median_min_max(Some(t)));
        r.extend(evidence(tally));
        b.row(r);
    }
    out.block(&b);
}

/// The appendix's per-element table: ns per element and the ratio to the multiply with the
/// spread of its round-by-round values (a row whose rounds split shows both groups and
/// "split"); with `beside`, a last column with the same ratio from that other table (the
/// in-L1 one). Adds the rows to `block` under `array`.
pub fn per_element_table(
    p: &PerElement,
    beside: Option<&PerElement>,
    array: &str,
    block: &mut Block,
) {
    let tail = if beside.is_some() {
        "   in L1 (3a)"
    } else {
        ""
    };
    println!(
        "  {:<18} {:>24}  {:>11} {:<13}{tail}",
        "operation", "ns per element", "vs multiply", "round by round"
    );
    let mul_split = p.split(0).is_some();
    for (k, (name, expr)) in PER_ELEMENT.iter().enumerate() {
        let vs = p.vs_multiply(k);
        let other = beside.map_or(String::new(), |o| format!("  {:>11.1}x", o.vs_multiply(k)));
        let (ns, ratio) = match p.split(k) {
            Some(sp) => (
                format!("split {:.3} | {:.3}", sp.low.median, sp.high.median),
                "split".to_string(),
            ),
            None if mul_split => (cell(&p.ops[k]), "split".to_string()),
            None => (cell(&p.ops[k]), format!("{vs:.1}x")),
        };
        let spread = match p.ratio_spread(k) {
            Some(r) if k > 0 && !mul_split => format!("{:.1}..{:.1}", r.min, r.max),
            _ => String::new(),
        };
        let line = format!(
            "  {:<18} {ns:>24}  {ratio:>11} {spread:<13}{other}",
            format!("{name} {expr}")
        );
        println!("{}", line.trim_end());
        let mut r: Vec<Value> = vec![
            (*name).into(),
            (*expr).into(),
            array.into(),
            p.bytes().into(),
        ];
        r.extend(median_min_max(Some(&p.ops[k])));
        r.push(vs.into());
        r.push(format!("{array}_{name}").into());
        r.extend(evidence(&p.op_tallies[k]));
        // Every operation of one array ran in the same rounds and window: that array's mark.
        r.push(p.tally.provisional().into());
        block.row(r);
    }
}

/// The multiply with case 0's block at each placement: a line of medians for people (3a's
/// placement and GCC's marked), and the `placement` block.
pub fn placements(out: &mut Out, p: &PerElement) {
    let mut head = format!("  {:<16}", "bytes past line");
    let mut row = format!("  {:<16}", "multiply, ns");
    let mut b = Block::new(
        ::fp_cost::schema::placement::BLOCK,
        ::fp_cost::schema::placement::COLUMNS,
    );
    for ((at, t), tally) in p.placements.iter().zip(&p.placement_tallies) {
        let gcc = *at == GCC_PLACEMENT;
        let mark = match *at {
            GCC_PLACEMENT => "*",
            BASELINE_PLACEMENT => "=",
            _ => "",
        };
        head.push_str(&format!("{:>9}", format!("{mark}{at}")));
        row.push_str(&format!("{:>9.3}", t.median));
        let mut r: Vec<Value> = vec![(*at as u64).into(), measure::fmt::yes_no(gcc).into()];
        r.extend(median_min_max(Some(t)));
        r.extend(evidence(tally));
        b.row(r);
    }
    println!("{head}\n{row}");
    out.block(&b);
}

/// The block of [`per_element_table`]'s rows.
pub fn per_element_block() -> Block {
    Block::new(
        ::fp_cost::schema::per_element::BLOCK,
        ::fp_cost::schema::per_element::COLUMNS,
    )
}

/// Latency and throughput of every operation, in ns and cycles, and the `ops` block.
pub fn ops_table(out: &mut Out, o: &Operations, cc: &CoreClock, shapes: &Shapes) {
    let cyc = |ns: f64| cc.cycles(ns).map_or("-".to_string(), |c| format!("{c:.1}"));
    println!(
        "  {:<8} {:<15} {:>22} {:>5} {:>22} {:>5} {:>7}",
        "op", "one step", "latency ns", "cyc", "throughput ns", "cyc", "flight"
    );
    let mut b = Block::new(
        ::fp_cost::schema::ops::BLOCK,
        ::fp_cost::schema::ops::COLUMNS,
    );
    for (op, t) in OPS.iter().zip(&o.ops) {
        let shown = match (op.plus_add, t.alone) {
            (false, _) => cell(&t.chain),
            (true, Some(a)) => format!("{a:.3} (-add)"),
            (true, None) => "disturbed (-add < 0)".to_string(),
        };
        let dash = || "-".to_string();
        println!(
            "  {:<8} {:<15} {:>22} {:>5} {:>22} {:>5} {:>7}",
            op.name,
            op.step,
            shown,
            t.alone.map_or_else(dash, cyc),
            cell(&t.throughput),
            cyc(t.throughput.median),
            t.alone
                .map_or_else(dash, |a| format!("{:.1}", a / t.throughput.median))
        );
        let [sl, st] = [op.latency_symbol, op.throughput_symbol].map(|s| shapes.of(s));
        let shape = if sl == st {
            sl.to_string()
        } else {
            format!("{sl}/{st}")
        };
        let mut r: Vec<Value> = vec![op.name.into(), op.step.replace(' ', "").into()];
        r.extend(median_min_max(Some(&t.chain)));
        r.extend([t.alone.into(), t.alone.and_then(|a| cc.cycles(a)).into()]);
        r.extend(median_min_max(Some(&t.throughput)));
        r.extend([cc.cycles(t.throughput.median).into(), shape.into()]);
        r.extend(evidence(&t.tally));
        b.row(r);
    }
    out.block(&b);
}
