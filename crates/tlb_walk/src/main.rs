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
//!
//! Where to start reading: `main` below, which follows the appendix's section top to bottom
//! (its sections 1 to 3). `walk.rs` places the slots and times the rings, `verdict.rs` holds
//! each section's result and reads it (pure functions), `report.rs` prints the tables and the
//! readings; the chase kernels themselves are `measure::chase`, shared with cache_ladder.

mod report;
mod verdict;
mod walk;

use ::tlb_walk::schema::key;
use measure::chase::Plan;
use measure::clock::{self, CoreClock};
use measure::data::Block;
use measure::disturb::{Probe, Site, Tally};
use measure::fmt::{WIDTH, bytes as human_bytes, field, say, wrap_to};
use measure::mem::{self, HugeAdvice, Region, backing_meta};
use measure::out::Out;
use measure::ring;
use measure::run::Experiment;
use measure::scan::{self, TWO_PASSES};
use measure::segments::{self, Step as SegStep};
use measure::show::region_line;
use report::{HugeWalk, Pair, Row};
use walk::{Geometry, Layout};

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
    exp.key_sources(::tlb_walk::schema::KEY_SOURCES);
    let quick = exp.args.quick;
    let core = exp.pin_main_thread().map(|p| p.requested);

    // == The page, the line and the clock: what the layouts and the cycles columns use.
    exp.section("the page, the line and the core clock of this machine");
    let page = exp.facts.page_size.map_or(4096, |p| p as usize);
    let line_fact = exp.facts.line_size();
    let line = match line_fact.value {
        Some(l) if l >= 8 && (l as usize) <= page => l as usize,
        _ => 64,
    };
    let g = Geometry {
        page_words: page / 8,
        line_words: line / 8,
    };
    let lines_per_page = page / line;
    let text = format!(
        "{} pages ({}), {line}-byte lines ({}): {lines_per_page} lines per page, so the second \
         layout puts page i's slot on line i mod {lines_per_page}",
        human_bytes(page as u64),
        if exp.facts.page_size.is_some() {
            "sysconf".to_string()
        } else {
            "unknown: 4 KiB assumed, not a measurement".to_string()
        },
        match (line_fact.value, line_fact.source) {
            (Some(l), Some(src)) if l as usize == line => src.to_string(),
            _ => "unknown: 64 bytes assumed".to_string(),
        }
    );
    println!("{}", field("page and line", &text));
    exp.out.meta(::tlb_walk::schema::META_PAGE_BYTES, page);
    exp.out.meta("line_bytes", line);
    exp.out
        .meta(::tlb_walk::schema::META_LINES_PER_PAGE, lines_per_page);
    let cc = exp.core_clock();

    // == 1. How many pages before translation becomes the bottleneck.
    exp.section("1. how many pages before translation becomes the bottleneck");
    // Two counts per octave, so that a step in the cost is located within 1.41x; a quick run
    // takes every second power of two.
    let mut counts: Vec<usize> = if quick {
        vec![16, 64, 256, 1024, 4096]
    } else {
        walk::half_octaves(16, 65536)
    };
    // Two regions of the largest count's pages are mapped and touched at once.
    while let Some(&most) = counts.last()
        && let Err(e) = mem::guard(2 * (most * page) as u64)
    {
        say(&format!("skipped: {most} pages: {e}"), "  ");
        counts.pop();
    }
    let plan = if quick {
        Plan::quick(2.5e5)
    } else {
        Plan::full(2.5e5, 50_000_000)
    };
    exp.out.metas(plan.meta());
    let rows = page_scan(&mut exp.out, &exp.facts, &counts, page, g, &plan, core);
    if !rows.is_empty() {
        let scan = verdict::PageScan {
            tally: rows_tally(&rows),
            reach: tlb_reach(&exp.facts, page),
            rows,
        };
        report::pages(&mut exp.out, &scan.rows, page, lines_per_page, &cc);
        exp.out.reading(&verdict::pages(&scan));
        report::pages_record(&scan.rows, &mut exp);
        exp.disturbance(::tlb_walk::schema::pages::BLOCK, &scan.tally);
    }

    // == 2. Huge pages: the same walk on a region backed by 2 MiB pages, verified.
    exp.section("2. what happens with huge pages");
    huge_pages(
        &mut exp,
        if quick { 16384 } else { 65536 },
        page,
        g,
        &plan,
        &cc,
        core,
    );

    // == 3. The first touch of a page.
    exp.section("3. the cost of touching a page for the first time");
    first_touch(
        if quick { 32 << 20 } else { 128 << 20 },
        page,
        if quick { 3 } else { 5 },
        core,
        &mut exp,
    );

    exp.finish();
}

