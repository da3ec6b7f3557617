//! The statistics of a series of single passes, the `RESULT` lines, and the summary built
//! from them.
//!
//! `RESULT` lines are human text (they never start with `#`), one per figure, in four kinds:
//!
//! ```text
//! RESULT note <key> <free text>
//! RESULT series <key> n=30 min_ns=.. median_ns=.. max_ns=.. cv_pct=.. max_over_min=.. over2_pct=.. over5_pct=.. over10_pct=.. -- <label>
//! RESULT figure <key> <value> <unit> -- <label>
//! RESULT conclusion <sentence computed from the run>
//! ```
//!
//! [`summary_markdown`] turns them into `sink_bench.summary.md`; [`replace_summary`] pastes
//! that between the two marker lines of the crate's README.

use measure::data::{Block, Value, format_num};
use measure::stats::{Summary, pair_share_over};
use std::fmt::Write as _;

/// The percentages every series reports pair shares for.
pub const THRESHOLDS: [f64; 3] = [2.0, 5.0, 10.0];

/// The README line the summary starts after.
pub const BEGIN: &str = "<!-- summary:begin -->";
/// The README line the summary ends before.
pub const END: &str = "<!-- summary:end -->";

/// A series of single passes, summarised.
#[derive(Debug, Clone)]
pub struct SeriesStats {
    pub key: String,
    pub label: String,
    pub samples: Vec<f64>,
    pub summary: Summary,
    /// Share (0..=1) of all pairs differing by more than 2, 5 and 10 percent; `None` for a
    /// single sample.
    pub over: Option<[f64; 3]>,
}

impl SeriesStats {
    pub fn of(key: &str, label: &str, samples: &[f64]) -> Option<SeriesStats> {
        let summary = Summary::of(samples)?;
        let over = (samples.len() >= 2).then(|| THRESHOLDS.map(|p| pair_share_over(samples, p)));
        Some(SeriesStats {
            key: key.into(),
            label: label.into(),
            samples: samples.to_vec(),
            summary,
            over,
        })
    }

    /// [`SeriesStats::of`] for a series that holds at least one pass, as every series of a
    /// run does.
    pub fn of_passes(key: &str, label: &str, samples: &[f64]) -> SeriesStats {
        SeriesStats::of(key, label, samples).expect("a series of at least one pass")
    }

    /// Number of unordered pairs.
    pub fn pairs(&self) -> usize {
        let n = self.samples.len();
        n * n.saturating_sub(1) / 2
    }

    /// The `RESULT series` line.
    pub fn result_line(&self) -> String {
        let s = &self.summary;
        let single = self.samples.len() < 2;
        let na = |v: f64| {
            if single { "NA".into() } else { format_num(v) }
        };
        let over = |k: usize| self.over.map_or("NA".into(), |o| format_num(o[k] * 100.0));
        format!(
            "RESULT series {} n={} min_ns={} median_ns={} max_ns={} cv_pct={} max_over_min={} over2_pct={} over5_pct={} over10_pct={} -- {}",
            self.key,
            s.n,
            format_num(s.min),
            format_num(s.median),
            format_num(s.max),
            na(s.cv * 100.0),
            na(s.max_over_min),
            over(0),
            over(1),
            over(2),
            self.label
        )
    }
}

/// Prints a spread table: a heading, then one row per series.
pub fn print_spread_table(series: &[&SeriesStats]) {
    print_spread_header();
    for st in series {
        print_spread(st);
    }
}

/// Prints the heading of a spread table.
fn print_spread_header() {
    println!(
        "\n  {:<34} {:>4} {:>9} {:>9} {:>9} {:>6} {:>7} {:>7} {:>7} {:>7}",
        "series", "n", "min ns", "median", "max ns", "cv %", "max/min", ">2 %", ">5 %", ">10 %"
    );
}

/// Prints one series as a row of the spread table.
fn print_spread(st: &SeriesStats) {
    let s = &st.summary;
    let (cv, mm) = if s.n > 1 {
        (
            format!("{:.2}", s.cv * 100.0),
            format!("{:.3}", s.max_over_min),
        )
    } else {
        ("-".into(), "-".into())
    };
    let over = |k: usize| {
        st.over
            .map_or("-".into(), |o| format!("{:.1}", o[k] * 100.0))
    };
    println!(
        "  {:<34} {:>4} {:>9.0} {:>9.0} {:>9.0} {:>6} {:>7} {:>7} {:>7} {:>7}",
        st.label,
        s.n,
        s.min,
        s.median,
        s.max,
        cv,
        mm,
        over(0),
        over(1),
        over(2)
    );
}

