//! sink_bench's figures, drawn from its saved raw output alone:
//!
//! - `sink_bench-variants.svg`: every timed pass of the three variants as a strip plot on a
//!   log scale, with the clock's smallest step as a dashed line, so (a) is seen sitting on the
//!   clock and (b), (c) four orders of magnitude above it;
//! - `sink_bench-spread.svg`: the warm pass and the cold pass, one process against fresh
//!   processes, as strips with their medians (the cold pass in one process is one dot).

use super::chart::{color, tick};
use super::{Figure, Saved, need_block, need_nums};
use measure::data::DataFile;
use plotters::coord::Shift;
use plotters::prelude::*;

const EXP: &str = "sink_bench";

/// One column of dots.
struct Column {
    label: String,
    values: Vec<f64>,
    color: usize,
}

/// A strip plot: columns of dots with a median bar each, and dashed horizontal references.
struct Strip {
    title: String,
    y_label: String,
    columns: Vec<Column>,
    /// Log-10 y axis (the values are drawn at their logarithm; ticks are labelled in ns).
    y_log: bool,
    /// `(y, label)` dashed horizontal lines.
    refs: Vec<(f64, String)>,
    /// How values are written in the annotations and tick labels.
    fmt: fn(f64) -> String,
}

/// "26 ns", "545.6 us", "1.23 ms".
fn fmt_ns(v: f64) -> String {
    if v < 1e3 {
        format!("{} ns", tick(v))
    } else if v < 1e6 {
        format!("{} us", tick(v / 1e3))
    } else {
        format!("{} ms", tick(v / 1e6))
    }
}

fn fmt_us(v: f64) -> String {
    format!("{} us", tick(v))
}

/// A deterministic horizontal offset for the k-th dot of a column (golden-ratio sequence).
fn jitter(k: usize) -> f64 {
    ((k as f64 * 0.618_034).fract() - 0.5) * 0.44
}

