//! tlb_walk's figures.
//!
//! `tlb_walk-pages.svg` (section 1): the cost of one read by the number of pages walked
//! (8 bytes read per page), both layouts: every slot at offset 0 (the appendix's method,
//! which mixes cache-set conflicts into translation) and page i's slot on line
//! i mod lines-per-page, with min..max whiskers, unsettled points ringed, the appendix's own
//! numbers dashed when saved, and the key ratio (most pages against fewest) as a bracket.
//! The data TLBs' reach (CPUID's entries for 4 KiB pages, one page each) stands as a solid
//! grey vertical per level, like every size the machine reports; a run that recorded no TLB
//! sizes (runs older than `#META dtlb_l1_4k_entries`, or no CPUID) says so under the plot.
//! Under it too, how far apart the measured page counts stand: a step in the curve is
//! located only to within that factor.
//!
//! `tlb_walk-huge.svg` (section 2): the same walk on 4 KiB pages and on huge pages, both
//! layouts, compared within section 2 only (like with like), with the backing each region
//! was verified to have, min..max whiskers and the 4 KiB / huge ratio for each layout.

use super::chart::{
    AxisSpec, Bar, BarChart, BarSeries, Bracket, LineChart, Marker, Pt, Series, Style, Units,
    Vertical, VerticalKind, color, div, grouped, num, ratio,
};
use super::{
    DrawError, Figure, Saved, Spread, appendix_reference, need_block, need_nums, need_texts,
    opt_nums,
};
use ::tlb_walk::schema as sc;
use measure::data::{Block, DataFile};
use measure::facts::human_bytes;
use measure::schema::tlb;

const OFFSET0: usize = 0;
const LINE: usize = 1;

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, DrawError> {
    let run = saved.need(sc::EXPERIMENT)?;
    let lpp = run
        .meta_num(sc::META_LINES_PER_PAGE)
        .filter(|n| n.is_finite() && *n > 0.0 && *n < 1e9)
        .map_or("lines per page".to_string(), |n| format!("{n:.0}"));
    let mut out = vec![pages_figure(saved, run, &lpp)?];
    if let Some(h) = run.block(sc::huge_pages::BLOCK) {
        out.push(huge_figure(saved, run, h, &lpp)?);
    }
    Ok(out)
}

/// Table 105.13 redrawn: time per read by pages walked, both layouts, the TLBs' reach, the
/// unsettled points, the appendix's own numbers and the key ratio.
fn pages_figure(saved: &Saved, run: &DataFile, lpp: &str) -> Result<Figure, DrawError> {
    let b = need_block(run, sc::pages::BLOCK)?;
    let pages = need_nums(b, sc::pages::PAGES)?;
    let series = |cols: [&str; 3]| -> Result<Vec<Pt>, DrawError> {
        Ok(Spread::read(b, cols)?.points(&pages))
    };
    let off0 = series([
        sc::pages::OFFSET0_NS,
        sc::pages::OFFSET0_MIN_NS,
        sc::pages::OFFSET0_MAX_NS,
    ])?;
    if off0.is_empty() {
        return Err(format!("{} has no measured row", super::block_name(b)).into());
    }
    let line = series([
        sc::pages::LINE_NS,
        sc::pages::LINE_MIN_NS,
        sc::pages::LINE_MAX_NS,
    ])?;
    let mut c = LineChart::new(
        &format!(
            "Table 105.13: one 8-byte read per page, by pages walked ({})",
            saved.label
        ),
        AxisSpec::log2(
            "pages walked (power-of-two scale; 4 KiB pages)",
            Units::Count,
        ),
        AxisSpec::log10("time per read (ns, log scale)"),
    );
    c.verticals = reach(run);
    c.footer.extend(step_note(&off0, !c.verticals.is_empty()));
    c.series.push(Series::new(
        "slot at offset 0 of every page (the appendix's method)",
        off0.clone(),
        Style::measured(OFFSET0, Marker::Dot),
    ));
    c.series.push(Series::new(
        format!("slot on line i mod {lpp} (page i)"),
        line.clone(),
        Style::measured(LINE, Marker::Square),
    ));
    c.mark_disturbed(&crate::marks::disturbed_xs(run, b, sc::pages::PAGES));
    ring_unsettled(&mut c, b, &pages, [&off0, &line]);
    // The appendix's own output: bare blocks `pages ns`.
    if let Some(r) = appendix_reference(saved, sc::EXPERIMENT)? {
        let pts = r.first_points()?;
        c.series.push(Series::new(
            format!("{}: slot at offset 0", r.label),
            pts,
            Style::reference(),
        ));
    }
    // The key ratio: most pages against fewest, the line layout (translation alone), as the
    // key figure `pages_factor_line` defines it; the label names the layout, because the
    // summary's Table 105.26 quotes the appendix's (offset 0).
    if let Some((a, z)) = super::ends(&line, |p| p.x > 0.0)
        && let Some(r) = super::key_or(run, sc::key::PAGES_FACTOR_LINE, div(z.y, a.y))
    {
        c.brackets.push(Bracket {
            x: z.x,
            y0: a.y,
            y1: z.y,
            text: vec![
                "slot on line i mod 64,".into(),
                format!("{} pages / {} pages:", grouped(z.x), grouped(a.x)),
                format!("{} / {} ns = {}", num(z.y), num(a.y), ratio(r)),
            ],
        });
    }
    c.width = 1000;
    Ok(Figure::new("tlb_walk-pages.svg", c.render()?))
}

