//! The code shape is the point of this experiment, so it is checked in the built binary:
//! `nm -S` finds each kernel's address and size, `objdump -d` prints that range, and the
//! loops are found from the control-flow graph (see `measure::asm`). The same tests read an
//! AArch64 binary (`cargo xtask cross-test`): a conditional jump (`b.lt`) inside the real
//! branch's loop, a conditional select (`csel`) in the branchless one's.

use branch::shape::{self, Shape};
use measure::asm;

const BIN: &str = env!("CARGO_BIN_EXE_branch");

fn function(sym: &str) -> asm::Function {
    measure::testing::function(BIN, sym)
}

#[test]
fn the_real_branch_has_a_conditional_jump_inside_its_loop() {
    let f = function("branch_real");
    let loops = f.loops();
    assert!(
        !loops.is_empty(),
        "branch_real has no loop:\n{:#?}",
        f.insns
    );
    // Not vectorised anywhere, so the jump is not a vector loop's scalar tail.
    for l in &loops {
        assert!(
            l.simd_arith().is_empty(),
            "branch_real was vectorised: {:?}",
            l.simd_arith()
        );
    }
    // A fork is a conditional jump with both ways inside the loop: not the loop's own test.
    let forks: usize = loops.iter().map(|l| l.forks.len()).sum();
    assert!(
        forks >= 1,
        "no conditional jump inside the loop body: {loops:#?}"
    );
    assert_eq!(shape::classify(&f).shape, Shape::Branch);
}

#[test]
fn the_branchless_version_has_no_jump_inside_its_loop() {
    let f = function("branch_branchless");
    let loops = f.loops();
    assert!(!loops.is_empty(), "branch_branchless has no loop");
    for l in &loops {
        assert!(
            l.forks.is_empty(),
            "a conditional jump inside the loop at {:x?}",
            l.forks
        );
        assert!(
            l.simd_arith().is_empty(),
            "the opaque barrier did not keep it scalar"
        );
        // The loop still has its own test: it leaves the loop, it does not fork inside it.
        assert!(!l.exits.is_empty());
    }
    let v = shape::classify(&f);
    assert!(
        matches!(v.shape, Shape::CondMove | Shape::Arithmetic),
        "{v:?}"
    );
    // AArch64's conditional select (`csel`) does the choosing inside the loop.
    #[cfg(target_arch = "aarch64")]
    assert!(
        loops.iter().any(|l| !l.cond_selects().is_empty()),
        "no csel in branch_branchless's loop: {loops:#?}"
    );
}

#[test]
fn the_as_written_version_gets_a_verdict_that_matches_its_loops() {
    let f = function("branch_as_written");
    let v = shape::classify(&f);
    let loops = f.loops();
    let any_simd = loops.iter().any(|l| !l.simd_arith().is_empty());
    // Whatever the compiler chose, the verdict must follow the rules: vectorised if any loop
    // does packed arithmetic, however many jumps its scalar tail has.
    assert_eq!(v.shape == Shape::Vectorised, any_simd, "{v:?}");
    if any_simd {
        assert!(v.forks.is_empty());
        assert!(v.sentence().starts_with("the compiler removed this branch"));
    }
    assert_ne!(v.shape, Shape::NoLoop);
}

#[test]
#[cfg(target_arch = "x86_64")]
fn the_one_source_is_a_conditional_move_in_one_build_and_a_branch_in_the_other() {
    // build.rs compiles same/sum.rs twice; section 2b times both. The compiler's own choice
    // is a conditional move with no jump inside the loop; the build told to turn conditional
    // moves into branches has a conditional jump inside its loop and no conditional move.
    let select = function("branch_same_select");
    let v = shape::classify(&select);
    assert_eq!(v.shape, Shape::CondMove, "{:#?}", select.insns);
    assert!(select.loops().iter().all(|l| l.forks.is_empty()));
    let branch = function("branch_same_branch");
    let v = shape::classify(&branch);
    assert_eq!(v.shape, Shape::Branch, "{:#?}", branch.insns);
    assert!(
        branch.loops().iter().all(|l| l.cond_selects().is_empty()),
        "a conditional move survived"
    );
    for f in [&select, &branch] {
        assert!(
            f.loops().iter().all(|l| l.simd_arith().is_empty()),
            "vectorised"
        );
    }
}
