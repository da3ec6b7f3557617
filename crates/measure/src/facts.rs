//! Machine facts, each with the place it came from.
//!
//! Cache sizes are read from sysfs first (what the kernel recorded at boot), then from the
//! CPU itself through CPUID (Intel leaf 4, AMD leaf 0x8000001D), then from glibc's
//! `sysconf`. Every value carries its source, and every other source that disagrees is kept
//! so it can be printed: on the machines this project was written on, `sysconf` reports an
//! L3 ten or twelve times larger than sysfs and CPUID do. A value no source knows is `None`
//! and is printed as "unknown", never as 0 bytes. On aarch64 the line size falls back to the
//! CTR_EL0 register, the way glibc itself answers it.
//!
//! The test seam: [`FactsReader::with_roots`] points the reader at a fake sysfs and proc tree
//! and can switch the CPUID and `sysconf` sources off.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

/// Where a value came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Source {
    Sysfs,
    Cpuid,
    Sysconf,
    CtrEl0,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Source::Sysfs => "sysfs",
            Source::Cpuid => "cpuid",
            Source::Sysconf => "sysconf",
            Source::CtrEl0 => "ctr_el0",
        })
    }
}

/// One value with provenance: the chosen value, its source, and every reading taken.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Fact {
    pub value: Option<u64>,
    pub source: Option<Source>,
    /// Every source that answered, in precedence order.
    pub readings: Vec<(Source, u64)>,
}

impl Fact {
    /// Chooses the first reading in precedence order.
    pub fn from_readings(mut readings: Vec<(Source, u64)>) -> Fact {
        readings.sort_by_key(|r| r.0);
        let first = readings.first().copied();
        Fact {
            value: first.map(|r| r.1),
            source: first.map(|r| r.0),
            readings,
        }
    }
    /// Readings that differ from the chosen value.
    pub fn disagreements(&self) -> Vec<(Source, u64)> {
        self.readings
            .iter()
            .copied()
            .filter(|r| Some(r.1) != self.value)
            .collect()
    }
    /// "48 KiB (sysfs)" or "unknown".
    pub fn show_bytes(&self) -> String {
        match (self.value, self.source) {
            (Some(v), Some(s)) => format!("{} ({s})", human_bytes(v)),
            _ => "unknown".into(),
        }
    }
    /// "64 (sysfs)" or "unknown".
    pub fn show_plain(&self) -> String {
        match (self.value, self.source) {
            (Some(v), Some(s)) => format!("{v} ({s})"),
            _ => "unknown".into(),
        }
    }
}

/// Formats a byte count with the largest binary unit that divides it evenly (or one decimal).
pub fn human_bytes(b: u64) -> String {
    const UNITS: [(u64, &str); 3] = [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    for (k, u) in UNITS {
        if b >= k {
            return if b.is_multiple_of(k) {
                format!("{} {u}", b / k)
            } else {
                format!("{:.1} {u}", b as f64 / k as f64)
            };
        }
    }
    format!("{b} B")
}

/// One data (or unified) cache level as one source reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CacheReading {
    pub level: u8,
    pub size: Option<u64>,
    pub line: Option<u64>,
    pub ways: Option<u64>,
}

/// One cache level with provenance for each field.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheLevel {
    pub level: u8,
    pub size: Fact,
    pub line: Fact,
    pub ways: Fact,
}

impl CacheLevel {
    /// "L1d" for level 1 (the data side), "L2", "L3" otherwise.
    pub fn name(&self) -> String {
        if self.level == 1 {
            "L1d".into()
        } else {
            format!("L{}", self.level)
        }
    }
}

/// Merges the readings of several sources into levels with provenance. Levels any source
/// reports appear, in ascending order; a field no source knows is `None`.
pub fn merge_caches(sources: &[(Source, Vec<CacheReading>)]) -> Vec<CacheLevel> {
    let mut levels: Vec<u8> = sources
        .iter()
        .flat_map(|(_, rs)| rs.iter().map(|r| r.level))
        .collect();
    levels.sort_unstable();
    levels.dedup();
    levels
        .into_iter()
        .map(|level| {
            let pick = |f: fn(&CacheReading) -> Option<u64>| {
                Fact::from_readings(
                    sources
                        .iter()
                        .filter_map(|(s, rs)| {
                            rs.iter()
                                .find(|r| r.level == level)
                                .and_then(f)
                                .map(|v| (*s, v))
                        })
                        .collect(),
                )
            };
            CacheLevel {
                level,
                size: pick(|r| r.size),
                line: pick(|r| r.line),
                ways: pick(|r| r.ways),
            }
        })
        .collect()
}

