//! The build script every lab exercise shares (`build = "../labkit/solution_build.rs"`).
//!
//! Normally the exercise compiles its own `src/solution.rs` as a module. When the checker is
//! given another file (`cargo xtask lab check NAME --solution FILE`), it sets
//! `MM_LAB_SOLUTION=FILE`; this script then copies that file into the build folder and turns
//! on `cfg(mm_lab_swapped)`, under which the exercise includes the copy instead. The
//! student's own file is never written to.

use std::path::PathBuf;

fn main() {
    println!("cargo::rerun-if-env-changed=MM_LAB_SOLUTION");
    println!("cargo::rustc-check-cfg=cfg(mm_lab_swapped)");
    let Some(file) = std::env::var_os("MM_LAB_SOLUTION") else {
        return;
    };
    let file = PathBuf::from(file);
    println!("cargo::rerun-if-changed={}", file.display());
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("MM_LAB_SOLUTION={}: {e}", file.display()));
    // An included file may not have inner doc comments; they become plain comments.
    let text: String = text
        .lines()
        .map(|l| match l.trim_start().strip_prefix("//!") {
            Some(rest) => format!("//{rest}\n"),
            None => format!("{l}\n"),
        })
        .collect();
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out.join("solution.rs"), text).expect("OUT_DIR is writable");
    println!("cargo::rustc-cfg=mm_lab_swapped");
}
