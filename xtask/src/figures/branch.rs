//! branch's figures.
//!
//! - `branch-variants.svg`: the three variants of the same sum on random and sorted data
//!   (grouped bars with min..max whiskers, each variant labelled with the code shape the
//!   program read back from its binary), and random / sorted written over each pair.
//! - `branch-patterns.svg`: the real branch's cost by pattern, beside the appendix's own
//!   numbers (dashed outlines) when saved, with random / always-true written.
//! - `branch-pipeline.svg` is the book's Figure 105.4 with this machine's numbers: one lane
//!   where the guess is right and nothing is lost, one where it is wrong and the work after
//!   the branch is thrown away, the lost time drawn to scale in cycles from the measured
//!   cycles per misprediction. A number the run did not measure is written "not measured".

use super::chart::Rgb;
use super::chart::axis::{Axis, AxisSpec};
use super::chart::{
    Align, BLACK_C, Bar, BarChart, BarSeries, Canvas, Dash, Edge, GREY, LABEL, PanelGeom, Rect,
    SMALL, color, div, num, ratio, render, text_w,
};
use super::{
    DrawError, Figure, Saved, Spread, appendix_reference, need_block, need_nums, need_texts,
};
use ::branch::schema as sc;
use measure::data::DataFile;

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(sc::EXPERIMENT)?;
    Ok(vec![
        variants(saved, run)?,
        patterns(saved, run)?,
        pipeline(saved, run)?,
    ])
}

fn variants(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    use sc::variants::{RANDOM_MAX_NS, RANDOM_MIN_NS, RANDOM_NS};
    use sc::variants::{SORTED_MAX_NS, SORTED_MIN_NS, SORTED_NS};
    let v = need_block(run, sc::variants::BLOCK)?;
    let names = need_texts(v, sc::variants::VARIANT)?;
    let shapes = v
        .texts(sc::variants::SHAPE)
        .unwrap_or_else(|| vec![String::new(); names.len()]);
    let rows = names.len();
    let random = Spread::read(v, [RANDOM_NS, RANDOM_MIN_NS, RANDOM_MAX_NS])?.bars(rows);
    let sorted = Spread::read(v, [SORTED_NS, SORTED_MIN_NS, SORTED_MAX_NS])?.bars(rows);
    if names.is_empty() {
        return Err(format!("{} is empty", super::block_name(v)).into());
    }
    let n = run
        .meta_num(sc::META_N)
        .filter(|n| n.is_finite() && *n > 0.0 && *n < 1e15)
        .map_or(String::new(), |n| {
            format!(" of {} values", super::chart::axis::group(n as u64))
        });
    let mut c = per_element(
        &format!("Table 105.15: the same sum{n}, random against sorted order"),
        "variant [the code shape read back from the binary]",
        saved,
    );
    c.categories = names
        .iter()
        .zip(&shapes)
        .map(|(n, s)| {
            if s.is_empty() {
                n.replace('_', " ")
            } else {
                format!("{} [{s}]", n.replace('_', " "))
            }
        })
        .collect();
    c.mark_disturbed(&crate::marks::disturbed_rows(run, v));
    for (ci, (r, s)) in random.iter().zip(&sorted).enumerate() {
        c.bracket((0, ci), (1, ci), "random / sorted", Bar::over(*r, *s));
    }
    c.series
        .push(BarSeries::new("random order", random, color(1)));
    c.series
        .push(BarSeries::new("sorted order", sorted, color(0)));
    Ok(Figure::new("branch-variants.svg", c.render()?))
}

fn patterns(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    use sc::patterns::{MAX_NS, MEDIAN_NS, MIN_NS};
    let p = need_block(run, sc::patterns::BLOCK)?;
    let pats = need_texts(p, sc::patterns::PATTERN)?;
    let period = need_nums(p, sc::patterns::PERIOD)?;
    let ours = Spread::read(p, [MEDIAN_NS, MIN_NS, MAX_NS])?.bars(pats.len());
    if pats.is_empty() {
        return Err(format!("{} is empty", super::block_name(p)).into());
    }
    let mut c = per_element(
        "Table 105.16: the real branch by pattern, what the predictor can learn",
        "pattern of the condition (period: how often it repeats; 0 = never)",
        saved,
    );
    c.categories = pats
        .iter()
        .zip(&period)
        .map(|(s, p)| match p {
            Some(p) => format!("{} (period {})", s.replace('_', " "), num(*p)),
            None => s.replace('_', " "),
        })
        .collect();
    c.series.push(BarSeries::new(
        "the real branch, this run",
        ours.clone(),
        color(0),
    ));
    c.mark_disturbed(&crate::marks::disturbed_rows(run, p));
    // The appendix's C program prints one bare block: period, ns per element.
    if let Some(r) = appendix_reference(saved, sc::EXPERIMENT)? {
        let pairs = r.pairs("c1", "c2")?;
        let matched: Vec<Option<Bar>> = period
            .iter()
            .map(|want| {
                pairs
                    .iter()
                    .find(|(p, _)| Some(*p) == *want)
                    .map(|(_, v)| Bar::new(*v))
            })
            .collect();
        if matched.iter().any(Option::is_some) {
            c.series
                .push(BarSeries::reference(r.label.clone(), matched));
        }
    }
    let find = |name: &str| pats.iter().position(|p| p == name);
    if let (Some(a), Some(z)) = (find("always_true"), find("random")) {
        let x = Bar::over(ours[z], ours[a]);
        c.bracket((0, a), (0, z), "random / always true", x);
    }
    Ok(Figure::new("branch-patterns.svg", c.render()?))
}

