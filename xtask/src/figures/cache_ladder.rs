//! cache_ladder's figures. `cache_ladder-latency.svg` is the book's Figure 105.2: time for one
//! read by working set, on a power-of-two size axis and a log time axis. `cache_ladder-mlp.svg`
//! (section 6, beyond the appendix) is the time per load by independent chains, per set.
//!
//! Drawn: the random index chase (the appendix's method, hollow squares), the pointer chase
//! (one load per step, filled dots), the same chase on huge pages, and the sequential sweeps,
//! each point with its min..max whisker; the appendix's own numbers as black dashed series
//! when saved; the cache sizes the machine reports as solid grey verticals and the knees the
//! run read from its pointer-chase curve as dotted verticals of that curve's colour, each kind
//! with its own legend entry and labelled above the plot; points whose passes disagreed
//! ringed; and the ladder's key ratio, largest working set over smallest (the key figure
//! `ladder_factor`: the index chase), as a bracket.

use super::chart::{
    AxisSpec, Bracket, LineChart, Marker, Pt, Series, Style, Units, Vertical, VerticalKind, color,
    kib_label, ratio,
};
use super::{DrawError, Figure, Saved, appendix_reference, need_block, need_nums, opt_nums};
use ::cache_ladder::schema::key::LADDER_FACTOR;
use ::cache_ladder::schema::{EXPERIMENT, META_HUGE_BACKING_PCT, knees, latency as l};
use measure::data::{Block, DataFile};

/// Palette indices of the series, kept stable across figures.
const INDEX: usize = 0;
const POINTER: usize = 1;
const SEQ: usize = 2;
const HUGE: usize = 3;
const SEQ_VEC: usize = 8;

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(EXPERIMENT)?;
    let b = need_block(run, l::BLOCK)?;
    let kib = need_nums(b, l::KIB)?;
    let index = spread_series(
        b,
        &kib,
        [l::INDEX_NS, l::INDEX_MIN_NS, l::INDEX_MAX_NS],
        true,
    )?;
    if index.is_empty() {
        return Err(format!("{} has no measured row", super::block_name(b)).into());
    }
    let pointer = spread_series(
        b,
        &kib,
        [l::POINTER_NS, l::POINTER_MIN_NS, l::POINTER_MAX_NS],
        true,
    )?;
    let mut c = LineChart::new(
        &format!(
            "Figure 105.2: time for one read by working set ({})",
            saved.label
        ),
        AxisSpec::log2("working set (bytes, power-of-two scale)", Units::KiB),
        AxisSpec::log10("time per read (ns, log scale)"),
    );
    c.width = 1000;
    c.plot_height = 470;
    let mut pointer_style = Style::measured(POINTER, Marker::Dot);
    pointer_style.width = 3;
    c.series.push(Series::new(
        "pointer chase p = *p (one load per step)",
        pointer.clone(),
        pointer_style,
    ));
    let mut index_style = Style::measured(INDEX, Marker::HollowSquare);
    index_style.width = 1;
    c.series.push(Series::new(
        "index chase p = next[p] (the appendix's method)",
        index.clone(),
        index_style,
    ));
    sweep_series(&mut c, run, b, &kib)?;
    appendix_series(&mut c, saved)?;
    c.mark_disturbed(&crate::marks::disturbed_xs(run, b, l::KIB));
    // Points whose passes or rounds disagree: ringed, so nobody reads a step into them.
    if let Some(stable) = b.texts(l::STABLE) {
        let unstable: Vec<Pt> = pointer
            .iter()
            .zip(kib.iter().zip(&stable))
            .filter(|(_, (_, s))| s.as_str() == "no")
            .map(|(p, _)| Pt::new(p.x, p.y))
            .collect();
        c.rings(
            "unstable: its passes or rounds disagree (no knee read there)",
            unstable,
        );
    }
    cache_sizes(&mut c, run);
    knee_lines(&mut c, run);
    key_ratio(&mut c, run, &index);
    let mut figs = vec![Figure::new("cache_ladder-latency.svg", c.render()?)];
    if let Some(m) = mlp_chart(run, saved)? {
        figs.push(Figure::new("cache_ladder-mlp.svg", m.render()?));
    }
    Ok(figs)
}

