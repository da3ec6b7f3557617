//! One run's `index.html`: a table of contents, the figures in the appendix's order with
//! captions that say what to see, then the summary's sections, the key figures named in words.
//! Static, no JavaScript; the figures stay files, linked by relative path.

use crate::compare::html::{anchor, escape, inline, markdown, page};
use crate::experiments::NAMES;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

/// Every figure the drawers write, in the appendix's order (the clock, the ladder, stride,
/// the TLB, branches, false sharing, floating point; then bandwidth, sink_bench and env_scan,
/// which the appendix does not have): its file, a short title and what to see in it.
pub const CAPTIONS: &[(&str, &str, &str)] = &[
    (
        "clock_probe-traps.svg",
        "Figure 105.1: three traps in measuring",
        "Each trap beside its guard: deleted work reads as one clock step, a first touch \
         costs many times the second, one interruption drags the mean.",
    ),
    (
        "clock_probe-trap3.svg",
        "Trap three, round by round",
        "Every round of the same sum in time order: a rare slow round moves the mean, \
         not the median.",
    ),
    (
        "cache_ladder-latency.svg",
        "Figure 105.2: the latency ladder",
        "Time for one random read by working set: a step up where each cache level \
         ends, and memory far above L1 (the bracket is the index chase's factor).",
    ),
    (
        "cache_ladder-mlp.svg",
        "Memory-level parallelism",
        "Time per load as independent chains are added: in memory it falls, because \
         several misses are in flight at once.",
    ),
    (
        "stride-cost.svg",
        "Figure 105.3: cost per access by stride",
        "The cost climbs until the stride reaches the cache line, then levels off.",
    ),
    (
        "stride-lines.svg",
        "Distinct lines each stride visits",
        "Why wide strides look cheap in the appendix's walk: it wraps and re-reads lines.",
    ),
    (
        "stride-layout.svg",
        "Array of structs against struct of arrays",
        "Summing one field: the struct of arrays fetches only bytes it uses.",
    ),
    (
        "tlb_walk-pages.svg",
        "Translation has a cost",
        "One read per page: the time rises as the pages walked outgrow the TLB.",
    ),
    (
        "tlb_walk-huge.svg",
        "4 KiB pages against huge pages",
        "The same walk on huge pages: fewer translations, a shorter time.",
    ),
    (
        "branch-variants.svg",
        "The same sum, random against sorted",
        "Only the code that keeps a real branch pays for random data.",
    ),
    (
        "branch-patterns.svg",
        "What the predictor learns",
        "Regular patterns cost as little as always-true; only random data is slow.",
    ),
    (
        "branch-pipeline.svg",
        "Figure 105.4: a right and a wrong guess",
        "The work thrown away on a misprediction, drawn to scale in cycles.",
    ),
    (
        "false_sharing-lines.svg",
        "Figure 105.5: one line shared, and kept apart",
        "What moves between the cores when two slots share a cache line.",
    ),
    (
        "false_sharing-distance.svg",
        "Two threads, by distance between their slots",
        "Slots within one cache line are slow; from the line size apart they are fast.",
    ),
    (
        "false_sharing-threads.svg",
        "More threads",
        "All slots on one line against each on its own, against a perfect split.",
    ),
    (
        "false_sharing-shared.svg",
        "One value, really shared",
        "The price of a safe increment: plain, atomic and under a mutex.",
    ),
    (
        "false_sharing-c2c.svg",
        "Core to core",
        "One-way latency between each pair of cores.",
    ),
    (
        "fp_cost-ops.svg",
        "The cost of one operation",
        "Latency and throughput of each operation beside the appendix's per-element \
         table: divide and sin cost many multiplies.",
    ),
    (
        "fp_cost-denormal.svg",
        "Denormal against normal values",
        "Whether tiny values slow the arithmetic, with flush-to-zero off and on.",
    ),
    (
        "fp_cost-width.svg",
        "float against double",
        "float gains only where the loop is vectorised: more lanes per register.",
    ),
    (
        "fp_cost-placement.svg",
        "The same multiply at eight addresses",
        "Where the code sits in its line of code, and what that does to the time.",
    ),
    (
        "bandwidth-working-set.svg",
        "Bandwidth by working set",
        "Bytes a second fall at each cache boundary: L1 against memory.",
    ),
    (
        "sink_bench-variants.svg",
        "A benchmark that measures nothing",
        "A discarded sum costs one clock step; a sunk or checked one costs the real loop.",
    ),
    (
        "sink_bench-spread.svg",
        "One process against fresh processes",
        "How far single passes of identical code differ, and where the cold pass falls.",
    ),
    (
        "env_scan-deviation.svg",
        "Does the environment's size move the timing?",
        "Each size's deviation in three passes: an effect would repeat in every pass.",
    ),
    (
        "env_scan-regions.svg",
        "Deviation by region of the environment",
        "The median deviation per 256 bytes of padding, per workload and pass.",
    ),
];

