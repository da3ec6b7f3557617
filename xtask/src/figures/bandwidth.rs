//! bandwidth's figure: bytes a second by working set, one line per kernel (read, write and
//! copy; plain, explicit at the widest width, non-temporal), each with its min..max band,
//! on a log2 size axis with power-of-two ticks and a log GB/s axis labelled at 1, 2 and 5 of
//! every decade; the reported cache sizes and the boundaries the run read from its curve as
//! verticals; unstable points ringed; the two points of the key ratio (L1 against memory)
//! marked and the ratio written beside the legend. Below: a small panel of the all-cores
//! rows (total GB/s by threads, min..max whiskers, the ideal n x one thread) and one of the
//! loaded latency (idle against loaded, min..max whiskers).
//!
//! Drawn with plotters directly (not `chart.rs`), because it needs bands and a legend in its
//! own column; it uses `chart.rs`'s palette and tick texts.

use super::chart::{color, kib_label, tick};
use super::{Figure, Saved, need_block, need_nums};
use measure::data::{Block, DataFile};
use measure::stats::Summary;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

const SIZE: (u32, u32) = (1200, 880);
/// The palette index of reported sizes (black).
const MARKS: usize = 6;

/// One kernel's curve: its name, label, colour, line width, and (log2 KiB, GB/s median,
/// min, max, stable) per size.
struct Curve {
    name: String,
    label: String,
    color: usize,
    width: u32,
    cross: bool,
    points: Vec<(f64, f64, f64, f64, bool)>,
}

/// Colour and line width of a kernel (stable across runs and machines).
fn style(kernel: &str) -> (usize, u32, bool) {
    match kernel {
        "read_explicit" => (0, 3, false),
        "read_plain" => (5, 2, false),
        "write_explicit" => (1, 3, false),
        "write_plain" => (4, 2, false),
        "write_stream" => (8, 2, true),
        "copy_explicit" => (2, 3, false),
        "copy_plain" => (3, 2, false),
        "copy_stream" => (6, 2, true),
        _ => (7, 1, false),
    }
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// The curves of the `bandwidth` block, in the order the kernels first appear.
fn curves(run: &DataFile, b: &Block) -> Result<Vec<Curve>, String> {
    let kib = need_nums(b, "kib")?;
    let (g, lo, hi) = (
        need_nums(b, "gbs")?,
        need_nums(b, "gbs_min")?,
        need_nums(b, "gbs_max")?,
    );
    let names = b
        .texts("kernel")
        .ok_or("block \"bandwidth\" has no column \"kernel\"")?;
    let stable = b.texts("stable").unwrap_or_default();
    let width = run.meta("explicit_width").unwrap_or("explicit");
    let mut out: Vec<Curve> = Vec::new();
    for i in 0..names.len() {
        let (Some(k), Some(m), Some(l), Some(h)) = (kib[i], g[i], lo[i], hi[i]) else {
            continue;
        };
        if k <= 0.0 || l <= 0.0 {
            continue;
        }
        let name = &names[i];
        let pos = match out.iter().position(|c| &c.name == name) {
            Some(p) => p,
            None => {
                let (color, w, cross) = style(name);
                let (op, form) = name.split_once('_').unwrap_or((name, ""));
                let form = match form {
                    "explicit" => width.to_string(),
                    "stream" => "non-temporal".to_string(),
                    f => f.to_string(),
                };
                out.push(Curve {
                    name: name.clone(),
                    label: format!("{op}, {form}"),
                    color,
                    width: w,
                    cross,
                    points: Vec::new(),
                });
                out.len() - 1
            }
        };
        let st = stable.get(i).is_none_or(|s| s != "no");
        out[pos].points.push((k.log2(), m, l, h, st));
    }
    if out.iter().all(|c| c.points.is_empty()) {
        return Err("the bandwidth block has no rows".into());
    }
    Ok(out)
}

/// The nearest of 1, 2 or 5 times a power of ten at or below `v` (at or above when `up`).
fn nice(v: f64, up: bool) -> f64 {
    let d = 10f64.powf(v.log10().floor());
    let steps = [1.0, 2.0, 5.0, 10.0];
    if up {
        steps
            .iter()
            .map(|m| m * d)
            .find(|&x| x >= v * (1.0 - 1e-12))
            .unwrap_or(10.0 * d)
    } else {
        steps
            .iter()
            .rev()
            .map(|m| m * d)
            .find(|&x| x <= v * (1.0 + 1e-12))
            .unwrap_or(d)
    }
}

/// Key points of a log10 axis from `lo` to `hi` (values, not logs): 1, 2 and 5 of every
/// decade that falls inside.
fn decade_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut v = Vec::new();
    let mut d = 10f64.powf(lo.log10().floor());
    while d <= hi {
        for m in [1.0, 2.0, 5.0] {
            let x = d * m;
            if x >= lo && x <= hi {
                v.push(x.log10());
            }
        }
        d *= 10.0;
    }
    v
}

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, String> {
    let run = saved.run("bandwidth").ok_or("no bandwidth output")?;
    let b = need_block(run, "bandwidth", "bandwidth")?;
    let cs = curves(run, b)?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (top, bottom) = root.split_vertically(600);
        let (plot, legend) = top.split_horizontally(850);
        let (threads, latency) = bottom.split_horizontally(600);
        let marked = main_plot(&plot, run, &cs, &saved.label)?;
        legend_column(&legend, run, &cs, marked)?;
        threads_panel(&threads, run)?;
        latency_panel(&latency, run)?;
        root.present().map_err(err)?;
    }
    Ok(vec![Figure {
        file: "bandwidth-working-set.svg".into(),
        svg,
    }])
}