/// Parses a sysfs cache size such as `32K`, `1024K`, `16M` or a plain byte count.
/// Empty or malformed text is `None` (Android kernels leave the field empty).
pub fn parse_sysfs_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, mult) = match t.chars().last()? {
        'K' | 'k' => (&t[..t.len() - 1], 1u64 << 10),
        'M' | 'm' => (&t[..t.len() - 1], 1 << 20),
        'G' | 'g' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: u64 = digits.trim().parse().ok()?;
    (n > 0).then(|| n.checked_mul(mult)).flatten()
}

/// Everything this project records about a machine.
#[derive(Debug, Clone)]
pub struct MachineFacts {
    pub arch: &'static str,
    pub cpu_model: Option<String>,
    /// Vendor, family and model from CPUID, with a family name where we know one.
    pub cpu_family: Option<String>,
    pub kernel: Option<String>,
    pub logical_cores: Option<usize>,
    pub page_size: Option<u64>,
    /// The bracketed word of `/sys/kernel/mm/transparent_hugepage/enabled`.
    pub thp_mode: Option<String>,
    pub caches: Vec<CacheLevel>,
}

impl MachineFacts {
    /// Reads the real machine.
    pub fn read() -> MachineFacts {
        FactsReader::system().read()
    }

    /// The cache level `level` (1 means L1 data), if any source reported it.
    pub fn cache(&self, level: u8) -> Option<&CacheLevel> {
        self.caches.iter().find(|c| c.level == level)
    }

    /// The line size: L1d's if known, else any level's.
    pub fn line_size(&self) -> Fact {
        self.caches
            .iter()
            .map(|c| c.line.clone())
            .find(|f| f.value.is_some())
            .unwrap_or_default()
    }

    /// The largest reported cache size in bytes (the last level), if any.
    pub fn largest_cache(&self) -> Option<u64> {
        self.caches.iter().filter_map(|c| c.size.value).max()
    }

    /// Which level a working set of `bytes` fits in, by reported sizes: "L1d", "L2", "L3",
    /// "memory", or "?" when no size is known at all.
    pub fn where_fits(&self, bytes: u64) -> String {
        let known: Vec<&CacheLevel> = self
            .caches
            .iter()
            .filter(|c| c.size.value.is_some())
            .collect();
        if known.is_empty() {
            return "?".into();
        }
        for c in known {
            if bytes <= c.size.value.unwrap_or(0) {
                return c.name();
            }
        }
        "memory".into()
    }

    /// Human-readable lines describing the machine, disagreements included.
    pub fn describe(&self) -> Vec<String> {
        let mut out = Vec::new();
        let unk = |o: &Option<String>| o.clone().unwrap_or_else(|| "unknown".into());
        out.push(format!(
            "cpu            : {} ({})",
            unk(&self.cpu_model),
            self.arch
        ));
        out.push(format!("cpu family     : {}", unk(&self.cpu_family)));
        out.push(format!("kernel         : {}", unk(&self.kernel)));
        out.push(format!(
            "logical cores  : {}",
            self.logical_cores
                .map_or("unknown".into(), |n| n.to_string())
        ));
        out.push(format!(
            "page size      : {}",
            self.page_size.map_or("unknown".into(), human_bytes)
        ));
        out.push(format!(
            "huge pages     : transparent huge pages mode {}",
            unk(&self.thp_mode)
        ));
        if self.caches.is_empty() {
            out.push("caches         : unknown (no source reports them)".into());
        }
        for c in &self.caches {
            out.push(format!(
                "{:<15}: size {}, line {}, associativity {}",
                c.name(),
                c.size.show_bytes(),
                c.line.show_plain(),
                c.ways.show_plain()
            ));
            for (what, fact, bytes) in [
                ("size", &c.size, true),
                ("line", &c.line, false),
                ("ways", &c.ways, false),
            ] {
                for (src, v) in fact.disagreements() {
                    let shown = if bytes { human_bytes(v) } else { v.to_string() };
                    out.push(format!(
                        "  ! {} {what}: {src} says {shown}, but {} was used ({})",
                        c.name(),
                        if bytes {
                            human_bytes(fact.value.unwrap_or(0))
                        } else {
                            fact.value.unwrap_or(0).to_string()
                        },
                        fact.source.map_or("none".into(), |s| s.to_string())
                    ));
                }
            }
        }
        out
    }

