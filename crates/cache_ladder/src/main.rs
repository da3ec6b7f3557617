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
//! the sizes a machine reports are not always the sizes a program gets.
//!
//! Where to start reading: `main` below, which follows the appendix's section top to bottom.
//! `ladder.rs` measures one working set (the regions, the rings, the interleaved rounds),
//! `report.rs` prints the two tables and the boundaries, `knees.rs` reads the boundaries off
//! the curve.

mod knees;
mod ladder;
mod report;

use ladder::Memory;
use measure::chase::Plan;
use measure::cli::{self, Opt};
use measure::clock::CoreClock;
use measure::data::meta;
use measure::fmt::{bytes, conclude, say};
use measure::mem::{self, backing_meta};
use measure::run::Experiment;
use measure::scan::{self, TWO_PASSES};
use measure::schema::cache_ladder::key;
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
    let quick = exp.args.quick;
    let largest = exp.facts.largest_cache();
    let max = largest_working_set(&exp, largest);
    exp.pin_main_thread();

    // == 1. The caches this machine reports (the "where" column and the figure's verticals).
    exp.section("1. the caches of this machine, as reported");
    let reported = exp.facts.reported_caches();
    if reported.is_empty() {
        meta("reported_caches", "none");
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
        meta("reported_caches", r.join(", "));
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
    meta("max_kib", mem.max / 1024);

    // == 4. The ladder: every size in two passes, forward and shuffled.
    let plan = if quick {
        Plan::quick(1e6)
    } else {
        Plan::full(10e6, 40_000_000)
    };
    plan.meta();
    exp.section("4. time for one read, by working set (median of all rounds of both passes)");
    say(
        &format!(
            "{} rounds of about {} ms per size and pass (chases and sweeps in turn), each after a \
             discarded warm-up of at most {} ms; passes: {}, then {}.",
            plan.rounds,
            plan.round_ns / 1e6,
            plan.warm_cap_ns / 1_000_000,
            TWO_PASSES[0].name(),
            TWO_PASSES[1].name()
        ),
        "  ",
    );
    let scan = scan::run(&sizes, &TWO_PASSES, |&b, _| {
        ladder::measure(&mut mem, b, &plan)
    });
    let after = mem.backing_after();
    let rows: Vec<Row> = scan.points.iter().map(Row::of).collect();
    report::table(&rows, &exp, &cc);
    report::sweeps(&rows);
    println!("\n  how to read this run:");
    read_out(&rows, &mem, after, &cc, &mut exp);

    // == 5. Boundaries read from the curve.
    exp.section("5. boundaries read from the curve, beside the reported sizes");
    let mut kb = report::knees_block();
    let mut readings = Vec::new();
    for series in Series::ALL {
        if series == Series::Huge && mem.huge.is_none() {
            continue;
        }
        let r = report::boundaries(series, &rows, &reported, TOP_WITHIN, &mut kb);
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
    kb.print();
    println!("\n  how to read this run:");
    report::read_boundaries(&readings, &reported, mem.max);
    exp.finish();
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

/// The closing sentences of section 4, each computed from this run's rows; `after` is the
/// verified huge-page share of the pointer and huge regions once the scan was done.
fn read_out(
    rows: &[Row],
    mem: &Memory,
    after: ladder::Backing,
    cc: &CoreClock,
    exp: &mut Experiment,
) {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return;
    };
    let cycles = |a: f64, b: f64| {
        cc.ghz.map_or(String::new(), |g| {
            format!(" ({:.1} against {:.1} cycles)", a * g, b * g)
        })
    };
    // A sentence about a flagged size says so.
    let care = |r: &Row| if r.stable() { "" } else { " (a flagged size)" };
    let (pi, pp) = (first.index.ns.median, first.pointer.ns.median);
    conclude(&format!(
        "at {}{} the pointer chase takes {pp:.2} ns a step, the index chase {pi:.2} ns{}: {}",
        bytes(first.bytes as u64),
        care(first),
        cycles(pp, pi),
        if pi > pp * 1.05 {
            format!(
                "computing the address from an index costs {:.0}% on top of the load itself.",
                (pi / pp - 1.0) * 100.0
            )
        } else {
            "computing the address from an index costs nothing measurable here.".into()
        }
    ));
    let f = last.index.ns.median / first.index.ns.median;
    conclude(&format!(
        "{}{} is {f:.0}x slower per step than {} (index chase): the same instructions, only \
         the place the data lives differs.",
        bytes(last.bytes as u64),
        care(last),
        bytes(first.bytes as u64)
    ));
    let s = last.index.ns.median / last.seq.ns.median;
    conclude(&format!(
        "sweeping {} in order costs {:.2} ns a word ({:.2} ns vectorised), {s:.0}x less than \
         chasing it at random: {}",
        bytes(last.bytes as u64),
        last.seq.ns.median,
        last.seq_vec.ns.median,
        if s > 3.0 {
            "the machine fetches ahead when it can see the next address coming."
        } else {
            "on this run the sweep was not much faster; read the table before believing either."
        }
    ));
    if let (Some(h), Some(_)) = (last.huge, mem.huge.as_ref()) {
        // The backing must have held from before the scan to after it.
        let hb = mem.before.huge.zip(after.huge).map(|(a, b)| a.min(b));
        let pb = mem.before.pointer.zip(after.pointer).map(|(a, b)| a.max(b));
        let r = last.pointer.ns.median / h.ns.median;
        let show = |p: Option<f64>| p.map_or("unknown".into(), |p| format!("{p:.0}%"));
        let verdict = match (hb, pb) {
            (Some(hb), Some(pb)) if hb >= 90.0 && pb <= 10.0 => {
                if r > 1.1 && h.ns.max < last.pointer.ns.min {
                    format!(
                        "translation adds about {:.0} ns ({:.0}%) to every step on small pages.",
                        last.pointer.ns.median - h.ns.median,
                        (r - 1.0) * 100.0
                    )
                } else if r < 0.9 && last.pointer.ns.max < h.ns.min {
                    "huge pages were slower here, which the run cannot explain; rerun before \
                     reading it."
                        .into()
                } else if !(0.9..=1.1).contains(&r) {
                    "no clear difference in this run (the rounds overlap).".into()
                } else {
                    "no clear difference in this run (the gap is under 10%).".into()
                }
            }
            _ => "the backings are not as requested, so this is not a clean comparison.".into(),
        };
        meta("verdict_huge", verdict.trim_end_matches('.'));
        conclude(&format!(
            "at {}{}, huge pages read {:.1} ns against {:.1} ns on 4 KiB pages ({} and {} on \
             huge pages, verified before and after the scan): {verdict}",
            bytes(last.bytes as u64),
            care(last),
            h.ns.median,
            last.pointer.ns.median,
            show(hb),
            show(pb)
        ));
        exp.key_figure("largest_huge_ns", h.ns.median, "ns");
    }
    let flagged = rows.iter().filter(|r| !r.stable()).count();
    meta("flagged_sizes", format!("{flagged} of {}", rows.len()));
    if flagged > 0 {
        conclude(&format!(
            "{flagged} of {} sizes are flagged: the same working set read differently from moment \
             to moment (a cache shared with others, or other work on this machine).",
            rows.len()
        ));
    }
    exp.key_figure("first_pointer_ns", pp, "ns");
    exp.key_figure(key::FIRST_INDEX_NS, pi, "ns");
    exp.key_figure("first_pointer_cycles", cc.cycles(pp), "cycles");
    exp.key_figure(key::LARGEST_INDEX_NS, last.index.ns.median, "ns");
    exp.key_figure("largest_pointer_ns", last.pointer.ns.median, "ns");
    exp.key_figure(key::LADDER_FACTOR, f, "x");
    exp.key_figure("random_over_sequential_largest", s, "x");
    exp.key_figure(key::LARGEST_SEQ_NS, last.seq.ns.median, "ns");
    exp.key_figure("largest_seq_vec_ns", last.seq_vec.ns.median, "ns");
    for (name, b) in [
        ("index", after.index),
        ("pointer", after.pointer),
        ("huge", after.huge),
    ] {
        if name != "huge" || mem.huge.is_some() {
            meta(&format!("{name}_backing_end_pct"), backing_meta(b));
        }
    }
}
