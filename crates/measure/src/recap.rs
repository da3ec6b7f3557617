//! The recap that ends every report, within one screen: the key figures (as
//! [`Experiment::key_figure`](crate::run::Experiment::key_figure) recorded them) and one line
//! per section that concluded something (its first reading, shortened), each marked as the
//! summary marks it: "provisional:" first where the rounds behind it were disturbed,
//! "(contention)" after it where other cores were busy. A 110-line report's tables have
//! scrolled away by its end; this is what is left on the screen.
//!
//! The readings are collected as they are printed, by the experiment's own
//! [`Out`](crate::out::Out): [`Out::conclude`](crate::out::Out::conclude) and
//! [`Out::how_to_read`](crate::out::Out::how_to_read) note each sentence,
//! [`Experiment::section`] opens a new section. [`lines`] is pure; the tests check it.
//!
//! [`Experiment::section`]: crate::run::Experiment::section

use crate::data::Block;
use crate::fmt::WIDTH;

/// The recap's heading.
pub const HEADING: &str = "== recap: the key figures, and each section's first reading ==";

/// The most lines the recap prints under its heading.
pub const MAX_LINES: usize = 10;

/// What one section concluded: its number ("4", "2b"; empty where its title has none), its
/// first reading, and whether any of its readings was marked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reading {
    pub section: String,
    pub first: Option<String>,
    pub provisional: bool,
    pub contended: bool,
}

/// A key figure as the recap shows it: "ladder_factor 185x", with its marks.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figure {
    pub shown: String,
    pub provisional: bool,
    pub contended: bool,
}

/// The number of a section titled `title`: "2b" for "2b. the same source, built two ways",
/// empty where the title has none.
pub(crate) fn section_number(title: &str) -> &str {
    title
        .split_whitespace()
        .next()
        .and_then(|w| w.strip_suffix('.'))
        .filter(|n| n.starts_with(|c: char| c.is_ascii_digit()))
        .unwrap_or("")
}

/// Adds `sentence` to `r`: the first one that is not only a contention note becomes its
/// reading; a "provisional:" or "contention:" opening marks it.
pub(crate) fn add(r: &mut Reading, sentence: &str) {
    let s = sentence.trim();
    r.provisional |= s.starts_with("provisional:");
    let contention = s.starts_with("contention:");
    r.contended |= contention;
    if r.first.is_none() && !contention && !s.is_empty() {
        r.first = Some(s.to_string());
    }
}

/// The key figures of an experiment (its `key_figures` block), each marked by the result it
/// comes from (by its `sources`, [`crate::key::source`]) in its `disturbance` block, by every
/// result together where it is read from several or its result was not recorded, and not at
/// all where no timed round gave it: the rule the summary uses.
pub fn figures(
    sources: crate::key::Sources,
    key_figures: &Block,
    disturbance: &Block,
) -> Vec<Figure> {
    use crate::schema::disturbance as d;
    let (res, prov, cont) = (
        disturbance.texts(d::RESULT).unwrap_or_default(),
        disturbance.texts(d::PROVISIONAL).unwrap_or_default(),
        disturbance.texts(d::CONTENDED).unwrap_or_default(),
    );
    // The marks (provisional, contended) of the results of `from`, or of every result;
    // `None` where there is no such result.
    let marks = |from: Option<&str>| {
        let rows: Vec<usize> = (0..res.len())
            .filter(|&i| from.is_none_or(|b| crate::key::of_block(&res[i], b)))
            .collect();
        let yes = |col: &[String]| rows.iter().any(|&i| col.get(i).is_some_and(|v| v == "yes"));
        (!rows.is_empty()).then(|| (yes(&prov), yes(&cont)))
    };
    let whole = || marks(None).unwrap_or_default();
    let key = crate::key::read_block(key_figures);
    key.into_iter()
        .map(|k| {
            use crate::key::Source;
            let (p, c) = match crate::key::source(sources, &k.name) {
                Source::Untimed => (false, false),
                // A result that was not recorded: every result's marks stand in.
                Source::Result(b) => marks(Some(b)).unwrap_or_else(whole),
                Source::WholeRun => whole(),
            };
            Figure {
                shown: format!("{} {}", k.name, k.show(3)),
                provisional: p,
                contended: c,
            }
        })
        .collect()
}