/// The reported cache sizes: (name, KiB).
fn reported(run: &DataFile) -> Vec<(&'static str, f64)> {
    [
        ("l1d_size_bytes", "L1d"),
        ("l2_size_bytes", "L2"),
        ("l3_size_bytes", "L3"),
        ("l4_size_bytes", "L4"),
    ]
    .into_iter()
    .filter_map(|(k, n)| run.meta_num(k).map(|b| (n, b / 1024.0)))
    .collect()
}

/// Light grid lines and tick labels at the given positions (data coordinates), the labels
/// outside the plot, left of the y axis and under the x axis.
fn ticks<X, Y>(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    chart: &ChartContext<'_, SVGBackend<'_>, Cartesian2d<X, Y>>,
    xt: &[(f64, String)],
    yt: &[(f64, String)],
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let grid = RGBColor(225, 225, 225).stroke_width(1);
    let (bx, by) = area.get_base_pixel();
    let font = ("sans-serif", 12).into_font();
    for (x, label) in xt {
        area.draw(&PathElement::new(
            vec![
                rel(chart.backend_coord(&(*x, y0)), bx, by),
                rel(chart.backend_coord(&(*x, y1)), bx, by),
            ],
            grid,
        ))
        .map_err(err)?;
        let (px, py) = rel(chart.backend_coord(&(*x, y0)), bx, by);
        area.draw(&Text::new(
            label.clone(),
            (px, py + 6),
            TextStyle::from(font.clone()).pos(Pos::new(HPos::Center, VPos::Top)),
        ))
        .map_err(err)?;
    }
    for (y, label) in yt {
        area.draw(&PathElement::new(
            vec![
                rel(chart.backend_coord(&(x0, *y)), bx, by),
                rel(chart.backend_coord(&(x1, *y)), bx, by),
            ],
            grid,
        ))
        .map_err(err)?;
        let (px, py) = rel(chart.backend_coord(&(x0, *y)), bx, by);
        area.draw(&Text::new(
            label.clone(),
            (px - 6, py),
            TextStyle::from(font.clone()).pos(Pos::new(HPos::Right, VPos::Center)),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// A backend pixel relative to an area whose top-left pixel is `(bx, by)`.
fn rel((x, y): (i32, i32), bx: i32, by: i32) -> (i32, i32) {
    (x - bx, y - by)
}

/// A point of the main plot: (log2 KiB, GB/s).
type Pt = (f64, f64);

/// The key ratio's two points (log2 KiB, GB/s) and the ratio, from the `levels` block: the
/// explicit read at L1d and at memory.
fn key_points(run: &DataFile) -> Option<(Pt, Pt, f64)> {
    let l = run.block("levels")?;
    let (names, kib, read) = (l.texts("level")?, l.nums("kib")?, l.nums("read_gbs")?);
    let at = |n: &str| {
        let i = names.iter().position(|x| x == n)?;
        Some((kib[i]?.log2(), read[i]?))
    };
    let (a, m) = (at("L1d")?, at("memory")?);
    Some((a, m, a.1 / m.1))
}

/// The main plot. Returns the key ratio, when its points were marked.
fn main_plot(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    run: &DataFile,
    cs: &[Curve],
    label: &str,
) -> Result<Option<f64>, String> {
    let all = cs.iter().flat_map(|c| c.points.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in all {
        x0 = x0.min(p.0);
        x1 = x1.max(p.0);
        y0 = y0.min(p.2);
        y1 = y1.max(p.3);
    }
    let rep = reported(run);
    for (_, k) in &rep {
        x0 = x0.min(k.log2());
        x1 = x1.max(k.log2());
    }
    let (x0, x1) = (x0.floor() - 0.3, x1.ceil() + 0.3);
    // The y range ends on labelled ticks, so every point lies inside the labelled range.
    let (ylo, yhi) = (nice(y0 / 1.1, false), nice(y1 * 1.1, true));
    let xticks: Vec<f64> = (x0.ceil() as i64..=x1.floor() as i64)
        .map(|v| v as f64)
        .collect();
    let yticks = decade_ticks(ylo, yhi);
    let (ya, yb) = (ylo.log10(), yhi.log10());
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("bandwidth by working set ({label})"),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(48)
        .y_label_area_size(64)
        .build_cartesian_2d(x0..x1, ya..yb)
        .map_err(err)?;
    // The axes' ticks are drawn here, not by plotters' mesh: powers of two on x, 1, 2 and 5 of
    // every decade on y.
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(0)
        .y_labels(0)
        .x_desc("working set (log2 scale)")
        .y_desc("GB/s (log scale)")
        .draw()
        .map_err(err)?;
    let x_ticks: Vec<(f64, String)> = xticks
        .iter()
        .map(|&x| (x, kib_label(2f64.powf(x).round())))
        .collect();
    let y_ticks: Vec<(f64, String)> = yticks.iter().map(|&y| (y, tick(10f64.powf(y)))).collect();
    ticks(area, &chart, &x_ticks, &y_ticks, (x0, x1), (ya, yb))?;
    // Reported sizes: dashed black verticals, named at the bottom.
    for (name, k) in &rep {
        let x = k.log2();
        for s in 0..30 {
            if s % 2 == 0 {
                let f = |t: f64| ya + (yb - ya) * t / 30.0;
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x, f(s as f64)), (x, f(s as f64 + 1.0))],
                        color(MARKS).stroke_width(1),
                    )))
                    .map_err(err)?;
            }
        }
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{name} {}", kib_label(*k)),
                (x, ya + (yb - ya) * 0.03),
                ("sans-serif", 12).into_font().color(&color(MARKS)),
            )))
            .map_err(err)?;
    }
    // Boundaries read from the explicit read's curve: thin solid verticals of its colour.
    if let Some(kb) = run.block("boundaries") {
        let kinds = kb.texts("kind").unwrap_or_default();
        let (from, to) = (need_nums(kb, "from_kib")?, need_nums(kb, "to_kib")?);
        for i in 0..kinds.len() {
            if let ("drop", Some(f), Some(t)) = (kinds[i].as_str(), from[i], to[i]) {
                let x = (f.log2() + t.log2()) / 2.0;
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(x, ya), (x, yb)],
                        color(style("read_explicit").0).mix(0.6).stroke_width(1),
                    )))
                    .map_err(err)?;
            }
        }
    }
    // Bands first (under every line), then the lines, then the marks.
    for c in cs {
        let mut poly: Vec<(f64, f64)> = c.points.iter().map(|p| (p.0, p.3.log10())).collect();
        poly.extend(c.points.iter().rev().map(|p| (p.0, p.2.log10())));
        chart
            .draw_series(std::iter::once(Polygon::new(
                poly,
                color(c.color).mix(0.15).filled(),
            )))
            .map_err(err)?;
    }
    for c in cs {
        let line: Vec<(f64, f64)> = c.points.iter().map(|p| (p.0, p.1.log10())).collect();
        let st = color(c.color).stroke_width(c.width);
        chart
            .draw_series(LineSeries::new(line.clone(), st))
            .map_err(err)?;
        if c.cross {
            chart
                .draw_series(
                    line.iter()
                        .map(|p| Cross::new(*p, 4, color(c.color).stroke_width(2))),
                )
                .map_err(err)?;
        }
        chart
            .draw_series(
                c.points
                    .iter()
                    .filter(|p| !p.4)
                    .map(|p| Circle::new((p.0, p.1.log10()), 6, color(MARKS).stroke_width(1))),
            )
            .map_err(err)?;
    }
    let key = key_points(run);
    if let Some((a, m, _)) = key {
        for (x, g) in [a, m] {
            chart
                .draw_series(std::iter::once(Circle::new(
                    (x, g.log10()),
                    8,
                    color(style("read_explicit").0).stroke_width(3),
                )))
                .map_err(err)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("{} GB/s", tick(g)),
                    (x + 0.25, g.log10()),
                    ("sans-serif", 13)
                        .into_font()
                        .color(&color(style("read_explicit").0)),
                )))
                .map_err(err)?;
        }
    }
    Ok(key.map(|k| k.2))
}

