//! The baseline: nobody edits this file.

/// The signal `x` through the decaying filter `y = y / 2 + x`, one output per sample.
#[inline(never)]
#[unsafe(export_name = "lab_denormals_baseline")]
pub fn smooth(x: &[f32]) -> Vec<f32> {
    let mut y = 0.0f32;
    x.iter()
        .map(|&v| {
            y = y * 0.5 + v;
            y
        })
        .collect()
}
