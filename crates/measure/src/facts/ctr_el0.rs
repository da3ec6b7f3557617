//! The CTR_EL0 register (aarch64 only; the whole module is compiled there and nowhere
//! else): the smallest data cache line in the hierarchy, the way glibc itself answers the
//! line size on Arm. Linux lets user programs read it.

/// The smallest data cache line in bytes: DminLine (bits 16..19) is log2 of the line size
/// in 4-byte words.
pub fn line() -> Option<u64> {
    let ctr: u64;
    // SAFETY: Linux traps or permits EL0 reads of CTR_EL0; it permits them on every kernel we know.
    unsafe { std::arch::asm!("mrs {0}, ctr_el0", out(reg) ctr, options(nomem, nostack)) };
    Some(line_from(ctr))
}

/// The line size encoded in a CTR_EL0 value.
pub fn line_from(ctr: u64) -> u64 {
    4u64 << ((ctr >> 16) & 0xf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dminline_decodes() {
        assert_eq!(line_from(4 << 16), 64);
        assert_eq!(line_from(5 << 16), 128);
        // qemu-aarch64's CPU: 0x80038003, DminLine 3, 32-byte lines.
        assert_eq!(line_from(0x8003_8003), 32);
        assert!(line().is_some_and(|l| l >= 16));
    }

    /// The register's line, read on this machine, against sysfs: DminLine is the smallest
    /// data line of any cache, so it is at most the L1d line sysfs reports; sysfs wins, and a
    /// disagreement is kept and printed (under qemu-aarch64 on x86-64: 32 against 64).
    #[test]
    fn the_line_is_checked_against_sysfs() {
        use crate::facts::{FactsReader, Source};
        let ctr = line().unwrap();
        assert!(ctr.is_power_of_two() && (16..=2048).contains(&ctr), "{ctr}");
        let sysfs = FactsReader::with_roots("/")
            .sysfs_caches()
            .into_iter()
            .find(|c| c.level == 1)
            .and_then(|c| c.line);
        let Some(sysfs) = sysfs else {
            eprintln!("skipped: sysfs reports no L1d line here; CTR_EL0 says {ctr}");
            return;
        };
        assert!(
            ctr <= sysfs,
            "CTR_EL0 says {ctr}, above sysfs's L1d line {sysfs}"
        );
        let facts = FactsReader::system().read();
        let l1 = facts.cache(1).expect("an L1d");
        assert_eq!(l1.line.value, Some(sysfs));
        assert!(l1.line.readings.contains(&(Source::CtrEl0, ctr)));
        let said = facts.describe().join("\n");
        if ctr == sysfs {
            assert!(!said.contains("ctr_el0 says"), "{said}");
        } else {
            assert!(l1.line.disagreements().contains(&(Source::CtrEl0, ctr)));
            let line = format!("ctr_el0 says {ctr}, but {sysfs} was used (sysfs)");
            assert!(said.contains(&line), "{said}");
        }
    }
}
