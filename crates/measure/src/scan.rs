//! Scanning a parameter in more than one order, and checking that the orders agree.
//!
//! Seed 003's lesson: a scan that always runs in one direction measures time as much as the
//! parameter. A machine that drifts (another tenant, a clock that settles, a cache that
//! warms) paints a trend that looks like an effect of the parameter. So every scan here runs
//! at least two passes in different orders (forward, then a seeded shuffle; backward too on
//! request), files each result under its parameter, and reports per value whether the
//! passes agree. A value whose passes disagree is not a measurement of the parameter.

use crate::ring;

/// The order of one pass over the parameter list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    Forward,
    Backward,
    /// A Fisher-Yates shuffle seeded with this value.
    Shuffled(u64),
}

impl Order {
    pub fn name(&self) -> &'static str {
        match self {
            Order::Forward => "forward",
            Order::Backward => "backward",
            Order::Shuffled(_) => "shuffled",
        }
    }
    /// The indices `0..n` in this order.
    pub fn indices(&self, n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        match *self {
            Order::Forward => {}
            Order::Backward => v.reverse(),
            Order::Shuffled(seed) => ring::shuffle(&mut ring::rng(seed), &mut v),
        }
        v
    }
}

/// Forward then shuffled: the minimum every scan experiment runs.
pub const TWO_PASSES: [Order; 2] = [Order::Forward, Order::Shuffled(ring::DEFAULT_SEED)];

/// Passes whose representative values differ by more than this share disagree.
pub const DEFAULT_TOLERANCE: f64 = 0.10;

/// One parameter value with one result per pass (in the order of [`Scan::orders`]).
#[derive(Debug, Clone)]
pub struct ScanPoint<P, M> {
    pub param: P,
    pub passes: Vec<M>,
}

/// How well the passes of one point agree on a figure.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Agreement {
    pub min: f64,
    pub max: f64,
    /// max / min - 1 (0 when all passes give the same figure).
    pub spread: f64,
    pub agree: bool,
}

impl<P, M> ScanPoint<P, M> {
    /// Agreement of the passes on `figure(result)`, within `tolerance` (e.g. 0.10).
    pub fn agreement(&self, tolerance: f64, figure: impl Fn(&M) -> f64) -> Agreement {
        let vals: Vec<f64> = self
            .passes
            .iter()
            .map(figure)
            .filter(|v| v.is_finite())
            .collect();
        if vals.is_empty() {
            return Agreement {
                min: f64::NAN,
                max: f64::NAN,
                spread: f64::NAN,
                agree: false,
            };
        }
        let min = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let max = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let spread = if min > 0.0 {
            max / min - 1.0
        } else if max == min {
            0.0
        } else {
            f64::INFINITY
        };
        Agreement {
            min,
            max,
            spread,
            agree: spread <= tolerance,
        }
    }
}

/// The result of a scan.
#[derive(Debug, Clone)]
pub struct Scan<P, M> {
    pub orders: Vec<Order>,
    pub points: Vec<ScanPoint<P, M>>,
}

/// Measures every value of `params` once per order in `orders`, calling `measure` in the
/// order of each pass, and files results under their parameter (in the order of `params`).
/// `measure` receives the value and the pass number. It prints nothing (a scan that reports
/// its own progress, as env_scan's does, uses this one).
pub fn run<P: Clone, M>(
    params: &[P],
    orders: &[Order],
    measure: impl FnMut(&P, usize) -> M,
) -> Scan<P, M> {
    scan(params, orders, None, measure)
}

/// [`run`], with a progress line during a long silence ([`crate::progress`]) that names the
/// value about to be measured with `name` ("512 MiB") and the pass.
pub fn run_named<P: Clone, M>(
    params: &[P],
    orders: &[Order],
    name: impl Fn(&P) -> String,
    measure: impl FnMut(&P, usize) -> M,
) -> Scan<P, M> {
    scan(params, orders, Some(&name), measure)
}

