//! The student's filter gives the baseline's output, on seeded random signals.

use lab_denormals::{baseline, input, same, solution};
use measure::ring;

#[test]
fn the_solution_agrees_with_the_baseline() {
    let r = labkit::agree(
        |rng| {
            let n = ring::below(rng, 20_000);
            input(rng, n, 1e-39)
        },
        |x| baseline::smooth(x),
        |x| solution::smooth(x),
        |a, b| same(a, b),
    );
    assert_eq!(r, Ok(()));
}

#[test]
fn a_filter_that_changes_the_result_is_refused() {
    let wrong = |x: &Vec<f32>| x.iter().map(|v| v * 0.5).collect::<Vec<f32>>();
    let r = labkit::agree(
        |rng| input(rng, 1000, 1e-39),
        |x| baseline::smooth(x),
        wrong,
        |a, b| same(a, b),
    );
    assert!(r.is_err());
}

#[test]
fn a_flushed_tail_agrees_and_a_changed_loud_part_does_not() {
    assert!(same(&[0.5, 1e-39], &[0.5, 0.0]));
    assert!(!same(&[0.5, 1e-39], &[0.4, 1e-39]));
    assert!(!same(&[0.5], &[0.5, 0.0]));
}

#[test]
fn the_readme_states_the_checkers_target() {
    let readme = include_str!("../README.md");
    let target = format!("**{:.1}x**", lab_denormals::SPEC.target);
    assert!(
        readme.contains(&target),
        "README.md must state the target {target}"
    );
}
