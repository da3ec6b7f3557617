// Your solution: fix `bench` so that it really times `sum_squares`. Do not change
// `sum_squares`: the code is fine, the benchmark is not.
// Check it with `cargo xtask lab check sink`.

use crate::PASSES;
use measure::clock::now_ns;

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
        let _ = sum_squares(data);
    }
    (now_ns() - t0) as f64 / f64::from(PASSES)
}
