//! What the experiment prints besides what its numbers say: the set-up lines of section 0,
//! the tables of sections 1 to 5 with their `#DATA` blocks, and the warnings under a table
//! (rows better than a perfect split, rounds in which other work took a core, rounds that
//! fell into two groups). The "How to read this run" sentences are in `main.rs`, beside the
//! sections they conclude.

use crate::SUSPICIOUS_BELOW;
use crate::c2c::{self, Method, Pair};
use crate::lab::{Lab, Measured, Plan, Work, find};
use measure::data::{Block, Value};
use measure::facts::Fact;
use measure::fmt::{WIDTH, field, grouped, median_min_max, wrap_to, yes_no_unknown};
use measure::out::Out;
use measure::stats::{Split, Summary};
use measure::team::{self, Core};

/// Prints `text` wrapped to the report width, first line indented `first`, the rest `rest`.
pub fn say(text: &str, first: &str, rest: &str) {
    println!("{}", wrap_to(text, first, rest, WIDTH));
}

/// Section 0: the cores, their layout, the cache line and how the threads are placed, each
/// also as `#META`.
pub fn setup(out: &mut Out, cores: &[Core], limited: bool, line: &Fact, pinned: bool) {
    let ids = team::list(cores.iter().map(|c| c.id));
    let cores_text = format!(
        "{} ({ids}){}; {}",
        cores.len(),
        if limited { ", limited by --cores" } else { "" },
        topology(out, cores)
    );
    println!("{}", field("cores", &cores_text));
    match line.value {
        Some(l) => println!(
            "  cache line     : {l} bytes ({}): two slots closer than {l} bytes share a line",
            line.source.map_or("?".into(), |s| s.to_string())
        ),
        None => println!(
            "  cache line     : unknown (no source reports it): which slots share a line is unknown"
        ),
    }
    let placement = if pinned {
        "each worker pins itself to its own core and reads back sched_getcpu before and \
         after its work (the main thread stays unpinned: workers would inherit its core)"
    } else {
        "--no-pin: threads go where the scheduler puts them; where each one ran is read back"
    };
    println!("{}", field("placement", placement));
    out.meta("fs_cores", ids);
    out.meta("fs_pinning", if pinned { "pinned" } else { "unpinned" });
    out.meta(
        ::false_sharing::schema::META_FS_LINE_BYTES,
        line.value.map_or("unknown".into(), |l| l.to_string()),
    );
}

