//! clock_probe's figure: the 201 rounds of trap three, in time order, with the median,
//! the mean and the minimum as horizontal references.

use super::chart::{LineChart, Mark, Series};
use super::{Figure, Saved, need_block, need_nums};

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, String> {
    let run = saved.run("clock_probe").ok_or("no clock_probe output")?;
    let b = need_block(run, "clock_probe", "trap_three_samples")?;
    let rounds = need_nums(b, "round")?;
    let ns = need_nums(b, "ns")?;
    let pts: Vec<(f64, f64)> = rounds
        .iter()
        .zip(&ns)
        .filter_map(|(r, v)| Some(((*r)?, (*v)? / 1000.0)))
        .collect();
    if pts.is_empty() {
        return Err("trap_three_samples is empty".into());
    }
    let s = need_block(run, "clock_probe", "trap_three_summary")?;
    let stat = s
        .texts("stat")
        .ok_or("trap_three_summary has no stat column")?;
    let val = need_nums(s, "ns")?;
    let get = |name: &str| {
        stat.iter()
            .position(|x| x == name)
            .and_then(|i| val[i])
            .map(|v| v / 1000.0)
    };
    let last = pts.last().map_or(0.0, |p| p.0);
    let mut c = LineChart::new(
        &format!(
            "Trap three: {} rounds of the same sum ({})",
            pts.len(),
            saved.label
        ),
        "round (in time order)",
        "time per round (us)",
    );
    c.series
        .push(Series::new("each round", pts, Mark::Points, 0));
    for (name, color) in [("median", 2), ("mean", 1), ("min", 5)] {
        if let Some(v) = get(name) {
            c.series.push(Series::new(
                format!("{name} {v:.2} us"),
                vec![(0.0, v), (last, v)],
                Mark::Line,
                color,
            ));
        }
    }
    Ok(vec![Figure {
        file: "clock_probe-trap3.svg".into(),
        svg: c.render()?,
    }])
}
