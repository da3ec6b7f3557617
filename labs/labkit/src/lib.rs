//! # labkit: what every lab exercise shares
//!
//! Each exercise under `labs/` is a small crate: a `baseline` nobody edits, the student's
//! `src/solution.rs`, and a binary that the checker (`cargo xtask lab check NAME`) builds and
//! runs. The binary does three things, all with the code here:
//!
//! 1. [`agree`]: the student's version must compute what the baseline computes, on inputs
//!    drawn from `measure::ring`'s seeded xoshiro; a difference stops the run;
//! 2. [`paired`]: the two versions are timed in interleaved rounds (A B, B A, ...), each
//!    round one call of each, with `measure::rounds`' discipline: each round bracketed by
//!    `measure::disturb` evidence, a warm-up first and after a disturbed round, more rounds
//!    until enough are clean; the block's `Tally` says whether the result is provisional;
//! 3. [`Report::print`]: everything as `#META` lines and one `#DATA` block, which the
//!    checker parses and judges (`xtask/src/lab/judge.rs`). The binary itself gives no verdict.

use measure::data::{Block, Value, meta_line};
use measure::disturb::{Evidence, Probe, Tally, Window};
use measure::ring::{self, Rng};
use measure::rounds::{Step, Want};
use std::sync::Mutex;

pub mod start_line;
use start_line::Arrival;

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
    /// Cores the exercise runs on at once: with more than one, each round is judged by the
    /// evidence of its worker threads ([`on_worker`]).
    pub cores: usize,
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

/// One round: one call of each variant (its figure, nanoseconds), and whether anything else
/// took the core from this thread during it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Round {
    pub a_ns: f64,
    pub b_ns: f64,
    pub disturbed: bool,
}

/// Rounds of two variants and the evidence around them.
#[derive(Debug, Clone, Default)]
pub struct Paired {
    pub rounds: Vec<Round>,
    pub tally: Tally,
    /// Rounds whose worker threads left no evidence (their work did not go through
    /// [`on_worker`]): counted as disturbed.
    pub unwatched: usize,
}

/// Clean rounds a lab wants.
pub const ROUNDS: usize = 11;

/// The checker's round loop, the one place its rounds are taken: `measure::rounds` with
/// [`ROUNDS`] clean rounds wanted, each round one call of `a` and one of `b` (each returns
/// its figure in nanoseconds), the order alternating from round to round so that drift hits
/// both alike. `core` is the core this thread is pinned to, for the load around the block.
///
/// With `threads` above one the calls run worker threads while this thread waits, so this
/// thread's own evidence says nothing: each worker runs its share through [`on_worker`],
/// and a round is judged by its most disturbed worker ([`measure::team::worst`]), with the
/// small allowance every round of the project has, as the experiments judge a team's round.
/// A call whose workers left no evidence makes its round count as disturbed.
pub fn paired(
    core: Option<usize>,
    threads: usize,
    mut a: impl FnMut() -> f64,
    mut b: impl FnMut() -> f64,
) -> Paired {
    let window = Window::open(core);
    let mut probe = Probe::new();
    let mut figures = Vec::new();
    let mut unwatched = 0;
    let mut pair = |n: usize| {
        if n.is_multiple_of(2) {
            let fa = a();
            (fa, b())
        } else {
            let fb = b();
            (a(), fb)
        }
    };
    let want = Want::new(ROUNDS);
    let timed = if threads > 1 {
        measure::rounds::judged(&want, 1, |step| match step {
            Step::Warm(_) => (pair(0).0, Evidence::default()),
            Step::Time(_) => {
                take_workers();
                let t0 = measure::clock::now_ns();
                let (fa, fb) = pair(figures.len());
                let wall_ns = measure::clock::now_ns().saturating_sub(t0);
                let e = round_evidence(take_workers(), 2 * threads);
                unwatched += usize::from(e.is_none());
                figures.push((fa, fb));
                (fa / fb, e.unwrap_or_else(|| lost_all(wall_ns)))
            }
        })
        .pop()
        .expect("one variant")
    } else {
        measure::rounds::run(&mut probe, &want, |step| match step {
            Step::Warm(_) => {
                let (fa, fb) = pair(0);
                fa + fb
            }
            Step::Time(_) => {
                let (fa, fb) = pair(figures.len());
                figures.push((fa, fb));
                fa / fb
            }
        })
    };
    let mut load = window.close();
    if threads > 1 {
        // This thread sleeps while the workers run: its own wait says nothing about theirs.
        load.on_core = None;
    }
    let rounds = figures
        .iter()
        .zip(&timed.evidence)
        .map(|(&(a_ns, b_ns), e)| Round {
            a_ns,
            b_ns,
            disturbed: e.disturbed(),
        })
        .collect();
    Paired {
        rounds,
        tally: timed.tally().with_load(load),
        unwatched,
    }
}

