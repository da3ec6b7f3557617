//! A line of progress during a long silence: a measurement that prints nothing for more than
//! [`SILENCE`] says what it is measuring ("  … measuring 512 MiB, shuffled pass (12 of 32)").
//!
//! The lines go to stderr, and only when stderr is a terminal: a person watching sees them,
//! while the report on stdout (and every `#DATA` line after it) keeps the same bytes, and
//! `run-all`, which saves stderr as `<experiment>.stderr.txt`, saves none of them.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// The silence after which a progress line is printed.
pub const SILENCE: Duration = Duration::from_secs(5);

/// Progress through `of` steps of one measurement.
pub struct Progress {
    of: usize,
    since: Instant,
    show: bool,
}

impl Progress {
    /// Progress through `of` steps, starting now; shown only on a terminal.
    pub fn new(of: usize) -> Progress {
        Progress::shown(of, std::io::stderr().is_terminal())
    }

    /// [`Progress::new`], shown or not.
    pub fn shown(of: usize, show: bool) -> Progress {
        Progress {
            of,
            since: Instant::now(),
            show,
        }
    }

    /// Step `done` (counting from 1) begins: when [`SILENCE`] has passed since the start or the
    /// last line, prints `  … measuring {what} ({done} of {of})` on stderr. `what` is called
    /// only then.
    pub fn step(&mut self, done: usize, what: impl FnOnce() -> String) {
        if let Some(l) = self.line_at(Instant::now(), done, what) {
            eprintln!("{l}");
        }
    }

    /// The line [`Progress::step`] prints at `now`, if any (and the clock restarts).
    fn line_at(
        &mut self,
        now: Instant,
        done: usize,
        what: impl FnOnce() -> String,
    ) -> Option<String> {
        if !self.show || now.duration_since(self.since) < SILENCE {
            return None;
        }
        self.since = now;
        Some(line(&what(), done, self.of))
    }
}

/// `  … measuring 512 MiB, shuffled pass (12 of 32)`; `  … measuring (12 of 32)` where
/// nothing names the step.
pub fn line(what: &str, done: usize, of: usize) -> String {
    let what = if what.is_empty() {
        String::new()
    } else {
        format!(" {what}")
    };
    crate::fmt::wrap_to(
        &format!("… measuring{what} ({done} of {of})"),
        "  ",
        "    ",
        crate::fmt::WIDTH,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_comes_only_after_a_silence_and_the_silence_restarts() {
        let mut p = Progress::shown(32, true);
        let t0 = p.since;
        let named = || "512 MiB, shuffled pass".to_string();
        assert_eq!(p.line_at(t0 + Duration::from_secs(4), 3, named), None);
        let at = t0 + SILENCE + Duration::from_millis(1);
        assert_eq!(
            p.line_at(at, 12, named).as_deref(),
            Some("  … measuring 512 MiB, shuffled pass (12 of 32)")
        );
        assert_eq!(p.line_at(at + Duration::from_secs(1), 13, named), None);
        assert!(p.line_at(at + SILENCE, 20, named).is_some());
    }

    #[test]
    fn nothing_is_shown_off_a_terminal_and_the_words_are_asked_only_for_a_line() {
        let mut p = Progress::shown(4, false);
        let later = p.since + 10 * SILENCE;
        assert_eq!(
            p.line_at(later, 1, || panic!("not asked off a terminal")),
            None
        );
        assert_eq!(line("", 2, 4), "  … measuring (2 of 4)");
    }
}
