//! # stride: lines and strides, the unit a cache fetches
//!
//! Run with: `cargo run -p stride` (add `-- --quick` for a smoke run of a few seconds).
//!
//! The section "Lines and strides" of the appendix "The machine, measured", in Rust. A cache
//! does not fetch the byte you ask for but the whole line around it. To see the line in the
//! time, the program reads a buffer much larger than the last-level cache one byte at a
//! time, jumping 1, 2, 4, ... 4096 bytes, always the same number of times: what changes is
//! not how many reads but what one read costs. Then the same four million values are summed
//! from an array of structs and from a separate array, to show what the line means for a
//! data layout.
//!
//! Beyond the appendix: the number of distinct lines each stride really visits (a fixed
//! count over a fixed buffer wraps around for wide strides and re-reads a smaller working
//! set), a second walk that starts every lap one line further on so that it cannot, two
//! passes over the strides in different orders with a per-point agreement check, and a
//! compute floor for the struct-of-arrays sum (the same sum over an array that sits in L1).
//!
//! Where to start reading: `main` below, which follows the appendix's section top to bottom.
//! `walk.rs` holds the two stride walks and what each visits, `layout.rs` the two layouts,
//! `timing.rs` how they are timed; `verdict.rs` reads each section's result into sentences
//! (pure functions, unit-tested); `report.rs` and `layout_report.rs` print sections 1-3 and 4.

mod layout;
mod layout_report;
mod prefetch;
mod report;
mod timing;
mod verdict;
mod walk;

use ::stride::schema::key;
use measure::clock::{self, CoreClock};
use measure::disturb::Site;
use measure::fmt::{bytes, grouped, say};
use measure::mem::{self, Region};
use measure::run::Experiment;
use measure::scan;
use report::Row;

/// The appendix's buffer: 64 MiB, "larger than the L3".
const DEFAULT_BUFFER: u64 = 64 << 20;
/// The appendix's fixed number of accesses per stride.
const DEFAULT_ACCESSES: u64 = 2_000_000;
/// Strides 1, 2, 4, ... 4096 bytes.
const STRIDES: [usize; 13] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
/// The appendix's 4M particles.
const ELEMENTS: usize = 4 << 20;

/// The smallest `--buffer`: the widest stride must fit many times over.
const MIN_BUFFER: u64 = 1 << 20;
/// The largest `--buffer` accepted at all (memory is checked besides).
const MAX_BUFFER: u64 = 1 << 40;
/// The most `--accesses`: 50 times the appendix's count (a full run then takes minutes).
const MAX_ACCESSES: u64 = 100_000_000;
/// The mapping's slack beyond the buffer (the region is aligned to 2 MiB).
const SLACK: u64 = 4 << 20;

const OPTS: &[measure::cli::Opt] = &[
    measure::cli::Opt {
        name: "--buffer",
        value: Some("SIZE"),
        help: "the buffer the strides walk, 1M or more (rounded up to a power of two; default: 64 MiB or twice the largest cache)",
    },
    measure::cli::Opt {
        name: "--accesses",
        value: Some("N"),
        help: "accesses per stride and round, 1000 to 100000000 (default 2000000, as in the appendix)",
    },
];

