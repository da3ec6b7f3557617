//! The kernels: read (sum every word), write (fill every word) and copy (one half of the
//! working set into the other), each in the forms the experiment compares.
//!
//! - **plain**: the loop a Rust programmer writes, as the compiler makes it. The build
//!   targets the baseline of the architecture (on x86-64: SSE2, 16-byte vectors), so the
//!   compiler vectorises at that width and no wider. What it made is read back from the
//!   binary at run time and checked by a test (`tests/shape.rs`): 16-byte vector loops that
//!   call nothing (no `memcpy`, no `memset`).
//! - **explicit**: the same work written with `core::arch` intrinsics at the widest vector
//!   width the CPU reports at run time ([`Width::detect`]: AVX-512F, AVX2 or SSE2 on x86-64,
//!   NEON on AArch64, plain 8-byte words elsewhere): the read eight vectors per step into
//!   eight sums, the write and the copy four vectors per step.
//! - **stream**: the explicit write and copy with non-temporal stores (`_mm*_stream_si*`,
//!   `movntdq`), which send each line to memory without first reading it into the caches.
//!   x86-64 only; elsewhere the rows are skipped.
//!
//! Every kernel runs `laps` laps inside one call, hiding its base pointer behind
//! `black_box` at the start of each lap, so that no lap can be merged with another and a
//! 4 KiB working set is not timed as mostly call overhead. Every kernel keeps a stable
//! symbol (`bw_read_plain`, `bw_write_nt_avx512`, ...) so its machine code can be found.

use std::hint::black_box;

/// What a kernel does to the working set.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Read,
    Write,
    Copy,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Copy => "copy",
        }
    }
}

/// How a kernel is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The plain Rust loop, as the compiler made it.
    Plain,
    /// `core::arch` at the widest width detected.
    Explicit,
    /// The explicit form with non-temporal stores.
    Stream,
}

impl Form {
    pub fn name(self) -> &'static str {
        match self {
            Form::Plain => "plain",
            Form::Explicit => "explicit",
            Form::Stream => "stream",
        }
    }
}

/// The vector width of the explicit kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Width {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    #[cfg(target_arch = "x86_64")]
    Sse2,
    #[cfg(target_arch = "aarch64")]
    Neon,
    Scalar,
}

impl Width {
    /// The widest width this CPU reports at run time (`is_x86_feature_detected!`, which
    /// reads CPUID and checks that the OS saves the registers).
    pub fn detect() -> Width {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Width::Avx512;
            }
            if std::arch::is_x86_feature_detected!("avx2") {
                return Width::Avx2;
            }
            if std::arch::is_x86_feature_detected!("sse2") {
                return Width::Sse2;
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            if std::arch::is_aarch64_feature_detected!("neon") {
                return Width::Neon;
            }
        }
        Width::Scalar
    }

    /// Bytes in one vector register.
    pub fn bytes(self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            Width::Avx512 => 64,
            #[cfg(target_arch = "x86_64")]
            Width::Avx2 => 32,
            #[cfg(target_arch = "x86_64")]
            Width::Sse2 => 16,
            #[cfg(target_arch = "aarch64")]
            Width::Neon => 16,
            Width::Scalar => 8,
        }
    }

    /// The name used in symbols and in the report.
    pub fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Width::Avx512 => "avx512",
            #[cfg(target_arch = "x86_64")]
            Width::Avx2 => "avx2",
            #[cfg(target_arch = "x86_64")]
            Width::Sse2 => "sse2",
            #[cfg(target_arch = "aarch64")]
            Width::Neon => "neon",
            Width::Scalar => "scalar",
        }
    }

    /// Whether this program has non-temporal store kernels at this width.
    pub fn has_stream(self) -> bool {
        explicit(self).write_nt.is_some()
    }
}

/// Working sets (and each half of a copy) are whole multiples of this many bytes, so every
/// kernel's step divides them (the read's eight 64-byte vectors at most).
pub const BLOCK: usize = 512;
/// The explicit read's independent sums: eight vectors loaded per step, each into its own sum,
/// so that no add waits for another and two loads can issue every cycle.
pub const READ_SUMS: usize = 8;
/// The alignment the kernels require (a non-temporal 64-byte store needs it).
pub const ALIGN: usize = 64;

