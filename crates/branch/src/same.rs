//! Section 5: the same source, only the compiler's choices differ. `same/sum.rs` is built
//! twice by `build.rs` (the same rustc, the same `-C opt-level=3`; the second build tells the
//! x86 backend to turn conditional moves into branches) and both objects are linked here.
//! Each build's shape is read back from this binary, and both are timed side by side over
//! the random and the sorted values, through the same interleaved rounds as section 2.

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
