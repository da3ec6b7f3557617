//! Strip plots: every measured value of a few columns as dots (spread shown by the dots
//! themselves), a black bar at each median, horizontal references, and ratio brackets
//! between column medians. On a linear axis, values far above the rest are drawn as
//! triangles at the top edge and listed, so one interrupted pass does not flatten the rest.

use super::Rgb;
use super::axis::{Axis, AxisSpec, Scale};
use super::line::HLine;
use super::{
    Align, BLACK_C, Canvas, Dash, Edge, Geometry, Glyph, LABEL, Legend, Marker, PanelGeom, Rect,
    SMALL, Style, place, render, text_box_rect, wrap,
};

/// One column of dots.
#[derive(Clone, Debug)]
pub struct Column {
    pub label: String,
    pub values: Vec<f64>,
    pub color: Rgb,
    /// Per value (in the order of `values`): its rounds were disturbed, so its dot is drawn
    /// hollow. Empty (or short): none is.
    pub disturbed: Vec<bool>,
}

impl Column {
    /// Whether the `k`-th value is drawn hollow.
    fn is_disturbed(&self, k: usize) -> bool {
        self.disturbed.get(k).copied().unwrap_or(false)
    }
}

/// A key ratio between the medians of two columns.
#[derive(Clone, Debug)]
pub struct StripRatio {
    pub a: usize,
    pub b: usize,
    pub text: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct Strip {
    pub title: String,
    pub y: AxisSpec,
    pub columns: Vec<Column>,
    pub refs: Vec<HLine>,
    pub ratios: Vec<StripRatio>,
    /// How values are written in the notes.
    pub fmt: fn(f64) -> String,
    pub width: u32,
    pub plot_height: u32,
}

/// A deterministic horizontal offset for the k-th dot of a column (golden-ratio sequence).
fn jitter(k: usize) -> f64 {
    ((k as f64 * 0.618_034).fract() - 0.5) * 0.5
}

const HEAD: f64 = 44.0;

impl Strip {
    fn median(v: &[f64]) -> Option<f64> {
        measure::stats::median(v)
    }

    /// Linear axes: values above 1.5 times the largest median are off scale.
    fn cap(&self) -> Option<f64> {
        if self.y.scale != Scale::Linear {
            return None;
        }
        let m = self
            .columns
            .iter()
            .filter_map(|c| Self::median(&c.values))
            .fold(f64::NEG_INFINITY, f64::max);
        (m.is_finite() && m > 0.0).then_some(m * 1.5)
    }

    fn legend(&self) -> Legend {
        let mut l = Legend::default();
        l.push(
            Glyph::Horizontal(BLACK_C, Dash::Solid),
            "black bar: the median; each dot one value (ringed: a column's only one)",
        );
        l.hlines(&self.refs);
        if let Some(cap) = self.cap()
            && self
                .columns
                .iter()
                .any(|c| c.values.iter().any(|v| *v > cap))
        {
            l.push(
                Glyph::Series(Style::points(6, Marker::Clipped)),
                "triangle at the top: a value off this scale (written above its column)",
            );
        }
        if self
            .columns
            .iter()
            .any(|c| (0..c.values.len()).any(|k| c.is_disturbed(k)))
        {
            l.push(
                Glyph::Series(Style::hollow(super::GREY, 5)),
                crate::marks::LEGEND,
            );
        }
        l
    }

    pub fn height(&self) -> u32 {
        let w = f64::from(self.width);
        let title = wrap(&self.title, super::TITLE, w - 30.0).len() as f64 * super::TITLE * 1.2;
        (10.0
            + title
            + 10.0
            + f64::from(self.plot_height)
            + 40.0
            + self.legend().height(w - 30.0)
            + 10.0)
            .ceil() as u32
    }

