//! Reading the cache boundaries off the bandwidth curve.
//!
//! Bandwidth stays on a plateau while the working set fits a level and falls when it
//! outgrows it. With two sizes per octave a fall spreads over several neighbouring points, so
//! the curve is compared one octave apart: the *drop* at size `s` is the bandwidth at `s`
//! over the bandwidth at `2s`. A boundary is read where that drop is at least [`MIN_DROP`]
//! and the steepest of the octave windows that overlap it; the level then holds about `s`.
//! Only stable points are compared (passes agree, rounds agree); a stretch of unstable
//! points is reported as such, and no boundary is read inside it.

use measure::curve;

/// A boundary is read where the fall is at least this factor (declared in the schema, which
/// the figure's legend also quotes).
pub use ::bandwidth::schema::MIN_DROP;

/// One point of a bandwidth curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub bytes: u64,
    pub gbs: f64,
    pub stable: bool,
    /// The worse of the pass and round spreads (for reporting unstable stretches).
    pub spread: f64,
}

/// What the curve shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Finding {
    /// Bandwidth falls by `ratio` from `from` to `to` bytes (one octave apart).
    Drop { from: u64, to: u64, ratio: f64 },
    /// Consecutive unstable points from `from` to `to` bytes; `spread` is the worst one.
    Unstable { from: u64, to: u64, spread: f64 },
}

impl Finding {
    pub fn start(&self) -> u64 {
        match *self {
            Finding::Drop { from, .. } | Finding::Unstable { from, .. } => from,
        }
    }
}

/// Finds the drops and the unstable stretches of a curve whose points are in ascending size
/// order. Returns them in size order.
pub fn find(points: &[Point]) -> Vec<Finding> {
    // The window starting at point i: the point one octave up, if it was measured.
    let partner = |i: usize| {
        let want = points.get(i)?.bytes * 2;
        points[i + 1..]
            .iter()
            .position(|p| p.bytes == want)
            .map(|k| i + 1 + k)
    };
    let drop = |i: usize| -> Option<f64> {
        let j = partner(i)?;
        let (a, b) = (&points[i], &points[j]);
        (a.stable && b.stable && b.gbs > 0.0 && a.gbs.is_finite()).then(|| a.gbs / b.gbs)
    };
    // The windows whose fall is the steepest around, as (from, to) point indices.
    let mut steep: Vec<(usize, usize)> = Vec::new();
    for i in 0..points.len() {
        let Some(r) = drop(i) else { continue };
        let before = i.checked_sub(1).and_then(drop).unwrap_or(0.0);
        let after = drop(i + 1).unwrap_or(0.0);
        if r < MIN_DROP || r < before || r <= after {
            continue;
        }
        let j = partner(i).expect("a drop has a partner");
        match steep.last_mut() {
            // A window that starts inside (or at the end of) the last one continues the same
            // fall: one boundary spread over more sizes, reported once, end to end.
            Some(last) if i <= last.1 => last.1 = last.1.max(j),
            _ => steep.push((i, j)),
        }
    }
    let mut out: Vec<Finding> = steep
        .into_iter()
        .map(|(i, j)| Finding::Drop {
            from: points[i].bytes,
            to: points[j].bytes,
            ratio: points[i].gbs / points[j].gbs,
        })
        .collect();
    let stretches = curve::unstable_stretches(points, |p| (p.bytes, p.stable, p.spread));
    out.extend(stretches.into_iter().map(|s| Finding::Unstable {
        from: s.from,
        to: s.to,
        spread: s.spread,
    }));
    out.sort_by_key(Finding::start);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A curve at two sizes per octave from 4 KiB: 4K, 6K, 8K, 12K, ...
    fn curve(gbs: &[f64]) -> Vec<Point> {
        let mut b = 4096u64;
        gbs.iter()
            .enumerate()
            .map(|(i, &g)| {
                let p = Point {
                    bytes: b,
                    gbs: g,
                    stable: true,
                    spread: 0.01,
                };
                b = if i % 2 == 0 { b / 2 * 3 } else { b / 3 * 4 };
                p
            })
            .collect()
    }

    fn drops(f: &[Finding]) -> Vec<(u64, u64)> {
        f.iter()
            .filter_map(|f| match *f {
                Finding::Drop { from, to, .. } => Some((from >> 10, to >> 10)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn sizes_of_the_test_curve() {
        let c = curve(&[1.0; 6]);
        let kib: Vec<u64> = c.iter().map(|p| p.bytes >> 10).collect();
        assert_eq!(kib, vec![4, 6, 8, 12, 16, 24]);
    }

    #[test]
    fn three_plateaus_give_two_boundaries() {
        // 4K..32K at 200, falling to 100 by 64K, flat to 3M, falling to 30 by 6M.
        let mut g = vec![200.0, 200.0, 200.0, 200.0, 200.0, 200.0, 200.0, 150.0];
        g.extend([100.0; 12]);
        g.extend([60.0, 30.0, 30.0, 30.0, 30.0]);
        let c = curve(&g);
        let d = drops(&find(&c));
        assert_eq!(d.len(), 2, "{d:?}");
        assert!((24..=48).contains(&d[0].0), "{d:?}");
        assert!((2048..=4096).contains(&d[1].0), "{d:?}");
    }

    #[test]
    fn touching_falls_are_one_boundary() {
        // Two steepest windows, 12K..24K and 24K..48K, sharing the point 24K (a bumpy fall,
        // as a shared cache gives): one boundary from 12K to 48K.
        let c = curve(&[100.0, 100.0, 100.0, 100.0, 90.0, 62.5, 69.2, 39.1, 57.7]);
        let f = find(&c);
        assert_eq!(drops(&f), vec![(12, 48)], "{f:?}");
        let Finding::Drop { ratio, .. } = f[0] else {
            panic!("{f:?}")
        };
        assert!((ratio - 100.0 / 39.1).abs() < 1e-12);
    }

    #[test]
    fn a_flat_or_gently_falling_curve_has_no_boundary() {
        assert!(find(&curve(&[100.0, 98.0, 97.0, 95.0, 93.0, 90.0, 88.0])).is_empty());
    }

    #[test]
    fn unstable_points_are_reported_and_not_compared() {
        let mut c = curve(&[200.0, 200.0, 200.0, 50.0, 50.0, 50.0, 50.0]);
        c[2].stable = false;
        c[3].stable = false;
        c[3].spread = 0.7;
        let f = find(&c);
        assert!(drops(&f).iter().all(|&(a, _)| a != 8 && a != 12), "{f:?}");
        assert!(f.contains(&Finding::Unstable {
            from: 8 << 10,
            to: 12 << 10,
            spread: 0.7
        }));
    }
}
