//! Reading the cache boundaries off the latency curve itself.
//!
//! A phone may report no cache sizes at all, and a shared VM reports a last-level cache far
//! larger than the share it actually gets, so the boundaries that matter are the ones the
//! curve shows. With a random ring over a working set `w` in a cache of size `c`, about
//! `1 - c/w` of the steps miss, so one boundary spreads its rise over two or three doublings.
//! A *knee* is therefore the neighbouring pair of sizes whose latency ratio is the steepest of
//! its stretch: at least [`MIN_RATIO`], and no smaller than the ratio before it nor than the
//! ratio after it. The level holds about the smaller size of the pair.
//!
//! A ratio between two points is only read when both points are *stable*: their passes agree
//! and their rounds agree. Where a shared cache is taken away by another tenant for part of
//! a second, the same working set reads 12 ns in one round and 115 ns in the next; such a
//! stretch is reported as unstable, and no knee is claimed inside it.

use measure::curve;

/// The smallest ratio between neighbouring sizes that counts as a rise.
pub const MIN_RATIO: f64 = 1.3;

/// How far the largest stable size must read above the first for the curve to have a top
/// level at all.
pub const TOP_RISE: f64 = 3.0;

/// One point of a curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub kib: u64,
    pub ns: f64,
    /// Passes agree and rounds agree (see the crate's main for the thresholds).
    pub stable: bool,
    /// The larger of the pass disagreement and the round spread (max/min - 1), for reporting.
    pub spread: f64,
}

/// What the curve shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Finding {
    /// Latency rises by `ratio` from `from_kib` to `to_kib`, the steepest rise around.
    Knee {
        from_kib: u64,
        to_kib: u64,
        ratio: f64,
    },
    /// Consecutive unstable points from `from_kib` to `to_kib`; `spread` is the worst one.
    Unstable {
        from_kib: u64,
        to_kib: u64,
        spread: f64,
    },
}

impl Finding {
    pub fn start_kib(&self) -> u64 {
        match *self {
            Finding::Knee { from_kib, .. } | Finding::Unstable { from_kib, .. } => from_kib,
        }
    }
}

/// Finds the knees and the unstable stretches of a curve whose points are in ascending
/// size order. Returns them in size order.
pub fn find(points: &[Point]) -> Vec<Finding> {
    let mut out = Vec::new();
    // The ratio between point i and i + 1, when both are stable and measured.
    let ratio = |i: usize| -> Option<f64> {
        let (a, b) = (points.get(i)?, points.get(i + 1)?);
        (a.stable && b.stable && a.ns > 0.0 && b.ns.is_finite()).then(|| b.ns / a.ns)
    };
    for i in 0..points.len().saturating_sub(1) {
        let Some(r) = ratio(i) else { continue };
        let before = i.checked_sub(1).and_then(ratio).unwrap_or(0.0);
        let after = ratio(i + 1).unwrap_or(0.0);
        if r >= MIN_RATIO && r >= before && r > after {
            out.push(Finding::Knee {
                from_kib: points[i].kib,
                to_kib: points[i + 1].kib,
                ratio: r,
            });
        }
    }
    let stretches = curve::unstable_stretches(points, |p| (p.kib, p.stable, p.spread));
    out.extend(stretches.into_iter().map(|s| Finding::Unstable {
        from_kib: s.from,
        to_kib: s.to,
        spread: s.spread,
    }));
    out.sort_by_key(|f| f.start_kib());
    out
}

/// Where the curve reaches the level of its largest working set: the smallest stable size
/// from which every stable point reads within `within` (e.g. 1.5x) of the last stable point.
/// `None` if the curve never rises to three times its first stable point (it never left the
/// caches), or has fewer than two stable points.
pub fn top_level_from(points: &[Point], within: f64) -> Option<u64> {
    let stable: Vec<&Point> = points.iter().filter(|p| p.stable).collect();
    let (first, last) = (stable.first()?, stable.last()?);
    if stable.len() < 2 || last.ns < TOP_RISE * first.ns {
        return None;
    }
    let floor = last.ns / within;
    let mut from = last.kib;
    for p in stable.iter().rev() {
        if p.ns < floor {
            break;
        }
        from = p.kib;
    }
    Some(from)
}

