//! The appendix's Table 105.26 for this machine: every row the book prints, read from the
//! folder's saved outputs, beside the book's x86 value, the book's ARM phone column (the
//! transcription in `results/appendix-phone/`) and, where `cargo xtask appendix-c` ran, the
//! appendix's own C programs on this machine. Nothing is filled in: a value a source does not
//! hold is "-", an experiment the phone never ran is "not measured".
//!
//! Every column is read by the same small readers, because the appendix folders are translated
//! into this project's block and column names first ([`crate::compare::appendix`]). Our cells
//! carry the disturbance marks of the results they come from ([`crate::marks`]); the appendix
//! folders record none.

use crate::marks::{self, Mark};
use ::branch::schema as branch;
use ::cache_ladder::schema as cl;
use ::clock_probe::schema as clock_probe;
use ::false_sharing::schema as fs;
use ::fp_cost::schema as fp_cost;
use ::stride::schema as stride;
use ::tlb_walk::schema as tlb_walk;
use measure::data::DataFile;
use measure::{fmt, key};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Saved outputs by experiment, in this project's names.
pub type Folder<'a> = BTreeMap<String, &'a DataFile>;

/// The table's sources: this folder, and the two appendix folders where they exist.
pub struct Sources<'a> {
    pub ours: Folder<'a>,
    /// `results/appendix-phone/`, translated.
    pub phone: Option<Folder<'a>>,
    /// `<this folder>/appendix-c/`, translated.
    pub c: Option<Folder<'a>>,
}

/// A cell: its text and the marks of the results behind it.
type Cell = (String, Mark);
/// Reads one cell from one experiment's saved output.
type Read = fn(&str, &DataFile) -> Option<Cell>;

/// One row: what, where from, the book's x86 value as printed, and how each column reads it
/// (`None`: that source has no such number).
struct Line {
    what: &'static str,
    experiment: &'static str,
    book: &'static str,
    ours: Read,
    arm: Option<Read>,
    c: Option<Read>,
}

fn sig(v: f64) -> String {
    fmt::sig(v, 3)
}

/// "1.2 ns", or "1.2–3.4 ns" when the ends differ at three digits.
fn span(lo: f64, hi: f64, unit: &str) -> String {
    if sig(lo) == sig(hi) {
        key::with_unit(&sig(lo), unit)
    } else {
        key::with_unit(&format!("{}–{}", sig(lo), sig(hi)), unit)
    }
}

fn size(kib: f64) -> String {
    crate::compare::load::bytes_text(kib * 1024.0)
}

/// Key figure `name`: its value (or the `low`..`high` range an appendix folder gives) and mark.
fn fig(exp: &str, f: &DataFile, name: &str) -> Option<Cell> {
    let k = key::find(f, name)?;
    let text = match k.value {
        Some(_) => k.show(3),
        None => {
            let b = f.block(key::BLOCK)?;
            let i = b.texts(key::FIGURE)?.iter().position(|n| n == name)?;
            let lo = b.nums(measure::schema::key_figures::LOW)?[i]?;
            let hi = b.nums(measure::schema::key_figures::HIGH)?[i]?;
            span(lo, hi, &k.unit)
        }
    };
    let m = crate::experiments::key_mark(f, exp, name).unwrap_or_default();
    Some((text, m))
}

/// Key figure `name`, then `ratio` after a comma when there is one, then `tail`.
fn fig_ratio(exp: &str, f: &DataFile, name: &str, ratio: &str, tail: &str) -> Option<Cell> {
    let (mut text, mut m) = fig(exp, f, name)?;
    if let Some((r, rm)) = fig(exp, f, ratio) {
        text = format!("{text}, {r}");
        m = m.or(rm);
    }
    Some((format!("{text}{tail}"), m))
}

/// `(x, y)` of the rows of block `block` whose `y` is a number, and the block's mark (its own,
/// or any of the used rows disturbed).
fn pairs(f: &DataFile, block: &str, x: &str, y: &str) -> Option<(Vec<(f64, f64)>, Mark)> {
    let b = f.block(block)?;
    let (xs, ys) = (b.nums(x)?, b.nums(y)?);
    let mut m = marks::block(f, block).unwrap_or_default();
    let dist = marks::disturbed_rows(f, b);
    let mut out = Vec::new();
    for (i, (x, y)) in xs.into_iter().zip(ys).enumerate() {
        if let (Some(x), Some(y)) = (x, y) {
            out.push((x, y));
            m.provisional |= dist[i];
        }
    }
    (!out.is_empty()).then_some((out, m))
}

