//! false_sharing's figures, drawn from the saved raw output alone:
//!
//! - `false_sharing-lines.svg` is the book's Figure 105.5 with this machine's numbers: two
//!   slots in one cache line, written by two cores, against two slots in two lines, with the
//!   measured time per increment of each and the same-line / separate-line ratio;
//! - `false_sharing-distance.svg`: two threads' cost per increment by slot distance (median
//!   with min..max over the rounds), the one-thread baseline and its perfect split as
//!   horizontal lines, the reported line size as a vertical, flagged rows ringed, the
//!   appendix's own numbers dashed when saved, and the same-line / apart ratio as a bracket;
//! - `false_sharing-threads.svg`: one line against separate lines by thread count, against a
//!   perfect split of the baseline; counts the machine could not run are said in the plot;
//! - `false_sharing-shared.svg`: plain, relaxed atomic and mutex increments by thread count;
//! - `false_sharing-c2c.svg`: the core-to-core one-way latency heatmap with its colour bar;
//!   a pair whose rounds were disturbed is a hollow cell.
//!
//! A run that measured nothing (one core) draws nothing; a run without pinning has no heatmap.

use super::chart::Rgb;
use super::chart::{
    Align, AxisSpec, BLACK_C, Bar, BarChart, BarSeries, Bracket, Canvas, Dash, GREY, HLine,
    Heatmap, LABEL, LineChart, Marker, Palette, PanelGeom, Pt, Rect, SMALL, Series, Style, Units,
    color, div, num, ratio, render,
};
use super::{
    DrawError, Figure, Saved, Spread, appendix_reference, need_block, need_nums, need_texts,
    opt_nums,
};
use ::false_sharing::schema as sc;
use measure::data::{Block, DataFile};

const EXP: &str = sc::EXPERIMENT;

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(EXP)?;
    if run.meta(sc::META_FS_SKIPPED).is_some() {
        // An honest run that could measure nothing between cores: nothing to draw.
        return Ok(Vec::new());
    }
    let mut figs = vec![
        lines(saved, run)?,
        distance(saved, run)?,
        threads(saved, run)?,
        shared(saved, run)?,
    ];
    if run.meta(sc::META_C2C_SKIPPED).is_none() {
        figs.push(c2c(saved, run)?);
    }
    Ok(figs)
}

/// The two groups of the distance block: (slots in one line, slots in separate lines),
/// each the median over its rows' medians.
fn groups(run: &DataFile, b: &Block) -> Result<(Option<f64>, Option<f64>), DrawError> {
    let gap = need_nums(b, sc::distance::DISTANCE_BYTES)?;
    let med = need_nums(b, sc::distance::NS_MEDIAN)?;
    let line = run
        .meta_num(sc::META_FS_LINE_BYTES)
        .filter(|l| l.is_finite() && *l > 0.0);
    let same: Vec<Option<bool>> = match b.texts(sc::distance::SAME_LINE) {
        Some(t) => t
            .iter()
            .map(|s| match s.as_str() {
                "yes" => Some(true),
                "no" => Some(false),
                _ => None,
            })
            .collect(),
        None => gap.iter().map(|g| Some((*g)? < line?)).collect(),
    };
    let pick = |want: bool| {
        let v: Vec<f64> = (0..gap.len().min(same.len()))
            .filter(|&i| same[i] == Some(want))
            .filter_map(|i| med[i])
            .collect();
        measure::stats::median(&v)
    };
    Ok((pick(true), pick(false)))
}

fn lines(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    let b = need_block(run, sc::distance::BLOCK)?;
    let (same, apart) = groups(run, b)?;
    let line = run
        .meta_num(sc::META_FS_LINE_BYTES)
        .filter(|l| l.is_finite() && *l >= 8.0 && *l <= 4096.0);
    // The two slots as the run placed them: its smallest distance.
    let gap = need_nums(b, sc::distance::DISTANCE_BYTES)?
        .into_iter()
        .flatten()
        .filter(|g| g.is_finite() && *g >= 1.0)
        .fold(f64::INFINITY, f64::min);
    let gap = (gap.is_finite() && line.is_none_or(|l| gap < l)).then_some(gap);
    let baseline = distance_baseline(run);
    let provisional = crate::marks::provisional(run, sc::distance::BLOCK);
    let (width, height) = (1000.0, if provisional { 570.0 } else { 550.0 });
    let title = format!(
        "Figure 105.5: two slots in one cache line, and kept apart ({})",
        saved.label
    );
    let svg = render((width as u32, height as u32), |c| {
        c.title(&title, width / 2.0, 10.0, width - 40.0)?;
        let d = LineDiagram {
            cells: line.map_or(8, |l| ((l / 8.0) as usize).clamp(2, 16)),
            line_text: line.map_or("a cache line (size not reported)".to_string(), |l| {
                format!("one {} B cache line", num(l))
            }),
            width,
            provisional,
        };
        let geom = PanelGeom::default();
        d.sharing(c, gap)?;
        d.apart(c)?;
        d.measured(
            c,
            Y_TOP + 20.0,
            same,
            "median over the distances inside one line",
        )?;
        d.measured(
            c,
            Y_BOT + 20.0,
            apart,
            "median over the distances of a line or more",
        )?;
        d.ratio_lines(c, (same, apart), baseline)?;
        c.geom.panels.push(geom);
        Ok(())
    })?;
    Ok(Figure::new("false_sharing-lines.svg", svg))
}

