// Your solution: make `filter` faster. It must keep computing exactly what
// `baseline::filter` computes. Check it with `cargo xtask lab check branch`.

use crate::THRESHOLD;

/// The bytes of `data` at or above [`THRESHOLD`], in their order.
#[inline(never)]
#[unsafe(export_name = "lab_branch_solution")]
pub fn filter(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    for &x in data {
        if x >= THRESHOLD {
            out.push(x);
        }
    }
    out
}
