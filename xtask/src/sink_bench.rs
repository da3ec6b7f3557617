//! sink_bench's summary: the run's conditions, the table of every series, the figures and
//! the verdicts, built from its saved output alone (`results/<label>/sink_bench.txt`) and
//! written beside it as `sink_bench.summary.md`. The seed's `run.sh` built the same table
//! with `awk`; the binary only measures, and this is publishing, so it lives with run-all.
//!
//! Text in, text out: [`summary_md`] takes the saved output (and its parse, done once by
//! run-all) and returns the Markdown, or one message naming the line at fault. It reads the `#META` lines and the `series_summary` and
//! `summary_figures` blocks that sink_bench writes into its data part.

use ::sink_bench::schema::{self as sc, series_summary as ss, summary_figures as sf};
use measure::data::{Block, DataFile, format_num};
use measure::fmt;
use std::fmt::Write as _;

/// The summary's file name, beside `sink_bench.txt` in a results folder.
pub const SUMMARY_FILE: &str = "sink_bench.summary.md";

/// The blocks the summary reads.
const SERIES_BLOCK: &str = sc::series_summary::BLOCK;
const FIGURES_BLOCK: &str = sc::summary_figures::BLOCK;

/// Each series' key (the `series` column) and its label in the table, in the run's order.
const SERIES: [(&str, &str); 7] = [
    ("discarded", "(a) sum discarded"),
    ("sink", "(b) sum passed to black_box"),
    ("checksum", "(c) sum stored for the checksum"),
    ("warm_in_process", "warm pass, one process"),
    ("warm_fresh", "warm pass, fresh processes"),
    ("cold_in_process", "cold pass, one process (one shot)"),
    ("cold_fresh", "cold pass, fresh processes"),
];

/// Each figure's name (the `figure` column) and its label.
const FIGURES: [(&str, &str); 12] = [
    ("clock_step", "smallest step of the clock"),
    ("a_over_b_median", "(a) median / (b) median"),
    ("a_max_over_b_median", "(a) max / (b) median"),
    ("c_over_b_median", "(c) median / (b) median"),
    ("ns_per_element", "(b) median per element"),
    (
        "cycles_per_element",
        "(b) median per element, at the core clock estimate",
    ),
    (
        "add_latency",
        "one dependent scalar float add (register-only chain)",
    ),
    (
        "fresh_over_in_process_median",
        "warm pass: fresh-process median / in-process median",
    ),
    (
        "cold_shot_over_fresh_median",
        "cold pass: the one in-process shot / fresh-process median",
    ),
    (
        "cold_shot_over_fresh_min",
        "cold pass: the one in-process shot / fresh-process minimum",
    ),
    (
        "cold_over_warm",
        "cold pass / warm pass (fresh-process medians)",
    ),
    (
        "cold_faults",
        "page faults in a fresh process's cold pass (median)",
    ),
];

/// The summary (Markdown) of a saved sink_bench output, `f` being `saved_output` parsed (the
/// text gives the line numbers in the messages). `Err` is one line that names the line of the
/// output at fault where there is one.
pub fn summary_md(saved_output: &str, f: &DataFile) -> Result<String, String> {
    if f.meta("experiment") != Some(sc::EXPERIMENT) {
        return Err(format!(
            "not a sink_bench output (#META experiment is {:?})",
            f.meta("experiment").unwrap_or("missing")
        ));
    }
    let Some(series) = f.block(SERIES_BLOCK) else {
        return Err(format!(
            "no {SERIES_BLOCK} block: is this a finished sink_bench run?"
        ));
    };
    let Some(figures) = f.block(FIGURES_BLOCK) else {
        return Err(format!(
            "no {FIGURES_BLOCK} block: this output is from an older sink_bench \
             (RESULT lines); run it again"
        ));
    };
    let m = Metas {
        text: saved_output,
        file: f,
    };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!-- built by `cargo xtask run-all` from sink_bench's saved output; do not edit -->\n"
    );
    for (what, text) in notes(&m)? {
        let _ = writeln!(s, "- **{what}**: {text}");
    }
    series_table(&mut s, series)?;
    figures_table(&mut s, figures)?;
    let verdicts: Vec<&str> = f
        .meta
        .iter()
        .filter(|(k, _)| k.starts_with("verdict_"))
        .map(|(_, v)| v.as_str())
        .collect();
    if !verdicts.is_empty() {
        let _ = writeln!(
            s,
            "\nWhat this run says (each sentence computed from its numbers):\n"
        );
        for v in verdicts {
            let _ = writeln!(s, "- {v}");
        }
    }
    Ok(s)
}

