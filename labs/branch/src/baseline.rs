//! The baseline: nobody edits this file.

use crate::THRESHOLD;

/// The bytes of `data` at or above [`THRESHOLD`], in their order.
#[inline(never)]
#[unsafe(export_name = "lab_branch_baseline")]
pub fn filter(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len());
    for &x in data {
        if x >= THRESHOLD {
            out.push(x);
        }
    }
    out
}
