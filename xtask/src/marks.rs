//! The marks of a busy machine, read back from a saved run (issue 21): which results were
//! *provisional* (their rounds were disturbed: other work ran on the experiment's core, or the
//! hypervisor stole it) and which were *contended* (other cores' work shared the last cache
//! level and memory with them), so that the summary, `index.html`, `compare`, the figures and
//! `cargo xtask noise` mark the same things the reports marked.
//!
//! The evidence is the run's `disturbance` block ([`measure::schema::disturbance`]), one row
//! per result (a block, or `block/part`), and the timed blocks' per-row `rounds` and
//! `disturbed_rounds` columns. A run saved before the experiments recorded it has none of
//! this: that reads as "not recorded" ([`read`] gives `None`), never as provisional. A quiet
//! run's evidence yields no mark at all.

use measure::data::{Block, DataFile};
use measure::schema::disturbance as d;

/// What the evidence says about one result, or about several together (any of them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Mark {
    /// Its rounds were disturbed: the figure is provisional.
    pub provisional: bool,
    /// Other cores' work competed for the shared levels meanwhile: contention, not noise.
    pub contended: bool,
}

impl Mark {
    /// Both marks of `self` and `o`.
    pub fn or(self, o: Mark) -> Mark {
        Mark {
            provisional: self.provisional || o.provisional,
            contended: self.contended || o.contended,
        }
    }

    /// Whether there is anything to say.
    pub fn any(self) -> bool {
        self.provisional || self.contended
    }

    /// A value as a table shows it: "provisional: 2.24 ns", "0.41 ns (contention)"; the
    /// value alone when there is nothing to mark.
    pub fn on(self, value: &str) -> String {
        let v = if self.provisional {
            format!("provisional: {value}")
        } else {
            value.to_string()
        };
        if self.contended {
            format!("{v} (contention)")
        } else {
            v
        }
    }

    /// "provisional", "contention", "provisional, contention" or "" (for a table cell).
    pub fn words(self) -> String {
        let mut w = Vec::new();
        if self.provisional {
            w.push("provisional");
        }
        if self.contended {
            w.push("contention");
        }
        w.join(", ")
    }
}

/// One row of the `disturbance` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    /// A block name, or `block/part`.
    pub result: String,
    pub rounds: Option<f64>,
    pub disturbed: Option<f64>,
    pub mark: Mark,
    /// The core's share as the block opened and as it closed, and the best read on its core
    /// before; `None` where not read (or saved before the columns existed).
    pub share: Option<(f64, f64)>,
    pub share_best: Option<f64>,
    /// The memory reference as a memory-bound block opened and as it closed, in ns a load;
    /// `None` for other blocks (or saved before the columns existed).
    pub memory: Option<(f64, f64)>,
    /// How many times the block was taken; `None` where not recorded.
    pub takes: Option<f64>,
}

/// Why a provisional result is provisional, in the order the reports name the causes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The core's share moved by more than a fifth during the block.
    ShareMoved,
    /// A share reading fell more than a tenth below the core's best.
    ShareLow,
    /// The memory reference moved by more than a quarter during a memory-bound block.
    MemoryMoved,
    /// Its rounds were disturbed (other work on its core, steal, preemption).
    Rounds,
}

impl Recorded {
    /// Whether the memory reference moved during the block, by the rule of
    /// [`measure::clock::memory::moved`]; `false` where it was not read.
    pub fn memory_moved(&self) -> bool {
        use measure::clock::memory::{MemRef, moved};
        self.memory
            .is_some_and(|(b, a)| moved(MemRef { ns: b }, MemRef { ns: a }))
    }

    /// Why this result is provisional, by the rules of [`measure::clock::share`] and
    /// [`measure::clock::memory`]; `None` when it is not.
    pub fn cause(&self) -> Option<Cause> {
        use measure::clock::share::{Share, low, moved};
        if !self.mark.provisional {
            return None;
        }
        let share = self
            .share
            .map(|(b, a)| (Share { ratio: b }, Share { ratio: a }));
        if share.is_some_and(|(b, a)| moved(b, a)) {
            Some(Cause::ShareMoved)
        } else if share
            .zip(self.share_best)
            .is_some_and(|(s, best)| low(s, Share { ratio: best }))
        {
            Some(Cause::ShareLow)
        } else if self.memory_moved() {
            Some(Cause::MemoryMoved)
        } else {
            Some(Cause::Rounds)
        }
    }
}

