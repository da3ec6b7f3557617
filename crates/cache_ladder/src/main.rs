//! # cache_ladder: the memory ladder, measured
//!
//! Run with: `cargo run -p cache_ladder` (add `-- --quick` for a smoke run of a few seconds,
//! `-- --max 512M` to climb further).
//!
//! The appendix's "Measuring the memory ladder", in Rust. Link a working set into one random
//! ring (Sattolo's algorithm) so that the value just read says where to read next: the machine
//! cannot run ahead, and the time per step is the latency of wherever the working set lives.
//! Grow the working set from 4 KiB, doubling, and the latency climbs a staircase whose steps
//! are the caches. Sweep the same memory in order and the staircase nearly vanishes.
//!
//! Beyond the appendix: the same ring chased by address (one load per step, the physical
//! limit) beside the appendix's index chase; cycles beside nanoseconds; the same chase on huge
//! pages, with the backing verified; every size measured in two passes in different orders,
//! with their agreement checked; and the cache boundaries read from the curve itself, because
//! the sizes a machine reports are not always the sizes a program gets. And memory-level
//! parallelism (section 6): 1 to 16 independent chains at once in L2, L3 and memory, the loads
//! in flight and the bandwidth they imply.
//!
//! Where to start reading: `main` below, which follows the appendix's section top to bottom.
//! `ladder.rs` measures one working set (the regions, the rings, the interleaved rounds),
//! `report.rs` prints the two tables and the boundaries, `knees.rs` reads the boundaries off
//! the curve, `mlp.rs` measures the parallel chains, and `verdict.rs` turns each section's
//! result into its closing sentences (pure functions, unit-tested).

mod knees;
mod ladder;
mod mlp;
mod report;
mod verdict;

use ::cache_ladder::schema::key;
use ladder::Memory;
use measure::chase::Plan;
use measure::cli::{self, Opt};
use measure::clock::CoreClock;
use measure::disturb::Site;
use measure::disturb::{Load, Probe, Tally};
use measure::fmt::{bytes, say};
use measure::mem::{self, backing_meta};
use measure::run::Experiment;
use measure::scan::{self, TWO_PASSES};
use report::{Row, Series};

const OPTS: &[Opt] = &[Opt {
    name: "--max",
    value: Some("SIZE"),
    help: "largest working set (default: 4x the largest reported cache, at least 128M; 16M with --quick)",
}];

/// The curve "has reached the level of its largest working set" within this factor.
const TOP_WITHIN: f64 = 1.5;
/// A point whose rounds (within one pass) spread more than this is unstable.
const ROUND_TOLERANCE: f64 = 0.25;
/// The default largest working set is never smaller than this...
const MIN_DEFAULT_MAX: u64 = 128 << 20;
/// ... nor, unless asked with `--max`, larger than this (three regions of it are mapped).
const CAP_DEFAULT_MAX: u64 = 1 << 30;
/// The largest `--max` accepted at all.
const MAX_MAX: u64 = 1 << 40;

