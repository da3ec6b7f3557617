//! x-y charts: series with whiskers, vertical marks (reported sizes, knees), horizontal
//! references, ratio brackets and notes; the legend below the plot, and under it, when given,
//! lines of text (a footer). Either axis may name categories ([`AxisSpec::categories`]); with
//! the categories on y (machines, say), the values and their whiskers run along x.
//!
//! Series share a legend entry when they share a label (many machines' grey lines are one
//! entry), and a series with an empty label has none.

use super::Rgb;
use super::axis::{Axis, AxisSpec};
use super::{
    Align, BLACK_C, Canvas, Dash, Edge, GREY, Geometry, Glyph, LABEL, Legend, Marker, PanelGeom,
    Rect, SMALL, Style, place, render, text_box_rect, text_w, wrap,
};

/// One point, with its spread when the data has one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pt {
    pub x: f64,
    pub y: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

impl Pt {
    pub fn new(x: f64, y: f64) -> Pt {
        Pt {
            x,
            y,
            lo: None,
            hi: None,
        }
    }
    pub fn spread(x: f64, y: f64, lo: Option<f64>, hi: Option<f64>) -> Pt {
        Pt { x, y, lo, hi }
    }
}

#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub points: Vec<Pt>,
    pub style: Style,
}

impl Series {
    pub fn new(label: impl Into<String>, points: Vec<Pt>, style: Style) -> Series {
        Series {
            label: label.into(),
            points,
            style,
        }
    }
}

/// What a vertical line marks; each kind has its own look and legend entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VerticalKind {
    /// A size the machine reports (a cache size, the line size): solid grey.
    Reported,
    /// A boundary read from a measured curve: dotted, in that curve's colour.
    Knee(Rgb),
}

impl VerticalKind {
    fn look(self) -> (Rgb, Dash) {
        match self {
            VerticalKind::Reported => (GREY, Dash::Solid),
            VerticalKind::Knee(c) => (c, Dash::Dotted),
        }
    }
}

/// A vertical line, labelled above the plot.
#[derive(Clone, Debug)]
pub struct Vertical {
    pub x: f64,
    /// Written above the plot at the line ("L2 1M").
    pub label: String,
    pub kind: VerticalKind,
    /// The legend entry for this kind of line.
    pub legend: String,
}

/// A horizontal reference line, named in the legend.
#[derive(Clone, Debug)]
pub struct HLine {
    pub y: f64,
    pub label: String,
    pub color: Rgb,
    pub dash: Dash,
}

impl HLine {
    /// The heights of `lines` that an axis `y` can draw (the axis must hold them).
    pub fn ys<'a>(lines: &'a [HLine], y: &'a AxisSpec) -> impl Iterator<Item = f64> + 'a {
        lines.iter().map(|h| h.y).filter(|v| y.drawable(*v))
    }
}

/// A key ratio: a bracket at `x` from `y0` to `y1`, with its text beside it.
#[derive(Clone, Debug)]
pub struct Bracket {
    pub x: f64,
    pub y0: f64,
    pub y1: f64,
    pub text: Vec<String>,
}

/// A note pointing at one value (an outlier, say).
#[derive(Clone, Debug)]
pub struct Note {
    pub x: f64,
    pub y: f64,
    pub text: Vec<String>,
}

/// An x-y chart.
#[derive(Clone, Debug)]
pub struct LineChart {
    pub title: String,
    pub x: AxisSpec,
    pub y: AxisSpec,
    pub series: Vec<Series>,
    pub verticals: Vec<Vertical>,
    pub hlines: Vec<HLine>,
    pub brackets: Vec<Bracket>,
    pub notes: Vec<Note>,
    /// Legend text for the whiskers, when any point has a spread.
    pub whisker_label: String,
    /// Extra legend lines.
    pub legend_extra: Vec<(Glyph, String)>,
    /// y values outside this range are not fitted: they are drawn as triangles at the
    /// axis's end (and counted in the legend), so that a few far values do not squash the
    /// rest.
    pub y_clip: Option<(f64, f64)>,
    /// A line under the title saying how the numbers were taken (empty: none).
    pub subtitle: String,
    /// Text under the legend (key ratios, what was left out), one paragraph each.
    pub footer: Vec<String>,
    pub width: u32,
    pub plot_height: u32,
}

const INSET: f64 = 12.0;
/// The height of a line of small text (subtitle, footer).
const FOOT_ROW: f64 = 16.0;

impl LineChart {
    pub fn new(title: &str, x: AxisSpec, y: AxisSpec) -> LineChart {
        LineChart {
            title: title.into(),
            x,
            y,
            series: Vec::new(),
            verticals: Vec::new(),
            hlines: Vec::new(),
            brackets: Vec::new(),
            notes: Vec::new(),
            whisker_label: "bars: min..max of the rounds".into(),
            legend_extra: Vec::new(),
            y_clip: None,
            subtitle: String::new(),
            footer: Vec::new(),
            width: 900,
            plot_height: 430,
        }
    }

