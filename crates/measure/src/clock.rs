//! The measuring instrument, measured first.
//!
//! [`now_ns`] is the clock every experiment uses: `CLOCK_MONOTONIC`, which never goes
//! backwards. [`probe`] reports what the clocks *claim* (`clock_getres`) beside what reading
//! one *costs* and the smallest non-zero step two readings ever show: a claimed resolution
//! of 1 ns does not mean 1 ns can be measured. [`estimate_core_clock`] times many short
//! chains of dependent integer additions (one cycle each on every current core) so that
//! later experiments can print cycles beside nanoseconds; [`RunClock`] compares an estimate
//! taken before the measurements with one taken after (the method and its reasons are in
//! the `core_clock` submodule).

use crate::stats::Summary;
use std::hint::black_box;
use std::time::Instant;

mod core_clock;
pub mod memory;
pub mod share;
pub use core_clock::{
    CLOCK_CHAIN_ADDS, CLOCK_CHAIN_STEPS, CLOCK_CHAINS_PER_ROUND, CLOCK_MOVED_PCT, CoreClock,
    RunClock, Spread, chain_long_enough, estimate_core_clock, ramp_finished,
};

/// Nanoseconds on `CLOCK_MONOTONIC` since an arbitrary fixed point.
#[inline(always)]
pub fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and CLOCK_MONOTONIC always exists on Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Times one call of `f` in nanoseconds with [`now_ns`].
#[inline(always)]
pub fn time_ns<R>(f: impl FnOnce() -> R) -> (f64, R) {
    let t0 = now_ns();
    let r = f();
    let t1 = now_ns();
    (t1.saturating_sub(t0) as f64, r)
}

