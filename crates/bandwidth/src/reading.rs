//! How to read this run: the closing sentences of sections 2 to 6, each a pure function of
//! the numbers the section printed and of the rounds behind them, which prints nothing. Each
//! reads the shared levels (the caches, memory, the boundaries read from the curve, all cores
//! at once), so each passes through [`marked`]: "provisional:" first when its rounds were
//! disturbed, and a sentence naming contention when other cores were busy meanwhile.

use crate::boundaries;
use crate::kernels::{Form, Kernel, Op};
use crate::report::{Row, find, gbs};
use crate::sweep;
use crate::team::ThreadRow;
use measure::disturb::Tally;
use measure::fmt::bytes as size;
use measure::show::marked;

/// Whether the largest working set lies beyond the caches: at least twice the largest
/// reported cache (`None` when no size is reported).
pub fn beyond_caches(rows: &[Row], largest: Option<u64>) -> Option<bool> {
    let last = rows.last()?.bytes as u64;
    largest.map(|l| last >= 2 * l)
}

/// The rounds of the two working sets sections 2 and 4 read, the smallest and the largest,
/// each with the load of its own window: the mark of their readings. The other sizes were
/// taken in windows of their own, and carry their own marks (the `p` flags).
pub fn ends(rows: &[Row]) -> Tally {
    match (rows.first(), rows.last()) {
        (Some(a), Some(b)) if rows.len() > 1 => a.tally().merge(&b.tally()),
        (Some(a), _) => a.tally(),
        _ => Tally::default(),
    }
}

/// Section 2's reading, marked by the rounds of the sizes it reads (`tally`, [`ends`]).
/// `beyond`: whether the largest set lies beyond the caches ([`beyond_caches`]).
pub fn bandwidth(
    rows: &[Row],
    kernels: &[Kernel],
    beyond: Option<bool>,
    tally: &Tally,
) -> Vec<String> {
    marked(tally, true, vec![bandwidth_text(rows, kernels, beyond)])
}

/// Section 2: what the plain and explicit forms, the write and the stability say.
fn bandwidth_text(rows: &[Row], kernels: &[Kernel], beyond: Option<bool>) -> String {
    let unstable = rows.iter().filter(|r| !r.stable()).count();
    let at = |op, form, r: &Row| find(kernels, op, form).map(|i| r.cells[i].gbs.median);
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
            if beyond != Some(true) {
                "the largest set is not beyond the caches (or no cache size is reported), so \
                 this run does not show what memory does."
            } else if (1.0 / 1.15..1.15).contains(&(e1 / p1)) && e0 / p0 > 1.15 {
                "wide registers pay inside the caches; from memory, the memory sets the pace."
            } else {
                "read the two columns before drawing a conclusion from either."
            }
        );
    }
    if let (Some(w), Some(r), Some(true)) = (
        at(Op::Write, Form::Explicit, last),
        at(Op::Read, Form::Explicit, last),
        beyond,
    ) {
        read2.push_str(&format!(
            "Writing {} runs at {:.2}x the read: {}",
            size(last.bytes as u64),
            w / r,
            if w < 0.9 * r {
                "a line is read in before it is written (write-allocate), so written lines cross \
                 the bus twice. "
            } else {
                "no write-allocate penalty is visible at this size. "
            }
        ));
    }
    read2.push_str(&format!(
        "{unstable} of {} sizes are ~ (a kernel's passes differ by over {:.0}% or its rounds by \
         over {:.0}%).",
        rows.len(),
        sweep::PASS_TOLERANCE * 100.0,
        sweep::ROUND_TOLERANCE * 100.0,
    ));
    let marked = rows.iter().filter(|r| r.tally().provisional()).count();
    if marked > 0 {
        read2.push_str(&format!(
            " {marked} of {} are p (provisional: their rounds were disturbed, or the core's share \
             was unsteady while they were taken).",
            rows.len()
        ));
    }
    read2
}

/// What section 3 read from the explicit read's curve: how many falls, how many agree with a
/// reported size, and where the last fall starts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Falls {
    pub drops: usize,
    pub agree: usize,
    pub last_drop: Option<u64>,
}

