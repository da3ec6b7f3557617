//! Everything printed in sections 1 to 3: the facts the walks use (line, clock, buffer, pages),
//! the stride tables, the `#DATA` blocks, and the rendering of section 3's reading (whose
//! sentences are [`crate::verdict::walks_verdict`]'s).

use crate::walk::{self, Plan};
use measure::clock::{ClockReport, CoreClock};
use measure::data::Block;
use measure::disturb::Tally;
use measure::facts::{Fact, MachineFacts};
use measure::fmt::{bytes, field, grouped, say};
use measure::mem::backing_meta;
use measure::out::Out;
use measure::scan::{DEFAULT_TOLERANCE, Order};
use measure::stats::Summary;

/// The line size and where it came from (human line and `#META`).
pub fn line(out: &mut Out, fact: &Fact) {
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
    out.meta(
        ::stride::schema::META_LINE_BYTES,
        fact.value.map_or("unknown".into(), |l| l.to_string()),
    );
    out.meta(
        "line_source",
        fact.source.map_or("none".into(), |s| s.to_string()),
    );
}

/// The cost of one clock reading and the smallest step it shows.
pub fn clock(out: &mut Out, probe: &ClockReport) {
    println!(
        "  clock          : one reading costs {:.1} ns, the smallest step two readings show is {:.1} ns",
        probe.gettime_cost_ns.median, probe.min_step_ns
    );
    out.meta("clock_min_step_ns", probe.min_step_ns);
}

/// The buffer chosen (`asked` bytes, rounded up to `len`), against the largest cache, and the
/// walk's fixed counts (`#META`).
pub fn buffer(
    out: &mut Out,
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
    out.meta(::stride::schema::META_BUFFER_BYTES, len);
    out.meta("buffer_size", bytes(len as u64));
    out.meta("buffer_choice", why);
    out.meta(::stride::schema::META_ACCESSES, accesses);
    out.meta("rounds", rounds);
}

/// The buffer's huge-page backing, as found (nothing was requested).
pub fn backing(out: &mut Out, pct: Option<f64>, thp_mode: Option<&str>) {
    match pct {
        Some(p) => println!(
            "  pages          : {p:.0}% on huge pages (verified in /proc/self/smaps; none asked for, THP {})",
            thp_mode.unwrap_or("unknown")
        ),
        None => println!("  pages          : backing unknown (/proc/self/smaps unreadable)"),
    }
    out.meta("huge_backing_pct", backing_meta(pct));
}

/// The passes over the strides and how each point is timed (`want`: the rounds asked).
pub fn passes(out: &mut Out, orders: &[Order], want: &measure::segments::Want) {
    let names: Vec<&str> = orders.iter().map(|o| o.name()).collect();
    out.meta("passes", names.join(","));
    say(
        &format!(
            "{} passes over the strides ({}), {} rounds per walk and stride after a discarded \
             warm-up; the appendix's walk and the fresh-lines walk alternate. A round is one \
             whole walk, timed in segments of about {:.1} ms, each judged by its own evidence: a \
             disturbed segment is replaced by the same segment of the other rounds; up to {} \
             extra rounds / {:.0} ms per stride and pass until every segment has {} clean ones.",
            orders.len(),
            names.join(", then "),
            want.reps,
            crate::timing::SEGMENT_NS / 1e6,
            want.max_reps - want.reps,
            want.budget_ns as f64 / 1e6,
            want.usable
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
    /// Both walks' segments over all passes: how many, how many disturbed.
    pub tally: Tally,
    pub passes: Vec<PassRow>,
    /// The shortest segment timed, in nanoseconds.
    pub shortest_ns: f64,
}

/// One stride in one pass: both walks' medians (of the clean rounds) and their rounds.
pub struct PassRow {
    pub order: &'static str,
    pub wrap_ns: f64,
    pub fresh_ns: f64,
    pub tally: Tally,
}

/// The cost table: each stride's time per access, with the lines it touches and the bytes it
/// fetches in vain (ours and the appendix's), and whether the passes agreed.
pub fn print_cost_table(rows: &[Row], line: Option<u64>, cc: &CoreClock, clock_step_ns: f64) {
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
        .map(|r| r.shortest_ns)
        .fold(f64::INFINITY, f64::min);
    say(
        &format!(
            "each access reads one byte; min .. max over the clean rounds of all passes; ! the passes \
             disagree by over {:.0}%; p provisional: its rounds were disturbed, or the core's share \
             was unsteady while it was taken; the shortest timed segment lasted {:.0} us (the clock's step is \
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
    let p = if r.tally.provisional() { " p" } else { "" };
    if r.agree {
        format!("ok {worst:.0}%{p}")
    } else {
        format!("!  {worst:.0}%{p}")
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

pub fn stride_blocks(out: &mut Out, rows: &[Row], line: Option<u64>, cc: &CoreClock) {
    let mut b = Block::new(
        ::stride::schema::stride::BLOCK,
        ::stride::schema::stride::COLUMNS,
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
            r.tally.rounds.into(),
            r.tally.disturbed.into(),
            r.tally.provisional().into(),
        ]);
    }
    out.block(&b);
    let mut p = Block::new(
        ::stride::schema::stride_passes::BLOCK,
        ::stride::schema::stride_passes::COLUMNS,
    );
    for r in rows {
        for x in &r.passes {
            p.row(vec![
                r.stride.into(),
                x.order.into(),
                x.wrap_ns.into(),
                x.fresh_ns.into(),
                x.tally.rounds.into(),
                x.tally.disturbed.into(),
            ]);
        }
    }
    out.block(&p);
}

/// Section 3's result: every stride's row, the walks' fixed counts, and the rounds behind
/// them with the load around the section.
pub struct Walks {
    pub rows: Vec<Row>,
    pub line: Option<u64>,
    pub len: usize,
    pub accesses: usize,
    pub tally: Tally,
}

impl Walks {
    /// The section's result from its rows, the load around them, and the walks' line size,
    /// buffer length and accesses.
    /// The walks of every stride; their tally merges the rows', with the load of every
    /// stride's windows.
    pub fn of(rows: Vec<Row>, (line, len, accesses): (Option<u64>, usize, usize)) -> Walks {
        Walks {
            tally: rows.iter().fold(Tally::default(), |t, r| t.merge(&r.tally)),
            rows,
            line,
            len,
            accesses,
        }
    }
}

impl crate::verdict::Reading {
    /// Prints the sentences under "how to read this run" and records the verdicts.
    pub fn render(&self, out: &mut Out) {
        out.reading(&self.sentences);
        for (k, v) in &self.meta {
            out.meta(k, v);
        }
    }
}
