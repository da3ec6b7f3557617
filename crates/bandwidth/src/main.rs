//! # bandwidth: how many bytes a second each level of the memory delivers
//!
//! Run with: `cargo run -p bandwidth` (about 15 seconds; add `-- --quick` for a smoke run of
//! a few seconds, `-- --max 512M` to go further, `-- --threads N` to use at most N cores).
//!
//! The appendix measures how long one access waits (cache_ladder). This measures the other
//! half of the memory's character: how many bytes a second each level can deliver when the
//! program asks for them in order, so that the machine can fetch ahead. Read (sum every
//! word), write (fill every word) and copy (one half into the other) are timed over working
//! sets from 4 KiB to four times the last-level cache, two sizes per octave, each as the
//! plain Rust loop (vectorised by the compiler) and as explicit vector code at the widest
//! width the CPU reports; write and copy once more with non-temporal stores, which bypass
//! the caches. Then every core at once, each on its own region; and the latency of one
//! pointer chase while the other cores stream, against the same chase with them idle.
//!
//! Every size is measured in two passes in different orders, with their agreement checked;
//! the boundaries between the levels are read from the curve, beside the sizes the machine
//! reports; and every verdict is computed from this run's numbers.

mod boundaries;
mod kernels;
mod latency;
mod limit;
mod reading;
mod report;
mod shape;
mod sweep;
mod team;
mod verdict;

use kernels::{Form, Fun, Op, Width};
use measure::cli::{self, Opt};
use measure::disturb::Site;
use measure::disturb::{Probe, Tally, Window};
use measure::fmt::bytes as size;
use measure::mem::{self, HugeAdvice, room_for};
use measure::out::Out;
use measure::retake;
use measure::run::Experiment;
use measure::scan::{self, TWO_PASSES};
use report::{Row, find, say};

const OPTS: &[Opt] = &[
    Opt {
        name: "--max",
        value: Some("SIZE"),
        help: "largest working set (default: 4x the largest reported cache, 128M..1G; 2x, 64M..256M with --quick)",
    },
    Opt {
        name: "--threads",
        value: Some("N"),
        help: "use at most N cores for the all-cores rows and the streamers (default: all)",
    },
];

/// Bytes each streamer reads between looks at its on/off switch (and counts at a time).
const CHUNK: usize = 256 << 10;