    /// `(key, value)` pairs for `#META` lines.
    pub fn meta(&self) -> Vec<(String, String)> {
        let unk = |o: &Option<String>| o.clone().unwrap_or_else(|| "unknown".into());
        let mut m = vec![
            ("arch".to_string(), self.arch.to_string()),
            ("cpu_model".into(), unk(&self.cpu_model)),
            ("cpu_family".into(), unk(&self.cpu_family)),
            ("kernel".into(), unk(&self.kernel)),
            (
                "logical_cores".into(),
                self.logical_cores
                    .map_or("unknown".into(), |n| n.to_string()),
            ),
            (
                "page_size_bytes".into(),
                self.page_size.map_or("unknown".into(), |n| n.to_string()),
            ),
            ("thp_mode".into(), unk(&self.thp_mode)),
        ];
        for c in &self.caches {
            let n = c.name().to_lowercase();
            for (what, f) in [
                ("size_bytes", &c.size),
                ("line_bytes", &c.line),
                ("ways", &c.ways),
            ] {
                m.push((
                    format!("{n}_{what}"),
                    match (f.value, f.source) {
                        (Some(v), Some(s)) => format!("{v} {s}"),
                        _ => "unknown".into(),
                    },
                ));
                for (s, v) in f.disagreements() {
                    m.push((format!("{n}_{what}_{s}"), format!("{v} disagrees")));
                }
            }
        }
        m
    }
}

/// Reads machine facts from a sysfs/proc root, with CPUID and `sysconf` as optional sources.
#[derive(Debug, Clone)]
pub struct FactsReader {
    /// Root under which `sys/devices/system/cpu/cpu0/cache` and friends are read ("/" normally).
    pub root: PathBuf,
    pub use_cpuid: bool,
    pub use_sysconf: bool,
    pub use_ctr_el0: bool,
}

impl FactsReader {
    /// The real machine: "/" and every source on.
    pub fn system() -> FactsReader {
        FactsReader {
            root: PathBuf::from("/"),
            use_cpuid: true,
            use_sysconf: true,
            use_ctr_el0: true,
        }
    }

