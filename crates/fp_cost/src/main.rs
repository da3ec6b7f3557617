//! # fp_cost: the cost of numbers
//!
//! Run with: `cargo run -p fp_cost` (about six seconds; add `-- --quick` for a smoke run).
//!
//! What it does: the appendix's section on floating point, in Rust. Can the same
//! multiplication cost different amounts? It measures, over two arrays of 2048 `f64` held in
//! L1 and repeated:
//!
//! 1. denormals: the same loop over values near zero (`f64::MIN_POSITIVE / 8`) and over 1.0,
//!    and beyond the appendix again with flush-to-zero and denormals-are-zero switched on
//!    (MXCSR on x86-64, FPCR on AArch64), restored afterwards and checked;
//! 2. float against double: with four scalar accumulators (the appendix's loop), with one
//!    (strict order), and with the reordering granted as lanes the compiler vectorises;
//! 3. what each operation costs: first the appendix's own table (one operation per element,
//!    the operation chosen inside the loop, in GCC's code for it with the multiply's block in
//!    one line of code, a multiply = 1.0x), then each operation in its own loop as latency
//!    (one chain) and throughput (independent chains), in ns and cycles, then (3c) the same
//!    code with the multiply's block at other addresses, GCC's layout among them;
//! 4. the appendix's failed first try, on purpose: the per-element table again on arrays far
//!    beyond the last-level cache, where memory, not arithmetic, sets the pace.
//!
//! Where to start reading: `main` below, top to bottom; what each section's numbers say is
//! computed in [`verdict`].
//! The timed loops are in [`kernels`] and [`switch`] (each under a fixed symbol, its shape
//! read back from this binary by [`shape`]), their interleaved rounds in [`timing`], the
//! tables and `#DATA` blocks in [`report`], the flush-to-zero switch in [`fpenv`].

mod fpenv;
mod kernels;
mod report;
mod shape;
mod switch;
mod timing;
mod verdict;

use ::fp_cost::schema::key;
use kernels::{CHAINS, OPS};
use measure::clock::CoreClock;
use measure::data::Block;
use measure::fmt::{self, bytes, grouped};
use measure::out::Out;
use measure::run::Experiment;
use shape::Shapes;
use timing::{N, PerElement};

/// How every comparison is timed: passes per batch over the small arrays, rounds asked, and
/// the pinned core.
struct Plan {
    reps: usize,
    want: measure::rounds::Want,
    core: Option<usize>,
}

fn main() {
    let mut exp = measure::start!(
        "fp_cost",
        "the cost of numbers: denormals, float vs double, what each operation costs, and \
         arithmetic buried in memory bandwidth",
        &[
            measure::cli::Opt {
                name: "--rounds",
                value: Some("COUNT"),
                help: "clean timed rounds of every variant (default 41, 11 with --quick)",
            },
            measure::cli::Opt {
                name: "--array-mib",
                value: Some("N"),
                help: "section 4 (arrays beyond the last-level cache): each array N MiB \
                       (default twice the last-level cache; section 4 runs in --quick only \
                       when given)",
            },
        ]
    );
    exp.key_sources(::fp_cost::schema::KEY_SOURCES);
    let quick = exp.args.quick;
    let rounds = exp
        .args
        .count("--rounds", if quick { 11 } else { 41 }, 3, 10_001) as usize;
    let llc = exp.facts.largest_cache();
    let default_mib = llc.map_or(64, |b| (2 * b).div_ceil(1 << 20)).max(64);
    let big_mib = exp.args.count("--array-mib", default_mib, 1, 65_536);
    let big_asked = exp.args.value("--array-mib").is_some();
    // Repetitions of the array loops of sections 1 and 2: 2048 x 500 = 1M elements per timed
    // batch (the appendix's 4M would last over a millisecond, longer than a round should).
    let reps = if quick { 250 } else { 500 };
    let core = exp.pin_main_thread().map(|p| p.requested);
    exp.out.meta("rounds", rounds);
    exp.out.meta("array_reps", reps);
    let plan = Plan {
        reps,
        want: timing::want(rounds),
        core,
    };

    exp.section("how this is measured");
    let (cc, shapes) = how_this_is_measured(&mut exp, &plan);

    exp.section("1. denormals: numbers very close to zero");
    denormals(&mut exp, &plan, &shapes);

    exp.section("2. float and double");
    float_and_double(&mut exp, &plan, &shapes);

    exp.section("3. the operations cost differently");
    let (in_l1, mut per_element) = operations(&mut exp, &cc, &plan, &shapes);

    if !quick || big_asked {
        exp.section("4. the first try, repeated: arrays far beyond the last-level cache");
        beyond_the_cache(&mut exp, big_mib, llc, &plan, &in_l1, &mut per_element);
    }
    exp.out.block(&per_element);
    exp.finish();
}

