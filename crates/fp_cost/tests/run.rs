//! Runs the built experiment with `--quick` and reads what it prints.

const BIN: &str = env!("CARGO_BIN_EXE_fp_cost");

#[test]
fn a_quick_run_prints_every_block() {
    let (_, f) = measure::testing::run_and_parse(BIN, &["--quick"]);

    let d = f.block("denormal").unwrap();
    assert_eq!(
        d.texts("values").unwrap(),
        ["normal", "denormal", "normal", "denormal"]
    );
    assert_eq!(d.texts("ftz_daz").unwrap(), ["off", "off", "on", "on"]);
    let med = d.nums("median_ns").unwrap();
    assert!(med[0].unwrap() > 0.0 && med[1].unwrap() > 0.0);
    if cfg!(any(target_arch = "x86_64", target_arch = "aarch64")) {
        assert_eq!(f.meta("fp_control_restored"), Some("yes"));
        assert!(med[2].is_some() && med[3].is_some());
    }

    let w = f.block("width").unwrap();
    assert_eq!(
        w.texts("variant").unwrap(),
        [
            "double_strict",
            "float_strict",
            "double_lanes",
            "float_lanes"
        ]
    );
    let shape = w.texts("shape").unwrap();
    assert_eq!(shape[0], "scalar");
    assert_eq!(shape[2], "vectorised");

    let ops = f.block("ops").unwrap();
    assert_eq!(
        ops.texts("op").unwrap(),
        ["multiply", "add", "divide", "sqrt", "sin"]
    );
    let lat = ops.nums("latency_ns").unwrap();
    let tput = ops.nums("throughput_ns").unwrap();
    for k in 0..5 {
        assert!(lat[k].unwrap() > 0.0 && tput[k].unwrap() > 0.0, "row {k}");
    }
    // A robust physical fact: sin, a library call of dozens of instructions, takes longer than
    // one multiply, both as a chain and with independent chains.
    assert!(lat[4].unwrap() > lat[0].unwrap());
    assert!(tput[4].unwrap() > tput[0].unwrap());
    assert!(f.meta("clock_ghz_estimate").is_some());
    assert!(f.meta("cpu_family").is_some());
}

#[test]
fn bad_arguments_get_one_line_and_exit_2() {
    for args in [&["--rounds", "x"][..], &["--rounds", "2"], &["--what"]] {
        measure::testing::assert_bad_input(BIN, "fp_cost", args);
    }
}
