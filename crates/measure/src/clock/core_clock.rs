//! The core clock, estimated so a run can trust it: many short chains of dependent additions,
//! timed after a warm-up that lasts until the core has reached its clock.
//!
//! Why the earlier estimate moved between experiments (3.94 to 4.43 GHz on one machine), and
//! what each part of the method answers:
//!
//! - **Disturbances only slow a chain.** Every dependent addition waits for the one before,
//!   so a chain of N additions takes at least N cycles. An interrupt, a preemption, a host
//!   that runs another guest on the core (a VM's clock keeps running while it waits), or a
//!   sibling thread competing for the adder can only add time. Each chain's rate is therefore
//!   at most the true clock, and a low reading says nothing about the clock.
//! - **Short chains, many of them.** The earlier chains lasted 2 ms, so every one spanned a
//!   timer tick (1 to 4 ms apart), and on a busy machine a good share were preempted; with
//!   5 or 11 of them the median itself was pulled low (ten estimates on a busy 2-core VM:
//!   0.6% to 1% low, one 8% low, while the fastest chain never moved by 0.03%). A chain here is
//!   2^20 additions, about 0.25 ms at 4 GHz: most chains see no interruption at all, and a
//!   round is the median of 21 of them.
//! - **The fastest round, not the median.** On a VM the host takes the core away for
//!   stretches no counter inside the guest sees (steal time): in one quiet reference run the
//!   median of 11 rounds read 3.37 GHz in one experiment and 3.69 GHz in the next, while the
//!   fastest round read 3.69 GHz in both. Since a round can only be slowed, the estimate is
//!   the fastest round (each round itself a median, so one glitched chain cannot set it), and
//!   the spread of the rounds is printed beside it as the measure of how disturbed they were.
//! - **Chains judged by their evidence.** Each chain is bracketed by the thread's scheduling
//!   counters ([`crate::disturb`]); a round's median leaves out the chains another task or the
//!   host interrupted, and [`CoreClock::tally`] counts them for a reading that must say so.
//! - **The timer's step.** A chain lasts at least 5,000 of the clock's smallest steps (the
//!   step is measured, and the chain doubled until it does), so the step is under 0.02% of a
//!   chain and the cost of reading the clock about as little.
//! - **Ramp-up.** A core that idled (between two experiments, say) may take tens of
//!   milliseconds to reach its clock. The warm-up runs chains until the rate stops rising
//!   (the median of the last 8 chains no more than 0.3% above the 8 before), at least 20 ms
//!   and at most 200 ms; [`CoreClock::steady`] says whether it got there.
//! - **The one-cycle assumption.** A dependent integer add takes one cycle on every current
//!   x86-64 and Arm core (none runs two dependent adds in one cycle), so the chain's rate
//!   is the clock. Because nothing makes a chain faster, a high reading is a real high clock:
//!   the clock itself moves on a shared host, which is why [`RunClock`] compares an estimate
//!   taken before the measurements with one taken after.

use super::{CHAIN_UNROLL, add_chain, now_ns, smallest_step_ns};
use crate::stats::{Summary, median};
use std::fmt;
use std::hint::black_box;

/// Dependent additions in one timed chain, at the least: 2^20, about 0.25 ms at 4 GHz.
pub const CLOCK_CHAIN_ADDS: u64 = 1 << 20;
/// Timed chains in one round; a round's figure is their median.
pub const CLOCK_CHAINS_PER_ROUND: usize = 21;
/// A chain lasts at least this many of the clock's smallest steps.
pub const CLOCK_CHAIN_STEPS: f64 = 5_000.0;
/// Before and after estimates further apart than this (in percent) mean the clock moved.
pub const CLOCK_MOVED_PCT: f64 = 2.0;

