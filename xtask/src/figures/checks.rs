//! Structural rules checked on every figure drawn from the committed reference run, once
//! with the appendix's C program's numbers (`results/amd-epyc-zen4-2c/appendix-c/`) and once with
//! the book's printed numbers (`results/appendix-book/`) as the dashed reference:
//!
//! - no legend covers data: each legend lies outside every plot area (or covers no point);
//! - every axis has at least two labels;
//! - every plotted point lies inside its plot area and inside the labelled range of each
//!   continuous axis;
//! - no `NaN` or `inf` in the SVG; the appendix's series, where drawn, is really dashed;
//! - every title names the appendix's figure or table it redraws ("Table 105.13: ...") or
//!   says it goes beyond the appendix, with no "Section 3:" prefix; times are in µs, never
//!   "us";
//! - every file a drawer writes is listed in [`super::DRAWERS`];
//! - drawing twice gives the same bytes.

use super::chart::{Dash, PanelGeom};
use super::{DRAWERS, Figure, Saved};
use std::fs;
use std::path::{Path, PathBuf};

fn results(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../results")
        .join(name)
}

/// Every rule a figure breaks, as text.
pub fn problems(f: &Figure) -> Vec<String> {
    let mut out = Vec::new();
    let g = &f.geometry;
    let name = &f.file;
    for bad in ["NaN", "inf\"", "=\"inf", "-inf"] {
        if f.svg.contains(bad) {
            out.push(format!("{name}: the SVG contains {bad:?}"));
        }
    }
    out.extend(words(f));
    let all_points: Vec<(f64, f64)> = g
        .panels
        .iter()
        .flat_map(|p| p.points.iter().copied())
        .collect();
    for l in &g.legends {
        for p in &g.panels {
            if let Some(plot) = p.plot
                && l.intersects(&plot)
                && all_points.iter().any(|q| l.contains(*q))
            {
                out.push(format!(
                    "{name}: a legend {l:?} covers data in the plot {plot:?}"
                ));
            }
        }
    }
    for (k, p) in g.panels.iter().enumerate() {
        out.extend(panel_problems(name, k, p));
    }
    for b in &g.boxes {
        let (w, h) = (f64::from(g.size.0), f64::from(g.size.1));
        if b.x0 < -1.0 || b.y0 < -1.0 || b.x1 > w + 1.0 || b.y1 > h + 1.0 {
            out.push(format!(
                "{name}: a text box {b:?} runs off the {w}x{h} figure"
            ));
        }
    }
    out
}

