//! Issues: the dashboard, its body, its comments.

use axum::Json;
use axum::extract::{Extension, OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::Value;

use super::{NumberPath, Paging, Reply, RepoPath, full, list_reply, paged, reply, with_world};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{Level, Refusal};

#[derive(Deserialize)]
pub(super) struct IssueFilter {
    labels: Option<String>,
    state: Option<String>,
    direction: Option<String>,
}

pub(super) async fn list_issues(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RepoPath>,
    OriginalUri(uri): OriginalUri,
    Query(paging): Query<Paging>,
    Query(filter): Query<IssueFilter>,
) -> Reply {
    caller.require("issues", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let urls = shared.urls(repo);
    let wanted: Vec<&str> = filter
        .labels
        .as_deref()
        .map(|l| l.split(',').collect())
        .unwrap_or_default();
    let state = filter.state.as_deref().unwrap_or("open");
    let mut issues: Vec<_> = repo
        .issues
        .values()
        .filter(|i| match state {
            "all" => true,
            "closed" => !i.open,
            _ => i.open,
        })
        .filter(|i| {
            wanted
                .iter()
                .all(|w| i.labels.iter().any(|l| l.eq_ignore_ascii_case(w.trim())))
        })
        .collect();
    issues.sort_by_key(|i| (i.created_at, i.number));
    if filter.direction.as_deref() != Some("asc") {
        issues.reverse();
    }
    let items = issues
        .into_iter()
        .map(|i| shapes::issue(&world, &urls, i))
        .collect();
    let (page, headers) = paged(&uri, &paging, items, shared.base());
    list_reply(headers, Value::Array(page))
}

#[derive(Deserialize)]
pub(super) struct NewIssue {
    title: Value,
    body: Option<String>,
    #[serde(default)]
    labels: Vec<Value>,
}

pub(super) async fn create_issue(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RepoPath>,
    Json(new): Json<NewIssue>,
) -> Reply {
    caller.require("issues", Level::Write)?;
    let title = match &new.title {
        Value::String(t) if !t.trim().is_empty() => t.clone(),
        Value::Number(n) => n.to_string(),
        _ => return Err(Refusal::new(422, "Validation Failed: title is missing")),
    };
    let labels = new
        .labels
        .iter()
        .filter_map(|l| {
            l.as_str()
                .map(str::to_owned)
                .or_else(|| l.get("name")?.as_str().map(str::to_owned))
        })
        .collect();
    let repo = full(&p.owner, &p.repo);
    let number = with_world(&shared, |w| {
        w.create_issue(
            &repo,
            &caller.login,
            &title,
            new.body.as_deref().unwrap_or(""),
            labels,
        )
    })?;
    issue_reply(&shared, &repo, number, StatusCode::CREATED)
}

fn issue_reply(shared: &Shared, repo: &str, number: u64, status: StatusCode) -> Reply {
    let world = shared.read();
    let repo = world.repo(repo)?;
    let issue = repo.issues.get(&number).ok_or_else(Refusal::not_found)?;
    reply(status, shapes::issue(&world, &shared.urls(repo), issue))
}

pub(super) async fn get_issue(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
) -> Reply {
    caller.require("issues", Level::Read)?;
    issue_reply(&shared, &full(&p.owner, &p.repo), p.number, StatusCode::OK)
}

#[derive(Deserialize)]
pub(super) struct IssueUpdate {
    title: Option<String>,
    body: Option<String>,
    state: Option<String>,
}

pub(super) async fn update_issue(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
    Json(update): Json<IssueUpdate>,
) -> Reply {
    caller.require("issues", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    with_world(&shared, |w| {
        w.issue(&repo, p.number)?;
        if let Some(body) = &update.body {
            w.edit_body(&repo, p.number, &caller.login, body)?;
        }
        let at = w.tick();
        let issue = w.issue_mut(&repo, p.number)?;
        if let Some(title) = &update.title {
            issue.title = title.clone();
        }
        match update.state.as_deref() {
            Some("open") => {
                issue.open = true;
                issue.closed_at = None;
            }
            Some("closed") => {
                issue.open = false;
                issue.closed_at = Some(at);
            }
            Some(_) => {
                return Err(Refusal::new(
                    422,
                    "Validation Failed: state is not open or closed",
                ));
            }
            None => {}
        }
        issue.updated_at = at;
        Ok(())
    })?;
    issue_reply(&shared, &repo, p.number, StatusCode::OK)
}

pub(super) async fn list_comments(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
    OriginalUri(uri): OriginalUri,
    Query(paging): Query<Paging>,
) -> Reply {
    caller.require("issues", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let issue = repo.issues.get(&p.number).ok_or_else(Refusal::not_found)?;
    let urls = shared.urls(repo);
    let items = issue
        .comments
        .iter()
        .map(|c| shapes::comment(&world, &urls, p.number, c))
        .collect();
    let (page, headers) = paged(&uri, &paging, items, shared.base());
    list_reply(headers, Value::Array(page))
}

#[derive(Deserialize)]
pub(super) struct Body {
    body: String,
}

pub(super) async fn create_comment(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
    Json(new): Json<Body>,
) -> Reply {
    caller.require("issues", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    let id = with_world(&shared, |w| {
        let at = w.tick();
        let id = w.id();
        w.issue_mut(&repo, p.number)?
            .comments
            .push(crate::world::Comment {
                id,
                author: caller.login.clone(),
                body: new.body.clone(),
                at,
            });
        Ok(id)
    })?;
    let world = shared.read();
    let repo = world.repo(&repo)?;
    let comment = repo.issues[&p.number]
        .comments
        .iter()
        .find(|c| c.id == id)
        .ok_or_else(Refusal::not_found)?;
    reply(
        StatusCode::CREATED,
        shapes::comment(&world, &shared.urls(repo), p.number, comment),
    )
}
