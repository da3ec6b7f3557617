//! Memory regions for experiments that care how memory is backed.
//!
//! [`Region`] is an anonymous private `mmap` aligned to 2 MiB (so a huge page can back it),
//! with `madvise` requests that report whether the kernel accepted them, and the share of the
//! region actually backed by transparent huge pages, read from `/proc/self/smaps`. A request
//! is not a result: the experiment prints the verified backing, not the wish.
//!
//! [`prepare`] is the setup experiments share: map, ask, touch every page (so no timed round
//! pays for first touch), then read the backing. [`show_backing`] and [`backing_meta`] print
//! that backing the same way everywhere. [`room_for`] keeps an experiment from mapping more
//! than the machine can hold, so a small machine gets a "not enough memory" line, not an
//! out-of-memory kill; [`guard`] adds this process's address-space limit (`ulimit -v`), and
//! [`try_vec`] turns a failed allocation into an error instead of an abort.

use std::ptr::NonNull;

/// 2 MiB, the x86-64 and aarch64 (4 KiB granule) huge page size.
pub const HUGE_PAGE: usize = 2 << 20;

/// What to ask of the kernel about huge pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HugeAdvice {
    /// `MADV_HUGEPAGE`.
    Huge,
    /// `MADV_NOHUGEPAGE`.
    NoHuge,
    /// Nothing asked: whatever the system's THP mode does.
    Default,
}

/// An anonymous mapping, unmapped on drop.
pub struct Region {
    ptr: NonNull<u8>,
    len: usize,
    map_ptr: *mut libc::c_void,
    map_len: usize,
}

// SAFETY: Region owns its mapping exclusively; moving it between threads is fine.
unsafe impl Send for Region {}

impl Region {
    /// Maps `len` bytes (rounded up to 2 MiB) at a 2 MiB-aligned address. Nothing is touched.
    pub fn new(len: usize) -> Result<Region, String> {
        if len == 0 {
            return Err("a region of 0 bytes".into());
        }
        let len = len.div_ceil(HUGE_PAGE) * HUGE_PAGE;
        let map_len = len + HUGE_PAGE;
        // SAFETY: anonymous private mapping with no fixed address.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(format!(
                "mmap of {} failed: {}",
                crate::facts::human_bytes(map_len as u64),
                std::io::Error::last_os_error()
            ));
        }
        let addr = p as usize;
        let aligned = addr.div_ceil(HUGE_PAGE) * HUGE_PAGE;
        let ptr = NonNull::new(aligned as *mut u8).ok_or("mmap returned null")?;
        Ok(Region {
            ptr,
            len,
            map_ptr: p,
            map_len,
        })
    }

    /// Asks for (or against) huge pages. `Ok(())` means the kernel accepted the request,
    /// which is not yet the same as being backed by huge pages: see [`Region::huge_backing`].
    pub fn advise(&self, advice: HugeAdvice) -> Result<(), String> {
        let flag = match advice {
            HugeAdvice::Huge => libc::MADV_HUGEPAGE,
            HugeAdvice::NoHuge => libc::MADV_NOHUGEPAGE,
            HugeAdvice::Default => return Ok(()),
        };
        // SAFETY: the range lies inside our own mapping.
        let rc = unsafe { libc::madvise(self.ptr.as_ptr().cast(), self.len, flag) };
        if rc == 0 {
            Ok(())
        } else {
            Err(format!(
                "madvise refused: {}",
                std::io::Error::last_os_error()
            ))
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// The region as a slice of `u64` (zero-filled by the kernel on first touch).
    pub fn as_u64_mut(&mut self) -> &mut [u64] {
        // SAFETY: the mapping is readable and writable, 2 MiB aligned, and `len` bytes long.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr().cast::<u64>(), self.len / 8) }
    }

    /// Writes one byte per `page` bytes so every page is attached (first touch done).
    pub fn touch(&mut self, page: usize) {
        self.touch_pages(page, 0..self.len.div_ceil(page.max(1)));
    }

    /// Writes one byte at the start of pages `pages` (of `page` bytes) of the region, those
    /// that lie inside it.
    pub fn touch_pages(&mut self, page: usize, pages: std::ops::Range<usize>) {
        let p = self.ptr.as_ptr();
        let page = page.max(1);
        for i in pages {
            let off = i.saturating_mul(page);
            if off >= self.len {
                break;
            }
            // SAFETY: off < len, inside the mapping.
            unsafe { p.add(off).write_volatile(1) };
        }
    }

    /// The share (0..=100) of this region backed by transparent huge pages, from the
    /// `AnonHugePages` lines of `/proc/self/smaps`; `None` if smaps cannot be read.
    pub fn huge_backing(&self) -> Option<f64> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
        let kib = anon_huge_kib_in(&smaps, self.ptr.as_ptr() as usize, self.len);
        Some((kib as f64 * 1024.0 / self.len as f64 * 100.0).min(100.0))
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        // SAFETY: unmapping exactly what mmap returned.
        unsafe { libc::munmap(self.map_ptr, self.map_len) };
    }
}

