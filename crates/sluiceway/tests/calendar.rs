//! When a deploy may happen, end to end: the real binary as an Actions job runs it, the
//! emulator, and the real `tofu`. A freeze stops a writer's tick and the dashboard names
//! it; a tick outside every window opens a record that waits, and a scheduled run in the
//! window deploys it exactly once; apply never deploys a waiting record; a job whose
//! earlier step failed deploys nothing; a record a `recordWriters` login opened outside
//! the dashboard deploys in a scheduled run, and one anyone else opened never does.
//! Times come from the machine's clock, so every configuration is written around "now",
//! in a dashboard zone pinned where "now" is midday and clocks never change (`zone`): a
//! test that starts at 23:59, or on the night of a DST change, judges the same days and
//! hours as one that starts at noon. The binary takes no clock from outside (a freeze a
//! workflow could move by an environment variable would not be a freeze).

mod support;

use github_emulator::Act;
use github_emulator::world::{AccountKind, Role};
use jiff::Timestamp;
use jiff::civil::Weekday;
use jiff::tz::TimeZone;
use sluiceway_dashboard::reader;
use sluiceway_github::{
    Endpoints, GitHub, HttpGitHub, NewDeploymentRecord, NewDeploymentStatus, RecordState,
};
use support::job::*;
use support::{Bed, REPO, tofu_dir};

/// The dashboard's zone: a fixed offset from UTC (an `Etc/GMT` zone, which has no DST)
/// at which it is between 12:00 and 13:00 now, so the day cannot turn during a test.
fn zone() -> String {
    let hour = i64::from(Timestamp::now().to_zoned_datetime(TimeZone::UTC).hour());
    // `Etc/GMT-N` is N hours *ahead* of UTC (POSIX's sign); UTC-11 to UTC+12 exist.
    match 12 - hour {
        0 => "Etc/GMT".to_owned(),
        ahead if ahead > 0 => format!("Etc/GMT-{ahead}"),
        behind => format!("Etc/GMT+{}", -behind),
    }
}

/// The pinned zone's offset as a row writes it (`+05:00`, `-04:00`): a fixed-offset zone,
/// so the same on every day.
fn offset_of_zone() -> String {
    let seconds = TimeZone::get(&zone())
        .unwrap()
        .to_offset(Timestamp::now())
        .seconds();
    let sign = if seconds < 0 { '-' } else { '+' };
    format!(
        "{sign}{:02}:{:02}",
        seconds.abs() / 3600,
        seconds.abs() % 3600 / 60
    )
}

#[test]
fn the_pinned_zone_puts_now_at_midday() {
    let local = Timestamp::now().to_zoned_datetime(TimeZone::get(&zone()).unwrap());
    // 13 when the hour turned between the two readings of the clock.
    assert!(matches!(local.hour(), 12 | 13), "{local}");
}

fn path() -> String {
    format!("{}:/usr/bin:/bin", tofu_dir().display())
}

/// Writes the checkout's `sluiceway.yaml` as the example's with `text` at the top, the
/// dashboard in the pinned `zone`.
fn configure(job: &Job, text: &str) {
    let example = support::workspace().join("examples/quickstart/sluiceway.yaml");
    let config = std::fs::read_to_string(example).unwrap().replace(
        "dashboard:\n  title: Quickstart deploys\n",
        &format!(
            "dashboard:\n  title: Quickstart deploys\n  timeZone: {}\n{text}",
            zone()
        ),
    );
    std::fs::write(job.file("sluiceway.yaml"), config).unwrap();
}

/// The day `days` after today in the dashboard's zone, as `sluiceway.yaml` names it.
fn weekday_in(days: i64) -> &'static str {
    let today = Timestamp::now()
        .to_zoned_datetime(TimeZone::get(&zone()).unwrap())
        .date();
    let day = today
        .checked_add(jiff::Span::new().days(days))
        .unwrap()
        .weekday();
    match day {
        Weekday::Monday => "monday",
        Weekday::Tuesday => "tuesday",
        Weekday::Wednesday => "wednesday",
        Weekday::Thursday => "thursday",
        Weekday::Friday => "friday",
        Weekday::Saturday => "saturday",
        Weekday::Sunday => "sunday",
    }
}

