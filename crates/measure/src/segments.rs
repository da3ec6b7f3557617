//! Long rounds taken in short segments, and rebuilt from the clean ones.
//!
//! Some rounds cannot be short. A stride walk of the appendix's fixed count, a lap over
//! memory or a run of first touches lasts milliseconds, longer than a scheduler slice, so on a
//! shared core nearly every such round contains the other task's turn, and judging whole
//! rounds ([`crate::rounds`]) can only set them all aside.
//!
//! Here such a round is cut into `parts` consecutive segments (the same cut every time), each
//! timed and bracketed by its own evidence, and the round is repeated. A segment is *usable*
//! when its evidence shows no disturbance and the segment before it in the same round shows
//! none either (the other task has just had the caches and the TLB). Each repetition is then
//! rebuilt: its usable segments as timed, each other segment replaced by the median of that
//! same segment over the repetitions where it was usable. The round stays the round it was
//! (the same walk over the same positions) and is built only of clean time, which matters
//! where segments differ from one another: a walk's first lap misses, its later laps hit.
//!
//! On a quiet machine every segment is usable and a repetition is exactly its own time.

use crate::disturb::{Evidence, Probe, Tally};
use crate::stats::{Summary, median};

/// How many repetitions to take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Want {
    /// Repetitions of every variant, always taken.
    pub reps: usize,
    /// Usable samples wanted of every segment; more repetitions are taken until each
    /// segment has them...
    pub usable: usize,
    /// ... up to this many repetitions of a variant...
    pub max_reps: usize,
    /// ... within this much time for the extra repetitions.
    pub budget_ns: u64,
    /// Warm up before every repetition, not only the first and after a disturbed segment
    /// (where the variants evict each other, or a repetition's check needs its warm-up).
    pub warm_every: bool,
}

impl Want {
    /// `reps` repetitions, at least 2 usable samples of every segment (fewer where `reps`
    /// is 1), at most `reps + extra` repetitions within `budget_ns` of extra time.
    pub const fn new(reps: usize, extra: usize, budget_ns: u64) -> Want {
        Want {
            reps,
            usable: if reps < 2 { reps } else { 2 },
            max_reps: reps + extra,
            budget_ns,
            warm_every: false,
        }
    }

    /// The same, warming up before every repetition.
    pub const fn warm_every(self) -> Want {
        Want {
            warm_every: true,
            ..self
        }
    }
}

/// How many segments make segments of about `target_ns`, for a round estimated at
/// `round_ns` of `units` units of work: at least 1, at most 512 and at most `units`.
pub fn parts_for(round_ns: f64, target_ns: f64, units: u64) -> usize {
    if !(round_ns > 0.0 && target_ns > 0.0) {
        return 1;
    }
    ((round_ns / target_ns).ceil() as u64).clamp(1, 512.min(units.max(1))) as usize
}

/// The `k`-th of `parts` nearly equal consecutive ranges of `0..units`.
pub fn range(units: u64, parts: usize, k: usize) -> std::ops::Range<u64> {
    let at = |j: usize| (units as u128 * j as u128 / parts as u128) as u64;
    at(k)..at(k + 1)
}

/// One step asked of the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Warm variant `i` up (discarded).
    Warm(usize),
    /// Do segment `k` of variant `i`, timing only the work, and return its nanoseconds.
    Time(usize, usize),
}

/// Every repetition of one variant's round, segment by segment.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Segmented {
    /// `ns[r][k]`: segment `k` of repetition `r`.
    pub ns: Vec<Vec<f64>>,
    pub evidence: Vec<Vec<Evidence>>,
}

impl Segmented {
    /// Whether segment `k` of repetition `r` is usable: neither it nor the segment before it
    /// was disturbed.
    pub fn usable(&self, r: usize, k: usize) -> bool {
        let e = &self.evidence[r];
        !e[k].disturbed() && (k == 0 || !e[k - 1].disturbed())
    }

    fn parts(&self) -> usize {
        self.ns.first().map_or(0, Vec::len)
    }

    /// How many usable samples segment `k` has.
    pub fn usable_count(&self, k: usize) -> usize {
        (0..self.ns.len()).filter(|&r| self.usable(r, k)).count()
    }

    /// The median of segment `k` over the repetitions where it was usable.
    fn fill(&self, k: usize) -> Option<f64> {
        let v: Vec<f64> = (0..self.ns.len())
            .filter(|&r| self.usable(r, k))
            .map(|r| self.ns[r][k])
            .collect();
        median(&v)
    }

    /// Segments with no usable sample at all: their own (disturbed) times stand in.
    pub fn missing(&self) -> usize {
        (0..self.parts())
            .filter(|&k| self.usable_count(k) == 0)
            .count()
    }

