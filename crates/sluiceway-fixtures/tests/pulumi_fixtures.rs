//! Our own Pulumi fixtures (fixtures/pulumi/v3.229.0/), recorded with the Pulumi CLI we
//! build from the Go module proxy, its YAML language host and Kubernetes provider,
//! against the local control plane on `examples/pulumi-lab`, and never edited by hand:
//! held to their scenarios, to what the adapter must read from them, and to the value
//! rule.

use std::fs;
use std::path::{Path, PathBuf};

use sluiceway_core::values::ValueList;
use sluiceway_fixtures::recorder::check_recording;
use sluiceway_fixtures::replay::{Report, Tool, replay, replay_showing};
use sluiceway_fixtures::scenario::pulumi_scenarios;
use support::summary;

mod support;

const VERSION: &str = "v3.229.0";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn fixtures() -> PathBuf {
    workspace().join("fixtures/pulumi").join(VERSION)
}

fn example() -> PathBuf {
    workspace().join("examples/pulumi-lab")
}

fn run_dir(dir: &Path) -> Report {
    replay(Tool::Pulumi, &example(), dir).unwrap_or_else(|e| panic!("{e}"))
}

/// Decisions 0052 and 0102 on Pulumi's recordings: an update's values are covered by its
/// fingerprint, the same preview twice has one, a listed path shows `old → new` and
/// joins the hash, and a secret is a mark whose value is never read.
#[test]
fn pulumi_changes_carry_a_fingerprint_and_show_the_listed_values() {
    let twice = run("same-preview-twice").produced.fingerprints;
    assert!(twice.len() >= 2 && twice[0].is_some(), "{twice:?}");
    assert!(twice.windows(2).all(|w| w[0] == w[1]), "{twice:?}");
    let plain = run("nested-paths");
    let shown = replay_showing(
        Tool::Pulumi,
        &example(),
        &fixtures().join("nested-paths"),
        &ValueList::new(["spec.template.spec.containers[*].env[*].value".to_owned()]),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let inputs = shown.produced.hash_inputs.join("\n");
    assert!(
        inputs.contains(r#"{"new":"CANARY-VALUE-2","old":"CANARY-VALUE","path":"spec.template.spec.containers[0].env[0].value"}"#),
        "{inputs}"
    );
    assert_ne!(
        plain.produced.hash_inputs, shown.produced.hash_inputs,
        "shown values join the hash"
    );
    assert_ne!(
        plain.produced.fingerprints, shown.produced.fingerprints,
        "a shown value leaves the fingerprint"
    );
    let secret = run("changed-secret").produced.fingerprints;
    assert!(
        secret.iter().any(Option::is_some),
        "a changed secret is a mark: {secret:?}"
    );
}

/// Decision 0052: with every path allowed, a plain input shows and a secret (Pulumi's
/// `[secret]`) never does.
#[test]
fn a_secret_never_shows_even_where_every_value_may() {
    let mut shown = false;
    for scenario in pulumi_scenarios() {
        let report = replay_showing(
            Tool::Pulumi,
            &example(),
            &fixtures().join(scenario.name),
            &ValueList::any_path(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        shown |= support::shows_no_secret(&report, scenario.name, &[]);
    }
    assert!(
        shown,
        "the plain value shows somewhere, or this proves nothing"
    );
}

fn run(scenario: &str) -> Report {
    run_dir(&fixtures().join(scenario))
}

const K8S: &str = "urn:pulumi:dev::network::kubernetes:core/v1:";
const BUSY: &str = "another update holds the stack's state lock";
const NO_STACK: &str = "the backend has no stack of this name; create it, or set createInBackend";
const EXIT_1: &str = "the tool exited with an error (exit code 1)";

fn network_creates(stack: &str) -> Vec<String> {
    [
        "ConfigMap::routes",
        "ConfigMap::settings",
        "Secret::credentials",
    ]
    .iter()
    .map(|r| {
        format!(
            "  create {} []",
            format!("{K8S}{r}").replace(":dev::", &format!(":{stack}::"))
        )
    })
    .collect()
}

fn lines(text: &[&str]) -> Vec<String> {
    text.iter().map(|l| (*l).to_owned()).collect()
}

/// Read by hand from the recordings.
fn expected(scenario: &str) -> Vec<String> {
    let three = |id: &str| [vec![format!("{id}: 3 changes")], network_creates("dev")].concat();
    let secret = format!("  replace {K8S}Secret::credentials [data.token]");
    let stuck = "  create urn:pulumi:dev::network::kubernetes:apps/v1:Deployment::stuck []";
    match scenario {
        "version" => lines(&["version: v3.229.0"]),
        "new-stack" => three("preview"),
        "same-preview-twice" => [three("preview-1"), three("preview-2")].concat(),
        "new-stack-without-resources" => lines(&[
            "preview: 1 changes",
            "  create urn:pulumi:dev::empty::pulumi:pulumi:Stack::empty-dev []",
        ]),
        "new-stack-yml-project" => lines(&[
            "preview: 1 changes",
            "  create urn:pulumi:dev::app::kubernetes:core/v1:ConfigMap::release []",
        ]),
        "stack-reference" => lines(&[
            "preview: 1 changes",
            "  create urn:pulumi:dev::app::kubernetes:core/v1:ConfigMap::release []",
            "preview-deployed: 0 changes",
        ]),
        "no-changes" | "outputs-only" | "renamed-with-alias" => lines(&["preview: 0 changes"]),
        "update" => vec![
            "preview: 1 changes".into(),
            format!("  update {K8S}ConfigMap::routes [metadata.labels.tier]"),
        ],
        "replace" => vec![
            "preview: 1 changes".into(),
            format!("  replace {K8S}ConfigMap::settings [data.note]"),
        ],
        "delete" => vec![
            "preview: 1 changes".into(),
            format!("  delete {K8S}ConfigMap::routes []"),
        ],
        "mixed" => vec![
            "preview: 3 changes".into(),
            format!("  create {K8S}ConfigMap::extra []"),
            format!("  update {K8S}ConfigMap::routes [metadata.labels.tier]"),
            format!("  replace {K8S}ConfigMap::settings [data.note]"),
        ],
        "import" => vec![
            "preview: 1 changes".into(),
            format!("  none {K8S}ConfigMap::adopted []"),
        ],
        "dropped-but-kept" => vec![
            "preview: 1 changes".into(),
            format!("  none {K8S}ConfigMap::routes []"),
        ],
        "changed-secret" => vec!["preview: 1 changes".into(), secret],
        "log-diff-changed-secret" => {
            vec![
                "preview: 1 changes".into(),
                secret,
                "diff: tool diff".into(),
            ]
        }
        "deploy" => [
            three("preview"),
            lines(&["up: deployed", "preview-after: 0 changes"]),
        ]
        .concat(),
        "log-diff-deploy" => [
            three("preview"),
            lines(&["diff: tool diff", "up: deployed"]),
        ]
        .concat(),
        "deploy-failed" => lines(&["preview: 1 changes", stuck, &format!("up: {EXIT_1}")]),
        "preview-locked" => lines(&["preview: 1 changes", stuck]),
        "drift-locked" => lines(&["drift: 0 changes", &format!("up-locked: {BUSY}")]),
        "program-error" | "program-exception" | "resource-error" | "missing-config" => {
            lines(&[&format!("preview: {EXIT_1}")])
        }
        "log-diff-missing-config" => lines(&[&format!("diff: {EXIT_1}")]),
        "missing-stack" => lines(&[&format!("preview: {NO_STACK}")]),
        "drift-missing-stack" => lines(&[&format!("drift: {NO_STACK}")]),
        "history-missing-stack" => lines(&[&format!("history: {NO_STACK}")]),
        "nested-paths" => lines(&[
            "preview: 2 changes",
            "  update urn:pulumi:dev::nested::kubernetes:apps/v1:Deployment::web [metadata.annotations[\"example.com/revision\"], spec.template.spec.containers[0].env[0].value, spec.template.spec.containers[0].image]",
            "  replace urn:pulumi:dev::nested::kubernetes:core/v1:ConfigMap::settings [data[\"app.properties\"]]",
        ]),
        "drift-gone" => vec![
            "preview: 0 changes".into(),
            "drift: 0 changes".into(),
            format!("  drift delete {K8S}ConfigMap::routes []"),
            "up: deployed".into(),
            "drift-after: 0 changes".into(),
        ],
        "drift-changed" => vec![
            "preview: 0 changes".into(),
            "drift: 0 changes".into(),
            format!("  drift update {K8S}ConfigMap::settings [data.zone]"),
            "up: deployed".into(),
            "drift-after: 0 changes".into(),
        ],
        "stack-list" => lines(&["stack-ls: stacks [dev]"]),
        "stack-list-empty" => lines(&["stack-ls: stacks []"]),
        "create-stack" => [
            lines(&[
                "stack-ls: stacks [dev]",
                "stack-init: created",
                "preview: 3 changes",
            ]),
            network_creates("prod"),
            lines(&[&format!("stack-init-again: {EXIT_1}")]),
        ]
        .concat(),
        "many-resources" => {
            let mut all = vec!["preview: 300 changes".to_owned()];
            all.extend((1..=300).map(|i| {
                format!(
                    "  create urn:pulumi:big::many::kubernetes:core/v1:ConfigMap::item{i:03} []"
                )
            }));
            all
        }
        other => panic!("no expectation for {other}; read it from the recording and add it"),
    }
}

#[test]
fn every_fixture_is_what_its_scenario_records() {
    let scenarios = pulumi_scenarios();
    assert_eq!(scenarios.len(), 38);
    for scenario in &scenarios {
        let problems = check_recording(scenario, &fixtures().join(scenario.name));
        assert!(problems.is_empty(), "{}: {problems:?}", scenario.name);
    }
    let on_disk = fs::read_dir(fixtures()).unwrap().count();
    assert_eq!(on_disk, scenarios.len(), "a fixture no scenario records");
}

#[test]
fn every_fixture_reads_as_the_recording_says() {
    for scenario in pulumi_scenarios() {
        if scenario.name == "history" {
            continue;
        }
        assert_eq!(
            summary(&run(scenario.name)),
            expected(scenario.name),
            "{}",
            scenario.name
        );
    }
}

/// The history of network:dev after two deploys that changed something, one that
/// changed nothing, a refresh and a failed deploy: the two that changed something, and
/// no commit, since the recorder's project is no git checkout.
#[test]
fn the_history_lists_the_deploys_that_changed_something() {
    let report = run("history");
    let lines = summary(&report);
    assert_eq!(lines[0], "history-before: 0 deploys");
    assert_eq!(lines[1], format!("up-failed: {EXIT_1}"));
    assert_eq!(lines[2], "history: 2 deploys");
    for line in &lines[3..] {
        assert!(
            line.starts_with("  update 20") && line.ends_with(" -"),
            "{line}"
        );
    }
    assert_eq!(lines.len(), 5);
}

#[test]
fn the_same_preview_twice_has_one_hash() {
    let json = serde_json::to_value(run("same-preview-twice")).unwrap();
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(steps[0]["hash"], steps[1]["hash"]);
}

/// The value rule over every recording: the secret config value is in no output at all
/// (Pulumi encrypts it, and shows it as `[secret]`), and the plain canary, which the
/// recordings hold, leaves the adapter only in the tool diff.
#[test]
fn values_never_leave_the_adapter() {
    let mut raw_has_canary = false;
    for scenario in pulumi_scenarios() {
        let dir = fixtures().join(scenario.name);
        for file in fs::read_dir(&dir).unwrap() {
            let text =
                String::from_utf8_lossy(&fs::read(file.unwrap().path()).unwrap()).into_owned();
            raw_has_canary |= text.contains("CANARY-VALUE");
            assert!(
                !text.contains("CANARY-SECRET"),
                "{}: the secret in a recording",
                scenario.name
            );
        }
        support::assert_no_pulumi_value_left(&run(scenario.name), scenario.name);
    }
    assert!(
        raw_has_canary,
        "the recordings themselves hold the canary, or this test proves nothing"
    );
    let diff = run("log-diff-deploy").produced.tool_diffs.join("\n");
    assert!(
        diff.contains("CANARY-VALUE"),
        "the tool diff shows a plain value"
    );
    let diff = run("log-diff-changed-secret")
        .produced
        .tool_diffs
        .join("\n");
    assert!(
        diff.contains("[secret] => [secret]"),
        "and a secret only as [secret]"
    );
}

fn damaged(
    scenario: &str,
    file: &str,
    damage: impl Fn(&str) -> String,
) -> (tempfile::TempDir, PathBuf) {
    let copy = tempfile::tempdir().unwrap();
    let dir = copy.path().join(scenario);
    support::copy_dir(&fixtures().join(scenario), &dir);
    let text = fs::read_to_string(dir.join(file)).unwrap();
    fs::write(dir.join(file), damage(&text)).unwrap();
    (copy, dir)
}

/// What a damaged case does to its file's text.
type Damage = Box<dyn Fn(&str) -> String>;

#[test]
fn cut_garbled_or_strange_output_is_a_fixed_reason() {
    let unreadable = "the tool's output could not be read";
    let cases: [(&str, &str, Damage, &str); 6] = [
        (
            "update",
            "preview.stdout",
            Box::new(|t| t[..t.len() / 2].to_owned()),
            unreadable,
        ),
        (
            "update",
            "preview.stdout",
            Box::new(|t| format!("not json {t}")),
            unreadable,
        ),
        (
            "update",
            "preview.stdout",
            Box::new(|t| t.replacen("\"steps\"", "\"stepz\"", 1)),
            unreadable,
        ),
        (
            "update",
            "preview.stdout",
            Box::new(|t| t.replacen("\"op\": \"update\"", "\"op\": \"discard\"", 1)),
            "the tool reported a step Sluiceway does not know",
        ),
        (
            "drift-gone",
            "drift.stdout",
            Box::new(|t| {
                t.lines()
                    .filter(|l| !l.contains("summaryEvent"))
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            unreadable,
        ),
        (
            "drift-gone",
            "drift.stdout",
            Box::new(|t| {
                t.lines()
                    .filter(|l| !l.contains("\"op\":\"delete\""))
                    .collect::<Vec<_>>()
                    .join("\n")
            }),
            unreadable,
        ),
    ];
    for (scenario, file, damage, reason) in cases {
        let (_keep, dir) = damaged(scenario, file, damage);
        let lines = summary(&run_dir(&dir));
        let id = file.trim_end_matches(".stdout");
        assert!(
            lines.contains(&format!("{id}: {reason}")),
            "{scenario}/{file}: {lines:?}"
        );
    }
}
