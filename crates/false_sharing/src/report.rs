//! What the experiment prints besides its verdicts: the set-up lines of section 0, the tables
//! of sections 1 to 5 with their `#DATA` blocks, and the warnings under a table (rows better
//! than a perfect split, rounds in which other work took a core). The verdict sentences are
//! in `main.rs`, beside the sections they conclude.

use crate::SUSPICIOUS_BELOW;
use crate::c2c;
use crate::cores::{self, Core};
use crate::lab::{self, Lab, Measured, Plan, Work, find};
use measure::data::{Block, Value, meta};
use measure::facts::Fact;
use measure::stats::Summary;

/// Section 0: the cores, their layout, the cache line and how the threads are placed, each
/// also as `#META`.
pub fn setup(cores: &[Core], limited: bool, line: &Fact, pinned: bool) {
    let ids = cores::list(cores.iter().map(|c| c.id));
    println!(
        "  cores this run may use : {} ({ids}){}",
        cores.len(),
        if limited { " (limited by --cores)" } else { "" }
    );
    topology(cores);
    match line.value {
        Some(l) => println!(
            "  cache line             : {l} bytes ({}) -> two slots closer than {l} bytes share a line",
            line.source.map_or("?".into(), |s| s.to_string())
        ),
        None => println!(
            "  cache line             : unknown (no source reports it): which slots share a line cannot be said"
        ),
    }
    println!(
        "  placement              : {}",
        if pinned {
            "each worker thread pins itself to its own core and reads back sched_getcpu (main thread unpinned)"
        } else {
            "--no-pin: threads go where the scheduler puts them; where each one ran is read back"
        }
    );
    meta("fs_cores", ids);
    meta("fs_pinning", if pinned { "pinned" } else { "unpinned" });
    meta(
        "fs_line_bytes",
        line.value.map_or("unknown".into(), |l| l.to_string()),
    );
}

/// What the kernel says about the cores' physical layout.
fn topology(cores: &[Core]) {
    let known = cores
        .iter()
        .all(|c| c.package.is_some() && c.core.is_some());
    if !known {
        println!(
            "  topology               : unknown (sysfs does not say which cores are SMT siblings)"
        );
        meta("fs_topology", "unknown");
        return;
    }
    let mut sib = Vec::new();
    for (i, a) in cores.iter().enumerate() {
        for b in &cores[i + 1..] {
            if a.smt_siblings(b) == Some(true) {
                sib.push(format!("{}+{}", a.id, b.id));
            }
        }
    }
    let mut packages: Vec<usize> = cores.iter().filter_map(|c| c.package).collect();
    packages.sort_unstable();
    packages.dedup();
    let pairs = |none: &str, sep: &str| {
        if sib.is_empty() {
            none.to_string()
        } else {
            sib.join(sep)
        }
    };
    println!(
        "  topology (sysfs)       : {} package(s); SMT siblings: {}",
        packages.len(),
        pairs("none among these cores", " ")
    );
    println!(
        "  team order             : {} (one logical CPU per physical core first)",
        cores::list(cores.iter().map(|c| c.id))
    );
    meta(
        "fs_topology",
        format!(
            "packages {} smt_pairs {}",
            packages.len(),
            pairs("none", ",")
        ),
    );
}

/// How much work each run of sections 1 to 4 does.
pub fn plan(plan: &Plan) {
    println!(
        "  work per run           : {} increments per thread (sections 1-2), {} (section 3),\n  \
         {:25}{} atomic, {} under the mutex; {} rounds per set, interleaved, after a warm-up",
        plan.slot_iters, plan.team_iters, "", plan.atomic_iters, plan.mutex_iters, plan.rounds
    );
}

/// Section 1: the baseline, the core it ran on, and why it is comparable with section 2.
pub fn baseline(base: &Measured) -> Summary {
    let b = base.summary();
    println!(
        "  one thread, volatile load + store each time : {} each (min {} .. max {}) over {} rounds\n  \
         core: {}",
        ns(b.median),
        ns(b.min),
        ns(b.max),
        b.n,
        base.cores_note()
    );
    println!(
        "  * measured in the same rounds as section 2, between its runs, so drift hits both alike."
    );
    b
}

/// The `baseline` block: the one-thread baseline of every set, measured in that set's rounds.
pub struct Baselines(Block);

impl Default for Baselines {
    fn default() -> Baselines {
        let columns = [&["set:text", "rounds", "cores:text"][..], &SPREAD].concat();
        Baselines(Block::new("baseline", &columns))
    }
}

