//! What the run says, as pure functions of each section's result: the walks of section 3
//! ([`walks_verdict`]), the prefetchers seen from the outside ([`prefetch_verdict`]) and the
//! layouts of section 4 ([`layout_verdict`]). Each returns its sentences already marked
//! through [`show::marked`]: "provisional: ..." first when rounds were disturbed, a
//! "contention: ..." sentence when other cores were busy (every reading here is drawn from
//! memory, a shared level). Nothing here measures, prints or records; the report renders.

use crate::layout::{self, PARTICLE_BYTES, USED_BYTES};
use crate::prefetch::{Prefetch, WIDE};
use crate::report::{Row, Walks};
use crate::timing::LayoutTimes;
use measure::facts::MachineFacts;
use measure::fmt::{bytes, grouped};
use measure::scan::DEFAULT_TOLERANCE;
use measure::show;
use measure::stats::Summary;

/// A section's reading: its sentences (marked when its rounds were disturbed) and the
/// verdicts recorded as `#META`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Reading {
    pub sentences: Vec<String>,
    pub meta: Vec<(&'static str, String)>,
}

/// The sentences on the walks, each computed from this run's numbers, marked by
/// [`show::marked`] (the costs are read from memory, a shared level).
pub fn walks_verdict(w: &Walks, facts: &MachineFacts) -> Reading {
    let mut r = Reading::default();
    let (step, step_meta) = largest_step(w);
    r.sentences.push(step);
    r.meta.push(("verdict_largest_step", step_meta));
    r.sentences.extend(narrow(w, facts));
    let wrapped = w.rows.iter().find(|r| r.plan.wrapped());
    r.meta.push((
        "wrap_from_stride",
        wrapped.map_or("none".into(), |r| r.stride.to_string()),
    ));
    r.sentences.push(wrap(w, facts));
    if let Some((sentence, verdict)) = dip(&w.rows) {
        r.sentences.push(sentence);
        r.meta.push(("verdict_dip", verdict.into()));
    }
    r.sentences = show::marked(&w.tally, true, r.sentences);
    r
}

/// The growth to the line size and the largest step between neighbours, and its `#META`.
fn largest_step(w: &Walks) -> (String, String) {
    let (rows, line) = (&w.rows, w.line);
    let first = &rows[0];
    let (k, step) = rows
        .windows(2)
        .enumerate()
        .map(|(k, w)| (k, w[1].wrap.median / w[0].wrap.median))
        .fold((0, 0.0), |best, x| if x.1 > best.1 { x } else { best });
    let (from, to) = (rows[k].stride, rows[k + 1].stride);
    // A step to or from a point whose passes disagree may be time, not the stride: say so.
    let step = if rows[k].agree && rows[k + 1].agree {
        format!("{step:.2}x")
    } else {
        format!("{step:.2}x, a point marked !")
    };
    let largest = |the: &str| match line {
        Some(l) if to == l => format!(
            "{the} largest step between neighbours is from {from} to {to} bytes ({step}): where \
             every access starts needing a line of its own, the line shows in the time."
        ),
        Some(l) => format!(
            "{the} largest step between neighbours is from {from} to {to} bytes ({step}), not at \
             the line size ({l} bytes): ask which of the machine's numbers {to} equals."
        ),
        None => format!(
            "{the} largest step between neighbours is from {from} to {to} bytes ({step}); the \
             line size is unknown."
        ),
    };
    let verdict = format!(
        "from {from} to {to} bytes ({step}), {}",
        match line {
            Some(l) if to == l => "at the line size".to_string(),
            Some(l) => format!("not at the line size ({l} bytes)"),
            None => "the line size unknown".to_string(),
        }
    );
    let last = &rows[rows.len() - 1];
    let sentence = match line.and_then(|l| rows.iter().find(|r| r.stride == l)) {
        Some(at_line) => format!(
            "from stride 1 to the line size ({} bytes) the cost per access grew {:.1}x; from there \
             to {} bytes it changed another {:.2}x. {}",
            at_line.stride,
            at_line.wrap.median / first.wrap.median,
            last.stride,
            last.wrap.median / at_line.wrap.median,
            largest("The")
        ),
        None => largest("the"),
    };
    (sentence, verdict)
}

