//! The printed side of each section: the human tables, their `#DATA` blocks and `#META`
//! lines. Every line here is computed from the run's own children; `main.rs` decides what
//! is run and says what it means.

use crate::analysis::{self, REGION_BYTES, SLOW_PCT, show_r};
use crate::child::{self, Workload};
use crate::launch::Launcher;
use crate::passes::{Scanned, Tally};
use crate::repeats::{self, Repeat};
use measure::data::{Block, Value};
use measure::fmt::{WIDTH, field, wrap, wrap_to, yes_no};
use measure::out::Out;
use measure::run::Experiment;
use measure::scan::{self, Order};
use measure::stats::Summary;

/// `devs[w][pass][size]`, as [`Scanned::deviations`] gives it.
pub type Devs = [Vec<Vec<Option<f64>>>];

fn show_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.1} us", ns / 1e3)
    }
}

/// The setup: the system's ASLR setting, how the children are started, the workloads, how
/// many scans.
pub fn setup(out: &mut Out, launcher: &Launcher, repeat: usize) {
    let system_aslr = std::fs::read_to_string("/proc/sys/kernel/randomize_va_space")
        .ok()
        .map(|s| s.trim().to_string());
    let system_aslr = system_aslr.as_deref().unwrap_or("unknown");
    println!(
        "{}",
        field(
            "system ASLR",
            &format!(
                "randomize_va_space = {system_aslr} (0 off, 1 stack and libraries, 2 also the heap)"
            )
        )
    );
    let children = format!(
        "{} with an empty environment plus PAD; ASLR {}; {}",
        launcher.exe.display(),
        if launcher.aslr_off {
            "switched off by personality(ADDR_NO_RANDOMIZE) in pre_exec"
        } else {
            "left on (--aslr-on: ADDR_NO_RANDOMIZE cleared in pre_exec)"
        },
        match launcher.core {
            Some(c) => format!("pinned to core {c} in pre_exec"),
            None => "not pinned".to_string(),
        }
    );
    println!("{}", field("children", &children));
    println!(
        "{}",
        field(
            "workloads",
            &format!(
                "copy = {} x (read {} f32 from a global array, write them to a stack array);",
                child::COPY_TIMES,
                child::COPY_LEN,
            )
        )
    );
    // The second workload, under the first.
    let fib = format!(
        "fib = recursive fib({}) = {}",
        child::FIB_N,
        child::FIB_VALUE
    );
    println!("{}", wrap(&fib, &" ".repeat(19)));
    println!(
        "{}",
        field(
            "per child",
            &format!(
                "one discarded warm-up run, then {} timed runs, each judged by the child's own \
                 evidence (a disturbed one is set aside and taken again after a warm-up, up to \
                 {} runs or {} ms more); the median of the clean runs is reported",
                launcher.reps,
                2 * launcher.reps,
                crate::child::EXTRA_NS / 1_000_000
            )
        )
    );
    println!(
        "{}",
        field(
            "this process",
            "not pinned; it only starts the children and waits for each"
        )
    );
    println!(
        "{}",
        field(
            "scans",
            &if repeat > 1 {
                format!(
                    "{repeat} (--repeat {repeat}): sections 2 to 7 show the first; section 9 \
                     compares them all"
                )
            } else {
                "1 (--repeat N runs the whole scan N times and shows how its region medians move)"
                    .to_string()
            }
        )
    );
    out.meta("repeat", repeat);
    out.meta("system_randomize_va_space", system_aslr);
    out.meta("aslr_off_requested", yes_no(launcher.aslr_off));
    out.meta(
        "child_core",
        launcher.core.map_or("none".to_string(), |c| c.to_string()),
    );
    out.meta("reps_per_child", launcher.reps);
    out.meta("copy_times", child::COPY_TIMES);
    out.meta("copy_floats", child::COPY_LEN);
    out.meta("fib_n", child::FIB_N);
}

/// The scan's plan, before it runs: the pass orders and the shuffle seed.
pub fn plan(out: &mut Out, orders: &[Order], step: usize, sizes: usize, seed: u64) {
    let names: Vec<&str> = orders.iter().map(Order::name).collect();
    println!(
        "{}",
        field(
            "pass order",
            &format!("{} (shuffle seed {seed:#x})", names.join(", "))
        )
    );
    out.meta("step_bytes", step);
    out.meta("sizes", sizes);
    out.meta("shuffle_seed", seed);
    out.meta("passes", names.join(","));
}

