//! The analysis of the three passes: deviations, their correlation, regions, and the verdict.
//!
//! Everything here is a pure function of the measured times, so it is unit-tested on
//! made-up scans: one where the sizes really matter, one where only the clock on the wall
//! does. The verdict rule is the experiment's point: a pattern belongs to the environment
//! size only if every pass, whatever its order, shows it.

use measure::stats;

/// Passes whose deviations correlate at least this well (every pair) agree on a pattern.
pub const AGREE_R: f64 = 0.5;
/// "Slow" in the shuffled-pass share: at least this many percent above the pass median.
pub const SLOW_PCT: f64 = 20.0;
/// A size (or region) deviating by at least this much in every pass, the same way, is a
/// candidate environment effect; a one-direction region this far off that the other passes
/// do not confirm is where that pass would have misled.
pub const NOTABLE_PCT: f64 = 10.0;
/// Bytes of padding per region.
pub const REGION_BYTES: usize = 256;

/// Each value's deviation from the median of the present values, in percent.
pub fn deviations(values: &[Option<f64>]) -> Vec<Option<f64>> {
    let present: Vec<f64> = values.iter().flatten().copied().collect();
    match stats::median(&present) {
        Some(m) if m > 0.0 => values
            .iter()
            .map(|v| v.map(|v| (v / m - 1.0) * 100.0))
            .collect(),
        _ => vec![None; values.len()],
    }
}

/// Pearson correlation over the positions where both series have a value.
pub fn paired_correlation(a: &[Option<f64>], b: &[Option<f64>]) -> Option<f64> {
    let (x, y): (Vec<f64>, Vec<f64>) = a
        .iter()
        .zip(b)
        .filter_map(|(x, y)| Some(((*x)?, (*y)?)))
        .unzip();
    stats::correlation(&x, &y)
}

/// The correlation of the deviations for every pair of passes `(a, b)` with `a < b`.
pub fn pair_correlations(devs: &[Vec<Option<f64>>]) -> Vec<(usize, usize, Option<f64>)> {
    (0..devs.len())
        .flat_map(|a| (a + 1..devs.len()).map(move |b| (a, b)))
        .map(|(a, b)| (a, b, paired_correlation(&devs[a], &devs[b])))
        .collect()
}

/// The median deviation in each region of [`REGION_BYTES`] of padding, for `n_regions`
/// regions starting at 0. A region without a measured size is `None`.
pub fn region_medians(pads: &[usize], dev: &[Option<f64>], n_regions: usize) -> Vec<Option<f64>> {
    (0..n_regions)
        .map(|r| {
            let in_region: Vec<f64> = pads
                .iter()
                .zip(dev)
                .filter(|(p, _)| **p / REGION_BYTES == r)
                .filter_map(|(_, d)| *d)
                .collect();
            stats::median(&in_region)
        })
        .collect()
}

/// The share (0..=1) of measured sizes whose deviation is at least `pct`.
pub fn share_at_least(dev: &[Option<f64>], pct: f64) -> Option<f64> {
    let present: Vec<f64> = dev.iter().flatten().copied().collect();
    if present.is_empty() {
        return None;
    }
    Some(present.iter().filter(|d| **d >= pct).count() as f64 / present.len() as f64)
}

/// Correlation of the deviations with the time order of the pass: `position[i]` is when
/// size `i` was measured within its pass. Far from 0 means the pass drifted with time.
pub fn time_trend(dev: &[Option<f64>], position: &[usize]) -> Option<f64> {
    let pos: Vec<Option<f64>> = position.iter().map(|p| Some(*p as f64)).collect();
    paired_correlation(dev, &pos)
}

/// One pass as the verdict sees it.
#[derive(Debug, Clone)]
pub struct Pass {
    pub name: String,
    /// Forward or backward: the order is also the order of time.
    pub one_direction: bool,
    /// Deviation per size (in the order of `pads`).
    pub dev: Vec<Option<f64>>,
    /// When each size was measured within the pass (0 = first).
    pub position: Vec<usize>,
}

/// What the passes say about one workload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Every pair of passes agrees: the pattern follows the environment size.
    Effect,
    /// The passes do not agree: what varied was the machine over time.
    NoEffect,
    /// Too few sizes were measured in every pass to compare them.
    Unknown,
}

