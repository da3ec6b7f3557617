//! Reading back the machine code the compiler made, so that code whose *shape* is the point
//! (a real branch, a vectorised loop) is checked, not assumed.
//!
//! The method is the one a person would use at a terminal: `nm -S` gives a function's address
//! and size in the built binary, `objdump -d --start-address --stop-address` prints exactly
//! that range. [`parse_objdump`] turns the listing into instructions, and [`Function::loops`]
//! finds the function's innermost loops from its control-flow graph (basic blocks,
//! dominators, natural loops), so that a question such as "is there a conditional jump
//! *inside* the loop, other than the one that closes or leaves it?" can be answered exactly.
//!
//! The functions to inspect must have stable names (`#[unsafe(no_mangle)]`) and stay
//! functions (`#[inline(never)]`). x86-64 (AT&T syntax, objdump's default) and AArch64
//! listings are understood; on anything else the predicates simply find nothing.
//!
//! The tools are the binary's own architecture's: for an AArch64 binary the cross tools
//! `aarch64-linux-gnu-nm` and `aarch64-linux-gnu-objdump` (Debian's
//! `binutils-aarch64-linux-gnu`; a native Arm machine has them too) before the plain ones,
//! which on an x86-64 machine "can't disassemble for architecture UNKNOWN" (see [`tools`]).
//!
//! Nothing here measures. When `nm` or `objdump` is missing, [`AsmError::ToolMissing`] says
//! so, and the caller prints "could not check" instead of a verdict.

use std::fmt;
use std::path::Path;
use std::process::Command;

/// Why a function's code could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AsmError {
    /// `nm` or `objdump` is not installed (the name of the missing tool).
    ToolMissing(String),
    /// The binary has no symbol of that name (inlined, renamed, or stripped).
    NoSymbol(String),
    /// A tool ran but failed, or printed nothing usable.
    Failed(String),
}

impl fmt::Display for AsmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AsmError::ToolMissing(t) => write!(f, "{t} not found (install {})", package(t)),
            AsmError::NoSymbol(s) => write!(
                f,
                "no symbol {s:?} in the binary (inlined, renamed or stripped?)"
            ),
            AsmError::Failed(m) => write!(f, "{m}"),
        }
    }
}
impl std::error::Error for AsmError {}

/// One instruction of a listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Insn {
    pub addr: u64,
    /// The mnemonic without prefixes such as `rep`, `lock`, `notrack`, `bnd` (`jl`, `b.lt`).
    pub mnemonic: String,
    /// The operand text as printed (`$0x7f,%ecx`), comments included.
    pub operands: String,
    /// The branch target, for direct jumps.
    pub target: Option<u64>,
}

const PREFIXES: &[&str] = &[
    "rep", "repz", "repe", "repnz", "repne", "lock", "notrack", "bnd", "data16", "addr32", "cs",
    "ds", "ss", "es", "fs", "gs", "{vex}", "{vex3}", "{evex}",
];

impl Insn {
    /// A conditional jump: x86 `jcc` (not `jmp`), AArch64 `b.cond`, `cbz`, `cbnz`, `tbz`, `tbnz`.
    pub fn is_cond_jump(&self) -> bool {
        let m = self.mnemonic.as_str();
        (m.starts_with('j') && !m.starts_with("jmp"))
            || m.starts_with("b.")
            || matches!(
                m,
                "cbz" | "cbnz" | "tbz" | "tbnz" | "loop" | "loope" | "loopne"
            )
    }

    /// An unconditional jump (direct or indirect).
    pub fn is_uncond_jump(&self) -> bool {
        let m = self.mnemonic.as_str();
        m.starts_with("jmp") || m == "b" || m == "br"
    }

    /// An instruction after which control never falls through.
    pub fn ends_flow(&self) -> bool {
        let m = self.mnemonic.as_str();
        self.is_uncond_jump()
            || m.starts_with("ret")
            || matches!(m, "ud2" | "ud1" | "ud0" | "hlt" | "int3" | "brk" | "udf")
    }

    /// A call (which returns, so control falls through).
    pub fn is_call(&self) -> bool {
        let m = self.mnemonic.as_str();
        m.starts_with("call") || m == "bl" || m == "blr"
    }

    /// A conditional select: x86 `cmovcc` or `setcc`, AArch64 `csel` and relatives.
    pub fn is_cond_select(&self) -> bool {
        let m = self.mnemonic.as_str();
        m.starts_with("cmov")
            || (m.starts_with("set") && m.len() <= 6)
            || matches!(
                m,
                "csel" | "csinc" | "csinv" | "csneg" | "cset" | "csetm" | "cinc" | "cneg" | "fcsel"
            )
    }

