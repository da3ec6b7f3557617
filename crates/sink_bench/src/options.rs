//! The options, as flags or as the seed's environment variables (`REPS`, `RUNS`,
//! `SETTLE_MS`, `QUICK=1`). A flag wins over its environment variable. Every count has an
//! upper bound that a reasonable run never meets, so a typo cannot start a run of months.

use measure::cli::{Args, Opt, parse_count};

pub const OPTS: &[Opt] = &[
    Opt {
        name: "--reps",
        value: Some("N"),
        help: "timed passes per variant in part 1 (or REPS; 30, quick 10; 10..100000)",
    },
    Opt {
        name: "--runs",
        value: Some("N"),
        help: "passes here and fresh processes, parts 2-3 (or RUNS; 30, quick 10; 10..1000)",
    },
    Opt {
        name: "--settle-ms",
        value: Some("MS"),
        help: "settle time of every process before it measures (or SETTLE_MS; 100)",
    },
    Opt {
        name: "--pin",
        value: None,
        help: "pin every process to MM_CORE or the last core (departs from the seed: unpinned)",
    },
    Opt {
        name: "--show-asm",
        value: None,
        help: "print the three timing functions' machine code (the check is always shown)",
    },
];

/// Passes per variant and runs below this cannot show a spread worth the name.
pub const MIN_COUNT: u64 = 10;
/// The most passes per variant in part 1: three passes of about half a millisecond each per
/// round, so about three minutes.
pub const MAX_REPS: u64 = 100_000;
/// The most runs in parts 2 and 3: each is a fresh process that settles for `SETTLE_MS`.
pub const MAX_RUNS: u64 = 1_000;
/// The longest settle: a minute per process.
pub const MAX_SETTLE_MS: u64 = 60_000;

/// What a run will do.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub reps: usize,
    pub runs: usize,
    pub settle_ms: u64,
    pub quick: bool,
    pub pin: bool,
    pub show_asm: bool,
}

/// One count, from its flag or else its environment variable (the pair of their names), in
/// `min..=max`.
fn count(
    a: &Args,
    env: &impl Fn(&str) -> Option<String>,
    (flag, var): (&str, &str),
    default: u64,
    min: u64,
    max: u64,
) -> Result<u64, String> {
    let (name, given) = match (a.value(flag), env(var)) {
        (Some(v), _) => (flag.to_string(), v.to_string()),
        (None, Some(v)) => (var.to_string(), v),
        (None, None) => return Ok(default),
    };
    parse_count(&name, &given, min, max).map_err(|e| {
        let below = given.trim().parse::<u64>().is_ok_and(|n| n < min);
        if below && min == MIN_COUNT {
            format!("{e}: fewer than {min} passes cannot show a spread")
        } else {
            e
        }
    })
}

/// Whether `QUICK` asks for a quick run: `1`/`yes`/`true` yes, unset/empty/`0`/`no`/`false` no.
pub fn quick_env(v: Option<String>) -> Result<bool, String> {
    match v.as_deref().map(str::trim) {
        None | Some("" | "0" | "no" | "false") => Ok(false),
        Some("1" | "yes" | "true") => Ok(true),
        Some(x) => Err(format!(
            "QUICK={}: use QUICK=1, or leave it unset",
            measure::cli::echo(x)
        )),
    }
}

/// The settings from parsed flags and an environment lookup.
pub fn settings(a: &Args, env: impl Fn(&str) -> Option<String>) -> Result<Settings, String> {
    let quick = a.quick || quick_env(env("QUICK"))?;
    let default = if quick { 10 } else { 30 };
    let reps = count(a, &env, ("--reps", "REPS"), default, MIN_COUNT, MAX_REPS)?;
    let runs = count(a, &env, ("--runs", "RUNS"), default, MIN_COUNT, MAX_RUNS)?;
    let settle_ms = count(a, &env, ("--settle-ms", "SETTLE_MS"), 100, 0, MAX_SETTLE_MS)?;
    Ok(Settings {
        reps: reps as usize,
        runs: runs as usize,
        settle_ms,
        quick,
        pin: a.flag("--pin"),
        show_asm: a.flag("--show-asm"),
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
            (s.reps, s.runs, s.settle_ms, s.quick, s.pin, s.show_asm),
            (30, 30, 100, false, false, false)
        );
        let q = with(&[], &[("QUICK", "1")]).unwrap();
        assert_eq!((q.reps, q.runs, q.quick), (10, 10, true));
        assert!(with(&["--quick"], &[]).unwrap().quick);
        assert!(!with(&[], &[("QUICK", "0")]).unwrap().quick);
        assert!(with(&["--show-asm"], &[]).unwrap().show_asm);
    }

    #[test]
    fn env_and_flags() {
        let s = with(
            &["--runs", "50"],
            &[("REPS", "40"), ("RUNS", "12"), ("SETTLE_MS", "5")],
        )
        .unwrap();
        assert_eq!((s.reps, s.runs, s.settle_ms), (40, 50, 5));
        assert!(with(&["--pin"], &[]).unwrap().pin);
        assert!(with(&["--no-pin"], &[]).is_err(), "unpinned is the default");
    }

    #[test]
    fn refusals_are_clear() {
        let e = with(&[], &[("RUNS", "9")]).unwrap_err();
        assert!(e.starts_with("RUNS must lie between 10 and 1000"), "{e}");
        assert!(e.ends_with("cannot show a spread"), "{e}");
        let e = with(&["--reps", "3"], &[]).unwrap_err();
        assert!(e.starts_with("--reps must lie between 10"), "{e}");
        let e = with(&[], &[("REPS", "many")]).unwrap_err();
        assert!(e.contains("whole number"), "{e}");
        assert!(with(&[], &[("QUICK", "maybe")]).is_err());
        assert!(with(&[], &[("SETTLE_MS", "100000")]).is_err());
        assert!(
            with(&["--out", "/x"], &[]).is_err(),
            "saving moved to xtask"
        );
    }

    #[test]
    fn counts_have_upper_bounds() {
        // RUNS=99999999 would start a hundred million processes: refused, the bound named.
        let e = with(&[], &[("RUNS", "99999999")]).unwrap_err();
        assert!(e.contains("between 10 and 1000"), "{e}");
        assert!(!e.contains("spread"), "{e}");
        let e = with(&["--reps", "100001"], &[]).unwrap_err();
        assert!(e.contains("between 10 and 100000"), "{e}");
        assert_eq!(with(&[], &[("RUNS", "1000")]).unwrap().runs, 1000);
        assert_eq!(with(&[], &[("REPS", "100000")]).unwrap().reps, 100_000);
        let e = with(&[], &[("REPS", "1e9")]).unwrap_err();
        assert!(e.contains("whole number"), "{e}");
    }
}
