//! # sink_bench: measurement pitfalls
//!
//! Run with: `cargo run -p sink_bench` (about 5 s), `QUICK=1 cargo run -p sink_bench` or
//! `cargo run -p sink_bench -- --quick` (a smoke run of a couple of seconds, saved under
//! `${TMPDIR:-/tmp}/sink_bench-quick/`), `REPS=50 RUNS=50 cargo run -p sink_bench`.
//!
//! A microbenchmark whose result is never used measures nothing, and a single run is not a
//! measurement. One loop, a scalar `f32` sum over 1<<20 floats (one dependent add per
//! element), is timed
//!
//! 1. in three variants that differ only in what happens to the sum: (a) nothing, (b) handed
//!    to `black_box`, (c) stored for a checksum that must come out right, taken round-robin;
//! 2. as variant (b), `RUNS` times in one process and once in each of `RUNS` fresh processes
//!    (this binary started again), with the share of pairs of single passes that differ by
//!    more than 2, 5 and 10 percent;
//! 3. as the cold pass, the first pass a process makes over its freshly mapped array: one
//!    number in this process against its distribution over the fresh ones.
//!
//! The clock's smallest step, the load average before and after, and the machine code of the
//! three timing functions (read back out of this binary) are part of the output.

use measure::cli;
use measure::clock::{self, CoreClock};
use measure::stats::Summary;
use sink_bench::kernel::{self, N, PASS_SUM};
use sink_bench::output::{self, Conditions, Figures, Says};
use sink_bench::report::{self, SeriesStats};
use sink_bench::{asm, fresh, options, save};

const ABOUT: &str = "a dead, a sunk and a checksummed sum; one run against thirty; the cold pass";

/// Part 1's variants, (a), (b), (c): the key of each series and its label.
const VARIANTS: [(&str, &str); 3] = [
    ("discarded", "(a) sum discarded"),
    ("sink", "(b) sum passed to black_box"),
    ("checksum", "(c) sum stored for the checksum"),
];

fn main() {
    // A fresh process of parts 2 and 3 is this binary again, told so by its environment.
    if let Ok(spec) = std::env::var(fresh::CHILD_ENV) {
        fresh::child_main(&spec);
    }
    // Saving a run, or summarising a saved one, happens around the measuring process.
    if let Some(status) = save::dispatch() {
        std::process::exit(status);
    }
    run();
}

