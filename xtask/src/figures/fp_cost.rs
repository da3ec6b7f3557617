//! fp_cost's figures: the cost of each operation as latency and throughput (log scale,
//! beside the appendix's own per-element numbers when saved), denormal vs normal values with
//! and without flush-to-zero, and float vs double in strict order and with lanes.

use super::chart::BarChart;
use super::{Figure, Saved, appendix_reference, need_block, need_nums};

pub fn draw(saved: &Saved) -> Result<Vec<Figure>, String> {
    let run = saved.run("fp_cost").ok_or("no fp_cost output")?;
    let cpu = run.meta("cpu_family").unwrap_or("unknown CPU");

    // Operations: latency and throughput.
    let o = need_block(run, "fp_cost", "ops")?;
    let ops = o.texts("op").ok_or("block ops has no op column")?;
    if ops.is_empty() {
        return Err("block ops is empty".into());
    }
    let mut c = BarChart::new(
        &format!("The cost of one operation, f64 ({}; {cpu})", saved.label),
        "ns per operation (median, log scale)",
    );
    c.y_log = true;
    c.categories = ops.clone();
    c.series.push((
        "latency: one dependent chain".into(),
        need_nums(o, "latency_ns")?,
    ));
    c.series.push((
        "throughput: independent chains".into(),
        need_nums(o, "throughput_ns")?,
    ));
    // The appendix's C program prints one bare block: operation index, ns per element of
    // `a[i] op b[i]` into four accumulators (0 multiply, 1 add, 2 divide, 3 sqrt, 4 sin).
    if let Some((label, f)) = appendix_reference(saved, "fp_cost")?
        && let Some(b) = f.bare_blocks().find(|b| b.columns.len() >= 2)
    {
        let (idx, val) = (need_nums(b, "c1")?, need_nums(b, "c2")?);
        let order = ["multiply", "add", "divide", "sqrt", "sin"];
        let matched: Vec<Option<f64>> = ops
            .iter()
            .map(|name| {
                let k = order.iter().position(|o| o == name)? as f64;
                idx.iter()
                    .zip(&val)
                    .find(|(i, _)| **i == Some(k))
                    .and_then(|(_, v)| *v)
            })
            .collect();
        if matched.iter().any(Option::is_some) {
            c.series.push((format!("{label}: a[i] op b[i]"), matched));
        }
    }
    let ops_fig = Figure {
        file: "fp_cost-ops.svg".into(),
        svg: c.render()?,
    };

    // Denormals, with and without flush-to-zero.
    let d = need_block(run, "fp_cost", "denormal")?;
    let values = d
        .texts("values")
        .ok_or("block denormal has no values column")?;
    let mode = d
        .texts("ftz_daz")
        .ok_or("block denormal has no ftz_daz column")?;
    let med = need_nums(d, "median_ns")?;
    let cell = |v: &str, m: &str| {
        values
            .iter()
            .zip(&mode)
            .position(|(a, b)| a == v && b == m)
            .and_then(|i| med[i])
    };
    let mut c = BarChart::new(
        &format!(
            "Denormal vs normal values, with and without FTZ/DAZ ({})",
            saved.label
        ),
        "ns per element (median)",
    );
    c.categories = vec![
        "a[] = 1.0 (normal)".into(),
        "a[] = MIN_POSITIVE/8 (denormal)".into(),
    ];
    c.series.push((
        "FTZ/DAZ off (IEEE)".into(),
        vec![cell("normal", "off"), cell("denormal", "off")],
    ));
    let on = vec![cell("normal", "on"), cell("denormal", "on")];
    let reg = run
        .meta("fp_control_register")
        .unwrap_or("control register");
    c.series.push((format!("FTZ/DAZ on ({reg})"), on));
    if c.series[0].1.iter().all(Option::is_none) {
        return Err("block denormal has no measured off row".into());
    }
    let den_fig = Figure {
        file: "fp_cost-denormal.svg".into(),
        svg: c.render()?,
    };

    // float vs double.
    let w = need_block(run, "fp_cost", "width")?;
    let ty = w.texts("type").ok_or("block width has no type column")?;
    let order = w.texts("order").ok_or("block width has no order column")?;
    let shape = w.texts("shape").ok_or("block width has no shape column")?;
    let ns = need_nums(w, "median_ns")?;
    let orders: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for o in &order {
            if !v.contains(o) {
                v.push(o.clone());
            }
        }
        v
    };
    let mut c = BarChart::new(
        &format!(
            "float vs double: a dot product in strict order and with lanes ({})",
            saved.label
        ),
        "ns per element (median)",
    );
    c.categories = orders
        .iter()
        .map(|o| {
            let s = order
                .iter()
                .zip(&shape)
                .find(|(a, _)| *a == o)
                .map_or("?", |(_, s)| s.as_str());
            format!("{o} order [{s}]").replace("lanes order", "lanes")
        })
        .collect();
    for t in ["double", "float"] {
        let vals = orders
            .iter()
            .map(|o| {
                (0..ty.len())
                    .find(|&i| ty[i] == t && &order[i] == o)
                    .and_then(|i| ns[i])
            })
            .collect();
        c.series.push((t.to_string(), vals));
    }
    let width_fig = Figure {
        file: "fp_cost-width.svg".into(),
        svg: c.render()?,
    };
    Ok(vec![ops_fig, den_fig, width_fig])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn saved(text: &str) -> Saved {
        Saved::from_text("fp_cost", text, PathBuf::from("/nonexistent/results/test"))
    }

    const RUN: &str = "\
#META cpu_family AuthenticAMD family 0x1a model 0x2 (Zen 5)
#META fp_control_register MXCSR
#DATA-BEGIN ops
#COLUMNS op:text step:text chain_ns chain_min_ns chain_max_ns latency_ns latency_cycles throughput_ns throughput_min_ns throughput_max_ns throughput_cycles shape:text
#DATA multiply x=x*c 0.787 0.779 0.789 0.787 3 0.132 0.131 0.136 0.5 scalar
#DATA add x=x+c 0.522 0.518 0.597 0.522 2 0.130 0.13 0.133 0.5 scalar
#DATA divide x=x/c 3.41 3.39 3.44 3.41 13 1.04 1.03 1.07 4 scalar
#DATA sqrt x=sqrt(x)+1 6.02 5.98 6.2 5.5 21 1.95 1.94 1.98 7.4 scalar
#DATA sin x=sin(x)+1 13.2 13 13.5 12.7 48 8.29 8.09 8.34 31.5 scalar
#DATA-END
#DATA-BEGIN denormal
#COLUMNS values:text ftz_daz:text median_ns min_ns max_ns
#DATA normal off 0.134 0.133 0.135
#DATA denormal off 0.139 0.135 0.145
#DATA normal on NA NA NA
#DATA denormal on NA NA NA
#DATA-END
#DATA-BEGIN width
#COLUMNS variant:text type:text order:text shape:text median_ns min_ns max_ns
#DATA double_strict double strict scalar 0.52 0.51 0.55
#DATA float_strict float strict scalar 0.52 0.51 0.55
#DATA double_lanes double lanes vectorised 0.13 0.13 0.13
#DATA float_lanes float lanes vectorised 0.065 0.064 0.066
#DATA-END
";

    #[test]
    fn draws_three_figures_deterministically_with_unmeasured_cells_left_out() {
        let s = saved(RUN);
        let f = draw(&s).unwrap();
        let names: Vec<&str> = f.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(
            names,
            [
                "fp_cost-ops.svg",
                "fp_cost-denormal.svg",
                "fp_cost-width.svg"
            ]
        );
        assert!(f[0].svg.contains("Zen 5"));
        assert!(f[0].svg.contains("divide"));
        assert!(f[1].svg.contains("FTZ/DAZ on (MXCSR)"));
        assert!(f[2].svg.contains("lanes [vectorised]"));
        assert!(f[2].svg.contains("strict order [scalar]"));
        let again = draw(&s).unwrap();
        for (a, b) in f.iter().zip(&again) {
            assert_eq!(a.svg, b.svg);
        }
    }

    #[test]
    fn a_missing_block_is_an_error_naming_it() {
        let e = draw(&saved("#META quick yes\n")).err().unwrap();
        assert!(e.contains("ops"), "{e}");
        let no_width = RUN.split("#DATA-BEGIN width").next().unwrap();
        let e = draw(&saved(no_width)).err().unwrap();
        assert!(e.contains("width"), "{e}");
    }
}
