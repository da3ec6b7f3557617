#![allow(dead_code)] // shapes are shared by the experiment drawers; not every shape is used by every build stage
//! The few chart shapes the book needs, drawn with plotters' SVG backend.
//!
//! Every figure module builds one of these descriptions from parsed `#DATA` and calls
//! `render`; nothing here knows about experiments. Output is deterministic: the same
//! description gives the same bytes (no clocks, no randomness, fixed number formatting).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::ShapeStyle;

/// A colour-blind-safe palette (Okabe-Ito, and one wine red), used in series order.
pub const PALETTE: [RGBColor; 9] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(240, 228, 66),
    RGBColor(136, 34, 85),
];

pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// How a series is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Line,
    Points,
    LinePoints,
    /// A dashed line (for reference series such as the appendix's own numbers).
    Dashed,
}

#[derive(Debug, Clone)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
    pub mark: Mark,
    /// Index into [`PALETTE`].
    pub color: usize,
}

impl Series {
    pub fn new(
        label: impl Into<String>,
        points: Vec<(f64, f64)>,
        mark: Mark,
        color: usize,
    ) -> Series {
        Series {
            label: label.into(),
            points,
            mark,
            color,
        }
    }
}

/// A dashed vertical line with a label (a cache size, the line size, ...).
#[derive(Debug, Clone)]
pub struct Vertical {
    pub x: f64,
    pub label: String,
    /// Index into [`PALETTE`]; 6 is black.
    pub color: usize,
}

/// An x-y chart with optional log axes, series and dashed verticals.
#[derive(Debug, Clone)]
pub struct LineChart {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_log: bool,
    pub y_log: bool,
    pub series: Vec<Series>,
    pub verticals: Vec<Vertical>,
    /// Explicit x tick labels formatter: `None` prints numbers.
    pub x_fmt: Option<fn(f64) -> String>,
    /// Print the verticals' labels at the bottom of the plot instead of the top (where the
    /// legend sits).
    pub vertical_labels_low: bool,
    pub size: (u32, u32),
}

impl LineChart {
    pub fn new(title: &str, x_label: &str, y_label: &str) -> LineChart {
        LineChart {
            title: title.into(),
            x_label: x_label.into(),
            y_label: y_label.into(),
            x_log: false,
            y_log: false,
            series: Vec::new(),
            verticals: Vec::new(),
            x_fmt: None,
            vertical_labels_low: false,
            size: (900, 560),
        }
    }

    /// A point can be drawn: finite, and positive on a log axis.
    fn drawable(&self, &(x, y): &(f64, f64)) -> bool {
        x.is_finite() && y.is_finite() && (!self.x_log || x > 0.0) && (!self.y_log || y > 0.0)
    }

