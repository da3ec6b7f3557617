//! The overlay figures: one series per machine on each of the appendix's figures, and on
//! bandwidth by working set.
//!
//! Up to eight machines each get a colour and a legend entry; the appendix's numbers (the
//! book's, or its C programs') are dashed. With more than eight, every machine is a thin grey
//! line, the median over the measured runs is black and the baseline keeps its colour, so that
//! a class of thirty stays readable. The key ratio of each figure is written under it.

use super::effects::{self, Curve, EFFECTS, curve, sig3, stride_curve, tlb_curve};
use super::load::{Kind, Machine};
use super::plot::{
    Axis, BLACK, Chart, GREY, LegendEntry, Line, Rgb, Scale, Units, Vertical, Whisker, clip,
    machine_color,
};
use measure::schema;
use measure::schema::cache_ladder as cl;
use measure::stats::median;

/// A drawn figure.
pub struct Overlay {
    pub file: &'static str,
    pub title: String,
    pub svg: String,
}

/// Every overlay file this module may write (to clear stale ones from an earlier compare).
pub const FILES: &[&str] = &[
    "compare-latency.svg",
    "compare-stride.svg",
    "compare-tlb.svg",
    "compare-branch.svg",
    "compare-fp.svg",
    "compare-false-sharing.svg",
    "compare-c2c.svg",
    "compare-bandwidth.svg",
];

const MANY: usize = 8;
const BASE_COLOR: Rgb = Rgb(0, 114, 178);

/// One machine's series in a figure.
struct Series {
    machine: usize,
    label: String,
    points: Vec<(f64, f64)>,
    /// A second series of the same machine (the index chase beside the pointer chase).
    secondary: bool,
}

struct Spec {
    file: &'static str,
    title: String,
    subtitle: String,
    x: Axis,
    y: Axis,
    /// The effect whose per-machine text is written under the figure.
    effect: Option<&'static str>,
    /// Other lines under the figure.
    notes: Vec<String>,
}

/// Machine `i`'s colour: its own up to eight machines; beyond, the baseline's or grey.
fn color(ms: &[Machine], base: usize, i: usize) -> Rgb {
    if ms.len() <= MANY {
        machine_color(i)
    } else if i == base {
        BASE_COLOR
    } else {
        GREY
    }
}

fn style(ms: &[Machine], base: usize, s: &Series) -> Line {
    let m = &ms[s.machine];
    let dashed = m.kind == Kind::Appendix;
    if ms.len() > MANY {
        Line {
            points: s.points.clone(),
            color: color(ms, base, s.machine),
            width: if s.machine == base { 2.5 } else { 1.0 },
            dashed,
            markers: s.machine == base,
        }
    } else {
        Line {
            points: s.points.clone(),
            color: color(ms, base, s.machine),
            width: if s.secondary { 1.2 } else { 2.0 },
            dashed,
            markers: !s.secondary,
        }
    }
}

/// The median over the measured runs' main series at each x that at least three of them (and
/// at least half) share.
fn median_line(ms: &[Machine], series: &[Series]) -> Vec<(f64, f64)> {
    let runs: Vec<&Series> = series
        .iter()
        .filter(|s| !s.secondary && ms[s.machine].kind == Kind::Run)
        .collect();
    let mut xs: Vec<f64> = runs
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let need = 3.max(runs.len().div_ceil(2));
    xs.into_iter()
        .filter_map(|x| {
            let ys: Vec<f64> = runs
                .iter()
                .filter_map(|s| s.points.iter().find(|p| p.0 == x).map(|p| p.1))
                .collect();
            if ys.len() < need {
                return None;
            }
            Some((x, median(&ys)?))
        })
        .collect()
}