impl Baselines {
    /// Records `m`, the baseline of set `set`.
    pub fn add(&mut self, set: &str, lab: &Lab, m: &Measured) {
        let b = m.summary();
        let mut row = vec![set.into(), b.n.into(), lab.team_cores(1).into()];
        row.extend(spread(&b));
        self.0.row(row);
    }

    pub fn print(&self) {
        self.0.print();
    }
}

/// A table printed row by row: its `#DATA` block (printed after the verdicts) and the rows
/// flagged as better than a perfect split.
pub struct Table {
    block: Block,
    flags: Vec<String>,
}

impl Table {
    /// A table whose columns are the groups `columns`, in order.
    fn new(name: &str, columns: &[&[&str]]) -> Table {
        Table {
            block: Block::new(name, &columns.concat()),
            flags: Vec::new(),
        }
    }

    /// A row of a member this run has too few cores for: its leading cells, NA, the reason.
    fn skipped(&mut self, mut cells: Vec<Value>, why: &str) {
        cells.resize(self.block.columns.len() - 1, Value::Missing);
        cells.push(why.into());
        self.block.row(cells);
    }

    fn flag(&mut self, suspicious: bool, what: impl FnOnce() -> String) {
        if suspicious {
            self.flags.push(what());
        }
    }

    /// The warnings under the table: the flagged rows, then the rounds in which other work
    /// took a core. Returns the share of disturbed rounds in `set`.
    pub fn warnings(&self, set: &[Measured]) -> f64 {
        for f in &self.flags {
            println!(
                "  !! {f}: BETTER than a perfect split of its one-thread reference. That is not scaling:\n     \
                 the reference or this row was disturbed (a clock change, a co-tenant, threads on unequal\n     \
                 cores). Suspicious: do not read this row as a result."
            );
        }
        disturbed(set)
    }

    pub fn print(&self) {
        self.block.print();
    }
}

/// Section 2's table: two threads at each distance, against a perfect split of the baseline
/// of their own round (`two[0]`). Returns the table and each distance's ratios.
pub fn distance(two: &[Measured], line: Option<u64>) -> (Table, Vec<(usize, Summary)>) {
    let (base, b) = (&two[0], two[0].summary());
    println!(
        "  a perfect split of the baseline would cost {} per increment; the ratio is per round\n  \
         against that round's baseline (median, min..max)",
        ns(b.median / 2.0)
    );
    println!(
        "\n  {:>9}  {:<32} {:<24} {:<14} threads on",
        "distance", "per increment (min..max)", "vs perfect split", "line"
    );
    let mut t = Table::new(
        "distance",
        &[
            &["distance_bytes", "same_line:text"],
            &SPREAD,
            &["split_ns"],
            &VS_SPLIT,
            &CHECKS,
            &["cores:text"],
        ],
    );
    let mut ratios = Vec::new();
    for m in &two[1..] {
        let Work::Slots { gap, .. } = m.work else {
            continue;
        };
        let (s, r) = (m.summary(), m.ratio_to(base, 2.0));
        let same = line.map(|l| (gap as u64) < l);
        let suspicious = below_split(&r);
        t.flag(suspicious, || format!("2 threads {gap} bytes apart"));
        let where_ = match same {
            Some(true) => "same line",
            Some(false) => "different lines",
            None => "unknown",
        };
        println!(
            "  {:>7} B  {:<32} {:<24} {:<16} {}",
            gap,
            with_range(&s),
            ratio_text(&r, suspicious),
            where_,
            m.cores_note()
        );
        let mut row = vec![gap.into(), yes_no(same).into()];
        row.extend(spread(&s));
        row.push((b.median / 2.0).into());
        row.extend(spread(&r));
        row.extend(checks(m, suspicious));
        row.push(m.cores_note().into());
        t.block.row(row);
        ratios.push((gap, r));
    }
    (t, ratios)
}

/// Section 3's layouts: slots 8 bytes apart (one line) or `apart` bytes apart.
pub fn layouts(apart: usize, line: Option<u64>) {
    println!(
        "  one line: slots 8 bytes apart; separate: {apart} bytes apart ({}).",
        match line {
            Some(l) => format!("twice the {l}-byte line, so no neighbouring line is shared either"),
            None => "the line size is unknown, so the widest distance of section 2".into(),
        }
    );
}

