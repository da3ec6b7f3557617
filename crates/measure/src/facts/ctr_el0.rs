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
        assert!(line().is_some_and(|l| l >= 16));
    }
}
