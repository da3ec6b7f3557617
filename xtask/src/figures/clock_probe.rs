//! clock_probe's figures.
//!
//! - `clock_probe-traps.svg` is the book's Figure 105.1 with this machine's numbers: the
//!   three traps of measuring, each as the pair of times it compares on one log time axis,
//!   the ratio between them, and the guard against it. The clock's smallest step is drawn
//!   as a dotted line: a time on that line was never measured. A time whose rounds were
//!   disturbed (its row's, or its block provisional) is a hollow dot, with the legend line.
//! - `clock_probe-trap3.svg`: the rounds of trap three in time order (top), and the
//!   same rounds zoomed to the bulk (bottom) where the minimum, median and mean are drawn
//!   as lines far enough apart to be told apart, with the mean / median ratio between them.

use super::chart::axis::{Axis, AxisSpec, Scale, Units};
use super::chart::line::render_panels;
use super::chart::{
    Align, BLACK_C, Bracket, Canvas, Dash, Edge, GREY, HLine, LABEL, LineChart, Marker, Note,
    PanelGeom, Pt, Rect, SMALL, Series, Style, color, div, num, ratio, render, text_w, time_ns,
};
use super::{DrawError, Figure, Saved, need_block, need_nums, need_texts};
use ::clock_probe::schema as sc;
use measure::data::DataFile;

const EXP: &str = sc::EXPERIMENT;

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(EXP)?;
    Ok(vec![traps(saved, run)?, trap_three(saved, run)?])
}

/// `(median, min, max)` of the row whose `key_col` is `key`, from a block's median, min and
/// max columns (`cols`).
fn row(
    run: &DataFile,
    [block, key_col, key]: [&str; 3],
    [med, min, max]: [&str; 3],
) -> Option<(f64, Option<f64>, Option<f64>)> {
    let b = run.block(block)?;
    let keys = b.texts(key_col)?;
    let i = keys.iter().position(|k| k == key)?;
    let med = b.nums(med)?[i]?;
    let min = b.nums(min).and_then(|v| v[i]);
    let max = b.nums(max).and_then(|v| v[i]);
    Some((med, min, max))
}

/// The trap-three summary (from the block, else from the samples).
fn stat(run: &DataFile, name: &str) -> Option<f64> {
    let s = run.block(sc::trap_three_summary::BLOCK)?;
    let names = s.texts(sc::trap_three_summary::STAT)?;
    let v = s.nums(sc::trap_three_summary::NS)?;
    names.iter().position(|x| x == name).and_then(|i| v[i])
}

/// One bar of the diagram: a name, a time and its spread (`None`: not measured).
struct Item {
    name: String,
    t: Option<(f64, Option<f64>, Option<f64>)>,
    color: usize,
    /// Its rounds were disturbed: the dot is drawn hollow.
    disturbed: bool,
}

/// One trap: its name, its two (or three) times, the ratio, and the guard.
struct Trap {
    title: &'static str,
    items: Vec<Item>,
    ratio: Option<String>,
    guard: &'static str,
}

fn traps(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    let step = run
        .meta_num("clock_min_step_ns")
        .filter(|v| v.is_finite() && *v > 0.0);
    let trap_list = [trap_one_bars(run), trap_two_bars(run), trap_three_bars(run)];
    let values = time_values(&trap_list, step);
    if values.is_empty() {
        return Err(need_block(run, sc::trap_one::BLOCK)
            .err()
            .unwrap_or_else(|| "no trap was measured".into()));
    }
    let spec = AxisSpec::new("time (log scale)", Scale::Log10, Units::Nanos);
    let (width, left, right) = (1000.0, 330.0, 925.0);
    let block_h: Vec<f64> = trap_list
        .iter()
        .map(|t| HEAD + ROW_H * t.items.len() as f64 + 34.0)
        .collect();
    let top = 64.0;
    let hollow = trap_list
        .iter()
        .any(|t| t.items.iter().any(|it| it.disturbed && it.t.is_some()));
    let height = top + block_h.iter().sum::<f64>() + 60.0 + if hollow { 22.0 } else { 0.0 };
    let axis = Axis::fit(&spec, &values, right - left - 24.0, &|s| {
        text_w(s, SMALL) + 16.0
    })
    .map_err(DrawError::from)?;
    let lay = TrapAxis { axis, left, right };
    let title = format!(
        "Figure 105.1: three traps in measuring, and the guard against each ({})",
        saved.label
    );
    let svg = render((width as u32, height as u32), |c| {
        c.title(&title, width / 2.0, 10.0, width - 40.0)?;
        let plot = Rect::new(left, top, right, top + block_h.iter().sum::<f64>());
        let mut geom = PanelGeom {
            plot: Some(plot),
            x_continuous: true,
            ..PanelGeom::default()
        };
        c.grid(
            plot,
            Edge::Bottom,
            &lay.axis.ticks,
            |t| lay.tx(t),
            false,
            &mut geom,
        )?;
        c.x_title("time (log scale)", plot, plot.y1 + 26.0)?;
        if let Some(s) = step {
            draw_clock_step(c, &lay, plot, s)?;
        }
        let mut y = top;
        for (t, h) in trap_list.iter().zip(&block_h) {
            draw_trap(c, &lay, t, (y, *h), &mut geom)?;
            y += h;
        }
        c.rect(plot, None, Some((BLACK_C, Dash::Solid)))?;
        draw_key(c, plot, hollow)?;
        c.geom.panels.push(geom);
        Ok(())
    })?;
    Ok(Figure::new("clock_probe-traps.svg", svg))
}

