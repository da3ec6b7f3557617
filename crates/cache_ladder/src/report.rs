//! The run's rows and how they are printed: each working set summarised over both passes
//! (with how well passes and rounds agree), the latency table with its `latency` block, and
//! the rows of the `knees` block.

use crate::ROUND_TOLERANCE;
use crate::knees::{self, Finding};
use crate::ladder::Rounds;
use measure::clock::CoreClock;
use measure::data::{Block, Value};
use measure::facts::human_bytes;
use measure::run::Experiment;
use measure::scan::{DEFAULT_TOLERANCE, ScanPoint};
use measure::stats::{Summary, sorted_but_largest};

/// One chase kind at one size: all rounds summarised, and how well passes and rounds agree.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    pub ns: Summary,
    /// Disagreement of the passes' medians (max/min - 1).
    pub pass_spread: f64,
    /// The largest max/min - 1 of the rounds within one pass, its slowest round left out.
    pub round_spread: f64,
}

impl Kind {
    fn of(
        p: &ScanPoint<usize, Rounds>,
        pick: impl Fn(&Rounds) -> Option<&Vec<f64>>,
    ) -> Option<Kind> {
        let mut all = Vec::new();
        let mut round_spread: f64 = 0.0;
        for r in &p.passes {
            let v = pick(r)?;
            all.extend_from_slice(v);
            round_spread = round_spread.max(spread_but_one(v)?);
        }
        let a = p.agreement(DEFAULT_TOLERANCE, |r| {
            pick(r)
                .and_then(|v| measure::stats::median(v))
                .unwrap_or(f64::NAN)
        });
        Some(Kind {
            ns: Summary::of(&all)?,
            pass_spread: a.spread,
            round_spread,
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
    /// Whether the passes of every chase agree within the tolerance.
    pub fn agree(&self) -> bool {
        self.index.agree() && self.pointer.agree() && self.huge.is_none_or(|h| h.agree())
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

/// Prints the table and its `#DATA` block.
pub fn table(rows: &[Row], exp: &Experiment, cc: &CoreClock) {
    let cyc = |ns: f64| cc.cycles(ns).map_or("   -".into(), |c| format!("{c:5.1}"));
    println!(
        "  {:<10} {:<7} {:>18} {:>18} {:>18} {:>10} {:>10} {:>7}  passes / rounds",
        "working",
        "where",
        "index chase",
        "pointer chase",
        "huge-page pointer",
        "sequential",
        "vectorised",
        "factor",
    );
    println!(
        "  {:<10} {:<7} {:>18} {:>18} {:>18} {:>10} {:>10} {:>7}",
        "set", "", "ns (cycles)", "ns (cycles)", "ns (cycles)", "ns/word", "ns/word", "index"
    );
    let base = rows.first().map_or(f64::NAN, |r| r.index.ns.median);
    let mut block = Block::new(
        "latency",
        &[
            "kib",
            "where:text",
            "index_ns",
            "index_min_ns",
            "index_max_ns",
            "index_cycles",
            "pointer_ns",
            "pointer_min_ns",
            "pointer_max_ns",
            "pointer_cycles",
            "seq_ns",
            "seq_min_ns",
            "seq_max_ns",
            "seq_vec_ns",
            "seq_vec_min_ns",
            "seq_vec_max_ns",
            "huge_ns",
            "huge_min_ns",
            "huge_max_ns",
            "huge_cycles",
            "factor",
            "pointer_factor",
            "index_pass_spread",
            "pointer_pass_spread",
            "huge_pass_spread",
            "seq_pass_spread",
            "seq_vec_pass_spread",
            "index_round_spread",
            "pointer_round_spread",
            "huge_round_spread",
            "agree:text",
            "stable:text",
            "huge_stable:text",
        ],
    );
    let pbase = rows.first().map_or(f64::NAN, |r| r.pointer.ns.median);
    for r in rows {
        let wh = exp.facts.where_fits(r.bytes as u64);
        let huge = r.huge.map_or(format!("{:>18}", "-"), |h| {
            format!("{:>10.2} ({})", h.ns.median, cyc(h.ns.median))
        });
        let flag = if r.agree() {
            format!("ok {:>3.0}%", r.worst(|k| k.pass_spread) * 100.0)
        } else {
            format!("!  {:>3.0}%", r.worst(|k| k.pass_spread) * 100.0)
        };
        let rs = r.worst(|k| k.round_spread);
        let rflag = if rs > ROUND_TOLERANCE {
            format!("~ {:.0}%", rs * 100.0)
        } else {
            format!("{:.0}%", rs * 100.0)
        };
        println!(
            "  {:<10} {:<7} {:>10.2} ({}) {:>10.2} ({}) {huge} {:>10.2} {:>10.2} {:>6.1}x  {flag} / {rflag}",
            human_bytes(r.bytes as u64),
            wh,
            r.index.ns.median,
            cyc(r.index.ns.median),
            r.pointer.ns.median,
            cyc(r.pointer.ns.median),
            r.seq.ns.median,
            r.seq_vec.ns.median,
            r.index.ns.median / base
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
        ]);
    }
    println!(
        "\n  passes: the largest disagreement of the two passes' medians over the chases; '!' marks\n  more than {:.0}% (that size is not a measurement of the size alone). rounds: the largest\n  max/min - 1 of the rounds within a pass, its slowest round left out; '~' marks more than\n  {:.0}% (unstable).",
        DEFAULT_TOLERANCE * 100.0,
        ROUND_TOLERANCE * 100.0
    );
    block.print();
}

/// The `knees` block, filled by [`findings`] for each series.
pub fn knees_block() -> Block {
    Block::new(
        "knees",
        &[
            "series:text",
            "kind:text",
            "from_kib",
            "to_kib",
            "ratio",
            "spread",
            "nearest:text",
            "agrees:text",
        ],
    )
}

/// Prints what the curve of one `series` shows (`found`, in size order), with each knee
/// beside the nearest `reported` cache size, and adds the rows to the `knees` block `kb`.
/// Returns where the last knee starts (KiB), if there is one.
pub fn findings(
    series: &str,
    found: &[Finding],
    reported: &[(String, u64)],
    kb: &mut Block,
) -> Option<u64> {
    let mut last_knee = None;
    for f in found {
        match *f {
            Finding::Knee {
                from_kib,
                to_kib,
                ratio,
            } => {
                let near = knees::nearest_reported(from_kib, to_kib, reported);
                let verdict = match near {
                    Some((n, b, true)) => format!("agrees with {n} {}", human_bytes(b)),
                    Some((n, b, false)) => format!(
                        "nearest reported is {n} {}, more than a doubling away",
                        human_bytes(b)
                    ),
                    None => "no reported size to compare with".into(),
                };
                println!(
                    "    knee   : {ratio:.2}x from {} to {}: a level ends between them; {verdict}",
                    human_bytes(from_kib * 1024),
                    human_bytes(to_kib * 1024)
                );
                last_knee = Some(from_kib);
                kb.row(vec![
                    series.into(),
                    "knee".into(),
                    from_kib.into(),
                    to_kib.into(),
                    ratio.into(),
                    Value::Missing,
                    near.map(|(n, _, _)| n).into(),
                    near.map(|(_, _, a)| a).into(),
                ]);
            }
            Finding::Unstable {
                from_kib,
                to_kib,
                spread,
            } => {
                let stretch = if from_kib == to_kib {
                    human_bytes(from_kib * 1024)
                } else {
                    format!(
                        "{} .. {}",
                        human_bytes(from_kib * 1024),
                        human_bytes(to_kib * 1024)
                    )
                };
                println!(
                    "    unstable: {stretch}: rounds or passes spread up to {:.0}%; the same working set\n             read differently from moment to moment, so no boundary is claimed there",
                    spread * 100.0
                );
                kb.row(vec![
                    series.into(),
                    "unstable".into(),
                    from_kib.into(),
                    to_kib.into(),
                    Value::Missing,
                    spread.into(),
                    Value::Missing,
                    Value::Missing,
                ]);
            }
        }
    }
    last_knee
}
