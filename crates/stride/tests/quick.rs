//! The built `stride` binary: a quick run parses and shows the robust physical effects, bad
//! input is refused with one line, and the kernels have the shape the program claims.

#[cfg(target_arch = "x86_64")]
use measure::asm;
use measure::data::DataFile;
use std::sync::OnceLock;

const EXE: &str = env!("CARGO_BIN_EXE_stride");

/// One quick run shared by the tests that read its output, with a fortieth of the appendix's
/// accesses per stride (still 200 MB of 4 KiB steps, so the walk wraps in any buffer it
/// picks): a fifth of a plain `--quick` run's time (`run-all --quick` runs that one).
fn quick() -> &'static (String, DataFile) {
    static RUN: OnceLock<(String, DataFile)> = OnceLock::new();
    RUN.get_or_init(|| measure::testing::run_and_parse(EXE, &["--quick", "--accesses", "50000"]))
}

fn col(data: &DataFile, block: &str, name: &str) -> Vec<Option<f64>> {
    data.block(block)
        .unwrap_or_else(|| panic!("no block {block}"))
        .nums(name)
        .unwrap_or_else(|| panic!("block {block} has no column {name}"))
}

/// Each key figure is marked by the result it is read from: that result was recorded.
#[test]
fn every_key_figure_finds_the_result_it_is_read_from() {
    let sources = ::stride::schema::KEY_SOURCES;
    measure::testing::check_key_sources(&quick().1, sources).unwrap();
}

#[test]
fn quick_run_parses_with_every_stride_and_the_facts_it_used() {
    let (_, d) = quick();
    let strides: Vec<f64> = col(d, "stride", "stride_bytes")
        .into_iter()
        .flatten()
        .collect();
    let want: Vec<f64> = (0..=12).map(|k| f64::from(1u32 << k)).collect();
    assert_eq!(strides, want, "strides 1 .. 4096, powers of two");
    for c in [
        "appendix_ns",
        "fresh_ns",
        "appendix_min_ns",
        "appendix_max_ns",
    ] {
        assert!(
            col(d, "stride", c)
                .iter()
                .all(|v| v.is_some_and(|x| x > 0.0)),
            "{c} measured everywhere"
        );
    }
    // min <= median <= max, row by row.
    let (lo, mid, hi) = (
        col(d, "stride", "appendix_min_ns"),
        col(d, "stride", "appendix_ns"),
        col(d, "stride", "appendix_max_ns"),
    );
    for i in 0..lo.len() {
        assert!(lo[i] <= mid[i] && mid[i] <= hi[i]);
    }
    let agree = d.block("stride").unwrap().texts("agree").unwrap();
    assert!(agree.iter().all(|a| a == "yes" || a == "no"));
    let passes = d.block("stride_passes").unwrap();
    let orders = passes.texts("pass").unwrap();
    assert!(orders.contains(&"forward".to_string()) && orders.contains(&"shuffled".to_string()));
    assert_eq!(
        d.meta_num("accesses"),
        Some(50_000.0),
        "--accesses is taken"
    );
    // The buffer is larger than the largest cache the run reported.
    let buf = d.meta_num("buffer_bytes").unwrap();
    for key in ["l1d_size_bytes", "l2_size_bytes", "l3_size_bytes"] {
        if let Some(c) = d.meta_num(key) {
            assert!(buf > c, "buffer {buf} not larger than {key} {c}");
        }
    }
    for b in ["layout", "key_figures"] {
        assert!(d.block(b).is_some(), "block {b}");
    }
}

#[test]
fn distinct_lines_show_the_wrap() {
    let (text, d) = quick();
    let Some(line) = d.meta_num("line_bytes") else {
        return; // line size unknown on this machine: the columns are NA, checked below
    };
    let buf = d.meta_num("buffer_bytes").unwrap();
    let acc = d.meta_num("accesses").unwrap();
    let strides = col(d, "stride", "stride_bytes");
    let wrap = col(d, "stride", "appendix_lines");
    let fresh = col(d, "stride", "fresh_lines");
    for i in 0..strides.len() {
        let s = strides[i].unwrap();
        let (w, f) = (wrap[i].unwrap(), fresh[i].unwrap());
        if s >= line {
            // One line per distinct position; a wrapped walk has only buffer/stride positions.
            assert_eq!(w, acc.min(buf / s), "stride {s}");
            assert_eq!(f, acc.min(buf / line), "stride {s}");
        } else {
            assert_eq!(w, f, "below the line size both walks are the same");
        }
    }
    if acc * 4096.0 > buf && !measure::testing::says_emulated(text) {
        assert!(text.contains("WRAPPED"), "the wrap is said in words");
    }
}

