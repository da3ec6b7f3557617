//! Each key figure is quoted with one value everywhere: read from one saved run, the summary
//! (as committed, and Table 105.26 as this code writes it), `compare`'s output and the figures'
//! annotations must all show the value its key figure holds, to the digits they print, and
//! name its method.

use super::table;
use crate::figures::Saved;
use crate::project::{BOOK_RESULTS, root};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One quoted effect: the key figure, where it stands in Table 105.26 and in `compare.md`'s
/// effects table, and the figure that writes it with the words that name its method.
struct Quoted {
    experiment: &'static str,
    key: &'static str,
    table_row: &'static str,
    effect: Option<&'static str>,
    figure: Option<(&'static str, &'static str)>,
}

const QUOTED: &[Quoted] = &[
    Quoted {
        experiment: "cache_ladder",
        key: "ladder_factor",
        table_row: "main memory (largest working set, index chase)",
        effect: Some("L1 to memory (latency ladder)"),
        figure: Some(("cache_ladder-latency.svg", "index chase, ")),
    },
    Quoted {
        experiment: "fp_cost",
        key: "per_element_div_over_mul",
        table_row: "division vs multiplication (per element)",
        effect: None,
        figure: Some(("fp_cost-ops.svg", "divide / multiply, per element = ")),
    },
    Quoted {
        experiment: "tlb_walk",
        key: "pages_factor_offset0",
        table_row: "walking the most pages (slot at offset 0)",
        effect: Some("TLB step"),
        figure: None,
    },
    Quoted {
        experiment: "tlb_walk",
        key: "pages_factor_line",
        table_row: "",
        effect: None,
        figure: Some(("tlb_walk-pages.svg", "slot on line i mod 64,")),
    },
    Quoted {
        experiment: "false_sharing",
        key: "same_line_vs_apart_2t",
        table_row: "false sharing (same line)",
        effect: Some("false sharing"),
        figure: None,
    },
];

/// The cells of the Markdown table row that starts with `first`.
fn row<'a>(md: &'a str, first: &str) -> Vec<&'a str> {
    let want = format!("| {first} |");
    let line = md.lines().find(|l| l.starts_with(&want));
    let line = line.unwrap_or_else(|| panic!("no row \"{first}\""));
    line.trim_matches('|').split(" | ").map(str::trim).collect()
}

/// The text drawn in an SVG, one string per `<text>` element, whitespace collapsed.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = t.split_once('>')?.1.split_once("</text>")?.0;
            Some(body.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .collect()
}

/// Every figure of the saved run, drawn now: file name to SVG.
fn figures(saved: &Saved) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in &crate::experiments::ALL {
        for f in (e.draw)(saved).unwrap_or_default() {
            out.insert(f.file.to_string(), f.svg);
        }
    }
    out
}

/// `compare` over the run and the book's folder, as the command writes it: compare.md.
fn compare_md(dir: &std::path::Path) -> String {
    let out = std::env::temp_dir().join(format!("one-value-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    let o = crate::flags::Compare {
        dirs: vec![dir.to_path_buf(), root().join("results/appendix-book")],
        out: out.clone(),
        ..Default::default()
    };
    crate::compare::run(&o).unwrap();
    let md = std::fs::read_to_string(out.join("compare.md")).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    md
}

#[test]
fn every_key_figure_is_quoted_with_one_value() {
    let dir: PathBuf = root().join(BOOK_RESULTS);
    let saved = crate::experiments::load(&dir).unwrap();
    let committed = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    let mut fresh = String::new();
    let ours = saved.runs.iter().map(|(k, v)| (k.clone(), v)).collect();
    table::write(
        &mut fresh,
        &table::Sources {
            ours,
            phone: None,
            c: None,
        },
    );
    let compare = compare_md(&dir);
    let figs = figures(&saved);
    for q in QUOTED {
        let f = saved.run(q.experiment).unwrap();
        let k = measure::key::find(f, q.key).unwrap();
        let want = k.show(3);
        let at = |place: &str| format!("{} ({want}) in {place}", q.key);
        if !q.table_row.is_empty() {
            assert!(
                row(&fresh, q.table_row)[1].contains(&want),
                "{}",
                at("Table 105.26")
            );
            // The committed summary was written before the rows named their method: its row
            // starts with the same words.
            let short = q.table_row.split(" (").next().unwrap();
            let line = committed
                .lines()
                .find(|l| l.starts_with(&format!("| {short}")));
            assert!(
                line.is_some_and(|l| l.contains(&want)),
                "{}",
                at("summary.md")
            );
        }
        if let Some(e) = q.effect {
            assert!(row(&compare, e)[1].contains(&want), "{}", at("compare.md"));
        }
        if let Some((file, method)) = q.figure {
            let texts = svg_texts(&figs[file]).join(" | ");
            assert!(texts.contains(method), "{file} names no method: {texts}");
            assert!(texts.contains(&format!("= {want}")), "{}", at(file));
        }
    }
}