/// The recap's lines (at most [`MAX_LINES`], none wider than [`WIDTH`]), under the heading
/// the caller prints: the key figures packed several to a line (the provisional ones on lines
/// of their own that begin "provisional:"), then one `*` line per section's reading. Where
/// everything does not fit, the last line says how much was left out.
pub fn lines(figures: &[Figure], readings: &[Reading], emulated: bool) -> Vec<String> {
    let figs = pack(figures);
    if emulated {
        let no = format!("  {}", crate::emulation::NO_VERDICT);
        return figs
            .into_iter()
            .map(|(l, _)| l)
            .take(MAX_LINES - 1)
            .chain([no])
            .collect();
    }
    if figs.len() + readings.len() <= MAX_LINES {
        // Spare lines go to the readings, in order: two lines each instead of one.
        let mut spare = MAX_LINES - figs.len() - readings.len();
        let mut out: Vec<String> = figs.into_iter().map(|(l, _)| l).collect();
        for r in readings {
            let two = reading_lines(r, 2);
            let take = if two.len() == 2 && spare > 0 { 2 } else { 1 };
            spare -= take - 1;
            out.extend(if take == 2 { two } else { reading_lines(r, 1) });
        }
        return out;
    }
    // One line says what was left out; the readings keep at least five lines.
    let room = MAX_LINES - 1;
    let keep_said = readings.len().min(room.saturating_sub(figs.len()).max(5));
    let keep_figs = figs.len().min(room - keep_said);
    let figs_left: usize = figs[keep_figs..].iter().map(|(_, n)| n).sum();
    let mut out: Vec<String> = figs.into_iter().take(keep_figs).map(|(l, _)| l).collect();
    out.extend(
        readings[..keep_said]
            .iter()
            .flat_map(|r| reading_lines(r, 1)),
    );
    out.push(left_out(figs_left, readings.len() - keep_said));
    out
}

/// "  (3 more key figures in the data part, and 2 more sections' readings above)".
fn left_out(figs: usize, said: usize) -> String {
    let mut parts = Vec::new();
    if figs > 0 {
        parts.push(format!("{figs} more key figure(s) in the data part"));
    }
    if said > 0 {
        parts.push(format!("{said} more section(s)' readings above"));
    }
    format!("  ({})", parts.join(", and "))
}

/// The key figures, several to a line within [`WIDTH`], grouped by their marks: the
/// provisional ones first, on lines that begin "provisional:" (or "provisional, contention:"),
/// then those measured under contention ("contention:"), then the others. Each line with the
/// number of figures on it.
fn pack(figures: &[Figure]) -> Vec<(String, usize)> {
    let groups = [
        (true, true, "  provisional, contention: "),
        (true, false, "  provisional: "),
        (false, true, "  contention: "),
        (false, false, "  "),
    ];
    let mut out = Vec::new();
    for (p, c, first) in groups {
        let mut line = String::from(first);
        let mut n = 0;
        for f in figures
            .iter()
            .filter(|f| (f.provisional, f.contended) == (p, c))
        {
            if n > 0 && line.chars().count() + 2 + f.shown.chars().count() > WIDTH {
                out.push((std::mem::replace(&mut line, first.to_string()), n));
                n = 0;
            }
            if n > 0 {
                line.push_str(", ");
            }
            line.push_str(&f.shown);
            n += 1;
        }
        if n > 0 {
            out.push((line, n));
        }
    }
    out
}

/// One section's reading in at most `max` lines: `  * ` its first sentence (a "provisional:
/// N of M rounds were disturbed (...); the clean rounds give:" opening shortened to
/// "provisional:"), cut at a word with " …" where it is too long, then the section and
/// "contention" where other cores were busy.
fn reading_lines(r: &Reading, max: usize) -> Vec<String> {
    let first = first_sentence(r.first.as_deref().unwrap_or(""));
    let text = match clean_part(first) {
        Some(clean) => format!("provisional: {clean}"),
        None if r.provisional && !first.starts_with("provisional:") => {
            format!("provisional: {first}")
        }
        None => first.to_string(),
    };
    let mut notes = Vec::new();
    if !r.section.is_empty() {
        notes.push(format!("section {}", r.section));
    }
    if r.contended {
        notes.push("contention".to_string());
    }
    let tail = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join(", "))
    };
    let mut room = max * (WIDTH - 4) - tail.chars().count();
    loop {
        let said = format!("{}{tail}", shorten(&text, room));
        let wrapped = crate::fmt::wrap_to(&said, "  * ", "    ", WIDTH);
        if wrapped.lines().count() <= max || room < 20 {
            return wrapped.lines().map(str::to_string).collect();
        }
        room -= 8;
    }
}