/// The evidence the worker threads of one call left through [`on_worker`] since the last
/// call of this function.
static WORKERS: Mutex<Vec<Evidence>> = Mutex::new(Vec::new());

/// A worker that waited longer than this for its core before it began was held back by
/// another task (a time slice is milliseconds); a shorter wait is the start of a thread (in a
/// VM, waking an idle virtual CPU takes up to a few hundred microseconds on a quiet machine).
pub const START_WAIT_NS: u64 = 1_000_000;

/// Runs one worker thread's share of a call, on a thread made for the call, and keeps what
/// happened to that thread for the round the call belongs to.
///
/// In a timed call ([`start_line::time_team`]) the worker first waits at the start line for
/// the others; its evidence and its share's time begin when all are there, so a slow start
/// of the threads is neither timed nor held against the round. A worker that arrived alone
/// leaves no evidence, so its round counts as disturbed. Outside a timed call the evidence
/// covers the work, plus a wait for the core before it began (a new thread's counters start
/// at zero) when that wait was over [`START_WAIT_NS`].
pub fn on_worker<T>(work: impl FnOnce() -> T) -> T {
    let probe = Probe::new();
    let arrival = start_line::wait();
    let first = probe.mark();
    let out = match arrival {
        Arrival::Unarmed => work(),
        Arrival::Together | Arrival::Alone => start_line::time_share(work),
    };
    let mut e = Evidence::between(&first, &probe.mark());
    let before = first.waited_ns.unwrap_or(0);
    if arrival == Arrival::Unarmed && before > START_WAIT_NS {
        e.waited_ns = Some(e.waited_ns.unwrap_or(0) + before);
    }
    if arrival != Arrival::Alone {
        WORKERS.lock().unwrap_or_else(|p| p.into_inner()).push(e);
    }
    out
}

fn take_workers() -> Vec<Evidence> {
    std::mem::take(&mut *WORKERS.lock().unwrap_or_else(|p| p.into_inner()))
}

/// The evidence of a round whose two calls ran `workers` worker threads in all: the most
/// disturbed worker's ([`measure::team::worst`]), or `None` when fewer workers than that
/// left evidence.
pub fn round_evidence(seen: Vec<Evidence>, workers: usize) -> Option<Evidence> {
    if seen.len() < workers {
        return None;
    }
    measure::team::worst(seen)
}

/// The evidence of a round nothing was known of: all its time counted as lost.
fn lost_all(wall_ns: u64) -> Evidence {
    Evidence {
        wall_ns,
        off_cpu_ns: wall_ns,
        ..Evidence::default()
    }
}

/// The wall time of one call of `f`, in nanoseconds, its result kept alive.
pub fn wall_ns<T>(f: impl FnOnce() -> T) -> f64 {
    let (ns, r) = measure::clock::time_ns(f);
    measure::black_box(r);
    ns
}

