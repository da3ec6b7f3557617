//! The bench of sections 1 to 4: what one run does, and how runs are interleaved into rounds.
//!
//! Every comparison is measured as one set: the variants of a table *and* the one-thread
//! baseline, visited once per round in a changing order (forward, shuffled, backward, ...)
//! through `measure::scan`, after one discarded warm-up visit. So a drift of the machine
//! (the appendix saw its baseline move from 0.48 to 0.28 ns between runs on this very VM)
//! hits the baseline and the variants alike, and a variant is compared with the baseline
//! *of its own round* before the rounds are summarised.

use measure::data::Block;
use measure::disturb::{Evidence, Tally};
use measure::mem::Region;
use measure::out::Out;
use measure::ring;
use measure::rounds::Timed;
use measure::scan::{self, Order};
use measure::stats::{self, Split, Summary};
use measure::team::{self, Core, Place, Seen};
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

/// What one run does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// `threads` threads, each incrementing its own slot; slot `i` lies `i * gap` bytes into
    /// a page-aligned arena. One thread is the baseline.
    Slots { threads: usize, gap: usize },
    /// `threads` threads incrementing one shared `AtomicU64` (relaxed).
    Atomic { threads: usize },
    /// `threads` threads incrementing one `u64` under one `std::sync::Mutex`.
    Locked { threads: usize },
}

impl Work {
    pub const BASELINE: Work = Work::Slots { threads: 1, gap: 0 };

    pub fn threads(&self) -> usize {
        match *self {
            Work::Slots { threads, .. } | Work::Atomic { threads } | Work::Locked { threads } => {
                threads
            }
        }
    }

    /// A short name for `#DATA` (no spaces): `baseline`, `slots_2t_64b`, `atomic_2t`, `mutex_1t`.
    pub fn label(&self) -> String {
        match *self {
            Work::Slots { threads: 1, .. } => "baseline".into(),
            Work::Slots { threads, gap } => format!("slots_{threads}t_{gap}b"),
            Work::Atomic { threads } => format!("atomic_{threads}t"),
            Work::Locked { threads } => format!("mutex_{threads}t"),
        }
    }
}

/// How much work each run does, and how many rounds a set gets.
#[derive(Debug, Clone, Copy)]
pub struct Plan {
    pub rounds: usize,
    /// Increments per thread for the baseline and section 2.
    pub slot_iters: u64,
    /// Increments per thread for section 3 (more threads, so fewer each).
    pub team_iters: u64,
    pub atomic_iters: u64,
    pub mutex_iters: u64,
}

impl Plan {
    /// Rounds are short, so that most fit between two preemptions: on the 2-core Zen 3 VM a
    /// same-line round of two threads takes about 5 ms and a separate-line one 0.2 ms (with
    /// 60M increments a round took 300 ms, and 44 of 105 were disturbed on a quiet machine).
    /// The full run takes about a second there, `--quick` half of that.
    pub fn new(quick: bool) -> Plan {
        if quick {
            Plan {
                rounds: 5,
                slot_iters: 500_000,
                team_iters: 250_000,
                atomic_iters: 100_000,
                mutex_iters: 20_000,
            }
        } else {
            Plan {
                rounds: 15,
                slot_iters: 1_000_000,
                team_iters: 500_000,
                atomic_iters: 200_000,
                mutex_iters: 50_000,
            }
        }
    }
}

/// One set member's rounds.
#[derive(Debug, Clone)]
pub struct Measured {
    pub work: Work,
    /// Nanoseconds per increment (wall time over all increments of all threads), per round.
    pub ns: Vec<f64>,
    /// Where each thread asked to run and was seen, per round.
    pub seen: Vec<Vec<Seen>>,
    /// Per round, the evidence of its most disturbed thread ([`round_evidence`]).
    pub evidence: Vec<Evidence>,
}

impl Measured {
    /// The rounds with their evidence.
    pub fn timed(&self) -> Timed {
        Timed {
            values: self.ns.clone(),
            evidence: self.evidence.clone(),
        }
    }

    /// The rounds a figure is computed from: the clean ones, or all when none was clean.
    pub fn used(&self) -> Vec<f64> {
        self.timed().used()
    }

    /// Median, min and max of the clean rounds (of all, when none was clean).
    pub fn summary(&self) -> Summary {
        self.timed().summary().expect("at least one round")
    }

    /// How many rounds there were, how many were disturbed, and whether disturbed ones are
    /// used.
    pub fn tally(&self) -> Tally {
        self.timed().tally()
    }

