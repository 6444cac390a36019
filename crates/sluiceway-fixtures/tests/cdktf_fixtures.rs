//! Our own CDK for Terraform fixtures (cdktf v0.21.0 with OpenTofu v1.6.2 behind it, on
//! `examples/cdktf-lab`), recorded by the recorder with the real binaries and never edited
//! by hand, held to their scenarios and to what the adapter must read from them.

use std::fs;
use std::path::{Path, PathBuf};

use sluiceway_core::values::ValueList;
use sluiceway_fixtures::recorder::check_recording;
use sluiceway_fixtures::replay::{Report, Tool, replay_showing};
use sluiceway_fixtures::scenario::cdktf_scenarios;
use sluiceway_tools::recording::Scenario as Recorded;
use support::{assert_no_value_left, shows_no_secret, summary};

mod support;

const SET: &str = "cdktf/v0.21.0";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The scenarios, as they read without the modules the recorder copies in first.
fn scenarios() -> Vec<sluiceway_fixtures::scenario::Scenario> {
    cdktf_scenarios(Path::new("node_modules"))
}

fn run_showing(scenario: &str, values: &ValueList) -> Report {
    replay_showing(
        Tool::Cdktf,
        &workspace().join("examples/cdktf-lab"),
        &workspace().join("fixtures").join(SET).join(scenario),
        values,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// Read by hand from the recordings.
fn expected(scenario: &str) -> Vec<&'static str> {
    const CREATES: [&str; 2] = [
        "  create terraform_data.config []",
        "  create terraform_data.notes []",
    ];
    match scenario {
        "version" => vec!["version: v0.21.0"],
        "new-stack" => [
            &["synth: prepared", "init: prepared", "plan: 2 changes"][..],
            &CREATES,
        ]
        .concat(),
        "other-stack" => [&["plan: 2 changes"][..], &CREATES].concat(),
        "deploy" => [&["plan: 2 changes"][..], &CREATES, &["apply: deployed"]].concat(),
        "no-changes" => vec!["plan: 0 changes"],
        "update" => vec![
            "plan: 1 changes",
            "  update terraform_data.config [input.greeting, output]",
        ],
        "replace" => vec![
            "plan: 1 changes",
            "  replace terraform_data.notes [id, input, output, triggers_replace, triggers_replace[0]]",
        ],
        "program-error" => vec!["synth: the tool exited with an error (exit code 1)"],
        other => panic!("a fixture no test has read by hand: {other}"),
    }
}

#[test]
fn the_set_holds_exactly_its_scenarios_and_each_meets_its_expectations() {
    let scenarios = scenarios();
    let mut names: Vec<&str> = scenarios.iter().map(|s| s.name).collect();
    names.sort();
    let dir = workspace().join("fixtures").join(SET);
    let mut found: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    found.sort();
    assert_eq!(found, names);
    for scenario in &scenarios {
        let path = dir.join(scenario.name);
        assert_eq!(
            check_recording(scenario, &path),
            Vec::<String>::new(),
            "{}",
            scenario.name
        );
        let recorded = Recorded::load(&path).unwrap();
        assert!(SET.ends_with(&recorded.recording.cli_version));
        for (stdout, stderr) in &recorded.outputs {
            for text in [stdout, stderr] {
                let text = String::from_utf8_lossy(text);
                assert!(
                    !text.contains("/root/") && !text.contains("/home/"),
                    "{} names a home directory",
                    scenario.name
                );
            }
        }
    }
}

#[test]
fn every_fixture_gives_the_changes_read_from_its_recording() {
    for scenario in scenarios() {
        assert_eq!(
            summary(&run_showing(scenario.name, &ValueList::none())),
            expected(scenario.name),
            "{}",
            scenario.name
        );
    }
}

/// The app's canaries never leave the adapter; with every path allowed, the plain one
/// shows and the sensitive one never does.
#[test]
fn values_never_leave_the_adapter() {
    let mut shown = false;
    for scenario in scenarios() {
        assert_no_value_left(
            &run_showing(scenario.name, &ValueList::none()),
            scenario.name,
            &[],
        );
        shown |= shows_no_secret(
            &run_showing(scenario.name, &ValueList::any_path()),
            scenario.name,
            &[],
        );
    }
    assert!(
        shown,
        "the plain value shows somewhere, or this proves nothing"
    );
}
