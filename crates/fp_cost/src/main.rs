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
//!    the operation chosen inside the loop, in GCC's code for it, a multiply = 1.0x), the same
//!    code with the multiply's block at other addresses, then each operation in its own loop
//!    as latency (one chain) and throughput (independent chains), in ns and cycles;
//! 4. the appendix's failed first try, on purpose: the per-element table again on arrays far
//!    beyond the last-level cache, where memory, not arithmetic, sets the pace.
//!
//! Where to start reading: `main` below, top to bottom, with what each section's numbers say.
//! The timed loops are in [`kernels`] and [`switch`] (each under a fixed symbol, its shape
//! read back from this binary by [`shape`]), their interleaved rounds in [`timing`], the
//! tables and `#DATA` blocks in [`report`], the flush-to-zero switch in [`fpenv`].

mod fpenv;
mod kernels;
mod report;
mod shape;
mod switch;
mod timing;

use kernels::{CHAINS, OPS, PER_ELEMENT};
use measure::clock::CoreClock;
use measure::data::{Block, meta};
use measure::fmt::{self, bytes};
use measure::run::Experiment;
use measure::schema::fp_cost::key;
use measure::show::how_to_read;
use shape::Shapes;
use timing::{N, PerElement};

/// Two times closer than this share are "the same" in the sentences below.
const SAME_WITHIN: f64 = 0.18;
/// In section 4, operations within this share of the cheapest are "buried in memory".
const BURIED_WITHIN: f64 = 0.25;
/// In section 4, operations whose L1 times span more than this factor differ in arithmetic.
const L1_DIFFER: f64 = 1.5;
/// In section 3a, medians of the same code at different addresses further apart than this
/// share differ because of the address.
const PLACE_MOVES: f64 = 0.10;