    /// Adds the series `label` drawn in `style` when it has points (a column that later
    /// runs added, say); nothing when it has none.
    pub fn series_if_any(&mut self, label: &str, pts: Vec<Pt>, style: Style) {
        if !pts.is_empty() {
            self.series.push(Series::new(label, pts, style));
        }
    }

    /// Rings the points `pts` (those the run flagged), named `label` in the legend; nothing
    /// when there are none.
    pub fn rings(&mut self, label: &str, pts: Vec<Pt>) {
        self.series_if_any(label, pts, Style::ring());
    }

    /// Draws hollow the points at `xs` of every measured series (not the appendix's, not the
    /// rings): their rounds were disturbed, so they are provisional. One legend entry says so
    /// ([`crate::marks::LEGEND`]); nothing at all when `xs` is empty (a quiet run).
    pub fn mark_disturbed(&mut self, xs: &[f64]) {
        let hit = |x: f64| xs.iter().any(|v| (v - x).abs() <= 1e-9 * v.abs().max(1.0));
        let overlays: Vec<Series> = self
            .series
            .iter()
            .filter(|s| s.style.line != Some(Dash::Long))
            .filter(|s| !matches!(s.style.marker, None | Some(Marker::Ring | Marker::Hollow)))
            .map(|s| {
                let pts = s
                    .points
                    .iter()
                    .filter(|p| hit(p.x))
                    .map(|p| Pt::new(p.x, p.y));
                Series::new(
                    "",
                    pts.collect(),
                    Style::hollow(s.style.color, s.style.size),
                )
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        if overlays.is_empty() {
            return;
        }
        self.series.extend(overlays);
        self.legend_extra.push((
            Glyph::Series(Style::hollow(GREY, 5)),
            crate::marks::LEGEND.into(),
        ));
    }

    fn drawable(&self, x: f64, y: f64) -> bool {
        self.x.drawable(x) && self.y.drawable(y)
    }

    fn clipped(&self, y: f64) -> bool {
        self.y_clip.is_some_and(|(lo, hi)| y < lo || y > hi)
    }

    /// The points outside `y_clip`: (count, smallest, largest).
    fn clip_count(&self) -> (usize, f64, f64) {
        let v: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter())
            .filter(|p| self.drawable(p.x, p.y) && self.clipped(p.y))
            .map(|p| p.y)
            .collect();
        (
            v.len(),
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        )
    }

    /// Whether spreads run along x: on a chart whose y axis names categories (machines,
    /// say), the values and their min..max are read along x.
    fn spread_along_x(&self) -> bool {
        self.y.is_category()
    }

    /// The axis a point's spread is read on.
    fn spread_axis(&self) -> &AxisSpec {
        if self.spread_along_x() {
            &self.x
        } else {
            &self.y
        }
    }

    fn has_whiskers(&self) -> bool {
        let a = self.spread_axis();
        self.series.iter().any(|s| {
            s.points
                .iter()
                .any(|p| p.lo.is_some_and(|v| a.drawable(v)) || p.hi.is_some_and(|v| a.drawable(v)))
        })
    }

    fn legend(&self) -> Legend {
        let mut l = Legend::default();
        for s in &self.series {
            if s.points.iter().any(|p| self.drawable(p.x, p.y)) {
                l.push(Glyph::Series(s.style), s.label.clone());
            }
        }
        l.hlines(&self.hlines);
        for v in &self.verticals {
            let (c, d) = v.kind.look();
            l.push(Glyph::Vertical(c, d), v.legend.clone());
        }
        if self.has_whiskers() {
            let g = if self.spread_along_x() {
                Glyph::WhiskerAcross(GREY)
            } else {
                Glyph::Whisker(GREY)
            };
            l.push(g, self.whisker_label.clone());
        }
        let (n, lo, hi) = self.clip_count();
        if n > 0 {
            l.push(
                Glyph::Series(Style::points(6, super::Marker::Clipped)),
                if n == 1 {
                    format!(
                        "triangle at the edge: beyond this axis (1 value: {})",
                        super::num(lo)
                    )
                } else {
                    format!(
                        "triangle at the edge: beyond this axis ({n} values, {}..{})",
                        super::num(lo),
                        super::num(hi)
                    )
                },
            );
        }
        for (g, t) in &self.legend_extra {
            l.push(g.clone(), t.clone());
        }
        l
    }

    fn title_lines(&self) -> usize {
        wrap(&self.title, super::TITLE, f64::from(self.width) - 40.0).len()
    }

    fn subtitle_lines(&self) -> Vec<String> {
        if self.subtitle.is_empty() {
            Vec::new()
        } else {
            wrap(&self.subtitle, SMALL, f64::from(self.width) - 40.0)
        }
    }

    fn footer_lines(&self) -> Vec<String> {
        self.footer
            .iter()
            .flat_map(|p| wrap(p, SMALL, f64::from(self.width) - 40.0))
            .collect()
    }

    fn strip_rows(&self) -> usize {
        if self.verticals.iter().any(|v| !v.label.is_empty()) {
            2
        } else {
            0
        }
    }

    /// The height this chart takes.
    pub fn height(&self) -> u32 {
        let w = f64::from(self.width);
        let top = 10.0
            + self.title_lines() as f64 * super::TITLE * 1.2
            + self.subtitle_lines().len() as f64 * FOOT_ROW
            + self.strip_rows() as f64 * 15.0
            + 8.0;
        let footer = self.footer_lines().len();
        let bottom = 52.0
            + self.legend().height(w - 40.0)
            + 8.0
            + if footer > 0 {
                footer as f64 * FOOT_ROW + 6.0
            } else {
                0.0
            };
        (top + f64::from(self.plot_height) + bottom).ceil() as u32
    }

    /// Renders to SVG with its geometry.
    pub fn render(&self) -> Result<(String, Geometry), String> {
        render((self.width, self.height()), |c| self.draw(c, 0.0))
    }

    /// Draws the chart with its top edge at `y0` (panels stack charts).
    pub fn draw(&self, c: &mut Canvas, y0: f64) -> Result<(), String> {
        let w = f64::from(self.width);
        let mut y = y0 + 10.0;
        y += c.title(&self.title, w / 2.0, y, w - 40.0)?;
        for l in self.subtitle_lines() {
            c.text(&l, (w / 2.0, y), SMALL, GREY, Align::Center, 0, false)?;
            y += FOOT_ROW;
        }
        let strip_top = y;
        y += self.strip_rows() as f64 * 15.0 + 8.0;
        let f = self.frame(y)?;
        let mut geom = self.draw_axes(c, &f)?;
        self.draw_verticals(c, &f, strip_top)?;
        // Horizontal references.
        c.hlines(f.plot, &self.hlines, |v| f.fy(v))?;

        // What a text box must not cover beyond the points: the drawn lines between them, the
        // whiskers and the horizontal and vertical references, as pixels along them.
        let mut traced: Vec<(f64, f64)> = Vec::new();
        for y in HLine::ys(&self.hlines, &self.y).filter_map(|v| f.fy(v)) {
            traced.extend(trace(&[(f.plot.x0, y), (f.plot.x1, y)]));
        }
        for x in self.verticals.iter().filter_map(|v| f.fx(v.x)) {
            traced.extend(trace(&[(x, f.plot.y0), (x, f.plot.y1)]));
        }
        // Whiskers under the series, then lines, then markers.
        self.draw_whiskers(c, &f, &mut geom, &mut traced)?;
        self.draw_lines(c, &f, &mut geom, &mut traced)?;
        self.draw_markers(c, &f)?;

        let inner = f.plot.grow(-2.0);
        traced.extend(geom.points.iter().copied());
        for b in &self.brackets {
            draw_bracket(c, &f, b, &inner, &traced)?;
        }
        for n in &self.notes {
            draw_note(c, &f, n, &inner, &traced)?;
        }
        self.draw_legend_and_footer(c, f.plot)?;
        c.geom.panels.push(geom);
        Ok(())
    }

    /// The values each axis must hold: the drawable points and their spreads, the clip
    /// limits where values were clipped, the vertical marks, references and brackets.
    fn axis_values(&self) -> Result<(Vec<f64>, Vec<f64>), String> {
        let (mut xs, mut ys) = self.point_values();
        if xs.is_empty() {
            return Err(format!(
                "figure {:?} has no value that can be drawn",
                self.title
            ));
        }
        // When values were clipped, the axis runs to the clip limits: the triangles then sit
        // on the labelled ends.
        if let Some((lo, hi)) = self.y_clip {
            let beyond = |below: bool| {
                self.series
                    .iter()
                    .flat_map(|s| s.points.iter())
                    .any(|p| self.drawable(p.x, p.y) && if below { p.y < lo } else { p.y > hi })
            };
            let empty = ys.is_empty();
            if empty || beyond(true) {
                ys.push(lo);
            }
            if empty || beyond(false) {
                ys.push(hi);
            }
            ys.retain(|v| self.y.drawable(*v));
        }
        xs.extend(
            self.verticals
                .iter()
                .map(|v| v.x)
                .filter(|x| self.x.drawable(*x)),
        );
        ys.extend(HLine::ys(&self.hlines, &self.y));
        for b in &self.brackets {
            if self.x.drawable(b.x) && self.y.drawable(b.y0) && self.y.drawable(b.y1) {
                xs.push(b.x);
            }
        }
        Ok((xs, ys))
    }

    /// The drawable points' values and spreads, along x and along y.
    fn point_values(&self) -> (Vec<f64>, Vec<f64>) {
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for s in &self.series {
            for p in &s.points {
                if !self.drawable(p.x, p.y) {
                    continue;
                }
                xs.push(p.x);
                if self.spread_along_x() {
                    ys.push(p.y);
                    xs.extend(
                        [p.lo, p.hi]
                            .into_iter()
                            .flatten()
                            .filter(|v| self.x.drawable(*v)),
                    );
                    continue;
                }
                if self.clipped(p.y) {
                    continue;
                }
                ys.push(p.y);
                for v in [p.lo, p.hi].into_iter().flatten() {
                    if self.y.drawable(v) && !self.clipped(v) {
                        ys.push(v);
                    }
                }
            }
        }
        (xs, ys)
    }

    /// The plot rectangle, its top at `y`, and both axes fitted to the values.
    fn frame(&self, y: f64) -> Result<Frame, String> {
        let w = f64::from(self.width);
        let plot_h = f64::from(self.plot_height);
        let (xs, ys) = self.axis_values()?;
        let y_axis = Axis::fit(&self.y, &ys, plot_h - 2.0 * INSET, &|_| 24.0)
            .map_err(|e| format!("figure {:?}: y axis: {e}", self.title))?;
        let left = 14.0 + 22.0 + y_axis.label_w() + 8.0;
        let right = w - 22.0;
        let plot = Rect::new(left, y, right, y + plot_h);
        let x_axis = Axis::fit(&self.x, &xs, plot.w() - 2.0 * INSET, &|s| {
            text_w(s, SMALL) + 14.0
        })
        .map_err(|e| format!("figure {:?}: x axis: {e}", self.title))?;
        Ok(Frame {
            plot,
            x: x_axis,
            y: y_axis,
            clip: self.y_clip,
        })
    }

    /// Grid, frame, ticks and axis titles.
    fn draw_axes(&self, c: &mut Canvas, f: &Frame) -> Result<PanelGeom, String> {
        // An axis of categories labels places, not a range: a point may stand beside its
        // category's label.
        let plot = f.plot;
        let mut geom = PanelGeom {
            plot: Some(plot),
            x_continuous: !self.x.is_category(),
            y_continuous: !self.y.is_category(),
            ..PanelGeom::default()
        };
        c.minor_grid(plot, Edge::Bottom, &f.x.minor, |t| f.tx(t))?;
        c.minor_grid(plot, Edge::Left, &f.y.minor, |t| f.ty(t))?;
        c.grid(plot, Edge::Bottom, &f.x.ticks, |t| f.tx(t), true, &mut geom)?;
        c.grid(plot, Edge::Left, &f.y.ticks, |t| f.ty(t), true, &mut geom)?;
        c.rect(plot, None, Some((BLACK_C, Dash::Solid)))?;
        c.x_title(&self.x.title, plot, plot.y1 + 28.0)?;
        c.y_title(&self.y.title, plot, 14.0)?;
        Ok(geom)
    }

    /// Vertical marks, labelled in the strip above the plot (two rows, so labels that
    /// would run into each other are staggered).
    fn draw_verticals(&self, c: &mut Canvas, f: &Frame, strip_top: f64) -> Result<(), String> {
        let plot = f.plot;
        let mut row_end = [f64::NEG_INFINITY; 2];
        for v in &self.verticals {
            let Some(x) = f.fx(v.x) else { continue };
            let (col, dash) = v.kind.look();
            c.line(&[(x, plot.y0), (x, plot.y1)], col, 2, dash)?;
            if v.label.is_empty() {
                continue;
            }
            let tw = text_w(&v.label, SMALL);
            let row = if x - tw / 2.0 > row_end[0] + 4.0 {
                0
            } else {
                1
            };
            row_end[row] = x + tw / 2.0;
            let ly = strip_top + 2.0 + row as f64 * 15.0;
            c.text(&v.label, (x, ly), SMALL, col, Align::Center, 0, false)?;
        }
        Ok(())
    }

    /// Each point's min..max whisker, across or along the value axis; its pixels added to
    /// `traced`.
    fn draw_whiskers(
        &self,
        c: &mut Canvas,
        f: &Frame,
        geom: &mut PanelGeom,
        traced: &mut Vec<(f64, f64)>,
    ) -> Result<(), String> {
        for s in &self.series {
            for p in &s.points {
                let (Some(x), Some(_)) = (f.fx(p.x), f.fy(p.y)) else {
                    continue;
                };
                if !self.drawable(p.x, p.y) || self.clipped(p.y) {
                    continue;
                }
                if self.spread_along_x() {
                    let at =
                        |v: Option<f64>| v.filter(|v| self.x.drawable(*v)).and_then(|v| f.fx(v));
                    if let (Some(a), Some(b), Some(yy)) = (at(p.lo), at(p.hi), f.fy(p.y)) {
                        c.whisker_across(yy, (a, b), 4.0, s.style.color, geom)?;
                        traced.extend(trace(&[(a, yy), (b, yy)]));
                    }
                    continue;
                }
                let along = |v: Option<f64>| {
                    v.filter(|v| self.y.drawable(*v) && !self.clipped(*v))
                        .and_then(|v| f.fy(v))
                };
                if let (Some(a), Some(b)) = (along(p.lo), along(p.hi)) {
                    c.whisker(x, (a, b), 3.0, s.style.color, geom)?;
                    traced.extend(trace(&[(x, a), (x, b)]));
                }
            }
        }
        Ok(())
    }

    /// The series' lines, their pixels added to `traced` and their vertices to `geom`.
    fn draw_lines(
        &self,
        c: &mut Canvas,
        f: &Frame,
        geom: &mut PanelGeom,
        traced: &mut Vec<(f64, f64)>,
    ) -> Result<(), String> {
        for s in &self.series {
            let pts: Vec<(f64, f64)> = s
                .points
                .iter()
                .filter(|p| self.drawable(p.x, p.y))
                .filter_map(|p| Some((f.fx(p.x)?, f.fy(p.y)?)))
                .collect();
            if let Some(d) = s.style.line {
                c.line(&pts, s.style.color, s.style.width, d)?;
                traced.extend(trace(&pts));
            }
            geom.points.extend(pts.iter().copied());
        }
        Ok(())
    }

    /// The series' markers; a clipped value gets a triangle at the end it passed.
    fn draw_markers(&self, c: &mut Canvas, f: &Frame) -> Result<(), String> {
        for s in &self.series {
            for p in s.points.iter().filter(|p| self.drawable(p.x, p.y)) {
                let Some((x, yy)) = f.fx(p.x).zip(f.fy(p.y)) else {
                    continue;
                };
                let m = match (self.y_clip, s.style.marker) {
                    (Some((lo, _)), _) if p.y < lo => super::Marker::ClippedLow,
                    (Some((_, hi)), _) if p.y > hi => super::Marker::Clipped,
                    (_, Some(m)) => m,
                    (_, None) => continue,
                };
                c.marker(m, (x, yy), s.style.size.max(3), s.style.color)?;
            }
        }
        Ok(())
    }

    /// The legend, below the plot and its axis titles (never over data), and the footer.
    fn draw_legend_and_footer(&self, c: &mut Canvas, plot: Rect) -> Result<(), String> {
        let w = f64::from(self.width);
        let legend = self.legend();
        let legend_top = plot.y1 + 50.0;
        legend.draw(c, 20.0, w - 20.0, legend_top)?;
        let mut fy0 = legend_top + legend.height(w - 40.0) + 4.0;
        for l in self.footer_lines() {
            c.text(&l, (20.0, fy0), SMALL, BLACK_C, Align::Left, 0, false)?;
            fy0 += FOOT_ROW;
        }
        Ok(())
    }
}

/// The plot rectangle and both fitted axes: where a value lands, in pixels.
struct Frame {
    plot: Rect,
    x: Axis,
    y: Axis,
    clip: Option<(f64, f64)>,
}

impl Frame {
    /// The pixel column of value `v`, if it has one.
    fn fx(&self, v: f64) -> Option<f64> {
        self.x
            .frac(v)
            .map(|f| self.plot.x0 + INSET + f * (self.plot.w() - 2.0 * INSET))
    }

