//! branch's figures: the three variants of the same sum on random and sorted data (grouped
//! bars, each variant labelled with the code shape the program read back from its binary),
//! and the real branch's cost by pattern, beside the appendix's own numbers when saved.

use super::chart::BarChart;
use super::{Figure, Saved, appendix_reference, need_block, need_nums};

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, String> {
    let run = saved.run("branch").ok_or("no branch output")?;

    // Variants: random vs sorted.
    let v = need_block(run, "branch", "variants")?;
    let names = v
        .texts("variant")
        .ok_or("block variants has no variant column")?;
    let shapes = v
        .texts("shape")
        .ok_or("block variants has no shape column")?;
    let random = need_nums(v, "random_ns")?;
    let sorted = need_nums(v, "sorted_ns")?;
    if names.is_empty() {
        return Err("block variants is empty".into());
    }
    let mut c = BarChart::new(
        &format!(
            "The same sum of 4M values, random vs sorted order ({})",
            saved.label
        ),
        "ns per element (median)",
    );
    c.categories = names
        .iter()
        .zip(&shapes)
        .map(|(n, s)| format!("{} [{}]", n.replace('_', " "), s))
        .collect();
    c.series.push(("random order".into(), random));
    c.series.push(("sorted order".into(), sorted));
    let variants = Figure {
        file: "branch-variants.svg".into(),
        svg: c.render()?,
    };

    // Patterns.
    let p = need_block(run, "branch", "patterns")?;
    let pats = p
        .texts("pattern")
        .ok_or("block patterns has no pattern column")?;
    let period = need_nums(p, "period")?;
    let ns = need_nums(p, "median_ns")?;
    if pats.is_empty() {
        return Err("block patterns is empty".into());
    }
    let mut c = BarChart::new(
        &format!(
            "The real branch by pattern: what the predictor can learn ({})",
            saved.label
        ),
        "ns per element (median)",
    );
    c.categories = pats.iter().map(|s| s.replace('_', " ")).collect();
    c.series.push(("real branch, this run".into(), ns));
    // The appendix's C program prints one bare block: period, ns per element.
    if let Some((label, f)) = appendix_reference(saved, "branch")?
        && let Some(b) = f.bare_blocks().find(|b| b.columns.len() >= 2)
    {
        let (per, val) = (need_nums(b, "c1")?, need_nums(b, "c2")?);
        let matched: Vec<Option<f64>> = period
            .iter()
            .map(|want| {
                per.iter()
                    .zip(&val)
                    .find(|(p, _)| p.is_some() && *p == want)
                    .and_then(|(_, v)| *v)
            })
            .collect();
        if matched.iter().any(Option::is_some) {
            c.series.push((label, matched));
        }
    }
    let patterns = Figure {
        file: "branch-patterns.svg".into(),
        svg: c.render()?,
    };
    Ok(vec![variants, patterns])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn saved(text: &str, dir: PathBuf) -> Saved {
        Saved::from_text("branch", text, dir)
    }

    const RUN: &str = "\
#DATA-BEGIN variants
#COLUMNS variant:text shape:text random_ns random_min_ns random_max_ns sorted_ns sorted_min_ns sorted_max_ns random_over_sorted
#DATA as_written vectorised 0.19 0.18 0.2 0.19 0.18 0.2 1
#DATA real_branch_kept branch 4.27 4.2 7.1 0.5 0.49 0.51 8.6
#DATA branchless_arithmetic cmov 0.43 0.42 0.5 0.42 0.42 0.43 1.01
#DATA-END
#DATA-BEGIN patterns
#COLUMNS pattern:text period taken_share median_ns min_ns max_ns vs_always implied_miss_share
#DATA always_true 1 1 0.5 0.49 0.56 1 0
#DATA alternating 2 0.5 0.5 0.49 0.51 1 0
#DATA one_in_four 4 0.25 0.5 0.49 0.52 1 0
#DATA one_in_sixteen 16 0.0625 0.5 0.49 0.52 1 0
#DATA random 0 0.5 4.24 4.19 5.59 8.4 0.5
#DATA-END
";

    #[test]
    fn draws_both_figures_deterministically() {
        let s = saved(RUN, PathBuf::from("/nonexistent/results/test"));
        let f = draw(&s).unwrap();
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].file, "branch-variants.svg");
        assert_eq!(f[1].file, "branch-patterns.svg");
        assert!(f[0].svg.contains("as written [vectorised]"));
        assert!(f[0].svg.contains("sorted order"));
        assert!(f[1].svg.contains("one in sixteen"));
        assert!(!f[1].svg.contains("appendix"));
        let again = draw(&s).unwrap();
        assert_eq!(again[0].svg, f[0].svg);
        assert_eq!(again[1].svg, f[1].svg);
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
        assert!(f[1].svg.contains("appendix C program, this machine"));
    }

    #[test]
    fn a_missing_block_is_an_error_naming_it() {
        let e = draw(&saved("#META n 4194304\n", PathBuf::from("/x")))
            .err()
            .unwrap();
        assert!(e.contains("variants"), "{e}");
        let only = RUN.split("#DATA-BEGIN patterns").next().unwrap();
        let e = draw(&saved(only, PathBuf::from("/x"))).err().unwrap();
        assert!(e.contains("patterns"), "{e}");
    }
}