/// The first sentence of `s`: up to a ". " before a capital letter.
fn first_sentence(s: &str) -> &str {
    let b = s.as_bytes();
    (1..b.len().saturating_sub(2))
        .find(|&i| b[i] == b'.' && b[i + 1] == b' ' && b[i + 2].is_ascii_uppercase())
        .map_or(s, |i| &s[..=i])
}

/// What a marked reading says after its mark: the words after "provisional: ...; basis: ".
pub(crate) fn clean_part(s: &str) -> Option<&str> {
    let rest = s.strip_prefix("provisional:")?;
    crate::disturb::BASES
        .iter()
        .filter_map(|b| rest.find(&format!("; {b}: ")).map(|i| (i, b.len() + 4)))
        .min()
        .map(|(i, n)| rest[i + n..].trim())
}

/// `text` cut at a word boundary to at most `room` characters, ending " …" where cut.
fn shorten(text: &str, room: usize) -> String {
    if text.chars().count() <= room {
        return text.to_string();
    }
    let mut out = String::new();
    for w in text.split_whitespace() {
        let next = out.chars().count() + usize::from(!out.is_empty()) + w.chars().count();
        if next + 2 > room {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    if out.is_empty() {
        out = text.chars().take(room.saturating_sub(2)).collect();
    }
    format!("{} …", out.trim_end_matches([',', ';', ':']))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Value;

    fn fig(shown: &str, provisional: bool, contended: bool) -> Figure {
        Figure {
            shown: shown.into(),
            provisional,
            contended,
        }
    }

    fn reading(section: &str, sentences: &[&str]) -> Reading {
        let mut r = Reading {
            section: section.into(),
            ..Default::default()
        };
        sentences.iter().for_each(|s| add(&mut r, s));
        r
    }

    fn fits(lines: &[String]) {
        assert!(lines.len() <= MAX_LINES, "{lines:#?}");
        for l in lines {
            assert!(l.chars().count() <= WIDTH, "{l}");
            assert!(!l.starts_with('#') && !l.trim().is_empty(), "{l:?}");
        }
    }

    /// The reading after a mark is found by the mark's basis, whatever the mark's own
    /// parentheses hold (a "; " or a ": " of a share reading, say).
    #[test]
    fn the_reading_after_a_mark_is_found_past_any_punctuation_in_the_mark() {
        let s = "provisional: 0 of 9 rounds were disturbed, and the core's share moved (3.6x to \
                 2.0x: likely another thread; say) (in 2 of 9 parts); the rounds rebuilt from \
                 clean segments give: the walk costs 5 ns: a miss.";
        assert_eq!(clean_part(s), Some("the walk costs 5 ns: a miss."));
        let s = "provisional: 3 of 9 rounds were disturbed; where a figure had no clean round \
                 its disturbed rounds stand in; the rest give: 65536 pages cost 9x.";
        assert_eq!(clean_part(s), Some("65536 pages cost 9x."));
        assert_eq!(clean_part("L1 reads in 1.1 ns; memory: 150x."), None);
    }

    #[test]
    fn key_figures_take_the_mark_of_the_result_they_come_from() {
        use crate::schema::{disturbance as d, key_figures as k};
        // An experiment that names `latency` as its ladder factor's block.
        const SOURCES: crate::key::Sources = &[
            ("ladder_factor", "latency"),
            ("stack_shift", crate::key::UNTIMED),
            ("mlp_memory_in_flight", crate::key::WHOLE_RUN),
        ];
        let mut key = Block::new(k::BLOCK, k::COLUMNS);
        for (name, v) in [
            ("ladder_factor", 185.4),
            ("mlp_memory_in_flight", 15.75),
            ("stack_shift", 64.0),
        ] {
            key.row(vec![name.into(), v.into(), "x".into()]);
        }
        key.row(vec!["gone".into(), Value::Missing, "ns".into()]);
        let mut dist = Block::new(d::BLOCK, d::COLUMNS);
        let row = |result: &str, p: &str, c: &str| -> Vec<Value> {
            let mut r: Vec<Value> = vec![result.into()];
            r.extend((0..6).map(|_| Value::from(0.0)));
            r.extend([p.into(), c.into()]);
            r.extend([
                Value::Missing,
                Value::Missing,
                Value::Missing,
                1.into(),
                Value::Missing,
                Value::Missing,
            ]);
            r
        };
        dist.row(row("latency/index", "no", "no"));
        dist.row(row("latency/pointer", "no", "yes"));
        dist.row(row("mlp", "yes", "no"));
        let f = figures(SOURCES, &key, &dist);
        // The ladder factor comes from `latency`: contended, not provisional.
        assert_eq!(f[0], fig("ladder_factor 185x", false, true));
        // A figure read from the whole run (or not listed) takes every result's marks.
        assert_eq!(f[1], fig("mlp_memory_in_flight 15.8x", true, true));
        // One that no round gave takes none.
        assert_eq!(f[2], fig("stack_shift 64.0x", false, false));
        assert_eq!(f[3].shown, "gone not measured");
        // A quiet run marks nothing.
        let quiet = Block::new(d::BLOCK, d::COLUMNS);
        assert!(
            figures(SOURCES, &key, &quiet)
                .iter()
                .all(|f| !f.provisional)
        );
    }

    #[test]
    fn provisional_figures_and_readings_say_so_first() {
        let figs = [
            fig("clock_read 23.8 ns", false, false),
            fig("ladder_factor 108x", true, false),
            fig("l3_ns 40.1 ns", false, true),
        ];
        let busy = reading(
            "4",
            &[
                "provisional: 9 of 31 rounds were disturbed (0.50 cores of other work on core 1); \
                 the clean rounds give: L1 reads in 1.1 ns. Memory is 150x slower.",
                "contention: 0.95 cores of other work ran on the other cores meanwhile",
            ],
        );
        let calm = reading("", &["the clocks claim 1 ns or better."]);
        let lines = lines(&figs, &[busy, calm], false);
        fits(&lines);
        assert_eq!(
            lines,
            [
                "  provisional: ladder_factor 108x",
                "  contention: l3_ns 40.1 ns",
                "  clock_read 23.8 ns",
                "  * provisional: L1 reads in 1.1 ns. (section 4, contention)",
                "  * the clocks claim 1 ns or better.",
            ]
        );
    }

    #[test]
    fn a_later_provisional_sentence_marks_the_section_and_contention_is_not_its_reading() {
        let r = reading(
            "2b",
            &[
                "contention: 0.95 cores of other work",
                "sorted data runs 10x faster",
                "provisional: 3 of 9 rounds were disturbed; the clean rounds give: the rest",
            ],
        );
        assert_eq!(
            reading_lines(&r, 1),
            ["  * provisional: sorted data runs 10x faster (section 2b, contention)"]
        );
    }

    #[test]
    fn long_readings_are_cut_at_a_word_and_spare_lines_widen_them() {
        let long = "word ".repeat(60);
        let r = reading("3", &[&long]);
        let one = reading_lines(&r, 1);
        assert_eq!(one.len(), 1);
        assert!(one[0].ends_with("word … (section 3)"), "{one:?}");
        assert_eq!(reading_lines(&r, 2).len(), 2);
        // One figure line and one reading: the reading gets a second line.
        let l = lines(&[fig("a 1 ns", false, false)], &[r], false);
        assert_eq!(l.len(), 3, "{l:#?}");
        fits(&l);
    }

    #[test]
    fn too_much_is_cut_to_one_screen_and_says_what_was_left_out() {
        let figs: Vec<Figure> = (0..40)
            .map(|i| fig(&format!("figure_number_{i} {i}.5 ns"), i % 3 == 0, false))
            .collect();
        let rs: Vec<Reading> = (0..8)
            .map(|i| reading(&i.to_string(), &["a short reading."]))
            .collect();
        let l = lines(&figs, &rs, false);
        fits(&l);
        assert_eq!(l.len(), MAX_LINES);
        assert_eq!(l.iter().filter(|l| l.starts_with("  * ")).count(), 5);
        let last = l.last().unwrap();
        assert!(
            last.contains("more key figure(s) in the data part"),
            "{last}"
        );
        assert!(last.contains("3 more section(s)' readings above"), "{last}");
        // What is left out is counted: shown plus left out is every figure.
        let shown: usize = l[..4].iter().map(|l| l.matches(" ns").count()).sum();
        let left: usize = last[3..]
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(shown + left, 40, "{l:#?}");
    }

    #[test]
    fn an_emulated_recap_withholds_its_verdicts() {
        let l = lines(&[fig("a 1 ns", false, false)], &[], true);
        assert_eq!(l, ["  a 1 ns", "  (emulated: no verdict about speed)"]);
    }

    #[test]
    fn a_section_is_known_by_its_number() {
        assert_eq!(section_number("2b. the same source, built two ways"), "2b");
        assert_eq!(section_number("4. time for one read"), "4");
        assert_eq!(section_number("the setup"), "");
        assert_eq!(section_number("how this is measured"), "");
        assert_eq!(first_sentence("1.5 ns. Then more."), "1.5 ns.");
    }
}