/// `YYYY-MM-DDTHH:MM` in the dashboard's zone, `hours` from now.
fn wall_in(hours: i64) -> String {
    Timestamp::now()
        .checked_add(jiff::SignedDuration::from_hours(hours))
        .unwrap()
        .to_zoned_datetime(TimeZone::get(&zone()).unwrap())
        .strftime("%Y-%m-%dT%H:%M")
        .to_string()
}

fn scanned(bed: &Bed, job: &Job) -> (String, u64) {
    let sha = push(bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    (sha, dashboard(bed))
}

fn records_of(bed: &Bed, stack: &str) -> Vec<(RecordState, String, serde_json::Value)> {
    let mut records: Vec<_> = bed
        .github
        .deployment_records("sluiceway")
        .unwrap()
        .records
        .into_iter()
        .filter(|r| r.task == format!("sluiceway:{stack}"))
        .collect();
    records.sort_by_key(|r| r.id);
    records
        .into_iter()
        .map(|r| {
            let status = r.latest_status.unwrap();
            (status.state, status.description, r.payload)
        })
        .collect()
}

fn deployed(job: &Job) -> bool {
    job.file("network/terraform.tfstate").exists()
}

#[test]
fn a_freeze_in_force_stops_a_writers_tick_and_the_dashboard_names_it() {
    let bed = Bed::new();
    let mut job = Job::new();
    configure(
        &job,
        &format!(
            "freezes:\n  - from: \"{}\"\n    to: \"{}\"\n    reason: the year-end freeze\n",
            wall_in(-24),
            wall_in(24)
        ),
    );
    let (sha, number) = scanned(&bed, &job);
    let body = bed.body(number);
    assert!(
        body.contains("Nothing deploys from") && body.contains("the year-end freeze"),
        "the scan names the freeze under its line: {body}"
    );
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(records_of(&bed, "network").is_empty(), "no record opened");
    assert!(!deployed(&job), "nothing deployed");
    assert!(
        ran.log
            .contains("network: a deploy freeze is on, so the tick started nothing"),
        "{}",
        ran.log
    );
    let body = bed.body(number);
    let row = &blocks(&body)["network"];
    assert!(row.starts_with("- [ ] "), "the box was cleared: {row}");
    assert!(
        row.contains("a deploy freeze (the year-end freeze) is on until")
            && row.contains("Tick it again after the freeze."),
        "the ticker is told on the row: {row}"
    );
    assert!(
        body.contains("the year-end freeze"),
        "the freeze line stays after the tick's write: {body}"
    );
}

#[test]
fn a_freeze_a_few_days_off_is_named_and_stops_nothing_yet() {
    let bed = Bed::new();
    let mut job = Job::new();
    configure(
        &job,
        &format!(
            "freezes:\n  - from: \"{}\"\n    to: \"{}\"\n",
            wall_in(72),
            wall_in(96)
        ),
    );
    let (sha, number) = scanned(&bed, &job);
    assert!(
        bed.body(number).contains("Nothing deploys from"),
        "the week before, the dashboard says it is coming"
    );
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(deployed(&job), "{}", ran.log);
}

#[test]
fn a_tick_outside_every_window_waits_and_a_scheduled_run_in_the_window_deploys_it_once() {
    let bed = Bed::new();
    let mut job = Job::new();
    let elsewhere = weekday_in(3);
    configure(
        &job,
        &format!(
            "deployWindows:\n  - days: [{elsewhere}]\n    from: \"09:00\"\n    to: \"17:00\"\n"
        ),
    );
    let (sha, number) = scanned(&bed, &job);
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(!deployed(&job), "nothing deploys outside the window");
    assert_eq!(ran.outputs["matrix"], "[]", "nothing handed on");
    let records = records_of(&bed, "network");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0].0, RecordState::Queued);
    assert_eq!(records[0].2["window"], true);
    assert_eq!(records[0].2["ticker"], "alice");
    let row = blocks(&bed.body(number))["network"].clone();
    assert!(
        row.contains("queued for the deploy window, which opens ")
            && row.contains(&format!(" 09:00 {}", offset_of_zone()))
            && row.contains("ticked by alice"),
        "the row says when, with the offset: {row}"
    );
    assert!(
        !row.starts_with("- [ ]") && !row.starts_with("- [x]"),
        "no box: {row}"
    );

    // Apply never deploys a record that waits.
    let id = bed.github.deployment_records("sluiceway").unwrap().records[0]
        .id
        .to_string();
    let refused = job.run_with(
        &bed,
        "issues",
        &sha,
        &path(),
        &[("mode", "apply"), ("deployment-id", &id)],
    );
    assert_eq!(refused.code, Some(1), "{}", refused.log);
    assert!(
        refused.log.contains("waits for its stack's deploy window"),
        "{}",
        refused.log
    );
    assert!(!deployed(&job));

    // A scheduled run while the window is still closed leaves it waiting.
    job.env.push(("GITHUB_RUN_ID".into(), "4243".into()));
    job.payload = Some(r#"{"repository":{"default_branch":"main"}}"#.into());
    let closed = job.run_with(&bed, "schedule", &sha, &path(), &[("mode", "")]);
    assert_eq!(closed.code, Some(0), "{}", closed.log);
    assert!(!deployed(&job), "{}", closed.log);
    assert_eq!(records_of(&bed, "network").len(), 1);

    // The window now includes this moment: the next scheduled run deploys it, once.
    configure(
        &job,
        "deployWindows:\n  - days: [monday, tuesday, wednesday, thursday, friday, saturday, sunday]\n    from: \"00:00\"\n    to: \"24:00\"\n",
    );
    job.env.push(("GITHUB_RUN_ID".into(), "4244".into()));
    let open = job.run_with(&bed, "schedule", &sha, &path(), &[("mode", "")]);
    assert_eq!(open.code, Some(0), "{}", open.log);
    assert!(deployed(&job), "{}", open.log);
    assert!(open.log.contains("network: deployed."), "{}", open.log);
    let records = records_of(&bed, "network");
    let states: Vec<(RecordState, &str)> = records.iter().map(|r| (r.0, r.1.as_str())).collect();
    assert_eq!(
        states,
        [
            (RecordState::Inactive, "started in a later run"),
            (RecordState::Success, "deployed"),
        ]
    );
    assert_eq!(records[1].2["ticker"], "alice", "credited to the ticker");
    assert_eq!(records[1].2.get("window"), None);

    // And never again.
    job.env.push(("GITHUB_RUN_ID".into(), "4245".into()));
    let again = job.run_with(&bed, "schedule", &sha, &path(), &[("mode", "")]);
    assert_eq!(again.code, Some(0), "{}", again.log);
    assert_eq!(records_of(&bed, "network").len(), 2, "{}", again.log);
    let row = blocks(&bed.body(number))["network"].clone();
    assert!(row.contains("state=\"in-sync\""), "{row}");
}

