//! Whether the core's execution units were shared: the throughput of four independent add
//! chains over the latency of one.
//!
//! A dependent chain of adds runs at one add per cycle whatever else runs on the physical core:
//! each add waits for the one before, and the adders sit idle in between. Four independent
//! chains run as fast as the core's adders allow, and lose up to half of that when another
//! hardware thread uses the same adders. On a VM that thread can be another guest's, on the
//! host's sibling of our virtual CPU: no counter in the guest sees it (no steal, no switch, no
//! other work), but throughput-bound code runs slow. On the 2-core Zen 3 VM this project was
//! measured on, with the guest quiet, one quick run read 3.71 before and 2.22 after, and
//! thirty readings in a row stepped from 2.9 to 1.8 within a few milliseconds.
//!
//! The ratio's value depends on the core (its adders, its loop overhead), so one reading says
//! little; two readings of the same run that differ say the core's share changed during it.
//! A block whose two readings agree can still have run with a shared core: every reading is
//! also kept as the best seen on its CPU in this process ([`best_on`]), and a block with a
//! reading more than [`SHARE_LOW`] below that best ran, for part of its time at least, on a
//! core it shared ([`low`]). The bar is low because throughput-bound code feels a share the
//! probe barely shows: on the Zen 3 VM, in 7,247 pairs of readings taken with the guest quiet
//! (each pair around a 0.1 ms timing of fp_cost's per-element multiply), readings at the top
//! clustered within 2% of the best, and the multiply ran at 0.53 ns an element with the lower
//! reading within 5% of the best, at 0.68 to 0.85 ns with it 5 to 20% below. A run that is
//! slow from its first reading to its last cannot be told from a slower core this way.

use super::core_clock::time_kernel;
use super::{add_chain, add_chains4};
use crate::stats::median;
use std::sync::{LazyLock, Mutex};

/// The best reading seen on each CPU by this process: (CPU, ratio), seeded from the
/// environment ([`seed`]). Keyed by CPU because a hybrid processor's cores differ in their
/// adders.
static BEST: LazyLock<Mutex<Vec<(usize, f64)>>> = LazyLock::new(|| {
    Mutex::new(seed(
        std::env::var(SEED_VAR).ok(),
        std::env::var("MM_CORE").ok(),
    ))
});

/// The variable `run-all` passes each experiment: the best reading its earlier experiments
/// took on core `MM_CORE`, so that an experiment whose share reads low throughout is judged
/// against them.
pub const SEED_VAR: &str = "MM_CORE_SHARE_BEST";

/// The best kept from `MM_CORE_SHARE_BEST` (a ratio) for core `MM_CORE`; nothing unless both
/// are numbers that can be (a positive ratio, a core id).
fn seed(best: Option<String>, core: Option<String>) -> Vec<(usize, f64)> {
    let ratio = best.and_then(|b| b.trim().parse::<f64>().ok());
    let core = core.and_then(|c| c.trim().parse::<usize>().ok());
    match (ratio, core) {
        (Some(r), Some(c)) if r.is_finite() && r > 0.0 => vec![(c, r)],
        _ => Vec::new(),
    }
}

/// Loop iterations of one timed kernel (16 adds each): about 10 us for the chain at 3 GHz.
const ITERS: u64 = 2_000;
/// Timed pairs (one chain, then the four chains); the median of each is kept. Not the
/// fastest: a sibling thread that comes and goes leaves some fast timings in any stretch,
/// and the fastest would hide it.
pub const PAIRS: usize = 41;
/// Two readings further apart than this share (of the higher) mean the core's share changed.
pub const SHARE_MOVED: f64 = 0.2;
/// A reading further than this share below the best on its core means the core was shared
/// when it was taken: five times the 2% within which readings cluster at the top.
pub const SHARE_LOW: f64 = 0.1;

/// One reading: how many times faster four independent chains ran than one dependent chain
/// (the same number of adds), the median of [`PAIRS`] timings each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Share {
    pub ratio: f64,
}

/// Reads the ratio now (about 1 ms), or `None` on an architecture without the kernels and
/// under an emulator (where it would time the translator, not the core).
pub fn probe() -> Option<Share> {
    if crate::emulation::emulated() {
        return None;
    }
    add_chains4(1)?;
    let (mut one, mut four) = (Vec::new(), Vec::new());
    for _ in 0..PAIRS {
        one.push(time_kernel(add_chain, ITERS));
        four.push(time_kernel(add_chains4, ITERS).max(1.0));
    }
    let (one, four) = (median(&one)?, median(&four)?);
    let share = Share { ratio: one / four };
    if let Some(cpu) = crate::pin::current_cpu() {
        keep_best(
            &mut BEST.lock().unwrap_or_else(|e| e.into_inner()),
            cpu,
            share,
        );
    }
    Some(share)
}

/// Reads the ratio on `core` from the calling thread: here where the thread is pinned to
/// that core alone, else on a short-lived thread pinned to it (a parent that waits for
/// pinned children reads their core, not its own). `None` where that thread cannot be held
/// on the core, or [`probe`] gives none.
pub fn probe_on(core: usize) -> Option<Share> {
    if crate::pin::allowed_cores() == [core] {
        return probe();
    }
    std::thread::scope(|s| {
        s.spawn(|| {
            crate::pin::pin_current_thread(core)
                .verified()
                .then(probe)
                .flatten()
        })
        .join()
        .ok()
        .flatten()
    })
}

