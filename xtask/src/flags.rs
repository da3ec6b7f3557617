//! The command line of `cargo xtask`, parsed in one place into typed commands (in the manner
//! of rust-analyzer's `xtask/src/flags.rs`), with `measure::cli` underneath: the same strict
//! parser the experiments use.

use crate::error::{Result, bad};
use measure::cli::{self, Opt};
use std::path::PathBuf;

/// One subcommand and its options.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    RunAll(RunAll),
    Figures(Figures),
    Compare(Compare),
    AppendixC(AppendixC),
    Verify(Verify),
    Handouts(Handouts),
    Lab(Lab),
    Noise(Noise),
    /// A disturber of `noise` (hidden; `noise` starts and stops it): spin on this core.
    NoiseBusy(usize),
    /// A disturber of `noise` (hidden): stream through this many MiB on this core.
    NoiseStream(usize, usize),
    /// `cross-test` (no options).
    CrossTest,
    /// `--help` of the tool or of one subcommand: the text to print (exit status 0).
    Help(String),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct RunAll {
    pub quick: bool,
    pub only: Option<Vec<String>>,
    pub label: Option<String>,
    pub out: Option<PathBuf>,
    /// `--timeout SECONDS`: the watchdog's limit per experiment (default: [`TIMEOUT_S`]).
    pub timeout_s: Option<u64>,
}

/// The watchdog's default limit per experiment, in seconds: (full run, quick run). The
/// longest experiment, env_scan, takes 40 s on the reference VM (a few in a quick run), so
/// these leave a machine many times slower room to finish; only a hung experiment meets them.
pub const TIMEOUT_S: (u64, u64) = (1200, 300);

