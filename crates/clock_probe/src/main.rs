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

use measure::clock::{self, now_ns};
use measure::data::{Block, Value, meta};
use measure::fmt::{grouped, median_min_max};
use measure::keep::black_box;
use measure::mem::{HugeAdvice, Region};
use measure::schema::clock_probe::key;
use measure::show::{self, how_to_read};
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
    let quick = exp.args.quick;
    exp.pin_main_thread();

    // == 1. The machine's numbers were printed by start!, each with its source.
    exp.section("1. this machine's numbers (read by the program itself, printed above)");
    let disagree: usize = exp
        .facts
        .caches
        .iter()
        .map(|c| c.size.disagreements().len())
        .sum();
    let unknown = exp
        .facts
        .caches
        .iter()
        .filter(|c| c.size.value.is_none())
        .count();
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
    if unknown > 0 || exp.facts.caches.is_empty() {
        say.push("A size no source reports is printed as unknown, never as 0 bytes.".into());
    }
    how_to_read(&say);

    // == 2. Resolution: what the clocks claim.
    exp.section("2. clock resolution: what the clocks claim");
    let probe = clock::probe(
        if quick { 10 } else { 41 },
        if quick { 20_000 } else { 100_000 },
    );
    let mut res = Block::new(
        measure::schema::clock_probe::clock_resolution::BLOCK,
        measure::schema::clock_probe::clock_resolution::COLUMNS,
    );
    for (name, ns) in &probe.claimed {
        match ns {
            Some(v) => println!("  {name:<26} claims {v} ns"),
            None => println!("  {name:<26} claim unknown (clock_getres refused)"),
        }
        res.row(vec![(*name).into(), (*ns).into()]);
    }
    res.print();
    let claims: Vec<u64> = probe.claimed.iter().filter_map(|c| c.1).collect();
    how_to_read(&[match claims.iter().min() {
        Some(&c) => format!(
            "the clocks claim {c} ns or better; a claimed resolution is not what one reading \
             costs, nor the smallest step two readings show. Section 3 measures both."
        ),
        None => "no clock told its resolution; section 3 measures what a reading costs.".into(),
    }]);

    // == 3. Cost: what one reading takes, and the smallest step two readings show.
    exp.section("3. the cost of reading the clock (median of batches, min..max)");
    let g = probe.gettime_cost_ns;
    let i = probe.instant_cost_ns;
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
        probe.min_step_ns
    );
    let floor = probe.min_step_ns.max(g.median);
    let claimed = claims.iter().min().copied();
    how_to_read(&[format!(
        "a reading costs {:.0} ns and the smallest step is {:.0} ns{}, so nothing shorter than \
         about {floor:.0} ns is measured once: a timed batch must last at least {:.1} us for \
         the clock's step to be under 1% of it. Every experiment repeats and divides.",
        g.median,
        probe.min_step_ns,
        claimed.map_or(String::new(), |c| format!(" (the claim was {c} ns)")),
        floor * 100.0 / 1000.0
    )]);
    show::summaries(
        measure::schema::clock_probe::clock_cost::BLOCK,
        measure::schema::clock_probe::clock_cost::COLUMNS,
        &[("clock_gettime", &g), ("instant_now", &i)],
    )
    .print();
    meta("clock_min_step_ns", probe.min_step_ns);
    exp.key_figure(key::CLOCK_READ, g.median, "ns");
    exp.key_figure("clock_step", probe.min_step_ns, "ns");

    // == Beyond the appendix: the core clock, so later figures can show cycles.
    exp.section("core clock estimate (beyond the appendix)");
    let cc = exp.core_clock();
    if let Some(cycles) = cc.cycles(g.median) {
        how_to_read(&[format!(
            "one clock reading is about {cycles:.0} cycles at this estimate. It assumes one \
             dependent addition per cycle, true of every current x86-64 and Arm core; the \
             other experiments print cycles with it."
        )]);
    }
    exp.key_figure("core_clock", cc.ghz, "GHz");

    // == 4. Trap one: the optimiser removes what you meant to measure.
    exp.section("4. trap one: the optimiser removes what you meant to measure");
    trap_one(&mut exp, floor, if quick { 5 } else { 20 });

    // == 5. Trap two: the first round is slow.
    exp.section("5. trap two: the first round is slow (first touch of fresh memory)");
    trap_two(&mut exp, if quick { 3 } else { 7 });

    // == 6. Trap three: one interruption drags the mean.
    exp.section("6. trap three: one interruption drags the mean");
    trap_three(&mut exp, if quick { 51 } else { 201 });

    exp.finish();
}

