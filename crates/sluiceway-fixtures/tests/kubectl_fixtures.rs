//! Our own kubectl fixtures (fixtures/kubectl/<version>/), recorded against the local
//! control plane and never edited by hand, held to their scenarios and to what the
//! adapter must read from them.

use std::fs;
use std::path::{Path, PathBuf};

use sluiceway_core::values::ValueList;
use sluiceway_fixtures::race::raced_write;
use sluiceway_fixtures::recorder::check_recording;
use sluiceway_fixtures::replay::{Report, Tool, replay_showing};
use sluiceway_fixtures::scenario::{Step, kubectl_scenarios};
use sluiceway_tools::recording::{Scenario as Recorded, StdoutFormat};
use support::{assert_no_value_left, copy_dir, summary};

mod support;

const VERSIONS: [&str; 2] = ["v1.34.5", "v1.37.1"];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn fixtures() -> PathBuf {
    workspace().join("fixtures/kubectl")
}

/// The example as the scenario left it when its commands ran: every project edit of the
/// scenario applied to a copy (their recorded commands answer the same either way, but
/// what the adapter asks for can depend on the files, as with pruning).
fn project_of(scenario: &str) -> (tempfile::TempDir, PathBuf) {
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path().join("k8s");
    copy_dir(&workspace().join("examples/homelab/k8s"), &root);
    let definition = kubectl_scenarios()
        .into_iter()
        .find(|s| s.name == scenario)
        .unwrap();
    for step in definition.steps {
        match step {
            Step::Edit { file, from, to } => {
                let text = fs::read_to_string(root.join(file)).unwrap();
                fs::write(root.join(file), text.replacen(from, to, 1)).unwrap();
            }
            Step::Write { file, text } => {
                fs::create_dir_all(root.join(file).parent().unwrap()).unwrap();
                fs::write(root.join(file), text).unwrap();
            }
            Step::Remove { file } => fs::remove_file(root.join(file)).unwrap(),
            _ => {}
        }
    }
    (copy, root)
}

fn run(version: &str, scenario: &str) -> Report {
    run_showing(version, scenario, &ValueList::none())
}