impl Kind {
    /// The name written in the `verdict` block and `#META verdict_<workload>`.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Effect => "effect",
            Kind::NoEffect => "no_effect",
            Kind::Unknown => "unknown",
        }
    }
}

/// The verdict for one workload, with the sentences that explain it.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub kind: Kind,
    pub lines: Vec<String>,
}

fn pct(v: f64) -> String {
    format!("{v:+.1}%")
}

/// A correlation as printed: signed, two decimals, `n/a` when there is none.
pub fn show_r(r: Option<f64>) -> String {
    r.map_or("n/a".to_string(), |r| format!("{r:+.2}"))
}

/// What the passes of one workload share, size by size: the facts every verdict is read from.
struct Shared<'a> {
    pads: &'a [usize],
    passes: &'a [Pass],
    /// The sizes measured in every pass.
    complete: Vec<usize>,
    /// The lowest and highest correlation of deviations between two passes.
    min_r: f64,
    max_r: f64,
    /// The sizes at least [`NOTABLE_PCT`] slower (faster) in every pass.
    slow_all: Vec<usize>,
    fast_all: Vec<usize>,
    /// The largest deviation every pass shares: `(size index, deviation)`.
    shared: (usize, f64),
}

impl<'a> Shared<'a> {
    fn new(pads: &'a [usize], passes: &'a [Pass], complete: Vec<usize>) -> Self {
        let mut rs = Vec::new();
        for a in 0..passes.len() {
            for b in a + 1..passes.len() {
                rs.push(paired_correlation(&passes[a].dev, &passes[b].dev));
            }
        }
        let rs: Vec<f64> = rs.iter().map(|r| r.unwrap_or(f64::NEG_INFINITY)).collect();
        let mut s = Shared {
            pads,
            passes,
            complete,
            min_r: rs.iter().copied().fold(f64::INFINITY, f64::min),
            max_r: rs.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            slow_all: Vec::new(),
            fast_all: Vec::new(),
            shared: (0, 0.0),
        };
        s.slow_all = s.every(true);
        s.fast_all = s.every(false);
        s.shared = s.largest_shared();
        s
    }

    fn dev(p: &Pass, i: usize) -> f64 {
        p.dev[i].expect("complete")
    }

    /// Whether `d` is a notable deviation in the direction asked for.
    fn notable(d: f64, slow: bool) -> bool {
        if slow {
            d >= NOTABLE_PCT
        } else {
            d <= -NOTABLE_PCT
        }
    }

    /// The sizes that deviate the same way by [`NOTABLE_PCT`] in every pass.
    fn every(&self, slow: bool) -> Vec<usize> {
        let all = |&i: &usize| {
            self.passes
                .iter()
                .all(|p| Self::notable(Self::dev(p, i), slow))
        };
        self.complete.iter().copied().filter(all).collect()
    }

    /// How many such sizes chance alone would give: the product of each pass's share.
    fn chance(&self, slow: bool) -> f64 {
        let n = self.complete.len() as f64;
        let share = |p: &Pass| {
            let hits = self.complete.iter();
            hits.filter(|&&i| Self::notable(Self::dev(p, i), slow))
                .count() as f64
                / n
        };
        self.passes.iter().map(share).product::<f64>() * n
    }

    /// The largest deviation every pass shares (same sign; the smallest of their sizes).
    fn largest_shared(&self) -> (usize, f64) {
        let of = |i: usize| {
            let d: Vec<f64> = self.passes.iter().map(|p| Self::dev(p, i)).collect();
            let s = if d.iter().all(|x| *x > 0.0) {
                d.iter().copied().fold(f64::INFINITY, f64::min)
            } else if d.iter().all(|x| *x < 0.0) {
                d.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            } else {
                0.0
            };
            (i, s)
        };
        let all = self.complete.iter().map(|&i| of(i));
        all.max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))
            .expect("complete is not empty")
    }

    fn list(&self, idx: &[usize]) -> String {
        let pads = self.pads;
        let mut s: Vec<String> = idx.iter().take(8).map(|&i| pads[i].to_string()).collect();
        if idx.len() > 8 {
            s.push(format!("... ({} sizes in all)", idx.len()));
        }
        format!("PAD {}", s.join(", "))
    }
}

