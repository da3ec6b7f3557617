//! # tlb_walk: translation has a cost too
//!
//! Run with: `cargo run -p tlb_walk` (add `-- --quick` for a smoke run of a few seconds).
//!
//! The appendix's "Translation has a cost too", in Rust. Every address a program uses is
//! virtual; the machine translates it through a four-level page table and keeps recent
//! translations in a small cache, the TLB. To see translation rather than the data caches,
//! keep the data tiny and raise only the number of pages: one 8-byte slot per page, the pages
//! linked into one random ring, from 16 pages to 65,536.
//!
//! Beyond the appendix: a second column where page `i`'s slot sits on line `i mod
//! lines-per-page` instead of at offset 0 (with every slot at offset 0, all of them fall in
//! the same cache sets, and the appendix's curve mixes set conflicts into translation); two
//! passes over the page counts in different orders with their agreement checked; the
//! huge-page comparison run with verified backing on both sides and interleaved rounds, its
//! verdict derived from what was verified and what was timed; cycles beside nanoseconds.

mod walk;

use measure::clock::{self, CoreClock};
use measure::data::{Block, meta};
use measure::facts::human_bytes;
use measure::mem::{HugeAdvice, Region};
use measure::ring;
use measure::scan::{self, DEFAULT_TOLERANCE, TWO_PASSES};
use measure::stats::Summary;
use walk::{Geometry, Layout, Plan};

/// A huge-page request counts as honoured at this share of the region or more...
const HONOURED_PCT: f64 = 90.0;
/// ... and a no-huge-page request at this share or less.
const REFUSED_PCT: f64 = 10.0;
/// Huge pages "won" only if they are at least this much faster and no rounds overlap.
const WIN_RATIO: f64 = 1.15;

