//! The few chart shapes the book needs, laid out here and written as SVG by [`svg`].
//!
//! [`svg`] is the pen (lines, rectangles, circles, text at pixel positions); the axes,
//! ticks, legend and annotations are placed by this module, so that one set of rules holds
//! in every figure (PRESENTATION.md):
//!
//! - **the legend never covers data**: it is always drawn below the plot area, outside it;
//! - **the appendix's series is dashed**, everywhere ([`Style::reference`]); reported sizes
//!   and detected knees are vertical lines of their own kinds, each with its own legend
//!   entry. Each dash is a short polyline of its own ([`Dash::pattern`]);
//! - **axes** follow [`axis`]: every decade labelled, power-of-two ticks with units, every
//!   point inside the labelled range;
//! - **spread**: points and bars carry their min..max as whiskers;
//! - **key ratios** are drawn as brackets between the two values they compare;
//! - **heatmaps** have a colour bar with units, and a diverging palette for signed values.
//!
//! Every shape records where it put things ([`Geometry`]: the plot areas, the legend, each
//! plotted point's pixel position, the tick labels) so that tests can check these rules on
//! the drawn figures. Output is deterministic: integer pixel positions, fixed formatting,
//! no clocks and no randomness.

pub mod axis;
pub mod bar;
pub mod heat;
pub mod line;
pub mod strip;
pub mod svg;

pub use axis::{AxisSpec, Scale, Units};
pub use bar::{Bar, BarChart, BarSeries};
pub use heat::{Heatmap, Palette};
pub use line::{Bracket, HLine, LineChart, Note, Pt, Series, Vertical, VerticalKind};

pub use svg::{Align, Rgb, Rgba};

use svg::{Font, Svg, VAlign};

/// A colour-blind-safe palette (Okabe-Ito, and one wine red), used in series order.
pub const PALETTE: [Rgb; 9] = [
    Rgb(0, 114, 178),
    Rgb(213, 94, 0),
    Rgb(0, 158, 115),
    Rgb(204, 121, 167),
    Rgb(230, 159, 0),
    Rgb(86, 180, 233),
    Rgb(0, 0, 0),
    Rgb(240, 228, 66),
    Rgb(136, 34, 85),
];

pub const BLACK_C: Rgb = Rgb(0, 0, 0);
pub const GREY: Rgb = Rgb(110, 110, 110);
pub const LIGHT_GREY: Rgb = Rgb(225, 225, 225);
pub const GRID: Rgb = Rgb(232, 232, 232);
pub const GRID_MINOR: Rgb = Rgb(245, 245, 245);

pub fn color(i: usize) -> Rgb {
    PALETTE[i % PALETTE.len()]
}

/// How a stroke is drawn. A broken stroke is one short SVG polyline per dash, the gaps left
/// empty ([`Svg::dashed`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dash {
    Solid,
    /// Long dashes: the appendix's own numbers, and nothing else.
    Long,
    /// Short dashes: horizontal references (a baseline, the clock's step).
    Short,
    /// Dots: knees read from a curve.
    Dotted,
}

impl Dash {
    /// The lengths in pixels of one dash and of the gap after it; none for a solid stroke.
    pub fn pattern(self) -> Option<(u32, u32)> {
        match self {
            Dash::Solid => None,
            Dash::Long => Some((10, 5)),
            Dash::Short => Some((5, 4)),
            Dash::Dotted => Some((2, 3)),
        }
    }
}

/// The edge of a plot an axis is labelled along: the x axis at the bottom, the y axis at
/// the left.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    Bottom,
    Left,
}

impl Edge {
    /// The grid line across `plot` at pixel `p` along this edge's axis.
    fn across(self, plot: Rect, p: f64) -> [(f64, f64); 2] {
        match self {
            Edge::Bottom => [(p, plot.y0), (p, plot.y1)],
            Edge::Left => [(plot.x0, p), (plot.x1, p)],
        }
    }
}

/// A point marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    Dot,
    Square,
    HollowSquare,
    Diamond,
    Triangle,
    /// An upward triangle at the edge: a value beyond the drawn range.
    Clipped,
    /// A downward triangle at the edge.
    ClippedLow,
    Cross,
    /// A large black ring drawn over a point: unstable, unsettled, flagged.
    Ring,
    /// A white disc with a coloured rim drawn over a point: its rounds were disturbed
    /// ([`LineChart::mark_disturbed`]).
    Hollow,
}

/// How a series (or a legend entry) is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Style {
    pub color: Rgb,
    pub line: Option<Dash>,
    pub width: u32,
    pub marker: Option<Marker>,
    /// Marker radius in pixels.
    pub size: u32,
}

