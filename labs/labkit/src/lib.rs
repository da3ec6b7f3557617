//! # labkit: what every lab exercise shares
//!
//! Each exercise under `labs/` is a small crate: a `baseline` nobody edits, the student's
//! `src/solution.rs`, and a binary that the checker (`cargo xtask lab check NAME`) builds and
//! runs. The binary does three things, all with the code here:
//!
//! 1. [`agree`]: the student's version must compute what the baseline computes, on inputs
//!    drawn from `measure::ring`'s seeded xoshiro; a difference stops the run;
//! 2. [`rounds`]: the two versions are timed in interleaved rounds (A B, B A, ...), each
//!    round one call of each, after a warm-up of each;
//! 3. [`Report::print`]: everything as `#META` lines and one `#DATA` block, which the
//!    checker parses and judges (`xtask/src/lab.rs`). The binary itself gives no verdict.

use measure::data::{Block, Value, meta};
use measure::ring::{self, Rng};

/// What a lab measures and what it asks for.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The exercise's name, its folder under `labs/`.
    pub name: &'static str,
    /// What the ratio is: `speedup` (baseline time over the solution's) or `scaling` (the
    /// student's benchmark at ten times the input over at the input).
    pub measure: &'static str,
    /// The ratio the median must reach.
    pub target: f64,
    /// The one hint shown with NOT YET.
    pub hint: &'static str,
}

/// How many seeded inputs the correctness check tries.
pub const TRIES: u64 = 8;

/// Compares `solution` with `baseline` on [`TRIES`] inputs made by `input` from seeds
/// 1, 2, ...; `same` decides whether two outputs agree. `Err` names the first seed on which
/// they differ.
pub fn agree<I, O: std::fmt::Debug>(
    input: impl Fn(&mut Rng) -> I,
    baseline: impl Fn(&I) -> O,
    solution: impl Fn(&I) -> O,
    same: impl Fn(&O, &O) -> bool,
) -> Result<(), String> {
    for seed in 1..=TRIES {
        let x = input(&mut ring::rng(seed));
        let (want, got) = (baseline(&x), solution(&x));
        if !same(&want, &got) {
            return Err(format!(
                "on the input of seed {seed} the solution gives {} where the baseline gives {}",
                short(&got),
                short(&want)
            ));
        }
    }
    Ok(())
}

/// A value's debug form, cut to 60 characters for a one-line message.
fn short(v: &impl std::fmt::Debug) -> String {
    let s = format!("{v:?}");
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

/// One round: one call of each variant, in nanoseconds, and whether anything else took the
/// core from this thread during it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    pub a_ns: f64,
    pub b_ns: f64,
    pub disturbed: bool,
}