/// Section 3's table: for each team size in `counts`, one line against separate lines, each
/// against a perfect split of the set's baseline (`teams[0]`).
pub fn threads(
    teams: &[Measured],
    counts: &[usize],
    apart: usize,
    line: Option<u64>,
    lab: &Lab,
) -> Table {
    let tb = teams[0].summary();
    println!(
        "  baseline of this set: {} per increment (min {} .. max {})\n",
        ns(tb.median),
        ns(tb.min),
        ns(tb.max)
    );
    println!(
        "  {:>7}  {:<30} {:<30} {:>7}  threads on",
        "threads", "one line: ns (vs split)", "separate: ns (vs split)", "factor"
    );
    let mut t = Table::new(
        "threads",
        &[
            &["threads", "layout:text", "distance_bytes", "lines"],
            &SPREAD,
            &VS_SPLIT,
            &CHECKS,
            &["note:text"],
        ],
    );
    for &n in counts {
        let team = |gap| find(teams, Work::Slots { threads: n, gap });
        let layouts = [("one_line", 8), ("separate", apart)];
        let lead = |layout: &str, gap: usize| -> Vec<Value> {
            let lines = lines_touched(n, gap, line);
            vec![n.into(), layout.into(), gap.into(), lines.into()]
        };
        let (Some(one), Some(sep)) = (team(8), team(apart)) else {
            let why = too_few_cores(n, lab);
            println!("  {n:>7}  {why}");
            for (layout, gap) in layouts {
                t.skipped(lead(layout, gap), &why);
            }
            continue;
        };
        let mut cells = Vec::new();
        for ((layout, gap), m) in layouts.into_iter().zip([one, sep]) {
            let (s, r) = (m.summary(), m.ratio_to(&teams[0], n as f64));
            let suspicious = below_split(&r);
            t.flag(suspicious, || {
                format!("{n} threads, {}", layout.replace('_', " "))
            });
            cells.push(format!(
                "{} ({:.2}x{})",
                ns(s.median),
                r.median,
                mark(suspicious)
            ));
            let mut row = lead(layout, gap);
            row.extend(spread(&s));
            row.extend(spread(&r));
            row.extend(checks(m, suspicious));
            row.push("measured".into());
            t.block.row(row);
        }
        let factor = one.summary().median / sep.summary().median;
        println!(
            "  {n:>7}  {:<30} {:<30} {:>6.2}x  {}",
            cells[0],
            cells[1],
            factor,
            one.cores_note()
        );
    }
    t
}

/// Section 4's table: the baseline, then atomics, then the mutex, by thread count; each
/// against the baseline and against its own method on one thread.
pub fn shared(set: &[Measured], skipped: &[Work], lab: &Lab) -> Table {
    println!(
        "  {:<38} {:<30} {:>11} {:>13}  threads on",
        "", "per increment (min..max)", "x baseline", "x 1 thread"
    );
    let mut t = Table::new(
        "shared",
        &[
            &["method:text", "threads", "iters_per_thread"],
            &SPREAD,
            &["vs_baseline", "vs_one_thread"],
            &CHECKS,
            &["note:text"],
        ],
    );
    let mut all: Vec<Work> = set
        .iter()
        .map(|m| m.work)
        .chain(skipped.iter().copied())
        .collect();
    all.sort_by_key(|w| {
        (
            matches!(w, Work::Locked { .. }),
            matches!(w, Work::Atomic { .. }),
            w.threads(),
        )
    });
    for w in all {
        let (method, name) = match w {
            Work::Slots { .. } => ("plain", "uncontended increment (baseline)".to_string()),
            Work::Atomic { threads } => {
                ("atomic", format!("relaxed atomic, {}", n_threads(threads)))
            }
            Work::Locked { threads } => (
                "mutex",
                format!("under std::sync::Mutex, {}", n_threads(threads)),
            ),
        };
        let lead = vec![method.into(), w.threads().into(), lab.iters(w).into()];
        let Some(m) = find(set, w) else {
            let why = too_few_cores(w.threads(), lab);
            println!("  {name:<38} {why}");
            t.skipped(lead, &why);
            continue;
        };
        let s = m.summary();
        let vs_base = m.ratio_to(&set[0], 1.0);
        // Against the same method with one thread, split across the team: below a perfect
        // split is impossible for one value that only one core at a time can own.
        let single = match w {
            Work::Atomic { threads } if threads > 1 => find(set, Work::Atomic { threads: 1 }),
            Work::Locked { threads } if threads > 1 => find(set, Work::Locked { threads: 1 }),
            _ => None,
        };
        let vs_one = single.map(|o| m.ratio_to(o, 1.0));
        let suspicious = single.is_some_and(|o| below_split(&m.ratio_to(o, w.threads() as f64)));
        t.flag(suspicious, || name.clone());
        println!(
            "  {name:<38} {:<30} {:>10.1}x {:>13}  {}",
            with_range(&s),
            vs_base.median,
            vs_one.map_or("-".into(), |r| format!(
                "{:.2}x{}",
                r.median,
                mark(suspicious)
            )),
            m.cores_note()
        );
        let mut row = lead;
        row.extend(spread(&s));
        row.extend([vs_base.median.into(), vs_one.map(|r| r.median).into()]);
        row.extend(checks(m, suspicious));
        row.push("measured".into());
        t.block.row(row);
    }
    t
}

