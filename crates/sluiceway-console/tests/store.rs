//! The store on both its databases: a delivery applied once however often it arrives,
//! by one instance or by two sharing a PostgreSQL, tokens kept by their hash, and what
//! people asked the console for.

mod support;

use jiff::Timestamp;
use sluiceway_console::facts::{Dashboard, DeployFacts, Ended, Scan, StackFacts};
use sluiceway_console::store::{Applied, KeptAsked, KeptToken, RepoPlace, Store};
use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::view::TrailResult;
use support::Postgres;

fn place() -> RepoPlace {
    RepoPlace {
        org: "octo".into(),
        org_kind: "Organization".into(),
        name: "infra".into(),
        html_url: "https://github.example/octo/infra".into(),
        dashboard_number: 1,
        dashboard_url: "https://github.example/octo/infra/issues/1".into(),
    }
}

fn dashboard(sha: &str, states: &[(&str, RowState)]) -> Dashboard {
    Dashboard {
        scan: Scan {
            sha: sha.into(),
            run: 7,
            at: "2026-12-07T12:00:00Z".parse().unwrap(),
        },
        stacks: states
            .iter()
            .map(|(stack, state)| StackFacts {
                stack: (*stack).into(),
                state: *state,
                creates: 1,
                updates: 0,
                replaces: 0,
                deletes: 2,
                destroys: 2,
                tracking: 0,
                changed: 0,
                gone: 0,
                failed: false,
                busy: false,
                ticked: true,
            })
            .collect(),
    }
}

fn now() -> Timestamp {
    "2026-12-07T12:00:05Z".parse().unwrap()
}

async fn a_delivery_is_applied_once(store: &Store) {
    let first = dashboard(
        "a1",
        &[
            ("network", RowState::Pending),
            ("storage:dev", RowState::InSync),
        ],
    );
    let later = dashboard("b2", &[("network", RowState::Deploying)]);
    assert_eq!(
        store
            .apply_dashboard("d-1", "issues", now(), &place(), &first)
            .await
            .unwrap(),
        Applied::Now
    );
    assert_eq!(
        store
            .apply_dashboard("d-1", "issues", now(), &place(), &later)
            .await
            .unwrap(),
        Applied::Before,
        "the same delivery again changes nothing, whatever it holds"
    );
    let repos = store.repos("octo").await.unwrap();
    assert_eq!(repos.len(), 1);
    assert_eq!(repos[0].place, place());
    assert_eq!(repos[0].scan, first.scan);
    assert_eq!(repos[0].stacks, first.stacks);
    assert_eq!(
        store
            .apply_dashboard("d-2", "issues", now(), &place(), &later)
            .await
            .unwrap(),
        Applied::Now
    );
    let repos = store.repos("octo").await.unwrap();
    assert_eq!(
        repos[0].stacks, later.stacks,
        "a new delivery replaces the rows"
    );
    assert!(store.repos("another").await.unwrap().is_empty());
    assert_eq!(
        store.version("octo").await.unwrap(),
        2,
        "two deliveries changed the facts"
    );
    assert_eq!(store.version("another").await.unwrap(), 0);
    let one = store.repo("octo", "INFRA").await.unwrap().unwrap();
    assert_eq!(
        one,
        store.repos("octo").await.unwrap()[0],
        "a name is found whatever its case"
    );
    assert_eq!(store.repo("octo", "elsewhere").await.unwrap(), None);
    assert_eq!(
        store.note_delivery("d-2", "push", now()).await.unwrap(),
        Applied::Before
    );
    assert_eq!(
        store.note_delivery("d-3", "push", now()).await.unwrap(),
        Applied::Now
    );
}

async fn a_late_status_never_overwrites_a_newer_one(store: &Store) {
    let opened = DeployFacts::read(
        41,
        "sluiceway:network",
        &serde_json::json!({ "v": 1, "hash": "abc", "ticker": "alice", "run": "7" }),
        "a1",
        "2026-12-07T12:00:00Z".parse().unwrap(),
    )
    .unwrap();
    let at = |t: &str| t.parse::<Timestamp>().unwrap();
    let place = ("octo", "infra", "https://github.example/octo/infra");
    let done = opened
        .clone()
        .with_status("success", "deployed", at("2026-12-07T12:05:00Z"));
    let started = opened
        .clone()
        .with_status("in_progress", "", at("2026-12-07T12:01:00Z"));
    for (id, facts) in [("s-1", &done), ("s-2", &started), ("s-3", &opened)] {
        assert_eq!(
            store
                .apply_deploy(id, "deployment_status", now(), place, facts)
                .await
                .unwrap(),
            Applied::Now
        );
    }
    let kept = store
        .deploys("octo", Some("infra"), Some("network"))
        .await
        .unwrap();
    assert_eq!(kept.len(), 1);
    assert_eq!(
        kept[0].facts, done,
        "the newest status stands, whatever came after it"
    );
    assert_eq!(
        kept[0].facts.status.as_ref().unwrap().ended,
        Some(Ended::Trail(TrailResult::Deployed))
    );
    assert!(
        store
            .deploys("octo", None, Some("storage:dev"))
            .await
            .unwrap()
            .is_empty()
    );
}