/// Judges one workload from its passes.
pub fn judge(pads: &[usize], passes: &[Pass]) -> Judgement {
    let complete: Vec<usize> = (0..pads.len())
        .filter(|&i| passes.iter().all(|p| p.dev[i].is_some()))
        .collect();
    if passes.len() < 2 || complete.len() < 4 {
        return Judgement {
            kind: Kind::Unknown,
            lines: vec![format!(
                "too few sizes were measured in every pass ({}) to compare the passes: no verdict",
                complete.len()
            )],
        };
    }
    let s = Shared::new(pads, passes, complete);
    if s.min_r >= AGREE_R {
        return Judgement {
            kind: Kind::Effect,
            lines: agreed(&s),
        };
    }
    let mut lines = disagreed(&s);
    for (k, p) in passes.iter().enumerate().filter(|(_, p)| p.one_direction) {
        lines.extend(one_direction_alone(&s, k, p));
    }
    Judgement {
        kind: Kind::NoEffect,
        lines,
    }
}

/// The passes agree: the pattern follows the environment size; how large it is.
fn agreed(s: &Shared) -> Vec<String> {
    let (pads, shared) = (s.pads, s.shared);
    let mut lines = vec![format!(
        "the passes agree (correlation of deviations {} to {} between every pair): the pattern \
         follows the environment size, whatever the order of measuring",
        show_r(Some(s.min_r)),
        show_r(Some(s.max_r))
    )];
    if s.slow_all.is_empty() && s.fast_all.is_empty() {
        lines.push(format!(
            "but it is small: no size is {NOTABLE_PCT:.0}% off in every pass; the largest deviation \
             all passes share is {} at PAD {}",
            pct(shared.1),
            pads[shared.0]
        ));
        return lines;
    }
    for (all, slow, way) in [
        (&s.slow_all, true, "slower"),
        (&s.fast_all, false, "faster"),
    ] {
        if !all.is_empty() {
            lines.push(format!(
                "sizes at least {NOTABLE_PCT:.0}% {way} in every pass: {} (chance alone: about {:.1})",
                s.list(all),
                s.chance(slow)
            ));
        }
    }
    lines.push(format!(
        "the largest deviation all passes share: {} at PAD {}",
        pct(shared.1),
        pads[shared.0]
    ));
    lines
}

/// The passes disagree: what varied was the machine; its drift, and the sizes slow every time.
fn disagreed(s: &Shared) -> Vec<String> {
    let finite = |r: f64| if r.is_finite() { Some(r) } else { None };
    let mut lines = vec![
        format!(
            "the passes do not agree (correlation of deviations {} to {}; agreement needs \
             {AGREE_R:.1} for every pair): a size slow in one pass was not reliably slow in another",
            show_r(finite(s.min_r)),
            show_r(finite(s.max_r)),
        ),
        "so what varied was the machine over time, not the environment size: this scan measured \
         the machine's drift and noise, not the parameter"
            .to_string(),
    ];
    // The drift, shown: how each pass's deviations follow the time order.
    let trends: Vec<String> = s
        .passes
        .iter()
        .map(|p| format!("{} {}", p.name, show_r(time_trend(&p.dev, &p.position))))
        .collect();
    lines.push(format!(
        "correlation of the deviations with the time order, per pass: {}",
        trends.join(", ")
    ));
    let slow_chance = s.chance(true);
    lines.push(format!(
        "sizes at least {NOTABLE_PCT:.0}% slower in every pass: {} (chance alone gives about {:.1}){}",
        if s.slow_all.is_empty() {
            "none".to_string()
        } else {
            s.list(&s.slow_all)
        },
        slow_chance,
        if s.slow_all.len() as f64 > 3.0 * slow_chance.max(1.0 / 3.0) {
            ": more than chance; only these sizes are candidates, worth a rerun on their own"
        } else {
            ": not clearly more than chance"
        }
    ));
    lines
}