/// A bar chart of the time per element (from zero, 380 pixels high), titled `title` and
/// the run's label, with `x_title` under its categories.
fn per_element(title: &str, x_title: &str, saved: &Saved) -> BarChart {
    let mut c = BarChart::new(
        &format!("{title} ({})", saved.label),
        AxisSpec::linear("time per element (ns, median)").starting_at_zero(),
    );
    c.x_title = x_title.into();
    c.plot_height = 380;
    c
}

/// The mispredict block's first row, by column.
fn mispredict(run: &DataFile, col: &str) -> Option<f64> {
    run.block(sc::mispredict::BLOCK)?
        .nums(col)?
        .first()
        .copied()
        .flatten()
        .filter(|v| v.is_finite())
}

fn pipeline(saved: &Saved, run: &DataFile) -> Result<Figure, DrawError> {
    let cycles = mispredict(run, sc::mispredict::CYCLES_PER_MISS).filter(|c| *c > 0.0 && *c < 1e6);
    let ns = mispredict(run, sc::mispredict::NS_PER_MISS);
    let ns_lo = mispredict(run, sc::mispredict::NS_PER_MISS_LOW);
    let ns_hi = mispredict(run, sc::mispredict::NS_PER_MISS_HIGH);

    // The lost time, drawn to scale in cycles (up to 120); a nominal 12 when not measured.
    let lost = cycles.unwrap_or(12.0).clamp(1.0, 120.0);
    let after = 6.0;
    let total = 1.0 + lost + after;
    let (width, left, right) = (1000.0, 200.0, 975.0);
    let spec = AxisSpec::linear("cycles after the branch is fetched").starting_at_zero();
    let axis = Axis::fit(&spec, &[0.0, total], right - left, &|s| {
        text_w(s, SMALL) + 14.0
    })
    .map_err(DrawError::from)?;
    let (a0, a1) = axis.ends();
    let top = 56.0;
    let lanes = [top + 34.0, top + 34.0 + 118.0];
    let bottom = lanes[1] + 50.0;
    let title = format!(
        "Figure 105.4: the pipeline when the guess is right and when it is wrong ({})",
        saved.label
    );
    let p = Pipeline {
        ends: (a0, a1),
        left,
        right,
        lost,
        total,
        cycles,
        ns,
        cyc_text: cycles.map_or("not measured".to_string(), |c| format!("{} cycles", num(c))),
        ns_text: match (ns, ns_lo, ns_hi) {
            (Some(n), Some(l), Some(h)) => format!("{} ns ({}..{} ns)", num(n), num(l), num(h)),
            (Some(n), _, _) => format!("{} ns", num(n)),
            _ => "not measured".into(),
        },
        provisional: crate::marks::provisional(run, sc::mispredict::BLOCK),
    };
    let sources = p.sources(run);
    let height = bottom + 70.0 + 20.0 * sources.len() as f64;
    let svg = render((width as u32, height as u32), |c| {
        c.title(&title, width / 2.0, 10.0, width - 40.0)?;
        let plot = Rect::new(left, top, right, bottom);
        let mut geom = PanelGeom {
            plot: Some(plot),
            x_continuous: true,
            ..PanelGeom::default()
        };
        c.grid(
            plot,
            Edge::Bottom,
            &axis.ticks,
            |t| p.fx(t),
            false,
            &mut geom,
        )?;
        c.x_title(
            "cycles after the branch enters the pipeline (one instruction a cycle, drawn to scale)",
            plot,
            plot.y1 + 24.0,
        )?;
        p.guess_right(c, &mut geom, lanes[0])?;
        p.guess_wrong(c, &mut geom, lanes[1])?;
        c.rect(plot, None, Some((BLACK_C, Dash::Solid)))?;
        let mut y = bottom + 50.0;
        for l in &sources {
            c.text(l, (22.0, y), LABEL, BLACK_C, Align::Left, 0, false)?;
            y += 20.0;
        }
        c.geom.panels.push(geom);
        Ok(())
    })?;
    Ok(Figure::new("branch-pipeline.svg", svg))
}

