//! The library half of `branch`: the disassembly classifier the experiment runs on its own
//! executable, shared with the tests that check the built binary. The experiment itself is
//! `src/main.rs`.

pub mod schema;
pub mod shape;
