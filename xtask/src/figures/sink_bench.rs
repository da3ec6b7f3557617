//! sink_bench's figures, drawn from its saved raw output alone:
//!
//! - `sink_bench-variants.svg`: every timed pass of the three variants as a strip plot on a
//!   log time axis, with the clock's smallest step as a dotted line, so (a) is seen sitting
//!   on the clock and (b), (c) orders of magnitude above it; (b) / (a) written between them;
//! - `sink_bench-spread.svg`: the warm pass and the cold pass, one process against fresh
//!   processes, as strips with their medians (the cold pass in one process is one dot).
//!
//! In both, a pass whose rounds were disturbed (its row's own rounds, or its whole block
//! provisional) is a hollow dot, with the legend entry [`crate::marks::LEGEND`].

use super::chart::line::HLine;
use super::chart::strip::{Column, Strip, StripRatio, render_row};
use super::chart::{AxisSpec, Dash, GREY, Rgb, Scale, Units, color, div, num, ratio, time_ns};
use super::{DrawError, Figure, Saved, need_block, need_nums};
use ::sink_bench::schema as sc;
use measure::data::DataFile;

const EXP: &str = sc::EXPERIMENT;

fn fmt_micro(v: f64) -> String {
    format!("{} µs", num(v))
}

/// The measured values of a column (NA cells are not measurements and are left out), each
/// with whether its row was disturbed ([`crate::marks::disturbed_rows`]: by the row's own
/// rounds, or every row when the block is provisional).
fn values(run: &DataFile, block: &str, col: &str) -> Result<Vec<(f64, bool)>, DrawError> {
    let b = need_block(run, block)?;
    let v: Vec<(f64, bool)> = need_nums(b, col)?
        .into_iter()
        .zip(crate::marks::disturbed_rows(run, b))
        .filter_map(|(v, d)| Some((v?, d)))
        .collect();
    if v.is_empty() {
        return Err(format!("{} has no values in column {col:?}", super::block_name(b)).into());
    }
    Ok(v)
}

/// A column of dots from `values` (each with whether it was disturbed).
fn column(label: String, values: Vec<(f64, bool)>, color: Rgb) -> Column {
    let (values, disturbed) = values.into_iter().unzip();
    Column {
        label,
        values,
        color,
        disturbed,
    }
}

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(EXP)?;
    let step = run
        .meta_num("clock_min_step_ns")
        .filter(|s| s.is_finite() && *s > 0.0)
        .ok_or("no #META clock_min_step_ns (a positive number)")?;
    let variants = variants_strip(saved, run, step)?;
    let (warm, cold) = spread_strips(run)?;
    Ok(vec![
        Figure::new("sink_bench-variants.svg", render_row("", &[variants])?),
        Figure::new(
            "sink_bench-spread.svg",
            render_row(
                &format!(
                    "Beyond the appendix: the same pass in one process and in fresh processes ({})",
                    saved.label
                ),
                &[warm, cold],
            )?,
        ),
    ])
}