/// Figure 105.4's drawing: a cycle axis from `ends.0` to `ends.1` between pixel columns
/// `left` and `right`, the `lost` cycles of a misprediction within `total`, and the
/// measured numbers as text.
struct Pipeline {
    ends: (f64, f64),
    left: f64,
    right: f64,
    lost: f64,
    total: f64,
    cycles: Option<f64>,
    ns: Option<f64>,
    cyc_text: String,
    ns_text: String,
    /// The misprediction's result is provisional: the numbers say so.
    provisional: bool,
}

impl Pipeline {
    /// The pixel column of cycle `cyc`.
    fn fx(&self, cyc: f64) -> f64 {
        let (a0, a1) = self.ends;
        self.left + (cyc - a0) / (a1 - a0) * (self.right - self.left)
    }

    /// Lane 1: the guess was right.
    fn guess_right(&self, c: &mut Canvas, geom: &mut PanelGeom, y1: f64) -> Result<(), String> {
        self.lane(c, geom, y1, "guess right", "(sorted data)")?;
        self.slot(c, 0.0, y1, color(1), "br", false)?;
        let mut k = 1.0;
        while k < self.total - 0.5 {
            self.slot(c, k, y1, color(0), "", false)?;
            k += 1.0;
        }
        geom.points.push((self.fx(0.5), y1));
        c.text(
            "br: the branch; blue: the instructions after it, fetched on the guessed path, which was right: nothing lost",
            (self.left, y1 + 22.0),
            SMALL,
            BLACK_C,
            Align::Left,
            0,
            false,
        )?;
        Ok(())
    }

    /// Lane 2: the guess was wrong.
    fn guess_wrong(&self, c: &mut Canvas, geom: &mut PanelGeom, y2: f64) -> Result<(), String> {
        let before: f64 = 6.0;
        let lost = self.lost;
        self.lane(c, geom, y2, "guess wrong", "(random data)")?;
        self.slot(c, 0.0, y2, color(1), "br", false)?;
        let wasted = before.min(lost.floor()).max(1.0);
        let mut k = 1.0;
        while k <= wasted {
            self.slot(c, k, y2, Rgb(200, 200, 200), "", true)?;
            k += 1.0;
        }
        // The refill: the lost cycles as an empty stretch, then the right path.
        let gap = Rect::new(
            self.fx(1.0 + wasted) + 1.0,
            y2 - 15.0,
            self.fx(1.0 + lost) - 1.0,
            y2 + 15.0,
        );
        if gap.w() > 2.0 {
            c.rect(
                gap,
                Some(Rgb(250, 250, 250).mix(1.0)),
                Some((GREY, Dash::Short)),
            )?;
        }
        let mut k = 1.0 + lost;
        while k < self.total - 0.5 {
            self.slot(c, k, y2, color(0), "", false)?;
            k += 1.0;
        }
        geom.points.push((self.fx(0.5), y2));
        geom.points.push((self.fx(1.0 + lost), y2));
        self.lost_bracket(c, y2 - 26.0)?;
        c.text(
            "crossed: fetched on the wrong guess and thrown away; dashed: the pipeline refilling from the right address",
            (self.left, y2 + 22.0),
            SMALL,
            BLACK_C,
            Align::Left,
            0,
            false,
        )?;
        Ok(())
    }

    /// The bracket over the lost cycles at pixel height `by`, with the measured numbers.
    fn lost_bracket(&self, c: &mut Canvas, by: f64) -> Result<(), String> {
        let (bx0, bx1) = (self.fx(1.0), self.fx(1.0 + self.lost));
        c.line(
            &[(bx0, by + 6.0), (bx0, by), (bx1, by), (bx1, by + 6.0)],
            BLACK_C,
            2,
            Dash::Solid,
        )?;
        let ns_text = &self.ns_text;
        let mut label = vec![if self.cycles.is_some() {
            format!(
                "lost per misprediction: {} = {ns_text}, measured{}",
                self.cyc_text,
                if self.provisional {
                    ", provisional"
                } else {
                    ""
                }
            )
        } else {
            let ns = if self.ns.is_some() {
                format!("; {ns_text}")
            } else {
                String::new()
            };
            format!("lost per misprediction: not measured (drawn as 12 cycles){ns}")
        }];
        if !self.cycles.is_none_or(|c| c <= 120.0) {
            label.push("(not to scale: drawn as 120 cycles)".into());
        }
        let r = c.text_box(
            &label,
            ((bx0 + bx1) / 2.0, by - 24.0),
            LABEL,
            BLACK_C,
            Align::Center,
            true,
        )?;
        c.geom.boxes.push(r);
        Ok(())
    }