fn main() {
    let mut exp = measure::start!(
        "tlb_walk",
        "the cost of address translation: one slot per page, more and more pages",
        &[]
    );
    let quick = exp.args.quick;
    exp.pin_main_thread();

    // == 0. The clock, for the cycles columns.
    let cc = exp.core_clock();

    // == 1. Page and line: what the layouts are built from.
    exp.section("1. the page size and the line size of this machine");
    let page = match exp.facts.page_size {
        Some(p) => {
            println!("  page size      : {} (sysconf)", human_bytes(p));
            p as usize
        }
        None => {
            println!(
                "  page size      : unknown; 4 KiB assumed for the layout (not a measurement)"
            );
            4096
        }
    };
    let line_fact = exp.facts.line_size();
    let line = match line_fact.value {
        Some(l) if l >= 8 && (l as usize) <= page => {
            println!(
                "  line size      : {l} bytes ({})",
                line_fact.source.map_or("unknown".into(), |s| s.to_string())
            );
            l as usize
        }
        _ => {
            println!("  line size      : unknown; 64 bytes assumed for the line layout");
            64
        }
    };
    let g = Geometry {
        page_words: page / 8,
        line_words: line / 8,
    };
    let lines_per_page = page / line;
    println!(
        "  lines per page : {lines_per_page} (the second column puts page i's slot on line i mod {lines_per_page})"
    );
    meta("page_bytes", page);
    meta("line_bytes", line);
    meta("lines_per_page", lines_per_page);

    // == 2. How many pages before translation becomes the bottleneck.
    exp.section("2. how many pages before translation becomes the bottleneck");
    let counts: Vec<usize> = if quick {
        vec![16, 64, 256, 1024, 4096]
    } else {
        vec![16, 64, 256, 1024, 4096, 16384, 65536]
    };
    let plan = if quick {
        Plan {
            rounds: 3,
            round_ns: 2e6,
            warm_min_ns: 200_000,
            warm_cap_ns: 5_000_000,
        }
    } else {
        Plan {
            rounds: 5,
            round_ns: 20e6,
            warm_min_ns: 1_000_000,
            warm_cap_ns: 50_000_000,
        }
    };
    meta("rounds_per_pass", plan.rounds);
    meta("round_ms", plan.round_ns / 1e6);
    let most = *counts.last().expect("counts");
    println!(
        "  8 bytes are read per page; the pages grow from {} to {most}. Two regions of {} (4 KiB pages\n  asked for), one per layout; {} rounds of about {} ms per count, layouts interleaved, each\n  round after its own warm-up lap; passes {} then {}.",
        counts[0],
        human_bytes((most * page) as u64),
        plan.rounds,
        plan.round_ns / 1e6,
        TWO_PASSES[0].name(),
        TWO_PASSES[1].name()
    );
    let prepared = (
        walk::prepared_region(most * page, HugeAdvice::NoHuge, page),
        walk::prepared_region(most * page, HugeAdvice::NoHuge, page),
    );
    let mut rows = Vec::new();
    match prepared {
        (Ok(pa), Ok(pb)) => {
            let (mut a, asked_a, back_a) = (pa.region, pa.asked, pa.backing);
            let (mut b, asked_b, back_b) = (pb.region, pb.asked, pb.backing);
            for (name, asked, back) in [("offset-0", &asked_a, back_a), ("line", &asked_b, back_b)]
            {
                println!(
                    "  {name:<8} region: MADV_NOHUGEPAGE {}; backed by huge pages: {}",
                    asked
                        .as_ref()
                        .map_or_else(|e| e.clone(), |_| "accepted".into()),
                    show_pct(back)
                );
            }
            meta(
                "scan_backing_pct",
                format!("{} {}", pct_meta(back_a), pct_meta(back_b)),
            );
            if back_a.is_some_and(|p| p > REFUSED_PCT) || back_b.is_some_and(|p| p > REFUSED_PCT) {
                println!(
                    "  ! part of these regions is on huge pages after all: fewer translations than pages"
                );
            }
            let scan = scan::run(&counts, &TWO_PASSES, |&pages, _| {
                // The same random ring in both regions, one per layout, rounds interleaved.
                let next = ring::sattolo(pages, ring::DEFAULT_SEED);
                let mut t = walk::interleaved(
                    &mut [(&mut a, Layout::Offset0), (&mut b, Layout::LineSpread)],
                    &next,
                    g,
                    &plan,
                );
                let line = t.pop().expect("two rings");
                Pair {
                    offset0: t.pop().expect("two rings"),
                    line,
                }
            });
            for p in &scan.points {
                let all = |f: fn(&Pair) -> &Vec<f64>| -> Vec<f64> {
                    p.passes.iter().flat_map(|m| f(m).iter().copied()).collect()
                };
                let s0 = Summary::of(&all(|m| &m.offset0)).expect("rounds");
                let s1 = Summary::of(&all(|m| &m.line)).expect("rounds");
                let a0 = p.agreement(DEFAULT_TOLERANCE, |m| {
                    measure::stats::median(&m.offset0).unwrap_or(f64::NAN)
                });
                let a1 = p.agreement(DEFAULT_TOLERANCE, |m| {
                    measure::stats::median(&m.line).unwrap_or(f64::NAN)
                });
                rows.push(Row {
                    pages: p.param,
                    offset0: s0,
                    line: s1,
                    spread0: a0.spread,
                    spread1: a1.spread,
                });
            }
        }
        (Err(e), _) | (_, Err(e)) => {
            println!("  skipped: {e}; no page-count scan in this run");
        }
    }
    if !rows.is_empty() {
        print_pages(&rows, page, lines_per_page, &cc, &mut exp);
    }

    // == 3. Huge pages: the same walk on a region backed by 2 MiB pages, verified.
    exp.section("3. what happens with huge pages");
    huge_pages(
        &mut exp,
        if quick { 16384 } else { 65536 },
        page,
        g,
        &plan,
        &cc,
    );

    // == 4. The first touch of a page.
    exp.section("4. the cost of touching a page for the first time");
    first_touch(
        if quick { 32 << 20 } else { 128 << 20 },
        page,
        if quick { 3 } else { 5 },
        &mut exp,
    );

    exp.finish();
}