/// The three variants' passes on a log time axis, the clock's smallest step (`step`) as
/// a reference, and (b) / (a) as the key ratio.
fn variants_strip(saved: &Saved, run: &DataFile, step: f64) -> Result<Strip, DrawError> {
    let names = [
        (sc::part1_passes::DISCARDED_NS, "(a) sum discarded"),
        (sc::part1_passes::SINK_NS, "(b) black_box(sum)"),
        (sc::part1_passes::CHECKSUM_NS, "(c) stored, checksummed"),
    ];
    let mut columns = Vec::new();
    let mut zeros = 0;
    for (i, (col, label)) in names.iter().enumerate() {
        let v = values(run, sc::part1_passes::BLOCK, col)?;
        // A pass that read 0 ns (two reads inside one clock step) cannot sit on a log axis:
        // it is drawn at half a step and counted in the title.
        zeros += v.iter().filter(|(x, _)| *x <= 0.0).count();
        let v = v
            .into_iter()
            .map(|(x, d)| (if x <= 0.0 { step / 2.0 } else { x }, d))
            .collect();
        columns.push(column(label.to_string(), v, color(i)));
    }
    let n = columns[0].values.len();
    let med = |k: usize| measure::stats::median(&columns[k].values);
    let mut ratios = Vec::new();
    if let (Some(a), Some(b)) = (med(0), med(1))
        && let Some(r) = div(b, a)
    {
        ratios.push(StripRatio {
            a: 0,
            b: 1,
            text: vec!["(b) / (a), medians:".into(), ratio(r)],
        });
    }
    // "(a) reads the clock" only where its median says so: within three clock steps (or
    // clock reads), the rule of the experiment's own verdict (sink_bench's `dead_loop`).
    let floor = step.max(run.meta_num("clock_read_ns").unwrap_or(0.0));
    let on_clock = match med(0) {
        Some(a) if a <= 3.0 * floor => ": (a) reads the clock, not the sum",
        _ => "",
    };
    Ok(Strip {
        title: format!(
            "Beyond the appendix: a discarded sum against a kept one, {n} passes of each \
             variant, round-robin ({}){}",
            saved.label,
            if zeros > 0 {
                format!("; {zeros} passes read 0 ns, drawn at half a step")
            } else {
                String::new()
            }
        ),
        y: AxisSpec::new("time per pass (log scale)", Scale::Log10, Units::Nanos),
        columns,
        refs: vec![HLine {
            y: step,
            label: format!("the clock's smallest step, {}{}", time_ns(step), on_clock),
            color: GREY,
            dash: Dash::Dotted,
        }],
        ratios,
        fmt: time_ns,
        width: 900,
        plot_height: 440,
    })
}

/// A block's column of nanoseconds, in microseconds (each with whether it was disturbed).
fn micros(run: &DataFile, block: &str, col: &str) -> Result<Vec<(f64, bool)>, DrawError> {
    Ok(values(run, block, col)?
        .into_iter()
        .map(|(x, d)| (x / 1e3, d))
        .collect())
}

/// The key ratio of a panel: fresh processes (`b`) against one process (`a`), medians.
fn between(a: &[f64], b: &[f64], what: &str) -> Vec<StripRatio> {
    let (Some(x), Some(y)) = (measure::stats::median(a), measure::stats::median(b)) else {
        return Vec::new();
    };
    div(y, x).map_or(Vec::new(), |r| {
        vec![StripRatio {
            a: 0,
            b: 1,
            text: vec![what.to_string(), ratio(r)],
        }]
    })
}

/// One panel of the spread figure: one process (`one`) against fresh processes (`fresh`),
/// in µs, with the ratio of their medians.
fn spread_panel(title: &str, one: Column, fresh: Column) -> Strip {
    let ratios = between(&one.values, &fresh.values, "fresh / one process:");
    Strip {
        title: title.into(),
        y: AxisSpec::linear("time per pass (µs)"),
        columns: vec![one, fresh],
        refs: Vec::new(),
        ratios,
        fmt: fmt_micro,
        width: 600,
        plot_height: 420,
    }
}