impl Style {
    /// One of this run's measured series: a solid line with markers.
    pub fn measured(i: usize, marker: Marker) -> Style {
        Style {
            color: color(i),
            line: Some(Dash::Solid),
            width: 2,
            marker: Some(marker),
            size: 4,
        }
    }
    /// Markers only.
    pub fn points(i: usize, marker: Marker) -> Style {
        Style {
            line: None,
            ..Style::measured(i, marker)
        }
    }
    /// The appendix's own numbers: black long dashes with crosses, in every figure.
    pub fn reference() -> Style {
        Style {
            color: BLACK_C,
            line: Some(Dash::Long),
            width: 2,
            marker: Some(Marker::Cross),
            size: 5,
        }
    }
    /// A point drawn hollow: its rounds were disturbed.
    pub fn hollow(color: Rgb, size: u32) -> Style {
        Style {
            color,
            line: None,
            width: 2,
            marker: Some(Marker::Hollow),
            size: size.max(4),
        }
    }
    /// A ring around points that did not settle.
    pub fn ring() -> Style {
        Style {
            color: BLACK_C,
            line: None,
            width: 2,
            marker: Some(Marker::Ring),
            size: 8,
        }
    }
}

/// A pixel rectangle (x0, y0) top left to (x1, y1) bottom right.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    pub x0: f64,
    pub y0: f64,
    pub x1: f64,
    pub y1: f64,
}

impl Rect {
    pub fn new(x0: f64, y0: f64, x1: f64, y1: f64) -> Rect {
        Rect { x0, y0, x1, y1 }
    }
    pub fn w(&self) -> f64 {
        self.x1 - self.x0
    }
    pub fn h(&self) -> f64 {
        self.y1 - self.y0
    }
    pub fn intersects(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
    pub fn contains(&self, (x, y): (f64, f64)) -> bool {
        x >= self.x0 && x <= self.x1 && y >= self.y0 && y <= self.y1
    }
    pub fn grow(&self, d: f64) -> Rect {
        Rect::new(self.x0 - d, self.y0 - d, self.x1 + d, self.y1 + d)
    }
}

/// Where one plot area put things.
#[derive(Clone, Debug, Default)]
#[cfg_attr(not(test), allow(dead_code))] // read by the structural tests
pub struct PanelGeom {
    pub plot: Option<Rect>,
    /// Pixel positions of every plotted point (markers, line vertices, whisker ends).
    pub points: Vec<(f64, f64)>,
    /// `(pixel position along the axis, label)`.
    pub x_ticks: Vec<(f64, String)>,
    pub y_ticks: Vec<(f64, String)>,
    /// Whether the axis is continuous (a categorical axis has no range to check).
    pub x_continuous: bool,
    pub y_continuous: bool,
}

/// Where a figure put things, for the structural tests.
#[derive(Clone, Debug, Default)]
#[cfg_attr(not(test), allow(dead_code))]
pub struct Geometry {
    pub size: (u32, u32),
    pub panels: Vec<PanelGeom>,
    pub legends: Vec<Rect>,
    /// Text boxes drawn inside plot areas (ratios, notes).
    pub boxes: Vec<Rect>,
    /// Every text drawn, in order (the title first).
    pub texts: Vec<String>,
    /// The style of every broken stroke drawn, in order.
    pub dashes: Vec<Dash>,
}

/// Font sizes.
pub const TITLE: f64 = 18.0;
pub const LABEL: f64 = 13.0;
pub const SMALL: f64 = 12.0;

/// The width a text takes at `size` (the SVG font-size is size / 1.24; an
/// average sans-serif glyph is about 0.6 em wide, a little over for safety).
pub fn text_w(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * size / 1.24 * 0.62
}

/// Splits `text` into lines of at most `width` pixels at `size` (words are not broken).
pub fn wrap(text: &str, size: f64, width: f64) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        let cand = if cur.is_empty() {
            word.to_string()
        } else {
            format!("{cur} {word}")
        };
        if text_w(&cand, size) > width && !cur.is_empty() {
            lines.push(std::mem::take(&mut cur));
            cur = word.to_string();
        } else {
            cur = cand;
        }
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// A pixel canvas that writes SVG and records what it drew.
pub struct Canvas {
    svg: Svg,
    pub geom: Geometry,
}

fn px(v: f64) -> i32 {
    // `as` saturates; the clamp keeps absurd positions from reaching the SVG.
    v.round().clamp(-100_000.0, 100_000.0) as i32
}

/// Renders `draw` on a white canvas of `size` pixels; returns the SVG text and geometry.
pub fn render(
    size: (u32, u32),
    draw: impl FnOnce(&mut Canvas) -> Result<(), String>,
) -> Result<(String, Geometry), String> {
    let size = (size.0.clamp(100, 4000), size.1.clamp(100, 8000));
    let mut c = Canvas {
        svg: Svg::new(size),
        geom: Geometry {
            size,
            ..Geometry::default()
        },
    };
    draw(&mut c)?;
    Ok((c.svg.finish(), c.geom))
}

impl Canvas {
    /// A polyline.
    pub fn line(
        &mut self,
        pts: &[(f64, f64)],
        c: Rgb,
        width: u32,
        dash: Dash,
    ) -> Result<(), String> {
        if pts.len() < 2 {
            return Ok(());
        }
        let v: Vec<(i32, i32)> = pts.iter().map(|&(x, y)| (px(x), px(y))).collect();
        match dash.pattern() {
            None => self.svg.polyline(&v, c, width),
            Some(pattern) => {
                self.geom.dashes.push(dash);
                self.svg.dashed(&v, c, width, pattern)
            }
        }
        Ok(())
    }

