//! The strict little command-line parser every experiment uses.
//!
//! Every experiment accepts `--quick` (a smoke run of a few seconds), `--data`, `--no-data` and
//! `--help`; each adds its own options, each given at most once. Anything unknown or malformed
//! ends the program with one clear line on stderr and exit status 2, never a panic.

use crate::out::Show;
use std::collections::BTreeMap;

/// One option an experiment accepts.
#[derive(Debug, Clone, Copy)]
pub struct Opt {
    /// `--name`.
    pub name: &'static str,
    /// `Some("SIZE")` if it takes a value (`--max 64M` or `--max=64M`).
    pub value: Option<&'static str>,
    pub help: &'static str,
}

/// Parsed arguments.
#[derive(Debug, Clone, Default)]
pub struct Args {
    pub quick: bool,
    /// `--data` / `--no-data`: how the data part is shown (see [`crate::out`]).
    pub data: Show,
    flags: Vec<&'static str>,
    values: BTreeMap<&'static str, String>,
    program: String,
}

const QUICK: Opt = Opt {
    name: "--quick",
    value: None,
    help: "a smoke run of a few seconds (coarser, fewer rounds)",
};
const DATA: Opt = Opt {
    name: "--data",
    value: None,
    help: "print the #DATA/#META part after the report, even on a terminal",
};
const NO_DATA: Opt = Opt {
    name: "--no-data",
    value: None,
    help: "show the data part as one line, even when piped",
};
/// The options every experiment accepts besides its own.
const BUILTINS: [Opt; 3] = [QUICK, DATA, NO_DATA];

/// Longest piece of a user's input echoed back in an error message.
const ECHO_MAX: usize = 80;

/// `s` quoted for an error message, cut to about 80 characters.
pub fn echo(s: &str) -> String {
    if s.chars().count() <= ECHO_MAX {
        format!("{s:?}")
    } else {
        let head: String = s.chars().take(ECHO_MAX).collect();
        format!("{head:?}... ({} characters)", s.chars().count())
    }
}

/// Parses `argv` (without the program name) against `opts`; `Err` carries the message.
/// Every experiment also accepts `--quick`, `--data` and `--no-data`; no positional words.
pub fn parse_from(program: &str, opts: &[Opt], argv: &[String]) -> Result<Args, String> {
    let all: Vec<Opt> = BUILTINS.into_iter().chain(opts.iter().copied()).collect();
    let (mut a, _) = parse_words(program, &all, argv, false)?;
    a.quick = a.flag(QUICK.name);
    a.data = match (a.flag(DATA.name), a.flag(NO_DATA.name)) {
        (true, true) => return Err("give --data or --no-data, not both".into()),
        (true, false) => Show::All,
        (false, true) => Show::Collapsed,
        (false, false) => Show::Auto,
    };
    Ok(a)
}

/// Parses `argv` against `opts` only (no built-in `--quick`/`--data`), returning the options
/// and, where `positional` allows them, the words that are not options (in order). For tools
/// with subcommands, such as xtask.
pub fn parse_tool(
    program: &str,
    opts: &[Opt],
    argv: &[String],
    positional: bool,
) -> Result<(Args, Vec<String>), String> {
    parse_words(program, opts, argv, positional)
}

fn parse_words(
    program: &str,
    opts: &[Opt],
    argv: &[String],
    positional: bool,
) -> Result<(Args, Vec<String>), String> {
    let mut a = Args {
        program: program.to_string(),
        ..Default::default()
    };
    let mut words = Vec::new();
    let mut it = argv.iter();
    while let Some(arg) = it.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        if positional && !name.starts_with('-') {
            words.push(arg.clone());
            continue;
        }
        let Some(opt) = opts.iter().find(|o| o.name == name) else {
            return Err(format!("unknown argument {} (try --help)", echo(arg)));
        };
        if a.flags.contains(&opt.name) || a.values.contains_key(opt.name) {
            return Err(format!("{} given twice", opt.name));
        }
        match (opt.value, inline) {
            (None, None) => a.flags.push(opt.name),
            (None, Some(_)) => return Err(format!("{} takes no value", opt.name)),
            (Some(_), Some(v)) => {
                a.values.insert(opt.name, v);
            }
            (Some(meta), None) => {
                let v = it
                    .next()
                    .ok_or_else(|| format!("{} needs a value ({meta})", opt.name))?;
                a.values.insert(opt.name, v.clone());
            }
        }
    }
    Ok((a, words))
}

