//! # false_sharing: the cost between cores
//!
//! Run with: `cargo run -p false_sharing` (about fifteen seconds on a 2-core machine; add
//! `-- --quick` for a smoke run of a second, `-- --no-pin` to let the scheduler place the
//! threads, `-- --cores N` to use at most N cores).
//!
//! What it does: the section "The cost between cores" of the appendix "The machine,
//! measured", in Rust. A cache line belongs to one core at a time when it is written, so two
//! threads writing *different* variables that sit in one line pass that line back and forth:
//! false sharing. Then values that really are shared: relaxed atomic increments and
//! increments under a mutex. Beyond the appendix, the last section measures how long a cache
//! line takes to travel between every pair of cores, three ways on one pair, and says when
//! the figure shows distant host cores rather than this machine's.
//!
//! Where to start reading: `main` below, section by section, then the functions that say
//! what each section's numbers mean. How a run is done and interleaved is in [`lab`]
//! (the threads and the cores they go to: [`measure::team`]); the tables, their `#DATA`
//! blocks and the warnings under them are printed by [`report`]; the ping-pong is [`c2c`].
//!
//! Unlike the appendix's C program, every worker thread pins itself to its own core and
//! the core it actually ran on is read back and recorded; the clock runs from a common
//! start line to the last finish, not across thread creation; the baseline is measured in
//! every round beside the variants it is compared with; rounds that fall into two groups
//! are reported as two groups; and a result "better than a perfect split" is flagged as
//! suspicious instead of printed as scaling.

mod c2c;
mod lab;
mod report;

use ::false_sharing::schema::key;
use lab::{Lab, Measured, Plan, Work, find};
use measure::cli::Opt;
use measure::disturb::{Load, Site, Tally};
use measure::fmt::grouped;
use measure::retake;
use measure::show::marked;
use measure::stats::{self, Summary};
use report::ns;
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
    exp.key_sources(::false_sharing::schema::KEY_SOURCES);
    let quick = exp.args.quick;
    let pinned = !exp.args.flag("--no-pin");
    let limit = exp.args.count_given("--cores", 1, 4096).map(|n| n as usize);
    // The main thread is deliberately NOT pinned: threads inherit their creator's affinity,
    // and a main thread pinned to one core would put every worker on that core.

    // == 0. The cores, the line, and how threads are placed.
    exp.section("0. the cores, the cache line, and where the threads run");
    let cores = measure::team::usable(None, limit);
    let line = exp.facts.line_size();
    report::setup(&mut exp.out, &cores, limit.is_some(), &line, pinned);
    if cores.len() < 2 {
        println!(
            "\n  This run may use only one core. Nothing between cores can be measured: no false\n  \
             sharing, no contention, no core-to-core latency. Stopping here."
        );
        exp.out
            .meta(::false_sharing::schema::META_FS_SKIPPED, "one core");
        exp.finish();
        return;
    }
    let plan = Plan::new(quick);
    report::plan(&plan, quick);
    let mut lab = Lab::new(&cores, pinned, plan).unwrap_or_else(|e| {
        eprintln!("false_sharing: error: no arena for the slots: {e}");
        std::process::exit(1)
    });
    let mut baselines = report::Baselines::default();
    distance_sections(&mut exp, &mut lab, line.value, &mut baselines);
    threads_section(&mut exp, &mut lab, line.value, &mut baselines);
    shared_section(&mut exp, &mut lab, &mut baselines);
    baselines.record(&mut exp.out);
    lab.record_raw(&mut exp.out);
    c2c_section(&mut exp, &cores, pinned, quick);
    exp.finish();
}

/// Measures the set `set` as `name` inside a [`Window`]: its members, and the tally of all
/// their rounds with the load around them (the share read on each core its teams use). A
/// set during which a core's share was unsteady is taken again ([`retake::take_team`]),
/// unless its own rounds met other work; only the kept take's raw rows are recorded.
fn measure_set(lab: &mut Lab, name: &str, set: &[Work]) -> (Vec<Measured>, Tally) {
    let cores = lab.cores_for(set);
    let mark = lab.raw_len();
    let alone = |m: &Vec<Measured>| !lab::tally(m).provisional();
    let (measured, load) = retake::take_team(Site::default(), &cores, alone, || {
        lab.rewind(mark);
        lab.measure(name, set)
    });
    let tally = lab::tally(&measured).with_load(team_load(load));
    (measured, tally)
}

