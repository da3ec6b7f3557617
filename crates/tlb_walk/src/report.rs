//! The tables, the `#DATA` blocks and the closing sentences of sections 1 and 2, each
//! sentence computed from the run's own rows.

use crate::walk::{self, Layout};
use crate::{HONOURED_PCT, REFUSED_PCT, WIN_RATIO};
use measure::clock::CoreClock;
use measure::data::{Block, meta};
use measure::fmt::{bytes as human_bytes, conclude};
use measure::run::Experiment;
use measure::scan::{DEFAULT_TOLERANCE, ScanPoint};
use measure::schema::tlb_walk::key;
use measure::stats::{Summary, median};

/// The rounds of one page count in one pass: one vector per layout.
pub struct Pair {
    pub offset0: Vec<f64>,
    pub line: Vec<f64>,
}

/// One page count, summarised over every round of both passes.
pub struct Row {
    pub pages: usize,
    pub offset0: Summary,
    pub line: Summary,
    /// Disagreement of the passes' medians (max/min - 1), per layout.
    pub spread0: f64,
    pub spread1: f64,
}

impl Row {
    pub fn of(p: &ScanPoint<usize, Pair>) -> Row {
        let all = |f: fn(&Pair) -> &Vec<f64>| -> Vec<f64> {
            p.passes.iter().flat_map(|m| f(m).iter().copied()).collect()
        };
        let spread = |f: fn(&Pair) -> &Vec<f64>| {
            p.agreement(DEFAULT_TOLERANCE, |m| median(f(m)).unwrap_or(f64::NAN))
                .spread
        };
        Row {
            pages: p.param,
            offset0: Summary::of(&all(|m| &m.offset0)).expect("rounds"),
            line: Summary::of(&all(|m| &m.line)).expect("rounds"),
            spread0: spread(|m| &m.offset0),
            spread1: spread(|m| &m.line),
        }
    }
}

fn cycles(cc: &CoreClock, ns: f64) -> String {
    cc.cycles(ns).map_or("-".into(), |c| format!("{c:.0}"))
}