    /// Packed (SIMD) arithmetic: several lanes computed by one instruction. Vector moves,
    /// shuffles, and the register-zeroing idioms scalar code uses (`pxor %xmm0,%xmm0`,
    /// `xorps`, `andpd` for `fabs`) do not count; scalar floating point (`mulsd`, `fmul d0`)
    /// does not either.
    pub fn is_simd_arith(&self) -> bool {
        let m = self.mnemonic.as_str();
        let ops = self.operands.as_str();
        if ops.contains("xmm") || ops.contains("ymm") || ops.contains("zmm") {
            // x86: drop the AVX `v` prefix, then look at the SSE name.
            let base = m.strip_prefix('v').unwrap_or(m);
            let fp_packed = (base.ends_with("pd") || base.ends_with("ps"))
                && [
                    "add", "sub", "mul", "div", "sqrt", "min", "max", "fmadd", "fmsub", "fnmadd",
                    "fnmsub", "hadd", "hsub", "dp", "cmp", "blend", "round",
                ]
                .iter()
                .any(|p| base.starts_with(p));
            let int_packed = base.len() > 1
                && base.starts_with('p')
                && [
                    "add", "sub", "mul", "cmp", "max", "min", "blend", "and", "sra", "srl", "sll",
                    "movsx", "movzx", "abs", "sign", "madd", "sad", "avg", "hadd", "hsub",
                ]
                .iter()
                .any(|p| base[1..].starts_with(p));
            return fp_packed || int_packed;
        }
        // AArch64: an arrangement of two or more lanes (`v0.2d`, `v1.4s`, `v2.16b`) or SVE `z`
        // registers, on anything but a load, a store or a move.
        let moves = m.starts_with("ld")
            || m.starts_with("st")
            || matches!(m, "mov" | "dup" | "ins" | "umov" | "smov" | "fmov" | "movi");
        !moves && has_arrangement(ops)
    }
}

impl Insn {
    /// A load into a vector register: x86 (AT&T) a memory operand that is not the last with
    /// an `xmm`/`ymm`/`zmm` register; AArch64 `ld…` (`ldr q0`, `ldp q0, q1`, `ld1 {v0.2d}`)
    /// into a `q` register, a vector arrangement or an SVE `z` register.
    pub fn is_vector_load(&self) -> bool {
        self.vector_memory() == Some(false)
    }

    /// A store from a vector register (the forms of [`Insn::is_vector_load`], `st…` on
    /// AArch64, the memory operand last on x86).
    pub fn is_vector_store(&self) -> bool {
        self.vector_memory() == Some(true)
    }

    /// For a vector memory access, whether it stores (`Some(true)`) or loads.
    fn vector_memory(&self) -> Option<bool> {
        let (m, ops) = (self.mnemonic.as_str(), self.operands.as_str());
        if ops.contains('%') {
            let mem = ops.contains('(') && !m.starts_with("lea") && !m.starts_with("nop");
            let vector = ["%xmm", "%ymm", "%zmm"].iter().any(|r| ops.contains(r));
            return (mem && vector).then(|| ops.trim_end().ends_with(')'));
        }
        let (load, store) = (m.starts_with("ld"), m.starts_with("st"));
        let vector = has_arrangement(ops) || has_q_register(ops);
        ((load || store) && ops.contains('[') && vector).then_some(store)
    }
}

/// Whether AArch64 operand text names a 128-bit `q` register (`q0`, `q31`).
fn has_q_register(ops: &str) -> bool {
    ops.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w.len() > 1 && w.starts_with('q') && w[1..].bytes().all(|b| b.is_ascii_digit()))
}

/// Whether AArch64 operand text names a vector arrangement of at least two lanes.
fn has_arrangement(ops: &str) -> bool {
    let b = ops.as_bytes();
    for i in 0..b.len() {
        let reg = b[i] == b'v' || b[i] == b'z';
        let starts_word = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if !(reg && starts_word) {
            continue;
        }
        let mut j = i + 1;
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        if j == i + 1 || j >= b.len() || b[j] != b'.' {
            continue;
        }
        if b[i] == b'z' {
            return true;
        }
        let k0 = j + 1;
        let mut k = k0;
        while k < b.len() && b[k].is_ascii_digit() {
            k += 1;
        }
        let lanes: u32 = std::str::from_utf8(&b[k0..k])
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        if lanes >= 2 && k < b.len() && matches!(b[k], b'b' | b'h' | b's' | b'd') {
            return true;
        }
    }
    false
}