/// A series with its whiskers, by working set; an optional column missing means "not
/// drawn".
fn spread_series(
    b: &Block,
    kib: &[Option<f64>],
    [col, min, max]: [&str; 3],
    required: bool,
) -> Result<Vec<Pt>, DrawError> {
    let v = if required {
        need_nums(b, col)?
    } else {
        opt_nums(b, col)
    };
    let lo = opt_nums(b, min);
    let hi = opt_nums(b, max);
    Ok((0..kib.len())
        .filter_map(|i| Some(Pt::spread(kib[i]?, v[i]?, lo[i], hi[i])))
        .collect())
}

/// The pointer chase on huge pages and the sequential sweeps, where the run measured them.
fn sweep_series(
    c: &mut LineChart,
    run: &DataFile,
    b: &Block,
    kib: &[Option<f64>],
) -> Result<(), DrawError> {
    let huge = spread_series(b, kib, [l::HUGE_NS, l::HUGE_MIN_NS, l::HUGE_MAX_NS], false)?;
    if !huge.is_empty() {
        let pct = run
            .meta_num(META_HUGE_BACKING_PCT)
            .map_or("backing unknown".to_string(), |p| {
                format!("{}% backed, verified", super::chart::num(p))
            });
        c.series.push(Series::new(
            format!("pointer chase on huge pages ({pct})"),
            huge,
            Style::measured(HUGE, Marker::Diamond),
        ));
    }
    let seq = spread_series(b, kib, [l::SEQ_NS, l::SEQ_MIN_NS, l::SEQ_MAX_NS], false)?;
    c.series_if_any(
        "sequential, one add per word (the appendix's sweep)",
        seq,
        Style::measured(SEQ, Marker::Triangle),
    );
    // The vectorised sweep arrived after the first saved runs: drawn when present.
    let vec = spread_series(
        b,
        kib,
        [l::SEQ_VEC_NS, l::SEQ_VEC_MIN_NS, l::SEQ_VEC_MAX_NS],
        false,
    )?;
    c.series_if_any(
        "sequential, vectorised sum",
        vec,
        Style::measured(SEQ_VEC, Marker::Dot),
    );
    Ok(())
}

/// The appendix's own output: bare blocks `kib random_ns seq_ns where`.
fn appendix_series(c: &mut LineChart, saved: &Saved) -> Result<(), DrawError> {
    let Some(r) = appendix_reference(saved, EXPERIMENT)? else {
        return Ok(());
    };
    let rnd = r.first_points()?;
    c.series.push(Series::new(
        format!("{}: random", r.label),
        rnd,
        Style::reference(),
    ));
    let seq = r.points("c3").unwrap_or_default();
    if !seq.is_empty() {
        let mut s = Style::reference();
        s.marker = Some(Marker::Triangle);
        s.size = 3;
        c.series
            .push(Series::new(format!("{}: sequential", r.label), seq, s));
    }
    Ok(())
}

/// The cache sizes the machine reports, as vertical lines.
fn cache_sizes(c: &mut LineChart, run: &DataFile) {
    for (key, name) in [
        ("l1d_size_bytes", "L1d"),
        ("l2_size_bytes", "L2"),
        ("l3_size_bytes", "L3"),
        ("l4_size_bytes", "L4"),
    ] {
        if let Some(bytes) = run.meta_num(key).filter(|v| v.is_finite() && *v > 0.0) {
            let k = bytes / 1024.0;
            c.verticals.push(Vertical {
                x: k,
                label: format!("{name} {}", kib_label(k)),
                kind: VerticalKind::Reported,
                legend: "cache size the machine reports".into(),
            });
        }
    }
}

