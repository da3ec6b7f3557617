//! # sink_bench: measurement pitfalls
//!
//! Run with: `cargo run -p sink_bench` (about 5 s), `cargo run -p sink_bench -- --quick` or
//! `QUICK=1 cargo run -p sink_bench` (a smoke run of a couple of seconds),
//! `REPS=50 RUNS=50 cargo run -p sink_bench`, `-- --show-asm` for the machine code.
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
//! As in the seed, the binary's first execution is discarded: a plain run starts itself again
//! and the second execution measures (`fresh.rs`). The machine code of the three timing
//! functions is read back out of this binary and checked (`asm.rs`). Start reading here;
//! the loop is in `kernel.rs`, the report's lines in `report.rs`, the verdicts in
//! `verdicts.rs`, the `#DATA` blocks in `blocks.rs`.

use measure::cli;
use measure::clock;
use sink_bench::blocks::{self, Figures};
use sink_bench::fresh::{self, ChildResult, ChildSpec};
use sink_bench::kernel::{self, N, PASS_SUM};
use sink_bench::stats::SeriesStats;
use sink_bench::verdicts::{self, say};
use sink_bench::{asm, options, report};

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
    match fresh::discarded_first() {
        Ok(Some(first)) => run(first),
        Ok(None) => first_execution(),
        Err(e) => cli::fail("sink_bench", &e),
    }
}

/// The binary's first execution: bad input ends here (exit 2) and `--help` is answered; then
/// it makes the start, which is discarded, and starts the measuring execution.
fn first_execution() -> ! {
    let args = cli::parse("sink_bench", ABOUT, options::OPTS);
    let set = options::settings(&args, |k| std::env::var(k).ok())
        .unwrap_or_else(|e| cli::fail("sink_bench", &e));
    let core = if set.pin {
        measure::pin::default_core().unwrap_or_else(|e| cli::fail("sink_bench", &e))
    } else {
        None
    };
    // The same arguments; QUICK=1 becomes the flag, so that the run's #META says quick.
    let mut argv = cli::argv("sink_bench");
    if set.quick && !args.quick {
        argv.push("--quick".into());
    }
    let spec = ChildSpec {
        settle_ms: set.settle_ms,
        core,
    };
    fresh::first_execution(spec, &argv)
}

