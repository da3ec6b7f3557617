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
use measure::disturb::Probe;
use measure::rounds::{self, Step, Timed, Want};

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

/// Part 1's passes: the three variants taken round-robin (a b c a b c ...) through
/// [`rounds::interleaved`], so that drift over the run lands on every variant alike, each
/// pass judged by its evidence; a variant is warmed up (one discarded pass) before its first
/// pass and after a disturbed one, and disturbed passes are taken again within `want`'s
/// budget. Returns the three series, the checksum of every (c) sum, and how many there were.
pub fn round_robin(probe: &mut Probe, a: &[f32], want: &Want) -> ([Timed; 3], f64, usize) {
    use std::hint::black_box;
    let (mut checksum, mut sums) = (0.0f64, 0usize);
    let timed = rounds::interleaved(probe, want, 3, |step| {
        let (Step::Warm(i) | Step::Time(i)) = step;
        let ns = match i {
            0 => sink_bench_time_discarded(black_box(a)),
            1 => sink_bench_time_sink(black_box(a)),
            _ => {
                let mut sum = 0.0f32;
                let ns = sink_bench_time_checksum(black_box(a), &mut sum);
                checksum += f64::from(sum);
                sums += 1;
                ns
            }
        };
        ns as f64
    });
    let [x, y, z]: [Timed; 3] = timed.try_into().expect("three variants");
    ([x, y, z], checksum, sums)
}

/// Consecutive timed passes of variant (b) through [`rounds::run`]: a discarded warm-up pass
/// first (and after a disturbed pass), until `want` is met.
pub fn warm_passes(probe: &mut Probe, a: &[f32], want: &Want) -> Timed {
    rounds::run(probe, want, |_| {
        sink_bench_time_sink(std::hint::black_box(a)) as f64
    })
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

/// The latency of one dependent scalar float add in nanoseconds, per round: chains of 256k
/// additions (about 0.1 ms at 2 cycles and 4 GHz), through [`rounds::run`] (a warm-up chain
/// first). `None` where there is no chain kernel.
pub fn add_latency_ns(probe: &mut Probe, want: &Want) -> Option<Timed> {
    const ITERS: u64 = 16_384;
    fadd_chain_f32(1, 0.25)?;
    Some(rounds::run(probe, want, |_| {
        let t0 = now_ns();
        let x = fadd_chain_f32(std::hint::black_box(ITERS), 0.25).expect("a chain kernel");
        let dt = (now_ns() - t0) as f64;
        assert_eq!(
            x,
            (ITERS * CHAIN_UNROLL) as f32 * 0.25,
            "the chain adds exactly"
        );
        dt / (ITERS * CHAIN_UNROLL) as f64
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fault counter is the whole process's: tests that map 4 MiB take turns.
    static BIG: std::sync::Mutex<()> = std::sync::Mutex::new(());

    #[test]
    fn every_pass_sums_to_917504_exactly() {
        let _turn = BIG.lock().unwrap_or_else(|e| e.into_inner());
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
        let _turn = BIG.lock().unwrap_or_else(|e| e.into_inner());
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