/// The resolution a clock claims through `clock_getres`, in nanoseconds; `None` if refused.
pub fn claimed_resolution_ns(id: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid out-pointer; an unknown clock id makes the call fail, which we report.
    let rc = unsafe { libc::clock_getres(id, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// The AArch64 generic timer's virtual counter, `CNTVCT_EL0`: the counter Linux reads in the
/// vDSO for `CLOCK_MONOTONIC` there. `CNTFRQ_EL0` holds the frequency it claims (24 MHz to
/// 1 GHz on real cores; 62.5 MHz under qemu), so one tick is the finest step the clock can
/// show however small a resolution `clock_getres` claims. Elsewhere every answer is `None`.
pub mod counter {
    /// The counter's claimed frequency in Hz (`CNTFRQ_EL0`); `None` off AArch64, or 0.
    pub fn frequency_hz() -> Option<u64> {
        #[cfg(target_arch = "aarch64")]
        {
            let f: u64;
            // SAFETY: Linux lets EL0 read CNTFRQ_EL0; a register read, no memory touched.
            unsafe { std::arch::asm!("mrs {}, cntfrq_el0", out(reg) f, options(nomem, nostack)) };
            (f > 0).then_some(f)
        }
        #[cfg(not(target_arch = "aarch64"))]
        None
    }

    /// The counter now (`CNTVCT_EL0`, after an `isb` so it is not read ahead of the code
    /// before it); `None` off AArch64.
    pub fn ticks() -> Option<u64> {
        #[cfg(target_arch = "aarch64")]
        {
            let t: u64;
            // SAFETY: Linux lets EL0 read CNTVCT_EL0; `isb` only orders the read.
            unsafe {
                std::arch::asm!("isb", "mrs {}, cntvct_el0", out(reg) t, options(nomem, nostack))
            };
            Some(t)
        }
        #[cfg(not(target_arch = "aarch64"))]
        None
    }

    /// One tick in nanoseconds, rounded to the nearest: 1e9 / [`frequency_hz`] (42 ns at
    /// 24 MHz, 16 ns at 62.5 MHz, 1 ns at 1 GHz).
    pub fn tick_ns() -> Option<u64> {
        frequency_hz().map(|f| (1_000_000_000 + f / 2) / f)
    }
}

/// What [`on_core`] saw of one piece of work.
#[derive(Debug, Clone, Copy)]
pub struct OnCore<T> {
    pub out: T,
    /// The monotonic clock before and after the work.
    pub start_ns: u64,
    pub end_ns: u64,
    /// The thread's CPU time over the wall time: below 1 when it was off its core for part of
    /// the work; `None` where the thread's CPU clock cannot be read.
    pub cpu_share: Option<f64>,
}

impl<T> OnCore<T> {
    /// The wall time of the work.
    pub fn ns(&self) -> f64 {
        self.end_ns.saturating_sub(self.start_ns) as f64
    }
}

/// Runs `f` and reads how much of its wall time the calling thread spent on a core.
pub fn on_core<T>(f: impl FnOnce() -> T) -> OnCore<T> {
    let (c0, start_ns) = (thread_cpu_ns(), now_ns());
    let out = f();
    let (c1, end_ns) = (thread_cpu_ns(), now_ns());
    let cpu_share = match (c0, c1) {
        (Some(a), Some(b)) if end_ns > start_ns => {
            Some((b - a) as f64 / (end_ns - start_ns) as f64)
        }
        _ => None,
    };
    OnCore {
        out,
        start_ns,
        end_ns,
        cpu_share,
    }
}

/// What the clocks claim and what they cost, measured.
#[derive(Debug, Clone)]
pub struct ClockReport {
    /// `(clock name, claimed resolution in ns)` for MONOTONIC, REALTIME, PROCESS_CPUTIME_ID,
    /// and on AArch64 the tick of the counter under them ([`counter`], `CNTVCT_EL0`).
    pub claimed: Vec<(&'static str, Option<u64>)>,
    /// Median cost of one `clock_gettime(CLOCK_MONOTONIC)` in ns (over batches).
    pub gettime_cost_ns: Summary,
    /// Median cost of one `Instant::now()` in ns (over batches).
    pub instant_cost_ns: Summary,
    /// The smallest non-zero difference between two consecutive [`now_ns`] readings.
    pub min_step_ns: f64,
    /// The batches behind the two costs, `clock_gettime` then `Instant::now()`, each with
    /// its evidence of disturbance ([`reading_costs`]); the costs come from the clean ones.
    pub batches: Vec<crate::rounds::Timed>,
}

/// Measures the clock: claimed resolutions, the cost of a reading (batches of `per_batch`
/// readings, `batches` times, interleaving the two kinds), and the smallest visible step.
pub fn probe(batches: usize, per_batch: usize) -> ClockReport {
    let mut claimed = vec![
        (
            "CLOCK_MONOTONIC",
            claimed_resolution_ns(libc::CLOCK_MONOTONIC),
        ),
        (
            "CLOCK_REALTIME",
            claimed_resolution_ns(libc::CLOCK_REALTIME),
        ),
        (
            "CLOCK_PROCESS_CPUTIME_ID",
            claimed_resolution_ns(libc::CLOCK_PROCESS_CPUTIME_ID),
        ),
    ];
    if let Some(tick) = counter::tick_ns() {
        claimed.push(("CNTVCT_EL0", Some(tick)));
    }
    let want = crate::rounds::Want::new(batches);
    let batches = reading_costs(&mut crate::disturb::Probe::new(), &want, per_batch);
    ClockReport {
        claimed,
        gettime_cost_ns: batches[0].summary().expect("batches > 0"),
        instant_cost_ns: batches[1].summary().expect("batches > 0"),
        min_step_ns: smallest_step_ns(per_batch.max(1000)),
        batches,
    }
}

/// The cost of one reading of `clock_gettime(CLOCK_MONOTONIC)` (variant 0) and of
/// `Instant::now()` (variant 1), in ns: batches of `per_batch` readings, the two interleaved
/// (so drift hits both alike) and judged by their evidence ([`crate::rounds::interleaved`]).
pub fn reading_costs(
    probe: &mut crate::disturb::Probe,
    want: &crate::rounds::Want,
    per_batch: usize,
) -> Vec<crate::rounds::Timed> {
    use crate::rounds::Step;
    crate::rounds::interleaved(probe, want, 2, |step| {
        let (Step::Warm(k) | Step::Time(k)) = step;
        let t0 = now_ns();
        if k == 0 {
            for _ in 0..per_batch {
                black_box(now_ns());
            }
        } else {
            for _ in 0..per_batch {
                black_box(Instant::now());
            }
        }
        (now_ns() - t0) as f64 / per_batch as f64
    })
}

/// The smallest non-zero difference between two back-to-back clock readings over `tries`.
pub fn smallest_step_ns(tries: usize) -> f64 {
    let mut best = u64::MAX;
    for _ in 0..tries {
        let a = now_ns();
        let b = now_ns();
        if b > a && b - a < best {
            best = b - a;
        }
    }
    if best == u64::MAX {
        f64::NAN
    } else {
        best as f64
    }
}

/// How many repetitions make one timed batch last at least `min_batch_ns`, so that the
/// clock's step is a negligible share of it (the rule "repeat and divide"). `one` runs the
/// work once; the count doubles until a batch is long enough.
pub fn calibrate_reps(min_batch_ns: f64, mut one: impl FnMut()) -> u64 {
    let mut reps: u64 = 1;
    loop {
        let t0 = now_ns();
        for _ in 0..reps {
            one();
        }
        let dt = (now_ns() - t0) as f64;
        if dt >= min_batch_ns || reps >= 1 << 40 {
            return reps;
        }
        reps *= 2;
    }
}

/// Number of dependent additions per loop iteration of [`add_chain`] and [`fadd_chain_f32`].
pub const CHAIN_UNROLL: u64 = 16;

/// One instruction template written 16 times, one per line ([`CHAIN_UNROLL`]).
macro_rules! sixteen {
    ($i:literal) => {
        concat!(
            $i, "\n", $i, "\n", $i, "\n", $i, "\n", $i, "\n", $i, "\n", $i, "\n", $i, "\n", $i,
            "\n", $i, "\n", $i, "\n", $i, "\n", $i, "\n", $i, "\n", $i, "\n", $i
        )
    };
}

/// The body of a chain kernel: `$iters * 16` times `x = x op y` in registers only, one
/// instruction per step (each needing the previous one's result), looping on a counter.
/// Per architecture: the instruction text (`{x}` the chain, `{y}` the operand) and the
/// register class of `x` and `y`. Returns `Some(x)`, or `None` on an architecture without a
/// kernel here. Each kernel stays its own `#[inline(never)]` function.
macro_rules! chain {
    ($iters:expr, $x:expr, $y:expr,
     x86_64: $x86:literal in $x86_reg:ident, aarch64: $arm:literal in $arm_reg:ident) => {{
        let (mut x, y, mut n) = ($x, black_box($y), $iters.max(1));
        #[cfg(target_arch = "x86_64")]
        {
            // SAFETY: register-only arithmetic, no memory or stack use (SSE is part of the
            // x86-64 baseline).
            unsafe {
                std::arch::asm!(
                    "2:",
                    sixteen!($x86),
                    "dec {n}",
                    "jnz 2b",
                    x = inout($x86_reg) x, y = in($x86_reg) y, n = inout(reg) n,
                    options(nomem, nostack),
                );
            }
            return Some(x);
        }
        #[cfg(target_arch = "aarch64")]
        {
            // SAFETY: register-only arithmetic, no memory or stack use.
            unsafe {
                std::arch::asm!(
                    "2:",
                    sixteen!($arm),
                    "subs {n}, {n}, #1",
                    "b.ne 2b",
                    x = inout($arm_reg) x, y = in($arm_reg) y, n = inout(reg) n,
                    options(nomem, nostack),
                );
            }
            return Some(x);
        }
        #[allow(unreachable_code)]
        None
    }};
}

/// Runs `iters * 16` dependent integer additions, each needing the previous one's result,
/// so the chain takes one cycle per addition on any core that executes one add per cycle of
/// latency. The addend is a register, not an immediate, so no renamer folds the chain away.
#[inline(never)]
#[allow(unused_mut, unused_variables, unused_assignments)]
pub fn add_chain(iters: u64) -> Option<u64> {
    chain!(iters, 0u64, 1u64,
        x86_64: "add {x}, {y}" in reg, aarch64: "add {x}, {x}, {y}" in reg)
}

/// Runs `iters * 16` integer additions in four independent chains of four a loop iteration,
/// the same work as [`add_chain`] with no addition waiting for another: as fast as the core's
/// adders allow. Returns the sum of the four, or `None` on an architecture without a kernel.
#[inline(never)]
#[allow(unused_mut, unused_variables, unused_assignments)]
pub fn add_chains4(iters: u64) -> Option<u64> {
    let (mut a, mut b, mut c, mut d) = (0u64, 0u64, 0u64, 0u64);
    let (y, mut n) = (black_box(1u64), iters.max(1));
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: register-only arithmetic, no memory or stack use.
        unsafe {
            std::arch::asm!(
                "2:",
                "add {a}, {y}", "add {b}, {y}", "add {c}, {y}", "add {d}, {y}",
                "add {a}, {y}", "add {b}, {y}", "add {c}, {y}", "add {d}, {y}",
                "add {a}, {y}", "add {b}, {y}", "add {c}, {y}", "add {d}, {y}",
                "add {a}, {y}", "add {b}, {y}", "add {c}, {y}", "add {d}, {y}",
                "dec {n}",
                "jnz 2b",
                a = inout(reg) a, b = inout(reg) b, c = inout(reg) c, d = inout(reg) d,
                y = in(reg) y, n = inout(reg) n,
                options(nomem, nostack),
            );
        }
        return Some(a + b + c + d);
    }
    #[cfg(target_arch = "aarch64")]
    {
        // SAFETY: register-only arithmetic, no memory or stack use.
        unsafe {
            std::arch::asm!(
                "2:",
                "add {a}, {a}, {y}", "add {b}, {b}, {y}", "add {c}, {c}, {y}", "add {d}, {d}, {y}",
                "add {a}, {a}, {y}", "add {b}, {b}, {y}", "add {c}, {c}, {y}", "add {d}, {d}, {y}",
                "add {a}, {a}, {y}", "add {b}, {b}, {y}", "add {c}, {c}, {y}", "add {d}, {d}, {y}",
                "add {a}, {a}, {y}", "add {b}, {b}, {y}", "add {c}, {c}, {y}", "add {d}, {d}, {y}",
                "subs {n}, {n}, #1",
                "b.ne 2b",
                a = inout(reg) a, b = inout(reg) b, c = inout(reg) c, d = inout(reg) d,
                y = in(reg) y, n = inout(reg) n,
                options(nomem, nostack),
            );
        }
        return Some(a + b + c + d);
    }
    #[allow(unreachable_code)]
    None
}

/// Runs `iters * 16` dependent scalar `f32` additions of `step`, in registers only (inline
/// assembly, so nothing can be reassociated, vectorised or removed): the latency of one
/// float add with no memory in the way. Returns the final sum, or `None` on an architecture
/// without a kernel here.
#[inline(never)]
#[allow(unused_mut, unused_variables, unused_assignments)]
pub fn fadd_chain_f32(iters: u64, step: f32) -> Option<f32> {
    chain!(iters, 0.0f32, step,
        x86_64: "addss {x}, {y}" in xmm_reg, aarch64: "fadd {x:s}, {x:s}, {y:s}" in vreg)
}

/// The calling thread's CPU time in nanoseconds (`CLOCK_THREAD_CPUTIME_ID`), if readable.
/// Its growth over a stretch of wall time says how much of that time the thread was on a core:
/// below the wall time, something else ran there.
pub fn thread_cpu_ns() -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: a valid out-pointer; the call only fails for an unknown clock, which we report.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_is_aarch64s_alone() {
        let on_arm = cfg!(target_arch = "aarch64");
        assert_eq!(counter::frequency_hz().is_some(), on_arm);
        assert_eq!(counter::ticks().is_some(), on_arm);
        let named = probe(1, 10)
            .claimed
            .iter()
            .any(|(name, _)| name.starts_with("CNTVCT_EL0"));
        assert_eq!(named, on_arm);
    }

    /// `CNTFRQ_EL0` read, and checked: over 50 ms of `CLOCK_MONOTONIC` the counter advances
    /// by the frequency it claims (within 2%, the best of three tries, so that a preemption
    /// between two readings cannot fail it).
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn the_counter_runs_at_the_frequency_it_claims() {
        let f = counter::frequency_hz().expect("CNTFRQ_EL0 is set") as f64;
        assert!((1e6..=5e9).contains(&f), "{f} Hz");
        let tick = counter::tick_ns().unwrap() as f64;
        assert!((tick - 1e9 / f).abs() <= 0.5, "{tick} ns a tick at {f} Hz");
        let off = (0..3)
            .map(|_| {
                let (t0, c0) = (now_ns(), counter::ticks().unwrap());
                std::thread::sleep(std::time::Duration::from_millis(50));
                let (t1, c1) = (now_ns(), counter::ticks().unwrap());
                let rate = (c1 - c0) as f64 / ((t1 - t0) as f64 * 1e-9);
                (rate / f - 1.0).abs()
            })
            .fold(f64::INFINITY, f64::min);
        assert!(
            off < 0.02,
            "the counter runs {:.1}% off its frequency",
            off * 100.0
        );
    }

    #[test]
    fn thread_cpu_time_grows_with_work_and_not_beyond_wall_time() {
        let (c0, t0) = (thread_cpu_ns().expect("readable on Linux"), now_ns());
        let mut x = 0u64;
        while now_ns() - t0 < 5_000_000 {
            x = black_box(x.wrapping_add(1));
        }
        let (c1, t1) = (thread_cpu_ns().unwrap(), now_ns());
        assert!(c1 > c0);
        // CPU time cannot exceed wall time (allow the clocks' granularity).
        assert!(c1 - c0 <= t1 - t0 + 1_000_000, "{} > {}", c1 - c0, t1 - t0);
    }

    #[test]
    fn add_chain_adds_exactly_what_it_says() {
        if let Some(x) = add_chain(1000) {
            assert_eq!(x, 1000 * CHAIN_UNROLL);
        }
        if let Some(x) = add_chains4(1000) {
            assert_eq!(x, 1000 * CHAIN_UNROLL);
        }
    }

    #[test]
    fn fadd_chain_adds_exactly_what_it_says() {
        if let Some(x) = fadd_chain_f32(100, 0.25) {
            assert_eq!(x, (100 * CHAIN_UNROLL) as f32 * 0.25);
        }
    }

    #[test]
    fn clock_is_monotonic_and_moves() {
        let a = now_ns();
        let mut b = now_ns();
        while b == a {
            b = now_ns();
        }
        assert!(b > a);
    }

    #[test]
    fn probe_reports_plausible_costs() {
        let r = probe(5, 2000);
        // Three clocks, and on AArch64 the counter under them.
        let asked = if cfg!(target_arch = "aarch64") { 4 } else { 3 };
        assert_eq!(r.claimed.len(), asked);
        assert!(r.gettime_cost_ns.median > 0.0 && r.gettime_cost_ns.median < 100_000.0);
        assert!(r.min_step_ns > 0.0);
    }
}
