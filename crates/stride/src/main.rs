//! # stride: lines and strides, the unit a cache fetches
//!
//! Run with: `cargo run -p stride` (add `-- --quick` for a smoke run of a few seconds).
//!
//! The section "Lines and strides" of the appendix "The machine, measured", in Rust. A cache
//! does not fetch the byte you ask for but the whole line around it. To see the line in the
//! time, the program reads a buffer much larger than the last-level cache one byte at a
//! time, jumping 1, 2, 4, ... 4096 bytes, always the same number of times: what changes is
//! not how many reads but what one read costs. Then the same four million values are summed
//! from an array of structs and from a separate array, to show what the line means for a
//! data layout.
//!
//! Beyond the appendix: the number of distinct lines each stride really visits (a fixed
//! count over a fixed buffer wraps around for wide strides and re-reads a smaller working
//! set), a second walk that starts every lap one line further on so that it cannot, two
//! passes over the strides in different orders with a per-point agreement check, and a
//! compute floor for the struct-of-arrays sum (the same sum over an array that sits in L1).

mod layout;
mod report;
mod walk;

use layout::{PARTICLE_BYTES, USED_BYTES, stride_sum_aos_x, stride_sum_soa_x};
use measure::clock;
use measure::data::{Block, meta};
use measure::facts::human_bytes;
use measure::keep::black_box;
use measure::mem::Region;
use measure::scan::{self, DEFAULT_TOLERANCE};
use measure::stats::Summary;
use report::{Row, grouped};
use walk::{Plan, stride_walk_fresh, stride_walk_wrap};

/// The appendix's buffer: 64 MiB, "larger than the L3".
const DEFAULT_BUFFER: u64 = 64 << 20;
/// The appendix's fixed number of accesses per stride.
const DEFAULT_ACCESSES: u64 = 2_000_000;
/// Strides 1, 2, 4, ... 4096 bytes.
const STRIDES: [usize; 13] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];
/// The appendix's 4M particles.
const ELEMENTS: usize = 4 << 20;

const OPTS: &[measure::cli::Opt] = &[
    measure::cli::Opt {
        name: "--buffer",
        value: Some("SIZE"),
        help: "the buffer the strides walk (rounded up to a power of two; default: 64 MiB or twice the largest cache)",
    },
    measure::cli::Opt {
        name: "--accesses",
        value: Some("N"),
        help: "accesses per stride and round (default 2000000, as in the appendix)",
    },
];