/// The padding region `r`, as printed.
fn region_name(r: usize) -> String {
    format!("PAD {}-{}", r * REGION_BYTES, (r + 1) * REGION_BYTES - 1)
}

/// Where the one-direction pass `k` alone would have misled: its regions [`NOTABLE_PCT`] off
/// that not every other pass confirms, and its single most extreme size against the others.
fn one_direction_alone(s: &Shared, k: usize, p: &Pass) -> Vec<String> {
    let n_regions = s.pads.iter().max().map_or(0, |m| m / REGION_BYTES + 1);
    let regions: Vec<Vec<Option<f64>>> = s
        .passes
        .iter()
        .map(|p| region_medians(s.pads, &p.dev, n_regions))
        .collect();
    let mut lines: Vec<String> = misled_regions(s, &regions, k, p).into_iter().collect();
    // Its single most extreme size, against the other passes.
    let extreme = s.complete.iter().map(|&i| (i, Shared::dev(p, i)));
    if let Some((i, v)) = extreme.max_by(|a, b| a.1.total_cmp(&b.1)) {
        let others: Vec<String> = s
            .passes
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != k)
            .map(|(_, o)| format!("{} {}", o.name, pct(Shared::dev(o, i))))
            .collect();
        lines.push(format!(
            "the {} pass's slowest size was PAD {} at {}; the same size measured {}",
            p.name,
            s.pads[i],
            pct(v),
            others.join(", ")
        ));
    }
    lines
}

