//! Axes: scale, range and tick labels.
//!
//! Rules (PRESENTATION.md):
//! - a log axis is labelled in every decade, below 1 too; its ends are the nearest 1, 2 or 5
//!   times a power of ten at or beyond the data, so a decade that holds no power of ten gets a
//!   2 or a 5; a short range (under three decades) is labelled at every 1, 2 and 5;
//! - sizes and distances that double sit on a log2 axis with power-of-two ticks in units
//!   (`64`, `4K`, `1M` bytes; `1,024` pages);
//! - every value drawn lies inside the labelled range: both ends of an axis are labels.
//! - a category axis names each of its positions 0, 1, 2, ... in order.
//!
//! Every loop here is bounded by a constant, whatever the values: a range from 5e-324 to
//! 1e308 gets a label every so many decades, never millions of ticks.

/// How values map to positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    /// Base-10 logarithm (times, counts).
    Log10,
    /// Base-2 logarithm with power-of-two ticks (sizes, strides, page counts).
    Log2,
}

/// How tick values are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Units {
    Plain,
    /// Bytes: 64, 4K, 1M, 1G.
    Bytes,
    /// A size given in KiB, written in bytes units: 4 -> 4K, 1024 -> 1M.
    KiB,
    /// A count: 16, 1,024, 65,536; large powers of ten as 1M.
    Count,
    /// A time in nanoseconds, written with its unit: 20 ns, 5 µs, 1 ms.
    Nanos,
}

/// What a drawer asks of an axis.
#[derive(Clone, Debug)]
pub struct AxisSpec {
    pub title: String,
    pub scale: Scale,
    pub units: Units,
    /// Linear axes: include zero (where zero is meaningful: bar lengths, ratios).
    pub zero: bool,
    /// A fixed range; the drawer clips its values to it and marks what it clipped.
    pub fixed: Option<(f64, f64)>,
    /// Named positions: value `i` is the i-th name, every name labelled (a linear axis from
    /// -0.5 to n - 0.5). Empty: a numeric axis.
    pub categories: Vec<String>,
}

impl AxisSpec {
    pub fn new(title: &str, scale: Scale, units: Units) -> AxisSpec {
        AxisSpec {
            title: title.into(),
            scale,
            units,
            zero: false,
            fixed: None,
            categories: Vec::new(),
        }
    }
    pub fn linear(title: &str) -> AxisSpec {
        AxisSpec::new(title, Scale::Linear, Units::Plain)
    }
    pub fn log10(title: &str) -> AxisSpec {
        AxisSpec::new(title, Scale::Log10, Units::Plain)
    }
    pub fn log2(title: &str, units: Units) -> AxisSpec {
        AxisSpec::new(title, Scale::Log2, units)
    }
    /// Named positions 0, 1, 2, ... (patterns, operations, machines), each labelled.
    pub fn categories(title: &str, names: &[String]) -> AxisSpec {
        AxisSpec {
            categories: names.to_vec(),
            ..AxisSpec::linear(title)
        }
    }
    pub fn is_category(&self) -> bool {
        !self.categories.is_empty()
    }
    pub fn starting_at_zero(mut self) -> AxisSpec {
        self.zero = true;
        self
    }
    /// Whether `v` can be placed on this axis.
    pub fn drawable(&self, v: f64) -> bool {
        let in_range = if self.is_category() {
            // A position that names no category lies outside the axis.
            (-0.5..=self.categories.len() as f64 - 0.5).contains(&v)
        } else {
            self.scale == Scale::Linear || v > 0.0
        };
        v.is_finite() && in_range
    }
}

/// One labelled tick, at transformed position `t`.
#[derive(Clone, Debug)]
pub struct Tick {
    pub t: f64,
    pub label: String,
}

/// A fitted axis: its range in transformed units and its ticks.
#[derive(Clone, Debug)]
pub struct Axis {
    pub scale: Scale,
    lo: f64,
    hi: f64,
    pub ticks: Vec<Tick>,
    /// Unlabelled grid lines (transformed positions).
    pub minor: Vec<f64>,
}

