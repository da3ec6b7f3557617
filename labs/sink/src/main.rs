//! The sink lab's timing binary, run by `cargo xtask lab check sink`. It checks that the
//! code under test is unchanged, reads the built benchmark's machine code for its loop, times
//! the student's benchmark by its own report at ten times the input against the input, and
//! compares its figure with one pass timed from outside.

use lab_sink::{SPEC, baseline, input, solution};
use measure::ring;

/// Numbers in the small input (128 KiB); the large one has ten times as many.
const N: usize = 1 << 14;

fn main() {
    labkit::args(
        &SPEC,
        "the sink lab, timed for `cargo xtask lab check sink`",
    );
    let (core, pinning) = labkit::pin_main();
    let mut r = labkit::Report::new(SPEC, "benchmark's ns at 10x the input", "at 1x");
    r.correct = labkit::agree(
        |rng| {
            let n = ring::below(rng, 5000);
            input(rng, n)
        },
        |d| baseline::sum_squares(d),
        |d| solution::sum_squares(d),
        |a, b| a == b,
    );
    r.fact("shape", shape("lab_sink_solution"));
    if r.correct.is_ok() {
        let small = input(&mut ring::rng(ring::DEFAULT_SEED), N);
        let large = input(&mut ring::rng(ring::DEFAULT_SEED), 10 * N);
        r.timing = labkit::paired(
            core,
            1,
            || solution::bench(&large),
            || solution::bench(&small),
        );
        // The benchmark's own figure against one pass timed from outside, kept alive: a
        // benchmark that computes the sum once for all its passes reports a fraction of it.
        let honest = labkit::paired(
            core,
            1,
            || solution::bench(&small),
            || labkit::wall_ns(|| baseline::sum_squares(measure::black_box(&small))),
        );
        let ratios: Vec<f64> = honest.rounds.iter().map(|r| r.a_ns / r.b_ns).collect();
        if let Some(m) = measure::stats::median(&ratios) {
            r.fact("agreement", m);
            r.fact(
                "agreement_what",
                "the benchmark's figure over one pass timed from outside",
            );
        }
    }
    r.fact("pinning", pinning);
    r.print();
}

/// "yes", "no" or "unknown (why)": whether the built benchmark `symbol` holds a loop.
fn shape(symbol: &str) -> String {
    let exe = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return format!("unknown (this program's path: {e})"),
    };
    match measure::asm::disassemble(&exe, symbol) {
        Ok(f) if f.loops().is_empty() => "no".into(),
        Ok(_) => "yes".into(),
        Err(e) => format!("unknown ({e})"),
    }
}