/// Parses one line of `objdump -d` output; `None` for headers, labels and blank lines.
pub fn parse_objdump_line(line: &str) -> Option<Insn> {
    let (addr, rest) = line.split_once(':')?;
    let addr = addr.trim();
    if addr.is_empty() || !addr.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let addr = u64::from_str_radix(addr, 16).ok()?;
    let rest = rest.trim();
    let mut words = rest.split_whitespace().peekable();
    while words.peek().is_some_and(|w| PREFIXES.contains(w)) {
        words.next();
    }
    let mnemonic = words.next()?.to_string();
    if mnemonic == "(bad)" || mnemonic == "..." {
        return None;
    }
    // The operand text: everything after the mnemonic in the original line.
    let at = rest
        .find(mnemonic.as_str())
        .map_or(rest.len(), |p| p + mnemonic.len());
    let operands = rest[at..].trim().to_string();
    let mut insn = Insn {
        addr,
        mnemonic,
        operands,
        target: None,
    };
    if insn.is_cond_jump() || insn.is_uncond_jump() || insn.is_call() {
        insn.target = direct_target(&insn.operands);
    }
    Some(insn)
}

/// The target of a direct jump or call: the last number before `<symbol+off>`. Indirect
/// forms (`*%rax`, a register) have none.
fn direct_target(ops: &str) -> Option<u64> {
    if ops.contains('*') {
        return None;
    }
    let before = ops.split('<').next().unwrap_or("");
    let last = before.split([',', ' ', '\t']).rfind(|t| !t.is_empty())?;
    let hex = last.strip_prefix("0x").unwrap_or(last);
    if hex.is_empty() || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// Parses a whole `objdump -d` listing into instructions, in address order.
pub fn parse_objdump(text: &str) -> Vec<Insn> {
    let mut v: Vec<Insn> = text.lines().filter_map(parse_objdump_line).collect();
    v.sort_by_key(|i| i.addr);
    v.dedup_by_key(|i| i.addr);
    v
}

/// Finds `name` in `nm -S` output: `(address, size)`.
pub fn parse_nm(text: &str, name: &str) -> Option<(u64, u64)> {
    text.lines().find_map(|l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.as_slice() {
            [addr, size, _kind, sym] if *sym == name => {
                let a = u64::from_str_radix(addr, 16).ok()?;
                let s = u64::from_str_radix(size, 16).ok()?;
                (s > 0).then_some((a, s))
            }
            _ => None,
        }
    })
}

/// The package that holds binutils tool `tool`: `binutils`, or `binutils-aarch64-linux-gnu`
/// for `aarch64-linux-gnu-objdump`.
pub fn package(tool: &str) -> String {
    match tool.rsplit_once("-linux-gnu-") {
        Some((arch, _)) => format!("binutils-{arch}-linux-gnu"),
        None => "binutils".into(),
    }
}

/// The architecture of the ELF file `binary`, from its header's `e_machine`: `x86_64`,
/// `aarch64`, or `None` for anything else (or a file that cannot be read).
pub fn elf_arch(binary: &Path) -> Option<&'static str> {
    use std::io::Read;
    let mut head = [0u8; 20];
    std::fs::File::open(binary)
        .and_then(|mut f| f.read_exact(&mut head))
        .ok()?;
    if &head[..4] != b"\x7fELF" {
        return None;
    }
    let machine = if head[5] == 2 {
        u16::from_be_bytes([head[18], head[19]])
    } else {
        u16::from_le_bytes([head[18], head[19]])
    };
    match machine {
        62 => Some("x86_64"),
        183 => Some("aarch64"),
        _ => None,
    }
}

/// The binutils tool `tool` (`nm`, `objdump`) to try for `binary`, in order: for an AArch64
/// binary the cross tool first, then the plain one (a native Arm machine without the cross
/// package); for anything else the plain tool.
pub fn tools(binary: &Path, tool: &str) -> Vec<String> {
    match elf_arch(binary) {
        Some("aarch64") => vec![format!("aarch64-linux-gnu-{tool}"), tool.to_string()],
        _ => vec![tool.to_string()],
    }
}

/// Runs the first of `tools` that is installed. When the first (the binary's own cross tool)
/// is missing and a fallback fails, the error names both: the fallback most likely cannot
/// read that architecture.
fn run_tools(tools: &[String], args: &[String]) -> Result<String, AsmError> {
    let mut missing: Option<&String> = None;
    for t in tools {
        match run_tool(t, args) {
            Err(AsmError::ToolMissing(_)) => {
                missing.get_or_insert(t);
            }
            Err(AsmError::Failed(m)) if let Some(first) = missing => {
                return Err(AsmError::Failed(format!(
                    "{m}; {first}, which reads this binary's architecture, is not installed \
                     (install {})",
                    package(first)
                )));
            }
            other => return other,
        }
    }
    Err(AsmError::ToolMissing(
        missing.or(tools.first()).cloned().unwrap_or_default(),
    ))
}