/// Section 1's table, its `pages` block, and what it says.
pub fn pages(rows: &[Row], page: usize, lpp: usize, cc: &CoreClock, exp: &mut Experiment) {
    println!(
        "\n  {:>6}  {:>9}  {:>23}  {:>23}  {:>9}  passes",
        "pages",
        "spanning",
        "slot at offset 0",
        format!("slot on line i mod {lpp}"),
        "offset0 /",
    );
    println!(
        "  {:>6}  {:>9}  {:>23}  {:>23}  {:>9}",
        "", "", "ns (cycles)  factor", "ns (cycles)  factor", "line"
    );
    let (b0, b1) = (rows[0].offset0.median, rows[0].line.median);
    let mut block = Block::new(
        measure::schema::tlb_walk::pages::BLOCK,
        measure::schema::tlb_walk::pages::COLUMNS,
    );
    for r in rows {
        let agree = r.spread0 <= DEFAULT_TOLERANCE && r.spread1 <= DEFAULT_TOLERANCE;
        let worst = r.spread0.max(r.spread1) * 100.0;
        println!(
            "  {:>6}  {:>9}  {:>8.2} ({:>4})  {:>5.1}x  {:>8.2} ({:>4})  {:>5.1}x  {:>8.2}x  {} {worst:.0}%",
            r.pages,
            human_bytes((r.pages * page) as u64),
            r.offset0.median,
            cycles(cc, r.offset0.median),
            r.offset0.median / b0,
            r.line.median,
            cycles(cc, r.line.median),
            r.line.median / b1,
            r.offset0.median / r.line.median,
            if agree { "ok" } else { "! " }
        );
        block.row(vec![
            r.pages.into(),
            ((r.pages * page) as u64 / 1024).into(),
            r.offset0.median.into(),
            r.offset0.min.into(),
            r.offset0.max.into(),
            cc.cycles(r.offset0.median).into(),
            (r.offset0.median / b0).into(),
            r.line.median.into(),
            r.line.min.into(),
            r.line.max.into(),
            cc.cycles(r.line.median).into(),
            (r.line.median / b1).into(),
            r.spread0.into(),
            r.spread1.into(),
            agree.into(),
        ]);
    }
    println!(
        "  factor: against {} pages. passes: how far the two passes' medians are apart; ! over {:.0}%.",
        rows[0].pages,
        DEFAULT_TOLERANCE * 100.0
    );
    block.print();

    let last = rows.last().expect("rows");
    let first = &rows[0];
    println!("\n  how to read this run:");
    let grew = last.line.median / first.line.median;
    conclude(&format!(
        "{} pages cost {grew:.1}x as much per read as {} (line layout; {:.1}x with every slot at \
         offset 0), though every page gives only 8 bytes: {}",
        last.pages,
        first.pages,
        last.offset0.median / first.offset0.median,
        if grew > 1.0 + DEFAULT_TOLERANCE {
            "the data is tiny, the pages are many."
        } else {
            "with the line layout, translation did not show at these counts in this run."
        }
    ));
    // Where do the two layouts part most? That share of the offset-0 cost is set conflicts.
    // Only counts whose passes agreed are read; if none did, every count is, and that is said.
    let settled = |r: &&Row| r.spread0.max(r.spread1) <= DEFAULT_TOLERANCE;
    let unsettled = rows.len() - rows.iter().filter(settled).count();
    let read: Vec<&Row> = if unsettled < rows.len() {
        rows.iter().filter(settled).collect()
    } else {
        rows.iter().collect()
    };
    let q_of = |r: &Row| r.offset0.median / r.line.median;
    let worst = *read
        .iter()
        .max_by(|a, b| q_of(a).total_cmp(&q_of(b)))
        .expect("rows");
    let q = q_of(worst);
    let least = read.iter().map(|r| q_of(r)).fold(f64::INFINITY, f64::min);
    let which = if unsettled == rows.len() {
        "every count (none settled)"
    } else if unsettled > 0 {
        "every settled count"
    } else {
        "every count"
    };
    meta("layouts_part_most_at_pages", worst.pages);
    if q > 1.1 {
        conclude(&format!(
            "the layouts part most at {} pages{}: offset 0 is {q:.1}x the line layout there. With \
             every slot at offset 0 the lines compete for the same cache sets; that much of the \
             appendix's curve is the cache, not translation.",
            worst.pages,
            if settled(&worst) {
                ""
            } else {
                " (a count marked !)"
            }
        ));
    } else if least >= 1.0 / 1.1 {
        conclude(&format!(
            "the two layouts stay within 10% of each other at {which}: on this machine the \
             cache sets did not add to the cost measured at offset 0."
        ));
    } else {
        conclude(&format!(
            "offset 0 never costs over 1.1x the line layout at {which} (down to {least:.2}x): \
             on this machine the cache sets did not add to the cost measured at offset 0."
        ));
    }
    if unsettled > 0 {
        conclude(&format!(
            "{unsettled} of {} counts are marked !: their two passes disagree, so those points \
             moved with time, not only with the page count.",
            rows.len()
        ));
    }
    exp.key_figure(key::FIRST_PAGES_LINE_NS, first.line.median, "ns");
    exp.key_figure("most_pages_line_ns", last.line.median, "ns");
    exp.key_figure(key::FIRST_PAGES_OFFSET0_NS, first.offset0.median, "ns");
    exp.key_figure(key::MOST_PAGES_OFFSET0_NS, last.offset0.median, "ns");
    exp.key_figure(
        key::PAGES_FACTOR_OFFSET0,
        last.offset0.median / first.offset0.median,
        "x",
    );
    exp.key_figure(
        "pages_factor_line",
        last.line.median / first.line.median,
        "x",
    );
    exp.key_figure("offset0_over_line_max", q, "x");
}