/// The key under the plot: what a dot and its whisker are, and, when a dot is drawn
/// `hollow`, what that means ([`crate::marks::LEGEND`]).
fn draw_key(c: &mut Canvas, plot: Rect, hollow: bool) -> Result<(), String> {
    c.text(
        "dots: the median; whiskers: min..max over the repeats, where the run kept them",
        (22.0, plot.y1 + 44.0),
        SMALL,
        GREY,
        Align::Left,
        0,
        false,
    )?;
    if hollow {
        let y = plot.y1 + 70.0;
        c.marker(Marker::Hollow, (28.0, y), 6, GREY)?;
        c.text(
            crate::marks::LEGEND,
            (40.0, y),
            SMALL,
            BLACK_C,
            Align::Left,
            1,
            false,
        )?;
    }
    Ok(())
}

/// Per key of `keys` in text column `col` of `block`: whether its row was disturbed
/// ([`crate::marks::disturbed_rows`]) or any of the blocks `also` (whose evidence covers
/// the same rounds) is provisional.
fn disturbed(run: &DataFile, [block, col]: [&str; 2], keys: &[&str], also: &[&str]) -> Vec<bool> {
    let rows = run.block(block).map_or(vec![false; keys.len()], |b| {
        crate::marks::disturbed_by(run, b, col, keys)
    });
    let whole = provisional(run, also);
    rows.into_iter().map(|d| d || whole).collect()
}

/// Whether any of `blocks` is provisional in the run's evidence.
fn provisional(run: &DataFile, blocks: &[&str]) -> bool {
    blocks.iter().any(|b| crate::marks::provisional(run, b))
}

/// The height of one bar's row, and of a trap's heading above its rows.
const ROW_H: f64 = 30.0;
const HEAD: f64 = 42.0;

/// `what: a / b`, where both were measured and the ratio is defined.
fn ratio_of(a: Option<f64>, b: Option<f64>, what: &str) -> Option<String> {
    a.zip(b)
        .and_then(|(a, b)| div(a, b))
        .map(|r| format!("{what}: {}", ratio_fine(r)))
}

/// Trap one: the sum whose result is discarded beside the sum whose result is used.
fn trap_one_bars(run: &DataFile) -> Trap {
    use sc::trap_one as one;
    let spread = [one::MEDIAN_NS, one::MIN_NS, one::MAX_NS];
    let discarded = row(run, [one::BLOCK, one::VARIANT, "discarded"], spread);
    let used = row(run, [one::BLOCK, one::VARIANT, "used"], spread);
    // The experiment records trap one's evidence under `times_ten`, whose rounds these are.
    let d = disturbed(
        run,
        [one::BLOCK, one::VARIANT],
        &["discarded", "used"],
        &[sc::times_ten::BLOCK],
    );
    Trap {
        title: "Trap 1: the optimiser deletes the work",
        items: vec![
            Item {
                name: "sum, result discarded".into(),
                t: discarded,
                color: 1,
                disturbed: d[0],
            },
            Item {
                name: "sum, result used".into(),
                t: used,
                color: 0,
                disturbed: d[1],
            },
        ],
        ratio: ratio_of(
            used.map(|t| t.0),
            discarded.map(|t| t.0),
            "used / discarded",
        ),
        guard: "Guard: use the result (black_box, a checked sum)",
    }
}

