//! The scan end to end: the real `sluiceway` binary run the way a GitHub Actions job
//! runs it (the job's variables, the event payload, `INPUT_*`, `GITHUB_OUTPUT`,
//! `GITHUB_STEP_SUMMARY`, `RUNNER_TEMP`), against the emulator held to GitHub's
//! descriptions, previewing a copy of `examples/quickstart` with the real `tofu`.

mod support;

use std::process::Command;

use github_emulator::{Act, Fault, FaultKind};
use sluiceway_dashboard::reader;
use sluiceway_github::GitHub;
use support::job::*;
use support::{Bed, REPO, copy_dir, stand_in_as, tofu_dir, workspace};

#[test]
fn the_first_scan_creates_and_pins_the_dashboard_with_every_stack_previewed() {
    let bed = Bed::new();
    let job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log
            .contains("fell back to a full scan: there is no dashboard yet"),
        "{}",
        ran.log
    );
    assert_eq!(
        previewed(&ran.log),
        ["network", "storage:dev", "storage:prod"]
    );

    let number = dashboard(&bed);
    assert_eq!(bed.github.pinned_issues().unwrap(), [number]);
    let body = bed.body(number);
    let read = reader::read(&body);
    assert_eq!(read.root.unwrap().get("scan-sha"), Some(sha.as_str()));
    let states: Vec<(String, String)> = read
        .rows
        .iter()
        .map(|r| {
            (
                r.facts.stack.clone(),
                r.facts.state.unwrap().name().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [
            ("network".to_owned(), "pending".to_owned()),
            ("storage:dev".to_owned(), "pending".to_owned()),
            ("storage:prod".to_owned(), "pending".to_owned()),
        ]
    );
    assert!(
        body.contains("<code>terraform&#95;data</code> <b>subnets</b>"),
        "{body}"
    );

    assert_eq!(ran.outputs["pending"], "3");
    assert_eq!(ran.outputs["preview-failed"], "0");
    assert_eq!(ran.outputs["dashboard-changed"], "true");
    assert_eq!(ran.outputs["matrix"], "[]");
    assert!(ran.outputs["dashboard-url"].ends_with(&format!("/issues/{number}")));
    assert!(ran.outputs["result-file"].ends_with("sluiceway-scan-result.json"));
    assert!(ran.summary.contains("storage:prod"), "{}", ran.summary);
    assert_valid_result(&ran);
    let result = ran.result.as_ref().unwrap();
    assert_eq!(result["pending"], 3);
    assert_eq!(result["stacks"][0]["creates"], 2);

    let requests = ran
        .log
        .lines()
        .find_map(|l| l.strip_prefix("The scan made "))
        .expect("the requests line");
    assert!(
        requests.ends_with(" requests to the GitHub API."),
        "{requests}"
    );

    for (what, text) in [
        ("body", body.as_str()),
        ("summary", ran.summary.as_str()),
        ("result file", ran.result_text.as_str()),
    ] {
        assert!(!text.contains(CANARY), "the canary reached the {what}");
    }
}

#[test]
fn the_published_result_schema_is_the_one_the_code_generates() {
    let generated = sluiceway::modes::scan::result_file::schema();
    assert_eq!(
        generated,
        schema(),
        "run `cargo run -p sluiceway -- schema --result-file > docs/formats/scan-result.schema.json`"
    );
}

#[test]
fn a_second_scan_of_the_same_commit_keeps_every_row_byte_for_byte() {
    let bed = Bed::new();
    let job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let before = bed.body(dashboard(&bed));
    let pages_before = bed.github.check_runs(&sha).unwrap();
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log
            .contains("This is a full scan: the event is schedule")
    );
    let after = bed.body(dashboard(&bed));
    assert_eq!(blocks(&before), blocks(&after));
    assert_valid_result(&ran);
    assert_eq!(
        bed.github.check_runs(&sha).unwrap(),
        pages_before,
        "the same pages were written again, none added"
    );
}

/// An ordinary full scan with nothing new: the dashboard found once with its body, the
/// first write, the records, the workflow's runs, the late read, write and read-back,
/// and nothing per stack: the pending rows' attribution and preview pages are the ones
/// the live rows were drawn with.
#[test]
fn a_second_full_scan_with_nothing_new_makes_at_most_eight_requests() {
    let bed = Bed::new();
    let mut job = workflow_job(&bed);
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let body_before = bed.body(dashboard(&bed));
    let before = bed.emulator.traffic().len();
    job.env.push(("GITHUB_RUN_ID".into(), "4243".into()));
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(ran.outputs["pending"], "3");
    let traffic = bed.emulator.traffic()[before..].to_vec();
    assert!(
        traffic.len() <= 8,
        "{} requests: {traffic:#?}",
        traffic.len()
    );
    assert_eq!(
        blocks(&bed.body(dashboard(&bed))),
        blocks(&body_before),
        "every row is the block it was: attribution and preview links included"
    );
    assert!(
        ran.log.contains(&format!(
            "The scan made {} requests to the GitHub API.",
            traffic.len()
        )),
        "{}",
        ran.log
    );
}

/// A row whose inputs moved (a deploy of its stack ended since the live scan) is drawn
/// again, but its preview page, filed under the same diff hash on the same commit, is
/// linked as it is: listed, not written.
#[test]
fn a_page_whose_content_did_not_change_is_not_written_again() {
    let bed = Bed::new();
    let mut job = workflow_job(&bed);
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    let pages = bed.github.check_runs(&sha).unwrap();
    // The test bed's GitHub keeps a clock of its own, in the past; the deploy ends now,
    // after the scan, as it would on GitHub.
    bed.emulator
        .act(Act::SetClock {
            at: jiff::Timestamp::now(),
        })
        .unwrap();
    deployed(&bed, "storage:dev", &sha);
    let before = bed.emulator.traffic().len();
    job.env.push(("GITHUB_RUN_ID".into(), "4243".into()));
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let traffic = bed.emulator.traffic()[before..].to_vec();
    let count = |call: &str| traffic.iter().filter(|t| t.as_str() == call).count();
    assert_eq!(
        count("GET /repos/{owner}/{repo}/commits/{ref}/check-runs"),
        1,
        "{traffic:#?}"
    );
    assert_eq!(
        count("PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}"),
        0,
        "{traffic:#?}"
    );
    assert_eq!(bed.github.check_runs(&sha).unwrap(), pages);
    let row = &blocks(&bed.body(number))["storage:dev"];
    assert!(
        row.contains(&format!(
            "[preview]({})",
            pages
                .iter()
                .find(|p| p.name == "sluiceway / storage:dev")
                .unwrap()
                .html_url
        )),
        "{row}"
    );
    assert_eq!(
        count("graphql RecentCommits"),
        1,
        "the rows are drawn again, their attribution walked anew: {traffic:#?}"
    );
}