    /// Every repetition rebuilt from clean time, in nanoseconds of the whole round.
    pub fn rounds_ns(&self) -> Vec<f64> {
        let fills: Vec<Option<f64>> = (0..self.parts()).map(|k| self.fill(k)).collect();
        (0..self.ns.len())
            .map(|r| {
                (0..self.parts())
                    .map(|k| match fills[k] {
                        Some(f) if !self.usable(r, k) => f,
                        _ => self.ns[r][k],
                    })
                    .sum()
            })
            .collect()
    }

    /// [`Segmented::rounds_ns`] divided by the units of work in a round.
    pub fn per_unit(&self, units: f64) -> Vec<f64> {
        self.rounds_ns().iter().map(|t| t / units).collect()
    }

    /// Median, min and max of [`Segmented::per_unit`].
    pub fn summary(&self, units: f64) -> Option<Summary> {
        Summary::of(&self.per_unit(units))
    }

    /// The segments counted as rounds: how many were taken, how many were disturbed, and
    /// how many disturbed ones stand in (segments with no usable sample).
    pub fn tally(&self) -> Tally {
        let mut t = Tally {
            segments: true,
            ..Tally::default()
        };
        self.evidence.iter().flatten().for_each(|e| t.add(e));
        t.disturbed_used = self.missing() * self.ns.len();
        t
    }

    /// The segments of several results as one tally.
    pub fn tally_of<'a>(all: impl IntoIterator<Item = &'a Segmented>) -> Tally {
        all.into_iter()
            .fold(Tally::default(), |t, s| t.merge(&s.tally()))
    }

    /// Whether another repetition is needed for `want` (ignoring the caps).
    fn short(&self, want: &Want) -> bool {
        self.ns.len() < want.reps || (0..self.parts()).any(|k| self.usable_count(k) < want.usable)
    }

    /// Appends the repetitions of `other` (another pass of the same round).
    pub fn extend(&mut self, other: &Segmented) {
        self.ns.extend_from_slice(&other.ns);
        self.evidence.extend_from_slice(&other.evidence);
    }
}

/// Times `n` variants' rounds of `parts[i]` segments each, in turn (A B A B ...), each
/// segment bracketed by evidence. A variant is warmed up before its first repetition, before
/// a repetition that follows a disturbed segment and, with [`Want::warm_every`], before every
/// repetition. Repetitions go on until every
/// variant has `want.reps` of them and every segment `want.usable` usable samples, or a
/// variant has `want.max_reps`, or the extra repetitions have used `want.budget_ns`.
pub fn interleaved(
    probe: &Probe,
    want: &Want,
    parts: &[usize],
    mut step: impl FnMut(Step) -> f64,
) -> Vec<Segmented> {
    let n = parts.len();
    let mut out = vec![Segmented::default(); n];
    let mut cold = vec![true; n];
    let mut extra = crate::rounds::Extra::new(want.budget_ns);
    loop {
        let short: Vec<usize> = (0..n)
            .filter(|&i| out[i].short(want) && out[i].ns.len() < want.max_reps)
            .collect();
        if short.is_empty() || extra.spent(out.iter().all(|s| s.ns.len() >= want.reps)) {
            return out;
        }
        for i in short {
            if cold[i] || want.warm_every {
                step(Step::Warm(i));
            }
            let (ns, ev) = repetition(probe, parts[i], |k| step(Step::Time(i, k)));
            cold[i] = ev.iter().any(Evidence::disturbed);
            out[i].ns.push(ns);
            out[i].evidence.push(ev);
        }
    }
}

/// One variant alone: [`interleaved`] with one.
pub fn run(
    probe: &Probe,
    want: &Want,
    parts: usize,
    mut warm: impl FnMut(),
    mut seg: impl FnMut(usize) -> f64,
) -> Segmented {
    interleaved(probe, want, &[parts], |s| match s {
        Step::Warm(_) => {
            warm();
            0.0
        }
        Step::Time(_, k) => seg(k),
    })
    .pop()
    .expect("one variant")
}

