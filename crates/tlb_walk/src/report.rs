//! The tables, the `#DATA` blocks and the closing sentences of sections 1 and 2, each
//! sentence computed from the run's own rows.

use crate::verdict::{parting, verdict_text};
use crate::walk::{self, Layout};
use crate::{HONOURED_PCT, REFUSED_PCT, WIN_RATIO};
use ::tlb_walk::schema::key;
use measure::clock::CoreClock;
use measure::data::Block;
use measure::disturb::{Load, Tally};
use measure::fmt::bytes as human_bytes;
use measure::out::Out;
use measure::rounds::{self, Timed};
use measure::run::Experiment;
use measure::scan::{DEFAULT_TOLERANCE, ScanPoint};
use measure::stats::{Summary, median};

/// The rounds of one page count in one pass, one per layout, each with its evidence, and
/// the load around them (the count and pass were taken in a window of their own).
pub struct Pair {
    pub offset0: Timed,
    pub line: Timed,
    pub load: Load,
}

/// One page count, summarised over the clean rounds of both passes.
#[derive(Clone)]
pub struct Row {
    pub pages: usize,
    pub offset0: Summary,
    pub line: Summary,
    /// Disagreement of the passes' medians (max/min - 1), per layout.
    pub spread0: f64,
    pub spread1: f64,
    /// Every round of both layouts and passes, counted.
    pub tally: Tally,
}

impl Row {
    pub fn of(p: &ScanPoint<usize, Pair>) -> Row {
        let all = |f: fn(&Pair) -> &Timed| -> Vec<f64> {
            p.passes.iter().flat_map(|m| f(m).used()).collect()
        };
        let spread = |f: fn(&Pair) -> &Timed| {
            p.agreement(DEFAULT_TOLERANCE, |m| {
                median(&f(m).used()).unwrap_or(f64::NAN)
            })
            .spread
        };
        Row {
            pages: p.param,
            offset0: Summary::of(&all(|m| &m.offset0)).expect("rounds"),
            line: Summary::of(&all(|m| &m.line)).expect("rounds"),
            spread0: spread(|m| &m.offset0),
            spread1: spread(|m| &m.line),
            tally: rounds::tally(p.passes.iter().flat_map(|m| [&m.offset0, &m.line]))
                .with_load(Load::merged(p.passes.iter().map(|m| m.load))),
        }
    }
}

fn cycles(cc: &CoreClock, ns: f64) -> String {
    cc.cycles(ns).map_or("-".into(), |c| format!("{c:.0}"))
}

/// Section 1's table and its `pages` block.
pub fn pages(out: &mut Out, rows: &[Row], page: usize, lpp: usize, cc: &CoreClock) {
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
        ::tlb_walk::schema::pages::BLOCK,
        ::tlb_walk::schema::pages::COLUMNS,
    );
    for r in rows {
        let agree = r.spread0 <= DEFAULT_TOLERANCE && r.spread1 <= DEFAULT_TOLERANCE;
        let worst = r.spread0.max(r.spread1) * 100.0;
        println!(
            "  {:>6}  {:>9}  {:>8.2} ({:>4})  {:>5.1}x  {:>8.2} ({:>4})  {:>5.1}x  {:>8.2}x  {} {worst:.0}%{}",
            r.pages,
            human_bytes((r.pages * page) as u64),
            r.offset0.median,
            cycles(cc, r.offset0.median),
            r.offset0.median / b0,
            r.line.median,
            cycles(cc, r.line.median),
            r.line.median / b1,
            r.offset0.median / r.line.median,
            if agree { "ok" } else { "! " },
            if r.tally.provisional() { " p" } else { "" }
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
            r.tally.rounds.into(),
            r.tally.disturbed.into(),
            r.tally.provisional().into(),
        ]);
    }
    measure::fmt::say(
        &format!(
            "factor: against {} pages. passes: how far the two passes' medians are apart; ! over \
             {:.0}%; p provisional: its rounds were disturbed, or the core's share was unsteady \
             while it was taken.",
            rows[0].pages,
            DEFAULT_TOLERANCE * 100.0
        ),
        "  ",
    );
    out.block(&block);
}