/// Trap one: the same sum, its result discarded or used, over N and ten times N elements
/// (the appendix's rule "multiply the input by ten and see whether the time follows").
/// `floor` is the shortest time one reading can show.
fn trap_one(exp: &mut measure::run::Experiment, floor: f64, reps: usize) {
    let a: Vec<i32> = (0..NA as i32).collect();
    let sizes = [NA / 10, NA];
    clock_probe_sum_discarded(black_box(&a));
    black_box(clock_probe_sum_kept(black_box(&a)));
    // [size][discarded, used]: interleaved, discarded N, used N, discarded 10N, used 10N, ...
    let mut t: [[Vec<f64>; 2]; 2] = Default::default();
    let mut total: i64 = 0;
    for _ in 0..reps {
        for (k, &n) in sizes.iter().enumerate() {
            let part = &a[..n];
            let (d, ()) = clock::time_ns(|| clock_probe_sum_discarded(black_box(part)));
            t[k][0].push(d);
            let (u, s) = clock::time_ns(|| clock_probe_sum_kept(black_box(part)));
            t[k][1].push(u);
            total = total.wrapping_add(s);
        }
    }
    let expect: i64 = sizes
        .iter()
        .map(|&n| (n as i64 - 1) * n as i64 / 2)
        .sum::<i64>()
        * reps as i64;
    assert_eq!(total, expect, "the used sums must be right");
    let s: Vec<[Summary; 2]> = t
        .iter()
        .map(|v| v.each_ref().map(|x| Summary::of(x).expect("reps > 0")))
        .collect();
    println!(
        "  the same sum of i32, its result discarded or used; median of {reps} rounds (min..max):"
    );
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
    let mut t1 = Block::new(
        measure::schema::clock_probe::trap_one::BLOCK,
        measure::schema::clock_probe::trap_one::COLUMNS,
    );
    let mut x10 = Block::new(
        measure::schema::clock_probe::times_ten::BLOCK,
        measure::schema::clock_probe::times_ten::COLUMNS,
    );
    let mut grew = [0.0; 2];
    for (v, name) in ["discarded", "used"].iter().enumerate() {
        let (small, big) = (&s[0][v], &s[1][v]);
        grew[v] = big.median / small.median.max(1.0);
        println!(
            "  {name:<10} {:>26} {:>30} {:>8.1}x",
            ns(small),
            ns(big),
            grew[v]
        );
        let mut row: Vec<Value> = vec![(*name).into()];
        row.extend(median_min_max(Some(big)));
        row.push((big.median / NA as f64).into());
        t1.row(row);
        for ((n, x), times) in sizes.iter().zip([small, big]).zip(["1x", "10x"]) {
            let mut row: Vec<Value> = vec![(*name).into(), (*n).into()];
            row.extend(median_min_max(Some(x)));
            row.push(format!("{name}_{times}").into());
            x10.row(row);
        }
    }
    let (d, k) = (s[1][0], s[1][1]);
    let ratio = k.median / d.median.max(1.0);
    let mut say = vec![if d.median.max(s[0][0].median) <= floor * 2.0 {
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
    how_to_read(&say);
    t1.print();
    x10.print();
    exp.key_figure("discarded_vs_used", ratio, "x");
    exp.key_figure("used_times_ten", grew[1], "x");
}

/// Trap two: fill a fresh 4 MiB mapping twice; the first fill pays a page fault per page.
fn trap_two(exp: &mut measure::run::Experiment, buffers: usize) {
    let bytes = NA * 4;
    let mut first = Vec::new();
    let mut second = Vec::new();
    let mut refused = false;
    for _ in 0..buffers {
        let Ok(r) = Region::new(bytes) else {
            println!("  skipped: a fresh 4 MiB mapping could not be made");
            break;
        };
        // Small pages, so the first touch costs one fault per 4 KiB page as in the appendix.
        refused |= r.advise(HugeAdvice::NoHuge).is_err();
        let p = r.as_ptr();
        let fill = |v: u8| {
            let t0 = now_ns();
            // SAFETY: the region is `bytes` long (rounded up) and writable.
            unsafe { std::ptr::write_bytes(p, v, bytes) };
            let t = (now_ns() - t0) as f64;
            // Read a byte afterwards so the fill has a use and cannot be deleted (trap one again).
            // SAFETY: inside the region.
            black_box(unsafe { p.add(bytes / 2).read_volatile() });
            t
        };
        first.push(fill(1));
        second.push(fill(2));
    }
    if refused {
        println!("  (MADV_NOHUGEPAGE refused: the kernel's default page size was used)");
    }
    let (Some(f), Some(s)) = (Summary::of(&first), Summary::of(&second)) else {
        return;
    };
    let pages = bytes / exp.facts.page_size.unwrap_or(4096) as usize;
    println!(
        "  filling the same 4 MiB, first  : {:>10.0} ns  (median of {} fresh buffers)",
        f.median, f.n
    );
    println!("                          second : {:>10.0} ns", s.median);
    let factor = f.median / s.median;
    // Every first-fill buffer slower than every second fill but the slowest (one interrupted
    // fill is tolerated when there are three or more): the first touch cost something.
    let second_high = sorted_but_largest(&second).last().copied().unwrap_or(s.max);
    how_to_read(&[if f.min > second_high {
        format!(
            "the first fill took {factor:.1}x the second: it paid for the kernel attaching \
             {pages} pages one by one, about {:.0} ns each. Warm up before measuring, and discard \
             the warm-up.",
            (f.median - s.median) / pages as f64
        )
    } else {
        format!(
            "the first fill took {factor:.2}x the second, and the two overlap: no first-touch \
             cost showed in this run, so there was nothing here for a warm-up to remove."
        )
    }]);
    show::summaries(
        measure::schema::clock_probe::trap_two::BLOCK,
        measure::schema::clock_probe::trap_two::COLUMNS,
        &[("first", &f), ("second", &s)],
    )
    .print();
    exp.key_figure("first_vs_second_fill", factor, "x");
}

/// Trap three: many rounds of one 256 KiB sum; the minimum, median, mean, p99 and maximum.
fn trap_three(exp: &mut measure::run::Experiment, rounds: usize) {
    let a: Vec<i32> = (0..(NA >> 4) as i32).collect();
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let (t, s) = clock::time_ns(|| clock_probe_sum_kept(black_box(&a)));
        black_box(s);
        samples.push(t);
    }
    let s = Summary::of(&samples).expect("rounds > 0");
    println!("  {rounds} rounds of a 256 KiB sum:");
    println!("  minimum          {:>10.0} ns", s.min);
    println!(
        "  median           {:>10.0} ns   <- the figure every experiment reports",
        s.median
    );
    println!("  mean             {:>10.0} ns", s.mean);
    println!("  99th percentile  {:>10.0} ns", s.p99);
    println!("  maximum          {:>10.0} ns", s.max);
    let mm = s.mean_over_median();
    let slow = samples.iter().filter(|&&x| x > 1.5 * s.median).count();
    let mut say = vec![if mm > 1.02 {
        format!(
            "the mean sits {:.1}% above the median: {} dragged it; the median barely moved.",
            (mm - 1.0) * 100.0,
            if slow > 0 {
                format!("{slow} slow round(s) (over 1.5x the median)")
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
    say.push(format!(
        "The median with min ({:.0}) and max ({:.0}) beside it is what every experiment \
         reports; in code with a deadline the maximum is the design figure.",
        s.min, s.max
    ));
    how_to_read(&say);
    show::series(
        measure::schema::clock_probe::trap_three_samples::BLOCK,
        measure::schema::clock_probe::trap_three_samples::COLUMNS,
        &samples,
    )
    .print();
    let mut t3s = Block::new(
        measure::schema::clock_probe::trap_three_summary::BLOCK,
        measure::schema::clock_probe::trap_three_summary::COLUMNS,
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
    t3s.print();
    exp.key_figure("mean_over_median", mm, "x");
}
