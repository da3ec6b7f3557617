//! The overlay figures: one series per machine on each of the appendix's figures, and on
//! bandwidth by working set.
//!
//! Up to eight machines each get a colour and a legend entry; the appendix's numbers (the
//! book's, or its C programs') are dashed. With more than eight, every machine is a thin grey
//! line, the median over the measured runs is black and short-dashed above the baseline (which
//! keeps its colour), and the runs far from the median are coloured and named, so that a class
//! of thirty stays readable. The key ratio of each figure is written under it.
//!
//! Drawn with the single-run figures' charts ([`crate::figures::chart`]): the same axes
//! (every decade labelled, power-of-two sizes as 4K 64K 1M), the legend below the plot, the
//! same palette.

use super::clip;
use super::effects::{self, Curve, EFFECTS, curve, sig3, stride_curve, tlb_curve};
use super::load::{Kind, Machine};
use crate::figures::chart::Rgb;
use crate::figures::chart::{
    AxisSpec, BLACK_C, Dash, LineChart, Marker, PALETTE, Pt, Scale, Series as Drawn, Style, Units,
    Vertical, VerticalKind, kib_label,
};
use ::cache_ladder::schema as cl;
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
const BASE_COLOR: Rgb = PALETTE[0];
/// The other machines' lines when there are many: light, so that the median and the
/// baseline read above them.
const MANY_GREY: Rgb = Rgb(170, 170, 170);

/// Colours for up to eight machines, colour-blind safe: the single-run figures' palette
/// without its yellow (too pale on white), black last.
fn machine_color(i: usize) -> Rgb {
    const ORDER: [usize; 8] = [0, 1, 2, 3, 4, 5, 8, 6];
    PALETTE[ORDER[i % ORDER.len()]]
}

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
    x: AxisSpec,
    y: AxisSpec,
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
        MANY_GREY
    }
}

/// The appendix's numbers are dashed, everywhere.
fn dash(m: &Machine) -> Dash {
    if m.kind == Kind::Appendix {
        Dash::Long
    } else {
        Dash::Solid
    }
}

