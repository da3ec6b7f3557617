//! Reading results folders: which paths are results folders, their labels, facts and data.
//!
//! A results folder holds at least one `<experiment>.txt` (the saved output of an experiment,
//! or of the appendix's C program of that name). Each file is parsed with the strict parser;
//! a malformed file is reported by file and line and left out, and the folder's other
//! experiments still count. A folder whose files hold only bare (appendix-style) blocks is an
//! appendix folder (`results/appendix-book/`, `results/appendix-phone/`, a run's
//! `appendix-c/`); its blocks are translated into this project's block and column names by
//! [`super::appendix`], so that the two can be compared on what they share.

use super::appendix;
use measure::data::{self, DataFile};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// Where a folder's numbers come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A run of this project's experiments (named blocks).
    Run,
    /// The appendix's own numbers: its C programs' output, or the book's printed numbers.
    Appendix,
}

/// One results folder, loaded.
pub struct Machine {
    /// Unique among the folders compared (see [`label_all`]).
    pub label: String,
    pub dir: PathBuf,
    pub kind: Kind,
    /// What the folder holds, in a few words.
    pub source: String,
    /// experiment -> its data, in this project's block names (appendix folders translated).
    pub runs: BTreeMap<String, DataFile>,
    pub facts: Facts,
    /// Malformed or unreadable files: `path: line N: reason`.
    pub problems: Vec<String>,
    /// Experiments with no file in the folder.
    pub no_file: Vec<&'static str>,
    /// Experiments whose file parsed but holds no numbers.
    pub empty: Vec<String>,
}

/// The machine and run facts shown in compare.md, already formatted ("unknown" where absent).
#[derive(Debug, Clone, Default)]
pub struct Facts {
    pub cpu: String,
    pub arch: String,
    pub cores: String,
    pub page: String,
    pub l1d: String,
    pub l2: String,
    pub l3: String,
    /// The line size in bytes, when known (for the false-sharing and stride effects).
    pub line_bytes: Option<f64>,
    /// Reported cache sizes in KiB: `("L1d", 48.0)`, ... (for the latency figure).
    pub cache_kib: Vec<(&'static str, f64)>,
    pub run: String,
    pub date: String,
    pub commit: String,
    pub load: String,
}

/// The experiments with a `<experiment>.txt` in `dir`, or why `dir` is not a results folder.
pub fn present_experiments(dir: &Path) -> Result<Vec<&'static str>, String> {
    let shown = dir.display();
    let meta = fs::metadata(dir)
        .map_err(|e| format!("{shown} is not a results folder: cannot read it ({e})"))?;
    if !meta.is_dir() {
        return Err(format!(
            "{shown} is not a results folder: it is not a folder"
        ));
    }
    fs::read_dir(dir)
        .map_err(|e| format!("{shown} is not a results folder: cannot list it ({e})"))?;
    let present: Vec<&'static str> = crate::experiments::NAMES
        .iter()
        .copied()
        // Present even when not a regular file: loading reports a FIFO (say) as unreadable.
        .filter(|e| dir.join(format!("{e}.txt")).exists())
        .collect();
    if present.is_empty() {
        return Err(format!(
            "{shown} is not a results folder: it holds no <experiment>.txt (such as cache_ladder.txt)"
        ));
    }
    Ok(present)
}

/// Loads one results folder; `Err` only when `dir` is not a results folder at all.
pub fn load(dir: &Path) -> Result<Machine, String> {
    let present = present_experiments(dir)?;
    let mut parsed: Vec<(&'static str, DataFile)> = Vec::new();
    let mut problems = Vec::new();
    for exp in &present {
        let p = dir.join(format!("{exp}.txt"));
        let text = match crate::project::read_regular(&p) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                problems.push(format!("{}: cannot read ({e})", p.display()));
                continue;
            }
        };
        match data::parse(&text) {
            Ok(f) => parsed.push((exp, f)),
            Err(e) => problems.push(format!("{}: {e}", p.display())),
        }
    }
    let any_named = parsed
        .iter()
        .any(|(_, f)| f.blocks.iter().any(|b| b.name.is_some()));
    let any_bare = parsed.iter().any(|(_, f)| f.bare_blocks().next().is_some());
    let kind = if !any_named && any_bare {
        Kind::Appendix
    } else {
        Kind::Run
    };
    let facts = facts(dir, &parsed);
    let mut runs = BTreeMap::new();
    let mut empty = Vec::new();
    for (exp, f) in parsed {
        let f = match kind {
            Kind::Appendix => appendix::translate(exp, &f),
            Kind::Run => f,
        };
        if f.blocks.iter().all(|b| b.rows.is_empty()) {
            empty.push(exp.to_string());
        }
        runs.insert(exp.to_string(), f);
    }
    let no_file = crate::experiments::NAMES
        .iter()
        .copied()
        .filter(|e| !present.contains(e))
        .collect();
    let source = source(dir, kind);
    Ok(Machine {
        label: base_label(dir),
        dir: dir.to_path_buf(),
        kind,
        source,
        runs,
        facts,
        problems,
        no_file,
        empty,
    })
}

