//! Names on the dashboard are the user's text: stack ids, resource names, logins. They
//! are written so that GitHub shows them as they are and never turns them into markup, a
//! link, a mention or an issue reference (which would even tick a task when that issue
//! closes).

/// Escapes text for a row: Markdown and HTML characters become entities, and `#`, `@`,
/// `GH-`, `www.` and `://` are defused.
pub fn text(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut previous: [char; 3] = ['\0'; 3];
    for (i, c) in name.char_indices() {
        let rest = &name[i..];
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '[' => out.push_str("&#91;"),
            ']' => out.push_str("&#93;"),
            '*' => out.push_str("&#42;"),
            '_' => out.push_str("&#95;"),
            '`' => out.push_str("&#96;"),
            '~' => out.push_str("&#126;"),
            '|' => out.push_str("&#124;"),
            '\\' => out.push_str("&#92;"),
            '#' => out.push_str("&#35;"),
            '@' => out.push_str("&#64;"),
            ':' if rest.starts_with("://") => out.push_str("&#58;"),
            '-' if previous[1..] == ['G', 'H'] => out.push_str("&#45;"),
            '.' if previous == ['w', 'w', 'w'] => out.push_str("&#46;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
        previous = [previous[1], previous[2], c];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_mentions_and_references_stay_plain() {
        assert_eq!(text("apps/web:prod"), "apps/web:prod");
        assert_eq!(text("fix #12 @alice"), "fix &#35;12 &#64;alice");
        assert_eq!(text("GH-7 www.example.com"), "GH&#45;7 www&#46;example.com");
        assert_eq!(
            text("https://x.invalid/a_b"),
            "https&#58;//x.invalid/a&#95;b"
        );
        assert_eq!(text("renovate[bot]"), "renovate&#91;bot&#93;");
        assert_eq!(text("<b>*x*</b>"), "&lt;b&gt;&#42;x&#42;&lt;/b&gt;");
        assert_eq!(text("a\nb"), "a b");
    }
}