/// How a machine's series is drawn (as a chart series) and named in the legend. With many
/// machines the others share one grey legend entry (the legend names an entry once);
/// `others` is how many runs other than the baseline have numbers in this figure: the lines
/// drawn in that entry's style (the appendix's folders have their own, dashed).
fn style(ms: &[Machine], base: usize, others: usize, s: &Series) -> Drawn {
    let m = &ms[s.machine];
    let appendix = m.kind == Kind::Appendix;
    let color = color(ms, base, s.machine);
    let (label, style) = if ms.len() > MANY && s.machine != base {
        let label = if appendix {
            "the appendix's numbers (dashed)".to_string()
        } else {
            format!("each other machine ({others})")
        };
        let style = Style {
            color,
            line: Some(dash(m)),
            width: 1,
            marker: None,
            size: 3,
        };
        (label, style)
    } else {
        let label = if ms.len() > MANY {
            format!("{} (baseline)", clip(&s.label, 40))
        } else {
            clip(&s.label, 60)
        };
        let marker = if appendix { Marker::Cross } else { Marker::Dot };
        let style = Style {
            color,
            line: Some(dash(m)),
            width: if ms.len() > MANY {
                3
            } else if s.secondary {
                1
            } else {
                2
            },
            marker: (!s.secondary).then_some(marker),
            size: if appendix { 4 } else { 3 },
        };
        (label, style)
    };
    let points = s.points.iter().map(|&(x, y)| Pt::new(x, y)).collect();
    Drawn::new(label, points, style)
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

/// The smallest ratio between neighbouring x values above 1 (infinite with fewer than two).
fn finest_step(points: &[Pt]) -> f64 {
    points
        .windows(2)
        .map(|w| w[1].x / w[0].x)
        .filter(|r| *r > 1.0 && r.is_finite())
        .fold(f64::INFINITY, f64::min)
}

/// A series cut where its x steps by more than one and a half times the figure's finest step
/// (on a log axis: a size it skipped), each piece under the same legend entry.
fn split_at_gaps(d: Drawn, step: f64) -> Vec<Drawn> {
    let ratio = |w: &[Pt]| w[1].x / w[0].x;
    if d.style.line.is_none() || !step.is_finite() {
        return vec![d];
    }
    let mut pieces: Vec<Vec<Pt>> = vec![Vec::new()];
    for (k, p) in d.points.iter().enumerate() {
        if k > 0 && ratio(&d.points[k - 1..=k]) > 1.5 * step {
            pieces.push(Vec::new());
        }
        if let Some(last) = pieces.last_mut() {
            last.push(*p);
        }
    }
    pieces
        .into_iter()
        .map(|pts| Drawn::new(d.label.clone(), pts, d.style))
        .collect()
}

/// How far from the class median an outlier is: in median absolute deviations.
pub const OUTLIER_MADS: f64 = 3.0;
/// The outliers' colours: the palette's without the baseline's blue, its yellow and black.
const OUTLIER_COLORS: [Rgb; 6] = [
    PALETTE[1], PALETTE[2], PALETTE[3], PALETTE[4], PALETTE[5], PALETTE[8],
];

/// The measured runs whose main series lies far from the median line: each run's typical
/// distance (the median over shared x of log(y / median)) beyond [`OUTLIER_MADS`] median
/// absolute deviations of the runs' distances.
fn far_series(ms: &[Machine], series: &[Series], med: &[(f64, f64)]) -> Vec<usize> {
    let runs: Vec<(usize, f64)> = series
        .iter()
        .filter(|s| !s.secondary && ms[s.machine].kind == Kind::Run)
        .filter_map(|s| {
            let d: Vec<f64> = s
                .points
                .iter()
                .filter_map(|p| {
                    let m = med.iter().find(|q| q.0 == p.0)?.1;
                    (m > 0.0 && p.1 > 0.0).then(|| (p.1 / m).ln())
                })
                .collect();
            Some((s.machine, median(&d)?))
        })
        .collect();
    let d: Vec<f64> = runs.iter().map(|r| r.1).collect();
    measure::stats::far_from_median(&d, OUTLIER_MADS)
        .into_iter()
        .map(|i| runs[i].0)
        .collect()
}

/// An outlier's series: a colour of its own (by its `rank` among the figure's outliers),
/// named in the legend.
fn outlier_style(ms: &[Machine], base: usize, rank: usize, s: &Series) -> Drawn {
    let note = if s.machine == base {
        "baseline, outlier"
    } else {
        "outlier"
    };
    let style = Style {
        color: OUTLIER_COLORS[rank % OUTLIER_COLORS.len()],
        line: Some(dash(&ms[s.machine])),
        width: if s.secondary { 1 } else { 2 },
        marker: (!s.secondary).then_some(Marker::Dot),
        size: 3,
    };
    let points = s.points.iter().map(|&(x, y)| Pt::new(x, y)).collect();
    Drawn::new(
        format!(
            "{} ({note}, over 3 MADs from the median)",
            clip(&s.label, 40)
        ),
        points,
        style,
    )
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

/// Points of `series` that cannot go on these axes (zero, negative or not finite on a log
/// axis).
fn undrawable(x: &AxisSpec, y: &AxisSpec, series: &[Drawn]) -> usize {
    series
        .iter()
        .flat_map(|s| &s.points)
        .filter(|p| !(x.drawable(p.x) && y.drawable(p.y)))
        .count()
}

fn dropped_note(n: usize) -> Option<String> {
    (n > 0).then(|| format!("{n} value(s) not drawn: zero, negative or not finite on a log axis."))
}

fn draw(
    ms: &[Machine],
    base: usize,
    spec: Spec,
    series: Vec<Series>,
    verticals: Vec<Vertical>,
) -> Result<Option<Overlay>, String> {
    if series.iter().all(|s| s.points.is_empty()) {
        return Ok(None);
    }
    let mut c = LineChart::new(&spec.title, spec.x, spec.y);
    c.subtitle = spec.subtitle;
    c.plot_height = 400;
    let many = ms.len() > MANY;
    // Draw the grey machines first, the baseline last (on top).
    let mut order: Vec<&Series> = series.iter().filter(|s| !s.points.is_empty()).collect();
    if many {
        order.sort_by_key(|s| s.machine == base);
    }
    let with_data: Vec<usize> = {
        let mut v: Vec<usize> = order.iter().map(|s| s.machine).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    c.series = drawn_series(ms, base, &series, &order, &with_data);
    if c.x.scale != Scale::Linear {
        break_at_gaps(&mut c);
    }
    if c.x.is_category() {
        as_dots(&mut c);
    }
    c.verticals = verticals;
    let dropped = undrawable(&c.x, &c.y, &c.series);
    if let Some(e) = spec.effect.and_then(|e| effect_note(ms, base, e)) {
        c.footer.push(e);
    }
    c.footer.extend(spec.notes);
    c.footer.extend(missing_note(ms, &with_data));
    c.footer.extend(dropped_note(dropped));
    finish(&c, spec.file)
}

/// The drawn series in drawing order: the machines near the median, then the median itself
/// (beyond eight machines), then the machines far from it, coloured and on top.
fn drawn_series(
    ms: &[Machine],
    base: usize,
    series: &[Series],
    order: &[&Series],
    with_data: &[usize],
) -> Vec<Drawn> {
    let others = with_data
        .iter()
        .filter(|&&i| i != base && ms[i].kind == Kind::Run)
        .count();
    let med = if ms.len() > MANY {
        median_line(ms, series)
    } else {
        Vec::new()
    };
    let odd = far_series(ms, series, &med);
    let mut out: Vec<Drawn> = order
        .iter()
        .filter(|s| !odd.contains(&s.machine))
        .map(|s| style(ms, base, others, s))
        .collect();
    if !med.is_empty() {
        let runs = with_data
            .iter()
            .filter(|&&i| ms[i].kind == Kind::Run)
            .count();
        out.push(median_drawn(runs, &med));
    }
    for s in order.iter().filter(|s| odd.contains(&s.machine)) {
        let rank = odd.iter().position(|&i| i == s.machine).unwrap_or(0);
        out.push(outlier_style(ms, base, rank, s));
    }
    out
}

/// The median over the measured runs: above the baseline, short-dashed and thinner, so that
/// where the two coincide, both show.
fn median_drawn(runs: usize, med: &[(f64, f64)]) -> Drawn {
    Drawn::new(
        format!("median over the {runs} measured runs (short dashes)"),
        med.iter().map(|&(x, y)| Pt::new(x, y)).collect(),
        Style {
            color: BLACK_C,
            line: Some(Dash::Short),
            width: 2,
            marker: None,
            size: 3,
        },
    )
}

/// Gaps are gaps: a line is not drawn across sizes a machine never measured.
fn break_at_gaps(c: &mut LineChart) {
    let step = c
        .series
        .iter()
        .map(|d| finest_step(&d.points))
        .fold(f64::INFINITY, f64::min);
    c.series = std::mem::take(&mut c.series)
        .into_iter()
        .flat_map(|d| split_at_gaps(d, step))
        .collect();
}

/// Categories are not a sequence: dots, never lines joining them. The median a cross, so
/// that the baseline's dot shows under it.
fn as_dots(c: &mut LineChart) {
    for d in &mut c.series {
        d.style.line = None;
        if let Some(l) = d.label.strip_suffix(" (short dashes)") {
            d.label = format!("{l} (crosses)");
            d.style.marker = Some(Marker::Cross);
            d.style.size = 5;
        } else if d.style.marker.is_none() {
            d.label = d.label.replace(" (dashed)", "");
            d.style.marker = Some(Marker::Dot);
            d.style.size = 2;
        }
    }
}

/// The line naming (or, beyond eight machines, counting) the machines with no numbers for
/// a figure, if any.
fn missing_note(ms: &[Machine], with_data: &[usize]) -> Option<String> {
    let missing: Vec<&str> = (0..ms.len())
        .filter(|i| !with_data.contains(i))
        .map(|i| ms[i].label.as_str())
        .collect();
    if missing.is_empty() {
        None
    } else if ms.len() > MANY {
        Some(format!(
            "{} machine(s) have no numbers for this figure.",
            missing.len()
        ))
    } else {
        Some(format!(
            "No numbers for this figure: {}.",
            missing.join(", ")
        ))
    }
}

/// Renders a chart into the overlay `file`; a chart with no value that can be drawn (every
/// one zero or negative on a log axis) is left out.
fn finish(c: &LineChart, file: &'static str) -> Result<Option<Overlay>, String> {
    let drawable = c
        .series
        .iter()
        .flat_map(|s| &s.points)
        .any(|p| c.x.drawable(p.x) && c.y.drawable(p.y));
    if !drawable {
        return Ok(None);
    }
    let (svg, _) = c.render().map_err(|e| format!("{file}: {e}"))?;
    Ok(Some(Overlay {
        file,
        title: c.title.clone(),
        svg,
    }))
}

/// The line sizes the machines report, as verticals labelled with how many report each.
fn line_verticals(ms: &[Machine]) -> Vec<Vertical> {
    let mut sizes: Vec<f64> = ms.iter().filter_map(|m| m.facts.line_bytes).collect();
    sizes.sort_by(f64::total_cmp);
    sizes.dedup();
    sizes
        .into_iter()
        .map(|l| {
            let n = ms.iter().filter(|m| m.facts.line_bytes == Some(l)).count();
            Vertical {
                x: l,
                label: format!("{} B line ({n} of {})", sig3(l), ms.len()),
                kind: VerticalKind::Reported,
                legend: "the line size the machines report".into(),
            }
        })
        .collect()
}

fn latency(ms: &[Machine], base: usize, pointer_chase: bool) -> Result<Option<Overlay>, String> {
    let ladder = |m: &Machine, ys: &[&str]| {
        curve(m, cl::EXPERIMENT, cl::latency::BLOCK, cl::latency::KIB, ys)
    };
    // Like with like: every machine's index chase (the appendix's method, and the one the
    // effect under the figure reads); a run with only a pointer chase is left out and counted.
    let mut series = Vec::new();
    let mut pointer_only = 0;
    for (i, m) in ms.iter().enumerate() {
        match ladder(m, &[cl::latency::INDEX_NS]) {
            Some((_, p)) => series.push(Series {
                machine: i,
                label: format!("{} (index chase)", m.label),
                points: p,
                secondary: false,
            }),
            None if ladder(m, &[cl::latency::POINTER_NS]).is_some() => pointer_only += 1,
            None => {}
        }
        if pointer_chase
            && m.kind == Kind::Run
            && let Some((_, q)) = ladder(m, &[cl::latency::POINTER_NS])
        {
            series.push(Series {
                machine: i,
                label: format!("{} (pointer chase, thin)", m.label),
                points: q,
                secondary: true,
            });
        }
    }
    let mut notes = Vec::new();
    if pointer_only > 0 {
        notes.push(format!(
            "{pointer_only} run(s) with only a pointer chase are not drawn: another method."
        ));
    }
    let x = AxisSpec::log2("working set (bytes)", Units::KiB);
    let spec = Spec {
        file: "compare-latency.svg",
        title: format!(
            "Figure 105.2, {} machines: time per random read by working set",
            ms.len()
        ),
        subtitle: "the index chase (the appendix's method) on every machine: dependent reads \
                   through a random ring; solid: runs of this project, dashed: the appendix's"
            .into(),
        x,
        y: AxisSpec::log10("ns per read (log)"),
        effect: Some("L1 to memory (latency ladder)"),
        notes,
    };
    let mut spec = spec;
    spec.notes.extend(cache_note(ms));
    draw(ms, base, spec, series, cache_verticals(ms))
}

/// The reported cache sizes, as verticals, where every machine that reports them reports the
/// same (each machine's, or none: one machine's lines would mislead about the others).
fn cache_verticals(ms: &[Machine]) -> Vec<Vertical> {
    let with: Vec<&Machine> = ms
        .iter()
        .filter(|m| !m.facts.cache_kib.is_empty())
        .collect();
    let Some(first) = with.first() else {
        return Vec::new();
    };
    if with
        .iter()
        .any(|m| m.facts.cache_kib != first.facts.cache_kib)
    {
        return Vec::new();
    }
    let whose = if with.len() == 1 {
        clip(&first.label, 40)
    } else {
        format!("all {} machines that report them", with.len())
    };
    first
        .facts
        .cache_kib
        .iter()
        .map(|(name, kib)| Vertical {
            x: *kib,
            label: format!("{name} {}", kib_label(*kib)),
            kind: VerticalKind::Reported,
            legend: format!("cache sizes reported by {whose}"),
        })
        .collect()
}

/// Said under a figure when the machines' cache sizes differ (and so are not drawn).
fn cache_note(ms: &[Machine]) -> Option<String> {
    let with: Vec<&Machine> = ms
        .iter()
        .filter(|m| !m.facts.cache_kib.is_empty())
        .collect();
    let differ = with
        .iter()
        .any(|m| m.facts.cache_kib != with[0].facts.cache_kib);
    differ.then(|| {
        "Cache sizes not drawn: the machines report different ones (each in compare.md).".into()
    })
}

/// The rows of bandwidth's `bandwidth` block that the overlay draws: the read kernel in its
/// explicit form (`core::arch` at the widest width the CPU reports).
const BANDWIDTH_OP: &str = "read";
const BANDWIDTH_FORM: &str = "explicit";

fn bandwidth(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    use ::bandwidth::schema as bw;
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
    let x = AxisSpec::log2("working set (bytes)", Units::KiB);
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
        y: AxisSpec::log10("GB/s read (log)"),
        effect: Some("L1 to memory (bandwidth)"),
        notes: if ms.iter().any(|m| m.kind == Kind::Appendix) {
            vec![
                "The appendix does not measure bandwidth: its folders have no numbers here.".into(),
            ]
        } else {
            Vec::new()
        },
    };
    let mut spec = spec;
    spec.notes.extend(cache_note(ms));
    draw(ms, base, spec, series, cache_verticals(ms))
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
    let x = AxisSpec::log2("stride (bytes)", Units::Bytes);
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
        y: AxisSpec::log10("ns per access (log)"),
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
        x: AxisSpec::log2("pages touched", Units::Count),
        y: AxisSpec::log10("ns per access (log)"),
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

fn category_axis(title: &str, cats: &[&str]) -> AxisSpec {
    let names: Vec<String> = cats.iter().map(|c| c.replace('_', " ")).collect();
    AxisSpec::categories(title, &names)
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
        ::branch::schema::EXPERIMENT,
        ::branch::schema::patterns::BLOCK,
        ::branch::schema::patterns::PATTERN,
        &cats,
        |m| (::branch::schema::patterns::MEDIAN_NS, m.label.clone()),
    );
    let spec = Spec {
        file: "compare-branch.svg",
        title: format!(
            "Table 105.16, {} machines: the real branch by pattern",
            ms.len()
        ),
        subtitle: "the same number of taken branches, only the pattern changes".into(),
        x: category_axis("pattern of the condition", &cats),
        y: AxisSpec::log10("ns per element (log)"),
        effect: Some("misprediction cost"),
        notes: Vec::new(),
    };
    draw(ms, base, spec, series, Vec::new())
}

fn fp(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    let cats = ["multiply", "add", "divide", "sqrt", "sin"];
    let (series, other_method) = fp_series(ms, &cats);
    let notes = fp_notes(ms, base, &series, other_method);
    let spec = Spec {
        file: "compare-fp.svg",
        title: format!(
            "Table 105.24, {} machines: the cost of each operation (double)",
            ms.len()
        ),
        subtitle: "one operation per element of two arrays in L1, four accumulators (the \
                   appendix's loop), on every machine drawn"
            .into(),
        x: category_axis("operation", &cats),
        y: AxisSpec::log10("ns per operation (log)"),
        effect: None,
        notes,
    };
    draw(ms, base, spec, series, Vec::new())
}

/// The series of the fp figure, and how many runs were left out as measuring another thing.
fn fp_series(ms: &[Machine], cats: &[&str]) -> (Vec<Series>, usize) {
    // The appendix's own table where a run has it (section 3a, in L1: case `l1_<op>`); older
    // runs lack it and give their independent operations instead, said in their label.
    let l1_cats: Vec<String> = cats.iter().map(|c| format!("l1_{c}")).collect();
    let l1_cats: Vec<&str> = l1_cats.iter().map(String::as_str).collect();
    let tables = by_category(
        ms,
        ::fp_cost::schema::EXPERIMENT,
        ::fp_cost::schema::per_element::BLOCK,
        ::fp_cost::schema::per_element::CASE,
        &l1_cats,
        |m| {
            (
                ::fp_cost::schema::per_element::MEDIAN_NS,
                format!("{} (a[i] op b[i], the appendix's loop)", m.label),
            )
        },
    );
    let mut series = by_category(
        ms,
        ::fp_cost::schema::EXPERIMENT,
        ::fp_cost::schema::ops::BLOCK,
        ::fp_cost::schema::ops::OP,
        cats,
        |m| match m.kind {
            Kind::Run => (
                ::fp_cost::schema::ops::THROUGHPUT_NS,
                format!("{} (independent operations)", m.label),
            ),
            Kind::Appendix => (
                ::fp_cost::schema::APPENDIX_LOOP_NS,
                format!("{} (a[i] op b[i], 4 accumulators)", m.label),
            ),
        },
    );
    // One method on the axis: the appendix's loop (its table, or the book's numbers); a run
    // saved without the table has only independent operations, another measure: left out and
    // counted.
    let with_table: Vec<usize> = tables.iter().map(|t| t.machine).collect();
    let other_method = series
        .iter()
        .filter(|s| ms[s.machine].kind == Kind::Run && !with_table.contains(&s.machine))
        .count();
    series.retain(|s| ms[s.machine].kind == Kind::Appendix && !with_table.contains(&s.machine));
    series.extend(tables);
    series.sort_by_key(|s| s.machine);
    (series, other_method)
}

/// The lines under the fp figure: divide over multiply, and the runs left out.
fn fp_notes(ms: &[Machine], base: usize, series: &[Series], other_method: usize) -> Vec<String> {
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
    let mut notes = Vec::new();
    if !shown.is_empty() {
        notes.push(format!(
            "divide over multiply, per element: {}.",
            shown.join("; ")
        ));
    }
    if other_method > 0 {
        notes.push(format!(
            "{other_method} run(s) saved without the per-element table are not drawn: their \
             independent operations measure another thing (throughput)."
        ));
    }
    notes
}

fn false_sharing(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    let series = simple(ms, |m| {
        curve(
            m,
            ::false_sharing::schema::EXPERIMENT,
            ::false_sharing::schema::distance::BLOCK,
            ::false_sharing::schema::distance::DISTANCE_BYTES,
            &[::false_sharing::schema::distance::VS_SPLIT_MEDIAN],
        )
    });
    let x = AxisSpec::log2(
        "distance between the two threads' slots (bytes)",
        Units::Bytes,
    );
    let spec = Spec {
        file: "compare-false-sharing.svg",
        title: format!(
            "Table 105.19, {} machines: false sharing by distance",
            ms.len()
        ),
        subtitle: "two threads, each incrementing its own slot; 1 is a perfect split of the work"
            .into(),
        x,
        y: AxisSpec::log10("time against a perfect split (x, log)"),
        effect: Some("false sharing"),
        notes: Vec::new(),
    };
    draw(ms, base, spec, series, line_verticals(ms))
}

/// One machine's core-to-core latency: the median over its core pairs of the one-way
/// latency, their range and their number.
struct C2cRow {
    machine: usize,
    median: f64,
    lo: f64,
    hi: f64,
    pairs: usize,
}

/// Machine `i`'s core-to-core row, if it has positive, finite one-way latencies.
fn c2c_row(i: usize, m: &Machine) -> Option<C2cRow> {
    let v = m
        .runs
        .get(::false_sharing::schema::EXPERIMENT)
        .and_then(|f| f.block(::false_sharing::schema::c2c::BLOCK))
        .and_then(|b| b.nums(::false_sharing::schema::c2c::ONE_WAY_MEDIAN_NS))?;
    let mut v: Vec<f64> = v
        .into_iter()
        .flatten()
        .filter(|x| *x > 0.0 && x.is_finite())
        .collect();
    if v.is_empty() {
        return None;
    }
    let med = median(&v)?;
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(C2cRow {
        machine: i,
        median: med,
        lo: v[0],
        hi: v[n - 1],
        pairs: n,
    })
}

fn c2c(ms: &[Machine], base: usize) -> Result<Option<Overlay>, String> {
    let rows: Vec<C2cRow> = ms
        .iter()
        .enumerate()
        .filter_map(|(i, m)| c2c_row(i, m))
        .collect();
    if rows.is_empty() {
        return Ok(None);
    }
    let many = ms.len() > MANY;
    let k = rows.len();
    let mut c = LineChart::new(
        &format!(
            "Core-to-core latency, {k} machine{}: one way, median over core pairs",
            if k == 1 { "" } else { "s" }
        ),
        AxisSpec::log10("ns one way (log)"),
        AxisSpec::categories("", &c2c_names(ms, base, &rows)),
    );
    c.subtitle =
        "a compare-and-swap ping-pong between two pinned threads, each machine's own pairs".into();
    c.plot_height = (24 * k as u32 + 40).clamp(110, 4000);
    c.whisker_label = "dot: the median over core pairs; bar: their range (min..max)".into();
    for (pos, r) in rows.iter().enumerate() {
        let yv = (k - 1 - pos) as f64;
        // The machines are named on the axis: no legend entry each.
        let mut d = Drawn::new(
            "",
            vec![Pt::spread(r.median, yv, Some(r.lo), Some(r.hi))],
            Style::points(0, Marker::Dot),
        );
        d.style.color = color(ms, base, r.machine);
        c.series.push(d);
    }
    if many {
        c.verticals.extend(c2c_median_vertical(&rows));
    }
    c.footer.push(c2c_values(ms, base, &rows));
    c.footer.extend(c2c_missing(ms, &rows));
    finish(&c, "compare-c2c.svg")
}

/// The machines' names on the category axis, top to bottom in the order given.
fn c2c_names(ms: &[Machine], base: usize, rows: &[C2cRow]) -> Vec<String> {
    rows.iter()
        .rev()
        .map(|r| {
            let name = clip(&ms[r.machine].label, 36);
            if ms.len() > MANY && r.machine == base {
                format!("{name} (baseline)")
            } else {
                name
            }
        })
        .collect()
}

/// The median over the machines' medians as a vertical line, given three machines or more.
fn c2c_median_vertical(rows: &[C2cRow]) -> Option<Vertical> {
    let meds: Vec<f64> = rows.iter().map(|r| r.median).collect();
    let n = meds.len();
    if n < 3 {
        return None;
    }
    let m = median(&meds)?;
    Some(Vertical {
        x: m,
        label: format!("median {} ns", sig3(m)),
        kind: VerticalKind::Knee(BLACK_C),
        legend: format!("median over the {n} machines: {} ns", sig3(m)),
    })
}

/// The line of numbers under the figure: every machine's, or beyond eight the baseline's.
fn c2c_values(ms: &[Machine], base: usize, rows: &[C2cRow]) -> String {
    rows.iter()
        .filter(|r| ms.len() <= MANY || r.machine == base)
        .map(|r| {
            format!(
                "{}: {} ns ({}..{} over {} pairs)",
                ms[r.machine].label,
                sig3(r.median),
                sig3(r.lo),
                sig3(r.hi),
                r.pairs
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
        + "."
}

/// The line counting the machines with no core-to-core numbers, if any.
fn c2c_missing(ms: &[Machine], rows: &[C2cRow]) -> Option<String> {
    let missing: Vec<&Machine> = (0..ms.len())
        .filter(|i| !rows.iter().any(|r| r.machine == *i))
        .map(|i| &ms[i])
        .collect();
    if missing.is_empty() {
        return None;
    }
    // The reason only where it is the reason: a run may lack them too (an older run).
    let why = if missing.iter().all(|m| m.kind == Kind::Appendix) {
        " (the appendix does not measure them)"
    } else {
        ""
    };
    Some(format!(
        "{} machine(s) have no core-to-core numbers{why}.",
        missing.len()
    ))
}

/// Every overlay figure that has data. An error is a bug in drawing, not bad input.
pub fn draw_all(ms: &[Machine], base: usize, pointer_chase: bool) -> Result<Vec<Overlay>, String> {
    let figs = [
        latency(ms, base, pointer_chase)?,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_cut_where_sizes_were_skipped() {
        let pts: Vec<Pt> = [4.0, 8.0, 16.0, 128.0, 256.0]
            .iter()
            .map(|&x| Pt::new(x, 1.0))
            .collect();
        let style = Style {
            color: BLACK_C,
            line: Some(Dash::Solid),
            width: 1,
            marker: None,
            size: 3,
        };
        let pieces = split_at_gaps(Drawn::new("m", pts.clone(), style), 2.0);
        let lens: Vec<usize> = pieces.iter().map(|d| d.points.len()).collect();
        assert_eq!(lens, vec![3, 2]);
        assert!(pieces.iter().all(|d| d.label == "m"));
        // Two points 8x apart on a figure of doublings: two pieces of one point.
        let two = vec![Pt::new(8.0, 1.0), Pt::new(64.0, 2.0)];
        assert_eq!(split_at_gaps(Drawn::new("p", two, style), 2.0).len(), 2);
    }
}
