//! The run's rows and how they are printed: each working set summarised over both passes
//! (with how well passes and rounds agree), the latency table (the three chases) with its
//! `latency` block, the second table (the sweeps and the spreads), and the boundaries each
//! series shows, with the rows of the `knees` block.

use crate::ROUND_TOLERANCE;
use crate::knees::{self, Finding, Point};
use crate::ladder::Rounds;
use ::cache_ladder::schema;
use measure::clock::CoreClock;
use measure::data::{Block, Value};
use measure::disturb::Tally;
use measure::fmt::{WIDTH, bytes, say, wrap_to};
use measure::out::Out;
use measure::rounds::Timed;
use measure::run::Experiment;
use measure::scan::{DEFAULT_TOLERANCE, ScanPoint};
use measure::stats::{Summary, sorted_but_largest};

/// One chase kind at one size: the clean rounds of both passes summarised, how well passes
/// and rounds agree, and how many rounds were taken and disturbed.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    pub ns: Summary,
    /// Disagreement of the passes' medians (max/min - 1).
    pub pass_spread: f64,
    /// The largest max/min - 1 of the rounds within one pass, its slowest round left out.
    pub round_spread: f64,
    /// Every round of both passes, counted.
    pub tally: Tally,
}

impl Kind {
    fn of(p: &ScanPoint<usize, Rounds>, pick: impl Fn(&Rounds) -> Option<&Timed>) -> Option<Kind> {
        let mut all = Vec::new();
        let mut round_spread: f64 = 0.0;
        let mut tally = Tally::default();
        for r in &p.passes {
            let t = pick(r)?;
            let used = t.used();
            all.extend_from_slice(&used);
            round_spread = round_spread.max(spread_but_one(&used)?);
            tally = tally.merge(&t.tally().with_load(r.load));
        }
        let a = p.agreement(DEFAULT_TOLERANCE, |r| {
            pick(r)
                .and_then(|t| measure::stats::median(&t.used()))
                .unwrap_or(f64::NAN)
        });
        Some(Kind {
            ns: Summary::of(&all)?,
            pass_spread: a.spread,
            round_spread,
            tally,
        })
    }
    pub fn agree(&self) -> bool {
        self.pass_spread <= DEFAULT_TOLERANCE
    }
    pub fn stable(&self) -> bool {
        self.agree() && self.round_spread <= ROUND_TOLERANCE
    }
}

/// max/min - 1 of a pass's rounds with its slowest round left out (when there are three or
/// more): one round hit by an interruption is tolerated, two are not.
fn spread_but_one(v: &[f64]) -> Option<f64> {
    let s = sorted_but_largest(v);
    let (lo, hi) = (*s.first()?, *s.last()?);
    (lo > 0.0).then(|| hi / lo - 1.0)
}

/// One working set, summarised.
#[derive(Debug, Clone, Copy)]
pub struct Row {
    pub bytes: usize,
    pub index: Kind,
    pub pointer: Kind,
    pub huge: Option<Kind>,
    pub seq: Kind,
    pub seq_vec: Kind,
}

