//! What each section's numbers say: pure functions of the section's typed result (the shapes
//! read from the binary, each version's two orders, the derived cost of a misprediction, the
//! patterns, the two builds of one source, each with its rounds and the evidence of
//! disturbance behind them), which print nothing. Every reading drawn from timed rounds
//! passes through [`marked`]: from disturbed rounds, it begins "provisional:". No reading
//! here depends on the shared cache levels, so none names contention.

use crate::bench::{Built, Order, Orders, Pattern, PatternTimes, Regularity};
use crate::report::{Miss, MissFound, PatternRow, PatternsFound};
use crate::{PerVersion, Version};
use branch::shape::Shape;
use measure::clock::CoreClock;
use measure::disturb::Tally;
use measure::show::marked;
use measure::stats::Summary;

/// Whether the real-branch version can measure prediction at all, and what the other two
/// versions became.
pub fn shape_sentence(shapes: &PerVersion<Option<Shape>>) -> String {
    let others: Vec<String> = shapes
        .iter()
        .filter(|(v, _)| *v != Version::RealBranch)
        .map(|(v, s)| format!("{} {}", v.label(), s.map_or("unchecked", Shape::word)))
        .collect();
    let branchy = shapes
        .iter()
        .filter(|(v, s)| *v != Version::RealBranch && **s == Some(Shape::Branch))
        .count();
    let others = format!(
        "{} ({})",
        match branchy {
            0 => "the other two have no jump to predict",
            1 => "one of the other two has a jump as well",
            _ => "the other two have jumps as well",
        },
        others.join(", ")
    );
    match shapes.real {
        Some(Shape::Branch) => format!(
            "the real-branch version has its jump: it is what branch prediction can be measured \
             on; {others}."
        ),
        Some(_) => format!(
            "! the real-branch version has no branch in this build: its numbers below do not \
             measure prediction; {others}."
        ),
        None => "the binary could not be read back, so no version's shape is known.".into(),
    }
}

/// A sentence about one variant's random/sorted comparison, computed from its numbers.
pub fn order_sentence(o: &Order) -> String {
    let (label, r, s, ratio) = (o.version.label(), &o.random, &o.sorted, o.ratio());
    let apart = r.min > s.max || r.max < s.min;
    let checked = o
        .shape
        .map_or("unchecked".to_string(), |s| format!("checked: {s}"));
    if apart && ratio < 1.0 / 1.2 {
        return format!(
            "{label}: sorted order is {:.2} x slower, every round ({checked}): not what branch \
             prediction explains; rerun before reading anything into it",
            1.0 / ratio
        );
    }
    match (apart && ratio > 1.2, o.shape) {
        (false, Some(Shape::Branch)) => format!(
            "{label}: a branch is there ({checked}), yet random order is not clearly slower ({ratio:.2} x)"
        ),
        (false, None) => {
            format!("{label}: order makes no clear difference ({ratio:.2} x) ({checked})")
        }
        (false, _) => format!(
            "{label}: order makes no clear difference ({ratio:.2} x): there is nothing to predict ({checked})"
        ),
        (true, Some(Shape::Branch)) => format!(
            "{label}: random order is {ratio:.2} x slower ({checked}): that is the price of wrong guesses"
        ),
        (true, _) => format!(
            "{label}: random order is {ratio:.2} x slower although no branch was found ({checked})"
        ),
    }
}

/// On sorted data, the predicted branch against the branchless code: a sentence only when
/// their ranges do not overlap.
pub fn predicted_vs_branchless(real: &Summary, less: &Summary) -> Option<String> {
    if less.min > real.max {
        Some(format!(
            "on sorted data the predicted branch beats the branchless code ({:.2} x): computing \
             every element costs more than a branch that is guessed right.",
            less.median / real.median
        ))
    } else if less.max < real.min {
        Some(format!(
            "even on sorted data the branchless code is faster than the predicted branch here \
             ({:.2} x).",
            real.median / less.median
        ))
    } else {
        None
    }
}

