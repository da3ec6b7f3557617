//! The student's lookups give the baseline's sum, on seeded random tables and keys.

use lab_tlb::{baseline, input, solution};
use measure::ring;

#[test]
fn the_solution_agrees_with_the_baseline() {
    let r = labkit::agree(
        |rng| {
            let records = 1 + ring::below(rng, 200);
            let keys = ring::below(rng, 5000);
            input(rng, records, keys)
        },
        baseline::lookup_sum,
        solution::lookup_sum,
        |a, b| a == b,
    );
    assert_eq!(r, Ok(()));
}

#[test]
fn lookups_that_change_the_result_are_refused() {
    let wrong = |l: &lab_tlb::Lookups| l.keys.iter().map(|&k| u64::from(k)).sum::<u64>();
    let r = labkit::agree(
        |rng| input(rng, 50, 100),
        baseline::lookup_sum,
        wrong,
        |a, b| a == b,
    );
    assert!(r.is_err());
}

#[test]
fn the_readme_states_the_checkers_target() {
    let readme = include_str!("../README.md");
    let target = format!("**{:.1}x**", lab_tlb::SPEC.target);
    assert!(
        readme.contains(&target),
        "README.md must state the target {target}"
    );
}
