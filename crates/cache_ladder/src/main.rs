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

mod knees;
mod ladder;
mod report;

use knees::Point;
use ladder::Memory;
use measure::chase::Plan;
use measure::cli::{self, Opt};
use measure::clock::CoreClock;
use measure::data::meta;
use measure::facts::human_bytes;
use measure::mem::{backing_meta, room_for, show_backing};
use measure::run::Experiment;
use measure::scan::{self, DEFAULT_TOLERANCE, TWO_PASSES};
use report::{Kind, Row};

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

fn main() {
    let mut exp = measure::start!(
        "cache_ladder",
        "latency by working set: the cache ladder, read from a random pointer chase",
        OPTS
    );
    let quick = exp.args.quick;
    exp.pin_main_thread();

    // == 1. The caches this machine reports (the "where" column and the figure's verticals).
    exp.section("1. the caches of this machine, as reported");
    let reported: Vec<(String, u64)> = exp
        .facts
        .caches
        .iter()
        .filter_map(|c| c.size.value.map(|v| (c.name(), v)))
        .collect();
    if reported.is_empty() {
        println!(
            "  unknown: no source reports a cache size, so the \"where\" column shows ? and only\n  the curve can tell where the levels end."
        );
    }
    for c in exp.facts.caches.iter().filter(|c| c.size.value.is_some()) {
        println!("  {:<4} {}", c.name(), c.size.show_bytes());
        for (src, v) in c.size.disagreements() {
            println!(
                "       ! {src} says {}; the first source in order sysfs, cpuid, sysconf is used",
                human_bytes(v)
            );
        }
    }

    // The working sets: 4 KiB doubling up to the largest.
    let largest = exp.facts.largest_cache();
    let default_max = if quick {
        16 << 20
    } else {
        largest
            .map_or(MIN_DEFAULT_MAX, |l| (4 * l).next_power_of_two())
            .clamp(MIN_DEFAULT_MAX, CAP_DEFAULT_MAX)
    };
    let mut max = exp.args.size("--max", default_max);
    if max < 4096 {
        cli::fail(
            exp.name,
            "--max must be at least 4K (the smallest working set)",
        );
    }
    // Three regions of the largest working set are mapped and touched: keep them within
    // half of the physical memory, or the kernel kills the run instead of refusing the map.
    if let Err(e) = room_for(max.saturating_mul(3)) {
        if exp.args.value("--max").is_some() {
            cli::fail(
                exp.name,
                &format!(
                    "--max {} needs three regions of that size; {e} (keep --max under a sixth of it)",
                    human_bytes(max)
                ),
            );
        }
        while max > 4096 && room_for(max.saturating_mul(3)).is_err() {
            max /= 2;
            println!(
                "  note: the default largest working set is lowered to {} to fit this machine's memory",
                human_bytes(max)
            );
        }
    }
    if exp.args.value("--max").is_none()
        && !quick
        && largest.is_some_and(|l| 4 * l > CAP_DEFAULT_MAX)
    {
        println!(
            "  note: 4x the largest reported cache is over {}; the default stops there (use --max)",
            human_bytes(CAP_DEFAULT_MAX)
        );
    }

    // == 2. The clock, so nanoseconds can be shown as cycles too.
    exp.section("2. the core clock (for the cycles columns)");
    let cc = exp.core_clock();
    if let Some(r) = cc.rounds {
        println!("  rounds of the estimate: {:.2} .. {:.2} GHz", r.min, r.max);
    }

    // == 3. The memory: three regions as large as the largest working set, touched now so
    // that no round pays for first touch; the huge-page backing verified, not assumed.
    exp.section("3. the memory the rings live in");
    let page = exp.facts.page_size.unwrap_or(4096) as usize;
    let (mut mem, max) = ladder::map(max, page, exp.facts.thp_mode.as_deref());
    let mut sizes = Vec::new();
    let mut b = 4096u64;
    while b <= max {
        sizes.push(b as usize);
        b *= 2;
    }
    println!(
        "  working sets   : {} .. {} ({} sizes, doubling)",
        human_bytes(4096),
        human_bytes(*sizes.last().expect("max >= 4 KiB") as u64),
        sizes.len()
    );
    meta("max_kib", max / 1024);

    // == 4. The ladder: every size in two passes, forward and shuffled.
    let plan = if quick {
        Plan::quick(1e6)
    } else {
        Plan::full(10e6, 40_000_000)
    };
    plan.meta();
    exp.section("4. time for one read, by working set (median of all rounds of both passes)");
    println!(
        "  {} rounds of about {} ms per size and pass; each round runs index, pointer, huge, sweeps,\n  each after its own warm-up (an in-order read, then a lap or at most {} ms of chasing,\n  discarded); passes: {} then {}.\n",
        plan.rounds,
        plan.round_ns / 1e6,
        plan.warm_cap_ns / 1_000_000,
        TWO_PASSES[0].name(),
        TWO_PASSES[1].name()
    );
    let scan = scan::run(&sizes, &TWO_PASSES, |&bytes, _| {
        ladder::measure(&mut mem, bytes, &plan)
    });
    let rows: Vec<Row> = scan.points.iter().map(Row::of).collect();
    report::table(&rows, &exp, &cc);
    let has_huge = mem.huge.is_some();

    // == 5. Boundaries read from the curve.
    exp.section("5. boundaries read from the curve, beside the reported sizes");
    if reported.is_empty() {
        println!("  reported sizes : none");
    } else {
        let r: Vec<String> = reported
            .iter()
            .map(|(n, b)| format!("{n} {}", human_bytes(*b)))
            .collect();
        println!("  reported sizes : {}", r.join(", "));
    }
    let mut kb = report::knees_block();
    let mut last_knee = None;
    for (series, label, pick) in [
        (
            "pointer",
            "pointer chase, 4 KiB pages",
            (|r: &Row| Some(r.pointer)) as fn(&Row) -> Option<Kind>,
        ),
        ("huge", "pointer chase, huge pages", |r: &Row| r.huge),
    ] {
        if series == "huge" && !has_huge {
            continue;
        }
        let pts: Vec<Point> = rows
            .iter()
            .filter_map(|r| {
                let k = pick(r)?;
                Some(Point {
                    kib: r.bytes as u64 / 1024,
                    ns: k.ns.median,
                    stable: k.stable(),
                    spread: k.pass_spread.max(k.round_spread),
                })
            })
            .collect();
        println!("  {label}:");
        match knees::top_level_from(&pts, TOP_WITHIN) {
            Some(k) => {
                println!(
                    "    top    : from {} on, every stable size reads within {TOP_WITHIN}x of the largest set's\n             latency (the largest reported cache: {})",
                    human_bytes(k * 1024),
                    largest.map_or("none".into(), human_bytes)
                );
                meta(&format!("{series}_top_level_from_kib"), k);
                if series == "pointer" {
                    exp.key_figure("top_level_from", k, "KiB");
                }
            }
            None => {
                println!(
                    "    top    : the curve never rises to 3x its first stable point, or too few stable points"
                );
                meta(&format!("{series}_top_level_from_kib"), "unknown");
            }
        }
        let found = knees::find(&pts);
        if found.is_empty() {
            println!(
                "    no rise of {:.1}x or more between stable neighbours, and no unstable stretch",
                knees::MIN_RATIO
            );
        }
        let last = report::findings(series, &found, &reported, &mut kb);
        if series == "pointer" {
            last_knee = last;
        }
    }
    kb.print();
    println!(
        "  * a knee is the steepest rise of its stretch ({:.1}x or more) between two stable points:\n    passes within {:.0}% and rounds within {:.0}%. Where a knee falls moves from run to run on a shared machine.",
        knees::MIN_RATIO,
        DEFAULT_TOLERANCE * 100.0,
        ROUND_TOLERANCE * 100.0
    );

    // == 6. The backing again, after the run.
    exp.section("6. the huge-page backing after the run");
    for (name, r) in [
        ("index region", Some(&mem.index)),
        ("pointer region", Some(&mem.pointer)),
        ("huge region", mem.huge.as_ref()),
    ] {
        if let Some(r) = r {
            let b = r.huge_backing();
            println!("  {name:<15}: {}", show_backing(b));
            meta(
                &format!("{}_backing_end_pct", name.split(' ').next().unwrap_or(name)),
                backing_meta(b),
            );
        }
    }

    // == 7. What the numbers say, computed from this run.
    exp.section("7. how to read this run");
    read_out(&rows, &mem, &cc, &mut exp);
    if let Some(k) = last_knee {
        exp.key_figure("last_knee_from", k, "KiB");
    }
    exp.finish();
}

