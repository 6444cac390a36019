//! The block layout kubectl writes objects in, read line by line.
//!
//! kubectl dumps every object of a diff through go-yaml: block mappings and sequences,
//! one key or item per line, single-line scalars, and literal blocks for text with line
//! breaks. A diff of thousands of objects spends most of its reading time in YAML, and a
//! reader that knows only this layout is several times quicker than a parser that must
//! know all of YAML.
//!
//! The reader is a fast path, never a second opinion: anything outside the layout (a
//! flow collection other than `{}` and `[]`, an anchor, a tag, a comment, a blank line
//! outside a literal block, a scalar over several lines, an escape, a character outside
//! printable ASCII) answers `None`, and the caller reads the text with the general
//! parser. Where this reader does answer, the answer is the general parser's, scalars
//! resolved by the very same YAML 1.2 core schema; unit tests, the recordings, a property
//! test and a fuzz target hold the two together (ADR 0040).

use std::borrow::Cow;

use saphyr::{Scalar, ScalarStyle};
use serde_json::{Map, Value};

use super::objects::resolved;

/// The longest key this reader takes. YAML lets an implicit key span at most 1024
/// characters, and the general parser refuses a longer one.
const LONGEST_KEY: usize = 1000;

/// One line of the text: its leading spaces counted, the rest kept.
#[derive(Clone, Copy)]
struct Line<'a> {
    indent: usize,
    /// The line without its leading spaces.
    text: &'a str,
    /// The whole line, which a literal block's content keeps its deeper spaces from.
    whole: &'a str,
}

/// The one mapping a side holds, when the text is entirely in kubectl's block layout;
/// `None` when anything is not, for the general parser to read.
pub fn read(text: &str) -> Option<Value> {
    read_lines(text.strip_suffix('\n')?.split('\n'))
}

/// What [`read`] answers for the text of these lines, each ended by a line break: the
/// sides of a hunk are read where they lie in the diff, never copied out.
pub fn read_lines<'a>(text: impl IntoIterator<Item = &'a str>) -> Option<Value> {
    let text = text.into_iter();
    let mut lines = Vec::with_capacity(text.size_hint().0);
    for whole in text {
        if !whole.bytes().all(|b| (b' '..=b'~').contains(&b)) || whole.ends_with(' ') {
            return None;
        }
        let text = whole.trim_start_matches(' ');
        let indent = whole.len() - text.len();
        if indent == 0 && (text.starts_with("---") || text.starts_with("...")) {
            return None;
        }
        lines.push(Line {
            indent,
            text,
            whole,
        });
    }
    if lines.first()?.indent != 0 {
        return None;
    }
    Reader { lines, at: 0 }.mapping(0)
}

struct Reader<'a> {
    lines: Vec<Line<'a>>,
    /// The next line to read.
    at: usize,
}

