//! A small SVG chart for the overlay figures: line charts on log or linear axes, category
//! axes, whiskers, and a legend below the plot (outside it, so it never covers data).
//!
//! Written here rather than with plotters' log coordinates so that the axes are exactly the
//! ones the figures need (log axes labelled in every decade, power-of-two sizes as 4K 64K 1M)
//! and so that no value, however extreme (5e-324, 1e308), can make tick-finding loop: every
//! loop below is bounded, and positions are computed in log space. Output is deterministic:
//! the same chart gives the same bytes.

use std::fmt::Write as _;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    fn hex(self) -> String {
        format!("#{:02x}{:02x}{:02x}", self.0, self.1, self.2)
    }
}

pub const BLACK: Rgb = Rgb(0, 0, 0);
pub const GREY: Rgb = Rgb(160, 160, 160);

/// Colours for up to eight machines, colour-blind safe (Okabe-Ito without the yellow, and a
/// wine red), taken from the single-run figures' palette.
pub fn machine_color(i: usize) -> Rgb {
    const ORDER: [usize; 8] = [0, 1, 2, 3, 4, 5, 8, 6];
    let c = crate::figures::chart::PALETTE[ORDER[i % ORDER.len()]];
    Rgb(c.0, c.1, c.2)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    #[allow(dead_code)] // no overlay uses a linear axis today; tested below
    Linear,
    /// Powers of two (sizes, strides, counts that double).
    Log2,
    Log10,
    /// Named positions 0, 1, 2, ...
    Category,
}

/// How tick labels of a log2 axis read: the single-run figures' units (`Bytes`: 1, 64, 1K,
/// 4K, 1M; `KiB`: 4K, 64K, 1M, 16M for values in KiB; any other: plain numbers).
pub use crate::figures::chart::Units;

#[derive(Debug, Clone)]
pub struct Axis {
    pub title: String,
    pub scale: Scale,
    pub units: Units,
    pub categories: Vec<String>,
    /// Linear axes: include zero.
    pub from_zero: bool,
}