fn run_tool(tool: &str, args: &[String]) -> Result<String, AsmError> {
    let out = Command::new(tool).args(args).output().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            AsmError::ToolMissing(tool.to_string())
        } else {
            AsmError::Failed(format!("{tool} could not be started: {e}"))
        }
    })?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(AsmError::Failed(format!(
            "{tool} failed ({}): {}",
            out.status,
            err.lines().next().unwrap_or("")
        )));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The address and size of symbol `name` in `binary`, from `nm -S`. A binary's symbol table
/// is read once per process (a shape test asks for a dozen functions of one binary).
pub fn symbol(binary: &Path, name: &str) -> Result<(u64, u64), AsmError> {
    static TABLES: std::sync::Mutex<Vec<(std::path::PathBuf, String)>> =
        std::sync::Mutex::new(Vec::new());
    let mut tables = TABLES.lock().unwrap_or_else(|e| e.into_inner());
    let text = match tables.iter().find(|(p, _)| p == binary) {
        Some((_, text)) => text,
        None => {
            let text = run_tools(
                &tools(binary, "nm"),
                &[
                    "-S".into(),
                    "--defined-only".into(),
                    binary.display().to_string(),
                ],
            )?;
            tables.push((binary.to_path_buf(), text));
            &tables.last().expect("just pushed").1
        }
    };
    parse_nm(text, name).ok_or_else(|| AsmError::NoSymbol(name.to_string()))
}

/// `objdump -d` over `size` bytes of `binary` from `start`.
fn objdump_range(binary: &Path, start: u64, size: u64) -> Result<String, AsmError> {
    run_tools(
        &tools(binary, "objdump"),
        &[
            "-d".into(),
            "--no-show-raw-insn".into(),
            format!("--start-address=0x{start:x}"),
            format!("--stop-address=0x{:x}", start + size),
            binary.display().to_string(),
        ],
    )
}

/// The raw `objdump -d` listing of function `name` of `binary`: the text [`disassemble`]
/// parses, for a check that needs what the parse leaves out of [`Insn`], such as the x86
/// `lock` prefix of an atomic read-modify-write.
pub fn listing(binary: &Path, name: &str) -> Result<String, AsmError> {
    let (start, size) = symbol(binary, name)?;
    objdump_range(binary, start, size)
}

/// Disassembles function `name` of `binary` (`nm -S`, then `objdump -d` over its range).
pub fn disassemble(binary: &Path, name: &str) -> Result<Function, AsmError> {
    let (start, size) = symbol(binary, name)?;
    let text = objdump_range(binary, start, size)?;
    let insns = parse_objdump(&text);
    if insns.is_empty() {
        return Err(AsmError::Failed(format!(
            "objdump printed no instructions for {name}"
        )));
    }
    Ok(Function {
        name: name.to_string(),
        start,
        end: start + size,
        insns,
    })
}

/// One function's instructions.
#[derive(Debug, Clone)]
pub struct Function {
    pub name: String,
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
    pub insns: Vec<Insn>,
}

/// One innermost loop of a function.
#[derive(Debug, Clone)]
pub struct Loop {
    /// The address of the loop's header (the block every iteration enters through).
    pub header: u64,
    /// The loop's instructions, in address order.
    pub insns: Vec<Insn>,
    /// Conditional jumps whose both ways stay in the loop: an `if` inside the loop body.
    pub forks: Vec<u64>,
    /// Conditional jumps with one way out of the loop: the loop's own test (back-edge or exit).
    pub exits: Vec<u64>,
}

impl Loop {
    /// The instructions doing packed (SIMD) arithmetic.
    pub fn simd_arith(&self) -> Vec<&Insn> {
        self.insns.iter().filter(|i| i.is_simd_arith()).collect()
    }
    /// The conditional selects (`cmov`, `setcc`, `csel`).
    pub fn cond_selects(&self) -> Vec<&Insn> {
        self.insns.iter().filter(|i| i.is_cond_select()).collect()
    }
    /// The calls made from inside the loop.
    pub fn calls(&self) -> Vec<&Insn> {
        self.insns.iter().filter(|i| i.is_call()).collect()
    }
    /// Whether any instruction's mnemonic is one of `names`.
    pub fn has_mnemonic(&self, names: &[&str]) -> bool {
        self.insns
            .iter()
            .any(|i| names.contains(&i.mnemonic.as_str()))
    }
}

impl Function {
    /// A function made of a listing in `objdump -d` form, without a binary: from its first
    /// instruction to one past the start of its last (empty when no line is an instruction).
    /// For the tests that check a reading of machine code on a listing written out by hand.
    pub fn from_listing(name: &str, listing: &str) -> Function {
        let insns = parse_objdump(listing);
        Function {
            name: name.to_string(),
            start: insns.first().map_or(0, |i| i.addr),
            end: insns.last().map_or(0, |i| i.addr + 1),
            insns,
        }
    }

