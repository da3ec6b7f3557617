//! The student's column sums are the baseline's, on seeded random matrices.

use lab_layout::{baseline, input, solution};
use measure::ring;

#[test]
fn the_solution_agrees_with_the_baseline() {
    let r = labkit::agree(
        |rng| {
            let rows = ring::below(rng, 300);
            let cols = 1 + ring::below(rng, 300);
            input(rng, rows, cols)
        },
        baseline::column_sums,
        solution::column_sums,
        |a, b| a == b,
    );
    assert_eq!(r, Ok(()));
}

#[test]
fn sums_that_change_the_result_are_refused() {
    let wrong = |m: &lab_layout::Matrix| {
        let mut s = baseline::column_sums(m);
        s[0] += 1;
        s
    };
    let r = labkit::agree(
        |rng| input(rng, 50, 40),
        baseline::column_sums,
        wrong,
        |a, b| a == b,
    );
    assert!(r.is_err());
}

#[test]
fn the_readme_states_the_checkers_target() {
    let readme = include_str!("../README.md");
    let target = format!("**{:.1}x**", lab_layout::SPEC.target);
    assert!(
        readme.contains(&target),
        "README.md must state the target {target}"
    );
}
