//! Running one experiment: start its binary, save what it printed (with when and at which
//! commit), check its `#DATA`, write each block as CSV, and keep the parsed output for the
//! summary and the figures.

use super::watch::{self, End};
use measure::data::{self, DataFile};
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::{Command, ExitStatus};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The best reading of the core's share ([`measure::clock::share`]) the experiments run so far
/// took on each core: (core, ratio). Each next experiment on that core is handed it
/// ([`measure::clock::share::SEED_VAR`]), so that one whose share reads low throughout is judged
/// against the others.
static SHARE_BEST: Mutex<Vec<(usize, f64)>> = Mutex::new(Vec::new());

/// The best share read so far on `core`, for the next experiment's environment.
fn share_best(core: usize) -> Option<f64> {
    let best = SHARE_BEST.lock().unwrap_or_else(|e| e.into_inner());
    best.iter().find(|(c, _)| *c == core).map(|&(_, r)| r)
}

/// Keeps the share readings of `p`, an experiment's output, when they were taken on `core`
/// (its `#META core_share_before` and `core_share_after`, read on its main thread, pinned
/// there and verified).
fn keep_share_best(core: usize, p: &DataFile) {
    use measure::schema::run as m;
    if p.meta(m::META_PINNED) != Some("yes") || p.meta_num(m::META_PINNED_CORE) != Some(core as f64)
    {
        return;
    }
    let read = [m::META_CORE_SHARE_BEFORE, m::META_CORE_SHARE_AFTER]
        .iter()
        .filter_map(|k| p.meta_num(k))
        .fold(f64::NAN, f64::max);
    if read.is_finite() && read > 0.0 {
        let mut best = SHARE_BEST.lock().unwrap_or_else(|e| e.into_inner());
        measure::clock::share::keep_best(
            &mut best,
            core,
            measure::clock::share::Share { ratio: read },
        );
    }
}

/// What happened to one experiment run now.
pub struct Outcome {
    pub name: String,
    pub status: String,
    pub ok: bool,
    pub wall_s: f64,
    pub notes: Vec<String>,
    /// The saved output, parsed once here (with the stamp) and carried to the summary and
    /// the figures; `None` unless `ok`.
    pub saved: Option<DataFile>,
}

impl Outcome {
    /// Takes what a step after the run ([`crate::experiments::AfterRun`]) found: a note, or
    /// a failure that turns the run saved in `dir` into a failed one.
    pub fn take(&mut self, after: crate::experiments::After, dir: &Path) {
        use crate::experiments::After;
        match after {
            After::Quiet => {}
            After::Note(n) => self.notes.push(n),
            After::Fail(status) => self.fail_after_save(dir, &status),
        }
    }

    /// Turns a run saved as good into a failed one: its output becomes `<exp>.failed.txt`
    /// (and `<exp>.failed.stderr.txt`), its CSV files go, so that the previous good output is
    /// kept in its place, as for any failed run.
    fn fail_after_save(&mut self, dir: &Path, status: &str) {
        let exp = &self.name;
        for (from, to) in [("txt", "failed.txt"), ("stderr.txt", "failed.stderr.txt")] {
            let _ = fs::rename(
                dir.join(format!("{exp}.{from}")),
                dir.join(format!("{exp}.{to}")),
            );
        }
        if let Some(f) = self.saved.take() {
            for (block, _) in crate::project::named_blocks(&f) {
                let _ = fs::remove_file(dir.join(format!("{exp}.{block}.csv")));
            }
        }
        self.ok = false;
        self.status = status.into();
    }
}

/// When and from which commit this run's outputs come; appended to each saved output as
/// `#META saved_utc` and `#META saved_commit`, so a file kept by a later `--only` run still
/// says where it came from.
pub struct Stamp {
    pub utc: String,
    pub commit: String,
}

impl Stamp {
    fn lines(&self) -> String {
        format!(
            "{}\n{}\n",
            data::meta_line("saved_utc", &self.utc),
            data::meta_line("saved_commit", &self.commit)
        )
    }

    /// `f` as it reads back from the saved file: its `#META` lines followed by the stamp's.
    fn add_to(&self, f: &mut DataFile) {
        if let Ok(stamp) = data::parse(&self.lines()) {
            f.meta.extend(stamp.meta);
        }
    }
}