/// The options part of a usage text: one line per option, `--help` last.
pub fn usage_lines(opts: &[Opt]) -> String {
    let mut s = String::new();
    for o in opts {
        let n = match o.value {
            Some(v) => format!("{} {v}", o.name),
            None => o.name.to_string(),
        };
        // The help column wrapped to the report width, continued under itself.
        let first = format!("  {n:<22} ");
        let rest = " ".repeat(25);
        s.push_str(&crate::fmt::wrap_to(
            o.help,
            &first,
            &rest,
            crate::fmt::WIDTH,
        ));
        s.push('\n');
    }
    s.push_str(&format!("  {:<22} this text\n", "--help"));
    s
}

/// The process's arguments after the program name, read the way a Unix tool reads them;
/// every program of the project (each experiment, xtask) gets its arguments here first.
///
/// - An argument that is not UTF-8 ends the program with one line and exit status 2 (the
///   names and paths it takes are UTF-8); `std::env::args` would panic.
/// - A closed pipe on stdout (`clock_probe | head -1`) ends the program quietly, by
///   SIGPIPE's default action, as it ends `cat` or `grep`: Rust's runtime ignores SIGPIPE,
///   which turns the next `println!` into a panic.
pub fn argv(program: &str) -> Vec<String> {
    // SAFETY: restoring a signal's default disposition at the start of the program, before
    // any thread is started; no handler is installed.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    utf8_args(std::env::args_os().skip(1)).unwrap_or_else(|e| fail(program, &e))
}

/// The arguments as UTF-8, or the message naming the first one that is not.
fn utf8_args(args: impl Iterator<Item = std::ffi::OsString>) -> Result<Vec<String>, String> {
    args.enumerate()
        .map(|(i, a)| {
            a.into_string().map_err(|bad| {
                format!(
                    "argument {} is not valid UTF-8: {} (give names and paths in UTF-8)",
                    i + 1,
                    echo(&bad.to_string_lossy())
                )
            })
        })
        .collect()
}

/// Parses the process's arguments; prints usage for `--help` (exit 0) and one error line for
/// anything wrong (exit 2).
pub fn parse(program: &str, about: &str, opts: &[Opt]) -> Args {
    let argv = argv(program);
    if argv.iter().any(|a| a == "--help" || a == "-h") {
        let all: Vec<Opt> = BUILTINS.into_iter().chain(opts.iter().copied()).collect();
        let head = crate::fmt::wrap(&format!("{program}: {about}"), "");
        print!("{head}\n\nOptions:\n{}", usage_lines(&all));
        std::process::exit(0);
    }
    parse_from(program, opts, &argv).unwrap_or_else(|e| fail(program, &e))
}

/// Prints `program: error: message` on stderr and exits with status 2.
pub fn fail(program: &str, message: &str) -> ! {
    eprintln!("{program}: error: {message}");
    std::process::exit(2)
}

