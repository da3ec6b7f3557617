//! Section 7: each level at a glance in GB/s and bytes per cycle, and the verdicts the issue
//! asks for, every one computed from this run: L1 against memory, L1 against the core's
//! load and store limit; and all cores against one, recorded (`#META verdict_all_cores`)
//! but not printed again: section 5 says it under its table.

use crate::kernels::{Form, Kernel, Op};
use crate::limit::Limit;
use crate::report::{Row, find, gbs};
use measure::clock::CoreClock;
use measure::data::Block;
use measure::disturb::Tally;
use measure::fmt::bytes as size;
use measure::out::Out;
use measure::run::Experiment;
use measure::show;

/// What earlier sections found, for the verdicts.
pub struct Seen {
    /// One thread's and all threads' (count, total) read bandwidth at the largest set.
    pub threads: Option<(f64, (usize, f64))>,
    /// The rounds of section 5, with the load around them.
    pub threads_tally: Tally,
    /// Instructions per load in the explicit read's loop, read from this binary.
    pub read_insns_per_load: Option<f64>,
    /// Streaming write over ordinary write at the largest set.
    pub stream_gain: Option<f64>,
    /// Idle ns and loaded ns (from the rounds that count), and loaded/idle when supported.
    pub loaded: Option<(Option<f64>, Option<f64>, Option<f64>)>,
}

/// A clock estimate that puts the L1 read more than this share above the limit is wrong.
const GOAL: f64 = 0.10;
/// The L1 read "reaches" the limit within this share (issue 25: at least 95%, where
/// hand-scheduled kernels such as likwid-bench's get).
const READ_GOAL: f64 = 0.05;

/// One representative working set per level. For a cache: of the sizes that fit in it with
/// room to spare (at most half of it) and do not fit the level below, the one where `rate`
/// (the explicit read) is highest: other work only ever slows a round down, so the fastest
/// size is the one least disturbed. For memory: the largest set, when it is at least twice the
/// largest reported cache. Without reported sizes: the smallest and the largest set.
pub fn levels(
    rows: &[Row],
    reported: &[(String, u64)],
    rate: impl Fn(&Row) -> f64,
) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    let mut below = 0u64;
    for (name, bytes) in reported {
        let best = (0..rows.len())
            .filter(|&i| rows[i].bytes as u64 <= bytes / 2 && rows[i].bytes as u64 > below)
            .max_by(|&a, &b| rate(&rows[a]).total_cmp(&rate(&rows[b])));
        if let Some(i) = best {
            out.push((name.clone(), i));
        }
        below = *bytes;
    }
    let last = rows.len() - 1;
    match reported.iter().map(|r| r.1).max() {
        Some(l) if rows[last].bytes as u64 >= 2 * l => out.push(("memory".into(), last)),
        Some(_) => out.push(("largest set".into(), last)),
        None => {
            out.push(("smallest set".into(), 0));
            out.push(("largest set".into(), last));
        }
    }
    out.dedup_by_key(|l| l.1);
    out
}