    pub fn draw(&self, c: &mut Canvas, x0: f64, y0: f64) -> Result<(), String> {
        let w = f64::from(self.width);
        let mut y = y0 + 10.0;
        y += c.title(&self.title, x0 + w / 2.0, y, w - 30.0)? + 10.0;
        let f = self.frame(x0, y)?;
        let plot = f.plot;
        let mut geom = PanelGeom {
            plot: Some(plot),
            y_continuous: true,
            ..PanelGeom::default()
        };
        c.minor_grid(plot, Edge::Left, &f.axis.minor, |t| f.ty(t))?;
        c.grid(
            plot,
            Edge::Left,
            &f.axis.ticks,
            |t| f.ty(t),
            false,
            &mut geom,
        )?;
        c.rect(plot, None, Some((BLACK_C, Dash::Solid)))?;
        c.y_title(&self.y.title, plot, x0 + 14.0)?;
        c.hlines(plot, &self.refs, |v| f.fy(v))?;
        let mut medians = Vec::new();
        for (i, col) in self.columns.iter().enumerate() {
            medians.push(self.draw_column(c, &f, i, col, &mut geom)?);
        }
        for r in &self.ratios {
            let (Some(Some(ma)), Some(Some(mb))) = (medians.get(r.a), medians.get(r.b)) else {
                continue;
            };
            draw_ratio(c, &f, r, (*ma, *mb), &geom)?;
        }
        self.legend()
            .draw(c, x0 + 14.0, x0 + w - 14.0, plot.y1 + 34.0)?;
        c.geom.panels.push(geom);
        Ok(())
    }

    /// The plot, its top at `y`, with the value axis fitted to the values on scale, and
    /// one slot a column.
    fn frame(&self, x0: f64, y: f64) -> Result<StripFrame, String> {
        let w = f64::from(self.width);
        let cap = self.cap();
        let shown = |v: &f64| self.y.drawable(*v) && cap.is_none_or(|c| *v <= c);
        let mut ys: Vec<f64> = self
            .columns
            .iter()
            .flat_map(|c| c.values.iter().copied())
            .filter(shown)
            .collect();
        if let Some(cap) = cap
            && self
                .columns
                .iter()
                .any(|c| c.values.iter().any(|v| *v > cap))
        {
            ys.push(cap);
        }
        ys.extend(HLine::ys(&self.refs, &self.y));
        let plot_h = f64::from(self.plot_height);
        let axis = Axis::fit(&self.y, &ys, plot_h - HEAD - 10.0, &|_| 24.0)
            .map_err(|e| format!("figure {:?}: {e}", self.title))?;
        let plot = Rect::new(
            x0 + 36.0 + axis.label_w() + 8.0,
            y,
            x0 + w - 14.0,
            y + plot_h,
        );
        let n = self.columns.len().max(1);
        let slot = plot.w() / n as f64;
        Ok(StripFrame {
            plot,
            axis,
            cap,
            slot,
            half: (slot * 0.42).min(60.0),
        })
    }

    /// Column `i`: its label, its dots, its values off scale, its median bar and its
    /// numbers; returns its median.
    fn draw_column(
        &self,
        c: &mut Canvas,
        f: &StripFrame,
        i: usize,
        col: &Column,
        geom: &mut PanelGeom,
    ) -> Result<Option<f64>, String> {
        let (plot, half) = (f.plot, f.half);
        let x = f.cx(i);
        c.text(
            &col.label,
            (x, plot.y1 + 8.0),
            SMALL,
            BLACK_C,
            Align::Center,
            0,
            false,
        )?;
        geom.x_ticks.push((x, col.label.clone()));
        let spread = if col.values.len() > 1 {
            f.slot * 0.8
        } else {
            0.0
        };
        for (k, v) in col.values.iter().enumerate() {
            if !self.shown(f, v) {
                continue;
            }
            if let Some(yy) = f.fy(*v) {
                let p = (x + jitter(k) * spread, yy);
                if col.is_disturbed(k) {
                    c.marker(Marker::Hollow, p, 4, col.color)?;
                } else {
                    c.circle(p, 3, col.color, true, 1)?;
                }
                geom.points.push(p);
            }
        }
        self.draw_off_scale(c, f, col, (x, spread), geom)?;
        let m = Self::median(&col.values);
        // One value has no median to draw: its dot, enlarged and ringed, stands alone.
        if let (Some(m), true) = (m, col.values.len() > 1)
            && let Some(yy) = f.fy(m)
        {
            c.line(&[(x - half, yy), (x + half, yy)], BLACK_C, 3, Dash::Solid)?;
            geom.points
                .extend([(x - half, yy), (x, yy), (x + half, yy)]);
        } else if let [v] = col.values[..]
            && self.shown(f, &v)
            && let Some(yy) = f.fy(v)
        {
            if col.is_disturbed(0) {
                c.marker(Marker::Hollow, (x, yy), 6, col.color)?;
            } else {
                c.circle((x, yy), 6, col.color, true, 1)?;
            }
            c.circle((x, yy), 9, BLACK_C, false, 1)?;
        }
        self.draw_column_note(c, f, col, x, m)?;
        Ok(m)
    }

    /// Whether value `v` is drawn on the axis (not off scale).
    fn shown(&self, f: &StripFrame, v: &f64) -> bool {
        self.y.drawable(*v) && f.cap.is_none_or(|c| *v <= c)
    }

