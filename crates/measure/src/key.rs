//! Key figures: the few headline numbers of an experiment, written by
//! [`Experiment::key_figure`](crate::run::Experiment::key_figure) as the `key_figures` block
//! and read back here by every tool that summarises saved runs (run-all's summary, compare,
//! the handouts' generated numbers).

use crate::data::DataFile;

/// The block's name and columns.
pub const BLOCK: &str = "key_figures";
pub const FIGURE: &str = "figure";
pub const VALUE: &str = "value";
pub const UNIT: &str = "unit";

/// One key figure: its name, its value (`None`: could not be measured) and its unit.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyFigure {
    pub name: String,
    pub value: Option<f64>,
    pub unit: String,
}

impl KeyFigure {
    /// The value with its unit, to `digits` significant digits: "1.09 ns", "13.4x", "31.7%",
    /// or "not measured".
    pub fn show(&self, digits: usize) -> String {
        match self.value {
            None => "not measured".into(),
            Some(v) => with_unit(&crate::fmt::sig(v, digits), &self.unit),
        }
    }
}

/// A number and its unit as prose writes them: ratios and percentages close up ("13.4x",
/// "31.7%"), other units after a space ("1.09 ns").
pub fn with_unit(number: &str, unit: &str) -> String {
    match unit {
        "x" | "%" => format!("{number}{unit}"),
        "" | "-" => number.to_string(),
        u => format!("{number} {u}"),
    }
}

/// Every key figure of a saved run, in order; empty where the run has no such block.
pub fn read(f: &DataFile) -> Vec<KeyFigure> {
    f.block(BLOCK).map(read_block).unwrap_or_default()
}

/// Every key figure of a `key_figures` block, in order; empty where it lacks the columns.
pub fn read_block(b: &crate::data::Block) -> Vec<KeyFigure> {
    let (Some(n), Some(v), Some(u)) = (b.texts(FIGURE), b.nums(VALUE), b.texts(UNIT)) else {
        return Vec::new();
    };
    n.into_iter()
        .zip(v)
        .zip(u)
        .map(|((name, value), unit)| KeyFigure { name, value, unit })
        .collect()
}

/// The key figure `name` of a saved run.
pub fn find(f: &DataFile, name: &str) -> Option<KeyFigure> {
    read(f).into_iter().find(|k| k.name == name)
}

/// The block each key figure is computed from, where it is known. A key figure not listed
/// (or whose block recorded no evidence) takes the mark of its whole experiment.
const SOURCES: &[(&str, &[&str], &str)] = {
    use crate::schema::{branch, cache_ladder, clock_probe, fp_cost, stride, tlb_walk};
    &[
        (
            clock_probe::EXPERIMENT,
            &[clock_probe::key::CLOCK_READ],
            "clock_cost",
        ),
        (
            cache_ladder::EXPERIMENT,
            &[
                cache_ladder::key::FIRST_INDEX_NS,
                cache_ladder::key::LARGEST_INDEX_NS,
                cache_ladder::key::LADDER_FACTOR,
                cache_ladder::key::LARGEST_SEQ_NS,
            ],
            "latency",
        ),
        (
            stride::EXPERIMENT,
            &[stride::key::AOS_OVER_SOA, stride::key::AOS_X],
            "layout",
        ),
        (
            stride::EXPERIMENT,
            &[
                stride::key::STRIDE_1,
                stride::key::STRIDE_LINE,
                stride::key::LINE_OVER_STRIDE_1,
            ],
            "stride",
        ),
        (
            tlb_walk::EXPERIMENT,
            &[
                tlb_walk::key::FIRST_PAGES_LINE_NS,
                tlb_walk::key::FIRST_PAGES_OFFSET0_NS,
                tlb_walk::key::MOST_PAGES_OFFSET0_NS,
                tlb_walk::key::PAGES_FACTOR_OFFSET0,
            ],
            "pages",
        ),
        (
            tlb_walk::EXPERIMENT,
            &[
                tlb_walk::key::FIRST_TOUCH_NS,
                tlb_walk::key::FIRST_TOUCH_FACTOR,
                tlb_walk::key::TOUCH_AGAIN_NS,
            ],
            "first_touch",
        ),
        (
            branch::EXPERIMENT,
            &[branch::key::REAL_BRANCH_RANDOM_OVER_SORTED],
            "variants",
        ),
        (branch::EXPERIMENT, &[branch::key::MISPREDICT], "mispredict"),
        (
            fp_cost::EXPERIMENT,
            &[fp_cost::key::DENORMAL_OVER_NORMAL],
            "denormal",
        ),
        (
            fp_cost::EXPERIMENT,
            &[
                fp_cost::key::PER_ELEMENT_DIV_OVER_MUL,
                fp_cost::key::PER_ELEMENT_SIN_OVER_MUL,
            ],
            "per_element",
        ),
        (
            fp_cost::EXPERIMENT,
            &[fp_cost::key::DIV_OVER_MUL_THROUGHPUT],
            "ops",
        ),
    ]
};

/// The block key figure `name` of `experiment` comes from, where known.
pub fn source(experiment: &str, name: &str) -> Option<&'static str> {
    SOURCES
        .iter()
        .find(|(e, keys, _)| *e == experiment && keys.contains(&name))
        .map(|(_, _, b)| *b)
}

/// Whether the `disturbance` row `result` (a block, or `block/part`) belongs to `block`.
pub fn of_block(result: &str, block: &str) -> bool {
    result == block
        || result
            .strip_prefix(block)
            .is_some_and(|rest| rest.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_what_the_writer_writes() {
        let text = "#DATA-BEGIN key_figures\n#COLUMNS figure:text value unit:text\n\
                    #DATA l1 1.0934 ns\n#DATA ratio 13.44 x\n#DATA gone NA ns\n#DATA-END\n";
        let f = crate::data::parse(text).unwrap();
        let k = read(&f);
        assert_eq!(k.len(), 3);
        assert_eq!(k[0].show(3), "1.09 ns");
        assert_eq!(k[1].show(3), "13.4x");
        assert_eq!(k[2].show(3), "not measured");
        assert_eq!(find(&f, "ratio").unwrap().value, Some(13.44));
        assert!(find(&f, "nothing").is_none());
        assert!(read(&crate::data::parse("").unwrap()).is_empty());
    }
}
