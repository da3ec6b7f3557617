//! What each section's numbers say: pure functions of the section's typed result (its
//! summaries, its rounds and the evidence of disturbance behind them), which print nothing.
//! Every reading passes through [`measure::show::marked`]: drawn from disturbed rounds, it
//! begins "provisional:"; section 4's, which reads memory, names contention from other cores.

use crate::kernels::PER_ELEMENT;
use crate::switch;
use crate::timing::{Denormals, Operations, PerElement, Widths};
use measure::disturb::Tally;
use measure::show::marked;

/// Two times closer than this share are "the same" in the sentences below.
const SAME_WITHIN: f64 = 0.18;
/// In section 4, operations within this share of the cheapest are "buried in memory".
const BURIED_WITHIN: f64 = 0.25;
/// In section 4, operations whose L1 times span more than this factor differ in arithmetic.
const L1_DIFFER: f64 = 1.5;
/// In section 3a, medians of the same code at different addresses further apart than this
/// share differ because of the address.
const PLACE_MOVES: f64 = 0.10;

/// Section 1: whether denormals cost, and what flush-to-zero did.
pub fn denormals(d: &Denormals) -> Vec<String> {
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
    marked(&d.tally, false, say)
}

/// Section 2: float against double in each accumulation order; `vectorised` says whether the
/// laned loops were vectorised in this binary.
pub fn widths(w: &Widths, vectorised: bool) -> Vec<String> {
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
    marked(&w.tally, false, say)
}

/// Two tallies as one, with the load of the one that saw more other work on its core.
fn both(a: &Tally, b: &Tally) -> Tally {
    let on = |t: &Tally| t.load.and_then(|l| l.on_core).unwrap_or(0.0);
    let mut t = a.merge(b);
    if on(b) > on(a) {
        t.load = b.load;
    }
    t
}

/// Section 3: the per-element table (3a), whose multiply's block sits in one line of code,
/// with its splits, and latency and throughput (3b).
pub fn operations(pe: &PerElement, o: &Operations) -> Vec<String> {
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
    say.extend(splits(pe));
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
    marked(&both(&pe.tally, &o.tally), false, say)
}

/// One sentence per operation of 3a whose clean rounds fell into two groups, with both.
fn splits(pe: &PerElement) -> Vec<String> {
    (0..pe.ops.len())
        .filter_map(|k| {
            let sp = pe.split(k)?;
            Some(format!(
                "{}'s rounds split: {} at {:.3} ns, {} at {:.3} ns ({:.2}x apart), so its \
                 median describes neither and its 'vs multiply' reads \"split\".",
                PER_ELEMENT[k].0, sp.low.n, sp.low.median, sp.high.n, sp.high.median, sp.gap
            ))
        })
        .collect()
}

/// The slowest and the fastest median multiply over the placements, if they were timed.
pub fn placement_range(pe: &PerElement) -> Option<(f64, f64)> {
    let medians = pe.placements.iter().map(|(_, t)| t.median);
    let fastest = medians.clone().fold(f64::INFINITY, f64::min);
    let slowest = medians.fold(0.0f64, f64::max);
    (!pe.placements.is_empty()).then_some((slowest, fastest))
}

/// The median multiply at `at` bytes past a line, if that placement was timed.
pub fn placed(pe: &PerElement, at: usize) -> Option<f64> {
    pe.placements
        .iter()
        .find(|(p, _)| *p == at)
        .map(|(_, t)| t.median)
}

/// Section 3c: what moving case 0's block showed, and what GCC's layout, the C program's,
/// does to its "vs multiply" column. Empty when the placements were not timed.
pub fn placement(pe: &PerElement) -> Vec<String> {
    if pe.placements.is_empty() {
        return vec![];
    }
    let mut say = vec![placement_verdict(pe)];
    say.extend(c_column(pe));
    marked(&pe.tally, false, say)
}

/// What moving case 0's block showed: whether the same instructions cost more at one
/// address than another (by more than [`PLACE_MOVES`]), and whether the slow placements are
/// the ones where the block spans two 64-byte lines. Every clause is checked against the
/// run's medians before it is said.
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
    say
}