/// The warm and the cold pass, each in one process against fresh processes.
fn spread_strips(run: &DataFile) -> Result<(Strip, Strip), DrawError> {
    use sc::{cold_in_process as cold, fresh_processes as fresh, warm_in_process as warm};
    let warm_in = micros(run, warm::BLOCK, warm::NS)?;
    let warm_fresh = micros(run, fresh::BLOCK, fresh::WARM_NS)?;
    let cold_in = micros(run, cold::BLOCK, cold::NS)?;
    let cold_fresh = micros(run, fresh::BLOCK, fresh::COLD_NS)?;
    let warm = spread_panel(
        "warm pass: one process against fresh processes",
        column(
            format!("{} passes, one process", warm_in.len()),
            warm_in,
            color(1),
        ),
        column(
            format!("{} fresh processes", warm_fresh.len()),
            warm_fresh,
            color(2),
        ),
    );
    let cold = spread_panel(
        "cold pass (the first over a fresh array)",
        column("one process: one shot".into(), cold_in, color(1)),
        column(
            format!("{} fresh processes", cold_fresh.len()),
            cold_fresh,
            color(2),
        ),
    );
    Ok((warm, cold))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::draw_twice;

    const FULL: &str = "#META clock_min_step_ns 20
#DATA-BEGIN part1_passes
#COLUMNS round discarded_ns sink_ns checksum_ns
#DATA 0 20 500000 501000
#DATA 1 0 498000 499000
#DATA-END
#DATA-BEGIN warm_in_process
#COLUMNS pass ns
#DATA 0 500000
#DATA 1 510000
#DATA-END
#DATA-BEGIN fresh_processes
#COLUMNS process cold_ns warm_ns cold_faults warm_faults cpu
#DATA 1 700000 498000 1024 0 1
#DATA 2 720000 530000 1024 0 1
#DATA 3 710000 4500000 1024 0 1
#DATA-END
#DATA-BEGIN cold_in_process
#COLUMNS ns faults
#DATA 690000 1024
#DATA-END
";

    #[test]
    fn draws_both_figures_deterministically() {
        let s = Saved::test(EXP, FULL);
        let a = draw_twice(
            draw,
            &s,
            &["sink_bench-variants.svg", "sink_bench-spread.svg"],
        );
        assert!(
            a[0].svg
                .contains("smallest step, 20 ns: (a) reads the clock")
        );
        assert!(a[0].svg.contains("1 passes read 0 ns"));
        assert!(
            a[0].svg.contains("33267x"),
            "(b) / (a) from the medians: 499000 / 15"
        );
        assert!(a[1].svg.contains("one shot: 690 µs"));
        assert!(a[1].svg.contains("off scale: 4500 µs"));
    }

    #[test]
    fn a_kept_dead_loop_is_not_said_to_read_the_clock() {
        let kept = FULL
            .replace("#DATA 0 20 500000", "#DATA 0 400000 500000")
            .replace("#DATA 1 0 498000", "#DATA 1 410000 498000");
        let f = draw(&Saved::test(EXP, &kept)).expect("drawn");
        assert!(f[0].svg.contains("smallest step, 20 ns"));
        assert!(!f[0].svg.contains("reads the clock"), "(a) takes 405 us");
    }

    #[test]
    fn missing_pieces_are_named() {
        let no_meta = FULL.replace("#META clock_min_step_ns 20\n", "");
        let err = |t: &str| draw(&Saved::test(EXP, t)).err().expect("an error").message;
        assert!(err(&no_meta).contains("clock_min_step_ns"));
        let cut = FULL.split("#DATA-BEGIN cold_in_process").next().unwrap();
        assert!(err(cut).contains("cold_in_process"));
    }

    #[test]
    fn disturbed_passes_are_hollow_by_their_rows_or_their_block() {
        let legend = |t: &str| {
            let f = draw(&Saved::test(EXP, t)).expect("drawn");
            [0, 1].map(|k| f[k].svg.matches(crate::marks::LEGEND).count())
        };
        assert_eq!(legend(FULL), [0, 0], "no evidence: nothing marked");
        // One round of part 1 disturbed, by its own rounds: the variants only.
        let rows = FULL
            .replace(
                "#COLUMNS round discarded_ns sink_ns checksum_ns\n",
                "#COLUMNS round discarded_ns sink_ns checksum_ns rounds disturbed_rounds\n",
            )
            .replace(
                "#DATA 0 20 500000 501000\n",
                "#DATA 0 20 500000 501000 3 0\n",
            )
            .replace("#DATA 1 0 498000 499000\n", "#DATA 1 0 498000 499000 3 2\n");
        assert_eq!(legend(&rows), [1, 0]);
        let quiet_rows = rows.replace(" 3 2\n", " 3 0\n");
        assert_eq!(legend(&quiet_rows), [0, 0]);
        // The fresh processes' block provisional as a whole: the spread only, in both its
        // panels' legends (each panel has its own, as for its other entries).
        let block = crate::marks::tests::block_text(&[
            ("part1_passes", 6, 0, false, false),
            ("fresh_processes", 6, 3, true, false),
        ]);
        assert_eq!(legend(&format!("{FULL}{block}")), [0, 2]);
    }
}
