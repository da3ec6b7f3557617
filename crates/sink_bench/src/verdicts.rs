//! The verdicts: each a sentence computed from this run's numbers, printed once as a `*` line
//! at the end of the part it concludes, and recorded as `#META verdict_<name>` for the
//! summary that `cargo xtask run-all` builds.

use crate::stats::{self, SeriesStats};
use measure::clock::CoreClock;
use measure::disturb::Tally;
use measure::out::Out;
use measure::stats::Summary;

/// Prints a verdict (wrapped to the report width) and records it as `#META verdict_<name>`.
pub fn say(out: &mut Out, name: &str, text: &str) {
    out.conclude(text);
    out.meta(&format!("verdict_{name}"), text);
}

/// A part's verdicts, named, passed through the one rule ([`measure::show::marked`]): the
/// first says "provisional:" when the part's passes were disturbed, and where `shared` (the
/// 4 MiB array sits in a level the cores share) a contention verdict follows when other
/// cores were busy. A quiet part's verdicts come back unchanged.
pub fn marked(tally: &Tally, shared: bool, named: Vec<(&str, String)>) -> Vec<(String, String)> {
    let names: Vec<String> = named.iter().map(|(n, _)| n.to_string()).collect();
    let texts = measure::show::marked(tally, shared, named.into_iter().map(|(_, t)| t).collect());
    texts
        .into_iter()
        .enumerate()
        .map(|(i, t)| (names.get(i).cloned().unwrap_or("contention".into()), t))
        .collect()
}

/// Prints and records every verdict of [`marked`].
pub fn say_all(out: &mut Out, verdicts: &[(String, String)]) {
    for (name, text) in verdicts {
        say(out, name, text);
    }
}

/// Part 1's verdicts, marked by `tally` (part 1's passes, with the add chains behind `pace`).
pub fn part1(p1: &[SeriesStats], step: f64, read: f64, pace: String, t: &Tally) -> Named {
    let (sa, sb, sc) = (&p1[0].summary, &p1[1].summary, &p1[2].summary);
    let named = vec![
        ("dead_loop", dead_loop(sa, sb, step, read)),
        ("consumed", consumed(sb, sc)),
        ("pace", pace),
    ];
    // The 4 MiB array is read from a cache level the cores share.
    marked(t, true, named)
}

/// Part 2's verdicts, marked by `tally` (the warm passes here and in the fresh processes).
pub fn part2(win: &SeriesStats, wfr: &SeriesStats, runs: usize, t: &Tally) -> Named {
    let mut named = vec![("well_defined", well_defined(&win.summary, &wfr.summary))];
    if let Some(s) = single_run(win, wfr, runs) {
        named.push(("single_run", s));
    }
    named.push(("pairs", pair_shares(win, wfr, runs)));
    marked(t, false, named)
}

/// Part 3's verdicts, marked by `tally` (this process's cold pass and the fresh ones').
pub fn part3(cin: &SeriesStats, cfr: &SeriesStats, runs: usize, cost: String, t: &Tally) -> Named {
    let shot = cin.summary.median;
    let named = vec![
        ("one_shot", one_shot(shot, &cfr.samples, &cfr.summary, runs)),
        ("cold_cost", cost),
    ];
    marked(t, false, named)
}

/// Verdicts with their names (`#META verdict_<name>`).
pub type Named = Vec<(String, String)>;

/// Part 1, (a) against the clock: is anything left between the two reads?
pub fn dead_loop(sa: &Summary, sb: &Summary, step: f64, read: f64) -> String {
    let floor = step.max(read);
    let share = sa.median / sb.median * 100.0;
    if sa.median <= 3.0 * floor {
        format!(
            "With the sum thrown away a pass reads as {:.0} ns at the median and at most {:.0} ns, \
             {:.1} steps of the clock: the timed region is two clock reads and nothing else. The \
             compiler found the sum dead and removed the loop; (a) comes to {share:.4} % of (b).",
            sa.median,
            sa.max,
            sa.median / step
        )
    } else if sa.median < 0.5 * sb.median {
        format!(
            "With the sum thrown away a pass takes {:.0} ns, {share:.2} % of (b): more than two \
             clock reads, less than the loop; part of the work survived.",
            sa.median
        )
    } else {
        format!(
            "With the sum thrown away a pass still takes {:.0} ns, {share:.1} % of (b): this build \
             kept the dead loop. Never count on either outcome; look at the code.",
            sa.median
        )
    }
}

