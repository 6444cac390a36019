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
use support::receivers::{Answer, Receivers};
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

/// mallory can read the repository, not write to it.
fn mallory_reads(bed: &Bed) {
    bed.emulator
        .act(Act::AddCollaborator {
            repo: REPO.into(),
            login: "mallory".into(),
            role: Role::Read,
        })
        .unwrap();
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
    assert_eq!(
        ran.outputs["dashboard-url"],
        format!("https://github.com/{REPO}/issues/{number}"),
        "resolve and apply say where the dashboard is, as the event names it"
    );
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

/// Apply refused alice's tick on network with `reason`: a red step, the record ended
/// `error` with it, and nothing in OpenTofu's state.
fn refused_for_alice(bed: &Bed, job: &Job, ran: &Ran, reason: &str) {
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert_eq!(ran.outputs["outcome"], "refused");
    assert_eq!(
        records_of(bed, "network"),
        [(RecordState::Error, reason.to_owned(), "alice".to_owned())]
    );
    assert!(
        !job.file("network/terraform.tfstate").exists(),
        "nothing was deployed"
    );
}

fn apply_schema() -> serde_json::Value {
    let text =
        std::fs::read_to_string(support::workspace().join("docs/formats/apply-result.schema.json"))
            .unwrap();
    serde_json::from_str(&text).unwrap()
}

/// A stack's own `environment` names where its deploys are recorded and what a split
/// workflow's apply job runs under (`matrix`): the tick opens the record there, and the
/// deploy ends it there.
#[test]
fn a_stacks_environment_holds_its_records_and_reaches_the_matrix() {
    let bed = Bed::new();
    let mut job = Job::new();
    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config).unwrap().replacen(
        "  - path: network\n    tool: opentofu\n",
        "  - path: network\n    tool: opentofu\n    environment: production\n",
        1,
    );
    std::fs::write(&config, text).unwrap();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    assert_eq!(job.run(&bed, "push", &sha).code, Some(0));
    let number = dashboard(&bed);
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[("mode", "resolve")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        !job.file("network/terraform.tfstate").exists(),
        "resolve deploys nothing"
    );
    let production = bed.github.deployment_records("production").unwrap().records;
    assert_eq!(
        production.len(),
        1,
        "the record is in the stack's environment"
    );
    assert!(
        bed.github
            .deployment_records("sluiceway")
            .unwrap()
            .records
            .is_empty(),
        "and not in the default one"
    );
    assert_eq!(
        ran.outputs["matrix"],
        format!(
            "[{{\"deployment\":{},\"environment\":\"production\",\"stack\":\"network\"}}]",
            production[0].id
        )
    );
    let applied = job.run_with(
        &bed,
        "issues",
        &sha,
        &format!("{}:/usr/bin:/bin", tofu_dir().display()),
        &[
            ("mode", "apply"),
            ("deployment-id", &production[0].id.to_string()),
        ],
    );
    assert_eq!(applied.code, Some(0), "{}", applied.log);
    assert!(
        job.file("network/terraform.tfstate").exists(),
        "apply deployed"
    );
    let ended = bed.github.deployment_records("production").unwrap().records;
    assert_eq!(
        ended[0].latest_status.as_ref().map(|s| s.state),
        Some(RecordState::Success)
    );
}

#[test]
fn the_published_apply_schema_is_the_one_the_code_generates() {
    assert_eq!(sluiceway::modes::apply::result_schema(), apply_schema());
}

#[test]
fn a_tick_by_someone_without_write_access_is_refused_with_a_comment() {
    let bed = Bed::new();
    mallory_reads(&bed);
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
    refused_for_alice(&bed, &job, &ran, "the change moved since the tick");
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
    let dashboard = bed.github.open_issues_labelled("sluiceway").unwrap();
    assert_eq!(
        settled.outputs["dashboard-url"], dashboard[0].html_url,
        "a push's event has no issue: the dashboard it found"
    );
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

/// The job runs the workflow `file`, which the emulator knows: dispatches name it and
/// its runs can be listed.
fn runs_workflow(bed: &Bed, job: &mut Job, file: &str) {
    bed.emulator
        .act(Act::AddWorkflow {
            repo: REPO.into(),
            file: file.into(),
        })
        .unwrap();
    job.env.push((
        "GITHUB_WORKFLOW_REF".into(),
        format!("{REPO}/.github/workflows/{file}@refs/heads/main"),
    ));
}

/// The quickstart with `storage:dev` depending on `network`, and the workflow the
/// dispatches name.
fn chained(bed: &Bed) -> (Job, String, u64) {
    let mut job = Job::new();
    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "    name: dev\n    tool: opentofu\n",
        "    name: dev\n    tool: opentofu\n    dependsOn: [network]\n",
    );
    std::fs::write(&config, text).unwrap();
    runs_workflow(bed, &mut job, "deploy-dashboard.yml");
    let sha = push(bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    (job, sha, dashboard(bed))
}

fn dispatched_runs(bed: &Bed) -> usize {
    bed.emulator
        .world()
        .repo(REPO)
        .unwrap()
        .runs
        .values()
        .filter(|r| r.event == "workflow_dispatch")
        .count()
}

/// The rescan box (the reference's decisions 0025 and 0108): a person who can write asks
/// for a full scan, dispatched, and nothing deploys; a person who cannot is named in the
/// log and asks for nothing. Either way the box is drawn unticked again.
#[test]
fn the_rescan_box_asks_for_a_full_scan_when_a_writer_ticks_it_and_for_nothing_otherwise() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    runs_workflow(&bed, &mut job, "deploy-dashboard.yml");
    let rescan_line = |body: &str| {
        body.lines()
            .find(|l| l.contains("<!-- sluiceway:rescan -->"))
            .map(str::to_owned)
            .unwrap()
    };
    assert!(rescan_line(&bed.body(number)).starts_with("- [ ] "));

    mallory_reads(&bed);
    tick(&bed, number, "mallory", "sluiceway:rescan");
    let refused = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(refused.code, Some(0), "{}", refused.log);
    assert!(
        refused.log.contains("- the rescan box: ticked by mallory, who cannot write to the repository; it was cleared and no scan was asked for"),
        "{}",
        refused.log
    );
    assert_eq!(dispatched_runs(&bed), 0, "no scan for mallory");
    assert!(
        rescan_line(&bed.body(number)).starts_with("- [ ] "),
        "cleared"
    );

    tick(&bed, number, "alice", "sluiceway:rescan");
    let asked = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(asked.code, Some(0), "{}", asked.log);
    assert!(
        asked
            .log
            .contains("- the rescan box: ticked by alice; a full scan is asked for"),
        "{}",
        asked.log
    );
    assert_eq!(dispatched_runs(&bed), 1, "one full scan asked for");
    assert!(
        rescan_line(&bed.body(number)).starts_with("- [ ] "),
        "cleared"
    );
    assert!(
        records_of(&bed, "network").is_empty(),
        "a rescan deploys nothing"
    );
    assert_eq!(asked.outputs["matrix"], "[]");
}

