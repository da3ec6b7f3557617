//! The machine before and after the scan, as the seed records it. The core clock is
//! estimated before the scan (`Experiment::core_clock`) and again when the experiment finishes,
//! which prints both with how far apart they are; this module adds how busy the CPUs were with
//! other processes at each end (`measure::quiet`: the machine's busy time from `/proc/stat`
//! less this process's own, over a short window in which this process sleeps).

use measure::fmt::field;
use measure::quiet;
use measure::run::Experiment;
use std::time::Duration;

/// Other processes' CPU use over `window`, in cores: prints the `busy CPUs` line and records
/// `#META other_cores_<when>`. `None` where `/proc/stat` cannot be read.
pub fn busy(exp: &mut Experiment, when: &str, window: Duration) -> Option<f64> {
    let a = quiet::snapshot();
    std::thread::sleep(window);
    let other = quiet::between(&a, &quiet::snapshot()).map(|w| w.cores());
    let of = exp
        .facts
        .logical_cores
        .map_or(String::new(), |n| format!(" of {n}"));
    let text = match other {
        Some(c) => format!(
            "{c:.2}{of} cores busy with other processes (over {:.1} s)",
            window.as_secs_f64()
        ),
        None => "unknown (/proc/stat unreadable)".to_string(),
    };
    println!("{}", field("busy CPUs", &text));
    exp.out.meta(
        &format!("other_cores_{when}"),
        other.map_or("unknown".into(), |c| format!("{c:.3}")),
    );
    other
}

/// What the two readings say about the run, in one sentence.
pub fn compare(before: Option<f64>, after: Option<f64>) -> String {
    match (before, after) {
        (Some(b), Some(a)) if b.max(a) > quiet::WARN_CORES => format!(
            "Other processes kept {b:.2} cores busy before the scan and {a:.2} after it; their \
             average over the whole run is the \"other work\" line below."
        ),
        (Some(b), Some(a)) => format!(
            "Other processes were quiet at both ends of the scan ({b:.2} and {a:.2} cores); \
             the core clock before and after is compared at the end of the report."
        ),
        _ => "How busy other processes were is unknown (/proc/stat could not be read).".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_busy_machine_is_said_and_a_quiet_one_too() {
        let quiet = compare(Some(0.01), Some(0.02));
        assert!(quiet.contains("quiet at both ends"), "{quiet}");
        let busy = compare(Some(0.01), Some(0.50));
        assert!(busy.contains("0.01 cores busy before") && busy.contains("0.50 after"));
        assert!(compare(None, Some(0.0)).contains("unknown"));
    }
}