/// The folder's own name; a run's `appendix-c/` is named after its run (`amd-epyc-zen4-2c/appendix-c`).
fn base_label(dir: &Path) -> String {
    let name = |p: &Path| {
        p.file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| p.display().to_string())
    };
    let canon = fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let own = name(&canon);
    match canon.parent() {
        Some(parent) if own == "appendix-c" => format!("{}/{own}", name(parent)),
        _ => own,
    }
}

/// Makes labels unique. A folder given twice is numbered ("x (2)"); different folders with the
/// same name are told apart by their path: the parent folder's name first ("old/x"), then the
/// whole path.
pub fn label_all(machines: &mut [Machine]) {
    let canon: Vec<PathBuf> = machines
        .iter()
        .map(|m| fs::canonicalize(&m.dir).unwrap_or_else(|_| m.dir.clone()))
        .collect();
    let mut suffix = vec![String::new(); machines.len()];
    for i in 0..machines.len() {
        let n = (0..i).filter(|&j| canon[j] == canon[i]).count();
        if n > 0 {
            suffix[i] = format!(" ({})", n + 1);
        }
    }
    let mut names: Vec<String> = machines.iter().map(|m| m.label.clone()).collect();
    // Only the first time a folder is given decides its name; a repeat takes it with a number.
    let first: Vec<bool> = suffix.iter().map(String::is_empty).collect();
    for step in 0..3 {
        let clashing: Vec<usize> = (0..names.len())
            .filter(|&i| first[i])
            .filter(|&i| (0..names.len()).any(|j| j != i && first[j] && names[j] == names[i]))
            .collect();
        if clashing.is_empty() {
            break;
        }
        for i in clashing {
            names[i] = match (step, canon[i].parent().and_then(|p| p.file_name())) {
                (0, Some(p)) if !names[i].contains('/') => {
                    format!("{}/{}", p.to_string_lossy(), names[i])
                }
                _ => canon[i].display().to_string(),
            };
        }
    }
    for i in 0..machines.len() {
        let j = (0..=i).find(|&j| canon[j] == canon[i]).unwrap_or(i);
        machines[i].label = format!("{}{}", names[j], suffix[i]);
    }
}

fn source(dir: &Path, kind: Kind) -> String {
    match kind {
        Kind::Run => "a run of this project's experiments".into(),
        Kind::Appendix if base_label(dir).ends_with("/appendix-c") => {
            "the appendix's C programs, run by `cargo xtask appendix-c`".into()
        }
        Kind::Appendix => match crate::project::read_regular_text(&dir.join("README.md")) {
            Ok(t) => {
                let title = t
                    .lines()
                    .find(|l| l.starts_with("# "))
                    .map(|l| l.trim_start_matches("# ").trim().to_string());
                match title {
                    Some(t) => format!(
                        "numbers typed in from the book: {}",
                        t.split_once(": ").map_or(t.as_str(), |(_, rest)| rest)
                    ),
                    None => "numbers typed in from the book (see its README.md)".into(),
                }
            }
            Err(_) => "the appendix's own numbers (bare #DATA blocks)".into(),
        },
    }
}

/// Bytes as "48 KiB", "1 MiB", "1.5 MiB".
pub fn bytes_text(b: f64) -> String {
    const K: f64 = 1024.0;
    let (v, unit) = if b >= K * K * K {
        (b / (K * K * K), "GiB")
    } else if b >= K * K {
        (b / (K * K), "MiB")
    } else if b >= K {
        (b / K, "KiB")
    } else {
        (b, "B")
    };
    format!("{} {unit}", super::effects::trim(super::sig4(v)))
}

