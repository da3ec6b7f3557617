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
use measure::clock;
use measure::data::{Block, meta};
use measure::keep::black_box;
use measure::stats::Summary;
use sink_bench::kernel::{
    self, N, PASS_SUM, sink_bench_time_checksum, sink_bench_time_discarded, sink_bench_time_sink,
};
use sink_bench::report::{self, SeriesStats, conclusion_line, figure_line, note_line};
use sink_bench::{asm, fresh, options, save};

const ABOUT: &str = "a dead, a sunk and a checksummed sum; one run against thirty; the cold pass";

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
    println!(
        "  settings       : REPS {reps}, RUNS {runs}, SETTLE_MS {}{}",
        set.settle_ms,
        if set.quick { " (quick)" } else { "" }
    );
    meta("reps", reps);
    meta("runs", runs);
    meta("settle_ms", set.settle_ms);
    let mut results: Vec<String> = Vec::new();
    let mut says: Vec<String> = Vec::new();

    // One thread. Pinned to one core by default, the project's rule; the seed ran unpinned
    // because its machine had no affinity call, and --no-pin repeats that condition.
    let core = if set.pin {
        exp.pin_main_thread()
            .filter(|p| p.granted)
            .map(|p| p.requested)
    } else {
        println!(
            "  pinning        : off (--no-pin): the kernel places this process and every fresh one"
        );
        meta("pinned", "no");
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
    println!(
        "  array          : {N} floats, {} bytes, {pages} pages of {page} bytes; small pages {}",
        N * 4,
        if begun.small_pages {
            "asked for (MADV_NOHUGEPAGE accepted)"
        } else {
            "not guaranteed (MADV_NOHUGEPAGE refused)"
        }
    );
    println!(
        "  cold pass      : {} ns, {} minor page faults during it (getrusage)",
        begun.cold_ns,
        show_opt(begun.cold_faults)
    );
    println!(
        "  then           : filled with (i & 7) * 0.25; the loop repeated for {} ms ({} passes); one more pass discarded",
        set.settle_ms, begun.settle_passes
    );
    meta("settle_passes", begun.settle_passes);
    let a: &[f32] = begun.array();

    // == The instrument.
    exp.section("the clock, and the latency of one float add");
    let probe = clock::probe(11, if set.quick { 5_000 } else { 20_000 });
    let step = probe.min_step_ns;
    let read = probe.gettime_cost_ns.median;
    println!("  smallest non-zero step of the clock : {step:.0} ns");
    println!("  one clock_gettime(MONOTONIC)        : {read:.1} ns (median of 11 batches)");
    meta("clock_min_step_ns", step);
    meta("clock_read_ns", format!("{read:.2}"));
    let cc = exp.core_clock();
    let add_lat = kernel::add_latency_ns(if set.quick { 5 } else { 11 });
    match &add_lat {
        Some(l) => {
            println!(
                "  one dependent scalar float add      : {:.3} ns{} (a register-only chain in inline assembly)",
                l.median,
                cc.cycles(l.median)
                    .map_or(String::new(), |c| format!(", {c:.2} cycles"))
            );
            meta("add_latency_ns", format!("{:.4}", l.median));
        }
        None => {
            println!(
                "  one dependent scalar float add      : unknown (no chain kernel for this architecture)"
            );
            meta("add_latency_ns", "unknown");
        }
    }

    // == Part 1: what happens to the sum.
    exp.section(&format!(
        "part 1: three ways to treat the result ({reps} passes each, taken round-robin a b c a b c ...)"
    ));
    // One warm-up pass of each variant, discarded.
    let mut out = 0.0f32;
    black_box(sink_bench_time_discarded(black_box(a)));
    black_box(sink_bench_time_sink(black_box(a)));
    black_box(sink_bench_time_checksum(black_box(a), &mut out));
    let mut passes = [
        Vec::with_capacity(reps),
        Vec::with_capacity(reps),
        Vec::with_capacity(reps),
    ];
    let mut checksum = 0.0f64;
    for _ in 0..reps {
        passes[0].push(sink_bench_time_discarded(black_box(a)) as f64);
        passes[1].push(sink_bench_time_sink(black_box(a)) as f64);
        let mut sum = 0.0f32;
        passes[2].push(sink_bench_time_checksum(black_box(a), &mut sum) as f64);
        checksum += f64::from(sum);
    }
    let expected = reps as f64 * f64::from(PASS_SUM);
    let checksum_ok = checksum == expected;
    let checksum_text = format!(
        "{checksum:.1} over {reps} passes, expected {expected:.1} ({PASS_SUM:.1} per pass): {}",
        if checksum_ok { "ok" } else { "MISMATCH" }
    );
    println!("  checksum {checksum_text}");
    meta("checksum", checksum);
    meta("checksum_expected", expected);
    if !checksum_ok {
        eprintln!("sink_bench: error: checksum {checksum_text}");
        std::process::exit(1);
    }
    let labels = [
        "(a) sum discarded",
        "(b) sum passed to black_box",
        "(c) sum stored for the checksum",
    ];
    let keys = ["discarded", "sink", "checksum"];
    let p1: Vec<SeriesStats> = (0..3)
        .map(|v| SeriesStats::of(keys[v], labels[v], &passes[v]).expect("reps >= 10"))
        .collect();
    let (sa, sb, sc) = (&p1[0].summary, &p1[1].summary, &p1[2].summary);
    println!(
        "\n  {:<34} {:>11} {:>11} {:>11} {:>11} {:>9}",
        "variant", "median ns", "min ns", "max ns", "ns/element", "vs (b)"
    );
    for st in &p1 {
        let s = &st.summary;
        println!(
            "  {:<34} {:>11.0} {:>11.0} {:>11.0} {:>11.4} {:>9.5}",
            st.label,
            s.median,
            s.min,
            s.max,
            s.median / N as f64,
            s.median / sb.median
        );
    }
    let mut block = Block::new(
        "part1_passes",
        &["round", "discarded_ns", "sink_ns", "checksum_ns"],
    );
    let [pa, pb, pc] = &passes;
    for (r, ((a, b), c)) in pa.iter().zip(pb).zip(pc).enumerate() {
        block.row(vec![r.into(), (*a).into(), (*b).into(), (*c).into()]);
    }
    block.print();

    // (a) against the clock: is anything left between the two reads?
    let floor = step.max(read);
    let a_share_med = sa.median / sb.median * 100.0;
    let a_share_max = sa.max / sb.median * 100.0;
    let s = if sa.median <= 3.0 * floor {
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
    };
    println!("  * {s}");
    says.push(s);
    let cb = sc.median / sb.median;
    let s = if (cb - 1.0).abs() < 0.02 {
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
    };
    println!("  * {s}");
    says.push(s);
    let per_elem = sb.median / N as f64;
    let where_fits = exp.facts.where_fits((N * 4) as u64);
    let cycles = cc
        .cycles(per_elem)
        .zip(cc.ghz)
        .map_or(String::new(), |(c, g)| {
            format!(", {c:.2} cycles at the {g:.2} GHz estimate")
        });
    let s = match &add_lat {
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
    };
    println!("  * {s}");
    says.push(s);

    // == Part 2: one process, RUNS consecutive passes; RUNS fresh processes, one pass each.
    exp.section(&format!(
        "part 2: one run is not a measurement (variant (b): {runs} passes in this process, one in each of {runs} fresh processes)"
    ));
    black_box(sink_bench_time_sink(black_box(a))); // discarded warm-up
    let warm_in: Vec<f64> = (0..runs)
        .map(|_| sink_bench_time_sink(black_box(a)) as f64)
        .collect();
    let exe = std::env::current_exe().unwrap_or_else(|e| {
        eprintln!(
            "sink_bench: error: cannot find this program's own file to start fresh processes: {e}"
        );
        std::process::exit(1)
    });
    let spec = fresh::ChildSpec {
        settle_ms: set.settle_ms,
        core,
    };
    // The first execution of a process of this binary is run and discarded as the binary's
    // own warm-up; then RUNS fresh processes, one after the other.
    let first = fresh::run_child(&exe, spec).unwrap_or_else(|e| child_failed(0, runs, &e));
    let kids: Vec<fresh::ChildResult> = (1..=runs)
        .map(|k| fresh::run_child(&exe, spec).unwrap_or_else(|e| child_failed(k, runs, &e)))
        .collect();
    let warm_fresh: Vec<f64> = kids.iter().map(|k| k.warm_ns as f64).collect();
    let cold_fresh: Vec<f64> = kids.iter().map(|k| k.cold_ns as f64).collect();
    let win =
        SeriesStats::of("warm_in_process", "warm pass, one process", &warm_in).expect("runs >= 10");
    let wfr = SeriesStats::of("warm_fresh", "warm pass, fresh processes", &warm_fresh)
        .expect("runs >= 10");
    let pinned_kids = kids.iter().filter(|k| k.pinned == Some(true)).count();
    let cpus: std::collections::BTreeSet<usize> = kids.iter().filter_map(|k| k.cpu).collect();
    println!(
        "  fresh processes: {runs} measured after one discarded; {}; they ran their warm pass on core(s) {:?}",
        if core.is_some() {
            format!("{pinned_kids} of {runs} pinned and verified")
        } else {
            "unpinned".to_string()
        },
        cpus
    );
    println!(
        "  first execution (discarded): cold pass {} ns, warm pass {} ns",
        first.cold_ns, first.warm_ns
    );
    report::print_spread_header();
    report::print_spread(&win);
    report::print_spread(&wfr);
    let mut b = Block::new("warm_in_process", &["pass", "ns"]);
    for (i, v) in warm_in.iter().enumerate() {
        b.row(vec![i.into(), (*v).into()]);
    }
    b.print();
    let mut b = Block::new(
        "fresh_processes",
        &[
            "process",
            "cold_ns",
            "warm_ns",
            "cold_faults",
            "warm_faults",
            "cpu",
        ],
    );
    for (i, k) in kids.iter().enumerate() {
        b.row(vec![
            (i + 1).into(),
            k.cold_ns.into(),
            k.warm_ns.into(),
            k.cold_faults.into(),
            k.warm_faults.into(),
            k.cpu.into(),
        ]);
    }
    b.print();
    let mut b = Block::new(
        "fresh_first_discarded",
        &["cold_ns", "warm_ns", "cold_faults", "warm_faults"],
    );
    b.row(vec![
        first.cold_ns.into(),
        first.warm_ns.into(),
        first.cold_faults.into(),
        first.warm_faults.into(),
    ]);
    b.print();

    let (mi, mf) = (&win.summary, &wfr.summary);
    let med_ratio = mf.median / mi.median;
    let s = format!(
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
    );
    println!("  * {s}");
    says.push(s);
    // The slowest single pass, in whichever series spreads more.
    let (wide, wide_name) = if mf.max_over_min >= mi.max_over_min {
        (&wfr, format!("one of the {runs} fresh processes"))
    } else {
        (&win, format!("one of the {runs} passes in one process"))
    };
    if let Some(w) = report::worst(&wide.samples, 5.0) {
        let s = format!(
            "A single run is not: {wide_name} took {:.0} ns for its warm pass, {:.3} times the minimum, so a comparison with one run per side has one chance in {runs} of reporting a {:.1} % difference that is not there; {} of the {} pairs that contain that pass, {:.1} % of the {}, differ by more than 5 %.",
            w.value,
            w.over_min,
            (w.over_min - 1.0) * 100.0,
            w.pairs_over,
            w.pairs_with_it,
            w.pairs_over as f64 / wide.pairs() as f64 * 100.0,
            wide.pairs()
        );
        println!("  * {s}");
        says.push(s);
    }
    let (oi, of) = (win.over.expect("runs >= 10"), wfr.over.expect("runs >= 10"));
    let clean = report::THRESHOLDS
        .iter()
        .zip(oi.iter().zip(&of))
        .find(|(_, (a, b))| **a == 0.0 && **b == 0.0)
        .map(|(p, _)| *p);
    let first_dirty = report::THRESHOLDS
        .iter()
        .zip(oi.iter().zip(&of))
        .find(|(_, (a, b))| **a > 0.0 || **b > 0.0)
        .map(|(p, _)| *p);
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
    let med_diff = (med_ratio - 1.0).abs() * 100.0;
    s.push_str(&if med_diff < 2.0 {
        format!(
            " Only the medians of {runs}, which agree within {med_diff:.1} %, are a measurement."
        )
    } else {
        format!(
            " Even the medians of {runs} differ by {med_diff:.1} % between one process and fresh ones: the process itself (its placement, its layout, the frequency it ran at) is part of what was measured."
        )
    });
    println!("  * {s}");
    says.push(s);

    // == Part 3: the cold pass, one shot against RUNS.
    exp.section(&format!(
        "part 3: the cold pass, one shot in this process against {runs} fresh processes"
    ));
    let cin = SeriesStats::of(
        "cold_in_process",
        "cold pass, one process (one shot)",
        &[begun.cold_ns as f64],
    )
    .expect("one sample");
    let cfr = SeriesStats::of("cold_fresh", "cold pass, fresh processes", &cold_fresh)
        .expect("runs >= 10");
    report::print_spread_header();
    report::print_spread(&cin);
    report::print_spread(&cfr);
    let shot = begun.cold_ns as f64;
    let cf = &cfr.summary;
    let faster = cold_fresh.iter().filter(|&&v| v < shot).count();
    let fault_med = Summary::of(
        &kids
            .iter()
            .filter_map(|k| k.cold_faults.map(|f| f as f64))
            .collect::<Vec<_>>(),
    )
    .map(|s| s.median);
    let warm_fault_max = kids.iter().filter_map(|k| k.warm_faults).max();
    println!(
        "  page faults    : {} during this process's cold pass, median {} in the fresh ones' cold passes, at most {} in their warm passes",
        show_opt(begun.cold_faults),
        fault_med.map_or("unknown".into(), |f| format!("{f:.0}")),
        show_opt(warm_fault_max)
    );
    let mut b = Block::new("cold_in_process", &["ns", "faults"]);
    b.row(vec![shot.into(), begun.cold_faults.into()]);
    b.print();
    let position = if shot < cf.min {
        format!("below every one of the {runs} fresh cold passes")
    } else if shot > cf.max {
        format!("above every one of the {runs} fresh cold passes")
    } else {
        format!("{faster} of the {runs} fresh cold passes were faster")
    };
    let s = format!(
        "The cold pass says the same in one line: this process has one number for it, {shot:.0} ns, and {runs} fresh processes taking the same pass have a min of {:.0} ns, a median of {:.0} ns and a max of {:.0} ns, cv {:.1} % and max over min {:.3}; the single shot sits at {:.3} of the median and {:.3} of the minimum ({position}), and nothing in the one number says where in that span it fell.",
        cf.min,
        cf.median,
        cf.max,
        cf.cv * 100.0,
        cf.max_over_min,
        shot / cf.median,
        shot / cf.min
    );
    println!("  * {s}");
    says.push(s);
    let cold_over_warm = cf.median / mf.median;
    let s = match fault_med {
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
    };
    println!("  * {s}");
    says.push(s);

    // == The code that was timed, read back out of this binary.
    exp.section("the code that was timed, disassembled from this binary (nm -S, objdump -d)");
    let code_note = asm::show(&exe, &mut says);

    // == Conditions, then the RESULT lines the summary is built from.
    let load_after = measure::facts::load_average();
    let fmt_load = |l: Option<[f64; 3]>| {
        l.map_or("unknown".to_string(), |[a, b, c]| {
            format!("{a:.2} {b:.2} {c:.2}")
        })
    };
    let s = match (exp.load_before, load_after) {
        (Some([b, ..]), Some([a, ..])) if b > 1.0 || a > 1.0 => format!(
            "The load average was {b:.2} before the run and {a:.2} after it: other work ran on this {}-core machine, so the spreads above include whatever of it reached the benchmark's core; a run at a load below 1 is the one to compare against.",
            exp.facts
                .logical_cores
                .map_or("?".to_string(), |n| n.to_string())
        ),
        (Some([b, ..]), Some([a, ..])) => format!(
            "The load average was {b:.2} before the run and {a:.2} after it, below 1: little else ran beside the benchmark."
        ),
        _ => "The load average could not be read, so how much other work ran beside the benchmark is unknown.".to_string(),
    };
    println!("\n  * {s}");
    says.push(s);

    exp.section("RESULT lines (sink_bench --summarize builds the summary table from these)");
    results.push(note_line(
        "run",
        &format!(
            "{} run, REPS {reps}, RUNS {runs}, SETTLE_MS {}",
            if set.quick {
                "a quick (smoke)"
            } else {
                "a full"
            },
            set.settle_ms
        ),
    ));
    results.push(note_line(
        "machine",
        &format!(
            "{} ({}, {} logical cores, kernel {})",
            exp.facts.cpu_model.as_deref().unwrap_or("unknown CPU"),
            exp.facts.arch,
            exp.facts
                .logical_cores
                .map_or("?".to_string(), |n| n.to_string()),
            exp.facts.kernel.as_deref().unwrap_or("unknown")
        ),
    ));
    results.push(note_line(
        "pinning",
        &match core {
            Some(c) => format!(
                "this process and the fresh ones pinned to core {c} ({pinned_kids} of {runs} fresh pinnings verified)"
            ),
            None => "none: the kernel placed every process".to_string(),
        },
    ));
    results.push(note_line("load_before", &fmt_load(exp.load_before)));
    results.push(note_line("load_after", &fmt_load(load_after)));
    results.push(note_line(
        "clock",
        &format!("smallest step {step:.0} ns, one read {read:.1} ns"),
    ));
    results.push(note_line("checksum", &checksum_text));
    results.push(note_line("code", &code_note));
    for st in p1.iter().chain([&win, &wfr, &cin, &cfr]) {
        results.push(st.result_line());
    }
    let fig = |k: &str, v: Option<f64>, u: &str, l: &str| figure_line(k, v, u, l);
    results.push(fig(
        "clock_step",
        Some(step),
        "ns",
        "smallest step of the clock",
    ));
    results.push(fig(
        "a_over_b_median",
        Some(sa.median / sb.median),
        "x",
        "(a) median / (b) median",
    ));
    results.push(fig(
        "a_max_over_b_median",
        Some(sa.max / sb.median),
        "x",
        "(a) max / (b) median",
    ));
    results.push(fig(
        "c_over_b_median",
        Some(cb),
        "x",
        "(c) median / (b) median",
    ));
    results.push(fig(
        "ns_per_element",
        Some(per_elem),
        "ns",
        "(b) median per element",
    ));
    results.push(fig(
        "cycles_per_element",
        cc.cycles(per_elem),
        "cycles",
        "(b) median per element, at the core clock estimate",
    ));
    results.push(fig(
        "add_latency",
        add_lat.as_ref().map(|l| l.median),
        "ns",
        "one dependent scalar float add (register-only chain)",
    ));
    results.push(fig(
        "fresh_over_in_process_median",
        Some(med_ratio),
        "x",
        "warm pass: fresh-process median / in-process median",
    ));
    results.push(fig(
        "cold_shot_over_fresh_median",
        Some(shot / cf.median),
        "x",
        "cold pass: the one in-process shot / fresh-process median",
    ));
    results.push(fig(
        "cold_shot_over_fresh_min",
        Some(shot / cf.min),
        "x",
        "cold pass: the one in-process shot / fresh-process minimum",
    ));
    results.push(fig(
        "cold_over_warm",
        Some(cold_over_warm),
        "x",
        "cold pass / warm pass (fresh-process medians)",
    ));
    results.push(fig(
        "cold_faults",
        fault_med,
        "faults",
        "page faults in a fresh process's cold pass (median)",
    ));
    for s in &says {
        results.push(conclusion_line(s));
    }
    for r in &results {
        println!("{r}");
    }

    report::series_block(&[&p1[0], &p1[1], &p1[2], &win, &wfr, &cin, &cfr]).print();

    exp.key_figure("discarded_over_sink", sa.median / sb.median, "x");
    exp.key_figure("checksum_over_sink", cb, "x");
    exp.key_figure("warm_pass", mi.median, "ns");
    exp.key_figure("warm_in_process_max_over_min", mi.max_over_min, "x");
    exp.key_figure("warm_fresh_max_over_min", mf.max_over_min, "x");
    exp.key_figure("pairs_over_2pct_in_process", oi[0] * 100.0, "%");
    exp.key_figure("pairs_over_2pct_fresh", of[0] * 100.0, "%");
    exp.key_figure("cold_shot_over_fresh_median", shot / cf.median, "x");
    exp.finish();
}

fn show_opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("unknown".into(), |v| v.to_string())
}

fn child_failed(k: usize, runs: usize, why: &str) -> ! {
    let which = if k == 0 {
        "the first (discarded) fresh process".to_string()
    } else {
        format!("fresh process {k} of {runs}")
    };
    println!("  ! {which} failed: {why}");
    eprintln!("sink_bench: error: {which} failed: {why}");
    std::process::exit(1)
}
