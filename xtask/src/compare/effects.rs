//! The headline effects: whether each machine shows them, and how strongly.
//!
//! Each effect is computed here, in one way for every machine, from the blocks it has (a run
//! of this project, the appendix's C programs, or the book's printed numbers). A machine that
//! lacks the numbers gets "not measured"; nothing is filled in.

use super::keyfig;
use super::load::Machine;
use ::cache_ladder::schema as cl;
use measure::stats::median;

/// One machine's cell: `shows` is `None` where the effect is a value, not a yes/no.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Shown { shows: Option<bool>, text: String },
    NotMeasured(String),
}

impl Cell {
    pub fn render(&self) -> String {
        match self {
            Cell::Shown {
                shows: Some(true),
                text,
            } => format!("yes: {text}"),
            Cell::Shown {
                shows: Some(false),
                text,
            } => format!("no: {text}"),
            Cell::Shown { shows: None, text } => text.clone(),
            Cell::NotMeasured(why) => why.clone(),
        }
    }
    pub fn shows(&self) -> Option<bool> {
        match self {
            Cell::Shown { shows, .. } => *shows,
            Cell::NotMeasured(_) => None,
        }
    }
}

/// How many cells show the effect, and how many have the numbers to say (yes or no).
pub fn tally(cells: &[Cell]) -> (usize, usize) {
    let yes = cells.iter().filter(|c| c.shows() == Some(true)).count();
    let with = cells.iter().filter(|c| c.shows().is_some()).count();
    (yes, with)
}

/// An effect: its name, how it is computed (one sentence), and the threshold for "yes".
pub struct Effect {
    pub name: &'static str,
    /// How it is computed, without the threshold: [`Effect::how`] quotes that from `yes`.
    how: &'static str,
    /// The ratio from which a machine shows the effect; `None` where the cell is a value.
    yes: Option<f64>,
    pub cell: fn(&Machine) -> Cell,
}

impl Effect {
    /// How it is computed, with the threshold the cell uses: "...; yes from 3x".
    pub fn how(&self) -> String {
        match self.yes {
            Some(y) => format!("{}; yes from {}x", self.how, sig3(y)),
            None => self.how.to_string(),
        }
    }
}

/// The thresholds for "yes", each used by its cell and quoted by [`Effect::how`].
const LADDER_YES: f64 = 3.0;
const STRIDE_STEP_YES: f64 = 1.4;
const TLB_YES: f64 = 3.0;
const MISPREDICT_YES: f64 = 2.0;
const FALSE_SHARING_YES: f64 = 1.2;
const DENORMAL_YES: f64 = 1.5;
const FLOAT_LANES_YES: f64 = 1.5;
const FIRST_TOUCH_YES: f64 = 5.0;
const BANDWIDTH_YES: f64 = 3.0;

pub const EFFECTS: &[Effect] = &[
    Effect {
        name: "L1 to memory (latency ladder)",
        how: "random reads: the largest working set's time over the smallest's, from the index chase \
              (the appendix's method) where the machine has it, else the pointer chase",
        yes: Some(LADDER_YES),
        cell: ladder,
    },
    Effect {
        name: "line size from stride",
        how: "the steepest step of the cost per access as the stride doubles, and the stride it \
              reaches (the appendix's walk), which must be the reported line size where there is \
              one",
        yes: Some(STRIDE_STEP_YES),
        cell: line_from_stride,
    },
    Effect {
        name: "TLB step",
        how: "one read per page, slot at offset 0 (the appendix's walk): the most pages' time over \
              the fewest's",
        yes: Some(TLB_YES),
        cell: tlb,
    },
    Effect {
        name: "misprediction cost",
        how: "the real branch on random over sorted data, and the cost of one miss derived from it",
        yes: Some(MISPREDICT_YES),
        cell: mispredict,
    },
    Effect {
        name: "false sharing",
        how: "two threads: slots in one cache line over slots in different lines (median of each side \
              of the line size)",
        yes: Some(FALSE_SHARING_YES),
        cell: false_sharing,
    },
    Effect {
        name: "denormal penalty",
        how: "the same arithmetic on denormal over normal values",
        yes: Some(DENORMAL_YES),
        cell: |m| {
            use ::fp_cost::schema as fp;
            ratio_cell(
                m,
                fp::EXPERIMENT,
                fp::key::DENORMAL_OVER_NORMAL,
                DENORMAL_YES,
                "denormal",
                None,
            )
        },
    },
    Effect {
        name: "float over double, with vectors",
        how: "double over float time when the loop may be vectorised (and without, in brackets)",
        yes: Some(FLOAT_LANES_YES),
        cell: float_lanes,
    },
    Effect {
        name: "reading the clock",
        how: "the cost of one clock read (clock_gettime)",
        yes: None,
        cell: clock,
    },
    Effect {
        name: "first touch of a page",
        how: "touching a page the first time over touching it again",
        yes: Some(FIRST_TOUCH_YES),
        cell: first_touch,
    },
    Effect {
        name: "L1 to memory (bandwidth)",
        how: "one core reading in order: a working set in L1 over the largest one, explicit vector \
              read",
        yes: Some(BANDWIDTH_YES),
        cell: |m| {
            use ::bandwidth::schema as bw;
            ratio_cell(
                m,
                bw::EXPERIMENT,
                bw::key::L1_OVER_MEMORY_READ,
                BANDWIDTH_YES,
                "bandwidth",
                None,
            )
        },
    },
];

