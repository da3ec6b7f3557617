//! What the machine code of the three timing functions shows.
//!
//! [`measure::asm`] reads a function back out of the built binary (`nm -S` for its address
//! and size, `objdump -d` over that range) and finds its loops; this module asks the
//! questions the seed answers about these three functions: in the discarded variant nothing
//! but the two clock reads, in the sink and checksum variants a chain of dependent scalar
//! float adds between them, and in the checksum variant the store through the caller's
//! pointer. The program prints the verdict in one line (and the listings with `--show-asm`);
//! the integration test asserts the findings. x86-64 (AT&T syntax) and AArch64 listings are
//! understood. Nothing here prints.

use measure::asm::{AsmError, Function, Insn};
use std::path::Path;

/// The three timing functions, in the order (a), (b), (c).
pub const FUNCTIONS: [&str; 3] = [
    "sink_bench_time_discarded",
    "sink_bench_time_sink",
    "sink_bench_time_checksum",
];

/// Disassembles the three timing functions of `binary`.
pub fn disassemble(binary: &Path) -> Result<Vec<Function>, AsmError> {
    FUNCTIONS
        .iter()
        .map(|f| measure::asm::disassemble(binary, f))
        .collect()
}

/// The listing as human text lines (address, mnemonic, operands with objdump's annotation).
pub fn listing(f: &Function) -> Vec<String> {
    let mut out = vec![format!(
        "{:016x} <{}>: ({} bytes)",
        f.start,
        f.name,
        f.end - f.start
    )];
    out.extend(f.insns.iter().map(|i| {
        format!("{:>8x}:  {:<7} {}", i.addr, i.mnemonic, i.operands)
            .trim_end()
            .to_string()
    }));
    out
}

/// The operand text without objdump's annotation (x86 `# ...`, AArch64 `// ...`).
fn code(i: &Insn) -> &str {
    let o = i.operands.as_str();
    let cut = o
        .find("//")
        .or_else(|| o.find(" # "))
        .or_else(|| o.find("\t#"));
    cut.map_or(o, |p| &o[..p]).trim()
}

/// A scalar single-precision add (x86 `addss`/`vaddss`, AArch64 `fadd s..`).
fn is_scalar_float_add(i: &Insn) -> bool {
    matches!(i.mnemonic.as_str(), "addss" | "vaddss")
        || (i.mnemonic == "fadd" && code(i).starts_with('s'))
}

/// A packed (vector) add: a reassociated reduction would use these.
fn is_packed_add(i: &Insn) -> bool {
    i.is_simd_arith() && i.mnemonic.contains("add")
}

/// Splits operands at top-level commas (not inside parentheses or brackets).
fn operands(s: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut depth = 0;
    for c in s.chars() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => depth -= 1,
            ',' if depth == 0 => {
                out.push(String::new());
                continue;
            }
            _ => {}
        }
        if let Some(last) = out.last_mut() {
            last.push(c);
        }
    }
    out.into_iter()
        .map(|o| o.trim().to_string())
        .filter(|o| !o.is_empty())
        .collect()
}

fn is_x86(i: &Insn) -> bool {
    code(i).contains('%')
}

/// The register a scalar add accumulates into, if it reads and writes the same one.
fn accumulator(i: &Insn) -> Option<String> {
    let ops = operands(code(i));
    if is_x86(i) {
        // AT&T: `addss src, dst` (dst += src); `vaddss src2, src1, dst`.
        let dst = ops.last()?.clone();
        if ops.len() == 3 && ops[1] != dst {
            return None;
        }
        Some(dst)
    } else {
        // AArch64: `fadd d, n, m`.
        (ops.len() == 3 && ops[0] == ops[1]).then(|| ops[0].clone())
    }
}

/// A store of a float register to memory: `(register, base register of the address)`.
fn store_of(i: &Insn) -> Option<(String, String)> {
    let ops = operands(code(i));
    if is_x86(i) {
        if !matches!(i.mnemonic.as_str(), "movss" | "vmovss") || ops.len() != 2 {
            return None;
        }
        let (src, dst) = (&ops[0], &ops[1]);
        if !src.starts_with('%') || !dst.contains('(') {
            return None;
        }
        let inside = dst.split('(').nth(1)?.trim_end_matches(')');
        let base = inside.split(',').next()?.trim().to_string();
        Some((src.clone(), base))
    } else {
        if !i.mnemonic.starts_with("str") || ops.len() < 2 || !ops[0].starts_with('s') {
            return None;
        }
        let base = ops[1].trim_start_matches('[').split([',', ']']).next()?;
        Some((ops[0].clone(), base.trim().to_string()))
    }
}

