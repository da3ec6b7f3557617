//! The branch lab's timing binary, run by `cargo xtask lab check branch`.

use lab_branch::{SPEC, baseline, input, solution};

/// Bytes in the timed input (256 KiB: a round of about a millisecond).
const N: usize = 1 << 18;

fn main() {
    labkit::args(
        &SPEC,
        "the branch lab, timed for `cargo xtask lab check branch`",
    );
    let (core, pinning) = labkit::pin_main();
    let big = input(&mut measure::ring::rng(measure::ring::DEFAULT_SEED), N);
    let mut r = labkit::run_speedup(
        SPEC,
        core,
        |rng| {
            let n = measure::ring::below(rng, 5000);
            input(rng, n)
        },
        &big,
        |d| baseline::filter(d),
        |d| solution::filter(d),
        |a, b| a == b,
    );
    r.fact("pinning", pinning);
    r.print();
}