/// The value at `x` (exactly) of block `block`.
fn at(f: &DataFile, block: &str, xc: &str, yc: &str, x: f64) -> Option<(f64, Mark)> {
    let (rows, m) = pairs(f, block, xc, yc)?;
    rows.iter().find(|r| r.0 == x).map(|r| (r.1, m))
}

/// The latency block's index chase over the sizes `keep` picks: "2.13–6.44 ns, 1.6–4.8x
/// (64 KiB–1 MiB)", the ratio against the smallest working set.
fn ladder(f: &DataFile, keep: impl Fn(usize, f64) -> bool) -> Option<Cell> {
    let lb = cl::latency::BLOCK;
    let (rows, m) = pairs(f, lb, cl::latency::KIB, cl::latency::INDEX_NS)?;
    let base = rows.first()?.1;
    let sel: Vec<(f64, f64)> = rows
        .iter()
        .enumerate()
        .filter(|(i, r)| keep(*i, r.0))
        .map(|(_, r)| *r)
        .collect();
    let (lo_k, hi_k) = (sel.first()?.0, sel.last()?.0);
    let lo = sel.iter().map(|r| r.1).fold(f64::INFINITY, f64::min);
    let hi = sel.iter().map(|r| r.1).fold(f64::NEG_INFINITY, f64::max);
    let sizes = if lo_k == hi_k {
        size(lo_k)
    } else {
        format!("{}–{}", size(lo_k), size(hi_k))
    };
    let ratio = if base > 0.0 && lo_k > rows[0].0 {
        format!(", {}", span(lo / base, hi / base, "x"))
    } else {
        String::new()
    };
    Some((format!("{}{ratio} ({sizes})", span(lo, hi, "ns")), m))
}

/// The sizes the `where` column puts at cache level `level` ("L1" matches "L1d").
fn level(f: &DataFile, level: &str) -> Option<Cell> {
    let wh = f.block(cl::latency::BLOCK)?.texts(cl::latency::WHERE)?;
    ladder(f, |i, _| wh.get(i).is_some_and(|w| w.starts_with(level)))
}

/// The phone reports no cache sizes: its levels are the book's reading of its curve.
fn phone_sizes(f: &DataFile, lo_kib: f64, hi_kib: f64) -> Option<Cell> {
    ladder(f, |_, k| k >= lo_kib && k <= hi_kib)
}

/// The largest working set, and its factor (the saved key figure, else computed).
fn largest(exp: &str, f: &DataFile) -> Option<Cell> {
    let (rows, m) = pairs(
        f,
        cl::latency::BLOCK,
        cl::latency::KIB,
        cl::latency::INDEX_NS,
    )?;
    let (first, last) = (rows.first()?, rows.last()?);
    let factor = match fig(exp, f, cl::key::LADDER_FACTOR) {
        Some((t, _)) => t,
        None => format!("{}x", sig(last.1 / first.1)),
    };
    Some((
        format!("{} ns, {factor} ({})", sig(last.1), size(last.0)),
        m,
    ))
}

fn seq_largest(_: &str, f: &DataFile) -> Option<Cell> {
    let (rows, m) = pairs(f, cl::latency::BLOCK, cl::latency::KIB, cl::latency::SEQ_NS)?;
    Some((format!("{} ns", sig(rows.last()?.1)), m))
}

/// The stride walk at `bytes`, with its ratio against stride 1 where the block has one.
fn stride_at(f: &DataFile, bytes: f64) -> Option<Cell> {
    let (b, x, y) = (
        stride::stride::BLOCK,
        stride::stride::STRIDE_BYTES,
        stride::stride::APPENDIX_NS,
    );
    let (v, m) = at(f, b, x, y, bytes)?;
    let ratio = at(f, b, x, y, 1.0)
        .filter(|_| bytes != 1.0)
        .map_or(String::new(), |(one, _)| {
            format!(", {}x stride 1", sig(v / one))
        });
    Some((format!("{} ns{ratio}", sig(v)), m))
}