fn main() {
    let mut exp = measure::start!(
        "fp_cost",
        "the cost of numbers: denormals, float vs double, what each operation costs, and \
         arithmetic buried in memory bandwidth",
        &[
            measure::cli::Opt {
                name: "--rounds",
                value: Some("COUNT"),
                help: "timed rounds of every variant (default 31, 5 with --quick)",
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
    let quick = exp.args.quick;
    let rounds = exp
        .args
        .count("--rounds", if quick { 5 } else { 31 }, 3, 10_001) as usize;
    let llc = exp.facts.largest_cache();
    let default_mib = llc.map_or(64, |b| (2 * b).div_ceil(1 << 20)).max(64);
    let big_mib = exp.args.count("--array-mib", default_mib, 1, 65_536);
    let big_asked = exp.args.value("--array-mib").is_some();
    // Repetitions of the array loops: 2048 x 2000 = 4M elements per timed batch, as in the appendix.
    let reps = if quick { 500 } else { 2000 };
    exp.pin_main_thread();
    meta("rounds", rounds);
    meta("array_reps", reps);

    exp.section("how this is measured");
    let (cc, shapes) = how_this_is_measured(&exp, reps, rounds);

    exp.section("1. denormals: numbers very close to zero");
    denormals(&mut exp, reps, rounds, &shapes);

    exp.section("2. float and double");
    float_and_double(&mut exp, reps, rounds, &shapes);

    exp.section("3. the operations cost differently");
    let (in_l1, mut per_element) = operations(&mut exp, &cc, reps, rounds, &shapes);

    if !quick || big_asked {
        exp.section("4. the first try, repeated: arrays far beyond the last-level cache");
        let rounds = if quick { 3 } else { 11 };
        beyond_the_cache(&mut exp, big_mib, llc, rounds, &in_l1, &mut per_element);
    }
    per_element.print();
    exp.finish();
}

/// The working set against the reported L1, the core clock, and the shape of every timed
/// loop as compiled.
fn how_this_is_measured(exp: &Experiment, reps: usize, rounds: usize) -> (CoreClock, Shapes) {
    let set = (2 * N * std::mem::size_of::<f64>()) as u64;
    let l1 = exp.facts.cache(1).and_then(|c| c.size.value);
    let text = format!(
        "two arrays of {N} f64, {} together; by the reported sizes that fits in {}{}. Every loop \
         repeats over them {reps} times per timed batch; {rounds} rounds of every comparison, \
         the variants interleaved, after a discarded warm-up round; median (min..max).",
        bytes(set),
        exp.facts.where_fits(set),
        l1.map_or(String::new(), |s| format!(" (L1d {})", bytes(s)))
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
    report::shapes(&shapes);
    (cc, shapes)
}

/// Section 1: the same loop over normals and denormals; then again with flush-to-zero.
fn denormals(exp: &mut Experiment, reps: usize, rounds: usize, shapes: &Shapes) {
    let tiny = f64::MIN_POSITIVE / 8.0;
    // Where the loop landed: identical machine code at another offset from a 64-byte boundary
    // has timed differently on this machine (see docs/NOTES.md), so the placement is recorded.
    let placed = match shapes.loop_addr("fp_dot4_f64") {
        Some(a) => {
            meta("dot4_loop_addr", format!("{a:#x}"));
            meta("dot4_loop_offset_mod64", a % 64);
            format!(", its loop {} bytes past a 64-byte boundary", a % 64)
        }
        None => {
            meta("dot4_loop_offset_mod64", "unknown");
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
    let d = timing::denormals(tiny, reps, rounds);
    report::flush_switch(&d);
    report::denormal_table(&d);

    let (r, apart) = (d.ratio_off(), d.apart());
    let mut say = vec![if apart && r > 1.5 {
        format!(
            "denormals made the same loop {r:.1}x slower: the same instructions, the same \
             count, only the size of the values changed, and the hardware fell off its fast path."
        )
    } else if apart && r > 1.0 {
        format!(
            "denormals cost a little here ({r:.2}x, every denormal round slower than every \
             normal one), far from the tens of times some chips show."
        )
    } else {
        format!(
            "no measurable penalty here: {r:.2}x, and the denormal rounds ({:.3}..{:.3} ns) \
             overlap the normal ones ({:.3}..{:.3} ns). Other chips run this loop tens of times \
             slower: measure before speaking.",
            d.denormal_off.min, d.denormal_off.max, d.normal_off.min, d.normal_off.max
        )
    }];
    say.push(match d.ratio_on() {
        Some(on) if apart && r > 1.5 && on < 1.2 => format!(
            "Flush-to-zero removed the penalty ({r:.1}x -> {on:.2}x), and with it the values: \
             the denormal sum came out 0. A little accuracy traded for the worst-case time."
        ),
        Some(on) => format!(
            "With flush-to-zero the ratio is {on:.2}x and the denormal sum came out 0 (the values \
             were read as zero); {}",
            if !(apart && r > 1.0) {
                "there was no penalty to remove."
            } else if d.apart_on() == Some(false) {
                "the penalty went away (with it on, the rounds overlap)."
            } else {
                "the penalty did not fully go away."
            }
        ),
        None => {
            "Flush-to-zero could not be set and verified here: its column is not measured.".into()
        }
    });
    meta("denormal_verdict", &say[0]);
    how_to_read(&say);
    exp.key_figure(key::DENORMAL_OVER_NORMAL, r, "x");
    exp.key_figure("ftz_denormal_over_normal", d.ratio_on(), "x");
}

/// Section 2: a dot product in float and in double, with four scalar accumulators (the
/// appendix), with one, and with the reordering granted.
fn float_and_double(exp: &mut Experiment, reps: usize, rounds: usize, shapes: &Shapes) {
    let w = timing::widths(reps, rounds);
    println!("  a . b over two {N}-element arrays, {reps} times; gain = double / float:");
    report::width_table(&w, shapes);

    let (four, strict, lanes) = (
        w.float_gain("four"),
        w.float_gain("strict"),
        w.float_gain("lanes"),
    );
    let same = |x: f64| (1.0 - SAME_WITHIN..1.0 + SAME_WITHIN).contains(&x);
    let mut say = vec![format!(
        "without vector instructions float is {four:.2}x as fast as double with four \
         accumulators and {strict:.2}x with one: {}",
        if same(four) && same(strict) {
            "the narrower type buys nothing while each element takes one instruction."
        } else {
            "the two types differ even in scalar code here."
        }
    )];
    let vectorised = ["fp_dot_lanes_f32", "fp_dot_lanes_f64"]
        .iter()
        .all(|s| shapes.of(s) == "vectorised");
    say.push(if vectorised {
        format!(
            "With the reordering granted the loops are vectorised and float is {lanes:.2}x as \
             fast: \"float is twice as fast\" has conditions."
        )
    } else {
        format!("The laned loops were not all vectorised, so their {lanes:.2}x says nothing about vectors.")
    });
    let (d4, d1) = (w.median("double", "four"), w.median("double", "strict"));
    say.push(if d1 / d4 > 1.0 + SAME_WITHIN {
        format!(
            "One accumulator is {:.1}x slower than four (each addition waits for the last), so \
             read the gain within a row, not across rows.",
            d1 / d4
        )
    } else {
        format!(
            "One accumulator cost {:.2}x four here: the chain of additions did not set the pace.",
            d1 / d4
        )
    });
    let (s, l) = (w.sum("double", "strict"), w.sum("double", "lanes"));
    say.push(if s.to_bits() != l.to_bits() {
        format!(
            "The laned double sum differs from the strict one by {:.1e}: addition is not \
             associative.",
            ((l - s) / s).abs()
        )
    } else {
        "The laned double sum equals the strict one bit for bit this time.".into()
    });
    how_to_read(&say);
    exp.key_figure("float_speedup_four", four, "x");
    exp.key_figure(key::FLOAT_SPEEDUP_STRICT, strict, "x");
    exp.key_figure(key::FLOAT_SPEEDUP_LANES, lanes, "x");
}

/// Section 3: the appendix's per-element table first, then latency and throughput.
/// Returns the per-element table and its block, for section 4.
fn operations(
    exp: &mut Experiment,
    cc: &CoreClock,
    reps: usize,
    rounds: usize,
    shapes: &Shapes,
) -> (PerElement, Block) {
    let text = format!(
        "3a. the appendix's table: one operation per element over the same two arrays, into \
         four accumulators, the operation chosen inside the loop by the C program's switch, in \
         the code GCC makes of it{} (in this binary: {}); ns per element:",
        if cfg!(target_arch = "x86_64") {
            ", reproduced instruction for instruction"
        } else {
            " (here: a Rust loop in the compiler's own layout)"
        },
        shapes.of("fp_per_element")
    );
    fmt::say(&text, "  ");
    // The placement scan needs GCC's code, reproduced for x86-64 only.
    let scan = cfg!(target_arch = "x86_64");
    let pe = timing::per_element(N, reps, rounds, scan);
    let mut block = report::per_element_block();
    report::per_element_table(&pe, None, "l1", &mut block);
    let text = if scan {
        format!(
            "the same code with case 0's block (the multiply) at each multiple of 8 bytes past \
             the start of a 64-byte line of code; GCC put it at {} (*) in the C program built on \
             the reference machine, and so does 3a:",
            switch::GCC_PLACEMENT
        )
    } else {
        "the placement of the multiply's block: skipped (GCC's code for this loop is \
         reproduced on x86-64 only; here the loop is the compiler's own)"
            .to_string()
    };
    println!();
    fmt::say(&text, "  ");
    if scan {
        report::placements(&pe);
    }

    let min_batch_ns = if exp.args.quick { 1e6 } else { 3e6 };
    let o = timing::operations(min_batch_ns, rounds);
    let text = format!(
        "3b. each operation in its own loop: latency is one chain, each step waiting for the \
         last; throughput is {CHAINS} independent chains. ns per operation, cycles at the clock \
         estimate (compare uops.info for this CPU family) and how many are in flight at once \
         (latency / throughput):"
    );
    println!();
    fmt::say(&text, "  ");
    report::ops_table(&o, cc, shapes);
    println!(
        "  (the sqrt and sin chains add 1 each step; the add's latency, {:.3} ns, is subtracted)",
        o.add_latency
    );

    let mul_t = o.ops[0].throughput.median;
    let mul_l = o.ops[0].chain.median;
    let div_t = o.ops[2].throughput.median / mul_t;
    let div_l = o.ops[2].chain.median / mul_l;
    let (div_pe, sin_pe) = (pe.vs_multiply(2), pe.vs_multiply(4));
    let mut say = vec![format!(
        "per element (3a) is the appendix's question, what a loop doing this to every element \
         costs: divide {div_pe:.1}x, sqrt {:.1}x, sin {sin_pe:.1}x a multiply. Latency (3b) is \
         how long one result takes when the next needs it (divide {div_l:.1}x); throughput, \
         how often one finishes when they are independent (divide {div_t:.1}x).",
        pe.vs_multiply(3)
    )];
    if !pe.placements.is_empty() {
        say.push(placement_verdict(&pe));
    }
    let pe_mul = pe.ops[0].median;
    if pe_mul > (1.0 + SAME_WITHIN) * mul_t {
        say.push(format!(
            "A multiply per element costs {:.1}x its throughput: the loop's own work sets the \
             pace of the cheap operations, so the dear ones look smaller multiples there.",
            pe_mul / mul_t
        ));
    }
    say.push(if div_t > 1.5 {
        format!(
            "Dividing by one number often? Multiply by its reciprocal: a division costs \
             {div_t:.1} multiplies in throughput."
        )
    } else {
        format!("A division costs about a multiply here ({div_t:.1}x in throughput).")
    });
    how_to_read(&say);
    exp.key_figure(key::PER_ELEMENT_DIV_OVER_MUL, div_pe, "x");
    exp.key_figure(key::PER_ELEMENT_SIN_OVER_MUL, sin_pe, "x");
    if let Some((slowest, fastest)) = placement_range(&pe) {
        exp.key_figure("placement_max_over_min", slowest / fastest, "x");
        exp.key_figure("placement_gcc_over_best", pe.ops[0].median / fastest, "x");
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

/// The slowest and the fastest median multiply over the placements, if they were timed.
fn placement_range(pe: &PerElement) -> Option<(f64, f64)> {
    let medians = pe.placements.iter().map(|(_, t)| t.median);
    let fastest = medians.clone().fold(f64::INFINITY, f64::min);
    let slowest = medians.fold(0.0f64, f64::max);
    (!pe.placements.is_empty()).then_some((slowest, fastest))
}

/// What moving case 0's block showed: whether the same instructions cost more at one
/// address than another (by more than [`PLACE_MOVES`]), whether the slow placements are the
/// ones where the block spans two 64-byte lines, and what GCC's placement does to the table's
/// baseline. Every clause is checked against the run's medians before it is said.
fn placement_verdict(pe: &PerElement) -> String {
    let Some((slowest, fastest)) = placement_range(pe) else {
        return String::new();
    };
    if slowest / fastest <= 1.0 + PLACE_MOVES {
        return format!(
            "Where the multiply's block sits made no clear difference here (every placement \
             within {:.0}% of the fastest).",
            PLACE_MOVES * 100.0
        );
    }
    let mut say = format!(
        "The same instructions cost {:.2}x as much at one address as at another.",
        slowest / fastest
    );
    // The slowest placement where the block fits in one line, the fastest where it spans two.
    let medians = |spans: bool| {
        pe.placements
            .iter()
            .filter(move |(at, _)| switch::spans_two_lines(*at) == spans)
            .map(|(_, t)| t.median)
    };
    let fit_slowest = medians(false).fold(0.0f64, f64::max);
    let span_fastest = medians(true).fold(f64::INFINITY, f64::min);
    if fit_slowest > 0.0
        && span_fastest.is_finite()
        && span_fastest > (1.0 + PLACE_MOVES) * fit_slowest
    {
        say.push_str(&format!(
            " Every placement where the block ({} bytes) spans two 64-byte lines is more than \
             {:.0}% slower than every one where it fits in one: the front end fetches code by \
             lines, and the spanning block likely needs one more fetch a step.",
            switch::MULTIPLY_BLOCK_BYTES,
            PLACE_MOVES * 100.0
        ));
    } else {
        say.push_str(&format!(
            " Which placements are slow does not follow whether the block ({} bytes) spans \
             two 64-byte lines, so this run does not say why.",
            switch::MULTIPLY_BLOCK_BYTES
        ));
    }
    let gcc = pe.ops[0].median;
    if gcc / fastest > 1.0 + PLACE_MOVES {
        say.push_str(&format!(
            " At GCC's placement the multiply takes {:.2}x its best time, so the 'vs multiply' \
             column, like the C program's, divides by a baseline that carries its placement \
             (against the best-placed multiply, divide is {:.1}x).",
            gcc / fastest,
            pe.ops[2].median / fastest
        ));
    } else {
        say.push_str(&format!(
            " GCC's placement is within {:.0}% of the fastest, so the 'vs multiply' column is \
             not inflated by it.",
            PLACE_MOVES * 100.0
        ));
    }
    say
}

/// Section 4: the per-element table again, over arrays of `mib` MiB each (far beyond the
/// last-level cache unless the reader asked otherwise), and a verdict on what was measured.
/// Its rows go into `block` beside section 3's.
fn beyond_the_cache(
    exp: &mut Experiment,
    mib: u64,
    llc: Option<u64>,
    rounds: usize,
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
         {}), one pass per timed batch, {rounds} rounds; the loop of 3a:",
        bytes(each),
        bytes(total),
        exp.facts.where_fits(total)
    );
    fmt::say(&text, "  ");
    if let Err(e) = measure::mem::room_for(total) {
        println!("  skipped: {e}.");
        meta("big_array_verdict", format!("skipped: {e}"));
        return;
    }
    let len = (each / 8) as usize;
    let big = timing::per_element(len, 1, rounds, false);
    report::per_element_table(&big, Some(in_l1), "big", block);
    meta("big_array_bytes", total);

    // The operations within BURIED_WITHIN of the cheapest took the same time: memory's.
    let t: Vec<f64> = big.ops.iter().map(|s| s.median).collect();
    let cheapest = t.iter().copied().fold(f64::INFINITY, f64::min);
    let buried: Vec<usize> = (0..t.len())
        .filter(|&k| t[k] <= cheapest * (1.0 + BURIED_WITHIN))
        .collect();
    let spread = |ks: &[usize], v: &dyn Fn(usize) -> f64| {
        let xs: Vec<f64> = ks.iter().map(|&k| v(k)).collect();
        let (lo, hi) = xs
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        hi / lo
    };
    let names = |ks: &[usize]| {
        let n: Vec<&str> = ks.iter().map(|&k| PER_ELEMENT[k].0).collect();
        match n.len() {
            0 => String::new(),
            1 => n[0].to_string(),
            _ => format!("{} and {}", n[..n.len() - 1].join(", "), n[n.len() - 1]),
        }
    };
    let big_spread = spread(&buried, &|k| t[k]);
    let l1_spread = spread(&buried, &|k| in_l1.ops[k].median);
    let within = (big_spread - 1.0) * 100.0;
    let stand_out: Vec<usize> = (0..t.len()).filter(|k| !buried.contains(k)).collect();
    let mut say = Vec::new();
    let verdict = if buried.len() == t.len() && l1_spread <= L1_DIFFER {
        format!(
            "every operation within {within:.0}% of the others, and in L1 too (within \
             {l1_spread:.1}x): there was no difference in arithmetic here for memory to hide."
        )
    } else if buried.len() == t.len() {
        format!(
            "every operation within {within:.0}% of the others (in L1 they spanned \
             {l1_spread:.1}x): the memory, not the arithmetic, was measured."
        )
    } else if buried.len() >= 2 && l1_spread > L1_DIFFER {
        format!(
            "{} within {within:.0}% of each other (in L1 they spanned {l1_spread:.1}x): for them \
             the memory, not the arithmetic, was measured; {} still {} out, slower per element \
             than memory delivers one.",
            names(&buried),
            names(&stand_out),
            if stand_out.len() == 1 {
                "stands"
            } else {
                "stand"
            }
        )
    } else {
        let big_all = t.iter().copied().fold(0.0, f64::max) / cheapest;
        let l1_all = spread(&(0..t.len()).collect::<Vec<_>>(), &|k| in_l1.ops[k].median);
        format!(
            "the operations still differ ({big_all:.1}x from the cheapest to the dearest, \
             {l1_all:.1}x in L1): {}",
            if big_all * (1.0 + SAME_WITHIN) < l1_all {
                "memory narrowed the gaps but buried no operation in its own time here."
            } else {
                "memory left the gaps about as they were in L1 and buried no operation here."
            }
        )
    };
    say.push(verdict.clone());
    say.push(format!(
        "A multiply per element took {:.3} ns here against {:.3} ns in L1 ({:.1}x): to measure \
         arithmetic keep the data in cache; to measure bandwidth, keep it out.",
        t[0],
        in_l1.ops[0].median,
        t[0] / in_l1.ops[0].median
    ));
    how_to_read(&say);
    meta("big_array_verdict", verdict);
    exp.key_figure(
        "big_array_spread",
        t.iter().copied().fold(0.0, f64::max) / cheapest,
        "x",
    );
}

// The placement scan runs on x86-64 only, and so does its verdict.
#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use measure::stats::Summary;

    /// A per-element table whose multiply (GCC's placement) takes `medians[3]` ns and whose
    /// placements 0, 8, .., 56 take `medians`.
    fn table(medians: [f64; 8]) -> PerElement {
        let s = |m: f64| Summary::of(&[m]).unwrap();
        PerElement {
            len: 1024,
            ops: [medians[3], 0.3, 1.3, 2.3, 8.3].map(s).to_vec(),
            placements: (0..8).map(|i| (i * 8, s(medians[i]))).collect(),
        }
    }

    #[test]
    fn the_placement_verdict_says_only_what_the_medians_show() {
        // Only placement 0 keeps the 59-byte block in one line, and only it is fast.
        let v = placement_verdict(&table([0.27, 0.34, 0.34, 0.34, 0.34, 0.34, 0.34, 0.34]));
        assert!(
            v.contains("1.26x") && v.contains("spans two 64-byte lines is more"),
            "{v}"
        );
        assert!(v.contains("carries its placement"), "{v}");
        // A slow placement that does not follow the spanning: no reason given.
        let v = placement_verdict(&table([0.34, 0.27, 0.27, 0.27, 0.27, 0.27, 0.27, 0.27]));
        assert!(
            v.contains("does not follow") && !v.contains("likely"),
            "{v}"
        );
        assert!(v.contains("not inflated"), "{v}");
        // All within 10%: no difference claimed.
        let v = placement_verdict(&table([0.34, 0.35, 0.34, 0.34, 0.36, 0.34, 0.34, 0.34]));
        assert!(v.contains("no clear difference"), "{v}");
    }
}