    /// A column's values off scale: triangles at the top edge, and the values written.
    fn draw_off_scale(
        &self,
        c: &mut Canvas,
        f: &StripFrame,
        col: &Column,
        (x, spread): (f64, f64),
        geom: &mut PanelGeom,
    ) -> Result<(), String> {
        let (off, hollow): (Vec<f64>, Vec<bool>) = col
            .values
            .iter()
            .enumerate()
            .filter(|(_, v)| f.cap.is_some_and(|c| **v > c))
            .map(|(k, v)| (*v, col.is_disturbed(k)))
            .unzip();
        let (Some(cap), false) = (f.cap, off.is_empty()) else {
            return Ok(());
        };
        let yy = f.fy(cap).unwrap_or(f.plot.y0 + HEAD);
        for (k, h) in hollow.iter().enumerate() {
            let p = (x + jitter(k) * spread, yy);
            c.marker(Marker::Clipped, p, 5, col.color)?;
            if *h {
                // Hollow: white inside a rim of the column's colour.
                c.marker(Marker::Clipped, p, 3, Rgb(255, 255, 255))?;
            }
            geom.points.push(p);
        }
        let mut vals = off.clone();
        vals.sort_by(f64::total_cmp);
        let list: Vec<String> = vals.iter().take(4).map(|v| (self.fmt)(*v)).collect();
        let more = if vals.len() > 4 {
            format!(" and {} more", vals.len() - 4)
        } else {
            String::new()
        };
        let r = c.text(
            &format!("off scale: {}{more}", list.join(", ")),
            (x, yy - 10.0),
            SMALL,
            col.color,
            Align::Center,
            2,
            false,
        )?;
        c.geom.boxes.push(r);
        Ok(())
    }

    /// The column's numbers, in the head room above the plot's data.
    fn draw_column_note(
        &self,
        c: &mut Canvas,
        f: &StripFrame,
        col: &Column,
        x: f64,
        m: Option<f64>,
    ) -> Result<(), String> {
        let lo = col.values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = col.values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let note = match (m, col.values.len()) {
            (Some(m), 1) => vec![format!("one shot: {}", (self.fmt)(m))],
            (Some(m), k) => vec![
                format!("median {} (n={k})", (self.fmt)(m)),
                format!("max/min {}", super::ratio(hi / lo)),
            ],
            _ => vec!["no value".into()],
        };
        let r = c.text_box(
            &note,
            (x, f.plot.y0 + 3.0),
            SMALL,
            col.color,
            Align::Center,
            false,
        )?;
        c.geom.boxes.push(r);
        Ok(())
    }
}

/// A strip's plot and value axis, the values above `cap` off scale, and the columns'
/// slots (`half`: half a median bar).
struct StripFrame {
    plot: Rect,
    axis: Axis,
    cap: Option<f64>,
    slot: f64,
    half: f64,
}

impl StripFrame {
    /// The pixel row of value `v`.
    fn fy(&self, v: f64) -> Option<f64> {
        self.axis
            .frac(v)
            .map(|f| self.plot.y1 - 10.0 - f * (self.plot.h() - HEAD - 10.0))
    }

    /// The pixel row of tick position `t`.
    fn ty(&self, t: f64) -> f64 {
        self.plot.y1 - 10.0 - self.axis.frac_t(t) * (self.plot.h() - HEAD - 10.0)
    }

