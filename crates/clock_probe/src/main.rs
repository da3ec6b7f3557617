//! # clock_probe: measure the measuring instrument first
//!
//! Run with: `cargo run -p clock_probe` (well under a second; `-- --quick` for a smoke run).
//!
//! What it does: the first section of the appendix "The machine, measured", in Rust. Before
//! anything else is timed it reads the machine's own numbers (each with where it came from),
//! asks what the clocks claim and measures what a reading costs, then walks into the three
//! traps of measuring on purpose: the optimiser deleting the work (with the appendix's guard,
//! "multiply the input by ten"), the first round paying for page faults, and one interruption
//! dragging the mean. Beyond the appendix it estimates the core's clock rate so that later
//! experiments can speak in cycles as well as nanoseconds.
//!
//! Where to start reading: `main` below, one block per section, each ending with what its
//! numbers say. The two sums of trap one are the first functions; the clock probe and the
//! core-clock estimate live in the shared library (`measure::clock`, `Experiment::core_clock`).

mod clocks;

use ::clock_probe::schema::key;
use measure::clock::{self, CoreClock, now_ns};
use measure::data::{Block, Value};
use measure::disturb::{Load, Probe, Tally, Window};
use measure::fmt::{grouped, median_min_max};
use measure::keep::black_box;
use measure::mem::{HugeAdvice, Region};
use measure::out::Out;
use measure::rounds::{self, Step, Want};
use measure::run::Experiment;
use measure::segments::{self, Segmented, Step as SegStep};
use measure::show::marked;
use measure::stats::{Summary, sorted_but_largest};

/// 1M `i32`: the 4 MiB array of the appendix's traps one and three.
const NA: usize = 1 << 20;

/// A sum whose result nobody uses: the compiler may delete the whole loop.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn clock_probe_sum_discarded(a: &[i32]) {
    let mut s: i64 = 0;
    for &x in a {
        s += i64::from(x);
    }
    let _ = s;
}

/// The same sum, returned to a caller that uses it: the loop must run.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn clock_probe_sum_kept(a: &[i32]) -> i64 {
    let mut s: i64 = 0;
    for &x in a {
        s += i64::from(x);
    }
    s
}

fn main() {
    let mut exp = measure::start!(
        "clock_probe",
        "the machine's numbers, the clock, and three traps of measuring",
        &[]
    );
    exp.key_sources(::clock_probe::schema::KEY_SOURCES);
    let quick = exp.args.quick;
    let core = exp.pin_main_thread().map(|p| p.requested);

    // == 1. The machine's numbers were printed by start!, each with its source.
    exp.section("1. this machine's numbers (read by the program itself, printed above)");
    exp.out.how_to_read(&facts_verdict(&exp.facts.caches));

    // == 2. Resolution: what the clocks claim.
    exp.section("2. clock resolution: what the clocks claim");
    // Batches of 10,000 readings (about 0.2 ms): short enough to fit between two preemptions.
    let (batches, per_batch) = if quick { (21, 5_000) } else { (101, 10_000) };
    let window = Window::open(core);
    let probe = clock::probe(batches, per_batch);
    let claims = claimed(&mut exp.out, &probe);
    // Table 105.1: which clocks go backwards (measured) and which jump when set (documented).
    clocks_table(&mut exp.out, if quick { 20_000 } else { 100_000 });

    // == 3. Cost: what one reading takes, and the smallest step two readings show.
    exp.section("3. the cost of reading the clock (median of batches, min..max)");
    let cost = reading_cost(&probe, &claims, window.close());
    print_cost(&cost, per_batch, 2 * batches);
    exp.out.how_to_read(&cost_verdict(&cost));
    method_by_scale(cost.gettime.median);
    record_cost(&mut exp, &cost);

    // == Beyond the appendix: the core clock, so later figures can show cycles.
    exp.section("core clock estimate (beyond the appendix)");
    let window = Window::open(core);
    let mut cc = exp.core_clock();
    cc.tally = cc.tally.with_load(window.close());
    exp.out
        .how_to_read(&core_clock_verdict(&cc, cost.gettime.median));
    exp.disturbance(::clock_probe::schema::CORE_CLOCK_RESULT, &cc.tally);
    exp.key_figure("core_clock", cc.ghz, "GHz");

    // == 4. Trap one: the optimiser removes what you meant to measure.
    exp.section("4. trap one: the optimiser removes what you meant to measure");
    trap_one(&mut exp, cost.floor(), if quick { 11 } else { 21 }, core);

    // == 5. Trap two: the first round is slow.
    exp.section("5. trap two: the first round is slow (first touch of fresh memory)");
    trap_two(&mut exp, if quick { 3 } else { 7 }, core);

    // == 6. Trap three: one interruption drags the mean.
    exp.section("6. trap three: one interruption drags the mean");
    trap_three(&mut exp, if quick { 51 } else { 201 });

    exp.finish();
}