/// A kernel's function.
#[derive(Clone, Copy)]
pub enum Fun {
    /// Sums `laps` laps over the words; returns the wrapping sum of all laps.
    Read(fn(&[u64], u64) -> u64),
    /// Fills the words with a value, `laps` times.
    Write(fn(&mut [u64], u64, u64)),
    /// Copies the source into the destination (same length), `laps` times.
    Copy(fn(&mut [u64], &[u64], u64)),
}

/// One kernel of the experiment.
#[derive(Clone, Copy)]
pub struct Kernel {
    pub op: Op,
    pub form: Form,
    /// Its symbol in the binary.
    pub symbol: &'static str,
    pub fun: Fun,
}

impl Kernel {
    /// `read_plain`, `write_stream`, ...: the kernel's name in `#DATA`.
    pub fn name(&self) -> String {
        format!("{}_{}", self.op.name(), self.form.name())
    }
}

/// The kernels of a run, in the order each round runs them: read, write, copy, each plain,
/// explicit at `width`, and with non-temporal stores where this program has them.
pub fn all(width: Width) -> Vec<Kernel> {
    let k = |op, form, symbol, fun| Kernel {
        op,
        form,
        symbol,
        fun,
    };
    let e = explicit(width);
    let mut v = vec![
        k(
            Op::Read,
            Form::Plain,
            "bw_read_plain",
            Fun::Read(read_plain),
        ),
        k(Op::Read, Form::Explicit, e.read.0, Fun::Read(e.read.1)),
        k(
            Op::Write,
            Form::Plain,
            "bw_write_plain",
            Fun::Write(write_plain),
        ),
        k(Op::Write, Form::Explicit, e.write.0, Fun::Write(e.write.1)),
    ];
    if let Some((s, f)) = e.write_nt {
        v.push(k(Op::Write, Form::Stream, s, Fun::Write(f)));
    }
    v.push(k(
        Op::Copy,
        Form::Plain,
        "bw_copy_plain",
        Fun::Copy(copy_plain),
    ));
    v.push(k(Op::Copy, Form::Explicit, e.copy.0, Fun::Copy(e.copy.1)));
    if let Some((s, f)) = e.copy_nt {
        v.push(k(Op::Copy, Form::Stream, s, Fun::Copy(f)));
    }
    v
}

