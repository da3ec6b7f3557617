//! Threads on their own cores: a team released together and timed to its last finish (for
//! the all-cores rows), and streamers that read in the background on demand (for latency
//! under load).
//!
//! The team, its start line and the check of where each worker ran are `measure::team`'s:
//! every worker pins *itself* to its core and reads back where it runs, before and after its
//! work; a row whose workers were not all seen on their cores says so.

use measure::rounds::Timed;
use measure::team::{self, Place, Seen, spin_until};
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::sync::{Condvar, Mutex};

/// The cores this process may use, the main thread's core first, then one logical CPU of
/// every other physical core, then the remaining SMT siblings, at most `limit` of them
/// ([`team::usable`]). Call before pinning the main thread: a pinned thread's affinity mask
/// holds only its own core.
pub fn cores(main: Option<usize>, limit: Option<usize>) -> Vec<usize> {
    team::usable(main, limit).iter().map(|c| c.id).collect()
}

/// A worker with less than this share of its wall time on the CPU was held off its core.
pub const ON_CORE: f64 = 0.9;

/// One row of the all-cores table.
pub struct ThreadRow {
    pub threads: usize,
    /// The cores used; empty when skipped (more threads than cores).
    pub cores: Vec<usize>,
    /// Total GB/s per round, with the evidence of the round (a round is disturbed when any
    /// worker's was: [`team::Run::evidence`]); empty when skipped.
    pub total: Timed,
    /// Every worker of every round verified on its core.
    pub verified: bool,
    /// Rounds in which some worker had under [`ON_CORE`] of its wall time on the CPU.
    pub off_core: usize,
}

/// The all-cores rows: for each thread count in `counts` that `cores` and `regions` allow,
/// a team of that many threads, thread `i` on `cores[i]` running `work(regions[i])`, which
/// moves `bytes` bytes. The rows take turns (1, 2, ... threads, then again), `rounds` times
/// after one warm-up round, discarded. A team run cannot be cut short, so its rounds are
/// kept and judged by every worker's evidence. Rows needing more cores than there are stay
/// empty.
pub fn scaling(
    counts: &[usize],
    cores: &[usize],
    regions: &[&[u64]],
    rounds: usize,
    bytes: f64,
    work: impl Fn(&[u64]) -> u64 + Sync,
) -> Vec<ThreadRow> {
    let available = cores.len().min(regions.len());
    let mut rows: Vec<ThreadRow> = counts
        .iter()
        .map(|&n| ThreadRow {
            threads: n,
            cores: if n <= available {
                cores[..n].to_vec()
            } else {
                Vec::new()
            },
            total: Timed::default(),
            verified: true,
            off_core: 0,
        })
        .collect();
    for round in 0..=rounds {
        for t in rows.iter_mut().filter(|t| !t.cores.is_empty()) {
            let places: Vec<Place> = t.cores.iter().map(|&c| Place::Pinned(c)).collect();
            let run = team::run(&places, |i| work(regions[i]));
            if round > 0 {
                t.total.push(
                    t.cores.len() as f64 * bytes / run.elapsed_ns,
                    run.evidence().unwrap_or_default(),
                );
                t.verified &= run.seen.iter().all(Seen::verified);
                t.off_core += usize::from(run.seen.iter().any(|s| s.held_off(ON_CORE)));
            }
        }
    }
    rows
}

const IDLE: u8 = 0;
const STREAM: u8 = 1;
const STOP: u8 = 2;

/// A counter on a cache line of its own, so that streamers do not share lines.
#[repr(align(128))]
#[derive(Default)]
struct Padded(AtomicU64);

/// Background readers, one per core, each over its own region, switched on and off. While
/// off they sleep (on a condition variable), so that an idle round really has idle cores
/// beside it, not spinning ones that push other programs onto the measuring core.
pub struct Streamers {
    phase: AtomicU8,
    /// Held while the phase changes, so that a streamer going to sleep cannot miss a wake-up.
    lock: Mutex<()>,
    wake: Condvar,
    bytes: Vec<Padded>,
    idle: Vec<Padded>,
}

impl Streamers {
    /// Switches the streamers on and returns once each has read at least one chunk.
    pub fn start(&self) {
        let before: Vec<u64> = self
            .bytes
            .iter()
            .map(|b| b.0.load(Ordering::Acquire))
            .collect();
        self.set(STREAM);
        for (b, s) in self.bytes.iter().zip(before) {
            spin_until(|| b.0.load(Ordering::Acquire) > s);
        }
    }
    /// Switches them off and returns once none is reading any more.
    pub fn stop(&self) {
        self.set(IDLE);
        for s in &self.idle {
            spin_until(|| s.0.load(Ordering::Acquire) == 1);
        }
    }
    fn set(&self, phase: u8) {
        let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.phase.store(phase, Ordering::Release);
        self.wake.notify_all();
    }
    /// Sleeps while the phase is IDLE; returns the phase that woke it.
    fn sleep_while_idle(&self) -> u8 {
        let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            let p = self.phase.load(Ordering::Acquire);
            if p != IDLE {
                return p;
            }
            g = self.wake.wait(g).unwrap_or_else(|e| e.into_inner());
        }
    }
    /// Bytes read by all streamers so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.iter().map(|b| b.0.load(Ordering::Acquire)).sum()
    }
}