/// Section 2: what each clock claims, printed and recorded; the claims that were given.
fn claimed(out: &mut Out, probe: &clock::ClockReport) -> Vec<u64> {
    let mut res = Block::new(
        ::clock_probe::schema::clock_resolution::BLOCK,
        ::clock_probe::schema::clock_resolution::COLUMNS,
    );
    for (name, ns) in &probe.claimed {
        match ns {
            Some(v) => println!("  {name:<26} claims {v} ns"),
            None => println!("  {name:<26} claim unknown (clock_getres refused)"),
        }
        res.row(vec![(*name).into(), (*ns).into()]);
    }
    out.block(&res);
    let claims: Vec<u64> = probe.claimed.iter().filter_map(|c| c.1).collect();
    out.how_to_read(&claims_verdict(&claims));
    claims
}

/// What section 2's claims say. The claims are the kernel's answers, not timings, so no
/// disturbance can change them and the reading is never marked.
fn claims_verdict(claims: &[u64]) -> Vec<String> {
    vec![match claims.iter().min() {
        Some(&c) => format!(
            "the clocks claim {c} ns or better; a claimed resolution is not what one reading \
             costs, nor the smallest step two readings show. Section 3 measures both."
        ),
        None => "no clock told its resolution; section 3 measures what a reading costs.".into(),
    }]
}

/// Table 105.1: the clocks of C and POSIX, each read `reads` times back to back.
fn clocks_table(out: &mut Out, reads: usize) {
    let clocks = clocks::measure(reads);
    println!();
    measure::fmt::say(
        "the clocks met in C and POSIX (Table 105.1): each read back to back; \"went back\" \
         is measured here, \"jumps if set\" is what the clock_gettime(2) manual page says:",
        "  ",
    );
    for row in clocks::table(&clocks) {
        println!("{row}");
    }
    out.how_to_read(&clocks::verdict(&clocks));
}

/// Section 3's numbers: each way's cost, the smallest step, and how they were taken.
fn print_cost(cost: &Cost, per_batch: usize, extra: usize) {
    let (g, i) = (&cost.gettime, &cost.instant);
    println!(
        "  clock_gettime(MONOTONIC) : {:6.1} ns  ({:.1} .. {:.1})",
        g.median, g.min, g.max
    );
    println!(
        "  Instant::now()           : {:6.1} ns  ({:.1} .. {:.1})",
        i.median, i.min, i.max
    );
    println!(
        "  smallest step two back-to-back readings show : {:.1} ns",
        cost.min_step_ns
    );
    measure::fmt::say(
        &format!(
            "({} batches of {per_batch} readings of each kind, interleaved; up to {extra} extra \
             batches when batches are disturbed)",
            cost.tallies[0].rounds,
        ),
        "  ",
    );
}

/// Table 105.3: the method by the size of what is timed, with this clock's cost.
fn method_by_scale(read_ns: f64) {
    println!();
    measure::fmt::say(
        &format!(
            "what to measure how (Table 105.3): the method depends on the size; with this \
             machine's clock ({read_ns:.1} ns a reading), the repeats a timed batch needs so that \
             the reading is under 1% of it:"
        ),
        "  ",
    );
    for row in clocks::method_by_scale(read_ns) {
        println!("{row}");
    }
}

/// Section 3's block, evidence and key figures.
fn record_cost(exp: &mut Experiment, cost: &Cost) {
    let (g, i) = (&cost.gettime, &cost.instant);
    let block = summary_block(
        ::clock_probe::schema::clock_cost::BLOCK,
        ::clock_probe::schema::clock_cost::COLUMNS,
        &[
            ("clock_gettime", g, cost.tallies[0]),
            ("instant_now", i, cost.tallies[1]),
        ],
    );
    exp.out.block(&block);
    exp.disturbance(::clock_probe::schema::clock_cost::BLOCK, &cost.tally);
    exp.out.meta("clock_min_step_ns", cost.min_step_ns);
    exp.key_figure(key::CLOCK_READ, g.median, "ns");
    exp.key_figure("clock_step", cost.min_step_ns, "ns");
}

