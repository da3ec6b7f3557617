//! What the compiler made of each kernel, read back from this very binary (`nm -S`,
//! `objdump -d` through `measure::asm`): the widest memory access inside its loops, whether
//! those loops store non-temporally, and whether they call anything.

use measure::asm::{self, Insn};

/// One kernel's code, as read back.
#[derive(Debug, Clone, PartialEq)]
pub struct Shape {
    /// The widest memory access inside the kernel's loops, in bytes (8 = scalar).
    pub access_bytes: Option<usize>,
    /// A non-temporal store inside a loop (`movnt*`; `stnp` on AArch64).
    pub streams: bool,
    /// Functions called from inside a loop (`memcpy`, ...).
    pub calls: Vec<String>,
    /// Why the code could not be read, if it could not.
    pub unchecked: Option<String>,
    /// Instructions per memory access in the innermost loop that accesses memory (the loop
    /// the time is spent in): what the core must issue besides the loads and stores.
    pub insns_per_access: Option<f64>,
}

impl Shape {
    /// One word for `#DATA`: `vector16`, `vector64`, `scalar`, `calls`, `no_loop`, `unchecked`.
    pub fn word(&self) -> String {
        if self.unchecked.is_some() {
            return "unchecked".into();
        }
        if !self.calls.is_empty() {
            return "calls".into();
        }
        match self.access_bytes {
            None => "no_loop".into(),
            Some(8) | Some(0..8) => "scalar".into(),
            Some(b) => format!("vector{b}"),
        }
    }
    /// A few words for people: "16-byte vectors", "64-byte non-temporal".
    pub fn text(&self) -> String {
        if let Some(e) = &self.unchecked {
            return format!("not checked ({e})");
        }
        let mut t = match (self.access_bytes, self.streams) {
            (None, _) => "no loop found".to_string(),
            (Some(b), false) if b <= 8 => "scalar".to_string(),
            (Some(b), false) => format!("{b}-byte vectors"),
            (Some(b), true) => format!("{b}-byte non-temporal"),
        };
        if !self.calls.is_empty() {
            t.push_str(&format!(", calls {}", self.calls.join(", ")));
        }
        if let Some(x) = self.insns_per_access {
            t.push_str(&format!(" ({x:.2} instructions an access)"));
        }
        t
    }
}

/// The bytes one instruction moves to or from memory, if it accesses memory: the width of
/// the vector register it names (x86 `%zmm`/`%ymm`/`%xmm`, AArch64 `q`/`v.2d`), else 8.
pub fn access_bytes(i: &Insn) -> Option<usize> {
    let ops = i.operands.as_str();
    let memory =
        (ops.contains('(') && !i.mnemonic.starts_with("lea") && !i.mnemonic.starts_with("nop"))
            || ops.contains('[');
    if !memory || i.is_call() || i.mnemonic.starts_with("prefetch") {
        return None;
    }
    Some(if ops.contains("zmm") {
        64
    } else if ops.contains("ymm") {
        32
    } else if ops.contains("xmm")
        || ops
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '.')
            .any(neon_register)
    {
        16
    } else {
        8
    })
}

/// An AArch64 128-bit register: `q0`, or a vector arrangement such as `v0.2d`.
fn neon_register(w: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match w.split_once('.') {
        Some((r, _)) => r.starts_with('v') && digits(&r[1..]),
        None => w.starts_with('q') && digits(&w[1..]),
    }
}

/// A non-temporal store: x86 `movnt*` (any prefix), AArch64 `stnp`.
pub fn is_stream(i: &Insn) -> bool {
    let m = i.mnemonic.trim_start_matches('v');
    m.starts_with("movnt") || m == "stnp"
}

