//! `cargo xtask compare`: the first example (this machine, the book's x86 machine and the
//! book's ARM phone), partial and odd folders, the CSV's shape, deterministic output, every
//! bad-input case, the HTML's links, and a class of thirty machines.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

const XTASK: &str = env!("CARGO_BIN_EXE_xtask");

fn xtask(args: &[&str]) -> Output {
    Command::new(XTASK).args(args).output().expect("xtask runs")
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn results(name: &str) -> String {
    root().join("results").join(name).display().to_string()
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("xtask-compare-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn ok(o: &Output) -> String {
    assert!(
        o.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        o.status.code(),
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The texts of a figure's text elements, in order, unescaped.
fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = t.split_once('>')?.1.split_once("</text>")?.0;
            Some(
                body.trim()
                    .replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&quot;", "\"")
                    .replace("&apos;", "'")
                    .replace("&amp;", "&"),
            )
        })
        .collect()
}

/// Whether some text element of the figure reads exactly `t` (a legend entry, a tick label).
fn has_text(svg: &str, t: &str) -> bool {
    svg_texts(svg).iter().any(|x| x == t)
}

/// Every text of the figure joined by spaces: a sentence wrapped over several lines reads
/// whole again.
fn svg_prose(svg: &str) -> String {
    svg_texts(svg).join(" ")
}

/// The point lists of a figure's polylines, in order.
fn svg_polylines(svg: &str) -> Vec<Vec<(i32, i32)>> {
    let point = |p: &str| {
        let (x, y) = p.split_once(',')?;
        Some((x.parse().ok()?, y.parse().ok()?))
    };
    svg.split("<polyline")
        .skip(1)
        .filter_map(|t| {
            let pts = t.split_once("points=\"")?.1.split_once('"')?.0;
            Some(pts.split_whitespace().filter_map(point).collect())
        })
        .collect()
}

/// Whether the figure's legend has a long-dashed sample: a 34-pixel stroke broken into
/// dashes of 10 pixels with gaps of 5 (10, gap, 10, gap, 4).
fn has_long_dash_sample(svg: &str) -> bool {
    svg_polylines(svg).windows(3).any(|w| {
        let (a, y) = w[0][0];
        let across = |x0: i32, x1: i32| vec![(a + x0, y), (a + x1, y)];
        w[0] == across(0, 10) && w[1] == across(15, 25) && w[2] == across(30, 34)
    })
}

