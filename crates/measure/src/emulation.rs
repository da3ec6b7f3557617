//! Whether this process runs under an emulator (qemu-user), where times are not the machine's.
//!
//! `cargo xtask cross-test` runs every experiment for aarch64 under `qemu-aarch64` on an x86-64
//! machine. Every code path, parse and check still means something there; no time does. So an
//! emulated run says so where its report opens ([`OPENING`], from
//! [`Experiment::start`](crate::run::Experiment::start)), records `#META emulated yes`
//! ([`META_EMULATED`](crate::schema::run::META_EMULATED)), and
//! prints no verdict about speed: [`Out::conclude`](crate::out::Out::conclude),
//! [`Out::how_to_read`](crate::out::Out::how_to_read) and [`crate::fmt::how_to_read`] print
//! [`NO_VERDICT`] instead of their sentences (once a section).
//!
//! **The sign.** qemu-user runs the program's instructions, but its system calls go to the
//! host's kernel, and `/proc/cpuinfo` is a file of that kernel:
//!
//! - qemu 7.2 (Debian 12's `qemu-user`, measured here) passes the file through, so an aarch64
//!   program reads the x86-64 host's `vendor_id` and `flags` lines: a CPU of another
//!   architecture than the one the program was built for. The same holds the other way round
//!   (an x86-64 program under qemu on an Arm host reads `CPU implementer` lines).
//! - qemu 8.1 and later write an Arm cpuinfo of their own from the emulated CPU's MIDR. Its
//!   default CPU model ("max") has implementer 0x00, which the Arm architecture reserves for
//!   software: no silicon carries it.
//!
//! `AT_HWCAP` gives nothing away on its own: qemu's "max" CPU reports a plausible, if
//! generous, feature set (0xecfffffb here), and a newer qemu's cpuinfo lists the same
//! features. qemu started with `-cpu cortex-a72` on 8.1 or later shows a real implementer and
//! is not detected: set the override.
//!
//! **The override.** `MM_EMULATED=1` (or `0`) decides instead of the sign, for tests and for
//! emulators the sign misses; any other value is refused (exit status 2, from `start!`).
//!
//! The answer is read once per process and kept.

use std::sync::OnceLock;

/// The environment variable that decides instead of the sign: `1` emulated, `0` not.
pub const OVERRIDE: &str = "MM_EMULATED";
/// The words an emulated report opens with.
pub const OPENING: &str = "emulated: times are not the machine's";
/// What an emulated report prints where a verdict about speed would be.
pub const NO_VERDICT: &str = "(emulated: no verdict about speed)";

/// The answer and what it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    pub emulated: bool,
    /// The sign, in words ("/proc/cpuinfo describes an x86-64 CPU, not aarch64").
    pub sign: String,
}

/// The answer for this process, read once: `Err` with one line when [`OVERRIDE`] holds
/// something other than `1` or `0`.
pub fn detect() -> Result<&'static Detection, &'static str> {
    static D: OnceLock<Result<Detection, String>> = OnceLock::new();
    D.get_or_init(|| {
        let over = std::env::var(OVERRIDE).ok();
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok();
        judge(over.as_deref(), cpuinfo.as_deref(), std::env::consts::ARCH)
    })
    .as_ref()
    .map_err(String::as_str)
}

/// Whether the process runs emulated; verdicts about speed are not printed when it does. A
/// refused override reads as not emulated here ([`detect`] reports it).
pub fn emulated() -> bool {
    detect().is_ok_and(|d| d.emulated)
}

/// The decision, from the override's value, the text of `/proc/cpuinfo` and the architecture
/// the program was built for (`std::env::consts::ARCH`).
pub fn judge(over: Option<&str>, cpuinfo: Option<&str>, arch: &str) -> Result<Detection, String> {
    let said = |emulated: bool, sign: String| Ok(Detection { emulated, sign });
    match over.map(str::trim) {
        Some("1") => return said(true, format!("{OVERRIDE}=1")),
        Some("0") => return said(false, format!("{OVERRIDE}=0")),
        Some(v) => {
            return Err(format!(
                "{OVERRIDE} must be 1 (emulated) or 0 (not), not {}",
                crate::cli::echo(v)
            ));
        }
        None => {}
    }
    let Some(text) = cpuinfo else {
        return said(
            false,
            "/proc/cpuinfo unreadable; no sign of an emulator".into(),
        );
    };
    let described = described_arch(text);
    if let Some(d) = described
        && d != arch
    {
        return said(
            true,
            format!("/proc/cpuinfo describes an {d} CPU, not {arch} (qemu-user)"),
        );
    }
    if described == Some("aarch64") && arm_implementers(text).any(|i| i == 0) {
        return said(
            true,
            "/proc/cpuinfo names CPU implementer 0x00, reserved for software (qemu)".into(),
        );
    }
    said(false, "no sign of an emulator in /proc/cpuinfo".into())
}

