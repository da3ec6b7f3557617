//! A property test for the figure path: saved files whose numbers are replaced by arbitrary
//! finite values (zeros, negatives, subnormals, 1e308, whole columns of one value, NA) are
//! drawn by every drawer through `cargo xtask figures`. Drawing must finish within a bound,
//! and end either drawn (exit 0) or with one line on stderr naming the file of every failed
//! experiment (exit 2): never a hang, never a panic.
//!
//! `cargo test` runs a few dozen cases; `cargo test -p xtask -- --ignored` runs the full
//! 2,000. The generator is the project's (`measure::ring`), seeded by the case number, so a
//! failing case is reproduced by its number alone.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");
/// A run that takes longer than this is a hang (a normal run takes well under a second).
const DEADLINE: Duration = Duration::from_secs(60);

/// The project's seeded generator (`measure::ring`): a failing case is reproduced by its
/// number alone.
struct Rng(measure::ring::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(measure::ring::rng(seed))
    }
    /// A uniform integer in `0..n` (`0` when `n` is 0).
    fn below(&mut self, n: usize) -> usize {
        measure::ring::below(&mut self.0, n.max(1))
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

/// A finite value from the corners of f64 (or anywhere in between), as text.
fn value(r: &mut Rng) -> String {
    const CORNERS: [&str; 20] = [
        "0",
        "-0",
        "5e-324",
        "-5e-324",
        "1e-310",
        "2.2250738585072014e-308",
        "1e-300",
        "1e-12",
        "1",
        "-1",
        "1e12",
        "1e300",
        "1e308",
        "-1e308",
        "1.7976931348623157e308",
        "-1.7976931348623157e308",
        "3",
        "4096",
        "0.5",
        "-7",
    ];
    match r.below(4) {
        0 | 1 => CORNERS[r.below(CORNERS.len())].to_string(),
        2 => "NA".to_string(),
        _ => {
            // sign * m * 10^e over the whole finite range.
            let e = r.below(632) as i32 - 323;
            let m = 1.0 + r.below(9000) as f64 / 1000.0;
            let v = if r.chance(30) { -m } else { m } * 10f64.powi(e);
            if v.is_finite() {
                format!("{v:e}")
            } else {
                "1e308".into()
            }
        }
    }
}

fn is_number(tok: &str) -> bool {
    tok.parse::<f64>().is_ok_and(f64::is_finite) || tok == "NA"
}

/// Rewrites some numbers of a saved file. Lines are `#DATA` rows and `#META` values.
fn mutate(text: &str, r: &mut Rng) -> String {
    let mut lines: Vec<Vec<String>> = text
        .lines()
        .map(|l| l.split(' ').map(str::to_string).collect())
        .collect();
    // (line, token) of every number a mutation may replace.
    let spots: Vec<(usize, usize)> = lines
        .iter()
        .enumerate()
        .flat_map(|(i, toks)| {
            let data = toks.first().is_some_and(|t| t == "#DATA" || t == "#META");
            let first = if toks.first().is_some_and(|t| t == "#META") {
                2
            } else {
                1
            };
            (first..toks.len())
                .filter(move |&k| data && is_number(&toks[k]))
                .map(move |k| (i, k))
        })
        .collect();
    if spots.is_empty() {
        return text.to_string();
    }
    match r.below(4) {
        // A few numbers anywhere.
        0 | 1 => {
            for _ in 0..1 + r.below(8) {
                let (i, k) = spots[r.below(spots.len())];
                lines[i][k] = value(r);
            }
        }
        // A whole column of one block: one value (zero span, all zero, all negative).
        2 => {
            let (i, k) = spots[r.below(spots.len())];
            let v = value(r);
            let mut j = i;
            while j < lines.len() && lines[j].first().is_some_and(|t| t == "#DATA") {
                if lines[j].len() > k && is_number(&lines[j][k]) {
                    lines[j][k] = v.clone();
                }
                j += 1;
            }
            let mut j = i;
            while j > 0 && lines[j - 1].first().is_some_and(|t| t == "#DATA") {
                j -= 1;
                if lines[j].len() > k && is_number(&lines[j][k]) {
                    lines[j][k] = v.clone();
                }
            }
        }
        // Every number of a few rows.
        _ => {
            for _ in 0..1 + r.below(3) {
                let (i, _) = spots[r.below(spots.len())];
                for k in 1..lines[i].len() {
                    if is_number(&lines[i][k]) && (lines[i][0] == "#DATA" || k >= 2) {
                        lines[i][k] = value(r);
                    }
                }
            }
        }
    }
    let mut out: Vec<String> = lines.into_iter().map(|t| t.join(" ")).collect();
    out.push(String::new());
    out.join("\n")
}

fn results(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../results")
        .join(name)
}

/// The saved files a case may mutate: (path relative to the case folder, text).
fn originals() -> Vec<(PathBuf, String)> {
    let mut v = Vec::new();
    let run = results("amd-epyc-zen4-2c");
    for e in fs::read_dir(&run).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "txt") {
            v.push((
                PathBuf::from("r").join(e.file_name()),
                fs::read_to_string(e.path()).unwrap(),
            ));
        }
    }
    for e in fs::read_dir(run.join("appendix-c")).unwrap().flatten() {
        v.push((
            PathBuf::from("r/appendix-c").join(e.file_name()),
            fs::read_to_string(e.path()).unwrap(),
        ));
    }
    for e in fs::read_dir(results("appendix-book")).unwrap().flatten() {
        v.push((
            PathBuf::from("appendix-book").join(e.file_name()),
            fs::read_to_string(e.path()).unwrap(),
        ));
    }
    v.sort();
    v
}