/// Section 1: the page counts in two passes, both layouts interleaved in every round, on two
/// regions of `most` pages asked for 4 KiB pages (the backing verified).
fn page_scan(
    out: &mut Out,
    facts: &measure::facts::MachineFacts,
    counts: &[usize],
    page: usize,
    g: Geometry,
    plan: &Plan,
    core: Option<usize>,
) -> Vec<Row> {
    let Some(&most) = counts.last() else {
        return Vec::new();
    };
    say(
        &format!(
            "8 bytes are read per page; the pages grow from {} to {most}. Two regions of {} (4 KiB \
             pages asked for), one per layout; {} clean rounds of about {} ms per count, layouts \
             interleaved, each round after its own warm-up; {}; passes {} then {}.",
            counts[0],
            human_bytes((most * page) as u64),
            plan.rounds,
            plan.round_ns / 1e6,
            plan.budget_text(),
            TWO_PASSES[0].name(),
            TWO_PASSES[1].name()
        ),
        "  ",
    );
    let (mut a, mut b) = match (
        mem::prepare(most * page, HugeAdvice::NoHuge, page),
        mem::prepare(most * page, HugeAdvice::NoHuge, page),
    ) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => {
            say(
                &format!("skipped: {e}; no page-count scan in this run"),
                "  ",
            );
            return Vec::new();
        }
    };
    for (name, p) in [("offset-0", &a), ("line", &b)] {
        let first = format!("  {name:<8} region : ");
        println!(
            "{}",
            region_line(&first, &" ".repeat(19), "MADV_NOHUGEPAGE ", p)
        );
    }
    out.meta(
        "scan_backing_pct",
        format!("{} {}", backing_meta(a.backing), backing_meta(b.backing)),
    );
    if let Some(warning) = verdict::scan_backing([a.backing, b.backing]) {
        say(&warning, "  ");
    }
    println!("{}", measure::retake::parts_line());
    let mut probe = Probe::new();
    let mut parts = measure::retake::Parts::new();
    let scan = scan::run_named(
        counts,
        &TWO_PASSES,
        |n| format!("{n} pages"),
        |&pages, _| {
            // The same random ring in both regions, one per layout, rounds interleaved.
            let next = ring::sattolo(pages, ring::DEFAULT_SEED);
            // A span beyond the caches reads the memory reference too.
            let site = Site::over(core, (pages * page) as u64, facts);
            let (mut t, load) = parts.take_at(site, || {
                walk::judged(
                    &mut [
                        (&mut a.region, Layout::Offset0),
                        (&mut b.region, Layout::LineSpread),
                    ],
                    &next,
                    g,
                    plan,
                    &mut probe,
                )
            });
            let line = t.pop().expect("two rings");
            Pair {
                offset0: t.pop().expect("two rings"),
                line,
                load,
            }
        },
    );
    scan.points.iter().map(Row::of).collect()
}

/// The data TLBs' reach in 4 KiB pages (one entry maps one page), L1 then L2, where CPUID
/// gave their entries and the pages are 4 KiB; none otherwise.
fn tlb_reach(facts: &measure::facts::MachineFacts, page: usize) -> Vec<verdict::Reach> {
    if page != 4096 {
        return Vec::new();
    }
    [("L1", &facts.dtlb.l1_4k), ("L2", &facts.dtlb.l2_4k)]
        .into_iter()
        .filter_map(|(name, f)| f.value.map(|pages| verdict::Reach { name, pages }))
        .collect()
}

/// Every round of section 1, with the load around it (each row carries it).
fn rows_tally(rows: &[Row]) -> Tally {
    rows.iter().fold(Tally::default(), |t, r| t.merge(&r.tally))
}

/// Section 2: the same ring on a region asked for huge pages and one asked against them,
/// both verified, rounds interleaved, for both layouts; then its table and its reading.
fn huge_pages(
    exp: &mut Experiment,
    pages: usize,
    page: usize,
    g: Geometry,
    plan: &Plan,
    cc: &CoreClock,
    core: Option<usize>,
) {
    exp.out
        .meta(::tlb_walk::schema::META_HUGE_WALK_PAGES, pages);
    println!(
        "{}",
        wrap_to(
            &thp_mode(exp.facts.thp_mode.as_deref()),
            "  transparent huge pages : ",
            "    ",
            WIDTH
        )
    );
    say(
        &format!(
            "the same ring over {pages} pages ({}) in two regions aligned to 2 MiB, one advised \
             MADV_NOHUGEPAGE and one MADV_HUGEPAGE, touched beforehand; rounds alternate between \
             them.",
            human_bytes((pages * page) as u64)
        ),
        "  ",
    );
    let site = Site::over(core, (pages * page) as u64, &exp.facts);
    let h = match huge_walks(&mut exp.out, pages, page, g, plan, site) {
        Ok(h) => h,
        Err(e) => {
            say(&format!("skipped: {e}"), "  ");
            exp.out.meta("huge_verdict", "skipped");
            return;
        }
    };
    report::huge(&mut exp.out, &h.walks, h.hp, h.np, cc);
    exp.out.reading(&verdict::huge(&h));
    report::huge_record(&h.walks, h.hp, h.np, exp);
    exp.disturbance(::tlb_walk::schema::huge_pages::BLOCK, &h.tally);
}

