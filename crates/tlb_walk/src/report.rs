//! The tables, the `#DATA` blocks and the closing sentences of sections 1 and 2, each
//! sentence computed from the run's own rows.

use crate::walk::{self, Layout};
use crate::{HONOURED_PCT, REFUSED_PCT, WIN_RATIO};
use ::tlb_walk::schema::key;
use measure::clock::CoreClock;
use measure::data::Block;
use measure::disturb::Tally;
use measure::fmt::bytes as human_bytes;
use measure::out::Out;
use measure::rounds::{self, Timed};
use measure::run::Experiment;
use measure::scan::{DEFAULT_TOLERANCE, ScanPoint};
use measure::show;
use measure::stats::{Summary, median};

/// The rounds of one page count in one pass, one per layout, each with its evidence.
pub struct Pair {
    pub offset0: Timed,
    pub line: Timed,
}

/// One page count, summarised over the clean rounds of both passes.
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
            tally: rounds::tally(p.passes.iter().flat_map(|m| [&m.offset0, &m.line])),
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
            r.tally.rounds.into(),
            r.tally.disturbed.into(),
        ]);
    }
    println!(
        "  factor: against {} pages. passes: how far the two passes' medians are apart; ! over {:.0}%.",
        rows[0].pages,
        DEFAULT_TOLERANCE * 100.0
    );
    out.block(&block);
}

/// Where the two layouts part most, read from the counts whose passes agreed (every count
/// when none did): offset 0 over the line layout there, and the least of that ratio.
pub struct Parting {
    pub pages: usize,
    /// Whether the count where they part most is itself settled (its passes agree).
    pub settled: bool,
    pub q: f64,
    pub least: f64,
    /// How many counts' passes disagree.
    pub unsettled: usize,
}

/// Whether a count's two passes agreed on both layouts.
fn settled(r: &Row) -> bool {
    r.spread0.max(r.spread1) <= DEFAULT_TOLERANCE
}

/// [`Parting`] of `rows` (at least one).
pub fn parting(rows: &[Row]) -> Parting {
    let unsettled = rows.iter().filter(|r| !settled(r)).count();
    let read: Vec<&Row> = if unsettled < rows.len() {
        rows.iter().filter(|r| settled(r)).collect()
    } else {
        rows.iter().collect()
    };
    let q_of = |r: &Row| r.offset0.median / r.line.median;
    let worst = *read
        .iter()
        .max_by(|a, b| q_of(a).total_cmp(&q_of(b)))
        .expect("rows");
    Parting {
        pages: worst.pages,
        settled: settled(worst),
        q: q_of(worst),
        least: read.iter().map(|r| q_of(r)).fold(f64::INFINITY, f64::min),
        unsettled,
    }
}

/// A data TLB's reach for 4 KiB pages, from the entry count CPUID gives: "L1" and 64 pages.
pub struct Reach {
    pub name: &'static str,
    pub pages: u64,
}

/// The step of the line layout's cost from row `a` to row `b`.
fn step(a: &Row, b: &Row) -> f64 {
    b.line.median / a.line.median
}

/// Where the reported TLB reaches fall among the measured counts, and where the cost steps up
/// most between neighbouring counts (line layout); `None` without a reach or two rows.
pub fn reach_sentence(rows: &[Row], reach: &[Reach]) -> Option<String> {
    let steepest = rows
        .windows(2)
        .max_by(|x, y| step(&x[0], &x[1]).total_cmp(&step(&y[0], &y[1])))?;
    let (a, b) = (&steepest[0], &steepest[1]);
    let first = reach.first()?;
    let sizes: Vec<String> = reach
        .iter()
        .map(|r| {
            format!(
                "{} {} pages ({})",
                r.name,
                r.pages,
                human_bytes(r.pages * 4096)
            )
        })
        .collect();
    let across: Vec<String> = reach
        .iter()
        .map(|r| {
            let below = rows.iter().rposition(|x| x.pages as u64 <= r.pages);
            match below.filter(|&i| i + 1 < rows.len()) {
                Some(i) => format!(
                    "{} -> {} pages {:.2}x",
                    rows[i].pages,
                    rows[i + 1].pages,
                    step(&rows[i], &rows[i + 1])
                ),
                None => format!("the {} reach lies outside the counts measured", r.name),
            }
        })
        .collect();
    let (lo, hi) = (a.pages as u64, b.pages as u64);
    // A step from exactly the reach (64 pages fit a 64-entry TLB) to beyond it crosses it.
    let place = if let Some(r) = reach.iter().find(|r| lo <= r.pages && r.pages < hi) {
        format!("across the {} reach", r.name)
    } else if let Some(r) = reach.iter().rfind(|r| r.pages < lo) {
        format!("past the {} reach", r.name)
    } else {
        format!("within the {} reach", first.name)
    };
    let text = format!(
        "across the data TLBs' reach for 4 KiB pages (CPUID: {}) the line layout's cost goes \
         {}; its steepest step between neighbouring counts is {} -> {} pages ({:.2}x), {place}.",
        sizes.join(", "),
        across.join(", "),
        a.pages,
        b.pages,
        step(a, b)
    );
    // Marked on its own when the two counts of the steepest step had no clean round.
    Some(show::marked(&a.tally.merge(&b.tally), false, vec![text]).remove(0))
}