/// Section 3's result from the real branch's two orders: the cost of one misprediction, or
/// why it cannot be derived, with the rounds behind it.
pub fn derive_miss(real: &Order, taken: f64) -> MissFound {
    let miss_rate = taken.min(1.0 - taken);
    let (r, s) = (&real.random, &real.sorted);
    let extra = r.median - s.median;
    let miss = if real.shape.is_some_and(|s| s != Shape::Branch) {
        Err("the real-branch function has no branch in this build.".into())
    } else if extra <= 0.0 || r.min <= s.max {
        Err(format!(
            "random order was not clearly slower than sorted (medians {:.3} and {:.3} ns, ranges \
             overlap).",
            r.median, s.median
        ))
    } else {
        Ok(Miss {
            ns: extra / miss_rate,
            low: (r.min - s.max) / miss_rate,
            high: (r.max - s.min) / miss_rate,
        })
    };
    MissFound {
        extra,
        miss_rate,
        taken,
        miss,
        tally: real.tally,
    }
}

/// Section 3's reading, marked when its rounds were disturbed.
pub fn miss_verdict(found: &MissFound, cc: &CoreClock) -> Vec<String> {
    let s = match &found.miss {
        Ok(m) => format!(
            "each wrong guess throws away about {:.1} ns of work{}: the pipeline is emptied and \
             refilled. The book's machine read about 6 ns.",
            m.ns,
            cc.cycles(m.ns)
                .map_or(String::new(), |c| format!(", some {c:.0} cycles"))
        ),
        Err(why) => format!("not derived: {why}"),
    };
    marked(&found.tally, false, vec![s])
}

/// Section 2's reading: one sentence per version and, on sorted data, the predicted branch
/// against the branchless code; marked when the rounds were disturbed.
pub fn orders_verdict(found: &Orders) -> Vec<String> {
    let o = &found.orders;
    let mut out: Vec<String> = o.iter().map(|(_, o)| order_sentence(o)).collect();
    out.extend(predicted_vs_branchless(
        &o.real.sorted,
        &o.branchless.sorted,
    ));
    marked(&found.tally, false, out)
}

/// One pattern against always-true: predicted if within 1.3 x, unclear if dearer but with
/// rounds overlapping always-true's, else how many misses its extra time implies.
pub fn judge_pattern(
    p: &Pattern,
    (time, tally): (Summary, Tally),
    always: Option<Summary>,
    miss: Option<Miss>,
) -> PatternRow<'_> {
    let base = always.map_or(f64::NAN, |a| a.median);
    let vs_always = time.median / base;
    let implied_miss = miss.map(|m| ((time.median - base) / m.ns).max(0.0));
    let note = if vs_always <= 1.3 {
        "predicted: as cheap as always-true".to_string()
    } else if always.is_some_and(|a| time.min <= a.max) {
        "unclear: rounds overlap".to_string()
    } else {
        match implied_miss {
            Some(s) => format!("missed: as if {:.0}% paid a miss", s * 100.0),
            None => format!("{vs_always:.1} x always-true"),
        }
    };
    PatternRow {
        pattern: p,
        time,
        vs_always,
        implied_miss,
        note,
        tally,
    }
}

/// Section 4's rows, each pattern judged against always-true.
pub fn judge_patterns(
    patterns: &[Pattern],
    timed: PatternTimes,
    miss: Option<Miss>,
) -> PatternsFound<'_> {
    let always = patterns
        .iter()
        .zip(&timed.times)
        .find(|(p, _)| p.kind == Regularity::Always)
        .map(|(_, t)| t.0);
    PatternsFound {
        rows: patterns
            .iter()
            .zip(timed.times)
            .map(|(p, t)| judge_pattern(p, t, always, miss))
            .collect(),
        tally: timed.tally,
    }
}

/// Section 4's reading: the slowest pattern and whether the periodic ones were learned;
/// marked when the rounds were disturbed.
pub fn patterns_verdict(found: &PatternsFound) -> Vec<String> {
    let worst = found
        .rows
        .iter()
        .max_by(|a, b| a.time.median.total_cmp(&b.time.median))
        .map_or("?", |r| r.pattern.name);
    let out = vec![
        format!("the slowest pattern here is \"{worst}\"."),
        periodic_verdict(&found.rows),
    ];
    marked(&found.tally, false, out)
}

/// The first word of the periodic verdict, for `#META verdict_patterns` (never marked).
pub fn periodic_word(rows: &[PatternRow]) -> String {
    let s = periodic_verdict(rows);
    s.split(':').next().unwrap_or(&s).to_string()
}