type Read = (&'static str, fn(&[u64], u64) -> u64);
type Write = (&'static str, fn(&mut [u64], u64, u64));
type Copy = (&'static str, fn(&mut [u64], &[u64], u64));

/// The explicit kernels of one width, with their symbols.
pub struct Explicit {
    pub read: Read,
    pub write: Write,
    pub copy: Copy,
    pub write_nt: Option<Write>,
    pub copy_nt: Option<Copy>,
}

/// The explicit kernels at `width` (the scalar ones if this architecture has no such width).
pub fn explicit(width: Width) -> Explicit {
    match width {
        #[cfg(target_arch = "x86_64")]
        Width::Avx512 => x86::AVX512,
        #[cfg(target_arch = "x86_64")]
        Width::Avx2 => x86::AVX2,
        #[cfg(target_arch = "x86_64")]
        Width::Sse2 => x86::SSE2,
        #[cfg(target_arch = "aarch64")]
        Width::Neon => arm::NEON,
        _ => SCALAR,
    }
}

/// Checks what every explicit kernel relies on: whole blocks, aligned, equal halves.
fn check(p: *const u64, n: usize) {
    assert!(
        (n * 8).is_multiple_of(BLOCK),
        "a working set of {} bytes is not a multiple of {BLOCK}",
        n * 8
    );
    assert!(
        (p as usize).is_multiple_of(ALIGN),
        "the kernels need {ALIGN}-byte aligned memory"
    );
}

// ---- plain: the loops as written, compiled for the architecture's baseline ----------------

/// The read as a Rust programmer writes it: the wrapping sum of the words.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn bw_read_plain(words: &[u64], laps: u64) -> u64 {
    let mut sum = 0u64;
    for _ in 0..laps {
        let w = black_box(words);
        sum = sum.wrapping_add(w.iter().fold(0u64, |a, &x| a.wrapping_add(x)));
    }
    sum
}

/// The write as a Rust programmer writes it: every word set to `v`.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn bw_write_plain(words: &mut [u64], v: u64, laps: u64) {
    for _ in 0..laps {
        let w = black_box(&mut *words);
        for x in w.iter_mut() {
            *x = v;
        }
    }
}

/// The copy as a Rust programmer writes it: word by word. The compiler vectorises it in
/// place, with no call to `memcpy` (checked in the binary by `tests/shape.rs`).
#[inline(never)]
#[unsafe(no_mangle)]
pub fn bw_copy_plain(dst: &mut [u64], src: &[u64], laps: u64) {
    for _ in 0..laps {
        let d = black_box(&mut *dst);
        for (d, s) in d.iter_mut().zip(black_box(src)) {
            *d = *s;
        }
    }
}

fn read_plain(w: &[u64], laps: u64) -> u64 {
    bw_read_plain(w, laps)
}
fn write_plain(w: &mut [u64], v: u64, laps: u64) {
    bw_write_plain(w, v, laps)
}
fn copy_plain(d: &mut [u64], s: &[u64], laps: u64) {
    bw_copy_plain(d, s, laps)
}

// ---- scalar: the fallback where no vector width is known ------------------------------------

/// Four independent 8-byte sums per step (the fallback on architectures without a vector
/// path here; the compiler may still vectorise it).
#[inline(never)]
#[unsafe(no_mangle)]
pub fn bw_read_scalar(words: &[u64], laps: u64) -> u64 {
    let mut a = [0u64; 4];
    for _ in 0..laps {
        let w = black_box(words);
        for c in w.chunks_exact(4) {
            for k in 0..4 {
                a[k] = a[k].wrapping_add(c[k]);
            }
        }
    }
    a.iter().fold(0u64, |s, &x| s.wrapping_add(x))
}

/// Every word set to `v`, one 8-byte store at a time.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn bw_write_scalar(words: &mut [u64], v: u64, laps: u64) {
    for _ in 0..laps {
        for x in black_box(&mut *words).iter_mut() {
            *x = v;
        }
    }
}

/// The source copied into the destination, 8 bytes at a time.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn bw_copy_scalar(dst: &mut [u64], src: &[u64], laps: u64) {
    for _ in 0..laps {
        black_box(&mut *dst).copy_from_slice(black_box(src));
    }
}

const SCALAR: Explicit = Explicit {
    read: ("bw_read_scalar", read_scalar),
    write: ("bw_write_scalar", write_scalar),
    copy: ("bw_copy_scalar", copy_scalar),
    write_nt: None,
    copy_nt: None,
};

fn read_scalar(w: &[u64], laps: u64) -> u64 {
    check(w.as_ptr(), w.len());
    bw_read_scalar(w, laps)
}
fn write_scalar(w: &mut [u64], v: u64, laps: u64) {
    check(w.as_ptr(), w.len());
    bw_write_scalar(w, v, laps)
}
fn copy_scalar(d: &mut [u64], s: &[u64], laps: u64) {
    check(d.as_ptr(), d.len());
    check(s.as_ptr(), s.len());
    bw_copy_scalar(d, s, laps)
}

// ---- the vector widths: one macro writes every width's kernels ----------------------------

/// What the safe entry points of the vector kernels check before they call one: the feature
/// (`present`, a cached flag), then the slice's shape.
fn ready(present: bool, w: &[u64]) {
    assert!(present);
    check(w.as_ptr(), w.len());
}

/// [`ready`] for a copy's two halves.
fn ready_pair(present: bool, d: &[u64], s: &[u64]) {
    assert!(present);
    assert_eq!(d.len(), s.len(), "a copy needs halves of one length");
    check(d.as_ptr(), d.len());
    check(s.as_ptr(), s.len());
}