    /// Per round: this cost over `other`'s cost of the same round divided by `split`, then
    /// summarised over the rounds in which both were clean (over all rounds when none was).
    /// With `other` the baseline and `split` the thread count, that is "against a perfect
    /// split of the baseline".
    pub fn ratio_to(&self, other: &Measured, split: f64) -> Summary {
        let pairs: Vec<(f64, bool)> = self
            .ns
            .iter()
            .zip(&other.ns)
            .zip(self.evidence.iter().zip(&other.evidence))
            .map(|((a, b), (ea, eb))| (a / (b / split), !ea.disturbed() && !eb.disturbed()))
            .collect();
        let clean: Vec<f64> = pairs.iter().filter(|p| p.1).map(|p| p.0).collect();
        let all: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        Summary::of(if clean.is_empty() { &all } else { &clean }).expect("at least one round")
    }

    /// The used rounds' two groups, if they split ([`stats::split`] with its default rule).
    pub fn split(&self) -> Option<Split> {
        stats::split(&self.used(), stats::SPLIT_GAP, stats::SPLIT_MIN_SHARE)
    }

    /// Where the threads ran, short enough for a table cell: "0,1 verified", "0,1 NOT
    /// verified in 2/15 rounds", or "unpinned" (the details of unpinned runs are in
    /// [`Measured::cores_note`]).
    pub fn cores_short(&self) -> String {
        if self.pinning() == "unpinned" {
            "unpinned".into()
        } else {
            self.cores_note()
        }
    }

    /// Rounds in which some thread's own evidence says other work took its core.
    pub fn disturbed_rounds(&self) -> usize {
        self.evidence.iter().filter(|e| e.disturbed()).count()
    }

    /// "verified", "not_verified" or "unpinned", over every thread of every round.
    pub fn pinning(&self) -> &'static str {
        let all = self.seen.iter().flatten();
        if self.seen.iter().flatten().all(|s| s.requested.is_none()) {
            "unpinned"
        } else if all.clone().all(Seen::verified) {
            "verified"
        } else {
            "not_verified"
        }
    }

    /// Where the threads ran, in words: "0,1 verified", or for unpinned threads the placements
    /// seen and how often two threads started on one core or a thread moved.
    pub fn cores_note(&self) -> String {
        let rounds = self.seen.len();
        let ids = |v: &[Seen], f: fn(&Seen) -> Option<usize>| {
            v.iter()
                .map(|s| f(s).map_or("?".to_string(), |c| c.to_string()))
                .collect::<Vec<_>>()
                .join(",")
        };
        match self.pinning() {
            "verified" => format!("{} verified", ids(&self.seen[0], |s| s.requested)),
            "not_verified" => {
                let bad = self
                    .seen
                    .iter()
                    .filter(|r| !r.iter().all(Seen::verified))
                    .count();
                format!(
                    "{} NOT verified in {bad}/{rounds} rounds",
                    ids(&self.seen[0], |s| s.requested)
                )
            }
            _ => {
                let mut layouts: Vec<String> = Vec::new();
                let (mut shared, mut moved) = (0, 0);
                for r in &self.seen {
                    let l = ids(r, |s| s.start_cpu);
                    if !layouts.contains(&l) {
                        layouts.push(l);
                    }
                    let mut starts: Vec<Option<usize>> = r.iter().map(|s| s.start_cpu).collect();
                    starts.sort_unstable();
                    starts.dedup();
                    if starts.len() < r.len() {
                        shared += 1;
                    }
                    if r.iter().any(|s| s.start_cpu != s.end_cpu) {
                        moved += 1;
                    }
                }
                let shown = if layouts.len() > 3 {
                    format!("{} layouts", layouts.len())
                } else {
                    layouts.join(" | ")
                };
                let mut note = format!("landed {shown}");
                if shared > 0 {
                    note += &format!("; shared a core {shared}/{rounds}");
                }
                if moved > 0 {
                    note += &format!("; moved {moved}/{rounds}");
                }
                note
            }
        }
    }
}

/// The evidence of one round of `w`: its most disturbed thread's ([`team::worst`]). The
/// mutex's threads sleep on the lock on purpose, so for them only the time spent waiting for
/// the core (the run queue) counts, not the time off it.
pub fn round_evidence(w: Work, seen: &[Seen]) -> Evidence {
    let own = |e: Evidence| match w {
        Work::Locked { .. } => Evidence { off_cpu_ns: 0, ..e },
        _ => e,
    };
    team::worst(seen.iter().filter_map(|s| s.evidence).map(own)).unwrap_or_default()
}

/// All the rounds of a set as one tally.
pub fn tally(set: &[Measured]) -> Tally {
    set.iter()
        .fold(Tally::default(), |t, m| t.merge(&m.tally()))
}