fn effect_note(ms: &[Machine], base: usize, name: &str) -> Option<String> {
    let e = EFFECTS.iter().find(|e| e.name == name)?;
    let cells: Vec<effects::Cell> = ms.iter().map(e.cell).collect();
    if ms.len() > MANY {
        let (shows, measured) = effects::tally(&cells);
        Some(format!(
            "{name}: {shows} of {measured} machines with the numbers show it; the baseline {}: {}.",
            ms[base].label,
            cells[base].render()
        ))
    } else {
        // Every cell with a number (a yes/no or a value); "not measured" ones are left out.
        let parts: Vec<String> = ms
            .iter()
            .zip(&cells)
            .filter(|(_, c)| matches!(c, effects::Cell::Shown { .. }))
            .map(|(m, c)| format!("{} {}", m.label, c.render()))
            .collect();
        (!parts.is_empty()).then(|| format!("{name}: {}.", parts.join("; ")))
    }
}

fn draw(
    ms: &[Machine],
    base: usize,
    spec: Spec,
    series: Vec<Series>,
    verticals: Vec<(Vertical, String)>,
) -> Result<Option<Overlay>, String> {
    if series.iter().all(|s| s.points.is_empty()) {
        return Ok(None);
    }
    let mut c = Chart::new(&spec.title, spec.x, spec.y);
    c.subtitle = spec.subtitle;
    let many = ms.len() > MANY;
    // Draw the grey machines first, the baseline last (on top).
    let mut order: Vec<&Series> = series.iter().filter(|s| !s.points.is_empty()).collect();
    if many {
        order.sort_by_key(|s| s.machine == base);
    }
    for s in &order {
        c.lines.push(style(ms, base, s));
    }
    let with_data: Vec<usize> = {
        let mut v: Vec<usize> = order.iter().map(|s| s.machine).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    if many {
        let med = median_line(ms, &series);
        let runs = with_data
            .iter()
            .filter(|&&i| ms[i].kind == Kind::Run)
            .count();
        if !med.is_empty() {
            let at = c
                .lines
                .len()
                .saturating_sub(order.iter().filter(|s| s.machine == base).count());
            c.lines.insert(
                at,
                Line {
                    points: med,
                    color: BLACK,
                    width: 2.5,
                    dashed: false,
                    markers: false,
                },
            );
        }
        if with_data.contains(&base) {
            c.legend.push(LegendEntry {
                label: format!("{} (baseline)", clip(&ms[base].label, 40)),
                color: BASE_COLOR,
                dashed: ms[base].kind == Kind::Appendix,
                width: 2.5,
                marker: true,
            });
        }
        c.legend.push(LegendEntry {
            label: format!("median over the {runs} measured runs"),
            color: BLACK,
            dashed: false,
            width: 2.5,
            marker: false,
        });
        let others = with_data.iter().filter(|&&i| i != base).count();
        c.legend.push(LegendEntry {
            label: format!("each other machine ({others})"),
            color: GREY,
            dashed: false,
            width: 1.0,
            marker: false,
        });
        if with_data.iter().any(|&i| ms[i].kind == Kind::Appendix) {
            c.legend.push(LegendEntry {
                label: "the appendix's numbers (dashed)".into(),
                color: GREY,
                dashed: true,
                width: 1.0,
                marker: false,
            });
        }
    } else {
        for s in &series {
            if s.points.is_empty() {
                continue;
            }
            let l = style(ms, base, s);
            c.legend.push(LegendEntry {
                label: clip(&s.label, 60),
                color: l.color,
                dashed: l.dashed,
                width: l.width,
                marker: l.markers,
            });
        }
    }
    for (v, label) in verticals {
        c.legend.push(LegendEntry {
            label,
            color: v.color,
            dashed: true,
            width: 1.5,
            marker: false,
        });
        c.verticals.push(v);
    }
    if let Some(e) = spec.effect.and_then(|e| effect_note(ms, base, e)) {
        c.notes.push(e);
    }
    c.notes.extend(spec.notes);
    let missing: Vec<&str> = (0..ms.len())
        .filter(|i| !with_data.contains(i))
        .map(|i| ms[i].label.as_str())
        .collect();
    if !missing.is_empty() {
        c.notes.push(if many {
            format!(
                "{} machine(s) have no numbers for this figure.",
                missing.len()
            )
        } else {
            format!("No numbers for this figure: {}.", missing.join(", "))
        });
    }
    finish(c, spec.file)
}

/// Renders a chart into the overlay `file`.
fn finish(c: Chart, file: &'static str) -> Result<Option<Overlay>, String> {
    let title = c.title.clone();
    let svg = c.render().map_err(|e| format!("{file}: {e}"))?;
    Ok(Some(Overlay { file, title, svg }))
}

fn line_verticals(ms: &[Machine]) -> Vec<(Vertical, String)> {
    let mut sizes: Vec<f64> = ms.iter().filter_map(|m| m.facts.line_bytes).collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    sizes
        .into_iter()
        .map(|l| {
            let n = ms.iter().filter(|m| m.facts.line_bytes == Some(l)).count();
            (
                Vertical {
                    x: l,
                    color: Rgb(68, 68, 68),
                },
                format!(
                    "reported line size: {} B ({n} of {} machines)",
                    sig3(l),
                    ms.len()
                ),
            )
        })
        .collect()
}

fn latency(ms: &[Machine], base: usize, index_chase: bool) -> Result<Option<Overlay>, String> {
    let ladder = |m: &Machine, ys: &[&str]| {
        curve(m, cl::EXPERIMENT, cl::latency::BLOCK, cl::latency::KIB, ys)
    };
    let mut series = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        // The appendix's numbers are its index chase; a run draws its pointer chase.
        let main: &[&str] = match m.kind {
            Kind::Appendix => &[cl::latency::INDEX_NS],
            Kind::Run => &[cl::latency::POINTER_NS, cl::latency::INDEX_NS],
        };
        let Some((col, p)) = ladder(m, main) else {
            continue;
        };
        let chase = if col == cl::latency::POINTER_NS {
            "pointer"
        } else {
            "index"
        };
        series.push(Series {
            machine: i,
            label: format!("{} ({chase} chase)", m.label),
            points: p,
            secondary: false,
        });
        if index_chase
            && col == cl::latency::POINTER_NS
            && let Some((_, q)) = ladder(m, &[cl::latency::INDEX_NS])
        {
            series.push(Series {
                machine: i,
                label: format!("{} (index chase)", m.label),
                points: q,
                secondary: true,
            });
        }
    }
    let mut x = Axis::new("working set (KiB)", Scale::Log2);
    x.units = Units::KiB;
    let spec = Spec {
        file: "compare-latency.svg",
        title: format!(
            "Figure 105.2, {} machines: time per random read by working set",
            ms.len()
        ),
        subtitle: "a dependent chain of loads through a random ring; solid: runs of this project, \
                   dashed: the appendix's numbers"
            .into(),
        x,
        y: Axis::new("ns per read (log)", Scale::Log10),
        effect: Some("L1 to memory (latency ladder)"),
        notes: Vec::new(),
    };
    draw(ms, base, spec, series, cache_verticals(ms, base))
}

