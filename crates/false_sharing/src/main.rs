//! # false_sharing: the cost between cores
//!
//! Run with: `cargo run -p false_sharing` (about a minute on a 2-core machine; add
//! `-- --quick` for a smoke run of a few seconds, `-- --no-pin` to let the scheduler place
//! the threads, `-- --cores N` to use at most N cores).
//!
//! The section "The cost between cores" of the appendix "The machine, measured", in Rust.
//! A cache line belongs to one core at a time when it is written, so two threads writing
//! *different* variables that sit in one line pass that line back and forth: false sharing.
//! Then values that really are shared: relaxed atomic increments and increments under a
//! mutex. Beyond the appendix, the last section measures how long a cache line takes to
//! travel between every pair of cores (module [`c2c`]).
//!
//! Unlike the appendix's C program, every worker thread pins itself to its own core and
//! the core it actually ran on is read back and recorded; the clock runs from a common
//! start line to the last finish, not across thread creation; the baseline is measured in
//! every round beside the variants it is compared with; and a result "better than a perfect
//! split" is flagged as suspicious instead of printed as scaling.

mod c2c;
mod cores;
mod lab;
mod team;

use lab::{Lab, Measured, Plan, Work};
use measure::cli::Opt;
use measure::data::{Block, Value, meta};
use measure::stats::Summary;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// A multi-thread result below this share of a perfect split is not scaling but a disturbed
/// measurement, and is flagged.
const SUSPICIOUS_BELOW: f64 = 0.95;
/// Two costs closer than this share are "the same" in the verdicts.
const SAME_WITHIN: f64 = 0.10;

/// One thread's work in sections 1 to 3: `iters` increments of its own slot, each one a
/// volatile load and a volatile store, so neither the compiler nor a register can skip the
/// memory. (A plain local counter is folded into one addition: no baseline at all.)
/// Returns the slot's final value, which must equal `iters`.
///
/// # Safety
/// `slot` must be valid, aligned, and written by no other thread during the call.
#[inline(never)]
#[unsafe(no_mangle)]
pub unsafe fn false_sharing_bump(slot: *mut u64, iters: u64) -> u64 {
    for _ in 0..iters {
        // SAFETY: the caller guarantees `slot` is valid and ours alone.
        unsafe { slot.write_volatile(slot.read_volatile() + 1) };
    }
    // SAFETY: as above.
    unsafe { slot.read_volatile() }
}

/// `iters` relaxed atomic increments of one value that every thread of the team shares.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn false_sharing_atomic_bump(v: &AtomicU64, iters: u64) {
    for _ in 0..iters {
        v.fetch_add(1, Ordering::Relaxed);
    }
}

/// `iters` increments of one shared value, each under the lock.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn false_sharing_mutex_bump(m: &Mutex<u64>, iters: u64) {
    for _ in 0..iters {
        *m.lock().unwrap_or_else(|e| e.into_inner()) += 1;
    }
}