fn main() {
    let mut exp = measure::start!(
        "cache_ladder",
        "latency by working set: the cache ladder, read from a random pointer chase",
        OPTS
    );
    exp.key_sources(::cache_ladder::schema::KEY_SOURCES);
    let largest = exp.facts.largest_cache();
    let max = largest_working_set(&exp, largest);
    let core = exp.pin_main_thread().map(|p| p.requested);

    // == 1. The caches this machine reports (the "where" column and the figure's verticals).
    exp.section("1. the caches of this machine, as reported");
    let reported = exp.facts.reported_caches();
    if reported.is_empty() {
        exp.out.meta("reported_caches", "none");
        say(
            "unknown: no source reports a cache size, so the \"where\" column shows ? and only \
             the curve can tell where the levels end.",
            "  ",
        );
    } else {
        let r: Vec<String> = reported
            .iter()
            .map(|(n, b)| format!("{n} {}", bytes(*b)))
            .collect();
        println!(
            "  {} (sources above): the \"where\" column goes by these",
            r.join(", ")
        );
        exp.out.meta("reported_caches", r.join(", "));
    }
    if let Some(note) = &max.note {
        say(note, "  ");
    }

    // == 2. The clock, so nanoseconds can be shown as cycles too.
    exp.section("2. the core clock (for the cycles columns)");
    let cc = exp.core_clock();

    // == 3. The memory: three regions as large as the largest working set, touched now so
    // that no round pays for first touch; the huge-page backing verified, not assumed.
    exp.section("3. the memory the rings live in");
    let page = exp.facts.page_size.unwrap_or(4096) as usize;
    let mut mem = ladder::map(max.bytes, page, exp.facts.thp_mode.as_deref());
    exp.out.metas(mem.meta());
    let thp = exp.facts.thp_mode.as_deref().unwrap_or("unknown");
    exp.out.meta("thp_mode_seen", thp);
    let sizes: Vec<usize> = (12..)
        .map(|k| 1usize << k)
        .take_while(|&b| b as u64 <= mem.max)
        .collect();
    println!(
        "  working sets   : {} .. {} ({} sizes, doubling)",
        bytes(4096),
        bytes(*sizes.last().expect("max >= 4 KiB") as u64),
        sizes.len()
    );
    exp.out.meta("max_kib", mem.max / 1024);

    // == 4. The ladder: every size in two passes, forward and shuffled.
    let (rows, tally) = ladder_section(&mut exp, &mut mem, &sizes, &cc, core);

    // == 5. Boundaries read from the curve.
    exp.section("5. boundaries read from the curve, beside the reported sizes");
    let mut kb = report::knees_block();
    let mut readings = Vec::new();
    for series in Series::ALL {
        if series == Series::Huge && mem.huge.is_none() {
            continue;
        }
        let r = report::Boundaries::of(series, &rows, TOP_WITHIN);
        report::boundaries(&mut exp.out, series, &r, &reported, TOP_WITHIN, &mut kb);
        if series == Series::Pointer {
            if let Some(k) = r.top_from_kib {
                exp.key_figure("top_level_from", k, "KiB");
            }
            if let Some(k) = r.last_knee_kib {
                exp.key_figure("last_knee_from", k, "KiB");
            }
        }
        readings.push((series, r));
    }
    exp.out.block(&kb);
    let curve = verdict::curve_tally(&rows, &tally);
    let say = verdict::boundaries_verdict(&readings, &reported, mem.max, &curve);
    exp.out.reading(&say);
    exp.disturbance(::cache_ladder::schema::knees::BLOCK, &curve);
    let largest_set = mem.max as usize;
    drop(mem);

    // == 6. Beyond the appendix: several chains at once.
    mlp_section(&mut exp, &reported, (largest_set, largest), core);
    exp.finish();
}

/// Section 6: 1, 2, 4, 8 and 16 independent chains over a ring in L2, in L3 (half of each
/// reported size) and in memory (the ladder's largest set), with the misses in flight and
/// the bandwidth they imply.
fn mlp_section(
    exp: &mut Experiment,
    reported: &[(String, u64)],
    (largest_set, largest): (usize, Option<u64>),
    core: Option<usize>,
) {
    exp.section("6. memory-level parallelism: independent chains at once (beyond the appendix)");
    let mut sets: Vec<(String, usize)> = reported
        .iter()
        .filter(|(n, _)| n == "L2" || n == "L3")
        .map(|(n, b)| (n.clone(), (*b / 2) as usize))
        .collect();
    sets.dedup_by_key(|s| s.1);
    // Memory: beyond the largest cache by 2x (quick) or 4x, and at least the ladder's largest.
    let quick = exp.args.quick;
    let beyond = largest.map(|c| c as usize * if quick { 2 } else { 4 });
    let set = beyond.map_or(largest_set, |b| b.max(largest_set));
    match mem::guard(set as u64) {
        Ok(()) if beyond.is_some() => sets.push(("memory".into(), set)),
        Ok(()) => sets.push(("largest set".into(), set)),
        Err(e) => say(
            &format!("memory ({}): skipped: {e}", bytes(set as u64)),
            "  ",
        ),
    }
    let clean = if quick { 5 } else { 11 };
    say(
        &format!(
            "chains {:?} over one random ring per set, one slot a line, warmed by a whole lap; \
             {clean} clean rounds each of ~0.3 ms, interleaved; up to {} extra rounds / {} ms \
             when rounds are disturbed.",
            measure::chase::PARALLEL,
            mlp::EXTRA_ROUNDS,
            mlp::BUDGET_NS / 1_000_000
        ),
        "  ",
    );
    println!("{}", measure::retake::line());
    // Taken again while the core's share, or (a set beyond the caches) the memory reference,
    // was unsteady during it (measure::retake).
    let widest = sets.iter().map(|s| s.1 as u64).max().unwrap_or(0);
    let site = Site::over(core, widest, &exp.facts);
    let (measured, load) = measure::retake::take_at(site, || {
        sets.iter()
            .map(|(name, b)| (name, *b, mlp::measure_level(name, *b, clean)))
            .collect::<Vec<_>>()
    });
    let mut levels = Vec::new();
    for (name, b, level) in measured {
        match level {
            Ok(l) => levels.push(l),
            Err(e) => say(&format!("{name} ({}): skipped: {e}", bytes(b as u64)), "  "),
        }
    }
    if levels.is_empty() {
        return;
    }
    let tally = levels
        .iter()
        .flat_map(|l| &l.points)
        .fold(Tally::default(), |t, p| t.merge(&p.tally))
        .with_load(load);
    let m = mlp::Mlp { levels, tally };
    report::mlp_table(&m);
    exp.out.reading(&verdict::mlp_verdict(&m));
    exp.out.block(&m.block());
    exp.disturbance(::cache_ladder::schema::mlp::BLOCK, &m.tally);
    if let Some(mem) = m.levels.iter().find(|l| l.name == "memory") {
        let most = mem.points.last().expect("points");
        exp.key_figure("mlp_memory_in_flight", mem.in_flight(most), "loads");
        exp.key_figure("mlp_memory_implied_gbs", mlp::implied_gbs(most), "GB/s");
    }
}

