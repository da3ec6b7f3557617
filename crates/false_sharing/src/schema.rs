//! The names across the data boundary for `false_sharing`: its `#DATA` blocks and their
//! columns, the key figures other tools read back, and the `#META` keys its figure reads.
//! The experiment writes with these constants and xtask (figures, summary, compare) reads
//! with them, so renaming a block or a column changes both sides or breaks the build.
//!
//! `false_sharing`: two threads on one cache line against separate lines, by distance, by threads, shared counters, and core-to-core latency

use measure::{block, group, keys};

pub const EXPERIMENT: &str = "false_sharing";
/// A `#META` key a figure reads.
pub const META_FS_LINE_BYTES: &str = "fs_line_bytes";
/// A `#META` key a figure reads.
pub const META_FS_SKIPPED: &str = "fs_skipped";
/// A `#META` key a figure reads.
pub const META_C2C_SKIPPED: &str = "c2c_skipped";
/// A `#META` key a figure reads.
pub const META_C2C_PAIRS_VISITED: &str = "c2c_pairs_visited";
/// A `#META` key a figure reads.
pub const META_C2C_PAIRS_TOTAL: &str = "c2c_pairs_total";
/// A `#META` key a figure reads.
pub const META_C2C_CORES: &str = "c2c_cores";

group!(
    /// A row's nanoseconds per increment over its rounds: median, min, max.
    ns {
        NS_MEDIAN = "ns_median",
        NS_MIN = "ns_min",
        NS_MAX = "ns_max",
    }
);

group!(
    /// A row's time against a perfect split of its round's baseline: median, min, max.
    vs_split {
        VS_SPLIT_MEDIAN = "vs_split_median",
        VS_SPLIT_MIN = "vs_split_min",
        VS_SPLIT_MAX = "vs_split_max",
    }
);

group!(
    /// A row's checks: below a perfect split (suspicious), the rounds in which other work
    /// took a thread's core (by the threads' own `disturb` evidence), and whether its
    /// threads were pinned.
    checks {
        SUSPICIOUS = "suspicious" [text],
        DISTURBED_ROUNDS = "disturbed_rounds",
        PINNED = "pinned" [text],
    }
);

group!(
    /// Whether a row's rounds fell into two groups of times (`groups` 2, each group's
    /// rounds and median) or one (`groups` 1, all in `low_*`).
    round_groups {
        GROUPS = "groups",
        LOW_ROUNDS = "low_rounds",
        LOW_MEDIAN_NS = "low_median_ns",
        HIGH_ROUNDS = "high_rounds",
        HIGH_MEDIAN_NS = "high_median_ns",
    }
);

block!(rounds = "rounds" keys [SET, CONFIG, ROUND] {
    SET = "set" [text],
    CONFIG = "config" [text],
    ROUND = "round",
    NS_PER_INCREMENT = "ns_per_increment",
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(placement = "placement" keys [SET, CONFIG, ROUND, THREAD] {
    SET = "set" [text],
    CONFIG = "config" [text],
    ROUND = "round",
    THREAD = "thread",
    REQUESTED_CORE = "requested_core",
    START_CPU = "start_cpu",
    END_CPU = "end_cpu",
    CPU_SHARE = "cpu_share",
    VERIFIED = "verified" [text],
});

block!(c2c = "c2c" keys [FROM, TO] {
    FROM = "from",
    TO = "to",
    FROM_ON = "from_on",
    TO_ON = "to_on",
    SMT = "smt" [text],
    SAME_PACKAGE = "same_package" [text],
    ROUND_TRIP_MEDIAN_NS = "round_trip_median_ns",
    ROUND_TRIP_MIN_NS = "round_trip_min_ns",
    ONE_WAY_MEDIAN_NS = "one_way_median_ns",
    ONE_WAY_MIN_NS = "one_way_min_ns",
    BATCHES = "batches",
    NOTE = "note" [text],
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(c2c_methods = "c2c_methods" {
    METHOD = "method" [text],
    FROM = "from",
    TO = "to",
    BATCHES = "batches",
    ONE_WAY_MEDIAN_NS = "one_way_median_ns",
    ONE_WAY_MIN_NS = "one_way_min_ns",
    ONE_WAY_MAX_NS = "one_way_max_ns",
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(baseline = "baseline" keys [SET] {
    SET = "set" [text],
    ROUNDS = "rounds",
    CORES = "cores" [text],
    ..ns,
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(distance = "distance" keys [DISTANCE_BYTES] {
    DISTANCE_BYTES = "distance_bytes",
    SAME_LINE = "same_line" [text],
    ..ns,
    SPLIT_NS = "split_ns",
    ..vs_split,
    ..checks,
    CORES = "cores" [text],
    ..round_groups,
    ROUNDS = "rounds",
});

block!(threads = "threads" keys [THREADS, LAYOUT] {
    THREADS = "threads",
    LAYOUT = "layout" [text],
    DISTANCE_BYTES = "distance_bytes",
    LINES = "lines",
    ..ns,
    ..vs_split,
    ..checks,
    NOTE = "note" [text],
    ..round_groups,
    ROUNDS = "rounds",
});

block!(shared = "shared" keys [METHOD, THREADS] {
    METHOD = "method" [text],
    THREADS = "threads",
    ITERS_PER_THREAD = "iters_per_thread",
    ..ns,
    VS_BASELINE = "vs_baseline",
    VS_ONE_THREAD = "vs_one_thread",
    ..checks,
    NOTE = "note" [text],
    ROUNDS = "rounds",
});

keys! {
    BASELINE_INCREMENT = "baseline_increment" from baseline::BLOCK:
        "one thread incrementing its slot alone (the baseline)",
    SAME_LINE_VS_APART_2T = "same_line_vs_apart_2t" from distance::BLOCK:
        "false sharing: slots in one line over apart, 2 threads (vs a perfect split)",
    ATOMIC_1T = "atomic_1t" from shared::BLOCK:
        "an atomic increment, one thread",
    MUTEX_1T = "mutex_1t" from shared::BLOCK:
        "an increment under a mutex, one thread",
    ATOMIC_2T = "atomic_2t" from shared::BLOCK:
        "an atomic increment, two threads contending",
    MUTEX_2T = "mutex_2t" from shared::BLOCK:
        "an increment under a mutex, two threads contending",
    C2C_ONE_WAY_MEDIAN = "c2c_one_way_median" from c2c::BLOCK:
        "core to core, one way (median of the pairs)",
}

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys =
    measure::row_keys![distance, threads, shared, baseline, rounds, placement, c2c];