/// The legend, in its own column beside the plot: every series, the marks, the key ratio.
fn legend_column(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    run: &DataFile,
    cs: &[Curve],
    ratio: Option<f64>,
) -> Result<(), String> {
    let font = ("sans-serif", 14).into_font();
    let mut y = 60;
    let line = |a: &DrawingArea<SVGBackend<'_>, Shift>, y: i32, st: ShapeStyle| {
        a.draw(&PathElement::new(vec![(10, y), (44, y)], st))
            .map_err(err)
    };
    area.draw(&Text::new(
        "kernels (GB/s, min..max band)",
        (10, y - 30),
        font.clone(),
    ))
    .map_err(err)?;
    for c in cs {
        line(area, y, color(c.color).stroke_width(c.width))?;
        if c.cross {
            area.draw(&Cross::new((27, y), 4, color(c.color).stroke_width(2)))
                .map_err(err)?;
        }
        area.draw(&Text::new(c.label.clone(), (52, y - 8), font.clone()))
            .map_err(err)?;
        y += 24;
    }
    y += 10;
    for s in 0..4 {
        area.draw(&PathElement::new(
            vec![(10 + s * 9, y), (15 + s * 9, y)],
            color(MARKS).stroke_width(1),
        ))
        .map_err(err)?;
    }
    area.draw(&Text::new("reported cache size", (52, y - 8), font.clone()))
        .map_err(err)?;
    y += 24;
    line(
        area,
        y,
        color(style("read_explicit").0).mix(0.6).stroke_width(1),
    )?;
    area.draw(&Text::new(
        "boundary read from the curve",
        (52, y - 8),
        font.clone(),
    ))
    .map_err(err)?;
    y += 24;
    area.draw(&Circle::new((27, y), 6, color(MARKS).stroke_width(1)))
        .map_err(err)?;
    area.draw(&Text::new("unstable point", (52, y - 8), font.clone()))
        .map_err(err)?;
    y += 40;
    let text = match ratio {
        Some(r) => vec![
            "key ratio (ringed points):".to_string(),
            format!("L1d read / memory read = {r:.1}x"),
        ],
        None => vec![
            "key ratio: not computed".to_string(),
            "(no L1d or memory level)".to_string(),
        ],
    };
    for t in text {
        area.draw(&Text::new(t, (10, y), font.clone()))
            .map_err(err)?;
        y += 20;
    }
    if let Some(c) = run.meta("clock_ghz_estimate") {
        area.draw(&Text::new(
            format!("core clock estimate: {c} GHz"),
            (10, y + 10),
            font.clone(),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// A small panel's caption and a message when there is nothing to draw.
fn empty_panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    title: &str,
    why: &str,
) -> Result<(), String> {
    area.draw(&Text::new(
        title.to_string(),
        (20, 20),
        ("sans-serif", 16).into_font(),
    ))
    .map_err(err)?;
    area.draw(&Text::new(
        why.to_string(),
        (20, 60),
        ("sans-serif", 14).into_font(),
    ))
    .map_err(err)
}

/// All cores at the largest set: total GB/s by threads, whiskers, and the ideal line.
fn threads_panel(area: &DrawingArea<SVGBackend<'_>, Shift>, run: &DataFile) -> Result<(), String> {
    let title = "all cores, total read GB/s at the largest set";
    let Some(t) = run.block("threads") else {
        return empty_panel(area, title, "no threads block in this run");
    };
    let n = need_nums(t, "threads")?;
    let (m, lo, hi) = (
        need_nums(t, "total_gbs")?,
        need_nums(t, "total_gbs_min")?,
        need_nums(t, "total_gbs_max")?,
    );
    let pts: Vec<(f64, f64, f64, f64)> = (0..n.len())
        .filter_map(|i| Some((n[i]?, m[i]?, lo[i]?, hi[i]?)))
        .collect();
    let skipped: Vec<String> = (0..n.len())
        .filter(|&i| m[i].is_none())
        .filter_map(|i| n[i].map(|v| format!("{v}")))
        .collect();
    let Some(&(_, one, _, _)) = pts.first() else {
        return empty_panel(area, title, "no row was measured");
    };
    let nmax = pts.iter().map(|p| p.0).fold(1.0, f64::max);
    let ymax = pts.iter().map(|p| p.3).fold(one * nmax, f64::max) * 1.1;
    let (nl, tl) = pts.last().map_or((1.0, one), |p| (p.0, p.1));
    let mut caption = title.to_string();
    if nl > 1.0 {
        caption.push_str(&format!(": {nl:.0} threads {:.2}x one", tl / one));
    }
    if !skipped.is_empty() {
        caption.push_str(&format!(" ({}: skipped)", skipped.join(", ")));
    }
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0.5..nmax + 0.5, 0.0..ymax)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("threads, each on its own core and region (grey: n x one thread; blue: measured, min..max)")
        .y_desc("GB/s")
        .x_labels((nmax as usize).min(16) + 1)
        .x_label_formatter(&|x| {
            if (x - x.round()).abs() < 1e-9 && *x >= 1.0 {
                format!("{x:.0}")
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|y| tick(*y))
        .draw()
        .map_err(err)?;
    chart
        .draw_series(std::iter::once(PathElement::new(
            vec![(1.0, one), (nmax, one * nmax)],
            RGBColor(160, 160, 160).stroke_width(1),
        )))
        .map_err(err)?;
    let c = color(style("read_explicit").0);
    for &(x, _, l, h) in &pts {
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, l), (x, h)],
                c.stroke_width(2),
            )))
            .map_err(err)?;
    }
    chart
        .draw_series(LineSeries::new(
            pts.iter().map(|p| (p.0, p.1)),
            c.stroke_width(2),
        ))
        .map_err(err)?;
    chart
        .draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 4, c.filled())))
        .map_err(err)?;
    Ok(())
}

