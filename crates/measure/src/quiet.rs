//! Was the machine quiet? The load average cannot say: an experiment that keeps one core
//! busy raises it by itself, so a warning based on it fires on every good run. Instead this
//! module counts the CPU time *other* work used while an experiment ran: the whole machine's
//! busy time from `/proc/stat` minus the experiment's own CPU time from `getrusage` (its
//! threads and its waited-for children).

use std::fs;

/// Other work above this many cores' worth (averaged over the run) is warned about.
pub const WARN_CORES: f64 = 0.10;

/// One reading of the machine's and this process's CPU time, in seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Snapshot {
    /// Busy time of all CPUs together (user, nice, system, irq, softirq), from /proc/stat.
    pub machine_busy_s: Option<f64>,
    /// This process's own CPU time: its threads plus its waited-for children.
    pub own_s: f64,
    /// Monotonic time of the reading.
    pub at_s: f64,
    /// The CPUs /proc/stat lists (its `cpuN` lines), if it was read.
    pub cpus: Option<usize>,
}

/// The other work seen between two snapshots.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OtherWork {
    /// CPU seconds used by other processes (never below zero).
    pub cpu_s: f64,
    /// The wall time between the snapshots.
    pub wall_s: f64,
}

impl OtherWork {
    /// Other work as cores' worth, averaged over the wall time (0.25 = a quarter of a core).
    pub fn cores(&self) -> f64 {
        if self.wall_s > 0.0 {
            self.cpu_s / self.wall_s
        } else {
            0.0
        }
    }
    /// Whether it is enough to warn about.
    pub fn is_noisy(&self) -> bool {
        self.cores() > WARN_CORES
    }
    /// One line for a report.
    pub fn describe(&self) -> String {
        let c = self.cores();
        if self.is_noisy() {
            format!("{c:.2} cores used by other processes ! their work is in these numbers")
        } else {
            format!("{c:.2} cores used by other processes (quiet)")
        }
    }
}

/// The busy seconds of all CPUs from the text of /proc/stat (the first, aggregate `cpu` line),
/// with `ticks_per_s` clock ticks per second.
pub fn busy_from_stat(stat: &str, ticks_per_s: f64) -> Option<f64> {
    let line = stat.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|w| w.parse().ok())
        .collect::<Option<_>>()?;
    // user nice system idle iowait irq softirq steal ...: idle, iowait and steal are not work
    // done on this machine's CPUs; guest time is already inside user.
    if f.len() < 7 || ticks_per_s <= 0.0 {
        return None;
    }
    let busy = f[0] + f[1] + f[2] + f[5] + f[6];
    Some(busy as f64 / ticks_per_s)
}

/// The CPUs listed in the text of /proc/stat (its `cpu0`, `cpu1`, ... lines).
pub fn cpus_from_stat(stat: &str) -> Option<usize> {
    let n = stat
        .lines()
        .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .count();
    (n > 0).then_some(n)
}

/// The other work between `a` and `b`, or `None` where /proc/stat could not be read. The
/// counters tick 100 times a second, so over a short window they can overshoot: other work is
/// never more than every listed CPU busy for the whole window.
pub fn between(a: &Snapshot, b: &Snapshot) -> Option<OtherWork> {
    let busy = b.machine_busy_s? - a.machine_busy_s?;
    let own = b.own_s - a.own_s;
    let wall_s = (b.at_s - a.at_s).max(0.0);
    let most = b
        .cpus
        .or(a.cpus)
        .map_or(f64::INFINITY, |n| n as f64 * wall_s);
    Some(OtherWork {
        cpu_s: (busy - own).clamp(0.0, most),
        wall_s,
    })
}

/// Reads a snapshot now.
pub fn snapshot() -> Snapshot {
    let tck = crate::facts::sysconf::positive(libc::_SC_CLK_TCK).map_or(0.0, |t| t as f64);
    let stat = fs::read_to_string("/proc/stat").ok();
    let machine_busy_s = stat.as_deref().and_then(|s| busy_from_stat(s, tck));
    Snapshot {
        machine_busy_s,
        cpus: stat.as_deref().and_then(cpus_from_stat),
        own_s: rusage_s(libc::RUSAGE_SELF) + rusage_s(libc::RUSAGE_CHILDREN),
        at_s: crate::clock::now_ns() as f64 / 1e9,
    }
}

fn rusage_s(who: libc::c_int) -> f64 {
    // SAFETY: rusage is plain old data that getrusage fills.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(who, &mut u) } != 0 {
        return 0.0;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    tv(u.ru_utime) + tv(u.ru_stime)
}

#[cfg(test)]
mod tests {
    use super::*;

    const STAT_A: &str = "cpu  1000 10 500 90000 20 5 5 7 0 0\ncpu0 500 5 250 45000 10 2 2 3 0 0\n";
    const STAT_B: &str = "cpu  1400 10 600 90500 20 5 5 9 0 0\ncpu0 700 5 300 45250 10 2 2 4 0 0\n";

    fn snap(stat: &str, own: f64, at: f64) -> Snapshot {
        Snapshot {
            machine_busy_s: busy_from_stat(stat, 100.0),
            own_s: own,
            at_s: at,
            cpus: cpus_from_stat(stat),
        }
    }

    #[test]
    fn busy_time_leaves_out_idle_iowait_and_steal() {
        assert_eq!(busy_from_stat(STAT_A, 100.0), Some(15.20));
        assert_eq!(busy_from_stat("cpu 1 2\n", 100.0), None);
        assert_eq!(busy_from_stat("intr 5\n", 100.0), None);
    }

    #[test]
    fn our_own_cpu_time_is_not_other_work() {
        // 5 busy seconds in 10 s of wall time, all of them ours: quiet.
        let w = between(&snap(STAT_A, 1.0, 0.0), &snap(STAT_B, 6.0, 10.0)).unwrap();
        assert!(w.cpu_s.abs() < 1e-9, "{w:?}");
        assert!(!w.is_noisy());
        assert!(w.describe().contains("quiet"));
    }

    #[test]
    fn another_process_is_seen() {
        // 5 busy seconds, 2 of them ours: 3 s of other work over 10 s = 0.3 cores.
        let w = between(&snap(STAT_A, 1.0, 0.0), &snap(STAT_B, 3.0, 10.0)).unwrap();
        assert!((w.cores() - 0.3).abs() < 1e-9, "{w:?}");
        assert!(w.is_noisy());
        assert!(w.describe().contains('!'));
    }

    #[test]
    fn other_work_never_exceeds_every_cpu_busy_for_the_window() {
        // 5 busy seconds counted in a 2 s window on the one CPU listed: ticks overshoot, and
        // the most there can have been is 1 CPU for 2 s.
        assert_eq!(cpus_from_stat(STAT_A), Some(1));
        let w = between(&snap(STAT_A, 0.0, 0.0), &snap(STAT_B, 0.0, 2.0)).unwrap();
        assert!((w.cores() - 1.0).abs() < 1e-9, "{w:?}");
        assert_eq!(cpus_from_stat("cpu  1 2 3\nintr 5\n"), None);
    }

    #[test]
    fn unreadable_stat_is_unknown() {
        let a = Snapshot {
            machine_busy_s: None,
            own_s: 0.0,
            at_s: 0.0,
            cpus: None,
        };
        assert_eq!(between(&a, &snap(STAT_B, 0.0, 1.0)), None);
    }

    #[test]
    fn a_real_snapshot_reads_the_machine() {
        let s = snapshot();
        assert!(
            s.machine_busy_s.is_some(),
            "/proc/stat is readable on Linux"
        );
        assert!(s.own_s >= 0.0);
    }
}