/// The TLB walk's first (`last` false) or last row, with the factor over the first.
fn pages(f: &DataFile, last: bool) -> Option<Cell> {
    let p = tlb_walk::pages::PAGES;
    let (rows, m) = pairs(f, tlb_walk::pages::BLOCK, p, tlb_walk::pages::OFFSET0_NS)?;
    let first = *rows.first()?;
    let r = if last { *rows.last()? } else { first };
    let n = fmt::grouped(r.0 as u64);
    if last && rows.len() > 1 {
        // The saved key figure where there is one (the same ratio, from one definition).
        let factor = match fig(tlb_walk::EXPERIMENT, f, tlb_walk::key::PAGES_FACTOR_OFFSET0) {
            Some((t, _)) => t,
            None => format!("{}x", sig(r.1 / first.1)),
        };
        Some((format!("{} ns, {factor} ({n} pages)", sig(r.1)), m))
    } else {
        Some((format!("{} ns ({n} pages)", sig(r.1)), m))
    }
}

/// The branch patterns' median ns by pattern name.
fn patterns(f: &DataFile) -> Option<(Vec<(String, f64)>, Mark)> {
    let pb = branch::patterns::BLOCK;
    let b = f.block(pb)?;
    let names = b.texts(branch::patterns::PATTERN)?;
    let ns = b.nums(branch::patterns::MEDIAN_NS)?;
    let mut m = marks::block(f, pb).unwrap_or_default();
    m.provisional |= marks::disturbed_rows(f, b).iter().any(|d| *d);
    let rows: Vec<(String, f64)> = names
        .into_iter()
        .zip(ns)
        .filter_map(|(n, v)| Some((n, v?)))
        .collect();
    (!rows.is_empty()).then_some((rows, m))
}

const RANDOM: &str = "random";

fn predicted(_: &str, f: &DataFile) -> Option<Cell> {
    let (rows, m) = patterns(f)?;
    let v: Vec<f64> = rows.iter().filter(|r| r.0 != RANDOM).map(|r| r.1).collect();
    let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    (!v.is_empty()).then(|| (format!("{} (regular patterns)", span(lo, hi, "ns")), m))
}

fn unpredictable(_: &str, f: &DataFile) -> Option<Cell> {
    let (rows, m) = patterns(f)?;
    let r = rows.iter().find(|r| r.0 == RANDOM)?.1;
    let ratio = rows
        .iter()
        .find(|r| r.0 == "always_true")
        .map_or(String::new(), |a| {
            format!(", {}x always-true", sig(r / a.1))
        });
    Some((format!("{} ns{ratio}", sig(r)), m))
}

/// False sharing: the phone's ratio to a perfect split at the nearest distance, or the ns
/// of the nearest distance over the first distance a line apart (the C program).
fn sharing(_: &str, f: &DataFile) -> Option<Cell> {
    let (b, d) = (fs::distance::BLOCK, fs::distance::DISTANCE_BYTES);
    if let Some((rows, m)) = pairs(f, b, d, fs::distance::NS_MEDIAN) {
        let near = rows.first()?;
        let apart = rows.iter().find(|r| r.0 >= 64.0)?;
        let text = format!(
            "{}x ({} B vs {} B apart)",
            sig(near.1 / apart.1),
            near.0,
            apart.0
        );
        return Some((text, m));
    }
    let (rows, m) = pairs(f, b, d, fs::distance::VS_SPLIT_MEDIAN)?;
    let near = rows.first()?;
    Some((format!("{}x a split ({} B apart)", sig(near.1), near.0), m))
}

/// The C program's operation `op` per element over its multiply.
fn c_op(f: &DataFile, op: &str) -> Option<Cell> {
    let b = f.block(fp_cost::ops::BLOCK)?;
    let names = b.texts(fp_cost::ops::OP)?;
    let ns = b.nums(fp_cost::APPENDIX_LOOP_NS)?;
    let get = |n: &str| names.iter().position(|x| x == n).and_then(|i| ns[i]);
    let (v, mul) = (get(op)?, get("multiply")?);
    Some((format!("{}x (see below)", sig(v / mul)), Mark::default()))
}