/// The C program's column explained: GCC put its multiply's block at [`switch::GCC_PLACEMENT`],
/// so its "vs multiply" divides by the multiply timed there; 3a's operations over that
/// multiply give the column as the C program's layout would.
fn c_column(pe: &PerElement) -> Option<String> {
    let gcc = placed(pe, switch::GCC_PLACEMENT)?;
    let base = pe.ops[0].median;
    let r = |k: usize| pe.ops[k].median / gcc;
    let moved = (gcc / base - 1.0).abs() > PLACE_MOVES;
    Some(format!(
        "The C program (cargo xtask appendix-c) is GCC's layout, its multiply's block at byte \
         {}: there the multiply took {:.2}x 3a's, {}. Its 'vs multiply' column divides by that \
         multiply, so with this layout 3a would read divide {:.1}x, sqrt {:.1}x, sin {:.1}x \
         (against divide {:.1}x in 3a): compare the C program's numbers with these.",
        switch::GCC_PLACEMENT,
        gcc / base,
        if moved {
            "so the C program's ratios carry where its code sits"
        } else {
            "within the noise, so here its ratios are not moved by where its code sits"
        },
        r(2),
        r(3),
        r(4),
        pe.vs_multiply(2)
    ))
}

/// Section 4: what the per-element table over arrays far beyond the cache measured, against
/// the one in L1. Reads memory, so contention from other cores is named.
pub fn beyond(big: &PerElement, in_l1: &PerElement) -> Vec<String> {
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
    say.push(verdict);
    say.push(format!(
        "A multiply per element took {:.3} ns here against {:.3} ns in L1 ({:.1}x): to measure \
         arithmetic keep the data in cache; to measure bandwidth, keep it out.",
        t[0],
        in_l1.ops[0].median,
        t[0] / in_l1.ops[0].median
    ));
    marked(&big.tally, true, say)
}

// The placement scan runs on x86-64 only, and so does its verdict.
#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use measure::stats::Summary;

    /// A per-element table whose multiply (3a's, placement 0) takes `medians[0]` ns and
    /// whose placements 0, 8, .., 56 take `medians`.
    fn table(medians: [f64; 8]) -> PerElement {
        let s = |m: f64| Summary::of(&[m]).unwrap();
        let ops = [medians[0], 0.3, 1.3, 2.3, 8.3];
        PerElement {
            len: 1024,
            ops: ops.map(s).to_vec(),
            op_values: ops.map(|m| vec![m; 5]).to_vec(),
            placements: (0..8).map(|i| (i * 8, s(medians[i]))).collect(),
            op_tallies: vec![Tally::default(); 5],
            placement_tallies: vec![Tally::default(); 8],
            tally: Tally::default(),
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
        let c = c_column(&table([0.27, 0.34, 0.34, 0.34, 0.34, 0.34, 0.34, 0.34])).unwrap();
        assert!(c.contains("1.26x 3a's") && c.contains("carry where"), "{c}");
        assert!(
            c.contains("divide 3.8x") && c.contains("divide 4.8x in 3a"),
            "{c}"
        );
        // A slow placement that does not follow the spanning: no reason given.
        let t = table([0.34, 0.27, 0.27, 0.34, 0.27, 0.27, 0.27, 0.27]);
        let v = placement_verdict(&t);
        assert!(
            v.contains("does not follow") && !v.contains("likely"),
            "{v}"
        );
        assert!(c_column(&t).unwrap().contains("not moved"));
        // All within 10%: no difference claimed.
        let v = placement_verdict(&table([0.34, 0.35, 0.34, 0.34, 0.36, 0.34, 0.34, 0.34]));
        assert!(v.contains("no clear difference"), "{v}");
    }
}

/// Every reading from synthetic results: marked when the rounds were disturbed, never when
/// they were quiet; contention named for section 4 only, which reads memory.
#[cfg(test)]
mod marks {
    use super::*;
    use crate::timing::OpTimes;
    use measure::stats::Summary;

    fn s(m: f64) -> Summary {
        Summary::of(&[m * 0.98, m, m * 1.02]).unwrap()
    }

    /// 40 rounds: quiet, or 12 disturbed with half a core of other work on core 1 and one
    /// core's worth on the other.
    fn tally(disturbed: bool) -> Tally {
        if disturbed {
            measure::testing::tally(40, 12, 0.5, 1.0)
        } else {
            measure::testing::tally(40, 0, 0.0, 0.0)
        }
    }

