//! # xtask: the project's own tools
//!
//! ```text
//! cargo xtask run-all [--quick] [--only a,b] [--label NAME] [--out DIR]
//! cargo xtask figures [--from DIR --out DIR]
//! cargo xtask compare DIR DIR... [--out DIR] [--baseline LABEL] [--pointer-chase]
//! cargo xtask appendix-c [--seed FILE] [--label NAME] [--out DIR]
//! cargo xtask verify [--n COUNT] [--bin PATH]
//! cargo xtask handouts [--check] [--from DIR]
//! cargo xtask noise [--only a,b] [--out DIR] [--quick]
//! ```
//!
//! Nothing here measures: run-all starts the experiment binaries and saves what they print;
//! figures, compare and handouts read saved output only. Start reading at [`flags`] (the
//! commands and their options), then the module of the command you care about. Bad input
//! gets one line on stderr and exit status 2; a failed run exits 1.

mod appendix_c;
mod compare;
mod error;
mod figures;
mod flags;
mod handouts;
mod marks;
mod noise;
mod project;
mod run_all;
mod sink_bench;
mod verify;

use flags::Command;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let result = flags::parse(&argv).and_then(|cmd| match cmd {
        Command::RunAll(o) => run_all::command(&o),
        Command::Figures(o) => figures::command(&o),
        Command::Compare(o) => compare::command(&o),
        Command::AppendixC(o) => appendix_c::command(&o),
        Command::Verify(o) => verify::command(&o),
        Command::Handouts(o) => handouts::command(&o),
        Command::Noise(o) => noise::command(&o),
        Command::NoiseBusy(core) => noise::busy(core),
        Command::NoiseStream(core, mib) => noise::stream(core, mib),
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