/// Writes the kernels of one vector width, each under its own symbol, and their table
/// (`$table`, an [`Explicit`]), so the widths cannot drift apart: four independent vectors
/// per step (256 bytes with AVX-512) for the write and the copy, eight into eight sums for the
/// read, plain stores, and where the width
/// has them (`stream:`) non-temporal stores followed by one `sfence` so that they are done
/// (visible in memory order) before the kernel returns.
macro_rules! width {
    (
        feature: $feat:literal, present: $present:expr, vec: $v:ty, words: $w:expr,
        zero: $zero:expr, splat: $splat:ident, load: $load:ident, aload: $aload:ident, add: $add:ident,
        store: $store:ident, symbols: $read:ident $write:ident $copy:ident, table: $table:ident
        $(, stream: $stream:ident, nt_symbols: $write_nt:ident $copy_nt:ident)?
    ) => {
        /// Sums `n` words (a multiple of eight vectors) `laps` times: eight loads a step into
        /// eight independent sums, by a moving pointer, with aligned loads (so that even SSE2
        /// folds each into its add), so that a step is eight loads (each folded into its add), one pointer add, one compare and one branch.
        ///
        /// # Safety
        /// The CPU must support the feature; `p` must point to `n` readable words.
        #[inline(never)]
        #[unsafe(no_mangle)]
        #[target_feature(enable = $feat)]
        pub unsafe fn $read(p: *const u64, n: usize, laps: u64) -> u64 {
            let mut a: [$v; super::READ_SUMS] = [$zero; super::READ_SUMS];
            for _ in 0..laps {
                let mut q = black_box(p);
                // SAFETY: one past the caller's words.
                let end = unsafe { q.add(n) };
                while q < end {
                    for (k, s) in a.iter_mut().enumerate() {
                        // SAFETY: n is a multiple of READ_SUMS vectors: q + k vectors < end; `ready`
                        // checked the alignment the aligned load needs.
                        *s = $add(*s, unsafe { $aload(q.add(k * $w).cast()) });
                    }
                    // SAFETY: at most `end`, one past the words.
                    q = unsafe { q.add(super::READ_SUMS * $w) };
                }
            }
            let s = a.iter().fold($zero, |x, &y| $add(x, y));
            // SAFETY: a vector is exactly this many words.
            let words: [u64; $w] = unsafe { std::mem::transmute(s) };
            words.iter().fold(0u64, |x, &y| x.wrapping_add(y))
        }

        width!(@fill $feat, $v, $w, $splat, $store, $write,
            "Fills `n` words with `v`, `laps` times.", "The CPU must support the feature; \
            `p` must point to `n` writable words.");
        width!(@copy $feat, $w, $load, $store, $copy,
            "Copies `n` words from `s` to `d`, `laps` times.", "The CPU must support the \
            feature; `s` readable and `d` writable for `n` words, not overlapping.");
        $(
            width!(@fill $feat, $v, $w, $splat, $stream, $write_nt,
                "Fills `n` words with `v` by non-temporal stores, `laps` times, then `sfence`.",
                "As the write; `p` must also be aligned to the vector width.", _mm_sfence);
            width!(@copy $feat, $w, $load, $stream, $copy_nt,
                "Copies `n` words from `s` to `d` by non-temporal stores, `laps` times, then \
                `sfence`.", "As the copy; `d` must also be aligned to the vector width.", _mm_sfence);
        )?

        /// This width's kernels with their symbols, behind the safe entry points.
        pub const $table: super::Explicit = super::Explicit {
            read: (stringify!($read), |w, laps| {
                super::ready($present, w);
                // SAFETY: the feature is present and the slice holds the words.
                unsafe { $read(w.as_ptr(), w.len(), laps) }
            }),
            write: (stringify!($write), |w, v, laps| {
                super::ready($present, w);
                // SAFETY: as above, and the slice is ours to write.
                unsafe { $write(w.as_mut_ptr(), w.len(), v, laps) }
            }),
            copy: (stringify!($copy), |d, s, laps| {
                super::ready_pair($present, d, s);
                // SAFETY: the borrows guarantee two distinct ranges of the same length.
                unsafe { $copy(d.as_mut_ptr(), s.as_ptr(), d.len(), laps) }
            }),
            write_nt: width!(@maybe $((stringify!($write_nt), |w, v, laps| {
                super::ready($present, w);
                // SAFETY: as the write; `ready` asserted the alignment.
                unsafe { $write_nt(w.as_mut_ptr(), w.len(), v, laps) }
            }))?),
            copy_nt: width!(@maybe $((stringify!($copy_nt), |d, s, laps| {
                super::ready_pair($present, d, s);
                // SAFETY: as the copy; `ready_pair` asserted the alignment.
                unsafe { $copy_nt(d.as_mut_ptr(), s.as_ptr(), d.len(), laps) }
            }))?),
        };
    };
    (@maybe) => { None };
    (@maybe $k:expr) => { Some($k) };
    // `@fill` and `@copy` write one kernel with the store given, then the fence given, if any.
    (@fill $feat:literal, $v:ty, $w:expr, $splat:ident, $store:ident, $name:ident,
        $doc:literal, $safety:literal $(, $fence:ident)?) => {
        #[doc = $doc]
        ///
        /// # Safety
        #[doc = $safety]
        #[inline(never)]
        #[unsafe(no_mangle)]
        #[target_feature(enable = $feat)]
        pub unsafe fn $name(p: *mut u64, n: usize, v: u64, laps: u64) {
            let x: $v = $splat(v as _);
            for _ in 0..laps {
                let p = black_box(p);
                let mut i = 0;
                while i < n {
                    // SAFETY: (aligned where it must be) i + 4 vectors <= n, inside the
                    // caller's words.
                    unsafe {
                        $store(p.add(i).cast(), x);
                        $store(p.add(i + $w).cast(), x);
                        $store(p.add(i + 2 * $w).cast(), x);
                        $store(p.add(i + 3 * $w).cast(), x);
                    }
                    i += 4 * $w;
                }
            }
            $($fence();)?
        }
    };
    (@copy $feat:literal, $w:expr, $load:ident, $store:ident, $name:ident,
        $doc:literal, $safety:literal $(, $fence:ident)?) => {
        #[doc = $doc]
        ///
        /// # Safety
        #[doc = $safety]
        #[inline(never)]
        #[unsafe(no_mangle)]
        #[target_feature(enable = $feat)]
        pub unsafe fn $name(d: *mut u64, s: *const u64, n: usize, laps: u64) {
            for _ in 0..laps {
                let (d, s) = (black_box(d), black_box(s));
                let mut i = 0;
                while i < n {
                    // SAFETY: (aligned where it must be) i + 4 vectors <= n, inside both
                    // ranges.
                    unsafe {
                        let v0 = $load(s.add(i).cast());
                        let v1 = $load(s.add(i + $w).cast());
                        let v2 = $load(s.add(i + 2 * $w).cast());
                        let v3 = $load(s.add(i + 3 * $w).cast());
                        $store(d.add(i).cast(), v0);
                        $store(d.add(i + $w).cast(), v1);
                        $store(d.add(i + 2 * $w).cast(), v2);
                        $store(d.add(i + 3 * $w).cast(), v3);
                    }
                    i += 4 * $w;
                }
            }
            $($fence();)?
        }
    };
}