/// A mapped, touched region and what became of its huge-page request.
pub struct Prepared {
    pub region: Region,
    /// What was asked.
    pub advice: HugeAdvice,
    /// `Ok` if the kernel accepted the `madvise`, else its refusal.
    pub asked: Result<(), String>,
    /// The share (percent) on huge pages, verified in `/proc/self/smaps` after the touch.
    pub backing: Option<f64>,
}

impl Prepared {
    /// `"accepted"`, or the kernel's refusal of the request.
    pub fn request(&self) -> String {
        match &self.asked {
            Ok(()) => "accepted".into(),
            Err(e) => e.clone(),
        }
    }
}

/// Maps a region of `bytes`, asks for `advice`, touches every `page` bytes (so that no timed
/// round pays for first touch), and returns it with the outcome of the request and the
/// backing verified after the touch. `Err` only if the mapping itself fails.
pub fn prepare(bytes: usize, advice: HugeAdvice, page: usize) -> Result<Prepared, String> {
    let mut region = Region::new(bytes)?;
    let asked = region.advise(advice);
    region.touch(page);
    let backing = region.huge_backing();
    Ok(Prepared {
        region,
        advice,
        asked,
        backing,
    })
}

/// A verified huge-page share for people: `"100% (verified in /proc/self/smaps)"`, or
/// `"unknown (/proc/self/smaps unreadable)"`.
pub fn show_backing(pct: Option<f64>) -> String {
    pct.map_or("unknown (/proc/self/smaps unreadable)".into(), |b| {
        format!("{b:.0}% (verified in /proc/self/smaps)")
    })
}

/// A verified huge-page share for `#META`: `"99.6"`, or `"unknown"`.
pub fn backing_meta(pct: Option<f64>) -> String {
    pct.map_or("unknown".into(), |b| format!("{b:.1}"))
}

/// The machine's physical memory in bytes, from `sysconf`, if it says.
pub fn physical_memory() -> Option<u64> {
    // SAFETY: sysconf only reads system parameters.
    let (pages, size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    (pages > 0 && size > 0).then(|| pages as u64 * size as u64)
}

/// Whether an experiment may map and touch `bytes` at once: up to half of `physical` (the
/// rest is the system's and other programs'). An unknown size lets the request through (the
/// mapping may still be refused, which [`Region::new`] reports). `Err` says why not, starting
/// "not enough memory".
pub fn room_in(bytes: u64, physical: Option<u64>) -> Result<(), String> {
    match physical {
        Some(phys) if bytes > phys / 2 => Err(format!(
            "not enough memory: {} would be more than half of this machine's {}",
            crate::facts::human_bytes(bytes),
            crate::facts::human_bytes(phys)
        )),
        _ => Ok(()),
    }
}

/// [`room_in`] this machine's [`physical_memory`].
pub fn room_for(bytes: u64) -> Result<(), String> {
    room_in(bytes, physical_memory())
}

/// How many more bytes this process may map under its address-space limit (`ulimit -v`,
/// `RLIMIT_AS`): the soft limit less what is mapped now (`VmSize` in `/proc/self/status`).
/// `None` when there is no limit (or it cannot be read): then only [`room_for`] applies.
pub fn address_space_left() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one rlimit into the struct we own.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    Some(lim.rlim_cur.saturating_sub(vm_size_in(&status)?))
}

/// The `VmSize` of a `/proc/<pid>/status` text, in bytes.
pub fn vm_size_in(status: &str) -> Option<u64> {
    let rest = status.lines().find_map(|l| l.strip_prefix("VmSize:"))?;
    let kib: u64 = rest.split_whitespace().next()?.parse().ok()?;
    Some(kib * 1024)
}

/// Whether `bytes` more fit in `left`, the address space still free under `ulimit -v`
/// ([`address_space_left`]); `None` (no limit) lets everything through. `Err` says why not,
/// starting "not enough memory", like [`room_in`].
pub fn map_room_in(bytes: u64, left: Option<u64>) -> Result<(), String> {
    match left {
        Some(left) if bytes > left => Err(format!(
            "not enough memory: {} would be more than the {} this process may still map (ulimit -v)",
            crate::facts::human_bytes(bytes),
            crate::facts::human_bytes(left)
        )),
        _ => Ok(()),
    }
}

/// Whether an experiment may map and touch `bytes` now: [`room_for`] (half of the physical
/// memory) and [`map_room_in`] this process's address-space limit. Check a whole plan with it
/// before allocating, so that a small machine or a `ulimit -v` gets one clear line instead of
/// an out-of-memory abort.
pub fn guard(bytes: u64) -> Result<(), String> {
    room_for(bytes)?;
    map_room_in(bytes, address_space_left())
}

/// A vector of `n` copies of `value`, or "not enough memory" instead of the abort a plain
/// `vec!` gives when the allocation fails.
pub fn try_vec<T: Clone>(n: usize, value: T) -> Result<Vec<T>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        format!(
            "not enough memory: {} could not be allocated",
            crate::facts::human_bytes((n as u64).saturating_mul(std::mem::size_of::<T>() as u64))
        )
    })?;
    v.resize(n, value);
    Ok(v)
}

