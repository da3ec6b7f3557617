//! # measure: the one shared measurement library of machine-measured
//!
//! Every experiment in this workspace is a small binary that reads top to bottom like its
//! section of the book appendix "The machine, measured". The mechanics they share live here,
//! once:
//!
//! | module | what it gives |
//! |---|---|
//! | [`clock`] | the monotonic nanosecond clock, what it claims, what it costs, its smallest step; the core-clock estimate, its spread, and before against after (`clock/core_clock.rs`) |
//! | [`stats`] | min, median, mean, p99, max, coefficient of variation, max/min |
//! | [`keep`] | keeping results alive: `black_box` and checksums |
//! | [`pin`] | pinning a thread to a core with `core_affinity`, and reading back where it runs |
//! | [`team`] | a team of pinned worker threads released together and timed to the last finish, what each saw of its core; the cores in spread order (sysfs topology) |
//! | [`disturb`] | evidence of disturbance round by round (involuntary switches, run-queue wait, time off the CPU), the load around a block (`/proc/stat`: the core, its steal, the other cores), and the one rule for "provisional" and "contention" (`Tally`) |
//! | [`emulation`] | whether the process runs under an emulator (qemu-user), where no time is the machine's: the sign, the `MM_EMULATED` override, verdicts withheld; the target's configured runner |
//! | [`facts`] | machine facts with provenance (sysfs, then CPUID, then `sysconf`), one file per source under `facts/`; the load average |
//! | [`ring`] | seeded xoshiro random numbers, shuffles and the single-cycle Sattolo permutation |
//! | [`chase`] | pointer-chase rings (index links and address links, any slot layout), their walking kernels, and the round plan (`Plan`: warm-ups, sizing, interleaved rounds) |
//! | [`curve`] | reading a measured curve against the reported caches: its unstable stretches, the reported size nearest a boundary |
//! | [`scan`] | scanning a parameter in several orders and checking that the passes agree |
//! | [`data`] | the `#DATA` format: each line and block as text, one strict parser |
//! | [`out`] | what an experiment records, owned by it (`exp.out`): its data part, held back until the report is done, and the readings its recap repeats |
//! | [`key`] | reading an experiment's key figures back from a saved run |
//! | [`schema`] | the names across the data boundary, once: each experiment's blocks, columns and key figures, for writers and readers |
//! | [`fmt`] | formatting every report shares: sizes, grouped numbers, yes/no, loads, median/min/max cells, wrapping to 100 columns |
//! | [`show`] | printing several reports do alike: a reading marked by its evidence, a prepared region's line, the series and median/min/max blocks |
//! | [`recap`] | the recap that ends every report: the key figures and each section's first reading, on one screen, marked provisional where disturbed |
//! | [`progress`] | a line of progress on stderr (a terminal only) when a measurement has been silent for 5 seconds |
//! | [`quiet`] | whether the machine was quiet: other processes' CPU time while an experiment ran |
//! | [`mem`] | page-aligned `mmap` regions, `madvise` and the huge-page backing read from smaps; `prepare` (map, ask, touch, verify); the memory guards `room_for` and `guard` (with `ulimit -v`), `try_vec` |
//! | [`asm`] | reading back the machine code of a named function (`nm -S`, `objdump -d`, the binary's own architecture's) and finding its loops |
//! | [`cli`] | the tiny, strict command-line parser every experiment uses |
//! | [`rounds`] | timed rounds judged by their evidence: interleaved variants, a warm-up after a disturbed round, more rounds until enough are clean (within a budget), summaries of the clean ones |
//! | [`retake`] | a short block taken again (within a budget) while the core's share moved or read low during it |
//! | [`segments`] | long rounds (a walk of a fixed count, a lap over memory) cut into short segments, each judged by its evidence; every repetition rebuilt from the same segments' clean time |
//! | [`run`] | the start and end of an experiment: build check, machine, load, pinning, the core clock before and after |
//! | [`testing`] | for integration tests: run a built experiment (through the target's runner) and parse it; check bad input is refused; read a kernel's machine code |
//!
//! The library measures nothing on its own except where a function says so
//! ([`clock::probe`], [`clock::estimate_core_clock`], and [`run::Experiment::finish`], which
//! estimates the core clock again when the experiment asked for it at the start).

pub mod asm;
pub mod chase;
pub mod cli;
pub mod clock;
pub mod curve;
pub mod data;
pub mod disturb;
pub mod emulation;
pub mod facts;
pub mod fmt;
pub mod keep;
pub mod key;
pub mod mem;
pub mod out;
pub mod pin;
pub mod progress;
pub mod quiet;
pub mod recap;
pub mod retake;
pub mod ring;
pub mod rounds;
pub mod run;
pub mod scan;
pub mod schema;
pub mod segments;
pub mod show;
pub mod stats;
pub mod team;
pub mod testing;

pub use std::hint::black_box;

#[cfg(test)]
mod tests {
    /// The table at the top names every public module once, and nothing else.
    #[test]
    fn the_module_table_lists_every_module() {
        let src = include_str!("lib.rs");
        let mut modules: Vec<&str> = src
            .lines()
            .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
            .collect();
        let mut rows: Vec<&str> = src
            .lines()
            .filter_map(|l| l.strip_prefix("//! | [`")?.split_once("`]").map(|(m, _)| m))
            .collect();
        modules.sort_unstable();
        rows.sort_unstable();
        assert!(!modules.is_empty());
        assert_eq!(
            rows, modules,
            "lib.rs's module table and its `pub mod` lines differ"
        );
    }
}