/// One row of Table 105.26: what it measures, the experiment, the book's figure, and how
/// ours, the phone's and the C program's cells are read.
const fn line(
    what: &'static str,
    experiment: &'static str,
    book: &'static str,
    ours: Read,
    arm: Option<Read>,
    c: Option<Read>,
) -> Line {
    Line {
        what,
        experiment,
        book,
        ours,
        arm,
        c,
    }
}

/// The false-sharing rows' cell: an atomic increment, one thread.
fn fs_fig(e: &str, f: &DataFile) -> Option<Cell> {
    fig(e, f, fs::key::ATOMIC_1T)
}

/// Table 105.26's rows, in the book's order.
const LINES: &[Line] = &[
    line(
        "reading the clock once",
        clock_probe::EXPERIMENT,
        "about 17 ns",
        |e, f| fig(e, f, clock_probe::key::CLOCK_READ),
        Some(|e, f| fig(e, f, clock_probe::key::CLOCK_READ)),
        None,
    ),
    line(
        "random access within L1 (index chase)",
        cl::EXPERIMENT,
        "about 1.4 ns",
        |_, f| level(f, "L1"),
        Some(|_, f| phone_sizes(f, 0.0, 64.0)),
        Some(|_, f| level(f, "L1")),
    ),
    line(
        "within L2",
        cl::EXPERIMENT,
        "about 2.5–5.6 ns, 2–4x",
        |_, f| level(f, "L2"),
        Some(|_, f| phone_sizes(f, 128.0, 512.0)),
        Some(|_, f| level(f, "L2")),
    ),
    line(
        "within L3",
        cl::EXPERIMENT,
        "about 10–15 ns, 7–10x",
        |_, f| level(f, "L3"),
        Some(|_, f| phone_sizes(f, 1024.0, 4096.0)),
        Some(|_, f| level(f, "L3")),
    ),
    line(
        "main memory (largest working set, index chase)",
        cl::EXPERIMENT,
        "about 86 ns, about 60x",
        |e, f| fig_ratio(e, f, cl::key::LARGEST_INDEX_NS, cl::key::LADDER_FACTOR, ""),
        Some(largest),
        Some(largest),
    ),
    line(
        "sweeping in order (largest set)",
        cl::EXPERIMENT,
        "about 0.4 ns",
        |e, f| fig(e, f, cl::key::LARGEST_SEQ_NS),
        Some(|e, f| fig(e, f, "sequential_any_size")),
        Some(seq_largest),
    ),
    line(
        "stride of 1 byte (our baseline)",
        stride::EXPERIMENT,
        "-",
        |e, f| fig(e, f, stride::key::STRIDE_1),
        None,
        Some(|_, f| stride_at(f, 1.0)),
    ),
    line(
        "stride of 8 bytes (the book's baseline)",
        stride::EXPERIMENT,
        "about 0.8 ns",
        |_, f| stride_at(f, 8.0),
        Some(|_, f| stride_at(f, 8.0)),
        Some(|_, f| stride_at(f, 8.0)),
    ),
    line(
        "stride of the line size (64 bytes)",
        stride::EXPERIMENT,
        "about 3.2 ns, about 4x stride 8",
        |e, f| {
            let r = stride::key::LINE_OVER_STRIDE_1;
            fig_ratio(e, f, stride::key::STRIDE_LINE, r, " stride 1")
        },
        Some(|e, f| fig_ratio(e, f, "stride_line", "line_over_stride_8", " stride 8")),
        Some(|_, f| stride_at(f, 64.0)),
    ),
    line(
        "one field from an array of structs",
        stride::EXPERIMENT,
        "about 2.7 ns, 2.3x",
        |e, f| fig_ratio(e, f, stride::key::AOS_X, stride::key::AOS_OVER_SOA, ""),
        Some(|e, f| fig_ratio(e, f, stride::key::AOS_X, stride::key::AOS_OVER_SOA, "")),
        None,
    ),
    line(
        "walking the fewest pages (slot at offset 0)",
        tlb_walk::EXPERIMENT,
        "about 3.5 ns (16 pages)",
        |_, f| pages(f, false),
        Some(|_, f| pages(f, false)),
        Some(|_, f| pages(f, false)),
    ),
    line(
        "walking the most pages (slot at offset 0)",
        tlb_walk::EXPERIMENT,
        "about 90 ns, about 25x (65,536 pages)",
        |_, f| pages(f, true),
        Some(|_, f| pages(f, true)),
        Some(|_, f| pages(f, true)),
    ),
    line(
        "touching a page the first time",
        tlb_walk::EXPERIMENT,
        "around 1,000 ns, about 100x",
        |e, f| fig_ratio(e, f, tlb_walk::key::FIRST_TOUCH_NS, FIRST_TOUCH_FACTOR, ""),
        Some(|e, f| fig_ratio(e, f, tlb_walk::key::FIRST_TOUCH_NS, FIRST_TOUCH_FACTOR, "")),
        None,
    ),
    line(
        "a predicted branch",
        branch::EXPERIMENT,
        "about 0.5–1.0 ns",
        predicted,
        None,
        Some(predicted),
    ),
    line(
        "an unpredictable branch",
        branch::EXPERIMENT,
        "about 3.9 ns, about 5x",
        unpredictable,
        None,
        Some(unpredictable),
    ),
    line(
        "sorted vs random input, the branch kept",
        branch::EXPERIMENT,
        "-",
        |e, f| fig(e, f, branch::key::REAL_BRANCH_RANDOM_OVER_SORTED),
        None,
        None,
    ),
    line(
        "one misprediction",
        branch::EXPERIMENT,
        "about 6 ns",
        |e, f| {
            let (t, m) = fig(e, f, branch::key::MISPREDICT)?;
            let cyc =
                fig(e, f, "mispredict_cycles").map_or(String::new(), |c| format!(" ({})", c.0));
            Some((format!("{t}{cyc}"), m))
        },
        None,
        None,
    ),
    line(
        "false sharing (same line)",
        fs::EXPERIMENT,
        "1.38x a perfect split (8 bytes)",
        |e, f| {
            let (t, m) = fig(e, f, fs::key::SAME_LINE_VS_APART_2T)?;
            Some((format!("{t} a line apart (2 threads)"), m))
        },
        Some(sharing),
        Some(sharing),
    ),
    line(
        "atomic increment, uncontended",
        fs::EXPERIMENT,
        "about 5.2 ns",
        fs_fig,
        Some(fs_fig),
        None,
    ),
    line(
        "atomic increment, two contending",
        fs::EXPERIMENT,
        "about 19 ns",
        |e, f| fig(e, f, fs::key::ATOMIC_2T),
        Some(|e, f| fig(e, f, fs::key::ATOMIC_2T)),
        None,
    ),
    line(
        "a lock, two contending",
        fs::EXPERIMENT,
        "about 70 ns",
        |e, f| fig(e, f, fs::key::MUTEX_2T),
        Some(|e, f| fig(e, f, fs::key::MUTEX_2T)),
        None,
    ),
    line(
        "core to core, one way",
        fs::EXPERIMENT,
        "not printed",
        |e, f| fig(e, f, fs::key::C2C_ONE_WAY_MEDIAN),
        None,
        None,
    ),
    line(
        "multiplying denormals vs normal numbers",
        fp_cost::EXPERIMENT,
        "73.2x",
        |e, f| fig(e, f, fp_cost::key::DENORMAL_OVER_NORMAL),
        None,
        None,
    ),
    line(
        "division vs multiplication (per element)",
        fp_cost::EXPERIMENT,
        "3.7x",
        |e, f| {
            fig(e, f, fp_cost::key::PER_ELEMENT_DIV_OVER_MUL).or_else(|| {
                let (t, m) = fig(e, f, fp_cost::key::DIV_OVER_MUL_THROUGHPUT)?;
                Some((format!("{t} (throughput: no per-element figure saved)"), m))
            })
        },
        None,
        Some(|_, f| c_op(f, "divide")),
    ),
    line(
        "sin vs multiplication (per element)",
        fp_cost::EXPERIMENT,
        "25x",
        |e, f| fig(e, f, fp_cost::key::PER_ELEMENT_SIN_OVER_MUL),
        None,
        Some(|_, f| c_op(f, "sin")),
    ),
];

