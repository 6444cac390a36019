//! The recorder with a scripted runner: decision 0090's retry, the give-up with nothing
//! saved, and the faults that must stop a scenario cleanly. The diff output it answers is
//! a real recording (ours, else the conformance corpus), raced on purpose where a test
//! needs a race: one object's unchanged `resourceVersion` line split into two versions.

#![allow(clippy::print_stderr, reason = "a skipped test is announced on stderr")]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sluiceway_core::runner::{Invocation, Outcome, Runner};
use sluiceway_fixtures::race::raced_write;
use sluiceway_fixtures::recorder::{MAX_RUNS, Recorder, RecorderError, check_recording};
use sluiceway_fixtures::scenario::{Scenario, Step, kubectl_scenarios};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// A recorded update diff: from our fixtures, else the corpus.
fn clean_update_diff() -> Option<String> {
    let ours = fs::read_dir(workspace().join("fixtures/kubectl"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("update/diff.stdout"));
    let corpus = workspace().join("../shared/conformance/kubectl/v1.34.0/update/diff.stdout");
    let found = ours.chain([corpus]).find(|p| p.is_file());
    match found {
        Some(path) => fs::read_to_string(path).ok(),
        None => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
            );
            eprintln!("notice: no recorded update diff is at hand; the recorder test did not run");
            None
        }
    }
}

/// The same output as if a controller had written between kubectl's read and its dry
/// run: the first object's shared `resourceVersion` line becomes two versions.
fn raced(clean: &str) -> String {
    let mut lines: Vec<String> = clean.lines().map(str::to_owned).collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("   resourceVersion: "))
        .expect("a shared resourceVersion line");
    let header = lines[..at]
        .iter()
        .rposition(|l| l.starts_with("@@ -1,"))
        .expect("the object's hunk header");
    let counts: Vec<usize> = lines[header]
        .trim_start_matches("@@ -1,")
        .trim_end_matches(" @@")
        .split(" +1,")
        .map(|n| n.parse().unwrap())
        .collect();
    lines[header] = format!("@@ -1,{} +1,{} @@", counts[0] + 1, counts[1] + 1);
    let version = lines[at]
        .trim_start_matches("   resourceVersion: ")
        .to_owned();
    lines[at] = format!("-  resourceVersion: {version}");
    lines.insert(at + 1, "+  resourceVersion: \"999999\"".to_owned());
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// Answers diffs from a queue (the last answer repeats) and everything else with success.
struct Scripted {
    diffs: Mutex<Vec<String>>,
    diff_runs: Mutex<usize>,
}

impl Scripted {
    fn new(diffs: Vec<String>) -> Scripted {
        Scripted {
            diffs: Mutex::new(diffs),
            diff_runs: Mutex::new(0),
        }
    }

    fn diff_runs(&self) -> usize {
        *self.diff_runs.lock().unwrap()
    }
}

impl Runner for Scripted {
    fn run(&self, invocation: &Invocation) -> Outcome {
        if invocation.argv[1] != "diff" {
            return Outcome::Exited {
                code: Some(0),
                stdout: vec![],
                stderr: vec![],
                cut: None,
            };
        }
        *self.diff_runs.lock().unwrap() += 1;
        let mut diffs = self.diffs.lock().unwrap();
        let next = if diffs.len() > 1 {
            diffs.remove(0)
        } else {
            diffs[0].clone()
        };
        Outcome::Exited {
            code: Some(1),
            stdout: next.into_bytes(),
            stderr: vec![],
            cut: None,
        }
    }
}

fn update() -> Scenario {
    kubectl_scenarios()
        .into_iter()
        .find(|s| s.name == "update")
        .unwrap()
}

fn recorder<'a>(runner: &'a dyn Runner, dir: &Path) -> Recorder<'a> {
    Recorder {
        runner,
        env: BTreeMap::new(),
        example: workspace().join("examples/homelab/k8s"),
        work: dir.join("work"),
        out: dir.join("out"),
        cli_version: "v1.34.5".to_owned(),
    }
}

#[test]
fn two_raced_runs_then_a_clean_one_keep_only_the_clean_output() {
    let Some(clean) = clean_update_diff() else {
        return;
    };
    assert!(raced_write(&raced(&clean)) && !raced_write(&clean));
    let dir = tempfile::tempdir().unwrap();
    let runner = Scripted::new(vec![raced(&clean), raced(&clean), clean.clone()]);
    let retaken = recorder(&runner, dir.path()).record(&update()).unwrap();
    assert_eq!(runner.diff_runs(), 3);
    assert_eq!(retaken, [("diff".to_owned(), 3)]);
    let saved = dir.path().join("out/update");
    assert_eq!(
        fs::read_to_string(saved.join("diff.stdout")).unwrap(),
        clean
    );
    let recording: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(saved.join("recording.json")).unwrap()).unwrap();
    assert_eq!(recording["commands"].as_array().unwrap().len(), 1);
    assert!(check_recording(&update(), &saved).is_empty());
}

#[test]
fn a_clean_first_run_is_run_once() {
    let Some(clean) = clean_update_diff() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let runner = Scripted::new(vec![clean]);
    recorder(&runner, dir.path()).record(&update()).unwrap();
    assert_eq!(runner.diff_runs(), 1);
}

