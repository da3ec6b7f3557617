//! What each section's numbers say: pure functions of the section's typed result (its rows
//! or walks, the verified backings, and the rounds with the evidence of disturbance behind
//! them), which print nothing. Every reading passes through [`show::marked`]: drawn from
//! disturbed rounds, it begins "provisional:"; section 1's largest walks read the last cache
//! level, a shared one, so contention from other cores is named there.

use crate::report::{HugeWalk, Row};
use crate::walk;
use crate::{REFUSED_PCT, WIN_RATIO};
use measure::disturb::Tally;
use measure::fmt::bytes as human_bytes;
use measure::scan::DEFAULT_TOLERANCE;
use measure::show;
use measure::stats::Summary;

/// Section 1's result: one row a page count (each with its rounds), the data TLBs' reach
/// CPUID gives (none where it gives none), and every round of the section with the load
/// around it.
pub struct PageScan {
    pub rows: Vec<Row>,
    pub reach: Vec<Reach>,
    pub tally: Tally,
}

/// Section 2's result: each layout's walk on both regions, the worst verified backing of the
/// huge-page region (`hp`) and of the 4 KiB-page region (`np`) in percent, and the rounds.
pub struct Huge {
    pub walks: Vec<HugeWalk>,
    pub hp: Option<f64>,
    pub np: Option<f64>,
    pub tally: Tally,
}

/// Section 3's result: `bytes` touched one byte a page, in `fresh` fresh regions (`backing`
/// percent of the last on huge pages), the first and the second touch per page over their
/// clean segments, and the rounds of each touch and of both.
pub struct Touch {
    pub bytes: usize,
    pub fresh: usize,
    pub backing: Option<f64>,
    pub first: Summary,
    pub again: Summary,
    pub first_tally: Tally,
    pub again_tally: Tally,
    pub tally: Tally,
}

impl Touch {
    /// How many times dearer the first touch is than the second (medians).
    pub fn factor(&self) -> f64 {
        self.first.median / self.again.median
    }
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
#[derive(Clone)]
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

/// Section 1's warning when the regions asked for 4 KiB pages are partly on huge pages after
/// all (more than [`REFUSED_PCT`] of either, as verified): then a page count overstates the
/// translations. `None` when the backing is as asked or unknown. Pure.
pub fn scan_backing(backing: [Option<f64>; 2]) -> Option<String> {
    backing
        .iter()
        .any(|p| p.is_some_and(|p| p > REFUSED_PCT))
        .then(|| {
            "! part of these regions is on huge pages after all: fewer translations than pages"
                .to_string()
        })
}

/// Section 1's closing sentences, from its rows, the TLB reaches and the rounds behind them.
/// The largest counts read their slots and page tables from the last cache level, a shared
/// one, so other cores' work is named. Pure.
pub fn pages(scan: &PageScan) -> Vec<String> {
    let (rows, reach, tally) = (&scan.rows[..], &scan.reach[..], &scan.tally);
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
    // The count where they part most, marked by its own rounds and window.
    if let Some(w) = rows.iter().find(|r| r.pages == p.pages)
        && w.tally.provisional()
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
    // The first reading is marked by the first and last counts, which give it (each count
    // was taken in its own window); the section's contention is named beside it.
    let mut out = show::marked(&first.tally.merge(&last.tally), false, out);
    out.extend(show::contention(tally));
    out
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

/// Section 2's closing sentences: one verdict per layout, each marked by its own rounds and window,
/// then what a huge page replaces. The two backings are timed in turn, so other cores' work
/// reaches both alike: no contention is named. Pure.
pub fn huge(h: &Huge) -> Vec<String> {
    let mut out: Vec<String> = h
        .walks
        .iter()
        .map(|w| {
            let v = w.verdict(h.hp, h.np);
            let text = format!("{}: {}.", w.layout.label(), verdict_text(v));
            show::marked(&w.tally(), false, vec![text]).remove(0)
        })
        .collect();
    out.push(
        "one 2 MiB page replaces 512 pages of 4 KiB, so the walk needs a 512th of the \
         translations. madvise is a request, not an order: the shares above say whether it was \
         taken."
            .into(),
    );
    out
}

/// Section 3's closing sentence, from the first-touch factor, marked by its rounds. Pure.
pub fn touch(t: &Touch) -> Vec<String> {
    let s = if t.factor() > 3.0 {
        "the address mmap returned is not memory yet: at each first touch the kernel attaches \
         (and zeroes) a page. Allocate and measure at once and this cost is mixed in whole."
    } else {
        "first touch was not much dearer than a second one here; the kernel may have attached \
         the pages ahead (fault-around or huge pages). Check the backing above."
    };
    show::marked(&t.tally, false, vec![s.to_string()])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::walk::Layout;
    use measure::disturb::{Evidence, Load};
    use measure::rounds::{self, Timed};

    fn pages_sentences(rows: &[Row], reach: &[Reach], tally: &Tally) -> Vec<String> {
        pages(&PageScan {
            rows: rows.to_vec(),
            reach: reach.to_vec(),
            tally: *tally,
        })
    }

    fn huge_sentences(w: &[HugeWalk], hp: Option<f64>, np: Option<f64>) -> Vec<String> {
        huge(&Huge {
            walks: w.to_vec(),
            hp,
            np,
            tally: w.iter().fold(Tally::default(), |t, w| t.merge(&w.tally())),
        })
    }

    /// A first touch `factor` times the second, of 1 ns, from the rounds `tally` counts.
    fn touched(factor: f64, tally: &Tally) -> Touch {
        Touch {
            bytes: 32 << 20,
            fresh: 3,
            backing: Some(0.0),
            first: Summary::of(&[factor]).unwrap(),
            again: Summary::of(&[1.0]).unwrap(),
            first_tally: *tally,
            again_tally: *tally,
            tally: *tally,
        }
    }

    fn touch_sentences(factor: f64, tally: &Tally) -> Vec<String> {
        touch(&touched(factor, tally))
    }

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
            ..Default::default()
        }
    }