fn main() {
    let mut exp = measure::start!(
        "bandwidth",
        "bytes a second by working set (read, write, copy), all cores, latency under load",
        OPTS
    );
    exp.key_sources(::bandwidth::schema::KEY_SOURCES);
    let setup = setup(&mut exp);

    // == 1. What will be measured: the kernels, the clock, the memory.
    exp.section(
        "1. the kernels (their code read back from this binary), the core clock, the memory",
    );
    let kit = the_kernels(&mut exp);
    let mut memory = memory(&exp, &setup);
    let plan = sweep::Plan::new(setup.quick);
    describe(&mut exp.out, &setup, &kit, &memory, &plan);

    // == 2. Bandwidth by working set, every size in two passes in different orders.
    exp.section(
        "2. bandwidth by working set (GB/s, median of both passes' clean rounds or rebuilt repetitions)",
    );
    let words = memory.main.region.as_u64_mut();
    let (rows, sweep_tally, segments_ns, repeated) = by_working_set(
        &kit.kernels,
        words,
        &setup.sizes,
        &plan,
        setup.core,
        &exp.facts,
    );
    exp.out.meta("rounds_repeated_off_core", repeated);
    let facts = exp.facts.clone();
    report::table(
        &mut exp.out,
        &rows,
        &kit.kernels,
        kit.width,
        &|b| facts.where_fits(b),
        &kit.cc,
    );
    report::segmented(&mut exp.out, &rows, &segments_ns);
    let beyond = reading::beyond_caches(&rows, setup.largest);
    // Sections 2 and 4 read the smallest and the largest set: theirs are the marks.
    let ends = reading::ends(&rows);
    let said = reading::bandwidth(&rows, &kit.kernels, beyond, &ends);
    read_out(&mut exp.out, &said, "bandwidth");
    exp.disturbance(::bandwidth::schema::bandwidth::BLOCK, &sweep_tally);

    // == 3. Where the bandwidth falls, beside the sizes the machine reports.
    exp.section("3. boundaries read from the explicit read's curve, beside the reported sizes");
    let reported = exp.facts.reported_caches();
    let found = boundaries::find(&report::points(&rows, kit.explicit_read().0));
    report::boundaries(&mut exp.out, &found, &reported);
    let falls = reading::Falls::of(&found, &reported);
    let said = reading::boundaries(falls, &reported, setup.largest, beyond, &sweep_tally);
    read_out(&mut exp.out, &said, "boundaries");
    exp.disturbance(::bandwidth::schema::boundaries::BLOCK, &sweep_tally);

    // == 4. Non-temporal stores: where they win, where they lose.
    exp.section(&format!(
        "4. non-temporal stores: where they win, where they lose (stream over {})",
        kit.width.name()
    ));
    let (nt_gain, nt_write) =
        report::non_temporal(&mut exp.out, &rows, &kit.kernels, kit.width, beyond);
    if let Some(ratios) = nt_write {
        let last = rows.last().map_or(0, |r| r.bytes as u64);
        for s in reading::non_temporal(ratios, last, beyond, &ends) {
            exp.out.conclude(&s);
        }
    }

    // == 5. All cores at the largest working set, each thread on its own region.
    exp.section(&format!(
        "5. all cores: each thread reads its own {} (the explicit read)",
        size(memory.region)
    ));
    let scaled = all_cores(&mut exp, &kit, &setup, &mut memory, &plan);

    // == 6. Latency under load: a pointer chase beside streaming cores, against it alone.
    exp.section("6. latency under load: a pointer chase while the other cores stream");
    let loaded = loaded_latency(&mut exp, &kit, &setup, &mut memory, &scaled);

    // == 7. Verdicts, computed from the numbers above.
    exp.section("7. verdicts (the explicit kernels; B/cyc: bytes per core cycle)");
    let seen = verdict::Seen {
        threads: scaled.one.zip(scaled.all),
        threads_tally: scaled.tally,
        read_insns_per_load: kit.read_insns_per_load(),
        stream_gain: nt_gain,
        loaded: loaded.map(|v| {
            (
                v.idle.map(|i| i.median),
                v.loaded.map(|l| l.median),
                v.ratio,
            )
        }),
    };
    verdict::print(
        &mut exp,
        &rows,
        &kit.kernels,
        kit.lim.as_ref(),
        &kit.cc,
        &seen,
    );
    exp.disturbance(::bandwidth::schema::levels::BLOCK, &sweep_tally);
    exp.finish();
}

/// What this run measures: whether it is quick, the cores it may use (the first is the main
/// thread's), the pinned core if verified, the largest reported cache, and the working sets.
struct Setup {
    quick: bool,
    cores: Vec<usize>,
    core: Option<usize>,
    largest: Option<u64>,
    max: u64,
    sizes: Vec<usize>,
}

/// Reads the options, pins the main thread, and chooses the working sets: 4 KiB to 4x the
/// largest reported cache, checked against memory now.
fn setup(exp: &mut Experiment) -> Setup {
    let quick = exp.args.quick;
    let limit_cores = exp
        .args
        .count_given("--threads", 1, 1024)
        .map(|n| n as usize);
    // The cores, read before the main thread is pinned (a pinned thread sees only its core).
    let main_core = measure::pin::default_core().ok().flatten();
    let cores = team::cores(main_core, limit_cores);
    let pinned = exp.pin_main_thread();
    let core = pinned.filter(|p| p.verified()).map(|p| p.requested);
    let largest = exp.facts.largest_cache();
    let default_max = if quick {
        largest
            .map_or(64 << 20, |l| 2 * l)
            .clamp(64 << 20, 256 << 20)
    } else {
        largest
            .map_or(128 << 20, |l| 4 * l)
            .clamp(128 << 20, 1 << 30)
    };
    let mut max = exp.args.size_in("--max", default_max, 64 << 10, 1 << 40) & !4095;
    if let Err(e) = room_for(max) {
        if exp.args.value("--max").is_some() {
            cli::fail(exp.name, &format!("--max {}: {e}", size(max)));
        }
        while room_for(max).is_err() && max > 64 << 10 {
            max /= 2;
        }
    }
    let sizes = working_sets(max, quick);
    Setup {
        quick,
        cores,
        core,
        largest,
        max,
        sizes,
    }
}

