// Your solution: make `smooth` faster. It must keep computing what `baseline::smooth`
// computes (to a millionth, or within 8 times the smallest normal number).
// Check it with `cargo xtask lab check denormals`.

/// The signal `x` through the decaying filter `y = y / 2 + x`, one output per sample.
#[inline(never)]
#[unsafe(export_name = "lab_denormals_solution")]
pub fn smooth(x: &[f32]) -> Vec<f32> {
    let mut y = 0.0f32;
    x.iter()
        .map(|&v| {
            y = y * 0.5 + v;
            y
        })
        .collect()
}
