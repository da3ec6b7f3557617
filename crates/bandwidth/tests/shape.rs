//! The kernels' shape is the point of this experiment, so it is checked in the built binary:
//! `nm -S` finds each kernel, `objdump -d` prints it, and its loops are found from the
//! control-flow graph (`measure::asm`). The plain loops are vectorised at the baseline width
//! and call nothing (no `memcpy`, no `memset`); the explicit kernels load, add and store at
//! the width their name says; the streaming ones store non-temporally and end with `sfence`.
//! On AArch64 (`cargo xtask cross-test`, with `aarch64-linux-gnu-objdump`) the plain loops and
//! the NEON kernels load and store 16-byte vectors.

use measure::asm::{Function, Insn};

const BIN: &str = env!("CARGO_BIN_EXE_bandwidth");

fn function(sym: &str) -> Function {
    measure::testing::function(BIN, sym)
}

/// The instructions of every loop of `sym` (panics if it has none).
fn loop_insns(sym: &str) -> Vec<Insn> {
    let f = function(sym);
    let loops = f.loops();
    assert!(!loops.is_empty(), "{sym} has no loop:\n{:#?}", f.insns);
    loops.into_iter().flat_map(|l| l.insns).collect()
}

/// Whether an instruction reads or writes memory (an x86 `(...)` operand).
#[cfg(target_arch = "x86_64")]
fn touches_memory(i: &Insn) -> bool {
    i.operands.contains('(') && !i.mnemonic.starts_with("lea") && !i.mnemonic.starts_with("nop")
}

/// A store: on x86 (AT&T), the memory operand comes last.
#[cfg(target_arch = "x86_64")]
fn is_store(i: &Insn) -> bool {
    touches_memory(i) && i.operands.trim_end().ends_with(')')
}

