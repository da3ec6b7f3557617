//! Printing that several experiments do alike, written once: a reading marked by its
//! evidence, a prepared region's line (what was asked, what the kernel answered, how much of
//! it huge pages back), and the two `#DATA` blocks of the same shape in more than one report
//! (a series of samples by index; labelled `median, min, max` rows), ready to print.
//!
//! The formatting itself (wrapping, cells) is [`crate::fmt`]'s.

use crate::data::{Block, Value};
use crate::disturb::Tally;
use crate::fmt::{WIDTH, median_min_max, wrap_to};
use crate::mem::{Prepared, show_backing};
use crate::stats::Summary;

/// The sentences of a reading drawn from the rounds `tally` counts, marked as the evidence
/// demands: when the result is provisional, the first sentence begins "provisional: 9 of 31
/// rounds were disturbed (...); the clean rounds give: "; when `shared` (the sentences read the
/// shared levels: the last cache level, memory, boundaries read from a curve) and other cores
/// were busy meanwhile, a sentence naming the contention follows. A quiet run's sentences come
/// back as they are. Pure: verdict functions call it and tests check it.
pub fn marked(tally: &Tally, shared: bool, sentences: Vec<String>) -> Vec<String> {
    let mut out = sentences;
    if let (Some(mark), Some(first)) = (tally.mark(), out.first_mut()) {
        *first = format!("{mark}{first}");
    }
    if shared {
        out.extend(contention(tally));
    }
    out
}

/// The sentence [`marked`] adds to a shared-level reading when other cores were busy while
/// `tally`'s rounds ran; nothing otherwise.
pub fn contention(tally: &Tally) -> Option<String> {
    tally
        .contention()
        .map(|c| format!("{c}: the shared levels read here are theirs too."))
}

/// The line of a prepared region: `{asked}{the kernel's answer}; on huge pages: {verified
/// share}`, wrapped to [`WIDTH`] under `first`, continued under `rest`. `asked` says what was
/// asked of the region (empty where `first` says it already).
pub fn region_line(first: &str, rest: &str, asked: &str, p: &Prepared) -> String {
    let text = format!(
        "{asked}{}; on huge pages: {}",
        p.request(),
        show_backing(p.backing)
    );
    wrap_to(&text, first, rest, WIDTH)
}

/// The block `name` of a series: one row a sample, `[index, value]`, from index 0.
pub fn series(name: &str, columns: &[&str], values: &[f64]) -> Block {
    let mut b = Block::new(name, columns);
    for (i, v) in values.iter().enumerate() {
        b.row(vec![i.into(), (*v).into()]);
    }
    b
}

/// The block `name` of labelled summaries: one row a label, `[label, median, min, max]`.
pub fn summaries(name: &str, columns: &[&str], rows: &[(&str, &Summary)]) -> Block {
    let mut b = Block::new(name, columns);
    for (label, s) in rows {
        let mut row: Vec<Value> = vec![(*label).into()];
        row.extend(median_min_max(Some(s)));
        b.row(row);
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mem::{HugeAdvice, Region};

    #[test]
    fn a_reading_is_marked_only_when_its_rounds_were_disturbed() {
        use crate::disturb::Load;
        let say = || {
            vec![
                "L1 reads in 1.1 ns.".to_string(),
                "Memory is 150x slower.".into(),
            ]
        };
        let quiet = Tally {
            rounds: 31,
            load: Some(Load {
                on_core: Some(0.0),
                elsewhere: Some(0.0),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert_eq!(marked(&quiet, true, say()), say());
        let busy = Tally {
            rounds: 31,
            disturbed: 9,
            load: Some(Load {
                core: Some(1),
                on_core: Some(0.5),
                ..Default::default()
            }),
            ..Default::default()
        };
        let m = marked(&busy, false, say());
        assert_eq!(m.len(), 2);
        assert!(m[0].starts_with("provisional: 9 of 31 rounds were disturbed (0.50 cores of other work on core 1); the clean rounds give: L1 reads"), "{m:?}");
        let streamer = Tally {
            rounds: 31,
            load: Some(Load {
                on_core: Some(0.0),
                elsewhere: Some(0.95),
                ..Default::default()
            }),
            ..Default::default()
        };
        let m = marked(&streamer, true, say());
        assert_eq!(m.len(), 3);
        assert!(m[2].starts_with("contention: 0.95 cores"), "{m:?}");
        assert_eq!(
            marked(&streamer, false, say()),
            say(),
            "only shared-level readings name it"
        );
    }

    #[test]
    fn a_series_is_numbered_from_zero_and_summaries_keep_their_labels() {
        assert_eq!(
            series("s", &["round", "ns"], &[5.0, 7.5]).render(),
            "#DATA-BEGIN s\n#COLUMNS round ns\n#DATA 0 5\n#DATA 1 7.5\n#DATA-END\n"
        );
        let (a, b) = (
            Summary::of(&[3.0, 1.0, 2.0]).unwrap(),
            Summary::of(&[9.0]).unwrap(),
        );
        let cols = ["what:text", "median", "min", "max"];
        assert_eq!(
            summaries("m", &cols, &[("a", &a), ("b", &b)]).render(),
            "#DATA-BEGIN m\n#COLUMNS what:text median min max\n#DATA a 2 1 3\n#DATA b 9 9 9\n\
             #DATA-END\n"
        );
    }

    #[test]
    fn a_region_line_says_what_was_asked_and_what_backs_it() {
        let p = Prepared {
            region: Region::new(4096).unwrap(),
            advice: HugeAdvice::NoHuge,
            asked: Err("refused (EINVAL)".into()),
            backing: None,
        };
        let line = region_line("  huge: ", "    ", "MADV_HUGEPAGE ", &p);
        assert_eq!(
            line,
            "  huge: MADV_HUGEPAGE refused (EINVAL); on huge pages: unknown \
             (/proc/self/smaps unreadable)"
        );
        let p = Prepared {
            asked: Ok(()),
            backing: Some(100.0),
            ..p
        };
        let long = "x".repeat(70);
        let line = region_line("  r: ", "     ", &format!("{long} "), &p);
        assert_eq!(
            line,
            format!(
                "  r: {long} accepted; on huge pages:\n     100% (verified in /proc/self/smaps)"
            )
        );
    }
}