    /// A rectangle, filled and/or outlined.
    pub fn rect(
        &mut self,
        r: Rect,
        fill: Option<Rgba>,
        stroke: Option<(Rgb, Dash)>,
    ) -> Result<(), String> {
        let (a, b) = ((px(r.x0), px(r.y0)), (px(r.x1), px(r.y1)));
        match stroke {
            Some((c, Dash::Solid)) => self.svg.rect(a, b, fill, Some(c)),
            Some((c, d)) => {
                self.svg.rect(a, b, fill, None);
                let ring = [(r.x0, r.y0), (r.x1, r.y0), (r.x1, r.y1), (r.x0, r.y1)];
                self.line(&[&ring[..], &ring[..1]].concat(), c, 1, d)?;
            }
            None => self.svg.rect(a, b, fill, None),
        }
        Ok(())
    }

    /// A heatmap's cell drawn hollow (its rounds were disturbed): white inside a frame of
    /// colour `c` ([`hollow_frame`] thick), the white edged in grey where there is room, so
    /// that a frame of a colour near white still shows.
    pub fn hollow_cell(&mut self, r: Rect, c: Rgb) -> Result<(), String> {
        let t = hollow_frame(r);
        let inner = Rect::new(r.x0 + t, r.y0 + t, r.x1 - t, r.y1 - t);
        self.rect(r, Some(c.mix(1.0)), None)?;
        let edge = (inner.w() >= 6.0 && inner.h() >= 6.0).then_some((GREY, Dash::Solid));
        self.rect(inner, Some(Rgb(255, 255, 255).mix(1.0)), edge)
    }

    /// A filled polygon.
    pub fn polygon(&mut self, pts: &[(f64, f64)], fill: Rgba) -> Result<(), String> {
        let v: Vec<(i32, i32)> = pts.iter().map(|&(x, y)| (px(x), px(y))).collect();
        self.svg.polygon(&v, fill);
        Ok(())
    }

    pub fn circle(
        &mut self,
        (x, y): (f64, f64),
        r: u32,
        c: Rgb,
        filled: bool,
        width: u32,
    ) -> Result<(), String> {
        let ring = (!filled).then_some(width);
        self.svg.circle((px(x), px(y)), r, c, ring);
        Ok(())
    }

    /// A marker centred at a pixel position.
    pub fn marker(
        &mut self,
        m: Marker,
        (x, y): (f64, f64),
        size: u32,
        c: Rgb,
    ) -> Result<(), String> {
        let s = f64::from(size);
        let white = Rgb(255, 255, 255);
        match m {
            Marker::Dot => self.circle((x, y), size, c, true, 1),
            Marker::Ring => self.circle((x, y), size, c, false, 2),
            Marker::Hollow => {
                self.circle((x, y), size, Rgb(255, 255, 255), true, 1)?;
                self.circle((x, y), size, c, false, 2)
            }
            Marker::Square => self.rect(
                Rect::new(x - s, y - s, x + s, y + s),
                Some(c.mix(1.0)),
                None,
            ),
            Marker::HollowSquare => {
                self.rect(
                    Rect::new(x - s, y - s, x + s, y + s),
                    Some(white.mix(1.0)),
                    None,
                )?;
                self.line(
                    &[
                        (x - s, y - s),
                        (x + s, y - s),
                        (x + s, y + s),
                        (x - s, y + s),
                        (x - s, y - s),
                    ],
                    c,
                    2,
                    Dash::Solid,
                )
            }
            Marker::Diamond => {
                let d = s * 1.35;
                self.polygon(
                    &[(x, y - d), (x + d, y), (x, y + d), (x - d, y)],
                    c.mix(1.0),
                )
            }
            Marker::Triangle | Marker::Clipped => {
                let d = s * 1.3;
                self.polygon(
                    &[(x, y - d), (x + d, y + d * 0.8), (x - d, y + d * 0.8)],
                    c.mix(1.0),
                )
            }
            Marker::ClippedLow => {
                let d = s * 1.3;
                self.polygon(
                    &[(x, y + d), (x + d, y - d * 0.8), (x - d, y - d * 0.8)],
                    c.mix(1.0),
                )
            }
            Marker::Cross => {
                self.line(&[(x - s, y - s), (x + s, y + s)], c, 2, Dash::Solid)?;
                self.line(&[(x - s, y + s), (x + s, y - s)], c, 2, Dash::Solid)
            }
        }
    }