/// The working set against the reported L1, the core clock, and the shape of every timed
/// loop as compiled.
fn how_this_is_measured(exp: &mut Experiment, plan: &Plan) -> (CoreClock, Shapes) {
    let (reps, rounds) = (plan.reps, plan.want.clean);
    let set = (2 * N * std::mem::size_of::<f64>()) as u64;
    let l1 = exp.facts.cache(1).and_then(|c| c.size.value);
    let text = format!(
        "two arrays of {N} f64, {} together; by the reported sizes that fits in {}{}. Every loop \
         repeats over them {reps} times per timed batch (in section 3, as often as make {:.1} ms \
         or more); {rounds} clean rounds of every comparison, the variants interleaved, each \
         warmed up before its first round and after a disturbed one (up to {} extra rounds / {} \
         ms when rounds are disturbed); median (min..max) of the clean rounds; {}.",
        bytes(set),
        exp.facts.where_fits(set),
        l1.map_or(String::new(), |s| format!(" (L1d {})", bytes(s))),
        timing::BATCH_NS / 1e6,
        2 * rounds,
        timing::EXTRA_BUDGET_NS / 1_000_000,
        measure::retake::promise(),
    );
    fmt::say(&text, "  ");
    let cc = exp.core_clock();
    let dots = ["fp_dot4_f64", "fp_per_element"]
        .into_iter()
        .chain(timing::DOTS.iter().map(|d| d.symbol));
    let ops = OPS
        .iter()
        .flat_map(|o| [o.latency_symbol, o.throughput_symbol]);
    let shapes = Shapes::read_back(dots.chain(ops));
    report::shapes(&mut exp.out, &shapes);
    (cc, shapes)
}

/// Section 1: the same loop over normals and denormals; then again with flush-to-zero.
fn denormals(exp: &mut Experiment, plan: &Plan, shapes: &Shapes) {
    let (reps, want, core) = (plan.reps, &plan.want, plan.core);
    let tiny = f64::MIN_POSITIVE / 8.0;
    // Where the loop landed: identical machine code at another offset from a 64-byte boundary
    // has timed differently on this machine (see docs/NOTES.md), so the placement is recorded.
    let placed = match shapes.loop_addr("fp_dot4_f64") {
        Some(a) => {
            exp.out.meta("dot4_loop_addr", format!("{a:#x}"));
            exp.out.meta("dot4_loop_offset_mod64", a % 64);
            format!(", its loop {} bytes past a 64-byte boundary", a % 64)
        }
        None => {
            exp.out.meta("dot4_loop_offset_mod64", "unknown");
            String::new()
        }
    };
    let text = format!(
        "a[] holds 1.0 or MIN_POSITIVE/8 = {tiny:.4e} (the smallest normal f64 is {:.4e}), \
         b[] 1.0, so every product is a denormal too. The loop is the appendix's: a[i] * b[i] \
         into four accumulators (in this binary: {}{placed}).",
        f64::MIN_POSITIVE,
        shapes.of("fp_dot4_f64"),
    );
    fmt::say(&text, "  ");
    let d = timing::denormals(tiny, reps, want, core);
    report::flush_switch(&mut exp.out, &d);
    report::denormal_table(&mut exp.out, &d);
    let say = verdict::denormals(&d);
    exp.out.meta("denormal_verdict", &say[0]);
    exp.out.how_to_read(&say);
    exp.disturbance(::fp_cost::schema::denormal::BLOCK, &d.tally);
    let r = d.ratio_off();
    exp.key_figure(key::DENORMAL_OVER_NORMAL, r, "x");
    exp.key_figure("ftz_denormal_over_normal", d.ratio_on(), "x");
}