/// Section 7: the levels table, L1 against memory and against the core's limit (each marked
/// by the rounds of section 2), and the figures recorded from the other sections.
pub fn print(
    exp: &mut Experiment,
    rows: &[Row],
    kernels: &[Kernel],
    lim: Option<&Limit>,
    cc: &CoreClock,
    seen: &Seen,
) {
    let reported = exp.facts.reported_caches();
    let idx = |op| find(kernels, op, Form::Explicit);
    let (r, w, c) = (idx(Op::Read), idx(Op::Write), idx(Op::Copy));
    let lv = levels(rows, &reported, |row| {
        r.map_or(0.0, |k| row.cells[k].gbs.median)
    });
    levels_table(&mut exp.out, rows, &lv, [r, w, c], cc);
    let bpc = |gbs: f64| cc.ghz.map(|g| gbs / g);
    let cell = |k: Option<usize>, row: usize| k.map(|k| rows[row].cells[k].gbs.median);

    let l1 = lv.iter().find(|l| l.0 == "L1d").map(|l| l.1);
    // Each working set was taken in its own windows: a reading of the L1 set and the largest
    // takes their marks alone.
    let l1row = l1.unwrap_or(0);
    let ends = Ends::of(rows, l1row);
    ends.record(exp);
    l1_memory(exp, rows, &lv, r, &ends);

    // L1 against the core's load and store limit.
    let (ra, wa) = (cell(r, l1row).and_then(bpc), cell(w, l1row).and_then(bpc));
    let said = l1_limit(lim, (ra, wa), cc.ghz, seen.read_insns_per_load);
    verdict(
        &mut exp.out,
        ("l1_limit", said.label),
        (&ends.l1, false),
        &said.text,
    );
    if let Some(of_limit) = said.of_limit {
        exp.key_figure("l1_read_of_limit", of_limit, "%");
    }
    if let Some(met) = said.goal_met {
        exp.out.meta("l1_read_goal_met", met);
    }
    // Bytes per cycle above the limit come from a wrong clock estimate: not a figure to keep.
    let plausible = |b: &f64| lim.is_none_or(|l| *b <= l.load_bytes() * (1.0 + GOAL));
    exp.key_figure("l1_read_bytes_per_cycle", ra.filter(plausible), "B/cycle");

    recorded(exp, seen);
}

/// The rounds (with their windows' load) of the two working sets section 7 reads: the L1
/// level's and the largest.
struct Ends {
    l1: Tally,
    largest: Tally,
}

impl Ends {
    fn of(rows: &[Row], l1row: usize) -> Ends {
        Ends {
            l1: rows[l1row].tally(),
            largest: rows.last().map(Row::tally).unwrap_or_default(),
        }
    }

    /// Both sets' rounds, as the `disturbance` results their key figures are read from.
    fn both(&self) -> Tally {
        self.l1.merge(&self.largest)
    }

    fn record(&self, exp: &mut Experiment) {
        use ::bandwidth::schema::{SWEEP_L1, SWEEP_L1_LARGEST, SWEEP_LARGEST};
        let names = [SWEEP_L1, SWEEP_LARGEST, SWEEP_L1_LARGEST];
        exp.disturbance_pair(names, &self.l1, &self.largest);
    }
}

/// Section 7's reading of L1 against the core's load and store limit, before its mark (it
/// reads no shared level), with what it records.
#[derive(Debug, PartialEq)]
struct L1Limit {
    label: &'static str,
    text: String,
    /// The `l1_read_of_limit` key figure (%), when it is recorded at all.
    of_limit: Option<Option<f64>>,
    /// `#META l1_read_goal_met`, when it is recorded.
    goal_met: Option<&'static str>,
}

