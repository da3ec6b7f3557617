//! # env_scan: can the size of the environment change how fast code runs?
//!
//! Run with: `cargo run -p env_scan` (add `-- --quick` for a smoke run of a few seconds).
//!
//! When a process starts, the kernel writes its environment strings at the top of the stack
//! and builds everything else below them. With address-space randomisation off, a longer
//! environment therefore moves every stack variable down, in 16-byte steps, while the code
//! and the global data stay where they are. Mytkowicz et al. ("Producing Wrong Data Without
//! Doing Anything Obviously Wrong!", ASPLOS 2009) showed that such innocent details can
//! change a program's speed. This program asks the question for two small workloads, and its
//! real subject is the method: a scan in one direction measures time as much as the
//! parameter, so it scans three times (forward, backward, shuffled) and believes only what
//! every pass agrees on.
//!
//! Every measurement is a fresh child process: this binary started again with an empty
//! environment plus `PAD` of n bytes, ASLR off and pinned to one core (see `launch.rs`),
//! which measures one workload seven times and reports the median and where its stack
//! array lies (see `child.rs`). The machine is recorded before and after the scan (the core
//! clock and the busy CPUs, `machine.rs`), and `--repeat N` runs the whole scan N times
//! (`repeats.rs`).
//!
//! Start reading here: `main` runs the sections in order. The scan's mechanics are in
//! `passes.rs`, the analysis and the verdict rule in `analysis.rs`, and the tables and
//! `#DATA` blocks in `report.rs`.

mod analysis;
mod child;
mod launch;
mod machine;
mod mechanism;
mod passes;
mod repeats;
mod report;

use analysis::{Judgement, Kind, REGION_BYTES, SLOW_PCT};
use child::Workload;
use launch::Launcher;
use measure::cli::{self, Opt};
use measure::data::Block;
use measure::disturb::Tally;
use measure::fmt::{WIDTH, wrap_to};
use measure::pin;
use measure::ring;
use measure::run::Experiment;
use measure::scan::Order;
use measure::show::marked;
use passes::Scanned;
use repeats::Repeat;
use std::time::Duration;

const OPTS: &[Opt] = &[
    Opt {
        name: "--step",
        value: Some("BYTES"),
        help: "environment size step (default 16: every stack position mod 4 KiB; --quick 128)",
    },
    Opt {
        name: "--reps",
        value: Some("N"),
        help: "timed runs per child, the median is reported (default 7; --quick 3)",
    },
    Opt {
        name: "--aslr-on",
        value: None,
        help: "leave address randomisation on in the children (to see what it does)",
    },
    Opt {
        name: "--no-pin",
        value: None,
        help: "do not pin the children to one core",
    },
    Opt {
        name: "--repeat",
        value: Some("N"),
        help: "run the whole scan N times, show how the region medians move (1..10)",
    },
];

/// The most scans `--repeat` runs: a full scan takes about half a minute.
const MAX_REPEAT: u64 = 10;

/// The largest environment size scanned: 256 sizes of 16 bytes cover 4 KiB.
const MAX_PAD: usize = 4080;

/// Three passes over the sizes: forward, backward and a seeded shuffle.
const ORDERS: [Order; 3] = [
    Order::Forward,
    Order::Backward,
    Order::Shuffled(ring::DEFAULT_SEED),
];

