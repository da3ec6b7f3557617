//! Lab: the TLB. `baseline::lookup_sum` looks up random keys in a table whose entries are
//! 4 KiB records: the values it reads would fit in 64 KiB, but they lie one per page, so
//! nearly every lookup needs an address translation the TLB no longer holds. The student
//! rewrites `src/solution.rs`.

pub mod baseline;
#[cfg(not(mm_lab_swapped))]
pub mod solution;
#[cfg(mm_lab_swapped)]
pub mod solution {
    include!(concat!(env!("OUT_DIR"), "/solution.rs"));
}

/// One record: the value lookups read, and the rest of a 4 KiB page that they never touch.
#[derive(Debug, Clone)]
#[repr(C, align(4096))]
pub struct Record {
    pub value: u64,
    pub cold: [u64; 511],
}

/// The table and the keys to look up in it.
#[derive(Debug, Clone)]
pub struct Lookups {
    pub table: Vec<Record>,
    /// Indices into `table`.
    pub keys: Vec<u32>,
}

/// The lab's target and hint, for the checker.
pub const SPEC: labkit::Spec = labkit::Spec {
    name: "tlb",
    measure: "speedup",
    target: 3.0,
    hint: "the values you read fit in 64 KiB, but they are spread over 8,192 pages and the \
           TLB holds a few thousand translations; gather them once into a dense array",
    cores: 1,
};

/// A table of `records` records with random values and `keys` random keys into it.
pub fn input(rng: &mut measure::ring::Rng, records: usize, keys: usize) -> Lookups {
    let table = (0..records)
        .map(|_| Record {
            value: measure::ring::below(rng, 1 << 30) as u64,
            cold: [0; 511],
        })
        .collect();
    let keys = (0..keys)
        .map(|_| measure::ring::below(rng, records) as u32)
        .collect();
    Lookups { table, keys }
}
