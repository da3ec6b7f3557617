//! Machine facts, each with the place it came from.
//!
//! Cache sizes are read from sysfs first (what the kernel recorded at boot), then from the
//! CPU itself through CPUID (Intel leaf 4, AMD leaf 0x8000001D), then from glibc's
//! `sysconf`. Every value carries its source, and every other source that disagrees is kept
//! so it can be printed: on the machines this project was written on, `sysconf` reports an
//! L3 ten or twelve times larger than sysfs and CPUID do. The data TLBs' entry counts have one
//! source, CPUID (AMD's leaves 0x80000005/6, Intel's leaf 0x18). A value no source knows is `None`
//! and is printed as "unknown", never as 0 bytes. On aarch64 the line size falls back to the
//! CTR_EL0 register, the way glibc itself answers it.
//!
//! One file per source, each compiled only where that source exists:
//!
//! | module | the source |
//! |---|---|
//! | `sysfs` | the kernel's files under `/sys` and `/proc`, read under a root so tests can fake it |
//! | `cpuid` | the CPUID instruction (x86-64 only) |
//! | `sysconf` | the C library: `sysconf` (the page size; the caches on glibc only) and `uname` |
//! | `ctr_el0` | the CTR_EL0 register (aarch64 only) |
//! | `describe` | how facts are written: for people, and for `#META` lines |
//!
//! This file holds the model (a [`Fact`] with its readings, [`CacheLevel`], [`MachineFacts`])
//! and the [`FactsReader`] that asks each source in turn.
//!
//! The test seam: [`FactsReader::with_roots`] points the reader at a fake sysfs and proc tree
//! and can switch the CPUID and `sysconf` sources off.

use std::fmt;
use std::path::{Path, PathBuf};

mod describe;
pub(crate) mod sysconf;
mod sysfs;

#[cfg(target_arch = "x86_64")]
mod cpuid;
/// No CPUID off x86-64: the source answers nothing.
#[cfg(not(target_arch = "x86_64"))]
mod cpuid {
    pub fn caches() -> Vec<super::CacheReading> {
        Vec::new()
    }
    pub fn brand() -> Option<String> {
        None
    }
    pub fn family() -> Option<String> {
        None
    }
    pub fn dtlbs() -> super::TlbReading {
        super::TlbReading::default()
    }
}

#[cfg(target_arch = "aarch64")]
mod ctr_el0;
/// No CTR_EL0 off aarch64: the source answers nothing.
#[cfg(not(target_arch = "aarch64"))]
mod ctr_el0 {
    pub fn line() -> Option<u64> {
        None
    }
}

pub use describe::human_bytes;
pub use sysfs::parse_sysfs_size;

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

/// The data TLBs' entry counts as one source reports them: L1 and L2, for 4 KiB and for
/// 2 MiB pages; `None` where it says nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TlbReading {
    pub l1_4k: Option<u64>,
    pub l2_4k: Option<u64>,
    pub l1_2m: Option<u64>,
    pub l2_2m: Option<u64>,
}

/// The data TLBs with provenance: entries per level and page size.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DataTlbs {
    pub l1_4k: Fact,
    pub l2_4k: Fact,
    pub l1_2m: Fact,
    pub l2_2m: Fact,
}

impl DataTlbs {
    /// The readings of `source`, each a [`Fact`] of its own.
    pub fn from_reading(source: Source, r: TlbReading) -> DataTlbs {
        let fact =
            |v: Option<u64>| Fact::from_readings(v.map(|v| (source, v)).into_iter().collect());
        DataTlbs {
            l1_4k: fact(r.l1_4k),
            l2_4k: fact(r.l2_4k),
            l1_2m: fact(r.l1_2m),
            l2_2m: fact(r.l2_2m),
        }
    }

