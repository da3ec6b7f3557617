//! The verdict on one run of a lab binary, computed from its `#DATA` alone: correctness
//! first, then what the machine allows (a precondition such as a denormal penalty, enough
//! cores), then the code's shape where the lab asks for one, then the ratio of the clean
//! rounds against the target. Disturbed data never passes or fails: it is provisional.

use measure::data::DataFile;
use measure::stats::Summary;

/// What the checker says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    NotYet,
    Provisional,
    /// The solution computes something else than the baseline.
    Refused,
    /// This machine cannot show the effect (no penalty, one core).
    CannotCheck,
}

impl Verdict {
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::NotYet => "NOT YET",
            Verdict::Provisional => "PROVISIONAL",
            Verdict::Refused => "REFUSED",
            Verdict::CannotCheck => "CANNOT CHECK",
        }
    }

    /// The verdict named by `word` (as saved files spell it).
    pub fn from_word(word: &str) -> Option<Verdict> {
        [
            Verdict::Pass,
            Verdict::NotYet,
            Verdict::Provisional,
            Verdict::Refused,
            Verdict::CannotCheck,
        ]
        .into_iter()
        .find(|v| v.word() == word)
    }
}

/// The verdict with everything the screen shows.
#[derive(Debug, Clone)]
pub struct Judgement {
    pub lab: String,
    pub verdict: Verdict,
    /// `speedup` or `scaling`.
    pub measure: String,
    pub target: f64,
    pub hint: String,
    /// The per-round ratios of the clean rounds (all rounds when none was clean).
    pub ratio: Option<Summary>,
    pub rounds: usize,
    pub disturbed: usize,
    /// Why, in one or more sentences (the first word of a provisional one is "provisional:").
    pub why: String,
}

/// Fewer clean rounds than this make a verdict provisional (out of `labkit`'s 11).
pub const MIN_CLEAN: usize = 6;

/// The range a benchmark's figure must agree with an outside timing in (`#META agreement`).
pub const AGREEMENT: (f64, f64) = (0.5, 2.0);

/// Judges one run's output.
pub fn judge(f: &DataFile) -> Result<Judgement, String> {
    let need = |k: &str| {
        f.meta(k)
            .ok_or_else(|| format!("no #META {k} in the lab's output"))
    };
    let target = f
        .meta_num("target")
        .ok_or("no numeric #META target in the lab's output")?;
    let rounds = f
        .block("rounds")
        .ok_or("no rounds block in the lab's output")?;
    let ratios = rounds
        .nums("ratio")
        .ok_or("the rounds block has no ratio column")?;
    let flags = rounds
        .texts("disturbed")
        .ok_or("the rounds block has no disturbed column")?;
    let clean: Vec<f64> = ratios
        .iter()
        .zip(&flags)
        .filter(|(_, d)| d.as_str() != "yes")
        .filter_map(|(r, _)| *r)
        .collect();
    let all: Vec<f64> = ratios.iter().flatten().copied().collect();
    let mut j = Judgement {
        lab: need("lab")?.to_string(),
        verdict: Verdict::NotYet,
        measure: need("measure")?.to_string(),
        target,
        hint: need("hint")?.to_string(),
        ratio: Summary::of(if clean.is_empty() { &all } else { &clean }),
        rounds: all.len(),
        disturbed: all.len() - clean.len(),
        why: String::new(),
    };
    let (verdict, why) = decide(f, &j, clean.len());
    j.verdict = verdict;
    j.why = why;
    Ok(j)
}

/// The verdict and its reason, in the order the checks are made: what stops the speed from
/// counting first, then the speed itself.
fn decide(f: &DataFile, j: &Judgement, clean: usize) -> (Verdict, String) {
    refused(f)
        .or_else(|| cannot_check(f))
        .or_else(|| no_effect(f))
        .or_else(|| wrong_shape(f))
        .or_else(|| disagrees(f))
        .unwrap_or_else(|| on_speed(f, j, clean))
}

/// A solution that computes a wrong result is refused, whatever its speed.
fn refused(f: &DataFile) -> Option<(Verdict, String)> {
    if f.meta("correct") == Some("yes") {
        return None;
    }
    let wrong = f
        .meta("wrong")
        .unwrap_or("it differs from the baseline's result");
    Some((
        Verdict::Refused,
        format!("the solution's result is wrong: {wrong}"),
    ))
}

