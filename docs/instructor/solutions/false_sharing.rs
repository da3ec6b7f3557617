// Reference solution of the false-sharing lab (labs/false_sharing): the same threads and
// the same atomic adds, but each counter aligned to its own 128-byte block (two lines: some
// cores fetch lines in pairs), so no two threads write into one line.
// Check it with `cargo xtask lab check false_sharing --solution
// docs/instructor/solutions/false_sharing.rs`.

use crate::{THREADS, worker};
use std::sync::atomic::{AtomicU64, Ordering};

/// One counter on a line of its own.
#[repr(align(128))]
struct Padded(AtomicU64);

/// The counters, one per thread, each on its own line.
struct Counters {
    c: [Padded; THREADS],
}

/// Thread `t` adds up the `t`-th part of `data` (split into [`THREADS`] parts) into its own
/// counter, one number at a time; the result is every thread's total.
#[inline(never)]
#[unsafe(export_name = "lab_false_sharing_solution")]
pub fn count(data: &[u64]) -> Vec<u64> {
    let counters = Counters {
        c: std::array::from_fn(|_| Padded(AtomicU64::new(0))),
    };
    let part = data.len().div_ceil(THREADS).max(1);
    std::thread::scope(|s| {
        for (t, chunk) in data.chunks(part).enumerate() {
            let counter = &counters.c[t].0;
            s.spawn(move || {
                worker(t, || {
                    for &x in chunk {
                        counter.fetch_add(x, Ordering::Relaxed);
                    }
                })
            });
        }
    });
    counters.c.iter().map(|c| c.0.load(Ordering::Relaxed)).collect()
}
