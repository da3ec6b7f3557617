// Reference solution of the sink lab (labs/sink): the code under test is unchanged; the
// benchmark hands the data and every pass's sum to std::hint::black_box, so the compiler
// can neither delete the summing nor compute it once for all passes.
// Check it with `cargo xtask lab check sink --solution docs/instructor/solutions/sink.rs`.

use crate::PASSES;
use measure::clock::now_ns;
use std::hint::black_box;

/// The code under test: the sum of the squares of `data` (wrapping).
#[inline]
pub fn sum_squares(data: &[u64]) -> u64 {
    data.iter().fold(0u64, |s, &x| s.wrapping_add(x * x))
}

/// The benchmark: nanoseconds per pass of [`sum_squares`] over `data`, over [`PASSES`]
/// passes.
#[inline(never)]
#[unsafe(export_name = "lab_sink_solution")]
pub fn bench(data: &[u64]) -> f64 {
    let t0 = now_ns();
    for _ in 0..PASSES {
        black_box(sum_squares(black_box(data)));
    }
    (now_ns() - t0) as f64 / f64::from(PASSES)
}
