//! Evidence of disturbance, round by round: was this round's thread kept off its core?
//!
//! A round's time is only the machine's when nothing else ran on the core meanwhile. The
//! fastest round cannot rescue a run in which every round holds another task's time slice, so
//! every timed round is bracketed by two cheap readings of the calling thread ([`Probe::mark`],
//! a few microseconds together) and judged by what happened between them ([`Evidence`]):
//!
//! - **involuntary context switches** (`getrusage(RUSAGE_THREAD)`, `ru_nivcsw`): the scheduler
//!   took the core away;
//! - **time spent waiting on the run queue** (`/proc/thread-self/schedstat`, its second field,
//!   in nanoseconds): how long another task held the core while this one was ready to run. It
//!   is the other processes' CPU time on this core, measured by the scheduler itself, to the
//!   nanosecond; `/proc/stat`'s per-CPU counters say the same in 10 ms ticks, too coarse for a
//!   round of a fraction of a millisecond, so they judge whole blocks instead ([`Window`]);
//! - **time off the CPU that nobody waited for**: the wall time less the thread's CPU time
//!   (`CLOCK_THREAD_CPUTIME_ID`) less the run-queue wait. In a VM that is the hypervisor's
//!   steal (the guest's scheduler leaves stolen time out of a thread's CPU time), or
//!   interrupts.
//!
//! A round is *disturbed* when the time it lost this way is over [`LOST_FLOOR_NS`] and over
//! [`LOST_SHARE`] of its wall time: a quiet machine's occasional kernel thread (a few
//! microseconds) does not count, another task's time slice (milliseconds) always does.
//!
//! A [`Tally`] adds up the rounds behind one result, and a [`Window`] reads `/proc/stat` around
//! a whole block: other work on the pinned core, the core's steal time, and other work on the
//! *other* cores, which is not disturbance but contention for the shared levels (the last
//! cache level, memory bandwidth). [`Tally::provisional`] is the one rule for when a result
//! must be called provisional; [`Tally::contended`] for when contention must be named.

use crate::clock::memory::MemRef;
use crate::clock::share::Share;
use crate::clock::{now_ns, thread_cpu_ns};
use std::fs::File;
use std::marker::PhantomData;
use std::os::unix::fs::FileExt;

/// A round is disturbed only if it lost more than this many nanoseconds...
pub const LOST_FLOOR_NS: u64 = 20_000;
/// ... and more than this share of its wall time.
pub const LOST_SHARE: f64 = 0.02;
/// A block whose rounds were disturbed more often than this share is provisional.
pub const DISTURBED_SHARE: f64 = 0.10;

/// What can make a result provisional, in the words every summary of the marks uses (the
/// report's disturbance line, run-all's recap, the figures' legend): a string literal, so
/// that it can go into constants with `concat!`.
#[macro_export]
macro_rules! provisional_causes {
    () => {
        "disturbed rounds, a moved or low core share, or moved memory"
    };
}
/// Other work on the pinned core (cores' worth over the block) above this is provisional.
pub const OTHER_ON_CORE: f64 = 0.05;
/// The core's steal time above this share of the block is provisional.
pub const STEAL_SHARE: f64 = 0.05;
/// Other work on the other cores above this many cores' worth is contention.
pub const CONTENTION_CORES: f64 = 0.25;

/// One reading of the calling thread's scheduling counters.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Mark {
    /// Monotonic time of the reading.
    pub at_ns: u64,
    /// The thread's CPU time, if readable.
    pub cpu_ns: Option<u64>,
    /// Involuntary context switches so far, if readable.
    pub switches: Option<u64>,
    /// Nanoseconds spent runnable but waiting for the core so far, if the kernel keeps them.
    pub waited_ns: Option<u64>,
}

/// Reads [`Mark`]s for the thread that made it. Not `Send`: the schedstat file it holds open
/// belongs to one thread, so each thread makes its own.
pub struct Probe {
    schedstat: Option<File>,
    _one_thread: PhantomData<*const ()>,
}

impl Default for Probe {
    fn default() -> Self {
        Probe::new()
    }
}

impl Probe {
    /// A probe for the calling thread. Where `/proc/thread-self/schedstat` cannot be opened
    /// (an old kernel, no `/proc`), waits are unknown and the other two signals still count.
    pub fn new() -> Probe {
        Probe {
            schedstat: File::open("/proc/thread-self/schedstat").ok(),
            _one_thread: PhantomData,
        }
    }

    /// Whether the run-queue wait can be read.
    pub fn sees_waits(&self) -> bool {
        self.schedstat.is_some()
    }

    /// Reads the counters now. The clock is read last, so a round timed right after starts
    /// as close to it as possible.
    pub fn mark(&self) -> Mark {
        let waited_ns = self.schedstat.as_ref().and_then(read_wait);
        let switches = involuntary_switches();
        let cpu_ns = thread_cpu_ns();
        Mark {
            at_ns: now_ns(),
            cpu_ns,
            switches,
            waited_ns,
        }
    }

    /// Runs `f` between two marks: its result and what happened meanwhile.
    pub fn watch<T>(&self, f: impl FnOnce() -> T) -> (T, Evidence) {
        let a = self.mark();
        let out = f();
        let b = self.mark();
        (out, Evidence::between(&a, &b))
    }
}

/// The second field of a schedstat line: nanoseconds waited on the run queue.
fn read_wait(f: &File) -> Option<u64> {
    let mut buf = [0u8; 96];
    let n = f.read_at(&mut buf, 0).ok()?;
    parse_wait(std::str::from_utf8(&buf[..n]).ok()?)
}

/// The run-queue wait from the text of a schedstat file (`exec_ns wait_ns slices`).
pub fn parse_wait(text: &str) -> Option<u64> {
    text.split_whitespace().nth(1)?.parse().ok()
}

fn involuntary_switches() -> Option<u64> {
    // SAFETY: rusage is plain old data that getrusage fills.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut u) };
    (rc == 0).then_some(u.ru_nivcsw as u64)
}