#[test]
fn a_stacks_own_empty_window_list_means_any_time() {
    let bed = Bed::new();
    let mut job = Job::new();
    configure(
        &job,
        &format!(
            "deployWindows:\n  - days: [{}]\n    from: \"09:00\"\n    to: \"17:00\"\n",
            weekday_in(3)
        ),
    );
    let file = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "  - path: network\n    tool: opentofu\n",
        "  - path: network\n    tool: opentofu\n    deployWindows: []\n",
    );
    std::fs::write(&file, text).unwrap();
    let (sha, number) = scanned(&bed, &job);
    tick(&bed, number, "alice", "network");
    let ran = on_edit(&bed, &mut job, &sha, number, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(deployed(&job), "{}", ran.log);
}

#[test]
fn a_failed_earlier_step_on_the_dashboards_edit_deploys_nothing() {
    let bed = Bed::new();
    let mut job = Job::new();
    configure(&job, "");
    let file = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&file)
        .unwrap()
        .replace("  timeZone:", "  label: deploys\n  timeZone:");
    std::fs::write(&file, text).unwrap();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = bed.github.open_issues_labelled("deploys").unwrap()[0].number;
    tick(&bed, number, "alice", "network");
    let mut event: serde_json::Value = serde_json::from_str(&edit_event(&bed, number)).unwrap();
    event["issue"]["labels"] = serde_json::json!([{ "name": "deploys" }]);
    job.payload = Some(event.to_string());
    let failed = job.run_with(
        &bed,
        "issues",
        &sha,
        &path(),
        &[("mode", ""), ("job-status", "failure")],
    );
    assert_eq!(failed.code, Some(0), "{}", failed.log);
    assert!(records_of(&bed, "network").is_empty());
    assert!(!deployed(&job));
    assert_eq!(failed.outputs["matrix"], "[]");
    let body = bed.body(number);
    assert!(
        body.contains("The last run failed before Sluiceway ran"),
        "said on the dashboard the configuration labels: {body}"
    );
    assert!(
        reader::read(&body).rows.iter().any(|r| r.ticked),
        "the tick stays for a run that can act on it"
    );
}