    /// The function's innermost natural loops, in address order of their headers.
    ///
    /// Basic blocks start at the entry, at every jump target inside the function and after
    /// every jump; calls fall through. A back-edge is an edge into a block that dominates its
    /// source; its natural loop is the header plus every block that reaches the edge's source
    /// without passing the header. A loop is innermost when it holds no other loop's header.
    pub fn loops(&self) -> Vec<Loop> {
        if self.insns.is_empty() {
            return Vec::new();
        }
        let cfg = Cfg::of(&self.insns);
        let bodies = cfg.natural_loops(&cfg.dominators());
        let headers: Vec<usize> = bodies.iter().map(|(h, _)| *h).collect();
        let mut out: Vec<Loop> = bodies
            .iter()
            .filter(|(h, body)| !headers.iter().any(|&o| o != *h && body[o]))
            .map(|(h, body)| cfg.to_loop(&self.insns, *h, body))
            .collect();
        out.sort_by_key(|l| l.header);
        out
    }
}

/// A function's control-flow graph: its basic blocks (by the index of their first
/// instruction), each block's successors and predecessors, and which are reachable from the
/// entry.
struct Cfg {
    /// The index of each block's first instruction, in order; one past the last is `n`.
    starts: Vec<usize>,
    n: usize,
    succ: Vec<Vec<usize>>,
    pred: Vec<Vec<usize>>,
    reach: Vec<bool>,
}

impl Cfg {
    fn of(insns: &[Insn]) -> Cfg {
        let n = insns.len();
        let index_of = |addr: u64| insns.binary_search_by_key(&addr, |i| i.addr).ok();
        // Block leaders: the entry, every jump target inside, and whatever follows a jump.
        let mut leader = vec![false; n];
        leader[0] = true;
        for (k, i) in insns.iter().enumerate() {
            if i.is_cond_jump() || i.ends_flow() {
                if k + 1 < n {
                    leader[k + 1] = true;
                }
                if let Some(t) = i.target.and_then(index_of) {
                    leader[t] = true;
                }
            }
        }
        let mut g = Cfg {
            starts: (0..n).filter(|&k| leader[k]).collect(),
            n,
            succ: Vec::new(),
            pred: Vec::new(),
            reach: Vec::new(),
        };
        let nb = g.starts.len();
        g.succ = (0..nb).map(|b| g.successors(insns, b, &index_of)).collect();
        g.pred = vec![Vec::new(); nb];
        for (b, ss) in g.succ.iter().enumerate() {
            for &s in ss {
                g.pred[s].push(b);
            }
        }
        g.reach = g.reachable();
        g
    }

    fn block_of_insn(&self, k: usize) -> usize {
        match self.starts.binary_search(&k) {
            Ok(b) => b,
            Err(b) => b - 1,
        }
    }

    fn block_end(&self, b: usize) -> usize {
        self.starts.get(b + 1).copied().unwrap_or(self.n)
    }

    /// Block `b`'s successors: its jump's target inside the function, and the next block
    /// unless the flow ends.
    fn successors(
        &self,
        insns: &[Insn],
        b: usize,
        index_of: &dyn Fn(u64) -> Option<usize>,
    ) -> Vec<usize> {
        let last = &insns[self.block_end(b) - 1];
        let mut s = Vec::new();
        if (last.is_cond_jump() || last.is_uncond_jump())
            && let Some(t) = last.target.and_then(index_of)
        {
            s.push(self.block_of_insn(t));
        }
        if !last.ends_flow() && b + 1 < self.starts.len() {
            s.push(b + 1);
        }
        s.dedup();
        s
    }

    /// The blocks reachable from the entry.
    fn reachable(&self) -> Vec<bool> {
        let mut reach = vec![false; self.starts.len()];
        let mut stack = vec![0usize];
        while let Some(b) = stack.pop() {
            if !reach[b] {
                reach[b] = true;
                stack.extend(self.succ[b].iter().copied());
            }
        }
        reach
    }

