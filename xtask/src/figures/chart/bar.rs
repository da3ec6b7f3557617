//! Grouped bars: one group per category, one bar per series, each bar with its min..max
//! whisker and its value written beside it, at its own height, clear of the whisker; ratio
//! brackets between bars; categories that were not measured said in one short note under
//! the plot. On a log axis a bar's length means nothing (the axis has no zero), so each
//! value is a dot with its whisker instead. Categories marked unstable are ringed, and their
//! whiskers do not set the axis: one cut at the top ends in an arrow with its maximum written.

use super::Rgb;
use super::axis::{Axis, AxisSpec, Scale};
use super::line::HLine;
use super::{
    Align, BLACK_C, Canvas, Dash, Edge, GREY, Geometry, Glyph, LABEL, Legend, Marker, PanelGeom,
    Rect, SMALL, Style, place, render, text_box_rect, wrap,
};

/// One bar: the median and, when the data has them, min and max.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bar {
    pub v: f64,
    pub lo: Option<f64>,
    pub hi: Option<f64>,
}

impl Bar {
    pub fn new(v: f64) -> Bar {
        Bar {
            v,
            lo: None,
            hi: None,
        }
    }
    pub fn spread(v: f64, lo: Option<f64>, hi: Option<f64>) -> Bar {
        Bar { v, lo, hi }
    }

    /// `top / bottom` of two bars' values, when both were measured and the quotient is a
    /// number.
    pub fn over(top: Option<Bar>, bottom: Option<Bar>) -> Option<f64> {
        super::div(top?.v, bottom?.v)
    }
}

#[derive(Clone, Debug)]
pub struct BarSeries {
    pub label: String,
    /// One per category; `None`: not measured.
    pub values: Vec<Option<Bar>>,
    pub color: Rgb,
    /// The appendix's own numbers: an unfilled bar with a dashed outline.
    pub reference: bool,
}

impl BarSeries {
    pub fn new(label: impl Into<String>, values: Vec<Option<Bar>>, color: Rgb) -> BarSeries {
        BarSeries {
            label: label.into(),
            values,
            color,
            reference: false,
        }
    }
    pub fn reference(label: impl Into<String>, values: Vec<Option<Bar>>) -> BarSeries {
        BarSeries {
            label: label.into(),
            values,
            color: BLACK_C,
            reference: true,
        }
    }
}

/// A key ratio between two bars, `(series, category)` each.
#[derive(Clone, Debug)]
pub struct BarRatio {
    pub a: (usize, usize),
    pub b: (usize, usize),
    pub text: String,
}

#[derive(Clone, Debug)]
pub struct BarChart {
    pub title: String,
    pub y: AxisSpec,
    pub x_title: String,
    pub categories: Vec<String>,
    pub series: Vec<BarSeries>,
    pub ratios: Vec<BarRatio>,
    pub hlines: Vec<HLine>,
    /// What was not measured, said in one grey line under the plot ("not measured: 4
    /// threads (needs 4 cores)"); no room of the plot is given to it.
    pub skipped: Option<String>,
    pub whisker_label: String,
    pub legend_extra: Vec<(Glyph, String)>,
    /// Write "n/a" where a series has no bar in a category that has others.
    pub mark_missing: bool,
    /// Per category: its rounds were disturbed, so its bars are drawn hollow.
    pub disturbed: Vec<bool>,
    /// Per category: unstable (its rounds disagree), so it is ringed and its whiskers are
    /// left out of the axis range ([`BarChart::mark_unstable`]).
    pub unstable: Vec<bool>,
    /// Per category: numbers quoted from elsewhere (the book's), drawn as the appendix's
    /// series is, whatever their series ([`BarChart::mark_reference`]).
    pub reference_cats: Vec<bool>,
    pub width: u32,
    pub plot_height: u32,
}

const TOP_PAD: f64 = 22.0;
const BRACKET_STEP: f64 = 36.0;

