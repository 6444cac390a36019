//! Policies, end to end (decision 0106, ADR 0034): the real binary as an Actions job runs
//! it, against the emulator with the real `tofu`, the Rego evaluated inside Sluiceway with
//! no `conftest` on the runner's PATH.

mod support;

use github_emulator::Act;
use sluiceway_github::GitHub;
use support::job::*;
use support::{Bed, REPO, tofu_dir};

/// Deletes fail, creates warn; a second namespace says nothing. The failure's message
/// carries markup the row must escape.
const POLICY: &str = r#"package plan

import rego.v1

deny contains msg if {
  some change in input.resource_changes
  "delete" in change.change.actions
  msg := sprintf("%s must not be deleted <b>now</b>", [change.address])
}

warn contains msg if {
  some change in input.resource_changes
  "create" in change.change.actions
  msg := sprintf("%s is created", [change.address])
}
"#;

/// What a team writes once the subnets may go: an exception for the deny rule.
const WAIVED: &str = "\nexception contains rules if {\n  true\n  rules := [\"\"]\n}\n";

fn path() -> String {
    format!("{}:/usr/bin:/bin", tofu_dir().display())
}

/// The example with network deploying on merge, every stack judged by `policy/`.
fn configure(job: &Job) {
    let file = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "stacks:\n  - path: network\n    tool: opentofu\n",
        "policies: [policy]\n\nstacks:\n  - path: network\n    tool: opentofu\n    deploy: on-merge\n",
    );
    std::fs::write(&file, text).unwrap();
    std::fs::create_dir_all(job.file("policy")).unwrap();
    std::fs::write(job.file("policy/plan.rego"), POLICY).unwrap();
}

fn network_records(bed: &Bed) -> usize {
    bed.github
        .deployment_records("sluiceway")
        .unwrap()
        .records
        .iter()
        .filter(|r| r.task == "sluiceway:network")
        .count()
}

#[test]
fn a_policy_that_denies_a_delete_takes_the_box_off_that_row_and_the_scan_after_the_fix_restores_it()
{
    let bed = Bed::new();
    let mut job = Job::new();
    configure(&job);

    // Creates only: the policies pass, their warnings stay in the log, and network
    // deploys on its merge.
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    job.payload = Some(pushed_by("alice"));
    let ran = job.run_with(&bed, "push", &sha, &path(), &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        job.file("network/terraform.tfstate").exists(),
        "{}",
        ran.log
    );
    assert!(
        ran.log
            .contains("Policy warning (plan): terraform_data.vpc is created")
            && ran.log.contains("The policies passed."),
        "{}",
        ran.log
    );
    assert!(!bed.body(dashboard(&bed)).contains("is created"));

    // A delete: exactly network's row loses its box, says why, and its merge deploys
    // nothing.
    drop_the_subnets(&job);
    let sha = push(&bed, "drop the subnets", &["network/main.tf"]);
    job.payload = Some(pushed_by("bob"));
    let ran = job.run_with(&bed, "push", &sha, &path(), &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(
        network_records(&bed),
        1,
        "no record for the failed change: {}",
        ran.log
    );
    let number = dashboard(&bed);
    let body = bed.body(number);
    let rows = blocks(&body);
    let network = &rows["network"];
    assert!(
        network.starts_with("- **network** · ")
            && network.contains("state=\"pending\"")
            && network.contains("policy=\"failed\""),
        "{network}"
    );
    assert!(
        network.contains(
            "  :no_entry: **1 policy failed**, so this change has no box until it passes:\n  :no_entry: <code>plan</code> · terraform&#95;data.subnets must not be deleted &lt;b&gt;now&lt;/b&gt;"
        ),
        "{network}"
    );
    assert!(
        network.contains(
            "this stack deploys on merge, and this change deployed nothing: a policy failed on it."
        ),
        "{network}"
    );
    for other in ["storage:dev", "storage:prod"] {
        assert!(
            rows[other].starts_with("- [ ] ") && !rows[other].contains("policy="),
            "{}",
            rows[other]
        );
    }
    assert!(
        !body.contains("10.20.0.0"),
        "no value of the plan reaches the body"
    );

    // A box drawn by hand on that row deploys nothing either.
    bed.emulator
        .act(Act::EditBody {
            repo: REPO.into(),
            issue: number,
            editor: "alice".into(),
            body: body.replacen("- **network** · ", "- [x] **network** · ", 1),
        })
        .unwrap();
    job.payload = Some(edit_event(&bed, number));
    let ran = job.run_with(&bed, "issues", &sha, &path(), &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(network_records(&bed), 1, "{}", ran.log);
    let network = blocks(&bed.body(number))["network"].clone();
    assert!(
        network.starts_with("- **network** · ")
            && network.contains("a policy failed on this change, so this tick started nothing."),
        "{network}"
    );
    assert!(
        ran.log
            .contains("network: a policy failed on its change, so the tick started nothing"),
        "{}",
        ran.log
    );

    // The fix: the team waives the rule, and the next scan draws the box again.
    let rego = job.file("policy/plan.rego");
    std::fs::write(&rego, format!("{POLICY}{WAIVED}")).unwrap();
    let sha = push(&bed, "let the subnets go", &["policy/plan.rego"]);
    job.payload = Some(pushed_by("bob"));
    let ran = job.run_with(&bed, "push", &sha, &path(), &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let network = blocks(&bed.body(number))["network"].clone();
    assert!(
        network.starts_with("- [ ] **network** · ")
            && !network.contains("policy=")
            && !network.contains(":no_entry:"),
        "{network}"
    );
}

#[test]
fn policies_that_cannot_be_used_are_named_by_check_and_a_scan_keeps_the_boxes() {
    let bed = Bed::new();
    let job = Job::new();
    configure(&job);
    std::fs::write(
        job.file("policy/broken.rego"),
        "package broken\ndeny[msg] {\n",
    )
    .unwrap();
    let file = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "    name: prod\n    tool: opentofu\n",
        "    name: prod\n    tool: opentofu\n    policies: [no-such-folder]\n",
    );
    std::fs::write(&file, text).unwrap();

    let checked = std::process::Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(["check", "--repo", job.file("").to_str().unwrap()])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&checked.stderr).into_owned()
        + &String::from_utf8_lossy(&checked.stdout);
    assert_eq!(checked.status.code(), Some(1), "{said}");
    assert!(
        said.contains("sluiceway.yaml:5:12: policies[0]: the policies cannot be used: policy/broken.rego:2:11: the policy does not parse: `if` keyword is required before rule body"),
        "{said}"
    );
    assert!(
        said.contains(
            "policies[0]: the policies cannot be read: no-such-folder: no such file or folder"
        ),
        "{said}"
    );

    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run_with(&bed, "push", &sha, &path(), &[]);
    assert_eq!(ran.code, Some(0), "never red: {}", ran.log);
    assert!(
        ran.log
            .contains("::warning::sluiceway.yaml:5:12: policies[0]: the policies cannot be used"),
        "{}",
        ran.log
    );
    let rows = blocks(&bed.body(dashboard(&bed)));
    for (stack, reason) in [
        ("network", "a policy does not parse"),
        ("storage:prod", "a policy path does not exist"),
    ] {
        assert!(
            rows[stack].starts_with("- [ ] ")
                && rows[stack].contains(&format!(
                    ":warning: the policies did not run: {reason}. Nothing was checked, see the [summary]("
                )),
            "{}",
            rows[stack]
        );
    }
}