/// The member of a measured set that did `w`, if it was measured.
pub fn find(set: &[Measured], w: Work) -> Option<&Measured> {
    set.iter().find(|m| m.work == w)
}

/// A value in a cache line of its own (256 bytes covers 64- and 128-byte lines).
#[repr(C, align(256))]
struct Alone<T>(T);

/// The bench: an arena for the slots, the cores (or none) the threads go to, and the raw
/// records every run adds to.
pub struct Lab {
    arena: Region,
    places: Vec<Place>,
    pub plan: Plan,
    rounds: Block,
    placement: Block,
}

impl Lab {
    /// `cores` in the order teams take them; `pinned` false runs every thread unpinned.
    pub fn new(cores: &[Core], pinned: bool, plan: Plan) -> Result<Lab, String> {
        // One page holds every layout used (8 threads at 256 bytes is 2 KiB); Region gives
        // an anonymous mapping aligned far beyond a page, so slot 0 starts a line.
        let mut arena = Region::new(4096)?;
        arena.touch(4096);
        Ok(Lab {
            arena,
            places: cores
                .iter()
                .map(|c| {
                    if pinned {
                        Place::Pinned(c.id)
                    } else {
                        Place::Free
                    }
                })
                .collect(),
            plan,
            rounds: Block::new(
                ::false_sharing::schema::rounds::BLOCK,
                ::false_sharing::schema::rounds::COLUMNS,
            ),
            placement: Block::new(
                ::false_sharing::schema::placement::BLOCK,
                ::false_sharing::schema::placement::COLUMNS,
            ),
        })
    }

    /// How many threads a team may have (one per usable core).
    pub fn max_threads(&self) -> usize {
        self.places.len()
    }

    /// The cores the teams of `set` are pinned to (the first as many as its largest team
    /// has threads), none for an unpinned run: where their window reads the core's share.
    pub fn cores_for(&self, set: &[Work]) -> Vec<usize> {
        let n = set.iter().map(|w| w.threads()).max().unwrap_or(0);
        self.places
            .iter()
            .take(n)
            .filter_map(|p| match p {
                Place::Pinned(c) => Some(*c),
                Place::Free => None,
            })
            .collect()
    }

    /// How many raw rows the bench holds (rounds, placements): a mark to [`Lab::rewind`] to.
    pub fn raw_len(&self) -> (usize, usize) {
        (self.rounds.rows.len(), self.placement.rows.len())
    }

    /// Drops the raw rows added since `mark` ([`Lab::raw_len`]): a set taken again keeps
    /// only the rows of the take it keeps.
    pub fn rewind(&mut self, (rounds, placement): (usize, usize)) {
        self.rounds.rows.truncate(rounds);
        self.placement.rows.truncate(placement);
    }

    /// The cores a team of `n` goes to, as text ("0,1"), or "unpinned".
    pub fn team_cores(&self, n: usize) -> String {
        match self.places.first() {
            Some(Place::Pinned(_)) => team::list(self.places[..n].iter().map(|p| match p {
                Place::Pinned(c) => *c,
                Place::Free => 0,
            })),
            _ => "unpinned".into(),
        }
    }

    /// The per-thread increment count of `w`.
    pub fn iters(&self, w: Work) -> u64 {
        match w {
            Work::Slots { threads, .. } if threads <= 2 => self.plan.slot_iters,
            Work::Slots { .. } => self.plan.team_iters,
            Work::Atomic { .. } => self.plan.atomic_iters,
            Work::Locked { .. } => self.plan.mutex_iters,
        }
    }

    /// One timed run: nanoseconds per increment and where the threads ran. Every counter is
    /// checked against the count it must reach; a mismatch ends the program (exit 1).
    fn run_once(&self, w: Work) -> (f64, Vec<Seen>) {
        let n = w.threads();
        assert!(n <= self.places.len(), "{n} threads need {n} cores");
        let places = &self.places[..n];
        let iters = self.iters(w);
        let (run, expected) = match w {
            Work::Slots { gap, .. } => {
                let base = self.arena.as_ptr() as usize;
                for i in 0..n {
                    // SAFETY: i * gap + 8 <= 8 * 512 + 8 < the region's length; aligned to 8.
                    unsafe { ((base + i * gap) as *mut u64).write_volatile(0) };
                }
                let run = team::run(places, |i| {
                    // SAFETY: each thread owns its own slot inside the arena.
                    unsafe { crate::false_sharing_bump((base + i * gap) as *mut u64, iters) }
                });
                (run, iters)
            }
            Work::Atomic { .. } => {
                let shared = Alone(AtomicU64::new(0));
                let mut run = team::run(places, |_| {
                    crate::false_sharing_atomic_bump(&shared.0, iters);
                    0
                });
                run.results = vec![shared.0.into_inner()];
                (run, iters * n as u64)
            }
            Work::Locked { .. } => {
                let shared = Alone(Mutex::new(0u64));
                let mut run = team::run(places, |_| {
                    crate::false_sharing_mutex_bump(&shared.0, iters);
                    0
                });
                run.results = vec![shared.0.into_inner().unwrap_or_else(|e| e.into_inner())];
                (run, iters * n as u64)
            }
        };
        if let Some(bad) = run.results.iter().find(|&&r| r != expected) {
            eprintln!(
                "false_sharing: error: {} ended with a count of {bad}, not {expected}: \
                 the loop did not run as written",
                w.label()
            );
            std::process::exit(1);
        }
        (run.elapsed_ns / (iters * n as u64) as f64, run.seen)
    }

