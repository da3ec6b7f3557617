//! Heatmaps: a grid of values with labelled rows and columns (row 0 at the top), a colour
//! bar with its units, and a diverging palette centred on zero for signed values.

use super::Rgb;
use super::axis::{Axis, AxisSpec};
use super::{
    Align, BLACK_C, Canvas, Dash, GREY, Geometry, Glyph, LABEL, Legend, PanelGeom, Rect, SMALL,
    num, render, text_w, wrap,
};

/// How values become colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Palette {
    /// Light to dark, for a quantity whose size is the point (a latency).
    Sequential,
    /// Blue below zero, white at zero, red above: for signed quantities.
    Diverging,
}

#[derive(Clone, Debug)]
pub struct Heatmap {
    pub title: String,
    pub x_label: String,
    pub y_label: String,
    pub x_labels: Vec<String>,
    pub y_labels: Vec<String>,
    /// `values[row][col]`; `None` cells are drawn grey with `missing` in them.
    pub values: Vec<Vec<Option<f64>>>,
    /// What a grey cell means ("not measured").
    pub missing: String,
    /// What a grey cell on the diagonal means, when rows and columns are the same things
    /// ("same core").
    pub diagonal: Option<String>,
    /// The colour bar's title, with the unit ("one-way latency (ns)").
    pub unit: String,
    /// Written after each cell's value ("%", " ns"), when the cells are big enough.
    pub cell_suffix: String,
    /// How a cell's value is written (default: three significant digits).
    pub cell_fmt: fn(f64) -> String,
    pub palette: Palette,
    /// Values the ends of the colour bar stand for; beyond them cells take the end colour
    /// and are marked. `None`: the data's own range (symmetric about zero when diverging).
    pub range: Option<(f64, f64)>,
    pub width: u32,
    /// The height of one row of cells.
    pub row_height: u32,
    /// Lines written under the grid (how the scale was chosen, what was clipped).
    pub caption: Vec<String>,
    /// `disturbed[row][col]`: the cell's rounds were disturbed, so it is drawn hollow (white
    /// inside a thick frame of its colour) and one legend line says so. Empty (or short):
    /// no cell is.
    pub disturbed: Vec<Vec<bool>>,
}

impl Heatmap {
    pub fn new(title: &str, palette: Palette) -> Heatmap {
        Heatmap {
            title: title.into(),
            x_label: String::new(),
            y_label: String::new(),
            x_labels: Vec::new(),
            y_labels: Vec::new(),
            values: Vec::new(),
            missing: "not measured".into(),
            diagonal: None,
            unit: String::new(),
            cell_suffix: String::new(),
            cell_fmt: num,
            palette,
            range: None,
            width: 900,
            row_height: 40,
            caption: Vec::new(),
            disturbed: Vec::new(),
        }
    }

    /// Whether the cell in row `r`, column `ci` is drawn hollow.
    fn is_disturbed(&self, r: usize, ci: usize) -> bool {
        self.disturbed
            .get(r)
            .and_then(|row| row.get(ci))
            .copied()
            .unwrap_or(false)
    }

    /// The legend under the caption: one line for the hollow cells, when a cell with a value
    /// is drawn hollow ([`crate::marks::LEGEND`]); empty otherwise.
    fn legend(&self) -> Legend {
        let mut l = Legend::default();
        let hollow = self.values.iter().enumerate().any(|(r, row)| {
            row.iter()
                .enumerate()
                .any(|(ci, v)| v.is_some_and(f64::is_finite) && self.is_disturbed(r, ci))
        });
        if hollow {
            l.push(Glyph::HollowCell(GREY), crate::marks::LEGEND);
        }
        l
    }

    fn cols(&self) -> usize {
        self.values.iter().map(Vec::len).max().unwrap_or(0)
    }

    /// The colour range: given, or the data's (symmetric about zero when diverging; a
    /// sequential range narrower than a tenth of its top is widened so that equal-looking
    /// values are equal within that).
    pub fn scale(&self) -> Option<(f64, f64)> {
        if let Some((a, b)) = self.range
            && a.is_finite()
            && b.is_finite()
            && a < b
        {
            return Some((a, b));
        }
        let vals: Vec<f64> = self
            .values
            .iter()
            .flatten()
            .flatten()
            .copied()
            .filter(|v| v.is_finite())
            .collect();
        if vals.is_empty() {
            return None;
        }
        let lo = vals.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = vals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        match self.palette {
            Palette::Diverging => {
                let m = lo.abs().max(hi.abs());
                let m = if m > 0.0 && m.is_finite() { m } else { 1.0 };
                Some((-m, m))
            }
            Palette::Sequential => {
                let span = hi / 2.0 - lo / 2.0;
                let min_span = (hi.abs().max(lo.abs()) * 0.05).max(1e-300);
                if span < min_span {
                    let mid = lo / 2.0 + hi / 2.0;
                    Some((mid - min_span, mid + min_span))
                } else {
                    Some((lo, hi))
                }
            }
        }
    }

