//! The kubectl adapter held to the conformance corpus: every scenario the reference's CI
//! recorded against a kind cluster, replayed through our adapter, with the exact changes,
//! drift and failure reasons read from the recordings by hand. The corpus lives outside
//! this repository (`../shared/conformance/kubectl`); without it these tests say so and
//! pass nothing off as checked.

#![allow(
    clippy::print_stderr,
    reason = "a skipped corpus is announced on stderr"
)]

use std::fs;
use std::path::{Path, PathBuf};

use sluiceway_core::values::ValueList;
use sluiceway_fixtures::race::raced_write;
use sluiceway_fixtures::replay::{Report, StepOutcome, Tool, replay, replay_showing};
use support::{assert_no_value_left, copy_dir, summary};

mod support;
use sluiceway_tools::recording::{Scenario, StdoutFormat};

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/kubectl");
    if dir.is_dir() {
        Some(dir)
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
        );
        eprintln!(
            "notice: {} is absent; the kubectl conformance corpus was not replayed",
            dir.display()
        );
        None
    }
}

fn versions(corpus: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = fs::read_dir(corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with('v'))
        .collect();
    dirs.sort();
    dirs
}

/// The example as it was when a scenario was recorded: scenarios that take a manifest
/// out change what the adapter asks for, so they get a copy with that file removed.
fn project(corpus: &Path, scenario: &str) -> (tempfile::TempDir, PathBuf) {
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path().join("example");
    copy_dir(&corpus.join("example"), &root);
    if scenario == "prune" {
        fs::remove_file(root.join("web/configmap.yaml")).unwrap();
    }
    (copy, root)
}

fn run(corpus: &Path, version: &Path, scenario: &str) -> Report {
    let (_keep, root) = project(corpus, scenario);
    replay(Tool::Kubectl, &root, &version.join(scenario)).unwrap_or_else(|e| panic!("{e}"))
}

/// Decision 0052 over the corpus: with every path allowed, the Secret never shows.
#[test]
fn a_secret_of_the_corpus_never_shows_even_where_every_value_may() {
    let Some(corpus) = corpus() else { return };
    let mut shown = false;
    for version in versions(&corpus) {
        for entry in fs::read_dir(&version).unwrap() {
            let scenario = entry.unwrap().file_name().into_string().unwrap();
            let (_keep, root) = project(&corpus, &scenario);
            let report = replay_showing(
                Tool::Kubectl,
                &root,
                &version.join(&scenario),
                &ValueList::any_path(),
            )
            .unwrap_or_else(|e| panic!("{e}"));
            shown |= support::shows_no_secret(&report, &scenario, &["Q0FOQVJZLVNFQ1JFVA"]);
        }
    }
    assert!(
        shown,
        "the plain value shows somewhere, or this proves nothing"
    );
}

const WEB_CREATES: [&str; 4] = [
    "  create ConfigMap/sluiceway-example/web-settings []",
    "  create Deployment.apps/sluiceway-example/web []",
    "  create Secret/sluiceway-example/web-credentials []",
    "  create Service/sluiceway-example/web []",
];