/// Passes of a line between pinned threads on the cores `ids`, taken as a team's block
/// ([`retake::take_team`]): again while a core's share was unsteady and the passes' own
/// rounds met no other work. Returns the kept take and the tally of its `pairs`.
fn take_pairs<T>(
    ids: &[usize],
    block: impl FnMut() -> T,
    pairs: impl Fn(&T) -> &[c2c::Pair],
) -> (T, Tally) {
    let alone = |v: &T| !c2c::tally(pairs(v)).provisional();
    let (value, load) = retake::take_team(Site::default(), ids, alone, block);
    let tally = c2c::tally(pairs(&value)).with_load(team_load(load));
    (value, tally)
}

/// The load around a team's block. The main thread only waits for the workers, so its own
/// wait for a core says nothing about theirs: each worker's evidence judges its core, round
/// by round, and the load keeps only the machine-wide figures.
fn team_load(load: Load) -> Load {
    Load {
        on_core: None,
        ..load
    }
}

/// Prints a section's sentences, marked by the one rule when its rounds were disturbed, and
/// records its disturbance as `result`. Returns the sentences as printed.
fn read_out(
    exp: &mut measure::run::Experiment,
    result: &str,
    tally: &Tally,
    say: Vec<String>,
) -> Vec<String> {
    exp.disturbance(result, tally);
    let say = marked(tally, false, say);
    exp.out.how_to_read(&say);
    say
}

/// Sections 1 and 2: the baseline and two threads at growing distance, measured as one set.
fn distance_sections(
    exp: &mut measure::run::Experiment,
    lab: &mut Lab,
    line: Option<u64>,
    baselines: &mut report::Baselines,
) {
    let mut set = vec![Work::BASELINE];
    set.extend([8, 16, 32, 64, 128, 256].map(|gap| Work::Slots { threads: 2, gap }));
    let (two, tally) = measure_set(lab, "distance", &set);

    exp.section("1. the baseline: one thread incrementing its own slot");
    let b = report::baseline(&two[0]);
    let base_tally = two[0].tally().with_load(tally.load.unwrap_or_default());
    read_out(
        exp,
        "baseline/distance",
        &base_tally,
        baseline_verdict(&b, lab.plan.slot_iters),
    );
    baselines.add("distance", lab, &two[0]);
    exp.key_figure("baseline_increment", b.median, "ns");

    exp.section("2. two threads, each incrementing its own slot: only the distance changes");
    let (table, ratios) = report::distance(&two, line);
    table.warnings(&two);
    let v = false_sharing_verdict(&two, &ratios, line);
    if let Some(loss) = v.loss {
        exp.key_figure(key::SAME_LINE_VS_APART_2T, loss, "x");
    }
    if let Some(e) = v.ends {
        exp.out.meta("fs_loss_ends_bytes", e);
    }
    let mut say = v.say;
    let n = say.len();
    say.extend(v.groups);
    let say = read_out(exp, "distance", &tally, say);
    exp.out.meta("fs_verdict", say[..n].join(" "));
    exp.out.meta(
        "fs_groups_verdict",
        say.get(n)
            .map_or("one group of rounds in every row", |g| g.as_str()),
    );
    table.record(&mut exp.out);
}

/// Section 1's sentences: what one increment is, and how much the baseline moved.
fn baseline_verdict(b: &Summary, iters: u64) -> Vec<String> {
    let run_ms = b.median * iters as f64 / 1e6;
    let mut say = vec![format!(
        "each increment is a volatile load and store, so neither the compiler nor a register \
         skips the memory; one run of {} took {run_ms:.1} ms. The baseline is measured in the \
         same rounds as section 2, between its runs, so drift hits both alike.",
        grouped(iters)
    )];
    if b.max_over_min > 1.0 + SAME_WITHIN {
        say.push(format!(
            "It moved by {:.0}% between rounds: every ratio below is taken against the \
             baseline of its own round, but read them with that spread in mind.",
            (b.max_over_min - 1.0) * 100.0
        ));
    }
    say
}