const FIRST_TOUCH_FACTOR: &str = tlb_walk::key::FIRST_TOUCH_FACTOR;

/// One column's cell: the reader on the source's file; "not measured" where the source has
/// no file of the experiment, "-" where the file lacks the number.
fn cell(folder: &Folder, exp: &str, read: Option<Read>, absent: &str) -> String {
    let Some(f) = folder.get(exp) else {
        return absent.into();
    };
    match read.and_then(|r| r(exp, f)) {
        Some((text, m)) => m.on(&text),
        None => "-".into(),
    }
}

/// What the table sets beside our column, in words.
fn beside(src: &Sources) -> String {
    let mut beside = vec!["the book's values for the author's x86 machine"];
    if src.phone.is_some() {
        beside.push("the book's ARM phone column");
    }
    if src.c.is_some() {
        beside.push("the appendix's own C programs run on this machine (`cargo xtask appendix-c`)");
    }
    let last = beside.pop().unwrap_or_default();
    if beside.is_empty() {
        last.to_string()
    } else {
        format!("{} and {last}", beside.join(", "))
    }
}

/// Table 105.26 with its notes, as markdown.
pub fn write(s: &mut String, src: &Sources) {
    let _ = writeln!(
        s,
        "## Table 105.26 on this machine\n\nThe appendix's table of everything it measured, \
         from this folder's saved outputs (medians), beside {}.\n",
        beside(src)
    );
    let mut head = "| what | this machine | the book (x86) |".to_string();
    let mut rule = "|---|---:|---:|".to_string();
    for (have, name) in [
        (src.phone.is_some(), "ARM phone (the book)"),
        (src.c.is_some(), "the C program, here"),
    ] {
        if have {
            head.push_str(&format!(" {name} |"));
            rule.push_str("---:|");
        }
    }
    let _ = writeln!(s, "{head} from |\n{rule}---|");
    for l in LINES {
        let mut row = format!(
            "| {} | {} | {} |",
            l.what,
            cell(&src.ours, l.experiment, Some(l.ours), "not in this folder"),
            l.book
        );
        if let Some(p) = &src.phone {
            row.push_str(&format!(
                " {} |",
                cell(p, l.experiment, l.arm, "not measured")
            ));
        }
        if let Some(c) = &src.c {
            row.push_str(&format!(" {} |", cell(c, l.experiment, l.c, "not run")));
        }
        let _ = writeln!(s, "{row} {} |", l.experiment);
    }
    let _ = writeln!(s);
    notes(s, src);
}

