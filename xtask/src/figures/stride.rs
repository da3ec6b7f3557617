//! stride's figures.
//!
//! - `stride-cost.svg` is Figure 105.3: the cost of one access by stride (power-of-two
//!   axis) for the appendix's wrapping walk and for the walk that starts each lap on fresh
//!   lines, each with min..max whiskers; the line size the run recorded as a solid grey
//!   vertical; points whose passes disagreed ringed; the appendix's own numbers dashed when
//!   saved; the key ratio, a line-sized stride against stride 1, as a bracket; and a second
//!   bracket for the prefetchers: the fresh-lines walk at 256 bytes (multichase's default)
//!   against the line-sized stride.
//! - `stride-lines.svg`: how many distinct lines each walk really visited, against the number
//!   of lines in the buffer, so the wrap of the wide strides is seen, not only read.
//! - `stride-layout.svg`: array of structs against struct of arrays (and the same sum in L1),
//!   with min..max whiskers and the AoS / SoA ratio.

use super::chart::{
    AxisSpec, Bar, BarChart, BarSeries, Bracket, HLine, LineChart, Marker, Pt, Series, Style,
    Units, color, div, grouped, num, ratio,
};
use super::{
    DrawError, Figure, Reference, Saved, Spread, appendix_reference, need_block, need_nums,
    need_texts, opt_nums,
};
use ::stride::schema as sc;
use measure::data::{Block, DataFile};

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(sc::EXPERIMENT)?;
    let b = need_block(run, sc::stride::BLOCK)?;
    let reference = appendix_reference(saved, sc::EXPERIMENT)?;
    let mut figs = vec![Figure::new(
        "stride-cost.svg",
        cost_chart(run, b, saved, reference.as_ref())?.render()?,
    )];
    // A run that did not know the line size has no line counts: that figure is left out.
    if let Some(lines) = lines_chart(run, b, saved)? {
        figs.push(Figure::new("stride-lines.svg", lines.render()?));
    }
    figs.push(Figure::new(
        "stride-layout.svg",
        layout_chart(run, saved)?.render()?,
    ));
    Ok(figs)
}

fn cost_chart(
    run: &DataFile,
    b: &Block,
    saved: &Saved,
    reference: Option<&Reference>,
) -> Result<LineChart, DrawError> {
    let stride = need_nums(b, sc::stride::STRIDE_BYTES)?;
    use sc::stride::{APPENDIX_MAX_NS, APPENDIX_MIN_NS, APPENDIX_NS};
    use sc::stride::{FRESH_MAX_NS, FRESH_MIN_NS, FRESH_NS};
    let wrap = Spread::read(b, [APPENDIX_NS, APPENDIX_MIN_NS, APPENDIX_MAX_NS])?.points(&stride);
    if wrap.is_empty() {
        return Err(format!("{} has no measured row", super::block_name(b)).into());
    }
    let fresh = Spread::read(b, [FRESH_NS, FRESH_MIN_NS, FRESH_MAX_NS])?.points(&stride);
    let accesses = run
        .meta_num(sc::META_ACCESSES)
        .map_or(String::new(), |a| format!("{} accesses", grouped(a)));
    let buffer = run
        .meta_num(sc::META_BUFFER_BYTES)
        .map_or(String::new(), |b| {
            format!(" over {} MiB", num(b / 1048576.0))
        });
    let mut c = LineChart::new(
        &format!(
            "Figure 105.3: cost per access by stride ({accesses}{buffer}; {})",
            saved.label
        ),
        AxisSpec::log2("stride (bytes, power-of-two scale)", Units::Bytes),
        AxisSpec::log10("time per access (ns, log scale)"),
    );
    c.series.push(Series::new(
        "the appendix's walk (wraps around the buffer)",
        wrap.clone(),
        Style::measured(0, Marker::Dot),
    ));
    c.series_if_any(
        "each lap starts on fresh lines",
        fresh,
        Style::measured(1, Marker::Square),
    );
    c.mark_disturbed(&crate::marks::disturbed_xs(
        run,
        b,
        sc::stride::STRIDE_BYTES,
    ));
    unsettled_rings(&mut c, b, &stride)?;
    if let Some(r) = reference {
        c.series.push(r.series()?);
    }
    c.brackets.extend(prefetch_bracket(run));
    line_size_ratio(&mut c, run, &wrap);
    Ok(c)
}

/// Strides whose passes disagree, ringed.
fn unsettled_rings(c: &mut LineChart, b: &Block, stride: &[Option<f64>]) -> Result<(), DrawError> {
    if let Some(agree) = b.texts(sc::stride::AGREE) {
        let flagged: Vec<Pt> = stride
            .iter()
            .zip(need_nums(b, sc::stride::APPENDIX_NS)?)
            .zip(&agree)
            .filter(|(_, a)| a.as_str() != "yes")
            .filter_map(|((x, y), _)| Some(Pt::new((*x)?, y?)))
            .collect();
        c.rings(
            &format!(
                "unsettled: its passes disagree by over {:.0}%",
                measure::scan::DEFAULT_TOLERANCE * 100.0
            ),
            flagged,
        );
    }
    Ok(())
}