fn is_stack(base: &str) -> bool {
    matches!(base, "%rsp" | "%rbp" | "sp" | "x29")
}

/// What a listing shows.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    /// Indices (into the instructions) of the calls that read the clock.
    pub clock_reads: Vec<usize>,
    /// The clock function as objdump names it (`clock_gettime@GLIBC_2.17`).
    pub clock_target: String,
    pub scalar_adds: usize,
    pub packed_adds: usize,
    /// Scalar adds between the first and the second clock read.
    pub scalar_adds_between: usize,
    /// Instructions strictly between the first and second clock read.
    pub insns_between: usize,
    /// The number of scalar adds that accumulate into one register, and that register.
    pub chain: usize,
    pub chain_register: String,
    /// The longest run of consecutive instructions that are all adds into the chain register.
    pub chain_run: usize,
    /// A loop (from the control-flow graph) lying between the clock reads and holding adds.
    pub loop_between: bool,
    /// Stores of the chain register after the last add and before the second clock read:
    /// `(instruction text, base register, to the stack?)`.
    pub stores: Vec<(String, String, bool)>,
}

/// The `<symbol>` objdump names in an annotation, if any.
fn named(i: &Insn) -> Option<String> {
    let o = &i.operands;
    let a = o.find('<')?;
    let b = o[a..].find('>')?;
    Some(o[a + 1..a + b].to_string())
}

/// The fewest consecutive scalar adds into one register that show a dependent chain: rustc
/// unrolls the sum by 8 on x86-64, by 2 on AArch64 (seen under `cargo xtask cross-test`), and
/// two adds in a row, each reading the other's result, are a chain either way.
pub const CHAIN_MIN: usize = 2;

/// Analyses a function.
pub fn analyse(f: &Function) -> Shape {
    let insns = &f.insns;
    let mut s = Shape::default();
    let is_clock = |name: &str| name.contains("clock_gettime") || name.contains("Instant3now");
    // Registers loaded with the clock function's address (x86-64 `mov GOT(%rip),%rbx` then
    // `call *%rbx`), besides direct and GOT-indirect calls that name it.
    let mut clock_regs: Vec<String> = Vec::new();
    for (k, i) in insns.iter().enumerate() {
        let name = named(i).filter(|n| is_clock(n));
        if i.is_call() {
            let reg = code(i).trim_start_matches('*').to_string();
            if name.is_some() || clock_regs.contains(&reg) {
                s.clock_reads.push(k);
            }
        } else if name.is_some()
            && let Some(dst) = operands(code(i)).last()
        {
            clock_regs.push(dst.clone());
        }
        if let Some(n) = name
            && s.clock_target.is_empty()
        {
            s.clock_target = n;
        }
    }
    s.scalar_adds = insns.iter().filter(|i| is_scalar_float_add(i)).count();
    s.packed_adds = insns.iter().filter(|i| is_packed_add(i)).count();
    let mut per_reg: Vec<(String, usize)> = Vec::new();
    for r in insns
        .iter()
        .filter(|i| is_scalar_float_add(i))
        .filter_map(accumulator)
    {
        match per_reg.iter_mut().find(|(x, _)| *x == r) {
            Some(e) => e.1 += 1,
            None => per_reg.push((r, 1)),
        }
    }
    if let Some((r, n)) = per_reg.iter().max_by_key(|e| e.1) {
        s.chain = *n;
        s.chain_register = r.clone();
    }
    let mut run = 0;
    for i in insns {
        if is_scalar_float_add(i) && accumulator(i).as_deref() == Some(s.chain_register.as_str()) {
            run += 1;
            s.chain_run = s.chain_run.max(run);
        } else {
            run = 0;
        }
    }
    if let [first, second, ..] = s.clock_reads[..] {
        let between = &insns[first + 1..second];
        let (lo, hi) = (insns[first].addr, insns[second].addr);
        s.insns_between = between.len();
        s.scalar_adds_between = between.iter().filter(|i| is_scalar_float_add(i)).count();
        s.loop_between = f.loops().iter().any(|l| {
            l.insns.iter().all(|i| i.addr > lo && i.addr < hi)
                && l.insns.iter().any(is_scalar_float_add)
        });
        if let Some(last_add) = between.iter().rposition(is_scalar_float_add) {
            for i in &between[last_add + 1..] {
                if let Some((reg, base)) = store_of(i)
                    && reg == s.chain_register
                {
                    s.stores.push((
                        format!("{} {}", i.mnemonic, code(i)),
                        base.clone(),
                        is_stack(&base),
                    ));
                }
            }
        }
    }
    s
}