/// Every series as the `series_summary` block.
pub fn series_block(series: &[&SeriesStats]) -> Block {
    let mut b = Block::new(
        "series_summary",
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
    for st in series {
        let s = &st.summary;
        let spread = |v: f64| -> Value { if s.n > 1 { v.into() } else { Value::Missing } };
        let over = |k: usize| -> Value { st.over.map(|o| o[k] * 100.0).into() };
        b.row(vec![
            st.key.as_str().into(),
            s.n.into(),
            s.min.into(),
            s.median.into(),
            s.max.into(),
            spread(s.cv * 100.0),
            spread(s.max_over_min),
            over(0),
            over(1),
            over(2),
        ]);
    }
    b
}

/// Of the [`THRESHOLDS`], the first that some pair of passes in either series exceeds, and
/// the first that no pair in either exceeds: `(first exceeded, first clean)`.
pub fn first_exceeded_and_clean(x: &SeriesStats, y: &SeriesStats) -> (Option<f64>, Option<f64>) {
    let (Some(ox), Some(oy)) = (x.over, y.over) else {
        return (None, None);
    };
    let shares = || THRESHOLDS.iter().zip(ox.iter().zip(&oy));
    let exceeded = shares().find(|(_, (a, b))| **a > 0.0 || **b > 0.0);
    let clean = shares().find(|(_, (a, b))| **a == 0.0 && **b == 0.0);
    (exceeded.map(|(p, _)| *p), clean.map(|(p, _)| *p))
}

/// The slowest pass of a series and what it does to single-run comparisons.
#[derive(Debug, Clone, PartialEq)]
pub struct Worst {
    pub index: usize,
    pub value: f64,
    pub over_min: f64,
    /// Pairs containing it whose difference exceeds `percent`.
    pub pairs_over: usize,
    /// Pairs containing it (n - 1).
    pub pairs_with_it: usize,
}

/// The slowest sample, and how many of its pairs differ by more than `percent` percent.
pub fn worst(samples: &[f64], percent: f64) -> Option<Worst> {
    let s = Summary::of(samples)?;
    let index = samples.iter().position(|&v| v == s.max)?;
    let pairs_over = samples
        .iter()
        .enumerate()
        .filter(|&(j, &v)| j != index && s.max > v * (1.0 + percent / 100.0))
        .count();
    Some(Worst {
        index,
        value: s.max,
        over_min: s.max_over_min,
        pairs_over,
        pairs_with_it: samples.len() - 1,
    })
}

pub fn figure_line(key: &str, value: Option<f64>, unit: &str, label: &str) -> String {
    format!(
        "RESULT figure {key} {} {unit} -- {label}",
        value.map_or("NA".into(), format_num)
    )
}

pub fn note_line(key: &str, text: &str) -> String {
    format!("RESULT note {key} {}", text.replace('\n', " "))
}

pub fn conclusion_line(text: &str) -> String {
    format!("RESULT conclusion {}", text.replace('\n', " "))
}

/// One parsed `RESULT` line.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Note {
        key: String,
        text: String,
    },
    Series {
        key: String,
        label: String,
        fields: Vec<(String, String)>,
    },
    Figure {
        key: String,
        value: String,
        unit: String,
        label: String,
    },
    Conclusion(String),
}