    fn ranges(&self) -> Result<[(f64, f64); 2], String> {
        let pts: Vec<(f64, f64)> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().copied())
            .filter(|p| self.drawable(p))
            .collect();
        if pts.is_empty() {
            return Err(format!("figure {:?} has no data to draw", self.title));
        }
        let mut xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
        xs.extend(
            self.verticals
                .iter()
                .map(|v| v.x)
                .filter(|x| x.is_finite() && (!self.x_log || *x > 0.0)),
        );
        let ys: Vec<f64> = pts.iter().map(|p| p.1).collect();
        let span = |v: &[f64], log: bool, zero: bool| {
            let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            if log {
                (lo / 1.3, hi * 1.3)
            } else {
                let lo = if zero { lo.min(0.0) } else { lo };
                let pad = ((hi - lo) * 0.05).max(hi.abs() * 0.01).max(1e-9);
                (if zero && lo >= 0.0 { 0.0 } else { lo - pad }, hi + pad)
            }
        };
        Ok([span(&xs, self.x_log, false), span(&ys, self.y_log, true)])
    }

    /// Renders to an SVG string.
    pub fn render(&self) -> Result<String, String> {
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, self.size).into_drawing_area();
            self.draw_on(&root)?;
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }

    /// Draws into an area (used for multi-panel figures).
    pub fn draw_on(&self, area: &DrawingArea<SVGBackend<'_>, Shift>) -> Result<(), String> {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        area.fill(&WHITE).map_err(e)?;
        let [(x0, x1), (y0, y1)] = self.ranges()?;
        let mut b = ChartBuilder::on(area);
        b.caption(&self.title, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(70);
        macro_rules! body {
            ($chart:expr) => {{
                let mut chart = $chart;
                let xf = self.x_fmt;
                let mut mesh = chart.configure_mesh();
                mesh.x_desc(self.x_label.as_str())
                    .y_desc(self.y_label.as_str());
                let fmt_x = move |x: &f64| match xf {
                    Some(f) => f(*x),
                    None => tick(*x),
                };
                let fmt_y = |y: &f64| tick(*y);
                mesh.x_label_formatter(&fmt_x).y_label_formatter(&fmt_y);
                mesh.draw().map_err(|e| e.to_string())?;
                for v in &self.verticals {
                    let c = color(v.color);
                    let (ya, yb) = (y0, y1);
                    // Dashes as short segments, so the SVG stays plain lines.
                    let steps = 40;
                    for k in (0..steps).step_by(2) {
                        let f0 = k as f64 / steps as f64;
                        let f1 = (k + 1) as f64 / steps as f64;
                        let (a, b) = if self.y_log {
                            (ya * (yb / ya).powf(f0), ya * (yb / ya).powf(f1))
                        } else {
                            (ya + (yb - ya) * f0, ya + (yb - ya) * f1)
                        };
                        chart
                            .draw_series(std::iter::once(PathElement::new(
                                vec![(v.x, a), (v.x, b)],
                                c.stroke_width(1),
                            )))
                            .map_err(|e| e.to_string())?;
                    }
                    chart
                        .draw_series(std::iter::once(Text::new(
                            v.label.clone(),
                            (
                                v.x,
                                match (self.y_log, self.vertical_labels_low) {
                                    (true, false) => yb / 1.25,
                                    (true, true) => ya * 1.05,
                                    (false, false) => yb - (yb - ya) * 0.03,
                                    (false, true) => ya + (yb - ya) * 0.04,
                                },
                            ),
                            ("sans-serif", 12).into_font().color(&c),
                        )))
                        .map_err(|e| e.to_string())?;
                }
                for s in &self.series {
                    let c = color(s.color);
                    let style: ShapeStyle = c.stroke_width(2);
                    let pts: Vec<(f64, f64)> = s
                        .points
                        .iter()
                        .copied()
                        .filter(|p| self.drawable(p))
                        .collect();
                    let legend_style = style;
                    match s.mark {
                        Mark::Line | Mark::LinePoints => {
                            chart
                                .draw_series(LineSeries::new(pts.clone(), style))
                                .map_err(|e| e.to_string())?
                                .label(s.label.as_str())
                                .legend(move |(x, y)| {
                                    PathElement::new(vec![(x, y), (x + 20, y)], legend_style)
                                });
                            if s.mark == Mark::LinePoints {
                                chart
                                    .draw_series(pts.iter().map(|p| Circle::new(*p, 3, c.filled())))
                                    .map_err(|e| e.to_string())?;
                            }
                        }
                        Mark::Points => {
                            chart
                                .draw_series(pts.iter().map(|p| Circle::new(*p, 2, c.filled())))
                                .map_err(|e| e.to_string())?
                                .label(s.label.as_str())
                                .legend(move |(x, y)| Circle::new((x + 10, y), 3, c.filled()));
                        }
                        Mark::Dashed => {
                            for w in pts.windows(2) {
                                chart
                                    .draw_series(std::iter::once(PathElement::new(
                                        vec![w[0], w[1]],
                                        style,
                                    )))
                                    .map_err(|e| e.to_string())?;
                            }
                            chart
                                .draw_series(
                                    pts.iter().map(|p| Cross::new(*p, 4, c.stroke_width(2))),
                                )
                                .map_err(|e| e.to_string())?
                                .label(s.label.as_str())
                                .legend(move |(x, y)| {
                                    Cross::new((x + 10, y), 4, c.stroke_width(2))
                                });
                        }
                    }
                }
                chart
                    .configure_series_labels()
                    .position(SeriesLabelPosition::UpperLeft)
                    .background_style(WHITE.mix(0.85))
                    .border_style(BLACK)
                    .draw()
                    .map_err(|e| e.to_string())?;
            }};
        }
        match (self.x_log, self.y_log) {
            (true, true) => body!(
                b.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
                    .map_err(e)?
            ),
            (true, false) => body!(
                b.build_cartesian_2d((x0..x1).log_scale(), y0..y1)
                    .map_err(e)?
            ),
            (false, true) => body!(
                b.build_cartesian_2d(x0..x1, (y0..y1).log_scale())
                    .map_err(e)?
            ),
            (false, false) => body!(b.build_cartesian_2d(x0..x1, y0..y1).map_err(e)?),
        }
        Ok(())
    }
}

