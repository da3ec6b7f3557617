//! `cargo xtask verify`: the branch experiment's assumption, checked by simulation.
//!
//! ```text
//! cargo xtask verify [--n COUNT] [--bin PATH]
//! ```
//!
//! The branch experiment derives the cost of one misprediction by assuming that its real
//! branch is guessed wrong about half the time on random data and almost never on sorted data.
//! `perf` has no hardware counters on the VMs this project runs on, so this step asks a
//! simulator instead: it runs `branch --valgrind-kernel random|sorted` (one call of
//! `branch_real` over `--n` values, 100000 by default) under
//! `valgrind --tool=callgrind --branch-sim=yes --dump-instr=yes`, reads callgrind's output
//! file, and reports for the function `branch_real` alone how many conditional branches ran and
//! how many the simulated predictor missed, in total and for its most-missed jump (the data
//! branch). The simulation is deterministic: the same binary and input give the same counts.
//!
//! Where valgrind is missing it says so and exits 0. It exits 1 when the simulation does not
//! show the expected contrast (random about 50%, sorted about 0%).

use measure::asm;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The function whose branches are counted.
const FUNCTION: &str = "branch_real";

/// Costs of one function in a callgrind profile.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FnCost {
    /// Self cost per event, in the order of [`Profile::events`].
    pub totals: Vec<u64>,
    /// Self cost per instruction address (only when positions include `instr`).
    pub per_instr: BTreeMap<u64, Vec<u64>>,
}

/// A parsed callgrind output file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Profile {
    /// Event names (`Ir Bc Bcm Bi Bim`).
    pub events: Vec<String>,
    /// Function name -> self cost.
    pub functions: BTreeMap<String, FnCost>,
}

impl Profile {
    /// The index of event `name`.
    pub fn event(&self, name: &str) -> Option<usize> {
        self.events.iter().position(|e| e == name)
    }
}

/// Parses one position field: absolute (decimal or `0x` hex), relative (`+n`, `-n`) or `*`.
fn position(tok: &str, last: u64) -> Option<u64> {
    if tok == "*" {
        Some(last)
    } else if let Some(d) = tok.strip_prefix('+') {
        last.checked_add(number(d)?)
    } else if let Some(d) = tok.strip_prefix('-') {
        last.checked_sub(number(d)?)
    } else {
        number(tok)
    }
}

fn number(tok: &str) -> Option<u64> {
    match tok.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => tok.parse().ok(),
    }
}

/// Parses callgrind's output format (name compression, position compression, call lines).
/// Costs on the line after `calls=` are the callee's inclusive cost and are not counted as the
/// caller's own. Errors name the line.
pub fn parse_callgrind(text: &str) -> Result<Profile, String> {
    let mut r = Reader::new();
    for (k, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        r.line(line, k + 1)?;
    }
    if r.skip_next {
        return Err("the file ends after a calls= line".into());
    }
    Ok(r.profile)
}

/// The state of a callgrind file read line by line.
struct Reader {
    profile: Profile,
    /// The position names (`instr line`), and the last value of each (for relative ones).
    positions: Vec<String>,
    last: Vec<u64>,
    /// Compressed names: `(id)` -> name.
    names: BTreeMap<String, String>,
    /// The function the cost lines belong to (the last `fn=`).
    current: Option<String>,
    /// The next cost line is a call's inclusive cost (it follows `calls=`).
    skip_next: bool,
}

impl Reader {
    fn new() -> Reader {
        Reader {
            profile: Profile::default(),
            positions: vec!["line".into()],
            last: vec![0; 1],
            names: BTreeMap::new(),
            current: None,
            skip_next: false,
        }
    }

    /// Reads line `n` (neither empty nor a comment).
    fn line(&mut self, line: &str, n: usize) -> Result<(), String> {
        if let Some(rest) = line.strip_prefix("positions:") {
            self.positions = rest.split_whitespace().map(String::from).collect();
            if self.positions.is_empty() {
                return Err(format!("line {n}: positions: names nothing"));
            }
            self.last = vec![0; self.positions.len()];
            return Ok(());
        }
        if let Some(rest) = line.strip_prefix("events:") {
            self.profile.events = rest.split_whitespace().map(String::from).collect();
            return Ok(());
        }
        let first = line.as_bytes()[0];
        if first.is_ascii_digit() || matches!(first, b'+' | b'-' | b'*') {
            self.cost_line(line, n)
        } else {
            self.spec_line(line, n)
        }
    }