/// Part 1, (b) against (c): do the two ways of consuming the sum agree?
pub fn consumed(sb: &Summary, sc: &Summary) -> String {
    let cb = sc.median / sb.median;
    if (cb - 1.0).abs() < 0.02 {
        format!(
            "(c) over (b) is {cb:.3}: handing the sum to black_box and storing it for the \
             checksum are equally honest ways to keep it, and the one store costs nothing here."
        )
    } else {
        format!(
            "(c) over (b) is {cb:.3}, a difference of {:.1} %, more than one store can cost: not \
             the store; part 2 measures how much passes of the same code vary.",
            (cb - 1.0).abs() * 100.0
        )
    }
}

/// Part 1: does the add chain set the loop's pace?
pub fn pace(per_elem: f64, cc: &CoreClock, add_lat: Option<&Summary>, where_fits: &str) -> String {
    let cycles = cc
        .cycles(per_elem)
        .zip(cc.ghz)
        .map_or(String::new(), |(c, g)| {
            format!(" ({c:.2} cycles at {g:.2} GHz)")
        });
    match add_lat {
        Some(l) if (per_elem / l.median - 1.0).abs() <= 0.15 => format!(
            "At {per_elem:.3} ns per element{cycles} the loop runs at the latency of one dependent \
             add ({:.3} ns, a ratio of {:.2}): that is why the 4 MiB array, in {where_fits} by \
             reported sizes, does not show.",
            l.median,
            per_elem / l.median
        ),
        Some(l) => format!(
            "At {per_elem:.3} ns per element{cycles} the loop takes {:.2} times the latency of one \
             dependent add ({:.3} ns): something besides the add chain sets its pace, with the \
             4 MiB array in {where_fits} by reported sizes.",
            per_elem / l.median,
            l.median
        ),
        None => format!(
            "The loop takes {per_elem:.3} ns per element{cycles}; the latency of one float add was \
             not measured on this architecture, so whether the add chain sets the pace is unknown."
        ),
    }
}

/// Part 2: the warm pass in one process against fresh processes.
pub fn well_defined(mi: &Summary, mf: &Summary) -> String {
    let r = mf.median / mi.median;
    if (r - 1.0).abs() < 0.02 {
        format!(
            "The loop's cost is well defined: the median of the fresh processes is {r:.3} times \
             the median in one process."
        )
    } else {
        format!(
            "The median of the fresh processes is {r:.3} times the median in one process: the \
             process itself (its placement, its layout, its clock) is part of what was measured."
        )
    }
}

/// Part 2: the slowest single pass, in whichever series spreads more; nothing when it is
/// within 5 % of every other pass of its series (then no single run misleads by that much).
pub fn single_run(win: &SeriesStats, wfr: &SeriesStats, runs: usize) -> Option<String> {
    let (wide, wide_name) = if wfr.summary.max_over_min >= win.summary.max_over_min {
        (wfr, format!("one of the {runs} fresh processes"))
    } else {
        (win, format!("one of the {runs} passes in one process"))
    };
    let w = stats::worst(&wide.samples, 5.0).filter(|w| w.pairs_over > 0)?;
    Some(format!(
        "A single run is not: {wide_name} took {:.0} ns, {:.3} times the fastest, so a comparison \
         with one run per side has one chance in {runs} of reporting a {:.1} % difference that \
         is not there ({} of its {} pairs differ by more than 5 %).",
        w.value,
        w.over_min,
        (w.over_min - 1.0) * 100.0,
        w.pairs_over,
        w.pairs_with_it,
    ))
}

