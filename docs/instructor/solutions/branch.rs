// Reference solution of the branch lab (labs/branch): the same filter without a jump
// that depends on the data. Every byte is written; the output position advances by 0 or 1.
// Check it with `cargo xtask lab check branch --solution docs/instructor/solutions/branch.rs`.

use crate::THRESHOLD;

/// The bytes of `data` at or above [`THRESHOLD`], in their order.
#[inline(never)]
#[unsafe(export_name = "lab_branch_solution")]
pub fn filter(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; data.len()];
    let mut k = 0;
    for &x in data {
        out[k] = x;
        k += usize::from(x >= THRESHOLD);
    }
    out.truncate(k);
    out
}