/// Trap two: the first fill of fresh memory beside a second fill of the same memory.
fn trap_two_bars(run: &DataFile) -> Trap {
    use sc::trap_two as two;
    let spread = [two::MEDIAN_NS, two::MIN_NS, two::MAX_NS];
    let first = row(run, [two::BLOCK, two::FILL, "first"], spread);
    let second = row(run, [two::BLOCK, two::FILL, "second"], spread);
    let d = disturbed(run, [two::BLOCK, two::FILL], &["first", "second"], &[]);
    Trap {
        title: "Trap 2: the first round is slow",
        items: vec![
            Item {
                name: "first fill of fresh memory".into(),
                t: first,
                color: 1,
                disturbed: d[0],
            },
            Item {
                name: "second fill, same memory".into(),
                t: second,
                color: 0,
                disturbed: d[1],
            },
        ],
        ratio: ratio_of(first.map(|t| t.0), second.map(|t| t.0), "first / second"),
        guard: "Guard: warm up, and discard the warm-up",
    }
}

/// Trap three: the median of the rounds beside their mean and the slowest round.
fn trap_three_bars(run: &DataFile) -> Trap {
    let (median, mean, max) = (stat(run, "median"), stat(run, "mean"), stat(run, "max"));
    let rounds = run
        .block(sc::trap_three_samples::BLOCK)
        .map(|b| b.rows.len())
        .filter(|n| *n > 0);
    let one = |v: Option<f64>| v.map(|v| (v, None, None));
    // The statistics of every round: provisional only where their blocks are (the
    // experiment never marks them, interruptions being this trap's subject).
    let d = provisional(
        run,
        &[sc::trap_three_summary::BLOCK, sc::trap_three_samples::BLOCK],
    );
    Trap {
        title: "Trap 3: one interruption drags the mean",
        items: vec![
            Item {
                name: match rounds {
                    Some(n) => format!("median of {n} rounds"),
                    None => "median of the rounds".into(),
                },
                t: one(median),
                color: 0,
                disturbed: d,
            },
            Item {
                name: "mean".into(),
                t: one(mean),
                color: 1,
                disturbed: d,
            },
            Item {
                name: "slowest round".into(),
                t: one(max),
                color: 3,
                disturbed: d,
            },
        ],
        ratio: match (
            ratio_of(mean, median, "mean / median"),
            ratio_of(max, median, "max / median"),
        ) {
            (Some(a), Some(b)) => Some(format!("{a}, {b}")),
            (a, b) => a.or(b),
        },
        guard: "Guard: report the median, with min..max",
    }
}

/// Every time the one log axis must hold (bars, spreads, the clock's step), with room
/// below the shortest so that its bar has a length; empty when nothing was measured.
fn time_values(trap_list: &[Trap], step: Option<f64>) -> Vec<f64> {
    let mut values: Vec<f64> = Vec::new();
    for t in trap_list {
        for it in &t.items {
            if let Some((v, lo, hi)) = it.t {
                values.push(v);
                values.extend([lo, hi].into_iter().flatten());
            }
        }
    }
    values.extend(step);
    values.retain(|v| v.is_finite() && *v > 0.0);
    if let Some(m) = values.iter().copied().reduce(f64::min) {
        values.push(m / 2.0);
    }
    values
}

/// The shared time axis, between pixel columns `left` and `right`.
struct TrapAxis {
    axis: Axis,
    left: f64,
    right: f64,
}

impl TrapAxis {
    /// The pixel column of time `v`.
    fn fx(&self, v: f64) -> Option<f64> {
        self.axis
            .frac(v)
            .map(|f| self.left + 12.0 + f * (self.right - self.left - 24.0))
    }

    /// The pixel column of tick position `t`.
    fn tx(&self, t: f64) -> f64 {
        self.left + 12.0 + self.axis.frac_t(t) * (self.right - self.left - 24.0)
    }
}

/// The clock's smallest step `s`: a dotted line, labelled above the plot.
fn draw_clock_step(c: &mut Canvas, lay: &TrapAxis, plot: Rect, s: f64) -> Result<(), String> {
    let Some(x) = lay.fx(s) else {
        return Ok(());
    };
    c.line(&[(x, plot.y0), (x, plot.y1)], GREY, 2, Dash::Dotted)?;
    c.text(
        &format!(
            "the clock's smallest step, {} ns: nothing shorter is seen",
            num(s)
        ),
        (x + 4.0, plot.y0 - 4.0),
        SMALL,
        GREY,
        Align::Left,
        2,
        false,
    )?;
    Ok(())
}

