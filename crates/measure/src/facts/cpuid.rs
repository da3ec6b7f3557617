//! The CPU itself, asked through the CPUID instruction (x86-64 only; the whole module is
//! compiled there and nowhere else). Cache parameters come from Intel's leaf 4 or AMD's
//! leaf 0x8000001D (the same layout), the brand string from leaves 0x80000002..4, and the
//! family and model from leaf 1; the data TLBs' entry counts from AMD's leaves 0x80000005
//! and 0x80000006 or Intel's leaf 0x18. The register decoding is kept apart from the asking,
//! so it can be tested with known register values.

use super::{CacheReading, TlbReading};
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

/// How many ways an AMD L2 TLB field's 4-bit associativity code means (AMD64 Architecture
/// Programmer's Manual, volume 3, CPUID Fn8000_0006): `Some(0)` for a disabled TLB, `None`
/// for fully associative or a code the manual does not give a count for.
pub fn amd_l2_ways(code: u32) -> Option<u32> {
    match code & 0xf {
        0 => Some(0),
        1 => Some(1),
        2 => Some(2),
        3 => Some(3),
        4 => Some(4),
        5 => Some(6),
        6 => Some(8),
        8 => Some(16),
        0xa => Some(32),
        0xb => Some(48),
        0xc => Some(64),
        0xd => Some(96),
        0xe => Some(128),
        _ => None,
    }
}

/// One AMD L1 TLB field: entries in bits 23:16 of `reg`, associativity in bits 31:24, where
/// 0 is reserved (no TLB described).
fn amd_l1_dtlb(reg: u32) -> Option<u64> {
    let (ways, entries) = (reg >> 24, (reg >> 16) & 0xff);
    (ways != 0 && entries != 0).then_some(u64::from(entries))
}

/// One AMD L2 TLB field: entries in bits 27:16 of `reg`, the associativity code in bits
/// 31:28, where 0 means the TLB is disabled.
fn amd_l2_dtlb(reg: u32) -> Option<u64> {
    let (code, entries) = (reg >> 28, (reg >> 16) & 0xfff);
    (amd_l2_ways(code) != Some(0) && entries != 0).then_some(u64::from(entries))
}

/// Decodes the data TLBs from AMD's leaf 0x80000005 (`l1_eax`: 2 MiB pages, `l1_ebx`: 4 KiB
/// pages) and leaf 0x80000006 (`l2_eax`, `l2_ebx`, the same split). The instruction TLBs in
/// the low halves are skipped.
pub fn decode_amd_tlbs(l1_eax: u32, l1_ebx: u32, l2_eax: u32, l2_ebx: u32) -> TlbReading {
    TlbReading {
        l1_4k: amd_l1_dtlb(l1_ebx),
        l2_4k: amd_l2_dtlb(l2_ebx),
        l1_2m: amd_l1_dtlb(l1_eax),
        l2_2m: amd_l2_dtlb(l2_eax),
    }
}

/// One sub-leaf of Intel's leaf 0x18 (deterministic address translation parameters): the
/// level, whether it holds data translations, which page sizes, and its entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntelTlbLeaf {
    pub level: u8,
    /// A data, unified or load-only TLB (types 1, 3, 4), not an instruction or store-only one.
    pub data: bool,
    pub pages_4k: bool,
    pub pages_2m: bool,
    pub entries: u64,
}

/// Decodes one sub-leaf of leaf 0x18 from EBX (page sizes in bits 0..3, ways in 31:16), ECX
/// (sets) and EDX (type in 4:0, level in 7:5); `None` for an invalid sub-leaf (type 0).
pub fn decode_intel_tlb_leaf(ebx: u32, ecx: u32, edx: u32) -> Option<IntelTlbLeaf> {
    let kind = edx & 0x1f;
    if kind == 0 {
        return None;
    }
    Some(IntelTlbLeaf {
        level: ((edx >> 5) & 0x7) as u8,
        data: matches!(kind, 1 | 3 | 4),
        pages_4k: ebx & 1 != 0,
        pages_2m: ebx & 2 != 0,
        entries: u64::from(ebx >> 16) * u64::from(ecx),
    })
}

/// The data TLBs from Intel's sub-leaves: per level and page size, the first data TLB
/// listed that holds that size.
pub fn intel_tlbs(leaves: &[IntelTlbLeaf]) -> TlbReading {
    let pick = |level: u8, size: fn(&IntelTlbLeaf) -> bool| {
        leaves
            .iter()
            .find(|l| l.data && l.level == level && size(l) && l.entries > 0)
            .map(|l| l.entries)
    };
    TlbReading {
        l1_4k: pick(1, |l| l.pages_4k),
        l2_4k: pick(2, |l| l.pages_4k),
        l1_2m: pick(1, |l| l.pages_2m),
        l2_2m: pick(2, |l| l.pages_2m),
    }
}

