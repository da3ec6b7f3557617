//! The loops fp_cost times. Each is `#[inline(never)]` with a stable symbol, so the program
//! and its tests can read the built code back and check its shape (vectorised or scalar, one
//! operation per step).

use measure::keep::{opaque_f32, opaque_f64};
use std::iter::Sum;
use std::ops::{Add, Mul};

/// The appendix's loop: `a[i] * b[i]` summed into four independent accumulators, so that no
/// addition waits for the one before it. Repeated `reps` times over arrays that fit in L1.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn fp_dot4_f64(a: &[f64], b: &[f64], reps: usize) -> f64 {
    let (mut s0, mut s1, mut s2, mut s3) = (0.0, 0.0, 0.0, 0.0);
    for _ in 0..reps {
        for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
            s0 += x[0] * y[0];
            s1 += x[1] * y[1];
            s2 += x[2] * y[2];
            s3 += x[3] * y[3];
        }
    }
    (s0 + s1) + (s2 + s3)
}

/// What the dot products need of their element type (`f64` and `f32`).
pub trait Real: Copy + Default + Add<Output = Self> + Mul<Output = Self> + Sum {
    /// The value, hidden from the optimiser in a register ([`opaque_f64`], [`opaque_f32`]).
    fn opaque(self) -> Self;
}
impl Real for f64 {
    #[inline(always)]
    fn opaque(self) -> f64 {
        opaque_f64(self)
    }
}
impl Real for f32 {
    #[inline(always)]
    fn opaque(self) -> f32 {
        opaque_f32(self)
    }
}

/// `a . b`, `reps` times, into four accumulators as the appendix writes it, every one kept
/// scalar: each accumulator passes through an opaque register barrier, so the compiler cannot
/// pack two of them into one vector register (what GCC's `-O2` does to the appendix's loop
/// on a recent GCC; the book's build was scalar).
#[inline(always)]
fn dot_four_scalar<T: Real>(a: &[T], b: &[T], reps: usize) -> T {
    let (mut s0, mut s1, mut s2, mut s3) = (T::default(), T::default(), T::default(), T::default());
    for _ in 0..reps {
        for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
            s0 = (s0 + x[0] * y[0]).opaque();
            s1 = (s1 + x[1] * y[1]).opaque();
            s2 = (s2 + x[2] * y[2]).opaque();
            s3 = (s3 + x[3] * y[3]).opaque();
        }
    }
    (s0 + s1) + (s2 + s3)
}

/// The appendix's float-against-double loop in `f64`: four scalar accumulators.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn fp_dot_four_f64(a: &[f64], b: &[f64], reps: usize) -> f64 {
    dot_four_scalar(a, b, reps)
}

/// The same in `f32`.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn fp_dot_four_f32(a: &[f32], b: &[f32], reps: usize) -> f32 {
    dot_four_scalar(a, b, reps)
}

/// The operations of the appendix's per-element table, in its order (`op` of
/// [`crate::switch::fp_per_element`]).
pub const PER_ELEMENT: [(&str, &str); 5] = [
    ("multiply", "a*b"),
    ("add", "a+b"),
    ("divide", "a/b"),
    ("sqrt", "sqrt(a)"),
    ("sin", "sin(a)"),
];

/// What [`crate::switch::fp_per_element`] must return: the same sums in the same order,
/// written plainly.
pub fn per_element_expected(a: &[f64], b: &[f64], reps: usize, op: usize) -> f64 {
    let f = |x: f64, y: f64| match op {
        0 => x * y,
        1 => x + y,
        2 => x / y,
        3 => x.sqrt(),
        _ => x.sin(),
    };
    let mut s = [0.0f64; 4];
    for _ in 0..reps {
        for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
            for k in 0..4 {
                s[k] += f(x[k], y[k]);
            }
        }
    }
    (s[0] + s[1]) + (s[2] + s[3])
}

/// `a . b`, `reps` times, into one accumulator with every addition in source order.
///
/// On AArch64 the compiler packs the (independent) multiplies of consecutive elements two or
/// four to a NEON instruction and unpacks the products for the scalar additions (seen in the
/// built binary under `cargo xtask cross-test`); each product passes an opaque register
/// barrier there, so the loop is the appendix's: one scalar multiply, one dependent add.
#[inline(always)]
fn dot_strict<T: Real>(a: &[T], b: &[T], reps: usize) -> T {
    let mut s = T::default();
    for _ in 0..reps {
        for (&x, &y) in a.iter().zip(b) {
            let p = x * y;
            #[cfg(target_arch = "aarch64")]
            let p = p.opaque();
            s = s + p;
        }
    }
    s
}

