//! A YAML document read into JSON, remembering where every key and item stood.
//!
//! Validation works on JSON (the schema is JSON Schema), but every problem must name a
//! line and column of the user's file. The document keeps, for each JSON pointer, the
//! position of the key (for mapping entries) or the item (for sequence entries).

use std::collections::HashMap;

use saphyr::{LoadableYamlNode, MarkedYamlOwned, ScalarOwned, YamlDataOwned};
use serde_json::{Map, Number, Value};

/// A place in the file: 1-based line and column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, Hash)]
pub struct Position {
    pub line: usize,
    pub column: usize,
}

/// One step into a document: a mapping key or a sequence index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Segment {
    Key(String),
    Index(usize),
}

/// A path from the document root, written the way a person names a key:
/// `stacks[2].options.namespace`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct KeyPath(pub Vec<Segment>);

impl KeyPath {
    pub fn child(&self, segment: Segment) -> KeyPath {
        let mut segments = self.0.clone();
        segments.push(segment);
        KeyPath(segments)
    }

    pub fn key(&self, key: &str) -> KeyPath {
        self.child(Segment::Key(key.to_owned()))
    }

    pub fn index(&self, index: usize) -> KeyPath {
        self.child(Segment::Index(index))
    }

    pub fn parent(&self) -> Option<KeyPath> {
        let (_, rest) = self.0.split_last()?;
        Some(KeyPath(rest.to_vec()))
    }

    /// Reads a JSON pointer such as `/stacks/2/path`, knowing which steps are indexes
    /// from the value it points into.
    pub fn from_pointer(pointer: &str, root: &Value) -> KeyPath {
        let mut segments = Vec::new();
        let mut node = Some(root);
        for raw in pointer.split('/').skip(1) {
            let token = raw.replace("~1", "/").replace("~0", "~");
            match node {
                Some(Value::Array(items)) => match token.parse::<usize>() {
                    Ok(index) => {
                        node = items.get(index);
                        segments.push(Segment::Index(index));
                    }
                    Err(_) => {
                        node = None;
                        segments.push(Segment::Key(token));
                    }
                },
                Some(Value::Object(map)) => {
                    node = map.get(&token);
                    segments.push(Segment::Key(token));
                }
                _ => {
                    node = None;
                    segments.push(Segment::Key(token));
                }
            }
        }
        KeyPath(segments)
    }
}

impl std::fmt::Display for KeyPath {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("(top level)");
        }
        for (i, segment) in self.0.iter().enumerate() {
            match segment {
                Segment::Key(key) if i == 0 => f.write_str(key)?,
                Segment::Key(key) => write!(f, ".{key}")?,
                Segment::Index(index) => write!(f, "[{index}]")?,
            }
        }
        Ok(())
    }
}

/// Why a file could not be read as YAML at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    pub position: Position,
    pub message: String,
}

/// The file as JSON plus the position of every key path in it.
#[derive(Debug, Clone)]
pub struct Document {
    pub value: Value,
    positions: HashMap<KeyPath, Position>,
}

impl Document {
    /// Reads YAML text. An empty file is an empty mapping. Problems that make the text
    /// unusable (bad syntax, several documents, keys that are not text) are errors here.
    pub fn parse(text: &str) -> Result<Document, Vec<SyntaxError>> {
        let docs = MarkedYamlOwned::load_from_str(text).map_err(|e| {
            let mark = e.marker();
            vec![SyntaxError {
                position: TextEnd::of(text).within(Position {
                    line: mark.line(),
                    column: mark.col() + 1,
                }),
                message: e.info().to_owned(),
            }]
        })?;
        let mut document = Document {
            value: Value::Object(Map::new()),
            positions: HashMap::new(),
        };
        let mut errors = Vec::new();
        match docs.as_slice() {
            [] => {}
            [root] => document.value = document.convert(root, &KeyPath::default(), &mut errors),
            [_, second, ..] => errors.push(SyntaxError {
                position: position_of(second),
                message: "the file holds more than one YAML document; keep one".to_owned(),
            }),
        }
        // Node positions can also fall past the end (an empty key at the end of the text).
        let end = TextEnd::of(text);
        for position in document.positions.values_mut() {
            *position = end.within(*position);
        }
        for error in &mut errors {
            error.position = end.within(error.position);
        }
        if errors.is_empty() {
            Ok(document)
        } else {
            Err(errors)
        }
    }

    /// Where `path` stands, or its nearest ancestor that has a position.
    pub fn position(&self, path: &KeyPath) -> Position {
        let mut current = Some(path.clone());
        while let Some(p) = current {
            if let Some(position) = self.positions.get(&p) {
                return *position;
            }
            current = p.parent();
        }
        Position { line: 1, column: 1 }
    }

