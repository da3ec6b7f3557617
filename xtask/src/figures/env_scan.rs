//! env_scan's figures, from the saved run alone:
//!
//! - `env_scan-deviation.svg`: one panel per workload. The sizes are grouped in regions of
//!   256 bytes of padding (as in the regions figure); for each region and pass (forward,
//!   backward, shuffled), the median deviation from the pass's median, with the middle half
//!   of the sizes (25th..75th percentile) as its whisker. An effect of the environment shows
//!   as the same region off zero in all three passes; drift shows as one pass off alone. The
//!   largest single deviation is written under each panel rather than drawn, so that a rare
//!   spike does not set the scale. Each panel says how well the passes agree (Pearson r).
//! - `env_scan-regions.svg`: the median deviation by region of 256 bytes of padding, per
//!   workload and pass, as a heatmap on a diverging palette centred on zero, with its
//!   colour bar; a region whose rounds were disturbed is a hollow cell.

use super::chart::line::render_panels;
use super::chart::{
    AxisSpec, HLine, Heatmap, LineChart, Marker, Palette, Pt, Series, Style, color, num,
};
use super::{DrawError, Figure, Saved, need_block, need_nums, need_texts};
use ::env_scan::schema as sc;
use measure::data::{Block, DataFile};

const EXP: &str = sc::EXPERIMENT;
const PASSES: [&str; 3] = ["forward", "backward", "shuffled"];
/// At most this many workloads are drawn (one panel each).
const MAX_WORKLOADS: usize = 8;

/// The width of a region of padding, in bytes (the regions figure's).
const REGION: f64 = 256.0;

/// The `q`-quantile (0..1) of sorted values, by the nearest rank.
fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    sorted.get(((last as f64) * q).round() as usize).copied()
}

/// One pass's deviations grouped by region: per region, a point at the region's place in
/// `starts` (shifted by `dx` so the passes stand side by side) with the median and the
/// 25th..75th percentile.
fn region_points(pads: &[f64], devs: &[f64], starts: &[f64], dx: f64) -> Vec<Pt> {
    let mut regions: Vec<(f64, Vec<f64>)> = Vec::new();
    for (&p, &d) in pads.iter().zip(devs) {
        let start = (p / REGION).floor() * REGION;
        match regions.iter_mut().find(|(s, _)| *s == start) {
            Some((_, v)) => v.push(d),
            None => regions.push((start, vec![d])),
        }
    }
    regions.sort_by(|a, b| a.0.total_cmp(&b.0));
    regions
        .into_iter()
        .filter_map(|(start, mut v)| {
            v.sort_by(f64::total_cmp);
            let at = starts.iter().position(|s| *s == start)?;
            Some(Pt::spread(
                at as f64 + dx,
                quantile(&v, 0.5)?,
                quantile(&v, 0.25),
                quantile(&v, 0.75),
            ))
        })
        .collect()
}

/// "largest single deviation: +44.6% (backward pass, PAD 3040 bytes)".
fn largest(rows: &[(f64, f64, &str)]) -> Option<String> {
    let (p, d, pass) = rows
        .iter()
        .copied()
        .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()))?;
    Some(format!(
        "largest single deviation: {d:+.1}% ({pass} pass, PAD {} bytes), one of {} values; \
         the whiskers hold the middle half of each region's sizes",
        num(p),
        rows.len()
    ))
}

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(EXP)?;
    let dev = need_block(run, sc::deviation::BLOCK)?;
    let workloads = need_texts(dev, sc::deviation::WORKLOAD)?;
    let pads = need_nums(dev, sc::deviation::PAD_BYTES)?;
    let mut names: Vec<String> = Vec::new();
    for w in &workloads {
        if !names.contains(w) && names.len() < MAX_WORKLOADS {
            names.push(w.clone());
        }
    }
    if names.is_empty() {
        return Err(format!("{} is empty", super::block_name(dev)).into());
    }
    let cols: Vec<Vec<Option<f64>>> = PASSES
        .iter()
        .map(|p| need_nums(dev, &sc::deviation::pass_column(p)))
        .collect::<Result<_, _>>()?;
    let d = Deviations {
        saved,
        run,
        dev,
        workloads,
        pads,
        cols,
    };
    let panels: Vec<LineChart> = names.iter().map(|name| d.panel(name)).collect();
    let title = format!(
        "Beyond the appendix: does the size of the environment move the timing? Each pass's \
         deviation from its median, by region of padding ({})",
        saved.label
    );
    let deviation = Figure::new("env_scan-deviation.svg", render_panels(&title, &panels)?);
    Ok(vec![deviation, regions_figure(&d, &names)?])
}

