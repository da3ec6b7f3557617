//! Lab: the sink. `baseline::bench` times `sum_squares` over some data and reports
//! nanoseconds per pass, but it throws the sum away, so the compiler deletes the work and
//! the benchmark times two clock reads. The student fixes the *benchmark* in
//! `src/solution.rs`, not the code it times: the checker asks that the reported time follow
//! the input (ten times the data, about ten times the time) and that the summing loop be
//! in the built benchmark.

pub mod baseline;
#[cfg(not(mm_lab_swapped))]
pub mod solution;
#[cfg(mm_lab_swapped)]
pub mod solution {
    include!(concat!(env!("OUT_DIR"), "/solution.rs"));
}

/// Passes per measurement.
pub const PASSES: u32 = 20;

/// The lab's target and hint, for the checker.
pub const SPEC: labkit::Spec = labkit::Spec {
    name: "sink",
    measure: "scaling",
    target: 5.0,
    hint: "a result nobody reads is work the compiler may delete; hand the sum (and the \
           data) to std::hint::black_box inside the timed loop",
    cores: 1,
};

/// `n` random numbers below 2^20.
pub fn input(rng: &mut measure::ring::Rng, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| measure::ring::below(rng, 1 << 20) as u64)
        .collect()
}
