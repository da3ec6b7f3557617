//! The robustness suite: hostile but fair input to xtask. Every case asserts the exit status,
//! the one-line message, and where files existed before, that they are byte-identical after.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

fn xtask(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut c = Command::new(XTASK);
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("xtask runs")
}

/// A fresh folder under the temporary directory, removed when the test passes (kept for a
/// look when it fails).
fn scratch(name: &str) -> Scratch {
    let d = std::env::temp_dir().join(format!("xtask-robust-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    Scratch(d)
}

struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

/// Exit 2, exactly one line on stderr, containing `needle`, no panic.
fn one_line_error(out: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{needle:?} in {err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut m = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                m.insert(
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    fs::read(&p).unwrap(),
                );
            }
        }
    }
    m
}

fn reference() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/amd-epyc-zen4-2c")
}

/// A folder of stand-in experiment binaries: every experiment prints a tiny valid output,
/// except those in `failing`, which crash.
fn fake_bins(dir: &Path, failing: &[&str]) -> PathBuf {
    let crash: Vec<(&str, &str)> = failing
        .iter()
        .map(|e| (*e, "echo 'half a report'; kill -SEGV $$"))
        .collect();
    fake_bins_with(dir, &crash)
}

/// [`fake_bins`] where the experiments in `special` run their own shell body instead.
fn fake_bins_with(dir: &Path, special: &[(&str, &str)]) -> PathBuf {
    let bins = dir.join("bins");
    fs::create_dir_all(&bins).unwrap();
    for exp in [
        "clock_probe",
        "cache_ladder",
        "stride",
        "tlb_walk",
        "branch",
        "fp_cost",
        "false_sharing",
        "sink_bench",
        "env_scan",
        "bandwidth",
    ] {
        let body = if let Some((_, b)) = special.iter().find(|(e, _)| *e == exp) {
            b.to_string()
        } else {
            format!(
                "echo '== {exp} =='; echo '#META quick yes'; echo '#DATA-BEGIN key_figures'; \
                 echo '#COLUMNS figure:text value unit:text'; echo '#DATA fake 1.5 ns'; \
                 echo '#DATA-END'"
            )
        };
        let p = bins.join(exp);
        fs::write(
            &p,
            format!("#!/bin/sh\n[ \"$1\" = --help ] && exit 0\n{body}\n"),
        )
        .unwrap();
        fs::set_permissions(&p, fs::Permissions::from_mode(0o755)).unwrap();
    }
    bins
}

/// `run-all --quick --only <only> --label lab --out <dir>` with the stand-in binaries `bins`.
fn quick_run(dir: &Path, only: &str, bins: &Path) -> Output {
    xtask(
        &[
            "run-all",
            "--quick",
            "--only",
            only,
            "--label",
            "lab",
            "--out",
            dir.to_str().unwrap(),
        ],
        &[("MM_XTASK_BINS", bins)],
    )
}

/// A copy of the reference run (the raw outputs and figures) as `<dir>/lab`.
fn copy_reference(dir: &Path) -> PathBuf {
    copy_folder(dir, &reference())
}

/// A copy of the results folder `from` (its files and figures) in `dir/lab`.
fn copy_folder(dir: &Path, from: &Path) -> PathBuf {
    let lab = dir.join("lab");
    fs::create_dir_all(lab.join("figures")).unwrap();
    for e in fs::read_dir(from).unwrap().flatten() {
        if e.path().is_file() {
            fs::copy(e.path(), lab.join(e.file_name())).unwrap();
        }
    }
    for e in fs::read_dir(from.join("figures")).unwrap().flatten() {
        fs::copy(e.path(), lab.join("figures").join(e.file_name())).unwrap();
    }
    lab
}

