//! Every experiment's `#DATA` blocks, declared in its own crate (`<experiment>::schema`):
//! distinct, well-formed columns, and the shared runs of columns pinned to the text format that
//! readers of old results rely on. xtask is the one place that knows every experiment.

use ::bandwidth::schema as bandwidth;
use ::branch::schema as branch;
use ::cache_ladder::schema as cache_ladder;
use ::clock_probe::schema as clock_probe;
use ::env_scan::schema as env_scan;
use ::false_sharing::schema as false_sharing;
use ::fp_cost::schema as fp_cost;
use ::sink_bench::schema as sink_bench;
use ::stride::schema as stride;
use ::tlb_walk::schema as tlb_walk;

/// Each column constant names one declared column, and no column is declared twice.
fn check(columns: &[&str], constants: &[&str]) {
    let bare: Vec<&str> = columns
        .iter()
        .map(|c| c.strip_suffix(":text").unwrap_or(c))
        .collect();
    for c in constants {
        assert!(bare.contains(c), "{c} is not among {bare:?}");
    }
    let mut sorted = bare.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(
        sorted.len(),
        bare.len(),
        "a column declared twice in {bare:?}"
    );
}

/// Lists blocks by experiment: `experiment: block, block; ...` gives
/// `(experiment, block, columns, key columns)` for each.
macro_rules! blocks {
    ($($exp:ident: $($block:ident),+;)*) => {
        &[$($((
            $exp::EXPERIMENT,
            $exp::$block::BLOCK,
            $exp::$block::COLUMNS,
            $exp::$block::KEY_COLUMNS,
        ),)+)*]
    };
}

/// Every block declared with `block!`: experiment, block, columns, key columns.
const ALL: &[(&str, &str, &[&str], &[&str])] = blocks! {
    cache_ladder: latency, knees, mlp;
    stride: layout, stride, stride_passes, prefetch;
    tlb_walk: first_touch, pages, huge_pages, huge_verdict;
    clock_probe: clock_resolution, clock_cost, trap_one, times_ten, trap_two,
        trap_three_samples, trap_three_summary;
    branch: shape, variants, mispredict, patterns;
    fp_cost: shape, denormal, width, per_element, placement, ops;
    bandwidth: kernels, bandwidth, boundaries, threads, loaded_latency, levels;
    sink_bench: part1_passes, warm_in_process, fresh_processes, fresh_first_discarded,
        cold_in_process, series_summary, summary_figures;
    false_sharing: rounds, placement, c2c, c2c_methods, baseline, distance, threads, shared;
    env_scan: verdict, mechanism, raw, correlation, regions, slow_share, time_trend,
        region_repeats, repeat_verdicts, region_moves;
};

#[test]
fn every_block_has_distinct_well_formed_columns() {
    for (exp, block, columns, _) in ALL {
        assert!(!columns.is_empty(), "{exp}.{block} has no column");
        for c in *columns {
            let bare = c.strip_suffix(":text").unwrap_or(c);
            assert!(
                !bare.is_empty()
                    && bare
                        .chars()
                        .all(|ch| ch.is_ascii_lowercase() || ch.is_ascii_digit() || ch == '_'),
                "{exp}.{block}: odd column {c:?}"
            );
        }
        check(columns, &[]);
    }
}

#[test]
fn block_names_are_distinct_within_an_experiment() {
    for (i, (exp, block, ..)) in ALL.iter().enumerate() {
        for (other, name, ..) in &ALL[i + 1..] {
            assert!(
                !(exp == other && block == name),
                "{exp}.{block} declared twice"
            );
        }
    }
}

#[test]
fn cache_ladder_latency_is_declared_as_written() {
    use cache_ladder::latency::*;
    check(
        COLUMNS,
        &[KIB, WHERE, HUGE_STABLE, ROUNDS, DISTURBED_ROUNDS],
    );
    assert_eq!(COLUMNS[1], "where:text");
}