/// Part 2: what the shares of pairs over 2, 5 and 10 percent leave one run per side able to
/// resolve, and whether the medians agree.
pub fn pair_shares(win: &SeriesStats, wfr: &SeriesStats, runs: usize) -> String {
    let (oi, of) = (win.over.unwrap_or([0.0; 3]), wfr.over.unwrap_or([0.0; 3]));
    let (first_dirty, clean) = stats::first_exceeded_and_clean(win, wfr);
    let k = |d: f64| stats::THRESHOLDS.iter().position(|t| *t == d).unwrap_or(0);
    let mut s = match (first_dirty, clean) {
        (Some(d), Some(c)) => format!(
            "One run per side cannot resolve a {d:.0} % difference: {:.1} % of the pairs in one \
             process and {:.1} % across fresh ones differ by more; no pair differs by more than \
             {c:.0} %, so here one run per side told apart only differences above that, and a \
             noisier run moves the line.",
            oi[k(d)] * 100.0,
            of[k(d)] * 100.0
        ),
        (Some(d), None) => format!(
            "One run per side cannot resolve a {d:.0} % difference, nor even a 10 % one: {:.1} % \
             of the pairs in one process and {:.1} % across fresh ones differ by more than 10 %.",
            oi[2] * 100.0,
            of[2] * 100.0
        ),
        (None, _) => {
            "No pair of single passes differs by more than 2 %: a quiet run; the next need not be."
                .to_string()
        }
    };
    let med_diff = (wfr.summary.median / win.summary.median - 1.0).abs() * 100.0;
    s.push_str(&if med_diff < 2.0 {
        format!(
            " Only the medians of {runs}, which agree within {}, are a measurement.",
            if med_diff < 0.1 {
                "0.1 %".to_string()
            } else {
                format!("{med_diff:.1} %")
            }
        )
    } else {
        format!(
            " Even the medians of {runs} differ by {med_diff:.1} % between one process and fresh \
             ones."
        )
    });
    s
}

/// Part 3: where the one in-process cold pass falls among the fresh ones.
pub fn one_shot(shot: f64, cold_fresh: &[f64], cf: &Summary, runs: usize) -> String {
    let faster = cold_fresh.iter().filter(|&&v| v < shot).count();
    let position = if shot < cf.min {
        format!("below all {runs} fresh cold passes")
    } else if shot > cf.max {
        format!("above all {runs} fresh cold passes")
    } else {
        format!("{faster} of the {runs} fresh ones were faster")
    };
    format!(
        "This process has one number for its cold pass, at {:.3} of the fresh median and {:.3} of \
         their minimum ({position}); the fresh ones span a factor of {:.3}, and nothing in the \
         one number says where in that span it fell.",
        shot / cf.median,
        shot / cf.min,
        cf.max_over_min
    )
}

/// A cold pass more than this share above a warm one is said to cost more.
const COLD_COSTS_MORE: f64 = 0.05;