/// At most three significant digits, trailing zeros dropped: "154", "61.5", "1.38", "0.986",
/// "2.3", "64".
pub fn sig3(x: f64) -> String {
    trim(measure::fmt::sig(x, 3))
}

/// "2.30" -> "2.3", "64.0" -> "64".
pub fn trim(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A curve read from a block: the column its y values come from, and its `(x, y)` points.
pub type Curve = Option<(String, Vec<(f64, f64)>)>;

/// `(x, y)` points of numeric columns `x` and the first of `ys` that has any value, sorted by x.
pub fn curve(m: &Machine, exp: &str, block: &str, x: &str, ys: &[&str]) -> Curve {
    let b = m.runs.get(exp)?.block(block)?;
    let xs = b.nums(x)?;
    for y in ys {
        let Some(v) = b.nums(y) else { continue };
        let mut pts: Vec<(f64, f64)> = xs
            .iter()
            .zip(&v)
            .filter_map(|(a, b)| Some(((*a)?, (*b)?)))
            .filter(|(a, b)| a.is_finite() && b.is_finite())
            .collect();
        if pts.is_empty() {
            continue;
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        return Some((y.to_string(), pts));
    }
    None
}

fn nm(what: &str) -> Cell {
    Cell::NotMeasured(format!("not measured ({what})"))
}

fn shown(yes: bool, text: String) -> Cell {
    Cell::Shown {
        shows: Some(yes),
        text,
    }
}

fn size_kib(k: f64) -> String {
    crate::figures::chart::kib_label(k)
}

fn ladder(m: &Machine) -> Cell {
    let Some((col, pts)) = curve(
        m,
        cl::EXPERIMENT,
        cl::latency::BLOCK,
        cl::latency::KIB,
        &[cl::latency::INDEX_NS, cl::latency::POINTER_NS],
    ) else {
        return nm("no latency curve");
    };
    if pts.len() < 2 || pts[0].1 <= 0.0 {
        return nm("fewer than two sizes");
    }
    let (a, b) = (pts[0], pts[pts.len() - 1]);
    // The index chase's ratio is the key figure `ladder_factor` where the run saved it: one
    // definition, quoted alike here, in the summary and on the figure.
    let saved = keyfig::value(m, cl::EXPERIMENT, cl::key::LADDER_FACTOR);
    let f = match saved {
        Some(v) if col == cl::latency::INDEX_NS => v,
        _ => b.1 / a.1,
    };
    let chase = if col == cl::latency::INDEX_NS {
        "index chase"
    } else {
        "pointer chase"
    };
    shown(
        f >= LADDER_YES,
        format!(
            "{}x ({} ns at {} to {} ns at {}, {chase})",
            sig3(f),
            sig3(a.1),
            size_kib(a.0),
            sig3(b.1),
            size_kib(b.0)
        ),
    )
}

/// The stride curve: the appendix's walk, or the fresh one where a folder has only that.
pub fn stride_curve(m: &Machine) -> Curve {
    curve(
        m,
        ::stride::schema::EXPERIMENT,
        ::stride::schema::stride::BLOCK,
        ::stride::schema::stride::STRIDE_BYTES,
        &[
            ::stride::schema::stride::APPENDIX_NS,
            ::stride::schema::stride::FRESH_NS,
        ],
    )
}

fn line_from_stride(m: &Machine) -> Cell {
    let Some((_, pts)) = stride_curve(m) else {
        return nm("no stride curve");
    };
    let line = m.facts.line_bytes;
    let steepest = pts
        .windows(2)
        .filter(|w| w[1].0 == 2.0 * w[0].0 && w[0].1 > 0.0)
        .map(|w| (w[1].0, w[1].1 / w[0].1))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let reported = line.map_or_else(
        || "line size not reported".to_string(),
        |l| format!("reported line {} B", sig3(l)),
    );
    match steepest {
        // The step reveals the line only where it lands on it: a steepest step elsewhere is a
        // step, but it does not place the line.
        Some((s, r)) => shown(
            r >= STRIDE_STEP_YES && line.is_none_or(|l| s == l),
            format!("steepest step x{} up to {} B; {reported}", sig3(r), sig3(s)),
        ),
        None => {
            // Too few strides for a step (the phone's two): the line against the smallest.
            let (Some(l), Some(first)) = (line, pts.first()) else {
                return nm("too few strides");
            };
            match pts.iter().find(|p| p.0 == l) {
                Some(at) if first.0 < l && first.1 > 0.0 => {
                    let r = at.1 / first.1;
                    shown(
                        r >= STRIDE_STEP_YES,
                        format!(
                            "{} B costs {}x {} B (only these strides)",
                            sig3(l),
                            sig3(r),
                            sig3(first.0)
                        ),
                    )
                }
                _ => nm("too few strides"),
            }
        }
    }
}

/// The page walk: one read at offset 0 of each page, by page count.
pub fn tlb_curve(m: &Machine) -> Curve {
    curve(
        m,
        ::tlb_walk::schema::EXPERIMENT,
        ::tlb_walk::schema::pages::BLOCK,
        ::tlb_walk::schema::pages::PAGES,
        &[::tlb_walk::schema::pages::OFFSET0_NS],
    )
}

fn tlb(m: &Machine) -> Cell {
    let Some((_, pts)) = tlb_curve(m) else {
        return nm("no page walk");
    };
    if pts.len() < 2 || pts[0].1 <= 0.0 {
        return nm("fewer than two page counts");
    }
    let (a, b) = (pts[0], pts[pts.len() - 1]);
    let f = keyfig::value(
        m,
        ::tlb_walk::schema::EXPERIMENT,
        ::tlb_walk::schema::key::PAGES_FACTOR_OFFSET0,
    )
    .unwrap_or(b.1 / a.1);
    shown(
        f >= TLB_YES,
        format!(
            "{}x ({} ns at {} pages to {} ns at {})",
            sig3(f),
            sig3(a.1),
            a.0,
            sig3(b.1),
            b.0
        ),
    )
}

fn mispredict(m: &Machine) -> Cell {
    let ratio = keyfig::value(
        m,
        ::branch::schema::EXPERIMENT,
        ::branch::schema::key::REAL_BRANCH_RANDOM_OVER_SORTED,
    );
    let miss = keyfig::value(
        m,
        ::branch::schema::EXPERIMENT,
        ::branch::schema::key::MISPREDICT,
    );
    match (ratio, miss) {
        (None, None) => nm("no branch figures"),
        (Some(r), miss) => shown(
            r >= MISPREDICT_YES,
            match miss {
                Some(ns) => format!("{} ns per miss; random {}x sorted", sig3(ns), sig3(r)),
                None => format!("random {}x sorted", sig3(r)),
            },
        ),
        (None, Some(ns)) => Cell::Shown {
            shows: None,
            text: format!("{} ns per miss", sig3(ns)),
        },
    }
}

fn false_sharing(m: &Machine) -> Cell {
    let Some((col, pts)) = curve(
        m,
        ::false_sharing::schema::EXPERIMENT,
        ::false_sharing::schema::distance::BLOCK,
        ::false_sharing::schema::distance::DISTANCE_BYTES,
        &[
            ::false_sharing::schema::distance::VS_SPLIT_MEDIAN,
            ::false_sharing::schema::distance::NS_MEDIAN,
        ],
    ) else {
        return nm("no distance table");
    };
    let Some(line) = m.facts.line_bytes else {
        return nm("line size unknown");
    };
    let same: Vec<f64> = pts.iter().filter(|p| p.0 < line).map(|p| p.1).collect();
    let apart: Vec<f64> = pts.iter().filter(|p| p.0 >= line).map(|p| p.1).collect();
    match (median(&same), median(&apart)) {
        (Some(s), Some(a)) if a > 0.0 => {
            // The run's own key figure where it saved one (its verdict's ratio).
            let saved = keyfig::value(
                m,
                ::false_sharing::schema::EXPERIMENT,
                ::false_sharing::schema::key::SAME_LINE_VS_APART_2T,
            );
            let r = match saved {
                Some(v) if col == ::false_sharing::schema::distance::VS_SPLIT_MEDIAN => v,
                _ => s / a,
            };
            let basis = if col == ::false_sharing::schema::distance::VS_SPLIT_MEDIAN {
                "from the ratio to a perfect split"
            } else {
                "from ns per increment"
            };
            shown(
                r >= FALSE_SHARING_YES,
                format!("{}x, one line over apart ({basis})", sig3(r)),
            )
        }
        _ => nm("distances on one side of the line only"),
    }
}

/// A ratio key figure as it is, with `detail` in brackets where there is one: shown from
/// `yes` up, "not measured (no `what` figure)" without it.
fn ratio_cell(
    m: &Machine,
    exp: &str,
    name: &str,
    yes: f64,
    what: &str,
    detail: Option<String>,
) -> Cell {
    match keyfig::value(m, exp, name) {
        Some(v) => shown(
            v >= yes,
            match detail {
                Some(d) => format!("{}x ({d})", sig3(v)),
                None => format!("{}x", sig3(v)),
            },
        ),
        None => nm(&format!("no {what} figure")),
    }
}

fn float_lanes(m: &Machine) -> Cell {
    use ::fp_cost::schema as fp;
    let strict = keyfig::value(m, fp::EXPERIMENT, fp::key::FLOAT_SPEEDUP_STRICT);
    ratio_cell(
        m,
        fp::EXPERIMENT,
        fp::key::FLOAT_SPEEDUP_LANES,
        FLOAT_LANES_YES,
        "float/double",
        strict.map(|s| format!("{}x without vectors", sig3(s))),
    )
}

fn clock(m: &Machine) -> Cell {
    match keyfig::get(
        m,
        ::clock_probe::schema::EXPERIMENT,
        ::clock_probe::schema::key::CLOCK_READ,
    )
    .and_then(|k| k.ends().map(|e| (e, k.unit)))
    {
        Some(((a, b), unit)) => Cell::Shown {
            shows: None,
            text: if a == b {
                format!("{} {unit}", sig3(a))
            } else {
                format!("{}-{} {unit}", sig3(a), sig3(b))
            },
        },
        None => nm("no clock figure"),
    }
}

fn first_touch(m: &Machine) -> Cell {
    use ::tlb_walk::schema as tw;
    let first = keyfig::value(m, tw::EXPERIMENT, tw::key::FIRST_TOUCH_NS);
    let again = keyfig::value(m, tw::EXPERIMENT, tw::key::TOUCH_AGAIN_NS);
    ratio_cell(
        m,
        tw::EXPERIMENT,
        tw::key::FIRST_TOUCH_FACTOR,
        FIRST_TOUCH_YES,
        "first-touch",
        first
            .zip(again)
            .map(|(a, b)| format!("{} ns, then {} ns", sig3(a), sig3(b))),
    )
}

#[cfg(test)]
mod tests {
    use super::sig3;

    #[test]
    fn three_significant_digits() {
        assert_eq!(sig3(154.114), "154");
        assert_eq!(sig3(61.5), "61.5");
        assert_eq!(sig3(1.3812), "1.38");
        assert_eq!(sig3(0.98615), "0.986");
        assert_eq!(sig3(0.0123456), "0.0123");
        assert_eq!(sig3(0.0), "0");
        assert_eq!(sig3(2.3), "2.3");
        assert_eq!(sig3(64.0), "64");
    }
}
