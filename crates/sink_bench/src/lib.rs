//! The parts of `sink_bench` that its `main.rs` calls. Measuring: the loop, its three timing
//! functions and the round-robin of part 1 ([`kernel`]); the processes, the start every
//! process makes, the discarded first execution and the fresh processes ([`fresh`]); the
//! disassembly check ([`asm`]); the statistics of a series ([`stats`]); the options
//! ([`options`]). Printing, one module per kind of output: the report's lines and tables
//! ([`report`]), the verdict sentences ([`verdicts`]), the `#DATA` blocks ([`blocks`]).

pub mod asm;
pub mod blocks;
pub mod fresh;
pub mod kernel;
pub mod options;
pub mod report;
pub mod schema;
pub mod stats;
pub mod verdicts;