fn main() {
    let mut exp = measure::start!(
        "false_sharing",
        "the cost between cores: false sharing, atomics, a mutex, core-to-core latency",
        &[
            Opt {
                name: "--no-pin",
                value: None,
                help: "leave the threads unpinned (where each one ran is still recorded)",
            },
            Opt {
                name: "--cores",
                value: Some("N"),
                help: "use at most N of the cores this process may run on (default: all)",
            },
        ]
    );
    let quick = exp.args.quick;
    let pinned = !exp.args.flag("--no-pin");
    let limit = exp
        .args
        .value("--cores")
        .map(|_| exp.args.count("--cores", 0, 1) as usize);
    // The main thread is deliberately NOT pinned: threads inherit their creator's affinity,
    // and a main thread pinned to one core would put every worker on that core.

    // == 0. The cores, the line, and how threads are placed.
    exp.section("0. the cores, the cache line, and where the threads run");
    let cores = cores::usable(limit);
    let line = exp.facts.line_size();
    println!(
        "  cores this run may use : {} ({}){}",
        cores.len(),
        cores::list(cores.iter().map(|c| c.id)),
        if limit.is_some() {
            " (limited by --cores)"
        } else {
            ""
        }
    );
    describe_topology(&cores);
    match line.value {
        Some(l) => println!(
            "  cache line             : {l} bytes ({}) -> two slots closer than {l} bytes share a line",
            line.source.map_or("?".into(), |s| s.to_string())
        ),
        None => println!(
            "  cache line             : unknown (no source reports it): which slots share a line cannot be said"
        ),
    }
    println!(
        "  placement              : {}",
        if pinned {
            "each worker thread pins itself to its own core and reads back sched_getcpu (main thread unpinned)"
        } else {
            "--no-pin: threads go where the scheduler puts them; where each one ran is read back"
        }
    );
    meta("fs_cores", cores::list(cores.iter().map(|c| c.id)));
    meta("fs_pinning", if pinned { "pinned" } else { "unpinned" });
    meta(
        "fs_line_bytes",
        line.value.map_or("unknown".into(), |l| l.to_string()),
    );
    if cores.len() < 2 {
        println!(
            "\n  This run may use only one core. Nothing between cores can be measured: no false\n  \
             sharing, no contention, no core-to-core latency. Stopping here."
        );
        meta("fs_skipped", "one core");
        exp.finish();
        return;
    }
    let plan = Plan::new(quick);
    println!(
        "  work per run           : {} increments per thread (sections 1-2), {} (section 3),\n  \
         {:25}{} atomic, {} under the mutex; {} rounds per set, interleaved, after a warm-up",
        plan.slot_iters, plan.team_iters, "", plan.atomic_iters, plan.mutex_iters, plan.rounds
    );
    let mut lab = Lab::new(&cores, pinned, plan).unwrap_or_else(|e| {
        eprintln!("false_sharing: error: no arena for the slots: {e}");
        std::process::exit(1)
    });

    // == 1 and 2. The baseline and two threads at growing distance, measured as one set.
    let gaps = [8usize, 16, 32, 64, 128, 256];
    let mut set = vec![Work::BASELINE];
    set.extend(gaps.iter().map(|&gap| Work::Slots { threads: 2, gap }));
    let two = lab.measure("distance", &set);
    let base = &two[0];
    let b = base.summary();

    exp.section("1. the baseline: one thread incrementing its own slot");
    println!(
        "  one thread, volatile load + store each time : {} each (min {} .. max {}) over {} rounds\n  \
         core: {}",
        ns(b.median),
        ns(b.min),
        ns(b.max),
        b.n,
        base.cores_note()
    );
    println!(
        "  * measured in the same rounds as section 2, between its runs, so drift hits both alike."
    );
    if b.max_over_min > 1.0 + SAME_WITHIN {
        println!(
            "  ! the baseline moved by {:.0}% between rounds: each ratio below is taken against the\n    \
             baseline of its own round, but read them with that spread in mind.",
            (b.max_over_min - 1.0) * 100.0
        );
    }
    let mut baselines = Block::new(
        "baseline",
        &[
            "set:text",
            "rounds",
            "cores:text",
            "ns_median",
            "ns_min",
            "ns_max",
        ],
    );
    baselines.row(vec![
        "distance".into(),
        b.n.into(),
        lab.team_cores(1).into(),
        b.median.into(),
        b.min.into(),
        b.max.into(),
    ]);
    exp.key_figure("baseline_increment", b.median, "ns");

    exp.section("2. two threads, each incrementing its own slot: only the distance changes");
    println!(
        "  a perfect split of the baseline would cost {} per increment; the ratio is per round\n  \
         against that round's baseline (median, min..max)",
        ns(b.median / 2.0)
    );
    println!(
        "\n  {:>9}  {:<32} {:<24} {:<14} threads on",
        "distance", "per increment (min..max)", "vs perfect split", "line"
    );
    let mut dist = Block::new(
        "distance",
        &[
            "distance_bytes",
            "same_line:text",
            "ns_median",
            "ns_min",
            "ns_max",
            "split_ns",
            "vs_split_median",
            "vs_split_min",
            "vs_split_max",
            "suspicious:text",
            "disturbed_rounds",
            "pinned:text",
            "cores:text",
        ],
    );
    let mut flags = Vec::new();
    let mut ratios: Vec<(usize, Summary)> = Vec::new();
    for m in &two[1..] {
        let Work::Slots { gap, .. } = m.work else {
            continue;
        };
        let s = m.summary();
        let r = m.ratio_to(base, 2.0);
        let same = line.value.map(|l| (gap as u64) < l);
        let where_ = match same {
            Some(true) => "same line",
            Some(false) => "different lines",
            None => "unknown",
        };
        let suspicious = r.median < SUSPICIOUS_BELOW;
        if suspicious {
            flags.push(format!("2 threads {gap} bytes apart"));
        }
        println!(
            "  {:>7} B  {:<32} {:<24} {:<16} {}",
            gap,
            with_range(&s),
            ratio_text(&r, suspicious),
            where_,
            m.cores_note()
        );
        dist.row(vec![
            gap.into(),
            same.map_or("unknown", |v| if v { "yes" } else { "no" })
                .into(),
            s.median.into(),
            s.min.into(),
            s.max.into(),
            (b.median / 2.0).into(),
            r.median.into(),
            r.min.into(),
            r.max.into(),
            suspicious.into(),
            m.disturbed_rounds().into(),
            m.pinning().into(),
            m.cores_note().into(),
        ]);
        ratios.push((gap, r));
    }
    warn_suspicious(&flags);
    let disturbed = report_disturbed(&two);
    false_sharing_verdict(&ratios, line.value, &mut exp);
    caveat(disturbed);
    dist.print();

    // == 3. More threads: all slots on one line, or each on its own.
    exp.section("3. more threads: slots on one line, or each slot on its own line");
    let apart = line.value.map_or(256, |l| (2 * l) as usize);
    println!(
        "  one line: slots 8 bytes apart; separate: {apart} bytes apart ({}).",
        match line.value {
            Some(l) => format!("twice the {l}-byte line, so no neighbouring line is shared either"),
            None => "the line size is unknown, so the widest distance of section 2".into(),
        }
    );
    let counts = [2usize, 4, 8];
    let mut set = vec![Work::BASELINE];
    for &n in counts.iter().filter(|&&n| n <= lab.max_threads()) {
        set.push(Work::Slots { threads: n, gap: 8 });
        set.push(Work::Slots {
            threads: n,
            gap: apart,
        });
    }
    let teams = lab.measure("threads", &set);
    let tb = teams[0].summary();
    baselines.row(vec![
        "threads".into(),
        tb.n.into(),
        lab.team_cores(1).into(),
        tb.median.into(),
        tb.min.into(),
        tb.max.into(),
    ]);
    println!(
        "  baseline of this set: {} per increment (min {} .. max {})\n",
        ns(tb.median),
        ns(tb.min),
        ns(tb.max)
    );
    println!(
        "  {:>7}  {:<30} {:<30} {:>7}  threads on",
        "threads", "one line: ns (vs split)", "separate: ns (vs split)", "factor"
    );
    let mut tbl = Block::new(
        "threads",
        &[
            "threads",
            "layout:text",
            "distance_bytes",
            "lines",
            "ns_median",
            "ns_min",
            "ns_max",
            "vs_split_median",
            "vs_split_min",
            "vs_split_max",
            "suspicious:text",
            "disturbed_rounds",
            "pinned:text",
            "note:text",
        ],
    );
    let mut flags = Vec::new();
    for &n in &counts {
        let find = |gap| {
            teams
                .iter()
                .find(|m| m.work == Work::Slots { threads: n, gap })
        };
        let (Some(one), Some(sep)) = (find(8), find(apart)) else {
            let why = format!(
                "skipped: needs {n} cores, this run may use {}",
                lab.max_threads()
            );
            println!("  {n:>7}  {why}");
            for (layout, gap) in [("one_line", 8), ("separate", apart)] {
                tbl.row(vec![
                    n.into(),
                    layout.into(),
                    gap.into(),
                    lines_touched(n, gap, line.value).into(),
                    Value::Missing,
                    Value::Missing,
                    Value::Missing,
                    Value::Missing,
                    Value::Missing,
                    Value::Missing,
                    Value::Missing,
                    Value::Missing,
                    Value::Missing,
                    why.as_str().into(),
                ]);
            }
            continue;
        };
        let mut cells = Vec::new();
        for (layout, gap, m) in [("one_line", 8, one), ("separate", apart, sep)] {
            let s = m.summary();
            let r = m.ratio_to(&teams[0], n as f64);
            let suspicious = r.median < SUSPICIOUS_BELOW;
            if suspicious {
                flags.push(format!("{n} threads, {}", layout.replace('_', " ")));
            }
            cells.push(format!(
                "{} ({:.2}x{})",
                ns(s.median),
                r.median,
                if suspicious { " !!" } else { "" }
            ));
            tbl.row(vec![
                n.into(),
                layout.into(),
                gap.into(),
                lines_touched(n, gap, line.value).into(),
                s.median.into(),
                s.min.into(),
                s.max.into(),
                r.median.into(),
                r.min.into(),
                r.max.into(),
                suspicious.into(),
                m.disturbed_rounds().into(),
                m.pinning().into(),
                "measured".into(),
            ]);
        }
        let factor = one.summary().median / sep.summary().median;
        println!(
            "  {n:>7}  {:<30} {:<30} {:>6.2}x  {}",
            cells[0],
            cells[1],
            factor,
            one.cores_note()
        );
    }
    warn_suspicious(&flags);
    let disturbed = report_disturbed(&teams);
    if let (Some(one), Some(sep)) = (
        teams
            .iter()
            .find(|m| m.work == Work::Slots { threads: 2, gap: 8 }),
        teams.iter().find(|m| {
            m.work
                == Work::Slots {
                    threads: 2,
                    gap: apart,
                }
        }),
    ) {
        let f = one.summary().median / sep.summary().median;
        println!(
            "  * {}",
            if f > 1.0 + SAME_WITHIN {
                format!(
                    "with two threads, sharing a line costs {f:.2}x keeping the slots apart{}",
                    if lab.max_threads() >= 4 {
                        "; the rows above show what more threads on one line do."
                    } else {
                        "."
                    }
                )
            } else if f < 1.0 - SAME_WITHIN {
                format!(
                    "with two threads, one line came out {f:.2}x of separate lines: cheaper, which coherence does not predict. Suspicious; rerun on a quiet machine."
                )
            } else {
                format!(
                    "with two threads, one line and separate lines cost the same within {:.0}% here ({f:.2}x).",
                    SAME_WITHIN * 100.0
                )
            }
        );
    }
    caveat(disturbed);
    tbl.print();

    // == 4. Values that really are shared: relaxed atomics and a mutex.
    exp.section("4. when several threads really do change one value");
    let mut set = vec![Work::BASELINE];
    let mut skipped = Vec::new();
    for w in [
        Work::Atomic { threads: 1 },
        Work::Atomic { threads: 2 },
        Work::Atomic { threads: 4 },
        Work::Locked { threads: 1 },
        Work::Locked { threads: 2 },
    ] {
        if w.threads() <= lab.max_threads() {
            set.push(w);
        } else {
            skipped.push(w);
        }
    }
    let shared = lab.measure("shared", &set);
    shared_section(&shared, &skipped, &lab, &mut exp, &mut baselines);
    baselines.print();
    lab.print_raw();

    // == 5. Beyond the appendix: how long a line takes from one core to another.
    exp.section("5. core-to-core latency: one cache line ping-ponged between two pinned threads");
    if pinned {
        c2c_section(&cores, quick, &mut exp);
    } else {
        println!(
            "  skipped: --no-pin. A latency between two cores needs the two threads on those cores."
        );
        meta("c2c_skipped", "unpinned run");
    }
    exp.finish();
}