/// One trap's block, from `y` down `h` pixels: its frame, title, ratio, bars and guard.
fn draw_trap(
    c: &mut Canvas,
    lay: &TrapAxis,
    t: &Trap,
    (y, h): (f64, f64),
    geom: &mut PanelGeom,
) -> Result<(), String> {
    c.rect(
        Rect::new(12.0, y + 4.0, lay.right, y + h - 4.0),
        None,
        Some((super::chart::LIGHT_GREY, Dash::Solid)),
    )?;
    c.text(
        t.title,
        (22.0, y + 12.0),
        15.0,
        BLACK_C,
        Align::Left,
        0,
        true,
    )?;
    if let Some(r) = &t.ratio {
        let rb = c.text_box(
            std::slice::from_ref(r),
            (lay.left + 12.0, y + 10.0),
            LABEL,
            BLACK_C,
            Align::Left,
            true,
        )?;
        c.geom.boxes.push(rb);
    }
    for (k, it) in t.items.iter().enumerate() {
        let cy = y + HEAD + ROW_H * (k as f64 + 0.5);
        draw_item(c, lay, it, cy, geom)?;
    }
    c.text(
        t.guard,
        (22.0, y + h - 12.0),
        LABEL,
        color(2),
        Align::Left,
        2,
        true,
    )?;
    Ok(())
}

/// One bar's row at pixel height `cy`: its name, and its time or "not measured".
fn draw_item(
    c: &mut Canvas,
    lay: &TrapAxis,
    it: &Item,
    cy: f64,
    geom: &mut PanelGeom,
) -> Result<(), String> {
    c.text(
        &it.name,
        (lay.left - 10.0, cy),
        LABEL,
        BLACK_C,
        Align::Right,
        1,
        false,
    )?;
    geom.y_ticks.push((cy, it.name.clone()));
    let fx = |v: f64| lay.fx(v);
    let Some((x, lo, hi, v)) =
        it.t.and_then(|(v, lo, hi)| Some((fx(v)?, lo.and_then(fx), hi.and_then(fx), v)))
    else {
        c.text(
            "not measured",
            (lay.left + 6.0, cy),
            SMALL,
            GREY,
            Align::Left,
            1,
            false,
        )?;
        return Ok(());
    };
    // A log axis has no zero for a bar to grow from: a dot at the median, with its
    // min..max whisker.
    let col = color(it.color);
    geom.points.push((x, cy));
    let mut end = x + 6.0;
    if let (Some(a), Some(b)) = (lo, hi) {
        c.line(&[(a, cy), (b, cy)], BLACK_C, 1, Dash::Solid)?;
        c.line(&[(a, cy - 5.0), (a, cy + 5.0)], BLACK_C, 1, Dash::Solid)?;
        c.line(&[(b, cy - 5.0), (b, cy + 5.0)], BLACK_C, 1, Dash::Solid)?;
        geom.points.push((a, cy));
        geom.points.push((b, cy));
        end = end.max(b);
    }
    let dot = if it.disturbed {
        Marker::Hollow
    } else {
        Marker::Dot
    };
    c.marker(dot, (x, cy), 6, col)?;
    c.text(
        &time_ns(v),
        (end + 6.0, cy),
        SMALL,
        BLACK_C,
        Align::Left,
        1,
        false,
    )?;
    Ok(())
}

fn trap_three(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    let b = need_block(run, sc::trap_three_samples::BLOCK)?;
    let rounds = need_nums(b, sc::trap_three_samples::ROUND)?;
    let ns = need_nums(b, sc::trap_three_samples::NS)?;
    let us: Vec<Pt> = rounds
        .iter()
        .zip(&ns)
        .filter_map(|(r, v)| Some(Pt::new((*r)?, (*v)? / 1000.0)))
        .filter(|p| p.x.is_finite() && p.y.is_finite())
        .collect();
    if us.is_empty() {
        return Err(format!("{} has no measured round", super::block_name(b)).into());
    }
    if run.block(sc::trap_three_summary::BLOCK).is_some() {
        need_texts(
            need_block(run, sc::trap_three_summary::BLOCK)?,
            sc::trap_three_summary::STAT,
        )?;
    }
    let st = RoundStats::of(run, &us);
    let disturbed = crate::marks::disturbed_xs(run, b, sc::trap_three_samples::ROUND);
    let all = every_round(&us, &st, &disturbed);
    let zoom = bulk_of_rounds(us.clone(), &st, &disturbed);
    let title = format!(
        "Figure 105.1's trap three and Table 105.4: {} rounds of the same sum ({})",
        us.len(),
        saved.label
    );
    Ok(Figure::new(
        "clock_probe-trap3.svg",
        render_panels(&title, &[all, zoom])?,
    ))
}

