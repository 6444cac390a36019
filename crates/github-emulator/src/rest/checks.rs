//! Check runs: the preview pages.

use std::collections::BTreeSet;

use axum::Json;
use axum::extract::{Extension, OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::json;

use super::{
    NumberPath, Paging, RefPath, Reply, RepoPath, full, list_reply, paged, reply, with_world,
};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{CheckRun, Level, Refusal};

#[derive(Deserialize)]
pub(super) struct CheckRunFilter {
    filter: Option<String>,
    check_name: Option<String>,
}

pub(super) async fn list_check_runs(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RefPath>,
    OriginalUri(uri): OriginalUri,
    Query(paging): Query<Paging>,
    Query(filter): Query<CheckRunFilter>,
) -> Reply {
    caller.require("checks", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let sha = repo
        .resolve(&p.name)
        .map(|c| c.sha.clone())
        .ok_or_else(|| Refusal::new(422, format!("No commit found for SHA: {}", p.name)))?;
    let urls = shared.urls(repo);
    let mut runs: Vec<&CheckRun> = repo
        .check_runs
        .values()
        .rev()
        .filter(|r| r.head_sha == sha)
        .filter(|r| filter.check_name.as_ref().is_none_or(|n| &r.name == n))
        .collect();
    if filter.filter.as_deref() != Some("all") {
        let mut seen = BTreeSet::new();
        runs.retain(|r| seen.insert(r.name.clone()));
    }
    let total = runs.len();
    let items = runs
        .into_iter()
        .map(|r| shapes::check_run(&urls, r))
        .collect();
    let (page, headers) = paged(&uri, &paging, items, shared.base());
    list_reply(headers, json!({ "total_count": total, "check_runs": page }))
}

#[derive(Deserialize)]
pub(super) struct CheckRunWrite {
    name: Option<String>,
    head_sha: Option<String>,
    status: Option<String>,
    conclusion: Option<String>,
    external_id: Option<String>,
    output: Option<Output>,
}

#[derive(Deserialize)]
pub(super) struct Output {
    title: Option<String>,
    summary: String,
    text: Option<String>,
}

fn apply_check_run(
    run: &mut CheckRun,
    write: &CheckRunWrite,
    at: jiff::Timestamp,
) -> Result<(), Refusal> {
    if let Some(output) = &write.output {
        run.title = output.title.clone();
        run.summary = Some(output.summary.clone());
        run.text = output.text.clone();
    }
    if let Some(status) = &write.status {
        run.status = status.clone();
    }
    if let Some(external_id) = &write.external_id {
        run.external_id = external_id.clone();
    }
    if let Some(conclusion) = &write.conclusion {
        run.conclusion = Some(conclusion.clone());
        run.status = "completed".into();
        run.completed_at = Some(at);
    }
    Ok(())
}

pub(super) async fn create_check_run(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RepoPath>,
    Json(write): Json<CheckRunWrite>,
) -> Reply {
    caller.require("checks", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    let (Some(name), Some(head_sha)) = (write.name.clone(), write.head_sha.clone()) else {
        return Err(Refusal::new(
            422,
            "Invalid request.\n\n\"name\", \"head_sha\" weren't supplied.",
        ));
    };
    let id = with_world(&shared, |w| {
        let at = w.tick();
        let id = w.id();
        let repo = w.repo_mut(&repo)?;
        let sha = repo
            .resolve(&head_sha)
            .map(|c| c.sha.clone())
            .ok_or_else(|| Refusal::new(422, "No commit found for SHA"))?;
        let mut run = CheckRun {
            id,
            name,
            head_sha: sha,
            status: "queued".into(),
            conclusion: None,
            title: None,
            summary: None,
            text: None,
            external_id: String::new(),
            started_at: at,
            completed_at: None,
        };
        apply_check_run(&mut run, &write, at)?;
        repo.check_runs.insert(id, run);
        Ok(id)
    })?;
    check_run_reply(&shared, &repo, id, StatusCode::CREATED)
}

fn check_run_reply(shared: &Shared, repo: &str, id: u64, status: StatusCode) -> Reply {
    let world = shared.read();
    let repo = world.repo(repo)?;
    let run = repo.check_runs.get(&id).ok_or_else(Refusal::not_found)?;
    reply(status, shapes::check_run(&shared.urls(repo), run))
}

pub(super) async fn update_check_run(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
    Json(write): Json<CheckRunWrite>,
) -> Reply {
    caller.require("checks", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    with_world(&shared, |w| {
        let at = w.tick();
        let run = w
            .repo_mut(&repo)?
            .check_runs
            .get_mut(&p.number)
            .ok_or_else(Refusal::not_found)?;
        if let Some(name) = &write.name {
            run.name = name.clone();
        }
        apply_check_run(run, &write, at)
    })?;
    check_run_reply(&shared, &repo, p.number, StatusCode::OK)
}