/// Bad input: exit 2, exactly one line on stderr naming the problem, no backtrace.
fn refused(o: &Output, needle: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(needle),
        "stderr should mention {needle:?}: {err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

/// A synthetic results folder in this project's format. Machine `i` is a little slower than
/// machine `i - 1`; `skip` leaves experiments out; `extra` adds a column to the latency block.
fn synthetic(dir: &Path, i: usize, skip: &[&str], extra: bool) {
    fs::create_dir_all(dir).unwrap();
    let m = Synth::new(i);
    let files: Vec<(&str, String)> = vec![
        ("clock_probe", m.clock_probe()),
        ("cache_ladder", m.cache_ladder(extra)),
        ("stride", m.stride()),
        ("tlb_walk", m.tlb_walk()),
        ("branch", m.branch()),
        ("fp_cost", m.fp_cost()),
        ("false_sharing", m.false_sharing()),
        ("bandwidth", m.bandwidth()),
    ];
    for (e, text) in files {
        if !skip.contains(&e) {
            fs::write(dir.join(format!("{e}.txt")), text).unwrap();
        }
    }
}

/// A `key_figures` block of `(figure, value, unit)` rows.
fn key_figures(rows: &[(&str, f64, &str)]) -> String {
    let mut t = String::from("#DATA-BEGIN key_figures\n#COLUMNS figure:text value unit:text\n");
    for (n, v, u) in rows {
        t.push_str(&format!("#DATA {n} {v} {u}\n"));
    }
    t + "#DATA-END\n"
}

/// Synthetic machine `i`: its `#META` lines and its slowness factor `k`.
struct Synth {
    i: usize,
    k: f64,
    meta: String,
}

impl Synth {
    fn new(i: usize) -> Self {
        let meta = format!(
            "#META cpu_model Synthetic CPU {i}\n#META arch x86_64\n#META logical_cores 4\n\
             #META page_size_bytes 4096\n#META l1d_size_bytes 32768 sysfs\n#META l1d_line_bytes 64 sysfs\n\
             #META l2_size_bytes 1048576 sysfs\n#META l3_size_bytes 16777216 sysfs\n#META quick no\n\
             #META load_before 0.{i:02} 0.10 0.10\n"
        );
        Synth {
            i,
            k: 1.0 + i as f64 * 0.04,
            meta,
        }
    }

    fn clock_probe(&self) -> String {
        let (meta, k) = (&self.meta, self.k);
        format!(
            "== the clock ==\n{meta}#DATA-BEGIN clock_cost\n#COLUMNS method:text median_ns min_ns max_ns\n\
             #DATA clock_gettime {} 20 30\n#DATA-END\n{}",
            20.0 * k,
            key_figures(&[("clock_read", 20.0 * k, "ns"), ("clock_step", 20.0, "ns")])
        )
    }

    fn cache_ladder(&self, extra: bool) -> String {
        let k = self.k;
        let mut lat =
            String::from("#DATA-BEGIN latency\n#COLUMNS kib where:text index_ns pointer_ns");
        lat.push_str(if extra { " extra_ns\n" } else { "\n" });
        let mut kib = 4u64;
        while kib <= 131072 {
            let ns = if kib <= 32 {
                1.0
            } else if kib <= 1024 {
                4.0
            } else if kib <= 16384 {
                15.0
            } else {
                100.0
            };
            let ns = ns * k * (1.0 + (kib as f64).log2() * 0.01);
            lat.push_str(&format!("#DATA {kib} L1d {} {ns}", ns * 1.2));
            if extra {
                lat.push_str(" 7");
            }
            lat.push('\n');
            kib *= 2;
        }
        lat.push_str("#DATA-END\n");
        format!(
            "{}{lat}{}",
            self.meta,
            key_figures(&[("ladder_factor", 100.0 * k, "x")])
        )
    }

    fn stride(&self) -> String {
        let mut st = String::from("#DATA-BEGIN stride\n#COLUMNS stride_bytes appendix_ns\n");
        for e in 0..13 {
            let b = 1u64 << e;
            st.push_str(&format!(
                "#DATA {b} {}\n",
                self.k * (0.5 + (b.min(64) as f64) / 20.0)
            ));
        }
        format!("{}{st}#DATA-END\n", self.meta)
    }

    fn tlb_walk(&self) -> String {
        let k = self.k;
        let mut tl = String::from("#DATA-BEGIN pages\n#COLUMNS pages offset0_ns\n");
        for e in (4..=16).step_by(2) {
            tl.push_str(&format!(
                "#DATA {} {}\n",
                1u64 << e,
                k * 3.0 * (e as f64 - 3.0)
            ));
        }
        tl.push_str("#DATA-END\n");
        format!(
            "{}{tl}{}",
            self.meta,
            key_figures(&[
                ("first_touch_ns", 1000.0 * k, "ns"),
                ("touch_again_ns", 10.0, "ns"),
                ("first_touch_factor", 100.0 * k, "x")
            ])
        )
    }

    fn branch(&self) -> String {
        let k = self.k;
        format!(
            "{}#DATA-BEGIN patterns\n#COLUMNS pattern:text period median_ns\n#DATA always_true 1 {}\n\
             #DATA alternating 2 {}\n#DATA one_in_four 4 {}\n#DATA one_in_sixteen 16 {}\n#DATA random 0 {}\n#DATA-END\n{}",
            self.meta,
            0.3 * k,
            0.35 * k,
            0.4 * k,
            0.5 * k,
            3.5 * k,
            key_figures(&[
                ("mispredict", 6.0 * k, "ns"),
                ("real_branch_random_over_sorted", 10.0, "x")
            ])
        )
    }

    fn fp_cost(&self) -> String {
        let k = self.k;
        // Every other machine has the appendix's per-element table too (the overlay draws it).
        let per_element = if self.i.is_multiple_of(2) {
            format!(
                "#DATA-BEGIN per_element\n#COLUMNS op:text median_ns case:text\n\
                 #DATA multiply {} l1_multiply\n#DATA add {} l1_add\n#DATA divide {} l1_divide\n\
                 #DATA-END\n",
                0.34 * k,
                0.27 * k,
                1.3 * k
            )
        } else {
            String::new()
        };
        format!(
            "{}#DATA-BEGIN ops\n#COLUMNS op:text latency_ns throughput_ns\n#DATA multiply 0.75 {}\n\
             #DATA add 0.5 {}\n#DATA divide 3.2 {}\n#DATA sqrt 5 {}\n#DATA sin 12 {}\n#DATA-END\n{}{}",
            self.meta,
            0.13 * k,
            0.13 * k,
            1.0 * k,
            1.9 * k,
            7.9 * k,
            per_element,
            key_figures(&[
                ("denormal_over_normal", 1.0 + self.i as f64, "x"),
                ("float_speedup_lanes", 2.0, "x")
            ])
        )
    }

    fn false_sharing(&self) -> String {
        let k = self.k;
        format!(
            "{}#DATA-BEGIN distance\n#COLUMNS distance_bytes ns_median vs_split_median\n\
             #DATA 8 1 {a}\n#DATA 16 1 {a}\n#DATA 32 1 {a}\n#DATA 64 0.12 1\n#DATA 128 0.12 1\n#DATA-END\n\
             #DATA-BEGIN c2c\n#COLUMNS from to one_way_median_ns\n#DATA 0 1 {c}\n#DATA 1 0 {d}\n#DATA-END\n{}",
            self.meta,
            key_figures(&[("same_line_vs_apart_2t", 8.0, "x")]),
            a = 8.0 * k,
            c = 30.0 * k,
            d = 33.0 * k
        )
    }

    /// bandwidth: the read kernel in both forms (the overlay draws only the explicit one).
    fn bandwidth(&self) -> String {
        let bw = ::bandwidth::schema::bandwidth::BLOCK;
        let mut b = {
            use ::bandwidth::schema::bandwidth::{FORM, GBS, KERNEL, KIB, OP};
            format!(
                "#META explicit_width avx2\n#DATA-BEGIN {bw}\n\
                 #COLUMNS {KIB} {KERNEL}:text {OP}:text {FORM}:text {GBS}\n"
            )
        };
        let mut kib = 4u64;
        while kib <= 131072 {
            let gbs = if kib <= 32 {
                200.0
            } else if kib <= 1024 {
                110.0
            } else if kib <= 16384 {
                90.0
            } else {
                30.0
            } / self.k;
            b.push_str(&format!("#DATA {kib} read_explicit read explicit {gbs}\n"));
            b.push_str(&format!(
                "#DATA {kib} read_plain read plain {}\n",
                gbs / 2.0
            ));
            kib *= 2;
        }
        b.push_str("#DATA-END\n");
        format!(
            "{}{b}{}",
            self.meta,
            key_figures(&[("l1_over_memory_read", 200.0 / 30.0, "x")])
        )
    }
}

/// The first example, plus a synthetic folder that lacks an experiment and has an extra column.
fn first_example(out: &Path, work: &Path) -> Output {
    let syn = work.join("synthetic");
    synthetic(&syn, 3, &["tlb_walk"], true);
    xtask(&[
        "compare",
        &results("amd-epyc-zen4-2c"),
        &results("appendix-book"),
        &results("appendix-phone"),
        s(&syn),
        "--out",
        s(out),
    ])
}

#[test]
fn this_machine_the_books_machine_and_the_phone_side_by_side() {
    let d = scratch("first");
    let out = d.join("out");
    let stdout = ok(&first_example(&out, &d));
    for f in [
        "compare.md",
        "compare.csv",
        "index.html",
        "compare-latency.svg",
        "compare-stride.svg",
        "compare-tlb.svg",
        "compare-branch.svg",
        "compare-fp.svg",
        "compare-false-sharing.svg",
        "compare-c2c.svg",
        "compare-bandwidth.svg",
    ] {
        assert!(out.join(f).is_file(), "{f} written");
    }
    assert!(stdout.lines().all(|l| l.chars().count() <= 100), "{stdout}");
    assert!(!stdout.lines().any(|l| l.starts_with('#')), "{stdout}");
    let md = fs::read_to_string(out.join("compare.md")).unwrap();
    the_appendix_numbers_side_by_side(&md);
    the_latency_overlay_compares_like_with_like(&out);
    the_bandwidth_overlay_draws_the_explicit_read(&out);
    assert!(md.contains("(compare-bandwidth.svg)"));
    the_fp_overlay_draws_one_method(&out);
    missing_parts_are_listed_once(&out, &md);
    let _ = fs::remove_dir_all(&d);
}

/// The first example's compare.md: the book's and the phone's numbers beside this machine's.
fn the_appendix_numbers_side_by_side(md: &str) {
    // The book's numbers, side by side with the phone's (transcribed, so fixed).
    assert!(md.contains("yes: 61.5x"), "the book's ladder");
    assert!(
        md.contains("yes: 134x"),
        "the phone's ladder: the factor the book prints (its key figure), not 305 / 2.3 ns"
    );
    assert!(
        md.contains("| 17.4 ns | 200-265 ns |"),
        "clock cost side by side"
    );
    assert!(
        md.contains("yes: 139x (1185 ns, then 8.5 ns)"),
        "the book's first touch"
    );
    assert!(
        md.contains("yes: 29x (1140 ns, then 39 ns)"),
        "the phone's first touch"
    );
    assert!(
        md.contains("200..265"),
        "the phone's clock as a range in the key figures"
    );
}

/// The first example's latency overlay.
fn the_latency_overlay_compares_like_with_like(out: &Path) {
    // The phone's latency curve is on the figure, dashed, beside this machine's.
    let lat = fs::read_to_string(out.join("compare-latency.svg")).unwrap();
    assert!(has_text(&lat, "appendix-phone (index chase)"));
    // Like with like: this machine's index chase beside the appendix's, the caption says so,
    // and the phone's line is cut where it skipped sizes (gaps are gaps).
    assert!(has_text(&lat, "amd-epyc-zen4-2c (index chase)"));
    assert!(!svg_texts(&lat).iter().any(|t| t.contains("pointer chase")));
    assert!(svg_prose(&lat).contains("the index chase (the appendix's method) on every machine"));
    assert!(
        has_long_dash_sample(&lat),
        "the appendix's series is long-dashed"
    );
    // The working set is labelled in powers of two with units, the time in every decade.
    for label in ["4K", "64K", "1M", "1", "10", "100"] {
        assert!(has_text(&lat, label), "{label}: {:?}", svg_texts(&lat));
    }
}

/// The first example's bandwidth overlay.
fn the_bandwidth_overlay_draws_the_explicit_read(out: &Path) {
    // Bandwidth by working set: the explicit read kernel of each machine that has it (the plain
    // one left out), the appendix's folders named as having no numbers.
    let bw = fs::read_to_string(out.join("compare-bandwidth.svg")).unwrap();
    assert!(has_text(&bw, "synthetic (read, avx2)"), "{bw}");
    assert!(
        svg_texts(&bw)
            .iter()
            .any(|t| t.starts_with("amd-epyc-zen4-2c (read, "))
    );
    assert!(has_text(&bw, "GB/s read (log)"));
    let prose = svg_prose(&bw);
    assert!(prose.contains("No numbers for this figure: appendix-book, appendix-phone."));
    assert!(
        prose.contains("synthetic yes: 6.67x"),
        "the effect under the figure"
    );
}

/// The first example's fp overlay.
fn the_fp_overlay_draws_one_method(out: &Path) {
    // The cost of each operation: a run with the appendix's per-element table draws that table,
    // beside the book's numbers for the same loop.
    let fp = fs::read_to_string(out.join("compare-fp.svg")).unwrap();
    assert!(
        has_text(&fp, "amd-epyc-zen4-2c (a[i] op b[i], the appendix's loop)"),
        "{:?}",
        svg_texts(&fp)
    );
    assert!(has_text(
        &fp,
        "appendix-book (a[i] op b[i], 4 accumulators)"
    ));
    // A run without the table (independent operations: another measure) is left out of the
    // axis and its ratio, and counted.
    let fp_prose = svg_prose(&fp);
    assert!(
        !fp_prose.contains("synthetic (independent operations)"),
        "{fp_prose}"
    );
    assert!(fp_prose.contains("1 run(s) saved without the per-element table are not drawn"));
    assert!(fp_prose.contains("divide over multiply, per element: amd-epyc-zen4-2c "));
}

/// The first example's missing parts (each listed once; the extra column listed) and CSV.
fn missing_parts_are_listed_once(out: &Path, md: &str) {
    let missing = "**synthetic** has no tlb_walk, sink_bench, env_scan (no file).";
    assert_eq!(md.matches(missing).count(), 1, "{md}");
    assert_eq!(
        md.matches("appendix-phone** has no branch, fp_cost")
            .count(),
        1
    );
    assert!(md.contains("column `extra_ns` only in synthetic"), "{md}");
    let csv = fs::read_to_string(out.join("compare.csv")).unwrap();
    assert!(csv.contains("synthetic,cache_ladder,latency,4,extra_ns,7.0,ns,\n"));
    assert!(csv.contains("appendix-phone,cache_ladder,latency,131072,index_ns,305.0,ns,\n"));
    assert!(!csv.contains("synthetic,tlb_walk"));
}

/// A minimal CSV line splitter (RFC 4180 quotes), enough to check the file's shape.
fn fields(line: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                out.last_mut().unwrap().push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(String::new()),
            (c, _) => out.last_mut().unwrap().push(c),
        }
    }
    out
}