/// The architecture a cpuinfo text describes: `x86_64` for `vendor_id`/`flags` lines,
/// `aarch64` for `CPU implementer`/`Features` lines, `None` for anything else.
fn described_arch(cpuinfo: &str) -> Option<&'static str> {
    let has = |key: &str| cpuinfo.lines().any(|l| key_of(l) == Some(key));
    if has("vendor_id") || has("flags") {
        Some("x86_64")
    } else if has("CPU implementer") || has("Features") {
        Some("aarch64")
    } else {
        None
    }
}

/// The key of a `key<TAB>: value` line.
fn key_of(line: &str) -> Option<&str> {
    line.split_once(':').map(|(k, _)| k.trim())
}

/// Every `CPU implementer : 0x41` value.
fn arm_implementers(cpuinfo: &str) -> impl Iterator<Item = u64> + '_ {
    cpuinfo.lines().filter_map(|l| {
        let (k, v) = l.split_once(':')?;
        if k.trim() != "CPU implementer" {
            return None;
        }
        let v = v.trim();
        u64::from_str_radix(v.strip_prefix("0x").unwrap_or(v), 16).ok()
    })
}

/// In an emulated run: prints [`NO_VERDICT`] the first time in a section (`said`, the
/// section's flag, kept by [`Out`](crate::out::Out)) and returns `true`, and the caller prints
/// no verdict. Otherwise `false`.
pub(crate) fn withhold_verdict(said: &mut bool) -> bool {
    if !emulated() {
        return false;
    }
    if let Some(l) = once(said) {
        println!("{l}");
    }
    true
}

/// The line [`withhold_verdict`] prints, the first time `said` is found unset.
fn once(said: &mut bool) -> Option<String> {
    (!std::mem::replace(said, true)).then(|| format!("  {NO_VERDICT}"))
}

/// The runner of this build's target, as cargo's `CARGO_TARGET_<TRIPLE>_RUNNER` names it
/// (`qemu-aarch64 -L /usr/aarch64-linux-gnu`), split into words; empty when none is set.
/// `cargo xtask cross-test` sets it, and the test processes and the programs they start
/// inherit it.
pub fn runner() -> Vec<String> {
    std::env::var(runner_variable(TARGET))
        .map(|r| r.split_whitespace().map(String::from).collect())
        .unwrap_or_default()
}

/// The target triple `measure` was built for (`aarch64-unknown-linux-gnu`).
pub const TARGET: &str = env!("MEASURE_TARGET");

/// Cargo's variable for `triple`'s runner: `CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER`.
pub fn runner_variable(triple: &str) -> String {
    format!(
        "CARGO_TARGET_{}_RUNNER",
        triple.to_ascii_uppercase().replace(['-', '.'], "_")
    )
}

/// A command that starts the program `bin` of this build, through [`runner`] when the process
/// runs emulated (an emulated program cannot start another emulated one by itself: without a
/// binfmt handler the kernel refuses the foreign binary), directly otherwise.
pub fn command(bin: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
    let r = if emulated() { runner() } else { Vec::new() };
    prefixed(&r, bin)
}

/// `bin` started through the words of `runner` (none: `bin` itself). The runner's program is
/// looked up in this process's `PATH` now, so that a command whose environment is cleared
/// (env_scan's children) still finds it.
pub fn prefixed(runner: &[String], bin: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
    match runner.split_first() {
        None => std::process::Command::new(bin),
        Some((first, rest)) => {
            let mut c = std::process::Command::new(on_path(first));
            c.args(rest).arg(bin);
            c
        }
    }
}

