//! The child side: one fresh process measures one workload at one environment size.
//!
//! The parent re-executes this same binary as `env_scan --env-scan-child WORKLOAD REPS CORE`
//! with an empty environment plus `PAD`. The child first checks what it was given (is
//! `ADDR_NO_RANDOMIZE` in its personality, is its affinity mask exactly the one core, is
//! `PAD` really there and alone), then runs its workload once to warm up, times it `REPS`
//! times, and prints one line that the parent parses ([`Report`]). The times and the stack
//! address come from the same process, so they describe the same stack placement.
//!
//! Every timed run is judged by the child's own [`Probe`] ([`measure::rounds::run`]): a run
//! in which another task held the core is set aside, the next one warmed up again, and more
//! runs are taken until `REPS` are clean (at most twice as many, within [`EXTRA_NS`]). The median is the clean runs'; the report says how many runs were
//! disturbed, and how long the child waited for its core over its whole life.

use measure::clock;
use measure::disturb::{Evidence, Probe, Tally};
use measure::keep::black_box;
use measure::rounds::{self, Step, Want};
use std::fmt::Write as _;

/// The first argument that switches the binary into child mode (not shown in `--help`).
pub const CHILD_FLAG: &str = "--env-scan-child";
/// The first word of the child's report line.
pub const REPORT_TAG: &str = "env_scan_child_report";

/// Floats in the global array and in the stack array of `copy`.
pub const COPY_LEN: usize = 1024;
/// How many times `copy` copies the whole array in one timed run.
pub const COPY_TIMES: u32 = 20_000;
/// `fib` computes the Fibonacci number of this.
pub const FIB_N: u32 = 25;
/// fib(25).
pub const FIB_VALUE: u64 = 75_025;
/// A child takes extra runs, beyond `REPS`, only within this time, and only when runs were
/// disturbed (a scan has 1536 children: on a machine busy all the time, where extra runs
/// cannot help, this keeps the scan's cost bounded).
pub const EXTRA_NS: u64 = 10_000_000;

/// The global array `copy` reads. Its address is fixed by the binary; only the stack moves.
static SOURCE: [f32; COPY_LEN] = source_values();

const fn source_values() -> [f32; COPY_LEN] {
    let mut a = [0.0f32; COPY_LEN];
    let mut i = 0;
    while i < COPY_LEN {
        // Small integers and halves: exactly representable, so the checksum is exact.
        a[i] = (i % 97) as f32 * 0.5;
        i += 1;
    }
    a
}

/// The two workloads of the experiment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    /// Reads the global array and writes a stack array, `COPY_TIMES` times.
    Copy,
    /// Recursive fib(25): calls and returns, the stack in use all the time.
    Fib,
}

impl Workload {
    pub const ALL: [Workload; 2] = [Workload::Copy, Workload::Fib];
    pub fn name(self) -> &'static str {
        match self {
            Workload::Copy => "copy",
            Workload::Fib => "fib",
        }
    }
    pub fn from_name(s: &str) -> Option<Workload> {
        Workload::ALL.into_iter().find(|w| w.name() == s)
    }
}

/// The copy loop. Every element is read with a volatile load and written with a volatile
/// store, so the compiler can neither turn the loop into a `memcpy` call, nor vectorise it
/// into something else, nor hoist the 20000 identical copies into one: the loads from the
/// global array and the stores to the stack array all happen, in order. A test checks the
/// built binary for a loop without calls.
#[unsafe(no_mangle)]
#[inline(never)]
pub fn env_scan_copy(src: &[f32; COPY_LEN], dst: &mut [f32; COPY_LEN], times: u32) {
    for _ in 0..times {
        for i in 0..COPY_LEN {
            // SAFETY: both indices are in bounds of arrays we hold references to.
            unsafe {
                let v = std::ptr::read_volatile(src.as_ptr().add(i));
                std::ptr::write_volatile(dst.as_mut_ptr().add(i), v);
            }
        }
    }
}

/// Recursive Fibonacci: nothing but calls, returns and additions. A test checks that the
/// built function still calls itself.
#[unsafe(no_mangle)]
#[inline(never)]
pub fn env_scan_fib(n: u32) -> u64 {
    if n < 2 {
        u64::from(n)
    } else {
        env_scan_fib(n - 1) + env_scan_fib(n - 2)
    }
}

