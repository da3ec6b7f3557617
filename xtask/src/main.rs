//! # xtask: the project's own tools
//!
//! ```text
//! cargo xtask run-all [--quick] [--only a,b] [--label NAME] [--out DIR] [--timeout SECONDS]
//! cargo xtask figures [--from DIR --out DIR]
//! cargo xtask compare DIR DIR... [--out DIR] [--baseline LABEL] [--pointer-chase]
//! cargo xtask appendix-c [--seed FILE] [--label NAME] [--out DIR]
//! cargo xtask verify [--n COUNT] [--bin PATH]
//! cargo xtask handouts [--check] [--from DIR]
//! cargo xtask lab list | check NAME [--solution FILE] [--student NAME] [--out DIR] | gather DIR...
//! cargo xtask noise [--only a,b] [--out DIR] [--quick]
//! cargo xtask cross-test
//! ```
//!
//! Nothing here measures: run-all starts the experiment binaries and saves what they print;
//! figures, compare and handouts read saved output only. Start reading at [`flags`] (the
//! commands and their options), then the module of the command you care about. Bad input
//! gets one line on stderr and exit status 2; a failed run exits 1.

mod appendix_c;
mod book;
mod compare;
mod cross_test;
mod csv_text;
mod error;
mod experiments;
mod figures;
mod flags;
mod handouts;
mod lab;
mod marks;
mod noise;
mod project;
mod quotes;
mod run_all;
mod sink_bench;
mod verify;

use flags::Command;

fn main() {
    // UTF-8 arguments or one line and exit status 2; a closed pipe ends it quietly.
    let argv = measure::cli::argv("xtask");
    let result = flags::parse(&argv).and_then(|cmd| match cmd {
        Command::RunAll(o) => run_all::command(&o),
        Command::Figures(o) => figures::command(&o, &experiments::drawers())
            .and_then(|()| run_all::page_after_figures(&o)),
        Command::Compare(o) => compare::command(&o),
        Command::AppendixC(o) => appendix_c::command(&o),
        Command::Verify(o) => verify::command(&o),
        Command::Handouts(o) => handouts::command(&o),
        Command::Lab(o) => lab::command(&o),
        Command::Noise(o) => noise::command(&o),
        Command::NoiseBusy(core) => noise::busy(core),
        Command::NoiseStream(core, mib) => noise::stream(core, mib),
        Command::CrossTest => cross_test::command(),
        Command::Help(text) => {
            print!("{text}");
            Ok(())
        }
    });
    if let Err(e) = result {
        eprintln!("xtask: error: {e}");
        std::process::exit(e.code());
    }
}
