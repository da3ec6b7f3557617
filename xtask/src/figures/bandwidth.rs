//! bandwidth's figure: bytes a second by working set, one line per kernel, and a small panel
//! of thread scaling.
//!
//! Three panels share a power-of-two size axis and a log GB/s axis: read, write and copy,
//! each with its plain loop (hollow squares), its explicit form at the widest width (dots,
//! thick) and, for write and copy, its non-temporal form (crosses); every point with its
//! min..max whisker over the rounds of both passes. The cache sizes the machine reports are
//! solid grey verticals, the boundaries the run read from the explicit read's curve dotted
//! verticals of that curve's colour; unstable points are ringed. The key ratio, L1 read over
//! memory read (the `levels` block), is a bracket on the read panel. The last panel: the
//! total read bandwidth of 1, 2, 4, ... threads at the largest set, with whiskers, beside
//! n times one thread (the ideal); rows the machine had no cores for are named as skipped.

use super::chart::line::render_panels;
use super::chart::{
    AxisSpec, Bracket, Dash, LineChart, Marker, Pt, Series, Style, Units, Vertical, VerticalKind,
    color, kib_label, num, ratio,
};
use super::{DrawError, Figure, Saved, need_block, need_nums, need_texts, opt_nums};
use ::bandwidth::schema as sc;
use measure::data::{Block, DataFile};

/// Palette indices, one per kernel, stable across runs and machines.
fn kernel_color(kernel: &str) -> usize {
    match kernel {
        "read_explicit" => 0,
        "read_plain" => 5,
        "write_explicit" => 1,
        "write_plain" => 4,
        "write_stream" => 8,
        "copy_explicit" => 2,
        "copy_plain" => 3,
        "copy_stream" => 6,
        _ => 7,
    }
}

/// How a kernel's form is drawn: explicit thick with dots, plain thin with hollow squares,
/// non-temporal with crosses.
fn kernel_style(kernel: &str) -> Style {
    let c = kernel_color(kernel);
    if kernel.ends_with("_explicit") {
        let mut s = Style::measured(c, Marker::Dot);
        s.width = 3;
        s
    } else if kernel.ends_with("_stream") {
        Style::measured(c, Marker::Cross)
    } else {
        let mut s = Style::measured(c, Marker::HollowSquare);
        s.width = 1;
        s
    }
}

/// One kernel's points (KiB, GB/s with min..max) and which of them are unstable.
struct Curve {
    kernel: String,
    points: Vec<Pt>,
    unstable: Vec<Pt>,
    /// The working sets whose rounds were disturbed ([`crate::marks::disturbed_rows`]).
    disturbed: Vec<f64>,
}

/// The curves of the `bandwidth` block, in the order the kernels first appear.
fn curves(run: &DataFile, b: &Block) -> Result<Vec<Curve>, DrawError> {
    let dist = crate::marks::disturbed_rows(run, b);
    let kib = need_nums(b, sc::bandwidth::KIB)?;
    let g = need_nums(b, sc::bandwidth::GBS)?;
    let (lo, hi) = (
        opt_nums(b, sc::bandwidth::GBS_MIN),
        opt_nums(b, sc::bandwidth::GBS_MAX),
    );
    let names = need_texts(b, sc::bandwidth::KERNEL)?;
    let stable = b.texts(sc::bandwidth::STABLE).unwrap_or_default();
    let mut out: Vec<Curve> = Vec::new();
    for i in 0..names.len().min(kib.len()).min(g.len()) {
        let (Some(k), Some(v)) = (kib[i], g[i]) else {
            continue;
        };
        let pos = match out.iter().position(|c| c.kernel == names[i]) {
            Some(p) => p,
            None => {
                out.push(Curve {
                    kernel: names[i].clone(),
                    points: Vec::new(),
                    unstable: Vec::new(),
                    disturbed: Vec::new(),
                });
                out.len() - 1
            }
        };
        let p = Pt::spread(
            k,
            v,
            lo.get(i).copied().flatten(),
            hi.get(i).copied().flatten(),
        );
        out[pos].points.push(p);
        if stable.get(i).is_some_and(|s| s == "no") {
            out[pos].unstable.push(Pt::new(k, v));
        }
        if dist.get(i) == Some(&true) {
            out[pos].disturbed.push(k);
        }
    }
    if out.iter().all(|c| c.points.is_empty()) {
        return Err("the bandwidth block has no measured row".into());
    }
    Ok(out)
}

/// The legend's words for a kernel ("read, avx512 (explicit)").
fn label(kernel: &str, width: &str) -> String {
    let (op, form) = kernel.split_once('_').unwrap_or((kernel, ""));
    match form {
        "explicit" => format!("{op}, {width} (explicit, widest width)"),
        "plain" => format!("{op}, plain loop (as the compiler vectorised it)"),
        "stream" => format!("{op}, non-temporal stores ({width})"),
        f => format!("{op}, {f}"),
    }
}

