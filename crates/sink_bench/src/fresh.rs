//! The processes: what every process does before it measures, the binary's discarded first
//! execution, and the fresh processes of parts 2 and 3.
//!
//! Every process, the measuring one and each fresh one alike, runs [`begin`]: it maps a
//! fresh 4 MiB array, times its first pass over it (the cold pass, with the page faults
//! inside the timed region), fills it, repeats the loop for `SETTLE_MS` and discards one
//! more pass.
//!
//! The seed discards the binary's first execution, which pays for the kernel's first look at
//! a freshly written file. So a plain run is two executions: the first ([`first_execution`])
//! makes the start and one warm pass, as a fresh process would, then starts the binary
//! again with [`FIRST_ENV`] holding its result line, and passes on its exit status; the
//! second one measures and reports the first as discarded ([`discarded_first`]).
//!
//! A fresh process is this same binary, started again with the environment variable
//! [`CHILD_ENV`] set; it takes one cold and one warm pass and prints one line that the parent
//! parses ([`ChildResult::line`] / [`ChildResult::parse`]). A pass in a fresh process cannot
//! be taken again, so the process judges each of its two passes by its own
//! [`measure::disturb::Probe`], and its whole life too, and reports the evidence in that line.

use crate::kernel::{self, N, PASS_SUM};
use measure::disturb::{Evidence, Probe};
use measure::mem::{HugeAdvice, Region};
use std::path::{Path, PathBuf};
use std::process::Stdio;

/// Set (to a [`ChildSpec`]) in a fresh process's environment.
pub const CHILD_ENV: &str = "SINK_BENCH_CHILD";
/// Set (to the first execution's [`ChildResult::line`]) in the measuring execution's
/// environment.
pub const FIRST_ENV: &str = "SINK_BENCH_FIRST";
/// When set, a fresh process fails at once: the test of how a failure is reported uses it.
pub const FAIL_ENV: &str = "SINK_BENCH_TEST_CHILD_FAILS";
/// The first word of the line a fresh process prints.
pub const CHILD_TAG: &str = "SINK_BENCH_CHILD_RESULT";

/// A process's array after [`begin`], and what the start cost.
pub struct Begun {
    pub region: Region,
    pub cold_ns: u64,
    pub cold_faults: Option<u64>,
    /// What the thread's probe saw during the cold pass.
    pub cold_ev: Evidence,
    /// Whether `MADV_NOHUGEPAGE` was accepted (so the faults are per small page).
    pub small_pages: bool,
    pub settle_passes: u64,
}

impl Begun {
    pub fn array(&mut self) -> &mut [f32] {
        kernel::floats(&mut self.region)
    }
}

/// The start every process makes: fresh array, cold pass, fill, settle, one discarded pass.
pub fn begin(settle_ms: u64) -> Result<Begun, String> {
    let mut region = Region::new(N * 4)?;
    // Small pages, so the cold pass takes one fault per page as the seed describes, whatever
    // the transparent-huge-page mode.
    let small_pages = region.advise(HugeAdvice::NoHuge).is_ok();
    let a = kernel::floats(&mut region);
    let ((cold_ns, cold_faults), cold_ev) = Probe::new().watch(|| kernel::sink_pass_with_faults(a));
    kernel::fill(a);
    let settle_passes = kernel::settle(a, settle_ms);
    std::hint::black_box(kernel::sink_bench_time_sink(a));
    Ok(Begun {
        region,
        cold_ns,
        cold_faults,
        cold_ev,
        small_pages,
        settle_passes,
    })
}

/// What a fresh process is told: how long to settle, and which core to pin to (if any).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChildSpec {
    pub settle_ms: u64,
    pub core: Option<usize>,
}

impl ChildSpec {
    pub fn to_env(self) -> String {
        match self.core {
            Some(c) => format!("settle_ms={} core={c}", self.settle_ms),
            None => format!("settle_ms={} core=none", self.settle_ms),
        }
    }

    pub fn parse(s: &str) -> Result<ChildSpec, String> {
        let mut settle = None;
        let mut core = None;
        for kv in s.split_whitespace() {
            match kv.split_once('=') {
                Some(("settle_ms", v)) => settle = v.parse().ok(),
                Some(("core", "none")) => core = Some(None),
                Some(("core", v)) => core = v.parse().ok().map(Some),
                _ => return Err(format!("{CHILD_ENV}: unknown part {kv:?}")),
            }
        }
        match (settle, core) {
            (Some(settle_ms), Some(core)) => Ok(ChildSpec { settle_ms, core }),
            _ => Err(format!(
                "{CHILD_ENV} must be \"settle_ms=N core=C|none\", not {s:?}"
            )),
        }
    }
}

