//! xtask's modules form layers: no top-level module reaches, through `crate::` paths, a module
//! that reaches it back. Read from the source, so a new import that closes a cycle fails here.
//! Also read from the source: a crate that turns its doctests off has no doc example to lose.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file belongs to (`main` for main.rs).
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Which top-level modules each one names through `crate::`.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in files {
        let from = module_of(&src, &f);
        let text = std::fs::read_to_string(&f).unwrap();
        let edges = g.entry(from.clone()).or_default();
        for (i, _) in text.match_indices("crate::") {
            let before = text[..i].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue;
            }
            let rest = &text[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != from {
                edges.insert(name);
            }
        }
    }
    g
}

/// The modules `start` reaches.
fn reach(g: &BTreeMap<String, BTreeSet<String>>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut work = vec![start.to_string()];
    while let Some(m) = work.pop() {
        for n in g.get(&m).into_iter().flatten() {
            if seen.insert(n.clone()) {
                work.push(n.clone());
            }
        }
    }
    seen
}

#[test]
fn no_module_reaches_itself() {
    let g = graph();
    assert!(
        g.contains_key("figures") && g.contains_key("project"),
        "{g:?}"
    );
    for m in g.keys().filter(|m| *m != "main") {
        let back: Vec<&String> = g[m].iter().filter(|n| reach(&g, n).contains(m)).collect();
        assert!(
            back.is_empty(),
            "{m} imports {back:?}, which import {m} back"
        );
    }
}

#[test]
fn the_reader_sees_a_planted_cycle() {
    let mut g = graph();
    g.entry("project".into())
        .or_default()
        .insert("run_all".into());
    assert!(reach(&g, "run_all").contains("project") && reach(&g, "project").contains("project"));
}

/// The doc comments of the `.rs` files under `dir` that open a code block (a would-be
/// doctest), as "FILE:LINE".
fn doc_examples(dir: &Path) -> Vec<String> {
    let mut files = Vec::new();
    sources(dir, &mut files);
    let mut found = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let t = line.trim_start();
            let doc = t.strip_prefix("///").or_else(|| t.strip_prefix("//!"));
            if doc.is_some_and(|d| d.trim_start().starts_with("```")) {
                found.push(format!("{}:{}", f.display(), i + 1));
            }
        }
    }
    found
}

/// A crate that turns doctests off (`doctest = false`, to spare the suite a rustdoc start-up
/// per crate) has no example in its docs that would then go unchecked.
#[test]
fn crates_without_doctests_have_no_examples_to_lose() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut off = 0;
    for group in ["crates", "labs"] {
        for e in std::fs::read_dir(root.join(group)).unwrap().flatten() {
            let manifest = std::fs::read_to_string(e.path().join("Cargo.toml")).unwrap_or_default();
            if !manifest.contains("doctest = false") {
                continue;
            }
            off += 1;
            let found = doc_examples(&e.path().join("src"));
            assert!(
                found.is_empty(),
                "doctests are off, yet examples at {found:?}"
            );
        }
    }
    assert!(off >= 10, "only {off} crates turn doctests off");
    // The reader finds an example where there is one: measure keeps its doctests for it.
    assert!(!doc_examples(&root.join("crates/measure/src")).is_empty());
}
