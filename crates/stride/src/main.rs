//! Not written yet: see the project's open issues.
fn main() {
    eprintln!("stride: not implemented yet");
    std::process::exit(1);
}