/// Latency under load: idle against loaded, median with min..max whiskers.
fn latency_panel(area: &DrawingArea<SVGBackend<'_>, Shift>, run: &DataFile) -> Result<(), String> {
    let title = "latency under load, ns a step";
    let Some(l) = run.block("loaded_latency") else {
        return empty_panel(area, title, "skipped: it needs at least two cores");
    };
    let states = l.texts("state").unwrap_or_default();
    let ns = need_nums(l, "ns")?;
    // Loaded rounds whose streamers did not stream are left out (the run says which).
    let counts = l.texts("counts").unwrap_or_default();
    let of = |s: &str| {
        let v: Vec<f64> = (0..states.len())
            .filter(|&i| states[i] == s && counts.get(i).is_none_or(|c| c != "no"))
            .filter_map(|i| ns[i])
            .collect();
        Summary::of(&v)
    };
    let Some(i) = of("idle") else {
        return empty_panel(area, title, "no idle round in this run");
    };
    let Some(d) = of("loaded") else {
        return empty_panel(
            area,
            title,
            "no loaded round counts: the streamers did not stream (other work)",
        );
    };
    let ratio = run.block("key_figures").and_then(|k| {
        let names = k.texts("figure")?;
        let vals = k.nums("value")?;
        names
            .iter()
            .position(|n| n == "loaded_over_idle")
            .and_then(|p| vals[p])
    });
    let ymax = i.max.max(d.max) * 1.1;
    let caption = match ratio {
        Some(r) => format!("{title}: loaded / idle = {r:.2}x"),
        None => format!("{title}: no verdict (see the run)"),
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(0.0..3.0, 0.0..ymax)
        .map_err(err)?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(7)
        .x_label_formatter(&|x: &f64| match x.round() as i64 {
            1 if (x - 1.0).abs() < 1e-9 => "other cores idle".into(),
            2 if (x - 2.0).abs() < 1e-9 => "other cores streaming".into(),
            _ => String::new(),
        })
        .y_desc("ns per step")
        .y_label_formatter(&|y| tick(*y))
        .draw()
        .map_err(err)?;
    for (x, s, c) in [(1.0, i, 5usize), (2.0, d, 1usize)] {
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x - 0.3, 0.0), (x + 0.3, s.median)],
                color(c).mix(0.7).filled(),
            )))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(x, s.min), (x, s.max)],
                BLACK.stroke_width(2),
            )))
            .map_err(err)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn saved(text: &str) -> Saved {
        Saved::from_text(
            "bandwidth",
            text,
            PathBuf::from("/nonexistent/results/test"),
        )
    }

    const RUN: &str = "\
#META l1d_size_bytes 32768 sysfs
#META l2_size_bytes 1048576 sysfs
#META l3_size_bytes unknown
#META explicit_width avx512
#META clock_ghz_estimate 3.650
#DATA-BEGIN bandwidth
#COLUMNS kib kernel:text op:text form:text gbs gbs_min gbs_max bytes_per_cycle pass_spread round_spread stable:text where:text
#DATA 4 read_plain read plain 110 100 115 30 0.01 0.01 yes L1d
#DATA 4 read_explicit read explicit 210 200 215 58 0.01 0.01 yes L1d
#DATA 4 write_stream write stream 28 27 29 8 0.01 0.01 yes L1d
#DATA 1024 read_plain read plain 90 80 95 25 0.01 0.01 no L2
#DATA 1024 read_explicit read explicit 98 96 99 27 0.01 0.01 yes L2
#DATA 1024 write_stream write stream 28 27 29 8 0.01 0.01 yes L2
#DATA 131072 read_plain read plain 30 20 35 8 0.01 0.01 yes memory
#DATA 131072 read_explicit read explicit 25 22 30 7 0.01 0.01 yes memory
#DATA 131072 write_stream write stream 28 27 29 8 0.01 0.01 yes memory
#DATA-END
#DATA-BEGIN boundaries
#COLUMNS kind:text from_kib to_kib ratio nearest:text nearest_kib agrees:text
#DATA drop 32 64 1.8 L1d 32 yes
#DATA unstable 1024 1024 NA NA NA NA
#DATA-END
#DATA-BEGIN threads
#COLUMNS threads status:text cores:text total_gbs total_gbs_min total_gbs_max per_thread_gbs vs_one pinned:text off_core_rounds region_kib
#DATA 1 measured 1 30 28 31 30 1 yes 0 131072
#DATA 2 measured 1,0 45 40 47 22.5 1.5 yes 0 131072
#DATA 4 skipped NA NA NA NA NA NA NA NA 131072
#DATA-END
#DATA-BEGIN loaded_latency
#COLUMNS state:text round ns stream_gbs counts:text streamers pinned:text chase_kib
#DATA idle 1 150 NA NA 1 yes 131072
#DATA loaded 1 210 20 yes 1 yes 131072
#DATA loaded 2 900 0 no 1 yes 131072
#DATA-END
#DATA-BEGIN key_figures
#COLUMNS figure:text value unit:text
#DATA loaded_over_idle 1.4 x
#DATA-END
#DATA-BEGIN levels
#COLUMNS level:text kib read_gbs write_gbs copy_gbs read_bpc write_bpc copy_bpc
#DATA L1d 4 210 NA NA 58 NA NA
#DATA memory 131072 25 NA NA 7 NA NA
#DATA-END
";

    #[test]
    fn draws_every_part_deterministically() {
        let s = saved(RUN);
        let a = draw(&s).unwrap();
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].file, "bandwidth-working-set.svg");
        let svg = &a[0].svg;
        for want in [
            "read, avx512",
            "read, plain",
            "write, non-temporal",
            "L1d 32K",
            "L2 1M",
            "L1d read / memory read = 8.4x",
            "2 threads 1.50x one",
            "(4: skipped)",
            "loaded / idle = 1.40x",
            "128M",
            "boundary read from the curve",
        ] {
            assert!(svg.contains(want), "{want:?} missing");
        }
        assert!(!svg.contains("L3 "), "an unknown size draws no vertical");
        assert_eq!(draw(&s).unwrap()[0].svg, *svg);
    }

    #[test]
    fn ranges_end_on_ticks() {
        assert_eq!(nice(0.73, false), 0.5);
        assert_eq!(nice(230.0, true), 500.0);
        assert_eq!(nice(200.0, true), 200.0);
        assert_eq!(nice(3.0, false), 2.0);
    }

    #[test]
    fn decades_are_labelled_at_one_two_and_five() {
        let t: Vec<f64> = decade_ticks(3.0, 300.0)
            .into_iter()
            .map(|l| (10f64.powf(l) * 1000.0).round() / 1000.0)
            .collect();
        assert_eq!(t, vec![5.0, 10.0, 20.0, 50.0, 100.0, 200.0]);
    }

    #[test]
    fn missing_parts_are_errors_or_empty_panels_not_panics() {
        assert!(
            draw(&saved("#META x 1\n"))
                .err()
                .unwrap()
                .contains("bandwidth")
        );
        // Only the main block: the panels say what is missing.
        let only = RUN.split("#DATA-BEGIN boundaries").next().unwrap();
        let svg = &draw(&saved(only)).unwrap()[0].svg;
        assert!(svg.contains("no threads block"));
        assert!(svg.contains("skipped: it needs at least two cores"));
    }
}