/// Section 5's method, before the survey.
pub fn c2c_plan(plan: &c2c::Plan) {
    println!(
        "  the initiator writes a number into one line, the responder waits to see it and answers;\n  \
         a round trip is two handovers of the line, one-way is half a round trip. {} batches of\n  \
         {} round trips per direction after a warm-up batch; median and min of the batches.",
        plan.batches, plan.per_batch
    );
}

/// One measured direction of the core-to-core survey.
pub struct OneWay {
    pub from: usize,
    pub to: usize,
    /// Half the median round trip.
    pub ns: f64,
    /// Whether the two cores are SMT siblings; `None` if unknown.
    pub smt: Option<bool>,
}

/// Section 5's record of the survey `s`: how much was measured (also as `#META`), the matrix
/// of one-way latencies (up to 12 cores), and the `c2c` block. Returns the block and the
/// measured directions.
pub fn c2c(cores: &[Core], plan: &c2c::Plan, s: &c2c::Survey) -> (Block, Vec<OneWay>) {
    println!(
        "  measured {} of {} core pairs (both directions){}, in {:.2} s",
        s.visited,
        s.total,
        if s.visited < s.total {
            format!(
                ", visited in a seeded random order until the {} s budget was spent",
                plan.budget_ns / 1_000_000_000
            )
        } else {
            String::new()
        },
        s.elapsed_ns as f64 / 1e9
    );
    meta("c2c_cores", cores::list(cores.iter().map(|c| c.id)));
    meta("c2c_pairs_visited", s.visited);
    meta("c2c_pairs_total", s.total);
    meta("c2c_batches", plan.batches);
    meta("c2c_round_trips_per_batch", plan.per_batch);
    let by_id = |id: usize| cores.iter().find(|c| c.id == id).copied();
    let mut blk = Block::new(
        "c2c",
        &[
            "from",
            "to",
            "from_on",
            "to_on",
            "smt:text",
            "same_package:text",
            "round_trip_median_ns",
            "round_trip_min_ns",
            "one_way_median_ns",
            "one_way_min_ns",
            "batches",
            "note:text",
        ],
    );
    let mut one_way = Vec::new();
    for p in &s.pairs {
        let (a, b) = (by_id(p.from), by_id(p.to));
        let smt = a.zip(b).and_then(|(a, b)| a.smt_siblings(&b));
        let pkg = a.zip(b).and_then(|(a, b)| a.same_package(&b));
        let rt = p.round_trip_ns;
        if let Some(r) = rt {
            let (from, to, ns) = (p.from, p.to, r.median / 2.0);
            one_way.push(OneWay { from, to, ns, smt });
        }
        blk.row(vec![
            p.from.into(),
            p.to.into(),
            p.from_on.into(),
            p.to_on.into(),
            yes_no(smt).into(),
            yes_no(pkg).into(),
            rt.map(|r| r.median).into(),
            rt.map(|r| r.min).into(),
            rt.map(|r| r.median / 2.0).into(),
            rt.map(|r| r.min / 2.0).into(),
            rt.map_or(0, |r| r.n).into(),
            if p.verified {
                "measured"
            } else {
                "not_pinned:skipped"
            }
            .into(),
        ]);
    }
    let unpinned = s.pairs.iter().filter(|p| !p.verified).count();
    if unpinned > 0 {
        println!("  ! {unpinned} direction(s) skipped: a thread was not seen on its core");
    }
    if cores.len() <= 12 {
        matrix(cores, &one_way);
    }
    (blk, one_way)
}

/// The one-way latencies as a matrix: rows from, columns to.
fn matrix(cores: &[Core], one_way: &[OneWay]) {
    println!("\n  one-way latency, median (ns): rows from, columns to");
    print!("  {:>6}", "");
    for c in cores {
        print!(" {:>7}", c.id);
    }
    println!();
    for a in cores {
        print!("  {:>6}", a.id);
        for b in cores {
            let v = match one_way.iter().find(|x| x.from == a.id && x.to == b.id) {
                Some(x) => format!("{:.1}", x.ns),
                None if a.id == b.id => "-".into(),
                None => "NA".into(),
            };
            print!(" {v:>7}");
        }
        println!();
    }
}