// ---- x86-64: SSE2, AVX2, AVX-512F --------------------------------------------------------

#[cfg(target_arch = "x86_64")]
pub mod x86 {
    //! SSE2, AVX2 and AVX-512F, each with non-temporal stores (`movntdq`) beside the plain.

    use super::black_box;
    use std::arch::is_x86_feature_detected as has;
    use std::arch::x86_64::*;

    width! {
        feature: "avx512f", present: has!("avx512f"), vec: __m512i, words: 8,
        zero: _mm512_setzero_si512(), splat: _mm512_set1_epi64, load: _mm512_loadu_si512, aload: _mm512_load_si512,
        add: _mm512_add_epi64, store: _mm512_storeu_si512,
        symbols: bw_read_avx512 bw_write_avx512 bw_copy_avx512, table: AVX512,
        stream: _mm512_stream_si512, nt_symbols: bw_write_nt_avx512 bw_copy_nt_avx512
    }
    width! {
        feature: "avx2", present: has!("avx2"), vec: __m256i, words: 4,
        zero: _mm256_setzero_si256(), splat: _mm256_set1_epi64x, load: _mm256_loadu_si256, aload: _mm256_load_si256,
        add: _mm256_add_epi64, store: _mm256_storeu_si256,
        symbols: bw_read_avx2 bw_write_avx2 bw_copy_avx2, table: AVX2,
        stream: _mm256_stream_si256, nt_symbols: bw_write_nt_avx2 bw_copy_nt_avx2
    }
    width! {
        feature: "sse2", present: has!("sse2"), vec: __m128i, words: 2,
        zero: _mm_setzero_si128(), splat: _mm_set1_epi64x, load: _mm_loadu_si128, aload: _mm_load_si128,
        add: _mm_add_epi64, store: _mm_storeu_si128,
        symbols: bw_read_sse2 bw_write_sse2 bw_copy_sse2, table: SSE2,
        stream: _mm_stream_si128, nt_symbols: bw_write_nt_sse2 bw_copy_nt_sse2
    }
}