/// The most labels and grid lines an axis ever gets.
const MAX_TICKS: usize = 40;
const MAX_MINOR: usize = 80;

impl Axis {
    /// Fits an axis to `values` (those not drawable on it are ignored) over `px` pixels;
    /// `spacing(label)` is the room one label needs along the axis.
    pub fn fit(
        spec: &AxisSpec,
        values: &[f64],
        px: f64,
        spacing: &dyn Fn(&str) -> f64,
    ) -> Result<Axis, String> {
        if spec.is_category() {
            // One label per name, in order; the count is the caller's, not the data's.
            let n = spec.categories.len();
            return Ok(Axis {
                scale: Scale::Linear,
                lo: -0.5,
                hi: n as f64 - 0.5,
                ticks: spec
                    .categories
                    .iter()
                    .enumerate()
                    .map(|(i, c)| Tick {
                        t: i as f64,
                        label: c.clone(),
                    })
                    .collect(),
                minor: Vec::new(),
            });
        }
        let vals: Vec<f64> = values
            .iter()
            .copied()
            .filter(|v| spec.drawable(*v))
            .collect();
        let (mut min, mut max) = match spec.fixed {
            Some((a, b)) if spec.drawable(a) && spec.drawable(b) && a < b => (a, b),
            _ => {
                if vals.is_empty() {
                    return Err("no value can be placed on this axis".into());
                }
                (
                    vals.iter().copied().fold(f64::INFINITY, f64::min),
                    vals.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                )
            }
        };
        if spec.zero && spec.scale == Scale::Linear {
            min = min.min(0.0);
            max = max.max(0.0);
        }
        let px = px.max(40.0);
        let axis = match spec.scale {
            Scale::Linear => linear(min, max, spec, px, spacing),
            Scale::Log10 => log10(min, max, spec.units, px, spacing),
            Scale::Log2 => log2(min, max, spec.units, px, spacing),
        };
        Ok(axis)
    }

    /// The width of the widest tick label, in pixels at the small size.
    pub fn label_w(&self) -> f64 {
        self.ticks
            .iter()
            .map(|t| super::text_w(&t.label, super::SMALL))
            .fold(0.0, f64::max)
    }

    /// The position of `v` from 0 (low end) to 1 (high end); `None` if it cannot be drawn.
    pub fn frac(&self, v: f64) -> Option<f64> {
        if !v.is_finite() {
            return None;
        }
        let f = match self.scale {
            Scale::Linear => {
                // Halves, so that ranges near f64::MAX do not overflow.
                let den = self.hi / 2.0 - self.lo / 2.0;
                (v / 2.0 - self.lo / 2.0) / den
            }
            Scale::Log10 if v > 0.0 => (v.log10() - self.lo) / (self.hi - self.lo),
            Scale::Log2 if v > 0.0 => (v.log2() - self.lo) / (self.hi - self.lo),
            _ => return None,
        };
        f.is_finite().then_some(f)
    }

    /// The position of a tick (already transformed).
    pub fn frac_t(&self, t: f64) -> f64 {
        match self.scale {
            Scale::Linear => (t / 2.0 - self.lo / 2.0) / (self.hi / 2.0 - self.lo / 2.0),
            _ => (t - self.lo) / (self.hi - self.lo),
        }
    }

    /// The value at fraction `f` of the range (for placing annotations).
    pub fn value_at(&self, f: f64) -> f64 {
        match self.scale {
            Scale::Linear => self.lo + (self.hi / 2.0 - self.lo / 2.0) * 2.0 * f,
            Scale::Log10 => 10f64.powf(self.lo + (self.hi - self.lo) * f),
            Scale::Log2 => 2f64.powf(self.lo + (self.hi - self.lo) * f),
        }
    }

    /// The low and high ends, as values.
    pub fn ends(&self) -> (f64, f64) {
        (self.value_at(0.0), self.value_at(1.0))
    }
}

// ---- linear ----