/// A stack pending again at the very hash its last deploy deployed says so: the tool
/// finds the change anew on every preview. Another hash, or a deploy that found nothing,
/// says nothing.
#[test]
fn a_row_pending_again_at_the_hash_it_just_deployed_says_so() {
    let bed = Bed::new();
    let mut job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    let hash = |stack: &str| {
        reader::read(&bed.body(number))
            .rows
            .into_iter()
            .find(|r| r.facts.stack == stack)
            .and_then(|r| r.facts.hash)
            .unwrap()
    };
    deployed_at_hash(&bed, "network", &sha, &hash("network"));
    deployed_at_hash(&bed, "storage:dev", &sha, "0123456789abcdef");
    job.env.push(("GITHUB_RUN_ID".into(), "4243".into()));
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let rows = blocks(&bed.body(number));
    assert!(
        rows["network"].contains(
            "this change went out with the last deploy and is waiting again at the same hash"
        ),
        "{}",
        rows["network"]
    );
    for other in ["storage:dev", "storage:prod"] {
        assert!(!rows[other].contains("waiting again"), "{}", rows[other]);
    }
}

/// Decision 0052 with the real OpenTofu: the value list's paths show `old → new` on the
/// rows, the summary and the preview pages; a value OpenTofu marks sensitive never
/// shows, even at a path the list names; what a row shows joins its hash; a tick
/// deploys exactly that, and a shown value that moved after the tick deploys nothing.
#[test]
fn the_value_list_shows_old_and_new_on_the_row_and_its_pages_and_never_a_secret() {
    let bed = Bed::new();
    let mut job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    let hashes = |body: &str| -> std::collections::BTreeMap<String, Option<String>> {
        reader::read(body)
            .rows
            .into_iter()
            .map(|r| (r.facts.stack.clone(), r.facts.hash.clone()))
            .collect()
    };
    let without = hashes(&bed.body(number));

    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "  title: Quickstart deploys\n",
        "  title: Quickstart deploys\n  showValues: [\"input.*\", input, \"input[*]\", input.secret]\n",
    );
    std::fs::write(&config, text).unwrap();
    job.env.push(("GITHUB_RUN_ID".into(), "4243".into()));
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let body = bed.body(number);
    let rows = blocks(&body);
    assert!(
        rows["storage:dev"].contains("<code>input.name</code> nothing → <samp>dev-assets</samp>"),
        "{}",
        rows["storage:dev"]
    );
    assert!(
        rows["network"].contains("<code>input.cidr</code> nothing → <samp>10.20.0.0/16</samp>"),
        "{}",
        rows["network"]
    );
    assert!(
        rows["storage:dev"]
            .contains("<code>input</code> nothing → <samp>expire after 30 days</samp>")
    );
    let with = hashes(&body);
    for stack in ["network", "storage:dev", "storage:prod"] {
        assert_ne!(
            with[stack], without[stack],
            "{stack}: the shown values join the hash"
        );
    }
    assert!(
        ran.summary.contains("<samp>dev-assets</samp>"),
        "{}",
        ran.summary
    );
    let world = bed.emulator.world();
    let page = world.repos[REPO]
        .check_runs
        .values()
        .find(|r| {
            r.name == "sluiceway / storage:dev"
                && r.external_id == with["storage:dev"].clone().unwrap()
        })
        .expect("the page of the rows' hash");
    assert!(
        page.text
            .as_deref()
            .unwrap_or_default()
            .contains("<samp>dev-assets</samp>")
    );
    let pages: String = world.repos[REPO]
        .check_runs
        .values()
        .map(|r| format!("{:?}{:?}{:?}", r.title, r.summary, r.text))
        .collect();
    drop(world);
    for (what, text) in [
        ("body", body.as_str()),
        ("summary", ran.summary.as_str()),
        ("result file", ran.result_text.as_str()),
        ("pages", pages.as_str()),
    ] {
        assert!(
            !text.contains(CANARY),
            "the sensitive value reached the {what}"
        );
    }

    // A tick deploys exactly what the row shows.
    tick(&bed, number, "alice", "storage:dev");
    job.payload = Some(edit_event(&bed, number));
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    job.env.push(("GITHUB_RUN_ID".into(), "4244".into()));
    let deployed = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    assert_eq!(deployed.outputs["outcome"], "deployed", "{}", deployed.log);

    // A shown value that moves after the tick moves the hash: nothing deploys.
    tick(&bed, number, "alice", "storage:prod");
    std::fs::write(job.file("storage/prod.tfvars"), "env = \"production\"\n").unwrap();
    job.payload = Some(edit_event(&bed, number));
    job.env.push(("GITHUB_RUN_ID".into(), "4245".into()));
    let moved = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    assert_eq!(moved.outputs["outcome"], "refused", "{}", moved.log);
    assert!(
        moved
            .log
            .contains("storage:prod: nothing was deployed: the change moved since the tick."),
        "{}",
        moved.log
    );
}

