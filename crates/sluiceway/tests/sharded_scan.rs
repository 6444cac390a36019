//! A sharded scan end to end (ADR 0037): the real `sluiceway` binary run as the jobs of
//! the workflow `init --sharded` writes would run it (a plan, one job per shard of the
//! matrix, a join over the downloaded artifacts), against the emulator held to GitHub's
//! descriptions, previewing a copy of `examples/quickstart` with the real `tofu`.

mod support;

use std::path::Path;
use std::time::Duration;

use sluiceway_github::GitHub;
use support::job::*;
use support::{Bed, tofu_dir};

/// A job's checkout of the quickstart, with the drift check on, so the plan decides
/// which stacks' drift each shard checks.
fn job() -> Job {
    let job = Job::new();
    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("drift:\n  enabled: true\n{text}")).unwrap();
    job
}

fn tofu_path() -> String {
    format!("{}:/usr/bin:/bin", tofu_dir().display())
}

/// The plan step's outputs: the matrix's shard indices and the plan.
fn plan(bed: &Bed, sha: &str, shards: &str) -> (Ran, String) {
    let job = job();
    let ran = job.run_with(
        bed,
        "schedule",
        sha,
        &tofu_path(),
        &[("mode", "plan"), ("shards", shards)],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let plan = ran.outputs["shard-plan"].clone();
    (ran, plan)
}

/// One shard's job: its own checkout and runner; answers the partial result's text.
fn shard(bed: &Bed, sha: &str, plan: &str, index: u32) -> (Ran, Option<String>) {
    let job = job();
    let index = index.to_string();
    let ran = job.run_with(
        bed,
        "schedule",
        sha,
        &tofu_path(),
        &[("mode", "shard"), ("shard", &index), ("shard-plan", plan)],
    );
    let partial = ran
        .outputs
        .get("partial-result")
        .map(|path| std::fs::read_to_string(path).unwrap());
    (ran, partial)
}

/// The join's job, with the partial results laid out as `actions/download-artifact`
/// lays out one folder per artifact.
fn join(bed: &Bed, sha: &str, plan: &str, partials: &[(u32, String)]) -> Ran {
    let job = job();
    for (index, text) in partials {
        let folder = job.file(&format!("partials/sluiceway-shard-{index}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(format!("sluiceway-shard-{index}.json")), text).unwrap();
    }
    job.run_with(
        bed,
        "schedule",
        sha,
        &tofu_path(),
        &[
            ("mode", "join"),
            ("shard-plan", plan),
            ("partial-results", "partials"),
        ],
    )
}

/// A whole sharded scan of three shards; answers the join.
fn sharded_scan(bed: &Bed, sha: &str) -> Ran {
    sharded_scan_with_files(bed, sha).0
}

/// A whole sharded scan of three shards; answers the join, the plan and the partial
/// results.
fn sharded_scan_with_files(bed: &Bed, sha: &str) -> (Ran, String, Vec<(u32, String)>) {
    let (ran, plan) = plan(bed, sha, "3");
    assert_eq!(ran.outputs["shards"], "[1,2,3]");
    let partials: Vec<(u32, String)> = (1..=3)
        .map(|k| {
            let (ran, partial) = shard(bed, sha, &plan, k);
            assert_eq!(ran.code, Some(0), "{}", ran.log);
            (k, partial.expect("a partial result"))
        })
        .collect();
    (join(bed, sha, &plan, &partials), plan, partials)
}

/// The body with what differs between two runs of one commit on two beds taken out: the
/// emulator's address in the preview links, and the scan's own times (the markers'
/// instants, the text's `YYYY-MM-DD HH:MM UTC`).
fn timeless(bed: &Bed, body: &str) -> String {
    let mut text = body.replace(&bed.emulator.base_url(), "<emulator>");
    for key in [" scan-at=\"", " full-scan-at=\""] {
        if let Some(start) = text.find(key).map(|i| i + key.len())
            && let Some(len) = text[start..].find('"')
        {
            text.replace_range(start..start + len, "<instant>");
        }
    }
    let mut at = 0;
    while let Some(found) = text[at..].find(" UTC") {
        let end = at + found;
        let start = end.saturating_sub("2026-12-05 08:00".len());
        text.replace_range(start..end, "<time>");
        at = start + "<time> UTC".len();
    }
    text
}

#[test]
fn a_sharded_scan_writes_the_dashboard_a_one_runner_scan_writes() {
    let one = Bed::new();
    let sha = push(&one, "the first commit", &["network/main.tf"]);
    let ran = job().run(&one, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let alone = one.body(dashboard(&one));

    let sharded = Bed::new();
    let sha_too = push(&sharded, "the first commit", &["network/main.tf"]);
    assert_eq!(sha, sha_too, "the two beds hold the same commit");
    let (ran, plan, partials) = sharded_scan_with_files(&sharded, &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let document: serde_json::Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(
        document["drift"],
        serde_json::json!(["network", "storage:dev", "storage:prod"]),
        "a scheduled full scan checks the drift of every stack"
    );
    let joined = sharded.body(dashboard(&sharded));
    // The variable `CANARY-SECRET` is sensitive: it never leaves the shard's adapter.
    for text in partials.iter().map(|(_, t)| t).chain([&plan, &joined]) {
        assert!(!text.contains(CANARY), "the canary left a shard: {text}");
    }
    let schema = serde_json::from_str(
        &std::fs::read_to_string(
            support::workspace().join("docs/formats/partial-result.schema.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for (_, text) in &partials {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        assert!(validator.is_valid(&value), "{text}");
    }
    assert_eq!(timeless(&sharded, &joined), timeless(&one, &alone));
    assert_eq!(ran.outputs["pending"], "3");
    assert_eq!(ran.outputs["dashboard-changed"], "true");
    assert_valid_result(&ran);
    assert_eq!(
        sharded.github.check_runs(&sha).unwrap().len(),
        one.github.check_runs(&sha).unwrap().len(),
        "a preview page per pending stack, as one runner writes them"
    );
}

#[test]
fn a_second_sharded_scan_with_nothing_new_keeps_every_row() {
    let bed = Bed::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(sharded_scan(&bed, &sha).code, Some(0));
    let before = bed.body(dashboard(&bed));
    let ran = sharded_scan(&bed, &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let after = bed.body(dashboard(&bed));
    assert_eq!(blocks(&before), blocks(&after));
    assert_eq!(blocks(&after).len(), 3);
}

#[test]
fn a_shard_killed_mid_way_leaves_its_rows_and_turns_the_join_red() {
    let bed = Bed::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job().run(&bed, "schedule", &sha).code, Some(0));
    let number = dashboard(&bed);
    let before = blocks(&bed.body(number));

    // The storage stacks change; the shard that holds storage:dev is killed.
    let changed = push(&bed, "bigger buckets", &["storage/main.tf"]);
    let (_, plan) = plan(&bed, &changed, "3");
    let document: serde_json::Value = serde_json::from_str(&plan).unwrap();
    let holding = |stack: &str| -> u32 {
        let shards = document["shards"].as_array().unwrap();
        let at = shards
            .iter()
            .position(|s| s.as_array().unwrap().iter().any(|id| id == stack))
            .unwrap();
        u32::try_from(at).unwrap() + 1
    };
    let lost = holding("storage:dev");
    let killed = job();
    // Its plan hangs, as a provider waiting on a cloud would, until the job is killed.
    let started = killed.runner.path().join("planning");
    let hanging = wrapped_tofu(&format!(
        "if [ \"$1\" = plan ]; then touch {}; sleep 20; fi",
        started.display()
    ));
    let mut step = killed
        .command(
            &bed,
            "schedule",
            &changed,
            &format!("{}:/usr/bin:/bin", hanging.path().display()),
            &[
                ("mode", "shard"),
                ("shard", &lost.to_string()),
                ("shard-plan", &plan),
            ],
        )
        .spawn()
        .unwrap();
    while !started.exists() {
        assert!(
            step.try_wait().unwrap().is_none(),
            "the shard ended before its plan"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    step.kill().unwrap();
    step.wait().unwrap();
    assert!(
        !killed
            .runner
            .path()
            .join(format!("sluiceway-shard-{lost}.json"))
            .exists(),
        "the killed shard wrote no partial result"
    );
    let partials: Vec<(u32, String)> = (1..=3)
        .filter(|k| *k != lost)
        .map(|k| (k, shard(&bed, &changed, &plan, k).1.unwrap()))
        .collect();
    let ran = join(&bed, &changed, &plan, &partials);
    assert_eq!(ran.code, Some(1), "the join is red: {}", ran.log);
    assert!(
        ran.log
            .contains(&format!("::error::Shard {lost} of 3 did not report")),
        "{}",
        ran.log
    );
    let body = bed.body(number);
    let after = blocks(&body);
    assert_eq!(
        after["storage:dev"], before["storage:dev"],
        "the lost shard's row is kept byte for byte"
    );
    assert_ne!(after["storage:prod"], before["storage:prod"], "{body}");
    assert!(
        body.contains(&format!(
            "Shard {lost} of 3 of this scan did not report, so the rows of its stacks are as the scan before left them · [run](https://github.com/octo/infra/actions/runs/4242)"
        )),
        "{body}"
    );
}

#[test]
fn a_stack_with_no_row_in_a_lost_shard_gets_a_failed_row() {
    let bed = Bed::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let (_, plan) = plan(&bed, &sha, "3");
    let partials: Vec<(u32, String)> = [1, 3]
        .into_iter()
        .map(|k| (k, shard(&bed, &sha, &plan, k).1.unwrap()))
        .collect();
    let ran = join(&bed, &sha, &plan, &partials);
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    let body = bed.body(dashboard(&bed));
    assert_eq!(blocks(&body).len(), 3, "every stack has its row: {body}");
    assert!(
        body.contains("the shard of the scan that held this stack did not report"),
        "{body}"
    );
}

/// Each refusal names what is wrong, exits 1 and writes nothing to the dashboard.
#[test]
fn partial_results_that_do_not_fit_the_plan_are_refused_and_nothing_is_written() {
    let bed = Bed::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job().run(&bed, "schedule", &sha).code, Some(0));
    let number = dashboard(&bed);
    let (_, plan) = plan(&bed, &sha, "3");
    let before = bed.body(number);
    let partials: Vec<(u32, String)> = (1..=3)
        .map(|k| (k, shard(&bed, &sha, &plan, k).1.unwrap()))
        .collect();
    let edited = |k: usize, edit: &dyn Fn(&mut serde_json::Value)| {
        let mut all = partials.clone();
        let mut value: serde_json::Value = serde_json::from_str(&all[k].1).unwrap();
        edit(&mut value);
        all[k].1 = value.to_string();
        all
    };
    let other_commit = edited(0, &|v| v["commit"] = "0".repeat(40).into());
    let other_version = edited(1, &|v| v["version"] = 2.into());
    let second = partials[1].1.clone();
    let twice = edited(0, &|v| {
        let theirs: serde_json::Value = serde_json::from_str(&second).unwrap();
        v["stacks"]
            .as_array_mut()
            .unwrap()
            .push(theirs["stacks"][0].clone());
    });
    let out_of_range = edited(2, &|v| v["shard"] = 4.into());
    let cases: [(&str, Vec<(u32, String)>); 4] = [
        (
            "a partial result of commit 0000000000000000000000000000000000000000, and this scan is of commit",
            other_commit,
        ),
        (
            "a partial result of version 2; this Sluiceway reads version 1",
            other_version,
        ),
        ("two partial results claim the stack", twice),
        ("shard 4 of 3, and the plan made 3 shards", out_of_range),
    ];
    for (says, partials) in cases {
        let ran = join(&bed, &sha, &plan, &partials);
        assert_eq!(ran.code, Some(1), "{}", ran.log);
        assert!(ran.log.contains(says), "{says}: {}", ran.log);
        assert!(
            ran.log.contains("Nothing was written to the dashboard."),
            "{}",
            ran.log
        );
        assert_eq!(bed.body(number), before, "{says}");
    }

    let outside = job();
    let ran = outside.run_with(
        &bed,
        "schedule",
        &sha,
        &tofu_path(),
        &[("mode", "shard"), ("shard", "4"), ("shard-plan", &plan)],
    );
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert!(
        ran.log
            .contains("::error::the shard input is 4, and the plan made shards 1 to 3."),
        "{}",
        ran.log
    );
    let stale = job().run_with(
        &bed,
        "schedule",
        &"1".repeat(40),
        &tofu_path(),
        &[("mode", "shard"), ("shard", "1"), ("shard-plan", &plan)],
    );
    assert_eq!(stale.code, Some(1));
    assert!(
        stale.log.contains("the shard plan is for commit"),
        "{}",
        stale.log
    );
    assert!(!Path::new(&outside.runner.path().join("sluiceway-shard-4.json")).exists());
}

#[test]
fn the_published_schemas_of_a_sharded_scan_are_the_ones_the_code_generates() {
    use sluiceway::modes::scan::sharded::{partial, split};
    for (file, generated, flag) in [
        ("partial-result", partial::schema(), "--partial-result"),
        ("shard-plan", split::plan_schema(), "--shard-plan"),
        ("timings", split::timings_schema(), "--timings"),
    ] {
        let path = support::workspace().join(format!("docs/formats/{file}.schema.json"));
        let published: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_default())
                .unwrap_or_default();
        assert_eq!(
            generated, published,
            "run `cargo run -p sluiceway -- schema {flag} > docs/formats/{file}.schema.json`"
        );
    }
}

#[test]
fn the_join_keeps_the_preview_times_and_the_next_plan_balances_by_them() {
    let bed = Bed::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    // Kept by actions/cache between runs: network took far longer than the others.
    let kept = r#"{"version":1,"seconds":{"network":100.0,"storage:dev":1.0,"storage:prod":1.0}}"#;
    let planning = job();
    std::fs::write(planning.file(".sluiceway-timings.json"), kept).unwrap();
    let planned = planning.run_with(
        &bed,
        "schedule",
        &sha,
        &tofu_path(),
        &[
            ("mode", "plan"),
            ("shards", "2"),
            ("timings-file", ".sluiceway-timings.json"),
        ],
    );
    assert_eq!(planned.code, Some(0), "{}", planned.log);
    let the_plan = planned.outputs["shard-plan"].clone();
    let document: serde_json::Value = serde_json::from_str(&the_plan).unwrap();
    assert_eq!(
        document["shards"],
        serde_json::json!([["network"], ["storage:dev", "storage:prod"]]),
        "the slow stack alone: {the_plan}"
    );
    assert!(
        planned
            .log
            .contains("Shard 1 of 2: 1 stack; 100.0 s by the last scan's times for 1 of them."),
        "{}",
        planned.log
    );
    // Without the times, the stacks are dealt out in turn.
    let (_, plain) = plan(&bed, &sha, "2");
    let plain: serde_json::Value = serde_json::from_str(&plain).unwrap();
    assert_eq!(
        plain["shards"],
        serde_json::json!([["network", "storage:prod"], ["storage:dev"]])
    );

    let partials: Vec<(u32, String)> = (1..=2)
        .map(|k| (k, shard(&bed, &sha, &the_plan, k).1.unwrap()))
        .collect();
    let joining = job();
    std::fs::write(joining.file(".sluiceway-timings.json"), kept).unwrap();
    for (index, text) in &partials {
        let folder = joining.file(&format!("partials/sluiceway-shard-{index}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(format!("sluiceway-shard-{index}.json")), text).unwrap();
    }
    let ran = joining.run_with(
        &bed,
        "schedule",
        &sha,
        &tofu_path(),
        &[
            ("mode", "join"),
            ("shard-plan", &the_plan),
            ("partial-results", "partials"),
            ("timings-file", ".sluiceway-timings.json"),
        ],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let timings: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(joining.file(".sluiceway-timings.json")).unwrap(),
    )
    .unwrap();
    for stack in ["network", "storage:dev", "storage:prod"] {
        let seconds = timings["seconds"][stack].as_f64().unwrap();
        assert!(
            seconds < 100.0,
            "{stack} took {seconds} s this time: {timings}"
        );
    }
}
