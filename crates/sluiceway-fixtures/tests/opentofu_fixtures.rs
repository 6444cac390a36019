//! Our own OpenTofu (v1.6.2) and Terraform (v1.11.4) fixtures, recorded by the recorder
//! with the real binaries and never edited by hand, held to their scenarios and to what
//! the adapter must read from them.

use std::fs;
use std::path::{Path, PathBuf};

use sluiceway_core::values::ValueList;
use sluiceway_fixtures::recorder::check_recording;
use sluiceway_fixtures::replay::{Report, Tool, replay_showing};
use sluiceway_fixtures::scenario::opentofu_scenarios;
use sluiceway_tools::recording::Scenario as Recorded;
use support::summary;

mod support;

/// (tool, binary, version directory)
const SETS: [(Tool, &str, &str); 2] = [
    (Tool::Opentofu, "tofu", "opentofu/v1.6.2"),
    (Tool::Terraform, "terraform", "terraform/v1.11.4"),
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn run(tool: Tool, set: &str, scenario: &str) -> Report {
    run_showing(tool, set, scenario, &ValueList::none())
}

fn run_showing(tool: Tool, set: &str, scenario: &str, values: &ValueList) -> Report {
    let example = workspace().join("examples/tofu-lab");
    replay_showing(
        tool,
        &example,
        &workspace().join("fixtures").join(set).join(scenario),
        values,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

const CREATES: [&str; 4] = [
    "  create terraform_data.config []",
    "  create terraform_data.name []",
    "  create terraform_data.notes []",
    "  create terraform_data.trigger []",
];

/// Read by hand from the recordings (the two binaries plan the same changes).
fn expected(scenario: &str, version: &str) -> Vec<String> {
    let notes_replaced =
        "  replace terraform_data.notes [id, input, output, triggers_replace, triggers_replace[0]]";
    let lines: Vec<String> = match scenario {
        "version" => vec![format!("version: {version}")],
        "new-stack" => [vec!["init: prepared", "plan: 4 changes"], CREATES.to_vec()]
            .concat()
            .into_iter()
            .map(str::to_owned)
            .collect(),
        _ => {
            let lines: Vec<&str> = match scenario {
                "other-workspace" => [vec!["plan: 4 changes"], CREATES.to_vec()].concat(),
                "deploy" => [
                    vec!["plan: 4 changes"],
                    CREATES.to_vec(),
                    vec!["apply: deployed"],
                ]
                .concat(),
                "same-plan-twice" => [
                    vec!["plan: 4 changes"],
                    CREATES.to_vec(),
                    vec!["plan-again: 4 changes"],
                    CREATES.to_vec(),
                ]
                .concat(),
                "no-changes" | "outputs-only" => vec!["plan: 0 changes"],
                "update" => vec![
                    "plan: 1 changes",
                    "  update terraform_data.config [input.greeting, output]",
                ],
                "stale-plan" => vec![
                    "plan: 1 changes",
                    "  update terraform_data.config [input.greeting, output]",
                    "apply: the tool exited with an error (exit code 1)",
                ],
                "replace" => vec!["plan: 1 changes", notes_replaced],
                "delete" => vec!["plan: 1 changes", "  delete terraform_data.trigger []"],
                "mixed" => vec![
                    "plan: 4 changes",
                    "  update terraform_data.config [input.greeting, output]",
                    "  create terraform_data.extra []",
                    notes_replaced,
                    "  delete terraform_data.trigger []",
                ],
                "move" => vec!["plan: 1 changes", "  none terraform_data.pet []"],
                "import" => vec!["plan: 1 changes", "  none terraform_data.imported []"],
                "forget" => vec!["plan: 1 changes", "  none terraform_data.trigger []"],
                "changed-secret" => vec![
                    "plan: 2 changes",
                    "  update terraform_data.config [input.secret, output]",
                    "  replace terraform_data.trigger [id, triggers_replace, triggers_replace.secret]",
                ],
                "deploy-failed" => vec![
                    "plan: 1 changes",
                    "  create terraform_data.fails []",
                    "apply: the tool exited with an error (exit code 1)",
                ],
                "init-failed" => vec!["init: the tool exited with an error (exit code 1)"],
                "missing-variable" | "program-error" => {
                    vec!["plan: the tool exited with an error (exit code 1)"]
                }
                "state-locked" => vec!["plan: another update holds the stack's state lock"],
                "log-diff-changed-secret" => vec!["diff: tool diff"],
                other => panic!("a fixture no test has read by hand: {other}"),
            };
            lines.into_iter().map(str::to_owned).collect()
        }
    };
    lines
}

#[test]
fn each_set_holds_exactly_its_scenarios_and_each_meets_its_expectations() {
    for (_, binary, set) in SETS {
        let scenarios = opentofu_scenarios(binary);
        let mut names: Vec<&str> = scenarios.iter().map(|s| s.name).collect();
        names.sort();
        let dir = workspace().join("fixtures").join(set);
        let mut found: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        found.sort();
        assert_eq!(found, names, "{set}");
        for scenario in &scenarios {
            let path = dir.join(scenario.name);
            assert_eq!(
                check_recording(scenario, &path),
                Vec::<String>::new(),
                "{set}/{}",
                scenario.name
            );
            let recorded = Recorded::load(&path).unwrap();
            assert!(set.ends_with(&recorded.recording.cli_version), "{set}");
            for (stdout, stderr) in &recorded.outputs {
                for text in [stdout, stderr] {
                    let text = String::from_utf8_lossy(text);
                    assert!(
                        !text.contains("/root/") && !text.contains("/home/"),
                        "{set}/{} names a home directory",
                        scenario.name
                    );
                }
            }
        }
    }
}

#[test]
fn every_fixture_gives_the_changes_read_from_its_recording() {
    for (tool, binary, set) in SETS {
        let version = set.rsplit('/').next().unwrap();
        for scenario in opentofu_scenarios(binary) {
            assert_eq!(
                summary(&run(tool, set, scenario.name)),
                expected(scenario.name, version),
                "{set}/{}",
                scenario.name
            );
        }
    }
}

/// Decision 0052: with every path allowed, a plain value shows and a sensitive one
/// never does.
#[test]
fn a_secret_never_shows_even_where_every_value_may() {
    let mut shown = false;
    for (tool, binary, set) in SETS {
        for scenario in opentofu_scenarios(binary) {
            let report = run_showing(tool, set, scenario.name, &ValueList::any_path());
            shown |= support::shows_no_secret(&report, scenario.name, &[]);
        }
    }
    assert!(
        shown,
        "the plain value shows somewhere, or this proves nothing"
    );
}

/// Sensitive values never leave the adapter, not even into the job log; plain values
/// stay out of everything but the tool's own diff.
#[test]
fn values_never_leave_the_adapter() {
    for (tool, binary, set) in SETS {
        for scenario in opentofu_scenarios(binary) {
            let report = run(tool, set, scenario.name);
            let json = serde_json::to_string(&report).unwrap();
            let produced = &report.produced;
            for text in [
                &json,
                &produced.hash_inputs.join("\n"),
                &produced.log_lines.join("\n"),
            ] {
                assert!(
                    !text.contains("CANARY-SECRET"),
                    "{set}/{}: a sensitive value left the adapter",
                    scenario.name
                );
            }
            for text in [&json, &produced.hash_inputs.join("\n")] {
                assert!(
                    !text.contains("CANARY-VALUE"),
                    "{set}/{}: a value left the adapter",
                    scenario.name
                );
            }
        }
    }
}
