//! A team of worker threads, each on a core of its own, started together and timed from the
//! release to the last finish; and the cores such a team goes to.
//!
//! Every worker pins *itself* (the main thread need not be pinned, so the workers do not
//! inherit a one-core mask), reads back where it runs with `sched_getcpu` before and after
//! its work, and waits at a spinning start line. The last worker to arrive reads the clock
//! and releases the others; each worker reads the clock when its work is done; the time of
//! the run is the last finish minus the release. Thread creation, pinning and joining are
//! outside the clock. What each worker saw ([`Seen`]) comes back for the experiment to check
//! and print, with the evidence of its own [`Probe`] ([`crate::disturb`]): a team's run is
//! disturbed when any worker's was ([`Run::disturbed`], [`worst`]).
//!
//! The cores are the ones this process may run on (its affinity mask, read through
//! [`crate::pin::allowed_cores`]). Their order matters: a team of `n` threads takes the first
//! `n`, and two hardware threads of one physical core (SMT siblings, which share an L1)
//! measure something else than two cores. So one logical CPU of every physical core comes
//! first, then the remaining siblings ([`spread_order`]). The physical layout comes from
//! `/sys/devices/system/cpu/cpuN/topology`; where the kernel does not say, it is unknown and
//! the order stays ascending.

use crate::clock::{now_ns, on_core};
use crate::disturb::{Evidence, Probe, Tally};
use crate::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// One logical CPU this process may use, with what the kernel says about its place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Core {
    pub id: usize,
    /// `physical_package_id` (the socket), if the kernel reports it.
    pub package: Option<usize>,
    /// `core_id` within the package, if reported: equal ids in one package are SMT siblings.
    pub core: Option<usize>,
}

impl Core {
    /// Reads the topology of logical CPU `id` from sysfs.
    pub fn read(id: usize) -> Core {
        let read = |f: &str| {
            std::fs::read_to_string(format!("/sys/devices/system/cpu/cpu{id}/topology/{f}"))
                .ok()
                .and_then(|s| s.trim().parse::<usize>().ok())
        };
        Core {
            id,
            package: read("physical_package_id"),
            core: read("core_id"),
        }
    }

    /// Whether two logical CPUs are hardware threads of one physical core; `None` if unknown.
    pub fn smt_siblings(&self, other: &Core) -> Option<bool> {
        match (self.package, self.core, other.package, other.core) {
            (Some(p), Some(c), Some(q), Some(d)) => Some(self.id != other.id && p == q && c == d),
            _ => None,
        }
    }

    /// Whether two logical CPUs sit in one package (socket); `None` if unknown.
    pub fn same_package(&self, other: &Core) -> Option<bool> {
        Some(self.package? == other.package?)
    }
}

/// Orders cores so that core `first` (if among them) leads, then one logical CPU of each
/// other physical core (ascending), then the remaining SMT siblings (ascending). Cores of
/// unknown topology count as their own core.
pub fn spread_order(mut cores: Vec<Core>, first: Option<usize>) -> Vec<Core> {
    cores.sort_by_key(|c| (Some(c.id) != first, c.id));
    let mut lead = Vec::new();
    let mut rest = Vec::new();
    let mut seen: Vec<(usize, usize)> = Vec::new();
    for c in cores {
        match (c.package, c.core) {
            (Some(p), Some(k)) if seen.contains(&(p, k)) => rest.push(c),
            (Some(p), Some(k)) => {
                seen.push((p, k));
                lead.push(c);
            }
            _ => lead.push(c),
        }
    }
    lead.extend(rest);
    lead
}

/// The cores this process may use, in [`spread_order`] with `first` leading, at most `limit`
/// of them. Call before pinning the main thread: a pinned thread's affinity mask holds only
/// its own core.
pub fn usable(first: Option<usize>, limit: Option<usize>) -> Vec<Core> {
    let mut ids = pin::allowed_cores();
    if ids.is_empty() {
        // No affinity list: the threads cannot be pinned, but the count is still known.
        let n = std::thread::available_parallelism().map_or(1, |n| n.get());
        ids = (0..n).collect();
    }
    let mut cores = spread_order(ids.into_iter().map(Core::read).collect(), first);
    if let Some(l) = limit {
        cores.truncate(l);
    }
    cores
}

