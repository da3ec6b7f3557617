//! The names across the data boundary for `fp_cost`: its `#DATA` blocks and their
//! columns, the key figures other tools read back, and the `#META` keys its figure reads.
//! The experiment writes with these constants and xtask (figures, summary, compare) reads
//! with them, so renaming a block or a column changes both sides or breaks the build.
//!
//! `fp_cost`: what a floating-point operation costs: latency and throughput by op, denormals, float against double

use measure::{block, group, keys};

use measure::schema::median_min_max;

pub const EXPERIMENT: &str = "fp_cost";
/// A `#META` key a figure reads.
pub const META_FP_CONTROL_REGISTER: &str = "fp_control_register";
/// The column compare's translation of the book's program gives `ops` (its own loop).
pub const APPENDIX_LOOP_NS: &str = "appendix_loop_ns";

group!(
    /// The rounds behind a timed row, and how many of them were disturbed.
    evidence {
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    }
);

block!(shape = "shape" keys [KERNEL] {
    KERNEL = "kernel" [text],
    VERDICT = "verdict" [text],
});

block!(denormal = "denormal" keys [VALUES, FTZ_DAZ] {
    VALUES = "values" [text],
    FTZ_DAZ = "ftz_daz" [text],
    ..median_min_max,
    ..evidence,
});

block!(width = "width" keys [VARIANT] {
    VARIANT = "variant" [text],
    TYPE = "type" [text],
    ORDER = "order" [text],
    SHAPE = "shape" [text],
    ..median_min_max,
    ..evidence,
});

block!(per_element = "per_element" {
    OP = "op" [text],
    EXPR = "expr" [text],
    ARRAY = "array" [text],
    ARRAY_BYTES = "array_bytes",
    ..median_min_max,
    VS_MULTIPLY = "vs_multiply",
    CASE = "case" [text],
    ..evidence,
});

// The per-element multiply with case 0's block at each placement in a 64-byte line.
block!(placement = "placement" {
    PLACEMENT_BYTES = "placement_bytes",
    AS_GCC = "as_gcc" [text],
    ..median_min_max,
    ..evidence,
});

block!(ops = "ops" keys [OP] {
    OP = "op" [text],
    STEP = "step" [text],
    CHAIN_NS = "chain_ns",
    CHAIN_MIN_NS = "chain_min_ns",
    CHAIN_MAX_NS = "chain_max_ns",
    LATENCY_NS = "latency_ns",
    LATENCY_CYCLES = "latency_cycles",
    THROUGHPUT_NS = "throughput_ns",
    THROUGHPUT_MIN_NS = "throughput_min_ns",
    THROUGHPUT_MAX_NS = "throughput_max_ns",
    THROUGHPUT_CYCLES = "throughput_cycles",
    SHAPE = "shape" [text],
    ..evidence,
});

keys! {
    DENORMAL_OVER_NORMAL = "denormal_over_normal":
        "denormal over normal values, flush-to-zero off",
    FTZ_DENORMAL_OVER_NORMAL = "ftz_denormal_over_normal":
        "denormal over normal values, flush-to-zero on",
    FLOAT_SPEEDUP_FOUR = "float_speedup_four":
        "double over float, four scalar accumulators (the appendix's loop)",
    FLOAT_SPEEDUP_STRICT = "float_speedup_strict":
        "double over float, one accumulator in strict order",
    FLOAT_SPEEDUP_LANES = "float_speedup_lanes":
        "double over float, vectorised (with lanes)",
    PER_ELEMENT_DIV_OVER_MUL = "per_element_div_over_mul":
        "divide over multiply, per element (the appendix's loop, Table 105.24)",
    PER_ELEMENT_SIN_OVER_MUL = "per_element_sin_over_mul":
        "sin over multiply, per element (the appendix's loop)",
    PLACEMENT_MAX_OVER_MIN = "placement_max_over_min":
        "the same multiply at eight places in its line of code: slowest over fastest",
    PLACEMENT_GCC_OVER_BEST = "placement_gcc_over_best":
        "the multiply where GCC places it, over its fastest place",
    PLACEMENT_GCC_OVER_BASELINE = "placement_gcc_over_baseline":
        "the multiply where GCC places it, over the per-element multiply",
    MUL_LATENCY = "mul_latency":
        "multiply, latency (one dependent chain)",
    ADD_LATENCY = "add_latency":
        "add, latency (one dependent chain)",
    DIV_LATENCY = "div_latency":
        "divide, latency (one dependent chain)",
    SQRT_LATENCY = "sqrt_latency":
        "sqrt, latency (one dependent chain)",
    SIN_LATENCY = "sin_latency":
        "sin, latency (one dependent chain)",
    MUL_LATENCY_CYCLES = "mul_latency_cycles":
        "multiply, latency in core cycles",
    DIV_LATENCY_CYCLES = "div_latency_cycles":
        "divide, latency in core cycles",
    DIV_OVER_MUL_THROUGHPUT = "div_over_mul_throughput":
        "divide over multiply, throughput (independent chains)",
    BIG_ARRAY_SPREAD = "big_array_spread":
        "arrays beyond the last-level cache: the dearest operation over the cheapest",
}

/// The block each key figure is computed from (the others take the mark of the whole run).
pub const KEY_SOURCES: measure::key::Sources = &[
    (&[key::DENORMAL_OVER_NORMAL], denormal::BLOCK),
    (
        &[key::PER_ELEMENT_DIV_OVER_MUL, key::PER_ELEMENT_SIN_OVER_MUL],
        per_element::BLOCK,
    ),
    (&[key::DIV_OVER_MUL_THROUGHPUT], ops::BLOCK),
];

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys = measure::row_keys![shape, denormal, width, ops];
