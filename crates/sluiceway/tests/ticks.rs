//! Ticks to deploys end to end: a scan shows a stack pending, a person ticks it in the
//! emulator, and `sluiceway run` on the dashboard's edit event (auto mode) names the
//! ticker from the edit history, opens a record, applies with the real `tofu` into the
//! local state, settles; the next scan shows the stack in sync and the trail names the
//! ticker.

mod support;

use github_emulator::world::Role;
use github_emulator::{Act, Fault, FaultKind};
use sluiceway_dashboard::reader;
use sluiceway_github::{GitHub, RecordState};
use support::job::*;
use support::{Bed, REPO, tofu_dir};

/// A scanned checkout with its dashboard.
fn scanned(bed: &Bed) -> (Job, String, u64) {
    let job = Job::new();
    let sha = push(bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(bed);
    (job, sha, number)
}

/// `sluiceway run` on the dashboard's edit, in auto mode.
fn on_edit(bed: &Bed, job: &mut Job, sha: &str, number: u64, inputs: &[(&str, &str)]) -> Ran {
    job.payload = Some(edit_event(bed, number));
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let mut all = vec![("mode", "")];
    all.extend_from_slice(inputs);
    let ran = job.run_with(bed, "issues", sha, &path, &all);
    job.payload = None;
    ran
}

fn records_of(bed: &Bed, stack: &str) -> Vec<(RecordState, String, String)> {
    bed.github
        .deployment_records("sluiceway")
        .unwrap()
        .records
        .into_iter()
        .filter(|r| r.task == format!("sluiceway:{stack}"))
        .map(|r| {
            let status = r.latest_status.unwrap();
            (
                status.state,
                status.description,
                r.payload["ticker"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_tick_by_a_writer_deploys_exactly_that_and_the_next_scan_shows_it_in_sync() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log
            .contains("- network: ticked by alice; its deploy is queued"),
        "{}",
        ran.log
    );
    assert!(ran.log.contains("network: deployed."), "{}", ran.log);
    assert_eq!(
        records_of(&bed, "network"),
        [(
            RecordState::Success,
            "deployed".to_owned(),
            "alice".to_owned()
        )]
    );
    let matrix: serde_json::Value = serde_json::from_str(&ran.outputs["matrix"]).unwrap();
    assert_eq!(matrix[0]["stack"], "network");
    assert_eq!(ran.outputs["outcome"], "deployed");
    assert_eq!(ran.outputs["stack"], "network");
    let result: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&ran.outputs["result-file"]).unwrap())
            .unwrap();
    let validator = jsonschema::validator_for(&apply_schema()).unwrap();
    assert!(validator.is_valid(&result), "{result}");
    assert_eq!(result["outcome"], "deployed");
    // OpenTofu's state now holds what was deployed.
    assert!(job.file("network/terraform.tfstate").exists());

    let rows = blocks(&bed.body(number));
    assert!(
        rows["network"].contains("state=\"in-sync\""),
        "{}",
        rows["network"]
    );
    let later = job.run(&bed, "schedule", &sha);
    assert_eq!(later.code, Some(0), "{}", later.log);
    let body = bed.body(number);
    assert!(
        blocks(&body)["network"].contains("state=\"in-sync\""),
        "{body}"
    );
    let trail = body
        .split("## Recently deployed")
        .nth(1)
        .expect("the trail");
    assert!(
        trail.contains("network") && trail.contains("alice"),
        "{trail}"
    );
}

fn apply_schema() -> serde_json::Value {
    let text =
        std::fs::read_to_string(support::workspace().join("docs/formats/apply-result.schema.json"))
            .unwrap();
    serde_json::from_str(&text).unwrap()
}

#[test]
fn the_published_apply_schema_is_the_one_the_code_generates() {
    assert_eq!(sluiceway::modes::apply::result_schema(), apply_schema());
}

#[test]
fn a_tick_by_someone_without_write_access_is_refused_with_a_comment() {
    let bed = Bed::new();
    bed.emulator
        .act(Act::AddCollaborator {
            repo: REPO.into(),
            login: "mallory".into(),
            role: Role::Read,
        })
        .unwrap();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "mallory", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "a refusal is not a failure: {}", ran.log);
    assert!(records_of(&bed, "network").is_empty(), "nothing was opened");
    assert_eq!(ran.outputs["matrix"], "[]");
    let read = reader::read(&bed.body(number));
    assert!(read.rows.iter().all(|r| !r.ticked), "the box was cleared");
    let comments = bed.emulator.world().repo(REPO).unwrap().issues[&number]
        .comments
        .clone();
    assert!(
        comments
            .iter()
            .any(|c| c.body.contains("@mallory ticked **network**")),
        "{comments:?}"
    );
}

#[test]
fn a_permission_lookup_that_fails_twice_clears_the_box_and_turns_the_job_red() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    bed.emulator.arm(Fault {
        on: "GET /repos/{owner}/{repo}/collaborators/{username}/permission".into(),
        times: 2,
        kind: FaultKind::Status {
            status: 502,
            message: "Bad Gateway".into(),
        },
    });
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert!(records_of(&bed, "network").is_empty());
    assert!(
        reader::read(&bed.body(number))
            .rows
            .iter()
            .all(|r| !r.ticked)
    );
    assert!(
        ran.log.contains("GitHub did not say whether they may"),
        "{}",
        ran.log
    );
}