/// The rules panel `k` of figure `name` breaks: too few axis labels, a point outside the
/// plot or beyond the labelled range.
fn panel_problems(name: &str, k: usize, p: &PanelGeom) -> Vec<String> {
    let Some(plot) = p.plot else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let real = |t: &[(f64, String)]| t.iter().filter(|(_, l)| !l.trim().is_empty()).count();
    // Diagrams have one labelled axis; charts have two. A continuous axis needs two
    // labels to be read; an axis of categories needs one (a single measured category).
    let need = |continuous: bool| if continuous { 2 } else { 1 };
    if (!p.x_ticks.is_empty() || p.x_continuous) && real(&p.x_ticks) < need(p.x_continuous) {
        out.push(format!(
            "{name}: panel {k}: the x axis has {} labels",
            real(&p.x_ticks)
        ));
    }
    if (!p.y_ticks.is_empty() || p.y_continuous) && real(&p.y_ticks) < 2 {
        out.push(format!(
            "{name}: panel {k}: the y axis has {} labels",
            real(&p.y_ticks)
        ));
    }
    let span = |t: &[(f64, String)]| {
        let v: Vec<f64> = t.iter().map(|x| x.0).collect();
        (
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    };
    let (xa, xb) = span(&p.x_ticks);
    let (ya, yb) = span(&p.y_ticks);
    for q in &p.points {
        if !plot.grow(1.0).contains(*q) {
            out.push(format!(
                "{name}: panel {k}: point {q:?} outside the plot {plot:?}"
            ));
        }
        if p.x_continuous && (q.0 < xa - 1.0 || q.0 > xb + 1.0) {
            out.push(format!(
                "{name}: panel {k}: point {q:?} beyond the x labels {xa}..{xb}"
            ));
        }
        if p.y_continuous && (q.1 < ya - 1.0 || q.1 > yb + 1.0) {
            out.push(format!(
                "{name}: panel {k}: point {q:?} beyond the y labels {ya}..{yb}"
            ));
        }
    }
    out
}

/// What a figure's words break: its title names no appendix figure or table (nor says it
/// goes beyond the appendix), a "Section" prefix, or a time in "us".
fn words(f: &Figure) -> Vec<String> {
    let mut out = Vec::new();
    let all = &f.geometry.texts;
    let title = all.first().map_or("", String::as_str);
    let named = ["Figure 105.", "Table 105."]
        .iter()
        .any(|w| title.contains(w))
        || title.starts_with("Beyond the appendix")
        || title.starts_with("Beyond Figure 105.")
        || title.starts_with("Beyond Table 105.");
    if !named {
        out.push(format!(
            "{}: the title {title:?} names no appendix figure or table",
            f.file
        ));
    }
    if title.starts_with("Section") {
        out.push(format!("{}: the title starts with a section", f.file));
    }
    for t in all {
        if t.split(|c: char| !c.is_alphanumeric()).any(|w| w == "us") {
            out.push(format!("{}: {t:?} writes \"us\" for µs", f.file));
        }
    }
    out
}

#[test]
fn words_catch_a_missing_table_number_and_us() {
    let fig = |texts: [&str; 2]| {
        let mut f = Figure {
            file: "x.svg".into(),
            svg: String::new(),
            geometry: Default::default(),
        };
        f.geometry.texts = texts.map(String::from).to_vec();
        f
    };
    let good = fig(["Table 105.13: pages", "5 µs"]);
    assert!(words(&good).is_empty(), "{:?}", words(&good));
    let bad = fig(["Section 3: pages", "time (us)"]);
    let w = words(&bad);
    assert_eq!(w.len(), 3, "{w:?}");
}

fn draw_every(saved: &Saved) -> Vec<Figure> {
    let mut figs = Vec::new();
    for (exp, draw, files) in DRAWERS {
        if saved.run(exp).is_none() {
            continue;
        }
        let drawn = draw(saved).unwrap_or_else(|e| panic!("{exp}: {e}"));
        for f in &drawn {
            assert!(
                files.contains(&f.file.as_str()),
                "{exp} drew {} which DRAWERS does not list",
                f.file
            );
        }
        figs.extend(drawn);
    }
    figs
}

fn check_all(saved: &Saved, reference_word: &str) {
    let figs = draw_every(saved);
    assert!(figs.len() >= 20, "only {} figures", figs.len());
    let mut bad = Vec::new();
    for f in &figs {
        bad.extend(problems(f));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // The appendix's series is drawn, dashed, where the experiment has one.
    for file in [
        "cache_ladder-latency.svg",
        "stride-cost.svg",
        "tlb_walk-pages.svg",
    ] {
        let f = figs.iter().find(|f| f.file == file).expect(file);
        assert!(f.svg.contains(reference_word), "{file} names its reference");
        assert!(
            f.geometry.dashes.contains(&Dash::Long),
            "{file}: the reference is dashed"
        );
    }
    // Same input, same bytes.
    let again = draw_every(saved);
    for (a, b) in figs.iter().zip(&again) {
        assert_eq!(a.svg, b.svg, "{} is not deterministic", a.file);
    }
}

#[test]
fn the_reference_run_draws_every_figure_by_the_rules() {
    let saved = Saved::load(&results("amd-epyc-zen4-2c")).unwrap();
    assert!(saved.broken.is_empty(), "{:?}", saved.broken);
    check_all(&saved, "C program, this machine");
}

#[test]
fn the_books_printed_numbers_draw_by_the_rules_too() {
    // The reference run without its appendix-c folder, beside a copy of appendix-book:
    // the drawers fall back to the numbers printed in the book.
    let root = std::env::temp_dir().join(format!("mm-fig-book-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let run = root.join("amd-epyc-zen4-2c");
    let book = root.join("appendix-book");
    fs::create_dir_all(&run).unwrap();
    fs::create_dir_all(&book).unwrap();
    for e in fs::read_dir(results("amd-epyc-zen4-2c")).unwrap().flatten() {
        if e.path().extension().is_some_and(|x| x == "txt") {
            fs::copy(e.path(), run.join(e.file_name())).unwrap();
        }
    }
    for e in fs::read_dir(results("appendix-book")).unwrap().flatten() {
        fs::copy(e.path(), book.join(e.file_name())).unwrap();
    }
    let saved = Saved::load(&run).unwrap();
    let outcome = std::panic::catch_unwind(|| check_all(&saved, "as printed in the book"));
    let _ = fs::remove_dir_all(&root);
    if let Err(e) = outcome {
        std::panic::resume_unwind(e);
    }
}

#[test]
fn the_rules_catch_a_legend_over_data() {
    use super::chart::{PanelGeom, Rect};
    let mut f = Figure {
        file: "x.svg".into(),
        svg: String::new(),
        geometry: super::Geometry::default(),
    };
    f.geometry.texts.push("Table 105.2: x".into());
    let plot = Rect::new(0.0, 0.0, 100.0, 100.0);
    f.geometry.panels.push(PanelGeom {
        plot: Some(plot),
        points: vec![(10.0, 10.0)],
        x_ticks: vec![(0.0, "1".into()), (100.0, "2".into())],
        y_ticks: vec![(0.0, "1".into()), (100.0, "2".into())],
        x_continuous: true,
        y_continuous: true,
    });
    assert!(problems(&f).is_empty());
    f.geometry.legends.push(Rect::new(0.0, 0.0, 50.0, 50.0));
    assert!(problems(&f).iter().any(|p| p.contains("legend")));
    f.geometry.legends.clear();
    f.geometry.panels[0].points.push((10.0, 150.0));
    assert!(problems(&f).iter().any(|p| p.contains("outside")));
    f.svg = "<svg x=\"NaN\"/>".into();
    assert!(problems(&f).iter().any(|p| p.contains("NaN")));
}

/// Every block of every experiment of the reference run marked provisional in a synthetic
/// `disturbance` block: every figure still keeps the rules, and every drawer of a timed block
/// draws its points or bars hollow, with the legend entry.
#[test]
fn disturbed_figures_keep_the_rules_and_carry_the_hollow_mark() {
    let mut saved = Saved::load(&results("amd-epyc-zen4-2c")).unwrap();
    for f in saved.runs.values_mut() {
        let rows: Vec<(&str, u32, u32, bool, bool)> = f
            .blocks
            .iter()
            .filter_map(|b| b.name.as_deref())
            .map(|n| (n, 21, 9, true, false))
            .collect();
        let text = crate::marks::tests::block_text(&rows);
        let block = measure::data::parse(&text).unwrap().blocks;
        f.blocks.extend(block);
    }
    let figs = draw_every(&saved);
    let bad: Vec<String> = figs.iter().flat_map(problems).collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    for file in [
        "cache_ladder-latency.svg",
        "stride-cost.svg",
        "stride-layout.svg",
        "tlb_walk-pages.svg",
        "tlb_walk-huge.svg",
        "bandwidth-working-set.svg",
        "branch-variants.svg",
        "branch-patterns.svg",
        "fp_cost-ops.svg",
        "fp_cost-denormal.svg",
        "fp_cost-width.svg",
        "fp_cost-placement.svg",
        "false_sharing-distance.svg",
        "false_sharing-threads.svg",
        "false_sharing-shared.svg",
        "env_scan-deviation.svg",
        "clock_probe-trap3.svg",
    ] {
        let f = figs.iter().find(|f| f.file == file).expect(file);
        assert!(
            f.svg.contains(crate::marks::LEGEND),
            "{file} marks its points"
        );
    }
    // The reference run itself recorded no evidence: none of its figures carries the mark.
    let quiet = draw_every(&Saved::load(&results("amd-epyc-zen4-2c")).unwrap());
    assert!(quiet.iter().all(|f| !f.svg.contains(crate::marks::LEGEND)));
}