/// What a line's text (or the rest of it after a sequence's `- `) starts.
enum Start<'a> {
    /// `key: rest`, or `key:` with an empty rest.
    Entry(Cow<'a, str>, &'a str),
    /// A scalar and nothing more.
    Scalar,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<Line<'a>> {
        self.lines.get(self.at).copied()
    }

    /// A block mapping whose keys stand at `indent`, its first line the next one.
    fn mapping(&mut self, indent: usize) -> Option<Value> {
        let mut map = Map::new();
        while let Some(line) = self.peek() {
            if line.indent < indent {
                break;
            }
            if line.indent > indent || line.text.is_empty() || is_item(line.text) {
                return None;
            }
            let Start::Entry(key, rest) = start(line.text)? else {
                return None;
            };
            self.at += 1;
            let value = self.value_of_key(indent, rest)?;
            map.insert(key.into_owned(), value);
        }
        Some(Value::Object(map))
    }

    /// A key's value: on the key's own line, or below it when the line ends at the key.
    fn value_of_key(&mut self, indent: usize, rest: &str) -> Option<Value> {
        if !rest.is_empty() {
            return self.value_on_line(indent, rest);
        }
        match self.peek() {
            Some(next) if next.indent == indent && is_item(next.text) => self.sequence(indent),
            _ => self.value_below(indent),
        }
    }

    /// A node that begins on the lines below one at `indent`, or null when none does.
    fn value_below(&mut self, indent: usize) -> Option<Value> {
        match self.peek() {
            Some(next) if next.indent > indent && !next.text.is_empty() => {
                if is_item(next.text) {
                    self.sequence(next.indent)
                } else {
                    self.mapping(next.indent)
                }
            }
            _ => plain(""),
        }
    }

    /// A value written on the line of its key or item (already taken): a scalar, or the
    /// header of a literal block whose content follows.
    fn value_on_line(&mut self, indent: usize, text: &str) -> Option<Value> {
        match text {
            "|" => self.literal(indent, Chomping::Clip),
            "|-" => self.literal(indent, Chomping::Strip),
            _ => scalar(text),
        }
    }

    /// A block sequence whose items' dashes stand at `indent`, its first line the next.
    fn sequence(&mut self, indent: usize) -> Option<Value> {
        let mut items = Vec::new();
        while let Some(line) = self.peek() {
            if line.indent < indent || (line.indent == indent && !is_item(line.text)) {
                break;
            }
            if line.indent > indent {
                return None;
            }
            let content = line.text[1..].trim_start_matches(' ');
            let column = indent + line.text.len() - content.len();
            let item = if content.is_empty() {
                self.at += 1;
                self.value_below(indent)?
            } else if is_item(content) {
                // `- - item` opens a sequence whose dashes stand where the inner one does.
                self.open_at(column, content, line.whole);
                self.sequence(column)?
            } else if let Start::Entry(..) = start(content)? {
                // `- key: value` opens a mapping whose keys stand where this key does.
                self.open_at(column, content, line.whole);
                self.mapping(column)?
            } else {
                self.at += 1;
                self.value_on_line(indent, content)?
            };
            items.push(item);
        }
        Some(Value::Array(items))
    }

    /// Reads the rest of an item's line, after its dash, as a line of its own that
    /// starts at `column`, where the collection it opens stands.
    fn open_at(&mut self, column: usize, text: &'a str, whole: &'a str) {
        self.lines[self.at] = Line {
            indent: column,
            text,
            whole,
        };
    }

    /// A literal block's content, the lines below its header (already taken) that are
    /// indented deeper than `indent`, and the empty lines among and after them.
    fn literal(&mut self, indent: usize, chomping: Chomping) -> Option<Value> {
        let mut content_indent = None;
        let mut text = String::new();
        while let Some(line) = self.peek() {
            if !line.text.is_empty() {
                let deep_enough = match content_indent {
                    None if line.indent > indent => *content_indent.insert(line.indent),
                    None => break,
                    Some(at) => at,
                };
                if line.indent < deep_enough {
                    break;
                }
                text.push_str(&line.whole[deep_enough..]);
            }
            text.push('\n');
            self.at += 1;
        }
        content_indent?;
        text.truncate(text.trim_end_matches('\n').len());
        if chomping == Chomping::Clip {
            text.push('\n');
        }
        Some(Value::String(text))
    }
}

/// What a literal block keeps of its final line breaks: one (`|`) or none (`|-`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomping {
    Clip,
    Strip,
}