/// A run's evidence: every result it recorded.
#[derive(Clone, Debug, PartialEq)]
pub struct Evidence {
    pub results: Vec<Recorded>,
}

/// The evidence a saved run recorded; `None` when it recorded none (a run saved before the
/// experiments wrote it, or a block without the columns it needs).
pub fn read(f: &DataFile) -> Option<Evidence> {
    let b = f.block(d::BLOCK)?;
    let names = b.texts(d::RESULT)?;
    let prov = b.texts(d::PROVISIONAL)?;
    let none = || vec![None; b.rows.len()];
    let cont = b
        .texts(d::CONTENDED)
        .unwrap_or_else(|| vec![String::new(); names.len()]);
    let col = |c: &str| b.nums(c).unwrap_or_else(none);
    let (rounds, disturbed) = (col(d::ROUNDS), col(d::DISTURBED_ROUNDS));
    let (before, after, best) = (
        col(d::SHARE_BEFORE),
        col(d::SHARE_AFTER),
        col(d::SHARE_BEST),
    );
    let takes = col(d::TAKES);
    let (mem_before, mem_after) = (col(d::MEMORY_BEFORE), col(d::MEMORY_AFTER));
    let results = (0..names.len())
        .map(|i| Recorded {
            result: names[i].clone(),
            rounds: rounds[i],
            disturbed: disturbed[i],
            mark: Mark {
                provisional: prov[i] == "yes",
                contended: cont[i] == "yes",
            },
            share: before[i].zip(after[i]),
            share_best: best[i],
            memory: mem_before[i].zip(mem_after[i]),
            takes: takes[i],
        })
        .collect();
    Some(Evidence { results })
}

impl Evidence {
    /// Every result together.
    pub fn overall(&self) -> Mark {
        self.results
            .iter()
            .fold(Mark::default(), |m, r| m.or(r.mark))
    }

    /// The results of `block` (its own row, or its parts `block/...`) together; `None` when it
    /// recorded none.
    pub fn block(&self, block: &str) -> Option<Mark> {
        let mut rows = self
            .results
            .iter()
            .filter(|r| measure::key::of_block(&r.result, block));
        let first = rows.next()?;
        Some(rows.fold(first.mark, |m, r| m.or(r.mark)))
    }

    /// (provisional, contended, all) results.
    pub fn counts(&self) -> (usize, usize, usize) {
        let p = self.results.iter().filter(|r| r.mark.provisional).count();
        let c = self.results.iter().filter(|r| r.mark.contended).count();
        (p, c, self.results.len())
    }
}

/// The experiment's row in a summary: "not recorded", "none of 12 results", or
/// "**provisional: 3 of 12 results**; contention: 2".
pub fn describe(f: &DataFile) -> String {
    let Some(ev) = read(f) else {
        return "not recorded".into();
    };
    let (p, c, n) = ev.counts();
    let mut s = if p == 0 {
        format!("none of {n} results")
    } else {
        format!("**provisional: {p} of {n} results**")
    };
    if c > 0 {
        s.push_str(&format!("; contention: {c}"));
    }
    s
}

/// The mark of key figure `name` in its saved run `f`: its block's (from `sources`, where its
/// experiment declares each key figure's block), where the block is known and recorded
/// evidence; none for a figure no timed round gave; else its whole experiment's. `None`: not
/// recorded.
pub fn key_figure(f: &DataFile, sources: measure::key::Sources, name: &str) -> Option<Mark> {
    use measure::key::Source;
    let ev = read(f)?;
    Some(match measure::key::source(sources, name) {
        Source::Untimed => Mark::default(),
        Source::Result(b) => ev.block(b).unwrap_or_else(|| ev.overall()),
        Source::WholeRun => ev.overall(),
    })
}

/// The mark of a whole block of `f`: its own evidence; `None` where it has none (not
/// recorded, or a block that was not timed).
pub fn block(f: &DataFile, block: &str) -> Option<Mark> {
    read(f)?.block(block)
}

/// Whether row `i` of a timed block was disturbed, by its `rounds` and `disturbed_rounds`
/// columns: no clean round at all, or more disturbed rounds than the share
/// [`measure::disturb::DISTURBED_SHARE`] that makes a result provisional.
fn row_disturbed(rounds: Option<f64>, disturbed: Option<f64>) -> bool {
    match (rounds, disturbed) {
        (Some(r), Some(k)) if k > 0.0 => k >= r || k > measure::disturb::DISTURBED_SHARE * r,
        _ => false,
    }
}