fn run(first: ChildResult) {
    let mut exp = measure::start!("sink_bench", ABOUT, options::OPTS);
    let set = options::settings(&exp.args, |k| std::env::var(k).ok())
        .unwrap_or_else(|e| cli::fail("sink_bench", &e));
    let (reps, runs) = (set.reps, set.runs);
    report::settings(&set);

    // One thread. Pinned to one core by default, the project's rule; the seed ran unpinned
    // because its machine had no affinity call, and --no-pin repeats that condition.
    let core = if set.pin {
        exp.pin_main_thread()
            .filter(|p| p.granted)
            .map(|p| p.requested)
    } else {
        report::unpinned();
        None
    };

    // == The cold pass comes first, before anything else touches this process's memory, so
    // that it is the same first pass that every fresh process makes (part 3).
    exp.section("the start every process makes: a fresh 4 MiB array, its cold pass, the settle");
    let mut begun = fresh::begin(set.settle_ms).unwrap_or_else(|e| {
        eprintln!("sink_bench: error: {e}");
        std::process::exit(1)
    });
    let page = exp.facts.page_size.unwrap_or(4096);
    let pages = (N * 4) as u64 / page;
    report::start(&begun, page, pages, set.settle_ms);
    report::execution(&first);
    let a: &[f32] = begun.array();

    // == The instrument.
    exp.section("the clock, and the latency of one float add");
    let probe = clock::probe(11, if set.quick { 5_000 } else { 20_000 });
    let (step, read) = (probe.min_step_ns, probe.gettime_cost_ns.median);
    report::clock(step, read);
    let cc = exp.core_clock();
    let add_lat = kernel::add_latency_ns(if set.quick { 5 } else { 11 });
    report::add_latency(add_lat.as_ref(), &cc);

    // == Part 1: what happens to the sum.
    exp.section(&format!(
        "part 1: three ways to treat the result ({reps} passes each, round-robin a b c a b c ...)"
    ));
    let (passes, checksum) = kernel::round_robin(a, reps);
    let expected = reps as f64 * f64::from(PASS_SUM);
    report::checksum(checksum, expected, reps);
    if checksum != expected {
        eprintln!("sink_bench: error: checksum {checksum} over {reps} passes, not {expected}");
        std::process::exit(1);
    }
    let p1: Vec<SeriesStats> = passes
        .iter()
        .zip(VARIANTS)
        .map(|(p, (key, label))| SeriesStats::of_passes(key, label, p))
        .collect();
    report::part1_table(&p1);
    blocks::part1(&passes);
    let (sa, sb, sc) = (&p1[0].summary, &p1[1].summary, &p1[2].summary);
    let per_elem = sb.median / N as f64;
    say("dead_loop", &verdicts::dead_loop(sa, sb, step, read));
    say("consumed", &verdicts::consumed(sb, sc));
    let where_fits = exp.facts.where_fits((N * 4) as u64);
    let pace = verdicts::pace(per_elem, &cc, add_lat.as_ref(), &where_fits);
    say("pace", &pace);

    // == Part 2: one process, RUNS consecutive passes; RUNS fresh processes, one pass each.
    exp.section(&format!(
        "part 2: one run is not a measurement ((b): {runs} passes here, {runs} fresh processes)"
    ));
    let warm_in = kernel::warm_passes(a, runs);
    let exe = fresh::own_exe();
    let kids = fresh::run_series(&exe, set.settle_ms, core, runs);
    let warm_fresh: Vec<f64> = kids.iter().map(|k| k.warm_ns as f64).collect();
    let win = SeriesStats::of_passes("warm_in_process", "warm, one process", &warm_in);
    let wfr = SeriesStats::of_passes("warm_fresh", "warm, fresh processes", &warm_fresh);
    let pinned_fresh = kids.iter().filter(|k| k.pinned == Some(true)).count();
    report::fresh_processes(core, pinned_fresh, &kids);
    report::spread_table(&[&win, &wfr]);
    blocks::part2(&warm_in, &first, &kids);
    let (mi, mf) = (&win.summary, &wfr.summary);
    say("well_defined", &verdicts::well_defined(mi, mf));
    if let Some(s) = verdicts::single_run(&win, &wfr, runs) {
        say("single_run", &s);
    }
    say("pairs", &verdicts::pair_shares(&win, &wfr, runs));

    // == Part 3: the cold pass, one shot against RUNS.
    exp.section(&format!(
        "part 3: the cold pass, one shot in this process against {runs} fresh processes"
    ));
    let shot = begun.cold_ns as f64;
    let cold_fresh: Vec<f64> = kids.iter().map(|k| k.cold_ns as f64).collect();
    let cin = SeriesStats::of_passes("cold_in_process", "cold, one process (1 shot)", &[shot]);
    let cfr = SeriesStats::of_passes("cold_fresh", "cold, fresh processes", &cold_fresh);
    report::spread_table(&[&cin, &cfr]);
    let (fault_med, warm_fault_max) = fresh::fault_counts(&kids);
    report::faults(begun.cold_faults, fault_med, warm_fault_max);
    blocks::cold(shot, begun.cold_faults);
    let cf = &cfr.summary;
    say("one_shot", &verdicts::one_shot(shot, &cold_fresh, cf, runs));
    let cold_over_warm = cf.median / mf.median;
    let cost = verdicts::cold_cost(cold_over_warm, fault_med, warm_fault_max, pages);
    say("cold_cost", &cost);

    // == The code that was timed, read back out of this binary.
    exp.section("the code that was timed, read back from this binary (nm -S, objdump -d)");
    report::code(&asm::CodeCheck::of(&exe), set.show_asm);

    blocks::series(&[&p1[0], &p1[1], &p1[2], &win, &wfr, &cin, &cfr]);
    blocks::figures(&Figures {
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
    });
    let (oi, of) = (win.over.unwrap_or([0.0; 3]), wfr.over.unwrap_or([0.0; 3]));
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