/// The kernel's transparent-huge-page mode (sysfs) and what it means for the requests.
fn thp_mode(mode: Option<&str>) -> String {
    match mode {
        None => "not offered by this kernel (no sysfs switch): the request cannot be taken, and \
                 the comparison below can only show that"
            .to_string(),
        Some(m) => format!(
            "mode {m} (sysfs){}",
            match m {
                "never" => ": every huge-page request is refused system-wide",
                "always" => ": regions get huge pages without asking; MADV_NOHUGEPAGE opts out",
                "madvise" => ": only regions that ask get huge pages",
                _ => "",
            }
        ),
    }
}

/// Section 2's measurement: both regions prepared (their backing printed), both layouts
/// walked with the rounds interleaved, and the backing read again afterwards (recorded, and
/// kept at its worst for the verdict); an error when the regions cannot be had. Each
/// layout's window is at `site` (memory-bound where the regions span more than the caches).
fn huge_walks(
    out: &mut Out,
    pages: usize,
    page: usize,
    g: Geometry,
    plan: &Plan,
    site: Site,
) -> Result<verdict::Huge, String> {
    let bytes = pages * page;
    mem::guard(2 * bytes as u64)?;
    let mut normal = mem::prepare(bytes, HugeAdvice::NoHuge, page)?;
    let mut huge = mem::prepare(bytes, HugeAdvice::Huge, page)?;
    for (name, p) in [("MADV_NOHUGEPAGE", &normal), ("MADV_HUGEPAGE", &huge)] {
        let first = format!("  {name:<16}: ");
        println!("{}", region_line(&first, &" ".repeat(20), "", p));
    }
    let next = ring::sattolo(pages, ring::DEFAULT_SEED);
    println!(
        "{}",
        field("retakes", "as in section 1, each layout a part of its own")
    );
    // Each layout in a window of its own, taken again while the core's share was unsteady
    // during it (measure::retake).
    let mut parts = measure::retake::Parts::new();
    let walks: Vec<HugeWalk> = [Layout::Offset0, Layout::LineSpread]
        .into_iter()
        .map(|layout| {
            let (mut t, load) = parts.take_at(site, || {
                let both = &mut [(&mut normal.region, layout), (&mut huge.region, layout)];
                walk::judged(both, &next, g, plan, &mut Probe::new())
            });
            let h = t.pop().expect("two rings");
            HugeWalk {
                layout,
                normal: t.pop().expect("two rings"),
                huge: h,
                load,
            }
        })
        .collect();
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
        backing_meta(nb_after),
        backing_meta(hb_after)
    );
    out.meta("huge_backing_pct", backing_meta(hp));
    out.meta("nohuge_backing_pct", backing_meta(np));
    let tally = walks
        .iter()
        .fold(Tally::default(), |t, w| t.merge(&w.tally()));
    Ok(verdict::Huge {
        walks,
        hp,
        np,
        tally,
    })
}

/// Section 3: the first touch of a page against a second one, measured, then its table, its
/// reading and its records.
fn first_touch(bytes: usize, page: usize, clean: usize, core: Option<usize>, exp: &mut Experiment) {
    match touch_measure(
        bytes,
        page,
        clean,
        Site::over(core, bytes as u64, &exp.facts),
    ) {
        Err(e) => say(&format!("skipped: {e}"), "  "),
        Ok(None) => {}
        Ok(Some(t)) => touch_show(exp, &t),
    }
}

