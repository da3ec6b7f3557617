//! The names across the data boundary, declared once: each experiment's `#DATA` blocks, their
//! columns, and the key figures that tools read back.
//!
//! The experiments write with these constants and xtask (figures, run-all's summary, compare)
//! reads with them, so renaming a block or a column changes both sides or breaks the build.
//! The text format is unchanged: `COLUMNS` is exactly what `Block::new` receives.
//!
//! One module per experiment: `EXPERIMENT` (its name); one module per block with `BLOCK` (its
//! name), one constant per column (the bare name, as readers look it up) and `COLUMNS` (the
//! columns in order, text columns marked `:text`); `key` with the names of the key figures
//! other tools read; and `META_*`, the `#META` keys its figure reads. A block whose columns
//! depend on the run (env_scan's `deviation`) declares its fixed columns and a function for the
//! others.
//!
//! A run of columns that one piece of code writes into several blocks (the `median, min, max`
//! cells of [`crate::fmt::median_min_max`], false_sharing's checks) is declared once as a
//! group, and a block takes it in as `..group`: its columns stand there in order, and its
//! constants are the block's too (`false_sharing::distance::SUSPICIOUS`).

/// Declares one block: `name = "block" { CONST = "column" [text], ..group, ... }`. An entry
/// `..group` takes in a [`group!`] declared beside the block (or imported there): its columns
/// in their place, and its constants re-exported, so `block::CONST` reads the same either way.
macro_rules! block {
    ($module:ident = $name:literal { $($body:tt)* }) => {
        block!(@entries $module $name [] $($body)*);
    };
    // One entry at a time, each kept as `(col ...)` or `(group ...)`, until none is left.
    (@entries $module:ident $name:literal [$($done:tt)*]
        $col:ident = $cname:literal $([$text:ident])? $(, $($rest:tt)*)?) => {
        block!(@entries $module $name [$($done)* (col $col $cname $($text)?)] $($($rest)*)?);
    };
    (@entries $module:ident $name:literal [$($done:tt)*] ..$group:ident $(, $($rest:tt)*)?) => {
        block!(@entries $module $name [$($done)* (group $group)] $($($rest)*)?);
    };
    (@entries $module:ident $name:literal [$($entry:tt)*]) => {
        pub mod $module {
            /// The block's name.
            pub const BLOCK: &str = $name;
            $(block!(@names $entry);)*
            const PARTS: &[&[&str]] = &[$(block!(@part $entry)),*];
            const JOINED: [&str; $crate::schema::count(PARTS)] = $crate::schema::join(PARTS);
            /// The columns in order, as the writer declares them (`:text` marks a text column).
            pub const COLUMNS: &[&str] = &JOINED;
        }
    };
    (@names (col $col:ident $cname:literal $($text:ident)?)) => { pub const $col: &str = $cname; };
    (@names (group $group:ident)) => { pub use super::$group::*; };
    (@part (col $col:ident $cname:literal $($text:ident)?)) => { &[block!(@col $cname $($text)?)] };
    (@part (group $group:ident)) => { super::$group::COLUMNS };
    (@col $c:literal) => { $c };
    (@col $c:literal text) => { concat!($c, ":text") };
}