/// L1 against the core's limit from the explicit read's and write's bytes a cycle at the L1
/// set (`ra`, `wa`), the clock estimate behind them (`ghz`) and the read loop's instructions
/// a load.
fn l1_limit(
    lim: Option<&Limit>,
    (ra, wa): (Option<f64>, Option<f64>),
    ghz: Option<f64>,
    insns: Option<f64>,
) -> L1Limit {
    let said = |label, text, of_limit, goal_met| L1Limit {
        label,
        text,
        of_limit,
        goal_met,
    };
    match (lim, ra, wa) {
        (Some(l), Some(rb), _) if rb > l.load_bytes() * (1.0 + GOAL) => said(
            "L1 against the core's limit",
            format!(
                "reading reaches {rb:.1} bytes a cycle, above the {} \
                 B/cycle this program's table gives a {} core. That cannot be: the clock estimate ({:.2} GHz) is low \
                 (other work on this core while it was measured?) or the table does not fit this \
                 CPU. No verdict; the GB/s stand.",
                l.load_bytes(),
                l.core,
                ghz.unwrap_or(f64::NAN)
            ),
            Some(None),
            Some("unknown"),
        ),
        (Some(l), Some(rb), Some(wb)) => {
            let (pr, pw) = (rb / l.load_bytes(), wb / l.store_bytes());
            let met = pr >= 1.0 - READ_GOAL;
            let text = format!(
                "reading reaches {rb:.1} bytes a cycle, \
                 {:.1}% of the table's {} B/cycle ({}); writing {wb:.1}, {:.1}% of {} ({}). \
                 Reading within {:.0}% of the limit: {}.{}",
                pr * 100.0,
                l.load_bytes(),
                per_cycle(l.loads, "load"),
                pw * 100.0,
                l.store_bytes(),
                per_cycle(l.stores, "store"),
                READ_GOAL * 100.0,
                if met { "yes" } else { "no, not in this run" },
                insns.map_or(String::new(), |x| format!(
                    " The read's loop issues {x:.2} instructions a load (read from this \
                     binary)."
                ))
            );
            let label = "L1 against the core's limit (section 1)";
            said(
                label,
                text,
                Some(Some(pr * 100.0)),
                Some(measure::fmt::yes_no(met)),
            )
        }
        (_, Some(rb), _) => said(
            "L1 against the core's limit",
            format!(
                "reading reaches {rb:.1} bytes a cycle; the limit for this \
                 CPU is unknown to this program (see section 1), so it is not compared."
            ),
            Some(None),
            None,
        ),
        _ => said(
            "L1 against the core's limit",
            "no core-clock estimate, so no bytes per cycle.".into(),
            None,
            None,
        ),
    }
}

/// L1 against memory: the explicit read at the L1 level's set against the memory set, a
/// shared-level verdict (marked with contention when other cores were busy), and its key
/// figures.
fn l1_memory(
    exp: &mut Experiment,
    rows: &[Row],
    lv: &[(String, usize)],
    r: Option<usize>,
    ends: &Ends,
) {
    let (text, read) = l1_memory_text(rows, lv, r);
    verdict(
        &mut exp.out,
        ("l1_memory", "L1 against memory"),
        (&ends.both(), true),
        &text,
    );
    if let Some((a, m)) = read {
        exp.key_figure("l1_read_gbs", a, "GB/s");
        exp.key_figure("memory_read_gbs", m, "GB/s");
        exp.key_figure(::bandwidth::schema::key::L1_OVER_MEMORY_READ, a / m, "x");
    } else {
        exp.key_figure(
            ::bandwidth::schema::key::L1_OVER_MEMORY_READ,
            None::<f64>,
            "x",
        );
    }
}

/// L1 against memory before its mark: the sentence, and the explicit read (kernel `r`) at
/// the L1 level's set and at the memory set (`lv`: each level's row), in GB/s, when both
/// are known.
fn l1_memory_text(
    rows: &[Row],
    lv: &[(String, usize)],
    r: Option<usize>,
) -> (String, Option<(f64, f64)>) {
    let cell = |k: Option<usize>, row: usize| k.map(|k| rows[row].cells[k].gbs.median);
    let l1 = lv.iter().find(|l| l.0 == "L1d").map(|l| l.1);
    let memory = lv.iter().find(|l| l.0 == "memory").map(|l| l.1);
    if let (Some(a), Some(m)) = (l1.and_then(|i| cell(r, i)), memory.and_then(|i| cell(r, i))) {
        let text = format!(
            "reading {} runs at {} GB/s, reading {} at {} GB/s: {:.1}x.",
            size(rows[l1.unwrap_or(0)].bytes as u64),
            gbs(a),
            size(rows[memory.unwrap_or(0)].bytes as u64),
            gbs(m),
            a / m
        );
        (text, Some((a, m)))
    } else {
        let text = "not computed, because no L1d size is reported or the largest set is not at \
                    least twice the largest reported cache.";
        (text.into(), None)
    }
}