/// Parses every `RESULT` line of a saved output; other lines are ignored. Errors name the line.
pub fn parse_results(text: &str) -> Result<Vec<Entry>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix("RESULT ") else {
            continue;
        };
        let bad = |why: &str| format!("line {}: {why}: {line:?}", i + 1);
        let (kind, rest) = rest.split_once(' ').ok_or_else(|| bad("no kind"))?;
        let (body, label) = match rest.split_once(" -- ") {
            Some((b, l)) => (b, l.trim().to_string()),
            None => (rest, String::new()),
        };
        let mut words = body.split_whitespace();
        match kind {
            "note" => {
                let key = words.next().ok_or_else(|| bad("a note needs a key"))?;
                out.push(Entry::Note {
                    key: key.into(),
                    text: words.collect::<Vec<_>>().join(" "),
                });
            }
            "series" => {
                let key = words.next().ok_or_else(|| bad("a series needs a key"))?;
                let mut fields = Vec::new();
                for w in words {
                    let (k, v) = w.split_once('=').ok_or_else(|| bad("expected key=value"))?;
                    fields.push((k.to_string(), v.to_string()));
                }
                out.push(Entry::Series {
                    key: key.into(),
                    label,
                    fields,
                });
            }
            "figure" => {
                let w: Vec<&str> = words.collect();
                let [key, value, unit] = w[..] else {
                    return Err(bad("a figure is: key value unit -- label"));
                };
                out.push(Entry::Figure {
                    key: key.into(),
                    value: value.into(),
                    unit: unit.into(),
                    label,
                });
            }
            "conclusion" => out.push(Entry::Conclusion(rest.trim().to_string())),
            _ => return Err(bad("unknown RESULT kind")),
        }
    }
    if out.is_empty() {
        return Err("no RESULT lines: is this the output of a finished sink_bench run?".into());
    }
    Ok(out)
}

/// The summary table (Markdown) built from the `RESULT` lines alone.
pub fn summary_markdown(entries: &[Entry]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<!-- built by sink_bench from the RESULT lines of a saved run; regenerate, do not edit -->"
    );
    for e in entries {
        if let Entry::Note { key, text } = e {
            let _ = writeln!(s, "- **{}**: {text}", key.replace('_', " "));
        }
    }
    let _ = writeln!(
        s,
        "\n| series | passes | min ns | median ns | max ns | cv % | max/min | pairs > 2 % | pairs > 5 % | pairs > 10 % |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    for e in entries {
        if let Entry::Series { key, label, fields } = e {
            let get = |k: &str| {
                fields
                    .iter()
                    .find(|f| f.0 == k)
                    .map_or("?", |f| f.1.as_str())
            };
            let show = |k: &str| match get(k) {
                "NA" => "-".to_string(),
                v => v.to_string(),
            };
            let _ = writeln!(
                s,
                "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                if label.is_empty() { key } else { label },
                show("n"),
                show("min_ns"),
                show("median_ns"),
                show("max_ns"),
                round(&show("cv_pct"), 2),
                round(&show("max_over_min"), 3),
                round(&show("over2_pct"), 1),
                round(&show("over5_pct"), 1),
                round(&show("over10_pct"), 1),
            );
        }
    }
    let _ = writeln!(s, "\n| figure | value | unit |\n|---|---:|---|");
    for e in entries {
        if let Entry::Figure {
            key,
            value,
            unit,
            label,
        } = e
        {
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                if label.is_empty() { key } else { label },
                if value == "NA" { "not measured" } else { value },
                if unit == "-" { "" } else { unit }
            );
        }
    }
    let conclusions: Vec<&String> = entries
        .iter()
        .filter_map(|e| match e {
            Entry::Conclusion(c) => Some(c),
            _ => None,
        })
        .collect();
    if !conclusions.is_empty() {
        let _ = writeln!(
            s,
            "\nWhat this run says (each sentence computed from its numbers):\n"
        );
        for c in conclusions {
            let _ = writeln!(s, "- {c}");
        }
    }
    s
}

fn round(v: &str, decimals: usize) -> String {
    match v.parse::<f64>() {
        Ok(x) => format!("{x:.decimals$}"),
        Err(_) => v.to_string(),
    }
}

