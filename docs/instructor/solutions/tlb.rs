// Reference solution of the TLB lab (labs/tlb): gather the values once into a dense array
// (64 KiB for 8,192 records: 16 pages instead of 8,192), then look the keys up in it. The
// gathering touches every page once, in order; the lookups then hit a few pages only.
// Check it with `cargo xtask lab check tlb --solution docs/instructor/solutions/tlb.rs`.

use crate::Lookups;

/// The sum of the values of the records `l.keys` name (wrapping).
#[inline(never)]
#[unsafe(export_name = "lab_tlb_solution")]
pub fn lookup_sum(l: &Lookups) -> u64 {
    let values: Vec<u64> = l.table.iter().map(|r| r.value).collect();
    let mut sum = 0u64;
    for &k in &l.keys {
        sum = sum.wrapping_add(values[k as usize]);
    }
    sum
}
