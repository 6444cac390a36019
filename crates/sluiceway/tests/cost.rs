//! Cost lines, end to end (decision 0105): the real binary as an Actions job runs it,
//! against the emulator, with the real `tofu`, and with `infracost` answered by the
//! stand-in from the shared corpus's recordings of Infracost v0.10.45 (the Go module
//! proxy refuses Infracost's module, so no real one can be had here). The corpus lives
//! outside this repository; without it these tests say so and pass nothing off.

#![allow(
    clippy::print_stderr,
    reason = "a test without the corpus says so in the test log"
)]

mod support;

use support::job::*;
use support::{Bed, stand_in_as, tofu_dir};

/// The shared corpus's recording of `scenario`, or a notice that it is absent.
fn recorded(scenario: &str) -> Option<std::path::PathBuf> {
    let dir = support::workspace()
        .join("../shared/conformance/infracost/v0.10.45")
        .join(scenario);
    if !dir.is_dir() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
        );
        eprintln!("notice: {} is absent; this test was not run", dir.display());
    }
    dir.is_dir().then_some(dir)
}

/// A job whose `infracost` answers as the recorded `scenario` did.
fn job_with_infracost(scenario: &str, config: &str) -> Option<(Job, tempfile::TempDir)> {
    let recorded = recorded(scenario)?;
    let mut job = Job::new();
    let file = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "stacks:\n  - path: network\n    tool: opentofu\n",
        &format!("{config}stacks:\n  - path: network\n    tool: opentofu\n"),
    );
    std::fs::write(&file, text).unwrap();
    job.env
        .push(("SLUICEWAY_STAND_IN".into(), recorded.display().to_string()));
    Some((job, stand_in_as("infracost")))
}

fn path(infracost: &tempfile::TempDir) -> String {
    format!(
        "{}:{}:/usr/bin:/bin",
        infracost.path().display(),
        tofu_dir().display()
    )
}