/// Prints what the kernel says about the cores' physical layout.
fn describe_topology(cores: &[cores::Core]) {
    let known = cores
        .iter()
        .all(|c| c.package.is_some() && c.core.is_some());
    if !known {
        println!(
            "  topology               : unknown (sysfs does not say which cores are SMT siblings)"
        );
        meta("fs_topology", "unknown");
        return;
    }
    let mut sib = Vec::new();
    for (i, a) in cores.iter().enumerate() {
        for b in &cores[i + 1..] {
            if a.smt_siblings(b) == Some(true) {
                sib.push(format!("{}+{}", a.id, b.id));
            }
        }
    }
    let mut packages: Vec<usize> = cores.iter().filter_map(|c| c.package).collect();
    packages.sort_unstable();
    packages.dedup();
    println!(
        "  topology (sysfs)       : {} package(s); SMT siblings: {}",
        packages.len(),
        if sib.is_empty() {
            "none among these cores".to_string()
        } else {
            sib.join(" ")
        }
    );
    println!(
        "  team order             : {} (one logical CPU per physical core first)",
        cores::list(cores.iter().map(|c| c.id))
    );
    meta(
        "fs_topology",
        format!(
            "packages {} smt_pairs {}",
            packages.len(),
            if sib.is_empty() {
                "none".into()
            } else {
                sib.join(",")
            }
        ),
    );
}

