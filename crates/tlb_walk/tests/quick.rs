//! Runs the built binary once with `--quick` and checks its output: it parses, it has every
//! block the figure needs, the huge-page verdict is consistent with the backing it printed,
//! and the one robust physical fact: touching a page for the first time costs more than
//! touching it again. How the page count changes the cost is not asserted (on a shared VM it
//! moves from run to run).

use measure::data::{Block, DataFile};
use std::sync::OnceLock;

const BIN: &str = env!("CARGO_BIN_EXE_tlb_walk");

fn quick() -> &'static DataFile {
    static OUT: OnceLock<DataFile> = OnceLock::new();
    OUT.get_or_init(|| measure::testing::run_and_parse(BIN, &["--quick"]).1)
}

fn block(name: &str) -> &'static Block {
    quick()
        .block(name)
        .unwrap_or_else(|| panic!("no block {name}"))
}

fn nums(b: &Block, col: &str) -> Vec<f64> {
    b.nums(col)
        .unwrap_or_else(|| panic!("no column {col}"))
        .into_iter()
        .map(|v| v.unwrap_or_else(|| panic!("{col} has an NA")))
        .collect()
}

/// Each key figure is marked by the result it is read from: that result was recorded.
#[test]
fn every_key_figure_finds_the_result_it_is_read_from() {
    let sources = ::tlb_walk::schema::KEY_SOURCES;
    measure::testing::check_key_sources(quick(), sources).unwrap();
}

#[test]
fn quick_run_parses_with_both_layouts_at_every_count() {
    let b = block("pages");
    assert_eq!(nums(b, "pages"), vec![16.0, 64.0, 256.0, 1024.0, 4096.0]);
    let page = quick().meta_num("page_bytes").expect("page_bytes");
    for (p, span) in nums(b, "pages").iter().zip(nums(b, "span_kib")) {
        assert_eq!(span, p * page / 1024.0);
    }
    for c in ["offset0_ns", "line_ns"] {
        let (lo, mid, hi) = (
            nums(b, &format!("{}_min_ns", &c[..c.len() - 3])),
            nums(b, c),
            nums(b, &format!("{}_max_ns", &c[..c.len() - 3])),
        );
        for i in 0..mid.len() {
            assert!(
                0.0 < lo[i] && lo[i] <= mid[i] && mid[i] <= hi[i],
                "{c} row {i}"
            );
        }
    }
    assert_eq!(nums(b, "offset0_factor")[0], 1.0);
    assert!(quick().block("key_figures").is_some());
}

#[test]
fn huge_page_verdict_follows_the_verified_backing() {
    let h = block("huge_pages");
    let advice = h.texts("advice").unwrap();
    let pct = h.nums("huge_backing_pct").unwrap();
    let v = block("huge_verdict");
    let verdicts = v.texts("verdict").unwrap();
    assert_eq!(verdicts.len(), 2, "one verdict per layout");
    let pct_of = |a: &str| pct[advice.iter().position(|x| x == a).unwrap()];
    let (hp, np) = (pct_of("hugepage"), pct_of("nohugepage"));
    for w in &verdicts {
        match w.as_str() {
            "huge_pages_won" | "huge_pages_lost" | "no_clear_difference" => {
                assert!(
                    hp.unwrap() >= 90.0 && np.unwrap() <= 10.0,
                    "a timed verdict needs verified backing: {hp:?} {np:?}"
                );
            }
            "backed_alike" => assert!((hp.unwrap() - np.unwrap()).abs() < 10.0),
            "not_as_asked" => assert!(!(hp.unwrap() >= 90.0 && np.unwrap() <= 10.0)),
            "backing_unknown" => assert!(hp.is_none() || np.is_none()),
            other => panic!("unknown verdict {other}"),
        }
    }
    // A win is claimed only with the ratio beside it saying so.
    let ratio = nums(v, "normal_over_huge");
    for (w, r) in verdicts.iter().zip(ratio) {
        if w == "huge_pages_won" {
            assert!(r >= 1.15, "{r}");
        }
    }
}

#[test]
fn first_touch_costs_more_than_touching_again() {
    let b = block("first_touch");
    let touch = b.texts("touch").unwrap();
    assert_eq!(touch, vec!["first", "again"]);
    let ns = nums(b, "ns_per_page");
    assert!(
        ns[0] > 2.0 * ns[1],
        "first {} ns, again {} ns",
        ns[0],
        ns[1]
    );
}

#[test]
fn the_report_reads_top_to_bottom_within_100_columns() {
    let text = measure::testing::assert_report(
        BIN,
        &["--quick"],
        &[
            "== the page, the line and the core clock of this machine ==",
            "== 1. how many pages before translation becomes the bottleneck ==",
            "== 2. what happens with huge pages ==",
            "== 3. the cost of touching a page for the first time ==",
        ],
    );
    // Each numbered section ends with its reading.
    assert_eq!(text.matches("how to read this run:").count(), 3, "{text}");
    // About 103 lines on a quiet machine, 113 in a quick run beside a busy loop: the marks.
    measure::testing::assert_report_length(&text, 120, 130);
}

#[test]
fn too_little_memory_skips_a_section_with_a_line_and_goes_on() {
    // 100 MB of address space holds section 1's regions and section 3's, not section 2's two
    // regions of 64 MiB: that section says why it was skipped, and the run ends normally.
    let Some(mut c) = measure::testing::command_within(BIN, 100_000) else {
        return;
    };
    let out = c.args(["--quick", "--no-data"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    measure::testing::check_report(&text, &["== 2. what happens with huge pages =="]).unwrap();
    assert!(text.contains("skipped: not enough memory"), "{text}");
    assert!(text.contains("== 3. the cost of touching a page"), "{text}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    measure::testing::assert_bad_input(BIN, "tlb_walk", &["--pages"]);
    measure::testing::assert_bad_input(BIN, "tlb_walk", &["--bogus"]);
    measure::testing::assert_not_utf8_refused(BIN, "tlb_walk");
}

/// Issue 22 (5): `tlb_walk --quick | head -1` ends quietly, not with a panic.
#[test]
fn a_closed_pipe_ends_it_quietly() {
    measure::testing::assert_quiet_on_closed_pipe(BIN, &["--quick"], true);
}
