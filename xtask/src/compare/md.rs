//! `compare.md`: the machines, the effects, every key figure side by side, the figures, and
//! what is missing.

use super::class;
use super::effects::{EFFECTS, sig3};
use super::figures::Overlay;
use super::keyfig::{self, KeyFig};
use super::load::{Kind, Machine};
use std::collections::BTreeSet;
use std::fmt::Write as _;

/// A table cell: pipes escaped, never empty.
fn cell(s: &str) -> String {
    let s = s.replace('|', "\\|").replace('\n', " ");
    if s.trim().is_empty() { "-".into() } else { s }
}

fn table(out: &mut String, header: &[String], align_right_from: usize, rows: &[Vec<String>]) {
    let _ = writeln!(
        out,
        "| {} |",
        header
            .iter()
            .map(|h| cell(h))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    let sep: Vec<&str> = (0..header.len())
        .map(|i| if i >= align_right_from { "---:" } else { "---" })
        .collect();
    let _ = writeln!(out, "|{}|", sep.join("|"));
    for r in rows {
        let _ = writeln!(
            out,
            "| {} |",
            r.iter().map(|c| cell(c)).collect::<Vec<_>>().join(" | ")
        );
    }
    out.push('\n');
}

/// "22.08" or "200..265".
fn value_text(k: &KeyFig) -> String {
    let n = |v: f64| super::effects::trim(super::sig4(v));
    match (k.value, k.range) {
        (Some(v), _) => n(v),
        (None, Some((a, b))) => format!("{}..{}", n(a), n(b)),
        (None, None) => "not measured".into(),
    }
}

/// The machine's figure with its ratio to the baseline's.
fn with_ratio(k: &KeyFig, base: Option<&KeyFig>, unit: &str) -> String {
    let mut s = value_text(k);
    if k.unit != unit {
        s.push(' ');
        s.push_str(&k.unit);
        return s;
    }
    if let (Some((a, b)), Some((x, y))) = (k.ends(), base.and_then(KeyFig::ends))
        && x == y
        && x != 0.0
    {
        if a == b {
            s.push_str(&format!(" ({}x)", sig3(a / x)));
        } else {
            s.push_str(&format!(" ({}..{}x)", sig3(a / x), sig3(b / x)));
        }
    }
    s
}

pub fn render(ms: &[Machine], base: usize, figs: &[Overlay], csv_rows: usize) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Comparison of {} machines\n", ms.len());
    let _ = writeln!(
        s,
        "Written by `cargo xtask compare` from saved results; nothing here was measured by the \
         comparison itself. Baseline: **{}**. A number in brackets is that machine's over the \
         baseline's. The appendix's numbers (typed in from the book, or the appendix's C programs \
         run on a machine) are compared on what they contain.\n",
        ms[base].label
    );

    let class = ms.len() > class::COLUMNS;
    let _ = writeln!(
        s,
        "Contents: [Figures](#figures){} · [Machines](#machines) · [Effects](#effects) · \
         [Key figures](#key-figures) · [Missing and odd parts](#missing-and-odd-parts) · \
         [Data](#data).\n",
        if class {
            " · [Outliers](#outliers)"
        } else {
            ""
        }
    );
    let _ = writeln!(s, "## Figures\n");
    if figs.is_empty() {
        let _ = writeln!(s, "No machine has numbers for any overlay figure.\n");
    }
    for f in figs {
        let _ = writeln!(s, "### {}\n", f.title);
        let _ = writeln!(s, "![{}]({})\n", f.title, f.file);
    }
    if class {
        class::outlier_section(&mut s, ms, base);
    }

    let _ = writeln!(s, "## Machines\n");
    // The appendix's folders have no run: "-" rather than "unknown".
    let run_fact = |v: &str, m: &Machine| {
        if m.kind == Kind::Appendix && v == "unknown" {
            "-".to_string()
        } else {
            v.to_string()
        }
    };
    if class {
        class::machines(&mut s, ms, base, &run_fact);
        let _ = writeln!(s, "## The class, effect by effect\n");
        let _ = writeln!(
            s,
            "One row per machine, sorted by the latency ladder (memory over L1, index chase), \
             the largest first. `!` marks a value beyond {} median absolute deviations from the \
             class median: the machine to look at.\n",
            sig3(super::figures::OUTLIER_MADS)
        );
        class::by_effect(&mut s, ms, base);
        let _ = writeln!(s, "## Effects\n");
        class::effects(&mut s, ms, base);
        effects_how(&mut s);
        let _ = writeln!(s, "## Key figures\n");
        let _ = writeln!(
            s,
            "Each experiment's headline numbers over the {} machines: the median, the lowest \
             and highest with the machine, the baseline's, and the machines far from the median. \
             Every machine's own are in `compare.csv`.\n",
            ms.len()
        );
        class::key_figures(&mut s, ms, base);
    } else {
        columns(&mut s, ms, base, &run_fact);
    }
    tail(&mut s, ms, csv_rows);
    fold(&s)
}