    fn colour(&self, v: f64, (lo, hi): (f64, f64)) -> Rgb {
        let t = ((v / 2.0 - lo / 2.0) / (hi / 2.0 - lo / 2.0)).clamp(0.0, 1.0);
        let t = if t.is_finite() { t } else { 0.5 };
        let stops: &[(f64, (u8, u8, u8))] = match self.palette {
            // Light yellow to dark red.
            Palette::Sequential => &[
                (0.0, (255, 247, 188)),
                (0.35, (254, 196, 79)),
                (0.7, (236, 112, 20)),
                (1.0, (140, 45, 4)),
            ],
            // Blue, white, red.
            Palette::Diverging => &[
                (0.0, (33, 102, 172)),
                (0.25, (146, 197, 222)),
                (0.5, (247, 247, 247)),
                (0.75, (244, 165, 130)),
                (1.0, (178, 24, 43)),
            ],
        };
        let mut k = 0;
        while k + 2 < stops.len() && t > stops[k + 1].0 {
            k += 1;
        }
        let (t0, a) = stops[k];
        let (t1, b) = stops[k + 1];
        let f = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
        let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
        Rgb(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
    }

    pub fn height(&self) -> u32 {
        let w = f64::from(self.width);
        let title = wrap(&self.title, super::TITLE, w - 40.0).len() as f64 * super::TITLE * 1.2;
        let rows = self.values.len().clamp(1, 600) as f64;
        (10.0
            + title
            + 14.0
            + rows * f64::from(self.row_height)
            + 64.0
            + self.caption.len() as f64 * 16.0
            + self.legend().height(w)
            + 10.0)
            .ceil() as u32
    }

    pub fn render(&self) -> Result<(String, Geometry), String> {
        let rows = self.values.len();
        let cols = self.cols();
        if rows == 0 || cols == 0 {
            return Err(format!("figure {:?} has no cell to draw", self.title));
        }
        if rows > 600 || cols > 600 {
            return Err(format!(
                "figure {:?}: {rows} x {cols} cells is more than this figure can show (600 x 600)",
                self.title
            ));
        }
        render((self.width, self.height()), |c| self.draw(c))
    }

    fn draw(&self, c: &mut Canvas) -> Result<(), String> {
        let w = f64::from(self.width);
        let rows = self.values.len();
        let cols = self.cols();
        let mut y = 10.0;
        y += c.title(&self.title, w / 2.0, y, w - 40.0)? + 14.0;
        let ylw = self
            .y_labels
            .iter()
            .map(|l| text_w(l, SMALL))
            .fold(0.0, f64::max);
        let left = 14.0 + if self.y_label.is_empty() { 0.0 } else { 22.0 } + ylw + 8.0;
        let bar_w = 150.0;
        let grid_w = (w - left - bar_w - 20.0).max(40.0);
        let cell_w = grid_w / cols as f64;
        let cell_h = f64::from(self.row_height);
        let g = Grid {
            plot: Rect::new(left, y, left + grid_w, y + cell_h * rows as f64),
            cell: (cell_w, cell_h),
            show_text: cell_w >= 34.0 && cell_h >= 14.0,
        };
        let plot = g.plot;
        let scale = self.scale();
        let mut geom = PanelGeom {
            plot: Some(plot),
            ..PanelGeom::default()
        };
        for (r, row) in self.values.iter().enumerate() {
            for ci in 0..cols {
                let v = row.get(ci).copied().flatten().filter(|v| v.is_finite());
                self.draw_cell(c, &g, (r, ci), v.zip(scale), &mut geom)?;
            }
        }
        c.rect(plot, None, Some((BLACK_C, Dash::Solid)))?;
        self.draw_labels(c, &g, &mut geom)?;
        c.x_title(&self.x_label, plot, plot.y1 + 26.0)?;
        if !self.y_label.is_empty() {
            c.y_title(&self.y_label, plot, 14.0)?;
        }
        for (k, l) in self.caption.iter().enumerate() {
            c.text(
                l,
                (plot.x0, plot.y1 + 48.0 + k as f64 * 16.0),
                SMALL,
                GREY,
                Align::Left,
                0,
                false,
            )?;
        }
        let legend_y = plot.y1 + 52.0 + self.caption.len() as f64 * 16.0;
        self.legend().draw(c, plot.x0, w - 14.0, legend_y)?;
        if let Some(sc) = scale {
            self.draw_colour_bar(c, plot, sc)?;
        }
        c.geom.panels.push(geom);
        Ok(())
    }

    /// The cell in row `r`, column `ci`: its colour and value (with the scale), hollow with
    /// its value in black where its rounds were disturbed; else grey with what that means.
    fn draw_cell(
        &self,
        c: &mut Canvas,
        g: &Grid,
        (r, ci): (usize, usize),
        value: Option<(f64, (f64, f64))>,
        geom: &mut PanelGeom,
    ) -> Result<(), String> {
        let (cell_w, cell_h) = g.cell;
        let x0 = g.plot.x0 + ci as f64 * cell_w;
        let y0 = g.plot.y0 + r as f64 * cell_h;
        let cell = Rect::new(x0, y0, x0 + cell_w, y0 + cell_h);
        let centre = (x0 + cell_w / 2.0, y0 + cell_h / 2.0);
        let Some((v, sc)) = value else {
            c.rect(cell, Some(Rgb(215, 215, 215).mix(1.0)), None)?;
            let note = match &self.diagonal {
                Some(d) if r == ci => d,
                _ => &self.missing,
            };
            if g.show_text && text_w(note, 10.0) < cell_w - 4.0 {
                c.text(note, centre, 10.0, GREY, Align::Center, 1, false)?;
            }
            return Ok(());
        };
        let col = self.colour(v, sc);
        let hollow = self.is_disturbed(r, ci);
        if hollow {
            c.hollow_cell(cell, col)?;
        } else {
            c.rect(cell, Some(col.mix(1.0)), None)?;
        }
        geom.points.push(centre);
        if g.show_text {
            let lum =
                0.299 * f64::from(col.0) + 0.587 * f64::from(col.1) + 0.114 * f64::from(col.2);
            let tc = if lum < 120.0 && !hollow {
                Rgb(255, 255, 255)
            } else {
                BLACK_C
            };
            let mut s = format!("{}{}", (self.cell_fmt)(v), self.cell_suffix);
            if v < sc.0 || v > sc.1 {
                s.push('*');
            }
            // A hollow cell's value is written inside its frame.
            let room = if hollow {
                cell_w - 2.0 * super::hollow_frame(cell)
            } else {
                cell_w
            };
            let size = if text_w(&s, SMALL) < room - 4.0 {
                SMALL
            } else {
                9.0
            };
            c.text(&s, centre, size, tc, Align::Center, 1, false)?;
        }
        Ok(())
    }

    /// Row and column labels: all of them while they fit, else every k-th.
    fn draw_labels(&self, c: &mut Canvas, g: &Grid, geom: &mut PanelGeom) -> Result<(), String> {
        let (plot, (cell_w, cell_h)) = (g.plot, g.cell);
        let (rows, cols) = (self.values.len(), self.cols());
        let every = |n: usize, room: f64, need: f64| {
            ((need / room.max(1.0)).ceil() as usize).clamp(1, n.max(1))
        };
        let xl_need = self
            .x_labels
            .iter()
            .map(|l| text_w(l, SMALL) + 6.0)
            .fold(0.0, f64::max);
        let kx = every(cols, cell_w, xl_need);
        for (ci, l) in self.x_labels.iter().enumerate().take(cols) {
            if ci % kx != 0 {
                continue;
            }
            let cx = plot.x0 + (ci as f64 + 0.5) * cell_w;
            c.text(
                l,
                (cx, plot.y1 + 6.0),
                SMALL,
                BLACK_C,
                Align::Center,
                0,
                false,
            )?;
            geom.x_ticks.push((cx, l.clone()));
        }
        let ky = every(rows, cell_h, 15.0);
        for (r, l) in self.y_labels.iter().enumerate().take(rows) {
            if r % ky != 0 {
                continue;
            }
            let cy = plot.y0 + (r as f64 + 0.5) * cell_h;
            c.text(
                l,
                (plot.x0 - 6.0, cy),
                SMALL,
                BLACK_C,
                Align::Right,
                1,
                false,
            )?;
            geom.y_ticks.push((cy, l.clone()));
        }
        Ok(())
    }

    /// The colour bar right of `plot`, from `lo` to `hi`, with its own ticks and unit.
    fn draw_colour_bar(
        &self,
        c: &mut Canvas,
        plot: Rect,
        (lo, hi): (f64, f64),
    ) -> Result<(), String> {
        let bx = plot.x1 + 30.0;
        let bh = plot.h().clamp(120.0, 360.0);
        let by = plot.y0;
        let steps = 48;
        for k in 0..steps {
            let f0 = k as f64 / steps as f64;
            let f1 = (k + 1) as f64 / steps as f64;
            let v = lo + (hi / 2.0 - lo / 2.0) * 2.0 * (f0 + f1) / 2.0;
            let col = self.colour(v, (lo, hi));
            c.rect(
                Rect::new(
                    bx,
                    by + bh * (1.0 - f1),
                    bx + 18.0,
                    by + bh * (1.0 - f0) + 0.5,
                ),
                Some(col.mix(1.0)),
                None,
            )?;
        }
        c.rect(
            Rect::new(bx, by, bx + 18.0, by + bh),
            None,
            Some((BLACK_C, Dash::Solid)),
        )?;
        let spec = AxisSpec {
            fixed: Some((lo, hi)),
            ..AxisSpec::linear(&self.unit)
        };
        if let Ok(axis) = Axis::fit(&spec, &[lo, hi], bh, &|_| 22.0) {
            for t in &axis.ticks {
                let yy = by + bh * (1.0 - axis.frac_t(t.t));
                c.line(&[(bx + 18.0, yy), (bx + 23.0, yy)], BLACK_C, 1, Dash::Solid)?;
                c.text(
                    &t.label,
                    (bx + 26.0, yy),
                    SMALL,
                    BLACK_C,
                    Align::Left,
                    1,
                    false,
                )?;
            }
        }
        c.text_vertical(&self.unit, (bx + 95.0, by + bh / 2.0), LABEL, BLACK_C)?;
        Ok(())
    }
}

/// A heatmap's grid: where it is, one cell's (width, height), and whether cells are big
/// enough to hold their values.
struct Grid {
    plot: Rect,
    cell: (f64, f64),
    show_text: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heatmap_has_a_colour_bar_and_diverges_about_zero() {
        let mut h = Heatmap::new("h", Palette::Diverging);
        h.x_labels = vec!["0".into(), "256".into()];
        h.y_labels = vec!["a".into(), "b".into()];
        h.values = vec![vec![Some(-2.0), Some(1.0)], vec![None, Some(0.5)]];
        h.unit = "deviation (%)".into();
        assert_eq!(h.scale(), Some((-2.0, 2.0)));
        assert_eq!(h.colour(0.0, (-2.0, 2.0)), Rgb(247, 247, 247));
        let (svg, g) = h.render().unwrap();
        assert!(svg.contains("deviation (%)") && svg.contains("not measured"));
        assert!(g.panels[0].x_ticks.len() == 2 && g.panels[0].y_ticks.len() == 2);
        // Sequential, two close values: the scale is widened, not stretched over 1%.
        let mut s = Heatmap::new("s", Palette::Sequential);
        s.values = vec![vec![None, Some(209.0)], vec![Some(207.0), None]];
        let (lo, hi) = s.scale().unwrap();
        assert!(hi - lo >= 0.09 * 209.0, "{lo}..{hi}");
    }