#[test]
fn a_tick_whose_dependency_has_an_unticked_change_starts_nothing_and_says_why() {
    let bed = Bed::new();
    let (mut job, sha, number) = chained(&bed);
    tick(&bed, number, "alice", "storage:dev");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(
        ran.code,
        Some(0),
        "a held tick is not a failure: {}",
        ran.log
    );
    assert!(records_of(&bed, "storage:dev").is_empty(), "no record");
    assert_eq!(ran.outputs["matrix"], "[]");
    let body = bed.body(number);
    let row = &blocks(&body)["storage:dev"];
    assert!(row.starts_with("- [ ] "), "the box was cleared: {row}");
    assert!(
        row.contains("this tick started nothing: it depends on **network**, which has a change waiting. Tick both to deploy them in order, or deploy **network** first."),
        "{row}"
    );
    let comments = bed.emulator.world().repo(REPO).unwrap().issues[&number]
        .comments
        .clone();
    assert!(comments.is_empty(), "no comment, no mention: {comments:?}");
}

#[test]
fn a_chain_ticked_together_deploys_one_layer_per_run() {
    let bed = Bed::new();
    let (mut job, sha, number) = chained(&bed);
    tick(&bed, number, "alice", "network");
    tick(&bed, number, "alice", "storage:dev");
    let first = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(first.code, Some(0), "{}", first.log);
    assert!(
        first
            .log
            .contains("- storage:dev: ticked by alice; queued behind network"),
        "{}",
        first.log
    );
    assert!(first.log.contains("network: deployed."), "{}", first.log);
    let matrix: serde_json::Value = serde_json::from_str(&first.outputs["matrix"]).unwrap();
    assert_eq!(
        matrix.as_array().unwrap().len(),
        1,
        "only the first layer is handed on: {matrix}"
    );
    assert_eq!(matrix[0]["stack"], "network");
    // The queued record waits; settle left it alone, and the next layer was asked for.
    let queued = records_of(&bed, "storage:dev");
    assert_eq!(
        queued,
        [(
            RecordState::Queued,
            "ticked by alice".to_owned(),
            "alice".to_owned()
        )]
    );
    let row = &blocks(&bed.body(number))["storage:dev"];
    assert!(
        row.contains("state=\"queued\"") && row.contains("queued behind **network**"),
        "{row}"
    );
    assert_eq!(dispatched_runs(&bed), 1, "{}", first.log);
    assert!(
        !job.file("storage/terraform.tfstate.d/dev/terraform.tfstate")
            .exists(),
        "storage:dev not deployed yet"
    );

    // The dispatched run starts the queued deploy as a record of its own, then scans.
    job.env.push(("GITHUB_RUN_ID".into(), "4243".into()));
    job.payload = Some(r#"{"repository":{"default_branch":"main"},"sender":{"login":"github-actions[bot]","type":"Bot"}}"#.into());
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    let second = job.run_with(&bed, "workflow_dispatch", &sha, &path, &[("mode", "")]);
    assert_eq!(second.code, Some(0), "{}", second.log);
    assert!(
        second.log.contains("storage:dev: deployed."),
        "{}",
        second.log
    );
    let mut records = records_of(&bed, "storage:dev");
    records.sort_by_key(|r| r.1.clone());
    assert_eq!(
        records,
        [
            (
                RecordState::Success,
                "deployed".to_owned(),
                "alice".to_owned()
            ),
            (
                RecordState::Inactive,
                "started in a later run".to_owned(),
                "alice".to_owned()
            ),
        ]
    );
    let body = bed.body(number);
    let rows = blocks(&body);
    assert!(rows["network"].contains("state=\"in-sync\""), "{body}");
    assert!(rows["storage:dev"].contains("state=\"in-sync\""), "{body}");
    let trail = body
        .split("## Recently deployed")
        .nth(1)
        .expect("the trail");
    assert_eq!(
        trail.matches("storage:dev").count(),
        1,
        "the queued record is not a deploy fact: {trail}"
    );
}

/// The chain with both stacks ticked and only the `resolve` mode run: network handed on,
/// storage:dev queued behind it. Answers the job, the commit, the dashboard and PATH.
fn both_resolved(bed: &Bed) -> (Job, String, u64, String) {
    let (mut job, sha, number) = chained(bed);
    tick(bed, number, "alice", "network");
    tick(bed, number, "alice", "storage:dev");
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    job.payload = Some(edit_event(bed, number));
    let resolved = job.run_with(bed, "issues", &sha, &path, &[("mode", "resolve")]);
    assert_eq!(resolved.code, Some(0), "{}", resolved.log);
    (job, sha, number, path)
}

#[test]
fn a_queued_record_whose_dependency_did_not_deploy_ends_and_never_deploys() {
    let bed = Bed::new();
    let (mut job, sha, number, path) = both_resolved(&bed);
    // Resolve alone handed network on; its apply never comes, and settle ends it.
    let settled = job.run_with(&bed, "issues", &sha, &path, &[("mode", "settle")]);
    assert_eq!(settled.code, Some(0), "{}", settled.log);
    let event: serde_json::Value =
        serde_json::from_str(job.payload.as_deref().expect("the edit's event")).unwrap();
    assert_eq!(
        settled.outputs["dashboard-url"],
        event["issue"]["html_url"].as_str().unwrap(),
        "the event's issue, taken from the event"
    );
    assert_eq!(
        records_of(&bed, "network")[0].1,
        "the run ended without a result"
    );
    assert_eq!(
        records_of(&bed, "storage:dev")[0].0,
        RecordState::Queued,
        "settle leaves a queued record alone"
    );

    job.env.push(("GITHUB_RUN_ID".into(), "4243".into()));
    job.payload = Some(r#"{"repository":{"default_branch":"main"}}"#.into());
    let dispatched = job.run_with(&bed, "workflow_dispatch", &sha, &path, &[("mode", "")]);
    assert_eq!(dispatched.code, Some(0), "{}", dispatched.log);
    assert_eq!(
        records_of(&bed, "storage:dev"),
        [(
            RecordState::Failure,
            "a stack it depends on did not deploy".to_owned(),
            "alice".to_owned()
        )]
    );
    assert!(
        !job.file("storage/terraform.tfstate.d/dev/terraform.tfstate")
            .exists()
    );
    let row = &blocks(&bed.body(number))["storage:dev"];
    assert!(
        row.contains("a stack it depends on did not deploy"),
        "the failure line: {row}"
    );
}

#[test]
fn apply_never_deploys_a_queued_record() {
    let bed = Bed::new();
    let (job, sha, _, path) = both_resolved(&bed);
    let queued = bed
        .github
        .deployment_records("sluiceway")
        .unwrap()
        .records
        .into_iter()
        .find(|r| r.task == "sluiceway:storage:dev")
        .unwrap();
    let id = queued.id.to_string();
    let ran = job.run_with(
        &bed,
        "issues",
        &sha,
        &path,
        &[("mode", "apply"), ("deployment-id", &id)],
    );
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert!(ran.log.contains("is queued behind network"), "{}", ran.log);
    assert_eq!(records_of(&bed, "storage:dev")[0].0, RecordState::Queued);
    assert!(
        !job.file("storage/terraform.tfstate.d/dev/terraform.tfstate")
            .exists()
    );
}

/// Changes the network's CIDR: the plan's paths stay the same, its values do not.
fn change_the_cidr(job: &Job) {
    let main = job.file("network/main.tf");
    let text = std::fs::read_to_string(&main)
        .unwrap()
        .replace("10.20.0.0/16", "10.99.0.0/16");
    std::fs::write(&main, text).unwrap();
}

#[test]
fn a_value_changed_after_the_tick_under_the_same_hash_deploys_nothing() {
    let bed = Bed::new();
    let (mut job, _, number) = scanned(&bed);
    let row = blocks(&bed.body(number))["network"].clone();
    let fingerprint = reader::read(&format!("{row}\n")).rows[0]
        .facts
        .fingerprint
        .clone();
    assert!(
        fingerprint.is_some(),
        "the row carries a fingerprint: {row}"
    );
    assert!(!row.contains("10.20.0.0"), "but never the value: {row}");
    tick(&bed, number, "alice", "network");
    change_the_cidr(&job);
    // A new commit: the value changed with it.
    let later = push(&bed, "a wider network", &["network/main.tf"]);
    let ran = on_edit(&bed, &mut job, &later, number, &[]);
    refused_for_alice(&bed, &job, &ran, "a value changed since the tick");
    let body = bed.body(number);
    let row = &blocks(&body)["network"];
    assert!(
        row.contains("state=\"pending\"") && row.contains("a value changed since the tick"),
        "{row}"
    );
    assert!(
        !body.contains("10.99.0.0") && !body.contains("10.20.0.0"),
        "{body}"
    );
    let comments = bed.emulator.world().repo(REPO).unwrap().issues[&number]
        .comments
        .clone();
    assert!(
        comments.iter().any(|c| c.body.starts_with(
            "@alice ticked **network**, and a value in the change moved since the tick"
        ) && !c.body.contains("10.")),
        "{comments:?}"
    );
}

#[test]
fn a_value_that_changes_with_no_new_commit_is_named_as_such() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    change_the_cidr(&job);
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert_eq!(
        records_of(&bed, "network")[0].1,
        "a value changed since the tick with no new commit, so it may differ on every run: see valueFingerprint in sluiceway.yaml"
    );
}

#[test]
fn with_value_fingerprints_off_no_row_carries_one_and_a_value_change_deploys() {
    let bed = Bed::new();
    let mut job = Job::new();
    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("valueFingerprint: false\n{text}")).unwrap();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(&bed);
    assert!(
        !bed.body(number).contains("fingerprint="),
        "{}",
        bed.body(number)
    );
    tick(&bed, number, "alice", "network");
    change_the_cidr(&job);
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(ran.outputs["outcome"], "deployed");
}