/// The checker's round loop, the one place its rounds are taken: a warm-up call of each
/// variant (discarded), then `n` rounds, each calling `a` and `b` once, the order
/// alternating from round to round so that drift hits both alike.
pub fn rounds(n: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> Vec<Round> {
    a();
    b();
    (0..n)
        .map(|i| {
            let (a_ns, b_ns) = if i % 2 == 0 {
                let ta = measure::clock::time_ns(&mut a).0;
                (ta, measure::clock::time_ns(&mut b).0)
            } else {
                let tb = measure::clock::time_ns(&mut b).0;
                (measure::clock::time_ns(&mut a).0, tb)
            };
            Round {
                a_ns,
                b_ns,
                disturbed: false,
            }
        })
        .collect()
}

/// Rounds for a lab that judges a benchmark by its own report: `a` and `b` each return the
/// nanoseconds they measured, and those (not the wall time of the calls) are the round's
/// figures, taken in the same alternating order as [`rounds`].
pub fn scaling_rounds(a: &dyn Fn() -> f64, b: &dyn Fn() -> f64) -> Vec<Round> {
    let (mut ra, mut rb) = (Vec::new(), Vec::new());
    let timed = rounds(ROUNDS, || ra.push(a()), || rb.push(b()));
    // The warm-up calls were recorded first; the rounds follow in order.
    timed
        .iter()
        .zip(ra.iter().skip(1).zip(rb.iter().skip(1)))
        .map(|(t, (&a_ns, &b_ns))| Round {
            a_ns,
            b_ns,
            disturbed: t.disturbed,
        })
        .collect()
}

/// The fastest `a` over the fastest `b` of `rounds` (clean rounds only, when any is clean):
/// for a precondition (is there an effect at all?), which other work on the machine can
/// only blur by adding time, never by taking it away.
pub fn best_ratio(rounds: &[Round]) -> f64 {
    let clean: Vec<&Round> = rounds.iter().filter(|r| !r.disturbed).collect();
    let use_: Vec<&Round> = if clean.is_empty() {
        rounds.iter().collect()
    } else {
        clean
    };
    let best = |f: fn(&Round) -> f64| use_.iter().map(|r| f(r)).fold(f64::INFINITY, f64::min);
    best(|r| r.a_ns) / best(|r| r.b_ns)
}

/// Pins the calling thread to the core single-threaded experiments use (`MM_CORE`, else the
/// highest allowed core) and says how that went, for a `#META pinning` line.
pub fn pin_main() -> String {
    match measure::pin::default_core() {
        Ok(Some(core)) => measure::pin::pin_current_thread(core).to_string(),
        Ok(None) => "no core could be chosen: not pinned".into(),
        Err(e) => format!("not pinned: {e}"),
    }
}

/// Everything one run of a lab binary found, for the checker.
#[derive(Debug, Clone)]
pub struct Report {
    pub spec: Spec,
    /// The correctness check's outcome; on `Err` no round is timed.
    pub correct: Result<(), String>,
    /// What `a` and `b` of the rounds are, in words.
    pub a: &'static str,
    pub b: &'static str,
    pub rounds: Vec<Round>,
    /// Further `#META` facts (pinning, the code's shape, a precondition).
    pub facts: Vec<(&'static str, String)>,
}

impl Report {
    /// A report with no rounds yet.
    pub fn new(spec: Spec, a: &'static str, b: &'static str) -> Report {
        Report {
            spec,
            correct: Ok(()),
            a,
            b,
            rounds: Vec::new(),
            facts: Vec::new(),
        }
    }

    /// Adds one `#META` fact.
    pub fn fact(&mut self, key: &'static str, value: impl std::fmt::Display) {
        self.facts.push((key, value.to_string()));
    }

    /// Prints the report in the `#DATA` format on stdout.
    pub fn print(&self) {
        let s = &self.spec;
        meta("lab", s.name);
        meta("measure", s.measure);
        meta("target", s.target);
        meta("hint", s.hint);
        meta("a", self.a);
        meta("b", self.b);
        meta("build", measure::run::OPT_LEVEL);
        match &self.correct {
            Ok(()) => meta("correct", "yes"),
            Err(why) => {
                meta("correct", "no");
                meta("wrong", why);
            }
        }
        for (k, v) in &self.facts {
            meta(k, v);
        }
        let mut b = Block::new(
            "rounds",
            &["round", "a_ns", "b_ns", "ratio", "disturbed:text"],
        );
        for (i, r) in self.rounds.iter().enumerate() {
            b.row(vec![
                Value::from(i as u64 + 1),
                Value::from(r.a_ns),
                Value::from(r.b_ns),
                Value::from(r.a_ns / r.b_ns),
                Value::from(if r.disturbed { "yes" } else { "no" }),
            ]);
        }
        b.print();
    }
}

/// The usual run of a speedup lab: the command line (only `--help`), the correctness check
/// on small seeded inputs, then `n` rounds of baseline (a) against solution (b) on `big`.
pub fn run_speedup<I, O: std::fmt::Debug>(
    spec: Spec,
    small: impl Fn(&mut Rng) -> I,
    big: &I,
    baseline: impl Fn(&I) -> O,
    solution: impl Fn(&I) -> O,
    same: impl Fn(&O, &O) -> bool,
) -> Report {
    let mut r = Report::new(spec, "baseline", "solution");
    r.correct = agree(small, &baseline, &solution, &same);
    if r.correct.is_ok() && !same(&baseline(big), &solution(big)) {
        r.correct =
            Err("the solution's result differs from the baseline's on the timed input".into());
    }
    if r.correct.is_ok() {
        r.rounds = rounds(
            ROUNDS,
            || {
                measure::black_box(baseline(measure::black_box(big)));
            },
            || {
                measure::black_box(solution(measure::black_box(big)));
            },
        );
    }
    r
}

/// Rounds a lab times.
pub const ROUNDS: usize = 11;

/// Parses a lab binary's command line: it takes no options but `--help`.
pub fn args(spec: &Spec, about: &str) {
    let _ = measure::cli::parse(&format!("lab_{}", spec.name), about, &[]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agree_refuses_a_changed_result_and_names_the_seed() {
        let input = |r: &mut Rng| ring::below(r, 1000) as u64;
        assert!(agree(input, |x| x * 2, |x| x + x, |a, b| a == b).is_ok());
        let e = agree(
            input,
            |x| x * 2,
            |x| x * 2 + u64::from(*x > 500),
            |a, b| a == b,
        )
        .unwrap_err();
        assert!(e.contains("seed"), "{e}");
    }

    #[test]
    fn the_best_ratio_ignores_disturbed_rounds() {
        let r = |a_ns, b_ns, disturbed| Round {
            a_ns,
            b_ns,
            disturbed,
        };
        let rounds = [
            r(30.0, 10.0, false),
            r(20.0, 10.0, false),
            r(1.0, 10.0, true),
        ];
        assert_eq!(best_ratio(&rounds), 2.0);
    }

    #[test]
    fn rounds_alternate_and_time_both() {
        let order = std::cell::RefCell::new(Vec::new());
        let r = rounds(
            4,
            || order.borrow_mut().push('a'),
            || order.borrow_mut().push('b'),
        );
        assert_eq!(r.len(), 4);
        let s: String = order.into_inner().into_iter().collect();
        assert_eq!(s, "ababbaabba");
    }
}