/// `program`'s full path from `PATH`, or `program` as given (a path, or not found).
fn on_path(program: &str) -> std::path::PathBuf {
    if !program.contains('/')
        && let Some(path) = std::env::var_os("PATH")
        && let Some(found) = std::env::split_paths(&path)
            .map(|d| d.join(program))
            .find(|p| p.is_file())
    {
        return found;
    }
    program.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first lines of this machine's cpuinfo, as qemu-aarch64 7.2 passes it through.
    const X86: &str = "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\n\
                       model name\t: AMD EPYC\nflags\t\t: fpu vme de pse tsc msr\n";
    /// A real Arm machine (a Neoverse N1).
    const ARM: &str = "processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes\n\
                       CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\n\
                       CPU part\t: 0xd0c\nCPU revision\t: 1\n";
    /// qemu 8.1 and later: its own cpuinfo for the "max" CPU.
    const QEMU8: &str = "processor\t: 0\nmodel name\t: ARMv8 Processor rev 0 (v8l)\n\
                         BogoMIPS\t: 100.00\nFeatures\t: fp asimd evtstrm aes pmull sha1\n\
                         CPU implementer\t: 0x00\nCPU architecture: 8\nCPU variant\t: 0x0\n\
                         CPU part\t: 0x051\nCPU revision\t: 0\n";

    fn yes(over: Option<&str>, info: Option<&str>, arch: &str) -> bool {
        judge(over, info, arch).unwrap().emulated
    }

    #[test]
    fn cpuinfo_of_another_architecture_gives_it_away() {
        assert!(yes(None, Some(X86), "aarch64"));
        assert!(!yes(None, Some(X86), "x86_64"));
        assert!(yes(None, Some(ARM), "x86_64"));
        assert!(!yes(None, Some(ARM), "aarch64"));
        let d = judge(None, Some(X86), "aarch64").unwrap();
        assert_eq!(
            d.sign,
            "/proc/cpuinfo describes an x86_64 CPU, not aarch64 (qemu-user)"
        );
    }

    #[test]
    fn qemus_own_cpu_gives_it_away() {
        assert!(yes(None, Some(QEMU8), "aarch64"));
        assert!(
            judge(None, Some(QEMU8), "aarch64")
                .unwrap()
                .sign
                .contains("implementer 0x00")
        );
    }

    #[test]
    fn no_sign_is_not_emulated() {
        assert!(!yes(None, None, "aarch64"));
        assert!(!yes(None, Some(""), "aarch64"));
        assert!(!yes(
            None,
            Some("processor : 0\nisa : rv64imafdc\n"),
            "riscv64"
        ));
    }

    /// Under `cargo xtask cross-test`, which sets `MM_EXPECT_EMULATED=1` and clears the
    /// override, qemu-aarch64 is seen by its real sign (on a plain run there is nothing to see).
    #[test]
    fn the_emulator_is_seen_where_it_runs() {
        if std::env::var_os("MM_EXPECT_EMULATED").is_none() {
            return;
        }
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").ok();
        let d = judge(None, cpuinfo.as_deref(), std::env::consts::ARCH).unwrap();
        assert!(d.emulated, "not seen: {}", d.sign);
        assert!(emulated());
    }

    #[test]
    fn the_override_decides_and_bad_values_are_refused() {
        assert!(yes(Some("1"), Some(ARM), "aarch64"));
        assert!(!yes(Some("0"), Some(X86), "aarch64"));
        assert_eq!(
            judge(Some("yes"), None, "x86_64").unwrap_err(),
            "MM_EMULATED must be 1 (emulated) or 0 (not), not \"yes\""
        );
    }

    #[test]
    fn a_withheld_verdict_is_said_once_a_section() {
        let mut said = false;
        assert_eq!(
            once(&mut said).as_deref(),
            Some("  (emulated: no verdict about speed)")
        );
        assert_eq!(once(&mut said), None);
        said = false;
        assert!(once(&mut said).is_some());
    }

    #[test]
    fn the_runner_is_cargos_variable_split_into_words() {
        assert_eq!(
            runner_variable("aarch64-unknown-linux-gnu"),
            "CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER"
        );
        let r: Vec<String> = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"]
            .map(String::from)
            .to_vec();
        let r0 = ["sh".to_string(), "-e".into()];
        let c = prefixed(&r0, "/bin/prog");
        assert!(c.get_program().to_string_lossy().ends_with("/sh"), "{c:?}");
        let c = prefixed(&r, "/bin/prog");
        assert!(c.get_program().to_string_lossy().ends_with("qemu-aarch64"));
        let args: Vec<_> = c.get_args().collect();
        assert_eq!(args, ["-L", "/usr/aarch64-linux-gnu", "/bin/prog"]);
        assert_eq!(prefixed(&[], "/bin/prog").get_program(), "/bin/prog");
        assert!(TARGET.starts_with(std::env::consts::ARCH), "{TARGET}");
    }
}