/// The figure of one timed call of `f`: its wall time, or for an exercise on several cores
/// the span its workers worked together ([`start_line::time_team`]).
pub fn figure_ns<T>(cores: usize, f: impl FnOnce() -> T) -> f64 {
    if cores > 1 {
        start_line::time_team(cores, f)
    } else {
        wall_ns(f)
    }
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
/// highest allowed core): the core when the pinning was verified, and how it went, for a
/// `#META pinning` line.
pub fn pin_main() -> (Option<usize>, String) {
    match measure::pin::default_core() {
        Ok(Some(core)) => {
            let p = measure::pin::pin_current_thread(core);
            (p.verified().then_some(core), p.to_string())
        }
        Ok(None) => (None, "no core could be chosen: not pinned".into()),
        Err(e) => (None, format!("not pinned: {e}")),
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
    pub timing: Paired,
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
            timing: Paired::default(),
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
        let t = &self.timing.tally;
        if t.rounds > 0 {
            meta("provisional", measure::fmt::yes_no(t.provisional()));
            let mut why = t.describe();
            if self.timing.unwatched > 0 {
                why = format!(
                    "{why}; {} rounds left no evidence from some worker thread (each of the \
                     lab's threads must start and run its work through the lab's `worker`), so \
                     they count as disturbed",
                    self.timing.unwatched
                );
            }
            if let Some(c) = t.contention() {
                why = format!("{why}; {c}");
            }
            meta("disturbance", why);
        }
        let mut b = Block::new(
            "rounds",
            &["round", "a_ns", "b_ns", "ratio", "disturbed:text"],
        );
        for (i, r) in self.timing.rounds.iter().enumerate() {
            b.row(vec![
                Value::from(i as u64 + 1),
                Value::from(r.a_ns),
                Value::from(r.b_ns),
                Value::from(r.a_ns / r.b_ns),
                Value::from(if r.disturbed { "yes" } else { "no" }),
            ]);
        }
        print!("{}", b.render());
    }
}

/// Prints one `#META` line: a lab binary has no experiment's data part to hold it back.
fn meta(key: &str, value: impl std::fmt::Display) {
    println!("{}", meta_line(key, value));
}

/// The usual run of a speedup lab: the correctness check on small seeded inputs and on
/// `big`, then [`paired`] rounds of baseline (a) against solution (b) on `big`.
pub fn run_speedup<I, O: std::fmt::Debug>(
    spec: Spec,
    core: Option<usize>,
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
        r.timing = paired(
            core,
            spec.cores,
            || figure_ns(spec.cores, || baseline(measure::black_box(big))),
            || figure_ns(spec.cores, || solution(measure::black_box(big))),
        );
    }
    r
}

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
    fn a_round_is_as_disturbed_as_its_worst_worker_and_unknown_without_all_of_them() {
        let e = |waited_ns| Evidence {
            wall_ns: 1_000_000,
            waited_ns: Some(waited_ns),
            ..Evidence::default()
        };
        // 5 us of waiting is within the allowance (20 us or 2%); 500 us is not.
        let quiet = round_evidence(vec![e(5_000); 4], 4).unwrap();
        assert!(!quiet.disturbed());
        let one_bad = round_evidence(vec![e(5_000), e(500_000), e(5_000), e(5_000)], 4);
        assert!(one_bad.unwrap().disturbed());
        assert_eq!(round_evidence(vec![e(5_000); 3], 4), None);
        assert!(lost_all(1_000_000).disturbed());
    }

    #[test]
    fn paired_rounds_alternate_and_keep_both_figures() {
        let order = std::cell::RefCell::new(Vec::new());
        let p = paired(
            None,
            1,
            || {
                order.borrow_mut().push('a');
                2.0
            },
            || {
                order.borrow_mut().push('b');
                1.0
            },
        );
        assert!(p.rounds.len() >= ROUNDS);
        assert!(p.rounds.iter().all(|r| r.a_ns / r.b_ns == 2.0));
        let s: String = order.into_inner().into_iter().collect();
        // A warm-up of both first; then rounds in both orders (a disturbed round adds a
        // warm-up, so the exact sequence depends on the machine).
        assert!(s.starts_with("abab") && s.contains("ba"), "{s}");
        assert_eq!(p.tally.rounds, p.rounds.len());
    }
}