/// The regions pass `k` alone shows [`NOTABLE_PCT`] off and not every other pass confirms, as
/// one line (the most extreme four), or its largest region deviation when there is none.
fn misled_regions(s: &Shared, regions: &[Vec<Option<f64>>], k: usize, p: &Pass) -> Option<String> {
    let n_regions = regions[k].len();
    let mut misled = Vec::new();
    for r in 0..n_regions {
        let Some(v) = regions[k][r] else { continue };
        if v.abs() < NOTABLE_PCT {
            continue;
        }
        let confirmed = regions.iter().enumerate().all(|(j, reg)| {
            j == k
                || reg[r].is_some_and(|o| o.signum() == v.signum() && o.abs() >= NOTABLE_PCT / 2.0)
        });
        if !confirmed {
            let others: Vec<String> = s
                .passes
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != k)
                .map(|(j, o)| {
                    format!(
                        "{} {}",
                        o.name,
                        regions[j][r].map_or("n/a".to_string(), pct)
                    )
                })
                .collect();
            let line = format!("{}: {} ({})", region_name(r), pct(v), others.join(", "));
            misled.push((v.abs(), line));
        }
    }
    if misled.is_empty() {
        let worst = (0..n_regions)
            .filter_map(|r| regions[k][r].map(|v| (r, v)))
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()));
        return worst.map(|(r, v)| {
            format!(
                "the {} pass alone would not have shown a region {NOTABLE_PCT:.0}% off this time; \
                 its largest region deviation was {} ({})",
                p.name,
                pct(v),
                region_name(r)
            )
        });
    }
    // The most extreme first; four are enough to make the point.
    misled.sort_by(|a, b| b.0.total_cmp(&a.0));
    let shown: Vec<&str> = misled.iter().take(4).map(|m| m.1.as_str()).collect();
    Some(format!(
        "a {} pass alone would have reported {} region(s) of padding as {NOTABLE_PCT:.0}% or \
         more off, which not every other pass confirms: {}{}",
        p.name,
        misled.len(),
        shown.join("; "),
        if misled.len() > 4 { "; ..." } else { "" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::ring;
    use measure::scan::Order;

    #[test]
    fn deviations_are_percent_from_the_median() {
        let d = deviations(&[Some(100.0), Some(120.0), None, Some(90.0)]);
        assert_eq!(d[0], Some(0.0));
        assert!((d[1].unwrap() - 20.0).abs() < 1e-9);
        assert_eq!(d[2], None);
        assert!((d[3].unwrap() + 10.0).abs() < 1e-9);
        assert_eq!(deviations(&[None, None]), vec![None, None]);
    }

    #[test]
    fn regions_and_shares() {
        let pads: Vec<usize> = (0..32).map(|i| i * 16).collect();
        let dev: Vec<Option<f64>> = (0..32)
            .map(|i| Some(if i < 16 { 1.0 } else { 30.0 }))
            .collect();
        let r = region_medians(&pads, &dev, 3);
        assert_eq!(r, vec![Some(1.0), Some(30.0), None]);
        assert_eq!(share_at_least(&dev, SLOW_PCT), Some(0.5));
        assert_eq!(share_at_least(&[None], SLOW_PCT), None);
    }

    #[test]
    fn every_pair_of_passes_is_correlated_once_in_order() {
        let up: Vec<Option<f64>> = (0..8).map(|i| Some(i as f64)).collect();
        let down: Vec<Option<f64>> = (0..8).map(|i| Some(-(i as f64))).collect();
        let none = vec![None; 8];
        let pairs = pair_correlations(&[up.clone(), down, up, none]);
        let ab: Vec<(usize, usize)> = pairs.iter().map(|p| (p.0, p.1)).collect();
        assert_eq!(ab, [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]);
        assert!((pairs[0].2.unwrap() + 1.0).abs() < 1e-9);
        assert!((pairs[1].2.unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(pairs[2].2, None, "no common values, no correlation");
        assert_eq!(show_r(pairs[0].2), "-1.00");
        assert_eq!(show_r(None), "n/a");
    }

    /// A scan of 256 sizes in three orders, where the time of measuring adds `drift(t)` and
    /// the size adds `effect(pad)`, plus a little seeded noise.
    fn scan(
        effect: impl Fn(usize) -> f64,
        drift: impl Fn(usize) -> f64,
    ) -> (Vec<usize>, Vec<Pass>) {
        let pads: Vec<usize> = (0..256).map(|i| i * 16).collect();
        let mut rng = ring::rng(11);
        let mut t = 0;
        let passes = [Order::Forward, Order::Backward, Order::Shuffled(5)]
            .iter()
            .map(|o| {
                let order = o.indices(pads.len());
                let mut times = vec![None; pads.len()];
                let mut position = vec![0; pads.len()];
                for (pos, &i) in order.iter().enumerate() {
                    let noise = ring::below(&mut rng, 1000) as f64 / 1000.0;
                    times[i] = Some(100.0 + effect(pads[i]) + drift(t) + noise);
                    position[i] = pos;
                    t += 1;
                }
                Pass {
                    name: o.name().to_string(),
                    one_direction: !matches!(o, Order::Shuffled(_)),
                    dev: deviations(&times),
                    position,
                }
            })
            .collect();
        (pads, passes)
    }

    #[test]
    fn a_real_effect_of_the_size_is_found_in_every_order() {
        // Every 64th byte of padding slows the loop by 40%: all passes see it.
        let (pads, passes) = scan(|p| if p % 1024 < 64 { 40.0 } else { 0.0 }, |_| 0.0);
        let j = judge(&pads, &passes);
        assert_eq!(j.kind, Kind::Effect, "{:#?}", j.lines);
        assert!(
            j.lines
                .iter()
                .any(|l| l.contains("slower in every pass: PAD 0, 16, 32"))
        );
    }

    #[test]
    fn drift_over_time_is_not_taken_for_an_effect() {
        // The machine is 90% slower for a while early in the run (the first pass's middle).
        let (pads, passes) = scan(|_| 0.0, |t| if (64..128).contains(&t) { 90.0 } else { 0.0 });
        let j = judge(&pads, &passes);
        assert_eq!(j.kind, Kind::NoEffect, "{:#?}", j.lines);
        let text = j.lines.join("\n");
        assert!(text.contains("drift"), "{text}");
        // The forward pass's slow regions (PAD 1024-2047) are named as misleading.
        assert!(
            text.contains("a forward pass alone would have reported"),
            "{text}"
        );
        assert!(text.contains("PAD 1024-1279"), "{text}");
    }

    #[test]
    fn too_little_data_gives_no_verdict() {
        let pass = Pass {
            name: "forward".into(),
            one_direction: true,
            dev: vec![Some(1.0), None],
            position: vec![0, 1],
        };
        let j = judge(&[0, 16], &[pass.clone(), pass]);
        assert_eq!(j.kind, Kind::Unknown);
    }
}