/// The narrow strides: a fixed count of short steps never leaves the start of the buffer.
fn narrow(w: &Walks, facts: &MachineFacts) -> Option<String> {
    let first = &w.rows[0];
    let set = first.plan.working_set(w.line)?;
    let fits = facts.where_fits(set);
    if fits == "memory" || fits == "?" {
        return None;
    }
    let cached = w
        .rows
        .iter()
        .take_while(|r| {
            r.plan
                .working_set(w.line)
                .is_some_and(|b| facts.where_fits(b) != "memory")
        })
        .last()
        .map_or(first.stride, |r| r.stride);
    Some(format!(
        "the narrow strides stay in the cache: at stride 1 the {} accesses read only the first \
         {} of the buffer (in {fits} by the reported sizes), and up to stride {cached} the \
         working set fits in a reported cache: those points time cache hits and prefetching, \
         not memory.",
        grouped(w.accesses as u64),
        bytes(set)
    ))
}

/// The wrap of the appendix's walk, and what the fresh-lines walk costs instead.
fn wrap(w: &Walks, facts: &MachineFacts) -> String {
    let last = &w.rows[w.rows.len() - 1];
    let Some(w0) = w.rows.iter().find(|r| r.plan.wrapped()) else {
        return format!(
            "no stride wrapped around: even at {} bytes, {} accesses cover {:.0}% of the {} \
             buffer, so every access met a position not read before.",
            last.stride,
            grouped(w.accesses as u64),
            last.plan.laps * 100.0,
            bytes(w.len as u64)
        );
    };
    let set = last.plan.working_set(w.line).map_or(String::new(), |b| {
        format!(" ({}, in {})", bytes(b), facts.where_fits(b))
    });
    let r = last.fresh.median / last.wrap.median;
    // A difference is claimed only where every round of one walk beat every round of the other.
    let (cheaper, dearer) = (
        last.wrap.max < last.fresh.min,
        last.fresh.max < last.wrap.min,
    );
    let verdict = if r > 1.0 + DEFAULT_TOLERANCE && cheaper {
        format!(
            "{:.2} ns instead of {:.2} ns ({r:.1}x): the wrap made the widest strides look \
             cheaper.",
            last.fresh.median, last.wrap.median
        )
    } else if r < 1.0 - DEFAULT_TOLERANCE && dearer {
        format!(
            "{:.2} ns against {:.2} ns ({r:.2}x): re-reading did not help here.",
            last.fresh.median, last.wrap.median
        )
    } else if !(1.0 - DEFAULT_TOLERANCE..=1.0 + DEFAULT_TOLERANCE).contains(&r) {
        format!(
            "{:.2} ns against {:.2} ns ({r:.2}x), but the rounds of the two walks overlap: no \
             clear difference in this run.",
            last.fresh.median, last.wrap.median
        )
    } else {
        format!("about the same ({r:.2}x): here the re-read working set did not matter.")
    };
    format!(
        "the appendix's walk WRAPPED from stride {} up: at {} bytes it made {:.0} laps of the {} \
         buffer over only {} distinct lines{set}, a small, re-read working set. The fresh-lines \
         walk, which visits {} lines there, costs {verdict}",
        w0.stride,
        last.stride,
        last.plan.laps,
        bytes(w.len as u64),
        last.plan
            .lines
            .map_or("(line size unknown)".into(), grouped),
        last.fresh_plan.lines.map_or("NA".into(), grouped),
    )
}

