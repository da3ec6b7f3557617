//! The measurement of one working set: the memory the rings live in, the rings, the warm-up
//! and the interleaved rounds.
//!
//! Three rings over the same single-cycle permutation, each in its own region, plus a
//! sequential sweep over the first region:
//!
//! - the index chase (`p = next[p]`, the appendix's method) on 4 KiB pages;
//! - the pointer chase (`p = *p`, one load per step) on 4 KiB pages;
//! - the same pointer chase on a region backed by huge pages, when there is one;
//! - the sequential sweep, summing the index ring's words in order, one add per word as the
//!   appendix's C loop does; and the same sum as the compiler writes it for an iterator,
//!   vectorised, to show how much faster an in-order read can go.
//!
//! The chases take their rounds in turn (index, pointer, huge, then again), so that whatever
//! the machine does during the run reaches all of them alike, then the sweeps do; every round
//! is short and judged by its evidence of disturbance (`measure::rounds`).

use measure::chase::{Link, Plan, Ring};
use measure::cli;
use measure::clock::now_ns;
use measure::disturb::{Load, Probe};
use measure::fmt::{bytes, say};
use measure::keep::black_box;
use measure::mem::{self, HugeAdvice, Prepared, Region, backing_meta};
use measure::ring;
use measure::rounds::{self, Step, Timed, Want};
use measure::show::region_line;

/// The regions the rings live in, each as large as the largest working set.
pub struct Memory {
    /// 4 KiB pages (MADV_NOHUGEPAGE): the index ring, and the sequential sweep over it.
    pub index: Region,
    /// 4 KiB pages (MADV_NOHUGEPAGE): the pointer ring.
    pub pointer: Region,
    /// MADV_HUGEPAGE: the pointer ring again, when the region could be made.
    pub huge: Option<Region>,
    /// The largest working set the regions hold.
    pub max: u64,
    /// Each region's verified huge-page share when it was prepared.
    pub before: Backing,
}

/// The verified huge-page share (percent) of each region, `None` where it is unknown or
/// there is no such region.
#[derive(Debug, Clone, Copy)]
pub struct Backing {
    pub index: Option<f64>,
    pub pointer: Option<f64>,
    pub huge: Option<f64>,
}

impl Memory {
    /// The `#META` facts of the regions as prepared: each one's verified huge-page share
    /// (`skipped` for a huge region that could not be made).
    pub fn meta(&self) -> [(&'static str, String); 3] {
        let huge = match self.huge {
            Some(_) => backing_meta(self.before.huge),
            None => "skipped".to_string(),
        };
        [
            ("index_backing_pct", backing_meta(self.before.index)),
            ("pointer_backing_pct", backing_meta(self.before.pointer)),
            (::cache_ladder::schema::META_HUGE_BACKING_PCT, huge),
        ]
    }

    /// The backing read again from smaps (after the scan: a verdict needs it to have held).
    pub fn backing_after(&self) -> Backing {
        Backing {
            index: self.index.huge_backing(),
            pointer: self.pointer.huge_backing(),
            huge: self.huge.as_ref().and_then(Region::huge_backing),
        }
    }
}

/// Maps the three regions, each as large as `max` (halved until the memory is given), asks
/// for small pages, small pages and huge pages, touches every page so that no round pays for
/// first touch, and prints each region's verified backing ([`Memory::meta`] gives it for
/// the data part).
pub fn map(mut max: u64, page: usize, thp: Option<&str>) -> Memory {
    let show = |name: &str, p: &Prepared| {
        let asked = format!("{}, {:?} ", bytes(p.region.len() as u64), p.advice);
        let first = format!("  {name:<15}: ");
        println!("{}", region_line(&first, &" ".repeat(19), &asked, p));
    };
    loop {
        let small = || mem::prepare(max as usize, HugeAdvice::NoHuge, page);
        let (index, pointer) = match small().and_then(|i| Ok((i, small()?))) {
            Ok(pair) => pair,
            Err(e) => {
                if max <= 4096 {
                    cli::fail("cache_ladder", &format!("no memory for even 4 KiB: {e}"));
                }
                say(&format!("! {e}; trying half the largest working set"), "  ");
                max /= 2;
                continue;
            }
        };
        show("index region", &index);
        show("pointer region", &pointer);
        let (huge, huge_before) = match mem::prepare(max as usize, HugeAdvice::Huge, page) {
            Ok(h) => {
                show("huge region", &h);
                if h.backing.is_some_and(|b| b < 90.0) {
                    say(
                        &format!(
                            "! the huge-page request was not fully honoured (THP mode {}): the \
                             huge column measures what the kernel gave, with the share above",
                            thp.unwrap_or("unknown")
                        ),
                        "  ",
                    );
                }
                (Some(h.region), h.backing)
            }
            Err(e) => {
                say(
                    &format!("huge region    : skipped: {e}; the huge-page column stays empty"),
                    "  ",
                );
                (None, None)
            }
        };
        return Memory {
            before: Backing {
                index: index.backing,
                pointer: pointer.backing,
                huge: huge_before,
            },
            index: index.region,
            pointer: pointer.region,
            huge,
            max,
        };
    }
}

/// Every round of one working set in one pass, in nanoseconds per step (per 8-byte word for
/// the sweep), each with its evidence of disturbance.
#[derive(Debug, Clone)]
pub struct Rounds {
    pub index: Timed,
    pub pointer: Timed,
    pub huge: Option<Timed>,
    pub seq: Timed,
    pub seq_vec: Timed,
    /// The load around this size's pass, taken in its own window
    /// ([`measure::retake::Parts`]).
    pub load: Load,
}

/// The sequential sweep as the compiler writes it: the wrapping sum of the words, in order.
/// The machine can see the next address coming and fetch ahead, and the compiler vectorises
/// the sum (two or more words per instruction). The result is compared with the sum the ring
/// must have, so a sweep that did not run is caught.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn cache_ladder_sweep(words: &[u64]) -> u64 {
    words.iter().fold(0u64, |a, &w| a.wrapping_add(w))
}

