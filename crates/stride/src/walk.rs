//! The strided walks, and what each one visits.
//!
//! Two kernels read one byte per access, a fixed number of accesses, jumping `stride` bytes
//! each time over a buffer whose length is a power of two:
//!
//! - [`stride_walk_wrap`] is the appendix's loop exactly: `acc += buf[p]; p = (p + stride) & mask`.
//!   When `accesses * stride` exceeds the buffer the walk wraps to offset 0 and goes over the
//!   same positions again, so a wide stride re-reads a smaller working set.
//! - [`stride_walk_fresh`] is the same walk, except that every lap (every wrap to 0) starts
//!   `shift` bytes (one line) further on, so a stride wider than a line keeps meeting lines it
//!   has not read before, until it has read every line of the buffer.
//!
//! [`plan`] computes, without touching the buffer, what a walk visits: its distinct lines and
//! pages, its laps, and the sum of bytes it must return (the checksum every timed round is
//! compared with). It follows the same position rule as the kernels ([`positions`]); a test
//! checks the two agree.

/// The byte stored at offset `i` of the buffer: a fixed hash, so a walk's sum depends on the
/// exact positions it read (0..=127, so sums of millions of bytes cannot overflow).
#[inline(always)]
pub fn pattern(i: usize) -> u8 {
    ((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 57) as u8
}

/// Fills `buf` with [`pattern`]. This also attaches every page before anything is timed.
pub fn fill(buf: &mut [u8]) {
    for (i, b) in buf.iter_mut().enumerate() {
        *b = pattern(i);
    }
}

/// The appendix's walk: one-byte reads `stride` bytes apart, wrapping at the end of `buf`
/// (whose length must be a power of two); accesses `from .. from + count` of it, so that a
/// walk can be timed in segments. Returns the sum of the bytes read.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn stride_walk_wrap(buf: &[u8], stride: usize, from: usize, count: usize) -> u64 {
    assert!(
        buf.len().is_power_of_two(),
        "the buffer length must be a power of two"
    );
    let mask = buf.len() - 1;
    steps(buf, from.wrapping_mul(stride) & mask, stride, count)
}

/// The appendix's inner loop, the one both walks run: `count` one-byte reads from `p` on,
/// `stride` bytes apart, wrapping at the end of `buf` (a power of two long; `p` inside it).
#[inline(always)]
fn steps(buf: &[u8], mut p: usize, stride: usize, count: usize) -> u64 {
    let mask = buf.len() - 1;
    let mut acc = 0u64;
    for _ in 0..count {
        // SAFETY: p starts inside the buffer and is always masked by len - 1, so p < len.
        acc += u64::from(unsafe { *buf.get_unchecked(p) });
        p = (p + stride) & mask;
    }
    acc
}

/// The same walk, but each lap starts `shift` bytes further on (modulo the stride), so wide
/// strides do not re-read the few lines of the first lap. `stride` and `shift` must be powers
/// of two no larger than the buffer; with `stride <= shift` it visits exactly what
/// [`stride_walk_wrap`] visits.
///
/// The laps are an outer loop, so the inner loop is the appendix's loop instruction for
/// instruction: the two walks differ in where they go, not in the work per access.
/// Accesses `from .. from + count` of the walk, as [`stride_walk_wrap`] does.
#[inline(never)]
#[unsafe(no_mangle)]
pub fn stride_walk_fresh(
    buf: &[u8],
    stride: usize,
    (from, count): (usize, usize),
    shift: usize,
) -> u64 {
    assert!(buf.len().is_power_of_two() && stride.is_power_of_two() && stride <= buf.len());
    let per_lap = buf.len() / stride;
    let lap_mask = stride - 1;
    let mut off = (from / per_lap).wrapping_mul(shift) & lap_mask;
    let (mut at, mut left, mut acc) = (from % per_lap, count, 0u64);
    while left > 0 {
        let n = left.min(per_lap - at);
        // at < per_lap and off < stride, so the lap starts inside the buffer.
        acc += steps(buf, at * stride + off, stride, n);
        left -= n;
        at = 0;
        off = (off + shift) & lap_mask;
    }
    acc
}