fn main() {
    let mut exp = measure::start!(
        "stride",
        "lines and strides: what one access costs as the stride grows, and what layout does",
        OPTS
    );
    exp.key_sources(::stride::schema::KEY_SOURCES);
    let quick = exp.args.quick;
    // Options first, so bad input is refused before anything is measured.
    let Options {
        accesses,
        largest,
        asked,
        why,
        len,
    } = options(&exp);
    let pinned = exp.pin_main_thread();
    let core = pinned.filter(|p| p.verified()).map(|p| p.requested);
    let rounds = if quick { 3 } else { 5 };
    let layout_rounds = if quick { 7 } else { 15 };

    // == 1. The line, and the clock.
    exp.section("1. the cache line of this machine, and the clock");
    let line_fact = exp.facts.line_size();
    report::line(&mut exp.out, &line_fact);
    let line = line_fact.value;
    let page = exp.facts.page_size.unwrap_or(4096);
    if exp.facts.page_size.is_none() {
        println!("  page size      : unknown; distinct pages are counted in 4 KiB pages");
    }
    exp.out.meta("page_bytes", page);
    let probe = clock::probe(5, if quick { 5_000 } else { 20_000 });
    report::clock(&mut exp.out, &probe);
    let cc = exp.core_clock();

    // == 2. The buffer: larger than the last-level cache, with every page attached.
    exp.section("2. the buffer: larger than the largest cache, touched beforehand");
    report::buffer(&mut exp.out, len, asked, &why, largest, accesses, rounds);
    let region = mem::guard(len as u64 + SLACK).and_then(|()| Region::new(len));
    let mut region = match region {
        Ok(r) => r,
        Err(e) => {
            say(
                &format!(
                    "skipped: the stride walk needs a {} buffer: {e}",
                    bytes(len as u64)
                ),
                "  ",
            );
            exp.out.meta("stride_walk", format!("skipped: {e}"));
            layout_section(&mut exp, line, layout_rounds, core);
            exp.finish();
            return;
        }
    };
    walk::fill(timing::bytes(&mut region, len));
    report::backing(
        &mut exp.out,
        region.huge_backing(),
        exp.facts.thp_mode.as_deref(),
    );

    // == 3. Varying the stride, the number of accesses fixed.
    let shift = line.unwrap_or(64) as usize;
    if line.is_none() {
        println!(
            "  the fresh-lines walk shifts each lap by 64 bytes: an assumption, the line size is unknown"
        );
    }
    exp.out.meta("fresh_shift_bytes", shift);
    exp.section(&format!(
        "3. varying the stride: {} accesses each, over {}",
        grouped(accesses as u64),
        bytes(len as u64)
    ));
    let plans = timing::plans(len, &STRIDES, accesses, shift, line, page);
    let orders = orders(quick);
    let want = timing::walk_want(rounds);
    report::passes(&mut exp.out, &orders, &want);
    let buf: &[u8] = timing::bytes(&mut region, len);
    println!("{}", measure::retake::parts_line());
    let walk = (accesses, shift);
    // The buffer is beyond the caches (unless `--buffer` asked for less): each stride's
    // window reads the memory reference too.
    let site = Site::over(core, len as u64, &exp.facts);
    let rows = timing::sweep(buf, &STRIDES, &plans, &orders, walk, &want, site);
    drop(region);
    let walks = report::Walks::of(rows, (line, len, accesses));

    walks_part(&mut exp, &walks, &cc, probe.min_step_ns);
    prefetch_part(&mut exp, &walks, page);

    // == 4. The same data, laid out differently.
    layout_section(&mut exp, line, layout_rounds, core);
    exp.finish();
}

/// What the options ask for: the accesses per walk, the buffer (`asked` bytes, `why`, rounded
/// up to `len`) beside the largest reported cache.
struct Options {
    accesses: usize,
    largest: Option<u64>,
    asked: u64,
    why: String,
    len: usize,
}

/// `--accesses` and `--buffer`, checked against the memory this process may use (exit 2 if
/// the buffer asked for, or section 4's layouts, do not fit).
fn options(exp: &Experiment) -> Options {
    let asked_buffer = exp.args.size_given("--buffer", MIN_BUFFER, MAX_BUFFER);
    let accesses = exp
        .args
        .count("--accesses", DEFAULT_ACCESSES, 1000, MAX_ACCESSES) as usize;
    let largest = exp.facts.largest_cache();
    let (asked, why) = buffer_size(asked_buffer, largest);
    let len = asked.next_power_of_two() as usize;
    // The plan against memory: the buffer, then (after it is unmapped) the two layouts.
    if asked_buffer.is_some()
        && let Err(e) = mem::guard(len as u64 + SLACK)
    {
        measure::cli::fail(exp.name, &format!("--buffer {}: {e}", bytes(len as u64)));
    }
    if let Err(e) = mem::guard(layout::bytes(ELEMENTS) as u64) {
        measure::cli::fail(
            exp.name,
            &format!(
                "section 4 sums {} particles, {} in both layouts: {e}",
                grouped(ELEMENTS as u64),
                bytes(layout::bytes(ELEMENTS) as u64)
            ),
        );
    }
    Options {
        accesses,
        largest,
        asked,
        why,
        len,
    }
}

/// Section 3 rendered: the two tables, the blocks, the reading, the rounds behind it and the
/// key figures.
fn walks_part(exp: &mut Experiment, walks: &report::Walks, cc: &CoreClock, clock_step_ns: f64) {
    let line = walks.line;
    report::print_cost_table(&walks.rows, line, cc, clock_step_ns);
    report::print_visit_table(&walks.rows, line, &exp.facts);
    report::stride_blocks(&mut exp.out, &walks.rows, line, cc);
    verdict::walks_verdict(walks, &exp.facts).render(&mut exp.out);
    exp.disturbance(::stride::schema::stride::BLOCK, &walks.tally);
    stride_key_figures(exp, &walks.rows, line);
}

/// The passes over the strides: forward and shuffled, and backward too in a full run.
fn orders(quick: bool) -> Vec<scan::Order> {
    if quick {
        scan::TWO_PASSES.to_vec()
    } else {
        vec![
            scan::Order::Forward,
            scan::Order::Shuffled(measure::ring::DEFAULT_SEED),
            scan::Order::Backward,
        ]
    }
}