    /// Each entry count with its `#META` key: `dtlb_l1_4k_entries`, `dtlb_l2_4k_entries`,
    /// `dtlb_l1_2m_entries`, `dtlb_l2_2m_entries` (the keys in [`crate::schema::tlb`]).
    pub fn entries(&self) -> [(&'static str, &Fact); 4] {
        use crate::schema::tlb;
        [
            (tlb::L1_4K_ENTRIES, &self.l1_4k),
            (tlb::L2_4K_ENTRIES, &self.l2_4k),
            (tlb::L1_2M_ENTRIES, &self.l1_2m),
            (tlb::L2_2M_ENTRIES, &self.l2_2m),
        ]
    }
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
    /// The data TLBs' entry counts (CPUID only; unknown elsewhere).
    pub dtlb: DataTlbs,
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

    /// Whether a working set of `bytes` is beyond the largest reported cache: its loads go to
    /// memory, and a block over it reads the memory reference ([`crate::disturb::Site`]).
    /// `false` where no cache size is known.
    pub fn beyond_caches(&self, bytes: u64) -> bool {
        self.largest_cache().is_some_and(|l| bytes > l)
    }

    /// The caches whose size is reported: `(name, bytes)` ("L1d", 49152), in reported order.
    pub fn reported_caches(&self) -> Vec<(String, u64)> {
        self.caches
            .iter()
            .filter_map(|c| c.size.value.map(|v| (c.name(), v)))
            .collect()
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

    /// The data and unified caches as sysfs lists them (instruction caches skipped).
    pub fn sysfs_caches(&self) -> Vec<CacheReading> {
        sysfs::caches(&self.root)
    }

    /// Every switched-on source's cache readings, in the order they are asked.
    pub fn cache_sources(&self) -> Vec<(Source, Vec<CacheReading>)> {
        let mut sources = vec![(Source::Sysfs, self.sysfs_caches())];
        if self.use_cpuid {
            sources.push((Source::Cpuid, cpuid::caches()));
        }
        if self.use_sysconf {
            sources.push((Source::Sysconf, sysconf::caches()));
        }
        if self.use_ctr_el0
            && let Some(line) = ctr_el0::line()
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
        sources
    }

    /// Reads everything.
    pub fn read(&self) -> MachineFacts {
        let root = self.root.as_path();
        MachineFacts {
            arch: std::env::consts::ARCH,
            cpu_model: sysfs::cpu_model(root)
                .or_else(|| self.use_cpuid.then(cpuid::brand).flatten()),
            cpu_family: if self.use_cpuid {
                cpuid::family()
            } else {
                None
            },
            kernel: if self.use_sysconf {
                sysconf::kernel_release()
            } else {
                sysfs::kernel_release(root)
            },
            logical_cores: if self.use_sysconf {
                std::thread::available_parallelism().ok().map(|n| n.get())
            } else {
                None
            },
            page_size: if self.use_sysconf {
                sysconf::page_size()
            } else {
                None
            },
            thp_mode: sysfs::thp_mode(root),
            caches: merge_caches(&self.cache_sources()),
            dtlb: if self.use_cpuid {
                DataTlbs::from_reading(Source::Cpuid, cpuid::dtlbs())
            } else {
                DataTlbs::default()
            },
        }
    }
}

/// The 1, 5 and 15 minute load averages from /proc/loadavg.
pub fn load_average() -> Option<[f64; 3]> {
    sysfs::load_average(Path::new("/"))
}

/// A fake sysfs tree in a self-deleting temporary directory, so tests need no extra crate.
#[cfg(test)]
pub(crate) mod test_tree {
    use std::fs;
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
            let _ = fs::remove_dir_all(&p);
            fs::create_dir_all(&p).unwrap();
            Dir(p)
        }
        pub fn path(&self) -> &Path {
            &self.0
        }
    }

    impl Drop for Dir {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    /// A cpu0 cache tree with one `index<i>` per `(level, type, size, line, ways)`.
    pub fn fake_tree(levels: &[(u8, &str, &str, &str, &str)]) -> Dir {
        let d = Dir::new();
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
}

#[cfg(test)]
mod tests {
    use super::test_tree::{Dir, fake_tree};
    use super::*;
    use std::fs;

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
        assert!(!f.beyond_caches(32 << 20) && f.beyond_caches((32 << 20) + 1));
    }

    #[test]
    fn empty_tree_gives_unknown_not_zero() {
        let d = Dir::new();
        let f = FactsReader::with_roots(d.path()).read();
        assert!(f.caches.is_empty());
        assert_eq!(f.line_size().value, None);
        assert_eq!(f.where_fits(4096), "?");
        assert!(f.describe().iter().any(|l| l.contains("unknown")));
        assert_eq!(f.largest_cache(), None);
        assert!(!f.beyond_caches(u64::MAX), "no size known: never beyond");
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
    fn thp_mode_from_tree() {
        let d = Dir::new();
        let p = d.path().join("sys/kernel/mm/transparent_hugepage");
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join("enabled"), "always [madvise] never\n").unwrap();
        assert_eq!(
            FactsReader::with_roots(d.path()).read().thp_mode.as_deref(),
            Some("madvise")
        );
    }

    #[test]
    fn a_fake_tree_asks_only_sysfs_and_the_system_asks_every_source() {
        let d = fake_tree(&[(1, "Data", "48K", "64", "12")]);
        let fake = FactsReader::with_roots(d.path()).cache_sources();
        assert_eq!(fake.len(), 1);
        assert_eq!(fake[0].0, Source::Sysfs);
        let real = FactsReader::system().cache_sources();
        let asked: Vec<Source> = real.iter().map(|s| s.0).collect();
        assert_eq!(asked[..3], [Source::Sysfs, Source::Cpuid, Source::Sysconf]);
        assert_eq!(
            asked.contains(&Source::CtrEl0),
            cfg!(target_arch = "aarch64")
        );
    }

    #[test]
    fn load_average_reads_this_machine() {
        let l = load_average().expect("Linux has /proc/loadavg");
        assert!(l.iter().all(|x| x.is_finite() && *x >= 0.0));
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