/// The deviation block, read: each row's workload and padding, and each pass's column.
struct Deviations<'a> {
    saved: &'a Saved,
    run: &'a DataFile,
    dev: &'a Block,
    workloads: Vec<String>,
    pads: Vec<Option<f64>>,
    cols: Vec<Vec<Option<f64>>>,
}

impl Deviations<'_> {
    /// One workload's panel: each pass's median deviation by region of padding.
    fn panel(&self, name: &str) -> LineChart {
        let (run, pads) = (self.run, &self.pads);
        let corr = run.block(sc::correlation::BLOCK);
        let rows = self.rows_of(name);
        // The regions measured, in order: the x axis names each and ends at the last.
        let starts = super::distinct(
            &rows
                .iter()
                .map(|&i| pads[i].map(|p| (p / REGION).floor() * REGION))
                .collect::<Vec<_>>(),
            4096,
        );
        let region_names: Vec<String> = starts.iter().map(|s| num(*s)).collect();
        let mut c = LineChart::new(
            &panel_title(name, corr, run.meta(&format!("verdict_{name}"))),
            AxisSpec::categories(
                &format!(
                    "environment size PAD: regions of {} bytes of padding, by their first byte \
                     (run {})",
                    num(REGION),
                    self.saved.label
                ),
                &region_names,
            ),
            AxisSpec::linear("deviation from the pass median (%)"),
        );
        let mut every: Vec<(f64, f64, &str)> = Vec::new();
        for (k, pass) in PASSES.iter().enumerate() {
            let (xs, ys): (Vec<f64>, Vec<f64>) = rows
                .iter()
                .filter_map(|&i| Some((pads[i]?, self.cols[k][i]?)))
                .filter(|(p, d)| p.is_finite() && d.is_finite())
                .unzip();
            every.extend(xs.iter().zip(&ys).map(|(&p, &d)| (p, d, *pass)));
            let dx = (k as f64 - 1.0) * 0.22;
            let mut st = Style::points(k, Marker::Dot);
            st.size = 4;
            c.series.push(Series::new(
                format!("{pass} pass: median of the region"),
                region_points(&xs, &ys, &starts, dx),
                st,
            ));
        }
        c.whisker_label =
            "bars: the middle half of the region's sizes (25th..75th percentile)".into();
        c.mark_disturbed(&self.disturbed_regions(name, &starts));
        c.hlines.push(HLine {
            y: 0.0,
            label: String::new(),
            color: super::chart::BLACK_C,
            dash: super::chart::Dash::Solid,
        });
        c.footer.extend(largest(&every));
        c.width = 1100;
        c.plot_height = 300;
        c
    }

    /// Where workload `name`'s disturbed rows stand: each one's region, once per pass.
    fn disturbed_regions(&self, name: &str, starts: &[f64]) -> Vec<f64> {
        self.disturbed_at(name, starts)
            .into_iter()
            .flat_map(|at| (0..3).map(move |k| at as f64 + (k as f64 - 1.0) * 0.22))
            .collect()
    }

    /// The places in `starts` of the regions holding a disturbed row of workload `name`
    /// ([`crate::marks::disturbed_rows`]), once per row; every region when the workload's
    /// raw passes (`raw/<name>` in the disturbance block) are provisional, since the
    /// deviations are computed from them.
    fn disturbed_at(&self, name: &str, starts: &[f64]) -> Vec<usize> {
        let raw = format!("{}/{name}", sc::raw::BLOCK);
        if crate::marks::provisional(self.run, &raw) {
            return (0..starts.len()).collect();
        }
        let dist = crate::marks::disturbed_rows(self.run, self.dev);
        self.rows_of(name)
            .into_iter()
            .filter(|&i| dist.get(i).copied().unwrap_or(false))
            .filter_map(|i| self.pads.get(i).copied().flatten())
            .filter_map(|p| {
                starts
                    .iter()
                    .position(|s| *s == (p / REGION).floor() * REGION)
            })
            .collect()
    }

    /// The rows of workload `name`.
    fn rows_of(&self, name: &str) -> Vec<usize> {
        (0..self.workloads.len())
            .filter(|&i| self.workloads[i] == name)
            .collect()
    }
}