/// "0,1,2" for a list of core ids.
pub fn list(ids: impl IntoIterator<Item = usize>) -> String {
    ids.into_iter()
        .map(|c| c.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

/// Where a worker goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Pinned to this core (the worker asks for it itself and reads back where it runs).
    Pinned(usize),
    /// Wherever the scheduler puts it; where it ran is still read back.
    Free,
}

/// Where one worker asked to run and where it was seen running.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seen {
    /// The core asked for; `None` when unpinned.
    pub requested: Option<usize>,
    /// Whether the affinity request was granted (false when none was made).
    pub granted: bool,
    /// `sched_getcpu` just before the start line.
    pub start_cpu: Option<usize>,
    /// `sched_getcpu` right after the work.
    pub end_cpu: Option<usize>,
    /// The thread's CPU time over its wall time during the work: below 1 when it was off
    /// its core (another process ran there, or it slept on a lock). `None` if unreadable or
    /// not measured.
    pub cpu_share: Option<f64>,
    /// What the worker's own [`Probe`] saw from the release to the end of its work: whether
    /// this worker's round was disturbed. `None` where not measured.
    pub evidence: Option<Evidence>,
}

impl Seen {
    /// Puts the calling thread at `place` and reads back where it runs.
    pub fn arrive(place: Place) -> Seen {
        let (requested, granted, start_cpu) = match place {
            Place::Pinned(core) => {
                let p = pin::pin_current_thread(core);
                (Some(core), p.granted, p.running_on)
            }
            Place::Free => (None, false, pin::current_cpu()),
        };
        Seen {
            requested,
            granted,
            start_cpu,
            end_cpu: None,
            cpu_share: None,
            evidence: None,
        }
    }

    /// After the work: reads back where the calling thread runs now, and keeps `cpu_share`.
    pub fn leave(self, cpu_share: Option<f64>) -> Seen {
        Seen {
            end_cpu: pin::current_cpu(),
            cpu_share,
            ..self
        }
    }

    /// Pinned, granted, and seen on the requested core both before and after the work.
    pub fn verified(&self) -> bool {
        self.requested.is_some()
            && self.granted
            && self.start_cpu == self.requested
            && self.end_cpu == self.requested
    }

    /// Seen with less than `share` of its wall time on the CPU (unknown counts as on it).
    pub fn held_off(&self, share: f64) -> bool {
        self.cpu_share.is_some_and(|c| c < share)
    }

    /// The same, with the evidence of the worker's round.
    pub fn with_evidence(self, evidence: Evidence) -> Seen {
        Seen {
            evidence: Some(evidence),
            ..self
        }
    }
}