    /// The pixel row of value `v`; a clipped value sits on the end it passed.
    fn fy(&self, v: f64) -> Option<f64> {
        let f = match self.clip {
            Some((lo, _)) if v < lo => Some(0.0),
            Some((_, hi)) if v > hi => Some(1.0),
            _ => self.y.frac(v),
        };
        f.map(|f| self.plot.y1 - INSET - f * (self.plot.h() - 2.0 * INSET))
    }

    /// The pixel column of x tick position `t`.
    fn tx(&self, t: f64) -> f64 {
        self.plot.x0 + INSET + self.x.frac_t(t) * (self.plot.w() - 2.0 * INSET)
    }

    /// The pixel row of y tick position `t`.
    fn ty(&self, t: f64) -> f64 {
        self.plot.y1 - INSET - self.y.frac_t(t) * (self.plot.h() - 2.0 * INSET)
    }
}

/// A ratio bracket beside its point, its text on the side with room.
fn draw_bracket(
    c: &mut Canvas,
    f: &Frame,
    b: &Bracket,
    inner: &Rect,
    traced: &[(f64, f64)],
) -> Result<(), String> {
    let (Some(x), Some(a), Some(bb)) = (f.fx(b.x), f.fy(b.y0), f.fy(b.y1)) else {
        return Ok(());
    };
    let (top, bottom) = (a.min(bb), a.max(bb));
    let mid = (top + bottom) / 2.0;
    let size = LABEL;
    let right_box = text_box_rect(&b.text, (x + 16.0, mid), size, Align::Left);
    let h = right_box.h();
    let right_box = Rect::new(right_box.x0, mid - h / 2.0, right_box.x1, mid + h / 2.0);
    let left_box = Rect::new(
        x - 16.0 - right_box.w(),
        mid - h / 2.0,
        x - 16.0,
        mid + h / 2.0,
    );
    let mut cands = bracket_candidates(right_box, left_box, (top, bottom), h);
    cands.extend(further_off(&cands[..6], inner, x));
    let chosen = place(&cands, inner, traced, &c.geom.boxes);
    let side = if chosen.x0 >= x { 1.0 } else { -1.0 };
    let bx = x + side * 9.0;
    c.line(
        &[
            (x + side * 4.0, top),
            (bx, top),
            (bx, bottom),
            (x + side * 4.0, bottom),
        ],
        BLACK_C,
        2,
        Dash::Solid,
    )?;
    let r = c.text_box(
        &b.text,
        (chosen.x0, chosen.y0),
        size,
        BLACK_C,
        Align::Left,
        true,
    )?;
    c.geom.boxes.push(r);
    Ok(())
}

/// Where a bracket's text may go, best first: beside the bracket; where both sides would
/// cover points (a bracket inside a dense band of points), just above or below the band;
/// failing those, beside the bracket higher or lower, then further off to either side, in
/// measured empty space.
fn bracket_candidates(
    right_box: Rect,
    left_box: Rect,
    (top, bottom): (f64, f64),
    h: f64,
) -> Vec<Rect> {
    let above = |r: Rect| Rect::new(r.x0, top - 4.0 - h, r.x1, top - 4.0);
    let below = |r: Rect| Rect::new(r.x0, bottom + 4.0, r.x1, bottom + 4.0 + h);
    let mut cands = vec![
        right_box,
        left_box,
        above(right_box),
        above(left_box),
        below(right_box),
        below(left_box),
    ];
    for k in [0.5, -0.5, 1.0, -1.0, 1.5, -1.5] {
        let dy = k * (bottom - top).max(h);
        for r in [right_box, left_box] {
            cands.push(Rect::new(r.x0, r.y0 + dy, r.x1, r.y1 + dy));
        }
    }
    cands
}

/// The rows of `near` slid across `inner` in 16-pixel steps, at most one box width away
/// from pixel column `x`, nearest first: where everything beside a bracket covers data, its
/// text goes to the nearest empty place at the same height, still close enough to be read
/// as the bracket's.
fn further_off(near: &[Rect], inner: &Rect, x: f64) -> Vec<Rect> {
    let mut out: Vec<Rect> = Vec::new();
    for r in near {
        let mut x0 = inner.x0;
        while x0 + r.w() <= inner.x1 {
            out.push(Rect::new(x0, r.y0, x0 + r.w(), r.y1));
            x0 += 16.0;
        }
    }
    let off = |r: &Rect| (r.x0 - x).abs().min((r.x1 - x).abs());
    out.retain(|r| off(r) <= r.w());
    out.sort_by(|a, b| off(a).total_cmp(&off(b)));
    out
}

/// A note: a text box near the value, with a leader line.
fn draw_note(
    c: &mut Canvas,
    f: &Frame,
    n: &Note,
    inner: &Rect,
    traced: &[(f64, f64)],
) -> Result<(), String> {
    let (Some(x), Some(yy)) = (f.fx(n.x), f.fy(n.y)) else {
        return Ok(());
    };
    let proto = text_box_rect(&n.text, (0.0, 0.0), SMALL, Align::Left);
    let (bw, bh) = (proto.w(), proto.h());
    let mut cands = Vec::new();
    for (dx, dy) in [
        (14.0, 6.0),
        (14.0, -6.0 - bh),
        (-14.0 - bw, 6.0),
        (-14.0 - bw, -6.0 - bh),
        (40.0, 30.0),
        (40.0, -30.0 - bh),
        (-40.0 - bw, 30.0),
    ] {
        cands.push(Rect::new(x + dx, yy + dy, x + dx + bw, yy + dy + bh));
    }
    let r = place(&cands, inner, traced, &c.geom.boxes);
    let (ax, ay) = (
        if r.x0 > x { r.x0 } else { r.x1 },
        if r.y0 > yy { r.y0 } else { r.y1 },
    );
    c.line(&[(x, yy), (ax, ay)], GREY, 1, Dash::Solid)?;
    let r = c.text_box(&n.text, (r.x0, r.y0), SMALL, BLACK_C, Align::Left, true)?;
    c.geom.boxes.push(r);
    Ok(())
}

/// Pixels every 4 along a polyline (for keeping text boxes off the lines drawn).
fn trace(pts: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for w in pts.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        let n = ((x1 - x0).hypot(y1 - y0) / 4.0).clamp(1.0, 2000.0) as usize;
        out.extend((0..n).map(|k| {
            let f = k as f64 / n as f64;
            (x0 + (x1 - x0) * f, y0 + (y1 - y0) * f)
        }));
    }
    out
}

