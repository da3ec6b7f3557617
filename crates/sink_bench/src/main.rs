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
use measure::disturb::{Load, Probe, Tally, Window};
use measure::rounds::{self, Timed, Want};
use measure::stats::Summary;
use sink_bench::blocks::{self, Figures};
use sink_bench::fresh::{self, ChildResult, ChildSpec};
use sink_bench::kernel::{self, N, PASS_SUM};
use sink_bench::stats::SeriesStats;
use sink_bench::verdicts;
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

/// The seed's run.sh warns when the 1-minute load average is above this.
const LOAD_WARN_ABOVE: f64 = 1.0;

/// Extra passes, beyond the ones asked for, are taken only within this time, and only when
/// passes were disturbed.
const EXTRA_NS: u64 = 250_000_000;

fn run(first: ChildResult) {
    let mut exp = measure::start!("sink_bench", ABOUT, options::OPTS);
    exp.key_sources(::sink_bench::schema::KEY_SOURCES);
    let set = options::settings(&exp.args, |k| std::env::var(k).ok())
        .unwrap_or_else(|e| cli::fail("sink_bench", &e));
    report::settings(&mut exp.out, &set);

    // One thread, nothing pinned, as the seed ran; --pin departs from it and says so.
    exp.warn_on_load_above(LOAD_WARN_ABOVE);
    let core = if set.pin {
        report::pinned_by_option();
        exp.pin_main_thread()
            .filter(|p| p.granted)
            .map(|p| p.requested)
    } else {
        report::unpinned(&mut exp.out);
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
    report::start(&mut exp.out, &begun, page, pages, set.settle_ms);
    report::execution(&mut exp.out, &first);
    report::rounds(EXTRA_NS);
    let (cold_shot, cold_ev, cold_faults) = (begun.cold_ns, begun.cold_ev, begun.cold_faults);
    let a: &[f32] = begun.array();

    let mut probe = Probe::new();
    let p1 = part1(&mut exp, &mut probe, a, &set, core);
    let exe = fresh::own_exe();
    let p2 = part2(&mut exp, &mut probe, a, &set, core, &exe, &first);
    let cold = Timed {
        values: vec![cold_shot as f64],
        evidence: vec![cold_ev],
    };
    let (cin, cfr) = part3(&mut exp, &p2, &cold, cold_faults, pages, set.runs);

    // == The code that was timed, read back out of this binary.
    exp.section("the code that was timed, read back from this binary (nm -S, objdump -d)");
    report::code(&mut exp.out, &asm::CodeCheck::of(&exe), set.show_asm);
    record(&mut exp, &p1, &p2, &cin, &cfr);
    exp.finish();
}

/// What parts 1 and the clock section measured.
struct Part1 {
    series: Vec<SeriesStats>,
    step: f64,
    add_lat: Option<Summary>,
    cc: clock::CoreClock,
}

/// The clock and the add chain, then part 1: what happens to the sum.
fn part1(
    exp: &mut measure::run::Experiment,
    probe: &mut Probe,
    a: &[f32],
    set: &options::Settings,
    core: Option<usize>,
) -> Part1 {
    exp.section("the clock, and the latency of one float add");
    let clock = clock::probe(11, if set.quick { 5_000 } else { 20_000 });
    let (step, read) = (clock.min_step_ns, clock.gettime_cost_ns.median);
    report::clock(&mut exp.out, step, read);
    let cc = exp.core_clock();
    let chains = Want::new(if set.quick { 5 } else { 11 }).budget(EXTRA_NS);
    let add_t = kernel::add_latency_ns(probe, &chains);
    let add_lat = add_t.as_ref().and_then(Timed::summary);
    report::add_latency(&mut exp.out, add_lat.as_ref(), &cc);

    let reps = set.reps;
    exp.section(&format!(
        "part 1: three ways to treat the result ({reps} passes each, round-robin a b c a b c ...)"
    ));
    let want = Want::new(reps).budget(EXTRA_NS);
    println!("{}", measure::retake::line());
    let ((passes, checksum, sums), load) =
        measure::retake::take(core, || kernel::round_robin(probe, a, &want));
    let expected = sums as f64 * f64::from(PASS_SUM);
    report::checksum(&mut exp.out, checksum, expected, sums);
    if checksum != expected {
        eprintln!("sink_bench: error: checksum {checksum} over {sums} passes, not {expected}");
        std::process::exit(1);
    }
    let series: Vec<SeriesStats> = passes
        .iter()
        .zip(VARIANTS)
        .map(|(p, (key, label))| SeriesStats::of_passes(key, label, p))
        .collect();
    report::part1_table(&series);
    blocks::part1(&mut exp.out, &passes);
    let tally = rounds::tally(&passes).with_load(load);
    exp.disturbance("part1_passes", &tally);
    let per_elem = series[1].summary.median / N as f64;
    let where_fits = exp.facts.where_fits((N * 4) as u64);
    let pace = verdicts::pace(per_elem, &cc, add_lat.as_ref(), &where_fits);
    let chains = add_t.as_ref().map_or_else(Tally::default, Timed::tally);
    verdicts::say_all(
        &mut exp.out,
        &verdicts::part1(&series, step, read, pace, &tally.merge(&chains)),
    );
    Part1 {
        series,
        step,
        add_lat,
        cc,
    }
}

/// What part 2 measured: the warm passes here and in the fresh processes, and the load.
struct Part2 {
    win: SeriesStats,
    wfr: SeriesStats,
    kids: Vec<ChildResult>,
    load: Load,
}

/// Part 2: one process, RUNS consecutive passes; RUNS fresh processes, one pass each.
fn part2(
    exp: &mut measure::run::Experiment,
    probe: &mut Probe,
    a: &[f32],
    set: &options::Settings,
    core: Option<usize>,
    exe: &std::path::Path,
    first: &ChildResult,
) -> Part2 {
    let runs = set.runs;
    exp.section(&format!(
        "part 2: one run is not a measurement ((b): {runs} passes here, {runs} fresh processes)"
    ));
    let window = Window::open(core);
    let warm_in = kernel::warm_passes(probe, a, &Want::new(runs).budget(EXTRA_NS));
    let kids = fresh::run_series(exe, set.settle_ms, core, runs);
    let load = window.close();
    // The parent only waits for its fresh processes: their own waits say what ran on the core.
    let load = Load {
        on_core: match (load.on_core, fresh::waited_share(&kids)) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        },
        ..load
    };
    let win = SeriesStats::of_passes("warm_in_process", "warm, one process", &warm_in);
    let wfr = SeriesStats::of_passes(
        "warm_fresh",
        "warm, fresh processes",
        &fresh::passes(&kids, false),
    );
    let pinned_fresh = kids.iter().filter(|k| k.pinned == Some(true)).count();
    report::fresh_processes(&mut exp.out, core, pinned_fresh, &kids);
    report::spread_table(&[&win, &wfr]);
    blocks::part2(&mut exp.out, &warm_in, first, &kids);
    exp.disturbance("warm_in_process", &win.tally().with_load(load));
    exp.disturbance("fresh_processes", &fresh_tally(&kids).with_load(load));
    let tally = win.tally().merge(&wfr.tally()).with_load(load);
    verdicts::say_all(&mut exp.out, &verdicts::part2(&win, &wfr, runs, &tally));
    Part2 {
        win,
        wfr,
        kids,
        load,
    }
}