/// A line that is an item of a block sequence.
fn is_item(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// Whether a text starts a mapping entry or is a scalar; `None` when it is neither in
/// kubectl's layout.
fn start(text: &str) -> Option<Start<'_>> {
    let (key, after) = match text.as_bytes()[0] {
        b'\'' => single_quoted(text)?,
        b'"' => double_quoted(text)?,
        _ => {
            let Some(colon) = key_end(text) else {
                return Some(Start::Scalar);
            };
            let key = &text[..colon];
            if !is_plain(key) || key.ends_with(':') {
                return None;
            }
            (Cow::Borrowed(key), &text[colon..])
        }
    };
    if after.is_empty() {
        return Some(Start::Scalar);
    }
    if text.len() - after.len() > LONGEST_KEY {
        return None;
    }
    let rest = after.strip_prefix(':')?;
    let rest = if rest.is_empty() {
        rest
    } else {
        rest.strip_prefix(' ')?.trim_start_matches(' ')
    };
    Some(Start::Entry(key, rest))
}

/// A scalar that is all of the text: quoted, plain, or an empty flow collection.
fn scalar(text: &str) -> Option<Value> {
    match text {
        "{}" => Some(Value::Object(Map::new())),
        "[]" => Some(Value::Array(Vec::new())),
        _ => match text.as_bytes()[0] {
            b'\'' | b'"' => {
                let (value, after) = if text.starts_with('\'') {
                    single_quoted(text)?
                } else {
                    double_quoted(text)?
                };
                after.is_empty().then(|| Value::String(value.into_owned()))
            }
            _ if is_plain(text) && key_end(text).is_none() => plain(text),
            _ => None,
        },
    }
}

/// A plain scalar resolved as the general parser resolves one.
fn plain(text: &str) -> Option<Value> {
    Scalar::parse_from_cow_and_metadata(Cow::Borrowed(text), ScalarStyle::Plain, None).map(resolved)
}

/// Text that reads as one plain scalar of its own: not starting with an indicator, and
/// holding no comment. (A value is also checked for `: `, which a key cannot hold.)
fn is_plain(text: &str) -> bool {
    let bytes = text.as_bytes();
    let starts_well = match bytes.first() {
        None => false,
        Some(b'-') => bytes.get(1).is_some_and(|&b| b != b' '),
        Some(first) => !b"?:,[]{}#&*!|>'\"%@`".contains(first),
    };
    starts_well && !bytes.windows(2).any(|pair| pair == b" #") && !text.ends_with(' ')
}

/// Where a plain key would end: at the first `:` followed by a space or by nothing.
fn key_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    (0..bytes.len())
        .find(|&i| bytes[i] == b':' && bytes.get(i + 1).is_none_or(|&next| next == b' '))
}

/// `'…'` on one line, `''` standing for a quote; the value and what follows it.
fn single_quoted(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let mut value = String::new();
    let mut rest = &text[1..];
    loop {
        let quote = rest.find('\'')?;
        value.push_str(&rest[..quote]);
        rest = &rest[quote + 1..];
        match rest.strip_prefix('\'') {
            Some(after) => {
                value.push('\'');
                rest = after;
            }
            None => return Some((Cow::Owned(value), rest)),
        }
    }
}

