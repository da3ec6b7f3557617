//! Everything printed in sections 1 to 3: the facts the walks use (line, clock, buffer, pages),
//! the stride tables, the `#DATA` blocks and the sentences. Every sentence branches on this
//! run's numbers.

use crate::walk::{self, Plan};
use measure::clock::{ClockReport, CoreClock};
use measure::data::{Block, meta};
use measure::facts::{Fact, MachineFacts, human_bytes};
use measure::mem::backing_meta;
use measure::scan::{DEFAULT_TOLERANCE, Order};
use measure::stats::Summary;

/// The line size and where it came from (human line and `#META`).
pub fn line(fact: &Fact) {
    match fact.value {
        Some(l) => println!(
            "  cache line     : {l} bytes (from {})",
            fact.source.map_or("?".into(), |s| s.to_string())
        ),
        None => println!(
            "  cache line     : unknown (no source reports it): the lines-per-access, bytes-in-vain\n                   and distinct-lines columns are NA below"
        ),
    }
    meta(
        "line_bytes",
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
    meta("buffer_choice", why);
    meta("accesses", accesses);
    meta("rounds", rounds);
}

/// The buffer's huge-page backing, as found (nothing was requested).
pub fn backing(pct: Option<f64>, thp_mode: Option<&str>) {
    match pct {
        Some(p) => println!(
            "  pages          : {p:.0}% of the buffer backed by transparent huge pages (AnonHugePages in\n                   /proc/self/smaps; nothing was requested, THP mode {})",
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
    println!(
        "  {} passes over the strides ({}), {rounds} rounds per stride after a discarded warm-up;\n  in each round the appendix's walk and the fresh-lines walk alternate.",
        orders.len(),
        names.join(", then ")
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

pub fn print_cost_table(rows: &[Row], line: Option<u64>, cc: &CoreClock) {
    println!(
        "\n  {:<8} {:<28} {:>7} {:>7}  {:<14} {:<14} passes",
        "stride", "each (min .. max)", "factor", "cycles", "lines touched", "bytes in vain"
    );
    let base = rows[0].wrap.median;
    for r in rows {
        let w = &r.wrap;
        println!(
            "  {:<8} {:>8.2} ns ({:>6.2} .. {:>6.2}) {:>6.1}x {:>7}  {:<14} {:<14} {}",
            r.stride,
            w.median,
            w.min,
            w.max,
            w.median / base,
            cc.cycles(w.median)
                .map_or("NA".into(), |c| format!("{c:.1}")),
            line.map_or("NA".into(), |l| format!(
                "{:.3}",
                walk::lines_per_access(r.stride, l)
            )),
            line.map_or("NA".into(), |l| format!(
                "{} bytes",
                walk::bytes_in_vain(r.stride, l)
            )),
            agreement_word(r),
        );
    }
    println!(
        "  (each access reads one byte; \"bytes in vain\" are the bytes of fetched line per access that\n   no access ever read. min .. max over the rounds of all passes.)"
    );
}

fn agreement_word(r: &Row) -> String {
    let worst = r.wrap_spread.max(r.fresh_spread) * 100.0;
    if r.agree {
        format!("agree ({worst:.0}%)")
    } else {
        format!("DISAGREE ({worst:.0}%)")
    }
}

pub fn print_visit_table(rows: &[Row], line: Option<u64>, facts: &MachineFacts) {
    println!("\n  what each walk actually visited:");
    println!(
        "  {:<8} {:>7} {:>14} {:>12} {:<8} | {:>10} {:>14} {:>12} {:<8} {:>9}",
        "stride",
        "laps",
        "distinct lines",
        "working set",
        "fits in",
        "fresh walk",
        "distinct lines",
        "working set",
        "fits in",
        "vs wraps"
    );
    for r in rows {
        let show_lines = |p: &Plan| p.lines.map_or("NA".into(), grouped);
        let show_set = |p: &Plan| p.working_set(line).map_or("NA".into(), human_bytes);
        let fits = |p: &Plan| {
            p.working_set(line)
                .map_or("?".into(), |b| facts.where_fits(b))
        };
        println!(
            "  {:<8} {:>7} {:>14} {:>12} {:<8} | {:>7.2} ns {:>14} {:>12} {:<8} {:>8.2}x",
            r.stride,
            format!("{:.2}", r.plan.laps),
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
    println!(
        "  (laps above 1: the walk wrapped to the start and re-read what it had read. \"fits in\" goes by the\n   reported cache sizes. The fresh walk starts every lap one line further on.)"
    );
}

pub fn stride_blocks(rows: &[Row], line: Option<u64>, cc: &CoreClock) {
    let mut b = Block::new(
        "stride",
        &[
            "stride_bytes",
            "appendix_ns",
            "appendix_min_ns",
            "appendix_max_ns",
            "factor",
            "appendix_cycles",
            "fresh_ns",
            "fresh_min_ns",
            "fresh_max_ns",
            "lines_per_access",
            "vain_bytes",
            "laps",
            "appendix_lines",
            "appendix_pages",
            "appendix_set_bytes",
            "fresh_lines",
            "fresh_pages",
            "fresh_set_bytes",
            "appendix_spread",
            "fresh_spread",
            "agree:text",
        ],
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
        ]);
    }
    b.print();
    let mut p = Block::new(
        "stride_passes",
        &["stride_bytes", "pass:text", "appendix_ns", "fresh_ns"],
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
    println!();
    // The line in the time.
    match line.and_then(|l| rows.iter().find(|r| r.stride == l)) {
        Some(at_line) => println!(
            "  * from stride 1 to the line size ({} bytes) the cost per access grew {:.1}x; from there to\n    {} bytes it changed another {:.2}x.",
            at_line.stride,
            at_line.wrap.median / first.wrap.median,
            last.stride,
            last.wrap.median / at_line.wrap.median
        ),
        None => println!(
            "  * the line size is unknown (or not among the strides), so the curve is the only witness of it."
        ),
    }
    let (k, step) = rows
        .windows(2)
        .enumerate()
        .map(|(k, w)| (k, w[1].wrap.median / w[0].wrap.median))
        .fold((0, 0.0), |best, x| if x.1 > best.1 { x } else { best });
    let (from, to) = (rows[k].stride, rows[k + 1].stride);
    let coincide = match line {
        Some(l) if to == l => {
            "which is where every access starts needing a line of its own: the line shows in the time.".to_string()
        }
        Some(l) => format!(
            "which is not the line size ({l} bytes): ask which of the machine's numbers {to} equals."
        ),
        None => "(the line size is unknown).".to_string(),
    };
    println!(
        "  * the largest step between neighbouring strides is from {from} to {to} bytes ({step:.2}x),\n    {coincide}"
    );

    // The narrow strides: a fixed count of short steps never leaves the start of the buffer.
    if let Some(set) = first.plan.working_set(line) {
        let fits = facts.where_fits(set);
        if fits != "memory" && fits != "?" {
            let cached: Vec<&Row> = rows
                .iter()
                .take_while(|r| {
                    r.plan
                        .working_set(line)
                        .is_some_and(|b| facts.where_fits(b) != "memory")
                })
                .collect();
            println!(
                "  * the narrow strides stay in the cache: at stride 1 the {} accesses read only the first {} of\n    the buffer (in {fits} by the reported sizes), and every round starts again at 0. Up to stride {} bytes\n    the working set fits in a reported cache: those points time cache hits and prefetching, not memory.",
                grouped(accesses as u64),
                human_bytes(set),
                cached.last().map_or(first.stride, |r| r.stride)
            );
        }
    }

    // The wrap.
    let wrapped: Vec<&Row> = rows.iter().filter(|r| r.plan.wrapped()).collect();
    match wrapped.first() {
        None => println!(
            "  * no stride wrapped around: even at {} bytes, {} accesses cover {:.0}% of the {} buffer, so\n    every access met a position not read before.",
            last.stride,
            grouped(accesses as u64),
            last.plan.laps * 100.0,
            human_bytes(len as u64)
        ),
        Some(w0) => {
            let set = last.plan.working_set(line);
            println!(
                "  * the walk WRAPPED for every stride from {} bytes up: {} accesses run past the end of the\n    {} buffer, start again at 0 and re-read the same positions. At {} bytes it made {:.0} laps over\n    only {} distinct lines{}:\n    the widest strides of the appendix's method time a small, re-read working set.",
                w0.stride,
                grouped(accesses as u64),
                human_bytes(len as u64),
                last.stride,
                last.plan.laps,
                last.plan
                    .lines
                    .map_or("(line size unknown)".into(), grouped),
                match set {
                    Some(b) => format!(
                        " ({}, in {} by the reported sizes)",
                        human_bytes(b),
                        facts.where_fits(b)
                    ),
                    None => String::new(),
                }
            );
            let r = last.fresh.median / last.wrap.median;
            let verdict = if r > 1.0 + DEFAULT_TOLERANCE {
                format!(
                    "it costs {:.2} ns instead of {:.2} ns ({r:.1}x): the wrap made the widest strides look cheaper.",
                    last.fresh.median, last.wrap.median
                )
            } else if r < 1.0 - DEFAULT_TOLERANCE {
                format!(
                    "it was cheaper ({:.2} ns against {:.2} ns, {r:.2}x): re-reading did not help here.",
                    last.fresh.median, last.wrap.median
                )
            } else {
                format!(
                    "it costs about the same ({r:.2}x): on this run the re-read working set did not change the cost."
                )
            };
            println!(
                "    The fresh-lines walk starts each lap one line further on and visits {} distinct lines at\n    {} bytes; {verdict}",
                last.fresh_plan.lines.map_or("NA".into(), grouped),
                last.stride
            );
        }
    }

    // The appendix's question: the dip at 4096.
    if rows.len() >= 2 {
        let prev = &rows[rows.len() - 2];
        let dip = |a: f64, b: f64| b < a * (1.0 - DEFAULT_TOLERANCE);
        let wrap_dip = dip(prev.wrap.median, last.wrap.median);
        let fresh_dip = dip(prev.fresh.median, last.fresh.median);
        let (from, to) = (prev.stride, last.stride);
        let wrap = format!("{:.2} -> {:.2}", prev.wrap.median, last.wrap.median);
        let fresh = format!("{:.2} -> {:.2}", prev.fresh.median, last.fresh.median);
        let s = match (wrap_dip, fresh_dip) {
            (true, false) => format!(
                "the appendix's walk dipped from {from} to {to} bytes ({wrap} ns) and the fresh-lines walk did not\n    ({fresh} ns): the dip goes with the smaller working set of the wrapped walk."
            ),
            (true, true) => format!(
                "both walks dipped from {from} to {to} bytes ({wrap} and {fresh} ns): not only the wrap."
            ),
            (false, true) => {
                format!("only the fresh-lines walk dipped from {from} to {to} bytes ({fresh} ns).")
            }
            (false, false) => format!(
                "no dip at {} bytes here: {:.2}x the cost at {} bytes (the appendix saw 0.86x).",
                last.stride,
                last.wrap.median / prev.wrap.median,
                prev.stride
            ),
        };
        println!("  * {s}");
    }

    // The two passes.
    let bad: Vec<String> = rows
        .iter()
        .filter(|r| !r.agree)
        .map(|r| r.stride.to_string())
        .collect();
    if bad.is_empty() {
        println!(
            "  * the passes in different orders agree within {:.0}% at every stride.",
            DEFAULT_TOLERANCE * 100.0
        );
    } else {
        println!(
            "  * the passes in different orders DISAGREE by more than {:.0}% at these strides (bytes): {}.\n    Those points moved with time, not only with the stride: read them as unsettled (agree = no).",
            DEFAULT_TOLERANCE * 100.0,
            bad.join(", ")
        );
    }
}

/// How long the shortest timed batch lasted, against the clock's step.
pub fn shortest_batch(rows: &[Row], accesses: usize, clock_step_ns: f64) {
    let shortest = rows
        .iter()
        .flat_map(|r| [r.wrap.min, r.fresh.min])
        .fold(f64::INFINITY, f64::min)
        * accesses as f64;
    println!(
        "  * the shortest timed batch lasted {:.0} us; the clock's step ({:.0} ns) is {:.3}% of it.",
        shortest / 1000.0,
        clock_step_ns,
        clock_step_ns / shortest * 100.0
    );
}

/// 2000000 -> "2,000,000".
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn grouping() {
        assert_eq!(super::grouped(2_000_000), "2,000,000");
        assert_eq!(super::grouped(999), "999");
        assert_eq!(super::grouped(1000), "1,000");
    }
}