/// The reported cache sizes as verticals.
fn reported(run: &DataFile) -> Vec<Vertical> {
    [
        ("l1d_size_bytes", "L1d"),
        ("l2_size_bytes", "L2"),
        ("l3_size_bytes", "L3"),
        ("l4_size_bytes", "L4"),
    ]
    .into_iter()
    .filter_map(|(k, n)| {
        let kib = run.meta_num(k).filter(|v| v.is_finite() && *v > 0.0)? / 1024.0;
        Some(Vertical {
            x: kib,
            label: format!("{n} {}", kib_label(kib)),
            kind: VerticalKind::Reported,
            legend: "cache size the machine reports".into(),
        })
    })
    .collect()
}

/// The boundaries read from the explicit read's curve: a dotted vertical in the middle of
/// each fall (on the log2 axis).
fn boundaries(run: &DataFile) -> Vec<Vertical> {
    let Some(kb) = run.block(sc::boundaries::BLOCK) else {
        return Vec::new();
    };
    let kinds = kb.texts(sc::boundaries::KIND).unwrap_or_default();
    let (from, to) = (
        opt_nums(kb, sc::boundaries::FROM_KIB),
        opt_nums(kb, sc::boundaries::TO_KIB),
    );
    (0..kinds.len().min(from.len()).min(to.len()))
        .filter_map(|i| {
            let (f, t) = (from[i]?, to[i]?);
            (kinds[i] == "drop" && f > 0.0 && t > 0.0 && f.is_finite() && t.is_finite()).then(
                || Vertical {
                    x: (f * t).sqrt(),
                    label: String::new(),
                    kind: VerticalKind::Knee(color(kernel_color("read_explicit"))),
                    legend: format!(
                        "boundary read from the explicit read's curve (a fall of {}x or more \
                         an octave)",
                        ::bandwidth::schema::MIN_DROP
                    ),
                },
            )
        })
        .collect()
}

/// The key ratio from the `levels` block: (L1 KiB, L1 read GB/s, memory KiB, memory GB/s).
fn key_ratio(run: &DataFile) -> Option<(f64, f64, f64, f64)> {
    let l = run.block(sc::levels::BLOCK)?;
    let (names, kib, read) = (
        l.texts(sc::levels::LEVEL)?,
        l.nums(sc::levels::KIB)?,
        l.nums(sc::levels::READ_GBS)?,
    );
    let at = |n: &str| {
        let i = names.iter().position(|x| x == n)?;
        let (k, g) = (*kib.get(i)?, *read.get(i)?);
        Some((k?, g?)).filter(|(k, g)| *k > 0.0 && *g > 0.0 && k.is_finite() && g.is_finite())
    };
    let (a, m) = (at("L1d")?, at("memory")?);
    Some((a.0, a.1, m.0, m.1))
}

/// One panel of one operation's kernels.
fn op_panel(run: &DataFile, cs: &[Curve], op: &str, width: &str, title: &str) -> Option<LineChart> {
    let mine: Vec<&Curve> = cs
        .iter()
        .filter(|c| c.kernel.split('_').next() == Some(op))
        .collect();
    if mine.iter().all(|c| c.points.is_empty()) {
        return None;
    }
    let mut c = LineChart::new(
        title,
        AxisSpec::log2("working set (bytes, power-of-two scale)", Units::KiB),
        AxisSpec::log10("GB/s (log scale)"),
    );
    c.width = 1000;
    c.plot_height = 300;
    c.whisker_label = "bars: min..max of the rounds of both passes".into();
    for k in &mine {
        c.series.push(Series::new(
            label(&k.kernel, width),
            k.points.clone(),
            kernel_style(&k.kernel),
        ));
    }
    let unstable: Vec<Pt> = mine
        .iter()
        .flat_map(|k| k.unstable.iter().copied())
        .collect();
    let disturbed: Vec<f64> = mine.iter().flat_map(|k| k.disturbed.clone()).collect();
    c.mark_disturbed(&disturbed);
    c.rings("unstable: its passes or rounds disagree", unstable);
    c.verticals = reported(run);
    if op == "read" {
        c.verticals.extend(boundaries(run));
        if let Some((ak, ag, mk, mg)) = key_ratio(run)
            && let Some(r) = super::chart::div(ag, mg)
        {
            // At the L1 point, where the space below the plateau is empty on every machine
            // seen: at the memory point the box would sit on the falling curves.
            c.brackets.push(Bracket {
                x: ak,
                y0: mg,
                y1: ag,
                text: vec![
                    format!("L1d ({}) / memory ({})", kib_label(ak), kib_label(mk)),
                    format!("= {}", ratio(r)),
                ],
            });
        }
    }
    Some(c)
}

