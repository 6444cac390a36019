use proptest::prelude::*;
use serde_json::json;

use super::*;

fn path(dotted: &str) -> KeyPath {
    let mut path = KeyPath::default();
    for part in dotted.split('.') {
        path = match part.parse::<usize>() {
            Ok(index) => path.index(index),
            Err(_) => path.key(part),
        };
    }
    path
}

fn set_ok(text: &str, dotted: &str, value: Value) -> String {
    set(text, &path(dotted), &value).unwrap_or_else(|e| panic!("{dotted}: {e}\n{text}"))
}

const FILE: &str = "\
# Deploys for the platform team.
dashboard:
  title: \"Deploys\"   # ours
  redact: true

tickers:
  - alice  # lead
  # bob is away until March
  - bob
recordWriters: [\"sluiceway[bot]\"]  # the console
stacks:
  - path: network
    deploy: onMerge  # nightly
  - path: apps
    tickers:
      - carol
# the end
";

#[test]
fn a_scalar_changes_in_place_and_keeps_its_comment() {
    let edited = set_ok(FILE, "dashboard.title", json!("Ops desk"));
    assert_eq!(
        edited,
        FILE.replace("title: \"Deploys\"   # ours", "title: Ops desk   # ours")
    );
}

#[test]
fn a_new_key_joins_its_mapping_after_the_last_entry() {
    let edited = set_ok(FILE, "dashboard.timeZone", json!("Europe/Paris"));
    assert_eq!(
        edited,
        FILE.replace(
            "  redact: true\n",
            "  redact: true\n  timeZone: Europe/Paris\n"
        )
    );
}

#[test]
fn a_key_under_a_missing_mapping_brings_the_mapping() {
    let edited = set_ok(FILE, "drift.enabled", json!(false));
    assert_eq!(
        edited,
        FILE.replace("# the end\n", "drift:\n  enabled: false\n# the end\n")
    );
}

#[test]
fn null_takes_the_key_out_and_an_emptied_mapping_with_it() {
    let once = set_ok(FILE, "dashboard.redact", Value::Null);
    assert_eq!(once, FILE.replace("  redact: true\n", ""));
    let twice = set_ok(&once, "dashboard.title", Value::Null);
    assert_eq!(
        twice,
        FILE.replace(
            "dashboard:\n  title: \"Deploys\"   # ours\n  redact: true\n",
            ""
        )
    );
}

#[test]
fn a_block_list_keeps_the_lines_and_comments_of_items_that_stay() {
    let edited = set_ok(FILE, "tickers", json!(["alice", "dave", "bob", "erin"]));
    assert_eq!(
        edited,
        FILE.replace(
            "  - alice  # lead\n  # bob is away until March\n  - bob\n",
            "  - alice  # lead\n  - dave\n  # bob is away until March\n  - bob\n  - erin\n"
        )
    );
    let fewer = set_ok(FILE, "tickers", json!(["bob"]));
    assert_eq!(
        fewer,
        FILE.replace(
            "  - alice  # lead\n  # bob is away until March\n  - bob\n",
            "  # bob is away until March\n  - bob\n"
        )
    );
}

#[test]
fn a_flow_list_stays_a_flow_list_on_its_line() {
    let edited = set_ok(FILE, "recordWriters", json!(["sluiceway[bot]", "ops-bot"]));
    assert_eq!(
        edited,
        FILE.replace(
            "recordWriters: [\"sluiceway[bot]\"]  # the console",
            "recordWriters: [\"sluiceway[bot]\", ops-bot]  # the console"
        )
    );
}

#[test]
fn a_stack_entry_changes_by_its_index() {
    let edited = set_ok(FILE, "stacks.1.deploy", json!("onMerge"));
    assert_eq!(
        edited,
        FILE.replace("      - carol\n", "      - carol\n    deploy: onMerge\n")
    );
    let back = set_ok(FILE, "stacks.0.deploy", Value::Null);
    assert_eq!(back, FILE.replace("    deploy: onMerge  # nightly\n", ""));
}

#[test]
fn a_key_on_an_items_dash_line_hands_the_line_to_the_next_key() {
    let text = "stacks:\n  - deploy: onMerge\n    path: network\n";
    let edited = set_ok(text, "stacks.0.deploy", Value::Null);
    assert_eq!(edited, "stacks:\n  - path: network\n");
}

#[test]
fn a_key_with_nothing_under_it_gets_a_mapping() {
    let edited = set_ok("dashboard:\ntickers: [a]\n", "dashboard.title", json!("x"));
    assert_eq!(edited, "dashboard:\n  title: x\ntickers: [a]\n");
}

#[test]
fn a_flow_mapping_is_written_again_in_block_style_keeping_its_comment() {
    let edited = set_ok(
        "dashboard: {title: x}  # short\n",
        "dashboard.redact",
        json!(true),
    );
    assert_eq!(edited, "dashboard:  # short\n  title: x\n  redact: true\n");
}

#[test]
fn a_list_replacing_a_scalar_gets_lines_of_its_own() {
    let edited = set_ok(
        "tickers: alice # one\nignore: []\n",
        "tickers",
        json!({"users": ["alice", "bob"]}),
    );
    assert_eq!(
        edited,
        "tickers: # one\n  users:\n    - alice\n    - bob\nignore: []\n"
    );
}

#[test]
fn an_empty_file_starts_with_the_key() {
    assert_eq!(
        set_ok("", "tickers", json!(["alice"])),
        "tickers:\n  - alice\n"
    );
}

#[test]
fn windows_line_endings_are_kept() {
    let edited = set_ok(
        "dashboard:\r\n  title: a\r\n",
        "dashboard.redact",
        json!(true),
    );
    assert_eq!(edited, "dashboard:\r\n  title: a\r\n  redact: true\r\n");
}

#[test]
fn text_that_needs_quotes_gets_them() {
    let edited = set_ok(
        "dashboard:\n  title: a\n",
        "dashboard.title",
        json!("yes: # no"),
    );
    assert_eq!(edited, "dashboard:\n  title: \"yes: # no\"\n");
}

#[test]
fn a_setting_already_so_changes_nothing() {
    assert_eq!(set_ok(FILE, "dashboard.redact", json!(true)), FILE);
    assert_eq!(set_ok(FILE, "drift.enabled", Value::Null), FILE);
}

#[test]
fn what_cannot_be_changed_safely_is_refused() {
    assert_eq!(
        set("{a: 1}\n", &path("b"), &json!(2)),
        Err(EditError::Unsure(path("b")))
    );
    assert_eq!(
        set("dashboard: [a]\n", &path("dashboard.title"), &json!("x")),
        Err(EditError::NotAMapping(path("dashboard.title")))
    );
    assert!(matches!(
        set("a: [\n", &path("a"), &json!(1)),
        Err(EditError::Unreadable(_))
    ));
}

/// A file of the shapes people write: block and flow, comments beside values and on
/// lines of their own, blank lines between keys.
fn files() -> impl Strategy<Value = String> {
    let word = "[a-z][a-z0-9-]{0,6}";
    let comment = prop::option::of("[a-z ]{1,8}").prop_map(|c| c.map(|c| format!("  # {c}")));
    let title = (word, comment.clone())
        .prop_map(|(w, c)| format!("  title: {w}{}\n", c.unwrap_or_default()));
    let redact = (any::<bool>(), comment.clone())
        .prop_map(|(b, c)| format!("  redact: {b}{}\n", c.unwrap_or_default()));
    let dashboard =
        (prop::option::of(title), prop::option::of(redact)).prop_map(|(t, r)| match (t, r) {
            (None, None) => String::new(),
            (t, r) => format!(
                "dashboard:\n{}{}",
                t.unwrap_or_default(),
                r.unwrap_or_default()
            ),
        });
    let items = prop::collection::vec((word, comment.clone(), any::<bool>()), 1..4);
    let tickers = prop_oneof![
        Just(String::new()),
        items.clone().prop_map(|items| {
            let mut text = "tickers:\n".to_owned();
            for (w, c, own_line) in items {
                if own_line {
                    text.push_str("  # about the next one\n");
                }
                text.push_str(&format!("  - {w}{}\n", c.unwrap_or_default()));
            }
            text
        }),
        items.prop_map(|items| {
            let words: Vec<String> = items.into_iter().map(|(w, ..)| w).collect();
            format!("tickers: [{}]\n", words.join(", "))
        }),
    ];
    let drift = prop_oneof![
        Just(String::new()),
        Just("drift:\n  enabled: true\n".to_owned()),
        Just("drift: {enabled: false}\n".to_owned()),
    ];
    // Stack entries, their dashes indented or at the key's column.
    let stacks = (any::<bool>(), any::<bool>(), comment).prop_map(|(indented, deploy, c)| {
        let pad = if indented { "  " } else { "" };
        let deploy = if deploy {
            format!("{pad}  deploy: onMerge{}\n", c.unwrap_or_default())
        } else {
            String::new()
        };
        format!("stacks:\n{pad}- path: network\n{deploy}{pad}- path: apps\n")
    });
    (dashboard, tickers, drift, stacks, any::<bool>()).prop_map(|(d, t, r, s, blank)| {
        let gap = if blank { "\n" } else { "" };
        format!("# settings\n{d}{gap}{t}{s}{r}# end\n")
    })
}

fn changes() -> impl Strategy<Value = (String, Value)> {
    let key = prop_oneof![
        Just("dashboard.title"),
        Just("dashboard.redact"),
        Just("dashboard.timeZone"),
        Just("tickers"),
        Just("drift.enabled"),
        Just("ignore"),
        Just("stacks.0.deploy"),
        Just("stacks.1.tickers"),
    ];
    let value = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        "[ -~]{0,10}".prop_map(Value::String),
        prop::collection::vec("[a-z]{1,5}", 0..4).prop_map(|v| json!(v)),
        prop::collection::vec("[a-z]{1,5}", 1..3).prop_map(|v| json!({ "users": v })),
    ];
    (key.prop_map(str::to_owned), value)
}

proptest! {
    /// Any change to any such file is made, reads back as exactly the change (which
    /// `set` checks), and keeps every comment line unless the key was put back.
    #[test]
    fn every_change_is_made_and_keeps_the_comments(
        file in files(),
        changes in prop::collection::vec(changes(), 1..4),
    ) {
        let mut text = file.clone();
        for (key, value) in &changes {
            let edited = set(&text, &path(key), value);
            prop_assert!(edited.is_ok(), "{key} = {value}: {edited:?}\n{text}");
            text = edited.unwrap();
        }
        prop_assert!(text.starts_with("# settings\n"));
        prop_assert!(text.contains("# end\n"));
        if changes.iter().all(|(_, v)| !v.is_null()) {
            for line in file.lines().filter(|l| l.trim_start().starts_with('#')) {
                prop_assert!(text.contains(line), "lost {line:?}\n{file}\n---\n{text}");
            }
        }
    }
}