/// Several line charts stacked in one SVG (one panel per workload, say), with an overall
/// title above them.
pub fn render_panels(title: &str, panels: &[LineChart]) -> Result<(String, Geometry), String> {
    let w = panels.iter().map(|p| p.width).max().unwrap_or(900);
    let title_h = if title.is_empty() {
        0.0
    } else {
        wrap(title, super::TITLE, f64::from(w) - 40.0).len() as f64 * super::TITLE * 1.2 + 16.0
    };
    let total: u32 = panels.iter().map(LineChart::height).sum::<u32>() + title_h as u32;
    render((w, total), |c| {
        if !title.is_empty() {
            c.title(title, f64::from(w) / 2.0, 10.0, f64::from(w) - 40.0)?;
        }
        let mut y = title_h;
        for p in panels {
            p.draw(c, y)?;
            y += f64::from(p.height());
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Marker, Scale, Units};
    use super::*;

    fn sample() -> LineChart {
        let mut c = LineChart::new(
            "t",
            AxisSpec::log2("size", Units::KiB),
            AxisSpec::log10("ns"),
        );
        c.series.push(Series::new(
            "a",
            vec![
                Pt::spread(4.0, 1.0, Some(0.9), Some(1.2)),
                Pt::new(1024.0, 10.0),
            ],
            Style::measured(0, Marker::Dot),
        ));
        c.series.push(Series::new(
            "appendix",
            vec![Pt::new(4.0, 2.0), Pt::new(1024.0, 20.0)],
            Style::reference(),
        ));
        c.verticals.push(Vertical {
            x: 48.0,
            label: "L1d 48K".into(),
            kind: VerticalKind::Reported,
            legend: "reported size".into(),
        });
        c.brackets.push(Bracket {
            x: 1024.0,
            y0: 1.0,
            y1: 10.0,
            text: vec!["10.0x".into()],
        });
        c
    }

    #[test]
    fn deterministic_with_legend_below_the_plot() {
        let (a, g) = sample().render().unwrap();
        let (b, _) = sample().render().unwrap();
        assert_eq!(a, b);
        assert!(a.contains("L1d 48K") && a.contains("10.0x"));
        assert!(
            g.dashes.contains(&Dash::Long),
            "the appendix series is dashed"
        );
        let plot = g.panels[0].plot.unwrap();
        assert_eq!(g.legends.len(), 1);
        assert!(g.legends[0].y0 > plot.y1, "legend below the plot");
        assert!(g.panels[0].x_ticks.len() >= 2 && g.panels[0].y_ticks.len() >= 2);
    }

    #[test]
    fn disturbed_points_are_hollow_with_one_legend_entry_and_quiet_ones_are_not() {
        let mut c = sample();
        let n = c.series.len();
        c.mark_disturbed(&[]);
        assert_eq!(c.series.len(), n, "a quiet run: nothing added");
        assert!(!c.render().unwrap().0.contains(crate::marks::LEGEND));
        c.mark_disturbed(&[4.0]);
        let added = &c.series[n..];
        assert_eq!(
            added.len(),
            1,
            "the measured series only, not the appendix's"
        );
        assert_eq!(added[0].points, [Pt::new(4.0, 1.0)]);
        assert_eq!(added[0].style.marker, Some(Marker::Hollow));
        let svg = c.render().unwrap().0;
        assert_eq!(svg.matches(crate::marks::LEGEND).count(), 1);
    }

    #[test]
    fn nothing_drawable_is_an_error() {
        let mut c = LineChart::new("neg", AxisSpec::linear("x"), AxisSpec::log10("y"));
        c.series.push(Series::new(
            "a",
            vec![Pt::new(1.0, -1.0)],
            Style::measured(0, Marker::Dot),
        ));
        assert!(c.render().unwrap_err().contains("no value"));
    }

    /// Machines named on the y axis, each a value with its min..max read along x.
    fn across() -> LineChart {
        let names: Vec<String> = ["first", "second"].map(String::from).to_vec();
        let mut c = LineChart::new(
            "c2c",
            AxisSpec::log10("ns"),
            AxisSpec::categories("", &names),
        );
        for (i, (v, lo, hi)) in [(20.0, 18.0, 30.0), (200.0, 150.0, 260.0)]
            .into_iter()
            .enumerate()
        {
            c.series.push(Series::new(
                "",
                vec![Pt::spread(v, i as f64, Some(lo), Some(hi))],
                Style::points(i, Marker::Dot),
            ));
        }
        c.subtitle = "how it was measured".into();
        c.footer = vec!["footnote ".repeat(150)];
        c
    }

    #[test]
    fn categories_on_y_carry_whiskers_across_and_text_below_the_legend() {
        let (svg, g) = across().render().unwrap();
        let p = &g.panels[0];
        let plot = p.plot.unwrap();
        let ticks: Vec<&str> = p.y_ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(ticks, ["first", "second"]);
        // Two whisker ends and the value per machine, on one row each, inside the plot.
        assert_eq!(p.points.len(), 6, "{:?}", p.points);
        for row in p.points.chunks(2).take(2) {
            assert_eq!(row[0].1, row[1].1, "a whisker across is level");
            assert!(row[0].0 < row[1].0);
        }
        assert!(p.points.iter().all(|q| plot.contains(*q)));
        // The x axis holds the ends of the whiskers: 18 to 260 ns.
        assert!(p.x_ticks.first().unwrap().0 <= p.points[0].0);
        assert!(svg.contains("how it was measured"));
        // The footer is wrapped under the legend, inside the figure.
        let legend = g.legends[0];
        assert!(legend.y0 > plot.y1);
        let footer_y: Vec<f64> = svg
            .lines()
            .zip(svg.lines().skip(1))
            .filter(|(_, next)| next.starts_with("footnote"))
            .filter_map(|(l, _)| l.split("y=\"").nth(1)?.split('"').next()?.parse().ok())
            .collect();
        assert!(footer_y.len() >= 2, "wrapped: {footer_y:?}");
        assert!(
            footer_y
                .iter()
                .all(|y| *y > legend.y1 && *y < f64::from(g.size.1))
        );
        // The empty labels made no legend entry; the whisker's did.
        assert!(svg.contains("bars: min..max"));
    }

    #[test]
    fn a_category_x_axis_names_every_category() {
        let names: Vec<String> = ["multiply", "add", "divide"].map(String::from).to_vec();
        let mut c = LineChart::new(
            "fp",
            AxisSpec::categories("operation", &names),
            AxisSpec::log10("ns"),
        );
        c.series.push(Series::new(
            "m",
            vec![Pt::new(0.0, 0.3), Pt::new(2.0, 1.2)],
            Style::measured(0, Marker::Dot),
        ));
        let (_, g) = c.render().unwrap();
        let x: Vec<&str> = g.panels[0].x_ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(x, ["multiply", "add", "divide"]);
    }

    /// No value, however extreme, on any pair of axes, makes drawing hang, panic or write a
    /// huge file; the same chart gives the same bytes.
    #[test]
    fn extreme_values_on_every_kind_of_axis_finish_and_are_deterministic() {
        let names: Vec<String> = ["a", "b"].map(String::from).to_vec();
        let specs = || {
            [
                AxisSpec::linear("lin"),
                AxisSpec::log2("l2", Units::KiB),
                AxisSpec::log10("l10"),
                AxisSpec::categories("cat", &names),
            ]
        };
        let sets: [Vec<(f64, f64)>; 6] = [
            vec![(5e-324, 1e308), (1e308, 5e-324)],
            vec![(1.0, 1e-308), (2.0, 1e308)],
            vec![(0.0, -1.0), (1.0, 1.0)],
            vec![(-1e308, 1e308), (1e308, -1e308)],
            vec![(f64::NAN, 1.0), (1.0, f64::INFINITY), (3.0, 3.0)],
            vec![],
        ];
        for x in specs() {
            for y in specs() {
                for pts in &sets {
                    let mut c = LineChart::new("t", x.clone(), y.clone());
                    c.series.push(Series::new(
                        "s",
                        pts.iter()
                            .map(|&(a, b)| Pt::spread(a, b, Some(a.min(b)), Some(1e308)))
                            .collect(),
                        Style::measured(0, Marker::Dot),
                    ));
                    let a = c.render();
                    assert_eq!(a.as_ref().map(|r| &r.0), c.render().as_ref().map(|r| &r.0));
                    if let Ok((svg, g)) = a {
                        assert!(svg.len() < 200_000, "{x:?} {y:?} {pts:?}");
                        assert!(!svg.contains("NaN"));
                        // Every value drawn lies inside the plot.
                        let p = &g.panels[0];
                        let plot = p.plot.unwrap();
                        assert!(
                            p.points.iter().all(|q| plot.contains(*q)),
                            "{x:?} {y:?} {pts:?}: {:?} outside {plot:?}",
                            p.points
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn extreme_values_are_drawn_quickly() {
        let mut c = sample();
        c.series[0].points.push(Pt::new(5e-324, 1e308));
        c.series[1].points.push(Pt::new(1.7e308, 5e-324));
        let (svg, _) = c.render().unwrap();
        assert!(!svg.contains("NaN"));
        let _ = Scale::Linear;
    }
}
