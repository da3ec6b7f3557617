//! The names across the data boundary for `bandwidth`: its `#DATA` blocks and their
//! columns, the key figures other tools read back, and the `#META` keys its figure reads.
//! The experiment writes with these constants and xtask (figures, summary, compare) reads
//! with them, so renaming a block or a column changes both sides or breaks the build.
//!
//! `bandwidth`: bytes per second by working set and kernel, the boundaries read from them, all cores, latency under load

use measure::{block, keys};

pub const EXPERIMENT: &str = "bandwidth";
/// A boundary is read where the bandwidth falls by at least this factor over an octave
/// of working set (the experiment reads them, the figure's legend says so).
pub const MIN_DROP: f64 = 1.25;
/// A `#META` key a figure reads.
pub const META_EXPLICIT_WIDTH: &str = "explicit_width";

block!(kernels = "kernels" keys [KERNEL] {
    KERNEL = "kernel" [text],
    SYMBOL = "symbol" [text],
    ACCESS_BYTES = "access_bytes",
    NON_TEMPORAL = "non_temporal" [text],
    SHAPE = "shape" [text],
    // Instructions per memory access in the kernel's innermost loop, read from the binary.
    INSNS_PER_ACCESS = "insns_per_access",
});

block!(bandwidth = "bandwidth" keys [KIB, KERNEL] {
    KIB = "kib",
    KERNEL = "kernel" [text],
    OP = "op" [text],
    FORM = "form" [text],
    GBS = "gbs",
    GBS_MIN = "gbs_min",
    GBS_MAX = "gbs_max",
    BYTES_PER_CYCLE = "bytes_per_cycle",
    PASS_SPREAD = "pass_spread",
    ROUND_SPREAD = "round_spread",
    STABLE = "stable" [text],
    WHERE = "where" [text],
    // The timed rounds behind the row, and how many of them were disturbed.
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
    // Whether the row is provisional: its rounds, or its working set's window, say so.
    PROVISIONAL = "provisional" [text],
});

block!(boundaries = "boundaries" keys [KIND, FROM_KIB] {
    KIND = "kind" [text],
    FROM_KIB = "from_kib",
    TO_KIB = "to_kib",
    RATIO = "ratio",
    NEAREST = "nearest" [text],
    NEAREST_KIB = "nearest_kib",
    AGREES = "agrees" [text],
});

block!(threads = "threads" keys [THREADS] {
    THREADS = "threads",
    STATUS = "status" [text],
    CORES = "cores" [text],
    TOTAL_GBS = "total_gbs",
    TOTAL_GBS_MIN = "total_gbs_min",
    TOTAL_GBS_MAX = "total_gbs_max",
    PER_THREAD_GBS = "per_thread_gbs",
    VS_ONE = "vs_one",
    PINNED = "pinned" [text],
    OFF_CORE_ROUNDS = "off_core_rounds",
    REGION_KIB = "region_kib",
    // The timed rounds behind the row, and how many of them were disturbed.
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(loaded_latency = "loaded_latency" keys [STATE, ROUND] {
    STATE = "state" [text],
    ROUND = "round",
    NS = "ns",
    STREAM_GBS = "stream_gbs",
    ON_CORE = "on_core",
    COUNTS = "counts" [text],
    STREAMERS = "streamers",
    PINNED = "pinned" [text],
    CHASE_KIB = "chase_kib",
    // The timed rounds behind the row, and how many of them were disturbed.
    ROUNDS = "rounds",
    DISTURBED_ROUNDS = "disturbed_rounds",
});

block!(levels = "levels" keys [LEVEL] {
    LEVEL = "level" [text],
    KIB = "kib",
    READ_GBS = "read_gbs",
    WRITE_GBS = "write_gbs",
    COPY_GBS = "copy_gbs",
    READ_BPC = "read_bpc",
    WRITE_BPC = "write_bpc",
    COPY_BPC = "copy_bpc",
});

keys! {
    L1_READ_GBS = "l1_read_gbs" from SWEEP_L1:
        "one core reading a working set in L1, explicit vector read",
    MEMORY_READ_GBS = "memory_read_gbs" from SWEEP_LARGEST:
        "one core reading the largest working set, explicit vector read",
    L1_OVER_MEMORY_READ = "l1_over_memory_read" from SWEEP_L1_LARGEST:
        "L1 to memory: reading in L1 over reading the largest working set (explicit vector read)",
    L1_READ_OF_LIMIT = "l1_read_of_limit" from SWEEP_L1:
        "the L1 read against the core's L1 load limit (from a table)",
    L1_READ_BYTES_PER_CYCLE = "l1_read_bytes_per_cycle" from SWEEP_L1:
        "the L1 read, in bytes per core cycle",
    ALL_CORES_READ_GBS = "all_cores_read_gbs" from threads::BLOCK:
        "all cores reading memory, each its own region",
    ALL_CORES_OVER_ONE = "all_cores_over_one" from threads::BLOCK:
        "all cores over one core, reading memory",
    STREAM_WRITE_GAIN_LARGEST = "stream_write_gain_largest" from SWEEP_LARGEST:
        "largest working set: non-temporal over plain write",
    IDLE_LATENCY_NS = "idle_latency_ns" from loaded_latency::BLOCK:
        "a pointer chase's read from memory, idle",
    LOADED_LATENCY_NS = "loaded_latency_ns" from loaded_latency::BLOCK:
        "the same read while another core streams memory",
    LOADED_OVER_IDLE = "loaded_over_idle" from loaded_latency::BLOCK:
        "memory latency under load over idle",
}

/// The `disturbance` results of the working sets section 7 reads (each was taken in its own
/// windows): the L1 level's, the largest, and the two together.
pub const SWEEP_L1: &str = "bandwidth/l1";
pub const SWEEP_LARGEST: &str = "bandwidth/largest";
pub const SWEEP_L1_LARGEST: &str = "bandwidth/l1_largest";

/// The blocks whose rows are keyed by named columns (see `measure::schema::RowKeys`).
pub const ROW_KEYS: measure::schema::RowKeys = measure::row_keys![
    kernels,
    bandwidth,
    boundaries,
    threads,
    loaded_latency,
    levels
];
