//! The key columns of each experiment's blocks: the columns that name a row of a block
//! (`compare.csv`'s `row`). Each experiment's descriptor in [`super::ALL`] names its list; a
//! block not listed is keyed by its leading text columns, as few as make the rows unique, or
//! by the row's number.

/// An experiment's blocks with the columns that key their rows.
pub type RowKeys = &'static [(&'static str, &'static [&'static str])];

/// clock_probe's keyed blocks.
pub const CLOCK_PROBE: RowKeys = &[
    (
        ::clock_probe::schema::clock_resolution::BLOCK,
        &[::clock_probe::schema::clock_resolution::CLOCK],
    ),
    (
        ::clock_probe::schema::clock_cost::BLOCK,
        &[::clock_probe::schema::clock_cost::METHOD],
    ),
    (
        ::clock_probe::schema::trap_one::BLOCK,
        &[::clock_probe::schema::trap_one::VARIANT],
    ),
    (
        ::clock_probe::schema::trap_two::BLOCK,
        &[::clock_probe::schema::trap_two::FILL],
    ),
    (
        ::clock_probe::schema::trap_three_samples::BLOCK,
        &[::clock_probe::schema::trap_three_samples::ROUND],
    ),
    (
        ::clock_probe::schema::trap_three_summary::BLOCK,
        &[::clock_probe::schema::trap_three_summary::STAT],
    ),
];

/// cache_ladder's keyed blocks.
pub const CACHE_LADDER: RowKeys = &[
    (
        ::cache_ladder::schema::latency::BLOCK,
        &[::cache_ladder::schema::latency::KIB],
    ),
    (
        ::cache_ladder::schema::knees::BLOCK,
        &[
            ::cache_ladder::schema::knees::SERIES,
            ::cache_ladder::schema::knees::KIND,
            ::cache_ladder::schema::knees::FROM_KIB,
        ],
    ),
];

/// stride's keyed blocks.
pub const STRIDE: RowKeys = &[
    (
        ::stride::schema::stride::BLOCK,
        &[::stride::schema::stride::STRIDE_BYTES],
    ),
    (
        ::stride::schema::stride_passes::BLOCK,
        &[
            ::stride::schema::stride_passes::STRIDE_BYTES,
            ::stride::schema::stride_passes::PASS,
        ],
    ),
    (
        ::stride::schema::layout::BLOCK,
        &[::stride::schema::layout::LAYOUT],
    ),
];

/// tlb_walk's keyed blocks.
pub const TLB_WALK: RowKeys = &[
    (
        ::tlb_walk::schema::pages::BLOCK,
        &[::tlb_walk::schema::pages::PAGES],
    ),
    (
        ::tlb_walk::schema::huge_pages::BLOCK,
        &[
            ::tlb_walk::schema::huge_pages::LAYOUT,
            ::tlb_walk::schema::huge_pages::ADVICE,
        ],
    ),
    (
        ::tlb_walk::schema::huge_verdict::BLOCK,
        &[::tlb_walk::schema::huge_verdict::LAYOUT],
    ),
    (
        ::tlb_walk::schema::first_touch::BLOCK,
        &[::tlb_walk::schema::first_touch::TOUCH],
    ),
];

/// branch's keyed blocks.
pub const BRANCH: RowKeys = &[
    (
        ::branch::schema::shape::BLOCK,
        &[::branch::schema::shape::VARIANT],
    ),
    (
        ::branch::schema::variants::BLOCK,
        &[::branch::schema::variants::VARIANT],
    ),
    (
        ::branch::schema::patterns::BLOCK,
        &[::branch::schema::patterns::PATTERN],
    ),
];

/// fp_cost's keyed blocks.
pub const FP_COST: RowKeys = &[
    (
        ::fp_cost::schema::shape::BLOCK,
        &[::fp_cost::schema::shape::KERNEL],
    ),
    (
        ::fp_cost::schema::denormal::BLOCK,
        &[
            ::fp_cost::schema::denormal::VALUES,
            ::fp_cost::schema::denormal::FTZ_DAZ,
        ],
    ),
    (
        ::fp_cost::schema::width::BLOCK,
        &[::fp_cost::schema::width::VARIANT],
    ),
    (::fp_cost::schema::ops::BLOCK, &[::fp_cost::schema::ops::OP]),
];