/// Why a round counts as disturbed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cause {
    /// Another task held the core (the thread waited on the run queue, or was switched out).
    Preempted,
    /// The thread was off its CPU with nobody waiting: steal time of a VM, or interrupts.
    OffCpu,
}

/// What happened to the thread during one round.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Evidence {
    pub wall_ns: u64,
    /// Involuntary context switches during the round (0 when unknown).
    pub switches: u64,
    /// Run-queue wait during the round, if known.
    pub waited_ns: Option<u64>,
    /// Wall time not spent on the CPU and not waited for (steal, interrupts); 0 when unknown.
    pub off_cpu_ns: u64,
}

impl Evidence {
    /// The evidence between two marks of one thread.
    pub fn between(a: &Mark, b: &Mark) -> Evidence {
        let wall_ns = b.at_ns.saturating_sub(a.at_ns);
        let waited_ns = b
            .waited_ns
            .zip(a.waited_ns)
            .map(|(b, a)| b.saturating_sub(a));
        let cpu = b.cpu_ns.zip(a.cpu_ns).map(|(b, a)| b.saturating_sub(a));
        let off_cpu_ns = cpu.map_or(0, |c| {
            wall_ns
                .saturating_sub(c)
                .saturating_sub(waited_ns.unwrap_or(0))
        });
        Evidence {
            wall_ns,
            switches: b
                .switches
                .zip(a.switches)
                .map_or(0, |(b, a)| b.saturating_sub(a)),
            waited_ns,
            off_cpu_ns,
        }
    }

    /// The time the round lost to others: waited for the core, or off it.
    pub fn lost_ns(&self) -> u64 {
        self.waited_ns.unwrap_or(0) + self.off_cpu_ns
    }

    /// The most a round of this length may lose and still count as undisturbed.
    pub fn allowance_ns(&self) -> u64 {
        LOST_FLOOR_NS.max((self.wall_ns as f64 * LOST_SHARE) as u64)
    }

    /// Why the round is disturbed, or `None` if it is not. Without the run-queue wait, a
    /// switch with time lost off the CPU counts as a preemption.
    pub fn cause(&self) -> Option<Cause> {
        let allow = self.allowance_ns();
        if self.waited_ns.unwrap_or(0) > allow
            || (self.waited_ns.is_none() && self.switches > 0 && self.off_cpu_ns > allow)
        {
            Some(Cause::Preempted)
        } else if self.lost_ns() > allow {
            Some(Cause::OffCpu)
        } else {
            None
        }
    }

    pub fn disturbed(&self) -> bool {
        self.cause().is_some()
    }
}

/// Busy and steal seconds of each CPU, from `/proc/stat`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CpuTimes {
    /// `(cpu id, busy seconds, steal seconds)` for every `cpuN` line.
    pub cpus: Vec<(usize, f64, f64)>,
}

impl CpuTimes {
    /// Parses the text of `/proc/stat` with `ticks_per_s` ticks a second. Busy is user, nice,
    /// system, irq and softirq; idle, iowait and steal are not work done on the CPU.
    pub fn parse(stat: &str, ticks_per_s: f64) -> CpuTimes {
        let cpus = stat
            .lines()
            .filter_map(|l| {
                let rest = l.strip_prefix("cpu")?;
                let (id, fields) = rest.split_once(char::is_whitespace)?;
                let id: usize = id.parse().ok()?;
                let f: Vec<u64> = fields
                    .split_whitespace()
                    .map(|w| w.parse().ok())
                    .collect::<Option<_>>()?;
                (f.len() >= 8 && ticks_per_s > 0.0).then(|| {
                    let busy = (f[0] + f[1] + f[2] + f[5] + f[6]) as f64 / ticks_per_s;
                    (id, busy, f[7] as f64 / ticks_per_s)
                })
            })
            .collect();
        CpuTimes { cpus }
    }

    /// Reads `/proc/stat` now; empty when it cannot be read.
    pub fn read() -> CpuTimes {
        let tck = crate::facts::sysconf::positive(libc::_SC_CLK_TCK).map_or(0.0, |t| t as f64);
        std::fs::read_to_string("/proc/stat")
            .map(|s| CpuTimes::parse(&s, tck))
            .unwrap_or_default()
    }

    fn get(&self, id: usize) -> Option<(f64, f64)> {
        self.cpus
            .iter()
            .find(|c| c.0 == id)
            .map(|&(_, busy, steal)| (busy, steal))
    }
}

/// What `/proc/stat` and the scheduler saw around a whole block.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Load {
    pub wall_s: f64,
    /// The core the block ran on, if pinned.
    pub core: Option<usize>,
    /// Other work on that core, in cores' worth (0.5 = half the core): the thread's run-queue
    /// wait over the wall time where the kernel keeps it, else the core's busy time less the
    /// thread's own.
    pub on_core: Option<f64>,
    /// The core's steal time over the wall time.
    pub steal: Option<f64>,
    /// Other processes' work on every other core, in cores' worth.
    pub elsewhere: Option<f64>,
    /// The core's share ([`crate::clock::share`]) read as the block opened and as it closed:
    /// a change the guest's counters cannot see (another guest on the physical core).
    pub share: Option<(Share, Share)>,
    /// The best reading of the core's share this process took on the block's core before
    /// the block closed ([`crate::clock::share::best_on`]); only for a block with a core, or
    /// a team's ([`Window::open_team`]).
    pub share_best: Option<Share>,
    /// For a team's block ([`Window::open_team`]), which has no one core: the team's core
    /// whose share readings `share` and `share_best` are, the least steady of them.
    pub share_core: Option<usize>,
    /// The memory reference ([`crate::clock::memory`]) read as a memory-bound block opened
    /// and as it closed: a change of the host's memory that the guest's counters cannot see.
    /// Only for blocks whose [`Site`] is memory-bound.
    pub memory: Option<(MemRef, MemRef)>,
    /// Takes of the block discarded before this one because the core's share was unsteady
    /// during them ([`crate::retake`]); 0 for a block taken once. For a load merged from
    /// parts ([`Load::merge`]), the retakes of the part whose share readings it keeps.
    pub retakes: u32,
    /// The parts taken one by one, each in its own window, that this load merges (0 or 1:
    /// one block).
    pub parts: u32,
    /// Of those parts, how many ran with an unsteady share (moved or low) in the take kept.
    pub unsteady_parts: u32,
}