/// Trap three's statistics in µs: from the summary block, else from the samples.
struct RoundStats {
    min: Option<f64>,
    median: Option<f64>,
    mean: Option<f64>,
    p99: Option<f64>,
    max: Option<f64>,
}

impl RoundStats {
    fn of(run: &DataFile, us: &[Pt]) -> RoundStats {
        let vals: Vec<f64> = us.iter().map(|p| p.y).collect();
        let from_samples = |name: &str| -> Option<f64> {
            let mut v = vals.clone();
            v.sort_by(f64::total_cmp);
            match name {
                "min" => v.first().copied(),
                "max" => v.last().copied(),
                "median" => measure::stats::median(&v),
                "mean" => Some(v.iter().sum::<f64>() / v.len() as f64),
                "p99" => v
                    .get(((v.len() as f64 * 0.99) as usize).min(v.len() - 1))
                    .copied(),
                _ => None,
            }
        };
        let get = |name: &str| {
            stat(run, name)
                .map(|v| v / 1000.0)
                .or_else(|| from_samples(name))
        };
        RoundStats {
            min: get("min"),
            median: get("median"),
            mean: get("mean"),
            p99: get("p99"),
            max: get("max"),
        }
    }

    /// The median, mean and minimum as horizontal lines on `c`.
    fn lines(&self, c: &mut LineChart) {
        for (name, v, col, dash) in [
            ("median", self.median, 2, Dash::Solid),
            ("mean", self.mean, 1, Dash::Short),
            ("minimum", self.min, 5, Dash::Solid),
        ] {
            if let Some(v) = v {
                c.hlines.push(HLine {
                    y: v,
                    label: format!("{name} {} µs", num(v)),
                    color: color(col),
                    dash,
                });
            }
        }
    }
}

/// Top panel: every round, with the slowest one pointed out.
fn every_round(us: &[Pt], st: &RoundStats, disturbed: &[f64]) -> LineChart {
    let mut all = LineChart::new(
        "every round, in time order",
        AxisSpec::linear("round (in time order)"),
        AxisSpec::linear("time per round (µs)"),
    );
    all.series.push(Series::new(
        "one round",
        us.to_vec(),
        Style::points(0, Marker::Dot),
    ));
    all.series[0].style.size = 3;
    all.mark_disturbed(disturbed);
    st.lines(&mut all);
    if let (Some(mx), Some(md)) = (st.max, st.median)
        && let Some(p) = us.iter().find(|p| p.y == mx)
    {
        let mut text = vec![format!("slowest: round {}, {} µs", num(p.x), num(mx))];
        if let Some(r) = div(mx, md) {
            text.push(format!("{} the median", ratio(r)));
        }
        all.notes.push(Note {
            x: p.x,
            y: p.y,
            text,
        });
    }
    all.plot_height = 300;
    all
}

/// Bottom panel: the bulk, where min, median and mean can be told apart.
fn bulk_of_rounds(us: Vec<Pt>, st: &RoundStats, disturbed: &[f64]) -> LineChart {
    let first = us.first().map_or(0.0, |p| p.x);
    let last = us.last().map_or(0.0, |p| p.x);
    let mut zoom = LineChart::new(
        "the same rounds, zoomed to the bulk (minimum .. 99th percentile)",
        AxisSpec::linear("round (in time order)"),
        AxisSpec::linear("time per round (µs)"),
    );
    zoom.series
        .push(Series::new("one round", us, Style::points(0, Marker::Dot)));
    zoom.series[0].style.size = 3;
    zoom.mark_disturbed(disturbed);
    st.lines(&mut zoom);
    if let (Some(lo), Some(hi)) = (st.min, st.p99.or(st.max))
        && hi > lo
    {
        zoom.y_clip = Some((lo, hi));
    }
    if let (Some(me), Some(md)) = (st.mean, st.median)
        && let Some(r) = div(me, md)
    {
        zoom.brackets.push(Bracket {
            x: last.max(first),
            y0: md,
            y1: me,
            text: vec![format!("mean / median = {}", ratio_fine(r))],
        });
    }
    zoom.plot_height = 300;
    zoom
}

