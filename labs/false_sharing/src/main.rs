//! The false-sharing lab's timing binary, run by `cargo xtask lab check false_sharing`. After
//! the baseline and the solution are compared, it measures whether this machine shows false
//! sharing at all right now: two pinned threads adding to two slots of one line against two
//! slots two lines apart. Two virtual CPUs on one physical core (they share its L1), or two
//! that the host runs by turns, show none, and then no solution can pass.

use lab_false_sharing::{SPEC, THREADS, baseline, input, solution, worker};
use std::sync::atomic::{AtomicU64, Ordering};

/// Numbers added per call (all threads together).
const N: usize = 20_000;

/// Slots for the precondition: slot 0 and slot 1 share a line, slot 0 and slot 16 are 128
/// bytes apart (two lines: some cores fetch lines in pairs).
#[repr(align(128))]
struct Slots([AtomicU64; 17]);

/// The precondition's two threads: each adds to its own slot (0, or `other`) as many times
/// as a thread of `count` adds numbers, through [`worker`] like `count`'s threads.
fn bump(slots: &Slots, other: usize) {
    std::thread::scope(|s| {
        for (t, i) in [0, other].into_iter().enumerate() {
            let slot = &slots.0[i];
            s.spawn(move || {
                worker(t, || {
                    for _ in 0..N / THREADS {
                        slot.fetch_add(1, Ordering::Relaxed);
                    }
                })
            });
        }
    });
}

/// Records the precondition: the fastest same-line call over the fastest apart call, which
/// must reach the lab's target for any solution to reach it.
fn precondition(r: &mut labkit::Report) {
    let slots = Slots(std::array::from_fn(|_| AtomicU64::new(0)));
    let loss = labkit::paired(
        None,
        THREADS,
        || labkit::figure_ns(THREADS, || bump(&slots, 1)),
        || labkit::figure_ns(THREADS, || bump(&slots, 16)),
    );
    r.fact("effect", labkit::best_ratio(&loss.rounds));
    let t = &loss.tally;
    r.fact("effect_provisional", measure::fmt::yes_no(t.provisional()));
    r.fact("effect_disturbance", t.describe());
    r.fact("effect_min", SPEC.target);
    r.fact("effect_what", "false-sharing loss");
    r.fact(
        "effect_why",
        "two virtual CPUs on one physical core, or run by turns on one, show none; run again \
         later",
    );
}

fn main() {
    labkit::args(
        &SPEC,
        "the false-sharing lab, timed for `cargo xtask lab check false_sharing`",
    );
    let cores = measure::pin::allowed_cores().len();
    let big = input(&mut measure::ring::rng(measure::ring::DEFAULT_SEED), N);
    let mut r = labkit::run_speedup(
        SPEC,
        None,
        |rng| {
            let n = measure::ring::below(rng, 5000);
            input(rng, n)
        },
        &big,
        |d| baseline::count(d),
        |d| solution::count(d),
        |a, b| a == b,
    );
    r.fact("cores", cores);
    if cores < THREADS {
        r.fact(
            "cannot",
            format!("{cores} core allowed: the lab needs {THREADS} threads on their own cores"),
        );
    } else if r.correct.is_ok() {
        precondition(&mut r);
    }
    r.print();
}
