//! The floating-point control register: flush-to-zero and denormals-are-zero.
//!
//! The remedy the appendix only describes. On x86-64 the SSE control register MXCSR has two
//! bits for it: FTZ (bit 15) writes a denormal *result* as zero, DAZ (bit 6) reads a denormal
//! *input* as zero. On AArch64 the FPCR's FZ bit (24) does both. [`with_flush`] sets the bits,
//! reads the register back to see that they took, runs the work, restores the old value and
//! reads back again, so the restore is verified, not assumed.
//!
//! The timed work must be a separate `#[inline(never)]` function called inside the closure:
//! the compiler assumes the default floating-point mode and may move arithmetic that it can
//! see; it cannot move a call across the register writes, which it must treat as side effects.

/// What one switch did: the register before, while the work ran, and after the restore.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Switch {
    pub before: u64,
    pub during: u64,
    pub after: u64,
}

impl Switch {
    /// Whether every flush bit was set while the work ran.
    pub fn took(&self) -> bool {
        self.during & FLUSH_BITS == FLUSH_BITS
    }
    /// Whether the register holds exactly its old value again.
    pub fn restored(&self) -> bool {
        self.after == self.before
    }
}

#[cfg(target_arch = "x86_64")]
mod imp {
    pub const REGISTER: Option<&str> = Some("MXCSR");
    pub const NAMES: &str = "FTZ (bit 15) and DAZ (bit 6)";
    pub const FLUSH_BITS: u64 = (1 << 15) | (1 << 6);

    pub fn read() -> u64 {
        let mut v: u32 = 0;
        // SAFETY: stores the 32-bit MXCSR into a valid local.
        unsafe {
            std::arch::asm!("stmxcsr dword ptr [{}]", in(reg) &mut v, options(nostack, preserves_flags));
        }
        u64::from(v)
    }

    pub fn write(v: u64) {
        let v = v as u32;
        // SAFETY: loads MXCSR from a valid local; only values read from MXCSR with control
        // bits changed are ever written, so no reserved bit is set.
        unsafe {
            std::arch::asm!("ldmxcsr dword ptr [{}]", in(reg) &v, options(nostack, preserves_flags));
        }
    }
}

#[cfg(target_arch = "aarch64")]
mod imp {
    pub const REGISTER: Option<&str> = Some("FPCR");
    pub const NAMES: &str = "FZ (bit 24)";
    pub const FLUSH_BITS: u64 = 1 << 24;

    pub fn read() -> u64 {
        let v: u64;
        // SAFETY: reads the floating-point control register.
        unsafe {
            std::arch::asm!("mrs {}, fpcr", out(reg) v, options(nomem, nostack, preserves_flags));
        }
        v
    }

    pub fn write(v: u64) {
        // SAFETY: writes back a value read from FPCR with only the FZ bit changed.
        unsafe {
            std::arch::asm!("msr fpcr, {}", in(reg) v, options(nostack, preserves_flags));
        }
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod imp {
    pub const REGISTER: Option<&str> = None;
    pub const NAMES: &str = "";
    pub const FLUSH_BITS: u64 = 0;
    pub fn read() -> u64 {
        0
    }
    pub fn write(_: u64) {}
}

pub use imp::{FLUSH_BITS, NAMES};

/// The control register's name, if this architecture has one this program knows.
pub fn register() -> Option<&'static str> {
    imp::REGISTER
}

/// The control register's current value, if known.
#[cfg(test)]
pub fn read() -> Option<u64> {
    register().map(|_| imp::read())
}

/// Runs `f` with flush-to-zero (and denormals-are-zero) on, then restores the old mode.
/// `None` where the architecture has no known control for it.
pub fn with_flush<R>(f: impl FnOnce() -> R) -> Option<(R, Switch)> {
    register()?;
    let before = imp::read();
    imp::write(before | FLUSH_BITS);
    let during = imp::read();
    let r = f();
    imp::write(before);
    let after = imp::read();
    Some((
        r,
        Switch {
            before,
            during,
            after,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hint::black_box;

    #[inline(never)]
    fn times(a: f64, b: f64) -> f64 {
        black_box(a) * black_box(b)
    }

    #[test]
    fn flush_to_zero_turns_a_denormal_product_into_zero_and_is_undone() {
        let tiny = f64::MIN_POSITIVE / 8.0;
        assert!(tiny > 0.0 && !tiny.is_normal());
        let plain = times(tiny, 1.0);
        assert_eq!(
            plain, tiny,
            "without the mode, a denormal times one is itself"
        );
        let Some((flushed, sw)) = with_flush(|| times(tiny, 1.0)) else {
            return; // no known control register on this architecture: nothing to check
        };
        assert!(sw.took(), "the flush bits did not take: {sw:?}");
        assert!(sw.restored(), "the register was not restored: {sw:?}");
        assert_eq!(
            sw.before & FLUSH_BITS,
            0,
            "the test process starts in IEEE mode"
        );
        assert_eq!(
            flushed, 0.0,
            "with the mode on, the denormal is read or written as zero"
        );
        assert_eq!(
            times(tiny, 1.0),
            tiny,
            "after the restore, denormals are back"
        );
        assert_eq!(read(), Some(sw.before));
    }

    /// AArch64: the switch sets FPCR's FZ (bit 24) and nothing else, and the restore clears
    /// it again, read back from the register both times (run under qemu-aarch64 by `cargo
    /// xtask cross-test`).
    #[cfg(target_arch = "aarch64")]
    #[test]
    fn fpcr_fz_is_set_alone_and_restored() {
        assert_eq!(register(), Some("FPCR"));
        assert_eq!(FLUSH_BITS, 1 << 24);
        let ((), sw) = with_flush(|| ()).expect("FPCR is known");
        assert_eq!(sw.during ^ sw.before, 1 << 24, "only FZ changed: {sw:?}");
        assert_eq!(sw.after, sw.before, "{sw:?}");
        assert_eq!(read(), Some(sw.before));
    }
}
