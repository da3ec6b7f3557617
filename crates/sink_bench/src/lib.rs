//! The parts of `sink_bench` that its `main.rs` calls: the loop, its three timing functions
//! and the round-robin of part 1 ([`kernel`]), the start every process makes and the fresh
//! processes ([`fresh`]), the disassembly check ([`asm`]), the options ([`options`]), the
//! lines, tables and `#DATA` blocks a run prints ([`output`]), the statistics, `RESULT`
//! lines and summary ([`report`]), and saving runs ([`save`]).

pub mod asm;
pub mod fresh;
pub mod kernel;
pub mod options;
pub mod output;
pub mod report;
pub mod save;
