//! What the C library answers: `sysconf` (the page size, and on glibc the cache levels) and
//! `uname` (the kernel). glibc's cache answers are its own guesses, not the kernel's, and
//! they can be far off: on the machines this project was written on, glibc reports an L3
//! ten or twelve times larger than sysfs and CPUID do. That is why it comes last.

use super::CacheReading;

/// `sysconf(name)` when it is positive; `None` when refused or unknown.
pub fn positive(name: libc::c_int) -> Option<u64> {
    // SAFETY: sysconf only reads a configuration value.
    let v = unsafe { libc::sysconf(name) };
    (v > 0).then_some(v as u64)
}

/// The page size in bytes.
pub fn page_size() -> Option<u64> {
    positive(libc::_SC_PAGESIZE)
}

/// The kernel's name and release from `uname`: "Linux 6.8.0-45-generic".
pub fn kernel_release() -> Option<String> {
    // SAFETY: utsname is plain old data; uname fills it.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return None;
    }
    Some(format!("{} {}", c_field(&u.sysname), c_field(&u.release)))
}

/// A NUL-terminated `c_char` array as text (`c_char` is i8 on x86-64, u8 on aarch64).
fn c_field(f: &[libc::c_char]) -> String {
    let bytes: Vec<u8> = f
        .iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c.to_ne_bytes()[0])
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

pub use glibc::caches;

/// glibc's `_SC_LEVEL*` cache queries (levels 1 to 4, the data side of level 1).
#[cfg(target_env = "gnu")]
mod glibc {
    use super::{CacheReading, positive};

    /// Every level glibc knows a size or a line size for.
    pub fn caches() -> Vec<CacheReading> {
        let l = [
            (
                1,
                libc::_SC_LEVEL1_DCACHE_SIZE,
                libc::_SC_LEVEL1_DCACHE_LINESIZE,
                libc::_SC_LEVEL1_DCACHE_ASSOC,
            ),
            (
                2,
                libc::_SC_LEVEL2_CACHE_SIZE,
                libc::_SC_LEVEL2_CACHE_LINESIZE,
                libc::_SC_LEVEL2_CACHE_ASSOC,
            ),
            (
                3,
                libc::_SC_LEVEL3_CACHE_SIZE,
                libc::_SC_LEVEL3_CACHE_LINESIZE,
                libc::_SC_LEVEL3_CACHE_ASSOC,
            ),
            (
                4,
                libc::_SC_LEVEL4_CACHE_SIZE,
                libc::_SC_LEVEL4_CACHE_LINESIZE,
                libc::_SC_LEVEL4_CACHE_ASSOC,
            ),
        ];
        l.iter()
            .map(|&(level, s, ln, a)| CacheReading {
                level,
                size: positive(s),
                line: positive(ln),
                ways: positive(a),
            })
            .filter(|r| r.size.is_some() || r.line.is_some())
            .collect()
    }
}

/// Other C libraries have no cache queries: this source answers nothing.
#[cfg(not(target_env = "gnu"))]
mod glibc {
    use super::CacheReading;

    pub fn caches() -> Vec<CacheReading> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_fields_stop_at_the_first_nul() {
        let f: Vec<libc::c_char> = b"Linux\0junk".iter().map(|&b| b as libc::c_char).collect();
        assert_eq!(c_field(&f), "Linux");
        assert_eq!(c_field(&[]), "");
    }

    #[test]
    fn this_machine_answers() {
        assert!(page_size().is_some_and(|p| p >= 4096 && p.is_power_of_two()));
        assert!(kernel_release().is_some_and(|k| k.starts_with("Linux ")));
        assert_eq!(positive(-1), None);
        for c in caches() {
            assert!(c.size.is_some() || c.line.is_some());
            assert!((1..=4).contains(&c.level));
        }
    }
}