/// Reads `symbol`'s loops back from the running executable.
pub fn read_back(symbol: &str) -> Shape {
    let unchecked = |e: String| Shape {
        access_bytes: None,
        streams: false,
        calls: Vec::new(),
        unchecked: Some(e),
        insns_per_access: None,
    };
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return unchecked(format!("no path to this executable: {e}")),
    };
    let f = match asm::disassemble(&exe, symbol) {
        Ok(f) => f,
        Err(e) => return unchecked(e.to_string()),
    };
    let loops = f.loops();
    Shape {
        insns_per_access: insns_per_access(&loops),
        ..of_loops(
            &loops
                .iter()
                .flat_map(|l| l.insns.clone())
                .collect::<Vec<_>>(),
        )
    }
}

/// Instructions per memory access of the densest loop: the unrolled body the time is spent
/// in, not a remainder loop, the lap loop around it, or the empty-buffer path.
pub fn insns_per_access(loops: &[asm::Loop]) -> Option<f64> {
    loops
        .iter()
        .map(|l| {
            (
                l.insns.len(),
                l.insns.iter().filter_map(access_bytes).count(),
            )
        })
        .filter(|&(_, m)| m > 0)
        .map(|(n, m)| n as f64 / m as f64)
        .min_by(f64::total_cmp)
}

/// The shape of the instructions of a function's loops.
pub fn of_loops(insns: &[Insn]) -> Shape {
    let mut calls: Vec<String> = insns
        .iter()
        .filter(|i| i.is_call())
        .map(|i| {
            let o = &i.operands;
            match (o.find('<'), o.find('>')) {
                (Some(a), Some(b)) if a < b => {
                    o[a + 1..b].split('@').next().unwrap_or("").to_string()
                }
                _ => o.clone(),
            }
        })
        .collect();
    calls.sort();
    calls.dedup();
    Shape {
        access_bytes: insns.iter().filter_map(access_bytes).max(),
        streams: insns.iter().any(is_stream),
        calls,
        unchecked: None,
        insns_per_access: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn insn(m: &str, ops: &str) -> Insn {
        Insn {
            addr: 0,
            mnemonic: m.into(),
            operands: ops.into(),
            target: None,
        }
    }

    #[test]
    fn widths_of_memory_accesses() {
        assert_eq!(
            access_bytes(&insn("vpaddq", "(%r8,%r9,8),%zmm3,%zmm3")),
            Some(64)
        );
        assert_eq!(access_bytes(&insn("vmovdqu", "%ymm0,(%rdi)")), Some(32));
        assert_eq!(
            access_bytes(&insn("movdqu", "0x10(%r10,%rbx,8),%xmm2")),
            Some(16)
        );
        assert_eq!(access_bytes(&insn("add", "(%r10,%r11,8),%rbx")), Some(8));
        assert_eq!(access_bytes(&insn("paddq", "%xmm2,%xmm1")), None);
        assert_eq!(access_bytes(&insn("lea", "0x40(%r8),%r10")), None);
        assert_eq!(access_bytes(&insn("ldr", "q0, [x1, #16]")), Some(16));
        assert_eq!(access_bytes(&insn("ldr", "x0, [x1]")), Some(8));
    }

    #[test]
    fn streams_calls_and_words() {
        assert!(is_stream(&insn("vmovntdq", "%zmm0,(%r8)")));
        assert!(is_stream(&insn("movntdq", "%xmm0,(%r8)")));
        assert!(!is_stream(&insn("vmovdqu64", "%zmm0,(%r8)")));
        let s = of_loops(&[
            insn("vmovntdq", "%zmm0,(%r8)"),
            insn("call", "1234 <memcpy@plt>"),
        ]);
        assert!(s.streams);
        assert_eq!(s.calls, vec!["memcpy".to_string()]);
        assert_eq!(s.word(), "calls");
        assert_eq!(
            of_loops(&[insn("movdqu", "(%rax),%xmm0")]).word(),
            "vector16"
        );
        assert_eq!(of_loops(&[]).word(), "no_loop");
        assert!(
            of_loops(&[insn("vmovntdq", "%zmm0,(%r8)")])
                .text()
                .contains("64-byte non-temporal")
        );
    }
}
