//! The two wrappers held to the conformance corpus (decision 0068): every scenario the
//! reference recorded with CDK for Terraform v0.21.0 and with Terragrunt v1.0.0, both with
//! OpenTofu behind them, replayed through our adapter, with the changes and failure
//! reasons read from the recordings by hand; and their canaries never leave the adapter.

use std::path::Path;

use sluiceway_core::values::ValueList;
use sluiceway_fixtures::replay::{Report, Tool, replay_showing};
use support::{assert_no_value_left, corpus, scenario_names, shows_no_secret, summary};

mod support;

fn run(tool: Tool, corpus: &Path, version: &str, scenario: &str) -> Report {
    run_showing(tool, corpus, version, scenario, &ValueList::none())
}

fn run_showing(
    tool: Tool,
    corpus: &Path,
    version: &str,
    scenario: &str,
    values: &ValueList,
) -> Report {
    replay_showing(
        tool,
        &corpus.join("example"),
        &corpus.join(version).join(scenario),
        values,
    )
    .unwrap_or_else(|e| panic!("{scenario}: {e}"))
}

fn lines(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|l| (*l).to_owned()).collect()
}

fn cdktf_expected(scenario: &str) -> Vec<String> {
    const CREATE: &str = "  create terraform_data.config []";
    match scenario {
        "version" => lines(&["version: v0.21.0"]),
        "new-stack" => lines(&[
            "synth: prepared",
            "init: prepared",
            "plan: 1 changes",
            CREATE,
        ]),
        "other-stack" => lines(&["plan: 1 changes", CREATE]),
        "deploy" => lines(&["plan: 1 changes", CREATE, "apply: deployed"]),
        "no-changes" => lines(&["plan: 0 changes"]),
        "update" => lines(&[
            "plan: 1 changes",
            "  update terraform_data.config [input.greeting, output]",
        ]),
        "program-error" => lines(&["synth: the tool exited with an error (exit code 1)"]),
        other => panic!("the corpus holds a scenario no test has read by hand: {other}"),
    }
}

fn terragrunt_expected(scenario: &str) -> Vec<String> {
    const CREATES: [&str; 2] = [
        "  create random_pet.name []",
        "  create terraform_data.config []",
    ];
    match scenario {
        "version" => lines(&["version: v1.0.0"]),
        "new-stack" => lines(&[&["init: prepared", "plan: 2 changes"][..], &CREATES].concat()),
        "deploy" => lines(&[&["plan: 2 changes"][..], &CREATES, &["apply: deployed"]].concat()),
        "no-changes" => lines(&["plan: 0 changes"]),
        "update" => lines(&[
            "plan: 1 changes",
            "  update terraform_data.config [input.greeting, output]",
        ]),
        "init-failed" => lines(&["init: the tool exited with an error (exit code 1)"]),
        "program-error" => lines(&["plan: the tool exited with an error (exit code 1)"]),
        "log-diff-changed-secret" => lines(&["diff: tool diff"]),
        other => panic!("the corpus holds a scenario no test has read by hand: {other}"),
    }
}

#[test]
fn every_cdktf_scenario_gives_the_changes_read_from_its_recording() {
    let Some(corpus) = corpus("cdktf") else {
        return;
    };
    let names = scenario_names(&corpus.join("v0.21.0"));
    assert_eq!(names.len(), 7);
    for scenario in names {
        assert_eq!(
            summary(&run(Tool::Cdktf, &corpus, "v0.21.0", &scenario)),
            cdktf_expected(&scenario),
            "{scenario}"
        );
    }
}

#[test]
fn every_terragrunt_scenario_gives_the_changes_read_from_its_recording() {
    let Some(corpus) = corpus("terragrunt") else {
        return;
    };
    let names = scenario_names(&corpus.join("v1.0.0"));
    assert_eq!(names.len(), 8);
    for scenario in names {
        assert_eq!(
            summary(&run(Tool::Terragrunt, &corpus, "v1.0.0", &scenario)),
            terragrunt_expected(&scenario),
            "{scenario}"
        );
    }
}

/// Each stack of one app is its own: the two stacks' first plans name the same resource,
/// and their hashes differ because their ids do.
#[test]
fn the_stacks_of_one_app_are_told_apart_by_their_names() {
    let Some(corpus) = corpus("cdktf") else {
        return;
    };
    let hash = |scenario: &str| {
        serde_json::to_value(run(Tool::Cdktf, &corpus, "v0.21.0", scenario)).unwrap()["steps"]
            [0]["hash"]
            .clone()
    };
    assert_ne!(hash("other-stack"), hash("deploy"));
}

/// Neither canary leaves the adapter, and with every path allowed the plain one shows
/// and the sensitive one never does.
#[test]
fn values_never_leave_the_adapter_through_a_wrapper() {
    for (tool, name, version) in [
        (Tool::Cdktf, "cdktf", "v0.21.0"),
        (Tool::Terragrunt, "terragrunt", "v1.0.0"),
    ] {
        let Some(corpus) = corpus(name) else {
            continue;
        };
        let mut shown = false;
        for scenario in scenario_names(&corpus.join(version)) {
            let label = format!("{name} {scenario}");
            assert_no_value_left(&run(tool, &corpus, version, &scenario), &label, &[]);
            let all = run_showing(tool, &corpus, version, &scenario, &ValueList::any_path());
            shown |= shows_no_secret(&all, &label, &[]);
        }
        assert!(
            shown,
            "{name}: the plain value shows somewhere, or this proves nothing"
        );
    }
}