/// What section 1 says about the machine's cache sizes: their sources, and whether they
/// agree. Read from the system, not timed, so never marked.
fn facts_verdict(caches: &[measure::facts::CacheLevel]) -> Vec<String> {
    let disagree: usize = caches.iter().map(|c| c.size.disagreements().len()).sum();
    let unknown = caches.iter().filter(|c| c.size.value.is_none()).count();
    let mut say = vec![
        "every value above names its source: sysfs first, then the CPU itself (CPUID), then \
         glibc's sysconf."
            .to_string(),
    ];
    say.push(if disagree == 0 {
        "Here the sources that answered agree on every cache size.".into()
    } else {
        format!(
            "The {} marked ! {} where they disagree and which value is used: a program that \
             asks only sysconf, as the appendix's C program does, would use another.",
            if disagree == 1 { "line" } else { "lines" },
            if disagree == 1 { "shows" } else { "show" }
        )
    });
    if unknown > 0 || caches.is_empty() {
        say.push("A size no source reports is printed as unknown, never as 0 bytes.".into());
    }
    say
}

/// Section 3's result: what one reading of each clock costs, the smallest step, and the
/// batches behind them.
struct Cost {
    gettime: Summary,
    instant: Summary,
    min_step_ns: f64,
    /// The smallest resolution a clock claimed, if any did.
    claimed: Option<u64>,
    /// The batches of each kind, `clock_gettime` then `Instant::now()`.
    tallies: [Tally; 2],
    tally: Tally,
}

impl Cost {
    /// The shortest time one reading can show: the step or the cost, whichever is larger.
    fn floor(&self) -> f64 {
        self.min_step_ns.max(self.gettime.median)
    }
}

/// Section 3's result from the clock probe, with the load around its batches.
fn reading_cost(probe: &clock::ClockReport, claims: &[u64], load: Load) -> Cost {
    let tallies = [0, 1].map(|k| probe.batches[k].tally().with_load(load));
    Cost {
        gettime: probe.gettime_cost_ns,
        instant: probe.instant_cost_ns,
        min_step_ns: probe.min_step_ns,
        claimed: claims.iter().min().copied(),
        tallies,
        tally: rounds::tally(&probe.batches).with_load(load),
    }
}

/// What section 3's numbers say; provisional when its batches were disturbed.
fn cost_verdict(c: &Cost) -> Vec<String> {
    let floor = c.floor();
    let s = format!(
        "a reading costs {:.0} ns and the smallest step is {:.0} ns{}, so nothing shorter than \
         about {floor:.0} ns is measured once: a timed batch must last at least {:.1} us for \
         the clock's step to be under 1% of it. Every experiment repeats and divides.",
        c.gettime.median,
        c.min_step_ns,
        c.claimed
            .map_or(String::new(), |c| format!(" (the claim was {c} ns)")),
        floor * 100.0 / 1000.0
    );
    marked(&c.tally, false, vec![s])
}

/// A block of labelled summaries, one row a label: `[label, median, min, max, rounds,
/// disturbed_rounds]`.
fn summary_block(name: &str, columns: &[&str], rows: &[(&str, &Summary, Tally)]) -> Block {
    let mut b = Block::new(name, columns);
    for (label, s, t) in rows {
        let mut row: Vec<Value> = vec![(*label).into()];
        row.extend(median_min_max(Some(s)));
        row.extend([t.rounds.into(), t.disturbed.into()]);
        b.row(row);
    }
    b
}

/// What the core-clock estimate says about one clock reading of `read_ns`; provisional when
/// its chains were disturbed.
fn core_clock_verdict(cc: &CoreClock, read_ns: f64) -> Vec<String> {
    let say: Vec<String> = cc
        .cycles(read_ns)
        .map(|cycles| {
            format!(
                "one clock reading is about {cycles:.0} cycles at this estimate. It assumes one \
                 dependent addition per cycle, true of every current x86-64 and Arm core; the \
                 other experiments print cycles with it."
            )
        })
        .into_iter()
        .collect();
    marked(&cc.tally, false, say)
}

