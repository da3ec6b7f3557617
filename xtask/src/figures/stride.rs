//! stride's figures.
//!
//! - `stride-cost.svg` is Figure 105.3: the cost of one access by stride (log2 axis), for the
//!   appendix's wrapping walk and for the walk that starts each lap on fresh lines, with a
//!   dashed vertical at the line size recorded in the run's `#META line_bytes`, the points
//!   whose passes disagreed marked, and the appendix's own numbers as a dashed reference
//!   series when a saved copy exists (see [`super::appendix_reference`]).
//! - `stride-lines.svg`: how many distinct lines each walk really visited, against the number
//!   of lines in the buffer, so the wrap of the wide strides is seen, not only read.
//! - `stride-layout.svg`: array of structs against struct of arrays (and the same sum in L1).

use super::chart::{BarChart, LineChart, Mark, Series, Vertical, tick};
use super::{Figure, Saved, appendix_reference, need_block, need_nums};
use measure::data::{Block, DataFile};

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, String> {
    let run = saved.run("stride").ok_or("no stride output")?;
    let b = need_block(run, "stride", "stride")?;
    let reference = appendix_reference(saved, "stride")?;
    let cost = cost_chart(run, b, saved, reference.as_ref())?;
    let layout = layout_chart(run, saved)?;
    let mut figs = vec![Figure {
        file: "stride-cost.svg".into(),
        svg: cost.render()?,
    }];
    // A run that did not know the line size has no line counts: that figure is left out.
    if let Some(lines) = lines_chart(run, b, saved)? {
        figs.push(Figure {
            file: "stride-lines.svg".into(),
            svg: lines.render()?,
        });
    }
    figs.push(Figure {
        file: "stride-layout.svg".into(),
        svg: layout.render()?,
    });
    Ok(figs)
}

/// Tick labels for an axis holding log2 of a byte count: 6 -> "64", 12 -> "4K".
fn pow2_label(v: f64) -> String {
    let r = v.round();
    if (v - r).abs() > 1e-6 || !(0.0..=62.0).contains(&r) {
        return String::new();
    }
    let b = 1u64 << (r as u32);
    if b >= 1 << 20 && b.is_multiple_of(1 << 20) {
        format!("{}M", b >> 20)
    } else if b >= 1024 && b.is_multiple_of(1024) {
        format!("{}K", b >> 10)
    } else {
        b.to_string()
    }
}

