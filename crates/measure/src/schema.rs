//! The names across the data boundary: the macros that declare `#DATA` blocks, their columns
//! and key figures, and the blocks and `#META` keys every experiment writes (key figures,
//! disturbance, the run's own). Each experiment declares its own blocks with these macros in
//! its crate's `schema` module (`fp_cost::schema`), which the experiment writes with and xtask
//! reads with, so renaming a block or a column changes both sides or breaks the build; this
//! crate names no experiment. The text format is unchanged: `COLUMNS` is exactly what
//! `Block::new` receives.
//!
//! An experiment's `schema` module holds `EXPERIMENT` (its name); one module per block with
//! `BLOCK` (its name), one constant per column (the bare name, as readers look it up) and
//! `COLUMNS` (the columns in order, text columns marked `:text`); `key` with the names of the
//! key figures other tools read; `ROW_KEYS`, its blocks whose rows are keyed by named columns
//! (each block's `KEY_COLUMNS`, declared with it); and `META_*`, the `#META` keys its figure
//! reads. A block whose columns depend on the run (env_scan's `deviation`) declares its fixed
//! columns and a function for the others, and its `KEY_COLUMNS` by hand.
//!
//! A run of columns that one piece of code writes into several blocks (the `median, min, max`
//! cells of [`crate::fmt::median_min_max`], false_sharing's checks) is declared once as a
//! group, and a block takes it in as `..group`: its columns stand there in order, and its
//! constants are the block's too (`false_sharing::distance::SUSPICIOUS`).

/// Declares one block: `name = "block" keys [CONST, ...] { CONST = "column" [text], ..group,
/// ... }`. An entry `..group` takes in a `group!` declared beside the block (or imported
/// there): its columns in their place, and its constants re-exported, so `block::CONST` reads
/// the same either way. `keys [...]`, which may be left out, names the columns that tell the
/// block's rows apart (`KEY_COLUMNS`, none when left out); see `row_keys!`.
#[macro_export]
macro_rules! block {
    ($module:ident = $name:literal $(keys [$($key:ident),* $(,)?])? { $($body:tt)* }) => {
        $crate::block!(@entries $module $name [$($($key)*)?] [] $($body)*);
    };
    // One entry at a time, each kept as `(col ...)` or `(group ...)`, until none is left.
    (@entries $module:ident $name:literal $keys:tt [$($done:tt)*]
        $col:ident = $cname:literal $([$text:ident])? $(, $($rest:tt)*)?) => {
        $crate::block!(@entries $module $name $keys
            [$($done)* (col $col $cname $($text)?)] $($($rest)*)?);
    };
    (@entries $module:ident $name:literal $keys:tt [$($done:tt)*]
        ..$group:ident $(, $($rest:tt)*)?) => {
        $crate::block!(@entries $module $name $keys [$($done)* (group $group)] $($($rest)*)?);
    };
    (@entries $module:ident $name:literal [$($key:ident)*] [$($entry:tt)*]) => {
        pub mod $module {
            /// The block's name.
            pub const BLOCK: &str = $name;
            $($crate::block!(@names $entry);)*
            const PARTS: &[&[&str]] = &[$($crate::block!(@part $entry)),*];
            const JOINED: [&str; $crate::schema::count(PARTS)] = $crate::schema::join(PARTS);
            /// The columns in order, as the writer declares them (`:text` marks a text column).
            pub const COLUMNS: &[&str] = &JOINED;
            /// The columns that tell the block's rows apart (`compare.csv`'s `row`), in order;
            /// none when the block names none.
            pub const KEY_COLUMNS: &[&str] = &[$($key),*];
        }
    };
    (@names (col $col:ident $cname:literal $($text:ident)?)) => { pub const $col: &str = $cname; };
    (@names (group $group:ident)) => { pub use super::$group::*; };
    (@part (col $col:ident $cname:literal $($text:ident)?)) => { &[$crate::block!(@col $cname $($text)?)] };
    (@part (group $group:ident)) => { super::$group::COLUMNS };
    (@col $c:literal) => { $c };
    (@col $c:literal text) => { concat!($c, ":text") };
}

