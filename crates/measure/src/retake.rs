//! Taking a block again when the core's share was unsteady during it.
//!
//! A block's rounds can all be clean by the guest's counters while the host gives the core to
//! another thread for part of the block ([`crate::clock::share`]): its share moved between the
//! block's two readings, or one of them read low against the best on its core. Such a block
//! is provisional. Where the block is short, the right answer can often still be had: the
//! host's changes come and go over seconds, so a second take a moment later may run with a
//! steady share. [`take`] times a block inside a [`Window`] and, while its share (or, for a
//! memory-bound block, the memory reference) was unsteady, takes it again, up to [`RETAKES`]
//! times and only while one take lasts under [`MAX_TAKE`], so that a long block keeps its
//! first take (and its mark) and a quiet run takes nothing twice. The last take is kept, whatever it shows: the choice is made by the
//! evidence, never by the values.
//!
//! A block that shared its core with other work of this machine is not taken again: that work
//! is still there a moment later, and the share readings themselves were cut into its time
//! slices, so they say nothing of the host.
//!
//! A long scan is taken in parts ([`Parts`]): each point of it in its own window, so that only
//! the points whose share was unsteady are taken again, and retakes of the whole scan cost at
//! most [`SCAN_BUDGET`] of its time on top.

use crate::disturb::{Load, OTHER_ON_CORE, Site, Window};
use std::time::{Duration, Instant};

/// A block is taken again at most this many times.
pub const RETAKES: u32 = 2;
/// ... and only while one take of it lasts under this.
pub const MAX_TAKE: Duration = Duration::from_secs(2);
/// The parts of a scan are taken again only while the retakes so far took less than this
/// share of the time its first takes took.
pub const SCAN_BUDGET: f64 = 0.5;

/// Runs `block` inside a [`Window`] on `core`, again while [`again`] says so, and returns the
/// last take's value and load ([`Load::retakes`] says how many takes were discarded).
pub fn take<T>(core: Option<usize>, block: impl FnMut() -> T) -> (T, Load) {
    take_at(Site::on(core), block)
}

/// [`take`] at `site`: a memory-bound block's window reads the memory reference too, and a
/// take during which it moved is taken again like one whose share moved.
pub fn take_at<T>(site: Site, mut block: impl FnMut() -> T) -> (T, Load) {
    until_steady(
        || window_take(|| Window::open_at(site), &mut block),
        |_, _| true,
    )
}

/// [`take_at`] for a team's block, whose workers are pinned to `cores`: its window reads the
/// share on each of them ([`Window::open_team`]). The workers' own evidence, not the window,
/// says whether other work of this machine shared their cores: a take for which `alone`
/// says no is kept, as a pinned block with other work on its core is.
pub fn take_team<T>(
    site: Site,
    cores: &[usize],
    alone: impl Fn(&T) -> bool,
    mut block: impl FnMut() -> T,
) -> (T, Load) {
    let open = || Window::open_team(site, cores);
    until_steady(|| window_take(open, &mut block), |v, _| alone(v))
}

/// One take of `block` inside the [`Window`] `open` opens: its value, its load and how long
/// it took.
fn window_take<T>(
    open: impl FnOnce() -> Window,
    block: &mut impl FnMut() -> T,
) -> (T, Load, Duration) {
    let window = open();
    let t0 = Instant::now();
    let value = block();
    let took = t0.elapsed();
    (value, window.close(), took)
}

/// Takes `once` (a value, the load around it, how long it took) until [`again`] says no or
/// `may` (given the take's value and how long it took) refuses, and keeps the last take, its
/// load counting the takes discarded before it.
fn until_steady<T>(
    mut once: impl FnMut() -> (T, Load, Duration),
    mut may: impl FnMut(&T, Duration) -> bool,
) -> (T, Load) {
    let mut retakes = 0;
    loop {
        let (value, load, took) = once();
        let within = may(&value, took);
        let load = Load { retakes, ..load };
        if !again(&load, took) || !within {
            return (value, load);
        }
        retakes += 1;
    }
}

/// Whether a take with `load`, which lasted `took`, is taken again: its core's share moved or
/// read low or its memory reference moved ([`Load::unsteady`]), no other work of this machine
/// shared its core, it was taken fewer than [`RETAKES`] times again so far, and it was short.
pub fn again(load: &Load, took: Duration) -> bool {
    load.unsteady()
        && load.on_core.is_none_or(|c| c <= OTHER_ON_CORE)
        && load.retakes < RETAKES
        && took <= MAX_TAKE
}

