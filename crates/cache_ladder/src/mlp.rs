//! Beyond the appendix: memory-level parallelism. One random address ring per working set (in
//! L2, in L3, in memory), walked by 1, 2, 4, 8 and 16 independent chains at once
//! ([`measure::chase::Ring::chase_parallel`]), as multichase's `parallelN` and lmbench's
//! `par_mem` do. One chain waits for each load before the next; N chains give the core N loads
//! it can have in flight. From the time per step of N loads: the time per load, the misses in
//! flight (N chains' loads per ns over one chain's) and the bandwidth the chains imply
//! (N lines per step). Measuring lives in [`measure_level`]; the reading is
//! [`crate::verdict::mlp_verdict`], a pure function of [`Mlp`].

use ::cache_ladder::schema::mlp as sc;
use measure::chase::{PARALLEL, Ring, spread};
use measure::clock;
use measure::data::Block;
use measure::disturb::{Probe, Tally};
use measure::keep::black_box;
use measure::mem::Region;
use measure::ring::{DEFAULT_SEED, sattolo};
use measure::rounds::{self, Step, Want};
use measure::stats::Summary;

/// The line each slot sits on: one slot per 64 bytes.
const SLOT_BYTES: usize = 64;
/// The time a round aims at.
const ROUND_NS: f64 = 300_000.0;
/// The most extra rounds per chain count when rounds are disturbed, and their time.
pub const EXTRA_ROUNDS: usize = 6;
pub const BUDGET_NS: u64 = 20_000_000;

/// One chain count at one working set.
#[derive(Debug, Clone)]
pub struct Point {
    pub chains: usize,
    /// Nanoseconds per step of all chains (one load each), clean rounds.
    pub step: Summary,
    pub tally: Tally,
}

/// One working set: its level's name, its size, and the points by chain count.
#[derive(Debug, Clone)]
pub struct Level {
    pub name: String,
    pub bytes: usize,
    pub points: Vec<Point>,
    /// Share of the region on huge pages, where known.
    pub huge: Option<f64>,
}

impl Level {
    /// Loads in flight at `p`: its loads per ns over one chain's.
    pub fn in_flight(&self, p: &Point) -> f64 {
        let one = self.points[0].step.median;
        p.chains as f64 * one / p.step.median
    }
}

/// Bandwidth the chains imply, GB/s: one line per chain per step.
pub fn implied_gbs(p: &Point) -> f64 {
    (p.chains * SLOT_BYTES) as f64 / p.step.median
}

/// Times every chain count over one ring of `bytes` (one slot per line, in random order),
/// warmed by a whole lap, the counts interleaved round by round. `clean` clean rounds each.
pub fn measure_level(name: &str, bytes: usize, clean: usize) -> Result<Level, String> {
    let region = Region::new(bytes)?;
    let words = bytes / 8;
    // SAFETY: the region is a private read-write mapping of at least `bytes` bytes, owned
    // here and not otherwise accessed while this borrow lives.
    let buf = unsafe { std::slice::from_raw_parts_mut(region.as_ptr().cast::<u64>(), words) };
    let slots = bytes / SLOT_BYTES;
    let next = sattolo(slots, DEFAULT_SEED);
    let ring = Ring::build(buf, measure::chase::Link::Address, &next, |k| {
        k * (SLOT_BYTES / 8)
    });
    // A whole lap first (16 chains, each over its sixteenth), so the ring sits in its level.
    let lap = ring.lap();
    let mut all = spread(&lap, 16, 0, 1);
    ring.chase_parallel(&mut all, (slots / 16) as u64 + 1);
    // Each chain count walks its own fifth of the lap, so that no count follows another's
    // chains closely and finds the lines they just brought in.
    let mut cursors: Vec<Vec<usize>> = PARALLEL
        .iter()
        .enumerate()
        .map(|(arc, &n)| spread(&lap, n, arc, PARALLEL.len()))
        .collect();
    // Size each count's rounds from a first walk of a lap's worth (at most 20,000 steps).
    let steps: Vec<u64> = cursors
        .iter_mut()
        .map(|c| {
            let probe_steps = (slots / c.len()).clamp(100, 20_000) as u64;
            let (t, ()) = clock::time_ns(|| ring.chase_parallel(c, probe_steps));
            measure::chase::steps_for(t / probe_steps as f64, ROUND_NS, 100)
        })
        .collect();
    let want = Want {
        clean,
        max_rounds: clean + EXTRA_ROUNDS,
        budget_ns: BUDGET_NS,
        warm_every: false,
    };
    let mut probe = Probe::new();
    let timed = rounds::interleaved(&mut probe, &want, PARALLEL.len(), |step| match step {
        Step::Warm(i) => {
            ring.chase_parallel(&mut cursors[i], steps[i] / 4 + 1);
            0.0
        }
        Step::Time(i) => {
            let n = black_box(steps[i]);
            let (t, ()) = clock::time_ns(|| ring.chase_parallel(&mut cursors[i], n));
            black_box(&cursors[i]);
            t / n as f64
        }
    });
    let points = timed
        .iter()
        .zip(PARALLEL)
        .map(|(t, chains)| Point {
            chains,
            step: t.summary().expect("rounds > 0"),
            tally: rounds::tally([t]),
        })
        .collect();
    Ok(Level {
        name: name.to_string(),
        bytes,
        points,
        huge: region.huge_backing(),
    })
}