impl Load {
    /// Whether the core's share moved during the block ([`crate::clock::share::moved`]).
    pub fn share_moved(&self) -> bool {
        self.share
            .is_some_and(|(b, a)| crate::clock::share::moved(b, a))
    }

    /// Whether the core's share read low at the block's start or end, against the best
    /// reading on its core ([`crate::clock::share::low`]).
    pub fn share_low(&self) -> bool {
        self.share
            .zip(self.share_best)
            .is_some_and(|(s, best)| crate::clock::share::low(s, best))
    }

    /// Whether the memory reference moved during the block ([`crate::clock::memory::moved`]).
    pub fn memory_moved(&self) -> bool {
        self.memory
            .is_some_and(|(b, a)| crate::clock::memory::moved(b, a))
    }

    /// How unsteady the core's share was: 2 moved, 1 read low, 0 steady or not read.
    fn unsteadiness(&self) -> u8 {
        if self.share_moved() {
            2
        } else {
            u8::from(self.share_low())
        }
    }

    /// Whether the block ran on an unsteady host: its core's share moved or read low, or the
    /// memory reference moved. Such a block is provisional, and taken again where it can be.
    pub fn unsteady(&self) -> bool {
        self.unsteadiness() > 0 || self.memory_moved()
    }

    /// The parts this load covers (1 for one block).
    pub fn part_count(&self) -> u32 {
        self.parts.max(1)
    }

    /// The parts that ran with an unsteady share.
    pub fn unsteady_count(&self) -> u32 {
        if self.parts > 1 {
            self.unsteady_parts
        } else {
            u32::from(self.unsteady())
        }
    }

    /// The loads of parts taken one after the other, as one ([`Load::merge`]); the default
    /// load where there are none.
    pub fn merged(loads: impl IntoIterator<Item = Load>) -> Load {
        loads
            .into_iter()
            .reduce(|a, b| a.merge(&b))
            .unwrap_or_default()
    }

    /// The load around two blocks taken one after the other (the parts of a scan, each in
    /// its own window), as one: the counters' shares averaged by wall time, as one window
    /// around both would have read them; the share readings of the less steady part with its
    /// best and its retakes, so that a result drawn from both is marked if either part would
    /// be (a tie keeps `self`'s, which more retakes of `other` only raise). Merging a load
    /// with itself gives it back.
    pub fn merge(&self, other: &Load) -> Load {
        if self == other {
            return *self;
        }
        let wall_s = self.wall_s + other.wall_s;
        let mean = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(x), Some(y)) if wall_s > 0.0 => {
                Some((x * self.wall_s + y * other.wall_s) / wall_s)
            }
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        };
        let worse = if (other.unsteadiness(), other.memory_moved())
            > (self.unsteadiness(), self.memory_moved())
        {
            other
        } else {
            self
        };
        // The share readings, their best and their core, all from one part: the less steady
        // one where it read the share.
        let shares = [worse, self, other]
            .into_iter()
            .find(|l| l.share.is_some())
            .unwrap_or(worse);
        // The moved readings of the part whose share readings are kept, if its moved too.
        let memory = [worse, self, other]
            .into_iter()
            .find(|l| l.memory_moved())
            .map_or(self.memory.or(other.memory), |l| l.memory);
        let retakes = if worse.unsteady() {
            worse.retakes
        } else {
            self.retakes.max(other.retakes)
        };
        Load {
            wall_s,
            core: self.core.filter(|_| self.core == other.core),
            on_core: mean(self.on_core, other.on_core),
            steal: mean(self.steal, other.steal),
            elsewhere: mean(self.elsewhere, other.elsewhere),
            share: shares.share,
            share_best: shares.share_best,
            share_core: shares.share_core,
            memory,
            retakes,
            parts: self.part_count() + other.part_count(),
            unsteady_parts: self.unsteady_count() + other.unsteady_count(),
        }
    }
}

/// Readings at the start of a block, closed by [`Window::close`].
pub struct Window {
    core: Option<usize>,
    times: CpuTimes,
    mark: Mark,
    process_cpu_s: f64,
    probe: Probe,
    share: Option<Share>,
    /// The memory reference read as the window opened, for a memory-bound block.
    memory: Option<MemRef>,
    memory_bound: bool,
    /// For a team's block: each of its cores with its share read as the window opened.
    team: Vec<(usize, Option<Share>)>,
}

/// Where a block runs, for its [`Window`]: the core it is pinned to, and whether its working
/// set is beyond the caches (its window then reads the memory reference too,
/// [`crate::clock::memory`], a few milliseconds as it opens and again as it closes).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Site {
    pub core: Option<usize>,
    pub memory_bound: bool,
}

impl Site {
    /// A block on `core` whose working set fits the caches.
    pub fn on(core: Option<usize>) -> Site {
        Site {
            core,
            memory_bound: false,
        }
    }

    /// A block on `core` over `bytes`: memory-bound where `facts` put them beyond the caches
    /// ([`crate::facts::MachineFacts::beyond_caches`]).
    pub fn over(core: Option<usize>, bytes: u64, facts: &crate::facts::MachineFacts) -> Site {
        Site {
            core,
            memory_bound: facts.beyond_caches(bytes),
        }
    }
}

impl Window {
    /// Opens a window for the calling thread, pinned to `core` (if it is), reading the core's
    /// share first (about 1 ms).
    pub fn open(core: Option<usize>) -> Window {
        Window::open_at(Site::on(core))
    }

    /// [`Window::open`] at `site`: a memory-bound block's window reads the memory reference
    /// after the share.
    pub fn open_at(site: Site) -> Window {
        Window::open_with(site, &[])
    }