impl BarChart {
    pub fn new(title: &str, y: AxisSpec) -> BarChart {
        BarChart {
            title: title.into(),
            y,
            x_title: String::new(),
            categories: Vec::new(),
            series: Vec::new(),
            ratios: Vec::new(),
            hlines: Vec::new(),
            skipped: None,
            whisker_label: "bars: min..max of the rounds".into(),
            legend_extra: Vec::new(),
            mark_missing: true,
            disturbed: Vec::new(),
            unstable: Vec::new(),
            reference_cats: Vec::new(),
            width: 900,
            plot_height: 400,
        }
    }

    /// Draws hollow the measured bars of the categories marked `true` in `cats` (one per
    /// category): their rounds were disturbed, so they are provisional. One legend entry says
    /// so ([`crate::marks::LEGEND`]); nothing when none is marked (a quiet run).
    pub fn mark_disturbed(&mut self, cats: &[bool]) {
        if cats.iter().any(|&d| d) {
            self.disturbed = cats.to_vec();
            let glyph = if self.dots() {
                Glyph::Series(Style::hollow(GREY, 5))
            } else {
                Glyph::HollowBar(GREY)
            };
            self.legend_extra.push((glyph, crate::marks::LEGEND.into()));
        }
    }

    /// Rings the categories marked `true` in `cats` (one per category) as unstable, with one
    /// legend entry `why`; their whiskers no longer stretch the axis. Nothing when none is.
    pub fn mark_unstable(&mut self, cats: &[bool], why: &str) {
        if cats.iter().any(|&u| u) {
            self.unstable = cats.to_vec();
            self.legend_extra
                .push((Glyph::Series(Style::ring()), why.into()));
        }
    }

    /// Draws the categories marked `true` in `cats` as quoted numbers: crosses in their
    /// series' colour (dashed outlines on a linear axis), with one legend entry `what`.
    pub fn mark_reference(&mut self, cats: &[bool], what: &str) {
        if cats.iter().any(|&r| r) {
            self.reference_cats = cats.to_vec();
            let glyph = if self.dots() {
                Glyph::Series(Style {
                    color: GREY,
                    ..Style::points(0, Marker::Cross)
                })
            } else {
                Glyph::Bar(GREY, false)
            };
            self.legend_extra.push((glyph, what.into()));
        }
    }

    fn is_reference(&self, si: usize, ci: usize) -> bool {
        self.series[si].reference || self.reference_cats.get(ci).copied().unwrap_or(false)
    }

    /// Whether values are drawn as dots (a log axis) rather than bars.
    pub fn dots(&self) -> bool {
        self.y.scale != Scale::Linear
    }

    fn is_unstable(&self, ci: usize) -> bool {
        self.unstable.get(ci).copied().unwrap_or(false)
    }

    /// A ratio bracket between bars `a` and `b` (`(series, category)` each) reading
    /// "`what` = `x`"; none when `x` is `None`.
    pub fn bracket(&mut self, a: (usize, usize), b: (usize, usize), what: &str, x: Option<f64>) {
        if let Some(x) = x {
            self.ratios.push(BarRatio {
                a,
                b,
                text: format!("{what} = {}", super::ratio(x)),
            });
        }
    }