fn run() {
    let mut exp = measure::start!("sink_bench", ABOUT, options::OPTS);
    let set = options::settings(&exp.args, |k| std::env::var(k).ok())
        .unwrap_or_else(|e| cli::fail("sink_bench", &e));
    let (reps, runs) = (set.reps, set.runs);
    output::settings(&set);
    let mut says = Says::default();

    // One thread. Pinned to one core by default, the project's rule; the seed ran unpinned
    // because its machine had no affinity call, and --no-pin repeats that condition.
    let core = if set.pin {
        exp.pin_main_thread()
            .filter(|p| p.granted)
            .map(|p| p.requested)
    } else {
        output::unpinned();
        None
    };

    // == The cold pass comes first, before anything else touches this process's memory, so
    // that it is the same first pass that every fresh process makes (part 3).
    exp.section("the start every process makes: a fresh 4 MiB array, its first (cold) pass, the fill, the settle");
    let mut begun = fresh::begin(set.settle_ms).unwrap_or_else(|e| {
        eprintln!("sink_bench: error: {e}");
        std::process::exit(1)
    });
    let page = exp.facts.page_size.unwrap_or(4096);
    let pages = (N * 4) as u64 / page;
    output::start(&begun, page, pages, set.settle_ms);
    let a: &[f32] = begun.array();

    // == The instrument.
    exp.section("the clock, and the latency of one float add");
    let probe = clock::probe(11, if set.quick { 5_000 } else { 20_000 });
    let (step, read) = (probe.min_step_ns, probe.gettime_cost_ns.median);
    output::clock(step, read);
    let cc = exp.core_clock();
    let add_lat = kernel::add_latency_ns(if set.quick { 5 } else { 11 });
    output::add_latency(add_lat.as_ref(), &cc);

    // == Part 1: what happens to the sum.
    exp.section(&format!(
        "part 1: three ways to treat the result ({reps} passes each, taken round-robin a b c a b c ...)"
    ));
    let (passes, checksum) = kernel::round_robin(a, reps);
    let expected = reps as f64 * f64::from(PASS_SUM);
    let checksum_text = output::checksum(checksum, expected, reps);
    if checksum != expected {
        eprintln!("sink_bench: error: checksum {checksum_text}");
        std::process::exit(1);
    }
    let p1: Vec<SeriesStats> = passes
        .iter()
        .zip(VARIANTS)
        .map(|(p, (key, label))| SeriesStats::of_passes(key, label, p))
        .collect();
    output::part1_table(&p1);
    output::part1_block(&passes);
    let (sa, sb, sc) = (&p1[0].summary, &p1[1].summary, &p1[2].summary);
    let per_elem = sb.median / N as f64;
    says.say(dead_loop(sa, sb, step, read));
    says.say(consumed(sb, sc, checksum));
    let where_fits = exp.facts.where_fits((N * 4) as u64);
    says.say(pace(per_elem, &cc, add_lat.as_ref(), &where_fits));

    // == Part 2: one process, RUNS consecutive passes; RUNS fresh processes, one pass each.
    exp.section(&format!(
        "part 2: one run is not a measurement (variant (b): {runs} passes in this process, one in each of {runs} fresh processes)"
    ));
    let warm_in = kernel::warm_passes(a, runs);
    let exe = fresh::own_exe();
    let (first, kids) = fresh::run_series(&exe, set.settle_ms, core, runs);
    let warm_fresh: Vec<f64> = kids.iter().map(|k| k.warm_ns as f64).collect();
    let win = SeriesStats::of_passes("warm_in_process", "warm pass, one process", &warm_in);
    let wfr = SeriesStats::of_passes("warm_fresh", "warm pass, fresh processes", &warm_fresh);
    let pinned_fresh = kids.iter().filter(|k| k.pinned == Some(true)).count();
    output::fresh_processes(core, pinned_fresh, &first, &kids);
    report::print_spread_table(&[&win, &wfr]);
    output::part2_blocks(&warm_in, &first, &kids);
    let (mi, mf) = (&win.summary, &wfr.summary);
    says.say(well_defined(mi, mf, runs));
    if let Some(s) = single_run(&win, &wfr, runs) {
        says.say(s);
    }
    says.say(pair_shares(&win, &wfr, runs));

    // == Part 3: the cold pass, one shot against RUNS.
    exp.section(&format!(
        "part 3: the cold pass, one shot in this process against {runs} fresh processes"
    ));
    let shot = begun.cold_ns as f64;
    let cold_fresh: Vec<f64> = kids.iter().map(|k| k.cold_ns as f64).collect();
    let cin = SeriesStats::of_passes(
        "cold_in_process",
        "cold pass, one process (one shot)",
        &[shot],
    );
    let cfr = SeriesStats::of_passes("cold_fresh", "cold pass, fresh processes", &cold_fresh);
    report::print_spread_table(&[&cin, &cfr]);
    let (fault_med, warm_fault_max) = fresh::fault_counts(&kids);
    output::faults(begun.cold_faults, fault_med, warm_fault_max);
    output::cold_block(shot, begun.cold_faults);
    let cf = &cfr.summary;
    says.say(one_shot(shot, &cold_fresh, cf, runs));
    let cold_over_warm = cf.median / mf.median;
    says.say(cold_cost(cold_over_warm, fault_med, warm_fault_max, pages));

    // == The code that was timed, read back out of this binary.
    exp.section("the code that was timed, disassembled from this binary (nm -S, objdump -d)");
    let code_note = asm::show(&exe, &mut says);

    // == Conditions, then the RESULT lines the summary is built from.
    let load_after = measure::facts::load_average();
    println!();
    says.say(output::load_verdict(&exp, load_after));

    exp.section("RESULT lines (sink_bench --summarize builds the summary table from these)");
    let conditions = Conditions {
        exp: &exp,
        set: &set,
        core,
        pinned_fresh,
        load_after,
        clock_step_ns: step,
        clock_read_ns: read,
        checksum: &checksum_text,
        code: &code_note,
    };
    let figures = Figures {
        clock_step: step,
        a_over_b_median: sa.median / sb.median,
        a_max_over_b_median: sa.max / sb.median,
        c_over_b_median: sc.median / sb.median,
        ns_per_element: per_elem,
        cycles_per_element: cc.cycles(per_elem),
        add_latency: add_lat.as_ref().map(|l| l.median),
        fresh_over_in_process_median: mf.median / mi.median,
        cold_shot_over_fresh_median: shot / cf.median,
        cold_shot_over_fresh_min: shot / cf.min,
        cold_over_warm,
        cold_faults: fault_med,
    };
    let series = [&p1[0], &p1[1], &p1[2], &win, &wfr, &cin, &cfr];
    output::results(&conditions, &series, &figures, &says);
    report::series_block(&series).print();

    let (oi, of) = (win.over.expect("runs >= 10"), wfr.over.expect("runs >= 10"));
    exp.key_figure("discarded_over_sink", sa.median / sb.median, "x");
    exp.key_figure("checksum_over_sink", sc.median / sb.median, "x");
    exp.key_figure("warm_pass", mi.median, "ns");
    exp.key_figure("warm_in_process_max_over_min", mi.max_over_min, "x");
    exp.key_figure("warm_fresh_max_over_min", mf.max_over_min, "x");
    exp.key_figure("pairs_over_2pct_in_process", oi[0] * 100.0, "%");
    exp.key_figure("pairs_over_2pct_fresh", of[0] * 100.0, "%");
    exp.key_figure("cold_shot_over_fresh_median", shot / cf.median, "x");
    exp.finish();
}

