//! The names across the data boundary for `cache_ladder`: its `#DATA` blocks and their
//! columns, the key figures other tools read back, and the `#META` keys its figure reads.
//! The experiment writes with these constants and xtask (figures, summary, compare) reads
//! with them, so renaming a block or a column changes both sides or breaks the build.
//!
//! `cache_ladder`: latency by working set, and the knees read from it.

use measure::{block, keys};

pub const EXPERIMENT: &str = "cache_ladder";

block!(latency = "latency" keys [KIB] {
    KIB = "kib",
    WHERE = "where" [text],
    INDEX_NS = "index_ns",
    INDEX_MIN_NS = "index_min_ns",
    INDEX_MAX_NS = "index_max_ns",
    INDEX_CYCLES = "index_cycles",
    POINTER_NS = "pointer_ns",
    POINTER_MIN_NS = "pointer_min_ns",
    POINTER_MAX_NS = "pointer_max_ns",
    POINTER_CYCLES = "pointer_cycles",
    SEQ_NS = "seq_ns",
    SEQ_MIN_NS = "seq_min_ns",
    SEQ_MAX_NS = "seq_max_ns",
    SEQ_CYCLES = "seq_cycles",
    SEQ_VEC_NS = "seq_vec_ns",
    SEQ_VEC_MIN_NS = "seq_vec_min_ns",
    SEQ_VEC_MAX_NS = "seq_vec_max_ns",
    HUGE_NS = "huge_ns",
    HUGE_MIN_NS = "huge_min_ns",
    HUGE_MAX_NS = "huge_max_ns",
    HUGE_CYCLES = "huge_cycles",
    FACTOR = "factor",
    POINTER_FACTOR = "pointer_factor",
    INDEX_PASS_SPREAD = "index_pass_spread",
    POINTER_PASS_SPREAD = "pointer_pass_spread",
    HUGE_PASS_SPREAD = "huge_pass_spread",
    SEQ_PASS_SPREAD = "seq_pass_spread",
    SEQ_VEC_PASS_SPREAD = "seq_vec_pass_spread",
    INDEX_ROUND_SPREAD = "index_round_spread",
    POINTER_ROUND_SPREAD = "pointer_round_spread",
    HUGE_ROUND_SPREAD = "huge_round_spread",
    AGREE = "agree" [text],
    STABLE = "stable" [text],
    HUGE_STABLE = "huge_stable" [text],
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
    PROVISIONAL = "provisional" [text],
});

block!(knees = "knees" keys [SERIES, KIND, FROM_KIB] {
    SERIES = "series" [text],
    KIND = "kind" [text],
    FROM_KIB = "from_kib",
    TO_KIB = "to_kib",
    RATIO = "ratio",
    SPREAD = "spread",
    NEAREST = "nearest" [text],
    AGREES = "agrees" [text],
});

// Memory-level parallelism: 1..16 independent chains at once over one ring per level.
block!(mlp = "mlp" {
    LEVEL = "level" [text],
    KIB = "kib",
    CHAINS = "chains",
    STEP_NS = "step_ns",
    STEP_MIN_NS = "step_min_ns",
    STEP_MAX_NS = "step_max_ns",
    NS_PER_LOAD = "ns_per_load",
    IN_FLIGHT = "in_flight",
    IMPLIED_GBS = "implied_gbs",
    // The timed rounds behind the row, and how many of them were disturbed.
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

keys! {
    FIRST_INDEX_NS = "first_index_ns" from LATENCY_FIRST:
        "a random read in the smallest working set (index chase, the appendix's method)",
    LARGEST_INDEX_NS = "largest_index_ns" from LATENCY_LARGEST:
        "a random read in the largest working set (index chase)",
    LADDER_FACTOR = "ladder_factor" from LATENCY_ENDS:
        "L1 to memory: the largest working set's random read over the smallest's (index chase)",
    LARGEST_SEQ_NS = "largest_seq_ns" from LATENCY_LARGEST:
        "an in-order read of the largest working set (the appendix's sweep, per word)",
    FIRST_POINTER_NS = "first_pointer_ns" from LATENCY_FIRST:
        "a random read in the smallest working set (pointer chase)",
    FIRST_POINTER_CYCLES = "first_pointer_cycles" from LATENCY_FIRST:
        "the same read in core cycles (pointer chase, smallest working set)",
    LARGEST_POINTER_NS = "largest_pointer_ns" from LATENCY_LARGEST:
        "a random read in the largest working set (pointer chase)",
    LARGEST_HUGE_NS = "largest_huge_ns" from LATENCY_LARGEST:
        "a random read in the largest working set on huge pages (pointer chase)",
    RANDOM_OVER_SEQUENTIAL_LARGEST = "random_over_sequential_largest" from LATENCY_LARGEST:
        "largest working set: a random read over an in-order one (index chase over the sweep)",
    LARGEST_SEQ_VEC_NS = "largest_seq_vec_ns" from LATENCY_LARGEST:
        "an in-order read of the largest working set, vectorised sweep (per word)",
    TOP_LEVEL_FROM = "top_level_from" from knees::BLOCK:
        "the working set from which reads cost as much as the largest's (pointer chase's curve)",
    LAST_KNEE_FROM = "last_knee_from" from knees::BLOCK:
        "the last knee of the curve, from this working set (pointer chase)",
    MLP_MEMORY_IN_FLIGHT = "mlp_memory_in_flight" from mlp::BLOCK:
        "memory loads in flight with the most independent chains",
    MLP_MEMORY_IMPLIED_GBS = "mlp_memory_implied_gbs" from mlp::BLOCK:
        "the bandwidth those loads in flight imply",
}

/// The `#META` keys the figure reads.
pub const META_HUGE_BACKING_PCT: &str = "huge_backing_pct";

/// The `disturbance` results of the smallest and the largest working set's rows, and of the
/// two together.
pub const LATENCY_FIRST: &str = "latency/first";
pub const LATENCY_LARGEST: &str = "latency/largest";
pub const LATENCY_ENDS: &str = "latency/ends";

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys = measure::row_keys![latency, knees];
