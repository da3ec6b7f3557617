//! The one loop and the three ways of treating its result.
//!
//! A scalar `f32` sum over [`N`] floats filled with `(i & 7) * 0.25`: every partial sum is a
//! multiple of 0.25 below 2^24 * 0.25, so every addition is exact and the total of one pass is
//! [`PASS_SUM`] whatever the order. Rust, like C without `-ffast-math`, may not reassociate a
//! float reduction, so the loop is one dependent scalar add per element.
//!
//! Each timing function is two clock reads around one pass, `#[inline(never)]` with a stable
//! symbol name so that the built binary can be disassembled and checked (see `asm.rs`).

use measure::clock::{CHAIN_UNROLL, fadd_chain_f32, now_ns};

/// 1 << 20 floats, 4 MiB.
pub const N: usize = 1 << 20;
/// The sum of one pass: 131072 times (0 + 0.25 + ... + 1.75) = 131072 * 7.
pub const PASS_SUM: f32 = 917_504.0;

/// Fills the array with `(i & 7) * 0.25`.
pub fn fill(a: &mut [f32]) {
    for (i, x) in a.iter_mut().enumerate() {
        *x = (i & 7) as f32 * 0.25;
    }
}

/// (a) The sum is computed and thrown away. Returns the nanoseconds between the two reads.
#[unsafe(no_mangle)]
#[inline(never)]
pub fn sink_bench_time_discarded(a: &[f32]) -> u64 {
    let t0 = now_ns();
    let mut s = 0.0f32;
    for &x in a {
        s += x;
    }
    let _ = s;
    let t1 = now_ns();
    t1 - t0
}

/// (b) The sum is handed to `black_box`, which the compiler must assume reads it.
#[unsafe(no_mangle)]
#[inline(never)]
pub fn sink_bench_time_sink(a: &[f32]) -> u64 {
    let t0 = now_ns();
    let mut s = 0.0f32;
    for &x in a {
        s += x;
    }
    std::hint::black_box(s);
    let t1 = now_ns();
    t1 - t0
}

/// (c) The sum is stored where the caller can see it; the caller adds it into a checksum.
#[unsafe(no_mangle)]
#[inline(never)]
pub fn sink_bench_time_checksum(a: &[f32], out: &mut f32) -> u64 {
    let t0 = now_ns();
    let mut s = 0.0f32;
    for &x in a {
        s += x;
    }
    *out = s;
    let t1 = now_ns();
    t1 - t0
}

/// Part 1's passes: one discarded warm-up pass of each variant, then `reps` rounds of (a),
/// (b), (c), taken round-robin so that drift over the run lands on every variant alike.
/// Returns the three series in nanoseconds and the checksum of (c)'s sums.
pub fn round_robin(a: &[f32], reps: usize) -> ([Vec<f64>; 3], f64) {
    use std::hint::black_box;
    let mut out = 0.0f32;
    black_box(sink_bench_time_discarded(black_box(a)));
    black_box(sink_bench_time_sink(black_box(a)));
    black_box(sink_bench_time_checksum(black_box(a), &mut out));
    let mut passes = [
        Vec::with_capacity(reps),
        Vec::with_capacity(reps),
        Vec::with_capacity(reps),
    ];
    let mut checksum = 0.0f64;
    for _ in 0..reps {
        passes[0].push(sink_bench_time_discarded(black_box(a)) as f64);
        passes[1].push(sink_bench_time_sink(black_box(a)) as f64);
        let mut sum = 0.0f32;
        passes[2].push(sink_bench_time_checksum(black_box(a), &mut sum) as f64);
        checksum += f64::from(sum);
    }
    (passes, checksum)
}

/// `n` consecutive timed passes of variant (b), after one discarded warm-up pass.
pub fn warm_passes(a: &[f32], n: usize) -> Vec<f64> {
    std::hint::black_box(sink_bench_time_sink(std::hint::black_box(a)));
    (0..n)
        .map(|_| sink_bench_time_sink(std::hint::black_box(a)) as f64)
        .collect()
}

