//! The statistics of a series of single passes: min, median, max, cv and max over min (from
//! `measure::stats`), and, because the claim is about what one run per side can resolve, the
//! share of all pairs of single passes that differ by more than 2, 5 and 10 percent. Nothing
//! here prints.

use measure::disturb::Tally;
use measure::rounds::Timed;
use measure::stats::{Summary, pair_share_over};

/// The percentages every series reports pair shares for.
pub const THRESHOLDS: [f64; 3] = [2.0, 5.0, 10.0];

/// A series of single passes, summarised.
#[derive(Debug, Clone)]
pub struct SeriesStats {
    /// The series' name in the `series_summary` block.
    pub key: &'static str,
    /// Its row label in the report's tables.
    pub label: &'static str,
    pub samples: Vec<f64>,
    pub summary: Summary,
    /// Share (0..=1) of all pairs differing by more than 2, 5 and 10 percent; `None` for a
    /// single sample.
    pub over: Option<[f64; 3]>,
    /// Every pass taken, with its evidence; `samples` are the ones used (the clean passes,
    /// or all of them when none was clean).
    pub timed: Timed,
}

impl SeriesStats {
    /// The statistics of passes with no evidence (each counts as clean).
    pub fn of(key: &'static str, label: &'static str, samples: &[f64]) -> Option<SeriesStats> {
        SeriesStats::of_timed(
            key,
            label,
            &Timed {
                values: samples.to_vec(),
                evidence: vec![Default::default(); samples.len()],
            },
        )
    }

    /// The statistics of the passes a series uses: its clean ones (all, when none was clean).
    pub fn of_timed(key: &'static str, label: &'static str, timed: &Timed) -> Option<SeriesStats> {
        let samples = timed.used();
        let summary = Summary::of(&samples)?;
        let over = (samples.len() >= 2).then(|| THRESHOLDS.map(|p| pair_share_over(&samples, p)));
        Some(SeriesStats {
            key,
            label,
            samples,
            summary,
            over,
            timed: timed.clone(),
        })
    }

    /// [`SeriesStats::of_timed`] for a series that holds at least one pass, as every series
    /// of a run does.
    pub fn of_passes(key: &'static str, label: &'static str, timed: &Timed) -> SeriesStats {
        SeriesStats::of_timed(key, label, timed).expect("a series of at least one pass")
    }

    /// The passes counted: how many, how many disturbed.
    pub fn tally(&self) -> Tally {
        self.timed.tally()
    }

    /// Number of unordered pairs.
    pub fn pairs(&self) -> usize {
        let n = self.samples.len();
        n * n.saturating_sub(1) / 2
    }
}

/// Of the [`THRESHOLDS`], the first that some pair of passes in either series exceeds, and
/// the first that no pair in either exceeds: `(first exceeded, first clean)`.
pub fn first_exceeded_and_clean(x: &SeriesStats, y: &SeriesStats) -> (Option<f64>, Option<f64>) {
    let (Some(ox), Some(oy)) = (x.over, y.over) else {
        return (None, None);
    };
    let shares = || THRESHOLDS.iter().zip(ox.iter().zip(&oy));
    let exceeded = shares().find(|(_, (a, b))| **a > 0.0 || **b > 0.0);
    let clean = shares().find(|(_, (a, b))| **a == 0.0 && **b == 0.0);
    (exceeded.map(|(p, _)| *p), clean.map(|(p, _)| *p))
}

/// The slowest pass of a series and what it does to single-run comparisons.
#[derive(Debug, Clone, PartialEq)]
pub struct Worst {
    pub index: usize,
    pub value: f64,
    pub over_min: f64,
    /// Pairs containing it whose difference exceeds `percent`.
    pub pairs_over: usize,
    /// Pairs containing it (n - 1).
    pub pairs_with_it: usize,
}

/// The slowest sample, and how many of its pairs differ by more than `percent` percent.
pub fn worst(samples: &[f64], percent: f64) -> Option<Worst> {
    let s = Summary::of(samples)?;
    let index = samples.iter().position(|&v| v == s.max)?;
    let pairs_over = samples
        .iter()
        .enumerate()
        .filter(|&(j, &v)| j != index && s.max > v * (1.0 + percent / 100.0))
        .count();
    Some(Worst {
        index,
        value: s.max,
        over_min: s.max_over_min,
        pairs_over,
        pairs_with_it: samples.len() - 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_series_counts_its_pairs_over_each_threshold() {
        let st = SeriesStats::of("warm", "warm", &[100.0, 101.0, 110.0]).unwrap();
        assert_eq!(st.pairs(), 3);
        // 100/101 differ by 1 %, the two pairs with 110 by 8.9 % and 10 %.
        let o = st.over.unwrap();
        assert!((o[0] - 2.0 / 3.0).abs() < 1e-12, "{o:?}");
        assert!((o[1] - 2.0 / 3.0).abs() < 1e-12, "{o:?}");
        assert_eq!(o[2], 0.0);
        assert_eq!(SeriesStats::of("one", "one", &[5.0]).unwrap().over, None);
        assert!(SeriesStats::of("none", "none", &[]).is_none());
    }

    #[test]
    fn a_series_is_the_statistics_of_its_clean_passes() {
        use measure::disturb::Evidence;
        let quiet = Evidence {
            wall_ns: 500_000,
            waited_ns: Some(0),
            ..Default::default()
        };
        let hit = Evidence {
            waited_ns: Some(3_000_000),
            switches: 1,
            ..quiet
        };
        let t = Timed {
            values: vec![100.0, 900.0, 101.0, 102.0],
            evidence: vec![quiet, hit, quiet, quiet],
        };
        let st = SeriesStats::of_passes("w", "w", &t);
        assert_eq!(st.samples, vec![100.0, 101.0, 102.0]);
        assert_eq!((st.summary.n, st.summary.max), (3, 102.0));
        assert_eq!((st.tally().rounds, st.tally().disturbed), (4, 1));
        assert_eq!(
            st.over.unwrap()[2],
            0.0,
            "the disturbed pass is not in the pairs"
        );
    }

    #[test]
    fn worst_pass_and_its_pairs() {
        let v = [100.0, 101.0, 108.0, 99.0];
        let w = worst(&v, 5.0).unwrap();
        assert_eq!(
            (w.index, w.value, w.pairs_over, w.pairs_with_it),
            (2, 108.0, 3, 3)
        );
        assert!((w.over_min - 108.0 / 99.0).abs() < 1e-12);
    }

    #[test]
    fn thresholds_exceeded_and_clean() {
        let steady = SeriesStats::of("a", "a", &[100.0, 101.0, 100.5]).unwrap();
        let jumpy = SeriesStats::of("b", "b", &[100.0, 106.0, 100.0]).unwrap();
        assert_eq!(
            first_exceeded_and_clean(&steady, &jumpy),
            (Some(2.0), Some(10.0))
        );
        assert_eq!(
            first_exceeded_and_clean(&steady, &steady),
            (None, Some(2.0))
        );
        let one = SeriesStats::of("c", "c", &[5.0]).unwrap();
        assert_eq!(first_exceeded_and_clean(&one, &steady), (None, None));
    }
}
