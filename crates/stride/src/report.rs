//! Everything printed in sections 1 to 3: the facts the walks use (line, clock, buffer, pages),
//! the stride tables, the `#DATA` blocks and the sentences. Every sentence branches on this
//! run's numbers.

use crate::walk::{self, Plan};
use measure::clock::{ClockReport, CoreClock};
use measure::data::Block;
use measure::disturb::{Load, Tally};
use measure::facts::{Fact, MachineFacts};
use measure::fmt::{bytes, field, grouped, say};
use measure::mem::backing_meta;
use measure::out::Out;
use measure::scan::{DEFAULT_TOLERANCE, Order};
use measure::show;
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
             disagree by over {:.0}%; the shortest timed segment lasted {:.0} us (the clock's step is \
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
    pub fn of(
        rows: Vec<Row>,
        load: Load,
        (line, len, accesses): (Option<u64>, usize, usize),
    ) -> Walks {
        Walks {
            tally: rows
                .iter()
                .fold(Tally::default(), |t, r| t.merge(&r.tally))
                .with_load(load),
            rows,
            line,
            len,
            accesses,
        }
    }
}

/// A section's reading: its sentences (marked when its rounds were disturbed) and the
/// verdicts recorded as `#META`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reading {
    pub sentences: Vec<String>,
    pub meta: Vec<(&'static str, String)>,
}

impl Reading {
    /// Prints the sentences under "how to read this run" and records the verdicts.
    pub fn render(&self, out: &mut Out) {
        println!("\n  how to read this run:");
        for s in &self.sentences {
            out.conclude(s);
        }
        for (k, v) in &self.meta {
            out.meta(k, v);
        }
    }
}

/// The sentences on the walks, each computed from this run's numbers, marked by
/// [`show::marked`] (the costs are read from memory, a shared level).
pub fn stride_reading(w: &Walks, facts: &MachineFacts) -> Reading {
    let mut r = Reading::default();
    let (step, step_meta) = largest_step(w);
    r.sentences.push(step);
    r.meta.push(("verdict_largest_step", step_meta));
    r.sentences.extend(narrow(w, facts));
    let wrapped = w.rows.iter().find(|r| r.plan.wrapped());
    r.meta.push((
        "wrap_from_stride",
        wrapped.map_or("none".into(), |r| r.stride.to_string()),
    ));
    r.sentences.push(wrap(w, facts));
    if let Some((sentence, verdict)) = dip(&w.rows) {
        r.sentences.push(sentence);
        r.meta.push(("verdict_dip", verdict.into()));
    }
    r.sentences = show::marked(&w.tally, true, r.sentences);
    r
}

/// The growth to the line size and the largest step between neighbours, and its `#META`.
fn largest_step(w: &Walks) -> (String, String) {
    let (rows, line) = (&w.rows, w.line);
    let first = &rows[0];
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
    let largest = |the: &str| match line {
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
    let verdict = format!(
        "from {from} to {to} bytes ({step}), {}",
        match line {
            Some(l) if to == l => "at the line size".to_string(),
            Some(l) => format!("not at the line size ({l} bytes)"),
            None => "the line size unknown".to_string(),
        }
    );
    let last = &rows[rows.len() - 1];
    let sentence = match line.and_then(|l| rows.iter().find(|r| r.stride == l)) {
        Some(at_line) => format!(
            "from stride 1 to the line size ({} bytes) the cost per access grew {:.1}x; from there \
             to {} bytes it changed another {:.2}x. {}",
            at_line.stride,
            at_line.wrap.median / first.wrap.median,
            last.stride,
            last.wrap.median / at_line.wrap.median,
            largest("The")
        ),
        None => largest("the"),
    };
    (sentence, verdict)
}

/// The narrow strides: a fixed count of short steps never leaves the start of the buffer.
fn narrow(w: &Walks, facts: &MachineFacts) -> Option<String> {
    let first = &w.rows[0];
    let set = first.plan.working_set(w.line)?;
    let fits = facts.where_fits(set);
    if fits == "memory" || fits == "?" {
        return None;
    }
    let cached = w
        .rows
        .iter()
        .take_while(|r| {
            r.plan
                .working_set(w.line)
                .is_some_and(|b| facts.where_fits(b) != "memory")
        })
        .last()
        .map_or(first.stride, |r| r.stride);
    Some(format!(
        "the narrow strides stay in the cache: at stride 1 the {} accesses read only the first \
         {} of the buffer (in {fits} by the reported sizes), and up to stride {cached} the \
         working set fits in a reported cache: those points time cache hits and prefetching, \
         not memory.",
        grouped(w.accesses as u64),
        bytes(set)
    ))
}

/// The wrap of the appendix's walk, and what the fresh-lines walk costs instead.
fn wrap(w: &Walks, facts: &MachineFacts) -> String {
    let last = &w.rows[w.rows.len() - 1];
    let Some(w0) = w.rows.iter().find(|r| r.plan.wrapped()) else {
        return format!(
            "no stride wrapped around: even at {} bytes, {} accesses cover {:.0}% of the {} \
             buffer, so every access met a position not read before.",
            last.stride,
            grouped(w.accesses as u64),
            last.plan.laps * 100.0,
            bytes(w.len as u64)
        );
    };
    let set = last.plan.working_set(w.line).map_or(String::new(), |b| {
        format!(" ({}, in {})", bytes(b), facts.where_fits(b))
    });
    let r = last.fresh.median / last.wrap.median;
    // A difference is claimed only where every round of one walk beat every round of the other.
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
            "{:.2} ns against {:.2} ns ({r:.2}x), but the rounds of the two walks overlap: no \
             clear difference in this run.",
            last.fresh.median, last.wrap.median
        )
    } else {
        format!("about the same ({r:.2}x): here the re-read working set did not matter.")
    };
    format!(
        "the appendix's walk WRAPPED from stride {} up: at {} bytes it made {:.0} laps of the {} \
         buffer over only {} distinct lines{set}, a small, re-read working set. The fresh-lines \
         walk, which visits {} lines there, costs {verdict}",
        w0.stride,
        last.stride,
        last.plan.laps,
        bytes(w.len as u64),
        last.plan
            .lines
            .map_or("(line size unknown)".into(), grouped),
        last.fresh_plan.lines.map_or("NA".into(), grouped),
    )
}