/// Section 2: a dot product in float and in double, with four scalar accumulators (the
/// appendix), with one, and with the reordering granted.
fn float_and_double(exp: &mut Experiment, plan: &Plan, shapes: &Shapes) {
    let (reps, want, core) = (plan.reps, &plan.want, plan.core);
    let w = timing::widths(reps, want, core);
    println!("  a . b over two {N}-element arrays, {reps} times; gain = double / float:");
    report::width_table(&mut exp.out, &w, shapes);
    let vectorised = ["fp_dot_lanes_f32", "fp_dot_lanes_f64"]
        .iter()
        .all(|s| shapes.of(s) == "vectorised");
    exp.out.how_to_read(&verdict::widths(&w, vectorised));
    exp.disturbance(::fp_cost::schema::width::BLOCK, &w.tally);
    let (four, strict, lanes) = (
        w.float_gain("four"),
        w.float_gain("strict"),
        w.float_gain("lanes"),
    );
    exp.key_figure("float_speedup_four", four, "x");
    exp.key_figure(key::FLOAT_SPEEDUP_STRICT, strict, "x");
    exp.key_figure(key::FLOAT_SPEEDUP_LANES, lanes, "x");
}

/// Section 3: the appendix's per-element table first, then latency and throughput.
/// Returns the per-element table and its block, for section 4.
fn operations(
    exp: &mut Experiment,
    cc: &CoreClock,
    plan: &Plan,
    shapes: &Shapes,
) -> (PerElement, Block) {
    let text = format!(
        "3a. the appendix's table: one operation per element over the same two arrays, into \
         four accumulators, the operation chosen inside the loop by the C program's switch, in \
         the code GCC makes of it{} (in this binary: {}); ns per element, the ratio's range \
         over the rounds beside it:",
        if cfg!(target_arch = "x86_64") {
            format!(
                ", reproduced instruction for instruction, with the multiply's block moved to \
                 the start of a 64-byte line of code, where its {} bytes fit in one (GCC put it \
                 at byte {} across two: see 3c)",
                switch::MULTIPLY_BLOCK_BYTES,
                switch::GCC_PLACEMENT
            )
        } else {
            " (here: a Rust loop in the compiler's own layout)".to_string()
        },
        shapes.of("fp_per_element")
    );
    fmt::say(&text, "  ");
    // The placement scan needs GCC's code, reproduced for x86-64 only.
    let scan = cfg!(target_arch = "x86_64");
    let pe = timing::per_element(N, &plan.want, scan, plan.core);
    let mut block = report::per_element_block();
    report::per_element_table(&pe, None, "l1", &mut block);

    let o = timing::operations(timing::BATCH_NS, &plan.want, plan.core);
    let text = format!(
        "3b. each operation in its own loop: latency is one chain, each step waiting for the \
         last; throughput is {CHAINS} independent chains. ns per operation, cycles at the clock \
         estimate (compare uops.info for this CPU family) and how many are in flight at once \
         (latency / throughput):"
    );
    println!();
    fmt::say(&text, "  ");
    report::ops_table(&mut exp.out, &o, cc, shapes);
    println!(
        "  (the sqrt and sin chains add 1 each step; the add's latency, {:.3} ns, is subtracted)",
        o.add_latency
    );
    exp.out.how_to_read(&verdict::operations(&pe, &o));
    where_the_code_sits(&mut exp.out, &pe);
    exp.disturbance(::fp_cost::schema::PER_ELEMENT_L1, &pe.tally);
    if !pe.placements.is_empty() {
        exp.disturbance(::fp_cost::schema::placement::BLOCK, &pe.tally);
    }
    exp.disturbance(::fp_cost::schema::ops::BLOCK, &o.tally);
    let mul_l = o.ops[0].chain.median;
    let div_t = o.ops[2].throughput.median / o.ops[0].throughput.median;
    let (div_pe, sin_pe) = (pe.vs_multiply(2), pe.vs_multiply(4));
    exp.key_figure(key::PER_ELEMENT_DIV_OVER_MUL, div_pe, "x");
    exp.key_figure(key::PER_ELEMENT_SIN_OVER_MUL, sin_pe, "x");
    if let Some((slowest, fastest)) = verdict::placement_range(&pe) {
        exp.key_figure("placement_max_over_min", slowest / fastest, "x");
        if let Some(gcc) = verdict::placed(&pe, switch::GCC_PLACEMENT) {
            exp.key_figure("placement_gcc_over_best", gcc / fastest, "x");
            exp.key_figure("placement_gcc_over_baseline", gcc / pe.ops[0].median, "x");
        }
    }
    for (n, t) in ["mul", "add", "div", "sqrt", "sin"].iter().zip(&o.ops) {
        exp.key_figure(&format!("{n}_latency"), t.alone, "ns");
    }
    exp.key_figure("mul_latency_cycles", cc.cycles(mul_l), "cycles");
    exp.key_figure(
        "div_latency_cycles",
        cc.cycles(o.ops[2].chain.median),
        "cycles",
    );
    exp.key_figure(key::DIV_OVER_MUL_THROUGHPUT, div_t, "x");
    (pe, block)
}

