//! `cargo xtask cross-test`: the experiments and their tests built for AArch64 and run under
//! `qemu-aarch64`, so that the code only AArch64 runs (the NEON kernels, `CTR_EL0`, `FPCR`, the
//! `CNTVCT_EL0` counter, the AArch64 shapes of the kernels) runs somewhere on every CI run.
//!
//! ```text
//! cargo xtask cross-test
//! ```
//!
//! It installs nothing. It needs four things, and where one is missing it says in one line
//! what is missing and how to get it, and exits 0 as "skipped" (so CI can always call it):
//! the target's standard library (`rustup target add aarch64-unknown-linux-gnu`), a linker
//! (Debian's `gcc-aarch64-linux-gnu`, which brings the AArch64 C library under
//! `/usr/aarch64-linux-gnu`), the emulator (`qemu-user`) and the target's binutils
//! (`binutils-aarch64-linux-gnu`: the shape tests read the AArch64 machine code with
//! `aarch64-linux-gnu-objdump`).
//!
//! With all four it runs `cargo test --workspace --exclude xtask --target
//! aarch64-unknown-linux-gnu --no-fail-fast`, giving that cargo the linker and the runner
//! (`CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER`/`_RUNNER`, unless already set): cargo starts
//! every test binary through the runner, and the tests start the experiments through it too
//! (`measure::testing::command`). xtask itself is left out: it is the host's tool, its tests
//! are the native suite's. Every experiment knows it runs emulated (`measure::emulation`), so
//! its reports print no verdict about speed and its tests leave timing checks out; everything
//! else (parsing, checksums, code paths, shapes, bad input) is checked as on the machine.

use crate::error::{Result, failed};
use std::path::Path;
use std::process::Command;

/// The target this command builds for.
pub const TARGET: &str = "aarch64-unknown-linux-gnu";
/// The Debian cross toolchain's prefix.
const PREFIX: &str = "aarch64-linux-gnu-";
/// Where Debian's cross C library lives: qemu's `-L`.
const SYSROOT: &str = "/usr/aarch64-linux-gnu";

/// `cargo xtask cross-test`.
pub fn command() -> Result<()> {
    let missing = missing();
    if !missing.is_empty() {
        println!("{}", skip_line(&missing));
        return Ok(());
    }
    eprintln!("cross-test: building for {TARGET} and running the tests under qemu-aarch64 ...");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut c = Command::new(cargo);
    c.args([
        "test",
        "--workspace",
        "--exclude",
        "xtask",
        "--target",
        TARGET,
        "--no-fail-fast",
    ])
    .current_dir(crate::project::root())
    // The tests check that the emulator is seen by its real sign, not by the override.
    .env_remove(measure::emulation::OVERRIDE)
    .env("MM_EXPECT_EMULATED", "1");
    for (var, value) in [
        (variable("LINKER"), format!("{PREFIX}gcc")),
        (variable("RUNNER"), format!("qemu-aarch64 -L {SYSROOT}")),
    ] {
        if std::env::var_os(&var).is_none() {
            c.env(var, value);
        }
    }
    match c.status() {
        Ok(s) if s.success() => {
            eprintln!("cross-test: every test passed under qemu-aarch64");
            Ok(())
        }
        Ok(s) => Err(failed(format!("the tests failed under qemu-aarch64 ({s})"))),
        Err(e) => Err(failed(format!("cargo could not be started: {e}"))),
    }
}

/// Cargo's variable for this target: `CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_<what>`.
fn variable(what: &str) -> String {
    measure::emulation::runner_variable(TARGET).replace("_RUNNER", &format!("_{what}"))
}

/// What is missing, each as `(what, how to get it)`, in the order they are needed.
pub fn missing() -> Vec<(&'static str, &'static str)> {
    let mut m = Vec::new();
    if !std_installed() {
        m.push((
            "the aarch64 standard library",
            "rustup target add aarch64-unknown-linux-gnu",
        ));
    }
    if !on_path(&format!("{PREFIX}gcc")) || !Path::new(SYSROOT).is_dir() {
        m.push((
            "aarch64-linux-gnu-gcc",
            "apt-get install gcc-aarch64-linux-gnu",
        ));
    }
    if !on_path("qemu-aarch64") {
        m.push(("qemu-aarch64", "apt-get install qemu-user"));
    }
    if !on_path(&format!("{PREFIX}objdump")) || !on_path(&format!("{PREFIX}nm")) {
        m.push((
            "aarch64-linux-gnu-objdump",
            "apt-get install binutils-aarch64-linux-gnu",
        ));
    }
    m
}

/// The one line printed when something is missing.
pub fn skip_line(missing: &[(&str, &str)]) -> String {
    let items: Vec<String> = missing
        .iter()
        .map(|(what, how)| format!("{what} ({how})"))
        .collect();
    format!(
        "cross-test: skipped: missing {}; nothing was built or run",
        items.join(", ")
    )
}

/// Whether the target's standard library is installed: a `libstd-*` in rustc's library
/// folder for it.
fn std_installed() -> bool {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let Ok(out) = Command::new(rustc)
        .args(["--print", "target-libdir", "--target", TARGET])
        .output()
    else {
        return false;
    };
    let dir = String::from_utf8_lossy(&out.stdout).trim().to_string();
    out.status.success()
        && std::fs::read_dir(dir).is_ok_and(|d| {
            d.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with("libstd-"))
        })
}

/// Whether `program` is a file in one of `PATH`'s folders.
fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join(program).is_file()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skip_line_names_what_is_missing_and_how_to_get_it() {
        let line = skip_line(&[
            ("qemu-aarch64", "apt-get install qemu-user"),
            (
                "aarch64-linux-gnu-objdump",
                "apt-get install binutils-aarch64-linux-gnu",
            ),
        ]);
        assert_eq!(
            line,
            "cross-test: skipped: missing qemu-aarch64 (apt-get install qemu-user), \
             aarch64-linux-gnu-objdump (apt-get install binutils-aarch64-linux-gnu); nothing \
             was built or run"
        );
        assert_eq!(line.lines().count(), 1);
    }

    #[test]
    fn cargos_variables_for_the_target() {
        assert_eq!(
            variable("LINKER"),
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER"
        );
        assert_eq!(
            variable("RUNNER"),
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER"
        );
    }

    #[test]
    fn what_is_missing_is_what_is_not_there() {
        // Each answer follows the machine: a tool is missing exactly when PATH lacks it.
        let m = missing();
        let listed = |w: &str| m.iter().any(|(what, _)| *what == w);
        assert_eq!(listed("qemu-aarch64"), !on_path("qemu-aarch64"));
        assert_eq!(listed("the aarch64 standard library"), !std_installed());
        assert!(on_path("sh") && !on_path("no-such-program-anywhere-27"));
    }
}