/// What the kernel says about the cores' physical layout, in words (and as `#META`).
fn topology(out: &mut Out, cores: &[Core]) -> String {
    let known = cores
        .iter()
        .all(|c| c.package.is_some() && c.core.is_some());
    if !known {
        out.meta("fs_topology", "unknown");
        return "sysfs does not say which cores are SMT siblings".into();
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
    out.meta(
        "fs_topology",
        format!(
            "packages {} smt_pairs {}",
            packages.len(),
            pairs("none", ",")
        ),
    );
    format!(
        "sysfs: {} package{}, SMT siblings {}; teams take them in the order {} (one logical \
         CPU per physical core first)",
        packages.len(),
        if packages.len() == 1 { "" } else { "s" },
        pairs("none", " "),
        team::list(cores.iter().map(|c| c.id))
    )
}

/// How much work each run of sections 1 to 4 does, and why so much.
pub fn plan(plan: &Plan, quick: bool) {
    let work = format!(
        "{} increments per thread (sections 1-2), {} (section 3), {} atomic, {} under the \
         mutex; {} rounds per set, interleaved, after a warm-up. {}",
        grouped(plan.slot_iters),
        grouped(plan.team_iters),
        grouped(plan.atomic_iters),
        grouped(plan.mutex_iters),
        plan.rounds,
        if quick {
            "(--quick: fewer and shorter runs than the full run's.)"
        } else {
            "The appendix's 20M, 2M and 200k (3 rounds) suited its 1.6 ns increment; here \
             the counts are raised so that the cheapest run of each kind lasts over 10 ms, \
             far beyond the start line's release and the clock's step."
        }
    );
    println!("{}", field("work per run", &work));
    let judged = format!(
        "a team's run cannot be cut short, so every round is kept and judged by each thread's \
         own evidence (time waiting for its core, or off it); the figures come from the clean \
         rounds, and no round is added to a set. A whole set is taken again as a block is: {} \
         (the share read on every core the set's teams use; other work is judged by the \
         set's own rounds).",
        measure::retake::promise()
    );
    println!("{}", field("rounds", &judged));
}

/// Section 1: the baseline and the core it ran on.
pub fn baseline(base: &Measured) -> Summary {
    let b = base.summary();
    println!(
        "  one thread: {} per increment, {} rounds ({} disturbed), core {}",
        with_range(&b),
        base.ns.len(),
        base.disturbed_rounds(),
        base.cores_short()
    );
    b
}

/// The `baseline` block: the one-thread baseline of every set, measured in that set's rounds.
pub struct Baselines(Block);

impl Default for Baselines {
    fn default() -> Baselines {
        Baselines(Block::new(
            ::false_sharing::schema::baseline::BLOCK,
            ::false_sharing::schema::baseline::COLUMNS,
        ))
    }
}

impl Baselines {
    /// Records `m`, the baseline of set `set`.
    pub fn add(&mut self, set: &str, lab: &Lab, m: &Measured) {
        let b = m.summary();
        let mut row = vec![set.into(), m.ns.len().into(), lab.team_cores(1).into()];
        row.extend(median_min_max(Some(&b)));
        row.push(m.disturbed_rounds().into());
        self.0.row(row);
    }

    pub fn record(&self, out: &mut Out) {
        out.block(&self.0);
    }
}

/// A table printed row by row: its `#DATA` block (printed after the report), the rows
/// flagged as better than a perfect split, and the rows whose rounds split in two groups.
pub struct Table {
    block: Block,
    flags: Vec<String>,
    /// `(row name, the two groups)` of every row whose rounds split.
    splits: Vec<(String, Split)>,
}

impl Table {
    /// A table with the block's name and columns.
    fn new(name: &str, columns: &[&str]) -> Table {
        Table {
            block: Block::new(name, columns),
            flags: Vec::new(),
            splits: Vec::new(),
        }
    }

    /// A row of a member this run has too few cores for: its leading cells, NA, the reason,
    /// then `after` more NA cells (the last one, `rounds`, is 0: none were taken).
    fn skipped(&mut self, mut cells: Vec<Value>, why: &str, after: usize) {
        cells.resize(self.block.columns.len() - 1 - after, Value::Missing);
        cells.push(why.into());
        cells.resize(self.block.columns.len() - 1, Value::Missing);
        cells.push(0.into());
        self.block.row(cells);
    }

    fn flag(&mut self, suspicious: bool, what: impl FnOnce() -> String) {
        if suspicious {
            self.flags.push(what());
        }
    }

    /// The split cells of row `name` (measured `m`), remembering a split for the lines under
    /// the table.
    fn groups(&mut self, name: String, m: &Measured) -> [Value; 5] {
        match m.split() {
            Some(s) => {
                self.splits.push((name, s));
                [
                    2.into(),
                    s.low.n.into(),
                    s.low.median.into(),
                    s.high.n.into(),
                    s.high.median.into(),
                ]
            }
            None => [
                1.into(),
                m.used().len().into(),
                m.summary().median.into(),
                Value::Missing,
                Value::Missing,
            ],
        }
    }

    /// Prints the lines under the table ([`Table::notes`]).
    pub fn warnings(&self, set: &[Measured]) {
        for (text, first, rest) in self.notes(set) {
            say(&text, first, rest);
        }
    }

    /// The lines under the table, each with its first and later indent: the flagged rows,
    /// the rows whose rounds split in two groups (both groups with their counts), where
    /// unpinned threads landed, and the rounds in which other work took a core. Pure.
    fn notes(&self, set: &[Measured]) -> Vec<(String, &'static str, &'static str)> {
        let mut notes = Vec::new();
        for (name, s) in &self.splits {
            let text = format!(
                "{name} in two groups of rounds: {} at {}, {} at {}",
                s.low.n,
                with_range(&s.low),
                s.high.n,
                with_range(&s.high)
            );
            notes.push((text, "  ! ", "    "));
        }
        if !self.flags.is_empty() {
            let text = format!(
                "{}: BETTER than a perfect split of the one-thread reference. That is not \
                 scaling: the reference or the row was disturbed (a clock change, a \
                 co-tenant, threads on unequal cores). Do not read {} as a result.",
                self.flags.join("; "),
                if self.flags.len() == 1 {
                    "this row"
                } else {
                    "these rows"
                }
            );
            notes.push((text, "  !! ", "     "));
        }
        let unpinned: Vec<String> = set
            .iter()
            .filter(|m| m.pinning() == "unpinned")
            .map(|m| format!("{} {}", m.work.label(), m.cores_note()))
            .collect();
        if !unpinned.is_empty() {
            let text = format!("where the unpinned threads ran: {}.", unpinned.join("; "));
            notes.push((text, "  ", "    "));
        }
        notes.extend(disturbed(set).map(|t| (t, "  ! ", "    ")));
        notes
    }

    pub fn record(&self, out: &mut Out) {
        out.block(&self.block);
    }
}

/// Section 2's table: two threads at each distance, against a perfect split of the baseline
/// of their own round (`two[0]`). Returns the table and each distance's ratios.
pub fn distance(two: &[Measured], line: Option<u64>) -> (Table, Vec<(usize, Summary)>) {
    let b = two[0].summary();
    say(
        &format!(
            "a perfect split of the baseline would cost {} per increment; each round is divided \
             by its own round's baseline split two ways (median, min..max):",
            ns(b.median / 2.0)
        ),
        "  ",
        "  ",
    );
    println!(
        "\n  {:>8}  {:<26} {:<22} {:<9} threads on",
        "distance", "ns per increment", "vs perfect split", "line"
    );
    let mut t = Table::new(
        ::false_sharing::schema::distance::BLOCK,
        ::false_sharing::schema::distance::COLUMNS,
    );
    let mut ratios = Vec::new();
    for m in &two[1..] {
        let Work::Slots { gap, .. } = m.work else {
            continue;
        };
        let (s, r) = (m.summary(), m.ratio_to(&two[0], 2.0));
        let same = line.map(|l| (gap as u64) < l);
        let suspicious = below_split(&r);
        t.flag(suspicious, || format!("2 threads {gap} bytes apart"));
        let where_ = match same {
            Some(true) => "same",
            Some(false) => "different",
            None => "unknown",
        };
        println!(
            "  {:>6} B  {:<26} {:<22} {:<9} {}",
            gap,
            with_range(&s),
            ratio_text(&r, suspicious),
            where_,
            m.cores_short()
        );
        let mut row = vec![gap.into(), yes_no_unknown(same).into()];
        row.extend(median_min_max(Some(&s)));
        row.push((b.median / 2.0).into());
        row.extend(median_min_max(Some(&r)));
        row.extend(checks(m, suspicious));
        row.push(m.cores_note().into());
        row.extend(t.groups(format!("{gap} B"), m));
        row.push(m.ns.len().into());
        t.block.row(row);
        ratios.push((gap, r));
    }
    (t, ratios)
}

/// Section 3's layouts: slots 8 bytes apart (one line) or `apart` bytes apart, and the
/// baseline of the set.
pub fn layouts(apart: usize, line: Option<u64>, base: &Measured) {
    say(
        &format!(
            "one line: slots 8 bytes apart; separate: {apart} bytes apart ({}). Baseline of \
             this set: {} per increment.",
            match line {
                Some(l) =>
                    format!("twice the {l}-byte line, so no neighbouring line is shared either"),
                None => "the line size is unknown, so the widest distance of section 2".into(),
            },
            with_range(&base.summary())
        ),
        "  ",
        "  ",
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
    println!(
        "\n  {:>7}  {:<24} {:<24} {:>7}  threads on",
        "threads", "one line: ns (vs split)", "separate: ns (vs split)", "factor"
    );
    let mut t = Table::new(
        ::false_sharing::schema::threads::BLOCK,
        ::false_sharing::schema::threads::COLUMNS,
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
                t.skipped(lead(layout, gap), &why, GROUPS.len() + 1);
            }
            continue;
        };
        let mut cells = Vec::new();
        for ((layout, gap), m) in layouts.into_iter().zip([one, sep]) {
            let (s, r) = (m.summary(), m.ratio_to(&teams[0], n as f64));
            let suspicious = below_split(&r);
            let name = format!("{n} threads, {}", layout.replace('_', " "));
            t.flag(suspicious, || name.clone());
            cells.push(format!(
                "{} ({:.2}x{})",
                ns(s.median),
                r.median,
                mark(suspicious)
            ));
            let mut row = lead(layout, gap);
            row.extend(median_min_max(Some(&s)));
            row.extend(median_min_max(Some(&r)));
            row.extend(checks(m, suspicious));
            row.push("measured".into());
            row.extend(t.groups(name, m));
            row.push(m.ns.len().into());
            t.block.row(row);
        }
        let factor = one.summary().median / sep.summary().median;
        println!(
            "  {n:>7}  {:<24} {:<24} {:>6.2}x  {}",
            cells[0],
            cells[1],
            factor,
            one.cores_short()
        );
    }
    t
}