/// The boundaries read from the pointer chase's curve: a level ends between the two sizes
/// of a knee, so its line stands halfway between them on the log2 axis.
fn knee_lines(c: &mut LineChart, run: &DataFile) {
    let Some(kn) = run.block(knees::BLOCK) else {
        return;
    };
    let kinds = kn.texts(knees::KIND).unwrap_or_default();
    let which = kn.texts(knees::SERIES).unwrap_or_default();
    let from = opt_nums(kn, knees::FROM_KIB);
    let to = opt_nums(kn, knees::TO_KIB);
    for i in 0..kinds.len().min(which.len()) {
        if kinds[i] == "knee"
            && which[i] == "pointer"
            && let (Some(f), Some(t)) = (from[i], to[i])
            && f > 0.0
            && t > 0.0
        {
            c.verticals.push(Vertical {
                x: (f * t).sqrt(),
                label: format!("knee {}-{}", kib_label(f), kib_label(t)),
                kind: VerticalKind::Knee(color(POINTER)),
                legend: "knee read from the pointer chase's curve".into(),
            });
        }
    }
}

/// The key ratio, largest working set over smallest, as the key figure `ladder_factor`
/// defines it: the index chase (the appendix's method), its saved value where there is one.
fn key_ratio(c: &mut LineChart, run: &DataFile, index: &[Pt]) {
    if let Some((a, z)) = super::ends(index, |p| p.x > 0.0 && p.y > 0.0 && p.y.is_finite())
        && let Some(r) = super::key_or(run, LADDER_FACTOR, super::chart::div(z.y, a.y))
    {
        c.brackets.push(Bracket {
            x: z.x,
            y0: a.y,
            y1: z.y,
            text: vec![
                format!("index chase, {} / {}:", kib_label(z.x), kib_label(a.x)),
                format!(
                    "{} ns / {} ns",
                    super::chart::num(z.y),
                    super::chart::num(a.y)
                ),
                format!("= {}", ratio(r)),
            ],
        });
    }
}