/// 2000000.0 -> "2,000,000" (whole numbers; anything else as a tick).
fn grouped(v: f64) -> String {
    if v < 0.0 || v.fract() != 0.0 || v >= 1e15 {
        return tick(v);
    }
    let s = format!("{}", v as u64);
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// `(log2 x, y)` for every row where both are present and positive.
fn log2_points(xs: &[Option<f64>], ys: &[Option<f64>]) -> Vec<(f64, f64)> {
    xs.iter()
        .zip(ys)
        .filter_map(|(x, y)| match (x, y) {
            (Some(x), Some(y)) if *x > 0.0 && *y > 0.0 => Some((x.log2(), *y)),
            _ => None,
        })
        .collect()
}

fn cost_chart(
    run: &DataFile,
    b: &Block,
    saved: &Saved,
    reference: Option<&(String, DataFile)>,
) -> Result<LineChart, String> {
    let stride = need_nums(b, "stride_bytes")?;
    let wrap = need_nums(b, "appendix_ns")?;
    let fresh = need_nums(b, "fresh_ns")?;
    let agree = b
        .texts("agree")
        .ok_or("block \"stride\" has no column \"agree\"")?;
    let wrap_pts = log2_points(&stride, &wrap);
    if wrap_pts.is_empty() {
        return Err("block \"stride\" has no measured row".into());
    }
    let accesses = run
        .meta_num("accesses")
        .map_or(String::new(), |a| format!("{} accesses, ", grouped(a)));
    let buffer = run.meta_num("buffer_bytes").map_or(String::new(), |b| {
        format!("over {} MiB", tick(b / 1048576.0))
    });
    let mut c = LineChart::new(
        &format!(
            "Cost per access by stride ({accesses}{buffer}; {})",
            saved.label
        ),
        "stride (bytes, log2 axis)",
        "time per access (ns, log axis)",
    );
    c.y_log = true;
    c.x_fmt = Some(pow2_label);
    c.series.push(Series::new(
        "appendix's walk (wraps around the buffer)",
        wrap_pts,
        Mark::LinePoints,
        0,
    ));
    c.series.push(Series::new(
        "each lap on fresh lines",
        log2_points(&stride, &fresh),
        Mark::LinePoints,
        1,
    ));
    let flagged: Vec<(f64, f64)> = stride
        .iter()
        .zip(&wrap)
        .zip(&agree)
        .filter(|(_, a)| a.as_str() != "yes")
        .filter_map(|((x, y), _)| match (x, y) {
            (Some(x), Some(y)) if *x > 0.0 && *y > 0.0 => Some((x.log2(), *y)),
            _ => None,
        })
        .collect();
    if !flagged.is_empty() {
        c.series.push(Series::new(
            "passes disagree > 10% (unsettled)",
            flagged,
            Mark::Points,
            6,
        ));
    }
    if let Some((label, f)) = reference {
        let rb = f
            .bare_blocks()
            .next()
            .ok_or_else(|| format!("the appendix's stride output ({label}) has no #DATA block"))?;
        let pts = log2_points(&need_nums(rb, "c1")?, &need_nums(rb, "c2")?);
        c.series
            .push(Series::new(label.clone(), pts, Mark::Dashed, 2));
    }
    match run.meta_num("line_bytes") {
        Some(l) if l > 0.0 => c.verticals.push(Vertical {
            x: l.log2(),
            label: format!("line {} B", tick(l)),
            color: 6,
        }),
        _ => {} // unknown line size: no vertical, the title of the run already says so
    }
    Ok(c)
}

fn lines_chart(run: &DataFile, b: &Block, saved: &Saved) -> Result<Option<LineChart>, String> {
    let stride = need_nums(b, "stride_bytes")?;
    let wrap = need_nums(b, "appendix_lines")?;
    let fresh = need_nums(b, "fresh_lines")?;
    let wrap_pts = log2_points(&stride, &wrap);
    if wrap_pts.is_empty() {
        return Ok(None);
    }
    let mut c = LineChart::new(
        &format!("Distinct lines each stride visits ({})", saved.label),
        "stride (bytes, log2 axis)",
        "distinct cache lines read (log axis)",
    );
    c.y_log = true;
    c.x_fmt = Some(pow2_label);
    c.series.push(Series::new(
        "appendix's walk: wide strides wrap and re-read",
        wrap_pts,
        Mark::LinePoints,
        0,
    ));
    c.series.push(Series::new(
        "each lap on fresh lines",
        log2_points(&stride, &fresh),
        Mark::LinePoints,
        1,
    ));
    let x0 = stride
        .iter()
        .flatten()
        .copied()
        .fold(f64::INFINITY, f64::min);
    let x1 = stride.iter().flatten().copied().fold(0.0, f64::max);
    if let (Some(buf), Some(line)) = (run.meta_num("buffer_bytes"), run.meta_num("line_bytes"))
        && line > 0.0
        && x0.is_finite()
    {
        let n = buf / line;
        c.series.push(Series::new(
            format!("every line of the buffer ({})", grouped(n)),
            vec![(x0.log2(), n), (x1.log2(), n)],
            Mark::Line,
            6,
        ));
    }
    Ok(Some(c))
}

fn layout_chart(run: &DataFile, saved: &Saved) -> Result<BarChart, String> {
    let b = need_block(run, "stride", "layout")?;
    let names = b
        .texts("layout")
        .ok_or("block \"layout\" has no column \"layout\"")?;
    let ns = need_nums(b, "median_ns")?;
    let get = |n: &str| names.iter().position(|x| x == n).and_then(|i| ns[i]);
    let (aos, soa) = (get("aos"), get("soa"));
    let ratio = match (aos, soa) {
        (Some(a), Some(s)) if s > 0.0 => format!(": AoS {:.1}x SoA", a / s),
        _ => String::new(),
    };
    let n = run
        .meta_num("elements")
        .map_or(String::new(), |n| format!(" over {} particles", grouped(n)));
    let mut c = BarChart::new(
        &format!("Summing x{n}{ratio} ({})", saved.label),
        "time per element (ns, median)",
    );
    c.categories = vec![
        "array of structs (8 of 56 bytes used)".into(),
        "x array (all bytes used)".into(),
        "x array in L1 (the addition chain)".into(),
    ];
    c.series.push((
        "median ns per element".into(),
        vec![aos, soa, get("soa_in_l1")],
    ));
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const RUN: &str = "\
#META line_bytes 64
#META buffer_bytes 67108864
#META accesses 2000000
#META elements 4194304
#DATA-BEGIN stride
#COLUMNS stride_bytes appendix_ns fresh_ns appendix_lines fresh_lines agree:text
#DATA 1 0.5 0.5 31250 31250 yes
#DATA 64 1.6 1.6 1048576 1048576 yes
#DATA 4096 5.4 8.7 16384 1048576 no
#DATA-END
#DATA-BEGIN layout
#COLUMNS layout:text median_ns
#DATA aos 1.5
#DATA soa 0.52
#DATA soa_in_l1 0.5
#DATA-END
";

    fn saved(text: &str, dir: PathBuf) -> Saved {
        let mut runs = std::collections::BTreeMap::new();
        runs.insert("stride".to_string(), measure::data::parse(text).unwrap());
        Saved {
            dir,
            label: "test".into(),
            runs,
        }
    }

    #[test]
    fn draws_three_figures_deterministically() {
        let s = saved(RUN, PathBuf::from("/nonexistent/x"));
        let a = draw(&s).unwrap();
        let b = draw(&s).unwrap();
        assert_eq!(a.len(), 3);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.svg, y.svg);
        }
        assert!(a[0].svg.contains("line 64 B"));
        assert!(a[0].svg.contains("passes disagree"));
        assert!(a[2].svg.contains("AoS 2.9x SoA"));
        // Unknown line size: NA line counts, no vertical, and no lines figure.
        let na = RUN
            .replace("#META line_bytes 64", "#META line_bytes unknown")
            .replace(" 31250 31250 ", " NA NA ")
            .replace(" 1048576 1048576 ", " NA NA ")
            .replace(" 16384 1048576 ", " NA NA ");
        let f = draw(&saved(&na, PathBuf::from("/nonexistent/x"))).unwrap();
        assert_eq!(f.len(), 2);
        assert!(!f[0].svg.contains("line 64 B"));
        assert!(a[2].svg.contains("4,194,304 particles"));
        assert!(a[0].svg.contains("2,000,000 accesses"));
    }

    #[test]
    fn draws_the_appendix_reference_when_saved() {
        let root = std::env::temp_dir().join(format!("stride-fig-{}", std::process::id()));
        let book = root.join("appendix-book");
        std::fs::create_dir_all(&book).unwrap();
        std::fs::write(
            book.join("stride.txt"),
            "transcribed\n#DATA-BEGIN\n#DATA 1 0.64\n#DATA 64 3.43\n#DATA 4096 6.76\n#DATA-END\n",
        )
        .unwrap();
        let s = saved(RUN, root.join("label"));
        let figs = draw(&s).unwrap();
        assert!(figs[0].svg.contains("the book"));
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn missing_blocks_are_named_not_panicked() {
        let s = saved("#META line_bytes 64\n", PathBuf::from("/nonexistent/x"));
        let e = draw(&s).err().unwrap();
        assert!(e.contains("\"stride\""), "{e}");
        let no_layout = RUN.split("#DATA-BEGIN layout").next().unwrap();
        let e = draw(&saved(no_layout, PathBuf::from("/nonexistent/x")))
            .err()
            .unwrap();
        assert!(e.contains("layout"), "{e}");
    }

    #[test]
    fn pow2_labels() {
        assert_eq!(pow2_label(0.0), "1");
        assert_eq!(pow2_label(6.0), "64");
        assert_eq!(pow2_label(12.0), "4K");
        assert_eq!(pow2_label(6.5), "");
        assert_eq!(grouped(2_000_000.0), "2,000,000");
        assert_eq!(grouped(64.0), "64");
    }
}