/// The values `run-all --timeout` accepts, in seconds: a second to a day.
pub const TIMEOUT_RANGE: (u64, u64) = (1, 86_400);

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Figures {
    pub from: Option<PathBuf>,
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Compare {
    /// Two or more results folders.
    pub dirs: Vec<PathBuf>,
    pub out: PathBuf,
    pub baseline: Option<String>,
    pub pointer_chase: bool,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct AppendixC {
    pub seed: Option<PathBuf>,
    pub label: Option<String>,
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verify {
    pub n: u64,
    pub bin: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Noise {
    pub quick: bool,
    /// Rewrite `noise.md` and `noise.csv` from the runs saved beside them, running nothing.
    pub saved: bool,
    pub only: Option<Vec<String>>,
    pub out: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Handouts {
    pub check: bool,
    pub from: Option<PathBuf>,
}

/// `cargo xtask lab ...`: list the exercises, check one, or gather a class's results.
#[derive(Debug, Clone, PartialEq)]
pub enum Lab {
    List,
    Check(LabCheck),
    Gather(Vec<PathBuf>),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct LabCheck {
    /// The exercise: its folder under `labs/`.
    pub name: String,
    /// A file to check instead of the exercise's own `src/solution.rs`.
    pub solution: Option<PathBuf>,
    /// Whose result it is (default: the host's name).
    pub student: Option<String>,
    /// Where `<student>/<exercise>.txt` goes (default: `labs-results/`).
    pub out: Option<PathBuf>,
}

/// The values `verify --n` accepts: below 1,000 values the predictor's warm-up hides the
/// contrast; the top is branch's own bound for its simulated kernel (2^24 values).
pub const VERIFY_N: (u64, u64, u64) = (1_000, 100_000, 16_777_216);

struct Sub {
    name: &'static str,
    args: &'static str,
    about: &'static str,
    opts: &'static [Opt],
}

const fn opt(name: &'static str, value: Option<&'static str>, help: &'static str) -> Opt {
    Opt { name, value, help }
}

/// `--label`, the same for run-all and appendix-c (both write into `results/<label>/`).
const LABEL: Opt = opt(
    "--label",
    Some("NAME"),
    "the results folder's name (default: CPU and cores)",
);

const SUBS: &[Sub] = &[
    Sub {
        name: "run-all",
        args: "",
        about: "run every experiment, one at a time, and save results/<label>/ with figures",
        opts: &[
            opt(
                "--quick",
                None,
                "a smoke run (into $TMPDIR unless --out is given)",
            ),
            opt(
                "--only",
                Some("A,B"),
                "run only these experiments; keep the others' files",
            ),
            LABEL,
            opt(
                "--out",
                Some("DIR"),
                "where results/<label>/ goes (default: results/)",
            ),
            opt(
                "--timeout",
                Some("SECONDS"),
                "end an experiment that runs longer, keep its previous output (default: 1200; \
                 300 with --quick)",
            ),
        ],
    },
    Sub {
        name: "figures",
        args: "",
        about: "redraw figures from saved results, measuring nothing",
        opts: &[
            opt(
                "--from",
                Some("DIR"),
                "a results folder (default: the book's reference run)",
            ),
            opt(
                "--out",
                Some("DIR"),
                "where the SVG files go (needed with --from)",
            ),
        ],
    },
    Sub {
        name: "compare",
        args: " DIR DIR...",
        about: "compare two or more results folders: compare.md, compare.csv, figures, index.html",
        opts: &[
            opt(
                "--out",
                Some("DIR"),
                "where to write (default: compare/ in $TMPDIR)",
            ),
            opt(
                "--baseline",
                Some("LABEL"),
                "the machine ratios are against (default: the first)",
            ),
            opt(
                "--pointer-chase",
                None,
                "also draw each run's pointer chase (thin) on the latency figure",
            ),
        ],
    },
    Sub {
        name: "appendix-c",
        args: "",
        about: "compile and run the appendix's own C programs, save their #DATA",
        opts: &[
            opt(
                "--seed",
                Some("FILE"),
                "the appendix text (default: ../shared/seeds/002_*)",
            ),
            LABEL,
            opt(
                "--out",
                Some("DIR"),
                "where <label>/appendix-c/ goes (default: results/)",
            ),
        ],
    },
    Sub {
        name: "verify",
        args: "",
        about: "check the branch experiment under callgrind's branch simulator",
        opts: &[
            opt(
                "--n",
                Some("COUNT"),
                "values per simulated call (1000..16777216, default 100000)",
            ),
            opt(
                "--bin",
                Some("PATH"),
                "the branch binary to simulate (default: build it)",
            ),
        ],
    },
    Sub {
        name: "noise",
        args: "",
        about: "run experiments quiet, beside a busy loop and beside a memory streamer",
        opts: &[
            opt(
                "--quick",
                None,
                "quick runs of the experiments (into $TMPDIR unless --out is given)",
            ),
            opt("--only", Some("A,B"), "only these experiments"),
            opt(
                "--out",
                Some("DIR"),
                "where noise.md and noise.csv go (default: results/<label>/)",
            ),
            opt(
                "--saved",
                None,
                "run nothing: rewrite noise.md and noise.csv from the runs saved in DIR/noise/",
            ),
        ],
    },
    Sub {
        name: "handouts",
        args: "",
        about: "regenerate the lab handouts' \"What to expect\" from the reference run",
        opts: &[
            opt(
                "--check",
                None,
                "change nothing; fail if a handout differs from its data",
            ),
            opt(
                "--from",
                Some("DIR"),
                "the results folder (default: the book's reference run)",
            ),
        ],
    },
    Sub {
        name: "cross-test",
        args: "",
        about: "build for aarch64, run the tests under qemu-aarch64 (skipped if not installed)",
        opts: &[],
    },
    Sub {
        name: "lab",
        args: " list | check NAME | gather DIR...",
        about: "the lab exercises: list them, check one (build, verify, time, judge), gather results",
        opts: &[
            opt(
                "--solution",
                Some("FILE"),
                "check: time FILE instead of labs/NAME/src/solution.rs",
            ),
            opt(
                "--student",
                Some("NAME"),
                "check: whose result it is (default: the host's name)",
            ),
            opt(
                "--out",
                Some("DIR"),
                "check: where NAME/<exercise>.txt goes (default: labs-results/)",
            ),
        ],
    },
];

/// The tool's usage text.
pub fn usage() -> String {
    let mut s =
        String::from("usage: cargo xtask COMMAND [OPTIONS]   (COMMAND --help for its options)\n\n");
    for sub in SUBS {
        s.push_str(&format!("  {:<11} {}\n", sub.name, sub.about));
    }
    s
}

fn sub_usage(sub: &Sub) -> String {
    format!(
        "usage: cargo xtask {}{} [OPTIONS]\n{}\n\nOptions:\n{}",
        sub.name,
        sub.args,
        sub.about,
        cli::usage_lines(sub.opts)
    )
}

/// "run-all, figures, ...": the subcommands, for the one-line errors.
fn command_names() -> String {
    SUBS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
}

/// Parses the arguments after `cargo xtask`.
pub fn parse(argv: &[String]) -> Result<Command> {
    let Some(name) = argv.first() else {
        return Err(bad(format!(
            "no command given (commands: {}; cargo xtask --help)",
            command_names()
        )));
    };
    if matches!(name.as_str(), "-h" | "--help" | "help") {
        return Ok(Command::Help(usage()));
    }
    if let Some(c) = disturber(name, &argv[1..]) {
        return c;
    }
    let Some(sub) = SUBS.iter().find(|s| s.name == name) else {
        return Err(bad(format!(
            "unknown command {} (commands: {})",
            cli::echo(name),
            command_names()
        )));
    };
    let rest = &argv[1..];
    if rest.iter().any(|a| a == "--help" || a == "-h") {
        return Ok(Command::Help(sub_usage(sub)));
    }
    let positional = matches!(sub.name, "compare" | "lab");
    let (a, words) = cli::parse_tool("xtask", sub.opts, rest, positional).map_err(bad)?;
    refuse_empty_names(sub, &a, &words)?;
    command(sub.name, &a, &words)
}

/// An empty path would name the current folder: `--out ''` is refused, not obeyed, and so is
/// an empty folder word.
fn refuse_empty_names(sub: &Sub, a: &cli::Args, words: &[String]) -> Result<()> {
    let is_path = |o: &&Opt| matches!(o.value, Some("DIR" | "FILE" | "PATH"));
    if let Some(o) = sub
        .opts
        .iter()
        .filter(is_path)
        .find(|o| a.value(o.name) == Some(""))
    {
        return Err(bad(format!(
            "{} is empty: give a folder or file name",
            o.name
        )));
    }
    if words.iter().any(String::is_empty) {
        return Err(bad(
            "an empty folder name was given: give a results folder's path",
        ));
    }
    Ok(())
}

/// Option `n`'s value as a path.
fn path(a: &cli::Args, n: &str) -> Option<PathBuf> {
    a.value(n).map(PathBuf::from)
}

/// Option `n`'s value as text.
fn text(a: &cli::Args, n: &str) -> Option<String> {
    a.value(n).map(String::from)
}

/// The command of subcommand `name`, from its parsed options and words.
fn command(name: &str, a: &cli::Args, words: &[String]) -> Result<Command> {
    Ok(match name {
        "run-all" => Command::RunAll(run_all(a)?),
        "noise" => Command::Noise(Noise {
            quick: a.flag("--quick"),
            saved: a.flag("--saved"),
            only: only(a.value("--only"))?,
            out: path(a, "--out"),
        }),
        "compare" => Command::Compare(compare(words, a)?),
        "figures" => Command::Figures(Figures {
            from: path(a, "--from"),
            out: path(a, "--out"),
        }),
        "appendix-c" => Command::AppendixC(AppendixC {
            seed: path(a, "--seed"),
            label: text(a, "--label"),
            out: path(a, "--out"),
        }),
        "verify" => Command::Verify(Verify {
            n: a.try_count("--n", VERIFY_N.1, VERIFY_N.0, VERIFY_N.2)
                .map_err(bad)?,
            bin: path(a, "--bin"),
        }),
        "handouts" => Command::Handouts(Handouts {
            check: a.flag("--check"),
            from: path(a, "--from"),
        }),
        "cross-test" => Command::CrossTest,
        "lab" => Command::Lab(lab(words, a)?),
        other => unreachable_sub(other)?,
    })
}

/// The `run-all` subcommand's options.
fn run_all(a: &cli::Args) -> Result<RunAll> {
    Ok(RunAll {
        quick: a.flag("--quick"),
        only: only(a.value("--only"))?,
        label: text(a, "--label"),
        out: path(a, "--out"),
        timeout_s: match a.value("--timeout") {
            None => None,
            Some(_) => Some(
                a.try_count("--timeout", 0, TIMEOUT_RANGE.0, TIMEOUT_RANGE.1)
                    .map_err(bad)?,
            ),
        },
    })
}

/// The `compare` subcommand's folders and options.
fn compare(words: &[String], a: &cli::Args) -> Result<Compare> {
    if words.len() < 2 {
        return Err(bad(format!(
            "compare needs at least two results folders, got {}: cargo xtask compare \
             DIR DIR... [--out DIR] [--baseline LABEL]",
            words.len()
        )));
    }
    Ok(Compare {
        dirs: words.iter().map(PathBuf::from).collect(),
        out: path(a, "--out").unwrap_or_else(|| std::env::temp_dir().join("compare")),
        baseline: text(a, "--baseline"),
        pointer_chase: a.flag("--pointer-chase"),
    })
}

/// The `lab` subcommand's words and options.
fn lab(words: &[String], a: &cli::Args) -> Result<Lab> {
    const USE: &str = "cargo xtask lab list | check NAME [--solution FILE] | gather DIR...";
    let check_only = ["--solution", "--student", "--out"];
    let action = words.first().map(String::as_str);
    if action != Some("check")
        && let Some(o) = check_only.iter().find(|o| a.value(o).is_some())
    {
        return Err(bad(format!("{o} belongs to `lab check` ({USE})")));
    }
    match (action, &words[words.len().min(1)..]) {
        (Some("list"), []) => Ok(Lab::List),
        (Some("check"), [name]) => Ok(Lab::Check(LabCheck {
            name: name.clone(),
            solution: a.value("--solution").map(PathBuf::from),
            student: a.value("--student").map(String::from),
            out: a.value("--out").map(PathBuf::from),
        })),
        (Some("gather"), dirs) if !dirs.is_empty() => {
            Ok(Lab::Gather(dirs.iter().map(PathBuf::from).collect()))
        }
        (None, _) => Err(bad(format!("lab needs an action: {USE}"))),
        _ => Err(bad(format!(
            "lab {}: expected {USE}",
            cli::echo(&words.join(" "))
        ))),
    }
}

/// `--only A,B` as a list; bad input when it names nothing.
fn only(v: Option<&str>) -> Result<Option<Vec<String>>> {
    let Some(v) = v else { return Ok(None) };
    let list: Vec<String> = v
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    if list.is_empty() {
        return Err(bad("--only names no experiment"));
    }
    Ok(Some(list))
}

/// `noise-busy CORE` and `noise-stream CORE MIB`: the disturbers `noise` starts as its own
/// child processes (not in the usage: nobody types them).
fn disturber(name: &str, rest: &[String]) -> Option<Result<Command>> {
    let num = |i: usize| -> Result<usize> {
        rest.get(i)
            .and_then(|s| s.parse().ok())
            .ok_or_else(|| bad(format!("{name}: needs whole numbers (CORE [MIB])")))
    };
    match name {
        "noise-busy" => Some(num(0).map(Command::NoiseBusy)),
        "noise-stream" => Some(num(0).and_then(|c| Ok(Command::NoiseStream(c, num(1)?)))),
        _ => None,
    }
}

// Every name in SUBS has an arm above; a new one without an arm is a programming error that
// the unit test `every_subcommand_parses` catches.
fn unreachable_sub(name: &str) -> Result<Command> {
    Err(bad(format!("command {name} has no parser")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Result<Command> {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn every_subcommand_parses_and_has_help() {
        for sub in SUBS {
            let c = p(&[sub.name]);
            assert!(
                c.is_ok() || matches!(sub.name, "compare" | "lab"),
                "{}: {c:?}",
                sub.name
            );
            match p(&[sub.name, "--help"]) {
                Ok(Command::Help(t)) => assert!(t.contains(sub.name)),
                other => panic!("{}: {other:?}", sub.name),
            }
        }
    }

    #[test]
    fn the_timeout_help_states_the_defaults() {
        let help = sub_usage(&SUBS[0]);
        let words = help.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            words.contains(&format!(
                "default: {}; {} with --quick",
                TIMEOUT_S.0, TIMEOUT_S.1
            )),
            "{help}"
        );
        let readme = std::fs::read_to_string(crate::project::root().join("README.md")).unwrap();
        let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
        let said = format!(
            "still running after {} minutes ({} with `--quick`;",
            TIMEOUT_S.0 / 60,
            TIMEOUT_S.1 / 60
        );
        assert!(readme.contains(&said), "README.md should say {said:?}");
    }

    #[test]
    fn typed_options() {
        assert_eq!(
            p(&[
                "run-all",
                "--quick",
                "--only",
                "stride,branch",
                "--out=/tmp/x"
            ])
            .unwrap(),
            Command::RunAll(RunAll {
                quick: true,
                only: Some(vec!["stride".into(), "branch".into()]),
                label: None,
                out: Some("/tmp/x".into()),
                timeout_s: None,
            })
        );
        assert_eq!(
            p(&[
                "compare",
                "x",
                "--out=/tmp/o",
                "y",
                "--baseline",
                "y",
                "--pointer-chase"
            ])
            .unwrap(),
            Command::Compare(Compare {
                dirs: vec!["x".into(), "y".into()],
                out: "/tmp/o".into(),
                baseline: Some("y".into()),
                pointer_chase: true,
            })
        );
        assert_eq!(
            p(&["lab", "check", "tlb", "--solution", "s.rs", "--student=ann"]).unwrap(),
            Command::Lab(Lab::Check(LabCheck {
                name: "tlb".into(),
                solution: Some("s.rs".into()),
                student: Some("ann".into()),
                out: None,
            }))
        );
        assert_eq!(
            p(&["lab", "gather", "a", "b"]).unwrap(),
            Command::Lab(Lab::Gather(vec!["a".into(), "b".into()]))
        );
        assert_eq!(p(&["lab", "list"]).unwrap(), Command::Lab(Lab::List));
        assert_eq!(
            p(&["noise", "--quick", "--only", "clock_probe"]).unwrap(),
            Command::Noise(Noise {
                quick: true,
                saved: false,
                only: Some(vec!["clock_probe".into()]),
                out: None,
            })
        );
        assert!(matches!(
            p(&["noise", "--saved"]).unwrap(),
            Command::Noise(Noise { saved: true, .. })
        ));
        // The disturbers noise starts: not in the usage, but parsed.
        assert_eq!(p(&["noise-busy", "1"]).unwrap(), Command::NoiseBusy(1));
        assert_eq!(
            p(&["noise-stream", "0", "64"]).unwrap(),
            Command::NoiseStream(0, 64)
        );
        assert!(!usage().contains("noise-busy"));
        assert_eq!(
            p(&["verify"]).unwrap(),
            Command::Verify(Verify {
                n: 100_000,
                bin: None
            })
        );
    }

    #[test]
    fn bad_input_is_an_error_value() {
        for (args, needle) in [
            (&["frobnicate"][..], "unknown command"),
            (&[], "no command"),
            (&["run-all", "--fast"], "unknown argument"),
            (&["run-all", "--label"], "needs a value"),
            (&["run-all", "--quick=yes"], "takes no value"),
            (&["run-all", "--only", ","], "names no experiment"),
            (&["noise", "--only", ","], "names no experiment"),
            (&["noise-busy"], "needs whole numbers"),
            (&["noise-stream", "1", "x"], "needs whole numbers"),
            (&["run-all", "--quick", "--quick"], "twice"),
            (&["verify", "--n", "1"], "between 1000"),
            (&["verify", "--n", "x"], "whole number"),
            (&["figures", "stray"], "unknown argument"),
            (&["compare", "x"], "at least two"),
            (&["compare"], "got 0"),
            (&["compare", "x", "y", "--bogus"], "unknown argument"),
            (&["compare", "x", "y", "--out"], "needs a value"),
            (
                &["compare", "x", "y", "--pointer-chase=1"],
                "takes no value",
            ),
            (&["run-all", "--timeout", "0"], "between 1 and 86400"),
            (&["run-all", "--timeout=soon"], "whole number"),
            (&["run-all", "--out", ""], "--out is empty"),
            (&["figures", "--from", "x", "--out="], "--out is empty"),
            (&["handouts", "--from", ""], "--from is empty"),
            (&["appendix-c", "--seed", ""], "--seed is empty"),
            (&["verify", "--bin", ""], "--bin is empty"),
            (&["compare", "x", ""], "empty folder name"),
            (&["cross-test", "--quick"], "unknown argument"),
            (&["lab"], "needs an action"),
            (&["lab", "check"], "expected"),
            (&["lab", "check", "a", "b"], "expected"),
            (&["lab", "list", "x"], "expected"),
            (&["lab", "gather"], "expected"),
            (&["lab", "frob"], "expected"),
            (&["lab", "list", "--student", "x"], "belongs to `lab check`"),
            (&["lab", "check", "x", "--bogus"], "unknown argument"),
        ] {
            match p(args) {
                Err(e) => {
                    assert_eq!(e.code(), 2, "{args:?}");
                    assert!(e.to_string().contains(needle), "{args:?}: {e}");
                }
                Ok(c) => panic!("{args:?} parsed as {c:?}"),
            }
        }
    }
}
