//! The parent side: starting one child with a controlled environment and reading its report.
//!
//! The child is this same binary (`std::env::current_exe()`), started with an empty
//! environment plus `PAD` of n bytes. Between `fork` and `exec` a `pre_exec` hook asks for
//! address-space randomisation to be switched off (`personality(ADDR_NO_RANDOMIZE)`, which
//! takes effect at the `exec`) and pins the process to one core. The hook checks both return
//! values and, if a request is refused, writes a fixed line to the child's stderr (only
//! async-signal-safe calls are allowed there). The child then reads back both settings
//! itself, so what is reported is what the child actually ran with.

use crate::child::{CHILD_FLAG, Report, Workload};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Stdio;

/// How children are started.
#[derive(Debug, Clone)]
pub struct Launcher {
    pub exe: PathBuf,
    /// The core every child is pinned to; `None` leaves children unpinned.
    pub core: Option<usize>,
    /// Set `ADDR_NO_RANDOMIZE` (the default); `false` clears it (`--aslr-on`, to show the difference).
    pub aslr_off: bool,
    /// Timed runs per child.
    pub reps: usize,
}

/// One child's outcome: its report and anything it wrote on stderr.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub report: Report,
    pub stderr: Vec<String>,
}

const PERSONALITY_REFUSED: &[u8] =
    b"env_scan pre_exec: personality() refused to set ADDR_NO_RANDOMIZE as asked\n";
const PIN_REFUSED: &[u8] =
    b"env_scan pre_exec: sched_setaffinity to the requested core was refused\n";

fn write_stderr(msg: &[u8]) {
    // SAFETY: write(2) is async-signal-safe; a failed write is simply lost.
    unsafe {
        libc::write(2, msg.as_ptr().cast(), msg.len());
    }
}

impl Launcher {
    /// Runs `workload` in a fresh child whose environment is only `PAD` of `pad` bytes.
    pub fn run(&self, workload: Workload, pad: usize) -> Result<Outcome, String> {
        let mut cmd = measure::emulation::command(&self.exe);
        cmd.arg(CHILD_FLAG)
            .arg(workload.name())
            .arg(self.reps.to_string())
            .arg(self.core.map_or("-".to_string(), |c| c.to_string()))
            .env_clear()
            .env("PAD", "x".repeat(pad))
            .stdin(Stdio::null());
        let aslr_off = self.aslr_off;
        let core = self.core;
        // SAFETY: the hook runs in the forked child before exec and only makes
        // async-signal-safe system calls (personality, sched_setaffinity, write); it
        // allocates nothing (core_affinity builds its cpu_set_t on the stack).
        unsafe {
            cmd.pre_exec(move || {
                // Set the flag to what was asked either way: a parent started under
                // `setarch -R` would otherwise hand "ASLR off" to an `--aslr-on` run.
                let current = libc::personality(0xffff_ffff);
                let flag = libc::ADDR_NO_RANDOMIZE as libc::c_ulong;
                let wanted = if aslr_off {
                    current as libc::c_ulong | flag
                } else {
                    current as libc::c_ulong & !flag
                };
                if current == -1 || libc::personality(wanted) == -1 {
                    write_stderr(PERSONALITY_REFUSED);
                }
                if let Some(c) = core {
                    let ok = c < libc::CPU_SETSIZE as usize
                        && core_affinity::set_for_current(core_affinity::CoreId { id: c });
                    if !ok {
                        write_stderr(PIN_REFUSED);
                    }
                }
                Ok(())
            });
        }
        let out = cmd
            .output()
            .map_err(|e| format!("could not start {}: {e}", self.exe.display()))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr: Vec<String> = String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(str::to_string)
            .filter(|l| !l.trim().is_empty())
            .collect();
        if !out.status.success() {
            return Err(format!(
                "child ({} at PAD {pad}) ended with {}: {}",
                workload.name(),
                out.status,
                stderr.join(" / ")
            ));
        }
        let report = Report::parse(&stdout)?;
        if report.workload != workload || report.pad_seen != pad {
            return Err(format!(
                "child was asked for {} at PAD {pad} but reports {} at PAD {}",
                workload.name(),
                report.workload.name(),
                report.pad_seen
            ));
        }
        Ok(Outcome { report, stderr })
    }
}