/// One fresh process's measurements.
#[derive(Debug, Clone, PartialEq)]
pub struct ChildResult {
    pub cold_ns: u64,
    pub warm_ns: u64,
    pub cold_faults: Option<u64>,
    pub warm_faults: Option<u64>,
    /// The sum of one untimed pass after the measurement (must be [`PASS_SUM`]).
    pub check_sum: f32,
    /// Whether pinning was asked and verified (`None`: not asked).
    pub pinned: Option<bool>,
    /// The core it ran its warm pass on.
    pub cpu: Option<usize>,
    /// What its own probe saw during the cold pass, the warm pass, and its whole life up to
    /// the end of the warm pass (the settle included).
    pub cold_ev: Evidence,
    pub warm_ev: Evidence,
    pub life_ev: Evidence,
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or("NA".into(), |v| v.to_string())
}

/// Evidence as one word of a result line: `wall/switches/waited/off_cpu` in nanoseconds,
/// `NA` for a run-queue wait the kernel does not keep.
pub fn evidence_word(e: &Evidence) -> String {
    format!(
        "{}/{}/{}/{}",
        e.wall_ns,
        e.switches,
        opt(e.waited_ns),
        e.off_cpu_ns
    )
}

/// Reads [`evidence_word`] back.
pub fn parse_evidence(w: &str) -> Option<Evidence> {
    let f: Vec<&str> = w.split('/').collect();
    let [wall, switches, waited, off] = f[..] else {
        return None;
    };
    Some(Evidence {
        wall_ns: wall.parse().ok()?,
        switches: switches.parse().ok()?,
        waited_ns: match waited {
            "NA" => None,
            v => Some(v.parse().ok()?),
        },
        off_cpu_ns: off.parse().ok()?,
    })
}

impl ChildResult {
    /// The machine-readable line a fresh process prints.
    pub fn line(&self) -> String {
        format!(
            "{CHILD_TAG} cold_ns={} warm_ns={} cold_faults={} warm_faults={} check_sum={} pinned={} cpu={} \
             cold_ev={} warm_ev={} life_ev={}",
            self.cold_ns,
            self.warm_ns,
            opt(self.cold_faults),
            opt(self.warm_faults),
            self.check_sum,
            match self.pinned {
                None => "no",
                Some(true) => "yes",
                Some(false) => "refused",
            },
            opt(self.cpu),
            evidence_word(&self.cold_ev),
            evidence_word(&self.warm_ev),
            evidence_word(&self.life_ev)
        )
    }

    /// Finds and parses the result line in a fresh process's stdout.
    pub fn parse(stdout: &str) -> Result<ChildResult, String> {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(CHILD_TAG))
            .ok_or_else(|| format!("it printed no {CHILD_TAG} line"))?;
        let get = |k: &str| -> Result<&str, String> {
            line.split_whitespace()
                .find_map(|t| t.strip_prefix(k)?.strip_prefix('='))
                .ok_or_else(|| format!("its result line has no {k}: {line:?}"))
        };
        let num = |k: &str| -> Result<u64, String> {
            get(k)?
                .parse()
                .map_err(|_| format!("{k} is not a whole number in {line:?}"))
        };
        let ev = |k: &str| -> Result<Evidence, String> {
            parse_evidence(get(k)?).ok_or_else(|| format!("{k} is not wall/switches/wait/off"))
        };
        let opt_num = |k: &str| -> Result<Option<u64>, String> {
            match get(k)? {
                "NA" => Ok(None),
                v => v
                    .parse()
                    .map(Some)
                    .map_err(|_| format!("{k} is not a whole number in {line:?}")),
            }
        };
        Ok(ChildResult {
            cold_ns: num("cold_ns")?,
            warm_ns: num("warm_ns")?,
            cold_faults: opt_num("cold_faults")?,
            warm_faults: opt_num("warm_faults")?,
            check_sum: get("check_sum")?
                .parse()
                .map_err(|_| format!("check_sum is not a number in {line:?}"))?,
            pinned: match get("pinned")? {
                "no" => None,
                "yes" => Some(true),
                "refused" => Some(false),
                v => return Err(format!("pinned={v} is not yes, no or refused")),
            },
            cpu: opt_num("cpu")?.map(|c| c as usize),
            cold_ev: ev("cold_ev")?,
            warm_ev: ev("warm_ev")?,
            life_ev: ev("life_ev")?,
        })
    }
}

