//! What the run says: the closing sentences of sections 4, 5 and 6 as pure functions of the
//! section's results (the rows, the verified backings, the boundaries each series showed, the
//! parallel chains, and the rounds behind them), marked through `measure::show::marked` when
//! rounds were disturbed or other cores competed for the shared levels. Nothing here measures,
//! prints or records; `main.rs` renders.

use crate::TOP_WITHIN;
use crate::knees::{self, Finding};
use crate::mlp::{self, Mlp};
use crate::report::{Boundaries, Kind, Row, Series};
use measure::disturb::Tally;
use measure::fmt::bytes;
use measure::show;

/// The huge-page reading at the largest working set: the verified share of the huge region
/// and of the 4 KiB pointer region, each the worst of before and after the scan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HugeCheck {
    pub huge_pct: Option<f64>,
    pub pointer_pct: Option<f64>,
}

/// Section 4's result: its rows, the huge-page backing (when there is a huge region), the
/// core clock in GHz (for cycles), and every round of the scan counted with the load around
/// it.
pub struct Ladder<'a> {
    pub rows: &'a [Row],
    pub huge: Option<HugeCheck>,
    pub ghz: Option<f64>,
    pub tally: Tally,
}

/// What the huge pages did at the largest set, from the verified backing and the rounds.
pub fn huge_verdict(last: &Row, check: HugeCheck) -> Option<String> {
    let h = last.huge?;
    let r = last.pointer.ns.median / h.ns.median;
    Some(match (check.huge_pct, check.pointer_pct) {
        (Some(hb), Some(pb)) if hb >= 90.0 && pb <= 10.0 => {
            if r > 1.1 && h.ns.max < last.pointer.ns.min {
                format!(
                    "translation adds about {:.0} ns ({:.0}%) to every step on small pages.",
                    last.pointer.ns.median - h.ns.median,
                    (r - 1.0) * 100.0
                )
            } else if r < 0.9 && last.pointer.ns.max < h.ns.min {
                "huge pages were slower here, which the run cannot explain; rerun before \
                 reading it."
                    .into()
            } else if !(0.9..=1.1).contains(&r) {
                "no clear difference in this run (the rounds overlap).".into()
            } else {
                "no clear difference in this run (the gap is under 10%).".into()
            }
        }
        _ => "the backings are not as requested, so this is not a clean comparison.".into(),
    })
}

/// The closing sentences of section 4, each computed from the run's rows. The largest set
/// reads memory, so the reading is a shared-level one: other cores' work is named.
pub fn ladder_verdict(l: &Ladder) -> Vec<String> {
    let (Some(first), Some(last)) = (l.rows.first(), l.rows.last()) else {
        return Vec::new();
    };
    let cycles = |a: f64, b: f64| {
        l.ghz.map_or(String::new(), |g| {
            format!(" ({:.1} against {:.1} cycles)", a * g, b * g)
        })
    };
    // A sentence about a flagged size says so.
    let care = |r: &Row| if r.stable() { "" } else { " (a flagged size)" };
    let (pi, pp) = (first.index.ns.median, first.pointer.ns.median);
    let mut out = vec![own(
        [Some(first.index), Some(first.pointer)],
        format!(
            "at {}{} the pointer chase takes {pp:.2} ns a step, the index chase {pi:.2} ns{}: {}",
            bytes(first.bytes as u64),
            care(first),
            cycles(pp, pi),
            if pi > pp * 1.05 {
                format!(
                    "computing the address from an index costs {:.0}% on top of the load itself.",
                    (pi / pp - 1.0) * 100.0
                )
            } else {
                "computing the address from an index costs nothing measurable here.".into()
            }
        ),
    )];
    let f = last.index.ns.median / first.index.ns.median;
    out.push(own(
        [Some(first.index), Some(last.index)],
        format!(
            "{}{} is {f:.0}x slower per step than {} (index chase): the same instructions, only \
         the place the data lives differs.",
            bytes(last.bytes as u64),
            care(last),
            bytes(first.bytes as u64)
        ),
    ));
    let s = last.index.ns.median / last.seq.ns.median;
    let sweeps = [Some(last.index), Some(last.seq), Some(last.seq_vec)];
    out.push(own(
        sweeps,
        format!(
            "sweeping {} in order costs {:.2} ns a word ({:.2} ns vectorised), {s:.0}x less than \
         chasing it at random: {}",
            bytes(last.bytes as u64),
            last.seq.ns.median,
            last.seq_vec.ns.median,
            if s > 3.0 {
                "the machine fetches ahead when it can see the next address coming."
            } else {
                "on this run the sweep was not much faster; read the table before believing either."
            }
        ),
    ));
    if let (Some(h), Some(check)) = (last.huge, l.huge)
        && let Some(verdict) = huge_verdict(last, check)
    {
        let show = |p: Option<f64>| p.map_or("unknown".into(), |p| format!("{p:.0}%"));
        let text = format!(
            "at {}{}, huge pages read {:.1} ns against {:.1} ns on 4 KiB pages ({} and {} on \
             huge pages, verified before and after the scan): {verdict}",
            bytes(last.bytes as u64),
            care(last),
            h.ns.median,
            last.pointer.ns.median,
            show(check.huge_pct),
            show(check.pointer_pct)
        );
        out.push(own([Some(last.pointer), Some(h)], text));
    }
    let flagged = l.rows.iter().filter(|r| !r.stable()).count();
    if flagged > 0 {
        out.push(format!(
            "{flagged} of {} sizes are flagged: the same working set read differently from moment \
             to moment (a cache shared with others, or other work on this machine).",
            l.rows.len()
        ));
    }
    out.extend(show::contention(&l.tally));
    out
}

