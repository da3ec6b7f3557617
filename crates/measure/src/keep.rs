//! Keeping results alive, so the optimiser cannot delete what we meant to measure.
//!
//! Two tools, as in the appendix: [`black_box`] (an opaque use of a value: the compiler
//! must assume it is read) and a [`Checksum`] whose final value is printed and compared with
//! what it must be, so a loop that silently stopped running is caught, not timed.

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
}
