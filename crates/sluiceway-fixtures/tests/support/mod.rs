//! What the fixture tests share: copying a project, and a report in lines a person can
//! check against a recording. Each test binary uses a part of it.

#![allow(dead_code)]

use std::fs;
use std::path::Path;

use sluiceway_fixtures::replay::{Report, StepOutcome};

/// The conformance corpus of a tool (`../shared/conformance/<tool>`), or a notice that
/// it is absent and nothing of it was replayed.
#[allow(
    clippy::print_stderr,
    reason = "a skipped corpus is announced on stderr"
)]
pub(crate) fn corpus(tool: &str) -> Option<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance")
        .join(tool);
    if dir.is_dir() {
        Some(dir)
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
        );
        eprintln!(
            "notice: {} is absent; the {tool} conformance corpus was not replayed",
            dir.display()
        );
        None
    }
}

/// The scenario directories of one recorded version, sorted by name.
pub(crate) fn scenario_names(version_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(version_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

pub(crate) fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// One line per step and one per change: `diff: update Deployment.apps/ns/web [spec.replicas]`.
pub(crate) fn summary(report: &Report) -> Vec<String> {
    let mut lines = Vec::new();
    for step in &report.steps {
        match &step.outcome {
            StepOutcome::Diff { diff, .. } => {
                lines.push(format!("{}: {} changes", step.command, diff.changes.len()));
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
            StepOutcome::Failure { failure } => {
                lines.push(format!("{}: {}", step.command, failure.reason))
            }
            StepOutcome::Deployed { .. } => lines.push(format!("{}: deployed", step.command)),
            StepOutcome::Version { version } => lines.push(format!("{}: {version}", step.command)),
            StepOutcome::ToolDiff { .. } => lines.push(format!("{}: tool diff", step.command)),
            StepOutcome::Prepared { .. } => lines.push(format!("{}: prepared", step.command)),
            StepOutcome::History { deploys } => {
                lines.push(format!("{}: {} deploys", step.command, deploys.len()));
                for d in deploys {
                    lines.push(format!(
                        "  {} {} {}{}{}",
                        d.kind,
                        d.ended,
                        d.commit.as_deref().unwrap_or("-"),
                        if d.dirty { " dirty" } else { "" },
                        d.run.map(|r| format!(" run {r}")).unwrap_or_default()
                    ));
                }
            }
            StepOutcome::Stacks { stacks } => {
                lines.push(format!("{}: stacks [{}]", step.command, stacks.join(", ")))
            }
            StepOutcome::Created { .. } => lines.push(format!("{}: created", step.command)),
        }
    }
    lines
}

/// Everything a replay produced but the tool diff: the report, the log, the hash inputs.
fn outside_the_tool_diff(report: &Report) -> String {
    let produced = &report.produced;
    [
        serde_json::to_string(report).unwrap(),
        produced.log_lines.join("\n"),
        produced.hash_inputs.join("\n"),
    ]
    .join("\n")
}

/// The value list's canary (decision 0052) over a replay made with every path allowed,
/// as no configuration can: no secret form anywhere the adapter produced but the tool
/// diff. Answers whether the plain canary showed, which some scenario of each tool must,
/// or the list would prove nothing.
pub(crate) fn shows_no_secret(report: &Report, scenario: &str, secret_forms: &[&str]) -> bool {
    let everything = outside_the_tool_diff(report);
    for canary in ["CANARY-SECRET", "[secret]", "***"]
        .iter()
        .chain(secret_forms)
    {
        assert!(
            !everything.contains(canary),
            "{scenario}: {canary} showed where every value may"
        );
    }
    report
        .produced
        .hash_inputs
        .join("\n")
        .contains("CANARY-VALUE")
}

/// Record 0021 over one replay: no canary, no base64 of the secret, no kubectl mask in
/// anything the adapter produced but the tool diff, which may show the ConfigMap's value
/// and never the Secret's.
pub(crate) fn assert_no_value_left(report: &Report, scenario: &str, secret_forms: &[&str]) {
    let everything = outside_the_tool_diff(report);
    let produced = &report.produced;
    for canary in ["CANARY", "***"].iter().chain(secret_forms) {
        assert!(
            !everything.contains(canary),
            "{scenario}: {canary} left the adapter"
        );
    }
    for text in &produced.tool_diffs {
        assert!(
            text.contains("CANARY-VALUE"),
            "{scenario}: the tool diff shows what kubectl shows"
        );
        for canary in secret_forms {
            assert!(
                !text.contains(canary),
                "{scenario}: the tool diff shows a Secret's value"
            );
        }
    }
}

/// The value rule over a Pulumi replay: no canary (a config value, a property, an
/// output) in anything the adapter produced but the tool diff, which may show a plain
/// value and shows a secret only as `[secret]`.
pub(crate) fn assert_no_pulumi_value_left(report: &Report, scenario: &str) {
    let everything = outside_the_tool_diff(report);
    let produced = &report.produced;
    assert!(
        !everything.contains("CANARY"),
        "{scenario}: a canary left the adapter"
    );
    for text in &produced.tool_diffs {
        assert!(
            !text.contains("CANARY-SECRET"),
            "{scenario}: the tool diff shows a secret"
        );
    }
}
