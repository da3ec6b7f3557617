//! Everything printed in sections 1 to 3: the facts the walks use (line, clock, buffer, pages),
//! the stride tables, the `#DATA` blocks and the sentences. Every sentence branches on this
//! run's numbers.

use crate::walk::{self, Plan};
use measure::clock::{ClockReport, CoreClock};
use measure::data::{Block, meta};
use measure::facts::{Fact, MachineFacts};
use measure::fmt::{bytes, conclude, field, grouped, say};
use measure::mem::backing_meta;
use measure::scan::{DEFAULT_TOLERANCE, Order};
use measure::stats::Summary;

/// The line size and where it came from (human line and `#META`).
pub fn line(fact: &Fact) {
    let text = match fact.value {
        Some(l) => format!(
            "{l} bytes (from {})",
            fact.source.map_or("?".into(), |s| s.to_string())
        ),
        None => "unknown (no source reports it): lines, bytes in vain and distinct lines are NA \
                 below"
            .into(),
    };
    println!("{}", field("cache line", &text));
    meta(
        measure::schema::stride::META_LINE_BYTES,
        fact.value.map_or("unknown".into(), |l| l.to_string()),
    );
    meta(
        "line_source",
        fact.source.map_or("none".into(), |s| s.to_string()),
    );
}

/// The cost of one clock reading and the smallest step it shows.
pub fn clock(probe: &ClockReport) {
    println!(
        "  clock          : one reading costs {:.1} ns, the smallest step two readings show is {:.1} ns",
        probe.gettime_cost_ns.median, probe.min_step_ns
    );
    meta("clock_min_step_ns", probe.min_step_ns);
}

/// The buffer chosen (`asked` bytes, rounded up to `len`), against the largest cache, and the
/// walk's fixed counts (`#META`).
pub fn buffer(
    len: usize,
    asked: u64,
    why: &str,
    largest: Option<u64>,
    accesses: usize,
    rounds: usize,
) {
    let rounded = if len as u64 != asked {
        ", rounded up to a power of two so that the walk can wrap with a mask"
    } else {
        ""
    };
    let against = match largest {
        Some(c) if (len as u64) <= c => format!(
            "; ! not larger than the largest reported cache ({}): stride 1 may run from cache",
            bytes(c)
        ),
        Some(c) => format!(
            "; {:.0}x the largest reported cache ({})",
            len as f64 / c as f64,
            bytes(c)
        ),
        None => "; the largest cache is unknown".into(),
    };
    let text = format!("{} ({why}{rounded}){against}", bytes(len as u64));
    println!("{}", field("buffer", &text));
    meta(measure::schema::stride::META_BUFFER_BYTES, len);
    meta("buffer_size", bytes(len as u64));
    meta("buffer_choice", why);
    meta(measure::schema::stride::META_ACCESSES, accesses);
    meta("rounds", rounds);
}

/// The buffer's huge-page backing, as found (nothing was requested).
pub fn backing(pct: Option<f64>, thp_mode: Option<&str>) {
    match pct {
        Some(p) => println!(
            "  pages          : {p:.0}% on huge pages (verified in /proc/self/smaps; none asked for, THP {})",
            thp_mode.unwrap_or("unknown")
        ),
        None => println!("  pages          : backing unknown (/proc/self/smaps unreadable)"),
    }
    meta("huge_backing_pct", backing_meta(pct));
}

/// The passes over the strides and how each point is timed.
pub fn passes(orders: &[Order], rounds: usize) {
    let names: Vec<&str> = orders.iter().map(|o| o.name()).collect();
    meta("passes", names.join(","));
    say(
        &format!(
            "{} passes over the strides ({}), {rounds} rounds per stride after a discarded \
             warm-up; in each round the appendix's walk and the fresh-lines walk alternate.",
            orders.len(),
            names.join(", then ")
        ),
        "  ",
    );
}