/// Section 4: every size in two passes (forward, then shuffled), each round judged; prints the
/// two tables and what they say, records the key figures. Returns the rows and every round of
/// the scan counted, with the load around it.
fn ladder_section(
    exp: &mut Experiment,
    mem: &mut Memory,
    sizes: &[usize],
    cc: &CoreClock,
    core: Option<usize>,
) -> (Vec<Row>, Tally) {
    let plan = if exp.args.quick {
        Plan::quick(2.5e5)
    } else {
        Plan::full(2.5e5, 40_000_000)
    };
    exp.out.metas(plan.meta());
    exp.section("4. time for one read, by working set (median of all rounds of both passes)");
    say(
        &format!(
            "{} clean rounds of about {} ms per size and pass (the chases in turn, each round \
             after a discarded warm-up, then the sweeps, a round some laps or a piece of one); \
             {}; passes: {}, then {}.",
            plan.rounds,
            plan.round_ns / 1e6,
            plan.budget_text(),
            TWO_PASSES[0].name(),
            TWO_PASSES[1].name()
        ),
        "  ",
    );
    println!("{}", measure::retake::parts_line());
    let mut probe = Probe::new();
    let mut parts = measure::retake::Parts::new();
    let facts = &exp.facts;
    let scan = scan::run_named(
        sizes,
        &TWO_PASSES,
        |&b| bytes(b as u64),
        |&b, _| {
            // A size beyond the caches reads the memory reference too.
            let site = Site::over(core, b as u64, facts);
            let (rounds, load) = parts.take_at(site, || ladder::measure(mem, b, &plan, &mut probe));
            ladder::Rounds { load, ..rounds }
        },
    );
    let after = mem.backing_after();
    let rows: Vec<Row> = scan.points.iter().map(Row::of).collect();
    let tally = rows
        .iter()
        .fold(Tally::default(), |t, r| t.merge(&r.tally()));
    let load = tally.load.unwrap_or_default();
    report::table(&rows, exp, cc);
    report::sweeps(&rows);
    let huge = mem.huge.as_ref().map(|_| verdict::HugeCheck {
        // The backing must have held from before the scan to after it.
        huge_pct: mem.before.huge.zip(after.huge).map(|(a, b)| a.min(b)),
        pointer_pct: mem.before.pointer.zip(after.pointer).map(|(a, b)| a.max(b)),
    });
    let ladder = verdict::Ladder {
        rows: &rows,
        huge,
        ghz: cc.ghz,
        tally,
    };
    exp.out.reading(&verdict::ladder_verdict(&ladder));
    record(&ladder, mem, after, cc, load, exp);
    (rows, tally)
}

/// The largest working set and, when it is not the one asked for or the usual default, why.
struct Largest {
    bytes: u64,
    note: Option<String>,
}

/// The memory one working set of `max` bytes needs at its peak: three regions of it (each
/// mapped with 2 MiB to spare for the alignment) and the ring's permutation, one word a slot.
fn memory_needed(max: u64) -> u64 {
    3 * (max + (2 << 20)) + max
}