fn linear(min: f64, max: f64, spec: &AxisSpec, px: f64, spacing: &dyn Fn(&str) -> f64) -> Axis {
    let (mut lo, mut hi) = (min, max);
    let mag = lo.abs().max(hi.abs());
    // Too narrow a range for f64 to tell ticks apart: widen it around its middle.
    let min_span = (mag * 1e-6).max(1e-300);
    if hi / 2.0 - lo / 2.0 < min_span / 2.0 {
        let mid = lo / 2.0 + hi / 2.0;
        lo = mid - min_span;
        hi = mid + min_span;
        if spec.zero && min >= 0.0 {
            lo = 0.0;
            hi = hi.max(min_span);
        }
    }
    let mut best = None;
    // From many labels to few: the first set whose labels fit.
    for n in [10.0, 8.0, 6.0, 5.0, 4.0, 3.0, 2.0] {
        let raw = (hi / 2.0 - lo / 2.0) / n * 2.0;
        let step = nice_step(raw);
        let (a, b, ticks) = linear_ticks(lo, hi, step, spec.fixed.is_some());
        let need: f64 = ticks.iter().map(|t| spacing(&t.label)).sum();
        let done = need <= px || n == 2.0;
        best = Some((a, b, ticks));
        if done {
            break;
        }
    }
    let (lo, hi, ticks) = best.unwrap_or((lo, hi, Vec::new()));
    Axis {
        scale: Scale::Linear,
        lo,
        hi,
        ticks,
        minor: Vec::new(),
    }
}

/// 1, 2 or 5 times a power of ten, at least `raw`.
fn nice_step(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 0.0) {
        return 1.0;
    }
    let e = raw.log10().floor();
    let base = 10f64.powf(e);
    let f = raw / base;
    let m = if f <= 1.0 + 1e-9 {
        1.0
    } else if f <= 2.0 + 1e-9 {
        2.0
    } else if f <= 5.0 + 1e-9 {
        5.0
    } else {
        10.0
    };
    let s = m * base;
    if s.is_finite() && s > 0.0 { s } else { 1e308 }
}

/// The range widened to multiples of `step` (unless fixed) and the labels on it.
fn linear_ticks(lo: f64, hi: f64, step: f64, fixed: bool) -> (f64, f64, Vec<Tick>) {
    let (mut a, mut b) = (lo, hi);
    if !fixed {
        let fa = (lo / step).floor() * step;
        let fb = (hi / step).ceil() * step;
        if fa.is_finite() {
            a = fa;
        }
        if fb.is_finite() {
            b = fb;
        }
    }
    let mut vals: Vec<f64> = Vec::new();
    let i0 = (a / step).ceil();
    for k in 0..=MAX_TICKS {
        let v = (i0 + k as f64) * step;
        if !v.is_finite() || v > b + step * 1e-9 {
            break;
        }
        // -0 and rounding residue near zero print as 0.
        vals.push(if v.abs() < step * 1e-9 { 0.0 } else { v });
    }
    if !fixed {
        // The ends are labels (they are multiples of the step unless clamped).
        if vals.first().is_none_or(|v| (v - a).abs() > step * 1e-6) {
            vals.insert(0, a);
        }
        if vals.last().is_none_or(|v| (v - b).abs() > step * 1e-6) {
            vals.push(b);
        }
    }
    let mut ticks: Vec<Tick> = Vec::new();
    for v in vals {
        let label = fmt_linear(v, step);
        if ticks.last().is_some_and(|t| t.label == label) {
            continue;
        }
        ticks.push(Tick { t: v, label });
    }
    (a, b, ticks)
}

/// A linear tick: as many decimals as the step needs, exponent form for the very large
/// or very small.
fn fmt_linear(v: f64, step: f64) -> String {
    if v == 0.0 {
        return "0".into();
    }
    let a = v.abs();
    if (1e-4..1e7).contains(&a) && step >= 1e-6 {
        let decimals = (-step.log10().floor()).clamp(0.0, 8.0) as usize;
        let s = format!("{v:.decimals$}");
        return trim_zeros(&s);
    }
    let digits = ((a / step).log10().ceil().clamp(0.0, 15.0)) as usize;
    let s = format!("{v:.digits$e}");
    trim_exp(&s)
}

fn trim_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

