//! env_scan's figures, from the saved run alone:
//!
//! - `env_scan-deviation.svg`: each environment size's deviation from the median of its pass,
//!   for the forward, backward and shuffled passes, one panel per workload. The y range is
//!   set by the bulk of the points (a few times their 95th percentile), so the small drift
//!   that is the lesson shows; the rare spikes beyond it are drawn as triangles at the edge
//!   and counted in the legend. Each panel says how well the passes agree (Pearson r).
//! - `env_scan-regions.svg`: the median deviation by region of 256 bytes of padding, per
//!   workload and pass, as a heatmap on a diverging palette centred on zero, with its
//!   colour bar.

use super::chart::line::render_panels;
use super::chart::{
    AxisSpec, HLine, Heatmap, LineChart, Marker, Palette, Pt, Series, Style, color, num,
};
use super::{DrawError, Figure, Saved, need_block, need_nums, need_texts};
use ::env_scan::schema as sc;

const EXP: &str = sc::EXPERIMENT;
const PASSES: [&str; 3] = ["forward", "backward", "shuffled"];
/// At most this many workloads are drawn (one panel each).
const MAX_WORKLOADS: usize = 8;

/// The clip limit: the smallest of 5, 10, 20, 50, ... percent at or above 2.5 times the
/// 95th percentile of the absolute deviations.
fn clip_limit(all: &[f64]) -> f64 {
    let mut a: Vec<f64> = all
        .iter()
        .map(|v| v.abs())
        .filter(|v| v.is_finite())
        .collect();
    a.sort_by(f64::total_cmp);
    let p95 = a
        .get(((a.len() as f64 * 0.95) as usize).min(a.len().saturating_sub(1)))
        .copied()
        .unwrap_or(0.0);
    let want = 2.5 * p95;
    let mut lim = 5.0;
    for k in 0..40 {
        for m in [1.0, 2.0, 5.0] {
            let v = m * 10f64.powi(k);
            if v >= 5.0 && v >= want {
                return v;
            }
            lim = v;
        }
    }
    lim
}

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(EXP)?;
    let dev = need_block(run, sc::deviation::BLOCK)?;
    let workloads = need_texts(dev, sc::deviation::WORKLOAD)?;
    let pads = need_nums(dev, sc::deviation::PAD_BYTES)?;
    let corr = run.block(sc::correlation::BLOCK);
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
    let mut panels = Vec::new();
    for name in &names {
        let rows: Vec<usize> = (0..workloads.len())
            .filter(|&i| &workloads[i] == name)
            .collect();
        let all: Vec<f64> = cols
            .iter()
            .flat_map(|c| rows.iter().filter_map(|&i| c[i]))
            .collect();
        let lim = clip_limit(&all);
        let mut c = LineChart::new(
            &panel_title(name, corr, run.meta(&format!("verdict_{name}"))),
            AxisSpec::linear(&format!(
                "environment size PAD (bytes of padding), run {}",
                saved.label
            )),
            AxisSpec::linear("deviation from the pass median (%)"),
        );
        for (k, pass) in PASSES.iter().enumerate() {
            let pts: Vec<Pt> = rows
                .iter()
                .filter_map(|&i| Some(Pt::new(pads[i]?, cols[k][i]?)))
                .collect();
            let style = if *pass == "shuffled" {
                Style::points(k, Marker::Dot)
            } else {
                let mut s = Style::measured(k, Marker::Dot);
                s.marker = None;
                s.width = 1;
                s
            };
            let mut st = style;
            st.size = 2;
            c.series.push(Series::new(format!("{pass} pass"), pts, st));
        }
        let dist = crate::marks::disturbed_rows(run, dev);
        let xs: Vec<f64> = rows
            .iter()
            .filter(|&&i| dist[i])
            .filter_map(|&i| pads[i])
            .collect();
        c.mark_disturbed(&xs);
        c.hlines.push(HLine {
            y: 0.0,
            label: String::new(),
            color: super::chart::BLACK_C,
            dash: super::chart::Dash::Solid,
        });
        c.y_clip = Some((-lim, lim));
        c.width = 1100;
        c.plot_height = 300;
        panels.push(c);
    }
    let title = format!(
        "Does the size of the environment move the timing? Each size's deviation from its pass's median ({})",
        saved.label
    );
    let deviation = Figure::new("env_scan-deviation.svg", render_panels(&title, &panels)?);

    // The regions as a heatmap: one row per workload and pass, one column per region.
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
    for name in &names {
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
            "Median deviation by region of 256 bytes of environment, per workload and pass ({})",
            saved.label
        ),
        Palette::Diverging,
    );
    heat.x_label = "region start (bytes of PAD)".into();
    heat.x_labels = starts.iter().map(|s| num(*s)).collect();
    heat.y_labels = y_labels;
    heat.values = values;
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
    Ok(vec![
        deviation,
        Figure::new("env_scan-regions.svg", heat.render()?),
    ])
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
    fn draws_two_deterministic_figures_with_the_spikes_clipped_and_counted() {
        let a = draw_twice(
            draw,
            &Saved::test(EXP, &sample()),
            &["env_scan-deviation.svg", "env_scan-regions.svg"],
        );
        let d = &a[0].svg;
        assert!(
            d.contains("beyond this axis (1 value: 900)"),
            "the spike is counted"
        );
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
    fn clip_limit_follows_the_bulk() {
        let mut v: Vec<f64> = (0..100).map(|i| (i % 7) as f64 - 3.0).collect();
        v.push(40.0);
        assert_eq!(clip_limit(&v), 10.0);
        assert_eq!(clip_limit(&[0.1, -0.2]), 5.0);
    }

    #[test]
    fn missing_blocks_are_named_not_panicked() {
        let e = draw(&Saved::test(EXP, "#META x 1\n")).err().unwrap();
        assert!(e.message.contains("deviation"), "{e}");
        let only_dev: String = sample().split("#DATA-BEGIN regions").next().unwrap().into();
        let e = draw(&Saved::test(EXP, &only_dev)).err().unwrap();
        assert!(e.message.contains("regions"), "{e}");
    }
}
