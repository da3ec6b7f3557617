//! Everything printed about the layouts (section 4): the sizes, the table and the `layout`
//! block. The sentences are [`crate::verdict::layout_verdict`]'s.

use crate::layout::{self, PARTICLE_BYTES, USED_BYTES};
use crate::timing::{self, LayoutTimes};
use measure::data::Block;
use measure::fmt::{bytes, grouped, say};
use measure::out::Out;
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
