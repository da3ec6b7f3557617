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
//! array lies (see `child.rs`). The analysis is in `analysis.rs`.

mod analysis;
mod child;
mod launch;
mod mechanism;

use analysis::{Pass, REGION_BYTES, SLOW_PCT};
use child::Workload;
use launch::{Launcher, Outcome};
use measure::cli::{self, Opt};
use measure::data::{Block, Value, meta};
use measure::pin;
use measure::ring;
use measure::scan::{self, Order};
use std::collections::BTreeMap;
use std::time::Instant;

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
];

/// The largest environment size scanned: 256 sizes of 16 bytes cover 4 KiB.
const MAX_PAD: usize = 4080;

/// One child's measurement during the scan, with its place in time.
struct Measured {
    seq: usize,
    result: Result<Outcome, String>,
}

fn show_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} us", ns / 1e3)
    }
}

fn show_r(r: Option<f64>) -> String {
    r.map_or("n/a".into(), |r| format!("{r:+.2}"))
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if argv.get(1).map(String::as_str) == Some(child::CHILD_FLAG) {
        child::main(&argv[2..]);
    }
    let mut exp = measure::start!(
        "env_scan",
        "can the size of the environment change how fast code runs?",
        OPTS
    );
    let quick = exp.args.quick;
    let step = exp.args.count("--step", if quick { 128 } else { 16 }, 1) as usize;
    let reps = exp.args.count("--reps", if quick { 3 } else { 7 }, 1) as usize;
    if step > MAX_PAD {
        cli::fail(
            "env_scan",
            &format!("--step must be at most {MAX_PAD}, not {step}"),
        );
    }
    let aslr_requested_off = !exp.args.flag("--aslr-on");
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
        aslr_off: aslr_requested_off,
        reps,
    };

    // == The setup.
    exp.section("the setup");
    let system_aslr = std::fs::read_to_string("/proc/sys/kernel/randomize_va_space")
        .ok()
        .map(|s| s.trim().to_string());
    println!(
        "  system ASLR    : randomize_va_space = {} (0 off, 1 stack and libraries, 2 also the heap)",
        system_aslr.as_deref().unwrap_or("unknown")
    );
    println!(
        "  children       : {} with an empty environment plus PAD; ASLR {}; {}",
        launcher.exe.display(),
        if aslr_requested_off {
            "switched off by personality(ADDR_NO_RANDOMIZE) in pre_exec"
        } else {
            "left on (--aslr-on: ADDR_NO_RANDOMIZE cleared in pre_exec)"
        },
        match core {
            Some(c) => format!("pinned to core {c} in pre_exec"),
            None => "not pinned".to_string(),
        }
    );
    println!(
        "  workloads      : copy = {} x (read {} f32 from a global array, write them to a stack array);\n                   fib = recursive fib({}) = {}",
        child::COPY_TIMES,
        child::COPY_LEN,
        child::FIB_N,
        child::FIB_VALUE
    );
    println!(
        "  per child      : one discarded warm-up run, then {reps} timed runs; the median is reported"
    );
    println!("  this process   : not pinned; it only starts the children and waits for each");
    meta(
        "system_randomize_va_space",
        system_aslr.as_deref().unwrap_or("unknown"),
    );
    meta(
        "aslr_off_requested",
        if aslr_requested_off { "yes" } else { "no" },
    );
    meta(
        "child_core",
        core.map_or("none".to_string(), |c| c.to_string()),
    );
    meta("reps_per_child", reps);
    meta("copy_times", child::COPY_TIMES);
    meta("copy_floats", child::COPY_LEN);
    meta("fib_n", child::FIB_N);

    // == 1. The mechanism, shown before anything is timed (mechanism.rs).
    exp.section("1. the mechanism: where a stack local lands as PAD grows");
    let mechanism = mechanism::demonstrate(&launcher);
    let mech_aslr_verified = mechanism.aslr_verified;

    // == 2. The scan: three passes, both workloads at every size.
    let pads: Vec<usize> = (0..=MAX_PAD).step_by(step).collect();
    let orders = [
        Order::Forward,
        Order::Backward,
        Order::Shuffled(ring::DEFAULT_SEED),
    ];
    let total = pads.len() * orders.len() * Workload::ALL.len();
    exp.section(&format!(
        "2. the scan: {} sizes (0..{} step {step}) x {} passes x {} workloads = {total} children",
        pads.len(),
        pads.last().copied().unwrap_or(0),
        orders.len(),
        Workload::ALL.len()
    ));
    println!(
        "  pass order     : {} (shuffle seed {:#x})",
        orders
            .iter()
            .map(Order::name)
            .collect::<Vec<_>>()
            .join(", "),
        ring::DEFAULT_SEED
    );
    meta("step_bytes", step);
    meta("sizes", pads.len());
    meta("shuffle_seed", ring::DEFAULT_SEED);
    meta(
        "passes",
        orders.iter().map(Order::name).collect::<Vec<_>>().join(","),
    );
    let t_scan = Instant::now();
    let mut seq = 0usize;
    let mut done_in_pass = 0usize;
    let mut last_pass = usize::MAX;
    let result = scan::run(&pads, &orders, |&pad, pass| {
        if pass != last_pass {
            last_pass = pass;
            done_in_pass = 0;
        }
        let cell: Vec<Measured> = Workload::ALL
            .iter()
            .map(|&w| {
                let m = Measured {
                    seq,
                    result: launcher.run(w, pad),
                };
                seq += 1;
                m
            })
            .collect();
        done_in_pass += 1;
        if done_in_pass.is_multiple_of(32) || done_in_pass == pads.len() {
            eprintln!(
                "env_scan: pass {}/{} ({}): {done_in_pass}/{} sizes, {seq}/{total} children, {:.1} s",
                pass + 1,
                orders.len(),
                orders[pass].name(),
                pads.len(),
                t_scan.elapsed().as_secs_f64()
            );
        }
        cell
    });
    let scan_s = t_scan.elapsed().as_secs_f64();

    // What the children report about themselves.
    let mut failures = Vec::new();
    let mut said: BTreeMap<String, usize> = BTreeMap::new();
    let (mut n_ok, mut n_aslr_off, mut n_pinned, mut n_env_ok) = (0, 0, 0, 0);
    let mut raw = Block::new(
        "raw",
        &[
            "seq",
            "pass",
            "order:text",
            "pad_bytes",
            "workload:text",
            "median_ns",
            "min_ns",
            "max_ns",
            "stack_addr",
            "stack_mod_4k",
            "stack_minus_global_mod_4k",
            "aslr_off:text",
            "pinned:text",
            "cpu",
        ],
    );
    let mut rows: Vec<(usize, Vec<Value>)> = Vec::new();
    // times[w][pass][size] and addresses[w][size] = the addresses seen over the passes.
    let mut times = vec![vec![vec![None; pads.len()]; orders.len()]; Workload::ALL.len()];
    let mut addrs: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); pads.len()]; Workload::ALL.len()];
    for (i, pt) in result.points.iter().enumerate() {
        for (pass, cell) in pt.passes.iter().enumerate() {
            for (w, m) in cell.iter().enumerate() {
                let workload = Workload::ALL[w];
                let mut row = vec![
                    m.seq.into(),
                    (pass + 1).into(),
                    orders[pass].name().into(),
                    pt.param.into(),
                    workload.name().into(),
                ];
                match &m.result {
                    Ok(o) => {
                        let r = &o.report;
                        n_ok += 1;
                        n_aslr_off += usize::from(r.aslr_off());
                        n_pinned += usize::from(r.pinned());
                        n_env_ok += usize::from(r.env_vars == 1);
                        for l in &o.stderr {
                            *said.entry(l.clone()).or_default() += 1;
                        }
                        times[w][pass][i] = Some(r.median_ns);
                        addrs[w][i].push(r.stack_addr);
                        row.extend([
                            r.median_ns.into(),
                            r.min_ns.into(),
                            r.max_ns.into(),
                            r.stack_addr.into(),
                            (r.stack_addr % 4096).into(),
                            (r.stack_addr.wrapping_sub(r.global_addr) % 4096).into(),
                            r.aslr_off().into(),
                            r.pinned().into(),
                            r.cpu_after.into(),
                        ]);
                    }
                    Err(e) => {
                        failures.push(e.clone());
                        row.extend(std::iter::repeat_n(Value::Missing, 9));
                    }
                }
                rows.push((m.seq, row));
            }
        }
    }
    rows.sort_by_key(|r| r.0);
    for (_, r) in rows {
        raw.row(r);
    }
    let reproduced = addrs
        .iter()
        .flatten()
        .filter(|a| a.len() == orders.len() && a.iter().all(|x| *x == a[0]))
        .count();
    let all_aslr_off = n_ok > 0 && n_aslr_off == n_ok;
    let all_pinned = n_ok > 0 && n_pinned == n_ok;
    let aslr_verified = mech_aslr_verified && all_aslr_off;
    println!(
        "  {total} children in {scan_s:.1} s; {n_ok} reported, {} failed",
        failures.len()
    );
    for f in failures.iter().take(5) {
        println!("  ! {f}");
    }
    println!(
        "  ASLR off (personality read back by the child) : {n_aslr_off} of {n_ok}{}",
        if all_aslr_off {
            ""
        } else {
            "  <- not everywhere"
        }
    );
    println!(
        "  pinned (mask = one core, seen only there)      : {n_pinned} of {n_ok}{}",
        match (core, all_pinned) {
            (None, _) => "  (pinning not requested)",
            (Some(_), true) => "",
            (Some(_), false) => "  <- not everywhere",
        }
    );
    println!("  environment was PAD alone                      : {n_env_ok} of {n_ok}");
    println!(
        "  same stack address for a size in every pass    : {reproduced} of {} (size, workload) pairs",
        pads.len() * Workload::ALL.len()
    );
    for (l, n) in &said {
        println!("  ! the children said on stderr ({n} times): {l}");
    }
    raw.print();
    meta("children", total);
    meta("children_failed", failures.len());
    meta("children_aslr_off", n_aslr_off);
    meta("children_pinned", n_pinned);
    meta("addresses_reproduced", reproduced);
    meta("scan_s", format!("{scan_s:.1}"));
    meta("pinned_verified", if all_pinned { "yes" } else { "no" });

    // == 3. Each size against the median of its pass.
    exp.section("3. each size's deviation from the median of its pass");
    let mut dev_block_cols = vec!["pad_bytes".to_string(), "workload:text".to_string()];
    for o in &orders {
        dev_block_cols.push(format!("{}_pct", o.name()));
    }
    dev_block_cols.push("passes_agree_10pct:text".into());
    let col_refs: Vec<&str> = dev_block_cols.iter().map(String::as_str).collect();
    let mut dev_block = Block::new("deviation", &col_refs);
    let mut devs = Vec::new(); // devs[w][pass][size]
    for (w, workload) in Workload::ALL.iter().enumerate() {
        let d: Vec<Vec<Option<f64>>> = times[w].iter().map(|t| analysis::deviations(t)).collect();
        for (pass, o) in orders.iter().enumerate() {
            let present: Vec<f64> = times[w][pass].iter().flatten().copied().collect();
            if let Some(s) = measure::stats::Summary::of(&present) {
                println!(
                    "  {:<4} {:<8}: pass median {}, children from {} to {} ({:.2} x)",
                    workload.name(),
                    o.name(),
                    show_ns(s.median),
                    show_ns(s.min),
                    show_ns(s.max),
                    s.max_over_min
                );
            }
        }
        let mut agreeing = 0;
        for (i, pt) in result.points.iter().enumerate() {
            let a = pt.agreement(scan::DEFAULT_TOLERANCE, |cell| {
                cell[w]
                    .result
                    .as_ref()
                    .map_or(f64::NAN, |o| o.report.median_ns)
            });
            agreeing += usize::from(a.agree);
            let mut row: Vec<Value> = vec![pads[i].into(), workload.name().into()];
            row.extend(d.iter().map(|p| Value::from(p[i])));
            row.push(a.agree.into());
            dev_block.row(row);
        }
        println!(
            "  {:<4} sizes whose passes agree within {:.0}%: {agreeing} of {}",
            workload.name(),
            scan::DEFAULT_TOLERANCE * 100.0,
            pads.len()
        );
        devs.push(d);
    }
    dev_block.print();

    // == 4. Do the passes agree? Correlation of the deviations, pass against pass.
    exp.section("4. correlation of the deviations between passes (size by size)");
    let mut corr = Block::new(
        "correlation",
        &["workload:text", "pass_a:text", "pass_b:text", "r"],
    );
    for (w, workload) in Workload::ALL.iter().enumerate() {
        for a in 0..orders.len() {
            for b in a + 1..orders.len() {
                let r = analysis::paired_correlation(&devs[w][a], &devs[w][b]);
                println!(
                    "  {}: pass {} ({}) against pass {} ({}): {}",
                    workload.name(),
                    a + 1,
                    orders[a].name(),
                    b + 1,
                    orders[b].name(),
                    show_r(r)
                );
                corr.row(vec![
                    workload.name().into(),
                    orders[a].name().into(),
                    orders[b].name().into(),
                    r.into(),
                ]);
            }
        }
    }
    corr.print();

    // == 5. Regions of 256 bytes.
    let n_regions = MAX_PAD / REGION_BYTES + 1;
    exp.section(&format!(
        "5. median deviation by region of {REGION_BYTES} bytes of padding ({n_regions} regions, 0-255 first)"
    ));
    let mut reg = Block::new(
        "regions",
        &[
            "workload:text",
            "pass:text",
            "region_start_bytes",
            "median_deviation_pct",
        ],
    );
    for (w, workload) in Workload::ALL.iter().enumerate() {
        for (pass, o) in orders.iter().enumerate() {
            let r = analysis::region_medians(&pads, &devs[w][pass], n_regions);
            let cells: Vec<String> = r
                .iter()
                .map(|v| v.map_or("  n/a".into(), |v| format!("{v:+5.1}")))
                .collect();
            println!(
                "  {:<4} {:<8}: {}",
                workload.name(),
                o.name(),
                cells.join(" ")
            );
            for (k, v) in r.iter().enumerate() {
                reg.row(vec![
                    workload.name().into(),
                    o.name().into(),
                    (k * REGION_BYTES).into(),
                    (*v).into(),
                ]);
            }
        }
    }
    reg.print();

    // == 6. How often is one size much slower than its pass? And does each pass drift?
    exp.section(&format!(
        "6. sizes at least {SLOW_PCT:.0}% slower than their pass median, and each pass against time"
    ));
    let mut slow = Block::new(
        "slow_share",
        &["workload:text", "pass:text", "slow_share_pct"],
    );
    let mut trend = Block::new("time_trend", &["workload:text", "pass:text", "r"]);
    let positions: Vec<Vec<usize>> = orders
        .iter()
        .map(|o| {
            let mut pos = vec![0; pads.len()];
            for (p, i) in o.indices(pads.len()).into_iter().enumerate() {
                pos[i] = p;
            }
            pos
        })
        .collect();
    for (w, workload) in Workload::ALL.iter().enumerate() {
        for (pass, o) in orders.iter().enumerate() {
            let s = analysis::share_at_least(&devs[w][pass], SLOW_PCT);
            let t = analysis::time_trend(&devs[w][pass], &positions[pass]);
            println!(
                "  {:<4} {:<8}: {} of the sizes {SLOW_PCT:.0}% or more slower; correlation with time order {}",
                workload.name(),
                o.name(),
                s.map_or("n/a".into(), |s| format!("{:5.1}%", s * 100.0)),
                show_r(t)
            );
            slow.row(vec![
                workload.name().into(),
                o.name().into(),
                s.map(|s| s * 100.0).into(),
            ]);
            trend.row(vec![workload.name().into(), o.name().into(), t.into()]);
            if matches!(o, Order::Shuffled(_)) {
                exp.key_figure(
                    &format!("{}_shuffled_slow_share", workload.name()),
                    s.map(|s| s * 100.0),
                    "%",
                );
            }
        }
    }
    slow.print();
    trend.print();

    // == 7. The verdict, from the data.
    exp.section("7. the verdict");
    if !aslr_verified {
        println!(
            "  ! ASLR was {} in the children: each child's stack landed where randomisation put it, not\n    where PAD put it. A size does not stand for a stack position here, so no pattern by size can\n    come from placement; agreement between passes would be a coincidence, disagreement is expected.",
            if aslr_requested_off {
                "not verified off"
            } else {
                "left on (--aslr-on)"
            }
        );
    }
    match (core, all_pinned) {
        (None, _) => println!(
            "  ! the children were not pinned (--no-pin or no core list): the scheduler could move them,\n    and moves between cores add to the spread of every pass."
        ),
        (Some(c), false) => println!(
            "  ! {} of {n_ok} children were not held on core {c}: their times include running elsewhere\n    or moving, which adds spread that has nothing to do with the environment.",
            n_ok - n_pinned
        ),
        (Some(_), true) => {}
    }
    let mut verdict = Block::new("verdict", &["workload:text", "kind:text"]);
    for (w, workload) in Workload::ALL.iter().enumerate() {
        let passes: Vec<Pass> = orders
            .iter()
            .enumerate()
            .map(|(p, o)| Pass {
                name: o.name().to_string(),
                one_direction: !matches!(o, Order::Shuffled(_)),
                dev: devs[w][p].clone(),
                position: positions[p].clone(),
            })
            .collect();
        let j = analysis::judge(&pads, &passes);
        let headline = match (j.kind, aslr_verified) {
            ("effect", true) => "an effect of the environment size (the passes agree)",
            ("effect", false) => {
                "the passes agree, but with ASLR not off this cannot be the environment's placement"
            }
            ("no_effect", _) => "no effect of the environment size visible: the passes disagree",
            _ => "no verdict",
        };
        println!("  {}: {headline}", workload.name());
        for l in &j.lines {
            println!("    - {l}");
        }
        verdict.row(vec![workload.name().into(), j.kind.into()]);
        meta(&format!("verdict_{}", workload.name()), j.kind);
        let rmin = (0..orders.len())
            .flat_map(|a| (a + 1..orders.len()).map(move |b| (a, b)))
            .filter_map(|(a, b)| analysis::paired_correlation(&devs[w][a], &devs[w][b]))
            .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.min(r))));
        exp.key_figure(
            &format!("{}_min_pass_correlation", workload.name()),
            rmin,
            "r",
        );
    }
    verdict.print();
    println!(
        "  * the rule: scan a parameter in more than one order, and believe only what every order shows."
    );
    exp.key_figure(
        "stack_shift_at_pad_4096",
        mechanism.shift_at_4096.map(|s| s as f64),
        "bytes",
    );
    exp.finish();
}