    /// One instruction's slot at cycle `cyc` in the lane at `y`; `crossed` when thrown away.
    fn slot(
        &self,
        c: &mut Canvas,
        cyc: f64,
        y: f64,
        fill: Rgb,
        text: &str,
        crossed: bool,
    ) -> Result<(), String> {
        let r = Rect::new(
            self.fx(cyc) + 1.0,
            y - 15.0,
            self.fx(cyc + 1.0) - 1.0,
            y + 15.0,
        );
        c.rect(r, Some(fill.mix(1.0)), Some((BLACK_C, Dash::Solid)))?;
        if crossed {
            c.line(&[(r.x0, r.y0), (r.x1, r.y1)], BLACK_C, 1, Dash::Solid)?;
            c.line(&[(r.x0, r.y1), (r.x1, r.y0)], BLACK_C, 1, Dash::Solid)?;
        }
        if !text.is_empty() && text_w(text, 10.0) < r.w() {
            c.text(
                text,
                ((r.x0 + r.x1) / 2.0, y),
                10.0,
                Rgb(255, 255, 255),
                Align::Center,
                1,
                true,
            )?;
        }
        Ok(())
    }

    /// A lane's name and its data, left of the lane at `y`.
    fn lane(
        &self,
        c: &mut Canvas,
        geom: &mut PanelGeom,
        y: f64,
        name: &str,
        data: &str,
    ) -> Result<(), String> {
        c.text(
            name,
            (self.left - 12.0, y - 8.0),
            15.0,
            BLACK_C,
            Align::Right,
            1,
            true,
        )?;
        c.text(
            data,
            (self.left - 12.0, y + 10.0),
            SMALL,
            GREY,
            Align::Right,
            1,
            false,
        )?;
        geom.y_ticks.push((y, name.into()));
        Ok(())
    }