fn draw_strip(area: &DrawingArea<SVGBackend<'_>, Shift>, s: &Strip) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    area.fill(&WHITE).map_err(e)?;
    let tf = |v: f64| if s.y_log { v.log10() } else { v };
    // On a linear axis, a pass far out (a process that was interrupted) would squash every
    // other dot into a line: values above 1.5 times the largest median are drawn at that cap
    // as triangles, and their values written beside the column.
    let cap = (!s.y_log)
        .then(|| {
            s.columns
                .iter()
                .filter_map(|c| measure::stats::median(&c.values))
                .fold(f64::NEG_INFINITY, f64::max)
                * 1.5
        })
        .filter(|c| c.is_finite());
    let clip = |v: f64| cap.map_or(v, |c| v.min(c));
    let mut ys: Vec<f64> = s
        .columns
        .iter()
        .flat_map(|c| c.values.iter().copied())
        .chain(s.refs.iter().map(|r| r.0))
        .filter(|v| v.is_finite() && (!s.y_log || *v > 0.0))
        .map(|v| tf(clip(v)))
        .collect();
    if ys.is_empty() {
        return Err(format!("figure {:?} has no data to draw", s.title));
    }
    ys.sort_by(f64::total_cmp);
    let (lo, hi) = (ys[0], ys[ys.len() - 1]);
    let pad = ((hi - lo) * 0.08).max(if s.y_log { 0.2 } else { hi.abs() * 0.01 });
    let (y0, y1) = (lo - pad, hi + pad * 2.5); // room at the top for the annotations
    let n = s.columns.len();
    let labels: Vec<String> = s.columns.iter().map(|c| c.label.clone()).collect();
    let fx = move |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
            labels[i as usize].clone()
        } else {
            String::new()
        }
    };
    let (log, fmt) = (s.y_log, s.fmt);
    let fy = move |y: &f64| fmt(if log { 10f64.powf(*y) } else { *y });
    let mut chart = ChartBuilder::on(area)
        .caption(&s.title, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(-0.5..(n as f64 - 0.5), y0..y1)
        .map_err(e)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(2 * n + 1)
        .x_label_formatter(&fx)
        .y_label_formatter(&fy)
        .y_desc(s.y_label.as_str())
        .draw()
        .map_err(|e| e.to_string())?;
    let black = color(6);
    for (y, label) in &s.refs {
        let y = tf(*y);
        let steps = 60;
        let width = n as f64;
        for k in (0..steps).step_by(2) {
            let a = -0.5 + width * k as f64 / steps as f64;
            let b = -0.5 + width * (k + 1) as f64 / steps as f64;
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(a, y), (b, y)],
                    black.stroke_width(1),
                )))
                .map_err(|e| e.to_string())?;
        }
        chart
            .draw_series(std::iter::once(Text::new(
                label.clone(),
                // Between the first two columns, where no dot is drawn.
                (0.52, y + (y1 - y0) * 0.015),
                ("sans-serif", 12).into_font().color(&black),
            )))
            .map_err(|e| e.to_string())?;
    }
    for (ci, col) in s.columns.iter().enumerate() {
        let c = color(col.color);
        let x = ci as f64;
        let dx = |k: usize| {
            if col.values.len() > 1 {
                x + jitter(k)
            } else {
                x
            }
        };
        let shown = |v: &f64| v.is_finite() && (!s.y_log || *v > 0.0);
        let inside = |v: &f64| cap.is_none_or(|c| *v <= c);
        let pts: Vec<(f64, f64)> = col
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| shown(v) && inside(v))
            .map(|(k, v)| (dx(k), tf(*v)))
            .collect();
        chart
            .draw_series(pts.iter().map(|p| Circle::new(*p, 3, c.filled())))
            .map_err(|e| e.to_string())?;
        let outside: Vec<(usize, f64)> = col
            .values
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, v)| shown(v) && !inside(v))
            .collect();
        if let (Some(cap), false) = (cap, outside.is_empty()) {
            chart
                .draw_series(
                    outside
                        .iter()
                        .map(|(k, _)| TriangleMarker::new((dx(*k), tf(cap)), 6, c.filled())),
                )
                .map_err(|e| e.to_string())?;
            let mut vals: Vec<f64> = outside.iter().map(|o| o.1).collect();
            vals.sort_by(f64::total_cmp);
            let list: Vec<String> = vals.iter().map(|v| fmt(*v)).collect();
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("off scale (triangles): {}", list.join(", ")),
                    (x - 0.42, y1 - (y1 - y0) * 0.11),
                    ("sans-serif", 12).into_font().color(&c),
                )))
                .map_err(|e| e.to_string())?;
        }
        let Some(m) = measure::stats::median(&col.values) else {
            continue;
        };
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x - 0.3, tf(m)), (x + 0.3, tf(m))],
                black.stroke_width(2),
            )))
            .map_err(|e| e.to_string())?;
        let lo = col.values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = col.values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let note = if col.values.len() > 1 {
            format!(
                "median {}, max/min {:.3} (n={})",
                fmt(m),
                if lo > 0.0 { hi / lo } else { f64::INFINITY },
                col.values.len()
            )
        } else {
            format!("one shot: {}", fmt(m))
        };
        chart
            .draw_series(std::iter::once(Text::new(
                note,
                (x - 0.42, y1 - (y1 - y0) * 0.06),
                ("sans-serif", 12).into_font().color(&c),
            )))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn render(panels: &[Strip], size: (u32, u32)) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let areas = root.split_evenly((1, panels.len().max(1)));
        for (p, a) in panels.iter().zip(areas.iter()) {
            draw_strip(a, p)?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// The measured values of a column (NA cells are not measurements and are left out).
fn values(run: &DataFile, block: &str, col: &str) -> Result<Vec<f64>, String> {
    let b = need_block(run, EXP, block)?;
    let v: Vec<f64> = need_nums(b, col)?.into_iter().flatten().collect();
    if v.is_empty() {
        return Err(format!("block {block:?} has no values in column {col:?}"));
    }
    Ok(v)
}

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, String> {
    let run = saved.run(EXP).ok_or("no sink_bench output")?;
    let step = run
        .meta_num("clock_min_step_ns")
        .ok_or("saved sink_bench output has no #META clock_min_step_ns")?;
    let names = [
        ("discarded_ns", "(a) sum discarded"),
        ("sink_ns", "(b) black_box(sum)"),
        ("checksum_ns", "(c) stored, checksummed"),
    ];
    let mut columns = Vec::new();
    let mut zeros = 0;
    for (i, (col, label)) in names.iter().enumerate() {
        let v = values(run, "part1_passes", col)?;
        // A pass that read 0 ns (two reads inside one clock step) cannot sit on a log axis:
        // it is drawn at half a step and counted in the title.
        zeros += v.iter().filter(|x| **x <= 0.0).count();
        columns.push(Column {
            label: label.to_string(),
            values: v
                .into_iter()
                .map(|x| if x <= 0.0 { step / 2.0 } else { x })
                .collect(),
            color: i,
        });
    }
    let n = columns[0].values.len();
    let variants = Strip {
        title: format!(
            "sink_bench: {n} passes of each variant, round-robin ({}){}",
            saved.label,
            if zeros > 0 {
                format!("; {zeros} passes read 0 ns, drawn at half a step")
            } else {
                String::new()
            }
        ),
        y_label: "time per pass (log scale)".into(),
        columns,
        y_log: true,
        refs: vec![(step, format!("smallest clock step, {}", fmt_ns(step)))],
        fmt: fmt_ns,
    };

    let us = |v: Vec<f64>| v.into_iter().map(|x| x / 1e3).collect::<Vec<_>>();
    let warm_in = us(values(run, "warm_in_process", "ns")?);
    let warm_fresh = us(values(run, "fresh_processes", "warm_ns")?);
    let cold_in = us(values(run, "cold_in_process", "ns")?);
    let cold_fresh = us(values(run, "fresh_processes", "cold_ns")?);
    let warm = Strip {
        title: "warm pass: one process vs fresh processes".into(),
        y_label: "time per pass (us)".into(),
        columns: vec![
            Column {
                label: format!("{} passes, one process", warm_in.len()),
                values: warm_in,
                color: 1,
            },
            Column {
                label: format!("{} fresh processes", warm_fresh.len()),
                values: warm_fresh,
                color: 2,
            },
        ],
        y_log: false,
        refs: Vec::new(),
        fmt: fmt_us,
    };
    let cold = Strip {
        title: "cold pass (first over a fresh array)".into(),
        y_label: "time per pass (us)".into(),
        columns: vec![
            Column {
                label: "one process: one shot".into(),
                values: cold_in,
                color: 1,
            },
            Column {
                label: format!("{} fresh processes", cold_fresh.len()),
                values: cold_fresh,
                color: 2,
            },
        ],
        y_log: false,
        refs: Vec::new(),
        fmt: fmt_us,
    };
    Ok(vec![
        Figure {
            file: "sink_bench-variants.svg".into(),
            svg: render(&[variants], (900, 560))?,
        },
        Figure {
            file: "sink_bench-spread.svg".into(),
            svg: render(&[warm, cold], (1200, 560))?,
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(text: &str) -> Saved {
        Saved::from_text(EXP, text, std::path::PathBuf::from("."))
    }

    const FULL: &str = "#META clock_min_step_ns 20
#DATA-BEGIN part1_passes
#COLUMNS round discarded_ns sink_ns checksum_ns
#DATA 0 20 500000 501000
#DATA 1 0 498000 499000
#DATA-END
#DATA-BEGIN warm_in_process
#COLUMNS pass ns
#DATA 0 500000
#DATA 1 510000
#DATA-END
#DATA-BEGIN fresh_processes
#COLUMNS process cold_ns warm_ns cold_faults warm_faults cpu
#DATA 1 700000 498000 1024 0 1
#DATA 2 720000 530000 1024 0 1
#DATA 3 710000 4500000 1024 0 1
#DATA-END
#DATA-BEGIN cold_in_process
#COLUMNS ns faults
#DATA 690000 1024
#DATA-END
";

    #[test]
    fn draws_both_figures_deterministically() {
        let s = saved(FULL);
        let a = draw(&s).unwrap();
        let b = draw(&s).unwrap();
        assert_eq!(a.len(), 2);
        assert_eq!(a[0].file, "sink_bench-variants.svg");
        assert_eq!(a[1].file, "sink_bench-spread.svg");
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.svg, y.svg);
        }
        assert!(a[0].svg.contains("smallest clock step, 20 ns"));
        assert!(a[0].svg.contains("1 passes read 0 ns"));
        assert!(a[1].svg.contains("one shot: 690 us"));
        assert!(a[1].svg.contains("off scale (triangles): 4500 us"));
    }

    #[test]
    fn missing_pieces_are_named() {
        let no_meta = FULL.replace("#META clock_min_step_ns 20\n", "");
        let err = |t: &str| draw(&saved(t)).err().expect("an error");
        assert!(err(&no_meta).contains("clock_min_step_ns"));
        let cut = FULL.split("#DATA-BEGIN cold_in_process").next().unwrap();
        assert!(err(cut).contains("cold_in_process"));
    }
}