/// Section 7's table: each level's representative set in GB/s and bytes per cycle, and the
/// `levels` block. `k`: the explicit read, write and copy kernels.
fn levels_table(
    out: &mut Out,
    rows: &[Row],
    lv: &[(String, usize)],
    [r, w, c]: [Option<usize>; 3],
    cc: &CoreClock,
) {
    let bpc = |gbs: f64| cc.ghz.map(|g| gbs / g);
    let cell = |k: Option<usize>, row: usize| k.map(|k| rows[row].cells[k].gbs.median);
    let show = |v: Option<f64>| {
        v.map_or(format!("{:>10} {:>7}", "-", "-"), |g| {
            format!(
                "{:>10} {:>7}",
                gbs(g),
                bpc(g).map_or("-".into(), |b| format!("{b:.1}"))
            )
        })
    };
    println!(
        "  {:<12} {:<9} {:>18} {:>18} {:>18}",
        "level", "set", "read GB/s  B/cyc", "write GB/s  B/cyc", "copy GB/s  B/cyc"
    );
    let mut b = Block::new(
        ::bandwidth::schema::levels::BLOCK,
        ::bandwidth::schema::levels::COLUMNS,
    );
    for (name, i) in lv {
        let (gr, gw, gc) = (cell(r, *i), cell(w, *i), cell(c, *i));
        println!(
            "  {:<12} {:<9} {} {} {}",
            name,
            size(rows[*i].bytes as u64),
            show(gr),
            show(gw),
            show(gc)
        );
        b.row(vec![
            name.as_str().into(),
            (rows[*i].bytes / 1024).into(),
            gr.into(),
            gw.into(),
            gc.into(),
            gr.and_then(bpc).into(),
            gw.and_then(bpc).into(),
            gc.and_then(bpc).into(),
        ]);
    }
    out.block(&b);
}

/// All cores against one (recorded, marked as section 5 printed it) and the key figures of
/// sections 4 to 6.
fn recorded(exp: &mut Experiment, seen: &Seen) {
    // All cores against one.
    match seen.threads {
        Some((one, (n, all))) if n > 1 => {
            // Section 5 printed this with its table; it is only recorded here, marked as there.
            let text = format!(
                "{n} threads read {} GB/s from the largest set, {:.2}x one thread's {} GB/s.",
                gbs(all),
                all / one,
                gbs(one),
            );
            exp.out.meta(
                "verdict_all_cores",
                show::marked(&seen.threads_tally, true, vec![text]).join(" "),
            );
            exp.key_figure("all_cores_read_gbs", all, "GB/s");
            exp.key_figure("all_cores_over_one", all / one, "x");
        }
        _ => {
            exp.out
                .meta("verdict_all_cores", "one core only, not compared.");
            exp.key_figure("all_cores_over_one", None::<f64>, "x");
        }
    }
    exp.key_figure("stream_write_gain_largest", seen.stream_gain, "x");
    if let Some((idle, loaded, r)) = seen.loaded {
        exp.key_figure("idle_latency_ns", idle, "ns");
        exp.key_figure("loaded_latency_ns", loaded, "ns");
        exp.key_figure("loaded_over_idle", r, "x");
    } else {
        exp.key_figure("loaded_over_idle", None::<f64>, "x");
    }
}

/// Prints `label: text` as a conclusion, marked by the rounds behind it ([`marked`]), and
/// records the marked text as `#META verdict_<key>` (for the generated handouts, which quote
/// verdicts rather than numbers that may be missing).
fn verdict(out: &mut Out, (key, label): (&str, &str), (tally, shared): (&Tally, bool), text: &str) {
    let said = marked(tally, shared, label, text);
    for s in &said {
        out.conclude(s);
    }
    out.meta(&format!("verdict_{key}"), said.join(" "));
}

/// `label: text`, marked by [`show::marked`]: "provisional: ...; the clean rounds give: L1
/// against memory: ..." when the rounds behind it were disturbed, with a contention sentence
/// when `shared` (the verdict reads memory) and other cores were busy.
pub fn marked(tally: &Tally, shared: bool, label: &str, text: &str) -> Vec<String> {
    show::marked(tally, shared, vec![format!("{label}: {text}")])
}