/// `a . b`, `reps` times, element `i` into accumulator `i % L`.
#[inline(always)]
fn dot_lanes<T: Real, const L: usize>(a: &[T], b: &[T], reps: usize) -> T {
    let mut acc = [T::default(); L];
    for _ in 0..reps {
        for (x, y) in a.chunks_exact(L).zip(b.chunks_exact(L)) {
            for k in 0..L {
                acc[k] = acc[k] + x[k] * y[k];
            }
        }
    }
    acc.into_iter().sum()
}

/// A dot product in strict order, `f64`: one accumulator, every addition in source order.
/// The compiler may not reorder floating-point additions (the result would change), so this
/// loop stays scalar: one multiply and one dependent add per element.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn fp_dot_strict_f64(a: &[f64], b: &[f64], reps: usize) -> f64 {
    dot_strict(a, b, reps)
}

/// The same in `f32`.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn fp_dot_strict_f32(a: &[f32], b: &[f32], reps: usize) -> f32 {
    dot_strict(a, b, reps)
}

/// Lanes of `f64` accumulators: fill four 16-byte vector registers.
pub const LANES_F64: usize = 8;
/// Lanes of `f32` accumulators: the same four registers hold twice as many.
pub const LANES_F32: usize = 16;

/// The dot product with the reordering granted, `f64`: element `i` goes to accumulator
/// `i % LANES_F64`. This is what `-ffast-math` lets a C compiler do on its own; Rust has no
/// such switch, so the order is written out, and the compiler vectorises the lanes.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn fp_dot_lanes_f64(a: &[f64], b: &[f64], reps: usize) -> f64 {
    dot_lanes::<f64, LANES_F64>(a, b, reps)
}

/// The same in `f32`.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn fp_dot_lanes_f32(a: &[f32], b: &[f32], reps: usize) -> f32 {
    dot_lanes::<f32, LANES_F32>(a, b, reps)
}

/// Independent chains in the throughput kernels: enough to keep every unit busy.
pub const CHAINS: usize = 8;

/// `n` steps of `x = op(x, c)` on each of `K` chains. Every step passes through an opaque
/// register barrier, so the chains stay scalar (one operation per step, not packed into
/// vectors) at no cost in instructions.
#[inline(always)]
fn chains<const K: usize>(
    n: usize,
    mut x: [f64; K],
    c: f64,
    op: impl Fn(f64, f64) -> f64,
) -> [f64; K] {
    for _ in 0..n {
        for v in x.iter_mut() {
            *v = opaque_f64(op(*v, c));
        }
    }
    x
}

/// One operation, as a latency kernel (one dependent chain) and a throughput kernel
/// ([`CHAINS`] independent chains), each in its own loop.
macro_rules! op_kernels {
    ($lat:ident, $tput:ident, $op:expr) => {
        #[inline(never)]
        #[unsafe(no_mangle)]
        pub fn $lat(n: usize, x: f64, c: f64) -> f64 {
            chains::<1>(n, [x], c, $op)[0]
        }
        #[inline(never)]
        #[unsafe(no_mangle)]
        pub fn $tput(n: usize, x: [f64; CHAINS], c: f64) -> [f64; CHAINS] {
            chains(n, x, c, $op)
        }
    };
}

op_kernels!(fp_mul_latency, fp_mul_throughput, |x, c| x * c);
op_kernels!(fp_add_latency, fp_add_throughput, |x, c| x + c);
op_kernels!(fp_div_latency, fp_div_throughput, |x, c| x / c);
// sqrt and sin alone would converge to values where hardware and libm take shortcuts (1.0
// and 0.0), so their chains add a constant each step; the add's latency is measured on its
// own and subtracted.
op_kernels!(fp_sqrt_latency, fp_sqrt_throughput, |x: f64, c| x.sqrt()
    + c);
op_kernels!(fp_sin_latency, fp_sin_throughput, |x: f64, c| x.sin() + c);

pub type Latency = fn(usize, f64, f64) -> f64;
pub type Throughput = fn(usize, [f64; CHAINS], f64) -> [f64; CHAINS];

/// One operation to time.
pub struct Op {
    pub name: &'static str,
    /// What one step of its chain computes.
    pub step: &'static str,
    pub latency: Latency,
    pub throughput: Throughput,
    pub latency_symbol: &'static str,
    pub throughput_symbol: &'static str,
    /// The constant operand.
    pub c: f64,
    /// Whether each step also adds `c` (sqrt, sin).
    pub plus_add: bool,
}