/// The findings for one variant: `(claim holds, sentence)` pairs, each sentence computed
/// from the listing.
pub fn findings(variant: usize, s: &Shape) -> Vec<(bool, String)> {
    let mut f = Vec::new();
    f.push((
        s.clock_reads.len() == 2,
        format!(
            "{} clock read(s), each a call to {}",
            s.clock_reads.len(),
            if s.clock_target.is_empty() {
                "an unidentified target"
            } else {
                &s.clock_target
            }
        ),
    ));
    match variant {
        0 => {
            f.push((
                s.scalar_adds == 0 && s.packed_adds == 0,
                format!(
                    "{} float adds anywhere in the function: the loop is gone",
                    s.scalar_adds + s.packed_adds
                ),
            ));
            f.push((
                s.scalar_adds_between == 0 && !s.loop_between && s.insns_between <= 12,
                format!(
                    "{} instructions between the two clock calls (saving the first reading, setting up the second), no loop",
                    s.insns_between
                ),
            ));
        }
        _ => {
            f.push((
                s.loop_between && s.chain_run >= CHAIN_MIN,
                format!(
                    "a loop between the clock calls with {} consecutive scalar adds into {} ({} in all), each reading the previous one's result: a dependent chain",
                    s.chain_run, s.chain_register, s.chain
                ),
            ));
            f.push((
                s.packed_adds == 0,
                format!(
                    "{} packed (vector) adds: the reduction was not reassociated",
                    s.packed_adds
                ),
            ));
            let through = s.stores.iter().find(|x| !x.2);
            let stack = s.stores.iter().find(|x| x.2);
            if variant == 2 {
                f.push((
                    through.is_some(),
                    match through {
                        Some((t, b, _)) => format!(
                            "the sum is stored through the caller's pointer ({t}, base {b}) before the second clock read"
                        ),
                        None => "no store of the sum through a pointer before the second clock read".into(),
                    },
                ));
            } else {
                f.push((
                    true,
                    match stack {
                        Some((t, _, _)) => format!(
                            "the sum is spilled to the stack for black_box ({t}) before the second clock read: that store is all black_box costs"
                        ),
                        None => "black_box left no store of the sum: it was kept in a register".into(),
                    },
                ));
            }
        }
    }
    f
}

/// The names of the variants, in the order of [`FUNCTIONS`].
pub const VARIANT_NAMES: [&str; 3] = ["(a) discarded", "(b) black_box sink", "(c) checksum"];

/// One function read back: its listing lines and the findings about it.
#[derive(Debug, Clone)]
pub struct Checked {
    pub variant: &'static str,
    pub function: &'static str,
    pub listing: Vec<String>,
    pub shape: Shape,
    pub findings: Vec<(bool, String)>,
}

/// The check of the three timing functions in a built binary.
#[derive(Debug, Clone)]
pub enum CodeCheck {
    /// The tools or the symbols were missing: why.
    Skipped(String),
    Done(Vec<Checked>),
}

impl CodeCheck {
    /// Reads the three timing functions out of `binary` and checks each.
    pub fn of(binary: &Path) -> CodeCheck {
        match disassemble(binary) {
            Err(e) => CodeCheck::Skipped(e.to_string()),
            Ok(fs) => CodeCheck::Done(
                fs.iter()
                    .enumerate()
                    .map(|(v, f)| {
                        let shape = analyse(f);
                        Checked {
                            variant: VARIANT_NAMES[v],
                            function: FUNCTIONS[v],
                            listing: listing(f),
                            findings: findings(v, &shape),
                            shape,
                        }
                    })
                    .collect(),
            ),
        }
    }