/// `--max`, checked against the memory this process may use (exit 2 if it does not fit), or
/// the default, lowered until it fits.
fn largest_working_set(exp: &Experiment, largest: Option<u64>) -> Largest {
    if let Some(max) = exp.args.size_given("--max", 4096, MAX_MAX) {
        if let Err(e) = mem::guard(memory_needed(max)) {
            cli::fail(
                exp.name,
                &format!(
                    "--max {} (three regions and a permutation of that size): {e}",
                    bytes(max)
                ),
            );
        }
        return Largest {
            bytes: max,
            note: None,
        };
    }
    let mut max = if exp.args.quick {
        16 << 20
    } else {
        largest
            .map_or(MIN_DEFAULT_MAX, |l| (4 * l).next_power_of_two())
            .clamp(MIN_DEFAULT_MAX, CAP_DEFAULT_MAX)
    };
    let mut note = None;
    if !exp.args.quick && largest.is_some_and(|l| 4 * l > CAP_DEFAULT_MAX) {
        note = Some(format!(
            "note: 4x the largest reported cache is over {}; the default stops there (use --max)",
            bytes(CAP_DEFAULT_MAX)
        ));
    }
    let mut why = None;
    while max > 4096
        && let Err(e) = mem::guard(memory_needed(max))
    {
        why = Some(e);
        max /= 2;
    }
    if let Some(e) = why {
        note = Some(format!(
            "note: the largest working set is lowered to {} ({e})",
            bytes(max)
        ));
    }
    Largest { bytes: max, note }
}

/// Records section 4: the huge-page verdict, the flagged sizes, the key figures (from the
/// clean rounds), each chase's and sweep's rounds in the `disturbance` block, and the backing
/// after the scan.
fn record(
    l: &verdict::Ladder,
    mem: &Memory,
    after: ladder::Backing,
    cc: &CoreClock,
    load: Load,
    exp: &mut Experiment,
) {
    let (Some(first), Some(last)) = (l.rows.first(), l.rows.last()) else {
        return;
    };
    if let (Some(h), Some(check)) = (last.huge, l.huge) {
        if let Some(v) = verdict::huge_verdict(last, check) {
            exp.out.meta("verdict_huge", v.trim_end_matches('.'));
        }
        exp.key_figure("largest_huge_ns", h.ns.median, "ns");
    }
    let flagged = l.rows.iter().filter(|r| !r.stable()).count();
    exp.out
        .meta("flagged_sizes", format!("{flagged} of {}", l.rows.len()));
    let (pi, pp) = (first.index.ns.median, first.pointer.ns.median);
    exp.key_figure("first_pointer_ns", pp, "ns");
    exp.key_figure(key::FIRST_INDEX_NS, pi, "ns");
    exp.key_figure("first_pointer_cycles", cc.cycles(pp), "cycles");
    exp.key_figure(key::LARGEST_INDEX_NS, last.index.ns.median, "ns");
    exp.key_figure("largest_pointer_ns", last.pointer.ns.median, "ns");
    exp.key_figure(key::LADDER_FACTOR, last.index.ns.median / pi, "x");
    let s = last.index.ns.median / last.seq.ns.median;
    exp.key_figure("random_over_sequential_largest", s, "x");
    exp.key_figure(key::LARGEST_SEQ_NS, last.seq.ns.median, "ns");
    exp.key_figure("largest_seq_vec_ns", last.seq_vec.ns.median, "ns");
    type Pick = fn(&Row) -> Option<report::Kind>;
    let kinds: [(&str, Pick); 5] = [
        ("index", |r| Some(r.index)),
        ("pointer", |r| Some(r.pointer)),
        ("huge", |r| r.huge),
        ("seq", |r| Some(r.seq)),
        ("seq_vec", |r| Some(r.seq_vec)),
    ];
    use ::cache_ladder::schema::{LATENCY_ENDS, LATENCY_FIRST, LATENCY_LARGEST};
    let ends = [LATENCY_FIRST, LATENCY_LARGEST, LATENCY_ENDS];
    exp.disturbance_pair(ends, &first.tally(), &last.tally());
    for (name, pick) in kinds {
        let t = l
            .rows
            .iter()
            .filter_map(pick)
            .fold(Tally::default(), |t, k| t.merge(&k.tally));
        if t.rounds > 0 {
            let block = ::cache_ladder::schema::latency::BLOCK;
            exp.disturbance(&format!("{block}/{name}"), &t.with_load(load));
        }
    }
    for (name, b) in [
        ("index", after.index),
        ("pointer", after.pointer),
        ("huge", after.huge),
    ] {
        if name != "huge" || mem.huge.is_some() {
            exp.out
                .meta(&format!("{name}_backing_end_pct"), backing_meta(b));
        }
    }
}
