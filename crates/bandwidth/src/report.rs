//! The run's rows and how they are printed: the bandwidth table and its `bandwidth` block,
//! the kernels' code, the boundaries, the non-temporal comparison, the thread rows and the
//! latency under load, each with its `#DATA`.

use crate::boundaries::{Finding, Point};
use crate::kernels::{Form, Kernel, Op, Width};
use crate::limit::Limit;
use crate::shape::Shape;
use crate::sweep::{Cell, Taken};
use measure::clock::CoreClock;
use measure::data::{Block, Value};
use measure::disturb::{Load, Tally};
use measure::fmt::{bytes as size, median_min_max};
use measure::out::Out;
use measure::scan::ScanPoint;
use measure::stats::Summary;

/// A streaming store "wins" where it runs at over this multiple of the ordinary one.
pub const STREAM_WINS: f64 = 1.05;

/// Prints `label : value`, the value wrapped to the report width under itself.
pub fn say(label: &str, value: &str) {
    println!("{}", measure::fmt::field(label, value));
}

/// One working set: one cell per kernel (in the kernels' order).
pub struct Row {
    pub bytes: usize,
    pub cells: Vec<Cell>,
}

impl Row {
    /// The working set's cells, each with the load around its passes (one window each).
    pub fn of(p: &ScanPoint<usize, crate::sweep::Measured>) -> Row {
        let k = p.passes[0].kernels.len();
        let load = Load::merged(p.passes.iter().map(|m| m.load));
        Row {
            bytes: p.param,
            cells: (0..k)
                .map(|i| {
                    let passes: Vec<&Taken> = p.passes.iter().map(|r| &r.kernels[i]).collect();
                    let c = Cell::of_taken(&passes).expect("every kernel has rounds in every pass");
                    Cell {
                        tally: c.tally.with_load(load),
                        ..c
                    }
                })
                .collect(),
        }
    }
    pub fn stable(&self) -> bool {
        self.cells.iter().all(Cell::stable)
    }
    /// Every kernel's rounds at this working set.
    pub fn tally(&self) -> Tally {
        self.cells
            .iter()
            .fold(Tally::default(), |t, c| t.merge(&c.tally))
    }
}

/// The position of a kernel in the run's list, by operation and form.
pub fn find(kernels: &[Kernel], op: Op, form: Form) -> Option<usize> {
    kernels.iter().position(|k| k.op == op && k.form == form)
}

/// A rate for a table: three significant figures ([`measure::fmt::sig`]), "-" if unknown.
pub fn gbs(x: f64) -> String {
    if x.is_finite() {
        measure::fmt::sig(x, 3)
    } else {
        "-".into()
    }
}

/// The column name of a kernel's form at this run's width.
fn form_label(f: Form, w: Width) -> &'static str {
    match f {
        Form::Plain => "plain",
        Form::Explicit => w.name(),
        Form::Stream => "stream",
    }
}

/// Section 1: the vector width, each kernel's code as read back, and the L1 limit.
pub fn kernels(
    out: &mut Out,
    width: Width,
    kernels: &[Kernel],
    shapes: &[Shape],
    limit: Option<&Limit>,
) {
    let mut det = Vec::new();
    #[cfg(target_arch = "x86_64")]
    for (f, yes) in [
        ("avx512f", std::arch::is_x86_feature_detected!("avx512f")),
        ("avx2", std::arch::is_x86_feature_detected!("avx2")),
        ("sse2", std::arch::is_x86_feature_detected!("sse2")),
    ] {
        det.push(format!("{f} {}", measure::fmt::yes_no(yes)));
    }
    #[cfg(target_arch = "aarch64")]
    det.push(format!(
        "neon {}",
        measure::fmt::yes_no(std::arch::is_aarch64_feature_detected!("neon"))
    ));
    say(
        "vector width",
        &format!(
            "{} bytes ({}; detected at run time: {})",
            width.bytes(),
            width.name(),
            if det.is_empty() {
                "nothing to detect on this architecture".into()
            } else {
                det.join(", ")
            }
        ),
    );
    let mut block = Block::new(
        ::bandwidth::schema::kernels::BLOCK,
        ::bandwidth::schema::kernels::COLUMNS,
    );
    for op in [Op::Read, Op::Write, Op::Copy] {
        let parts: Vec<String> = kernels
            .iter()
            .zip(shapes)
            .filter(|(k, _)| k.op == op)
            .map(|(k, s)| format!("{} {}", form_label(k.form, width), s.text()))
            .collect();
        say(op.name(), &parts.join("; "));
    }
    for (k, s) in kernels.iter().zip(shapes) {
        block.row(vec![
            k.name().into(),
            k.symbol.into(),
            s.access_bytes.into(),
            s.streams.into(),
            s.word().into(),
            s.insns_per_access.into(),
        ]);
    }
    out.block(&block);
    match limit {
        Some(l) => {
            println!(
                "  L1 limit       : {} B/cycle of loads ({} x {} B), {} B/cycle of stores ({} x {} B)",
                l.load_bytes(),
                l.loads.0,
                l.loads.1,
                l.store_bytes(),
                l.stores.0,
                l.stores.1
            );
            println!("                   source: {}", l.source());
            out.meta("l1_load_limit_bytes_per_cycle", l.load_bytes());
            out.meta("l1_store_limit_bytes_per_cycle", l.store_bytes());
            out.meta("l1_limit_source", l.source());
        }
        None => {
            println!(
                "  L1 limit       : unknown: this program's table has no entry for this CPU at {} bytes,\n                   and no instruction reports load ports, so no limit is compared with",
                width.bytes()
            );
            out.meta("l1_load_limit_bytes_per_cycle", "unknown");
            out.meta("l1_store_limit_bytes_per_cycle", "unknown");
            out.meta(
                "l1_limit_source",
                "no entry for this CPU in this program's table",
            );
        }
    }
}

