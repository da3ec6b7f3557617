//! env_scan's figures, from the saved run alone:
//!
//! - `env_scan-deviation.svg`: each environment size's deviation from the median of its pass,
//!   for the forward, backward and shuffled passes, one panel per workload. Where the passes
//!   agree the three marks lie on each other; where the machine drifted they do not.
//! - `env_scan-regions.svg`: the median deviation by region of 256 bytes of padding, per
//!   workload and pass, as a heatmap (the table the program prints, in colour).

use super::chart::{Heatmap, LineChart, Mark, Series, render_panels};
use super::{Figure, Saved, need_block, need_nums};

const EXP: &str = "env_scan";
const PASSES: [&str; 3] = ["forward", "backward", "shuffled"];
/// Deviations beyond these are drawn at the edge (and counted in the panel title), so that
/// one outlier does not flatten every other point.
const CLIP_HI: f64 = 150.0;
const CLIP_LO: f64 = -60.0;

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, String> {
    let run = saved.run(EXP).ok_or("no env_scan output")?;
    let dev = need_block(run, EXP, "deviation")?;
    let workloads = dev
        .texts("workload")
        .ok_or("block \"deviation\" has no column \"workload\"")?;
    let pads = need_nums(dev, "pad_bytes")?;
    let corr = run.block("correlation");

    // One panel per workload, in the order they appear.
    let mut names: Vec<String> = Vec::new();
    for w in &workloads {
        if !names.contains(w) {
            names.push(w.clone());
        }
    }
    if names.is_empty() {
        return Err("block \"deviation\" is empty".into());
    }
    let mut panels = Vec::new();
    for name in &names {
        let mut series = Vec::new();
        let mut clipped = 0;
        for (k, pass) in PASSES.iter().enumerate() {
            let vals = need_nums(dev, &format!("{pass}_pct"))?;
            let pts: Vec<(f64, f64)> = (0..vals.len())
                .filter(|&i| &workloads[i] == name)
                .filter_map(|i| Some((pads[i]?, vals[i]?)))
                .map(|(x, y)| {
                    if !(CLIP_LO..=CLIP_HI).contains(&y) {
                        clipped += 1;
                    }
                    (x, y.clamp(CLIP_LO, CLIP_HI))
                })
                .collect();
            let mark = if *pass == "shuffled" {
                Mark::Points
            } else {
                Mark::Line
            };
            series.push(Series::new(*pass, pts, mark, k));
        }
        let rs = corr.map(|c| pair_correlations(c, name)).unwrap_or_default();
        // Short enough to fit the panel: the workload, the agreement, and what was clipped.
        let mut title = format!("{name}: deviation from the pass median");
        if !rs.is_empty() {
            title = format!("{name}: r between passes {rs}");
        }
        if clipped > 0 {
            title.push_str(&format!("; {clipped} points beyond {CLIP_LO}..{CLIP_HI}%"));
        }
        let mut c = LineChart::new(
            &title,
            &format!("environment size PAD (bytes), run {}", saved.label),
            "deviation from the pass median (%)",
        );
        c.series = series;
        panels.push(c);
    }
    let deviation_svg = render_panels(&panels, (1100, 420 * panels.len() as u32))?;

    // The regions as a heatmap: one row per workload and pass, one column per region.
    let reg = need_block(run, EXP, "regions")?;
    let rw = reg
        .texts("workload")
        .ok_or("block \"regions\" has no column \"workload\"")?;
    let rp = reg
        .texts("pass")
        .ok_or("block \"regions\" has no column \"pass\"")?;
    let start = need_nums(reg, "region_start_bytes")?;
    let med = need_nums(reg, "median_deviation_pct")?;
    let mut starts: Vec<u64> = start.iter().flatten().map(|s| *s as u64).collect();
    starts.sort_unstable();
    starts.dedup();
    if starts.is_empty() {
        return Err("block \"regions\" is empty".into());
    }
    let mut y_labels = Vec::new();
    let mut values = Vec::new();
    for name in &names {
        for pass in PASSES {
            let row: Vec<Option<f64>> = starts
                .iter()
                .map(|s| {
                    (0..rw.len())
                        .find(|&i| &rw[i] == name && rp[i] == pass && start[i] == Some(*s as f64))
                        .and_then(|i| med[i])
                        .map(|v| (v * 10.0).round() / 10.0)
                })
                .collect();
            y_labels.push(format!("{name} {pass}"));
            values.push(row);
        }
    }
    let heat = Heatmap {
        title: format!(
            "Median deviation (%) by region of 256 bytes of padding ({})",
            saved.label
        ),
        x_label: "region start (bytes of PAD)".into(),
        y_label: String::new(), // the row labels say it; a title here would overlap them
        x_labels: starts.iter().map(|s| s.to_string()).collect(),
        y_labels,
        values,
        unit: String::new(),
        range: None,
        size: (1100, 80 + 50 * 3 * names.len() as u32),
    };
    Ok(vec![
        Figure {
            file: "env_scan-deviation.svg".into(),
            svg: deviation_svg,
        },
        Figure {
            file: "env_scan-regions.svg".into(),
            svg: heat.render()?,
        },
    ])
}