    fn convert(
        &mut self,
        node: &MarkedYamlOwned,
        path: &KeyPath,
        errors: &mut Vec<SyntaxError>,
    ) -> Value {
        match &node.data {
            YamlDataOwned::Value(scalar) => scalar_to_json(scalar),
            YamlDataOwned::Representation(text, ..) => Value::String(text.clone()),
            YamlDataOwned::Tagged(_, inner) => self.convert(inner, path, errors),
            YamlDataOwned::Sequence(items) => Value::Array(
                items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        let item_path = path.index(i);
                        self.positions.insert(item_path.clone(), position_of(item));
                        self.convert(item, &item_path, errors)
                    })
                    .collect(),
            ),
            YamlDataOwned::Mapping(entries) => {
                let mut map = Map::new();
                for (key, value) in entries {
                    let Some(name) = key_text(key) else {
                        errors.push(SyntaxError {
                            position: position_of(key),
                            message: format!("{path}: a key must be text"),
                        });
                        continue;
                    };
                    let entry_path = path.key(&name);
                    self.positions.insert(entry_path.clone(), position_of(key));
                    let converted = self.convert(value, &entry_path, errors);
                    map.insert(name, converted);
                }
                Value::Object(map)
            }
            YamlDataOwned::Alias(_) | YamlDataOwned::BadValue => {
                errors.push(SyntaxError {
                    position: position_of(node),
                    message: format!(
                        "{path}: YAML aliases are not supported here; write the value out"
                    ),
                });
                Value::Null
            }
        }
    }
}

/// The parser reports an error found at the end of the text one line past it; a person
/// looks for it at the end of the last line. Measured once per text: a file of
/// thousands of stacks has tens of thousands of positions.
struct TextEnd {
    lines: usize,
    /// The last line that holds anything (1-based), and its length in characters.
    last: Position,
}

impl TextEnd {
    fn of(text: &str) -> TextEnd {
        // YAML breaks lines at LF, CRLF and a lone CR alike.
        let normalised = text.replace("\r\n", "\n");
        let lines: Vec<&str> = normalised.split(['\n', '\r']).collect();
        let last = lines.iter().rposition(|l| !l.is_empty()).unwrap_or(0);
        TextEnd {
            lines: lines.len(),
            last: Position {
                line: last + 1,
                column: lines[last].chars().count() + 1,
            },
        }
    }

    fn within(&self, position: Position) -> Position {
        if position.line <= self.lines {
            position
        } else {
            self.last
        }
    }
}

fn position_of(node: &MarkedYamlOwned) -> Position {
    Position {
        line: node.span.start.line(),
        column: node.span.start.col() + 1,
    }
}

fn key_text(key: &MarkedYamlOwned) -> Option<String> {
    match &key.data {
        YamlDataOwned::Value(ScalarOwned::String(text)) => Some(text.clone()),
        YamlDataOwned::Value(ScalarOwned::Integer(n)) => Some(n.to_string()),
        YamlDataOwned::Value(ScalarOwned::Boolean(b)) => Some(b.to_string()),
        _ => None,
    }
}

fn scalar_to_json(scalar: &ScalarOwned) -> Value {
    match scalar {
        ScalarOwned::Null => Value::Null,
        ScalarOwned::Boolean(b) => Value::Bool(*b),
        ScalarOwned::Integer(n) => Value::Number((*n).into()),
        ScalarOwned::FloatingPoint(f) => {
            Number::from_f64(f.into_inner()).map_or(Value::Null, Value::Number)
        }
        ScalarOwned::String(text) => Value::String(text.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remembers_where_keys_and_items_stand() {
        let doc =
            Document::parse("dashboard:\n  title: x\nstacks:\n  - path: a\n  - path: b\n").unwrap();
        let path = KeyPath::default().key("stacks").index(1).key("path");
        assert_eq!(doc.position(&path), Position { line: 5, column: 5 });
        assert_eq!(path.to_string(), "stacks[1].path");
    }

    #[test]
    fn an_unknown_path_falls_back_to_its_nearest_ancestor() {
        let doc = Document::parse("dashboard:\n  title: x\n").unwrap();
        let path = KeyPath::default().key("dashboard").key("nothing");
        assert_eq!(doc.position(&path), Position { line: 1, column: 1 });
    }

    #[test]
    fn duplicate_keys_and_second_documents_are_errors() {
        let dup = Document::parse("a: 1\na: 2\n").unwrap_err();
        assert_eq!(dup[0].position.line, 2);
        let two = Document::parse("a: 1\n---\nb: 2\n").unwrap_err();
        assert!(two[0].message.contains("more than one YAML document"));
    }

    #[test]
    fn an_error_at_the_end_points_at_the_last_line() {
        let errors = Document::parse("a:\n  - b:\nl .e ").unwrap_err();
        assert!(errors[0].position.line <= 3, "{:?}", errors[0]);
    }

    #[test]
    fn pointers_become_key_paths() {
        let value = serde_json::json!({"stacks": [{"options": {"a/b": 1}}]});
        let path = KeyPath::from_pointer("/stacks/0/options/a~1b", &value);
        assert_eq!(path.to_string(), "stacks[0].options.a/b");
    }
}
