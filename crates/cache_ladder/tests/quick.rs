//! Runs the built binary once with `--quick` and checks its output: it parses, it has the
//! shape the figures need, and the robust physical facts hold (the largest working set is
//! far slower than 4 KiB; sweeping in order is far faster than chasing at random). Where a
//! knee falls is not asserted: on a shared machine it moves from run to run.

use measure::data::{Block, DataFile};
use std::sync::OnceLock;

const BIN: &str = env!("CARGO_BIN_EXE_cache_ladder");

/// One quick run shared by the tests that read its output (its report and its data).
fn quick_run() -> &'static (String, DataFile) {
    static OUT: OnceLock<(String, DataFile)> = OnceLock::new();
    OUT.get_or_init(|| measure::testing::run_and_parse(BIN, &["--quick"]))
}

fn quick() -> &'static DataFile {
    &quick_run().1
}

fn latency() -> &'static Block {
    quick().block("latency").expect("a latency block")
}

fn col(name: &str) -> Vec<f64> {
    latency()
        .nums(name)
        .unwrap_or_else(|| panic!("column {name}"))
        .into_iter()
        .map(|v| v.unwrap_or_else(|| panic!("{name} has an NA")))
        .collect()
}

/// Each key figure is marked by the result it is read from: that result was recorded.
#[test]
fn every_key_figure_finds_the_result_it_is_read_from() {
    let sources = ::cache_ladder::schema::KEY_SOURCES;
    measure::testing::check_key_sources(quick(), sources).unwrap();
}

#[test]
fn quick_run_parses_with_every_size_and_column() {
    let kib = col("kib");
    assert_eq!(kib[0], 4.0);
    assert!(kib.windows(2).all(|w| w[1] == 2.0 * w[0]), "{kib:?}");
    assert_eq!(*kib.last().unwrap(), 16384.0, "--quick stops at 16 MiB");
    for c in [
        "index_ns",
        "pointer_ns",
        "seq_ns",
        "factor",
        "pointer_pass_spread",
    ] {
        assert!(
            col(c).iter().all(|v| *v > 0.0 || c.ends_with("spread")),
            "{c}"
        );
    }
    // The reported sizes label the rows, and flags are yes/no.
    let wh = latency().texts("where").unwrap();
    assert!(!wh.is_empty() && wh.iter().all(|w| !w.is_empty()));
    for f in ["agree", "stable"] {
        assert!(
            latency()
                .texts(f)
                .unwrap()
                .iter()
                .all(|v| v == "yes" || v == "no")
        );
    }
    let f = quick();
    assert!(
        f.block("knees").is_some(),
        "the knees block is always printed"
    );
    assert!(f.block("key_figures").is_some());
    assert!(f.meta("huge_backing_pct").is_some());
    assert_eq!(f.meta("experiment"), Some("cache_ladder"));
}

#[test]
fn min_median_max_are_ordered() {
    for k in ["index", "pointer", "seq", "seq_vec"] {
        let (lo, mid, hi) = (
            col(&format!("{k}_min_ns")),
            col(&format!("{k}_ns")),
            col(&format!("{k}_max_ns")),
        );
        for i in 0..mid.len() {
            assert!(lo[i] <= mid[i] && mid[i] <= hi[i], "{k} row {i}");
        }
    }
}

#[test]
fn the_largest_working_set_is_over_3x_slower_than_4_kib() {
    for c in ["index_ns", "pointer_ns"] {
        let v = col(c);
        let (first, last) = (v[0], *v.last().unwrap());
        assert!(
            last > 3.0 * first,
            "{c}: {first} ns at 4 KiB, {last} ns at the largest"
        );
    }
}

#[test]
fn sequential_is_over_3x_faster_than_random_at_the_largest_set() {
    // The appendix's one-add-per-word sweep, the slower of the two in-order sweeps.
    let (seq, rnd) = (col("seq_ns"), col("index_ns"));
    let (s, r) = (*seq.last().unwrap(), *rnd.last().unwrap());
    assert!(s * 3.0 < r, "sequential {s} ns, random {r} ns");
}

#[test]
fn the_report_reads_top_to_bottom_within_100_columns() {
    let text = measure::testing::assert_report_of(
        "cache_ladder",
        &quick_run().0,
        &[
            "== 1. the caches of this machine, as reported ==",
            "== 2. the core clock (for the cycles columns) ==",
            "== 3. the memory the rings live in ==",
            "== 4. time for one read, by working set",
            "== 5. boundaries read from the curve, beside the reported sizes ==",
            "how to read this run:",
            "== 6. memory-level parallelism",
        ],
    );
    // Sections 4, 5 and 6 each end with their reading; the tables keep their columns together.
    assert_eq!(text.matches("how to read this run:").count(), 3, "{text}");
    assert!(text.contains("index chase") && text.contains("on huge pages"));
    assert!(text.contains("sequential") && text.contains("round spread"));
    // 120 for the appendix's sections, 45 for section 6 (three sets of five chain counts), 2
    // for section 4's retakes line, and where the host disturbed the run, room for the marks
    // on its readings (173 lines with 17 marks in a quick run beside a busy loop).
    measure::testing::assert_report_length(&text, 180, 200);
}