/// A constant with an unremarkable mantissa, so no unit can take a shortcut on it.
const C: f64 = 1.000_000_123_456_789;

pub const OPS: [Op; 5] = [
    Op {
        name: "multiply",
        step: "x = x * c",
        latency: fp_mul_latency,
        throughput: fp_mul_throughput,
        latency_symbol: "fp_mul_latency",
        throughput_symbol: "fp_mul_throughput",
        c: C,
        plus_add: false,
    },
    Op {
        name: "add",
        step: "x = x + c",
        latency: fp_add_latency,
        throughput: fp_add_throughput,
        latency_symbol: "fp_add_latency",
        throughput_symbol: "fp_add_throughput",
        c: C,
        plus_add: false,
    },
    Op {
        name: "divide",
        step: "x = x / c",
        latency: fp_div_latency,
        throughput: fp_div_throughput,
        latency_symbol: "fp_div_latency",
        throughput_symbol: "fp_div_throughput",
        c: C,
        plus_add: false,
    },
    Op {
        name: "sqrt",
        step: "x = sqrt(x) + 1",
        latency: fp_sqrt_latency,
        throughput: fp_sqrt_throughput,
        latency_symbol: "fp_sqrt_latency",
        throughput_symbol: "fp_sqrt_throughput",
        c: 1.0,
        plus_add: true,
    },
    Op {
        name: "sin",
        step: "x = sin(x) + 1",
        latency: fp_sin_latency,
        throughput: fp_sin_throughput,
        latency_symbol: "fp_sin_latency",
        throughput_symbol: "fp_sin_throughput",
        c: 1.0,
        plus_add: true,
    },
];

impl Op {
    /// What a chain started at `x0` must hold after `n` steps (`n` >= 100 for sqrt and sin,
    /// which by then sit at their fixed point), to compare the kernels' results with.
    pub fn expected(&self, n: usize, x0: f64) -> f64 {
        let c = self.c;
        match self.name {
            "multiply" => x0 * c.powf(n as f64),
            "add" => x0 + n as f64 * c,
            "divide" => x0 / c.powf(n as f64),
            // The fixed point of x = sqrt(x) + c: sqrt(x) = (1 + sqrt(1 + 4c)) / 2.
            "sqrt" => {
                let s = (1.0 + (1.0 + 4.0 * c).sqrt()) / 2.0;
                s * s
            }
            // The fixed point of x = sin(x) + c, found by iterating (it contracts quickly).
            _ => {
                let mut x = x0;
                for _ in 0..200 {
                    x = x.sin() + c;
                }
                x
            }
        }
    }

    /// Whether `got` is what `n` steps from `x0` must give (to 1e-6, relative).
    pub fn check(&self, n: usize, x0: f64, got: f64) -> bool {
        let want = self.expected(n, x0);
        got.is_finite() && ((got - want) / want).abs() < 1e-6
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_compute_what_they_say() {
        for op in &OPS {
            let n = 1000;
            assert!(op.check(n, 1.0, (op.latency)(n, 1.0, op.c)), "{}", op.name);
            let x0: [f64; CHAINS] = std::array::from_fn(|k| 1.0 + k as f64 / 8.0);
            let got = (op.throughput)(n, x0, op.c);
            for k in 0..CHAINS {
                assert!(op.check(n, x0[k], got[k]), "{} chain {k}", op.name);
            }
            assert!(
                !op.check(n, 1.0, (op.latency)(n / 2, 1.0, op.c) * 1.01),
                "{}",
                op.name
            );
        }
    }

    #[test]
    fn dot_products_agree() {
        let a: Vec<f64> = (0..64).map(|i| 1.0 + i as f64 / 64.0).collect();
        let b = vec![2.0; 64];
        let exact: f64 = a.iter().map(|x| 2.0 * x).sum::<f64>() * 3.0;
        for got in [
            fp_dot4_f64(&a, &b, 3),
            fp_dot_four_f64(&a, &b, 3),
            fp_dot_strict_f64(&a, &b, 3),
            fp_dot_lanes_f64(&a, &b, 3),
        ] {
            assert!((got - exact).abs() < 1e-9, "{got} vs {exact}");
        }
        let fa: Vec<f32> = a.iter().map(|&x| x as f32).collect();
        let fb = vec![2.0f32; 64];
        for got in [
            fp_dot_four_f32(&fa, &fb, 3),
            fp_dot_strict_f32(&fa, &fb, 3),
            fp_dot_lanes_f32(&fa, &fb, 3),
        ] {
            assert!((f64::from(got) - exact).abs() < 1e-3, "{got} vs {exact}");
        }
    }
}
