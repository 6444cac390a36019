use serde_json::json;

use super::*;

fn keys() -> serde_json::Map<String, Value> {
    let Value::Object(keys) = json!({
        "dashboard.title": "Quickstart deploys",
        "dashboard.personality": null,
        "dashboard.readOnly": false,
        "dashboard.recentlyDeployed": null,
        "tickers": ["alice", "bob"],
        "ignore": [{"glob": "legacy/*", "reason": "kept by hand"}],
        "recordWriters": [],
    }) else {
        unreachable!()
    };
    keys
}

fn fields(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

#[test]
fn a_field_left_as_the_file_says_asks_nothing() {
    let (changes, problems) = changes(
        &keys(),
        &fields(&[
            ("dashboard.title", "Quickstart deploys"),
            ("dashboard.personality", ""),
            ("dashboard.readOnly", "off"),
            ("dashboard.recentlyDeployed", ""),
            ("tickers", "alice,  bob"),
            ("recordWriters", ""),
        ]),
    );
    assert_eq!((changes.len(), problems.len()), (0, 0), "{changes:?}");
}

#[test]
fn a_changed_field_is_a_change_and_an_emptied_one_the_default() {
    let (changes, problems) = changes(
        &keys(),
        &fields(&[
            ("dashboard.title", ""),
            ("dashboard.personality", "off"),
            ("dashboard.recentlyDeployed", "3"),
            ("tickers", "alice"),
            ("recordWriters", "sluiceway-console[bot]"),
            ("ignore", "anything"),
        ]),
    );
    assert!(problems.is_empty(), "{problems:?}");
    let asked: Vec<(String, Value)> = changes.into_iter().map(|c| (c.key, c.value)).collect();
    assert_eq!(
        asked,
        [
            ("dashboard.personality".to_owned(), json!(false)),
            ("dashboard.recentlyDeployed".to_owned(), json!(3)),
            ("dashboard.title".to_owned(), Value::Null),
            (
                "recordWriters".to_owned(),
                json!(["sluiceway-console[bot]"])
            ),
            ("tickers".to_owned(), json!(["alice"])),
        ],
        "ignore holds what the form cannot show, and is left alone"
    );
}

#[test]
fn a_field_that_does_not_read_is_named() {
    let (changes, problems) = changes(
        &keys(),
        &fields(&[
            ("dashboard.recentlyDeployed", "many"),
            ("dashboard.readOnly", "yes"),
        ]),
    );
    assert!(changes.is_empty());
    assert_eq!(
        problems,
        [
            "dashboard.readOnly is on, off or the action's default.",
            "dashboard.recentlyDeployed is a whole number."
        ]
    );
}

mod property {
    use proptest::prelude::*;

    use super::*;

    /// A value a key may hold in a file the form can show.
    fn value() -> impl Strategy<Value = (Kind, Value)> {
        prop_oneof![
            Just((Kind::Text, Value::Null)),
            "[a-zA-Z0-9 ,:/._-]{1,20}".prop_map(|t| (Kind::Text, Value::String(t))),
            any::<bool>().prop_map(|b| (Kind::Switch, Value::Bool(b))),
            (0u64..=50).prop_map(|n| (Kind::Number, Value::from(n))),
            proptest::collection::vec("[a-z0-9*/_, \\[\\]-]{0,12}", 0..4).prop_map(|words| (
                Kind::List,
                Value::Array(words.into_iter().map(Value::String).collect())
            )),
        ]
    }

    /// A key of the kind its value is.
    fn key_of(kind: Kind, i: usize) -> String {
        match kind {
            Kind::Text => format!("dashboard.title{i}"),
            Kind::Switch => format!("x{i}.redact"),
            Kind::Number => format!("x{i}.recentlyDeployed"),
            Kind::List => format!("x{i}.tickers"),
        }
    }

    proptest! {
        /// The form drawn from a file and sent back untouched asks for no change, and
        /// any form at all is read without a panic.
        #[test]
        fn an_untouched_form_asks_nothing(values in proptest::collection::vec(value(), 0..8),
                                          noise in proptest::collection::vec(("[a-zA-Z.]{0,12}", "\\PC{0,12}"), 0..8)) {
            let mut keys = serde_json::Map::new();
            for (i, (kind, value)) in values.iter().enumerate() {
                keys.insert(key_of(*kind, i), value.clone());
            }
            let fields: Vec<(String, String)> = keys
                .iter()
                .filter_map(|(k, v)| Some((k.clone(), shown(v, kind(k))?)))
                .collect();
            let (asked, problems) = changes(&keys, &fields);
            prop_assert!(asked.is_empty(), "{:?}", asked);
            prop_assert!(problems.is_empty(), "{:?}", problems);
            let _ = changes(&keys, &noise);
        }
    }
}