/// Section 3c: the multiply of 3a's loop with its block at each multiple of 8 bytes past a
/// line, GCC's layout (the C program's) among them, and what that does to the C program's
/// column. Timed with 3a's rounds; x86-64 only.
fn where_the_code_sits(out: &mut Out, pe: &PerElement) {
    println!();
    if pe.placements.is_empty() {
        fmt::say(
            "3c. where the code sits: skipped (GCC's code for this loop is reproduced on x86-64 \
             only; here the loop is the compiler's own)",
            "  ",
        );
        return;
    }
    let text = "3c. where the code sits: not the operations, but the address of the same instructions. \
         3a's multiply again, timed in the same rounds, with its block at each multiple of 8 \
         bytes past the start of a 64-byte line of code (= 3a's, * GCC's layout of the C \
         program, where the block spans two lines); ns per element:";
    fmt::say(text, "  ");
    report::placements(out, pe);
    out.how_to_read(&verdict::placement(pe));
}

/// Section 4: the per-element table again, over arrays of `mib` MiB each (far beyond the
/// last-level cache unless the reader asked otherwise), and a verdict on what was measured.
/// Its rows go into `block` beside section 3's.
fn beyond_the_cache(
    exp: &mut Experiment,
    mib: u64,
    llc: Option<u64>,
    plan: &Plan,
    in_l1: &PerElement,
    block: &mut Block,
) {
    let each = mib << 20;
    let total = 2 * each;
    let llc_text = match llc {
        Some(l) => format!(
            "{:.1}x the {} last-level cache the machine reports",
            total as f64 / l as f64,
            bytes(l)
        ),
        None => "the last-level cache size is unknown".into(),
    };
    let text = format!(
        "the appendix's first try used 16 MiB arrays and found every operation at the same \
         1.24 ns. Here: two arrays of {} each, {} together ({llc_text}; by the reported sizes: \
         {}). A round runs one operation over a slice of {} elements of each, the next slice \
         each round, so the data streams from memory as in one pass; {} clean rounds; the loop \
         of 3a:",
        bytes(each),
        bytes(total),
        exp.facts.where_fits(total),
        grouped(timing::SLICE as u64),
        plan.want.clean
    );
    fmt::say(&text, "  ");
    if let Err(e) = measure::mem::room_for(total) {
        println!("  skipped: {e}.");
        exp.out.meta("big_array_verdict", format!("skipped: {e}"));
        return;
    }
    let len = (each / 8) as usize;
    let site = measure::disturb::Site::over(plan.core, total, &exp.facts);
    let big = timing::per_element_sliced(len, &plan.want, site);
    report::per_element_table(&big, Some(in_l1), "big", block);
    exp.out.meta("big_array_bytes", total);

    let say = verdict::beyond(&big, in_l1);
    exp.out.how_to_read(&say);
    exp.out.meta("big_array_verdict", &say[0]);
    exp.disturbance(::fp_cost::schema::PER_ELEMENT_BIG, &big.tally);
    let t: Vec<f64> = big.ops.iter().map(|s| s.median).collect();
    let cheapest = t.iter().copied().fold(f64::INFINITY, f64::min);
    exp.key_figure(
        "big_array_spread",
        t.iter().copied().fold(0.0, f64::max) / cheapest,
        "x",
    );
}
