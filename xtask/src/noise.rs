//! `cargo xtask noise [--only A,B] [--out DIR] [--quick]`: are the experiments right on a busy
//! machine, or do they say so? (issue 21)
//!
//! Each chosen experiment runs four ways, one after the other: **quiet**; beside a **busy
//! loop** pinned to the experiment's own core (the highest allowed one, or `MM_CORE`); beside
//! a **memory streamer** pinned to another core, which competes for the last cache level and
//! memory; and **quiet again**, which shows how far a figure moves between two quiet runs (the
//! floor under any claim about the other two). The disturbers are this program's own child processes (`xtask
//! noise-busy CORE`, `xtask noise-stream CORE MIB`), started before the run and killed by pid
//! after it; each also ends by itself when its parent is gone. The runs use run-all's build
//! and run mechanics ([`crate::run_all::build`], [`crate::run_all::run_one`]).
//!
//! It writes `noise.md` and `noise.csv`: per key figure, the quiet value, each other value,
//! their ratio to the quiet one (a correlation, unit `r`, is compared by its difference), and whether the report marked it (from that run's `disturbance` block, for the
//! result the key figure comes from: [`crate::marks`]). Each run's raw output is kept in
//! `noise/<way>/<experiment>.txt` beside them. On a machine with one CPU the streamer way is
//! skipped, with one line.

use crate::error::{Result, bad, failed};
use crate::flags;
use crate::marks::Mark;
use measure::data::{DataFile, format_num};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A figure within this share of the quiet value has not moved.
pub const WITHIN: f64 = 0.10;
/// A correlation (unit `r`, from -1 to 1) has not moved when it changed by at most this
/// much: the ratio of two coefficients near zero says nothing.
pub const WITHIN_R: f64 = 0.10;

/// Whether a key figure comes from two threads or more (a result of the whole machine, which
/// a busy loop on one core must change), as its experiment's descriptor says
/// ([`crate::experiments::Threads`]): false_sharing's, and bandwidth's all-core read.
pub fn multi_threaded(experiment: &str, figure: &str) -> bool {
    crate::experiments::find(experiment).is_some_and(|e| e.multi_threaded(figure))
}

/// The four ways an experiment is run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Quiet,
    Busy,
    Stream,
    /// Quiet a second time: how far figures move between two quiet runs (the floor).
    Again,
}

impl Way {
    pub const ALL: [Way; 4] = [Way::Quiet, Way::Busy, Way::Stream, Way::Again];
    /// The folder name of its raw outputs and the prefix of its CSV columns.
    pub fn id(self) -> &'static str {
        match self {
            Way::Quiet => "quiet",
            Way::Busy => "busy",
            Way::Stream => "stream",
            Way::Again => "again",
        }
    }
}

/// Where the disturbers run, decided once.
pub struct Setup {
    /// The experiments' core (and the busy loop's).
    pub core: Option<usize>,
    /// Another allowed core, for the streamer.
    pub other: Option<usize>,
    /// The streamer's buffer.
    pub stream_mib: usize,
}

impl Setup {
    fn read() -> Result<Setup> {
        let core = measure::pin::default_core().map_err(bad)?;
        let other = measure::pin::allowed_cores()
            .into_iter()
            .find(|&c| Some(c) != core);
        // Four times the largest cache, so the stream goes to memory: 64 MiB to 1 GiB.
        let llc = measure::facts::MachineFacts::read().largest_cache();
        let stream_mib = llc
            .map_or(256, |b| ((4 * b) >> 20) as usize)
            .clamp(64, 1024);
        Ok(Setup {
            core,
            other,
            stream_mib,
        })
    }

    /// The line saying how `way` was disturbed, or why it was skipped (`Err`).
    pub fn describe(&self, way: Way) -> std::result::Result<String, String> {
        match (way, self.core, self.other) {
            (Way::Quiet, _, _) => Ok("quiet: nothing started beside it".into()),
            (Way::Again, _, _) => Ok("quiet again: nothing started beside it, a second time \
                 (how far the figures move between two quiet runs)"
                .into()),
            (Way::Busy, Some(c), _) => Ok(format!("busy loop: a spinning process on core {c}")),
            (Way::Busy, None, _) => Err("busy loop: skipped (no allowed core is known)".into()),
            (Way::Stream, _, Some(o)) => Ok(format!(
                "memory streamer: a process adding 1 to every word of {} MiB, over and over, \
                 on core {o}",
                self.stream_mib
            )),
            (Way::Stream, _, None) => {
                Err("memory streamer: skipped (one CPU: no other core to stream on)".into())
            }
        }
    }
}

/// A running disturber, killed (by its pid) and reaped when dropped.
struct Disturber(Child);

impl Disturber {
    fn start(args: &[String]) -> std::result::Result<Disturber, String> {
        let exe = std::env::current_exe().map_err(|e| format!("cannot find xtask: {e}"))?;
        let child = Command::new(exe)
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", args.join(" ")))?;
        let mut d = Disturber(child);
        // Give it time to pin itself and start; one that already ended has failed.
        std::thread::sleep(Duration::from_millis(200));
        match d.0.try_wait() {
            Ok(None) => Ok(d),
            _ => Err(format!("{} ended at once", args.join(" "))),
        }
    }
}