    /// The findings that do not hold, each as "(b) black_box sink: what".
    pub fn failures(&self) -> Vec<String> {
        match self {
            CodeCheck::Skipped(_) => Vec::new(),
            CodeCheck::Done(fs) => fs
                .iter()
                .flat_map(|c| {
                    c.findings
                        .iter()
                        .filter(|f| !f.0)
                        .map(move |f| format!("{}: {}", c.variant, f.1))
                })
                .collect(),
        }
    }

    /// The clock function the timing functions call, as objdump names it.
    pub fn clock_target(&self) -> Option<&str> {
        match self {
            CodeCheck::Done(fs) => fs
                .iter()
                .map(|c| c.shape.clock_target.as_str())
                .find(|t| !t.is_empty()),
            CodeCheck::Skipped(_) => None,
        }
    }

    /// The verdict in one short line, computed from the findings.
    pub fn verdict(&self) -> String {
        match self {
            CodeCheck::Skipped(why) => format!("skipped: {why}"),
            CodeCheck::Done(fs) => {
                let failed = self.failures().len();
                if failed > 0 {
                    return format!("NOT as claimed: {failed} finding(s) do not hold");
                }
                let chain = fs[1..].iter().map(|c| c.shape.chain_run).min().unwrap_or(0);
                format!(
                    "as claimed: (a) no float add; (b), (c) a loop of {chain} dependent scalar adds"
                )
            }
        }
    }
}

/// The file `cargo xtask run-all` saves the listings in, beside the report.
pub const LISTING_FILE: &str = "sink_bench.asm.txt";

/// The whole check as text, for [`LISTING_FILE`]: which binary, the verdict, then each timing
/// function's full listing with its findings under it (the report prints them only with
/// `--show-asm`).
pub fn listing_text(binary: &Path, check: &CodeCheck) -> String {
    let mut out = format!(
        "sink_bench: the three timing functions, read back from {} (nm -S, objdump -d)\n\
         shape check: {}\n",
        binary.display(),
        check.verdict()
    );
    for f in check.failures() {
        out.push_str(&format!("  ! {f}\n"));
    }
    if let CodeCheck::Done(fs) = check {
        for c in fs {
            out.push_str(&format!("\n{} : {}\n", c.variant, c.function));
            for line in &c.listing {
                out.push_str(&format!("    {line}\n"));
            }
            for (ok, what) in &c.findings {
                let how = if *ok { "yes" } else { "NOT AS CLAIMED" };
                out.push_str(&format!("    -> {how}: {what}\n"));
            }
        }
    }
    out
}

