//! How to read this run: the closing sentences of sections 2, 3 and 5, each a pure function
//! of the numbers the section printed. The caller marks them ([`measure::show::marked`]) with
//! the section's rounds and prints them.

use crate::boundaries;
use crate::kernels::{Form, Kernel, Op};
use crate::report::{Row, find, gbs};
use crate::sweep;
use crate::team::ThreadRow;
use measure::fmt::bytes as size;

/// Whether the largest working set lies beyond the caches: at least twice the largest
/// reported cache (`None` when no size is reported).
pub fn beyond_caches(rows: &[Row], largest: Option<u64>) -> Option<bool> {
    let last = rows.last()?.bytes as u64;
    largest.map(|l| last >= 2 * l)
}

/// Section 2: what the plain and explicit forms, the write and the stability say. `beyond`:
/// whether the largest set lies beyond the caches ([`beyond_caches`]).
pub fn bandwidth(rows: &[Row], kernels: &[Kernel], beyond: Option<bool>) -> String {
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
    read2
}

/// Section 3: how many falls, how many agree with a reported size, and where the working set
/// leaves the caches (`last_drop`: where the last fall starts).
pub fn boundaries(
    drops: usize,
    agree: usize,
    last_drop: Option<u64>,
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

/// Section 5: the share per thread and where scaling stops. `totals`: each measured row's
/// (threads, median total GB/s of its clean rounds), in thread order.
pub fn scaling(rows: &[ThreadRow], totals: &[(usize, f64)]) -> String {
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

    #[test]
    fn scaling_stops_only_where_the_rows_kept_their_cores() {
        let totals = [(1, 20.0), (2, 21.0)];
        let quiet = scaling(&[row(1, 0), row(2, 0)], &totals);
        assert!(quiet.contains("Scaling stops at 1 thread(s)"), "{quiet}");
        let held = scaling(&[row(1, 0), row(2, 1)], &totals);
        assert!(
            held.contains("cannot tell") && !held.contains("Scaling stops"),
            "{held}"
        );
        let scaled = scaling(&[row(1, 0), row(2, 0)], &[(1, 20.0), (2, 39.0)]);
        assert!(
            scaled.contains("Every step added at least half"),
            "{scaled}"
        );
    }
}