    fn bars(&self) -> impl Iterator<Item = (usize, usize, Bar)> + '_ {
        self.series.iter().enumerate().flat_map(move |(si, s)| {
            s.values.iter().enumerate().filter_map(move |(ci, v)| {
                let b = (*v)?;
                (ci < self.categories.len() && self.y.drawable(b.v)).then_some((si, ci, b))
            })
        })
    }

    fn legend(&self) -> Legend {
        let mut l = Legend::default();
        for s in &self.series {
            if s.values.iter().flatten().any(|b| self.y.drawable(b.v)) {
                l.push(self.glyph(s), s.label.clone());
            }
        }
        l.hlines(&self.hlines);
        if self.bars().any(|(_, _, b)| {
            b.lo.is_some_and(|v| self.y.drawable(v)) && b.hi.is_some_and(|v| self.y.drawable(v))
        }) {
            l.push(Glyph::Whisker(BLACK_C), self.whisker_label.clone());
        }
        for (g, t) in &self.legend_extra {
            l.push(g.clone(), t.clone());
        }
        l
    }

    fn glyph(&self, s: &BarSeries) -> Glyph {
        match (self.dots(), s.reference) {
            (false, filled) => Glyph::Bar(s.color, !filled),
            (true, false) => Glyph::Series(Style {
                line: None,
                size: 5,
                color: s.color,
                ..Style::points(0, Marker::Dot)
            }),
            (true, true) => Glyph::Series(Style {
                line: None,
                ..Style::reference()
            }),
        }
    }

    /// How many brackets stand above one another at most (brackets over separate bars
    /// share a level).
    fn bracket_levels(&self) -> usize {
        let span = |r: &BarRatio| {
            let x = |(s, c): (usize, usize)| c * self.series.len().max(1) + s;
            (x(r.a).min(x(r.b)), x(r.a).max(x(r.b)))
        };
        let mut levels: Vec<(usize, usize, usize)> = Vec::new();
        for r in &self.ratios {
            let (a, b) = span(r);
            let below = levels
                .iter()
                .filter(|(x, y, _)| *x <= b && a <= *y)
                .map(|l| l.2)
                .max()
                .unwrap_or(0);
            levels.push((a, b, below + 1));
        }
        levels.iter().map(|l| l.2).max().unwrap_or(0)
    }

    fn slots(&self) -> usize {
        self.categories.len()
    }

    fn label_lines(&self) -> usize {
        let w = f64::from(self.width) - 120.0;
        let slot = w / self.slots().max(1) as f64;
        self.categories
            .iter()
            .map(|c| wrap(c, SMALL, slot - 8.0).len().min(3))
            .max()
            .unwrap_or(1)
    }

    pub fn height(&self) -> u32 {
        let w = f64::from(self.width);
        let title = wrap(&self.title, super::TITLE, w - 40.0).len() as f64 * super::TITLE * 1.2;
        let below = 10.0
            + self.label_lines() as f64 * 15.0
            + if self.x_title.is_empty() { 6.0 } else { 24.0 }
            + self.skipped_lines(w).len() as f64 * 16.0;
        (10.0
            + title
            + 10.0
            + f64::from(self.plot_height)
            + below
            + self.legend().height(w - 40.0)
            + 16.0)
            .ceil() as u32
    }

    /// The note on what was not measured, wrapped to the figure's width.
    fn skipped_lines(&self, w: f64) -> Vec<String> {
        self.skipped
            .as_deref()
            .map(|n| wrap(n, SMALL, w - 60.0))
            .unwrap_or_default()
    }

    pub fn render(&self) -> Result<(String, Geometry), String> {
        if self.categories.is_empty() || self.bars().next().is_none() {
            return Err(format!(
                "figure {:?} has no bar that can be drawn",
                self.title
            ));
        }
        render((self.width, self.height()), |c| self.draw(c))
    }

    fn draw(&self, c: &mut Canvas) -> Result<(), String> {
        let w = f64::from(self.width);
        let mut y = 10.0;
        y += c.title(&self.title, w / 2.0, y, w - 40.0)? + 10.0;
        let f = self.frame(y)?;
        let plot = f.plot;
        let mut geom = PanelGeom {
            plot: Some(plot),
            x_continuous: false,
            y_continuous: true,
            ..PanelGeom::default()
        };
        c.minor_grid(plot, Edge::Left, &f.axis.minor, |t| f.ty(t))?;
        c.grid(
            plot,
            Edge::Left,
            &f.axis.ticks,
            |t| f.ty(t),
            true,
            &mut geom,
        )?;
        c.rect(plot, None, Some((BLACK_C, Dash::Solid)))?;
        c.y_title(&self.y.title, plot, 14.0)?;
        let label_bottom = self.draw_categories(c, &f, &mut geom)?;

        // Bars (or dots), whiskers, values. `tops` keeps each one's highest drawn pixel.
        let DrawnBars {
            mut tops,
            labels,
            marks,
        } = self.draw_bars(c, &f, &mut geom)?;
        self.draw_missing(c, &f)?;
        c.hlines(plot, &self.hlines, |v| f.fy(v))?;
        // The values, once every mark is known: each where it covers none.
        for (si, ci, label) in labels {
            let r = label.place(c, plot, &marks)?;
            tops[si][ci] = tops[si][ci].map(|t| t.min(r.y0));
        }
        self.draw_ratios(c, &f, &tops)?;

        let legend = self.legend();
        let ly = label_bottom + if self.x_title.is_empty() { 10.0 } else { 28.0 };
        legend.draw(c, 20.0, w - 20.0, ly)?;
        c.geom.panels.push(geom);
        Ok(())
    }

    /// The plot, its top at `y`, its value axis fitted to the bars and references with
    /// room above for the brackets, and the bars' slots.
    fn frame(&self, y: f64) -> Result<BarFrame, String> {
        let w = f64::from(self.width);
        let plot_h = f64::from(self.plot_height);
        let mut ys: Vec<f64> = Vec::new();
        for (_, ci, b) in self.bars() {
            ys.push(b.v);
            let spread = if self.is_unstable(ci) {
                [None, None]
            } else {
                [b.lo, b.hi]
            };
            ys.extend(spread.into_iter().flatten().filter(|v| self.y.drawable(*v)));
        }
        ys.extend(HLine::ys(&self.hlines, &self.y));
        let headroom = TOP_PAD + BRACKET_STEP * self.bracket_levels() as f64;
        let axis = Axis::fit(&self.y, &ys, plot_h - headroom, &|_| 24.0)
            .map_err(|e| format!("figure {:?}: y axis: {e}", self.title))?;
        let left = 14.0 + 22.0 + axis.label_w() + 8.0;
        let plot = Rect::new(left, y, w - 22.0, y + plot_h);
        let n_slots = self.slots().max(1);
        let slot = plot.w() / n_slots as f64;
        let n_ser = self.series.len().max(1);
        // A bar is at most 120 pixels wide: one category's bars do not fill the plot.
        let bw = (slot * 0.8 / n_ser as f64).min(120.0);
        let pad = (slot - bw * n_ser as f64) / 2.0;
        Ok(BarFrame {
            plot,
            axis,
            headroom,
            slot,
            bw,
            pad,
        })
    }

    /// Category labels under the plot, the x title, and the note on what was not measured;
    /// returns the lowest pixel drawn.
    fn draw_categories(
        &self,
        c: &mut Canvas,
        f: &BarFrame,
        geom: &mut PanelGeom,
    ) -> Result<f64, String> {
        let (plot, slot) = (f.plot, f.slot);
        let w = f64::from(self.width);
        let mut label_bottom = plot.y1 + 8.0;
        for (ci, cat) in self.categories.iter().enumerate() {
            let cx = plot.x0 + slot * (ci as f64 + 0.5);
            let lines = wrap(cat, SMALL, slot - 8.0);
            for (k, l) in lines.iter().take(3).enumerate() {
                let r = c.text(
                    l,
                    (cx, plot.y1 + 8.0 + k as f64 * 15.0),
                    SMALL,
                    BLACK_C,
                    Align::Center,
                    0,
                    false,
                )?;
                label_bottom = label_bottom.max(r.y1);
            }
            geom.x_ticks.push((cx, cat.clone()));
        }
        if !self.x_title.is_empty() {
            c.x_title(&self.x_title, plot, label_bottom + 6.0)?;
        }
        // What was not measured: one grey note under the category labels.
        for l in self.skipped_lines(w) {
            let r = c.text(
                &l,
                (w / 2.0, label_bottom + 4.0),
                SMALL,
                GREY,
                Align::Center,
                0,
                false,
            )?;
            label_bottom = r.y1 + 3.0;
        }
        Ok(label_bottom)
    }

    /// Every bar with its whisker, its value label kept for later.
    fn draw_bars(
        &self,
        c: &mut Canvas,
        f: &BarFrame,
        geom: &mut PanelGeom,
    ) -> Result<DrawnBars, String> {
        let plot = f.plot;
        let base = plot.y1;
        let top_px = plot.y1 - (plot.h() - f.headroom);
        let mut tops = vec![vec![None::<f64>; self.categories.len()]; self.series.len()];
        let mut labels = Vec::new();
        let mut marks: Vec<(f64, f64)> = Vec::new();
        for (si, ci, b) in self.bars() {
            let Some(top) = f.fy(b.v) else { continue };
            let x0 = f.bar_x(si, ci);
            let at = BarAt {
                r: Rect::new(x0 + 1.0, top, x0 + f.bw - 1.0, base),
                top_px,
            };
            let ends = (
                b.lo.filter(|v| self.y.drawable(*v)).and_then(|v| f.fy(v)),
                b.hi.filter(|v| self.y.drawable(*v)).and_then(|v| f.fy(v)),
            );
            let (highest, label) = self.draw_one(c, (si, ci), b, at, ends, geom)?;
            tops[si][ci] = Some(highest);
            marks.extend(label.marks());
            labels.push((si, ci, label));
        }
        Ok(DrawnBars {
            tops,
            labels,
            marks,
        })
    }

    /// Not measured: a dash at the base where a bar would be, when its category has other
    /// bars.
    fn draw_missing(&self, c: &mut Canvas, f: &BarFrame) -> Result<(), String> {
        let base = f.plot.y1;
        for (si, s) in self.series.iter().enumerate() {
            for ci in 0..self.categories.len() {
                let measured = s
                    .values
                    .get(ci)
                    .copied()
                    .flatten()
                    .is_some_and(|b| self.y.drawable(b.v));
                let others = self
                    .series
                    .iter()
                    .any(|o| o.values.get(ci).copied().flatten().is_some());
                if self.mark_missing && !measured && others && !s.reference {
                    let cx = f.bar_x(si, ci) + f.bw / 2.0;
                    c.text("n/a", (cx, base - 3.0), 10.0, GREY, Align::Center, 2, false)?;
                }
            }
        }
        Ok(())
    }

    /// Ratio brackets, each above the bars it spans and above earlier brackets there.
    fn draw_ratios(&self, c: &mut Canvas, f: &BarFrame, tops: &Tops) -> Result<(), String> {
        let mut drawn: Vec<(f64, f64, f64)> = Vec::new(); // (x from, x to, top)
        for r in &self.ratios {
            let get = |(si, ci): (usize, usize)| -> Option<(f64, f64)> {
                let top = *tops.get(si)?.get(ci)?;
                Some((f.bar_x(si, ci) + f.bw / 2.0, top?))
            };
            let (Some((xa, ta)), Some((xb, tb))) = (get(r.a), get(r.b)) else {
                continue;
            };
            let (x0, x1) = (xa.min(xb), xa.max(xb));
            // Everything drawn between the two bars.
            let mut level = ta.min(tb);
            for (si, row) in tops.iter().enumerate() {
                for (ci, t) in row.iter().enumerate() {
                    let cx = f.bar_x(si, ci) + f.bw / 2.0;
                    if let Some(t) = t
                        && cx >= x0 - 1.0
                        && cx <= x1 + 1.0
                    {
                        level = level.min(*t);
                    }
                }
            }
            for (a, b, top) in &drawn {
                if *a <= x1 + 30.0 && x0 <= *b + 30.0 {
                    level = level.min(*top);
                }
            }
            let ly = (level - 8.0).max(f.plot.y0 + 24.0);
            c.line(
                &[(xa, ta - 2.0), (xa, ly), (xb, ly), (xb, tb - 2.0)],
                BLACK_C,
                2,
                Dash::Solid,
            )?;
            let tb_rect = c.text_box(
                std::slice::from_ref(&r.text),
                ((x0 + x1) / 2.0, ly - 22.0),
                LABEL,
                BLACK_C,
                Align::Center,
                true,
            )?;
            c.geom.boxes.push(tb_rect);
            drawn.push((tb_rect.x0.min(x0), tb_rect.x1.max(x1), tb_rect.y0 - 2.0));
        }
        Ok(())
    }
}

