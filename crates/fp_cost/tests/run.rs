//! Runs the built experiment with `--quick` and reads what it prints: every block, the report
//! as a terminal shows it, bad input, and (with `--array-mib`) the appendix's failed first try.

use measure::data::DataFile;
use std::sync::{Mutex, MutexGuard};

const BIN: &str = env!("CARGO_BIN_EXE_fp_cost");

/// One timed run at a time: two runs side by side would measure each other.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The section headings of a quick run, in the appendix's order.
const HEADINGS: &[&str] = &[
    "== how this is measured ==",
    "== 1. denormals: numbers very close to zero ==",
    "== 2. float and double ==",
    "== 3. the operations cost differently ==",
    "How to read this run:",
];

/// One quick run shared by the tests that read its output (its report and its data).
fn quick() -> &'static (String, measure::data::DataFile) {
    static RUN: std::sync::OnceLock<(String, measure::data::DataFile)> = std::sync::OnceLock::new();
    RUN.get_or_init(|| {
        let _g = one_at_a_time();
        measure::testing::run_and_parse(BIN, &["--quick"])
    })
}

#[test]
fn a_quick_run_prints_every_block() {
    let f = &quick().1;
    denormals_and_rounds(f);
    widths(f);
    per_element(f);
    ops(f);
    assert!(f.meta("clock_ghz_estimate").is_some());
    assert!(f.meta("cpu_family").is_some());
    assert!(
        f.meta("big_array_verdict").is_none(),
        "section 4 is for full runs"
    );
}

/// Section 1's rows, and the rounds every timed row carries.
fn denormals_and_rounds(f: &DataFile) {
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

    // Every timed row carries its rounds: at least the 11 clean ones a quick run asks for.
    for block in ["denormal", "width", "per_element", "ops"] {
        let b = f.block(block).unwrap();
        let (r, d) = (
            b.nums("rounds").unwrap(),
            b.nums("disturbed_rounds").unwrap(),
        );
        for (r, d) in r.iter().zip(&d) {
            assert!(r.unwrap() >= 11.0 && d.unwrap() <= r.unwrap(), "{block}");
        }
    }
    let results = f.block("disturbance").unwrap().texts("result").unwrap();
    for r in ["denormal", "width", "per_element/l1", "ops"] {
        assert!(results.iter().any(|x| x == r), "{results:?}");
    }
    // Each per-element row is marked by its own array's rounds and window.
    let pe = f.block("per_element").unwrap();
    let p = pe.texts("provisional").unwrap();
    assert!(p.iter().all(|x| x == "yes" || x == "no"), "{p:?}");
}

/// Section 2: the six variants, their shapes, and four accumulators beating one.
fn widths(f: &DataFile) {
    let w = f.block("width").unwrap();
    assert_eq!(
        w.texts("variant").unwrap(),
        [
            "double_four",
            "float_four",
            "double_strict",
            "float_strict",
            "double_lanes",
            "float_lanes"
        ]
    );
    let shape = w.texts("shape").unwrap();
    assert_eq!(&shape[..4], ["scalar"; 4]);
    assert_eq!(&shape[4..], ["vectorised"; 2]);
    // Four accumulators overlap four chains of additions: faster than one, in both widths.
    let ns = w.nums("median_ns").unwrap();
    if !measure::testing::emulated("four accumulators against one") {
        assert!(ns[0].unwrap() < ns[2].unwrap() && ns[1].unwrap() < ns[3].unwrap());
    }
}

/// Section 3a and 3c: the appendix's per-element table and the placement scan.
fn per_element(f: &DataFile) {
    // The appendix's per-element table, in its order, multiply = 1.0x; in quick mode only L1.
    let pe = f.block("per_element").unwrap();
    assert_eq!(
        pe.texts("op").unwrap(),
        ["multiply", "add", "divide", "sqrt", "sin"]
    );
    assert!(pe.texts("array").unwrap().iter().all(|a| a == "l1"));
    let vs = pe.nums("vs_multiply").unwrap();
    assert_eq!(vs[0], Some(1.0));
    // Robust physical facts: a division and a sin cost more than a multiply, per element too
    // (on the machine: under an emulator every operation is a call into its soft float). Not
    // how much more: on a 2-vCPU VM the multiply ran at half speed in whole runs with no round
    // disturbed (a shared physical core), and divide over multiply fell from 3.5 to 1.6.
    let on_machine = !measure::testing::emulated("the operations' relative costs");
    if on_machine {
        let (div, sin) = (vs[2].unwrap(), vs[4].unwrap());
        assert!(
            div > 1.0 && sin > div,
            "divide {div}x, sin {sin}x a multiply"
        );
    }

    // The multiply at every placement of its block, GCC's among them, timed as 3a's multiply
    // (x86-64 only: elsewhere the scan is skipped and no block written).
    assert_eq!(f.block("placement").is_some(), cfg!(target_arch = "x86_64"));
    #[cfg(target_arch = "x86_64")]
    {
        let pl = f.block("placement").unwrap();
        let at: Vec<f64> = pl
            .nums("placement_bytes")
            .unwrap()
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(at, [0.0, 8.0, 16.0, 24.0, 32.0, 40.0, 48.0, 56.0]);
        let gcc = pl.texts("as_gcc").unwrap();
        assert_eq!(gcc.iter().filter(|g| *g == "yes").count(), 1);
        assert_eq!(gcc[3], "yes");
        let pe_ns = pe.nums("median_ns").unwrap();
        // 3a's multiply is the one whose block starts a line (placement 0).
        assert_eq!(pl.nums("median_ns").unwrap()[0], pe_ns[0]);
    }
}

