//! Statistics over samples: the median is the default figure, with min and max beside it;
//! the mean appears only to show what one interruption does to it. Samples that fall into
//! two groups are found by [`split`], so that both groups can be reported instead of a
//! median that describes neither.

/// A summary of a set of samples. Built by [`Summary::of`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    /// The middle value; for an even count, the mean of the two middle values.
    pub median: f64,
    pub mean: f64,
    /// Nearest-rank 99th percentile: the smallest sample with at least 99% of samples at or below it.
    pub p99: f64,
    pub max: f64,
    /// Coefficient of variation: population standard deviation over the mean.
    pub cv: f64,
    /// max / min (infinite if min is 0).
    pub max_over_min: f64,
}

impl Summary {
    /// Summarises `samples`; `None` if there are none or any is NaN.
    pub fn of(samples: &[f64]) -> Option<Summary> {
        if samples.is_empty() || samples.iter().any(|x| x.is_nan()) {
            return None;
        }
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            (s[n / 2 - 1] + s[n / 2]) / 2.0
        };
        let mean = s.iter().sum::<f64>() / n as f64;
        let var = s.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        let rank = ((0.99 * n as f64).ceil() as usize).clamp(1, n);
        let (min, max) = (s[0], s[n - 1]);
        Some(Summary {
            n,
            min,
            median,
            mean,
            p99: s[rank - 1],
            max,
            cv: if mean != 0.0 { var.sqrt() / mean } else { 0.0 },
            max_over_min: if min > 0.0 { max / min } else { f64::INFINITY },
        })
    }

    /// "median (min..max)" with three decimals: `1.234 (1.200..1.300)`, the form every
    /// table in this project uses for a figure.
    pub fn median_range(&self) -> String {
        format!("{:.3} ({:.3}..{:.3})", self.median, self.min, self.max)
    }

    /// mean / median: the further from 1, the more other work interfered.
    pub fn mean_over_median(&self) -> f64 {
        self.mean / self.median
    }

    /// Every field divided by `k` (for turning batch times into per-item times). `cv` and
    /// `max_over_min` are unchanged by scaling.
    pub fn scaled(&self, k: f64) -> Summary {
        Summary {
            min: self.min / k,
            median: self.median / k,
            mean: self.mean / k,
            p99: self.p99 / k,
            max: self.max / k,
            ..*self
        }
    }
}

/// The median of `samples` (see [`Summary::median`]); `None` if empty or NaN.
pub fn median(samples: &[f64]) -> Option<f64> {
    Summary::of(samples).map(|s| s.median)
}

/// The indices of `samples` farther than `k` median absolute deviations from their median
/// (how a class's odd machine is found). Needs at least five samples; with a deviation of
/// zero (most samples equal), any sample that differs is far.
pub fn far_from_median(samples: &[f64], k: f64) -> Vec<usize> {
    if samples.len() < 5 {
        return Vec::new();
    }
    let Some(m) = median(samples) else {
        return Vec::new();
    };
    let dev: Vec<f64> = samples.iter().map(|x| (x - m).abs()).collect();
    let Some(mad) = median(&dev) else {
        return Vec::new();
    };
    (0..samples.len())
        .filter(|&i| {
            let limit = if mad > 0.0 {
                k * mad
            } else {
                1e-9 * m.abs().max(1e-300)
            };
            dev[i] > limit
        })
        .collect()
}

/// The samples sorted ascending, with the single largest left out when there are three or
/// more: one sample hit by an interruption is tolerated, two are not. NaNs sort last.
pub fn sorted_but_largest(samples: &[f64]) -> Vec<f64> {
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    if s.len() >= 3 {
        s.pop();
    }
    s
}

/// The share (0..=1) of all unordered pairs of samples whose larger value exceeds the
/// smaller by more than `percent` percent. With 30 samples there are 435 pairs.
pub fn pair_share_over(samples: &[f64], percent: f64) -> f64 {
    let n = samples.len();
    if n < 2 {
        return 0.0;
    }
    let mut over = 0usize;
    for i in 0..n {
        for j in i + 1..n {
            let (lo, hi) = if samples[i] <= samples[j] {
                (samples[i], samples[j])
            } else {
                (samples[j], samples[i])
            };
            if hi > lo * (1.0 + percent / 100.0) {
                over += 1;
            }
        }
    }
    over as f64 / (n * (n - 1) / 2) as f64
}

/// The gap between two neighbouring sorted samples that [`split`] calls a split (issue 13:
/// a ratio of 1.5 or more).
pub const SPLIT_GAP: f64 = 1.5;
/// The smallest share of the samples each side of a split must hold (a quarter), so that a
/// single outlier, or two, is not a group.
pub const SPLIT_MIN_SHARE: f64 = 0.25;

