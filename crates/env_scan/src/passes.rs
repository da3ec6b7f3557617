//! The scan's mechanics: every size once per pass, both workloads at each, each in a fresh
//! child; then what the children said about themselves, gathered for the tables.
//!
//! `measure::scan::run` does the ordering and files each cell under its size; this module
//! adds the child's place in time (`seq`), a progress line on stderr now and then, and the
//! per-workload, per-pass views that the analysis needs.

use crate::analysis::{self, Judgement, Pass};
use crate::child::Workload;
use crate::launch::{Launcher, Outcome};
use measure::disturb::{self, Load, Window};
use measure::scan::{self, Order, Scan};
use std::collections::BTreeMap;
use std::time::Instant;

/// One child's measurement during the scan, with its place in time.
pub struct Measured {
    pub seq: usize,
    pub result: Result<Outcome, String>,
}

/// One child of the scan, where it stood in time and what it returned.
pub struct Child<'a> {
    pub seq: usize,
    /// Index into [`Scanned::orders`].
    pub pass: usize,
    pub pad: usize,
    pub workload: Workload,
    pub result: &'a Result<Outcome, String>,
}

/// The scan as it ran: the sizes, the orders, one cell (both workloads) per size and pass.
pub struct Scanned {
    pub pads: Vec<usize>,
    pub orders: Vec<Order>,
    pub scan: Scan<usize, Vec<Measured>>,
    /// Wall time of the whole scan.
    pub seconds: f64,
    /// What ran beside the scan ([`Window`] around it); other work on the children's core
    /// is what the children themselves waited for it over their lives.
    pub load: Load,
}

/// How many children a scan of `n_pads` sizes over `n_orders` passes starts.
pub fn children(n_pads: usize, n_orders: usize) -> usize {
    n_pads * n_orders * Workload::ALL.len()
}

/// Runs the scan: in every pass, at every size, one child per workload. A progress line
/// goes to stderr every 32 sizes and at the end of each pass; `scan` is `(this, of)` when
/// the whole scan is repeated (`--repeat`), and named in it then.
pub fn run(launcher: &Launcher, pads: &[usize], orders: &[Order], scan: (usize, usize)) -> Scanned {
    let which = if scan.1 > 1 {
        format!("scan {}/{}, ", scan.0, scan.1)
    } else {
        String::new()
    };
    let total = children(pads.len(), orders.len());
    let window = Window::open(launcher.core);
    let t_scan = Instant::now();
    let mut seq = 0usize;
    let mut done_in_pass = 0usize;
    let mut last_pass = usize::MAX;
    let scan = scan::run(pads, orders, |&pad, pass| {
        if pass != last_pass {
            last_pass = pass;
            done_in_pass = 0;
        }
        let cell: Vec<Measured> = Workload::ALL
            .iter()
            .map(|&w| {
                let m = Measured {
                    seq,
                    result: launcher.run(w, pad),
                };
                seq += 1;
                m
            })
            .collect();
        done_in_pass += 1;
        if done_in_pass.is_multiple_of(32) || done_in_pass == pads.len() {
            eprintln!(
                "env_scan: {which}pass {}/{} ({}): {done_in_pass}/{} sizes, {seq}/{total} children, {:.1} s",
                pass + 1,
                orders.len(),
                orders[pass].name(),
                pads.len(),
                t_scan.elapsed().as_secs_f64()
            );
        }
        cell
    });
    let seconds = t_scan.elapsed().as_secs_f64();
    let mut s = Scanned {
        pads: pads.to_vec(),
        orders: orders.to_vec(),
        scan,
        seconds,
        load: Load::default(),
    };
    // The parent only waits for its children: their own waits say what ran on their core.
    s.load = Load {
        on_core: s.waited_share(),
        ..window.close()
    };
    s
}

impl Scanned {
    /// Other work on the children's core over the scan, in cores' worth: the time they waited
    /// for it over their lives; `None` where no child could read its waits.
    pub fn waited_share(&self) -> Option<f64> {
        let reports: Vec<_> = self
            .children()
            .into_iter()
            .filter_map(|c| c.result.as_ref().ok().map(|o| o.report.clone()))
            .collect();
        let waited: Option<u64> = reports.iter().map(|r| r.life_waited_ns).sum();
        let wall: u64 = reports.iter().map(|r| r.life_ns).sum();
        waited.filter(|_| wall > 0).map(|w| w as f64 / wall as f64)
    }

    /// The timed runs of workload `w`'s children (of pass `pass`, or of every pass), as one
    /// tally with the load around the scan.
    pub fn tally(&self, w: usize, pass: Option<usize>) -> disturb::Tally {
        self.children()
            .into_iter()
            .filter(|c| c.workload == Workload::ALL[w] && pass.is_none_or(|p| c.pass == p))
            .filter_map(|c| c.result.as_ref().ok())
            .fold(disturb::Tally::default(), |t, o| t.merge(&o.report.tally()))
            .with_load(self.load)
    }