#[test]
fn every_kernel_is_in_the_binary() {
    for sym in ["bw_read_plain", "bw_write_plain", "bw_copy_plain"] {
        function(sym);
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_plain_loops_are_vectorised_at_the_baseline_width_and_call_nothing() {
    for sym in ["bw_read_plain", "bw_write_plain", "bw_copy_plain"] {
        let l = loop_insns(sym);
        assert!(
            l.iter().all(|i| !i.is_call()),
            "{sym} calls from its loop: {l:#?}"
        );
        let vec_mem: Vec<&Insn> = l
            .iter()
            .filter(|i| touches_memory(i) && i.operands.contains("%xmm"))
            .collect();
        assert!(
            !vec_mem.is_empty(),
            "{sym}: no 16-byte vector memory access in a loop: {l:#?}"
        );
        assert!(
            l.iter()
                .all(|i| !i.operands.contains("%ymm") && !i.operands.contains("%zmm")),
            "{sym} uses wider registers than the baseline"
        );
    }
    // The read adds packed 64-bit integers; the write and the copy store vectors.
    assert!(
        loop_insns("bw_read_plain")
            .iter()
            .any(|i| i.mnemonic == "paddq")
    );
    for sym in ["bw_write_plain", "bw_copy_plain"] {
        assert!(
            loop_insns(sym)
                .iter()
                .any(|i| is_store(i) && i.operands.contains("%xmm")),
            "{sym} has no vector store in a loop"
        );
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_explicit_kernels_use_the_width_their_name_says() {
    for (width, reg) in [("avx512", "%zmm"), ("avx2", "%ymm"), ("sse2", "%xmm")] {
        let read = loop_insns(&format!("bw_read_{width}"));
        let adds = read
            .iter()
            .filter(|i| i.mnemonic.ends_with("paddq") && i.operands.contains(reg))
            .count();
        assert!(
            adds >= 4,
            "bw_read_{width}: {adds} packed adds on {reg}: {read:#?}"
        );
        for op in ["write", "copy"] {
            let sym = format!("bw_{op}_{width}");
            let l = loop_insns(&sym);
            let stores = l
                .iter()
                .filter(|i| is_store(i) && i.operands.contains(reg))
                .count();
            assert!(stores >= 4, "{sym}: {stores} stores of {reg}: {l:#?}");
            assert!(
                l.iter().all(|i| !i.mnemonic.contains("movnt")),
                "{sym} stores non-temporally"
            );
        }
        let copy = loop_insns(&format!("bw_copy_{width}"));
        let loads = copy
            .iter()
            .filter(|i| touches_memory(i) && !is_store(i) && i.operands.contains(reg))
            .count();
        assert!(loads >= 4, "bw_copy_{width}: {loads} loads of {reg}");
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_streaming_kernels_store_non_temporally_and_fence() {
    for (width, reg) in [("avx512", "%zmm"), ("avx2", "%ymm"), ("sse2", "%xmm")] {
        for op in ["write", "copy"] {
            let sym = format!("bw_{op}_nt_{width}");
            let l = loop_insns(&sym);
            let nt: Vec<&Insn> = l
                .iter()
                .filter(|i| i.mnemonic.trim_start_matches('v') == "movntdq")
                .collect();
            assert!(
                nt.len() >= 4,
                "{sym}: {} movntdq in its loop: {l:#?}",
                nt.len()
            );
            assert!(
                nt.iter().all(|i| i.operands.contains(reg)),
                "{sym}: {nt:#?}"
            );
            // (The only other store in the loop is black_box spilling the pointer to the stack.)
            assert!(
                l.iter().all(|i| !(is_store(i)
                    && i.operands.contains(reg)
                    && !i.mnemonic.contains("movnt"))),
                "{sym} also stores vectors through the cache in its loop"
            );
            let f = function(&sym);
            assert!(
                f.insns.iter().any(|i| i.mnemonic == "sfence"),
                "{sym} does not end with sfence"
            );
        }
    }
}

#[cfg(target_arch = "aarch64")]
#[test]
fn the_plain_loops_are_vectorised_with_neon_and_call_nothing() {
    // NEON is AArch64's baseline: the plain loops load and store 16-byte vectors (`ldp q`,
    // `ld1 {v.2d}`), and call no `memcpy` or `memset`.
    for sym in ["bw_read_plain", "bw_write_plain", "bw_copy_plain"] {
        let l = loop_insns(sym);
        assert!(
            l.iter().all(|i| !i.is_call()),
            "{sym} calls from its loop: {l:#?}"
        );
    }
    for sym in ["bw_read_plain", "bw_copy_plain"] {
        let l = loop_insns(sym);
        assert!(
            l.iter().any(Insn::is_vector_load),
            "{sym}: no NEON load in a loop: {l:#?}"
        );
    }
    for sym in ["bw_write_plain", "bw_copy_plain"] {
        let l = loop_insns(sym);
        assert!(
            l.iter().any(Insn::is_vector_store),
            "{sym}: no NEON store in a loop: {l:#?}"
        );
    }
}

#[cfg(target_arch = "aarch64")]
#[test]
fn the_neon_kernels_use_16_byte_vectors() {
    let read = loop_insns("bw_read_neon");
    assert!(
        read.iter().any(Insn::is_vector_load),
        "bw_read_neon loads no NEON vector: {read:#?}"
    );
    assert!(
        read.iter().any(|i| i.is_simd_arith()),
        "bw_read_neon adds no vectors: {read:#?}"
    );
    for sym in ["bw_write_neon", "bw_copy_neon"] {
        let l = loop_insns(sym);
        assert!(
            l.iter().any(Insn::is_vector_store),
            "{sym} stores no vector in a loop: {l:#?}"
        );
    }
    let copy = loop_insns("bw_copy_neon");
    assert!(
        copy.iter().any(Insn::is_vector_load),
        "bw_copy_neon loads no NEON vector: {copy:#?}"
    );
}

/// The explicit reads are hand-scheduled for the core's load limit: the innermost loop holds
/// eight vector loads (eight independent sums) and little else, at most 1.5 instructions a
/// load (the four-load loop it replaced needed 1.75).
#[cfg(target_arch = "x86_64")]
#[test]
fn the_explicit_reads_issue_eight_loads_a_step_and_little_else() {
    for (sym, reg) in [
        ("bw_read_avx512", "%zmm"),
        ("bw_read_avx2", "%ymm"),
        ("bw_read_sse2", "%xmm"),
    ] {
        let loops = function(sym).loops();
        let loads_of = |l: &measure::asm::Loop| {
            l.insns
                .iter()
                .filter(|i| touches_memory(i) && !is_store(i) && i.operands.contains(reg))
                .count()
        };
        let inner = loops
            .iter()
            .max_by_key(|l| loads_of(l))
            .unwrap_or_else(|| panic!("{sym} has no loop"));
        let loads = loads_of(inner);
        assert_eq!(loads, 8, "{sym}: {:#?}", inner.insns);
        assert!(
            inner.insns.len() as f64 / loads as f64 <= 1.5,
            "{sym}: {} instructions for {loads} loads: {:#?}",
            inner.insns.len(),
            inner.insns
        );
    }
}
