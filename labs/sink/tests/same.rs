//! The student's copy of the code under test is the baseline's, on seeded random inputs.

use lab_sink::{baseline, input, solution};
use measure::ring;

#[test]
fn the_code_under_test_is_unchanged() {
    let r = labkit::agree(
        |rng| {
            let n = ring::below(rng, 20_000);
            input(rng, n)
        },
        |d| baseline::sum_squares(d),
        |d| solution::sum_squares(d),
        |a, b| a == b,
    );
    assert_eq!(r, Ok(()));
}

#[test]
fn changed_code_under_test_is_refused() {
    let wrong = |d: &Vec<u64>| d.iter().fold(0u64, |s, &x| s.wrapping_add(x));
    let r = labkit::agree(
        |rng| input(rng, 100),
        |d| baseline::sum_squares(d),
        wrong,
        |a, b| a == b,
    );
    assert!(r.is_err());
}

#[test]
fn the_readme_states_the_checkers_target() {
    let readme = include_str!("../README.md");
    let target = format!("**{:.1}x**", lab_sink::SPEC.target);
    assert!(
        readme.contains(&target),
        "README.md must state the target {target}"
    );
}