/// Several line charts stacked in one SVG (one panel per workload, say).
pub fn render_panels(panels: &[LineChart], size: (u32, u32)) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let areas = root.split_evenly((panels.len().max(1), 1));
        for (p, a) in panels.iter().zip(areas.iter()) {
            p.draw_on(a)?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// Grouped bars: one group per category, one bar per series.
#[derive(Debug, Clone)]
pub struct BarChart {
    pub title: String,
    pub y_label: String,
    pub categories: Vec<String>,
    /// `(series label, one value per category; None = not measured)`.
    pub series: Vec<(String, Vec<Option<f64>>)>,
    pub y_log: bool,
    pub size: (u32, u32),
}

impl BarChart {
    pub fn new(title: &str, y_label: &str) -> BarChart {
        BarChart {
            title: title.into(),
            y_label: y_label.into(),
            categories: Vec::new(),
            series: Vec::new(),
            y_log: false,
            size: (900, 520),
        }
    }

    pub fn render(&self) -> Result<String, String> {
        let vals: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.1.iter().flatten().copied())
            .filter(|v| v.is_finite() && (!self.y_log || *v > 0.0))
            .collect();
        if vals.is_empty() || self.categories.is_empty() {
            return Err(format!("figure {:?} has no data to draw", self.title));
        }
        let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let n_cat = self.categories.len();
        let n_ser = self.series.len().max(1);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, self.size).into_drawing_area();
            let e = |e: DrawingAreaErrorKind<_>| e.to_string();
            root.fill(&WHITE).map_err(e)?;
            let mut b = ChartBuilder::on(&root);
            b.caption(&self.title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(60)
                .y_label_area_size(70);
            let cats = self.categories.clone();
            let fmt_x = move |x: &f64| {
                let i = x.round();
                if (x - i).abs() < 1e-9 && i >= 0.0 && (i as usize) < cats.len() {
                    cats[i as usize].clone()
                } else {
                    String::new()
                }
            };
            let fmt_y = |y: &f64| tick(*y);
            macro_rules! body {
                ($chart:expr, $base:expr) => {{
                    let mut chart = $chart;
                    chart
                        .configure_mesh()
                        .disable_x_mesh()
                        .x_labels(n_cat * 2 + 1)
                        .x_label_formatter(&fmt_x)
                        .y_label_formatter(&fmt_y)
                        .y_desc(self.y_label.as_str())
                        .draw()
                        .map_err(|e| e.to_string())?;
                    let w = 0.8 / n_ser as f64;
                    for (si, (label, vs)) in self.series.iter().enumerate() {
                        let c = color(si);
                        let bars: Vec<Rectangle<(f64, f64)>> = vs
                            .iter()
                            .enumerate()
                            .filter_map(|(ci, v)| {
                                v.filter(|v| v.is_finite() && (!self.y_log || *v > 0.0))
                                    .map(|v| (ci, v))
                            })
                            .map(|(ci, v)| {
                                let x0 = ci as f64 - 0.4 + si as f64 * w;
                                Rectangle::new([(x0, $base), (x0 + w * 0.9, v)], c.filled())
                            })
                            .collect();
                        chart
                            .draw_series(bars)
                            .map_err(|e| e.to_string())?
                            .label(label.as_str())
                            .legend(move |(x, y)| {
                                Rectangle::new([(x, y - 5), (x + 12, y + 5)], c.filled())
                            });
                    }
                    chart
                        .configure_series_labels()
                        .position(SeriesLabelPosition::UpperLeft)
                        .background_style(WHITE.mix(0.85))
                        .border_style(BLACK)
                        .draw()
                        .map_err(|e| e.to_string())?;
                }};
            }
            let xr = -0.6..(n_cat as f64 - 0.4);
            if self.y_log {
                let (y0, y1) = (lo / 2.0, hi * 2.0);
                body!(
                    b.build_cartesian_2d(xr, (y0..y1).log_scale()).map_err(e)?,
                    y0
                );
            } else {
                body!(b.build_cartesian_2d(xr, 0.0..hi * 1.15).map_err(e)?, 0.0);
            }
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }
}