#[test]
fn a_stacks_own_value_fingerprint_wins_over_the_top_level_one() {
    let bed = Bed::new();
    let mut job = Job::of("examples/quickstart");
    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let stack = "  - path: network\n    tool: opentofu\n";
    assert!(text.contains(stack), "{text}");
    std::fs::write(
        &config,
        format!(
            "valueFingerprint: true\n{}",
            text.replacen(
                stack,
                "  - path: network\n    tool: opentofu\n    valueFingerprint: false\n",
                1
            )
        ),
    )
    .unwrap();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(&bed);
    let rows = blocks(&bed.body(number));
    assert!(
        !rows["network"].contains("fingerprint="),
        "{}",
        rows["network"]
    );
    assert!(
        rows["storage:dev"].contains("fingerprint="),
        "the other stacks keep the top level's: {}",
        rows["storage:dev"]
    );
    // A value changed after the tick: the stack without a fingerprint deploys.
    tick(&bed, number, "alice", "network");
    change_the_cidr(&job);
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(ran.outputs["outcome"], "deployed", "{}", ran.log);
}

#[test]
fn a_tick_in_a_later_phase_waits_while_an_earlier_phase_has_a_change_waiting() {
    let bed = Bed::new();
    let mut job = Job::of("examples/quickstart");
    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    let text = text
        .replacen(
            "  - path: network\n    tool: opentofu\n",
            "  - path: network\n    tool: opentofu\n    phase: base\n",
            1,
        )
        .replace(
            "  - path: storage\n",
            "  - path: storage\n    phase: apps\n",
        );
    std::fs::write(&config, format!("phases: [base, apps]\n{text}")).unwrap();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(&bed);

    tick(&bed, number, "alice", "storage:dev");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(records_of(&bed, "storage:dev").is_empty(), "{}", ran.log);
    assert!(
        ran.log.contains(
            "storage:dev: ticked by alice; started nothing, since network has a change waiting"
        ),
        "{}",
        ran.log
    );
    let row = blocks(&bed.body(number))["storage:dev"].clone();
    assert!(
        row.contains(
            "this tick started nothing: it waits on the **base** phase: **network** has a change waiting."
        ),
        "{row}"
    );

    // Once the earlier phase has nothing waiting, the same tick deploys.
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.outputs["outcome"], "deployed", "{}", ran.log);
}

