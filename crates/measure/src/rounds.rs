//! Timed rounds judged by their evidence: take rounds until enough are clean, warm up again
//! after a disturbed one, and summarise the clean ones.
//!
//! A round should fit between two preemptions (the scheduler's slice is a few milliseconds),
//! so rounds here are short, a fraction of a millisecond where the quantity allows, and there
//! are more of them. Each timed round is bracketed by [`Probe::mark`]s; a round with evidence
//! of disturbance ([`Evidence::disturbed`]) is kept but set aside, the next round of that
//! variant is preceded by a warm-up (the other task left the caches cold), and rounds go on
//! until every variant has [`Want::clean`] clean rounds, or [`Want::max_rounds`] were taken,
//! or the time budget is spent. A quiet machine pays nothing: its first rounds are clean.
//!
//! The caller passes one closure that does both kinds of step ([`Step`]), so that warming up
//! and timing can share the caller's state (its rings, its buffers) without two borrows:
//!
//! ```no_run
//! use measure::rounds::{self, Step, Want};
//! let mut data = vec![1u64; 4096];
//! let mut probe = measure::disturb::Probe::new();
//! let timed = rounds::interleaved(&mut probe, &Want::new(11), 2, |step| match step {
//!     Step::Warm(_) => { data.iter_mut().for_each(|x| *x += 1); 0.0 }
//!     Step::Time(i) => measure::clock::time_ns(|| data.iter().sum::<u64>() + i as u64).0,
//! });
//! let median = timed[0].summary().map(|s| s.median);
//! ```

use crate::clock::now_ns;
use crate::disturb::{Evidence, Probe, Tally};
use crate::stats::Summary;

/// How many rounds to take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Want {
    /// Clean rounds wanted per variant.
    pub clean: usize,
    /// The most rounds per variant, clean or not.
    pub max_rounds: usize,
    /// Stop taking extra rounds (beyond the first `clean` of each variant) after this long.
    pub budget_ns: u64,
    /// Warm up before every timed round, not only the first and after a disturbed one (where
    /// the variants evict each other, as rings of one size do).
    pub warm_every: bool,
}

impl Want {
    /// `clean` clean rounds, at most three times as many in all, within 2 s of extra rounds.
    pub const fn new(clean: usize) -> Want {
        Want {
            clean,
            max_rounds: 3 * clean,
            budget_ns: 2_000_000_000,
            warm_every: false,
        }
    }

    /// The same, warming up before every timed round.
    pub const fn warm_every(self) -> Want {
        Want {
            warm_every: true,
            ..self
        }
    }

    /// The same with another budget for extra rounds.
    pub const fn budget(self, budget_ns: u64) -> Want {
        Want { budget_ns, ..self }
    }
}

/// One step asked of the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Warm variant `i` up (discarded; return anything).
    Warm(usize),
    /// Time one round of variant `i` and return its figure (nanoseconds per step, ...).
    Time(usize),
}

/// The rounds of one variant, in the order they were taken, each with its evidence.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Timed {
    pub values: Vec<f64>,
    pub evidence: Vec<Evidence>,
}

impl Timed {
    /// Adds one round.
    pub fn push(&mut self, value: f64, evidence: Evidence) {
        self.values.push(value);
        self.evidence.push(evidence);
    }

    /// The values of the clean rounds, in order.
    pub fn clean(&self) -> Vec<f64> {
        self.values
            .iter()
            .zip(&self.evidence)
            .filter(|(_, e)| !e.disturbed())
            .map(|(v, _)| *v)
            .collect()
    }

    pub fn clean_count(&self) -> usize {
        self.evidence.iter().filter(|e| !e.disturbed()).count()
    }

    pub fn disturbed_count(&self) -> usize {
        self.evidence.len() - self.clean_count()
    }

    /// The values the result is computed from: the clean rounds, or every round when none
    /// was clean (the [`Timed::tally`] then says so).
    pub fn used(&self) -> Vec<f64> {
        let clean = self.clean();
        if clean.is_empty() {
            self.values.clone()
        } else {
            clean
        }
    }

    /// Median, min and max of [`Timed::used`].
    pub fn summary(&self) -> Option<Summary> {
        Summary::of(&self.used())
    }

    /// The rounds counted: how many, how many disturbed, and whether disturbed ones are used.
    pub fn tally(&self) -> Tally {
        let mut t = Tally::default();
        for e in &self.evidence {
            t.add(e);
        }
        if self.clean_count() == 0 {
            t.disturbed_used = t.disturbed;
        }
        t
    }
}