/// Section 2's table, its `huge_pages` and `huge_verdict` blocks, and the verdict for each
/// layout. `results` holds each layout's rounds on the 4 KiB-page region (`[0]`) and the
/// huge-page region (`[1]`); `hp` and `np` are those regions' worst verified backings.
pub fn huge(
    results: &[(Layout, Vec<Vec<f64>>)],
    hp: Option<f64>,
    np: Option<f64>,
    cc: &CoreClock,
    exp: &mut Experiment,
) {
    println!(
        "\n  {:<26} {:>16} {:>16} {:>9}",
        "layout", "4 KiB pages ns", "huge pages ns", "ratio"
    );
    let mut block = Block::new(
        measure::schema::tlb_walk::huge_pages::BLOCK,
        measure::schema::tlb_walk::huge_pages::COLUMNS,
    );
    let sum = |v: &[f64]| Summary::of(v).expect("rounds");
    for (layout, t) in results {
        let (sn, sh) = (sum(&t[0]), sum(&t[1]));
        let name = layout.label();
        println!(
            "  {name:<26} {:>9.2} ({:>4}) {:>9.2} ({:>4}) {:>8.2}x",
            sn.median,
            cycles(cc, sn.median),
            sh.median,
            cycles(cc, sh.median),
            sn.median / sh.median
        );
        for (advice, s, pct) in [("nohugepage", &sn, np), ("hugepage", &sh, hp)] {
            block.row(vec![
                layout.name().into(),
                advice.into(),
                pct.into(),
                s.median.into(),
                s.min.into(),
                s.max.into(),
                cc.cycles(s.median).into(),
            ]);
        }
    }
    block.print();
    let mut verdicts = Block::new(
        measure::schema::tlb_walk::huge_verdict::BLOCK,
        measure::schema::tlb_walk::huge_verdict::COLUMNS,
    );
    println!("\n  how to read this run:");
    for (layout, t) in results {
        let v = walk::verdict(hp, np, &t[0], &t[1], HONOURED_PCT, REFUSED_PCT, WIN_RATIO);
        let (sn, sh) = (sum(&t[0]), sum(&t[1]));
        let what = match v {
            walk::Verdict::Won(r) => format!(
                "huge pages won: {r:.2}x faster, with both backings verified and no rounds \
                 overlapping"
            ),
            walk::Verdict::Lost(r) => format!(
                "huge pages lost: {:.2}x slower, with both backings verified and no rounds \
                 overlapping",
                1.0 / r
            ),
            walk::Verdict::NoDifference(r) => format!(
                "no clear difference in this run ({r:.3}x: {}), with both backings verified",
                if r >= WIN_RATIO || r <= 1.0 / WIN_RATIO {
                    "the rounds overlap".to_string()
                } else {
                    format!("closer than the {WIN_RATIO}x a difference needs")
                }
            ),
            walk::Verdict::SameBacking => "both regions were backed alike, so similar times are \
                only to be expected: the comparison could not be made on this machine"
                .to_string(),
            walk::Verdict::NotAsAsked => "the backing is not what was asked, so the times compare \
                what the kernel gave, not huge against small pages"
                .to_string(),
            walk::Verdict::Unknown => {
                "the backing could not be read, so no conclusion is drawn from the times"
                    .to_string()
            }
        };
        conclude(&format!("{}: {what}.", layout.label()));
        meta(&format!("verdict_huge_{}", layout.name()), &what);
        let ratio = sn.median / sh.median;
        verdicts.row(vec![layout.name().into(), v.word().into(), ratio.into()]);
        exp.key_figure(&format!("huge_ratio_{}", layout.name()), ratio, "x");
    }
    verdicts.print();
    conclude(
        "one 2 MiB page replaces 512 pages of 4 KiB, so the walk needs a 512th of the \
         translations. madvise is a request, not an order: the shares above say whether it was \
         taken.",
    );
}