/// The verdict of section 2, computed from the run's own ratios.
fn false_sharing_verdict(
    ratios: &[(usize, Summary)],
    line: Option<u64>,
    exp: &mut measure::run::Experiment,
) {
    let Some(l) = line else {
        println!(
            "  * the line size is unknown, so the rows cannot be split into same-line and separate-line;\n    \
             read the distance at which the cost falls off the table itself."
        );
        return;
    };
    let med = |same: bool| {
        let v: Vec<f64> = ratios
            .iter()
            .filter(|(g, _)| ((*g as u64) < l) == same)
            .map(|(_, r)| r.median)
            .collect();
        measure::stats::median(&v)
    };
    let (Some(same), Some(apart)) = (med(true), med(false)) else {
        println!(
            "  * every distance here is on one side of the {l}-byte line: no comparison possible."
        );
        return;
    };
    let loss = same / apart;
    exp.key_figure("same_line_vs_apart_2t", loss, "x");
    if loss > 1.0 + SAME_WITHIN {
        println!(
            "  * false sharing measured: slots in one line cost {loss:.2}x slots in different lines\n    \
             (medians of the ratios {same:.2}x vs {apart:.2}x), with not one line of code changed."
        );
        // Where does the loss end? The smallest distance from which every row is back within
        // SAME_WITHIN of the widest distance's ratio.
        let far = ratios.last().map_or(apart, |r| r.1.median);
        let mut end = None;
        for (k, (g, _)) in ratios.iter().enumerate() {
            if ratios[k..]
                .iter()
                .all(|(_, r)| r.median <= far * (1.0 + SAME_WITHIN))
            {
                end = Some(*g as u64);
                break;
            }
        }
        match end {
            Some(e) if e == l => println!(
                "  * the loss ends at {e} bytes, exactly the line size this machine reports."
            ),
            Some(e) if e > l => println!(
                "  * the loss ends at {e} bytes, beyond the {l}-byte line: neighbouring lines are fought\n    \
                 over too (an adjacent-line prefetcher fetches lines in pairs on many cores)."
            ),
            Some(e) => println!(
                "  * the loss ends at {e} bytes, before the {l}-byte line: not what coherence predicts;\n    \
                 check the min..max columns for noise."
            ),
            None => println!("  * no distance in the table is back at the separate-line level."),
        }
        if let Some(e) = end {
            meta("fs_loss_ends_bytes", e);
        }
    } else if loss < 1.0 - SAME_WITHIN {
        println!(
            "  !! slots in one line came out {loss:.2}x slots in different lines: CHEAPER, which coherence\n     \
             does not predict (the appendix saw 0.8x on a 16-core VM with unpinned threads). Suspicious:\n     \
             check where the threads ran and rerun on a quiet machine."
        );
    } else {
        println!(
            "  * no false-sharing loss visible here: one line and separate lines are within {:.0}% ({loss:.2}x).\n    \
             That is what these conditions gave, not proof that sharing a line is free: two SMT siblings\n    \
             share an L1, and a hypervisor may place two virtual cores on one physical core.",
            SAME_WITHIN * 100.0
        );
    }
}