/// The best reading this process has taken on `core` ([`probe`] keeps one per CPU).
pub fn best_on(core: usize) -> Option<Share> {
    let best = BEST.lock().unwrap_or_else(|e| e.into_inner());
    best.iter()
        .find(|(c, _)| *c == core)
        .map(|&(_, ratio)| Share { ratio })
}

/// Keeps `s` as `cpu`'s best in `best` if it is better than the one kept.
pub fn keep_best(best: &mut Vec<(usize, f64)>, cpu: usize, s: Share) {
    match best.iter_mut().find(|(c, _)| *c == cpu) {
        Some((_, r)) => *r = r.max(s.ratio),
        None => best.push((cpu, s.ratio)),
    }
}

/// Whether a reading of a block fell more than [`SHARE_LOW`] below `best`, the best reading
/// of the same core: the block ran, for part of its time at least, on a shared core.
pub fn low((before, after): (Share, Share), best: Share) -> bool {
    let lower = before.ratio.min(after.ratio);
    best.ratio > 0.0 && (best.ratio - lower) / best.ratio > SHARE_LOW
}

/// Whether two readings of one run differ by more than [`SHARE_MOVED`].
pub fn moved(before: Share, after: Share) -> bool {
    let (lo, hi) = (before.ratio.min(after.ratio), before.ratio.max(after.ratio));
    hi > 0.0 && (hi - lo) / hi > SHARE_MOVED
}

/// The line a run prints when the share moved: "4 independent add chains ran 2.90x one chain
/// before, 1.90x after: ...".
pub fn describe(before: Share, after: Share) -> String {
    format!(
        "4 independent add chains ran {:.2}x one chain before, {:.2}x after: likely another \
         thread on this physical core; throughput-bound figures may read slow",
        before.ratio, after.ratio
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_of_a_fifth_is_a_move() {
        let s = |ratio| Share { ratio };
        assert!(!moved(s(2.9), s(2.8)));
        assert!(!moved(s(2.5), s(2.1)));
        assert!(moved(s(2.9), s(1.9)));
        assert!(moved(s(1.9), s(2.9)));
        let line = crate::fmt::field("! core share", &describe(s(2.9), s(1.9)));
        assert!(
            line.contains("2.90x one chain before, 1.90x after"),
            "{line}"
        );
        assert!(line.lines().count() <= 2, "{line}");
        assert!(line.lines().all(|l| l.chars().count() <= crate::fmt::WIDTH));
    }

    #[test]
    fn a_block_with_a_reading_a_tenth_below_the_cores_best_is_low() {
        let s = |ratio| Share { ratio };
        assert!(low((s(2.35), s(2.49)), s(3.2)));
        assert!(low((s(3.2), s(2.85)), s(3.2)), "one reading a tenth below");
        assert!(low((s(2.85), s(3.2)), s(3.2)), "either reading");
        assert!(!low((s(3.0), s(2.9)), s(3.2)), "both within a tenth");
        assert!(
            !low((s(3.4), s(3.3)), s(3.4)),
            "the block's own reading is the best"
        );
        let mut best = Vec::new();
        keep_best(&mut best, 1, s(2.5));
        keep_best(&mut best, 0, s(1.9));
        keep_best(&mut best, 1, s(3.1));
        keep_best(&mut best, 1, s(2.0));
        assert_eq!(best, [(1, 3.1), (0, 1.9)]);
    }

    #[test]
    fn the_seed_needs_a_positive_ratio_and_a_core() {
        let t = |b: &str, c: &str| seed(Some(b.into()), Some(c.into()));
        assert_eq!(t("3.25", "1"), [(1, 3.25)]);
        assert_eq!(t(" 3.25\n", "1"), [(1, 3.25)]);
        for (b, c) in [
            ("x", "1"),
            ("3", "-1"),
            ("0", "1"),
            ("NaN", "1"),
            ("inf", "1"),
        ] {
            assert!(t(b, c).is_empty(), "{b:?} {c:?}");
        }
        assert!(seed(None, Some("1".into())).is_empty());
        assert!(seed(Some("3".into()), None).is_empty());
    }

    /// A reading taken on a core, from a thread that may run on any (a test thread, as
    /// env_scan's parent), is kept as that core's best.
    #[test]
    fn a_reading_is_kept_as_the_best_of_its_cpu() {
        if crate::testing::emulated("the add chains' ratio") {
            return;
        }
        let Some(&core) = crate::pin::allowed_cores().first() else {
            return;
        };
        if let Some(s) = probe_on(core) {
            let best = best_on(core).expect("a reading is kept for its CPU");
            assert!(best.ratio >= s.ratio, "{best:?} < {s:?}");
        }
        assert_eq!(
            best_on(usize::MAX),
            None,
            "no reading on a core that is not there"
        );
    }

    /// A robust physical effect: four independent chains beat one dependent chain on every
    /// core with two adders or more (every x86-64 and current Arm core), even with a sibling
    /// thread taking half the adders (1.8x on the Zen 3 VM).
    #[test]
    fn independent_chains_run_faster_than_one() {
        if crate::testing::emulated("the add chains' ratio") {
            return;
        }
        if let Some(s) = probe() {
            assert!(s.ratio > 1.2, "four chains ran only {:.2}x one", s.ratio);
        }
    }
}