impl Falls {
    /// The falls among `found`, and how many of them lie within a doubling of a size in
    /// `reported` (`(name, bytes)`).
    pub fn of(found: &[boundaries::Finding], reported: &[(String, u64)]) -> Falls {
        let drops: Vec<(u64, u64)> = found
            .iter()
            .filter_map(|f| match *f {
                boundaries::Finding::Drop { from, to, .. } => Some((from, to)),
                boundaries::Finding::Unstable { .. } => None,
            })
            .collect();
        let near = |&(from, to): &(u64, u64)| {
            measure::curve::nearest_reported(from, to, reported).is_some_and(|n| n.2)
        };
        Falls {
            drops: drops.len(),
            agree: drops.iter().filter(|d| near(d)).count(),
            last_drop: drops.last().map(|d| d.0),
        }
    }
}

/// Section 3's reading, marked by the rounds of section 2's curve (`tally`): `largest`, the
/// largest reported cache; `beyond`, whether the largest set lies beyond the caches.
pub fn boundaries(
    falls: Falls,
    reported: &[(String, u64)],
    largest: Option<u64>,
    beyond: Option<bool>,
    tally: &Tally,
) -> Vec<String> {
    let text = boundaries_text(falls, reported, largest, beyond);
    marked(tally, true, vec![text])
}

/// Section 3: how many falls, how many agree with a reported size, and where the working set
/// leaves the caches.
fn boundaries_text(
    Falls {
        drops,
        agree,
        last_drop,
    }: Falls,
    reported: &[(String, u64)],
    largest: Option<u64>,
    beyond: Option<bool>,
) -> String {
    // The fall into memory: the last one, if it lies beyond the level below the largest.
    let second = reported
        .iter()
        .map(|r| r.1)
        .filter(|&b| Some(b) < largest)
        .max();
    let into_memory = last_drop.filter(|&d| second.is_none_or(|s| d >= s));
    format!(
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
            (None, _) if beyond != Some(true) => "The run does not reach beyond the caches (or no \
                                                  cache size is reported), so no fall into \
                                                  memory can be read."
                .into(),
            (None, _) => "No fall beyond the second-largest cache was read in this run: the sizes \
                          there are unstable or the bandwidth falls too gently (see the table)."
                .into(),
        }
    )
}

/// Section 5's reading, marked by its rounds (`tally`). `totals`: each measured row's
/// (threads, median total GB/s of its clean rounds), in thread order.
pub fn scaling(rows: &[ThreadRow], totals: &[(usize, f64)], tally: &Tally) -> Vec<String> {
    marked(tally, true, vec![scaling_text(rows, totals)])
}

