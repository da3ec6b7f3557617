//! Everything printed about the layouts (section 4): the sizes, the table, the `layout` block
//! and the sentences. Every sentence branches on this run's numbers.

use crate::layout::{self, PARTICLE_BYTES, USED_BYTES};
use crate::timing::LayoutTimes;
use measure::data::{Block, meta};
use measure::fmt::{bytes, conclude, grouped, say};
use measure::scan::DEFAULT_TOLERANCE;
use measure::stats::Summary;

/// The struct, the line and the two arrays' sizes (human lines and `#META`).
pub fn sizes(n: usize, line: Option<u64>) {
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
    meta(measure::schema::stride::META_ELEMENTS, n);
    meta(measure::schema::stride::META_STRUCT_BYTES, PARTICLE_BYTES);
}

/// The checksums every round returned, the table, and the `layout` block.
pub fn table(t: &LayoutTimes, line: Option<u64>) {
    say(
        &format!(
            "every sum checked: {} rounds x 3 loops; both big arrays returned exactly {}, the \
             small one {} ({} times over {} values).",
            t.rounds, t.want, t.want_small, t.reps, t.small_n
        ),
        "  ",
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
            x.median / t.soa.median
        );
    };
    show(
        "array of structs (AoS), x only",
        &t.aos,
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
        &t.soa,
        line.map_or("all of every line (line size unknown)".into(), |l| {
            format!("{l} of {l}")
        }),
    );
    show(
        &format!("the same over {} KiB of x, in L1", t.small_n * 8 / 1024),
        &t.floor,
        "-".into(),
    );
    let mut b = Block::new(
        measure::schema::stride::layout::BLOCK,
        measure::schema::stride::layout::COLUMNS,
    );
    for (name, x, fetched, used) in [
        ("aos", &t.aos, aos_fetched.map(|b| b as f64), aos_used),
        (
            "soa",
            &t.soa,
            Some(USED_BYTES as f64),
            line.map(|l| l as f64),
        ),
        ("soa_in_l1", &t.floor, None, None),
    ] {
        b.row(vec![
            name.into(),
            x.median.into(),
            x.min.into(),
            x.max.into(),
            (x.median / t.soa.median).into(),
            fetched.into(),
            used.into(),
        ]);
    }
    b.print();
}

/// The sentences: AoS against SoA, SoA against its compute floor, and the reverse case.
pub fn findings(t: &LayoutTimes, line: Option<u64>) {
    let r = t.aos.median / t.soa.median;
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
    println!("\n  how to read this run:");
    if r > 1.0 + DEFAULT_TOLERANCE {
        conclude(&format!(
            "the same values were added in the same order; only the layout changed, and the \
             array of structs cost {r:.1}x the separate array. {brings}"
        ));
    } else if r < 1.0 - DEFAULT_TOLERANCE {
        conclude(&format!(
            "the array of structs was FASTER here ({r:.2}x): not what the bytes predict; look at \
             the rounds."
        ));
    } else {
        conclude(&format!(
            "the two layouts cost the same within {:.0}% ({r:.2}x) on this run. {brings}",
            DEFAULT_TOLERANCE * 100.0
        ));
    }
    let fr = t.soa.median / t.floor.median;
    if fr < 1.0 + DEFAULT_TOLERANCE {
        conclude(&format!(
            "the separate array from memory costs {fr:.2}x the same loop in L1: its speed is set \
             by the chain of dependent additions, not by memory.{}",
            traffic.map_or(String::new(), |t| format!(
                " So the time ratio ({r:.1}x) understates the ratio of bytes moved ({t:.0}x)."
            ))
        ));
    } else {
        conclude(&format!(
            "the separate array from memory costs {fr:.2}x the same loop in L1: memory still \
             shows in it."
        ));
    }
    conclude(
        "the reverse holds too: code that reads several fields of each element uses the whole \
         line of a struct, and then the array of structs is the better layout.",
    );
}