#[test]
fn a_push_that_touches_one_stack_previews_only_it_and_carries_every_other_row() {
    let bed = Bed::new();
    let job = Job::new();
    let first = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &first).code, Some(0));
    let number = dashboard(&bed);
    let before = blocks(&bed.body(number));

    let main = job.file("storage/main.tf");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, text.replace("30 days", "90 days")).unwrap();
    let second = push(&bed, "keep assets longer", &["storage/main.tf"]);
    let ran = job.run(&bed, "push", &second);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log
            .contains("This is a narrowed scan: 2 of 3 stacks claim the 1 changed files."),
        "{}",
        ran.log
    );
    assert_eq!(previewed(&ran.log), ["storage:dev", "storage:prod"]);
    let after = blocks(&bed.body(number));
    assert_eq!(after["network"], before["network"], "carried byte for byte");
    assert_eq!(after.len(), 3);
    assert_eq!(ran.result.as_ref().unwrap()["full"], false);
    assert_valid_result(&ran);
}

#[test]
fn a_push_with_an_unclaimed_file_falls_back_to_a_full_scan_and_says_why() {
    let bed = Bed::new();
    let job = Job::new();
    let first = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &first).code, Some(0));
    let second = push(
        &bed,
        "tooling",
        &["package.json", "tools/lint.sh", "docs/a.md"],
    );
    let ran = job.run(&bed, "push", &second);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.contains(
            "This is a full scan. A push gives a narrowed scan, and this one fell back to a full scan: no stack claims package.json and 1 more changed file."
        ),
        "{}",
        ran.log
    );
    assert!(
        ran.log
            .contains("::group::Changed files no stack claims\npackage.json\ntools/lint.sh\n")
    );
    assert_eq!(previewed(&ran.log).len(), 3);
}

#[test]
fn files_listed_as_unrelated_claim_nothing_and_leave_a_push_narrowed() {
    for unrelated in [false, true] {
        let bed = Bed::new();
        let job = Job::new();
        if unrelated {
            let config = job.file("sluiceway.yaml");
            let text = std::fs::read_to_string(&config).unwrap();
            std::fs::write(
                &config,
                format!("scan:\n  unrelated: [\"tools/**\"]\n{text}"),
            )
            .unwrap();
        }
        let first = push(&bed, "the first commit", &["network/main.tf"]);
        assert_eq!(job.run(&bed, "push", &first).code, Some(0));
        let main = job.file("storage/main.tf");
        let text = std::fs::read_to_string(&main).unwrap();
        std::fs::write(&main, text.replace("30 days", "90 days")).unwrap();
        let second = push(
            &bed,
            "keep assets longer, and lint",
            &["storage/main.tf", "tools/lint.sh"],
        );
        let ran = job.run(&bed, "push", &second);
        assert_eq!(ran.code, Some(0), "{}", ran.log);
        if unrelated {
            assert!(
                ran.log
                    .contains("This is a narrowed scan: 2 of 3 stacks claim the 2 changed files."),
                "{}",
                ran.log
            );
            assert_eq!(previewed(&ran.log), ["storage:dev", "storage:prod"]);
            assert!(
                !ran.log.contains("Changed files no stack claims"),
                "{}",
                ran.log
            );
        } else {
            assert!(
                ran.log
                    .contains("fell back to a full scan: no stack claims tools/lint.sh."),
                "{}",
                ran.log
            );
            assert_eq!(previewed(&ran.log).len(), 3);
        }
    }
}

#[test]
fn github_failing_at_the_write_leaves_the_previous_body_and_the_job_red_naming_the_call() {
    let bed = Bed::new();
    let job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    let before = bed.body(number);
    let main = job.file("network/main.tf");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, text.replace("10.20.0.0/16", "10.30.0.0/16")).unwrap();
    // The first write (a scan is running) and both tries of the late write fail.
    bed.emulator.arm(Fault {
        on: PATCH_ISSUE.into(),
        times: 10,
        kind: FaultKind::Status {
            status: 502,
            message: "Bad Gateway".into(),
        },
    });
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert!(
        ran.log.contains(
            "::error::The dashboard could not be written: could not write the body of issue #"
        ),
        "{}",
        ran.log
    );
    assert_eq!(bed.body(number), before);
    assert_eq!(ran.outputs["dashboard-changed"], "false");
}

#[test]
fn an_invalid_configuration_stops_before_any_tool_and_says_so_under_the_scan_line() {
    let bed = Bed::new();
    let job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    let before = blocks(&bed.body(number));
    std::fs::write(job.file("sluiceway.yaml"), "dashboard:\n  pin: maybe\n").unwrap();
    // No tool on PATH: a tool run would fail loudly.
    let ran = job.run_with(&bed, "schedule", &sha, "/usr/bin:/bin", &[]);
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert!(
        ran.log
            .contains("::error file=sluiceway.yaml,line=2,col=3::"),
        "{}",
        ran.log
    );
    assert!(ran.log.contains("The scan stopped before any tool ran"));
    assert!(previewed(&ran.log).is_empty());
    let body = bed.body(number);
    assert!(
        body.contains("The last run found a problem in sluiceway.yaml, so nothing was previewed · [run](https://github.com/octo/infra/actions/runs/4242)"),
        "the problem line: {body}"
    );
    assert_eq!(blocks(&body), before, "every row kept");
    assert_eq!(ran.outputs["pending"], "0");
}

#[test]
fn a_missing_tool_fails_its_stacks_with_one_error_and_the_job_is_red() {
    let bed = Bed::new();
    let job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run_with(&bed, "push", &sha, "/usr/bin:/bin", &[]);
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert_eq!(
        ran.log.matches("::error::tofu could not be run").count(),
        1,
        "{}",
        ran.log
    );
    let body = bed.body(dashboard(&bed));
    assert_eq!(
        body.matches("tofu is missing on the runner or older than Sluiceway needs")
            .count(),
        3,
        "{body}"
    );
    assert_eq!(ran.outputs["preview-failed"], "3");
    assert_valid_result(&ran);
}