/// Section 4's table: the baseline, then atomics, then the mutex, by thread count; each
/// against the baseline and against its own method on one thread.
pub fn shared(set: &[Measured], skipped: &[Work], lab: &Lab) -> Table {
    println!(
        "  {:<26} {:<25} {:>7} {:>11}  threads on",
        "", "ns per increment", "vs base", "vs 1 thread"
    );
    let mut t = Table::new(
        ::false_sharing::schema::shared::BLOCK,
        ::false_sharing::schema::shared::COLUMNS,
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
            Work::Slots { .. } => ("plain", "plain increment (baseline)".to_string()),
            Work::Atomic { threads } => ("atomic", format!("relaxed atomic, {threads}t")),
            Work::Locked { threads } => ("mutex", format!("std::sync::Mutex, {threads}t")),
        };
        let lead = vec![method.into(), w.threads().into(), lab.iters(w).into()];
        let Some(m) = find(set, w) else {
            let why = too_few_cores(w.threads(), lab);
            println!("  {name:<26} {why}");
            t.skipped(lead, &why, 1);
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
            "  {name:<26} {:<25} {:>6.1}x {:>11}  {}",
            with_range(&s),
            vs_base.median,
            vs_one.map_or("-".into(), |r| format!(
                "{:.2}x{}",
                r.median,
                mark(suspicious)
            )),
            m.cores_short()
        );
        let mut row = lead;
        row.extend(median_min_max(Some(&s)));
        row.extend([vs_base.median.into(), vs_one.map(|r| r.median).into()]);
        row.extend(checks(m, suspicious));
        row.push("measured".into());
        row.push(m.ns.len().into());
        t.block.row(row);
    }
    t
}