/// Section 3: more threads, all slots on one line or each on its own.
fn threads_section(
    exp: &mut measure::run::Experiment,
    lab: &mut Lab,
    line: Option<u64>,
    baselines: &mut report::Baselines,
) {
    exp.section("3. more threads: slots on one line, or each slot on its own line");
    let apart = line.map_or(256, |l| (2 * l) as usize);
    let counts = [2, 4, 8];
    let mut set = vec![Work::BASELINE];
    for &n in counts.iter().filter(|&&n| n <= lab.max_threads()) {
        set.extend([8, apart].map(|gap| Work::Slots { threads: n, gap }));
    }
    let (teams, tally) = measure_set(lab, "threads", &set);
    report::layouts(apart, line, &teams[0]);
    baselines.add("threads", lab, &teams[0]);
    let table = report::threads(&teams, &counts, apart, line, lab);
    table.warnings(&teams);
    read_out(
        exp,
        "threads",
        &tally,
        layout_verdict(&teams, apart, lab.max_threads()),
    );
    table.record(&mut exp.out);
}

/// Section 4: values that really are shared, relaxed atomics and a mutex.
fn shared_section(
    exp: &mut measure::run::Experiment,
    lab: &mut Lab,
    baselines: &mut report::Baselines,
) {
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
    let (shared, tally) = measure_set(lab, "shared", &[&[Work::BASELINE][..], &fits].concat());
    baselines.add("shared", lab, &shared[0]);
    let table = report::shared(&shared, &skipped, lab);
    table.warnings(&shared);
    read_out(exp, "shared", &tally, shared_verdicts(&shared, &lab.plan));
    for w in [
        Work::Atomic { threads: 1 },
        Work::Locked { threads: 1 },
        Work::Atomic { threads: 2 },
        Work::Locked { threads: 2 },
    ] {
        if let Some(m) = find(&shared, w) {
            exp.key_figure(&w.label(), m.summary().median, "ns");
        }
    }
    table.record(&mut exp.out);
}

/// Section 5, beyond the appendix: how long a line takes from one core to another.
fn c2c_section(
    exp: &mut measure::run::Experiment,
    cores: &[measure::team::Core],
    pinned: bool,
    quick: bool,
) {
    exp.section("5. core-to-core latency: one cache line passed between two pinned threads");
    if !pinned {
        println!(
            "  skipped: --no-pin. A latency between two cores needs the two threads on those cores."
        );
        exp.out
            .meta(::false_sharing::schema::META_C2C_SKIPPED, "unpinned run");
        return;
    }
    let plan = c2c::Plan::new(quick);
    report::c2c_plan(&plan);
    let ids: Vec<usize> = cores.iter().map(|c| c.id).collect();
    let (survey, survey_tally) = take_pairs(&ids, || c2c::survey(cores, &plan), |s| &s.pairs);
    let (block, one_way) = report::c2c(&mut exp.out, cores, &plan, &survey);
    let (compared, methods_tally) = match one_way.first() {
        Some(first) => {
            let rounds = if quick { 2 } else { 3 };
            let block = || c2c::methods(first.from, first.to, &plan.for_methods(), rounds);
            take_pairs(&ids, block, |p| p.as_slice())
        }
        None => (Vec::new(), Tally::default()),
    };
    exp.disturbance("c2c_methods", &methods_tally);
    let (methods, by_method) = report::methods(&compared);
    let v = c2c_verdict(&one_way, &by_method);
    if let Some((median, far)) = v.median_far {
        exp.out
            .meta("c2c_placement", if far { "far" } else { "near" });
        exp.key_figure(key::C2C_ONE_WAY_MEDIAN, median, "ns");
    }
    exp.disturbance("c2c", &survey_tally);
    let say = marked(&survey_tally.merge(&methods_tally), false, v.say);
    exp.out.how_to_read(&say);
    exp.out.meta("c2c_verdict", &say[0]);
    exp.out.block(&block);
    exp.out.block(&methods);
}

/// Section 2's verdict and the figures it found.
#[derive(Debug, Clone, Default, PartialEq)]
struct FsVerdict {
    say: Vec<String>,
    /// The sentence about two groups of same-line rounds, where they split.
    groups: Option<String>,
    /// Same-line over separate-line cost (the key figure), where both sides were measured.
    loss: Option<f64>,
    /// The distance at which the loss ends, where it does.
    ends: Option<u64>,
}