/// A sentence of section 4, marked by the rounds it reads (`kinds`, the sizes it speaks of)
/// and the load of the parts of the scan they were taken in: a size whose core share was
/// unsteady marks the sentences that read it, and only those.
fn own<const N: usize>(kinds: [Option<Kind>; N], sentence: String) -> String {
    let t = kinds
        .iter()
        .flatten()
        .fold(Tally::default(), |t, k| t.merge(&k.tally));
    show::marked(&t, false, vec![sentence]).remove(0)
}

/// The rounds behind the boundaries: every round of the section (`section`, with its load),
/// where only the series read from the curve (the pointer chases) count as used.
pub fn curve_tally(rows: &[Row], section: &Tally) -> Tally {
    let used = rows
        .iter()
        .flat_map(|r| [Some(r.pointer), r.huge])
        .flatten()
        .map(|k| k.tally.disturbed_used)
        .sum();
    Tally {
        disturbed_used: used,
        ..*section
    }
}

/// What one knee says beside the nearest reported size (`name, bytes, within a doubling`).
pub fn knee_verdict(near: Option<(&str, u64, bool)>) -> String {
    match near {
        Some((n, b, true)) => format!("agrees with {n} {}", bytes(b)),
        Some((n, b, false)) => format!("nearest is {n} {}, over a doubling away", bytes(b)),
        None => "no reported size to compare with".into(),
    }
}

/// The knees of a series as `(from, to)` pairs in KiB.
fn knee_pairs(found: &[Finding]) -> Vec<(u64, u64)> {
    found
        .iter()
        .filter_map(|f| match *f {
            Finding::Knee {
                from_kib, to_kib, ..
            } => Some((from_kib, to_kib)),
            Finding::Unstable { .. } => None,
        })
        .collect()
}

/// Where the knees start: "32 KiB, 1 MiB", or "none".
fn knee_starts(pairs: &[(u64, u64)]) -> String {
    if pairs.is_empty() {
        return "none".into();
    }
    let v: Vec<String> = pairs.iter().map(|&(a, _)| bytes(a * 1024)).collect();
    v.join(", ")
}

/// The closing sentences of section 5, computed from what each series showed and marked by
/// the rounds behind the curve (`tally`): the boundaries are shared-level readings, so other
/// cores' work is named. Pure: no printing, no recording.
pub fn boundaries_verdict(
    readings: &[(Series, Boundaries)],
    reported: &[(String, u64)],
    max_bytes: u64,
    tally: &Tally,
) -> Vec<String> {
    let mut out = show::marked(
        tally,
        true,
        boundary_findings(readings, reported, max_bytes),
    );
    let note = format!(
        "a knee is the steepest rise of its stretch ({:.1}x or more) between two stable sizes; \
         where a knee falls moves from run to run on a shared machine.",
        knees::MIN_RATIO
    );
    if out.is_empty() {
        out = show::marked(tally, true, vec![note]);
    } else {
        out.push(note);
    }
    out
}