    /// Faint lines across `plot` at an axis's minor ticks (at pixel `at(t)` along `edge`'s
    /// axis).
    pub fn minor_grid(
        &mut self,
        plot: Rect,
        edge: Edge,
        minor: &[f64],
        at: impl Fn(f64) -> f64,
    ) -> Result<(), String> {
        for t in minor {
            self.line(&edge.across(plot, at(*t)), GRID_MINOR, 1, Dash::Solid)?;
        }
        Ok(())
    }

    /// An axis along `edge` of `plot`: a grid line across the plot at each tick (at pixel
    /// `at(tick)`), its label outside the plot, and the tick recorded in `geom`. With `marks`,
    /// a 5-pixel tick mark outside the plot and the label 8 pixels off it; without, the
    /// label 6 pixels off.
    pub fn grid(
        &mut self,
        plot: Rect,
        edge: Edge,
        ticks: &[axis::Tick],
        at: impl Fn(f64) -> f64,
        marks: bool,
        geom: &mut PanelGeom,
    ) -> Result<(), String> {
        let gap = if marks { 8.0 } else { 6.0 };
        for t in ticks {
            let p = at(t.t);
            self.line(&edge.across(plot, p), GRID, 1, Dash::Solid)?;
            let (mark, label, align, valign) = match edge {
                Edge::Bottom => (
                    [(p, plot.y1), (p, plot.y1 + 5.0)],
                    (p, plot.y1 + gap),
                    Align::Center,
                    0,
                ),
                Edge::Left => (
                    [(plot.x0 - 5.0, p), (plot.x0, p)],
                    (plot.x0 - gap, p),
                    Align::Right,
                    1,
                ),
            };
            if marks {
                self.line(&mark, BLACK_C, 1, Dash::Solid)?;
            }
            self.text(&t.label, label, SMALL, BLACK_C, align, valign, false)?;
            match edge {
                Edge::Bottom => geom.x_ticks.push((p, t.label.clone())),
                Edge::Left => geom.y_ticks.push((p, t.label.clone())),
            }
        }
        Ok(())
    }

    /// An axis title centred under `plot`, its top at `y`.
    pub fn x_title(&mut self, s: &str, plot: Rect, y: f64) -> Result<Rect, String> {
        self.text(
            s,
            ((plot.x0 + plot.x1) / 2.0, y),
            LABEL,
            BLACK_C,
            Align::Center,
            0,
            false,
        )
    }

    /// An axis title turned a quarter left, centred beside `plot` at pixel column `x`.
    pub fn y_title(&mut self, s: &str, plot: Rect, x: f64) -> Result<(), String> {
        self.text_vertical(s, (x, (plot.y0 + plot.y1) / 2.0), LABEL, BLACK_C)
    }

    /// Horizontal references across `plot`, each at pixel height `y(line.y)` (one that
    /// cannot be placed is left out).
    pub fn hlines(
        &mut self,
        plot: Rect,
        lines: &[HLine],
        y: impl Fn(f64) -> Option<f64>,
    ) -> Result<(), String> {
        for h in lines {
            if let Some(yy) = y(h.y) {
                self.line(&[(plot.x0, yy), (plot.x1, yy)], h.color, 2, h.dash)?;
            }
        }
        Ok(())
    }

    /// A min..max whisker at pixel column `x` from pixel `lo` to `hi`, with caps `cap`
    /// pixels each side; both ends recorded in `geom` as plotted points.
    pub fn whisker(
        &mut self,
        x: f64,
        (lo, hi): (f64, f64),
        cap: f64,
        col: Rgb,
        geom: &mut PanelGeom,
    ) -> Result<(), String> {
        self.line(&[(x, lo), (x, hi)], col, 1, Dash::Solid)?;
        self.line(&[(x - cap, lo), (x + cap, lo)], col, 1, Dash::Solid)?;
        self.line(&[(x - cap, hi), (x + cap, hi)], col, 1, Dash::Solid)?;
        geom.points.push((x, lo));
        geom.points.push((x, hi));
        Ok(())
    }

    /// A min..max whisker across: at pixel row `y` from pixel `lo` to `hi`, with caps `cap`
    /// pixels each side; both ends recorded in `geom` as plotted points.
    pub fn whisker_across(
        &mut self,
        y: f64,
        (lo, hi): (f64, f64),
        cap: f64,
        col: Rgb,
        geom: &mut PanelGeom,
    ) -> Result<(), String> {
        self.line(&[(lo, y), (hi, y)], col, 1, Dash::Solid)?;
        self.line(&[(lo, y - cap), (lo, y + cap)], col, 1, Dash::Solid)?;
        self.line(&[(hi, y - cap), (hi, y + cap)], col, 1, Dash::Solid)?;
        geom.points.push((lo, y));
        geom.points.push((hi, y));
        Ok(())
    }

