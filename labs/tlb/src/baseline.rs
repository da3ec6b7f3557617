//! The baseline: nobody edits this file.

use crate::Lookups;

/// The sum of the values of the records `l.keys` name (wrapping).
#[inline(never)]
#[unsafe(export_name = "lab_tlb_baseline")]
pub fn lookup_sum(l: &Lookups) -> u64 {
    let mut sum = 0u64;
    for &k in &l.keys {
        sum = sum.wrapping_add(l.table[k as usize].value);
    }
    sum
}
