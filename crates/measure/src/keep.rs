//! Keeping results alive, so the optimiser cannot delete what we meant to measure.
//!
//! Two tools, as in the appendix: [`black_box`] (an opaque use of a value: the compiler
//! must assume it is read) and a [`Checksum`] whose final value is printed and compared with
//! what it must be, so a loop that silently stopped running is caught, not timed.
//! Beyond the appendix, [`opaque_i64`], [`opaque_f64`] and [`opaque_f32`] hide a value that
//! stays in a register, for code whose shape (scalar, one operation per step) is the subject.

pub use std::hint::black_box;

/// An order-sensitive running checksum of results (FNV-1a over the bit patterns).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checksum(u64);

impl Default for Checksum {
    fn default() -> Self {
        Checksum(0xcbf2_9ce4_8422_2325)
    }
}

impl Checksum {
    pub fn new() -> Self {
        Self::default()
    }
    /// Folds a 64-bit value in.
    pub fn add_u64(&mut self, v: u64) {
        for b in v.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    /// Folds a float in by its bit pattern (so -0.0 and 0.0 differ, as they should).
    pub fn add_f64(&mut self, v: f64) {
        self.add_u64(v.to_bits());
    }
    pub fn value(&self) -> u64 {
        self.0
    }
}

/// The body of an `opaque_*` function: an empty inline-asm statement that names `$x` as read
/// and written, with the comment text (`{0}` the register) and register class per
/// architecture; elsewhere [`black_box`].
macro_rules! opaque {
    ($x:ident,
     x86_64: $x86:literal in $x86_reg:ident, aarch64: $arm:literal in $arm_reg:ident) => {{
        #[cfg(target_arch = "x86_64")]
        // SAFETY: an empty asm block that names `x` as read and written; it touches no memory.
        unsafe {
            std::arch::asm!($x86, inout($x86_reg) $x, options(nomem, nostack, preserves_flags));
        }
        #[cfg(target_arch = "aarch64")]
        // SAFETY: as above.
        unsafe {
            std::arch::asm!($arm, inout($arm_reg) $x, options(nomem, nostack, preserves_flags));
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            $x = black_box($x);
        }
        $x
    }};
}

/// Hides a value from the optimiser while it stays in a register: an empty inline-asm
/// statement that claims to read and rewrite `x`. It costs no instruction, but the compiler can
/// no longer see what the value is, so it cannot vectorise a chain through it, fold it, or
/// turn a loop around it into other code. [`black_box`] does a similar job through memory (a
/// store and a load), which would add latency to the very chain being timed.
///
/// Used where the *shape* of the code is the subject: a branchless sum that must stay
/// scalar, an arithmetic chain that must stay one operation per step.
#[inline(always)]
pub fn opaque_i64(mut x: i64) -> i64 {
    opaque!(x, x86_64: "/* {0} */" in reg, aarch64: "/* {0} */" in reg)
}

/// [`opaque_i64`] for an `f64` held in a floating-point/vector register.
#[inline(always)]
pub fn opaque_f64(mut x: f64) -> f64 {
    opaque!(x, x86_64: "/* {0} */" in xmm_reg, aarch64: "/* {0:d} */" in vreg)
}

/// [`opaque_i64`] for an `f32` held in a floating-point/vector register.
#[inline(always)]
pub fn opaque_f32(mut x: f32) -> f32 {
    opaque!(x, x86_64: "/* {0} */" in xmm_reg, aarch64: "/* {0:s} */" in vreg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_is_order_sensitive_and_deterministic() {
        let mut a = Checksum::new();
        a.add_u64(1);
        a.add_u64(2);
        let mut b = Checksum::new();
        b.add_u64(2);
        b.add_u64(1);
        assert_ne!(a, b);
        let mut c = Checksum::new();
        c.add_u64(1);
        c.add_u64(2);
        assert_eq!(a.value(), c.value());
        let mut z = Checksum::new();
        z.add_f64(0.0);
        let mut nz = Checksum::new();
        nz.add_f64(-0.0);
        assert_ne!(z, nz);
    }

    #[test]
    fn opaque_values_pass_through_unchanged() {
        for v in [0i64, 1, -1, i64::MAX, i64::MIN, 0x1234_5678_9abc] {
            assert_eq!(opaque_i64(v), v);
        }
        for v in [0.0f64, -0.0, 1.5, f64::MIN_POSITIVE / 8.0, f64::MAX] {
            assert_eq!(opaque_f64(v).to_bits(), v.to_bits());
        }
        for v in [0.0f32, -2.25, f32::MIN_POSITIVE / 8.0] {
            assert_eq!(opaque_f32(v).to_bits(), v.to_bits());
        }
    }
}
