//! Settings reach what they change, end to end: the real binary as an Actions job runs
//! it, against the emulator with the real `tofu`. Each test sets a key of
//! `sluiceway.yaml` and looks for its effect where a person would.

mod support;

use std::process::Command;

use sluiceway_github::GitHub;
use support::job::*;
use support::{Bed, REPO};

fn with_config(job: &Job, edit: impl FnOnce(String) -> String) {
    let file = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, edit(text)).unwrap();
}

#[test]
fn the_title_label_and_pin_keys_shape_the_dashboard_issue() {
    let bed = Bed::new();
    let job = Job::new();
    with_config(&job, |text| {
        text.replace(
            "  title: Quickstart deploys\n",
            "  title: Platform deploys\n  label: platform\n  pin: false\n",
        )
    });
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        bed.github
            .open_issues_labelled("sluiceway")
            .unwrap()
            .is_empty()
    );
    let issues = bed.github.open_issues_labelled("platform").unwrap();
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].title, "Platform deploys");
    let world = bed.emulator.world();
    let pinned = &world.repo(REPO).unwrap().pinned;
    assert!(
        pinned.is_empty(),
        "pin: false leaves it unpinned: {pinned:?}"
    );
}

/// The attribution line of network after two pushes that touched it since its last
/// deploy, which a record of the first commit says.
fn attribution_after_two_pushes(attribution: &str) -> String {
    let bed = Bed::new();
    let job = Job::new();
    with_config(&job, |text| format!("{attribution}{text}"));
    let first = push(&bed, "the first commit", &["network/main.tf"]);
    deployed(&bed, "network", &first);
    push(&bed, "the second commit", &["network/main.tf"]);
    let sha = push(&bed, "the third commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let row = blocks(&bed.body(dashboard(&bed)))["network"].clone();
    row.lines()
        .find(|l| l.starts_with("  from "))
        .unwrap_or_else(|| panic!("an attribution line: {row}"))
        .to_owned()
}

#[test]
fn attribution_walks_as_many_commits_as_lookback_and_names_as_many_as_names() {
    let both = attribution_after_two_pushes("");
    assert_eq!(both.matches(") by alice").count(), 2, "{both}");
    let one = attribution_after_two_pushes("attribution:\n  lookback: 1\n");
    assert_eq!(one.matches(") by alice").count(), 1, "{one}");
    let counted = attribution_after_two_pushes("attribution:\n  names: 1\n");
    assert!(
        counted.matches(") by alice").count() == 1 && counted.contains("and 1 more"),
        "{counted}"
    );
}

#[test]
fn a_stacks_own_preview_timeout_ends_a_hanging_preview_of_that_stack() {
    let bed = Bed::new();
    let job = Job::new();
    with_config(&job, |text| {
        text.replace(
            "    name: dev\n    tool: opentofu\n",
            "    name: dev\n    tool: opentofu\n    previewTimeout: 1\n",
        )
    });
    let bin = misbehaving("plan", "exec sleep 7392");
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let ran = job.run_with(&bed, "push", &sha, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let rows = blocks(&bed.body(dashboard(&bed)));
    assert!(
        rows["storage:dev"].contains("preview failed: the preview timed out after 1 minute"),
        "the stack's minute, not the input's ten: {}",
        rows["storage:dev"]
    );
    assert!(rows["network"].contains("state=\"pending\""));
    let left = Command::new("pgrep")
        .args(["-f", "sleep 7392"])
        .output()
        .unwrap();
    assert!(left.stdout.is_empty(), "the hung tool was left running");
}