/// Each bar's highest drawn pixel, by series then category (`None`: no bar).
type Tops = Vec<Vec<Option<f64>>>;

/// What drawing the bars leaves for later: each bar's highest pixel, the value labels
/// still to place (series, category, label), and the pixels they must not cover.
struct DrawnBars {
    tops: Tops,
    labels: Vec<(usize, usize, ValueLabel)>,
    marks: Vec<(f64, f64)>,
}

/// A bar chart's plot and value axis (`headroom` kept free above the data for brackets),
/// and the bars' geometry: `slot` a category, `bw` a bar, `pad` before a category's first.
struct BarFrame {
    plot: Rect,
    axis: Axis,
    headroom: f64,
    slot: f64,
    bw: f64,
    pad: f64,
}

impl BarFrame {
    /// The pixel row of value `v`.
    fn fy(&self, v: f64) -> Option<f64> {
        self.axis
            .frac(v)
            .map(|f| self.plot.y1 - f * (self.plot.h() - self.headroom))
    }

    /// The pixel row of tick position `t`.
    fn ty(&self, t: f64) -> f64 {
        self.plot.y1 - self.axis.frac_t(t) * (self.plot.h() - self.headroom)
    }

    /// The left edge of series `si`'s bar in category `ci`.
    fn bar_x(&self, si: usize, ci: usize) -> f64 {
        self.plot.x0 + self.slot * ci as f64 + self.pad + self.bw * si as f64
    }
}