/// The baseline's reported cache sizes, as dashed verticals.
fn cache_verticals(ms: &[Machine], base: usize) -> Vec<(Vertical, String)> {
    ms[base]
        .facts
        .cache_kib
        .iter()
        .enumerate()
        .map(|(k, (name, kib))| {
            (
                Vertical {
                    x: *kib,
                    color: [Rgb(68, 68, 68), Rgb(120, 120, 120), Rgb(170, 170, 170)][k % 3],
                },
                format!(
                    "{name} {} reported by {}",
                    crate::figures::chart::kib_label(*kib),
                    clip(&ms[base].label, 30)
                ),
            )
        })
        .collect()
}

/// The rows of bandwidth's `bandwidth` block that the overlay draws: the read kernel in its
/// explicit form (`core::arch` at the widest width the CPU reports).
const BANDWIDTH_OP: &str = "read";
const BANDWIDTH_FORM: &str = "explicit";

fn bandwidth(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    use schema::bandwidth as bw;
    let series = ms
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let f = m.runs.get(bw::EXPERIMENT)?;
            let b = f.block(bw::bandwidth::BLOCK)?;
            let (kib, gbs) = (b.nums(bw::bandwidth::KIB)?, b.nums(bw::bandwidth::GBS)?);
            let (op, form) = (b.texts(bw::bandwidth::OP)?, b.texts(bw::bandwidth::FORM)?);
            let mut points: Vec<(f64, f64)> = (0..kib.len())
                .filter(|&j| op[j] == BANDWIDTH_OP && form[j] == BANDWIDTH_FORM)
                .filter_map(|j| Some((kib[j]?, gbs[j]?)))
                .filter(|(x, y)| x.is_finite() && y.is_finite())
                .collect();
            if points.is_empty() {
                return None;
            }
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let width = f.meta(bw::META_EXPLICIT_WIDTH).unwrap_or("widest width");
            Some(Series {
                machine: i,
                label: format!("{} (read, {width})", m.label),
                points,
                secondary: false,
            })
        })
        .collect();
    let mut x = Axis::new("working set (KiB)", Scale::Log2);
    x.units = Units::KiB;
    let spec = Spec {
        file: "compare-bandwidth.svg",
        title: format!(
            "Bandwidth, {} machines: bytes read per second by working set",
            ms.len()
        ),
        subtitle: "one thread sums a buffer with the widest vector loads the CPU reports; \
                   median over rounds"
            .into(),
        x,
        y: Axis::new("GB/s read (log)", Scale::Log10),
        effect: Some("L1 to memory (bandwidth)"),
        notes: if ms.iter().any(|m| m.kind == Kind::Appendix) {
            vec![
                "The appendix does not measure bandwidth: its folders have no numbers here.".into(),
            ]
        } else {
            Vec::new()
        },
    };
    draw(ms, base, spec, series, cache_verticals(ms, base))
}