/// The reported line size as a vertical and, where the walk has both, the key ratio: a
/// line-sized stride against stride 1, with stride 1 as a horizontal reference.
fn line_size_ratio(c: &mut LineChart, run: &DataFile, wrap: &[Pt]) {
    let line = run
        .meta_num(sc::META_LINE_BYTES)
        .filter(|l| l.is_finite() && *l > 0.0);
    if let Some(l) = line {
        c.verticals.push(super::line_size(l));
        let at = |x: f64| wrap.iter().find(|p| p.x == x).map(|p| p.y);
        if let (Some(one), Some(full)) = (at(1.0), at(l))
            && let Some(r) = div(full, one)
        {
            c.brackets.push(Bracket {
                x: l,
                y0: one,
                y1: full,
                text: vec![
                    format!("stride {} / stride 1:", num(l)),
                    format!("{} / {} ns = {}", num(full), num(one), ratio(r)),
                ],
            });
            c.hlines.push(HLine {
                y: one,
                label: format!("stride 1: {} ns per access", num(one)),
                color: color(0),
                dash: super::chart::Dash::Short,
            });
        }
    }
}

/// The prefetchers seen from the outside: the fresh-lines walk at 256 bytes against the
/// line-sized stride, from the `prefetch` block (a run without it has no bracket).
fn prefetch_bracket(run: &DataFile) -> Option<Bracket> {
    let b = run.block(sc::prefetch::BLOCK)?;
    let stride = b.nums(sc::prefetch::STRIDE_BYTES)?;
    let ns = b.nums(sc::prefetch::FRESH_NS)?;
    let (Some(Some(line)), Some(Some(wide)), Some(Some(y0)), Some(Some(y1))) =
        (stride.first(), stride.last(), ns.first(), ns.last())
    else {
        return None;
    };
    let r = div(*y1, *y0)?;
    Some(Bracket {
        x: *wide,
        y0: *y0,
        y1: *y1,
        text: vec![
            format!("fresh lines, {} / {} bytes:", num(*wide), num(*line)),
            format!(
                "{} / {} ns = {} (prefetchers)",
                num(*y1),
                num(*y0),
                ratio(r)
            ),
        ],
    })
}

fn lines_chart(run: &DataFile, b: &Block, saved: &Saved) -> Result<Option<LineChart>, DrawError> {
    let stride = need_nums(b, sc::stride::STRIDE_BYTES)?;
    let (Some(wrap), Some(fresh)) = (
        b.nums(sc::stride::APPENDIX_LINES),
        b.nums(sc::stride::FRESH_LINES),
    ) else {
        return Ok(None);
    };
    let pts = |v: &[Option<f64>]| -> Vec<Pt> {
        stride
            .iter()
            .zip(v)
            .filter_map(|(x, y)| Some(Pt::new((*x)?, (*y)?)))
            .collect()
    };
    let (wrap_pts, fresh_pts) = (pts(&wrap), pts(&fresh));
    if wrap_pts.is_empty() {
        return Ok(None);
    }
    let mut c = LineChart::new(
        &format!(
            "Beyond Figure 105.3: distinct cache lines each stride visits ({})",
            saved.label
        ),
        AxisSpec::log2("stride (bytes, power-of-two scale)", Units::Bytes),
        AxisSpec::new(
            "distinct cache lines read (log scale)",
            super::chart::Scale::Log10,
            Units::Count,
        ),
    );
    c.series.push(Series::new(
        "the appendix's walk: wide strides wrap and re-read",
        wrap_pts.clone(),
        Style::measured(0, Marker::Dot),
    ));
    c.series.push(Series::new(
        "each lap on fresh lines",
        fresh_pts.clone(),
        Style::measured(1, Marker::Square),
    ));
    if let (Some(buf), Some(line)) = (
        run.meta_num(sc::META_BUFFER_BYTES),
        run.meta_num(sc::META_LINE_BYTES),
    ) && let Some(n) = div(buf, line)
    {
        c.hlines.push(HLine {
            y: n,
            label: format!("every line of the buffer ({})", grouped(n)),
            color: super::chart::BLACK_C,
            dash: super::chart::Dash::Short,
        });
    }
    // The key ratio at the widest stride: how many more lines the fresh walk visits.
    if let (Some(w), Some(f)) = (
        wrap_pts.iter().max_by(|a, b| a.x.total_cmp(&b.x)),
        fresh_pts.iter().max_by(|a, b| a.x.total_cmp(&b.x)),
    ) && w.x == f.x
        && let Some(r) = div(f.y, w.y)
    {
        c.brackets.push(Bracket {
            x: w.x,
            y0: w.y,
            y1: f.y,
            text: vec![
                format!(
                    "at stride {}:",
                    super::chart::axis::fmt_pow2(w.x.log2().round() as i64, Units::Bytes)
                ),
                format!("fresh / wrapping = {}", ratio(r)),
            ],
        });
    }
    Ok(Some(c))
}