/// What went wrong with one case, if anything.
fn case(n: u64, files: &[(PathBuf, String)], root: &Path) -> Option<String> {
    let mut r = Rng::new(n);
    let dir = root.join(format!("case-{n}"));
    let _ = fs::remove_dir_all(&dir);
    // Half the cases draw beside the book's printed numbers instead of the C program's.
    let book_only = r.chance(50);
    let chosen: Vec<usize> = (0..1 + r.below(3)).map(|_| r.below(files.len())).collect();
    for (k, (rel, text)) in files.iter().enumerate() {
        if book_only && rel.starts_with("r/appendix-c") {
            continue;
        }
        let mut t = text.clone();
        for _ in chosen.iter().filter(|&&c| c == k) {
            t = mutate(&t, &mut r);
        }
        let p = dir.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, t).unwrap();
    }
    let out = dir.join("o");
    let mut child = Command::new(XTASK)
        .args(["figures", "--from"])
        .arg(dir.join("r"))
        .arg("--out")
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xtask starts");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break s;
        }
        if start.elapsed() > DEADLINE {
            let _ = child.kill();
            let _ = child.wait();
            return Some(format!(
                "case {n}: hung (killed after {DEADLINE:?}); files kept in {}",
                dir.display()
            ));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let err = {
        use std::io::Read;
        let mut s = String::new();
        if let Some(mut e) = child.stderr.take() {
            let _ = e.read_to_string(&mut s);
        }
        s
    };
    let problem = if err.contains("panicked") || err.contains("RUST_BACKTRACE") {
        Some(format!("case {n}: panicked: {err}"))
    } else if !matches!(status.code(), Some(0) | Some(2)) {
        Some(format!("case {n}: exit {:?}: {err}", status.code()))
    } else if status.code() == Some(2)
        && !err
            .lines()
            .filter(|l| l.starts_with("xtask: error:"))
            .all(|l| l.contains(".txt"))
    {
        Some(format!("case {n}: a failure that names no file: {err}"))
    } else if err.lines().count() != 1
        || err
            .lines()
            .any(|l| !l.starts_with("xtask: error: figures:") && !l.contains("figures drawn"))
    {
        Some(format!("case {n}: unexpected output: {err}"))
    } else {
        None
    };
    if problem.is_none() {
        let _ = fs::remove_dir_all(&dir);
    }
    problem
}

fn fuzz(cases: u64) {
    let files = originals();
    let root = std::env::temp_dir().join(format!("xtask-fig-fuzz-{}", std::process::id()));
    // The cases draw in as many threads as there are CPUs (drawing is not a measurement),
    // each thread taking every k-th case.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
    let mut bad: Vec<String> = std::thread::scope(|s| {
        let (files, root) = (&files, &root);
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    (t..cases)
                        .step_by(threads as usize)
                        .filter_map(|n| case(n, files, root))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a fuzz thread"))
            .collect()
    });
    bad.sort();
    if bad.is_empty() {
        let _ = fs::remove_dir_all(&root);
    }
    eprintln!("{cases} mutated runs drawn, {} problems", bad.len());
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn arbitrary_finite_values_never_hang_or_panic_a_drawer() {
    fuzz(40);
}

#[test]
#[ignore = "the full 2,000 cases take minutes: cargo test -p xtask -- --ignored"]
fn two_thousand_mutated_saved_files() {
    fuzz(2000);
}