/// Whether the predictor learned the periodic patterns: each compared with the random one.
pub fn periodic_verdict(rows: &[PatternRow]) -> String {
    let regular_max = rows
        .iter()
        .filter(|r| matches!(r.pattern.kind, Regularity::Periodic(_)))
        .map(|r| r.time.median)
        .fold(0.0, f64::max);
    let Some(random) = rows.iter().find(|r| r.pattern.kind == Regularity::Random) else {
        return "no random pattern was timed.".into();
    };
    if random.time.median > 1.5 * regular_max {
        format!(
            "every periodic pattern is far cheaper than the random one ({:.1}x the dearest of \
             them): short periods are learned. What costs is not a branch but a branch that \
             cannot be predicted.",
            random.time.median / regular_max
        )
    } else {
        "some periodic pattern cost about as much as the random one here: this predictor did not \
         learn it."
            .into()
    }
}

/// What section 5 says: each build's shape and whether the order mattered, from the run's
/// figures. Marked through [`marked`] when the rounds were disturbed.
pub fn same_source(built: &[Built], tally: &measure::disturb::Tally) -> Vec<String> {
    let word = |s: Option<Shape>| s.map_or("an unchecked shape", Shape::word);
    let ratio = |s: &Summary, r: &Summary| r.median / s.median;
    let mut say = vec![];
    for b in built {
        say.push(format!(
            "{} ({}): {} in the binary; random / sorted {:.2}x.",
            b.label,
            b.flag,
            word(b.shape),
            ratio(&b.sorted, &b.random)
        ));
    }
    if let [sel, br] = built {
        let branchy = br.shape == Some(Shape::Branch) && sel.shape != Some(Shape::Branch);
        say.push(if branchy && ratio(&br.sorted, &br.random) > 1.5 {
            format!(
                "one source, two builds: where the build made a branch, random order costs \
                 {:.1}x sorted; where the compiler chose a conditional move, order makes {:.2}x. \
                 The machine and the source did not change, the compiler's choice did.",
                ratio(&br.sorted, &br.random),
                ratio(&sel.sorted, &sel.random)
            )
        } else {
            "the two builds did not show the appendix's difference here (see their shapes and \
             ratios above): the lesson is not drawn from this run."
                .to_string()
        });
    }
    marked(tally, false, say)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(random: &[f64], sorted: &[f64]) -> Order {
        Order {
            version: Version::RealBranch,
            shape: Some(Shape::Branch),
            random: Summary::of(random).unwrap(),
            sorted: Summary::of(sorted).unwrap(),
            tally: Tally::default(),
        }
    }

    /// A tally of 60 rounds: quiet, or with 20 disturbed and half a core of other work.
    fn tally(disturbed: bool) -> Tally {
        let load = measure::disturb::Load {
            core: Some(1),
            on_core: Some(if disturbed { 0.5 } else { 0.0 }),
            steal: Some(0.0),
            elsewhere: Some(if disturbed { 1.0 } else { 0.0 }),
            ..Default::default()
        };
        Tally {
            rounds: 60,
            disturbed: if disturbed { 20 } else { 0 },
            load: Some(load),
            ..Default::default()
        }
    }

    fn orders(disturbed: bool) -> Orders {
        let o = PerVersion::from_fn(|v| Order {
            version: v,
            ..order(&[3.0, 3.1, 3.2], &[0.4, 0.5, 0.6])
        });
        Orders {
            orders: o,
            tally: tally(disturbed),
        }
    }

    fn pattern(name: &'static str, kind: Regularity) -> Pattern {
        Pattern {
            name,
            kind,
            taken: 0.5,
            values: vec![],
        }
    }

    /// Every reading of sections 2 to 4 from synthetic results, quiet or disturbed.
    fn readings(disturbed: bool) -> Vec<Vec<String>> {
        let o = orders(disturbed);
        let mut real = o.orders.real.clone();
        real.tally = tally(disturbed);
        let miss = derive_miss(&real, 0.5);
        assert!(miss.miss.is_ok());
        let patterns = [
            pattern("always true", Regularity::Always),
            pattern("alternating", Regularity::Periodic(2)),
            pattern("random", Regularity::Random),
        ];
        let s = |m: f64| Summary::of(&[m, m * 1.1]).unwrap();
        let timed = PatternTimes {
            times: [0.5, 0.6, 4.0].map(|m| (s(m), tally(disturbed))).to_vec(),
            tally: tally(disturbed),
        };
        let found = judge_patterns(&patterns, timed, miss.miss.clone().ok());
        let mut builds = [
            built("a", Shape::CondMove, 0.7),
            built("b", Shape::Branch, 3.5),
        ];
        builds.iter_mut().for_each(|b| b.tally = tally(disturbed));
        // Random order no slower: the cost of a miss is not derived, and says why.
        let flat = derive_miss(&order(&[0.5, 0.6], &[0.5, 0.6]), 0.5);
        let flat = MissFound {
            tally: tally(disturbed),
            ..flat
        };
        vec![
            orders_verdict(&o),
            miss_verdict(&miss, &CoreClock::default()),
            miss_verdict(&flat, &CoreClock::default()),
            patterns_verdict(&found),
            same_source(&builds, &tally(disturbed)),
        ]
    }

    #[test]
    fn a_disturbed_result_never_reads_unmarked() {
        for r in readings(true) {
            assert!(
                r[0].starts_with("provisional: 20 of 60 rounds were disturbed"),
                "{r:?}"
            );
            assert!(r[0].contains("0.50 cores of other work on core 1"), "{r:?}");
            // Nothing here reads the shared levels: contention is not named.
            assert!(!r.iter().any(|s| s.contains("contention")), "{r:?}");
        }
    }

    #[test]
    fn a_quiet_result_reads_without_marks() {
        for r in readings(false) {
            assert!(!r.is_empty());
            assert!(!r.iter().any(|s| s.contains("provisional")), "{r:?}");
        }
        let r = readings(false);
        assert!(
            r[1][0].starts_with("each wrong guess throws away about 5.2 ns"),
            "{r:?}"
        );
        assert!(r[2][0].starts_with("not derived: random order"), "{r:?}");
        assert!(
            r[3][1].starts_with("every periodic pattern is far cheaper"),
            "{r:?}"
        );
        assert!(r[4][2].starts_with("one source, two builds"), "{r:?}");
    }

    #[test]
    fn the_shape_reading_says_what_the_binary_holds() {
        // Read from the binary, not timed: it has no rounds to be disturbed.
        let all = |s: Option<Shape>| PerVersion::from_fn(|_| s);
        let s = shape_sentence(&all(Some(Shape::Branch)));
        assert!(
            s.starts_with("the real-branch version has its jump")
                && s.contains("the other two have jumps as well"),
            "{s}"
        );
        let s = shape_sentence(&all(Some(Shape::CondMove)));
        assert!(
            s.starts_with("! the real-branch version has no branch"),
            "{s}"
        );
        assert!(s.contains("the other two have no jump to predict"), "{s}");
        assert!(shape_sentence(&all(None)).contains("could not be read back"));
    }

    #[test]
    fn the_order_sentence_follows_the_ranges() {
        let s = order_sentence(&order(&[3.0, 3.1, 3.2], &[0.4, 0.5, 0.6]));
        assert!(s.contains("random order is") && s.contains("slower"), "{s}");
        let s = order_sentence(&order(&[0.4, 0.5, 3.2], &[0.4, 0.5, 0.6]));
        assert!(s.contains("not clearly slower"), "{s}");
        // Sorted clearly slower is said as it is, never as "no clear difference".
        let s = order_sentence(&order(&[0.4, 0.5, 0.6], &[3.0, 3.1, 3.2]));
        assert!(
            s.contains("sorted order is") && !s.contains("no clear"),
            "{s}"
        );
    }

    fn built(label: &'static str, shape: Shape, random: f64) -> Built {
        let s = |m: f64| Summary::of(&[m * 0.99, m, m * 1.01]).unwrap();
        Built {
            label,
            flag: "f",
            shape: Some(shape),
            random: s(random),
            sorted: s(0.7),
            tally: Tally::default(),
        }
    }

    #[test]
    fn the_lesson_is_drawn_only_from_the_shapes_and_times_that_show_it() {
        let quiet = Tally {
            rounds: 20,
            ..Default::default()
        };
        let both = [
            built("a", Shape::CondMove, 0.7),
            built("b", Shape::Branch, 3.5),
        ];
        let v = same_source(&both, &quiet);
        assert!(v[2].starts_with("one source, two builds"), "{v:?}");
        assert!(v[2].contains("5.0x"), "{v:?}");
        let flat = [
            built("a", Shape::CondMove, 0.7),
            built("b", Shape::Branch, 0.7),
        ];
        assert!(same_source(&flat, &quiet)[2].contains("not drawn"));
        let busy = Tally {
            rounds: 20,
            disturbed: 5,
            ..Default::default()
        };
        assert!(same_source(&both, &busy)[0].starts_with("provisional:"));
    }
}