/// Prose and list items wrapped at 100 columns (a Markdown paragraph reads the same wrapped);
/// tables, code, headings and images kept whole.
fn fold(md: &str) -> String {
    let mut out = String::new();
    let mut code = false;
    for l in md.lines() {
        if l.starts_with("```") {
            code = !code;
        }
        let keep = code
            || l.chars().count() <= 100
            || l.starts_with('|')
            || l.starts_with('#')
            || l.starts_with("![");
        if keep {
            out.push_str(l);
            out.push('\n');
            continue;
        }
        let (first, rest) = if l.starts_with("- ") {
            ("- ", "  ")
        } else {
            ("", "")
        };
        let body = l.strip_prefix(first).unwrap_or(l);
        for w in super::wrap(body, 100, first, rest) {
            out.push_str(&w);
            out.push('\n');
        }
    }
    out
}

/// Up to eight names, then how many more.
fn names(v: &[&str]) -> String {
    if v.len() <= 8 {
        v.join(", ")
    } else {
        format!("{} and {} more", v[..8].join(", "), v.len() - 8)
    }
}

fn effects_how(s: &mut String) {
    let _ = writeln!(s, "How each is read:\n");
    for e in EFFECTS {
        let _ = writeln!(
            s,
            "- **{}**: {}.",
            e.name,
            e.how().split_whitespace().collect::<Vec<_>>().join(" ")
        );
    }
    s.push('\n');
}

/// Machines as columns (a few machines).
fn columns(
    s: &mut String,
    ms: &[Machine],
    base: usize,
    run_fact: &dyn Fn(&str, &Machine) -> String,
) {
    facts_by_column(s, ms, run_fact);

    let _ = writeln!(s, "## Effects\n");
    let _ = writeln!(
        s,
        "Each effect is computed by `compare` in one way for every machine, from the numbers the \
         machine has; \"not measured\" where it has none.\n"
    );
    let mut header = vec!["effect".to_string()];
    header.extend(ms.iter().map(|m| m.label.clone()));
    let rows: Vec<Vec<String>> = EFFECTS
        .iter()
        .map(|e| {
            let mut r = vec![e.name.to_string()];
            r.extend(ms.iter().map(|m| (e.cell)(m).render()));
            r
        })
        .collect();
    table(s, &header, 99, &rows);
    effects_how(s);

    let _ = writeln!(s, "## Key figures\n");
    let _ = writeln!(
        s,
        "Each experiment's headline numbers as its run (or the book) recorded them, one column per \
         machine; \"-\" where a machine has no such figure.\n"
    );
    for exp in crate::experiments::NAMES.iter() {
        key_figures_by_column(s, ms, base, exp);
    }
    marks_note(s, ms);
}