/// Says in which rounds other work took a thread's core (its CPU time under 95% of its
/// wall time), or that none did. Returns the share of disturbed rounds over the set.
fn disturbed(set: &[Measured]) -> f64 {
    let (mut hit, mut all, mut rounds) = (Vec::new(), false, 0usize);
    let mut disturbed = 0usize;
    for m in set {
        let Some(d) = m.disturbed_rounds() else {
            continue;
        };
        rounds += m.ns.len();
        disturbed += d;
        if d > 0 {
            hit.push(format!("{} {d}/{}", m.work.label(), m.ns.len()));
            all |= d == m.ns.len();
        }
    }
    if hit.is_empty() {
        println!(
            "  * every spinning thread had its core to itself in every round (CPU time >= {:.0}% of wall time).",
            lab::ON_CORE * 100.0
        );
    } else {
        println!(
            "  ! other work took a core during some rounds (a thread's CPU time < {:.0}% of its wall time):\n    \
             {}.\n    {}",
            lab::ON_CORE * 100.0,
            hit.join(", "),
            if all {
                "Some rows were disturbed in EVERY round: their medians measure a shared machine, not this effect."
            } else {
                "The medians lean on the undisturbed rounds; min..max shows the damage."
            }
        );
    }
    if rounds == 0 {
        0.0
    } else {
        disturbed as f64 / rounds as f64
    }
}

/// The caveat a verdict carries when most of its rounds were disturbed.
pub fn caveat(disturbed: f64) {
    if disturbed > 0.5 {
        println!(
            "  ! {:.0}% of the rounds behind this verdict were disturbed by other work: treat it as\n    \
             provisional and rerun on a quiet machine.",
            disturbed * 100.0
        );
    }
}

/// Better than a perfect split: not scaling but a disturbed measurement.
fn below_split(r: &Summary) -> bool {
    r.median < SUSPICIOUS_BELOW
}

/// The mark of a suspicious number.
fn mark(suspicious: bool) -> &'static str {
    if suspicious { " !!" } else { "" }
}

/// The reason a member needing `n` threads was not run.
fn too_few_cores(n: usize, lab: &Lab) -> String {
    format!(
        "skipped: needs {n} cores, this run may use {}",
        lab.max_threads()
    )
}

/// The columns of [`spread`]: the time per increment.
const SPREAD: [&str; 3] = ["ns_median", "ns_min", "ns_max"];
/// The columns of [`spread`] over the ratios against a perfect split.
const VS_SPLIT: [&str; 3] = ["vs_split_median", "vs_split_min", "vs_split_max"];
/// The columns of [`checks`].
const CHECKS: [&str; 3] = ["suspicious:text", "disturbed_rounds", "pinned:text"];

/// Median, min and max as three cells.
fn spread(s: &Summary) -> [Value; 3] {
    [s.median.into(), s.min.into(), s.max.into()]
}

/// Whether a row is suspicious, its disturbed rounds and how its threads were placed.
fn checks(m: &Measured, suspicious: bool) -> [Value; 3] {
    [
        suspicious.into(),
        m.disturbed_rounds().into(),
        m.pinning().into(),
    ]
}

fn yes_no(v: Option<bool>) -> &'static str {
    v.map_or("unknown", |b| if b { "yes" } else { "no" })
}

/// How many lines `n` slots `gap` bytes apart touch, from a line-aligned start.
fn lines_touched(n: usize, gap: usize, line: Option<u64>) -> Option<u64> {
    let l = line?;
    Some(if gap as u64 >= l {
        n as u64
    } else {
        ((n - 1) * gap) as u64 / l + 1
    })
}

fn n_threads(n: usize) -> String {
    if n == 1 {
        "1 thread".into()
    } else {
        format!("{n} threads")
    }
}

/// A time in nanoseconds with three significant digits or more.
pub fn ns(x: f64) -> String {
    if x < 10.0 {
        format!("{x:.3} ns")
    } else if x < 100.0 {
        format!("{x:.2} ns")
    } else {
        format!("{x:.1} ns")
    }
}

fn with_range(s: &Summary) -> String {
    let short = |x: f64| ns(x).trim_end_matches(" ns").to_string();
    format!("{} ({}..{})", ns(s.median), short(s.min), short(s.max))
}

fn ratio_text(r: &Summary, suspicious: bool) -> String {
    format!(
        "{:.2}x ({:.2}..{:.2}){}",
        r.median,
        r.min,
        r.max,
        mark(suspicious)
    )
}
