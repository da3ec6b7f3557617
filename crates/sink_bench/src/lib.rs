//! The parts of `sink_bench` that its `main.rs` calls: the loop and its three timing
//! functions ([`kernel`]), the start every process makes and the fresh processes
//! ([`fresh`]), the disassembly check ([`asm`]), the options ([`options`]), the statistics,
//! `RESULT` lines and summary ([`report`]), and saving runs ([`save`]).

pub mod asm;
pub mod fresh;
pub mod kernel;
pub mod options;
pub mod report;
pub mod save;