/// Everything measured and computed for one stride.
pub struct Row {
    pub stride: u64,
    pub wrap: Summary,
    pub fresh: Summary,
    pub wrap_spread: f64,
    pub fresh_spread: f64,
    pub agree: bool,
    pub plan: Plan,
    pub fresh_plan: Plan,
    /// (order, appendix walk median, fresh walk median) per pass.
    pub passes: Vec<(&'static str, f64, f64)>,
}

/// The cost table: each stride's time per access, with the lines it touches and the bytes it
/// fetches in vain (ours and the appendix's), and whether the passes agreed.
pub fn print_cost_table(
    rows: &[Row],
    line: Option<u64>,
    cc: &CoreClock,
    accesses: usize,
    clock_step_ns: f64,
) {
    println!(
        "\n  {:<7} {:<27} {:>7} {:>7} {:>10} {:^16}  passes",
        "stride", "each, ns (min .. max)", "factor", "cycles", "lines per", "bytes in vain"
    );
    println!(
        "  {:<7} {:<27} {:>7} {:>7} {:>10} {:>6} {:>9}",
        "bytes", "", "", "", "access", "ours", "appendix"
    );
    let base = rows[0].wrap.median;
    let na = || "NA".to_string();
    for r in rows {
        let w = &r.wrap;
        println!(
            "  {:<7} {:>8.2} ({:>6.2} .. {:>6.2}) {:>6.1}x {:>7} {:>10} {:>6} {:>9}  {}",
            r.stride,
            w.median,
            w.min,
            w.max,
            w.median / base,
            cc.cycles(w.median).map_or_else(na, |c| format!("{c:.1}")),
            line.map_or_else(na, |l| format!(
                "{:.3}",
                walk::lines_per_access(r.stride, l)
            )),
            line.map_or_else(na, |l| walk::bytes_in_vain(r.stride, l).to_string()),
            line.map_or_else(na, |l| walk::appendix_vain_bytes(r.stride, l).to_string()),
            agreement_word(r),
        );
    }
    let shortest = rows
        .iter()
        .flat_map(|r| [r.wrap.min, r.fresh.min])
        .fold(f64::INFINITY, f64::min)
        * accesses as f64;
    say(
        &format!(
            "each access reads one byte; min .. max over the rounds of all passes; ! the passes \
             disagree by over {:.0}%; the shortest batch lasted {:.0} us (the clock's step is \
             {:.3}% of it).",
            DEFAULT_TOLERANCE * 100.0,
            shortest / 1000.0,
            clock_step_ns / shortest * 100.0
        ),
        "  ",
    );
    println!(
        "  in vain: ours counts fetched bytes no access reads; the appendix only lines used for one access"
    );
}

fn agreement_word(r: &Row) -> String {
    let worst = r.wrap_spread.max(r.fresh_spread) * 100.0;
    if r.agree {
        format!("ok {worst:.0}%")
    } else {
        format!("!  {worst:.0}%")
    }
}

/// What each walk visited: laps, distinct lines and where that working set fits, for the
/// appendix's walk and the fresh-lines walk, with the fresh walk's time against the other's.
pub fn print_visit_table(rows: &[Row], line: Option<u64>, facts: &MachineFacts) {
    println!("\n  what each walk actually visited (the appendix's walk | the fresh-lines walk):");
    println!(
        "  {:<6} {:>7} {:>10} {:>9} {:<7} | {:>8} {:>10} {:>9} {:<7} {:>7}",
        "stride",
        "laps",
        "lines",
        "set",
        "fits in",
        "fresh ns",
        "lines",
        "set",
        "fits in",
        "/ wrap"
    );
    for r in rows {
        let show_lines = |p: &Plan| p.lines.map_or("NA".into(), grouped);
        let show_set = |p: &Plan| p.working_set(line).map_or("NA".into(), bytes);
        let fits = |p: &Plan| {
            p.working_set(line)
                .map_or("?".into(), |b| facts.where_fits(b))
        };
        println!(
            "  {:<6} {:>7.2} {:>10} {:>9} {:<7} | {:>8.2} {:>10} {:>9} {:<7} {:>6.2}x",
            r.stride,
            r.plan.laps,
            show_lines(&r.plan),
            show_set(&r.plan),
            fits(&r.plan),
            r.fresh.median,
            show_lines(&r.fresh_plan),
            show_set(&r.fresh_plan),
            fits(&r.fresh_plan),
            r.fresh.median / r.wrap.median
        );
    }
    say(
        "laps above 1: the walk wrapped to the start and re-read what it had read. fits in: by the \
         reported cache sizes. The fresh walk starts every lap one line further on.",
        "  ",
    );
}

pub fn stride_blocks(rows: &[Row], line: Option<u64>, cc: &CoreClock) {
    let mut b = Block::new(
        measure::schema::stride::stride::BLOCK,
        measure::schema::stride::stride::COLUMNS,
    );
    let base = rows[0].wrap.median;
    for r in rows {
        b.row(vec![
            r.stride.into(),
            r.wrap.median.into(),
            r.wrap.min.into(),
            r.wrap.max.into(),
            (r.wrap.median / base).into(),
            cc.cycles(r.wrap.median).into(),
            r.fresh.median.into(),
            r.fresh.min.into(),
            r.fresh.max.into(),
            line.map(|l| walk::lines_per_access(r.stride, l)).into(),
            line.map(|l| walk::bytes_in_vain(r.stride, l)).into(),
            r.plan.laps.into(),
            r.plan.lines.into(),
            r.plan.pages.into(),
            r.plan.working_set(line).into(),
            r.fresh_plan.lines.into(),
            r.fresh_plan.pages.into(),
            r.fresh_plan.working_set(line).into(),
            r.wrap_spread.into(),
            r.fresh_spread.into(),
            r.agree.into(),
            line.map(|l| walk::appendix_vain_bytes(r.stride, l)).into(),
        ]);
    }
    b.print();
    let mut p = Block::new(
        measure::schema::stride::stride_passes::BLOCK,
        measure::schema::stride::stride_passes::COLUMNS,
    );
    for r in rows {
        for (order, w, f) in &r.passes {
            p.row(vec![
                r.stride.into(),
                (*order).into(),
                (*w).into(),
                (*f).into(),
            ]);
        }
    }
    p.print();
}

/// The sentences, each computed from this run's numbers.
pub fn stride_findings(
    rows: &[Row],
    line: Option<u64>,
    len: usize,
    accesses: usize,
    facts: &MachineFacts,
) {
    let first = &rows[0];
    let last = &rows[rows.len() - 1];
    // The line in the time, and the largest step.
    let (k, step) = rows
        .windows(2)
        .enumerate()
        .map(|(k, w)| (k, w[1].wrap.median / w[0].wrap.median))
        .fold((0, 0.0), |best, x| if x.1 > best.1 { x } else { best });
    let (from, to) = (rows[k].stride, rows[k + 1].stride);
    // A step to or from a point whose passes disagree may be time, not the stride: say so.
    let step = if rows[k].agree && rows[k + 1].agree {
        format!("{step:.2}x")
    } else {
        format!("{step:.2}x, a point marked !")
    };
    let (the, the_cap) = ("the", "The");
    let largest_step = |the: &str| match line {
        Some(l) if to == l => format!(
            "{the} largest step between neighbours is from {from} to {to} bytes ({step}): where \
             every access starts needing a line of its own, the line shows in the time."
        ),
        Some(l) => format!(
            "{the} largest step between neighbours is from {from} to {to} bytes ({step}), not at \
             the line size ({l} bytes): ask which of the machine's numbers {to} equals."
        ),
        None => format!(
            "{the} largest step between neighbours is from {from} to {to} bytes ({step}); the \
             line size is unknown."
        ),
    };
    meta(
        "verdict_largest_step",
        format!(
            "from {from} to {to} bytes ({step}), {}",
            match line {
                Some(l) if to == l => "at the line size".to_string(),
                Some(l) => format!("not at the line size ({l} bytes)"),
                None => "the line size unknown".to_string(),
            }
        ),
    );
    match line.and_then(|l| rows.iter().find(|r| r.stride == l)) {
        Some(at_line) => conclude(&format!(
            "from stride 1 to the line size ({} bytes) the cost per access grew {:.1}x; from there \
             to {} bytes it changed another {:.2}x. {}",
            at_line.stride,
            at_line.wrap.median / first.wrap.median,
            last.stride,
            last.wrap.median / at_line.wrap.median,
            largest_step(the_cap)
        )),
        None => conclude(&largest_step(the)),
    }

    // The narrow strides: a fixed count of short steps never leaves the start of the buffer.
    if let Some(set) = first.plan.working_set(line) {
        let fits = facts.where_fits(set);
        if fits != "memory" && fits != "?" {
            let cached = rows
                .iter()
                .take_while(|r| {
                    r.plan
                        .working_set(line)
                        .is_some_and(|b| facts.where_fits(b) != "memory")
                })
                .last()
                .map_or(first.stride, |r| r.stride);
            conclude(&format!(
                "the narrow strides stay in the cache: at stride 1 the {} accesses read only the \
                 first {} of the buffer (in {fits} by the reported sizes), and up to stride {cached} \
                 the working set fits in a reported cache: those points time cache hits and \
                 prefetching, not memory.",
                grouped(accesses as u64),
                bytes(set)
            ));
        }
    }

    // The wrap.
    let wrapped = rows.iter().find(|r| r.plan.wrapped());
    meta(
        "wrap_from_stride",
        wrapped.map_or("none".into(), |r| r.stride.to_string()),
    );
    match wrapped {
        None => conclude(&format!(
            "no stride wrapped around: even at {} bytes, {} accesses cover {:.0}% of the {} \
             buffer, so every access met a position not read before.",
            last.stride,
            grouped(accesses as u64),
            last.plan.laps * 100.0,
            bytes(len as u64)
        )),
        Some(w0) => {
            let set = last.plan.working_set(line).map_or(String::new(), |b| {
                format!(" ({}, in {})", bytes(b), facts.where_fits(b))
            });
            let r = last.fresh.median / last.wrap.median;
            // A difference is claimed only where every round of one walk beat every round of
            // the other.
            let (cheaper, dearer) = (
                last.wrap.max < last.fresh.min,
                last.fresh.max < last.wrap.min,
            );
            let verdict = if r > 1.0 + DEFAULT_TOLERANCE && cheaper {
                format!(
                    "{:.2} ns instead of {:.2} ns ({r:.1}x): the wrap made the widest strides look \
                     cheaper.",
                    last.fresh.median, last.wrap.median
                )
            } else if r < 1.0 - DEFAULT_TOLERANCE && dearer {
                format!(
                    "{:.2} ns against {:.2} ns ({r:.2}x): re-reading did not help here.",
                    last.fresh.median, last.wrap.median
                )
            } else if !(1.0 - DEFAULT_TOLERANCE..=1.0 + DEFAULT_TOLERANCE).contains(&r) {
                format!(
                    "{:.2} ns against {:.2} ns ({r:.2}x), but the rounds of the two walks \
                     overlap: no clear difference in this run.",
                    last.fresh.median, last.wrap.median
                )
            } else {
                format!("about the same ({r:.2}x): here the re-read working set did not matter.")
            };
            conclude(&format!(
                "the appendix's walk WRAPPED from stride {} up: at {} bytes it made {:.0} laps of \
                 the {} buffer over only {} distinct lines{set}, a small, re-read working set. The \
                 fresh-lines walk, which visits {} lines there, costs {verdict}",
                w0.stride,
                last.stride,
                last.plan.laps,
                bytes(len as u64),
                last.plan
                    .lines
                    .map_or("(line size unknown)".into(), grouped),
                last.fresh_plan.lines.map_or("NA".into(), grouped),
            ));
        }
    }

    // The appendix's question: the dip at 4096.
    if rows.len() >= 2 {
        let prev = &rows[rows.len() - 2];
        // A dip: the median down by more than the tolerance, and every round below every
        // round of the stride before.
        let dip = |a: &Summary, b: &Summary| {
            b.median < a.median * (1.0 - DEFAULT_TOLERANCE) && b.max < a.min
        };
        let wrap_dip = dip(&prev.wrap, &last.wrap);
        let fresh_dip = dip(&prev.fresh, &last.fresh);
        let (from, to) = (prev.stride, last.stride);
        let wrap = format!("{:.2} -> {:.2}", prev.wrap.median, last.wrap.median);
        let fresh = format!("{:.2} -> {:.2}", prev.fresh.median, last.fresh.median);
        meta(
            "verdict_dip",
            match (wrap_dip, fresh_dip) {
                (true, false) => "only the appendix's walk dipped",
                (true, true) => "both walks dipped",
                (false, true) => "only the fresh-lines walk dipped",
                (false, false) => "no dip",
            },
        );
        conclude(&match (wrap_dip, fresh_dip) {
            (true, false) => format!(
                "the appendix's walk dipped from {from} to {to} bytes ({wrap} ns) and the \
                 fresh-lines walk did not ({fresh} ns): the dip goes with the smaller working set \
                 of the wrapped walk."
            ),
            (true, true) => format!(
                "both walks dipped from {from} to {to} bytes ({wrap} and {fresh} ns): not only the \
                 wrap."
            ),
            (false, true) => {
                format!("only the fresh-lines walk dipped from {from} to {to} bytes ({fresh} ns).")
            }
            (false, false) => format!(
                "no dip at {to} bytes here: {:.2}x the cost at {from} bytes{} (the appendix \
                 saw 0.86x).",
                last.wrap.median / prev.wrap.median,
                if last.wrap.median < prev.wrap.median * (1.0 - DEFAULT_TOLERANCE) {
                    ", but the rounds of the two strides overlap"
                } else {
                    ""
                }
            ),
        });
    }
}