/// The warm-up runs at least this long (ns)...
const WARM_MIN_NS: u64 = 20_000_000;
/// ...and at most this long (ns), steady or not.
const WARM_MAX_NS: u64 = 200_000_000;
/// Chains per window when the warm-up compares the latest rates with the ones before.
const RAMP_WINDOW: usize = 8;
/// The warm-up ends when the latest window is no more than this share above the one before.
const RAMP_TOLERANCE: f64 = 0.003;
/// The step assumed when no two clock readings ever differed (a very coarse clock).
const UNKNOWN_STEP_NS: f64 = 1_000.0;

const METHOD: &str = "a chain of dependent integer additions, one cycle each";

/// An estimate of the core's clock rate.
#[derive(Debug, Clone, Default)]
pub struct CoreClock {
    /// The estimate in GHz: the fastest round (see the module's notes), if the method exists
    /// on this architecture.
    pub ghz: Option<f64>,
    /// How it was obtained, in words.
    pub method: &'static str,
    /// Each round's figure in GHz (the median of its chains), in the order taken.
    pub round_ghz: Vec<f64>,
    /// Additions in one timed chain.
    pub chain_adds: u64,
    /// How long the warm-up ran, in milliseconds.
    pub warmup_ms: f64,
    /// Whether the warm-up saw the rate stop rising before its time ran out.
    pub steady: bool,
    /// The timed chains, counted with their evidence of disturbance: a round's figure is the
    /// median of its clean chains (of all of them when none was clean).
    pub tally: crate::disturb::Tally,
}

impl CoreClock {
    /// Converts nanoseconds into cycles with the estimate, if there is one.
    pub fn cycles(&self, ns: f64) -> Option<f64> {
        self.ghz.map(|g| ns * g)
    }

    /// The rounds' lowest, median and highest figure, if there were rounds.
    pub fn spread(&self) -> Option<Spread> {
        Spread::of(&self.round_ghz)
    }

    /// The one line an experiment prints for the estimate (without its label):
    /// `4.279 GHz from an add chain (fastest of 11 rounds; 4.271..4.279, spread 0.19%)`, or
    /// why not.
    pub fn describe(&self) -> String {
        match (self.ghz, self.spread()) {
            (Some(g), Some(s)) => {
                let ramp = if self.steady {
                    ""
                } else {
                    "; the rate was still rising"
                };
                format!(
                    "{g:.3} GHz from an add chain (fastest of {} rounds; {s}{ramp})",
                    self.round_ghz.len()
                )
            }
            _ => format!("unknown ({}); no cycles are printed", self.method),
        }
    }
}

/// The lowest, median and highest of a set of estimates in GHz.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spread {
    pub min: f64,
    pub median: f64,
    pub max: f64,
}

impl Spread {
    /// The spread of `ghz`; `None` if it is empty or holds a NaN.
    pub fn of(ghz: &[f64]) -> Option<Spread> {
        let s = Summary::of(ghz)?;
        Some(Spread {
            min: s.min,
            median: s.median,
            max: s.max,
        })
    }

    /// How far the highest lies above the lowest, in percent of the lowest.
    pub fn pct(&self) -> f64 {
        100.0 * (self.max - self.min) / self.min
    }
}

/// `4.271..4.279, spread 0.19%`.
impl fmt::Display for Spread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:.3}..{:.3}, spread {:.2}%",
            self.min,
            self.max,
            self.pct()
        )
    }
}

/// The core clock across a run: the estimate before the measurements, the one after, and the
/// spread of every round of both.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunClock {
    pub before: f64,
    pub after: f64,
    /// Every round of both estimates.
    pub spread: Spread,
}

impl RunClock {
    /// Both estimates, if both exist.
    pub fn between(before: &CoreClock, after: &CoreClock) -> Option<RunClock> {
        let all: Vec<f64> = before
            .round_ghz
            .iter()
            .chain(&after.round_ghz)
            .copied()
            .collect();
        Some(RunClock {
            before: before.ghz?,
            after: after.ghz?,
            spread: Spread::of(&all)?,
        })
    }