/// The figures in `<dir>/figures/`, in the caption table's order, those it lacks after them
/// by name (a figure from a newer drawer still shows, with its file name for a title).
fn figure_files(dir: &Path) -> Vec<String> {
    let mut svgs: Vec<String> = match fs::read_dir(dir.join("figures")) {
        Ok(rd) => rd
            .filter_map(|e| e.ok())
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|n| n.ends_with(".svg") && !n.contains(['"', '<', '>', '&', '#', '?']))
            .collect(),
        Err(_) => Vec::new(),
    };
    let rank = |n: &str| {
        CAPTIONS
            .iter()
            .position(|c| c.0 == n)
            .unwrap_or(CAPTIONS.len())
    };
    svgs.sort_by(|a, b| rank(a).cmp(&rank(b)).then(a.cmp(b)));
    svgs
}

/// A figure's anchor: `fig-` and its file's stem.
fn figure_id(file: &str) -> String {
    format!("fig-{}", anchor(file.trim_end_matches(".svg")))
}

/// The figures section: each image with alt text and a caption that says what to see.
fn figures_html(files: &[String]) -> String {
    let mut out = String::from("<h2 id=\"figures\">Figures</h2>\n");
    if files.is_empty() {
        out.push_str("<p>No figures in <code>figures/</code>.</p>\n");
    }
    for f in files {
        let (title, see) = CAPTIONS
            .iter()
            .find(|c| c.0 == f)
            .map_or((f.as_str(), ""), |c| (c.1, c.2));
        let alt = escape(&format!("{title}. {see}"));
        let _ = writeln!(
            out,
            "<figure id=\"{}\">\n<div class=\"scroll\"><img src=\"figures/{f}\" alt=\"{}\" \
             loading=\"lazy\"></div>\n<figcaption><strong>{}.</strong> {} \
             <a href=\"figures/{f}\">Open alone</a></figcaption>\n</figure>",
            figure_id(f),
            alt.trim_end_matches(". "),
            escape(title),
            escape(see)
        );
    }
    out
}