/// The appendix's question: the dip at the widest stride. The sentence and its verdict.
fn dip(rows: &[Row]) -> Option<(String, &'static str)> {
    let [.., prev, last] = rows else {
        return None;
    };
    // A dip: the median down by more than the tolerance, and every round below every round
    // of the stride before.
    let dip =
        |a: &Summary, b: &Summary| b.median < a.median * (1.0 - DEFAULT_TOLERANCE) && b.max < a.min;
    let (wrap_dip, fresh_dip) = (dip(&prev.wrap, &last.wrap), dip(&prev.fresh, &last.fresh));
    let (from, to) = (prev.stride, last.stride);
    let wrap = format!("{:.2} -> {:.2}", prev.wrap.median, last.wrap.median);
    let fresh = format!("{:.2} -> {:.2}", prev.fresh.median, last.fresh.median);
    Some(match (wrap_dip, fresh_dip) {
        (true, false) => (
            format!(
                "the appendix's walk dipped from {from} to {to} bytes ({wrap} ns) and the \
                 fresh-lines walk did not ({fresh} ns): the dip goes with the smaller working set \
                 of the wrapped walk."
            ),
            "only the appendix's walk dipped",
        ),
        (true, true) => (
            format!(
                "both walks dipped from {from} to {to} bytes ({wrap} and {fresh} ns): not only the \
                 wrap."
            ),
            "both walks dipped",
        ),
        (false, true) => (
            format!("only the fresh-lines walk dipped from {from} to {to} bytes ({fresh} ns)."),
            "only the fresh-lines walk dipped",
        ),
        (false, false) => (
            format!(
                "no dip at {to} bytes here: {:.2}x the cost at {from} bytes{} (the appendix saw \
                 0.86x).",
                last.wrap.median / prev.wrap.median,
                if last.wrap.median < prev.wrap.median * (1.0 - DEFAULT_TOLERANCE) {
                    ", but the rounds of the two strides overlap"
                } else {
                    ""
                }
            ),
            "no dip",
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(ns: f64) -> Summary {
        Summary::of(&[ns * 0.99, ns, ns * 1.01]).unwrap()
    }

    fn tally(rounds: usize, disturbed: usize, on_core: f64, elsewhere: f64) -> Tally {
        Tally {
            rounds,
            disturbed,
            load: Some(Load {
                core: Some(1),
                on_core: Some(on_core),
                steal: Some(0.0),
                elsewhere: Some(elsewhere),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    /// Thirteen strides whose cost jumps at the line size, over a 64 MiB buffer.
    fn walks(t: Tally) -> Walks {
        let len = 64 << 20;
        let rows = (0..13)
            .map(|k| {
                let stride = 1usize << k;
                let ns = if stride < 64 { 0.5 } else { 5.0 };
                Row {
                    stride: stride as u64,
                    wrap: summary(ns),
                    fresh: summary(ns * 1.5),
                    tally: t,
                    wrap_spread: 0.01,
                    fresh_spread: 0.01,
                    agree: true,
                    plan: walk::plan(len, stride, 20_000, 0, Some(64), 4096),
                    fresh_plan: walk::plan(len, stride, 20_000, 64, Some(64), 4096),
                    passes: Vec::new(),
                    shortest_ns: 200_000.0,
                }
            })
            .collect();
        Walks {
            rows,
            line: Some(64),
            len,
            accesses: 20_000,
            tally: t,
        }
    }

    #[test]
    fn a_quiet_run_reads_the_line_with_no_mark() {
        let r = stride_reading(&walks(tally(78, 0, 0.0, 0.0)), &MachineFacts::read());
        let all = r.sentences.join(" ");
        assert!(r.sentences[0].starts_with("from stride 1 to the line size (64 bytes)"));
        assert!(all.contains("from 32 to 64 bytes (10.00x)"), "{all}");
        assert!(
            !all.contains("provisional") && !all.contains("contention"),
            "{all}"
        );
        assert!(r.meta.contains(&(
            "verdict_largest_step",
            "from 32 to 64 bytes (10.00x), at the line size".into()
        )));
    }

    #[test]
    fn disturbed_walks_are_provisional_in_the_first_words() {
        let r = stride_reading(&walks(tally(78, 40, 0.5, 0.0)), &MachineFacts::read());
        assert!(
            r.sentences[0].starts_with("provisional: 40 of 78 rounds were disturbed (0.50 cores"),
            "{}",
            r.sentences[0]
        );
        assert!(!r.sentences.iter().any(|s| s.starts_with("contention")));
    }

    #[test]
    fn work_on_the_other_core_is_named_contention() {
        let r = stride_reading(&walks(tally(78, 0, 0.0, 0.9)), &MachineFacts::read());
        assert!(!r.sentences[0].starts_with("provisional"));
        assert!(
            r.sentences
                .last()
                .unwrap()
                .starts_with("contention: 0.90 cores of other work"),
            "{:?}",
            r.sentences
        );
    }
}
