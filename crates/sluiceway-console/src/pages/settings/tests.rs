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