/// What a fresh process measures: pin if told, [`begin`], one timed warm pass, one untimed
/// check pass.
pub fn measure_one(spec: ChildSpec) -> Result<ChildResult, String> {
    let pinned = spec
        .core
        .map(|c| measure::pin::pin_current_thread(c).verified());
    let probe = Probe::new();
    let born = probe.mark();
    let mut p = begin(spec.settle_ms)?;
    let a = p.array();
    let ((warm_ns, warm_faults), warm_ev) = probe.watch(|| kernel::sink_pass_with_faults(a));
    let life_ev = Evidence::between(&born, &probe.mark());
    let cpu = measure::pin::current_cpu();
    let mut check_sum = 0.0;
    kernel::sink_bench_time_checksum(a, &mut check_sum);
    Ok(ChildResult {
        cold_ns: p.cold_ns,
        warm_ns,
        cold_faults: p.cold_faults,
        warm_faults,
        check_sum,
        pinned,
        cpu,
        cold_ev: p.cold_ev,
        warm_ev,
        life_ev,
    })
}

/// The life of a fresh process: [`measure_one`], then one result line. Never returns.
pub fn child_main(spec: &str) -> ! {
    if std::env::var_os(FAIL_ENV).is_some() {
        eprintln!("sink_bench (fresh process): error: failing on purpose ({FAIL_ENV} is set)");
        std::process::exit(3);
    }
    let spec = match ChildSpec::parse(spec) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("sink_bench (fresh process): error: {e}");
            std::process::exit(2);
        }
    };
    match measure_one(spec) {
        Ok(r) => {
            println!("{}", r.line());
            std::process::exit(if r.check_sum == PASS_SUM { 0 } else { 1 })
        }
        Err(e) => {
            eprintln!("sink_bench (fresh process): error: {e}");
            std::process::exit(1);
        }
    }
}

/// The binary's first execution: the start and one warm pass, as a fresh process makes them
/// (on a thread pinned to `spec.core`, so that the measuring execution inherits no pinning),
/// then the measuring execution, started with `args` and [`FIRST_ENV`] set. Exits with the
/// measuring execution's status. Never returns.
pub fn first_execution(spec: ChildSpec, args: &[String]) -> ! {
    let first = std::thread::spawn(move || measure_one(spec))
        .join()
        .unwrap_or_else(|_| Err("its measuring thread panicked".into()));
    let first = match first {
        Ok(r) if r.check_sum == PASS_SUM => r,
        Ok(r) => fail_1(&format!(
            "the first execution's check pass summed to {} instead of {PASS_SUM}",
            r.check_sum
        )),
        Err(e) => fail_1(&format!(
            "the first execution could not make its start: {e}"
        )),
    };
    let status = measure::emulation::command(own_exe())
        .args(args)
        .env(FIRST_ENV, first.line())
        .status()
        .unwrap_or_else(|e| fail_1(&format!("cannot start the measuring execution: {e}")));
    match status.code() {
        Some(c) => std::process::exit(c),
        None => fail_1(&format!("the measuring execution was killed ({status})")),
    }
}

/// In the measuring execution: the discarded first execution's result, from [`FIRST_ENV`];
/// `Ok(None)` when this is the first execution.
pub fn discarded_first() -> Result<Option<ChildResult>, String> {
    match std::env::var(FIRST_ENV) {
        Ok(line) => ChildResult::parse(&line)
            .map(Some)
            .map_err(|e| format!("{FIRST_ENV}: {e}")),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(e) => Err(format!("{FIRST_ENV}: {e}")),
    }
}

fn fail_1(message: &str) -> ! {
    eprintln!("sink_bench: error: {message}");
    std::process::exit(1)
}

/// Starts one fresh process of `exe` and returns its result, or why there is none.
pub fn run_child(exe: &Path, spec: ChildSpec) -> Result<ChildResult, String> {
    let out = measure::emulation::command(exe)
        .env(CHILD_ENV, spec.to_env())
        .env_remove(FIRST_ENV)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not start {}: {e}", exe.display()))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let why = |m: String| {
        let err = stderr.lines().next().unwrap_or("").trim();
        if err.is_empty() {
            m
        } else {
            format!("{m}; its stderr: {err}")
        }
    };
    if !out.status.success() {
        let parsed = ChildResult::parse(&stdout).ok();
        return Err(why(match (out.status.code(), parsed) {
            (Some(1), Some(r)) if r.check_sum != PASS_SUM => format!(
                "its check pass summed to {} instead of {PASS_SUM}",
                r.check_sum
            ),
            (Some(c), _) => format!("it exited with status {c}"),
            (None, _) => "it was killed by a signal".into(),
        }));
    }
    ChildResult::parse(&stdout).map_err(why)
}