    /// A fake tree (for tests): only files under `root` are read; the CPU and libc are not asked.
    pub fn with_roots(root: impl Into<PathBuf>) -> FactsReader {
        FactsReader {
            root: root.into(),
            use_cpuid: false,
            use_sysconf: false,
            use_ctr_el0: false,
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// The data and unified caches as sysfs lists them (instruction caches skipped).
    pub fn sysfs_caches(&self) -> Vec<CacheReading> {
        let dir = self.path("sys/devices/system/cpu/cpu0/cache");
        let mut out: Vec<CacheReading> = Vec::new();
        for i in 0..32 {
            let idx = dir.join(format!("index{i}"));
            let Some(level) = read_trim(&idx.join("level")).and_then(|s| s.parse::<u8>().ok())
            else {
                if idx.exists() {
                    continue;
                }
                break;
            };
            if read_trim(&idx.join("type")).is_some_and(|t| t.starts_with("Instruction")) {
                continue;
            }
            let num = |f: &str| {
                read_trim(&idx.join(f))
                    .and_then(|s| s.parse::<u64>().ok())
                    .filter(|&v| v > 0)
            };
            let r = CacheReading {
                level,
                size: read_trim(&idx.join("size")).and_then(|s| parse_sysfs_size(&s)),
                line: num("coherency_line_size"),
                ways: num("ways_of_associativity"),
            };
            if !out.iter().any(|o| o.level == level) {
                out.push(r);
            }
        }
        out
    }

    /// Reads everything.
    pub fn read(&self) -> MachineFacts {
        let mut sources = vec![(Source::Sysfs, self.sysfs_caches())];
        if self.use_cpuid {
            sources.push((Source::Cpuid, cpuid_caches()));
        }
        if self.use_sysconf {
            sources.push((Source::Sysconf, sysconf_caches()));
        }
        if self.use_ctr_el0
            && let Some(line) = ctr_el0_line()
        {
            sources.push((
                Source::CtrEl0,
                vec![CacheReading {
                    level: 1,
                    line: Some(line),
                    ..Default::default()
                }],
            ));
        }
        let caches = merge_caches(&sources);
        let cpuinfo = fs::read_to_string(self.path("proc/cpuinfo")).unwrap_or_default();
        let cpu_model = cpuinfo
            .lines()
            .find(|l| {
                l.starts_with("model name") || l.starts_with("Hardware") || l.starts_with("Model")
            })
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
            .filter(|s| !s.is_empty())
            .or_else(|| self.use_cpuid.then(cpuid_brand).flatten());
        let thp_mode = read_trim(&self.path("sys/kernel/mm/transparent_hugepage/enabled"))
            .and_then(|s| {
                s.split_whitespace()
                    .find(|w| w.starts_with('[') && w.ends_with(']'))
                    .map(|w| w.trim_matches(['[', ']']).to_string())
            });
        MachineFacts {
            arch: std::env::consts::ARCH,
            cpu_model,
            cpu_family: if self.use_cpuid { cpuid_family() } else { None },
            kernel: if self.use_sysconf {
                kernel_release()
            } else {
                read_trim(&self.path("proc/sys/kernel/osrelease"))
            },
            logical_cores: if self.use_sysconf {
                std::thread::available_parallelism().ok().map(|n| n.get())
            } else {
                None
            },
            page_size: if self.use_sysconf {
                sysconf_positive(libc::_SC_PAGESIZE)
            } else {
                None
            },
            thp_mode,
            caches,
        }
    }
}

/// The 1, 5 and 15 minute load averages from /proc/loadavg.
pub fn load_average() -> Option<[f64; 3]> {
    let s = fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = s.split_whitespace().map(|w| w.parse::<f64>());
    Some([it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?])
}

fn read_trim(p: &Path) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

fn sysconf_positive(name: libc::c_int) -> Option<u64> {
    // SAFETY: sysconf only reads a configuration value.
    let v = unsafe { libc::sysconf(name) };
    (v > 0).then_some(v as u64)
}

fn kernel_release() -> Option<String> {
    // SAFETY: utsname is plain old data; uname fills it.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut u) } != 0 {
        return None;
    }
    let field = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c.to_ne_bytes()[0]) // c_char is i8 on x86-64, u8 on aarch64
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Some(format!("{} {}", field(&u.sysname), field(&u.release)))
}

#[cfg(target_env = "gnu")]
fn sysconf_caches() -> Vec<CacheReading> {
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
            size: sysconf_positive(s),
            line: sysconf_positive(ln),
            ways: sysconf_positive(a),
        })
        .filter(|r| r.size.is_some() || r.line.is_some())
        .collect()
}

#[cfg(not(target_env = "gnu"))]
fn sysconf_caches() -> Vec<CacheReading> {
    Vec::new()
}

#[cfg(target_arch = "x86_64")]
fn cpuid_vendor() -> (String, u32) {
    use std::arch::x86_64::__cpuid;
    let r = __cpuid(0);
    let mut v = Vec::with_capacity(12);
    for w in [r.ebx, r.edx, r.ecx] {
        v.extend_from_slice(&w.to_le_bytes());
    }
    (String::from_utf8_lossy(&v).into_owned(), r.eax)
}

