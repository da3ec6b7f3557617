//! The names across the data boundary for `clock_probe`: its `#DATA` blocks and their
//! columns, the key figures other tools read back, and the `#META` keys its figure reads.
//! The experiment writes with these constants and xtask (figures, summary, compare) reads
//! with them, so renaming a block or a column changes both sides or breaks the build.
//!
//! `clock_probe`: the clock's resolution and cost, and the three timing traps

use measure::{block, group, keys};

use measure::schema::median_min_max;

pub const EXPERIMENT: &str = "clock_probe";

group!(
    /// The rounds behind a timed row, and how many of them were disturbed.
    evidence {
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    }
);

block!(clock_resolution = "clock_resolution" keys [CLOCK] {
    CLOCK = "clock" [text],
    CLAIMED_NS = "claimed_ns",
});

block!(clock_cost = "clock_cost" keys [METHOD] {
    METHOD = "method" [text],
    ..median_min_max,
    ..evidence,
});

block!(trap_one = "trap_one" keys [VARIANT] {
    VARIANT = "variant" [text],
    ..median_min_max,
    PER_ELEMENT_NS = "per_element_ns",
    ..evidence,
});

block!(times_ten = "times_ten" {
    VARIANT = "variant" [text],
    ELEMENTS = "elements",
    ..median_min_max,
    CASE = "case" [text],
    ..evidence,
});

block!(trap_two = "trap_two" keys [FILL] {
    FILL = "fill" [text],
    ..median_min_max,
    ..evidence,
});

block!(trap_three_samples = "trap_three_samples" keys [ROUND] {
    ROUND = "round",
    NS = "ns",
    ..evidence,
});

block!(trap_three_summary = "trap_three_summary" keys [STAT] {
    STAT = "stat" [text],
    NS = "ns",
});

keys! {
    CLOCK_READ = "clock_read" from clock_cost::BLOCK:
        "one clock read (clock_gettime), its cost",
    CLOCK_STEP = "clock_step" from clock_cost::BLOCK:
        "the clock's smallest step between two readings",
    CORE_CLOCK = "core_clock" from CORE_CLOCK_RESULT:
        "the core clock, as estimated",
    DISCARDED_VS_USED = "discarded_vs_used" from times_ten::BLOCK:
        "trap 1: a sum whose result is used over one whose result is discarded",
    USED_TIMES_TEN = "used_times_ten" from times_ten::BLOCK:
        "trap 1's check: ten times the work, result used (10x expected)",
    FIRST_VS_SECOND_FILL = "first_vs_second_fill" from trap_two::BLOCK:
        "trap 2: the first fill of a buffer over the second (first touch)",
    MEAN_OVER_MEDIAN = "mean_over_median" from measure::key::WHOLE_RUN:
        "trap 3: the mean of the rounds over their median",
}

/// The `disturbance` result of the core clock estimate, a reading with no block of its own.
pub const CORE_CLOCK_RESULT: &str = "core_clock";

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys = measure::row_keys![
    clock_resolution,
    clock_cost,
    trap_one,
    trap_two,
    trap_three_samples,
    trap_three_summary
];