/// The lab said this machine cannot show its effect (`#META cannot`).
fn cannot_check(f: &DataFile) -> Option<(Verdict, String)> {
    let why = f.meta("cannot")?;
    Some((
        Verdict::CannotCheck,
        format!("{why}: this exercise cannot be checked here"),
    ))
}

/// A precondition's effect measured below this is no effect at all, not a small one.
const NONE_BELOW: f64 = 1.1;

/// The precondition's effect was measured below its minimum: provisional where its rounds
/// were disturbed, else this machine cannot show it.
fn no_effect(f: &DataFile) -> Option<(Verdict, String)> {
    let (effect, min) = (f.meta_num("effect")?, f.meta_num("effect_min")?);
    if !(effect.is_nan() || effect < min) {
        return None;
    }
    let what = f.meta("effect_what").unwrap_or("effect");
    if f.meta("effect_provisional") == Some("yes") {
        let why = f
            .meta("effect_disturbance")
            .unwrap_or("its rounds were disturbed");
        return Some((
            Verdict::Provisional,
            format!(
                "provisional: no {what} measured ({effect:.2}x), but {why}; rerun on a quiet \
                 machine"
            ),
        ));
    }
    let why = f
        .meta("effect_why")
        .map_or(String::new(), |w| format!("; {w}"));
    // Within a tenth of 1x there is none; beyond that there is some, but too little.
    let amount = if effect < NONE_BELOW {
        "no"
    } else {
        "too little"
    };
    Some((
        Verdict::CannotCheck,
        format!(
            "{amount} {what} on this machine (measured {effect:.2}x): this exercise cannot be \
             checked here (it needs {min:.1}x or more){why}"
        ),
    ))
}

/// The built code lacks the shape the lab asks for (`#META shape` other than `yes`).
fn wrong_shape(f: &DataFile) -> Option<(Verdict, String)> {
    let why = match f.meta("shape")? {
        "yes" => return None,
        "no" => "the benchmark's loop is not in the built code: the compiler deleted the work",
        other => other,
    };
    Some((Verdict::NotYet, why.to_string()))
}

/// The benchmark's figure disagrees with an outside timing (`#META agreement`).
fn disagrees(f: &DataFile) -> Option<(Verdict, String)> {
    let a = f.meta_num("agreement")?;
    if (AGREEMENT.0..=AGREEMENT.1).contains(&a) {
        return None;
    }
    let what = f.meta("agreement_what").unwrap_or("agreement");
    Some((
        Verdict::NotYet,
        format!(
            "{what} is {a:.2}x, outside {}x..{}x",
            AGREEMENT.0, AGREEMENT.1
        ),
    ))
}

