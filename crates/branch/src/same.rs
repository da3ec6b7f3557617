//! Section 5: the same source, only the compiler's choices differ. `same/sum.rs` is built
//! twice by `build.rs` (the same rustc, the same `-C opt-level=3`; the second build tells the
//! x86 backend to turn conditional moves into branches) and both objects are linked here.
//! Each build's shape is read back from this binary, and both are timed side by side over
//! the random and the sorted values, through the same interleaved rounds as section 2.

use crate::bench::Built;
use branch::shape::Shape;
use measure::show::marked;
use measure::stats::Summary;

/// Why the two builds are missing from this binary; empty when they are here.
pub const WHY_NOT: &str = env!("BRANCH_SAME_SOURCE_WHY");

#[cfg(same_source)]
unsafe extern "C" {
    fn branch_same_select(a: *const i32, n: usize, t: i32) -> i64;
    fn branch_same_branch(a: *const i32, n: usize, t: i32) -> i64;
}

/// The build left to the compiler: `same/sum.rs` at `-C opt-level=3`.
#[cfg(same_source)]
fn select(a: &[i32], t: i32) -> i64 {
    // SAFETY: the pointer and length come from one slice.
    unsafe { branch_same_select(a.as_ptr(), a.len(), t) }
}

/// The same source with the backend told to make every conditional move a branch.
#[cfg(same_source)]
fn branch(a: &[i32], t: i32) -> i64 {
    // SAFETY: the pointer and length come from one slice.
    unsafe { branch_same_branch(a.as_ptr(), a.len(), t) }
}

/// The two builds: (label, symbol, the flag that differs, kernel).
#[cfg(same_source)]
pub const BUILDS: [(&str, &str, &str, crate::Kernel); 2] = [
    (
        "-C opt-level=3",
        "branch_same_select",
        "the compiler's choice",
        select,
    ),
    (
        "+ cmov-converter-force-all",
        "branch_same_branch",
        "every cmov made a branch",
        branch,
    ),
];
#[cfg(not(same_source))]
pub const BUILDS: [(&str, &str, &str, crate::Kernel); 0] = [];

/// What section 5 says: each build's shape and whether the order mattered, from the run's
/// figures. Marked through [`marked`] when the rounds were disturbed.
pub fn verdict(built: &[Built], tally: &measure::disturb::Tally) -> Vec<String> {
    let word = |s: Option<Shape>| s.map_or("an unchecked shape", Shape::word);
    let ratio = |s: &Summary, r: &Summary| r.median / s.median;
    let mut say = vec![];
    for b in built {
        say.push(format!(
            "{} ({}): {} in the binary; random / sorted {:.2}x.",
            b.label,
            b.flag,
            word(b.shape),
            ratio(&b.sorted, &b.random)
        ));
    }
    if let [sel, br] = built {
        let branchy = br.shape == Some(Shape::Branch) && sel.shape != Some(Shape::Branch);
        say.push(if branchy && ratio(&br.sorted, &br.random) > 1.5 {
            format!(
                "one source, two builds: where the build made a branch, random order costs \
                 {:.1}x sorted; where the compiler chose a conditional move, order makes {:.2}x. \
                 The machine and the source did not change, the compiler's choice did.",
                ratio(&br.sorted, &br.random),
                ratio(&sel.sorted, &sel.random)
            )
        } else {
            "the two builds did not show the appendix's difference here (see their shapes and \
             ratios above): the lesson is not drawn from this run."
                .to_string()
        });
    }
    marked(tally, false, say)
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::disturb::Tally;

    fn built(label: &'static str, shape: Shape, random: f64) -> Built {
        let s = |m: f64| Summary::of(&[m * 0.99, m, m * 1.01]).unwrap();
        Built {
            label,
            flag: "f",
            shape: Some(shape),
            random: s(random),
            sorted: s(0.7),
            tally: Tally::default(),
        }
    }

    #[test]
    fn the_lesson_is_drawn_only_from_the_shapes_and_times_that_show_it() {
        let quiet = Tally {
            rounds: 20,
            ..Default::default()
        };
        let both = [
            built("a", Shape::CondMove, 0.7),
            built("b", Shape::Branch, 3.5),
        ];
        let v = verdict(&both, &quiet);
        assert!(v[2].starts_with("one source, two builds"), "{v:?}");
        assert!(v[2].contains("5.0x"), "{v:?}");
        let flat = [
            built("a", Shape::CondMove, 0.7),
            built("b", Shape::Branch, 0.7),
        ];
        assert!(verdict(&flat, &quiet)[2].contains("not drawn"));
        let busy = Tally {
            rounds: 20,
            disturbed: 5,
            ..Default::default()
        };
        assert!(verdict(&both, &busy)[0].starts_with("provisional:"));
    }
}
