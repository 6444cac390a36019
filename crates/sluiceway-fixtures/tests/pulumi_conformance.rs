//! The Pulumi adapter held to the conformance corpus: every scenario the reference's CI
//! recorded with the Pulumi CLI v3.229.0, replayed through our adapter, with the exact
//! changes, drift, history and failure reasons read from the recordings by hand. The
//! corpus lives outside this repository (`../shared/conformance/pulumi`); without it
//! these tests say so and pass nothing off as checked.

use std::path::{Path, PathBuf};

use sluiceway_core::values::ValueList;
use sluiceway_fixtures::replay::{Report, Tool, replay, replay_showing};
use support::summary;

mod support;

const VERSION: &str = "v3.229.0";

fn corpus() -> Option<PathBuf> {
    support::corpus("pulumi")
}

fn run(corpus: &Path, scenario: &str) -> Report {
    replay(
        Tool::Pulumi,
        &corpus.join("example"),
        &corpus.join(VERSION).join(scenario),
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

const NET: &str = "urn:pulumi:dev::network::";
const NETWORK_CREATES: [&str; 4] = [
    "  create urn:pulumi:dev::network::command:local:Command::banner []",
    "  create urn:pulumi:dev::network::local:index/file:File::notes []",
    "  create urn:pulumi:dev::network::random:index/randomPet:RandomPet::name []",
    "  create urn:pulumi:dev::network::random:index/randomString:RandomString::subnet []",
];
const SITE_CREATES: [&str; 4] = [
    "  create urn:pulumi:prod::site::command:local:Command::publish []",
    "  create urn:pulumi:prod::site::random:index/randomPet:RandomPet::page-about []",
    "  create urn:pulumi:prod::site::random:index/randomPet:RandomPet::page-contact []",
    "  create urn:pulumi:prod::site::random:index/randomPet:RandomPet::page-home []",
];
const FILE_KEYS: &str = "content, contentBase64sha256, contentBase64sha512, contentMd5, contentSha1, contentSha256, contentSha512, id";
const BUSY: &str = "another update holds the stack's state lock";
const NO_STACK: &str = "the backend has no stack of this name; create it, or set createInBackend";
const EXIT_1: &str = "the tool exited with an error (exit code 1)";

/// Read by hand from the recordings.
fn expected(scenario: &str) -> Vec<String> {
    let banner_update = |key: &str| format!("  update {NET}command:local:Command::banner [{key}]");
    let notes_replace = format!("  replace {NET}local:index/file:File::notes [{FILE_KEYS}]");
    let pet_replace = format!("  replace {NET}random:index/randomPet:RandomPet::name [prefix]");
    let lines: Vec<String> = match scenario {
        "version" => lines(&["version: v3.229.0"]),
        "new-stack" | "preview-locked" => {
            [lines(&["preview: 4 changes"]), lines(&NETWORK_CREATES)].concat()
        }
        "new-stack-without-resources" => lines(&[
            "preview: 1 changes",
            "  create urn:pulumi:dev::empty::pulumi:pulumi:Stack::empty-dev []",
        ]),
        "new-stack-yml-project" => lines(&[
            "preview: 2 changes",
            "  create urn:pulumi:prod::app::command:local:Command::start []",
            "  create urn:pulumi:prod::app::random:index/randomPet:RandomPet::release []",
        ]),
        "same-preview-twice" => [
            lines(&["preview-1: 4 changes"]),
            lines(&SITE_CREATES),
            lines(&["preview-2: 4 changes"]),
            lines(&SITE_CREATES),
        ]
        .concat(),
        "no-changes" | "outputs-only" | "renamed-with-alias" => lines(&["preview: 0 changes"]),
        "update" => vec![
            "preview: 1 changes".into(),
            banner_update("environment.STAGE"),
        ],
        "changed-secret" => vec![
            "preview: 1 changes".into(),
            banner_update("environment.TOKEN"),
        ],
        "replace" => vec!["preview: 2 changes".into(), notes_replace, pet_replace],
        "delete" => lines(&[
            "preview: 1 changes",
            "  delete urn:pulumi:dev::network::random:index/randomString:RandomString::subnet []",
        ]),
        "mixed" => vec![
            "preview: 5 changes".into(),
            banner_update("environment.STAGE"),
            notes_replace,
            format!("  create {NET}random:index/randomPet:RandomPet::extra []"),
            pet_replace,
            format!("  delete {NET}random:index/randomString:RandomString::subnet []"),
        ],
        "import" => lines(&[
            "preview: 1 changes",
            "  none urn:pulumi:dev::network::random:index/randomId:RandomId::adopted []",
        ]),
        "dropped-but-kept" => lines(&[
            "preview: 1 changes",
            "  none urn:pulumi:dev::network::random:index/randomString:RandomString::subnet []",
        ]),
        "nested-paths" => lines(&[
            "preview: 2 changes",
            "  update urn:pulumi:dev::nested::kubernetes:apps/v1:Deployment::web [metadata.annotations[\"example.com/revision\"], spec.template.spec.containers[0].env[0].value, spec.template.spec.containers[0].image]",
            "  replace urn:pulumi:dev::nested::kubernetes:core/v1:ConfigMap::settings [data[\"app.properties\"]]",
        ]),
        "many-resources" => {
            let mut all = vec!["preview: 300 changes".to_owned()];
            all.extend((1..=300).map(|i| {
                format!(
                    "  create urn:pulumi:big::many::random:index/randomId:RandomId::item{i:03} []"
                )
            }));
            all
        }
        "stack-reference" => lines(&[
            "preview: 2 changes",
            "  create urn:pulumi:prod::app::command:local:Command::start []",
            "  create urn:pulumi:prod::app::random:index/randomPet:RandomPet::release []",
            "preview-deployed: 0 changes",
        ]),
        "deploy" => [
            lines(&["preview: 4 changes"]),
            lines(&NETWORK_CREATES),
            lines(&["up: deployed"]),
        ]
        .concat(),
        "deploy-failed" => [
            lines(&["preview: 4 changes"]),
            lines(&NETWORK_CREATES),
            lines(&[&format!("up: {EXIT_1}")]),
        ]
        .concat(),
        "log-diff-deploy" => [
            lines(&["preview: 4 changes"]),
            lines(&NETWORK_CREATES),
            lines(&["diff: tool diff", "up: deployed"]),
        ]
        .concat(),
        "log-diff-changed-secret" => vec![
            "preview: 1 changes".into(),
            banner_update("environment.TOKEN"),
            "diff: tool diff".into(),
        ],
        "log-diff-missing-config" => lines(&[&format!("diff: {EXIT_1}")]),
        "program-error" | "program-exception" | "resource-error" | "missing-config" => {
            lines(&[&format!("preview: {EXIT_1}")])
        }
        "missing-stack" => lines(&[&format!("preview: {NO_STACK}")]),
        "drift-missing-stack" => lines(&[&format!("drift: {NO_STACK}")]),
        "history-missing-stack" => lines(&[&format!("history: {NO_STACK}")]),
        "drift-changed" => lines(&[
            "preview: 0 changes",
            "drift: 0 changes",
            "  drift update urn:pulumi:prod::site::pulumi-nodejs:dynamic:Resource::note []",
            "up: deployed",
            "drift-after: 0 changes",
        ]),
        "drift-gone" => lines(&[
            "drift-before: 0 changes",
            "preview: 0 changes",
            "drift: 0 changes",
            "  drift delete urn:pulumi:dev::network::local:index/file:File::notes []",
            "up: deployed",
            "drift-after: 0 changes",
        ]),
        "drift-locked" => lines(&[
            "drift: 0 changes",
            "  drift delete urn:pulumi:dev::network::local:index/file:File::notes []",
            &format!("up-locked: {BUSY}"),
        ]),
        "stack-list" => lines(&["stack-ls: stacks [dev]"]),
        "stack-list-empty" => lines(&["stack-ls: stacks []"]),
        "create-stack" => [
            lines(&[
                "stack-ls: stacks [dev]",
                "stack-init: created",
                "preview: 4 changes",
            ]),
            NETWORK_CREATES
                .iter()
                .map(|l| l.replace(":dev::", ":prod::"))
                .collect(),
            lines(&[&format!("stack-init-again: {EXIT_1}")]),
        ]
        .concat(),
        "history" => lines(&[
            "history-before: 0 deploys",
            &format!("up-failed: {EXIT_1}"),
            "history: 4 deploys",
            "  destroy 2026-09-22T14:17:11.000Z 7790ca54d9cff99a5dbeb4740ff3416ea32ce443 dirty",
            "  update 2026-09-22T14:17:09.000Z 7790ca54d9cff99a5dbeb4740ff3416ea32ce443 run 1234567890",
            "  update 2026-09-22T14:17:09.000Z c46c7fa44fd5e3771d036f79acd46578ba8c0b4d run 9876543210",
            "  update 2026-09-22T14:17:08.000Z fc4fbc981d66415a6a58c3c23fa27bdbf9bc8831",
        ]),
        other => panic!("no expectation for {other}; read it from the recording and add it"),
    };
    lines
}

fn lines(text: &[&str]) -> Vec<String> {
    text.iter().map(|l| (*l).to_owned()).collect()
}

fn scenarios(corpus: &Path) -> Vec<String> {
    support::scenario_names(&corpus.join(VERSION))
}

#[test]
fn every_corpus_scenario_reads_as_the_recording_says() {
    let Some(corpus) = corpus() else { return };
    let names = scenarios(&corpus);
    assert_eq!(names.len(), 38, "the corpus holds 38 Pulumi scenarios");
    for name in &names {
        assert_eq!(summary(&run(&corpus, name)), expected(name), "{name}");
    }
}

#[test]
fn steps_in_another_order_give_one_hash() {
    let Some(corpus) = corpus() else { return };
    let json = serde_json::to_value(run(&corpus, "same-preview-twice")).unwrap();
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(steps[0]["hash"], steps[1]["hash"]);
}

#[test]
fn the_repair_of_gone_drift_is_held_to_the_hash_of_no_drift() {
    let Some(corpus) = corpus() else { return };
    let json = serde_json::to_value(run(&corpus, "drift-gone")).unwrap();
    let steps = json["steps"].as_array().unwrap();
    assert_eq!(
        steps[0]["hash"], steps[4]["hash"],
        "before and after the repair"
    );
    assert_ne!(steps[0]["hash"], steps[2]["hash"], "drift joins the hash");
}

/// Decision 0052 over the corpus: with every path allowed, a secret never shows.
#[test]
fn a_secret_of_the_corpus_never_shows_even_where_every_value_may() {
    let Some(corpus) = corpus() else { return };
    for name in scenarios(&corpus) {
        let report = replay_showing(
            Tool::Pulumi,
            &corpus.join("example"),
            &corpus.join(VERSION).join(&name),
            &ValueList::any_path(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        support::shows_no_secret(&report, &name, &[]);
    }
}

#[test]
fn no_value_of_the_corpus_leaves_the_adapter() {
    let Some(corpus) = corpus() else { return };
    for name in scenarios(&corpus) {
        support::assert_no_pulumi_value_left(&run(&corpus, &name), &name);
    }
}
