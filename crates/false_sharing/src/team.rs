//! A team of worker threads that start together and are timed from release to last finish.
//!
//! The appendix's C program timed `pthread_create` and `pthread_join` along with the work and
//! let the threads land wherever the scheduler put them. Here every worker pins *itself*
//! (the main thread is never pinned, so the workers do not inherit a one-core mask), reads
//! back where it runs with `sched_getcpu`, and waits at a spinning start line. The last
//! worker to arrive reads the clock and releases the others; each worker reads the clock
//! when its work is done; the time of the run is the last finish minus the release. Thread
//! creation, pinning and joining are outside the clock.

use measure::clock::{now_ns, thread_cpu_ns};
use measure::pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};

/// Where a worker goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Pinned to this core (the worker asks for it itself and reads back where it runs).
    Pinned(usize),
    /// Wherever the scheduler puts it (`--no-pin`); where it ran is still read back.
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
    /// its core (another process ran there, or it slept on a lock). `None` if unreadable.
    pub cpu_share: Option<f64>,
}

impl Seen {
    /// Pinned, granted, and seen on the requested core both before and after the work.
    pub fn verified(&self) -> bool {
        self.requested.is_some()
            && self.granted
            && self.start_cpu == self.requested
            && self.end_cpu == self.requested
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

/// Waits for `flag`, spinning; if the wait grows long (another process holds the core),
/// yields between looks so a waiter never keeps its partner off the core.
pub fn spin_until(flag: impl Fn() -> bool) {
    let mut spins: u32 = 0;
    while !flag() {
        if spins < 1 << 16 {
            spins += 1;
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
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
    let mut out: Vec<(u64, Seen, u64)> = Vec::with_capacity(n);
    std::thread::scope(|s| {
        let handles: Vec<_> = places
            .iter()
            .enumerate()
            .map(|(i, &place)| {
                let (arrived, go, released_at, work) = (&arrived, &go, &released_at, &work);
                s.spawn(move || {
                    let (requested, granted, start_cpu) = match place {
                        Place::Pinned(core) => {
                            let p = pin::pin_current_thread(core);
                            (Some(core), p.granted, p.running_on)
                        }
                        Place::Free => (None, false, pin::current_cpu()),
                    };
                    if arrived.fetch_add(1, Ordering::AcqRel) + 1 == n {
                        released_at.store(now_ns(), Ordering::Relaxed);
                        go.store(true, Ordering::Release);
                    } else {
                        spin_until(|| go.load(Ordering::Acquire));
                    }
                    let (cpu0, wall0) = (thread_cpu_ns(), now_ns());
                    let result = work(i);
                    let done = now_ns();
                    let cpu_share = match (cpu0, thread_cpu_ns()) {
                        (Some(a), Some(b)) if done > wall0 => {
                            Some((b - a) as f64 / (done - wall0) as f64)
                        }
                        _ => None,
                    };
                    let seen = Seen {
                        requested,
                        granted,
                        start_cpu,
                        end_cpu: pin::current_cpu(),
                        cpu_share,
                    };
                    (done, seen, result)
                })
            })
            .collect();
        for h in handles {
            out.push(h.join().expect("a worker thread panicked"));
        }
    });
    let start = released_at.load(Ordering::Relaxed);
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
        // Spinning keeps a thread on its core: its CPU time is most of its wall time.
        assert!(
            r.seen
                .iter()
                .all(|s| s.cpu_share.is_some_and(|c| c > 0.0 && c < 1.1))
        );
    }

    #[test]
    fn pinned_workers_report_where_they_ran() {
        let core = measure::pin::allowed_cores()[0];
        let r = run(&[Place::Pinned(core)], |_| 1);
        let s = r.seen[0];
        assert_eq!(s.requested, Some(core));
        assert!(s.granted);
        assert_eq!(s.start_cpu, Some(core));
        assert!(s.verified(), "{s:?}");
    }
}