/// The machines' facts, one column per machine.
fn facts_by_column(s: &mut String, ms: &[Machine], run_fact: &dyn Fn(&str, &Machine) -> String) {
    let mut header = vec!["fact".to_string()];
    header.extend(ms.iter().map(|m| m.label.clone()));
    let fact = |name: &str, get: &dyn Fn(&Machine) -> String| -> Vec<String> {
        let mut r = vec![name.to_string()];
        r.extend(ms.iter().map(get));
        r
    };
    let rows = vec![
        fact("folder", &|m| format!("`{}`", m.dir.display())),
        fact("what it holds", &|m| m.source.clone()),
        fact("CPU", &|m| m.facts.cpu.clone()),
        fact("architecture", &|m| m.facts.arch.clone()),
        fact("logical cores", &|m| m.facts.cores.clone()),
        fact("page size", &|m| m.facts.page.clone()),
        fact("L1d", &|m| m.facts.l1d.clone()),
        fact("L2", &|m| m.facts.l2.clone()),
        fact("L3", &|m| m.facts.l3.clone()),
        fact("run", &|m| run_fact(&m.facts.run, m)),
        fact("date", &|m| run_fact(&m.facts.date, m)),
        fact("commit", &|m| run_fact(&m.facts.commit, m)),
        fact("load before (1 min)", &|m| run_fact(&m.facts.load, m)),
    ];
    table(s, &header, 99, &rows);
}

/// Experiment `exp`'s key figures, one column per machine, each with its ratio to the
/// baseline's; nothing where no machine has one.
fn key_figures_by_column(s: &mut String, ms: &[Machine], base: usize, exp: &str) {
    // Names in the baseline's order, then each other machine's new ones.
    let mut order: Vec<usize> = vec![base];
    order.extend((0..ms.len()).filter(|&i| i != base));
    let mut names: Vec<(String, String)> = Vec::new();
    for &i in &order {
        for k in keyfig::of(&ms[i], exp) {
            if !names.iter().any(|(n, _)| *n == k.name) {
                names.push((k.name.clone(), k.unit.clone()));
            }
        }
    }
    if names.is_empty() {
        return;
    }
    let _ = writeln!(s, "### {exp}\n");
    let mut header = vec!["figure".to_string(), "unit".to_string()];
    header.extend(ms.iter().map(|m| m.label.clone()));
    let rows: Vec<Vec<String>> = names
        .iter()
        .map(|(n, unit)| {
            let b = keyfig::get(&ms[base], exp, n);
            let mut r = vec![keyfig::label(exp, n), unit.clone()];
            r.extend(ms.iter().map(|m| match keyfig::get(m, exp, n) {
                Some(k) if std::ptr::eq(m, &ms[base]) => mark(m, exp, n).on(&value_text(&k)),
                Some(k) => mark(m, exp, n).on(&with_ratio(&k, b.as_ref(), unit)),
                None => "-".into(),
            }));
            r
        })
        .collect();
    table(s, &header, 2, &rows);
}

/// What is missing, and the data.
fn tail(s: &mut String, ms: &[Machine], csv_rows: usize) {
    let _ = writeln!(s, "## Missing and odd parts\n");
    let missing = missing_parts(ms);
    if missing.is_empty() {
        let _ = writeln!(
            s,
            "Nothing is missing: every machine has every experiment, block and column.\n"
        );
    } else {
        for m in missing {
            let _ = writeln!(s, "- {m}");
        }
        s.push('\n');
    }

    let _ = writeln!(s, "## Data\n");
    let _ = writeln!(
        s,
        "[`compare.csv`](compare.csv) holds every number of every machine, {csv_rows} in all, one per \
         line: `machine,experiment,block,row,column,value,unit,provisional` (described in \
         `docs/DATA-FORMAT.md`). It loads as it is:\n"
    );
    let _ = writeln!(
        s,
        "```python\nimport pandas as pd\ndf = pd.read_csv(\"compare.csv\")\n```\n\n```sql\n\
         SELECT * FROM read_csv_auto('compare.csv') WHERE experiment = 'cache_ladder';\n```"
    );
}

/// The mark of key figure `name` of `exp` on machine `m` (none where nothing was recorded).
fn mark(m: &Machine, exp: &str, name: &str) -> crate::marks::Mark {
    m.runs
        .get(exp)
        .and_then(|f| crate::experiments::key_mark(f, exp, name))
        .unwrap_or_default()
}