// The verdicts, each computed from this run's numbers.

/// Part 1, (a) against the clock: is anything left between the two reads?
fn dead_loop(sa: &Summary, sb: &Summary, step: f64, read: f64) -> String {
    let floor = step.max(read);
    let a_share_med = sa.median / sb.median * 100.0;
    let a_share_max = sa.max / sb.median * 100.0;
    if sa.median <= 3.0 * floor {
        format!(
            "With the sum thrown away a pass reads as {:.0} ns at the median and never more than {:.0} ns, about {:.1} steps of the clock: the timed region is two clock reads and nothing else, because the compiler found the sum dead and removed the loop (the listing of sink_bench_time_discarded shows it). The variant comes to {a_share_med:.4} % of the real loop at the median and {a_share_max:.4} % at its maximum.",
            sa.median,
            sa.max,
            sa.median / step
        )
    } else if sa.median < 0.5 * sb.median {
        format!(
            "With the sum thrown away a pass takes {:.0} ns, {a_share_med:.2} % of the real loop: more than two clock reads, less than the loop; part of the work survived.",
            sa.median
        )
    } else {
        format!(
            "With the sum thrown away a pass still takes {:.0} ns, {a_share_med:.1} % of the real loop: this build kept the dead loop. Never count on either outcome; look at the code.",
            sa.median
        )
    }
}

