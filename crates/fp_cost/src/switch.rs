//! The appendix's per-element loop, with its `switch (k)` inside, as GCC `-O2` compiles it,
//! and the same code at other addresses.
//!
//! The C program chooses the operation inside the loop, four elements a step, so the cheap
//! operations (multiply, add) cost little more than the loop's own work: the comparisons of
//! the switch, the jumps between its blocks, the loads. How fast the front end fetches that
//! work depends on where the blocks sit in 64-byte lines of code. Built here by GCC 12.2, the
//! C program's case 0 (multiply) block starts 24 bytes into a line (its `.L94`, objdump), so
//! it spans two lines, and a step of multiply costs about a quarter more than a step of add:
//! with the measurement order or the cases changed, GCC places it elsewhere and the
//! difference comes and goes.
//!
//! On x86-64 this file reproduces GCC's code for the loop instruction for instruction in one
//! `asm!` block (the same comparisons, block order, jumps, alignment directives and four
//! accumulators in registers; `sin` called four times a step with the accumulators saved
//! around the calls). Section 3a's loop, [`fp_per_element`], has case 0's block at the start
//! of a line ([`BASELINE_PLACEMENT`]), the one placement where it fits in one line, so that
//! its multiply, the table's baseline, pays nothing for where it sits; every other block is
//! where GCC put it. [`fp_per_element_at_24`] is GCC's own layout, the C program's.
//! [`PLACED`] holds the same code with case 0's block at each multiple of 8 bytes past a line
//! (section 3c), which shows how much the placement, not the multiply, costs. Elsewhere a
//! plain-Rust loop with the choice inside stands in for all of them.

/// Where case 0's block starts, in bytes past a 64-byte line, in GCC 12.2 `-O2`'s build of
/// the C program on the reference machine: [`fp_per_element_at_24`].
pub const GCC_PLACEMENT: usize = 24;

/// Where case 0's block starts in [`fp_per_element`], section 3a's loop: at the start of a
/// line, where its [`MULTIPLY_BLOCK_BYTES`] fit in one (checked in the built binary by
/// `tests/shape.rs`).
pub const BASELINE_PLACEMENT: usize = 0;

/// Case 0's block in bytes, its closing jump included (checked in the built binary by
/// `tests/shape.rs`): at a placement above `64 - MULTIPLY_BLOCK_BYTES` it spans two lines.
pub const MULTIPLY_BLOCK_BYTES: usize = 59;

/// Whether case 0's block, at `placement` bytes past a line, spans two 64-byte lines.
pub fn spans_two_lines(placement: usize) -> bool {
    placement % 64 + MULTIPLY_BLOCK_BYTES > 64
}

/// One of the appendix's loops: `(a, b, reps, op)`.
pub type Loop = fn(&[f64], &[f64], usize, usize) -> f64;

/// `sin` from the C library, called from the loop's assembly.
#[cfg(target_arch = "x86_64")]
extern "C" fn c_sin(x: f64) -> f64 {
    x.sin()
}

