//! Every experiment's figures drawn from the committed runs keep the rules of
//! [`crate::figures::checks`], once with the appendix's C program's numbers
//! (`results/amd-epyc-zen4-2c/appendix-c/`) and once with the book's printed numbers
//! (`results/appendix-book/`) as the dashed reference; the appendix's series, where drawn, is
//! really dashed; every file a drawer writes is listed in its experiment's descriptor
//! ([`super::ALL`]); drawing twice gives the same bytes.

use crate::figures::checks::problems;
use crate::figures::{Figure, Saved};
use std::fs;
use std::path::{Path, PathBuf};

fn results(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../results")
        .join(name)
}

fn draw_every(saved: &Saved) -> Vec<Figure> {
    let mut figs = Vec::new();
    for e in &super::ALL {
        let exp = e.name;
        if saved.run(exp).is_none() {
            continue;
        }
        let drawn = (e.draw)(saved).unwrap_or_else(|e| panic!("{exp}: {e}"));
        for f in &drawn {
            assert!(
                e.figures.contains(&f.file.as_str()),
                "{exp} drew {} which its descriptor does not list",
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
            f.geometry
                .dashes
                .contains(&crate::figures::chart::Dash::Long),
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
    let saved = super::load(&results("amd-epyc-zen4-2c")).unwrap();
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
        if e.path().is_file() {
            fs::copy(e.path(), book.join(e.file_name())).unwrap();
        }
    }
    let saved = super::load(&run).unwrap();
    let outcome = std::panic::catch_unwind(|| check_all(&saved, "as printed in the book"));
    let _ = fs::remove_dir_all(&root);
    if let Err(e) = outcome {
        std::panic::resume_unwind(e);
    }
}

/// Every block of every experiment of the reference run marked provisional in a synthetic
/// `disturbance` block: every figure still keeps the rules, and every drawer of a timed block
/// draws its points or bars hollow, with the legend entry.
#[test]
fn disturbed_figures_keep_the_rules_and_carry_the_hollow_mark() {
    let mut saved = super::load(&results("amd-epyc-zen4-2c")).unwrap();
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
        "env_scan-regions.svg",
        "false_sharing-c2c.svg",
        "sink_bench-variants.svg",
        "sink_bench-spread.svg",
        "clock_probe-traps.svg",
        "clock_probe-trap3.svg",
    ] {
        let f = figs.iter().find(|f| f.file == file).expect(file);
        assert!(
            f.svg.contains(crate::marks::LEGEND),
            "{file} marks its points"
        );
    }
    // The reference run itself recorded no evidence: none of its figures carries the mark.
    let quiet = draw_every(&super::load(&results("amd-epyc-zen4-2c")).unwrap());
    assert!(quiet.iter().all(|f| !f.svg.contains(crate::marks::LEGEND)));
}