/// The verdict on the median ratio against the target; provisional with too few clean rounds
/// (or where the lab says so).
fn on_speed(f: &DataFile, j: &Judgement, clean: usize) -> (Verdict, String) {
    let Some(s) = j.ratio else {
        return (
            Verdict::Provisional,
            "provisional: no round was timed".into(),
        );
    };
    let reached = s.median >= j.target;
    let provisional = f
        .meta("provisional")
        .map_or(clean < MIN_CLEAN, |p| p == "yes");
    if provisional {
        let would = if reached {
            "pass"
        } else {
            "not reach the target"
        };
        let evidence = f.meta("disturbance").map_or_else(
            || format!("{} of {} rounds were disturbed", j.disturbed, j.rounds),
            str::to_string,
        );
        return (
            Verdict::Provisional,
            format!(
                "provisional: the median would {would}, but {evidence}; rerun on a quiet machine"
            ),
        );
    }
    if reached {
        (
            Verdict::Pass,
            format!(
                "the median {:.2}x reaches the target {:.1}x",
                s.median, j.target
            ),
        )
    } else {
        (
            Verdict::NotYet,
            format!(
                "the median {:.2}x is below the target {:.1}x",
                s.median, j.target
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(metas: &str, rows: &[(f64, &str)]) -> Judgement {
        let mut t =
            String::from("#META lab x\n#META measure speedup\n#META target 2\n#META hint h\n");
        t.push_str(metas);
        t.push_str("#DATA-BEGIN rounds\n#COLUMNS round a_ns b_ns ratio disturbed:text\n");
        for (i, (r, d)) in rows.iter().enumerate() {
            t.push_str(&format!("#DATA {} {r} 1 {r} {d}\n", i + 1));
        }
        t.push_str("#DATA-END\n");
        judge(&measure::data::parse(&t).unwrap()).unwrap()
    }

    fn clean(r: f64) -> Vec<(f64, &'static str)> {
        vec![(r, "no"); 11]
    }

    #[test]
    fn the_median_of_clean_rounds_decides() {
        assert_eq!(
            run("#META correct yes\n", &clean(3.0)).verdict,
            Verdict::Pass
        );
        assert_eq!(
            run("#META correct yes\n", &clean(1.0)).verdict,
            Verdict::NotYet
        );
    }

    #[test]
    fn a_wrong_result_is_refused_whatever_the_speed() {
        let j = run(
            "#META correct no\n#META wrong seed 3 differs\n",
            &clean(9.0),
        );
        assert_eq!(j.verdict, Verdict::Refused);
        assert!(j.why.contains("seed 3"));
    }

    #[test]
    fn disturbed_rounds_make_it_provisional_never_pass_or_fail() {
        let mut rows = clean(3.0);
        for r in rows.iter_mut().take(6) {
            r.1 = "yes";
        }
        let j = run("#META correct yes\n", &rows);
        assert_eq!(j.verdict, Verdict::Provisional);
        assert!(j.why.starts_with("provisional:"), "{}", j.why);
        let j = run("#META correct yes\n#META provisional yes\n", &clean(1.0));
        assert_eq!(j.verdict, Verdict::Provisional);
    }

    #[test]
    fn no_penalty_means_cannot_check_with_the_measured_ratio() {
        let m = "#META correct yes\n#META effect 1.02\n#META effect_min 3\n\
                 #META effect_what denormal penalty\n";
        let j = run(m, &clean(3.0));
        assert_eq!(j.verdict, Verdict::CannotCheck);
        assert!(
            j.why.starts_with(
                "no denormal penalty on this machine (measured 1.02x): this exercise cannot be \
                 checked here"
            ),
            "{}",
            j.why
        );
        assert!(j.why.ends_with("(it needs 3.0x or more)"), "{}", j.why);
        // Some effect, short of the minimum, is said to be too little, not none.
        let some = m.replace("effect 1.02", "effect 1.80");
        let j = run(&some, &clean(3.0));
        assert!(
            j.why
                .starts_with("too little denormal penalty on this machine (measured 1.80x)"),
            "{}",
            j.why
        );
        // A lab that knows why a machine may show none says so after it.
        let why = format!("{m}#META effect_why two vCPUs on one core show none\n");
        let j = run(&why, &clean(3.0));
        assert!(
            j.why
                .ends_with("(it needs 3.0x or more); two vCPUs on one core show none"),
            "{}",
            j.why
        );
    }

    #[test]
    fn a_benchmark_that_disagrees_with_an_outside_timing_is_not_yet() {
        let j = run(
            "#META correct yes\n#META shape yes\n#META agreement 0.05\n",
            &clean(10.0),
        );
        assert_eq!(j.verdict, Verdict::NotYet);
        assert!(j.why.contains("0.05x"), "{}", j.why);
        let j = run(
            "#META correct yes\n#META shape yes\n#META agreement 1.1\n",
            &clean(10.0),
        );
        assert_eq!(j.verdict, Verdict::Pass);
    }

    #[test]
    fn no_penalty_from_disturbed_rounds_is_provisional() {
        let m = "#META correct yes\n#META effect 1.02\n#META effect_min 3\n\
                 #META effect_provisional yes\n";
        let j = run(m, &clean(3.0));
        assert_eq!(j.verdict, Verdict::Provisional);
        assert!(j.why.starts_with("provisional:"), "{}", j.why);
    }

    #[test]
    fn a_missing_loop_is_not_yet_however_fast() {
        let j = run("#META correct yes\n#META shape no\n", &clean(9.0));
        assert_eq!(j.verdict, Verdict::NotYet);
    }
}