    /// Two cores' latencies: two cells measured, the other two not, and a caption.
    fn two_by_two() -> Heatmap {
        let mut h = Heatmap::new("h", Palette::Sequential);
        h.x_labels = vec!["0".into(), "1".into()];
        h.y_labels = vec!["0".into(), "1".into()];
        h.values = vec![vec![None, Some(40.0)], vec![Some(90.0), None]];
        h.caption = vec!["a caption".into()];
        h
    }

    #[test]
    fn a_disturbed_cell_is_hollow_with_one_legend_line() {
        let quiet = two_by_two();
        let (before, _) = quiet.render().unwrap();
        assert!(!before.contains(crate::marks::LEGEND));
        // Nothing disturbed, or only a cell without a value: the same bytes as before.
        let mut none = two_by_two();
        none.disturbed = vec![vec![true, false], vec![false, false]];
        assert_eq!(none.render().unwrap().0, before);
        assert_eq!(none.height(), quiet.height());
        let mut busy = two_by_two();
        busy.disturbed = vec![vec![false, true], vec![true]];
        let (svg, g) = busy.render().unwrap();
        assert_eq!(svg.matches(crate::marks::LEGEND).count(), 1);
        assert!(busy.height() > quiet.height(), "room for the legend line");
        assert_eq!(g.legends.len(), 1);
        assert!(
            g.legends[0].y0 > g.panels[0].plot.unwrap().y1,
            "under the grid"
        );
        assert!(
            g.legends[0].y1 <= f64::from(busy.height()),
            "inside the figure"
        );
        // Two cells and the legend's sample: white inside, edged in grey.
        let white = "fill=\"#FFFFFF\" stroke=\"none\"/>";
        assert_eq!(
            svg.matches(white).count(),
            before.matches(white).count() + 3
        );
        // The dark cell's value is written in black on its white inside.
        assert!(
            before.contains("fill=\"#FFFFFF\">\n90"),
            "white on the dark fill"
        );
        assert!(
            !svg.contains("fill=\"#FFFFFF\">\n90"),
            "black on white when hollow"
        );
    }
}