/// false_sharing's keyed blocks.
pub const FALSE_SHARING: RowKeys = &[
    (
        ::false_sharing::schema::distance::BLOCK,
        &[::false_sharing::schema::distance::DISTANCE_BYTES],
    ),
    (
        ::false_sharing::schema::threads::BLOCK,
        &[
            ::false_sharing::schema::threads::THREADS,
            ::false_sharing::schema::threads::LAYOUT,
        ],
    ),
    (
        ::false_sharing::schema::shared::BLOCK,
        &[
            ::false_sharing::schema::shared::METHOD,
            ::false_sharing::schema::shared::THREADS,
        ],
    ),
    (
        ::false_sharing::schema::baseline::BLOCK,
        &[::false_sharing::schema::baseline::SET],
    ),
    (
        ::false_sharing::schema::rounds::BLOCK,
        &[
            ::false_sharing::schema::rounds::SET,
            ::false_sharing::schema::rounds::CONFIG,
            ::false_sharing::schema::rounds::ROUND,
        ],
    ),
    (
        ::false_sharing::schema::placement::BLOCK,
        &[
            ::false_sharing::schema::placement::SET,
            ::false_sharing::schema::placement::CONFIG,
            ::false_sharing::schema::placement::ROUND,
            ::false_sharing::schema::placement::THREAD,
        ],
    ),
    (
        ::false_sharing::schema::c2c::BLOCK,
        &[
            ::false_sharing::schema::c2c::FROM,
            ::false_sharing::schema::c2c::TO,
        ],
    ),
];

/// sink_bench's keyed blocks.
pub const SINK_BENCH: RowKeys = &[
    (
        ::sink_bench::schema::part1_passes::BLOCK,
        &[::sink_bench::schema::part1_passes::ROUND],
    ),
    (
        ::sink_bench::schema::warm_in_process::BLOCK,
        &[::sink_bench::schema::warm_in_process::PASS],
    ),
    (
        ::sink_bench::schema::fresh_processes::BLOCK,
        &[::sink_bench::schema::fresh_processes::PROCESS],
    ),
    (
        ::sink_bench::schema::series_summary::BLOCK,
        &[::sink_bench::schema::series_summary::SERIES],
    ),
];

/// env_scan's keyed blocks.
pub const ENV_SCAN: RowKeys = &[
    (
        ::env_scan::schema::mechanism::BLOCK,
        &[::env_scan::schema::mechanism::PAD_BYTES],
    ),
    (
        ::env_scan::schema::raw::BLOCK,
        &[::env_scan::schema::raw::SEQ],
    ),
    (
        ::env_scan::schema::deviation::BLOCK,
        &[
            ::env_scan::schema::deviation::PAD_BYTES,
            ::env_scan::schema::deviation::WORKLOAD,
        ],
    ),
    (
        ::env_scan::schema::correlation::BLOCK,
        &[
            ::env_scan::schema::correlation::WORKLOAD,
            ::env_scan::schema::correlation::PASS_A,
            ::env_scan::schema::correlation::PASS_B,
        ],
    ),
    (
        ::env_scan::schema::regions::BLOCK,
        &[
            ::env_scan::schema::regions::WORKLOAD,
            ::env_scan::schema::regions::PASS,
            ::env_scan::schema::regions::REGION_START_BYTES,
        ],
    ),
    (
        ::env_scan::schema::slow_share::BLOCK,
        &[
            ::env_scan::schema::slow_share::WORKLOAD,
            ::env_scan::schema::slow_share::PASS,
        ],
    ),
    (
        ::env_scan::schema::time_trend::BLOCK,
        &[
            ::env_scan::schema::time_trend::WORKLOAD,
            ::env_scan::schema::time_trend::PASS,
        ],
    ),
    (
        ::env_scan::schema::verdict::BLOCK,
        &[::env_scan::schema::verdict::WORKLOAD],
    ),
];

/// bandwidth's keyed blocks.
pub const BANDWIDTH: RowKeys = &[
    (
        ::bandwidth::schema::kernels::BLOCK,
        &[::bandwidth::schema::kernels::KERNEL],
    ),
    (
        ::bandwidth::schema::bandwidth::BLOCK,
        &[
            ::bandwidth::schema::bandwidth::KIB,
            ::bandwidth::schema::bandwidth::KERNEL,
        ],
    ),
    (
        ::bandwidth::schema::boundaries::BLOCK,
        &[
            ::bandwidth::schema::boundaries::KIND,
            ::bandwidth::schema::boundaries::FROM_KIB,
        ],
    ),
    (
        ::bandwidth::schema::threads::BLOCK,
        &[::bandwidth::schema::threads::THREADS],
    ),
    (
        ::bandwidth::schema::loaded_latency::BLOCK,
        &[
            ::bandwidth::schema::loaded_latency::STATE,
            ::bandwidth::schema::loaded_latency::ROUND,
        ],
    ),
    (
        ::bandwidth::schema::levels::BLOCK,
        &[::bandwidth::schema::levels::LEVEL],
    ),
];
