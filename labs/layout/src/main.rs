//! The layout lab's timing binary, run by `cargo xtask lab check layout`.

use lab_layout::{SPEC, baseline, input, solution};

/// The timed matrix's side: 2048 x 2048 cells of 4 bytes, 16 MiB.
const N: usize = 2048;

fn main() {
    labkit::args(
        &SPEC,
        "the layout lab, timed for `cargo xtask lab check layout`",
    );
    let pinning = labkit::pin_main();
    let big = input(&mut measure::ring::rng(measure::ring::DEFAULT_SEED), N);
    let mut r = labkit::run_speedup(
        SPEC,
        |rng| {
            let n = 1 + measure::ring::below(rng, 100);
            input(rng, n)
        },
        &big,
        baseline::column_sums,
        solution::column_sums,
        |a, b| a == b,
    );
    r.fact("pinning", pinning);
    r.print();
}