/// A read kernel: sums `laps` laps over the words.
type ReadFn = fn(&[u64], u64) -> u64;

/// The kernels as built (their code read back), the per-core limit for this CPU, and the
/// core clock they are read against.
struct Kit {
    width: Width,
    kernels: Vec<kernels::Kernel>,
    shapes: Vec<shape::Shape>,
    lim: Option<limit::Limit>,
    cc: measure::clock::CoreClock,
}

impl Kit {
    /// The explicit read: its index among the kernels, and its code.
    fn explicit_read(&self) -> (usize, ReadFn) {
        let ri = find(&self.kernels, Op::Read, Form::Explicit).expect("an explicit read");
        match self.kernels[ri].fun {
            Fun::Read(f) => (ri, f),
            _ => unreachable!("the explicit read is a read"),
        }
    }

    /// Instructions per load of the explicit read, as built.
    fn read_insns_per_load(&self) -> Option<f64> {
        self.kernels
            .iter()
            .zip(&self.shapes)
            .find(|(k, _)| k.op == Op::Read && k.form == Form::Explicit)
            .and_then(|(_, s)| s.insns_per_access)
    }

    /// Bytes per access of the `form` read, as built.
    fn access_bytes(&self, form: Form) -> Option<usize> {
        self.kernels
            .iter()
            .zip(&self.shapes)
            .filter(|(k, _)| k.form == form && k.op == Op::Read)
            .find_map(|(_, s)| s.access_bytes)
    }
}

/// Section 1's kernels, read back from this binary, and the core clock.
fn the_kernels(exp: &mut Experiment) -> Kit {
    let width = Width::detect();
    let kernels = kernels::all(width);
    let shapes: Vec<shape::Shape> = kernels.iter().map(|k| shape::read_back(k.symbol)).collect();
    let lim = limit::lookup(exp.facts.cpu_family.as_deref(), width.bytes());
    report::kernels(&mut exp.out, width, &kernels, &shapes, lim.as_ref());
    let cc = exp.core_clock();
    Kit {
        width,
        kernels,
        shapes,
        lim,
        cc,
    }
}

/// The memory: the working sets' region, filled, and one region per other core (the largest
/// working set again where memory allows, halved until it does).
struct Memory {
    main: mem::Prepared,
    others: Vec<mem::Prepared>,
    region: u64,
}

fn memory(exp: &Experiment, setup: &Setup) -> Memory {
    let (max, cores) = (setup.max, setup.cores.len() as u64);
    let page = exp.facts.page_size.unwrap_or(4096) as usize;
    let mut main = mem::prepare(max as usize, HugeAdvice::Huge, page)
        .unwrap_or_else(|e| cli::fail(exp.name, &format!("no memory for the working sets: {e}")));
    let mut region = max;
    while region > 1 << 20 && room_for(max + region * (cores - 1)).is_err() {
        region /= 2;
    }
    let others: Vec<mem::Prepared> = setup.cores[1..]
        .iter()
        .map_while(|_| mem::prepare(region as usize, HugeAdvice::Huge, page).ok())
        .collect();
    fill(main.region.as_u64_mut());
    Memory {
        main,
        others,
        region,
    }
}

/// Section 1's account of the memory, the working sets and the rounds, recorded as `#META`,
/// and what the kernels' widths say about the build.
fn describe(out: &mut Out, setup: &Setup, kit: &Kit, memory: &Memory, plan: &sweep::Plan) {
    let (sizes, backing) = (&setup.sizes, memory.main.backing);
    say(
        "memory",
        &format!(
            "{} for the working sets + {} x {} for other cores; {}% huge pages",
            size(setup.max),
            memory.others.len(),
            size(memory.region),
            mem::backing_meta(backing)
        ),
    );
    say(
        "working sets",
        &format!(
            "{} .. {}, {} sizes, {}; passes {}, {}",
            size(sizes[0] as u64),
            size(*sizes.last().expect("at least one size") as u64),
            sizes.len(),
            if setup.quick {
                "one per octave"
            } else {
                "two per octave"
            },
            TWO_PASSES[0].name(),
            TWO_PASSES[1].name(),
        ),
    );
    report::rounds(plan);
    println!("{}", measure::retake::parts_line());
    out.meta("max_kib", setup.max / 1024);
    out.meta("huge_backing_pct", mem::backing_meta(backing));
    out.meta("rounds_per_pass", plan.rounds);
    out.meta("vector_bytes", kit.width.bytes());
    out.meta(::bandwidth::schema::META_EXPLICIT_WIDTH, kit.width.name());
    out.conclude(&widths_reading(
        kit.access_bytes(Form::Plain),
        kit.access_bytes(Form::Explicit),
    ));
}

