//! The one source that section 5 builds two ways (see `../build.rs`): the appendix's sum,
//! `if (a[i] >= t) s += a[i]`, as a C-callable function over a pointer and a length, so that
//! it needs nothing from the standard library and can be compiled alone. Compiled with
//! `--cfg select` it is exported as `branch_same_select`, otherwise as `branch_same_branch`;
//! the body is the same text either way.
#![no_std]

/// The sum of the values of `a[..n]` that are at least `t`.
///
/// # Safety
/// `a` must point to `n` readable `i32`.
#[cfg_attr(select, unsafe(export_name = "branch_same_select"))]
#[cfg_attr(not(select), unsafe(export_name = "branch_same_branch"))]
pub unsafe extern "C" fn sum_at_least(a: *const i32, n: usize, t: i32) -> i64 {
    let mut s: i64 = 0;
    let mut i = 0;
    while i < n {
        // SAFETY: i < n, and the caller promises n readable values.
        let x = unsafe { *a.add(i) };
        if x >= t {
            s += x as i64;
        }
        i += 1;
    }
    s
}
