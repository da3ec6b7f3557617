//! Table 105.1, the clocks met in C and POSIX, read on this machine, and the appendix's two
//! other tables (105.3, method by scale; 105.4, which statistic for which question) with
//! this run's numbers in them.
//!
//! What is measured: each clock read back to back many times, counting the readings lower
//! than the one before (a clock that went backwards), and the wall clock's distance from the
//! monotonic one at the start and the end of the readings (a jump or a slew of the wall
//! clock in between shows there); and the kernel's clock discipline, read with `adjtimex`
//! without changing anything. What is documented, not measured here: whether a clock jumps
//! when the time is set (that needs the time set, which this program never does). The table
//! says which is which. Backward steps are counts, not timings, so a disturbed core does not
//! change them and these readings carry no "provisional" mark.

/// One clock of Table 105.1.
pub struct Clock {
    pub name: &'static str,
    pub counts: &'static str,
    /// What the Linux manual page `clock_gettime(2)` (or the C standard) says of a set time.
    pub documented: &'static str,
    pub for_what: &'static str,
    read: fn() -> i128,
}

// The C library's `clock()` (`clock_t` is a `long` on Linux); the libc crate leaves it out.
unsafe extern "C" {
    fn clock() -> libc::c_long;
}

fn gettime(id: libc::clockid_t) -> i128 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; an unknown clock leaves it at zero.
    unsafe { libc::clock_gettime(id, &mut ts) };
    ts.tv_sec as i128 * 1_000_000_000 + ts.tv_nsec as i128
}

/// The clocks of the appendix's table, and the raw monotonic clock beside them.
pub const CLOCKS: [Clock; 6] = [
    Clock {
        name: "clock()",
        counts: "CPU time, process",
        documented: "no: counts CPU",
        for_what: "coarse estimates",
        // SAFETY: clock() has no preconditions.
        read: || unsafe { clock() } as i128,
    },
    Clock {
        name: "time()",
        counts: "seconds since 1970",
        documented: "yes: when time is set",
        for_what: "dates and times",
        // SAFETY: a null pointer asks time() only to return the value.
        read: || unsafe { libc::time(std::ptr::null_mut()) } as i128,
    },
    Clock {
        name: "CLOCK_REALTIME",
        counts: "wall time, ns",
        documented: "yes: set or NTP step",
        for_what: "records and logs",
        read: || gettime(libc::CLOCK_REALTIME),
    },
    Clock {
        name: "CLOCK_MONOTONIC",
        counts: "time since boot",
        documented: "no; NTP slews rate",
        for_what: "timing (used here)",
        read: || gettime(libc::CLOCK_MONOTONIC),
    },
    Clock {
        name: "CLOCK_MONOTONIC_RAW",
        counts: "same, not slewed",
        documented: "no jump, no slew",
        for_what: "hardware rate",
        read: || gettime(libc::CLOCK_MONOTONIC_RAW),
    },
    Clock {
        name: "PROCESS_CPUTIME_ID",
        counts: "CPU time, process",
        documented: "no: counts CPU",
        for_what: "CPU used",
        read: || gettime(libc::CLOCK_PROCESS_CPUTIME_ID),
    },
];

/// What reading one clock `reads` times back to back showed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backwards {
    pub reads: usize,
    /// Readings lower than the one before.
    pub back: usize,
    /// Readings that differ from the one before (the clock moved).
    pub moved: usize,
}

/// The kernel's clock discipline, read with `adjtimex` (modes 0: read only).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Discipline {
    /// The return value: 0 TIME_OK, 5 TIME_ERROR (unsynchronised), others leap states.
    pub state: i32,
    /// The frequency adjustment, in parts per million.
    pub freq_ppm: f64,
    /// STA_UNSYNC set: no time source disciplines the clock.
    pub unsynced: bool,
}

/// What section 2's clock table measured.
pub struct Clocks {
    pub backwards: Vec<Backwards>,
    /// CLOCK_REALTIME minus CLOCK_MONOTONIC before and after the readings, in ns.
    pub wall_offset: [i128; 2],
    pub discipline: Option<Discipline>,
}