    /// How far apart before and after are, in percent of the lower.
    pub fn apart_pct(&self) -> f64 {
        100.0 * (self.after - self.before).abs() / self.before.min(self.after)
    }

    /// Whether before and after differ by more than [`CLOCK_MOVED_PCT`].
    pub fn moved(&self) -> bool {
        self.apart_pct() > CLOCK_MOVED_PCT
    }

    /// What to print after the label: one line, or a wrapped sentence when the clock moved.
    pub fn describe(&self) -> String {
        let head = format!(
            "{:.3} GHz before, {:.3} GHz after: {:.2}% apart (every round within {:.2}%)",
            self.before,
            self.after,
            self.apart_pct(),
            self.spread.pct()
        );
        if self.moved() {
            format!(
                "{head}; the clock moved during the run: the cycles are computed with the \
                 before figure, and no figure measured here says when it moved, so read every \
                 cycle count as uncertain by about {:.0}%",
                self.apart_pct().ceil()
            )
        } else {
            head
        }
    }

    /// The `#META` pairs: `clock_ghz_before`, `clock_ghz_after`, `clock_spread_pct` (every
    /// round of both estimates), `clock_moved`.
    pub fn meta(&self) -> [(&'static str, String); 4] {
        [
            ("clock_ghz_before", format!("{:.3}", self.before)),
            ("clock_ghz_after", format!("{:.3}", self.after)),
            (
                crate::schema::run::META_CLOCK_SPREAD_PCT,
                format!("{:.2}", self.spread.pct()),
            ),
            ("clock_moved", crate::fmt::yes_no(self.moved()).into()),
        ]
    }
}

/// Whether a warm-up's chain rates have stopped rising: the median of the last
/// 8 is no more than 0.3% above the median of the 8 before.
pub fn ramp_finished(rates: &[f64]) -> bool {
    let n = rates.len();
    if n < 2 * RAMP_WINDOW {
        return false;
    }
    let med = |w: &[f64]| median(w).unwrap_or(f64::NAN);
    let last = med(&rates[n - RAMP_WINDOW..]);
    let before = med(&rates[n - 2 * RAMP_WINDOW..n - RAMP_WINDOW]);
    last <= before * (1.0 + RAMP_TOLERANCE)
}

/// Whether a chain of `chain_ns` is long enough for a clock whose smallest step is `step_ns`
/// (NaN: no step was ever seen, so the clock is assumed coarse).
pub fn chain_long_enough(chain_ns: f64, step_ns: f64) -> bool {
    let step = if step_ns.is_finite() && step_ns > 0.0 {
        step_ns
    } else {
        UNKNOWN_STEP_NS
    };
    chain_ns >= CLOCK_CHAIN_STEPS * step
}

/// Times one chain of `iters * CHAIN_UNROLL` additions in ns.
fn time_chain(iters: u64) -> f64 {
    time_kernel(add_chain, iters)
}

/// Times one call of a register-only kernel (`add_chain`, `add_chains4`) in ns, its result
/// kept alive.
pub(crate) fn time_kernel(kernel: fn(u64) -> Option<u64>, iters: u64) -> f64 {
    let t0 = now_ns();
    black_box(kernel(black_box(iters)));
    now_ns().saturating_sub(t0) as f64
}

/// Estimates the core clock from [`add_chain`]: a warm-up until the rate stops rising, then
/// `rounds` rounds of [`CLOCK_CHAINS_PER_ROUND`] chains; a round's figure is the median of its
/// chains, the estimate the fastest round. About 0.08 s for 11 rounds at 4 GHz (0.06 s of
/// rounds and at least 0.02 s of warm-up) when the core is already at its clock.
pub fn estimate_core_clock(rounds: usize) -> CoreClock {
    if add_chain(1).is_none() {
        return CoreClock {
            method: "no add-chain kernel for this architecture: cycles unknown",
            ..CoreClock::default()
        };
    }
    let step = smallest_step_ns(200);
    let mut iters = CLOCK_CHAIN_ADDS / CHAIN_UNROLL;
    let t0 = now_ns();
    let mut rates = Vec::new();
    let steady = loop {
        let ns = time_chain(iters);
        if !chain_long_enough(ns, step) && iters < (CLOCK_CHAIN_ADDS / CHAIN_UNROLL) << 6 {
            iters *= 2;
            rates.clear();
            continue;
        }
        rates.push((iters * CHAIN_UNROLL) as f64 / ns);
        let spent = now_ns() - t0;
        if spent >= WARM_MIN_NS && ramp_finished(&rates) {
            break true;
        }
        if spent >= WARM_MAX_NS {
            break false;
        }
    };
    let warmup_ms = (now_ns() - t0) as f64 / 1e6;
    let adds = iters * CHAIN_UNROLL;
    let probe = crate::disturb::Probe::new();
    let mut tally = crate::disturb::Tally::default();
    let round_ghz: Vec<f64> = (0..rounds.max(1))
        .map(|_| {
            let mut chains = crate::rounds::Timed::default();
            for _ in 0..CLOCK_CHAINS_PER_ROUND {
                let (ns, e) = probe.watch(|| time_chain(iters));
                chains.push(adds as f64 / ns, e);
            }
            tally = tally.merge(&chains.tally());
            median(&chains.used()).unwrap_or(f64::NAN)
        })
        .collect();
    CoreClock {
        ghz: Spread::of(&round_ghz).map(|s| s.max),
        method: METHOD,
        round_ghz,
        chain_adds: adds,
        warmup_ms,
        steady,
        tally,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clock(ghz: &[f64]) -> CoreClock {
        CoreClock {
            ghz: Spread::of(ghz).map(|s| s.max),
            method: METHOD,
            round_ghz: ghz.to_vec(),
            chain_adds: CLOCK_CHAIN_ADDS,
            warmup_ms: 20.0,
            steady: true,
            tally: Default::default(),
        }
    }

    #[test]
    fn the_spread_is_printed_as_min_max_and_percent() {
        let s = Spread::of(&[4.271, 4.279, 4.275]).unwrap();
        assert_eq!((s.min, s.median, s.max), (4.271, 4.275, 4.279));
        assert_eq!(s.to_string(), "4.271..4.279, spread 0.19%");
        assert_eq!(
            Spread::of(&[4.0]).unwrap().to_string(),
            "4.000..4.000, spread 0.00%"
        );
        assert_eq!(Spread::of(&[]), None);
        assert_eq!(Spread::of(&[f64::NAN]), None);
    }

    #[test]
    fn an_estimate_is_described_in_one_line() {
        let c = clock(&[4.271, 4.279, 4.275]);
        assert_eq!(
            c.describe(),
            "4.279 GHz from an add chain (fastest of 3 rounds; 4.271..4.279, spread 0.19%)"
        );
        let rising = CoreClock { steady: false, ..c };
        assert!(rising.describe().ends_with("; the rate was still rising)"));
        let none = CoreClock {
            method: "no add-chain kernel",
            ..CoreClock::default()
        };
        assert_eq!(
            none.describe(),
            "unknown (no add-chain kernel); no cycles are printed"
        );
        assert_eq!(none.spread(), None);
    }

    #[test]
    fn before_and_after_agree_or_the_clock_moved() {
        let before = clock(&[4.270, 4.275, 4.280]);
        let r = RunClock::between(&before, &clock(&[4.281, 4.283, 4.285])).unwrap();
        assert_eq!((r.before, r.after), (4.280, 4.285));
        assert!(!r.moved());
        assert_eq!(
            r.describe(),
            "4.280 GHz before, 4.285 GHz after: 0.12% apart (every round within 0.35%)"
        );
        let m = r.meta();
        assert_eq!(m[0], ("clock_ghz_before", "4.280".into()));
        assert_eq!(m[1], ("clock_ghz_after", "4.285".into()));
        assert_eq!(m[2], ("clock_spread_pct", "0.35".into()));
        assert_eq!(m[3], ("clock_moved", "no".into()));
        // 3.94 before, 4.21 after: 6.9% apart, so every cycle count is said to be uncertain by 7%.
        let moved = RunClock::between(&clock(&[3.94]), &clock(&[4.21])).unwrap();
        assert!(moved.moved());
        assert!(
            moved
                .describe()
                .contains("; the clock moved during the run: ")
        );
        assert!(
            moved.describe().ends_with("uncertain by about 7%"),
            "{}",
            moved.describe()
        );
        assert_eq!(moved.meta()[3].1, "yes");
        // the threshold is on the lower figure, and either direction counts
        let down = RunClock::between(&clock(&[4.30]), &clock(&[4.20])).unwrap();
        assert!(down.moved() && (down.apart_pct() - 2.381).abs() < 0.01);
        assert!(
            !RunClock::between(&clock(&[4.20]), &clock(&[4.28]))
                .unwrap()
                .moved()
        );
        assert_eq!(RunClock::between(&before, &CoreClock::default()), None);
    }

    #[test]
    fn the_printed_lines_fit_the_report() {
        let label = "  core clock     : ";
        let wide = clock(&[0.123, 12.345, 123.456]);
        let one = crate::fmt::field("core clock", &wide.describe());
        assert!(
            one.lines().all(|l| l.chars().count() <= crate::fmt::WIDTH),
            "{one}"
        );
        let r = RunClock::between(&wide, &clock(&[99.999])).unwrap();
        let text = crate::fmt::wrap_to(&r.describe(), label, "                   ", 100);
        assert!(
            text.lines().all(|l| l.chars().count() <= crate::fmt::WIDTH),
            "{text}"
        );
        let calm = RunClock::between(&clock(&[4.275]), &clock(&[4.281])).unwrap();
        assert!(label.len() + calm.describe().len() <= crate::fmt::WIDTH);
    }

    #[test]
    fn the_warm_up_waits_for_the_rate_to_stop_rising() {
        let flat = vec![4.27; 16];
        assert!(ramp_finished(&flat));
        assert!(!ramp_finished(&flat[..15]));
        // rising 1% from one window to the next: still ramping
        let mut rising = vec![4.20; 8];
        rising.extend(vec![4.25; 8]);
        assert!(!ramp_finished(&rising));
        // a falling rate, or one interrupted chain in the last window, is not a ramp
        let mut falling = vec![4.30; 8];
        falling.extend(vec![4.20; 8]);
        assert!(ramp_finished(&falling));
        let mut hit = vec![4.27; 16];
        hit[12] = 0.3;
        assert!(ramp_finished(&hit));
    }

    #[test]
    fn chains_outlast_the_clock_step() {
        assert!(chain_long_enough(250_000.0, 20.0));
        assert!(!chain_long_enough(50_000.0, 20.0));
        // no step ever seen: the clock is taken to be coarse (1 us)
        assert!(!chain_long_enough(250_000.0, f64::NAN));
        assert!(chain_long_enough(5_000_000.0, f64::NAN));
    }

    #[test]
    fn the_estimate_has_rounds_and_a_plausible_clock() {
        let c = estimate_core_clock(3);
        let Some(g) = c.ghz else {
            assert!(c.method.contains("no add-chain"));
            return;
        };
        assert_eq!(c.round_ghz.len(), 3);
        assert!(c.chain_adds >= CLOCK_CHAIN_ADDS);
        // Generous: any core from 0.3 to 8 GHz; the warm-up stays within its bounds.
        assert!((0.3..8.0).contains(&g), "{g}");
        assert!(
            c.warmup_ms >= 20.0 && c.warmup_ms < 2_000.0,
            "{}",
            c.warmup_ms
        );
        let s = c.spread().unwrap();
        assert!(s.min <= g && g <= s.max);
    }
}