/// Part 3: what the cold pass costs over a warm one, and the page faults behind it.
pub fn cold_cost(
    cold_over_warm: f64,
    fault_med: Option<f64>,
    warm_fault_max: Option<u64>,
    pages: u64,
) -> String {
    let warm_faults = match warm_fault_max {
        Some(0) => "none".to_string(),
        Some(w) => format!("at most {w}"),
        None => "an unknown number".to_string(),
    };
    match fault_med {
        Some(f) if f > 0.0 && cold_over_warm > 1.0 + COLD_COSTS_MORE => format!(
            "The cold pass costs {cold_over_warm:.2} times a warm one (fresh medians) because its \
             page faults, {f:.0} for the {pages} pages of the array, land inside the timed region; \
             the warm pass takes {warm_faults}."
        ),
        Some(f) if f > 0.0 => format!(
            "The cold pass costs {cold_over_warm:.2} times a warm one (fresh medians): its page \
             faults, {f:.0} for the {pages} pages of the array (the warm pass takes \
             {warm_faults}), land inside the timed region but did not show in this run's time."
        ),
        Some(_) => format!(
            "The cold pass costs {cold_over_warm:.2} times a warm one (fresh medians), yet \
             getrusage counted no page faults in it: the array was already backed."
        ),
        None => format!(
            "The cold pass costs {cold_over_warm:.2} times a warm one (fresh medians); the page \
             faults behind it could not be counted here."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(v: &[f64]) -> Summary {
        Summary::of(v).unwrap()
    }

    use measure::disturb::{Evidence, Load};
    use measure::rounds::Timed;

    fn ev(disturbed: bool) -> Evidence {
        Evidence {
            wall_ns: 550_000,
            switches: u64::from(disturbed),
            waited_ns: Some(if disturbed { 3_000_000 } else { 0 }),
            off_cpu_ns: 0,
        }
    }

    /// A series of passes around `ns`, the first `hit` of them disturbed (and slow).
    fn series(key: &'static str, ns: f64, n: usize, hit: usize) -> SeriesStats {
        let t = Timed {
            values: (0..n)
                .map(|i| if i < hit { ns * 3.0 } else { ns + i as f64 })
                .collect(),
            evidence: (0..n).map(|i| ev(i < hit)).collect(),
        };
        SeriesStats::of_passes(key, key, &t)
    }

    fn tally(of: &[&SeriesStats], load: Load) -> Tally {
        of.iter()
            .fold(Tally::default(), |t, s| t.merge(&s.tally()))
            .with_load(load)
    }

    fn quiet() -> Load {
        Load {
            core: Some(1),
            on_core: Some(0.0),
            steal: Some(0.0),
            elsewhere: Some(0.01),
            ..Default::default()
        }
    }

    fn busy() -> Load {
        Load {
            on_core: Some(0.5),
            ..quiet()
        }
    }

    fn texts(v: &Named) -> Vec<&str> {
        v.iter().map(|(_, t)| t.as_str()).collect()
    }

    #[test]
    fn quiet_parts_carry_no_mark_and_disturbed_ones_are_provisional_first() {
        let p1 = [
            series("discarded", 25.0, 30, 0),
            series("sink", 550_000.0, 30, 0),
            series("checksum", 550_000.0, 30, 0),
        ];
        let t1 = tally(&[&p1[0], &p1[1], &p1[2]], quiet());
        let q = part1(&p1, 20.0, 22.0, "pace.".into(), &t1);
        assert_eq!(q.len(), 3);
        assert!(
            texts(&q).iter().all(|t| !t.contains("provisional")),
            "{q:?}"
        );
        // The same passes beside other work on the core: the first verdict says so, and its
        // figures are the clean passes' (the slow disturbed ones are left out).
        let p1 = [
            series("discarded", 25.0, 33, 3),
            series("sink", 550_000.0, 33, 3),
            series("checksum", 550_000.0, 33, 3),
        ];
        assert_eq!(p1[1].summary.n, 30);
        assert!(p1[1].summary.max < 560_000.0);
        let t1 = tally(&[&p1[0], &p1[1], &p1[2]], busy());
        let d = part1(&p1, 20.0, 22.0, "pace.".into(), &t1);
        assert_eq!(d[0].0, "dead_loop");
        assert!(
            d[0].1
                .starts_with("provisional: 9 of 99 rounds were disturbed (0.50 cores"),
            "{d:?}"
        );

        let (win, wfr) = (series("w", 550_000.0, 30, 0), series("f", 560_000.0, 30, 0));
        let q2 = part2(&win, &wfr, 30, &tally(&[&win, &wfr], quiet()));
        assert!(
            texts(&q2).iter().all(|t| !t.contains("provisional")),
            "{q2:?}"
        );
        // Fewer than a tenth of the passes disturbed, the figures from the clean ones: the one
        // rule lets it stand; more, and it is provisional.
        let few = series("f", 560_000.0, 30, 5);
        let q2 = part2(&win, &few, 30, &tally(&[&win, &few], quiet()));
        assert!(!q2[0].1.contains("provisional"), "{q2:?}");
        let wfr = series("f", 560_000.0, 30, 7);
        let d2 = part2(&win, &wfr, 30, &tally(&[&win, &wfr], quiet()));
        assert!(d2[0].1.starts_with("provisional: 7 of 60 rounds"), "{d2:?}");

        let cin = series("c", 1_300_000.0, 1, 1);
        let cfr = series("cf", 1_290_000.0, 30, 0);
        let d3 = part3(
            &cin,
            &cfr,
            30,
            "cost.".into(),
            &tally(&[&cin, &cfr], quiet()),
        );
        assert!(
            d3[0].1.starts_with(
                "provisional: 1 of 31 rounds were disturbed; where a figure had no clean round"
            ),
            "{d3:?}"
        );
    }

    #[test]
    fn contention_is_named_for_the_shared_level_only() {
        let p1 = [
            series("discarded", 25.0, 30, 0),
            series("sink", 550_000.0, 30, 0),
            series("checksum", 550_000.0, 30, 0),
        ];
        let streamer = Load {
            elsewhere: Some(0.95),
            ..quiet()
        };
        let t = tally(&[&p1[0], &p1[1], &p1[2]], streamer);
        let v = part1(&p1, 20.0, 22.0, "pace.".into(), &t);
        assert_eq!(v.len(), 4);
        assert_eq!(v[3].0, "contention");
        assert!(v[3].1.starts_with("contention: 0.95 cores"), "{v:?}");
        assert!(!v[0].1.contains("provisional"));
        let (win, wfr) = (series("w", 550_000.0, 30, 0), series("f", 560_000.0, 30, 0));
        let v2 = part2(&win, &wfr, 30, &tally(&[&win, &wfr], streamer));
        assert!(texts(&v2).iter().all(|t| !t.starts_with("contention")));
    }

    #[test]
    fn a_dead_loop_is_named_only_when_the_timing_shows_it() {
        let b = summary(&[500_000.0, 501_000.0, 502_000.0]);
        let gone = dead_loop(&summary(&[20.0, 20.0, 30.0]), &b, 20.0, 22.0);
        assert!(gone.contains("removed the loop"), "{gone}");
        let kept = dead_loop(&summary(&[499_000.0, 500_000.0]), &b, 20.0, 22.0);
        assert!(kept.contains("kept the dead loop"), "{kept}");
        let part = dead_loop(&summary(&[100_000.0]), &b, 20.0, 22.0);
        assert!(part.contains("part of the work survived"), "{part}");
    }

    #[test]
    fn pair_shares_say_what_one_run_resolves() {
        let steady = SeriesStats::of("a", "a", &[100.0, 101.0, 100.5]).unwrap();
        let jumpy = SeriesStats::of("b", "b", &[100.0, 106.0, 100.0]).unwrap();
        let s = pair_shares(&steady, &jumpy, 3);
        assert!(
            s.starts_with("One run per side cannot resolve a 2 %"),
            "{s}"
        );
        assert!(s.contains("no pair differs by more than 10 %"), "{s}");
        let s = pair_shares(&steady, &steady, 3);
        assert!(s.starts_with("No pair"), "{s}");
        assert!(s.contains("agree within 0.1 %"), "{s}");
    }

    #[test]
    fn a_single_run_is_blamed_only_when_it_is_far_off() {
        let steady = SeriesStats::of("a", "a", &[100.0, 101.0, 100.5]).unwrap();
        assert_eq!(single_run(&steady, &steady, 3), None);
        let jumpy = SeriesStats::of("b", "b", &[100.0, 106.0, 100.0]).unwrap();
        let s = single_run(&steady, &jumpy, 3).expect("a pass 6 % off");
        assert!(
            s.contains("took 106 ns") && s.contains("2 of its 2 pairs"),
            "{s}"
        );
    }

    #[test]
    fn the_faults_are_named_the_cause_only_when_the_cold_pass_costs_more() {
        let dear = cold_cost(1.8, Some(1024.0), Some(0), 1024);
        assert!(dear.contains("because its page faults"), "{dear}");
        let cheap = cold_cost(1.01, Some(1024.0), Some(0), 1024);
        assert!(!cheap.contains("because"), "{cheap}");
        assert!(cheap.contains("did not show"), "{cheap}");
    }

    #[test]
    fn the_one_shot_is_placed_among_the_fresh_ones() {
        let fresh = [100.0, 110.0, 120.0];
        let s = one_shot(105.0, &fresh, &summary(&fresh), 3);
        assert!(s.contains("1 of the 3 fresh ones were faster"), "{s}");
        assert!(one_shot(90.0, &fresh, &summary(&fresh), 3).contains("below all 3"));
    }
}