#[test]
fn a_working_set_beyond_the_address_space_is_refused_in_one_line() {
    // Three regions of 128 MiB and a permutation do not fit in 200 MB of address space.
    let Some(e) = measure::testing::assert_bad_input_within(
        BIN,
        "cache_ladder",
        &["--quick", "--max", "128M"],
        200_000,
    ) else {
        return;
    };
    assert!(
        e.contains("--max 128 MiB") && e.contains("not enough memory"),
        "{e}"
    );
    assert!(e.contains("ulimit -v"), "{e}");
}

#[test]
fn bad_input_is_one_line_and_exit_2() {
    for args in [
        &["--max", "1K"][..],
        &["--max", "lots"],
        &["--bogus"],
        &["--max", "1000000G"],
        &["--max", "2T"],
        &["--max", "1M", "--max", "2M"],
    ] {
        measure::testing::assert_bad_input(BIN, "cache_ladder", args);
    }
}

/// `(mnemonic, operand inside the parentheses, destination)` of every instruction of the
/// `#[unsafe(no_mangle)]` function `symbol` in the built binary that reads memory (AT&T
/// syntax: `mov (%rdi,%rax,8),%rax`), read with `nm -S` and `objdump` by `measure::asm`.
#[cfg(target_arch = "x86_64")]
fn loads(symbol: &str) -> Vec<(String, String, String)> {
    measure::testing::function(BIN, symbol)
        .insns
        .iter()
        .filter(|i| !i.mnemonic.starts_with("nop"))
        .filter_map(|i| {
            let (open, close) = (i.operands.find('(')?, i.operands.find(')')?);
            let dest = i.operands[close + 1..].trim_start_matches(',');
            Some((
                i.mnemonic.clone(),
                i.operands[open + 1..close].to_string(),
                dest.to_string(),
            ))
        })
        .collect()
}

#[cfg(target_arch = "x86_64")]
#[test]
fn each_chase_step_is_one_dependent_load() {
    // The address chase: every load is `mov (%reg),%reg`, the same register, nothing else.
    let a = loads("measure_chase_address");
    assert!(!a.is_empty(), "no loads in the address chase");
    for (op, inside, dest) in &a {
        assert!(op.starts_with("mov"), "{op} ({inside}),{dest}");
        assert!(
            !inside.contains(','),
            "address chase uses no index: ({inside})"
        );
        assert_eq!(inside, dest, "each load's result is the next address");
    }
    // The index chase: every load is `mov (%base,%reg,8),%reg`: the loaded index scaled by 8.
    let i = loads("measure_chase_index");
    assert!(!i.is_empty(), "no loads in the index chase");
    for (op, inside, dest) in &i {
        assert!(op.starts_with("mov"), "{op} ({inside}),{dest}");
        let parts: Vec<&str> = inside.split(',').collect();
        assert_eq!(parts.len(), 3, "({inside})");
        assert_eq!(parts[2], "8");
        assert_eq!(parts[1], dest, "each load's result is the next index");
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_sweep_really_reads_and_adds() {
    // The sum the checksum verifies must be computed from memory inside the function.
    let f = measure::testing::function(BIN, "cache_ladder_sweep");
    assert!(
        !loads("cache_ladder_sweep").is_empty(),
        "the sweep reads no memory"
    );
    assert!(
        f.insns.iter().any(|i| i.mnemonic.contains("add")),
        "the sweep adds nothing: {:?}",
        f.insns
    );
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_appendix_sweep_is_one_scalar_add_per_word() {
    // As the appendix's C loop compiles: `add (%p),%acc`, no packed arithmetic.
    let f = measure::testing::function(BIN, "cache_ladder_sweep_scalar");
    let adds = loads("cache_ladder_sweep_scalar");
    assert!(
        adds.iter()
            .any(|(op, inside, _)| op.starts_with("add") && !inside.contains(',')),
        "no scalar add from memory: {:?}",
        f.insns
    );
    assert!(
        f.insns.iter().all(|i| !i.is_simd_arith()),
        "the scalar sweep has packed arithmetic: {:?}",
        f.insns
    );
}

/// The parallel chase: the loop of `measure_chase_parN` holds N chase loads per step (the
/// compiler may unroll whole steps), `mov (%reg),%reg` (or `0x0(%reg)`): a plain pointer
/// load, no index, per chain and step (cursors spilled to the stack are
/// reloaded and stored with offsets from `%rsp`, which are not chase loads).
#[cfg(target_arch = "x86_64")]
#[test]
fn each_parallel_chase_step_is_n_independent_loads() {
    for n in measure::chase::PARALLEL {
        let sym = format!("measure_chase_par{n}");
        let f = measure::testing::function(BIN, &sym);
        let loops = f.loops();
        let body = loops
            .iter()
            .min_by_key(|l| l.insns.len())
            .unwrap_or_else(|| panic!("{sym} has no loop"));
        let chase: Vec<_> = body
            .insns
            .iter()
            .filter(|i| i.mnemonic.starts_with("mov"))
            .filter_map(|i| {
                let ops = i.operands.trim_start_matches("0x0");
                let inner = ops.strip_prefix('(')?;
                let (reg, dest) = inner.split_once("),")?;
                (!reg.contains(',') && reg != "%rsp").then(|| (reg.to_string(), dest.to_string()))
            })
            .collect();
        assert!(
            !chase.is_empty() && chase.len().is_multiple_of(n),
            "{sym}: {} chase loads: {:#?}",
            chase.len(),
            body.insns
        );
        // Each loads into a register (the chain's next address), never into memory.
        assert!(
            chase.iter().all(|(_, d)| d.starts_with('%')),
            "{sym}: {chase:?}"
        );
    }
}