    fn per_element(m: [f64; 5], disturbed: bool) -> PerElement {
        PerElement {
            len: 2048,
            ops: m.map(s).to_vec(),
            op_values: m.map(|x| vec![x * 0.98, x, x * 1.02]).to_vec(),
            placements: vec![],
            op_tallies: vec![tally(disturbed); 5],
            placement_tallies: vec![],
            tally: tally(disturbed),
        }
    }

    fn readings(disturbed: bool) -> Vec<Vec<String>> {
        let t = tally(disturbed);
        let d = Denormals {
            normal_off: s(0.2),
            denormal_off: s(4.0),
            normal_on: None,
            denormal_on: None,
            register: None,
            switches: vec![],
            tallies: [t; 4],
            tally: t,
        };
        let w = Widths {
            times: [0.3, 0.3, 0.55, 0.55, 0.15, 0.075].map(s).to_vec(),
            sums: [1.0, 1.0, 1.0, 1.0, 1.0 + 1e-14, 1.0],
            tallies: vec![t; 6],
            tally: t,
        };
        let op = |l: f64, tp: f64| OpTimes {
            chain: s(l),
            alone: Some(l),
            throughput: s(tp),
            tally: t,
        };
        let o = Operations {
            ops: vec![
                op(0.7, 0.13),
                op(0.47, 0.13),
                op(3.1, 1.0),
                op(5.0, 2.0),
                op(40.0, 8.0),
            ],
            add_latency: 0.47,
            tally: t,
        };
        let l1 = per_element([0.3, 0.25, 1.3, 2.3, 8.3], disturbed);
        let big = per_element([1.2, 1.2, 1.3, 2.5, 8.5], disturbed);
        let mut placed = per_element([0.27, 0.25, 1.3, 2.3, 8.3], disturbed);
        placed.placements = (0..8)
            .map(|i| (i * 8, s(if i == 0 { 0.27 } else { 0.34 })))
            .collect();
        placed.placement_tallies = vec![t; 8];
        vec![
            denormals(&d),
            widths(&w, true),
            operations(&l1, &o),
            beyond(&big, &l1),
            placement(&placed),
        ]
    }

    #[test]
    fn a_disturbed_result_never_reads_unmarked() {
        for (i, r) in readings(true).iter().enumerate() {
            assert!(
                r[0].starts_with("provisional: ") && r[0].contains(" rounds were disturbed"),
                "{r:?}"
            );
            assert!(r[0].contains("0.50 cores of other work on core 1"), "{r:?}");
            // Only section 4 reads memory, a level the other cores share.
            let contention = r.iter().any(|s| s.starts_with("contention:"));
            assert_eq!(contention, i == 3, "{r:?}");
        }
    }

    #[test]
    fn a_quiet_result_reads_without_marks() {
        let r = readings(false);
        for x in &r {
            assert!(
                !x.iter()
                    .any(|s| s.contains("provisional") || s.contains("contention"))
            );
        }
        assert!(
            r[0][0].starts_with("denormals made the same loop 20.0x slower"),
            "{r:?}"
        );
        assert!(
            r[3][0].starts_with("multiply, add and divide within"),
            "{r:?}"
        );
        assert!(r[4][0].contains("placement"), "{r:?}");
    }

    #[test]
    fn a_split_row_is_named_with_both_groups() {
        let mut pe = per_element([0.3, 0.25, 1.3, 2.3, 8.3], false);
        pe.op_values[0] = [0.28; 6].into_iter().chain([0.44; 6]).collect();
        let say = splits(&pe);
        assert_eq!(say.len(), 1, "{say:?}");
        assert!(say[0].starts_with("multiply's rounds split: 6 at 0.280 ns, 6 at 0.440"));
        pe.op_values[0] = vec![0.28, 0.29, 0.30, 0.28, 0.31, 0.29];
        assert!(splits(&pe).is_empty());
    }

    #[test]
    fn the_busier_tally_lends_its_load_to_a_reading_of_two_blocks() {
        let t = both(&tally(false), &tally(true));
        assert_eq!((t.rounds, t.disturbed), (80, 12));
        assert!(t.provisional());
    }
}