/// Trap one's result: the two sums (discarded, used) at the two sizes (N/10, N).
struct TrapOne {
    /// `[size][discarded, used]`.
    s: [[Summary; 2]; 2],
    tallies: [[Tally; 2]; 2],
    tally: Tally,
    /// The shortest time one reading can show.
    floor: f64,
}

impl TrapOne {
    /// How many times longer ten times the input took, `[discarded, used]`.
    fn grew(&self) -> [f64; 2] {
        [0, 1].map(|v| self.s[1][v].median / self.s[0][v].median.max(1.0))
    }
    /// The used sum over the discarded one at N elements.
    fn ratio(&self) -> f64 {
        self.s[1][1].median / self.s[1][0].median.max(1.0)
    }
}

/// Trap one: the same sum, its result discarded or used, over N/10 and N elements (the
/// appendix's rule "multiply the input by ten and see whether the time follows"), the four
/// interleaved: discarded N/10, used N/10, discarded N, used N. `floor` is the shortest time
/// one reading can show.
fn trap_one(exp: &mut Experiment, floor: f64, clean: usize, core: Option<usize>) {
    let a: Vec<i32> = (0..NA as i32).collect();
    let sizes = [NA / 10, NA];
    let sum_of = |n: usize| (n as i64 - 1) * n as i64 / 2;
    println!("{}", measure::retake::line());
    // Taken again while the core's share was unsteady during it (measure::retake).
    let (t, load) = measure::retake::take(core, || {
        rounds::interleaved(&mut Probe::new(), &Want::new(clean), 4, |step| {
            let (Step::Warm(v) | Step::Time(v)) = step;
            let part = &a[..sizes[v / 2]];
            if v % 2 == 0 {
                clock::time_ns(|| clock_probe_sum_discarded(black_box(part))).0
            } else {
                let (u, s) = clock::time_ns(|| clock_probe_sum_kept(black_box(part)));
                assert_eq!(s, sum_of(part.len()), "the used sums must be right");
                u
            }
        })
    });
    let r = TrapOne {
        s: [0, 1].map(|k| [0, 1].map(|v| t[2 * k + v].summary().expect("rounds"))),
        tallies: [0, 1].map(|k| [0, 1].map(|v| t[2 * k + v].tally().with_load(load))),
        tally: rounds::tally(&t).with_load(load),
        floor,
    };
    println!(
        "  the same sum of i32, its result discarded or used; median of {} clean rounds \
         (min..max):",
        r.s[1][1].n
    );
    trap_one_table(&r, sizes);
    exp.out.how_to_read(&trap_one_verdict(&r));
    trap_one_blocks(&mut exp.out, &r, sizes);
    exp.disturbance(::clock_probe::schema::times_ten::BLOCK, &r.tally);
    exp.key_figure("discarded_vs_used", r.ratio(), "x");
    exp.key_figure("used_times_ten", r.grew()[1], "x");
}

/// Trap one's table for people.
fn trap_one_table(r: &TrapOne, sizes: [usize; 2]) {
    println!(
        "  {:<10} {:>26} {:>30} {:>9}",
        "ns",
        format!("{} elements", grouped(sizes[0] as u64)),
        format!("x10: {} elements", grouped(sizes[1] as u64)),
        "x10 took"
    );
    let ns = |x: &Summary| {
        format!(
            "{} ({}..{})",
            grouped(x.median.round() as u64),
            grouped(x.min.round() as u64),
            grouped(x.max.round() as u64)
        )
    };
    for (v, name) in ["discarded", "used"].iter().enumerate() {
        println!(
            "  {name:<10} {:>26} {:>30} {:>8.1}x",
            ns(&r.s[0][v]),
            ns(&r.s[1][v]),
            r.grew()[v]
        );
    }
}