/// The `#META` lines of a saved output, read with the line each came from.
struct Metas<'a> {
    text: &'a str,
    file: &'a DataFile,
}

impl Metas<'_> {
    /// The 1-based line of the last `#META key` (the one [`DataFile::meta`] returns).
    fn line(&self, key: &str) -> usize {
        self.text
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                l.strip_prefix("#META ")
                    .and_then(|r| r.split_whitespace().next())
                    == Some(key)
            })
            .map(|(i, _)| i + 1)
            .last()
            .unwrap_or(0)
    }

    fn text(&self, key: &str) -> Result<&str, String> {
        self.file
            .meta(key)
            .ok_or_else(|| format!("no #META {key} line: is this a finished sink_bench run?"))
    }

    fn bad(&self, key: &str, wants: &str) -> String {
        format!(
            "line {}: #META {key} wants {wants}, not {}",
            self.line(key),
            measure::cli::echo(self.file.meta(key).unwrap_or(""))
        )
    }

    /// A finite number (no `NaN`, `inf` or words).
    fn num(&self, key: &str) -> Result<f64, String> {
        number(self.text(key)?).ok_or_else(|| self.bad(key, "a number"))
    }

    /// A whole number.
    fn count(&self, key: &str) -> Result<u64, String> {
        self.text(key)?
            .parse::<u64>()
            .map_err(|_| self.bad(key, "a whole number"))
    }

    /// Three load averages, or "unknown".
    fn load(&self, key: &str) -> Result<String, String> {
        let t = self.text(key)?;
        let ok = t == "unknown"
            || (t.split_whitespace().count() == 3
                && t.split_whitespace().all(|w| number(w).is_some()));
        if ok {
            Ok(t.to_string())
        } else {
            Err(self.bad(key, "three load averages or \"unknown\""))
        }
    }
}

/// A finite decimal number, as the data format writes them (never `NaN` or `inf`).
fn number(t: &str) -> Option<f64> {
    let ok = t
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | '.' | 'e' | 'E'))
        && t.chars().any(|c| c.is_ascii_digit());
    t.parse::<f64>().ok().filter(|v| ok && v.is_finite())
}

/// The run's conditions, each checked: `(what, text)`.
fn notes(m: &Metas) -> Result<Vec<(&'static str, String)>, String> {
    let kind = match m.text("quick")? {
        "yes" => "a quick (smoke) run",
        "no" => "a full run",
        _ => return Err(m.bad("quick", "yes or no")),
    };
    let (reps, runs, settle) = (m.count("reps")?, m.count("runs")?, m.count("settle_ms")?);
    let mut notes = vec![
        (
            "run",
            format!("{kind}, REPS {reps}, RUNS {runs}, SETTLE_MS {settle}"),
        ),
        ("machine", machine(m)?),
        ("pinning", pinning(m, runs)?),
        ("execution", execution(m)?),
        ("load before", m.load("load_before")?),
        ("load after", m.load("load_after")?),
    ];
    if let Some(other) = other_work(m)? {
        notes.push(("other work", other));
    }
    notes.push((
        "clock",
        format!(
            "smallest step {} ns, one read {} ns",
            format_num(m.num("clock_min_step_ns")?),
            format_num(m.num("clock_read_ns")?)
        ),
    ));
    notes.push(("checksum", checksum(m, reps)?));
    notes.push(("code", m.text("code_check")?.to_string()));
    Ok(notes)
}

