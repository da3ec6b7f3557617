//! The mechanics of the page walk: where each page's slot sits, and the interleaved rounds.

use measure::chase::{Link, Plan, Ring};
use measure::disturb::Probe;
use measure::mem::Region;
use measure::rounds::Timed;
use measure::stats::{Summary, sorted_but_largest};

/// Where page `i`'s 8-byte slot sits inside the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// At offset 0 of every page, as the appendix does. Every slot then has the same page
    /// offset, so all of them map to the same few cache sets: the walk mixes set conflicts
    /// into the cost of translation.
    Offset0,
    /// Page `i` uses line `i mod lines-per-page`: the slots spread over every cache set, and
    /// what remains of the rise with the page count is translation.
    LineSpread,
}

impl Layout {
    pub fn name(&self) -> &'static str {
        match self {
            Layout::Offset0 => "offset0",
            Layout::LineSpread => "line",
        }
    }

    /// The layout in words, for the tables and the verdicts.
    pub fn label(&self) -> &'static str {
        match self {
            Layout::Offset0 => "slot at offset 0",
            Layout::LineSpread => "slot on line i mod lines",
        }
    }

    /// The word position of page `i`'s slot, for pages of `page_words` words and lines of
    /// `line_words` words.
    pub fn pos(&self, i: usize, page_words: usize, line_words: usize) -> usize {
        match self {
            Layout::Offset0 => i * page_words,
            Layout::LineSpread => {
                let lines = (page_words / line_words).max(1);
                i * page_words + (i % lines) * line_words
            }
        }
    }
}

/// Geometry of the pages.
#[derive(Debug, Clone, Copy)]
pub struct Geometry {
    pub page_words: usize,
    pub line_words: usize,
}

/// Builds one ring of `next.len()` pages in each region, every ring with the same permutation
/// and each with its region's layout, then times them in turn (A B A B ...), each short round
/// after its own warm-up and judged by `probe`, until each has the plan's clean rounds
/// ([`Plan::judged`]). The rings are index rings, `p = buf[p]`, the appendix's method (it
/// stores byte offsets and adds them to the base). A round may end partway around a lap: the
/// ring is one random cycle, so every step is like every other, and the next round goes on
/// from where this one stopped. Returns nanoseconds per step, one [`Timed`] per region.
pub fn judged(
    regions: &mut [(&mut Region, Layout)],
    next: &[usize],
    g: Geometry,
    plan: &Plan,
    probe: &mut Probe,
) -> Vec<Timed> {
    let mut rings: Vec<Ring<'_>> = regions
        .iter_mut()
        .map(|(r, layout)| {
            let layout = *layout;
            Ring::build(r.as_u64_mut(), Link::Index, next, move |i| {
                layout.pos(i, g.page_words, g.line_words)
            })
        })
        .collect();
    // Long enough for the clock's step not to matter, even where a step takes 1 ns.
    plan.judged(probe, &mut rings, 1024, |_, _| ())
}

/// What the huge-page comparison may conclude, given what was verified and what was timed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Verdict {
    /// Both requests honoured; huge pages faster by this ratio, with no rounds overlapping.
    Won(f64),
    /// Both requests honoured; huge pages slower (normal / huge below 1), no overlap.
    Lost(f64),
    /// Both requests honoured; the ratio is small or the rounds overlap.
    NoDifference(f64),
    /// Both regions ended up backed alike: equal times would say nothing.
    SameBacking,
    /// The backing differs from what was asked, but not alike: no clean comparison.
    NotAsAsked,
    /// The backing could not be read, so nothing can be concluded.
    Unknown,
}

impl Verdict {
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Won(_) => "huge_pages_won",
            Verdict::Lost(_) => "huge_pages_lost",
            Verdict::NoDifference(_) => "no_clear_difference",
            Verdict::SameBacking => "backed_alike",
            Verdict::NotAsAsked => "not_as_asked",
            Verdict::Unknown => "backing_unknown",
        }
    }
}

/// The largest of `v` once its single largest value is left out (when there are three or
/// more): one round hit by an interruption is tolerated, two are not.
fn high_but_one(v: &[f64]) -> f64 {
    sorted_but_largest(v).last().copied().unwrap_or(f64::NAN)
}

/// The verdict from the verified backings (percent of each region on huge pages) and the
/// timed rounds (ns per step) of the 4 KiB-page region (`normal`) and the huge-page region
/// (`huge`). `honoured` and `refused` are the shares that count as "huge" and "not huge";
/// `win` is the ratio of medians that counts as a difference, which must also separate the
/// rounds: every round of the faster side but its slowest one is faster than every round of
/// the other side.
pub fn verdict(
    huge_pct: Option<f64>,
    normal_pct: Option<f64>,
    normal: &[f64],
    huge: &[f64],
    honoured: f64,
    refused: f64,
    win: f64,
) -> Verdict {
    let (Some(hp), Some(np)) = (huge_pct, normal_pct) else {
        return Verdict::Unknown;
    };
    let (Some(n), Some(h)) = (Summary::of(normal), Summary::of(huge)) else {
        return Verdict::Unknown;
    };
    if hp >= honoured && np <= refused {
        let r = n.median / h.median;
        if r >= win && high_but_one(huge) < n.min {
            Verdict::Won(r)
        } else if r <= 1.0 / win && high_but_one(normal) < h.min {
            Verdict::Lost(r)
        } else {
            Verdict::NoDifference(r)
        }
    } else if (hp - np).abs() < refused {
        Verdict::SameBacking
    } else {
        Verdict::NotAsAsked
    }
}