/// "1.50e3" -> "1.5e3".
fn trim_exp(s: &str) -> String {
    match s.split_once('e') {
        Some((m, e)) => format!("{}e{e}", trim_zeros(m)),
        None => s.to_string(),
    }
}

// ---- log10 ----

/// A point of the 1-2-5 sequence: `m` times ten to the `k`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Nice {
    m: u8,
    k: i32,
}

impl Nice {
    fn t(self) -> f64 {
        f64::from(self.k) + f64::from(self.m).log10()
    }
    fn next(self) -> Nice {
        match self.m {
            1 => Nice { m: 2, k: self.k },
            2 => Nice { m: 5, k: self.k },
            _ => Nice {
                m: 1,
                k: self.k + 1,
            },
        }
    }
    fn prev(self) -> Nice {
        match self.m {
            5 => Nice { m: 2, k: self.k },
            2 => Nice { m: 1, k: self.k },
            _ => Nice {
                m: 5,
                k: self.k - 1,
            },
        }
    }
}

/// The largest 1-2-5 point at or below `10^t`.
fn nice_below(t: f64) -> Nice {
    let k = t.floor();
    let f = t - k;
    let m = if f + 1e-9 >= 5f64.log10() {
        5
    } else if f + 1e-9 >= 2f64.log10() {
        2
    } else {
        1
    };
    Nice { m, k: k as i32 }
}

/// The smallest 1-2-5 point at or above `10^t`.
fn nice_above(t: f64) -> Nice {
    let k = t.floor();
    let f = t - k;
    if f <= 1e-9 {
        Nice { m: 1, k: k as i32 }
    } else if f <= 2f64.log10() + 1e-9 {
        Nice { m: 2, k: k as i32 }
    } else if f <= 5f64.log10() + 1e-9 {
        Nice { m: 5, k: k as i32 }
    } else {
        Nice {
            m: 1,
            k: k as i32 + 1,
        }
    }
}

fn log10(min: f64, max: f64, units: Units, px: f64, spacing: &dyn Fn(&str) -> f64) -> Axis {
    let mut lo = nice_below(min.log10());
    let mut hi = nice_above(max.log10());
    if hi.t() - lo.t() < 1e-9 {
        lo = lo.prev();
        hi = hi.next();
    }
    let decades = hi.t() - lo.t();
    let label = |n: Nice| fmt_nice(n, units);
    let fits = |ts: &[Nice]| ts.iter().map(|n| spacing(&label(*n))).sum::<f64>() <= px;
    let mut chosen: Option<Vec<Nice>> = None;
    // 1. Every 1, 2 and 5 (short ranges).
    if decades <= 3.5 {
        chosen = log_every_125(lo, hi, &fits);
    }
    // 2. Every decade, and the two ends.
    if chosen.is_none() && decades <= MAX_TICKS as f64 {
        chosen = log_every_decade(&mut lo, &mut hi, &fits);
    }
    // 3. Every s decades, the ends widened to multiples of s.
    if chosen.is_none() {
        chosen = log_every_s_decades(&mut lo, &mut hi, &fits);
    }
    let picked = chosen.unwrap_or_else(|| vec![lo, hi]);
    let (lo_t, hi_t) = (lo.t(), hi.t().max(lo.t() + 1e-6));
    let ticks: Vec<Tick> = picked
        .iter()
        .map(|n| Tick {
            t: n.t(),
            label: label(*n),
        })
        .collect();
    let minor = log_minor(lo.k, (lo_t, hi_t), &ticks);
    Axis {
        scale: Scale::Log10,
        lo: lo_t,
        hi: hi_t,
        ticks,
        minor,
    }
}

/// Log ticks at every 1, 2 and 5 from `lo` to `hi`, if their labels fit.
fn log_every_125(lo: Nice, hi: Nice, fits: &dyn Fn(&[Nice]) -> bool) -> Option<Vec<Nice>> {
    let mut v = Vec::new();
    let mut n = lo;
    while n.t() <= hi.t() + 1e-9 && v.len() <= MAX_TICKS {
        v.push(n);
        n = n.next();
    }
    fits(&v).then_some(v)
}