    /// [`Window::open_at`] for a team's block, whose workers run pinned to `cores` (the site
    /// has no one core): the share is read on each of them (about 1 ms each) as the window
    /// opens and as it closes, and the least steady core's readings are the block's
    /// ([`least_steady`]). Without cores it is [`Window::open_at`].
    pub fn open_team(site: Site, cores: &[usize]) -> Window {
        Window::open_with(site, cores)
    }

    fn open_with(Site { core, memory_bound }: Site, team: &[usize]) -> Window {
        let team: Vec<_> = team
            .iter()
            .map(|&c| (c, crate::clock::share::probe_on(c)))
            .collect();
        let share = if team.is_empty() {
            share_of(core)
        } else {
            None
        };
        let memory = memory_bound.then(crate::clock::memory::probe).flatten();
        let probe = Probe::new();
        Window {
            core,
            times: CpuTimes::read(),
            mark: probe.mark(),
            process_cpu_s: process_cpu_s(core.is_none()),
            probe,
            share,
            memory,
            memory_bound,
            team,
        }
    }

    /// What happened since [`Window::open`], the core's share read again last.
    pub fn close(self) -> Load {
        let (times, mark) = (CpuTimes::read(), self.probe.mark());
        let load = load_between(
            self.core,
            (&self.times, &times),
            (&self.mark, &mark),
            process_cpu_s(self.core.is_none()) - self.process_cpu_s,
        );
        let (share, share_best, share_core) = if self.team.is_empty() {
            let best = self.core.and_then(crate::clock::share::best_on);
            (self.share.zip(share_of(self.core)), best, None)
        } else {
            let read = self.team.iter().filter_map(|&(c, before)| {
                let pair = before.zip(crate::clock::share::probe_on(c))?;
                Some((c, pair, crate::clock::share::best_on(c)))
            });
            least_steady(read).map_or((None, None, None), |(c, pair, best)| {
                (Some(pair), best, Some(c))
            })
        };
        let memory = self.memory.zip(
            self.memory_bound
                .then(crate::clock::memory::probe)
                .flatten(),
        );
        Load {
            share,
            share_best,
            share_core,
            memory,
            ..load
        }
    }
}

/// A team core's share readings: (core, the readings as the window opened and closed, the
/// best reading on that core).
pub type CoreShare = (usize, (Share, Share), Option<Share>);