/// The appendix's question: the dip at the widest stride. The sentence and its verdict.
fn dip(rows: &[Row]) -> Option<(String, &'static str)> {
    let [.., prev, last] = rows else {
        return None;
    };
    // A dip: the median down by more than the tolerance, and every round below every round
    // of the stride before.
    let dip =
        |a: &Summary, b: &Summary| b.median < a.median * (1.0 - DEFAULT_TOLERANCE) && b.max < a.min;
    let (wrap_dip, fresh_dip) = (dip(&prev.wrap, &last.wrap), dip(&prev.fresh, &last.fresh));
    let (from, to) = (prev.stride, last.stride);
    let wrap = format!("{:.2} -> {:.2}", prev.wrap.median, last.wrap.median);
    let fresh = format!("{:.2} -> {:.2}", prev.fresh.median, last.fresh.median);
    Some(match (wrap_dip, fresh_dip) {
        (true, false) => (
            format!(
                "the appendix's walk dipped from {from} to {to} bytes ({wrap} ns) and the \
                 fresh-lines walk did not ({fresh} ns): the dip goes with the smaller working set \
                 of the wrapped walk."
            ),
            "only the appendix's walk dipped",
        ),
        (true, true) => (
            format!(
                "both walks dipped from {from} to {to} bytes ({wrap} and {fresh} ns): not only the \
                 wrap."
            ),
            "both walks dipped",
        ),
        (false, true) => (
            format!("only the fresh-lines walk dipped from {from} to {to} bytes ({fresh} ns)."),
            "only the fresh-lines walk dipped",
        ),
        (false, false) => (
            format!(
                "no dip at {to} bytes here: {:.2}x the cost at {from} bytes{} (the appendix saw \
                 0.86x).",
                last.wrap.median / prev.wrap.median,
                if last.wrap.median < prev.wrap.median * (1.0 - DEFAULT_TOLERANCE) {
                    ", but the rounds of the two strides overlap"
                } else {
                    ""
                }
            ),
            "no dip",
        ),
    })
}

/// The reading: what the wider spacing costs, marked by [`show::marked`] (memory is shared).
pub fn prefetch_verdict(p: &Prefetch) -> Vec<String> {
    let r = p.ratio();
    let (a, b) = (&p.at_line, &p.wide);
    let costs = format!(
        "{:.2} ns per access at {} bytes, {:.2} ns at {WIDE} bytes ({r:.2}x)",
        a.median, p.line, b.median
    );
    let verdict = if r > 1.0 + DEFAULT_TOLERANCE && b.min > a.max {
        format!(
            "the prefetchers hide less when each access skips {} lines, as multichase assumes \
             when it walks {WIDE} bytes apart.",
            WIDE / p.line - 1
        )
    } else if r < 1.0 - DEFAULT_TOLERANCE && b.max < a.min {
        "the wider spacing was cheaper: not the prefetchers' lesson; ask what else differs \
         (pages, the walk's order)."
            .to_string()
    } else if (1.0 - DEFAULT_TOLERANCE..=1.0 + DEFAULT_TOLERANCE).contains(&r) {
        format!(
            "about the same: here the prefetchers follow a {WIDE}-byte stride as well as a \
             {}-byte one, or neither walk is held by memory's latency.",
            p.line
        )
    } else {
        "but the rounds of the two strides overlap: no clear difference in this run.".to_string()
    };
    let sentences = vec![format!(
        "the fresh-lines walk reads one new line per access at both strides, with the same loop \
         ({} and {} accesses per {} page): {costs}; {verdict}",
        p.page / p.line,
        p.page / WIDE,
        measure::fmt::bytes(p.page),
    )];
    show::marked(&p.tally, true, sentences)
}