/// Figure 105.5's layout: the left edge of the cache lines, the top of each case, the
/// width of an 8-byte cell, and where the measured numbers start.
const LX: f64 = 60.0;
const Y_TOP: f64 = 100.0;
const Y_BOT: f64 = 330.0;
const CELL_W: f64 = 30.0;
const NX: f64 = 660.0;

/// Figure 105.5's diagram: cache lines of `cells` 8-byte cells, cores, and the arrows
/// between them.
struct LineDiagram {
    cells: usize,
    line_text: String,
    width: f64,
    /// The distances' result is provisional: the numbers say so.
    provisional: bool,
}

impl LineDiagram {
    /// Top: two cores writing two slots in one line.
    fn sharing(&self, c: &mut Canvas, gap: Option<f64>) -> Result<(), String> {
        let (a, b_col) = (color(0), color(1));
        let (lx, y_top) = (LX, Y_TOP);
        heading(c, "Sharing a line", y_top)?;
        let b_cell = gap.map_or(1, |g| ((g / 8.0).round() as usize).clamp(1, self.cells - 1));
        self.line(c, lx, y_top + 60.0, &[(0, a, "A"), (b_cell, b_col, "B")])?;
        c.text(
            &match gap {
                Some(g) => format!("{}: A and B are {} bytes apart", self.line_text, num(g)),
                None => format!("{}: A and B share it", self.line_text),
            },
            (lx, y_top + 100.0),
            SMALL,
            GREY,
            Align::Left,
            0,
            false,
        )?;
        core(c, lx + 60.0, y_top, "core 0 writes A", a)?;
        core(c, lx + 350.0, y_top, "core 1 writes B", b_col)?;
        arrow(c, (lx + 40.0, y_top + 18.0), (lx + 16.0, y_top + 58.0), a)?;
        arrow(
            c,
            (lx + 320.0, y_top + 18.0),
            (lx + 50.0, y_top + 58.0),
            b_col,
        )?;
        arrow(
            c,
            (lx + 150.0, y_top - 6.0),
            (lx + 262.0, y_top - 6.0),
            GREY,
        )?;
        arrow(
            c,
            (lx + 262.0, y_top + 6.0),
            (lx + 150.0, y_top + 6.0),
            GREY,
        )?;
        c.text(
            "the line",
            (lx + 206.0, y_top - 12.0),
            SMALL,
            GREY,
            Align::Center,
            2,
            false,
        )?;
        c.text(
            "every write takes the whole line from the other core: it travels back and forth",
            (lx, y_top + 118.0),
            SMALL,
            BLACK_C,
            Align::Left,
            0,
            false,
        )?;
        Ok(())
    }

    /// Bottom: each core writing a slot in a line of its own.
    fn apart(&self, c: &mut Canvas) -> Result<(), String> {
        let (a, b_col) = (color(0), color(1));
        let (lx, y_bot) = (LX, Y_BOT);
        heading(c, "Kept apart", y_bot)?;
        self.line(c, lx, y_bot + 60.0, &[(0, a, "A")])?;
        let lx2 = lx + self.cells as f64 * CELL_W + 30.0;
        self.line(c, lx2, y_bot + 60.0, &[(0, b_col, "B")])?;
        core(c, lx + 60.0, y_bot, "core 0 writes A", a)?;
        core(c, lx2 + 60.0, y_bot, "core 1 writes B", b_col)?;
        arrow(c, (lx + 40.0, y_bot + 18.0), (lx + 16.0, y_bot + 58.0), a)?;
        arrow(
            c,
            (lx2 + 40.0, y_bot + 18.0),
            (lx2 + 16.0, y_bot + 58.0),
            b_col,
        )?;
        c.text(
            "each core keeps its own line in its own cache: nothing travels",
            (lx, y_bot + 100.0),
            SMALL,
            BLACK_C,
            Align::Left,
            0,
            false,
        )?;
        Ok(())
    }

    /// A line as a row of 8-byte cells at (`x`, `y`); `slots` marks (cell, colour, name).
    fn line(
        &self,
        c: &mut Canvas,
        x: f64,
        y: f64,
        slots: &[(usize, Rgb, &str)],
    ) -> Result<(), String> {
        for k in 0..self.cells {
            let r = Rect::new(
                x + k as f64 * CELL_W,
                y,
                x + (k + 1) as f64 * CELL_W,
                y + 34.0,
            );
            let fill = slots
                .iter()
                .find(|s| s.0 == k)
                .map_or(Rgb(245, 245, 245), |s| s.1);
            c.rect(r, Some(fill.mix(1.0)), Some((BLACK_C, Dash::Solid)))?;
            if let Some(s) = slots.iter().find(|s| s.0 == k) {
                c.text(
                    s.2,
                    ((r.x0 + r.x1) / 2.0, y + 17.0),
                    LABEL,
                    Rgb(255, 255, 255),
                    Align::Center,
                    1,
                    true,
                )?;
            }
        }
        c.rect(
            Rect::new(
                x - 2.0,
                y - 2.0,
                x + self.cells as f64 * CELL_W + 2.0,
                y + 36.0,
            ),
            None,
            Some((BLACK_C, Dash::Solid)),
        )?;
        Ok(())
    }