#[test]
fn a_cluster_that_never_holds_still_saves_nothing_after_ten_runs() {
    let Some(clean) = clean_update_diff() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let runner = Scripted::new(vec![raced(&clean)]);
    let error = recorder(&runner, dir.path()).record(&update()).unwrap_err();
    assert_eq!(runner.diff_runs(), MAX_RUNS);
    assert!(matches!(error, RecorderError::NeverHeldStill { .. }));
    let message = error.to_string();
    assert!(
        message.starts_with("update: every one of 10 runs of diff raced")
            && message.contains("never held still"),
        "{message}"
    );
    let out = dir.path().join("out");
    assert!(!out.join("update").exists());
    assert_eq!(
        fs::read_dir(&out).map(|d| d.count()).unwrap_or(0),
        0,
        "no partial recording is left"
    );
}

#[test]
fn an_edit_that_no_longer_matches_stops_the_scenario_and_names_the_step() {
    let Some(clean) = clean_update_diff() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut scenario = update();
    for step in &mut scenario.steps {
        if let Step::Edit { from, .. } = step {
            *from = "replicas: 99";
            break;
        }
    }
    let runner = Scripted::new(vec![clean]);
    let error = recorder(&runner, dir.path())
        .record(&scenario)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("update, step 5: web/configmap.yaml holds the text to replace 0 times"),
        "{error}"
    );
    assert!(!dir.path().join("out/update").exists());
}

#[test]
fn a_recorded_command_that_differs_from_the_scenario_is_found() {
    let Some(clean) = clean_update_diff() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let runner = Scripted::new(vec![clean]);
    recorder(&runner, dir.path()).record(&update()).unwrap();
    let mut changed = update();
    for step in &mut changed.steps {
        if let Step::Record(record) = step {
            record.argv.insert(3, "--context=elsewhere".to_owned());
        }
    }
    let problems = check_recording(&changed, &dir.path().join("out/update"));
    assert_eq!(
        problems,
        ["diff: the scenario now runs a different command; record it again"]
    );
}

/// Decision 0090: every kubectl diff a scenario records carries the race check, so a new
/// scenario cannot forget it, and nothing else carries it.
#[test]
fn every_recorded_diff_carries_the_race_check() {
    let mut diffs = 0;
    for scenario in kubectl_scenarios() {
        for record in scenario.records() {
            let is_diff = record.argv.get(1).is_some_and(|a| a == "diff");
            assert_eq!(
                record.race_checked, is_diff,
                "{} {}",
                scenario.name, record.id
            );
            diffs += usize::from(is_diff);
        }
    }
    assert_eq!(
        diffs, 27,
        "the previews, drift checks and tool diff of the 23 scenarios"
    );
}

#[test]
fn the_scenarios_are_the_twenty_three_of_the_reference() {
    let mut names: Vec<&str> = kubectl_scenarios().iter().map(|s| s.name).collect();
    names.sort();
    let expected = [
        "changed-secret",
        "conflict",
        "deploy",
        "deploy-failed",
        "drift-changed",
        "drift-conflict",
        "drift-deleted",
        "immutable-field",
        "invalid-manifest",
        "kustomize-error",
        "kustomize-update",
        "log-diff-changed-secret",
        "missing-namespace",
        "mixed",
        "new-stack",
        "no-changes",
        "prune",
        "prune-first",
        "recursive",
        "removed-object",
        "same-diff-twice",
        "update",
        "version",
    ];
    assert_eq!(names, expected);
}

#[test]
fn a_missing_kubectl_names_the_scenario_and_the_step() {
    let dir = tempfile::tempdir().unwrap();
    let runner = sluiceway_tools::process::SystemRunner::default();
    let mut recorder = recorder(&runner, dir.path());
    recorder.env = BTreeMap::from([(
        "PATH".to_owned(),
        dir.path().join("empty").display().to_string(),
    )]);
    let version = kubectl_scenarios()
        .into_iter()
        .find(|s| s.name == "version")
        .unwrap();
    let error = recorder.record(&version).unwrap_err().to_string();
    assert!(
        error.starts_with(
            "version, step 1: `kubectl version --client --output=json` could not be run"
        ),
        "{error}"
    );
    assert!(!dir.path().join("out/version").exists());
}

#[test]
fn a_control_plane_that_does_not_come_up_says_so_and_leaves_nothing_running() {
    use sluiceway_fixtures::control_plane::{Binaries, ControlPlane, ControlPlaneError};
    let dir = tempfile::tempdir().unwrap();
    assert!(matches!(
        Binaries::in_dir(dir.path()),
        Err(ControlPlaneError::Missing(_))
    ));
    let missing = Binaries::in_dir(dir.path()).err().unwrap().to_string();
    assert!(
        missing.contains("run scripts/build-control-plane.sh <version> first"),
        "{missing}"
    );
    // Binaries that start and stop at once: the API server never answers.
    for name in ["etcd", "kube-apiserver", "kube-controller-manager"] {
        std::os::unix::fs::symlink("/bin/false", dir.path().join(name)).unwrap();
    }
    let binaries = Binaries::in_dir(dir.path()).unwrap();
    let error = ControlPlane::start(&binaries, Path::new("/bin/false"))
        .err()
        .unwrap();
    assert!(
        matches!(error, ControlPlaneError::NotReady { .. }),
        "{error}"
    );
}