/// The sentences: AoS against SoA, SoA against its compute floor, and the reverse case,
/// marked by [`show::marked`] (the big arrays come from memory, a shared level).
pub fn layout_verdict(t: &LayoutTimes, line: Option<u64>) -> Vec<String> {
    let (aos, soa, floor) = (
        LayoutTimes::summary(&t.aos),
        LayoutTimes::summary(&t.soa),
        LayoutTimes::summary(&t.floor),
    );
    let mut out = Vec::new();
    let r = aos.median / soa.median;
    let aos_fetched = line.map(layout::fetched_per_element);
    // How many times the bytes of the x array the struct sum brings in.
    let traffic = aos_fetched.map(|b| b as f64 / USED_BYTES as f64);
    let brings = match aos_fetched {
        Some(b) => format!("It brings {b} bytes through the cache for every {USED_BYTES} it uses."),
        None => format!(
            "With lines of at least {PARTICLE_BYTES} bytes it brings {PARTICLE_BYTES} bytes for \
             every {USED_BYTES} it uses."
        ),
    };
    if r > 1.0 + DEFAULT_TOLERANCE {
        out.push(format!(
            "the same values were added in the same order; only the layout changed, and the \
             array of structs cost {r:.1}x the separate array. {brings}"
        ));
    } else if r < 1.0 - DEFAULT_TOLERANCE {
        out.push(format!(
            "the array of structs was FASTER here ({r:.2}x): not what the bytes predict; look at \
             the rounds."
        ));
    } else {
        out.push(format!(
            "the two layouts cost the same within {:.0}% ({r:.2}x) on this run. {brings}",
            DEFAULT_TOLERANCE * 100.0
        ));
    }
    let fr = soa.median / floor.median;
    if fr < 1.0 + DEFAULT_TOLERANCE {
        out.push(format!(
            "the separate array from memory costs {fr:.2}x the same loop in L1: its speed is set \
             by the chain of dependent additions, not by memory.{}",
            traffic.map_or(String::new(), |t| format!(
                " So the time ratio ({r:.1}x) understates the ratio of bytes moved ({t:.0}x)."
            ))
        ));
    } else {
        out.push(format!(
            "the separate array from memory costs {fr:.2}x the same loop in L1: memory still \
             shows in it."
        ));
    }
    out.push(
        "the reverse holds too: code that reads several fields of each element uses the whole \
         line of a struct, and then the array of structs is the better layout."
            .into(),
    );
    show::marked(&t.tally, true, out)
}

#[cfg(test)]
mod walks_tests {
    use super::*;
    use crate::walk;
    use measure::disturb::Tally;
    use measure::facts::{CacheLevel, Fact};

    /// A machine that reports L1d 48 KiB, L2 1 MiB and L3 32 MiB, lines of 64 bytes; nothing
    /// read from this one.
    fn facts() -> MachineFacts {
        let fact = |v: u64| Fact {
            value: Some(v),
            ..Default::default()
        };
        let level = |level, size| CacheLevel {
            level,
            size: fact(size),
            line: fact(64),
            ways: Fact::default(),
        };
        MachineFacts {
            arch: "x86_64",
            cpu_model: None,
            cpu_family: None,
            kernel: None,
            logical_cores: Some(2),
            page_size: Some(4096),
            thp_mode: None,
            caches: vec![level(1, 48 << 10), level(2, 1 << 20), level(3, 32 << 20)],
            dtlb: Default::default(),
        }
    }

    fn summary(ns: f64) -> Summary {
        Summary::of(&[ns * 0.99, ns, ns * 1.01]).unwrap()
    }

    fn tally(rounds: usize, disturbed: usize, on_core: f64, elsewhere: f64) -> Tally {
        measure::testing::tally(rounds, disturbed, on_core, elsewhere)
    }

    /// Thirteen strides whose cost jumps at the line size, over a 64 MiB buffer.
    fn walks(t: Tally) -> Walks {
        let len = 64 << 20;
        let rows = (0..13)
            .map(|k| {
                let stride = 1usize << k;
                let ns = if stride < 64 { 0.5 } else { 5.0 };
                Row {
                    stride: stride as u64,
                    wrap: summary(ns),
                    fresh: summary(ns * 1.5),
                    tally: t,
                    wrap_spread: 0.01,
                    fresh_spread: 0.01,
                    agree: true,
                    plan: walk::plan(len, stride, 20_000, 0, Some(64), 4096),
                    fresh_plan: walk::plan(len, stride, 20_000, 64, Some(64), 4096),
                    passes: Vec::new(),
                    shortest_ns: 200_000.0,
                }
            })
            .collect();
        Walks {
            rows,
            line: Some(64),
            len,
            accesses: 20_000,
            tally: t,
        }
    }