    /// A case's measured number (`v`), on the right of the case, in a frame.
    fn measured(&self, c: &mut Canvas, y: f64, v: Option<f64>, what: &str) -> Result<(), String> {
        c.rect(
            Rect::new(NX - 14.0, y - 8.0, self.width - 24.0, y + 86.0),
            None,
            Some((super::chart::LIGHT_GREY, Dash::Solid)),
        )?;
        c.text(
            if self.provisional {
                "measured here, two threads (provisional):"
            } else {
                "measured here, two threads:"
            },
            (NX, y),
            SMALL,
            GREY,
            Align::Left,
            0,
            false,
        )?;
        let big = v.map_or("not measured".to_string(), |v| {
            format!("{} ns per increment", num(v))
        });
        let r = c.text(&big, (NX, y + 20.0), 18.0, BLACK_C, Align::Left, 0, true)?;
        c.geom.boxes.push(r);
        c.text(what, (NX, y + 50.0), SMALL, GREY, Align::Left, 0, false)?;
        Ok(())
    }

    /// The same-line / kept-apart ratio, and the one-thread baseline for scale.
    fn ratio_lines(
        &self,
        c: &mut Canvas,
        (same, apart): (Option<f64>, Option<f64>),
        baseline: Option<f64>,
    ) -> Result<(), String> {
        let width = self.width;
        let ratio_text = match (same, apart) {
            (Some(s), Some(p)) => {
                div(s, p).map_or("same line / kept apart: not measured".to_string(), |x| {
                    format!(
                        "same line / kept apart = {} / {} ns = {}",
                        num(s),
                        num(p),
                        ratio(x)
                    )
                })
            }
            _ => "same line / kept apart: not measured".into(),
        };
        c.text(
            &ratio_text,
            (width / 2.0, 500.0),
            17.0,
            BLACK_C,
            Align::Center,
            1,
            true,
        )?;
        if let Some(bl) = baseline {
            c.text(
                &format!("for scale: one thread alone takes {} ns per increment; a perfect split over two cores, {} ns", num(bl), num(bl / 2.0)),
                (width / 2.0, 526.0),
                SMALL,
                GREY,
                Align::Center,
                1,
                false,
            )?;
        }
        if self.provisional {
            let note = crate::marks::DIAGRAM_NOTE;
            c.text(
                note,
                (width / 2.0, 548.0),
                SMALL,
                BLACK_C,
                Align::Center,
                1,
                false,
            )?;
        }
        Ok(())
    }
}

/// A core: a tinted box centred at (`x`, `y`) with its name.
fn core(c: &mut Canvas, x: f64, y: f64, name: &str, col: Rgb) -> Result<(), String> {
    c.rect(
        Rect::new(x - 60.0, y - 18.0, x + 60.0, y + 18.0),
        Some(col.mix(0.15)),
        Some((col, Dash::Solid)),
    )?;
    c.text(name, (x, y), LABEL, BLACK_C, Align::Center, 1, true)
        .map(|_| ())
}

/// An arrow from `from` to `to`, its head a filled triangle.
fn arrow(c: &mut Canvas, from: (f64, f64), to: (f64, f64), col: Rgb) -> Result<(), String> {
    c.line(&[from, to], col, 2, Dash::Solid)?;
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len, dy / len);
    let p1 = (to.0 - ux * 10.0 - uy * 5.0, to.1 - uy * 10.0 + ux * 5.0);
    let p2 = (to.0 - ux * 10.0 + uy * 5.0, to.1 - uy * 10.0 - ux * 5.0);
    c.polygon(&[to, p1, p2], col.mix(1.0))
}

/// A case's heading, above the case drawn at `y`.
fn heading(c: &mut Canvas, s: &str, y: f64) -> Result<(), String> {
    c.text(s, (30.0, y - 40.0), 16.0, BLACK_C, Align::Left, 0, true)
        .map(|_| ())
}

