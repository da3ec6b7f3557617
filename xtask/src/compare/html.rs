//! Static HTML pages: the comparison's `index.html`, and the converter one run's page uses
//! too (`run_all::page`).
//!
//! One file each, no JavaScript, no server, nothing fetched from the network: the page reads
//! the same offline, from a USB stick or a phone. The text is the Markdown the tools already
//! write (`compare.md`, `summary.md`), turned into HTML by `pulldown-cmark` (CommonMark with
//! its tables); this module adds only what the page needs around it: heading ids, tables that
//! scroll sideways, figures in place of images, and the page itself.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd, html};

const STYLE: &str = "body{font-family:system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;\
line-height:1.45;margin:0 auto;padding:0.75rem;max-width:70rem;color:#111}\
h1{font-size:1.5rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ccc}\
h3{font-size:1.05rem;margin-top:1.5rem}\
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}\
table{border-collapse:collapse;font-size:0.9rem;margin:0.5rem 0}\
th,td{border:1px solid #ccc;padding:0.25rem 0.5rem;vertical-align:top}\
th{background:#f3f3f3;text-align:left}td[style*=right]{white-space:nowrap}\
code{font-size:0.9em;background:#f5f5f5;padding:0 0.2em;overflow-wrap:anywhere}\
pre{background:#f5f5f5;padding:0.5rem;overflow-x:auto}pre code{padding:0}\
figure{margin:1rem 0}figure svg,figure img{max-width:100%;height:auto;display:block;\
border:1px solid #ddd}figcaption{font-size:0.85rem;color:#444}\
@media (max-width:600px){body{padding:0.4rem}table{font-size:0.8rem}\
figure .scroll svg,figure .scroll img{min-width:640px}}";