/// One series per machine that has the curve `read` gives, labelled with the machine.
fn simple(ms: &[Machine], read: impl Fn(&Machine) -> Curve) -> Vec<Series> {
    ms.iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let (_, p) = read(m)?;
            Some(Series {
                machine: i,
                label: m.label.clone(),
                points: p,
                secondary: false,
            })
        })
        .collect()
}

fn stride(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    let series = simple(ms, stride_curve);
    let mut x = Axis::new("stride (bytes)", Scale::Log2);
    x.units = Units::Bytes;
    let spec = Spec {
        file: "compare-stride.svg",
        title: format!(
            "Figure 105.3, {} machines: cost per access by stride",
            ms.len()
        ),
        subtitle:
            "the appendix's walk: a fixed number of reads over a buffer beyond the last cache"
                .into(),
        x,
        y: Axis::new("ns per access (log)", Scale::Log10),
        effect: Some("line size from stride"),
        notes: Vec::new(),
    };
    draw(ms, base, spec, series, line_verticals(ms))
}

fn tlb(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    let series = simple(ms, tlb_curve);
    let spec = Spec {
        file: "compare-tlb.svg",
        title: format!(
            "Table 105.13, {} machines: one read per page, by page count",
            ms.len()
        ),
        subtitle: "8 bytes read at offset 0 of each page, the pages in a random ring".into(),
        x: Axis::new("pages touched", Scale::Log2),
        y: Axis::new("ns per access (log)", Scale::Log10),
        effect: Some("TLB step"),
        notes: Vec::new(),
    };
    draw(ms, base, spec, series, Vec::new())
}

/// Series over named categories: the row whose `key` text is each category.
fn by_category(
    ms: &[Machine],
    exp: &str,
    block: &str,
    key: &str,
    cats: &[&str],
    col: impl Fn(&Machine) -> (&'static str, String),
) -> Vec<Series> {
    let mut out = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        let Some(b) = m.runs.get(exp).and_then(|f| f.block(block)) else {
            continue;
        };
        let (c, label) = col(m);
        let (Some(names), Some(vals)) = (b.texts(key), b.nums(c)) else {
            continue;
        };
        let points: Vec<(f64, f64)> = cats
            .iter()
            .enumerate()
            .filter_map(|(k, cat)| {
                let j = names.iter().position(|n| n == cat)?;
                Some((k as f64, vals[j]?))
            })
            .collect();
        if !points.is_empty() {
            out.push(Series {
                machine: i,
                label,
                points,
                secondary: false,
            });
        }
    }
    out
}