    /// Text at a pixel position; `valign` 0 = top, 1 = middle, 2 = bottom of the text.
    /// Returns the box it takes (estimated).
    #[allow(clippy::too_many_arguments)]
    pub fn text(
        &mut self,
        s: &str,
        (x, y): (f64, f64),
        size: f64,
        c: Rgb,
        align: Align,
        valign: u8,
        bold: bool,
    ) -> Result<Rect, String> {
        let font = Font {
            size,
            color: c,
            align,
            valign: match valign {
                0 => VAlign::Top,
                1 => VAlign::Middle,
                _ => VAlign::Bottom,
            },
            bold,
            turned: false,
        };
        self.geom.texts.push(s.to_string());
        self.svg.text(s, (px(x), px(y)), font);
        let w = text_w(s, size);
        let th = size * 0.95;
        let x0 = match align {
            Align::Left => x,
            Align::Center => x - w / 2.0,
            Align::Right => x - w,
        };
        let y0 = match valign {
            0 => y,
            1 => y - th / 2.0,
            _ => y - th,
        };
        Ok(Rect::new(x0, y0, x0 + w, y0 + th))
    }

    /// Text turned a quarter left (a y-axis title), centred at (x, y).
    pub fn text_vertical(
        &mut self,
        s: &str,
        (x, y): (f64, f64),
        size: f64,
        c: Rgb,
    ) -> Result<(), String> {
        let font = Font {
            size,
            color: c,
            align: Align::Center,
            valign: VAlign::Middle,
            bold: false,
            turned: true,
        };
        self.geom.texts.push(s.to_string());
        self.svg.text(s, (px(x), px(y)), font);
        Ok(())
    }

    /// Lines of text on a white box with a thin border; returns the box.
    #[allow(clippy::too_many_arguments)]
    pub fn text_box(
        &mut self,
        lines: &[String],
        (x, y): (f64, f64),
        size: f64,
        c: Rgb,
        align: Align,
        border: bool,
    ) -> Result<Rect, String> {
        let r = text_box_rect(lines, (x, y), size, align);
        self.rect(
            r,
            Some(Rgb(255, 255, 255).mix(0.92)),
            border.then_some((Rgb(150, 150, 150), Dash::Solid)),
        )?;
        for (i, l) in lines.iter().enumerate() {
            let tx = match align {
                Align::Left => r.x0 + 4.0,
                Align::Center => (r.x0 + r.x1) / 2.0,
                Align::Right => r.x1 - 4.0,
            };
            self.text(
                l,
                (tx, r.y0 + 3.0 + i as f64 * size * 1.15),
                size,
                c,
                align,
                0,
                false,
            )?;
        }
        Ok(r)
    }

    /// A title, wrapped to `width` and centred at `cx`; returns the height used.
    pub fn title(&mut self, s: &str, cx: f64, y: f64, width: f64) -> Result<f64, String> {
        let lines = wrap(s, TITLE, width);
        for (i, l) in lines.iter().enumerate() {
            self.text(
                l,
                (cx, y + i as f64 * TITLE * 1.2),
                TITLE,
                BLACK_C,
                Align::Center,
                0,
                false,
            )?;
        }
        Ok(lines.len() as f64 * TITLE * 1.2)
    }
}

/// The box `text_box` draws for these lines (for placing it before drawing).
pub fn text_box_rect(lines: &[String], (x, y): (f64, f64), size: f64, align: Align) -> Rect {
    let w = lines.iter().map(|l| text_w(l, size)).fold(0.0, f64::max) + 8.0;
    let h = lines.len() as f64 * size * 1.15 + 5.0;
    let x0 = match align {
        Align::Left => x,
        Align::Center => x - w / 2.0,
        Align::Right => x - w,
    };
    Rect::new(x0, y, x0 + w, y + h)
}

/// The frame of a hollow cell `r` ([`Canvas::hollow_cell`]), in pixels: a fifth of its
/// smaller side, 1 to 6.
pub fn hollow_frame(r: Rect) -> f64 {
    (r.w().min(r.h()) / 5.0).floor().clamp(1.0, 6.0)
}

/// One legend entry: what its sample looks like, and its text.
#[derive(Clone, Debug)]
pub enum Glyph {
    Series(Style),
    /// A vertical line of this colour and dash (a reported size, a knee).
    Vertical(Rgb, Dash),
    /// A horizontal line.
    Horizontal(Rgb, Dash),
    /// A whisker: the min..max bar.
    Whisker(Rgb),
    /// A whisker across (min..max along x).
    WhiskerAcross(Rgb),
    /// A filled box (a bar), or a dashed outline (the appendix's bar).
    Bar(Rgb, bool),
    /// A white box with a solid outline: a bar whose rounds were disturbed.
    HollowBar(Rgb),
    /// A heatmap's cell drawn hollow: its rounds were disturbed ([`Canvas::hollow_cell`]).
    HollowCell(Rgb),
}

/// The legend of a chart, drawn below its plot area.
#[derive(Clone, Debug, Default)]
pub struct Legend {
    pub entries: Vec<(Glyph, String)>,
}

const LEGEND_ROW: f64 = 19.0;
const GLYPH_W: f64 = 34.0;

impl Legend {
    pub fn push(&mut self, g: Glyph, label: impl Into<String>) {
        let label = label.into();
        if !label.is_empty() && !self.entries.iter().any(|(_, l)| *l == label) {
            self.entries.push((g, label));
        }
    }