impl Row {
    pub fn of(p: &ScanPoint<usize, Rounds>) -> Row {
        let must = "every pass measures index, pointer and sweep";
        Row {
            bytes: p.param,
            index: Kind::of(p, |r| Some(&r.index)).expect(must),
            pointer: Kind::of(p, |r| Some(&r.pointer)).expect(must),
            huge: Kind::of(p, |r| r.huge.as_ref()),
            seq: Kind::of(p, |r| Some(&r.seq)).expect(must),
            seq_vec: Kind::of(p, |r| Some(&r.seq_vec)).expect(must),
        }
    }
    /// Every round of the row (chases and sweeps, both passes), counted.
    pub fn tally(&self) -> Tally {
        [self.index, self.pointer, self.seq, self.seq_vec]
            .iter()
            .chain(&self.huge)
            .fold(Tally::default(), |t, k| t.merge(&k.tally))
    }
    /// Whether the passes of every chase agree within the tolerance.
    pub fn agree(&self) -> bool {
        self.index.agree() && self.pointer.agree() && self.huge.is_none_or(|h| h.agree())
    }
    /// Whether every chase is stable: passes agree, rounds within the tolerance.
    pub fn stable(&self) -> bool {
        self.index.stable() && self.pointer.stable() && self.huge.is_none_or(|h| h.stable())
    }
    /// Whether this size's readings are provisional: its rounds were disturbed, or the core's
    /// share was unsteady while it was taken.
    pub fn provisional(&self) -> bool {
        self.tally().provisional()
    }
    /// `ok`, or `!` (passes disagree), `~` (rounds spread) and `p` (provisional): the flags
    /// column.
    fn flags(&self) -> String {
        let spread = self.worst(|k| k.round_spread) > ROUND_TOLERANCE;
        let on = [
            (!self.agree(), "!"),
            (spread, "~"),
            (self.provisional(), "p"),
        ];
        let set: Vec<&str> = on.iter().filter(|(b, _)| *b).map(|(_, f)| *f).collect();
        if set.is_empty() {
            "ok".into()
        } else {
            set.join(" ")
        }
    }
    /// The largest `spread` (a pass or a round spread) over the chases.
    fn worst(&self, spread: fn(&Kind) -> f64) -> f64 {
        [Some(self.index), Some(self.pointer), self.huge]
            .iter()
            .flatten()
            .map(spread)
            .fold(0.0, f64::max)
    }
}

/// The two series whose boundaries are read from the curve.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Series {
    /// The pointer chase on 4 KiB pages.
    Pointer,
    /// The pointer chase on huge pages.
    Huge,
}

impl Series {
    pub const ALL: [Series; 2] = [Series::Pointer, Series::Huge];
    /// The name in `#DATA` and `#META`.
    pub fn name(self) -> &'static str {
        match self {
            Series::Pointer => "pointer",
            Series::Huge => "huge",
        }
    }
    pub fn label(self) -> &'static str {
        match self {
            Series::Pointer => "pointer chase, 4 KiB pages",
            Series::Huge => "pointer chase, huge pages",
        }
    }
    /// This series' measurement of a working set, if it has one.
    pub fn pick(self, r: &Row) -> Option<Kind> {
        match self {
            Series::Pointer => Some(r.pointer),
            Series::Huge => r.huge,
        }
    }
}

/// `ns (cycles)` in 16 columns.
fn ns_cycles(ns: f64, cc: &CoreClock) -> String {
    let c = match cc.cycles(ns) {
        Some(c) if c < 100.0 => format!("{c:5.1}"),
        Some(c) => format!("{c:5.0}"),
        None => "    -".into(),
    };
    format!("{ns:>8.2} ({c})")
}