/// A heatmap of values over a grid with labelled rows and columns (row 0 at the top).
#[derive(Debug, Clone)]
pub struct Heatmap {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_labels: Vec<String>,
    pub y_labels: Vec<String>,
    /// `values[row][col]`; `None` cells are drawn grey.
    pub values: Vec<Vec<Option<f64>>>,
    /// Printed in each cell when the grid is small enough.
    pub unit: String,
    /// The values the lightest and darkest colours stand for; `None`: the data's own range.
    pub range: Option<(f64, f64)>,
    pub size: (u32, u32),
}

impl Heatmap {
    pub fn render(&self) -> Result<String, String> {
        let rows = self.values.len();
        let cols = self.values.first().map_or(0, Vec::len);
        if rows == 0 || cols == 0 {
            return Err(format!("figure {:?} has no data to draw", self.title));
        }
        let vals: Vec<f64> = self
            .values
            .iter()
            .flatten()
            .flatten()
            .copied()
            .filter(|v| v.is_finite())
            .collect();
        let (lo, hi) = self.range.unwrap_or((
            vals.iter().copied().fold(f64::INFINITY, f64::min),
            vals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ));
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, self.size).into_drawing_area();
            root.fill(&WHITE).map_err(|e| e.to_string())?;
            let xl = self.x_labels.clone();
            let yl = self.y_labels.clone();
            let fx = move |x: &f64| label_at(&xl, *x);
            let fy = move |y: &f64| label_at(&yl, *y);
            let mut chart = ChartBuilder::on(&root)
                .caption(&self.title, ("sans-serif", 20))
                .margin(12)
                .x_label_area_size(45)
                .y_label_area_size(80)
                .build_cartesian_2d(-0.5..(cols as f64 - 0.5), (rows as f64 - 0.5)..-0.5)
                .map_err(|e| e.to_string())?;
            chart
                .configure_mesh()
                .disable_mesh()
                .x_labels(cols.min(32) * 2 + 1)
                .y_labels(rows.min(32) * 2 + 1)
                .x_label_formatter(&fx)
                .y_label_formatter(&fy)
                .x_desc(self.x_label.as_str())
                .y_desc(self.y_label.as_str())
                .draw()
                .map_err(|e| e.to_string())?;
            for (r, row) in self.values.iter().enumerate() {
                for (c, v) in row.iter().enumerate() {
                    let fill = match v {
                        Some(v) if v.is_finite() => {
                            let t = if hi > lo {
                                ((v - lo) / (hi - lo)).clamp(0.0, 1.0)
                            } else {
                                0.5
                            };
                            RGBColor(255, (235.0 - 190.0 * t) as u8, (200.0 - 190.0 * t) as u8)
                        }
                        _ => RGBColor(200, 200, 200),
                    };
                    let (x, y) = (c as f64, r as f64);
                    chart
                        .draw_series(std::iter::once(Rectangle::new(
                            [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                            fill.filled(),
                        )))
                        .map_err(|e| e.to_string())?;
                    if rows * cols <= 400 {
                        let text = v
                            .filter(|v| v.is_finite())
                            .map_or("-".to_string(), |v| format!("{}{}", tick(v), self.unit));
                        chart
                            .draw_series(std::iter::once(Text::new(
                                text,
                                (x - 0.3, y),
                                ("sans-serif", 11).into_font(),
                            )))
                            .map_err(|e| e.to_string())?;
                    }
                }
            }
            root.present().map_err(|e| e.to_string())?;
        }
        Ok(svg)
    }
}