// ---- AArch64: NEON (128-bit) ---------------------------------------------------------------

#[cfg(target_arch = "aarch64")]
pub mod arm {
    //! NEON is part of every AArch64 core Linux runs on: 16-byte vectors, four per step.
    //! No non-temporal path here (AArch64's `stnp` is only a hint; not measured).

    use super::black_box;
    use std::arch::aarch64::*;
    use std::arch::is_aarch64_feature_detected as has;

    width! {
        feature: "neon", present: has!("neon"), vec: uint64x2_t, words: 2,
        zero: vdupq_n_u64(0), splat: vdupq_n_u64, load: vld1q_u64, aload: vld1q_u64, add: vaddq_u64,
        store: vst1q_u64, symbols: bw_read_neon bw_write_neon bw_copy_neon, table: NEON
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One 64-byte aligned line.
    #[derive(Clone, Copy)]
    #[repr(C, align(64))]
    struct Line([u64; 8]);

    /// An aligned buffer of `n` words.
    fn buf(n: usize) -> Vec<Line> {
        vec![Line([0u64; 8]); n / 8]
    }
    fn words(b: &mut [Line]) -> &mut [u64] {
        // SAFETY: `Line` is exactly eight words with no padding (repr(C), 64 bytes).
        unsafe { std::slice::from_raw_parts_mut(b.as_mut_ptr().cast::<u64>(), b.len() * 8) }
    }

    #[test]
    fn every_kernel_of_every_width_here_does_its_work() {
        let mut widths = vec![Width::Scalar];
        let w = Width::detect();
        #[cfg(target_arch = "x86_64")]
        for cand in [Width::Sse2, Width::Avx2, Width::Avx512] {
            if cand.bytes() <= w.bytes() {
                widths.push(cand);
            }
        }
        // Every AArch64 core has NEON: its sums must equal the scalar ones (cross-test).
        #[cfg(target_arch = "aarch64")]
        {
            assert_eq!(w, Width::Neon, "NEON was not detected");
            widths.push(w);
        }
        for width in widths {
            for k in all(width) {
                let mut b = buf(512);
                let m = words(&mut b);
                for (i, x) in m.iter_mut().enumerate() {
                    *x = i as u64 * 3 + 1;
                }
                let name = format!("{} at {}", k.name(), width.name());
                match k.fun {
                    Fun::Read(f) => {
                        let want: u64 = m.iter().sum();
                        assert_eq!(f(m, 3), want * 3, "{name}");
                    }
                    Fun::Write(f) => {
                        f(m, 0xabcd, 2);
                        assert!(m.iter().all(|&x| x == 0xabcd), "{name}");
                    }
                    Fun::Copy(f) => {
                        let (s, d) = m.split_at_mut(256);
                        f(d, s, 2);
                        assert_eq!(s, d, "{name}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_kernel_list_is_complete_and_named() {
        let ks = all(Width::detect());
        let names: Vec<String> = ks.iter().map(Kernel::name).collect();
        for want in [
            "read_plain",
            "read_explicit",
            "write_plain",
            "copy_explicit",
        ] {
            assert!(names.iter().any(|n| n == want), "{names:?}");
        }
        if cfg!(target_arch = "x86_64") {
            assert!(names.iter().any(|n| n == "write_stream"));
            assert!(names.iter().any(|n| n == "copy_stream"));
        }
        assert!(all(Width::Scalar).iter().all(|k| k.form != Form::Stream));
    }

    #[test]
    #[should_panic(expected = "not a multiple")]
    fn a_ragged_working_set_is_refused() {
        let mut b = buf(64);
        let m = words(&mut b);
        (explicit(Width::detect()).read.1)(&m[..30], 1);
    }
}