/// Prints the latency table (the three chases) and its `#DATA` block.
pub fn table(rows: &[Row], exp: &mut Experiment, cc: &CoreClock) {
    println!(
        "\n  {:<8} {:<7} {:>16} {:>16} {:>16} {:>7}  flags",
        "working", "where", "index chase", "pointer chase", "on huge pages", "factor"
    );
    println!(
        "  {:<8} {:<7} {:>16} {:>16} {:>16} {:>7}",
        "set", "", "ns (cycles)", "ns (cycles)", "ns (cycles)", "index"
    );
    let base = rows.first().map_or(f64::NAN, |r| r.index.ns.median);
    let mut block = Block::new(schema::latency::BLOCK, schema::latency::COLUMNS);
    let pbase = rows.first().map_or(f64::NAN, |r| r.pointer.ns.median);
    for r in rows {
        let wh = exp.facts.where_fits(r.bytes as u64);
        println!(
            "  {:<8} {:<7} {:>16} {:>16} {:>16} {:>6.1}x  {}",
            bytes(r.bytes as u64),
            wh,
            ns_cycles(r.index.ns.median, cc),
            ns_cycles(r.pointer.ns.median, cc),
            r.huge.map_or("-".into(), |h| ns_cycles(h.ns.median, cc)),
            r.index.ns.median / base,
            r.flags()
        );
        let hv = |f: fn(&Kind) -> f64| r.huge.map(|h| f(&h));
        block.row(vec![
            (r.bytes as u64 / 1024).into(),
            wh.into(),
            r.index.ns.median.into(),
            r.index.ns.min.into(),
            r.index.ns.max.into(),
            cc.cycles(r.index.ns.median).into(),
            r.pointer.ns.median.into(),
            r.pointer.ns.min.into(),
            r.pointer.ns.max.into(),
            cc.cycles(r.pointer.ns.median).into(),
            r.seq.ns.median.into(),
            r.seq.ns.min.into(),
            r.seq.ns.max.into(),
            cc.cycles(r.seq.ns.median).into(),
            r.seq_vec.ns.median.into(),
            r.seq_vec.ns.min.into(),
            r.seq_vec.ns.max.into(),
            hv(|k| k.ns.median).into(),
            hv(|k| k.ns.min).into(),
            hv(|k| k.ns.max).into(),
            r.huge.and_then(|h| cc.cycles(h.ns.median)).into(),
            (r.index.ns.median / base).into(),
            (r.pointer.ns.median / pbase).into(),
            r.index.pass_spread.into(),
            r.pointer.pass_spread.into(),
            hv(|k| k.pass_spread).into(),
            r.seq.pass_spread.into(),
            r.seq_vec.pass_spread.into(),
            r.index.round_spread.into(),
            r.pointer.round_spread.into(),
            hv(|k| k.round_spread).into(),
            r.agree().into(),
            r.pointer.stable().into(),
            r.huge.map(|h| h.stable()).into(),
            r.tally().rounds.into(),
            r.tally().disturbed.into(),
            r.provisional().into(),
        ]);
    }
    say(
        &format!(
            "factor: against 4 KiB, index chase. flags: ! the passes disagree by over {:.0}%, ~ \
             the rounds spread over {:.0}% (slowest left out): not a measurement of the size \
             alone; p provisional: its rounds were disturbed, or the core's share was unsteady \
             while it was taken.",
            DEFAULT_TOLERANCE * 100.0,
            ROUND_TOLERANCE * 100.0
        ),
        "  ",
    );
    exp.out.block(&block);
}

/// Prints the second table: the in-order sweeps, and how far each chase spread.
pub fn sweeps(rows: &[Row]) {
    println!("\n  the same memory read in order, and how far each chase spread (max/min - 1, %):");
    println!(
        "  {:<8} {:>11} {:>11} {:>8}   {:<19}   round spread",
        "working", "sequential", "vectorised", "index/", "pass spread"
    );
    println!(
        "  {:<8} {:>11} {:>11} {:>8}   {:>5} {:>6} {:>5}   {:>5} {:>6} {:>5}",
        "set", "ns/word", "ns/word", "seq", "index", "point", "huge", "index", "point", "huge"
    );
    let pct = |k: Option<Kind>, f: fn(&Kind) -> f64| {
        k.map_or("-".into(), |k| format!("{:.0}", f(&k) * 100.0))
    };
    for r in rows {
        let ratio = r.index.ns.median / r.seq.ns.median;
        let kinds = [Some(r.index), Some(r.pointer), r.huge];
        let [pi, pp, ph] = kinds.map(|k| pct(k, |k| k.pass_spread));
        let [ri, rp, rh] = kinds.map(|k| pct(k, |k| k.round_spread));
        println!(
            "  {:<8} {:>11.2} {:>11.2} {:>7}x   {pi:>5} {pp:>6} {ph:>5}   {ri:>5} {rp:>6} {rh:>5}",
            bytes(r.bytes as u64),
            r.seq.ns.median,
            r.seq_vec.ns.median,
            if ratio < 100.0 {
                format!("{ratio:.1}")
            } else {
                format!("{ratio:.0}")
            }
        );
    }
    println!(
        "  sequential: one add per word (the appendix's loop); vectorised: as the compiler writes it"
    );
}

