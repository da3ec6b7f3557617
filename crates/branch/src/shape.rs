//! What the compiler made of a loop with an `if` in it: vectorised, a conditional move, or a
//! real branch. Read from the built binary, never assumed.
//!
//! [`measure::asm`] finds the function's innermost loops. The verdict is taken from the loop
//! that does the work:
//!
//! * if any loop does packed (SIMD) arithmetic, the function is **vectorised**: the work is
//!   done lanes at a time with compare-and-mask instructions, and there is nothing to predict.
//!   A vectorised function still has a small scalar loop for the last few elements, and that
//!   tail may well hold a conditional jump; it runs a handful of times per call and does not
//!   make the function "branchy". This is the trap the classifier is built to avoid.
//! * otherwise the largest loop (the unrolled main loop, not a remainder loop) decides: a
//!   conditional jump with both ways inside the loop is a **branch**; without one, a `cmov`
//!   or `setcc` makes it a **conditional move**; with neither, plain **arithmetic**.
//!
//! The loop's own test (the jump that closes the loop or leaves it) has one way out of the loop
//! and is never counted as a branch in the body.

use measure::asm::{self, AsmError, Function, Loop};
use std::fmt;
use std::path::Path;

/// The shape of a function's main loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Packed SIMD arithmetic: no branch on the data.
    Vectorised,
    /// A conditional jump inside the loop body.
    Branch,
    /// No jump in the body; a conditional move or set.
    CondMove,
    /// No jump in the body and no conditional instruction at all.
    Arithmetic,
    /// The function has no loop (the loop was removed or unrolled away).
    NoLoop,
}

impl Shape {
    /// One word for `#DATA`.
    pub fn word(self) -> &'static str {
        match self {
            Shape::Vectorised => "vectorised",
            Shape::Branch => "branch",
            Shape::CondMove => "cmov",
            Shape::Arithmetic => "arithmetic",
            Shape::NoLoop => "no_loop",
        }
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.word())
    }
}

/// A classified function, with the evidence.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub shape: Shape,
    /// The function's start address (for printing offsets).
    pub start: u64,
    /// Innermost loops found.
    pub loops: usize,
    /// Addresses of conditional jumps inside the main loop's body (the data branches).
    pub forks: Vec<u64>,
    /// Distinct mnemonics that decided the verdict (`pcmpgtd`, `cmovl`, `jl`).
    pub evidence: Vec<String>,
    /// Descriptions of the other loops (the scalar tail of vectorised code).
    pub others: Vec<String>,
}

fn distinct(v: Vec<&asm::Insn>) -> Vec<String> {
    let mut m: Vec<String> = v.into_iter().map(|i| i.mnemonic.clone()).collect();
    m.sort();
    m.dedup();
    m
}

/// The shape of one loop taken alone.
fn loop_shape(l: &Loop) -> Shape {
    if !l.simd_arith().is_empty() {
        Shape::Vectorised
    } else if !l.forks.is_empty() {
        Shape::Branch
    } else if !l.cond_selects().is_empty() {
        Shape::CondMove
    } else {
        Shape::Arithmetic
    }
}