/// The sentences of section 5 drawn from the curve, unmarked.
fn boundary_findings(
    readings: &[(Series, Boundaries)],
    reported: &[(String, u64)],
    max_bytes: u64,
) -> Vec<String> {
    let mut out = Vec::new();
    let Some((_, first)) = readings.first() else {
        return out;
    };
    if first.stable * 2 < first.points {
        out.push(format!(
            "{} of the {} sizes were stable on 4 KiB pages, so few boundaries can be read from \
             this run: rerun it on a quiet machine.",
            if first.stable == 0 {
                "none".to_string()
            } else {
                format!("only {}", first.stable)
            },
            first.points
        ));
    }
    let pairs = knee_pairs(&first.found);
    if !reported.is_empty() {
        out.push(confirmed(&pairs, reported));
    }
    if let Some((_, largest)) = reported.iter().max_by_key(|(_, b)| *b) {
        out.push(top_level(first, *largest, max_bytes));
    }
    if let Some((_, huge)) = readings.get(1) {
        let hp = knee_pairs(&huge.found);
        out.push(if hp.is_empty() && pairs.is_empty() {
            "neither series shows a knee in this run.".into()
        } else if hp == pairs {
            "huge pages show the same knees in this run.".into()
        } else {
            format!(
                "the knees start at {} on huge pages against {} on 4 KiB pages: where they \
                 differ, translation or the run's noise moved a boundary.",
                knee_starts(&hp),
                knee_starts(&pairs)
            )
        });
    }
    out
}