/// The summary split at its `## ` headings: the text before the first, then each section's
/// heading and body.
fn sections(md: &str) -> (String, Vec<(String, String)>) {
    let mut head = String::new();
    let mut out: Vec<(String, String)> = Vec::new();
    for line in md.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            out.push((h.trim().to_string(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        } else {
            head.push_str(line);
            head.push('\n');
        }
    }
    (head, out)
}

/// The key figures section from the saved outputs, named in words (the summary's own code,
/// so a summary written before it named them reads the same here).
fn key_figures(dir: &Path) -> Option<String> {
    let saved = crate::experiments::load(dir).ok()?;
    let rows: Vec<super::summary::Row> = NAMES
        .iter()
        .map(|&name| super::summary::Row {
            name,
            saved: saved.run(name),
            now: None,
            unreadable: None,
        })
        .collect();
    let mut s = String::new();
    super::summary::key_figures(&mut s, &rows);
    let (_, mut parts) = sections(&s);
    parts.pop().map(|(_, body)| body)
}

/// Writes `<dir>/index.html` for one run from its `summary.md`, its saved outputs and the
/// figures in `<dir>/figures/`. Reads only what is in `dir`; returns the path written.
/// `run-all` calls this after drawing, on its temporary folder, so the run's `label` is given
/// rather than read from the path.
pub fn write_run_index(dir: &Path, label: &str) -> Result<PathBuf, String> {
    let summary = crate::project::read_regular_text(&dir.join("summary.md")).unwrap_or_else(|_| {
        format!("# machine-measured results: {label}\n\nNo summary.md in this folder.\n")
    });
    let (head, mut parts) = sections(&summary);
    // The page has its own figures section; the summary's says only how many were drawn.
    parts.retain(|(h, _)| h != "Figures");
    if let Some(k) = key_figures(dir)
        && let Some(part) = parts.iter_mut().find(|(h, _)| h == "Key figures")
    {
        part.1 = k;
    }
    let files = figure_files(dir);
    let none = |alt: &str, _src: &str| format!("<p>{}</p>\n", escape(alt));
    let mut body = markdown(&head, &none);
    body.push_str("<nav aria-label=\"contents\">\n<h2 id=\"contents\">Contents</h2>\n<ul>\n");
    body.push_str("<li><a href=\"#figures\">Figures</a>\n<ul>\n");
    for f in &files {
        let title = CAPTIONS
            .iter()
            .find(|c| c.0 == f)
            .map_or(f.as_str(), |c| c.1);
        let _ = writeln!(
            body,
            "<li><a href=\"#{}\">{}</a></li>",
            figure_id(f),
            escape(title)
        );
    }
    body.push_str("</ul></li>\n");
    for (h, _) in &parts {
        let _ = writeln!(
            body,
            "<li><a href=\"#{}\">{}</a></li>",
            anchor(h),
            inline(h)
        );
    }
    body.push_str("</ul>\n</nav>\n");
    body.push_str(&figures_html(&files));
    for (h, text) in &parts {
        body.push_str(&markdown(&format!("## {h}\n\n{text}"), &none));
    }
    body.push_str(
        "<p>Raw output per experiment: <code>&lt;experiment&gt;.txt</code> in this folder; \
         the summary as text: <a href=\"summary.md\">summary.md</a>.</p>\n",
    );
    let out = dir.join("index.html");
    fs::write(&out, page(&format!("machine-measured: {label}"), &body))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::{BOOK_RESULTS, root};

    /// The values of attribute `attr` in `html`, in order.
    fn attrs(html: &str, attr: &str) -> Vec<String> {
        let key = format!(" {attr}=\"");
        html.split(&key)
            .skip(1)
            .filter_map(|t| t.split_once('"').map(|(v, _)| v.replace("&amp;", "&")))
            .collect()
    }

    /// What is wrong with the page at `dir/index.html`: an image whose file is missing or no
    /// SVG, an image without alt text, a link to a missing file or anchor, a heading twice.
    fn problems(dir: &Path, html: &str) -> Vec<String> {
        let mut out = Vec::new();
        let ids = attrs(html, "id");
        for src in attrs(html, "src") {
            let text = fs::read_to_string(dir.join(&src)).unwrap_or_default();
            if !text.trim_start().starts_with("<svg") {
                out.push(format!("image {src} does not load"));
            }
        }
        for img in html.split("<img").skip(1) {
            let tag = img.split('>').next().unwrap_or("");
            if attrs(tag, "alt")
                .first()
                .is_none_or(|a| a.trim().is_empty())
            {
                out.push(format!("an image without alt text: {tag}"));
            }
        }
        for href in attrs(html, "href") {
            match href.strip_prefix('#') {
                Some(id) if !ids.iter().any(|i| i == id) => out.push(format!("no anchor #{id}")),
                None if !dir.join(&href).is_file() => out.push(format!("no file {href}")),
                _ => {}
            }
        }
        let heads: Vec<String> = html
            .split("<h2")
            .skip(1)
            .map(|h| h[..h.find("</h2>").unwrap_or(0)].to_string())
            .collect();
        for (i, h) in heads.iter().enumerate() {
            if heads[i + 1..].contains(h) {
                out.push(format!("heading twice: {h}"));
            }
        }
        out
    }

    /// The reference folder's page, written into a copy of the folder's parts it reads.
    fn reference_page() -> (PathBuf, String) {
        let from = root().join(BOOK_RESULTS);
        let dir = std::env::temp_dir().join(format!("run-page-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("figures")).unwrap();
        for e in fs::read_dir(&from).unwrap().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".txt") || name.ends_with(".md") || name.ends_with(".csv") {
                fs::copy(e.path(), dir.join(&name)).unwrap();
            }
        }
        for e in fs::read_dir(from.join("figures")).unwrap().flatten() {
            fs::copy(e.path(), dir.join("figures").join(e.file_name())).unwrap();
        }
        let p = write_run_index(&dir, "reference").unwrap();
        (dir, fs::read_to_string(p).unwrap())
    }

    #[test]
    fn the_reference_page_holds_together() {
        let (dir, html) = reference_page();
        assert_eq!(problems(&dir, &html), Vec::<String>::new());
        // The figures in the appendix's order, before the summary's tables.
        let at = |s: &str| html.find(s).unwrap_or_else(|| panic!("no {s}"));
        assert!(at("fig-clock-probe-traps") < at("fig-cache-ladder-latency"));
        assert!(at("fig-fp-cost-ops\"") < at("fig-bandwidth-working-set\""));
        assert!(at("fig-sink-bench-spread\"") < at("fig-env-scan-deviation\""));
        assert!(at("id=\"figures\"") < at("id=\"key-figures\""));
        // Key figures in words, their names only beside them.
        assert!(html.contains("<td>L1 to memory: the largest working set"));
        assert!(!html.contains("<td>ladder_factor</td>"));
        assert!(
            !html.contains("figures drawn in"),
            "the summary's own figures note is left out"
        );
        // Every figure the drawers write has a caption.
        for e in &crate::experiments::ALL {
            for f in e.figures {
                assert!(CAPTIONS.iter().any(|c| c.0 == *f), "{f} has no caption");
            }
        }
        chromium_agrees(&dir, &html);
        let _ = fs::remove_dir_all(&dir);
    }

    /// Headless Chromium reads the page as we do: the same images and anchors in its DOM, and
    /// every image file opens as an SVG document. Skipped, with a line, where it is missing.
    fn chromium_agrees(dir: &Path, html: &str) {
        let found = std::process::Command::new("sh")
            .args(["-c", "command -v chromium"])
            .output();
        if !found.is_ok_and(|o| o.status.success()) {
            println!("skipped: chromium is not installed, so the page was checked by parsing only");
            return;
        }
        let srcs = attrs(html, "src");
        let (dom, opened) = chromium_reads(dir, &srcs);
        assert_eq!(attrs(&dom, "src"), srcs, "chromium's images");
        assert_eq!(
            problems(dir, &dom),
            Vec::<String>::new(),
            "in chromium's DOM"
        );
        let expected: Vec<String> = srcs.iter().map(|s| format!("{s} svg 0")).collect();
        assert_eq!(
            opened, expected,
            "each image in chromium: its file, its root element, its parser errors"
        );
    }

    /// What headless Chromium makes of `dir/index.html` and of every file in `srcs` (relative
    /// to `dir`), in one launch of one small page whose script reads each file: the page's DOM
    /// (Chromium's HTML parser), and a line "SRC ROOT ERRORS" per file, with the name of the
    /// root element of the document Chromium's XML parser made of it ("none" where it gave
    /// none) and its count of parser errors. Nothing is rendered, so this takes the launch's
    /// time and little more.
    fn chromium_reads(dir: &Path, srcs: &[String]) -> (String, Vec<String>) {
        let list: Vec<String> = srcs.iter().map(|s| format!("'{s}'")).collect();
        let script = format!(
            "const get = (s) => {{ const x = new XMLHttpRequest(); x.open('GET', s, false); \
             x.send(); return x; }}; \
             try {{ document.getElementById('dom').textContent = new DOMParser() \
             .parseFromString(get('index.html').responseText, 'text/html') \
             .documentElement.outerHTML; }} catch (e) {{}} \
             const out = document.getElementById('out'); \
             for (const s of [{}]) {{ let d = null; try {{ d = get(s).responseXML; }} catch (e) {{}} \
             const root = d && d.documentElement ? d.documentElement.localName : 'none'; \
             const errors = d ? d.getElementsByTagName('parsererror').length : 0; \
             out.textContent += `${{s}} ${{root}} ${{errors}}\\n`; }}",
            list.join(", ")
        );
        let page = dir.join("chromium-reads.html");
        fs::write(
            &page,
            format!(
                "<!DOCTYPE html>\n<body>\n<pre id=\"dom\"></pre><pre id=\"out\"></pre>\n\
                 <script>{script}</script>\n"
            ),
        )
        .unwrap();
        let o = std::process::Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--allow-file-access-from-files",
                "--dump-dom",
                &format!("file://{}", page.display()),
            ])
            .output()
            .unwrap();
        fs::remove_file(&page).unwrap();
        let all = String::from_utf8_lossy(&o.stdout);
        let pre = |id: &str| {
            all.split_once(&format!("<pre id=\"{id}\">"))
                .and_then(|(_, t)| t.split_once("</pre>"))
                .map_or(String::new(), |(t, _)| unescape(t))
        };
        let lines = pre("out").lines().map(str::to_string).collect();
        (pre("dom"), lines)
    }

    /// A text node as Chromium serialises it, back to its characters.
    fn unescape(t: &str) -> String {
        t.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&nbsp;", "\u{a0}")
            .replace("&amp;", "&")
    }

    #[test]
    fn a_broken_page_is_caught() {
        let dir = std::env::temp_dir();
        let html = "<h2 id=\"a\">A</h2><a href=\"#b\">b</a><img src=\"figures/none.svg\" alt=\"\"><h2 id=\"a\">A</h2>";
        let p = problems(&dir, html);
        assert!(p.iter().any(|m| m.contains("no anchor #b")), "{p:?}");
        assert!(p.iter().any(|m| m.contains("does not load")), "{p:?}");
        assert!(p.iter().any(|m| m.contains("without alt")), "{p:?}");
        assert!(p.iter().any(|m| m.contains("heading twice")), "{p:?}");
    }
}
