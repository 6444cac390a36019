//! Settings reach what they change, end to end: the real binary as an Actions job runs
//! it, against the emulator with the real `tofu`. Each test sets a key of
//! `sluiceway.yaml` and looks for its effect where a person would.

mod support;

use std::process::Command;

use sluiceway_github::GitHub;
use support::job::*;
use support::{Bed, REPO, tofu_dir};

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

/// A `tofu` in a folder of its own that writes, for every run, its subcommand, the
/// stack's directory and workspace and the variables under test into `seen`, then is
/// the real tool.
fn telling_tofu(seen: &std::path::Path) -> tempfile::TempDir {
    wrapped_tofu(&format!(
        "echo \"$1|$(basename \"$PWD\")|${{TF_WORKSPACE-}}|${{PROBE-}}|${{SHARED-}}|${{STEP_ONLY-}}\" >> {}",
        seen.display()
    ))
}

#[test]
fn a_stacks_env_file_reaches_its_tool_alone_over_the_steps_and_a_missing_one_fails_that_stack_only()
{
    let bed = Bed::new();
    let mut job = Job::of("examples/quickstart");
    with_config(&job, |text| {
        text.replacen(
            "  - path: network\n    tool: opentofu\n",
            "  - path: network\n    tool: opentofu\n    envFile: ci/network.env\n",
            1,
        )
        .replace(
            "    name: prod\n    tool: opentofu\n",
            "    name: prod\n    tool: opentofu\n    envFile: ci/missing.env\n",
        )
    });
    std::fs::create_dir_all(job.file("ci")).unwrap();
    std::fs::write(
        job.file("ci/network.env"),
        "PROBE=network-only-value\nSHARED=from-the-stack\n",
    )
    .unwrap();
    std::fs::write(
        job.file("ci/step.env"),
        "SHARED=from-the-step\nSTEP_ONLY=step-wide-value\n",
    )
    .unwrap();
    let record = tempfile::tempdir().unwrap();
    let seen = record.path().join("seen.txt");
    let bin = telling_tofu(&seen);
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run_with(&bed, "push", &sha, &path, &[("env-file", "ci/step.env")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);

    // Masked before any tool ran, and named without its values.
    let mask = ran
        .log
        .find("::add-mask::network-only-value")
        .expect(&ran.log);
    assert!(mask < ran.log.find("::group::").unwrap(), "{}", ran.log);
    assert!(
        ran.log
            .contains("Its stacks' tool gets 2 variables from ci/network.env: PROBE, SHARED."),
        "{}",
        ran.log
    );
    let runs = std::fs::read_to_string(&seen).unwrap();
    let plans = |dir: &str, workspace: &str| -> Vec<&str> {
        runs.lines()
            .filter(|l| l.starts_with(&format!("plan|{dir}|{workspace}|")))
            .collect()
    };
    assert_eq!(
        plans("network", ""),
        ["plan|network||network-only-value|from-the-stack|step-wide-value"],
        "the stack's file over the step's: {runs}"
    );
    assert_eq!(
        plans("storage", "dev"),
        ["plan|storage|dev||from-the-step|step-wide-value"],
        "never another stack's: {runs}"
    );
    assert!(plans("storage", "prod").is_empty(), "{runs}");

    let body = bed.body(dashboard(&bed));
    let rows = blocks(&body);
    assert!(
        rows["storage:prod"]
            .contains("preview failed: the env file of the stack could not be loaded"),
        "{}",
        rows["storage:prod"]
    );
    assert!(rows["network"].contains("state=\"pending\""));
    assert!(rows["storage:dev"].contains("state=\"pending\""));
    assert!(
        ran.log.contains(
            "stacks[2].envFile: the env file ci/missing.env could not be read: entity not found"
        ) && ran.log.contains("::error::storage:prod: sluiceway.yaml:"),
        "the place, in the job log: {}",
        ran.log
    );
    assert!(!body.contains("network-only-value") && !body.contains("from-the-stack"));

    // The deploy's own preview and the deploy get the stack's file as well.
    let number = dashboard(&bed);
    tick(&bed, number, "alice", "network");
    job.payload = Some(edit_event(&bed, number));
    let deployed = job.run_with(
        &bed,
        "issues",
        &sha,
        &path,
        &[("mode", ""), ("env-file", "ci/step.env")],
    );
    assert_eq!(deployed.code, Some(0), "{}", deployed.log);
    assert!(
        deployed.log.contains("network: deployed."),
        "{}",
        deployed.log
    );
    let runs = std::fs::read_to_string(&seen).unwrap();
    assert!(
        runs.lines()
            .any(|l| l == "apply|network||network-only-value|from-the-stack|step-wide-value"),
        "{runs}"
    );
    assert!(
        runs.lines()
            .filter(|l| l.contains("|network|"))
            .all(|l| l.contains("|network-only-value|")),
        "every run of the stack's tool: {runs}"
    );

    // `check` names the file that cannot be loaded at its key.
    let check = Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(["check", "--repo"])
        .arg(job.file(""))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&check.stderr).into_owned()
        + &String::from_utf8_lossy(&check.stdout);
    assert_eq!(check.status.code(), Some(1), "{said}");
    assert!(
        said.contains("sluiceway.yaml:")
            && said.contains(": stacks[2].envFile: the env file ci/missing.env could not be read"),
        "{said}"
    );
}