/// Memory-level parallelism (section 6): time per load by the number of independent chains,
/// one line per working set, with min..max whiskers; the bracket gives, for the last set (the
/// memory), the loads in flight with the most chains. A run without the `mlp` block has none.
fn mlp_chart(run: &measure::data::DataFile, saved: &Saved) -> Result<Option<LineChart>, DrawError> {
    use ::cache_ladder::schema::mlp as m;
    let Some(b) = run.block(m::BLOCK) else {
        return Ok(None);
    };
    let level = b.texts(m::LEVEL).ok_or("mlp has no level column")?;
    let chains = need_nums(b, m::CHAINS)?;
    let (step, lo, hi) = (
        need_nums(b, m::STEP_NS)?,
        opt_nums(b, m::STEP_MIN_NS),
        opt_nums(b, m::STEP_MAX_NS),
    );
    let flight = opt_nums(b, m::IN_FLIGHT);
    let mut c = LineChart::new(
        &format!(
            "Beyond the appendix: memory-level parallelism, time per load by independent \
             chains ({})",
            saved.label
        ),
        AxisSpec::log2("independent chains walked at once", Units::Plain),
        AxisSpec::log10("time per load (ns, log scale)"),
    );
    let mut names: Vec<&String> = level.iter().collect();
    names.dedup();
    for (k, name) in names.iter().enumerate() {
        let rows: Vec<usize> = (0..level.len()).filter(|&i| &level[i] == *name).collect();
        let pts: Vec<Pt> = rows
            .iter()
            .filter_map(|&i| {
                let n = chains[i]?;
                let per = |v: Option<f64>| v.map(|v| v / n);
                Some(Pt::spread(n, step[i]? / n, per(lo[i]), per(hi[i])))
            })
            .collect();
        c.series_if_any(name, pts.clone(), Style::measured(k, Marker::Dot));
        if k + 1 == names.len()
            && let (Some(first), Some(last), Some(&i)) = (pts.first(), pts.last(), rows.last())
            && let Some(f) = flight[i]
        {
            c.brackets.push(Bracket {
                x: last.x,
                y0: first.y,
                y1: last.y,
                text: vec![
                    format!("{name}, {} chains:", last.x),
                    format!("{:.1} loads in flight", f),
                ],
            });
        }
    }
    c.mark_disturbed(&crate::marks::disturbed_xs(run, b, m::CHAINS));
    Ok(Some(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::draw_twice;

    const RUN: &str = "\
#META l1d_size_bytes 49152 sysfs
#META l3_size_bytes unknown
#META huge_backing_pct 100.0
#DATA-BEGIN latency
#COLUMNS kib index_ns index_min_ns index_max_ns pointer_ns seq_ns seq_vec_ns huge_ns stable:text
#DATA 4 1.3 1.2 1.4 1.0 0.3 0.1 1.0 yes
#DATA 64 2.0 1.9 2.2 1.7 0.3 0.1 NA no
#DATA 4096 90 80 95 80 0.3 0.2 60 yes
#DATA-END
#DATA-BEGIN knees
#COLUMNS series:text kind:text from_kib to_kib
#DATA pointer knee 32 64
#DATA huge knee 1024 2048
#DATA-END
";

    #[test]
    fn draws_series_verticals_knees_and_the_ratio_deterministically() {
        let s = Saved::test("cache_ladder", RUN);
        let a = draw_twice(draw, &s, &["cache_ladder-latency.svg"]);
        let svg = &a[0].svg;
        assert!(svg.contains("L1d 48K"));
        assert!(!svg.contains("L3 "), "an unknown size draws no vertical");
        assert!(svg.contains("knee 32K-64K"));
        assert!(
            !svg.contains("1M-2M"),
            "only the pointer chase's knees are marked"
        );
        assert!(svg.contains("knee read from the pointer chase"));
        assert!(svg.contains("cache size the machine reports"));
        assert!(svg.contains("100% backed"));
        assert!(svg.contains("unstable"));
        assert!(svg.contains("vectorised"));
        assert!(
            svg.contains("= 69.2x") && svg.contains("index chase, 4M / 4K:"),
            "the ratio is computed from the data"
        );
        assert!(svg.contains("min..max"), "whiskers are explained");
    }

    #[test]
    fn optional_columns_missing_are_not_drawn() {
        let text = RUN
            .replace(" seq_ns seq_vec_ns huge_ns", "")
            .replace(" 0.3 0.1 1.0 yes", " yes")
            .replace(" 0.3 0.1 NA no", " no")
            .replace(" 0.3 0.2 60 yes", " yes");
        let svg = &draw(&Saved::test("cache_ladder", &text)).unwrap()[0].svg;
        assert!(!svg.contains("vectorised") && !svg.contains("sequential"));
    }

    #[test]
    fn the_mlp_block_draws_its_own_figure_with_the_loads_in_flight() {
        let mlp = "#DATA-BEGIN mlp
#COLUMNS level:text kib chains step_ns step_min_ns step_max_ns in_flight
#DATA L2 512 1 4.0 3.9 4.1 1.0
#DATA L2 512 16 6.0 5.9 6.1 10.7
#DATA memory 131072 1 100 99 101 1.0
#DATA memory 131072 16 160 150 170 10.0
#DATA-END
";
        let s = Saved::test("cache_ladder", &format!("{RUN}{mlp}"));
        let figs = draw(&s).unwrap();
        assert_eq!(figs.len(), 2);
        let svg = &figs[1].svg;
        assert_eq!(figs[1].file, "cache_ladder-mlp.svg");
        assert!(svg.contains("10.0 loads in flight"), "from the memory row");
        assert!(svg.contains("memory") && svg.contains("L2"));
        assert!(
            !svg.contains(crate::marks::LEGEND),
            "a run without evidence is not marked"
        );
        // A provisional mlp block draws its points hollow, with the legend entry.
        let marked = format!(
            "{RUN}{mlp}{}",
            crate::marks::tests::block_text(&[("mlp", 77, 0, true, false)])
        );
        let figs = draw(&Saved::test("cache_ladder", &marked)).unwrap();
        assert!(
            figs[1].svg.contains(crate::marks::LEGEND),
            "{}",
            figs[1].svg
        );
        // Without the block, only Figure 105.2.
        assert_eq!(draw(&Saved::test("cache_ladder", RUN)).unwrap().len(), 1);
    }

    #[test]
    fn missing_block_is_an_error_naming_it() {
        let s = Saved::test("cache_ladder", "#META x 1\n");
        let e = draw(&s).err().unwrap();
        assert!(e.message.contains("latency"), "{e}");
    }
}
