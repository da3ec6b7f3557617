//! `--repeat N`: the whole scan again, and how far each region's median deviation moves
//! between scans. The seed's own second run moved its shuffled regions by 19 %; a verdict from
//! one scan needs that context, so it is measured, not assumed.

use crate::analysis::{self, Kind};
use crate::child::Workload;
use crate::passes::{self, Scanned};
use measure::disturb::Tally;
use measure::stats;

/// What one scan gave, as the repeats compare it.
pub struct Repeat {
    pub seconds: f64,
    pub failed: usize,
    /// The verdict per workload.
    pub kinds: Vec<Kind>,
    /// The timed runs behind each workload's verdict.
    pub tallies: Vec<Tally>,
    /// `regions[w][pass][region]`: each region's median deviation from its pass median (%).
    pub regions: Vec<Vec<Vec<Option<f64>>>>,
}

impl Repeat {
    /// Analyses one scan: its region medians and its verdicts.
    pub fn of(s: &Scanned, n_regions: usize) -> Repeat {
        let devs = s.deviations();
        let positions = s.positions();
        let regions = devs
            .iter()
            .map(|w| {
                w.iter()
                    .map(|d| analysis::region_medians(&s.pads, d, n_regions))
                    .collect()
            })
            .collect();
        let kinds = (0..Workload::ALL.len())
            .map(|w| s.judge(&devs[w], &positions).kind)
            .collect();
        Repeat {
            seconds: s.seconds,
            failed: passes::Tally::of(s).failures.len(),
            kinds,
            tallies: (0..Workload::ALL.len()).map(|w| s.tally(w, None)).collect(),
            regions,
        }
    }
}

/// How far the regions of one workload and pass moved between repeats: for each region
/// measured in every repeat, its largest minus its smallest median deviation (percentage
/// points).
#[derive(Debug, Clone, PartialEq)]
pub struct Moved {
    /// The median over the regions.
    pub median: Option<f64>,
    /// The region that moved most: `(points, region index)`.
    pub largest: Option<(f64, usize)>,
}

/// How the regions of workload `w`, pass `pass` moved over `repeats`.
pub fn moved(repeats: &[Repeat], w: usize, pass: usize) -> Moved {
    let n_regions = repeats.first().map_or(0, |r| r.regions[w][pass].len());
    let spans: Vec<(f64, usize)> = (0..n_regions)
        .filter_map(|k| {
            let v: Vec<f64> = repeats
                .iter()
                .map(|r| r.regions[w][pass][k])
                .collect::<Option<_>>()?;
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            Some((hi - lo, k))
        })
        .collect();
    let points: Vec<f64> = spans.iter().map(|s| s.0).collect();
    Moved {
        median: stats::median(&points),
        largest: spans.into_iter().max_by(|a, b| a.0.total_cmp(&b.0)),
    }
}

/// Whether every repeat gave the same verdict for workload `w`.
pub fn same_verdict(repeats: &[Repeat], w: usize) -> bool {
    repeats.windows(2).all(|p| p[0].kinds[w] == p[1].kinds[w])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repeat(regions: Vec<Option<f64>>, kind: Kind) -> Repeat {
        Repeat {
            seconds: 1.0,
            failed: 0,
            kinds: vec![kind],
            tallies: vec![Tally::default()],
            regions: vec![vec![regions]],
        }
    }

    #[test]
    fn regions_move_by_their_span_over_the_repeats() {
        let r = [
            repeat(vec![Some(0.0), Some(1.0), Some(5.0), None], Kind::NoEffect),
            repeat(
                vec![Some(2.0), Some(1.5), Some(-14.0), Some(3.0)],
                Kind::NoEffect,
            ),
            repeat(
                vec![Some(1.0), Some(1.0), Some(0.0), Some(9.0)],
                Kind::NoEffect,
            ),
        ];
        let m = moved(&r, 0, 0);
        // Spans 2, 0.5 and 19 (region 3 was not measured in every repeat).
        assert_eq!(m.median, Some(2.0));
        assert_eq!(m.largest, Some((19.0, 2)));
        assert!(same_verdict(&r, 0));
    }

    #[test]
    fn one_repeat_moves_nothing_and_a_changed_verdict_is_seen() {
        let one = [repeat(vec![Some(3.0)], Kind::Effect)];
        assert_eq!(moved(&one, 0, 0).largest, Some((0.0, 0)));
        let two = [
            repeat(vec![Some(3.0)], Kind::Effect),
            repeat(vec![Some(1.0)], Kind::NoEffect),
        ];
        assert!(!same_verdict(&two, 0));
        assert_eq!(moved(&two, 0, 0).largest, Some((2.0, 0)));
    }
}