/// What the plain loops' and the explicit kernels' bytes per access say about the build.
fn widths_reading(plain: Option<usize>, explicit: Option<usize>) -> String {
    match (plain, explicit) {
        (Some(p), Some(e)) if p < e => format!(
            "The plain loops move {p} bytes per access, the explicit kernels {e} ({:.0}x): the build \
             targets the baseline; only code chosen at run time uses the widest registers.",
            e as f64 / p as f64
        ),
        (Some(p), Some(e)) => format!(
            "The plain loops move {p} bytes per access, the explicit kernels {e}: this build \
             already uses the widest registers, so the two forms differ in how they are written, \
             not in width."
        ),
        _ => {
            "The kernels' code could not be read back, so their widths are as written, not checked."
                .to_string()
        }
    }
}

/// Section 5's result: one thread's and all threads' totals (GB/s), the rounds' evidence,
/// how many regions there were, and why a row was skipped.
struct Scaled {
    one: Option<f64>,
    all: Option<(usize, f64)>,
    tally: Tally,
    available: usize,
    short: String,
}

/// Section 5: every core at once, each thread reading its own region, by thread count.
fn all_cores(
    exp: &mut Experiment,
    kit: &Kit,
    setup: &Setup,
    memory: &mut Memory,
    plan: &sweep::Plan,
) -> Scaled {
    let read = kit.explicit_read().1;
    let (region, per) = (memory.region, memory.region as usize);
    let main_view: &[u64] = &memory.main.region.as_u64_mut()[..per / 8];
    let others = memory.others.iter_mut();
    let regions: Vec<&[u64]> = std::iter::once(main_view)
        .chain(others.map(|p| &p.region.as_u64_mut()[..per / 8]))
        .collect();
    let available = regions.len();
    let laps = ((if setup.quick { 4e6 } else { 20e6 }) * 30.0 / per as f64)
        .ceil()
        .max(1.0) as u64;
    exp.out.meta("threads_laps_per_run", laps);
    let bytes = per as f64 * laps as f64;
    // The workers are this process's threads on every core, so the window is opened for no
    // one core: other processes' work anywhere is what it names; each worker's evidence
    // judges its rounds, and the share is read on every core a team uses. Regions beyond the
    // caches, all of them together (they share the last level), read the memory reference too.
    // The rows are taken again, all together, while a core's share was unsteady and their own
    // rounds met no other work ([`retake::take_team`]).
    let used = &setup.cores[..setup.cores.len().min(available)];
    let all = (per * used.len().max(1)) as u64;
    let counts = thread_counts(available);
    let site = Site::over(None, all, &exp.facts);
    println!("{}", retake::team_line());
    let alone = |rows: &Vec<team::ThreadRow>| !rows_tally(rows).provisional();
    let (trows, load) = retake::take_team(site, used, alone, || {
        team::scaling(
            &counts,
            &setup.cores,
            &regions,
            plan.long_rounds,
            bytes,
            |r| read(r, laps),
        )
    });
    let tally = rows_tally(&trows).with_load(load);
    // Why a row is skipped: too few cores, or memory for too few regions.
    let short = if available < setup.cores.len() {
        format!(
            "memory for {available} region(s) of {} only, though {} cores may be used",
            size(region),
            setup.cores.len()
        )
    } else {
        format!("more cores than the {available} this run may use")
    };
    let totals = report::threads(&mut exp.out, &trows, &short, region);
    let said = reading::scaling(&trows, &totals, &tally);
    read_out(&mut exp.out, &said, "scaling");
    exp.disturbance(::bandwidth::schema::threads::BLOCK, &tally);
    Scaled {
        one: totals.first().map(|t| t.1),
        all: totals.last().copied(),
        tally,
        available,
        short,
    }
}