/// Section 4's table and verdicts.
fn shared_section(
    set: &[Measured],
    skipped: &[Work],
    lab: &Lab,
    exp: &mut measure::run::Experiment,
    baselines: &mut Block,
) {
    let base = &set[0];
    let b = base.summary();
    baselines.row(vec![
        "shared".into(),
        b.n.into(),
        lab.team_cores(1).into(),
        b.median.into(),
        b.min.into(),
        b.max.into(),
    ]);
    println!(
        "  {:<38} {:<30} {:>11} {:>13}  threads on",
        "", "per increment (min..max)", "x baseline", "x 1 thread"
    );
    let mut blk = Block::new(
        "shared",
        &[
            "method:text",
            "threads",
            "iters_per_thread",
            "ns_median",
            "ns_min",
            "ns_max",
            "vs_baseline",
            "vs_one_thread",
            "suspicious:text",
            "disturbed_rounds",
            "pinned:text",
            "note:text",
        ],
    );
    let one = |w: Work| set.iter().find(|m| m.work == w);
    let mut flags = Vec::new();
    let mut all: Vec<Work> = set
        .iter()
        .map(|m| m.work)
        .chain(skipped.iter().copied())
        .collect();
    all.sort_by_key(|w| {
        (
            matches!(w, Work::Locked { .. }),
            matches!(w, Work::Atomic { .. }),
            w.threads(),
        )
    });
    for w in all {
        let (method, name) = match w {
            Work::Slots { .. } => ("plain", "uncontended increment (baseline)".to_string()),
            Work::Atomic { threads } => {
                ("atomic", format!("relaxed atomic, {}", n_threads(threads)))
            }
            Work::Locked { threads } => (
                "mutex",
                format!("under std::sync::Mutex, {}", n_threads(threads)),
            ),
        };
        let Some(m) = one(w) else {
            let why = format!(
                "skipped: needs {} cores, this run may use {}",
                w.threads(),
                lab.max_threads()
            );
            println!("  {name:<38} {why}");
            blk.row(vec![
                method.into(),
                w.threads().into(),
                lab.iters(w).into(),
                Value::Missing,
                Value::Missing,
                Value::Missing,
                Value::Missing,
                Value::Missing,
                Value::Missing,
                Value::Missing,
                Value::Missing,
                why.as_str().into(),
            ]);
            continue;
        };
        let s = m.summary();
        let vs_base = m.ratio_to(base, 1.0);
        // Against the same method with one thread, split across the team: below a perfect
        // split is impossible for one value that only one core at a time can own.
        let single = match w {
            Work::Atomic { threads } if threads > 1 => one(Work::Atomic { threads: 1 }),
            Work::Locked { threads } if threads > 1 => one(Work::Locked { threads: 1 }),
            _ => None,
        };
        let vs_one = single.map(|o| m.ratio_to(o, 1.0));
        let split = single.map(|o| m.ratio_to(o, w.threads() as f64));
        let suspicious = split.is_some_and(|r| r.median < SUSPICIOUS_BELOW);
        if suspicious {
            flags.push(name.clone());
        }
        println!(
            "  {name:<38} {:<30} {:>10.1}x {:>13}  {}",
            with_range(&s),
            vs_base.median,
            vs_one.map_or("-".into(), |r| format!(
                "{:.2}x{}",
                r.median,
                if suspicious { " !!" } else { "" }
            )),
            m.cores_note()
        );
        blk.row(vec![
            method.into(),
            w.threads().into(),
            lab.iters(w).into(),
            s.median.into(),
            s.min.into(),
            s.max.into(),
            vs_base.median.into(),
            vs_one.map(|r| r.median).into(),
            suspicious.into(),
            m.disturbed_rounds().into(),
            m.pinning().into(),
            "measured".into(),
        ]);
    }
    warn_suspicious(&flags);
    let disturbed = report_disturbed(set);
    // The verdicts use the same per-round ratios as the table.
    let med = |w| one(w).map(|m| m.summary().median);
    let vs = |w, r| one(w).zip(one(r)).map(|(a, b)| a.ratio_to(b, 1.0).median);
    if let (Some(a1), Some(m1)) = (
        vs(Work::Atomic { threads: 1 }, Work::BASELINE),
        vs(Work::Locked { threads: 1 }, Work::BASELINE),
    ) {
        println!(
            "\n  * uncontended (one thread), a relaxed atomic increment costs {a1:.1}x a plain one and an\n    \
             increment under the mutex {m1:.1}x: owning the line and keeping order cost even with no rival."
        );
    }
    for w in [Work::Atomic { threads: 1 }, Work::Locked { threads: 1 }] {
        if let Some(x) = med(w) {
            exp.key_figure(&w.label(), x, "ns");
        }
    }
    for (kind, w1, w2) in [
        (
            "atomic",
            Work::Atomic { threads: 1 },
            Work::Atomic { threads: 2 },
        ),
        (
            "mutex",
            Work::Locked { threads: 1 },
            Work::Locked { threads: 2 },
        ),
    ] {
        if let (Some(f), Some(x2)) = (vs(w2, w1), med(w2)) {
            let words = if f > 1.0 + SAME_WITHIN {
                "contention made each increment dearer: the one line is owned by each core in turn"
            } else if f < 1.0 - SAME_WITHIN {
                "the two threads together went faster than one: overlap that one truly shared value should not allow"
            } else {
                "no contention cost visible here"
            };
            println!("  * {kind}: two threads cost {f:.2}x one thread per increment ({words}).");
            exp.key_figure(&w2.label(), x2, "ns");
        }
    }
    if let Some(f) = vs(Work::Atomic { threads: 4 }, Work::Atomic { threads: 2 }) {
        println!(
            "  * atomic: four threads cost {f:.2}x two threads per increment: {}",
            if f < 1.0 - SAME_WITHIN {
                "more threads went faster per increment, which a single shared value should not allow; suspicious"
            } else {
                "more threads do not help; that place is serial, not parallel"
            }
        );
    }
    caveat(disturbed);
    println!("  * hence the discipline: count separately, combine once at the end.");
    blk.print();
}