    #[test]
    fn a_quiet_run_reads_the_line_with_no_mark() {
        let r = walks_verdict(&walks(tally(78, 0, 0.0, 0.0)), &facts());
        let all = r.sentences.join(" ");
        assert!(r.sentences[0].starts_with("from stride 1 to the line size (64 bytes)"));
        assert!(all.contains("from 32 to 64 bytes (10.00x)"), "{all}");
        assert!(
            !all.contains("provisional") && !all.contains("contention"),
            "{all}"
        );
        assert!(r.meta.contains(&(
            "verdict_largest_step",
            "from 32 to 64 bytes (10.00x), at the line size".into()
        )));
    }

    #[test]
    fn the_narrow_strides_are_placed_by_the_reported_caches_only() {
        let r = walks_verdict(&walks(tally(78, 0, 0.0, 0.0)), &facts());
        let narrow: Vec<&String> = r
            .sentences
            .iter()
            .filter(|s| s.starts_with("the narrow strides"))
            .collect();
        assert_eq!(narrow.len(), 1, "{:?}", r.sentences);
        assert!(
            narrow[0].contains("(in L1d by the reported sizes)"),
            "{narrow:?}"
        );
        let wrap = r
            .sentences
            .iter()
            .find(|s| s.contains("WRAPPED from stride 4096"));
        assert!(
            wrap.is_some_and(|s| s.contains("(1 MiB, in L2)")),
            "{:?}",
            r.sentences
        );
        let mut unknown = facts();
        unknown.caches.clear();
        let r = walks_verdict(&walks(tally(78, 0, 0.0, 0.0)), &unknown);
        assert!(
            !r.sentences
                .iter()
                .any(|s| s.starts_with("the narrow strides")),
            "no cache size, no claim: {:?}",
            r.sentences
        );
    }

    #[test]
    fn disturbed_walks_are_provisional_in_the_first_words() {
        let r = walks_verdict(&walks(tally(78, 40, 0.5, 0.0)), &facts());
        assert!(
            r.sentences[0].starts_with("provisional: 40 of 78 rounds were disturbed (0.50 cores"),
            "{}",
            r.sentences[0]
        );
        assert!(!r.sentences.iter().any(|s| s.starts_with("contention")));
    }

    #[test]
    fn work_on_the_other_core_is_named_contention() {
        let r = walks_verdict(&walks(tally(78, 0, 0.0, 0.9)), &facts());
        assert!(!r.sentences[0].starts_with("provisional"));
        assert!(
            r.sentences
                .last()
                .unwrap()
                .starts_with("contention: 0.90 cores of other work"),
            "{:?}",
            r.sentences
        );
    }