/// The offsets a walk reads, in order: the wrapping walk with `shift == 0`, the fresh-lines
/// walk otherwise. The reference the kernels are tested against.
pub fn positions(
    len: usize,
    stride: usize,
    accesses: usize,
    shift: usize,
) -> impl Iterator<Item = usize> {
    let mask = len - 1;
    let lap_mask = stride - 1;
    let (mut q, mut off) = (0usize, 0usize);
    (0..accesses).map(move |_| {
        let p = q + off;
        q = (q + stride) & mask;
        if q == 0 {
            off = (off + shift) & lap_mask;
        }
        p
    })
}

/// What one walk visits, computed without timing anything.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Plan {
    /// Distinct cache lines read (`None` when the line size is unknown).
    pub lines: Option<u64>,
    /// Distinct pages read.
    pub pages: u64,
    /// How many times the walk would cover the buffer: `accesses * stride / len`.
    pub laps: f64,
    /// The sum of the bytes read, which every timed round must return.
    pub sum: u64,
}

impl Plan {
    /// Whether the walk came back to the start of the buffer (and re-read positions).
    pub fn wrapped(&self) -> bool {
        self.laps > 1.0
    }
    /// The bytes of the distinct lines read: the walk's real working set.
    pub fn working_set(&self, line: Option<u64>) -> Option<u64> {
        Some(self.lines? * line?)
    }
}

/// Follows a walk (see [`positions`]) and counts what it visits.
pub fn plan(
    len: usize,
    stride: usize,
    accesses: usize,
    shift: usize,
    line: Option<usize>,
    page: usize,
) -> Plan {
    let mut lines = line.map(|l| Bits::new(len.div_ceil(l)));
    let mut pages = Bits::new(len.div_ceil(page));
    let mut sum = 0u64;
    for p in positions(len, stride, accesses, shift) {
        sum += u64::from(pattern(p));
        if let (Some(bits), Some(l)) = (lines.as_mut(), line) {
            bits.set(p / l);
        }
        pages.set(p / page);
    }
    Plan {
        lines: lines.map(|b| b.count),
        pages: pages.count,
        laps: accesses as f64 * stride as f64 / len as f64,
        sum,
    }
}

/// A plain bitset that counts how many bits were set.
struct Bits {
    words: Vec<u64>,
    count: u64,
}

impl Bits {
    fn new(n: usize) -> Bits {
        Bits {
            words: vec![0; n.div_ceil(64)],
            count: 0,
        }
    }
    fn set(&mut self, i: usize) {
        let (w, b) = (i / 64, 1u64 << (i % 64));
        if self.words[w] & b == 0 {
            self.words[w] |= b;
            self.count += 1;
        }
    }
}

/// Lines touched per access when reading one byte every `stride` bytes: a line serves
/// `line / stride` accesses while the stride is narrower than it, and one access otherwise.
pub fn lines_per_access(stride: u64, line: u64) -> f64 {
    if stride >= line {
        1.0
    } else {
        stride as f64 / line as f64
    }
}

/// Bytes brought in per access but never read: each access reads one byte, and each access
/// costs `min(stride, line)` bytes of fetched line on average.
pub fn bytes_in_vain(stride: u64, line: u64) -> u64 {
    stride.min(line) - 1
}

