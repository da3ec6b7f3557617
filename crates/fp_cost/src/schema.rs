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

block!(shape = "shape" {
    KERNEL = "kernel" [text],
    VERDICT = "verdict" [text],
});

block!(denormal = "denormal" {
    VALUES = "values" [text],
    FTZ_DAZ = "ftz_daz" [text],
    ..median_min_max,
    ..evidence,
});

block!(width = "width" {
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

block!(ops = "ops" {
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
    DENORMAL_OVER_NORMAL = "denormal_over_normal",
    DIV_OVER_MUL_THROUGHPUT = "div_over_mul_throughput",
    PER_ELEMENT_DIV_OVER_MUL = "per_element_div_over_mul",
    PER_ELEMENT_SIN_OVER_MUL = "per_element_sin_over_mul",
    FLOAT_SPEEDUP_LANES = "float_speedup_lanes",
    FLOAT_SPEEDUP_STRICT = "float_speedup_strict",
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
