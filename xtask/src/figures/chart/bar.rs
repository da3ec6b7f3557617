//! Grouped bars: one group per category, one bar per series, each bar with its min..max
//! whisker and its value written above it; ratio brackets between bars; categories that
//! were not measured said in the plot, in a slot of their own.

use super::axis::{Axis, AxisSpec};
use super::line::HLine;
use super::{
    Align, BLACK_C, Canvas, Dash, Edge, GREY, Geometry, Glyph, LABEL, Legend, PanelGeom, Rect,
    SMALL, render, text_w, wrap,
};
use plotters::style::{Color, RGBColor};

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
    pub color: RGBColor,
    /// The appendix's own numbers: an unfilled bar with a dashed outline.
    pub reference: bool,
}

impl BarSeries {
    pub fn new(label: impl Into<String>, values: Vec<Option<Bar>>, color: RGBColor) -> BarSeries {
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
    /// What was not measured, said in a slot at the right of the plot (a line break starts
    /// a new paragraph).
    pub skipped: Option<String>,
    /// The category label under the skipped slot ("4, 8 threads").
    pub skipped_label: String,
    pub whisker_label: String,
    pub legend_extra: Vec<(Glyph, String)>,
    /// Write "n/a" where a series has no bar in a category that has others.
    pub mark_missing: bool,
    /// Per category: its rounds were disturbed, so its bars are drawn hollow.
    pub disturbed: Vec<bool>,
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
            skipped_label: String::new(),
            whisker_label: "bars: min..max of the rounds".into(),
            legend_extra: Vec::new(),
            mark_missing: true,
            disturbed: Vec::new(),
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
            self.legend_extra
                .push((Glyph::HollowBar(GREY), crate::marks::LEGEND.into()));
        }
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
                l.push(Glyph::Bar(s.color, !s.reference), s.label.clone());
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
        self.categories.len() + usize::from(self.skipped.is_some())
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
            + if self.x_title.is_empty() { 6.0 } else { 24.0 };
        (10.0
            + title
            + 10.0
            + f64::from(self.plot_height)
            + below
            + self.legend().height(w - 40.0)
            + 16.0)
            .ceil() as u32
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