/// Section 3's measurement: a fresh region touched once per page, then again; a fresh region
/// per round. A round cannot be cut short (its first touch of the whole region is the
/// quantity) and lasts tens of milliseconds, so it is timed in segments of a few hundred
/// pages ([`measure::segments`]), each judged by its evidence. `None` when no segment was
/// clean. Its window is at `site` (memory-bound where the region is larger than the caches).
fn touch_measure(
    bytes: usize,
    page: usize,
    clean: usize,
    site: Site,
) -> Result<Option<verdict::Touch>, String> {
    mem::guard(bytes as u64)?;
    let pages = bytes / page;
    let (mut region, mut backing, mut failed) = (None::<Region>, None, None);
    let parts = touch_parts(page, pages);
    let probe = Probe::new();
    // Up to twice the rounds when segments are disturbed, within 100 ms of extra rounds.
    let want = segments::Want::new(clean, clean, 100_000_000);
    // Taken again, fresh regions and all, while the core's share was unsteady (a take lasts
    // well under a second here).
    let (t, load) = measure::retake::take_at(site, || {
        segments::interleaved(&probe, &want, &parts, |step| {
            let SegStep::Time(i, k) = step else {
                return 0.0; // a fresh region has nothing to warm up
            };
            if i == 0 && k == 0 {
                region = fresh_region(bytes, &mut failed);
            }
            let Some(r) = region.as_mut() else {
                return f64::NAN;
            };
            let range = segments::range(pages as u64, parts[i], k);
            let (t, ()) =
                clock::time_ns(|| r.touch_pages(page, range.start as usize..range.end as usize));
            if i == 1 && k + 1 == parts[1] {
                backing = r.huge_backing();
            }
            t
        })
    });
    if let Some(e) = failed {
        return Err(e);
    }
    let (first, again) = (&t[0], &t[1]);
    let (Some(f), Some(a)) = (first.summary(pages as f64), again.summary(pages as f64)) else {
        return Ok(None);
    };
    Ok(Some(verdict::Touch {
        bytes,
        fresh: first.ns.len(),
        backing,
        first: f,
        again: a,
        first_tally: first.tally(),
        again_tally: again.tally(),
        tally: first.tally().merge(&again.tally()).with_load(load),
    }))
}

/// Section 3's table, reading, `first_touch` block and key figures.
fn touch_show(exp: &mut Experiment, t: &verdict::Touch) {
    let (f, a) = (&t.first, &t.again);
    let again = format!(
        "up to {} more takes (fresh regions) while the share or the memory was unsteady",
        measure::retake::RETAKES
    );
    println!("{}", field("retakes", &again));
    println!(
        "  {} touched one byte per page, {} fresh regions ({}% on huge pages, verified in smaps):",
        human_bytes(t.bytes as u64),
        t.fresh,
        backing_meta(t.backing)
    );
    println!(
        "  touching a page the first time  : {:>8.1} ns  ({:.1} .. {:.1})",
        f.median, f.min, f.max
    );
    println!(
        "  touching an already-mapped page : {:>8.1} ns  ({:.1} .. {:.1})",
        a.median, a.min, a.max
    );
    println!("  factor                          : {:.0}x", t.factor());
    exp.out.reading(&verdict::touch(t));
    let mut b = Block::new(
        ::tlb_walk::schema::first_touch::BLOCK,
        ::tlb_walk::schema::first_touch::COLUMNS,
    );
    for (name, s, tally) in [("first", f, &t.first_tally), ("again", a, &t.again_tally)] {
        b.row(vec![
            name.into(),
            s.median.into(),
            s.min.into(),
            s.max.into(),
            tally.rounds.into(),
            tally.disturbed.into(),
        ]);
    }
    exp.out.block(&b);
    exp.out
        .meta("first_touch_backing_pct", backing_meta(t.backing));
    exp.disturbance(::tlb_walk::schema::first_touch::BLOCK, &t.tally);
    exp.key_figure(key::FIRST_TOUCH_NS, f.median, "ns");
    exp.key_figure(key::TOUCH_AGAIN_NS, a.median, "ns");
    exp.key_figure(key::FIRST_TOUCH_FACTOR, t.factor(), "x");
}

/// A fresh region of `bytes` asked for 4 KiB pages, so that every page is its own fault as in
/// the appendix's plain mmap; `None`, with the error kept in `failed`, if it cannot be mapped.
fn fresh_region(bytes: usize, failed: &mut Option<String>) -> Option<Region> {
    match Region::new(bytes) {
        Ok(r) => {
            if let Err(e) = r.advise(HugeAdvice::NoHuge) {
                println!("  (MADV_NOHUGEPAGE {e}: the kernel's default pages were used)");
            }
            Some(r)
        }
        Err(e) => {
            failed.get_or_insert(e.to_string());
            None
        }
    }
}

/// Segments for the first touch and the second touch of `pages` pages, from a trial on 256
/// fresh pages (so that each segment lasts about 0.2 ms).
fn touch_parts(page: usize, pages: usize) -> Vec<usize> {
    let trial = 256.min(pages.max(1));
    let Ok(mut r) = Region::new(trial * page) else {
        return vec![1, 1];
    };
    let _ = r.advise(HugeAdvice::NoHuge);
    let (t1, ()) = clock::time_ns(|| r.touch(page));
    let (t2, ()) = clock::time_ns(|| r.touch(page));
    [t1, t2]
        .iter()
        .map(|t| segments::parts_for(t / trial as f64 * pages as f64, 200_000.0, pages as u64))
        .collect()
}