/// Trap one's blocks: `trap_one` (N elements) and `times_ten` (both sizes).
fn trap_one_blocks(out: &mut Out, r: &TrapOne, sizes: [usize; 2]) {
    let mut t1 = Block::new(
        ::clock_probe::schema::trap_one::BLOCK,
        ::clock_probe::schema::trap_one::COLUMNS,
    );
    let mut x10 = Block::new(
        ::clock_probe::schema::times_ten::BLOCK,
        ::clock_probe::schema::times_ten::COLUMNS,
    );
    for (v, name) in ["discarded", "used"].iter().enumerate() {
        let big = &r.s[1][v];
        let mut row: Vec<Value> = vec![(*name).into()];
        row.extend(median_min_max(Some(big)));
        row.push((big.median / NA as f64).into());
        row.extend([
            r.tallies[1][v].rounds.into(),
            r.tallies[1][v].disturbed.into(),
        ]);
        t1.row(row);
        for (k, times) in ["1x", "10x"].iter().enumerate() {
            let mut row: Vec<Value> = vec![(*name).into(), sizes[k].into()];
            row.extend(median_min_max(Some(&r.s[k][v])));
            row.push(format!("{name}_{times}").into());
            row.extend([
                r.tallies[k][v].rounds.into(),
                r.tallies[k][v].disturbed.into(),
            ]);
            x10.row(row);
        }
    }
    out.block(&t1);
    out.block(&x10);
}

/// What trap one's numbers say; provisional when its rounds were disturbed.
fn trap_one_verdict(r: &TrapOne) -> Vec<String> {
    let (d, grew, ratio) = (r.s[1][0], r.grew(), r.ratio());
    let mut say = vec![if d.median.max(r.s[0][0].median) <= r.floor * 2.0 {
        format!(
            "the discarded sum took no longer than two clock readings ({:.0} ns) at either size: \
             it never ran. The compiler deleted a loop whose value nobody uses; a result that \
             says \"infinitely fast\" means this.",
            d.median
        )
    } else if ratio > 2.0 {
        "the discarded sum took time, but far less than the used one: part of it was removed."
            .to_string()
    } else {
        "both sums took similar time: this build kept the discarded loop. Never count on either."
            .to_string()
    }];
    say.push(format!(
        "Ten times the input: the used sum took {:.1}x as long{}, the discarded one {:.1}x. Time \
         that follows the input is work that ran; time that stays put is a loop deleted or \
         made constant.",
        grew[1],
        if (5.0..20.0).contains(&grew[1]) {
            ", as it should"
        } else {
            " (not about ten: caches or other work moved it)"
        },
        grew[0]
    ));
    say.push(format!(
        "At {} elements the used sum took {ratio:.0}x the discarded one (checksum verified).",
        grouped(NA as u64)
    ));
    marked(&r.tally, false, say)
}

/// Trap two's result: the first and the second fill of fresh 4 MiB mappings, in segments.
struct TrapTwo {
    first: Segmented,
    second: Segmented,
    /// 4 KiB pages (or the machine's page size) in one mapping.
    pages: usize,
    tally: Tally,
}

/// Trap two: fill a fresh 4 MiB mapping twice; the first fill pays a page fault per page.
/// A fill cannot be cut short (first touch is the subject) and the first lasts milliseconds,
/// so each fill is timed in [`FILL_PARTS`] consecutive segments, each judged by its evidence
/// ([`measure::segments`]): the page faults are this thread's own kernel time, not
/// disturbance, while another task taking the core is. Nothing is warmed up: that would
/// remove what the trap shows.
fn trap_two(exp: &mut Experiment, buffers: usize, core: Option<usize>) {
    let bytes = NA * 4;
    let (mut region, mut refused, mut failed) = (None::<Region>, false, false);
    let window = Window::open(core);
    let want = segments::Want::new(buffers, buffers, 50_000_000);
    let t = segments::interleaved(&Probe::new(), &want, &[FILL_PARTS; 2], |step| {
        let SegStep::Time(v, k) = step else {
            return 0.0;
        };
        if (v == 0 && k == 0) || region.is_none() {
            region = Region::new(bytes).ok();
            // Small pages, so the first touch costs one fault per 4 KiB page as in the appendix.
            refused |= region
                .as_ref()
                .is_some_and(|r| r.advise(HugeAdvice::NoHuge).is_err());
        }
        let Some(r) = &region else {
            failed = true;
            return f64::NAN;
        };
        let part = segments::range(bytes as u64, FILL_PARTS, k);
        // SAFETY: the part lies inside the region's `bytes`.
        let at = unsafe { r.as_ptr().add(part.start as usize) };
        fill(at, (part.end - part.start) as usize, v as u8 + 1)
    });
    let load = window.close();
    if failed {
        println!("  skipped: a fresh 4 MiB mapping could not be made");
        return;
    }
    if refused {
        println!("  (MADV_NOHUGEPAGE refused: the kernel's default page size was used)");
    }
    let [first, second]: [Segmented; 2] = t.try_into().expect("two variants");
    let r = TrapTwo {
        tally: first.tally().merge(&second.tally()).with_load(load),
        pages: bytes / exp.facts.page_size.unwrap_or(4096) as usize,
        first,
        second,
    };
    let (f, s) = (fills(&r.first), fills(&r.second));
    println!(
        "  filling the same 4 MiB, first  : {:>10.0} ns  (median of {} fresh buffers)",
        f.median, f.n
    );
    println!("                          second : {:>10.0} ns", s.median);
    exp.out.how_to_read(&trap_two_verdict(&r));
    let block = summary_block(
        ::clock_probe::schema::trap_two::BLOCK,
        ::clock_probe::schema::trap_two::COLUMNS,
        &[
            ("first", &f, r.first.tally()),
            ("second", &s, r.second.tally()),
        ],
    );
    exp.out.block(&block);
    exp.disturbance(::clock_probe::schema::trap_two::BLOCK, &r.tally);
    exp.key_figure("first_vs_second_fill", f.median / s.median, "x");
}