    /// Columns and rows for `width` pixels.
    fn grid(&self, width: f64) -> (usize, usize) {
        if self.entries.is_empty() {
            return (1, 0);
        }
        let widest = self
            .entries
            .iter()
            .map(|(_, l)| text_w(l, SMALL))
            .fold(0.0, f64::max);
        let cell = GLYPH_W + 8.0 + widest + 18.0;
        let cols = ((width / cell).floor() as usize)
            .clamp(1, 3)
            .min(self.entries.len());
        (cols, self.entries.len().div_ceil(cols))
    }

    /// The height the legend takes at `width`.
    /// One entry for each horizontal reference.
    pub fn hlines(&mut self, lines: &[HLine]) {
        for h in lines {
            self.push(Glyph::Horizontal(h.color, h.dash), h.label.clone());
        }
    }

    pub fn height(&self, width: f64) -> f64 {
        let (_, rows) = self.grid(width);
        if rows == 0 {
            0.0
        } else {
            rows as f64 * LEGEND_ROW + 10.0
        }
    }

    /// Draws the legend in the band starting at `y`, from `x0` to `x1`.
    pub fn draw(&self, c: &mut Canvas, x0: f64, x1: f64, y: f64) -> Result<(), String> {
        if self.entries.is_empty() {
            return Ok(());
        }
        let width = x1 - x0;
        let (cols, rows) = self.grid(width);
        let colw = width / cols as f64;
        let r = Rect::new(x0, y, x1, y + rows as f64 * LEGEND_ROW + 6.0);
        c.rect(r, None, Some((Rgb(190, 190, 190), Dash::Solid)))?;
        // Entries run down the columns.
        for (i, (g, label)) in self.entries.iter().enumerate() {
            let (col, row) = (i / rows, i % rows);
            let gx = x0 + col as f64 * colw + 8.0;
            let gy = y + 3.0 + row as f64 * LEGEND_ROW + LEGEND_ROW / 2.0;
            draw_glyph(c, g, gx, gy)?;
            let max_chars = ((colw - GLYPH_W - 16.0) / text_w("m", SMALL)).max(8.0) as usize;
            c.text(
                &clip(label, max_chars),
                (gx + GLYPH_W + 6.0, gy),
                SMALL,
                BLACK_C,
                Align::Left,
                1,
                false,
            )?;
        }
        c.geom.legends.push(r);
        Ok(())
    }
}

fn draw_glyph(c: &mut Canvas, g: &Glyph, x: f64, y: f64) -> Result<(), String> {
    let mid = x + GLYPH_W / 2.0;
    match g {
        Glyph::Series(s) => {
            if let Some(d) = s.line {
                c.line(&[(x, y), (x + GLYPH_W, y)], s.color, s.width, d)?;
            }
            if let Some(m) = s.marker {
                c.marker(m, (mid, y), s.size.min(7), s.color)?;
            }
            Ok(())
        }
        Glyph::Vertical(col, d) => c.line(&[(mid, y - 8.0), (mid, y + 8.0)], *col, 2, *d),
        Glyph::Horizontal(col, d) => c.line(&[(x, y), (x + GLYPH_W, y)], *col, 2, *d),
        Glyph::Whisker(col) => {
            c.line(&[(mid, y - 8.0), (mid, y + 8.0)], *col, 1, Dash::Solid)?;
            c.line(
                &[(mid - 4.0, y - 8.0), (mid + 4.0, y - 8.0)],
                *col,
                1,
                Dash::Solid,
            )?;
            c.line(
                &[(mid - 4.0, y + 8.0), (mid + 4.0, y + 8.0)],
                *col,
                1,
                Dash::Solid,
            )?;
            c.circle((mid, y), 2, *col, true, 1)
        }
        Glyph::WhiskerAcross(col) => {
            let (a, b) = (x + 6.0, x + GLYPH_W - 6.0);
            c.line(&[(a, y), (b, y)], *col, 1, Dash::Solid)?;
            c.line(&[(a, y - 5.0), (a, y + 5.0)], *col, 1, Dash::Solid)?;
            c.line(&[(b, y - 5.0), (b, y + 5.0)], *col, 1, Dash::Solid)?;
            c.circle((mid, y), 2, *col, true, 1)
        }
        Glyph::Bar(col, filled) => {
            let r = Rect::new(x + 8.0, y - 7.0, x + GLYPH_W - 8.0, y + 7.0);
            if *filled {
                c.rect(r, Some(col.mix(1.0)), None)
            } else {
                c.rect(r, None, Some((*col, Dash::Long)))
            }
        }
        Glyph::HollowBar(col) => {
            let r = Rect::new(x + 8.0, y - 7.0, x + GLYPH_W - 8.0, y + 7.0);
            c.rect(r, None, Some((*col, Dash::Solid)))
        }
        Glyph::HollowCell(col) => c.hollow_cell(
            Rect::new(x + 6.0, y - 8.0, x + GLYPH_W - 6.0, y + 8.0),
            *col,
        ),
    }
}

/// 2000000.0 -> "2,000,000" (whole numbers; anything else as [`num`] writes it).
pub fn grouped(v: f64) -> String {
    if v >= 0.0 && v.fract() == 0.0 && v < 1e15 {
        axis::group(v as u64)
    } else {
        num(v)
    }
}

/// A time given in ns, written for people in the unit that suits it: "20 ns", "132 µs",
/// "1.56 ms".
pub fn time_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{} ms", num(ns / 1e6))
    } else if ns >= 1e3 {
        format!("{} µs", num(ns / 1e3))
    } else {
        format!("{} ns", num(ns))
    }
}