    /// A `key=value` line: `fn=` switches the current function, `calls=` marks the next cost
    /// line as a call's; names defined by `cfn=` are remembered.
    fn spec_line(&mut self, line: &str, n: usize) -> Result<(), String> {
        // Header lines (version:, cmd:, summary:, ...) need nothing.
        let Some((key, value)) = line.split_once('=') else {
            return Ok(());
        };
        match key {
            "fn" | "cfn" | "cfun" => {
                let name = resolve(value, &mut self.names)
                    .ok_or_else(|| format!("line {n}: unknown name reference {value:?}"))?;
                if key == "fn" {
                    self.current = Some(name);
                }
            }
            "calls" => self.skip_next = true,
            _ => {} // ob, fl, fi, fe, cob, cfi, cfl, jump, jcnd: not needed here
        }
        Ok(())
    }

    /// A cost line: its positions, then one cost per event, added to the current function.
    fn cost_line(&mut self, line: &str, n: usize) -> Result<(), String> {
        let events = self.profile.events.len();
        if events == 0 {
            return Err(format!("line {n}: a cost line before the events: line"));
        }
        let toks: Vec<&str> = line.split_whitespace().collect();
        if toks.len() < self.positions.len() {
            return Err(format!("line {n}: fewer fields than positions"));
        }
        for (i, t) in toks[..self.positions.len()].iter().enumerate() {
            self.last[i] =
                position(t, self.last[i]).ok_or_else(|| format!("line {n}: bad position {t:?}"))?;
        }
        let values = &toks[self.positions.len()..];
        if values.len() > events {
            return Err(format!(
                "line {n}: {} costs for {events} events",
                values.len()
            ));
        }
        let mut costs = vec![0u64; events];
        for (c, t) in costs.iter_mut().zip(values) {
            *c = t.parse().map_err(|_| format!("line {n}: bad cost {t:?}"))?;
        }
        if std::mem::take(&mut self.skip_next) {
            return Ok(()); // the inclusive cost of a call, not this function's own
        }
        self.add(&costs, n)
    }

    /// Adds one cost line's costs to the current function, in total and at its instruction.
    fn add(&mut self, costs: &[u64], n: usize) -> Result<(), String> {
        let Some(f) = &self.current else {
            return Err(format!("line {n}: a cost line before any fn= line"));
        };
        let entry = self.profile.functions.entry(f.clone()).or_default();
        if entry.totals.is_empty() {
            entry.totals = vec![0; costs.len()];
        }
        for (t, c) in entry.totals.iter_mut().zip(costs) {
            *t += c;
        }
        if let Some(i) = self.positions.iter().position(|x| x == "instr") {
            let slot = entry
                .per_instr
                .entry(self.last[i])
                .or_insert_with(|| vec![0; costs.len()]);
            for (t, c) in slot.iter_mut().zip(costs) {
                *t += c;
            }
        }
        Ok(())
    }
}

/// Resolves a possibly compressed name: `(12) name` defines, `(12)` refers, `name` is plain.
fn resolve(value: &str, names: &mut BTreeMap<String, String>) -> Option<String> {
    let v = value.trim();
    if let Some(rest) = v.strip_prefix('(') {
        let (id, name) = rest.split_once(')')?;
        let name = name.trim();
        if name.is_empty() {
            names.get(id).cloned()
        } else {
            names.insert(id.to_string(), name.to_string());
            Some(name.to_string())
        }
    } else {
        Some(v.to_string())
    }
}

/// The simulated branch counts of one function: total and per jump.
#[derive(Debug, Clone, PartialEq)]
pub struct Branches {
    /// Conditional branches executed and mispredicted, over the whole function.
    pub executed: u64,
    pub missed: u64,
    /// `(address, executed, missed)` per conditional jump that ran.
    pub jumps: Vec<(u64, u64, u64)>,
}

impl Branches {
    /// Reads `function`'s `Bc`/`Bcm` counts from a profile.
    pub fn of(p: &Profile, function: &str) -> Result<Branches, String> {
        let (bc, bcm) = match (p.event("Bc"), p.event("Bcm")) {
            (Some(a), Some(b)) => (a, b),
            _ => {
                return Err(
                    "the profile has no Bc/Bcm events (was --branch-sim=yes given?)".into(),
                );
            }
        };
        let f = p
            .functions
            .get(function)
            .ok_or_else(|| format!("the profile has no function {function}"))?;
        let jumps = f
            .per_instr
            .iter()
            .filter(|(_, c)| c[bc] > 0)
            .map(|(a, c)| (*a, c[bc], c[bcm]))
            .collect();
        Ok(Branches {
            executed: f.totals[bc],
            missed: f.totals[bcm],
            jumps,
        })
    }