#[test]
fn appendix_c_label_cannot_escape_out() {
    let d = scratch("label");
    let seed = d.join("seed.txt");
    fs::write(
        &seed,
        "examples-en/apx-measured/stride/stride.c\nint main(void){return 0;}\nOutput\n",
    )
    .unwrap();
    let out = d.join("a/b/c");
    for label in ["../../escaped", "/abs/olute", ".hidden", "a/b"] {
        let o = xtask(
            &[
                "appendix-c",
                "--seed",
                seed.to_str().unwrap(),
                "--label",
                label,
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        one_line_error(&o, "--label");
    }
    assert!(!d.join("a").exists(), "nothing was written");
}

#[test]
fn appendix_c_with_an_empty_seed_writes_nothing() {
    let d = scratch("empty-seed");
    let out = d.join("out");
    let o = xtask(
        &[
            "appendix-c",
            "--seed",
            "/dev/null",
            "--label",
            "x",
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    one_line_error(&o, "no listing");
    assert!(!out.exists(), "no empty folder is left behind");
}

#[test]
fn figures_from_a_scratch_run_never_replace_the_book_figures() {
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../book-figures");
    let before = snapshot(&book);
    let o = xtask(&["figures", "--from", reference().to_str().unwrap()], &[]);
    one_line_error(&o, "--from needs --out");
    assert_eq!(snapshot(&book), before);
}

#[test]
fn help_on_every_subcommand() {
    for sub in [
        "run-all",
        "figures",
        "compare",
        "appendix-c",
        "verify",
        "handouts",
    ] {
        let o = xtask(&[sub, "--help"], &[]);
        assert_eq!(o.status.code(), Some(0), "{sub}");
        assert!(String::from_utf8_lossy(&o.stdout).contains(sub), "{sub}");
    }
}

#[test]
fn verify_refuses_a_missing_binary_and_a_tiny_n() {
    one_line_error(
        &xtask(&["verify", "--bin", "/nonexistent"], &[]),
        "no such file",
    );
    one_line_error(&xtask(&["verify", "--n", "1"], &[]), "between 1000");
    one_line_error(
        &xtask(&["verify", "--n", "99999999999"], &[]),
        "between 1000",
    );
}

#[test]
fn no_command_is_one_line() {
    one_line_error(&xtask(&[], &[]), "no command given");
}

#[test]
fn junk_is_not_echoed_whole() {
    let junk = "x".repeat(100_000);
    let o = xtask(&["run-all", &junk], &[]);
    one_line_error(&o, "characters");
    assert!(o.stderr.len() < 300, "{} bytes", o.stderr.len());
}

#[test]
fn only_rerun_keeps_foreign_files_and_completes_the_summary() {
    let d = scratch("only");
    let lab = copy_reference(&d);
    fs::write(lab.join("notes.md"), "a teacher's notes").unwrap();
    fs::create_dir_all(lab.join("extra")).unwrap();
    fs::write(lab.join("extra/x.txt"), "x").unwrap();
    let bins = fake_bins(&d, &[]);
    let o = quick_run(&d, "stride", &bins);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        fs::read_to_string(lab.join("notes.md")).unwrap(),
        "a teacher's notes"
    );
    assert_eq!(fs::read_to_string(lab.join("extra/x.txt")).unwrap(), "x");
    let summary = fs::read_to_string(lab.join("summary.md")).unwrap();
    assert!(
        summary.contains("A rerun of part of the folder, in quick (smoke) mode,"),
        "{summary}"
    );
    assert!(
        summary.contains("1 of 10 experiments ran now (stride)"),
        "{summary}"
    );
    assert!(
        summary.contains("; 9 row(s) kept from earlier runs, each with its own date and commit."),
        "{summary}"
    );
    // The terminal gets a short recap, not the summary: no `#` line, within 100 columns.
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.lines()
            .all(|l| l.chars().count() <= 100 && !l.starts_with('#')),
        "{out}"
    );
    assert!(
        out.contains("run-all (quick): 1 of 10 experiments ran"),
        "{out}"
    );
    assert!(out.contains("index.html"), "{out}");
    // Kept rows carry their key figures, read back from the saved outputs.
    assert!(
        summary.contains("| cache_ladder | kept from an earlier run |"),
        "{summary}"
    );
    assert!(
        summary.contains("| clock_probe | one clock read (clock_gettime), its cost |"),
        "{summary}"
    );
    assert!(summary.contains("mixes quick and full"), "{summary}");
    let figs = fs::read_dir(lab.join("figures")).unwrap().count();
    assert!(figs >= 20, "figures kept: {figs}");
    assert!(
        fs::read_dir(&d)
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().starts_with('.')),
        "no temporary folder left"
    );
}

#[test]
fn a_crashing_rerun_keeps_the_previous_output_and_figures() {
    let d = scratch("crash");
    let lab = copy_reference(&d);
    let before = snapshot(&lab);
    let bins = fake_bins(&d, &["stride"]);
    let o = quick_run(&d, "stride", &bins);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let after = snapshot(&lab);
    for (p, bytes) in &before {
        let name = p.to_string_lossy();
        if name == "summary.md" || name == "index.html" {
            // Rewritten by every run: the summary says what happened now.
            continue;
        }
        if name.starts_with("figures/") {
            // Redrawn from the same saved data with the current drawers: present, not lost.
            assert!(after.contains_key(p), "{name} vanished");
            continue;
        }
        assert_eq!(after.get(p), Some(bytes), "{name} changed or vanished");
    }
    assert!(lab.join("stride.failed.txt").is_file());
    let summary = fs::read_to_string(lab.join("summary.md")).unwrap();
    assert!(
        summary.contains("previous output kept (stale)"),
        "{summary}"
    );
}

#[test]
fn stale_temporary_folders_are_cleaned() {
    let d = scratch("stale");
    // pid 999999999 cannot exist (above pid_max); 999999998 neither.
    fs::create_dir_all(d.join(".tmp-lab-999999999/figures")).unwrap();
    fs::write(d.join(".tmp-lab-999999999/stride.running.txt"), "partial").unwrap();
    // One that holds a file run-all did not make is left, and a line says so (issue 22, 1).
    fs::create_dir_all(d.join(".tmp-lab-999999998")).unwrap();
    fs::write(d.join(".tmp-lab-999999998/mine.md"), "a person's").unwrap();
    let bins = fake_bins(&d, &[]);
    let o = quick_run(&d, "clock_probe", &bins);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!d.join(".tmp-lab-999999999").exists());
    assert_eq!(
        fs::read_to_string(d.join(".tmp-lab-999999998/mine.md")).unwrap(),
        "a person's"
    );
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(".tmp-lab-999999998"))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(said[0].contains("mine.md"), "{err}");
}