    pub fn total(&self) -> usize {
        children(self.pads.len(), self.orders.len())
    }

    /// Every child of the scan, in the order it ran.
    pub fn children(&self) -> Vec<Child<'_>> {
        let mut all = Vec::new();
        for pt in &self.scan.points {
            for (pass, cell) in pt.passes.iter().enumerate() {
                for (w, m) in cell.iter().enumerate() {
                    all.push(Child {
                        seq: m.seq,
                        pass,
                        pad: pt.param,
                        workload: Workload::ALL[w],
                        result: &m.result,
                    });
                }
            }
        }
        all.sort_by_key(|c| c.seq);
        all
    }

    /// The median time of workload `w` at every size in pass `pass` (`None` where the child failed).
    pub fn times(&self, w: usize, pass: usize) -> Vec<Option<f64>> {
        self.scan
            .points
            .iter()
            .map(|pt| pt.passes[pass][w].result.as_ref().ok())
            .map(|o| o.map(|o| o.report.median_ns))
            .collect()
    }

    /// `devs[w][pass][size]`: each size's deviation from the median of its pass, in percent.
    pub fn deviations(&self) -> Vec<Vec<Vec<Option<f64>>>> {
        (0..Workload::ALL.len())
            .map(|w| {
                (0..self.orders.len())
                    .map(|p| analysis::deviations(&self.times(w, p)))
                    .collect()
            })
            .collect()
    }

    /// The verdict for workload `w` from its deviations (`devs[pass][size]`) and the
    /// positions in time of every size ([`Scanned::positions`]).
    pub fn judge(&self, devs: &[Vec<Option<f64>>], positions: &[Vec<usize>]) -> Judgement {
        let passes: Vec<Pass> = self
            .orders
            .iter()
            .enumerate()
            .map(|(p, o)| Pass {
                name: o.name().to_string(),
                one_direction: !matches!(o, Order::Shuffled(_)),
                dev: devs[p].clone(),
                position: positions[p].clone(),
            })
            .collect();
        analysis::judge(&self.pads, &passes)
    }

    /// `positions[pass][size]`: when each size was measured within its pass (0 = first).
    pub fn positions(&self) -> Vec<Vec<usize>> {
        self.orders
            .iter()
            .map(|o| {
                let mut pos = vec![0; self.pads.len()];
                for (p, i) in o.indices(self.pads.len()).into_iter().enumerate() {
                    pos[i] = p;
                }
                pos
            })
            .collect()
    }
}

/// What the children reported about themselves over the whole scan.
#[derive(Default)]
pub struct Tally {
    pub ok: usize,
    pub aslr_off: usize,
    pub pinned: usize,
    /// Children whose environment was `PAD` alone.
    pub env_ok: usize,
    pub failures: Vec<String>,
    /// Each distinct stderr line of the children, with how often it came.
    pub said: BTreeMap<String, usize>,
    /// (size, workload) pairs whose stack address was the same in every pass.
    pub reproduced: usize,
}

impl Tally {
    pub fn of(s: &Scanned) -> Tally {
        let mut t = Tally::default();
        let cells = s
            .scan
            .points
            .iter()
            .flat_map(|pt| pt.passes.iter().flatten());
        for m in cells {
            match &m.result {
                Ok(o) => {
                    let r = &o.report;
                    t.ok += 1;
                    t.aslr_off += usize::from(r.aslr_off());
                    t.pinned += usize::from(r.pinned());
                    t.env_ok += usize::from(r.env_vars == 1);
                    for l in &o.stderr {
                        *t.said.entry(l.clone()).or_default() += 1;
                    }
                }
                Err(e) => t.failures.push(e.clone()),
            }
        }
        t.reproduced = s
            .scan
            .points
            .iter()
            .flat_map(|pt| {
                (0..Workload::ALL.len()).map(move |w| {
                    let addrs: Vec<u64> = pt
                        .passes
                        .iter()
                        .filter_map(|cell| cell[w].result.as_ref().ok())
                        .map(|o| o.report.stack_addr)
                        .collect();
                    addrs.len() == pt.passes.len() && addrs.iter().all(|a| *a == addrs[0])
                })
            })
            .filter(|same| *same)
            .count();
        t
    }
    pub fn all_aslr_off(&self) -> bool {
        self.ok > 0 && self.aslr_off == self.ok
    }
    pub fn all_pinned(&self) -> bool {
        self.ok > 0 && self.pinned == self.ok
    }
}