/// What the columns mean, said under the table.
fn notes(s: &mut String, src: &Sources) {
    let _ = writeln!(
        s,
        "- L1, L2 and L3 here are the working sets the `where` column puts at each level by the \
         cache sizes this machine reports (the C program's column by its own reading of them); the ratio is against the smallest working set.\n\
         - Our stride walk starts at 1 byte, the book's at 8: our ratios say \"stride 1\", the \
         book's are against stride 8, so the stride-8 row is the one to compare."
    );
    if src.phone.is_some() {
        let _ = writeln!(
            s,
            "- The ARM column is the book's phone, typed in from the appendix \
             (`results/appendix-phone/`); nothing in it was measured here. The phone reports no \
             cache sizes, so its L1, L2 and L3 rows are the sizes the book read off its curve \
             (up to 64 KiB, 128–512 KiB, 1–4 MiB). \"not measured\": the phone did not run that \
             demonstration (GCC only); \"-\": the book gives no such number."
        );
    }
    if let Some(c) = &src.c {
        let _ = writeln!(s, "{}", c_note(&src.ours, c));
    }
    let _ = writeln!(s);
}

/// Why the C program's "vs multiply" ratios may differ from ours (fp_cost 3c).
fn c_note(ours: &Folder, _c: &Folder) -> String {
    let placement = ours
        .get(fp_cost::EXPERIMENT)
        .and_then(|f| key::find(f, "placement_gcc_over_baseline"))
        .and_then(|k| k.value);
    let mut n = "- The C program's column is its own `#DATA` output; \"-\" where it prints a \
                 number only in prose. Its division and sin ratios divide by its own multiply, \
                 whose loop GCC places so that the block spans two lines of code; fp_cost's \
                 section 3c (\"where the code sits\") times that placement against its own \
                 multiply"
        .to_string();
    match placement {
        Some(p) => n.push_str(&format!(
            ": on this machine GCC's placement took {}x the one-line multiply, so the C \
             program's ratios read about that much lower than the operations' own.",
            sig(p)
        )),
        None => n.push_str(", which this folder's fp_cost output does not hold."),
    }
    n
}

