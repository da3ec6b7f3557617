//! The loops whose shape is the point, checked in the built binary (`nm -S`, `objdump -d`):
//! the laned dot products are vectorised, the strict ones and the per-operation chains are
//! scalar, and each chain does the operation it is named after. The same tests read an AArch64
//! binary (`cargo xtask cross-test`): `fdiv`, `fsqrt` and the others as scalar instructions,
//! NEON arrangements in the laned loops. The placement checks are x86-64's (the `asm!` replay
//! of GCC's code exists only there; elsewhere `fp_per_element` hands over to a plain-Rust loop).

use measure::asm::Function;

const BIN: &str = env!("CARGO_BIN_EXE_fp_cost");

fn function(sym: &str) -> Function {
    measure::testing::function(BIN, sym)
}

/// The packed-arithmetic mnemonics of every loop of `sym`.
fn simd(sym: &str) -> Vec<String> {
    let f = function(sym);
    let loops = f.loops();
    assert!(!loops.is_empty(), "{sym} has no loop");
    loops
        .iter()
        .flat_map(|l| l.simd_arith().into_iter().map(|i| i.mnemonic.clone()))
        .collect()
}

#[test]
fn the_laned_loops_are_vectorised() {
    let d = simd("fp_dot_lanes_f64");
    let f = simd("fp_dot_lanes_f32");
    assert!(!d.is_empty(), "fp_dot_lanes_f64 is not vectorised");
    assert!(!f.is_empty(), "fp_dot_lanes_f32 is not vectorised");
    #[cfg(target_arch = "x86_64")]
    {
        // Packed double (…pd) and packed single (…ps) multiplies and adds (or fused ones).
        let has = |v: &[String], suffix: &str, what: &[&str]| {
            v.iter()
                .any(|m| m.ends_with(suffix) && what.iter().any(|w| m.contains(w)))
        };
        assert!(has(&d, "pd", &["mul", "fmadd"]), "{d:?}");
        assert!(has(&d, "pd", &["add"]), "{d:?}");
        assert!(has(&f, "ps", &["mul", "fmadd"]), "{f:?}");
        assert!(has(&f, "ps", &["add"]), "{f:?}");
    }
    #[cfg(target_arch = "aarch64")]
    {
        // NEON: two doubles (`.2d`) or four floats (`.4s`) a multiply (or fused `fmla`) and
        // an add.
        for (sym, lanes) in [("fp_dot_lanes_f64", ".2d"), ("fp_dot_lanes_f32", ".4s")] {
            let packed = |what: &[&str]| {
                loop_insns(sym).iter().any(|i| {
                    i.is_simd_arith()
                        && what.contains(&i.mnemonic.as_str())
                        && i.operands.contains(lanes)
                })
            };
            assert!(packed(&["fmul", "fmla"]), "{sym}: no {lanes} multiply");
            assert!(packed(&["fadd", "fmla"]), "{sym}: no {lanes} add");
        }
    }
}

/// The instructions of every loop of `sym`.
#[cfg(target_arch = "aarch64")]
fn loop_insns(sym: &str) -> Vec<measure::asm::Insn> {
    function(sym)
        .loops()
        .into_iter()
        .flat_map(|l| l.insns)
        .collect()
}

#[test]
fn the_strict_and_four_accumulator_loops_stay_scalar() {
    for sym in [
        "fp_dot_strict_f64",
        "fp_dot_strict_f32",
        "fp_dot_four_f64",
        "fp_dot_four_f32",
    ] {
        assert!(simd(sym).is_empty(), "{sym} was vectorised");
    }
    #[cfg(target_arch = "x86_64")]
    {
        for (sym, add, at_least) in [
            ("fp_dot_strict_f64", "addsd", 1),
            ("fp_dot_strict_f32", "addss", 1),
            ("fp_dot_four_f64", "addsd", 4),
            ("fp_dot_four_f32", "addss", 4),
        ] {
            let most = most_per_iteration(sym, &[add, &format!("v{add}")], "");
            assert!(most >= at_least, "{sym}: {most} {add} per iteration");
        }
    }
    // AArch64: scalar `fadd` on `d` (double) or `s` (float) registers, and the strict loop's
    // multiply is scalar too (the compiler packs it two to a register unless kept apart).
    #[cfg(target_arch = "aarch64")]
    for (sym, reg, at_least) in [
        ("fp_dot_strict_f64", "d", 1),
        ("fp_dot_strict_f32", "s", 1),
        ("fp_dot_four_f64", "d", 4),
        ("fp_dot_four_f32", "s", 4),
    ] {
        let most = most_per_iteration(sym, &["fadd"], reg);
        assert!(most >= at_least, "{sym}: {most} fadd {reg} per iteration");
        let muls = most_per_iteration(sym, &["fmul"], reg);
        assert!(muls >= at_least, "{sym}: {muls} fmul {reg} per iteration");
    }
}

