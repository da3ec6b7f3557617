//! The project as xtask sees it: where the workspace is, its results folders' labels, the
//! commit and the clock. The experiments themselves are described one layer up, in
//! the `experiments` module.

use crate::error::{Result, bad};
use measure::data::{Block, DataFile};
use std::path::PathBuf;

/// The blocks of a saved output with the names their CSV files and `compare.csv` give them:
/// a named block by its name, the bare ones (the appendix's) as `block1`, `block2`, ...
pub fn named_blocks(f: &DataFile) -> Vec<(String, &Block)> {
    let mut bare = 0;
    f.blocks
        .iter()
        .map(|b| match &b.name {
            Some(n) => (n.clone(), b),
            None => {
                bare += 1;
                (format!("block{bare}"), b)
            }
        })
        .collect()
}

/// The results folder the book's figures (`book-figures/`) are drawn from.
pub const BOOK_RESULTS: &str = "results/amd-epyc-zen5-2c";

/// The workspace root (xtask lives one level below it).
pub fn root() -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    here.parent().map(PathBuf::from).unwrap_or(here)
}

/// The results folder's name: `--label` as given, or [`default_label`] of this machine; bad
/// input unless it is a safe label ([`valid_label`]).
pub fn label(given: Option<&str>, facts: &measure::facts::MachineFacts) -> Result<String> {
    let label = given.map_or_else(|| default_label(facts), str::to_string);
    if valid_label(&label) {
        Ok(label)
    } else {
        Err(bad(format!(
            "--label {}: use letters, digits, '-', '_' and '.' (one folder name)",
            measure::cli::echo(&label)
        )))
    }
}

/// Whether `s` is a safe results label: one path component of letters, digits, `-`, `_`,
/// `.`, not starting with a dot. Labels become folder names, so nothing else may pass.
pub fn valid_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 100
        && !s.starts_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The bytes of `path` if it is a regular file (or a link to one). Anything else is an error
