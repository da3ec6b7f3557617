//! The names across the data boundary for `tlb_walk`: its `#DATA` blocks and their
//! columns, the key figures other tools read back, and the `#META` keys its figure reads.
//! The experiment writes with these constants and xtask (figures, summary, compare) reads
//! with them, so renaming a block or a column changes both sides or breaks the build.
//!
//! `tlb_walk`: time per read by pages walked, on huge pages, and the first touch of a page

use measure::{block, keys};

pub const EXPERIMENT: &str = "tlb_walk";
/// A `#META` key a figure reads: the page size the walk used, in bytes.
pub const META_PAGE_BYTES: &str = "page_bytes";
/// A `#META` key a figure reads.
pub const META_LINES_PER_PAGE: &str = "lines_per_page";
/// A `#META` key a figure reads.
pub const META_HUGE_WALK_PAGES: &str = "huge_walk_pages";

block!(first_touch = "first_touch" keys [TOUCH] {
    TOUCH = "touch" [text],
    NS_PER_PAGE = "ns_per_page",
    MIN_NS = "min_ns",
    MAX_NS = "max_ns",
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(pages = "pages" keys [PAGES] {
    PAGES = "pages",
    SPAN_KIB = "span_kib",
    OFFSET0_NS = "offset0_ns",
    OFFSET0_MIN_NS = "offset0_min_ns",
    OFFSET0_MAX_NS = "offset0_max_ns",
    OFFSET0_CYCLES = "offset0_cycles",
    OFFSET0_FACTOR = "offset0_factor",
    LINE_NS = "line_ns",
    LINE_MIN_NS = "line_min_ns",
    LINE_MAX_NS = "line_max_ns",
    LINE_CYCLES = "line_cycles",
    LINE_FACTOR = "line_factor",
    OFFSET0_PASS_SPREAD = "offset0_pass_spread",
    LINE_PASS_SPREAD = "line_pass_spread",
    AGREE = "agree" [text],
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
    PROVISIONAL = "provisional" [text],
});

block!(huge_pages = "huge_pages" keys [LAYOUT, ADVICE] {
    LAYOUT = "layout" [text],
    ADVICE = "advice" [text],
    HUGE_BACKING_PCT = "huge_backing_pct",
    NS = "ns",
    MIN_NS = "min_ns",
    MAX_NS = "max_ns",
    CYCLES = "cycles",
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
    PROVISIONAL = "provisional" [text],
});

block!(huge_verdict = "huge_verdict" keys [LAYOUT] {
    LAYOUT = "layout" [text],
    VERDICT = "verdict" [text],
    NORMAL_OVER_HUGE = "normal_over_huge",
});

keys! {
    FIRST_PAGES_LINE_NS = "first_pages_line_ns" from PAGES_FIRST:
        "one read per page, fewest pages, slot on line i mod 64",
    MOST_PAGES_LINE_NS = "most_pages_line_ns" from PAGES_MOST:
        "one read per page, most pages, slot on line i mod 64",
    FIRST_PAGES_OFFSET0_NS = "first_pages_offset0_ns" from PAGES_FIRST:
        "one read per page, fewest pages, slot at offset 0 (the appendix's method)",
    MOST_PAGES_OFFSET0_NS = "most_pages_offset0_ns" from PAGES_MOST:
        "one read per page, most pages, slot at offset 0 (the appendix's method)",
    PAGES_FACTOR_OFFSET0 = "pages_factor_offset0" from PAGES_ENDS:
        "most pages over fewest, slot at offset 0 (the appendix's method)",
    PAGES_FACTOR_LINE = "pages_factor_line" from PAGES_ENDS:
        "most pages over fewest, slot on line i mod 64",
    OFFSET0_OVER_LINE_MAX = "offset0_over_line_max" from pages::BLOCK:
        "the widest gap between offset 0 and line i mod 64 at one page count",
    HUGE_RATIO_OFFSET0 = "huge_ratio_offset0" from HUGE_OFFSET0:
        "4 KiB pages over huge pages, slot at offset 0",
    HUGE_RATIO_LINE = "huge_ratio_line" from HUGE_LINE:
        "4 KiB pages over huge pages, slot on line i mod 64",
    FIRST_TOUCH_NS = "first_touch_ns" from first_touch::BLOCK:
        "touching a page the first time",
    TOUCH_AGAIN_NS = "touch_again_ns" from first_touch::BLOCK:
        "touching an already mapped page",
    FIRST_TOUCH_FACTOR = "first_touch_factor" from first_touch::BLOCK:
        "a page's first touch over touching it again",
}

/// The `disturbance` results of the fewest pages' row, the most pages' row, and the two
/// together (the page scan is taken count by count, so each row has its own mark).
pub const PAGES_FIRST: &str = "pages/first";
pub const PAGES_MOST: &str = "pages/most";
pub const PAGES_ENDS: &str = "pages/ends";

/// The `disturbance` results of section 2's two layouts, each taken in its own window.
pub const HUGE_OFFSET0: &str = "huge_pages/offset0";
pub const HUGE_LINE: &str = "huge_pages/line";

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys =
    measure::row_keys![pages, huge_pages, huge_verdict, first_touch];
