//! The value list (`dashboard.showValues`, decision 0052): property paths whose old and
//! new values a row may show. A person writes it; nothing guesses it. An entry matches a
//! path written in the shared notation literally, but for `*`, which stands for any run
//! of characters inside one segment (never a `.`, `[` or `]`).
//!
//! Only an adapter holds values, so only an adapter asks the list: it splits the leaves
//! a change sets ([`crate::fingerprint::leaves`]) into the ones it shows (one-line
//! strings, numbers and booleans, shortened, never a secret's nor an unknown) and the
//! rest, which the value fingerprint covers. What a row shows joins the diff hash, so a
//! tick approves exactly the values it saw.

use serde_json::Value;

use crate::fingerprint::Entry;

/// A value longer than this, in characters, is shown as its head, `…` and its tail.
const LONGEST: usize = 40;
const HEAD: usize = 19;
const TAIL: usize = 20;

/// The words that make a path segment a credential's: a `*` in or below it would show
/// every value of the credential, so the list refuses one (issue 25).
const CREDENTIAL_WORDS: [&str; 6] = [
    "secret",
    "password",
    "passwd",
    "token",
    "credential",
    "privatekey",
];

/// One value a row shows: the path, and each side as text (`None`: nothing there).
#[derive(
    Debug,
    Clone,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
    schemars::JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct ShownValue {
    pub path: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

/// The paths whose values may show. Empty by default, and under `dashboard.redact`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ValueList {
    patterns: Vec<String>,
    any_path: bool,
}

impl ValueList {
    /// No path: nothing shows (the default, and `dashboard.redact`).
    pub const fn none() -> ValueList {
        ValueList {
            patterns: Vec::new(),
            any_path: false,
        }
    }

    /// The list `dashboard.showValues` writes; every entry passed [`judge`].
    pub fn new(patterns: impl IntoIterator<Item = String>) -> ValueList {
        ValueList {
            patterns: patterns.into_iter().collect(),
            any_path: false,
        }
    }

    /// A list that allows every path, which no configuration can write: the canary
    /// tests' way to prove a secret never shows even where a value may.
    pub fn any_path() -> ValueList {
        ValueList {
            patterns: Vec::new(),
            any_path: true,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty() && !self.any_path
    }

    pub fn allows(&self, path: &str) -> bool {
        self.any_path
            || self
                .patterns
                .iter()
                .any(|p| glob(p.as_bytes(), path.as_bytes()))
    }

    /// Splits the leaves a change sets into those its row shows and those the value
    /// fingerprint covers. A leaf shows when the list allows its path, it is no secret's,
    /// `unknown` does not say the tool learns it only at deploy time, and each side is a
    /// one-line string, a number, a boolean or nothing. Sorted by path.
    pub fn split(
        &self,
        entries: Vec<Entry>,
        unknown: &dyn Fn(&str) -> bool,
    ) -> (Vec<ShownValue>, Vec<Entry>) {
        if self.is_empty() {
            return (Vec::new(), entries);
        }
        let mut shown = Vec::new();
        let mut hidden = Vec::new();
        for entry in entries {
            match &entry {
                Entry::Value { path, old, new }
                    if self.allows(path) && !unknown(path) && showable(old) && showable(new) =>
                {
                    shown.push(ShownValue {
                        path: path.clone(),
                        old: old.as_ref().and_then(text),
                        new: new.as_ref().and_then(text),
                    });
                }
                _ => hidden.push(entry),
            }
        }
        shown.sort_by(|a, b| crate::diff::code_unit_order(&a.path, &b.path));
        (shown, hidden)
    }
}

/// `*` matches any run of bytes but `.`, `[` and `]`; everything else matches itself.
fn glob(pattern: &[u8], path: &[u8]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((b'*', rest)) => {
            let mut at = 0;
            loop {
                if glob(rest, &path[at..]) {
                    return true;
                }
                match path.get(at) {
                    Some(b'.' | b'[' | b']') | None => return false,
                    Some(_) => at += 1,
                }
            }
        }
        Some((byte, rest)) => path.first() == Some(byte) && glob(rest, &path[1..]),
    }
}

