//! Not written yet: see the project's open issues.
fn main() {
    eprintln!("fp_cost: not implemented yet");
    std::process::exit(1);
}