/// The rounds of one page count in one pass: one vector per layout.
struct Pair {
    offset0: Vec<f64>,
    line: Vec<f64>,
}

/// One page count, summarised over every round of both passes.
struct Row {
    pages: usize,
    offset0: Summary,
    line: Summary,
    spread0: f64,
    spread1: f64,
}

fn show_pct(b: Option<f64>) -> String {
    b.map_or("unknown (/proc/self/smaps unreadable)".into(), |b| {
        format!("{b:.0}% (verified in /proc/self/smaps)")
    })
}

fn pct_meta(b: Option<f64>) -> String {
    b.map_or("unknown".into(), |b| format!("{b:.1}"))
}

fn cycles(cc: &CoreClock, ns: f64) -> String {
    cc.cycles(ns).map_or("-".into(), |c| format!("{c:.0}"))
}

fn print_pages(
    rows: &[Row],
    page: usize,
    lpp: usize,
    cc: &CoreClock,
    exp: &mut measure::run::Experiment,
) {
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
        "pages",
        &[
            "pages",
            "span_kib",
            "offset0_ns",
            "offset0_min_ns",
            "offset0_max_ns",
            "offset0_cycles",
            "offset0_factor",
            "line_ns",
            "line_min_ns",
            "line_max_ns",
            "line_cycles",
            "line_factor",
            "offset0_pass_spread",
            "line_pass_spread",
            "agree:text",
        ],
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
        "  passes: the two passes' medians disagree by the % shown; '!' marks more than {:.0}%.",
        DEFAULT_TOLERANCE * 100.0
    );
    block.print();

    let last = rows.last().expect("rows");
    let first = &rows[0];
    println!(
        "\n  * {} pages read 8 bytes each, and yet {} pages cost {:.1}x as much per read as {} (line\n    layout; {:.1}x with every slot at offset 0). The data is tiny; the pages are many.",
        last.pages,
        last.pages,
        last.line.median / first.line.median,
        first.pages,
        last.offset0.median / first.offset0.median
    );
    // Where do the two layouts part most? That share of the offset-0 cost is set conflicts.
    let worst = rows
        .iter()
        .max_by(|a, b| {
            (a.offset0.median / a.line.median).total_cmp(&(b.offset0.median / b.line.median))
        })
        .expect("rows");
    let q = worst.offset0.median / worst.line.median;
    if q > 1.1 {
        println!(
            "  * the layouts part most at {} pages: offset 0 is {q:.1}x the line layout there. With every\n    slot at offset 0 the lines compete for the same cache sets; that much of the appendix's\n    curve is the cache, not translation.",
            worst.pages
        );
    } else {
        println!(
            "  * the two layouts stay within 10% of each other at every count: on this machine the\n    cache sets did not add to the cost measured at offset 0."
        );
    }
    exp.key_figure("first_pages_line_ns", first.line.median, "ns");
    exp.key_figure("most_pages_line_ns", last.line.median, "ns");
    exp.key_figure("most_pages_offset0_ns", last.offset0.median, "ns");
    exp.key_figure(
        "pages_factor_line",
        last.line.median / first.line.median,
        "x",
    );
    exp.key_figure("offset0_over_line_max", q, "x");
}