fn showable(side: &Option<Value>) -> bool {
    match side {
        None | Some(Value::Null | Value::Bool(_) | Value::Number(_)) => true,
        Some(Value::String(s)) => !s.contains(['\n', '\r']),
        Some(Value::Array(_) | Value::Object(_)) => false,
    }
}

fn text(value: &Value) -> Option<String> {
    let full = match value {
        Value::String(s) => s.clone(),
        Value::Bool(_) | Value::Number(_) => value.to_string(),
        Value::Null | Value::Array(_) | Value::Object(_) => return None,
    };
    Some(shorten(&full))
}

/// A value longer than 40 characters as its first 19, `…` and its last 20.
pub fn shorten(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= LONGEST {
        return text.to_owned();
    }
    let head: String = chars[..HEAD].iter().collect();
    let tail: String = chars[chars.len() - TAIL..].iter().collect();
    format!("{head}…{tail}")
}

/// What the list makes of one entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Fine,
    /// Refused: the entry would show too much.
    Refused(String),
    /// Accepted, but no adapter writes a path of this shape, so it shows nothing.
    NeverMatches(String),
}

/// Judges one entry of `dashboard.showValues`.
pub fn judge(entry: &str) -> Verdict {
    if entry.is_empty() || entry.contains("**") {
        return Verdict::Refused(
            "expected a property path; `*` may stand for part of one segment, but `**` or an empty entry would show every value".to_owned(),
        );
    }
    if entry.chars().all(|c| matches!(c, '*' | '.' | '[' | ']')) {
        return Verdict::Refused(
            "expected a property path with at least one name; made only of `*`, dots and brackets it would show every value".to_owned(),
        );
    }
    let Some(segments) = segments(entry) else {
        return Verdict::NeverMatches(format!(
            "no adapter writes a path like `{entry}`: paths read `spec.containers[0].image` or `metadata.labels[\"app.kubernetes.io/name\"]`, with `*` inside one segment"
        ));
    };
    let credential = segments.iter().position(|s| {
        let folded: String = s
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        CREDENTIAL_WORDS.iter().any(|w| folded.contains(w))
    });
    if let Some(at) = credential
        && segments[at..].iter().any(|s| s.contains('*'))
    {
        return Verdict::Refused(format!(
            "a `*` in or under `{}` would show a credential's values; name each path whole, or leave it out",
            segments[at]
        ));
    }
    Verdict::Fine
}