/// The tally of the all-cores rows' rounds, every row's together.
fn rows_tally(rows: &[team::ThreadRow]) -> Tally {
    rows.iter()
        .fold(Tally::default(), |t, r| t.merge(&r.total.tally()))
}

/// Section 6: the chase beside the other cores streaming, or why it was skipped.
fn loaded_latency(
    exp: &mut Experiment,
    kit: &Kit,
    setup: &Setup,
    memory: &mut Memory,
    scaled: &Scaled,
) -> Option<latency::Verdict> {
    let available = scaled.available;
    if available < 2 {
        let why = if available < setup.cores.len() {
            scaled.short.as_str()
        } else {
            "this run may use one core"
        };
        println!("  skipped: {why}; a loaded latency needs at least two");
        exp.out.meta("loaded_latency", "skipped");
        return None;
    }
    let per = memory.region as usize;
    let Memory { main, others, .. } = memory;
    let load = latency::Load {
        cores: &setup.cores[1..available],
        regions: others
            .iter_mut()
            .map(|p| &p.region.as_u64_mut()[..per / 8])
            .collect(),
        chunk: CHUNK,
        read: kit.explicit_read().1,
    };
    let chase = Chase {
        mem: main.region.as_u64_mut(),
        bytes: setup.max as usize,
        on: setup.cores[0],
        core: setup.core,
        quick: setup.quick,
    };
    Some(under_load(exp, chase, load, scaled.one, &kit.cc))
}

/// Section 2's measuring: every working set in two passes in different orders, each round
/// (or segment) judged by its evidence, each size and pass inside a window of its own on the
/// pinned `core` and taken again there when the core's share (or, for a set beyond the
/// caches by `facts`, the memory reference) was unsteady. Returns the
/// rows, their rounds with the load around them, the times of all clean segments, and how
/// many rounds were taken again because they were disturbed.
fn by_working_set(
    kernels: &[kernels::Kernel],
    words: &mut [u64],
    sizes: &[usize],
    plan: &sweep::Plan,
    core: Option<usize>,
    facts: &measure::facts::MachineFacts,
) -> (Vec<Row>, Tally, Vec<f64>, usize) {
    let mut probe = Probe::new();
    let mut parts = measure::retake::Parts::new();
    let scan = scan::run_named(
        sizes,
        &TWO_PASSES,
        |&b| size(b as u64),
        |&bytes, _| {
            // A set beyond the caches reads the memory reference too.
            let site = Site::over(core, bytes as u64, facts);
            let (m, load) = parts.take_at(site, || {
                sweep::measure(&mut probe, kernels, words, bytes, plan)
            });
            sweep::Measured { load, ..m }
        },
    );
    let rows: Vec<Row> = scan.points.iter().map(Row::of).collect();
    let disturbed: usize = scan
        .points
        .iter()
        .flat_map(|p| p.passes.iter().map(sweep::Measured::disturbed))
        .sum();
    let tally = rows
        .iter()
        .fold(Tally::default(), |t, r| t.merge(&r.tally()));
    let segments_ns = scan
        .points
        .iter()
        .flat_map(|p| &p.passes)
        .flat_map(|m| &m.kernels)
        .flat_map(|t| t.clean_segments_ns.iter().copied())
        .collect();
    (rows, tally, segments_ns, disturbed)
}

/// The chase of section 6: its memory (`bytes` of it), the core it runs on, that core if
/// pinned and verified, and whether the run is quick.
struct Chase<'a> {
    mem: &'a mut [u64],
    bytes: usize,
    on: usize,
    core: Option<usize>,
    quick: bool,
}

