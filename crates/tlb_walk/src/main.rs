//! Not written yet: see the project's open issues.
fn main() {
    eprintln!("tlb_walk: not implemented yet");
    std::process::exit(1);
}
