//! The mechanism, shown before anything is timed: where a stack local lands as PAD grows.
//!
//! Children with PAD of 0, 1, 15, 16, 17, 32 and 4096 bytes (and 0 again) report the address
//! of their stack array. Three things are computed from those addresses and printed: the
//! same environment gives the same address (randomisation really is off), the address moves
//! in 16-byte steps, and at 4096 bytes it is exactly 4 KiB lower.

use crate::child::{Report, Workload};
use crate::launch::Launcher;
use measure::data::{Block, Value};
use measure::fmt::{WIDTH, wrap_to, yes_no};
use measure::out::Out;
use std::collections::BTreeMap;

/// PAD sizes for the demonstration; 0 comes again at the end, to check that the same
/// environment gives the same address.
pub const PADS: [usize; 8] = [0, 1, 15, 16, 17, 32, 4096, 0];

/// What the demonstration established.
pub struct Mechanism {
    /// Every child's personality had ADDR_NO_RANDOMIZE and PAD 0 twice gave one address.
    pub aslr_verified: bool,
    /// How far the stack moved at PAD 4096, if both children reported.
    pub shift_at_4096: Option<i64>,
}

/// One child of the demonstration, as checked: its PAD, the shifts allowed there (the PAD
/// rounded down and up to 16 bytes), and, if it ran, where its stack array was, how far
/// below PAD 0's, whether that is allowed, and its personality and pinning.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub pad: usize,
    pub lo: usize,
    pub hi: usize,
    pub addr: Option<u64>,
    pub shift: Option<i64>,
    pub fits: bool,
    pub aslr_off: bool,
    pub pinned: bool,
}

/// The checks, computed from the children's reports alone.
#[derive(Debug, Clone, PartialEq)]
pub struct Checks {
    pub rows: Vec<Row>,
    /// Every child's personality has ADDR_NO_RANDOMIZE.
    pub persona_off: bool,
    /// PAD 0 first and last gave the same address (`None`: one of them failed).
    pub repeat_same: Option<bool>,
    /// Every child ran and moved by a multiple of 16 within its allowed range.
    pub steps_hold: bool,
    /// PAD 4096 moved exactly 4 KiB (`None`: that child failed).
    pub exact_4k: Option<bool>,
}

impl Checks {
    /// Randomisation was off, in every child and by the repeat.
    pub fn aslr_verified(&self) -> bool {
        self.persona_off && self.repeat_same == Some(true)
    }
}

/// Runs the demonstration children and checks their addresses.
pub fn demonstrate(launcher: &Launcher) -> Checks {
    check(&run_children(launcher))
}

/// Prints the table and the checks of `c`, and records the `mechanism` block and its `#META`
/// lines. Returns what the later sections need.
pub fn report(out: &mut Out, c: &Checks) -> Mechanism {
    print(out, c);
    record(out, c);
    Mechanism {
        aslr_verified: c.aslr_verified(),
        shift_at_4096: c.rows.iter().find(|r| r.pad == 4096).and_then(|r| r.shift),
    }
}

/// Each PAD's report (`None` where the child failed, with a line saying why), then one line
/// for each thing the children said on stderr.
fn run_children(launcher: &Launcher) -> Vec<(usize, Option<Report>)> {
    let mut reports = Vec::new();
    let mut said: BTreeMap<String, usize> = BTreeMap::new();
    for pad in PADS {
        match launcher.run(Workload::Fib, pad) {
            Ok(o) => {
                for l in o.stderr {
                    *said.entry(l).or_default() += 1;
                }
                reports.push((pad, Some(o.report)));
            }
            Err(e) => {
                println!(
                    "{}",
                    wrap_to(&format!("PAD {pad}: {e}"), "  ! ", "    ", WIDTH)
                );
                reports.push((pad, None));
            }
        }
    }
    for (l, n) in &said {
        let said = format!("the children said on stderr ({n} of {}): {l}", PADS.len());
        println!("{}", wrap_to(&said, "  ! ", "    ", WIDTH));
    }
    reports
}

/// The checks of the reports, PAD 0 first and last.
pub fn check(reports: &[(usize, Option<Report>)]) -> Checks {
    let base = reports[0].1.as_ref().map(|r| r.stack_addr);
    let rows: Vec<Row> = reports
        .iter()
        .map(|(pad, r)| {
            let (lo, hi) = (pad / 16 * 16, pad.div_ceil(16) * 16);
            let shift = r
                .as_ref()
                .and_then(|r| Some(base? as i64 - r.stack_addr as i64));
            Row {
                pad: *pad,
                lo,
                hi,
                addr: r.as_ref().map(|r| r.stack_addr),
                shift,
                fits: shift.is_some_and(|s| s % 16 == 0 && s >= lo as i64 && s <= hi as i64),
                aslr_off: r.as_ref().is_some_and(|r| r.aslr_off()),
                pinned: r.as_ref().is_some_and(|r| r.pinned()),
            }
        })
        .collect();
    let repeat_same = match (&reports[0].1, &reports[reports.len() - 1].1) {
        (Some(a), Some(b)) => Some(a.stack_addr == b.stack_addr),
        _ => None,
    };
    let at_4k = rows.iter().find(|r| r.pad == 4096 && r.addr.is_some());
    Checks {
        persona_off: rows.iter().all(|r| r.aslr_off),
        repeat_same,
        steps_hold: base.is_some() && rows.iter().all(|r| r.addr.is_some() && r.fits),
        exact_4k: at_4k.map(|r| r.shift == Some(4096)),
        rows,
    }
}