#[test]
fn deploy_all_asks_for_a_confirmation_and_the_confirm_box_is_a_tick_on_each_row() {
    let bed = Bed::new();
    let mut job = Job::new();
    // storage:prod only carol may tick: the confirm box is judged stack by stack.
    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config).unwrap().replace(
        "    name: prod\n    tool: opentofu\n",
        "    name: prod\n    tool: opentofu\n    tickers: [carol]\n",
    );
    std::fs::write(&config, text).unwrap();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(&bed);
    assert!(
        bed.body(number)
            .contains("- [ ] Deploy all 3 pending stacks"),
        "{}",
        bed.body(number)
    );

    tick(&bed, number, "alice", "Deploy all");
    let asked = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(asked.code, Some(0), "{}", asked.log);
    assert_eq!(asked.outputs["matrix"], "[]", "a bulk box deploys nothing");
    let body = bed.body(number);
    assert!(
        body.contains("- [ ] **Confirm:** deploy all 3 pending stacks: **network**, **storage:dev**, **storage:prod** · asked by alice <!-- sluiceway:bulk section=\"pending\" confirm=\"alice\" stacks=\"network,storage:dev,storage:prod\""),
        "{body}"
    );
    assert!(
        !body.contains("Deploy all 3"),
        "the confirm box stands in for it: {body}"
    );

    tick(&bed, number, "alice", "**Confirm:**");
    let confirmed = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(confirmed.code, Some(0), "{}", confirmed.log);
    assert_eq!(records_of(&bed, "network")[0].0, RecordState::Success);
    assert_eq!(
        records_of(&bed, "storage:dev")[0].2,
        "alice",
        "credited to the confirm's ticker"
    );
    assert!(
        records_of(&bed, "storage:prod").is_empty(),
        "its own rule refused alice"
    );
    let body = bed.body(number);
    assert!(
        !body.contains("**Confirm:**"),
        "the confirm box was used: {body}"
    );
    let comments = bed.emulator.world().repo(REPO).unwrap().issues[&number]
        .comments
        .clone();
    assert!(
        comments.iter().any(|c| c.body.contains(
            "@alice ticked **storage:prod** through the confirm box of the pending stacks"
        )),
        "{comments:?}"
    );
}

