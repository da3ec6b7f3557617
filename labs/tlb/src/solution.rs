// Your solution: make `lookup_sum` faster. It must keep computing exactly what
// `baseline::lookup_sum` computes, and it may not change the table it is given.
// Check it with `cargo xtask lab check tlb`.

use crate::Lookups;

/// The sum of the values of the records `l.keys` name (wrapping).
#[inline(never)]
#[unsafe(export_name = "lab_tlb_solution")]
pub fn lookup_sum(l: &Lookups) -> u64 {
    let mut sum = 0u64;
    for &k in &l.keys {
        sum = sum.wrapping_add(l.table[k as usize].value);
    }
    sum
}
