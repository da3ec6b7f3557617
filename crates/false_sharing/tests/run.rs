//! Runs the built binary with `--quick` and checks what it printed, and checks the shape of
//! the timed loops in the built binary's machine code.

#[cfg(target_arch = "x86_64")]
use measure::asm;
use measure::data::DataFile;
use measure::testing;
#[cfg(target_arch = "x86_64")]
use std::path::Path;
use std::sync::{Mutex, MutexGuard, OnceLock};

const BIN: &str = env!("CARGO_BIN_EXE_false_sharing");

/// One run at a time: two runs side by side would fight over the same cores.
fn one_at_a_time() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs the binary with `args`; it must exit 0 and its output parse.
fn run(args: &[&str]) -> (String, DataFile) {
    let _g = one_at_a_time();
    testing::run_and_parse(BIN, args)
}

/// The quick run on (at most) two cores, shared by the tests that read it.
fn two_core_run() -> &'static (String, DataFile) {
    static RUN: OnceLock<(String, DataFile)> = OnceLock::new();
    RUN.get_or_init(|| run(&["--quick", "--cores", "2"]))
}

fn col(f: &DataFile, block: &str, c: &str) -> Vec<Option<f64>> {
    f.block(block)
        .unwrap_or_else(|| panic!("no block {block}"))
        .nums(c)
        .unwrap_or_else(|| panic!("no column {c} in {block}"))
}

fn texts(f: &DataFile, block: &str, c: &str) -> Vec<String> {
    f.block(block)
        .unwrap_or_else(|| panic!("no block {block}"))
        .texts(c)
        .unwrap_or_else(|| panic!("no text column {c} in {block}"))
}

/// The index of the row of `method` with `threads` threads in the `shared` block.
fn shared_row(f: &DataFile, method: &str, threads: f64) -> usize {
    let methods = texts(f, "shared", "method");
    let n = col(f, "shared", "threads");
    (0..methods.len())
        .find(|&i| methods[i] == method && n[i] == Some(threads))
        .unwrap_or_else(|| panic!("no {threads}-thread {method} row in the shared block"))
}

/// Each key figure is marked by the result it is read from: that result was recorded.
#[test]
fn every_key_figure_finds_the_result_it_is_read_from() {
    let sources = ::false_sharing::schema::KEY_SOURCES;
    measure::testing::check_key_sources(&two_core_run().1, sources).unwrap();
}

#[test]
fn quick_run_parses_with_every_block() {
    let (_, f) = two_core_run();
    for b in [
        "baseline",
        "distance",
        "threads",
        "shared",
        "rounds",
        "placement",
        "c2c",
        "c2c_methods",
        "key_figures",
    ] {
        assert!(f.block(b).is_some(), "missing block {b}");
    }
    // Every measured row of the false-sharing tables says whether its rounds split in two
    // groups, and the counts add up to the rounds used: the clean ones (all, if none was).
    for b in ["distance", "threads"] {
        let groups = col(f, b, "groups");
        let (lo, hi) = (col(f, b, "low_rounds"), col(f, b, "high_rounds"));
        let (rounds, disturbed) = (col(f, b, "rounds"), col(f, b, "disturbed_rounds"));
        let ns = col(f, b, "ns_median");
        for i in 0..groups.len() {
            if ns[i].is_none() {
                assert_eq!(
                    rounds[i],
                    Some(0.0),
                    "{b} row {i}: a skipped row took no rounds"
                );
                continue;
            }
            let (r, d) = (rounds[i].unwrap(), disturbed[i].unwrap());
            assert_eq!(r, 5.0, "{b} row {i}: quick rounds");
            let used = if d == r { r } else { r - d };
            let n = lo[i].unwrap() + hi[i].unwrap_or(0.0);
            assert_eq!(n, used, "{b} row {i}: the groups hold every round used");
            assert_eq!(groups[i] == Some(2.0), hi[i].is_some(), "{b} row {i}");
        }
    }
    let gaps: Vec<f64> = col(f, "distance", "distance_bytes")
        .into_iter()
        .flatten()
        .collect();
    assert_eq!(gaps, vec![8.0, 16.0, 32.0, 64.0, 128.0, 256.0]);
    // Every measured cost is a positive number, and every set had at least 5 rounds.
    assert!(
        col(f, "distance", "ns_median")
            .iter()
            .all(|v| v.is_some_and(|v| v > 0.0))
    );
    assert!(
        col(f, "baseline", "rounds")
            .iter()
            .all(|v| v.is_some_and(|v| v >= 5.0))
    );
    // Same line or not follows the machine's reported line size.
    let line = f.meta("fs_line_bytes").expect("line size recorded");
    let same = texts(f, "distance", "same_line");
    match line.parse::<f64>() {
        Ok(l) => {
            for (g, s) in gaps.iter().zip(&same) {
                assert_eq!(s, if *g < l { "yes" } else { "no" }, "gap {g}");
            }
        }
        Err(_) => assert!(same.iter().all(|s| s == "unknown")),
    }
}