fn label_at(labels: &[String], x: f64) -> String {
    let i = x.round();
    if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
        labels[i as usize].clone()
    } else {
        String::new()
    }
}

/// Tick text: short, deterministic, no trailing zeros.
pub fn tick(v: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if !(1e-3..1e6).contains(&a) {
        return format!("{v:.0e}");
    }
    let s = if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    };
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Formats a KiB count as "4K", "1M", "128M" (for working-set axes).
pub fn kib_label(kib: f64) -> String {
    if kib >= 1024.0 * 1024.0 {
        format!("{}G", tick(kib / 1024.0 / 1024.0))
    } else if kib >= 1024.0 {
        format!("{}M", tick(kib / 1024.0))
    } else {
        format!("{}K", tick(kib))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> LineChart {
        let mut c = LineChart::new("t", "x", "y");
        c.x_log = true;
        c.y_log = true;
        c.series.push(Series::new(
            "a",
            vec![(4.0, 1.0), (1024.0, 10.0)],
            Mark::LinePoints,
            0,
        ));
        c.series.push(Series::new(
            "b",
            vec![(4.0, 2.0), (1024.0, 20.0)],
            Mark::Dashed,
            1,
        ));
        c.verticals.push(Vertical {
            x: 48.0,
            label: "L1d".into(),
            color: 6,
        });
        c
    }

    #[test]
    fn line_chart_is_deterministic_svg() {
        let a = sample().render().unwrap();
        let b = sample().render().unwrap();
        assert_eq!(a, b);
        assert!(a.starts_with("<svg"));
        assert!(a.contains("L1d"));
    }

    #[test]
    fn empty_chart_is_an_error_not_a_panic() {
        let c = LineChart::new("empty", "x", "y");
        assert!(c.render().unwrap_err().contains("no data"));
        let mut c = LineChart::new("neg", "x", "y");
        c.y_log = true;
        c.series
            .push(Series::new("a", vec![(1.0, -1.0)], Mark::Line, 0));
        assert!(c.render().is_err());
    }

    #[test]
    fn bars_and_heatmap_render() {
        let mut b = BarChart::new("b", "ns");
        b.categories = vec!["x".into(), "y".into()];
        b.series = vec![("s".into(), vec![Some(1.0), None])];
        assert!(b.render().unwrap().contains("<rect"));
        let h = Heatmap {
            title: "h".into(),
            x_label: "to".into(),
            y_label: "from".into(),
            x_labels: vec!["0".into(), "1".into()],
            y_labels: vec!["0".into(), "1".into()],
            values: vec![vec![None, Some(50.0)], vec![Some(52.0), None]],
            unit: "".into(),
            range: None,
            size: (400, 400),
        };
        assert!(h.render().unwrap().contains("52"));
    }

    #[test]
    fn ticks() {
        assert_eq!(tick(1.5), "1.5");
        assert_eq!(tick(100.0), "100");
        assert_eq!(tick(0.25), "0.25");
        assert_eq!(kib_label(4.0), "4K");
        assert_eq!(kib_label(2048.0), "2M");
    }
}