fn layout_chart(run: &DataFile, saved: &Saved) -> Result<BarChart, DrawError> {
    let b = need_block(run, sc::layout::BLOCK)?;
    let names = need_texts(b, sc::layout::LAYOUT)?;
    let ns = need_nums(b, sc::layout::MEDIAN_NS)?;
    let lo = opt_nums(b, sc::layout::MIN_NS);
    let hi = opt_nums(b, sc::layout::MAX_NS);
    let get = |n: &str| {
        names
            .iter()
            .position(|x| x == n)
            .and_then(|i| ns[i].map(|v| Bar::spread(v, lo[i], hi[i])))
    };
    let elements = run
        .meta_num(sc::META_ELEMENTS)
        .map_or(String::new(), |n| format!(" over {} particles", grouped(n)));
    let mut c = BarChart::new(
        &format!(
            "Table 105.10: summing x{elements}, array of structs against struct of arrays ({})",
            saved.label
        ),
        AxisSpec::linear("time per element (ns, median)").starting_at_zero(),
    );
    let struct_bytes = run
        .meta_num(sc::META_STRUCT_BYTES)
        .map_or("a struct".to_string(), |s| format!("{} B structs", num(s)));
    c.categories = vec![
        format!("array of structs (x is 8 B of {struct_bytes})"),
        "x in its own array (every byte fetched is used)".into(),
        "x array in L1 (the addition chain alone)".into(),
    ];
    let (aos, soa) = (get("aos"), get("soa"));
    c.series.push(BarSeries::new(
        "median time per element",
        vec![aos, soa, get("soa_in_l1")],
        color(0),
    ));
    c.mark_disturbed(&crate::marks::disturbed_by(
        run,
        b,
        sc::layout::LAYOUT,
        &["aos", "soa", "soa_in_l1"],
    ));
    c.bracket((0, 0), (0, 1), "AoS / SoA", Bar::over(aos, soa));
    Ok(c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::chart::Dash;
    use crate::figures::draw_twice;
    use std::path::PathBuf;

    const RUN: &str = "\
#META line_bytes 64
#META buffer_bytes 67108864
#META accesses 2000000
#META elements 4194304
#DATA-BEGIN stride
#COLUMNS stride_bytes appendix_ns appendix_min_ns appendix_max_ns fresh_ns appendix_lines fresh_lines agree:text
#DATA 1 0.5 0.49 0.52 0.5 31250 31250 yes
#DATA 64 1.6 1.5 1.7 1.6 1048576 1048576 yes
#DATA 4096 5.4 5.3 5.8 8.7 16384 1048576 no
#DATA-END
#DATA-BEGIN layout
#COLUMNS layout:text median_ns min_ns max_ns
#DATA aos 1.5 1.4 1.6
#DATA soa 0.52 0.5 0.53
#DATA soa_in_l1 0.5 0.49 0.51
#DATA-END
";

    fn saved(text: &str, dir: PathBuf) -> Saved {
        Saved::from_text("stride", text, dir)
    }

    #[test]
    fn draws_three_figures_deterministically() {
        let s = saved(RUN, PathBuf::from("/nonexistent/x"));
        let a = draw_twice(
            draw,
            &s,
            &["stride-cost.svg", "stride-lines.svg", "stride-layout.svg"],
        );
        assert!(a[0].svg.contains("Figure 105.3"));
        assert!(a[0].svg.contains("line 64 B"));
        assert!(a[0].svg.contains("passes disagree"));
        assert!(
            a[0].svg.contains("1.6 / 0.5 ns = 3.20x"),
            "the key ratio from the data"
        );
        assert!(a[1].svg.contains("fresh / wrapping = 64.0x"));
        assert!(a[2].svg.contains("AoS / SoA = 2.88x"));
        assert!(a[2].svg.contains("4,194,304 particles"));
        assert!(a[0].svg.contains("2,000,000 accesses"));
        // Unknown line size: NA line counts, no vertical, and no lines figure.
        let na = RUN
            .replace("#META line_bytes 64", "#META line_bytes unknown")
            .replace(" appendix_lines fresh_lines", "")
            .replace(" 31250 31250 ", " ")
            .replace(" 1048576 1048576 ", " ")
            .replace(" 16384 1048576 ", " ");
        let f = draw(&saved(&na, PathBuf::from("/nonexistent/x"))).unwrap();
        assert_eq!(f.len(), 2);
        assert!(!f[0].svg.contains("line 64 B"));
    }

    #[test]
    fn draws_the_appendix_reference_dashed_when_saved() {
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
        std::fs::remove_dir_all(&root).unwrap();
        assert!(figs[0].svg.contains("as printed in the book"));
        assert!(figs[0].geometry.dashes.contains(&Dash::Long));
    }

    #[test]
    fn missing_blocks_are_named_not_panicked() {
        let s = saved("#META line_bytes 64\n", PathBuf::from("/nonexistent/x"));
        let e = draw(&s).err().unwrap();
        assert!(e.message.contains("\"stride\""), "{e}");
        let no_layout = RUN.split("#DATA-BEGIN layout").next().unwrap();
        let e = draw(&saved(no_layout, PathBuf::from("/nonexistent/x")))
            .err()
            .unwrap();
        assert!(e.message.contains("layout"), "{e}");
    }
}
