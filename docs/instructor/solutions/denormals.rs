// Reference solution of the denormals lab (labs/denormals): numbers below the smallest
// normal float are treated as zero, in the input and in the filter's state, so no
// operation takes a denormal in (a product may still round into one, once per decay).
// On a core without a denormal penalty this is slower than the baseline: the flush adds a
// compare and a mask to the filter's chain of dependent operations. The result changes by a few times
// f32::MIN_POSITIVE at most, which the lab's check accepts. (Setting the FTZ and DAZ
// bits of MXCSR does the same in hardware, for every operation of the thread.)
// Check it with `cargo xtask lab check denormals --solution
// docs/instructor/solutions/denormals.rs`.

/// A denormal `v` as zero; any other value unchanged.
#[inline(always)]
fn flush(v: f32) -> f32 {
    if v.abs() < f32::MIN_POSITIVE { 0.0 } else { v }
}

/// The signal `x` through the decaying filter `y = y / 2 + x`, one output per sample.
#[inline(never)]
#[unsafe(export_name = "lab_denormals_solution")]
pub fn smooth(x: &[f32]) -> Vec<f32> {
    let mut y = 0.0f32;
    x.iter()
        .map(|&v| {
            y = flush(y * 0.5 + flush(v));
            y
        })
        .collect()
}