    /// `dom[b][x]`: whether block `x` dominates block `b`, found iteratively.
    fn dominators(&self) -> Vec<Vec<bool>> {
        let nb = self.starts.len();
        let mut dom: Vec<Vec<bool>> = (0..nb)
            .map(|b| {
                if b == 0 {
                    (0..nb).map(|x| x == 0).collect()
                } else {
                    vec![true; nb]
                }
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for b in (1..nb).filter(|&b| self.reach[b]) {
                let mut d = vec![true; nb];
                for &p in self.pred[b].iter().filter(|&&p| self.reach[p]) {
                    for x in 0..nb {
                        d[x] = d[x] && dom[p][x];
                    }
                }
                for (x, dx) in d.iter_mut().enumerate() {
                    *dx = *dx || x == b;
                }
                if d != dom[b] {
                    dom[b] = d;
                    changed = true;
                }
            }
        }
        dom
    }

    /// The natural loops, merged per header: `(header block, which blocks are in the body)`.
    fn natural_loops(&self, dom: &[Vec<bool>]) -> Vec<(usize, Vec<bool>)> {
        let nb = self.starts.len();
        let mut bodies: Vec<(usize, Vec<bool>)> = Vec::new();
        for t in (0..nb).filter(|&b| self.reach[b]) {
            for &h in self.succ[t].iter().filter(|&&h| dom[t][h]) {
                let pos = match bodies.iter().position(|(hh, _)| *hh == h) {
                    Some(p) => p,
                    None => {
                        let mut body = vec![false; nb];
                        body[h] = true;
                        bodies.push((h, body));
                        bodies.len() - 1
                    }
                };
                let body = &mut bodies[pos].1;
                let mut work = vec![t];
                while let Some(x) = work.pop() {
                    if !body[x] {
                        body[x] = true;
                        work.extend(self.pred[x].iter().copied().filter(|&p| self.reach[p]));
                    }
                }
            }
        }
        bodies
    }

    /// The loop with header block `h` and blocks `body`: its instructions, and its
    /// conditional jumps as forks (both ways inside) or exits.
    fn to_loop(&self, insns: &[Insn], h: usize, body: &[bool]) -> Loop {
        let mut out = Vec::new();
        let (mut forks, mut exits) = (Vec::new(), Vec::new());
        for b in (0..self.starts.len()).filter(|&b| body[b]) {
            out.extend(insns[self.starts[b]..self.block_end(b)].iter().cloned());
            let last = &insns[self.block_end(b) - 1];
            if last.is_cond_jump() {
                let succ = &self.succ[b];
                let inside = succ.iter().filter(|&&s| body[s]).count();
                // A jump that leaves the function is also a way out.
                if inside == succ.len() && succ.len() == 2 {
                    forks.push(last.addr);
                } else {
                    exits.push(last.addr);
                }
            }
        }
        Loop {
            header: insns[self.starts[h]].addr,
            insns: out,
            forks,
            exits,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(listing: &str) -> Function {
        Function::from_listing("t", listing)
    }

    const NM: &str = "\
0000000000012340 0000000000000040 T branch_real
0000000000012380 T no_size
00000000000123c0 0000000000000020 t branch_real_helper
";

    #[test]
    fn nm_lines() {
        assert_eq!(parse_nm(NM, "branch_real"), Some((0x12340, 0x40)));
        assert_eq!(parse_nm(NM, "branch_real_helper"), Some((0x123c0, 0x20)));
        assert_eq!(parse_nm(NM, "no_size"), None);
        assert_eq!(parse_nm(NM, "absent"), None);
    }

    #[test]
    fn objdump_lines() {
        let i = parse_objdump_line("   1a2b4:\tjl     1a2c0 <branch_real+0x20>").unwrap();
        assert_eq!(
            (i.addr, i.mnemonic.as_str(), i.target),
            (0x1a2b4, "jl", Some(0x1a2c0))
        );
        assert!(i.is_cond_jump() && !i.is_uncond_jump());
        let i = parse_objdump_line("   1a2b8:\tnotrack jmp *%rax").unwrap();
        assert_eq!((i.mnemonic.as_str(), i.target), ("jmp", None));
        assert!(i.ends_flow());
        let i = parse_objdump_line("  4005d0:\ttbz\tw0, #31, 4005e0 <f+0x10>").unwrap();
        assert_eq!(i.target, Some(0x4005e0));
        assert!(i.is_cond_jump());
        let i = parse_objdump_line("  4005d4:\tb.lt\t4005c0 <f>").unwrap();
        assert!(i.is_cond_jump());
        assert!(parse_objdump_line("0000000000012340 <branch_real>:").is_none());
        assert!(parse_objdump_line("Disassembly of section .text:").is_none());
        assert!(parse_objdump_line("").is_none());
        let i = parse_objdump_line("   1a2bc:\tcs nopw 0x0(%rax,%rax,1)").unwrap();
        assert_eq!(i.mnemonic, "nopw");
    }

    #[test]
    fn instruction_kinds() {
        let k = |s: &str| parse_objdump_line(&format!("  10:\t{s}")).unwrap();
        assert!(k("paddq  %xmm1,%xmm0").is_simd_arith());
        assert!(k("vpaddd %ymm1,%ymm2,%ymm0").is_simd_arith());
        assert!(k("mulpd  %xmm2,%xmm1").is_simd_arith());
        assert!(k("vfmadd231ps %ymm0,%ymm1,%ymm2").is_simd_arith());
        assert!(k("pcmpgtd %xmm3,%xmm4").is_simd_arith());
        assert!(!k("mulsd  %xmm2,%xmm1").is_simd_arith());
        assert!(!k("pxor   %xmm0,%xmm0").is_simd_arith());
        assert!(!k("movupd (%rdi),%xmm0").is_simd_arith());
        assert!(!k("andpd  %xmm1,%xmm0").is_simd_arith());
        assert!(!k("push   %rbx").is_simd_arith());
        assert!(k("fmla\tv0.2d, v1.2d, v2.2d").is_simd_arith());
        assert!(k("add\tv0.4s, v0.4s, v1.4s").is_simd_arith());
        assert!(!k("fmul\td0, d0, d1").is_simd_arith());
        assert!(!k("ld1\t{v0.2d}, [x0]").is_simd_arith());
        assert!(!k("add\tx0, x0, #0x1").is_simd_arith());
        assert!(k("cmovge %ecx,%eax").is_cond_select());
        assert!(k("setge  %al").is_cond_select());
        assert!(k("csel\tx0, x1, x2, ge").is_cond_select());
        assert!(!k("add    %rcx,%rax").is_cond_select());
        assert!(k("call   1234 <sin>").is_call());
        assert!(k("retq").ends_flow());
    }

    #[test]
    fn vector_loads_and_stores() {
        let k = |s: &str| parse_objdump_line(&format!("  10:\t{s}")).unwrap();
        for load in [
            "ldr\tq0, [x0, #16]",
            "ldp\tq0, q1, [x8], #32",
            "ld1\t{v0.2d}, [x0]",
            "ldur\tq2, [x1, #-16]",
            "movdqa (%rdi,%rax,8),%xmm0",
            "vmovdqu64 0x40(%rdi),%zmm1",
        ] {
            assert!(
                k(load).is_vector_load() && !k(load).is_vector_store(),
                "{load}"
            );
        }
        for store in [
            "str\tq0, [x0], #16",
            "stp\tq0, q1, [x8, #32]",
            "st1\t{v0.2d, v1.2d}, [x0]",
            "movups %xmm0,(%rdi)",
        ] {
            assert!(
                k(store).is_vector_store() && !k(store).is_vector_load(),
                "{store}"
            );
        }
        for neither in [
            "ldr\tx0, [x1]",
            "ldr\td0, [x1]",
            "add\tv0.2d, v0.2d, v1.2d",
            "mov    (%rdi),%rax",
            "paddq  %xmm1,%xmm0",
            "lea    (%rdi,%rax,8),%rcx",
        ] {
            assert!(
                !k(neither).is_vector_load() && !k(neither).is_vector_store(),
                "{neither}"
            );
        }
    }

    #[test]
    fn the_tools_are_the_binarys_own_architectures() {
        assert_eq!(package("objdump"), "binutils");
        assert_eq!(
            package("aarch64-linux-gnu-objdump"),
            "binutils-aarch64-linux-gnu"
        );
        let exe = std::env::current_exe().unwrap();
        assert_eq!(elf_arch(&exe), Some(std::env::consts::ARCH));
        let want = if cfg!(target_arch = "aarch64") {
            vec!["aarch64-linux-gnu-nm".to_string(), "nm".into()]
        } else {
            vec!["nm".to_string()]
        };
        assert_eq!(tools(&exe, "nm"), want);
        assert_eq!(elf_arch(Path::new("/no/such/file")), None);
        assert_eq!(
            AsmError::ToolMissing("aarch64-linux-gnu-nm".into()).to_string(),
            "aarch64-linux-gnu-nm not found (install binutils-aarch64-linux-gnu)"
        );
    }

    /// A loop with an `if` inside: the data jump is a fork, the counter test an exit.
    const REAL_BRANCH: &str = "
  10:\txor    %eax,%eax
  12:\txor    %ecx,%ecx
  14:\tmovslq (%rdi,%rcx,4),%rdx
  18:\tcmp    $0x7f,%edx
  1b:\tjle    20 <t+0x10>
  1d:\tadd    %rdx,%rax
  20:\tinc    %rcx
  23:\tcmp    %rcx,%rsi
  26:\tjne    14 <t+0x4>
  28:\tret
";

    #[test]
    fn a_branch_inside_a_loop_is_a_fork() {
        let l = f(REAL_BRANCH).loops();
        assert_eq!(l.len(), 1);
        assert_eq!(l[0].header, 0x14);
        assert_eq!(l[0].forks, vec![0x1b]);
        assert_eq!(l[0].exits, vec![0x26]);
    }

    /// The taken arm placed out of line, after the loop, jumping back: still one loop with
    /// one fork, and the `jmp` back into the loop is not mistaken for a loop of its own.
    const OUT_OF_LINE: &str = "
  10:\txor    %eax,%eax
  12:\txor    %ecx,%ecx
  14:\tmovslq (%rdi,%rcx,4),%rdx
  18:\tcmp    $0x7f,%edx
  1b:\tjg     30 <t+0x20>
  1d:\tinc    %rcx
  20:\tcmp    %rcx,%rsi
  23:\tjne    14 <t+0x4>
  25:\tret
  30:\tadd    %rdx,%rax
  33:\tjmp    1d <t+0xd>
";

    #[test]
    fn an_out_of_line_arm_stays_in_the_loop() {
        let l = f(OUT_OF_LINE).loops();
        assert_eq!(l.len(), 1, "{l:?}");
        assert_eq!(l[0].forks, vec![0x1b]);
        assert_eq!(l[0].exits, vec![0x23]);
        assert!(l[0].insns.iter().any(|i| i.addr == 0x30));
    }

    /// A vector loop followed by a scalar tail loop with a branch in it: two loops, and only
    /// the tail has a fork.
    const VECTOR_AND_TAIL: &str = "
  10:\tpxor   %xmm0,%xmm0
  14:\tmovdqu (%rdi,%rcx,4),%xmm1
  19:\tpcmpgtd %xmm2,%xmm1
  1d:\tpand   %xmm1,%xmm3
  21:\tpaddq  %xmm3,%xmm0
  25:\tadd    $0x4,%rcx
  29:\tcmp    %rcx,%rdx
  2c:\tjne    14 <t+0x4>
  2e:\tcmp    %rdx,%rsi
  31:\tje     4a <t+0x3a>
  33:\tmovslq (%rdi,%rdx,4),%r8
  37:\tcmp    $0x7f,%r8d
  3b:\tjle    40 <t+0x30>
  3d:\tadd    %r8,%rax
  40:\tinc    %rdx
  43:\tcmp    %rdx,%rsi
  46:\tjne    33 <t+0x23>
  48:\tnop
  4a:\tret
";

    #[test]
    fn a_vector_loop_and_its_tail_are_told_apart() {
        let l = f(VECTOR_AND_TAIL).loops();
        assert_eq!(l.len(), 2);
        assert!(!l[0].simd_arith().is_empty() && l[0].forks.is_empty());
        assert!(l[1].simd_arith().is_empty());
        assert_eq!(l[1].forks, vec![0x3b]);
    }

    /// Two nested loops: only the inner one is reported, and the inner loop's exit into the
    /// outer loop is an exit, not a fork.
    const NESTED: &str = "
  10:\txor    %edx,%edx
  12:\txor    %ecx,%ecx
  14:\taddsd  (%rdi,%rcx,8),%xmm0
  19:\tinc    %rcx
  1c:\tcmp    $0x800,%rcx
  23:\tjne    14 <t+0x4>
  25:\tinc    %edx
  27:\tcmp    %esi,%edx
  29:\tjne    12 <t+0x2>
  2b:\tret
";

    #[test]
    fn nested_loops_give_the_inner_one() {
        let l = f(NESTED).loops();
        assert_eq!(l.len(), 1, "{l:?}");
        assert_eq!(l[0].header, 0x14);
        assert!(l[0].forks.is_empty());
        assert_eq!(l[0].exits, vec![0x23]);
        assert!(l[0].has_mnemonic(&["addsd"]));
    }

    #[test]
    fn a_listing_makes_a_function() {
        let g = f(NESTED);
        assert_eq!((g.name.as_str(), g.start, g.end), ("t", 0x10, 0x2c));
        assert_eq!(g.insns.len(), 10);
        let empty = Function::from_listing("e", "Disassembly of section .text:\n");
        assert!(empty.insns.is_empty() && empty.loops().is_empty());
    }

    #[test]
    fn straight_code_has_no_loop() {
        let l = f("  10:\tmov    %rdi,%rax\n  13:\tret\n").loops();
        assert!(l.is_empty());
    }

    #[test]
    fn reads_this_test_binary_when_binutils_are_there() {
        // The test executable itself has symbols; `main` is always among them.
        let exe = std::env::current_exe().unwrap();
        match symbol(&exe, "main") {
            Ok((a, s)) => assert!(a > 0 && s > 0),
            Err(AsmError::ToolMissing(_)) => {}
            Err(e) => panic!("{e}"),
        }
        match symbol(&exe, "no_such_symbol_anywhere_42") {
            Err(AsmError::NoSymbol(_)) | Err(AsmError::ToolMissing(_)) => {}
            other => panic!("{other:?}"),
        }
        // The raw listing is what `disassemble` parses: the same instructions.
        match (listing(&exe, "main"), disassemble(&exe, "main")) {
            (Ok(text), Ok(f)) => assert_eq!(parse_objdump(&text), f.insns),
            (Err(AsmError::ToolMissing(_)), _) | (_, Err(AsmError::ToolMissing(_))) => {}
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            listing(&exe, "no_such_symbol_anywhere_42"),
            Err(AsmError::NoSymbol(_)) | Err(AsmError::ToolMissing(_))
        ));
    }
}
