//! The OpenTofu adapter's own promises, on our recordings: the plan file lives in a
//! private directory that is gone when the preview keeps no plan, and the JSON log is
//! reduced to words without values. And its cost estimate, on the shared corpus's
//! Infracost recordings; without the corpus that test says so and passes nothing off.

#![allow(
    clippy::print_stderr,
    reason = "a test without the corpus says so in the test log"
)]

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sluiceway_core::stack::StackId;
use sluiceway_tools::opentofu::cost::{self, Estimate, NotEstimated};
use sluiceway_tools::opentofu::{self, Binary, Context, Stack};
use sluiceway_tools::recording::Scenario;
use sluiceway_tools::replay::{Placeholder, Replay};
use sluiceway_tools::tool_log::ToolLog;
use sluiceway_tools::tool_run::Asks;

/// A preview that keeps its plan for a deploy.
const KEEP: Asks = Asks {
    keep: true,
    document: false,
    cost: false,
};

/// No value list: nothing shows.
static NO_VALUES: sluiceway_core::values::ValueList = sluiceway_core::values::ValueList::none();

fn workspace() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn replay(scenario: &str) -> (Replay, std::path::PathBuf) {
    let example = workspace().join("examples/tofu-lab");
    let recorded =
        Scenario::load(&workspace().join("fixtures/opentofu/v1.6.2").join(scenario)).unwrap();
    let runner = Replay::new(
        &recorded,
        &example,
        vec![Placeholder {
            token: "{plan}",
            file_name: opentofu::PLAN_FILE,
        }],
        vec![opentofu::WORKSPACE_VAR],
    );
    (runner, example)
}

fn lab(example: &Path) -> Stack {
    Stack {
        id: StackId::derive("lab", Some("dev")),
        dir: example.join("lab"),
        binary: Binary::Tofu,
        wrapper: None,
        workspace: Some("dev".into()),
        var_files: vec!["dev.tfvars".into()],
    }
}

/// A job's context over `runner`, with a minute's limit and no value list.
fn context<'a>(
    runner: &'a Replay,
    env: &'a BTreeMap<String, String>,
    scratch: &'a Path,
) -> Context<'a> {
    Context {
        runner,
        env,
        repository: "",
        scratch,
        time_limit: Duration::from_secs(60),
        deploy_limit: None,
        values: &NO_VALUES,
    }
}

#[test]
fn the_plan_lives_in_a_private_directory_that_goes_away() {
    let scratch = tempfile::tempdir().unwrap();
    let env = BTreeMap::new();
    let (runner, example) = replay("same-plan-twice");
    let ctx = context(&runner, &env, scratch.path());
    let first = opentofu::preview(&lab(&example), &ctx, Asks::default())
        .result
        .unwrap();
    assert!(first.plan.is_none());
    assert_eq!(
        fs::read_dir(scratch.path()).unwrap().count(),
        0,
        "nothing of a preview that keeps no plan is left"
    );
    let kept = opentofu::preview(&lab(&example), &ctx, KEEP)
        .result
        .unwrap()
        .plan
        .unwrap();
    assert!(kept.path().starts_with(scratch.path()) && kept.path().ends_with("tfplan"));
    assert_eq!(fs::read_dir(scratch.path()).unwrap().count(), 1);
    drop(kept);
    assert_eq!(fs::read_dir(scratch.path()).unwrap().count(), 0);
    assert!(runner.misses().is_empty() && runner.unused().is_empty());
}

#[test]
fn a_saved_plan_of_another_stack_is_refused_before_anything_runs() {
    let scratch = tempfile::tempdir().unwrap();
    let env = BTreeMap::new();
    let (runner, example) = replay("deploy");
    let ctx = Context {
        runner: &runner,
        env: &env,
        repository: "",
        scratch: scratch.path(),
        time_limit: Duration::from_secs(60),
        deploy_limit: None,
        values: &NO_VALUES,
    };
    let plan = opentofu::preview(&lab(&example), &ctx, KEEP)
        .result
        .unwrap()
        .plan
        .unwrap();
    let other = Stack {
        id: StackId::derive("lab", Some("prod")),
        ..lab(&example)
    };
    let refused = opentofu::deploy(&other, &ctx, &plan);
    assert_eq!(
        refused.result.unwrap_err().reason,
        sluiceway_core::failure::FailureReason::ChangedSincePreview
    );
    assert_eq!(
        runner.unused(),
        ["apply"],
        "the tool was not asked to apply"
    );
}

#[test]
fn the_json_log_becomes_words_without_planned_changes() {
    let recorded =
        Scenario::load(&workspace().join("fixtures/opentofu/v1.6.2/program-error")).unwrap();
    let mut log = ToolLog::default();
    opentofu::log_words(&recorded.outputs[0].0, &mut log);
    let lines = log.job_log_lines().join("\n");
    assert!(lines.contains("Error: "), "{lines}");
    assert!(lines.contains("  on broken.tf line"), "{lines}");
    let recorded =
        Scenario::load(&workspace().join("fixtures/opentofu/v1.6.2/changed-secret")).unwrap();
    let mut log = ToolLog::default();
    opentofu::log_words(&recorded.outputs[0].0, &mut log);
    let lines = log.job_log_lines().join("\n");
    assert!(!lines.contains("CANARY") && !lines.contains("planned_change"));
}

