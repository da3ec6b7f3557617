//! The baseline: nobody edits this file.

use crate::{THREADS, worker};
use std::sync::atomic::{AtomicU64, Ordering};

/// The counters, one per thread, side by side.
struct Counters {
    c: [AtomicU64; THREADS],
}

/// Thread `t` adds up the `t`-th part of `data` (split into [`THREADS`] parts) into its own
/// counter, one number at a time; the result is every thread's total.
#[inline(never)]
#[unsafe(export_name = "lab_false_sharing_baseline")]
pub fn count(data: &[u64]) -> Vec<u64> {
    let counters = Counters {
        c: std::array::from_fn(|_| AtomicU64::new(0)),
    };
    let part = data.len().div_ceil(THREADS).max(1);
    std::thread::scope(|s| {
        for (t, chunk) in data.chunks(part).enumerate() {
            let counter = &counters.c[t];
            s.spawn(move || {
                worker(t, || {
                    for &x in chunk {
                        counter.fetch_add(x, Ordering::Relaxed);
                    }
                })
            });
        }
    });
    counters
        .c
        .iter()
        .map(|c| c.load(Ordering::Relaxed))
        .collect()
}