#[test]
fn every_thread_records_where_it_ran() {
    let (text, f) = two_core_run();
    let requested = col(f, "placement", "requested_core");
    let start = col(f, "placement", "start_cpu");
    let end = col(f, "placement", "end_cpu");
    let verified = texts(f, "placement", "verified");
    let configs = texts(f, "placement", "config");
    let sets = texts(f, "placement", "set");
    assert!(!requested.is_empty());
    // Pinned run: every thread asked for a core, and what it read back is recorded beside it.
    assert!(requested.iter().all(Option::is_some));
    for i in 0..requested.len() {
        assert!(start[i].is_some(), "row {i}: sched_getcpu not recorded");
        let ok = verified[i] == "yes";
        assert_eq!(
            ok,
            start[i] == requested[i] && end[i] == requested[i],
            "row {i}: the verdict must follow the read-back"
        );
    }
    // Each thread's own CPU time over its wall time is recorded, and every row counts its
    // disturbed rounds (from each thread's own evidence).
    assert!(
        col(f, "placement", "cpu_share")
            .iter()
            .all(|c| c.is_some_and(|c| c > 0.0))
    );
    assert!(
        col(f, "distance", "disturbed_rounds")
            .iter()
            .all(Option::is_some)
    );
    // Two-thread rows pin their threads to two different cores.
    let two: Vec<usize> = (0..configs.len())
        .filter(|&i| sets[i] == "distance" && configs[i] == "slots_2t_8b")
        .collect();
    assert!(two.len() >= 10, "2 threads x at least 5 rounds");
    let round = col(f, "placement", "round");
    let first_round: Vec<Option<f64>> = two
        .iter()
        .filter(|&&i| round[i] == Some(0.0))
        .map(|&i| requested[i])
        .collect();
    assert_eq!(first_round.len(), 2);
    assert_ne!(first_round[0], first_round[1]);
    // The human table shows it too.
    assert!(text.contains("verified") || text.contains("NOT verified"));
    assert!(text.contains("sched_getcpu"));
}

#[test]
fn rows_needing_more_cores_are_skipped_with_the_reason() {
    let (text, f) = two_core_run();
    let threads = col(f, "threads", "threads");
    let notes = texts(f, "threads", "note");
    let ns = col(f, "threads", "ns_median");
    for i in 0..threads.len() {
        let n = threads[i].unwrap();
        if n > 2.0 {
            assert!(notes[i].starts_with("skipped"), "{n} threads: {}", notes[i]);
            assert!(notes[i].contains("needs"), "{}", notes[i]);
            assert!(ns[i].is_none(), "a skipped row has no number");
        } else {
            assert_eq!(notes[i], "measured");
            assert!(ns[i].is_some());
        }
    }
    assert!(threads.contains(&Some(8.0)));
    let i = shared_row(f, "atomic", 4.0);
    assert!(texts(f, "shared", "note")[i].starts_with("skipped"));
    assert!(text.contains("skipped: needs 4 cores, this run may use 2"));
}

#[test]
fn a_mutex_increment_costs_more_than_a_plain_one() {
    let (_, f) = two_core_run();
    let ns = col(f, "shared", "ns_median");
    let find = |m: &str| ns[shared_row(f, m, 1.0)].unwrap_or_else(|| panic!("{m}: no time"));
    let plain = find("plain");
    let mutex = find("mutex");
    assert!(
        mutex > plain,
        "lock + unlock ({mutex} ns) must cost more than a plain increment ({plain} ns)"
    );
}

