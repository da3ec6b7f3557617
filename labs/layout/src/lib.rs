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

/// A square matrix of `n` x `n` cells, stored row after row.
#[derive(Debug, Clone)]
pub struct Matrix {
    pub n: usize,
    /// Cell (row `i`, column `j`) is `cells[i * n + j]`.
    pub cells: Vec<u32>,
}

/// The lab's target and hint, for the checker.
pub const SPEC: labkit::Spec = labkit::Spec {
    name: "layout",
    measure: "speedup",
    target: 3.0,
    hint: "walking down a column uses 4 bytes of every 64-byte line it loads; visit the \
           cells in the order they lie in memory and keep one running sum per column",
};

/// An `n` x `n` matrix of random cells from `rng`.
pub fn input(rng: &mut measure::ring::Rng, n: usize) -> Matrix {
    let cells = (0..n * n)
        .map(|_| measure::ring::below(rng, 1 << 20) as u32)
        .collect();
    Matrix { n, cells }
}