/// One machine's saved files, read for their `meta` lines in run order
/// ([`crate::experiments::ALL`]): clock_probe, which reads the machine's numbers, first.
struct MetaLines<'a> {
    order: Vec<&'a DataFile>,
}

impl<'a> MetaLines<'a> {
    fn new(files: &'a [(&'static str, DataFile)]) -> Self {
        MetaLines {
            order: files.iter().map(|(_, f)| f).collect(),
        }
    }

    /// The first file's value for `key`.
    fn get(&self, key: &str) -> Option<String> {
        self.order
            .iter()
            .find_map(|f| f.meta(key))
            .map(str::to_string)
    }

    /// The first word of `key`'s value as a number.
    fn num(&self, key: &str) -> Option<f64> {
        self.get(key).and_then(|v| {
            v.split_whitespace()
                .next()
                .and_then(|w| w.parse::<f64>().ok())
        })
    }

    /// A size with its source: "49152 sysfs" -> "48 KiB (sysfs)"; disagreeing sources
    /// ("l3_size_bytes_sysconf 402653184 disagrees") are added: "32 MiB (sysfs; sysconf says
    /// 384 MiB)".
    fn size(&self, key: &str) -> String {
        let Some(v) = self.get(key) else {
            return unknown();
        };
        let mut words = v.split_whitespace();
        let Some(n) = words.next().and_then(|w| w.parse::<f64>().ok()) else {
            return v;
        };
        let mut s = bytes_text(n);
        let mut notes: Vec<String> = words.map(|w| w.to_string()).collect();
        for f in &self.order {
            for (k, val) in &f.meta {
                if let Some(other) = k.strip_prefix(&format!("{key}_"))
                    && val.ends_with("disagrees")
                    && let Some(m) = val.split_whitespace().next().and_then(|w| w.parse().ok())
                {
                    let note = format!("{other} says {}", bytes_text(m));
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
            }
        }
        if !notes.is_empty() {
            s.push_str(&format!(" ({})", notes.join("; ")));
        }
        s
    }

    /// The L1d size with its line size and ways where known.
    fn l1d(&self) -> String {
        let mut l1d = self.size("l1d_size_bytes");
        if let Some(line) = self.num("l1d_line_bytes") {
            l1d.push_str(&format!(", {} B lines", super::effects::sig3(line)));
        }
        if let Some(w) = self.num("l1d_ways") {
            l1d.push_str(&format!(", {}-way", super::effects::sig3(w)));
        }
        l1d
    }

    /// The CPU's model and family, as far as known.
    fn cpu(&self) -> String {
        match (self.get("cpu_model"), self.get("cpu_family")) {
            (Some(m), Some(f)) => format!("{m}; {f}"),
            (Some(m), None) => m,
            (None, Some(f)) => f,
            (None, None) => unknown(),
        }
    }

    /// The 1-minute load average before each experiment, lowest..highest.
    fn load(&self) -> String {
        let loads: Vec<f64> = self
            .order
            .iter()
            .filter_map(|f| f.meta("load_before"))
            .filter_map(|v| v.split_whitespace().next()?.parse().ok())
            .collect();
        match (
            loads.iter().copied().reduce(f64::min),
            loads.iter().copied().reduce(f64::max),
        ) {
            (Some(a), Some(b)) if a == b => format!("{a:.2}"),
            (Some(a), Some(b)) => format!("{a:.2}-{b:.2}"),
            _ => unknown(),
        }
    }

    /// Whether the experiments ran full, quick or mixed.
    fn run(&self) -> String {
        let quick: Vec<&str> = self.order.iter().filter_map(|f| f.meta("quick")).collect();
        if quick.is_empty() {
            unknown()
        } else if quick.iter().all(|q| *q == "yes") {
            "quick".into()
        } else if quick.iter().all(|q| *q == "no") {
            "full".into()
        } else {
            "mixed full and quick".into()
        }
    }
}

fn unknown() -> String {
    "unknown".to_string()
}