#[test]
fn robust_physical_effects() {
    if measure::testing::emulated("robust physical effects") {
        return;
    }
    let (_, d) = quick();
    let first = |c: &str| col(d, "stride", c)[0].unwrap();
    let last = |c: &str| col(d, "stride", c).last().copied().flatten().unwrap();
    // 4096-byte steps over a buffer far beyond the caches: every access needs a new line
    // and a new page, against one line per 64 accesses at stride 1.
    assert!(
        last("appendix_ns") > 2.0 * first("appendix_ns"),
        "stride 4096 {} ns vs stride 1 {} ns",
        last("appendix_ns"),
        first("appendix_ns")
    );
    assert!(last("fresh_ns") > 2.0 * first("fresh_ns"));
    // Summing one field from 56-byte structs moves 7x the bytes of the separate array.
    let layout = d.block("layout").unwrap();
    let names = layout.texts("layout").unwrap();
    let ns = layout.nums("median_ns").unwrap();
    let get = |n: &str| ns[names.iter().position(|x| x == n).unwrap()].unwrap();
    assert!(
        get("aos") > 1.2 * get("soa"),
        "AoS {} ns vs SoA {} ns",
        get("aos"),
        get("soa")
    );
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    for args in [
        &["--buffer", "12Q"][..],
        &["--buffer", "512K"],
        &["--buffer", "2T"],
        &["--accesses", "0"],
        &["--accesses", "many"],
        &["--accesses", "100000001"],
        &["--bogus"],
    ] {
        measure::testing::assert_bad_input(EXE, "stride", args);
    }
}

#[test]
fn a_buffer_beyond_memory_is_refused_before_anything_runs() {
    // Half the physical memory is the bound; 512 GiB is beyond it on any machine this runs on.
    let phys = measure::mem::physical_memory().expect("physical memory");
    if phys < 1 << 40 {
        measure::testing::assert_bad_input(EXE, "stride", &["--quick", "--buffer", "512G"]);
    }
}

#[test]
fn a_run_beyond_the_address_space_is_refused_in_one_line() {
    // The layout section needs 256 MiB; `ulimit -v 200000` leaves less than that.
    let Some(e) = measure::testing::assert_bad_input_within(EXE, "stride", &["--quick"], 200_000)
    else {
        return;
    };
    assert!(
        e.contains("not enough memory") && e.contains("ulimit -v"),
        "{e}"
    );
}

#[test]
fn a_buffer_below_the_huge_page_size_walks_what_it_plans() {
    // The region is mapped in whole 2 MiB; the walk and its checksums use exactly 1 MiB.
    let (_, d) =
        measure::testing::run_and_parse(EXE, &["--quick", "--buffer", "1M", "--accesses", "1000"]);
    assert_eq!(d.meta_num("buffer_bytes"), Some(1048576.0));
    assert_eq!(col(&d, "stride", "stride_bytes").len(), 13);
}

#[test]
fn the_report_reads_top_to_bottom_within_100_columns() {
    let text = measure::testing::assert_report_of(
        "stride",
        &quick().0,
        &[
            "== 1. the cache line of this machine, and the clock ==",
            "== 2. the buffer: larger than the largest cache, touched beforehand ==",
            "== 3. varying the stride: 50,000 accesses each, over",
            "== 4. the same data, laid out differently ==",
            "how to read this run:",
        ],
    );
    assert_eq!(text.matches("how to read this run:").count(), 2, "{text}");
    // The appendix's "bytes fetched in vain" beside ours, with the reason they differ.
    assert!(
        text.contains("appendix") && text.contains("in vain: ours"),
        "{text}"
    );
    // 120 for the appendix's sections, and 8 for the prefetchers' reading beyond it; on a busy
    // machine the "provisional:" and "contention:" sentences add a line or two per reading.
    measure::testing::assert_report_length(&text, 128, 144);
}

