//! false_sharing's figures, drawn from the saved raw output alone:
//!
//! - `false_sharing-distance.svg`: two threads' cost per increment by slot distance (median,
//!   fastest and slowest round), the baseline and its perfect split as horizontal lines, a
//!   dashed vertical at the reported line size, rows flagged suspicious marked, and the
//!   appendix's own numbers dashed when saved;
//! - `false_sharing-threads.svg`: one line vs separate lines by thread count, against a
//!   perfect split of the baseline;
//! - `false_sharing-shared.svg`: plain, relaxed atomic and mutex increments by thread count;
//! - `false_sharing-c2c.svg`: the core-to-core one-way latency heatmap (any core count; pairs
//!   not measured are grey).
//!
//! A run that measured nothing (one core) draws nothing; a run without pinning has no heatmap.

use super::chart::{BarChart, Heatmap, LineChart, Mark, Series, Vertical};
use super::{Figure, Saved, appendix_reference, need_block, need_nums};
use measure::data::{Block, DataFile};

const EXP: &str = "false_sharing";

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, String> {
    let run = saved.run(EXP).ok_or("no false_sharing output")?;
    if let Some(why) = run.meta("fs_skipped") {
        // An honest run that could measure nothing between cores: nothing to draw.
        let _ = why;
        return Ok(Vec::new());
    }
    let mut figs = vec![
        distance(saved, run)?,
        threads(saved, run)?,
        shared(saved, run)?,
    ];
    if run.meta("c2c_skipped").is_none() {
        figs.push(c2c(saved, run)?);
    }
    Ok(figs)
}

fn texts(b: &Block, col: &str) -> Result<Vec<String>, String> {
    b.texts(col).ok_or_else(|| {
        format!(
            "block {:?} has no text column {col:?}",
            b.name.as_deref().unwrap_or("")
        )
    })
}

fn pairs(x: &[Option<f64>], y: &[Option<f64>]) -> Vec<(f64, f64)> {
    x.iter()
        .zip(y)
        .filter_map(|(a, b)| Some(((*a)?, (*b)?)))
        .collect()
}

fn distance(saved: &Saved, run: &DataFile) -> Result<Figure, String> {
    let b = need_block(run, EXP, "distance")?;
    let gap = need_nums(b, "distance_bytes")?;
    let med = pairs(&gap, &need_nums(b, "ns_median")?);
    if med.is_empty() {
        return Err("block \"distance\" has no measured rows".into());
    }
    let split = need_nums(b, "split_ns")?.into_iter().flatten().next();
    let base = need_block(run, EXP, "baseline")?;
    let sets = texts(base, "set")?;
    let base_ns = need_nums(base, "ns_median")?;
    let baseline = sets
        .iter()
        .position(|s| s == "distance")
        .and_then(|i| base_ns[i]);
    let suspicious = texts(b, "suspicious")?;
    let (x0, x1) = (med[0].0, med[med.len() - 1].0);
    let mut c = LineChart::new(
        &format!(
            "Two threads, each incrementing its own slot ({})",
            saved.label
        ),
        "distance between the two slots (bytes)",
        "time per increment (ns, log)",
    );
    c.x_log = true;
    c.y_log = true;
    c.series.push(Series::new(
        "2 threads: median of rounds",
        med.clone(),
        Mark::LinePoints,
        0,
    ));
    c.series.push(Series::new(
        "fastest round",
        pairs(&gap, &need_nums(b, "ns_min")?),
        Mark::Points,
        5,
    ));
    c.series.push(Series::new(
        "slowest round",
        pairs(&gap, &need_nums(b, "ns_max")?),
        Mark::Points,
        3,
    ));
    if let Some(v) = baseline {
        c.series.push(Series::new(
            format!("one thread (baseline) {} ns", super::chart::tick(v)),
            vec![(x0, v), (x1, v)],
            Mark::Line,
            6,
        ));
    }
    if let Some(v) = split {
        c.series.push(Series::new(
            format!("perfect split of the baseline {} ns", super::chart::tick(v)),
            vec![(x0, v), (x1, v)],
            Mark::Line,
            2,
        ));
    }
    let flagged: Vec<(f64, f64)> = med
        .iter()
        .zip(&suspicious)
        .filter(|(_, s)| *s == "yes")
        .map(|(p, _)| *p)
        .collect();
    if !flagged.is_empty() {
        c.series.push(Series::new(
            "flagged: better than a perfect split (suspicious)",
            flagged,
            Mark::Points,
            1,
        ));
    }
    if let Some((label, f)) = appendix_reference(saved, EXP)? {
        // The C program's first bare block: distance, ns per increment.
        if let Some(rb) = f.bare_blocks().next() {
            let (Some(rx), Some(ry)) = (rb.nums("c1"), rb.nums("c2")) else {
                return Err(format!("{label}: the bare block needs two numeric columns"));
            };
            c.series
                .push(Series::new(label, pairs(&rx, &ry), Mark::Dashed, 4));
        }
    }
    match run.meta_num("fs_line_bytes") {
        Some(l) => c.verticals.push(Vertical {
            x: l,
            label: format!("line {l} B"),
            color: 6,
        }),
        None => c.title.push_str(" - line size unknown"),
    }
    Ok(Figure {
        file: "false_sharing-distance.svg".into(),
        svg: c.render()?,
    })
}