/// Every file under `dir` as text, for a message.
fn listing(dir: &Path) -> String {
    format!("{:?}", snapshot(dir).keys().collect::<Vec<_>>())
}

/// Issue 22 (1): a run stopped after the swap and before the foreign files were carried
/// over leaves a teacher's files only in `.old-<label>-<pid>`; the next run carries them into
/// the results folder before it removes that folder.
#[test]
fn a_leftover_old_folder_gives_back_the_teachers_files() {
    let d = scratch("old-left");
    let bins = fake_bins(&d, &[]);
    let lab = d.join("lab");
    assert!(quick_run(&d, "clock_probe,stride", &bins).status.success());
    let old = d.join(".old-lab-999999999");
    fs::create_dir_all(old.join("extra")).unwrap();
    fs::write(old.join("notes-2.md"), "t").unwrap();
    fs::write(old.join("extra/x.txt"), "x").unwrap();
    fs::write(old.join("summary.md"), "an old summary").unwrap();
    fs::write(old.join("stride.txt"), "superseded by lab/stride.txt").unwrap();
    let o = quick_run(&d, "clock_probe", &bins);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        fs::read_to_string(lab.join("notes-2.md")).unwrap(),
        "t",
        "{}",
        listing(&d)
    );
    assert_eq!(fs::read_to_string(lab.join("extra/x.txt")).unwrap(), "x");
    assert!(
        !old.exists(),
        "nothing of the teacher's is left in it: removed"
    );
    assert!(err.contains("removed .old-lab-999999999"), "{err}");
    assert!(
        !fs::read_to_string(lab.join("stride.txt"))
            .unwrap()
            .contains("superseded"),
        "the newer output stays"
    );
}