impl Args {
    pub fn flag(&self, name: &str) -> bool {
        self.flags.contains(&name)
    }
    pub fn value(&self, name: &str) -> Option<&str> {
        self.values.get(name).map(String::as_str)
    }
    /// A byte size option (`64M`, `512K`, `1G`, `4096`), or `default`; exits 2 if malformed.
    pub fn size(&self, name: &str, default: u64) -> u64 {
        match self.value(name) {
            None => default,
            Some(v) => parse_size(v).unwrap_or_else(|| {
                fail(
                    &self.program,
                    &format!(
                        "{name} wants a size such as 64M, 512K or 4096, not {}",
                        echo(v)
                    ),
                )
            }),
        }
    }
    /// A whole-number option in `min..=max`, or `default`; exits 2 if malformed or out of
    /// range. Every count has an upper bound that a reasonable run never meets, so a typo
    /// cannot start a run that lasts for months; the message names the bound.
    pub fn count(&self, name: &str, default: u64, min: u64, max: u64) -> u64 {
        self.try_count(name, default, min, max)
            .unwrap_or_else(|e| fail(&self.program, &e))
    }
    /// [`Args::count`] returning the error instead of exiting (for tools that report errors
    /// as values).
    pub fn try_count(&self, name: &str, default: u64, min: u64, max: u64) -> Result<u64, String> {
        match self.value(name) {
            None => Ok(default),
            Some(v) => parse_count(name, v, min, max),
        }
    }
    /// A byte size option in `min..=max` bytes, or `default`; exits 2 otherwise.
    pub fn size_in(&self, name: &str, default: u64, min: u64, max: u64) -> u64 {
        let b = self.size(name, default);
        if b < min || b > max {
            fail(
                &self.program,
                &format!(
                    "{name} must lie between {} and {}, not {}",
                    crate::fmt::bytes(min),
                    crate::fmt::bytes(max),
                    echo(self.value(name).unwrap_or(""))
                ),
            );
        }
        b
    }
}

/// Options without a default: `None` when not given, checked like the others when given.
impl Args {
    /// [`Args::count`] of an option that has no default.
    pub fn count_given(&self, name: &str, min: u64, max: u64) -> Option<u64> {
        self.value(name).map(|_| self.count(name, 0, min, max))
    }
    /// [`Args::size_in`] of an option that has no default.
    pub fn size_given(&self, name: &str, min: u64, max: u64) -> Option<u64> {
        self.value(name).map(|_| self.size_in(name, 0, min, max))
    }
}

/// Parses a whole number in `min..=max` for option or variable `name`; the error says why.
pub fn parse_count(name: &str, v: &str, min: u64, max: u64) -> Result<u64, String> {
    match v.trim().parse::<u64>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        Ok(_) => Err(format!(
            "{name} must lie between {min} and {max}, not {}",
            echo(v)
        )),
        Err(_) => Err(format!(
            "{name} wants a whole number between {min} and {max}, not {}",
            echo(v)
        )),
    }
}