/// Section 3: the same ring on a region asked for huge pages and one asked against them,
/// both verified, rounds interleaved, for both layouts.
fn huge_pages(
    exp: &mut measure::run::Experiment,
    pages: usize,
    page: usize,
    g: Geometry,
    plan: &Plan,
    cc: &CoreClock,
) {
    let bytes = pages * page;
    meta("huge_walk_pages", pages);
    match exp.facts.thp_mode.as_deref() {
        None => println!(
            "  transparent huge pages : not offered by this kernel (no sysfs switch): the request\n  cannot be taken, and the comparison below can only show that"
        ),
        Some(m) => println!(
            "  transparent huge pages : mode {m} (sysfs){}",
            match m {
                "never" => ": every huge-page request is refused system-wide",
                "always" => ": regions get huge pages without asking; MADV_NOHUGEPAGE opts out",
                "madvise" => ": only regions that ask get huge pages",
                _ => "",
            }
        ),
    }
    println!(
        "  the same ring over {pages} pages ({}) in two regions aligned to 2 MiB, one advised\n  MADV_NOHUGEPAGE and one MADV_HUGEPAGE, touched beforehand; rounds alternate between them.",
        human_bytes(bytes as u64)
    );
    let (mut normal, mut huge) = match (
        walk::prepared_region(bytes, HugeAdvice::NoHuge, page),
        walk::prepared_region(bytes, HugeAdvice::Huge, page),
    ) {
        (Ok(n), Ok(h)) => (n, h),
        (Err(e), _) | (_, Err(e)) => {
            println!("  skipped: {e}");
            meta("huge_verdict", "skipped");
            return;
        }
    };
    for (name, p) in [("MADV_NOHUGEPAGE", &normal), ("MADV_HUGEPAGE", &huge)] {
        let (asked, back) = (&p.asked, &p.backing);
        println!(
            "  {name:<16}: {}; backed by huge pages: {}",
            asked
                .as_ref()
                .map_or_else(|e| e.clone(), |_| "accepted".to_string()),
            show_pct(*back)
        );
    }
    let next = ring::sattolo(pages, ring::DEFAULT_SEED);
    let mut block = Block::new(
        "huge_pages",
        &[
            "layout:text",
            "advice:text",
            "huge_backing_pct",
            "ns",
            "min_ns",
            "max_ns",
            "cycles",
        ],
    );
    let mut verdicts = Block::new(
        "huge_verdict",
        &["layout:text", "verdict:text", "normal_over_huge"],
    );
    let mut results = Vec::new();
    for layout in [Layout::Offset0, Layout::LineSpread] {
        let t = walk::interleaved(
            &mut [(&mut normal.region, layout), (&mut huge.region, layout)],
            &next,
            g,
            plan,
        );
        results.push((layout, t));
    }
    // The backing again after the walks: a verdict needs it to have held throughout.
    let (nb_after, hb_after) = (normal.region.huge_backing(), huge.region.huge_backing());
    let worst = |a: Option<f64>, b: Option<f64>, huge: bool| match (a, b) {
        (Some(a), Some(b)) => Some(if huge { a.min(b) } else { a.max(b) }),
        _ => None,
    };
    let hp = worst(huge.backing, hb_after, true);
    let np = worst(normal.backing, nb_after, false);
    println!(
        "  after the walks : NOHUGEPAGE region {}% huge, HUGEPAGE region {}% huge (smaps again)",
        pct_meta(nb_after),
        pct_meta(hb_after)
    );
    meta("huge_backing_pct", pct_meta(hp));
    meta("nohuge_backing_pct", pct_meta(np));
    println!(
        "\n  {:<26} {:>16} {:>16} {:>9}",
        "layout", "4 KiB pages ns", "huge pages ns", "ratio"
    );
    let sum = |v: &[f64]| Summary::of(v).expect("rounds");
    for (layout, t) in &results {
        let (sn, sh) = (sum(&t[0]), sum(&t[1]));
        let name = match layout {
            Layout::Offset0 => "slot at offset 0",
            Layout::LineSpread => "slot on line i mod lines",
        };
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
    for (layout, t) in &results {
        let v = walk::verdict(hp, np, &t[0], &t[1], HONOURED_PCT, REFUSED_PCT, WIN_RATIO);
        let (sn, sh) = (sum(&t[0]), sum(&t[1]));
        let what = match v {
            walk::Verdict::Won(r) => format!(
                "huge pages won: {r:.2}x faster, with both backings verified and no rounds overlapping"
            ),
            walk::Verdict::Lost(r) => format!(
                "huge pages lost: {:.2}x slower, with both backings verified and no rounds overlapping",
                1.0 / r
            ),
            walk::Verdict::NoDifference(r) => format!(
                "no clear difference in this run ({r:.2}x: {}), with both backings verified",
                if r >= WIN_RATIO || r <= 1.0 / WIN_RATIO {
                    "the rounds overlap"
                } else {
                    "closer than the 1.15x a difference needs"
                }
            ),
            walk::Verdict::SameBacking => "both regions were backed alike, so similar times are only to be expected: the\n    comparison could not be made on this machine".to_string(),
            walk::Verdict::NotAsAsked => "the backing is not what was asked, so the times compare what the kernel gave,\n    not huge against small pages".to_string(),
            walk::Verdict::Unknown => "the backing could not be read, so no conclusion is drawn from the times".to_string(),
        };
        println!("  * {}: {what}.", layout.name());
        let ratio = sn.median / sh.median;
        verdicts.row(vec![layout.name().into(), v.word().into(), ratio.into()]);
        exp.key_figure(&format!("huge_ratio_{}", layout.name()), ratio, "x");
    }
    verdicts.print();
    println!(
        "  * one 2 MiB page replaces 512 pages of 4 KiB, so the walk needs a 512th of the translations.\n    madvise is a request, not an order: the percentages above say whether it was taken."
    );
}

/// Section 4: a fresh region touched once per page, then again; fresh regions per round.
fn first_touch(bytes: usize, page: usize, rounds: usize, exp: &mut measure::run::Experiment) {
    let (mut first, mut again) = (Vec::new(), Vec::new());
    let mut backing = None;
    for _ in 0..rounds {
        let mut r = match Region::new(bytes) {
            Ok(r) => r,
            Err(e) => {
                println!("  skipped: {e}");
                break;
            }
        };
        // 4 KiB pages, so that every page is its own fault as in the appendix's plain mmap.
        if let Err(e) = r.advise(HugeAdvice::NoHuge) {
            println!("  (MADV_NOHUGEPAGE {e}: the kernel's default pages were used)");
        }
        let pages = (r.len() / page) as f64;
        let (t1, ()) = clock::time_ns(|| r.touch(page));
        let (t2, ()) = clock::time_ns(|| r.touch(page));
        first.push(t1 / pages);
        again.push(t2 / pages);
        backing = r.huge_backing();
    }
    let (Some(f), Some(a)) = (Summary::of(&first), Summary::of(&again)) else {
        return;
    };
    println!(
        "  {} touched one byte per page, {} fresh regions ({}% on huge pages, verified in smaps):",
        human_bytes(bytes as u64),
        f.n,
        pct_meta(backing)
    );
    println!(
        "  touching a page the first time  : {:>8.1} ns  ({:.1} .. {:.1})",
        f.median, f.min, f.max
    );
    println!(
        "  touching an already-mapped page : {:>8.1} ns  ({:.1} .. {:.1})",
        a.median, a.min, a.max
    );
    let factor = f.median / a.median;
    println!("  factor                          : {factor:.0}x");
    println!(
        "  * {}",
        if factor > 3.0 {
            "the address mmap returned is not memory yet: at each first touch the kernel attaches\n    (and zeroes) a page. Allocate and measure at once and this cost is mixed in whole."
        } else {
            "first touch was not much dearer than a second one here; the kernel may have attached\n    the pages ahead (fault-around or huge pages). Check the backing above."
        }
    );
    let mut b = Block::new(
        "first_touch",
        &["touch:text", "ns_per_page", "min_ns", "max_ns"],
    );
    for (name, s) in [("first", f), ("again", a)] {
        b.row(vec![
            name.into(),
            s.median.into(),
            s.min.into(),
            s.max.into(),
        ]);
    }
    b.print();
    meta("first_touch_backing_pct", pct_meta(backing));
    exp.key_figure("first_touch_ns", f.median, "ns");
    exp.key_figure("touch_again_ns", a.median, "ns");
    exp.key_figure("first_touch_factor", factor, "x");
}