/// Section 2's verdict, from the run's own ratios against a perfect split; and, where the
/// same-line rounds split in two groups, the sentence about both groups. A pure function of
/// the measured set: the caller marks and prints it.
fn false_sharing_verdict(
    two: &[Measured],
    ratios: &[(usize, Summary)],
    line: Option<u64>,
) -> FsVerdict {
    let Some(l) = line else {
        return FsVerdict {
            say: vec![
                "the line size is unknown, so the rows cannot be split into same-line and \
                 separate-line; read the distance at which the cost falls off the table itself."
                    .into(),
            ],
            ..FsVerdict::default()
        };
    };
    let rows = |same: bool| -> Vec<&Measured> {
        two[1..]
            .iter()
            .filter(|m| matches!(m.work, Work::Slots { gap, .. } if ((gap as u64) < l) == same))
            .collect()
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
        return FsVerdict {
            say: vec![format!(
                "every distance here is on one side of the {l}-byte line: no comparison possible."
            )],
            ..FsVerdict::default()
        };
    };
    let loss = same / apart;
    let mut say = Vec::new();
    let mut ends = None;
    if loss > 1.0 + SAME_WITHIN {
        say.push(format!(
            "false sharing: slots in one line cost {loss:.2}x slots in different lines \
             (medians of the ratios {same:.2}x vs {apart:.2}x), with not one line of code changed."
        ));
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
        say.push(match end {
            Some(e) if e == l => {
                format!("The loss ends at {e} bytes, exactly the line size this machine reports.")
            }
            Some(e) if e > l => format!(
                "The loss ends at {e} bytes, beyond the {l}-byte line: neighbouring lines are \
                 fought over too (an adjacent-line prefetcher fetches lines in pairs)."
            ),
            Some(e) => format!(
                "The loss ends at {e} bytes, before the {l}-byte line: not what coherence \
                 predicts; check the min..max columns for noise."
            ),
            None => "No distance in the table is back at the separate-line level.".into(),
        });
        ends = end;
    } else if loss < 1.0 - SAME_WITHIN {
        say.push(format!(
            "!! slots in one line came out {loss:.2}x slots in different lines: CHEAPER, which \
             coherence does not predict (the appendix saw 0.8x on a 16-core VM with unpinned \
             threads). Suspicious: check where the threads ran and rerun on a quiet machine."
        ));
    } else {
        say.push(format!(
            "no false-sharing loss visible here: one line and separate lines are within {:.0}% \
             ({loss:.2}x). That is what these conditions gave, not proof that sharing a line is \
             free: two SMT siblings share an L1, and a hypervisor may place two virtual cores \
             on one physical core.",
            SAME_WITHIN * 100.0
        ));
    }
    // Two groups of same-line rounds: report the loss of each, and whether it is always there.
    FsVerdict {
        say,
        groups: groups_sentence(&rows(true), &rows(false)),
        loss: Some(loss),
        ends,
    }
}

/// The sentence about two groups of same-line rounds (`same`), against the separate-line
/// rows (`apart`), if the same-line rounds split.
fn groups_sentence(same: &[&Measured], apart: &[&Measured]) -> Option<String> {
    let mut groups = None;
    let same_splits: Vec<stats::Split> = same.iter().filter_map(|m| m.split()).collect();
    let apart_ns: Vec<f64> = apart.iter().map(|m| m.summary().median).collect();
    if let (false, Some(apart_ns)) = (same_splits.is_empty(), stats::median(&apart_ns)) {
        let lo = stats::median(&same_splits.iter().map(|s| s.low.median).collect::<Vec<_>>());
        let hi = stats::median(
            &same_splits
                .iter()
                .map(|s| s.high.median)
                .collect::<Vec<_>>(),
        );
        let fastest_same = same
            .iter()
            .flat_map(|m| m.used())
            .fold(f64::INFINITY, f64::min);
        let slowest_apart = apart.iter().flat_map(|m| m.used()).fold(0.0, f64::max);
        let presence = fastest_same / slowest_apart;
        if let (Some(lo), Some(hi)) = (lo, hi) {
            groups = Some(format!(
                "The same-line rounds fell into two groups, which no median describes: the size \
                 of the loss depends on which group a run lands in ({:.1}x or {:.1}x a \
                 separate-line increment); {}",
                lo / apart_ns,
                hi / apart_ns,
                if presence > 1.0 + SAME_WITHIN {
                    format!(
                        "its presence does not: the fastest same-line round still cost {presence:.1}x \
                         the slowest separate-line one."
                    )
                } else {
                    format!(
                        "here even its presence is in doubt: the fastest same-line round cost \
                         {presence:.2}x the slowest separate-line one."
                    )
                }
            ));
        }
    }
    groups
}