/// Runs `exp` from `bins` into `dir` under the watchdog ([`watch::run`], ended after
/// `limit`): `<exp>.txt` (stdout and the stamp), `<exp>.stderr.txt` if it wrote any, and a
/// CSV per block. A failed, crashed or ended run is saved as `<exp>.failed.txt` instead, so
/// that the previous good output can be kept in its place.
pub fn run_one(
    bins: &Path,
    exp: &str,
    quick: bool,
    core: Option<usize>,
    dir: &Path,
    stamp: &Stamp,
    limit: Duration,
) -> Outcome {
    let bin = bins.join(exp);
    let mut o = Outcome {
        name: exp.into(),
        status: String::new(),
        ok: false,
        wall_s: 0.0,
        notes: Vec::new(),
        saved: None,
    };
    // The first execution of a freshly built binary pays for loading it: run it once, discarded.
    let null = Path::new("/dev/null");
    let _ = watch::run(Command::new(&bin).arg("--help"), null, null, limit);
    let mut cmd = Command::new(&bin);
    if quick {
        cmd.arg("--quick");
    }
    if let Some(c) = core {
        cmd.env("MM_CORE", c.to_string());
        if let Some(b) = share_best(c) {
            cmd.env(measure::clock::share::SEED_VAR, format!("{b:.3}"));
        }
    }
    let (out, err) = (
        dir.join(format!("{exp}.running.txt")),
        dir.join(format!("{exp}.running.stderr.txt")),
    );
    let t0 = Instant::now();
    let end = watch::run(&mut cmd, &out, &err, limit);
    o.wall_s = t0.elapsed().as_secs_f64();
    let parsed = match end {
        Err(e) => {
            o.status = format!("failed to start: {e}");
            let _ = (fs::remove_file(&out), fs::remove_file(&err));
            return o;
        }
        Ok(End::Exited(status)) => judge(&mut o, status, &out),
        Ok(End::TimedOut) => {
            o.status = format!(
                "failed (still running after {} s: ended by the watchdog; see --timeout)",
                limit.as_secs()
            );
            None
        }
        Ok(End::TooLarge) => {
            o.status = format!(
                "failed (printed over {} MiB: ended; the first {} KiB kept)",
                watch::MAX_OUTPUT >> 20,
                KEEP_OF_TOO_LARGE >> 10
            );
            for p in [&out, &err] {
                let _ = fs::OpenOptions::new()
                    .write(true)
                    .open(p)
                    .and_then(|f| f.set_len(KEEP_OF_TOO_LARGE.min(f.metadata()?.len())));
            }
            None
        }
    };
    save(&mut o, dir, &out, &err, stamp);
    if let (true, Some(mut p)) = (o.ok, parsed) {
        if let Some(c) = core {
            keep_share_best(c, &p);
        }
        write_csvs(exp, &p, dir, &mut o.notes);
        stamp.add_to(&mut p);
        o.saved = Some(p);
    }
    o
}

/// What is kept of an output over [`watch::MAX_OUTPUT`]: its beginning, enough to see why.
const KEEP_OF_TOO_LARGE: u64 = 1 << 20;

/// Sets `o`'s status from an experiment that ended by itself with `status`, having printed
/// the file `out`, and returns its parsed `#DATA` when it is good.
fn judge(o: &mut Outcome, status: ExitStatus, out: &Path) -> Option<DataFile> {
    let stdout = match fs::read(out) {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => {
            o.status = format!("failed (its output cannot be read back: {e})");
            return None;
        }
    };
    let parsed = match data::parse(&stdout) {
        Ok(p) => Some(p),
        Err(e) => {
            o.notes.push(format!("malformed #DATA output: {e}"));
            None
        }
    };
    match (status.code(), &parsed) {
        (Some(0), Some(_)) => {
            o.ok = true;
            o.status = "ok".into();
        }
        (Some(0), None) => o.status = "failed (malformed output)".into(),
        (Some(c), _) => o.status = format!("failed (exit status {c})"),
        (None, _) => o.status = "crashed (killed by a signal)".into(),
    }
    parsed.filter(|_| o.ok)
}

/// Gives the streamed files their names, `<exp>.txt` and `<exp>.stderr.txt` (or
/// `<exp>.failed.txt` and `<exp>.failed.stderr.txt`), drops an empty stderr, and appends the
/// stamp to the output. A file that cannot be saved fails the run.
fn save(o: &mut Outcome, dir: &Path, out: &Path, err: &Path, stamp: &Stamp) {
    let exp = o.name.clone();
    let (txt, stderr) = if o.ok {
        (format!("{exp}.txt"), format!("{exp}.stderr.txt"))
    } else {
        (
            format!("{exp}.failed.txt"),
            format!("{exp}.failed.stderr.txt"),
        )
    };
    if fs::metadata(err).is_ok_and(|m| m.len() == 0) {
        let _ = fs::remove_file(err);
    } else {
        let _ = fs::rename(err, dir.join(stderr));
    }
    let saved = fs::rename(out, dir.join(&txt)).and_then(|()| {
        fs::OpenOptions::new()
            .append(true)
            .open(dir.join(&txt))?
            .write_all(stamp.lines().as_bytes())
    });
    if let Err(e) = saved {
        o.notes.push(format!("cannot save {txt}: {e}"));
        if o.ok {
            o.ok = false;
            o.status = format!("failed (cannot save its output: {e})");
            let _ = fs::rename(dir.join(&txt), dir.join(format!("{exp}.failed.txt")));
        }
    }
}