impl Drop for Disturber {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The disturber of `way`, started; `Ok(None)` for the quiet way.
fn disturb(way: Way, s: &Setup) -> std::result::Result<Option<Disturber>, String> {
    let args: Vec<String> = match way {
        Way::Quiet | Way::Again => return Ok(None),
        Way::Busy => vec!["noise-busy".into(), s.core.unwrap_or(0).to_string()],
        Way::Stream => vec![
            "noise-stream".into(),
            s.other.unwrap_or(0).to_string(),
            s.stream_mib.to_string(),
        ],
    };
    Disturber::start(&args).map(Some)
}

/// Pins the calling thread to `core`, saying so on stderr when refused.
fn pin(what: &str, core: usize) {
    let p = measure::pin::pin_current_thread(core);
    if !p.verified() {
        eprintln!("xtask {what}: pinning to core {core} refused; disturbing unpinned");
    }
}

/// Whether the process that started this one is gone (then a disturber ends too).
fn orphaned(parent: u32) -> bool {
    std::os::unix::process::parent_id() != parent
}

/// `xtask noise-busy CORE`: spin on `core` until killed (or orphaned).
pub fn busy(core: usize) -> Result<()> {
    pin("noise-busy", core);
    let parent = std::os::unix::process::parent_id();
    let mut x = 0u64;
    while !orphaned(parent) {
        for i in 0..1_000_000u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
    }
    Ok(())
}

/// `xtask noise-stream CORE MIB`: read and write every word of `mib` MiB on `core`, over and
/// over, until killed (or orphaned).
pub fn stream(core: usize, mib: usize) -> Result<()> {
    pin("noise-stream", core);
    let parent = std::os::unix::process::parent_id();
    let mut v = vec![1u64; mib.clamp(1, 4096) << 17];
    while !orphaned(parent) {
        for w in v.iter_mut() {
            *w = w.wrapping_add(1);
        }
        std::hint::black_box(&mut v);
    }
    Ok(())
}

/// One experiment's four runs: each the saved output, or why there is none.
pub struct Runs {
    pub name: String,
    pub ways: Vec<(Way, std::result::Result<DataFile, String>)>,
}

impl Runs {
    pub fn get(&self, way: Way) -> Option<&DataFile> {
        self.ways
            .iter()
            .find(|(w, _)| *w == way)
            .and_then(|(_, r)| r.as_ref().ok())
    }
}

/// `cargo xtask noise`.
pub fn command(o: &flags::Noise) -> Result<()> {
    let plan = crate::run_all::Plan::new(&flags::RunAll {
        quick: o.quick,
        only: o.only.clone(),
        label: None,
        out: None,
        timeout_s: None,
    })?;
    let out = o.out.clone().unwrap_or_else(|| plan.dest.clone());
    fs::create_dir_all(out.join("noise"))
        .map_err(|e| bad(format!("--out {}: not writable: {e}", out.display())))?;
    let setup = Setup::read()?;
    let runs = if o.saved {
        saved_ways(&plan.chosen, &setup, &out.join("noise"))
    } else {
        let bins = crate::run_all::build()?;
        run_all_ways(&plan, &setup, &bins, &out)
    };
    let rows = figure_rows(&runs);
    let md = noise_md(&plan, &setup, &runs, &rows);
    fs::write(out.join("noise.md"), &md)
        .and_then(|_| fs::write(out.join("noise.csv"), noise_csv(&rows)))
        .map_err(|e| failed(format!("cannot write into {}: {e}", out.display())))?;
    for l in verdicts(&rows, &setup) {
        println!("{}", measure::fmt::wrap_to(&l, "", "  ", 100).trim_end());
    }
    eprintln!("noise: {} and noise.csv", out.join("noise.md").display());
    let bad_runs: Vec<String> = runs
        .iter()
        .flat_map(|r| r.ways.iter().map(move |(w, x)| (r, w, x)))
        .filter(|(_, _, x)| x.as_ref().is_err_and(|e| !e.contains("skipped")))
        .map(|(r, w, _)| format!("{} ({})", r.name, w.id()))
        .collect();
    if bad_runs.is_empty() {
        Ok(())
    } else {
        Err(failed(format!("failed: {}", bad_runs.join(", "))))
    }
}

/// Runs every chosen experiment quiet, beside the busy loop, and beside the streamer.
fn run_all_ways(plan: &crate::run_all::Plan, s: &Setup, bins: &Path, out: &Path) -> Vec<Runs> {
    let stamp = crate::run_all::Stamp {
        utc: crate::project::utc_now(),
        commit: crate::project::commit().unwrap_or_else(|| "unknown".into()),
    };
    for way in Way::ALL {
        match s.describe(way) {
            Ok(l) | Err(l) => eprintln!("noise: {l}"),
        }
    }
    let n = plan.chosen.len();
    let mut all = Vec::new();
    for (i, exp) in plan.chosen.iter().enumerate() {
        let mut r = Runs {
            name: exp.to_string(),
            ways: Vec::new(),
        };
        for way in Way::ALL {
            eprintln!("[{}/{n}] {exp}, {} ...", i + 1, way.id());
            let taken = run_way(way, s, bins, exp, plan, &out.join("noise"), &stamp);
            r.ways.push((way, taken));
        }
        all.push(r);
    }
    all
}

/// Every chosen experiment's runs as saved in `dir` (`<way>/<experiment>.txt`) by an earlier
/// noise run, read back, measuring nothing: a run not saved there is named as missing, and a
/// way this machine skips is skipped.
fn saved_ways(chosen: &[&str], s: &Setup, dir: &Path) -> Vec<Runs> {
    let read = |way: Way, exp: &str| {
        s.describe(way)?;
        let file = dir.join(way.id()).join(format!("{exp}.txt"));
        let text = fs::read_to_string(&file)
            .map_err(|e| format!("no saved run ({}: {e})", file.display()))?;
        measure::data::parse(&text).map_err(|e| format!("{}: {e}", file.display()))
    };
    chosen
        .iter()
        .map(|exp| Runs {
            name: exp.to_string(),
            ways: Way::ALL.iter().map(|&w| (w, read(w, exp))).collect(),
        })
        .collect()
}

/// One run of `exp` the way `way`: its saved output, or why there is none.
fn run_way(
    way: Way,
    s: &Setup,
    bins: &Path,
    exp: &str,
    plan: &crate::run_all::Plan,
    dir: &Path,
    stamp: &crate::run_all::Stamp,
) -> std::result::Result<DataFile, String> {
    s.describe(way)?;
    let dir: PathBuf = dir.join(way.id());
    // run-all's mechanics write CSV files too: only the outputs are kept, in `dir`.
    let tmp = dir.join(format!(".tmp-{}", std::process::id()));
    fs::create_dir_all(&tmp).map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
    let disturber = disturb(way, s)?;
    let o = crate::run_all::run_one(bins, exp, plan.quick, s.core, &tmp, stamp, plan.timeout);
    drop(disturber);
    for e in fs::read_dir(&tmp).into_iter().flatten().flatten() {
        let name = e.file_name();
        if name.to_string_lossy().ends_with(".txt") {
            let _ = fs::rename(e.path(), dir.join(name));
        }
    }
    let _ = fs::remove_dir_all(&tmp);
    o.saved.ok_or(o.status)
}

/// One key figure, four ways: its value and mark in each (`None`: no value / not recorded).
#[derive(Clone, Debug, PartialEq)]
pub struct FigRow {
    pub experiment: String,
    pub figure: String,
    pub unit: String,
    /// Quiet, busy, stream, quiet again.
    pub values: [Option<f64>; 4],
    pub marks: [Option<Mark>; 4],
}

impl FigRow {
    /// The value of `way` over the quiet one.
    pub fn ratio(&self, way: Way) -> Option<f64> {
        let (q, v) = (self.values[0]?, self.values[way as usize]?);
        (q != 0.0 && q.is_finite() && v.is_finite()).then(|| v / q)
    }