fn main() {
    let mut exp = measure::start!(
        "stride",
        "lines and strides: what one access costs as the stride grows, and what layout does",
        OPTS
    );
    let quick = exp.args.quick;
    // Options first, so bad input is refused before anything is measured.
    let asked_buffer = exp
        .args
        .value("--buffer")
        .map(|_| exp.args.size("--buffer", DEFAULT_BUFFER));
    if asked_buffer.is_some_and(|b| b > 1 << 40) {
        measure::cli::fail(
            "stride",
            "--buffer above 1 TiB is not a buffer this program can map",
        );
    }
    let accesses = exp.args.count("--accesses", DEFAULT_ACCESSES, 1000) as usize;
    exp.pin_main_thread();
    let rounds = if quick { 3 } else { 5 };

    // == 1. The line, and the clock.
    exp.section("1. the cache line of this machine, and the clock");
    let line_fact = exp.facts.line_size();
    let line: Option<u64> = line_fact.value;
    match line {
        Some(l) => println!(
            "  cache line     : {l} bytes (from {})",
            line_fact.source.map_or("?".into(), |s| s.to_string())
        ),
        None => println!(
            "  cache line     : unknown (no source reports it): the lines-per-access, bytes-in-vain\n                   and distinct-lines columns are NA below"
        ),
    }
    meta(
        "line_bytes",
        line.map_or("unknown".into(), |l| l.to_string()),
    );
    meta(
        "line_source",
        line_fact.source.map_or("none".into(), |s| s.to_string()),
    );
    let page = exp.facts.page_size.unwrap_or(4096);
    if exp.facts.page_size.is_none() {
        println!("  page size      : unknown; distinct pages are counted in 4 KiB pages");
    }
    meta("page_bytes", page);
    let probe = clock::probe(5, if quick { 5_000 } else { 20_000 });
    println!(
        "  clock          : one reading costs {:.1} ns, the smallest step two readings show is {:.1} ns",
        probe.gettime_cost_ns.median, probe.min_step_ns
    );
    meta("clock_min_step_ns", probe.min_step_ns);
    let cc = exp.core_clock();

    // == 2. The buffer: larger than the last-level cache, with every page attached.
    exp.section("2. the buffer: larger than the largest cache, touched beforehand");
    let largest = exp.facts.largest_cache();
    let (asked, why) = match (asked_buffer, largest) {
        (Some(b), _) => (b, "--buffer".to_string()),
        (None, Some(c)) if 2 * c > DEFAULT_BUFFER => (
            2 * c,
            format!("twice the largest reported cache ({})", human_bytes(c)),
        ),
        (None, Some(c)) => (
            DEFAULT_BUFFER,
            format!(
                "the appendix's 64 MiB, already at least twice the largest reported cache ({})",
                human_bytes(c)
            ),
        ),
        (None, None) => (
            DEFAULT_BUFFER,
            "the appendix's 64 MiB: a default, because no cache size is known".to_string(),
        ),
    };
    let len = asked.next_power_of_two().max(1 << 20) as usize;
    println!(
        "  buffer         : {} ({why}{})",
        human_bytes(len as u64),
        if len as u64 != asked {
            ", rounded up to a power of two so the walk can wrap with a mask"
        } else {
            ""
        }
    );
    match largest {
        Some(c) if (len as u64) <= c => println!(
            "  ! the buffer is not larger than the largest reported cache ({}): stride 1 may run from cache",
            human_bytes(c)
        ),
        Some(c) => println!(
            "  largest cache  : {} (by its reported size; the buffer is {:.0}x larger)",
            human_bytes(c),
            len as f64 / c as f64
        ),
        None => println!("  largest cache  : unknown"),
    }
    meta("buffer_bytes", len);
    meta("buffer_choice", &why);
    meta("accesses", accesses);
    meta("rounds", rounds);
    let mut region = match Region::new(len) {
        Ok(r) => r,
        Err(e) => {
            println!(
                "  skipped: the stride walk needs a {} buffer: {e}",
                human_bytes(len as u64)
            );
            meta("stride_walk", format!("skipped: {e}"));
            layout_section(&mut exp, line, rounds);
            exp.finish();
            return;
        }
    };
    walk::fill(bytes(&mut region));
    match region.huge_backing() {
        Some(p) => {
            println!(
                "  pages          : {p:.0}% of the buffer backed by transparent huge pages (AnonHugePages in\n                   /proc/self/smaps; nothing was requested, THP mode {})",
                exp.facts.thp_mode.as_deref().unwrap_or("unknown")
            );
            meta("huge_backing_pct", format!("{p:.1}"));
        }
        None => {
            println!("  pages          : backing unknown (/proc/self/smaps unreadable)");
            meta("huge_backing_pct", "unknown");
        }
    }

    // == 3. Varying the stride, the number of accesses fixed.
    let shift = line.unwrap_or(64) as usize;
    if line.is_none() {
        println!(
            "  the fresh-lines walk shifts each lap by 64 bytes: an assumption, the line size is unknown"
        );
    }
    meta("fresh_shift_bytes", shift);
    exp.section(&format!(
        "3. varying the stride: {} accesses each, over {}",
        grouped(accesses as u64),
        human_bytes(len as u64)
    ));
    let line_us = line.map(|l| l as usize);
    let plans: Vec<(Plan, Plan)> = STRIDES
        .iter()
        .map(|&s| {
            (
                walk::plan(len, s, accesses, 0, line_us, page as usize),
                walk::plan(len, s, accesses, shift, line_us, page as usize),
            )
        })
        .collect();
    // At least forward and shuffled; the full run adds a backward pass.
    let orders: Vec<scan::Order> = if quick {
        scan::TWO_PASSES.to_vec()
    } else {
        vec![
            scan::Order::Forward,
            scan::Order::Shuffled(measure::ring::DEFAULT_SEED),
            scan::Order::Backward,
        ]
    };
    meta(
        "passes",
        orders
            .iter()
            .map(|o| o.name())
            .collect::<Vec<_>>()
            .join(","),
    );
    println!(
        "  {} passes over the strides ({}), {rounds} rounds per stride after a discarded warm-up;\n  in each round the appendix's walk and the fresh-lines walk alternate.",
        orders.len(),
        orders
            .iter()
            .map(|o| o.name())
            .collect::<Vec<_>>()
            .join(", then ")
    );
    let idx: Vec<usize> = (0..STRIDES.len()).collect();
    let buf: &[u8] = bytes(&mut region);
    let result = scan::run(&idx, &orders, |&i, _pass| {
        measure_point(buf, STRIDES[i], accesses, shift, rounds, &plans[i])
    });
    drop(region);

    let mut rows = Vec::new();
    for pt in &result.points {
        let i = pt.param;
        let pool = |f: fn(&Point) -> &Vec<f64>| {
            let all: Vec<f64> = pt
                .passes
                .iter()
                .flat_map(|p| f(p).iter().copied())
                .collect();
            Summary::of(&all).expect("rounds > 0")
        };
        let a_wrap = pt.agreement(DEFAULT_TOLERANCE, |m| median(&m.wrap));
        let a_fresh = pt.agreement(DEFAULT_TOLERANCE, |m| median(&m.fresh));
        rows.push(Row {
            stride: STRIDES[i] as u64,
            wrap: pool(|p| &p.wrap),
            fresh: pool(|p| &p.fresh),
            wrap_spread: a_wrap.spread,
            fresh_spread: a_fresh.spread,
            agree: a_wrap.agree && a_fresh.agree,
            plan: plans[i].0,
            fresh_plan: plans[i].1,
            passes: pt
                .passes
                .iter()
                .zip(&result.orders)
                .map(|(p, o)| (o.name(), median(&p.wrap), median(&p.fresh)))
                .collect(),
        });
    }
    report::print_cost_table(&rows, line, &cc);
    report::print_visit_table(&rows, line, &exp.facts);
    report::stride_blocks(&rows, line, &cc);
    report::stride_findings(&rows, line, len, accesses, &exp.facts);

    let shortest = rows
        .iter()
        .flat_map(|r| [r.wrap.min, r.fresh.min])
        .fold(f64::INFINITY, f64::min)
        * accesses as f64;
    println!(
        "  * the shortest timed batch lasted {:.0} us; the clock's step ({:.0} ns) is {:.3}% of it.",
        shortest / 1000.0,
        probe.min_step_ns,
        probe.min_step_ns / shortest * 100.0
    );
    let at = |s: u64| rows.iter().find(|r| r.stride == s);
    if let Some(r) = at(1) {
        exp.key_figure("stride_1", r.wrap.median, "ns");
    }
    if let Some(r) = line.and_then(at) {
        exp.key_figure("stride_line", r.wrap.median, "ns");
        exp.key_figure(
            "line_over_stride_1",
            r.wrap.median / rows[0].wrap.median,
            "x",
        );
    }
    if let Some(r) = rows.last() {
        exp.key_figure("stride_4096_wrapping", r.wrap.median, "ns");
        exp.key_figure("stride_4096_fresh_lines", r.fresh.median, "ns");
    }

    // == 4. The same data, laid out differently.
    layout_section(&mut exp, line, rounds);
    exp.finish();
}