/// The `knees` block, filled by [`findings`] for each series.
pub fn knees_block() -> Block {
    Block::new(schema::knees::BLOCK, schema::knees::COLUMNS)
}

/// What one series' curve showed.
pub struct Boundaries {
    /// From which size (KiB) on every stable point reads near the largest set's latency.
    pub top_from_kib: Option<u64>,
    /// The largest stable size (KiB): the level `top_from_kib` is read against.
    pub top_of_kib: Option<u64>,
    /// Where the last knee starts (KiB).
    pub last_knee_kib: Option<u64>,
    pub found: Vec<Finding>,
    /// How many of the series' sizes were stable, of how many.
    pub stable: usize,
    pub points: usize,
}

impl Boundaries {
    /// What the curve of one `series` shows: where it reaches its top level (within
    /// `top_within` of the largest stable size), its knees and unstable stretches. Pure.
    pub fn of(series: Series, rows: &[Row], top_within: f64) -> Boundaries {
        let pts = points(series, rows);
        let found = knees::find(&pts);
        let last_knee_kib = found.iter().rev().find_map(|f| match *f {
            Finding::Knee { from_kib, .. } => Some(from_kib),
            Finding::Unstable { .. } => None,
        });
        Boundaries {
            top_from_kib: knees::top_level_from(&pts, top_within),
            // The level the top is read against: the largest stable size, not the largest
            // measured.
            top_of_kib: pts.iter().rev().find(|p| p.stable).map(|p| p.kib),
            last_knee_kib,
            found,
            stable: pts.iter().filter(|p| p.stable).count(),
            points: pts.len(),
        }
    }
}

/// Prints what the curve of one `series` showed (`b`): where it reaches its top level, each
/// knee beside the nearest `reported` cache size, and the unstable stretches; adds the rows to
/// the `knees` block `kb` and records the top level, the knees and the stretches as `#META`.
pub fn boundaries(
    out: &mut Out,
    series: Series,
    b: &Boundaries,
    reported: &[(String, u64)],
    top_within: f64,
    kb: &mut Block,
) {
    println!("  {}:", series.label());
    print_top(b.top_from_kib, b.top_of_kib, top_within);
    out.meta(
        &format!("{}_top_level_from_kib", series.name()),
        b.top_from_kib.map_or("unknown".into(), |k| k.to_string()),
    );
    if b.found.is_empty() {
        println!(
            "    no rise of {:.1}x or more between stable neighbours, and no unstable stretch",
            knees::MIN_RATIO
        );
    }
    // The knees and unstable stretches in words as well, for the handout's generated summary.
    let (mut knees_text, mut unstable_text) = (Vec::new(), Vec::new());
    for f in &b.found {
        match *f {
            Finding::Knee {
                from_kib,
                to_kib,
                ratio,
            } => knees_text.push(knee(series, (from_kib, to_kib, ratio), reported, kb)),
            Finding::Unstable {
                from_kib,
                to_kib,
                spread,
            } => unstable_text.push(unstable(series, (from_kib, to_kib, spread), kb)),
        }
    }
    let or_none = |v: Vec<String>| {
        if v.is_empty() {
            "none".to_string()
        } else {
            v.join("; ")
        }
    };
    out.meta(&format!("{}_knees", series.name()), or_none(knees_text));
    out.meta(
        &format!("{}_unstable", series.name()),
        or_none(unstable_text),
    );
}

/// The points of one series: size, median, whether stable, and the larger of its spreads.
fn points(series: Series, rows: &[Row]) -> Vec<Point> {
    rows.iter()
        .filter_map(|r| {
            let k = series.pick(r)?;
            Some(Point {
                kib: r.bytes as u64 / 1024,
                ns: k.ns.median,
                stable: k.stable(),
                spread: k.pass_spread.max(k.round_spread),
            })
        })
        .collect()
}