/// A value written for people: three significant digits, no exponent in the usual range,
/// trailing zeros dropped.
pub fn num(v: f64) -> String {
    let s = sig3(v);
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Three significant digits, trailing zeros kept ("0.490", "1.00"): for values set side by
/// side.
pub fn sig3(v: f64) -> String {
    if !v.is_finite() {
        return "?".into();
    }
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e7).contains(&a) {
        let s = format!("{v:.2e}");
        return match s.split_once('e') {
            Some((m, e)) => {
                let m = if m.contains('.') {
                    m.trim_end_matches('0').trim_end_matches('.')
                } else {
                    m
                };
                format!("{m}e{e}")
            }
            None => s,
        };
    }
    let decimals = if a >= 100.0 {
        0
    } else if a >= 10.0 {
        1
    } else if a >= 1.0 {
        2
    } else {
        (2.0 - a.log10().floor()).clamp(0.0, 6.0) as usize
    };
    format!("{v:.decimals$}")
}

/// A ratio written for people: "13.4x", "1.00x", "6614x".
pub fn ratio(v: f64) -> String {
    if !v.is_finite() {
        return "?x".into();
    }
    let a = v.abs();
    if a >= 1e7 || (a < 1e-3 && a > 0.0) {
        return format!("{}x", num(v));
    }
    if a >= 100.0 {
        format!("{v:.0}x")
    } else if a >= 10.0 {
        format!("{v:.1}x")
    } else {
        format!("{v:.2}x")
    }
}

/// `a / b` where both are finite and b is not zero.
pub fn div(a: f64, b: f64) -> Option<f64> {
    let r = a / b;
    (b != 0.0 && r.is_finite()).then_some(r)
}

/// Formats a KiB count as "4K", "1M", "128M" (for text beside a vertical).
pub fn kib_label(kib: f64) -> String {
    if !(kib.is_finite() && kib > 0.0) {
        return "?".into();
    }
    if kib >= 1024.0 * 1024.0 * 1024.0 {
        format!("{}T", num(kib / 1024.0 / 1024.0 / 1024.0))
    } else if kib >= 1024.0 * 1024.0 {
        format!("{}G", num(kib / 1024.0 / 1024.0))
    } else if kib >= 1024.0 {
        format!("{}M", num(kib / 1024.0))
    } else {
        format!("{}K", num(kib))
    }
}

/// Picks, among candidate boxes, the first inside `bounds` that covers no recorded point and
/// no other box; failing that, the one covering the fewest points.
pub fn place(candidates: &[Rect], bounds: &Rect, points: &[(f64, f64)], boxes: &[Rect]) -> Rect {
    let cost = |r: &Rect| {
        let inside =
            r.x0 >= bounds.x0 && r.x1 <= bounds.x1 && r.y0 >= bounds.y0 && r.y1 <= bounds.y1;
        let covered = points.iter().filter(|p| r.grow(3.0).contains(**p)).count();
        let overlaps = boxes.iter().filter(|b| b.intersects(r)).count();
        (if inside { 0 } else { 1000 }) + covered * 10 + overlaps * 50
    };
    let mut best = candidates[0];
    let mut best_cost = usize::MAX;
    for r in candidates {
        let k = cost(r);
        if k < best_cost {
            best = *r;
            best_cost = k;
        }
        if k == 0 {
            break;
        }
    }
    best
}