/// Log ticks at every decade and the two ends, if their labels fit; else, on a long axis,
/// the ends widened to whole decades (`lo` and `hi` moved to them) when that fits.
fn log_every_decade(
    lo: &mut Nice,
    hi: &mut Nice,
    fits: &dyn Fn(&[Nice]) -> bool,
) -> Option<Vec<Nice>> {
    let mut v = vec![*lo];
    let mut k = lo.k + 1;
    while f64::from(k) < hi.t() - 1e-9 {
        v.push(Nice { m: 1, k });
        k += 1;
    }
    if hi != lo {
        v.push(*hi);
    }
    // Drop an end that would crowd its neighbouring decade.
    if fits(&v) {
        return Some(v);
    }
    if v.len() <= 3 {
        return None;
    }
    let mut w: Vec<Nice> = v.iter().copied().filter(|n| n.m == 1).collect();
    if lo.m != 1 {
        *lo = Nice { m: 1, k: lo.k };
        w.insert(0, *lo);
    }
    if hi.m != 1 {
        *hi = Nice { m: 1, k: hi.k + 1 };
        w.push(*hi);
    }
    fits(&w).then_some(w)
}

/// Log ticks every s decades, for the smallest s whose labels fit (or that leaves under
/// 2.5 ticks, or s = 500); `lo` and `hi` are widened to multiples of s.
fn log_every_s_decades(
    lo: &mut Nice,
    hi: &mut Nice,
    fits: &dyn Fn(&[Nice]) -> bool,
) -> Option<Vec<Nice>> {
    let span = (hi.t() - lo.t()).max(1.0);
    for s in [1i32, 2, 3, 5, 10, 20, 50, 100, 200, 500] {
        let a = (lo.k as f64 / s as f64).floor() as i32 * s;
        let b = ((hi.t() / s as f64).ceil() as i32).saturating_mul(s);
        let n = ((b - a) / s) as usize + 1;
        if n > MAX_TICKS && s < 500 {
            continue;
        }
        let v: Vec<Nice> = (0..n.min(MAX_TICKS + 1))
            .map(|i| Nice {
                m: 1,
                k: a + i as i32 * s,
            })
            .collect();
        if fits(&v) || s == 500 || (span / s as f64) < 2.5 {
            *lo = Nice { m: 1, k: a };
            *hi = *v.last().unwrap_or(lo);
            return Some(v);
        }
    }
    None
}

/// Grid lines at 2..9 of each decade from decade `lo_k`, when there are few decades.
fn log_minor(lo_k: i32, (lo_t, hi_t): (f64, f64), ticks: &[Tick]) -> Vec<f64> {
    let mut minor = Vec::new();
    if hi_t - lo_t <= 6.0 {
        let mut k = lo_k;
        while f64::from(k) <= hi_t && minor.len() < MAX_MINOR {
            for m in 1..10 {
                let t = f64::from(k) + f64::from(m).log10();
                if t > lo_t + 1e-9
                    && t < hi_t - 1e-9
                    && !ticks.iter().any(|x| (x.t - t).abs() < 1e-9)
                {
                    minor.push(t);
                }
            }
            k += 1;
        }
    }
    minor
}

/// `m` times ten to the `k`, in the axis's units.
fn fmt_nice(n: Nice, units: Units) -> String {
    let Nice { m, k } = n;
    match units {
        Units::Nanos => {
            let (scaled_k, unit) = if k >= 9 {
                (k - 9, " s")
            } else if k >= 6 {
                (k - 6, " ms")
            } else if k >= 3 {
                (k - 3, " µs")
            } else {
                (k, " ns")
            };
            if (-3..=2).contains(&scaled_k) {
                format!("{}{unit}", decimal(m, scaled_k))
            } else {
                format!("{m}e{scaled_k}{unit}")
            }
        }
        Units::Count if (0..=3).contains(&k) => group(u64::from(m) * 10u64.pow(k as u32)),
        Units::Count if (4..=5).contains(&k) => format!("{}K", decimal(m, k - 3)),
        Units::Count if (6..=8).contains(&k) => format!("{}M", decimal(m, k - 6)),
        Units::Count if (9..=11).contains(&k) => format!("{}G", decimal(m, k - 9)),
        _ if (-4..=6).contains(&k) => decimal(m, k),
        _ => format!("{m}e{k}"),
    }
}

