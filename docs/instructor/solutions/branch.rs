// Reference solution of the branch lab (labs/branch): the same filter without a jump
// that depends on the data. Every byte is written; the output position advances by 0 or 1.
// The bytes go straight into the vector's capacity through a raw pointer. Two safe versions
// measured on a 2-vCPU Zen 3 VM reached only about 3x: `vec![0; n]` first (zeroing 256 KiB
// cost as much as the loop) and `spare_capacity_mut()[k]` (its bounds check on `k`, which
// depends on the previous byte, made the loop twice as slow); this one measured 7.2x and 7.6x.
// Check it with `cargo xtask lab check branch --solution docs/instructor/solutions/branch.rs`.

use crate::THRESHOLD;

/// The bytes of `data` at or above [`THRESHOLD`], in their order.
#[inline(never)]
#[unsafe(export_name = "lab_branch_solution")]
pub fn filter(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    let p: *mut u8 = out.as_mut_ptr();
    let mut k = 0;
    for &x in data {
        // SAFETY: k <= (bytes seen so far) < data.len() = the capacity.
        unsafe { p.add(k).write(x) };
        k += usize::from(x >= THRESHOLD);
    }
    // SAFETY: out[0..k] were written, and the bytes kept are exactly those.
    unsafe { out.set_len(k) };
    out
}