/// Section 2: the bandwidth table, and the `bandwidth` block (one row per size and kernel).
pub fn table(
    out: &mut Out,
    rows: &[Row],
    kernels: &[Kernel],
    width: Width,
    where_: &dyn Fn(u64) -> String,
    cc: &CoreClock,
) {
    // Two header lines: the operation over its columns, then each column's form.
    let mut top = format!("  {:<9} {:<7}", "working", "where");
    let mut sub = format!("  {:<9} {:<7}", "set", "");
    for op in [Op::Read, Op::Write, Op::Copy] {
        let n = kernels.iter().filter(|k| k.op == op).count();
        if n == 0 {
            continue;
        }
        let w = 8 * n - 1;
        top.push_str(&format!(" {:-^w$}", format!(" {} ", op.name())));
        for k in kernels.iter().filter(|k| k.op == op) {
            sub.push_str(&format!(" {:>7}", form_label(k.form, width)));
        }
    }
    println!("{top}");
    println!("{sub}");
    let mut block = Block::new(
        ::bandwidth::schema::bandwidth::BLOCK,
        ::bandwidth::schema::bandwidth::COLUMNS,
    );
    for r in rows {
        let w = where_(r.bytes as u64);
        let mut line = format!("  {:<9} {:<7}", size(r.bytes as u64), w);
        for op in [Op::Read, Op::Write, Op::Copy] {
            for (k, c) in kernels.iter().zip(&r.cells).filter(|(k, _)| k.op == op) {
                line.push_str(&format!(" {:>7}", gbs(c.gbs.median)));
                let [m, lo, hi] = median_min_max(Some(&c.gbs));
                block.row(vec![
                    (r.bytes as f64 / 1024.0).into(),
                    k.name().into(),
                    k.op.name().into(),
                    k.form.name().into(),
                    m,
                    lo,
                    hi,
                    cc.ghz.map(|g| c.gbs.median / g).into(),
                    c.pass_spread.into(),
                    c.round_spread.into(),
                    c.stable().into(),
                    w.clone().into(),
                    c.tally.rounds.into(),
                    c.tally.disturbed.into(),
                    c.tally.provisional().into(),
                ]);
            }
        }
        if !r.stable() {
            line.push_str("  ~");
        }
        if r.tally().provisional() {
            line.push_str("  p");
        }
        println!("{line}");
    }
    out.block(&block);
}

/// Section 1: how a working set's rounds are taken (the plan, before any is).
pub fn rounds(plan: &crate::sweep::Plan) {
    say(
        "rounds",
        &format!(
            "a warm-up lap, then laps for ~{:.1} ms in one call: {} clean rounds per kernel; \
             where a lap lasts over {:.2} ms, {} repetitions timed in segments of about \
             {:.1} ms (a lap in consecutive slices), a disturbed segment and the next replaced \
             by the same segment of the other repetitions; up to {} extra rounds or repetitions \
             / {:.0} ms per size and pass when disturbed",
            plan.round_ns / 1e6,
            plan.rounds,
            plan.round_ns / 2e6,
            plan.long_rounds,
            plan.round_ns / 1e6,
            plan.extra_rounds,
            plan.budget_ns as f64 / 1e6
        ),
    );
}