fn distance(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    use sc::distance::{NS_MAX, NS_MEDIAN, NS_MIN};
    let b = need_block(run, sc::distance::BLOCK)?;
    let gap = need_nums(b, sc::distance::DISTANCE_BYTES)?;
    let pts = Spread::read(b, [NS_MEDIAN, NS_MIN, NS_MAX])?.points(&gap);
    if pts.is_empty() {
        return Err(format!("{} has no measured row", super::block_name(b)).into());
    }
    let split = opt_nums(b, sc::distance::SPLIT_NS)
        .into_iter()
        .flatten()
        .next();
    let baseline = distance_baseline(run);
    let mut c = LineChart::new(
        &format!(
            "Table 105.19: two threads, each incrementing its own slot, by distance between the \
             slots ({})",
            saved.label
        ),
        AxisSpec::log2(
            "distance between the two slots (bytes, power-of-two scale)",
            Units::Bytes,
        ),
        AxisSpec::log10("time per increment (ns, log scale)"),
    );
    c.series.push(Series::new(
        "two threads: median of the rounds",
        pts.clone(),
        Style::measured(0, Marker::Dot),
    ));
    c.whisker_label = "bars: fastest..slowest round".into();
    c.mark_disturbed(&crate::marks::disturbed_xs(
        run,
        b,
        sc::distance::DISTANCE_BYTES,
    ));
    split_references(&mut c, baseline, split);
    if let Some(sus) = b.texts(sc::distance::SUSPICIOUS) {
        let flagged: Vec<Pt> = pts
            .iter()
            .zip(&sus)
            .filter(|(_, s)| s.as_str() == "yes")
            .map(|(p, _)| Pt::new(p.x, p.y))
            .collect();
        c.rings("flagged: faster than a perfect split (suspicious)", flagged);
    }
    if let Some(r) = appendix_reference(saved, EXP)? {
        c.series.push(r.series()?);
    }
    let line = run
        .meta_num(sc::META_FS_LINE_BYTES)
        .filter(|l| l.is_finite() && *l > 0.0);
    match line {
        Some(l) => c.verticals.push(super::line_size(l)),
        None => c.title.push_str(" - line size unknown"),
    }
    same_line_bracket(&mut c, run, b, &pts, line)?;
    Ok(Figure::new("false_sharing-distance.svg", c.render()?))
}

/// The one-thread time of the distance set, from the baseline block.
fn distance_baseline(run: &DataFile) -> Option<f64> {
    let base = run.block(sc::baseline::BLOCK)?;
    let sets = base.texts(sc::baseline::SET)?;
    let i = sets.iter().position(|s| s == "distance")?;
    base.nums(sc::baseline::NS_MEDIAN)?[i]
}

/// The one-thread baseline and its perfect split over two cores, as horizontal lines.
fn split_references(c: &mut LineChart, baseline: Option<f64>, split: Option<f64>) {
    if let Some(v) = baseline {
        c.hlines.push(HLine {
            y: v,
            label: format!("one thread alone (the baseline): {} ns", num(v)),
            color: BLACK_C,
            dash: Dash::Short,
        });
    }
    if let Some(v) = split {
        c.hlines.push(HLine {
            y: v,
            label: format!(
                "a perfect split of the baseline over two cores: {} ns",
                num(v)
            ),
            color: color(2),
            dash: Dash::Short,
        });
    }
}

/// The key ratio: slots in one line against slots apart, as a bracket at the last distance
/// in a line.
fn same_line_bracket(
    c: &mut LineChart,
    run: &DataFile,
    b: &Block,
    pts: &[Pt],
    line: Option<f64>,
) -> Result<(), DrawError> {
    let (same, apart) = groups(run, b)?;
    if let (Some(s), Some(a)) = (same, apart)
        && let Some(x) = div(s, a)
    {
        let at = pts
            .iter()
            .filter(|p| line.is_none_or(|l| p.x < l))
            .map(|p| p.x)
            .fold(f64::NEG_INFINITY, f64::max);
        if at.is_finite() {
            c.brackets.push(Bracket {
                x: at,
                y0: a,
                y1: s,
                text: split_line(
                    vec![
                        "same line / apart:".into(),
                        format!("{} / {} ns = {}", num(s), num(a), ratio(x)),
                        "(medians of the rows)".into(),
                    ],
                    run,
                ),
            });
        }
    }
    Ok(())
}

/// The bracket's lines, and the key figure beside them where the run saved it: it is the
/// same effect measured against a perfect split, so it reads differently, and says so.
fn split_line(mut text: Vec<String>, run: &DataFile) -> Vec<String> {
    let key = super::key_or(run, sc::key::SAME_LINE_VS_APART_2T, None);
    if let Some(k) = key {
        text.push(format!("key figure (vs a perfect split): {}", ratio(k)));
    }
    text
}

/// "skipped:_needs_4_cores,_this_run_may_use_2" -> "needs 4 cores, this run may use 2".
fn reason(note: &str) -> String {
    let n = note.replace('_', " ");
    n.trim_start_matches("skipped:").trim().to_string()
}

/// Thread counts in the block, sorted.
fn counts(n: &[Option<f64>]) -> Vec<f64> {
    super::distinct(n, 64)
}

/// The block's thread counts split by `is_measured`: the measured ones, sorted, and, when
/// some were not, one short note naming each with the reason its note gives ("not measured:
/// 4 threads (needs 4 cores, this run may use 2)").
fn split_counts(
    n: &[Option<f64>],
    notes: &[String],
    rows: usize,
    is_measured: impl Fn(f64) -> bool,
) -> (Vec<f64>, Option<String>) {
    let all = counts(n);
    let measured: Vec<f64> = all.iter().copied().filter(|&k| is_measured(k)).collect();
    let unmeasured: Vec<f64> = all
        .iter()
        .copied()
        .filter(|k| !measured.contains(k))
        .collect();
    if unmeasured.is_empty() {
        return (measured, None);
    }
    let lines: Vec<String> = unmeasured
        .iter()
        .map(|&k| {
            let why = (0..rows)
                .find(|&i| {
                    n[i] == Some(k) && notes.get(i).is_some_and(|s| s.starts_with("skipped"))
                })
                .map(|i| reason(&notes[i]));
            match why {
                Some(w) => format!("{} threads ({w})", num(k)),
                None => format!("{} threads", num(k)),
            }
        })
        .collect();
    (
        measured,
        Some(format!("not measured: {}", lines.join("; "))),
    )
}

