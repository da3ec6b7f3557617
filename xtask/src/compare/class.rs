//! `compare.md` at class scale: beyond [`COLUMNS`] machines, machines are rows, every key
//! figure is summarised over the class (median, lowest, highest, the baseline), and the
//! machines far from the class median are named, the farthest first.

use super::clip;
use super::effects::{EFFECTS, sig3, tally};
use super::keyfig;
use super::load::Machine;
use measure::stats::{far_from_median, median};
use std::fmt::Write as _;

/// The most machines shown as columns; beyond, machines are rows.
pub const COLUMNS: usize = 6;
/// How far from the class median an outlier is, in median absolute deviations.
const MADS: f64 = super::figures::OUTLIER_MADS;

/// One key figure over the class: every machine's value, by machine index.
struct Spread {
    exp: &'static str,
    name: String,
    unit: String,
    values: Vec<(usize, f64)>,
}

fn spreads(ms: &[Machine], base: usize) -> Vec<Spread> {
    let mut out: Vec<Spread> = Vec::new();
    let mut order = vec![base];
    order.extend((0..ms.len()).filter(|&i| i != base));
    for exp in crate::experiments::NAMES.iter() {
        for &i in &order {
            for k in keyfig::of(&ms[i], exp) {
                let Some(v) = k.value.filter(|v| v.is_finite()) else {
                    continue;
                };
                match out.iter_mut().find(|s| s.exp == *exp && s.name == k.name) {
                    Some(s) => s.values.push((i, v)),
                    None => out.push(Spread {
                        exp,
                        name: k.name.clone(),
                        unit: k.unit.clone(),
                        values: vec![(i, v)],
                    }),
                }
            }
        }
    }
    out
}

/// The machines of `s` beyond [`MADS`] deviations, with their distance in deviations.
fn outliers(s: &Spread) -> Vec<(usize, f64)> {
    let v: Vec<f64> = s.values.iter().map(|x| x.1).collect();
    let (Some(m), true) = (median(&v), v.len() >= 5) else {
        return Vec::new();
    };
    let dev: Vec<f64> = v.iter().map(|x| (x - m).abs()).collect();
    let mad = median(&dev).unwrap_or(0.0);
    far_from_median(&v, MADS)
        .into_iter()
        .map(|i| {
            let d = if mad > 0.0 {
                dev[i] / mad
            } else {
                f64::INFINITY
            };
            (s.values[i].0, d)
        })
        .collect()
}

fn row(out: &mut String, cells: &[String]) {
    let c: Vec<String> = cells.iter().map(|c| c.replace('|', "\\|")).collect();
    let _ = writeln!(out, "| {} |", c.join(" | "));
}

fn header(out: &mut String, names: &[&str], right_from: usize) {
    row(
        out,
        &names.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    );
    let sep: Vec<&str> = (0..names.len())
        .map(|i| if i >= right_from { "---:" } else { "---" })
        .collect();
    let _ = writeln!(out, "|{}|", sep.join("|"));
}

