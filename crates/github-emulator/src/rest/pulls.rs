//! Pull requests: listed, opened and merged.

use axum::Json;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::json;

use super::{NumberPath, Reply, RepoPath, full, list_reply, reply, with_world};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{Level, Refusal};

#[derive(Deserialize)]
pub(super) struct Merge {
    sha: Option<String>,
    merge_method: Option<String>,
}

pub(super) async fn merge_pull(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
    Json(merge): Json<Merge>,
) -> Reply {
    caller.require("contents", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    let sha = with_world(&shared, |w| {
        w.merge_pull(
            &repo,
            p.number,
            merge.sha.as_deref(),
            merge.merge_method.as_deref(),
        )
    })?;
    reply(
        StatusCode::OK,
        json!({ "sha": sha, "merged": true, "message": "Pull Request successfully merged" }),
    )
}

#[derive(Deserialize)]
pub(super) struct ListQuery {
    state: Option<String>,
    /// `owner:branch`.
    head: Option<String>,
    base: Option<String>,
}

pub(super) async fn list_pulls(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RepoPath>,
    axum::extract::Query(q): axum::extract::Query<ListQuery>,
    headers: axum::http::HeaderMap,
) -> Reply {
    caller.require("pull-requests", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let head = q
        .head
        .as_deref()
        .map(|h| h.split_once(':').map_or(h, |(_, b)| b));
    let state = q.state.as_deref().unwrap_or("open");
    let pulls: Vec<_> = repo
        .pulls
        .values()
        .rev()
        .filter(|pull| match state {
            "open" => pull.open,
            "closed" => !pull.open,
            _ => true,
        })
        .filter(|pull| head.is_none_or(|h| pull.head_branch == h))
        .filter(|pull| q.base.as_deref().is_none_or(|b| pull.base == b))
        .map(|pull| shapes::pull_request(&world, &shared.urls(repo), pull, None))
        .collect();
    list_reply(headers, json!(pulls))
}

#[derive(Deserialize)]
pub(super) struct NewPull {
    title: String,
    head: String,
    base: String,
}

pub(super) async fn create_pull(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RepoPath>,
    Json(new): Json<NewPull>,
) -> Reply {
    caller.require("pull-requests", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    let head = new
        .head
        .split_once(':')
        .map_or(new.head.as_str(), |(_, b)| b);
    let number = with_world(&shared, |w| {
        w.create_pull(&repo, &caller.login, &new.title, head, &new.base)
    })?;
    let world = shared.read();
    let found = world.repo(&repo)?;
    let pull = found.pulls.get(&number).ok_or_else(Refusal::not_found)?;
    reply(
        StatusCode::CREATED,
        shapes::pull_request(&world, &shared.urls(found), pull, None),
    )
}