/// A scan taken in parts, one [`Window`] each, retaken part by part within [`SCAN_BUDGET`].
#[derive(Debug, Default)]
pub struct Parts {
    /// Time of every part's first take.
    first: Duration,
    /// Time of every take after a part's first.
    retaken: Duration,
}

impl Parts {
    pub fn new() -> Parts {
        Parts::default()
    }

    /// Takes one part of the scan, as [`take`] does, while the scan's retakes stay within
    /// its budget.
    pub fn take<T>(&mut self, core: Option<usize>, block: impl FnMut() -> T) -> (T, Load) {
        self.take_at(Site::on(core), block)
    }

    /// [`Parts::take`] at `site`: a memory-bound part's window reads the memory reference
    /// too, as [`take_at`]'s does.
    pub fn take_at<T>(&mut self, site: Site, mut block: impl FnMut() -> T) -> (T, Load) {
        self.take_with(|| window_take(|| Window::open_at(site), &mut block))
    }

    /// [`Parts::take`] with the takes given: `once` is one take (value, load, time).
    fn take_with<T>(&mut self, once: impl FnMut() -> (T, Load, Duration)) -> (T, Load) {
        let mut first = true;
        until_steady(once, |_, took| {
            if std::mem::take(&mut first) {
                self.first += took;
            } else {
                self.retaken += took;
            }
            self.retaken.as_secs_f64() < SCAN_BUDGET * self.first.as_secs_f64()
        })
    }
}

/// The promise a report makes where it uses [`take`]: "a block whose core share moved or read
/// low, with no other work on its core, is taken again, up to 2 times, while one take lasts
/// under 2 s".
pub fn promise() -> String {
    format!(
        "a block whose core share moved or read low (or, beyond the caches, whose memory \
         reference moved), with no other work on its core, is taken again, up to {RETAKES} \
         times, while one take lasts under {} s",
        MAX_TAKE.as_secs()
    )
}

/// The promise of a scan taken in [`Parts`].
pub fn parts_promise() -> String {
    format!(
        "each part of the scan (a size, a count, a layout) is taken in its own window; a part \
         whose core share moved or read low (or, beyond the caches, whose memory reference \
         moved), with no other work on its core, is taken again, up to {RETAKES} times, while \
         the retakes add under {:.0}% to the scan",
        SCAN_BUDGET * 100.0
    )
}

/// The promise as a report's line: "  retakes        : a block whose core share ...".
pub fn line() -> String {
    crate::fmt::field("retakes", &promise())
}

/// The promise of a team's block taken with [`take_team`], as a report's line of its own:
/// "  retakes        : taken again, up to 2 times, while a core's share or the memory was
/// unsteady" (the memory where the block is memory-bound; the limit of [`MAX_TAKE`] a take
/// is the README's to say: the line stays one line).
pub fn team_line() -> String {
    let promise = format!(
        "taken again, up to {RETAKES} times, while a core's share or the memory was unsteady"
    );
    crate::fmt::field("retakes", &promise)
}