/// `m * 10^k` written out in decimal (small k only).
fn decimal(m: u8, k: i32) -> String {
    if k >= 0 {
        format!("{}{}", m, "0".repeat(k as usize))
    } else {
        let zeros = (-k - 1) as usize;
        format!("0.{}{}", "0".repeat(zeros), m)
    }
}

/// 65536 -> "65,536".
pub use measure::fmt::grouped as group;

// ---- log2 ----

fn log2(min: f64, max: f64, units: Units, px: f64, spacing: &dyn Fn(&str) -> f64) -> Axis {
    let mut lo = min.log2().floor();
    let mut hi = max.log2().ceil();
    if hi - lo < 1.0 {
        lo -= 1.0;
        hi += 1.0;
    }
    let label = |e: f64| fmt_pow2(e as i64, units);
    let mut picked: Vec<f64> = Vec::new();
    for s in [1.0f64, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0] {
        let a = (lo / s).floor() * s;
        let b = (hi / s).ceil() * s;
        let n = ((b - a) / s) as usize + 1;
        if n > MAX_TICKS && s < 512.0 {
            continue;
        }
        let v: Vec<f64> = (0..n.min(MAX_TICKS + 1))
            .map(|i| a + i as f64 * s)
            .collect();
        let need: f64 = v.iter().map(|e| spacing(&label(*e))).sum();
        if need <= px || s == 512.0 {
            lo = a;
            hi = *v.last().unwrap_or(&b);
            picked = v;
            break;
        }
    }
    let ticks = picked
        .iter()
        .map(|e| Tick {
            t: *e,
            label: label(*e),
        })
        .collect::<Vec<_>>();
    let mut minor = Vec::new();
    if hi - lo <= MAX_MINOR as f64 {
        let mut e = lo + 1.0;
        while e < hi {
            if !picked.contains(&e) {
                minor.push(e);
            }
            e += 1.0;
        }
    }
    Axis {
        scale: Scale::Log2,
        lo,
        hi,
        ticks,
        minor,
    }
}