/// Rings the points of sizes whose two passes disagree (`agree` is not "yes").
fn ring_unsettled(c: &mut LineChart, b: &Block, pages: &[Option<f64>], series: [&[Pt]; 2]) {
    if let Some(agree) = b.texts(sc::pages::AGREE) {
        let mut flagged = Vec::new();
        for (i, a) in agree.iter().enumerate() {
            if a != "yes"
                && let Some(p) = pages[i]
            {
                for s in series {
                    if let Some(q) = s.iter().find(|q| q.x == p) {
                        flagged.push(Pt::new(q.x, q.y));
                    }
                }
            }
        }
        c.rings("unsettled: its passes disagree", flagged);
    }
}

/// The huge-page test after Table 105.13: the same walk on 4 KiB and on huge pages, both
/// layouts, with each backing as verified.
fn huge_figure(saved: &Saved, run: &DataFile, h: &Block, lpp: &str) -> Result<Figure, DrawError> {
    let layout = need_texts(h, sc::huge_pages::LAYOUT)?;
    let advice = need_texts(h, sc::huge_pages::ADVICE)?;
    let ns = need_nums(h, sc::huge_pages::NS)?;
    let lo = opt_nums(h, sc::huge_pages::MIN_NS);
    let hi = opt_nums(h, sc::huge_pages::MAX_NS);
    let pct = opt_nums(h, sc::huge_pages::HUGE_BACKING_PCT);
    let n = run
        .meta_num(sc::META_HUGE_WALK_PAGES)
        .filter(|n| n.is_finite() && *n > 0.0);
    let mut bars = BarChart::new(
        &format!(
            "The huge-page test after Table 105.13: the same walk on 4 KiB pages and on huge \
             pages ({}{})",
            n.map_or(String::new(), |n| format!(
                "{} pages of 4 KiB, ",
                grouped(n)
            )),
            saved.label
        ),
        AxisSpec::linear("time per read (ns, median)").starting_at_zero(),
    );
    bars.categories = vec![
        "slot at offset 0 (the appendix's method)".into(),
        format!("slot on line i mod {lpp}"),
    ];
    let find = |lay: &str, adv: &str| {
        (0..layout.len().min(advice.len())).find(|&i| layout[i] == lay && advice[i] == adv)
    };
    for (k, (adv, what)) in [
        ("nohugepage", "4 KiB pages, MADV_NOHUGEPAGE"),
        ("hugepage", "huge pages, MADV_HUGEPAGE"),
    ]
    .iter()
    .enumerate()
    {
        let backing = find("offset0", adv)
            .and_then(|i| pct[i])
            .map_or("backing unknown".to_string(), |p| {
                format!("{}% huge, verified", num(p))
            });
        bars.series.push(BarSeries::new(
            format!("{what} ({backing})"),
            ["offset0", "line"]
                .iter()
                .map(|l| find(l, adv).and_then(|i| ns[i].map(|v| Bar::spread(v, lo[i], hi[i]))))
                .collect(),
            color(if k == 0 { 5 } else { 3 }),
        ));
    }
    bars.mark_disturbed(&crate::marks::disturbed_by(
        run,
        h,
        sc::huge_pages::LAYOUT,
        &["offset0", "line"],
    ));
    for cat in 0..2 {
        let x = Bar::over(bars.series[0].values[cat], bars.series[1].values[cat]);
        bars.bracket((0, cat), (1, cat), "4 KiB / huge", x);
    }
    Ok(Figure::new("tlb_walk-huge.svg", bars.render()?))
}

/// The data TLBs' reach for 4 KiB pages as the run recorded it (`#META dtlb_l1_4k_entries`
/// and `dtlb_l2_4k_entries`), one vertical each; none where the run recorded none, or walked
/// pages of another size.
fn reach(run: &DataFile) -> Vec<Vertical> {
    if run
        .meta_num(sc::META_PAGE_BYTES)
        .is_some_and(|p| p != 4096.0)
    {
        return Vec::new();
    }
    [("L1", tlb::L1_4K_ENTRIES), ("L2", tlb::L2_4K_ENTRIES)]
        .into_iter()
        .filter_map(|(name, key)| {
            let n = run
                .meta_num(key)
                .filter(|n| n.is_finite() && *n >= 1.0 && *n < 1e9)?;
            Some(Vertical {
                x: n,
                label: format!(
                    "{name} DTLB reach: {} pages ({})",
                    grouped(n),
                    human_bytes(n as u64 * 4096)
                ),
                kind: VerticalKind::Reported,
                legend: "data TLB reach the CPU reports (CPUID: entries x 4 KiB pages)".into(),
            })
        })
        .collect()
}