/// The outliers, the farthest first: one row per machine and key figure.
pub fn outlier_section(s: &mut String, ms: &[Machine], base: usize) {
    let _ = writeln!(s, "## Outliers\n");
    let mut found: Vec<(f64, usize, &Spread)> = Vec::new();
    let all = spreads(ms, base);
    for sp in &all {
        for (i, d) in outliers(sp) {
            found.push((d, i, sp));
        }
    }
    if found.is_empty() {
        let _ = writeln!(
            s,
            "No machine's key figure lies beyond {} median absolute deviations from the class \
             median.\n",
            sig3(MADS)
        );
        return;
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut names: Vec<&str> = found.iter().map(|f| ms[f.1].label.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let _ = writeln!(
        s,
        "Key figures beyond {} median absolute deviations (MADs) from the class median, the \
         farthest first: {} machine(s), {}. Their lines are drawn in colour, with their names, \
         on the figures.\n",
        sig3(MADS),
        names.len(),
        clip(&names.join(", "), 300)
    );
    header(
        s,
        &["machine", "key figure", "value", "class median", "MADs"],
        2,
    );
    for (d, i, sp) in found.iter().take(60) {
        let v: Vec<f64> = sp.values.iter().map(|x| x.1).collect();
        let med = median(&v).map(sig3).unwrap_or_default();
        let value = sp.values.iter().find(|x| x.0 == *i).map(|x| x.1);
        row(
            s,
            &[
                clip(&ms[*i].label, 30),
                format!("{}.{}", sp.exp, clip(&sp.name, 40)),
                format!("{} {}", value.map(sig3).unwrap_or_default(), sp.unit),
                format!("{med} {}", sp.unit),
                if d.is_finite() {
                    sig3(*d)
                } else {
                    "all others equal".into()
                },
            ],
        );
    }
    if found.len() > 60 {
        let _ = writeln!(s, "\n{} more in the key figures below.", found.len() - 60);
    }
    s.push('\n');
}

/// The machines, one row each (the baseline first).
pub fn machines(
    s: &mut String,
    ms: &[Machine],
    base: usize,
    run: &dyn Fn(&str, &Machine) -> String,
) {
    header(
        s,
        &[
            "machine", "CPU", "cores", "L1d", "L2", "L3", "date", "commit", "load",
        ],
        99,
    );
    let mut order = vec![base];
    order.extend((0..ms.len()).filter(|&i| i != base));
    for i in order {
        let m = &ms[i];
        let f = &m.facts;
        row(
            s,
            &[
                clip(&m.label, 28),
                clip(&f.cpu, 28),
                clip(&f.cores, 6),
                clip(&f.l1d, 14),
                clip(&f.l2, 14),
                clip(&f.l3, 14),
                clip(&run(&f.date, m), 20),
                clip(&run(&f.commit, m), 10),
                clip(&run(&f.load, m), 8),
            ],
        );
    }
    s.push('\n');
}

/// The headline effects, one column each: `(experiment, key figure, column heading)`.
const HEADLINES: &[(&str, &str, &str)] = {
    use ::branch::schema as br;
    use ::cache_ladder::schema as cl;
    use ::false_sharing::schema as fs;
    use ::fp_cost::schema as fp;
    &[
        (cl::EXPERIMENT, cl::key::LADDER_FACTOR, "memory / L1"),
        (cl::EXPERIMENT, cl::key::FIRST_INDEX_NS, "L1 ns"),
        (cl::EXPERIMENT, cl::key::LARGEST_INDEX_NS, "memory ns"),
        (br::EXPERIMENT, br::key::MISPREDICT, "miss ns"),
        (
            fs::EXPERIMENT,
            fs::key::SAME_LINE_VS_APART_2T,
            "false sharing",
        ),
        (
            fp::EXPERIMENT,
            fp::key::PER_ELEMENT_DIV_OVER_MUL,
            "div / mul",
        ),
    ]
};

/// The machines as rows, the headline effects as columns, sorted by the first effect (the
/// largest first; a machine without it last); a value beyond [`MADS`] from the class median
/// carries `!`, so the odd student stands out in the column where they are odd.
pub fn by_effect(s: &mut String, ms: &[Machine], base: usize) {
    let all = spreads(ms, base);
    let column = |exp: &str, name: &str| all.iter().find(|x| x.exp == exp && x.name == name);
    let cols: Vec<Option<&Spread>> = HEADLINES.iter().map(|h| column(h.0, h.1)).collect();
    let odd: Vec<Vec<usize>> = cols
        .iter()
        .map(|c| {
            c.map(|sp| outliers(sp).into_iter().map(|o| o.0).collect())
                .unwrap_or_default()
        })
        .collect();
    let value = |c: usize, i: usize| {
        cols[c]
            .and_then(|sp| sp.values.iter().find(|x| x.0 == i))
            .map(|x| x.1)
    };
    let mut order: Vec<usize> = (0..ms.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (value(0, a), value(0, b));
        y.unwrap_or(f64::NEG_INFINITY)
            .total_cmp(&x.unwrap_or(f64::NEG_INFINITY))
            .then(a.cmp(&b))
    });
    let mut names = vec!["machine"];
    names.extend(HEADLINES.iter().map(|h| h.2));
    header(s, &names, 1);
    for i in order {
        let mut cells = vec![if i == base {
            format!("{} (baseline)", clip(&ms[i].label, 28))
        } else {
            clip(&ms[i].label, 40)
        }];
        cells.extend((0..HEADLINES.len()).map(|c| match value(c, i) {
            Some(v) if odd[c].contains(&i) => format!("! {}", sig3(v)),
            Some(v) => sig3(v),
            None => "-".to_string(),
        }));
        row(s, &cells);
    }
    s.push('\n');
}

/// The effects over the class: how many machines show each, and the baseline's cell.
pub fn effects(s: &mut String, ms: &[Machine], base: usize) {
    header(s, &["effect", "shows it", "the baseline"], 99);
    for e in EFFECTS {
        let cells: Vec<_> = ms.iter().map(|m| (e.cell)(m)).collect();
        let (yes, with) = tally(&cells);
        let shows = if with > 0 {
            format!("{yes} of {with}")
        } else {
            "-".into()
        };
        row(
            s,
            &[e.name.to_string(), shows, clip(&cells[base].render(), 90)],
        );
    }
    s.push('\n');
}

/// Each experiment's key figures over the class.
pub fn key_figures(s: &mut String, ms: &[Machine], base: usize) {
    let all = spreads(ms, base);
    for exp in crate::experiments::NAMES.iter() {
        let mine: Vec<&Spread> = all.iter().filter(|x| x.exp == *exp).collect();
        if mine.is_empty() {
            continue;
        }
        let _ = writeln!(s, "### {exp}\n");
        header(
            s,
            &[
                "figure", "unit", "machines", "median", "lowest", "highest", "baseline", "outliers",
            ],
            2,
        );
        for sp in mine {
            let v: Vec<f64> = sp.values.iter().map(|x| x.1).collect();
            let lo = sp.values.iter().min_by(|a, b| a.1.total_cmp(&b.1));
            let hi = sp.values.iter().max_by(|a, b| a.1.total_cmp(&b.1));
            let at = |x: Option<&(usize, f64)>| {
                x.map(|&(i, v)| format!("{} ({})", sig3(v), clip(&ms[i].label, 16)))
                    .unwrap_or_default()
            };
            let b = sp.values.iter().find(|x| x.0 == base).map(|x| sig3(x.1));
            let odd: Vec<String> = outliers(sp)
                .iter()
                .map(|(i, _)| clip(&ms[*i].label, 16))
                .collect();
            let odd = match odd.len() {
                0 => "-".to_string(),
                1..=2 => odd.join(", "),
                n => format!("{}, {} and {} more", odd[0], odd[1], n - 2),
            };
            row(
                s,
                &[
                    clip(&sp.name, 32),
                    clip(&sp.unit, 8),
                    v.len().to_string(),
                    median(&v).map(sig3).unwrap_or_default(),
                    at(lo),
                    at(hi),
                    b.unwrap_or_else(|| "-".into()),
                    odd,
                ],
            );
        }
        s.push('\n');
    }
}
