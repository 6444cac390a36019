//! Loading `sluiceway.yaml`: what is accepted, what is refused, and that every problem
//! carries a place.

use proptest::prelude::*;
use sluiceway_core::config::{self, PermissionLevel};
use sluiceway_core::stack::{Chart, TickRule, Tool, ToolOptions};

#[test]
fn an_empty_file_is_every_default() {
    let config = config::load("sluiceway.yaml", "").unwrap();
    assert_eq!(config.settings.dashboard.title, "Sluiceway dashboard");
    assert_eq!(config.settings.attribution.lookback, 100);
    assert!(config.settings.deploys && config.settings.discovery.root_modules);
    assert_eq!(config.tick_rule, TickRule::AtLeast(PermissionLevel::Write));
}

#[test]
fn a_full_helm_declaration_is_read_into_typed_options() {
    let text = "stacks:\n  - path: ./charts/web/\n    tool: helm\n    options:\n      release: web\n      namespace: shop\n      chart: oci://registry.invalid/web\n      version: 1.4.2\n";
    let config = config::load("sluiceway.yaml", text).unwrap();
    let entry = &config.entries[0];
    assert_eq!(entry.path, "charts/web");
    let Some((Tool::Helm, ToolOptions::Helm { chart, .. })) = &entry.declaration else {
        panic!()
    };
    assert_eq!(
        chart,
        &Chart::Reference {
            name: "oci://registry.invalid/web".into(),
            version: "1.4.2".into()
        }
    );
}

#[test]
fn problems_come_in_file_order_with_their_keys() {
    let text = "stacks:\n  - path: a\n    previewTimeout: 0\ndashboard:\n  zeroCounts: 3\n  timeZone: Mars/Olympus\ntickers: [\"@alice\"]\n";
    let problems = config::load("sluiceway.yml", text).unwrap_err();
    let lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "sluiceway.yml:3:5: stacks[0].previewTimeout: expected a whole number of at least 1",
            "sluiceway.yml:5:3: dashboard.zeroCounts: expected true or false",
            "sluiceway.yml:6:3: dashboard.timeZone: expected an IANA time zone such as `Europe/Amsterdam` or `UTC`; `Mars/Olympus` is not one (offsets are not zones)",
            "sluiceway.yml:7:11: tickers[0]: write the login without `@`: `alice`",
        ]
    );
}

#[test]
fn windows_freezes_and_show_values_are_checked() {
    let text = "deployWindows:\n  - { days: [monday], from: '18:00', to: '09:00' }\nfreezes:\n  - { from: 2026-12-24T00:00, to: 2026-12-23T00:00 }\ndashboard:\n  showValues: ['**']\n  sections: [pending, pending]\n";
    let problems = config::load("sluiceway.yaml", text).unwrap_err();
    let keys: Vec<String> = problems.iter().map(|p| p.key.to_string()).collect();
    assert_eq!(
        keys,
        [
            "deployWindows[0].to",
            "freezes[0].to",
            "dashboard.showValues[0]",
            "dashboard.sections[1]"
        ]
    );
}

#[test]
fn the_value_list_refuses_what_would_show_too_much_warns_of_what_never_matches_and_is_empty_under_redact()
 {
    let refused = config::load(
        "sluiceway.yaml",
        "dashboard:\n  showValues: ['*.*', 'auth.token*', tags.*]\n",
    )
    .unwrap_err();
    let keys: Vec<String> = refused.iter().map(|p| p.key.to_string()).collect();
    assert_eq!(keys, ["dashboard.showValues[0]", "dashboard.showValues[1]"]);
    let loaded = config::load(
        "sluiceway.yaml",
        "dashboard:\n  showValues:\n    - tags.*\n    - 'a b'\n",
    )
    .unwrap();
    assert!(loaded.values.allows("tags.env"));
    let warned: Vec<String> = loaded.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(warned.len(), 1, "{warned:?}");
    assert!(
        warned[0].starts_with(
            "sluiceway.yaml:4:7: dashboard.showValues[1]: no adapter writes a path like `a b`"
        ),
        "{warned:?}"
    );
    let redacted = config::load(
        "sluiceway.yaml",
        "dashboard:\n  redact: true\n  showValues: [tags.*]\n",
    )
    .unwrap();
    assert!(redacted.values.is_empty(), "redact reads no value");
}