/// Section 6's measuring and reading: the chase idle and beside `load`, in short rounds judged
/// by their evidence, inside a window on the pinned core. A loaded round counts when the
/// streamers read at least half of what one thread alone read in section 5 (`one`), each:
/// otherwise other work held them off their cores.
fn under_load(
    exp: &mut Experiment,
    chase: Chase<'_>,
    load: latency::Load<'_>,
    one: Option<f64>,
    cc: &measure::clock::CoreClock,
) -> latency::Verdict {
    let line = exp.facts.line_size().value.unwrap_or(64) as usize;
    // Short rounds (a fraction of a millisecond), more of them, each after a warm-up.
    let plan = if chase.quick {
        measure::chase::Plan {
            rounds: 5,
            ..measure::chase::Plan::quick(0.25e6)
        }
    } else {
        measure::chase::Plan {
            rounds: 11,
            ..measure::chase::Plan::full(0.5e6, 5_000_000)
        }
    };
    let streamers = load.cores;
    let window = Window::open_at(Site::over(chase.core, chase.bytes as u64, &exp.facts));
    let ll = latency::measure(chase.mem, chase.bytes, line, &plan, load);
    let tally = ll.tally().with_load(window.close());
    let v = latency::judge(&ll, one.map(|o| 0.5 * o * streamers.len() as f64));
    say(
        "rounds",
        &format!(
            "{} clean rounds of each kind, each of {:.2} ms after a warm-up; up to {} extra \
             rounds / {:.0} ms when rounds are disturbed",
            plan.rounds,
            plan.round_ns / 1e6,
            latency::EXTRA_ROUNDS,
            latency::BUDGET_NS as f64 / 1e6
        ),
    );
    report::loaded(
        &mut exp.out,
        &ll,
        &v,
        cc,
        chase.bytes as u64,
        chase.on,
        streamers,
    );
    read_out(&mut exp.out, &reading::loaded(&v, &tally), "loaded");
    exp.disturbance(::bandwidth::schema::loaded_latency::BLOCK, &tally);
    v
}

/// Prints a section's marked sentences and records them as `#META verdict_<key>`.
fn read_out(out: &mut Out, sentences: &[String], key: &str) {
    for s in sentences {
        out.conclude(s);
    }
    out.meta(&format!("verdict_{key}"), sentences.join(" "));
}

/// The working sets: 4 KiB and 6 KiB, doubling, up to `max` (one per octave with `--quick`).
fn working_sets(max: u64, quick: bool) -> Vec<usize> {
    let mut v = Vec::new();
    let mut b = 4096u64;
    while b <= max {
        v.push(b as usize);
        if !quick && b / 2 * 3 <= max {
            v.push((b / 2 * 3) as usize);
        }
        b *= 2;
    }
    v
}

/// 1, 2, 4, 8, ... up to `available` (and `available` itself), and at least up to 8: rows
/// that need more cores than the run may use are kept, and printed as skipped.
fn thread_counts(available: usize) -> Vec<usize> {
    let mut v = Vec::new();
    let mut n = 1;
    while n <= available.max(8) {
        v.push(n);
        n *= 2;
    }
    if !v.contains(&available) {
        v.push(available);
        v.sort_unstable();
    }
    v
}

/// Writes a pattern (every word different, none zero) so that sums are never trivially 0.
fn fill(words: &mut [u64]) {
    for (i, w) in words.iter_mut().enumerate() {
        *w = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_widths_reading_follows_the_bytes_read_back() {
        let narrow = widths_reading(Some(8), Some(32));
        assert!(narrow.contains("explicit kernels 32 (4x): the build targets the baseline"));
        let same = widths_reading(Some(32), Some(32));
        assert!(same.contains("already uses the widest registers"), "{same}");
        assert!(widths_reading(None, Some(32)).contains("could not be read back"));
    }

    #[test]
    fn two_sizes_per_octave_or_one_with_quick() {
        let kib = |v: Vec<usize>| v.into_iter().map(|b| b >> 10).collect::<Vec<_>>();
        assert_eq!(
            kib(working_sets(64 << 10, false)),
            vec![4, 6, 8, 12, 16, 24, 32, 48, 64]
        );
        assert_eq!(kib(working_sets(64 << 10, true)), vec![4, 8, 16, 32, 64]);
        assert_eq!(kib(working_sets(100 << 10, false)).last(), Some(&96));
        // Every size and every copy half is a whole number of the kernels' blocks.
        for b in working_sets(1 << 30, false) {
            assert!((b / 2).is_multiple_of(kernels::BLOCK), "{b}");
        }
    }

    #[test]
    fn thread_rows_reach_eight_and_every_core() {
        assert_eq!(thread_counts(1), vec![1, 2, 4, 8]);
        assert_eq!(thread_counts(2), vec![1, 2, 4, 8]);
        assert_eq!(thread_counts(6), vec![1, 2, 4, 6, 8]);
        assert_eq!(thread_counts(16), vec![1, 2, 4, 8, 16]);
        assert_eq!(thread_counts(24), vec![1, 2, 4, 8, 16, 24]);
    }
}
