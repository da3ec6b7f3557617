//! The physical limit of the first-level cache: how many bytes one core can load and store
//! per cycle, the number of load (store) operations per cycle times the vector width.
//!
//! The vector width is read from the machine at run time (CPUID, through
//! `is_x86_feature_detected!`). The number of load and store operations per cycle is not:
//! no instruction reports it. It comes from the small table below, keyed by the CPU's vendor,
//! family and model (read with CPUID by `measure::facts`), and every line that prints it says
//! so. Where the table has no entry the limit is "unknown", and the verdict that would
//! compare with it says that instead of comparing with a guess.
//!
//! Sources of the table: AMD's Software Optimization Guides for families 17h (Zen, Zen 2),
//! 19h (Zen 3, Zen 4) and 1Ah (Zen 5); Intel's Optimization Reference Manual (Skylake-SP and
//! later Xeon cores); the load/store bandwidth measurements Chips and Cheese published for
//! these cores. A 512-bit operation on Zen 4 is split into two 256-bit halves, so its limit is
//! the same number of bytes as two 256-bit loads.

/// The first-level cache's limit for one width on one core.
#[derive(Debug, Clone, PartialEq)]
pub struct Limit {
    /// The core's name in the table ("Zen 4").
    pub core: &'static str,
    /// Loads per cycle at this width, and the bytes each moves.
    pub loads: (f64, usize),
    /// Stores per cycle at this width, and the bytes each moves.
    pub stores: (f64, usize),
}

impl Limit {
    pub fn load_bytes(&self) -> f64 {
        self.loads.0 * self.loads.1 as f64
    }
    pub fn store_bytes(&self) -> f64 {
        self.stores.0 * self.stores.1 as f64
    }
    /// How the numbers were obtained, for the report.
    pub fn source(&self) -> String {
        format!(
            "a table for {} in this program, not read from this machine",
            self.core
        )
    }
}

/// Vendor, family and model out of `measure::facts`'s CPUID line
/// (`"AuthenticAMD family 0x19 model 0x11 (Zen 4)"`).
pub fn parse_family(s: &str) -> Option<(String, u32, u32)> {
    // The name in parentheses may repeat a keyword ("(Intel Core / Xeon family 6)").
    let s = s.split('(').next().unwrap_or("");
    let mut it = s.split_whitespace();
    let vendor = it.next()?.to_string();
    let hex = |w: Option<&str>| u32::from_str_radix(w?.trim_start_matches("0x"), 16).ok();
    let mut family = None;
    let mut model = None;
    while let Some(w) = it.next() {
        match w {
            "family" => family = hex(it.next()),
            "model" => model = hex(it.next()),
            _ => {}
        }
    }
    Some((vendor, family?, model?))
}

/// The limit for the CPU described by `cpu_family` (see [`parse_family`]) for accesses of
/// `w` bytes (the vector width), if this program's table has it.
pub fn lookup(cpu_family: Option<&str>, w: usize) -> Option<Limit> {
    let (vendor, family, model) = parse_family(cpu_family?)?;
    // (core, loads and stores per cycle at vector widths of up to 16, 32 and 64 bytes); None
    // where the table does not say (no such width on that core, or no figure we trust).
    type Row = (&'static str, [Option<(f64, f64)>; 3]);
    let row: Row = match (vendor.as_str(), family) {
        ("AuthenticAMD", 0x17) if model < 0x30 => {
            ("Zen / Zen+", [Some((2.0, 1.0)), Some((1.0, 0.5)), None])
        }
        ("AuthenticAMD", 0x17) => ("Zen 2", [Some((2.0, 1.0)), Some((2.0, 1.0)), None]),
        ("AuthenticAMD", 0x19) if zen4(model) => (
            "Zen 4",
            [Some((3.0, 2.0)), Some((2.0, 1.0)), Some((1.0, 0.5))],
        ),
        ("AuthenticAMD", 0x19) => ("Zen 3", [Some((3.0, 2.0)), Some((2.0, 1.0)), None]),
        ("AuthenticAMD", 0x1a) => ("Zen 5", [None, None, Some((2.0, 1.0))]),
        ("GenuineIntel", 6) if matches!(model, 0x55 | 0x6a | 0x6c | 0x8f | 0xcf) => (
            "Intel Xeon (Skylake-SP to Emerald Rapids)",
            [None, None, Some((2.0, 1.0))],
        ),
        _ => return None,
    };
    let (loads, stores) = match w {
        0..=16 => row.1[0],
        17..=32 => row.1[1],
        _ => row.1[2],
    }?;
    // 8-byte scalar code issues as many operations as 16-byte vectors, each moving 8 bytes.
    Some(Limit {
        core: row.0,
        loads: (loads, w),
        stores: (stores, w),
    })
}

/// Zen 4's models within family 19h (Zen 3 shares the family).
fn zen4(model: u32) -> bool {
    (0x10..0x20).contains(&model) || (0x60..0x80).contains(&model) || (0xa0..0xb0).contains(&model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_facts_line_is_parsed() {
        assert_eq!(
            parse_family("AuthenticAMD family 0x19 model 0x11 (Zen 4)"),
            Some(("AuthenticAMD".into(), 0x19, 0x11))
        );
        assert_eq!(
            parse_family("GenuineIntel family 0x6 model 0x8f (Intel Core / Xeon family 6)")
                .map(|p| p.2),
            Some(0x8f)
        );
        assert_eq!(parse_family("unknown"), None);
        assert_eq!(parse_family(""), None);
    }

    #[test]
    fn known_cores_have_a_limit_and_others_do_not() {
        let z4 = lookup(Some("AuthenticAMD family 0x19 model 0x11 (Zen 4)"), 64).unwrap();
        assert_eq!(z4.core, "Zen 4");
        // One 512-bit load a cycle: 64 bytes, the same as two 256-bit loads.
        assert_eq!(z4.load_bytes(), 64.0);
        assert_eq!(
            lookup(Some("AuthenticAMD family 0x19 model 0x11"), 32)
                .unwrap()
                .load_bytes(),
            64.0
        );
        let z5 = lookup(Some("AuthenticAMD family 0x1a model 0x2 (Zen 5)"), 64).unwrap();
        assert_eq!(z5.load_bytes(), 128.0);
        assert_eq!(z5.store_bytes(), 64.0);
        // Zen 3 has no AVX-512: no row at 64 bytes.
        assert!(lookup(Some("AuthenticAMD family 0x19 model 0x21"), 64).is_none());
        assert!(lookup(Some("GenuineIntel family 0x6 model 0x3c"), 32).is_none());
        assert!(lookup(None, 32).is_none());
        assert!(z4.source().contains("not read from this machine"));
    }
}