async fn a_token_is_found_by_its_hash(store: &Store) {
    let token = KeptToken {
        org: "octo".into(),
        login: "alice".into(),
        name: "laptop".into(),
        expires_at: "2027-03-07T12:00:00Z".parse().unwrap(),
        revoked: false,
    };
    store.add_token("ab12", &token).await.unwrap();
    assert_eq!(store.token("ab12").await.unwrap(), Some(token));
    assert_eq!(store.token("cd34").await.unwrap(), None);
}

async fn what_people_asked_is_listed_newest_first(store: &Store) {
    let asked = |repo: &str, at: &str, words: &str| KeptAsked {
        repo: repo.into(),
        at: at.parse().unwrap(),
        who: "alice".into(),
        words: words.into(),
        link: (words != "asked for a full scan")
            .then(|| format!("https://github.example/octo/{repo}/pull/7")),
        via: "command line".into(),
    };
    let older = asked("infra", "2026-12-07T12:00:00Z", "asked for a full scan");
    let newer = asked(
        "apps",
        "2026-12-07T12:05:00Z",
        "opened pull request #7 to change 1 setting",
    );
    store.record_asked("octo", &older).await.unwrap();
    store.record_asked("octo", &newer).await.unwrap();
    assert_eq!(
        store.asked("octo", None).await.unwrap(),
        [newer.clone(), older.clone()]
    );
    assert_eq!(store.asked("octo", Some("INFRA")).await.unwrap(), [older]);
    assert!(store.asked("elsewhere", None).await.unwrap().is_empty());
}

async fn whether_record_writers_names_the_bot_is_kept_by_commit(store: &Store) {
    let version = store.version("octo").await.unwrap();
    store
        .set_record_writer("octo", "infra", "b1", false)
        .await
        .unwrap();
    store
        .set_record_writer("octo", "infra", "b2", true)
        .await
        .unwrap();
    let kept = store.repo("octo", "infra").await.unwrap().unwrap();
    assert_eq!(kept.record_writer, Some(("b2".to_owned(), true)));
    assert!(store.version("octo").await.unwrap() > version);
    // A dashboard written again keeps what was read of its settings.
    store
        .refresh_dashboard(
            &place(),
            &dashboard("b2", &[("network", RowState::Pending)]),
        )
        .await
        .unwrap();
    let kept = store.repo("octo", "infra").await.unwrap().unwrap();
    assert_eq!(kept.record_writer, Some(("b2".to_owned(), true)));
}

#[tokio::test]
async fn sqlite_keeps_facts_and_applies_each_delivery_once() {
    let folder = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", folder.path().join("console.db").display());
    let store = Store::open(&url).await.unwrap();
    a_delivery_is_applied_once(&store).await;
    a_late_status_never_overwrites_a_newer_one(&store).await;
    a_token_is_found_by_its_hash(&store).await;
    what_people_asked_is_listed_newest_first(&store).await;
    whether_record_writers_names_the_bot_is_kept_by_commit(&store).await;
    drop(store);
    let reopened = Store::open(&url).await.unwrap();
    assert_eq!(
        reopened.repos("octo").await.unwrap()[0].scan.sha,
        "b2",
        "a restart keeps what was learnt, and the schema is not made twice"
    );
}

#[tokio::test]
async fn postgresql_keeps_facts_and_applies_each_delivery_once() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let store = Store::open(&postgres.database("facts")).await.unwrap();
    a_delivery_is_applied_once(&store).await;
    a_late_status_never_overwrites_a_newer_one(&store).await;
    a_token_is_found_by_its_hash(&store).await;
    what_people_asked_is_listed_newest_first(&store).await;
    whether_record_writers_names_the_bot_is_kept_by_commit(&store).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_one_postgresql_apply_a_delivery_once() {
    let Some(postgres) = Postgres::start() else {
        return;
    };
    let url = postgres.database("shared");
    // Two instances start at once: the schema is made once, under the migrator's lock.
    let (one, two) = tokio::join!(Store::open(&url), Store::open(&url));
    let (one, two) = (one.unwrap(), two.unwrap());
    for round in 0..20 {
        let id = format!("delivery-{round}");
        let facts = dashboard(&format!("sha-{round}"), &[("network", RowState::Pending)]);
        let place = place();
        let (a, b) = tokio::join!(
            one.apply_dashboard(&id, "issues", now(), &place, &facts),
            two.apply_dashboard(&id, "issues", now(), &place, &facts),
        );
        let mut applied = [a.unwrap(), b.unwrap()];
        applied.sort_by_key(|a| *a == Applied::Before);
        assert_eq!(applied, [Applied::Now, Applied::Before], "round {round}");
    }
    assert_eq!(one.repos("octo").await.unwrap()[0].scan.sha, "sha-19");
}