fn facts(dir: &Path, files: &[(&'static str, DataFile)]) -> Facts {
    let m = MetaLines::new(files);
    let (date, commit) = saved_stamps(&m.order).unwrap_or_else(|| summary_date_commit(dir));
    Facts {
        cpu: m.cpu(),
        arch: m.get("arch").unwrap_or_else(unknown),
        cores: m.get("logical_cores").unwrap_or_else(unknown),
        page: m.num("page_size_bytes").map_or_else(unknown, bytes_text),
        l1d: m.l1d(),
        l2: m.size("l2_size_bytes"),
        l3: m.size("l3_size_bytes"),
        line_bytes: m.num("l1d_line_bytes").filter(|l| *l > 0.0),
        cache_kib: [
            ("L1d", "l1d_size_bytes"),
            ("L2", "l2_size_bytes"),
            ("L3", "l3_size_bytes"),
        ]
        .into_iter()
        .filter_map(|(n, k)| Some((n, m.num(k).filter(|v| *v > 0.0)? / 1024.0)))
        .collect(),
        run: m.run(),
        date: date.unwrap_or_else(unknown),
        commit: commit.unwrap_or_else(unknown),
        load: m.load(),
    }
}

/// The date and commit each experiment's file was saved with (`#META saved_utc` and
/// `#META saved_commit`): one, or the first..last date and every commit; `None` where no file
/// has the stamps (an older run, or the appendix's).
fn saved_stamps(files: &[&DataFile]) -> Option<(Option<String>, Option<String>)> {
    let mut dates: Vec<&str> = files.iter().filter_map(|f| f.meta("saved_utc")).collect();
    let mut commits: Vec<&str> = files
        .iter()
        .filter_map(|f| f.meta("saved_commit"))
        .collect();
    if dates.is_empty() && commits.is_empty() {
        return None;
    }
    dates.sort_unstable();
    dates.dedup();
    commits.sort_unstable();
    commits.dedup();
    let date = match dates.as_slice() {
        [] => None,
        [d] => Some(d.to_string()),
        // "2026-11-30 23:13..23:15 UTC" within one day.
        [a, .., b] => match (a.strip_suffix(" UTC"), b.get(..11), b.get(11..)) {
            (Some(a), Some(day), Some(time)) if a.starts_with(day) => Some(format!("{a}..{time}")),
            _ => Some(format!("{a}..{b}")),
        },
    };
    let commit = (!commits.is_empty()).then(|| commits.join(", "));
    Some((date, commit))
}

/// The date and commit from `summary.md`'s "A full run of `<date>`, commit `<hash>`." line.
fn summary_date_commit(dir: &Path) -> (Option<String>, Option<String>) {
    let Ok(text) = crate::project::read_regular_text(&dir.join("summary.md")) else {
        return (None, None);
    };
    for line in text.lines() {
        if let (Some(a), Some(b)) = (line.find(" run of "), line.find(", commit "))
            && a < b
        {
            let date = line[a + " run of ".len()..b].trim().to_string();
            let commit: String = line[b + ", commit ".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            return (
                Some(date).filter(|d| !d.is_empty()),
                Some(commit).filter(|c| !c.is_empty()),
            );
        }
    }
    (None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_run_date_and_commit_come_from_the_saved_stamps() {
        let f = |utc: &str| {
            let t = format!("#META saved_utc {utc}\n#META saved_commit 0ee996e\n");
            measure::data::parse(&t).unwrap()
        };
        let (a, b) = (f("2026-11-30 23:13 UTC"), f("2026-11-30 23:15 UTC"));
        assert_eq!(
            saved_stamps(&[&a, &b, &a]),
            Some((
                Some("2026-11-30 23:13..23:15 UTC".to_string()),
                Some("0ee996e".to_string())
            ))
        );
        assert_eq!(saved_stamps(&[]), None);
    }

    #[test]
    fn sizes_read_as_people_write_them() {
        assert_eq!(bytes_text(49152.0), "48 KiB");
        assert_eq!(bytes_text(33554432.0), "32 MiB");
        assert_eq!(bytes_text(64.0), "64 B");
    }

    #[test]
    fn a_folder_without_experiment_files_is_not_a_results_folder() {
        let d = std::env::temp_dir().join(format!("cmp-load-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        assert!(
            present_experiments(&d)
                .unwrap_err()
                .contains("no <experiment>.txt")
        );
        fs::write(d.join("notes.txt"), "hello").unwrap();
        assert!(present_experiments(&d).is_err());
        fs::write(d.join("stride.txt"), "#DATA-BEGIN\n#DATA 1 2\n#DATA-END\n").unwrap();
        assert_eq!(present_experiments(&d).unwrap(), vec!["stride"]);
        assert!(
            present_experiments(&d.join("stride.txt"))
                .unwrap_err()
                .contains("not a folder")
        );
        let _ = fs::remove_dir_all(&d);
    }
}