/// "the page counts measured stand 1.44x apart: ..." from the points' own spacing (the widest
/// gap between neighbours), and whether TLB sizes were drawn (`reach`); none with fewer than
/// two points.
fn step_note(pts: &[Pt], reach: bool) -> Option<String> {
    let mut xs: Vec<f64> = pts.iter().map(|p| p.x).filter(|x| *x > 0.0).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let gap = xs.windows(2).map(|w| w[1] / w[0]).fold(f64::NAN, f64::max);
    gap.is_finite().then(|| {
        format!(
            "The page counts measured stand up to {} apart: where the cost steps up lies \
             somewhere between two points, known only to within that factor.{}",
            ratio(gap),
            if reach {
                ""
            } else {
                " This run records no TLB sizes for its pages, so no TLB-reach line is drawn."
            }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figures::draw_twice;

    const RUN: &str = "\
#META lines_per_page 64
#META huge_walk_pages 65536
#META page_bytes 4096
#META dtlb_l1_4k_entries 64 cpuid
#META dtlb_l2_4k_entries 2048 cpuid
#DATA-BEGIN pages
#COLUMNS pages offset0_ns offset0_min_ns offset0_max_ns line_ns agree:text
#DATA 16 4.0 3.9 4.1 1.3 yes
#DATA 64 4.1 4.0 4.3 1.3 no
#DATA 65536 160 150 170 110 yes
#DATA-END
#DATA-BEGIN huge_pages
#COLUMNS layout:text advice:text huge_backing_pct ns min_ns max_ns
#DATA offset0 nohugepage 0 185.4 184 189
#DATA offset0 hugepage 100 158.1 157 159
#DATA line nohugepage 0 194.1 192 199
#DATA line hugepage 100 160.7 159 161
#DATA-END
";

    #[test]
    fn draws_section_one_and_compares_section_two_with_itself() {
        let s = Saved::test("tlb_walk", RUN);
        let f = draw_twice(draw, &s, &["tlb_walk-pages.svg", "tlb_walk-huge.svg"]);
        assert!(f[0].svg.contains("line i mod 64"));
        assert!(
            !f[0].svg.contains("huge"),
            "section 2 (huge pages) is not set beside section 1"
        );
        assert!(
            f[0].svg.contains("= 84.6x"),
            "most / fewest pages, computed"
        );
        assert!(f[0].svg.contains("unsettled"));
        assert!(f[0].svg.contains("L1 DTLB reach: 64 pages (256 KiB)"));
        assert!(f[0].svg.contains("L2 DTLB reach: 2,048 pages (8 MiB)"));
        assert!(!f[0].svg.contains("no TLB-reach line"));
        assert!(f[1].svg.contains("100% huge, verified"));
        assert!(f[1].svg.contains("0% huge, verified"));
        assert!(f[1].svg.contains("4 KiB / huge = 1.21x"));
        assert!(f[1].svg.contains("4 KiB / huge = 1.17x"));
    }

    #[test]
    fn a_run_without_tlb_sizes_draws_no_reach_and_says_so() {
        for (from, to) in [
            (
                "#META dtlb_l1_4k_entries 64 cpuid\n",
                "#META dtlb_l1_4k_entries unknown\n",
            ),
            ("#META dtlb_l2_4k_entries 2048 cpuid\n", ""),
        ] {
            let older = RUN.replace(from, to);
            let f = draw(&Saved::test("tlb_walk", &older)).unwrap();
            assert!(
                !f[0]
                    .svg
                    .contains(if to.is_empty() { "L2 DTLB" } else { "L1 DTLB" })
            );
        }
        let none = RUN
            .replace("#META dtlb_l1_4k_entries 64 cpuid\n", "")
            .replace("#META dtlb_l2_4k_entries 2048 cpuid\n", "");
        let f = draw(&Saved::test("tlb_walk", &none)).unwrap();
        assert!(!f[0].svg.contains("DTLB reach"));
        assert!(f[0].svg.contains("no TLB-reach line is drawn"));
        // Entries count 4 KiB pages: a run on 16 KiB pages gets no line either.
        let big = RUN.replace("page_bytes 4096", "page_bytes 16384");
        let f = draw(&Saved::test("tlb_walk", &big)).unwrap();
        assert!(!f[0].svg.contains("DTLB reach"));
    }

    #[test]
    fn missing_pages_block_is_an_error_naming_it() {
        let e = draw(&Saved::test("tlb_walk", "#META lines_per_page 64\n"))
            .err()
            .unwrap();
        assert!(e.message.contains("pages"), "{e}");
    }

    #[test]
    fn the_step_note_names_the_widest_gap_between_points() {
        let pts: Vec<Pt> = [16.0, 64.0, 256.0, 512.0].map(|x| Pt::new(x, 1.0)).to_vec();
        let n = step_note(&pts, false).unwrap();
        assert!(n.contains("up to 4.00x apart"), "{n}");
        assert!(n.contains("no TLB-reach line"), "{n}");
        assert!(!step_note(&pts, true).unwrap().contains("no TLB-reach line"));
        assert!(step_note(&pts[..1], true).is_none());
    }
}