/// What the marks mean, said once, only where a key figure carries one.
fn marks_note(s: &mut String, ms: &[Machine]) {
    let marked: Vec<crate::marks::Mark> = ms
        .iter()
        .flat_map(|m| {
            crate::experiments::NAMES.iter().flat_map(move |exp| {
                keyfig::of(m, exp)
                    .into_iter()
                    .map(move |k| mark(m, exp, &k.name))
            })
        })
        .collect();
    if marked.iter().any(|k| k.provisional) {
        let _ = writeln!(
            s,
            "\"provisional:\" before a figure: on that machine the result it comes from had \
             disturbed rounds (other work on the experiment's core, or steal); compare it with \
             care, and rerun it there on a quiet machine. `compare.csv` says so in its \
             `provisional` column.\n"
        );
    }
    if marked.iter().any(|k| k.contended) {
        let _ = writeln!(
            s,
            "\"(contention)\" after a figure: other cores were busy while it was measured, \
             sharing the last cache level and memory with it. That is contention, not noise: \
             the figure is right for that machine under that load, not for it idle.\n"
        );
    }
}

/// Every missing part, each listed once.
pub fn missing_parts(ms: &[Machine]) -> Vec<String> {
    let mut out: Vec<String> = ms.iter().flat_map(file_problems).collect();
    // Runs of this project: blocks and columns that not every run has (another version of the
    // output format). The appendix's folders are compared on what they contain.
    let runs: Vec<&Machine> = ms.iter().filter(|m| m.kind == Kind::Run).collect();
    for exp in crate::experiments::NAMES.iter() {
        let with: Vec<&Machine> = runs
            .iter()
            .copied()
            .filter(|m| m.runs.contains_key(*exp))
            .collect();
        if with.len() < 2 {
            continue;
        }
        let blocks: BTreeSet<String> = with
            .iter()
            .flat_map(|m| m.runs[*exp].blocks.iter().filter_map(|b| b.name.clone()))
            .collect();
        for b in &blocks {
            out.extend(block_differences(exp, b, &with));
        }
    }
    out
}

/// Machine `m`'s files that are missing, empty or unreadable.
fn file_problems(m: &Machine) -> Vec<String> {
    let mut out = Vec::new();
    if !m.no_file.is_empty() {
        out.push(format!(
            "**{}** has no {} (no file).",
            m.label,
            m.no_file.join(", ")
        ));
    }
    if !m.empty.is_empty() {
        out.push(format!(
            "**{}**: {} holds no numbers.",
            m.label,
            m.empty.join(", ")
        ));
    }
    for p in &m.problems {
        out.push(format!(
            "**{}**: `{p}`; that experiment is left out, the others count.",
            m.label
        ));
    }
    out
}

/// How block `b` of `exp` differs between the runs `with` that have the experiment: the runs
/// without the block, and the columns not every run with it has.
fn block_differences(exp: &str, b: &str, with: &[&Machine]) -> Vec<String> {
    let mut out = Vec::new();
    let have: Vec<&Machine> = with
        .iter()
        .copied()
        .filter(|m| m.runs[exp].block(b).is_some())
        .collect();
    if have.len() < with.len() {
        let lacking: Vec<&str> = with
            .iter()
            .filter(|m| m.runs[exp].block(b).is_none())
            .map(|m| m.label.as_str())
            .collect();
        out.push(format!(
            "`{exp}.{b}`: no such block in {}.",
            names(&lacking)
        ));
    }
    if have.len() < 2 {
        return out;
    }
    let cols = |m: &Machine| -> Vec<String> {
        m.runs[exp]
            .block(b)
            .map(|bl| bl.columns.iter().map(|c| c.name.clone()).collect())
            .unwrap_or_default()
    };
    let all: BTreeSet<String> = have.iter().flat_map(|m| cols(m)).collect();
    let shared = all
        .iter()
        .filter(|c| have.iter().all(|m| cols(m).contains(c)))
        .count();
    for c in &all {
        let holders: Vec<&str> = have
            .iter()
            .filter(|m| cols(m).contains(c))
            .map(|m| m.label.as_str())
            .collect();
        if holders.len() < have.len() {
            out.push(format!(
                "`{exp}.{b}`: column `{c}` only in {}; compared on the {shared} columns all have.",
                names(&holders)
            ));
        }
    }
    out
}
