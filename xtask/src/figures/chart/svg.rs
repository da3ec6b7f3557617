//! The pen: SVG elements written as text, at whole-pixel positions.
//!
//! This is the only code that writes SVG. It knows nothing of charts: it draws polylines
//! (solid or dashed), rectangles, polygons, circles and text, in the order asked, on a
//! white page. Everything else (axes, legends, layout) is [`super`]'s.
//!
//! The element and attribute layout is the one plotters' SVG backend wrote while this
//! project drew through it, so figures drawn before and after the change are byte-identical.

use std::fmt::Write as _;

/// An opaque colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rgb(pub u8, pub u8, pub u8);

/// A colour with an opacity from 0 to 1.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rgba(pub Rgb, pub f64);

impl Rgb {
    /// This colour at opacity `alpha`.
    pub fn mix(self, alpha: f64) -> Rgba {
        Rgba(self, alpha)
    }

    fn hex(self) -> String {
        format!("#{:02X}{:02X}{:02X}", self.0, self.1, self.2)
    }
}

/// A text's horizontal anchor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Center,
    Right,
}

/// What a text's `y` is: its top, its middle or its bottom.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VAlign {
    Top,
    Middle,
    Bottom,
}

/// How a text is set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Font {
    /// The size in pixels of the line; the SVG font-size is `size / 1.24`, the em box.
    pub size: f64,
    pub color: Rgb,
    pub align: Align,
    pub valign: VAlign,
    pub bold: bool,
    /// Turned a quarter left, about its anchor (a y-axis title).
    pub turned: bool,
}

/// An SVG document being written.
pub struct Svg {
    buf: String,
}

type Attrs<'a> = [(&'a str, String)];

impl Svg {
    /// A `w` by `h` pixel page, painted white.
    pub fn new((w, h): (u32, u32)) -> Svg {
        let mut svg = Svg { buf: String::new() };
        svg.open(
            "svg",
            &[
                ("width", w.to_string()),
                ("height", h.to_string()),
                ("viewBox", format!("0 0 {w} {h}")),
                ("xmlns", "http://www.w3.org/2000/svg".to_string()),
            ],
        );
        let white = Rgb(255, 255, 255).mix(1.0);
        svg.rect((0, 0), (w as i32, h as i32), Some(white), None);
        svg
    }

    /// The finished document.
    pub fn finish(mut self) -> String {
        self.buf.push_str("</svg>\n");
        self.buf
    }

    fn open(&mut self, tag: &str, attrs: &Attrs<'_>) {
        self.start(tag, attrs);
        self.buf.push_str(">\n");
    }

    fn element(&mut self, tag: &str, attrs: &Attrs<'_>) {
        self.start(tag, attrs);
        self.buf.push_str("/>\n");
    }

    fn start(&mut self, tag: &str, attrs: &Attrs<'_>) {
        self.buf.push('<');
        self.buf.push_str(tag);
        for (key, value) in attrs {
            let _ = write!(self.buf, " {key}=\"{}\"", escape(value));
        }
    }

    /// A rectangle between two corners, filled with `fill` and/or outlined 1 pixel wide.
    pub fn rect(&mut self, a: (i32, i32), b: (i32, i32), fill: Option<Rgba>, line: Option<Rgb>) {
        let (x0, y0) = (a.0.min(b.0), a.1.min(b.1));
        let (x1, y1) = (a.0.max(b.0), a.1.max(b.1));
        let paints = fill
            .map(|f| (f.1, f.0.hex(), "none".to_string()))
            .into_iter()
            .chain(line.map(|c| (1.0, "none".to_string(), c.hex())));
        for (opacity, fill, stroke) in paints {
            self.element(
                "rect",
                &[
                    ("x", x0.to_string()),
                    ("y", y0.to_string()),
                    ("width", (x1 - x0).to_string()),
                    ("height", (y1 - y0).to_string()),
                    ("opacity", opacity.to_string()),
                    ("fill", fill),
                    ("stroke", stroke),
                ],
            );
        }
    }

    /// A solid polyline through `pts`.
    pub fn polyline(&mut self, pts: &[(i32, i32)], color: Rgb, width: u32) {
        self.element(
            "polyline",
            &[
                ("fill", "none".to_string()),
                ("opacity", "1".to_string()),
                ("stroke", color.hex()),
                ("stroke-width", width.to_string()),
                ("points", points(pts)),
            ],
        );
    }

    /// A broken polyline through `pts`: `on` pixels drawn, `off` left empty, along the whole
    /// path; each dash is a polyline of its own.
    pub fn dashed(&mut self, pts: &[(i32, i32)], color: Rgb, width: u32, (on, off): (u32, u32)) {
        for dash in dashes(pts, on as f32, off as f32) {
            self.polyline(&dash, color, width);
        }
    }

    /// A filled polygon.
    pub fn polygon(&mut self, pts: &[(i32, i32)], fill: Rgba) {
        self.element(
            "polygon",
            &[
                ("opacity", fill.1.to_string()),
                ("fill", fill.0.hex()),
                ("points", points(pts)),
            ],
        );
    }

    /// A disc (`width` None) or a ring `width` pixels wide.
    pub fn circle(&mut self, (x, y): (i32, i32), r: u32, color: Rgb, width: Option<u32>) {
        let (fill, stroke) = match width {
            None => (color.hex(), "none".to_string()),
            Some(_) => ("none".to_string(), color.hex()),
        };
        self.element(
            "circle",
            &[
                ("cx", x.to_string()),
                ("cy", y.to_string()),
                ("r", r.to_string()),
                ("opacity", "1".to_string()),
                ("fill", fill),
                ("stroke", stroke),
                ("stroke-width", width.unwrap_or(1).to_string()),
            ],
        );
    }

