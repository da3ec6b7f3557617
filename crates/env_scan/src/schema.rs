//! The names across the data boundary for `env_scan`: its `#DATA` blocks and their
//! columns, the key figures other tools read back, and the `#META` keys its figure reads.
//! The experiment writes with these constants and xtask (figures, summary, compare) reads
//! with them, so renaming a block or a column changes both sides or breaks the build.
//!
//! `env_scan`: the same work at shifted addresses and environment sizes, in fresh processes: raw times, deviations, correlations, verdicts

use measure::{block, keys};

use measure::schema::median_min_max;

pub const EXPERIMENT: &str = "env_scan";

/// The `deviation` block: one column per scan pass, named by the pass, so its columns are
/// built by the writer from [`deviation::pass_column`].
pub mod deviation {
    pub const BLOCK: &str = "deviation";
    pub const PAD_BYTES: &str = "pad_bytes";
    pub const WORKLOAD: &str = "workload";
    pub const PASSES_AGREE_10PCT: &str = "passes_agree_10pct";
    /// The columns that tell the block's rows apart (`compare.csv`'s `row`), in order.
    pub const KEY_COLUMNS: &[&str] = &[PAD_BYTES, WORKLOAD];

    /// The column of one pass's deviation: `forward_pct`.
    pub fn pass_column(pass: &str) -> String {
        format!("{pass}_pct")
    }
}

block!(verdict = "verdict" keys [WORKLOAD] {
    WORKLOAD = "workload" [text],
    KIND = "kind" [text],
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(mechanism = "mechanism" keys [PAD_BYTES] {
    PAD_BYTES = "pad_bytes",
    STACK_ADDR = "stack_addr",
    SHIFT_BYTES = "shift_bytes",
    EXPECTED_LO_BYTES = "expected_lo_bytes",
    EXPECTED_HI_BYTES = "expected_hi_bytes",
    ASLR_OFF = "aslr_off" [text],
    PINNED = "pinned" [text],
});

block!(raw = "raw" keys [SEQ] {
    SEQ = "seq",
    PASS = "pass",
    ORDER = "order" [text],
    PAD_BYTES = "pad_bytes",
    WORKLOAD = "workload" [text],
    ..median_min_max,
    STACK_ADDR = "stack_addr",
    STACK_MOD_4K = "stack_mod_4k",
    STACK_MINUS_GLOBAL_MOD_4K = "stack_minus_global_mod_4k",
    ASLR_OFF = "aslr_off" [text],
    PINNED = "pinned" [text],
    CPU = "cpu",
    REPEAT = "repeat",
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(correlation = "correlation" keys [WORKLOAD, PASS_A, PASS_B] {
    WORKLOAD = "workload" [text],
    PASS_A = "pass_a" [text],
    PASS_B = "pass_b" [text],
    R = "r",
});

block!(regions = "regions" keys [WORKLOAD, PASS, REGION_START_BYTES] {
    WORKLOAD = "workload" [text],
    PASS = "pass" [text],
    REGION_START_BYTES = "region_start_bytes",
    MEDIAN_DEVIATION_PCT = "median_deviation_pct",
});

block!(slow_share = "slow_share" keys [WORKLOAD, PASS] {
    WORKLOAD = "workload" [text],
    PASS = "pass" [text],
    SLOW_SHARE_PCT = "slow_share_pct",
});

block!(time_trend = "time_trend" keys [WORKLOAD, PASS] {
    WORKLOAD = "workload" [text],
    PASS = "pass" [text],
    R = "r",
});

block!(region_repeats = "region_repeats" {
    REPEAT = "repeat",
    WORKLOAD = "workload" [text],
    PASS = "pass" [text],
    REGION_START_BYTES = "region_start_bytes",
    MEDIAN_DEVIATION_PCT = "median_deviation_pct",
});

block!(repeat_verdicts = "repeat_verdicts" {
    REPEAT = "repeat",
    WORKLOAD = "workload" [text],
    KIND = "kind" [text],
});

block!(region_moves = "region_moves" {
    WORKLOAD = "workload" [text],
    PASS = "pass" [text],
    MEDIAN_MOVE_PP = "median_move_pp",
    MAX_MOVE_PP = "max_move_pp",
    MAX_MOVE_REGION_START_BYTES = "max_move_region_start_bytes",
});

keys! {
    COPY_MIN_PASS_CORRELATION = "copy_min_pass_correlation" from RAW_COPY:
        "copy: the weakest agreement between two passes (Pearson r)",
    FIB_MIN_PASS_CORRELATION = "fib_min_pass_correlation" from RAW_FIB:
        "fib: the weakest agreement between two passes (Pearson r)",
    COPY_SHUFFLED_SLOW_SHARE = "copy_shuffled_slow_share" from RAW_COPY:
        "copy: sizes slow in the shuffled pass",
    FIB_SHUFFLED_SLOW_SHARE = "fib_shuffled_slow_share" from RAW_FIB:
        "fib: sizes slow in the shuffled pass",
    STACK_SHIFT_AT_PAD_4096 = "stack_shift_at_pad_4096" from measure::key::UNTIMED:
        "the stack's shift with 4096 bytes of padding",
}

/// The `disturbance` results of the raw passes, one per workload (`raw/<workload>`): a
/// workload's figures take its own mark.
pub const RAW_COPY: &str = "raw/copy";
pub const RAW_FIB: &str = "raw/fib";

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys = measure::row_keys![
    mechanism,
    raw,
    deviation,
    correlation,
    regions,
    slow_share,
    time_trend,
    verdict
];
