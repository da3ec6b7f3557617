//! cache_ladder's figure, the book's Figure 105.2: time for one read by working set, on a
//! log2 size axis and a log time axis. The random index chase (the appendix's method), the
//! pointer chase (one load per step), the same chase on huge pages, and the sequential
//! sweeps (one add per word as in the appendix, and vectorised); dashed verticals at the cache sizes the machine reports; the boundaries the run
//! read from its own curve marked as verticals of the pointer chase's colour, and its
//! unstable points ringed; and, when saved, the appendix's own numbers as dashed series.
//!
//! The x axis is drawn as log2 of the size in KiB on a linear scale, so that its ticks fall
//! on powers of two (4K, 16K, 64K, ...) as the working sets do, rather than on powers of ten.

use super::chart::{LineChart, Mark, Series, Vertical, kib_label};

/// x position of a size in KiB: its base-2 logarithm.
fn lx(kib: f64) -> f64 {
    kib.log2()
}

/// Tick text for an x position: the size it stands for ("4K", "1M").
fn size_tick(x: f64) -> String {
    kib_label(2f64.powf(x).round())
}
use super::{Figure, Saved, appendix_reference, need_block, need_nums};

/// Colours (palette indices) of the series, kept stable across figures.
const INDEX: usize = 0;
const POINTER: usize = 1;
const SEQ: usize = 2;
const HUGE: usize = 3;
const REFERENCE: usize = 4;
const MARKS: usize = 6;
const SEQ_VEC: usize = 8;

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, String> {
    let run = saved.run("cache_ladder").ok_or("no cache_ladder output")?;
    let b = need_block(run, "cache_ladder", "latency")?;
    let kib = need_nums(b, "kib")?;
    let series = |col: &str| -> Result<Vec<(f64, f64)>, String> {
        Ok(kib
            .iter()
            .zip(need_nums(b, col)?)
            .filter_map(|(k, v)| Some((lx((*k)?), v?)))
            .collect())
    };
    let index = series("index_ns")?;
    if index.is_empty() {
        return Err("the latency block has no rows".into());
    }
    let pointer = series("pointer_ns")?;
    let mut c = LineChart::new(
        &format!(
            "Figure 105.2: time for one read by working set ({})",
            saved.label
        ),
        "working set (log2 scale)",
        "time per read (ns, log scale)",
    );
    c.y_log = true;
    c.x_fmt = Some(size_tick);
    c.vertical_labels_low = true;
    c.series.push(Series::new(
        "index chase p = next[p] (appendix)",
        index,
        Mark::LinePoints,
        INDEX,
    ));
    c.series.push(Series::new(
        "pointer chase p = *p",
        pointer.clone(),
        Mark::LinePoints,
        POINTER,
    ));
    let huge = series("huge_ns")?;
    if !huge.is_empty() {
        let pct = run
            .meta_num("huge_backing_pct")
            .map_or("backing unknown".to_string(), |p| format!("{p:.0}% backed"));
        c.series.push(Series::new(
            format!("pointer chase, huge pages ({pct})"),
            huge,
            Mark::LinePoints,
            HUGE,
        ));
    }
    c.series.push(Series::new(
        "sequential, one add per word (appendix)",
        series("seq_ns")?,
        Mark::LinePoints,
        SEQ,
    ));
    // The vectorised sweep arrived after the first saved runs: drawn when present.
    if b.col_index("seq_vec_ns").is_some() {
        c.series.push(Series::new(
            "sequential, vectorised sum",
            series("seq_vec_ns")?,
            Mark::Line,
            SEQ_VEC,
        ));
    }

    // Points whose passes or rounds disagree: ringed, so nobody reads a step into them.
    if let Some(stable) = b.texts("stable") {
        let unstable: Vec<(f64, f64)> = kib
            .iter()
            .zip(need_nums(b, "pointer_ns")?)
            .zip(stable)
            .filter(|(_, s)| s == "no")
            .filter_map(|((k, v), _)| Some((lx((*k)?), v?)))
            .collect();
        if !unstable.is_empty() {
            c.series.push(Series::new(
                "unstable point (no knee read)",
                unstable,
                Mark::Points,
                MARKS,
            ));
        }
    }

    // The appendix's own output: bare blocks `kib random_ns seq_ns where`.
    if let Some((label, f)) = appendix_reference(saved, "cache_ladder")? {
        let blk = f
            .bare_blocks()
            .next()
            .ok_or_else(|| format!("the appendix reference ({label}) has no #DATA block"))?;
        let pick = |col: &str| -> Vec<(f64, f64)> {
            match (blk.nums("c1"), blk.nums(col)) {
                (Some(x), Some(y)) => x
                    .into_iter()
                    .zip(y)
                    .filter_map(|(x, y)| Some((lx(x?), y?)))
                    .collect(),
                _ => Vec::new(),
            }
        };
        let (rnd, seq) = (pick("c2"), pick("c3"));
        if rnd.is_empty() {
            return Err(format!(
                "the appendix reference ({label}) has no numeric columns 1 and 2"
            ));
        }
        c.series.push(Series::new(
            format!("{label}: random"),
            rnd,
            Mark::Dashed,
            REFERENCE,
        ));
        if !seq.is_empty() {
            c.series.push(Series::new(
                format!("{label}: sequential"),
                seq,
                Mark::Dashed,
                REFERENCE + 1,
            ));
        }
    }

    // Dashed verticals at the reported cache sizes (named in the axis title too, since the
    // legend can cover a label drawn at the top left).
    let mut reported = Vec::new();
    for (key, name) in [
        ("l1d_size_bytes", "L1d"),
        ("l2_size_bytes", "L2"),
        ("l3_size_bytes", "L3"),
        ("l4_size_bytes", "L4"),
    ] {
        if let Some(bytes) = run.meta_num(key) {
            let k = bytes / 1024.0;
            reported.push(format!("{name} {}", kib_label(k)));
            c.verticals.push(Vertical {
                x: lx(k),
                label: format!("{name} {} (reported)", kib_label(k)),
                color: MARKS,
            });
        }
    }
    // The boundaries read from the pointer chase's curve: a level ends between the two sizes
    // of a knee, so its vertical stands halfway between them on the log2 axis.
    let mut knees = Vec::new();
    if let Some(kn) = run.block("knees") {
        let kinds = kn.texts("kind").unwrap_or_default();
        let which = kn.texts("series").unwrap_or_default();
        let from = need_nums(kn, "from_kib")?;
        let to = need_nums(kn, "to_kib")?;
        for i in 0..kinds.len() {
            if kinds[i] == "knee"
                && which[i] == "pointer"
                && let (Some(f), Some(t)) = (from[i], to[i])
            {
                knees.push(format!("{}-{}", kib_label(f), kib_label(t)));
                c.verticals.push(Vertical {
                    x: (lx(f) + lx(t)) / 2.0,
                    // Unlabelled: a knee that agrees with a reported size would print its
                    // label over that size's; the axis title says what these lines are.
                    label: String::new(),
                    color: POINTER,
                });
            }
        }
    }
    let knees = if knees.is_empty() {
        "no knee read".to_string()
    } else {
        format!(
            "knees read from the curve (pointer chase colour): {}",
            knees.join(", ")
        )
    };
    c.x_label = if reported.is_empty() {
        format!("working set (log2 scale); no cache sizes reported; {knees}")
    } else {
        format!(
            "working set (log2 scale); dashed black: reported {}; {knees}",
            reported.join(", ")
        )
    };
    c.size = (1000, 640);
    Ok(vec![Figure {
        file: "cache_ladder-latency.svg".into(),
        svg: c.render()?,
    }])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn saved(text: &str) -> Saved {
        Saved::from_text(
            "cache_ladder",
            text,
            PathBuf::from("/nonexistent/results/test"),
        )
    }

    const RUN: &str = "\
#META l1d_size_bytes 49152 sysfs
#META l3_size_bytes unknown
#META huge_backing_pct 100.0
#DATA-BEGIN latency
#COLUMNS kib index_ns pointer_ns seq_ns seq_vec_ns huge_ns stable:text
#DATA 4 1.3 1.0 0.3 0.1 1.0 yes
#DATA 64 2.0 1.7 0.3 0.1 NA no
#DATA 4096 90 80 0.3 0.2 60 yes
#DATA-END
#DATA-BEGIN knees
#COLUMNS series:text kind:text from_kib to_kib
#DATA pointer knee 32 64
#DATA huge knee 1024 2048
#DATA-END
";

    #[test]
    fn draws_series_verticals_and_knees_deterministically() {
        let s = saved(RUN);
        let a = draw(&s).unwrap();
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].file, "cache_ladder-latency.svg");
        let svg = &a[0].svg;
        assert!(svg.contains("L1d 48K (reported)"));
        assert!(!svg.contains("L3 "), "an unknown size draws no vertical");
        assert!(svg.contains("knees read from the curve (pointer chase colour): 32K-64K"));
        assert!(
            !svg.contains("1M-2M"),
            "only the pointer chase's knees are marked"
        );
        assert!(svg.contains("100% backed"));
        assert!(svg.contains("unstable"));
        assert!(svg.contains("vectorised"));
        assert_eq!(draw(&s).unwrap()[0].svg, *svg);
    }

    #[test]
    fn missing_block_is_an_error_naming_it() {
        let s = saved("#META x 1\n");
        let e = draw(&s).err().unwrap();
        assert!(e.contains("latency"), "{e}");
    }
}