/// `env_scan-regions.svg`: the regions as a heatmap, one row per workload (of `names`) and
/// pass, one column per region; a cell is hollow when the regions block is provisional or a
/// row of the deviation block in its region was disturbed ([`regions_disturbed`]).
fn regions_figure(d: &Deviations, names: &[String]) -> Result<Figure, DrawError> {
    let (saved, run) = (d.saved, d.run);
    let reg = need_block(run, sc::regions::BLOCK)?;
    let rw = need_texts(reg, sc::regions::WORKLOAD)?;
    let rp = need_texts(reg, sc::regions::PASS)?;
    let start = need_nums(reg, sc::regions::REGION_START_BYTES)?;
    let med = need_nums(reg, sc::regions::MEDIAN_DEVIATION_PCT)?;
    let starts = super::distinct(&start, 256);
    if starts.is_empty() {
        return Err(format!("{} is empty", super::block_name(reg)).into());
    }
    let n = rw.len().min(rp.len()).min(start.len()).min(med.len());
    let mut y_labels = Vec::new();
    let mut values = Vec::new();
    for name in names {
        for pass in PASSES {
            let row: Vec<Option<f64>> = starts
                .iter()
                .map(|s| {
                    (0..n)
                        .find(|&i| &rw[i] == name && rp[i] == pass && start[i] == Some(*s))
                        .and_then(|i| med[i])
                })
                .collect();
            y_labels.push(format!("{name}, {pass}"));
            values.push(row);
        }
    }
    let mut heat = Heatmap::new(
        &format!(
            "Beyond the appendix: median deviation by region of 256 bytes of environment, per \
             workload and pass ({})",
            saved.label
        ),
        Palette::Diverging,
    );
    heat.x_label = "region start (bytes of PAD)".into();
    heat.x_labels = starts.iter().map(|s| num(*s)).collect();
    heat.y_labels = y_labels;
    heat.values = values;
    heat.disturbed = regions_disturbed(d, reg, names, &starts);
    heat.unit = "median deviation (%)".into();
    heat.cell_suffix = "%".into();
    heat.cell_fmt = |v| {
        let r = (v * 10.0).round() / 10.0;
        if r == 0.0 {
            "0.0".into()
        } else {
            format!("{r:+.1}")
        }
    };
    heat.width = 1100;
    heat.row_height = 40;
    heat.caption = vec![
        "blue: faster than the pass's median; red: slower; white: no difference. A real effect of the \
         environment shows in the same region in all three passes."
            .into(),
    ];
    let _ = color(0);
    Ok(Figure::new("env_scan-regions.svg", heat.render()?))
}

/// Per row of the regions heatmap (workload of `names`, then pass) and region of `starts`:
/// whether the cell is drawn hollow. Every cell when the regions block `reg` is provisional;
/// else a workload's regions holding a disturbed row of the deviation block, in every pass
/// (one row of it holds all three passes).
fn regions_disturbed(
    d: &Deviations,
    reg: &Block,
    names: &[String],
    starts: &[f64],
) -> Vec<Vec<bool>> {
    let whole = reg
        .name
        .as_deref()
        .is_some_and(|n| crate::marks::provisional(d.run, n));
    let mut out = Vec::new();
    for name in names {
        let hit = d.disturbed_at(name, starts);
        let row: Vec<bool> = (0..starts.len())
            .map(|k| whole || hit.contains(&k))
            .collect();
        out.extend(std::iter::repeat_n(row, PASSES.len()));
    }
    out
}