/// Classifies a disassembled function (see the module documentation for the rules).
pub fn classify(f: &Function) -> Verdict {
    let loops = f.loops();
    let mut v = Verdict {
        shape: Shape::NoLoop,
        start: f.start,
        loops: loops.len(),
        forks: Vec::new(),
        evidence: Vec::new(),
        others: Vec::new(),
    };
    if loops.is_empty() {
        return v;
    }
    let vector: Vec<usize> = (0..loops.len())
        .filter(|&k| !loops[k].simd_arith().is_empty())
        .collect();
    let main: Vec<usize> = if vector.is_empty() {
        // The largest loop is the main (unrolled) loop; smaller ones are remainders.
        let k = (0..loops.len())
            .max_by_key(|&k| (loops[k].insns.len(), std::cmp::Reverse(k)))
            .unwrap_or(0);
        vec![k]
    } else {
        vector
    };
    v.shape = loop_shape(&loops[main[0]]);
    for &k in &main {
        let l = &loops[k];
        v.forks.extend(l.forks.iter().copied());
        let ev = match v.shape {
            Shape::Vectorised => distinct(l.simd_arith()),
            Shape::Branch => l
                .insns
                .iter()
                .filter(|i| l.forks.contains(&i.addr))
                .map(|i| i.mnemonic.clone())
                .collect(),
            Shape::CondMove => distinct(l.cond_selects()),
            _ => Vec::new(),
        };
        v.evidence.extend(ev);
    }
    v.evidence.sort();
    v.evidence.dedup();
    if v.shape == Shape::Vectorised {
        // The forks of a vectorised function's loops are not its verdict.
        v.forks.clear();
    }
    for (k, l) in loops.iter().enumerate() {
        if main.contains(&k) {
            continue;
        }
        let s = loop_shape(l);
        let what = match s {
            Shape::Branch => format!("a conditional jump ({})", fork_names(l).join(", ")),
            Shape::CondMove => format!(
                "a conditional move ({})",
                distinct(l.cond_selects()).join(", ")
            ),
            Shape::Vectorised => "packed arithmetic".to_string(),
            _ => "plain arithmetic".to_string(),
        };
        v.others.push(format!(
            "a scalar loop of {} instructions at +0x{:x} with {what}",
            l.insns.len(),
            l.header - f.start
        ));
    }
    v
}

fn fork_names(l: &Loop) -> Vec<String> {
    l.insns
        .iter()
        .filter(|i| l.forks.contains(&i.addr))
        .map(|i| i.mnemonic.clone())
        .collect()
}

impl Verdict {
    /// The sentence a reader sees.
    pub fn sentence(&self) -> String {
        let ev = self.evidence.join(", ");
        let main = match self.shape {
            Shape::Vectorised => format!(
                "the compiler removed this branch: the loop is vectorised ({ev}), several elements per instruction, nothing to predict"
            ),
            Shape::Branch => {
                let at: Vec<String> = self
                    .forks
                    .iter()
                    .map(|a| format!("+0x{:x}", a - self.start))
                    .collect();
                format!(
                    "a real conditional jump ({ev} at {}) sits inside the loop: the predictor must guess it",
                    at.join(", ")
                )
            }
            Shape::CondMove => format!(
                "no jump inside the loop: the condition became a conditional move ({ev})"
            ),
            Shape::Arithmetic => {
                "no jump and no conditional instruction inside the loop: the condition became arithmetic"
                    .to_string()
            }
            Shape::NoLoop => "no loop found: the compiler turned the loop into something else".to_string(),
        };
        if self.shape == Shape::Vectorised && !self.others.is_empty() {
            format!(
                "{main}; besides it, {} handles the last few elements (not counted)",
                self.others.join("; ")
            )
        } else {
            main
        }
    }
}