/// A ratio near 1 with three decimals ("1.002x").
fn ratio_fine(r: f64) -> String {
    if (0.9..1.1).contains(&r) {
        format!("{r:.3}x")
    } else {
        ratio(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::draw_twice;

    const RUN: &str = "\
#META clock_min_step_ns 20
#DATA-BEGIN trap_one
#COLUMNS variant:text median_ns min_ns max_ns per_element_ns
#DATA discarded 20 20 30 0.00002
#DATA used 132287 131947 175462 0.126
#DATA-END
#DATA-BEGIN trap_two
#COLUMNS fill:text median_ns min_ns max_ns
#DATA first 1564204 1549422 1690152
#DATA second 33951 33590 61101
#DATA-END
#DATA-BEGIN trap_three_samples
#COLUMNS round ns
#DATA 0 11607
#DATA 1 8263
#DATA 2 8212
#DATA 3 8282
#DATA 4 8290
#DATA-END
#DATA-BEGIN trap_three_summary
#COLUMNS stat:text ns
#DATA min 8212
#DATA median 8282
#DATA mean 8294.62
#DATA p99 8332
#DATA max 11607
#DATA-END
";

    #[test]
    fn draws_the_traps_diagram_and_trap_three_with_measured_numbers() {
        let f = draw_twice(
            draw,
            &Saved::test(EXP, RUN),
            &["clock_probe-traps.svg", "clock_probe-trap3.svg"],
        );
        let d = &f[0].svg;
        assert!(d.contains("Figure 105.1"));
        assert!(
            d.contains("used / discarded: 6614x"),
            "the ratio is computed"
        );
        assert!(d.contains("first / second: 46.1x"));
        assert!(d.contains("smallest step, 20 ns"));
        let t = &f[1].svg;
        assert!(t.contains("mean / median = 1.002x"));
        assert!(t.contains("slowest: round 0, 11.6 µs") && t.contains("1.40x the median"));
        assert!(
            t.contains("beyond this axis"),
            "the outlier is marked in the zoom"
        );
    }

    #[test]
    fn a_trap_not_measured_says_so() {
        let cut = RUN.replace("#DATA first 1564204 1549422 1690152\n", "");
        let f = draw(&Saved::test(EXP, &cut)).unwrap();
        assert!(f[0].svg.contains("not measured"));
        assert!(!f[0].svg.contains("first / second"));
    }

    #[test]
    fn missing_samples_are_an_error_naming_the_block() {
        let e = draw(&Saved::test(EXP, "#META clock_min_step_ns 20\n"))
            .err()
            .unwrap();
        assert!(e.message.contains("trap_three_samples"), "{e}");
    }

    #[test]
    fn provisional_traps_are_hollow_dots_with_the_legend_line() {
        // Hollow dots (a white disc of radius 6) and legend lines of the traps diagram.
        let marks = |t: &str| {
            let f = draw(&Saved::test(EXP, t)).unwrap();
            let svg = &f[0].svg;
            let discs = svg
                .matches("r=\"6\" opacity=\"1\" fill=\"#FFFFFF\"")
                .count();
            (discs, svg.matches(crate::marks::LEGEND).count())
        };
        assert_eq!(marks(RUN), (0, 0), "no evidence: nothing marked");
        // Trap one's evidence is recorded under times_ten: both its dots (and the sample).
        let block = |rows: &[(&str, u32, u32, bool, bool)]| {
            format!("{RUN}{}", crate::marks::tests::block_text(rows))
        };
        let quiet = block(&[("times_ten", 84, 0, false, false)]);
        assert_eq!(marks(&quiet), (0, 0));
        assert_eq!(marks(&block(&[("times_ten", 84, 0, true, false)])), (3, 1));
        assert_eq!(marks(&block(&[("trap_two", 14, 9, true, false)])), (3, 1));
        let three = block(&[("trap_three_summary", 5, 5, true, false)]);
        assert_eq!(marks(&three), (4, 1));
        // Trap two's rows, by their own rounds: the first fill only.
        let rows = RUN
            .replace(
                "#COLUMNS fill:text median_ns min_ns max_ns\n",
                "#COLUMNS fill:text median_ns min_ns max_ns rounds disturbed_rounds\n",
            )
            .replace("1690152\n", "1690152 7 7\n")
            .replace("61101\n", "61101 7 0\n");
        assert_eq!(marks(&rows), (2, 1));
    }
}
