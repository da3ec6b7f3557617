//! The student's counters give the baseline's totals, on seeded random inputs.

use lab_false_sharing::{baseline, input, solution};
use measure::ring;

#[test]
fn the_solution_agrees_with_the_baseline() {
    let r = labkit::agree(
        |rng| {
            let n = ring::below(rng, 20_000);
            input(rng, n)
        },
        |d| baseline::count(d),
        |d| solution::count(d),
        |a, b| a == b,
    );
    assert_eq!(r, Ok(()));
}

#[test]
fn counters_that_change_the_result_are_refused() {
    let wrong = |d: &Vec<u64>| vec![d.iter().sum::<u64>()];
    let r = labkit::agree(
        |rng| input(rng, 100),
        |d| baseline::count(d),
        wrong,
        |a, b| a == b,
    );
    assert!(r.is_err());
}

#[test]
fn the_readme_states_the_checkers_target() {
    let readme = include_str!("../README.md");
    let target = format!("**{:.1}x**", lab_false_sharing::SPEC.target);
    assert!(
        readme.contains(&target),
        "README.md must state the target {target}"
    );
}