/// What the children reported about themselves, and the scan's `#META` checks.
pub fn children(out: &mut Out, s: &Scanned, t: &Tally, core: Option<usize>) {
    let total = s.total();
    println!(
        "  {total} children in {:.1} s; {} reported, {} failed",
        s.seconds,
        t.ok,
        t.failures.len()
    );
    for f in t.failures.iter().take(5) {
        println!("{}", wrap_to(f, "  ! ", "    ", WIDTH));
    }
    println!(
        "  ASLR off (personality read back by the child) : {} of {}{}",
        t.aslr_off,
        t.ok,
        if t.all_aslr_off() {
            ""
        } else {
            "  <- not everywhere"
        }
    );
    println!(
        "  pinned (mask = one core, seen only there)      : {} of {}{}",
        t.pinned,
        t.ok,
        match (core, t.all_pinned()) {
            (None, _) => "  (pinning not requested)",
            (Some(_), true) => "",
            (Some(_), false) => "  <- not everywhere",
        }
    );
    println!(
        "  environment was PAD alone                      : {} of {}",
        t.env_ok, t.ok
    );
    println!(
        "  same stack address for a size in every pass    : {} of {} (size, workload) pairs",
        t.reproduced,
        s.pads.len() * Workload::ALL.len()
    );
    for (l, n) in &t.said {
        let said = format!("the children said on stderr ({n} times): {l}");
        println!("{}", wrap_to(&said, "  ! ", "    ", WIDTH));
    }
    disturbed_runs(s);
    out.meta("children", total);
    out.meta("children_failed", t.failures.len());
    out.meta("children_aslr_off", t.aslr_off);
    out.meta("children_pinned", t.pinned);
    out.meta("addresses_reproduced", t.reproduced);
    out.meta("scan_s", format!("{:.1}", s.seconds));
    out.meta("pinned_verified", yes_no(t.all_pinned()));
}

/// How many timed runs were disturbed, pass by pass (each child's own evidence), and the
/// other work on the children's core.
fn disturbed_runs(s: &Scanned) {
    let per_pass: Vec<String> = s
        .orders
        .iter()
        .enumerate()
        .map(|(p, o)| {
            let t = (0..Workload::ALL.len())
                .map(|w| s.tally(w, Some(p)))
                .fold(measure::disturb::Tally::default(), |a, b| a.merge(&b));
            format!("{} {} of {}", o.name(), t.disturbed, t.rounds)
        })
        .collect();
    let on_core = s
        .load
        .on_core
        .map_or("unknown".into(), |c| format!("{c:.2} cores"));
    let text = format!(
        "timed runs disturbed, by the children's own evidence: {}; other work on the \
         children's core: {on_core}",
        per_pass.join(", ")
    );
    println!("{}", wrap_to(&text, "  ", "    ", WIDTH));
}