/// Whether the result `name` (a block, or `block/part`; its parts together) of `f` is
/// provisional; `false` where it recorded no evidence.
pub fn provisional(f: &DataFile, name: &str) -> bool {
    block(f, name).is_some_and(|m| m.provisional)
}

/// The rows of block `b` (of the saved run `f`) a figure draws as disturbed. A block that
/// judged each row itself (a `provisional` column: its rows were taken one by one, each in
/// its own window) is drawn by that judgement; otherwise every row when the block is
/// provisional in the `disturbance` block. Beyond those, the rows whose own rounds were
/// disturbed. All `false` for a quiet run and for a run saved before any of this.
pub fn disturbed_rows(f: &DataFile, b: &Block) -> Vec<bool> {
    let own = b.texts(measure::schema::disturbance::PROVISIONAL);
    if own.is_none() && b.name.as_deref().is_some_and(|n| provisional(f, n)) {
        return vec![true; b.rows.len()];
    }
    let by_rounds = rounds_disturbed(b);
    match own {
        Some(own) => own
            .iter()
            .zip(by_rounds)
            .map(|(p, d)| p == "yes" || d)
            .collect(),
        None => by_rounds,
    }
}

/// The rows of block `b` whose own `rounds` and `disturbed_rounds` say disturbed
/// ([`row_disturbed`]).
fn rounds_disturbed(b: &Block) -> Vec<bool> {
    let none = || vec![None; b.rows.len()];
    let rounds = b
        .nums(measure::schema::disturbance::ROUNDS)
        .unwrap_or_else(none);
    let dist = b
        .nums(measure::schema::disturbance::DISTURBED_ROUNDS)
        .unwrap_or_else(none);
    rounds
        .into_iter()
        .zip(dist)
        .map(|(r, k)| row_disturbed(r, k))
        .collect()
}

/// The x values (column `x` of block `b`) of the rows a figure draws as disturbed.
pub fn disturbed_xs(f: &DataFile, b: &Block, x: &str) -> Vec<f64> {
    let Some(xs) = b.nums(x) else {
        return Vec::new();
    };
    xs.into_iter()
        .zip(disturbed_rows(f, b))
        .filter_map(|(x, d)| x.filter(|_| d))
        .collect()
}

/// Per name in `keys`: whether a row of block `b` whose text column `col` holds it was
/// disturbed ([`disturbed_rows`]); for bar charts, whose categories are rows by name.
pub fn disturbed_by(f: &DataFile, b: &Block, col: &str, keys: &[&str]) -> Vec<bool> {
    let names = b.texts(col).unwrap_or_default();
    let rows = disturbed_rows(f, b);
    keys.iter()
        .map(|k| names.iter().zip(&rows).any(|(n, &d)| n == k && d))
        .collect()
}

/// The legend entry of disturbed points in every figure.
pub const LEGEND: &str = concat!("hollow: provisional (", measure::provisional_causes!(), ")");