/// The table of addresses, the four checks, and what follows from them.
fn print(out: &mut Out, c: &Checks) {
    for r in &c.rows {
        let Some(addr) = r.addr else { continue };
        let (pad, lo, hi) = (r.pad, r.lo, r.hi);
        println!(
            "  PAD {pad:>4}: stack array at {addr:#x}, {} than at PAD 0 (allowed: {lo}..{hi}){}",
            match r.shift {
                Some(s) if s >= 0 => format!("{s:>5} bytes lower"),
                Some(s) => format!("{:>5} bytes higher", -s),
                None => "?".into(),
            },
            if r.fits { "" } else { "  <- outside" }
        );
    }
    println!(
        "  the children's personality has ADDR_NO_RANDOMIZE: {}",
        if c.persona_off {
            "yes, in every child"
        } else {
            "NO (not in every child)"
        }
    );
    println!(
        "  PAD 0 twice gives the same address: {}",
        match c.repeat_same {
            Some(true) => "yes: nothing but the environment moves the stack",
            Some(false) => "NO: the stack moved on its own, so address randomisation is on",
            None => "unknown (a child failed)",
        }
    );
    println!(
        "  moves in 16-byte steps as PAD grows : {}",
        if c.steps_hold { "held" } else { "did not hold" }
    );
    println!(
        "  exactly 4 KiB lower at PAD 4096     : {}",
        match c.exact_4k {
            Some(true) => "held",
            Some(false) => "did not hold",
            None => "unknown (that child failed)",
        }
    );
    if let Some(said) = conclusion(c) {
        out.conclude(said);
    }
}

/// What the checks allow the scan to test, when they settle it. Addresses, not timings:
/// no disturbance changes them, so the reading is never marked.
fn conclusion(c: &Checks) -> Option<&'static str> {
    if c.aslr_verified() && c.steps_hold {
        Some(
            "So PAD sets the stack's position modulo 4 KiB, relative to code and globals that do \
             not move; 256 sizes of 16 bytes visit every position once.",
        )
    } else if !c.aslr_verified() {
        Some(
            "With randomisation on, PAD does not decide where the stack lands: the scan below \
             cannot test placement by environment size.",
        )
    } else {
        None
    }
}

/// The `mechanism` block and its `#META` lines.
fn record(out: &mut Out, c: &Checks) {
    let mut mech = Block::new(
        ::env_scan::schema::mechanism::BLOCK,
        ::env_scan::schema::mechanism::COLUMNS,
    );
    for r in &c.rows {
        let ran = r.addr.is_some();
        let when = |v: bool| if ran { Value::from(v) } else { Value::Missing };
        mech.row(vec![
            r.pad.into(),
            r.addr.map_or(Value::Missing, Value::from),
            r.shift.map(|s| s as f64).into(),
            r.lo.into(),
            r.hi.into(),
            when(r.aslr_off),
            when(r.pinned),
        ]);
    }
    out.block(&mech);
    out.meta("aslr_off_verified", yes_no(c.aslr_verified()));
    out.meta(
        "stack_16_byte_steps",
        if c.steps_hold { "held" } else { "did_not_hold" },
    );
    out.meta(
        "stack_4k_at_pad_4096",
        match c.exact_4k {
            Some(true) => "held",
            Some(false) => "did_not_hold",
            None => "unknown",
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A child that ran, its stack array `below` bytes under PAD 0's.
    fn ran(pad: usize, below: u64, aslr_off: bool) -> (usize, Option<Report>) {
        let r = Report {
            workload: Workload::Fib,
            pad_seen: pad,
            env_vars: 1,
            persona: Some(if aslr_off { 0x40000 } else { 0 }),
            core_requested: Some(1),
            affinity_count: Some(1),
            affinity_has_core: true,
            cpu_before: Some(1),
            cpu_after: Some(1),
            stack_addr: 0x7fff_ffff_e000 - below,
            global_addr: 0x5555_5555_a000,
            median_ns: 1.0,
            min_ns: 1.0,
            max_ns: 1.0,
            reps: 1,
            sink: 0,
            rounds: 1,
            disturbed: 0,
            lost_ns: 0,
            wall_ns: 1,
            life_ns: 1,
            life_waited_ns: None,
        };
        (pad, Some(r))
    }

    /// The stack as Linux places it: down by PAD rounded up to 16 bytes.
    fn as_linux() -> Vec<(usize, Option<Report>)> {
        PADS.iter()
            .map(|&p| ran(p, p.div_ceil(16) as u64 * 16, true))
            .collect()
    }

    #[test]
    fn the_stack_moving_in_16_byte_steps_holds_every_check() {
        let c = check(&as_linux());
        assert!(c.aslr_verified() && c.steps_hold);
        assert_eq!(c.exact_4k, Some(true));
        assert_eq!(c.rows[2].shift, Some(16));
        assert!(c.rows.iter().all(|r| r.fits));
        assert!(conclusion(&c).is_some_and(|s| s.starts_with("So PAD sets")));
    }

    #[test]
    fn a_stray_address_a_failed_child_and_randomisation_are_each_caught() {
        let mut stray = as_linux();
        stray[3] = ran(16, 24, true);
        let c = check(&stray);
        assert!(!c.steps_hold && !c.rows[3].fits && c.aslr_verified());
        assert_eq!(conclusion(&c), None, "a stray address settles nothing");

        let mut failed = as_linux();
        failed[6] = (4096, None);
        let c = check(&failed);
        assert!(!c.steps_hold);
        assert_eq!(c.exact_4k, None);
        assert_eq!(c.rows[6].shift, None);

        let mut moved = as_linux();
        moved[7] = ran(0, 4096 * 3, true);
        assert_eq!(check(&moved).repeat_same, Some(false));
        let mut random = as_linux();
        random[1] = ran(1, 16, false);
        let c = check(&random);
        assert!(!c.persona_off && !c.aslr_verified());
        assert!(conclusion(&c).is_some_and(|s| s.starts_with("With randomisation on")));
    }
}
