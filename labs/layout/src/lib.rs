//! Lab: stride and layout. `baseline::column_sums` adds up each column of a row-major
//! matrix by walking down the column: every step jumps a whole row ahead in memory. The
//! student rewrites `src/solution.rs`.

pub mod baseline;
#[cfg(not(mm_lab_swapped))]
pub mod solution;
#[cfg(mm_lab_swapped)]
pub mod solution {
    include!(concat!(env!("OUT_DIR"), "/solution.rs"));
}

/// A matrix of `rows` x `cols` cells, stored row after row.
#[derive(Debug, Clone)]
pub struct Matrix {
    pub rows: usize,
    pub cols: usize,
    /// Cell (row `i`, column `j`) is `cells[i * cols + j]`.
    pub cells: Vec<u32>,
}

/// The lab's target and hint, for the checker.
pub const SPEC: labkit::Spec = labkit::Spec {
    name: "layout",
    measure: "speedup",
    target: 3.0,
    hint: "walking down a column uses 4 bytes of every 64-byte line it loads; visit the \
           cells in the order they lie in memory and keep one running sum per column",
    cores: 1,
};

/// A `rows` x `cols` matrix of random cells from `rng`.
pub fn input(rng: &mut measure::ring::Rng, rows: usize, cols: usize) -> Matrix {
    let cells = (0..rows * cols)
        .map(|_| measure::ring::below(rng, 1 << 20) as u32)
        .collect();
    Matrix { rows, cols, cells }
}