/// The array as `f32`s inside a freshly mapped region, untouched: the first pass over it
/// takes one page fault per page inside whatever is timed.
pub fn floats(r: &mut measure::mem::Region) -> &mut [f32] {
    assert!(r.len() >= N * 4, "the region holds N floats");
    // SAFETY: the mapping is readable, writable, 2 MiB aligned (so f32-aligned) and at least
    // N * 4 bytes long; the slice borrows the region mutably, so nothing else aliases it.
    unsafe { std::slice::from_raw_parts_mut(r.as_ptr().cast::<f32>(), N) }
}

/// The minor page faults this process has taken so far (`getrusage`), if the call works.
pub fn minor_faults() -> Option<u64> {
    // SAFETY: an all-zero rusage is a valid value; getrusage only writes into it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: RUSAGE_SELF with a valid out-pointer.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    (rc == 0).then_some(ru.ru_minflt as u64)
}

/// One timed pass of variant (b) and the page faults taken during it (the fault counter is
/// read outside the timed region).
pub fn sink_pass_with_faults(a: &[f32]) -> (u64, Option<u64>) {
    let f0 = minor_faults();
    let ns = sink_bench_time_sink(a);
    let f1 = minor_faults();
    (ns, f0.zip(f1).map(|(x, y)| y.saturating_sub(x)))
}

/// Repeats variant (b) for `ms` milliseconds (so frequency scaling and placement settle);
/// returns how many passes that took.
pub fn settle(a: &[f32], ms: u64) -> u64 {
    let until = now_ns() + ms * 1_000_000;
    let mut passes = 0;
    while now_ns() < until {
        std::hint::black_box(sink_bench_time_sink(std::hint::black_box(a)));
        passes += 1;
    }
    passes
}

/// The latency of one dependent scalar float add in nanoseconds: the median of `rounds`
/// chains of 2M additions each. `None` where there is no chain kernel.
pub fn add_latency_ns(rounds: usize) -> Option<measure::stats::Summary> {
    const ITERS: u64 = 131_072; // 2M additions: about 1 ms at 2 cycles and 4 GHz
    fadd_chain_f32(1, 0.25)?;
    let mut per_add = Vec::with_capacity(rounds);
    for _ in 0..=rounds.max(1) {
        let t0 = now_ns();
        let x = fadd_chain_f32(std::hint::black_box(ITERS), 0.25)?;
        let dt = (now_ns() - t0) as f64;
        assert_eq!(
            x,
            (ITERS * CHAIN_UNROLL) as f32 * 0.25,
            "the chain adds exactly"
        );
        per_add.push(dt / (ITERS * CHAIN_UNROLL) as f64);
    }
    per_add.remove(0); // the first chain is a warm-up
    measure::stats::Summary::of(&per_add)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pass_sums_to_917504_exactly() {
        let mut a = vec![0.0f32; N];
        fill(&mut a);
        let mut out = 0.0;
        sink_bench_time_checksum(&a, &mut out);
        assert_eq!(out, PASS_SUM);
        // Exact in any order: the sum of the first 8 is 7, and 131072 blocks of 8.
        assert_eq!(a[..8].iter().sum::<f32>(), 7.0);
        assert_eq!(PASS_SUM, (N / 8) as f32 * 7.0);
    }

    #[test]
    fn a_fresh_region_faults_on_first_pass_only() {
        let mut r = measure::mem::Region::new(N * 4).expect("4 MiB mapping");
        let _ = r.advise(measure::mem::HugeAdvice::NoHuge);
        let a = floats(&mut r);
        let (_, cold) = sink_pass_with_faults(a);
        fill(a);
        let (_, warm) = sink_pass_with_faults(a);
        if let (Some(c), Some(w)) = (cold, warm) {
            assert!(c > w, "cold pass {c} faults, warm pass {w}");
        }
    }
}