#[test]
fn a_change_pushed_between_tick_and_apply_is_refused_as_moved() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    // A new resource lands after the tick: the fresh diff is not the ticked one.
    let main = job.file("network/main.tf");
    let text = std::fs::read_to_string(&main).unwrap();
    std::fs::write(
        &main,
        format!("{text}\nresource \"terraform_data\" \"gateway\" {{}}\n"),
    )
    .unwrap();
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert_eq!(ran.outputs["outcome"], "refused");
    assert_eq!(
        records_of(&bed, "network"),
        [(
            RecordState::Error,
            "the change moved since the tick".to_owned(),
            "alice".to_owned()
        )]
    );
    assert!(
        !job.file("network/terraform.tfstate").exists(),
        "nothing was deployed"
    );
    let comments = bed.emulator.world().repo(REPO).unwrap().issues[&number]
        .comments
        .clone();
    assert!(
        comments
            .iter()
            .any(|c| c.body.contains("the change moved since the tick"))
    );
}

#[test]
fn a_dry_run_rehearses_and_deploys_nothing() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[("dry-run", "true")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(ran.outputs["outcome"], "rehearsed");
    assert_eq!(
        records_of(&bed, "network"),
        [(
            RecordState::Inactive,
            "rehearsed, nothing was deployed".to_owned(),
            "alice".to_owned()
        )]
    );
    assert!(!job.file("network/terraform.tfstate").exists());
}

#[test]
fn a_re_run_of_apply_on_an_ended_record_deploys_nothing() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let matrix: serde_json::Value = serde_json::from_str(&ran.outputs["matrix"]).unwrap();
    let id = matrix[0]["deployment"].as_u64().unwrap().to_string();
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let again = job.run_with(
        &bed,
        "issues",
        &sha,
        &path,
        &[("mode", "apply"), ("deployment-id", &id)],
    );
    assert_eq!(again.code, Some(1));
    assert!(
        again
            .log
            .contains("This deploy already ended. Tick the box on the dashboard to try again."),
        "{}",
        again.log
    );
    assert_eq!(records_of(&bed, "network").len(), 1);
}

#[test]
fn deploys_off_refuses_before_any_tool_runs() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    let config = std::fs::read_to_string(job.file("sluiceway.yaml")).unwrap();
    std::fs::write(
        job.file("sluiceway.yaml"),
        format!("deploys: false\n{config}"),
    )
    .unwrap();
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(records_of(&bed, "network").is_empty());
    let rows = blocks(&bed.body(number));
    assert!(
        rows["network"].contains("deploys are turned off in `sluiceway.yaml`"),
        "{}",
        rows["network"]
    );
    assert!(!ran.log.contains("Initializing"), "no tool ran");
}

#[test]
fn settle_ends_a_record_its_run_left_open_and_the_row_says_so() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    // resolve opens the record; the apply is killed before it ends it.
    let ran = {
        job.payload = Some(edit_event(&bed, number));
        let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
        let ran = job.run_with(&bed, "issues", &sha, &path, &[("mode", "resolve")]);
        job.payload = None;
        ran
    };
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(records_of(&bed, "network")[0].0, RecordState::Queued);
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let settled = job.run_with(&bed, "issues", &sha, &path, &[("mode", "settle")]);
    assert_eq!(settled.code, Some(0), "{}", settled.log);
    assert_eq!(
        records_of(&bed, "network"),
        [(
            RecordState::Error,
            "the run ended without a result".to_owned(),
            "alice".to_owned()
        )]
    );
    let rows = blocks(&bed.body(number));
    assert!(
        rows["network"].contains("last deploy failed"),
        "{}",
        rows["network"]
    );
}

fn writer(bed: &Bed, login: &str) {
    bed.emulator
        .act(Act::AddCollaborator {
            repo: REPO.into(),
            login: login.into(),
            role: Role::Write,
        })
        .unwrap();
}

#[test]
fn three_ticks_by_three_people_are_each_credited_to_their_ticker() {
    let bed = Bed::new();
    writer(&bed, "bob");
    writer(&bed, "carol");
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    tick(&bed, number, "bob", "storage:dev");
    tick(&bed, number, "carol", "storage:prod");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    for (stack, ticker) in [
        ("network", "alice"),
        ("storage:dev", "bob"),
        ("storage:prod", "carol"),
    ] {
        assert_eq!(
            records_of(&bed, stack),
            [(
                RecordState::Success,
                "deployed".to_owned(),
                ticker.to_owned()
            )],
            "{stack}"
        );
    }
    let trail = bed.body(number);
    let trail = trail.split("## Recently deployed").nth(1).unwrap();
    for ticker in ["alice", "bob", "carol"] {
        assert!(trail.contains(ticker), "{trail}");
    }
}

#[test]
fn a_deleted_edit_history_entry_names_nobody_and_nothing_deploys() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    bed.emulator
        .act(Act::DeleteEdit {
            repo: REPO.into(),
            issue: number,
            newest_first_index: 0,
            by: "alice".into(),
        })
        .unwrap();
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(records_of(&bed, "network").is_empty(), "nothing deploys");
    assert!(
        reader::read(&bed.body(number))
            .rows
            .iter()
            .all(|r| !r.ticked),
        "the box is cleared"
    );
    let world = bed.emulator.world();
    let comments = &world.repo(REPO).unwrap().issues[&number].comments;
    assert!(comments.is_empty(), "no comment: there is nobody to tell");
}

#[test]
fn a_tick_the_bot_wrote_over_and_back_is_still_credited_to_the_person() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    let ticked = bed.body(number);
    let unticked = ticked.replacen("- [x] **network**", "- [ ] **network**", 1);
    assert_ne!(ticked, unticked);
    // A scan's write lands over the tick, then the write loop writes it back (0119).
    for body in [unticked, ticked] {
        bed.emulator
            .act(Act::EditBody {
                repo: REPO.into(),
                issue: number,
                editor: "github-actions[bot]".into(),
                body,
            })
            .unwrap();
    }
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(
        records_of(&bed, "network"),
        [(
            RecordState::Success,
            "deployed".to_owned(),
            "alice".to_owned()
        )]
    );
}
