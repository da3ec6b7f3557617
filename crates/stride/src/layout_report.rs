//! Everything printed about the layouts (section 4): the sizes, the table, the `layout` block
//! and the sentences. Every sentence branches on this run's numbers.

use crate::layout::{self, PARTICLE_BYTES, USED_BYTES};
use crate::timing::{self, LayoutTimes};
use measure::data::Block;
use measure::fmt::{bytes, grouped, say};
use measure::out::Out;
use measure::scan::DEFAULT_TOLERANCE;
use measure::show;
use measure::stats::Summary;

/// The struct, the line and the two arrays' sizes, and the rounds asked (`clean` per loop),
/// as human lines and `#META`.
pub fn sizes(out: &mut Out, n: usize, line: Option<u64>, clean: usize) {
    println!(
        "  size of one struct : {PARTICLE_BYTES} bytes (checked when compiled), line {}",
        line.map_or("unknown".into(), |l| format!("{l} bytes"))
    );
    println!(
        "  {} elements: {} as structs, {} as the x array alone",
        grouped(n as u64),
        bytes((n * PARTICLE_BYTES) as u64),
        bytes((n * 8) as u64)
    );
    say(
        &format!(
            "{clean} clean rounds of each loop, interleaved; a round sums {} elements (the next \
             chunk of the big arrays); up to {} extra rounds / {:.0} ms when rounds are \
             disturbed.",
            grouped(timing::CHUNK.min(n) as u64),
            timing::LAYOUT_EXTRA_ROUNDS,
            timing::LAYOUT_BUDGET_NS as f64 / 1e6
        ),
        "  ",
    );
    out.meta(::stride::schema::META_ELEMENTS, n);
    out.meta(::stride::schema::META_STRUCT_BYTES, PARTICLE_BYTES);
}

/// The checksums every round returned, the table, and the `layout` block (the figures are
/// the clean rounds').
pub fn table(out: &mut Out, t: &LayoutTimes, line: Option<u64>) {
    say(
        &format!(
            "every sum checked: {}, {} and {} rounds of the three loops, each of {} elements; \
             every chunk of both big arrays returned exactly its expected sum, the small one {} \
             ({} times over {} values).",
            t.aos.values.len(),
            t.soa.values.len(),
            t.floor.values.len(),
            grouped(t.chunk as u64),
            layout::expected_sum(t.small_n) * t.reps as f64,
            t.reps,
            t.small_n
        ),
        "  ",
    );
    let (aos, soa, floor) = (
        LayoutTimes::summary(&t.aos),
        LayoutTimes::summary(&t.soa),
        LayoutTimes::summary(&t.floor),
    );
    let aos_used = line.map(layout::used_per_line);
    let aos_fetched = line.map(layout::fetched_per_element);
    println!(
        "\n  {:<36} {:<28} {:>6}  bytes used per line",
        "layout", "per element, ns (min .. max)", "factor"
    );
    let show = |name: &str, x: &Summary, used: String| {
        println!(
            "  {name:<36} {:>7.3} ({:.3} .. {:.3}) {:>9.1}x  {used}",
            x.median,
            x.min,
            x.max,
            x.median / soa.median
        );
    };
    show(
        "array of structs (AoS), x only",
        &aos,
        match (aos_used, line) {
            (Some(u), Some(l)) => format!(
                "{u:.1} of {l} ({USED_BYTES} of {})",
                layout::fetched_per_element(l)
            ),
            _ => format!("{USED_BYTES} of every {PARTICLE_BYTES} (line size unknown)"),
        },
    );
    show(
        "struct of arrays (SoA), the x array",
        &soa,
        line.map_or("all of every line (line size unknown)".into(), |l| {
            format!("{l} of {l}")
        }),
    );
    show(
        &format!("the same over {} KiB of x, in L1", t.small_n * 8 / 1024),
        &floor,
        "-".into(),
    );
    let mut b = Block::new(
        ::stride::schema::layout::BLOCK,
        ::stride::schema::layout::COLUMNS,
    );
    for (name, timed, x, fetched, used) in [
        ("aos", &t.aos, &aos, aos_fetched.map(|b| b as f64), aos_used),
        (
            "soa",
            &t.soa,
            &soa,
            Some(USED_BYTES as f64),
            line.map(|l| l as f64),
        ),
        ("soa_in_l1", &t.floor, &floor, None, None),
    ] {
        b.row(vec![
            name.into(),
            x.median.into(),
            x.min.into(),
            x.max.into(),
            (x.median / soa.median).into(),
            fetched.into(),
            used.into(),
            timed.values.len().into(),
            timed.disturbed_count().into(),
        ]);
    }
    out.block(&b);
}