/// Two to the `e`, in the axis's units.
pub fn fmt_pow2(e: i64, units: Units) -> String {
    let e_bytes = match units {
        Units::KiB => e + 10,
        _ => e,
    };
    match units {
        Units::Bytes | Units::KiB => {
            const SUFFIX: [&str; 7] = ["", "K", "M", "G", "T", "P", "E"];
            if (0..70).contains(&e_bytes) {
                let unit = (e_bytes / 10) as usize;
                format!("{}{}", 1u64 << (e_bytes % 10), SUFFIX[unit])
            } else {
                format!("2^{e_bytes}")
            }
        }
        _ => {
            if (0..=23).contains(&e) {
                group(1u64 << e)
            } else {
                format!("2^{e}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn narrow(_: &str) -> f64 {
        20.0
    }

    fn labels(a: &Axis) -> Vec<String> {
        a.ticks.iter().map(|t| t.label.clone()).collect()
    }

    #[test]
    fn log10_labels_every_decade_and_the_ends_below_one() {
        let spec = AxisSpec::log10("ns");
        let a = Axis::fit(&spec, &[0.48, 8.2], 400.0, &narrow).unwrap();
        assert_eq!(labels(&a), ["0.2", "0.5", "1", "2", "5", "10"]);
        let a = Axis::fit(&spec, &[0.09, 190.0], 400.0, &narrow).unwrap();
        assert_eq!(labels(&a)[0], "0.05");
        assert!(labels(&a).contains(&"0.1".to_string()));
        assert_eq!(labels(&a).last().unwrap(), "200");
        // A range inside one decade still has two labels.
        let a = Axis::fit(&spec, &[0.241, 0.243], 400.0, &narrow).unwrap();
        assert!(a.ticks.len() >= 2, "{:?}", labels(&a));
    }

    #[test]
    fn every_value_is_inside_the_labelled_range() {
        for (spec, vals) in [
            (AxisSpec::log10("a"), vec![0.48, 8.2]),
            (AxisSpec::log10("a"), vec![5e-324, 1e308]),
            (AxisSpec::log2("b", Units::KiB), vec![4.0, 131072.0]),
            (AxisSpec::log2("b", Units::Bytes), vec![5e-324, 1.7e308]),
            (AxisSpec::linear("c"), vec![-1.7e308, 1.7e308]),
            (
                AxisSpec::linear("c").starting_at_zero(),
                vec![8212.0, 11607.0],
            ),
            (AxisSpec::linear("c"), vec![1e16, 1e16]),
            (AxisSpec::linear("c"), vec![5e-324, 5e-324]),
        ] {
            let a = Axis::fit(&spec, &vals, 500.0, &narrow).unwrap();
            assert!(a.ticks.len() >= 2, "{spec:?} {vals:?}: {:?}", labels(&a));
            let first = a.frac_t(a.ticks[0].t);
            let last = a.frac_t(a.ticks[a.ticks.len() - 1].t);
            for v in vals {
                let f = a.frac(v).unwrap();
                assert!(
                    f >= first - 1e-9 && f <= last + 1e-9,
                    "{v} at {f} outside {first}..{last} ({:?})",
                    labels(&a)
                );
            }
            assert!(a.ticks.len() <= MAX_TICKS + 2);
            assert!(a.minor.len() <= MAX_MINOR);
        }
    }

    #[test]
    fn a_category_axis_labels_every_name_in_order_whatever_the_values() {
        let names: Vec<String> = ["always true", "random"].map(String::from).to_vec();
        let spec = AxisSpec::categories("pattern", &names);
        for vals in [vec![0.0, 1.0], vec![], vec![5e-324, 1e308, f64::NAN]] {
            let a = Axis::fit(&spec, &vals, 300.0, &narrow).unwrap();
            assert_eq!(labels(&a), names);
            // Each name sits inside the range, half a slot from the ends.
            assert_eq!(a.frac(0.0), Some(0.25));
            assert_eq!(a.frac(1.0), Some(0.75));
        }
    }

    #[test]
    fn pow2_ticks_have_units() {
        let spec = AxisSpec::log2("working set", Units::KiB);
        let a = Axis::fit(&spec, &[4.0, 131072.0], 900.0, &|s: &str| {
            s.len() as f64 * 8.0 + 12.0
        })
        .unwrap();
        let l = labels(&a);
        assert_eq!(l[0], "4K");
        assert!(l.contains(&"64K".into()) && l.contains(&"1M".into()) && l.contains(&"16M".into()));
        assert_eq!(fmt_pow2(3, Units::Bytes), "8");
        assert_eq!(fmt_pow2(16, Units::Count), "65,536");
        assert_eq!(fmt_pow2(30, Units::Bytes), "1G");
        // Narrow: every other power, still from one end to the other.
        let a = Axis::fit(&spec, &[4.0, 131072.0], 200.0, &|s: &str| {
            s.len() as f64 * 8.0 + 12.0
        })
        .unwrap();
        assert!(a.ticks.len() < 16);
    }

    #[test]
    fn nanos_and_counts_read_naturally() {
        assert_eq!(fmt_nice(Nice { m: 2, k: 1 }, Units::Nanos), "20 ns");
        assert_eq!(fmt_nice(Nice { m: 5, k: 5 }, Units::Nanos), "500 µs");
        assert_eq!(fmt_nice(Nice { m: 1, k: 6 }, Units::Nanos), "1 ms");
        assert_eq!(fmt_nice(Nice { m: 1, k: 6 }, Units::Count), "1M");
        assert_eq!(fmt_nice(Nice { m: 5, k: 4 }, Units::Count), "50K");
        assert_eq!(fmt_nice(Nice { m: 5, k: 3 }, Units::Count), "5,000");
        assert_eq!(fmt_nice(Nice { m: 2, k: -2 }, Units::Plain), "0.02");
    }
}
