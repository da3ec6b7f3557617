//! The options, as flags or as the seed's environment variables (`REPS`, `RUNS`,
//! `SETTLE_MS`, `QUICK=1`). A flag wins over its environment variable.

use measure::cli::{Args, Opt};
use std::path::PathBuf;

pub const OPTS: &[Opt] = &[
    Opt {
        name: "--reps",
        value: Some("N"),
        help: "timed passes per variant in part 1 (or REPS=N; default 30, quick 10, at least 10)",
    },
    Opt {
        name: "--runs",
        value: Some("N"),
        help: "passes in one process and fresh processes in parts 2-3 (or RUNS=N; default 30, quick 10, at least 10)",
    },
    Opt {
        name: "--settle-ms",
        value: Some("MS"),
        help: "how long every process repeats the loop before measuring (or SETTLE_MS=MS; default 100)",
    },
    Opt {
        name: "--no-pin",
        value: None,
        help: "run unpinned, as the seed had to (default: pin to MM_CORE or the last core)",
    },
    Opt {
        name: "--out",
        value: Some("DIR"),
        help: "also save DIR/sink_bench.txt and DIR/sink_bench.summary.md (QUICK=1 / --quick: ${TMPDIR:-/tmp}/sink_bench-quick)",
    },
    Opt {
        name: "--summarize",
        value: Some("FILE"),
        help: "measure nothing: build sink_bench.summary.md beside a saved output FILE from its RESULT lines",
    },
    Opt {
        name: "--update-readme",
        value: None,
        help: "with --summarize FILE or a full run with --out: paste the summary into the crate's README",
    },
];

/// Passes per variant and runs below this cannot show a spread worth the name.
pub const MIN_COUNT: u64 = 10;

/// What a run will do.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub reps: usize,
    pub runs: usize,
    pub settle_ms: u64,
    pub quick: bool,
    pub pin: bool,
    /// Where to save the raw output and summary (always set for a quick run).
    pub out: Option<PathBuf>,
    pub update_readme: bool,
    pub summarize: Option<PathBuf>,
}

fn count(
    flag: Option<&str>,
    flag_name: &str,
    env: Option<String>,
    env_name: &str,
    default: u64,
    min: u64,
) -> Result<u64, String> {
    let (given, from) = match (flag, env) {
        (Some(v), _) => (v.to_string(), format!("{flag_name} {v}")),
        (None, Some(v)) => (v.clone(), format!("{env_name}={v}")),
        (None, None) => return Ok(default),
    };
    match given.trim().parse::<u64>() {
        Ok(n) if n >= min => Ok(n),
        Ok(_) if min == MIN_COUNT => Err(format!(
            "{from} is below {min}: fewer than {min} passes cannot show a spread (the default is 30)"
        )),
        _ => Err(format!("{from}: wants a whole number of at least {min}")),
    }
}

/// Whether `QUICK` asks for a quick run: `1`/`yes`/`true` yes, unset/empty/`0`/`no`/`false` no.
pub fn quick_env(v: Option<String>) -> Result<bool, String> {
    match v.as_deref().map(str::trim) {
        None | Some("" | "0" | "no" | "false") => Ok(false),
        Some("1" | "yes" | "true") => Ok(true),
        Some(x) => Err(format!("QUICK={x:?}: use QUICK=1, or leave it unset")),
    }
}

/// The settings from parsed flags and an environment lookup.
pub fn settings(a: &Args, env: impl Fn(&str) -> Option<String>) -> Result<Settings, String> {
    let quick = a.quick || quick_env(env("QUICK"))?;
    let default = if quick { 10 } else { 30 };
    let reps = count(
        a.value("--reps"),
        "--reps",
        env("REPS"),
        "REPS",
        default,
        MIN_COUNT,
    )?;
    let runs = count(
        a.value("--runs"),
        "--runs",
        env("RUNS"),
        "RUNS",
        default,
        MIN_COUNT,
    )?;
    let settle_ms = count(
        a.value("--settle-ms"),
        "--settle-ms",
        env("SETTLE_MS"),
        "SETTLE_MS",
        100,
        0,
    )?;
    if settle_ms > 60_000 {
        return Err(format!(
            "SETTLE_MS {settle_ms} is more than a minute per process; use at most 60000"
        ));
    }
    let update_readme = a.flag("--update-readme");
    let summarize = a.value("--summarize").map(PathBuf::from);
    let mut out = a.value("--out").map(PathBuf::from);
    if summarize.is_some() && (out.is_some() || quick) {
        return Err("--summarize measures nothing: it takes no --out or --quick".into());
    }
    if update_readme && quick {
        return Err(
            "--update-readme refuses a quick run: the README carries full runs only".into(),
        );
    }
    if update_readme && out.is_none() && summarize.is_none() {
        return Err("--update-readme needs --out DIR (save this run) or --summarize FILE".into());
    }
    if quick && out.is_none() {
        out = Some(std::env::temp_dir().join("sink_bench-quick"));
    }
    Ok(Settings {
        reps: reps as usize,
        runs: runs as usize,
        settle_ms,
        quick,
        pin: !a.flag("--no-pin"),
        out,
        update_readme,
        summarize,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::cli::parse_from;

    fn with(args: &[&str], env: &[(&str, &str)]) -> Result<Settings, String> {
        let argv: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let a = parse_from("sink_bench", OPTS, &argv)?;
        settings(&a, |k| {
            env.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn defaults_and_quick() {
        let s = with(&[], &[]).unwrap();
        assert_eq!(
            (s.reps, s.runs, s.settle_ms, s.quick, s.pin),
            (30, 30, 100, false, true)
        );
        assert_eq!(s.out, None);
        let q = with(&[], &[("QUICK", "1")]).unwrap();
        assert_eq!((q.reps, q.runs, q.quick), (10, 10, true));
        assert!(q.out.unwrap().ends_with("sink_bench-quick"));
        assert!(with(&["--quick"], &[]).unwrap().quick);
        assert!(!with(&[], &[("QUICK", "0")]).unwrap().quick);
    }

    #[test]
    fn env_and_flags() {
        let s = with(
            &["--runs", "50"],
            &[("REPS", "40"), ("RUNS", "12"), ("SETTLE_MS", "5")],
        )
        .unwrap();
        assert_eq!((s.reps, s.runs, s.settle_ms), (40, 50, 5));
        assert!(!with(&["--no-pin"], &[]).unwrap().pin);
    }

    #[test]
    fn refusals_are_clear() {
        let e = with(&[], &[("RUNS", "9")]).unwrap_err();
        assert!(e.starts_with("RUNS=9 is below 10"), "{e}");
        let e = with(&["--reps", "3"], &[]).unwrap_err();
        assert!(e.starts_with("--reps 3 is below 10"), "{e}");
        assert!(
            with(&[], &[("REPS", "many")])
                .unwrap_err()
                .contains("whole number")
        );
        assert!(with(&[], &[("QUICK", "maybe")]).is_err());
        assert!(with(&["--quick", "--update-readme"], &[]).is_err());
        assert!(with(&["--update-readme"], &[]).is_err());
        assert!(with(&["--update-readme", "--out", "/x"], &[]).is_ok());
        assert!(with(&["--summarize", "f", "--quick"], &[]).is_err());
        assert!(with(&[], &[("SETTLE_MS", "100000")]).is_err());
    }
}