/// Section 5: the share per thread and where scaling stops.
fn scaling_text(rows: &[ThreadRow], totals: &[(usize, f64)]) -> String {
    let one = totals.first().map(|t| t.1);
    let all = totals.last().copied();
    // A row with no clean round: its total is other work's as much as the memory's.
    let disturbed = |n: usize| {
        rows.iter()
            .any(|t| t.threads == n && !t.total.values.is_empty() && t.total.clean_count() == 0)
    };
    let mut text = String::new();
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
                    // A step whose rows had no clean round may have lost its gain to the other
                    // work: no cause is read from it.
                    Some(w) if disturbed(w[0].0) || disturbed(w[1].0) => format!(
                        "Going from {} to {} thread(s) added under half the ideal gain, but \
                         every round of those rows was disturbed: this run cannot tell whether \
                         the memory system or the other work set the limit.",
                        w[0].0, w[1].0
                    ),
                    Some(w) => format!(
                        "Scaling stops at {} thread(s): going to {} added under half the ideal \
                         gain; the memory system, not the cores, sets the limit.",
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
    text
}

/// Section 4's reading from the streaming write against the ordinary one (`inside`: their
/// ratio at the smallest set, `at_last`: at the largest, of `last_bytes`), marked by the
/// rounds of those two sets (`tally`, [`ends`]).
pub fn non_temporal(
    (inside, at_last): (f64, f64),
    last_bytes: u64,
    beyond: Option<bool>,
    tally: &Tally,
) -> Vec<String> {
    let tail = match beyond {
        Some(true) => format!(
            "Beyond them it runs at {at_last:.2}x: {}",
            if at_last > crate::report::STREAM_WINS {
                "no line is read before it is overwritten, so the bus carries each byte \
                 once, not twice."
            } else {
                "in this run it did not beat the ordinary write even there."
            }
        ),
        _ => format!(
            "The largest set ({}) is not beyond the caches, so this run cannot show where \
             streaming wins.",
            size(last_bytes)
        ),
    };
    let why = if inside < 1.0 / crate::report::STREAM_WINS {
        "it sends every line to memory even though the next lap will want it back."
    } else {
        "in this run it was not slower there, although it sends every line to memory."
    };
    let text = format!(
        "Inside the caches a streaming write runs at {inside:.2}x the ordinary one: {why} {tail}"
    );
    marked(tally, true, vec![text])
}

/// Section 6's reading on latency under load, from the rounds that count, marked by the
/// chase's rounds (`tally`).
pub fn loaded(v: &crate::latency::Verdict, tally: &Tally) -> Vec<String> {
    marked(tally, true, vec![loaded_text(v)])
}

/// The conclusion on latency under load, from the rounds that count.
fn loaded_text(v: &crate::latency::Verdict) -> String {
    match (v.ratio, &v.why_not, &v.idle, &v.loaded) {
        (Some(r), _, Some(i), Some(l)) => format!(
            "Under load one miss takes {r:.2}x as long as with the other cores idle{}: {}",
            if l.min > i.max {
                " (every loaded round slower than every idle one)"
            } else {
                " (the rounds overlap)"
            },
            if r > 1.1 && l.min > i.max {
                "a latency-bound program slows down when a neighbour streams, though it shares no \
                 data with it: the requests queue in the same memory system."
            } else if r > 1.1 {
                "slower in the median, but this run does not separate the load from other work."
            } else {
                "in this run the streaming neighbours did not delay the chase measurably."
            }
        ),
        (_, Some(why), _, _) => format!("No verdict on latency under load: {why}."),
        _ => "No verdict on latency under load.".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of one round, disturbed or not.
    fn row(threads: usize, disturbed: usize) -> ThreadRow {
        use measure::disturb::Evidence;
        let mut total = measure::rounds::Timed::default();
        total.push(
            1.0,
            Evidence {
                wall_ns: 50_000_000,
                switches: disturbed as u64,
                waited_ns: Some(disturbed as u64 * 20_000_000),
                off_cpu_ns: 0,
            },
        );
        ThreadRow {
            threads,
            cores: (0..threads).collect(),
            total,
            verified: true,
            off_core: 0,
        }
    }

    /// Rounds of a section: quiet, disturbed on its own core, or quiet beside a busy core.
    fn tally(kind: &str) -> Tally {
        let (disturbed, on_core, elsewhere) = match kind {
            "quiet" => (0, 0.0, 0.0),
            "disturbed" => (30, 0.5, 0.0),
            _ => (0, 0.0, 0.95),
        };
        measure::testing::tally(100, disturbed, on_core, elsewhere)
    }

    /// Sections 2 to 6's readings from synthetic results, marked by `t`.
    fn readings(t: &Tally) -> Vec<Vec<String>> {
        use crate::kernels::{self, Width};
        use crate::sweep::Cell;
        let ks = kernels::all(Width::Scalar);
        // Every kernel reads 100 GB/s at 32 KiB and 10 at 64 MiB, in three agreeing rounds.
        let rows: Vec<Row> = [(32 << 10, 100.0), (64 << 20, 10.0)]
            .into_iter()
            .map(|(bytes, g)| Row {
                bytes,
                cells: vec![Cell::of(&[&[g, g, g]]).unwrap(); ks.len()],
            })
            .collect();
        let reported = [("L3".to_string(), 16u64 << 20)];
        let falls = Falls {
            drops: 1,
            agree: 1,
            last_drop: Some(8 << 20),
        };
        let s = |v: f64| measure::stats::Summary::of(&[v * 0.99, v, v * 1.01]).unwrap();
        let v = crate::latency::Verdict {
            idle: Some(s(100.0)),
            loaded: Some(s(150.0)),
            stream_gbs: s(20.0),
            idle_counts: vec![true; 3],
            loaded_counts: vec![true; 3],
            ratio: Some(1.5),
            why_not: None,
        };
        vec![
            bandwidth(&rows, &ks, Some(true), t),
            boundaries(falls, &reported, Some(16 << 20), Some(true), t),
            non_temporal((0.5, 1.6), 64 << 20, Some(true), t),
            scaling(&[row(1, 0), row(2, 0)], &[(1, 20.0), (2, 21.0)], t),
            loaded(&v, t),
        ]
    }

    #[test]
    fn falls_are_counted_and_matched_with_the_reported_sizes() {
        use boundaries::Finding::{Drop, Unstable};
        let reported = [("L2".to_string(), 1u64 << 20), ("L3".into(), 32 << 20)];
        let found = [
            Drop {
                from: 1 << 20,
                to: 2 << 20,
                ratio: 1.6,
            },
            Unstable {
                from: 4 << 20,
                to: 8 << 20,
                spread: 0.4,
            },
            Drop {
                from: 128 << 20,
                to: 256 << 20,
                ratio: 1.3,
            },
        ];
        let f = Falls::of(&found, &reported);
        assert_eq!(
            f,
            Falls {
                drops: 2,
                agree: 1,
                last_drop: Some(128 << 20)
            }
        );
        assert_eq!(Falls::of(&found[1..2], &reported).last_drop, None);
    }

    #[test]
    fn a_quiet_run_reads_unmarked() {
        let r = readings(&tally("quiet"));
        for x in &r {
            assert_eq!(x.len(), 1, "{x:?}");
            assert!(!x[0].contains("provisional") && !x[0].contains("contention"));
        }
        assert!(
            r[0][0].starts_with("At 32 KiB the explicit read runs at 1.0x"),
            "{r:?}"
        );
        assert!(
            r[1][0].contains("The fall into memory starts at 8 MiB, where"),
            "{r:?}"
        );
        assert!(r[2][0].starts_with("Inside the caches a streaming write runs at 0.50x"));
        assert!(r[2][0].contains("Beyond them it runs at 1.60x: no line is read"));
        assert!(r[3][0].contains("Scaling stops at 1 thread(s)"), "{r:?}");
        assert!(
            r[4][0].starts_with("Under load one miss takes 1.50x"),
            "{r:?}"
        );
    }

    #[test]
    fn a_disturbed_run_never_reads_unmarked() {
        for x in readings(&tally("disturbed")) {
            assert!(
                x[0].starts_with(
                    "provisional: 30 of 100 rounds were disturbed (0.50 cores of other work on \
                     core 1); the clean rounds give: "
                ),
                "{x:?}"
            );
        }
    }

    #[test]
    fn every_reading_of_the_shared_levels_names_contention() {
        for x in readings(&tally("contended")) {
            assert_eq!(x.len(), 2, "{x:?}");
            assert!(!x[0].contains("provisional"), "{x:?}");
            assert!(x[1].starts_with("contention: 0.95 cores"), "{x:?}");
        }
    }

    /// Sections 2 and 4 read the smallest and the largest set: an unsteady size between them
    /// marks its own row, not their readings; either end marks them.
    #[test]
    fn the_readings_of_the_ends_take_the_ends_marks() {
        use crate::sweep::Cell;
        let at = |bytes: usize, kind: &str| Row {
            bytes,
            cells: vec![
                Cell {
                    tally: tally(kind),
                    ..Cell::of(&[&[1.0, 1.0, 1.0]]).unwrap()
                };
                2
            ],
        };
        let rows = |mid: &str, last: &str| {
            vec![at(32 << 10, "quiet"), at(1 << 20, mid), at(64 << 20, last)]
        };
        assert!(!ends(&rows("disturbed", "quiet")).provisional());
        assert!(ends(&rows("quiet", "disturbed")).provisional());
        assert_eq!(
            ends(&rows("quiet", "quiet")).rounds,
            400,
            "two cells at each end"
        );
        assert_eq!(
            ends(&rows("quiet", "quiet")[..1]).rounds,
            200,
            "one row: its own"
        );
        assert_eq!(ends(&[]).rounds, 0);
    }

    #[test]
    fn scaling_stops_only_where_the_rows_kept_their_cores() {
        let totals = [(1, 20.0), (2, 21.0)];
        let quiet = scaling_text(&[row(1, 0), row(2, 0)], &totals);
        assert!(quiet.contains("Scaling stops at 1 thread(s)"), "{quiet}");
        let held = scaling_text(&[row(1, 0), row(2, 1)], &totals);
        assert!(
            held.contains("cannot tell") && !held.contains("Scaling stops"),
            "{held}"
        );
        let scaled = scaling_text(&[row(1, 0), row(2, 0)], &[(1, 20.0), (2, 39.0)]);
        assert!(
            scaled.contains("Every step added at least half"),
            "{scaled}"
        );
    }
}