/// "AMD EPYC (x86_64, 2 logical cores, kernel Linux 6.1)".
fn machine(m: &Metas) -> Result<String, String> {
    Ok(format!(
        "{} ({}, {} logical cores, kernel {})",
        m.text("cpu_model")?,
        m.text("arch")?,
        m.text("logical_cores")?,
        m.text("kernel")?
    ))
}

/// Where the processes ran: pinned to one core (with how many fresh pinnings were verified of
/// `runs`), or wherever the kernel placed them.
fn pinning(m: &Metas, runs: u64) -> Result<String, String> {
    use measure::schema::run::{META_PINNED, META_PINNED_CORE};
    let pinned = m.text(META_PINNED)? == "yes";
    if !pinned || m.file.meta(META_PINNED_CORE).is_none() {
        return Ok("none, as the seed: the kernel placed every process".to_string());
    }
    Ok(format!(
        "this process and the fresh ones on core {} ({} of {runs} fresh pinnings verified; \
         --pin, a departure from the seed, which pins nothing)",
        m.count(META_PINNED_CORE)?,
        m.count("fresh_pinned_verified")?
    ))
}

/// Which execution of the binary this output is.
fn execution(m: &Metas) -> Result<String, String> {
    Ok(match m.count("execution")? {
        2 => "the binary's second; its first made the same start and was discarded".to_string(),
        n => format!("the binary's execution {n}"),
    })
}

/// The cores other processes used during the run, where that was measured.
fn other_work(m: &Metas) -> Result<Option<String>, String> {
    let measured = m
        .file
        .meta(measure::schema::run::META_OTHER_CPU_CORES)
        .is_some_and(|v| v != "unknown");
    if !measured {
        return Ok(None);
    }
    Ok(Some(format!(
        "{:.2} cores used by other processes during the run{}",
        m.num(measure::schema::run::META_OTHER_CPU_CORES)?,
        if m.file.meta("load_warning") == Some("yes") {
            "; **the 1-minute load average was above 1**: the spreads include other work"
        } else {
            ""
        }
    )))
}

/// The checksum over `reps` passes against the expected one.
fn checksum(m: &Metas, reps: u64) -> Result<String, String> {
    let (sum, expected) = (m.num("checksum")?, m.num("checksum_expected")?);
    Ok(format!(
        "{} over {reps} passes, expected {}: {}",
        format_num(sum),
        format_num(expected),
        if sum == expected { "ok" } else { "MISMATCH" }
    ))
}

/// A numeric cell of row `r`, `None` for NA; `Err` names the block and column.
fn cell(b: &Block, col: &str, r: usize) -> Result<Option<f64>, String> {
    let name = b.name.as_deref().unwrap_or("?");
    let i = b
        .col_index(col)
        .ok_or_else(|| format!("line {}: block {name} has no column {col}", b.line))?;
    Ok(b.rows[r][i].num())
}

fn text_cell(b: &Block, col: &str, r: usize) -> Result<String, String> {
    let name = b.name.as_deref().unwrap_or("?");
    let i = b
        .col_index(col)
        .ok_or_else(|| format!("line {}: block {name} has no column {col}", b.line))?;
    Ok(b.rows[r][i].text().unwrap_or("-").to_string())
}

fn label<'a>(table: &[(&str, &'a str)], key: &'a str) -> &'a str {
    table
        .iter()
        .find(|(k, _)| *k == key)
        .map_or(key, |(_, l)| l)
}