/// The line a diagram (a drawing that quotes measured numbers rather than plotting points)
/// prints under them when the result they come from is provisional.
pub const DIAGRAM_NOTE: &str = concat!(
    "provisional: read from a result with ",
    measure::provisional_causes!(),
    " (its report says which)"
);

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A `disturbance` block with rows `(result, rounds, disturbed, provisional, contended)`.
    pub fn block_text(rows: &[(&str, u32, u32, bool, bool)]) -> String {
        let yn = |b: bool| if b { "yes" } else { "no" };
        let mut s = format!(
            "#DATA-BEGIN {}\n#COLUMNS {}\n",
            d::BLOCK,
            d::COLUMNS.join(" ")
        );
        for (r, n, k, p, c) in rows {
            s.push_str(&format!(
                "#DATA {r} {n} {k} 0.5 0.01 0 0.3 {} {} NA NA NA 1 NA NA\n",
                yn(*p),
                yn(*c)
            ));
        }
        s + "#DATA-END\n"
    }

    fn file(rows: &[(&str, u32, u32, bool, bool)]) -> DataFile {
        measure::data::parse(&block_text(rows)).unwrap()
    }

    #[test]
    fn no_block_is_not_recorded_never_provisional() {
        let f = measure::data::parse("#META x 1\n").unwrap();
        assert!(read(&f).is_none());
        assert!(key_figure(&f, ::cache_ladder::schema::KEY_SOURCES, "first_index_ns").is_none());
        assert_eq!(describe(&f), "not recorded");
        // A block missing the columns it needs is no evidence either, and no crash.
        let odd = measure::data::parse("#DATA-BEGIN disturbance\n#COLUMNS a\n#DATA 1\n#DATA-END\n");
        assert!(read(&odd.unwrap()).is_none());
    }

    #[test]
    fn key_figures_take_their_blocks_mark_or_the_experiments() {
        let f = file(&[
            ("latency/first", 21, 0, false, false),
            ("latency/ends", 42, 9, true, false),
            ("latency/index", 31, 9, true, false),
            ("latency/pointer", 31, 0, false, false),
            ("knees", 5, 0, false, true),
        ]);
        let m = key_figure(&f, ::cache_ladder::schema::KEY_SOURCES, "ladder_factor").unwrap();
        assert!(m.provisional && !m.contended, "{m:?}");
        // A figure of one row of a scan taken row by row: that row's mark alone.
        let first = key_figure(&f, ::cache_ladder::schema::KEY_SOURCES, "first_index_ns");
        assert_eq!(first, Some(Mark::default()));
        // Unknown mapping: the whole experiment's marks.
        let all = key_figure(&f, ::cache_ladder::schema::KEY_SOURCES, "no_such_figure").unwrap();
        assert!(all.provisional && all.contended);
        // Read from several results: the same. No timed round behind it: no mark.
        let sink = ::sink_bench::schema::KEY_SOURCES;
        let whole = key_figure(&f, sink, "cold_shot_over_fresh_median").unwrap();
        assert!(whole.provisional && whole.contended);
        let env = ::env_scan::schema::KEY_SOURCES;
        let untimed = key_figure(&f, env, "stack_shift_at_pad_4096");
        assert_eq!(untimed, Some(Mark::default()));
        assert_eq!(
            describe(&f),
            "**provisional: 2 of 5 results**; contention: 1"
        );
        assert_eq!(m.on("2.24 ns"), "provisional: 2.24 ns");
        assert_eq!(
            block(&f, "lat"),
            None,
            "a prefix of a name is not its block"
        );
    }

    #[test]
    fn a_quiet_run_marks_nothing() {
        let f = file(&[
            ("latency", 31, 1, false, false),
            ("layout", 21, 0, false, false),
        ]);
        assert!(
            !key_figure(&f, ::cache_ladder::schema::KEY_SOURCES, "first_index_ns")
                .unwrap()
                .any()
        );
        assert!(
            !key_figure(&f, ::stride::schema::KEY_SOURCES, "x")
                .unwrap()
                .any()
        );
        assert_eq!(describe(&f), "none of 2 results");
        assert_eq!(Mark::default().on("1 ns"), "1 ns");
    }

    #[test]
    fn disturbed_rows_by_their_rounds_or_the_whole_block() {
        let text = "#DATA-BEGIN latency\n#COLUMNS kib ns rounds disturbed_rounds\n\
                    #DATA 4 1.1 21 0\n#DATA 8 1.2 21 1\n#DATA 16 2.2 21 9\n#DATA 32 2 3 3\n\
                    #DATA 64 2 NA NA\n#DATA-END\n";
        let f = measure::data::parse(text).unwrap();
        let b = f.block("latency").unwrap();
        assert_eq!(disturbed_rows(&f, b), [false, false, true, true, false]);
        assert_eq!(disturbed_xs(&f, b, "kib"), [16.0, 32.0]);
        let whole = format!("{text}{}", block_text(&[("latency", 100, 30, true, false)]));
        let f = measure::data::parse(&whole).unwrap();
        assert_eq!(disturbed_rows(&f, f.block("latency").unwrap()), [true; 5]);
        // Rows judged one by one: their own marks, whatever the whole block's.
        let judged = "#DATA-BEGIN latency\n#COLUMNS kib ns rounds disturbed_rounds \
                      provisional:text\n#DATA 4 1.1 21 0 no\n#DATA 8 1.2 21 0 yes\n\
                      #DATA 16 2.2 21 9 no\n#DATA-END\n";
        let whole = format!("{judged}{}", block_text(&[("latency", 63, 9, true, false)]));
        let f = measure::data::parse(&whole).unwrap();
        let b = f.block("latency").unwrap();
        assert_eq!(disturbed_rows(&f, b), [false, true, true]);
    }
}