/// The reported cache size nearest to a knee between `from_kib` and `to_kib` (nearest on a
/// log scale to the middle of the pair), and whether it lies within one doubling of that
/// middle, i.e. whether the curve and the report agree about this boundary.
pub fn nearest_reported(
    from_kib: u64,
    to_kib: u64,
    reported: &[(String, u64)],
) -> Option<(&str, u64, bool)> {
    curve::nearest_reported(from_kib << 10, to_kib << 10, reported)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(ns: &[f64]) -> Vec<Point> {
        ns.iter()
            .enumerate()
            .map(|(i, &v)| Point {
                kib: 4 << i,
                ns: v,
                stable: true,
                spread: 0.01,
            })
            .collect()
    }

    fn knees(f: &[Finding]) -> Vec<(u64, u64)> {
        f.iter()
            .filter_map(|f| match *f {
                Finding::Knee {
                    from_kib, to_kib, ..
                } => Some((from_kib, to_kib)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_books_curve_gives_its_three_boundaries() {
        // The appendix's random-access column, 4 KiB .. 128 MiB.
        let book = [
            1.44, 1.44, 1.45, 1.50, 2.66, 3.55, 5.15, 9.66, 12.73, 14.27, 15.80, 35.31, 65.44,
            76.73, 83.15, 88.57,
        ];
        let f = find(&curve(&book));
        // L1 32 KiB, L2 256 KiB, and the last level at 4 MiB (reported 16 MiB).
        assert_eq!(knees(&f), vec![(32, 64), (256, 512), (4096, 8192)]);
    }

    #[test]
    fn the_phones_curve_shows_boundaries_without_reported_sizes() {
        // Roughly the appendix's ARM phone table: flat to 64 KiB, steps past it and past 4 MiB.
        let phone = [
            2.3, 2.3, 2.3, 2.3, 2.3, 4.4, 9.6, 15.0, 19.0, 25.0, 31.0, 125.0, 220.0, 260.0, 290.0,
            305.0,
        ];
        let f = find(&curve(&phone));
        let k = knees(&f);
        // The first level's rise spreads over 64 KiB .. 256 KiB; its steepest step is read.
        assert!(k.iter().any(|&(a, _)| (64..=128).contains(&a)), "{k:?}");
        assert!(k.contains(&(4096, 8192)), "{k:?}");
    }

    #[test]
    fn the_top_level_is_where_the_curve_reaches_its_last_plateau() {
        let book = [
            1.44, 1.44, 1.45, 1.50, 2.66, 3.55, 5.15, 9.66, 12.73, 14.27, 15.80, 35.31, 65.44,
            76.73, 83.15, 88.57,
        ];
        // 88.57 / 1.5 = 59: from 16 MiB on, where the book's machine reports its L3 ending.
        assert_eq!(top_level_from(&curve(&book), 1.5), Some(16384));
        // An unstable point is skipped, not counted.
        let mut c = curve(&book);
        c[12].stable = false;
        assert_eq!(top_level_from(&c, 1.5), Some(32768));
        // A curve that never leaves the caches has no top level.
        assert_eq!(top_level_from(&curve(&[1.0, 1.1, 1.2, 2.0]), 1.5), None);
    }

    #[test]
    fn a_flat_curve_has_no_knee() {
        assert!(find(&curve(&[1.0, 1.05, 1.1, 1.12, 1.2, 1.25])).is_empty());
    }

    #[test]
    fn unstable_points_are_reported_not_turned_into_knees() {
        let mut c = curve(&[1.0, 1.0, 1.0, 12.0, 115.0, 120.0, 125.0]);
        c[3].stable = false;
        c[4].stable = false;
        c[4].spread = 8.6;
        let f = find(&c);
        assert!(knees(&f).is_empty(), "{f:?}");
        assert_eq!(
            f,
            vec![Finding::Unstable {
                from_kib: 32,
                to_kib: 64,
                spread: 8.6
            }]
        );
    }

    #[test]
    fn nearest_reported_size_and_agreement() {
        let rep = vec![
            ("L1d".to_string(), 48u64 << 10),
            ("L2".to_string(), 1 << 20),
            ("L3".to_string(), 32 << 20),
        ];
        assert_eq!(
            nearest_reported(64, 128, &rep),
            Some(("L1d", 48 << 10, true))
        );
        assert_eq!(
            nearest_reported(1024, 2048, &rep),
            Some(("L2", 1 << 20, true))
        );
        // A knee at 4-8 MiB is nearest to L2 or L3 but agrees with neither.
        let (_, _, agrees) = nearest_reported(4096, 8192, &rep).unwrap();
        assert!(!agrees);
        assert_eq!(nearest_reported(4, 8, &[]), None);
    }
}
