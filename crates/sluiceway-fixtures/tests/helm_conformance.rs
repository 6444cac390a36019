//! The Helm adapter held to the conformance corpus: every scenario the reference's CI
//! recorded with helm v3.18.0 and the helm-diff plugin against a kind cluster, replayed
//! through our plugin path, with the exact changes, drift and failure reasons read from
//! the recordings by hand. The corpus lives outside this repository
//! (`../shared/conformance/helm`); without it these tests say so and pass nothing off
//! as checked.

use std::path::{Path, PathBuf};

use sluiceway_core::values::ValueList;
use sluiceway_fixtures::replay::{Report, Tool, replay, replay_showing};
use support::{assert_no_value_left, summary};

mod support;

fn corpus() -> Option<PathBuf> {
    support::corpus("helm")
}

pub fn run(corpus: &Path, scenario: &str) -> Report {
    replay(
        Tool::Helm,
        &corpus.join("example"),
        &corpus.join("v3.18.0").join(scenario),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

const WEB_ADDS: [&str; 3] = [
    "  create ConfigMap/sluiceway-web/web-settings []",
    "  create Secret/sluiceway-web/web-token []",
    "  create Service/sluiceway-web/web []",
];

/// Read by hand from the recordings.
pub fn expected(scenario: &str) -> Vec<String> {
    let lines: Vec<&str> = match scenario {
        "version" => vec!["version: helm v3.18.0 is too old; Sluiceway needs helm v3.19.0 or newer"],
        "new-stack" => [vec!["diff: 3 changes"], WEB_ADDS.to_vec()].concat(),
        "no-changes" => vec!["diff: 0 changes"],
        "update" => vec![
            "diff: 2 changes",
            "  update ConfigMap/sluiceway-web/web-settings [data[\"app.properties\"], metadata.labels[\"app.kubernetes.io/version\"]]",
            "  update Service/sluiceway-web/web [spec.ports[0].port]",
        ],
        "create" => vec![
            "diff: 1 changes",
            "  create ConfigMap/sluiceway-web/web-extra []",
        ],
        "delete" => vec![
            "diff: 1 changes",
            "  delete ConfigMap/sluiceway-web/web-extra []",
        ],
        "mixed" => vec![
            "diff: 3 changes",
            "  delete ConfigMap/sluiceway-web/web-extra []",
            "  create ConfigMap/sluiceway-web/web-nonce []",
            "  update ConfigMap/sluiceway-web/web-settings [data[\"app.properties\"]]",
        ],
        "changed-secret" => vec![
            "diff: 1 changes",
            "  update Secret/sluiceway-web/web-token [data]",
        ],
        "create-namespace" => vec![
            "diff: 3 changes",
            "  create ConfigMap/sluiceway-new/web-settings []",
            "  create Secret/sluiceway-new/web-token []",
            "  create Service/sluiceway-new/web []",
            "render-again: deployed",
            "diff-after: 0 changes",
        ],
        "dependencies" => vec![
            "dependencies: prepared",
            "diff: 3 changes",
            "  create ConfigMap/sluiceway-worker/worker-settings []",
            "  create Secret/sluiceway-worker/worker-token []",
            "  create Service/sluiceway-worker/worker []",
        ],
        "dependencies-failed" => {
            vec!["dependencies: the tool exited with an error (exit code 1)"]
        }
        "dependencies-nested" => vec![
            "dependencies-web: prepared",
            "dependencies: prepared",
            "diff: 4 changes",
            "  create ConfigMap/sluiceway-worker/worker-base []",
            "  create ConfigMap/sluiceway-worker/worker-settings []",
            "  create Secret/sluiceway-worker/worker-token []",
            "  create Service/sluiceway-worker/worker []",
        ],
        "deploy" => [
            vec!["diff: 3 changes"],
            WEB_ADDS.to_vec(),
            vec!["render-again: deployed", "diff-after: 0 changes"],
        ]
        .concat(),
        "deploy-failed" => vec![
            "diff: 1 changes",
            "  update Service/sluiceway-web/web [spec.ports[0].port]",
            "render-again: the tool exited with an error (exit code 1)",
        ],
        "drift" => vec![
            "diff: 0 changes",
            "diff-again: 0 changes",
            "  drift update ConfigMap/sluiceway-web/web-settings [data.greeting]",
            "  drift delete Secret/sluiceway-web/web-token []",
            "  drift update Service/sluiceway-web/web [spec.ports[0].targetPort]",
        ],
        "drift-and-change" => vec![
            "diff: 2 changes",
            "  update ConfigMap/sluiceway-web/web-settings [data[\"app.properties\"]]",
            "  update Service/sluiceway-web/web [spec.ports[0].port]",
            "diff-again: 2 changes",
            "  update ConfigMap/sluiceway-web/web-settings [data[\"app.properties\"]]",
            "  update Service/sluiceway-web/web [spec.ports[0].port]",
            "  drift update ConfigMap/sluiceway-web/web-settings [data.greeting]",
        ],
        "drift-hooks" => vec!["diff: 0 changes", "diff-again: 0 changes"],
        "drift-repaired" => vec![
            "diff: 0 changes",
            "diff-again: 0 changes",
            "  drift update ConfigMap/sluiceway-web/web-settings [data.greeting]",
            "  drift delete Secret/sluiceway-web/web-token []",
            "render-again: deployed",
            "diff-after: 0 changes",
        ],
        "log-diff" => vec!["tool-diff: tool diff"],
        "program-error" => vec!["diff: the tool exited with an error (exit code 1)"],
        "same-diff-twice" => vec![
            "diff: 2 changes",
            "  update ConfigMap/sluiceway-web/web-settings [data[\"app.properties\"]]",
            "  update Service/sluiceway-web/web [spec.ports[0].port]",
            "diff-again: 2 changes",
            "  update ConfigMap/sluiceway-web/web-settings [data[\"app.properties\"]]",
            "  update Service/sluiceway-web/web [spec.ports[0].port]",
        ],
        "unstable-render" => [
            vec!["diff: 4 changes", "  create ConfigMap/sluiceway-web/web-nonce []"],
            WEB_ADDS.to_vec(),
            vec!["render-again: what would be deployed changed after its preview; nothing was deployed"],
        ]
        .concat(),
        other => panic!("no expectation for {other}; read it from the recording and add it"),
    };
    lines.into_iter().map(str::to_owned).collect()
}

pub fn scenarios(corpus: &Path) -> Vec<String> {
    support::scenario_names(&corpus.join("v3.18.0"))
}

#[test]
fn every_corpus_scenario_reads_as_the_recording_says() {
    let Some(corpus) = corpus() else { return };
    let names = scenarios(&corpus);
    assert_eq!(names.len(), 22, "the corpus holds 22 Helm scenarios");
    for name in &names {
        assert_eq!(summary(&run(&corpus, name)), expected(name), "{name}");
    }
}

#[test]
fn the_same_diff_twice_has_one_hash() {
    let Some(corpus) = corpus() else { return };
    let json = serde_json::to_value(run(&corpus, "same-diff-twice")).unwrap();
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(steps[0]["hash"], steps[1]["hash"]);
}

/// Decision 0052 over the corpus: with every path allowed, a Secret never shows.
#[test]
fn a_secret_of_the_corpus_never_shows_even_where_every_value_may() {
    let Some(corpus) = corpus() else { return };
    let mut shown = false;
    for name in scenarios(&corpus) {
        let report = replay_showing(
            Tool::Helm,
            &corpus.join("example"),
            &corpus.join("v3.18.0").join(&name),
            &ValueList::any_path(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        support::shows_no_secret(&report, &name, &[]);
        shown |= report
            .produced
            .hash_inputs
            .join("\n")
            .contains("\"values\":[");
    }
    assert!(
        shown,
        "the plugin's values show somewhere, or this proves nothing"
    );
}

#[test]
fn no_value_of_the_corpus_leaves_the_adapter() {
    let Some(corpus) = corpus() else { return };
    for name in scenarios(&corpus) {
        assert_no_value_left(&run(&corpus, &name), &name, &["CANARY-SECRET"]);
    }
}