/// How many of the `reported` sizes a knee of the 4 KiB curve (`pairs`) agrees with, and which.
fn confirmed(pairs: &[(u64, u64)], reported: &[(String, u64)]) -> String {
    type Sizes<'a> = Vec<&'a (String, u64)>;
    let (agreed, missed): (Sizes, Sizes) = reported.iter().partition(|(n, _)| {
        pairs.iter().any(|&(a, b)| {
            knees::nearest_reported(a, b, reported).is_some_and(|(m, _, ok)| ok && m == n)
        })
    });
    let names = |v: &[&(String, u64)]| {
        v.iter()
            .map(|(n, b)| format!("{n} {}", bytes(*b)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    format!(
        "on 4 KiB pages the curve confirms {} of the {} reported sizes{}{}.",
        agreed.len(),
        reported.len(),
        if agreed.is_empty() {
            String::new()
        } else {
            format!(" ({})", names(&agreed))
        },
        if missed.is_empty() {
            String::new()
        } else {
            format!("; no knee agrees with {}", names(&missed))
        }
    )
}

/// Where the 4 KiB curve (`first`) reaches its top level, against the `largest` reported cache
/// and the largest working set (`max_bytes`).
fn top_level(first: &Boundaries, largest: u64, max_bytes: u64) -> String {
    let top = first.top_from_kib.map(|k| k * 1024);
    // The level the top was read against: the largest stable size.
    let of = first.top_of_kib.map_or(max_bytes, |k| k * 1024);
    match top {
        _ if max_bytes < 2 * largest => format!(
            "the largest working set ({}) is not twice the largest reported cache ({}): the \
             top of this curve is not memory yet (a full run climbs further).",
            bytes(max_bytes),
            bytes(largest)
        ),
        Some(_) if of < 2 * largest => format!(
            "the largest stable working set ({}) is not twice the largest reported cache \
             ({}): this run cannot say where memory begins.",
            bytes(of),
            bytes(largest)
        ),
        Some(top) if top >= of => format!(
            "no stable size below {} (the largest stable one) reads within {TOP_WITHIN}x of \
             it: this run shows no top level.",
            bytes(of)
        ),
        Some(top) if top * 2 <= largest => format!(
            "the curve reaches the level of {} from {} on, {:.0}x below the largest reported \
             cache ({}): this program got less of that cache than reported.",
            bytes(of),
            bytes(top),
            largest as f64 / top as f64,
            bytes(largest)
        ),
        Some(top) if top >= largest * 2 => format!(
            "the curve reaches the level of {} only from {} on, {:.0}x above the largest \
             reported cache ({}): it kept rising past the caches.",
            bytes(of),
            bytes(top),
            top as f64 / largest as f64,
            bytes(largest)
        ),
        Some(top) => format!(
            "the curve reaches the level of {} from {} on, within a doubling of the largest \
             reported cache ({}): the report and the curve agree about where memory begins.",
            bytes(of),
            bytes(top),
            bytes(largest)
        ),
        None => "the curve has no top level in this run (too few stable sizes).".into(),
    }
}

/// The reading: per level, what 16 chains (the most) gain over one, and for memory the
/// bandwidth they imply, to be set beside the bandwidth experiment's figure from the same
/// run. Marked by [`show::marked`] (L3 and memory are shared).
pub fn mlp_verdict(m: &Mlp) -> Vec<String> {
    let mut out = Vec::new();
    for l in &m.levels {
        let (one, most) = (&l.points[0], &l.points[l.points.len() - 1]);
        let flight = l.in_flight(most);
        let verdict = if flight >= most.chains as f64 * 0.8 {
            "every chain's miss overlapped the others'"
        } else if flight >= 2.0 {
            "the core overlaps misses, but fewer than the chains offer: a limit on misses in \
             flight (fill buffers, the level's queue) is reached"
        } else {
            "hardly any overlap: the loads are served one after another"
        };
        out.push(format!(
            "{} ({}): one chain {:.1} ns a load; {} chains {:.1} ns a load, {flight:.1} loads \
             in flight, {:.1} GB/s implied: {verdict}.",
            l.name,
            measure::fmt::bytes(l.bytes as u64),
            one.step.median,
            most.chains,
            most.step.median / most.chains as f64,
            mlp::implied_gbs(most),
        ));
    }
    if let Some(mem) = m.levels.iter().find(|l| l.name == "memory") {
        let most = &mem.points[mem.points.len() - 1];
        out.push(format!(
            "latency x parallelism = bandwidth (Little's law): {:.1} loads in flight x 64 bytes / \
             {:.1} ns = {:.1} GB/s from memory by random loads; set it beside the bandwidth \
             experiment's one-core memory read from the same run folder (run-all's summary \
             does): a streaming read, prefetched, should reach at least this.",
            mem.in_flight(most),
            mem.points[0].step.median,
            mem.in_flight(most) * 64.0 / mem.points[0].step.median,
        ));
    }
    show::marked(&m.tally, true, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::disturb::Load;
    use measure::stats::Summary;

    fn kind(ns: f64) -> Kind {
        Kind {
            ns: Summary::of(&[ns * 0.99, ns, ns * 1.01]).unwrap(),
            pass_spread: 0.01,
            round_spread: 0.02,
            tally: Tally {
                rounds: 30,
                ..Default::default()
            },
        }
    }

    fn row(kib: usize, chase: f64, huge: f64, seq: f64) -> Row {
        Row {
            bytes: kib * 1024,
            index: kind(chase * 1.2),
            pointer: kind(chase),
            huge: Some(kind(huge)),
            seq: kind(seq),
            seq_vec: kind(seq / 2.0),
        }
    }

    fn rows() -> Vec<Row> {
        vec![row(4, 1.1, 1.1, 0.3), row(131072, 170.0, 120.0, 0.5)]
    }

    fn load(on_core: f64, elsewhere: f64) -> Load {
        Load {
            wall_s: 10.0,
            core: Some(1),
            on_core: Some(on_core),
            steal: Some(0.0),
            elsewhere: Some(elsewhere),
            ..Default::default()
        }
    }

    fn tally(disturbed: usize, l: Load) -> Tally {
        Tally {
            rounds: 600,
            disturbed,
            load: Some(l),
            ..Default::default()
        }
    }

    /// The rows as a scan with section tally `t` leaves them: each chase of each size with
    /// its share of the rounds and disturbed rounds, and the parts' load (a chase already
    /// given disturbed rounds keeps them).
    fn as_taken(rows: &[Row], t: Tally) -> Vec<Row> {
        let share = |n: usize| n * 30 / t.rounds.max(1);
        let spread = |k: &mut Kind| {
            if k.tally.disturbed == 0 {
                k.tally.disturbed = share(t.disturbed);
                k.tally.disturbed_used = share(t.disturbed_used);
            }
            k.tally.load = k.tally.load.or(t.load);
        };
        let mut out = rows.to_vec();
        for r in &mut out {
            for k in [&mut r.index, &mut r.pointer, &mut r.seq, &mut r.seq_vec] {
                spread(k);
            }
            r.huge.as_mut().map(spread);
        }
        out
    }

    fn ladder_says(rows: &[Row], t: Tally) -> Vec<String> {
        ladder_verdict(&Ladder {
            rows,
            huge: Some(HugeCheck {
                huge_pct: Some(100.0),
                pointer_pct: Some(0.0),
            }),
            ghz: Some(4.0),
            tally: t,
        })
    }

    fn boundaries_say(t: Tally) -> Vec<String> {
        let b = |from| Boundaries {
            top_from_kib: Some(65536),
            top_of_kib: Some(131072),
            last_knee_kib: Some(from),
            found: vec![Finding::Knee {
                from_kib: from,
                to_kib: 2 * from,
                ratio: 2.0,
            }],
            stable: 16,
            points: 16,
        };
        let reported = vec![("L2".to_string(), 1 << 20), ("L3".to_string(), 32 << 20)];
        let readings = vec![(Series::Pointer, b(1024)), (Series::Huge, b(1024))];
        boundaries_verdict(&readings, &reported, 128 << 20, &t)
    }

    /// What section 4 says of the usual rows, taken with the section's evidence `t`.
    fn taken_say(t: Tally) -> Vec<String> {
        ladder_says(&as_taken(&rows(), t), t)
    }

    fn all_say(t: Tally) -> Vec<String> {
        let mut v = taken_say(t);
        v.extend(boundaries_say(t));
        v
    }

    #[test]
    fn a_quiet_run_reads_without_any_mark() {
        for s in all_say(tally(1, load(0.0, 0.02))) {
            assert!(
                !s.contains("provisional") && !s.contains("contention"),
                "{s}"
            );
        }
        let v = ladder_says(&rows(), tally(0, load(0.0, 0.0)));
        assert!(
            v[0].starts_with("at 4 KiB the pointer chase takes 1.10 ns"),
            "{v:?}"
        );
        assert!(v[3].ends_with("translation adds about 50 ns (42%) to every step on small pages."));
    }

    #[test]
    fn disturbed_rounds_never_give_an_unmarked_reading() {
        // A busy loop on the pinned core: few rounds judged disturbed, but the core was shared.
        let busy = tally(40, load(0.5, 0.0));
        // Many disturbed rounds on an otherwise quiet core; and no clean round at all.
        let many = tally(120, load(0.0, 0.0));
        let none_clean = Tally {
            disturbed_used: 600,
            ..tally(600, load(0.0, 0.0))
        };
        for t in [busy, many, none_clean] {
            let l = taken_say(t);
            assert!(
                l.iter().take(4).all(|s| s.starts_with("provisional: ")),
                "{l:?}"
            );
            assert!(l[0].starts_with("provisional: "), "{l:?}");
            let b = boundaries_say(t);
            assert!(b[0].starts_with("provisional: "), "{b:?}");
        }
        assert!(taken_say(busy)[0].contains("0.50 cores of other work on core 1"));
        assert!(boundaries_say(none_clean)[0].contains("no round was clean"));
        // Where the first size's chases had no clean round, the first reading says so.
        let mut r = rows();
        let first = &mut r[0];
        for k in [&mut first.index, &mut first.pointer] {
            k.tally.disturbed = 30;
            k.tally.disturbed_used = 30;
        }
        let t = tally(60, load(0.0, 0.0));
        let l = ladder_says(&as_taken(&r, t), t);
        assert!(
            l[0].contains("no round was clean, so these are disturbed rounds: at 4 KiB"),
            "{l:?}"
        );
    }

    /// The scan is taken size by size, each in its own window: a size whose core share moved
    /// marks the readings drawn from it, and the others read clean.
    #[test]
    fn a_size_with_an_unsteady_share_marks_only_the_readings_of_it() {
        use measure::clock::share::Share;
        let mut r = rows();
        let moved = Load {
            share: Some((Share { ratio: 3.7 }, Share { ratio: 2.2 })),
            ..load(0.0, 0.0)
        };
        let last = &mut r[1];
        for k in [
            &mut last.index,
            &mut last.pointer,
            &mut last.seq,
            &mut last.seq_vec,
        ] {
            k.tally.load = Some(moved);
        }
        last.huge.as_mut().unwrap().tally.load = Some(moved);
        let section = tally(0, load(0.0, 0.0));
        let l = ladder_says(&as_taken(&r, section), section);
        assert!(l[0].starts_with("at 4 KiB the pointer chase"), "{l:?}");
        for s in &l[1..4] {
            assert!(s.starts_with("provisional: 0 of "), "{s}");
            assert!(s.contains("share moved (3.70x to 2.20x: likely"), "{s}");
        }
    }

    #[test]
    fn contention_on_the_other_cores_is_named_beside_the_shared_levels() {
        let streamer = tally(0, load(0.0, 0.95));
        let l = taken_say(streamer);
        assert!(
            !l[0].starts_with("provisional"),
            "contention is not disturbance"
        );
        assert!(
            l.last().unwrap().starts_with("contention: 0.95 cores"),
            "{l:?}"
        );
        let b = boundaries_say(streamer);
        assert!(
            b.iter().any(|s| s.starts_with("contention: 0.95 cores")),
            "{b:?}"
        );
        // The general note stays last, after the computed readings and their marks.
        assert!(b.last().unwrap().starts_with("a knee is the steepest rise"));
    }

    #[test]
    fn the_huge_page_verdict_follows_the_backing_and_the_rounds() {
        let r = rows();
        let last = &r[1];
        let ok = HugeCheck {
            huge_pct: Some(100.0),
            pointer_pct: Some(0.0),
        };
        assert!(
            huge_verdict(last, ok)
                .unwrap()
                .starts_with("translation adds")
        );
        let not = HugeCheck {
            huge_pct: Some(40.0),
            ..ok
        };
        assert!(
            huge_verdict(last, not)
                .unwrap()
                .contains("not as requested")
        );
        let close = row(131072, 170.0, 165.0, 0.5);
        assert!(huge_verdict(&close, ok).unwrap().contains("under 10%"));
        assert_eq!(
            huge_verdict(
                &Row {
                    huge: None,
                    ..close
                },
                ok
            ),
            None
        );
    }

    #[test]
    fn a_sentence_whose_rounds_were_all_disturbed_says_so_on_its_own() {
        let mut r = rows();
        // The largest set's sweeps: every round disturbed (a lap longer than a time slice).
        r[1].seq.tally = Tally {
            rounds: 10,
            disturbed: 10,
            disturbed_used: 10,
            ..Default::default()
        };
        let section = r.iter().fold(Tally::default(), |t, x| t.merge(&x.tally()));
        // 10 of 310 rounds is under the share that makes the section provisional.
        let v = ladder_says(&r, section.with_load(load(0.0, 0.0)));
        assert!(v[0].starts_with("at 4 KiB the pointer chase"), "{v:?}");
        assert!(v[1].starts_with("128 MiB is 155x slower"), "{v:?}");
        assert!(
            v[2].starts_with("provisional: 10 of 70 rounds were disturbed"),
            "{v:?}"
        );
        assert!(v[2].contains("its disturbed rounds stand in; the rest give: sweeping"));
        assert_eq!(
            curve_tally(&r, &section).disturbed_used,
            0,
            "the curve had clean rounds"
        );
    }

    #[test]
    fn the_chains_read_quietly_give_the_overlap_and_littles_law() {
        let all = mlp_verdict(&mlp::tests::mlp(0, 0.0)).join(" ");
        assert!(all.contains("10.0 loads in flight"), "{all}");
        assert!(all.contains("a limit on misses in flight"), "{all}");
        assert!(all.contains("Little's law"), "{all}");
        assert!(!all.contains("provisional") && !all.contains("contention"));
    }

    #[test]
    fn disturbed_chains_are_provisional_and_busy_cores_are_contention() {
        let s = mlp_verdict(&mlp::tests::mlp(7, 0.0));
        assert!(s[0].starts_with("provisional: 7 of 50 rounds"), "{}", s[0]);
        let s = mlp_verdict(&mlp::tests::mlp(0, 0.9));
        assert!(!s[0].starts_with("provisional"), "{s:?}");
        assert!(s.last().unwrap().starts_with("contention"), "{s:?}");
    }

    #[test]
    fn a_knee_agrees_with_a_reported_size_only_within_a_doubling() {
        let reported = vec![("L2".to_string(), 1 << 20), ("L3".to_string(), 32 << 20)];
        let near = |a, b| knee_verdict(knees::nearest_reported(a, b, &reported));
        assert_eq!(near(1024, 2048), "agrees with L2 1 MiB");
        assert!(
            near(4096, 8192).contains("over a doubling away"),
            "{}",
            near(4096, 8192)
        );
        assert_eq!(
            knee_verdict(knees::nearest_reported(1024, 2048, &[])),
            "no reported size to compare with"
        );
    }

    #[test]
    fn the_top_level_is_read_against_the_largest_reported_cache() {
        let b = |top: u64| Boundaries {
            top_from_kib: Some(top),
            top_of_kib: Some(131072),
            last_knee_kib: None,
            found: Vec::new(),
            stable: 16,
            points: 16,
        };
        let l3 = 32 << 20;
        assert!(top_level(&b(4096), l3, 128 << 20).contains("got less of that cache"));
        assert!(top_level(&b(32768), l3, 128 << 20).contains("the report and the curve agree"));
        assert!(top_level(&b(65536), l3, 128 << 20).contains("kept rising past the caches"));
        assert!(top_level(&b(4096), l3, 32 << 20).contains("not memory yet"));
    }
}
