//! The kernel's own files, read under a root (`/` normally, a fake tree in tests): the cache
//! tree under `/sys`, the CPU model from `/proc/cpuinfo`, the transparent-huge-page mode,
//! the kernel release and the load average. Every file may be missing or odd; a value that
//! cannot be read is `None`, never 0.

use super::CacheReading;
use std::fs;
use std::path::Path;

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

/// The data and unified caches as sysfs lists them for cpu0 (instruction caches skipped;
/// the first entry of a level wins).
pub fn caches(root: &Path) -> Vec<CacheReading> {
    let dir = root.join("sys/devices/system/cpu/cpu0/cache");
    let mut out: Vec<CacheReading> = Vec::new();
    for i in 0..32 {
        let idx = dir.join(format!("index{i}"));
        let Some(level) = read_trim(&idx.join("level")).and_then(|s| s.parse::<u8>().ok()) else {
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

/// The CPU's name from `/proc/cpuinfo`: the `model name` line on x86, `Hardware` or `Model`
/// on Arm boards.
pub fn cpu_model(root: &Path) -> Option<String> {
    let cpuinfo = fs::read_to_string(root.join("proc/cpuinfo")).ok()?;
    cpu_model_in(&cpuinfo)
}

/// [`cpu_model`] on the text of a cpuinfo file.
pub fn cpu_model_in(cpuinfo: &str) -> Option<String> {
    cpuinfo
        .lines()
        .find(|l| {
            l.starts_with("model name") || l.starts_with("Hardware") || l.starts_with("Model")
        })
        .and_then(|l| l.split_once(':'))
        .map(|(_, v)| v.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The bracketed word of `/sys/kernel/mm/transparent_hugepage/enabled` ("madvise").
pub fn thp_mode(root: &Path) -> Option<String> {
    read_trim(&root.join("sys/kernel/mm/transparent_hugepage/enabled")).and_then(|s| {
        s.split_whitespace()
            .find(|w| w.starts_with('[') && w.ends_with(']'))
            .map(|w| w.trim_matches(['[', ']']).to_string())
    })
}

/// The kernel release from `/proc/sys/kernel/osrelease` ("6.8.0-45-generic").
pub fn kernel_release(root: &Path) -> Option<String> {
    read_trim(&root.join("proc/sys/kernel/osrelease"))
}

/// The 1, 5 and 15 minute load averages from `proc/loadavg` under `root`.
pub fn load_average(root: &Path) -> Option<[f64; 3]> {
    parse_loadavg(&fs::read_to_string(root.join("proc/loadavg")).ok()?)
}

/// The first three numbers of a `/proc/loadavg` line.
pub fn parse_loadavg(text: &str) -> Option<[f64; 3]> {
    let mut it = text.split_whitespace().map(|w| w.parse::<f64>());
    Some([it.next()?.ok()?, it.next()?.ok()?, it.next()?.ok()?])
}

fn read_trim(p: &Path) -> Option<String> {
    fs::read_to_string(p).ok().map(|s| s.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facts::test_tree::{Dir, fake_tree};

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
    fn caches_skip_instruction_and_keep_the_first_of_a_level() {
        let d = fake_tree(&[
            (1, "Data", "48K", "64", "12"),
            (1, "Instruction", "32K", "64", "8"),
            (2, "Unified", "1M", "64", "16"),
            (2, "Unified", "2M", "128", "8"),
        ]);
        let c = caches(d.path());
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].size, Some(48 << 10));
        assert_eq!(c[1].size, Some(1 << 20));
        assert_eq!(c[1].line, Some(64));
        assert!(caches(&d.path().join("nowhere")).is_empty());
    }

    #[test]
    fn cpu_model_from_cpuinfo() {
        let x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9B45\n";
        assert_eq!(cpu_model_in(x86).as_deref(), Some("AMD EPYC 9B45"));
        let arm = "processor\t: 0\nBogoMIPS\t: 38.40\n\nHardware\t: BCM2835\n";
        assert_eq!(cpu_model_in(arm).as_deref(), Some("BCM2835"));
        assert_eq!(cpu_model_in("model name\t:   \n"), None);
        assert_eq!(cpu_model_in(""), None);
        let d = Dir::new();
        assert_eq!(cpu_model(d.path()), None);
        fs::create_dir_all(d.path().join("proc")).unwrap();
        fs::write(d.path().join("proc/cpuinfo"), x86).unwrap();
        assert_eq!(cpu_model(d.path()).as_deref(), Some("AMD EPYC 9B45"));
    }

    #[test]
    fn thp_mode_and_kernel_release_from_tree() {
        let d = Dir::new();
        assert_eq!(thp_mode(d.path()), None);
        assert_eq!(kernel_release(d.path()), None);
        let p = d.path().join("sys/kernel/mm/transparent_hugepage");
        fs::create_dir_all(&p).unwrap();
        fs::write(p.join("enabled"), "always [madvise] never\n").unwrap();
        assert_eq!(thp_mode(d.path()).as_deref(), Some("madvise"));
        fs::write(p.join("enabled"), "always madvise never\n").unwrap();
        assert_eq!(thp_mode(d.path()), None);
        let k = d.path().join("proc/sys/kernel");
        fs::create_dir_all(&k).unwrap();
        fs::write(k.join("osrelease"), "6.8.0-45-generic\n").unwrap();
        assert_eq!(
            kernel_release(d.path()).as_deref(),
            Some("6.8.0-45-generic")
        );
    }

    #[test]
    fn load_average_parses_and_refuses() {
        assert_eq!(
            parse_loadavg("0.17 0.52 0.69 1/234 5678\n"),
            Some([0.17, 0.52, 0.69])
        );
        assert_eq!(parse_loadavg("0.17 0.52"), None);
        assert_eq!(parse_loadavg("0.17 x 0.69"), None);
        let d = Dir::new();
        assert_eq!(load_average(d.path()), None);
        fs::create_dir_all(d.path().join("proc")).unwrap();
        fs::write(d.path().join("proc/loadavg"), "1.00 2.00 3.00 1/2 3\n").unwrap();
        assert_eq!(load_average(d.path()), Some([1.0, 2.0, 3.0]));
    }
}