/// The loop as GCC 12.2 `-O2` compiles the appendix's `switch (k)` for x86-64, as an
/// expression of `(a pointer, b pointer, elements, passes, op, case 0's placement)`: the
/// same instructions in the same registers (so the same bytes), the blocks in the same order
/// and at the same places in their 64-byte lines as in the C program built on the reference
/// machine, except case 0's block, at `placement` bytes past its line (GCC's: 24). Labels (GCC's in
/// brackets, with their offset in a line): 20 a new pass [.L42, 0x30]; 21 cases 0 and 1
/// [.L96, 0x00]; 22 the step's end [.L49]; 23 the step's start and the comparison tree, then
/// case 3, sqrt [.L62, 0x0c]; 24 sqrt's step end [.L61]; 25 the pass's end [.L95]; 26 case 2,
/// divide [.L43, 0x08]; 28 the default case, `sin` [.L97, 0x08]; 27 case 0, multiply [.L94,
/// 0x18]; 3x sqrt of a negative number, never taken here (the inputs are positive). The
/// registers GCC uses for the pointers and counts are callee-saved (rbx and rbp cannot even be
/// operands), so the block saves and restores them itself; the `sin` calls keep them, and the
/// accumulators are saved around each call as GCC does. The pass count runs in a 32-bit
/// register (`sub r13d, 1`), as the C program's `int`.
#[cfg(target_arch = "x86_64")]
macro_rules! gcc_switch {
    ($pa:expr, $pb:expr, $n:expr, $reps:expr, $k:expr, $placement:literal) => {{
        let (mut s0, mut s1, mut s2, mut s3) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        std::arch::asm!(
            "push rbx",
            "push rbp",
            "push r12",
            "push r13",
            "push r14",
            "push r15",
            "mov rbx, rcx",
            "mov r12, rsi",
            "mov r13, r10",
            "mov r14, r11",
            "xorpd xmm5, xmm5",
            "jmp 20f",
            ".p2align 6",
            ".fill 48, 1, 0x90",
            "20:",
            "mov r15, r12",
            // GCC's `lea a(%rip), %rbp` is 7 bytes: a 3-byte move and a 4-byte no-op.
            "mov rbp, rdi",
            "nop dword ptr [rax]",
            "jmp 23f",
            ".p2align 4,,10",
            ".p2align 3",
            "21:",
            "test r14, r14",
            "je 27f",
            "addsd xmm0, qword ptr [r15]",
            "addsd xmm1, xmm0",
            "movsd xmm0, qword ptr [rbp + 8]",
            "addsd xmm0, qword ptr [r15 + 8]",
            "addsd xmm4, xmm0",
            "movsd xmm0, qword ptr [rbp + 16]",
            "addsd xmm0, qword ptr [r15 + 16]",
            "addsd xmm3, xmm0",
            "movsd xmm0, qword ptr [rbp + 24]",
            "addsd xmm0, qword ptr [r15 + 24]",
            "addsd xmm2, xmm0",
            "22:",
            "add rbp, 32",
            "add r15, 32",
            "cmp rbx, rbp",
            "je 25f",
            "23:",
            "movsd xmm0, qword ptr [rbp]",
            "cmp r14, 2",
            "je 26f",
            "jbe 21b",
            "cmp r14, 3",
            "jne 28f",
            "ucomisd xmm5, xmm0",
            "ja 30f",
            "sqrtsd xmm0, xmm0",
            "40:",
            "addsd xmm1, xmm0",
            "movsd xmm0, qword ptr [rbp + 8]",
            "ucomisd xmm5, xmm0",
            "ja 31f",
            "sqrtsd xmm0, xmm0",
            "41:",
            "addsd xmm4, xmm0",
            "movsd xmm0, qword ptr [rbp + 16]",
            "ucomisd xmm5, xmm0",
            "ja 32f",
            "sqrtsd xmm0, xmm0",
            "42:",
            "addsd xmm3, xmm0",
            "movsd xmm0, qword ptr [rbp + 24]",
            "ucomisd xmm5, xmm0",
            "ja 33f",
            "sqrtsd xmm0, xmm0",
            "43:",
            "24:",
            "add rbp, 32",
            "addsd xmm2, xmm0",
            "add r15, 32",
            "cmp rbx, rbp",
            "jne 23b",
            "25:",
            "sub r13d, 1",
            "jne 20b",
            "jmp 29f",
            ".p2align 6",
            ".fill 8, 1, 0x90",
            "26:",
            "divsd xmm0, qword ptr [r15]",
            "addsd xmm1, xmm0",
            "movsd xmm0, qword ptr [rbp + 8]",
            "divsd xmm0, qword ptr [r15 + 8]",
            "addsd xmm4, xmm0",
            "movsd xmm0, qword ptr [rbp + 16]",
            "divsd xmm0, qword ptr [r15 + 16]",
            "addsd xmm3, xmm0",
            "movsd xmm0, qword ptr [rbp + 24]",
            "divsd xmm0, qword ptr [r15 + 24]",
            "addsd xmm2, xmm0",
            "jmp 22b",
            ".p2align 3",
            "28:",
            "sub rsp, 48",
            "mov qword ptr [rsp + 40], rdi",
            "movsd qword ptr [rsp], xmm1",
            "movsd qword ptr [rsp + 8], xmm4",
            "movsd qword ptr [rsp + 16], xmm3",
            "movsd qword ptr [rsp + 24], xmm2",
            "call {sin}",
            "addsd xmm0, qword ptr [rsp]",
            "movsd qword ptr [rsp], xmm0",
            "movsd xmm0, qword ptr [rbp + 8]",
            "call {sin}",
            "addsd xmm0, qword ptr [rsp + 8]",
            "movsd qword ptr [rsp + 8], xmm0",
            "movsd xmm0, qword ptr [rbp + 16]",
            "call {sin}",
            "addsd xmm0, qword ptr [rsp + 16]",
            "movsd qword ptr [rsp + 16], xmm0",
            "movsd xmm0, qword ptr [rbp + 24]",
            "call {sin}",
            "addsd xmm0, qword ptr [rsp + 24]",
            "movsd qword ptr [rsp + 24], xmm0",
            "movsd xmm1, qword ptr [rsp]",
            "movsd xmm4, qword ptr [rsp + 8]",
            "movsd xmm3, qword ptr [rsp + 16]",
            "movsd xmm2, qword ptr [rsp + 24]",
            "mov rdi, qword ptr [rsp + 40]",
            "add rsp, 48",
            "xorpd xmm5, xmm5",
            "jmp 22b",
            ".p2align 6",
            concat!(".fill ", $placement, ", 1, 0x90"),
            "27:",
            "mulsd xmm0, qword ptr [r15]",
            "addsd xmm1, xmm0",
            "movsd xmm0, qword ptr [rbp + 8]",
            "mulsd xmm0, qword ptr [r15 + 8]",
            "addsd xmm4, xmm0",
            "movsd xmm0, qword ptr [rbp + 16]",
            "mulsd xmm0, qword ptr [r15 + 16]",
            "addsd xmm3, xmm0",
            "movsd xmm0, qword ptr [rbp + 24]",
            "mulsd xmm0, qword ptr [r15 + 24]",
            "addsd xmm2, xmm0",
            "jmp 22b",
            "30:",
            "sqrtsd xmm0, xmm0",
            "jmp 40b",
            "31:",
            "sqrtsd xmm0, xmm0",
            "jmp 41b",
            "32:",
            "sqrtsd xmm0, xmm0",
            "jmp 42b",
            "33:",
            "sqrtsd xmm0, xmm0",
            "jmp 43b",
            "29:",
            "pop r15",
            "pop r14",
            "pop r13",
            "pop r12",
            "pop rbp",
            "pop rbx",
            in("rdi") $pa,
            in("rsi") $pb,
            in("rcx") $pa.add($n),
            in("r10") $reps,
            in("r11") $k,
            sin = sym c_sin,
            inout("xmm1") s0,
            inout("xmm4") s1,
            inout("xmm3") s2,
            inout("xmm2") s3,
            clobber_abi("C"),
        );
        (s0 + s1) + (s2 + s3)
    }};
}

