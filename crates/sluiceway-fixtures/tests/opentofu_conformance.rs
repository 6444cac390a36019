//! The OpenTofu adapter held to the conformance corpus: every scenario the reference's
//! CI recorded with OpenTofu v1.11.0 and real providers, replayed through our adapter,
//! with the changes and failure reasons read from the recordings by hand.

#![allow(
    clippy::print_stderr,
    reason = "a skipped corpus is announced on stderr"
)]

use std::fs;
use std::path::{Path, PathBuf};

use sluiceway_core::values::ValueList;
use sluiceway_fixtures::replay::{Report, Tool, replay, replay_showing};
use support::summary;

mod support;

fn corpus() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/opentofu");
    if dir.is_dir() {
        Some(dir)
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
        );
        eprintln!(
            "notice: {} is absent; the OpenTofu conformance corpus was not replayed",
            dir.display()
        );
        None
    }
}

fn run(corpus: &Path, scenario: &str) -> Report {
    replay(
        Tool::Opentofu,
        &corpus.join("example"),
        &corpus.join("v1.11.0").join(scenario),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

const CREATES: [&str; 4] = [
    "  create local_file.notes []",
    "  create null_resource.trigger []",
    "  create random_pet.name []",
    "  create terraform_data.config []",
];
const LOCAL_FILE_REPLACED: &str = "  replace local_file.notes [content, content_base64sha256, content_base64sha512, content_md5, content_sha1, content_sha256, content_sha512, id]";

fn expected(scenario: &str) -> Vec<String> {
    let lines: Vec<&str> = match scenario {
        "version" => vec!["version: v1.11.0"],
        "new-stack" => [vec!["init: prepared", "plan: 4 changes"], CREATES.to_vec()].concat(),
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
        "changed-secret" => vec![
            "plan: 2 changes",
            "  replace null_resource.trigger [id, triggers, triggers.secret]",
            "  update terraform_data.config [input.secret, output]",
        ],
        "replace" => vec!["plan: 1 changes", LOCAL_FILE_REPLACED],
        "mixed" => vec![
            "plan: 4 changes",
            LOCAL_FILE_REPLACED,
            "  delete null_resource.trigger []",
            "  create random_pet.extra []",
            "  update terraform_data.config [input.greeting, output]",
        ],
        "delete" => vec!["plan: 1 changes", "  delete null_resource.trigger []"],
        "move" => vec!["plan: 1 changes", "  none random_pet.pet []"],
        "forget" => vec!["plan: 1 changes", "  none null_resource.trigger []"],
        "import" => vec!["plan: 1 changes", "  none random_string.imported []"],
        "deploy-failed" => vec![
            "plan: 1 changes",
            "  create null_resource.fails []",
            "apply: the tool exited with an error (exit code 1)",
        ],
        "tofu-files" => vec![
            "plan: 2 changes",
            "  create random_id.zone []",
            "  create terraform_data.record []",
        ],
        "init-failed" => vec!["init: the tool exited with an error (exit code 1)"],
        "missing-variable" | "program-error" => {
            vec!["plan: the tool exited with an error (exit code 1)"]
        }
        "state-locked" => vec!["plan: another update holds the stack's state lock"],
        "log-diff-changed-secret" => vec!["diff: tool diff"],
        other => panic!("the corpus holds a scenario no test has read by hand: {other}"),
    };
    lines.into_iter().map(str::to_owned).collect()
}

fn scenarios(corpus: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(corpus.join("v1.11.0"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

#[test]
fn every_scenario_gives_the_changes_read_from_its_recording() {
    let Some(corpus) = corpus() else { return };
    let names = scenarios(&corpus);
    assert_eq!(names.len(), 23);
    for scenario in names {
        assert_eq!(
            summary(&run(&corpus, &scenario)),
            expected(&scenario),
            "{scenario}"
        );
    }
}

#[test]
fn tracking_changes_carry_their_kind_and_previous_address() {
    let Some(corpus) = corpus() else { return };
    let json = |scenario: &str| serde_json::to_value(run(&corpus, scenario)).unwrap();
    let change = |scenario: &str| json(scenario)["steps"][0]["diff"]["changes"][0].clone();
    assert_eq!(change("move")["tracking"], "move");
    assert_eq!(change("move")["previousAddress"], "random_pet.name");
    assert_eq!(change("forget")["tracking"], "forget");
    assert_eq!(change("import")["tracking"], "import");
}

/// Decision 0052 over the corpus: with every path allowed, a plain value shows and a
/// sensitive one never does.
#[test]
fn a_secret_of_the_corpus_never_shows_even_where_every_value_may() {
    let Some(corpus) = corpus() else { return };
    let mut shown = false;
    for scenario in scenarios(&corpus) {
        let report = replay_showing(
            Tool::Opentofu,
            &corpus.join("example"),
            &corpus.join("v1.11.0").join(&scenario),
            &ValueList::any_path(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        shown |= support::shows_no_secret(&report, &scenario, &[]);
    }
    assert!(
        shown,
        "the plain value shows somewhere, or this proves nothing"
    );
}

/// Values never leave the adapter, and sensitive ones not even into the job log; the
/// tool's own diff is OpenTofu's text.
#[test]
fn values_never_leave_the_adapter() {
    let Some(corpus) = corpus() else { return };
    let mut tool_diffs = 0;
    for scenario in scenarios(&corpus) {
        let report = run(&corpus, &scenario);
        let json = serde_json::to_string(&report).unwrap();
        let produced = &report.produced;
        for text in [
            &json,
            &produced.hash_inputs.join("\n"),
            &produced.log_lines.join("\n"),
        ] {
            assert!(
                !text.contains("CANARY-SECRET"),
                "{scenario}: a sensitive value left the adapter"
            );
        }
        for text in [&json, &produced.hash_inputs.join("\n")] {
            assert!(
                !text.contains("CANARY-VALUE"),
                "{scenario}: a value left the adapter"
            );
        }
        for text in &produced.tool_diffs {
            // The tool's own text, for the job log: what OpenTofu marks sensitive it
            // prints as `(sensitive value)`. terraform_data copies its input into an
            // `output` that is not marked, and OpenTofu prints that; Sluiceway masks
            // nothing by guessing, which is why `scan.logDiff` is opt-in.
            tool_diffs += 1;
            assert!(
                text.contains("~ secret   = (sensitive value)"),
                "{scenario}: the marked input shows as sensitive"
            );
        }
    }
    assert!(tool_diffs >= 1);
}
