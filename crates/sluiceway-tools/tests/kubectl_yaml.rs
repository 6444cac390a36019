//! kubectl's block layout read line by line, held to the general YAML parser: over every
//! object side of every recorded `kubectl diff` (real kubectl output, so every side must
//! take the quick path and read exactly as the general parser reads it), and over what a
//! YAML emitter of its own writes for values made up by proptest.

use std::fs;
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use saphyr::{Mapping, Scalar, Yaml, YamlEmitter};
use serde_json::Value;
use sluiceway_tools::kubernetes::{block_yaml, hunks, objects};

/// Every recorded output of a kubectl diff, in our own recordings and the corpus.
fn recorded_diffs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    for versions in [
        root.join("fixtures/kubectl"),
        root.join("../shared/conformance/kubectl"),
    ] {
        for scenario in entries(&versions).iter().flat_map(|v| entries(v)) {
            found.extend(
                entries(&scenario)
                    .into_iter()
                    .filter(|file| file.extension().is_some_and(|e| e == "stdout")),
            );
        }
    }
    found.sort();
    found
}

/// What a folder holds; nothing for a file or a folder that is not there.
fn entries(dir: &Path) -> Vec<PathBuf> {
    fs::read_dir(dir)
        .map(|entries| entries.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

#[test]
fn every_recorded_side_takes_the_quick_path_and_reads_as_the_general_parser_reads_it() {
    let mut sides = 0;
    for path in recorded_diffs() {
        let text = fs::read_to_string(&path).unwrap();
        let Ok(pairs) = hunks::read(&text) else {
            continue;
        };
        for pair in pairs {
            for side in [pair.live, pair.merged] {
                let general = objects::documents(&side).unwrap();
                let [object @ Value::Object(_)] = general.as_slice() else {
                    continue;
                };
                assert_eq!(
                    block_yaml::read(&side).as_ref(),
                    Some(object),
                    "a side of {}",
                    path.display()
                );
                sides += 1;
            }
        }
    }
    assert!(
        sides >= 100,
        "only {sides} sides were found in the recordings"
    );
}

/// A value as a YAML node, for the emitter.
fn node(value: &Value) -> Yaml<'_> {
    match value {
        Value::Null => Yaml::Value(Scalar::Null),
        Value::Bool(b) => Yaml::Value(Scalar::Boolean(*b)),
        Value::Number(n) => Yaml::Value(Scalar::Integer(n.as_i64().unwrap_or_default())),
        Value::String(s) => Yaml::Value(Scalar::String(s.as_str().into())),
        Value::Array(items) => Yaml::Sequence(items.iter().map(node).collect()),
        Value::Object(map) => {
            let mut mapping = Mapping::new();
            for (key, value) in map {
                mapping.insert(
                    Yaml::Value(Scalar::String(key.as_str().into())),
                    node(value),
                );
            }
            Yaml::Mapping(mapping)
        }
    }
}

/// What saphyr's emitter writes for the value, literal blocks for text with line breaks,
/// without its document marker.
fn emitted(value: &Value) -> String {
    let mut text = String::new();
    let mut emitter = YamlEmitter::new(&mut text);
    emitter.multiline(true);
    emitter.dump(&node(value)).unwrap();
    let mut text = text.strip_prefix("---\n").unwrap_or(&text).to_owned();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text
}

/// An object whose leaves come from `leaf`, nested a few levels.
fn objects_of(leaf: BoxedStrategy<Value>, key: &'static str) -> impl Strategy<Value = Value> {
    let tree = leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::btree_map(key, inner, 0..5)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    });
    prop::collection::btree_map(key, tree, 1..6)
        .prop_map(|map| Value::Object(map.into_iter().collect()))
}

/// Leaves of every kind, strings full of what YAML gives a meaning to.
fn any_leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z0-9 :#'\"|>{}\\[\\]!&*?.,%@`~\\\\-]{0,12}".prop_map(Value::String),
        "[a-z #:]{1,8}(\n[a-z #:]{0,8}){0,3}\n{0,2}".prop_map(Value::String),
        prop_oneof![
            Just("yes"),
            Just("0x1F"),
            Just(".inf"),
            Just("~"),
            Just("null"),
            Just("1e3"),
            Just("+1"),
            Just("-"),
            Just("- a"),
            Just("---"),
        ]
        .prop_map(Value::from),
    ]
    .boxed()
}

/// Leaves as manifests mostly hold them: names, numbers, flags, text over lines.
fn manifest_leaf() -> BoxedStrategy<Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z][a-z0-9./-]{0,12}".prop_map(Value::String),
        "[a-z]{1,8}( [a-z]{1,8}){0,3}(\n[a-z]{1,8}){1,3}\n".prop_map(Value::String),
    ]
    .boxed()
}

proptest! {
    /// Wherever the line reader answers, the general parser reads the same object.
    #[test]
    fn where_the_line_reader_answers_the_general_parser_agrees(
        value in objects_of(any_leaf(), "[a-z0-9 :#'\"?&*!.-]{1,8}")
    ) {
        let text = emitted(&value);
        if let Some(read) = block_yaml::read(&text) {
            prop_assert_eq!(objects::documents(&text).ok(), Some(vec![read]), "{}", text);
        }
    }

    /// Block YAML of plain names, numbers, flags and literal text is all read by the
    /// line reader, exactly as the general parser reads it.
    #[test]
    fn block_yaml_of_plain_leaves_takes_the_line_reader(
        value in objects_of(manifest_leaf(), "[a-z][a-zA-Z0-9./_-]{0,10}")
    ) {
        let text = emitted(&value);
        let read = block_yaml::read(&text);
        prop_assert!(read.is_some(), "not read:\n{}", text);
        prop_assert_eq!(objects::documents(&text).ok(), Some(vec![read.unwrap()]), "{}", text);
    }
}
