//! The layout lab's timing binary, run by `cargo xtask lab check layout`.

use lab_layout::{SPEC, baseline, input, solution};

/// The timed matrix: 256 rows of 2048 cells of 4 bytes (8 KiB a row, 2 MiB in all; a round
/// of about a millisecond).
const ROWS: usize = 256;
const COLS: usize = 2048;

fn main() {
    labkit::args(
        &SPEC,
        "the layout lab, timed for `cargo xtask lab check layout`",
    );
    let (core, pinning) = labkit::pin_main();
    let big = input(
        &mut measure::ring::rng(measure::ring::DEFAULT_SEED),
        ROWS,
        COLS,
    );
    let mut r = labkit::run_speedup(
        SPEC,
        core,
        |rng| {
            let rows = measure::ring::below(rng, 100);
            let cols = 1 + measure::ring::below(rng, 100);
            input(rng, rows, cols)
        },
        &big,
        baseline::column_sums,
        solution::column_sums,
        |a, b| a == b,
    );
    r.fact("pinning", pinning);
    r.print();
}