/// Section 3's verdict: two threads on one line against two on separate lines.
fn layout_verdict(teams: &[Measured], apart: usize, max_threads: usize) -> Vec<String> {
    let two = |gap| find(teams, Work::Slots { threads: 2, gap });
    let (Some(one), Some(sep)) = (two(8), two(apart)) else {
        return Vec::new();
    };
    let f = one.summary().median / sep.summary().median;
    let mut say = vec![if f > 1.0 + SAME_WITHIN {
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
            "with two threads, one line came out {f:.2}x of separate lines: cheaper, which \
             coherence does not predict. Suspicious; rerun on a quiet machine."
        )
    } else {
        format!(
            "with two threads, one line and separate lines cost the same within {:.0}% here \
             ({f:.2}x).",
            SAME_WITHIN * 100.0
        )
    }];
    let which = match (one.split().is_some(), sep.split().is_some()) {
        (true, true) => Some("one-line and separate-line"),
        (true, false) => Some("one-line"),
        (false, true) => Some("separate-line"),
        (false, false) => None,
    };
    if let Some(which) = which {
        // Whether even the fastest one-line round lost against the slowest separate one.
        let presence = one.summary().min / sep.summary().max;
        say.push(if presence > 1.0 + SAME_WITHIN {
            format!(
                "Its {which} rounds fell into two groups (above): how large the factor is \
                 depends on which group a run lands in; that there is one does not."
            )
        } else {
            format!(
                "Its {which} rounds fell into two groups (above): how large the factor is \
                 depends on which group a run lands in, and even whether there is one: the \
                 fastest one-line round cost {presence:.2}x the slowest separate-line one."
            )
        });
    }
    say
}

/// Section 4's verdicts, from the same per-round ratios as its table.
fn shared_verdicts(set: &[Measured], plan: &Plan) -> Vec<String> {
    let vs = |w, r| {
        find(set, w)
            .zip(find(set, r))
            .map(|(a, b)| a.ratio_to(b, 1.0).median)
    };
    let (atomic, locked) = (
        |threads| Work::Atomic { threads },
        |threads| Work::Locked { threads },
    );
    let mut say = Vec::new();
    if let (Some(a1), Some(m1)) = (vs(atomic(1), Work::BASELINE), vs(locked(1), Work::BASELINE)) {
        say.push(format!(
            "uncontended, a relaxed atomic increment costs {a1:.1}x a plain one and an \
             increment under the mutex {m1:.1}x{}",
            if a1 > 1.0 + SAME_WITHIN && m1 > 1.0 + SAME_WITHIN {
                ": owning the line and keeping order cost even with no rival."
            } else {
                "; not both clearly dearer than a plain one in this run."
            }
        ));
    }
    let mut contended = Vec::new();
    for (kind, w1, w2) in [
        ("atomic", atomic(1), atomic(2)),
        ("mutex", locked(1), locked(2)),
    ] {
        let Some(f) = vs(w2, w1) else {
            continue;
        };
        contended.push((kind, f));
    }
    if !contended.is_empty() {
        let parts: Vec<String> = contended
            .iter()
            .map(|(k, f)| format!("{f:.2}x ({k})"))
            .collect();
        let dearer = contended.iter().all(|(_, f)| *f > 1.0 + SAME_WITHIN);
        let faster = contended.iter().any(|(_, f)| *f < 1.0 - SAME_WITHIN);
        say.push(format!(
            "With two threads an increment cost {} what it cost alone{}",
            parts.join(" and "),
            if dearer {
                ": the one line is owned by each core in turn."
            } else if faster {
                "; faster together than alone is what one truly shared value should not allow: \
                 suspicious."
            } else {
                "; no clear contention cost here."
            }
        ));
    }
    if let Some(f) = vs(atomic(4), atomic(2)) {
        say.push(format!(
            "Four threads cost {f:.2}x two per atomic increment: {}",
            if f < 1.0 - SAME_WITHIN {
                "more threads went faster, which a single shared value should not allow; \
                 suspicious."
            } else {
                "more threads do not help; that place is serial, not parallel."
            }
        ));
    }
    if let (Some(a), Some(m)) = (find(set, atomic(1)), find(set, locked(1))) {
        say.push(format!(
            "One uncontended run took {:.2} ms (atomic) and {:.2} ms (mutex). Hence the \
             discipline: count separately, combine once at the end.",
            a.summary().median * plan.atomic_iters as f64 / 1e6,
            m.summary().median * plan.mutex_iters as f64 / 1e6
        ));
    }
    say
}