/// The "top" line: from which size on the stable points read near the largest stable one.
fn print_top(top: Option<u64>, top_of: Option<u64>, top_within: f64) {
    match (top, top_of) {
        (Some(k), Some(of)) => println!(
            "{}",
            wrap_to(
                &format!(
                    "from {} on, stable sizes read within {top_within}x of the largest stable \
                     one ({})",
                    bytes(k * 1024),
                    bytes(of * 1024)
                ),
                "    top     : ",
                "              ",
                WIDTH
            )
        ),
        _ => println!(
            "    top     : none (the curve never rises to {}x its first stable point, or too \
             few stable points)",
            knees::TOP_RISE
        ),
    }
}

/// One knee, `(from KiB, to KiB, ratio)`: printed beside the nearest reported size and added
/// to the block; returns it in words for the summary.
fn knee(series: Series, k: (u64, u64, f64), reported: &[(String, u64)], kb: &mut Block) -> String {
    let (from_kib, to_kib, ratio) = k;
    let near = knees::nearest_reported(from_kib, to_kib, reported);
    let verdict = crate::verdict::knee_verdict(near);
    let span = format!(
        "{ratio:.2}x from {} to {}",
        bytes(from_kib * 1024),
        bytes(to_kib * 1024)
    );
    let text = format!("{span}: a level ends between them; {verdict}");
    println!(
        "{}",
        wrap_to(&text, "    knee    : ", "              ", WIDTH)
    );
    kb.row(vec![
        series.name().into(),
        "knee".into(),
        from_kib.into(),
        to_kib.into(),
        ratio.into(),
        Value::Missing,
        near.map(|(n, _, _)| n).into(),
        near.map(|(_, _, a)| a).into(),
    ]);
    match near {
        Some((n, b, true)) => format!("{span}, agrees with {n} {}", bytes(b)),
        _ => span,
    }
}

/// One unstable stretch, `(from KiB, to KiB, spread)`: printed and added to the block;
/// returns the stretch in words.
fn unstable(series: Series, u: (u64, u64, f64), kb: &mut Block) -> String {
    let (from_kib, to_kib, spread) = u;
    let stretch = if from_kib == to_kib {
        bytes(from_kib * 1024)
    } else {
        format!("{} .. {}", bytes(from_kib * 1024), bytes(to_kib * 1024))
    };
    println!(
        "    unstable: {stretch} (spread up to {:.0}%): no boundary is claimed there",
        spread * 100.0
    );
    kb.row(vec![
        series.name().into(),
        "unstable".into(),
        from_kib.into(),
        to_kib.into(),
        Value::Missing,
        spread.into(),
        Value::Missing,
        Value::Missing,
    ]);
    stretch
}

/// Section 6's table: per level and chain count, the time per step and per load, the loads
/// in flight and the bandwidth implied (the clean rounds' medians).
pub fn mlp_table(m: &crate::mlp::Mlp) {
    let huge: Vec<String> = m
        .levels
        .iter()
        .map(|l| {
            let share = l.huge.map_or("unknown".into(), |h| format!("{h:.0}%"));
            format!("{} {share}", l.name)
        })
        .collect();
    println!("  on huge pages (verified): {}", huge.join(", "));
    println!(
        "\n  {:<8} {:>9} {:>7} {:>10} {:>10} {:>10} {:>10}",
        "level", "set", "chains", "ns/step", "ns/load", "in flight", "GB/s"
    );
    for l in &m.levels {
        for p in &l.points {
            println!(
                "  {:<8} {:>9} {:>7} {:>10.2} {:>10.2} {:>10.1} {:>10.1}",
                l.name,
                measure::fmt::bytes(l.bytes as u64),
                p.chains,
                p.step.median,
                p.step.median / p.chains as f64,
                l.in_flight(p),
                crate::mlp::implied_gbs(p)
            );
        }
    }
}