/// Writes `v` over `bytes` at `p` and returns the nanoseconds it took.
/// Segments of one fill: 4 MiB in 16 parts of 64 pages, a fraction of a millisecond each.
const FILL_PARTS: usize = 16;

/// The summary of every repetition of a fill, each rebuilt from clean segments.
fn fills(t: &Segmented) -> Summary {
    t.summary(1.0).expect("every fill has rounds")
}

fn fill(p: *mut u8, bytes: usize, v: u8) -> f64 {
    let t0 = now_ns();
    // SAFETY: the caller's region is `bytes` long (rounded up) and writable.
    unsafe { std::ptr::write_bytes(p, v, bytes) };
    let t = (now_ns() - t0) as f64;
    // Read a byte afterwards so the fill has a use and cannot be deleted (trap one again).
    // SAFETY: inside the region.
    black_box(unsafe { p.add(bytes / 2).read_volatile() });
    t
}

/// What trap two's numbers say; provisional when another task took the core during the fills.
fn trap_two_verdict(r: &TrapTwo) -> Vec<String> {
    let (f, s) = (fills(&r.first), fills(&r.second));
    let factor = f.median / s.median;
    // Every first fill slower than every second fill but the slowest (one interrupted fill is
    // tolerated when there are three or more): the first touch cost something.
    let second_high = sorted_but_largest(&r.second.rounds_ns())
        .last()
        .copied()
        .unwrap_or(s.max);
    let say = if f.min > second_high {
        format!(
            "the first fill took {factor:.1}x the second: it paid for the kernel attaching \
             {} pages one by one, about {:.0} ns each. Warm up before measuring, and discard \
             the warm-up.",
            r.pages,
            (f.median - s.median) / r.pages as f64
        )
    } else {
        format!(
            "the first fill took {factor:.2}x the second, and the two overlap: no first-touch \
             cost showed in this run, so there was nothing here for a warm-up to remove."
        )
    };
    marked(&r.tally, false, vec![say])
}

/// Trap three's result: every round of one 256 KiB sum, each with whether it carried
/// evidence of another task or the host taking the core.
struct TrapThree {
    samples: Vec<f64>,
    disturbed: Vec<bool>,
}