/// Where one bar goes: its rectangle (value at the top, the plot's base at the bottom) and
/// the highest pixel of the axis's range (a whisker beyond it is cut there).
struct BarAt {
    r: Rect,
    top_px: f64,
}

impl BarChart {
    /// One bar or dot of series `si` in category `ci`, with its whisker (`ends`: min and max
    /// in pixels); returns the highest pixel drawn and where its value is to be written.
    fn draw_one(
        &self,
        c: &mut Canvas,
        (si, ci): (usize, usize),
        b: Bar,
        at: BarAt,
        ends: (Option<f64>, Option<f64>),
        geom: &mut PanelGeom,
    ) -> Result<(f64, ValueLabel), String> {
        let s = &self.series[si];
        let r = at.r;
        let cx = (r.x0 + r.x1) / 2.0;
        let disturbed = self.disturbed.get(ci).copied().unwrap_or(false);
        let quoted = self.is_reference(si, ci);
        if !self.dots() {
            self.draw_bar(c, s, r, disturbed, quoted)?;
        }
        geom.points.push((cx, r.y0));
        let mut highest = r.y0;
        let cap = (r.w() * 0.25).clamp(2.0, 6.0);
        let mut span = (r.y0, r.y0);
        if let (Some(l), Some(h)) = ends {
            let cut = h < at.top_px;
            let h = h.max(at.top_px);
            c.whisker(cx, (l, h), cap, BLACK_C, geom)?;
            if cut {
                c.marker(Marker::Clipped, (cx, h), 4, BLACK_C)?;
                let note = format!("max {} (cut)", super::sig3(b.hi.unwrap_or(b.v)));
                let t = c.text(
                    &note,
                    (cx, h - 7.0),
                    SMALL,
                    BLACK_C,
                    Align::Center,
                    2,
                    false,
                )?;
                c.geom.boxes.push(t);
                highest = highest.min(t.y0);
            }
            span = (h.min(l).min(r.y0), l.max(h).max(r.y0));
            highest = highest.min(span.0);
        }
        if self.dots() {
            let style = match (quoted, disturbed) {
                (true, _) => Marker::Cross,
                (false, true) => Marker::Hollow,
                (false, false) => Marker::Dot,
            };
            c.marker(style, (cx, r.y0), 5, s.color)?;
        }
        if self.is_unstable(ci) {
            c.marker(Marker::Ring, (cx, r.y0), 9, BLACK_C)?;
        }
        let label = ValueLabel {
            text: super::sig3(b.v),
            at: (cx, r.y0),
            reach: cap.max(5.0) + 3.0,
            span,
            bar: (!self.dots()).then_some((r.x0, r.x1)),
        };
        Ok((highest, label))
    }