fn expected(scenario: &str) -> Vec<String> {
    let lines: Vec<&str> = match scenario {
        "version" => vec!["version: v1.34.0"],
        "new-stack" => [
            vec!["diff: 4 changes"],
            WEB_CREATES.to_vec(),
            vec![
                "diff-cache: 2 changes",
                "  create Deployment.apps/sluiceway-example/cache []",
                "  create Service/sluiceway-example/cache []",
            ],
        ]
        .concat(),
        "no-changes" | "removed-object" => vec!["diff: 0 changes"],
        "update" => vec![
            "diff: 3 changes",
            "  update ConfigMap/sluiceway-example/web-settings [data.greeting]",
            "  update Deployment.apps/sluiceway-example/web [spec.replicas, spec.template.spec.containers[0].image]",
            "  update Service/sluiceway-example/web [spec.ports[0].targetPort]",
        ],
        "kustomize-update" => vec![
            "diff: 1 changes",
            "  update Deployment.apps/sluiceway-example/cache [spec.replicas]",
        ],
        "changed-secret" => vec![
            "diff: 1 changes",
            "  update Secret/sluiceway-example/web-credentials [data]",
        ],
        "mixed" => vec![
            "diff: 2 changes",
            "  create ConfigMap/sluiceway-example/web-extra []",
            "  update Deployment.apps/sluiceway-example/web [spec.replicas]",
        ],
        "immutable-field" | "conflict" | "invalid-manifest" | "missing-namespace"
        | "drift-conflict" => {
            vec!["diff: the tool exited with an error (exit code 2)"]
        }
        "kustomize-error" => vec!["kustomize: the tool exited with an error (exit code 1)"],
        "same-diff-twice" => vec![
            "diff: 2 changes",
            "  update ConfigMap/sluiceway-example/web-settings [data.greeting]",
            "  update Deployment.apps/sluiceway-example/web [spec.replicas]",
            "diff-again: 2 changes",
            "  update ConfigMap/sluiceway-example/web-settings [data.greeting]",
            "  update Deployment.apps/sluiceway-example/web [spec.replicas]",
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
            "  delete ConfigMap/sluiceway-example/web-settings []",
            "apply: deployed",
            "diff-after: 0 changes",
        ],
        "drift-deleted" => vec![
            "diff: 1 changes",
            "  create ConfigMap/sluiceway-example/web-settings []",
            "drift: 1 changes",
            "  create ConfigMap/sluiceway-example/web-settings []",
            "  drift delete ConfigMap/sluiceway-example/web-settings []",
        ],
        "drift-changed" => vec![
            "diff: 2 changes",
            "  update ConfigMap/sluiceway-example/web-settings [data[\"log-level\"]]",
            "  update Deployment.apps/sluiceway-example/web [spec.replicas]",
            "drift: 2 changes",
            "  update ConfigMap/sluiceway-example/web-settings [data[\"log-level\"]]",
            "  update Deployment.apps/sluiceway-example/web [spec.replicas]",
            "  drift update ConfigMap/sluiceway-example/web-settings [data[\"log-level\"]]",
            "  drift update Deployment.apps/sluiceway-example/web [spec.replicas]",
            "apply: deployed",
            "diff-after: 0 changes",
        ],
        "recursive" => vec![
            "diff: 5 changes",
            "  create ConfigMap/sluiceway-example/web-more []",
            "  create ConfigMap/sluiceway-example/web-settings []",
            "  create Deployment.apps/sluiceway-example/web []",
            "  create Secret/sluiceway-example/web-credentials []",
            "  create Service/sluiceway-example/web []",
        ],
        other => panic!("the corpus holds a scenario no test has read by hand: {other}"),
    };
    lines.into_iter().map(str::to_owned).collect()
}

#[test]
fn every_scenario_gives_the_changes_read_from_its_recording() {
    let Some(corpus) = corpus() else { return };
    let mut replayed = 0;
    for version in versions(&corpus) {
        let mut scenarios: Vec<String> = fs::read_dir(&version)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        scenarios.sort();
        assert_eq!(scenarios.len(), 23, "{}", version.display());
        for scenario in scenarios {
            let report = run(&corpus, &version, &scenario);
            assert_eq!(
                summary(&report),
                expected(&scenario),
                "{}/{scenario}",
                version.display()
            );
            replayed += 1;
        }
    }
    assert!(replayed >= 23);
}