/// Section 5: the core-to-core matrix.
fn c2c_section(cores: &[cores::Core], quick: bool, exp: &mut measure::run::Experiment) {
    let plan = if quick {
        c2c::Plan {
            batches: 5,
            per_batch: 1000,
            budget_ns: 2_000_000_000,
        }
    } else {
        c2c::Plan {
            batches: 15,
            per_batch: 2000,
            budget_ns: 20_000_000_000,
        }
    };
    println!(
        "  the initiator writes a number into one line, the responder waits to see it and answers;\n  \
         a round trip is two handovers of the line, one-way is half a round trip. {} batches of\n  \
         {} round trips per direction after a warm-up batch; median and min of the batches.",
        plan.batches, plan.per_batch
    );
    let s = c2c::survey(cores, &plan);
    println!(
        "  measured {} of {} core pairs (both directions){}, in {:.2} s",
        s.visited,
        s.total,
        if s.visited < s.total {
            format!(
                ", visited in a seeded random order until the {} s budget was spent",
                plan.budget_ns / 1_000_000_000
            )
        } else {
            String::new()
        },
        s.elapsed_ns as f64 / 1e9
    );
    meta("c2c_cores", cores::list(cores.iter().map(|c| c.id)));
    meta("c2c_pairs_visited", s.visited);
    meta("c2c_pairs_total", s.total);
    meta("c2c_batches", plan.batches);
    meta("c2c_round_trips_per_batch", plan.per_batch);
    let by_id = |id: usize| cores.iter().find(|c| c.id == id).copied();
    let mut blk = Block::new(
        "c2c",
        &[
            "from",
            "to",
            "from_on",
            "to_on",
            "smt:text",
            "same_package:text",
            "round_trip_median_ns",
            "round_trip_min_ns",
            "one_way_median_ns",
            "one_way_min_ns",
            "batches",
            "note:text",
        ],
    );
    let yes_no = |v: Option<bool>| v.map_or("unknown", |b| if b { "yes" } else { "no" });
    let mut one_way: Vec<(usize, usize, f64, Option<bool>)> = Vec::new();
    for p in &s.pairs {
        let (a, b) = (by_id(p.from), by_id(p.to));
        let smt = a.zip(b).and_then(|(a, b)| a.smt_siblings(&b));
        let pkg = a.zip(b).and_then(|(a, b)| a.same_package(&b));
        let rt = p.round_trip_ns;
        if let Some(r) = rt {
            one_way.push((p.from, p.to, r.median / 2.0, smt));
        }
        blk.row(vec![
            p.from.into(),
            p.to.into(),
            p.from_on.into(),
            p.to_on.into(),
            yes_no(smt).into(),
            yes_no(pkg).into(),
            rt.map(|r| r.median).into(),
            rt.map(|r| r.min).into(),
            rt.map(|r| r.median / 2.0).into(),
            rt.map(|r| r.min / 2.0).into(),
            rt.map_or(0, |r| r.n).into(),
            if p.verified {
                "measured"
            } else {
                "not_pinned:skipped"
            }
            .into(),
        ]);
    }
    let unpinned = s.pairs.iter().filter(|p| !p.verified).count();
    if unpinned > 0 {
        println!("  ! {unpinned} direction(s) skipped: a thread was not seen on its core");
    }
    if cores.len() <= 12 {
        println!("\n  one-way latency, median (ns): rows from, columns to");
        print!("  {:>6}", "");
        for c in cores {
            print!(" {:>7}", c.id);
        }
        println!();
        for a in cores {
            print!("  {:>6}", a.id);
            for b in cores {
                let v = one_way.iter().find(|x| x.0 == a.id && x.1 == b.id).map_or(
                    if a.id == b.id {
                        "-".into()
                    } else {
                        "NA".into()
                    },
                    |x| format!("{:.1}", x.2),
                );
                print!(" {v:>7}");
            }
            println!();
        }
    }
    let vals: Vec<f64> = one_way.iter().map(|x| x.2).collect();
    if let Some(sum) = Summary::of(&vals) {
        let lo = one_way
            .iter()
            .find(|x| x.2 == sum.min)
            .expect("min is a value");
        let hi = one_way
            .iter()
            .find(|x| x.2 == sum.max)
            .expect("max is a value");
        println!(
            "\n  one-way over the measured directions: median {}, fastest {} ({} -> {}), slowest {} ({} -> {})",
            ns(sum.median),
            ns(lo.2),
            lo.0,
            lo.1,
            ns(hi.2),
            hi.0,
            hi.1
        );
        let sib: Vec<f64> = one_way
            .iter()
            .filter(|x| x.3 == Some(true))
            .map(|x| x.2)
            .collect();
        let other: Vec<f64> = one_way
            .iter()
            .filter(|x| x.3 == Some(false))
            .map(|x| x.2)
            .collect();
        if let (Some(a), Some(b)) = (measure::stats::median(&sib), measure::stats::median(&other)) {
            println!(
                "  SMT siblings (one physical core) median {}, separate cores {}: {:.1}x",
                ns(a),
                ns(b),
                b / a
            );
        }
        if sum.max_over_min > 1.0 + 2.0 * SAME_WITHIN {
            println!(
                "  * the slowest direction costs {:.1}x the fastest: where a thread runs matters as much as what it shares.",
                sum.max_over_min
            );
        } else {
            println!(
                "  * every measured direction costs the same within {:.0}%: no near and far cores show here.",
                (sum.max_over_min - 1.0) * 100.0
            );
        }
        exp.key_figure("c2c_one_way_median", sum.median, "ns");
    } else {
        println!("  no direction could be measured.");
    }
    blk.print();
}