fn threads(saved: &Saved, run: &DataFile) -> Result<Figure, String> {
    let b = need_block(run, EXP, "threads")?;
    let n = need_nums(b, "threads")?;
    let layout = texts(b, "layout")?;
    let ratio = need_nums(b, "vs_split_median")?;
    let mut counts: Vec<f64> = n.iter().flatten().copied().collect();
    counts.sort_by(f64::total_cmp);
    counts.dedup();
    let get = |k: f64, l: &str| {
        (0..n.len())
            .find(|&i| n[i] == Some(k) && layout[i] == l)
            .and_then(|i| ratio[i])
    };
    let skipped = counts
        .iter()
        .filter(|&&k| get(k, "one_line").is_none())
        .count();
    let mut c = BarChart::new(
        &format!(
            "More threads: one line vs separate lines ({}){}",
            saved.label,
            if skipped > 0 {
                " - missing bars: more threads than cores, skipped"
            } else {
                ""
            }
        ),
        "time vs a perfect split of the baseline (1 = perfect)",
    );
    c.categories = counts.iter().map(|k| format!("{k} threads")).collect();
    c.series = vec![
        (
            "all slots on one line (8 B apart)".into(),
            counts.iter().map(|&k| get(k, "one_line")).collect(),
        ),
        (
            "each slot on its own line".into(),
            counts.iter().map(|&k| get(k, "separate")).collect(),
        ),
    ];
    Ok(Figure {
        file: "false_sharing-threads.svg".into(),
        svg: c.render()?,
    })
}

fn shared(saved: &Saved, run: &DataFile) -> Result<Figure, String> {
    let b = need_block(run, EXP, "shared")?;
    let method = texts(b, "method")?;
    let n = need_nums(b, "threads")?;
    let ns = need_nums(b, "ns_median")?;
    let counts = [1.0, 2.0, 4.0];
    let get = |m: &str, k: f64| {
        (0..n.len())
            .find(|&i| method[i] == m && n[i] == Some(k))
            .and_then(|i| ns[i])
    };
    let skipped = (0..n.len()).any(|i| ns[i].is_none());
    let mut c = BarChart::new(
        &format!(
            "One value, really shared ({}){}",
            saved.label,
            if skipped {
                " - missing bars: skipped or not part of the experiment"
            } else {
                ""
            }
        ),
        "time per increment (ns, log)",
    );
    c.y_log = true;
    c.categories = counts
        .iter()
        .map(|&k| {
            if k == 1.0 {
                "1 thread".to_string()
            } else {
                format!("{k} threads")
            }
        })
        .collect();
    for (label, m) in [
        ("plain volatile increment (baseline)", "plain"),
        ("relaxed atomic increment", "atomic"),
        ("increment under std::sync::Mutex", "mutex"),
    ] {
        c.series
            .push((label.into(), counts.iter().map(|&k| get(m, k)).collect()));
    }
    Ok(Figure {
        file: "false_sharing-shared.svg".into(),
        svg: c.render()?,
    })
}

