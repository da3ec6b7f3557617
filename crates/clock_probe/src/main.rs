//! # clock_probe: measure the measuring instrument first
//!
//! Run with: `cargo run -p clock_probe` (add `-- --quick` for a two-second smoke run).
//!
//! The first section of the appendix "The machine, measured", in Rust. Before anything else
//! is timed, this program reads the machine's own numbers (with where each came from), then
//! asks what the clock claims and measures what it costs, then walks into the three traps
//! of measuring on purpose: the optimiser deleting the work, the first round paying for page
//! faults, and one interruption dragging the mean. Beyond the appendix it estimates the
//! core's clock rate so that later experiments can speak in cycles as well as nanoseconds.

use measure::clock::{self, now_ns};
use measure::data::{Block, meta};
use measure::keep::black_box;
use measure::mem::{HugeAdvice, Region};
use measure::stats::Summary;

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

    // == 1. The machine's numbers were printed by start!; restate what later sections use.
    exp.section("1. this machine's numbers (read by the program itself)");
    let l3 = exp.facts.cache(3);
    match l3 {
        Some(c) => {
            println!("  L3 cache       : {}", c.size.show_bytes());
            for (src, v) in c.size.disagreements() {
                println!(
                    "  ! {src} reports {} for L3; {} is used because sysfs comes first",
                    measure::facts::human_bytes(v),
                    c.size.show_bytes()
                );
            }
        }
        None => println!("  L3 cache       : unknown (no source reports one)"),
    }
    println!("  line size      : {}", exp.facts.line_size().show_plain());

    // == 2. Resolution: what the clocks claim.
    exp.section("2. clock resolution: what the clocks claim");
    let probe = clock::probe(
        if quick { 10 } else { 41 },
        if quick { 20_000 } else { 100_000 },
    );
    let mut res = Block::new("clock_resolution", &["clock:text", "claimed_ns"]);
    for (name, ns) in &probe.claimed {
        match ns {
            Some(v) => println!("  {name:<26} claims {v} ns"),
            None => println!("  {name:<26} claim unknown (clock_getres refused)"),
        }
        res.row(vec![(*name).into(), (*ns).into()]);
    }
    println!("  * a claimed resolution is not what one reading costs: that is measured next.");
    res.print();

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
    let batch_floor = probe.min_step_ns.max(g.median) * 100.0;
    println!(
        "  * so nothing shorter than about {:.0} ns is measured once; a batch must last at least\n    {:.1} us for the clock's step to be under 1% of it. Every experiment repeats and divides.",
        probe.min_step_ns.max(g.median),
        batch_floor / 1000.0
    );
    let mut cost = Block::new(
        "clock_cost",
        &["method:text", "median_ns", "min_ns", "max_ns"],
    );
    cost.row(vec![
        "clock_gettime".into(),
        g.median.into(),
        g.min.into(),
        g.max.into(),
    ]);
    cost.row(vec![
        "instant_now".into(),
        i.median.into(),
        i.min.into(),
        i.max.into(),
    ]);
    cost.print();
    meta("clock_min_step_ns", probe.min_step_ns);
    exp.key_figure("clock_read", g.median, "ns");
    exp.key_figure("clock_step", probe.min_step_ns, "ns");

    // == Beyond the appendix: the core clock, so later figures can show cycles.
    exp.section("core clock estimate (beyond the appendix)");
    let cc = clock::estimate_core_clock(if quick { 5 } else { 21 });
    match (cc.ghz, cc.rounds) {
        (Some(ghz), Some(r)) => {
            println!("  method         : {}", cc.method);
            println!(
                "  estimate       : {ghz:.2} GHz (rounds {:.2} .. {:.2})",
                r.min, r.max
            );
            println!("  one clock read : about {:.0} cycles", g.median * ghz);
            println!(
                "  * an estimate: it assumes one addition per cycle, true of every current x86-64 and Arm core."
            );
            meta("clock_ghz_estimate", format!("{ghz:.3}"));
        }
        _ => {
            println!("  estimate       : unknown ({})", cc.method);
            meta("clock_ghz_estimate", "unknown");
        }
    }
    exp.key_figure("core_clock", cc.ghz, "GHz");

    // == 4. Trap one: the optimiser removes what you meant to measure.
    exp.section("4. trap one: the optimiser removes what you meant to measure");
    let a: Vec<i32> = (0..NA as i32).collect();
    clock_probe_sum_discarded(black_box(&a));
    black_box(clock_probe_sum_kept(black_box(&a)));
    let reps = if quick { 5 } else { 20 };
    let (mut disc, mut kept) = (Vec::new(), Vec::new());
    let mut total: i64 = 0;
    for _ in 0..reps {
        // Interleaved: discarded, kept, discarded, kept ...
        let (t, ()) = clock::time_ns(|| clock_probe_sum_discarded(black_box(&a)));
        disc.push(t);
        let (t, s) = clock::time_ns(|| clock_probe_sum_kept(black_box(&a)));
        kept.push(t);
        total = total.wrapping_add(s);
    }
    let expect = (NA as i64 - 1) * NA as i64 / 2;
    assert_eq!(total, expect * reps as i64, "the kept sum must be right");
    let d = Summary::of(&disc).expect("reps > 0");
    let k = Summary::of(&kept).expect("reps > 0");
    let ratio = k.median / d.median.max(1.0);
    println!(
        "  a sum whose result is discarded : {:>10.0} ns ({:.3} ns per element)",
        d.median,
        d.median / NA as f64
    );
    println!(
        "  a sum whose result is used      : {:>10.0} ns ({:.3} ns per element)",
        k.median,
        k.median / NA as f64
    );
    println!("  factor                          : {ratio:.0} x   (checksum {total} verified)");
    if d.median <= probe.min_step_ns.max(g.median) * 2.0 {
        println!(
            "  * the discarded sum took no longer than two clock readings: it never ran. The compiler\n    deleted a loop whose value nobody uses. A result that says \"infinitely fast\" means this."
        );
    } else if ratio > 2.0 {
        println!(
            "  * the discarded sum took time but far less than the used one: part of it was removed."
        );
    } else {
        println!(
            "  * both sums took similar time: this build kept the discarded loop. Never count on either."
        );
    }
    let mut t1 = Block::new(
        "trap_one",
        &[
            "variant:text",
            "median_ns",
            "min_ns",
            "max_ns",
            "per_element_ns",
        ],
    );
    t1.row(vec![
        "discarded".into(),
        d.median.into(),
        d.min.into(),
        d.max.into(),
        (d.median / NA as f64).into(),
    ]);
    t1.row(vec![
        "used".into(),
        k.median.into(),
        k.min.into(),
        k.max.into(),
        (k.median / NA as f64).into(),
    ]);
    t1.print();
    exp.key_figure("discarded_vs_used", ratio, "x");

    // == 5. Trap two: the first round is slow.
    exp.section("5. trap two: the first round is slow (first touch of fresh memory)");
    let bytes = NA * 4;
    let mut first = Vec::new();
    let mut second = Vec::new();
    for _ in 0..if quick { 3 } else { 7 } {
        let Ok(r) = Region::new(bytes) else {
            println!("  skipped: a fresh 4 MiB mapping could not be made");
            break;
        };
        // Small pages, so the first touch costs one fault per 4 KiB page as in the appendix.
        let advised = r.advise(HugeAdvice::NoHuge).is_ok();
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
        if !advised {
            println!("  (MADV_NOHUGEPAGE refused: the kernel's default page size was used)");
        }
    }
    if let (Some(f), Some(s)) = (Summary::of(&first), Summary::of(&second)) {
        let pages = bytes / exp.facts.page_size.unwrap_or(4096) as usize;
        println!(
            "  filling the same 4 MiB, first  : {:>10.0} ns  (median of {} fresh buffers)",
            f.median, f.n
        );
        println!("                          second : {:>10.0} ns", s.median);
        println!(
            "  factor                         : {:.1} x",
            f.median / s.median
        );
        println!(
            "  * the first fill pays for the kernel attaching {pages} pages one by one (about {:.0} ns each).\n    Warm up before measuring, and discard the warm-up.",
            (f.median - s.median) / pages as f64
        );
        let mut t2 = Block::new("trap_two", &["fill:text", "median_ns", "min_ns", "max_ns"]);
        t2.row(vec![
            "first".into(),
            f.median.into(),
            f.min.into(),
            f.max.into(),
        ]);
        t2.row(vec![
            "second".into(),
            s.median.into(),
            s.min.into(),
            s.max.into(),
        ]);
        t2.print();
        exp.key_figure("first_vs_second_fill", f.median / s.median, "x");
    }

    // == 6. Trap three: one interruption drags the mean.
    exp.section("6. trap three: one interruption drags the mean");
    let rounds = if quick { 51 } else { 201 };
    let part = &a[..NA >> 4];
    let mut samples = Vec::with_capacity(rounds);
    for _ in 0..rounds {
        let (t, s) = clock::time_ns(|| clock_probe_sum_kept(black_box(part)));
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
    println!(
        "  mean / median  = {:.3} x, max / median = {:.2} x",
        s.mean_over_median(),
        s.max / s.median
    );
    if s.mean_over_median() > 1.02 {
        println!(
            "  * the mean sits {:.1}% above the median: a few slow rounds dragged it.",
            (s.mean_over_median() - 1.0) * 100.0
        );
    } else {
        println!(
            "  * this run was quiet: mean and median are within 2%. The slowest round was still {:.2} x the median.",
            s.max / s.median
        );
    }
    let mut t3 = Block::new("trap_three_samples", &["round", "ns"]);
    for (r, v) in samples.iter().enumerate() {
        t3.row(vec![r.into(), (*v).into()]);
    }
    t3.print();
    let mut t3s = Block::new("trap_three_summary", &["stat:text", "ns"]);
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
    exp.key_figure("mean_over_median", s.mean_over_median(), "x");

    exp.finish();
}