/// Defines one public loop per placement of case 0's block (bytes past a 64-byte line).
macro_rules! placed {
    ($($(#[$doc:meta])* $name:ident = $pad:literal;)*) => {
        $(
            $(#[$doc])*
            #[inline(never)]
            #[unsafe(no_mangle)]
            pub fn $name(a: &[f64], b: &[f64], reps: usize, op: usize) -> f64 {
                let n = a.len().min(b.len()) / 4 * 4;
                if n == 0 || reps == 0 {
                    return 0.0;
                }
                // The loop counts passes in 32 bits, as the C program's `int`.
                assert!(reps <= u32::MAX as usize, "{reps} passes: at most 2^32 - 1");
                #[cfg(target_arch = "x86_64")]
                // SAFETY: the loop reads `n` elements of `a` and `b` (both at least that
                // long) and writes no memory but its own stack space.
                unsafe {
                    gcc_switch!(a.as_ptr(), b.as_ptr(), n, reps, op, $pad)
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    portable(&a[..n], &b[..n], reps, op)
                }
            }
        )*
    };
}

placed! {
    /// One step of the appendix's table, in the code GCC makes of the C program, with case
    /// 0's block at the start of a 64-byte line ([`BASELINE_PLACEMENT`]), where it fits in one
    /// line: over `a` and `b` (their common length rounded down to four elements), `reps`
    /// passes, operation `op` (an index of [`crate::kernels::PER_ELEMENT`]; 4 and above is
    /// `sin`, the C `default:` case) into four accumulators, summed `(s0 + s1) + (s2 + s3)`.
    /// Panics when `reps` needs more than 32 bits.
    fp_per_element = "0";
    fp_per_element_at_8 = "8";
    fp_per_element_at_16 = "16";
    /// The same, with case 0's block where GCC 12.2 put it in the C program
    /// ([`GCC_PLACEMENT`]), spanning two lines: the C program's own layout.
    fp_per_element_at_24 = "24";
    fp_per_element_at_32 = "32";
    fp_per_element_at_40 = "40";
    fp_per_element_at_48 = "48";
    fp_per_element_at_56 = "56";
}

/// The same loop with case 0's block at each multiple of 8 bytes past a 64-byte line:
/// `(placement, loop)`, [`fp_per_element`] among them at [`BASELINE_PLACEMENT`] and GCC's
/// layout at [`GCC_PLACEMENT`].
pub const PLACED: [(usize, Loop); 8] = [
    (0, fp_per_element),
    (8, fp_per_element_at_8),
    (16, fp_per_element_at_16),
    (24, fp_per_element_at_24),
    (32, fp_per_element_at_32),
    (40, fp_per_element_at_40),
    (48, fp_per_element_at_48),
    (56, fp_per_element_at_56),
];

/// The loop in plain Rust, for targets without the x86-64 code: the choice stays inside the
/// loop (an opaque copy of `op` each step), every operation one scalar instruction. Built on
/// every target, so its tests run here too. Where it is the loop, it keeps a stable symbol of
/// its own, so that `tests/shape.rs` reads it back.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[cfg_attr(
    not(target_arch = "x86_64"),
    inline(never),
    unsafe(export_name = "fp_per_element_portable")
)]
fn portable(a: &[f64], b: &[f64], reps: usize, op: usize) -> f64 {
    use measure::keep::{opaque_f64, opaque_i64};
    let (mut s0, mut s1, mut s2, mut s3) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
    for _ in 0..reps {
        for (x, y) in a.chunks_exact(4).zip(b.chunks_exact(4)) {
            let f = |x: f64, y: f64| match opaque_i64(op as i64) {
                0 => scalar::mul(x, y),
                1 => scalar::add(x, y),
                2 => scalar::div(x, y),
                3 => scalar::sqrt(x),
                _ => x.sin(),
            };
            s0 = opaque_f64(s0 + f(x[0], y[0]));
            s1 = opaque_f64(s1 + f(x[1], y[1]));
            s2 = opaque_f64(s2 + f(x[2], y[2]));
            s3 = opaque_f64(s3 + f(x[3], y[3]));
        }
    }
    (s0 + s1) + (s2 + s3)
}

/// One scalar floating-point instruction each, written out (`mulsd`, `addsd`, `divsd`,
/// `sqrtsd` on x86-64; `fmul`, `fadd`, `fdiv`, `fsqrt` on AArch64). The compiler packs four
/// independent operations of one kind into two vector instructions even through register
/// barriers, which would halve the appendix's divide; an `asm!` block it cannot pack.
/// Elsewhere, plain Rust.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
mod scalar {
    macro_rules! op2 {
        ($name:ident, $x86:literal, $arm:literal, $e:expr) => {
            #[inline(always)]
            #[allow(unused_mut)]
            pub fn $name(mut x: f64, y: f64) -> f64 {
                #[cfg(target_arch = "x86_64")]
                // SAFETY: one register-only SSE2 instruction (SSE2 is baseline on x86-64).
                unsafe {
                    std::arch::asm!(concat!($x86, " {x}, {y}"), x = inout(xmm_reg) x,
                        y = in(xmm_reg) y, options(pure, nomem, nostack, preserves_flags));
                }
                #[cfg(target_arch = "aarch64")]
                // SAFETY: one register-only floating-point instruction.
                unsafe {
                    std::arch::asm!(concat!($arm, " {x:d}, {x:d}, {y:d}"), x = inout(vreg) x,
                        y = in(vreg) y, options(pure, nomem, nostack, preserves_flags));
                }
                #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
                {
                    x = $e(x, y);
                }
                x
            }
        };
    }
    op2!(mul, "mulsd", "fmul", |x: f64, y: f64| x * y);
    op2!(add, "addsd", "fadd", |x: f64, y: f64| x + y);
    op2!(div, "divsd", "fdiv", |x: f64, y: f64| x / y);

    /// `sqrtsd` / `fsqrt`: the square root, one scalar instruction.
    #[inline(always)]
    #[allow(unused_mut)]
    pub fn sqrt(mut x: f64) -> f64 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: one register-only SSE2 instruction.
        unsafe {
            std::arch::asm!("sqrtsd {x}, {x}", x = inout(xmm_reg) x,
                options(pure, nomem, nostack, preserves_flags));
        }
        #[cfg(target_arch = "aarch64")]
        // SAFETY: one register-only floating-point instruction.
        unsafe {
            std::arch::asm!("fsqrt {x:d}, {x:d}", x = inout(vreg) x,
                options(pure, nomem, nostack, preserves_flags));
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            x = x.sqrt();
        }
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::per_element_expected;

    fn arrays(len: usize) -> (Vec<f64>, Vec<f64>) {
        (
            (0..len).map(|i| 1.0 + i as f64 / 64.0).collect(),
            vec![2.0; len],
        )
    }

    #[test]
    fn every_case_does_its_operation_once_per_element() {
        let (a, b) = arrays(64);
        let plain: [f64; 5] = [
            a.iter().map(|x| x * 2.0).sum(),
            a.iter().map(|x| x + 2.0).sum(),
            a.iter().map(|x| x / 2.0).sum(),
            a.iter().map(|x| x.sqrt()).sum(),
            a.iter().map(|x| x.sin()).sum(),
        ];
        for (op, want) in plain.iter().enumerate() {
            let got = fp_per_element(&a, &b, 3, op);
            assert_eq!(
                got.to_bits(),
                per_element_expected(&a, &b, 3, op).to_bits(),
                "op {op}"
            );
            assert!((got - 3.0 * want).abs() < 1e-9 * want.abs(), "op {op}");
            for (at, placed) in PLACED {
                let got = placed(&a, &b, 3, op);
                let want = per_element_expected(&a, &b, 3, op);
                assert_eq!(got.to_bits(), want.to_bits(), "op {op} placed at {at}");
            }
        }
        // Any op past the last is the C program's `default:` case, sin.
        assert_eq!(
            fp_per_element(&a, &b, 2, 9).to_bits(),
            per_element_expected(&a, &b, 2, 4).to_bits()
        );
    }

    #[test]
    fn ragged_empty_and_negative_inputs() {
        let (a, b) = arrays(10);
        // Ten elements: the last two are left out, as a step takes four.
        assert_eq!(
            fp_per_element(&a, &b, 1, 0).to_bits(),
            per_element_expected(&a[..8], &b[..8], 1, 0).to_bits()
        );
        assert_eq!(fp_per_element(&a[..3], &b[..3], 5, 2), 0.0);
        assert_eq!(fp_per_element(&a, &b, 0, 1), 0.0);
        // A negative number takes sqrt's other way out (GCC's call of the C library's sqrt,
        // here the same instruction), and gives NaN.
        let neg = vec![-1.0; 8];
        assert!(fp_per_element(&neg, &b[..8], 1, 3).is_nan());
        assert!(fp_per_element_at_56(&neg, &b[..8], 1, 3).is_nan());
    }

    #[test]
    fn the_portable_loop_agrees() {
        let (a, b) = arrays(32);
        for op in 0..5 {
            assert_eq!(
                portable(&a, &b, 2, op).to_bits(),
                per_element_expected(&a, &b, 2, op).to_bits(),
                "op {op}"
            );
        }
    }

    #[test]
    fn scalar_operations_compute_what_they_say() {
        assert_eq!(scalar::sqrt(2.25), 1.5);
        assert_eq!(scalar::div(1.0, 4.0), 0.25);
        assert_eq!(scalar::mul(1.5, 4.0), 6.0);
        assert_eq!(scalar::add(1.5, 4.0), 5.5);
    }
}