/// Part 1, (b) against (c): do the two ways of consuming the sum agree?
fn consumed(sb: &Summary, sc: &Summary, checksum: f64) -> String {
    let cb = sc.median / sb.median;
    if (cb - 1.0).abs() < 0.02 {
        format!(
            "Handing the same sum to black_box or storing it for the checksum costs {:.0} ns and {:.0} ns per pass, a ratio of {cb:.3}: the two ways of consuming a result agree, and the consumption itself, one store, costs nothing at this scale; the checksum {checksum:.0} matches the expected value.",
            sb.median, sc.median
        )
    } else {
        format!(
            "Handing the sum to black_box costs {:.0} ns per pass and storing it for the checksum {:.0} ns, a ratio of {cb:.3}: they differ by {:.1} %, more than one store can cost, so the difference is the run's noise (part 2 shows how large that is); the checksum {checksum:.0} matches the expected value.",
            sb.median,
            sc.median,
            (cb - 1.0).abs() * 100.0
        )
    }
}

/// Part 1: does the add chain set the loop's pace?
fn pace(per_elem: f64, cc: &CoreClock, add_lat: Option<&Summary>, where_fits: &str) -> String {
    let cycles = cc
        .cycles(per_elem)
        .zip(cc.ghz)
        .map_or(String::new(), |(c, g)| {
            format!(", {c:.2} cycles at the {g:.2} GHz estimate")
        });
    match add_lat {
        Some(l) if (per_elem / l.median - 1.0).abs() <= 0.15 => format!(
            "At {per_elem:.3} ns per element{cycles} the loop runs at the latency of its dependent add chain ({:.3} ns per add on a register-only chain, a ratio of {:.2}), which is why it does not matter that the 4 MiB array sits in {where_fits} by reported sizes rather than L1.",
            l.median,
            per_elem / l.median
        ),
        Some(l) => format!(
            "At {per_elem:.3} ns per element{cycles} the loop takes {:.2} times the latency of one dependent float add ({:.3} ns on a register-only chain): something besides the add chain sets its pace here, with the 4 MiB array in {where_fits} by reported sizes.",
            per_elem / l.median,
            l.median
        ),
        None => format!(
            "The loop takes {per_elem:.3} ns per element{cycles}; the latency of one float add was not measured on this architecture, so whether the add chain sets the pace is not known."
        ),
    }
}

/// Part 2: the warm pass in one process against fresh processes.
fn well_defined(mi: &Summary, mf: &Summary, runs: usize) -> String {
    let med_ratio = mf.median / mi.median;
    format!(
        "The cost of the loop is {}: {runs} consecutive passes in one process put the warm pass between {:.0} ns and {:.0} ns, a max over min of {:.3} with a median of {:.0} ns and cv {:.1} %, and {runs} fresh processes taking one warm pass each have a median of {:.0} ns, {med_ratio:.3} of the in-process median, and a minimum of {:.0} ns.",
        if (med_ratio - 1.0).abs() < 0.02 {
            "well defined"
        } else {
            "not the same in one process and across fresh ones"
        },
        mi.min,
        mi.max,
        mi.max_over_min,
        mi.median,
        mi.cv * 100.0,
        mf.median,
        mf.min
    )
}

/// Part 2: the slowest single pass, in whichever series spreads more.
fn single_run(win: &SeriesStats, wfr: &SeriesStats, runs: usize) -> Option<String> {
    let (wide, wide_name) = if wfr.summary.max_over_min >= win.summary.max_over_min {
        (wfr, format!("one of the {runs} fresh processes"))
    } else {
        (win, format!("one of the {runs} passes in one process"))
    };
    let w = report::worst(&wide.samples, 5.0)?;
    Some(format!(
        "A single run is not: {wide_name} took {:.0} ns for its warm pass, {:.3} times the minimum, so a comparison with one run per side has one chance in {runs} of reporting a {:.1} % difference that is not there; {} of the {} pairs that contain that pass, {:.1} % of the {}, differ by more than 5 %.",
        w.value,
        w.over_min,
        (w.over_min - 1.0) * 100.0,
        w.pairs_over,
        w.pairs_with_it,
        w.pairs_over as f64 / wide.pairs() as f64 * 100.0,
        wide.pairs()
    ))
}

