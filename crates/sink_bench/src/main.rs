//! Not written yet: see the project's open issues.
fn main() {
    eprintln!("sink_bench: not implemented yet");
    std::process::exit(1);
}
