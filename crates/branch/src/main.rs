//! Not written yet: see the project's open issues.
fn main() {
    eprintln!("branch: not implemented yet");
    std::process::exit(1);
}