    /// The jump at `addr`: `(executed, missed)`.
    pub fn at(&self, addr: u64) -> Option<(u64, u64)> {
        self.jumps.iter().find(|j| j.0 == addr).map(|j| (j.1, j.2))
    }

    /// The most-missed jump's address.
    pub fn most_missed(&self) -> Option<u64> {
        self.jumps
            .iter()
            .max_by_key(|j| (j.2, std::cmp::Reverse(j.0)))
            .map(|j| j.0)
    }
}

/// "49975 of 100000 missed (50.0%)".
fn missed_of(missed: u64, executed: u64) -> String {
    if executed == 0 {
        "none ran".into()
    } else {
        format!(
            "{missed} of {executed} ({:.1}%)",
            missed as f64 * 100.0 / executed as f64
        )
    }
}

/// Builds the branch binary and returns its path.
fn build_branch(root: &Path) -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root)
        .args(["build", "-p", "branch", "--message-format=json"])
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "cargo build -p branch failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    executable_from_json(&text, "branch")
        .ok_or_else(|| "cargo did not report a branch executable".into())
}

/// The `executable` of the binary target `name` in cargo's JSON messages
/// (`--message-format=json`: one JSON object a line), read with serde_json.
pub fn executable_from_json(text: &str, name: &str) -> Option<PathBuf> {
    text.lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .filter(|m| {
            m["target"]["kind"]
                .as_array()
                .is_some_and(|k| k.iter().any(|x| x == "bin"))
        })
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
}

/// Runs the kernel under callgrind and returns the parsed profile.
fn simulate(
    bin: &Path,
    order: &str,
    n: u64,
    dir: &Path,
    said_out: &mut String,
) -> Result<Profile, String> {
    let out_file = dir.join(format!("callgrind.{order}.out"));
    let out = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg("--branch-sim=yes")
        .arg("--dump-instr=yes")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg(bin)
        .args(["--valgrind-kernel", order, "--n", &n.to_string()])
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let last = err
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        return Err(format!(
            "valgrind ... branch --valgrind-kernel {order} failed ({}): {}",
            out.status,
            last.trim()
        ));
    }
    let said = String::from_utf8_lossy(&out.stdout);
    said_out.push_str(&format!("  {}\n", said.trim()));
    let text = std::fs::read_to_string(&out_file)
        .map_err(|e| format!("cannot read {}: {e}", out_file.display()))?;
    parse_callgrind(&text).map_err(|e| format!("{}: {e}", out_file.display()))
}

/// What the simulation says about the branch experiment's assumption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Random about 50%, sorted about 0%: as the experiment assumes.
    Agrees,
    /// Not the expected contrast.
    Contradicts,
    /// Not simulated, and why (valgrind missing).
    Skipped(String),
}

/// The report `verify` prints, and its verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    pub text: String,
    pub verdict: Verdict,
}

/// `cargo xtask verify`: prints the report; a contradiction is a failure (exit status 1).
pub fn command(o: &crate::flags::Verify) -> crate::error::Result<()> {
    let r = run(o)?;
    print!("{}", r.text);
    match r.verdict {
        Verdict::Contradicts => Err(crate::error::failed(
            "the simulation does not show the contrast the branch experiment assumes",
        )),
        _ => Ok(()),
    }
}

/// Appends one line to a report (`say!(out)` for an empty one).
macro_rules! say {
    ($out:expr) => {{
        let _ = writeln!($out);
    }};
    ($out:expr, $($t:tt)*) => {{
        let _ = writeln!($out, $($t)*);
    }};
}

/// Runs the simulation and returns the report. Bad input (a `--bin` that is not a file) is
/// an error value; so is a simulation that could not run.
pub fn run(o: &crate::flags::Verify) -> crate::error::Result<Report> {
    use crate::error::{bad, failed};
    let mut out = String::new();
    if let Some(b) = &o.bin
        && !b.is_file()
    {
        return Err(bad(format!("--bin {}: no such file", b.display())));
    }
    say!(
        out,
        "== verify: the real branch under callgrind's branch simulator =="
    );
    if !valgrind_found(&mut out) {
        say!(out, "  valgrind not found: skipped");
        return Ok(Report {
            text: out,
            verdict: Verdict::Skipped("valgrind not found".into()),
        });
    }
    let bin = match &o.bin {
        Some(b) => b.clone(),
        None => build_branch(&crate::project::root()).map_err(failed)?,
    };
    let (r, s) = simulate_both(&bin, o.n, &mut out)?;
    let data = table(&mut out, &r, &s)?;
    cross_check(&mut out, &bin, data);
    let verdict = judge(
        &mut out,
        r.at(data).unwrap_or((0, 0)),
        s.at(data).unwrap_or((0, 0)),
        o.n,
    );
    Ok(Report { text: out, verdict })
}