/// Of a team's cores, the one whose share was least steady: one whose share moved before
/// one that read low ([`crate::clock::share`]), and among equals the one whose lower reading
/// fell furthest below its best (or below its own higher reading, where there is no best).
pub fn least_steady(read: impl IntoIterator<Item = CoreShare>) -> Option<CoreShare> {
    let rank = |&(_, (b, a), best): &CoreShare| {
        let lower = b.ratio.min(a.ratio);
        let top = best.map_or(b.ratio.max(a.ratio), |s| s.ratio.max(b.ratio.max(a.ratio)));
        let level = if crate::clock::share::moved(b, a) {
            2
        } else {
            u8::from(best.is_some_and(|s| crate::clock::share::low((b, a), s)))
        };
        (level, if top > 0.0 { 1.0 - lower / top } else { 0.0 })
    };
    read.into_iter().max_by(|x, y| {
        rank(x)
            .partial_cmp(&rank(y))
            .unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// The share of the block's core: read on `core` ([`crate::clock::share::probe_on`]: a parent
/// that waits for its pinned children, as env_scan's does, reads their core), or where the
/// thread runs when the block has no core.
fn share_of(core: Option<usize>) -> Option<crate::clock::share::Share> {
    match core {
        Some(c) => crate::clock::share::probe_on(c),
        None => crate::clock::share::probe(),
    }
}

/// The load between two readings of a pinned thread (`marks`) and of every CPU (`times`),
/// while the whole process used `process_cpu_s` of CPU time.
pub fn load_between(
    core: Option<usize>,
    times: (&CpuTimes, &CpuTimes),
    marks: (&Mark, &Mark),
    process_cpu_s: f64,
) -> Load {
    let wall_s = marks.1.at_ns.saturating_sub(marks.0.at_ns) as f64 / 1e9;
    let ev = Evidence::between(marks.0, marks.1);
    let own_s = ev.wall_ns.saturating_sub(ev.lost_ns()) as f64 / 1e9;
    let per_s = |x: f64| (wall_s > 0.0).then(|| (x / wall_s).max(0.0));
    let delta = |id| {
        Some((
            times.1.get(id)?.0 - times.0.get(id)?.0,
            times.1.get(id)?.1 - times.0.get(id)?.1,
        ))
    };
    let on_core = match (ev.waited_ns, core.and_then(delta)) {
        (Some(w), _) => per_s(w as f64 / 1e9),
        (None, Some((busy, _))) => per_s(busy - own_s),
        _ => None,
    };
    let steal = core.and_then(delta).and_then(|(_, s)| per_s(s));
    let others: Vec<usize> = times
        .1
        .cpus
        .iter()
        .map(|c| c.0)
        .filter(|&c| Some(c) != core)
        .collect();
    let elsewhere = (!others.is_empty() && !times.0.cpus.is_empty()).then(|| {
        let busy: f64 = others.iter().filter_map(|&id| delta(id)).map(|d| d.0).sum();
        // This process's own work beyond the pinned thread (helper threads) is not other work.
        let own_elsewhere = if core.is_some() {
            process_cpu_s - own_s
        } else {
            process_cpu_s
        };
        let n = others.len() as f64;
        per_s(busy - own_elsewhere.max(0.0)).map_or(0.0, |c| c.min(n))
    });
    Load {
        wall_s,
        core,
        on_core,
        steal,
        elsewhere,
        share: None,
        share_best: None,
        share_core: None,
        memory: None,
        retakes: 0,
        parts: 0,
        unsteady_parts: 0,
    }
}

/// The clause a disturbance description adds when the core's share was unsteady: ", and
/// the core's share moved (...)" or "... read low (...)"; a team's block names the core
/// whose readings it keeps. Empty when the share was steady or not read.
fn share_clause(l: &Load) -> String {
    let (whose, on, this) = match l.share_core {
        Some(k) => (
            format!("core {k}'s"),
            format!("core {k}"),
            format!("core {k}'s"),
        ),
        None => ("the core's".into(), "this core".into(), "this".into()),
    };
    if let Some((b, a)) = l.share.filter(|_| l.share_moved()) {
        format!(
            ", and {whose} share moved ({:.2}x to {:.2}x: likely another thread on {this} \
             physical core)",
            b.ratio, a.ratio
        )
    } else if let Some(((b, a), best)) = l.share.zip(l.share_best).filter(|_| l.share_low()) {
        format!(
            ", and {whose} share read low ({:.2}x and {:.2}x, against {:.2}x earlier on \
             {on}: likely another thread on {this} physical core)",
            b.ratio, a.ratio, best.ratio
        )
    } else {
        String::new()
    }
}

/// The CPU time of this process and, with `children`, of its children that have ended and
/// been waited for. An unpinned experiment's fresh processes (sink_bench's) may run on any core
/// and are its work, not other work; a pinned one's children (env_scan's) run on its own core,
/// where they are not counted against the other cores in the first place.
fn process_cpu_s(children: bool) -> f64 {
    let of = |who| {
        // SAFETY: rusage is plain old data that getrusage fills.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        if unsafe { libc::getrusage(who, &mut u) } != 0 {
            return 0.0;
        }
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
        tv(u.ru_utime) + tv(u.ru_stime)
    };
    of(libc::RUSAGE_SELF)
        + if children {
            of(libc::RUSAGE_CHILDREN)
        } else {
            0.0
        }
}

/// What follows the share's numbers in [`Tally::describe`]: in how many of a scan's parts it
/// was unsteady, and how many times the block (or the part shown) was taken.
fn share_parts(l: &Load) -> String {
    if !l.unsteady() {
        return String::new();
    }
    // No ": " or "; " inside: readers find the mark's basis by them (`recap`).
    let takes = format!("taken {} times, unsteady in each", l.retakes + 1);
    match (l.parts > 1, l.retakes > 0) {
        (true, true) => format!(
            " (in {} of the {} parts taken one by one, the least steady shown, that part \
             {takes})",
            l.unsteady_parts, l.parts
        ),
        (true, false) => format!(
            " (in {} of the {} parts taken one by one, the least steady shown)",
            l.unsteady_parts, l.parts
        ),
        (false, true) => format!(" ({takes})"),
        (false, false) => String::new(),
    }
}

/// What a provisional reading's figures come from, the words between its mark and the
/// reading ([`Tally::mark`]: "provisional: ...; {basis}: "), so that readers find the reading
/// after a mark whatever the mark says.
pub const BASES: [&str; 5] = [
    "where a segment was never clean its disturbed time stands in; the rest give",
    "the rounds rebuilt from clean segments give",
    "no round was clean, so these are disturbed rounds",
    "where a figure had no clean round its disturbed rounds stand in; the rest give",
    "the clean rounds give",
];

/// The rounds behind one result, and the load around them.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Tally {
    pub rounds: usize,
    pub disturbed: usize,
    /// Rounds the result was computed from that were themselves disturbed (none were clean).
    pub disturbed_used: usize,
    /// Run-queue wait and off-CPU time of all rounds, in nanoseconds.
    pub lost_ns: u64,
    pub wall_ns: u64,
    pub load: Option<Load>,
    /// The rounds counted are segments of longer rounds ([`crate::segments`]).
    pub segments: bool,
}

impl Tally {
    /// Counts one round.
    pub fn add(&mut self, e: &Evidence) {
        self.rounds += 1;
        self.disturbed += usize::from(e.disturbed());
        self.lost_ns += e.lost_ns();
        self.wall_ns += e.wall_ns;
    }

    /// Two tallies as one; their loads as one ([`Load::merge`]) where both have one.
    pub fn merge(mut self, other: &Tally) -> Tally {
        self.rounds += other.rounds;
        self.disturbed += other.disturbed;
        self.disturbed_used += other.disturbed_used;
        self.lost_ns += other.lost_ns;
        self.wall_ns += other.wall_ns;
        self.load = match (self.load, other.load) {
            (Some(a), Some(b)) => Some(a.merge(&b)),
            (a, b) => a.or(b),
        };
        self.segments |= other.segments;
        self
    }

    /// The same tally with the load around its block.
    pub fn with_load(self, load: Load) -> Tally {
        Tally {
            load: Some(load),
            ..self
        }
    }

    /// Whether a result from these rounds is provisional: some of the rounds it used were
    /// disturbed, too many rounds were, other work or steal took the core during the block,
    /// the core's share moved during it or read low at either end, or (a memory-bound block)
    /// the memory reference moved.
    pub fn provisional(&self) -> bool {
        let l = self.load.unwrap_or_default();
        self.disturbed_used > 0
            || self.disturbed as f64 > DISTURBED_SHARE * self.rounds as f64
            || l.on_core.is_some_and(|c| c > OTHER_ON_CORE)
            || l.steal.is_some_and(|s| s > STEAL_SHARE)
            || l.share_moved()
            || l.share_low()
            || l.memory_moved()
    }

    /// Whether other work on the other cores competed for the shared levels meanwhile.
    pub fn contended(&self) -> bool {
        self.load
            .and_then(|l| l.elsewhere)
            .is_some_and(|c| c > CONTENTION_CORES)
    }

    /// "9 of 31 rounds were disturbed (0.50 cores of other work on core 1, 3% steal)".
    pub fn describe(&self) -> String {
        let mut why = Vec::new();
        let l = self.load.unwrap_or_default();
        if let Some(c) = l.on_core.filter(|c| *c > 0.005) {
            let on = l
                .core
                .map_or("this thread's core".into(), |k| format!("core {k}"));
            why.push(format!("{c:.2} cores of other work on {on}"));
        }
        if let Some(s) = l.steal.filter(|s| *s > 0.005) {
            why.push(format!("{:.0}% steal", s * 100.0));
        }
        let unit = if self.segments { "segments" } else { "rounds" };
        let mut out = format!(
            "{} of {} {unit} were disturbed",
            self.disturbed, self.rounds
        );
        if !why.is_empty() {
            out.push_str(&format!(" ({})", why.join(", ")));
        }
        out.push_str(&share_clause(&l));
        if let Some((b, a)) = l.memory.filter(|_| l.memory_moved()) {
            out.push_str(&format!(
                ", and the memory changed under it (a reference chase read {:.0} ns a load, \
                 then {:.0} ns: likely other work on this machine's memory, or on the host's)",
                b.ns, a.ns
            ));
        }
        out.push_str(&share_parts(&l));
        out
    }

    /// The first words of a reading drawn from these rounds: `"provisional: 9 of 31 rounds
    /// were disturbed (...); the clean rounds give: "`, or nothing when it is not provisional.
    pub fn mark(&self) -> Option<String> {
        self.provisional().then(|| {
            let [never_clean, rebuilt, none_clean, stand_in, clean] = BASES;
            let basis = if self.segments {
                if self.disturbed_used > 0 {
                    never_clean
                } else {
                    rebuilt
                }
            } else if self.disturbed_used > 0 && self.disturbed_used == self.rounds {
                none_clean
            } else if self.disturbed_used > 0 {
                stand_in
            } else {
                clean
            };
            format!("provisional: {}; {basis}: ", self.describe())
        })
    }

    /// The sentence naming contention, when there was some.
    pub fn contention(&self) -> Option<String> {
        let c = self.load?.elsewhere?;
        self.contended().then(|| {
            format!(
                "contention: {c:.2} cores of other work ran on the other cores meanwhile, \
                 sharing the last cache level and memory with these rounds"
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mark(at: u64, cpu: u64, sw: u64, waited: Option<u64>) -> Mark {
        Mark {
            at_ns: at,
            cpu_ns: Some(cpu),
            switches: Some(sw),
            waited_ns: waited,
        }
    }

    #[test]
    fn a_round_with_no_switch_is_clean() {
        let e = Evidence::between(
            &mark(0, 0, 3, Some(10)),
            &mark(500_000, 499_000, 3, Some(10)),
        );
        assert_eq!(e.wall_ns, 500_000);
        assert_eq!(e.cause(), None);
        assert!(!e.disturbed());
    }

    #[test]
    fn one_switch_with_a_time_slice_lost_is_a_preemption() {
        // 2.5 ms waited on the run queue during a 3 ms round: another task's slice.
        let e = Evidence::between(
            &mark(0, 0, 3, Some(0)),
            &mark(3_000_000, 500_000, 4, Some(2_500_000)),
        );
        assert_eq!((e.switches, e.waited_ns), (1, Some(2_500_000)));
        assert_eq!(e.cause(), Some(Cause::Preempted));
    }

    #[test]
    fn a_kernel_threads_few_microseconds_do_not_count() {
        // One switch, 6 us waited: a kworker, not another task's slice.
        let e = Evidence::between(
            &mark(0, 0, 0, Some(0)),
            &mark(200_000, 194_000, 1, Some(6_000)),
        );
        assert_eq!(e.switches, 1);
        assert_eq!(e.cause(), None);
    }

    #[test]
    fn steal_shows_as_time_off_the_cpu_that_nobody_waited_for() {
        // 1 ms round, 0.6 ms on the CPU, no wait: 0.4 ms stolen by the hypervisor.
        let e = Evidence::between(
            &mark(0, 0, 0, Some(0)),
            &mark(1_000_000, 600_000, 0, Some(0)),
        );
        assert_eq!(e.off_cpu_ns, 400_000);
        assert_eq!(e.cause(), Some(Cause::OffCpu));
    }

    #[test]
    fn without_schedstat_a_switch_and_lost_time_are_a_preemption() {
        let e = Evidence::between(&mark(0, 0, 0, None), &mark(1_000_000, 400_000, 1, None));
        assert_eq!(e.waited_ns, None);
        assert_eq!(e.cause(), Some(Cause::Preempted));
    }

    const STAT_A: &str = "cpu  9 9 9 9 9 9 9 9 0 0\n\
        cpu0 100 0 50 1000 0 0 0 10 0 0\ncpu1 200 0 20 900 0 0 0 5 0 0\nintr 1\n";
    const STAT_B: &str = "cpu  9 9 9 9 9 9 9 9 0 0\n\
        cpu0 180 0 70 1000 0 0 0 10 0 0\ncpu1 250 0 20 950 0 0 0 15 0 0\nintr 1\n";

    #[test]
    fn per_cpu_times_are_read_from_proc_stat() {
        let t = CpuTimes::parse(STAT_A, 100.0);
        assert_eq!(t.cpus, vec![(0, 1.5, 0.1), (1, 2.2, 0.05)]);
        assert!(CpuTimes::parse("cpu0 1 2\n", 100.0).cpus.is_empty());
    }

    #[test]
    fn a_window_sees_the_cores_steal_and_other_work_elsewhere() {
        // One second, pinned to cpu1: cpu1 stole 0.1 s; cpu0 was busy 1.0 s, none of it ours.
        let (a, b) = (
            CpuTimes::parse(STAT_A, 100.0),
            CpuTimes::parse(STAT_B, 100.0),
        );
        let (m0, m1) = (
            mark(0, 0, 0, Some(0)),
            mark(1_000_000_000, 500_000_000, 9, Some(400_000_000)),
        );
        let l = load_between(Some(1), (&a, &b), (&m0, &m1), 0.5);
        assert!((l.on_core.unwrap() - 0.4).abs() < 1e-9, "{l:?}");
        assert!((l.steal.unwrap() - 0.1).abs() < 1e-9, "{l:?}");
        assert!((l.elsewhere.unwrap() - 1.0).abs() < 1e-9, "{l:?}");
    }

    fn tally(rounds: usize, disturbed: usize, load: Load) -> Tally {
        Tally {
            rounds,
            disturbed,
            load: Some(load),
            ..Default::default()
        }
    }

    #[test]
    fn a_quiet_block_is_not_provisional_and_says_nothing() {
        let t = tally(
            31,
            1,
            Load {
                on_core: Some(0.001),
                steal: Some(0.0),
                elsewhere: Some(0.02),
                ..Default::default()
            },
        );
        assert!(!t.provisional());
        assert!(!t.contended());
        assert_eq!(t.mark(), None);
        assert_eq!(t.contention(), None);
    }

    #[test]
    fn other_work_on_the_core_makes_a_block_provisional_even_with_clean_rounds() {
        let load = Load {
            core: Some(1),
            on_core: Some(0.5),
            ..Default::default()
        };
        let t = tally(31, 2, load);
        assert!(t.provisional());
        let m = t.mark().unwrap();
        assert!(
            m.starts_with(
                "provisional: 2 of 31 rounds were disturbed (0.50 cores of other work on core 1)"
            ),
            "{m}"
        );
        assert!(m.ends_with("the clean rounds give: "), "{m}");
    }

    /// A block whose share read low at either end, against the best reading on its core, is
    /// provisional too; one near the best, or without a best to compare, is not.
    #[test]
    fn a_low_share_makes_a_block_provisional_and_is_named() {
        let with = |b, a, best: Option<f64>| {
            tally(
                31,
                0,
                Load {
                    share: Some((Share { ratio: b }, Share { ratio: a })),
                    share_best: best.map(|ratio| Share { ratio }),
                    ..Default::default()
                },
            )
        };
        assert!(!with(2.35, 2.49, None).provisional());
        assert!(!with(3.0, 2.9, Some(3.2)).provisional());
        assert!(
            with(3.2, 2.8, Some(3.2)).provisional(),
            "one end low, not moved"
        );
        let low = with(2.35, 2.49, Some(3.2));
        assert!(low.provisional());
        let m = low.mark().unwrap();
        assert!(
            m.starts_with(
                "provisional: 0 of 31 rounds were disturbed, and the core's share read low \
                 (2.35x and 2.49x, against 3.20x earlier on this core"
            ),
            "{m}"
        );
        // A block taken again and still unsteady says how often it was taken.
        let mut again = with(2.35, 2.49, Some(3.2));
        again.load = again.load.map(|l| Load { retakes: 2, ..l });
        let m = again.mark().unwrap();
        assert!(
            m.contains("physical core) (taken 3 times, unsteady in each)"),
            "{m}"
        );
        // A move is named as a move, once, even when the block also ended low.
        let both = with(3.2, 1.9, Some(3.4)).mark().unwrap();
        assert!(
            both.contains("moved") && !both.contains("read low"),
            "{both}"
        );
    }

    /// A team's block keeps the readings of its least steady core, and names that core.
    #[test]
    fn a_teams_block_keeps_and_names_its_least_steady_core() {
        let s = |ratio| Share { ratio };
        let steady = (0, (s(3.6), s(3.5)), Some(s(3.7)));
        let low = (1, (s(3.0), s(3.1)), Some(s(3.7)));
        let lower = (2, (s(2.6), s(2.7)), Some(s(3.7)));
        let moved = (3, (s(3.6), s(2.7)), Some(s(3.7)));
        assert_eq!(least_steady([steady, low]), Some(low));
        assert_eq!(least_steady([low, steady]), Some(low));
        assert_eq!(least_steady([steady, low, lower]), Some(lower));
        assert_eq!(
            least_steady([lower, moved, low]),
            Some(moved),
            "a move comes first"
        );
        assert_eq!(least_steady([]), None);
        // Without a best, the one further below its own higher reading.
        let apart = (4, (s(3.0), s(2.5)), None);
        assert_eq!(
            least_steady([(5, (s(3.0), s(2.9)), None), apart]),
            Some(apart)
        );
        let (core, share, best) = low;
        let load = Load {
            share: Some(share),
            share_best: best,
            share_core: Some(core),
            ..Default::default()
        };
        let m = tally(31, 0, load).mark().unwrap();
        assert!(
            m.contains(
                "core 1's share read low (3.00x and 3.10x, against 3.70x earlier on core 1: \
                 likely another thread on core 1's physical core)"
            ),
            "{m}"
        );
        // Merged with a steadier part, the team's core goes with the readings kept.
        let quiet = Load {
            share: Some((s(3.6), s(3.6))),
            share_best: Some(s(3.7)),
            share_core: Some(0),
            ..Default::default()
        };
        assert_eq!(quiet.merge(&load).share_core, Some(1));
        assert_eq!(load.merge(&quiet).share_core, Some(1));
        // A part with readings but no best (unpinned) does not borrow another part's best.
        let unpinned = Load {
            share: Some((s(3.6), s(2.0))),
            ..Default::default()
        };
        let m = quiet.merge(&unpinned);
        assert_eq!(
            (m.share, m.share_best, m.share_core),
            (unpinned.share, None, None)
        );
    }

    /// A move of the core's share is invisible to the guest's counters: the rounds are clean,
    /// yet throughput-bound code ran slower at one end of the block than at the other.
    #[test]
    fn a_move_of_the_core_share_makes_a_block_provisional_and_is_named() {
        let with = |b, a| {
            tally(
                31,
                0,
                Load {
                    share: Some((Share { ratio: b }, Share { ratio: a })),
                    ..Default::default()
                },
            )
        };
        assert!(!with(2.9, 2.6).provisional());
        assert_eq!(with(2.9, 2.6).mark(), None);
        for t in [with(2.9, 1.9), with(1.9, 2.9)] {
            assert!(t.provisional());
            let m = t.mark().unwrap();
            assert!(
                m.starts_with(
                    "provisional: 0 of 31 rounds were disturbed, and the core's share moved ("
                ),
                "{m}"
            );
        }
        assert!(
            with(2.9, 1.9)
                .mark()
                .unwrap()
                .contains("(2.90x to 1.90x: likely another thread")
        );
        assert!(
            !tally(31, 0, Load::default()).provisional(),
            "no reading, no mark"
        );
    }

    /// The parts of a scan, each taken in its own window, merged: the counters averaged by
    /// wall time, the least steady part's share kept and counted, a merge with itself a no-op.
    #[test]
    fn a_scan_merged_from_parts_keeps_its_least_steady_part() {
        let part = |wall_s, on_core, b, a, retakes| Load {
            wall_s,
            core: Some(1),
            on_core: Some(on_core),
            share: Some((Share { ratio: b }, Share { ratio: a })),
            share_best: Some(Share { ratio: 3.7 }),
            retakes,
            ..Default::default()
        };
        let steady = part(1.0, 0.0, 3.6, 3.7, 1);
        assert_eq!(steady.merge(&steady), steady, "a load merged with itself");
        let moved = part(3.0, 0.04, 3.6, 2.0, 2);
        let low = part(1.0, 0.0, 2.1, 2.2, 0);
        let both = steady.merge(&moved);
        assert_eq!((both.parts, both.unsteady_parts), (2, 1));
        assert!((both.on_core.unwrap() - 0.03).abs() < 1e-12, "{both:?}");
        assert_eq!((both.share, both.retakes), (moved.share, 2));
        let all = both.merge(&low);
        assert_eq!((all.parts, all.unsteady_parts, all.core), (3, 2, Some(1)));
        assert!(all.share_moved(), "moved outranks low");
        let t = tally(31, 0, all);
        assert!(t.provisional());
        let m = t.mark().unwrap();
        assert!(
            m.contains(
                "(3.60x to 2.00x: likely another thread on this physical core) (in 2 of the 3 \
                 parts taken one by one, the least steady shown, that part taken 3 times"
            ),
            "{m}"
        );
        // The recap finds what the clean rounds give after the mark, whatever it says.
        let said = format!("{m}L1 reads in 1.1 ns.");
        assert_eq!(crate::recap::clean_part(&said), Some("L1 reads in 1.1 ns."));
        let calm = steady.merge(&part(2.0, 0.0, 3.5, 3.6, 0));
        assert!(!tally(31, 0, calm).provisional(), "every part steady");
        assert_eq!((calm.unsteady_parts, calm.retakes), (0, 1));
        assert_eq!(
            Tally::default()
                .with_load(steady)
                .merge(&Tally::default().with_load(moved))
                .load,
            Some(both),
            "tallies merge their loads"
        );
    }

    #[test]
    fn many_disturbed_rounds_or_steal_or_disturbed_rounds_used_are_provisional() {
        assert!(tally(31, 9, Load::default()).provisional());
        assert!(
            tally(
                31,
                0,
                Load {
                    steal: Some(0.2),
                    ..Default::default()
                }
            )
            .provisional()
        );
        let used = Tally {
            rounds: 5,
            disturbed: 5,
            disturbed_used: 5,
            ..Default::default()
        };
        assert!(used.mark().unwrap().contains("no round was clean"));
    }

    #[test]
    fn work_on_other_cores_is_named_contention_not_disturbance() {
        let t = tally(
            31,
            0,
            Load {
                elsewhere: Some(0.9),
                on_core: Some(0.0),
                ..Default::default()
            },
        );
        assert!(!t.provisional());
        assert!(t.contended());
        assert!(
            t.contention()
                .unwrap()
                .starts_with("contention: 0.90 cores")
        );
    }

    #[test]
    fn tallies_count_rounds_and_merge() {
        let mut t = Tally::default();
        t.add(&Evidence {
            wall_ns: 1000,
            ..Default::default()
        });
        t.add(&Evidence {
            wall_ns: 1_000_000,
            waited_ns: Some(500_000),
            switches: 1,
            off_cpu_ns: 0,
        });
        assert_eq!((t.rounds, t.disturbed, t.lost_ns), (2, 1, 500_000));
        let m = t.merge(&t);
        assert_eq!((m.rounds, m.disturbed), (4, 2));
    }

    /// A memory-bound block whose memory reference moved is provisional and says so, with
    /// both readings; merged with a steady part, the moved readings are the ones kept.
    #[test]
    fn a_block_whose_memory_moved_is_provisional() {
        use crate::clock::memory::MemRef;
        let memory = |b, a| Load {
            memory: Some((MemRef { ns: b }, MemRef { ns: a })),
            wall_s: 0.1,
            ..Default::default()
        };
        let held = tally(31, 0, memory(180.0, 200.0));
        assert!(!held.provisional(), "{:?}", held.mark());
        let moved = tally(31, 0, memory(180.0, 260.0));
        let m = moved.mark().expect("moved memory is provisional");
        assert!(
            m.contains(
                "memory changed under it (a reference chase read 180 ns a load, then 260 ns"
            ),
            "{m}"
        );
        let merged = memory(180.0, 200.0).merge(&memory(180.0, 260.0));
        assert!(merged.memory_moved(), "{merged:?}");
        assert_eq!((merged.parts, merged.unsteady_parts), (2, 1));
        assert!(!memory(180.0, 200.0).merge(&Load::default()).unsteady());
        // The part whose share is shown shows its own memory readings where they moved too.
        let shown = Load {
            share: Some((Share { ratio: 3.6 }, Share { ratio: 2.0 })),
            ..memory(150.0, 300.0)
        };
        let kept = memory(180.0, 260.0).merge(&shown).memory.map(|m| m.1.ns);
        assert_eq!(kept, Some(300.0));
    }

    #[test]
    fn a_real_probe_reads_this_thread() {
        let p = Probe::new();
        let (x, e) = p.watch(|| (0..1000u64).map(std::hint::black_box).sum::<u64>());
        assert_eq!(x, 499_500);
        assert!(e.wall_ns > 0);
        assert_eq!(parse_wait("123 456 7\n"), Some(456));
        assert_eq!(parse_wait("123\n"), None);
    }
}
