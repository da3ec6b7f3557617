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
mod report;
mod shape;
mod sweep;
mod team;
mod verdict;

use kernels::{Form, Fun, Op, Width};
use measure::cli::{self, Opt};
use measure::data::meta;
use measure::fmt::{bytes as size, conclude};

use measure::mem::{self, HugeAdvice, room_for};
use measure::scan::{self, TWO_PASSES};
use report::{Row, ThreadRow, find, gbs, say};

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
    let quick = exp.args.quick;
    let limit_cores = exp
        .args
        .value("--threads")
        .map(|_| exp.args.count("--threads", 0, 1, 1024) as usize);
    // The cores, read before the main thread is pinned (a pinned thread sees only its core).
    let main_core = measure::pin::default_core().ok().flatten();
    let cores = team::cores(main_core, limit_cores);
    exp.pin_main_thread();

    // The working sets: 4 KiB to 4x the largest reported cache, checked against memory now.
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

    // == 1. What will be measured: the kernels, the clock, the memory.
    exp.section(
        "1. the kernels (their code read back from this binary), the core clock, the memory",
    );
    let width = Width::detect();
    let kernels = kernels::all(width);
    let shapes: Vec<shape::Shape> = kernels.iter().map(|k| shape::read_back(k.symbol)).collect();
    let lim = limit::lookup(exp.facts.cpu_family.as_deref(), width.bytes());
    report::kernels(width, &kernels, &shapes, lim.as_ref());
    let cc = exp.core_clock();
    let page = exp.facts.page_size.unwrap_or(4096) as usize;
    let mut main_mem = mem::prepare(max as usize, HugeAdvice::Huge, page)
        .unwrap_or_else(|e| cli::fail(exp.name, &format!("no memory for the working sets: {e}")));
    // Every region is the largest working set again for each other core, where memory allows.
    let mut region = max;
    while region > 1 << 20 && room_for(max + region * (cores.len() as u64 - 1)).is_err() {
        region /= 2;
    }
    let mut others: Vec<mem::Prepared> = cores[1..]
        .iter()
        .map_while(|_| mem::prepare(region as usize, HugeAdvice::Huge, page).ok())
        .collect();
    fill(main_mem.region.as_u64_mut());
    say(
        "memory",
        &format!(
            "{} for the working sets + {} x {} for other cores; {}% huge pages",
            size(max),
            others.len(),
            size(region),
            mem::backing_meta(main_mem.backing)
        ),
    );
    let plan = sweep::Plan::new(quick);
    say(
        "working sets",
        &format!(
            "{} .. {}, {} sizes, {}; {} rounds; passes {}, {}",
            size(sizes[0] as u64),
            size(*sizes.last().expect("at least one size") as u64),
            sizes.len(),
            if quick {
                "one per octave"
            } else {
                "two per octave"
            },
            plan.rounds,
            TWO_PASSES[0].name(),
            TWO_PASSES[1].name()
        ),
    );
    meta("max_kib", max / 1024);
    meta("huge_backing_pct", mem::backing_meta(main_mem.backing));
    meta("rounds_per_pass", plan.rounds);
    meta("vector_bytes", width.bytes());
    meta("explicit_width", width.name());
    let widths = |f: Form| {
        kernels
            .iter()
            .zip(&shapes)
            .filter(|(k, _)| k.form == f && k.op == Op::Read)
            .find_map(|(_, s)| s.access_bytes)
    };
    match (widths(Form::Plain), widths(Form::Explicit)) {
        (Some(p), Some(e)) => conclude(&format!(
            "The plain loops move {p} bytes per access, the explicit kernels {e} ({:.0}x): the build \
             targets the baseline; only code chosen at run time uses the widest registers.",
            e as f64 / p as f64
        )),
        _ => conclude(
            "The kernels' code could not be read back, so their widths are as written, not checked.",
        ),
    }

    // == 2. Bandwidth by working set, every size in two passes in different orders.
    exp.section("2. bandwidth by working set (GB/s, median of every round of both passes)");
    let mem_words = main_mem.region.as_u64_mut();
    let scan = scan::run(&sizes, &TWO_PASSES, |&bytes, _| {
        sweep::measure(&kernels, mem_words, bytes, &plan)
    });
    let rows: Vec<Row> = scan.points.iter().map(Row::of).collect();
    let repeated: usize = scan
        .points
        .iter()
        .flat_map(|p| p.passes.iter().map(|m| m.repeated))
        .sum();
    meta("rounds_repeated_off_core", repeated);
    let facts = exp.facts.clone();
    report::table(&rows, &kernels, width, &|b| facts.where_fits(b), &cc);
    let unstable = rows.iter().filter(|r| !r.stable()).count();
    let at = |op, form, r: &Row| find(&kernels, op, form).map(|i| r.cells[i].gbs.median);
    let (first, last) = (&rows[0], rows.last().expect("rows"));
    let mut read2 = String::new();
    if let (Some(p0), Some(e0), Some(p1), Some(e1)) = (
        at(Op::Read, Form::Plain, first),
        at(Op::Read, Form::Explicit, first),
        at(Op::Read, Form::Plain, last),
        at(Op::Read, Form::Explicit, last),
    ) {
        read2 = format!(
            "At {} the explicit read runs at {:.1}x the plain one, at {} at {:.2}x: {} ",
            size(first.bytes as u64),
            e0 / p0,
            size(last.bytes as u64),
            e1 / p1,
            if e1 / p1 < 1.15 && e0 / p0 > 1.15 {
                "wide registers pay inside the caches; from memory, the memory sets the pace."
            } else {
                "read the two columns before drawing a conclusion from either."
            }
        );
    }
    if let (Some(w), Some(r)) = (
        at(Op::Write, Form::Explicit, last),
        at(Op::Read, Form::Explicit, last),
    ) {
        read2.push_str(&format!(
            "Writing {} runs at {:.2}x the read: {}",
            size(last.bytes as u64),
            w / r,
            if w < r {
                "a line is read in before it is written (write-allocate), so written lines cross \
                 the bus twice. "
            } else {
                "no write-allocate penalty is visible at this size. "
            }
        ));
    }
    read2.push_str(&format!(
        "{unstable} of {} sizes are ~ (a kernel's passes differ by over {:.0}% or its rounds by \
         over {:.0}%); {repeated} rounds were repeated because other work took the core.",
        rows.len(),
        sweep::PASS_TOLERANCE * 100.0,
        sweep::ROUND_TOLERANCE * 100.0
    ));
    conclude(&read2);

    // == 3. Where the bandwidth falls, beside the sizes the machine reports.
    exp.section("3. boundaries read from the explicit read's curve, beside the reported sizes");
    let reported: Vec<(String, u64)> = exp
        .facts
        .caches
        .iter()
        .filter_map(|c| c.size.value.map(|v| (c.name(), v)))
        .collect();
    let ri = find(&kernels, Op::Read, Form::Explicit).expect("an explicit read");
    let found = boundaries::find(&report::points(&rows, ri));
    let (drops, agree, last_drop) = report::boundaries(&found, &reported);
    // The fall into memory: the last one, if it lies beyond the level below the largest.
    let second = reported
        .iter()
        .map(|r| r.1)
        .filter(|&b| Some(b) < largest)
        .max();
    let into_memory = last_drop.filter(|&d| second.is_none_or(|s| d >= s));
    conclude(&format!(
        "{drops} fall(s) of {:.2}x or more within an octave between stable sizes, {agree} of them \
         within a doubling of a reported size. {}",
        boundaries::MIN_DROP,
        match (into_memory, largest) {
            (Some(d), Some(l)) if d * 2 < l => format!(
                "The fall into memory starts at {}, well below the reported {}: on a shared machine \
                 a program gets less of the last-level cache than the machine reports.",
                size(d),
                size(l)
            ),
            (Some(d), _) => format!(
                "The fall into memory starts at {}, where the working set leaves the caches.",
                size(d)
            ),
            (None, _) => "No fall beyond the second-largest cache was read in this run: the sizes \
                          there are unstable or the bandwidth falls too gently (see the table)."
                .into(),
        }
    ));

    // == 4. Non-temporal stores: where they win, where they lose.
    exp.section(&format!(
        "4. non-temporal stores: where they win, where they lose (stream over {})",
        width.name()
    ));
    let mut nt_gain = None;
    if !width.has_stream() {
        println!(
            "  skipped: this program has no non-temporal store kernels for {} ({})",
            width.name(),
            std::env::consts::ARCH
        );
        meta("non_temporal", "skipped");
    } else {
        let mut lines = Vec::new();
        for op in [Op::Write, Op::Copy] {
            let (Some(e), Some(s)) = (
                find(&kernels, op, Form::Explicit),
                find(&kernels, op, Form::Stream),
            ) else {
                continue;
            };
            let ratio = |r: &Row| r.cells[s].gbs.median / r.cells[e].gbs.median;
            // The smallest size from which streaming wins there and at every larger size.
            let wins_from = (0..rows.len())
                .find(|&i| rows[i..].iter().all(|r| ratio(r) > 1.0))
                .map(|i| rows[i].bytes);
            let at = |r: &Row| {
                format!(
                    "{} {:.2}x ({} vs {} GB/s)",
                    size(r.bytes as u64),
                    ratio(r),
                    gbs(r.cells[s].gbs.median),
                    gbs(r.cells[e].gbs.median)
                )
            };
            let text = format!(
                "{}, {}; {}",
                at(first),
                at(last).replace(" GB/s", ""),
                wins_from.map_or("never wins for good".into(), |b| {
                    format!("wins from {} on", size(b as u64))
                })
            );
            let first_indent = format!("  {:<6}: ", op.name());
            println!(
                "{}",
                measure::fmt::wrap_to(&text, &first_indent, &" ".repeat(10), 100)
            );
            meta(
                &format!("{}_stream_wins_from_kib", op.name()),
                wins_from.map_or("none".into(), |b| (b / 1024).to_string()),
            );
            meta(
                &format!("verdict_stream_{}", op.name()),
                wins_from.map_or("never won for good".into(), |b| {
                    format!("won from {} on", size(b as u64))
                }),
            );
            if op == Op::Write {
                nt_gain = Some(ratio(last));
            }
            lines.push((op, ratio(first), ratio(last)));
        }
        if let Some(&(_, inside, beyond)) = lines.first() {
            conclude(&format!(
                "Inside the caches a streaming write runs at {inside:.2}x the ordinary one: it sends \
                 every line to memory even though the next lap will want it back. Beyond them it \
                 runs at {beyond:.2}x: {}",
                if beyond > 1.05 {
                    "no line is read before it is overwritten, so the bus carries each byte once, not twice."
                } else {
                    "in this run it did not beat the ordinary write even there."
                }
            ));
        }
    }

    // == 5. All cores at the largest working set, each thread on its own region.
    exp.section(&format!(
        "5. all cores: each thread reads its own {} (the explicit read)",
        size(region)
    ));
    let read = match kernels[ri].fun {
        Fun::Read(f) => f,
        _ => unreachable!("the explicit read is a read"),
    };
    let per = region as usize;
    let other_views: Vec<&[u64]> = others
        .iter_mut()
        .map(|p| &p.region.as_u64_mut()[..per / 8])
        .collect();
    let main_view: &[u64] = &main_mem.region.as_u64_mut()[..per / 8];
    let regions: Vec<&[u64]> = std::iter::once(main_view)
        .chain(other_views.iter().copied())
        .collect();
    let available = regions.len();
    let counts = thread_counts(available);
    let laps = ((if quick { 4e6 } else { 20e6 }) * 30.0 / per as f64)
        .ceil()
        .max(1.0) as u64;
    let mut trows: Vec<ThreadRow> = counts
        .iter()
        .map(|&n| ThreadRow {
            threads: n,
            cores: if n <= available {
                cores[..n].to_vec()
            } else {
                Vec::new()
            },
            total: Vec::new(),
            verified: true,
            off_core: 0,
        })
        .collect();
    // Rows take turns (1, 2, ... threads, then again); round 0 is a warm-up, discarded.
    for round in 0..=plan.rounds {
        for t in trows.iter_mut().filter(|t| !t.cores.is_empty()) {
            let (ns, seen, _) = team::team(&t.cores, |i| read(regions[i], laps));
            if round > 0 {
                t.total
                    .push((t.cores.len() * per) as f64 * laps as f64 / ns);
                t.verified &= seen.iter().all(team::Seen::verified);
                t.off_core += usize::from(!seen.iter().all(team::Seen::on_core));
            }
        }
    }
    meta("threads_laps_per_run", laps);
    let totals = report::threads(&trows, available, region);
    let one = totals.first().map(|t| t.1);
    let all = totals.last().copied();
    let held: usize = trows.iter().map(|t| t.off_core).sum();
    let mut text = if held > 0 {
        format!(
            "! In {held} round(s) a worker had under {:.0}% of its time on its core (other work): \
             those totals understate the machine. ",
            team::ON_CORE * 100.0
        )
    } else {
        String::new()
    };
    match (one, all) {
        (Some(o), Some((n, t))) if n > 1 => {
            // The first step that adds under half of its ideal gain is where scaling stops.
            let stop = totals.windows(2).find(|w| {
                let ideal = w[1].0 as f64 / w[0].0 as f64 - 1.0;
                (w[1].1 / w[0].1 - 1.0) < 0.5 * ideal
            });
            text.push_str(&format!(
                "With {n} threads each one reads {} GB/s, against {} GB/s alone. {}",
                gbs(t / n as f64),
                gbs(o),
                match stop {
                    Some(w) => format!(
                        "Scaling stops at {} thread(s): {} added under half the ideal gain; the \
                         memory system, not the cores, sets the limit.",
                        w[0].0, w[1].0
                    ),
                    None => format!(
                        "Every step added at least half of its ideal gain: up to {n} threads the \
                         cores, not the memory system, were the limit."
                    ),
                }
            ));
        }
        _ => text.push_str("Only one core may be used, so this run says nothing about scaling."),
    }
    conclude(&text);

    // == 6. Latency under load: a pointer chase beside streaming cores, against it alone.
    exp.section("6. latency under load: a pointer chase while the other cores stream");
    let mut loaded = None;
    if available < 2 {
        println!("  skipped: this run may use one core; a loaded latency needs at least two");
        meta("loaded_latency", "skipped");
    } else {
        let line = exp.facts.line_size().value.unwrap_or(64) as usize;
        let chase_plan = if quick {
            measure::chase::Plan::quick(2e6)
        } else {
            measure::chase::Plan::full(10e6, 5_000_000)
        };
        let streamers = &cores[1..available];
        let ll = latency::measure(
            main_mem.region.as_u64_mut(),
            max as usize,
            line,
            &chase_plan,
            latency::Load {
                cores: streamers,
                regions: other_views.clone(),
                chunk: CHUNK,
                read,
            },
        );
        // A loaded round counts when the streamers read at least half of what one thread
        // alone read in section 5, each: otherwise other work held them off their cores.
        let v = latency::judge(&ll, one.map(|o| 0.5 * o * streamers.len() as f64));
        report::loaded(&ll, &v, &cc, max, cores[0], streamers);
        loaded = Some(v);
    }

    // == 7. Verdicts, computed from the numbers above.
    exp.section("7. verdicts (the explicit kernels; B/cyc: bytes per core cycle)");
    let seen = verdict::Seen {
        threads: one.zip(all),
        stream_gain: nt_gain,
        loaded: loaded.map(|v| {
            (
                v.idle.map(|i| i.median),
                v.loaded.map(|l| l.median),
                v.ratio,
            )
        }),
    };
    verdict::print(&mut exp, &rows, &kernels, lim.as_ref(), &cc, &seen);
    exp.finish();
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