/// A folder of owned files as the table reads it.
pub fn refs(m: &BTreeMap<String, DataFile>) -> Folder<'_> {
    m.iter().map(|(k, v)| (k.clone(), v)).collect()
}

/// The translated files of an appendix folder, or `None` where it is absent or unreadable.
pub fn appendix(dir: &std::path::Path) -> Option<BTreeMap<String, DataFile>> {
    let m = crate::compare::load::load(dir).ok()?;
    (m.kind == crate::compare::load::Kind::Appendix).then_some(m.runs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::data::parse;

    fn one(exp: &str, text: &str) -> BTreeMap<String, DataFile> {
        let f = parse(text).unwrap();
        BTreeMap::from([(exp.to_string(), f)])
    }

    fn row<'a>(table: &'a str, what: &str) -> Vec<&'a str> {
        let line = table
            .lines()
            .find(|l| l.starts_with(&format!("| {what} |")))
            .unwrap_or_else(|| panic!("no row {what} in\n{table}"));
        line.trim_matches('|').split(" | ").map(str::trim).collect()
    }

    const LADDER: &str = "#DATA-BEGIN latency\n#COLUMNS kib where:text index_ns seq_ns\n\
        #DATA 4 L1d 1 0.3\n#DATA 32 L1d 1.2 0.3\n#DATA 64 L2 2 0.3\n#DATA 1024 L2 5 0.3\n\
        #DATA 2048 L3 10 0.3\n#DATA 131072 memory 100 0.4\n#DATA-END\n";

    #[test]
    fn levels_come_from_the_where_column_and_the_phone_from_the_books_sizes() {
        let ours = one("cache_ladder", LADDER);
        let phone_raw = parse(
            "#DATA-BEGIN\n#DATA 4 2.3\n#DATA 64 2.3\n#DATA 128 4.4\n#DATA 512 15\n\
             #DATA 1024 19\n#DATA 4096 31\n#DATA 131072 305\n#DATA-END\n",
        )
        .unwrap();
        let phone = BTreeMap::from([(
            "cache_ladder".to_string(),
            crate::compare::appendix::translate("cache_ladder", &phone_raw),
        )]);
        let src = Sources {
            ours: refs(&ours),
            phone: Some(refs(&phone)),
            c: None,
        };
        let mut s = String::new();
        write(&mut s, &src);
        assert_eq!(
            row(&s, "random access within L1 (index chase)")[1],
            "1.00–1.20 ns (4 KiB–32 KiB)"
        );
        assert_eq!(
            row(&s, "within L2")[1],
            "2.00–5.00 ns, 2.00–5.00x (64 KiB–1 MiB)"
        );
        assert_eq!(
            row(&s, "within L2")[3],
            "4.40–15.0 ns, 1.91–6.52x (128 KiB–512 KiB)"
        );
        assert_eq!(
            row(&s, "within L3")[3],
            "19.0–31.0 ns, 8.26–13.5x (1 MiB–4 MiB)"
        );
        // The phone's memory factor is computed from its rows when it has no key figure.
        assert_eq!(
            row(&s, "main memory (largest working set, index chase)")[3],
            "305 ns, 133x (128 MiB)"
        );
        // No C column without the C program's folder; no branch file on the phone.
        assert_eq!(row(&s, "a predicted branch").len(), 5);
        assert_eq!(row(&s, "a predicted branch")[3], "not measured");
        assert_eq!(row(&s, "a predicted branch")[1], "not in this folder");
    }

    #[test]
    fn stride_8_is_read_against_stride_1_and_absent_numbers_are_a_dash() {
        let ours = one(
            "stride",
            "#DATA-BEGIN stride\n#COLUMNS stride_bytes appendix_ns\n#DATA 1 0.5\n#DATA 8 0.6\n\
             #DATA 64 2\n#DATA-END\n",
        );
        let c = ours.clone();
        let src = Sources {
            ours: refs(&ours),
            phone: None,
            c: Some(refs(&c)),
        };
        let mut s = String::new();
        write(&mut s, &src);
        let r = row(&s, "stride of 8 bytes (the book's baseline)");
        assert_eq!(r[1], "0.600 ns, 1.20x stride 1");
        assert_eq!(r[3], "0.600 ns, 1.20x stride 1");
        // No key figures saved: our line-size row has nothing to read; the C column does.
        let r = row(&s, "stride of the line size (64 bytes)");
        assert_eq!(r[1], "-");
        assert_eq!(r[3], "2.00 ns, 4.00x stride 1");
        assert!(s.contains("does not hold"), "{s}");
        assert!(
            s.contains("x86 machine and the appendix's own C programs"),
            "{s}"
        );
    }

    #[test]
    fn every_row_names_a_known_experiment() {
        for l in LINES {
            assert!(
                crate::experiments::NAMES.contains(&l.experiment),
                "{}",
                l.experiment
            );
        }
    }

    #[test]
    fn a_disturbed_block_marks_its_rows_provisional() {
        let ev = crate::marks::tests::block_text(&[("latency", 10, 9, true, false)]);
        let text = format!("{LADDER}{ev}");
        let ours = one("cache_ladder", &text);
        let src = Sources {
            ours: refs(&ours),
            phone: None,
            c: None,
        };
        let mut s = String::new();
        write(&mut s, &src);
        assert!(row(&s, "within L2")[1].starts_with("provisional: "), "{s}");
    }

    #[test]
    fn the_c_programs_ratios_and_the_placement_note() {
        let c_raw = parse("#DATA-BEGIN\n#DATA 0 0.25\n#DATA 2 1\n#DATA 4 8\n#DATA-END\n").unwrap();
        let c = BTreeMap::from([(
            "fp_cost".to_string(),
            crate::compare::appendix::translate("fp_cost", &c_raw),
        )]);
        let ours = one(
            "fp_cost",
            "#DATA-BEGIN key_figures\n#COLUMNS figure:text value unit:text\n\
             #DATA per_element_div_over_mul 4.1 x\n#DATA placement_gcc_over_baseline 1.25 x\n\
             #DATA-END\n",
        );
        let src = Sources {
            ours: refs(&ours),
            phone: None,
            c: Some(refs(&c)),
        };
        let mut s = String::new();
        write(&mut s, &src);
        let r = row(&s, "division vs multiplication (per element)");
        assert_eq!((r[1], r[3]), ("4.10x", "4.00x (see below)"));
        assert_eq!(
            row(&s, "sin vs multiplication (per element)")[3],
            "32.0x (see below)"
        );
        assert!(s.contains("took 1.25x the one-line multiply"), "{s}");
    }
}

