//! The baseline: nobody edits this file.

use crate::Matrix;

/// The sum of every column of `m`: element `j` is the sum of column `j`.
#[inline(never)]
#[unsafe(export_name = "lab_layout_baseline")]
pub fn column_sums(m: &Matrix) -> Vec<u64> {
    let mut sums = vec![0u64; m.cols];
    for (j, sum) in sums.iter_mut().enumerate() {
        let mut s = 0u64;
        for i in 0..m.rows {
            s += u64::from(m.cells[i * m.cols + j]);
        }
        *sum = s;
    }
    sums
}
