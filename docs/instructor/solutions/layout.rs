// Reference solution of the layout lab (labs/layout): walk the matrix in the order it lies
// in memory, row after row, adding each row into one running sum per column. Every 64-byte
// line is used whole, and the inner loop vectorises.
// Check it with `cargo xtask lab check layout --solution docs/instructor/solutions/layout.rs`.

use crate::Matrix;

/// The sum of every column of `m`: element `j` is the sum of column `j`.
#[inline(never)]
#[unsafe(export_name = "lab_layout_solution")]
pub fn column_sums(m: &Matrix) -> Vec<u64> {
    let mut sums = vec![0u64; m.cols];
    for row in m.cells.chunks_exact(m.cols.max(1)) {
        for (s, &x) in sums.iter_mut().zip(row) {
            *s += u64::from(x);
        }
    }
    sums
}