/// `"…"` on one line without escapes; the value and what follows it.
fn double_quoted(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let quote = text[1..].find('"')? + 1;
    let value = &text[1..quote];
    (!value.contains('\\')).then_some((Cow::Borrowed(value), &text[quote + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kubernetes::objects::documents;
    use serde_json::json;

    /// What the general parser reads, which this reader must equal wherever it answers.
    fn general(text: &str) -> Value {
        let mut docs = documents(text).unwrap();
        assert_eq!(docs.len(), 1);
        docs.remove(0)
    }

    #[track_caller]
    fn same_as_general(text: &str) -> Value {
        let fast = read(text).unwrap_or_else(|| panic!("not read:\n{text}"));
        assert_eq!(fast, general(text), "{text}");
        fast
    }

    #[test]
    fn kubectls_layout_reads_as_the_general_parser_reads_it() {
        let text = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  annotations:\n    note: 'it''s \"here\"'\n  labels:\n    app.kubernetes.io/name: web\n  name: web\n  resourceVersion: \"42\"\nspec:\n  replicas: 3\n  paused: false\n  ratio: 0.5\n  empty: {}\n  none: []\n  nothing:\n  template:\n    spec:\n      containers:\n      - args:\n        - --port=80\n        - -v\n        env:\n        - name: A\n          value: \"1\"\n        image: nginx:1.27\n        name: web\n      -\n        name: side\n";
        let value = same_as_general(text);
        assert_eq!(value["spec"]["replicas"], json!(3));
        assert_eq!(
            value["metadata"]["annotations"]["note"],
            json!("it's \"here\"")
        );
        assert_eq!(value["spec"]["nothing"], Value::Null);
        assert_eq!(
            value["spec"]["template"]["spec"]["containers"][0]["args"],
            json!(["--port=80", "-v"])
        );
    }

    #[test]
    fn literal_blocks_keep_their_lines() {
        for text in [
            "data:\n  script: |\n    #!/bin/sh\n      echo a: b # c\n\n    exit 0\nkind: ConfigMap\n",
            "data:\n  script: |-\n    one\n\n\n  other: x\n",
            "items:\n- |\n  a\n- b\n",
            "a: |\n  x\n\n",
        ] {
            same_as_general(text);
        }
        assert_eq!(
            same_as_general("a: |\n  x\n\n    y\n\nb: 1\n")["a"],
            json!("x\n\n  y\n")
        );
    }

    #[test]
    fn sequences_stand_at_their_keys_or_deeper() {
        same_as_general(
            "a:\n- 1\n- x: 2\n  y:\n  - 3\n  z: 4\nb:\n  - 5\n  -   c: 6\n      d: 7\n",
        );
        same_as_general("a:\n- - 1\n  - - 2\n    - 3\n- 4\n");
    }

    #[test]
    fn resolution_is_the_core_schema() {
        let value = same_as_general(
            "a: 0x1F\nb: 0o17\nc: .inf\nd: ~\ne: 1e3\nf: +1\ng: True\nh: yes\ni: '1'\nj: null\n",
        );
        assert_eq!(value["h"], json!("yes"));
        assert_eq!(value["i"], json!("1"));
    }

    #[test]
    fn anything_else_is_left_to_the_general_parser() {
        for text in [
            "",
            "null\n",
            "a: 1",
            "- a\n",
            "a: &x 1\n",
            "a: *x\n",
            "a: !!str 1\n",
            "a: {b: 1}\n",
            "a: [1]\n",
            "a: 1 # note\n",
            "# note\na: 1\n",
            "a: 1\n\nb: 2\n",
            "a: \"x\\ty\"\n",
            "a: 'two\n  lines'\n",
            "a: plain\n  continued\n",
            "a: >\n  folded\n",
            "a: |+\n  kept\n",
            "a: |2\n    indented\n",
            "a:\tb\n",
            "a: caf\u{e9}\n",
            "---\na: 1\n",
            "a: 1\n...\n",
            "? a\n: 1\n",
            "a: b: c\n",
            "a: - b\n",
            "a:b\n",
            "a: 1 \n",
            "a: 1\r\n",
            " a: 1\n",
        ] {
            assert_eq!(read(text), None, "{text:?}");
        }
    }

    #[test]
    fn a_key_longer_than_yaml_allows_is_left_to_the_general_parser() {
        let text = format!("{}: 1\n", "k".repeat(1100));
        assert_eq!(read(&text), None);
        assert!(documents(&text).is_err());
        same_as_general(&format!("{}: 1\n", "k".repeat(900)));
    }

    #[test]
    fn malformed_nesting_is_never_read() {
        for text in [
            "a: 1\n  b: 2\n",
            "a:\n    b: 1\n  c: 2\n",
            "a:\n- 1\n  - 2\n",
            "a: 1\n- 2\n",
            "a:\n  - 1\n  b: 2\n",
            "x:\n- a: 1\n  - b\n",
        ] {
            assert_eq!(read(text), None, "{text:?}");
        }
    }
}
