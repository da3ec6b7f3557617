//! The machine before and after the scan, as the seed records it: the core clock (measured
//! by `measure`'s add chain, `Experiment::core_clock`) and how busy the CPUs were with other
//! processes (`measure::quiet`: the machine's busy time from `/proc/stat` less this
//! process's own, over a short window in which this process sleeps).

use measure::data::meta;
use measure::fmt::field;
use measure::quiet;
use measure::run::Experiment;
use std::time::Duration;

/// One reading of the machine.
#[derive(Debug, Clone, Copy)]
pub struct Snapshot {
    pub ghz: Option<f64>,
    /// Other processes' CPU use over the window, in cores.
    pub other_cores: Option<f64>,
}

/// Takes a snapshot, prints its two lines and records `#META clock_ghz_<when>` and
/// `other_cores_<when>`.
pub fn snapshot(exp: &Experiment, when: &str, window: Duration) -> Snapshot {
    let cc = exp.core_clock();
    let a = quiet::snapshot();
    std::thread::sleep(window);
    let other = quiet::between(&a, &quiet::snapshot()).map(|w| w.cores());
    let cores = exp
        .facts
        .logical_cores
        .map_or(String::new(), |n| format!(" of {n}"));
    println!(
        "{}",
        field(
            "busy CPUs",
            &match other {
                Some(c) => format!(
                    "{c:.2}{cores} cores busy with other processes (over {:.1} s)",
                    window.as_secs_f64()
                ),
                None => "unknown (/proc/stat unreadable)".to_string(),
            }
        )
    );
    let show =
        |v: Option<f64>, decimals: usize| v.map_or("unknown".into(), |v| format!("{v:.decimals$}"));
    meta(&format!("clock_ghz_{when}"), show(cc.ghz, 3));
    meta(&format!("other_cores_{when}"), show(other, 3));
    Snapshot {
        ghz: cc.ghz,
        other_cores: other,
    }
}

/// What the two snapshots say about the run, in one sentence.
pub fn compare(before: Snapshot, after: Snapshot) -> String {
    let clock = match (before.ghz, after.ghz) {
        (Some(b), Some(a)) => {
            let change = (a / b - 1.0) * 100.0;
            if change.abs() > 2.0 {
                format!(
                    "The core clock moved from {b:.2} to {a:.2} GHz ({change:+.1} %) during the \
                     run: passes taken at different clocks differ for that reason alone, which a \
                     scan in one direction would take for an effect of PAD."
                )
            } else {
                format!("The core clock held ({b:.2} GHz before, {a:.2} after, {change:+.1} %).")
            }
        }
        _ => "The core clock could not be estimated here.".to_string(),
    };
    let busy = match (before.other_cores, after.other_cores) {
        (Some(b), Some(a)) if b.max(a) > quiet::WARN_CORES => format!(
            " Other processes kept {:.2} cores busy at one end of the run: their work is in \
             these numbers.",
            b.max(a)
        ),
        (Some(_), Some(_)) => " Other processes were quiet at both ends.".to_string(),
        _ => " How busy other processes were is unknown.".to_string(),
    };
    clock + &busy
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_moved_clock_and_a_busy_machine_are_said() {
        let s = |ghz, other| Snapshot {
            ghz: Some(ghz),
            other_cores: Some(other),
        };
        let held = compare(s(4.20, 0.01), s(4.22, 0.02));
        assert!(held.contains("held") && held.contains("quiet"), "{held}");
        let moved = compare(s(4.20, 0.01), s(3.90, 0.50));
        assert!(
            moved.contains("moved from 4.20 to 3.90 GHz (-7.1 %)"),
            "{moved}"
        );
        assert!(moved.contains("0.50 cores busy"), "{moved}");
        let unknown = compare(
            Snapshot {
                ghz: None,
                other_cores: None,
            },
            s(4.0, 0.0),
        );
        assert!(unknown.contains("could not") && unknown.contains("unknown"));
    }
}