/// The one-line series' name, with the distance between its slots when saved.
fn one_line_label(b: &Block, layout: &[String], rows: usize) -> String {
    let apart = opt_nums(b, sc::threads::DISTANCE_BYTES);
    (0..rows)
        .find(|&i| layout[i] == "one_line")
        .and_then(|i| apart[i])
        .map_or("all slots on one line".to_string(), |d| {
            format!("all slots on one line ({} B apart)", num(d))
        })
}

fn threads(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    use sc::threads::{NS_MAX, NS_MEDIAN, NS_MIN, VS_SPLIT_MEDIAN};
    let b = need_block(run, sc::threads::BLOCK)?;
    let n = need_nums(b, sc::threads::THREADS)?;
    let layout = need_texts(b, sc::threads::LAYOUT)?;
    let ns = Spread::read(b, [NS_MEDIAN, NS_MIN, NS_MAX])?;
    let vs_split = opt_nums(b, VS_SPLIT_MEDIAN);
    let notes = b.texts(sc::threads::NOTE).unwrap_or_default();
    let rows = n.len().min(layout.len()).min(ns.rows());
    let row = |k: f64, l: &str| (0..rows).find(|&i| n[i] == Some(k) && layout[i] == l);
    let get = |k: f64, l: &str| row(k, l).and_then(|i| ns.bar(i));
    let (measured, skipped) = split_counts(&n, &notes, rows, |k| {
        get(k, "one_line").is_some() || get(k, "separate").is_some()
    });
    if measured.is_empty() {
        return Err(format!("{}: no thread count was measured", super::block_name(b)).into());
    }
    // A perfect split of the one-thread baseline over k threads, as the run measured it:
    // each row's time over its ratio to that split.
    let split = |k: f64| {
        ["separate", "one_line"].iter().find_map(|l| {
            let i = row(k, l)?;
            div(ns.bar(i)?.v, vs_split.get(i).copied().flatten()?)
        })
    };
    let one_line_label = one_line_label(b, &layout, rows);
    let mut c = BarChart::new(
        &format!(
            "Beyond Table 105.19, more threads: all slots in one line against each on its own \
             line ({})",
            saved.label
        ),
        AxisSpec::linear("time per increment (ns, median)").starting_at_zero(),
    );
    c.categories = measured
        .iter()
        .map(|&k| match split(k) {
            Some(s) => format!("{} threads (a perfect split: {} ns)", num(k), num(s)),
            None => format!("{} threads", num(k)),
        })
        .collect();
    c.series.push(BarSeries::new(
        one_line_label,
        measured.iter().map(|&k| get(k, "one_line")).collect(),
        color(1),
    ));
    c.series.push(BarSeries::new(
        "each slot on its own line",
        measured.iter().map(|&k| get(k, "separate")).collect(),
        color(0),
    ));
    if let [k] = measured[..]
        && let Some(s) = split(k)
    {
        c.hlines.push(HLine {
            y: s,
            label: format!(
                "a perfect split of the one-thread baseline over {} threads: {} ns",
                num(k),
                num(s)
            ),
            color: color(2),
            dash: Dash::Short,
        });
    }
    c.whisker_label = "bars: fastest..slowest round".into();
    c.skipped = skipped;
    c.mark_disturbed(&by_threads(run, b, &n, &measured));
    for (ci, k) in measured.iter().enumerate() {
        let x = Bar::over(get(*k, "one_line"), get(*k, "separate"));
        c.bracket((0, ci), (1, ci), "one line / own lines", x);
    }
    c.plot_height = 360;
    Ok(Figure::new("false_sharing-threads.svg", c.render()?))
}

/// Per thread count in `measured`: whether a row of `b` with that count (column `n`) was
/// disturbed ([`crate::marks::disturbed_rows`]).
fn by_threads(run: &DataFile, b: &Block, n: &[Option<f64>], measured: &[f64]) -> Vec<bool> {
    let dist = crate::marks::disturbed_rows(run, b);
    measured
        .iter()
        .map(|&k| n.iter().zip(&dist).any(|(t, &d)| *t == Some(k) && d))
        .collect()
}