fn size_label(bytes: usize) -> String {
    human_bytes(bytes as u64)
}

/// The closing sentences, each computed from this run's rows.
fn read_out(rows: &[Row], mem: &Memory, cc: &CoreClock, exp: &mut Experiment) {
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        return;
    };
    let cc_line = |a: f64, b: f64| {
        cc.ghz.map_or(String::new(), |g| {
            format!(" ({:.1} against {:.1} cycles)", a * g, b * g)
        })
    };
    let (pi, pp) = (first.index.ns.median, first.pointer.ns.median);
    println!(
        "  1. at {} the pointer chase takes {pp:.2} ns a step, the index chase {pi:.2} ns{}:\n     {}",
        size_label(first.bytes),
        cc_line(pp, pi),
        if pi > pp * 1.05 {
            format!(
                "computing the address from an index costs {:.0}% on top of the load itself.",
                (pi / pp - 1.0) * 100.0
            )
        } else {
            "computing the address from an index costs nothing measurable here.".into()
        }
    );
    let f = last.index.ns.median / first.index.ns.median;
    println!(
        "  2. {} is {f:.0}x slower per step than {} (index chase): the same instructions, only\n     the place the data lives differs.",
        size_label(last.bytes),
        size_label(first.bytes)
    );
    let s = last.index.ns.median / last.seq.ns.median;
    println!(
        "  3. sweeping {} in order costs {:.2} ns a word (one add per word, the appendix's loop;\n     {:.2} ns vectorised), {s:.0}x less than chasing it at random: {}",
        size_label(last.bytes),
        last.seq.ns.median,
        last.seq_vec.ns.median,
        if s > 3.0 {
            "the machine\n     fetches ahead when it can see the next address coming."
        } else {
            "on this\n     run the sweep was not much faster; read the table before believing either."
        }
    );
    if let (Some(h), Some(hr)) = (last.huge, mem.huge.as_ref()) {
        let hb = hr.huge_backing().unwrap_or(0.0);
        let pb = mem.pointer.huge_backing().unwrap_or(100.0);
        let r = last.pointer.ns.median / h.ns.median;
        let clean = hb >= 90.0 && pb <= 10.0;
        println!(
            "  4. at {}, huge pages ({hb:.0}% backed) {:.1} ns against 4 KiB pages ({pb:.0}% huge) {:.1} ns: {}",
            size_label(last.bytes),
            h.ns.median,
            last.pointer.ns.median,
            if !clean {
                "the backings are not as requested, so this is not a clean comparison.".to_string()
            } else if r > 1.1 && h.ns.max < last.pointer.ns.min {
                format!(
                    "translation adds about {:.0} ns ({:.0}%) to every step on small pages.",
                    last.pointer.ns.median - h.ns.median,
                    (r - 1.0) * 100.0
                )
            } else if r < 0.9 {
                "huge pages were slower here, which the run cannot explain; rerun before reading it.".into()
            } else {
                format!(
                    "no clear difference in this run ({}).",
                    if r > 1.1 {
                        "the rounds overlap"
                    } else {
                        "the gap is under 10%"
                    }
                )
            }
        );
        exp.key_figure("largest_huge_ns", h.ns.median, "ns");
    } else {
        println!("  4. no huge-page column in this run (see section 3).");
    }
    exp.key_figure("first_pointer_ns", pp, "ns");
    exp.key_figure("first_index_ns", pi, "ns");
    exp.key_figure("first_pointer_cycles", cc.cycles(pp), "cycles");
    exp.key_figure("largest_index_ns", last.index.ns.median, "ns");
    exp.key_figure("largest_pointer_ns", last.pointer.ns.median, "ns");
    exp.key_figure("ladder_factor", f, "x");
    exp.key_figure("random_over_sequential_largest", s, "x");
    exp.key_figure("largest_seq_ns", last.seq.ns.median, "ns");
    exp.key_figure("largest_seq_vec_ns", last.seq_vec.ns.median, "ns");
}