/// Says in which rounds other work took a thread's core (its CPU time under 95% of its
/// wall time), or that none did. Returns the share of disturbed rounds over the set.
fn report_disturbed(set: &[Measured]) -> f64 {
    let (mut hit, mut all, mut rounds) = (Vec::new(), false, 0usize);
    let mut disturbed = 0usize;
    for m in set {
        let Some(d) = m.disturbed_rounds() else {
            continue;
        };
        rounds += m.ns.len();
        disturbed += d;
        if d > 0 {
            hit.push(format!("{} {d}/{}", m.work.label(), m.ns.len()));
            all |= d == m.ns.len();
        }
    }
    if hit.is_empty() {
        println!(
            "  * every spinning thread had its core to itself in every round (CPU time >= {:.0}% of wall time).",
            lab::ON_CORE * 100.0
        );
    } else {
        println!(
            "  ! other work took a core during some rounds (a thread's CPU time < {:.0}% of its wall time):\n    \
             {}.\n    {}",
            lab::ON_CORE * 100.0,
            hit.join(", "),
            if all {
                "Some rows were disturbed in EVERY round: their medians measure a shared machine, not this effect."
            } else {
                "The medians lean on the undisturbed rounds; min..max shows the damage."
            }
        );
    }
    if rounds == 0 {
        0.0
    } else {
        disturbed as f64 / rounds as f64
    }
}

