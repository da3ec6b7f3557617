//! `cargo xtask compare A B`: two machines' key figures side by side, with the ratio B/A.

use measure::data::DataFile;
use std::path::PathBuf;

pub fn command(args: &[String]) -> crate::error::Result<()> {
    use crate::error::bad;
    if args.len() != 2 || args.iter().any(|a| a.starts_with("--")) {
        return Err(bad(
            "compare wants two results folders: cargo xtask compare results/A results/B",
        ));
    }
    let a = crate::figures::Saved::load(&PathBuf::from(&args[0])).map_err(bad)?;
    let b = crate::figures::Saved::load(&PathBuf::from(&args[1])).map_err(bad)?;
    println!(
        "| experiment | figure | {} | {} | {} / {} |",
        a.label, b.label, b.label, a.label
    );
    println!("|---|---|---:|---:|---:|");
    for exp in crate::project::EXPERIMENTS {
        let (ka, kb) = (key_figures(a.run(exp)), key_figures(b.run(exp)));
        let mut names: Vec<&String> = ka.iter().map(|k| &k.0).collect();
        for k in &kb {
            if !names.contains(&&k.0) {
                names.push(&k.0);
            }
        }
        for n in names {
            let va = ka.iter().find(|k| &k.0 == n);
            let vb = kb.iter().find(|k| &k.0 == n);
            let show = |v: Option<&(String, Option<f64>, String)>| match v {
                Some((_, Some(x), u)) => format!("{} {u}", sig4(*x)),
                Some((_, None, _)) => "not measured".into(),
                None => "-".into(),
            };
            let ratio = match (va.and_then(|v| v.1), vb.and_then(|v| v.1)) {
                (Some(x), Some(y)) if x != 0.0 => format!("{:.2} x", y / x),
                _ => "-".into(),
            };
            println!("| {exp} | {n} | {} | {} | {ratio} |", show(va), show(vb));
        }
    }
    Ok(())
}

/// A number with four significant digits for tables ("23.42", "0.01234", "6702").
pub fn sig4(x: f64) -> String {
    if !x.is_finite() {
        return "NA".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (3 - mag).clamp(0, 12) as usize;
    format!("{x:.decimals$}")
}

/// `(figure, value, unit)` from an experiment's `key_figures` block.
pub fn key_figures(f: Option<&DataFile>) -> Vec<(String, Option<f64>, String)> {
    let Some(b) = f.and_then(|f| f.block("key_figures")) else {
        return Vec::new();
    };
    let (Some(n), Some(v), Some(u)) = (b.texts("figure"), b.nums("value"), b.texts("unit")) else {
        return Vec::new();
    };
    n.into_iter()
        .zip(v)
        .zip(u)
        .map(|((n, v), u)| (n, v, u))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::sig4;

    #[test]
    fn four_significant_digits() {
        assert_eq!(sig4(23.4234), "23.42");
        assert_eq!(sig4(6702.4), "6702");
        assert_eq!(sig4(0.0123456), "0.01235");
        assert_eq!(sig4(123456.0), "123456");
        assert_eq!(sig4(f64::NAN), "NA");
    }
}
