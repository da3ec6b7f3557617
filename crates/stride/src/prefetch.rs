//! Prefetchers seen from the outside: the fresh-lines walk at the line size and at 256 bytes,
//! multichase's default stride. Both read one new line per access, with the same loop, from a
//! buffer much larger than the caches; what differs is only how far apart the lines are, and
//! so how much of memory's latency the hardware prefetchers can hide by fetching ahead.
//! Everything here is a pure function of section 3's rows; printing only renders.

use crate::report::{Row, Walks};
use ::stride::schema::prefetch as sc;
use measure::data::Block;
use measure::disturb::Tally;
use measure::scan::DEFAULT_TOLERANCE;
use measure::show;
use measure::stats::Summary;

/// The wide stride: multichase's default, chosen there so that the adjacent-line and stream
/// prefetchers help less.
pub const WIDE: u64 = 256;

/// The two rows compared, and the rounds behind them with the section's load.
pub struct Prefetch {
    pub line: u64,
    pub page: u64,
    pub at_line: Summary,
    pub wide: Summary,
    /// Rounds behind each row: (line row, wide row).
    pub rounds: (Tally, Tally),
    /// Both rows' rounds, with the load around section 3.
    pub tally: Tally,
}

impl Prefetch {
    /// The comparison from section 3's rows, or why there is none.
    pub fn of(w: &Walks, page: u64) -> Result<Prefetch, String> {
        let line = w.line.ok_or("the line size is unknown")?;
        if line >= WIDE {
            return Err(format!(
                "the line ({line} bytes) is not narrower than {WIDE} bytes"
            ));
        }
        let at = |s: u64| w.rows.iter().find(|r: &&Row| r.stride == s);
        let (Some(a), Some(b)) = (at(line), at(WIDE)) else {
            return Err(format!("no row at {line} or {WIDE} bytes"));
        };
        let mut tally = a.tally.merge(&b.tally);
        tally.load = w.tally.load;
        Ok(Prefetch {
            line,
            page,
            at_line: a.fresh,
            wide: b.fresh,
            rounds: (a.tally, b.tally),
            tally,
        })
    }

    /// The wide stride's cost over the line-sized one's.
    pub fn ratio(&self) -> f64 {
        self.wide.median / self.at_line.median
    }

    /// The `prefetch` block: one row per stride.
    pub fn block(&self) -> Block {
        let mut b = Block::new(sc::BLOCK, sc::COLUMNS);
        for (s, t, r) in [
            (self.line, &self.at_line, &self.rounds.0),
            (WIDE, &self.wide, &self.rounds.1),
        ] {
            b.row(vec![
                s.into(),
                t.median.into(),
                t.min.into(),
                t.max.into(),
                (t.median / self.at_line.median).into(),
                (self.page / s).into(),
                r.rounds.into(),
                r.disturbed.into(),
            ]);
        }
        b
    }
}

/// The reading: what the wider spacing costs, marked by [`show::marked`] (memory is shared).
pub fn reading(p: &Prefetch) -> Vec<String> {
    let r = p.ratio();
    let (a, b) = (&p.at_line, &p.wide);
    let costs = format!(
        "{:.2} ns per access at {} bytes, {:.2} ns at {WIDE} bytes ({r:.2}x)",
        a.median, p.line, b.median
    );
    let verdict = if r > 1.0 + DEFAULT_TOLERANCE && b.min > a.max {
        format!(
            "the prefetchers hide less when each access skips {} lines, as multichase assumes \
             when it walks {WIDE} bytes apart.",
            WIDE / p.line - 1
        )
    } else if r < 1.0 - DEFAULT_TOLERANCE && b.max < a.min {
        "the wider spacing was cheaper: not the prefetchers' lesson; ask what else differs \
         (pages, the walk's order)."
            .to_string()
    } else if (1.0 - DEFAULT_TOLERANCE..=1.0 + DEFAULT_TOLERANCE).contains(&r) {
        format!(
            "about the same: here the prefetchers follow a {WIDE}-byte stride as well as a \
             {}-byte one, or neither walk is held by memory's latency.",
            p.line
        )
    } else {
        "but the rounds of the two strides overlap: no clear difference in this run.".to_string()
    };
    let sentences = vec![format!(
        "the fresh-lines walk reads one new line per access at both strides, with the same loop \
         ({} and {} accesses per {} page): {costs}; {verdict}",
        p.page / p.line,
        p.page / WIDE,
        measure::fmt::bytes(p.page),
    )];
    show::marked(&p.tally, true, sentences)
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::disturb::Load;

    fn summary(ns: f64) -> Summary {
        Summary::of(&[ns * 0.99, ns, ns * 1.01]).unwrap()
    }

    fn prefetch(a: f64, b: f64, disturbed: usize, elsewhere: f64) -> Prefetch {
        let t = Tally {
            rounds: 30,
            disturbed,
            load: Some(Load {
                core: Some(1),
                on_core: Some(if disturbed > 0 { 0.5 } else { 0.0 }),
                steal: Some(0.0),
                elsewhere: Some(elsewhere),
                ..Default::default()
            }),
            ..Default::default()
        };
        Prefetch {
            line: 64,
            page: 4096,
            at_line: summary(a),
            wide: summary(b),
            rounds: (t, t),
            tally: t,
        }
    }

    #[test]
    fn a_dearer_wide_stride_is_read_as_the_prefetchers_quietly() {
        let s = reading(&prefetch(2.0, 6.0, 0, 0.0));
        let all = s.join(" ");
        assert!(all.contains("(3.00x)"), "{all}");
        assert!(
            all.contains("hide less when each access skips 3 lines"),
            "{all}"
        );
        assert!(!all.contains("provisional") && !all.contains("contention"));
        assert!(all.contains("(64 and 16 accesses per 4 KiB page)"), "{all}");
    }

    #[test]
    fn equal_costs_are_not_read_as_the_prefetchers() {
        let all = reading(&prefetch(5.0, 5.1, 0, 0.0)).join(" ");
        assert!(all.contains("about the same"), "{all}");
        assert!(!all.contains("hide less"), "{all}");
    }

    #[test]
    fn disturbed_rounds_mark_the_first_words_and_contention_is_named() {
        let s = reading(&prefetch(2.0, 6.0, 9, 0.0));
        assert!(s[0].starts_with("provisional: 9 of 30 rounds"), "{}", s[0]);
        let s = reading(&prefetch(2.0, 6.0, 0, 0.9));
        assert!(!s[0].starts_with("provisional"));
        assert!(s.last().unwrap().starts_with("contention"), "{s:?}");
    }

    #[test]
    fn the_block_has_one_row_per_stride_and_the_ratio() {
        let b = prefetch(2.0, 6.0, 0, 0.0).block();
        assert_eq!(b.nums(sc::OVER_LINE).unwrap(), vec![Some(1.0), Some(3.0)]);
        assert_eq!(
            b.nums(sc::ACCESSES_PER_PAGE).unwrap(),
            vec![Some(64.0), Some(16.0)]
        );
    }
}
