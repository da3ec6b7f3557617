//! Lab: branch. `baseline::filter` keeps the bytes at or above a threshold, with an `if` the
//! predictor cannot learn on random data. The student rewrites `src/solution.rs`.

pub mod baseline;
#[cfg(not(mm_lab_swapped))]
pub mod solution;
#[cfg(mm_lab_swapped)]
pub mod solution {
    include!(concat!(env!("OUT_DIR"), "/solution.rs"));
}

/// Bytes at or above this value are kept: about half of random bytes.
pub const THRESHOLD: u8 = 128;

/// The lab's target and hint, for the checker.
pub const SPEC: labkit::Spec = labkit::Spec {
    name: "branch",
    measure: "speedup",
    target: 3.0,
    hint: "on random data the `if` is a coin toss for the predictor; keep the work but \
           choose without a jump (write every byte, advance the output by 0 or 1)",
    cores: 1,
};

/// `n` random bytes from `rng`.
pub fn input(rng: &mut measure::ring::Rng, n: usize) -> Vec<u8> {
    (0..n)
        .map(|_| measure::ring::below(rng, 256) as u8)
        .collect()
}