/// Deterministic cache parameters: Intel leaf 4, AMD leaf 0x8000001D (same layout).
#[cfg(target_arch = "x86_64")]
fn cpuid_caches() -> Vec<CacheReading> {
    use std::arch::x86_64::{__cpuid, __cpuid_count};
    let (vendor, max_basic) = cpuid_vendor();
    let leaf = if vendor == "AuthenticAMD" || vendor == "HygonGenuine" {
        let max_ext = __cpuid(0x8000_0000).eax;
        if max_ext < 0x8000_001D {
            return Vec::new();
        }
        0x8000_001D
    } else {
        if max_basic < 4 {
            return Vec::new();
        }
        4
    };
    let mut out: Vec<CacheReading> = Vec::new();
    for sub in 0..16 {
        let r = __cpuid_count(leaf, sub);
        let kind = r.eax & 0x1f;
        if kind == 0 {
            break;
        }
        if kind == 2 {
            continue; // instruction cache
        }
        let level = ((r.eax >> 5) & 0x7) as u8;
        let line = u64::from((r.ebx & 0xfff) + 1);
        let parts = u64::from(((r.ebx >> 12) & 0x3ff) + 1);
        let ways = u64::from(((r.ebx >> 22) & 0x3ff) + 1);
        let sets = u64::from(r.ecx) + 1;
        let fully = r.eax & (1 << 9) != 0;
        if !out.iter().any(|o| o.level == level) {
            out.push(CacheReading {
                level,
                size: Some(ways * parts * line * sets),
                line: Some(line),
                ways: Some(if fully { sets * ways } else { ways }),
            });
        }
    }
    out
}

#[cfg(target_arch = "x86_64")]
fn cpuid_brand() -> Option<String> {
    use std::arch::x86_64::__cpuid;
    if __cpuid(0x8000_0000).eax < 0x8000_0004 {
        return None;
    }
    let mut b = Vec::new();
    for leaf in 0x8000_0002u32..=0x8000_0004 {
        let r = __cpuid(leaf);
        for w in [r.eax, r.ebx, r.ecx, r.edx] {
            b.extend_from_slice(&w.to_le_bytes());
        }
    }
    let s = String::from_utf8_lossy(&b)
        .trim_matches(char::from(0))
        .trim()
        .to_string();
    (!s.is_empty()).then_some(s)
}

#[cfg(target_arch = "x86_64")]
fn cpuid_family() -> Option<String> {
    use std::arch::x86_64::__cpuid;
    let (vendor, _) = cpuid_vendor();
    let eax = __cpuid(1).eax;
    let base_family = (eax >> 8) & 0xf;
    let family = if base_family == 0xf {
        base_family + ((eax >> 20) & 0xff)
    } else {
        base_family
    };
    let model = if base_family == 0xf || base_family == 0x6 {
        ((eax >> 12) & 0xf0) | ((eax >> 4) & 0xf)
    } else {
        (eax >> 4) & 0xf
    };
    let name = match (vendor.as_str(), family) {
        ("AuthenticAMD", 0x17) => " (Zen / Zen 2)",
        ("AuthenticAMD", 0x19)
            if (0x10..0x20).contains(&model)
                || (0x60..0x80).contains(&model)
                || (0xa0..0xb0).contains(&model) =>
        {
            " (Zen 4)"
        }
        ("AuthenticAMD", 0x19) => " (Zen 3 or Zen 4)",
        ("AuthenticAMD", 0x1a) => " (Zen 5)",
        ("GenuineIntel", 6) => " (Intel Core / Xeon family 6)",
        _ => "",
    };
    Some(format!(
        "{vendor} family {family:#x} model {model:#x}{name}"
    ))
}

#[cfg(not(target_arch = "x86_64"))]
fn cpuid_caches() -> Vec<CacheReading> {
    Vec::new()
}
#[cfg(not(target_arch = "x86_64"))]
fn cpuid_brand() -> Option<String> {
    None
}
#[cfg(not(target_arch = "x86_64"))]
fn cpuid_family() -> Option<String> {
    None
}

/// The smallest data cache line in the hierarchy, from CTR_EL0 (aarch64 Linux lets user
/// programs read it; DminLine is log2 of the line size in 4-byte words).
#[cfg(target_arch = "aarch64")]
fn ctr_el0_line() -> Option<u64> {
    let ctr: u64;
    // SAFETY: Linux traps or permits EL0 reads of CTR_EL0; it permits them on every kernel we know.
    unsafe { std::arch::asm!("mrs {0}, ctr_el0", out(reg) ctr, options(nomem, nostack)) };
    let dminline = (ctr >> 16) & 0xf;
    Some(4u64 << dminline)
}

