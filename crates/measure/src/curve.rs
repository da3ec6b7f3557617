//! Reading a measured curve against the machine's reported caches: the stretches of unstable
//! points (where no boundary may be read), and the reported cache size nearest a boundary.
//!
//! How a boundary itself is found differs by experiment (cache_ladder's knees compare
//! neighbouring sizes, bandwidth's drops compare sizes an octave apart); what they share
//! lives here.

/// A stretch of consecutive unstable points: the first and last size, and the worst spread.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stretch {
    pub from: u64,
    pub to: u64,
    pub spread: f64,
}

/// The stretches of consecutive unstable points of a curve, in the points' order. Each point
/// is read through `of`: its size, whether it is stable, and its spread.
pub fn unstable_stretches<P>(points: &[P], of: impl Fn(&P) -> (u64, bool, f64)) -> Vec<Stretch> {
    let mut out: Vec<Stretch> = Vec::new();
    let mut open = false; // whether the last point was unstable (its stretch is out's last)
    for p in points {
        let (size, stable, spread) = of(p);
        match (stable, open, out.last_mut()) {
            (true, ..) => open = false,
            (false, true, Some(s)) => {
                s.to = size;
                s.spread = s.spread.max(spread);
            }
            _ => {
                out.push(Stretch {
                    from: size,
                    to: size,
                    spread: spread.max(0.0),
                });
                open = true;
            }
        }
    }
    out
}

/// The reported cache size nearest (on a log scale) to the middle of a boundary between
/// `from` and `to` bytes, and whether it lies within one doubling of that middle: whether the
/// curve and the report agree about this boundary. `reported` is `(name, bytes)`.
pub fn nearest_reported(
    from: u64,
    to: u64,
    reported: &[(String, u64)],
) -> Option<(&str, u64, bool)> {
    let mid = (from as f64 * to as f64).sqrt();
    reported
        .iter()
        .map(|(n, b)| (n.as_str(), *b, (*b as f64 / mid).log2().abs()))
        .min_by(|a, b| a.2.total_cmp(&b.2))
        .map(|(n, b, d)| (n, b, d <= 1.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unstable_points_group_into_stretches_with_their_worst_spread() {
        let pts = [
            (1, true, 0.0),
            (2, false, 0.3),
            (4, false, 0.5),
            (8, true, 0.0),
            (16, false, 0.2),
        ];
        let s = unstable_stretches(&pts, |p| *p);
        assert_eq!(
            s,
            vec![
                Stretch {
                    from: 2,
                    to: 4,
                    spread: 0.5
                },
                Stretch {
                    from: 16,
                    to: 16,
                    spread: 0.2
                }
            ]
        );
        assert!(unstable_stretches(&[(1u64, true, 0.0)], |p| *p).is_empty());
    }

    #[test]
    fn the_nearest_reported_size_and_whether_it_agrees() {
        let rep = vec![("L1d".to_string(), 32 << 10), ("L2".to_string(), 1 << 20)];
        let (n, b, ok) = nearest_reported(32 << 10, 64 << 10, &rep).unwrap();
        assert_eq!((n, b, ok), ("L1d", 32 << 10, true));
        let (n, _, ok) = nearest_reported(8 << 20, 16 << 20, &rep).unwrap();
        assert_eq!((n, ok), ("L2", false));
        assert!(nearest_reported(1, 2, &[]).is_none());
    }
}
