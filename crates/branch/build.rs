//! Section 5's trick: one source file (`same/sum.rs`), compiled twice by the same rustc at
//! the same `-C opt-level=3` with loop vectorisation off, into two object files linked into
//! the `branch` binary. The only difference: the second build tells LLVM's x86 backend to
//! turn every conditional move back into a branch (`-x86-cmov-converter-force-all`), as the
//! appendix's C program switches GCC's if-conversion off for one function. Which shape each
//! build has is read back from the built binary (section 1's reader, and `tests/shape.rs`).
//! Where it cannot be built (not x86-64, or rustc refuses), the binary says why instead.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=same/sum.rs");
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-check-cfg=cfg(same_source)");
    let why = match build() {
        Ok(objects) => {
            for o in objects {
                println!("cargo:rustc-link-arg-bins={}", o.display());
            }
            println!("cargo:rustc-cfg=same_source");
            String::new()
        }
        Err(e) => e,
    };
    println!("cargo:rustc-env=BRANCH_SAME_SOURCE_WHY={why}");
}

/// The two builds' flags beside the common ones: (export cfg, extra flags).
const BUILDS: [(&str, &[&str]); 2] = [
    ("select", &[]),
    (
        "branch",
        &["-C", "llvm-args=-x86-cmov-converter-force-all=true"],
    ),
];

fn build() -> Result<Vec<PathBuf>, String> {
    let arch = std::env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    if arch != "x86_64" {
        return Err(format!(
            "the second build's switch (-x86-cmov-converter-force-all) is LLVM's x86 backend's; \
             this target is {arch}"
        ));
    }
    let rustc = std::env::var("RUSTC").map_err(|e| format!("no RUSTC: {e}"))?;
    let target = std::env::var("TARGET").map_err(|e| format!("no TARGET: {e}"))?;
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| format!("no OUT_DIR: {e}"))?);
    let mut objects = vec![];
    for (name, extra) in BUILDS {
        let obj = out.join(format!("branch_same_{name}.o"));
        let mut cmd = Command::new(&rustc);
        cmd.args(["--edition", "2024", "--crate-type", "lib", "--crate-name"])
            .arg(format!("branch_same_{name}"))
            .args(["--target", &target, "--emit=obj", "-C", "opt-level=3"])
            .args([
                "-C",
                "panic=abort",
                "-C",
                "no-vectorize-loops",
                "-C",
                "no-vectorize-slp",
            ])
            .args(["-C", "debuginfo=0", "--check-cfg", "cfg(select)"])
            .args(extra);
        if name == "select" {
            cmd.args(["--cfg", "select"]);
        }
        let status = cmd
            .arg("-o")
            .arg(&obj)
            .arg("same/sum.rs")
            .status()
            .map_err(|e| format!("could not run {rustc}: {e}"))?;
        if !status.success() {
            return Err(format!(
                "{rustc} failed to build same/sum.rs ({name}): {status}"
            ));
        }
        objects.push(obj);
    }
    Ok(objects)
}