/// The section's result: every level measured, and all their rounds with the load around.
pub struct Mlp {
    pub levels: Vec<Level>,
    pub tally: Tally,
}

impl Mlp {
    /// The `mlp` block: one row per level and chain count.
    pub fn block(&self) -> Block {
        let mut b = Block::new(sc::BLOCK, sc::COLUMNS);
        for l in &self.levels {
            for p in &l.points {
                b.row(vec![
                    l.name.as_str().into(),
                    (l.bytes as u64 / 1024).into(),
                    p.chains.into(),
                    p.step.median.into(),
                    p.step.min.into(),
                    p.step.max.into(),
                    (p.step.median / p.chains as f64).into(),
                    l.in_flight(p).into(),
                    implied_gbs(p).into(),
                    p.tally.rounds.into(),
                    p.tally.disturbed.into(),
                ]);
            }
        }
        b
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn level(name: &str, one: f64, par: f64) -> Level {
        let points = PARALLEL
            .iter()
            .map(|&n| {
                let m = if n == 1 {
                    one
                } else {
                    one.max(par * n as f64 / 16.0)
                };
                Point {
                    chains: n,
                    step: Summary::of(&[m * 0.99, m, m * 1.01]).unwrap(),
                    tally: Tally::default(),
                }
            })
            .collect();
        Level {
            name: name.into(),
            bytes: 128 << 20,
            points,
            huge: None,
        }
    }

    /// L2 and memory over 50 rounds, `disturbed` of them, with `elsewhere` cores busy.
    pub(crate) fn mlp(disturbed: usize, elsewhere: f64) -> Mlp {
        Mlp {
            levels: vec![level("L2", 3.0, 3.0), level("memory", 100.0, 160.0)],
            tally: measure::testing::tally(
                50,
                disturbed,
                if disturbed > 0 { 0.4 } else { 0.0 },
                elsewhere,
            ),
        }
    }

    #[test]
    fn in_flight_and_bandwidth_follow_from_the_times() {
        let m = mlp(0, 0.0);
        let mem = &m.levels[1];
        let most = mem.points.last().unwrap();
        // 16 chains in 160 ns a step against 100 ns for one: 10 loads in flight.
        assert!((mem.in_flight(most) - 10.0).abs() < 1e-9);
        assert!((implied_gbs(most) - 16.0 * 64.0 / 160.0).abs() < 1e-9);
    }

    #[test]
    fn the_block_has_a_row_per_level_and_count() {
        let b = mlp(0, 0.0).block();
        assert_eq!(b.nums(sc::CHAINS).unwrap().len(), 2 * PARALLEL.len());
    }
}