/// What one child found and measured. Written as one line, parsed back by [`Report::parse`].
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    pub workload: Workload,
    /// Length of `PAD` as the child saw it.
    pub pad_seen: usize,
    /// How many environment variables the child had (1 when only `PAD` was passed).
    pub env_vars: usize,
    /// The personality word read back with `personality(0xffffffff)`; `None` if refused.
    pub persona: Option<u32>,
    /// The core the parent asked for, if any.
    pub core_requested: Option<usize>,
    /// Number of cores in the child's affinity mask; `None` if it could not be read.
    pub affinity_count: Option<usize>,
    /// Whether the requested core is in the mask.
    pub affinity_has_core: bool,
    pub cpu_before: Option<usize>,
    pub cpu_after: Option<usize>,
    /// Address of the stack array (a local of the measuring function).
    pub stack_addr: u64,
    /// Address of the global array.
    pub global_addr: u64,
    pub median_ns: f64,
    pub min_ns: f64,
    pub max_ns: f64,
    pub reps: usize,
    /// Sum of the results of every timed run (fib) or of the stack array (copy).
    pub sink: u64,
    /// Timed runs taken (`reps` clean ones wanted), and how many of them were disturbed.
    pub rounds: usize,
    pub disturbed: usize,
    /// Time the timed runs lost to other work, and their wall time, in nanoseconds.
    pub lost_ns: u64,
    pub wall_ns: u64,
    /// The child's whole life up to its report: wall time, and time spent waiting for its
    /// core (`None` where the kernel keeps no waits).
    pub life_ns: u64,
    pub life_waited_ns: Option<u64>,
}

impl Report {
    /// Whether address randomisation was off in this child, read from its personality.
    pub fn aslr_off(&self) -> bool {
        self.persona
            .is_some_and(|p| p & libc::ADDR_NO_RANDOMIZE as u32 != 0)
    }
    /// The child's timed runs counted, as the parent adds them up.
    pub fn tally(&self) -> Tally {
        Tally {
            rounds: self.rounds,
            disturbed: self.disturbed,
            disturbed_used: if self.disturbed == self.rounds {
                self.disturbed
            } else {
                0
            },
            lost_ns: self.lost_ns,
            wall_ns: self.wall_ns,
            load: None,
            segments: false,
        }
    }

    /// Whether the child was held on exactly the core asked for, and seen only there.
    pub fn pinned(&self) -> bool {
        match self.core_requested {
            Some(c) => {
                self.affinity_count == Some(1)
                    && self.affinity_has_core
                    && self.cpu_before == Some(c)
                    && self.cpu_after == Some(c)
            }
            None => false,
        }
    }

    pub fn to_line(&self) -> String {
        let opt = |v: Option<usize>| v.map_or("-".to_string(), |c| c.to_string());
        let mut s = String::new();
        let _ = write!(
            s,
            "{REPORT_TAG} workload={} pad_seen={} env_vars={} persona={} core={} affinity_count={} \
             affinity_has_core={} cpu_before={} cpu_after={} stack_addr={:#x} global_addr={:#x} \
             median_ns={} min_ns={} max_ns={} reps={} sink={} rounds={} disturbed={} \
             lost_ns={} wall_ns={} life_ns={} life_waited_ns={}",
            self.workload.name(),
            self.pad_seen,
            self.env_vars,
            self.persona.map_or("-".to_string(), |p| format!("{p:#x}")),
            opt(self.core_requested),
            opt(self.affinity_count),
            u8::from(self.affinity_has_core),
            opt(self.cpu_before),
            opt(self.cpu_after),
            self.stack_addr,
            self.global_addr,
            self.median_ns,
            self.min_ns,
            self.max_ns,
            self.reps,
            self.sink,
            self.rounds,
            self.disturbed,
            self.lost_ns,
            self.wall_ns,
            self.life_ns,
            opt(self.life_waited_ns.map(|w| w as usize)),
        );
        s
    }