/// The blocks that share runs of columns, pinned to the columns they are written with: the
/// exact text format readers of old results rely on, whatever the declarations look like.
#[test]
fn shared_column_runs_stay_as_written() {
    let pinned: &[(&[&str], &str)] = &[
        (
            false_sharing::baseline::COLUMNS,
            "set:text rounds cores:text ns_median ns_min ns_max disturbed_rounds",
        ),
        (
            false_sharing::distance::COLUMNS,
            "distance_bytes same_line:text ns_median ns_min ns_max split_ns vs_split_median \
             vs_split_min vs_split_max suspicious:text disturbed_rounds pinned:text \
             cores:text groups low_rounds low_median_ns high_rounds high_median_ns rounds",
        ),
        (
            false_sharing::threads::COLUMNS,
            "threads layout:text distance_bytes lines ns_median ns_min ns_max \
             vs_split_median vs_split_min vs_split_max suspicious:text disturbed_rounds \
             pinned:text note:text groups low_rounds low_median_ns high_rounds \
             high_median_ns rounds",
        ),
        (
            false_sharing::shared::COLUMNS,
            "method:text threads iters_per_thread ns_median ns_min ns_max vs_baseline \
             vs_one_thread suspicious:text disturbed_rounds pinned:text note:text rounds",
        ),
        (
            clock_probe::clock_cost::COLUMNS,
            "method:text median_ns min_ns max_ns rounds disturbed_rounds",
        ),
        (
            clock_probe::trap_one::COLUMNS,
            "variant:text median_ns min_ns max_ns per_element_ns rounds disturbed_rounds",
        ),
        (
            clock_probe::times_ten::COLUMNS,
            "variant:text elements median_ns min_ns max_ns case:text rounds \
             disturbed_rounds",
        ),
        (
            clock_probe::trap_two::COLUMNS,
            "fill:text median_ns min_ns max_ns rounds disturbed_rounds",
        ),
        (
            branch::patterns::COLUMNS,
            "pattern:text period taken_share median_ns min_ns max_ns vs_always \
             implied_miss_share rounds disturbed_rounds",
        ),
        (
            fp_cost::denormal::COLUMNS,
            "values:text ftz_daz:text median_ns min_ns max_ns rounds disturbed_rounds",
        ),
        (
            fp_cost::width::COLUMNS,
            "variant:text type:text order:text shape:text median_ns min_ns max_ns rounds \
             disturbed_rounds",
        ),
        (
            fp_cost::per_element::COLUMNS,
            "op:text expr:text array:text array_bytes median_ns min_ns max_ns vs_multiply \
             case:text rounds disturbed_rounds provisional:text",
        ),
        (
            stride::layout::COLUMNS,
            "layout:text median_ns min_ns max_ns factor fetched_bytes_per_element \
             used_bytes_per_line rounds disturbed_rounds",
        ),
        (
            env_scan::raw::COLUMNS,
            "seq pass order:text pad_bytes workload:text median_ns min_ns max_ns stack_addr \
             stack_mod_4k stack_minus_global_mod_4k aslr_off:text pinned:text cpu repeat \
             rounds disturbed_rounds",
        ),
    ];
    for (columns, written) in pinned {
        assert_eq!(columns.join(" "), *written);
    }
}

/// Every result an experiment names as a key figure's source is one of its own blocks, a part
/// of one (`block/part`, a row of the `disturbance` block), a result a saved run recorded (the
/// core clock's, which has no block), the whole run or untimed; and every key figure has one.
#[test]
fn key_sources_name_the_experiments_own_blocks() {
    let sources: &[(&str, measure::key::Sources, usize)] = &[
        (
            clock_probe::EXPERIMENT,
            clock_probe::KEY_SOURCES,
            clock_probe::key::ALL.len(),
        ),
        (
            cache_ladder::EXPERIMENT,
            cache_ladder::KEY_SOURCES,
            cache_ladder::key::ALL.len(),
        ),
        (
            stride::EXPERIMENT,
            stride::KEY_SOURCES,
            stride::key::ALL.len(),
        ),
        (
            tlb_walk::EXPERIMENT,
            tlb_walk::KEY_SOURCES,
            tlb_walk::key::ALL.len(),
        ),
        (
            branch::EXPERIMENT,
            branch::KEY_SOURCES,
            branch::key::ALL.len(),
        ),
        (
            fp_cost::EXPERIMENT,
            fp_cost::KEY_SOURCES,
            fp_cost::key::ALL.len(),
        ),
        (
            bandwidth::EXPERIMENT,
            bandwidth::KEY_SOURCES,
            bandwidth::key::ALL.len(),
        ),
        (
            sink_bench::EXPERIMENT,
            sink_bench::KEY_SOURCES,
            sink_bench::key::ALL.len(),
        ),
        (
            false_sharing::EXPERIMENT,
            false_sharing::KEY_SOURCES,
            false_sharing::key::ALL.len(),
        ),
        (
            env_scan::EXPERIMENT,
            env_scan::KEY_SOURCES,
            env_scan::key::ALL.len(),
        ),
    ];
    let recorded = [(clock_probe::EXPERIMENT, clock_probe::CORE_CLOCK_RESULT)];
    let whole = [measure::key::WHOLE_RUN, measure::key::UNTIMED];
    let mut named = 0;
    for (exp, list, figures) in sources {
        assert_eq!(list.len(), *figures, "{exp}: one source per key figure");
        for (key, block) in *list {
            let first = block.split('/').next().unwrap_or_default();
            assert!(
                whole.contains(block)
                    || recorded.contains(&(exp, block))
                    || ALL.iter().any(|(e, b, ..)| e == exp && *b == first),
                "{exp}: {key} names {block}, not one of its blocks"
            );
            named += usize::from(!whole.contains(block));
        }
    }
    assert!(named >= 90, "only {named} key figures have a named block");
}