/// Text shortened to `max` characters, the last one an ellipsis where it was cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let t: String = s.chars().take(max.saturating_sub(1)).collect();
        format!("{t}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_keeps_short_text_and_cuts_long_text_with_an_ellipsis() {
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("abcd", 4), "abcd");
        assert_eq!(clip("ééééé", 3), "éé…");
    }

    #[test]
    fn numbers_and_ratios_read_naturally() {
        assert_eq!(num(0.481523), "0.482");
        assert_eq!(num(13.4406), "13.4");
        assert_eq!(num(208.019), "208");
        assert_eq!(num(5e-324), "4.94e-324");
        assert_eq!(ratio(13.4406), "13.4x");
        assert_eq!(ratio(1.00341), "1.00x");
        assert_eq!(ratio(6614.35), "6614x");
        assert_eq!(kib_label(49152.0 / 1024.0 * 1024.0), "48M");
        assert_eq!(kib_label(48.0), "48K");
    }

    /// The point lists of an SVG's polylines, in order.
    fn polylines(svg: &str) -> Vec<Vec<(i32, i32)>> {
        let point = |p: &str| {
            let (x, y) = p.split_once(',')?;
            Some((x.parse().ok()?, y.parse().ok()?))
        };
        svg.split("<polyline")
            .skip(1)
            .filter_map(|t| {
                let pts = t.split("points=\"").nth(1)?.split('"').next()?;
                Some(pts.split_whitespace().filter_map(point).collect())
            })
            .collect()
    }

    /// The dashes a horizontal stroke at row `y` from `x0` to `x1` should break into.
    fn dashes_along(x0: i32, x1: i32, y: i32, (on, off): (u32, u32)) -> Vec<Vec<(i32, i32)>> {
        let (on, period) = (on as i32, (on + off) as i32);
        (x0..x1)
            .step_by(period as usize)
            .map(|a| vec![(a, y), ((a + on).min(x1), y)])
            .collect()
    }

    #[test]
    fn each_dash_style_breaks_a_line_and_its_legend_sample_alike() {
        assert_eq!(Dash::Solid.pattern(), None);
        let mut seen = Vec::new();
        for dash in [Dash::Long, Dash::Short, Dash::Dotted] {
            let pattern = dash.pattern().unwrap();
            assert!(
                !seen.contains(&pattern),
                "{dash:?} looks like another style"
            );
            seen.push(pattern);
            let (svg, g) = render((200, 100), |c| {
                c.line(&[(20.0, 50.0), (120.0, 50.0)], BLACK_C, 2, dash)
            })
            .unwrap();
            let want = dashes_along(20, 120, 50, pattern);
            assert!(want.len() >= 7, "{dash:?}: {} dashes", want.len());
            assert_eq!(polylines(&svg), want, "{dash:?}");
            assert_eq!(g.dashes, [dash]);
            // The legend's sample is the same stroke: from x0 + 8 across GLYPH_W pixels, in
            // the middle of the first row.
            let mut legend = Legend::default();
            legend.push(Glyph::Horizontal(BLACK_C, dash), "a reference");
            let (svg, _) = render((200, 100), |c| legend.draw(c, 10.0, 190.0, 20.0)).unwrap();
            let y = px(20.0 + 3.0 + LEGEND_ROW / 2.0);
            let x1 = px(18.0 + GLYPH_W);
            assert_eq!(
                polylines(&svg),
                dashes_along(18, x1, y, pattern),
                "{dash:?}"
            );
        }
        // A solid line stays one polyline, and a dashed outline is a broken ring.
        let (svg, g) = render((200, 100), |c| {
            c.line(&[(20.0, 50.0), (120.0, 50.0)], BLACK_C, 2, Dash::Solid)?;
            let r = Rect::new(20.0, 60.0, 80.0, 90.0);
            c.rect(r, None, Some((BLACK_C, Dash::Long)))
        })
        .unwrap();
        let lines = polylines(&svg);
        assert_eq!(lines[0], [(20, 50), (120, 50)]);
        assert_eq!(lines[1], [(20, 60), (30, 60)]);
        assert!(lines.len() > 10, "{} dashes round the box", lines.len() - 1);
        assert_eq!(g.dashes, [Dash::Long]);
    }

    #[test]
    fn wrap_keeps_words() {
        let l = wrap("one two three four five six", 12.0, 60.0);
        assert!(l.len() > 1);
        assert_eq!(l.join(" "), "one two three four five six");
    }

    #[test]
    fn place_avoids_points() {
        let bounds = Rect::new(0.0, 0.0, 100.0, 100.0);
        let a = Rect::new(0.0, 0.0, 20.0, 20.0);
        let b = Rect::new(50.0, 50.0, 70.0, 70.0);
        assert_eq!(place(&[a, b], &bounds, &[(10.0, 10.0)], &[]), b);
    }
}