impl Axis {
    pub fn new(title: &str, scale: Scale) -> Axis {
        Axis {
            title: title.into(),
            scale,
            units: Units::Plain,
            categories: Vec::new(),
            from_zero: false,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Line {
    pub points: Vec<(f64, f64)>,
    pub color: Rgb,
    pub width: f64,
    pub dashed: bool,
    pub markers: bool,
}

/// A horizontal min..max bar at category `y` (dot plots).
#[derive(Debug, Clone)]
pub struct Whisker {
    pub y: f64,
    pub lo: f64,
    pub hi: f64,
    pub color: Rgb,
}

#[derive(Debug, Clone)]
pub struct LegendEntry {
    pub label: String,
    pub color: Rgb,
    pub dashed: bool,
    pub width: f64,
    pub marker: bool,
}

/// A dashed vertical line (a reported size); it has its own legend entry.
#[derive(Debug, Clone)]
pub struct Vertical {
    pub x: f64,
    pub color: Rgb,
}

#[derive(Debug, Clone)]
pub struct Chart {
    pub title: String,
    pub subtitle: String,
    pub x: Axis,
    pub y: Axis,
    pub lines: Vec<Line>,
    pub whiskers: Vec<Whisker>,
    pub verticals: Vec<Vertical>,
    pub legend: Vec<LegendEntry>,
    /// Lines of text under the legend (key ratios, what was left out).
    pub notes: Vec<String>,
    pub plot_height: f64,
}

const W: f64 = 900.0;
const RIGHT: f64 = 24.0;
const TOP: f64 = 62.0;
const CHAR: f64 = 7.0;

impl Chart {
    pub fn new(title: &str, x: Axis, y: Axis) -> Chart {
        Chart {
            title: title.into(),
            subtitle: String::new(),
            x,
            y,
            lines: Vec::new(),
            whiskers: Vec::new(),
            verticals: Vec::new(),
            legend: Vec::new(),
            notes: Vec::new(),
            plot_height: 380.0,
        }
    }
}

/// A tick: its position in axis space (log already taken), its label, and whether labelled.
struct Tick {
    t: f64,
    label: Option<String>,
}

struct Frame {
    t0: f64,
    t1: f64,
    ticks: Vec<Tick>,
}

fn transform(scale: Scale, v: f64) -> Option<f64> {
    let t = match scale {
        Scale::Linear | Scale::Category => v,
        Scale::Log2 if v > 0.0 => v.log2(),
        Scale::Log10 if v > 0.0 => v.log10(),
        _ => return None,
    };
    t.is_finite().then_some(t)
}

/// 2^e in the axis unit: sizes as the single-run figures write them (4K, 1M), other
/// numbers plain (1024, not grouped).
fn pow2_label(e: i64, units: Units) -> String {
    match units {
        Units::Bytes | Units::KiB => crate::figures::chart::axis::fmt_pow2(e, units),
        _ if (0..=62).contains(&e) => format!("{}", 1u64 << e),
        _ => format!("2^{e}"),
    }
}

fn pow10_label(e: i64, k: i64) -> String {
    if (-3..=5).contains(&e) {
        crate::figures::chart::num(k as f64 * 10f64.powi(e as i32))
    } else {
        format!("{k}e{e}")
    }
}

/// The frame with 2% of room on each side, so that points on the first or last tick are
/// drawn whole inside the plot.
fn frame(axis: &Axis, ts: &[f64]) -> Frame {
    let mut f = frame_exact(axis, ts);
    if axis.scale != Scale::Category {
        let d = (f.t1 - f.t0) * 0.02;
        if d.is_finite() {
            f.t0 -= d;
            f.t1 += d;
        }
    }
    f
}

fn frame_exact(axis: &Axis, ts: &[f64]) -> Frame {
    if axis.scale == Scale::Category {
        let n = axis.categories.len().max(1);
        return Frame {
            t0: -0.5,
            t1: n as f64 - 0.5,
            ticks: axis
                .categories
                .iter()
                .enumerate()
                .map(|(i, c)| Tick {
                    t: i as f64,
                    label: Some(c.clone()),
                })
                .collect(),
        };
    }
    let lo = ts.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = ts.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = if lo.is_finite() && hi.is_finite() {
        (lo, hi)
    } else {
        (0.0, 1.0)
    };
    match axis.scale {
        Scale::Log2 => {
            let (mut e0, mut e1) = (lo.floor() as i64, hi.ceil() as i64);
            if e1 <= e0 {
                e0 -= 1;
                e1 += 1;
            }
            let mut step = 1i64;
            while (e1 - e0) / step + 1 > 9 && step < 1 << 20 {
                step *= 2;
            }
            let n = (e1 - e0 + step - 1) / step;
            let e1 = e0 + n * step;
            let mut ticks = Vec::new();
            let mut e = e0;
            while e <= e1 && ticks.len() < 200 {
                ticks.push(Tick {
                    t: e as f64,
                    label: ((e - e0) % step == 0).then(|| pow2_label(e, axis.units)),
                });
                e += if step > 8 { step } else { 1 };
            }
            Frame {
                t0: e0 as f64,
                t1: e1 as f64,
                ticks,
            }
        }
        Scale::Log10 => {
            let (e0, mut e1) = (lo.floor() as i64, hi.ceil() as i64);
            if e1 <= e0 {
                e1 = e0 + 1;
            }
            let mut ticks = Vec::new();
            if e1 - e0 >= 3 {
                let mut step = 1;
                while (e1 - e0) / step + 1 > 10 && step < 1 << 20 {
                    step *= 2;
                }
                let n = (e1 - e0 + step - 1) / step;
                e1 = e0 + n * step;
                let mut e = e0;
                while e <= e1 && ticks.len() < 200 {
                    ticks.push(Tick {
                        t: e as f64,
                        label: Some(pow10_label(e, 1)),
                    });
                    if step == 1 && e < e1 {
                        for k in 2..10 {
                            ticks.push(Tick {
                                t: e as f64 + (k as f64).log10(),
                                label: None,
                            });
                        }
                    }
                    e += step;
                }
                Frame {
                    t0: e0 as f64,
                    t1: e1 as f64,
                    ticks,
                }
            } else {
                // Under three decades: the 1-2-5 grid, every grid value labelled.
                let grid: Vec<(f64, i64, i64)> = (e0..=e1)
                    .flat_map(|e| [1, 2, 5].map(|k| ((k as f64).log10() + e as f64, e, k)))
                    .collect();
                let start = grid
                    .iter()
                    .rev()
                    .find(|g| g.0 <= lo + 1e-9)
                    .unwrap_or(&grid[0])
                    .0;
                let end = grid
                    .iter()
                    .find(|g| g.0 >= hi - 1e-9)
                    .unwrap_or(&grid[grid.len() - 1])
                    .0;
                for &(t, e, k) in &grid {
                    if t >= start - 1e-9 && t <= end + 1e-9 {
                        ticks.push(Tick {
                            t,
                            label: Some(pow10_label(e, k)),
                        });
                    }
                }
                for e in e0..e1 {
                    for k in [3, 4, 6, 7, 8, 9] {
                        let t = e as f64 + (k as f64).log10();
                        if t > start && t < end {
                            ticks.push(Tick { t, label: None });
                        }
                    }
                }
                let (start, end) = if end > start {
                    (start, end)
                } else {
                    (start - 1.0, end + 1.0)
                };
                Frame {
                    t0: start,
                    t1: end,
                    ticks,
                }
            }
        }
        Scale::Linear | Scale::Category => {
            let lo = if axis.from_zero { lo.min(0.0) } else { lo };
            let hi = if axis.from_zero { hi.max(0.0) } else { hi };
            let (lo, hi) = if hi > lo {
                (lo, hi)
            } else {
                let d = if lo == 0.0 { 1.0 } else { lo.abs() * 0.1 };
                (lo - d, hi + d)
            };
            let span = hi - lo;
            if !span.is_finite() || span <= 0.0 {
                return Frame {
                    t0: lo,
                    t1: hi,
                    ticks: vec![
                        Tick {
                            t: lo,
                            label: Some(format!("{lo:.0e}")),
                        },
                        Tick {
                            t: hi,
                            label: Some(format!("{hi:.0e}")),
                        },
                    ],
                };
            }
            let raw = span / 6.0;
            let mag = 10f64.powf(raw.log10().floor());
            let step = [1.0, 2.0, 5.0, 10.0]
                .iter()
                .map(|k| k * mag)
                .find(|s| *s >= raw)
                .unwrap_or(10.0 * mag);
            let t0 = (lo / step).floor() * step;
            let t1 = (hi / step).ceil() * step;
            let mut ticks = Vec::new();
            let mut i = 0.0;
            while t0 + i * step <= t1 + step * 1e-9 && ticks.len() < 50 {
                let v = t0 + i * step;
                let v = if v.abs() < step * 1e-9 { 0.0 } else { v };
                ticks.push(Tick {
                    t: v,
                    label: Some(crate::figures::chart::num(v)),
                });
                i += 1.0;
            }
            Frame { t0, t1, ticks }
        }
    }
}

/// Text shortened to `max` characters with an ellipsis.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let t: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{t}…")
    }
}

impl Chart {
    /// The chart as SVG text, or why it cannot be drawn (no drawable point).
    pub fn render(&self) -> Result<String, String> {
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        let mut dropped = 0usize;
        for l in &self.lines {
            for &(x, y) in &l.points {
                match (transform(self.x.scale, x), transform(self.y.scale, y)) {
                    (Some(a), Some(b)) => {
                        xs.push(a);
                        ys.push(b);
                    }
                    _ => dropped += 1,
                }
            }
        }
        for w in &self.whiskers {
            for v in [w.lo, w.hi] {
                if let Some(t) = transform(self.x.scale, v) {
                    xs.push(t);
                }
            }
        }
        if xs.is_empty() || ys.is_empty() {
            return Err(format!("figure {:?} has no point to draw", self.title));
        }
        for v in &self.verticals {
            if let Some(t) = transform(self.x.scale, v.x) {
                xs.push(t);
            }
        }
        let fx = frame(&self.x, &xs);
        let fy = frame(&self.y, &ys);
        // The left margin fits the longest y label.
        let ylab = fy
            .ticks
            .iter()
            .filter_map(|t| t.label.as_ref())
            .map(|l| l.chars().count())
            .max()
            .unwrap_or(3);
        let left = (ylab as f64 * CHAR + 40.0).clamp(70.0, 300.0);
        let pw = W - left - RIGHT;
        let ph = self.plot_height;
        let bottom = TOP + ph;
        // Positions; a degenerate range (one value near the limits of f64) draws at the middle.
        let place = |t: f64, f: &Frame| {
            let f = (t - f.t0) / (f.t1 - f.t0);
            if f.is_finite() {
                f.clamp(-0.05, 1.05)
            } else {
                0.5
            }
        };
        let px = |t: f64| left + place(t, &fx) * pw;
        let py = |t: f64| bottom - place(t, &fy) * ph;

        // Legend rows below the x axis title.
        let legend_top = bottom + 62.0;
        let mut rows: Vec<Vec<(f64, &LegendEntry)>> = vec![Vec::new()];
        let mut cx = left;
        for e in &self.legend {
            let w = 40.0 + e.label.chars().count() as f64 * CHAR;
            if cx + w > W - RIGHT && !rows.last().is_some_and(Vec::is_empty) {
                rows.push(Vec::new());
                cx = left;
            }
            if let Some(r) = rows.last_mut() {
                r.push((cx, e));
            }
            cx += w + 14.0;
        }
        let legend_h = if self.legend.is_empty() {
            0.0
        } else {
            rows.len() as f64 * 20.0
        };
        let mut notes: Vec<String> = self
            .notes
            .iter()
            .flat_map(|n| super::wrap(n, 118, "", ""))
            .collect();
        if dropped > 0 {
            notes.push(format!(
                "{dropped} value(s) not drawn: zero, negative or not finite on a log axis."
            ));
        }
        let notes_top = legend_top + legend_h + 10.0;
        let height = (notes_top + notes.len() as f64 * 17.0 + 8.0).ceil();

        let mut s = String::new();
        let _ = writeln!(
            s,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{height}" viewBox="0 0 {W} {height}" font-family="sans-serif">"#
        );
        let _ = writeln!(
            s,
            r##"<rect x="0" y="0" width="{W}" height="{height}" fill="#ffffff"/>"##
        );
        let _ = writeln!(
            s,
            r#"<text x="{}" y="24" font-size="17" font-weight="bold" text-anchor="middle">{}</text>"#,
            W / 2.0,
            super::html::escape(&self.title)
        );
        if !self.subtitle.is_empty() {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="44" font-size="13" fill="#444444" text-anchor="middle">{}</text>"##,
                W / 2.0,
                super::html::escape(&self.subtitle)
            );
        }
        // Grid and ticks.
        for t in &fx.ticks {
            if !(t.t >= fx.t0 - 1e-9 && t.t <= fx.t1 + 1e-9) {
                continue;
            }
            let x = px(t.t);
            let (stroke, y2) = if t.label.is_some() {
                ("#e4e4e4", TOP)
            } else {
                ("#f2f2f2", TOP)
            };
            if self.x.scale != Scale::Category {
                let _ = writeln!(
                    s,
                    r#"<line x1="{x:.1}" y1="{bottom:.1}" x2="{x:.1}" y2="{y2:.1}" stroke="{stroke}"/>"#
                );
            }
            let _ = writeln!(
                s,
                r##"<line x1="{x:.1}" y1="{bottom:.1}" x2="{x:.1}" y2="{:.1}" stroke="#555555"/>"##,
                bottom + if t.label.is_some() { 5.0 } else { 3.0 }
            );
            if let Some(l) = &t.label {
                let _ = writeln!(
                    s,
                    r#"<text x="{x:.1}" y="{:.1}" font-size="13" text-anchor="middle">{}</text>"#,
                    bottom + 20.0,
                    super::html::escape(l)
                );
            }
        }
        for t in &fy.ticks {
            if !(t.t >= fy.t0 - 1e-9 && t.t <= fy.t1 + 1e-9) {
                continue;
            }
            let y = py(t.t);
            if self.y.scale != Scale::Category {
                let stroke = if t.label.is_some() {
                    "#e4e4e4"
                } else {
                    "#f2f2f2"
                };
                let _ = writeln!(
                    s,
                    r#"<line x1="{left:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{stroke}"/>"#,
                    left + pw
                );
            }
            let _ = writeln!(
                s,
                r##"<line x1="{:.1}" y1="{y:.1}" x2="{left:.1}" y2="{y:.1}" stroke="#555555"/>"##,
                left - if t.label.is_some() { 5.0 } else { 3.0 }
            );
            if let Some(l) = &t.label {
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" font-size="13" text-anchor="end">{}</text>"#,
                    left - 8.0,
                    y + 4.5,
                    super::html::escape(l)
                );
            }
        }
        let _ = writeln!(
            s,
            r##"<rect x="{left:.1}" y="{TOP:.1}" width="{pw:.1}" height="{ph:.1}" fill="none" stroke="#777777"/>"##
        );
        // Axis titles.
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" font-size="14" text-anchor="middle">{}</text>"#,
            left + pw / 2.0,
            bottom + 42.0,
            super::html::escape(&self.x.title)
        );
        let _ = writeln!(
            s,
            r#"<text x="18" y="{:.1}" font-size="14" text-anchor="middle" transform="rotate(-90 18 {:.1})">{}</text>"#,
            TOP + ph / 2.0,
            TOP + ph / 2.0,
            super::html::escape(&self.y.title)
        );
        // Verticals, then whiskers, then lines in the order given (the last on top).
        for v in &self.verticals {
            if let Some(t) = transform(self.x.scale, v.x) {
                let x = px(t);
                let _ = writeln!(
                    s,
                    r#"<line x1="{x:.1}" y1="{bottom:.1}" x2="{x:.1}" y2="{TOP:.1}" stroke="{}" stroke-width="1.5" stroke-dasharray="3 4"/>"#,
                    v.color.hex()
                );
            }
        }
        for w in &self.whiskers {
            let (Some(a), Some(b), Some(y)) = (
                transform(self.x.scale, w.lo),
                transform(self.x.scale, w.hi),
                transform(self.y.scale, w.y),
            ) else {
                continue;
            };
            let (x1, x2, y) = (px(a), px(b), py(y));
            let c = w.color.hex();
            let _ = writeln!(
                s,
                r#"<path d="M{x1:.1},{y:.1} H{x2:.1} M{x1:.1},{:.1} V{:.1} M{x2:.1},{:.1} V{:.1}" stroke="{c}" stroke-width="1.5" fill="none"/>"#,
                y - 4.0,
                y + 4.0,
                y - 4.0,
                y + 4.0
            );
        }
        for l in &self.lines {
            let pts: Vec<(f64, f64)> = l
                .points
                .iter()
                .filter_map(|&(x, y)| {
                    Some((
                        px(transform(self.x.scale, x)?),
                        py(transform(self.y.scale, y)?),
                    ))
                })
                .collect();
            let c = l.color.hex();
            if pts.len() > 1 {
                let p: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
                let dash = if l.dashed {
                    r#" stroke-dasharray="8 5""#
                } else {
                    ""
                };
                let _ = writeln!(
                    s,
                    r#"<polyline points="{}" fill="none" stroke="{c}" stroke-width="{}" stroke-linejoin="round"{dash}/>"#,
                    p.join(" "),
                    l.width
                );
            }
            if l.markers || pts.len() == 1 {
                let r = (l.width + 1.5).min(4.5);
                for (x, y) in &pts {
                    let fill = if l.dashed { "#ffffff" } else { c.as_str() };
                    let _ = writeln!(
                        s,
                        r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r:.1}" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#
                    );
                }
            }
        }
        // The legend, below the plot.
        for (ri, row) in rows.iter().enumerate() {
            let y = legend_top + ri as f64 * 20.0;
            for (x, e) in row {
                let c = e.color.hex();
                let dash = if e.dashed {
                    r#" stroke-dasharray="8 5""#
                } else {
                    ""
                };
                let _ = writeln!(
                    s,
                    r#"<line x1="{x:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{c}" stroke-width="{}"{dash}/>"#,
                    x + 30.0,
                    e.width.max(1.5)
                );
                if e.marker {
                    let fill = if e.dashed { "#ffffff" } else { c.as_str() };
                    let _ = writeln!(
                        s,
                        r#"<circle cx="{:.1}" cy="{y:.1}" r="3.5" fill="{fill}" stroke="{c}" stroke-width="1.5"/>"#,
                        x + 15.0
                    );
                }
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" font-size="13">{}</text>"#,
                    x + 38.0,
                    y + 4.5,
                    super::html::escape(&e.label)
                );
            }
        }
        for (i, n) in notes.iter().enumerate() {
            let _ = writeln!(
                s,
                r##"<text x="{left:.1}" y="{:.1}" font-size="13" fill="#333333">{}</text>"##,
                notes_top + 12.0 + i as f64 * 17.0,
                super::html::escape(n)
            );
        }
        s.push_str("</svg>\n");
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(xs: Scale, ys: Scale, pts: Vec<(f64, f64)>) -> Chart {
        let mut c = Chart::new("t", Axis::new("x", xs), Axis::new("y", ys));
        c.lines.push(Line {
            points: pts,
            color: BLACK,
            width: 2.0,
            dashed: false,
            markers: true,
        });
        c
    }

    /// Renders `c` and checks that every one of `wants` is a tick label.
    fn assert_labels(c: &Chart, wants: &[&str]) {
        let svg = c.render().unwrap();
        let l: Vec<String> = svg
            .lines()
            .filter(|l| l.contains(r#"font-size="13" text-anchor"#))
            .filter_map(|l| Some(l.split('>').nth(1)?.split('<').next()?.to_string()))
            .collect();
        for want in wants {
            assert!(l.contains(&want.to_string()), "{want} in {l:?}");
        }
    }

    #[test]
    fn power_of_two_sizes_and_every_decade_are_labelled() {
        let mut c = chart(
            Scale::Log2,
            Scale::Log10,
            vec![(4.0, 0.98), (1024.0, 5.0), (131072.0, 305.0)],
        );
        c.x.units = Units::KiB;
        assert_labels(
            &c,
            &["4K", "64K", "1M", "16M", "0.1", "1", "10", "100", "1000"],
        );
    }

    #[test]
    fn a_narrow_log_range_uses_the_1_2_5_grid() {
        let mut c = chart(Scale::Log2, Scale::Log10, vec![(1.0, 0.48), (4096.0, 7.8)]);
        c.x.units = Units::Bytes;
        assert_labels(&c, &["0.2", "0.5", "1", "2", "5", "10", "1", "64", "4K"]);
    }

    #[test]
    fn extreme_values_finish_and_are_deterministic() {
        for pts in [
            vec![(5e-324, 1e308), (1e308, 5e-324)],
            vec![(1.0, 1e-308), (2.0, 1e308)],
            vec![(0.0, -1.0), (1.0, 1.0)],
            vec![(-1e308, 1e308), (1e308, -1e308)],
            vec![(3.0, 3.0)],
        ] {
            for xs in [Scale::Linear, Scale::Log2, Scale::Log10] {
                for ys in [Scale::Linear, Scale::Log10] {
                    let c = chart(xs, ys, pts.clone());
                    let a = c.render();
                    assert_eq!(a, c.render());
                    if let Ok(svg) = a {
                        assert!(svg.len() < 200_000, "{xs:?} {ys:?} {pts:?}");
                    }
                }
            }
        }
        assert!(
            chart(Scale::Log10, Scale::Log10, vec![(0.0, 0.0)])
                .render()
                .is_err()
        );
    }

    #[test]
    fn the_legend_sits_below_the_plot() {
        let mut c = chart(Scale::Linear, Scale::Linear, vec![(1.0, 1.0), (2.0, 3.0)]);
        c.legend.push(LegendEntry {
            label: "machine".into(),
            color: BLACK,
            dashed: true,
            width: 2.0,
            marker: true,
        });
        let svg = c.render().unwrap();
        let y: f64 = svg
            .lines()
            .find(|l| l.contains(">machine<"))
            .and_then(|l| l.split("y=\"").nth(1)?.split('"').next()?.parse().ok())
            .unwrap();
        assert!(y > TOP + c.plot_height + 40.0);
    }

    #[test]
    fn labels_read_as_sizes() {
        assert_eq!(pow2_label(2, Units::KiB), "4K");
        assert_eq!(pow2_label(10, Units::KiB), "1M");
        assert_eq!(pow2_label(6, Units::Bytes), "64");
        assert_eq!(pow2_label(12, Units::Bytes), "4K");
        assert_eq!(pow2_label(16, Units::Plain), "65536");
        assert_eq!(clip("abcdef", 4), "abc…");
    }
}
