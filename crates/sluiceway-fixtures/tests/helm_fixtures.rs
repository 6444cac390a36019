//! Our own Helm fixtures (fixtures/helm/<version>/), recorded with helm v3.19.0 and
//! v4.3.1 against the local control plane on `examples/helm-lab` and never edited by
//! hand, held to their scenarios, to what the adapter must read from them without the
//! plugin, and to what the plugin path reads from the reference's corpus for the same
//! scenarios.

#![allow(
    clippy::print_stderr,
    reason = "a skipped corpus is announced on stderr"
)]

use std::fs;
use std::path::{Path, PathBuf};

use sluiceway_core::values::ValueList;
use sluiceway_fixtures::race::raced_write;
use sluiceway_fixtures::recorder::check_recording;
use sluiceway_fixtures::replay::{Report, StepOutcome, Tool, replay, replay_showing};
use sluiceway_fixtures::scenario::helm_scenarios;
use sluiceway_tools::recording::{Scenario as Recorded, StdoutFormat};
use support::{assert_no_value_left, summary};

mod support;

const VERSIONS: [(&str, u32); 2] = [("v3.19.0", 3), ("v4.3.1", 4)];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn fixtures() -> PathBuf {
    workspace().join("fixtures/helm")
}

fn run(version: &str, scenario: &str) -> Report {
    run_showing(version, scenario, &ValueList::none())
}

