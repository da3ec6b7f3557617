//! The denormals lab's timing binary, run by `cargo xtask lab check denormals`. Before the
//! baseline and the solution are compared, it measures whether this machine has a denormal
//! penalty at all: the baseline on a denormal tail against the baseline on a normal one.

use lab_denormals::{PENALTY_MIN, SPEC, baseline, input, same, solution};
use measure::ring;

/// Samples in the timed signal.
const N: usize = 1 << 18;
/// The size of the quiet tail: denormal (below 1.18e-38), and a normal size to compare.
const DENORMAL: f32 = 1e-39;
const NORMAL: f32 = 1e-3;

fn main() {
    labkit::args(
        &SPEC,
        "the denormals lab, timed for `cargo xtask lab check denormals`",
    );
    let (core, pinning) = labkit::pin_main();
    let big = input(&mut ring::rng(ring::DEFAULT_SEED), N, DENORMAL);
    let normal = input(&mut ring::rng(ring::DEFAULT_SEED), N, NORMAL);
    let mut r = labkit::run_speedup(
        SPEC,
        core,
        |rng| {
            let n = ring::below(rng, 5000);
            input(rng, n, DENORMAL)
        },
        &big,
        |x| baseline::smooth(x),
        |x| solution::smooth(x),
        |a, b| same(a, b),
    );
    if r.correct.is_ok() {
        let penalty = labkit::paired(
            core,
            1,
            || labkit::wall_ns(|| baseline::smooth(measure::black_box(&big))),
            || labkit::wall_ns(|| baseline::smooth(measure::black_box(&normal))),
        );
        r.fact("effect", labkit::best_ratio(&penalty.rounds));
        let t = &penalty.tally;
        r.fact("effect_provisional", measure::fmt::yes_no(t.provisional()));
        r.fact("effect_disturbance", t.describe());
        r.fact("effect_min", PENALTY_MIN);
        r.fact("effect_what", "denormal penalty");
    }
    r.fact("pinning", pinning);
    r.print();
}
