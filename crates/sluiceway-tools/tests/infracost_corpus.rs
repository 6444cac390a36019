//! Every Infracost scenario of the shared corpus, replayed through the OpenTofu adapter
//! with the estimate asked for: the plan, its JSON and `infracost diff` in the plan's
//! private directory, exactly as recorded, and the estimate read as Infracost meant it.
//! Infracost cannot be had on this machine (the Go module proxy refuses its module), so
//! these recordings are what holds the reader. The corpus lives outside this repository;
//! without it the replay says so and passes nothing off.

#![allow(
    clippy::print_stderr,
    reason = "a test without the corpus says so in the test log"
)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sluiceway_core::stack::StackId;
use sluiceway_core::values::ValueList;
use sluiceway_tools::opentofu::cost::{self, Estimate, NotEstimated};
use sluiceway_tools::opentofu::{self, Binary, Stack};
use sluiceway_tools::recording::Scenario;
use sluiceway_tools::replay::{Placeholder, Replay};
use sluiceway_tools::tool_run::{Asks, Context};

static NO_VALUES: ValueList = ValueList::none();

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance")
}

fn estimate_of(scenario: &str) -> Option<Result<Estimate, NotEstimated>> {
    let recorded = Scenario::load(&corpus().join("infracost/v0.10.45").join(scenario)).unwrap();
    let root = corpus().join("opentofu/example");
    let free = scenario == "free";
    let stack = Stack {
        id: StackId::given(if free { "network:dev" } else { "compute" }),
        dir: root.join(if free { "network" } else { "compute" }),
        binary: Binary::Tofu,
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
    let ctx = Context {
        runner: &runner,
        env: &env,
        repository: "",
        scratch: scratch.path(),
        time_limit: Duration::from_secs(60),
        deploy_limit: None,
        values: &NO_VALUES,
    };
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
        std::fs::read_dir(scratch.path()).unwrap().count(),
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