/// Sums `AnonHugePages` (KiB) over the smaps entries that overlap `[start, start + len)`.
pub fn anon_huge_kib_in(smaps: &str, start: usize, len: usize) -> u64 {
    let end = start + len;
    let mut inside = false;
    let mut total = 0;
    for line in smaps.lines() {
        let first = line.split_whitespace().next().unwrap_or("");
        if let Some((a, b)) = first.split_once('-')
            && let (Ok(a), Ok(b)) = (usize::from_str_radix(a, 16), usize::from_str_radix(b, 16))
        {
            inside = a < end && b > start;
            continue;
        }
        if inside && let Some(rest) = line.strip_prefix("AnonHugePages:") {
            total += rest
                .split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(0);
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smaps_parsing_counts_only_overlapping_entries() {
        let smaps = "\
7f0000000000-7f0000400000 rw-p 00000000 00:00 0
Size:               4096 kB
AnonHugePages:      4096 kB
7f0000400000-7f0000600000 rw-p 00000000 00:00 0
Size:               2048 kB
AnonHugePages:      2048 kB
";
        assert_eq!(anon_huge_kib_in(smaps, 0x7f00_0000_0000, 4 << 20), 4096);
        assert_eq!(anon_huge_kib_in(smaps, 0x7f00_0040_0000, 2 << 20), 2048);
        assert_eq!(anon_huge_kib_in(smaps, 0x1000, 4096), 0);
    }

    #[test]
    fn room_is_half_the_physical_memory_and_unknown_lets_through() {
        assert!(room_in(512 << 20, Some(1 << 30)).is_ok());
        let e = room_in((512 << 20) + 1, Some(1 << 30)).unwrap_err();
        assert!(e.starts_with("not enough memory"), "{e}");
        assert!(e.contains("1 GiB"), "{e}");
        assert!(room_in(u64::MAX, None).is_ok());
        // This machine says how much it has, and a few pages fit in it.
        let phys = physical_memory().expect("sysconf reports physical memory on Linux");
        assert!(phys >= 1 << 20);
        assert!(room_for(4096).is_ok());
        assert!(room_for(phys).is_err());
    }

    #[test]
    fn the_address_space_limit_is_read_and_checked() {
        assert_eq!(
            vm_size_in("Name:\tx\nVmSize:\t  123456 kB\n"),
            Some(123_456 * 1024)
        );
        assert_eq!(vm_size_in("Name:\tx\n"), None);
        assert!(map_room_in(10 << 20, Some(20 << 20)).is_ok());
        let e = map_room_in(30 << 20, Some(20 << 20)).unwrap_err();
        assert!(
            e.starts_with("not enough memory") && e.contains("ulimit -v"),
            "{e}"
        );
        assert!(map_room_in(u64::MAX, None).is_ok());
        assert!(guard(4096).is_ok());
    }

    #[test]
    fn a_failed_allocation_is_an_error_not_an_abort() {
        assert_eq!(try_vec(3, 7u8).unwrap(), vec![7, 7, 7]);
        let e = try_vec(usize::MAX / 8, 0u64).unwrap_err();
        assert!(e.starts_with("not enough memory"), "{e}");
    }

    #[test]
    fn backing_is_shown_and_recorded_the_same_way_everywhere() {
        assert_eq!(
            show_backing(Some(99.6)),
            "100% (verified in /proc/self/smaps)"
        );
        assert_eq!(show_backing(None), "unknown (/proc/self/smaps unreadable)");
        assert_eq!(backing_meta(Some(0.04)), "0.0");
        assert_eq!(backing_meta(None), "unknown");
    }

    #[test]
    fn prepared_regions_are_touched_and_their_request_reported() {
        let p = prepare(2 << 20, HugeAdvice::NoHuge, 4096).unwrap();
        assert_eq!(p.advice, HugeAdvice::NoHuge);
        assert_eq!(p.region.len(), 2 << 20);
        // Touched: the first byte of every page is 1.
        let b = p.region.as_ptr();
        for off in (0..2 << 20).step_by(4096) {
            // SAFETY: inside the region's 2 MiB.
            assert_eq!(unsafe { b.add(off).read_volatile() }, 1);
        }
        assert_eq!(p.request() == "accepted", p.asked.is_ok());
        assert!(p.backing.is_some_and(|b| (0.0..=100.0).contains(&b)));
        assert!(prepare(0, HugeAdvice::Default, 4096).is_err());
    }

    #[test]
    fn region_is_aligned_and_usable() {
        let mut r = Region::new(3 << 20).unwrap();
        assert_eq!(r.as_ptr() as usize % HUGE_PAGE, 0);
        assert_eq!(r.len(), 4 << 20);
        r.touch(4096);
        let s = r.as_u64_mut();
        s[0] = 7;
        assert_eq!(s[0], 7);
        assert!(r.huge_backing().is_some());
    }
}