/// Samples that fell into two groups: a median describes neither, so both are reported.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Split {
    /// The faster (smaller) group.
    pub low: Summary,
    /// The slower (larger) group.
    pub high: Summary,
    /// The ratio across the gap: the smallest of `high` over the largest of `low`.
    pub gap: f64,
}

/// Whether `samples` split into two groups: sorted, some neighbours differ by a ratio of at
/// least `gap`, and each side holds at least `min_share` of the samples. Where several gaps
/// qualify, the widest (by ratio) is taken. `None` for one group, for too few samples (fewer
/// than four), or when a sample is not positive.
pub fn split(samples: &[f64], gap: f64, min_share: f64) -> Option<Split> {
    let n = samples.len();
    if n < 4 || samples.iter().any(|&x| x.is_nan() || x <= 0.0) {
        return None;
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let least = ((min_share * n as f64).ceil() as usize).max(1);
    let at = (least..=n.saturating_sub(least))
        .filter(|&i| s[i] / s[i - 1] >= gap)
        .max_by(|&i, &j| (s[i] / s[i - 1]).total_cmp(&(s[j] / s[j - 1])))?;
    Some(Split {
        low: Summary::of(&s[..at])?,
        high: Summary::of(&s[at..])?,
        gap: s[at] / s[at - 1],
    })
}

/// Pearson correlation of two equally long series; `None` if shorter than 2 or constant.
pub fn correlation(a: &[f64], b: &[f64]) -> Option<f64> {
    if a.len() != b.len() || a.len() < 2 {
        return None;
    }
    let n = a.len() as f64;
    let ma = a.iter().sum::<f64>() / n;
    let mb = b.iter().sum::<f64>() / n;
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    if saa == 0.0 || sbb == 0.0 {
        return None;
    }
    Some(sab / (saa.sqrt() * sbb.sqrt()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn far_from_median_finds_the_planted_one_only() {
        let mut v: Vec<f64> = (0..30).map(|i| 100.0 + (i % 7) as f64).collect();
        assert!(super::far_from_median(&v, 3.0).is_empty());
        v.push(300.0);
        assert_eq!(super::far_from_median(&v, 3.0), vec![30]);
        assert!(super::far_from_median(&[1.0, 2.0, 90.0], 3.0).is_empty());
        assert_eq!(
            super::far_from_median(&[5.0, 5.0, 5.0, 5.0, 6.0], 3.0),
            vec![4]
        );
    }

    use super::*;

    #[test]
    fn odd_summary() {
        let s = Summary::of(&[5.0, 1.0, 3.0, 2.0, 100.0]).unwrap();
        assert_eq!(s.n, 5);
        assert_eq!(s.min, 1.0);
        assert_eq!(s.median, 3.0);
        assert_eq!(s.max, 100.0);
        assert_eq!(s.mean, 22.2);
        assert_eq!(s.p99, 100.0);
        assert_eq!(s.max_over_min, 100.0);
        assert!((s.mean_over_median() - 7.4).abs() < 1e-12);
    }

    #[test]
    fn the_largest_is_left_out_only_from_three_samples_on() {
        assert_eq!(sorted_but_largest(&[3.0, 9.0, 1.0]), vec![1.0, 3.0]);
        assert_eq!(sorted_but_largest(&[5.0, 2.0]), vec![2.0, 5.0]);
        assert_eq!(sorted_but_largest(&[7.0]), vec![7.0]);
        assert!(sorted_but_largest(&[]).is_empty());
        // Two interrupted rounds: only one is left out.
        assert_eq!(
            sorted_but_largest(&[1.0, 50.0, 1.1, 60.0]),
            vec![1.0, 1.1, 50.0]
        );
    }

    #[test]
    fn median_range_text() {
        let s = Summary::of(&[1.2, 1.3, 1.2345]).unwrap();
        assert_eq!(s.median_range(), "1.234 (1.200..1.300)");
    }

    #[test]
    fn even_median_is_mean_of_middle_pair() {
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn p99_nearest_rank() {
        let v: Vec<f64> = (1..=201).map(f64::from).collect();
        let s = Summary::of(&v).unwrap();
        // ceil(0.99 * 201) = 199
        assert_eq!(s.p99, 199.0);
        let v: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(Summary::of(&v).unwrap().p99, 99.0);
    }

    #[test]
    fn cv_of_constant_and_known_spread() {
        assert_eq!(Summary::of(&[2.0; 7]).unwrap().cv, 0.0);
        // population sd of [1,3] is 1, mean 2 -> cv 0.5
        assert_eq!(Summary::of(&[1.0, 3.0]).unwrap().cv, 0.5);
    }

    #[test]
    fn empty_or_nan_has_no_summary() {
        assert!(Summary::of(&[]).is_none());
        assert!(Summary::of(&[1.0, f64::NAN]).is_none());
    }

    #[test]
    fn zero_min_gives_infinite_ratio() {
        assert!(Summary::of(&[0.0, 1.0]).unwrap().max_over_min.is_infinite());
    }

    #[test]
    fn scaling_keeps_shape() {
        let s = Summary::of(&[10.0, 20.0, 30.0]).unwrap().scaled(10.0);
        assert_eq!((s.min, s.median, s.max), (1.0, 2.0, 3.0));
        assert_eq!(s.max_over_min, 3.0);
    }

    #[test]
    fn pair_shares() {
        // pairs: (100,101) 1%, (100,110) 10%, (101,110) ~8.9%
        let v = [100.0, 101.0, 110.0];
        assert_eq!(pair_share_over(&v, 0.5), 1.0);
        assert!((pair_share_over(&v, 2.0) - 2.0 / 3.0).abs() < 1e-12);
        assert!((pair_share_over(&v, 9.0) - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(pair_share_over(&v, 10.0), 0.0);
        // 29 distinct positive values (406 pairs): every pair differs by more than 0%.
        let distinct: Vec<f64> = (1..30).map(f64::from).collect();
        assert_eq!(pair_share_over(&distinct, 0.0), 1.0);
        // Equal values never count.
        assert_eq!(pair_share_over(&[2.0; 30], 0.0), 0.0);
    }

    #[test]
    fn one_group_is_not_split() {
        let v = [1.00, 1.02, 0.98, 1.05, 1.01, 0.99, 1.03, 1.04];
        assert_eq!(split(&v, SPLIT_GAP, SPLIT_MIN_SHARE), None);
        // Spread out evenly, with no single wide gap, is one group too.
        let ramp: Vec<f64> = (0..15).map(|i| 0.5 + 0.08 * f64::from(i)).collect();
        assert_eq!(split(&ramp, SPLIT_GAP, SPLIT_MIN_SHARE), None);
    }

    #[test]
    fn two_groups_are_found_with_their_counts() {
        // The same-line cost seen on this machine: rounds near 0.47 ns and near 1.1 ns.
        let v = [
            1.07, 0.47, 1.62, 0.49, 1.05, 0.48, 1.10, 1.01, 0.46, 1.20, 0.50, 1.08, 1.03, 0.47,
            1.15,
        ];
        let s = split(&v, SPLIT_GAP, SPLIT_MIN_SHARE).expect("two groups");
        assert_eq!((s.low.n, s.high.n), (6, 9));
        assert_eq!(s.low.max, 0.50);
        assert_eq!(s.high.min, 1.01);
        assert!((s.gap - 1.01 / 0.50).abs() < 1e-12);
        // The median of all rounds (1.05) lies above every round of the fast group.
        assert!(median(&v).unwrap() > s.low.max);
    }

    #[test]
    fn outliers_are_not_a_group() {
        // One (or two of fifteen) slow rounds: fewer than a quarter on one side.
        let mut v = vec![1.0; 14];
        v.push(5.0);
        assert_eq!(split(&v, SPLIT_GAP, SPLIT_MIN_SHARE), None);
        let mut w = vec![1.0; 13];
        w.extend([4.0, 6.0]);
        assert_eq!(split(&w, SPLIT_GAP, SPLIT_MIN_SHARE), None);
        // A fast outlier neither.
        let mut f = vec![2.0; 10];
        f.push(0.5);
        assert_eq!(split(&f, SPLIT_GAP, SPLIT_MIN_SHARE), None);
        // Exactly a quarter on the small side is a group.
        let q = [1.0, 1.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0];
        assert_eq!(split(&q, SPLIT_GAP, SPLIT_MIN_SHARE).unwrap().low.n, 2);
    }

    #[test]
    fn too_few_or_odd_samples_are_not_split() {
        assert_eq!(split(&[1.0, 5.0, 1.0], SPLIT_GAP, SPLIT_MIN_SHARE), None);
        assert_eq!(split(&[], SPLIT_GAP, SPLIT_MIN_SHARE), None);
        assert_eq!(
            split(&[0.0, 0.0, 5.0, 5.0], SPLIT_GAP, SPLIT_MIN_SHARE),
            None
        );
        assert_eq!(
            split(&[1.0, f64::NAN, 5.0, 5.0], SPLIT_GAP, SPLIT_MIN_SHARE),
            None
        );
        // A share no split can meet is no split (not a panic).
        assert_eq!(split(&[1.0, 1.0, 5.0, 5.0], SPLIT_GAP, 2.0), None);
    }

    #[test]
    fn correlation_signs() {
        let a = [1.0, 2.0, 3.0, 4.0];
        assert!((correlation(&a, &[2.0, 4.0, 6.0, 8.0]).unwrap() - 1.0).abs() < 1e-12);
        assert!((correlation(&a, &[4.0, 3.0, 2.0, 1.0]).unwrap() + 1.0).abs() < 1e-12);
        assert!(correlation(&a, &[1.0; 4]).is_none());
    }
}