/// All the rounds of several results as one tally.
pub fn tally<'a>(timed: impl IntoIterator<Item = &'a Timed>) -> Tally {
    timed
        .into_iter()
        .fold(Tally::default(), |t, x| t.merge(&x.tally()))
}

/// Times one variant: [`interleaved`] with one.
pub fn run(probe: &mut Probe, want: &Want, step: impl FnMut(Step) -> f64) -> Timed {
    interleaved(probe, want, 1, step)
        .pop()
        .expect("one variant")
}

/// Times `n` variants in turn (A B C A B C), each round bracketed by evidence, until every
/// variant has `want.clean` clean rounds, or `want.max_rounds`, or the budget for extra
/// rounds is spent. A variant is warmed up before its first round, after any disturbed round
/// or warm-up (the other task ran between the variants' rounds and may have evicted any of
/// them), and, with [`Want::warm_every`], before every round. A warm-up cut by a preemption
/// is done again (twice at most): the round after it would start cold with nothing in its
/// own evidence to say so.
pub fn interleaved(
    probe: &mut Probe,
    want: &Want,
    n: usize,
    mut step: impl FnMut(Step) -> f64,
) -> Vec<Timed> {
    judged(want, n, |s| {
        let a = probe.mark();
        let v = step(s);
        (v, Evidence::between(&a, &probe.mark()))
    })
}

/// The time budget for rounds beyond the minimum: it starts when every variant has its
/// minimum, and is spent once `budget_ns` have passed since then.
pub(crate) struct Extra {
    budget_ns: u64,
    since: Option<u64>,
}

impl Extra {
    pub(crate) fn new(budget_ns: u64) -> Extra {
        Extra {
            budget_ns,
            since: None,
        }
    }

    /// Whether the budget is spent; `past_minimum` says whether every variant has had its
    /// minimum (before that, no extra time is counted).
    pub(crate) fn spent(&mut self, past_minimum: bool) -> bool {
        if !past_minimum {
            return false;
        }
        let t0 = *self.since.get_or_insert_with(now_ns);
        now_ns().saturating_sub(t0) >= self.budget_ns
    }
}

/// Warm-ups of one variant before one round, at most: the first, and two more where a
/// preemption cut the one before.
const WARM_TRIES: usize = 3;

/// [`interleaved`] where the caller brings each step's evidence along with its figure (for a
/// warm-up, whether it was cut; `Evidence::default()` where the caller cannot tell): for
/// rounds whose work runs on other threads, each with its own [`Probe`], judged by the most
/// disturbed of them (`measure::team::worst`).
pub fn judged(want: &Want, n: usize, mut step: impl FnMut(Step) -> (f64, Evidence)) -> Vec<Timed> {
    let mut out = vec![Timed::default(); n];
    let mut cold = vec![true; n];
    let mut extra = Extra::new(want.budget_ns);
    loop {
        let short: Vec<usize> = (0..n)
            .filter(|&i| out[i].clean_count() < want.clean && out[i].values.len() < want.max_rounds)
            .collect();
        // The first `want.clean` rounds of every variant are always taken; rounds beyond
        // them only within the budget.
        if short.is_empty() || extra.spent(out.iter().all(|t| t.values.len() >= want.clean)) {
            return out;
        }
        for i in short {
            if cold[i] || want.warm_every {
                warm(i, &mut cold, &mut step);
            }
            let (v, e) = step(Step::Time(i));
            cold[i] = false;
            if e.disturbed() {
                cold.fill(true);
            }
            out[i].push(v, e);
        }
    }
}