/// This program's own file, the one the fresh processes start; the run ends (exit 1) without it.
pub fn own_exe() -> PathBuf {
    std::env::current_exe().unwrap_or_else(|e| {
        eprintln!(
            "sink_bench: error: cannot find this program's own file to start fresh processes: {e}"
        );
        std::process::exit(1)
    })
}

/// `runs` fresh processes, one after the other. A fresh process that fails ends the run
/// (exit 1), named on stdout and stderr. `core`: where they pin themselves.
pub fn run_series(
    exe: &Path,
    settle_ms: u64,
    core: Option<usize>,
    runs: usize,
) -> Vec<ChildResult> {
    let spec = ChildSpec { settle_ms, core };
    (1..=runs)
        .map(|k| run_child(exe, spec).unwrap_or_else(|e| child_failed(k, runs, &e)))
        .collect()
}

/// The fresh processes' cold (`cold` true) or warm passes, each with the evidence its own
/// process saw.
pub fn passes(kids: &[ChildResult], cold: bool) -> measure::rounds::Timed {
    let mut t = measure::rounds::Timed::default();
    for k in kids {
        match cold {
            true => t.push(k.cold_ns as f64, k.cold_ev),
            false => t.push(k.warm_ns as f64, k.warm_ev),
        }
    }
    t
}

/// Other work on the fresh processes' cores over their lives, in cores' worth: the time they
/// waited for their core over their wall time; `None` where the kernel keeps no waits.
pub fn waited_share(kids: &[ChildResult]) -> Option<f64> {
    let waited: Option<u64> = kids.iter().map(|k| k.life_ev.waited_ns).sum();
    let wall: u64 = kids.iter().map(|k| k.life_ev.wall_ns).sum();
    waited.filter(|_| wall > 0).map(|w| w as f64 / wall as f64)
}

/// The page faults of the fresh processes: the median over their cold passes, and the most
/// any of them took in its warm pass (`None` where getrusage could not count them).
pub fn fault_counts(kids: &[ChildResult]) -> (Option<f64>, Option<u64>) {
    let cold: Vec<f64> = kids
        .iter()
        .filter_map(|k| k.cold_faults.map(|f| f as f64))
        .collect();
    let cold_median = measure::stats::Summary::of(&cold).map(|s| s.median);
    (cold_median, kids.iter().filter_map(|k| k.warm_faults).max())
}

fn child_failed(k: usize, runs: usize, why: &str) -> ! {
    let which = format!("fresh process {k} of {runs}");
    println!(
        "{}",
        measure::fmt::wrap(&format!("! {which} failed: {why}"), "  ")
    );
    eprintln!("sink_bench: error: {which} failed: {why}");
    std::process::exit(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_round_trip() {
        for s in [
            ChildSpec {
                settle_ms: 100,
                core: Some(1),
            },
            ChildSpec {
                settle_ms: 0,
                core: None,
            },
        ] {
            assert_eq!(ChildSpec::parse(&s.to_env()), Ok(s));
        }
        assert!(ChildSpec::parse("settle_ms=x core=1").is_err());
        assert!(ChildSpec::parse("core=1").is_err());
        assert!(ChildSpec::parse("bogus").is_err());
    }

    #[test]
    fn result_round_trip_and_clear_errors() {
        let r = ChildResult {
            cold_ns: 700_000,
            warm_ns: 500_000,
            cold_faults: Some(1024),
            warm_faults: None,
            check_sum: PASS_SUM,
            pinned: Some(true),
            cpu: Some(1),
            cold_ev: Evidence {
                wall_ns: 900_000,
                switches: 1,
                waited_ns: Some(400_000),
                off_cpu_ns: 0,
            },
            warm_ev: Evidence {
                wall_ns: 500_000,
                waited_ns: None,
                ..Default::default()
            },
            life_ev: Evidence::default(),
        };
        let text = format!("noise\n{}\n", r.line());
        assert_eq!(ChildResult::parse(&text), Ok(r.clone()));
        let e = ChildResult::parse("hello\n").unwrap_err();
        assert!(e.contains("printed no"), "{e}");
        let e = ChildResult::parse(&format!("{CHILD_TAG} cold_ns=1 warm_ns=x")).unwrap_err();
        assert!(e.contains("warm_ns"), "{e}");
        let bad = r.line().replace("life_ev=0/0/NA/0", "life_ev=1/2");
        let e = ChildResult::parse(&bad).unwrap_err();
        assert!(e.contains("life_ev"), "{e}");
    }
}
