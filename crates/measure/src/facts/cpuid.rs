//! The CPU itself, asked through the CPUID instruction (x86-64 only; the whole module is
//! compiled there and nowhere else). Cache parameters come from Intel's leaf 4 or AMD's
//! leaf 0x8000001D (the same layout), the brand string from leaves 0x80000002..4, and the
//! family and model from leaf 1. The register decoding is kept apart from the asking, so it
//! can be tested with known register values.

use super::CacheReading;
use std::arch::x86_64::{__cpuid, __cpuid_count};

/// The vendor string ("AuthenticAMD", "GenuineIntel") and the highest basic leaf.
fn vendor() -> (String, u32) {
    let r = __cpuid(0);
    let mut v = Vec::with_capacity(12);
    for w in [r.ebx, r.edx, r.ecx] {
        v.extend_from_slice(&w.to_le_bytes());
    }
    (String::from_utf8_lossy(&v).into_owned(), r.eax)
}

/// What one sub-leaf of the deterministic cache leaf describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// No more caches (type 0): the list ends here.
    End,
    /// An instruction cache (type 2), which this project skips.
    Instruction,
    /// A data or unified cache.
    Data(CacheReading),
}

/// Decodes one sub-leaf of leaf 4 / 0x8000001D from its EAX, EBX and ECX registers.
pub fn decode_cache_leaf(eax: u32, ebx: u32, ecx: u32) -> Leaf {
    match eax & 0x1f {
        0 => return Leaf::End,
        2 => return Leaf::Instruction,
        _ => {}
    }
    let level = ((eax >> 5) & 0x7) as u8;
    let line = u64::from((ebx & 0xfff) + 1);
    let parts = u64::from(((ebx >> 12) & 0x3ff) + 1);
    let ways = u64::from(((ebx >> 22) & 0x3ff) + 1);
    let sets = u64::from(ecx) + 1;
    let fully = eax & (1 << 9) != 0;
    Leaf::Data(CacheReading {
        level,
        size: Some(ways * parts * line * sets),
        line: Some(line),
        ways: Some(if fully { sets * ways } else { ways }),
    })
}

/// The data and unified caches the CPU reports (the first entry of a level wins).
pub fn caches() -> Vec<CacheReading> {
    let (vendor, max_basic) = vendor();
    let leaf = if vendor == "AuthenticAMD" || vendor == "HygonGenuine" {
        if __cpuid(0x8000_0000).eax < 0x8000_001D {
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
        match decode_cache_leaf(r.eax, r.ebx, r.ecx) {
            Leaf::End => break,
            Leaf::Instruction => {}
            Leaf::Data(c) => {
                if !out.iter().any(|o| o.level == c.level) {
                    out.push(c);
                }
            }
        }
    }
    out
}

/// The brand string ("AMD EPYC 9B45"), if the CPU has one.
pub fn brand() -> Option<String> {
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

/// Vendor, family and model, with a family name where we know one.
pub fn family() -> Option<String> {
    let (vendor, _) = vendor();
    Some(family_name(&vendor, __cpuid(1).eax))
}

/// Decodes leaf 1's EAX for `vendor`: "AuthenticAMD family 0x1a model 0x2 (Zen 5)".
pub fn family_name(vendor: &str, eax: u32) -> String {
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
    let name = match (vendor, family) {
        ("AuthenticAMD", 0x17) => " (Zen / Zen 2)",
        ("AuthenticAMD", 0x19)
            if (0x10..0x20).contains(&model)
                || (0x60..0x80).contains(&model)
                || (0xa0..0xb0).contains(&model) =>
        {
            " (Zen 4)"
        }
        // Milan (00h-0Fh), Vermeer (20h-2Fh), Rembrandt and Cezanne (40h-5Fh).
        ("AuthenticAMD", 0x19)
            if model < 0x10 || (0x20..0x30).contains(&model) || (0x40..0x60).contains(&model) =>
        {
            " (Zen 3)"
        }
        ("AuthenticAMD", 0x19) => " (Zen 3 or Zen 4)",
        ("AuthenticAMD", 0x1a) => " (Zen 5)",
        ("GenuineIntel", 6) => " (Intel Core / Xeon family 6)",
        _ => "",
    };
    format!("{vendor} family {family:#x} model {model:#x}{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_leaves_decode() {
        // A 48 KiB, 12-way, 64-byte-line L1 data cache: 64 sets.
        let l1d = decode_cache_leaf(0x121, (11 << 22) | 63, 63);
        assert_eq!(
            l1d,
            Leaf::Data(CacheReading {
                level: 1,
                size: Some(48 << 10),
                line: Some(64),
                ways: Some(12),
            })
        );
        assert_eq!(decode_cache_leaf(0x122, 0, 0), Leaf::Instruction);
        assert_eq!(decode_cache_leaf(0, 0, 0), Leaf::End);
        // Fully associative: the ways are every line of the cache.
        let Leaf::Data(f) = decode_cache_leaf(0x263, (1 << 22) | 63, 7) else {
            panic!("a data leaf");
        };
        assert_eq!((f.level, f.ways, f.size), (3, Some(16), Some(1024)));
    }

    #[test]
    fn family_names() {
        // Zen 5 (family 0x1a: base 0xf + extended 0x0b), model 0x02.
        assert_eq!(
            family_name("AuthenticAMD", 0x00B0_0F20),
            "AuthenticAMD family 0x1a model 0x2 (Zen 5)"
        );
        // Zen 4 Genoa: family 0x19, model 0x11.
        assert_eq!(
            family_name("AuthenticAMD", 0x00A1_0F11),
            "AuthenticAMD family 0x19 model 0x11 (Zen 4)"
        );
        assert_eq!(
            family_name("AuthenticAMD", 0x00A0_0F11),
            "AuthenticAMD family 0x19 model 0x1 (Zen 3)"
        );
        // A model no table here names stays a choice.
        assert_eq!(
            family_name("AuthenticAMD", 0x00A3_0F11),
            "AuthenticAMD family 0x19 model 0x31 (Zen 3 or Zen 4)"
        );
        assert_eq!(
            family_name("GenuineIntel", 0x000B_06A2),
            "GenuineIntel family 0x6 model 0xba (Intel Core / Xeon family 6)"
        );
        assert_eq!(
            family_name("Other", 0x0000_0521),
            "Other family 0x5 model 0x2"
        );
    }

    #[test]
    fn this_cpu_answers_consistently() {
        let (v, _) = vendor();
        assert_eq!(v.len(), 12);
        assert!(family().is_some_and(|f| f.starts_with(&v)));
        for c in caches() {
            assert!(c.size.is_some_and(|s| s > 0) && c.line.is_some_and(|l| l >= 16));
        }
    }
}