/// `readme` with everything between the [`BEGIN`] and [`END`] lines replaced by `summary`.
pub fn replace_summary(readme: &str, summary: &str) -> Result<String, String> {
    let lines: Vec<&str> = readme.lines().collect();
    let find = |m: &str| -> Result<usize, String> {
        let hits: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].trim() == m).collect();
        match hits[..] {
            [i] => Ok(i),
            [] => Err(format!("the README has no line {m}")),
            _ => Err(format!("the README has {m} more than once")),
        }
    };
    let (b, e) = (find(BEGIN)?, find(END)?);
    if e < b {
        return Err(format!("the README has {END} before {BEGIN}"));
    }
    let mut out = String::new();
    for l in &lines[..=b] {
        out.push_str(l);
        out.push('\n');
    }
    out.push('\n');
    out.push_str(summary.trim_end());
    out.push_str("\n\n");
    for l in &lines[e..] {
        out.push_str(l);
        out.push('\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_line_round_trips_through_the_summary() {
        let v: Vec<f64> = vec![100.0, 101.0, 110.0];
        let st = SeriesStats::of("warm", "warm pass, one process", &v).unwrap();
        assert_eq!(st.pairs(), 3);
        let line = st.result_line();
        assert!(
            line.contains("n=3 min_ns=100 median_ns=101 max_ns=110"),
            "{line}"
        );
        assert!(line.contains("over2_pct=66.6667"), "{line}");
        let text = format!(
            "human\n{line}\n{}\n{}\n{}\n",
            figure_line("ratio", Some(1.002), "x", "(c) / (b)"),
            note_line("load_before", "0.10 0.20 0.30"),
            conclusion_line("the loop was deleted")
        );
        let e = parse_results(&text).unwrap();
        assert_eq!(e.len(), 4);
        let md = summary_markdown(&e);
        assert!(
            md.contains("| warm pass, one process | 3 | 100 | 101 | 110 |"),
            "{md}"
        );
        assert!(md.contains("| 66.7 | 66.7 | 0.0 |"), "{md}");
        assert!(md.contains("| (c) / (b) | 1.002 | x |"));
        assert!(md.contains("- **load before**: 0.10 0.20 0.30"));
        assert!(md.contains("- the loop was deleted"));
    }

    #[test]
    fn single_shot_has_no_spread() {
        let st = SeriesStats::of("cold", "one shot", &[5.0]).unwrap();
        let line = st.result_line();
        assert!(
            line.contains("cv_pct=NA max_over_min=NA over2_pct=NA"),
            "{line}"
        );
        let md = summary_markdown(&parse_results(&line).unwrap());
        assert!(
            md.contains("| one shot | 1 | 5 | 5 | 5 | - | - | - | - | - |"),
            "{md}"
        );
    }

    #[test]
    fn worst_pass_and_its_pairs() {
        let v = [100.0, 101.0, 108.0, 99.0];
        let w = worst(&v, 5.0).unwrap();
        assert_eq!(
            (w.index, w.value, w.pairs_over, w.pairs_with_it),
            (2, 108.0, 3, 3)
        );
        assert!((w.over_min - 108.0 / 99.0).abs() < 1e-12);
    }

    #[test]
    fn thresholds_exceeded_and_clean() {
        let steady = SeriesStats::of("a", "a", &[100.0, 101.0, 100.5]).unwrap();
        let jumpy = SeriesStats::of("b", "b", &[100.0, 106.0, 100.0]).unwrap();
        assert_eq!(
            first_exceeded_and_clean(&steady, &jumpy),
            (Some(2.0), Some(10.0))
        );
        assert_eq!(
            first_exceeded_and_clean(&steady, &steady),
            (None, Some(2.0))
        );
        let one = SeriesStats::of("c", "c", &[5.0]).unwrap();
        assert_eq!(first_exceeded_and_clean(&one, &steady), (None, None));
    }

    #[test]
    fn bad_result_lines_are_named() {
        assert!(
            parse_results("nothing here")
                .unwrap_err()
                .contains("no RESULT")
        );
        assert!(
            parse_results("x\nRESULT bogus a")
                .unwrap_err()
                .contains("line 2")
        );
        assert!(parse_results("RESULT figure a 1").is_err());
        assert!(parse_results("RESULT series a b").is_err());
    }

    #[test]
    fn readme_markers() {
        let r = format!("# t\n\n{BEGIN}\nold\nlines\n{END}\n\nafter\n");
        let new = replace_summary(&r, "new table\n").unwrap();
        assert_eq!(
            new,
            format!("# t\n\n{BEGIN}\n\nnew table\n\n{END}\n\nafter\n")
        );
        // Replacing twice gives the same text.
        assert_eq!(replace_summary(&new, "new table").unwrap(), new);
        assert!(replace_summary("no markers", "x").is_err());
        assert!(replace_summary(&format!("{END}\n{BEGIN}\n"), "x").is_err());
        assert!(replace_summary(&format!("{BEGIN}\n{BEGIN}\n{END}\n"), "x").is_err());
    }
}