#[test]
fn a_deploy_past_its_deploy_timeout_is_interrupted_and_ends_with_a_fixed_reason() {
    let bed = Bed::new();
    let job = Job::new();
    // A real provisioner that outlasts the limit; SIGINT reaches it through tofu.
    let (sha, number) = slow_deploy_ticked(&bed, &job);
    let mut job = job;
    let started = std::time::Instant::now();
    let ran = on_edit(&bed, &mut job, &sha, number, &[("deploy-timeout", "1")]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(240),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(ran.code, Some(1), "{}", ran.log);
    assert_eq!(ran.outputs["outcome"], "failed");
    assert_eq!(
        records_of(&bed, "network"),
        [(
            RecordState::Failure,
            "the deploy timed out after 1 minute".to_owned(),
            "alice".to_owned()
        )]
    );
    let row = &blocks(&bed.body(number))["network"];
    assert!(row.contains("the deploy timed out after 1 minute"), "{row}");
}

#[test]
fn the_job_summary_says_what_happened_to_every_tick_and_to_the_deploy() {
    let bed = Bed::new();
    mallory_reads(&bed);
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    tick(&bed, number, "mallory", "storage:dev");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert!(
        ran.summary.contains("## What happened to each tick"),
        "{}",
        ran.summary
    );
    assert!(
        ran.summary
            .contains("- network: ticked by alice; its deploy is queued"),
        "{}",
        ran.summary
    );
    assert!(
        ran.summary
            .contains("- storage:dev: ticked by mallory, who the tick rule does not allow"),
        "{}",
        ran.summary
    );
    assert!(
        ran.summary
            .contains("## The deploy of network\n\nTicked by alice: deployed."),
        "{}",
        ran.summary
    );
}

#[test]
fn a_read_only_dashboard_in_the_auto_mode_acts_on_no_tick() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "network");
    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("dashboard:\n", "dashboard:\n  readOnly: true\n");
    std::fs::write(&config, text).unwrap();
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.contains("::notice::The dashboard is read only"),
        "{}",
        ran.log
    );
    assert!(records_of(&bed, "network").is_empty());
}

#[test]
fn a_scan_that_finds_values_moved_under_the_same_commit_says_so_under_the_row() {
    let bed = Bed::new();
    let (job, sha, number) = scanned(&bed);
    // The same commit, a value moved: as a value read from outside the code would.
    change_the_cidr(&job);
    let again = job.run(&bed, "schedule", &sha);
    assert_eq!(again.code, Some(0), "{}", again.log);
    let row = &blocks(&bed.body(number))["network"];
    assert!(
        row.contains("changed since the last scan of the same commit")
            && row.contains("valueFingerprint"),
        "{row}"
    );
    assert!(!row.contains("10.99.0.0"), "{row}");
    // A new commit that moves it is an ordinary change: no such line.
    let later = push(&bed, "a wider network", &["network/main.tf"]);
    change_the_cidr(&job);
    let main = job.file("network/main.tf");
    let text = std::fs::read_to_string(&main)
        .unwrap()
        .replace("10.99.0.0/16", "10.98.0.0/16");
    std::fs::write(&main, text).unwrap();
    let pushed = job.run(&bed, "schedule", &later);
    assert_eq!(pushed.code, Some(0), "{}", pushed.log);
    let row = &blocks(&bed.body(number))["network"];
    assert!(
        !row.contains("changed since the last scan of the same commit"),
        "{row}"
    );
}

/// The quickstart scanned, and alice's "Deploy all" turned into a confirm box.
fn confirm_drawn(bed: &Bed) -> (Job, String, u64) {
    let (mut job, sha, number) = scanned(bed);
    tick(bed, number, "alice", "Deploy all");
    let asked = on_edit(bed, &mut job, &sha, number, &[]);
    assert_eq!(asked.code, Some(0), "{}", asked.log);
    assert!(
        bed.body(number).contains("**Confirm:**"),
        "{}",
        bed.body(number)
    );
    (job, sha, number)
}