/// "2 loads of 32 bytes a cycle", "one 64-byte store every 2 cycles".
fn per_cycle((ops, bytes): (f64, usize), what: &str) -> String {
    if ops >= 1.0 {
        let n = ops.round() as u64;
        format!(
            "{n} {what}{} of {bytes} bytes a cycle",
            if n == 1 { "" } else { "s" }
        )
    } else {
        format!("one {bytes}-byte {what} every {:.0} cycles", 1.0 / ops)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::Cell;

    fn rows(kib: &[u64]) -> Vec<Row> {
        let cell = Cell::of(&[&[1.0, 1.0, 1.0]]).unwrap();
        kib.iter()
            .map(|k| Row {
                bytes: (*k << 10) as usize,
                cells: vec![cell],
            })
            .collect()
    }

    /// Section 7 reads the L1 set and the largest: a set between them whose core share moved
    /// marks neither its verdicts nor its key figures' results; the largest set's does.
    #[test]
    fn section_7_takes_the_marks_of_the_sets_it_reads() {
        use measure::testing::share_load;
        let (steady, moved) = (share_load(3.6), share_load(2.2));
        let mut r = rows(&[8, 1024, 65536]);
        for (row, load) in r.iter_mut().zip([steady, moved, steady]) {
            row.cells[0].tally = row.cells[0].tally.with_load(load);
        }
        let ends = Ends::of(&r, 0);
        assert!(!ends.both().provisional(), "{:?}", ends.both());
        r[2].cells[0].tally = r[2].cells[0].tally.with_load(moved);
        let ends = Ends::of(&r, 0);
        assert!(!ends.l1.provisional());
        assert!(ends.largest.provisional() && ends.both().provisional());
        let said = marked(&ends.both(), true, "L1 against memory", "10x.");
        assert!(said[0].starts_with("provisional: "), "{said:?}");
    }

    #[test]
    fn verdicts_are_marked_by_their_rounds() {
        use measure::disturb::Load;
        let load = |on_core, elsewhere| Load {
            core: Some(1),
            on_core: Some(on_core),
            steal: Some(0.0),
            elsewhere: Some(elsewhere),
            ..Default::default()
        };
        let t = |disturbed, l| Tally {
            rounds: 200,
            disturbed,
            load: Some(l),
            ..Default::default()
        };
        let quiet = marked(&t(0, load(0.0, 0.0)), true, "L1 against memory", "10x.");
        assert_eq!(quiet, vec!["L1 against memory: 10x.".to_string()]);
        let busy = marked(&t(60, load(0.5, 0.0)), true, "L1 against memory", "10x.");
        assert!(
            busy[0].starts_with("provisional: 60 of 200 rounds were disturbed (0.50 cores")
                && busy[0].ends_with("the clean rounds give: L1 against memory: 10x."),
            "{busy:?}"
        );
        let shared = marked(&t(0, load(0.0, 0.9)), true, "L1 against memory", "10x.");
        assert!(
            shared[1].starts_with("contention: 0.90 cores"),
            "{shared:?}"
        );
        // The core's own limit is no shared level: contention is not named there.
        assert_eq!(
            marked(&t(0, load(0.0, 0.9)), false, "L1 limit", "x.").len(),
            1
        );
    }

    #[test]
    fn the_l1_limit_is_judged_only_from_plausible_bytes_a_cycle() {
        let zen = Limit {
            core: "Zen 4",
            loads: (2.0, 32),
            stores: (1.0, 32),
        };
        let met = l1_limit(Some(&zen), (Some(62.0), Some(30.0)), Some(4.0), Some(1.25));
        assert_eq!(met.label, "L1 against the core's limit (section 1)");
        assert!(
            met.text
                .starts_with("reading reaches 62.0 bytes a cycle, 96.9% of the table's 64"),
            "{met:?}"
        );
        assert!(
            met.text.contains("limit: yes. The read's loop issues 1.25"),
            "{met:?}"
        );
        assert_eq!(
            (met.goal_met, met.of_limit.map(|x| x.is_some())),
            (Some("yes"), Some(true))
        );
        let short = l1_limit(Some(&zen), (Some(40.0), Some(30.0)), Some(4.0), None);
        assert!(
            short.text.ends_with("limit: no, not in this run."),
            "{short:?}"
        );
        assert_eq!(short.goal_met, Some("no"));
        let over = l1_limit(Some(&zen), (Some(80.0), None), Some(2.0), None);
        assert!(
            over.text
                .contains("That cannot be: the clock estimate (2.00 GHz)")
        );
        assert_eq!(
            (over.of_limit, over.goal_met),
            (Some(None), Some("unknown"))
        );
        let unknown = l1_limit(None, (Some(40.0), Some(30.0)), Some(4.0), None);
        assert!(
            unknown.text.contains("unknown to this program"),
            "{unknown:?}"
        );
        assert_eq!((unknown.of_limit, unknown.goal_met), (Some(None), None));
        let none = l1_limit(Some(&zen), (None, None), None, None);
        assert_eq!((none.of_limit, none.goal_met), (None, None));
        // Its mark: provisional from disturbed rounds, and never contention (the core's own).
        let busy = Tally {
            rounds: 100,
            disturbed: 40,
            ..Default::default()
        };
        let m = marked(&busy, false, met.label, &met.text);
        assert!(m[0].starts_with("provisional: 40 of 100 rounds"), "{m:?}");
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn l1_against_memory_is_read_only_where_both_levels_were_measured() {
        let mut r = rows(&[32, 65536]);
        r[1].cells = vec![Cell::of(&[&[0.1, 0.1, 0.1]]).unwrap()];
        let lv = [("L1d".to_string(), 0), ("memory".to_string(), 1)];
        let (text, read) = l1_memory_text(&r, &lv, Some(0));
        assert_eq!(read, Some((1.0, 0.1)));
        assert!(text.ends_with(": 10.0x."), "{text}");
        let (text, read) = l1_memory_text(&r, &lv[..1], Some(0));
        assert!(text.starts_with("not computed") && read.is_none(), "{text}");
    }

    #[test]
    fn operations_per_cycle_in_words() {
        assert_eq!(per_cycle((2.0, 32), "load"), "2 loads of 32 bytes a cycle");
        assert_eq!(per_cycle((1.0, 64), "load"), "1 load of 64 bytes a cycle");
        assert_eq!(
            per_cycle((0.5, 64), "store"),
            "one 64-byte store every 2 cycles"
        );
    }

    #[test]
    fn one_size_per_level_inside_it() {
        let r = rows(&[
            4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024, 2048, 65536, 131072,
        ]);
        let rep = vec![
            ("L1d".to_string(), 32u64 << 10),
            ("L2".to_string(), 1 << 20),
            ("L3".to_string(), 32 << 20),
        ];
        let kib: Vec<(String, u64)> = levels(&r, &rep, |_| 1.0)
            .into_iter()
            .map(|(n, i)| (n, r[i].bytes as u64 >> 10))
            .collect();
        assert_eq!(
            kib,
            vec![
                ("L1d".into(), 16),
                ("L2".into(), 512),
                ("L3".into(), 2048),
                ("memory".into(), 131072)
            ]
        );
        // No reported sizes: the two ends.
        let ends: Vec<String> = levels(&r, &[], |_| 1.0).into_iter().map(|l| l.0).collect();
        assert_eq!(ends, vec!["smallest set", "largest set"]);
        // A largest set inside twice the last level is not called memory.
        let small = rows(&[4, 8, 16, 32768]);
        assert!(
            levels(&small, &rep, |_| 1.0)
                .iter()
                .all(|l| l.0 != "memory")
        );
        // The fastest size of a level represents it.
        let fast = levels(&r, &rep, |row| if row.bytes == 8 << 10 { 2.0 } else { 1.0 });
        assert_eq!(r[fast[0].1].bytes, 8 << 10);
    }
}