/// `login`'s own client, with a token of its own.
fn client_of(bed: &Bed, login: &str, kind: AccountKind) -> HttpGitHub {
    let token = format!("token-of-{login}");
    for act in [
        Act::AddAccount {
            login: login.into(),
            kind,
        },
        Act::AddCollaborator {
            repo: REPO.into(),
            login: login.into(),
            role: Role::Write,
        },
        Act::AddToken {
            token: token.clone(),
            login: login.into(),
            permissions: None,
        },
    ] {
        bed.emulator.act(act).unwrap();
    }
    HttpGitHub::new(
        Endpoints::at(&bed.emulator.base_url()).unwrap(),
        &token,
        REPO,
    )
}

/// The hash and value fingerprint the row of `network` shows, as a writer copies them.
fn row_facts(bed: &Bed, number: u64) -> (String, String) {
    let body = bed.body(number);
    let facts = reader::read(&body)
        .rows
        .into_iter()
        .find(|r| r.facts.stack == "network")
        .expect("the row")
        .facts;
    (
        facts.hash.expect("pending, with a hash"),
        facts.fingerprint.expect("with the values it covers"),
    )
}

/// A record of `network` at `shown` (a row's hash and fingerprint), opened with
/// `github` outside the dashboard and marked queued, as a deploy bot would.
fn opened_outside(
    github: &HttpGitHub,
    sha: &str,
    (hash, fingerprint): &(String, String),
    ticker: &str,
) -> u64 {
    let record = github
        .create_deployment_record(&NewDeploymentRecord {
            sha: sha.into(),
            task: "sluiceway:network".into(),
            environment: "sluiceway".into(),
            payload: serde_json::json!({
                "v": 1, "hash": hash, "fingerprint": fingerprint, "ticker": ticker, "run": "0"
            }),
            description: "deploy from the console".into(),
        })
        .unwrap();
    github
        .set_deployment_status(
            record.id,
            &NewDeploymentStatus {
                state: RecordState::Queued,
                description: "asked for from the console".into(),
                log_url: None,
            },
        )
        .unwrap();
    record.id
}