fn run_showing(version: &str, scenario: &str, values: &ValueList) -> Report {
    let (_keep, root) = project_of(scenario);
    replay_showing(
        Tool::Kubectl,
        &root,
        &fixtures().join(version).join(scenario),
        values,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

const WEB_CREATES: [&str; 4] = [
    "  create ConfigMap/sluiceway-fixtures/web-settings []",
    "  create Deployment.apps/sluiceway-fixtures/web []",
    "  create Secret/sluiceway-fixtures/web-credentials []",
    "  create Service/sluiceway-fixtures/web []",
];

/// Read by hand from the recordings.
fn expected(version: &str, scenario: &str) -> Vec<String> {
    let lines: Vec<&str> = match scenario {
        "version" => vec![if version == "v1.34.5" {
            "version: v1.34.5"
        } else {
            "version: v1.37.1"
        }],
        "new-stack" => [
            vec!["diff: 4 changes"],
            WEB_CREATES.to_vec(),
            vec![
                "diff-cache: 2 changes",
                "  create Deployment.apps/sluiceway-fixtures/redis []",
                "  create Service/sluiceway-fixtures/redis []",
            ],
        ]
        .concat(),
        "no-changes" | "removed-object" => vec!["diff: 0 changes"],
        "update" => vec![
            "diff: 3 changes",
            "  update ConfigMap/sluiceway-fixtures/web-settings [data.GREETING]",
            "  update Deployment.apps/sluiceway-fixtures/web [spec.replicas, spec.template.spec.containers[0].image]",
            "  update Service/sluiceway-fixtures/web [spec.ports[0].targetPort]",
        ],
        "kustomize-update" => vec![
            "diff: 1 changes",
            "  update Deployment.apps/sluiceway-fixtures/redis [spec.replicas]",
        ],
        "changed-secret" => vec![
            "diff: 1 changes",
            "  update Secret/sluiceway-fixtures/web-credentials [data]",
        ],
        "mixed" => vec![
            "diff: 2 changes",
            "  create ConfigMap/sluiceway-fixtures/web-extra []",
            "  update Deployment.apps/sluiceway-fixtures/web [spec.replicas]",
        ],
        "immutable-field" | "conflict" | "invalid-manifest" | "missing-namespace"
        | "drift-conflict" => {
            vec!["diff: the tool exited with an error (exit code 2)"]
        }
        "kustomize-error" => vec!["kustomize: the tool exited with an error (exit code 1)"],
        "same-diff-twice" => vec![
            "diff: 2 changes",
            "  update ConfigMap/sluiceway-fixtures/web-settings [data.LOG_LEVEL]",
            "  update Deployment.apps/sluiceway-fixtures/web [spec.replicas]",
            "diff-again: 2 changes",
            "  update ConfigMap/sluiceway-fixtures/web-settings [data.LOG_LEVEL]",
            "  update Deployment.apps/sluiceway-fixtures/web [spec.replicas]",
        ],
        "deploy" => [
            vec!["diff: 4 changes"],
            WEB_CREATES.to_vec(),
            vec!["apply: deployed"],
        ]
        .concat(),
        "deploy-failed" => [
            vec!["diff: 4 changes"],
            WEB_CREATES.to_vec(),
            vec!["apply: the tool exited with an error (exit code 1)"],
        ]
        .concat(),
        "log-diff-changed-secret" => vec!["tool-diff: tool diff"],
        "prune-first" => [vec!["diff: 4 changes"], WEB_CREATES.to_vec()].concat(),
        "prune" => vec![
            "diff: 1 changes",
            "  delete ConfigMap/sluiceway-fixtures/web-settings []",
            "apply: deployed",
            "diff-after: 0 changes",
        ],
        "drift-deleted" => vec![
            "diff: 1 changes",
            "  create ConfigMap/sluiceway-fixtures/web-settings []",
            "drift: 1 changes",
            "  create ConfigMap/sluiceway-fixtures/web-settings []",
            "  drift delete ConfigMap/sluiceway-fixtures/web-settings []",
        ],
        "drift-changed" => vec![
            "diff: 2 changes",
            "  update ConfigMap/sluiceway-fixtures/web-settings [data.LOG_LEVEL]",
            "  update Deployment.apps/sluiceway-fixtures/web [spec.replicas]",
            "drift: 2 changes",
            "  update ConfigMap/sluiceway-fixtures/web-settings [data.LOG_LEVEL]",
            "  update Deployment.apps/sluiceway-fixtures/web [spec.replicas]",
            "  drift update ConfigMap/sluiceway-fixtures/web-settings [data.LOG_LEVEL]",
            "  drift update Deployment.apps/sluiceway-fixtures/web [spec.replicas]",
            "apply: deployed",
            "diff-after: 0 changes",
        ],
        "recursive" => [
            vec![
                "diff: 5 changes",
                "  create ConfigMap/sluiceway-fixtures/web-more []",
            ],
            WEB_CREATES.to_vec(),
        ]
        .concat(),
        other => panic!("a fixture no test has read by hand: {other}"),
    };
    lines.into_iter().map(str::to_owned).collect()
}

#[test]
fn each_version_holds_exactly_the_scenarios_and_each_meets_its_expectations() {
    let mut versions: Vec<String> = fs::read_dir(fixtures())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    versions.sort();
    assert_eq!(versions, VERSIONS);
    let scenarios = kubectl_scenarios();
    let mut names: Vec<&str> = scenarios.iter().map(|s| s.name).collect();
    names.sort();
    for version in VERSIONS {
        let mut found: Vec<String> = fs::read_dir(fixtures().join(version))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        found.sort();
        assert_eq!(found, names, "{version}");
        for scenario in &scenarios {
            let dir = fixtures().join(version).join(scenario.name);
            assert_eq!(
                check_recording(scenario, &dir),
                Vec::<String>::new(),
                "{version}/{}",
                scenario.name
            );
            let recorded = Recorded::load(&dir).unwrap();
            assert_eq!(recorded.recording.cli_version, version);
            for (stdout, stderr) in &recorded.outputs {
                for text in [stdout, stderr] {
                    let text = String::from_utf8_lossy(text);
                    assert!(
                        !text.contains("/root/") && !text.contains("/home/"),
                        "{version}/{} names a home directory",
                        scenario.name
                    );
                }
            }
        }
    }
}

#[test]
fn every_fixture_gives_the_changes_read_from_its_recording() {
    for version in VERSIONS {
        for scenario in kubectl_scenarios() {
            assert_eq!(
                summary(&run(version, scenario.name)),
                expected(version, scenario.name),
                "{version}/{}",
                scenario.name
            );
        }
    }
}

/// Decision 0090: every kubectl diff we recorded raced nothing.
#[test]
fn no_fixture_raced_a_write() {
    let mut checked = 0;
    for version in VERSIONS {
        for scenario in kubectl_scenarios() {
            let recorded = Recorded::load(&fixtures().join(version).join(scenario.name)).unwrap();
            for (command, (stdout, _)) in recorded.recording.commands.iter().zip(&recorded.outputs)
            {
                if command.argv.get(1).is_some_and(|a| a == "diff")
                    && matches!(
                        command.stdout_format,
                        StdoutFormat::Diff | StdoutFormat::Text
                    )
                {
                    assert!(
                        !raced_write(&String::from_utf8_lossy(stdout)),
                        "{version}/{} {} raced",
                        scenario.name,
                        command.id
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked, 54);
}

#[test]
fn values_never_leave_the_adapter() {
    let mut raw_has_canary = false;
    for version in VERSIONS {
        for scenario in kubectl_scenarios() {
            let dir = fixtures().join(version).join(scenario.name);
            raw_has_canary |= fs::read_dir(&dir).unwrap().any(|f| {
                String::from_utf8_lossy(&fs::read(f.unwrap().path()).unwrap())
                    .contains("CANARY-VALUE")
            });
            assert_no_value_left(
                &run(version, scenario.name),
                scenario.name,
                &["CANARY-SECRET", "Q0FOQVJZLVNFQ1JFVA"],
            );
        }
    }
    assert!(
        raw_has_canary,
        "the recordings themselves hold the canary, or this test proves nothing"
    );
}

/// Decision 0052: with every path allowed, the ConfigMap's value shows and the Secret's
/// never does, in any form.
#[test]
fn a_secret_never_shows_even_where_every_value_may() {
    let mut shown = false;
    for version in VERSIONS {
        for scenario in kubectl_scenarios() {
            let report = run_showing(version, scenario.name, &ValueList::any_path());
            shown |= support::shows_no_secret(&report, scenario.name, &["Q0FOQVJZLVNFQ1JFVA"]);
        }
    }
    assert!(
        shown,
        "the plain value shows somewhere, or this proves nothing"
    );
}

#[test]
fn each_version_was_recorded_against_a_server_of_its_own_minor_version() {
    for version in VERSIONS {
        let text = fs::read_to_string(
            fixtures()
                .join(version)
                .join("version/server-version.stdout"),
        )
        .unwrap_or_else(|e| panic!("{version}: no server-version recording: {e}"));
        let said: serde_json::Value = serde_json::from_str(&text).unwrap();
        let (client, server) = (&said["clientVersion"], &said["serverVersion"]);
        assert_eq!(client["gitVersion"], version, "{text}");
        assert_eq!(server["major"], client["major"], "{version}: {text}");
        assert_eq!(server["minor"], client["minor"], "{version}: {text}");
        assert_eq!(
            server["gitVersion"].as_str(),
            sluiceway_fixtures::control_plane::server_for(version),
            "{version} is recorded against the server we build for it"
        );
    }
}