/// Parses `64M`, `512K`, `1G`, `4096` (binary units) into bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (num, mult) = match s.char_indices().last()? {
        (i, 'K' | 'k') => (&s[..i], 1u64 << 10),
        (i, 'M' | 'm') => (&s[..i], 1 << 20),
        (i, 'G' | 'g') => (&s[..i], 1 << 30),
        _ => (s, 1),
    };
    let n: u64 = num.parse().ok()?;
    n.checked_mul(mult).filter(|&b| b > 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_help_wraps_under_its_column() {
        let long = "a help text that goes on and on about what the option does, its default, its \
                    limits and the reason for them, far past one line";
        let text = usage_lines(&[Opt {
            name: "--buffer",
            value: Some("SIZE"),
            help: long,
        }]);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() >= 3, "{text}");
        assert!(
            lines.iter().all(|l| l.chars().count() <= crate::fmt::WIDTH),
            "{text}"
        );
        assert!(lines[0].starts_with("  --buffer SIZE"), "{text}");
        assert!(lines[1].starts_with(&" ".repeat(25)) && !lines[1].starts_with(&" ".repeat(26)));
        let words: Vec<&str> = text.split_whitespace().collect();
        assert!(words.join(" ").contains(long), "no word lost: {text}");
    }

    const OPTS: &[Opt] = &[
        Opt {
            name: "--max",
            value: Some("SIZE"),
            help: "",
        },
        Opt {
            name: "--no-pin",
            value: None,
            help: "",
        },
    ];

    fn p(args: &[&str]) -> Result<Args, String> {
        parse_from(
            "t",
            OPTS,
            &args.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        )
    }

    #[test]
    fn accepts_known_forms() {
        let a = p(&["--quick", "--max", "64M", "--no-pin"]).unwrap();
        assert!(a.quick && a.flag("--no-pin"));
        assert_eq!(a.size("--max", 0), 64 << 20);
        assert_eq!(p(&["--max=1G"]).unwrap().size("--max", 0), 1 << 30);
        assert_eq!(p(&[]).unwrap().size("--max", 5), 5);
    }

    #[test]
    fn an_option_without_a_default_is_none_until_given() {
        assert_eq!(p(&[]).unwrap().size_given("--max", 1, 1 << 40), None);
        let a = p(&["--max", "2M"]).unwrap();
        assert_eq!(a.size_given("--max", 1, 1 << 40), Some(2 << 20));
        assert_eq!(p(&[]).unwrap().count_given("--max", 1, 9), None);
        assert_eq!(p(&["--max=7"]).unwrap().count_given("--max", 1, 9), Some(7));
    }

    #[test]
    fn rejects_bad_input_with_a_reason() {
        assert!(p(&["--bogus"]).unwrap_err().contains("unknown argument"));
        assert!(p(&["--max"]).unwrap_err().contains("needs a value"));
        assert!(p(&["--no-pin=1"]).unwrap_err().contains("takes no value"));
        assert!(p(&["stray"]).unwrap_err().contains("unknown argument"));
        assert!(p(&["--no-pin", "--no-pin"]).unwrap_err().contains("twice"));
        assert!(
            p(&["--max", "1M", "--max=2M"])
                .unwrap_err()
                .contains("twice")
        );
    }

    #[test]
    fn data_flags() {
        assert_eq!(p(&[]).unwrap().data, Show::Auto);
        assert_eq!(p(&["--data"]).unwrap().data, Show::All);
        assert_eq!(p(&["--no-data"]).unwrap().data, Show::Collapsed);
        for bad in [
            &["--data", "--no-data"][..],
            &["--data", "--data"],
            &["--no-data", "--no-data"],
        ] {
            let e = p(bad).unwrap_err();
            assert!(e.contains("both") || e.contains("twice"), "{bad:?}: {e}");
        }
        assert!(p(&["--quick", "--quick"]).unwrap_err().contains("twice"));
        assert!(p(&["--data=1"]).unwrap_err().contains("takes no value"));
    }

    #[test]
    fn counts_are_bounded() {
        assert_eq!(parse_count("--n", "5", 1, 10), Ok(5));
        assert!(
            parse_count("--n", "11", 1, 10)
                .unwrap_err()
                .contains("between 1 and 10")
        );
        assert!(
            parse_count("--n", "0", 1, 10)
                .unwrap_err()
                .contains("between 1 and 10")
        );
        assert!(
            parse_count("--n", "x", 1, 10)
                .unwrap_err()
                .contains("whole number")
        );
    }

    #[test]
    fn long_input_is_cut_when_echoed() {
        let junk = "x".repeat(10_000_000);
        let e = p(&[&junk]).unwrap_err();
        assert!(e.len() < 200, "{}", e.len());
        assert!(e.contains("10000000 characters"));
    }

    #[test]
    fn arguments_that_are_not_utf8_are_named_not_panicked_on() {
        use std::ffi::OsString;
        use std::os::unix::ffi::OsStringExt;
        let good = [OsString::from("--max"), OsString::from("64M")];
        assert_eq!(utf8_args(good.into_iter()).unwrap(), ["--max", "64M"]);
        let bad = [
            OsString::from("--quick"),
            OsString::from_vec(b"--max=\xff".to_vec()),
        ];
        let e = utf8_args(bad.into_iter()).unwrap_err();
        assert!(
            e.starts_with("argument 2 is not valid UTF-8: \"--max=\u{fffd}\""),
            "{e}"
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("512K"), Some(512 << 10));
        assert_eq!(parse_size("0"), None);
        assert_eq!(parse_size("12Q"), None);
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("99999999999G"), None);
    }
}