/// "copy: agreement between passes (Pearson r) forward/backward +0.37, ...; verdict no effect".
fn panel_title(
    workload: &str,
    corr: Option<&measure::data::Block>,
    verdict: Option<&str>,
) -> String {
    let mut pairs = Vec::new();
    if let Some(c) = corr
        && let (Some(w), Some(a), Some(b), Some(r)) = (
            c.texts(sc::correlation::WORKLOAD),
            c.texts(sc::correlation::PASS_A),
            c.texts(sc::correlation::PASS_B),
            c.nums(sc::correlation::R),
        )
    {
        for i in 0..w.len().min(a.len()).min(b.len()).min(r.len()) {
            if w[i] == workload {
                pairs.push(format!(
                    "{}/{} {}",
                    a[i],
                    b[i],
                    r[i].filter(|v| v.is_finite())
                        .map_or("n/a".to_string(), |r| format!("{r:+.2}"))
                ));
            }
        }
    }
    let mut t = format!("{workload}:");
    if pairs.is_empty() {
        t.push_str(" deviation from the pass median");
    } else {
        t.push_str(&format!(
            " agreement between passes (Pearson r) {}",
            pairs.join(", ")
        ));
    }
    if let Some(v) = verdict {
        t.push_str(&format!("; the run's verdict: {}", v.replace('_', " ")));
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::draw_twice;

    fn sample() -> String {
        let mut s = String::from(
            "#META verdict_copy no_effect\n#DATA-BEGIN deviation\n#COLUMNS pad_bytes workload:text forward_pct backward_pct shuffled_pct passes_agree_10pct:text\n",
        );
        for w in ["copy", "fib"] {
            for k in 0..48 {
                let p = k * 16;
                s.push_str(&format!(
                    "#DATA {p} {w} {} -1.5 0.5 yes\n",
                    (k % 7) as f64 / 4.0
                ));
            }
        }
        s.push_str("#DATA 1024 copy 900 NA 0 no\n#DATA-END\n");
        s.push_str("#DATA-BEGIN correlation\n#COLUMNS workload:text pass_a:text pass_b:text r\n#DATA copy forward backward 0.03\n#DATA-END\n");
        s.push_str("#DATA-BEGIN regions\n#COLUMNS workload:text pass:text region_start_bytes median_deviation_pct\n");
        for w in ["copy", "fib"] {
            for p in PASSES {
                for r in [0, 256, 512, 768] {
                    s.push_str(&format!("#DATA {w} {p} {r} {}\n", r as f64 / 100.0 - 3.0));
                }
            }
        }
        s.push_str("#DATA-END\n");
        s
    }

    #[test]
    fn draws_two_deterministic_figures_with_the_spike_written_not_drawn() {
        let a = draw_twice(
            draw,
            &Saved::test(EXP, &sample()),
            &["env_scan-deviation.svg", "env_scan-regions.svg"],
        );
        let d = &a[0].svg;
        assert!(
            d.contains("largest single deviation: +900.0% (forward pass, PAD 1024 bytes)"),
            "the spike is written"
        );
        assert!(!d.contains("beyond this axis"), "and not drawn at the edge");
        assert!(d.contains("forward/backward +0.03"));
        assert!(d.contains("verdict: no effect"));
        let h = &a[1].svg;
        assert!(h.contains("fib, shuffled") && h.contains("+4.7%"));
        assert!(
            h.contains("median deviation (%)"),
            "a colour bar with units"
        );
    }

    #[test]
    fn regions_give_median_and_quartiles_per_pass() {
        // Region 0..256: sixteen sizes, one spike; region 256..512: two sizes.
        let mut pads: Vec<f64> = (0..16).map(|k| f64::from(k) * 16.0).collect();
        let mut devs: Vec<f64> = (0..16).map(f64::from).collect();
        devs[3] = 900.0;
        pads.extend([256.0, 272.0]);
        devs.extend([-2.0, -4.0]);
        let pts = region_points(&pads, &devs, &[0.0, 256.0], 0.25);
        assert_eq!(pts.len(), 2);
        assert_eq!(
            (pts[0].x, pts[1].x),
            (0.25, 1.25),
            "the region's place, shifted by dx"
        );
        // Sorted: 0 1 2 4 5 ... 15 900 (nearest ranks 4, 8, 11): the spike moves no quartile.
        assert_eq!(
            (pts[0].lo, pts[0].y, pts[0].hi),
            (Some(5.0), 9.0, Some(12.0))
        );
        assert_eq!(pts[1].y, -2.0);
        let rows: Vec<(f64, f64, &str)> = vec![(16.0, -3.0, "forward"), (48.0, 900.0, "shuffled")];
        let l = largest(&rows).unwrap();
        assert!(l.starts_with("largest single deviation: +900.0% (shuffled pass, PAD 48 bytes)"));
    }

    #[test]
    fn missing_blocks_are_named_not_panicked() {
        let e = draw(&Saved::test(EXP, "#META x 1\n")).err().unwrap();
        assert!(e.message.contains("deviation"), "{e}");
        let only_dev: String = sample().split("#DATA-BEGIN regions").next().unwrap().into();
        let e = draw(&Saved::test(EXP, &only_dev)).err().unwrap();
        assert!(e.message.contains("regions"), "{e}");
    }

    /// The hollow cells a heatmap drew (each has a grey-edged white inside), less the
    /// legend's sample.
    fn hollow_cells(svg: &str) -> usize {
        let n = svg.matches("fill=\"none\" stroke=\"#6E6E6E\"/>").count();
        n.saturating_sub(usize::from(svg.contains(crate::marks::LEGEND)))
    }

    #[test]
    fn provisional_regions_are_hollow_cells() {
        let draw_both = |t: &str| {
            let f = draw(&Saved::test(EXP, t)).unwrap();
            (f[0].svg.clone(), f[1].svg.clone())
        };
        let (dev, reg) = draw_both(&sample());
        assert!(!dev.contains(crate::marks::LEGEND) && !reg.contains(crate::marks::LEGEND));
        assert_eq!(hollow_cells(&reg), 0);
        // The regions block provisional: every cell, 2 workloads x 3 passes x 4 regions.
        let block = |name: &str| crate::marks::tests::block_text(&[(name, 9, 5, true, false)]);
        let (dev, reg) = draw_both(&format!("{}{}", sample(), block("regions")));
        assert!(!dev.contains(crate::marks::LEGEND));
        assert_eq!(reg.matches(crate::marks::LEGEND).count(), 1);
        assert_eq!(hollow_cells(&reg), 24);
        // One disturbed row of the deviation block (copy, PAD 272): its region, all passes.
        let rows = sample()
            .replace(
                "passes_agree_10pct:text\n",
                "passes_agree_10pct:text rounds disturbed_rounds\n",
            )
            .replace(" yes\n", " yes 3 0\n")
            .replace(" no\n", " no 3 0\n")
            .replacen(
                "#DATA 272 copy 0.75 -1.5 0.5 yes 3 0\n",
                "#DATA 272 copy 0.75 -1.5 0.5 yes 3 3\n",
                1,
            );
        assert!(rows.contains(" yes 3 3\n"));
        let (dev, reg) = draw_both(&rows);
        assert!(
            dev.contains(crate::marks::LEGEND),
            "the line panel marks it too"
        );
        assert_eq!(reg.matches(crate::marks::LEGEND).count(), 1);
        assert_eq!(hollow_cells(&reg), 3);
        // The copy workload's raw passes provisional: its 3 passes x 4 regions, in both figures.
        let (dev, reg) = draw_both(&format!("{}{}", sample(), block("raw/copy")));
        assert!(dev.contains(crate::marks::LEGEND));
        assert_eq!(hollow_cells(&reg), 12);
    }
}