/// The region's bytes, borrowed from it (so they cannot outlive the mapping).
fn bytes(region: &mut Region) -> &mut [u8] {
    // SAFETY: the region is a private read-write mapping of exactly `len()` bytes, alive and
    // not otherwise accessed for as long as this exclusive borrow lasts.
    unsafe { std::slice::from_raw_parts_mut(region.as_ptr(), region.len()) }
}

/// One stride in one pass: ns per access of every round, for both walks.
struct Point {
    wrap: Vec<f64>,
    fresh: Vec<f64>,
}

/// Times `rounds` interleaved rounds of both walks at `stride` (after a discarded warm-up),
/// checking every round's sum against the plan.
fn measure_point(
    buf: &[u8],
    stride: usize,
    accesses: usize,
    shift: usize,
    rounds: usize,
    plans: &(Plan, Plan),
) -> Point {
    let warm = (accesses / 8).max(1);
    black_box(stride_walk_wrap(black_box(buf), stride, warm));
    black_box(stride_walk_fresh(black_box(buf), stride, warm, shift));
    let mut p = Point {
        wrap: Vec::with_capacity(rounds),
        fresh: Vec::with_capacity(rounds),
    };
    for _ in 0..rounds {
        let (t, s) = clock::time_ns(|| {
            stride_walk_wrap(black_box(buf), black_box(stride), black_box(accesses))
        });
        verify("the appendix walk", stride, black_box(s), plans.0.sum);
        p.wrap.push(t / accesses as f64);
        let (t, s) = clock::time_ns(|| {
            stride_walk_fresh(
                black_box(buf),
                black_box(stride),
                black_box(accesses),
                black_box(shift),
            )
        });
        verify("the fresh-lines walk", stride, black_box(s), plans.1.sum);
        p.fresh.push(t / accesses as f64);
    }
    p
}

