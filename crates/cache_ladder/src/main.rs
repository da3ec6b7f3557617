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

use knees::{Finding, Point};
use ladder::{Memory, Plan, Rounds};
use measure::cli::{self, Opt};
use measure::clock;
use measure::data::{Block, Value, meta};
use measure::facts::human_bytes;
use measure::mem::{HugeAdvice, Region};
use measure::scan::{self, DEFAULT_TOLERANCE, ScanPoint, TWO_PASSES};
use measure::stats::Summary;

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
    if let Some(phys) = physical_memory() {
        if exp.args.value("--max").is_some() && max.saturating_mul(3) > phys / 2 {
            cli::fail(
                exp.name,
                &format!(
                    "--max {} needs three regions of that size; this machine has {} of memory (keep --max under a sixth of it)",
                    human_bytes(max),
                    human_bytes(phys)
                ),
            );
        }
        while max.saturating_mul(3) > phys / 2 && max > 4096 {
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
    let (mut mem, max) = map_memory(max, page, exp.facts.thp_mode.as_deref());
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
        Plan {
            rounds: 3,
            round_ns: 1.0e6,
            warm_min_ns: 200_000,
            warm_cap_ns: 5_000_000,
        }
    } else {
        Plan {
            rounds: 5,
            round_ns: 10.0e6,
            warm_min_ns: 1_000_000,
            warm_cap_ns: 40_000_000,
        }
    };
    meta("rounds_per_pass", plan.rounds);
    meta("round_ms", plan.round_ns / 1e6);
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
    print_table(&rows, &exp, &cc);
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
    let mut kb = Block::new(
        "knees",
        &[
            "series:text",
            "kind:text",
            "from_kib",
            "to_kib",
            "ratio",
            "spread",
            "nearest:text",
            "agrees:text",
        ],
    );
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
        for f in &found {
            match *f {
                Finding::Knee {
                    from_kib,
                    to_kib,
                    ratio,
                } => {
                    let near = knees::nearest_reported(from_kib, to_kib, &reported);
                    let verdict = match near {
                        Some((n, b, true)) => format!("agrees with {n} {}", human_bytes(b)),
                        Some((n, b, false)) => format!(
                            "nearest reported is {n} {}, more than a doubling away",
                            human_bytes(b)
                        ),
                        None => "no reported size to compare with".into(),
                    };
                    println!(
                        "    knee   : {ratio:.2}x from {} to {}: a level ends between them; {verdict}",
                        human_bytes(from_kib * 1024),
                        human_bytes(to_kib * 1024)
                    );
                    if series == "pointer" {
                        last_knee = Some(from_kib);
                    }
                    kb.row(vec![
                        series.into(),
                        "knee".into(),
                        from_kib.into(),
                        to_kib.into(),
                        ratio.into(),
                        Value::Missing,
                        near.map(|(n, _, _)| n).into(),
                        near.map(|(_, _, a)| a).into(),
                    ]);
                }
                Finding::Unstable {
                    from_kib,
                    to_kib,
                    spread,
                } => {
                    let stretch = if from_kib == to_kib {
                        human_bytes(from_kib * 1024)
                    } else {
                        format!(
                            "{} .. {}",
                            human_bytes(from_kib * 1024),
                            human_bytes(to_kib * 1024)
                        )
                    };
                    println!(
                        "    unstable: {stretch}: rounds or passes spread up to {:.0}%; the same working set\n             read differently from moment to moment, so no boundary is claimed there",
                        spread * 100.0
                    );
                    kb.row(vec![
                        series.into(),
                        "unstable".into(),
                        from_kib.into(),
                        to_kib.into(),
                        Value::Missing,
                        spread.into(),
                        Value::Missing,
                        Value::Missing,
                    ]);
                }
            }
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
            println!("  {name:<15}: {}", show_pct(b));
            meta(
                &format!("{}_backing_end_pct", name.split(' ').next().unwrap_or(name)),
                show_pct_meta(b),
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

/// One chase kind at one size: all rounds summarised, and how well passes and rounds agree.
#[derive(Debug, Clone, Copy)]
struct Kind {
    ns: Summary,
    /// Disagreement of the passes' medians (max/min - 1).
    pass_spread: f64,
    /// The largest max/min - 1 of the rounds within one pass, its slowest round left out.
    round_spread: f64,
}

impl Kind {
    fn of(
        p: &ScanPoint<usize, Rounds>,
        pick: impl Fn(&Rounds) -> Option<&Vec<f64>>,
    ) -> Option<Kind> {
        let mut all = Vec::new();
        let mut round_spread: f64 = 0.0;
        for r in &p.passes {
            let v = pick(r)?;
            all.extend_from_slice(v);
            round_spread = round_spread.max(spread_but_one(v)?);
        }
        let a = p.agreement(DEFAULT_TOLERANCE, |r| {
            pick(r)
                .and_then(|v| measure::stats::median(v))
                .unwrap_or(f64::NAN)
        });
        Some(Kind {
            ns: Summary::of(&all)?,
            pass_spread: a.spread,
            round_spread,
        })
    }
    fn agree(&self) -> bool {
        self.pass_spread <= DEFAULT_TOLERANCE
    }
    fn stable(&self) -> bool {
        self.agree() && self.round_spread <= ROUND_TOLERANCE
    }
}

/// max/min - 1 of a pass's rounds with its slowest round left out (when there are three or
/// more): one round hit by an interruption is tolerated, two are not.
fn spread_but_one(v: &[f64]) -> Option<f64> {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    if s.len() >= 3 {
        s.pop();
    }
    let (lo, hi) = (*s.first()?, *s.last()?);
    (lo > 0.0).then(|| hi / lo - 1.0)
}

/// One working set, summarised.
struct Row {
    bytes: usize,
    index: Kind,
    pointer: Kind,
    huge: Option<Kind>,
    seq: Kind,
    seq_vec: Kind,
}

impl Row {
    fn of(p: &ScanPoint<usize, Rounds>) -> Row {
        let must = "every pass measures index, pointer and sweep";
        Row {
            bytes: p.param,
            index: Kind::of(p, |r| Some(&r.index)).expect(must),
            pointer: Kind::of(p, |r| Some(&r.pointer)).expect(must),
            huge: Kind::of(p, |r| r.huge.as_ref()),
            seq: Kind::of(p, |r| Some(&r.seq)).expect(must),
            seq_vec: Kind::of(p, |r| Some(&r.seq_vec)).expect(must),
        }
    }
    /// Whether the passes of every chase agree within the tolerance.
    fn agree(&self) -> bool {
        self.index.agree() && self.pointer.agree() && self.huge.is_none_or(|h| h.agree())
    }
    fn worst_pass_spread(&self) -> f64 {
        [Some(self.index), Some(self.pointer), self.huge]
            .iter()
            .flatten()
            .map(|k| k.pass_spread)
            .fold(0.0, f64::max)
    }
    fn worst_round_spread(&self) -> f64 {
        [Some(self.index), Some(self.pointer), self.huge]
            .iter()
            .flatten()
            .map(|k| k.round_spread)
            .fold(0.0, f64::max)
    }
}

/// Maps the three regions, halving the largest working set if the memory is refused.
fn map_memory(mut max: u64, page: usize, thp: Option<&str>) -> (Memory, u64) {
    loop {
        match (Region::new(max as usize), Region::new(max as usize)) {
            (Ok(mut index), Ok(mut pointer)) => {
                let show = |name: &str, r: &mut Region, advice: HugeAdvice| {
                    let asked = r.advise(advice);
                    r.touch(page);
                    let b = r.huge_backing();
                    println!(
                        "  {name:<15}: {}, {}; backed by huge pages: {}",
                        human_bytes(r.len() as u64),
                        match &asked {
                            Ok(()) => format!("{advice:?} accepted"),
                            Err(e) => format!("{advice:?} {e}"),
                        },
                        show_pct(b)
                    );
                    b
                };
                let bi = show("index region", &mut index, HugeAdvice::NoHuge);
                let bp = show("pointer region", &mut pointer, HugeAdvice::NoHuge);
                meta("index_backing_pct", show_pct_meta(bi));
                meta("pointer_backing_pct", show_pct_meta(bp));
                let huge = match Region::new(max as usize) {
                    Ok(mut h) => {
                        let b = show("huge region", &mut h, HugeAdvice::Huge);
                        meta("huge_backing_pct", show_pct_meta(b));
                        if b.is_some_and(|b| b < 90.0) {
                            println!(
                                "  ! the huge-page request was not fully honoured (THP mode {}): the huge column\n    measures what the kernel gave, with the percentage above",
                                thp.unwrap_or("unknown")
                            );
                        }
                        Some(h)
                    }
                    Err(e) => {
                        println!(
                            "  huge region    : skipped: {e}; the huge-page column stays empty"
                        );
                        meta("huge_backing_pct", "skipped");
                        None
                    }
                };
                meta("thp_mode_seen", thp.unwrap_or("unknown"));
                return (
                    Memory {
                        index,
                        pointer,
                        huge,
                    },
                    max,
                );
            }
            (Err(e), _) | (_, Err(e)) => {
                if max <= 4096 {
                    cli::fail("cache_ladder", &format!("no memory for even 4 KiB: {e}"));
                }
                println!("  ! {e}; trying half the largest working set");
                max /= 2;
            }
        }
    }
}

/// The machine's physical memory in bytes, from `sysconf`, if it says.
fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf only reads system parameters.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && size > 0).then(|| pages as u64 * size as u64)
}

fn show_pct(b: Option<f64>) -> String {
    b.map_or("unknown (/proc/self/smaps unreadable)".into(), |b| {
        format!("{b:.0}% (verified in /proc/self/smaps)")
    })
}

fn show_pct_meta(b: Option<f64>) -> String {
    b.map_or("unknown".into(), |b| format!("{b:.1}"))
}

fn size_label(bytes: usize) -> String {
    human_bytes(bytes as u64)
}

/// Prints the table and its `#DATA` block.
fn print_table(rows: &[Row], exp: &measure::run::Experiment, cc: &clock::CoreClock) {
    let cyc = |ns: f64| cc.cycles(ns).map_or("   -".into(), |c| format!("{c:5.1}"));
    println!(
        "  {:<10} {:<7} {:>18} {:>18} {:>18} {:>10} {:>10} {:>7}  passes / rounds",
        "working",
        "where",
        "index chase",
        "pointer chase",
        "huge-page pointer",
        "sequential",
        "vectorised",
        "factor",
    );
    println!(
        "  {:<10} {:<7} {:>18} {:>18} {:>18} {:>10} {:>10} {:>7}",
        "set", "", "ns (cycles)", "ns (cycles)", "ns (cycles)", "ns/word", "ns/word", "index"
    );
    let base = rows.first().map_or(f64::NAN, |r| r.index.ns.median);
    let mut block = Block::new(
        "latency",
        &[
            "kib",
            "where:text",
            "index_ns",
            "index_min_ns",
            "index_max_ns",
            "index_cycles",
            "pointer_ns",
            "pointer_min_ns",
            "pointer_max_ns",
            "pointer_cycles",
            "seq_ns",
            "seq_min_ns",
            "seq_max_ns",
            "seq_vec_ns",
            "seq_vec_min_ns",
            "seq_vec_max_ns",
            "huge_ns",
            "huge_min_ns",
            "huge_max_ns",
            "huge_cycles",
            "factor",
            "pointer_factor",
            "index_pass_spread",
            "pointer_pass_spread",
            "huge_pass_spread",
            "seq_pass_spread",
            "seq_vec_pass_spread",
            "index_round_spread",
            "pointer_round_spread",
            "huge_round_spread",
            "agree:text",
            "stable:text",
            "huge_stable:text",
        ],
    );
    let pbase = rows.first().map_or(f64::NAN, |r| r.pointer.ns.median);
    for r in rows {
        let wh = exp.facts.where_fits(r.bytes as u64);
        let huge = r.huge.map_or(format!("{:>18}", "-"), |h| {
            format!("{:>10.2} ({})", h.ns.median, cyc(h.ns.median))
        });
        let flag = if r.agree() {
            format!("ok {:>3.0}%", r.worst_pass_spread() * 100.0)
        } else {
            format!("!  {:>3.0}%", r.worst_pass_spread() * 100.0)
        };
        let rs = r.worst_round_spread();
        let rflag = if rs > ROUND_TOLERANCE {
            format!("~ {:.0}%", rs * 100.0)
        } else {
            format!("{:.0}%", rs * 100.0)
        };
        println!(
            "  {:<10} {:<7} {:>10.2} ({}) {:>10.2} ({}) {huge} {:>10.2} {:>10.2} {:>6.1}x  {flag} / {rflag}",
            size_label(r.bytes),
            wh,
            r.index.ns.median,
            cyc(r.index.ns.median),
            r.pointer.ns.median,
            cyc(r.pointer.ns.median),
            r.seq.ns.median,
            r.seq_vec.ns.median,
            r.index.ns.median / base
        );
        let hv = |f: fn(&Kind) -> f64| r.huge.map(|h| f(&h));
        block.row(vec![
            (r.bytes as u64 / 1024).into(),
            wh.into(),
            r.index.ns.median.into(),
            r.index.ns.min.into(),
            r.index.ns.max.into(),
            cc.cycles(r.index.ns.median).into(),
            r.pointer.ns.median.into(),
            r.pointer.ns.min.into(),
            r.pointer.ns.max.into(),
            cc.cycles(r.pointer.ns.median).into(),
            r.seq.ns.median.into(),
            r.seq.ns.min.into(),
            r.seq.ns.max.into(),
            r.seq_vec.ns.median.into(),
            r.seq_vec.ns.min.into(),
            r.seq_vec.ns.max.into(),
            hv(|k| k.ns.median).into(),
            hv(|k| k.ns.min).into(),
            hv(|k| k.ns.max).into(),
            r.huge.and_then(|h| cc.cycles(h.ns.median)).into(),
            (r.index.ns.median / base).into(),
            (r.pointer.ns.median / pbase).into(),
            r.index.pass_spread.into(),
            r.pointer.pass_spread.into(),
            hv(|k| k.pass_spread).into(),
            r.seq.pass_spread.into(),
            r.seq_vec.pass_spread.into(),
            r.index.round_spread.into(),
            r.pointer.round_spread.into(),
            hv(|k| k.round_spread).into(),
            r.agree().into(),
            r.pointer.stable().into(),
            r.huge.map(|h| h.stable()).into(),
        ]);
    }
    println!(
        "\n  passes: the largest disagreement of the two passes' medians over the chases; '!' marks\n  more than {:.0}% (that size is not a measurement of the size alone). rounds: the largest\n  max/min - 1 of the rounds within a pass, its slowest round left out; '~' marks more than\n  {:.0}% (unstable).",
        DEFAULT_TOLERANCE * 100.0,
        ROUND_TOLERANCE * 100.0
    );
    block.print();
}

/// The closing sentences, each computed from this run's rows.
fn read_out(rows: &[Row], mem: &Memory, cc: &clock::CoreClock, exp: &mut measure::run::Experiment) {
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
