//! Not written yet: see the project's open issues.
fn main() {
    eprintln!("env_scan: not implemented yet");
    std::process::exit(1);
}
