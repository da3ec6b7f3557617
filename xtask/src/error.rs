//! How a subcommand fails: bad input (exit status 2, nothing changed) or a failed run
//! (exit status 1, what could be saved was saved). Errors flow back to `main` as values.

use std::fmt;

/// A subcommand's failure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The user's input was wrong: one line on stderr, exit status 2.
    BadInput(String),
    /// The work ran and failed (an experiment, a simulation, the compiler): exit status 1.
    Failed(String),
}

impl Error {
    /// The process exit status for this error.
    pub fn code(&self) -> i32 {
        match self {
            Error::BadInput(_) => 2,
            Error::Failed(_) => 1,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadInput(m) | Error::Failed(m) => f.write_str(m),
        }
    }
}

/// Shorthand for bad input.
pub fn bad(msg: impl Into<String>) -> Error {
    Error::BadInput(msg.into())
}

/// Shorthand for a failed run.
pub fn failed(msg: impl Into<String>) -> Error {
    Error::Failed(msg.into())
}

pub type Result<T> = std::result::Result<T, Error>;
