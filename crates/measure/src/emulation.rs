//! Whether this process runs under an emulator (qemu-user), where times are not the machine's.
//!
//! A stub for now: [`emulated`] always answers `false`. Detection (qemu-user's `/proc/cpuinfo`,
//! `AT_HWCAP`, or the `MM_EMULATED` override) lands with the aarch64 work.

/// Whether the process runs emulated; verdicts about speed are not printed when it does.
pub fn emulated() -> bool {
    false
}