    /// Whether the reports marked the result `way`'s figure comes from (provisional or
    /// contention). A move between the two quiet runs is explained by a mark at either end:
    /// the run that read differently may be the first.
    pub fn marked(&self, way: Way) -> bool {
        let at = |w: Way| self.marks[w as usize].is_some_and(Mark::any);
        at(way) || (way == Way::Again && at(Way::Quiet))
    }

    /// Whether `way` moved the figure by more than [`WITHIN`] (a correlation: by more than
    /// [`WITHIN_R`]).
    pub fn moved(&self, way: Way) -> Option<bool> {
        if self.unit == "r" {
            let (q, v) = (self.values[0]?, self.values[way as usize]?);
            return (q.is_finite() && v.is_finite()).then(|| (v - q).abs() > WITHIN_R);
        }
        self.ratio(way).map(|r| (r - 1.0).abs() > WITHIN)
    }

    /// Whether `way` left the range the two quiet runs span by more than [`WITHIN`] of its
    /// ends (a correlation: by more than [`WITHIN_R`]): a move the host's own drift between
    /// two quiet runs does not explain.
    pub fn beyond_quiet(&self, way: Way) -> Option<bool> {
        let (q, a) = (self.values[0]?, self.values[Way::Again as usize]?);
        let v = self.values[way as usize]?;
        if ![q, a, v].iter().all(|x| x.is_finite()) {
            return None;
        }
        let (lo, hi) = (q.min(a), q.max(a));
        let (lo, hi) = if self.unit == "r" {
            (lo - WITHIN_R, hi + WITHIN_R)
        } else {
            (lo - WITHIN * lo.abs(), hi + WITHIN * hi.abs())
        };
        Some(v < lo || v > hi)
    }