    fn draw_bar(
        &self,
        c: &mut Canvas,
        s: &BarSeries,
        r: Rect,
        disturbed: bool,
        quoted: bool,
    ) -> Result<(), String> {
        let white = Some(Rgb(255, 255, 255).mix(1.0));
        if quoted {
            c.rect(r, white, None)?;
            c.line(
                &[(r.x0, r.y1), (r.x0, r.y0), (r.x1, r.y0), (r.x1, r.y1)],
                s.color,
                2,
                Dash::Long,
            )
        } else if disturbed {
            c.rect(r, white, Some((s.color, Dash::Solid)))
        } else {
            c.rect(r, Some(s.color.mix(1.0)), None)
        }
    }
}

/// A bar's value, to be written beside its mark: `at` the value's pixel, `reach` how far
/// the mark spreads sideways, `span` the mark's top and bottom pixels (the whisker's).
struct ValueLabel {
    text: String,
    at: (f64, f64),
    reach: f64,
    span: (f64, f64),
    /// A bar's left and right pixels (none for a dot): its top edge is a mark too.
    bar: Option<(f64, f64)>,
}

const VALUE_SIZE: f64 = 10.0;

impl ValueLabel {
    /// Pixels along the mark (dot and whisker), that no value may cover.
    fn marks(&self) -> Vec<(f64, f64)> {
        let (x, _) = self.at;
        let steps = ((self.span.1 - self.span.0) / 3.0).clamp(0.0, 400.0) as usize;
        let mut m: Vec<(f64, f64)> = (0..=steps)
            .map(|k| (x, self.span.0 + k as f64 * 3.0))
            .chain([(x, self.at.1)])
            .collect();
        if let Some((x0, x1)) = self.bar {
            let n = ((x1 - x0) / 3.0).clamp(0.0, 200.0) as usize;
            m.extend((0..=n).map(|k| (x0 + k as f64 * 3.0, self.at.1)));
        }
        m
    }

