//! Records the optimisation level this crate was built with, so that every experiment can
//! warn loudly when it was built without optimisation (see `measure::run::OPT_LEVEL`), and
//! the target triple it was built for (see `measure::emulation::TARGET`).
fn main() {
    let opt = std::env::var("OPT_LEVEL").unwrap_or_else(|_| "unknown".into());
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=MEASURE_OPT_LEVEL={opt}");
    println!("cargo:rustc-env=MEASURE_PROFILE={profile}");
    // The target triple, for the runner's variable (`measure::emulation::runner`).
    let target = std::env::var("TARGET").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=MEASURE_TARGET={target}");
    println!("cargo:rerun-if-changed=build.rs");
}