#[test]
fn the_plan_document_is_read_only_when_asked_and_its_debug_holds_no_value() {
    let scratch = tempfile::tempdir().unwrap();
    let env = BTreeMap::new();
    let (runner, example) = replay("mixed");
    let ctx = context(&runner, &env, scratch.path());
    let previewed = opentofu::preview(
        &lab(&example),
        &ctx,
        Asks {
            document: true,
            ..Asks::default()
        },
    )
    .result
    .unwrap();
    let shown = format!("{previewed:?}");
    let document = previewed.document.expect("the plan document, asked for");
    let [plan] = document.documents() else {
        panic!("a plan is one document");
    };
    let deleted: Vec<&str> = plan["resource_changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["change"]["actions"] == serde_json::json!(["delete"]))
        .map(|c| c["address"].as_str().unwrap())
        .collect();
    assert_eq!(deleted, ["terraform_data.trigger"]);
    assert!(
        plan.to_string().contains("CANARY-SECRET"),
        "the document is the tool's, values included"
    );
    for shown in [format!("{document:?}"), shown] {
        assert!(!shown.contains("CANARY"), "{shown}");
    }
    assert_eq!(
        fs::read_dir(scratch.path()).unwrap().count(),
        0,
        "nothing is left on disk"
    );
}

/// The shared conformance corpus, beside the repository (absent in a clone elsewhere).
fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance")
}

/// An Infracost scenario replayed through the adapter with the estimate asked for: the
/// plan, its JSON and `infracost diff` in the plan's private directory, exactly as
/// recorded. Infracost cannot be had on this machine (the Go module proxy refuses its
/// module), so these recordings are what holds the reader.
fn estimate_of(scenario: &str) -> Option<Result<Estimate, NotEstimated>> {
    let recorded = Scenario::load(&corpus().join("infracost/v0.10.45").join(scenario)).unwrap();
    let root = corpus().join("opentofu/example");
    let free = scenario == "free";
    let stack = Stack {
        id: StackId::given(if free { "network:dev" } else { "compute" }),
        dir: root.join(if free { "network" } else { "compute" }),
        binary: Binary::Tofu,
        wrapper: None,
        workspace: free.then(|| "dev".to_owned()),
        var_files: if free {
            vec!["dev.tfvars".into()]
        } else {
            vec![]
        },
    };
    let runner = Replay::new(
        &recorded,
        &root,
        vec![Placeholder {
            token: "{plan}",
            file_name: opentofu::PLAN_FILE,
        }],
        vec![opentofu::WORKSPACE_VAR],
    );
    let scratch = tempfile::tempdir().unwrap();
    let env = BTreeMap::new();
    let ctx = context(&runner, &env, scratch.path());
    let asks = Asks {
        cost: true,
        ..Asks::default()
    };
    let previewed = opentofu::preview(&stack, &ctx, asks)
        .result
        .unwrap_or_else(|e| panic!("{scenario}: {e:?} {:?}", runner.misses()));
    assert!(
        runner.misses().is_empty(),
        "{scenario}: {:?}",
        runner.misses()
    );
    assert!(
        runner.unused().is_empty(),
        "{scenario}: {:?}",
        runner.unused()
    );
    assert_eq!(
        fs::read_dir(scratch.path()).unwrap().count(),
        0,
        "{scenario}: the plan and its JSON are gone"
    );
    previewed.cost
}

fn usd(text: &str) -> Option<Result<Estimate, NotEstimated>> {
    Some(Ok(Estimate {
        currency: "USD".into(),
        monthly: sluiceway_core::cost::Amount::parse(text).unwrap(),
    }))
}

#[test]
fn every_recorded_estimate_reads_as_infracost_meant_it() {
    if !corpus().join("infracost").is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
        );
        eprintln!(
            "notice: {} is absent; this test was not run",
            corpus().display()
        );
        return;
    }
    assert_eq!(estimate_of("create"), usd("32.37"));
    assert_eq!(estimate_of("update"), usd("2.00"));
    assert_eq!(estimate_of("delete"), usd("-32.37"));
    assert_eq!(estimate_of("free"), usd("0"));
    assert_eq!(estimate_of("refused"), Some(Err(NotEstimated::Failed)));
    assert_eq!(
        estimate_of("unreachable"),
        Some(Err(NotEstimated::Unpriced)),
        "zeros with an error project are no estimate"
    );
}

#[test]
fn the_reader_refuses_what_is_not_an_estimate() {
    for text in [
        "",
        "not json",
        "{}",
        r#"{"currency":"USD","projects":[]}"#,
        r#"{"currency":"U$D","diffTotalMonthlyCost":"1","projects":[{"metadata":{"type":"terraform_plan_json"}}]}"#,
        r#"{"currency":"USD","diffTotalMonthlyCost":1,"projects":[{"metadata":{"type":"terraform_plan_json"}}]}"#,
    ] {
        assert!(cost::read(text.as_bytes()).is_err(), "{text}");
    }
}