    pub fn multi_threaded(&self) -> bool {
        multi_threaded(&self.experiment, &self.figure)
    }
}

/// Every key figure of every experiment's quiet run (or, where the quiet run failed, of the
/// first run that has them), with its value and mark each way.
pub fn figure_rows(runs: &[Runs]) -> Vec<FigRow> {
    let mut out = Vec::new();
    for r in runs {
        let Some(first) = Way::ALL.iter().find_map(|&w| r.get(w)) else {
            continue;
        };
        for k in measure::key::read(first) {
            let mut row = FigRow {
                experiment: r.name.clone(),
                figure: k.name.clone(),
                unit: k.unit.clone(),
                values: [None; 4],
                marks: [None; 4],
            };
            for w in Way::ALL {
                if let Some(f) = r.get(w) {
                    row.values[w as usize] = measure::key::find(f, &k.name).and_then(|x| x.value);
                    row.marks[w as usize] = crate::experiments::key_mark(f, &r.name, &k.name);
                }
            }
            out.push(row);
        }
    }
    out
}

/// What a run's report said about a figure, in a cell.
fn mark_cell(m: Option<Mark>) -> String {
    match m {
        None => "not recorded".into(),
        Some(m) if !m.any() => "no".into(),
        Some(m) => m.words(),
    }
}

fn value_cell(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| measure::fmt::sig(v, 4))
}

fn ratio_cell(r: Option<f64>) -> String {
    r.map_or("-".into(), |r| format!("{}x", measure::fmt::sig(r, 3)))
}

/// The verdicts, computed from the rows: one line per way.
pub fn verdicts(rows: &[FigRow], s: &Setup) -> Vec<String> {
    let mut out = Vec::new();
    // Marked in either quiet run.
    let q = rows.iter().filter(|r| r.marked(Way::Again)).count();
    let quiet = if q == 0 {
        format!("quiet: no mark on any of {} key figures", rows.len())
    } else {
        format!(
            "quiet: {q} of {} key figures marked in one of the two quiet runs (it was not quiet)",
            rows.len()
        )
    };
    out.push(quiet + &not_recorded(rows, Way::Quiet) + ".");
    for way in [Way::Again, Way::Busy, Way::Stream] {
        let what = match s.describe(way) {
            Ok(_) if way == Way::Again => "quiet again (the floor)",
            Ok(_) if way == Way::Busy => "beside the busy loop on the same core",
            Ok(_) => "beside the memory streamer on another core",
            Err(skipped) => {
                out.push(skipped);
                continue;
            }
        };
        out.push(way_verdict(rows, way, what));
    }
    out
}

/// "beside ...: 41 of 46 key figures within 10% of the quiet run's; of the 5 that moved more,
/// 5 were marked (provisional or contention)".
fn way_verdict(rows: &[FigRow], way: Way, what: &str) -> String {
    let both: Vec<&FigRow> = rows.iter().filter(|r| r.moved(way).is_some()).collect();
    let moved: Vec<&&FigRow> = both.iter().filter(|r| r.moved(way) == Some(true)).collect();
    let marked = moved.iter().filter(|r| r.marked(way)).count();
    let unmarked: Vec<String> = moved
        .iter()
        .filter(|r| !r.marked(way))
        .map(|r| format!("{} {}", r.experiment, r.figure))
        .collect();
    let contention = moved
        .iter()
        .filter(|r| r.marks[way as usize].is_some_and(|m| m.contended))
        .count();
    let mut s = format!(
        "{what}: {} of {} key figures within {:.0}% of the quiet run's",
        both.len() - moved.len(),
        both.len(),
        WITHIN * 100.0
    );
    let single: Vec<&&FigRow> = both.iter().filter(|r| !r.multi_threaded()).collect();
    if single.len() < both.len() {
        let held = single
            .iter()
            .filter(|r| r.moved(way) == Some(false))
            .count();
        s.push_str(&format!(
            " ({held} of the {} from single-threaded runs)",
            single.len()
        ));
    }
    if !moved.is_empty() {
        s.push_str(&format!(
            "; of the {} that moved more, {marked} were marked{} (provisional or contention; \
             {contention} named as contention)",
            moved.len(),
            if way == Way::Again {
                " in one quiet run or the other"
            } else {
                ""
            }
        ));
        let floor = moved
            .iter()
            .filter(|r| r.moved(Way::Again) == Some(true))
            .count();
        if way != Way::Again && floor > 0 {
            s.push_str(&format!(
                "; {floor} of them also moved that much between the two quiet runs"
            ));
        }
    }
    if way != Way::Again {
        s.push_str(&beside_the_floor(rows, way));
    }
    if !unmarked.is_empty() {
        s.push_str(&format!("; moved but not marked: {}", unmarked.join(", ")));
    }
    s + &not_recorded(rows, way) + "."
}

/// "; against both quiet runs: 80 of the 85 single-threaded figures within 10% of the range
/// they span (the host's own drift set aside)"; empty without a second quiet run.
fn beside_the_floor(rows: &[FigRow], way: Way) -> String {
    let judged: Vec<bool> = rows
        .iter()
        .filter(|r| !r.multi_threaded())
        .filter_map(|r| r.beyond_quiet(way))
        .collect();
    if judged.is_empty() {
        return String::new();
    }
    let held = judged.iter().filter(|b| !**b).count();
    format!(
        "; against both quiet runs: {held} of the {} single-threaded figures within {:.0}% of \
         the range they span (the host's own drift set aside)",
        judged.len(),
        WITHIN * 100.0
    )
}