    fn draw(&self, c: &mut Canvas<'_>) -> Result<(), String> {
        let w = f64::from(self.width);
        let mut y = 10.0;
        y += c.title(&self.title, w / 2.0, y, w - 40.0)? + 10.0;
        let plot_h = f64::from(self.plot_height);
        let mut ys: Vec<f64> = Vec::new();
        for (_, _, b) in self.bars() {
            ys.push(b.v);
            ys.extend(
                [b.lo, b.hi]
                    .into_iter()
                    .flatten()
                    .filter(|v| self.y.drawable(*v)),
            );
        }
        ys.extend(HLine::ys(&self.hlines, &self.y));
        let headroom = TOP_PAD + BRACKET_STEP * self.bracket_levels() as f64;
        let y_axis = Axis::fit(&self.y, &ys, plot_h - headroom, &|_| 24.0)
            .map_err(|e| format!("figure {:?}: y axis: {e}", self.title))?;
        let left = 14.0 + 22.0 + y_axis.label_w() + 8.0;
        let plot = Rect::new(left, y, w - 22.0, y + plot_h);
        let fy = |v: f64| y_axis.frac(v).map(|f| plot.y1 - f * (plot.h() - headroom));
        let ty = |t: f64| plot.y1 - y_axis.frac_t(t) * (plot.h() - headroom);
        let mut geom = PanelGeom {
            plot: Some(plot),
            x_continuous: false,
            y_continuous: true,
            ..PanelGeom::default()
        };
        c.minor_grid(plot, Edge::Left, &y_axis.minor, ty)?;
        c.grid(plot, Edge::Left, &y_axis.ticks, ty, true, &mut geom)?;
        c.rect(plot, None, Some((BLACK_C, Dash::Solid)))?;
        c.y_title(&self.y.title, plot, 14.0)?;

        let n_slots = self.slots().max(1);
        let slot = plot.w() / n_slots as f64;
        let n_ser = self.series.len().max(1);
        let group = slot * 0.8;
        let bw = group / n_ser as f64;
        let bar_x = |si: usize, ci: usize| plot.x0 + slot * ci as f64 + slot * 0.1 + bw * si as f64;
        // Category labels.
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
        // The skipped slot: grey text where the bars would be.
        if let Some(note) = &self.skipped {
            let x0 = plot.x0 + slot * self.categories.len() as f64;
            c.rect(
                Rect::new(x0 + 4.0, plot.y0 + 4.0, x0 + slot - 4.0, plot.y1 - 4.0),
                Some(RGBColor(246, 246, 246).mix(1.0)),
                Some((RGBColor(200, 200, 200), Dash::Short)),
            )?;
            let lines: Vec<String> = note
                .lines()
                .flat_map(|p| wrap(p, SMALL, slot - 20.0))
                .collect();
            let top = (plot.y0 + plot.y1) / 2.0 - lines.len() as f64 * 8.0;
            for (k, l) in lines.iter().enumerate() {
                c.text(
                    l,
                    (x0 + slot / 2.0, top + k as f64 * 16.0),
                    SMALL,
                    GREY,
                    Align::Center,
                    0,
                    false,
                )?;
            }
            if !self.skipped_label.is_empty() {
                let cx = x0 + slot / 2.0;
                let r = c.text(
                    &self.skipped_label,
                    (cx, plot.y1 + 8.0),
                    SMALL,
                    GREY,
                    Align::Center,
                    0,
                    false,
                )?;
                label_bottom = label_bottom.max(r.y1);
                geom.x_ticks.push((cx, self.skipped_label.clone()));
            }
        }

        // Bars, whiskers, values. `tops` keeps each bar's highest drawn pixel.
        let base = plot.y1;
        let mut tops = vec![vec![None::<f64>; self.categories.len()]; self.series.len()];
        for (si, ci, b) in self.bars() {
            let s = &self.series[si];
            let Some(top) = fy(b.v) else { continue };
            let x0 = bar_x(si, ci);
            let r = Rect::new(x0 + 1.0, top, x0 + bw - 1.0, base);
            if s.reference {
                c.rect(r, Some(RGBColor(255, 255, 255).mix(1.0)), None)?;
                c.line(
                    &[(r.x0, base), (r.x0, top), (r.x1, top), (r.x1, base)],
                    BLACK_C,
                    2,
                    Dash::Long,
                )?;
            } else if self.disturbed.get(ci).copied().unwrap_or(false) {
                c.rect(
                    r,
                    Some(RGBColor(255, 255, 255).mix(1.0)),
                    Some((s.color, Dash::Solid)),
                )?;
            } else {
                c.rect(r, Some(s.color.mix(1.0)), None)?;
            }
            let cx = x0 + bw / 2.0;
            geom.points.push((cx, top));
            let mut highest = top;
            let lo = b.lo.filter(|v| self.y.drawable(*v)).and_then(fy);
            let hi = b.hi.filter(|v| self.y.drawable(*v)).and_then(fy);
            if let (Some(l), Some(h)) = (lo, hi) {
                let cap = (bw * 0.25).clamp(2.0, 6.0);
                c.whisker(cx, (l, h), cap, BLACK_C, &mut geom)?;
                highest = highest.min(h).min(l);
            }
            let label = super::sig3(b.v);
            let size = if text_w(&label, 11.0) <= bw + 6.0 {
                11.0
            } else {
                9.0
            };
            let r = c.text(
                &label,
                (cx, highest - 3.0),
                size,
                BLACK_C,
                Align::Center,
                2,
                false,
            )?;
            tops[si][ci] = Some(r.y0);
        }
        // Not measured: a dash at the base where a bar would be, when its category has
        // other bars.
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
                    let cx = bar_x(si, ci) + bw / 2.0;
                    c.text("n/a", (cx, base - 3.0), 10.0, GREY, Align::Center, 2, false)?;
                }
            }
        }
        c.hlines(plot, &self.hlines, fy)?;

        // Ratio brackets, each above the bars it spans and above earlier brackets there.
        let mut drawn: Vec<(f64, f64, f64)> = Vec::new(); // (x from, x to, top)
        for r in &self.ratios {
            let get = |(si, ci): (usize, usize)| -> Option<(f64, f64)> {
                let top = *tops.get(si)?.get(ci)?;
                Some((bar_x(si, ci) + bw / 2.0, top?))
            };
            let (Some((xa, ta)), Some((xb, tb))) = (get(r.a), get(r.b)) else {
                continue;
            };
            let (x0, x1) = (xa.min(xb), xa.max(xb));
            // Everything drawn between the two bars.
            let mut level = ta.min(tb);
            for (si, row) in tops.iter().enumerate() {
                for (ci, t) in row.iter().enumerate() {
                    let cx = bar_x(si, ci) + bw / 2.0;
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
            let ly = (level - 8.0).max(plot.y0 + 24.0);
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

        let legend = self.legend();
        let ly = label_bottom + if self.x_title.is_empty() { 10.0 } else { 28.0 };
        legend.draw(c, 20.0, w - 20.0, ly)?;
        c.geom.panels.push(geom);
        Ok(())
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
}
