//! What a run keeps: the previous files of experiments it did not rerun (or reran and saw
//! fail), the appendix C outputs and the previous figures; and the clean-up of temporary
//! folders that an interrupted run left behind.

use super::{Plan, RunRecord};
use crate::experiments::NAMES;
use crate::project::running;
use std::fs;
use std::path::Path;

/// The experiment a file in a results folder belongs to (`stride.layout.csv` -> `stride`).
pub fn owner(file_name: &str) -> Option<&'static str> {
    let stem = file_name.split('.').next()?;
    NAMES.iter().copied().find(|e| *e == stem)
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

/// Cleans up after runs into `out` that were interrupted and no longer run (a zombie counts
/// as ended). A previous results folder that an interrupted swap left aside
/// (`.old-<label>-<pid>`) is put back where `<label>/` is missing; otherwise its files that
/// `<label>/` lacks (a teacher's `notes.md`, not yet carried over) are moved into it. A
/// temporary or moved-aside folder is then removed only if it holds nothing but run-all's
/// own files; one that holds anything else is left where it is, and one line says so.
pub fn clean_stale(out: &Path, label: &str) {
    let dest = out.join(label);
    let mut stale: Vec<(String, &str, u32)> = fs::read_dir(out)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().to_string();
            stale_name(&name, label).map(|(kind, pid)| (name, kind, pid))
        })
        .filter(|(_, _, pid)| *pid != std::process::id() && !running(*pid, Some("xtask")))
        .collect();
    stale.sort();
    for (name, kind, pid) in stale {
        let dir = out.join(&name);
        if kind == "old" && fs::symlink_metadata(&dest).is_err() {
            if fs::rename(&dir, &dest).is_ok() {
                eprintln!(
                    "run-all: put back {} (an interrupted run had moved it aside)",
                    dest.display()
                );
            }
            continue;
        }
        if kind == "old" {
            carry_back(&dir, &dest);
        }
        let foreign: Vec<String> = entries(&dir)
            .into_iter()
            .filter(|n| !made_by_run_all(n))
            .collect();
        if foreign.is_empty() {
            if fs::remove_dir_all(&dir).is_ok() {
                eprintln!("run-all: removed {name}, left by an interrupted run (pid {pid})");
            }
        } else {
            eprintln!(
                "run-all: left {} as it is: an interrupted run (pid {pid}) left it holding \
                 files run-all did not make ({}); move them by hand, then remove it",
                dir.display(),
                list(&foreign)
            );
        }
    }
}

/// Moves into `dest` every entry of a moved-aside previous folder `old` that `dest` lacks,
/// except those a run rewrites (`summary.md`, `index.html`, `figures/`) and the files of
/// experiments whose output `dest` holds (superseded by it).
fn carry_back(old: &Path, dest: &Path) {
    for name in entries(old) {
        let superseded = owner(&name).is_some_and(|e| dest.join(format!("{e}.txt")).is_file());
        let rewritten = matches!(name.as_str(), "summary.md" | "index.html" | "figures");
        let to = dest.join(&name);
        if !superseded && !rewritten && fs::symlink_metadata(&to).is_err() {
            let _ = fs::rename(old.join(&name), to);
        }
    }
}

/// Whether run-all (or `xtask appendix-c`) makes an entry of that name in a results folder.
fn made_by_run_all(name: &str) -> bool {
    owner(name).is_some() || matches!(name, "summary.md" | "index.html" | "figures" | "appendix-c")
}

/// The names in a folder, sorted (none where it cannot be read).
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    v.sort();
    v
}

/// "a, b, c and 4 more".
fn list(names: &[String]) -> String {
    let shown = names.iter().take(3).cloned().collect::<Vec<_>>().join(", ");
    match names.len() {
        0..=3 => shown,
        n => format!("{shown} and {} more", n - 3),
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
        fs::create_dir_all(d.join(".tmp-lab-999999999/figures")).unwrap();
        // A file run-all did not make keeps its folder.
        fs::create_dir_all(d.join(".tmp-lab-999999998/x")).unwrap();
        fs::create_dir_all(d.join(".old-lab-999999999")).unwrap();
        fs::write(d.join(".old-lab-999999999/summary.md"), "old").unwrap();
        fs::create_dir_all(d.join(".tmp-other-999999999")).unwrap();
        let mine = format!(".tmp-lab-{}", std::process::id());
        fs::create_dir_all(d.join(&mine)).unwrap();
        clean_stale(&d, "lab");
        assert!(!d.join(".tmp-lab-999999999").exists());
        assert!(d.join(".tmp-lab-999999998/x").is_dir());
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