#[test]
fn a_wrong_input_fails_the_step_naming_it() {
    let bed = Bed::new();
    let job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let ran = job.run_with(&bed, "push", &sha, &path, &[("preview-timeout", "soon")]);
    assert_eq!(ran.code, Some(1));
    assert!(
        ran.log.contains(
            "::error::the input `preview-timeout` is \"soon\"; it takes a whole number of minutes"
        ),
        "{}",
        ran.log
    );
    // A notification channel that could leak a message, or a topic that is no number:
    // the step stops before anything runs or is sent, naming the input, never the value.
    for (inputs, named) in [
        (
            vec![("webhook-url", "http://hooks.example/secret-path")],
            "the input `webhook-url` is \"(hidden)\"; it takes an https:// address, or http:// to a loopback address",
        ),
        (
            vec![
                ("telegram-bot-token", "42:secret-token"),
                ("telegram-chat-id", "-100"),
                ("telegram-thread-id", "general"),
            ],
            "the input `telegram-thread-id` is \"general\"; it takes a forum topic's whole-number id",
        ),
    ] {
        let ran = job.run_with(&bed, "push", &sha, &path, &inputs);
        assert_eq!(ran.code, Some(1), "{}", ran.log);
        assert!(ran.log.contains(named), "{}", ran.log);
        assert!(
            !ran.log.contains("secret-path") && !ran.log.contains("Using opentofu"),
            "{}",
            ran.log
        );
    }
    assert!(
        bed.github
            .open_issues_labelled("sluiceway")
            .unwrap()
            .is_empty()
    );
}

#[test]
fn the_concurrency_input_sets_how_many_previews_run_at_once() {
    // Each plan notes how many plans are running as it starts, and takes a while.
    let marks = tempfile::tempdir().unwrap();
    let running = marks.path().join("running");
    std::fs::create_dir(&running).unwrap();
    let seen = marks.path().join("seen");
    let bin = wrapped_tofu(&format!(
        "if [ \"$1\" = plan ]; then\n  touch {running}/$$\n  ls {running} | wc -l >> {seen}\n  sleep 0.5\n  {real} \"$@\"; rc=$?\n  rm {running}/$$\n  exit $rc\nfi",
        running = running.display(),
        seen = seen.display(),
        real = tofu_dir().join("tofu").display()
    ));
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let most_at_once = |concurrency: &str| -> (usize, String) {
        let bed = Bed::new();
        let job = Job::new();
        let sha = push(&bed, "the first commit", &["network/main.tf"]);
        let _ = std::fs::remove_file(&seen);
        let ran = job.run_with(&bed, "push", &sha, &path, &[("concurrency", concurrency)]);
        assert_eq!(ran.code, Some(0), "{}", ran.log);
        assert_eq!(ran.outputs["pending"], "3", "{}", ran.log);
        let most = std::fs::read_to_string(&seen)
            .unwrap()
            .lines()
            .map(|n| n.trim().parse::<usize>().unwrap())
            .max()
            .unwrap();
        (most, ran.log)
    };
    let (most, log) = most_at_once("1");
    assert_eq!(most, 1, "{log}");
    assert!(
        log.contains("The pool is 1 preview at once, from the concurrency input."),
        "{log}"
    );
    let (most, log) = most_at_once("3");
    assert!(most >= 2, "previews overlap: {most} at most, {log}");
    assert!(
        log.contains("The pool is 3 previews at once, from the concurrency input."),
        "{log}"
    );
}

#[test]
fn a_preview_that_fails_twice_turns_the_job_red_only_under_strict_and_links_the_job_given() {
    // The real tofu behind a stand-in whose every plan of the dev workspace fails.
    let bin = wrapped_tofu(
        "if [ \"$1\" = plan ] && [ \"$TF_WORKSPACE\" = dev ]; then\n  echo 'Error: the registry answered 502' >&2\n  exit 1\nfi",
    );
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let attempt = format!("https://github.com/{REPO}/actions/runs/4242/attempts/1");
    let the_job = format!("https://github.com/{REPO}/actions/runs/4242/job/777");
    for inputs in [vec![], vec![("strict", "true"), ("job-id", "777")]] {
        let bed = Bed::new();
        let job = Job::new();
        let sha = push(&bed, "the first commit", &["network/main.tf"]);
        let ran = job.run_with(&bed, "push", &sha, &path, &inputs);
        let row = blocks(&bed.body(dashboard(&bed)))["storage:dev"].clone();
        assert!(row.contains("preview failed"), "{row}");
        if inputs.is_empty() {
            assert_eq!(
                ran.code,
                Some(0),
                "a failed preview is the row's: {}",
                ran.log
            );
            assert!(
                !ran.log.contains("::error::A preview failed twice"),
                "{}",
                ran.log
            );
            assert!(row.contains(&attempt) && !row.contains("/job/"), "{row}");
        } else {
            assert_eq!(ran.code, Some(1), "strict makes it the job's: {}", ran.log);
            assert!(
                ran.log.contains(
                    "::error::A preview failed twice, and the strict input makes that red."
                ),
                "{}",
                ran.log
            );
            assert!(row.contains(&the_job), "the job's log, by its id: {row}");
        }
        assert_eq!(
            ran.outputs["pending"], "2",
            "the rows that previewed: {}",
            ran.log
        );
    }
}