#[test]
fn the_appendix_in_vain_column_is_0_below_the_line_and_ours_is_not() {
    let (_, d) = quick();
    let Some(line) = d.meta_num("line_bytes") else {
        return;
    };
    let strides = col(d, "stride", "stride_bytes");
    let ours = col(d, "stride", "vain_bytes");
    let book = col(d, "stride", "appendix_vain_bytes");
    for i in 0..strides.len() {
        let s = strides[i].unwrap();
        if s < line {
            assert_eq!(book[i], Some(0.0), "stride {s}");
            assert_eq!(ours[i], Some(s - 1.0), "stride {s}");
        } else {
            assert_eq!(book[i], Some(line - 1.0));
            assert_eq!(ours[i], book[i]);
        }
    }
}

/// The kernel's innermost loops.
#[cfg(target_arch = "x86_64")]
fn loops(name: &str) -> Vec<asm::Loop> {
    measure::testing::function(EXE, name).loops()
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_walks_load_one_byte_per_access_with_the_same_inner_loop() {
    let (wrap, fresh) = (loops("stride_walk_wrap"), loops("stride_walk_fresh"));
    let shape = |ls: &[asm::Loop]| -> Vec<Vec<String>> {
        ls.iter()
            .map(|l| l.insns.iter().map(|i| i.mnemonic.clone()).collect())
            .collect()
    };
    for (name, ls) in [("wrap", &wrap), ("fresh", &fresh)] {
        assert!(!ls.is_empty(), "{name}: no loop");
        for l in ls.iter() {
            assert!(
                l.simd_arith().is_empty(),
                "{name}: vectorised {:?}",
                l.insns
            );
            assert!(l.forks.is_empty(), "{name}: a branch inside the loop");
            // Every load is one byte (movzbl), indexed, and the index is masked (and).
            let loads: Vec<_> = l
                .insns
                .iter()
                .filter(|i| i.operands.contains('(') && !i.mnemonic.starts_with("nop"))
                .collect();
            assert!(!loads.is_empty(), "{name}: no load in the loop");
            assert!(
                loads.iter().all(|i| i.mnemonic == "movzbl"),
                "{name}: {loads:?}"
            );
            let ands = l.insns.iter().filter(|i| i.mnemonic == "and").count();
            assert_eq!(ands, loads.len(), "{name}: one mask per access");
        }
    }
    // The fresh walk differs only in where its laps start: the same inner loops, the same
    // instructions (the compiler may enter a loop at another point of the same cycle).
    let sorted = |ls: &[asm::Loop]| -> Vec<Vec<String>> {
        shape(ls)
            .into_iter()
            .map(|mut l| {
                l.sort();
                l
            })
            .collect()
    };
    assert_eq!(sorted(&wrap), sorted(&fresh));
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_layout_sums_are_scalar_chains_with_56_and_8_byte_steps() {
    let (aos, soa) = (loops("stride_sum_aos_x"), loops("stride_sum_soa_x"));
    // Displacements of the addsd loads: multiples of 56 for structs, of 8 for the array.
    let disp = |i: &asm::Insn| -> i64 {
        let d = i.operands.split('(').next().unwrap_or("");
        match d.strip_prefix("0x") {
            Some(h) => i64::from_str_radix(h, 16).unwrap(),
            None if d.is_empty() => 0,
            None => d.parse().unwrap(),
        }
    };
    for (name, ls, step) in [("aos", &aos, 56), ("soa", &soa, 8)] {
        assert!(!ls.is_empty(), "{name}: no loop");
        for l in ls.iter() {
            assert!(l.simd_arith().is_empty(), "{name}: vectorised");
            let adds: Vec<_> = l.insns.iter().filter(|i| i.mnemonic == "addsd").collect();
            assert!(!adds.is_empty(), "{name}: no scalar addition");
            for a in &adds {
                assert!(a.operands.contains('('), "{name}: addsd from memory");
                assert_eq!(disp(a) % step, 0, "{name}: {a:?}");
            }
            // The pointer advances by whole elements.
            let adv = l
                .insns
                .iter()
                .filter(|i| i.mnemonic == "add" && i.operands.starts_with("$0x"))
                .map(|i| {
                    let h = i.operands[3..].split(',').next().unwrap();
                    i64::from_str_radix(h, 16).unwrap()
                })
                .find(|v| *v > 1)
                .unwrap_or_else(|| panic!("{name}: no pointer step in {:?}", l.insns));
            assert_eq!(adv % step, 0, "{name}: step {adv}");
        }
    }
    // And the struct loop really steps by 56 bytes somewhere (not by a multiple of 8 only).
    assert!(
        aos.iter()
            .flat_map(|l| &l.insns)
            .any(|i| i.operands.contains("0x38")),
        "a 56-byte step in the AoS loop"
    );
}
