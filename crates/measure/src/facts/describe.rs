//! How facts are written down: for people ([`MachineFacts::describe`], sizes as
//! [`human_bytes`], "unknown" for what no source knows) and for `#META` lines
//! ([`MachineFacts::meta`]). A disagreement between sources is always shown, never hidden.

use super::{Fact, MachineFacts};

impl Fact {
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

impl MachineFacts {
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
        out.push(self.describe_dtlb());
        out
    }

    /// "dTLB entries   : 4 KiB pages L1 64, L2 2048; 2 MiB pages L1 64, L2 2048 (cpuid)" (the
    /// data TLBs), each count that no source gives as "unknown" (within 98 columns even then).
    fn describe_dtlb(&self) -> String {
        let t = &self.dtlb;
        let facts = [&t.l1_4k, &t.l2_4k, &t.l1_2m, &t.l2_2m];
        let mut sources: Vec<String> = facts
            .iter()
            .filter_map(|f| f.source.map(|s| s.to_string()))
            .collect();
        sources.dedup();
        if sources.is_empty() {
            return "dTLB entries   : unknown (only CPUID gives them, on AMD and Intel x86-64)"
                .into();
        }
        let n = |f: &Fact| f.value.map_or("unknown".into(), |v| v.to_string());
        format!(
            "dTLB entries   : 4 KiB pages L1 {}, L2 {}; 2 MiB pages L1 {}, L2 {} ({})",
            n(&t.l1_4k),
            n(&t.l2_4k),
            n(&t.l1_2m),
            n(&t.l2_2m),
            sources.join(", ")
        )
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
        for (key, f) in self.dtlb.entries() {
            m.push((
                key.to_string(),
                match (f.value, f.source) {
                    (Some(v), Some(s)) => format!("{v} {s}"),
                    _ => "unknown".into(),
                },
            ));
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_tree::fake_tree;
    use super::super::{CacheReading, DataTlbs, FactsReader, Source, TlbReading, merge_caches};
    use super::*;

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
    fn tlb_sizes_are_described_and_in_meta_or_unknown() {
        let d = fake_tree(&[]);
        let mut f = FactsReader::with_roots(d.path()).read();
        let text = f.describe().join("\n");
        assert!(text.contains("dTLB entries   : unknown"), "{text}");
        let meta = f.meta();
        assert!(
            meta.iter()
                .any(|(k, v)| k == "dtlb_l2_4k_entries" && v == "unknown")
        );
        f.dtlb = DataTlbs::from_reading(
            Source::Cpuid,
            TlbReading {
                l1_4k: Some(64),
                l2_4k: Some(2048),
                l1_2m: Some(64),
                l2_2m: None,
            },
        );
        let text = f.describe().join("\n");
        assert!(
            text.contains(
                "dTLB entries   : 4 KiB pages L1 64, L2 2048; 2 MiB pages L1 64, L2 unknown \
                 (cpuid)"
            ),
            "{text}"
        );
        let meta = f.meta();
        let get = |k: &str| meta.iter().find(|m| m.0 == k).map(|m| m.1.as_str());
        assert_eq!(get("dtlb_l1_4k_entries"), Some("64 cpuid"));
        assert_eq!(get("dtlb_l2_4k_entries"), Some("2048 cpuid"));
        assert_eq!(get("dtlb_l2_2m_entries"), Some("unknown"));
        // The widest it can be, one count known: within 100 columns with its indent.
        f.dtlb = DataTlbs::from_reading(
            Source::Cpuid,
            TlbReading {
                l2_4k: Some(4095),
                ..Default::default()
            },
        );
        assert!(f.describe_dtlb().len() <= 98, "{}", f.describe_dtlb());
    }

    #[test]
    fn shown_values_carry_their_source() {
        let f = Fact::from_readings(vec![(Source::Cpuid, 64), (Source::Sysfs, 48 << 10)]);
        assert_eq!(f.show_bytes(), "48 KiB (sysfs)");
        assert_eq!(f.show_plain(), "49152 (sysfs)");
        assert_eq!(Fact::default().show_plain(), "unknown");
    }

    #[test]
    fn human_bytes_forms() {
        assert_eq!(human_bytes(48 * 1024), "48 KiB");
        assert_eq!(human_bytes(32 << 20), "32 MiB");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(100), "100 B");
    }
}
