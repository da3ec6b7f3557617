//! Pinning threads to cores, and checking that the request was honoured.
//!
//! A pinning request can be refused (a container's cpuset, a core that is offline), so the
//! result carries both what was asked and what the kernel says the thread now runs on.

use std::fmt;

/// The outcome of a pinning request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pinning {
    /// The core asked for.
    pub requested: usize,
    /// Whether `core_affinity` reported success.
    pub granted: bool,
    /// The core the thread runs on right after the request (`sched_getcpu`), if known.
    pub running_on: Option<usize>,
}

impl Pinning {
    /// True when the request was granted *and* the thread is seen on that core.
    pub fn verified(&self) -> bool {
        self.granted && self.running_on == Some(self.requested)
    }
}

impl fmt::Display for Pinning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on = self
            .running_on
            .map_or("unknown".to_string(), |c| c.to_string());
        if self.verified() {
            write!(
                f,
                "pinned to core {} (verified: running on core {on})",
                self.requested
            )
        } else if self.granted {
            write!(
                f,
                "pinning to core {} granted, but running on core {on}",
                self.requested
            )
        } else {
            write!(
                f,
                "pinning to core {} refused; running unpinned on core {on}",
                self.requested
            )
        }
    }
}

/// The core ids this process may run on (from `core_affinity`), in ascending order.
pub fn allowed_cores() -> Vec<usize> {
    let mut ids: Vec<usize> = core_affinity::get_core_ids()
        .unwrap_or_default()
        .into_iter()
        .map(|c| c.id)
        .collect();
    ids.sort_unstable();
    ids
}

/// The core the calling thread is running on now, from `sched_getcpu`.
pub fn current_cpu() -> Option<usize> {
    // SAFETY: sched_getcpu has no arguments and only returns a number or -1.
    let c = unsafe { libc::sched_getcpu() };
    (c >= 0).then_some(c as usize)
}

/// Pins the calling thread to `core` and reads back where it runs.
pub fn pin_current_thread(core: usize) -> Pinning {
    // core_affinity builds a fixed-size cpu_set_t and would panic past its end: such a core
    // cannot exist on this kernel's interface, so the request is simply refused.
    let granted = core < libc::CPU_SETSIZE as usize
        && core_affinity::set_for_current(core_affinity::CoreId { id: core });
    // A granted request takes effect at the next scheduling point; yield once so the
    // read-back sees the new placement rather than the old one.
    std::thread::yield_now();
    Pinning {
        requested: core,
        granted,
        running_on: current_cpu(),
    }
}

/// The core single-threaded experiments run on: `MM_CORE` if set (run-all sets it), else the
/// highest allowed core (core 0 tends to take more interrupts). `Err` explains a bad value.
pub fn default_core() -> Result<Option<usize>, String> {
    match std::env::var("MM_CORE") {
        Ok(v) => v
            .trim()
            .parse::<usize>()
            .map(Some)
            .map_err(|_| format!("MM_CORE must be a core number, not {v:?}")),
        Err(_) => Ok(allowed_cores().last().copied()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pinning_to_an_allowed_core_is_verified() {
        let cores = allowed_cores();
        assert!(!cores.is_empty(), "at least one core is allowed");
        let p = std::thread::spawn(move || pin_current_thread(cores[0]))
            .join()
            .unwrap();
        assert!(p.granted);
        assert_eq!(p.running_on, Some(p.requested), "{p}");
    }

    #[test]
    fn pinning_to_a_missing_core_is_refused_not_faked() {
        let p = std::thread::spawn(|| pin_current_thread(100_000))
            .join()
            .unwrap();
        assert!(!p.verified());
        assert!(p.to_string().contains("refused") || p.to_string().contains("but running"));
    }
}