/// " (N of the figures from runs that recorded no evidence ...)", where there are such.
fn not_recorded(rows: &[FigRow], way: Way) -> String {
    let n = rows
        .iter()
        .filter(|r| r.values[way as usize].is_some() && r.marks[way as usize].is_none())
        .count();
    if n == 0 {
        String::new()
    } else {
        format!(" ({n} of the figures from runs that recorded no evidence of disturbance)")
    }
}

/// `noise.md`.
fn noise_md(plan: &crate::run_all::Plan, s: &Setup, runs: &[Runs], rows: &[FigRow]) -> String {
    let mut m = String::new();
    let _ = writeln!(m, "# Noise: {}\n", plan.label);
    let first = runs
        .iter()
        .find_map(|r| Way::ALL.iter().find_map(|&w| r.get(w)));
    let _ = writeln!(
        m,
        "Each experiment ran four ways, one after the other ({} runs), started {}, commit {}:\n",
        match first.and_then(|f| f.meta("quick")) {
            Some("yes") => "quick",
            None if plan.quick => "quick",
            _ => "full",
        },
        first.and_then(|f| f.meta("saved_utc")).unwrap_or("unknown"),
        first
            .and_then(|f| f.meta("saved_commit"))
            .unwrap_or("unknown"),
    );
    for way in Way::ALL {
        let _ = writeln!(m, "- {}", s.describe(way).unwrap_or_else(|e| e));
    }
    let _ = writeln!(m, "\n## Verdicts\n");
    for l in verdicts(rows, s) {
        let _ = writeln!(m, "- {l}");
    }
    by_experiment(&mut m, runs, rows);
    causes_table(&mut m, runs);
    let _ = writeln!(
        m,
        "\n## Key figures\n\n\"marked\" is what that run's report said about the result the \
         figure comes from: provisional (its rounds were disturbed), contention (other cores \
         shared the last cache level and memory with it), no, or not recorded (an experiment \
         that does not record the evidence). A correlation (unit r) has moved when it changed \
         by more than {WITHIN_R}; the figures of runs with two threads or more are marked \
         (2+ threads).\n\n| experiment | figure | unit | quiet | again | ratio | busy loop | \
         ratio | marked | streamer | ratio | marked |\n\
         |---|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|"
    );
    for r in rows {
        let _ = writeln!(
            m,
            "| {} | {}{} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            r.experiment,
            r.figure,
            if r.multi_threaded() {
                " (2+ threads)"
            } else {
                ""
            },
            r.unit,
            marks_if(r.marks[0], value_cell(r.values[0])),
            marks_if(r.marks[3], value_cell(r.values[3])),
            ratio_cell(r.ratio(Way::Again)),
            value_cell(r.values[1]),
            ratio_cell(r.ratio(Way::Busy)),
            mark_cell(r.marks[1]),
            value_cell(r.values[2]),
            ratio_cell(r.ratio(Way::Stream)),
            mark_cell(r.marks[2]),
        );
    }
    let _ = writeln!(
        m,
        "\n## Runs\n\n| experiment | quiet | busy loop | streamer | quiet again |\n|---|---|---|---|---|"
    );
    for r in runs {
        let cell = |w: Way| match r.ways.iter().find(|(x, _)| *x == w) {
            Some((_, Ok(_))) => format!("`noise/{}/{}.txt`", w.id(), r.name),
            Some((_, Err(e))) => e.clone(),
            None => "-".into(),
        };
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} |",
            r.name,
            cell(Way::Quiet),
            cell(Way::Busy),
            cell(Way::Stream),
            cell(Way::Again)
        );
    }
    m
}

/// One way's results across every experiment, counted by why they are provisional, and the
/// blocks taken again because the core's share was unsteady.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Causes {
    pub results: usize,
    pub provisional: usize,
    pub moved: usize,
    pub low: usize,
    /// The memory reference moved during a memory-bound block (the first cause).
    pub memory: usize,
    /// Memory-bound results (those that read the memory reference), and of those the ones
    /// whose reference moved, whatever cause their report names first.
    pub memory_bound: usize,
    pub memory_moved_any: usize,
    pub rounds: usize,
    pub retaken: usize,
    /// Taken again, and the kept take's share was steady.
    pub steady: usize,
}

/// [`Causes`] of `way` over `runs`.
pub fn causes(runs: &[Runs], way: Way) -> Causes {
    use crate::marks::Cause;
    let mut c = Causes::default();
    let recorded = runs
        .iter()
        .filter_map(|r| r.get(way))
        .filter_map(crate::marks::read)
        .flat_map(|e| e.results);
    for r in recorded {
        c.results += 1;
        let cause = r.cause();
        c.provisional += usize::from(cause.is_some());
        c.moved += usize::from(cause == Some(Cause::ShareMoved));
        c.low += usize::from(cause == Some(Cause::ShareLow));
        c.memory += usize::from(cause == Some(Cause::MemoryMoved));
        c.memory_bound += usize::from(r.memory.is_some());
        c.memory_moved_any += usize::from(r.memory_moved());
        c.rounds += usize::from(cause == Some(Cause::Rounds));
        if r.takes.is_some_and(|t| t > 1.0) {
            c.retaken += 1;
            c.steady += usize::from(!matches!(
                cause,
                Some(Cause::ShareMoved | Cause::ShareLow | Cause::MemoryMoved)
            ));
        }
    }
    c
}

