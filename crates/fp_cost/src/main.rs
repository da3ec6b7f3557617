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

use kernels::{CHAINS, OPS};
use measure::asm;
use measure::clock;
use measure::data::{Block, meta};
use measure::keep::black_box;
use measure::stats::Summary;
use std::path::Path;

/// Two arrays of this many `f64`: 32 KiB together.
const N: usize = 2048;

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
    let rounds = exp.args.count("--rounds", if quick { 5 } else { 31 }, 3) as usize;
    // Repetitions of the array loops: 2048 x 2000 = 4M elements per timed batch, as in the appendix.
    let reps = if quick { 500 } else { 2000 };
    exp.pin_main_thread();
    meta("rounds", rounds);
    meta("array_reps", reps);

    exp.section("the core clock and the CPU (to speak in cycles)");
    let cc = exp.core_clock();
    let family = exp
        .facts
        .cpu_family
        .clone()
        .unwrap_or_else(|| "unknown".into());
    println!(
        "  cpu            : {} / {family}",
        exp.facts.cpu_model.as_deref().unwrap_or("unknown model")
    );
    println!(
        "  * latencies in cycles below can be compared with published instruction tables for this\n    family (uops.info, Agner Fog's instruction tables)."
    );

    // == How this is measured: the working set, and the code.
    exp.section("how this is measured");
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
    let exe = std::env::current_exe().ok();
    let mut sb = Block::new("shape", &["kernel:text", "verdict:text"]);
    let mut shapes = std::collections::BTreeMap::new();
    let symbols = [
        "fp_dot4_f64",
        "fp_dot_strict_f64",
        "fp_dot_strict_f32",
        "fp_dot_lanes_f64",
        "fp_dot_lanes_f32",
    ]
    .into_iter()
    .chain(
        OPS.iter()
            .flat_map(|o| [o.latency_symbol, o.throughput_symbol]),
    );
    for sym in symbols {
        let (word, text) = match &exe {
            Some(p) => code_shape(p, sym),
            None => (
                "unchecked",
                "could not check (no path to this executable)".to_string(),
            ),
        };
        println!("    {sym:<20} {text}");
        sb.row(vec![sym.into(), word.into()]);
        shapes.insert(sym, word);
    }
    sb.print();

    // == 1. Denormals.
    exp.section("1. denormals: numbers very close to zero");
    let tiny = f64::MIN_POSITIVE / 8.0;
    println!(
        "  the smallest normal f64 is {:.4e}; a[] below holds {tiny:.4e} (MIN_POSITIVE / 8), b[] 1.0,",
        f64::MIN_POSITIVE
    );
    println!(
        "  so every product is a denormal too. The loop: the appendix's, four accumulators\n  (in this binary: {}).",
        shapes.get("fp_dot4_f64").copied().unwrap_or("unchecked")
    );
    let ones = vec![1.0f64; N];
    let tinies = vec![tiny; N];
    let b = vec![1.0f64; N];
    let want_normal = (N * reps) as f64;
    let want_tiny = (N * reps) as f64 * tiny;
    let flush = fpenv::register();
    let mut switches: Vec<fpenv::Switch> = Vec::new();
    let mut samples: [Vec<f64>; 4] = Default::default();
    for round in 0..=rounds {
        // normal off, denormal off, normal on, denormal on: interleaved.
        for (k, a) in [&ones, &tinies, &ones, &tinies].into_iter().enumerate() {
            let run = || {
                clock::time_ns(|| {
                    kernels::fp_dot4_f64(black_box(a), black_box(&b), black_box(reps))
                })
            };
            let (t, s) = if k < 2 {
                run()
            } else {
                match fpenv::with_flush(run) {
                    Some((r, sw)) => {
                        switches.push(sw);
                        if !sw.took() {
                            continue; // refused: nothing measured with the mode on
                        }
                        r
                    }
                    None => continue,
                }
            };
            let want = match k {
                0 | 2 => want_normal,
                1 => want_tiny,
                _ => 0.0,
            };
            check_sum("fp_dot4_f64", s, want);
            if round > 0 {
                samples[k].push(t / (N * reps) as f64);
            }
        }
    }
    let sum = |k: usize| Summary::of(&samples[k]);
    let (norm_off, den_off) = (sum(0).expect("rounds"), sum(1).expect("rounds"));
    let switch_ok = !switches.is_empty() && switches.iter().all(|s| s.took() && s.restored());
    let (norm_on, den_on) = if switch_ok {
        (sum(2), sum(3))
    } else {
        (None, None)
    };
    match (flush, switches.first()) {
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
                if switch_ok {
                    format!(
                        "set and restored, verified on all {} switches",
                        switches.len()
                    )
                } else if switches.iter().any(|s| !s.took()) {
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
            meta("fp_control_restored", if switch_ok { "yes" } else { "no" });
        }
        (Some(_), None) => println!("  flush-to-zero: not run"),
    }
    println!();
    println!(
        "  {:<30} {:>26} {:>26}",
        "ns per element", "FTZ/DAZ off (IEEE)", "FTZ/DAZ on"
    );
    let opt = |s: &Option<Summary>| s.as_ref().map_or("not measured".to_string(), show);
    println!(
        "  {:<30} {:>26} {:>26}",
        "a[] = 1.0 (normal)",
        show(&norm_off),
        opt(&norm_on)
    );
    println!(
        "  {:<30} {:>26} {:>26}",
        "a[] = MIN_POSITIVE/8 (denormal)",
        show(&den_off),
        opt(&den_on)
    );
    let ratio_off = den_off.median / norm_off.median;
    let ratio_on = match (&norm_on, &den_on) {
        (Some(n), Some(d)) => Some(d.median / n.median),
        _ => None,
    };
    println!(
        "  {:<30} {:>24.2} x {:>26}",
        "denormal / normal",
        ratio_off,
        ratio_on.map_or("-".to_string(), |r| format!("{r:.2} x"))
    );
    let mut db = Block::new(
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
        ("normal", "off", Some(norm_off)),
        ("denormal", "off", Some(den_off)),
        ("normal", "on", norm_on),
        ("denormal", "on", den_on),
    ] {
        db.row(vec![
            values.into(),
            mode.into(),
            s.map(|s| s.median).into(),
            s.map(|s| s.min).into(),
            s.map(|s| s.max).into(),
        ]);
    }
    db.print();
    let apart = den_off.min > norm_off.max;
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
            "  -> no measurable penalty on this machine ({ratio_off:.2} x, the rounds overlap): this CPU handles\n     denormals at full speed. On other chips the same loop is tens of times slower: measure before speaking."
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

    // == 2. float and double.
    exp.section("2. float and double");
    let a64: Vec<f64> = (0..N).map(|i| 1.0 + i as f64 * 1e-6).collect();
    let b64 = vec![1.000_001f64; N];
    let a32: Vec<f32> = a64.iter().map(|&x| x as f32).collect();
    let b32 = vec![1.000_001f32; N];
    let exact: f64 = a64.iter().zip(&b64).map(|(x, y)| x * y).sum::<f64>() * reps as f64;
    type Dot = Box<dyn Fn() -> f64>;
    let cases: [(&str, &str, Dot); 4] = {
        let (a64, b64, a32, b32) = (a64.clone(), b64.clone(), a32.clone(), b32.clone());
        let (c64, d64, c32, d32) = (a64.clone(), b64.clone(), a32.clone(), b32.clone());
        [
            (
                "double, strict order",
                "fp_dot_strict_f64",
                Box::new(move || {
                    kernels::fp_dot_strict_f64(black_box(&a64), black_box(&b64), black_box(reps))
                }),
            ),
            (
                "float, strict order",
                "fp_dot_strict_f32",
                Box::new(move || {
                    f64::from(kernels::fp_dot_strict_f32(
                        black_box(&a32),
                        black_box(&b32),
                        black_box(reps),
                    ))
                }),
            ),
            (
                "double, lanes",
                "fp_dot_lanes_f64",
                Box::new(move || {
                    kernels::fp_dot_lanes_f64(black_box(&c64), black_box(&d64), black_box(reps))
                }),
            ),
            (
                "float, lanes",
                "fp_dot_lanes_f32",
                Box::new(move || {
                    f64::from(kernels::fp_dot_lanes_f32(
                        black_box(&c32),
                        black_box(&d32),
                        black_box(reps),
                    ))
                }),
            ),
        ]
    };
    let mut first: [Option<f64>; 4] = [None; 4];
    let mut ws: [Vec<f64>; 4] = Default::default();
    for round in 0..=rounds {
        for (k, (label, sym, f)) in cases.iter().enumerate() {
            let (t, s) = clock::time_ns(f);
            // Every call must give bit for bit what the first gave, and that must be the sum.
            match first[k] {
                None => {
                    let tol = if label.starts_with("float") {
                        2e-2
                    } else {
                        1e-9
                    };
                    if ((s - exact) / exact).abs() > tol {
                        fail_sum(sym, s, exact);
                    }
                    first[k] = Some(s);
                }
                Some(v) if v.to_bits() != s.to_bits() => fail_sum(sym, s, v),
                Some(_) => {}
            }
            if round > 0 {
                ws[k].push(t / (N * reps) as f64);
            }
        }
    }
    let w: Vec<Summary> = ws.iter().map(|v| Summary::of(v).expect("rounds")).collect();
    println!(
        "  the dot product of two {N}-element arrays, {reps} times; per element (median, min..max):"
    );
    println!(
        "  {:<22} {:>26}   code in this binary",
        "", "ns per element"
    );
    let mut wb = Block::new(
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
    for (k, (label, sym, _)) in cases.iter().enumerate() {
        let shape = shapes.get(sym).copied().unwrap_or("unchecked");
        println!("  {label:<22} {:>26}   {shape}", show(&w[k]));
        let (ty, order) = sym
            .strip_prefix("fp_dot_")
            .and_then(|r| r.split_once('_'))
            .map_or(("?", "?"), |(o, t)| {
                (if t == "f64" { "double" } else { "float" }, o)
            });
        wb.row(vec![
            format!("{ty}_{order}").into(),
            ty.into(),
            order.into(),
            shape.into(),
            w[k].median.into(),
            w[k].min.into(),
            w[k].max.into(),
        ]);
    }
    wb.print();
    let strict = w[0].median / w[1].median;
    let lanes = w[2].median / w[3].median;
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
    let lanes_vec = shapes.get("fp_dot_lanes_f32") == Some(&"vectorised")
        && shapes.get("fp_dot_lanes_f64") == Some(&"vectorised");
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
    if let (Some(s), Some(l)) = (first[0], first[2]) {
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
    }
    exp.key_figure("float_speedup_strict", strict, "x");
    exp.key_figure("float_speedup_lanes", lanes, "x");

    // == 3. Each operation: latency and throughput.
    exp.section("3. the operations cost differently (each in its own loop)");
    let min_batch = if quick { 1e6 } else { 3e6 };
    let x0s: [f64; CHAINS] = std::array::from_fn(|k| 1.0 + k as f64 / CHAINS as f64);
    let mut plan = Vec::new();
    for op in &OPS {
        let nl = 1024
            * clock::calibrate_reps(min_batch, || {
                black_box((op.latency)(black_box(1024), 1.0, op.c));
            }) as usize;
        let nt = 1024
            * clock::calibrate_reps(min_batch, || {
                black_box((op.throughput)(black_box(1024), x0s, op.c));
            }) as usize;
        plan.push((nl.max(1024), nt.max(1024)));
    }
    let mut lat: Vec<Vec<f64>> = vec![Vec::new(); OPS.len()];
    let mut tput: Vec<Vec<f64>> = vec![Vec::new(); OPS.len()];
    for round in 0..=rounds {
        for (k, op) in OPS.iter().enumerate() {
            let (nl, nt) = plan[k];
            let (t, x) =
                clock::time_ns(|| (op.latency)(black_box(nl), black_box(1.0), black_box(op.c)));
            if !op.check(nl, 1.0, x) {
                fail_sum(op.latency_symbol, x, op.expected(nl, 1.0));
            }
            let (u, xs) =
                clock::time_ns(|| (op.throughput)(black_box(nt), black_box(x0s), black_box(op.c)));
            for (c, (&got, &x0)) in xs.iter().zip(&x0s).enumerate() {
                if !op.check(nt, x0, got) {
                    eprintln!("fp_cost: error: chain {c} of {}", op.throughput_symbol);
                    fail_sum(op.throughput_symbol, got, op.expected(nt, x0));
                }
            }
            if round > 0 {
                lat[k].push(t / nl as f64);
                tput[k].push(u / (nt * CHAINS) as f64);
            }
        }
    }
    let lat: Vec<Summary> = lat
        .iter()
        .map(|v| Summary::of(v).expect("rounds"))
        .collect();
    let tput: Vec<Summary> = tput
        .iter()
        .map(|v| Summary::of(v).expect("rounds"))
        .collect();
    let add_lat = lat[1].median;
    let cyc = |ns: f64| cc.cycles(ns).map_or("-".to_string(), |c| format!("{c:.1}"));
    println!(
        "  latency: one chain, each step waiting for the last. throughput: {CHAINS} independent chains.\n  ns per operation (median, min..max), and cycles at the clock estimate:\n"
    );
    println!(
        "  {:<9} {:<16} {:>24} {:>7} {:>24} {:>7} {:>9}",
        "operation", "one step", "latency ns", "cycles", "throughput ns", "cycles", "in flight"
    );
    let mut ob = Block::new(
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
    let mut op_lat = Vec::new();
    for (k, op) in OPS.iter().enumerate() {
        // sqrt and sin chains also add a constant each step: subtract the add's latency.
        let alone = if op.plus_add {
            lat[k].median - add_lat
        } else {
            lat[k].median
        };
        op_lat.push(alone);
        let shown = if op.plus_add {
            format!("{:.3} (-add)", alone)
        } else {
            show(&lat[k])
        };
        println!(
            "  {:<9} {:<16} {:>24} {:>7} {:>24} {:>7} {:>9.1}",
            op.name,
            op.step,
            shown,
            cyc(alone),
            show(&tput[k]),
            cyc(tput[k].median),
            alone / tput[k].median
        );
        let [sl, st] = [op.latency_symbol, op.throughput_symbol]
            .map(|s| shapes.get(s).copied().unwrap_or("unchecked"));
        let shape = if sl == st {
            sl.to_string()
        } else {
            format!("{sl}/{st}")
        };
        ob.row(vec![
            op.name.into(),
            op.step.replace(' ', "").into(),
            lat[k].median.into(),
            lat[k].min.into(),
            lat[k].max.into(),
            alone.into(),
            cc.cycles(alone).into(),
            tput[k].median.into(),
            tput[k].min.into(),
            tput[k].max.into(),
            cc.cycles(tput[k].median).into(),
            shape.into(),
        ]);
    }
    ob.print();
    println!(
        "  (sqrt and sin: their chains add 1 each step; the add's latency, {add_lat:.3} ns, is subtracted.\n   \"in flight\" = latency / throughput: how many such operations the core overlaps.)"
    );
    let (mul_t, mul_l) = (tput[0].median, op_lat[0]);
    for (k, op) in OPS.iter().enumerate().skip(1) {
        println!(
            "  * {:<8}: {:>5.1} x a multiply in throughput, {:>5.1} x in latency",
            op.name,
            tput[k].median / mul_t,
            op_lat[k] / mul_l
        );
    }
    let div = tput[2].median / mul_t;
    if div > 1.5 {
        println!(
            "  * dividing by the same number many times? One division for the reciprocal, then multiplies:\n    here a division costs {div:.1} multiplies."
        );
    } else {
        println!("  * a division costs about as much as a multiply here ({div:.1} x).");
    }
    let name_cycles = ["mul", "add", "div", "sqrt", "sin"];
    for (k, n) in name_cycles.iter().enumerate() {
        exp.key_figure(&format!("{n}_latency"), op_lat[k], "ns");
    }
    exp.key_figure("mul_latency_cycles", cc.cycles(op_lat[0]), "cycles");
    exp.key_figure("div_latency_cycles", cc.cycles(op_lat[2]), "cycles");
    exp.key_figure("div_over_mul_throughput", div, "x");
    exp.finish();
}

/// What the compiler made of `sym`'s loops: a word for `#DATA` and a line for people.
fn code_shape(exe: &Path, sym: &str) -> (&'static str, String) {
    let f = match asm::disassemble(exe, sym) {
        Ok(f) => f,
        Err(e) => return ("unchecked", format!("could not check ({e})")),
    };
    let loops = f.loops();
    if loops.is_empty() {
        return ("no_loop", "no loop found".into());
    }
    let mut simd: Vec<String> = loops
        .iter()
        .flat_map(|l| l.simd_arith().into_iter().map(|i| i.mnemonic.clone()))
        .collect();
    simd.sort();
    simd.dedup();
    if !simd.is_empty() {
        return ("vectorised", format!("vectorised ({})", simd.join(", ")));
    }
    let mut fp: Vec<String> = loops
        .iter()
        .flat_map(|l| l.insns.iter())
        .filter(|i| is_scalar_fp(&i.mnemonic) || i.is_call())
        .map(|i| i.mnemonic.clone())
        .collect();
    fp.sort();
    fp.dedup();
    ("scalar", format!("scalar ({})", fp.join(", ")))
}

/// Scalar floating-point arithmetic mnemonics (x86-64 SSE/AVX, AArch64).
fn is_scalar_fp(m: &str) -> bool {
    let base = m.strip_prefix('v').unwrap_or(m);
    ["add", "sub", "mul", "div", "sqrt"].iter().any(|p| {
        base.starts_with(p)
            && (base.ends_with("sd") || base.ends_with("ss"))
            && base.len() <= p.len() + 2
    }) || matches!(m, "fadd" | "fsub" | "fmul" | "fdiv" | "fsqrt" | "fmadd")
}

fn show(s: &Summary) -> String {
    format!("{:.3} ({:.3}..{:.3})", s.median, s.min, s.max)
}

/// A kernel returned the wrong value: the loop did not do the work it was timed for.
fn fail_sum(sym: &str, got: f64, want: f64) -> ! {
    eprintln!("fp_cost: error: {sym} returned {got:e}, expected {want:e}");
    std::process::exit(1)
}

fn check_sum(sym: &str, got: f64, want: f64) {
    let ok = if want == 0.0 {
        got == 0.0
    } else {
        ((got - want) / want).abs() < 1e-12
    };
    if !ok {
        fail_sum(sym, got, want);
    }
}