/// The appendix's sweep, `for (i = 0; i < n; i++) acc += buf[i];` as its C compiles: one
/// scalar add of one word per step, in order, so the two programs' columns compare. Written
/// in assembly on x86-64 and AArch64 because the Rust compiler would vectorise the plain loop
/// (as in [`cache_ladder_sweep`]); elsewhere it is the plain loop, and may be vectorised.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn cache_ladder_sweep_scalar(words: &[u64]) -> u64 {
    if words.is_empty() {
        return 0;
    }
    #[allow(unused_mut)]
    let mut acc: u64 = 0;
    let p = words.as_ptr();
    // SAFETY: `end` is one past the last word of a non-empty slice.
    let end = unsafe { p.add(words.len()) };
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: reads exactly the words of the slice, in order; no stack, no writes.
        unsafe {
            std::arch::asm!(
                "2:",
                "add {acc}, qword ptr [{p}]",
                "add {p}, 8",
                "cmp {p}, {end}",
                "jne 2b",
                acc = inout(reg) acc,
                p = inout(reg) p => _,
                end = in(reg) end,
                options(readonly, nostack),
            );
        }
        acc
    }
    #[cfg(target_arch = "aarch64")]
    {
        // SAFETY: reads exactly the words of the slice, in order; no stack, no writes.
        unsafe {
            std::arch::asm!(
                "2:",
                "ldr {t}, [{p}], #8",
                "add {acc}, {acc}, {t}",
                "cmp {p}, {end}",
                "b.ne 2b",
                acc = inout(reg) acc,
                p = inout(reg) p => _,
                end = in(reg) end,
                t = out(reg) _,
                options(readonly, nostack),
            );
        }
        acc
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = end;
        words.iter().fold(acc, |a, &w| a.wrapping_add(w))
    }
}

/// Times `sweep` over `words` `laps` times: nanoseconds per word. Panics if a lap's sum is
/// not `expect` (the sweep did not run over the ring it was given).
fn timed_sweep(words: &[u64], sweep: fn(&[u64]) -> u64, laps: u64, expect: u64) -> f64 {
    let t0 = now_ns();
    let mut sum = 0u64;
    for _ in 0..laps {
        sum = sum.wrapping_add(sweep(black_box(words)));
    }
    let t = (now_ns() - t0) as f64;
    assert_eq!(
        sum,
        expect.wrapping_mul(laps),
        "the sweep's checksum is wrong"
    );
    t / (laps as f64 * words.len() as f64)
}

