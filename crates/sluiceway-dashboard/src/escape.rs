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

/// Reads back a name [`text`] wrote: its entities become the characters they stand for.
/// Exact for every name without a line break, which `text` turns into a space.
pub fn unescape(written: &str) -> String {
    let mut out = String::with_capacity(written.len());
    let mut rest = written;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let entity = rest.find(';').map(|end| &rest[..=end]);
        let character = entity.and_then(|entity| match entity {
            "&amp;" => Some('&'),
            "&lt;" => Some('<'),
            "&gt;" => Some('>'),
            "&quot;" => Some('"'),
            _ => entity
                .strip_prefix("&#")
                .and_then(|n| n.strip_suffix(';'))
                .and_then(|n| n.parse::<u32>().ok())
                .and_then(char::from_u32),
        });
        match (entity, character) {
            (Some(entity), Some(c)) => {
                out.push(c);
                rest = &rest[entity.len()..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn a_name_without_a_line_break_reads_back_as_written(name in "[^\\n\\r]{0,40}") {
            prop_assert_eq!(unescape(&text(&name)), name);
        }

        #[test]
        fn names_that_look_like_entities_read_back_too(
            name in "(&|#|;|[0-9]|amp|lt|gt|quot|GH-|www\\.|://|_| ){0,12}"
        ) {
            prop_assert_eq!(unescape(&text(&name)), name);
        }
    }

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