/// Whether `valgrind --version` runs; its version goes into the report.
fn valgrind_found(out: &mut String) -> bool {
    match Command::new("valgrind").arg("--version").output() {
        Ok(v) if v.status.success() => {
            say!(out, "  {}", String::from_utf8_lossy(&v.stdout).trim());
            true
        }
        Ok(_) | Err(_) => false,
    }
}

/// The branch counts of [`FUNCTION`] on random, then sorted data, simulated in a temporary
/// folder that is removed afterwards.
fn simulate_both(
    bin: &Path,
    n: u64,
    out: &mut String,
) -> crate::error::Result<(Branches, Branches)> {
    use crate::error::failed;
    let dir = std::env::temp_dir().join(format!("mm-verify-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| failed(format!("cannot create {}: {e}", dir.display())))?;
    let result = (|| -> Result<(Branches, Branches), String> {
        let r = Branches::of(&simulate(bin, "random", n, &dir, out)?, FUNCTION)?;
        let s = Branches::of(&simulate(bin, "sorted", n, &dir, out)?, FUNCTION)?;
        Ok((r, s))
    })();
    let _ = std::fs::remove_dir_all(&dir);
    result.map_err(failed)
}

/// The table of simulated mispredictions, random beside sorted: the whole function, its
/// most-missed jump (the data branch) and its other jumps. Returns the data branch's address.
fn table(out: &mut String, r: &Branches, s: &Branches) -> crate::error::Result<u64> {
    say!(out);
    say!(
        out,
        "  simulated mispredictions in {FUNCTION:<12} {:>22} {:>22}",
        "random order",
        "sorted order"
    );
    say!(
        out,
        "  all its conditional branches            {:>22} {:>22}",
        missed_of(r.missed, r.executed),
        missed_of(s.missed, s.executed),
    );
    let data = r.most_missed().ok_or_else(|| {
        crate::error::failed(format!(
            "{FUNCTION} ran no conditional branch under the simulator"
        ))
    })?;
    let (re, rm) = r.at(data).unwrap_or((0, 0));
    let (se, sm) = s.at(data).unwrap_or((0, 0));
    say!(
        out,
        "  {:<39} {:>22} {:>22}",
        format!("its most-missed jump, at 0x{data:x}"),
        missed_of(rm, re),
        missed_of(sm, se),
    );
    say!(
        out,
        "  {:<39} {:>22} {:>22}",
        "the function's other conditional jumps",
        missed_of(r.missed - rm, r.executed - re),
        missed_of(s.missed - sm, s.executed - se),
    );
    Ok(data)
}

/// Cross-checks with the disassembly: is the most-missed jump the fork the shape check found?
fn cross_check(out: &mut String, bin: &Path, data: u64) {
    let f = match asm::disassemble(bin, FUNCTION) {
        Ok(f) => f,
        Err(e) => {
            say!(out, "  (no cross-check with the disassembly: {e})");
            return;
        }
    };
    let forks: Vec<u64> = f.loops().iter().flat_map(|l| l.forks.clone()).collect();
    if forks.contains(&data) {
        let m = f
            .insns
            .iter()
            .find(|i| i.addr == data)
            .map_or("?".to_string(), |i| i.mnemonic.clone());
        say!(
            out,
            "  * that jump ({m} at +0x{:x}) is the conditional jump inside the loop that\n    the disassembly check found.",
            data - f.start
        );
    } else if (f.start..f.end).contains(&data) {
        say!(
            out,
            "  ! the most-missed jump is not a jump inside the loop body by the disassembly\n    check (forks: {forks:x?})"
        );
    } else {
        say!(
            out,
            "  (callgrind's addresses are not the binary's: no cross-check with the disassembly)"
        );
    }
}

/// The verdict on the data branch's `(executed, missed)` counts on random and sorted data:
/// about 50% against about 0% agrees with the branch experiment.
fn judge(out: &mut String, (re, rm): (u64, u64), (se, sm): (u64, u64), n: u64) -> Verdict {
    let (rr, sr) = (rm as f64 / re.max(1) as f64, sm as f64 / se.max(1) as f64);
    if (0.4..=0.6).contains(&rr) && sr < 0.01 {
        say!(
            out,
            "  * as the branch experiment assumes: on random data the simulated predictor misses\n    the data branch {:.1}% of the time, on sorted data {:.3}% (deterministic counts,\n    {n} values).",
            rr * 100.0,
            sr * 100.0
        );
        Verdict::Agrees
    } else {
        say!(
            out,
            "  ! not the expected contrast (about 50% vs about 0%): random {:.1}%, sorted {:.3}%",
            rr * 100.0,
            sr * 100.0
        );
        Verdict::Contradicts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A shortened callgrind file in the shape valgrind 3.19 writes with `--dump-instr=yes`:
    /// name and position compression, file switches, and a call whose inclusive cost must not
    /// be counted as the caller's own.
    const SAMPLE: &str = "# callgrind format
version: 1
creator: callgrind-3.19.0
positions: instr line
events: Ir Bc Bcm Bi Bim
summary: 700 206 51 0 0

ob=(2) ???
fl=(52) ???
fn=(1054) 0x000000000496b360
0x496b360 0 6 0 0 6 1
cob=(3) /usr/lib/x86_64-linux-gnu/libc.so.6
cfi=(183) ./malloc/./malloc/malloc.c
cfn=(1056) free
calls=6 0x98ef0 3350
* 0 528 78 5

fl=(167)
fn=(1354) branch_real
0x2efe0 1720 1
fi=(256)
+3 180 100 100 1
fi=(239) /work/main/crates/branch/src/main.rs
+2 59 100
+4 +1 100
+3 * 100 100 49
+2 +2 51
fe=(167)
fn=(1056)
0x98ef0 10 5 2 1
fn=(1354)
0x2f00a 1730 3 3 1
";

    #[test]
    fn parses_one_functions_branches() {
        let p = parse_callgrind(SAMPLE).unwrap();
        assert_eq!(p.events, ["Ir", "Bc", "Bcm", "Bi", "Bim"]);
        let b = Branches::of(&p, "branch_real").unwrap();
        // 100 + 100 + 3 conditional branches executed, 1 + 49 + 1 missed.
        assert_eq!((b.executed, b.missed), (203, 51));
        // Addresses: 0x2efe0, +3 = 0x2efe3, +2 = 0x2efe5, +4 = 0x2efe9, +3 = 0x2efec.
        assert_eq!(b.at(0x2efec), Some((100, 49)));
        assert_eq!(b.at(0x2efe3), Some((100, 1)));
        assert_eq!(b.most_missed(), Some(0x2efec));
    }

    #[test]
    fn call_costs_are_not_the_callers_own() {
        let p = parse_callgrind(SAMPLE).unwrap();
        let f = &p.functions["0x000000000496b360"];
        assert_eq!(f.totals, vec![6, 0, 0, 6, 1]);
        // `free` was defined by a cfn= line and later referred to by number.
        assert_eq!(p.functions["free"].totals, vec![5, 2, 1, 0, 0]);
    }

    #[test]
    fn malformed_files_say_where() {
        for (text, says) in [
            ("events: Ir\nfn=(1)\n", "line 2"),
            ("events: Ir\n10 5\n", "before any fn="),
            ("fn=x\n10 5\n", "before the events"),
            ("events: Ir\nfn=x\n10 5 6\n", "2 costs for 1"),
            ("events: Ir\nfn=x\n10 q\n", "bad cost"),
            ("events: Ir\nfn=x\ncalls=1 5\n", "ends after"),
        ] {
            let e = parse_callgrind(text).unwrap_err();
            assert!(e.contains(says), "{text:?}: {e}");
        }
        let no_sim = parse_callgrind("events: Ir\nfn=x\n10 5\n").unwrap();
        assert!(
            Branches::of(&no_sim, "x")
                .unwrap_err()
                .contains("--branch-sim")
        );
    }

    #[test]
    fn positions_default_to_line_only() {
        let p = parse_callgrind("events: Ir Bc Bcm\nfn=f\n10 5 2 1\n+1 5 2\n").unwrap();
        let b = Branches::of(&p, "f").unwrap();
        assert_eq!((b.executed, b.missed), (4, 1));
        assert!(b.jumps.is_empty(), "no instr positions, no per-jump counts");
    }

    #[test]
    fn finds_the_executable_in_cargo_json() {
        let json = r#"{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"branch"},"executable":null}
{"reason":"compiler-artifact","target":{"kind":["bin"],"name":"branch"},"executable":"/w/target/debug/branch","fresh":true}
{"reason":"build-finished","success":true}"#;
        assert_eq!(
            executable_from_json(json, "branch"),
            Some(PathBuf::from("/w/target/debug/branch"))
        );
        assert_eq!(executable_from_json(json, "fp_cost"), None);
    }
}
