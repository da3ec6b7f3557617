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

#[cfg(test)]
mod tests {
    use super::super::test_tree::fake_tree;
    use super::super::{CacheReading, FactsReader, Source, merge_caches};
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