/// Runs `body` while one streamer per core of `cores` waits in the background to read its
/// region (in `chunk`-byte pieces, with `read`) whenever `body` switches them on. Returns
/// what `body` returned and where each streamer ran.
pub fn with_streamers<R>(
    cores: &[usize],
    regions: Vec<&[u64]>,
    chunk: usize,
    read: fn(&[u64], u64) -> u64,
    body: impl FnOnce(&Streamers) -> R,
) -> (R, Vec<Seen>) {
    assert_eq!(cores.len(), regions.len(), "one region per streamer");
    let st = Streamers {
        phase: AtomicU8::new(IDLE),
        lock: Mutex::new(()),
        wake: Condvar::new(),
        bytes: (0..cores.len()).map(|_| Padded::default()).collect(),
        idle: (0..cores.len()).map(|_| Padded::default()).collect(),
    };
    std::thread::scope(|s| {
        let hs: Vec<_> = cores
            .iter()
            .zip(regions)
            .enumerate()
            .map(|(i, (&core, region))| {
                let st = &st;
                s.spawn(move || {
                    let seen = Seen::arrive(Place::Pinned(core));
                    let words = (chunk / 8).min(region.len()).max(1);
                    let mut off = 0usize;
                    let mut sum = 0u64;
                    loop {
                        match st.phase.load(Ordering::Acquire) {
                            STOP => break,
                            STREAM => {
                                st.idle[i].0.store(0, Ordering::Release);
                                if off + words > region.len() {
                                    off = 0;
                                }
                                sum = sum.wrapping_add(read(&region[off..off + words], 1));
                                off += words;
                                st.bytes[i].0.fetch_add(words as u64 * 8, Ordering::AcqRel);
                            }
                            _ => {
                                st.idle[i].0.store(1, Ordering::Release);
                                st.sleep_while_idle();
                            }
                        }
                    }
                    std::hint::black_box(sum);
                    seen.leave(None)
                })
            })
            .collect();
        // Every streamer has started (and gone to sleep) before the body starts.
        for s in &st.idle {
            spin_until(|| s.0.load(Ordering::Acquire) == 1);
        }
        let r = body(&st);
        st.set(STOP);
        let seen = hs
            .into_iter()
            .map(|h| h.join().expect("a streamer panicked"))
            .collect();
        (r, seen)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_main_core_comes_first() {
        let last = *measure::pin::allowed_cores().last().expect("a core");
        assert_eq!(cores(Some(last), None)[0], last);
        assert_eq!(cores(Some(last), Some(1)), vec![last]);
    }

    #[test]
    fn scaling_measures_what_the_cores_allow_and_skips_the_rest() {
        let c = cores(None, Some(2));
        let region = vec![1u64; 1024];
        let regions: Vec<&[u64]> = c.iter().map(|_| &region[..]).collect();
        let rows = scaling(&[1, 2, 64], &c, &regions, 2, 8192.0, |r| r.iter().sum());
        assert_eq!(rows.len(), 3);
        assert_eq!(
            rows[0].total.values.len(),
            2,
            "one value per round, the warm-up left out"
        );
        assert_eq!(
            rows[0].total.evidence.len(),
            2,
            "each round with its evidence"
        );
        assert!(rows[0].total.values.iter().all(|g| *g > 0.0));
        assert!(
            rows[2].cores.is_empty() && rows[2].total.values.is_empty(),
            "64 threads: skipped"
        );
        assert_eq!(rows[1].cores.is_empty(), c.len() < 2);
    }

    #[test]
    fn streamers_read_only_while_switched_on() {
        let c = cores(None, Some(1));
        let region = vec![1u64; 1 << 12];
        let read: fn(&[u64], u64) -> u64 = |w, laps| w.iter().sum::<u64>() * laps;
        let ((on, off_before, off_after), seen) =
            with_streamers(&c, vec![&region[..]], 4096, read, |s| {
                let a = s.bytes();
                s.start();
                s.stop();
                let on = s.bytes() - a;
                let b = s.bytes();
                std::thread::sleep(std::time::Duration::from_millis(5));
                (on, b, s.bytes())
            });
        assert!(on >= 4096, "{on}");
        assert_eq!(off_before, off_after, "no reading while switched off");
        assert_eq!(seen.len(), 1);
    }
}