/// The most instructions named `names` (with operands starting with `operands`) in one loop
/// of `sym`.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn most_per_iteration(sym: &str, names: &[&str], operands: &str) -> usize {
    function(sym)
        .loops()
        .iter()
        .map(|l| {
            l.insns
                .iter()
                .filter(|i| {
                    names.contains(&i.mnemonic.as_str()) && i.operands.starts_with(operands)
                })
                .count()
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn the_per_element_loop_is_the_appendix_s() {
    // Scalar, one operation per element: every operation appears four times in the loop
    // (four accumulators), and the choice among them stays inside the loop. On x86-64 the
    // loop is GCC's code replayed in `fp_per_element`; elsewhere `fp_per_element` hands over
    // to the plain-Rust loop, `fp_per_element_portable`.
    let (sym, ops): (&str, [&str; 4]) = if cfg!(target_arch = "x86_64") {
        ("fp_per_element", ["mulsd", "addsd", "divsd", "sqrtsd"])
    } else {
        ("fp_per_element_portable", ["fmul", "fadd", "fdiv", "fsqrt"])
    };
    assert!(simd(sym).is_empty(), "{sym} was vectorised");
    if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        let f = function(sym);
        for op in ops {
            let n: usize = f
                .insns
                .iter()
                .filter(|i| i.mnemonic == op || i.mnemonic == format!("v{op}"))
                .count();
            assert!(n >= 4, "{sym}: {n} {op}, not one per element");
        }
        assert!(
            f.loops().iter().any(|l| !l.calls().is_empty()),
            "{sym} calls no sin inside its loop"
        );
    }
}

#[test]
fn every_operation_chain_is_scalar_and_does_its_operation() {
    // x86-64: the SSE2 scalar double instructions; AArch64: `fmul`, `fadd`, `fdiv`, `fsqrt`
    // (on `d` registers: no arrangement, which `simd` would have caught).
    let ops = if cfg!(target_arch = "aarch64") {
        [
            ("mul", &["fmul"][..]),
            ("add", &["fadd"]),
            ("div", &["fdiv"]),
            ("sqrt", &["fsqrt"]),
        ]
    } else {
        [
            ("mul", &["mulsd", "vmulsd"][..]),
            ("add", &["addsd", "vaddsd"]),
            ("div", &["divsd", "vdivsd"]),
            ("sqrt", &["sqrtsd", "vsqrtsd"]),
        ]
    };
    for (op, want) in ops {
        for kind in ["latency", "throughput"] {
            let sym = format!("fp_{op}_{kind}");
            assert!(simd(&sym).is_empty(), "{sym} was vectorised");
            if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
                let f = function(&sym);
                let l = f.loops();
                assert!(l.iter().any(|l| l.has_mnemonic(want)), "{sym}: no {want:?}");
                if kind == "throughput" {
                    // Eight independent chains: eight of the operation per iteration.
                    let n = l
                        .iter()
                        .map(|l| {
                            l.insns
                                .iter()
                                .filter(|i| want.contains(&i.mnemonic.as_str()))
                                .count()
                        })
                        .max()
                        .unwrap_or(0);
                    assert!(n >= 8, "{sym}: {n} operations per iteration");
                }
            }
        }
    }
    for kind in ["latency", "throughput"] {
        let sym = format!("fp_sin_{kind}");
        let f = function(&sym);
        assert!(
            f.loops().iter().any(|l| !l.calls().is_empty()),
            "{sym} calls no sin inside its loop"
        );
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn the_per_element_blocks_sit_where_gcc_put_them() {
    // Each block's first instruction and its offset in a 64-byte line, as in the C program
    // GCC 12.2 built on the reference machine (see src/switch.rs).
    let offset = |sym: &str, mnemonic: &str, operands: &str| {
        let f = function(sym);
        let i = f
            .insns
            .iter()
            .find(|i| i.mnemonic == mnemonic && i.operands == operands)
            .unwrap_or_else(|| panic!("{sym}: no {mnemonic} {operands}"));
        i.addr % 64
    };
    let gcc = "fp_per_element_at_24";
    assert_eq!(offset(gcc, "mov", "%r12,%r15"), 0x30, "a new pass (.L42)");
    assert_eq!(
        offset(gcc, "test", "%r14,%r14"),
        0x00,
        "cases 0 and 1 (.L96)"
    );
    assert_eq!(
        offset(gcc, "movsd", "0x0(%rbp),%xmm0"),
        0x0c,
        "a step (.L62)"
    );
    assert_eq!(offset(gcc, "divsd", "(%r15),%xmm0"), 0x08, "divide (.L43)");
    assert_eq!(offset(gcc, "sub", "$0x30,%rsp"), 0x08, "sin (.L97)");
    assert_eq!(
        offset(gcc, "mulsd", "(%r15),%xmm0"),
        0x18,
        "multiply (.L94)"
    );
    for at in [0, 8, 16, 32, 40, 48, 56] {
        // Section 3a's loop is the one at 0.
        let sym = match at {
            0 => "fp_per_element".to_string(),
            _ => format!("fp_per_element_at_{at}"),
        };
        assert_eq!(offset(&sym, "mulsd", "(%r15),%xmm0"), at, "{sym}");
        assert_eq!(
            offset(&sym, "test", "%r14,%r14"),
            0x00,
            "{sym}: the rest as GCC's"
        );
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn the_multiply_block_is_as_long_as_the_verdict_assumes() {
    // src/switch.rs MULTIPLY_BLOCK_BYTES: from case 0's first instruction to the end of its
    // closing jump; section 3a's verdict says which placements span two lines from it.
    for sym in [
        "fp_per_element",
        "fp_per_element_at_24",
        "fp_per_element_at_56",
    ] {
        let f = function(sym);
        let first = f
            .insns
            .iter()
            .position(|i| i.mnemonic == "mulsd" && i.operands == "(%r15),%xmm0")
            .unwrap_or_else(|| panic!("{sym}: no multiply block"));
        let jmp = first
            + f.insns[first..]
                .iter()
                .position(|i| i.mnemonic == "jmp")
                .unwrap_or_else(|| panic!("{sym}: the multiply block has no jump"));
        let end = f.insns[jmp + 1].addr;
        assert_eq!(end - f.insns[first].addr, 59, "{sym}");
    }
}

#[test]
#[cfg(target_arch = "x86_64")]
fn the_baseline_multiply_block_sits_in_one_line() {
    // Section 3a's baseline: case 0's block, from its first multiply to the end of its
    // closing jump, within one 64-byte line of code; GCC's layout's spans two.
    let line_span = |sym: &str| {
        let f = function(sym);
        let first = f
            .insns
            .iter()
            .position(|i| i.mnemonic == "mulsd" && i.operands == "(%r15),%xmm0")
            .unwrap_or_else(|| panic!("{sym}: no multiply block"));
        let jmp = first
            + f.insns[first..]
                .iter()
                .position(|i| i.mnemonic == "jmp")
                .unwrap_or_else(|| panic!("{sym}: the multiply block has no jump"));
        let (start, last) = (f.insns[first].addr, f.insns[jmp + 1].addr - 1);
        (start / 64, last / 64)
    };
    let (first, last) = line_span("fp_per_element");
    assert_eq!(
        first, last,
        "3a's multiply block spans lines {first} to {last}"
    );
    let (first, last) = line_span("fp_per_element_at_24");
    assert_eq!(last, first + 1, "GCC's layout: the block spans two lines");
}