/// Trap three: many rounds of one 256 KiB sum; the minimum, median, mean, p99 and maximum.
/// Every round is kept, disturbed or not, and no round is added: an interruption dragging the
/// mean is what this trap shows, so its reading is never "provisional" for it. Instead each
/// round's evidence is recorded (the `disturbed_rounds` column of `trap_three_samples`) and
/// the reading says how many of the slow rounds were another task's doing.
fn trap_three(exp: &mut Experiment, rounds: usize) {
    let a: Vec<i32> = (0..(NA >> 4) as i32).collect();
    let probe = Probe::new();
    let (samples, disturbed) = (0..rounds)
        .map(|_| {
            let ((t, s), e) =
                probe.watch(|| clock::time_ns(|| clock_probe_sum_kept(black_box(&a))));
            black_box(s);
            (t, e.disturbed())
        })
        .unzip();
    let r = TrapThree { samples, disturbed };
    let s = Summary::of(&r.samples).expect("rounds > 0");
    println!(
        "  {rounds} rounds of a 256 KiB sum; which value to use (Table 105.4), with this run's:"
    );
    for row in clocks::which_statistic(&s) {
        println!("{row}");
    }
    exp.out.how_to_read(&trap_three_verdict(&r));
    let mut b = Block::new(
        ::clock_probe::schema::trap_three_samples::BLOCK,
        ::clock_probe::schema::trap_three_samples::COLUMNS,
    );
    for (i, (v, d)) in r.samples.iter().zip(&r.disturbed).enumerate() {
        b.row(vec![
            i.into(),
            (*v).into(),
            1.into(),
            usize::from(*d).into(),
        ]);
    }
    exp.out.block(&b);
    let mut t3s = Block::new(
        ::clock_probe::schema::trap_three_summary::BLOCK,
        ::clock_probe::schema::trap_three_summary::COLUMNS,
    );
    for (n, v) in [
        ("min", s.min),
        ("median", s.median),
        ("mean", s.mean),
        ("p99", s.p99),
        ("max", s.max),
    ] {
        t3s.row(vec![n.into(), v.into()]);
    }
    exp.out.block(&t3s);
    exp.key_figure("mean_over_median", s.mean_over_median(), "x");
}