/// Records section 1's key figures (from the clean rounds) and where the layouts part most.
pub fn pages_record(rows: &[Row], exp: &mut Experiment) {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return;
    };
    let p = parting(rows);
    exp.out.meta("layouts_part_most_at_pages", p.pages);
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
    exp.key_figure("offset0_over_line_max", p.q, "x");
    use ::tlb_walk::schema::{PAGES_ENDS, PAGES_FIRST, PAGES_MOST};
    exp.disturbance_pair(
        [PAGES_FIRST, PAGES_MOST, PAGES_ENDS],
        &first.tally,
        &last.tally,
    );
}

/// One layout's walk in section 2: its rounds on the 4 KiB-page region and on the huge-page
/// region, and the load around them (each layout is taken in a window of its own).
#[derive(Clone)]
pub struct HugeWalk {
    pub layout: Layout,
    pub normal: Timed,
    pub huge: Timed,
    pub load: Load,
}

impl HugeWalk {
    /// Both regions' rounds, with the load of the layout's window.
    pub fn tally(&self) -> Tally {
        rounds::tally([&self.normal, &self.huge]).with_load(self.load)
    }

    /// The `disturbance` result of this layout: `huge_pages/offset0`, `huge_pages/line`.
    pub fn result(&self) -> String {
        format!(
            "{}/{}",
            ::tlb_walk::schema::huge_pages::BLOCK,
            self.layout.name()
        )
    }

    /// The verdict from the verified backings `hp` (huge region) and `np` (4 KiB region),
    /// read from the clean rounds.
    pub fn verdict(&self, hp: Option<f64>, np: Option<f64>) -> walk::Verdict {
        let (n, h) = (self.normal.used(), self.huge.used());
        walk::verdict(hp, np, &n, &h, HONOURED_PCT, REFUSED_PCT, WIN_RATIO)
    }

    /// Median 4 KiB-page time over median huge-page time, from the clean rounds.
    pub fn ratio(&self) -> f64 {
        let m = |t: &Timed| t.summary().map_or(f64::NAN, |s| s.median);
        m(&self.normal) / m(&self.huge)
    }
}

/// Section 2's table and its `huge_pages` block; `hp` and `np` are the worst verified
/// backings of the huge-page and the 4 KiB-page region.
pub fn huge(out: &mut Out, walks: &[HugeWalk], hp: Option<f64>, np: Option<f64>, cc: &CoreClock) {
    println!(
        "\n  {:<26} {:>16} {:>16} {:>9}",
        "layout", "4 KiB pages ns", "huge pages ns", "ratio"
    );
    let mut block = Block::new(
        ::tlb_walk::schema::huge_pages::BLOCK,
        ::tlb_walk::schema::huge_pages::COLUMNS,
    );
    for w in walks {
        let (sn, sh) = (w.normal.summary(), w.huge.summary());
        let (sn, sh) = (sn.expect("rounds"), sh.expect("rounds"));
        println!(
            "  {:<26} {:>9.2} ({:>4}) {:>9.2} ({:>4}) {:>8.2}x",
            w.layout.label(),
            sn.median,
            cycles(cc, sn.median),
            sh.median,
            cycles(cc, sh.median),
            w.ratio()
        );
        for (advice, s, t, pct) in [
            ("nohugepage", &sn, &w.normal, np),
            ("hugepage", &sh, &w.huge, hp),
        ] {
            block.row(vec![
                w.layout.name().into(),
                advice.into(),
                pct.into(),
                s.median.into(),
                s.min.into(),
                s.max.into(),
                cc.cycles(s.median).into(),
                t.tally().rounds.into(),
                t.tally().disturbed.into(),
                w.tally().provisional().into(),
            ]);
        }
    }
    out.block(&block);
}

/// Records section 2: each layout's verdict (`#META` and the `huge_verdict` block), ratio and
/// evidence (its `disturbance` result).
pub fn huge_record(walks: &[HugeWalk], hp: Option<f64>, np: Option<f64>, exp: &mut Experiment) {
    let mut verdicts = Block::new(
        ::tlb_walk::schema::huge_verdict::BLOCK,
        ::tlb_walk::schema::huge_verdict::COLUMNS,
    );
    for w in walks {
        let v = w.verdict(hp, np);
        exp.out.meta(
            &format!("verdict_huge_{}", w.layout.name()),
            verdict_text(v),
        );
        let ratio = w.ratio();
        verdicts.row(vec![w.layout.name().into(), v.word().into(), ratio.into()]);
        exp.key_figure(&format!("huge_ratio_{}", w.layout.name()), ratio, "x");
        exp.disturbance(&w.result(), &w.tally());
    }
    exp.out.block(&verdicts);
}