/// The promise of a scan taken in [`Parts`] as a report's line.
pub fn parts_line() -> String {
    crate::fmt::field("retakes", &parts_promise())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::memory::MemRef;
    use crate::clock::share::Share;

    fn load(before: f64, after: f64, retakes: u32) -> Load {
        Load {
            share: Some((Share { ratio: before }, Share { ratio: after })),
            share_best: Some(Share { ratio: 3.7 }),
            retakes,
            ..Default::default()
        }
    }

    #[test]
    fn only_a_short_unsteady_block_is_taken_again_within_the_budget() {
        let short = Duration::from_millis(300);
        assert!(!again(&load(3.6, 3.7, 0), short), "steady: kept");
        assert!(again(&load(3.6, 2.0, 0), short), "moved");
        assert!(again(&load(2.1, 2.2, 0), short), "low at both ends");
        assert!(
            again(&load(3.7, 3.2, 0), short),
            "low at one end, not moved"
        );
        assert!(again(&load(3.6, 2.0, RETAKES - 1), short));
        assert!(!again(&load(3.6, 2.0, RETAKES), short), "budget spent");
        assert!(
            !again(&load(3.6, 2.0, 0), MAX_TAKE * 2),
            "too long to take again"
        );
        assert!(
            !again(&Load::default(), short),
            "no reading, nothing to judge"
        );
        let memory = |b, a| Load {
            memory: Some((MemRef { ns: b }, MemRef { ns: a })),
            ..load(3.6, 3.7, 0)
        };
        assert!(again(&memory(180.0, 260.0), short), "the memory moved");
        assert!(!again(&memory(180.0, 200.0), short), "the memory held");
        let shared = Load {
            on_core: Some(0.5),
            ..load(3.6, 2.0, 0)
        };
        assert!(
            !again(&shared, short),
            "other work on the core: its slices cut the readings"
        );
    }

    /// A scan of parts of 100 ms each: a part is taken again while the scan's retakes took
    /// less than half of its first takes; a steady part never.
    #[test]
    fn the_parts_of_a_scan_are_taken_again_within_the_scans_budget() {
        let mut parts = Parts::new();
        let mut part = |readings: &[(f64, f64)]| {
            let mut k = 0;
            let (_, l) = parts.take_with(|| {
                let (b, a) = readings[k.min(readings.len() - 1)];
                k += 1;
                ((), load(b, a, 0), Duration::from_millis(100))
            });
            (k, l.retakes)
        };
        for _ in 0..3 {
            assert_eq!(part(&[(3.6, 3.7)]), (1, 0), "steady: taken once");
        }
        // First takes 400 ms, retakes 100 ms after this part.
        assert_eq!(
            part(&[(3.6, 2.0), (3.6, 3.6)]),
            (2, 1),
            "moved, then steady"
        );
        // First takes 500 ms, retakes 300 ms after this part.
        assert_eq!(part(&[(2.1, 2.2)]), (3, 2), "low: taken up to the limit");
        // First takes 600 ms: retakes of 300 ms are not under half of it.
        assert_eq!(part(&[(3.6, 2.0)]), (1, 0), "the budget is spent: kept");
        for _ in 0..2 {
            part(&[(3.6, 3.7)]);
        }
        // First takes 900 ms: room again.
        assert_eq!(
            part(&[(3.6, 2.0), (3.6, 3.6)]),
            (2, 1),
            "moved, then steady"
        );
        assert!(parts_promise().contains("under 50%"), "{}", parts_promise());
    }

    /// A sequence of takes with these share readings, 300 ms each: how many were taken, and
    /// which was kept.
    fn takes(readings: &[(f64, f64)]) -> (usize, Load) {
        let mut k = 0;
        let (v, l) = until_steady(
            || {
                let (b, a) = readings[k.min(readings.len() - 1)];
                k += 1;
                (k, load(b, a, 0), Duration::from_millis(300))
            },
            |_, _| true,
        );
        assert_eq!(v, k, "the last take is kept");
        (k, l)
    }

    /// A team's take whose workers met other work of this machine is kept, as a pinned
    /// block with other work on its core is: that work would be there a moment later.
    #[test]
    fn a_take_its_own_evidence_refuses_is_kept() {
        let mut k = 0;
        let (v, l) = until_steady(
            || {
                k += 1;
                (k, load(2.1, 2.2, 0), Duration::from_millis(300))
            },
            |v, _| *v < 2,
        );
        assert_eq!((v, l.retakes), (2, 1), "the second take met other work");
        assert!(l.share_low(), "kept with its evidence");
    }

    #[test]
    fn takes_go_on_while_unsteady_and_the_last_is_kept() {
        let (n, l) = takes(&[(3.6, 3.7)]);
        assert_eq!((n, l.retakes), (1, 0), "a steady block is taken once");
        let (n, l) = takes(&[(3.6, 2.0), (3.6, 3.6)]);
        assert_eq!((n, l.retakes), (2, 1), "moved, then steady");
        assert!(!l.share_moved());
        let (n, l) = takes(&[(2.1, 2.2)]);
        assert_eq!(n as u32, RETAKES + 1, "low every time: the budget ends it");
        assert_eq!(l.retakes, RETAKES);
        assert!(l.share_low(), "the last take keeps its evidence");
        assert!(promise().contains("up to 2 times"), "{}", promise());
        assert!(
            line()
                .lines()
                .all(|l| l.chars().count() <= crate::fmt::WIDTH)
        );
        let team = team_line();
        assert_eq!(
            team.lines().count(),
            1,
            "a team's promise is one line: {team}"
        );
        assert!(team.contains("up to 2 times") && team.contains("or the memory"));
    }
}