    /// The centre of column `i`.
    fn cx(&self, i: usize) -> f64 {
        self.plot.x0 + self.slot * (i as f64 + 0.5)
    }
}

/// A ratio between two columns' medians (`ma`, `mb`): a bracket, or a dotted line where
/// the medians are too close, and its text where it covers least.
fn draw_ratio(
    c: &mut Canvas,
    f: &StripFrame,
    r: &StripRatio,
    (ma, mb): (f64, f64),
    geom: &PanelGeom,
) -> Result<(), String> {
    let (Some(ya), Some(yb)) = (f.fy(ma), f.fy(mb)) else {
        return Ok(());
    };
    let bx = (f.cx(r.a) + f.cx(r.b)) / 2.0;
    let (top, bottom) = (ya.min(yb), ya.max(yb));
    if bottom - top < 8.0 {
        // Medians too close for a bracket (it would read as a dash): a dotted line
        // joins the two median bars instead.
        let (xa, xb) = (f.cx(r.a.min(r.b)) + f.half, f.cx(r.a.max(r.b)) - f.half);
        let (y0, y1) = if r.a < r.b { (ya, yb) } else { (yb, ya) };
        c.line(&[(xa, y0), (xb, y1)], BLACK_C, 2, Dash::Dotted)?;
    } else {
        c.line(
            &[(bx - 5.0, top), (bx, top), (bx, bottom), (bx - 5.0, bottom)],
            BLACK_C,
            2,
            Dash::Solid,
        )?;
    }
    let proto = text_box_rect(
        &r.text,
        (bx + 8.0, (top + bottom) / 2.0),
        LABEL,
        Align::Left,
    );
    let h = proto.h();
    let right = Rect::new(
        proto.x0,
        (top + bottom - h) / 2.0,
        proto.x1,
        (top + bottom + h) / 2.0,
    );
    let left = Rect::new(bx - 8.0 - proto.w(), right.y0, bx - 8.0, right.y1);
    let (w, h) = (proto.w(), proto.h());
    let above = Rect::new(bx - w / 2.0, top - 6.0 - h, bx + w / 2.0, top - 6.0);
    let below = Rect::new(bx - w / 2.0, bottom + 6.0, bx + w / 2.0, bottom + 6.0 + h);
    let at = place(
        &[right, left, above, below],
        &f.plot,
        &geom.points,
        &c.geom.boxes,
    );
    let b = c.text_box(&r.text, (at.x0, at.y0), LABEL, BLACK_C, Align::Left, true)?;
    c.geom.boxes.push(b);
    Ok(())
}

/// Strips side by side in one SVG, under an overall title (none if empty).
pub fn render_row(title: &str, panels: &[Strip]) -> Result<(String, Geometry), String> {
    let w: u32 = panels.iter().map(|p| p.width).sum();
    let head = if title.is_empty() {
        0.0
    } else {
        wrap(title, super::TITLE, f64::from(w) - 40.0).len() as f64 * super::TITLE * 1.2 + 12.0
    };
    let h = panels.iter().map(Strip::height).max().unwrap_or(400) + head as u32;
    if panels
        .iter()
        .all(|p| p.columns.iter().all(|c| c.values.is_empty()))
    {
        return Err("no value to draw".into());
    }
    render((w, h), |c| {
        if !title.is_empty() {
            c.title(title, f64::from(w) / 2.0, 10.0, f64::from(w) - 40.0)?;
        }
        let mut x = 0.0;
        for p in panels {
            p.draw(c, x, head)?;
            x += f64::from(p.width);
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::super::color;
    use super::*;

    /// Two columns on a linear axis, the second with one value far off scale; `disturbed`
    /// per column.
    fn strip(disturbed: [Vec<bool>; 2]) -> Strip {
        let [a, b] = disturbed;
        let column = |label: &str, values: Vec<f64>, i: usize, disturbed: Vec<bool>| Column {
            label: label.into(),
            values,
            color: color(i),
            disturbed,
        };
        Strip {
            title: "s".into(),
            y: AxisSpec::linear("µs"),
            columns: vec![
                column("a", vec![10.0, 11.0, 12.0], 0, a),
                column("b", vec![20.0, 21.0, 900.0], 1, b),
            ],
            refs: Vec::new(),
            ratios: Vec::new(),
            fmt: super::super::num,
            width: 600,
            plot_height: 300,
        }
    }

    #[test]
    fn a_disturbed_dot_is_hollow_with_one_legend_entry() {
        let (before, _) = render_row("", &[strip([vec![], vec![]])]).unwrap();
        assert!(!before.contains(crate::marks::LEGEND));
        // Nothing disturbed: the same bytes as with no flags at all.
        let none = strip([vec![false; 3], vec![false, false]]);
        assert_eq!(render_row("", &[none]).unwrap().0, before);
        // One dot on scale and the value off scale, disturbed.
        let busy = strip([vec![false, true], vec![false, false, true]]);
        let (svg, g) = render_row("", std::slice::from_ref(&busy)).unwrap();
        assert_eq!(svg.matches(crate::marks::LEGEND).count(), 1);
        assert_eq!(g.legends.len(), 1);
        assert!(busy.height() > strip([vec![], vec![]]).height());
        let white = "fill=\"#FFFFFF\"";
        // The hollow dot, the hollow triangle, and the legend's sample: white inside.
        assert_eq!(
            svg.matches(white).count(),
            before.matches(white).count() + 3
        );
        assert_eq!(
            g.panels[0].points.len(),
            render_row("", &[strip([vec![], vec![]])]).unwrap().1.panels[0]
                .points
                .len()
        );
    }
}