/// The appendix's "bytes fetched in vain": `line - 1` from the line size on (a whole line
/// fetched for one byte), and 0 below it, because there a fetched line is shared by several
/// accesses and the C program counts it as used. [`bytes_in_vain`] counts the bytes no
/// access ever reads instead, so the two differ only below the line size.
pub fn appendix_vain_bytes(stride: u64, line: u64) -> u64 {
    if stride >= line { line - 1 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(len: usize) -> Vec<u8> {
        let mut b = vec![0u8; len];
        fill(&mut b);
        b
    }

    #[test]
    fn kernels_read_exactly_the_planned_positions() {
        let len = 1 << 16;
        let buf = buffer(len);
        for stride in (0..=12).map(|k| 1usize << k) {
            for accesses in [1, 7, 1000, 50_000] {
                let wrap = plan(len, stride, accesses, 0, Some(64), 4096);
                assert_eq!(stride_walk_wrap(&buf, stride, 0, accesses), wrap.sum);
                let fresh = plan(len, stride, accesses, 64, Some(64), 4096);
                assert_eq!(
                    stride_walk_fresh(&buf, stride, (0, accesses), 64),
                    fresh.sum
                );
                if stride <= 64 {
                    assert_eq!(wrap, fresh, "no shift below the line size");
                }
            }
        }
    }

    #[test]
    fn a_walk_in_segments_reads_what_the_whole_walk_reads() {
        let len = 1 << 14;
        let buf = buffer(len);
        for stride in [1, 64, 512, 4096] {
            let accesses = 50_000;
            let (wrap, fresh) = (
                plan(len, stride, accesses, 0, Some(64), 4096),
                plan(len, stride, accesses, 64, Some(64), 4096),
            );
            for parts in [1, 3, 7, 40] {
                let cut = |k: usize| k * accesses / parts;
                let (mut w, mut f) = (0, 0);
                for k in 0..parts {
                    let (a, n) = (cut(k), cut(k + 1) - cut(k));
                    w += stride_walk_wrap(&buf, stride, a, n);
                    f += stride_walk_fresh(&buf, stride, (a, n), 64);
                }
                assert_eq!(
                    (w, f),
                    (wrap.sum, fresh.sum),
                    "stride {stride}, {parts} parts"
                );
            }
        }
    }

    #[test]
    fn the_wrapping_walk_is_the_appendix_loop() {
        // p = (p + stride) & mask, as in stride.c.
        let len = 1 << 12;
        for stride in [1, 64, 1024] {
            let mut p = 0;
            for got in positions(len, stride, 200, 0) {
                assert_eq!(got, p);
                p = (p + stride) & (len - 1);
            }
        }
    }

    #[test]
    fn wide_strides_wrap_into_a_small_working_set() {
        // 64 MiB, 2M accesses: the appendix's numbers.
        let len = 64 << 20;
        let p = plan(len, 4096, 2_000_000, 0, Some(64), 4096);
        assert_eq!(
            p.lines,
            Some(16_384),
            "64 MiB / 4096 positions, one line each"
        );
        assert_eq!(p.pages, 16_384);
        assert!(p.wrapped() && (p.laps - 122.07).abs() < 0.01);
        assert_eq!(p.working_set(Some(64)), Some(1 << 20));
        // The fresh walk reaches every line instead.
        let f = plan(len, 4096, 2_000_000, 64, Some(64), 4096);
        assert_eq!(f.lines, Some((len / 64) as u64));
        // Stride 32 does not wrap: 2M * 32 bytes < 64 MiB.
        let n = plan(len, 32, 2_000_000, 0, Some(64), 4096);
        assert!(!n.wrapped());
        assert_eq!(n.lines, Some(1_000_000));
        // Unknown line size: no line count, pages still counted.
        assert_eq!(plan(len, 32, 1000, 0, None, 4096).lines, None);
    }

    #[test]
    fn line_arithmetic() {
        assert_eq!(lines_per_access(1, 64), 1.0 / 64.0);
        assert_eq!(lines_per_access(64, 64), 1.0);
        assert_eq!(lines_per_access(4096, 64), 1.0);
        assert_eq!(bytes_in_vain(1, 64), 0);
        assert_eq!(bytes_in_vain(16, 64), 15);
        assert_eq!(bytes_in_vain(4096, 64), 63);
        // The appendix prints 0 below the line size, as its C program does, and agrees above.
        assert_eq!(appendix_vain_bytes(16, 64), 0);
        assert_eq!(appendix_vain_bytes(64, 64), 63);
        assert_eq!(appendix_vain_bytes(4096, 64), bytes_in_vain(4096, 64));
    }
}