/// [`run`] and [`run_named`].
fn scan<P: Clone, M>(
    params: &[P],
    orders: &[Order],
    name: Option<&dyn Fn(&P) -> String>,
    mut measure: impl FnMut(&P, usize) -> M,
) -> Scan<P, M> {
    assert!(!orders.is_empty(), "a scan needs at least one pass");
    let mut slots: Vec<Vec<Option<M>>> = (0..params.len())
        .map(|_| (0..orders.len()).map(|_| None).collect())
        .collect();
    let steps = params.len() * orders.len();
    let mut progress = crate::progress::Progress::shown(
        steps,
        name.is_some() && std::io::IsTerminal::is_terminal(&std::io::stderr()),
    );
    let mut done = 0;
    for (pass, order) in orders.iter().enumerate() {
        for i in order.indices(params.len()) {
            done += 1;
            progress.step(done, || {
                let n = name.map(|f| f(&params[i])).unwrap_or_default();
                let sep = if n.is_empty() { "" } else { ", " };
                format!("{n}{sep}{} pass", order.name())
            });
            slots[i][pass] = Some(measure(&params[i], pass));
        }
    }
    let points = params
        .iter()
        .cloned()
        .zip(slots)
        .map(|(param, s)| ScanPoint {
            param,
            passes: s
                .into_iter()
                .map(|m| m.expect("every pass visits every index"))
                .collect(),
        })
        .collect();
    Scan {
        orders: orders.to_vec(),
        points,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_are_permutations() {
        for o in [Order::Forward, Order::Backward, Order::Shuffled(9)] {
            let mut v = o.indices(50);
            v.sort_unstable();
            assert_eq!(v, (0..50).collect::<Vec<_>>());
        }
        assert_eq!(Order::Backward.indices(3), vec![2, 1, 0]);
        assert_ne!(Order::Shuffled(9).indices(50), Order::Forward.indices(50));
    }

    #[test]
    fn results_are_filed_under_their_parameter_in_every_order() {
        let params = [10u32, 20, 30, 40];
        let mut calls = Vec::new();
        let s = run(
            &params,
            &[Order::Forward, Order::Backward, Order::Shuffled(1)],
            |p, pass| {
                calls.push((*p, pass));
                *p as f64 + pass as f64 * 0.001
            },
        );
        assert_eq!(calls.len(), 12);
        assert_eq!(&calls[4..8], &[(40, 1), (30, 1), (20, 1), (10, 1)]);
        for pt in &s.points {
            assert_eq!(pt.passes.len(), 3);
            assert!((pt.passes[2] - pt.param as f64 - 0.002).abs() < 1e-9);
        }
    }

    #[test]
    fn drift_is_caught_as_disagreement() {
        // A "machine" that slows down over time: the value depends on when it is measured,
        // not on the parameter. Forward and shuffled passes then disagree on some values.
        let params: Vec<u32> = (0..20).collect();
        let mut t = 0.0;
        let s = run(&params, &TWO_PASSES, |_, _| {
            t += 1.0;
            100.0 + t * 5.0
        });
        let disagreeing = s
            .points
            .iter()
            .filter(|p| !p.agreement(DEFAULT_TOLERANCE, |m| *m).agree)
            .count();
        assert!(disagreeing > 0);
        // A stable machine agrees everywhere.
        let s = run(&params, &TWO_PASSES, |p, _| 100.0 + *p as f64);
        assert!(
            s.points
                .iter()
                .all(|p| p.agreement(DEFAULT_TOLERANCE, |m| *m).agree)
        );
    }

    #[test]
    fn agreement_spread() {
        let p = ScanPoint {
            param: 0,
            passes: vec![100.0, 120.0],
        };
        let a = p.agreement(0.1, |m| *m);
        assert!((a.spread - 0.2).abs() < 1e-12);
        assert!(!a.agree);
        assert!(p.agreement(0.25, |m| *m).agree);
    }
}