/// Section 2: where the laps were timed in segments, how many there were, and how long the
/// undisturbed ones lasted (`clean_ns`).
pub fn segmented(out: &mut Out, rows: &[Row], clean_ns: &[f64]) {
    let seg: Vec<(usize, Tally)> = rows
        .iter()
        .map(|r| (r.bytes, r.tally()))
        .filter(|(_, t)| t.segments)
        .collect();
    let (Some(first), Some(last)) = (seg.first(), seg.last()) else {
        say(
            "segments",
            "none: every kernel's lap fit in half a round at every size",
        );
        out.meta("segmented_sizes", 0);
        return;
    };
    let n: usize = seg.iter().map(|(_, t)| t.rounds).sum();
    let median = measure::stats::median(clean_ns).map_or(f64::NAN, |m| m / 1e3);
    let longest = clean_ns.iter().copied().fold(f64::NAN, f64::max) / 1e3;
    say(
        "segments",
        &format!(
            "{} of {} sizes ({} .. {}) timed in segments: {} of them; the undisturbed ones \
             lasted {:.0} us (median), {:.0} us at the longest",
            seg.len(),
            rows.len(),
            size(first.0 as u64),
            size(last.0 as u64),
            measure::fmt::grouped(n as u64),
            median,
            longest
        ),
    );
    out.meta("segmented_sizes", seg.len());
    out.meta("segments", n);
    out.meta("segment_median_us", format!("{median:.1}"));
    out.meta("segment_longest_us", format!("{longest:.1}"));
}

/// Section 4: streaming stores against ordinary ones at the smallest and the largest set,
/// and from which size on they win. Returns streaming write over ordinary write at the
/// largest set (beyond the caches), and the write's (smallest, largest) ratios, which
/// [`crate::reading::non_temporal`] reads.
pub fn non_temporal(
    out: &mut Out,
    rows: &[Row],
    kernels: &[Kernel],
    width: Width,
    beyond: Option<bool>,
) -> (Option<f64>, Option<(f64, f64)>) {
    let (mut nt_gain, mut sentence) = (None, None);
    let (first, last) = (&rows[0], rows.last().expect("rows"));
    if !width.has_stream() {
        println!(
            "  skipped: this program has no non-temporal store kernels for {} ({})",
            width.name(),
            std::env::consts::ARCH
        );
        out.meta("non_temporal", "skipped");
    } else {
        let mut lines = Vec::new();
        for op in [Op::Write, Op::Copy] {
            let (Some(e), Some(s)) = (
                find(kernels, op, Form::Explicit),
                find(kernels, op, Form::Stream),
            ) else {
                continue;
            };
            let ratio = |r: &Row| r.cells[s].gbs.median / r.cells[e].gbs.median;
            // The smallest size from which streaming wins (by over 5%) there and at every
            // larger size: a ratio a hair above 1 on a noisy run is no win.
            let wins_from = (0..rows.len())
                .find(|&i| rows[i..].iter().all(|r| ratio(r) > STREAM_WINS))
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
                measure::fmt::wrap_to(&text, &first_indent, &" ".repeat(10), measure::fmt::WIDTH)
            );
            out.meta(
                &format!("{}_stream_wins_from_kib", op.name()),
                wins_from.map_or("none".into(), |b| (b / 1024).to_string()),
            );
            out.meta(
                &format!("verdict_stream_{}", op.name()),
                wins_from.map_or("never won for good".into(), |b| {
                    format!("won from {} on", size(b as u64))
                }),
            );
            if op == Op::Write && beyond == Some(true) {
                nt_gain = Some(ratio(last));
            }
            lines.push((op, ratio(first), ratio(last)));
        }
        sentence = lines.first().map(|&(_, inside, at_last)| (inside, at_last));
    }
    (nt_gain, sentence)
}

/// A point of one kernel's curve for the boundary finder.
pub fn points(rows: &[Row], i: usize) -> Vec<Point> {
    rows.iter()
        .map(|r| {
            let c = &r.cells[i];
            Point {
                bytes: r.bytes as u64,
                gbs: c.gbs.median,
                stable: c.stable(),
                spread: c.pass_spread.max(c.round_spread),
            }
        })
        .collect()
}