fn series_table(s: &mut String, b: &Block) -> Result<(), String> {
    let _ = writeln!(
        s,
        "\n| series | passes | min ns | median ns | max ns | cv % | max/min | pairs > 2 % \
         | pairs > 5 % | pairs > 10 % |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for r in 0..b.rows.len() {
        let key = text_cell(b, ss::SERIES, r)?;
        let show = |col: &str, decimals: usize| -> Result<String, String> {
            Ok(cell(b, col, r)?.map_or("-".to_string(), |v| format!("{v:.decimals$}")))
        };
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            label(&SERIES, &key),
            show(ss::N, 0)?,
            show(ss::MIN_NS, 0)?,
            show(ss::MEDIAN_NS, 0)?,
            show(ss::MAX_NS, 0)?,
            show(ss::CV_PCT, 2)?,
            show(ss::MAX_OVER_MIN, 3)?,
            show(ss::OVER2_PCT, 1)?,
            show(ss::OVER5_PCT, 1)?,
            show(ss::OVER10_PCT, 1)?,
        );
    }
    Ok(())
}

fn figures_table(s: &mut String, b: &Block) -> Result<(), String> {
    let _ = writeln!(s, "\n| figure | value | unit |\n|---|---:|---|");
    for r in 0..b.rows.len() {
        let key = text_cell(b, sf::FIGURE, r)?;
        // Four significant digits, as summary.md shows key figures ("0.00002348", "1.735").
        let value = cell(b, sf::VALUE, r)?.map_or("not measured".to_string(), |v| fmt::sig(v, 4));
        let _ = writeln!(
            s,
            "| {} | {value} | {} |",
            label(&FIGURES, &key),
            text_cell(b, sf::UNIT, r)?
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::data::{self, meta_line};

    /// [`super::summary_md`] of a text, parsed here as run-all parses it.
    fn summary_md(text: &str) -> Result<String, String> {
        let f = data::parse(text).map_err(|e| e.to_string())?;
        super::summary_md(text, &f)
    }

    /// The `#META` lines of a finished full run, in the order sink_bench writes them.
    const METAS: [(&str, &str); 22] = [
        ("experiment", "sink_bench"),
        ("quick", "no"),
        ("arch", "x86_64"),
        ("cpu_model", "AMD EPYC"),
        ("kernel", "Linux 6.1"),
        ("logical_cores", "2"),
        ("load_before", "0.10 0.20 0.30"),
        ("reps", "30"),
        ("runs", "30"),
        ("settle_ms", "100"),
        ("pinned", "yes"),
        ("pinned_core", "1"),
        ("execution", "2"),
        ("clock_min_step_ns", "20"),
        ("clock_read_ns", "21.6"),
        ("checksum", "27525120"),
        ("checksum_expected", "27525120"),
        ("verdict_dead_loop", "The compiler removed the loop."),
        ("fresh_pinned_verified", "30"),
        ("code_check", "as claimed"),
        ("load_after", "0.15 0.20 0.30"),
        ("other_cpu_cores", "0.012"),
    ];

    /// A saved output as sink_bench writes it: report, then the data part; `overrides`
    /// replaces the values of some `#META` lines.
    fn saved(overrides: &[(&str, &str)]) -> String {
        let mut s = String::from("== sink_bench ==\n  some report line\n");
        for (k, v) in METAS {
            let v = overrides.iter().find(|o| o.0 == k).map_or(v, |o| o.1);
            s.push_str(&meta_line(k, v));
            s.push('\n');
        }
        s.push_str(&series_block().render());
        s.push_str(&figures_block().render());
        s
    }

    /// Two series: a warm one with every statistic, the one-shot cold one with NA.
    fn series_block() -> Block {
        let mut b = Block::new(
            SERIES_BLOCK,
            &[
                "series:text",
                "n",
                "min_ns",
                "median_ns",
                "max_ns",
                "cv_pct",
                "max_over_min",
                "over2_pct",
                "over5_pct",
                "over10_pct",
            ],
        );
        b.row(vec![
            "warm_in_process".into(),
            3.into(),
            100.0.into(),
            101.0.into(),
            110.0.into(),
            4.5.into(),
            1.1.into(),
            66.6667.into(),
            66.6667.into(),
            0.into(),
        ]);
        b.row(vec![
            "cold_in_process".into(),
            1.into(),
            5.0.into(),
            5.0.into(),
            5.0.into(),
            data::Value::Missing,
            data::Value::Missing,
            data::Value::Missing,
            data::Value::Missing,
            data::Value::Missing,
        ]);
        b
    }

    /// Two figures: one measured, one not.
    fn figures_block() -> Block {
        let mut b = Block::new(FIGURES_BLOCK, &["figure:text", "value", "unit:text"]);
        b.row(vec!["c_over_b_median".into(), 1.002.into(), "x".into()]);
        b.row(vec![
            "add_latency".into(),
            data::Value::Missing,
            "ns".into(),
        ]);
        b
    }

    #[test]
    fn the_summary_holds_conditions_series_figures_and_verdicts() {
        let md = summary_md(&saved(&[])).unwrap();
        assert!(
            md.contains("- **run**: a full run, REPS 30, RUNS 30, SETTLE_MS 100"),
            "{md}"
        );
        assert!(md.contains("- **load before**: 0.10 0.20 0.30"), "{md}");
        assert!(
            md.contains(
                "core 1 (30 of 30 fresh pinnings verified; --pin, a departure from the seed"
            ),
            "{md}"
        );
        assert!(md.contains("- **checksum**: 27525120 over 30 passes, expected 27525120: ok"));
        assert!(
            md.contains("| warm pass, one process | 3 | 100 | 101 | 110 | 4.50 | 1.100 | 66.7 | 66.7 | 0.0 |"),
            "{md}"
        );
        assert!(
            md.contains(
                "| cold pass, one process (one shot) | 1 | 5 | 5 | 5 | - | - | - | - | - |"
            ),
            "{md}"
        );
        assert!(
            md.contains("| (c) median / (b) median | 1.002 | x |"),
            "{md}"
        );
        assert!(md.contains(
            "| one dependent scalar float add (register-only chain) | not measured | ns |"
        ));
        assert!(md.contains("- The compiler removed the loop."));
        assert!(md.contains("0.01 cores used by other processes"));
        // The same input gives the same bytes.
        assert_eq!(summary_md(&saved(&[])).unwrap(), md);
        let quick = summary_md(&saved(&[("quick", "yes")])).unwrap();
        assert!(quick.contains("a quick (smoke) run"));
    }

    #[test]
    fn bad_values_are_refused_with_the_line() {
        // The #META lines start on line 3; reps is the 8th.
        for (key, value, says) in [
            (
                "reps",
                "abc",
                "line 10: #META reps wants a whole number, not \"abc\"",
            ),
            ("checksum", "NaN", "line 18: #META checksum wants a number"),
            ("clock_read_ns", "inf", "#META clock_read_ns wants a number"),
            (
                "load_after",
                "0.1 NaN 0.3",
                "#META load_after wants three load averages",
            ),
            ("quick", "maybe", "#META quick wants yes or no"),
        ] {
            let e = summary_md(&saved(&[(key, value)])).unwrap_err();
            assert!(e.contains(says), "{key} {value}: {e}");
        }
        // A NaN in a block is the parser's business, with its line.
        let text = saved(&[]).replace(
            "#DATA c_over_b_median 1.002 x",
            "#DATA c_over_b_median NaN x",
        );
        let e = summary_md(&text).unwrap_err();
        assert!(e.starts_with("line ") && e.contains("NaN"), "{e}");
    }

    #[test]
    fn missing_parts_are_named() {
        let e = summary_md("nothing here\n").unwrap_err();
        assert!(e.contains("not a sink_bench output"), "{e}");
        let old = "#META experiment sink_bench\n#DATA-BEGIN series_summary\n#COLUMNS series:text\n\
                   #DATA sink\n#DATA-END\nRESULT figure a 1 x -- a\n";
        let e = summary_md(old).unwrap_err();
        assert!(e.contains("older sink_bench"), "{e}");
        let text = saved(&[]).replace("#META code_check as claimed\n", "");
        let e = summary_md(&text).unwrap_err();
        assert!(e.contains("no #META code_check"), "{e}");
    }
}
