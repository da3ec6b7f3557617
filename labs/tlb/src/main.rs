//! The TLB lab's timing binary, run by `cargo xtask lab check tlb`.

use lab_tlb::{SPEC, baseline, input, solution};

/// Records in the timed table: 8,192 pages, 32 MiB.
const RECORDS: usize = 8192;
/// Keys looked up per call (a round of a few milliseconds at most).
const KEYS: usize = 1 << 18;

fn main() {
    labkit::args(&SPEC, "the TLB lab, timed for `cargo xtask lab check tlb`");
    let (core, pinning) = labkit::pin_main();
    let big = input(
        &mut measure::ring::rng(measure::ring::DEFAULT_SEED),
        RECORDS,
        KEYS,
    );
    let mut r = labkit::run_speedup(
        SPEC,
        core,
        |rng| {
            let records = 1 + measure::ring::below(rng, 64);
            let keys = measure::ring::below(rng, 2000);
            input(rng, records, keys)
        },
        &big,
        baseline::lookup_sum,
        solution::lookup_sum,
        |a, b| a == b,
    );
    r.fact("pinning", pinning);
    r.print();
}