#[test]
fn the_next_scan_takes_a_confirm_box_back_and_says_so() {
    let bed = Bed::new();
    let (mut job, sha, number) = confirm_drawn(&bed);
    job.env.push(("GITHUB_RUN_ID".into(), "4243".into()));
    let ran = job.run(&bed, "schedule", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let body = bed.body(number);
    assert!(!body.contains("**Confirm:**"), "{body}");
    assert!(
        body.contains("- [ ] Deploy all 3 pending stacks <!-- sluiceway:bulk section=\"pending\" note=\"expired\" -->\n  :information_source: The confirmation was taken back because a scan ran since it was asked for"),
        "{body}"
    );
}

/// Decision 0072: a trail deploy says what it shipped since its stack's success before,
/// walked by the scan; a tick's apply, which walks nothing, draws the line again from
/// its marker.
#[test]
fn a_trail_deploy_says_what_it_shipped_and_every_writer_keeps_the_line() {
    let bed = Bed::new();
    let mut job = Job::new();
    let first = push(&bed, "the first commit", &["network/main.tf"]);
    deployed(&bed, "storage:dev", &first);
    let second = push(&bed, "keep assets longer", &["storage/main.tf"]);
    let third = push(&bed, "tooling", &["Makefile"]);
    deployed(&bed, "storage:dev", &third);
    let ran = job.run(&bed, "schedule", &third);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(&bed);
    let shipped_line = |body: &str| {
        body.split("## Recently deployed")
            .nth(1)
            .and_then(|t| t.lines().find(|l| l.starts_with("  shipped ")))
            .map(str::to_owned)
    };
    let line = shipped_line(&bed.body(number)).expect("a shipped line");
    assert!(
        line.starts_with(&format!(
            "  shipped [{}](https://github.com/octo/infra/commit/{second}) by alice, and 1 change outside this stack · [compare](https://github.com/octo/infra/compare/{}...{})",
            &second[..7],
            &first[..12],
            &third[..12]
        )),
        "{line}"
    );
    // A tick's run rewrites the dashboard and walks nothing: the line stays.
    tick(&bed, number, "alice", "network");
    let applied = on_edit(&bed, &mut job, &third, number, &[]);
    assert_eq!(applied.outputs["outcome"], "deployed", "{}", applied.log);
    let body = bed.body(number);
    assert!(
        body.contains("network · alice"),
        "the tick's deploy is on the trail: {body}"
    );
    assert_eq!(shipped_line(&body), Some(line));
}

/// Decision 0086: the run the dashboard says waits for a runner drops the line when it
/// writes; another writer keeps it.
#[test]
fn the_run_said_to_wait_for_a_runner_drops_the_line_when_it_writes() {
    let bed = Bed::new();
    let mut job = Job::new();
    runs_workflow(&bed, &mut job, "deploy.yml");
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    bed.emulator
        .act(Act::SetClock {
            at: jiff::Timestamp::now() - jiff::SignedDuration::from_mins(40),
        })
        .unwrap();
    let waiting = bed
        .emulator
        .act(Act::StartRun {
            repo: REPO.into(),
            workflow: "deploy.yml".into(),
            event: "issues".into(),
            actor: "alice".into(),
        })
        .unwrap()
        .as_u64()
        .unwrap();
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(&bed);
    let says = |body: &str| body.contains("queued for a runner");
    assert!(says(&bed.body(number)), "{}", bed.body(number));
    // Another run's tick keeps the line; the waiting run's own write drops it.
    tick(&bed, number, "alice", "network");
    job.env.push(("GITHUB_RUN_ID".into(), "6001".into()));
    let other = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(other.outputs["outcome"], "deployed", "{}", other.log);
    assert!(says(&bed.body(number)), "{}", bed.body(number));
    tick(&bed, number, "alice", "storage:dev");
    job.env.push(("GITHUB_RUN_ID".into(), waiting.to_string()));
    let own = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(own.outputs["outcome"], "deployed", "{}", own.log);
    assert!(!says(&bed.body(number)), "{}", bed.body(number));
}

/// Decision 0083: a confirm box lasts through one scan. A sweep's resolve draws it and
/// the sweep's own scan keeps it; the scan of a later run takes it back.
#[test]
fn a_confirm_box_a_sweep_draws_lasts_through_its_own_scan() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    tick(&bed, number, "alice", "Deploy all");
    let path = format!("{}:/usr/bin:/bin", tofu_dir().display());
    job.env.push(("GITHUB_RUN_ID".into(), "5001".into()));
    let sweep = job.run_with(&bed, "schedule", &sha, &path, &[("mode", "")]);
    assert_eq!(sweep.code, Some(0), "{}", sweep.log);
    let body = bed.body(number);
    assert!(
        body.contains("**Confirm:** deploy all 3 pending stacks")
            && !body.contains("note=\"expired\""),
        "the sweep's own scan keeps it: {body}"
    );
    job.env.push(("GITHUB_RUN_ID".into(), "5002".into()));
    let later = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(later.code, Some(0), "{}", later.log);
    let body = bed.body(number);
    assert!(
        !body.contains("**Confirm:**") && body.contains("note=\"expired\""),
        "a later scan takes it back: {body}"
    );
}

#[test]
fn a_confirm_box_whose_rows_changed_is_taken_back_by_the_next_writer() {
    let bed = Bed::new();
    let (mut job, sha, number) = confirm_drawn(&bed);
    // network deploys through its own row: the confirm box no longer names the section.
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(ran.outputs["outcome"], "deployed");
    let body = bed.body(number);
    assert!(!body.contains("**Confirm:**"), "{body}");
    assert!(
        body.contains("section=\"pending\" note=\"changed\" gone=\"network\""),
        "{body}"
    );
    assert!(
        body.contains("(gone: **network**), so it deployed nothing"),
        "{body}"
    );
}

#[test]
fn a_tick_on_a_bulk_box_no_run_picked_up_is_swept_by_the_scan_with_a_note_and_kept_while_one_is() {
    let bed = Bed::new();
    let (mut job, sha, number) = scanned(&bed);
    // The scan can ask GitHub whether a run of its workflow is on its way: none is.
    runs_workflow(&bed, &mut job, "deploy-dashboard.yml");
    tick(&bed, number, "alice", "Deploy all");
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let body = bed.body(number);
    assert!(
        body.contains("- [ ] Deploy all 3 pending stacks <!-- sluiceway:bulk section=\"pending\" note=\"orphan\" -->\n  :information_source: A tick on this box was not picked up. Tick again."),
        "{body}"
    );

    // A tick while a run of the workflow is on its way stays for that run to read.
    tick(&bed, number, "alice", "Deploy all");
    bed.emulator
        .act(Act::StartRun {
            repo: REPO.into(),
            workflow: "deploy-dashboard.yml".into(),
            event: "issues".into(),
            actor: "alice".into(),
        })
        .unwrap();
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        bed.body(number)
            .contains("- [x] Deploy all 3 pending stacks"),
        "{}",
        bed.body(number)
    );
}