#[test]
fn a_record_writers_record_deploys_in_a_scheduled_run_and_a_strangers_never_does() {
    let bed = Bed::new();
    let mut job = Job::new();
    configure(&job, "recordWriters: [\"deploy-bot[bot]\"]\n");
    let (sha, number) = scanned(&bed, &job);
    let shown = row_facts(&bed, number);
    job.payload = Some(r#"{"repository":{"default_branch":"main"}}"#.into());

    // mallory may write to the repository, but recordWriters does not name her.
    let mallory = client_of(&bed, "mallory", AccountKind::User);
    let strangers = opened_outside(&mallory, &sha, &shown, "alice");
    job.env.push(("GITHUB_RUN_ID".into(), "5101".into()));
    let ran = job.run_with(&bed, "schedule", &sha, &path(), &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        !deployed(&job),
        "a stranger's record deploys nothing: {}",
        ran.log
    );
    assert!(
        ran.log.contains(&format!(
            "network: record {strangers} was opened by mallory, whom recordWriters does not name, so it was ended"
        )),
        "{}",
        ran.log
    );
    let records = records_of(&bed, "network");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(
        (records[0].0, records[0].1.as_str()),
        (
            RecordState::Failure,
            "opened outside the dashboard by an account recordWriters does not name"
        )
    );
    let body = bed.body(number);
    assert!(
        !body.contains("alice") && blocks(&body)["network"].contains("state=\"pending\""),
        "a record nobody trusted is no deploy of the trail: {body}"
    );

    // The writer's record, at the same hash, deploys after the hash check.
    let bot = client_of(&bed, "deploy-bot[bot]", AccountKind::Bot);
    let writers = opened_outside(&bot, &sha, &shown, "carol");
    job.env.push(("GITHUB_RUN_ID".into(), "5102".into()));
    let ran = job.run_with(&bed, "schedule", &sha, &path(), &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(deployed(&job), "{}", ran.log);
    assert!(
        ran.log.contains(&format!(
            "network: deploy-bot[bot], a record writer, opened record {writers} outside the dashboard, so its deploy starts now."
        )) && ran.log.contains("network: deployed."),
        "{}",
        ran.log
    );
    let records = records_of(&bed, "network");
    let states: Vec<(RecordState, &str)> = records.iter().map(|r| (r.0, r.1.as_str())).collect();
    assert_eq!(
        &states[1..],
        [
            (RecordState::Inactive, "started in a later run"),
            (RecordState::Success, "deployed"),
        ]
    );
    assert_eq!(
        records[2].2["ticker"], "carol",
        "credited as the writer asked"
    );
    assert_eq!(records[2].2["run"], "5102");
    let issue = &bed.github.open_issues_labelled("sluiceway").unwrap()[0];
    assert_eq!(
        ran.outputs["dashboard-url"], issue.html_url,
        "a scheduled run finds the dashboard by its label and says where it is"
    );
}

#[test]
fn a_record_writers_record_at_another_hash_deploys_nothing() {
    let bed = Bed::new();
    let mut job = Job::new();
    configure(&job, "recordWriters: [\"deploy-bot[bot]\"]\n");
    let (sha, number) = scanned(&bed, &job);
    let (_, fingerprint) = row_facts(&bed, number);
    job.payload = Some(r#"{"repository":{"default_branch":"main"}}"#.into());
    let bot = client_of(&bed, "deploy-bot[bot]", AccountKind::Bot);
    opened_outside(
        &bot,
        &sha,
        &("0123456789abcdef".to_owned(), fingerprint),
        "carol",
    );
    let ran = job.run_with(&bed, "schedule", &sha, &path(), &[("mode", "")]);
    assert!(!deployed(&job), "{}", ran.log);
    let records = records_of(&bed, "network");
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(
        (records[1].0, records[1].1.as_str()),
        (RecordState::Error, "the change moved since the tick")
    );
}

/// The checkout's `sluiceway.yaml` with `deploy: on-merge` on network.
fn network_deploys_on_merge(job: &Job) {
    configure(job, "");
    let file = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "  - path: network\n    tool: opentofu\n",
        "  - path: network\n    tool: opentofu\n    deploy: on-merge\n",
    );
    std::fs::write(&file, text).unwrap();
}

#[test]
fn a_stack_that_deploys_on_merge_deploys_on_the_push_for_the_pusher_and_a_delete_waits_for_a_tick()
{
    let bed = Bed::new();
    let mut job = Job::new();
    network_deploys_on_merge(&job);
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    job.payload = Some(pushed_by("alice"));
    let ran = job.run_with(&bed, "push", &sha, &path(), &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(deployed(&job), "{}", ran.log);
    assert!(
        ran.log
            .contains("network: it deploys on merge, merged by alice, so its deploy starts now.")
            && ran.log.contains("network: deployed."),
        "{}",
        ran.log
    );
    let records = records_of(&bed, "network");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(
        (records[0].0, records[0].1.as_str()),
        (RecordState::Success, "deployed")
    );
    assert_eq!(records[0].2["onMerge"], true);
    assert_eq!(records[0].2["ticker"], "alice");
    assert!(
        ran.outputs["matrix"].contains("\"stack\":\"network\""),
        "{:?}",
        ran.outputs
    );
    assert!(
        records_of(&bed, "storage:dev").is_empty(),
        "a stack that deploys on a tick waits for one"
    );
    let body = bed.body(dashboard(&bed));
    assert!(
        body.contains(" · merged by alice · "),
        "the trail says who merged: {body}"
    );

    // A change that deletes a resource waits for a tick, and the row says why.
    drop_the_subnets(&job);
    let sha = push(&bed, "drop the subnets", &["network/main.tf"]);
    job.payload = Some(pushed_by("bob"));
    let ran = job.run_with(&bed, "push", &sha, &path(), &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(records_of(&bed, "network").len(), 1, "{}", ran.log);
    assert_eq!(ran.outputs["matrix"], "[]");
    let row = blocks(&bed.body(dashboard(&bed)))["network"].clone();
    assert!(
        row.starts_with("- [ ] ")
            && row.contains("state=\"pending\"")
            && row.contains("this stack deploys on merge, and this change waits for a tick: it deletes or replaces a resource."),
        "{row}"
    );
}

#[test]
fn in_a_split_workflow_the_merges_scan_opens_the_record_and_hands_it_to_apply() {
    let bed = Bed::new();
    let mut job = Job::new();
    network_deploys_on_merge(&job);
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    job.payload = Some(pushed_by("renovate[bot]"));
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(!deployed(&job), "the scan itself deploys nothing");
    let records = records_of(&bed, "network");
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(
        (records[0].0, records[0].1.as_str()),
        (RecordState::Queued, "merged by renovate[bot]")
    );
    let row = blocks(&bed.body(dashboard(&bed)))["network"].clone();
    assert!(
        row.contains("deploying on merge · merged by renovate&#91;bot&#93;"),
        "{row}"
    );
    let id = bed.github.deployment_records("sluiceway").unwrap().records[0].id;
    assert_eq!(
        ran.outputs["matrix"],
        format!("[{{\"deployment\":{id},\"environment\":\"sluiceway\",\"stack\":\"network\"}}]")
    );
    let applied = job.run_with(
        &bed,
        "push",
        &sha,
        &path(),
        &[("mode", "apply"), ("deployment-id", &id.to_string())],
    );
    assert_eq!(applied.code, Some(0), "{}", applied.log);
    assert!(deployed(&job));

    // A push without a sender, or to another branch, deploys nothing on merge.
    let sha = push(&bed, "the second commit", &["network/main.tf"]);
    job.payload =
        Some(r#"{"ref":"refs/heads/main","repository":{"default_branch":"main"}}"#.into());
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(records_of(&bed, "network").len(), 1);
}

#[test]
fn a_merges_change_that_moved_before_its_deploy_deploys_nothing_and_the_merger_is_told_once() {
    let bed = Bed::new();
    let mut job = Job::new();
    network_deploys_on_merge(&job);
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    job.payload = Some(pushed_by("alice"));
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let id = bed.github.deployment_records("sluiceway").unwrap().records[0].id;

    // The code under the record moves before its apply job runs: one resource fewer.
    drop_the_subnets(&job);
    let applied = job.run_with(
        &bed,
        "push",
        &sha,
        &path(),
        &[("mode", "apply"), ("deployment-id", &id.to_string())],
    );
    assert!(!deployed(&job), "{}", applied.log);
    let records = records_of(&bed, "network");
    assert_eq!(
        (records[0].0, records[0].1.as_str()),
        (RecordState::Error, "the change moved since the tick")
    );
    let number = dashboard(&bed);
    let world = bed.emulator.world();
    let comments: Vec<&str> = world.repo(REPO).unwrap().issues[&number]
        .comments
        .iter()
        .map(|c| c.body.as_str())
        .collect();
    assert_eq!(
        comments,
        [
            "@alice merged a change that **network** deploys on merge, and the change moved before the deploy, so nothing was deployed. The row on the dashboard shows the change as it is now. Tick it to deploy that."
        ]
    );
}

#[test]
fn with_deploys_turned_off_a_merge_deploys_nothing_and_the_row_says_so() {
    let bed = Bed::new();
    let mut job = Job::new();
    network_deploys_on_merge(&job);
    let file = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, format!("deploys: false\n{text}")).unwrap();
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    job.payload = Some(pushed_by("alice"));
    let ran = job.run_with(&bed, "push", &sha, &path(), &[("mode", "")]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(!deployed(&job));
    assert!(records_of(&bed, "network").is_empty());
    let row = blocks(&bed.body(dashboard(&bed)))["network"].clone();
    assert!(
        row.contains("this stack deploys on merge, and deploys are turned off in sluiceway.yaml."),
        "{row}"
    );
}

#[test]
fn a_merge_waits_on_a_dependency_with_a_change_of_its_own_and_queues_behind_one_deploying() {
    let bed = Bed::new();
    let mut job = Job::new();
    configure(&job, "");
    let file = job.file("sluiceway.yaml");
    let text = std::fs::read_to_string(&file).unwrap().replace(
        "    name: dev\n    tool: opentofu\n",
        "    name: dev\n    tool: opentofu\n    deploy: on-merge\n    dependsOn: [network]\n",
    );
    std::fs::write(&file, &text).unwrap();
    let sha = push(
        &bed,
        "the first commit",
        &["network/main.tf", "storage/main.tf"],
    );
    job.payload = Some(pushed_by("alice"));
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(records_of(&bed, "storage:dev").is_empty(), "{}", ran.log);
    let row = blocks(&bed.body(dashboard(&bed)))["storage:dev"].clone();
    assert!(
        row.contains("this stack deploys on merge, and this merge started nothing: it depends on network, which has a change waiting."),
        "network's unticked change holds it: {row}"
    );

    // Both deploying on merge: the dependent one is queued behind.
    std::fs::write(
        &file,
        text.replace(
            "  - path: network\n    tool: opentofu\n",
            "  - path: network\n    tool: opentofu\n    deploy: on-merge\n",
        ),
    )
    .unwrap();
    let sha = push(
        &bed,
        "the second commit",
        &["network/main.tf", "storage/main.tf"],
    );
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let queued = records_of(&bed, "storage:dev");
    assert_eq!(queued.len(), 1, "{}", ran.log);
    assert_eq!(queued[0].2["behind"], serde_json::json!(["network"]));
    assert_eq!(queued[0].2["onMerge"], true);
    let row = blocks(&bed.body(dashboard(&bed)))["storage:dev"].clone();
    assert!(
        row.contains("queued behind **network** · merged by alice"),
        "{row}"
    );
}