#[test]
fn the_same_diff_has_the_same_hash_and_no_change_has_the_empty_hash() {
    let Some(corpus) = corpus() else { return };
    let version = &versions(&corpus)[0];
    let hashes = |scenario: &str| -> Vec<String> {
        run(&corpus, version, scenario)
            .steps
            .iter()
            .filter_map(|s| match &s.outcome {
                StepOutcome::Diff { hash, .. } => Some(hash.clone()),
                _ => None,
            })
            .collect()
    };
    let twice = hashes("same-diff-twice");
    assert_eq!(twice[0], twice[1]);
    let empty = sluiceway_core::diff::Diff {
        stack: sluiceway_core::stack::StackId::derive("web", None),
        changes: vec![],
        drift: None,
    };
    assert_eq!(hashes("no-changes"), [empty.hash()]);
    assert_eq!(
        hashes("prune")[1],
        empty.hash(),
        "a stack whose only difference is its inventory is in sync"
    );
}

/// Record 0021: no value leaves the adapter. The example's ConfigMap holds CANARY-VALUE
/// and its Secret CANARY-SECRET; neither may appear in any diff, hash input, failure, or
/// log line, nor kubectl's Secret mask. The tool diff, for the job log only, may show
/// the ConfigMap's value and never the Secret's.
#[test]
fn values_never_leave_the_adapter() {
    let Some(corpus) = corpus() else { return };
    let secret_forms = ["CANARY-SECRET", "Q0FOQVJZLVNFQ1JFVA"];
    let mut tool_diffs_seen = 0;
    let mut raw_has_canary = false;
    for version in versions(&corpus) {
        for entry in fs::read_dir(&version).unwrap() {
            let scenario = entry.unwrap().file_name().into_string().unwrap();
            let raw: String = fs::read_dir(version.join(&scenario))
                .unwrap()
                .map(|f| {
                    String::from_utf8_lossy(&fs::read(f.unwrap().path()).unwrap()).into_owned()
                })
                .collect();
            raw_has_canary |= raw.contains("CANARY-VALUE");
            let report = run(&corpus, &version, &scenario);
            tool_diffs_seen += report.produced.tool_diffs.len();
            assert_no_value_left(&report, &scenario, &secret_forms);
        }
    }
    assert!(
        raw_has_canary,
        "the recordings themselves must hold the canary, or this test proves nothing"
    );
    assert!(tool_diffs_seen >= 1);
}

/// Decision 0090: every recorded kubectl diff of the corpus raced nothing.
#[test]
fn no_recorded_diff_raced_a_write() {
    let Some(corpus) = corpus() else { return };
    let mut checked = 0;
    for version in versions(&corpus) {
        for entry in fs::read_dir(&version).unwrap() {
            let scenario = Scenario::load(&entry.unwrap().path()).unwrap();
            for (command, (stdout, _)) in scenario.recording.commands.iter().zip(&scenario.outputs)
            {
                let is_diff = command.argv.get(1).is_some_and(|a| a == "diff");
                if is_diff
                    && matches!(
                        command.stdout_format,
                        StdoutFormat::Diff | StdoutFormat::Text
                    )
                {
                    assert!(
                        !raced_write(&String::from_utf8_lossy(stdout)),
                        "{} {} raced",
                        scenario.label,
                        command.id
                    );
                    checked += 1;
                }
            }
        }
    }
    assert_eq!(checked % 27, 0, "27 recorded diffs per version");
    assert!(checked >= 27);
}

#[test]
fn a_scenario_that_cannot_be_replayed_says_why() {
    let Some(corpus) = corpus() else { return };
    let version = &versions(&corpus)[0];
    let error = replay(
        Tool::Kubectl,
        &corpus.join("example"),
        &version.join("prune"),
    )
    .unwrap_err()
    .to_string();
    assert!(
        error.contains("prune: the recording holds commands the adapter never asked for: live"),
        "{error}"
    );
    let missing = replay(
        Tool::Kubectl,
        &corpus.join("example"),
        &version.join("no-such-scenario"),
    )
    .unwrap_err();
    assert!(
        missing
            .to_string()
            .contains("no-such-scenario: recording.json is missing"),
        "{missing}"
    );
}
