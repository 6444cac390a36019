//! Workflows: dispatches and runs.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::{Extension, OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{NumberPath, Paging, RefPath, Reply, full, list_reply, paged, reply, with_world};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{Level, Refusal, Run};

#[derive(Deserialize)]
pub(super) struct Dispatch {
    #[serde(rename = "ref")]
    git_ref: String,
    #[serde(default)]
    inputs: BTreeMap<String, Value>,
    #[serde(default)]
    return_run_details: bool,
}

fn workflow_file(repo: &crate::world::Repo, id_or_file: &str) -> Option<String> {
    repo.workflows
        .iter()
        .find(|(file, id)| file.as_str() == id_or_file || id.to_string() == id_or_file)
        .map(|(file, _)| file.clone())
}

pub(super) async fn dispatch_workflow(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RefPath>,
    Json(dispatch): Json<Dispatch>,
) -> Reply {
    caller.require("actions", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    let id = with_world(&shared, |w| {
        let file = workflow_file(w.repo(&repo)?, &p.name).ok_or_else(Refusal::not_found)?;
        let head_sha = w
            .repo(&repo)?
            .branches
            .get(&dispatch.git_ref)
            .cloned()
            .ok_or_else(|| Refusal::new(422, format!("No ref found for: {}", dispatch.git_ref)))?;
        let inputs = dispatch
            .inputs
            .iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    v.as_str()
                        .map(str::to_owned)
                        .unwrap_or_else(|| v.to_string()),
                )
            })
            .collect();
        w.start_run(
            &repo,
            &file,
            "workflow_dispatch",
            &dispatch.git_ref,
            &head_sha,
            &caller.login,
            inputs,
        )
    })?;
    if !dispatch.return_run_details {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    let world = shared.read();
    let urls = shared.urls(world.repo(&repo)?);
    reply(
        StatusCode::OK,
        json!({
            "workflow_run_id": id,
            "run_url": urls.api(&format!("/actions/runs/{id}")),
            "html_url": urls.html(&format!("/actions/runs/{id}")),
        }),
    )
}

#[derive(Deserialize)]
pub(super) struct RunFilter {
    event: Option<String>,
    status: Option<String>,
}

pub(super) async fn list_runs(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RefPath>,
    OriginalUri(uri): OriginalUri,
    Query(paging): Query<Paging>,
    Query(filter): Query<RunFilter>,
) -> Reply {
    caller.require("actions", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let file = workflow_file(repo, &p.name).ok_or_else(Refusal::not_found)?;
    let urls = shared.urls(repo);
    let runs: Vec<&Run> = repo
        .runs
        .values()
        .rev()
        .filter(|r| r.workflow == file)
        .filter(|r| filter.event.as_ref().is_none_or(|e| &r.event == e))
        .filter(|r| {
            filter
                .status
                .as_ref()
                .is_none_or(|s| &r.status == s || r.conclusion.as_ref() == Some(s))
        })
        .collect();
    let total = runs.len();
    let items = runs
        .into_iter()
        .map(|r| shapes::workflow_run(&world, &urls, r))
        .collect();
    let (page, headers) = paged(&uri, &paging, items, shared.base());
    list_reply(
        headers,
        json!({ "total_count": total, "workflow_runs": page }),
    )
}

pub(super) async fn get_run(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
) -> Reply {
    caller.require("actions", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let run = repo.runs.get(&p.number).ok_or_else(Refusal::not_found)?;
    reply(
        StatusCode::OK,
        shapes::workflow_run(&world, &shared.urls(repo), run),
    )
}