/// Section 3b: latency and throughput of each operation.
fn ops(f: &DataFile) {
    let on_machine = !measure::testing::emulated("the operations' relative costs");
    let ops = f.block("ops").unwrap();
    assert_eq!(
        ops.texts("op").unwrap(),
        ["multiply", "add", "divide", "sqrt", "sin"]
    );
    let lat = ops.nums("latency_ns").unwrap();
    let chain = ops.nums("chain_ns").unwrap();
    let tput = ops.nums("throughput_ns").unwrap();
    for k in 0..5 {
        assert!(chain[k].unwrap() > 0.0 && tput[k].unwrap() > 0.0, "row {k}");
        // sqrt and sin less the add: positive, or NA when disturbance made it meaningless.
        assert!(lat[k].is_none_or(|l| l > 0.0), "row {k}");
    }
    assert!(
        lat[..3].iter().all(Option::is_some),
        "multiply, add, divide subtract nothing"
    );
    // A robust physical fact: sin, a library call of dozens of instructions, takes longer than
    // one multiply, both as a chain and with independent chains.
    if on_machine {
        assert!(chain[4].unwrap() > chain[0].unwrap());
        assert!(tput[4].unwrap() > tput[0].unwrap());
    }
}

#[test]
fn the_report_reads_on_a_terminal() {
    let text = measure::testing::assert_report_of("fp_cost", &quick().0, HEADINGS);
    // Every section ends with what its numbers say, and so does 3c where it runs (x86-64); an
    // emulated run says none.
    if !measure::testing::says_emulated(&text) {
        let readings = if cfg!(target_arch = "x86_64") { 4 } else { 3 };
        assert_eq!(text.matches("How to read this run:").count(), readings);
    }
    assert!(text.contains("3a. the appendix's table"));
    assert!(text.contains("3b. each operation in its own loop"));
    assert!(text.contains("3c. where the code sits"));
}

/// Issue 13 (1c): with the arrays far beyond the last-level cache, memory sets the pace, so
/// a divide and a multiply per element come out closer than with the arrays in L1.
#[test]
fn beyond_the_cache_multiply_and_divide_come_closer() {
    // Two arrays of 64 MiB: beyond every last-level cache these machines report (32 MiB).
    let (text, f) = {
        let _g = one_at_a_time();
        measure::testing::run_and_parse(BIN, &["--quick", "--array-mib", "64"])
    };
    assert!(text.contains("== 4. the first try, repeated"), "{text}");
    // Each key figure, the big arrays' included, finds the result it is read from.
    measure::testing::check_key_sources(&f, ::fp_cost::schema::KEY_SOURCES).unwrap();
    let pe = f.block("per_element").unwrap();
    let array = pe.texts("array").unwrap();
    // Each array's rows carry the mark of its own result, `per_element/l1` or `/big`.
    let d = f.block("disturbance").unwrap();
    let (results, marks) = (d.texts("result").unwrap(), d.texts("provisional").unwrap());
    let mark_of = |a: &str| {
        let i = results
            .iter()
            .position(|r| *r == format!("per_element/{a}"));
        marks[i.unwrap_or_else(|| panic!("no per_element/{a} in {results:?}"))].clone()
    };
    for (a, p) in array.iter().zip(pe.texts("provisional").unwrap()) {
        assert_eq!(p, mark_of(a), "a row over the {a} arrays");
    }
    // The fastest round of each: the least disturbed by other work on a shared machine.
    let ns = pe.nums("min_ns").unwrap();
    let row = |a: &str, k: usize| {
        let i = (0..array.len())
            .filter(|&i| array[i] == a)
            .nth(k)
            .unwrap_or_else(|| panic!("no {a} row {k}"));
        ns[i].unwrap()
    };
    // In L1 a step of multiply is mostly the switch's own work, fetched by 64-byte lines of
    // code; the best-placed multiply (section 3a's placement line) leaves that artefact out.
    let placed = f.block("placement").and_then(|b| b.nums("min_ns"));
    let best_mul = placed
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .fold(f64::INFINITY, f64::min);
    let in_l1 = row("l1", 2) / best_mul.min(row("l1", 0));
    let big = row("big", 2) / row("big", 0);
    if !measure::testing::emulated("divide against multiply beyond the cache") {
        assert!(
            big < in_l1,
            "divide / multiply per element: {big:.2}x beyond the cache, {in_l1:.2}x in L1"
        );
    }
    assert!(f.meta("big_array_verdict").is_some());
    assert_eq!(f.meta_num("big_array_bytes"), Some((128u64 << 20) as f64));
}

#[test]
fn bad_arguments_get_one_line_and_exit_2() {
    for args in [
        &["--rounds", "x"][..],
        &["--rounds", "2"],
        &["--what"],
        &["--array-mib", "0"],
        &["--array-mib", "many"],
        &["--array-mib", "99999999"],
    ] {
        measure::testing::assert_bad_input(BIN, "fp_cost", args);
    }
}
