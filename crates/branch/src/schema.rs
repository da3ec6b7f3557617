//! The names across the data boundary for `branch`: its `#DATA` blocks and their
//! columns, the key figures other tools read back, and the `#META` keys its figure reads.
//! The experiment writes with these constants and xtask (figures, summary, compare) reads
//! with them, so renaming a block or a column changes both sides or breaks the build.
//!
//! `branch`: a branch on random against sorted data, by variant and by pattern, and the cost of one misprediction

use measure::{block, group, keys};

use measure::schema::median_min_max;

pub const EXPERIMENT: &str = "branch";
/// A `#META` key a figure reads.
pub const META_N: &str = "n";

group!(
    /// The rounds behind a timed row, and how many of them were disturbed.
    evidence {
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    }
);

block!(shape = "shape" keys [VARIANT] {
    VARIANT = "variant" [text],
    SYMBOL = "symbol" [text],
    VERDICT = "verdict" [text],
    LOOPS = "loops",
    FORKS = "forks",
});

block!(variants = "variants" keys [VARIANT] {
    VARIANT = "variant" [text],
    SHAPE = "shape" [text],
    RANDOM_NS = "random_ns",
    RANDOM_MIN_NS = "random_min_ns",
    RANDOM_MAX_NS = "random_max_ns",
    SORTED_NS = "sorted_ns",
    SORTED_MIN_NS = "sorted_min_ns",
    SORTED_MAX_NS = "sorted_max_ns",
    RANDOM_OVER_SORTED = "random_over_sorted",
    ..evidence,
});

// Section 2b: one source built two ways (`build` is the setting that differs).
block!(same_source = "same_source" {
    BUILD = "build" [text],
    SHAPE = "shape" [text],
    RANDOM_NS = "random_ns",
    RANDOM_MIN_NS = "random_min_ns",
    RANDOM_MAX_NS = "random_max_ns",
    SORTED_NS = "sorted_ns",
    SORTED_MIN_NS = "sorted_min_ns",
    SORTED_MAX_NS = "sorted_max_ns",
    RANDOM_OVER_SORTED = "random_over_sorted",
    ..evidence,
});

block!(mispredict = "mispredict" {
    EXTRA_NS_PER_ELEMENT = "extra_ns_per_element",
    MISS_RATE = "miss_rate",
    NS_PER_MISS = "ns_per_miss",
    NS_PER_MISS_LOW = "ns_per_miss_low",
    NS_PER_MISS_HIGH = "ns_per_miss_high",
    CYCLES_PER_MISS = "cycles_per_miss",
    ..evidence,
});

block!(patterns = "patterns" keys [PATTERN] {
    PATTERN = "pattern" [text],
    PERIOD = "period",
    TAKEN_SHARE = "taken_share",
    ..median_min_max,
    VS_ALWAYS = "vs_always",
    IMPLIED_MISS_SHARE = "implied_miss_share",
    ..evidence,
});

keys! {
    AS_WRITTEN_RANDOM_OVER_SORTED = "as_written_random_over_sorted" from variants::BLOCK:
        "the code as the compiler wrote it: random over sorted data",
    REAL_BRANCH_RANDOM_OVER_SORTED = "real_branch_random_over_sorted" from variants::BLOCK:
        "a real branch: random over sorted data, per element",
    MISPREDICT = "mispredict" from mispredict::BLOCK:
        "one misprediction",
    MISPREDICT_CYCLES = "mispredict_cycles" from mispredict::BLOCK:
        "one misprediction, in core cycles",
}

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys = measure::row_keys![shape, variants, patterns];
