//! The mechanism, shown before anything is timed: where a stack local lands as PAD grows.
//!
//! Children with PAD of 0, 1, 15, 16, 17, 32 and 4096 bytes (and 0 again) report the address
//! of their stack array. Three things are computed from those addresses and printed: the
//! same environment gives the same address (randomisation really is off), the address moves
//! in 16-byte steps, and at 4096 bytes it is exactly 4 KiB lower.

use crate::child::Workload;
use crate::launch::Launcher;
use measure::data::{Block, Value, meta};
use measure::fmt::{WIDTH, conclude, wrap_to, yes_no};
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

/// Runs the demonstration children, prints the table and the checks, and emits the
/// `mechanism` block and its `#META` lines.
pub fn demonstrate(launcher: &Launcher) -> Mechanism {
    let mut mech = Block::new(
        ::env_scan::schema::mechanism::BLOCK,
        ::env_scan::schema::mechanism::COLUMNS,
    );
    let mut mech_reports = Vec::new();
    let mut mech_said: BTreeMap<String, usize> = BTreeMap::new();
    for pad in PADS {
        match launcher.run(Workload::Fib, pad) {
            Ok(o) => {
                for l in o.stderr {
                    *mech_said.entry(l).or_default() += 1;
                }
                mech_reports.push((pad, Some(o.report)));
            }
            Err(e) => {
                println!(
                    "{}",
                    wrap_to(&format!("PAD {pad}: {e}"), "  ! ", "    ", WIDTH)
                );
                mech_reports.push((pad, None));
            }
        }
    }
    for (l, n) in &mech_said {
        let said = format!("the children said on stderr ({n} of {}): {l}", PADS.len());
        println!("{}", wrap_to(&said, "  ! ", "    ", WIDTH));
    }
    let base = mech_reports[0].1.as_ref().map(|r| r.stack_addr);
    let mut steps_hold = base.is_some();
    let mut exact_4k = None;
    for (pad, r) in &mech_reports {
        let lo = pad / 16 * 16;
        let hi = pad.div_ceil(16) * 16;
        let Some(r) = r else {
            steps_hold = false;
            mech.row(vec![
                (*pad).into(),
                Value::Missing,
                Value::Missing,
                lo.into(),
                hi.into(),
                Value::Missing,
                Value::Missing,
            ]);
            continue;
        };
        let shift = base.map(|b| b as i64 - r.stack_addr as i64);
        let fits = shift.is_some_and(|s| s % 16 == 0 && s >= lo as i64 && s <= hi as i64);
        steps_hold &= fits;
        if *pad == 4096 {
            exact_4k = Some(shift == Some(4096));
        }
        println!(
            "  PAD {pad:>4}: stack array at {:#x}, {} than at PAD 0 (allowed: {lo}..{hi}){}",
            r.stack_addr,
            match shift {
                Some(s) if s >= 0 => format!("{s:>5} bytes lower"),
                Some(s) => format!("{:>5} bytes higher", -s),
                None => "?".into(),
            },
            if fits { "" } else { "  <- outside" }
        );
        mech.row(vec![
            (*pad).into(),
            r.stack_addr.into(),
            shift.map(|s| s as f64).into(),
            lo.into(),
            hi.into(),
            r.aslr_off().into(),
            r.pinned().into(),
        ]);
    }
    let repeat_same = match (&mech_reports[0].1, &mech_reports[mech_reports.len() - 1].1) {
        (Some(a), Some(b)) => Some(a.stack_addr == b.stack_addr),
        _ => None,
    };
    let persona_off = mech_reports
        .iter()
        .all(|(_, r)| r.as_ref().is_some_and(|r| r.aslr_off()));
    let mech_aslr_verified = persona_off && repeat_same == Some(true);
    println!(
        "  the children's personality has ADDR_NO_RANDOMIZE: {}",
        if persona_off {
            "yes, in every child"
        } else {
            "NO (not in every child)"
        }
    );
    println!(
        "  PAD 0 twice gives the same address: {}",
        match repeat_same {
            Some(true) => "yes: nothing but the environment moves the stack",
            Some(false) => "NO: the stack moved on its own, so address randomisation is on",
            None => "unknown (a child failed)",
        }
    );
    println!(
        "  moves in 16-byte steps as PAD grows : {}",
        if steps_hold { "held" } else { "did not hold" }
    );
    println!(
        "  exactly 4 KiB lower at PAD 4096     : {}",
        match exact_4k {
            Some(true) => "held",
            Some(false) => "did not hold",
            None => "unknown (that child failed)",
        }
    );
    if mech_aslr_verified && steps_hold {
        conclude(
            "So PAD sets the stack's position modulo 4 KiB, relative to code and globals that do \
             not move; 256 sizes of 16 bytes visit every position once.",
        );
    } else if !mech_aslr_verified {
        conclude(
            "With randomisation on, PAD does not decide where the stack lands: the scan below \
             cannot test placement by environment size.",
        );
    }
    mech.print();
    meta("aslr_off_verified", yes_no(mech_aslr_verified));
    meta(
        "stack_16_byte_steps",
        if steps_hold { "held" } else { "did_not_hold" },
    );
    meta(
        "stack_4k_at_pad_4096",
        match exact_4k {
            Some(true) => "held",
            Some(false) => "did_not_hold",
            None => "unknown",
        },
    );

    Mechanism {
        aslr_verified: mech_aslr_verified,
        shift_at_4096: mech_reports
            .iter()
            .find(|(p, _)| *p == 4096)
            .and_then(|(_, r)| Some(base? as i64 - r.as_ref()?.stack_addr as i64)),
    }
}