/// Disassembles `symbol` in `binary` and classifies it.
pub fn check(binary: &Path, symbol: &str) -> Result<Verdict, AsmError> {
    asm::disassemble(binary, symbol).map(|f| classify(&f))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn func(listing: &str) -> Function {
        Function::from_listing("t", listing)
    }

    /// rustc 1.95's code for the as-written sum, shortened: a vector loop, then a scalar tail
    /// loop. Here the tail keeps a real branch, to prove the tail cannot fool the verdict.
    const VECTOR_WITH_BRANCHY_TAIL: &str = "
  10:\tpxor   %xmm0,%xmm0
  14:\tmovq   (%rdi,%rax,4),%xmm3
  19:\tmovdqa %xmm1,%xmm5
  1d:\tpcmpgtd %xmm3,%xmm5
  21:\tpandn  %xmm3,%xmm5
  25:\tpaddq  %xmm5,%xmm2
  29:\tadd    $0x4,%rax
  2d:\tcmp    %rax,%r10
  30:\tjne    14 <t+0x4>
  32:\tcmp    %r10,%r9
  35:\tje     52 <t+0x42>
  37:\tmov    (%r8),%edi
  3a:\tadd    $0x4,%r8
  3e:\tcmp    %edx,%edi
  40:\tjl     46 <t+0x36>
  42:\tmovslq %edi,%rdi
  45:\tadd    %rdi,%rax
  46:\tcmp    %rsi,%r8
  49:\tjne    37 <t+0x27>
  52:\tret
";

    #[test]
    fn a_branchy_tail_does_not_fool_the_verdict() {
        let v = classify(&func(VECTOR_WITH_BRANCHY_TAIL));
        assert_eq!(v.shape, Shape::Vectorised);
        assert_eq!(v.loops, 2);
        assert!(v.evidence.contains(&"pcmpgtd".to_string()), "{v:?}");
        assert!(v.forks.is_empty());
        assert_eq!(v.others.len(), 1);
        assert!(v.others[0].contains("conditional jump"));
        assert!(v.sentence().starts_with("the compiler removed this branch"));
    }

    /// rustc 1.95's real-branch loop: the taken arm jumps back to the loop's test.
    const REAL: &str = "
  10:\txor    %eax,%eax
  12:\tjmp    19 <t+0x9>
  14:\tadd    $0x4,%rcx
  15:\tcmp    %rcx,%rsi
  16:\tje     29 <t+0x19>
  19:\tmovslq (%rdi,%rcx,1),%r8
  1d:\tcmp    %edx,%r8d
  20:\tjl     14 <t+0x4>
  22:\tadd    %r8,%rax
  25:\tjmp    14 <t+0x4>
  29:\tret
";

    #[test]
    fn a_real_branch_is_found_and_the_loop_test_is_not_counted() {
        let v = classify(&func(REAL));
        assert_eq!(v.shape, Shape::Branch);
        assert_eq!(v.forks, vec![0x20]);
        assert_eq!(v.evidence, vec!["jl".to_string()]);
        assert!(v.sentence().contains("+0x10"));
    }

    const CMOV: &str = "
  10:\tmov    (%rdi,%r8,1),%eax
  14:\tcmp    %edx,%eax
  16:\tcmovl  %ecx,%eax
  19:\tadd    %rax,%r9
  1c:\tadd    $0x4,%r8
  20:\tcmp    %r8,%rsi
  23:\tjne    10 <t>
  25:\tret
";

    #[test]
    fn a_conditional_move_is_not_a_branch() {
        let v = classify(&func(CMOV));
        assert_eq!(v.shape, Shape::CondMove);
        assert!(v.forks.is_empty());
        assert_eq!(v.evidence, vec!["cmovl".to_string()]);
    }

    #[test]
    fn the_largest_scalar_loop_decides() {
        // An unrolled cmov loop (big) and a remainder loop with a branch (small).
        let listing = "
  10:\tmov    (%rdi),%eax
  12:\tcmp    %edx,%eax
  14:\tcmovl  %ecx,%eax
  16:\tadd    %rax,%r9
  18:\tmov    0x4(%rdi),%eax
  1a:\tcmp    %edx,%eax
  1c:\tcmovl  %ecx,%eax
  1e:\tadd    %rax,%r9
  20:\tadd    $0x8,%rdi
  22:\tcmp    %rdi,%rsi
  24:\tjne    10 <t>
  26:\tmov    (%rdi),%eax
  28:\tcmp    %edx,%eax
  2a:\tjl     2e <t+0x1e>
  2c:\tadd    %rax,%r9
  2e:\tadd    $0x4,%rdi
  30:\tcmp    %rdi,%r8
  32:\tjne    26 <t+0x16>
  34:\tret
";
        let v = classify(&func(listing));
        assert_eq!(v.shape, Shape::CondMove);
        assert_eq!(v.others.len(), 1);
    }

    #[test]
    fn no_loop() {
        let v = classify(&func("  10:\tmov    %rdi,%rax\n  13:\tret\n"));
        assert_eq!(v.shape, Shape::NoLoop);
    }
}