/// The section "What made results provisional": per way, the results by cause, and the
/// blocks taken again.
fn causes_table(m: &mut String, runs: &[Runs]) {
    let _ = writeln!(
        m,
        "\n## What made results provisional\n\nEvery result the experiments recorded (a block \
         or a part of one), by the first cause its report names: the core's share moved \
         during the block, it read low at either end (against the best on that core), the \
         memory reference moved during a memory-bound block, or the rounds were disturbed. \
         \"Taken again\": blocks retaken because the share or the memory was unsteady, and how \
         many of those then ran steady. \"Memory-bound\": the results that read the memory \
         reference, and in how many it moved, whatever cause came first.\n\n| way | results | \
         provisional | share moved | share low | memory moved | disturbed rounds | taken again \
         | then steady | memory-bound: moved |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for way in Way::ALL {
        let c = causes(runs, way);
        if c.results == 0 {
            continue;
        }
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} of {} |",
            way.id(),
            c.results,
            c.provisional,
            c.moved,
            c.low,
            c.memory,
            c.rounds,
            c.retaken,
            c.steady,
            c.memory_moved_any,
            c.memory_bound
        );
    }
}

/// Per experiment, for the quiet-again run and each disturbed way: "within / compared" and
/// "marked / moved".
fn by_experiment(m: &mut String, runs: &[Runs], rows: &[FigRow]) {
    let _ = writeln!(
        m,
        "\n| experiment | quiet again: within {0:.0}% | moved, marked | busy loop: within {0:.0}% \
         | moved, marked | streamer: within {0:.0}% | moved, marked |\n|---|---:|---:|---:|---:|---:|---:|",
        WITHIN * 100.0
    );
    for r in runs {
        let mine: Vec<&FigRow> = rows.iter().filter(|x| x.experiment == r.name).collect();
        let cells = [Way::Busy, Way::Stream, Way::Again].map(|w| {
            let both = mine.iter().filter(|x| x.moved(w).is_some()).count();
            let moved: Vec<&&FigRow> = mine.iter().filter(|x| x.moved(w) == Some(true)).collect();
            let marked = moved.iter().filter(|x| x.marked(w)).count();
            (
                format!("{} of {both}", both - moved.len()),
                format!("{marked} of {}", moved.len()),
            )
        });
        let _ = writeln!(
            m,
            "| {} | {} | {} | {} | {} | {} | {} |",
            r.name, cells[2].0, cells[2].1, cells[0].0, cells[0].1, cells[1].0, cells[1].1
        );
    }
}

/// A quiet value with its mark, where the quiet run marked it.
fn marks_if(m: Option<Mark>, v: String) -> String {
    m.map_or(v.clone(), |m| m.on(&v))
}

/// The CSV columns of `noise.csv`.
pub const CSV_HEADER: &str = "experiment,figure,unit,quiet,quiet_marked,busy,busy_ratio,\
                              busy_marked,stream,stream_ratio,stream_marked,again,again_ratio,\
                              again_marked,threads";