#[cfg(not(target_arch = "aarch64"))]
fn ctr_el0_line() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_tree(levels: &[(u8, &str, &str, &str, &str)]) -> tempdir::Dir {
        let d = tempdir::Dir::new();
        let cache = d.path().join("sys/devices/system/cpu/cpu0/cache");
        for (i, (level, kind, size, line, ways)) in levels.iter().enumerate() {
            let idx = cache.join(format!("index{i}"));
            fs::create_dir_all(&idx).unwrap();
            fs::write(idx.join("level"), format!("{level}\n")).unwrap();
            fs::write(idx.join("type"), format!("{kind}\n")).unwrap();
            fs::write(idx.join("size"), format!("{size}\n")).unwrap();
            fs::write(idx.join("coherency_line_size"), format!("{line}\n")).unwrap();
            fs::write(idx.join("ways_of_associativity"), format!("{ways}\n")).unwrap();
        }
        d
    }

    /// A tiny self-deleting temporary directory, so tests need no extra crate.
    mod tempdir {
        use std::path::{Path, PathBuf};
        use std::sync::atomic::{AtomicUsize, Ordering};
        static N: AtomicUsize = AtomicUsize::new(0);
        pub struct Dir(PathBuf);
        impl Dir {
            pub fn new() -> Dir {
                let p = std::env::temp_dir().join(format!(
                    "measure-facts-{}-{}",
                    std::process::id(),
                    N.fetch_add(1, Ordering::SeqCst)
                ));
                let _ = std::fs::remove_dir_all(&p);
                std::fs::create_dir_all(&p).unwrap();
                Dir(p)
            }
            pub fn path(&self) -> &Path {
                &self.0
            }
        }
        impl Drop for Dir {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    #[test]
    fn sysfs_sizes_parse() {
        assert_eq!(parse_sysfs_size("32K"), Some(32 * 1024));
        assert_eq!(parse_sysfs_size("1024K\n"), Some(1024 * 1024));
        assert_eq!(parse_sysfs_size("16M"), Some(16 << 20));
        assert_eq!(parse_sysfs_size("2G"), Some(2 << 30));
        assert_eq!(parse_sysfs_size("65536"), Some(65536));
        assert_eq!(parse_sysfs_size(""), None);
        assert_eq!(parse_sysfs_size("K"), None);
        assert_eq!(parse_sysfs_size("0K"), None);
        assert_eq!(parse_sysfs_size("lots"), None);
        assert_eq!(parse_sysfs_size("-4K"), None);
    }

    #[test]
    fn sysfs_tree_is_read_and_instruction_caches_skipped() {
        let d = fake_tree(&[
            (1, "Data", "48K", "64", "12"),
            (1, "Instruction", "32K", "64", "8"),
            (2, "Unified", "1024K", "64", "16"),
            (3, "Unified", "32768K", "64", "16"),
        ]);
        let f = FactsReader::with_roots(d.path()).read();
        assert_eq!(f.caches.len(), 3);
        let l1 = f.cache(1).unwrap();
        assert_eq!(l1.size.value, Some(48 * 1024));
        assert_eq!(l1.size.source, Some(Source::Sysfs));
        assert_eq!(l1.ways.value, Some(12));
        assert_eq!(f.cache(3).unwrap().size.value, Some(32 << 20));
        assert_eq!(f.line_size().value, Some(64));
        assert_eq!(f.where_fits(40 * 1024), "L1d");
        assert_eq!(f.where_fits(64 << 20), "memory");
    }

    #[test]
    fn empty_tree_gives_unknown_not_zero() {
        let d = tempdir::Dir::new();
        let f = FactsReader::with_roots(d.path()).read();
        assert!(f.caches.is_empty());
        assert_eq!(f.line_size().value, None);
        assert_eq!(f.where_fits(4096), "?");
        assert!(f.describe().iter().any(|l| l.contains("unknown")));
        assert_eq!(f.largest_cache(), None);
    }

    #[test]
    fn android_style_empty_size_fields_are_unknown() {
        let d = fake_tree(&[(1, "Data", "", "", ""), (2, "Unified", "", "", "")]);
        let f = FactsReader::with_roots(d.path()).read();
        assert_eq!(f.caches.len(), 2);
        assert!(f.caches.iter().all(|c| c.size.value.is_none()));
        assert_eq!(f.cache(2).unwrap().size.show_bytes(), "unknown");
        assert_eq!(f.where_fits(4096), "?");
    }

    #[test]
    fn precedence_sysfs_then_cpuid_then_sysconf_with_disagreement() {
        let sysfs = vec![CacheReading {
            level: 3,
            size: Some(32 << 20),
            line: Some(64),
            ways: Some(16),
        }];
        let cpuid = vec![CacheReading {
            level: 3,
            size: Some(32 << 20),
            line: Some(64),
            ways: Some(16),
        }];
        let sysconf = vec![
            CacheReading {
                level: 3,
                size: Some(320 << 20),
                line: Some(64),
                ways: None,
            },
            CacheReading {
                level: 4,
                size: None,
                line: Some(64),
                ways: None,
            },
        ];
        let m = merge_caches(&[
            (Source::Sysconf, sysconf.clone()),
            (Source::Sysfs, sysfs),
            (Source::Cpuid, cpuid.clone()),
        ]);
        let l3 = m.iter().find(|c| c.level == 3).unwrap();
        assert_eq!(l3.size.value, Some(32 << 20));
        assert_eq!(l3.size.source, Some(Source::Sysfs));
        assert_eq!(l3.size.disagreements(), vec![(Source::Sysconf, 320 << 20)]);
        assert!(l3.line.disagreements().is_empty());
        // without sysfs, CPUID wins over sysconf
        let m = merge_caches(&[(Source::Cpuid, cpuid), (Source::Sysconf, sysconf.clone())]);
        assert_eq!(
            m.iter().find(|c| c.level == 3).unwrap().size.source,
            Some(Source::Cpuid)
        );
        // with sysconf alone, sysconf is used; a level it knows only the line of has unknown size
        let m = merge_caches(&[(Source::Sysconf, sysconf)]);
        let l4 = m.iter().find(|c| c.level == 4).unwrap();
        assert_eq!(l4.size.value, None);
        assert_eq!(l4.size.show_bytes(), "unknown");
    }

    #[test]
    fn disagreement_is_described_and_in_meta() {
        let d = fake_tree(&[(3, "Unified", "32M", "64", "16")]);
        let mut f = FactsReader::with_roots(d.path()).read();
        let sysfs = FactsReader::with_roots(d.path()).sysfs_caches();
        f.caches = merge_caches(&[
            (Source::Sysfs, sysfs),
            (
                Source::Sysconf,
                vec![CacheReading {
                    level: 3,
                    size: Some(320 << 20),
                    ..Default::default()
                }],
            ),
        ]);
        let text = f.describe().join("\n");
        assert!(
            text.contains("sysconf says 320 MiB, but 32 MiB was used (sysfs)"),
            "{text}"
        );
        assert!(
            f.meta()
                .iter()
                .any(|(k, v)| k == "l3_size_bytes_sysconf" && v.starts_with("335544320"))
        );
    }

    #[test]
    fn thp_mode_from_tree() {
        let d = tempdir::Dir::new();
        let p = d.path().join("sys/kernel/mm/transparent_hugepage");
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join("enabled"), "always [madvise] never\n").unwrap();
        assert_eq!(
            FactsReader::with_roots(d.path()).read().thp_mode.as_deref(),
            Some("madvise")
        );
    }

    #[test]
    fn human_bytes_forms() {
        assert_eq!(human_bytes(48 * 1024), "48 KiB");
        assert_eq!(human_bytes(32 << 20), "32 MiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(100), "100 B");
    }

    #[test]
    fn real_machine_reports_something_with_sources() {
        let f = MachineFacts::read();
        for c in &f.caches {
            if let Some(v) = c.size.value {
                assert!(v > 0);
                assert!(c.size.source.is_some());
            }
        }
    }
}