/// How the clock is read: `Some(true)` when glibc can answer from the vDSO without a system
/// call (a vDSO is mapped and the clock source is one it reads directly), `Some(false)`
/// when no vDSO is mapped, `None` when it cannot be told; with the clock source's name.
pub fn clock_read() -> (Option<bool>, Option<String>) {
    // SAFETY: getauxval only reads the process's auxiliary vector.
    let vdso = unsafe { libc::getauxval(libc::AT_SYSINFO_EHDR) };
    let source =
        std::fs::read_to_string("/sys/devices/system/clocksource/clocksource0/current_clocksource")
            .map(|s| s.trim().to_string())
            .ok();
    let fast = matches!(
        source.as_deref(),
        Some("tsc" | "kvm-clock" | "arch_sys_counter" | "hyperv_clocksource_tsc_page")
    );
    let answer = match (vdso != 0, fast) {
        (false, _) => Some(false),
        (true, true) => Some(true),
        (true, false) => None,
    };
    (answer, source)
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::asm::parse_objdump;

    fn function(listing: &str) -> Function {
        Function::from_listing("t", listing)
    }

    const SINK: &str = "
00000000000156e0 <sink_bench_time_sink>:
   156f8:\tmov    %rsp,%rsi
   156fb:\tmov    $0x1,%edi
   15700:\tcall   *0x44db2(%rip)        # 5a4b8 <clock_gettime@GLIBC_2.17>
   15706:\tmov    (%rsp),%r12
   15750:\taddss  (%rax),%xmm0
   15754:\tadd    $0x4,%rax
   1575b:\tjne    15750 <sink_bench_time_sink+0x70>
   15770:\taddss  (%rax),%xmm0
   15774:\taddss  0x4(%rax),%xmm0
   15779:\taddss  0x8(%rax),%xmm0
   1577e:\taddss  0xc(%rax),%xmm0
   15797:\tadd    $0x20,%rax
   1579e:\tjne    15770 <sink_bench_time_sink+0x90>
   157a0:\tmovss  %xmm0,(%rsp)
   157b2:\tmov    $0x1,%edi
   157b7:\tcall   *0x44cfb(%rip)        # 5a4b8 <clock_gettime@GLIBC_2.17>
   157e1:\tret
";

    const DISCARDED: &str = "
   15690:\tmov    0x44e21(%rip),%rbx        # 5a4b8 <clock_gettime@GLIBC_2.17>
   15697:\tmov    %rsp,%rsi
   1569a:\tmov    $0x1,%edi
   1569f:\tcall   *%rbx
   156a1:\tmov    (%rsp),%r14
   156a5:\tmov    0x8(%rsp),%r15
   156b4:\tmov    $0x1,%edi
   156b9:\tcall   *%rbx
   156dd:\tret
";

    const ARM: &str = "
  4005d0:\tbl\t400480 <clock_gettime@plt>
  4005d4:\tfadd\ts0, s0, s1
  4005d8:\tfadd\ts0, s0, s2
  4005dc:\tfadd\ts0, s0, s3
  4005e0:\tfadd\ts0, s0, s4
  4005e4:\tsubs\tx10, x10, #0x10
  4005e8:\tb.ne\t4005d4 <f+0x4>
  4005ec:\tstr\ts0, [x19]
  4005f0:\tbl\t400480 <clock_gettime@plt>
";

    #[test]
    fn parses_objdump_lines() {
        let i = parse_objdump(SINK);
        assert_eq!(i[2].mnemonic, "call");
        assert_eq!(code(&i[2]), "*0x44db2(%rip)");
        assert_eq!(named(&i[2]).as_deref(), Some("clock_gettime@GLIBC_2.17"));
        assert_eq!(code(&i[4]), "(%rax),%xmm0");
        let arm = parse_objdump(ARM);
        assert_eq!(code(&arm[5]), "x10, x10, #0x10");
        assert_eq!(
            operands("0x4(%rax,%rcx,4),%xmm0"),
            ["0x4(%rax,%rcx,4)", "%xmm0"]
        );
    }

    #[test]
    fn sink_shape() {
        let s = analyse(&function(SINK));
        assert_eq!(s.clock_reads.len(), 2);
        assert_eq!(s.clock_target, "clock_gettime@GLIBC_2.17");
        assert_eq!((s.chain, s.chain_run), (5, 4));
        assert_eq!(s.chain_register, "%xmm0");
        assert!(s.loop_between);
        assert_eq!(s.stores.len(), 1);
        assert!(s.stores[0].2, "the black_box store goes to the stack");
        assert!(findings(1, &s).iter().all(|f| f.0));
        // Read as the checksum variant, the stack store is not a store through the pointer.
        assert!(!findings(2, &s).iter().all(|f| f.0));
        // Read as the discarded variant, the adds are a failure.
        assert!(!findings(0, &s).iter().all(|f| f.0));
    }

    #[test]
    fn discarded_shape_through_a_register_call() {
        let s = analyse(&function(DISCARDED));
        assert_eq!(s.clock_reads.len(), 2, "call *%rbx is the clock: {s:?}");
        assert_eq!(s.insns_between, 3);
        assert_eq!(s.scalar_adds, 0);
        assert!(findings(0, &s).iter().all(|f| f.0), "{:?}", findings(0, &s));
        assert!(!findings(1, &s).iter().all(|f| f.0));
    }

    #[test]
    fn aarch64_shape() {
        let s = analyse(&function(ARM));
        assert_eq!(s.clock_reads.len(), 2);
        assert_eq!((s.chain, s.chain_register.as_str()), (4, "s0"));
        assert!(s.loop_between);
        assert_eq!(
            s.stores,
            vec![("str s0, [x19]".into(), "x19".into(), false)]
        );
        assert!(findings(2, &s).iter().all(|f| f.0));
    }
}
