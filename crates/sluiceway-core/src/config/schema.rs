//! The JSON Schema of `sluiceway.yaml`, and the checks it makes.
//!
//! The schema is generated from [`RawConfig`](super::raw::RawConfig) with every
//! subschema inlined, so a validation error's schema location points straight at the
//! node that describes what was expected; the words of every message come from there.

use std::sync::LazyLock;

use jsonschema::error::ValidationErrorKind;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use super::document::{Document, KeyPath};
use super::problem::ConfigProblem;
use super::raw::RawConfig;

/// The schema as JSON, as `sluiceway schema` prints it.
pub fn json_schema() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| settings.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<RawConfig>().to_value();
    if let Value::Object(map) = &mut schema {
        map.insert(
            "$id".to_owned(),
            Value::String("sluiceway.schema.json".to_owned()),
        );
    }
    schema
}

static SCHEMA: LazyLock<Value> = LazyLock::new(json_schema);
static VALIDATOR: LazyLock<jsonschema::Validator> = LazyLock::new(|| {
    jsonschema::validator_for(&SCHEMA).expect("the generated schema is a valid JSON Schema")
});

/// Every place where the document breaks the schema, with a position and the words of
/// what was expected there.
pub(crate) fn check(document: &Document, file: &str) -> Vec<ConfigProblem> {
    let mut problems = Vec::new();
    for error in VALIDATOR.iter_errors(&document.value) {
        let at = KeyPath::from_pointer(error.instance_path().as_str(), &document.value);
        let node = schema_node(error.schema_path().as_str());
        let problem = |key: KeyPath, message: String| ConfigProblem {
            file: file.to_owned(),
            position: document.position(&key),
            key,
            message,
        };
        match error.kind() {
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let allowed = node
                    .and_then(|n| n.get("properties"))
                    .map(key_list)
                    .unwrap_or_default();
                for key in unexpected {
                    problems.push(problem(
                        at.key(key),
                        format!("unknown key; allowed keys here: {allowed}"),
                    ));
                }
            }
            ValidationErrorKind::Required { property } => {
                let name = property.as_str().unwrap_or_default();
                problems.push(problem(
                    at.clone(),
                    format!("the key `{name}` is required here"),
                ));
            }
            _ => {
                let parent = parent_schema_node(error.schema_path().as_str());
                let expected = parent
                    .map(expectation)
                    .unwrap_or_else(|| "a different value".to_owned());
                problems.push(problem(at, format!("expected {expected}")));
            }
        }
    }
    problems
}

fn schema_node(pointer: &str) -> Option<&'static Value> {
    SCHEMA.pointer(
        pointer
            .trim_end_matches("/additionalProperties")
            .trim_end_matches("/required"),
    )
}

/// The subschema that holds the failed keyword: the pointer minus its last step.
fn parent_schema_node(pointer: &str) -> Option<&'static Value> {
    let (parent, _) = pointer.rsplit_once('/')?;
    SCHEMA.pointer(parent)
}

fn key_list(properties: &Value) -> String {
    properties
        .as_object()
        .map(|m| m.keys().cloned().collect::<Vec<_>>().join(", "))
        .unwrap_or_default()
}

/// Words for what a subschema accepts, such as `a whole number from 1 to 1000` or
/// `one of: fold, list, off`.
fn expectation(node: &Value) -> String {
    if let Some(options) = node.get("enum").and_then(Value::as_array) {
        let words: Vec<String> = options
            .iter()
            .map(|o| o.as_str().map_or(o.to_string(), str::to_owned))
            .collect();
        return format!("one of: {}", words.join(", "));
    }
    if let Some(constant) = node.get("const") {
        return format!(
            "`{}`",
            constant
                .as_str()
                .map_or(constant.to_string(), str::to_owned)
        );
    }
    for combinator in ["anyOf", "oneOf"] {
        if let Some(options) = node.get(combinator).and_then(Value::as_array) {
            let words: Vec<String> = options.iter().map(expectation).collect();
            return words.join(", or ");
        }
    }
    let kinds: Vec<&str> = match node.get("type") {
        Some(Value::String(kind)) => vec![kind.as_str()],
        Some(Value::Array(kinds)) => kinds
            .iter()
            .filter_map(Value::as_str)
            .filter(|k| *k != "null")
            .collect(),
        _ => Vec::new(),
    };
    let mut words: Vec<String> = kinds.iter().map(|kind| type_words(kind, node)).collect();
    words.dedup();
    if words.is_empty() {
        "a different value".to_owned()
    } else {
        words.join(" or ")
    }
}

fn type_words(kind: &str, node: &Value) -> String {
    match kind {
        "integer" | "number" => {
            let noun = if kind == "integer" {
                "a whole number"
            } else {
                "a number"
            };
            match (
                node.get("minimum").and_then(Value::as_f64),
                node.get("maximum").and_then(Value::as_f64),
            ) {
                (Some(min), Some(max)) => format!("{noun} from {min} to {max}"),
                (Some(min), None) => format!("{noun} of at least {min}"),
                (None, Some(max)) => format!("{noun} of at most {max}"),
                (None, None) => noun.to_owned(),
            }
        }
        "boolean" => "true or false".to_owned(),
        "string" => "text".to_owned(),
        "array" => {
            let item = node
                .get("items")
                .map(expectation)
                .unwrap_or_else(|| "values".to_owned());
            match node.get("minItems").and_then(Value::as_u64) {
                Some(min) if min > 0 => format!("a list of at least {min} (each {item})"),
                _ => format!("a list (each {item})"),
            }
        }
        "object" => {
            let keys = node.get("properties").map(key_list).unwrap_or_default();
            if keys.is_empty() {
                "a mapping".to_owned()
            } else {
                format!("a mapping with the keys {keys}")
            }
        }
        other => other.to_owned(),
    }
}

/// Whether anything in the document at or below `path` broke the schema; such parts are
/// not read further, so one mistake is reported once.
pub(crate) fn touches(problems: &[ConfigProblem], path: &KeyPath) -> bool {
    problems.iter().any(|p| p.key.0.starts_with(&path.0))
}