/// Writes every block of `f` as `<exp>.<block>.csv` (bare blocks as `block1`, `block2`, ...).
pub fn write_csvs(exp: &str, f: &DataFile, dir: &Path, notes: &mut Vec<String>) {
    for (name, b) in crate::project::named_blocks(f) {
        let p = dir.join(format!("{exp}.{name}.csv"));
        if let Err(e) = fs::write(&p, crate::csv_text::block(b)) {
            notes.push(format!("cannot write {}: {e}", p.display()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fake experiment: a shell script standing in for a binary.
    fn fake(dir: &Path, name: &str, body: &str) {
        use std::os::unix::fs::PermissionsExt;
        let p = dir.join(name);
        fs::write(
            &p,
            format!("#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n{body}\n"),
        )
        .unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    }

    const LIMIT: Duration = Duration::from_secs(60);

    /// `dir/bin` and `dir/out`, created, and a stamp.
    fn scratch(d: &Path) -> (std::path::PathBuf, std::path::PathBuf, Stamp) {
        let (bins, out) = (d.join("bin"), d.join("out"));
        fs::create_dir_all(&bins).unwrap();
        fs::create_dir_all(&out).unwrap();
        let stamp = Stamp {
            utc: "2026-01-01 00:00 UTC".into(),
            commit: "abc1234".into(),
        };
        (bins, out, stamp)
    }

    /// Each experiment on a core is handed the best share its predecessors read there, and
    /// only readings its main thread took on that core count.
    #[test]
    fn the_best_core_share_is_handed_to_the_next_experiment_on_the_core() {
        let d = std::env::temp_dir().join(format!("run-one-share-{}", std::process::id()));
        let (bins, out, stamp) = scratch(&d);
        let reads = |on: usize, a: f64, b: f64| {
            format!(
                "echo '#META pinned yes'; echo '#META pinned_core {on}'; \
                 echo '#META core_share_before {a}'; \
                 echo '#META core_share_after {b}'; echo \"#META seen ${{{}:-none}}\"",
                measure::clock::share::SEED_VAR
            )
        };
        fake(&bins, "first", &reads(4093, 3.1, 2.9));
        fake(&bins, "elsewhere", &reads(4092, 3.9, 3.9));
        fake(&bins, "second", &reads(4093, 2.0, 2.0));
        let core = Some(4093);
        let seen = |exp: &str| {
            let o = run_one(&bins, exp, true, core, &out, &stamp, LIMIT);
            o.saved.unwrap().meta("seen").map(str::to_string)
        };
        assert_eq!(seen("first").as_deref(), Some("none"));
        assert_eq!(seen("elsewhere").as_deref(), Some("3.100"));
        assert_eq!(
            seen("second").as_deref(),
            Some("3.100"),
            "4092's 3.9 not kept"
        );
        assert_eq!(
            seen("second").as_deref(),
            Some("3.100"),
            "a lower one kept the best"
        );
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn failures_crashes_and_malformed_output_are_recorded_not_fatal() {
        let d = std::env::temp_dir().join(format!("run-one-{}", std::process::id()));
        let (bins, out, stamp) = scratch(&d);
        fake(
            &bins,
            "good",
            "echo '#DATA-BEGIN key_figures'; echo '#COLUMNS figure:text value unit:text'; echo '#DATA x 1.5 ns'; echo '#DATA-END'",
        );
        fake(&bins, "exits", "echo partial; exit 3");
        fake(&bins, "crashes", "kill -SEGV $$");
        fake(&bins, "garbled", "echo '#DATA-BEGIN a'; echo '#DATA 1'");
        let good = run_one(&bins, "good", true, None, &out, &stamp, LIMIT);
        assert!(good.ok, "{}", good.status);
        assert!(out.join("good.key_figures.csv").is_file());
        let saved = data::parse(&fs::read_to_string(out.join("good.txt")).unwrap()).unwrap();
        assert_eq!(saved.meta("saved_commit"), Some("abc1234"));
        // A good run found wrong afterwards (branch's simulation) is saved as failed.
        let mut late = run_one(&bins, "good", true, None, &out, &stamp, LIMIT);
        late.fail_after_save(&out, "failed (contradicted)");
        assert!(!late.ok && late.saved.is_none());
        assert!(!out.join("good.txt").exists() && out.join("good.failed.txt").is_file());
        assert!(!out.join("good.key_figures.csv").exists());
        let e = run_one(&bins, "exits", true, None, &out, &stamp, LIMIT);
        assert!(!e.ok && e.status.contains("exit status 3"), "{}", e.status);
        assert!(
            !out.join("exits.txt").exists(),
            "a failed run is not saved as output"
        );
        assert!(
            fs::read_to_string(out.join("exits.failed.txt"))
                .unwrap()
                .starts_with("partial\n")
        );
        let c = run_one(&bins, "crashes", true, None, &out, &stamp, LIMIT);
        assert!(!c.ok && c.status.contains("signal"), "{}", c.status);
        let g = run_one(&bins, "garbled", true, None, &out, &stamp, LIMIT);
        assert!(!g.ok && g.status.contains("malformed"), "{}", g.status);
        assert!(
            g.notes.iter().any(|n| n.contains("line 2")),
            "{:?}",
            g.notes
        );
        let m = run_one(&bins, "missing", true, None, &out, &stamp, LIMIT);
        assert!(
            !m.ok && m.status.contains("failed to start"),
            "{}",
            m.status
        );
        let _ = fs::remove_dir_all(&d);
    }
}
