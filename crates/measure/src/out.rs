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
use crate::fmt::{WIDTH, wrap_to};
use crate::recap::{self, Reading};
use std::fmt::Display;
use std::io::{IsTerminal, Write};

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
pub struct Out {
    /// The data part: each `#META` line and `#DATA` block, in the order recorded.
    held: Vec<String>,
    /// One reading per section begun, in order.
    readings: Vec<Reading>,
    /// Whether the current section said [`NO_VERDICT`](crate::emulation::NO_VERDICT) already
    /// (an emulated run says it once a section).
    withheld: bool,
}

impl Out {
    /// An empty part, with no readings.
    pub fn new() -> Out {
        Out::default()
    }

    /// Records one `#META key value` line ([`data::meta_line`]).
    pub fn meta(&mut self, key: &str, value: impl Display) {
        self.held.push(data::meta_line(key, value) + "\n");
    }

    /// Records one `#META` line for each `(key, value)`.
    pub fn metas<K: AsRef<str>, V: Display>(&mut self, pairs: impl IntoIterator<Item = (K, V)>) {
        for (k, v) in pairs {
            self.meta(k.as_ref(), v);
        }
    }

    /// Records a `#DATA` block.
    pub fn block(&mut self, b: &Block) {
        self.held.push(b.render());
    }

    /// Prints a `* ` statement (a conclusion, as the appendix's C programs print them),
    /// wrapped with the continuation lines under its first word, and notes it for the recap.
    /// In an emulated run ([`crate::emulation`]) it prints
    /// [`NO_VERDICT`](crate::emulation::NO_VERDICT) instead, once a section: no time there is
    /// the machine's.
    pub fn conclude(&mut self, text: &str) {
        if crate::emulation::withhold_verdict(&mut self.withheld) {
            return;
        }
        self.note(text);
        println!("{}", wrap_to(text, "  * ", "    ", WIDTH));
    }

    /// Prints a section's reading as a list: the line "how to read this run:", then each
    /// sentence as a [`Out::conclude`] bullet (noted for the recap, withheld when emulated).
    pub fn reading(&mut self, sentences: &[String]) {
        println!("\n  how to read this run:");
        for s in sentences {
            self.conclude(s);
        }
    }

    /// Prints a section's closing "How to read this run:" paragraph
    /// ([`crate::fmt::how_to_read`]) and notes its sentences for the recap; nothing when there
    /// is nothing to say. Emulated, it withholds them as [`Out::conclude`] does.
    pub fn how_to_read(&mut self, sentences: &[String]) {
        if sentences.is_empty() || crate::emulation::withhold_verdict(&mut self.withheld) {
            return;
        }
        sentences.iter().for_each(|s| self.note(s));
        println!("{}", crate::fmt::how_to_read(sentences));
    }

    /// A new section begins, titled `title`: its readings are noted under its number, and a
    /// withheld verdict is said again.
    pub(crate) fn section(&mut self, title: &str) {
        self.withheld = false;
        self.readings.push(Reading {
            section: recap::section_number(title).to_string(),
            ..Default::default()
        });
    }

    /// A sentence the current section concluded.
    fn note(&mut self, sentence: &str) {
        if self.readings.is_empty() {
            self.readings.push(Reading::default());
        }
        let last = self.readings.last_mut().expect("one pushed");
        recap::add(last, sentence);
    }

    /// The readings noted so far, in order (sections that concluded nothing left out).
    pub fn readings(&self) -> Vec<Reading> {
        let said = self.readings.iter().filter(|r| r.first.is_some());
        said.cloned().collect()
    }

    /// The data part recorded so far, as it will be written.
    pub fn text(&self) -> String {
        self.held.concat()
    }

    /// Writes the part: whole, or as one line (see [`Show`]).
    pub fn write(self, program: &str, show: Show) {
        let text = self.text();
        let mut out = std::io::stdout().lock();
        if show.prints_all(out.is_terminal()) {
            let _ = out.write_all(text.as_bytes());
        } else {
            let count = |tag: &str| text.lines().filter(|l| l.starts_with(tag)).count();
            let line = collapsed_line(program, count("#DATA-BEGIN"), count("#META"));
            let _ = writeln!(out, "{line}");
        }
        let _ = out.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_parts_share_nothing() {
        let (mut a, mut b) = (Out::new(), Out::new());
        a.meta("experiment", "one");
        a.section("1. the first");
        a.note("a reading.");
        let mut blk = Block::new("sizes", &["kib"]);
        blk.row(vec![4.into()]);
        b.block(&blk);
        assert_eq!(a.text(), "#META experiment one\n");
        assert_eq!(
            b.text(),
            "#DATA-BEGIN sizes\n#COLUMNS kib\n#DATA 4\n#DATA-END\n"
        );
        assert_eq!(a.readings().len(), 1);
        assert!(b.readings().is_empty());
        // The part reads back as the parser expects, in the order recorded.
        b.metas([("quick", "yes"), ("rounds", "7")]);
        let f = data::parse(&b.text()).expect("parses");
        assert_eq!(f.meta("rounds"), Some("7"));
        assert_eq!(f.block("sizes").map(|b| b.rows.len()), Some(1));
        assert!(b.text().starts_with("#DATA-BEGIN"));
    }

    #[test]
    fn the_recap_reads_the_sections_noted_here() {
        let mut out = Out::new();
        out.section("how this is measured");
        out.section("4. time for one read");
        out.note(
            "provisional: 9 of 31 rounds were disturbed (0.50 cores of other work on core 1); \
             the clean rounds give: L1 reads in 1.1 ns. Memory is 150x slower.",
        );
        out.note("contention: 0.95 cores of other work ran on the other cores meanwhile");
        out.section("the setup");
        out.note("the clocks claim 1 ns or better.");
        let readings = out.readings();
        assert_eq!(readings.len(), 2, "a section that said nothing is left out");
        assert_eq!(readings[0].section, "4");
        assert_eq!(
            recap::lines(&[], &readings, false),
            [
                "  * provisional: L1 reads in 1.1 ns. (section 4, contention)",
                "  * the clocks claim 1 ns or better.",
            ]
        );
        // A sentence before any section opens one without a number.
        let mut early = Out::new();
        early.note("said first.");
        assert_eq!(early.readings()[0].section, "");
    }
}