/// Decision 0078: resolve tells the channels of a refused tick and apply of a deploy
/// that went out, for the events `notify.events` lists (here not `pending`, so the scan
/// tells nobody); a channel that never answers costs its timeout and a warning, never
/// the job.
#[test]
fn the_channels_hear_of_a_refused_tick_and_a_deploy_and_one_that_hangs_never_turns_the_job_red() {
    let bed = Bed::new();
    mallory_reads(&bed);
    let receivers = Receivers::start();
    receivers.answer("slack", Answer::Hang);
    let mut job = Job::new();
    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("notify:\n  events: [deployed, refused]\n{text}"),
    )
    .unwrap();
    let inputs = receivers.inputs();
    assert_eq!(
        inputs
            .iter()
            .map(|(input, _)| input.as_str())
            .collect::<Vec<_>>(),
        [
            "slack-webhook-url",
            "webhook-url",
            "telegram-bot-token",
            "telegram-chat-id",
            "telegram-thread-id"
        ],
        "every channel's inputs are set"
    );
    for (input, value) in inputs {
        job.env
            .push((format!("INPUT_{}", input.to_uppercase()), value));
    }
    job.env.push(receivers.telegram_api());
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let scanned = job.run(&bed, "push", &sha);
    assert_eq!(scanned.code, Some(0), "{}", scanned.log);
    assert!(receivers.received().is_empty(), "pending is not listed");
    let number = dashboard(&bed);

    tick(&bed, number, "mallory", "network");
    let refused = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(refused.code, Some(0), "{}", refused.log);
    let webhook = receivers.of("webhook");
    assert_eq!(webhook.len(), 1);
    assert_eq!(webhook[0].body["event"], "refused");
    assert_eq!(webhook[0].body["stacks"], serde_json::json!(["network"]));
    assert_eq!(webhook[0].body["repository"], REPO);
    assert_eq!(
        webhook[0].body["run"],
        format!("https://github.com/{REPO}/actions/runs/4242")
    );
    assert!(
        refused
            .log
            .contains("::warning::Notification not sent to Slack: no answer within 10 seconds."),
        "{}",
        refused.log
    );

    // Slack sends the sender on to the webhook: a redirect is an answer, never followed.
    receivers.answer("slack", Answer::RedirectTo("/webhook/in"));
    tick(&bed, number, "alice", "network");
    let deployed = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(deployed.code, Some(0), "{}", deployed.log);
    assert_eq!(deployed.outputs["outcome"], "deployed");
    let told: Vec<(&str, String)> = receivers
        .received()
        .iter()
        .filter(|r| r.raw.contains("deployed"))
        .map(|r| (r.channel, r.raw.clone()))
        .collect();
    let channels: Vec<&str> = told.iter().map(|(c, _)| *c).collect();
    assert_eq!(
        channels.iter().filter(|c| **c == "webhook").count(),
        1,
        "the redirect was not followed: {told:?}"
    );
    let channels: std::collections::BTreeSet<&str> = channels.into_iter().collect();
    assert_eq!(
        channels,
        ["slack", "telegram", "webhook"].into(),
        "{told:?}"
    );
    assert!(
        deployed
            .log
            .contains("::warning::Notification not sent to Slack: it answered 302."),
        "{}",
        deployed.log
    );
    let telegram = receivers.of("telegram");
    let last = &telegram.last().unwrap().body;
    assert_eq!(last["chat_id"], -1001234);
    assert_eq!(last["message_thread_id"], 17);
    assert!(
        last["text"]
            .as_str()
            .unwrap()
            .starts_with(&format!("🟢 Sluiceway in {REPO}: network deployed.")),
        "{last}"
    );
    for received in receivers.received() {
        assert_eq!(
            received.stray, None,
            "{}: {}",
            received.channel, received.raw
        );
        assert!(!received.raw.contains(CANARY), "{}", received.raw);
    }
}

/// An update bot's pull request, opened on a branch of the repository.
fn renovate_update(
    bed: &Bed,
    title: &str,
    path: &str,
    content: Option<&str>,
    checks: &str,
) -> (u64, String) {
    use github_emulator::world::{FileChange, Rollup};
    let number = bed
        .emulator
        .act(Act::OpenPull {
            repo: REPO.into(),
            author: "renovate[bot]".into(),
            title: title.into(),
            files: vec![FileChange {
                path: path.into(),
                status: "modified".into(),
                previous_path: None,
                content: content.map(str::to_owned),
            }],
        })
        .unwrap()
        .as_u64()
        .unwrap();
    let head = bed.emulator.world().repo(REPO).unwrap().pulls[&number]
        .head_sha
        .clone();
    let running = checks == "PENDING";
    bed.emulator
        .act(Act::SetChecks {
            repo: REPO.into(),
            sha: head.clone(),
            rollup: Rollup {
                state: checks.into(),
                check_runs: [(
                    if running { "IN_PROGRESS" } else { "SUCCESS" }.to_owned(),
                    2,
                )]
                .into(),
                status_contexts: Default::default(),
            },
        })
        .unwrap();
    (number, head)
}

