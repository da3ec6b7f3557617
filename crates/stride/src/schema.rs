//! The names across the data boundary for `stride`: its `#DATA` blocks and their
//! columns, the key figures other tools read back, and the `#META` keys its figure reads.
//! The experiment writes with these constants and xtask (figures, summary, compare) reads
//! with them, so renaming a block or a column changes both sides or breaks the build.
//!
//! `stride`: cost by stride, lines touched, and array-of-structs against struct-of-arrays

use measure::{block, keys};

use measure::schema::median_min_max;

pub const EXPERIMENT: &str = "stride";
/// A `#META` key a figure reads.
pub const META_ACCESSES: &str = "accesses";
/// A `#META` key a figure reads.
pub const META_BUFFER_BYTES: &str = "buffer_bytes";
/// A `#META` key a figure reads.
pub const META_LINE_BYTES: &str = "line_bytes";
/// A `#META` key a figure reads.
pub const META_ELEMENTS: &str = "elements";
/// A `#META` key a figure reads.
pub const META_STRUCT_BYTES: &str = "struct_bytes";

block!(layout = "layout" keys [LAYOUT] {
    LAYOUT = "layout" [text],
    ..median_min_max,
    FACTOR = "factor",
    FETCHED_BYTES_PER_ELEMENT = "fetched_bytes_per_element",
    USED_BYTES_PER_LINE = "used_bytes_per_line",
    // The timed rounds behind the row, and how many of them were disturbed.
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(stride = "stride" keys [STRIDE_BYTES] {
    STRIDE_BYTES = "stride_bytes",
    APPENDIX_NS = "appendix_ns",
    APPENDIX_MIN_NS = "appendix_min_ns",
    APPENDIX_MAX_NS = "appendix_max_ns",
    FACTOR = "factor",
    APPENDIX_CYCLES = "appendix_cycles",
    FRESH_NS = "fresh_ns",
    FRESH_MIN_NS = "fresh_min_ns",
    FRESH_MAX_NS = "fresh_max_ns",
    LINES_PER_ACCESS = "lines_per_access",
    VAIN_BYTES = "vain_bytes",
    LAPS = "laps",
    APPENDIX_LINES = "appendix_lines",
    APPENDIX_PAGES = "appendix_pages",
    APPENDIX_SET_BYTES = "appendix_set_bytes",
    FRESH_LINES = "fresh_lines",
    FRESH_PAGES = "fresh_pages",
    FRESH_SET_BYTES = "fresh_set_bytes",
    APPENDIX_SPREAD = "appendix_spread",
    FRESH_SPREAD = "fresh_spread",
    AGREE = "agree" [text],
    APPENDIX_VAIN_BYTES = "appendix_vain_bytes",
    // The timed rounds behind the row, and how many of them were disturbed.
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
    // Whether the row is provisional: its rounds, or its stride's windows, say so.
    PROVISIONAL = "provisional" [text],
});

block!(stride_passes = "stride_passes" keys [STRIDE_BYTES, PASS] {
    STRIDE_BYTES = "stride_bytes",
    PASS = "pass" [text],
    APPENDIX_NS = "appendix_ns",
    FRESH_NS = "fresh_ns",
    // The timed rounds behind the row, and how many of them were disturbed.
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

// The fresh-lines walk at the line size and at 256 bytes (multichase's default stride):
// one new line per access both, so the ratio is what the prefetchers no longer hide.
block!(prefetch = "prefetch" {
    STRIDE_BYTES = "stride_bytes",
    FRESH_NS = "fresh_ns",
    FRESH_MIN_NS = "fresh_min_ns",
    FRESH_MAX_NS = "fresh_max_ns",
    OVER_LINE = "over_line",
    ACCESSES_PER_PAGE = "accesses_per_page",
    // The timed rounds behind the row, and how many of them were disturbed.
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

keys! {
    STRIDE_1 = "stride_1" from STRIDE_FIRST:
        "one access at stride 1 byte (the appendix's walk)",
    STRIDE_LINE = "stride_line" from STRIDE_LINE_ROW:
        "one access at the line size's stride (the appendix's walk)",
    LINE_OVER_STRIDE_1 = "line_over_stride_1" from STRIDE_FIRST_LINE:
        "an access at the line size's stride over one at stride 1 (the appendix's walk)",
    STRIDE_4096_WRAPPING = "stride_4096_wrapping" from STRIDE_WIDEST:
        "one access at stride 4096 bytes, the appendix's walk (wraps and re-reads lines)",
    STRIDE_4096_FRESH_LINES = "stride_4096_fresh_lines" from STRIDE_WIDEST:
        "one access at stride 4096 bytes, every lap on fresh lines",
    STRIDE_256_OVER_LINE_FRESH = "stride_256_over_line_fresh" from prefetch::BLOCK:
        "fresh lines: an access at stride 256 bytes over one at the line size (prefetchers)",
    AOS_X = "aos_x" from layout::BLOCK:
        "summing x from an array of structs, per element",
    SOA_X = "soa_x" from layout::BLOCK:
        "summing x from its own array (struct of arrays), per element",
    AOS_OVER_SOA = "aos_over_soa" from layout::BLOCK:
        "array of structs over struct of arrays, summing x",
}

/// The `disturbance` results of the rows key figures are read from: stride 1, the line
/// size's stride, the two together, and the widest stride.
pub const STRIDE_FIRST: &str = "stride/first";
pub const STRIDE_LINE_ROW: &str = "stride/line";
pub const STRIDE_FIRST_LINE: &str = "stride/first_line";
pub const STRIDE_WIDEST: &str = "stride/widest";

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys = measure::row_keys![stride, stride_passes, layout];