#[test]
fn core_to_core_covers_the_pair_both_ways() {
    let (_, f) = two_core_run();
    let from = col(f, "c2c", "from");
    let to = col(f, "c2c", "to");
    assert_eq!(from.len(), 2, "two cores: one pair, both directions");
    assert_eq!(from[0], to[1]);
    assert_eq!(from[1], to[0]);
    let rt = col(f, "c2c", "round_trip_median_ns");
    let ow = col(f, "c2c", "one_way_median_ns");
    for i in 0..2 {
        let (r, o) = (rt[i].unwrap(), ow[i].unwrap());
        assert!(r > 0.0);
        assert!(
            (o * 2.0 - r).abs() < 1e-4 * r,
            "one-way is half a round trip"
        );
    }
    assert_eq!(f.meta_num("c2c_pairs_visited"), Some(1.0));
    assert_eq!(f.meta_num("c2c_pairs_total"), Some(1.0));
    assert_eq!(f.meta("c2c_method"), Some("compare_and_swap"));
    assert!(matches!(f.meta("c2c_placement"), Some("near" | "far")));
    // The same pair passed three ways, both directions each.
    let methods = texts(f, "c2c_methods", "method");
    for m in ["compare_and_swap", "load_store_pause", "load_store"] {
        assert_eq!(methods.iter().filter(|x| *x == m).count(), 2, "{m}");
    }
    assert!(
        col(f, "c2c_methods", "one_way_median_ns")
            .iter()
            .all(|v| v.is_some_and(|v| v > 0.0))
    );
}

#[test]
fn the_report_reads_on_a_terminal() {
    let _g = one_at_a_time();
    let text = testing::assert_report(
        BIN,
        &["--quick", "--cores", "2"],
        &[
            "== 0. the cores, the cache line, and where the threads run ==",
            "== 1. the baseline",
            "== 2. two threads",
            "== 3. more threads",
            "== 4. when several threads really do change one value ==",
            "== 5. core-to-core latency",
            "How to read this run:",
        ],
    );
    if !testing::says_emulated(&text) {
        assert_eq!(text.matches("How to read this run:").count(), 5, "{text}");
    }
    assert!(text.contains("compare-and-swap"));
}

#[test]
fn one_core_says_so_and_exits_zero() {
    let (text, f) = run(&["--quick", "--cores", "1"]);
    assert!(text.contains("only one core"), "{text}");
    assert_eq!(f.meta("fs_skipped"), Some("one core"));
    assert!(f.block("distance").is_none(), "nothing is measured");
}

#[test]
fn unpinned_run_records_where_threads_landed() {
    let (text, f) = run(&["--quick", "--no-pin", "--cores", "2"]);
    assert_eq!(f.meta("fs_pinning"), Some("unpinned"));
    assert!(
        col(&f, "placement", "requested_core")
            .iter()
            .all(Option::is_none)
    );
    assert!(
        col(&f, "placement", "start_cpu")
            .iter()
            .all(Option::is_some)
    );
    assert!(
        texts(&f, "placement", "verified")
            .iter()
            .all(|v| v == "unpinned")
    );
    assert!(text.contains("landed"));
    assert_eq!(f.meta("c2c_skipped"), Some("unpinned run"));
}

#[test]
fn bad_input_is_one_line_and_exit_two() {
    for args in [&["--cores", "0"][..], &["--cores", "two"], &["--pin-me"]] {
        let _g = one_at_a_time();
        testing::assert_bad_input(BIN, "false_sharing", args);
    }
}

/// Whether an AT&T-syntax instruction's destination (its last operand) is in memory.
#[cfg(target_arch = "x86_64")]
fn writes_memory(i: &asm::Insn) -> bool {
    let args = i.operands.split('#').next().unwrap_or("").trim();
    args.rsplit(',').next().unwrap_or("").contains("(%")
}

#[cfg(target_arch = "x86_64")]
#[test]
fn the_timed_loops_touch_memory_every_time() {
    // The volatile increment: a loop whose body writes the slot in memory (an `incq (%rdi)`
    // or a store `mov %reg,(%rdi)`), not one addition of the count.
    let bump = testing::function(BIN, "false_sharing_bump");
    let loops = bump.loops();
    assert!(!loops.is_empty(), "no loop: {:#?}", bump.insns);
    assert!(
        loops.iter().any(|l| l.insns.iter().any(writes_memory)),
        "no store to the slot inside the loop: {loops:#?}"
    );
    // The atomic increment: a locked read-modify-write inside a loop. The parsed instructions
    // drop prefixes, so the `lock` is read from the raw listing, at an address in the loop.
    let atomic = testing::function(BIN, "false_sharing_atomic_bump");
    let loops = atomic.loops();
    assert!(!loops.is_empty(), "no loop: {:#?}", atomic.insns);
    let listing = asm::listing(Path::new(BIN), "false_sharing_atomic_bump").expect("listing");
    let locked: Vec<u64> = listing
        .lines()
        .filter(|l| l.split_whitespace().any(|w| w == "lock"))
        .filter_map(asm::parse_objdump_line)
        .map(|i| i.addr)
        .collect();
    assert!(
        loops
            .iter()
            .any(|l| l.insns.iter().any(|i| locked.contains(&i.addr))),
        "no lock-prefixed instruction inside the loop:\n{listing}"
    );
}