/// The data TLBs this CPU reports: AMD (and Hygon) through leaves 0x80000005/6, Intel
/// through leaf 0x18; nothing for another vendor or a CPU without those leaves.
pub fn dtlbs() -> TlbReading {
    let (vendor, max_basic) = vendor();
    if vendor == "AuthenticAMD" || vendor == "HygonGenuine" {
        if __cpuid(0x8000_0000).eax < 0x8000_0006 {
            return TlbReading::default();
        }
        let (l1, l2) = (__cpuid(0x8000_0005), __cpuid(0x8000_0006));
        return decode_amd_tlbs(l1.eax, l1.ebx, l2.eax, l2.ebx);
    }
    if vendor != "GenuineIntel" || max_basic < 0x18 {
        return TlbReading::default();
    }
    let last = __cpuid_count(0x18, 0).eax.min(64);
    let leaves: Vec<IntelTlbLeaf> = (0..=last)
        .filter_map(|sub| {
            let r = __cpuid_count(0x18, sub);
            decode_intel_tlb_leaf(r.ebx, r.ecx, r.edx)
        })
        .collect();
    intel_tlbs(&leaves)
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
    fn amd_tlb_leaves_decode() {
        // Leaves 0x80000005 and 0x80000006 as an EPYC 7003 (Zen 3, family 0x19 model 0x01)
        // answers them, on the VM this project was built on. AMD's Zen 3 optimisation guide
        // gives the same: a 64-entry fully associative L1 DTLB for every page size and a
        // 2048-entry L2 DTLB for 4 KiB and for 2 MiB pages.
        let t = decode_amd_tlbs(0xff40_ff40, 0xff40_ff40, 0x4800_2200, 0x6800_4200);
        assert_eq!(
            t,
            TlbReading {
                l1_4k: Some(64),
                l2_4k: Some(2048),
                l1_2m: Some(64),
                l2_2m: Some(2048),
            }
        );
        // Built from Zen 4's sizes in AMD's optimisation guide: a 72-entry L1 DTLB (0x48) and
        // a 3072-entry L2 DTLB (0xc00) whose associativity code (9) names no way count; the
        // entries still count. A disabled L2 TLB (code 0) and a reserved L1 associativity (0)
        // describe nothing.
        let z4 = decode_amd_tlbs(0, 0xff48_ff40, 0x0800_2200, 0x9c00_4200);
        assert_eq!((z4.l1_4k, z4.l2_4k), (Some(72), Some(3072)));
        assert_eq!((z4.l1_2m, z4.l2_2m), (None, None));
    }

    #[test]
    fn amd_l2_associativity_codes() {
        let ways: Vec<Option<u32>> = (0..16).map(amd_l2_ways).collect();
        assert_eq!(ways[0], Some(0), "disabled");
        assert_eq!(ways[5], Some(6));
        assert_eq!(ways[6], Some(8));
        assert_eq!(ways[8], Some(16));
        assert_eq!(ways[0xb], Some(48));
        assert_eq!(ways[0xd], Some(96));
        assert_eq!((ways[7], ways[9], ways[0xf]), (None, None, None));
    }

    #[test]
    fn intel_tlb_leaves_decode() {
        // A load-only L1 DTLB, 4 KiB pages, 16 sets of 6 ways (96 entries)...
        let l1 = decode_intel_tlb_leaf((6 << 16) | 1, 16, (1 << 5) | 4).unwrap();
        assert_eq!((l1.level, l1.data, l1.entries), (1, true, 96));
        // ... a store-only one (not read: the walk only loads), a 32-entry 2 MiB L1 DTLB ...
        let st = decode_intel_tlb_leaf((4 << 16) | 1, 4, (1 << 5) | 5).unwrap();
        let big = decode_intel_tlb_leaf((4 << 16) | 2, 8, (1 << 5) | 1).unwrap();
        // ... an L1 instruction TLB, and a unified L2 of 2048 entries (256 sets, 8 ways).
        let it = decode_intel_tlb_leaf((8 << 16) | 1, 32, (1 << 5) | 2).unwrap();
        let l2 = decode_intel_tlb_leaf((8 << 16) | 3, 256, (2 << 5) | 3).unwrap();
        assert!(!it.data && !st.data);
        assert_eq!(decode_intel_tlb_leaf(0, 0, 0), None);
        let t = intel_tlbs(&[it, st, l1, big, l2]);
        assert_eq!(
            t,
            TlbReading {
                l1_4k: Some(96),
                l2_4k: Some(2048),
                l1_2m: Some(32),
                l2_2m: Some(2048),
            }
        );
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
        let t = dtlbs();
        for n in [t.l1_4k, t.l2_4k, t.l1_2m, t.l2_2m].into_iter().flatten() {
            assert!((1..=65536).contains(&n), "{n} entries");
        }
    }
}