/// Measures one working set of `bytes` (a multiple of 8), every round judged by `probe`.
pub fn measure(mem: &mut Memory, bytes: usize, plan: &Plan, probe: &mut Probe) -> Rounds {
    let n = bytes / 8;
    // The guard in main has made room for this permutation; a failure here is still one line.
    let next =
        ring::try_sattolo(n, ring::DEFAULT_SEED).unwrap_or_else(|e| cli::fail("cache_ladder", &e));
    let mut rings = vec![
        Ring::build(&mut mem.index.as_u64_mut()[..n], Link::Index, &next, |k| k),
        Ring::build(
            &mut mem.pointer.as_u64_mut()[..n],
            Link::Address,
            &next,
            |k| k,
        ),
    ];
    if let Some(h) = mem.huge.as_mut() {
        rings.push(Ring::build(
            &mut h.as_u64_mut()[..n],
            Link::Address,
            &next,
            |k| k,
        ));
    }
    drop(next);

    // Every timed round starts with its own warm-up, discarded, as the appendix's chase()
    // does: the rings take turns, and each turn evicts the others from the caches. The
    // warm-up first reads the ring's memory in order (the prefetchers bring a working set
    // into the caches in a millisecond, where a random lap of a cold 16 MiB ring takes a
    // fifth of a second), then walks the ring for a lap or until the cap, so the TLB and the
    // caches hold what the ring's steady state holds. A ring whose lap does not fit the
    // first warm-up's cap is far beyond the caches: sweeping 128 MiB before every quarter
    // millisecond round would cost fifty times the round and leave it reading memory all
    // the same, so such a ring is swept only before its first round (Plan::judged).
    let mut chases = plan
        .judged(probe, &mut rings, 1024, |r, first| {
            if first {
                black_box(cache_ladder_sweep(black_box(r.words())));
            }
        })
        .into_iter();
    let (index, pointer) = (
        chases.next().expect("index"),
        chases.next().expect("pointer"),
    );
    let huge = chases.next();
    let (seq, seq_vec) = sweeps(rings[0].words(), plan, probe);
    Rounds {
        index,
        pointer,
        huge,
        seq,
        seq_vec,
        load: Load::default(),
    }
}

/// The two sweeps over the index ring's `words`, in turn, judged by `probe`. A round is as
/// many laps as fill the plan's round, or, where a lap takes over twice a round (128 MiB
/// takes milliseconds, longer than the scheduler's slice), the next piece of the lap: the
/// same sweep in order over the same memory, timed a stretch at a time, so that each round
/// can fit between two preemptions. Every full lap of pieces is checked against the ring's
/// sum. The two sweeps read the same memory and do not evict each other: a lap, discarded,
/// warms them up before the first round and after a disturbed one only.
fn sweeps(words: &[u64], plan: &Plan, probe: &mut Probe) -> (Timed, Timed) {
    // The index ring holds every position 0..n once, so its words sum to n(n-1)/2.
    let n64 = words.len() as u64;
    let expect = if n64.is_multiple_of(2) {
        (n64 / 2).wrapping_mul(n64 - 1)
    } else {
        n64.wrapping_mul((n64 - 1) / 2)
    };
    let kinds: [fn(&[u64]) -> u64; 2] = [cache_ladder_sweep_scalar, cache_ladder_sweep];
    // One timed lap of each sweep (also a first check of the sums) sizes their rounds: laps
    // per round, or pieces per lap (a power of two, so they tile a working set of 2^k words;
    // none under 512 KiB).
    let lap_ns = kinds.map(|sweep| timed_sweep(words, sweep, 1, expect) * n64 as f64);
    let laps = lap_ns.map(|t| ((plan.round_ns / t).ceil() as u64).max(1));
    let pieces = lap_ns.map(|t| {
        let want = (t / plan.round_ns).ceil() as usize;
        if t <= 2.0 * plan.round_ns || !words.len().is_power_of_two() {
            1
        } else {
            want.next_power_of_two().min((words.len() >> 16).max(1))
        }
    });
    // Per sweep: the next piece, and the sum of this lap's pieces so far.
    let mut at = [(0usize, 0u64); 2];
    let want = Want::new(plan.rounds).budget(plan.budget_ns);
    let mut t = rounds::interleaved(probe, &want, 2, |step| match step {
        Step::Warm(_) => black_box(cache_ladder_sweep(black_box(words))) as f64,
        Step::Time(i) if pieces[i] == 1 => timed_sweep(words, kinds[i], laps[i], expect),
        Step::Time(i) => {
            let len = words.len() / pieces[i];
            let (k, sum) = at[i];
            let piece = &words[k * len..(k + 1) * len];
            let t0 = now_ns();
            let s = kinds[i](black_box(piece));
            let ns = (now_ns() - t0) as f64;
            at[i] = ((k + 1) % pieces[i], sum.wrapping_add(s));
            if at[i].0 == 0 {
                assert_eq!(at[i].1, expect, "the sweep's checksum is wrong");
                at[i].1 = 0;
            }
            ns / len as f64
        }
    });
    let seq_vec = t.pop().expect("two sweeps");
    (t.pop().expect("two sweeps"), seq_vec)
}