#[test]
fn a_bad_window_or_freeze_is_named_by_its_line_and_key_and_a_good_one_is_read_whole() {
    let text = "dashboard:\n  timeZone: Europe/Lisbon\ndeployWindows:\n  - days: [funday]\n    from: '09:00'\n    to: '17:00'\n  - days: [friday]\n    from: '22:00'\n    to: '24:00'\nfreezes:\n  - from: 2026-12-24T00:00\n    to: 2026-12-24T00:00\n  - from: 2026-12-20T18:00\n    to: 2027-01-04T08:00\n    reason: ' '\n";
    let problems = config::load("sluiceway.yaml", text).unwrap_err();
    let named: Vec<String> = problems
        .iter()
        .map(|p| format!("{}:{}", p.position.line, p.key))
        .collect();
    assert_eq!(
        named,
        [
            "4:deployWindows[0].days[0]",
            "12:freezes[0].to",
            "15:freezes[1].reason"
        ],
        "{problems:?}"
    );
    let good = "dashboard:\n  timeZone: Europe/Lisbon\ndeployWindows:\n  - days: [friday]\n    from: '22:00'\n    to: '24:00'\nfreezes:\n  - from: 2026-12-20T18:00\n    to: 2027-01-04T08:00\n    reason: holidays\n";
    let config = config::load("sluiceway.yaml", good).unwrap();
    assert_eq!(config.deploy_windows.0.len(), 1);
    assert_eq!(
        (
            config.deploy_windows.0[0].opens,
            config.deploy_windows.0[0].closes
        ),
        (22 * 60, 24 * 60)
    );
    assert_eq!(config.calendar.zone.iana_name(), Some("Europe/Lisbon"));
    assert_eq!(
        config.calendar.freezes[0].reason.as_deref(),
        Some("holidays")
    );
}

#[test]
fn the_schema_describes_every_top_level_key() {
    let schema = config::json_schema();
    let keys: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), 18);
    assert_eq!(schema["additionalProperties"], false);
}

proptest! {
    /// Whatever the text, loading answers without panicking, and a refusal always says
    /// where: a line inside the text.
    #[test]
    fn any_text_gets_an_answer_with_a_place(text in "(\\PC|\n| |:|-|\\[|\\]|\\{|\\}){0,200}") {
        if let Err(problems) = config::load("sluiceway.yaml", &text) {
            prop_assert!(!problems.is_empty());
            for p in problems {
                prop_assert!(p.position.line >= 1 && p.position.line <= text.lines().count() + 1);
            }
        }
    }

    /// Structured but wrong configurations: problems are sorted by position.
    #[test]
    fn problems_are_sorted(values in proptest::collection::vec(("[a-z]{1,6}", "[0-9a-z\\[\\] ]{0,5}"), 1..8)) {
        let text: String = values.iter().map(|(k, v)| format!("{k}: {v}\n")).collect();
        if let Err(problems) = config::load("sluiceway.yaml", &text) {
            let positions: Vec<_> = problems.iter().map(|p| p.position).collect();
            let mut sorted = positions.clone();
            sorted.sort();
            prop_assert_eq!(positions, sorted);
        }
    }
}

/// Inputs the fuzzer once broke the loader with, kept as regressions (fuzz/regressions).
#[test]
fn fuzzer_finds_stay_fixed() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if !path
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with("config_loader-")
        {
            continue;
        }
        let text = String::from_utf8(std::fs::read(&path).unwrap()).unwrap();
        let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count();
        let problems = config::load("sluiceway.yaml", &text).unwrap_err();
        for problem in problems {
            assert!(
                problem.position.line <= lines,
                "{}: {problem}",
                path.display()
            );
        }
        seen += 1;
    }
    assert!(seen >= 3);
}