/// Every child of every scan in time order, with what it measured and where its stack
/// array lay: the `raw` block.
pub fn raw(out: &mut Out, scans: &[Scanned]) {
    let mut raw = Block::new(
        ::env_scan::schema::raw::BLOCK,
        ::env_scan::schema::raw::COLUMNS,
    );
    for (k, s) in scans.iter().enumerate() {
        for c in s.children() {
            let mut row = vec![
                c.seq.into(),
                (c.pass + 1).into(),
                s.orders[c.pass].name().into(),
                c.pad.into(),
                c.workload.name().into(),
            ];
            match c.result {
                Ok(o) => {
                    let r = &o.report;
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
                Err(_) => row.extend(std::iter::repeat_n(Value::Missing, 9)),
            }
            row.push((k + 1).into());
            let counts = c.result.as_ref().ok().map(|o| o.report.tally());
            row.push(counts.map(|t| t.rounds).into());
            row.push(counts.map(|t| t.disturbed).into());
            raw.row(row);
        }
    }
    out.block(&raw);
}

/// Section 3: each pass's median and spread, how many sizes the passes agree on, and the
/// `deviation` block.
pub fn deviations(out: &mut Out, s: &Scanned, devs: &Devs) {
    use ::env_scan::schema::deviation as d;
    let mut cols = vec![d::PAD_BYTES.to_string(), format!("{}:text", d::WORKLOAD)];
    cols.extend(s.orders.iter().map(|o| d::pass_column(o.name())));
    cols.push(format!("{}:text", d::PASSES_AGREE_10PCT));
    let col_refs: Vec<&str> = cols.iter().map(String::as_str).collect();
    let mut block = Block::new(d::BLOCK, &col_refs);
    for (w, workload) in Workload::ALL.iter().enumerate() {
        for (pass, o) in s.orders.iter().enumerate() {
            let present: Vec<f64> = s.times(w, pass).into_iter().flatten().collect();
            if let Some(sum) = Summary::of(&present) {
                println!(
                    "  {:<4} {:<8}: pass median {}, children from {} to {} ({:.2} x)",
                    workload.name(),
                    o.name(),
                    show_ns(sum.median),
                    show_ns(sum.min),
                    show_ns(sum.max),
                    sum.max_over_min
                );
            }
        }
        let mut agreeing = 0;
        for (i, pt) in s.scan.points.iter().enumerate() {
            let a = pt.agreement(scan::DEFAULT_TOLERANCE, |cell| {
                cell[w]
                    .result
                    .as_ref()
                    .map_or(f64::NAN, |o| o.report.median_ns)
            });
            agreeing += usize::from(a.agree);
            let mut row: Vec<Value> = vec![s.pads[i].into(), workload.name().into()];
            row.extend(devs[w].iter().map(|p| Value::from(p[i])));
            row.push(a.agree.into());
            block.row(row);
        }
        println!(
            "  {:<4} sizes whose passes agree within {:.0}%: {agreeing} of {}",
            workload.name(),
            scan::DEFAULT_TOLERANCE * 100.0,
            s.pads.len()
        );
    }
    out.block(&block);
}

/// Section 4: the correlation of the deviations for every pair of passes, as a table of one
/// row per workload, and its block.
pub fn correlations(out: &mut Out, orders: &[Order], devs: &Devs) {
    let mut corr = Block::new(
        ::env_scan::schema::correlation::BLOCK,
        ::env_scan::schema::correlation::COLUMNS,
    );
    let mut head = format!("  {:<8}", "workload");
    for (a, b, _) in analysis::pair_correlations(&devs[0]) {
        head.push_str(&format!(
            " {:>18}",
            format!("{}/{}", orders[a].name(), orders[b].name())
        ));
    }
    println!("{head}");
    for (w, workload) in Workload::ALL.iter().enumerate() {
        let mut line = format!("  {:<8}", workload.name());
        for (a, b, r) in analysis::pair_correlations(&devs[w]) {
            line.push_str(&format!(" {:>18}", show_r(r)));
            corr.row(vec![
                workload.name().into(),
                orders[a].name().into(),
                orders[b].name().into(),
                r.into(),
            ]);
        }
        println!("{line}");
    }
    out.block(&corr);
}

/// Section 5: the median deviation per region of [`REGION_BYTES`], one row per region and a
/// column per workload and pass.
pub fn regions(out: &mut Out, s: &Scanned, devs: &Devs, n_regions: usize) {
    let mut reg = Block::new(
        ::env_scan::schema::regions::BLOCK,
        ::env_scan::schema::regions::COLUMNS,
    );
    // medians[w][pass][region]
    let medians: Vec<Vec<Vec<Option<f64>>>> = Workload::ALL
        .iter()
        .enumerate()
        .map(|(w, _)| {
            (0..s.orders.len())
                .map(|p| analysis::region_medians(&s.pads, &devs[w][p], n_regions))
                .collect()
        })
        .collect();
    let mut head = format!("  {:<11}", "PAD");
    for workload in Workload::ALL {
        head.push_str(&format!(" {:>6}", format!("{}:", workload.name())));
        for o in &s.orders {
            head.push_str(&format!(" {:>8}", o.name()));
        }
    }
    println!("{head}");
    for k in 0..n_regions {
        let mut line = format!(
            "  {:<11}",
            format!("{}-{}", k * REGION_BYTES, (k + 1) * REGION_BYTES - 1)
        );
        for by_pass in &medians {
            line.push_str(&" ".repeat(7));
            for m in by_pass {
                line.push_str(&m[k].map_or(format!(" {:>8}", "n/a"), |v| format!(" {v:>+8.1}")));
            }
        }
        println!("{}", line.trim_end());
    }
    for (w, workload) in Workload::ALL.iter().enumerate() {
        for (pass, o) in s.orders.iter().enumerate() {
            for (k, v) in medians[w][pass].iter().enumerate() {
                reg.row(vec![
                    workload.name().into(),
                    o.name().into(),
                    (k * REGION_BYTES).into(),
                    (*v).into(),
                ]);
            }
        }
    }
    out.block(&reg);
}

/// Section 6: the share of sizes [`SLOW_PCT`] or more slower than their pass, each pass's
/// correlation with its time order, their blocks, and the shuffled shares as key figures.
pub fn slow_and_trend(exp: &mut Experiment, s: &Scanned, devs: &Devs, positions: &[Vec<usize>]) {
    let mut slow = Block::new(
        ::env_scan::schema::slow_share::BLOCK,
        ::env_scan::schema::slow_share::COLUMNS,
    );
    let mut trend = Block::new(
        ::env_scan::schema::time_trend::BLOCK,
        ::env_scan::schema::time_trend::COLUMNS,
    );
    for (w, workload) in Workload::ALL.iter().enumerate() {
        for (pass, o) in s.orders.iter().enumerate() {
            let share = analysis::share_at_least(&devs[w][pass], SLOW_PCT).map(|s| s * 100.0);
            let t = analysis::time_trend(&devs[w][pass], &positions[pass]);
            println!(
                "  {:<4} {:<8}: {} of the sizes {SLOW_PCT:.0}% or more slower; correlation with time order {}",
                workload.name(),
                o.name(),
                share.map_or("n/a".into(), |s| format!("{s:5.1}%")),
                show_r(t)
            );
            slow.row(vec![workload.name().into(), o.name().into(), share.into()]);
            trend.row(vec![workload.name().into(), o.name().into(), t.into()]);
            if matches!(o, Order::Shuffled(_)) {
                exp.key_figure(
                    &format!("{}_shuffled_slow_share", workload.name()),
                    share,
                    "%",
                );
            }
        }
    }
    exp.out.block(&slow);
    exp.out.block(&trend);
}

/// One workload's verdict: its headline (marked where provisional), the judgement's
/// reasons, and its `#META` lines.
pub fn verdict(
    out: &mut Out,
    workload: Workload,
    said: &[String],
    kind: analysis::Kind,
    provisional: bool,
) {
    let (headline, reasons) = said.split_first().expect("a headline");
    println!(
        "{}",
        wrap(&format!("{}: {headline}", workload.name()), "  ")
    );
    for l in reasons {
        println!("{}", wrap_to(l, "    - ", "      ", WIDTH));
    }
    out.meta(&format!("verdict_{}", workload.name()), kind.name());
    out.meta(
        &format!("verdict_{}_provisional", workload.name()),
        if provisional { "yes" } else { "no" },
    );
}

/// Section 9: each repeat's time and verdicts, how far each region moved between repeats
/// (the `region_repeats` and `region_moves` blocks), and what that means for one scan.
pub fn repeats(out: &mut Out, orders: &[Order], all: &[Repeat]) {
    let mut per = Block::new(
        ::env_scan::schema::region_repeats::BLOCK,
        ::env_scan::schema::region_repeats::COLUMNS,
    );
    let mut kinds = Block::new(
        ::env_scan::schema::repeat_verdicts::BLOCK,
        ::env_scan::schema::repeat_verdicts::COLUMNS,
    );
    for (k, r) in all.iter().enumerate() {
        let verdicts: Vec<String> = Workload::ALL
            .iter()
            .zip(r.kinds.iter().zip(&r.tallies))
            .map(|(w, (kind, t))| {
                let mark = if t.provisional() {
                    " (provisional)"
                } else {
                    ""
                };
                format!("{} {}{mark}", w.name(), kind.name())
            })
            .collect();
        println!(
            "{}",
            field(
                &format!("scan {}", k + 1),
                &format!(
                    "{:.1} s, {} children failed; verdicts: {}",
                    r.seconds,
                    r.failed,
                    verdicts.join(", ")
                )
            )
        );
        for (w, workload) in Workload::ALL.iter().enumerate() {
            kinds.row(vec![
                (k + 1).into(),
                workload.name().into(),
                r.kinds[w].name().into(),
            ]);
            for (p, o) in orders.iter().enumerate() {
                for (region, v) in r.regions[w][p].iter().enumerate() {
                    per.row(vec![
                        (k + 1).into(),
                        workload.name().into(),
                        o.name().into(),
                        (region * REGION_BYTES).into(),
                        (*v).into(),
                    ]);
                }
            }
        }
    }
    println!(
        "\n  how far each region's median deviation moved between the {} scans (largest minus \
         smallest,\n  percentage points):",
        all.len()
    );
    println!(
        "  {:<13}  {:>7}  {:>8}  where it moved most",
        "workload pass", "median", "largest"
    );
    let mut moves = Block::new(
        ::env_scan::schema::region_moves::BLOCK,
        ::env_scan::schema::region_moves::COLUMNS,
    );
    let mut largest: Option<(f64, String)> = None;
    for (w, workload) in Workload::ALL.iter().enumerate() {
        for (p, o) in orders.iter().enumerate() {
            let m = repeats::moved(all, w, p);
            let show = |v: Option<f64>| v.map_or("n/a".to_string(), |v| format!("{v:.1}"));
            let region = m.largest.map(|(_, r)| r * REGION_BYTES);
            println!(
                "  {:<13}  {:>7}  {:>8}  {}",
                format!("{} {}", workload.name(), o.name()),
                show(m.median),
                show(m.largest.map(|l| l.0)),
                region.map_or("n/a".to_string(), |r| format!(
                    "PAD {r}-{}",
                    r + REGION_BYTES - 1
                ))
            );
            moves.row(vec![
                workload.name().into(),
                o.name().into(),
                m.median.into(),
                m.largest.map(|l| l.0).into(),
                region.into(),
            ]);
            if let Some((v, _)) = m.largest
                && largest.as_ref().is_none_or(|l| v > l.0)
            {
                largest = Some((v, format!("{} {}", workload.name(), o.name())));
            }
        }
    }
    out.block(&per);
    out.block(&kinds);
    out.block(&moves);
    if let Some(said) = repeats_conclusion(all, largest) {
        out.conclude(&said);
    }
}

/// What the repeats mean for one scan, from the region that moved most (`largest`: its
/// points and where), marked by the one rule when the scans' runs were disturbed.
fn repeats_conclusion(all: &[Repeat], largest: Option<(f64, String)>) -> Option<String> {
    let (v, which) = largest?;
    let same: Vec<&str> = Workload::ALL
        .iter()
        .enumerate()
        .filter(|(w, _)| repeats::same_verdict(all, *w))
        .map(|(_, w)| w.name())
        .collect();
    let verdicts = if same.len() == Workload::ALL.len() {
        "every scan gave the same verdict for every workload".to_string()
    } else if same.is_empty() {
        "no workload kept its verdict from scan to scan".to_string()
    } else {
        format!(
            "only {} kept its verdict from scan to scan",
            same.join(" and ")
        )
    };
    let tally = all
        .iter()
        .flat_map(|r| &r.tallies)
        .fold(measure::disturb::Tally::default(), |a, b| a.merge(b));
    let said = measure::show::marked(
        &tally,
        false,
        vec![format!(
            "A region's median moved by up to {v:.1} points between scans ({which}), with \
             nothing changed but the time: a region that one scan shows that far off is not \
             yet a finding. The verdicts: {verdicts}."
        )],
    );
    Some(said.join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::Kind;
    use measure::disturb::{Load, Tally as Rounds};

    /// One scan's verdicts (copy, fib) from `rounds` timed runs, `disturbed` of them disturbed.
    fn scan(kinds: [Kind; 2], rounds: usize, disturbed: usize) -> Repeat {
        let t = Rounds {
            rounds,
            disturbed,
            ..Default::default()
        }
        .with_load(Load {
            core: Some(1),
            on_core: Some(0.0),
            steal: Some(0.0),
            elsewhere: Some(0.0),
            ..Default::default()
        });
        Repeat {
            seconds: 1.0,
            failed: 0,
            kinds: kinds.to_vec(),
            tallies: vec![t; 2],
            regions: vec![],
        }
    }

    #[test]
    fn the_repeats_reading_is_marked_only_when_the_scans_runs_were_disturbed() {
        let (e, n) = (Kind::Effect, Kind::NoEffect);
        let largest = || Some((4.5, "copy forward".to_string()));
        assert_eq!(repeats_conclusion(&[scan([e, n], 100, 0)], None), None);
        let quiet = repeats_conclusion(&[scan([e, n], 100, 0), scan([e, n], 100, 1)], largest())
            .expect("a reading");
        assert!(
            quiet.starts_with(
                "A region's median moved by up to 4.5 points between scans (copy forward)"
            ),
            "{quiet}"
        );
        assert!(quiet.ends_with("every scan gave the same verdict for every workload."));
        let busy = repeats_conclusion(&[scan([e, n], 100, 0), scan([n, n], 100, 60)], largest())
            .expect("a reading");
        assert!(
            busy.starts_with(
                "provisional: 120 of 400 rounds were disturbed; the clean rounds give: A region's"
            ),
            "{busy}"
        );
        assert!(
            busy.ends_with("only fib kept its verdict from scan to scan."),
            "{busy}"
        );
        assert!(!busy.contains("contention"), "{busy}");
    }
}
