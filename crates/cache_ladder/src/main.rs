//! Not written yet: see the project's open issues.
fn main() {
    eprintln!("cache_ladder: not implemented yet");
    std::process::exit(1);
}