fn category_axis(title: &str, cats: &[&str]) -> Axis {
    let mut a = Axis::new(title, Scale::Category);
    a.categories = cats.iter().map(|c| c.replace('_', " ")).collect();
    a
}

fn branch(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    let cats = [
        "always_true",
        "alternating",
        "one_in_four",
        "one_in_sixteen",
        "random",
    ];
    let series = by_category(
        ms,
        schema::branch::EXPERIMENT,
        schema::branch::patterns::BLOCK,
        schema::branch::patterns::PATTERN,
        &cats,
        |m| (schema::branch::patterns::MEDIAN_NS, m.label.clone()),
    );
    let spec = Spec {
        file: "compare-branch.svg",
        title: format!(
            "Table 105.16, {} machines: the real branch by pattern",
            ms.len()
        ),
        subtitle: "the same number of taken branches, only the pattern changes".into(),
        x: category_axis("pattern of the condition", &cats),
        y: Axis::new("ns per element (log)", Scale::Log10),
        effect: Some("misprediction cost"),
        notes: Vec::new(),
    };
    draw(ms, base, spec, series, Vec::new())
}

fn fp(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    let cats = ["multiply", "add", "divide", "sqrt", "sin"];
    let series = by_category(
        ms,
        schema::fp_cost::EXPERIMENT,
        schema::fp_cost::ops::BLOCK,
        schema::fp_cost::ops::OP,
        &cats,
        |m| match m.kind {
            Kind::Run => (
                schema::fp_cost::ops::THROUGHPUT_NS,
                format!("{} (independent operations)", m.label),
            ),
            Kind::Appendix => (
                schema::fp_cost::APPENDIX_LOOP_NS,
                format!("{} (a[i] op b[i], 4 accumulators)", m.label),
            ),
        },
    );
    // The key ratio: divide against multiply, on each machine's own series.
    let ratio = |s: &Series, k: f64| {
        let at = |x: f64| s.points.iter().find(|p| p.0 == x).map(|p| p.1);
        Some(at(k)? / at(0.0).filter(|v| *v > 0.0)?)
    };
    let shown: Vec<String> = series
        .iter()
        .filter(|s| ms.len() <= MANY || s.machine == base)
        .filter_map(|s| Some(format!("{} {}x", ms[s.machine].label, sig3(ratio(s, 2.0)?))))
        .collect();
    let notes = if shown.is_empty() {
        Vec::new()
    } else {
        vec![format!("divide over multiply: {}.", shown.join("; "))]
    };
    let spec = Spec {
        file: "compare-fp.svg",
        title: format!("Table 105.24, {} machines: the cost of each operation (double)", ms.len()),
        subtitle: "runs: independent operations in registers; the appendix: its loop over two arrays in L1".into(),
        x: category_axis("operation", &cats),
        y: Axis::new("ns per operation (log)", Scale::Log10),
        effect: None,
        notes,
    };
    draw(ms, base, spec, series, Vec::new())
}

fn false_sharing(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    let series = simple(ms, |m| {
        curve(
            m,
            schema::false_sharing::EXPERIMENT,
            schema::false_sharing::distance::BLOCK,
            schema::false_sharing::distance::DISTANCE_BYTES,
            &[schema::false_sharing::distance::VS_SPLIT_MEDIAN],
        )
    });
    let mut x = Axis::new(
        "distance between the two threads' slots (bytes)",
        Scale::Log2,
    );
    x.units = Units::Bytes;
    let spec = Spec {
        file: "compare-false-sharing.svg",
        title: format!(
            "Table 105.19, {} machines: false sharing by distance",
            ms.len()
        ),
        subtitle: "two threads, each incrementing its own slot; 1 is a perfect split of the work"
            .into(),
        x,
        y: Axis::new("time against a perfect split (x, log)", Scale::Log10),
        effect: Some("false sharing"),
        notes: Vec::new(),
    };
    draw(ms, base, spec, series, line_verticals(ms))
}