/// What trap three's numbers say. Never marked provisional: interruptions are its subject
/// (see [`trap_three`]); the rounds that carry evidence of one are counted instead.
fn trap_three_verdict(r: &TrapThree) -> Vec<String> {
    let s = Summary::of(&r.samples).expect("rounds > 0");
    let mm = s.mean_over_median();
    let slow: Vec<bool> = r.samples.iter().map(|&x| x > 1.5 * s.median).collect();
    let n_slow = slow.iter().filter(|&&x| x).count();
    let mut say = vec![if mm > 1.02 {
        format!(
            "the mean sits {:.1}% above the median: {} dragged it; the median barely moved.",
            (mm - 1.0) * 100.0,
            if n_slow > 0 {
                format!("{n_slow} slow round(s) (over 1.5x the median)")
            } else {
                "the slower rounds, none over 1.5x the median,".to_string()
            }
        )
    } else if mm < 0.98 {
        format!(
            "the mean sits {:.1}% below the median: a group of faster rounds pulled it down, \
             so the rounds do not form one group (compare the minimum).",
            (1.0 - mm) * 100.0
        )
    } else {
        format!(
            "mean and median are within 2% ({mm:.3}x): a quiet run. The slowest round still took \
             {:.2}x the median.",
            s.max / s.median
        )
    }];
    let seen = r.disturbed.iter().filter(|&&d| d).count();
    if seen > 0 {
        let slow_seen = slow
            .iter()
            .zip(&r.disturbed)
            .filter(|(s, d)| **s && **d)
            .count();
        say.push(format!(
            "{seen} of the {} rounds {} evidence that another task or the host took the core \
             meanwhile ({slow_seen} of the {n_slow} slow ones): interruptions of exactly this \
             kind.",
            r.samples.len(),
            if seen == 1 { "carries" } else { "carry" }
        ));
    }
    say.push(format!(
        "The median with min ({:.0}) and max ({:.0}) beside it is what every experiment \
         reports; in code with a deadline the maximum is the design figure.",
        s.min, s.max
    ));
    say
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::disturb::Evidence;

    /// 40 rounds: quiet, or 12 disturbed with half a core of other work on core 1.
    fn tally(disturbed: bool) -> Tally {
        if disturbed {
            measure::testing::tally(40, 12, 0.5, 1.0)
        } else {
            measure::testing::tally(40, 0, 0.0, 0.0)
        }
    }

    fn s(m: f64) -> Summary {
        Summary::of(&[m * 0.99, m, m * 1.01]).unwrap()
    }

    /// Rounds of `values`, every one clean.
    /// Repetitions of one segment each, all clean.
    fn segmented(values: &[f64]) -> Segmented {
        Segmented {
            ns: values.iter().map(|v| vec![*v]).collect(),
            evidence: values.iter().map(|_| vec![Evidence::default()]).collect(),
        }
    }

    /// The readings of sections 3 to 5 from synthetic results.
    fn readings(disturbed: bool) -> Vec<Vec<String>> {
        let t = tally(disturbed);
        let cost = Cost {
            gettime: s(25.0),
            instant: s(26.0),
            min_step_ns: 20.0,
            claimed: Some(1),
            tallies: [t; 2],
            tally: t,
        };
        let cc = CoreClock {
            ghz: Some(4.0),
            tally: t,
            ..Default::default()
        };
        let one = TrapOne {
            s: [[s(20.0), s(14_000.0)], [s(20.0), s(140_000.0)]],
            tallies: [[t; 2]; 2],
            tally: t,
            floor: 25.0,
        };
        let two = TrapTwo {
            first: segmented(&[1.7e6, 1.8e6, 1.6e6]),
            second: segmented(&[4.6e4, 4.7e4, 4.5e4]),
            pages: 1024,
            tally: t,
        };
        vec![
            cost_verdict(&cost),
            core_clock_verdict(&cc, 25.0),
            trap_one_verdict(&one),
            trap_two_verdict(&two),
        ]
    }

    #[test]
    fn a_disturbed_result_never_reads_unmarked() {
        for r in readings(true) {
            assert!(
                r[0].starts_with("provisional: 12 of 40 rounds were disturbed"),
                "{r:?}"
            );
            assert!(r[0].contains("0.50 cores of other work on core 1"), "{r:?}");
            // None of these reads the shared levels: contention is not named.
            assert!(!r.iter().any(|s| s.contains("contention")), "{r:?}");
        }
    }

    #[test]
    fn a_quiet_result_reads_without_marks() {
        let r = readings(false);
        for x in &r {
            assert!(!x.iter().any(|s| s.contains("provisional")), "{x:?}");
        }
        assert!(r[0][0].starts_with("a reading costs 25 ns"), "{r:?}");
        assert!(
            r[1][0].starts_with("one clock reading is about 100 cycles"),
            "{r:?}"
        );
        assert!(r[2][0].contains("it never ran"), "{r:?}");
        assert!(
            r[3][0].starts_with("the first fill took 37.0x the second"),
            "{r:?}"
        );
    }

    #[test]
    fn the_untimed_readings_follow_their_inputs_and_carry_no_mark() {
        use measure::facts::{CacheLevel, Fact, Source};
        let level = |readings: Vec<(Source, u64)>| CacheLevel {
            level: 2,
            size: Fact::from_readings(readings),
            line: Fact::default(),
            ways: Fact::default(),
        };
        let agree = facts_verdict(&[level(vec![(Source::Sysfs, 1 << 20)])]);
        assert_eq!(agree.len(), 2, "{agree:?}");
        assert!(agree[1].contains("agree on every cache size"), "{agree:?}");
        let split = vec![(Source::Sysfs, 1 << 20), (Source::Sysconf, 1 << 19)];
        let differ = facts_verdict(&[level(split), level(vec![])]);
        assert!(
            differ[1].starts_with("The line marked ! shows"),
            "{differ:?}"
        );
        assert!(differ[2].contains("printed as unknown"), "{differ:?}");
        assert!(facts_verdict(&[])[2].contains("unknown"));
        let c = claims_verdict(&[1000, 1]);
        assert!(c[0].starts_with("the clocks claim 1 ns or better"), "{c:?}");
        assert!(claims_verdict(&[])[0].starts_with("no clock told"));
        for r in [agree, differ, c] {
            assert!(!r.iter().any(|s| s.contains("provisional")), "{r:?}");
        }
    }

    #[test]
    fn trap_three_counts_the_interruptions_it_shows_and_is_never_provisional() {
        let mut samples = vec![9_000.0; 50];
        samples[7] = 2_000_000.0;
        let mut disturbed = vec![false; 50];
        disturbed[7] = true;
        let r = trap_three_verdict(&TrapThree { samples, disturbed });
        assert!(r[0].starts_with("the mean sits"), "{r:?}");
        assert!(
            r[1].starts_with("1 of the 50 rounds carries evidence"),
            "{r:?}"
        );
        assert!(r[1].contains("(1 of the 1 slow ones)"), "{r:?}");
        assert!(!r.iter().any(|s| s.contains("provisional")), "{r:?}");
        let quiet = trap_three_verdict(&TrapThree {
            samples: vec![9_000.0; 50],
            disturbed: vec![false; 50],
        });
        assert!(!quiet.iter().any(|s| s.contains("evidence")), "{quiet:?}");
    }
}