/// The buffer to walk, and why: `--buffer` if given, else the appendix's 64 MiB, or twice the
/// largest reported cache where that is more.
fn buffer_size(asked: Option<u64>, largest: Option<u64>) -> (u64, String) {
    match (asked, largest) {
        (Some(b), _) => (b, "--buffer".to_string()),
        (None, Some(c)) if 2 * c > DEFAULT_BUFFER => {
            (2 * c, "twice the largest reported cache".to_string())
        }
        (None, Some(_)) => (DEFAULT_BUFFER, "the appendix's size".to_string()),
        (None, None) => (
            DEFAULT_BUFFER,
            "the appendix's size: a default, because no cache size is known".to_string(),
        ),
    }
}

/// Stride 1, the line size, and the widest stride by both walks, each with the
/// `disturbance` result of the rows it is read from.
fn stride_key_figures(exp: &mut Experiment, rows: &[Row], line: Option<u64>) {
    use ::stride::schema::{STRIDE_FIRST, STRIDE_FIRST_LINE, STRIDE_LINE_ROW, STRIDE_WIDEST};
    let at = |s: u64| rows.iter().find(|r| r.stride == s);
    if let Some(r) = at(1) {
        exp.key_figure(key::STRIDE_1, r.wrap.median, "ns");
    }
    if let Some(r) = line.and_then(at) {
        exp.key_figure(key::STRIDE_LINE, r.wrap.median, "ns");
        exp.key_figure(
            key::LINE_OVER_STRIDE_1,
            r.wrap.median / rows[0].wrap.median,
            "x",
        );
        let names = [STRIDE_FIRST, STRIDE_LINE_ROW, STRIDE_FIRST_LINE];
        exp.disturbance_pair(names, &rows[0].tally, &r.tally);
    } else if let Some(r) = at(1) {
        exp.disturbance(STRIDE_FIRST, &r.tally);
    }
    if let Some(r) = rows.last() {
        exp.key_figure(key::STRIDE_4096_WRAPPING, r.wrap.median, "ns");
        exp.key_figure(key::STRIDE_4096_FRESH_LINES, r.fresh.median, "ns");
        exp.disturbance(STRIDE_WIDEST, &r.tally);
    }
}

/// Beyond the appendix: the fresh-lines walk at the line size against 256 bytes, where the
/// prefetchers help less (multichase's default stride): a reading, a block and a key figure.
fn prefetch_part(exp: &mut Experiment, walks: &report::Walks, page: u64) {
    match prefetch::Prefetch::of(walks, page) {
        Ok(p) => {
            println!(
                "\n  prefetchers seen from the outside ({} against {} bytes, fresh lines):",
                p.line,
                prefetch::WIDE
            );
            for s in verdict::prefetch_verdict(&p) {
                exp.out.conclude(&s);
            }
            exp.out.block(&p.block());
            exp.disturbance(::stride::schema::prefetch::BLOCK, &p.tally);
            exp.key_figure(key::STRIDE_256_OVER_LINE_FRESH, p.ratio(), "x");
        }
        Err(e) => say(&format!("prefetchers from the outside: skipped: {e}"), "  "),
    }
}

/// The appendix's second half: AoS against SoA, plus the SoA sum's compute floor (the same
/// loop over an x array small enough for L1, summed repeatedly), `clean` clean rounds each.
fn layout_section(exp: &mut Experiment, line: Option<u64>, clean: usize, core: Option<usize>) {
    exp.section("4. the same data, laid out differently");
    let (aos, xs) = layout::build(ELEMENTS).unwrap_or_else(|e| measure::cli::fail("stride", &e));
    let l1 = exp
        .facts
        .cache(1)
        .and_then(|c| c.size.value)
        .unwrap_or(32 << 10);
    let small_n = ((l1 / 2) as usize / 8).clamp(256, 2048);
    layout_report::sizes(&mut exp.out, ELEMENTS, line, clean);
    println!("{}", measure::retake::line());
    // Taken again while the core's share, or (the array of structs beyond the caches) the
    // memory reference, was unsteady during it (measure::retake).
    let site = Site::over(core, layout::bytes(ELEMENTS) as u64, &exp.facts);
    let (mut t, load) =
        measure::retake::take_at(site, || timing::layouts(&aos, &xs, small_n, clean));
    t.tally = t.tally.with_load(load);
    layout_report::table(&mut exp.out, &t, line);
    exp.out.reading(&verdict::layout_verdict(&t, line));
    exp.disturbance(::stride::schema::layout::BLOCK, &t.tally);
    let (a, s) = (
        timing::LayoutTimes::summary(&t.aos),
        timing::LayoutTimes::summary(&t.soa),
    );
    exp.key_figure(key::AOS_X, a.median, "ns");
    exp.key_figure(key::SOA_X, s.median, "ns");
    exp.key_figure(key::AOS_OVER_SOA, a.median / s.median, "x");
}