/// The caveat a verdict carries when most of its rounds were disturbed.
fn caveat(disturbed: f64) {
    if disturbed > 0.5 {
        println!(
            "  ! {:.0}% of the rounds behind this verdict were disturbed by other work: treat it as\n    \
             provisional and rerun on a quiet machine.",
            disturbed * 100.0
        );
    }
}

/// Prints the flagged rows, if any.
fn warn_suspicious(flags: &[String]) {
    for f in flags {
        println!(
            "  !! {f}: BETTER than a perfect split of its one-thread reference. That is not scaling:\n     \
             the reference or this row was disturbed (a clock change, a co-tenant, threads on unequal\n     \
             cores). Suspicious: do not read this row as a result."
        );
    }
}

/// How many lines `n` slots `gap` bytes apart touch, from a line-aligned start.
fn lines_touched(n: usize, gap: usize, line: Option<u64>) -> Option<u64> {
    let l = line?;
    Some(if gap as u64 >= l {
        n as u64
    } else {
        ((n - 1) * gap) as u64 / l + 1
    })
}

fn n_threads(n: usize) -> String {
    if n == 1 {
        "1 thread".into()
    } else {
        format!("{n} threads")
    }
}

fn ns(x: f64) -> String {
    if x < 10.0 {
        format!("{x:.3} ns")
    } else if x < 100.0 {
        format!("{x:.2} ns")
    } else {
        format!("{x:.1} ns")
    }
}

fn with_range(s: &Summary) -> String {
    let short = |x: f64| ns(x).trim_end_matches(" ns").to_string();
    format!("{} ({}..{})", ns(s.median), short(s.min), short(s.max))
}

fn ratio_text(r: &Summary, suspicious: bool) -> String {
    format!(
        "{:.2}x ({:.2}..{:.2}){}",
        r.median,
        r.min,
        r.max,
        if suspicious { " !!" } else { "" }
    )
}