/// Part 2: what share of pairs of single passes differ by 2, 5 and 10 percent, and what
/// that leaves one run per side able to resolve.
fn pair_shares(win: &SeriesStats, wfr: &SeriesStats, runs: usize) -> String {
    let (oi, of) = (win.over.expect("runs >= 10"), wfr.over.expect("runs >= 10"));
    let (first_dirty, clean) = report::first_exceeded_and_clean(win, wfr);
    let mut s = format!(
        "Two single passes of identical code differ by more than 2 % in {:.1} % of the {} pairs in one process and {:.1} % across fresh processes, by more than 5 % in {:.1} % and {:.1} %, by more than 10 % in {:.1} % and {:.1} %",
        oi[0] * 100.0,
        win.pairs(),
        of[0] * 100.0,
        oi[1] * 100.0,
        of[1] * 100.0,
        oi[2] * 100.0,
        of[2] * 100.0
    );
    match (first_dirty, clean) {
        (Some(d), Some(c)) => s.push_str(&format!(
            ": one run per side cannot resolve a {d:.0} % difference, while on this run no pair in either series differs by more than {c:.0} %, so the size one run can resolve is a property of the run, not of the method."
        )),
        (Some(d), None) => s.push_str(&format!(
            ": one run per side cannot resolve a {d:.0} % difference, and on this run not even a 10 % one."
        )),
        (None, _) => s.push_str(
            ": on this run no pair differs by more than 2 %, a quiet run; the next one need not be.",
        ),
    }
    let med_diff = (wfr.summary.median / win.summary.median - 1.0).abs() * 100.0;
    s.push_str(&if med_diff < 2.0 {
        format!(
            " Only the medians of {runs}, which agree within {med_diff:.1} %, are a measurement."
        )
    } else {
        format!(
            " Even the medians of {runs} differ by {med_diff:.1} % between one process and fresh ones: the process itself (its placement, its layout, the frequency it ran at) is part of what was measured."
        )
    });
    s
}

/// Part 3: where the one in-process cold pass falls among the fresh ones.
fn one_shot(shot: f64, cold_fresh: &[f64], cf: &Summary, runs: usize) -> String {
    let faster = cold_fresh.iter().filter(|&&v| v < shot).count();
    let position = if shot < cf.min {
        format!("below every one of the {runs} fresh cold passes")
    } else if shot > cf.max {
        format!("above every one of the {runs} fresh cold passes")
    } else {
        format!("{faster} of the {runs} fresh cold passes were faster")
    };
    format!(
        "The cold pass says the same in one line: this process has one number for it, {shot:.0} ns, and {runs} fresh processes taking the same pass have a min of {:.0} ns, a median of {:.0} ns and a max of {:.0} ns, cv {:.1} % and max over min {:.3}; the single shot sits at {:.3} of the median and {:.3} of the minimum ({position}), and nothing in the one number says where in that span it fell.",
        cf.min,
        cf.median,
        cf.max,
        cf.cv * 100.0,
        cf.max_over_min,
        shot / cf.median,
        shot / cf.min
    )
}

/// Part 3: what the cold pass costs over a warm one, and the page faults behind it.
fn cold_cost(
    cold_over_warm: f64,
    fault_med: Option<f64>,
    warm_fault_max: Option<u64>,
    pages: u64,
) -> String {
    match fault_med {
        Some(f) if f > 0.0 => format!(
            "The cold pass costs {cold_over_warm:.2} times a warm one (fresh medians) because its page faults, {f:.0} per process by getrusage for the {pages} pages of the array, land inside the timed region; the warm pass takes {}.",
            match warm_fault_max {
                Some(0) => "none".to_string(),
                Some(w) => format!("at most {w}"),
                None => "an unknown number".to_string(),
            }
        ),
        Some(_) => format!(
            "The cold pass costs {cold_over_warm:.2} times a warm one (fresh medians), yet getrusage counted no page faults in it: the array was already backed."
        ),
        None => format!(
            "The cold pass costs {cold_over_warm:.2} times a warm one (fresh medians); the page faults behind it could not be counted here."
        ),
    }
}