#[test]
fn a_row_says_what_its_change_costs_and_a_failed_estimate_is_a_warning() {
    let bed = Bed::new();
    let Some((job, infracost)) = job_with_infracost("update", "cost:\n  enabled: true\n\n") else {
        return;
    };
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run_with(&bed, "push", &sha, &path(&infracost), &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let body = bed.body(dashboard(&bed));
    let rows = blocks(&body);
    for stack in ["network", "storage:dev", "storage:prod"] {
        let second = rows[stack].lines().nth(1).unwrap_or_default();
        assert_eq!(
            second, "  about **2.00 USD** more a month",
            "{}",
            rows[stack]
        );
    }
    let result = ran.result_text.clone();
    assert!(
        !result.contains("USD") && !ran.summary.contains("USD"),
        "the cost is the row's only: {result}"
    );
    let hash_before = rows["network"].split("hash=\"").nth(1).unwrap()[..16].to_owned();

    // The same commit scanned again, with an Infracost that refuses its key: no line, a
    // warning, and the same hash (the cost is never part of what a tick approves).
    let (job, infracost) = job_with_infracost("refused", "cost:\n  enabled: true\n\n").unwrap();
    let ran = job.run_with(&bed, "schedule", &sha, &path(&infracost), &[]);
    assert_eq!(ran.code, Some(0), "never red: {}", ran.log);
    assert!(
        ran.log
            .contains("::warning::Cost not estimated for network: infracost failed."),
        "{}",
        ran.log
    );
    assert!(
        ran.log.contains("Invalid API Key"),
        "Infracost's own words stay in the job log: {}",
        ran.log
    );
    let body = bed.body(dashboard(&bed));
    let network = &blocks(&body)["network"];
    assert!(
        !body.contains("a month") && !body.contains("Invalid API Key"),
        "{body}"
    );
    assert!(
        network.contains(&format!("hash=\"{hash_before}\"")),
        "{network}"
    );
}

#[test]
fn a_threshold_turns_a_costly_deploy_on_merge_back_into_a_tick() {
    for (threshold, deploys) in [("1", false), ("5", true)] {
        let bed = Bed::new();
        let Some((mut job, infracost)) = job_with_infracost(
            "update",
            &format!("cost:\n  enabled: true\n  threshold: {threshold}\n\n"),
        ) else {
            return;
        };
        let file = job.file("sluiceway.yaml");
        let text = std::fs::read_to_string(&file).unwrap().replace(
            "  - path: network\n    tool: opentofu\n",
            "  - path: network\n    tool: opentofu\n    deploy: on-merge\n",
        );
        std::fs::write(&file, text).unwrap();
        let sha = push(&bed, "the first commit", &["network/main.tf"]);
        job.payload = Some(pushed_by("alice"));
        let ran = job.run_with(&bed, "push", &sha, &path(&infracost), &[("mode", "")]);
        assert_eq!(ran.code, Some(0), "{}", ran.log);
        assert_eq!(
            job.file("network/terraform.tfstate").exists(),
            deploys,
            "threshold {threshold}: {}",
            ran.log
        );
        if !deploys {
            let row = blocks(&bed.body(dashboard(&bed)))["network"].clone();
            assert!(
                row.starts_with("- [ ] ")
                    && row.contains("this stack deploys on merge, and this change waits for a tick: it costs about 2.00 USD more a month, above the threshold of 1.00 USD."),
                "{row}"
            );
        }
    }
}

#[test]
fn a_threshold_without_an_estimate_is_refused_at_its_key() {
    let repo = tempfile::tempdir().unwrap();
    std::fs::create_dir(repo.path().join("network")).unwrap();
    std::fs::write(
        repo.path().join("network/main.tf"),
        "resource \"terraform_data\" \"a\" {}\n",
    )
    .unwrap();
    std::fs::write(
        repo.path().join("sluiceway.yaml"),
        "cost:\n  threshold: 10\nstacks:\n  - path: network\n    tool: opentofu\n    cost:\n      threshold: 5\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(["check", "--repo"])
        .arg(repo.path())
        .output()
        .unwrap();
    let said =
        String::from_utf8_lossy(&out.stderr).into_owned() + &String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{said}");
    for place in [
        "sluiceway.yaml:2:3: cost.threshold: a threshold needs `cost.enabled: true`",
        "sluiceway.yaml:7:7: stacks[0].cost.threshold: a threshold needs `cost.enabled: true`",
    ] {
        assert!(said.contains(place), "{place}\n{said}");
    }
}

#[test]
fn a_stacks_own_cost_settings_win_key_by_key() {
    let bed = Bed::new();
    let Some((mut job, infracost)) =
        job_with_infracost("update", "cost:\n  enabled: true\n  threshold: 5\n\n")
    else {
        return;
    };
    let file = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace(
            "  - path: network\n    tool: opentofu\n",
            "  - path: network\n    tool: opentofu\n    deploy: on-merge\n    cost:\n      threshold: 1\n",
        )
        .replace(
            "    name: dev\n    tool: opentofu\n",
            "    name: dev\n    tool: opentofu\n    cost:\n      enabled: false\n",
        );
    std::fs::write(&file, text).unwrap();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    job.payload = Some(pushed_by("alice"));
    let ran = job.run_with(&bed, "push", &sha, &path(&infracost), &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        !job.file("network/terraform.tfstate").exists(),
        "network's own threshold of 1.00, not the top-level 5.00, holds it: {}",
        ran.log
    );
    let rows = blocks(&bed.body(dashboard(&bed)));
    assert!(
        rows["network"].contains("above the threshold of 1.00 USD."),
        "{}",
        rows["network"]
    );
    assert!(
        !rows["storage:dev"].contains("a month"),
        "{}",
        rows["storage:dev"]
    );
    assert!(
        rows["storage:prod"].contains("  about **2.00 USD** more a month"),
        "{}",
        rows["storage:prod"]
    );
}