#[test]
fn the_csv_is_one_tidy_table_with_unique_keys() {
    let d = scratch("csv");
    let out = d.join("out");
    ok(&first_example(&out, &d));
    let csv = fs::read_to_string(out.join("compare.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("machine,experiment,block,row,column,value,unit,provisional")
    );
    let mut keys = BTreeSet::new();
    let mut machines = BTreeSet::new();
    let mut n = 0;
    for l in lines {
        let f = fields(l);
        assert_eq!(f.len(), 8, "{l}");
        let v: f64 = f[5]
            .parse()
            .unwrap_or_else(|_| panic!("numeric value: {l}"));
        assert!(v.is_finite(), "{l}");
        assert!(
            f[..5].iter().all(|k| !k.is_empty()),
            "keys are never empty: {l}"
        );
        assert!(keys.insert(f[..5].to_vec()), "duplicate key: {l}");
        machines.insert(f[0].clone());
        n += 1;
    }
    assert!(n > 1000, "{n} numbers");
    assert_eq!(machines.len(), 4, "{machines:?}");
    // Units come with the numbers.
    assert!(csv.contains("amd-epyc-zen4-2c,clock_probe,key_figures,clock_read,value,"));
    assert!(csv.contains("appendix-phone,clock_probe,key_figures,clock_read,low,200.0,ns,\n"));
    assert!(csv.contains("appendix-phone,clock_probe,key_figures,clock_read,high,265.0,ns,\n"));
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn the_same_input_gives_the_same_bytes() {
    let d = scratch("determinism");
    let (a, b) = (d.join("a"), d.join("b"));
    ok(&first_example(&a, &d));
    ok(&first_example(&b, &d));
    let mut names: Vec<String> = fs::read_dir(&a)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(
        names.iter().filter(|n| n.ends_with(".svg")).count() >= 8,
        "{names:?}"
    );
    for n in &names {
        let fa = fs::read(a.join(n)).unwrap();
        let fb = fs::read(b.join(n)).unwrap_or_else(|_| panic!("{n} in both"));
        assert!(fa == fb, "{n} differs between two runs");
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn bad_input_is_one_line_and_nothing_is_written() {
    let d = scratch("bad");
    let good = results("appendix-book");
    let out = d.join("never");
    bad_arguments_are_refused(&d, &good, s(&out));
    assert!(!out.exists(), "nothing written for bad input");
    an_unwritable_out_is_refused(&d, &good);
    a_results_folder_is_never_written_into(&d, &good);
    let _ = fs::remove_dir_all(&d);
}

/// Too few folders, folders that are not results, an unknown baseline or argument: each
/// refused with one line.
fn bad_arguments_are_refused(d: &Path, good: &str, o: &str) {
    refused(
        &xtask(&["compare", "--out", o]),
        "at least two results folders",
    );
    refused(
        &xtask(&["compare", good, "--out", o]),
        "at least two results folders",
    );
    refused(
        &xtask(&["compare", good, "/nonexistent/results/x", "--out", o]),
        "not a results folder",
    );
    let empty = d.join("empty");
    fs::create_dir_all(&empty).unwrap();
    refused(
        &xtask(&["compare", good, s(&empty), "--out", o]),
        "not a results folder",
    );
    let notes = d.join("notes");
    fs::create_dir_all(&notes).unwrap();
    fs::write(notes.join("notes.txt"), "my notes").unwrap();
    fs::write(notes.join("summary.md"), "# nothing").unwrap();
    refused(
        &xtask(&["compare", good, s(&notes), "--out", o]),
        "not a results folder",
    );
    refused(
        &xtask(&["compare", good, s(&notes.join("notes.txt")), "--out", o]),
        "not a folder",
    );
    refused(
        &xtask(&[
            "compare",
            good,
            &results("appendix-phone"),
            "--baseline",
            "nobody",
            "--out",
            o,
        ]),
        "--baseline",
    );
    refused(
        &xtask(&["compare", good, good, "--colour", "--out", o]),
        "unknown argument",
    );
}

/// An unwritable --out (a path under a file, or a file) is refused, and the file kept.
fn an_unwritable_out_is_refused(d: &Path, good: &str) {
    let file = d.join("a-file");
    fs::write(&file, "keep me").unwrap();
    let under = file.join("out");
    refused(
        &xtask(&[
            "compare",
            good,
            &results("appendix-phone"),
            "--out",
            s(&under),
        ]),
        "--out",
    );
    refused(
        &xtask(&[
            "compare",
            good,
            &results("appendix-phone"),
            "--out",
            s(&file),
        ]),
        "--out",
    );
    assert_eq!(fs::read_to_string(&file).unwrap(), "keep me");
}

/// A results folder is never written into (its own index.html would be replaced).
fn a_results_folder_is_never_written_into(d: &Path, good: &str) {
    let run = d.join("run");
    synthetic(&run, 1, &[], false);
    let before = fs::read_dir(&run).unwrap().count();
    refused(
        &xtask(&["compare", good, s(&run), "--out", s(&run)]),
        "is a results folder",
    );
    assert_eq!(fs::read_dir(&run).unwrap().count(), before);
}

#[test]
fn a_malformed_file_is_reported_and_the_folders_other_experiments_count() {
    let d = scratch("malformed");
    let syn = d.join("lab");
    synthetic(&syn, 1, &[], false);
    fs::write(
        syn.join("stride.txt"),
        "text\n#DATA-BEGIN stride\n#COLUMNS stride_bytes appendix_ns\n#DATA 1 abc\n#DATA-END\n",
    )
    .unwrap();
    let out = d.join("out");
    let o = xtask(&[
        "compare",
        &results("appendix-book"),
        s(&syn),
        "--out",
        s(&out),
    ]);
    ok(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("stride.txt") && err.contains("line 4"),
        "{err}"
    );
    let csv = fs::read_to_string(out.join("compare.csv")).unwrap();
    assert!(csv.contains("\nlab,cache_ladder,latency,"));
    assert!(!csv.contains("\nlab,stride,"));
    let md = fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("stride.txt: line 4: bad number"), "{md}");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn machines_without_core_to_core_numbers_are_counted_with_the_reason_only_where_it_holds() {
    let d = scratch("c2c-missing");
    let (a, b) = (d.join("a"), d.join("b"));
    synthetic(&a, 1, &[], false);
    synthetic(&b, 2, &["false_sharing"], false);
    let out = d.join("out");
    let c2c = |folders: &[&str]| {
        let _ = fs::remove_dir_all(&out);
        let mut args = vec!["compare"];
        args.extend(folders);
        args.extend(["--out", s(&out)]);
        ok(&xtask(&args));
        svg_prose(&fs::read_to_string(out.join("compare-c2c.svg")).unwrap())
    };
    let book = results("appendix-book");
    let t = c2c(&[s(&a), &book]);
    assert!(
        t.contains(
            "1 machine(s) have no core-to-core numbers (the appendix does not measure them)."
        ),
        "{t}"
    );
    let t = c2c(&[s(&a), s(&b), &book]);
    assert!(
        t.contains("2 machine(s) have no core-to-core numbers."),
        "a run lacks them too: {t}"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn a_stride_step_that_misses_the_reported_line_does_not_show_the_line() {
    let d = scratch("stride-line");
    let (a, b) = (d.join("on-line"), d.join("past-line"));
    synthetic(&a, 1, &[], false);
    synthetic(&b, 2, &[], false);
    // Steepest step 64 -> 128 B (x2.86) on a machine that reports a 64 B line.
    let mut st = String::from("#DATA-BEGIN stride\n#COLUMNS stride_bytes appendix_ns\n");
    for (bytes, ns) in [(16, 0.5), (32, 0.6), (64, 0.7), (128, 2.0), (256, 2.1)] {
        st.push_str(&format!("#DATA {bytes} {ns}\n"));
    }
    fs::write(b.join("stride.txt"), st + "#DATA-END\n").unwrap();
    let out = d.join("out");
    ok(&xtask(&["compare", s(&a), s(&b), "--out", s(&out)]));
    let md = fs::read_to_string(out.join("compare.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| line size from stride |"))
        .expect("the stride row");
    assert!(
        row.contains("| yes: steepest step x1.76 up to 64 B; reported line 64 B |"),
        "{row}"
    );
    assert!(
        row.contains("| no: steepest step x2.86 up to 128 B; reported line 64 B |"),
        "{row}"
    );
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn the_page_references_only_files_that_exist() {
    let d = scratch("html");
    let out = d.join("out");
    ok(&first_example(&out, &d));
    let html = fs::read_to_string(out.join("index.html")).unwrap();
    assert!(!html.to_lowercase().contains("<script"));
    assert!(html.contains("<meta name=\"viewport\""));
    let mut refs = 0;
    for attr in ["href=\"", "src=\""] {
        for part in html.split(attr).skip(1) {
            let target = part.split('"').next().unwrap();
            assert!(
                !target.contains("://"),
                "nothing fetched from the network: {target}"
            );
            if target.starts_with('#') {
                continue;
            }
            assert!(
                out.join(target).is_file(),
                "{target} exists beside index.html"
            );
            refs += 1;
        }
    }
    assert!(refs >= 10, "the figures and the data are linked ({refs})");
    assert!(html.contains("href=\"compare-bandwidth.svg\""));
    // Every figure is also inline, so the page stands alone.
    assert!(html.matches("<svg ").count() >= 8);
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn same_labels_are_told_apart_by_path_and_the_baseline_can_be_chosen() {
    let d = scratch("labels");
    let (a, b) = (d.join("old").join("lab"), d.join("new").join("lab"));
    synthetic(&a, 1, &[], false);
    synthetic(&b, 2, &[], false);
    let out = d.join("out");
    ok(&xtask(&[
        "compare",
        s(&a),
        s(&b),
        s(&a),
        "--baseline",
        "new/lab",
        "--out",
        s(&out),
    ]));
    let csv = fs::read_to_string(out.join("compare.csv")).unwrap();
    for label in ["old/lab,", "new/lab,", "old/lab (2),"] {
        assert!(csv.contains(&format!("\n{label}")), "{label}");
    }
    let md = fs::read_to_string(out.join("compare.md")).unwrap();
    assert!(md.contains("Baseline: **new/lab**"));
    // Only the explicit read kernel is drawn: the plain one's rows (half as fast, down to
    // 13.9 GB/s) would take the axis down to 10 GB/s; the explicit curves stay above 20.
    let bw = fs::read_to_string(out.join("compare-bandwidth.svg")).unwrap();
    assert!(has_text(&bw, "20") && !has_text(&bw, "10"), "{bw}");
    // A run's appendix-c folder is named after its run. The C programs measure no bandwidth,
    // so a figure left from an earlier compare into the same folder is removed.
    let out2 = d.join("out2");
    fs::create_dir_all(&out2).unwrap();
    fs::write(out2.join("compare-bandwidth.svg"), "<svg/>").unwrap();
    ok(&xtask(&[
        "compare",
        &format!("{}/appendix-c", results("amd-epyc-zen4-2c")),
        &results("appendix-book"),
        "--out",
        s(&out2),
    ]));
    let csv = fs::read_to_string(out2.join("compare.csv")).unwrap();
    assert!(csv.contains("\namd-epyc-zen4-2c/appendix-c,cache_ladder,latency,4,index_ns,"));
    assert!(
        !out2.join("compare-bandwidth.svg").exists(),
        "a stale figure is removed"
    );
    assert!(out2.join("compare-latency.svg").is_file());
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn a_class_of_thirty_finishes_in_seconds_and_stays_readable() {
    let d = scratch("class");
    let mut args: Vec<String> = vec!["compare".into()];
    for i in 0..30 {
        let p = d.join(format!("student-{i:02}"));
        synthetic(&p, i, &[], false);
        args.push(s(&p).to_string());
    }
    args.push(results("appendix-book"));
    let out = d.join("out");
    args.extend(["--out".into(), s(&out).to_string()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let t = Instant::now();
    let stdout = ok(&xtask(&refs));
    // Generous: it takes well under a second alone; the machine may be shared.
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());
    assert!(
        stdout.lines().count() < 40,
        "a short report for many machines:\n{stdout}"
    );
    let lat = fs::read_to_string(out.join("compare-latency.svg")).unwrap();
    assert!(has_text(
        &lat,
        "median over the 30 measured runs (short dashes)"
    ));
    assert!(has_text(&lat, "student-00 (index chase) (baseline)"));
    // The grey solid lines: the 29 runs besides the baseline (the appendix has its own entry).
    assert!(has_text(&lat, "each other machine (29)"));
    assert!(has_text(&lat, "the appendix's numbers (dashed)"));
    assert!(
        lat.matches("stroke=\"#AAAAAA\"").count() >= 30,
        "every machine a grey line"
    );
    assert!(
        !svg_texts(&lat).iter().any(|t| t.contains("student-05")),
        "no legend entry per machine"
    );
    let bw = fs::read_to_string(out.join("compare-bandwidth.svg")).unwrap();
    assert!(has_text(
        &bw,
        "median over the 30 measured runs (short dashes)"
    ));
    assert!(has_text(&bw, "student-00 (read, avx2) (baseline)"));
    assert!(
        has_text(&bw, "each other machine (29)"),
        "the 29 runs besides the baseline"
    );
    assert!(bw.matches("stroke=\"#AAAAAA\"").count() >= 29);
    assert!(!svg_texts(&bw).iter().any(|t| t.contains("student-05")));
    assert!(svg_prose(&bw).contains("L1 to memory (bandwidth): 30 of 30 machines"));
    // Core-to-core: the machines are named on the axis, the baseline marked.
    let c2c = fs::read_to_string(out.join("compare-c2c.svg")).unwrap();
    assert!(has_text(&c2c, "student-05"));
    assert!(has_text(&c2c, "student-00 (baseline)"));
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn extreme_values_are_drawn_or_left_out_never_hang() {
    let d = scratch("extreme");
    let a = d.join("wild");
    synthetic(&a, 1, &[], false);
    fs::write(
        a.join("cache_ladder.txt"),
        "#DATA-BEGIN latency\n#COLUMNS kib index_ns pointer_ns\n#DATA 4 5e-324 1e308\n\
         #DATA 8 0 -1\n#DATA 1e308 1e-308 1.5\n#DATA-END\n",
    )
    .unwrap();
    fs::write(
        a.join("stride.txt"),
        "#DATA-BEGIN stride\n#COLUMNS stride_bytes appendix_ns\n#DATA 5e-324 1e308\n#DATA 1 1\n#DATA-END\n",
    )
    .unwrap();
    let out = d.join("out");
    let mut child = Command::new(XTASK)
        .args([
            "compare",
            s(&a),
            &results("appendix-book"),
            "--out",
            s(&out),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let t = Instant::now();
    let status = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st;
        }
        if t.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("compare hung on extreme values");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success());
    let svg = fs::read_to_string(out.join("compare-latency.svg")).unwrap();
    assert!(svg.len() < 200_000);
    assert!(
        svg_prose(&svg).contains("not drawn"),
        "values that cannot go on a log axis are said to be left out"
    );
    let _ = fs::remove_dir_all(&d);
}

/// The project's seeded generator (`measure::ring`), seeded by the case number: a failing
/// case is reproduced by its number alone.
struct Rng(measure::ring::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(measure::ring::rng(seed))
    }
    /// A uniform integer in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        measure::ring::below(&mut self.0, n)
    }
}

/// The overlays on arbitrary numbers: each case replaces some numbers of two synthetic
/// machines' files by corners of f64 (zeros, negatives, subnormals, 1e308, NA) or by one
/// value for a whole file. `compare` must finish well within a bound, succeed, draw every
/// figure it writes as SVG, and give the same bytes twice: never a hang, never a panic.
#[test]
fn overlays_of_arbitrary_numbers_finish_and_never_panic() {
    let d = scratch("fuzz");
    for case in 0..12u64 {
        let mut r = Rng::new(case);
        let mut dirs = Vec::new();
        for m in 0..2 {
            let dir = d.join(format!("c{case}-m{m}"));
            synthetic(&dir, m, &[], false);
            for f in fs::read_dir(&dir).unwrap() {
                let p = f.unwrap().path();
                if p.extension().is_none_or(|e| e != "txt") {
                    continue;
                }
                corrupt(&p, &mut r);
            }
            dirs.push(dir);
        }
        let mut svgs = Vec::new();
        for k in 0..2 {
            let out = d.join(format!("c{case}-out{k}"));
            svgs.push(svgs_of_compare(case, &dirs, &out));
        }
        assert!(
            svgs[0] == svgs[1],
            "case {case}: the same input, other bytes"
        );
    }
    let _ = fs::remove_dir_all(&d);
}

/// Numbers at the edges of what a file may hold.
const CORNERS: [&str; 12] = [
    "0",
    "-0",
    "5e-324",
    "1e-308",
    "1e-12",
    "1",
    "-1",
    "1e300",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "NA",
];

/// Rewrites a `.txt` file with some of its numbers replaced by corner values: in about one
/// file in four every number by the same one, else about one number in three.
fn corrupt(p: &Path, r: &mut Rng) {
    let one = (r.below(4) == 0).then(|| CORNERS[r.below(CORNERS.len())]);
    let text: Vec<String> = fs::read_to_string(p)
        .unwrap()
        .lines()
        .map(|l| {
            if !l.starts_with("#DATA ") {
                return l.to_string();
            }
            l.split(' ')
                .map(|t| {
                    let num = t.parse::<f64>().is_ok();
                    match one {
                        Some(v) if num => v.to_string(),
                        None if num && r.below(3) == 0 => {
                            CORNERS[r.below(CORNERS.len())].to_string()
                        }
                        _ => t.to_string(),
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    fs::write(p, text.join("\n") + "\n").unwrap();
}

/// Compares the folders into `out` (failing if it runs over a minute, fails or panics) and
/// gives the SVG files' names and texts, in name order.
fn svgs_of_compare(case: u64, dirs: &[PathBuf], out: &Path) -> (Vec<String>, Vec<String>) {
    let mut child = Command::new(XTASK)
        .args([
            "compare",
            s(&dirs[0]),
            s(&dirs[1]),
            &results("appendix-book"),
        ])
        .args(["--out", s(out)])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("case {case}: compare hung");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "case {case}: {err}");
    assert!(!err.contains("panicked"), "case {case}: {err}");
    let mut names: Vec<String> = fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    names.sort();
    let texts: Vec<String> = names
        .iter()
        .map(|n| fs::read_to_string(out.join(n)).unwrap())
        .collect();
    for (n, t) in names.iter().zip(&texts) {
        assert!(
            t.starts_with("<svg") && t.trim_end().ends_with("</svg>"),
            "{n}"
        );
        assert!(t.len() < 300_000 && !t.contains("NaN"), "case {case}: {n}");
    }
    (names, texts)
}

/// A copy of the reference folder's experiment files with every measured (decimal) number of
/// its `#DATA` lines, bar the first column (the x: a size, a stride, a name), times `k`.
fn perturbed_copy(to: &Path, k: f64) {
    fs::create_dir_all(to).unwrap();
    let from = root().join("results").join("amd-epyc-zen4-2c");
    for e in fs::read_dir(&from).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.ends_with(".txt") || name == "summary.md") || !p.is_file() {
            continue;
        }
        let text = fs::read_to_string(&p).unwrap();
        let out: Vec<String> = text
            .lines()
            .map(|l| match l.strip_prefix("#DATA ") {
                Some(rest) => {
                    let f: Vec<String> = rest
                        .split(' ')
                        .enumerate()
                        .map(|(i, t)| match t.parse::<f64>() {
                            Ok(v) if i > 0 && t.contains('.') => format!("{}", v * k),
                            _ => t.to_string(),
                        })
                        .collect();
                    format!("#DATA {}", f.join(" "))
                }
                None => l.to_string(),
            })
            .collect();
        fs::write(to.join(&name), out.join("\n") + "\n").unwrap();
    }
}

#[test]
fn a_class_of_perturbed_copies_finds_its_planted_outlier_and_fits_the_page() {
    let d = scratch("perturbed");
    let out = compare_a_class(&d);
    let md = fs::read_to_string(out.join("compare.md")).unwrap();
    the_class_table_leads_with_the_outlier(&md);
    the_class_page_and_figures(&out);
    let _ = fs::remove_dir_all(&d);
}

/// Compares the four committed folders and 31 perturbed copies of one (the last, 3x, the
/// planted outlier) into `d/out`.
fn compare_a_class(d: &Path) -> PathBuf {
    let mut args: Vec<String> = vec!["compare".into()];
    for name in [
        "amd-epyc-zen4-2c",
        "amd-epyc-zen5-2c",
        "appendix-book",
        "appendix-phone",
    ] {
        args.push(results(name));
    }
    for i in 0..30 {
        let p = d.join(format!("student-{i:02}"));
        perturbed_copy(&p, 1.0 + 0.004 * ((i * 7 % 11) as f64 - 5.0));
        args.push(s(&p).to_string());
    }
    let odd = d.join("student-odd");
    perturbed_copy(&odd, 3.0);
    args.push(s(&odd).to_string());
    let out = d.join("out");
    args.extend(["--out".into(), s(&out).to_string()]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    ok(&xtask(&refs));
    out
}

/// compare.md fits 160 columns and sorts the machines by the ladder, the outlier first.
fn the_class_table_leads_with_the_outlier(md: &str) {
    let widest = md.lines().max_by_key(|l| l.chars().count()).unwrap();
    assert!(
        widest.chars().count() <= 160,
        "compare.md's widest line:\n{widest}"
    );
    assert!(
        md.contains("student-odd"),
        "the outlier is named in compare.md"
    );
    // Machines as rows, sorted by the ladder: the planted one (every number 3x) leads, marked.
    let by_effect = md
        .split("## The class, effect by effect")
        .nth(1)
        .expect("the class, effect by effect");
    let rows: Vec<&str> = by_effect
        .lines()
        .skip_while(|l| !l.starts_with("| machine"))
        .skip(2)
        .take_while(|l| l.starts_with("| "))
        .collect();
    assert_eq!(rows.len(), 35, "{by_effect}");
    assert!(
        rows[0].starts_with("| student-odd | ! "),
        "the odd one leads, marked: {}",
        rows[0]
    );
    let ladder: Vec<f64> = rows
        .iter()
        .filter_map(|r| r.split(" | ").nth(1)?.trim_start_matches("! ").parse().ok())
        .collect();
    assert!(
        ladder.len() >= 31 && ladder.windows(2).all(|w| w[0] >= w[1]),
        "{ladder:?}"
    );
}

/// The figures come first on the page; the outlier is named on the latency figure, the FP
/// figure holds one method.
fn the_class_page_and_figures(out: &Path) {
    let html = fs::read_to_string(out.join("index.html")).unwrap();
    let first_figure = html.find("<figure").expect("a figure");
    let first_table = html.find("<table").expect("a table");
    assert!(first_figure < first_table, "the figures come first");
    assert!(html.contains("href=\"#figures\""), "a table of contents");
    let lat = fs::read_to_string(out.join("compare-latency.svg")).unwrap();
    let named: Vec<String> = svg_texts(&lat)
        .into_iter()
        .filter(|t| t.contains("outlier"))
        .collect();
    // One method on the FP axis: a run saved without the per-element table would be left out
    // and counted (the committed folders all have it now), never drawn beside the others'
    // per-element numbers as throughput.
    let fp = fs::read_to_string(out.join("compare-fp.svg")).unwrap();
    assert!(!svg_prose(&fp).contains("saved without the per-element table"));
    assert!(
        !svg_texts(&fp)
            .iter()
            .any(|t| t.contains("independent operations)"))
    );
    assert!(
        svg_texts(&fp).iter().any(|t| t.contains("(crosses)")),
        "the median as crosses"
    );
    // The planted one is named; no perturbed copy is (the Zen 5 may be: it differs).
    assert!(
        named.iter().any(|t| t.starts_with("student-odd (")),
        "{named:?}"
    );
    assert!(
        !named
            .iter()
            .any(|t| t.starts_with("student-0") || t.starts_with("student-1"))
    );
}