fn main() {
    let argv = measure::cli::argv("env_scan");
    if argv.first().map(String::as_str) == Some(child::CHILD_FLAG) {
        child::main(&argv[1..]);
    }
    let mut exp = measure::start!(
        "env_scan",
        "can the size of the environment change how fast code runs?",
        OPTS
    );
    exp.key_sources(::env_scan::schema::KEY_SOURCES);
    let (step, repeat, launcher) = options(&exp);
    let window = Duration::from_millis(if exp.args.quick { 200 } else { 500 });

    // == The setup: what every child gets, and the machine before the scan.
    exp.section("the setup");
    report::setup(&mut exp.out, &launcher, repeat);
    exp.section("the machine before the scan");
    exp.core_clock();
    let busy_before = machine::busy(&mut exp, "before", window);

    // == 1. The mechanism, shown before anything is timed (mechanism.rs).
    exp.section("1. the mechanism: where a stack local lands as PAD grows");
    let checks = mechanism::demonstrate(&launcher);
    let mechanism = mechanism::report(&mut exp.out, &checks);

    // == 2. The scan: three passes, both workloads at every size, each child checked.
    let pads: Vec<usize> = (0..=MAX_PAD).step_by(step).collect();
    exp.section(&format!(
        "2. the scan: {} sizes (0..{} step {step}) x {} passes x {} workloads = {} children",
        pads.len(),
        pads.last().copied().unwrap_or(0),
        ORDERS.len(),
        Workload::ALL.len(),
        passes::children(pads.len(), ORDERS.len())
    ));
    report::plan(&mut exp.out, &ORDERS, step, pads.len(), ring::DEFAULT_SEED);
    let scanned = passes::run(&launcher, &pads, &ORDERS, (1, repeat));
    let tally = passes::Tally::of(&scanned);
    report::children(&mut exp.out, &scanned, &tally, launcher.core);
    let aslr_verified = mechanism.aslr_verified && tally.all_aslr_off();

    // == 3. Each size against the median of its pass.
    exp.section("3. each size's deviation from the median of its pass");
    let devs = scanned.deviations();
    report::deviations(&mut exp.out, &scanned, &devs);

    // == 4. Do the passes agree? Correlation of the deviations, pass against pass.
    exp.section("4. correlation of the deviations between passes (size by size)");
    report::correlations(&mut exp.out, &ORDERS, &devs);

    // == 5. Regions of 256 bytes: what a scan in one direction would have shown.
    let n_regions = MAX_PAD / REGION_BYTES + 1;
    exp.section(&format!(
        "5. median deviation (%) by region of {REGION_BYTES} bytes of padding ({n_regions} regions)"
    ));
    report::regions(&mut exp.out, &scanned, &devs, n_regions);

    // == 6. How often is one size much slower than its pass? And does each pass drift?
    exp.section(&format!(
        "6. sizes at least {SLOW_PCT:.0}% slower than their pass median, and each pass against time"
    ));
    let positions = scanned.positions();
    report::slow_and_trend(&mut exp, &scanned, &devs, &positions);

    // == 7. The verdict, from the data.
    exp.section("7. the verdict");
    caveats(&launcher, &tally, aslr_verified);
    verdicts(&mut exp, &scanned, &devs, &positions, aslr_verified);
    exp.out.conclude(
        "The rule: scan a parameter in more than one order, and believe only what every order shows.",
    );

    // == The repeats (--repeat), then the machine after the last scan.
    let mut repeats = vec![Repeat::of(&scanned, n_regions)];
    let mut scans = vec![scanned];
    for r in 2..=repeat {
        let s = passes::run(&launcher, &pads, &ORDERS, (r, repeat));
        repeats.push(Repeat::of(&s, n_regions));
        scans.push(s);
    }
    exp.section("8. the machine after the scan");
    let busy_after = machine::busy(&mut exp, "after", window);
    exp.out.conclude(&machine::compare(busy_before, busy_after));
    if repeat > 1 {
        exp.section(&format!(
            "9. repeats: the whole scan {repeat} times, and how the region medians moved"
        ));
        report::repeats(&mut exp.out, &ORDERS, &repeats);
    }
    report::raw(&mut exp.out, &scans);
    exp.key_figure(
        "stack_shift_at_pad_4096",
        mechanism.shift_at_4096.map(|s| s as f64),
        "bytes",
    );
    exp.finish();
}