    /// Both layouts' walks, `disturbed` of each region's 15 rounds preempted, each layout with
    /// `l` as the load of its window.
    fn walks(disturbed: usize, l: Load) -> Vec<HugeWalk> {
        [Layout::Offset0, Layout::LineSpread]
            .map(|layout| HugeWalk {
                layout,
                normal: timed(187.0, 15, disturbed),
                huge: timed(140.0, 15, disturbed),
                load: l,
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

    #[test]
    fn a_quiet_run_gives_the_verdicts_unmarked_from_its_rounds() {
        let w = walks(0, load(0.0, 0.0));
        let s = huge_sentences(&w, Some(100.0), Some(0.0));
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
        let w = walks(2, load(0.5, 0.0));
        let s = huge_sentences(&w, Some(100.0), Some(0.0));
        assert!(s[0].starts_with("provisional: 4 of 30 rounds were disturbed (0.50 cores"));
        assert!(
            s[1].starts_with("provisional: 4 of 30"),
            "each layout by its own rounds"
        );
        assert!(s[0].contains("the clean rounds give: slot at offset 0: huge pages won: 1.34x"));
        // The verdict comes from the clean rounds: the slow disturbed ones are left out.
        assert_eq!(
            w[0].verdict(Some(100.0), Some(0.0)),
            walk::Verdict::Won(w[0].ratio())
        );
        assert!((w[0].ratio() - 187.0 / 140.0).abs() < 0.01);
        // Every round disturbed: said so, in the first words.
        let all = walks(15, load(0.0, 0.0));
        let s = huge_sentences(&all, Some(100.0), Some(0.0));
        assert!(s[0].starts_with("provisional: 30 of 30") && s[0].contains("no round was clean"));
        // The first reading is read from the fewest and the most pages: their rounds count.
        let r = rows(5);
        let t = rounds::tally(&[]).merge(&r[1].tally);
        assert!(pages_sentences(&r, &[], &t)[0].starts_with("provisional: 20 of 60"));
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
        let w = walks(0, load(0.0, 0.9));
        let s = huge_sentences(&w, Some(100.0), Some(0.0));
        assert!(s.iter().all(|x| !x.contains("contention")), "{s:?}");
    }

    /// Each section's reading from synthetic results: the pages, the huge-page walks and the
    /// first touch, all from rounds of which `disturbed` of 15 were preempted, with `l` as the
    /// load around them.
    fn readings(disturbed: usize, l: Load) -> [Vec<String>; 3] {
        let r = loaded(rows(disturbed), l);
        let t = r.iter().fold(Tally::default(), |t, r| t.merge(&r.tally));
        let w = walks(disturbed, l);
        [
            pages_sentences(&r, &[], &t),
            huge_sentences(&w, Some(100.0), Some(0.0)),
            touch_sentences(200.0, &timed(5000.0, 15, disturbed).tally().with_load(l)),
        ]
    }

    /// The rows as the scan takes them: each count in its own window, with load `l`.
    fn loaded(rows: Vec<Row>, l: Load) -> Vec<Row> {
        rows.into_iter()
            .map(|r| Row {
                tally: r.tally.with_load(l),
                ..r
            })
            .collect()
    }

    /// A count in the middle of the scan whose core share moved: the readings of it are
    /// marked, the first reading (the fewest and the most pages) is not.
    #[test]
    fn a_count_with_an_unsteady_share_marks_only_the_readings_of_it() {
        use measure::clock::share::Share;
        let quiet = load(0.0, 0.0);
        let moved = Load {
            share: Some((Share { ratio: 3.7 }, Share { ratio: 2.2 })),
            ..quiet
        };
        let mut r = loaded(vec![row(16, 1.3, 0), row(64, 2.0, 0)], quiet);
        r.extend(loaded(vec![row(128, 9.0, 0)], moved));
        r.extend(loaded(vec![row(1024, 12.0, 0)], quiet));
        let t = r.iter().fold(Tally::default(), |t, r| t.merge(&r.tally));
        let reach = [Reach {
            name: "L1",
            pages: 64,
        }];
        let p = pages_sentences(&r, &reach, &t);
        assert!(p[0].starts_with("1024 pages cost"), "{p:?}");
        let across = p.iter().find(|x| x.contains("TLBs' reach")).unwrap();
        assert!(across.starts_with("provisional: 0 of 60"), "{across}");
        assert!(across.contains("share moved (3.70x to 2.20x"), "{across}");
    }

    /// Each layout is taken in its own window: a layout whose core share moved marks its own
    /// verdict, not the other's.
    #[test]
    fn a_layout_with_an_unsteady_share_marks_only_its_own_verdict() {
        use measure::clock::share::Share;
        let mut w = walks(0, load(0.0, 0.0));
        w[1].load.share = Some((Share { ratio: 3.7 }, Share { ratio: 2.2 }));
        let s = huge_sentences(&w, Some(100.0), Some(0.0));
        assert!(
            s[0].starts_with("slot at offset 0: huge pages won"),
            "{s:?}"
        );
        assert!(s[1].starts_with("provisional: 0 of 30"), "{s:?}");
        assert!(s[1].contains("share moved (3.70x to 2.20x"), "{s:?}");
    }

    #[test]
    fn a_result_with_disturbed_rounds_never_yields_an_unmarked_verdict() {
        for said in readings(3, load(0.5, 0.0)) {
            assert!(said[0].starts_with("provisional: "), "{said:?}");
            assert!(said[0].contains("0.50 cores of other work"), "{said:?}");
        }
        // No rounds were preempted, yet the core was shared: still provisional.
        for said in readings(0, load(0.5, 0.0)) {
            assert!(said[0].starts_with("provisional: "), "{said:?}");
        }
    }

    #[test]
    fn a_quiet_result_yields_no_mark_and_contention_only_where_memory_is_read() {
        for said in readings(0, load(0.0, 0.0)) {
            assert!(!said.is_empty());
            let marked = |x: &String| x.contains("provisional") || x.contains("contention");
            assert!(!said.iter().any(marked), "{said:?}");
        }
        // A streamer on another core: the page walks, whose largest counts read the shared
        // levels, name it; the huge-page comparison and the first touch do not.
        let [p, h, t] = readings(0, load(0.0, 0.9));
        assert!(!p[0].starts_with("provisional"), "{p:?}");
        assert!(p.last().unwrap().starts_with("contention: "), "{p:?}");
        assert!(
            !h.iter().chain(&t).any(|x| x.contains("contention")),
            "{h:?} {t:?}"
        );
    }

    #[test]
    fn a_scan_partly_on_huge_pages_is_said_to_be() {
        assert_eq!(scan_backing([Some(0.0), Some(0.0)]), None);
        assert_eq!(scan_backing([None, None]), None);
        let w = scan_backing([Some(0.0), Some(50.0)]).unwrap();
        assert!(
            w.starts_with("! part of these regions is on huge pages"),
            "{w}"
        );
    }
}
