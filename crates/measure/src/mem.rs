//! Memory regions for experiments that care how memory is backed.
//!
//! [`Region`] is an anonymous private `mmap` aligned to 2 MiB (so a huge page can back it),
//! with `madvise` requests that report whether the kernel accepted them, and the share of the
//! region actually backed by transparent huge pages, read from `/proc/self/smaps`. A request
//! is not a result: the experiment prints the verified backing, not the wish.

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
        let p = self.ptr.as_ptr();
        for off in (0..self.len).step_by(page.max(1)) {
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