/// Section 3: the boundaries and unstable stretches, and their `boundaries` block. What they
/// add up to is [`crate::reading::Falls::of`].
pub fn boundaries(out: &mut Out, found: &[Finding], reported: &[(String, u64)]) {
    let mut b = Block::new(
        ::bandwidth::schema::boundaries::BLOCK,
        ::bandwidth::schema::boundaries::COLUMNS,
    );
    let mut unstable = Vec::new();
    let mut falls = Vec::new();
    for f in found {
        match *f {
            Finding::Drop { from, to, ratio } => {
                let near = measure::curve::nearest_reported(from, to, reported);
                falls.push(format!(
                    "{}..{} ({ratio:.1}x{})",
                    size(from),
                    size(to),
                    near.filter(|n| n.2)
                        .map_or(String::new(), |n| format!(", {}", n.0))
                ));
                let verdict = match near {
                    Some((n, bytes, true)) => {
                        format!("agrees with the reported {n} ({})", size(bytes))
                    }
                    Some((n, bytes, false)) => {
                        format!(
                            "no reported size within a doubling (nearest: {n}, {})",
                            size(bytes)
                        )
                    }
                    None => "no size is reported to compare with".into(),
                };
                println!(
                    "{}",
                    measure::fmt::wrap_to(
                        &format!(
                            "falls {ratio:.1}x from {} to {}: {verdict}",
                            size(from),
                            size(to)
                        ),
                        "  ",
                        "    ",
                        measure::fmt::WIDTH
                    )
                );
                b.row(vec![
                    "drop".into(),
                    (from / 1024).into(),
                    (to / 1024).into(),
                    ratio.into(),
                    near.map(|n| n.0.to_string()).into(),
                    near.map(|n| n.1 / 1024).into(),
                    near.map(|n| n.2).into(),
                ]);
            }
            Finding::Unstable { from, to, spread } => {
                unstable.push(if from == to {
                    format!("{} ({:.0}%)", size(from), spread * 100.0)
                } else {
                    format!("{}..{} ({:.0}%)", size(from), size(to), spread * 100.0)
                });
                b.row(vec![
                    "unstable".into(),
                    (from / 1024).into(),
                    (to / 1024).into(),
                    Value::Missing,
                    Value::Missing,
                    Value::Missing,
                    Value::Missing,
                ]);
            }
        }
    }
    out.meta(
        "boundaries_read",
        if falls.is_empty() {
            "none".to_string()
        } else {
            falls.join(", ")
        },
    );
    if !unstable.is_empty() {
        println!(
            "{}",
            measure::fmt::wrap_to(
                &format!(
                    "unstable, no boundary read there (worst spread of passes or rounds): {}",
                    unstable.join(", ")
                ),
                "  ",
                "    ",
                measure::fmt::WIDTH
            )
        );
    }
    out.block(&b);
}

/// Section 5's table and its `threads` block; `short` says why the rows not run were
/// skipped. Returns each measured row's median total.
pub fn threads(
    out: &mut Out,
    rows: &[crate::team::ThreadRow],
    short: &str,
    region: u64,
) -> Vec<(usize, f64)> {
    println!(
        "  {:<7} {:<8} {:>24} {:>11} {:>12}  pinned; rounds disturbed",
        "threads", "cores", "total GB/s (min..max)", "per thread", "vs 1 thread"
    );
    let mut b = Block::new(
        ::bandwidth::schema::threads::BLOCK,
        ::bandwidth::schema::threads::COLUMNS,
    );
    let one = rows
        .first()
        .and_then(|r| r.total.summary())
        .map(|s| s.median);
    let mut totals = Vec::new();
    let mut skipped = Vec::new();
    for r in rows {
        let Some(s) = r.total.summary() else {
            skipped.push(r.threads.to_string());
            b.row(vec![
                r.threads.into(),
                "skipped".into(),
                Value::Missing,
                Value::Missing,
                Value::Missing,
                Value::Missing,
                Value::Missing,
                Value::Missing,
                Value::Missing,
                Value::Missing,
                (region / 1024).into(),
                0.into(),
                0.into(),
            ]);
            continue;
        };
        let cores = measure::team::list(r.cores.iter().copied());
        let vs = one.map(|o| s.median / o);
        println!(
            "  {:<7} {:<8} {:>24} {:>11} {:>12}  {}; {} of {}",
            r.threads,
            cores,
            format!("{} ({}..{})", gbs(s.median), gbs(s.min), gbs(s.max)),
            gbs(s.median / r.threads as f64),
            vs.map_or("-".into(), |v| format!("{v:.2}x")),
            if r.verified {
                "verified"
            } else {
                "NOT verified"
            },
            r.total.disturbed_count(),
            r.total.values.len()
        );
        let [m, lo, hi] = median_min_max(Some(&s));
        b.row(vec![
            r.threads.into(),
            "measured".into(),
            cores.into(),
            m,
            lo,
            hi,
            (s.median / r.threads as f64).into(),
            vs.into(),
            r.verified.into(),
            r.off_core.into(),
            (region / 1024).into(),
            r.total.values.len().into(),
            r.total.disturbed_count().into(),
        ]);
        totals.push((r.threads, s.median));
    }
    if !skipped.is_empty() {
        println!("  {:<7} skipped: {short}", skipped.join(", "));
    }
    out.block(&b);
    totals
}