/// Reads every clock of [`CLOCKS`] `reads` times back to back.
pub fn measure(reads: usize) -> Clocks {
    let offset = || gettime(libc::CLOCK_REALTIME) - gettime(libc::CLOCK_MONOTONIC);
    let before = offset();
    let backwards = CLOCKS
        .iter()
        .map(|c| {
            let (mut last, mut back, mut moved) = ((c.read)(), 0, 0);
            for _ in 0..reads {
                let now = (c.read)();
                back += usize::from(now < last);
                moved += usize::from(now != last);
                last = now;
            }
            Backwards { reads, back, moved }
        })
        .collect();
    Clocks {
        backwards,
        wall_offset: [before, offset()],
        discipline: discipline(),
    }
}

fn discipline() -> Option<Discipline> {
    // SAFETY: a zeroed timex with modes 0 asks only to read; the kernel fills it in.
    let mut t: libc::timex = unsafe { std::mem::zeroed() };
    // SAFETY: `t` is a valid, writable timex.
    let state = unsafe { libc::adjtimex(&mut t) };
    (state >= 0).then(|| Discipline {
        state,
        freq_ppm: t.freq as f64 / 65536.0,
        unsynced: t.status & libc::STA_UNSYNC != 0,
    })
}

/// Table 105.1's rows for people: the measured columns beside the documented one.
pub fn table(c: &Clocks) -> Vec<String> {
    let mut rows = vec![format!(
        "  {:<20} {:<19} {:>12}  {:<22} {}",
        "clock", "counts", "went back", "jumps if set (doc)", "for"
    )];
    for (k, b) in CLOCKS.iter().zip(&c.backwards) {
        rows.push(format!(
            "  {:<20} {:<19} {:>12}  {:<22} {}",
            k.name,
            k.counts,
            format!("{} of {}", b.back, b.reads),
            k.documented,
            k.for_what
        ));
    }
    rows
}

/// What the clock table says: what went backwards, what the wall clock did meanwhile, and
/// the kernel's discipline. A pure function of the measurement.
pub fn verdict(c: &Clocks) -> Vec<String> {
    let back: Vec<&str> = CLOCKS
        .iter()
        .zip(&c.backwards)
        .filter(|(_, b)| b.back > 0)
        .map(|(k, _)| k.name)
        .collect();
    let reads = c.backwards.first().map_or(0, |b| b.reads);
    let mut say = vec![if back.is_empty() {
        format!(
            "no clock went backwards in {reads} back-to-back readings each. That is measured; \
             \"jumps if set\" is what the clock_gettime(2) manual page documents (setting the \
             time needs privileges this program neither has nor wants)."
        )
    } else {
        format!(
            "{} went backwards in {reads} back-to-back readings: a duration measured on it can \
             come out negative. \"jumps if set\" is documented (clock_gettime(2)), not measured.",
            back.join(", ")
        )
    }];
    let drift = c.wall_offset[1] - c.wall_offset[0];
    say.push(format!(
        "During the readings the wall clock moved {drift} ns against the monotonic one{}.",
        if drift.abs() > 1_000_000 {
            ": a jump, the reason timing never uses it"
        } else {
            " (no jump)"
        }
    ));
    say.push(match c.discipline {
        Some(d) => format!(
            "The kernel's clock discipline (adjtimex, read only): {}, frequency adjusted by \
             {:+.3} ppm{}.",
            if d.unsynced {
                "unsynchronised (no time source steers it)"
            } else {
                "synchronised to a time source"
            },
            d.freq_ppm,
            if d.freq_ppm != 0.0 {
                ", which slews CLOCK_REALTIME and CLOCK_MONOTONIC alike, not the RAW clock"
            } else {
                ""
            }
        ),
        None => "The kernel's clock discipline: unknown (adjtimex refused).".into(),
    });
    say
}

