//! Key figures: each experiment's headline numbers (its `key_figures` block), per machine.

use super::load::Machine;
use measure::data::Block;
use measure::schema::key_figures as kf;

/// One key figure. `value` is `None` when not measured (NA), or when the book gives a range.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyFig {
    pub name: String,
    pub value: Option<f64>,
    /// `low..high` where the book gives a range ("200-265 ns").
    pub range: Option<(f64, f64)>,
    pub unit: String,
}

impl KeyFig {
    /// The value, or the range's ends.
    pub fn ends(&self) -> Option<(f64, f64)> {
        match (self.value, self.range) {
            (Some(v), _) => Some((v, v)),
            (None, Some(r)) => Some(r),
            _ => None,
        }
    }
}

fn from_block(b: &Block) -> Vec<KeyFig> {
    let (Some(n), Some(u)) = (b.texts(kf::FIGURE), b.texts(kf::UNIT)) else {
        return Vec::new();
    };
    let none = || vec![None; b.rows.len()];
    let v = b.nums(kf::VALUE).unwrap_or_else(none);
    let lo = b.nums(kf::LOW).unwrap_or_else(none);
    let hi = b.nums(kf::HIGH).unwrap_or_else(none);
    (0..b.rows.len())
        .map(|i| KeyFig {
            name: n[i].clone(),
            value: v[i],
            range: lo[i].zip(hi[i]),
            unit: u[i].clone(),
        })
        .collect()
}

/// The key figures of `exp` on machine `m` (empty when it has none).
pub fn of(m: &Machine, exp: &str) -> Vec<KeyFig> {
    m.runs
        .get(exp)
        .and_then(|f| f.block(kf::BLOCK))
        .map(from_block)
        .unwrap_or_default()
}

/// One key figure by name.
pub fn get(m: &Machine, exp: &str, name: &str) -> Option<KeyFig> {
    of(m, exp).into_iter().find(|k| k.name == name)
}

/// One key figure's value by name (`None` when absent, not measured, or a range).
pub fn value(m: &Machine, exp: &str, name: &str) -> Option<f64> {
    get(m, exp, name).and_then(|k| k.value)
}

/// How a table names key figure `name` of `exp`: its words as the experiment declares them,
/// with the name in the data after them ("a random read ... \[`first_index_ns`\]"); the name
/// alone where the experiment declares none (the book's own figures).
pub fn label(exp: &str, name: &str) -> String {
    match crate::experiments::key_in_words(exp, name) {
        Some(w) => format!("{w} [`{name}`]"),
        None => format!("`{name}`"),
    }
}
