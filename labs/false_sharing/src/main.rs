//! The false-sharing lab's timing binary, run by `cargo xtask lab check false_sharing`.

use lab_false_sharing::{SPEC, THREADS, baseline, input, solution};

/// Numbers added per call (all threads together).
const N: usize = 20_000;

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
    }
    r.print();
}
