//! What the compiler made of every timed loop, read back from this binary (`nm -S`,
//! `objdump -d` through `measure::asm`): vectorised, scalar, or not checkable.

use measure::asm;
use std::path::Path;

/// One kernel's code, as read back.
pub struct Shape {
    pub symbol: &'static str,
    /// One word for `#DATA`: `vectorised`, `scalar`, `no_loop` or `unchecked`.
    pub word: &'static str,
    /// The same for people, with the arithmetic mnemonics found in its loops.
    pub text: String,
    /// The arithmetic mnemonics found in its loops (packed ones if vectorised).
    pub mnemonics: Vec<String>,
    /// Where its main loop (the vectorised one, if any) begins in the binary.
    pub loop_addr: Option<u64>,
}

/// The shapes of a list of kernels, in the order they were read.
pub struct Shapes(pub Vec<Shape>);

impl Shapes {
    /// Reads every symbol's loops back from the running executable.
    pub fn read_back(symbols: impl IntoIterator<Item = &'static str>) -> Shapes {
        let exe = std::env::current_exe().ok();
        Shapes(
            symbols
                .into_iter()
                .map(|symbol| {
                    let (word, text, mnemonics, loop_addr) = match &exe {
                        Some(p) => code_shape(p, symbol),
                        None => (
                            "unchecked",
                            "could not check (no path to this executable)".to_string(),
                            Vec::new(),
                            None,
                        ),
                    };
                    Shape {
                        symbol,
                        word,
                        text,
                        mnemonics,
                        loop_addr,
                    }
                })
                .collect(),
        )
    }

    /// Where `symbol`'s main loop begins, if it was read.
    pub fn loop_addr(&self, symbol: &str) -> Option<u64> {
        self.0.iter().find(|s| s.symbol == symbol)?.loop_addr
    }

    /// The word for `symbol`; `unchecked` if it was not read.
    pub fn of(&self, symbol: &str) -> &'static str {
        self.0
            .iter()
            .find(|s| s.symbol == symbol)
            .map_or("unchecked", |s| s.word)
    }
}

/// What the compiler made of `sym`'s loops: a word for `#DATA`, a line for people, the
/// arithmetic mnemonics, and where the main loop (the first vectorised one, else the first)
/// begins.
fn code_shape(exe: &Path, sym: &str) -> (&'static str, String, Vec<String>, Option<u64>) {
    let f = match asm::disassemble(exe, sym) {
        Ok(f) => f,
        Err(e) => {
            return (
                "unchecked",
                format!("could not check ({e})"),
                Vec::new(),
                None,
            );
        }
    };
    let loops = f.loops();
    if loops.is_empty() {
        return ("no_loop", "no loop found".into(), Vec::new(), None);
    }
    let main = loops
        .iter()
        .find(|l| !l.simd_arith().is_empty())
        .unwrap_or(&loops[0]);
    let start = main.insns.iter().map(|i| i.addr).min();
    let mut simd: Vec<String> = loops
        .iter()
        .flat_map(|l| l.simd_arith().into_iter().map(|i| i.mnemonic.clone()))
        .collect();
    simd.sort();
    simd.dedup();
    if !simd.is_empty() {
        return (
            "vectorised",
            format!("vectorised ({})", simd.join(", ")),
            simd,
            start,
        );
    }
    let mut fp: Vec<String> = loops
        .iter()
        .flat_map(|l| l.insns.iter())
        .filter(|i| is_scalar_fp(&i.mnemonic) || i.is_call())
        .map(|i| i.mnemonic.clone())
        .collect();
    fp.sort();
    fp.dedup();
    ("scalar", format!("scalar ({})", fp.join(", ")), fp, start)
}

/// Scalar floating-point arithmetic mnemonics (x86-64 SSE/AVX, AArch64).
fn is_scalar_fp(m: &str) -> bool {
    let base = m.strip_prefix('v').unwrap_or(m);
    ["add", "sub", "mul", "div", "sqrt"].iter().any(|p| {
        base.starts_with(p)
            && (base.ends_with("sd") || base.ends_with("ss"))
            && base.len() <= p.len() + 2
    }) || matches!(m, "fadd" | "fsub" | "fmul" | "fdiv" | "fsqrt" | "fmadd")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_fp_mnemonics() {
        for m in ["addsd", "vmulss", "divsd", "vsqrtsd", "fmadd", "fdiv"] {
            assert!(is_scalar_fp(m), "{m}");
        }
        for m in ["addpd", "vmulps", "mov", "addsubpd", "call"] {
            assert!(!is_scalar_fp(m), "{m}");
        }
    }
}