/// A wrong sum means the loop did not read what it should: no number may be printed.
fn verify(what: &str, stride: usize, got: u64, want: u64) {
    if got != want {
        eprintln!(
            "stride: error: {what} at stride {stride} returned {got}, expected {want}: the kernel did not read what was planned"
        );
        std::process::exit(1);
    }
}

fn median(v: &[f64]) -> f64 {
    measure::stats::median(v).unwrap_or(f64::NAN)
}

/// The appendix's second half: AoS against SoA, plus the SoA sum's compute floor.
fn layout_section(exp: &mut measure::run::Experiment, line: Option<u64>, rounds: usize) {
    exp.section("4. the same data, laid out differently");
    let n = ELEMENTS;
    let (aos, xs) = layout::build(n);
    // The compute floor: the same loop over an x array small enough for L1, summed repeatedly.
    let l1 = exp
        .facts
        .cache(1)
        .and_then(|c| c.size.value)
        .unwrap_or(32 << 10);
    let small_n = ((l1 / 2) as usize / 8).clamp(256, 2048);
    let reps = n / small_n;
    let small = &xs[..small_n];
    println!(
        "  size of one struct : {PARTICLE_BYTES} bytes (checked when compiled), line {}",
        line.map_or("unknown".into(), |l| format!("{l} bytes"))
    );
    println!(
        "  {} elements: {} as structs, {} as the x array alone",
        grouped(n as u64),
        human_bytes((n * PARTICLE_BYTES) as u64),
        human_bytes((n * 8) as u64)
    );
    meta("elements", n);
    meta("struct_bytes", PARTICLE_BYTES);
    let want = layout::expected_sum(n);
    let want_small = layout::expected_sum(small_n) * reps as f64;
    let floor = || {
        let mut s = 0.0;
        for _ in 0..reps {
            s += stride_sum_soa_x(black_box(small));
        }
        s
    };
    // Warm-up (discarded), then interleaved rounds: AoS, SoA, floor, AoS, SoA, floor ...
    black_box(stride_sum_aos_x(black_box(&aos)));
    black_box(stride_sum_soa_x(black_box(&xs)));
    black_box(floor());
    let (mut t_aos, mut t_soa, mut t_floor) = (Vec::new(), Vec::new(), Vec::new());
    let mut sums = Vec::new();
    for _ in 0..rounds {
        let (t, s) = clock::time_ns(|| stride_sum_aos_x(black_box(&aos)));
        t_aos.push(t / n as f64);
        sums.push(("array of structs", black_box(s), want));
        let (t, s) = clock::time_ns(|| stride_sum_soa_x(black_box(&xs)));
        t_soa.push(t / n as f64);
        sums.push(("x array", black_box(s), want));
        let (t, s) = clock::time_ns(floor);
        t_floor.push(t / (reps * small_n) as f64);
        sums.push(("small x array", black_box(s), want_small));
    }
    for (what, got, want) in &sums {
        if got != want {
            eprintln!("stride: error: the {what} sum returned {got}, expected {want}");
            std::process::exit(1);
        }
    }
    println!(
        "  every sum checked: {} rounds x 3 loops; both big arrays returned exactly {want}, the small one\n  {want_small} ({reps} times over {small_n} values)",
        t_aos.len()
    );
    let a = Summary::of(&t_aos).expect("rounds > 0");
    let s = Summary::of(&t_soa).expect("rounds > 0");
    let f = Summary::of(&t_floor).expect("rounds > 0");
    let aos_used = line.map(layout::used_per_line);
    let aos_fetched = line.map(layout::fetched_per_element);
    println!(
        "\n  {:<52} {:<27} {:>7}  bytes used per line",
        "layout", "per element (min .. max)", "factor"
    );
    let show = |name: &str, x: &Summary, used: String| {
        println!(
            "  {name:<52} {:>7.3} ns ({:.3} .. {:.3}) {:>6.1}x  {used}",
            x.median,
            x.min,
            x.max,
            x.median / s.median
        );
    };
    show(
        "array of structs (AoS), reading x only",
        &a,
        match (aos_used, line) {
            (Some(u), Some(l)) => format!(
                "{u:.1} of {l} ({USED_BYTES} of every {} fetched)",
                layout::fetched_per_element(l)
            ),
            _ => format!("{USED_BYTES} of every {PARTICLE_BYTES} (line size unknown)"),
        },
    );
    show(
        "struct of arrays (SoA), the x array only",
        &s,
        line.map_or("all of every line (line size unknown)".into(), |l| {
            format!("{l} of {l}")
        }),
    );
    show(
        &format!(
            "the same loop over {} KiB of x, in L1 (floor)",
            small_n * 8 / 1024
        ),
        &f,
        "-".into(),
    );
    let mut b = Block::new(
        "layout",
        &[
            "layout:text",
            "median_ns",
            "min_ns",
            "max_ns",
            "factor",
            "fetched_bytes_per_element",
            "used_bytes_per_line",
        ],
    );
    for (name, x, fetched, used) in [
        ("aos", &a, aos_fetched.map(|b| b as f64), aos_used),
        ("soa", &s, Some(USED_BYTES as f64), line.map(|l| l as f64)),
        ("soa_in_l1", &f, None, None),
    ] {
        b.row(vec![
            name.into(),
            x.median.into(),
            x.min.into(),
            x.max.into(),
            (x.median / s.median).into(),
            fetched.into(),
            used.into(),
        ]);
    }
    b.print();

    let r = a.median / s.median;
    // How many times the bytes of the x array the struct sum brings in.
    let traffic = aos_fetched.map(|b| b as f64 / USED_BYTES as f64);
    let brings = match aos_fetched {
        Some(b) => format!("It brings {b} bytes through the cache for every {USED_BYTES} it uses."),
        None => format!(
            "With lines of at least {PARTICLE_BYTES} bytes it brings {PARTICLE_BYTES} bytes for every {USED_BYTES} it uses."
        ),
    };
    println!();
    if r > 1.0 + DEFAULT_TOLERANCE {
        println!(
            "  * the same values were added in the same order; only the layout changed, and the array of\n    structs cost {r:.1}x the separate array. {brings}"
        );
    } else if r < 1.0 - DEFAULT_TOLERANCE {
        println!(
            "  * the array of structs was FASTER here ({r:.2}x): not what the bytes predict; look at the rounds."
        );
    } else {
        println!(
            "  * the two layouts cost the same within {:.0}% ({r:.2}x) on this run. {brings}",
            DEFAULT_TOLERANCE * 100.0
        );
    }
    let fr = s.median / f.median;
    if fr < 1.0 + DEFAULT_TOLERANCE {
        println!(
            "  * the separate array from memory costs {fr:.2}x the same loop in L1: its speed is set by the chain\n    of dependent additions, not by memory.{}",
            traffic.map_or(String::new(), |t| format!(
                " So the time ratio ({r:.1}x) understates the ratio of bytes moved ({t:.0}x)."
            ))
        );
    } else {
        println!(
            "  * the separate array from memory costs {fr:.2}x the same loop in L1: memory still shows in it."
        );
    }
    println!(
        "  * the reverse holds too: code that reads several fields of each element uses the whole line of a\n    struct, and then the array of structs is the better layout. The access pattern decides."
    );
    exp.key_figure("aos_x", a.median, "ns");
    exp.key_figure("soa_x", s.median, "ns");
    exp.key_figure("aos_over_soa", r, "x");
}
