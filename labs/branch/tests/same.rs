//! The student's filter computes what the baseline computes, on seeded random inputs.

use lab_branch::{baseline, input, solution};
use measure::ring;

#[test]
fn the_solution_agrees_with_the_baseline() {
    let r = labkit::agree(
        |rng| {
            let n = ring::below(rng, 20_000);
            input(rng, n)
        },
        |d| baseline::filter(d),
        |d| solution::filter(d),
        |a, b| a == b,
    );
    assert_eq!(r, Ok(()));
}

#[test]
fn a_filter_that_changes_the_result_is_refused() {
    let wrong = |d: &Vec<u8>| {
        let mut v = baseline::filter(d);
        v.retain(|&x| x != 200);
        v
    };
    let r = labkit::agree(
        |rng| input(rng, 5000),
        |d| baseline::filter(d),
        wrong,
        |a, b| a == b,
    );
    assert!(r.is_err());
}

#[test]
fn the_readme_states_the_checkers_target() {
    let readme = include_str!("../README.md");
    let target = format!("**{:.1}x**", lab_branch::SPEC.target);
    assert!(
        readme.contains(&target),
        "README.md must state the target {target}"
    );
}