    /// Each stride is taken in its own window: a stride whose core share moved marks its own
    /// row, and the prefetchers' reading (64 against 256 bytes) only when it is one of them.
    #[test]
    fn the_prefetchers_take_the_mark_of_their_two_strides_only() {
        use measure::clock::share::Share;
        let quiet = tally(78, 0, 0.0, 0.0);
        let moved = |t: Tally| {
            let l = t.load.unwrap();
            t.with_load(measure::disturb::Load {
                share: Some((Share { ratio: 3.7 }, Share { ratio: 2.2 })),
                ..l
            })
        };
        let mut w = walks(quiet);
        w.rows[0].tally = moved(quiet);
        let p = Prefetch::of(&w, 4096).unwrap();
        assert!(!prefetch_verdict(&p)[0].starts_with("provisional"));
        w.rows[8].tally = moved(quiet);
        let p = Prefetch::of(&w, 4096).unwrap();
        let s = prefetch_verdict(&p);
        assert!(s[0].starts_with("provisional: 0 of 156"), "{s:?}");
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use measure::disturb::{Evidence, Load};
    use measure::rounds::Timed;

    /// Rounds of `ns`, the first `disturbed` of them twice as slow and disturbed.
    fn timed(ns: f64, rounds: usize, disturbed: usize) -> Timed {
        let mut t = Timed::default();
        for i in 0..rounds {
            let bad = i < disturbed;
            t.push(
                if bad { 2.0 * ns } else { ns },
                Evidence {
                    wall_ns: 300_000,
                    switches: u64::from(bad),
                    waited_ns: Some(if bad { 2_000_000 } else { 0 }),
                    off_cpu_ns: 0,
                },
            );
        }
        t
    }

    fn times(disturbed: usize, on_core: f64, elsewhere: f64) -> LayoutTimes {
        let (aos, soa, floor) = (
            timed(1.5, 15 + disturbed, disturbed),
            timed(0.5, 15 + disturbed, disturbed),
            timed(0.48, 15, 0),
        );
        let tally = measure::rounds::tally([&aos, &soa, &floor]).with_load(Load {
            core: Some(1),
            on_core: Some(on_core),
            steal: Some(0.0),
            elsewhere: Some(elsewhere),
            ..Default::default()
        });
        LayoutTimes {
            aos,
            soa,
            floor,
            chunk: 1 << 18,
            small_n: 2048,
            reps: 128,
            tally,
        }
    }

    #[test]
    fn a_quiet_run_gives_the_ratio_with_no_mark() {
        let s = layout_verdict(&times(0, 0.0, 0.0), Some(64));
        assert!(s[0].starts_with("the same values were added in the same order"));
        assert!(s[0].contains("cost 3.0x the separate array"), "{}", s[0]);
        assert!(s[1].contains("1.04x the same loop in L1"), "{}", s[1]);
        assert!(!s.join(" ").contains("provisional") && !s.join(" ").contains("contention"));
    }

    #[test]
    fn disturbed_rounds_mark_the_reading_and_the_clean_rounds_give_the_ratio() {
        let s = layout_verdict(&times(10, 0.5, 0.0), Some(64));
        assert!(
            s[0].starts_with("provisional: 20 of 65 rounds were disturbed (0.50 cores of other work on core 1); the clean rounds give: the same values"),
            "{}",
            s[0]
        );
        // The disturbed rounds (twice as slow) are not in the ratio.
        assert!(s[0].contains("cost 3.0x"), "{}", s[0]);
    }

    #[test]
    fn other_cores_busy_is_named_contention() {
        let s = layout_verdict(&times(0, 0.0, 0.8), Some(64));
        assert!(!s[0].starts_with("provisional"));
        assert!(
            s.last().unwrap().starts_with("contention: 0.80 cores"),
            "{s:?}"
        );
    }
}

#[cfg(test)]
mod prefetch_tests {
    use super::*;
    use crate::prefetch::tests::prefetch;

    #[test]
    fn a_dearer_wide_stride_is_read_as_the_prefetchers_quietly() {
        let s = prefetch_verdict(&prefetch(2.0, 6.0, 0, 0.0));
        let all = s.join(" ");
        assert!(all.contains("(3.00x)"), "{all}");
        assert!(
            all.contains("hide less when each access skips 3 lines"),
            "{all}"
        );
        assert!(!all.contains("provisional") && !all.contains("contention"));
        assert!(all.contains("(64 and 16 accesses per 4 KiB page)"), "{all}");
    }

    #[test]
    fn equal_costs_are_not_read_as_the_prefetchers() {
        let all = prefetch_verdict(&prefetch(5.0, 5.1, 0, 0.0)).join(" ");
        assert!(all.contains("about the same"), "{all}");
        assert!(!all.contains("hide less"), "{all}");
    }

    #[test]
    fn disturbed_rounds_mark_the_first_words_and_contention_is_named() {
        let s = prefetch_verdict(&prefetch(2.0, 6.0, 9, 0.0));
        assert!(s[0].starts_with("provisional: 9 of 30 rounds"), "{}", s[0]);
        let s = prefetch_verdict(&prefetch(2.0, 6.0, 0, 0.9));
        assert!(!s[0].starts_with("provisional"));
        assert!(s.last().unwrap().starts_with("contention"), "{s:?}");
    }
}