/// The options: the size step, the number of scans and how the children are started. Bad
/// values end the run with one line on stderr and status 2.
fn options(exp: &Experiment) -> (usize, usize, Launcher) {
    let quick = exp.args.quick;
    let step = exp
        .args
        .count("--step", if quick { 128 } else { 16 }, 1, 4096) as usize;
    let reps = exp.args.count("--reps", if quick { 3 } else { 7 }, 1, 1000) as usize;
    let repeat = exp.args.count("--repeat", 1, 1, MAX_REPEAT) as usize;
    if step > MAX_PAD {
        cli::fail(
            "env_scan",
            &format!("--step must be at most {MAX_PAD}, not {step}"),
        );
    }
    let core = if exp.args.flag("--no-pin") {
        None
    } else {
        match pin::default_core() {
            Ok(c) => c,
            Err(e) => cli::fail("env_scan", &e),
        }
    };
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => cli::fail("env_scan", &format!("cannot find my own executable: {e}")),
    };
    let launcher = Launcher {
        exe,
        core,
        aslr_off: !exp.args.flag("--aslr-on"),
        reps,
    };
    (step, repeat, launcher)
}

/// Prints what limits every verdict below, each as a `!` line.
fn caveats(launcher: &Launcher, tally: &passes::Tally, aslr_verified: bool) {
    let asked_off = launcher.aslr_off;
    for text in caveat_sentences(asked_off, launcher.core, tally, aslr_verified) {
        println!("{}", wrap_to(&text, "  ! ", "    ", WIDTH));
    }
}

/// What limits every verdict below: randomisation not verified off (`asked_off`: whether it
/// was asked off), children not pinned to `core`. From the children's own reports, not
/// timings, so never marked provisional; empty when nothing limits them.
fn caveat_sentences(
    asked_off: bool,
    core: Option<usize>,
    tally: &passes::Tally,
    aslr_verified: bool,
) -> Vec<String> {
    let mut say = Vec::new();
    if !aslr_verified {
        say.push(format!(
            "ASLR was {} in the children: each child's stack landed where randomisation put it, \
             not where PAD put it. A size does not stand for a stack position here, so no pattern \
             by size can come from placement; agreement between passes would be a coincidence, \
             disagreement is expected.",
            if asked_off {
                "not verified off"
            } else {
                "left on (--aslr-on)"
            }
        ));
    }
    match (core, tally.all_pinned()) {
        (None, _) => say.push(
            "the children were not pinned (--no-pin or no core list): the scheduler could move \
             them, and moves between cores add to the spread of every pass."
                .into(),
        ),
        (Some(c), false) => say.push(format!(
            "{} of {} children were not held on core {c}: their times include running elsewhere \
             or moving, which adds spread that has nothing to do with the environment.",
            tally.ok - tally.pinned,
            tally.ok
        )),
        (Some(_), true) => {}
    }
    say
}

/// One workload's verdict as printed: its headline, then the judgement's reasons, passed
/// through the one rule ([`marked`]): when the children's runs were disturbed (too many of
/// them, or a child with no clean run, or other work on their core), the headline starts
/// "provisional:", so no "effect" or "no effect" stands unmarked on disturbed data.
fn verdict_sentences(j: &Judgement, aslr_verified: bool, tally: &Tally) -> Vec<String> {
    let headline = match (j.kind, aslr_verified) {
        (Kind::Effect, true) => "an effect of the environment size (the passes agree)",
        (Kind::Effect, false) => {
            "the passes agree, but with ASLR not off this cannot be the environment's placement"
        }
        (Kind::NoEffect, _) => "no effect of the environment size visible: the passes disagree",
        (Kind::Unknown, _) => "no verdict",
    };
    let mut say = vec![headline.to_string()];
    say.extend(j.lines.iter().cloned());
    marked(tally, false, say)
}