#[test]
fn a_preview_that_fails_is_tried_once_more_after_a_pause_and_passes() {
    let bed = Bed::new();
    let job = Job::new();
    // The real tofu behind a stand-in that fails the first plan of the dev workspace,
    // as a registry's 502 would.
    let marks = tempfile::tempdir().unwrap();
    let mark = marks.path().join("failed-once");
    let bin = wrapped_tofu(&format!(
        "if [ \"$1\" = plan ] && [ \"$TF_WORKSPACE\" = dev ] && [ ! -e {mark} ]; then\n  touch {mark}\n  echo 'Error: the registry answered 502' >&2\n  exit 1\nfi",
        mark = mark.display()
    ));
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let ran = job.run_with(&bed, "push", &sha, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.contains(
            "1 preview did not work and is tried once more after a pause of 10 s: storage:dev."
        ),
        "{}",
        ran.log
    );
    assert!(
        ran.log.contains("Error: the registry answered 502"),
        "the tool's words stay in the log"
    );
    let body = bed.body(dashboard(&bed));
    // The tool's own words, not the number in them: a hash or a time may hold `502`.
    assert!(
        !body.contains("registry answered"),
        "the tool's words never reach the dashboard"
    );
    assert_eq!(ran.outputs["pending"], "3", "{}", ran.log);
    let stacks = ran.result.as_ref().unwrap()["stacks"]
        .as_array()
        .unwrap()
        .clone();
    let tries: Vec<(String, u64)> = stacks
        .iter()
        .map(|s| {
            (
                s["stack"].as_str().unwrap().to_owned(),
                s["tries"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        tries,
        [
            ("network".to_owned(), 1),
            ("storage:dev".to_owned(), 2),
            ("storage:prod".to_owned(), 1)
        ]
    );
    assert_valid_result(&ran);
}

/// A finished deploy of `stack` at `sha`, as apply leaves it.
#[test]
fn a_pending_row_names_the_push_that_reached_it_since_its_last_deploy() {
    let bed = Bed::new();
    let job = Job::new();
    let first = push(&bed, "the first commit", &["network/main.tf"]);
    deployed(&bed, "storage:dev", &first);
    let second = push(&bed, "keep assets longer", &["storage/main.tf"]);
    let third = push(&bed, "tooling", &["storage/dev.tfvars", "Makefile"]);
    let ran = job.run(&bed, "schedule", &third);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let rows = blocks(&bed.body(dashboard(&bed)));
    let short = |sha: &str| sha[..7].to_owned();
    assert!(
        rows["storage:dev"].contains(&format!(
            "from [{}](https://github.com/octo/infra/commit/{third}) by alice, [{}](https://github.com/octo/infra/commit/{second}) by alice · [compare](https://github.com/octo/infra/compare/{}...{})",
            short(&third),
            short(&second),
            &first[..12],
            &third[..12]
        )),
        "{}",
        rows["storage:dev"]
    );
    assert!(
        rows["storage:prod"].contains("not deployed from this dashboard yet"),
        "{}",
        rows["storage:prod"]
    );
}

/// Decisions 0086 and 0120: a scan lists the workflow's runs once and says, under the
/// scan line, which has waited ten minutes or more for a runner and how many failed
/// since the scan before; the first scan counts nothing, and the next scan redraws both.
#[test]
fn the_scan_says_which_run_waits_for_a_runner_and_how_many_failed_since_the_scan_before() {
    let bed = Bed::new();
    let job = workflow_job(&bed);
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let run = |event: &str, actor: &str, at: jiff::Timestamp| {
        bed.emulator.act(Act::SetClock { at }).unwrap();
        bed.emulator
            .act(Act::StartRun {
                repo: REPO.into(),
                workflow: "deploy.yml".into(),
                event: event.into(),
                actor: actor.into(),
            })
            .unwrap()
            .as_u64()
            .unwrap()
    };
    let end = |run: u64, conclusion: &str| {
        bed.emulator
            .act(Act::EndRun {
                repo: REPO.into(),
                run,
                conclusion: conclusion.into(),
            })
            .unwrap();
    };
    let ago = |minutes: i64| jiff::Timestamp::now() - jiff::SignedDuration::from_mins(minutes);
    // Before the first scan: a failure it must not count.
    end(run("push", "alice", ago(5)), "failure");
    let first = job.run(&bed, "push", &sha);
    assert_eq!(first.code, Some(0), "{}", first.log);
    let number = dashboard(&bed);
    let root = |body: &str| sluiceway_dashboard::view::Root::read(&reader::read(body)).unwrap();
    assert_eq!(
        root(&bed.body(number)).failed_runs,
        None,
        "the first scan counts nothing"
    );

    // Since then: one run failed, one timed out, one was cancelled (not a failure); one
    // has been queued a while, another only just.
    let scanned_at = root(&bed.body(number)).scan_at;
    let after = |seconds: i64| scanned_at + jiff::SignedDuration::from_secs(seconds);
    let failed = run("schedule", "github-actions[bot]", after(1));
    end(failed, "failure");
    let timed_out = run("push", "alice", after(2));
    end(timed_out, "timed_out");
    end(run("push", "alice", after(3)), "cancelled");
    let waiting = run("push", "alice", ago(32));
    run("push", "alice", ago(2));
    // The second scan starts after all of them.
    while jiff::Timestamp::now() <= after(5) {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let body = bed.body(number);
    let read = root(&body);
    let waits = read.waiting.expect("a run waits");
    assert_eq!((waits.run, waits.more), (waiting, 0));
    let failures = read.failed_runs.expect("runs failed");
    assert_eq!((failures.count, failures.newest), (2, timed_out));
    let lines: Vec<&str> = body
        .lines()
        .filter(|l| l.contains("queued for a runner") || l.contains("failed since the scan before"))
        .collect();
    assert_eq!(lines.len(), 2, "{body}");
    assert!(lines[0].contains(&format!("/actions/runs/{waiting}) of this dashboard's workflow has been queued for a runner for 32 minutes")), "{}", lines[0]);
    assert!(
        lines[1].starts_with(
            "2 runs of this dashboard's workflow failed since the scan before this one"
        ),
        "{}",
        lines[1]
    );

    // The run that waited starts: the next scan says nothing of it.
    end(waiting, "success");
    let again = job.run(&bed, "schedule", &sha);
    assert_eq!(again.code, Some(0), "{}", again.log);
    let read = root(&bed.body(number));
    assert_eq!((read.waiting, read.failed_runs), (None, None));
}

/// A job of the workflow `deploy.yml`, whose issue-edit runs pick ticks up.
fn workflow_job(bed: &Bed) -> Job {
    bed.emulator
        .act(Act::AddWorkflow {
            repo: REPO.into(),
            file: "deploy.yml".into(),
        })
        .unwrap();
    let mut job = Job::new();
    job.env.push((
        "GITHUB_WORKFLOW_REF".into(),
        format!("{REPO}/.github/workflows/deploy.yml@refs/heads/main"),
    ));
    job
}

#[test]
fn a_tick_no_run_will_pick_up_is_swept_with_a_note() {
    let bed = Bed::new();
    let job = workflow_job(&bed);
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    tick(&bed, number, "alice", "storage:dev");
    assert!(
        reader::read(&bed.body(number))
            .rows
            .iter()
            .any(|r| r.ticked)
    );
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let body = bed.body(number);
    let read = reader::read(&body);
    assert!(read.rows.iter().all(|r| !r.ticked), "{body}");
    assert!(
        blocks(&body)["storage:dev"]
            .contains("a tick on this row was not picked up. Tick again to deploy."),
        "{body}"
    );
}

#[test]
fn a_tick_on_its_way_to_a_resolve_run_stays_when_the_hash_is_the_same() {
    let bed = Bed::new();
    let job = workflow_job(&bed);
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    tick(&bed, number, "alice", "storage:dev");
    let ticked = blocks(&bed.body(number))["storage:dev"].clone();
    bed.emulator
        .act(Act::StartRun {
            repo: REPO.into(),
            workflow: "deploy.yml".into(),
            event: "issues".into(),
            actor: "alice".into(),
        })
        .unwrap();
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let after = blocks(&bed.body(number));
    assert_eq!(
        after["storage:dev"], ticked,
        "the ticked block is carried as it is"
    );
}

/// A `tofu` that does `act` (shell) for the dev workspace's `step` (`plan`, `show`) and
/// is the real tofu otherwise: a tool that misbehaves for one stack.
/// Scans with the misbehaving tool and checks what every fault must leave: a row with
/// the fixed reason for the dev stack, the other stacks previewed, no private file left
/// in RUNNER_TEMP.
fn scan_with_a_fault(step: &str, act: &str, inputs: &[(&str, &str)], reason: &str) -> Ran {
    let bed = Bed::new();
    let job = Job::new();
    let bin = misbehaving(step, act);
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let ran = job.run_with(&bed, "push", &sha, &path, inputs);
    assert_eq!(
        ran.code,
        Some(0),
        "one failed preview of three is not red: {}",
        ran.log
    );
    let rows = blocks(&bed.body(dashboard(&bed)));
    assert!(
        rows["storage:dev"].contains(&format!("preview failed: {reason}")),
        "{}",
        rows["storage:dev"]
    );
    assert!(rows["storage:prod"].contains("state=\"pending\""));
    assert!(rows["network"].contains("state=\"pending\""));
    let left: Vec<String> = std::fs::read_dir(job.runner.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with("sluiceway-plan-") || name.starts_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "private files left behind: {left:?}");
    assert_eq!(ran.outputs["preview-failed"], "1");
    assert_valid_result(&ran);
    ran
}

#[test]
fn a_tool_that_prints_garbage_gets_a_fixed_reason_and_is_not_retried() {
    let ran = scan_with_a_fault(
        "show",
        "echo '{\"format_version\": [garbage'; exit 0",
        &[],
        "the tool's output could not be read",
    );
    assert!(!ran.log.contains("tried once more"), "{}", ran.log);
}

#[test]
fn a_tool_that_writes_200_mib_gets_a_fixed_reason() {
    scan_with_a_fault(
        "plan",
        "head -c 209715200 /dev/zero; exit 0",
        &[],
        "the tool printed more than the 128 MiB Sluiceway holds",
    );
}

#[test]
fn a_preview_that_hangs_times_out_and_leaves_no_process_behind() {
    let ran = scan_with_a_fault(
        "plan",
        "exec sleep 7391",
        &[("preview-timeout", "1")],
        "the preview timed out after 1 minute",
    );
    assert!(
        !ran.log.contains("tried once more"),
        "our own time limit is not retried"
    );
    let left = Command::new("pgrep")
        .args(["-f", "sleep 7391"])
        .output()
        .unwrap();
    assert!(left.stdout.is_empty(), "the hung tool was left running");
}

#[test]
fn a_held_state_lock_shows_the_stack_busy_and_is_not_a_failure() {
    let bed = Bed::new();
    let job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    // Another update of storage:dev: its state exists, and a process holds its lock.
    let tofu = tofu_dir().join("tofu");
    let applied = Command::new(&tofu)
        .args([
            "apply",
            "-auto-approve",
            "-input=false",
            "-var-file=dev.tfvars",
        ])
        .current_dir(job.file("storage"))
        .env("TF_WORKSPACE", "dev")
        .env("HOME", job.runner.path())
        .output()
        .unwrap();
    assert!(
        applied.status.success(),
        "{}",
        String::from_utf8_lossy(&applied.stderr)
    );
    let mut holder = Command::new("python3")
        .args([
            "-c",
            "import fcntl, sys, time\nf = open(sys.argv[1], 'r+')\nfcntl.lockf(f, fcntl.LOCK_EX)\nprint('held', flush=True)\ntime.sleep(120)",
        ])
        .arg(job.file("storage/terraform.tfstate.d/dev/terraform.tfstate"))
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(holder.stdout.as_mut().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "held");
    let ran = job.run(&bed, "schedule", &sha);
    holder.kill().unwrap();
    holder.wait().unwrap();
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let rows = blocks(&bed.body(dashboard(&bed)));
    assert!(
        rows["storage:dev"].contains("busy=\"true\""),
        "{}",
        rows["storage:dev"]
    );
    assert!(
        !ran.log
            .contains("::warning::The preview of storage:dev failed twice")
    );
    assert_eq!(ran.outputs["preview-failed"], "0", "busy is not a failure");
    let result = ran.result.as_ref().unwrap();
    assert_eq!(result["busy"], 1);
    assert_eq!(result["stacks"][1]["state"], "busy");
}

#[test]
fn a_persons_edit_during_the_write_is_written_back() {
    let bed = Bed::new();
    let job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    let before = bed.body(number);
    let edited = before.replacen("- [ ] **storage:prod**", "- [x] **storage:prod**", 1);
    assert_ne!(edited, before);
    // alice's tick lands between the scan's late read and its write.
    bed.emulator.arm(Fault {
        on: PATCH_ISSUE.into(),
        times: 2,
        kind: FaultKind::EditFirst {
            repo: REPO.into(),
            issue: number,
            editor: "alice".into(),
            body: edited,
        },
    });
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log
            .contains("between the read and the write, and the write went over it"),
        "{}",
        ran.log
    );
    let read = reader::read(&bed.body(number));
    let ticked: Vec<&str> = read
        .rows
        .iter()
        .filter(|r| r.ticked)
        .map(|r| r.facts.stack.as_str())
        .collect();
    assert_eq!(ticked, ["storage:prod"], "alice's tick is kept");
}

#[test]
fn the_first_write_says_a_scan_is_running_before_any_preview() {
    let bed = Bed::new();
    let job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let history = bed.github.read_body(number, None).unwrap();
    let bodies: Vec<&str> = history
        .edits
        .iter()
        .filter_map(|e| e.body.as_deref())
        .collect();
    assert!(
        bodies[1].contains("A scan is running since"),
        "the entry before the last write says a scan is running: {}",
        bodies[1]
    );
    assert!(
        !bodies[0].contains("A scan is running since"),
        "the last write removes it"
    );
}

/// A job on a copy of examples/tofu-lab (the project our OpenTofu recordings are made
/// from) with lab:dev and lab:prod, its `tofu` answering from these recordings.
fn replayed(scenarios: &[&str]) -> (Job, tempfile::TempDir) {
    let mut job = Job::new();
    job.checkout = tempfile::tempdir().unwrap();
    copy_dir(&workspace().join("examples/tofu-lab"), job.checkout.path());
    std::fs::remove_dir_all(job.file("dns")).unwrap();
    let config = std::fs::read_to_string(job.file("sluiceway.yaml")).unwrap();
    let config = config.split("  - path: dns").next().unwrap().to_owned();
    std::fs::write(job.file("sluiceway.yaml"), config).unwrap();
    let recordings = workspace().join("fixtures/opentofu/v1.6.2");
    let dirs: Vec<String> = scenarios
        .iter()
        .map(|s| recordings.join(s).display().to_string())
        .collect();
    job.env.push(("SLUICEWAY_STAND_IN".into(), dirs.join(":")));
    (job, stand_in_as("tofu"))
}

#[test]
fn a_scan_answered_by_recordings_shows_what_the_real_tool_said() {
    let bed = Bed::new();
    let (job, bin) = replayed(&["version", "new-stack", "other-workspace"]);
    let sha = push(&bed, "the first commit", &["lab/main.tf"]);
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let ran = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(ran.log.contains("Using opentofu v1.6.2."), "{}", ran.log);
    let body = bed.body(dashboard(&bed));
    let read = reader::read(&body);
    let facts: Vec<(String, Option<usize>)> = read
        .rows
        .iter()
        .map(|r| (r.facts.stack.clone(), Some(r.facts.creates)))
        .collect();
    assert_eq!(
        facts,
        [
            ("lab:dev".to_owned(), Some(4)),
            ("lab:prod".to_owned(), Some(4))
        ],
        "{body}"
    );
    assert!(
        !body.contains("CANARY"),
        "no value of the recordings reaches the body"
    );
    assert_valid_result(&ran);
}

#[test]
fn a_recorded_held_lock_is_busy_and_a_recorded_program_error_is_a_failure() {
    let bed = Bed::new();
    // `state-locked` answers the dev plan before `new-stack` would; `new-stack` still
    // holds the init.
    let (job, bin) = replayed(&["version", "state-locked", "new-stack", "other-workspace"]);
    let sha = push(&bed, "the first commit", &["lab/main.tf"]);
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let ran = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let rows = blocks(&bed.body(dashboard(&bed)));
    assert!(
        rows["lab:dev"].contains("busy=\"true\""),
        "{}",
        rows["lab:dev"]
    );
    assert!(rows["lab:prod"].contains("state=\"pending\""));

    let (job, bin) = replayed(&["version", "program-error", "new-stack", "other-workspace"]);
    let path = format!("{}:/usr/bin:/bin", bin.path().display());
    let ran = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(
        ran.code,
        Some(0),
        "one failure of two is not red: {}",
        ran.log
    );
    let rows = blocks(&bed.body(dashboard(&bed)));
    assert!(
        rows["lab:dev"].contains("preview failed: the tool exited with an error (exit code 1)"),
        "{}",
        rows["lab:dev"]
    );
}

#[test]
fn an_env_file_reaches_the_tool_masked_first() {
    let bed = Bed::new();
    let job = Job::new();
    std::fs::write(
        job.file("tools.env"),
        "# for the tool\nTF_VAR_cidr=10.99.0.0/16\nSHORT=ab\n",
    )
    .unwrap();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let ran = job.run_with(&bed, "push", &sha, &path, &[("env-file", "tools.env")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.starts_with("::add-mask::10.99.0.0/16\n"),
        "the mask comes before anything else: {}",
        ran.log
    );
    assert!(!ran.log.contains("::add-mask::ab"), "too short to mask");
    assert!(
        ran.log
            .contains("The tool gets 2 variables from tools.env: TF_VAR_cidr, SHORT.")
    );

    std::fs::write(
        job.file("tools.env"),
        "TF_VAR_cidr=10.99.0.0/16\nnot a line\n",
    )
    .unwrap();
    let ran = job.run_with(&bed, "push", &sha, &path, &[("env-file", "tools.env")]);
    assert_eq!(ran.code, Some(1));
    assert!(
        ran.log.contains("::error::The env-file input's file is not NAME=value lines: tools.env:2: expected NAME=value"),
        "{}",
        ran.log
    );
    assert!(previewed(&ran.log).is_empty());

    // Steps that run no tool warn and leave the file unread, as the reference's do.
    for mode in ["resolve", "settle"] {
        let ran = job.run_with(
            &bed,
            "workflow_dispatch",
            &sha,
            &path,
            &[("mode", mode), ("env-file", "tools.env")],
        );
        assert_eq!(ran.code, Some(0), "{mode}: {}", ran.log);
        assert!(
            ran.log.contains("::warning::The env-file input is for steps that run a tool, and this step runs none, so the file was not read.")
                && !ran.log.contains("::error::")
                && !ran.log.contains("::add-mask::10.99.0.0/16"),
            "{mode}: {}",
            ran.log
        );
    }
}

#[test]
fn a_job_whose_earlier_step_failed_only_says_so_on_the_dashboard() {
    let bed = Bed::new();
    let job = Job::new();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    let scanned = bed.body(number);
    let before = blocks(&scanned);
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());

    // A cancelled job is not a failed one: nothing is written, nothing runs.
    let ran = job.run_with(
        &bed,
        "schedule",
        &sha,
        &path,
        &[("job-status", "cancelled")],
    );
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.contains(
            "::notice::The job was cancelled before this step, so Sluiceway did nothing."
        ),
        "{}",
        ran.log
    );
    assert!(previewed(&ran.log).is_empty());
    assert_eq!(
        bed.body(number),
        scanned,
        "the dashboard is as the scan left it"
    );

    let ran = job.run_with(&bed, "schedule", &sha, &path, &[("job-status", "failure")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(previewed(&ran.log).is_empty());
    let body = bed.body(number);
    assert_eq!(blocks(&body), before);
    assert!(
        body.contains("https://github.com/octo/infra/actions/runs/4242"),
        "{body}"
    );
}

#[test]
fn log_diff_prints_the_tools_own_diff_into_the_stacks_group_only() {
    let bed = Bed::new();
    let job = Job::new();
    let config = std::fs::read_to_string(job.file("sluiceway.yaml")).unwrap();
    std::fs::write(
        job.file("sluiceway.yaml"),
        config.replace("stacks:\n", "scan:\n  logDiff: true\n\nstacks:\n"),
    )
    .unwrap();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let group = ran
        .log
        .split("::group::[network]\n")
        .nth(1)
        .and_then(|rest| rest.split("::endgroup::").next())
        .unwrap();
    assert!(
        group.contains("terraform_data.subnets will be created"),
        "{group}"
    );
    let body = bed.body(dashboard(&bed));
    assert!(
        !body.contains("will be created"),
        "the tool's words stay in the log"
    );
}

/// Decision 0101: a pull request is previewed for its reviewer with the real `tofu` on
/// the merge checkout: one neutral page per stack its files claim, on its head commit,
/// with the row's words and no value; the dashboard is neither read nor written and no
/// record is opened. A pull request from a fork is refused from its payload alone,
/// before any request or tool.
#[test]
fn a_pull_request_gets_one_page_per_stack_it_touches_and_never_touches_the_dashboard() {
    let bed = Bed::new();
    push(
        &bed,
        "the first commit",
        &["network/main.tf", "storage/main.tf"],
    );
    let number = bed
        .emulator
        .act(Act::OpenPull {
            repo: REPO.into(),
            author: "alice".into(),
            title: "a wider network".into(),
            files: vec![github_emulator::world::FileChange {
                path: "network/main.tf".into(),
                status: "modified".into(),
                previous_path: None,
                content: None,
            }],
        })
        .unwrap()
        .as_u64()
        .unwrap();
    let event = |fork: Option<&str>| {
        bed.emulator
            .act(Act::PullRequestEvent {
                repo: REPO.into(),
                number,
                action: "opened".into(),
                fork: fork.map(str::to_owned),
            })
            .unwrap()
    };
    let payload = event(None);
    let head = payload["pull_request"]["head"]["sha"]
        .as_str()
        .unwrap()
        .to_owned();
    let mut job = Job::new();
    job.payload = Some(payload.to_string());
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let inputs = [("mode", ""), ("pull-request-preview", "true")];
    let ran = job.run_with(&bed, "pull_request", "merge-commit", &path, &inputs);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let pages = bed.github.check_runs(&head).unwrap();
    let names: Vec<&str> = pages.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["sluiceway / network"], "{}", ran.log);
    let world = bed.emulator.world();
    let page = world
        .repo(REPO)
        .unwrap()
        .check_runs
        .values()
        .next()
        .unwrap()
        .clone();
    assert_eq!(page.conclusion.as_deref(), Some("neutral"));
    let summary = page.summary.unwrap_or_default();
    assert!(
        summary.contains("Nothing deploys from this page"),
        "{summary}"
    );
    assert!(page.title.unwrap_or_default().starts_with("network · "));
    for text in [&summary, &page.text.unwrap_or_default(), &ran.summary] {
        assert!(!text.contains(CANARY), "a value reached a page: {text}");
    }
    assert!(
        bed.emulator
            .traffic()
            .iter()
            .all(|t| !t.contains("/issues") && !t.contains("deployments")),
        "{:?}",
        bed.emulator.traffic()
    );
    assert!(
        bed.github
            .open_issues_labelled("sluiceway")
            .unwrap()
            .is_empty()
    );
    assert!(
        ran.summary
            .contains(&format!("## A preview of pull request #{number}"))
            && ran.summary.starts_with("## Sluiceway check\n"),
        "the auto mode checks the files first: {}",
        ran.summary
    );

    // The same again: the page is found by name and kept, not written twice.
    let again = job.run_with(&bed, "pull_request", "merge-commit", &path, &inputs);
    assert_eq!(again.code, Some(0), "{}", again.log);
    assert_eq!(bed.github.check_runs(&head).unwrap().len(), 1);

    // A fork's pull request: no request, no tool (none is on PATH), a green notice.
    let before = bed.emulator.traffic().len();
    job.payload = Some(event(Some("mallory")).to_string());
    let fork = job.run_with(
        &bed,
        "pull_request",
        "merge-commit",
        "/usr/bin:/bin",
        &inputs,
    );
    assert_eq!(fork.code, Some(0), "{}", fork.log);
    assert!(fork.log.contains("comes from a fork"), "{}", fork.log);
    assert_eq!(bed.emulator.traffic().len(), before, "no request at all");
}