/// Issue 22 (1): where the results folder already has a file of that name, the leftover
/// folder is not deleted: it stays as it is, and one line says what it holds.
#[test]
fn a_leftover_old_folder_with_a_clash_is_left_whole() {
    let d = scratch("old-clash");
    let bins = fake_bins(&d, &[]);
    assert!(quick_run(&d, "clock_probe", &bins).status.success());
    fs::write(d.join("lab/notes.md"), "new notes").unwrap();
    let old = d.join(".old-lab-999999999");
    fs::create_dir_all(&old).unwrap();
    fs::write(old.join("notes.md"), "old notes").unwrap();
    let o = quick_run(&d, "clock_probe", &bins);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        fs::read_to_string(old.join("notes.md")).unwrap(),
        "old notes"
    );
    assert_eq!(
        fs::read_to_string(d.join("lab/notes.md")).unwrap(),
        "new notes"
    );
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains(".old-lab-999999999"))
        .collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(
        said[0].contains("notes.md") && said[0].contains("left"),
        "{err}"
    );
}

/// Issue 22 (2): a results folder that is a symbolic link is refused before anything is
/// touched: the link stays a link, its target keeps every file.
#[test]
fn a_symlinked_results_folder_is_refused() {
    let d = scratch("symlink");
    let target = d.join("elsewhere/lab");
    fs::create_dir_all(&target).unwrap();
    fs::write(target.join("notes.md"), "a teacher's notes").unwrap();
    fs::write(target.join("stride.txt"), "old output").unwrap();
    let out = d.join("B");
    fs::create_dir_all(&out).unwrap();
    std::os::unix::fs::symlink(&target, out.join("lab")).unwrap();
    let before = snapshot(&d.join("elsewhere"));
    let bins = fake_bins(&d, &[]);
    let o = quick_run(&out, "stride", &bins);
    one_line_error(&o, "is a symbolic link");
    assert!(
        fs::symlink_metadata(out.join("lab"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(snapshot(&d.join("elsewhere")), before);
    assert_eq!(fs::read_dir(&out).unwrap().count(), 1, "{}", listing(&out));
}

/// Issue 22 (4): a regular file where the results folder goes is refused, untouched.
#[test]
fn a_file_at_the_results_folder_is_refused() {
    let d = scratch("file-dest");
    fs::write(d.join("lab"), "not a folder").unwrap();
    let bins = fake_bins(&d, &[]);
    let o = quick_run(&d, "stride", &bins);
    one_line_error(&o, "is not a folder");
    assert_eq!(fs::read_to_string(d.join("lab")).unwrap(), "not a folder");
    assert!(
        fs::read_dir(&d)
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().starts_with('.')),
        "no hidden folder: {}",
        listing(&d)
    );
}

/// Issue 22 (3): an empty `--out` would name the current folder; it is refused.
#[test]
fn an_empty_out_is_refused() {
    let d = scratch("empty-out");
    let run = |args: &[&str]| {
        Command::new(XTASK)
            .args(args)
            .current_dir(&d)
            .output()
            .unwrap()
    };
    let from = reference();
    one_line_error(
        &run(&["figures", "--from", from.to_str().unwrap(), "--out", ""]),
        "--out is empty",
    );
    one_line_error(&run(&["run-all", "--quick", "--out="]), "--out is empty");
    one_line_error(&run(&["compare", from.to_str().unwrap(), ""]), "empty");
    assert_eq!(fs::read_dir(&d).unwrap().count(), 0, "{}", listing(&d));
}

/// Issue 22 (5): an argument that is not UTF-8 is one line and exit 2, not a panic; a closed
/// pipe ends xtask quietly (SIGPIPE), as it ends any Unix tool.
#[test]
fn non_utf8_arguments_and_closed_pipes() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    use std::os::unix::process::ExitStatusExt;
    let o = Command::new(XTASK)
        .args(["run-all", "--label"])
        .arg(OsStr::from_bytes(b"l\xffb"))
        .output()
        .unwrap();
    one_line_error(&o, "argument 3 is not valid UTF-8");
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(XTASK)
        .arg("--help")
        .stdout(writer)
        .output()
        .unwrap();
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(o.status.signal(), Some(libc::SIGPIPE), "{:?}", o.status);
}

/// Runs xtask with `args`; a run still going after a minute is a hang: killed, and the test
/// fails.
fn xtask_within_a_minute(args: &[&str]) -> Output {
    let mut child = Command::new(XTASK)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed().as_secs() > 60 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("xtask {args:?} hung (killed after a minute)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A folder whose only output cannot be drawn gets no empty figures folder beside it.
#[test]
fn nothing_drawn_leaves_no_new_folder_behind() {
    let d = scratch("nothing-drawn");
    fs::write(d.join("stride.txt"), "#META experiment stride\n").unwrap();
    let out = d.join("figures");
    let o = xtask_within_a_minute(&[
        "figures",
        "--from",
        d.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    one_line_error(&o, "0 figures drawn");
    assert!(!out.exists(), "an empty {} was left behind", out.display());
    assert!(d.join("stride.txt").is_file(), "the saved output stays");
}

/// Issue 22 (7): a FIFO named like a saved output is skipped with one line, never read:
/// reading it would wait for ever. The other experiments' figures are drawn.
#[test]
fn a_fifo_in_a_results_folder_is_skipped_not_waited_on() {
    let d = scratch("fifo");
    let lab = copy_reference(&d);
    fs::remove_file(lab.join("cache_ladder.txt")).unwrap();
    let fifo = std::ffi::CString::new(lab.join("cache_ladder.txt").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let out = d.join("figs");
    let lab_s = lab.to_str().unwrap();
    let o = xtask_within_a_minute(&["figures", "--from", lab_s, "--out", out.to_str().unwrap()]);
    one_line_error(&o, "cache_ladder.txt");
    one_line_error(&o, "not a regular file");
    assert!(
        out.join("stride-cost.svg").is_file(),
        "the others are drawn"
    );
    let o = xtask_within_a_minute(&["handouts", "--check", "--from", lab_s]);
    one_line_error(&o, "not a regular file");
    let cmp = d.join("cmp");
    let o = xtask_within_a_minute(&[
        "compare",
        lab_s,
        reference().to_str().unwrap(),
        "--out",
        cmp.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let md = fs::read_to_string(cmp.join("compare.md")).unwrap();
    let said: Vec<&str> = md
        .lines()
        .filter(|l| l.contains("not a regular file"))
        .collect();
    assert_eq!(said.len(), 1, "{md}");
    assert!(said[0].contains("cache_ladder.txt"), "{md}");
}

/// Issue 22 (6): a saved file of 100,000 tiny blocks is read in linear time: `figures`
/// answers (here: one line, the blocks it needs are missing) well within the minute.
#[test]
fn a_file_of_a_hundred_thousand_blocks_does_not_hang_figures() {
    let d = scratch("blocks");
    let lab = d.join("lab");
    fs::create_dir_all(&lab).unwrap();
    let mut text = String::new();
    for i in 0..100_000 {
        text.push_str(&format!(
            "#DATA-BEGIN b{i}\n#COLUMNS x\n#DATA 1\n#DATA-END\n"
        ));
    }
    fs::write(lab.join("clock_probe.txt"), text).unwrap();
    let out = d.join("figs");
    let o = xtask_within_a_minute(&[
        "figures",
        "--from",
        lab.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    one_line_error(&o, "clock_probe.txt");
}

/// Issue 22 (7): an experiment that never ends is ended by the watchdog (`--timeout`), with
/// the children it started; its previous output is kept, the failure recorded, exit 1.
#[test]
fn a_hung_experiment_is_ended_and_its_previous_output_kept() {
    let d = scratch("hung");
    let lab = copy_reference(&d);
    let before = snapshot(&lab);
    let pid_file = d.join("child.pid");
    let body = format!(
        "echo 'a report that never ends'; sleep 600 & echo $! > {}; wait",
        pid_file.display()
    );
    let bins = fake_bins_with(&d, &[("stride", &body)]);
    let t0 = std::time::Instant::now();
    let o = xtask(
        &[
            "run-all",
            "--quick",
            "--only",
            "stride",
            "--label",
            "lab",
            "--out",
            d.to_str().unwrap(),
            "--timeout",
            "1",
        ],
        &[("MM_XTASK_BINS", &bins)],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(t0.elapsed().as_secs() < 60, "{:?}", t0.elapsed());
    assert!(err.contains("ended by the watchdog"), "{err}");
    assert_kept(&before, &lab);
    assert!(
        fs::read_to_string(lab.join("stride.failed.txt"))
            .unwrap()
            .starts_with("a report that never ends\n")
    );
    let summary = fs::read_to_string(lab.join("summary.md")).unwrap();
    assert!(summary.contains("ended by the watchdog"), "{summary}");
    assert_ended(&pid_file);
    assert_no_hidden(&d);
}

/// The process whose pid a stand-in wrote into `pid_file` has ended (it is gone, or a zombie
/// waiting for its new parent): within 10 s.
fn assert_ended(pid_file: &Path) {
    let child = fs::read_to_string(pid_file).unwrap();
    let stat = format!("/proc/{}/stat", child.trim());
    let running = || fs::read_to_string(&stat).is_ok_and(|s| !s.contains(") Z "));
    let t0 = std::time::Instant::now();
    while running() && t0.elapsed().as_secs() < 10 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(
        !running(),
        "the experiment's child {} was not ended",
        child.trim()
    );
}

/// Stopping run-all (SIGTERM, as `kill` sends; Ctrl-C and a hang-up alike) ends the
/// experiment running in its own process group, with its children; nothing is swapped in.
#[test]
fn stopping_run_all_ends_the_experiment_and_its_children() {
    use std::os::unix::process::ExitStatusExt;
    let d = scratch("stopped");
    let lab = copy_reference(&d);
    let before = snapshot(&lab);
    let pid_file = d.join("child.pid");
    let body = format!("sleep 600 & echo $! > {}; wait", pid_file.display());
    let bins = fake_bins_with(&d, &[("stride", &body)]);
    let mut x = Command::new(XTASK)
        .args([
            "run-all", "--quick", "--only", "stride", "--label", "lab", "--out",
        ])
        .arg(&d)
        .env("MM_XTASK_BINS", &bins)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while fs::read_to_string(&pid_file).map_or(true, |s| !s.ends_with('\n')) {
        assert!(t0.elapsed().as_secs() < 30, "the stand-in did not start");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // SAFETY: kill sends a signal to the xtask this test started.
    assert_eq!(unsafe { libc::kill(x.id() as i32, libc::SIGTERM) }, 0);
    assert_eq!(x.wait().unwrap().signal(), Some(libc::SIGTERM));
    assert_ended(&pid_file);
    assert_eq!(snapshot(&lab), before);
}

/// Every file of `before` (a snapshot of `lab`) is still there, byte-identical, except the
/// summary and the page that every run rewrites; the figures are present.
fn assert_kept(before: &BTreeMap<PathBuf, Vec<u8>>, lab: &Path) {
    let after = snapshot(lab);
    for (p, bytes) in before {
        let name = p.to_string_lossy();
        if name == "summary.md" || name == "index.html" {
            continue;
        }
        if name.starts_with("figures/") {
            assert!(after.contains_key(p), "{name} vanished");
            continue;
        }
        assert_eq!(after.get(p), Some(bytes), "{name} changed or vanished");
    }
}

/// No temporary (hidden) folder is left in `out`.
fn assert_no_hidden(out: &Path) {
    assert!(
        fs::read_dir(out)
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().starts_with('.')),
        "a temporary folder was left: {}",
        listing(out)
    );
}

/// Issue 22 (8): an experiment that prints without end is ended at 64 MiB, not held in
/// memory; its beginning is kept as the failed output, the previous output stays, and no
/// temporary folder is left.
#[test]
fn endless_output_is_ended_and_nothing_is_left_behind() {
    let d = scratch("endless");
    let lab = copy_reference(&d);
    let before = snapshot(&lab);
    let bins = fake_bins_with(&d, &[("stride", "yes 'a line of output'")]);
    let o = quick_run(&d, "stride", &bins);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("printed over 64 MiB"), "{err}");
    assert_kept(&before, &lab);
    let kept = fs::metadata(lab.join("stride.failed.txt")).unwrap().len();
    assert!(kept <= (1 << 20) + 1000, "{kept} bytes kept");
    assert_no_hidden(&d);
}

/// Issue 22 (8): a run that cannot write its results (a full disk: here a file-size limit,
/// its signal ignored, so that writes fail as they fail on a full disk) removes its temporary
/// folder and keeps the previous results whole.
#[test]
fn a_run_that_cannot_write_leaves_no_temporary_folder() {
    let d = scratch("full");
    let bins = fake_bins(&d, &[]);
    assert!(quick_run(&d, "clock_probe", &bins).status.success());
    let before = snapshot(&d.join("lab"));
    let o = Command::new("sh")
        .arg("-c")
        .arg("trap '' XFSZ; ulimit -f 4 && exec \"$0\" \"$@\"")
        .arg(XTASK)
        .args([
            "run-all",
            "--quick",
            "--only",
            "clock_probe",
            "--label",
            "lab",
            "--out",
        ])
        .arg(&d)
        .env("MM_XTASK_BINS", &bins)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let last = err.trim_end().lines().last().unwrap_or("");
    assert!(
        last.starts_with("xtask: error: cannot write summary.md"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(snapshot(&d.join("lab")), before);
    assert_no_hidden(&d);
}

/// Issue 22 (9): `figures` on a malformed saved file prints one line, not two;
/// `handouts --from` an empty folder is bad input (exit 2, one line).
#[test]
fn malformed_and_empty_inputs_are_one_line_and_exit_2() {
    let d = scratch("one-line");
    let lab = copy_reference(&d);
    let mut stride = fs::read_to_string(lab.join("stride.txt")).unwrap();
    stride.push_str("#DATA-BEGIN never_ended\n");
    fs::write(lab.join("stride.txt"), stride).unwrap();
    let out = d.join("figs");
    let o = xtask(
        &[
            "figures",
            "--from",
            lab.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &[],
    );
    one_line_error(&o, "stride.txt: line");
    let empty = d.join("empty");
    fs::create_dir_all(&empty).unwrap();
    let o = xtask(&["handouts", "--from", empty.to_str().unwrap()], &[]);
    one_line_error(&o, "holds no saved experiment output");
}

/// Issue 22 (10): a zombie xtask (ended, not yet waited for) is not a running one: the
/// temporary folder named after it is cleaned.
#[test]
fn a_zombies_temporary_folder_is_cleaned() {
    let d = scratch("zombie");
    let mut zombie = Command::new(XTASK)
        .arg("--help")
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = zombie.id();
    let stat = format!("/proc/{pid}/stat");
    let t0 = std::time::Instant::now();
    while !fs::read_to_string(&stat).unwrap().contains(") Z ") {
        assert!(t0.elapsed().as_secs() < 30, "no zombie");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let tmp = d.join(format!(".tmp-lab-{pid}"));
    fs::create_dir_all(tmp.join("figures")).unwrap();
    fs::write(tmp.join("stride.txt"), "partial").unwrap();
    let bins = fake_bins(&d, &[]);
    let o = quick_run(&d, "clock_probe", &bins);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!tmp.exists(), "{}", listing(&d));
    zombie.wait().unwrap();
}

#[test]
fn a_fresh_folder_says_not_run_and_claims_nothing_kept() {
    let d = scratch("fresh-only");
    let bins = fake_bins(&d, &[]);
    let o = quick_run(&d, "stride", &bins);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = fs::read_to_string(d.join("lab").join("summary.md")).unwrap();
    assert!(summary.contains("; 9 row(s) not run."), "{summary}");
    assert!(!summary.contains("kept from earlier runs"), "{summary}");
    // Nothing was there before: not a rerun.
    assert!(
        summary.contains("A run of part of the experiments"),
        "{summary}"
    );
    assert!(!summary.contains("A rerun of part"), "{summary}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.lines()
            .all(|l| l.chars().count() <= 100 && !l.starts_with('#')),
        "{out}"
    );
    let _ = fs::remove_dir_all(&d);
}

/// A generated line that cannot be wrapped under 100 columns (here a quoted verdict made one
/// long word) fails `handouts --check`, naming the template and the line.
#[test]
fn handouts_check_refuses_a_generated_line_over_100_columns() {
    let d = scratch("wide");
    // The handouts' folder (BOOK_RESULTS), whose runs hold every figure they quote.
    let book = Path::new(env!("CARGO_MANIFEST_DIR")).join("../results/amd-epyc-zen5-2c");
    let lab = copy_folder(&d, &book);
    let p = lab.join("false_sharing.txt");
    let text = fs::read_to_string(&p).unwrap();
    let wide = format!("#META fs_verdict {}", "x".repeat(120));
    let text: Vec<String> = text
        .lines()
        .map(|l| {
            if l.starts_with("#META fs_verdict ") {
                wide.clone()
            } else {
                l.to_string()
            }
        })
        .collect();
    fs::write(&p, text.join("\n") + "\n").unwrap();
    let o = xtask(
        &["handouts", "--check", "--from", lab.to_str().unwrap()],
        &[],
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("over 100 columns"), "{err}");
    assert!(err.contains("false_sharing.md"), "{err}");
}

#[test]
fn a_whole_run_ends_with_a_short_recap_and_the_summary_stays_in_its_file() {
    let d = scratch("recap");
    // One experiment crashes; one reports a disturbed result.
    let disturbed = "echo '== stride =='; echo '#META quick yes'; \
        echo '#DATA-BEGIN disturbance'; \
        echo '#COLUMNS result:text rounds disturbed_rounds lost_ms on_core_cores steal_share \
        elsewhere_cores provisional:text contended:text'; \
        echo '#DATA stride 9 4 1.5 0.5 0 0 yes no'; echo '#DATA-END'";
    let bins = fake_bins_with(
        &d,
        &[
            ("branch", "echo 'half a report'; kill -SEGV $$"),
            ("stride", disturbed),
        ],
    );
    let out_dir = d.join("out");
    let o = xtask(
        &[
            "run-all",
            "--quick",
            "--label",
            "lab",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        &[("MM_XTASK_BINS", &bins)],
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let out = String::from_utf8_lossy(&o.stdout);
    for l in out.lines() {
        assert!(
            l.chars().count() <= 100 && !l.starts_with('#'),
            "{l}\n{out}"
        );
    }
    assert!(out.lines().count() <= 12, "{out}");
    assert!(
        out.starts_with("run-all (quick): 10 of 10 experiments ran"),
        "{out}"
    );
    assert!(out.contains("failed (see summary.md): branch."), "{out}");
    let words = out.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(
            "provisional (disturbed rounds, a moved or low core share, or moved memory; rerun on a quiet machine): stride."
        ),
        "{out}"
    );
    let page = out_dir.join("lab").join("index.html");
    assert!(out.contains(page.to_str().unwrap()), "{out}");
    // The full summary, headings and all, is in the file, not on the terminal.
    let summary = fs::read_to_string(out_dir.join("lab").join("summary.md")).unwrap();
    assert!(
        summary.lines().filter(|l| l.starts_with('#')).count() >= 3,
        "{summary}"
    );
    assert!(!out.contains("| experiment |"), "{out}");
}