/// Section 6: the setup, idle and loaded latency, what the streamers read, and the
/// `loaded_latency` block. Its reading is [`crate::reading::loaded`].
pub fn loaded(
    out: &mut Out,
    l: &crate::latency::Loaded,
    v: &crate::latency::Verdict,
    cc: &CoreClock,
    chase_bytes: u64,
    core: usize,
    streamers: &[usize],
) {
    let verified = l.streamers.iter().all(|s| s.verified());
    let cyc = |ns: f64| {
        cc.cycles(ns)
            .map_or(String::new(), |c| format!(", {c:.0} cycles"))
    };
    let list = measure::team::list(streamers.iter().copied());
    say(
        "setup",
        &format!(
            "a chase of {} (a line a step) on core {core}, streamers on {list}: pinning {}",
            size(chase_bytes),
            if verified { "verified" } else { "NOT verified" }
        ),
    );
    let g = &v.stream_gbs;
    let count = |c: &[bool]| format!("{} of {} rounds", c.iter().filter(|x| **x).count(), c.len());
    let line = |s: &Option<Summary>, extra: String, c: &[bool]| match s {
        Some(s) => format!(
            "{:.1} ns a step ({:.1}..{:.1}){}{extra}; {}",
            s.median,
            s.min,
            s.max,
            cyc(s.median),
            count(c)
        ),
        None => format!("no round counts{extra} ({})", count(c)),
    };
    say("idle", &line(&v.idle, String::new(), &v.idle_counts));
    say(
        "loaded",
        &line(
            &v.loaded,
            format!("; streamers {} GB/s", gbs(g.median)),
            &v.loaded_counts,
        ),
    );
    out.meta("loaded_verdict", measure::fmt::yes_no(v.ratio.is_some()));
    loaded_block(out, l, v, verified, chase_bytes);
}

/// Section 6's `loaded_latency` block: every round, idle and loaded.
fn loaded_block(
    out: &mut Out,
    l: &crate::latency::Loaded,
    v: &crate::latency::Verdict,
    verified: bool,
    chase_bytes: u64,
) {
    let mut b = Block::new(
        ::bandwidth::schema::loaded_latency::BLOCK,
        ::bandwidth::schema::loaded_latency::COLUMNS,
    );
    let rows = [
        ("idle", &l.idle, &l.idle_share, None, &v.idle_counts),
        (
            "loaded",
            &l.loaded,
            &l.loaded_share,
            Some(&l.stream_gbs),
            &v.loaded_counts,
        ),
    ];
    for (state, t, share, g, counts) in rows {
        for i in 0..t.values.len() {
            b.row(vec![
                state.into(),
                (i + 1).into(),
                t.values[i].into(),
                g.map(|g| g[i]).into(),
                share[i].into(),
                counts[i].into(),
                l.streamers.len().into(),
                verified.into(),
                (chase_bytes / 1024).into(),
                1.into(),
                usize::from(t.evidence[i].disturbed()).into(),
            ]);
        }
    }
    out.block(&b);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_fit_their_column() {
        assert_eq!(gbs(512.3), "512");
        assert_eq!(gbs(34.56), "34.6");
        assert_eq!(gbs(3.456), "3.46");
        assert_eq!(gbs(f64::NAN), "-");
        assert!(gbs(99_999.0).len() <= 7);
    }

    /// A working set taken in two windows, one of which saw the core's share move: every
    /// kernel's cell carries that, so the row (and each of its `#DATA` rows) is provisional;
    /// a working set taken in two steady windows is not.
    #[test]
    fn a_working_set_carries_the_load_of_its_windows() {
        use crate::sweep::Measured;
        use measure::rounds::Timed;
        use measure::testing::share_load;
        let rounds = Timed {
            values: vec![10.0, 10.1, 10.2],
            evidence: vec![Default::default(); 3],
        };
        let (steady, moved) = (share_load(3.6), share_load(2.2));
        let point = |loads: [Load; 2]| ScanPoint {
            param: 4096,
            passes: loads
                .map(|load| Measured {
                    kernels: vec![Taken::of_rounds(&rounds); 2],
                    load,
                })
                .into(),
        };
        let row = Row::of(&point([steady, moved]));
        assert!(row.cells.iter().all(|c| c.tally.provisional()));
        assert!(row.tally().provisional());
        let row = Row::of(&point([steady, steady]));
        assert!(!row.tally().provisional(), "{:?}", row.tally());
        assert_eq!(row.tally().rounds, 12);
    }
}