#[cfg(test)]
mod on_the_committed_folders {
    use super::*;

    /// The reference folder, the phone and its C programs: every row of ours and every
    /// row the phone's transcription gives has a value, and the phone's rows the book marks
    /// "not measured (GCC only)" say so.
    #[test]
    fn the_reference_folder_fills_every_row() {
        let root = crate::project::root().join("results");
        let dir = root.join("amd-epyc-zen5-2c");
        let ours = crate::compare::load::load(&dir).unwrap().runs;
        let phone = appendix(&root.join("appendix-phone")).unwrap();
        let c = appendix(&dir.join("appendix-c")).unwrap();
        let src = Sources {
            ours: refs(&ours),
            phone: Some(refs(&phone)),
            c: Some(refs(&c)),
        };
        let mut s = String::new();
        write(&mut s, &src);
        for l in LINES {
            let line = s
                .lines()
                .find(|x| x.starts_with(&format!("| {} |", l.what)))
                .unwrap();
            let cells: Vec<&str> = line.trim_matches('|').split(" | ").map(str::trim).collect();
            assert!(cells[1] != "-" && !cells[1].starts_with("not"), "{line}");
            if l.arm.is_some() {
                assert!(cells[3] != "-" && !cells[3].starts_with("not"), "{line}");
            }
            if l.c.is_some() {
                assert!(cells[4] != "-" && !cells[4].starts_with("not"), "{line}");
            }
        }
    }
}