/// Declares a run of columns that several blocks share, because one piece of code writes it
/// for each of them: `name { CONST = "column" [text], ... }`. A block takes it in as `..name`.
macro_rules! group {
    ($(#[$doc:meta])* $module:ident {
        $($col:ident = $cname:literal $([$text:ident])?),* $(,)?
    }) => {
        $(#[$doc])*
        pub mod $module {
            $(pub const $col: &str = $cname;)*
            /// The group's columns in order (`:text` marks a text column).
            pub const COLUMNS: &[&str] = &[$(block!(@col $cname $($text)?)),*];
        }
    };
}

/// How many columns `parts` hold together.
const fn count(parts: &[&[&str]]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

/// The columns of `parts` in order, as one array (`N` is their [`count`]).
const fn join<const N: usize>(parts: &[&[&'static str]]) -> [&'static str; N] {
    let mut out = [""; N];
    let (mut i, mut k) = (0, 0);
    while i < parts.len() {
        let mut j = 0;
        while j < parts[i].len() {
            out[k] = parts[i][j];
            (j, k) = (j + 1, k + 1);
        }
        i += 1;
    }
    out
}

/// Declares key-figure names: `NAME = "name", ...`.
macro_rules! keys {
    ($($k:ident = $v:literal),* $(,)?) => {
        /// The names of the key figures other tools read back.
        pub mod key {
            $(pub const $k: &str = $v;)*
        }
    };
}

/// The key figures every experiment writes (see [`crate::key`]).
pub mod key_figures {
    pub use crate::key::{BLOCK, FIGURE, UNIT, VALUE};
    /// The columns in order, as the writer declares them.
    pub const COLUMNS: &[&str] = &["figure:text", "value", "unit:text"];
    /// The book's range ends (reference data only).
    pub const LOW: &str = "low";
    pub const HIGH: &str = "high";
}

/// The evidence of disturbance behind each result of a run, one row per result (a block, or
/// a part of one), written by [`crate::run::Experiment::disturbance`] from a
/// [`crate::disturb::Tally`]. Figures, the summary and `compare` read it to mark provisional
/// results and to name contention.
pub mod disturbance {
    /// The block's name.
    pub const BLOCK: &str = "disturbance";
    /// The result the row is about: a block name, or `block/part`.
    pub const RESULT: &str = "result";
    pub const ROUNDS: &str = "rounds";
    pub const DISTURBED_ROUNDS: &str = "disturbed_rounds";
    /// Time the rounds lost to other work (run-queue wait and time off the CPU), in ms.
    pub const LOST_MS: &str = "lost_ms";
    /// Other work on the pinned core over the block, in cores.
    pub const ON_CORE: &str = "on_core_cores";
    /// The pinned core's steal time over the block, as a share.
    pub const STEAL: &str = "steal_share";
    /// Other processes' work on the other cores over the block, in cores.
    pub const ELSEWHERE: &str = "elsewhere_cores";
    /// `yes` when the result is provisional ([`crate::disturb::Tally::provisional`]).
    pub const PROVISIONAL: &str = "provisional";
    /// `yes` when other cores' work competed for the shared levels.
    pub const CONTENDED: &str = "contended";
    /// The columns in order, as the writer declares them.
    pub const COLUMNS: &[&str] = &[
        "result:text",
        "rounds",
        "disturbed_rounds",
        "lost_ms",
        "on_core_cores",
        "steal_share",
        "elsewhere_cores",
        "provisional:text",
        "contended:text",
    ];
    /// `#META provisional_results`: how many rows are provisional, "N of M".
    pub const META_PROVISIONAL: &str = "provisional_results";
}

/// The `#META` keys every experiment's run writes (see [`crate::run`]) that tools read back.
pub mod run {
    /// The core clock estimated at the start, in GHz ("unknown" when it could not be).
    pub const META_CLOCK_GHZ_ESTIMATE: &str = "clock_ghz_estimate";
    /// The spread of every round of both core-clock estimates, in percent.
    pub const META_CLOCK_SPREAD_PCT: &str = "clock_spread_pct";
    /// Other processes' CPU time while the experiment ran, in cores.
    pub const META_OTHER_CPU_CORES: &str = "other_cpu_cores";
    /// The experiment's wall time in seconds.
    pub const META_WALL_S: &str = "wall_s";
    /// Whether the main thread was pinned (verified), and to which core.
    pub const META_PINNED: &str = "pinned";
    pub const META_PINNED_CORE: &str = "pinned_core";
    /// Whether the run was emulated (`yes`/`no`, [`crate::emulation`]): `run-all` will not
    /// save an emulated run as a results folder without `--label`.
    pub const META_EMULATED: &str = "emulated";
}

group!(
    /// The `median, min, max` cells of a time in nanoseconds, as [`crate::fmt::median_min_max`]
    /// writes them; the blocks of several experiments take them in.
    median_min_max {
        MEDIAN_NS = "median_ns",
        MIN_NS = "min_ns",
        MAX_NS = "max_ns",
    }
);

/// `cache_ladder`: latency by working set, and the knees read from it.
pub mod cache_ladder {
    pub const EXPERIMENT: &str = "cache_ladder";

    block!(latency = "latency" {
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
    });

    block!(knees = "knees" {
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
        FIRST_INDEX_NS = "first_index_ns",
        LARGEST_INDEX_NS = "largest_index_ns",
        LADDER_FACTOR = "ladder_factor",
        LARGEST_SEQ_NS = "largest_seq_ns",
    }

    /// The `#META` keys the figure reads.
    pub const META_HUGE_BACKING_PCT: &str = "huge_backing_pct";
}

/// `stride`: cost by stride, lines touched, and array-of-structs against struct-of-arrays
pub mod stride {
    use super::median_min_max;

    pub const EXPERIMENT: &str = "stride";
    /// A `#META` key a figure reads.
    pub const META_ACCESSES: &str = "accesses";
    /// A `#META` key a figure reads.
    pub const META_BUFFER_BYTES: &str = "buffer_bytes";
    /// A `#META` key a figure reads.
    pub const META_LINE_BYTES: &str = "line_bytes";
    /// A `#META` key a figure reads.
    pub const META_ELEMENTS: &str = "elements";
    /// A `#META` key a figure reads.
    pub const META_STRUCT_BYTES: &str = "struct_bytes";

    block!(layout = "layout" {
        LAYOUT = "layout" [text],
        ..median_min_max,
        FACTOR = "factor",
        FETCHED_BYTES_PER_ELEMENT = "fetched_bytes_per_element",
        USED_BYTES_PER_LINE = "used_bytes_per_line",
        // The timed rounds behind the row, and how many of them were disturbed.
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    block!(stride = "stride" {
        STRIDE_BYTES = "stride_bytes",
        APPENDIX_NS = "appendix_ns",
        APPENDIX_MIN_NS = "appendix_min_ns",
        APPENDIX_MAX_NS = "appendix_max_ns",
        FACTOR = "factor",
        APPENDIX_CYCLES = "appendix_cycles",
        FRESH_NS = "fresh_ns",
        FRESH_MIN_NS = "fresh_min_ns",
        FRESH_MAX_NS = "fresh_max_ns",
        LINES_PER_ACCESS = "lines_per_access",
        VAIN_BYTES = "vain_bytes",
        LAPS = "laps",
        APPENDIX_LINES = "appendix_lines",
        APPENDIX_PAGES = "appendix_pages",
        APPENDIX_SET_BYTES = "appendix_set_bytes",
        FRESH_LINES = "fresh_lines",
        FRESH_PAGES = "fresh_pages",
        FRESH_SET_BYTES = "fresh_set_bytes",
        APPENDIX_SPREAD = "appendix_spread",
        FRESH_SPREAD = "fresh_spread",
        AGREE = "agree" [text],
        APPENDIX_VAIN_BYTES = "appendix_vain_bytes",
        // The timed rounds behind the row, and how many of them were disturbed.
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    block!(stride_passes = "stride_passes" {
        STRIDE_BYTES = "stride_bytes",
        PASS = "pass" [text],
        APPENDIX_NS = "appendix_ns",
        FRESH_NS = "fresh_ns",
        // The timed rounds behind the row, and how many of them were disturbed.
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    // The fresh-lines walk at the line size and at 256 bytes (multichase's default stride):
    // one new line per access both, so the ratio is what the prefetchers no longer hide.
    block!(prefetch = "prefetch" {
        STRIDE_BYTES = "stride_bytes",
        FRESH_NS = "fresh_ns",
        FRESH_MIN_NS = "fresh_min_ns",
        FRESH_MAX_NS = "fresh_max_ns",
        OVER_LINE = "over_line",
        ACCESSES_PER_PAGE = "accesses_per_page",
        // The timed rounds behind the row, and how many of them were disturbed.
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    keys! {
        AOS_OVER_SOA = "aos_over_soa",
        AOS_X = "aos_x",
        LINE_OVER_STRIDE_1 = "line_over_stride_1",
        STRIDE_1 = "stride_1",
        STRIDE_LINE = "stride_line",
    }
}

/// `tlb_walk`: time per read by pages walked, on huge pages, and the first touch of a page
pub mod tlb_walk {
    pub const EXPERIMENT: &str = "tlb_walk";
    /// A `#META` key a figure reads.
    pub const META_LINES_PER_PAGE: &str = "lines_per_page";
    /// A `#META` key a figure reads.
    pub const META_HUGE_WALK_PAGES: &str = "huge_walk_pages";

    block!(first_touch = "first_touch" {
        TOUCH = "touch" [text],
        NS_PER_PAGE = "ns_per_page",
        MIN_NS = "min_ns",
        MAX_NS = "max_ns",
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    block!(pages = "pages" {
        PAGES = "pages",
        SPAN_KIB = "span_kib",
        OFFSET0_NS = "offset0_ns",
        OFFSET0_MIN_NS = "offset0_min_ns",
        OFFSET0_MAX_NS = "offset0_max_ns",
        OFFSET0_CYCLES = "offset0_cycles",
        OFFSET0_FACTOR = "offset0_factor",
        LINE_NS = "line_ns",
        LINE_MIN_NS = "line_min_ns",
        LINE_MAX_NS = "line_max_ns",
        LINE_CYCLES = "line_cycles",
        LINE_FACTOR = "line_factor",
        OFFSET0_PASS_SPREAD = "offset0_pass_spread",
        LINE_PASS_SPREAD = "line_pass_spread",
        AGREE = "agree" [text],
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    block!(huge_pages = "huge_pages" {
        LAYOUT = "layout" [text],
        ADVICE = "advice" [text],
        HUGE_BACKING_PCT = "huge_backing_pct",
        NS = "ns",
        MIN_NS = "min_ns",
        MAX_NS = "max_ns",
        CYCLES = "cycles",
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    block!(huge_verdict = "huge_verdict" {
        LAYOUT = "layout" [text],
        VERDICT = "verdict" [text],
        NORMAL_OVER_HUGE = "normal_over_huge",
    });

    keys! {
        FIRST_PAGES_LINE_NS = "first_pages_line_ns",
        FIRST_PAGES_OFFSET0_NS = "first_pages_offset0_ns",
        FIRST_TOUCH_FACTOR = "first_touch_factor",
        FIRST_TOUCH_NS = "first_touch_ns",
        MOST_PAGES_OFFSET0_NS = "most_pages_offset0_ns",
        PAGES_FACTOR_OFFSET0 = "pages_factor_offset0",
        TOUCH_AGAIN_NS = "touch_again_ns",
    }
}

/// `clock_probe`: the clock's resolution and cost, and the three timing traps
pub mod clock_probe {
    use super::median_min_max;

    pub const EXPERIMENT: &str = "clock_probe";

    group!(
        /// The rounds behind a timed row, and how many of them were disturbed.
        evidence {
            ROUNDS = "rounds",
            DISTURBED_ROUNDS = "disturbed_rounds",
        }
    );

    block!(clock_resolution = "clock_resolution" {
        CLOCK = "clock" [text],
        CLAIMED_NS = "claimed_ns",
    });

    block!(clock_cost = "clock_cost" {
        METHOD = "method" [text],
        ..median_min_max,
        ..evidence,
    });

    block!(trap_one = "trap_one" {
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

    block!(trap_two = "trap_two" {
        FILL = "fill" [text],
        ..median_min_max,
        ..evidence,
    });

    block!(trap_three_samples = "trap_three_samples" {
        ROUND = "round",
        NS = "ns",
        ..evidence,
    });

    block!(trap_three_summary = "trap_three_summary" {
        STAT = "stat" [text],
        NS = "ns",
    });

    keys! {
        CLOCK_READ = "clock_read",
    }
}

/// `branch`: a branch on random against sorted data, by variant and by pattern, and the cost of one misprediction
pub mod branch {
    use super::median_min_max;

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

    block!(shape = "shape" {
        VARIANT = "variant" [text],
        SYMBOL = "symbol" [text],
        VERDICT = "verdict" [text],
        LOOPS = "loops",
        FORKS = "forks",
    });

    block!(variants = "variants" {
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

    block!(patterns = "patterns" {
        PATTERN = "pattern" [text],
        PERIOD = "period",
        TAKEN_SHARE = "taken_share",
        ..median_min_max,
        VS_ALWAYS = "vs_always",
        IMPLIED_MISS_SHARE = "implied_miss_share",
        ..evidence,
    });

    keys! {
        REAL_BRANCH_RANDOM_OVER_SORTED = "real_branch_random_over_sorted",
        MISPREDICT = "mispredict",
    }
}

/// `fp_cost`: what a floating-point operation costs: latency and throughput by op, denormals, float against double
pub mod fp_cost {
    use super::median_min_max;

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
}

/// `bandwidth`: bytes per second by working set and kernel, the boundaries read from them, all cores, latency under load
pub mod bandwidth {
    pub const EXPERIMENT: &str = "bandwidth";
    /// A boundary is read where the bandwidth falls by at least this factor over an octave
    /// of working set (the experiment reads them, the figure's legend says so).
    pub const MIN_DROP: f64 = 1.25;
    /// A `#META` key a figure reads.
    pub const META_EXPLICIT_WIDTH: &str = "explicit_width";

    block!(kernels = "kernels" {
        KERNEL = "kernel" [text],
        SYMBOL = "symbol" [text],
        ACCESS_BYTES = "access_bytes",
        NON_TEMPORAL = "non_temporal" [text],
        SHAPE = "shape" [text],
        // Instructions per memory access in the kernel's innermost loop, read from the binary.
        INSNS_PER_ACCESS = "insns_per_access",
    });

    block!(bandwidth = "bandwidth" {
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
    });

    block!(boundaries = "boundaries" {
        KIND = "kind" [text],
        FROM_KIB = "from_kib",
        TO_KIB = "to_kib",
        RATIO = "ratio",
        NEAREST = "nearest" [text],
        NEAREST_KIB = "nearest_kib",
        AGREES = "agrees" [text],
    });

    block!(threads = "threads" {
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

    block!(loaded_latency = "loaded_latency" {
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

    block!(levels = "levels" {
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
        L1_OVER_MEMORY_READ = "l1_over_memory_read",
    }
}

/// `sink_bench`: what a discarded result, black_box and a checksum do to a timed sum; warm and cold, in one process and in fresh ones
pub mod sink_bench {
    pub const EXPERIMENT: &str = "sink_bench";

    block!(part1_passes = "part1_passes" {
        ROUND = "round",
        DISCARDED_NS = "discarded_ns",
        SINK_NS = "sink_ns",
        CHECKSUM_NS = "checksum_ns",
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    block!(warm_in_process = "warm_in_process" {
        PASS = "pass",
        NS = "ns",
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    block!(fresh_processes = "fresh_processes" {
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

    block!(series_summary = "series_summary" {
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
}

/// `false_sharing`: two threads on one cache line against separate lines, by distance, by threads, shared counters, and core-to-core latency
pub mod false_sharing {
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

    block!(rounds = "rounds" {
        SET = "set" [text],
        CONFIG = "config" [text],
        ROUND = "round",
        NS_PER_INCREMENT = "ns_per_increment",
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    block!(placement = "placement" {
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

    block!(c2c = "c2c" {
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

    block!(baseline = "baseline" {
        SET = "set" [text],
        ROUNDS = "rounds",
        CORES = "cores" [text],
        ..ns,
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    block!(distance = "distance" {
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

    block!(threads = "threads" {
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

    block!(shared = "shared" {
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
        ATOMIC_1T = "atomic_1t",
        ATOMIC_2T = "atomic_2t",
        C2C_ONE_WAY_MEDIAN = "c2c_one_way_median",
        MUTEX_2T = "mutex_2t",
        SAME_LINE_VS_APART_2T = "same_line_vs_apart_2t",
    }
}

/// `env_scan`: the same work at shifted addresses and environment sizes, in fresh processes: raw times, deviations, correlations, verdicts
pub mod env_scan {
    use super::median_min_max;

    pub const EXPERIMENT: &str = "env_scan";

    /// The `deviation` block: one column per scan pass, named by the pass, so its columns are
    /// built by the writer from [`deviation::pass_column`].
    pub mod deviation {
        pub const BLOCK: &str = "deviation";
        pub const PAD_BYTES: &str = "pad_bytes";
        pub const WORKLOAD: &str = "workload";
        pub const PASSES_AGREE_10PCT: &str = "passes_agree_10pct";

        /// The column of one pass's deviation: `forward_pct`.
        pub fn pass_column(pass: &str) -> String {
            format!("{pass}_pct")
        }
    }

    block!(verdict = "verdict" {
        WORKLOAD = "workload" [text],
        KIND = "kind" [text],
        ROUNDS = "rounds",
        DISTURBED_ROUNDS = "disturbed_rounds",
    });

    block!(mechanism = "mechanism" {
        PAD_BYTES = "pad_bytes",
        STACK_ADDR = "stack_addr",
        SHIFT_BYTES = "shift_bytes",
        EXPECTED_LO_BYTES = "expected_lo_bytes",
        EXPECTED_HI_BYTES = "expected_hi_bytes",
        ASLR_OFF = "aslr_off" [text],
        PINNED = "pinned" [text],
    });

    block!(raw = "raw" {
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

    block!(correlation = "correlation" {
        WORKLOAD = "workload" [text],
        PASS_A = "pass_a" [text],
        PASS_B = "pass_b" [text],
        R = "r",
    });

    block!(regions = "regions" {
        WORKLOAD = "workload" [text],
        PASS = "pass" [text],
        REGION_START_BYTES = "region_start_bytes",
        MEDIAN_DEVIATION_PCT = "median_deviation_pct",
    });

    block!(slow_share = "slow_share" {
        WORKLOAD = "workload" [text],
        PASS = "pass" [text],
        SLOW_SHARE_PCT = "slow_share_pct",
    });

    block!(time_trend = "time_trend" {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each column constant names one declared column, and no column is declared twice.
    fn check(columns: &[&str], constants: &[&str]) {
        let bare: Vec<&str> = columns
            .iter()
            .map(|c| c.strip_suffix(":text").unwrap_or(c))
            .collect();
        for c in constants {
            assert!(bare.contains(c), "{c} is not among {bare:?}");
        }
        let mut sorted = bare.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(
            sorted.len(),
            bare.len(),
            "a column declared twice in {bare:?}"
        );
    }

    #[test]
    fn key_figures_columns_match_their_constants() {
        use super::key_figures::*;
        check(COLUMNS, &[FIGURE, VALUE, UNIT]);
    }

    /// Lists blocks by experiment: `experiment: block, block; ...` gives
    /// `(experiment, block, columns)` for each.
    macro_rules! blocks {
        ($($exp:ident: $($block:ident),+;)*) => {
            &[$($(($exp::EXPERIMENT, $exp::$block::BLOCK, $exp::$block::COLUMNS),)+)*]
        };
    }

    /// Every block declared with `block!`: experiment, block, columns.
    const ALL: &[(&str, &str, &[&str])] = blocks! {
        cache_ladder: latency, knees, mlp;
        stride: layout, stride, stride_passes, prefetch;
        tlb_walk: first_touch, pages, huge_pages, huge_verdict;
        clock_probe: clock_resolution, clock_cost, trap_one, times_ten, trap_two,
            trap_three_samples, trap_three_summary;
        branch: shape, variants, mispredict, patterns;
        fp_cost: shape, denormal, width, per_element, placement, ops;
        bandwidth: kernels, bandwidth, boundaries, threads, loaded_latency, levels;
        sink_bench: part1_passes, warm_in_process, fresh_processes, fresh_first_discarded,
            cold_in_process, series_summary, summary_figures;
        false_sharing: rounds, placement, c2c, c2c_methods, baseline, distance, threads, shared;
        env_scan: verdict, mechanism, raw, correlation, regions, slow_share, time_trend,
            region_repeats, repeat_verdicts, region_moves;
    };

    #[test]
    fn every_block_has_distinct_well_formed_columns() {
        for (exp, block, columns) in ALL {
            assert!(!columns.is_empty(), "{exp}.{block} has no column");
            for c in *columns {
                let bare = c.strip_suffix(":text").unwrap_or(c);
                assert!(
                    !bare.is_empty()
                        && bare
                            .chars()
                            .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_'),
                    "{exp}.{block}: odd column {c:?}"
                );
            }
            check(columns, &[]);
        }
    }

    #[test]
    fn block_names_are_distinct_within_an_experiment() {
        for (i, (exp, block, _)) in ALL.iter().enumerate() {
            for (other, name, _) in &ALL[i + 1..] {
                assert!(
                    !(exp == other && block == name),
                    "{exp}.{block} declared twice"
                );
            }
        }
    }

    #[test]
    fn cache_ladder_latency_is_declared_as_written() {
        use super::cache_ladder::latency::*;
        check(
            COLUMNS,
            &[KIB, WHERE, HUGE_STABLE, ROUNDS, DISTURBED_ROUNDS],
        );
        assert_eq!(COLUMNS[1], "where:text");
        assert_eq!(COLUMNS.len(), 35);
    }

    /// The blocks that share runs of columns, pinned to the columns they are written with: the
    /// exact text format readers of old results rely on, whatever the declarations look like.
    #[test]
    fn shared_column_runs_stay_as_written() {
        let pinned: &[(&[&str], &str)] = &[
            (
                false_sharing::baseline::COLUMNS,
                "set:text rounds cores:text ns_median ns_min ns_max disturbed_rounds",
            ),
            (
                false_sharing::distance::COLUMNS,
                "distance_bytes same_line:text ns_median ns_min ns_max split_ns vs_split_median \
                 vs_split_min vs_split_max suspicious:text disturbed_rounds pinned:text \
                 cores:text groups low_rounds low_median_ns high_rounds high_median_ns rounds",
            ),
            (
                false_sharing::threads::COLUMNS,
                "threads layout:text distance_bytes lines ns_median ns_min ns_max \
                 vs_split_median vs_split_min vs_split_max suspicious:text disturbed_rounds \
                 pinned:text note:text groups low_rounds low_median_ns high_rounds \
                 high_median_ns rounds",
            ),
            (
                false_sharing::shared::COLUMNS,
                "method:text threads iters_per_thread ns_median ns_min ns_max vs_baseline \
                 vs_one_thread suspicious:text disturbed_rounds pinned:text note:text rounds",
            ),
            (
                clock_probe::clock_cost::COLUMNS,
                "method:text median_ns min_ns max_ns rounds disturbed_rounds",
            ),
            (
                clock_probe::trap_one::COLUMNS,
                "variant:text median_ns min_ns max_ns per_element_ns rounds disturbed_rounds",
            ),
            (
                clock_probe::times_ten::COLUMNS,
                "variant:text elements median_ns min_ns max_ns case:text rounds \
                 disturbed_rounds",
            ),
            (
                clock_probe::trap_two::COLUMNS,
                "fill:text median_ns min_ns max_ns rounds disturbed_rounds",
            ),
            (
                branch::patterns::COLUMNS,
                "pattern:text period taken_share median_ns min_ns max_ns vs_always \
                 implied_miss_share rounds disturbed_rounds",
            ),
            (
                fp_cost::denormal::COLUMNS,
                "values:text ftz_daz:text median_ns min_ns max_ns rounds disturbed_rounds",
            ),
            (
                fp_cost::width::COLUMNS,
                "variant:text type:text order:text shape:text median_ns min_ns max_ns rounds \
                 disturbed_rounds",
            ),
            (
                fp_cost::per_element::COLUMNS,
                "op:text expr:text array:text array_bytes median_ns min_ns max_ns vs_multiply \
                 case:text rounds disturbed_rounds",
            ),
            (
                stride::layout::COLUMNS,
                "layout:text median_ns min_ns max_ns factor fetched_bytes_per_element \
                 used_bytes_per_line rounds disturbed_rounds",
            ),
            (
                env_scan::raw::COLUMNS,
                "seq pass order:text pad_bytes workload:text median_ns min_ns max_ns stack_addr \
                 stack_mod_4k stack_minus_global_mod_4k aslr_off:text pinned:text cpu repeat \
                 rounds disturbed_rounds",
            ),
        ];
        for (columns, written) in pinned {
            assert_eq!(columns.join(" "), *written);
        }
    }
}
