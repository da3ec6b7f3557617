//! Whether the machine's memory stayed as fast as it was: a short pointer chase through a
//! buffer far beyond the last cache level, read as a memory-bound block opens and as it closes.
//!
//! On a VM the memory is the host's, shared with other guests. Their traffic changes how long
//! a load that misses every cache takes, and no counter in the guest sees it: no steal, no
//! switch, no other work, and the core's share ([`super::share`]) steady. On the 2-core Zen 3
//! VM this project was measured on, with the guest quiet, readings of a 64 MiB chase on 4 KiB
//! pages, 20 ms long and 1.4 s apart, went from 400 to 1,100 ns a load and back within
//! seconds; two quiet runs of cache_ladder read the largest working set at 291 and 393 ns.
//!
//! A chase that starts after a rest is slow: on that VM about 400 ns a load, falling to
//! 215 ns over 5,000 loads. So a reading first follows [`WARM_STEPS`] links, and the buffer
//! asks for huge pages, so that the reading is the memory's and not the page walks'.
//!
//! A block that reads this reference before and after ([`crate::disturb::Window`]) and finds
//! the two readings more than [`MEMORY_MOVED`] apart ran while the memory changed under it:
//! its memory-bound figures are provisional. Two readings that agree do not prove the memory
//! was steady between them, and a memory slow from the first reading to the last cannot be
//! told from slow memory: the reference is a witness, not a correction.

use crate::chase::{Link, Ring, timed_round};
use crate::stats::median;
use std::hint::black_box;
use std::sync::{LazyLock, Mutex};

/// Two readings further apart than this share (of the higher) mean the memory changed.
/// On the quiet Zen 3 VM, two readings back to back differed by more in 4 to 7 pairs of 100,
/// two a second apart in 12 of 100: about one memory-bound block in ten on such a host is
/// marked by the host's own memory noise.
pub const MEMORY_MOVED: f64 = 0.25;
/// The reference buffer is at least this large...
const MIN_BYTES: u64 = 64 << 20;
/// ... and at least this many times the largest cache, up to [`MAX_BYTES`].
const TIMES_LLC: u64 = 2;
const MAX_BYTES: u64 = 512 << 20;
/// Steps of the discarded warm-up, and of each of the [`READS`] timed chases of a reading.
pub const WARM_STEPS: u64 = 16_384;
pub const STEPS: u64 = 512;
pub const READS: usize = 3;

/// One reading: nanoseconds a load through the reference buffer took, the median of
/// [`READS`] short chases after a discarded one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MemRef {
    pub ns: f64,
}

/// The reference ring, built on first use (once a process: 140 ms for 64 MiB on the Zen 3
/// VM); `None` where its buffer could not be had.
static RING: LazyLock<Mutex<Option<Ring<'static>>>> = LazyLock::new(|| Mutex::new(build()));

/// The buffer's size for a machine whose largest cache is `llc` bytes.
pub fn bytes_for(llc: Option<u64>) -> u64 {
    (llc.unwrap_or(0) * TIMES_LLC).clamp(MIN_BYTES, MAX_BYTES)
}

fn build() -> Option<Ring<'static>> {
    let bytes = bytes_for(crate::facts::MachineFacts::read().largest_cache()) as usize;
    let line_words = 8;
    let next = crate::ring::try_sattolo(bytes / 64, 0x6d65_6d72).ok()?;
    // Huge pages where the kernel grants them: a chase over 4 KiB pages also walks page
    // tables, whose lines other work evicts from the shared cache while this buffer rests, so
    // a reading would depend on how long ago the last one was.
    let prepared = crate::mem::prepare(bytes, crate::mem::HugeAdvice::Huge, 4096).ok()?;
    // The region lives as long as the process: one reference for every block that reads it.
    let region: &'static mut crate::mem::Region = Box::leak(Box::new(prepared.region));
    Some(Ring::build(
        region.as_u64_mut(),
        Link::Address,
        &next,
        |k| k * line_words,
    ))
}

/// Reads the reference now (17,920 loads: 3 ms on the Zen 3 VM's memory at 160 ns a load),
/// or `None` under an emulator (where it would time the translator) or where the buffer
/// could not be had.
pub fn probe() -> Option<MemRef> {
    if crate::emulation::emulated() {
        return None;
    }
    let mut ring = RING.lock().unwrap_or_else(|e| e.into_inner());
    let ring = ring.as_mut()?;
    black_box(ring.chase(WARM_STEPS));
    let reads: Vec<f64> = (0..READS).map(|_| timed_round(ring, STEPS)).collect();
    median(&reads).map(|ns| MemRef { ns })
}

/// Whether two readings differ by more than [`MEMORY_MOVED`].
pub fn moved(before: MemRef, after: MemRef) -> bool {
    let (lo, hi) = (before.ns.min(after.ns), before.ns.max(after.ns));
    hi > 0.0 && (hi - lo) / hi > MEMORY_MOVED
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_buffer_is_twice_the_last_level_within_bounds() {
        assert_eq!(bytes_for(None), MIN_BYTES);
        assert_eq!(bytes_for(Some(8 << 20)), MIN_BYTES);
        assert_eq!(bytes_for(Some(96 << 20)), 192 << 20);
        assert_eq!(bytes_for(Some(1 << 30)), MAX_BYTES);
    }

    #[test]
    fn a_quarter_apart_is_moved() {
        let r = |ns| MemRef { ns };
        assert!(!moved(r(100.0), r(120.0)));
        assert!(moved(r(100.0), r(140.0)));
        assert!(moved(r(140.0), r(100.0)));
        assert!(!moved(r(0.0), r(0.0)));
    }

    #[test]
    fn a_reading_is_a_positive_time_where_it_is_taken() {
        if let Some(r) = probe() {
            assert!(r.ns > 0.0 && r.ns.is_finite(), "{r:?}");
        }
    }
}
