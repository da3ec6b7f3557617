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

/// Which result each key figure is read from: `(key figure name, result)`, where the result
/// is a block, one part of a block (`block/part`, as in the `disturbance` block), or one of
/// [`WHOLE_RUN`] and [`UNTIMED`]. Each experiment declares its own, beside each figure's
/// words (`keys!` in [`crate::schema`] makes its `KEY_SOURCES`), so no figure goes without.
pub type Sources = &'static [(&'static str, &'static str)];

/// The source of a key figure read from several results at once: it takes the marks of every
/// result of its run.
pub const WHOLE_RUN: &str = "*";

/// The source of a key figure that no timed round gave (an address, a count): it is never
/// marked.
pub const UNTIMED: &str = "-";

/// Where a key figure's mark comes from ([`source`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// One result of the `disturbance` block: a block (with its parts), or `block/part`.
    Result(&'static str),
    /// Every result of the run: a figure read from several, or one not listed.
    WholeRun,
    /// No timed round gave the figure: it is never marked.
    Untimed,
}

/// Where key figure `name`'s mark comes from, by `sources`.
pub fn source(sources: Sources, name: &str) -> Source {
    match sources
        .iter()
        .find(|(key, _)| *key == name)
        .map(|(_, b)| *b)
    {
        None | Some(WHOLE_RUN) => Source::WholeRun,
        Some(UNTIMED) => Source::Untimed,
        Some(b) => Source::Result(b),
    }
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
    fn a_source_is_a_result_the_whole_run_or_untimed() {
        const S: Sources = &[("a", "latency/first"), ("b", WHOLE_RUN), ("c", UNTIMED)];
        assert_eq!(source(S, "a"), Source::Result("latency/first"));
        assert_eq!(source(S, "b"), Source::WholeRun);
        assert_eq!(source(S, "c"), Source::Untimed);
        assert_eq!(source(S, "not listed"), Source::WholeRun);
    }

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
