//! Markers: the machine contract of the body.
//!
//! HTML comments `<!-- sluiceway:<kind> key="value" … -->` that GitHub does not show.
//! Values are percent-encoded for `%`, `"`, `<`, `>`, bytes up to 0x20 and 0x7F, and
//! nothing else, so a marker can never close early or break a line. Keys are written in
//! a fixed order, so the same facts give the same bytes; readers ignore order and
//! unknown keys.

use std::fmt::Write as _;

const OPEN: &str = "<!-- sluiceway:";
const CLOSE: &str = " -->";

/// One marker: its kind and its keys, in the order they were given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Marker {
    pub kind: String,
    pub keys: Vec<(String, String)>,
}

impl Marker {
    pub fn new(kind: &str) -> Marker {
        Marker {
            kind: kind.to_owned(),
            keys: Vec::new(),
        }
    }

    /// Adds a key; empty values are left out (an absent key is its default).
    pub fn with(mut self, key: &str, value: impl Into<String>) -> Marker {
        let value = value.into();
        if !value.is_empty() {
            self.keys.push((key.to_owned(), value));
        }
        self
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.keys
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    pub fn render(&self) -> String {
        let mut out = format!("{OPEN}{}", self.kind);
        for (key, value) in &self.keys {
            let _ = write!(out, " {key}=\"{}\"", encode(value));
        }
        out.push_str(CLOSE);
        out
    }

    /// The marker a line ends with, if it ends with one.
    pub fn at_end_of(line: &str) -> Option<Marker> {
        let line = line.trim_end();
        let body = line.strip_suffix("-->")?;
        let start = body.rfind(OPEN)?;
        Marker::parse(&body[start + OPEN.len()..])
    }

    /// Reads `kind key="value" …` (what lies between `<!-- sluiceway:` and `-->`).
    fn parse(inner: &str) -> Option<Marker> {
        let inner = inner.trim_end();
        let (kind, mut rest) = match inner.find(' ') {
            Some(i) => (&inner[..i], &inner[i..]),
            None => (inner, ""),
        };
        if kind.is_empty()
            || !kind
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '/')
        {
            return None;
        }
        let mut marker = Marker::new(kind);
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                return Some(marker);
            }
            let (key, after) = rest.split_once("=\"")?;
            let (value, after) = after.split_once('"')?;
            if key.is_empty() || key.contains(char::is_whitespace) {
                return None;
            }
            marker.keys.push((key.to_owned(), decode(value)?));
            rest = after;
        }
    }
}

fn needs_encoding(byte: u8) -> bool {
    matches!(byte, b'%' | b'"' | b'<' | b'>') || byte <= 0x20 || byte == 0x7f
}

pub fn encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for ch in value.chars() {
        match u8::try_from(ch) {
            Ok(byte) if needs_encoding(byte) => {
                let _ = write!(out, "%{byte:02X}");
            }
            _ => out.push(ch),
        }
    }
    out
}

/// Percent-decoding; `None` for a broken escape or bytes that are not UTF-8.
pub fn decode(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = value.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Joins ids into a marker list: a comma inside an id is encoded, and `%` before it.
pub fn join_list(items: &[String]) -> String {
    items
        .iter()
        .map(|i| i.replace('%', "%25").replace(',', "%2C"))
        .collect::<Vec<_>>()
        .join(",")
}

pub fn split_list(value: &str) -> Vec<String> {
    if value.is_empty() {
        return Vec::new();
    }
    value
        .split(',')
        .map(|i| i.replace("%2C", ",").replace("%25", "%"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_marker_form() {
        let marker = Marker::new("row")
            .with("stack", "apps/web:prod")
            .with("state", "pending")
            .with("hash", "")
            .with("note", "a \"b\" <c> 100%");
        assert_eq!(
            marker.render(),
            r#"<!-- sluiceway:row stack="apps/web:prod" state="pending" note="a%20%22b%22%20%3Cc%3E%20100%25" -->"#
        );
        let line = format!("- [ ] **apps/web:prod** · 1 update {}", marker.render());
        assert_eq!(Marker::at_end_of(&line), Some(marker));
    }

    #[test]
    fn broken_markers_are_not_markers() {
        assert_eq!(
            Marker::at_end_of("text <!-- sluiceway:row stack=\"a -->"),
            None
        );
        assert_eq!(
            Marker::at_end_of("text <!-- sluiceway:row stack=\"%G1\" -->"),
            None
        );
        assert_eq!(Marker::at_end_of("<!-- other:row -->"), None);
        assert_eq!(
            Marker::at_end_of("<!-- sluiceway:rescan -->").map(|m| m.kind),
            Some("rescan".to_owned())
        );
    }

    #[test]
    fn lists_keep_commas_inside_ids() {
        let ids = vec!["a,b".to_owned(), "c%d".to_owned(), "e".to_owned()];
        assert_eq!(join_list(&ids), "a%2Cb,c%25d,e");
        assert_eq!(split_list(&join_list(&ids)), ids);
    }

    proptest! {
        #[test]
        fn any_value_round_trips(value in "\\PC*|[ \"<>%\t\n\u{7f}é€😀]*") {
            let encoded = encode(&value);
            prop_assert!(!encoded.contains(['"', '<', '>', ' ', '\n']));
            prop_assert_eq!(decode(&encoded), Some(value));
        }
    }
}