    /// One line of text anchored at (x, y).
    pub fn text(&mut self, s: &str, (x, y): (i32, i32), f: Font) {
        let anchor = match f.align {
            Align::Left => "start",
            Align::Center => "middle",
            Align::Right => "end",
        };
        let dy = match f.valign {
            VAlign::Top => "0.76em",
            VAlign::Middle => "0.5ex",
            VAlign::Bottom => "-0.5ex",
        };
        let mut attrs = vec![
            ("x", x.to_string()),
            ("y", y.to_string()),
            ("dy", dy.to_string()),
            ("text-anchor", anchor.to_string()),
            ("font-family", "sans-serif".to_string()),
            ("font-size", (f.size / 1.24).to_string()),
            ("opacity", "1".to_string()),
            ("fill", f.color.hex()),
        ];
        if f.bold {
            attrs.push(("font-weight", "bold".to_string()));
        }
        if f.turned {
            attrs.push(("transform", format!("rotate(270, {x}, {y})")));
        }
        self.open("text", &attrs);
        self.buf.push_str(&escape(s));
        self.buf.push_str("\n</text>\n");
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            other => out.push(other),
        }
    }
    out
}

fn points(pts: &[(i32, i32)]) -> String {
    pts.iter().fold(String::new(), |mut s, (x, y)| {
        let _ = write!(s, "{x},{y} ");
        s
    })
}

/// The dashes of a path: walks it, `on` pixels drawn then `off` left out, carrying the
/// pattern round corners; a dash's corners and ends are rounded to whole pixels.
fn dashes(pts: &[(i32, i32)], on: f32, off: f32) -> Vec<Vec<(i32, i32)>> {
    let mut out = Vec::new();
    let Some(&first) = pts.first() else {
        return out;
    };
    if on <= 0.0 {
        return out;
    }
    let whole = |(x, y): (f32, f32)| (x.round() as i32, y.round() as i32);
    let mut at = (first.0 as f32, first.1 as f32);
    let (mut dist, mut drawing) = (0.0f32, true);
    let mut dash = vec![whole(at)];
    for &(x, y) in &pts[1..] {
        let end = (x as f32, y as f32);
        while at != end {
            let (dx, dy) = (end.0 - at.0, end.1 - at.1);
            let d = dx.hypot(dy);
            let len = if drawing { on } else { off };
            let left = len - dist;
            if left < d {
                let t = left / d;
                at = (at.0 + dx * t, at.1 + dy * t);
                dist += left;
            } else {
                at = end;
                dist += d;
            }
            if drawing {
                dash.push(whole(at));
            }
            if len <= dist {
                if drawing {
                    out.push(std::mem::take(&mut dash));
                } else {
                    dash.push(whole(at));
                }
                dist = 0.0;
                drawing = !drawing;
            }
        }
    }
    if dash.len() > 1 {
        out.push(dash);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_white_and_closed() {
        let s = Svg::new((200, 100)).finish();
        assert!(s.starts_with("<svg width=\"200\" height=\"100\" viewBox=\"0 0 200 100\""));
        assert!(s.contains(r##"<rect x="0" y="0" width="200" height="100" opacity="1" fill="#FFFFFF" stroke="none"/>"##));
        assert!(s.ends_with("</svg>\n"));
    }

    #[test]
    fn text_is_escaped_and_sized_by_its_em_box() {
        let mut svg = Svg::new((100, 100));
        let f = Font {
            size: 12.4,
            color: Rgb(0, 114, 178),
            align: Align::Right,
            valign: VAlign::Middle,
            bold: true,
            turned: true,
        };
        svg.text("a < b & \"c\"", (5, 7), f);
        let s = svg.finish();
        assert!(s.contains("a &lt; b &amp; &quot;c&quot;\n</text>"), "{s}");
        assert!(s.contains("font-size=\"10\""), "{s}");
        assert!(s.contains("text-anchor=\"end\""));
        assert!(
            s.contains("fill=\"#0072B2\" font-weight=\"bold\" transform=\"rotate(270, 5, 7)\"")
        );
    }

    #[test]
    fn a_rectangle_is_normalised_and_drawn_fill_first() {
        let mut svg = Svg::new((100, 100));
        svg.rect(
            (30, 40),
            (10, 20),
            Some(Rgb(1, 2, 3).mix(0.5)),
            Some(Rgb(0, 0, 0)),
        );
        let s = svg.finish();
        let fill = s.find(r##"<rect x="10" y="20" width="20" height="20" opacity="0.5" fill="#010203" stroke="none"/>"##);
        let line = s.find(r##"<rect x="10" y="20" width="20" height="20" opacity="1" fill="none" stroke="#000000"/>"##);
        assert!(fill.is_some() && line.is_some() && fill < line, "{s}");
    }

    #[test]
    fn dashes_keep_their_pattern_round_a_corner() {
        // 10 right then 10 down, 4 on and 2 off: dashes at 0-4 and 6-10 along the path,
        // then 12-16 (2 to 6 down the corner's other side) and 18-20.
        let d = dashes(&[(0, 0), (10, 0), (10, 10)], 4.0, 2.0);
        assert_eq!(
            d,
            vec![
                vec![(0, 0), (4, 0)],
                vec![(6, 0), (10, 0)],
                vec![(10, 2), (10, 6)],
                vec![(10, 8), (10, 10)],
            ]
        );
        assert!(dashes(&[(0, 0)], 4.0, 2.0).is_empty());
        assert!(dashes(&[(0, 0), (9, 0)], 0.0, 2.0).is_empty());
    }
}
