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
    PROVISIONAL = "provisional" [text],
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
    DENORMAL_OVER_NORMAL = "denormal_over_normal" from denormal::BLOCK:
        "denormal over normal values, flush-to-zero off",
    FTZ_DENORMAL_OVER_NORMAL = "ftz_denormal_over_normal" from denormal::BLOCK:
        "denormal over normal values, flush-to-zero on",
    FLOAT_SPEEDUP_FOUR = "float_speedup_four" from width::BLOCK:
        "double over float, four scalar accumulators (the appendix's loop)",
    FLOAT_SPEEDUP_STRICT = "float_speedup_strict" from width::BLOCK:
        "double over float, one accumulator in strict order",
    FLOAT_SPEEDUP_LANES = "float_speedup_lanes" from width::BLOCK:
        "double over float, vectorised (with lanes)",
    PER_ELEMENT_DIV_OVER_MUL = "per_element_div_over_mul" from PER_ELEMENT_L1:
        "divide over multiply, per element (the appendix's loop, Table 105.24)",
    PER_ELEMENT_SIN_OVER_MUL = "per_element_sin_over_mul" from PER_ELEMENT_L1:
        "sin over multiply, per element (the appendix's loop)",
    PLACEMENT_MAX_OVER_MIN = "placement_max_over_min" from placement::BLOCK:
        "the same multiply at eight places in its line of code: slowest over fastest",
    PLACEMENT_GCC_OVER_BEST = "placement_gcc_over_best" from placement::BLOCK:
        "the multiply where GCC places it, over its fastest place",
    PLACEMENT_GCC_OVER_BASELINE = "placement_gcc_over_baseline" from placement::BLOCK:
        "the multiply where GCC places it, over the per-element multiply",
    MUL_LATENCY = "mul_latency" from ops::BLOCK:
        "multiply, latency (one dependent chain)",
    ADD_LATENCY = "add_latency" from ops::BLOCK:
        "add, latency (one dependent chain)",
    DIV_LATENCY = "div_latency" from ops::BLOCK:
        "divide, latency (one dependent chain)",
    SQRT_LATENCY = "sqrt_latency" from ops::BLOCK:
        "sqrt, latency (one dependent chain)",
    SIN_LATENCY = "sin_latency" from ops::BLOCK:
        "sin, latency (one dependent chain)",
    MUL_LATENCY_CYCLES = "mul_latency_cycles" from ops::BLOCK:
        "multiply, latency in core cycles",
    DIV_LATENCY_CYCLES = "div_latency_cycles" from ops::BLOCK:
        "divide, latency in core cycles",
    DIV_OVER_MUL_THROUGHPUT = "div_over_mul_throughput" from ops::BLOCK:
        "divide over multiply, throughput (independent chains)",
    BIG_ARRAY_SPREAD = "big_array_spread" from PER_ELEMENT_BIG:
        "arrays beyond the last-level cache: the dearest operation over the cheapest",
}

/// The `disturbance` results of the per-element loops: over arrays in L1 (section 3a) and
/// over arrays beyond the last level (section 4), each array's rows marked by its own.
pub const PER_ELEMENT_L1: &str = "per_element/l1";
pub const PER_ELEMENT_BIG: &str = "per_element/big";

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys = measure::row_keys![shape, denormal, width, ops];