fn c2c(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    // Each machine: the median over its core pairs of the one-way latency, and their range.
    let mut rows: Vec<(usize, f64, f64, f64, usize)> = Vec::new();
    for (i, m) in ms.iter().enumerate() {
        let Some(v) = m
            .runs
            .get(schema::false_sharing::EXPERIMENT)
            .and_then(|f| f.block(schema::false_sharing::c2c::BLOCK))
            .and_then(|b| b.nums(schema::false_sharing::c2c::ONE_WAY_MEDIAN_NS))
        else {
            continue;
        };
        let mut v: Vec<f64> = v
            .into_iter()
            .flatten()
            .filter(|x| *x > 0.0 && x.is_finite())
            .collect();
        if v.is_empty() {
            continue;
        }
        let Some(med) = median(&v) else {
            continue;
        };
        v.sort_by(f64::total_cmp);
        let n = v.len();
        rows.push((i, med, v[0], v[n - 1], n));
    }
    if rows.is_empty() {
        return Ok(None);
    }
    let many = ms.len() > MANY;
    let k = rows.len();
    // Top to bottom in the order given.
    let mut y = Axis::new("", Scale::Category);
    y.categories = rows
        .iter()
        .rev()
        .map(|r| clip(&ms[r.0].label, 36))
        .collect();
    let mut c = Chart::new(
        &format!(
            "Core-to-core latency, {k} machine{}: one way, median over core pairs",
            if k == 1 { "" } else { "s" }
        ),
        Axis::new("ns one way (log)", Scale::Log10),
        y,
    );
    c.subtitle =
        "a compare-and-swap ping-pong between two pinned threads; bars: the range over core pairs"
            .into();
    c.plot_height = (28.0 * k as f64 + 30.0).max(110.0);
    for (pos, &(i, med, lo, hi, _)) in rows.iter().enumerate() {
        let yv = (k - 1 - pos) as f64;
        let color = color(ms, base, i);
        c.whiskers.push(Whisker {
            y: yv,
            lo,
            hi,
            color,
        });
        c.lines.push(Line {
            points: vec![(med, yv)],
            color,
            width: 3.0,
            dashed: false,
            markers: true,
        });
    }
    let meds: Vec<f64> = rows.iter().map(|r| r.1).collect();
    let n = meds.len();
    if many
        && n >= 3
        && let Some(m) = median(&meds)
    {
        c.verticals.push(Vertical { x: m, color: BLACK });
        c.legend.push(LegendEntry {
            label: format!("median over the {n} machines: {} ns", sig3(m)),
            color: BLACK,
            dashed: true,
            width: 1.5,
            marker: false,
        });
    }
    c.notes.push(
        rows.iter()
            .filter(|r| !many || r.0 == base)
            .map(|r| {
                format!(
                    "{}: {} ns ({}..{} over {} pairs)",
                    ms[r.0].label,
                    sig3(r.1),
                    sig3(r.2),
                    sig3(r.3),
                    r.4
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
            + ".",
    );
    let missing = ms.len() - k;
    if missing > 0 {
        c.notes.push(format!(
            "{missing} machine(s) have no core-to-core numbers (the appendix does not measure them)."
        ));
    }
    finish(c, "compare-c2c.svg")
}

/// Every overlay figure that has data. An error is a bug in drawing, not bad input.
pub fn draw_all(ms: &[Machine], base: usize, index_chase: bool) -> Result<Vec<Overlay>, String> {
    let figs = [
        latency(ms, base, index_chase)?,
        stride(ms, base)?,
        tlb(ms, base)?,
        branch(ms, base)?,
        fp(ms, base)?,
        false_sharing(ms, base)?,
        c2c(ms, base)?,
        bandwidth(ms, base)?,
    ];
    Ok(figs.into_iter().flatten().collect())
}
