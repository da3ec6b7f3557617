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
//! This file reads like the section: what each step measures, and the verdicts computed from
//! it. How a run is done and interleaved is in [`lab`] (threads: [`team`], cores: [`cores`]);
//! the tables, their `#DATA` blocks and the warnings under them are printed by [`report`].
//!
//! Unlike the appendix's C program, every worker thread pins itself to its own core and
//! the core it actually ran on is read back and recorded; the clock runs from a common
//! start line to the last finish, not across thread creation; the baseline is measured in
//! every round beside the variants it is compared with; and a result "better than a perfect
//! split" is flagged as suspicious instead of printed as scaling.

mod c2c;
mod cores;
mod lab;
mod report;
mod team;

use lab::{Lab, Measured, Plan, Work, find};
use measure::cli::Opt;
use measure::data::meta;
use measure::stats::{self, Summary};
use report::{caveat, ns};
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
        .map(|_| exp.args.count("--cores", 0, 1, 4096) as usize);
    // The main thread is deliberately NOT pinned: threads inherit their creator's affinity,
    // and a main thread pinned to one core would put every worker on that core.

    // == 0. The cores, the line, and how threads are placed.
    exp.section("0. the cores, the cache line, and where the threads run");
    let cores = cores::usable(limit);
    let line = exp.facts.line_size();
    report::setup(&cores, limit.is_some(), &line, pinned);
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
    report::plan(&plan);
    let mut lab = Lab::new(&cores, pinned, plan).unwrap_or_else(|e| {
        eprintln!("false_sharing: error: no arena for the slots: {e}");
        std::process::exit(1)
    });
    let mut baselines = report::Baselines::default();

    // == 1 and 2. The baseline and two threads at growing distance, measured as one set.
    let mut set = vec![Work::BASELINE];
    set.extend([8, 16, 32, 64, 128, 256].map(|gap| Work::Slots { threads: 2, gap }));
    let two = lab.measure("distance", &set);

    exp.section("1. the baseline: one thread incrementing its own slot");
    let b = report::baseline(&two[0]);
    if b.max_over_min > 1.0 + SAME_WITHIN {
        println!(
            "  ! the baseline moved by {:.0}% between rounds: each ratio below is taken against the\n    \
             baseline of its own round, but read them with that spread in mind.",
            (b.max_over_min - 1.0) * 100.0
        );
    }
    baselines.add("distance", &lab, &two[0]);
    exp.key_figure("baseline_increment", b.median, "ns");

    exp.section("2. two threads, each incrementing its own slot: only the distance changes");
    let (table, ratios) = report::distance(&two, line.value);
    let disturbed = table.warnings(&two);
    false_sharing_verdict(&ratios, line.value, &mut exp);
    caveat(disturbed);
    table.print();

    // == 3. More threads: all slots on one line, or each on its own.
    exp.section("3. more threads: slots on one line, or each slot on its own line");
    let apart = line.value.map_or(256, |l| (2 * l) as usize);
    report::layouts(apart, line.value);
    let counts = [2, 4, 8];
    let mut set = vec![Work::BASELINE];
    for &n in counts.iter().filter(|&&n| n <= lab.max_threads()) {
        set.extend([8, apart].map(|gap| Work::Slots { threads: n, gap }));
    }
    let teams = lab.measure("threads", &set);
    baselines.add("threads", &lab, &teams[0]);
    let table = report::threads(&teams, &counts, apart, line.value, &lab);
    let disturbed = table.warnings(&teams);
    layout_verdict(&teams, apart, lab.max_threads());
    caveat(disturbed);
    table.print();

    // == 4. Values that really are shared: relaxed atomics and a mutex.
    exp.section("4. when several threads really do change one value");
    let (fits, skipped): (Vec<Work>, Vec<Work>) = [
        Work::Atomic { threads: 1 },
        Work::Atomic { threads: 2 },
        Work::Atomic { threads: 4 },
        Work::Locked { threads: 1 },
        Work::Locked { threads: 2 },
    ]
    .into_iter()
    .partition(|w| w.threads() <= lab.max_threads());
    let shared = lab.measure("shared", &[&[Work::BASELINE][..], &fits].concat());
    baselines.add("shared", &lab, &shared[0]);
    let table = report::shared(&shared, &skipped, &lab);
    let disturbed = table.warnings(&shared);
    shared_verdicts(&shared, &mut exp);
    caveat(disturbed);
    println!("  * hence the discipline: count separately, combine once at the end.");
    table.print();
    baselines.print();
    lab.print_raw();

    // == 5. Beyond the appendix: how long a line takes from one core to another.
    exp.section("5. core-to-core latency: one cache line ping-ponged between two pinned threads");
    if pinned {
        let plan = c2c::Plan::new(quick);
        report::c2c_plan(&plan);
        let survey = c2c::survey(&cores, &plan);
        let (block, one_way) = report::c2c(&cores, &plan, &survey);
        c2c_verdict(&one_way, &mut exp);
        block.print();
    } else {
        println!(
            "  skipped: --no-pin. A latency between two cores needs the two threads on those cores."
        );
        meta("c2c_skipped", "unpinned run");
    }
    exp.finish();
}