/// Section 1's closing sentences, from its rows, the TLB reaches CPUID gives (none where it
/// gives none) and the rounds behind them (`tally`). The largest counts read their slots and
/// page tables from the last cache level, a shared one, so other cores' work is named. Pure.
pub fn pages_sentences(rows: &[Row], reach: &[Reach], tally: &Tally) -> Vec<String> {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return Vec::new();
    };
    let grew = last.line.median / first.line.median;
    let mut out = vec![format!(
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
    )];
    // Where do the two layouts part most? That share of the offset-0 cost is set conflicts.
    let p = parting(rows);
    let which = if p.unsettled == rows.len() {
        "every count (none settled)"
    } else if p.unsettled > 0 {
        "every settled count"
    } else {
        "every count"
    };
    out.push(if p.q > 1.1 {
        format!(
            "the layouts part most at {} pages{}: offset 0 is {:.1}x the line layout there. With \
             every slot at offset 0 the lines compete for the same cache sets; that much of the \
             appendix's curve is the cache, not translation.",
            p.pages,
            if p.settled { "" } else { " (a count marked !)" },
            p.q
        )
    } else if p.least >= 1.0 / 1.1 {
        format!(
            "the two layouts stay within 10% of each other at {which}: on this machine the \
             cache sets did not add to the cost measured at offset 0."
        )
    } else {
        format!(
            "offset 0 never costs over 1.1x the line layout at {which} (down to {:.2}x): on \
             this machine the cache sets did not add to the cost measured at offset 0.",
            p.least
        )
    });
    // The count where they part most, marked on its own if none of its rounds was clean.
    if let Some(w) = rows.iter().find(|r| r.pages == p.pages)
        && w.tally.disturbed_used > 0
        && let Some(last) = out.pop()
    {
        out.push(show::marked(&w.tally, false, vec![last]).remove(0));
    }
    out.extend(reach_sentence(rows, reach));
    if p.unsettled > 0 {
        out.push(format!(
            "{} of {} counts are marked !: their two passes disagree, so those points moved \
             with time, not only with the page count.",
            p.unsettled,
            rows.len()
        ));
    }
    // The section's mark goes on the first reading, which the first and last counts give.
    let t = Tally {
        disturbed_used: first.tally.disturbed_used + last.tally.disturbed_used,
        ..*tally
    };
    show::marked(&t, true, out)
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
}

/// One layout's walk in section 2: its rounds on the 4 KiB-page region and on the huge-page
/// region.
pub struct HugeWalk {
    pub layout: Layout,
    pub normal: Timed,
    pub huge: Timed,
}

impl HugeWalk {
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
            ]);
        }
    }
    out.block(&block);
}

/// What a verdict says, in words.
pub fn verdict_text(v: walk::Verdict) -> String {
    match v {
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
            "the backing could not be read, so no conclusion is drawn from the times".to_string()
        }
    }
}

/// Section 2's closing sentences: one verdict per layout, marked by the rounds behind them
/// (`tally`), then what a huge page replaces. The two backings are timed in turn, so other
/// cores' work reaches both alike: no contention is named. Pure.
pub fn huge_sentences(
    walks: &[HugeWalk],
    hp: Option<f64>,
    np: Option<f64>,
    tally: &Tally,
) -> Vec<String> {
    let verdicts = walks
        .iter()
        .map(|w| format!("{}: {}.", w.layout.label(), verdict_text(w.verdict(hp, np))))
        .collect();
    let mut out = show::marked(tally, false, verdicts);
    out.push(
        "one 2 MiB page replaces 512 pages of 4 KiB, so the walk needs a 512th of the \
         translations. madvise is a request, not an order: the shares above say whether it was \
         taken."
            .into(),
    );
    out
}