fn c2c(saved: &Saved, run: &DataFile) -> Result<Figure, String> {
    let b = need_block(run, EXP, "c2c")?;
    let from = need_nums(b, "from")?;
    let to = need_nums(b, "to")?;
    let one_way = need_nums(b, "one_way_median_ns")?;
    // The axis: every core the survey could pair (from #META), else those in the block.
    let mut cores: Vec<usize> = match run.meta("c2c_cores") {
        Some(list) => list
            .split(',')
            .map(|c| c.trim().parse::<usize>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("#META c2c_cores is not a core list: {list:?}"))?,
        None => from
            .iter()
            .chain(&to)
            .flatten()
            .map(|&c| c as usize)
            .collect(),
    };
    cores.sort_unstable();
    cores.dedup();
    if cores.is_empty() {
        return Err("block \"c2c\" names no cores".into());
    }
    let index = |c: Option<f64>| c.and_then(|c| cores.iter().position(|&k| k as f64 == c));
    let n = cores.len();
    let mut values = vec![vec![None; n]; n];
    for i in 0..from.len() {
        if let (Some(r), Some(k)) = (index(from[i]), index(to[i])) {
            values[r][k] = one_way[i];
        }
    }
    let visited = run.meta_num("c2c_pairs_visited");
    let total = run.meta_num("c2c_pairs_total");
    let sampled = match (visited, total) {
        (Some(v), Some(t)) if v < t => format!(", {v} of {t} pairs sampled"),
        _ => String::new(),
    };
    let measured: Vec<f64> = values.iter().flatten().flatten().copied().collect();
    let lo = measured.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = measured.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let range = if measured.is_empty() {
        " - no pair measured".to_string()
    } else {
        // Colour from zero, so that cells differing by a nanosecond look alike.
        format!(
            "; colour 0 (light) to {} ns (dark), min {} ns",
            super::chart::tick(hi),
            super::chart::tick(lo)
        )
    };
    let labels: Vec<String> = cores.iter().map(|c| c.to_string()).collect();
    let side = (160 + 18 * n as u32).clamp(520, 1400);
    let h = Heatmap {
        title: format!("Core-to-core one-way latency, median ns ({})", saved.label),
        x_label: format!("to core (responder){sampled}{range}"),
        y_label: "from core (initiator)".into(),
        x_labels: labels.clone(),
        y_labels: labels,
        values,
        unit: String::new(),
        range: (hi > 0.0).then_some((0.0, hi)),
        size: (side + 160, side),
    };
    Ok(Figure {
        file: "false_sharing-c2c.svg".into(),
        svg: h.render()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;

    fn saved_with(text: &str) -> Saved {
        Saved::from_text(
            EXP,
            text,
            std::env::temp_dir().join("no-such-false-sharing-results"),
        )
    }

    /// A synthetic run with `cores` cores, of which the c2c survey measured `measured` pairs.
    fn synthetic(cores: usize, measured: usize) -> String {
        let mut s = String::from(
            "#META fs_line_bytes 64\n\
             #DATA-BEGIN baseline\n#COLUMNS set:text rounds cores:text ns_median ns_min ns_max\n\
             #DATA distance 5 0 0.25 0.24 0.26\n#DATA-END\n\
             #DATA-BEGIN distance\n#COLUMNS distance_bytes same_line:text ns_median ns_min ns_max split_ns vs_split_median vs_split_min vs_split_max suspicious:text pinned:text cores:text\n",
        );
        for (g, v, sus) in [
            (8, 0.42, "no"),
            (16, 0.41, "no"),
            (32, 0.42, "no"),
            (64, 0.125, "no"),
            (128, 0.11, "yes"),
            (256, 0.125, "no"),
        ] {
            let _ = writeln!(
                s,
                "#DATA {g} {} {v} {v} {v} 0.125 1 1 1 {sus} verified 0,1",
                if g < 64 { "yes" } else { "no" }
            );
        }
        s.push_str(
            "#DATA-END\n#DATA-BEGIN threads\n#COLUMNS threads layout:text distance_bytes lines ns_median ns_min ns_max vs_split_median vs_split_min vs_split_max suspicious:text pinned:text note:text\n\
             #DATA 2 one_line 8 1 0.42 0.41 0.43 3.3 3.2 3.4 no verified measured\n\
             #DATA 2 separate 128 2 0.125 0.12 0.13 1 1 1 no verified measured\n\
             #DATA 4 one_line 8 1 NA NA NA NA NA NA NA NA skipped:needs_4_cores\n\
             #DATA 4 separate 128 4 NA NA NA NA NA NA NA NA skipped:needs_4_cores\n#DATA-END\n\
             #DATA-BEGIN shared\n#COLUMNS method:text threads iters_per_thread ns_median ns_min ns_max vs_baseline vs_one_thread suspicious:text pinned:text note:text\n\
             #DATA plain 1 10 0.25 0.25 0.25 1 NA no verified measured\n\
             #DATA atomic 1 10 5 5 5 20 NA no verified measured\n\
             #DATA atomic 2 10 8 8 8 32 1.6 no verified measured\n\
             #DATA atomic 4 10 NA NA NA NA NA NA NA skipped\n\
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
    fn draws_four_figures_deterministically_for_2_16_and_64_cores() {
        for (cores, measured) in [(2, 1), (16, 120), (64, 300)] {
            let saved = saved_with(&synthetic(cores, measured));
            let a = draw(&saved).unwrap();
            let b = draw(&saved).unwrap();
            let names: Vec<&str> = a.iter().map(|f| f.file.as_str()).collect();
            assert_eq!(
                names,
                vec![
                    "false_sharing-distance.svg",
                    "false_sharing-threads.svg",
                    "false_sharing-shared.svg",
                    "false_sharing-c2c.svg"
                ]
            );
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.svg, y.svg, "{} is not deterministic", x.file);
                assert!(x.svg.starts_with("<svg"));
            }
            let heat = &a[3].svg;
            if measured < cores * (cores - 1) / 2 {
                assert!(heat.contains("pairs sampled"), "{cores} cores");
            }
        }
        let saved = saved_with(&synthetic(2, 1));
        let figs = draw(&saved).unwrap();
        assert!(figs[0].svg.contains("line 64 B"));
        assert!(figs[0].svg.contains("suspicious"));
    }

    #[test]
    fn one_core_run_draws_nothing_and_unpinned_run_has_no_heatmap() {
        let saved = saved_with("#META fs_skipped one core\n");
        assert!(draw(&saved).unwrap().is_empty());
        let text =
            synthetic(2, 1).replace("#META c2c_cores 0,1\n", "#META c2c_skipped unpinned run\n");
        let saved = saved_with(&text);
        let figs = draw(&saved).unwrap();
        assert_eq!(figs.len(), 3);
    }

    #[test]
    fn missing_blocks_are_named() {
        let saved = saved_with("#META fs_line_bytes 64\n");
        let e = draw(&saved).err().unwrap();
        assert!(e.contains("distance"), "{e}");
        let text = synthetic(2, 1);
        let cut = text.find("#META c2c_cores").unwrap();
        let saved = saved_with(&text[..cut]);
        let e = draw(&saved).err().unwrap();
        assert!(e.contains("c2c"), "{e}");
    }
}