    /// Measures every member of `set` once per round in a changing order, after one
    /// discarded warm-up visit, and records the raw rounds and placements under `name`.
    pub fn measure(&mut self, name: &str, set: &[Work]) -> Vec<Measured> {
        for &w in set {
            let _ = self.run_once(w);
        }
        let orders: Vec<Order> = (0..self.plan.rounds)
            .map(|r| match r % 3 {
                0 => Order::Forward,
                1 => Order::Shuffled(ring::DEFAULT_SEED.wrapping_add(r as u64)),
                _ => Order::Backward,
            })
            .collect();
        let scan = scan::run_named(
            set,
            &orders,
            |_| format!("the {name} set"),
            |w, _| self.run_once(*w),
        );
        let mut out = Vec::with_capacity(set.len());
        for p in scan.points {
            let label = p.param.label();
            let (ns, seen): (Vec<f64>, Vec<Vec<Seen>>) = p.passes.into_iter().unzip();
            let evidence: Vec<Evidence> = seen.iter().map(|r| round_evidence(p.param, r)).collect();
            for (round, (t, threads)) in ns.iter().zip(&seen).enumerate() {
                self.rounds.row(vec![
                    name.into(),
                    label.as_str().into(),
                    round.into(),
                    (*t).into(),
                    1.into(),
                    usize::from(evidence[round].disturbed()).into(),
                ]);
                for (k, s) in threads.iter().enumerate() {
                    self.placement.row(vec![
                        name.into(),
                        label.as_str().into(),
                        round.into(),
                        k.into(),
                        s.requested.into(),
                        s.start_cpu.into(),
                        s.end_cpu.into(),
                        s.cpu_share.into(),
                        if s.requested.is_none() {
                            "unpinned"
                        } else if s.verified() {
                            "yes"
                        } else {
                            "no"
                        }
                        .into(),
                    ]);
                }
            }
            out.push(Measured {
                work: p.param,
                ns,
                seen,
                evidence,
            });
        }
        out
    }

    /// Prints the raw rounds and placements gathered so far.
    pub fn record_raw(&self, out: &mut Out) {
        out.block(&self.rounds);
        out.block(&self.placement);
    }
}

#[cfg(test)]
mod tests {
    use super::{Lab, Plan, Work};
    use ::false_sharing::schema::key;

    /// A set taken again keeps only its kept take's raw rows: rewinding to the mark taken
    /// before a take drops that take's rows, and the next take adds as many again.
    #[test]
    fn rewinding_drops_the_rows_of_a_discarded_take() {
        let cores = measure::team::usable(None, Some(1));
        let plan = Plan {
            rounds: 3,
            slot_iters: 1_000,
            ..Plan::new(true)
        };
        let mut lab = Lab::new(&cores, false, plan).unwrap();
        let mark = lab.raw_len();
        let once = lab.measure("t", &[Work::BASELINE]);
        let after = lab.raw_len();
        assert_eq!(once.len(), 1);
        assert_eq!(after.0 - mark.0, 3, "one row a round");
        assert!(after.1 > mark.1, "a placement row a thread and round");
        lab.rewind(mark);
        assert_eq!(lab.raw_len(), mark);
        lab.measure("t", &[Work::BASELINE]);
        assert_eq!(lab.raw_len(), after, "the take again adds the same rows");
    }

    /// The key figures named by a run's label are the ones run-all's summary reads.
    #[test]
    fn labels_name_the_key_figures_the_summary_reads() {
        assert_eq!(Work::Atomic { threads: 1 }.label(), key::ATOMIC_1T);
        assert_eq!(Work::Atomic { threads: 2 }.label(), key::ATOMIC_2T);
        assert_eq!(Work::Locked { threads: 2 }.label(), key::MUTEX_2T);
    }
}