/// The segments of a pattern in the shared notation (`a.b[0]["c.d"][*]`, `*` allowed in
/// names and brackets), each as written; `None` when it is not that notation.
fn segments(entry: &str) -> Option<Vec<String>> {
    let bytes = entry.as_bytes();
    let mut found = Vec::new();
    let mut at = 0;
    let name = |from: usize| -> usize {
        let mut end = from;
        while end < bytes.len()
            && (bytes[end].is_ascii_alphanumeric() || matches!(bytes[end], b'_' | b'*'))
        {
            end += 1;
        }
        end
    };
    // The first segment is a bare name.
    let end = name(0);
    if end == 0 {
        return None;
    }
    found.push(entry[..end].to_owned());
    at = at.max(end);
    while at < bytes.len() {
        match bytes[at] {
            b'.' => {
                let end = name(at + 1);
                if end == at + 1 {
                    return None;
                }
                found.push(entry[at + 1..end].to_owned());
                at = end;
            }
            b'[' if bytes.get(at + 1) == Some(&b'"') => {
                let mut end = at + 2;
                let mut text = String::new();
                loop {
                    match bytes.get(end)? {
                        b'\\' => {
                            let c = entry.get(end + 1..)?.chars().next()?;
                            text.push(c);
                            end += 1 + c.len_utf8();
                        }
                        b'"' => break,
                        _ => {
                            let c = entry[end..].chars().next()?;
                            text.push(c);
                            end += c.len_utf8();
                        }
                    }
                }
                if bytes.get(end + 1) != Some(&b']') {
                    return None;
                }
                found.push(text);
                at = end + 2;
            }
            b'[' => {
                let close = at + entry[at..].find(']')?;
                let inside = &entry[at + 1..close];
                if inside.is_empty() || !inside.bytes().all(|b| b.is_ascii_digit() || b == b'*') {
                    return None;
                }
                found.push(inside.to_owned());
                at = close + 1;
            }
            _ => return None,
        }
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_star_stands_for_part_of_one_segment_and_nothing_more() {
        let list = ValueList::new([
            "spec.containers[*].image".to_owned(),
            "tags.*".to_owned(),
            "image*".to_owned(),
        ]);
        for (path, shown) in [
            ("spec.containers[0].image", true),
            ("spec.containers[12].image", true),
            ("spec.containers[0].imagePullPolicy", false),
            ("spec.initContainers[0].image", false),
            ("tags.env", true),
            ("tags.env.more", false),
            ("tags[\"a.b\"]", false),
            ("image", true),
            ("imageTag", true),
            ("images.x", false),
        ] {
            assert_eq!(list.allows(path), shown, "{path}");
        }
        assert!(!ValueList::default().allows("tags.env"));
        assert!(ValueList::any_path().allows("anything[\"at.all\"][3]"));
    }

    #[test]
    fn the_list_shows_one_line_scalars_shortened_and_leaves_the_rest_to_the_fingerprint() {
        let list = ValueList::new(["a.*".to_owned()]);
        let long = "x".repeat(50);
        let entries = vec![
            Entry::Value {
                path: "a.n".into(),
                old: Some(json!(1)),
                new: Some(json!(2)),
            },
            Entry::Value {
                path: "a.s".into(),
                old: None,
                new: Some(json!(long)),
            },
            Entry::Value {
                path: "a.lines".into(),
                old: None,
                new: Some(json!("one\ntwo")),
            },
            Entry::Value {
                path: "a.later".into(),
                old: Some(json!("x")),
                new: None,
            },
            Entry::Secret {
                path: "a.key".into(),
            },
            Entry::Value {
                path: "b.n".into(),
                old: Some(json!(true)),
                new: Some(json!(false)),
            },
        ];
        let (shown, hidden) = list.split(entries, &|path| path == "a.later");
        assert_eq!(
            shown,
            [
                ShownValue {
                    path: "a.n".into(),
                    old: Some("1".into()),
                    new: Some("2".into())
                },
                ShownValue {
                    path: "a.s".into(),
                    old: None,
                    new: Some(format!("{}…{}", "x".repeat(19), "x".repeat(20))),
                },
            ]
        );
        assert_eq!(
            hidden.len(),
            4,
            "a multi-line string, an unknown, a secret, a path not listed"
        );
    }

    #[test]
    fn an_entry_that_would_show_too_much_is_refused_and_one_no_adapter_writes_is_said() {
        for fine in [
            "spec.replicas",
            "metadata.labels[\"app.kubernetes.io/name\"]",
            "tags.*",
            "spec.containers[*].image",
            "data.*",
            "secretName",
            "auth.passwordPolicy",
        ] {
            assert_eq!(judge(fine), Verdict::Fine, "{fine}");
        }
        for refused in [
            "",
            "*",
            "**",
            "a.**",
            "*.*",
            "[*]",
            "secrets.*",
            "db.password*",
            "spec.*Token",
            "credentials[*].value",
        ] {
            assert!(matches!(judge(refused), Verdict::Refused(_)), "{refused}");
        }
        for odd in [
            ".a", "a.", "a..b", "a[", "a[x]", "a b", "a-b", "a[\"x\"", "[0].a",
            // An escape before a character of more than one byte (found by fuzzing).
            "m[\"\\é",
        ] {
            assert!(matches!(judge(odd), Verdict::NeverMatches(_)), "{odd}");
        }
    }
}
