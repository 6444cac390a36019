use jiff::Timestamp;
use sluiceway_dashboard::view::TrailResult;

use super::*;
use crate::facts::{DeployFacts, StatusFacts};
use crate::testing::{kept_repo, session, stack};

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn deploy(id: u64, stack: &str, ended: Option<Ended>, at_: &str) -> KeptDeploy {
    KeptDeploy {
        repo: "infra".into(),
        html_url: format!(
            "https://github.example/octo/infra/actions/runs/{}",
            500 + id
        ),
        facts: DeployFacts {
            id,
            stack: stack.into(),
            sha: "89abcdef0123456789abcdef0123456789abcdef".into(),
            ticker: "alice".into(),
            on_merge: false,
            drift: false,
            run: 500 + id,
            created_at: at(at_),
            status: Some(StatusFacts {
                state: if ended.is_some() {
                    "success"
                } else {
                    "in_progress"
                }
                .into(),
                at: at(at_),
                ended,
            }),
        },
    }
}

/// A repository with a row in every state the console keeps, and its deploys.
fn repo() -> (KeptRepo, Vec<KeptDeploy>) {
    let stacks = vec![
        StackFacts {
            creates: 2,
            updates: 1,
            deletes: 1,
            destroys: 1,
            ..stack("storage:prod", RowState::Pending)
        },
        StackFacts {
            changed: 1,
            gone: 1,
            ..stack("dns", RowState::Drift)
        },
        stack("queue", RowState::Deploying),
        StackFacts {
            busy: true,
            ..stack("locks", RowState::PreviewFailed)
        },
        StackFacts {
            failed: true,
            ..stack("<b>network</b>", RowState::InSync)
        },
    ];
    let deploys = vec![
        deploy(1, "queue", None, "2026-03-01T08:55:00Z"),
        deploy(
            2,
            "<b>network</b>",
            Some(Ended::Trail(TrailResult::Failed)),
            "2026-03-01T08:00:00Z",
        ),
        deploy(
            3,
            "storage:prod",
            Some(Ended::Trail(TrailResult::Deployed)),
            "2026-02-28T17:00:00Z",
        ),
    ];
    let repo = kept_repo("octo", "infra", "2026-03-01T09:00:00Z", stacks);
    (repo, deploys)
}

#[test]
fn the_dashboard_is_redrawn_by_the_action_s_renderer_as_redacted_rows() {
    let (repo, deploys) = repo();
    let body = sluiceway_dashboard::body::render(&redrawn(&repo, &deploys)).unwrap();
    insta::assert_snapshot!(body);
}

#[test]
fn the_redrawn_rows_read_back_as_the_kept_facts() {
    let (repo, deploys) = repo();
    let body = sluiceway_dashboard::body::render(&redrawn(&repo, &deploys)).unwrap();
    let read = crate::facts::Dashboard::read(&body).expect("the console reads its own redraw");
    let states: Vec<(String, RowState)> = read
        .stacks
        .iter()
        .map(|s| (s.stack.clone(), s.state))
        .collect();
    let kept: Vec<(String, RowState)> = repo
        .stacks
        .iter()
        .map(|s| (s.stack.clone(), s.state))
        .collect();
    let mut states = states;
    let mut kept = kept;
    states.sort();
    kept.sort();
    assert_eq!(states, kept);
    let prod = read
        .stacks
        .iter()
        .find(|s| s.stack == "storage:prod")
        .unwrap();
    assert_eq!(
        (prod.creates, prod.updates, prod.deletes, prod.destroys),
        (2, 1, 1, 1)
    );
}

#[test]
fn the_page_embeds_its_pictures_and_escapes_every_name() {
    let (repo, deploys) = repo();
    let session = session();
    let page = repo_body(&repo, &deploys, &session).unwrap().into_string();
    assert!(page.contains(r#"<input type="hidden" name="form_token" value="form-token">"#));
    assert!(!page.contains(PICTURES), "the pictures are embedded");
    assert!(!page.contains("<b>network</b>"), "{page}");
    assert!(page.contains("The dashboard on GitHub"));
}
