//! Small formatting helpers every report uses, written once: sizes, grouped integers,
//! yes/no, load averages, the `[median, min, max]` cells of a `#DATA` row, wrapping
//! prose at word boundaries to the report width, and a section's "How to read this run".

use crate::data::Value;
use crate::stats::Summary;

/// The widest line a human report may print (issue: a report that wraps cannot be read).
pub const WIDTH: usize = 100;

/// A byte count the way the appendix writes sizes: `4 KiB`, `48 KiB`, `1 MiB`, `1.5 GiB`.
pub fn bytes(b: u64) -> String {
    crate::facts::human_bytes(b)
}

/// `x` to `digits` significant digits, without an exponent: `sig(23.4234, 4)` = "23.42",
/// `sig(6702.4, 3)` = "6702", `sig(0.0123456, 3)` = "0.0123"; "NA" for NaN or infinity.
pub fn sig(x: f64, digits: usize) -> String {
    if !x.is_finite() {
        return "NA".into();
    }
    if x == 0.0 {
        return "0".into();
    }
    let mag = x.abs().log10().floor() as i32;
    let decimals = (digits as i32 - 1 - mag).clamp(0, 12) as usize;
    let s = format!("{x:.decimals$}");
    // Rounding up to the next power of ten (9.996 -> "10.00") adds a digit: drop one decimal.
    match s.parse::<f64>() {
        Ok(r) if decimals > 0 && r.abs() >= 10f64.powi(mag + 1) => {
            format!("{x:.prec$}", prec = decimals - 1)
        }
        _ => s,
    }
}

/// 2000000 -> "2,000,000".
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `true` -> "yes", `false` -> "no".
pub fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// `Some(true)` -> "yes", `Some(false)` -> "no", `None` -> "unknown".
pub fn yes_no_unknown(b: Option<bool>) -> &'static str {
    b.map_or("unknown", yes_no)
}

/// The three load averages as `0.17 0.52 0.69`, or "unknown".
pub fn load(l: Option<[f64; 3]>) -> String {
    l.map_or("unknown".into(), |[a, b, c]| {
        format!("{a:.2} {b:.2} {c:.2}")
    })
}

/// The `median, min, max` cells of a `#DATA` row, from a summary (`NA` when `None`).
pub fn median_min_max(s: Option<&Summary>) -> [Value; 3] {
    match s {
        Some(s) => [s.median.into(), s.min.into(), s.max.into()],
        None => [Value::Missing, Value::Missing, Value::Missing],
    }
}

/// Wraps `text` at word boundaries so that no line, `indent` included, is wider than
/// [`WIDTH`]; every line starts with `indent`. A single word longer than the width stays
/// whole on its own line.
pub fn wrap(text: &str, indent: &str) -> String {
    wrap_to(text, indent, indent, WIDTH)
}

/// [`wrap`] with a different indent for the first line (`"  * "` then `"    "`) and a width.
pub fn wrap_to(text: &str, first: &str, rest: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::from(first);
    let mut empty = true;
    for word in text.split_whitespace() {
        let fits = line.chars().count() + 1 + word.chars().count() <= width;
        if !empty && !fits {
            out.push_str(line.trim_end());
            out.push('\n');
            line = String::from(rest);
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    out.push_str(line.trim_end());
    out
}

/// Prints `text` wrapped with [`wrap`].
pub fn say(text: &str, indent: &str) {
    println!("{}", wrap(text, indent));
}

/// A report's `  name           : value` line (the name padded to 15 columns, as the machine
/// facts are printed), with the value wrapped under itself to [`WIDTH`].
pub fn field(name: &str, value: &str) -> String {
    wrap_to(value, &format!("  {name:<15}: "), &" ".repeat(19), WIDTH)
}

/// The closing paragraph of a report section: "How to read this run:" and the sentences,
/// computed from the section's numbers, wrapped to [`WIDTH`] under a two-space indent; in an
/// emulated run ([`crate::emulation`]), [`NO_VERDICT`](crate::emulation::NO_VERDICT) instead.
pub fn how_to_read(sentences: &[String]) -> String {
    how_to_read_as(sentences, crate::emulation::emulated())
}

/// [`how_to_read`] for a run that is emulated or not.
pub fn how_to_read_as(sentences: &[String], emulated: bool) -> String {
    if emulated {
        return format!("  {}", crate::emulation::NO_VERDICT);
    }
    wrap_to(
        &format!("How to read this run: {}", sentences.join(" ")),
        "  ",
        "  ",
        WIDTH,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn significant_digits() {
        assert_eq!(sig(23.4234, 4), "23.42");
        assert_eq!(sig(6702.4, 4), "6702");
        assert_eq!(sig(6702.4, 3), "6702");
        assert_eq!(sig(0.0123456, 3), "0.0123");
        assert_eq!(sig(123456.0, 4), "123456");
        assert_eq!(sig(f64::NAN, 3), "NA");
        assert_eq!(sig(0.0, 3), "0");
        assert_eq!(sig(9.996, 3), "10.0");
        assert_eq!(sig(-0.09996, 2), "-0.10");
    }

    #[test]
    fn grouping() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(2_000_000), "2,000,000");
    }

    #[test]
    fn wrapping_keeps_every_word_within_the_width() {
        let text = "the quick brown fox jumps over the lazy dog ".repeat(20);
        let w = wrap_to(&text, "  * ", "    ", 40);
        assert!(w.lines().all(|l| l.chars().count() <= 40), "{w}");
        assert!(w.starts_with("  * the"));
        assert!(
            w.lines()
                .skip(1)
                .all(|l| l.starts_with("    ") && !l.starts_with("     "))
        );
        let words: Vec<&str> = w.split_whitespace().filter(|x| *x != "*").collect();
        assert_eq!(words, text.split_whitespace().collect::<Vec<_>>());
    }

    #[test]
    fn a_long_word_stays_whole() {
        let w = wrap_to(&format!("a {} b", "x".repeat(50)), "", "", 20);
        assert_eq!(w.lines().count(), 3);
    }

    #[test]
    fn a_field_wraps_under_its_value() {
        let f = field("children", &"word ".repeat(40));
        assert!(f.starts_with("  children       : word"), "{f}");
        assert!(f.lines().count() > 1);
        assert!(f.lines().skip(1).all(|l| l.starts_with(&" ".repeat(19))));
        assert!(f.lines().all(|l| l.chars().count() <= WIDTH), "{f}");
    }

    #[test]
    fn a_section_closes_with_how_to_read_it() {
        let say = ["One.".to_string(), "Two ".repeat(40)];
        let t = how_to_read_as(&say, false);
        assert!(t.starts_with("  How to read this run: One. Two"));
        assert!(
            t.lines()
                .all(|l| l.starts_with("  ") && l.chars().count() <= WIDTH)
        );
        assert!(t.lines().count() > 1);
        // Emulated, no sentence is printed: one line says why.
        assert_eq!(
            how_to_read_as(&say, true),
            "  (emulated: no verdict about speed)"
        );
    }

    #[test]
    fn small_forms() {
        assert_eq!(yes_no(true), "yes");
        assert_eq!(yes_no_unknown(None), "unknown");
        assert_eq!(load(Some([0.1, 0.25, 1.0])), "0.10 0.25 1.00");
        assert_eq!(load(None), "unknown");
        assert_eq!(median_min_max(None)[0], Value::Missing);
    }
}