fn run_showing(version: &str, scenario: &str, values: &ValueList) -> Report {
    replay_showing(
        Tool::Helm,
        &workspace().join("examples/helm-lab"),
        &fixtures().join(version).join(scenario),
        values,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

const SHOP_CREATES: [&str; 3] = [
    "  create ConfigMap/sluiceway-shop/shop-settings []",
    "  create Secret/sluiceway-shop/shop-credentials []",
    "  create Service/sluiceway-shop/shop-front []",
];

const QUEUE_CREATES: [&str; 4] = [
    "  create ConfigMap/sluiceway-queue/queue-consumers []",
    "  create ConfigMap/sluiceway-queue/queue-settings []",
    "  create Secret/sluiceway-queue/queue-credentials []",
    "  create Service/sluiceway-queue/queue-front []",
];

const THEME_AND_PORT: [&str; 2] = [
    "  update ConfigMap/sluiceway-shop/shop-settings [data[\"ui.theme\"]]",
    "  update Service/sluiceway-shop/shop-front [spec.ports[0].port]",
];

/// Read by hand from the recordings; the same for both versions but for the version.
fn expected(version: &str, scenario: &str) -> Vec<String> {
    let version_line = format!("version: {version}");
    let lines: Vec<&str> = match scenario {
        "version" => vec![version_line.as_str()],
        "new-stack" => [vec!["render: 3 changes"], SHOP_CREATES.to_vec()].concat(),
        "no-changes" => vec!["render: 0 changes"],
        "update" => vec![
            "render: 2 changes",
            "  update ConfigMap/sluiceway-shop/shop-settings [data[\"ui.theme\"], metadata.labels[\"example.org/release\"]]",
            "  update Service/sluiceway-shop/shop-front [spec.ports[0].port]",
        ],
        "create" => vec![
            "render: 1 changes",
            "  create ConfigMap/sluiceway-shop/shop-banner []",
        ],
        "delete" => vec![
            "render: 1 changes",
            "  delete ConfigMap/sluiceway-shop/shop-banner []",
        ],
        "mixed" => vec![
            "render: 3 changes",
            "  delete ConfigMap/sluiceway-shop/shop-banner []",
            "  create ConfigMap/sluiceway-shop/shop-nonce []",
            "  update ConfigMap/sluiceway-shop/shop-settings [data[\"ui.theme\"]]",
        ],
        "changed-secret" => vec![
            "render: 1 changes",
            "  update Secret/sluiceway-shop/shop-credentials [data]",
        ],
        "create-namespace" => [
            vec!["render: 3 changes"],
            SHOP_CREATES.to_vec(),
            vec!["render-again: deployed", "render-after: 0 changes"],
        ]
        .concat(),
        "dependencies" => [
            vec!["dependencies: prepared", "render: 4 changes"],
            QUEUE_CREATES.to_vec(),
        ]
        .concat(),
        "dependencies-failed" => {
            vec!["dependencies: the tool exited with an error (exit code 1)"]
        }
        "dependencies-nested" => [
            vec![
                "dependencies-shop: prepared",
                "dependencies: prepared",
                "render: 5 changes",
                "  create ConfigMap/sluiceway-queue/queue-base []",
            ],
            QUEUE_CREATES.to_vec(),
        ]
        .concat(),
        "deploy" => [
            vec!["render: 3 changes"],
            SHOP_CREATES.to_vec(),
            vec!["render-again: deployed", "render-after: 0 changes"],
        ]
        .concat(),
        "deploy-failed" => vec![
            "render: 1 changes",
            "  update Service/sluiceway-shop/shop-front [spec.ports[0].port]",
            "render-again: the tool exited with an error (exit code 1)",
        ],
        "drift" => vec![
            "render: 0 changes",
            "list-drift: 0 changes",
            "  drift update ConfigMap/sluiceway-shop/shop-settings [data.motd]",
            "  drift delete Secret/sluiceway-shop/shop-credentials []",
            "  drift update Service/sluiceway-shop/shop-front [spec.ports[0].targetPort]",
        ],
        "drift-and-change" => [
            vec!["render: 2 changes"],
            THEME_AND_PORT.to_vec(),
            vec!["list-drift: 2 changes"],
            THEME_AND_PORT.to_vec(),
            vec!["  drift update ConfigMap/sluiceway-shop/shop-settings [data.motd]"],
        ]
        .concat(),
        "drift-hooks" => vec!["render: 0 changes", "list-drift: 0 changes"],
        "drift-repaired" => vec![
            "render: 0 changes",
            "list-drift: 0 changes",
            "  drift update ConfigMap/sluiceway-shop/shop-settings [data.motd]",
            "  drift delete Secret/sluiceway-shop/shop-credentials []",
            "render-again: deployed",
            "list-drift-after: 0 changes",
        ],
        "log-diff" => vec!["tool-diff-list: tool diff"],
        "program-error" | "values-missing" => {
            vec!["render: the tool exited with an error (exit code 1)"]
        }
        "failed-release" => vec![
            "render: the release's last Helm operation failed and was not rolled back; repair it with helm, then scan again",
        ],
        "same-diff-twice" => [
            vec!["render: 2 changes"],
            THEME_AND_PORT.to_vec(),
            vec!["render-again: 2 changes"],
            THEME_AND_PORT.to_vec(),
        ]
        .concat(),
        "unstable-render" => [
            vec!["render: 4 changes", "  create ConfigMap/sluiceway-shop/shop-nonce []"],
            SHOP_CREATES.to_vec(),
            vec!["render-again: what would be deployed changed after its preview; nothing was deployed"],
        ]
        .concat(),
        other => panic!("no expectation for {other}; read it from the recording and add it"),
    };
    lines.into_iter().map(str::to_owned).collect()
}

#[test]
fn every_fixture_is_what_its_scenario_records() {
    for (version, major) in VERSIONS {
        let scenarios = helm_scenarios(major);
        assert_eq!(scenarios.len(), 24);
        for scenario in &scenarios {
            let problems = check_recording(scenario, &fixtures().join(version).join(scenario.name));
            assert!(
                problems.is_empty(),
                "{version}/{}: {problems:?}",
                scenario.name
            );
        }
        let on_disk = fs::read_dir(fixtures().join(version)).unwrap().count();
        assert_eq!(
            on_disk,
            scenarios.len(),
            "{version}: a fixture no scenario records"
        );
    }
}

#[test]
fn every_fixture_reads_as_the_recording_says() {
    for (version, major) in VERSIONS {
        for scenario in helm_scenarios(major) {
            assert_eq!(
                summary(&run(version, scenario.name)),
                expected(version, scenario.name),
                "{version}/{}",
                scenario.name
            );
        }
    }
}

#[test]
fn helm_3_deploys_atomically_and_helm_4_rolls_back_on_failure() {
    for (version, _) in VERSIONS {
        let recorded = Recorded::load(&fixtures().join(version).join("drift-repaired")).unwrap();
        let deploy = recorded
            .recording
            .commands
            .iter()
            .find(|c| c.id == "deploy")
            .unwrap();
        let has = |flag: &str| deploy.argv.iter().any(|a| a == flag);
        if version.starts_with("v3") {
            assert!(has("--atomic") && !has("--rollback-on-failure") && !has("--force-conflicts"));
        } else {
            assert!(has("--rollback-on-failure") && has("--force-conflicts") && !has("--atomic"));
        }
        assert!(has("--reset-values") && has("--hide-notes") && has("--install"));
    }
}

/// Decision 0090: every recorded dry run of live objects was taken while the cluster
/// held still.
#[test]
fn no_drift_check_raced_a_write() {
    let mut checked = 0;
    for (version, major) in VERSIONS {
        for scenario in helm_scenarios(major) {
            let recorded = Recorded::load(&fixtures().join(version).join(scenario.name)).unwrap();
            for (command, (stdout, _)) in recorded.recording.commands.iter().zip(&recorded.outputs)
            {
                if command.stdout_format == StdoutFormat::Diff {
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
    assert_eq!(checked, 2 * 5);
}

#[test]
fn values_never_leave_the_adapter() {
    let mut raw_has_canary = false;
    for (version, major) in VERSIONS {
        for scenario in helm_scenarios(major) {
            let dir = fixtures().join(version).join(scenario.name);
            raw_has_canary |= fs::read_dir(&dir).unwrap().any(|f| {
                String::from_utf8_lossy(&fs::read(f.unwrap().path()).unwrap())
                    .contains("CANARY-SECRET")
            });
            assert_no_value_left(
                &run(version, scenario.name),
                scenario.name,
                &["CANARY-SECRET"],
            );
        }
    }
    assert!(
        raw_has_canary,
        "the recordings themselves hold the canary, or this test proves nothing"
    );
}

/// The reference's names for what our example names otherwise: its chart calls the
/// ConfigMap's keys `greeting` and `app.properties`, the Secret `token`, the switch's
/// ConfigMap `extra`, and its releases `web` and `worker`.
const CORPUS_NAMES: [(&str, &str); 13] = [
    // create-namespace installs web into a namespace of its own.
    ("sluiceway-new/", "sluiceway-web/"),
    ("sluiceway-web/web-settings", "sluiceway-shop/shop-settings"),
    ("sluiceway-web/web-token", "sluiceway-shop/shop-credentials"),
    ("sluiceway-web/web-extra", "sluiceway-shop/shop-banner"),
    ("sluiceway-web/web-nonce", "sluiceway-shop/shop-nonce"),
    ("sluiceway-web/web ", "sluiceway-shop/shop-front "),
    (
        "sluiceway-worker/worker-settings",
        "sluiceway-queue/queue-settings",
    ),
    (
        "sluiceway-worker/worker-token",
        "sluiceway-queue/queue-credentials",
    ),
    ("sluiceway-worker/worker-base", "sluiceway-queue/queue-base"),
    ("sluiceway-worker/worker ", "sluiceway-queue/queue-front "),
    ("data[\"app.properties\"]", "data[\"ui.theme\"]"),
    (
        "metadata.labels[\"app.kubernetes.io/version\"]",
        "metadata.labels[\"example.org/release\"]",
    ),
    ("data.greeting", "data.motd"),
];

/// Each step as its operation (with its failure, if any) and its changes, without the
/// command ids (the two recorders name commands differently) or counts.
fn shape(report: &Report) -> Vec<String> {
    let json = serde_json::to_value(report).unwrap();
    let mut lines = Vec::new();
    for (step, value) in report.steps.iter().zip(json["steps"].as_array().unwrap()) {
        let operation = value["operation"].as_str().unwrap();
        match &step.outcome {
            StepOutcome::Failure { failure } => {
                lines.push(format!("{operation}: {}", failure.reason))
            }
            StepOutcome::Diff { diff, .. } => {
                lines.push(operation.to_owned());
                let drift = diff.drift.iter().flatten().map(|c| ("drift ", c));
                for (label, c) in diff.changes.iter().map(|c| ("", c)).chain(drift) {
                    lines.push(format!(
                        "  {label}{} {} [{}]",
                        c.op,
                        c.address,
                        c.changed_keys.join(", ")
                    ));
                }
            }
            _ => lines.push(operation.to_owned()),
        }
    }
    lines
}

/// The plugin-free path on our recordings against the plugin path on the reference's,
/// scenario by scenario: the same operations, and the same addresses, ops and paths
/// once the two examples' names are matched. Where the examples themselves differ, the
/// difference is named here; ADR 0022 says which of the two readings is
/// right where the readers part.
#[test]
fn without_the_plugin_we_read_what_the_plugin_reads() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/helm");
    if !corpus.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
        );
        eprintln!(
            "notice: {} is absent; the two Helm paths were not compared",
            corpus.display()
        );
        return;
    }
    let theirs_of = |scenario: &str| {
        let report = replay(
            Tool::Helm,
            &corpus.join("example"),
            &corpus.join("v3.18.0").join(scenario),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        shape(&report)
            .into_iter()
            .map(|line| {
                CORPUS_NAMES
                    .iter()
                    .fold(line, |l, (from, to)| l.replace(from, to))
            })
            .collect::<Vec<_>>()
    };
    let mut compared = 0;
    for scenario in helm_scenarios(3) {
        // The version check reads versions, not changes; two bad-input scenarios are
        // ours alone.
        if scenario.name == "version" || !corpus.join("v3.18.0").join(scenario.name).is_dir() {
            continue;
        }
        let mut ours = shape(&run("v3.19.0", scenario.name));
        let theirs = theirs_of(scenario.name);
        if scenario.name.starts_with("dependencies") {
            // Our dependent chart renders a ConfigMap of its own; the reference's
            // renders only its dependency's objects.
            ours.retain(|l| !l.contains("queue-consumers"));
        }
        assert_eq!(ours, theirs, "{}", scenario.name);
        compared += 1;
    }
    assert_eq!(compared, 21);
}

/// A copy of one of our recordings with one output file changed by `damage`.
fn damaged(
    scenario: &str,
    file: &str,
    damage: impl Fn(&str) -> String,
) -> (tempfile::TempDir, PathBuf) {
    let copy = tempfile::tempdir().unwrap();
    let dir = copy.path().join(scenario);
    support::copy_dir(&fixtures().join("v3.19.0").join(scenario), &dir);
    let text = fs::read_to_string(dir.join(file)).unwrap();
    fs::write(dir.join(file), damage(&text)).unwrap();
    (copy, dir)
}

fn failure_of(dir: &Path) -> Vec<String> {
    let report = replay(Tool::Helm, &workspace().join("examples/helm-lab"), dir)
        .unwrap_or_else(|e| panic!("{e}"));
    summary(&report)
}

#[test]
fn cut_garbled_or_doubled_output_is_a_fixed_reason() {
    let unreadable = |id: &str| vec![format!("{id}: the tool's output could not be read")];
    // The release list cut in half (the last command of its recording, so nothing
    // recorded is left unasked).
    let (_keep, dir) = damaged("new-stack", "list.stdout", |t| t[..t.len() / 2].to_owned());
    assert_eq!(failure_of(&dir), unreadable("render"));
    // The deployed manifest cut inside a quoted value.
    let (_keep, dir) = damaged("no-changes", "manifest.stdout", |t| {
        let quote = t.find('"').unwrap();
        t[..=quote].to_owned()
    });
    assert_eq!(failure_of(&dir), unreadable("render"));
    // The render with its first object twice.
    let (_keep, dir) = damaged("no-changes", "render.stdout", |t| {
        let first = t.split("\n---\n").nth(1).unwrap();
        format!("{t}\n---\n{first}\n")
    });
    assert_eq!(failure_of(&dir), unreadable("render"));
    // The dry run's diff garbled: one object's hunk without its header.
    let (_keep, dir) = damaged("drift", "drift.stdout", |t| {
        t.lines()
            .filter(|l| !l.starts_with("@@"))
            .collect::<Vec<_>>()
            .join("\n")
    });
    let lines = failure_of(&dir);
    assert_eq!(
        lines.last().unwrap(),
        "list-drift: the tool's output could not be read",
        "{lines:?}"
    );
}

/// The tool diff a person reads in the job log (record 0048): the new theme and the
/// greeting around it as they are, the rotated key only as marks.
/// Decision 0052: with every path allowed, a rendered value shows and a Secret's never
/// does, in any form.
#[test]
fn a_secret_never_shows_even_where_every_value_may() {
    let mut shown = false;
    for (version, _) in VERSIONS {
        for name in support::scenario_names(&fixtures().join(version)) {
            let report = run_showing(version, &name, &ValueList::any_path());
            shown |= support::shows_no_secret(&report, &name, &["Q0FOQVJZLVNFQ1JFVA"]);
        }
    }
    assert!(
        shown,
        "the plain value shows somewhere, or this proves nothing"
    );
}

#[test]
fn the_tool_diff_shows_values_but_never_a_secrets() {
    for (version, _) in VERSIONS {
        let report = run(version, "log-diff");
        let [text] = report.produced.tool_diffs.as_slice() else {
            panic!(
                "{version}: one tool diff, got {:?}",
                report.produced.tool_diffs
            );
        };
        insta::assert_snapshot!(format!("log_diff_{}", version.replace('.', "_")), text);
    }
}