/// Every pass of the fresh processes, cold and warm, as one tally.
fn fresh_tally(kids: &[ChildResult]) -> Tally {
    rounds::tally([&fresh::passes(kids, true), &fresh::passes(kids, false)])
}

/// Part 3: the cold pass, one shot against RUNS.
fn part3(
    exp: &mut measure::run::Experiment,
    p2: &Part2,
    cold: &Timed,
    cold_faults: Option<u64>,
    pages: u64,
    runs: usize,
) -> (SeriesStats, SeriesStats) {
    exp.section(&format!(
        "part 3: the cold pass, one shot in this process against {runs} fresh processes"
    ));
    let cin = SeriesStats::of_passes("cold_in_process", "cold, one process (1 shot)", cold);
    let cfr = SeriesStats::of_passes(
        "cold_fresh",
        "cold, fresh processes",
        &fresh::passes(&p2.kids, true),
    );
    report::spread_table(&[&cin, &cfr]);
    let (fault_med, warm_fault_max) = fresh::fault_counts(&p2.kids);
    report::faults(cold_faults, fault_med, warm_fault_max);
    blocks::cold(&mut exp.out, cold.values[0], cold_faults, &cold.evidence[0]);
    exp.disturbance("cold_in_process", &cin.tally().with_load(p2.load));
    let cold_over_warm = cfr.summary.median / p2.wfr.summary.median;
    let cost = verdicts::cold_cost(cold_over_warm, fault_med, warm_fault_max, pages);
    let tally = cin.tally().merge(&cfr.tally()).with_load(p2.load);
    verdicts::say_all(
        &mut exp.out,
        &verdicts::part3(&cin, &cfr, runs, cost, &tally),
    );
    (cin, cfr)
}

/// The series, the figures and the key figures of a run.
fn record(
    exp: &mut measure::run::Experiment,
    p1: &Part1,
    p2: &Part2,
    cin: &SeriesStats,
    cfr: &SeriesStats,
) {
    let [s1a, s1b, s1c] = &p1.series[..] else {
        unreachable!("three variants")
    };
    let (sa, sb, sc) = (&s1a.summary, &s1b.summary, &s1c.summary);
    let (win, wfr) = (&p2.win, &p2.wfr);
    let (mi, mf, cf) = (&win.summary, &wfr.summary, &cfr.summary);
    let shot = cin.summary.median;
    let per_elem = sb.median / N as f64;
    blocks::series(&mut exp.out, &[s1a, s1b, s1c, win, wfr, cin, cfr]);
    blocks::figures(
        &mut exp.out,
        &Figures {
            clock_step: p1.step,
            a_over_b_median: sa.median / sb.median,
            a_max_over_b_median: sa.max / sb.median,
            c_over_b_median: sc.median / sb.median,
            ns_per_element: per_elem,
            cycles_per_element: p1.cc.cycles(per_elem),
            add_latency: p1.add_lat.as_ref().map(|l| l.median),
            fresh_over_in_process_median: mf.median / mi.median,
            cold_shot_over_fresh_median: shot / cf.median,
            cold_shot_over_fresh_min: shot / cf.min,
            cold_over_warm: cf.median / mf.median,
            cold_faults: fresh::fault_counts(&p2.kids).0,
        },
    );
    let (oi, of) = (win.over.unwrap_or([0.0; 3]), wfr.over.unwrap_or([0.0; 3]));
    exp.key_figure("discarded_over_sink", sa.median / sb.median, "x");
    exp.key_figure("checksum_over_sink", sc.median / sb.median, "x");
    exp.key_figure("warm_pass", mi.median, "ns");
    exp.key_figure("warm_in_process_max_over_min", mi.max_over_min, "x");
    exp.key_figure("warm_fresh_max_over_min", mf.max_over_min, "x");
    exp.key_figure("pairs_over_2pct_in_process", oi[0] * 100.0, "%");
    exp.key_figure("pairs_over_2pct_fresh", of[0] * 100.0, "%");
    exp.key_figure("cold_shot_over_fresh_median", shot / cf.median, "x");
}