/// A one-way latency above this, between cores of one package, is more than a line takes
/// between two cores of one chip on current parts: the vCPUs sit on distant host cores.
const FAR_ONE_WAY_NS: f64 = 100.0;

/// Whether a one-way latency of `median_ns` between cores that sysfs places in one package
/// (`one_package`) says the two vCPUs run on distant host cores: more than a line takes
/// between two cores of one chip. Across packages a long trip is expected, not a sign.
fn far_apart(median_ns: f64, one_package: bool) -> bool {
    one_package && median_ns > FAR_ONE_WAY_NS
}

/// Section 5's verdict and the figure it read.
#[derive(Debug, Clone, PartialEq)]
struct C2cVerdict {
    say: Vec<String>,
    /// The one-way median over the directions, and whether it says "distant host cores".
    median_far: Option<(f64, bool)>,
}

/// Section 5's verdict: the one-way latency over the measured directions, what it means, and
/// how the other ways of passing the line compare. A pure function of the measurements.
fn c2c_verdict(one_way: &[report::OneWay], by_method: &[(c2c::Method, Option<f64>)]) -> C2cVerdict {
    let vals: Vec<f64> = one_way.iter().map(|x| x.ns).collect();
    let Some(sum) = Summary::of(&vals) else {
        return C2cVerdict {
            say: vec!["no direction could be measured.".into()],
            median_far: None,
        };
    };
    let at = |v: f64| &one_way[vals.iter().position(|&x| x == v).expect("a value")];
    let (lo, hi) = (at(sum.min), at(sum.max));
    let one_package = one_way.iter().all(|x| x.same_package != Some(false));
    let far = far_apart(sum.median, one_package);
    let mut say = vec![if far {
        format!(
            "a line took {} one way (median of the directions): more than a line needs \
             between two cores of one chip on current parts (under {FAR_ONE_WAY_NS:.0} ns), \
             although sysfs {}. The two vCPUs were likely placed on distant \
             host cores for this run: the number is honest for this placement, which another \
             run need not get. Run again later and compare.",
            ns(sum.median),
            if one_way.iter().all(|x| x.same_package == Some(true)) {
                "reports one package"
            } else {
                "does not say for every pair whether the two share a package"
            }
        )
    } else {
        format!(
            "one cache line takes {} from one core to another (the median over the measured \
             directions; {} {} -> {}, {} {} -> {}).",
            ns(sum.median),
            ns(lo.ns),
            lo.from,
            lo.to,
            ns(hi.ns),
            hi.from,
            hi.to
        )
    }];
    say.push(if sum.max_over_min > 1.0 + 2.0 * SAME_WITHIN {
        format!(
            "The slowest direction costs {:.1}x the fastest: where a thread runs matters as \
             much as what it shares.",
            sum.max_over_min
        )
    } else {
        format!(
            "Every measured direction costs the same within {:.0}%: no near and far cores show \
             among them.",
            ((sum.max_over_min - 1.0) * 100.0).max(1.0)
        )
    });
    let median_where = |smt: bool| {
        let v: Vec<f64> = one_way
            .iter()
            .filter(|x| x.smt == Some(smt))
            .map(|x| x.ns)
            .collect();
        stats::median(&v)
    };
    if let (Some(a), Some(b)) = (median_where(true), median_where(false)) {
        say.push(format!(
            "SMT siblings (one physical core) take {}, separate cores {} ({:.1}x).",
            ns(a),
            ns(b),
            b / a
        ));
    }
    let get = |m| {
        by_method
            .iter()
            .find(|(x, _)| *x == m)
            .and_then(|(_, v)| *v)
    };
    if let (Some(cas), Some(pause), Some(plain)) = (
        get(c2c::Method::Cas),
        get(c2c::Method::LoadStorePause),
        get(c2c::Method::LoadStore),
    ) {
        let (p, n) = (pause / cas, plain / cas);
        say.push(format!(
            "Waiting on loads and then storing took {n:.2}x the compare-and-swap on the same \
             pair, {p:.2}x with pause in the spin: {}",
            if n > p * (1.0 + SAME_WITHIN / 2.0) && p > 1.0 + SAME_WITHIN / 2.0 {
                "a spinning load fetches the line shared and the store must ask for it again, \
                 and without pause the spin also runs ahead with loads that are thrown away \
                 when the line leaves."
            } else if p > 1.0 + SAME_WITHIN / 2.0 || n > 1.0 + SAME_WITHIN / 2.0 {
                "a spinning load fetches the line shared and the store must ask for it again."
            } else if p < 1.0 - SAME_WITHIN / 2.0 || n < 1.0 - SAME_WITHIN / 2.0 {
                "here a load and a store passed the line faster than the compare-and-swap."
            } else {
                "here the three ways cost about the same."
            }
        ));
    }
    C2cVerdict {
        say,
        median_far: Some((sum.median, far)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_run_on_one_package_is_called_far() {
        // The usual figure on the reference VM (29-44 ns) and its slow mode (187-208 ns).
        assert!(!far_apart(29.4, true));
        assert!(!far_apart(44.0, true));
        assert!(far_apart(187.0, true));
        assert!(far_apart(208.0, true));
        // Between two packages a long trip is what the topology says, not a placement.
        assert!(!far_apart(208.0, false));
    }

    use measure::disturb::Evidence;

    fn clean() -> Evidence {
        Evidence {
            wall_ns: 10_000_000,
            waited_ns: Some(0),
            ..Default::default()
        }
    }

    fn hit() -> Evidence {
        Evidence {
            waited_ns: Some(4_000_000),
            switches: 2,
            ..clean()
        }
    }

    fn member(work: Work, ns: &[f64], ev: &[Evidence]) -> Measured {
        Measured {
            work,
            ns: ns.to_vec(),
            seen: vec![Vec::new(); ns.len()],
            evidence: ev.to_vec(),
        }
    }

    /// The distance set: a 0.27 ns baseline, same-line rows at 1.2 ns, separate ones at
    /// 0.14 ns; round 2 of every member carries `round2` (a wild time when disturbed).
    fn distance_set(round2: Evidence) -> Vec<Measured> {
        let wild = if round2.disturbed() { 5.0 } else { 1.0 };
        let mut set = vec![member(
            Work::BASELINE,
            &[0.27, 0.27, 0.27 * wild, 0.27],
            &[clean(), clean(), round2, clean()],
        )];
        for gap in [8, 16, 32, 64, 128, 256] {
            let ns = if gap < 64 { 1.2 } else { 0.14 };
            set.push(member(
                Work::Slots { threads: 2, gap },
                &[ns, ns, ns * wild, ns],
                &[clean(), clean(), round2, clean()],
            ));
        }
        set
    }

    fn reading(set: &[Measured]) -> (Vec<String>, Option<f64>) {
        let ratios: Vec<(usize, Summary)> = set[1..]
            .iter()
            .map(|m| match m.work {
                Work::Slots { gap, .. } => (gap, m.ratio_to(&set[0], 2.0)),
                _ => unreachable!(),
            })
            .collect();
        let v = false_sharing_verdict(set, &ratios, Some(64));
        (marked(&lab::tally(set), false, v.say), v.loss)
    }

    #[test]
    fn a_quiet_set_reads_unmarked() {
        let (say, loss) = reading(&distance_set(clean()));
        assert!(
            say[0].starts_with("false sharing: slots in one line cost"),
            "{say:?}"
        );
        assert!(say.iter().all(|s| !s.contains("provisional")), "{say:?}");
        assert!((loss.unwrap() - 1.2 / 0.14).abs() < 1e-9);
    }

    #[test]
    fn a_set_with_disturbed_rounds_never_reads_unmarked_and_its_figures_are_the_clean_ones() {
        let set = distance_set(hit());
        let (say, loss) = reading(&set);
        assert!(
            say[0].starts_with("provisional: 7 of 28 rounds were disturbed; the clean rounds give"),
            "{say:?}"
        );
        // The wild disturbed round is set aside: the figure is the quiet run's.
        assert!((loss.unwrap() - 1.2 / 0.14).abs() < 1e-9);
        assert_eq!(set[0].summary().max, 0.27);
        // Section 1's baseline and section 3's sentence are marked by the same rule.
        let b = marked(
            &set[0].tally(),
            false,
            baseline_verdict(&set[0].summary(), 1000),
        );
        assert!(b[0].starts_with("provisional: 1 of 4 rounds"), "{b:?}");
        let teams = vec![set[0].clone(), set[1].clone(), set[5].clone()];
        let l = marked(&lab::tally(&teams), false, layout_verdict(&teams, 128, 2));
        assert!(l[0].starts_with("provisional:"), "{l:?}");
    }

    #[test]
    fn the_mutex_sleeping_on_its_lock_is_not_disturbance_but_a_wait_for_the_core_is() {
        let asleep = Evidence {
            off_cpu_ns: 6_000_000,
            ..clean()
        };
        let seen = |e| measure::team::Seen {
            requested: None,
            granted: false,
            start_cpu: None,
            end_cpu: None,
            cpu_share: None,
            evidence: Some(e),
        };
        let locked = Work::Locked { threads: 2 };
        assert!(!lab::round_evidence(locked, &[seen(clean()), seen(asleep)]).disturbed());
        assert!(lab::round_evidence(locked, &[seen(asleep), seen(hit())]).disturbed());
        // Any other work off its CPU that long was kept off it.
        let atomic = Work::Atomic { threads: 2 };
        assert!(lab::round_evidence(atomic, &[seen(clean()), seen(asleep)]).disturbed());
    }

    #[test]
    fn shared_and_c2c_readings_from_disturbed_rounds_are_marked() {
        let b = |e| member(Work::BASELINE, &[0.27; 3], &[e; 3]);
        let a1 = |e| member(Work::Atomic { threads: 1 }, &[6.0; 3], &[e; 3]);
        let m1 = |e| member(Work::Locked { threads: 1 }, &[12.0; 3], &[e; 3]);
        let plan = Plan::new(true);
        let quiet = vec![b(clean()), a1(clean()), m1(clean())];
        let q = marked(&lab::tally(&quiet), false, shared_verdicts(&quiet, &plan));
        assert!(q[0].starts_with("uncontended, a relaxed atomic"), "{q:?}");
        let busy = vec![b(clean()), a1(hit()), m1(clean())];
        let d = marked(&lab::tally(&busy), false, shared_verdicts(&busy, &plan));
        assert!(d[0].starts_with("provisional: 3 of 9 rounds"), "{d:?}");
        assert!(d[0].contains("stand in"), "{d:?}");

        let pair = |e: Evidence| c2c::Pair {
            method: c2c::Method::Cas,
            from: 0,
            to: 1,
            from_on: Some(0),
            to_on: Some(1),
            verified: true,
            round_trip_ns: None,
            batches: vec![60.0, 60.0, 400.0],
            evidence: vec![clean(), clean(), e],
        };
        let one_way = vec![report::OneWay {
            from: 0,
            to: 1,
            ns: 30.0,
            smt: Some(false),
            same_package: Some(true),
        }];
        let v = c2c_verdict(&one_way, &[]);
        assert_eq!(v.median_far, Some((30.0, false)));
        let calm = marked(&c2c::tally(&[pair(clean())]), false, v.say.clone());
        assert!(calm[0].starts_with("one cache line takes"), "{calm:?}");
        let shaken = pair(hit());
        assert_eq!(shaken.timed().summary().unwrap().max, 60.0);
        let m = marked(&c2c::tally(&[shaken]), false, v.say);
        assert!(m[0].starts_with("provisional: 1 of 3 rounds"), "{m:?}");
    }
}
