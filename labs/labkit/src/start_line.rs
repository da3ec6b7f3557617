//! The start line of a timed call whose work runs on several threads.
//!
//! Timing such a call from the outside counts what the lab is not about: making the threads,
//! and in a virtual machine waking an idle virtual CPU, which took 2.4 to 2.9 ms here, longer
//! than the work. Worse, while the second thread is still waking, the first works alone,
//! without the other core to fight over its line, so the call is fast for the wrong reason.
//!
//! So a timed call is *armed* with the number of workers it will start ([`time_team`]). Each
//! worker, pinned to its own core, waits at the line until all have arrived; then each
//! times its own share. The call's figure is the span from the earliest start to the latest
//! end: the time the workers spent working together, as core-to-core benchmarks time a
//! round trip only once both threads spin. The same moment opens each worker's window of
//! disturbance evidence ([`crate::on_worker`]), so a wait for the line is not held against
//! the round, while anything that takes a core during the work is.
//!
//! A worker that never arrives (a student's version that starts fewer threads, or one core
//! for two threads) releases the others after [`GIVE_UP_NS`]; the call is then timed from
//! the outside and its round has no complete evidence, so it counts as disturbed.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// How long the first worker waits at the line for the others before it starts alone.
pub const GIVE_UP_NS: u64 = 50_000_000;

/// Workers expected at the line (0: not armed), those arrived, and the span of their work.
struct Line {
    expected: AtomicUsize,
    arrived: AtomicUsize,
    first_start: AtomicU64,
    last_end: AtomicU64,
}

static LINE: Line = Line {
    expected: AtomicUsize::new(0),
    arrived: AtomicUsize::new(0),
    first_start: AtomicU64::new(u64::MAX),
    last_end: AtomicU64::new(0),
};

/// Whether a worker waited at an armed line until every worker of its call was there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival {
    /// No timed call is armed (a correctness check): the worker starts at once.
    Unarmed,
    /// Every worker arrived; the work starts together.
    Together,
    /// The others did not come within [`GIVE_UP_NS`].
    Alone,
}

/// Arms the line for a call that starts `workers` threads.
fn arm(workers: usize) {
    LINE.arrived.store(0, Ordering::SeqCst);
    LINE.first_start.store(u64::MAX, Ordering::SeqCst);
    LINE.last_end.store(0, Ordering::SeqCst);
    LINE.expected.store(workers, Ordering::SeqCst);
}

/// Disarms the line: the span of the call's work, when every worker arrived and worked.
fn disarm() -> Option<u64> {
    let expected = LINE.expected.swap(0, Ordering::SeqCst);
    let arrived = LINE.arrived.load(Ordering::SeqCst);
    let (start, end) = (
        LINE.first_start.load(Ordering::SeqCst),
        LINE.last_end.load(Ordering::SeqCst),
    );
    (expected > 0 && arrived == expected && end >= start).then(|| end - start)
}

/// A worker arrives at the line and waits for the others (see [`Arrival`]).
pub fn wait() -> Arrival {
    let expected = LINE.expected.load(Ordering::SeqCst);
    if expected == 0 {
        return Arrival::Unarmed;
    }
    LINE.arrived.fetch_add(1, Ordering::SeqCst);
    let t0 = measure::clock::now_ns();
    let mut spins = 0u32;
    while LINE.arrived.load(Ordering::SeqCst) < expected {
        std::hint::spin_loop();
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(4096) {
            // Where two workers share one core, let the other one reach the line.
            std::thread::yield_now();
            if measure::clock::now_ns().saturating_sub(t0) > GIVE_UP_NS {
                return Arrival::Alone;
            }
        }
    }
    Arrival::Together
}

/// Times one worker's share of an armed call: its start and end widen the call's span.
pub fn time_share<T>(work: impl FnOnce() -> T) -> T {
    let start = measure::clock::now_ns();
    let out = work();
    let end = measure::clock::now_ns();
    LINE.first_start.fetch_min(start, Ordering::SeqCst);
    LINE.last_end.fetch_max(end, Ordering::SeqCst);
    out
}

/// The figure of one call of `f` that starts `workers` threads, each through
/// [`crate::on_worker`]: the span of their work together, in nanoseconds, or the call's
/// wall time when they did not all arrive.
pub fn time_team<T>(workers: usize, f: impl FnOnce() -> T) -> f64 {
    arm(workers);
    let wall = crate::wall_ns(f);
    disarm().map_or(wall, |span| span as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// The line is one static: its tests take turns.
    static TURN: Mutex<()> = Mutex::new(());

    /// A call of `threads` workers that each sleep `each_ns`: its figure, and the longest
    /// and the total of the shares as each worker timed its own.
    fn team(threads: usize, each_ns: u64) -> (f64, u64, u64) {
        let shares = Mutex::new(Vec::new());
        let figure = time_team(2, || {
            std::thread::scope(|s| {
                for _ in 0..threads {
                    s.spawn(|| {
                        assert_ne!(wait(), Arrival::Unarmed);
                        let t0 = measure::clock::now_ns();
                        time_share(|| std::thread::sleep(std::time::Duration::from_nanos(each_ns)));
                        let took = measure::clock::now_ns() - t0;
                        shares.lock().unwrap().push(took);
                    });
                }
            })
        });
        let s = shares.into_inner().unwrap();
        (figure, s.iter().copied().max().unwrap_or(0), s.iter().sum())
    }

    #[test]
    fn an_unarmed_line_lets_a_worker_start_at_once() {
        let _t = TURN.lock().unwrap_or_else(|e| e.into_inner());
        assert_eq!(wait(), Arrival::Unarmed);
    }

    #[test]
    fn a_full_team_is_timed_from_the_earliest_start_to_the_latest_end() {
        let _t = TURN.lock().unwrap_or_else(|e| e.into_inner());
        // Two threads sleep 20 ms each, released together: the figure covers a whole share,
        // and is shorter than the two shares end to end (they overlapped).
        let (span, longest, total) = team(2, 20_000_000);
        assert!(span >= 20e6 && longest >= 20_000_000, "{span} {longest}");
        assert!(span < total as f64, "{span} {total}");
        assert_eq!(wait(), Arrival::Unarmed, "the call disarmed the line");
    }

    #[test]
    fn a_missing_worker_releases_the_others_and_the_call_is_timed_whole() {
        let _t = TURN.lock().unwrap_or_else(|e| e.into_inner());
        let t0 = measure::clock::now_ns();
        let (figure, _, _) = team(1, 1_000_000);
        let wall = (measure::clock::now_ns() - t0) as f64;
        // The lone worker gave up waiting after GIVE_UP_NS; the figure is the whole call.
        assert!(figure >= GIVE_UP_NS as f64, "{figure}");
        assert!(figure <= wall, "{figure} {wall}");
    }
}
