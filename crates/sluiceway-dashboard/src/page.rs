//! A dashboard body as HTML, rendered as GitHub renders an issue: the whole page
//! `dashboard html` prints and a local scan writes beside the body, and the content
//! alone, which the console's repository page sets in its own layout. Pure: comrak
//! renders, and the header pictures are embedded, so nothing is fetched.

use crate::pictures;

/// The page for a body, rendered as GitHub renders an issue: task-list boxes on their
/// row's line, emoji shortcodes, alerts, and a line break wherever the body has one (an
/// issue is not a document: GitHub keeps its newlines). With `pictures`, the header pictures served
/// from that base address are embedded, so the page needs no network.
pub fn page(body: &str, title: &str, pictures: Option<&str>) -> String {
    let content = content(body, pictures);
    let title = title.replace('&', "&amp;").replace('<', "&lt;");
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n<style>\n{PAGE_STYLE}\n{STYLE}\n</style>\n</head>\n<body>\n<main>\n{content}</main>\n</body>\n</html>\n"
    )
}

/// The body's HTML alone, its pictures embedded from `pictures` when given.
pub fn content(body: &str, pictures: Option<&str>) -> String {
    let mut options = comrak::Options::default();
    options.extension.table = true;
    options.extension.tasklist = true;
    options.extension.strikethrough = true;
    options.extension.autolink = true;
    options.extension.shortcodes = true;
    options.extension.alerts = true;
    options.render.tasklist_classes = true;
    options.render.r#unsafe = true;
    options.render.hardbreaks = true;
    let mut content = comrak::markdown_to_html(body, &options);
    if let Some(base) = pictures {
        for (name, svg) in pictures::all() {
            let address = format!("{base}/{name}");
            if content.contains(&address) {
                content = content.replace(&address, &data_address(&svg));
            }
        }
    }
    content
}

/// Where a body's header pictures are served from: the address before `/<name>` of the
/// first picture it shows, whatever release or fork wrote it. `None` when it shows none.
pub fn pictures_base(body: &str) -> Option<&str> {
    pictures::all().iter().find_map(|(name, _)| {
        let end = body.find(&format!("/{name}\""))?;
        let start = body[..end].rfind('"')? + 1;
        Some(&body[start..end])
    })
}

/// An SVG as a `data:` address; percent-encoded so it stays readable in the page. Spaces
/// and commas are encoded too: a `srcset` (the dark picture's `<source>`) splits its
/// candidates at them, and would drop the picture.
fn data_address(svg: &str) -> String {
    let mut out = String::from("data:image/svg+xml;charset=utf-8,");
    for c in svg.chars() {
        match c {
            '%' => out.push_str("%25"),
            '#' => out.push_str("%23"),
            '"' => out.push_str("%22"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            ' ' | '\n' | '\r' | '\t' => out.push_str("%20"),
            ',' => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

/// The whole page's own rules: its font, its width and its ground.
const PAGE_STYLE: &str = "body { font-family: -apple-system, 'Segoe UI', 'Noto Sans', Helvetica, Arial, sans-serif, 'Apple Color Emoji', 'Noto Color Emoji'; line-height: 1.5; color: #1f2328; background: #fff; }
main { max-width: 980px; margin: 2rem auto; padding: 0 1rem; }
@media (prefers-color-scheme: dark) { body { color: #f0f6fc; background: #0d1117; } }";

/// The content's rules, as GitHub draws an issue: the task list, alerts, code.
pub const STYLE: &str = "img { max-width: 100%; }
code { background: #eff1f3; border-radius: 4px; padding: 0.1em 0.3em; font-size: 85%; }
kbd { border: 1px solid #d1d9e0; border-radius: 4px; padding: 0 0.3em; font-size: 80%; }
details { margin: 0.2em 0; } summary { cursor: pointer; }
ul.contains-task-list { list-style: none; padding-left: 0; }
li.task-list-item { list-style: none; }
li.task-list-item > p:first-of-type { display: inline; }
li.task-list-item > input.task-list-item-checkbox { margin: 0 0.3em 0.2em -1.4em; vertical-align: middle; }
ul.contains-task-list > li.task-list-item { margin-left: 1.4em; }
blockquote { border-left: 0.25em solid #d1d9e0; margin: 0; padding: 0 1em; color: #59636e; }
.markdown-alert { border-left: 0.25em solid #d1d9e0; padding: 0.5rem 1rem; margin-bottom: 1rem; }
.markdown-alert > p.markdown-alert-title { font-weight: 500; margin: 0; }
.markdown-alert-caution { border-left-color: #cf222e; } .markdown-alert-caution > .markdown-alert-title { color: #d1242f; }
.markdown-alert-warning { border-left-color: #9a6700; } .markdown-alert-warning > .markdown-alert-title { color: #9a6700; }
.markdown-alert-note { border-left-color: #0969da; } .markdown-alert-note > .markdown-alert-title { color: #0969da; }
table { border-collapse: collapse; } td, th { border: 1px solid #d1d9e0; padding: 4px 8px; }
@media (prefers-color-scheme: dark) { code { background: #262c36; } a { color: #4493f8; } }";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rows_second_line_is_a_line_of_its_own() {
        let html = page(
            "- [ ] **web** · 1 update\n  not deployed from this dashboard yet\n",
            "x",
            None,
        );
        assert!(html.contains("1 update<br />"), "{html}");
    }

    #[test]
    fn the_pictures_base_is_read_from_the_body() {
        let (name, _) = &pictures::all()[0];
        let body =
            format!("<img alt=\"\" src=\"https://example.invalid/fork/v9/assets/header/{name}\">");
        assert_eq!(
            pictures_base(&body),
            Some("https://example.invalid/fork/v9/assets/header")
        );
        assert_eq!(pictures_base("no pictures here"), None);
    }

    #[test]
    fn pictures_are_embedded_from_their_base_address() {
        let base = "https://example.invalid/v1/assets/header";
        let body = format!("<img src=\"{base}/in-sync-light.svg\">");
        let html = page(&body, "x", Some(base));
        assert!(!html.contains(base));
        assert!(html.contains("src=\"data:image/svg+xml;charset=utf-8,%3Csvg"));
    }

    #[test]
    fn an_embedded_picture_is_one_srcset_candidate() {
        let base = "https://example.invalid/v1/assets/header";
        let body = format!("<picture><source srcset=\"{base}/in-sync-dark.svg\"></picture>");
        let html = page(&body, "x", Some(base));
        let address = html
            .split("srcset=\"")
            .nth(1)
            .and_then(|rest| rest.split('"').next())
            .unwrap();
        let after_prefix = address.trim_start_matches("data:image/svg+xml;charset=utf-8,");
        assert!(
            !after_prefix.contains([' ', ',']),
            "a space or a comma would split the candidate: {address}"
        );
    }
}
