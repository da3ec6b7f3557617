//! Static HTML pages: the comparison's `index.html`, and the converter one run's page uses
//! too (`run_all::page`).
//!
//! One file each, no JavaScript, no server, nothing fetched from the network: the page reads
//! the same offline, from a USB stick or a phone. The text is the Markdown the tools already
//! write (`compare.md`, `summary.md`) rendered by a small converter that knows the few
//! constructs they use: headings, paragraphs, lists, tables, code blocks, inline code, bold,
//! links and images.

use std::fmt::Write as _;

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;\
line-height:1.45;margin:0 auto;padding:0.75rem;max-width:70rem;color:#111}\
h1{font-size:1.5rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ccc}\
h3{font-size:1.05rem;margin-top:1.5rem}\
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}\
table{border-collapse:collapse;font-size:0.9rem;margin:0.5rem 0}\
th,td{border:1px solid #ccc;padding:0.25rem 0.5rem;vertical-align:top}\
th{background:#f3f3f3;text-align:left}td.r{text-align:right;white-space:nowrap}\
code{font-size:0.9em;background:#f5f5f5;padding:0 0.2em;overflow-wrap:anywhere}\
pre{background:#f5f5f5;padding:0.5rem;overflow-x:auto}pre code{padding:0}\
figure{margin:1rem 0}figure svg,figure img{max-width:100%;height:auto;display:block;\
border:1px solid #ddd}figcaption{font-size:0.85rem;color:#444}\
@media (max-width:600px){body{padding:0.4rem}table{font-size:0.8rem}\
figure .scroll svg,figure .scroll img{min-width:640px}}";

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Bold and links inside text that holds no code span.
fn emphasis(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find("**") {
        let after = &rest[i + 2..];
        let Some(j) = after.find("**") else { break };
        out.push_str(&links(&rest[..i]));
        let _ = write!(out, "<strong>{}</strong>", links(&after[..j]));
        rest = &after[j + 2..];
    }
    out.push_str(&links(rest));
    out
}

/// `[text](url)` as a link to a relative or web address; anything else as text.
fn links(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find('[') {
        let tail = &rest[i..];
        let parsed = tail.find("](").and_then(|m| {
            let close = tail[m..].find(')')? + m;
            Some((&tail[1..m], &tail[m + 2..close], close))
        });
        match parsed {
            Some((text, url, close)) if !url.contains(char::is_whitespace) => {
                out.push_str(&escape(&rest[..i]));
                let _ = write!(out, "<a href=\"{}\">{}</a>", escape(url), escape(text));
                rest = &tail[close + 1..];
            }
            _ => {
                out.push_str(&escape(&rest[..i + 1]));
                rest = &rest[i + 1..];
            }
        }
    }
    out.push_str(&escape(rest));
    out
}

/// Inline Markdown: code spans, bold, links; everything else escaped.
pub fn inline(s: &str) -> String {
    if s.matches('`').count() % 2 == 1 {
        // An unpaired backtick: no code spans.
        return emphasis(s);
    }
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", escape(part));
        } else {
            out.push_str(&emphasis(part));
        }
    }
    out
}

/// Table cells of a `| a | b |` line (a `\|` stays in its cell).
fn cells(line: &str) -> Vec<String> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    let mut out = vec![String::new()];
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'|') {
            if let Some(s) = out.last_mut() {
                s.push('|');
            }
            chars.next();
        } else if c == '|' {
            out.push(String::new());
        } else {
            if let Some(s) = out.last_mut() {
                s.push(c);
            }
        }
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

fn is_separator(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('|') && t.contains('-') && t.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// A heading's anchor, as a Markdown link to it is written: "Missing and odd parts" is
/// `missing-and-odd-parts`.
pub fn anchor(heading: &str) -> String {
    heading
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
}

/// `![alt](src)` alone on a line.
fn image(line: &str) -> Option<(&str, &str)> {
    let t = line.trim().strip_prefix("![")?;
    let (alt, rest) = t.split_once("](")?;
    let src = rest.strip_suffix(')')?;
    Some((alt, src))
}

/// Markdown to HTML. `img(alt, src)` gives the HTML of a figure.
pub fn markdown(md: &str, img: &dyn Fn(&str, &str) -> String) -> String {
    let lines: Vec<&str> = md.lines().collect();
    let mut out = String::new();
    let mut para: Vec<&str> = Vec::new();
    let flush = |para: &mut Vec<&str>, out: &mut String| {
        if !para.is_empty() {
            let _ = writeln!(out, "<p>{}</p>", inline(&para.join(" ")));
            para.clear();
        }
    };
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_end();
        if t.trim().is_empty() {
            flush(&mut para, &mut out);
            i += 1;
            continue;
        }
        let mut written = String::new();
        if let Some(next) = block(&lines, i, img, &mut written) {
            // A block ends the paragraph before it.
            flush(&mut para, &mut out);
            out.push_str(&written);
            i = next;
        } else {
            para.push(t.trim());
            i += 1;
        }
    }
    flush(&mut para, &mut out);
    out
}

/// Writes the block (code, heading, image, table or list) that starts at line `i`, if one
/// does, and gives the index of the line after it.
fn block(
    lines: &[&str],
    i: usize,
    img: &dyn Fn(&str, &str) -> String,
    out: &mut String,
) -> Option<usize> {
    let t = lines[i].trim_end();
    if t.trim_start().starts_with("```") {
        return Some(code_block(lines, i, out));
    }
    let hashes = t.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
        let text = t[hashes..].trim();
        let _ = writeln!(
            out,
            "<h{hashes} id=\"{}\">{}</h{hashes}>",
            anchor(text),
            inline(text)
        );
        return Some(i + 1);
    }
    if let Some((alt, src)) = image(t) {
        out.push_str(&img(alt, src));
        return Some(i + 1);
    }
    if t.trim_start().starts_with('|') && i + 1 < lines.len() && is_separator(lines[i + 1]) {
        return Some(table(lines, i, out));
    }
    if bullet(t).is_some() && !t.starts_with("  ") {
        return Some(list(lines, i, out));
    }
    None
}

/// A fenced code block from line `i` (the fence) to the closing fence.
fn code_block(lines: &[&str], mut i: usize, out: &mut String) -> usize {
    let mut code = Vec::new();
    i += 1;
    while i < lines.len() && !lines[i].trim_start().starts_with("```") {
        code.push(lines[i]);
        i += 1;
    }
    let _ = writeln!(out, "<pre><code>{}</code></pre>", escape(&code.join("\n")));
    i + 1
}

/// A table from its head (line `i`) and separator line to its last `|` line; columns whose
/// separator ends in `:` are right-aligned.
fn table(lines: &[&str], mut i: usize, out: &mut String) -> usize {
    let head = cells(lines[i].trim_end());
    let right: Vec<bool> = cells(lines[i + 1])
        .iter()
        .map(|c| c.ends_with(':'))
        .collect();
    out.push_str("<div class=\"scroll\"><table>\n<tr>");
    for h in &head {
        let _ = write!(out, "<th>{}</th>", inline(h));
    }
    out.push_str("</tr>\n");
    i += 2;
    while i < lines.len() && lines[i].trim_start().starts_with('|') {
        out.push_str("<tr>");
        for (k, c) in cells(lines[i]).iter().enumerate() {
            let class = if right.get(k) == Some(&true) {
                " class=\"r\""
            } else {
                ""
            };
            let _ = write!(out, "<td{class}>{}</td>", inline(c));
        }
        out.push_str("</tr>\n");
        i += 1;
    }
    out.push_str("</table></div>\n");
    i
}

/// The text of a bullet line (`- ` or `* `), if it is one.
fn bullet(l: &str) -> Option<&str> {
    let l = l.trim_start();
    l.strip_prefix("- ").or_else(|| l.strip_prefix("* "))
}

/// A bullet list from line `i`; an item's continuation lines are indented.
fn list(lines: &[&str], mut i: usize, out: &mut String) -> usize {
    out.push_str("<ul>\n");
    while i < lines.len() {
        let Some(first) = bullet(lines[i]).filter(|_| !lines[i].starts_with("    ")) else {
            break;
        };
        let mut item = vec![first.to_string()];
        i += 1;
        while i < lines.len()
            && lines[i].starts_with("  ")
            && !lines[i].trim().is_empty()
            && bullet(lines[i]).is_none()
        {
            item.push(lines[i].trim().to_string());
            i += 1;
        }
        let _ = writeln!(out, "<li>{}</li>", inline(&item.join(" ")));
    }
    out.push_str("</ul>\n");
    i
}

/// A whole page around `body`.
pub fn page(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// The comparison page: `compare.md` with every figure inline (the SVG itself), so the page
/// stands alone; each figure also links to its file.
pub fn compare_page(md: &str, figures: &[(String, String)]) -> String {
    let img = |alt: &str, src: &str| match figures.iter().find(|(f, _)| f == src) {
        Some((f, svg)) => format!(
            "<figure>\n<div class=\"scroll\">\n{}</div>\n<figcaption><a href=\"{}\">{}</a></figcaption>\n</figure>\n",
            svg,
            escape(f),
            escape(f)
        ),
        None => format!("<p>{}</p>\n", escape(alt)),
    };
    let body = markdown(md, &img);
    let links = "<p>The same in other forms: <a href=\"compare.md\">compare.md</a>, \
                 <a href=\"compare.csv\">compare.csv</a>.</p>\n";
    page("machine-measured: comparison", &format!("{body}{links}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_constructs_the_tools_write() {
        let md = "# Title\n\nSome `code` and **bold** and [a link](x.csv).\n\n\
                  | a | b |\n|---|---:|\n| 1 \\| 2 | 3 |\n\n- one\n  two\n- three\n\n\
                  ```\n<raw>\n```\n![fig](f.svg)\n";
        let html = markdown(md, &|alt, src| {
            format!("<img alt=\"{alt}\" src=\"{src}\">\n")
        });
        assert!(html.contains("<h1 id=\"title\">Title</h1>"));
        assert!(html.contains("<code>code</code>"));
        assert!(html.contains("<strong>bold</strong>"));
        assert!(html.contains("<a href=\"x.csv\">a link</a>"));
        assert!(html.contains("<td>1 | 2</td><td class=\"r\">3</td>"));
        assert!(html.contains("<li>one two</li>"));
        assert!(html.contains("<li>three</li>"));
        assert!(html.contains("&lt;raw&gt;"));
        assert!(html.contains("<img alt=\"fig\" src=\"f.svg\">"));
        assert!(!html.contains("<raw>"));
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(inline("a < b & c"), "a &lt; b &amp; c");
        assert_eq!(inline("[x](y z)"), "[x](y z)");
    }
}