/// The thread-scaling panel: total GB/s by threads, with whiskers, and n x one thread.
fn threads_panel(run: &DataFile) -> Result<Option<LineChart>, DrawError> {
    let Some(t) = run.block(sc::threads::BLOCK) else {
        return Ok(None);
    };
    let n = need_nums(t, sc::threads::THREADS)?;
    let m = need_nums(t, sc::threads::TOTAL_GBS)?;
    let (lo, hi) = (
        opt_nums(t, sc::threads::TOTAL_GBS_MIN),
        opt_nums(t, sc::threads::TOTAL_GBS_MAX),
    );
    let pts: Vec<Pt> = (0..n.len().min(m.len()))
        .filter_map(|i| {
            let (x, y) = (n[i]?, m[i]?);
            (x > 0.0 && x.is_finite() && y.is_finite()).then(|| {
                Pt::spread(
                    x,
                    y,
                    lo.get(i).copied().flatten(),
                    hi.get(i).copied().flatten(),
                )
            })
        })
        .collect();
    let skipped: Vec<String> = (0..n.len().min(m.len()))
        .filter(|&i| m[i].is_none())
        .filter_map(|i| n[i].filter(|v| v.is_finite()).map(num))
        .collect();
    let Some(one) = pts.first().copied() else {
        return Ok(None);
    };
    let mut title = "all cores: total read bandwidth at the largest working set, each thread on \
                     its own core and region"
        .to_string();
    if let Some(last) = pts.last()
        && last.x > one.x
        && let Some(r) = super::chart::div(last.y, one.y)
    {
        title.push_str(&format!(
            "; {} threads: {} one thread",
            num(last.x),
            ratio(r)
        ));
    }
    if !skipped.is_empty() {
        title.push_str(&format!(
            " ({} threads skipped: more than the machine's cores)",
            skipped.join(", ")
        ));
    }
    let mut c = LineChart::new(
        &title,
        AxisSpec::log2("threads (power-of-two scale)", Units::Count),
        AxisSpec::linear("total GB/s").starting_at_zero(),
    );
    c.width = 1000;
    c.plot_height = 220;
    c.whisker_label = "bars: min..max of the rounds".into();
    c.series.push(Series::new(
        "measured total",
        pts.clone(),
        Style::measured(kernel_color("read_explicit"), Marker::Dot),
    ));
    if pts.len() > 1 {
        let ideal: Vec<Pt> = pts
            .iter()
            .map(|p| Pt::new(p.x, one.y * p.x / one.x))
            .collect();
        let mut s = Style::measured(6, Marker::Cross);
        s.line = Some(Dash::Short);
        s.width = 1;
        s.marker = None;
        c.series.push(Series::new(
            "n x one thread (the ideal, if the memory kept up)",
            ideal,
            s,
        ));
    }
    c.mark_disturbed(&crate::marks::disturbed_xs(run, t, sc::threads::THREADS));
    Ok(Some(c))
}

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(sc::EXPERIMENT)?;
    let b = need_block(run, sc::bandwidth::BLOCK)?;
    let cs = curves(run, b)?;
    let width = run.meta(sc::META_EXPLICIT_WIDTH).unwrap_or("explicit");
    let mut panels = Vec::new();
    for (op, title) in [
        ("read", "read: the sum of every word"),
        ("write", "write: every word filled"),
        (
            "copy",
            "copy: one half into the other (bytes read plus written)",
        ),
    ] {
        panels.extend(op_panel(run, &cs, op, width, title));
    }
    panels.extend(threads_panel(run)?);
    let svg = render_panels(
        &format!(
            "Beyond the appendix: read bandwidth by working set ({})",
            saved.label
        ),
        &panels,
    )?;
    Ok(vec![Figure::new("bandwidth-working-set.svg", svg)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::draw_twice;

    const RUN: &str = "\
#META l1d_size_bytes 32768 sysfs
#META l2_size_bytes 1048576 sysfs
#META l3_size_bytes unknown
#META explicit_width avx512
#DATA-BEGIN bandwidth
#COLUMNS kib kernel:text op:text form:text gbs gbs_min gbs_max bytes_per_cycle pass_spread round_spread stable:text where:text
#DATA 4 read_plain read plain 110 100 115 30 0.01 0.01 yes L1d
#DATA 4 read_explicit read explicit 210 200 215 58 0.01 0.01 yes L1d
#DATA 4 write_explicit write explicit 117 110 118 32 0.01 0.01 yes L1d
#DATA 4 write_stream write stream 28 27 29 8 0.01 0.01 yes L1d
#DATA 4 copy_explicit copy explicit 230 220 235 64 0.01 0.01 yes L1d
#DATA 1024 read_plain read plain 90 80 95 25 0.01 0.01 no L2
#DATA 1024 read_explicit read explicit 98 96 99 27 0.01 0.01 yes L2
#DATA 1024 write_explicit write explicit 97 96 99 27 0.01 0.01 yes L2
#DATA 1024 write_stream write stream 28 27 29 8 0.01 0.01 yes L2
#DATA 1024 copy_explicit copy explicit 96 94 99 27 0.01 0.01 yes L2
#DATA 131072 read_plain read plain 30 20 35 8 0.01 0.01 yes memory
#DATA 131072 read_explicit read explicit 25 22 30 7 0.01 0.01 yes memory
#DATA 131072 write_explicit write explicit 20 19 22 6 0.01 0.01 yes memory
#DATA 131072 write_stream write stream 28 27 29 8 0.01 0.01 yes memory
#DATA 131072 copy_explicit copy explicit 22 20 24 6 0.01 0.01 yes memory
#DATA-END
#DATA-BEGIN boundaries
#COLUMNS kind:text from_kib to_kib ratio nearest:text nearest_kib agrees:text
#DATA drop 32 64 1.8 L1d 32 yes
#DATA unstable 1024 1024 NA NA NA NA
#DATA-END
#DATA-BEGIN threads
#COLUMNS threads status:text cores:text total_gbs total_gbs_min total_gbs_max per_thread_gbs vs_one pinned:text off_core_rounds region_kib
#DATA 1 measured 1 30 28 31 30 1 yes 0 131072
#DATA 2 measured 1,0 45 40 47 22.5 1.5 yes 0 131072
#DATA 4 skipped NA NA NA NA NA NA NA NA 131072
#DATA-END
#DATA-BEGIN levels
#COLUMNS level:text kib read_gbs write_gbs copy_gbs read_bpc write_bpc copy_bpc
#DATA L1d 4 210 NA NA 58 NA NA
#DATA memory 131072 25 NA NA 7 NA NA
#DATA-END
";

    #[test]
    fn draws_every_panel_deterministically_and_by_the_rules() {
        let s = Saved::test("bandwidth", RUN);
        let a = draw_twice(draw, &s, &["bandwidth-working-set.svg"]);
        let svg = &a[0].svg;
        for want in [
            "read, avx512 (explicit, widest width)",
            "read, plain loop",
            "write, non-temporal stores (avx512)",
            "L1d 32K",
            "L2 1M",
            "= 8.40x",
            "L1d (4K) / memory (128M)",
            "1.50x one thread",
            "4 threads skipped",
            "boundary read from the explicit read",
            "unstable",
        ] {
            assert!(svg.contains(want), "{want:?} missing");
        }
        assert!(!svg.contains("L3 "), "an unknown size draws no vertical");
        let problems = super::super::checks::problems(&a[0]);
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn missing_parts_are_errors_or_left_out_not_panics() {
        assert!(
            draw(&Saved::test("bandwidth", "#META x 1\n"))
                .err()
                .unwrap()
                .to_string()
                .contains("bandwidth")
        );
        // Only the main block: the read, write and copy panels, no thread panel.
        let only = RUN.split("#DATA-BEGIN boundaries").next().unwrap();
        let svg = &draw(&Saved::test("bandwidth", only)).unwrap()[0].svg;
        assert!(!svg.contains("all cores"));
        // A block with no number at all is an error naming it.
        let empty = "#DATA-BEGIN bandwidth\n#COLUMNS kib kernel:text gbs\n#DATA NA read_plain NA\n#DATA-END\n";
        assert!(draw(&Saved::test("bandwidth", empty)).is_err());
    }

    /// A provisional all-core section (the `threads` result, marked as a whole) draws its
    /// points hollow, with the legend entry; a quiet one draws none.
    #[test]
    fn a_provisional_all_core_section_is_drawn_hollow() {
        let legends = |run: &str| {
            let svg = &draw(&Saved::test("bandwidth", run)).unwrap()[0].svg;
            svg.matches(crate::marks::LEGEND).count()
        };
        assert_eq!(legends(RUN), 0);
        let block = crate::marks::tests::block_text(&[("threads", 10, 1, true, false)]);
        assert_eq!(legends(&format!("{RUN}{block}")), 1);
    }

    #[test]
    fn extreme_values_draw_without_panic() {
        let wild = RUN
            .replace("210 200 215", "1e308 -5 0")
            .replace("#DATA 2 measured 1,0 45", "#DATA 2 measured 1,0 -1e300");
        let _ = draw(&Saved::test("bandwidth", &wild));
    }
}