/// Section 2's verdict, from the run's own ratios against a perfect split.
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
        stats::median(&v)
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
        let end = (0..ratios.len())
            .find(|&k| {
                ratios[k..]
                    .iter()
                    .all(|(_, r)| r.median <= far * (1.0 + SAME_WITHIN))
            })
            .map(|k| ratios[k].0 as u64);
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

/// Section 3's verdict: two threads on one line against two on separate lines.
fn layout_verdict(teams: &[Measured], apart: usize, max_threads: usize) {
    let two = |gap| find(teams, Work::Slots { threads: 2, gap });
    let (Some(one), Some(sep)) = (two(8), two(apart)) else {
        return;
    };
    let f = one.summary().median / sep.summary().median;
    let words = if f > 1.0 + SAME_WITHIN {
        format!(
            "with two threads, sharing a line costs {f:.2}x keeping the slots apart{}",
            if max_threads >= 4 {
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
    };
    println!("  * {words}");
}

/// Section 4's verdicts, from the same per-round ratios as its table.
fn shared_verdicts(set: &[Measured], exp: &mut measure::run::Experiment) {
    let vs = |w, r| {
        find(set, w)
            .zip(find(set, r))
            .map(|(a, b)| a.ratio_to(b, 1.0).median)
    };
    let (atomic, locked) = (
        |threads| Work::Atomic { threads },
        |threads| Work::Locked { threads },
    );
    if let (Some(a1), Some(m1)) = (vs(atomic(1), Work::BASELINE), vs(locked(1), Work::BASELINE)) {
        println!(
            "\n  * uncontended (one thread), a relaxed atomic increment costs {a1:.1}x a plain one and an\n    \
             increment under the mutex {m1:.1}x: owning the line and keeping order cost even with no rival."
        );
    }
    for w in [atomic(1), locked(1)] {
        if let Some(m) = find(set, w) {
            exp.key_figure(&w.label(), m.summary().median, "ns");
        }
    }
    for (kind, w1, w2) in [
        ("atomic", atomic(1), atomic(2)),
        ("mutex", locked(1), locked(2)),
    ] {
        let (Some(f), Some(m2)) = (vs(w2, w1), find(set, w2)) else {
            continue;
        };
        let words = if f > 1.0 + SAME_WITHIN {
            "contention made each increment dearer: the one line is owned by each core in turn"
        } else if f < 1.0 - SAME_WITHIN {
            "the two threads together went faster than one: overlap that one truly shared value should not allow"
        } else {
            "no contention cost visible here"
        };
        println!("  * {kind}: two threads cost {f:.2}x one thread per increment ({words}).");
        exp.key_figure(&w2.label(), m2.summary().median, "ns");
    }
    if let Some(f) = vs(atomic(4), atomic(2)) {
        println!(
            "  * atomic: four threads cost {f:.2}x two threads per increment: {}",
            if f < 1.0 - SAME_WITHIN {
                "more threads went faster per increment, which a single shared value should not allow; suspicious"
            } else {
                "more threads do not help; that place is serial, not parallel"
            }
        );
    }
}

/// Section 5's verdict: the spread of one-way latencies over the measured directions.
fn c2c_verdict(one_way: &[report::OneWay], exp: &mut measure::run::Experiment) {
    let vals: Vec<f64> = one_way.iter().map(|x| x.ns).collect();
    let Some(sum) = Summary::of(&vals) else {
        println!("  no direction could be measured.");
        return;
    };
    let lo = &one_way[vals
        .iter()
        .position(|&v| v == sum.min)
        .expect("min is a value")];
    let hi = &one_way[vals
        .iter()
        .position(|&v| v == sum.max)
        .expect("max is a value")];
    println!(
        "\n  one-way over the measured directions: median {}, fastest {} ({} -> {}), slowest {} ({} -> {})",
        ns(sum.median),
        ns(lo.ns),
        lo.from,
        lo.to,
        ns(hi.ns),
        hi.from,
        hi.to
    );
    let median_where = |smt: bool| {
        let v: Vec<f64> = one_way
            .iter()
            .filter(|x| x.smt == Some(smt))
            .map(|x| x.ns)
            .collect();
        stats::median(&v)
    };
    if let (Some(a), Some(b)) = (median_where(true), median_where(false)) {
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
}