    /// Writes the value at its own height right of a dot, else left of it, else above or
    /// below the whisker; over a bar, just above its top beside the whisker, else above the
    /// whisker: the first place that covers no mark and no other box.
    fn place(&self, c: &mut Canvas, plot: Rect, marks: &[(f64, f64)]) -> Result<Rect, String> {
        let text = [self.text.clone()];
        let proto = text_box_rect(&text, (0.0, 0.0), VALUE_SIZE, Align::Left);
        let (w, h) = (proto.w(), proto.h());
        let (x, y) = self.at;
        let right = Rect::new(x + self.reach, y - h / 2.0, x + self.reach + w, y + h / 2.0);
        let left = Rect::new(x - self.reach - w, right.y0, x - self.reach, right.y1);
        let above = Rect::new(
            x - w / 2.0,
            self.span.0 - 3.0 - h,
            x + w / 2.0,
            self.span.0 - 3.0,
        );
        let below = Rect::new(
            x - w / 2.0,
            self.span.1 + 3.0,
            x + w / 2.0,
            self.span.1 + 3.0 + h,
        );
        // Over a bar: beside the whisker, just above the bar's top.
        let over = Rect::new(right.x0, y - 5.0 - h, right.x1, y - 5.0);
        let cands = if self.bar.is_some() {
            vec![over, above, right]
        } else {
            vec![right, left, above, below]
        };
        let at = place(&cands, &plot, marks, &c.geom.boxes);
        let r = c.text_box(
            &text,
            (at.x0, at.y0),
            VALUE_SIZE,
            BLACK_C,
            Align::Left,
            false,
        )?;
        c.geom.boxes.push(r);
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::super::color;
    use super::*;

    #[test]
    fn disturbed_categories_are_hollow_bars_with_a_legend_entry() {
        let chart = |cats: &[bool]| {
            let mut b = BarChart::new("b", AxisSpec::linear("ns").starting_at_zero());
            b.categories = vec!["x".into(), "y".into()];
            b.series = vec![BarSeries::new(
                "s",
                vec![Some(Bar::new(2.0)), Some(Bar::new(3.0))],
                color(0),
            )];
            b.mark_disturbed(cats);
            b.render().unwrap().0
        };
        let quiet = chart(&[false, false]);
        assert!(!quiet.contains(crate::marks::LEGEND));
        let busy = chart(&[false, true]);
        assert!(busy.contains(crate::marks::LEGEND));
        // One bar is white inside: drawn hollow.
        assert!(
            busy.matches("fill=\"#FFFFFF\"").count() > quiet.matches("fill=\"#FFFFFF\"").count()
        );
    }

    #[test]
    fn bars_with_whiskers_ratio_and_skipped_slot() {
        let mut b = BarChart::new("b", AxisSpec::linear("ns").starting_at_zero());
        b.categories = vec!["x".into(), "y".into()];
        b.series = vec![
            BarSeries::new(
                "s",
                vec![Some(Bar::spread(3.6, Some(3.5), Some(3.7))), None],
                color(0),
            ),
            BarSeries::new(
                "t",
                vec![Some(Bar::new(0.27)), Some(Bar::new(0.2))],
                color(1),
            ),
        ];
        b.ratios.push(BarRatio {
            a: (0, 0),
            b: (1, 0),
            text: "13.4x".into(),
        });
        b.skipped = Some("4 threads: skipped, needs 4 cores".into());
        let (svg, g) = b.render().unwrap();
        assert!(svg.contains("13.4x") && svg.contains("needs 4 cores") && svg.contains("n/a"));
        let plot = g.panels[0].plot.unwrap();
        assert!(g.legends.iter().all(|l| !l.intersects(&plot)));
        for p in &g.panels[0].points {
            assert!(plot.contains(*p));
        }
        assert_eq!(b.render().unwrap().0, svg);
    }

    fn two_series(y: AxisSpec) -> BarChart {
        let mut b = BarChart::new("b", y);
        b.categories = vec!["x".into(), "y".into()];
        b.series = vec![
            BarSeries::new(
                "s",
                vec![
                    Some(Bar::spread(3.6, Some(2.0), Some(9.0))),
                    Some(Bar::spread(30.0, Some(29.0), Some(31.0))),
                ],
                color(0),
            ),
            BarSeries::new("t", vec![Some(Bar::new(0.27)), None], color(1)),
        ];
        b
    }

    #[test]
    fn a_log_axis_draws_dots_not_bars() {
        let (linear, _) = two_series(AxisSpec::linear("ns").starting_at_zero())
            .render()
            .unwrap();
        let (log, _) = two_series(AxisSpec::log10("ns")).render().unwrap();
        // Filled rectangles in the series' colour: three bars and a legend box on the linear
        // axis; none on the log axis, where the values are dots (circles) instead.
        let c = color(0);
        let hex = format!("fill=\"#{:02X}{:02X}{:02X}\"", c.0, c.1, c.2);
        let rects = |svg: &str| {
            svg.split("<rect")
                .skip(1)
                .filter(|r| r.split('>').next().unwrap_or("").contains(&hex))
                .count()
        };
        assert_eq!(rects(&linear), 3, "two bars and the legend's box");
        assert_eq!(rects(&log), 0);
        assert!(
            log.matches("<circle").count() >= 3,
            "three dots and the legend's"
        );
    }

    #[test]
    fn values_are_written_clear_of_every_whisker() {
        for y in [
            AxisSpec::linear("ns").starting_at_zero(),
            AxisSpec::log10("ns"),
        ] {
            let b = two_series(y);
            let (svg, g) = b.render().unwrap();
            assert!(svg.contains("3.60") && svg.contains("0.270"));
            // Whisker ends come in pairs at one x: the segment between must be uncovered.
            let pts = &g.panels[0].points;
            for p in pts {
                for q in pts {
                    if (p.0 - q.0).abs() < 0.01 && p.1 < q.1 {
                        let seg = Rect::new(p.0 - 1.0, p.1, p.0 + 1.0, q.1);
                        assert!(
                            g.boxes.iter().all(|r| !r.intersects(&seg)),
                            "a value box covers the whisker at x {}",
                            p.0
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn an_unstable_category_is_ringed_and_its_whisker_cut_at_the_axis() {
        let mut b = two_series(AxisSpec::linear("ns").starting_at_zero());
        b.series[0].values[0] = Some(Bar::spread(3.6, Some(3.5), Some(500.0)));
        b.mark_unstable(&[true, false], "ring: unstable");
        let (svg, g) = b.render().unwrap();
        assert!(svg.contains("ring: unstable") && svg.contains("max 500 (cut)"));
        // The axis follows the stable data: its highest label is far below 500.
        let top = g.panels[0]
            .y_ticks
            .iter()
            .filter_map(|(_, l)| l.parse::<f64>().ok())
            .fold(0.0, f64::max);
        assert!(top < 100.0, "{top}");
    }
}