    /// Parses the report line out of a child's stdout; `Err` says what is wrong.
    pub fn parse(stdout: &str) -> Result<Report, String> {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(REPORT_TAG))
            .ok_or_else(|| format!("no {REPORT_TAG} line in the child's output {stdout:?}"))?;
        let mut kv = std::collections::BTreeMap::new();
        for tok in line.split_whitespace().skip(1) {
            let (k, v) = tok
                .split_once('=')
                .ok_or_else(|| format!("malformed field {tok:?}"))?;
            kv.insert(k, v);
        }
        let get = |k: &str| kv.get(k).copied().ok_or_else(|| format!("no field {k}"));
        let num = |k: &str| -> Result<u64, String> {
            let v = get(k)?;
            let parsed = match v.strip_prefix("0x") {
                Some(h) => u64::from_str_radix(h, 16),
                None => v.parse(),
            };
            parsed.map_err(|_| format!("field {k}={v} is not a number"))
        };
        let opt = |k: &str| -> Result<Option<usize>, String> {
            if get(k)? == "-" {
                Ok(None)
            } else {
                num(k).map(|v| Some(v as usize))
            }
        };
        let float = |k: &str| -> Result<f64, String> {
            let v = get(k)?;
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("field {k}={v} is not a number"))
        };
        let workload = Workload::from_name(get("workload")?)
            .ok_or_else(|| format!("unknown workload {:?}", get("workload")))?;
        Ok(Report {
            workload,
            pad_seen: num("pad_seen")? as usize,
            env_vars: num("env_vars")? as usize,
            persona: opt("persona")?.map(|p| p as u32),
            core_requested: opt("core")?,
            affinity_count: opt("affinity_count")?,
            affinity_has_core: num("affinity_has_core")? == 1,
            cpu_before: opt("cpu_before")?,
            cpu_after: opt("cpu_after")?,
            stack_addr: num("stack_addr")?,
            global_addr: num("global_addr")?,
            median_ns: float("median_ns")?,
            min_ns: float("min_ns")?,
            max_ns: float("max_ns")?,
            reps: num("reps")? as usize,
            sink: num("sink")?,
            rounds: num("rounds")? as usize,
            disturbed: num("disturbed")? as usize,
            lost_ns: num("lost_ns")?,
            wall_ns: num("wall_ns")?,
            life_ns: num("life_ns")?,
            life_waited_ns: opt("life_waited_ns")?.map(|w| w as u64),
        })
    }
}

/// The affinity mask of this process: (number of cores in it, whether `core` is one).
fn affinity(core: Option<usize>) -> (Option<usize>, bool) {
    // SAFETY: an all-zero cpu_set_t is a valid empty set; sched_getaffinity fills it.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let rc =
        unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return (None, false);
    }
    // SAFETY: `set` was filled by the kernel.
    let count = unsafe { libc::CPU_COUNT(&set) } as usize;
    let has = core.is_some_and(|c| {
        // SAFETY: the index is checked against the set's size first.
        c < libc::CPU_SETSIZE as usize && unsafe { libc::CPU_ISSET(c, &set) }
    });
    (Some(count), has)
}

