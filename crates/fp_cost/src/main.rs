//! # fp_cost: the cost of numbers
//!
//! Run with: `cargo run -p fp_cost` (add `-- --quick` for a smoke run of a few seconds).
//!
//! The appendix's section on floating point, in Rust. Can the same multiplication cost
//! different amounts? The appendix's first try said no, because its arrays were 16 MiB and
//! memory bandwidth hid the arithmetic; so the working set here is two arrays of 2048 `f64`
//! (32 KiB, inside L1), repeated. Three questions:
//!
//! 1. denormals: the same loop over values near zero (`f64::MIN_POSITIVE / 8`) and over
//!    1.0, and beyond the appendix the same again with flush-to-zero and denormals-are-zero
//!    switched on (MXCSR on x86-64, FPCR on AArch64), restored afterwards and checked;
//! 2. float against double, first in strict order (scalar: the compiler may not reorder
//!    floating-point additions), then with the reordering granted by writing independent lanes
//!    of accumulators (Rust has no `-ffast-math`), which the compiler vectorises;
//! 3. what each operation costs (multiply, add, divide, sqrt, sin), each in its own loop, as
//!    latency (one dependent chain) and throughput (independent chains), in ns and in cycles.
//!
//! The shape of every loop (vectorised or scalar) is read back from this binary, not assumed.

mod fpenv;
mod kernels;
mod report;
mod shape;
mod timing;

use kernels::{CHAINS, OPS};
use measure::clock::CoreClock;
use measure::data::meta;
use measure::run::Experiment;
use shape::Shapes;
use timing::N;

fn main() {
    let mut exp = measure::start!(
        "fp_cost",
        "the cost of numbers: denormals, float vs double, and each operation's latency and throughput",
        &[measure::cli::Opt {
            name: "--rounds",
            value: Some("COUNT"),
            help: "timed rounds of every variant (default 31, 5 with --quick)",
        }]
    );
    let quick = exp.args.quick;
    let rounds = exp
        .args
        .count("--rounds", if quick { 5 } else { 31 }, 3, 10_001) as usize;
    // Repetitions of the array loops: 2048 x 2000 = 4M elements per timed batch, as in the appendix.
    let reps = if quick { 500 } else { 2000 };
    exp.pin_main_thread();
    measure::data::meta("rounds", rounds);
    measure::data::meta("array_reps", reps);

    exp.section("the core clock and the CPU (to speak in cycles)");
    let cc = exp.core_clock();
    println!(
        "  cpu            : {} / {}",
        exp.facts.cpu_model.as_deref().unwrap_or("unknown model"),
        exp.facts.cpu_family.as_deref().unwrap_or("unknown")
    );
    println!(
        "  * latencies in cycles below can be compared with published instruction tables for this\n    family (uops.info, Agner Fog's instruction tables)."
    );

    exp.section("how this is measured");
    let shapes = how_this_is_measured(&exp, reps, rounds);

    exp.section("1. denormals: numbers very close to zero");
    denormals(&mut exp, reps, rounds, &shapes);

    exp.section("2. float and double");
    float_and_double(&mut exp, reps, rounds, &shapes);

    exp.section("3. the operations cost differently (each in its own loop)");
    let min_batch_ns = if quick { 1e6 } else { 3e6 };
    operations(&mut exp, &cc, min_batch_ns, rounds, &shapes);

    exp.finish();
}