/// Table 105.3 (method by scale) with this machine's clock in it: for each scale, the
/// repeats a timed batch needs so that one clock reading (`read_ns`) is under 1% of it.
pub fn method_by_scale(read_ns: f64) -> Vec<String> {
    let rows: [(&str, f64, &str, &str); 4] = [
        (
            "about 1 ns",
            1.0,
            "one add, one branch",
            "the optimiser deletes it",
        ),
        (
            "10-100s of ns",
            100.0,
            "a miss to memory",
            "prefetching hides it",
        ),
        (
            "microseconds",
            1e3,
            "a system call",
            "context switches mix in",
        ),
        (
            "ms and above",
            1e6,
            "a big computation",
            "caches, buffers change it",
        ),
    ];
    let mut out = vec![format!(
        "  {:<14} {:<20} {:>22}  {}",
        "size", "example", "repeats per batch", "watch out for"
    )];
    for (size, ns, example, watch) in rows {
        let reps = (100.0 * read_ns / ns).ceil().max(1.0);
        let how = if reps > 1.0 {
            format!("{} + divide", measure::fmt::grouped(reps as u64))
        } else {
            "1; several rounds".to_string()
        };
        out.push(format!("  {size:<14} {example:<20} {how:>22}  {watch}"));
    }
    out
}

/// Table 105.4 (which statistic for which question) with trap three's values in it.
pub fn which_statistic(s: &measure::stats::Summary) -> Vec<String> {
    let rows = [
        (
            "minimum",
            s.min,
            "if nothing interfered",
            "unshaken",
            "printed beside",
        ),
        (
            "median",
            s.median,
            "what it usually is",
            "barely moves",
            "used by default",
        ),
        (
            "mean",
            s.mean,
            "total / count",
            "dragged by one",
            "not used",
        ),
        (
            "99th pct",
            s.p99,
            "the bad case",
            "the point of it",
            "deadlines",
        ),
        (
            "maximum",
            s.max,
            "the worst seen",
            "the point of it",
            "deadlines",
        ),
    ];
    let mut out = vec![format!(
        "  {:<9} {:>12}  {:<22} {:<17} {}",
        "value", "this run ns", "says", "under interference", "here"
    )];
    for (name, v, says, under, here) in rows {
        out.push(format!(
            "  {name:<9} {v:>12.0}  {says:<22} {under:<17} {here}"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clocks(back: usize, drift: i128, unsynced: bool) -> Clocks {
        let b = Backwards {
            reads: 1000,
            back: 0,
            moved: 900,
        };
        let mut backwards = vec![b; CLOCKS.len()];
        backwards[2].back = back;
        Clocks {
            backwards,
            wall_offset: [5, 5 + drift],
            discipline: Some(Discipline {
                state: 0,
                freq_ppm: 1.5,
                unsynced,
            }),
        }
    }

    #[test]
    fn the_verdict_names_what_went_back_and_what_is_documented() {
        let v = verdict(&clocks(0, 10, false));
        assert!(v[0].starts_with("no clock went backwards in 1000"), "{v:?}");
        assert!(v[1].contains("10 ns") && v[1].contains("no jump"), "{v:?}");
        assert!(v[2].contains("synchronised") && v[2].contains("+1.500 ppm"));
        let v = verdict(&clocks(3, -2_000_000_000, true));
        assert!(v[0].starts_with("CLOCK_REALTIME went backwards"), "{v:?}");
        assert!(v[1].contains("a jump"), "{v:?}");
        assert!(v[2].contains("unsynchronised"), "{v:?}");
    }

    #[test]
    fn the_monotonic_clocks_do_not_go_back_here() {
        // A robust fact: the kernel guarantees it, and a violation is a bug worth failing.
        let c = measure(10_000);
        for k in [3, 4] {
            assert_eq!(c.backwards[k].back, 0, "{}", CLOCKS[k].name);
            assert!(c.backwards[k].moved > 0, "{} never moved", CLOCKS[k].name);
        }
    }

    #[test]
    fn the_tables_carry_this_machines_numbers() {
        let t = method_by_scale(20.0);
        assert!(t[1].contains("2,000 + divide"), "{t:?}");
        assert!(t[4].contains("1; several rounds"), "{t:?}");
        let s = measure::stats::Summary::of(&[10.0, 12.0, 50.0]).unwrap();
        let t = which_statistic(&s);
        assert!(t[2].contains("12") && t[5].contains("50"), "{t:?}");
        assert!(t.iter().all(|r| r.len() <= 100));
        let c = clocks(0, 0, false);
        assert!(table(&c).iter().all(|r| r.len() <= 100), "{:?}", table(&c));
    }
}
