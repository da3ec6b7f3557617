//! Lab: false sharing. `baseline::count` has two threads each add their half of the input
//! into their own counter, but the two counters sit side by side in one 64-byte line, so
//! every add by one thread takes the line away from the other. The student rewrites
//! `src/solution.rs`.

pub mod baseline;
#[cfg(not(mm_lab_swapped))]
pub mod solution;
#[cfg(mm_lab_swapped)]
pub mod solution {
    include!(concat!(env!("OUT_DIR"), "/solution.rs"));
}

/// Threads (and counters).
pub const THREADS: usize = 2;

/// The lab's target and hint, for the checker.
pub const SPEC: labkit::Spec = labkit::Spec {
    name: "false_sharing",
    measure: "speedup",
    target: 1.6,
    hint: "each thread has its own counter, but both live in one 64-byte line that the two \
           cores keep taking from each other; give each counter a line of its own",
    cores: 2,
};

/// `n` random numbers below 1,000.
pub fn input(rng: &mut measure::ring::Rng, n: usize) -> Vec<u64> {
    (0..n)
        .map(|_| measure::ring::below(rng, 1000) as u64)
        .collect()
}

/// Runs `work` as worker `t` of a call: pinned to its own core (the allowed cores in turn)
/// and watched, so that the checker can tell whether anything else took that core from it
/// while it worked. Each thread of `count` runs its share through this.
pub fn worker<T>(t: usize, work: impl FnOnce() -> T) -> T {
    let cores = measure::pin::allowed_cores();
    if !cores.is_empty() {
        measure::pin::pin_current_thread(cores[t % cores.len()]);
    }
    labkit::on_worker(work)
}