/// "f/b +0.03, f/s +0.03, b/s +0.06" from the correlation block, for one workload.
fn pair_correlations(c: &measure::data::Block, workload: &str) -> String {
    let (Some(w), Some(a), Some(b), Some(r)) = (
        c.texts("workload"),
        c.texts("pass_a"),
        c.texts("pass_b"),
        c.nums("r"),
    ) else {
        return String::new();
    };
    (0..w.len())
        .filter(|&i| w[i] == workload)
        .map(|i| {
            let short = |s: &str| s.chars().next().unwrap_or('?');
            format!(
                "{}/{} {}",
                short(&a[i]),
                short(&b[i]),
                r[i].map_or("n/a".to_string(), |r| format!("{r:+.2}"))
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn saved(text: &str) -> Saved {
        Saved::from_text(EXP, text, PathBuf::from("/nonexistent"))
    }

    fn sample() -> String {
        let mut s = String::from(
            "#DATA-BEGIN deviation\n#COLUMNS pad_bytes workload:text forward_pct backward_pct shuffled_pct passes_agree_10pct:text\n",
        );
        for w in ["copy", "fib"] {
            for p in [0, 256, 512, 768] {
                s.push_str(&format!(
                    "#DATA {p} {w} {} -1.5 0.5 yes\n",
                    p as f64 / 100.0
                ));
            }
        }
        s.push_str("#DATA 1024 copy 900 NA 0 no\n#DATA-END\n");
        s.push_str("#DATA-BEGIN correlation\n#COLUMNS workload:text pass_a:text pass_b:text r\n#DATA copy forward backward 0.03\n#DATA-END\n");
        s.push_str("#DATA-BEGIN regions\n#COLUMNS workload:text pass:text region_start_bytes median_deviation_pct\n");
        for w in ["copy", "fib"] {
            for p in PASSES {
                for r in [0, 256, 512, 768] {
                    s.push_str(&format!("#DATA {w} {p} {r} {}\n", r as f64 / 10.0));
                }
            }
        }
        s.push_str("#DATA-END\n");
        s
    }

    #[test]
    fn draws_two_deterministic_figures() {
        let a = draw(&saved(&sample())).unwrap();
        let b = draw(&saved(&sample())).unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].file, "env_scan-deviation.svg");
        assert_eq!(a[1].file, "env_scan-regions.svg");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.svg, y.svg);
            assert!(x.svg.starts_with("<svg"));
        }
        assert!(
            a[0].svg.contains("1 points beyond"),
            "the outlier is counted"
        );
        assert!(a[0].svg.contains("f/b +0.03"));
        assert!(a[1].svg.contains("fib shuffled") && a[1].svg.contains("76.8"));
    }

    #[test]
    fn missing_blocks_are_named_not_panicked() {
        let e = draw(&saved("#META x 1\n")).err().unwrap();
        assert!(e.contains("deviation"), "{e}");
        let only_dev: String = sample().split("#DATA-BEGIN regions").next().unwrap().into();
        let e = draw(&saved(&only_dev)).err().unwrap();
        assert!(e.contains("regions"), "{e}");
    }
}
