//! The names across the data boundary for `sink_bench`: its `#DATA` blocks and their
//! columns, the key figures other tools read back, and the `#META` keys its figure reads.
//! The experiment writes with these constants and xtask (figures, summary, compare) reads
//! with them, so renaming a block or a column changes both sides or breaks the build.
//!
//! `sink_bench`: what a discarded result, black_box and a checksum do to a timed sum; warm and cold, in one process and in fresh ones

use measure::{block, keys};

pub const EXPERIMENT: &str = "sink_bench";

block!(part1_passes = "part1_passes" keys [ROUND] {
    ROUND = "round",
    DISCARDED_NS = "discarded_ns",
    SINK_NS = "sink_ns",
    CHECKSUM_NS = "checksum_ns",
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(warm_in_process = "warm_in_process" keys [PASS] {
    PASS = "pass",
    NS = "ns",
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(fresh_processes = "fresh_processes" keys [PROCESS] {
    PROCESS = "process",
    COLD_NS = "cold_ns",
    WARM_NS = "warm_ns",
    COLD_FAULTS = "cold_faults",
    WARM_FAULTS = "warm_faults",
    CPU = "cpu",
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(fresh_first_discarded = "fresh_first_discarded" {
    COLD_NS = "cold_ns",
    WARM_NS = "warm_ns",
    COLD_FAULTS = "cold_faults",
    WARM_FAULTS = "warm_faults",
});

block!(cold_in_process = "cold_in_process" {
    NS = "ns",
    FAULTS = "faults",
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(series_summary = "series_summary" keys [SERIES] {
    SERIES = "series" [text],
    N = "n",
    MIN_NS = "min_ns",
    MEDIAN_NS = "median_ns",
    MAX_NS = "max_ns",
    CV_PCT = "cv_pct",
    MAX_OVER_MIN = "max_over_min",
    OVER2_PCT = "over2_pct",
    OVER5_PCT = "over5_pct",
    OVER10_PCT = "over10_pct",
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(summary_figures = "summary_figures" {
    FIGURE = "figure" [text],
    VALUE = "value",
    UNIT = "unit" [text],
});

keys! {
    DISCARDED_OVER_SINK = "discarded_over_sink" from part1_passes::BLOCK:
        "a discarded sum over a sunk one (black_box)",
    CHECKSUM_OVER_SINK = "checksum_over_sink" from part1_passes::BLOCK:
        "a checksummed sum over a sunk one",
    WARM_PASS = "warm_pass" from warm_in_process::BLOCK:
        "one warm pass, in one process",
    WARM_IN_PROCESS_MAX_OVER_MIN = "warm_in_process_max_over_min" from warm_in_process::BLOCK:
        "warm passes in one process: slowest over fastest",
    WARM_FRESH_MAX_OVER_MIN = "warm_fresh_max_over_min" from fresh_processes::BLOCK:
        "warm passes in fresh processes: slowest over fastest",
    PAIRS_OVER_2PCT_IN_PROCESS = "pairs_over_2pct_in_process" from warm_in_process::BLOCK:
        "pairs of passes more than 2% apart, in one process",
    PAIRS_OVER_2PCT_FRESH = "pairs_over_2pct_fresh" from fresh_processes::BLOCK:
        "pairs of passes more than 2% apart, in fresh processes",
    COLD_SHOT_OVER_FRESH_MEDIAN = "cold_shot_over_fresh_median" from measure::key::WHOLE_RUN:
        "this process's cold pass over the fresh processes' median",
}

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys = measure::row_keys![
    part1_passes,
    warm_in_process,
    fresh_processes,
    series_summary
];