/// One repetition: every segment in order, each between two marks.
fn repetition(
    probe: &Probe,
    parts: usize,
    mut seg: impl FnMut(usize) -> f64,
) -> (Vec<f64>, Vec<Evidence>) {
    let mut mark = probe.mark();
    let mut ns = Vec::with_capacity(parts);
    let mut ev = Vec::with_capacity(parts);
    for k in 0..parts {
        ns.push(seg(k));
        let next = probe.mark();
        ev.push(Evidence::between(&mark, &next));
        mark = next;
    }
    (ns, ev)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(disturbed: bool) -> Evidence {
        Evidence {
            wall_ns: 100_000,
            switches: u64::from(disturbed),
            waited_ns: Some(if disturbed { 3_000_000 } else { 0 }),
            off_cpu_ns: 0,
        }
    }

    /// Three repetitions of a round of three segments whose first segment is slow (a cold
    /// first lap) and the rest fast.
    fn three(disturbed: [[bool; 3]; 3]) -> Segmented {
        let mut s = Segmented::default();
        for (r, d) in disturbed.iter().enumerate() {
            let t = [10.0, 1.0, 1.0 + r as f64 * 0.1];
            s.ns.push(
                t.iter()
                    .zip(d)
                    .map(|(t, d)| if *d { t + 50.0 } else { *t })
                    .collect(),
            );
            s.evidence.push(d.iter().map(|&d| ev(d)).collect());
        }
        s
    }

    #[test]
    fn a_quiet_round_is_its_own_time() {
        let s = three([[false; 3]; 3]);
        assert_eq!(s.rounds_ns(), vec![12.0, 12.1, 12.2]);
        assert_eq!(s.per_unit(2.0), vec![6.0, 6.05, 6.1]);
        let t = s.tally();
        assert_eq!((t.rounds, t.disturbed, t.disturbed_used), (9, 0, 0));
        assert!(!t.provisional());
    }

    #[test]
    fn a_disturbed_segment_and_the_one_after_it_are_filled_from_the_same_segment() {
        let s = three([
            [true, false, false],
            [false, false, false],
            [false, false, false],
        ]);
        assert!(!s.usable(0, 0) && !s.usable(0, 1) && s.usable(0, 2));
        // Repetition 0: segment 0 from repetitions 1 and 2 (10), segment 1 likewise (1), its
        // own segment 2 (1.0): the slow first segment is kept, not the disturbance.
        assert_eq!(s.rounds_ns(), vec![12.0, 12.1, 12.2]);
        let t = s.tally();
        assert_eq!((t.rounds, t.disturbed, t.disturbed_used), (9, 1, 0));
        assert!(t.provisional(), "1 disturbed of 9 is over the share");
    }

    #[test]
    fn a_segment_never_clean_stands_in_with_its_own_time_and_the_tally_says_so() {
        let s = three([[false, false, true]; 3]);
        assert_eq!(s.missing(), 1);
        assert_eq!(s.rounds_ns()[0], 10.0 + 1.0 + 51.0);
        assert_eq!(s.tally().disturbed_used, 3);
    }

    #[test]
    fn parts_and_ranges_cover_the_round() {
        assert_eq!(parts_for(10e6, 0.25e6, 2_000_000), 40);
        assert_eq!(parts_for(1e9, 1.0, 2_000_000), 512);
        assert_eq!(parts_for(1e9, 1.0, 7), 7);
        assert_eq!(parts_for(0.0, 1.0, 7), 1);
        assert_eq!(parts_for(f64::NAN, 1.0, 7), 1);
        let r: Vec<_> = (0..3).map(|k| range(10, 3, k)).collect();
        assert_eq!(r, vec![0..3, 3..6, 6..10]);
        assert_eq!(range(u64::MAX, 2, 1).end, u64::MAX);
    }

    #[test]
    fn repetitions_interleave_and_cover_every_segment() {
        let probe = Probe::new();
        let mut log = Vec::new();
        let want = Want::new(3, 4, u64::MAX);
        let s = interleaved(&probe, &want, &[2, 3], |st| {
            log.push(st);
            1.0
        });
        assert!(s.iter().all(|x| x.ns.len() >= 3 && x.ns.len() <= 7));
        assert_eq!((s[0].ns[0].len(), s[1].ns[0].len()), (2, 3));
        assert_eq!(
            &log[..4],
            &[
                Step::Warm(0),
                Step::Time(0, 0),
                Step::Time(0, 1),
                Step::Warm(1)
            ]
        );
        let one = run(&probe, &Want::new(1, 0, 0), 4, || (), |k| k as f64);
        assert_eq!(one.ns, vec![vec![0.0, 1.0, 2.0, 3.0]]);
    }

    #[test]
    fn warm_every_warms_before_every_repetition() {
        let probe = Probe::new();
        let mut log = Vec::new();
        let want = Want::new(2, 0, 0).warm_every();
        interleaved(&probe, &want, &[2], |st| {
            log.push(st);
            1.0
        });
        let warm = Step::Warm(0);
        let (t0, t1) = (Step::Time(0, 0), Step::Time(0, 1));
        assert_eq!(log, vec![warm, t0, t1, warm, t0, t1]);
    }
}