fn shared(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    use sc::shared::{NS_MAX, NS_MEDIAN, NS_MIN};
    let b = need_block(run, sc::shared::BLOCK)?;
    let method = need_texts(b, sc::shared::METHOD)?;
    let n = need_nums(b, sc::shared::THREADS)?;
    let ns = Spread::read(b, [NS_MEDIAN, NS_MIN, NS_MAX])?;
    let notes = b.texts(sc::shared::NOTE).unwrap_or_default();
    let rows = method.len().min(n.len()).min(ns.rows());
    let get = |m: &str, k: f64| {
        (0..rows)
            .find(|&i| method[i] == m && n[i] == Some(k))
            .and_then(|i| ns.bar(i))
    };
    let methods = ["plain", "atomic", "mutex"];
    let (measured, skipped) = split_counts(&n, &notes, rows, |k| {
        methods.iter().any(|m| get(m, k).is_some())
    });
    if measured.is_empty() {
        return Err(format!("{}: nothing was measured", super::block_name(b)).into());
    }
    let mut c = BarChart::new(
        &format!(
            "Table 105.21: one value, really shared, the price of making an increment safe ({})",
            saved.label
        ),
        AxisSpec::log10("time per increment (ns, median, log scale)"),
    );
    c.mark_missing = false;
    c.categories = measured
        .iter()
        .map(|&k| {
            if k == 1.0 {
                "1 thread".to_string()
            } else {
                format!("{} threads", num(k))
            }
        })
        .collect();
    for (k, (label, m)) in [
        (
            "plain volatile increment (one thread only: the baseline)",
            "plain",
        ),
        ("relaxed atomic increment", "atomic"),
        ("increment under std::sync::Mutex", "mutex"),
    ]
    .iter()
    .enumerate()
    {
        c.series.push(BarSeries::new(
            *label,
            measured.iter().map(|&t| get(m, t)).collect(),
            color([6, 0, 1][k]),
        ));
    }
    c.skipped = skipped;
    c.mark_disturbed(&by_threads(run, b, &n, &measured));
    let one = measured.iter().position(|k| *k == 1.0);
    let two = measured.iter().position(|k| *k == 2.0);
    if let Some(i1) = one {
        let x = Bar::over(get("atomic", 1.0), get("plain", 1.0));
        c.bracket((0, i1), (1, i1), "atomic / plain", x);
    }
    if let (Some(i1), Some(i2)) = (one, two) {
        let x = Bar::over(get("mutex", 2.0), get("mutex", 1.0));
        c.bracket((2, i1), (2, i2), "mutex, 2 threads / 1", x);
    }
    c.plot_height = 380;
    Ok(Figure::new("false_sharing-shared.svg", c.render()?))
}

/// The heatmap's axis: every core the survey could pair (from #META), else those in the
/// block; sorted, each once.
fn c2c_cores(
    run: &DataFile,
    from: &[Option<f64>],
    to: &[Option<f64>],
) -> Result<Vec<usize>, DrawError> {
    let mut cores: Vec<usize> = match run.meta(sc::META_C2C_CORES) {
        Some(list) => list
            .split(',')
            .map(|c| c.trim().parse::<usize>())
            .collect::<Result<_, _>>()
            .map_err(|_| {
                DrawError::from(format!("#META c2c_cores is not a core list: {list:?}"))
            })?,
        None => from
            .iter()
            .chain(to)
            .flatten()
            .filter(|c| c.is_finite() && **c >= 0.0 && **c < 1e6)
            .map(|&c| c as usize)
            .collect(),
    };
    cores.sort_unstable();
    cores.dedup();
    Ok(cores)
}