/// Waits for `done`, spinning; if the wait grows long (another process holds the core),
/// yields between looks so a waiter never keeps its partner off the core.
pub fn spin_until(done: impl Fn() -> bool) {
    let mut spins: u32 = 0;
    while !done() {
        if spins < 1 << 16 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// One timed run of a team.
#[derive(Debug, Clone)]
pub struct Run {
    /// From the release at the start line to the last worker's finish.
    pub elapsed_ns: f64,
    /// One entry per worker, in worker order.
    pub seen: Vec<Seen>,
    /// What each worker's work returned (its final count, for checking).
    pub results: Vec<u64>,
}

impl Run {
    /// Whether the team's round was disturbed: any worker's round was.
    pub fn disturbed(&self) -> bool {
        self.seen
            .iter()
            .any(|s| s.evidence.is_some_and(|e| e.disturbed()))
    }

    /// The team's round as one piece of evidence: the most disturbed worker's (the one that
    /// lost the most time past its allowance), or `None` when no worker's was measured.
    pub fn evidence(&self) -> Option<Evidence> {
        worst(self.seen.iter().filter_map(|s| s.evidence))
    }

    /// Counts the team's round into `tally` (one round), if it was measured.
    pub fn count(&self, tally: &mut Tally) {
        if let Some(e) = self.evidence() {
            tally.add(&e);
        }
    }
}

/// The most disturbed of several threads' evidence of one round (the one that lost the most
/// time past its allowance): the round of a team is as disturbed as its worst thread's.
pub fn worst(evidence: impl IntoIterator<Item = Evidence>) -> Option<Evidence> {
    let over = |e: &Evidence| e.lost_ns() as i128 - e.allowance_ns() as i128;
    evidence
        .into_iter()
        .max_by_key(|e| (e.disturbed(), over(e)))
}

/// Runs `work(i)` on one thread per entry of `places`, all released together, and times
/// the run from the release to the last finish.
pub fn run<F>(places: &[Place], work: F) -> Run
where
    F: Fn(usize) -> u64 + Sync,
{
    let n = places.len();
    assert!(n > 0, "a team needs at least one worker");
    let arrived = AtomicUsize::new(0);
    let go = AtomicBool::new(false);
    let released_at = AtomicU64::new(0);
    let out: Vec<(u64, Seen, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = places
            .iter()
            .enumerate()
            .map(|(i, &place)| {
                let (arrived, go, released_at, work) = (&arrived, &go, &released_at, &work);
                s.spawn(move || {
                    let seen = Seen::arrive(place);
                    // Each worker's own probe (a probe reads the thread that made it), marked
                    // after the release: its evidence covers the work, not the wait at the
                    // start line (a mark costs a few microseconds; runs last milliseconds).
                    let probe = Probe::new();
                    if arrived.fetch_add(1, Ordering::AcqRel) + 1 == n {
                        released_at.store(now_ns(), Ordering::Release);
                        go.store(true, Ordering::Release);
                    } else {
                        spin_until(|| go.load(Ordering::Acquire));
                    }
                    let before = probe.mark();
                    let r = on_core(|| work(i));
                    let ev = Evidence::between(&before, &probe.mark());
                    (r.end_ns, seen.leave(r.cpu_share).with_evidence(ev), r.out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a worker thread panicked"))
            .collect()
    });
    let start = released_at.load(Ordering::Acquire);
    let last = out.iter().map(|o| o.0).max().unwrap_or(start);
    Run {
        elapsed_ns: last.saturating_sub(start) as f64,
        seen: out.iter().map(|o| o.1).collect(),
        results: out.iter().map(|o| o.2).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: usize, package: usize, core: usize) -> Core {
        Core {
            id,
            package: Some(package),
            core: Some(core),
        }
    }

    fn ids(cores: &[Core]) -> Vec<usize> {
        cores.iter().map(|c| c.id).collect()
    }

    #[test]
    fn one_thread_of_each_physical_core_comes_first() {
        // A 4-thread, 2-core part where Linux numbers the siblings 0,2 and 1,3.
        let order = spread_order(vec![c(3, 0, 1), c(0, 0, 0), c(2, 0, 0), c(1, 0, 1)], None);
        assert_eq!(ids(&order), vec![0, 1, 2, 3]);
        // Siblings numbered 0,1 and 2,3.
        let order = spread_order(vec![c(0, 0, 0), c(1, 0, 0), c(2, 0, 1), c(3, 0, 1)], None);
        assert_eq!(ids(&order), vec![0, 2, 1, 3]);
        assert_eq!(c(0, 0, 0).smt_siblings(&c(1, 0, 0)), Some(true));
        assert_eq!(c(0, 0, 0).smt_siblings(&c(2, 0, 1)), Some(false));
        assert_eq!(c(0, 0, 0).smt_siblings(&c(5, 1, 0)), Some(false));
        assert_eq!(c(0, 0, 0).same_package(&c(5, 1, 0)), Some(false));
    }

    #[test]
    fn the_first_core_leads_and_its_siblings_wait() {
        // Siblings 0,2 and 1,3; core 3 first: its sibling 1 goes behind core 0.
        let all = vec![c(0, 0, 0), c(1, 0, 1), c(2, 0, 0), c(3, 0, 1)];
        assert_eq!(ids(&spread_order(all.clone(), Some(3))), vec![3, 0, 1, 2]);
        // A first core that is not among them changes nothing.
        assert_eq!(ids(&spread_order(all, Some(9))), vec![0, 1, 2, 3]);
    }

    #[test]
    fn unknown_topology_stays_ascending_and_says_unknown() {
        let u = |id| Core {
            id,
            package: None,
            core: None,
        };
        assert_eq!(
            ids(&spread_order(vec![u(2), u(0), u(1)], None)),
            vec![0, 1, 2]
        );
        assert_eq!(u(0).smt_siblings(&u(1)), None);
    }

    #[test]
    fn the_first_core_comes_first_and_no_core_twice() {
        let all = pin::allowed_cores();
        let last = *all.last().expect("a core");
        let c = ids(&usable(Some(last), None));
        assert_eq!(c[0], last);
        let mut d = c.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), c.len());
        assert_eq!(ids(&usable(Some(last), Some(1))), vec![last]);
        // A first core outside the mask is not invented.
        assert!(!ids(&usable(Some(100_000), None)).contains(&100_000));
        assert_eq!(list([0, 1, 2]), "0,1,2");
    }

    #[test]
    fn every_worker_runs_once_and_the_clock_covers_the_work() {
        let r = run(&[Place::Free, Place::Free], |i| {
            let t = now_ns();
            while now_ns() - t < 2_000_000 {}
            i as u64 + 10
        });
        assert_eq!(r.results, vec![10, 11]);
        assert_eq!(r.seen.len(), 2);
        assert!(
            r.seen
                .iter()
                .all(|s| s.requested.is_none() && !s.verified())
        );
        // Each worker spun for 2 ms after the release, so the run lasted at least that.
        assert!(r.elapsed_ns >= 2_000_000.0, "{}", r.elapsed_ns);
        // Every worker's own probe saw its round.
        assert!(
            r.seen
                .iter()
                .all(|s| s.evidence.is_some_and(|e| e.wall_ns >= 2_000_000))
        );
        // Spinning keeps a thread on its core: its CPU time is most of its wall time.
        assert!(
            r.seen
                .iter()
                .all(|s| s.cpu_share.is_some_and(|c| c > 0.0 && c < 1.1))
        );
    }

    #[test]
    fn pinned_workers_report_where_they_ran() {
        let core = pin::allowed_cores()[0];
        let r = run(&[Place::Pinned(core)], |_| 1);
        let s = r.seen[0];
        assert_eq!(s.requested, Some(core));
        assert!(s.granted);
        assert_eq!(s.start_cpu, Some(core));
        assert!(s.verified(), "{s:?}");
        // A team of two (where two cores are allowed): each on its own, seen there.
        let two: Vec<Place> = usable(None, Some(2))
            .iter()
            .map(|c| Place::Pinned(c.id))
            .collect();
        let r = run(&two, |i| i as u64);
        assert_eq!(r.results, (0..two.len() as u64).collect::<Vec<_>>());
        for (s, p) in r.seen.iter().zip(&two) {
            assert_eq!(Place::Pinned(s.requested.unwrap()), *p);
            assert!(s.verified(), "{s:?}");
        }
    }

    #[test]
    fn held_off_needs_a_measured_share_below_the_bar() {
        let s = Seen {
            requested: Some(0),
            granted: true,
            start_cpu: Some(0),
            end_cpu: Some(0),
            cpu_share: Some(0.8),
            evidence: None,
        };
        assert!(s.held_off(0.9));
        assert!(!s.held_off(0.5));
        assert!(
            !Seen {
                cpu_share: None,
                ..s
            }
            .held_off(0.9)
        );
    }

    #[test]
    fn a_team_round_is_disturbed_when_any_workers_round_was() {
        let quiet = Evidence {
            wall_ns: 1_000_000,
            waited_ns: Some(0),
            ..Default::default()
        };
        let hit = Evidence {
            waited_ns: Some(400_000),
            switches: 1,
            ..quiet
        };
        let seen = |e: Option<Evidence>| Seen {
            requested: None,
            granted: false,
            start_cpu: None,
            end_cpu: None,
            cpu_share: None,
            evidence: e,
        };
        let run = |es: Vec<Option<Evidence>>| Run {
            elapsed_ns: 1e6,
            seen: es.into_iter().map(seen).collect(),
            results: vec![],
        };
        let calm = run(vec![Some(quiet), Some(quiet)]);
        assert!(!calm.disturbed());
        let one = run(vec![Some(quiet), Some(hit)]);
        assert!(one.disturbed());
        assert_eq!(one.evidence(), Some(hit));
        let mut t = Tally::default();
        one.count(&mut t);
        calm.count(&mut t);
        run(vec![None]).count(&mut t);
        assert_eq!((t.rounds, t.disturbed), (2, 1));
    }
}