#[test]
fn the_github_token_input_is_the_one_github_is_asked_with() {
    let bed = Bed::new();
    bed.emulator
        .act(github_emulator::Act::AddToken {
            token: "the-workflows-own".into(),
            login: "github-actions[bot]".into(),
            permissions: None,
        })
        .unwrap();
    let job = Job::of("examples/quickstart");
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());

    let refused = job.run_with(
        &bed,
        "push",
        &sha,
        &path,
        &[("github-token", "not-a-token")],
    );
    assert_ne!(refused.code, Some(0), "{}", refused.log);
    assert!(
        refused.log.contains("401"),
        "GitHub's refusal is named: {}",
        refused.log
    );
    assert!(!refused.log.contains("not-a-token"), "{}", refused.log);
    assert!(
        bed.github
            .open_issues_labelled("sluiceway")
            .unwrap()
            .is_empty()
    );

    let ran = job.run_with(
        &bed,
        "push",
        &sha,
        &path,
        &[("github-token", "the-workflows-own")],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(
        bed.github.open_issues_labelled("sluiceway").unwrap().len(),
        1
    );
}

#[test]
fn each_stacks_var_files_reach_its_own_plan_and_no_other() {
    let bed = Bed::new();
    let job = Job::of("examples/quickstart");
    let seen = tempfile::tempdir().unwrap();
    let log = seen.path().join("plans");
    let bin = wrapped_tofu(&format!(
        "if [ \"$1\" = plan ]; then echo \"$(basename \"$PWD\")|${{TF_WORKSPACE-}}|$*\" >> {}; fi",
        log.display()
    ));
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let ran = job.run_with(&bed, "push", &sha, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let plans = std::fs::read_to_string(&log).unwrap();
    let var_files = |stack: &str| -> Vec<String> {
        let line = plans
            .lines()
            .find(|l| l.starts_with(&format!("{stack}|")))
            .unwrap_or_else(|| panic!("no plan of {stack}: {plans}"));
        line.split(' ')
            .filter(|arg| arg.starts_with("-var-file"))
            .map(str::to_owned)
            .collect()
    };
    assert_eq!(var_files("network|"), Vec::<String>::new(), "{plans}");
    assert_eq!(
        var_files("storage|dev"),
        ["-var-file=dev.tfvars"],
        "{plans}"
    );
    assert_eq!(
        var_files("storage|prod"),
        ["-var-file=prod.tfvars"],
        "{plans}"
    );
}