/// Section 5's method, before the survey.
pub fn c2c_plan(plan: &c2c::Plan) {
    say(
        &format!(
            "each thread spins on a compare-and-swap that turns the other's value in one line \
             into its own, so every success needs the line to come over; one-way is half a \
             round trip. {} batches of {} round trips per direction after a warm-up batch. \
             The survey and the comparison of ways are each taken again while a core's share \
             was unsteady (up to {} times, and only while a take lasts under {} s).",
            plan.batches,
            plan.per_batch,
            measure::retake::RETAKES,
            measure::retake::MAX_TAKE.as_secs()
        ),
        "  ",
        "  ",
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
    /// Whether the two cores sit in one package; `None` if unknown.
    pub same_package: Option<bool>,
}

/// Section 5's record of the survey `s`: how much was measured (also as `#META`), the matrix
/// of one-way latencies (up to 12 cores), and the `c2c` block. Returns the block and the
/// measured directions.
pub fn c2c(
    out: &mut Out,
    cores: &[Core],
    plan: &c2c::Plan,
    s: &c2c::Survey,
) -> (Block, Vec<OneWay>) {
    if s.visited < s.total {
        say(
            &format!(
                "measured {} of {} core pairs (both directions), visited in a seeded random \
                 order until the {} s budget was spent, in {:.2} s",
                s.visited,
                s.total,
                plan.budget_ns / 1_000_000_000,
                s.elapsed_ns as f64 / 1e9
            ),
            "  ",
            "  ",
        );
    }
    out.meta(
        ::false_sharing::schema::META_C2C_CORES,
        team::list(cores.iter().map(|c| c.id)),
    );
    out.meta(::false_sharing::schema::META_C2C_PAIRS_VISITED, s.visited);
    out.meta(::false_sharing::schema::META_C2C_PAIRS_TOTAL, s.total);
    out.meta("c2c_batches", plan.batches);
    out.meta("c2c_round_trips_per_batch", plan.per_batch);
    out.meta("c2c_method", Method::Cas.label());
    let by_id = |id: usize| cores.iter().find(|c| c.id == id).copied();
    let mut blk = Block::new(
        ::false_sharing::schema::c2c::BLOCK,
        ::false_sharing::schema::c2c::COLUMNS,
    );
    let mut one_way = Vec::new();
    for p in &s.pairs {
        let (a, b) = (by_id(p.from), by_id(p.to));
        let smt = a.zip(b).and_then(|(a, b)| a.smt_siblings(&b));
        let pkg = a.zip(b).and_then(|(a, b)| a.same_package(&b));
        let rt = p.round_trip_ns;
        if let Some(r) = rt {
            one_way.push(OneWay {
                from: p.from,
                to: p.to,
                ns: r.median / 2.0,
                smt,
                same_package: pkg,
            });
        }
        blk.row(vec![
            p.from.into(),
            p.to.into(),
            p.from_on.into(),
            p.to_on.into(),
            yes_no_unknown(smt).into(),
            yes_no_unknown(pkg).into(),
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
            p.batches.len().into(),
            p.timed().disturbed_count().into(),
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
    println!("  one-way latency, median (ns), compare-and-swap: rows from, columns to");
    print!("  {:>6}", "");
    for c in cores {
        print!(" {:>6}", c.id);
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
            print!(" {v:>6}");
        }
        println!();
    }
}

/// The three ways of passing the line on one pair, both directions: the table, and the
/// `c2c_methods` block. Returns each method's one-way median over both directions.
pub fn methods(pairs: &[Pair]) -> (Block, Vec<(Method, Option<f64>)>) {
    let mut blk = Block::new(
        ::false_sharing::schema::c2c_methods::BLOCK,
        ::false_sharing::schema::c2c_methods::COLUMNS,
    );
    let mut out = Vec::new();
    let Some(first) = pairs.first() else {
        return (blk, out);
    };
    println!(
        "\n  the same pair ({} <-> {}) passed three ways, interleaved; one-way, ns:",
        first.from, first.to
    );
    println!(
        "  {:<36} {:>24} {:>8}",
        "how each side waits and answers", "median (min..max)", "vs CAS"
    );
    for m in Method::ALL {
        let mine: Vec<&Pair> = pairs.iter().filter(|p| p.method == m).collect();
        for p in &mine {
            let half = p.round_trip_ns.map(|s| s.scaled(2.0));
            let mut row: Vec<Value> = vec![m.label().into(), p.from.into(), p.to.into()];
            row.push(p.batches.len().into());
            row.extend(median_min_max(half.as_ref()));
            row.extend([p.batches.len().into(), p.timed().disturbed_count().into()]);
            blk.row(row);
        }
        let all: Vec<f64> = mine
            .iter()
            .flat_map(|p| p.timed().used().into_iter().map(|b| b / 2.0))
            .collect();
        out.push((m, Summary::of(&all).map(|s| s.median)));
        let cas = out[0].1;
        match Summary::of(&all) {
            Some(s) => println!(
                "  {:<36} {:>24} {:>7.2}x",
                m.words(),
                format!("{:.1} ({:.1}..{:.1})", s.median, s.min, s.max),
                cas.map_or(f64::NAN, |c| s.median / c)
            ),
            None => println!(
                "  {:<36} not measured (a thread was not seen on its core)",
                m.words()
            ),
        }
    }
    (blk, out)
}

/// The line saying in which rounds other work took a thread's core (by the threads' own
/// evidence), if any did.
fn disturbed(set: &[Measured]) -> Option<String> {
    let (mut hit, mut all) = (Vec::new(), false);
    for m in set {
        let d = m.disturbed_rounds();
        if d > 0 {
            hit.push(format!("{} {d}/{}", m.work.label(), m.ns.len()));
            all |= d == m.ns.len();
        }
    }
    (!hit.is_empty()).then(|| {
        format!(
            "other work took a core in some rounds (a thread waited for its core, or was off \
             it): {}. {}",
            hit.join(", "),
            if all {
                "Some rows were disturbed in EVERY round: their medians measure a shared \
                 machine, not this effect."
            } else {
                "The medians are the clean rounds'; min..max too."
            }
        )
    })
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

/// The columns of [`Table::groups`]: one group (all rounds, `high_*` NA) or two.
const GROUPS: &[&str] = ::false_sharing::schema::round_groups::COLUMNS;

/// Whether a row is suspicious, its disturbed rounds and how its threads were placed.
fn checks(m: &Measured, suspicious: bool) -> [Value; 3] {
    [
        suspicious.into(),
        m.disturbed_rounds().into(),
        m.pinning().into(),
    ]
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

/// "1.041 ns (0.922..1.440)".
pub fn with_range(s: &Summary) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;
    use measure::disturb::Evidence;

    /// `work` in four rounds, the first `hit` of them disturbed.
    fn member(work: Work, hit: usize) -> Measured {
        let ev = |d: bool| Evidence {
            wall_ns: 10_000_000,
            waited_ns: Some(if d { 4_000_000 } else { 0 }),
            switches: if d { 2 } else { 0 },
            ..Default::default()
        };
        Measured {
            work,
            ns: vec![1.0; 4],
            seen: vec![Vec::new(); 4],
            evidence: (0..4).map(|i| ev(i < hit)).collect(),
        }
    }

    #[test]
    fn the_lines_under_a_table_say_only_what_its_rows_show() {
        let two = Work::Slots { threads: 2, gap: 8 };
        let quiet = [member(Work::BASELINE, 0), member(two, 0)];
        let table = Table::new("t", &["a"]);
        // Unpinned rows (no core seen) say where they ran; nothing else is said of them.
        let notes: Vec<_> = table.notes(&quiet).into_iter().map(|n| n.0).collect();
        assert!(
            notes
                .iter()
                .all(|n| !n.contains("other work") && !n.contains("BETTER"))
        );
        let busy = [member(Work::BASELINE, 1), member(two, 4)];
        let mut flagged = Table::new("t", &["a"]);
        flagged.flag(true, || "2 threads 8 B apart".into());
        let notes = flagged.notes(&busy);
        let better = notes.iter().find(|n| n.1 == "  !! ").expect("the flag");
        assert!(
            better
                .0
                .starts_with("2 threads 8 B apart: BETTER than a perfect split")
        );
        assert!(
            better.0.ends_with("Do not read this row as a result."),
            "{notes:?}"
        );
        let hit = notes.last().expect("the disturbed rounds");
        assert_eq!(hit.1, "  ! ");
        assert!(
            hit.0.contains(": baseline 1/4, ") && hit.0.contains("disturbed in EVERY round"),
            "{hit:?}"
        );
        let some = disturbed(&[member(Work::BASELINE, 1)]).expect("a line");
        assert!(some.ends_with("The medians are the clean rounds'; min..max too."));
        assert_eq!(disturbed(&quiet), None);
    }
}