/// The working set against the reported L1, and the shape of every timed loop as compiled.
fn how_this_is_measured(exp: &Experiment, reps: usize, rounds: usize) -> Shapes {
    let bytes = (2 * N * std::mem::size_of::<f64>()) as u64;
    let l1 = exp.facts.cache(1).and_then(|c| c.size.value);
    println!(
        "  two arrays of {N} f64: {} KiB together; by the reported sizes that fits in {}{}.",
        bytes / 1024,
        exp.facts.where_fits(bytes),
        l1.map_or(String::new(), |s| format!(" (L1d {} KiB)", s / 1024))
    );
    println!(
        "  each loop repeats over them {reps} times per timed batch; {rounds} interleaved rounds."
    );
    println!("  the code of every timed loop, read back from this binary:");
    let dots = ["fp_dot4_f64"]
        .into_iter()
        .chain(timing::DOTS.iter().map(|d| d.symbol));
    let ops = OPS
        .iter()
        .flat_map(|o| [o.latency_symbol, o.throughput_symbol]);
    let shapes = Shapes::read_back(dots.chain(ops));
    report::shapes(&shapes);
    shapes
}

/// 1. The same loop over normals and denormals; then again with flush-to-zero.
fn denormals(exp: &mut Experiment, reps: usize, rounds: usize, shapes: &Shapes) {
    let tiny = f64::MIN_POSITIVE / 8.0;
    println!(
        "  the smallest normal f64 is {:.4e}; a[] below holds {tiny:.4e} (MIN_POSITIVE / 8), b[] 1.0,",
        f64::MIN_POSITIVE
    );
    println!(
        "  so every product is a denormal too. The loop: the appendix's, four accumulators\n  (in this binary: {}).",
        shapes.of("fp_dot4_f64")
    );
    // Where the loop landed: identical machine code at another offset from a 64-byte boundary
    // has timed differently on this machine (see the handout), so the placement is recorded.
    match shapes.loop_addr("fp_dot4_f64") {
        Some(a) => {
            println!(
                "  placement: its loop begins at {a:#x}, {} bytes past a 64-byte boundary.",
                a % 64
            );
            meta("dot4_loop_addr", format!("{a:#x}"));
            meta("dot4_loop_offset_mod64", a % 64);
        }
        None => meta("dot4_loop_offset_mod64", "unknown"),
    }
    let d = timing::denormals(tiny, reps, rounds);
    report::flush_switch(&d);
    report::denormal_table(&d);

    let (ratio_off, ratio_on, apart) = (d.ratio_off(), d.ratio_on(), d.apart());
    if apart && ratio_off > 1.5 {
        println!(
            "  -> denormals are {ratio_off:.1} x slower on this machine: the same instructions, the same count,\n     only the size of the values changed, and the hardware fell off its fast path."
        );
    } else if apart && ratio_off > 1.0 {
        println!(
            "  -> denormals cost a little here ({ratio_off:.2} x, every denormal round slower than every normal one),\n     far from the tens of times some chips show: measure before speaking."
        );
    } else {
        println!(
            "  -> no measurable penalty on this machine ({ratio_off:.2} x, the rounds overlap): any cost of the\n     denormals is lost in the spread of the rounds. On other chips the same loop is tens of times slower:\n     measure before speaking."
        );
    }
    if let Some(r) = ratio_on {
        if apart && ratio_off > 1.5 && r < 1.2 {
            println!(
                "  -> with flush-to-zero the penalty is gone ({ratio_off:.1} x -> {r:.2} x), and so are the values: the\n     denormal sum came out 0. A little accuracy traded for the worst-case time."
            );
        } else {
            println!(
                "  -> with flush-to-zero: {r:.2} x. The denormal sum came out 0 (the values were read as zero);\n     {}",
                if ratio_off <= 1.2 {
                    "there was no penalty to remove here."
                } else {
                    "the penalty did not fully go away."
                }
            );
        }
    }
    exp.key_figure("denormal_over_normal", ratio_off, "x");
    exp.key_figure("ftz_denormal_over_normal", ratio_on, "x");
}

