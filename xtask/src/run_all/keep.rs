//! What a run keeps: the previous files of experiments it did not rerun (or reran and saw
//! fail), the appendix C outputs and the previous figures; and the clean-up of temporary
//! folders that an interrupted run left behind.

use super::{Plan, RunRecord};
use crate::project::EXPERIMENTS;
use std::fs;
use std::path::Path;

/// The experiment a file in a results folder belongs to (`stride.layout.csv` -> `stride`).
pub fn owner(file_name: &str) -> Option<&'static str> {
    let stem = file_name.split('.').next()?;
    EXPERIMENTS.iter().copied().find(|e| *e == stem)
}

/// Whether a name is one of a failed run's own files (`stride.failed.txt`).
fn is_failed_file(file_name: &str) -> bool {
    file_name.contains(".failed.")
}

/// Copies into the new folder the previous files of every experiment that has no good output
/// in this run: not rerun (`--only`), or rerun and failed (its previous output is kept, and
/// marked stale in the summary). Also copies `appendix-c/` and the previous figures, so that
/// a drawer that fails keeps its previous figure.
pub fn carry_over(plan: &Plan, record: &RunRecord) {
    let good_now = record.good_now();
    for e in fs::read_dir(&plan.dest).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some(exp) = owner(&name) else { continue };
        let to = plan.tmp.join(&name);
        if good_now.contains(&exp) || is_failed_file(&name) || to.exists() || !e.path().is_file() {
            continue;
        }
        let _ = fs::copy(e.path(), to);
    }
    for sub in ["appendix-c", "figures"] {
        let from = plan.dest.join(sub);
        if from.is_dir() {
            let _ = fs::create_dir_all(plan.tmp.join(sub));
            for e in fs::read_dir(&from).into_iter().flatten().flatten() {
                if e.path().is_file() {
                    let _ = fs::copy(e.path(), plan.tmp.join(sub).join(e.file_name()));
                }
            }
        }
    }
}

/// Moves every entry of the previous folder `old` that the new folder `new` lacks and that
/// run-all does not own into `new`: a teacher's `notes.md` or `extra/` survives every run.
/// run-all owns the files of experiments that ran well now (their old blocks' CSV files
/// would be stale), and its own `summary.md`, `index.html` and `figures/`.
pub fn carry_foreign(old: &Path, new: &Path, good_now: &[&str]) {
    for e in fs::read_dir(old).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let ours = owner(&name).is_some_and(|x| good_now.contains(&x))
            || matches!(name.as_str(), "summary.md" | "index.html" | "figures");
        let to = new.join(&name);
        if !ours && !to.exists() {
            let _ = fs::rename(e.path(), to);
        }
    }
}

/// Removes the temporary folders (`.tmp-<label>-<pid>`) of runs into `out` that no longer
/// run, and puts back a previous results folder (`.old-<label>-<pid>`) that an interrupted
/// swap left aside. A folder whose process is still alive is left alone.
pub fn clean_stale(out: &Path, label: &str) {
    for e in fs::read_dir(out).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().to_string();
        let Some((kind, pid)) = stale_name(&name, label) else {
            continue;
        };
        if pid == std::process::id() || process_alive(pid) {
            continue;
        }
        let dest = out.join(label);
        if kind == "old" && !dest.exists() {
            if fs::rename(e.path(), &dest).is_ok() {
                eprintln!(
                    "run-all: put back {} (an interrupted run had moved it aside)",
                    dest.display()
                );
            }
        } else if fs::remove_dir_all(e.path()).is_ok() {
            eprintln!("run-all: removed {name}, left by an interrupted run (pid {pid})");
        }
    }
}

/// `(".tmp" or ".old", pid)` for a temporary folder name of this label.
fn stale_name(name: &str, label: &str) -> Option<(&'static str, u32)> {
    for kind in ["tmp", "old"] {
        if let Some(rest) = name.strip_prefix(&format!(".{kind}-{label}-")) {
            return rest.parse().ok().map(|pid| (kind, pid));
        }
    }
    None
}

/// Whether process `pid` exists and is an xtask (a reused pid of another program is not).
fn process_alive(pid: u32) -> bool {
    fs::read_to_string(format!("/proc/{pid}/comm")).is_ok_and(|c| c.trim() == "xtask")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("keep-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn owners() {
        assert_eq!(owner("stride.layout.csv"), Some("stride"));
        assert_eq!(owner("stride.txt"), Some("stride"));
        assert_eq!(owner("notes.md"), None);
        assert_eq!(owner("strider.txt"), None);
    }

    #[test]
    fn stale_folders_of_dead_runs_go_and_a_moved_aside_folder_comes_back() {
        let d = scratch("stale");
        // pid 999999999 cannot exist (above pid_max).
        fs::create_dir_all(d.join(".tmp-lab-999999999/x")).unwrap();
        fs::create_dir_all(d.join(".old-lab-999999999")).unwrap();
        fs::write(d.join(".old-lab-999999999/summary.md"), "old").unwrap();
        fs::create_dir_all(d.join(".tmp-other-999999999")).unwrap();
        let mine = format!(".tmp-lab-{}", std::process::id());
        fs::create_dir_all(d.join(&mine)).unwrap();
        clean_stale(&d, "lab");
        assert!(!d.join(".tmp-lab-999999999").exists());
        assert_eq!(fs::read_to_string(d.join("lab/summary.md")).unwrap(), "old");
        assert!(d.join(".tmp-other-999999999").exists(), "another label's");
        assert!(d.join(mine).exists(), "this run's own");
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn foreign_files_survive() {
        let d = scratch("foreign");
        let (old, new) = (d.join("old"), d.join("new"));
        fs::create_dir_all(old.join("extra")).unwrap();
        fs::create_dir_all(&new).unwrap();
        for f in [
            "notes.md",
            "stride.txt",
            "stride.old_block.csv",
            "branch.txt",
            "summary.md",
        ] {
            fs::write(old.join(f), f).unwrap();
        }
        carry_foreign(&old, &new, &["stride"]);
        assert!(new.join("notes.md").is_file());
        assert!(new.join("extra").is_dir());
        assert!(new.join("branch.txt").is_file(), "not rerun: kept");
        assert!(
            !new.join("stride.old_block.csv").exists(),
            "rerun: its old CSV is stale"
        );
        assert!(!new.join("summary.md").exists());
        let _ = fs::remove_dir_all(&d);
    }
}