/// Two page counts per octave from `from` to `to` (powers of two): every power of two, and
/// between two of them the power times the square root of two, rounded (16, 23, 32, 45, 64,
/// 91, ...), as bandwidth's sweep takes two sizes per octave. The powers stay exact, so a run
/// compares with one that measured only them.
pub fn half_octaves(from: usize, to: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut p = from.max(1);
    while p <= to {
        out.push(p);
        if p * 2 <= to {
            out.push((p as f64 * std::f64::consts::SQRT_2).round() as usize);
        }
        p *= 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::mem::{HugeAdvice, prepare};

    #[test]
    fn two_page_counts_per_octave_keep_the_powers_of_two() {
        let c = half_octaves(16, 65536);
        assert_eq!(c[..8], [16, 23, 32, 45, 64, 91, 128, 181]);
        assert_eq!(c.len(), 25);
        assert_eq!(c.last(), Some(&65536));
        for p in [16, 64, 256, 1024, 4096, 16384, 65536] {
            assert!(c.contains(&p), "{p}");
        }
        assert!(
            c.windows(2)
                .all(|w| w[1] > w[0] && w[1] as f64 / w[0] as f64 <= 1.44)
        );
        assert_eq!(half_octaves(16, 16), [16]);
    }

    #[test]
    fn the_verdict_follows_what_was_verified_and_timed() {
        let slow = [100.0, 101.0, 99.0];
        let fast = [50.0, 51.0, 52.0];
        let v = |h, n, normal: &[f64], huge: &[f64]| verdict(h, n, normal, huge, 90.0, 10.0, 1.15);
        assert!(matches!(v(Some(100.0), Some(0.0), &slow, &fast), Verdict::Won(r) if r > 1.9));
        assert!(matches!(
            v(Some(100.0), Some(0.0), &fast, &slow),
            Verdict::Lost(_)
        ));
        // One interrupted round does not hide a clear win...
        let one_slow = [50.0, 51.0, 120.0];
        assert!(matches!(
            v(Some(100.0), Some(0.0), &slow, &one_slow),
            Verdict::Won(_)
        ));
        // ... but rounds that overlap in earnest give no verdict of a win.
        let wide = [40.0, 50.0, 99.5, 120.0];
        assert!(matches!(
            v(Some(100.0), Some(0.0), &slow, &wide),
            Verdict::NoDifference(_)
        ));
        // A small gap is no difference either.
        let close = [90.0, 91.0, 92.0];
        assert!(matches!(
            v(Some(100.0), Some(0.0), &slow, &close),
            Verdict::NoDifference(_)
        ));
        // The book's case: both regions backed alike, so equal times say nothing.
        assert_eq!(
            v(Some(100.0), Some(100.0), &slow, &slow),
            Verdict::SameBacking
        );
        assert_eq!(v(Some(0.0), Some(1.0), &slow, &fast), Verdict::SameBacking);
        // The huge request refused while the other region is half huge: no clean comparison.
        assert_eq!(v(Some(0.0), Some(50.0), &slow, &fast), Verdict::NotAsAsked);
        assert_eq!(v(None, Some(0.0), &slow, &fast), Verdict::Unknown);
        assert_eq!(v(Some(100.0), Some(0.0), &[], &fast), Verdict::Unknown);
    }

    #[test]
    fn layouts_put_one_slot_per_page_on_the_promised_line() {
        let (pw, lw) = (512, 8); // 4 KiB pages, 64-byte lines: 64 lines a page
        for i in 0..300 {
            let a = Layout::Offset0.pos(i, pw, lw);
            let b = Layout::LineSpread.pos(i, pw, lw);
            assert_eq!(a / pw, i, "offset-0 slot on its own page");
            assert_eq!(a % pw, 0);
            assert_eq!(b / pw, i, "line-spread slot on its own page");
            assert_eq!((b % pw) / lw, i % 64, "page i uses line i mod 64");
            assert_eq!(b % lw, 0, "at the start of its line");
        }
    }

    #[test]
    fn both_layouts_make_rings_that_visit_every_page_once_per_lap() {
        let pages = 200;
        let next = measure::ring::sattolo(pages, 5);
        for layout in [Layout::Offset0, Layout::LineSpread] {
            let mut buf = vec![0u64; pages * 512];
            let r = Ring::build(&mut buf, Link::Index, &next, |i| layout.pos(i, 512, 8));
            let mut seen: Vec<usize> = r.lap().iter().map(|p| p / 512).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..pages).collect::<Vec<_>>(), "{layout:?}");
        }
    }

    #[test]
    fn judged_rounds_time_every_region() {
        let g = Geometry {
            page_words: 512,
            line_words: 8,
        };
        let plan = Plan {
            rounds: 2,
            round_ns: 1e5,
            warm_min_ns: 0,
            warm_cap_ns: 1_000_000,
            rewarm_cap_ns: 100_000,
            budget_ns: 0,
        };
        let region = || {
            prepare(64 * 4096, HugeAdvice::Default, 4096)
                .unwrap()
                .region
        };
        let (mut a, mut b) = (region(), region());
        let next = measure::ring::sattolo(64, 1);
        let t = judged(
            &mut [(&mut a, Layout::Offset0), (&mut b, Layout::LineSpread)],
            &next,
            g,
            &plan,
            &mut Probe::new(),
        );
        assert_eq!(t.len(), 2);
        assert!(
            t.iter()
                .all(|v| v.values.len() >= 2 && v.values.iter().all(|x| *x > 0.0))
        );
    }
}