/// and is not read: a FIFO named like a saved output would block the reader for ever, a
/// device would never end.
pub fn read_regular(path: &std::path::Path) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    // Opened without blocking (a FIFO's open waits for a writer), then checked, then read.
    let mut f = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !f.metadata()?.is_file() {
        return Err(std::io::Error::other(
            "not a regular file (a FIFO, a device or a folder): skipped",
        ));
    }
    let mut bytes = Vec::new();
    f.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read_regular`] as text (`Err` where it is not UTF-8).
pub fn read_regular_text(path: &std::path::Path) -> std::io::Result<String> {
    String::from_utf8(read_regular(path)?).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// Whether process `pid` is running, and where `name` is given, is that program (its
/// `/proc/<pid>/stat` name: a reused pid of another program is not). A zombie, which has
/// ended but not been waited for, is not running: nothing it owns is in use any more.
pub fn running(pid: u32, name: Option<&str>) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // "pid (name) S ...": the name may hold spaces and parentheses; the state follows the
    // last ')'.
    let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
        return false;
    };
    let state = stat[close + 1..].split_whitespace().next().unwrap_or("");
    let alive = !matches!(state, "Z" | "X" | "x" | "");
    alive && name.is_none_or(|n| stat.get(open + 1..close) == Some(n))
}

/// Today's date and time in UTC, from the system clock (no time-zone database needed).
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The workspace's short commit, with `+dirty` when tracked files that make the program
/// differ from it (what run-all and the figure tool write, `results/` and `book-figures/`, do
/// not count: a rerun into a folder whose last run is not committed yet runs the same code),
/// or `None` outside a git checkout.
pub fn commit() -> Option<String> {
    commit_in(&root())
}

/// [`commit`] of the checkout at `dir`.
fn commit_in(dir: &std::path::Path) -> Option<String> {
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(dir)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let head = git(&["rev-parse", "--short", "HEAD"])?;
    let dirty = git(&[
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ".",
        ":(exclude)results",
        ":(exclude)book-figures",
    ])
    .is_some_and(|s| !s.is_empty());
    Some(if dirty { format!("{head}+dirty") } else { head })
}

/// A label from the CPU model and core count: "amd-epyc-zen4-2c".
pub fn default_label(f: &measure::facts::MachineFacts) -> String {
    let model = f.cpu_model.clone().unwrap_or_else(|| f.arch.to_string());
    let mut slug = String::new();
    for w in model
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let w = w.to_ascii_lowercase();
        if matches!(
            w.as_str(),
            "processor" | "cpu" | "with" | "radeon" | "graphics" | "r" | "tm" | "core"
        ) || w.ends_with("ghz")
        {
            continue;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(&w);
        if slug.len() > 30 {
            break;
        }
    }
    // A model string without a number ("AMD EPYC" on a VM) names no machine: add the
    // microarchitecture CPUID gives ("Zen 4" -> zen4), so two kinds of VM get two folders.
    // A name that is a choice or a family ("Zen 3 or Zen 4", "Zen / Zen 2") names none.
    if !slug.chars().any(|c| c.is_ascii_digit())
        && let Some(fam) = &f.cpu_family
        && let (Some(a), Some(b)) = (fam.find('('), fam.rfind(')'))
        && a < b
        && !fam[a + 1..b].contains('/')
        && !fam[a + 1..b].split_whitespace().any(|w| w == "or")
    {
        let u: String = fam[a + 1..b]
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if !u.is_empty() {
            slug.push('-');
            slug.push_str(&u);
        }
    }
    format!("{slug}-{}c", f.logical_cores.unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_labels() {
        let mut f = measure::facts::MachineFacts::read();
        f.cpu_model = Some("AMD EPYC 9R14 96-Core Processor".into());
        f.logical_cores = Some(2);
        assert_eq!(default_label(&f), "amd-epyc-9r14-96-2c");
        f.cpu_model = Some("AMD EPYC".into());
        f.cpu_family = Some("AuthenticAMD family 0x19 model 0x11 (Zen 4)".into());
        assert_eq!(default_label(&f), "amd-epyc-zen4-2c");
        f.cpu_family = Some("AuthenticAMD family 0x19 model 0x99 (Zen 3 or Zen 4)".into());
        assert_eq!(default_label(&f), "amd-epyc-2c");
        f.cpu_family = Some("AuthenticAMD family 0x17 model 0x31 (Zen / Zen 2)".into());
        assert_eq!(default_label(&f), "amd-epyc-2c");
        f.cpu_family = Some("GenuineIntel family 0x6 model 0xba (Raptor Lake)".into());
        assert_eq!(
            default_label(&f),
            "amd-epyc-raptorlake-2c",
            "'or' inside a word is no choice"
        );
        f.cpu_family = None;
        assert_eq!(default_label(&f), "amd-epyc-2c");
    }

    #[test]
    fn a_zombie_is_not_running() {
        let me = std::process::id();
        assert!(running(me, None));
        let name = std::fs::read_to_string("/proc/self/comm").unwrap();
        assert!(running(me, Some(name.trim())));
        assert!(!running(me, Some("not-this-one")));
        assert!(!running(999_999_999, None), "above pid_max");
        // A child that has exited and not been waited for is a zombie.
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        let t0 = std::time::Instant::now();
        while running(pid, None) && t0.elapsed().as_secs() < 30 {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        assert!(
            stat.contains(") Z "),
            "a zombie still has its /proc entry: {stat}"
        );
        assert!(!running(pid, None));
        child.wait().unwrap();
    }

    #[test]
    fn only_the_program_s_files_make_a_commit_dirty() {
        let dir = std::env::temp_dir().join(format!("mm-commit-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("results/m")).unwrap();
        std::fs::create_dir_all(dir.join("src")).unwrap();
        let git = |args: &[&str]| {
            let o = std::process::Command::new("git")
                .args([
                    "-c",
                    "user.name=t",
                    "-c",
                    "user.email=t@t",
                    "-c",
                    "commit.gpgsign=false",
                ])
                .args(args)
                .current_dir(&dir)
                .output()
                .unwrap();
            assert!(o.status.success(), "git {args:?}: {o:?}");
        };
        std::fs::write(dir.join("results/m/run.txt"), "one\n").unwrap();
        std::fs::write(dir.join("src/main.rs"), "fn main() {}\n").unwrap();
        git(&["init", "-q"]);
        git(&["add", "."]);
        git(&["commit", "-qm", "first"]);
        let clean = commit_in(&dir).unwrap();
        assert!(!clean.ends_with("+dirty"), "{clean}");
        std::fs::write(dir.join("results/m/run.txt"), "two\n").unwrap();
        assert_eq!(
            commit_in(&dir).unwrap(),
            clean,
            "a rerun's output is not the program"
        );
        std::fs::write(dir.join("src/main.rs"), "fn main() { }\n").unwrap();
        assert_eq!(commit_in(&dir).unwrap(), format!("{clean}+dirty"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn labels() {
        assert!(valid_label("amd-epyc-zen4-2c"));
        for bad in [
            "../x",
            ".hidden",
            "",
            "a/b",
            "/abs",
            "a b",
            &"x".repeat(101),
        ] {
            assert!(!valid_label(bad), "{bad:?}");
        }
    }

    #[test]
    fn utc_date_shape() {
        let d = utc_now();
        assert_eq!(d.len(), "2026-11-29 23:59 UTC".len());
        assert!(d.starts_with("20"));
    }
}