/// `noise.csv`: one line per key figure; empty cells where there is no value.
pub fn noise_csv(rows: &[FigRow]) -> String {
    let num = |v: Option<f64>| v.map_or(String::new(), format_num);
    let header = CSV_HEADER.split(',').map(String::from).collect();
    let lines = rows.iter().map(|r| {
        vec![
            r.experiment.clone(),
            r.figure.clone(),
            r.unit.clone(),
            num(r.values[0]),
            mark_cell(r.marks[0]),
            num(r.values[1]),
            num(r.ratio(Way::Busy)),
            mark_cell(r.marks[1]),
            num(r.values[2]),
            num(r.ratio(Way::Stream)),
            mark_cell(r.marks[2]),
            num(r.values[3]),
            num(r.ratio(Way::Again)),
            mark_cell(r.marks[3]),
            if r.multi_threaded() { "2+" } else { "1" }.into(),
        ]
    });
    crate::csv_text::lines(std::iter::once(header).chain(lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(figs: &[(&str, f64)], dist: Option<(bool, bool)>) -> DataFile {
        let mut t = String::from("#DATA-BEGIN key_figures\n#COLUMNS figure:text value unit:text\n");
        for (n, v) in figs {
            t.push_str(&format!("#DATA {n} {v} ns\n"));
        }
        t.push_str("#DATA-END\n");
        if let Some((p, c)) = dist {
            t.push_str(&crate::marks::tests::block_text(&[(
                "latency", 21, 9, p, c,
            )]));
        }
        measure::data::parse(&t).unwrap()
    }

    fn setup(other: Option<usize>) -> Setup {
        Setup {
            core: Some(1),
            other,
            stream_mib: 64,
        }
    }

    /// `--saved` reads each way's run back from `<way>/<experiment>.txt`; a run not saved is
    /// named as missing, and a way this machine skips stays skipped.
    #[test]
    fn saved_runs_are_read_back() {
        let dir = std::env::temp_dir().join(format!("mm-noise-saved-{}", std::process::id()));
        let text = "#DATA-BEGIN key_figures\n#COLUMNS figure:text value unit:text\n\
                    #DATA mispredict 7.5 ns\n#DATA-END\n";
        for way in [Way::Quiet, Way::Busy] {
            fs::create_dir_all(dir.join(way.id())).unwrap();
            fs::write(dir.join(way.id()).join("branch.txt"), text).unwrap();
        }
        let runs = saved_ways(&["branch"], &setup(None), &dir);
        let _ = fs::remove_dir_all(&dir);
        assert_eq!(runs.len(), 1);
        assert!(runs[0].get(Way::Quiet).is_some() && runs[0].get(Way::Busy).is_some());
        let why = |w: Way| {
            runs[0]
                .ways
                .iter()
                .find(|(x, _)| *x == w)
                .unwrap()
                .1
                .clone()
        };
        assert!(why(Way::Again).is_err_and(|e| e.starts_with("no saved run")));
        assert!(why(Way::Stream).is_err_and(|e| e.contains("skipped")));
        let rows = figure_rows(&runs);
        assert_eq!(rows[0].values[..2], [Some(7.5), Some(7.5)]);
    }

    /// Results are counted by their first cause, as the reports name them, and the blocks
    /// taken again by whether the kept take was steady.
    #[test]
    fn provisional_results_are_counted_by_cause() {
        use measure::schema::disturbance as d;
        let mut t = format!(
            "#DATA-BEGIN {}\n#COLUMNS {}\n",
            d::BLOCK,
            d::COLUMNS.join(" ")
        );
        for (r, p, share) in [
            ("moved", "yes", "3.6 2.0 3.7 3 NA NA"),
            ("low", "yes", "2.1 2.2 3.7 1 NA NA"),
            ("memory", "yes", "3.6 3.6 3.7 3 180 260"),
            ("rounds", "yes", "3.6 3.6 3.7 2 180 190"),
            ("clean", "no", "3.6 3.6 3.7 1 NA NA"),
            ("unread", "no", "NA NA NA NA NA NA"),
        ] {
            t.push_str(&format!("#DATA {r} 31 0 0 0 0 0 {p} no {share}\n"));
        }
        t.push_str("#DATA-END\n");
        let runs = vec![Runs {
            name: "x".into(),
            ways: vec![(Way::Quiet, Ok(measure::data::parse(&t).unwrap()))],
        }];
        let c = causes(&runs, Way::Quiet);
        let want = Causes {
            results: 6,
            provisional: 4,
            moved: 1,
            low: 1,
            memory: 1,
            memory_bound: 2,
            memory_moved_any: 1,
            rounds: 1,
            retaken: 3,
            steady: 1,
        };
        assert_eq!(c, want);
        assert_eq!(causes(&runs, Way::Busy), Causes::default());
        let mut m = String::new();
        causes_table(&mut m, &runs);
        assert!(
            m.contains("| quiet | 6 | 4 | 1 | 1 | 1 | 1 | 3 | 1 | 1 of 2 |\n"),
            "{m}"
        );
        assert!(!m.contains("| busy |"), "a way without runs has no row");
    }

    /// A move between the two quiet runs is explained by a mark in either; a move beside a
    /// disturber only by that run's own mark.
    #[test]
    fn a_quiet_move_is_marked_at_either_end() {
        let none = Mark::default();
        let provisional = Mark {
            provisional: true,
            ..none
        };
        let row = |quiet, again| FigRow {
            experiment: "branch".into(),
            figure: "mispredict".into(),
            unit: "ns".into(),
            values: [Some(7.7), Some(7.3), Some(7.1), Some(6.9)],
            marks: [Some(quiet), Some(none), Some(none), Some(again)],
        };
        assert!(
            row(provisional, none).marked(Way::Again),
            "the first run marked"
        );
        assert!(row(none, provisional).marked(Way::Again));
        assert!(!row(none, none).marked(Way::Again));
        assert!(
            !row(provisional, none).marked(Way::Busy),
            "busy's own mark only"
        );
        assert!(!row(provisional, provisional).marked(Way::Stream));
    }

    #[test]
    fn verdicts_count_moved_and_marked_figures() {
        let runs = vec![Runs {
            name: "cache_ladder".into(),
            ways: vec![
                (
                    Way::Quiet,
                    Ok(run(
                        &[("first_index_ns", 1.0), ("x", 5.0)],
                        Some((false, false)),
                    )),
                ),
                (
                    Way::Busy,
                    Ok(run(
                        &[("first_index_ns", 2.0), ("x", 5.2)],
                        Some((true, false)),
                    )),
                ),
                (
                    Way::Stream,
                    Ok(run(&[("first_index_ns", 1.5), ("x", 9.0)], None)),
                ),
                (
                    Way::Again,
                    Ok(run(
                        &[("first_index_ns", 1.05), ("x", 4.0)],
                        Some((false, false)),
                    )),
                ),
            ],
        }];
        let rows = figure_rows(&runs);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].ratio(Way::Busy), Some(2.0));
        let v = verdicts(&rows, &setup(Some(0)));
        assert_eq!(v[0], "quiet: no mark on any of 2 key figures.");
        assert!(
            v[1].starts_with("quiet again (the floor): 1 of 2 key figures within 10%"),
            "{}",
            v[1]
        );
        assert!(v[2].contains("1 of 2 key figures within 10%"), "{}", v[2]);
        assert!(
            v[2].contains("of the 1 that moved more, 1 were marked"),
            "{}",
            v[2]
        );
        // Against the range of both quiet runs: x (4 to 5, busy 5.2) held, first_index_ns
        // (1 to 1.05, busy 2) did not; beside the streamer neither did.
        assert_eq!(rows[1].beyond_quiet(Way::Busy), Some(false));
        assert_eq!(rows[0].beyond_quiet(Way::Busy), Some(true));
        assert!(
            v[2].contains("against both quiet runs: 1 of the 2 single-threaded figures within 10%"),
            "{}",
            v[2]
        );
        assert!(
            v[3].contains("against both quiet runs: 0 of the 2"),
            "{}",
            v[3]
        );
        assert!(!v[1].contains("against both quiet runs"), "{}", v[1]);
        // The streamer run recorded no evidence: not marked, and named as such.
        assert!(v[3].contains("moved but not marked: cache_ladder first_index_ns, cache_ladder x"));
        assert!(
            v[3].ends_with(
                "(2 of the figures from runs that recorded no evidence of disturbance)."
            )
        );
        let csv = noise_csv(&rows);
        assert!(csv.starts_with(CSV_HEADER));
        assert!(
            csv.contains(
                "cache_ladder,first_index_ns,ns,1,no,2,2,provisional,1.5,1.5,not recorded,1.05,1.05,no,1"
            ),
            "{csv}"
        );
    }

    #[test]
    fn the_streamer_s_moves_are_counted_as_contention_when_named_so() {
        let runs = vec![Runs {
            name: "cache_ladder".into(),
            ways: vec![
                (
                    Way::Quiet,
                    Ok(run(&[("largest_index_ns", 100.0)], Some((false, false)))),
                ),
                (Way::Busy, Err("failed (exit status 1)".into())),
                (
                    Way::Stream,
                    Ok(run(&[("largest_index_ns", 130.0)], Some((false, true)))),
                ),
            ],
        }];
        let v = verdicts(&figure_rows(&runs), &setup(Some(0)));
        assert!(
            v[2].contains("0 of 0 key figures"),
            "a failed run compares nothing: {}",
            v[2]
        );
        assert!(
            v[3].contains("of the 1 that moved more, 1 were marked")
                && v[3].contains("1 named as contention"),
            "{}",
            v[3]
        );
    }

    #[test]
    fn correlations_move_by_difference_and_two_thread_figures_are_counted_apart() {
        let row = |exp: &str, fig: &str, unit: &str, q: f64, b: f64| FigRow {
            experiment: exp.into(),
            figure: fig.into(),
            unit: unit.into(),
            values: [Some(q), Some(b), None, None],
            marks: [None; 4],
        };
        // -0.05 to -0.02 is a ratio of 0.4 but no change in a correlation; 0.0 to 0.3 is.
        assert_eq!(
            row("e", "c", "r", -0.05, -0.02).moved(Way::Busy),
            Some(false)
        );
        assert_eq!(row("e", "c", "r", 0.0, 0.3).moved(Way::Busy), Some(true));
        assert_eq!(row("e", "c", "x", 1.0, 1.2).moved(Way::Busy), Some(true));
        let rows = [
            row("false_sharing", "atomic_2t", "ns", 7.0, 9.0),
            row("bandwidth", "all_cores_read_gbs", "GB/s", 40.0, 28.0),
            row("bandwidth", "l1_read_gbs", "GB/s", 480.0, 481.0),
        ];
        assert!(rows[0].multi_threaded() && rows[1].multi_threaded());
        assert!(!rows[2].multi_threaded());
        let v = way_verdict(&rows, Way::Busy, "busy");
        assert!(!v.contains("between the two quiet runs"), "{v}");
        let mut floor = rows.clone();
        floor[0].values[3] = Some(9.0);
        let v2 = way_verdict(&floor, Way::Busy, "busy");
        assert!(
            v2.contains("; 1 of them also moved that much between the two quiet runs"),
            "{v2}"
        );
        assert!(
            v.starts_with(
                "busy: 1 of 3 key figures within 10% of the quiet run's (1 of the 1 from \
                 single-threaded runs)"
            ),
            "{v}"
        );
    }

    #[test]
    fn one_cpu_skips_the_streamer_with_one_line() {
        let v = verdicts(&[], &setup(None));
        assert_eq!(v.len(), 4);
        assert!(
            v[3].starts_with("memory streamer: skipped (one CPU"),
            "{v:?}"
        );
        assert!(setup(None).describe(Way::Stream).is_err());
    }
}