/// The sentences: AoS against SoA, SoA against its compute floor, and the reverse case,
/// marked by [`show::marked`] (the big arrays come from memory, a shared level).
pub fn reading(t: &LayoutTimes, line: Option<u64>) -> Vec<String> {
    let (aos, soa, floor) = (
        LayoutTimes::summary(&t.aos),
        LayoutTimes::summary(&t.soa),
        LayoutTimes::summary(&t.floor),
    );
    let mut out = Vec::new();
    let r = aos.median / soa.median;
    let aos_fetched = line.map(layout::fetched_per_element);
    // How many times the bytes of the x array the struct sum brings in.
    let traffic = aos_fetched.map(|b| b as f64 / USED_BYTES as f64);
    let brings = match aos_fetched {
        Some(b) => format!("It brings {b} bytes through the cache for every {USED_BYTES} it uses."),
        None => format!(
            "With lines of at least {PARTICLE_BYTES} bytes it brings {PARTICLE_BYTES} bytes for \
             every {USED_BYTES} it uses."
        ),
    };
    if r > 1.0 + DEFAULT_TOLERANCE {
        out.push(format!(
            "the same values were added in the same order; only the layout changed, and the \
             array of structs cost {r:.1}x the separate array. {brings}"
        ));
    } else if r < 1.0 - DEFAULT_TOLERANCE {
        out.push(format!(
            "the array of structs was FASTER here ({r:.2}x): not what the bytes predict; look at \
             the rounds."
        ));
    } else {
        out.push(format!(
            "the two layouts cost the same within {:.0}% ({r:.2}x) on this run. {brings}",
            DEFAULT_TOLERANCE * 100.0
        ));
    }
    let fr = soa.median / floor.median;
    if fr < 1.0 + DEFAULT_TOLERANCE {
        out.push(format!(
            "the separate array from memory costs {fr:.2}x the same loop in L1: its speed is set \
             by the chain of dependent additions, not by memory.{}",
            traffic.map_or(String::new(), |t| format!(
                " So the time ratio ({r:.1}x) understates the ratio of bytes moved ({t:.0}x)."
            ))
        ));
    } else {
        out.push(format!(
            "the separate array from memory costs {fr:.2}x the same loop in L1: memory still \
             shows in it."
        ));
    }
    out.push(
        "the reverse holds too: code that reads several fields of each element uses the whole \
         line of a struct, and then the array of structs is the better layout."
            .into(),
    );
    show::marked(&t.tally, true, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::disturb::{Evidence, Load};
    use measure::rounds::Timed;

    /// Rounds of `ns`, the first `disturbed` of them twice as slow and disturbed.
    fn timed(ns: f64, rounds: usize, disturbed: usize) -> Timed {
        let mut t = Timed::default();
        for i in 0..rounds {
            let bad = i < disturbed;
            t.push(
                if bad { 2.0 * ns } else { ns },
                Evidence {
                    wall_ns: 300_000,
                    switches: u64::from(bad),
                    waited_ns: Some(if bad { 2_000_000 } else { 0 }),
                    off_cpu_ns: 0,
                },
            );
        }
        t
    }

    fn times(disturbed: usize, on_core: f64, elsewhere: f64) -> LayoutTimes {
        let (aos, soa, floor) = (
            timed(1.5, 15 + disturbed, disturbed),
            timed(0.5, 15 + disturbed, disturbed),
            timed(0.48, 15, 0),
        );
        let tally = measure::rounds::tally([&aos, &soa, &floor]).with_load(Load {
            core: Some(1),
            on_core: Some(on_core),
            steal: Some(0.0),
            elsewhere: Some(elsewhere),
            ..Default::default()
        });
        LayoutTimes {
            aos,
            soa,
            floor,
            chunk: 1 << 18,
            small_n: 2048,
            reps: 128,
            tally,
        }
    }

    #[test]
    fn a_quiet_run_gives_the_ratio_with_no_mark() {
        let s = reading(&times(0, 0.0, 0.0), Some(64));
        assert!(s[0].starts_with("the same values were added in the same order"));
        assert!(s[0].contains("cost 3.0x the separate array"), "{}", s[0]);
        assert!(s[1].contains("1.04x the same loop in L1"), "{}", s[1]);
        assert!(!s.join(" ").contains("provisional") && !s.join(" ").contains("contention"));
    }

    #[test]
    fn disturbed_rounds_mark_the_reading_and_the_clean_rounds_give_the_ratio() {
        let s = reading(&times(10, 0.5, 0.0), Some(64));
        assert!(
            s[0].starts_with("provisional: 20 of 65 rounds were disturbed (0.50 cores of other work on core 1); the clean rounds give: the same values"),
            "{}",
            s[0]
        );
        // The disturbed rounds (twice as slow) are not in the ratio.
        assert!(s[0].contains("cost 3.0x"), "{}", s[0]);
    }

    #[test]
    fn other_cores_busy_is_named_contention() {
        let s = reading(&times(0, 0.0, 0.8), Some(64));
        assert!(!s[0].starts_with("provisional"));
        assert!(
            s.last().unwrap().starts_with("contention: 0.80 cores"),
            "{s:?}"
        );
    }
}