fn c2c(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    let b = need_block(run, sc::c2c::BLOCK)?;
    let from = need_nums(b, sc::c2c::FROM)?;
    let to = need_nums(b, sc::c2c::TO)?;
    let one_way = need_nums(b, sc::c2c::ONE_WAY_MEDIAN_NS)?;
    let cores = c2c_cores(run, &from, &to)?;
    if cores.is_empty() {
        return Err(format!("{} names no cores", super::block_name(b)).into());
    }
    if cores.len() > 512 {
        return Err(format!(
            "{} cores are more than the heatmap can show (512)",
            cores.len()
        )
        .into());
    }
    let index = |c: Option<f64>| c.and_then(|c| cores.iter().position(|&k| k as f64 == c));
    let n = cores.len();
    let mut values = vec![vec![None; n]; n];
    let mut disturbed = vec![vec![false; n]; n];
    let dist = crate::marks::disturbed_rows(run, b);
    for i in 0..from.len().min(to.len()).min(one_way.len()) {
        if let (Some(r), Some(k)) = (index(from[i]), index(to[i])) {
            values[r][k] = one_way[i];
            disturbed[r][k] = dist.get(i).copied().unwrap_or(false);
        }
    }
    let visited = run.meta_num(sc::META_C2C_PAIRS_VISITED);
    let total = run.meta_num(sc::META_C2C_PAIRS_TOTAL);
    let mut caption = vec!["one-way latency = half the median round trip of a compare-and-swap ping-pong between the two cores".to_string()];
    if let (Some(v), Some(t)) = (visited, total)
        && v < t
    {
        caption.push(format!(
            "{} of {} pairs sampled; grey cells were not measured",
            num(v),
            num(t)
        ));
    }
    let measured: Vec<f64> = values.iter().flatten().flatten().copied().collect();
    let median = measure::stats::median(&measured);
    let labels: Vec<String> = cores.iter().map(|c| c.to_string()).collect();
    let mut h = Heatmap::new(
        &format!(
            "Beyond the appendix: core-to-core one-way latency ({}{})",
            saved.label,
            median.map_or(String::new(), |m| format!(
                "; median of the pairs {} ns",
                num(m)
            ))
        ),
        Palette::Sequential,
    );
    h.x_label = "to core (responder)".into();
    h.y_label = "from core (initiator)".into();
    h.x_labels = labels.clone();
    h.y_labels = labels;
    h.values = values;
    h.disturbed = disturbed;
    h.diagonal = Some("same core".into());
    h.unit = "one-way latency, median (ns)".into();
    h.cell_suffix = " ns".into();
    h.caption = caption;
    h.width = 900;
    h.row_height = (460 / n as u32).clamp(4, 120);
    Ok(Figure::new("false_sharing-c2c.svg", h.render()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::draw_twice;
    use std::fmt::Write as _;

    /// A synthetic run with `cores` cores, of which the c2c survey measured `measured` pairs.
    fn synthetic(cores: usize, measured: usize) -> String {
        let mut s = String::from(
            "#META fs_line_bytes 64\n\
             #DATA-BEGIN baseline\n#COLUMNS set:text rounds cores:text ns_median ns_min ns_max\n\
             #DATA distance 5 0 0.25 0.24 0.26\n#DATA-END\n\
             #DATA-BEGIN distance\n#COLUMNS distance_bytes same_line:text ns_median ns_min ns_max split_ns vs_split_median vs_split_min vs_split_max suspicious:text pinned:text cores:text\n",
        );
        for (g, v, sus) in [
            (8, 1.0, "no"),
            (16, 1.04, "no"),
            (32, 1.02, "no"),
            (64, 0.125, "no"),
            (128, 0.11, "yes"),
            (256, 0.125, "no"),
        ] {
            let _ = writeln!(
                s,
                "#DATA {g} {} {v} {} {} 0.125 1 1 1 {sus} verified 0,1",
                if g < 64 { "yes" } else { "no" },
                v * 0.9,
                v * 1.2
            );
        }
        s.push_str(
            "#DATA-END\n#DATA-BEGIN threads\n#COLUMNS threads layout:text distance_bytes lines ns_median ns_min ns_max vs_split_median vs_split_min vs_split_max suspicious:text pinned:text note:text\n\
             #DATA 2 one_line 8 1 0.42 0.41 0.43 3.3 3.2 3.4 no verified measured\n\
             #DATA 2 separate 128 2 0.125 0.12 0.13 1 1 1 no verified measured\n\
             #DATA 4 one_line 8 1 NA NA NA NA NA NA NA NA skipped:_needs_4_cores,_this_run_may_use_2\n\
             #DATA 4 separate 128 4 NA NA NA NA NA NA NA NA skipped:_needs_4_cores,_this_run_may_use_2\n#DATA-END\n\
             #DATA-BEGIN shared\n#COLUMNS method:text threads iters_per_thread ns_median ns_min ns_max vs_baseline vs_one_thread suspicious:text pinned:text note:text\n\
             #DATA plain 1 10 0.25 0.25 0.25 1 NA no verified measured\n\
             #DATA atomic 1 10 5 5 5 20 NA no verified measured\n\
             #DATA atomic 2 10 8 8 8 32 1.6 no verified measured\n\
             #DATA atomic 4 10 NA NA NA NA NA NA NA skipped:_needs_4_cores\n\
             #DATA mutex 1 10 10 10 10 40 NA no verified measured\n\
             #DATA mutex 2 10 27 27 27 108 2.7 no verified measured\n#DATA-END\n",
        );
        let list: Vec<String> = (0..cores).map(|c| c.to_string()).collect();
        let total = cores * (cores - 1) / 2;
        let _ = writeln!(s, "#META c2c_cores {}", list.join(","));
        let _ = writeln!(s, "#META c2c_pairs_visited {measured}");
        let _ = writeln!(s, "#META c2c_pairs_total {total}");
        s.push_str("#DATA-BEGIN c2c\n#COLUMNS from to from_on to_on smt:text same_package:text round_trip_median_ns round_trip_min_ns one_way_median_ns one_way_min_ns batches note:text\n");
        let mut k = 0;
        'outer: for a in 0..cores {
            for b in a + 1..cores {
                if k == measured {
                    break 'outer;
                }
                k += 1;
                let v = 40.0 + ((a * 7 + b * 3) % 50) as f64;
                for (x, y) in [(a, b), (b, a)] {
                    let _ = writeln!(
                        s,
                        "#DATA {x} {y} {x} {y} no yes {} {} {v} {v} 5 measured",
                        2.0 * v,
                        2.0 * v
                    );
                }
            }
        }
        s.push_str("#DATA-END\n");
        s
    }

    #[test]
    fn draws_five_figures_deterministically_for_2_16_and_64_cores() {
        for (cores, measured) in [(2, 1), (16, 120), (64, 300)] {
            let saved = Saved::test(EXP, &synthetic(cores, measured));
            let a = draw_twice(
                draw,
                &saved,
                &[
                    "false_sharing-lines.svg",
                    "false_sharing-distance.svg",
                    "false_sharing-threads.svg",
                    "false_sharing-shared.svg",
                    "false_sharing-c2c.svg",
                ],
            );
            assert!(a.iter().all(|x| x.svg.starts_with("<svg")));
            if measured < cores * (cores - 1) / 2 {
                assert!(a[4].svg.contains("pairs sampled"), "{cores} cores");
            }
        }
        let figs = draw(&Saved::test(EXP, &synthetic(2, 1))).unwrap();
        assert!(figs[0].svg.contains("Figure 105.5"));
        assert!(
            figs[0]
                .svg
                .contains("same line / kept apart = 1.02 / 0.125 ns = 8.16x"),
            "computed from the rows"
        );
        assert!(figs[1].svg.contains("line 64 B"));
        assert!(figs[1].svg.contains("suspicious"));
        assert!(figs[1].svg.contains("= 8.16x"));
        // What was not measured is one note, not a slot of the plot.
        assert!(
            figs[2]
                .svg
                .contains("not measured: 4 threads (needs 4 cores, this run may use 2)")
        );
        assert!(!figs[2].svg.contains("4 threads: not measured"));
        // One value for the one ratio: the times in ns, and their quotient, 0.42 / 0.125.
        assert!(figs[2].svg.contains("one line / own lines = 3.36x"));
        assert!(
            !figs[2].svg.contains("3.30"),
            "the ratio to the split is not a bar"
        );
        assert!(figs[2].svg.contains("baseline over 2 threads: 0.125 ns"));
        assert!(figs[3].svg.contains("atomic / plain = 20.0x"));
        assert!(figs[3].svg.contains("mutex, 2 threads / 1 = 2.70x"));
        assert!(
            figs[4].svg.contains("one-way latency, median (ns)"),
            "a colour bar with units"
        );
    }

    #[test]
    fn a_diagram_without_its_numbers_says_not_measured() {
        let text = synthetic(2, 1)
            .replace(" 8 yes 1 ", " 8 yes NA ")
            .replace(" 16 yes 1.04 ", " 16 yes NA ")
            .replace(" 32 yes 1.02 ", " 32 yes NA ");
        let figs = draw(&Saved::test(EXP, &text)).unwrap();
        assert!(figs[0].svg.contains("not measured"));
        assert!(!figs[0].svg.contains("same line / kept apart ="));
    }

    /// Figure 105.5 quotes the distances' medians: from a provisional result it says so,
    /// beside each number and in a note; from a quiet one it says nothing of the kind.
    #[test]
    fn the_lines_diagram_says_when_its_numbers_are_provisional() {
        let note = crate::marks::DIAGRAM_NOTE;
        let quiet = synthetic(2, 1);
        let svg = &draw(&Saved::test(EXP, &quiet)).unwrap()[0].svg;
        assert!(!svg.contains(note) && !svg.contains("(provisional)"));
        let block = crate::marks::tests::block_text(&[("distance", 30, 9, true, false)]);
        let svg = &draw(&Saved::test(EXP, &format!("{quiet}{block}"))).unwrap()[0].svg;
        assert!(svg.contains(note), "the note");
        assert_eq!(svg.matches("two threads (provisional):").count(), 2);
    }

    #[test]
    fn one_core_run_draws_nothing_and_unpinned_run_has_no_heatmap() {
        let saved = Saved::test(EXP, "#META fs_skipped one core\n");
        assert!(draw(&saved).unwrap().is_empty());
        let text =
            synthetic(2, 1).replace("#META c2c_cores 0,1\n", "#META c2c_skipped unpinned run\n");
        let figs = draw(&Saved::test(EXP, &text)).unwrap();
        assert_eq!(figs.len(), 4);
    }

    #[test]
    fn missing_blocks_are_named() {
        let e = draw(&Saved::test(EXP, "#META fs_line_bytes 64\n"))
            .err()
            .unwrap();
        assert!(e.message.contains("distance"), "{e}");
        let text = synthetic(2, 1);
        let cut = text.find("#META c2c_cores").unwrap();
        let e = draw(&Saved::test(EXP, &text[..cut])).err().unwrap();
        assert!(e.message.contains("c2c"), "{e}");
    }

    #[test]
    fn disturbed_pairs_are_hollow_cells_by_their_rows_or_the_block() {
        let c2c_legend = |t: &str| {
            let figs = draw(&Saved::test(EXP, t)).unwrap();
            let f = figs
                .iter()
                .find(|f| f.file == "false_sharing-c2c.svg")
                .unwrap();
            f.svg.matches(crate::marks::LEGEND).count()
        };
        let text = synthetic(4, 6);
        assert_eq!(c2c_legend(&text), 0, "no evidence: nothing marked");
        // Each pair's own rounds: one of them disturbed.
        let (head, c2c) = text.split_at(text.find("#DATA-BEGIN c2c").unwrap());
        let rows = c2c
            .replace(" note:text\n", " note:text rounds disturbed_rounds\n")
            .replace(" measured\n", " measured 15 0\n");
        let quiet = format!("{head}{rows}");
        assert_eq!(c2c_legend(&quiet), 0);
        let one = quiet.replacen(" measured 15 0\n", " measured 15 9\n", 1);
        assert_eq!(c2c_legend(&one), 1);
        // The block provisional as a whole.
        let block = crate::marks::tests::block_text(&[("c2c", 30, 9, true, false)]);
        assert_eq!(c2c_legend(&format!("{text}{block}")), 1);
    }
}