/// Declares a run of columns that several blocks share, because one piece of code writes it
/// for each of them: `name { CONST = "column" [text], ... }`. A block takes it in as `..name`.
#[macro_export]
macro_rules! group {
    ($(#[$doc:meta])* $module:ident {
        $($col:ident = $cname:literal $([$text:ident])?),* $(,)?
    }) => {
        $(#[$doc])*
        pub mod $module {
            $(pub const $col: &str = $cname;)*
            /// The group's columns in order (`:text` marks a text column).
            pub const COLUMNS: &[&str] = &[$($crate::block!(@col $cname $($text)?)),*];
        }
    };
}

/// How many columns `parts` hold together.
#[doc(hidden)]
pub const fn count(parts: &[&[&str]]) -> usize {
    let (mut i, mut n) = (0, 0);
    while i < parts.len() {
        n += parts[i].len();
        i += 1;
    }
    n
}

/// The columns of `parts` in order, as one array (`N` is their [`count`]).
#[doc(hidden)]
pub const fn join<const N: usize>(parts: &[&[&'static str]]) -> [&'static str; N] {
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

/// The blocks of an experiment whose rows are keyed by named columns: each block's name with
/// its `KEY_COLUMNS` (`compare.csv`'s `row`). A block not listed is keyed by its leading text
/// columns, as few as make its rows unique, or by the row's number.
pub type RowKeys = &'static [(&'static str, &'static [&'static str])];

/// Lists an experiment's keyed blocks as a [`RowKeys`]: `row_keys![block, block, ...]`, each a
/// module declared with [`block!`] and `keys [...]`.
#[macro_export]
macro_rules! row_keys {
    ($($module:ident),* $(,)?) => {
        &[$(($module::BLOCK, $module::KEY_COLUMNS)),*]
    };
}

/// Declares the key figures: `NAME = "name" from SOURCE: "what it is, in words",...`. Each key
/// figure has this one definition: the name the experiment writes and tools read back, the
/// result it is read from (a block or part of one, [`crate::key::WHOLE_RUN`] or
/// [`crate::key::UNTIMED`]: the mark it takes, see [`crate::key::Sources`]), and the words a
/// reader sees wherever it is quoted (the summary, `index.html`, `compare.md`), naming its
/// method where there are several (index or pointer chase, per element or throughput). It
/// makes the `key` module and the experiment's `KEY_SOURCES`.
#[macro_export]
macro_rules! keys {
    ($($k:ident = $v:literal from $src:path : $words:literal),* $(,)?) => {
        /// The names of the key figures other tools read back.
        pub mod key {
            $(pub const $k: &str = $v;)*
            /// Every key figure the experiment writes: its name and what it is, in words.
            pub const ALL: &[(&str, &str)] = &[$(($v, $words)),*];
        }
        /// The result each key figure is read from, whose mark it takes.
        pub const KEY_SOURCES: $crate::key::Sources = &[$(($v, $src)),*];
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
    /// The core's share ([`crate::clock::share`]) as the block opened and as it closed; NA
    /// where it was not read (emulated, or saved before December 2026).
    pub const SHARE_BEFORE: &str = "core_share_before";
    pub const SHARE_AFTER: &str = "core_share_after";
    /// The best reading of the share on the block's core before the block closed (NA where
    /// not read, or the block was not pinned); a reading more than a tenth below it makes the
    /// block provisional.
    pub const SHARE_BEST: &str = "core_share_best";
    /// How many times the block was taken ([`crate::retake`]): 1, or more where the core's
    /// share was unsteady during the takes discarded before it.
    pub const TAKES: &str = "takes";
    /// The memory reference ([`crate::clock::memory`]), in ns a load, as a memory-bound block
    /// opened and as it closed; NA for other blocks (and in outputs saved before December 7,
    /// 2026). Readings more than a quarter apart make the block provisional.
    pub const MEMORY_BEFORE: &str = "memory_ref_before_ns";
    pub const MEMORY_AFTER: &str = "memory_ref_after_ns";
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
        "core_share_before",
        "core_share_after",
        "core_share_best",
        "takes",
        "memory_ref_before_ns",
        "memory_ref_after_ns",
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
    /// The core's share ([`crate::clock::share`]) read beside the first core-clock estimate
    /// and beside the last, and whether it moved by more than a fifth (`yes`/`no`).
    pub const META_CORE_SHARE_BEFORE: &str = "core_share_before";
    pub const META_CORE_SHARE_AFTER: &str = "core_share_after";
    pub const META_CORE_SHARE_MOVED: &str = "core_share_moved";
}

/// The `#META` keys of the data TLBs' entry counts every run writes among the machine's facts
/// ([`crate::facts::DataTlbs`]): `N cpuid`, or `unknown`. A figure may draw their reach.
pub mod tlb {
    /// The L1 data TLB's entries for 4 KiB pages.
    pub const L1_4K_ENTRIES: &str = "dtlb_l1_4k_entries";
    /// The L2 (second-level, on Intel the shared STLB) data TLB's entries for 4 KiB pages.
    pub const L2_4K_ENTRIES: &str = "dtlb_l2_4k_entries";
    /// The L1 data TLB's entries for 2 MiB pages.
    pub const L1_2M_ENTRIES: &str = "dtlb_l1_2m_entries";
    /// The L2 data TLB's entries for 2 MiB pages.
    pub const L2_2M_ENTRIES: &str = "dtlb_l2_2m_entries";
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

#[cfg(test)]
mod tests {

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
}
