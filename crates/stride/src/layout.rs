//! The same data laid out two ways: an array of structs (AoS) and a struct of arrays (SoA).
//!
//! The particle is the appendix's: six `f64` and two `i32`, `#[repr(C)]` so its layout is
//! C's (56 bytes, no padding: checked at compile time). Both kernels add up `x` in order,
//! one dependent addition per element, exactly as the C loops do (no reassociation, so no
//! vectorised sum); only where the `x` values lie differs.

/// One particle, laid out as in the appendix's C struct.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct Particle {
    pub x: f64,
    pub y: f64,
    pub z: f64,
    pub vx: f64,
    pub vy: f64,
    pub vz: f64,
    pub id: i32,
    pub flags: i32,
}

/// The size the appendix prints, checked when the program is compiled.
pub const PARTICLE_BYTES: usize = 56;
const _: () = assert!(std::mem::size_of::<Particle>() == PARTICLE_BYTES);
const _: () = assert!(std::mem::offset_of!(Particle, x) == 0);

/// The bytes of one particle the sum actually uses (`x`).
pub const USED_BYTES: usize = std::mem::size_of::<f64>();

/// The bytes both layouts of `n` particles take together.
pub fn bytes(n: usize) -> usize {
    n * (PARTICLE_BYTES + USED_BYTES)
}

/// Builds both layouts of `n` particles with `x = i / 2` (as the appendix does), or says
/// "not enough memory" where they cannot be allocated.
pub fn build(n: usize) -> Result<(Vec<Particle>, Vec<f64>), String> {
    let mut aos = Vec::new();
    let mut xs = Vec::new();
    let no_room = |what: &str, b: usize| {
        format!(
            "not enough memory: {} for the {what} could not be allocated",
            measure::fmt::bytes(b as u64)
        )
    };
    aos.try_reserve_exact(n)
        .map_err(|_| no_room("array of structs", n * PARTICLE_BYTES))?;
    xs.try_reserve_exact(n)
        .map_err(|_| no_room("x array", n * USED_BYTES))?;
    for i in 0..n {
        let x = i as f64 * 0.5;
        aos.push(Particle {
            x,
            y: 1.0,
            z: 1.0,
            vx: 1.0,
            vy: 1.0,
            vz: 1.0,
            id: i as i32,
            flags: 0,
        });
        xs.push(x);
    }
    Ok((aos, xs))
}

/// The exact sum of `x` over the first `n` particles: `0.5 * n(n-1)/2`. Every partial sum
/// is a multiple of 0.5 far below 2^53, so floating-point addition in order gives it exactly.
pub fn expected_sum(n: usize) -> f64 {
    let n = n as f64;
    0.5 * n * (n - 1.0) / 2.0
}

/// The exact sum of `x` over particles `a..b` (summed from 0.0 in order): the same
/// multiples of 0.5, as exact as [`expected_sum`].
pub fn expected_range(a: usize, b: usize) -> f64 {
    let tri = |n: u64| n * n.saturating_sub(1) / 2;
    0.5 * (tri(b as u64) - tri(a as u64)) as f64
}

/// Sums `x` from the array of structs: one 8-byte load every 56 bytes.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn stride_sum_aos_x(ps: &[Particle]) -> f64 {
    let mut s = 0.0;
    for p in ps {
        s += p.x;
    }
    s
}

/// Sums the separate `x` array: one 8-byte load every 8 bytes.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn stride_sum_soa_x(xs: &[f64]) -> f64 {
    let mut s = 0.0;
    for &x in xs {
        s += x;
    }
    s
}

/// Bytes brought in per element when only `x` is read from the structs: every line holds an
/// `x` while lines are at least as long as a struct (so the whole array comes in, 56 bytes per
/// element); with shorter lines, one line per element.
pub fn fetched_per_element(line: u64) -> u64 {
    (PARTICLE_BYTES as u64).min(line)
}

/// Useful bytes per fetched line when only `x` is read from the structs (8 of every 56).
pub fn used_per_line(line: u64) -> f64 {
    line as f64 * USED_BYTES as f64 / fetched_per_element(line) as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_layouts_hold_the_same_values_and_sum_exactly() {
        let (aos, xs) = build(10_000).unwrap();
        assert!(aos.iter().zip(&xs).all(|(p, x)| p.x == *x));
        assert!(
            aos.iter()
                .all(|p| p.y + p.z + p.vx + p.vy + p.vz == 5.0 && p.flags == 0)
        );
        assert_eq!(aos[9_999].id, 9_999);
        assert_eq!(stride_sum_aos_x(&aos), expected_sum(10_000));
        assert_eq!(stride_sum_soa_x(&xs), expected_sum(10_000));
        assert_eq!(stride_sum_aos_x(&aos[0..10_000]), expected_range(0, 10_000));
        assert_eq!(
            stride_sum_soa_x(&xs[3_000..7_001]),
            expected_range(3_000, 7_001)
        );
        assert_eq!(expected_range(5, 5), 0.0);
        assert_eq!(bytes(10), 640);
        assert!(
            build(usize::MAX / 64).is_err(),
            "too many particles is an error, not an abort"
        );
        // 4M particles stay exact as well.
        assert_eq!(expected_sum(4 << 20), (4_194_304u64 * 4_194_303 / 4) as f64);
    }

    #[test]
    fn bytes_used() {
        assert_eq!(fetched_per_element(64), 56);
        assert!((used_per_line(64) - 9.142857).abs() < 1e-5);
        assert_eq!(fetched_per_element(32), 32);
        assert_eq!(used_per_line(32), 8.0);
        assert!((used_per_line(128) - 18.285714).abs() < 1e-5);
    }
}