    /// Where the numbers come from, one sentence a line.
    fn sources(&self, run: &DataFile) -> Vec<String> {
        let ns_text = &self.ns_text;
        let miss = mispredict(run, sc::mispredict::MISS_RATE);
        let ghz = run
            .meta_num(measure::schema::run::META_CLOCK_GHZ_ESTIMATE)
            .filter(|g| g.is_finite() && *g > 0.0);
        let real = run.block(sc::variants::BLOCK).and_then(|v| {
            let names = v.texts(sc::variants::VARIANT)?;
            let i = names.iter().position(|n| n == "real_branch_kept")?;
            Some((
                v.nums(sc::variants::RANDOM_NS)?[i],
                v.nums(sc::variants::SORTED_NS)?[i],
            ))
        });
        let mut lines = Vec::new();
        match real {
            Some((Some(r), Some(s))) => lines.push(format!(
                "The real branch: {} ns per element on random data, {} ns on sorted data ({}).",
                num(r),
                num(s),
                div(r, s).map_or("?".to_string(), |x| if x > 1.0 {
                    format!("{} slower", ratio(x))
                } else {
                    format!("{} the sorted time", ratio(x))
                })
            )),
            _ => lines.push("The real branch on random and sorted data: not measured.".into()),
        }
        match (miss, mispredict(run, sc::mispredict::EXTRA_NS_PER_ELEMENT)) {
            (Some(m), Some(e)) => lines.push(format!(
                "The difference, {} ns per element, over {} mispredictions per element = {ns_text} per misprediction.",
                num(e),
                num(m)
            )),
            _ => lines.push("The misprediction rate: not measured.".into()),
        }
        lines.push(match (self.cycles, ghz) {
            (Some(cy), Some(g)) => format!("At the core clock the run estimated ({} GHz), that is {} cycles.", num(g), num(cy)),
            _ => "Cycles per misprediction: not measured (no clock estimate or no misprediction figure).".into(),
        });
        if self.provisional {
            lines.push(crate::marks::DIAGRAM_NOTE.into());
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::draw_twice;
    use std::path::PathBuf;

    fn saved(text: &str, dir: PathBuf) -> Saved {
        Saved::from_text("branch", text, dir)
    }

    const RUN: &str = "\
#META n 4194304
#META clock_ghz_estimate 4.208
#DATA-BEGIN variants
#COLUMNS variant:text shape:text random_ns random_min_ns random_max_ns sorted_ns sorted_min_ns sorted_max_ns random_over_sorted
#DATA as_written vectorised 0.19 0.18 0.2 0.19 0.18 0.2 1
#DATA real_branch_kept branch 3.63 3.49 3.74 0.27 0.25 0.35 13.4
#DATA branchless_arithmetic cmov 0.43 0.42 0.5 0.42 0.42 0.43 1.01
#DATA-END
#DATA-BEGIN mispredict
#COLUMNS extra_ns_per_element miss_rate ns_per_miss ns_per_miss_low ns_per_miss_high cycles_per_miss
#DATA 3.36085 0.499731 6.72533 6.28476 6.97501 28.3029
#DATA-END
#DATA-BEGIN patterns
#COLUMNS pattern:text period taken_share median_ns min_ns max_ns vs_always implied_miss_share
#DATA always_true 1 1 0.33 0.26 0.37 1 0
#DATA alternating 2 0.5 0.36 0.25 0.37 1 0
#DATA random 0 0.5 3.69 3.52 3.77 11.1 0.5
#DATA-END
";

    #[test]
    fn draws_three_figures_with_computed_ratios_deterministically() {
        let s = saved(RUN, PathBuf::from("/nonexistent/results/test"));
        let f = draw_twice(
            draw,
            &s,
            &[
                "branch-variants.svg",
                "branch-patterns.svg",
                "branch-pipeline.svg",
            ],
        );
        assert!(f[0].svg.contains("real branch kept [branch]"));
        assert!(f[0].svg.contains("random / sorted = 13.4x"));
        assert!(f[1].svg.contains("random / always true = 11.2x"));
        assert!(!f[1].svg.contains("appendix"));
        let p = &f[2].svg;
        assert!(p.contains("Figure 105.4"));
        assert!(p.contains("28.3 cycles = 6.73 ns (6.28..6.98 ns), measured"));
    }

    #[test]
    fn the_pipeline_says_not_measured_without_the_numbers() {
        let text = RUN.replace(
            "#DATA 3.36085 0.499731 6.72533 6.28476 6.97501 28.3029",
            "#DATA NA NA NA NA NA NA",
        );
        let f = draw(&saved(&text, PathBuf::from("/x"))).unwrap();
        assert!(f[2].svg.contains("lost per misprediction: not measured"));
    }

    /// Figure 105.4 quotes the misprediction's cost: from a provisional result it says so,
    /// on the bracket and in a note under the sources; from a quiet one it does not.
    #[test]
    fn the_pipeline_says_when_its_numbers_are_provisional() {
        let note = crate::marks::DIAGRAM_NOTE;
        let quiet = &draw(&saved(RUN, PathBuf::from("/x"))).unwrap()[2].svg;
        assert!(!quiet.contains(note) && !quiet.contains("provisional"));
        let block = crate::marks::tests::block_text(&[("mispredict", 30, 9, true, false)]);
        let text = format!("{RUN}{block}");
        let marked = &draw(&saved(&text, PathBuf::from("/x"))).unwrap()[2].svg;
        assert!(marked.contains(note), "the note");
        assert!(marked.contains("(6.28..6.98 ns), measured, provisional"));
    }

    #[test]
    fn the_appendix_numbers_are_drawn_beside_when_saved() {
        let dir = std::env::temp_dir().join(format!("mm-branch-fig-{}", std::process::id()));
        let label = dir.join("m");
        std::fs::create_dir_all(label.join("appendix-c")).unwrap();
        std::fs::write(
            label.join("appendix-c").join("branch.txt"),
            "#DATA-BEGIN\n#DATA 1 0.496\n#DATA 2 0.851\n#DATA 4 0.952\n#DATA 16 1.177\n#DATA 0 3.914\n#DATA-END\n",
        )
        .unwrap();
        let f = draw(&saved(RUN, label)).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(f[1].svg.contains("C program, this machine"));
        assert!(f[1].geometry.dashes.contains(&Dash::Long));
    }

    #[test]
    fn a_missing_block_is_an_error_naming_it() {
        let e = draw(&saved("#META n 4194304\n", PathBuf::from("/x")))
            .err()
            .unwrap();
        assert!(e.message.contains("variants"), "{e}");
        let only = RUN.split("#DATA-BEGIN patterns").next().unwrap();
        let e = draw(&saved(only, PathBuf::from("/x"))).err().unwrap();
        assert!(e.message.contains("patterns"), "{e}");
    }
}
