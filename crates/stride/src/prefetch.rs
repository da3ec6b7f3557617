//! Prefetchers seen from the outside: the fresh-lines walk at the line size and at 256 bytes,
//! multichase's default stride. Both read one new line per access, with the same loop, from a
//! buffer much larger than the caches; what differs is only how far apart the lines are, and
//! so how much of memory's latency the hardware prefetchers can hide by fetching ahead.
//! The comparison is drawn from section 3's rows; its verdict is
//! [`crate::verdict::prefetch_verdict`], and printing only renders.

use crate::report::{Row, Walks};
use ::stride::schema::prefetch as sc;
use measure::data::Block;
use measure::disturb::Tally;
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
        // Each stride was taken in its own window: the two rows' loads are this reading's.
        let tally = a.tally.merge(&b.tally);
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    fn summary(ns: f64) -> Summary {
        Summary::of(&[ns * 0.99, ns, ns * 1.01]).unwrap()
    }

    /// Rounds of 2x the spacing at `a` and `b` ns; `disturbed` of 30, `elsewhere` cores busy.
    pub(crate) fn prefetch(a: f64, b: f64, disturbed: usize, elsewhere: f64) -> Prefetch {
        let on_core = if disturbed > 0 { 0.5 } else { 0.0 };
        let t = measure::testing::tally(30, disturbed, on_core, elsewhere);
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
    fn the_block_has_one_row_per_stride_and_the_ratio() {
        let b = prefetch(2.0, 6.0, 0, 0.0).block();
        assert_eq!(b.nums(sc::OVER_LINE).unwrap(), vec![Some(1.0), Some(3.0)]);
        assert_eq!(
            b.nums(sc::ACCESSES_PER_PAGE).unwrap(),
            vec![Some(64.0), Some(16.0)]
        );
    }
}