/// Every experiment's `ROW_KEYS`, the blocks it keys by named columns.
const ROW_KEYS: &[(&str, measure::schema::RowKeys)] = &[
    (clock_probe::EXPERIMENT, clock_probe::ROW_KEYS),
    (cache_ladder::EXPERIMENT, cache_ladder::ROW_KEYS),
    (stride::EXPERIMENT, stride::ROW_KEYS),
    (tlb_walk::EXPERIMENT, tlb_walk::ROW_KEYS),
    (branch::EXPERIMENT, branch::ROW_KEYS),
    (fp_cost::EXPERIMENT, fp_cost::ROW_KEYS),
    (bandwidth::EXPERIMENT, bandwidth::ROW_KEYS),
    (sink_bench::EXPERIMENT, sink_bench::ROW_KEYS),
    (false_sharing::EXPERIMENT, false_sharing::ROW_KEYS),
    (env_scan::EXPERIMENT, env_scan::ROW_KEYS),
];

/// The columns of an experiment's block: its declared columns, or for env_scan's `deviation`
/// (whose pass columns the run decides) its fixed ones.
fn columns_of(exp: &str, block: &str) -> Option<Vec<&'static str>> {
    if exp == env_scan::EXPERIMENT && block == env_scan::deviation::BLOCK {
        use env_scan::deviation::*;
        return Some(vec![PAD_BYTES, WORKLOAD, PASSES_AGREE_10PCT]);
    }
    let (.., columns, _) = ALL.iter().find(|(e, b, ..)| *e == exp && *b == block)?;
    Some(columns.to_vec())
}

/// Each block an experiment keys is one of its own, listed once, with at least one key column,
/// and every key column is a column of that block.
#[test]
fn row_keys_name_columns_of_their_blocks() {
    let mut keyed = 0;
    for (exp, list) in ROW_KEYS {
        for (i, (block, keys)) in list.iter().enumerate() {
            let columns = columns_of(exp, block)
                .unwrap_or_else(|| panic!("{exp} keys {block}, not one of its blocks"));
            assert!(
                !keys.is_empty(),
                "{exp}.{block} is listed with no key column"
            );
            assert!(
                list[i + 1..].iter().all(|(b, _)| b != block),
                "{exp}.{block} listed twice"
            );
            check(&columns, keys);
            keyed += 1;
        }
    }
    assert!(keyed >= 40, "only {keyed} blocks are keyed");
}

/// A block that names key columns is in its experiment's `ROW_KEYS` with them, so no
/// declaration is left out of the list compare reads.
#[test]
fn every_declared_key_is_listed() {
    for (exp, block, _, keys) in ALL.iter().filter(|(.., keys)| !keys.is_empty()) {
        let (_, list) = ROW_KEYS.iter().find(|(e, _)| e == exp).unwrap();
        let listed = list.iter().find(|(b, _)| b == block).map(|(_, k)| *k);
        assert_eq!(listed, Some(*keys), "{exp}.{block}: keys not in ROW_KEYS");
    }
}
