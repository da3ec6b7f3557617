//! What an experiment writes besides its report's prose: the data part (every `#META` line and
//! `#DATA` block, held back while the human report is printed and written after it as one
//! part) and the readings its recap repeats.
//!
//! One [`Out`] belongs to each [`Experiment`](crate::run::Experiment) (`exp.out`); the
//! experiment records through it, and the code that measures returns values for it to record.
//! [`Out::write`] ends the part: on a terminal it collapses to one line that says how to get it
//! (`--data`, or redirect stdout to a file); piped or redirected, it is printed whole, exactly
//! as the parser ([`crate::data::parse`]) expects. A process with no experiment (a helper
//! child) prints its lines itself ([`crate::data::meta_line`], [`Block::render`]).

use crate::data::{self, Block};
use std::fmt::Display;

/// How the data part is shown, from `--data` / `--no-data` / whether stdout is a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Show {
    /// `--data`: print every line, even on a terminal.
    All,
    /// `--no-data`: one line saying what was left out, even when piped.
    Collapsed,
    /// Neither flag: collapsed on a terminal, whole otherwise.
    #[default]
    Auto,
}

impl Show {
    /// Whether the whole part is printed when stdout is (`tty`) or is not a terminal.
    pub fn prints_all(self, tty: bool) -> bool {
        match self {
            Show::All => true,
            Show::Collapsed => false,
            Show::Auto => !tty,
        }
    }
}

/// The one line a collapsed part is shown as.
pub fn collapsed_line(program: &str, blocks: usize, metas: usize) -> String {
    format!(
        "[data: {blocks} #DATA blocks, {metas} #META lines hidden; add --data, or redirect: \
         > {program}.txt]"
    )
}

/// An experiment's data part and readings (see the module's introduction).
#[derive(Debug, Default)]
pub struct Out {}

impl Out {
    /// An empty part, with no readings.
    pub fn new() -> Out {
        data::part::open();
        Out::default()
    }

    /// Records one `#META key value` line ([`data::meta_line`]).
    pub fn meta(&mut self, key: &str, value: impl Display) {
        data::meta(key, value);
    }

    /// Records one `#META` line for each `(key, value)`.
    pub fn metas<K: AsRef<str>, V: Display>(&mut self, pairs: impl IntoIterator<Item = (K, V)>) {
        for (k, v) in pairs {
            self.meta(k.as_ref(), v);
        }
    }

    /// Records a `#DATA` block.
    pub fn block(&mut self, b: &Block) {
        b.print();
    }

    /// Prints a `* ` statement (a conclusion, as the appendix's C programs print them),
    /// wrapped with the continuation lines under its first word, and notes it for the recap.
    /// In an emulated run ([`crate::emulation`]) it prints
    /// [`NO_VERDICT`](crate::emulation::NO_VERDICT) instead, once a section: no time there is
    /// the machine's.
    pub fn conclude(&mut self, text: &str) {
        crate::fmt::conclude(text);
    }

    /// Prints a section's closing "How to read this run:" paragraph
    /// ([`crate::fmt::how_to_read`]) and notes its sentences for the recap; nothing when there
    /// is nothing to say. Emulated, it withholds them as [`Out::conclude`] does.
    pub fn how_to_read(&mut self, sentences: &[String]) {
        crate::show::how_to_read(sentences);
    }

    /// A new section begins, titled `title`: its readings are noted under its number.
    pub(crate) fn section(&mut self, title: &str) {
        crate::emulation::new_section();
        crate::recap::section(title);
    }

    /// The readings noted so far, in order (sections that concluded nothing left out).
    pub fn readings(&self) -> Vec<crate::recap::Reading> {
        crate::recap::readings()
    }

    /// Writes the part: whole, or as one line (see [`Show`]).
    pub fn write(self, program: &str, show: Show) {
        data::part::close(program, show);
    }
}