/// Warms variant `i` up, again while a preemption cut the warm-up ([`WARM_TRIES`] in all); a
/// cut warm-up leaves every other variant cold too.
fn warm(i: usize, cold: &mut [bool], step: &mut impl FnMut(Step) -> (f64, Evidence)) {
    for _ in 0..WARM_TRIES {
        let (_, e) = step(Step::Warm(i));
        if !e.disturbed() {
            return;
        }
        cold.fill(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A preempted round, or a preempted warm-up, leaves every variant cold: each warms up
    /// before its next round; a cut warm-up is done again.
    #[test]
    fn a_preemption_leaves_every_variant_to_warm_up_again() {
        let mut log = Vec::new();
        let mut times = 0;
        let mut warms_of_1 = 0;
        judged(&Want::new(3), 2, |s| {
            log.push(s);
            let cut = match s {
                Step::Time(_) => {
                    times += 1;
                    times == 3 // A's second round
                }
                Step::Warm(1) => {
                    warms_of_1 += 1;
                    warms_of_1 == 2 // B's warm-up after that
                }
                Step::Warm(_) => false,
            };
            (1.0, ev(cut))
        });
        use Step::{Time as T, Warm as W};
        assert_eq!(
            log[..10],
            [W(0), T(0), W(1), T(1), T(0), W(1), W(1), T(1), W(0), T(0)],
            "{log:?}"
        );
    }

    fn ev(disturbed: bool) -> Evidence {
        Evidence {
            wall_ns: 100_000,
            switches: u64::from(disturbed),
            waited_ns: Some(if disturbed { 3_000_000 } else { 0 }),
            off_cpu_ns: 0,
        }
    }

    #[test]
    fn the_result_comes_from_the_clean_rounds() {
        let t = Timed {
            values: vec![1.0, 9.0, 1.2, 8.0, 1.1],
            evidence: vec![ev(false), ev(true), ev(false), ev(true), ev(false)],
        };
        assert_eq!(t.clean(), vec![1.0, 1.2, 1.1]);
        assert_eq!((t.clean_count(), t.disturbed_count()), (3, 2));
        let s = t.summary().unwrap();
        assert_eq!((s.min, s.median, s.max), (1.0, 1.1, 1.2));
        let tally = t.tally();
        assert_eq!(
            (tally.rounds, tally.disturbed, tally.disturbed_used),
            (5, 2, 0)
        );
        assert!(tally.provisional(), "2 of 5 disturbed is over the share");
    }

    #[test]
    fn with_no_clean_round_every_round_is_used_and_the_tally_says_so() {
        let t = Timed {
            values: vec![5.0, 7.0],
            evidence: vec![ev(true), ev(true)],
        };
        assert_eq!(t.used(), vec![5.0, 7.0]);
        assert_eq!(t.tally().disturbed_used, 2);
        assert!(t.tally().mark().unwrap().contains("no round was clean"));
    }

    #[test]
    fn rounds_interleave_and_warm_up_only_when_cold() {
        let mut probe = Probe::new();
        let mut log = Vec::new();
        let want = Want::new(3);
        let t = interleaved(&mut probe, &want, 2, |s| {
            log.push(s);
            1.0
        });
        assert!(t.iter().all(|x| x.values.len() >= 3));
        // A B A B A B, each warmed up once before its first round (on a quiet test run;
        // a disturbed round or warm-up adds warm-ups of both, and a round).
        let redone = log
            .windows(2)
            .filter(|w| matches!(w, [Step::Warm(a), Step::Warm(b)] if a == b))
            .count();
        let warms = log.iter().filter(|s| matches!(s, Step::Warm(_))).count();
        let disturbed: usize = t.iter().map(Timed::disturbed_count).sum();
        if disturbed + redone == 0 {
            assert_eq!(
                &log[..4],
                &[Step::Warm(0), Step::Time(0), Step::Warm(1), Step::Time(1)]
            );
            assert_eq!(warms, 2, "{log:?}");
        }
        assert!(warms <= 2 + 2 * (disturbed + redone) + redone, "{log:?}");
    }

    #[test]
    fn warm_every_warms_before_every_round() {
        let mut probe = Probe::new();
        let mut log = Vec::new();
        let t = run(&mut probe, &Want::new(4).warm_every(), |s| {
            log.push(s);
            2.0
        });
        // Every round comes right after a warm-up (a preempted warm-up, as under an
        // emulator, is done again, so there can be more warm-ups than rounds).
        let rounds: Vec<usize> = (0..log.len())
            .filter(|&k| log[k] == Step::Time(0))
            .collect();
        assert_eq!(rounds.len(), t.values.len());
        assert!(
            rounds.iter().all(|&k| k > 0 && log[k - 1] == Step::Warm(0)),
            "{log:?}"
        );
    }

    #[test]
    fn the_budget_and_the_round_cap_stop_a_run_that_never_gets_enough() {
        let mut probe = Probe::new();
        let want = Want {
            clean: 1000,
            max_rounds: 7,
            budget_ns: u64::MAX,
            warm_every: false,
        };
        assert_eq!(run(&mut probe, &want, |_| 1.0).values.len(), 7);
        // No budget for extra rounds: the first `clean` rounds are taken, and no more.
        let want = Want {
            clean: 50,
            max_rounds: usize::MAX,
            budget_ns: 0,
            warm_every: false,
        };
        assert_eq!(run(&mut probe, &want, |_| 1.0).values.len(), 50);
    }
}