/// Decisions 0054, 0064 and 0081 end to end with the real `tofu`: a Renovate pull request
/// whose checks are green gets a box under "Updates waiting to merge" and one whose
/// checks still run a line without; alice's tick merges it with the method the bot's
/// own config asks for (squash), pinned to its head, and leaves a merge record; the scan
/// after the merge deploys that stack once, credited to alice; a later scan deploys
/// nothing more.
#[test]
fn a_green_update_merges_on_alices_tick_and_the_scan_after_deploys_it_once() {
    let bed = Bed::new();
    let mut job = Job::new();
    let config = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("mergeAndDeploy:\n  authors: [\"renovate[bot]\"]\n  preview: true\n{text}"),
    )
    .unwrap();
    std::fs::create_dir_all(job.file(".github")).unwrap();
    std::fs::write(
        job.file(".github/renovate.json5"),
        "{\n  // the team squashes its updates\n  automergeStrategy: 'squash',\n  extends: ['config:recommended',],\n}\n",
    )
    .unwrap();
    // The workflow declares the input that lets the scan after a merge narrow.
    std::fs::create_dir_all(job.file(".github/workflows")).unwrap();
    std::fs::write(
        job.file(".github/workflows/deploy-dashboard.yml"),
        "on:\n  workflow_dispatch:\n    inputs:\n      sluiceway-merged:\n        required: false\n",
    )
    .unwrap();
    runs_workflow(&bed, &mut job, "deploy-dashboard.yml");
    let sha = push(
        &bed,
        "the first commit",
        &["network/main.tf", "storage/main.tf"],
    );
    // The update adds a resource: its line previews three creates where the row shows two.
    let at_head = format!(
        "{}\nresource \"terraform_data\" \"routes\" {{\n  input = \"{CANARY}\"\n}}\n",
        std::fs::read_to_string(job.file("network/main.tf")).unwrap()
    );
    let (green, head) = renovate_update(
        &bed,
        "Update hashicorp/random to v3.7",
        "network/main.tf",
        Some(&at_head),
        "SUCCESS",
    );
    let (running, _) = renovate_update(
        &bed,
        "Update storage module",
        "storage/main.tf",
        None,
        "PENDING",
    );

    let scanned = job.run(&bed, "schedule", &sha);
    assert_eq!(scanned.code, Some(0), "{}", scanned.log);
    let number = dashboard(&bed);
    let body = bed.body(number);
    let section = body
        .split("## Updates waiting to merge")
        .nth(1)
        .expect("the section")
        .split("\n## ")
        .next()
        .unwrap();
    insta::assert_snapshot!("updates_section", section.replace(&head, "<head>"));
    assert!(
        section.contains("preview after the merge: 3 creates"),
        "{section}"
    );
    assert!(
        !body.contains(CANARY),
        "a value of the update reached the body"
    );
    assert!(
        !job.file("network/terraform.tfstate").exists(),
        "a preview deploys nothing"
    );
    assert!(
        scanned.log.contains(&format!(
            "1 pull requests wait on their checks: #{running}."
        )),
        "{}",
        scanned.log
    );

    bed.emulator
        .act(Act::Tick {
            repo: REPO.into(),
            issue: number,
            person: "alice".into(),
            line: format!("pr=\"{green}\""),
        })
        .unwrap();
    let merged = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(merged.code, Some(0), "{}", merged.log);
    let pull = bed.emulator.world().repo(REPO).unwrap().pulls[&green].clone();
    assert!(!pull.open, "{}", merged.log);
    assert_eq!(pull.merge_method.as_deref(), Some("squash"));
    let merge_commit = pull.merge_commit.clone().unwrap();
    let records = bed.github.deployment_records("sluiceway").unwrap().records;
    let merge_record = records
        .iter()
        .find(|r| r.task == "sluiceway:network")
        .expect("a merge record");
    assert_eq!(merge_record.sha, merge_commit);
    assert_eq!(merge_record.payload["merge"], green);
    assert_eq!(merge_record.payload["ticker"], "alice");
    assert!(
        !bed.body(number).contains(&format!("pr=\"{green}\"")),
        "the merged line is gone"
    );
    assert!(
        bed.body(number).contains(&format!("pr=\"{running}\"")),
        "the waiting line stays"
    );
    assert!(
        !job.file("network/terraform.tfstate").exists(),
        "nothing deploys before the scan after the merge"
    );

    // The scan after the merge was asked for with the merged pull request.
    let dispatched: Vec<_> = bed
        .emulator
        .world()
        .repo(REPO)
        .unwrap()
        .runs
        .values()
        .filter(|r| r.event == "workflow_dispatch")
        .map(|r| r.inputs.clone())
        .collect();
    assert_eq!(
        dispatched,
        [std::collections::BTreeMap::from([(
            "sluiceway-merged".to_owned(),
            green.to_string()
        )])],
        "{}",
        merged.log
    );
    // That run (the workflow's own dispatch, with the input) narrows to what the merge
    // changed and deploys network, credited to alice.
    job.payload = Some(
        serde_json::json!({
            "inputs": { "sluiceway-merged": green.to_string() },
            "sender": { "login": "github-actions[bot]" },
            "ref": "refs/heads/main",
            "repository": { "default_branch": "main" },
        })
        .to_string(),
    );
    let after = job.run_with(
        &bed,
        "workflow_dispatch",
        &merge_commit,
        &format!("{}:/usr/bin:/bin", tofu_dir().display()),
        &[("mode", "")],
    );
    job.payload = None;
    assert_eq!(after.code, Some(0), "{}", after.log);
    assert!(
        after.log.contains("This is a narrowed scan"),
        "{}",
        after.log
    );
    assert!(
        job.file("network/terraform.tfstate").exists(),
        "{}",
        after.log
    );
    let states = records_of(&bed, "network");
    assert_eq!(
        states,
        [
            (
                RecordState::Success,
                "deployed".to_owned(),
                "alice".to_owned()
            ),
            (
                RecordState::Inactive,
                "merged, the deploy follows in a record of its own".to_owned(),
                "alice".to_owned()
            ),
        ]
    );
    let trail = bed.body(number);
    let trail = trail
        .split("## Recently deployed")
        .nth(1)
        .expect("the trail");
    assert!(
        trail.contains("network") && trail.contains("alice"),
        "{trail}"
    );

    // Once: a later scan opens nothing more. Its pull-request list fails (twice, past
    // the client's retry): a warning, and the live lines stay as they were.
    let before = bed.body(number);
    for _ in 0..2 {
        bed.arm(
            "graphql OpenPullRequests",
            FaultKind::Status {
                status: 502,
                message: "Server Error".into(),
            },
        );
    }
    let later = job.run(&bed, "schedule", &merge_commit);
    assert_eq!(later.code, Some(0), "{}", later.log);
    assert!(
        later.log.contains("::warning::Open pull requests not read"),
        "{}",
        later.log
    );
    assert_eq!(records_of(&bed, "network").len(), 2);
    let waiting_line = |body: &str| {
        body.lines()
            .find(|l| l.contains("sluiceway:waiting"))
            .map(str::to_owned)
    };
    assert_eq!(waiting_line(&bed.body(number)), waiting_line(&before));
}