/// 2. A dot product in float and in double: in strict order, then with the reordering granted.
fn float_and_double(exp: &mut Experiment, reps: usize, rounds: usize, shapes: &Shapes) {
    let w = timing::widths(reps, rounds);
    println!(
        "  the dot product of two {N}-element arrays, {reps} times; per element (median, min..max):"
    );
    report::width_table(&w, shapes);

    let strict = w.times[0].median / w.times[1].median;
    let lanes = w.times[2].median / w.times[3].median;
    println!(
        "  -> in strict order float is {strict:.2} x as fast as double; with lanes {lanes:.2} x."
    );
    if (0.85..1.18).contains(&strict) {
        println!(
            "  * in strict order the width buys nothing: one element at a time, each addition waiting\n    for the last, takes as long in float as in double."
        );
    } else {
        println!("  * in strict order the two types already differ here ({strict:.2} x).");
    }
    let lanes_vec = shapes.of("fp_dot_lanes_f32") == "vectorised"
        && shapes.of("fp_dot_lanes_f64") == "vectorised";
    if lanes > 1.5 && lanes_vec {
        println!(
            "  * with the reordering granted the loops are vectorised, and float is {lanes:.2} x faster:\n    a vector register holds twice as many floats. \"float is twice as fast\" has conditions."
        );
    } else if lanes_vec {
        println!(
            "  * the laned loops are vectorised, yet float is only {lanes:.2} x as fast here."
        );
    } else {
        println!(
            "  * the laned loops were not (all) found vectorised in this binary: see the code check above."
        );
    }
    println!(
        "  * read the ratio within each pair, not across pairs: the lanes also remove the wait for the\n    previous addition, which helps both types alike."
    );
    let (s, l) = (w.sums[0], w.sums[2]);
    if s.to_bits() != l.to_bits() {
        println!(
            "  * the reordering is not free: in double the laned sum differs from the strict one by {:.1e}\n    (relative). Floating-point addition is not associative.",
            ((l - s) / s).abs()
        );
    } else {
        println!(
            "  * in double the laned sum came out bit for bit equal to the strict one this time."
        );
    }
    exp.key_figure("float_speedup_strict", strict, "x");
    exp.key_figure("float_speedup_lanes", lanes, "x");
}

/// 3. Each operation in its own loop: latency (one chain) and throughput (independent chains).
fn operations(
    exp: &mut Experiment,
    cc: &CoreClock,
    min_batch_ns: f64,
    rounds: usize,
    shapes: &Shapes,
) {
    let o = timing::operations(min_batch_ns, rounds);
    println!(
        "  latency: one chain, each step waiting for the last. throughput: {CHAINS} independent chains.\n  ns per operation (median, min..max), and cycles at the clock estimate:\n"
    );
    report::ops_table(&o, cc, shapes);
    println!(
        "  (sqrt and sin: their chains add 1 each step; the add's latency, {:.3} ns, is subtracted.\n   \"in flight\" = latency / throughput: how many such operations the core overlaps.)",
        o.add_latency
    );

    let (mul_t, mul_l) = (o.ops[0].throughput.median, o.ops[0].alone);
    for (op, t) in OPS.iter().zip(&o.ops).skip(1) {
        println!(
            "  * {:<8}: {:>5.1} x a multiply in throughput, {:>5.1} x in latency",
            op.name,
            t.throughput.median / mul_t,
            t.alone / mul_l
        );
    }
    let div = o.ops[2].throughput.median / mul_t;
    if div > 1.5 {
        println!(
            "  * dividing by the same number many times? One division for the reciprocal, then multiplies:\n    here a division costs {div:.1} multiplies."
        );
    } else {
        println!("  * a division costs about as much as a multiply here ({div:.1} x).");
    }
    for (n, t) in ["mul", "add", "div", "sqrt", "sin"].iter().zip(&o.ops) {
        exp.key_figure(&format!("{n}_latency"), t.alone, "ns");
    }
    exp.key_figure("mul_latency_cycles", cc.cycles(o.ops[0].alone), "cycles");
    exp.key_figure("div_latency_cycles", cc.cycles(o.ops[2].alone), "cycles");
    exp.key_figure("div_over_mul_throughput", div, "x");
}
