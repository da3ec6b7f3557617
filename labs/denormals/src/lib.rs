//! Lab: denormals. `baseline::smooth` runs a decaying filter (`y = y / 2 + x`) over a signal
//! that is loud for a moment and then almost silent: its quiet tail holds numbers so small
//! that they are denormal (below `f32::MIN_POSITIVE`), and on many cores every operation on
//! them takes a slow path. The student rewrites `src/solution.rs`.

pub mod baseline;
#[cfg(not(mm_lab_swapped))]
pub mod solution;
#[cfg(mm_lab_swapped)]
pub mod solution {
    include!(concat!(env!("OUT_DIR"), "/solution.rs"));
}

/// The lab's target and hint, for the checker.
pub const SPEC: labkit::Spec = labkit::Spec {
    name: "denormals",
    measure: "speedup",
    target: 2.0,
    hint: "the quiet tail is made of denormal numbers; treat anything smaller than \
           f32::MIN_POSITIVE as zero, in the input and in the filter's state",
    cores: 1,
};

/// The slowdown of denormal input over normal input, in the baseline, below which the
/// machine has no penalty worth an exercise.
pub const PENALTY_MIN: f64 = 3.0;

/// Samples of the loud start of every signal.
pub const LOUD: usize = 256;

/// A signal of `n` samples: [`LOUD`] samples in -1..1, then noise of size `quiet` (a
/// denormal size such as 1e-39, or a normal one for comparison).
pub fn input(rng: &mut measure::ring::Rng, n: usize, quiet: f32) -> Vec<f32> {
    (0..n)
        .map(|i| {
            let u = measure::ring::below(rng, 1 << 20) as f32 / (1 << 19) as f32 - 1.0;
            if i < LOUD { u } else { u * quiet }
        })
        .collect()
}

/// Whether two filter outputs agree: equal length, and every sample within a millionth of
/// its size or within 8 times the smallest normal number (denormals flushed to zero, in the
/// input and the filter's state, agree: the filter halves each error at every step).
pub fn same(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-6 * x.abs().max(y.abs()) + 8.0 * f32::MIN_POSITIVE)
}
