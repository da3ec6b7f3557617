//! tlb_walk's figures.
//!
//! `tlb_walk-pages.svg`: the cost of one read by the number of pages walked (8 bytes read per
//! page), both layouts: every slot at offset 0 (the appendix's method, which mixes cache-set
//! conflicts into translation) and page i's slot on line i mod lines-per-page; the huge-page
//! walk of section 3 as single points at its page count; and the appendix's own numbers as a
//! dashed series when saved. The x axis is log2 of the page count on a linear scale, so the
//! ticks fall on the powers of two the counts are.
//!
//! `tlb_walk-huge.svg`: 4 KiB pages against huge pages for both layouts, with the backing each
//! region was verified to have in the legend.

use super::chart::{BarChart, LineChart, Mark, Series};
use super::{Figure, Saved, appendix_reference, need_block, need_nums};

const OFFSET0: usize = 0;
const LINE: usize = 1;
const HUGE: usize = 3;
const REFERENCE: usize = 4;

fn page_tick(x: f64) -> String {
    format!("{}", 2f64.powf(x).round())
}

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, String> {
    let run = saved.run("tlb_walk").ok_or("no tlb_walk output")?;
    let b = need_block(run, "tlb_walk", "pages")?;
    let pages = need_nums(b, "pages")?;
    let series = |col: &str| -> Result<Vec<(f64, f64)>, String> {
        Ok(pages
            .iter()
            .zip(need_nums(b, col)?)
            .filter_map(|(p, v)| Some(((*p)?.log2(), v?)))
            .collect())
    };
    let off0 = series("offset0_ns")?;
    if off0.is_empty() {
        return Err("the pages block has no rows".into());
    }
    let lpp = run
        .meta_num("lines_per_page")
        .map_or("lines per page".to_string(), |n| format!("{n:.0}"));
    let mut c = LineChart::new(
        &format!(
            "Translation has a cost: one 8-byte read per page ({})",
            saved.label
        ),
        "pages walked (log2 scale)",
        "time per read (ns, log scale)",
    );
    c.y_log = true;
    c.x_fmt = Some(page_tick);
    c.series.push(Series::new(
        "slot at offset 0 of every page (appendix)",
        off0,
        Mark::LinePoints,
        OFFSET0,
    ));
    c.series.push(Series::new(
        format!("slot on line i mod {lpp}"),
        series("line_ns")?,
        Mark::LinePoints,
        LINE,
    ));

    // Section 3's walks, drawn as single points at their page count.
    let huge = run.block("huge_pages");
    let huge_pages_count = run.meta_num("huge_walk_pages");
    if let (Some(h), Some(n)) = (huge, huge_pages_count) {
        let layout = h.texts("layout").unwrap_or_default();
        let advice = h.texts("advice").unwrap_or_default();
        let ns = need_nums(h, "ns")?;
        for (lay, name, color) in [("offset0", "offset 0", HUGE), ("line", "line i mod n", 5)] {
            let pts: Vec<(f64, f64)> = (0..layout.len())
                .filter(|&i| layout[i] == lay && advice[i] == "hugepage")
                .filter_map(|i| Some((n.log2(), ns[i]?)))
                .collect();
            if !pts.is_empty() {
                c.series.push(Series::new(
                    format!("{name}, huge pages (section 3)"),
                    pts,
                    Mark::Points,
                    color,
                ));
            }
        }
    }

    // The appendix's own output: bare blocks `pages ns`.
    if let Some((label, f)) = appendix_reference(saved, "tlb_walk")? {
        let blk = f
            .bare_blocks()
            .next()
            .ok_or_else(|| format!("the appendix reference ({label}) has no #DATA block"))?;
        let pts: Vec<(f64, f64)> = match (blk.nums("c1"), blk.nums("c2")) {
            (Some(x), Some(y)) => x
                .into_iter()
                .zip(y)
                .filter_map(|(x, y)| Some((x?.log2(), y?)))
                .collect(),
            _ => Vec::new(),
        };
        if pts.is_empty() {
            return Err(format!(
                "the appendix reference ({label}) has no numeric columns 1 and 2"
            ));
        }
        c.series.push(Series::new(
            format!("{label}: slot at offset 0"),
            pts,
            Mark::Dashed,
            REFERENCE,
        ));
    }
    c.size = (1000, 620);
    let mut out = vec![Figure {
        file: "tlb_walk-pages.svg".into(),
        svg: c.render()?,
    }];

    // Huge against small pages, both layouts.
    if let Some(h) = huge {
        let layout = h.texts("layout").unwrap_or_default();
        let advice = h.texts("advice").unwrap_or_default();
        let ns = need_nums(h, "ns")?;
        let pct = need_nums(h, "huge_backing_pct")?;
        let mut bars = BarChart::new(
            &format!(
                "The same walk on 4 KiB pages and on huge pages ({}{})",
                huge_pages_count.map_or(String::new(), |n| format!("{n:.0} pages, ")),
                saved.label
            ),
            "time per read (ns)",
        );
        bars.categories = vec![
            "slot at offset 0".into(),
            format!("slot on line i mod {lpp}"),
        ];
        for (adv, what) in [
            ("nohugepage", "MADV_NOHUGEPAGE"),
            ("hugepage", "MADV_HUGEPAGE"),
        ] {
            let find =
                |lay: &str| (0..layout.len()).find(|&i| layout[i] == lay && advice[i] == adv);
            let backing = find("offset0")
                .and_then(|i| pct[i])
                .map_or("backing unknown".to_string(), |p| {
                    format!("{p:.0}% huge, verified")
                });
            bars.series.push((
                format!("{what} ({backing})"),
                ["offset0", "line"]
                    .iter()
                    .map(|l| find(l).and_then(|i| ns[i]))
                    .collect(),
            ));
        }
        out.push(Figure {
            file: "tlb_walk-huge.svg".into(),
            svg: bars.render()?,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn saved(text: &str) -> Saved {
        Saved::from_text("tlb_walk", text, PathBuf::from("/nonexistent/results/test"))
    }

    const RUN: &str = "\
#META lines_per_page 64
#META huge_walk_pages 65536
#DATA-BEGIN pages
#COLUMNS pages offset0_ns line_ns
#DATA 16 4.0 1.3
#DATA 64 4.1 1.3
#DATA 65536 160 110
#DATA-END
#DATA-BEGIN huge_pages
#COLUMNS layout:text advice:text huge_backing_pct ns
#DATA offset0 nohugepage 0 160
#DATA offset0 hugepage 100 148
#DATA line nohugepage 0 112
#DATA line hugepage 100 69
#DATA-END
";

    #[test]
    fn draws_both_layouts_and_the_huge_comparison_deterministically() {
        let s = saved(RUN);
        let f = draw(&s).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].file, "tlb_walk-pages.svg");
        assert_eq!(f[1].file, "tlb_walk-huge.svg");
        assert!(f[0].svg.contains("line i mod 64"));
        assert!(f[0].svg.contains("huge pages (section 3)"));
        assert!(f[1].svg.contains("100% huge, verified"));
        assert!(f[1].svg.contains("0% huge, verified"));
        let again = draw(&s).unwrap();
        assert_eq!(again[0].svg, f[0].svg);
        assert_eq!(again[1].svg, f[1].svg);
    }

    #[test]
    fn missing_pages_block_is_an_error_naming_it() {
        let e = draw(&saved("#META lines_per_page 64\n")).err().unwrap();
        assert!(e.contains("pages"), "{e}");
    }
}
