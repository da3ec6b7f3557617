//! `fp_cost`'s library side: the names of what it writes (its `#DATA` blocks, columns and key
//! figures), shared by the experiment binary and by xtask's readers.

pub mod schema;