/// Records section 2: each layout's verdict (`#META` and the `huge_verdict` block) and ratio.
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
    }
    exp.out.block(&verdicts);
}

/// Section 3's closing sentence, from the first-touch factor, marked by its rounds. Pure.
pub fn touch_sentences(factor: f64, tally: &Tally) -> Vec<String> {
    let s = if factor > 3.0 {
        "the address mmap returned is not memory yet: at each first touch the kernel attaches \
         (and zeroes) a page. Allocate and measure at once and this cost is mixed in whole."
    } else {
        "first touch was not much dearer than a second one here; the kernel may have attached \
         the pages ahead (fault-around or huge pages). Check the backing above."
    };
    show::marked(tally, false, vec![s.to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::disturb::{Evidence, Load};

    fn quiet_round() -> Evidence {
        Evidence {
            wall_ns: 500_000,
            waited_ns: Some(0),
            ..Default::default()
        }
    }

    fn preempted_round() -> Evidence {
        Evidence {
            wall_ns: 3_500_000,
            switches: 1,
            waited_ns: Some(3_000_000),
            off_cpu_ns: 0,
        }
    }

    /// Rounds of `ns`, the last `disturbed` of them preempted (and three times as slow).
    fn timed(ns: f64, n: usize, disturbed: usize) -> Timed {
        let mut t = Timed::default();
        for i in 0..n {
            if i + disturbed >= n {
                t.push(3.0 * ns, preempted_round());
            } else {
                t.push(ns * (1.0 + 0.001 * i as f64), quiet_round());
            }
        }
        t
    }

    fn load(on_core: f64, elsewhere: f64) -> Load {
        Load {
            wall_s: 1.0,
            core: Some(1),
            on_core: Some(on_core),
            steal: Some(0.0),
            elsewhere: Some(elsewhere),
        }
    }

    fn walks(disturbed: usize) -> Vec<HugeWalk> {
        [Layout::Offset0, Layout::LineSpread]
            .map(|layout| HugeWalk {
                layout,
                normal: timed(187.0, 15, disturbed),
                huge: timed(140.0, 15, disturbed),
            })
            .into()
    }

    fn row(pages: usize, ns: f64, disturbed: usize) -> Row {
        let t = timed(ns, 15, disturbed);
        Row {
            pages,
            offset0: t.summary().unwrap(),
            line: t.summary().unwrap(),
            spread0: 0.01,
            spread1: 0.01,
            tally: rounds::tally([&t, &t]),
        }
    }

    fn rows(disturbed: usize) -> Vec<Row> {
        vec![row(16, 1.3, disturbed), row(65536, 187.0, disturbed)]
    }

    fn tally_of(walks: &[HugeWalk], l: Load) -> Tally {
        rounds::tally(walks.iter().flat_map(|w| [&w.normal, &w.huge])).with_load(l)
    }

    #[test]
    fn a_quiet_run_gives_the_verdicts_unmarked_from_its_rounds() {
        let w = walks(0);
        let s = huge_sentences(&w, Some(100.0), Some(0.0), &tally_of(&w, load(0.0, 0.0)));
        assert!(
            s[0].starts_with("slot at offset 0: huge pages won: 1.34x faster"),
            "{s:?}"
        );
        let r = rows(0);
        let t = rounds::tally(&[])
            .merge(&r[0].tally)
            .with_load(load(0.0, 0.0));
        let p = pages_sentences(&r, &[], &t);
        assert!(p[0].starts_with("65536 pages cost 143.8x as much"), "{p:?}");
        assert!(p.iter().chain(&s).all(|x| !x.contains("provisional")));
        assert!(p.iter().chain(&s).all(|x| !x.contains("contention")));
        let t = touch_sentences(200.0, &Tally::default().with_load(load(0.0, 0.0)));
        assert!(t[0].starts_with("the address mmap returned is not memory yet"));
    }

    #[test]
    fn a_win_from_disturbed_rounds_is_never_printed_unmarked() {
        // Beside a busy loop: the core was shared, though most rounds came out clean.
        let w = walks(2);
        let busy = tally_of(&w, load(0.5, 0.0));
        let s = huge_sentences(&w, Some(100.0), Some(0.0), &busy);
        assert!(s[0].starts_with("provisional: 8 of 60 rounds were disturbed (0.50 cores"));
        assert!(s[0].contains("the clean rounds give: slot at offset 0: huge pages won: 1.34x"));
        // The verdict comes from the clean rounds: the slow disturbed ones are left out.
        assert_eq!(
            w[0].verdict(Some(100.0), Some(0.0)),
            walk::Verdict::Won(w[0].ratio())
        );
        assert!((w[0].ratio() - 187.0 / 140.0).abs() < 0.01);
        // Every round disturbed: said so, in the first words.
        let all = walks(15);
        let s = huge_sentences(
            &all,
            Some(100.0),
            Some(0.0),
            &tally_of(&all, load(0.0, 0.0)),
        );
        assert!(s[0].starts_with("provisional: 60 of 60") && s[0].contains("no round was clean"));
        let r = rows(5);
        let t = rounds::tally(&[]).merge(&r[1].tally);
        assert!(pages_sentences(&r, &[], &t)[0].starts_with("provisional: 10 of 30"));
        // The largest count without a clean round: the reading it gives says so.
        let r = vec![row(16, 1.3, 0), row(65536, 187.0, 15)];
        let t = rounds::tally(&[]).merge(&r[0].tally).merge(&r[1].tally);
        let p = pages_sentences(&r, &[], &t);
        assert!(p[0].contains("its disturbed rounds stand in; the rest give: 65536 pages"));
        let t = touch_sentences(200.0, &timed(5000.0, 5, 5).tally());
        assert!(t[0].starts_with("provisional: 5 of 5"), "{t:?}");
    }

    #[test]
    fn the_tlb_reach_is_set_beside_the_measured_steps() {
        let r = vec![
            row(16, 1.5, 0),
            row(64, 1.6, 0),
            row(128, 2.0, 0),
            row(2048, 6.0, 0),
            row(2896, 7.0, 0),
            row(4096, 21.0, 0),
        ];
        let reach = [
            Reach {
                name: "L1",
                pages: 64,
            },
            Reach {
                name: "L2",
                pages: 2048,
            },
        ];
        let s = reach_sentence(&r, &reach).unwrap();
        assert!(
            s.contains("L1 64 pages (256 KiB), L2 2048 pages (8 MiB)"),
            "{s}"
        );
        assert!(
            s.contains("64 -> 128 pages 1.25x, 2048 -> 2896 pages 1.17x"),
            "{s}"
        );
        assert!(
            s.ends_with("2896 -> 4096 pages (3.00x), past the L2 reach."),
            "{s}"
        );
        // A reach beyond the largest count, and a step that straddles one.
        let far = [Reach {
            name: "L2",
            pages: 8192,
        }];
        let s = reach_sentence(&r, &far).unwrap();
        assert!(
            s.contains("the L2 reach lies outside the counts measured"),
            "{s}"
        );
        assert!(s.ends_with("within the L2 reach."), "{s}");
        let mid = [Reach {
            name: "L1",
            pages: 3000,
        }];
        assert!(
            reach_sentence(&r, &mid)
                .unwrap()
                .ends_with("across the L1 reach.")
        );
        // A step that starts exactly at the reach crosses it.
        let at = [Reach {
            name: "L1",
            pages: 2896,
        }];
        assert!(
            reach_sentence(&r, &at)
                .unwrap()
                .ends_with("2896 -> 4096 pages (3.00x), across the L1 reach.")
        );
        // No sizes known: no sentence, and none added to the reading.
        assert!(reach_sentence(&r, &[]).is_none());
        let t = rounds::tally(&[]).merge(&r[0].tally);
        assert_eq!(
            pages_sentences(&r, &[], &t).len() + 1,
            pages_sentences(&r, &reach, &t).len()
        );
    }

    #[test]
    fn contention_is_named_beside_the_page_counts_only() {
        let r = rows(0);
        let streamer = rounds::tally(&[])
            .merge(&r[1].tally)
            .with_load(load(0.0, 0.9));
        let p = pages_sentences(&r, &[], &streamer);
        assert!(!p[0].starts_with("provisional"));
        assert!(
            p.last().unwrap().starts_with("contention: 0.90 cores"),
            "{p:?}"
        );
        // The huge-page ratio compares two rings timed in turn: both saw the same neighbours.
        let w = walks(0);
        let s = huge_sentences(&w, Some(100.0), Some(0.0), &tally_of(&w, load(0.0, 0.9)));
        assert!(s.iter().all(|x| !x.contains("contention")), "{s:?}");
    }
}