/// The child's `main`: `args` are the words after [`CHILD_FLAG`]. Never returns.
pub fn main(args: &[String]) -> ! {
    let mut probe = Probe::new();
    let born = probe.mark();
    let usage = || -> ! {
        eprintln!("env_scan: error: child mode wants WORKLOAD REPS CORE|-, got {args:?}");
        std::process::exit(2)
    };
    let [w, reps, core] = args else { usage() };
    let Some(workload) = Workload::from_name(w) else {
        usage()
    };
    let Ok(reps) = reps.parse::<usize>() else {
        usage()
    };
    let core_requested = match core.as_str() {
        "-" => None,
        c => match c.parse::<usize>() {
            Ok(c) => Some(c),
            Err(_) => usage(),
        },
    };
    let reps = reps.max(1);

    // What did the parent's pre_exec hook achieve? Read it back, do not trust it.
    // SAFETY: 0xffffffff asks for the current personality without changing it.
    let p = unsafe { libc::personality(0xffff_ffff) };
    let persona = (p != -1).then_some(p as u32);
    let (affinity_count, affinity_has_core) = affinity(core_requested);
    let pad_seen = std::env::var_os("PAD").map_or(0, |v| v.len());
    let env_vars = std::env::vars_os().count();
    let cpu_before = measure::pin::current_cpu();

    // The stack local whose placement the environment moves: the destination array.
    let mut stack = [0.0f32; COPY_LEN];
    let stack_addr = black_box(&mut stack) as *mut _ as u64;
    let global_addr = &SOURCE as *const _ as u64;

    let one = |stack: &mut [f32; COPY_LEN]| -> u64 {
        match workload {
            Workload::Copy => {
                env_scan_copy(black_box(&SOURCE), black_box(stack), black_box(COPY_TIMES));
                0
            }
            Workload::Fib => env_scan_fib(black_box(FIB_N)),
        }
    };
    let (mut sink, mut timed_runs) = (0u64, 0u64);
    let want = Want {
        clean: reps,
        max_rounds: 2 * reps,
        budget_ns: EXTRA_NS,
        warm_every: false,
    };
    // A warm-up run (discarded) before the first timed one and after a disturbed one.
    let timed = rounds::run(&mut probe, &want, |step| match step {
        Step::Warm(_) => {
            black_box(one(&mut stack));
            0.0
        }
        Step::Time(_) => {
            let (ns, r) = clock::time_ns(|| one(&mut stack));
            sink += black_box(r);
            timed_runs += 1;
            ns
        }
    });
    let cpu_after = measure::pin::current_cpu();

    // Check the results: a loop that stopped doing its work must not be timed silently.
    let expected_ok = match workload {
        Workload::Copy => {
            sink = stack.iter().map(|&x| (x * 2.0) as u64).sum();
            let want: u64 = SOURCE.iter().map(|&x| (x * 2.0) as u64).sum();
            sink == want
        }
        Workload::Fib => sink == FIB_VALUE * timed_runs,
    };
    if !expected_ok {
        eprintln!(
            "env_scan: error: the {} workload produced a wrong result (sink {sink})",
            workload.name()
        );
        std::process::exit(1);
    }
    let s = timed.summary().expect("reps >= 1");
    let t = timed.tally();
    let life = Evidence::between(&born, &probe.mark());
    let report = Report {
        workload,
        pad_seen,
        env_vars,
        persona,
        core_requested,
        affinity_count,
        affinity_has_core,
        cpu_before,
        cpu_after,
        stack_addr,
        global_addr,
        median_ns: s.median,
        min_ns: s.min,
        max_ns: s.max,
        reps,
        sink,
        rounds: t.rounds,
        disturbed: t.disturbed,
        lost_ns: t.lost_ns,
        wall_ns: t.wall_ns,
        life_ns: life.wall_ns,
        life_waited_ns: life.waited_ns,
    };
    println!("{}", report.to_line());
    std::process::exit(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_compute_what_they_say() {
        assert_eq!(env_scan_fib(FIB_N), FIB_VALUE);
        let mut dst = [0.0f32; COPY_LEN];
        env_scan_copy(&SOURCE, &mut dst, 2);
        assert_eq!(dst, SOURCE);
    }

    #[test]
    fn report_round_trips() {
        let r = Report {
            workload: Workload::Copy,
            pad_seen: 17,
            env_vars: 1,
            persona: Some(0x40000),
            core_requested: Some(1),
            affinity_count: Some(1),
            affinity_has_core: true,
            cpu_before: Some(1),
            cpu_after: Some(1),
            stack_addr: 0x7fff_ffff_dc90,
            global_addr: 0x5555_5555_a000,
            median_ns: 4_100_000.5,
            min_ns: 4_000_000.0,
            max_ns: 5_000_000.0,
            reps: 7,
            sink: 525_175,
            rounds: 9,
            disturbed: 2,
            lost_ns: 6_000_000,
            wall_ns: 40_000_000,
            life_ns: 60_000_000,
            life_waited_ns: Some(6_500_000),
        };
        let back = Report::parse(&format!("noise\n{}\n", r.to_line())).unwrap();
        assert_eq!(back, r);
        assert!(back.aslr_off() && back.pinned());
        let unpinned = Report {
            cpu_after: Some(0),
            persona: Some(0),
            ..r.clone()
        };
        let back = Report::parse(&unpinned.to_line()).unwrap();
        assert!(!back.aslr_off() && !back.pinned());
        assert!(Report::parse("nothing here").is_err());
        let t = back.tally();
        assert_eq!((t.rounds, t.disturbed, t.disturbed_used), (9, 2, 0));
        let all_hit = Report {
            disturbed: 9,
            life_waited_ns: None,
            ..r.clone()
        };
        let back = Report::parse(&all_hit.to_line()).unwrap();
        assert_eq!(back.life_waited_ns, None);
        assert_eq!(
            back.tally().disturbed_used,
            9,
            "no clean run: the median is disturbed"
        );
        assert!(Report::parse(&r.to_line().replace("median_ns=4100000.5", "median_ns=x")).is_err());
    }
}