/// Text made safe for an element or a quoted attribute the page itself writes (a title, a
/// caption, a file name).
pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Inline Markdown (a heading's text, say) to HTML: code spans, emphasis, links.
pub fn inline(s: &str) -> String {
    // Read as a heading, so that nothing in `s` can start a list or a block.
    let md = format!("# {}", s.replace('\n', " "));
    let events = Parser::new(&md).map(as_text).filter(|e| {
        !matches!(
            e,
            Event::Start(Tag::Heading { .. }) | Event::End(TagEnd::Heading(_))
        )
    });
    let mut out = String::new();
    html::push_html(&mut out, events);
    out
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

/// The tools write no HTML into their Markdown: a `<dir>` in the text is text.
fn as_text(e: Event<'_>) -> Event<'_> {
    match e {
        Event::Html(s) | Event::InlineHtml(s) => Event::Text(s),
        e => e,
    }
}

/// The text of the events up to the end of the element they are in, as a reader sees it.
fn plain(events: &[Event<'_>]) -> String {
    let mut out = String::new();
    for e in events {
        match e {
            Event::Text(t) | Event::Code(t) => out.push_str(t),
            Event::SoftBreak | Event::HardBreak => out.push(' '),
            _ => {}
        }
    }
    out
}

/// An image alone in a paragraph that starts at `events[i]`: its alt text, its address and
/// the index after the paragraph's end.
fn lone_image(events: &[Event<'_>], i: usize) -> Option<(String, String, usize)> {
    if events[i] != Event::Start(Tag::Paragraph) {
        return None;
    }
    let Some(Event::Start(Tag::Image { dest_url, .. })) = events.get(i + 1) else {
        return None;
    };
    let inner = &events[i + 2..];
    let close = i + 2 + inner.iter().position(|e| *e == Event::End(TagEnd::Image))?;
    (events.get(close + 1) == Some(&Event::End(TagEnd::Paragraph))).then(|| {
        (
            plain(&events[i + 2..close]),
            dest_url.to_string(),
            close + 2,
        )
    })
}

/// `events[i]` as the page shows it: a heading with its anchor for an id, a table inside a
/// box that scrolls sideways on a narrow screen; anything else as it is.
fn dressed<'a>(events: &[Event<'a>], i: usize) -> Vec<Event<'a>> {
    match &events[i] {
        Event::Start(Tag::Heading { level, .. }) => {
            let rest = &events[i..];
            let end = rest
                .iter()
                .position(|e| matches!(e, Event::End(TagEnd::Heading(_))));
            vec![Event::Start(Tag::Heading {
                level: *level,
                id: Some(anchor(&plain(&rest[..end.unwrap_or(0)])).into()),
                classes: Vec::new(),
                attrs: Vec::new(),
            })]
        }
        Event::Start(Tag::Table(_)) => {
            vec![
                Event::Html("<div class=\"scroll\">".into()),
                events[i].clone(),
            ]
        }
        Event::End(TagEnd::Table) => vec![events[i].clone(), Event::Html("</div>\n".into())],
        e => vec![e.clone()],
    }
}

/// Markdown (CommonMark with tables) to HTML: headings get the ids [`anchor`] gives, and an
/// image alone in its paragraph is what `img(alt, src)` makes of it (a figure).
pub fn markdown(md: &str, img: &dyn Fn(&str, &str) -> String) -> String {
    let events: Vec<Event> = Parser::new_ext(md, Options::ENABLE_TABLES)
        .map(as_text)
        .collect();
    let mut out: Vec<Event> = Vec::with_capacity(events.len());
    let mut i = 0;
    while i < events.len() {
        if let Some((alt, src, next)) = lone_image(&events, i) {
            out.push(Event::Html(img(&alt, &src).into()));
            i = next;
        } else {
            out.extend(dressed(&events, i));
            i += 1;
        }
    }
    let mut text = String::new();
    html::push_html(&mut text, out.into_iter());
    text
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

    fn figure(alt: &str, src: &str) -> String {
        format!("<figure data-src=\"{src}\">{alt}</figure>\n")
    }

    #[test]
    fn the_constructs_the_tools_write() {
        let md = "# Missing and odd parts\n\nSome `code` and **bold** and [a link](x.csv).\n\n\
                  | a | b |\n|---|---:|\n| 1 \\| 2 | 3 |\n\n- one\n  two\n- three\n\n\
                  ```\n<raw>\n```\n\n![fig](f.svg)\n";
        let html = markdown(md, &figure);
        assert!(html.contains("<h1 id=\"missing-and-odd-parts\">Missing and odd parts</h1>"));
        assert!(html.contains("<code>code</code>"));
        assert!(html.contains("<strong>bold</strong>"));
        assert!(html.contains("<a href=\"x.csv\">a link</a>"));
        // A table, in a box that scrolls, the escaped pipe inside its cell, the
        // right-aligned column marked so.
        assert!(html.contains("<div class=\"scroll\"><table><thead><tr><th>a</th>"));
        assert!(html.contains("<td>1 | 2</td><td style=\"text-align: right\">3</td>"));
        assert!(html.contains("</table>\n</div>"));
        assert!(html.contains("<li>one\ntwo</li>"));
        assert!(html.contains("<li>three</li>"));
        assert!(html.contains("<pre><code>&lt;raw&gt;\n</code></pre>"));
        // An image alone in its paragraph is the caller's figure, with no <p> around it.
        assert!(html.contains("<figure data-src=\"f.svg\">fig</figure>"));
        assert!(!html.contains("<p><figure") && !html.contains("<img"));
        assert!(!html.contains("<raw>"));
    }

    #[test]
    fn text_is_escaped_and_never_html() {
        let html = markdown(
            "| a < b | c & d |\n|---|---|\n| <b>x</b> | 1 & 2 |\n",
            &figure,
        );
        assert!(
            html.contains("<th>a &lt; b</th><th>c &amp; d</th>"),
            "{html}"
        );
        assert!(
            html.contains("<td>&lt;b&gt;x&lt;/b&gt;</td><td>1 &amp; 2</td>"),
            "{html}"
        );
        let html = markdown(
            "<div>\nraw\n</div>\n\nin `<experiment>.txt` or <dir>\n",
            &figure,
        );
        assert!(!html.contains("<div>") && !html.contains("<dir>"), "{html}");
        assert!(
            html.contains("<code>&lt;experiment&gt;.txt</code> or &lt;dir&gt;"),
            "{html}"
        );
    }

    #[test]
    fn an_image_in_running_text_is_no_figure() {
        let html = markdown("See ![fig](f.svg) here.\n", &figure);
        assert!(!html.contains("<figure"), "{html}");
        assert!(html.contains("<img src=\"f.svg\" alt=\"fig\""), "{html}");
    }

    #[test]
    fn inline_text_has_no_block_around_it() {
        assert_eq!(inline("a < b & `c`"), "a &lt; b &amp; <code>c</code>");
        assert_eq!(inline("- [x](y.md)"), "- <a href=\"y.md\">x</a>");
        assert_eq!(inline("[x](y z)"), "[x](y z)");
        assert_eq!(
            anchor("Table 105.26 on this machine"),
            "table-105-26-on-this-machine"
        );
    }
}