/// Section 7's verdict per workload: do all passes, whatever their order, show the same
/// pattern? Also the least pass-to-pass correlation as a key figure.
fn verdicts(
    exp: &mut Experiment,
    s: &Scanned,
    devs: &report::Devs,
    positions: &[Vec<usize>],
    aslr_verified: bool,
) {
    let mut verdict = Block::new(
        ::env_scan::schema::verdict::BLOCK,
        ::env_scan::schema::verdict::COLUMNS,
    );
    for (w, workload) in Workload::ALL.iter().enumerate() {
        let j = s.judge(&devs[w], positions);
        let tally = s.tally(w, None);
        exp.disturbance(&format!("raw/{}", workload.name()), &tally);
        let said = verdict_sentences(&j, aslr_verified, &tally);
        report::verdict(&mut exp.out, *workload, &said, j.kind, tally.provisional());
        verdict.row(vec![
            workload.name().into(),
            j.kind.name().into(),
            tally.rounds.into(),
            tally.disturbed.into(),
        ]);
        let min_r = analysis::pair_correlations(&devs[w])
            .into_iter()
            .filter_map(|(_, _, r)| r)
            .reduce(f64::min);
        exp.key_figure(
            &format!("{}_min_pass_correlation", workload.name()),
            min_r,
            "r",
        );
    }
    exp.out.block(&verdict);
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::disturb::Load;

    fn judged(kind: Kind) -> Judgement {
        Judgement {
            kind,
            lines: vec!["the passes agree (correlation +0.80 to +0.90)".into()],
        }
    }

    fn tally(rounds: usize, disturbed: usize, on_core: f64) -> Tally {
        Tally {
            rounds,
            disturbed,
            ..Default::default()
        }
        .with_load(Load {
            core: Some(1),
            on_core: Some(on_core),
            steal: Some(0.0),
            elsewhere: Some(0.0),
            ..Default::default()
        })
    }

    #[test]
    fn the_caveats_name_what_limits_the_verdicts_and_only_that() {
        let pinned = passes::Tally {
            ok: 10,
            pinned: 10,
            ..Default::default()
        };
        assert!(caveat_sentences(true, Some(1), &pinned, true).is_empty());
        let loose = passes::Tally {
            ok: 10,
            pinned: 7,
            ..Default::default()
        };
        let say = caveat_sentences(true, Some(1), &loose, false);
        assert_eq!(say.len(), 2, "{say:?}");
        assert!(say[0].starts_with("ASLR was not verified off"), "{say:?}");
        assert!(
            say[1].starts_with("3 of 10 children were not held on core 1"),
            "{say:?}"
        );
        let free = caveat_sentences(false, None, &pinned, false);
        assert!(
            free[0].starts_with("ASLR was left on (--aslr-on)"),
            "{free:?}"
        );
        assert!(
            free[1].starts_with("the children were not pinned"),
            "{free:?}"
        );
    }

    #[test]
    fn a_quiet_scan_gives_its_verdict_unmarked() {
        for kind in [Kind::Effect, Kind::NoEffect] {
            let said = verdict_sentences(&judged(kind), true, &tally(1536, 3, 0.001));
            assert!(said.iter().all(|s| !s.contains("provisional")), "{said:?}");
            assert_eq!(said.len(), 2);
        }
        let e = verdict_sentences(&judged(Kind::Effect), true, &tally(1536, 0, 0.0));
        assert!(
            e[0].starts_with("an effect of the environment size"),
            "{e:?}"
        );
    }

    #[test]
    fn a_disturbed_scan_never_gives_an_unmarked_effect_or_no_effect() {
        for kind in [Kind::Effect, Kind::NoEffect, Kind::Unknown] {
            for t in [
                tally(1536, 400, 0.0),
                tally(1536, 0, 0.5),
                Tally {
                    disturbed_used: 7,
                    ..tally(1536, 7, 0.0)
                },
            ] {
                let said = verdict_sentences(&judged(kind), true, &t);
                assert!(
                    said[0].starts_with("provisional: "),
                    "{kind:?} {t:?}: {said:?}"
                );
            }
        }
        let no = verdict_sentences(&judged(Kind::NoEffect), true, &tally(1536, 400, 0.0));
        assert!(
            no[0].contains("400 of 1536 rounds were disturbed; the clean rounds give: no effect"),
            "{no:?}"
        );
    }
}
