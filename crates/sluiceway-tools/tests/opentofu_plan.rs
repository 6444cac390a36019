//! The plan reader held to the plans the reference's CI recorded with real OpenTofu
//! v1.11.0 and real providers (`../shared/conformance/opentofu`), with the changes read
//! from each plan by hand; and to plans damaged in named ways.

#![allow(
    clippy::print_stderr,
    reason = "a skipped corpus is announced on stderr"
)]

use std::fs;
use std::path::{Path, PathBuf};

use sluiceway_core::values::ValueList;
use sluiceway_tools::opentofu::plan::{self, PlanError};

fn corpus() -> Option<PathBuf> {
    let dir =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/conformance/opentofu/v1.11.0");
    if dir.is_dir() {
        Some(dir)
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
        );
        eprintln!(
            "notice: {} is absent; the plan reader was not held to it",
            dir.display()
        );
        None
    }
}

fn summary(text: &str) -> Vec<String> {
    plan::read(text.as_bytes(), &ValueList::none())
        .unwrap()
        .iter()
        .map(|c| {
            let tracking = c
                .tracking
                .map(|t| format!(" ({})", t.name()))
                .unwrap_or_default();
            let previous = c
                .previous_address
                .as_ref()
                .map(|p| format!(" from {p}"))
                .unwrap_or_default();
            format!(
                "{} {}{tracking}{previous} [{}] replace [{}]",
                c.op.name(),
                c.address,
                c.changed_keys.join(", "),
                c.replace_keys.join(", ")
            )
        })
        .collect()
}

const CREATES: [&str; 4] = [
    "create local_file.notes [] replace []",
    "create null_resource.trigger [] replace []",
    "create random_pet.name [] replace []",
    "create terraform_data.config [] replace []",
];

fn expected(scenario: &str) -> Vec<&'static str> {
    match scenario {
        "new-stack" | "deploy" | "other-workspace" | "same-plan-twice" => CREATES.to_vec(),
        "no-changes" | "outputs-only" => vec![],
        "update" | "stale-plan" => {
            vec!["update terraform_data.config [input.greeting, output] replace []"]
        }
        "changed-secret" => vec![
            "replace null_resource.trigger [id, triggers, triggers.secret] replace [triggers]",
            "update terraform_data.config [input.secret, output] replace []",
        ],
        "replace" => vec![
            "replace local_file.notes [content, content_base64sha256, content_base64sha512, content_md5, content_sha1, content_sha256, content_sha512, id] replace [content]",
        ],
        "mixed" => vec![
            "replace local_file.notes [content, content_base64sha256, content_base64sha512, content_md5, content_sha1, content_sha256, content_sha512, id] replace [content]",
            "delete null_resource.trigger [] replace []",
            "create random_pet.extra [] replace []",
            "update terraform_data.config [input.greeting, output] replace []",
        ],
        "delete" => vec!["delete null_resource.trigger [] replace []"],
        "move" => vec!["none random_pet.pet (move) from random_pet.name [] replace []"],
        "forget" => vec!["none null_resource.trigger (forget) [] replace []"],
        "import" => vec!["none random_string.imported (import) [] replace []"],
        "deploy-failed" => vec!["create null_resource.fails [] replace []"],
        "tofu-files" => vec![
            "create random_id.zone [] replace []",
            "create terraform_data.record [] replace []",
        ],
        other => panic!("a recorded plan no test has read by hand: {other}"),
    }
}

#[test]
fn every_recorded_plan_gives_the_changes_read_from_it() {
    let Some(corpus) = corpus() else { return };
    let mut read = 0;
    for entry in fs::read_dir(&corpus).unwrap() {
        let dir = entry.unwrap().path();
        let show = dir.join("show.stdout");
        if !show.is_file() || fs::metadata(&show).unwrap().len() == 0 {
            continue;
        }
        let scenario = dir.file_name().unwrap().to_str().unwrap().to_owned();
        let text = fs::read_to_string(&show).unwrap();
        assert_eq!(summary(&text), expected(&scenario), "{scenario}");
        let everything = format!(
            "{:?}",
            plan::read(text.as_bytes(), &ValueList::none()).unwrap()
        );
        for canary in ["CANARY-VALUE", "CANARY-SECRET"] {
            assert!(
                !everything.contains(canary),
                "{scenario}: a value left the reader"
            );
        }
        assert!(
            text.contains("CANARY"),
            "{scenario}: the plan itself holds the canary, or this proves nothing"
        );
        read += 1;
    }
    assert_eq!(read, 17);
}

fn recorded(scenario: &str) -> Option<String> {
    corpus().map(|c| fs::read_to_string(c.join(scenario).join("show.stdout")).unwrap())
}

#[test]
fn damaged_plans_get_the_fixed_reasons_and_name_no_value() {
    let Some(plan) = recorded("mixed") else {
        return;
    };
    let unreadable = |text: &str| match plan::read(text.as_bytes(), &ValueList::none()) {
        Err(PlanError::Unreadable(detail)) => detail,
        other => panic!("expected unreadable, got {other:?}"),
    };
    let cut = unreadable(&plan[..plan.len() / 2]);
    assert!(
        cut.starts_with("The plan, at line 1 column") && !cut.contains("CANARY"),
        "{cut}"
    );
    assert_eq!(
        unreadable(&plan.replacen(
            "\"format_version\":\"1.2\"",
            "\"format_version\":\"2.0\"",
            1
        )),
        "The plan: expected format version 1.x"
    );
    assert_eq!(
        unreadable(&plan.replacen("\"errored\":false", "\"errored\":true", 1)),
        "The plan: expected a plan that did not error"
    );
    assert_eq!(
        unreadable(&plan.replacen(
            "\"format_version\":\"1.2\"",
            "\"format_version\":\"1.2\",\"complete\":false",
            1
        )),
        "The plan: expected a complete plan, with no deferred changes"
    );
    let unknown = plan.replacen(
        "\"actions\":[\"delete\"]",
        "\"actions\":[\"delete\",\"reticulate\"]",
        1,
    );
    assert!(matches!(
        plan::read(unknown.as_bytes(), &ValueList::none()),
        Err(PlanError::UnknownStep(_))
    ));
    let data_changed = plan.replacen("\"actions\":[\"read\"]", "\"actions\":[\"delete\"]", 1);
    assert!(matches!(
        plan::read(data_changed.as_bytes(), &ValueList::none()),
        Err(PlanError::UnknownStep(_))
    ));
    assert!(unreadable(&format!("{plan} trailing")).contains("expected nothing after the plan"));
}
