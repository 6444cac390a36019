//! Deployments and their statuses: Sluiceway's records.

use axum::Json;
use axum::extract::{Extension, OriginalUri, Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{NumberPath, Paging, Reply, RepoPath, full, list_reply, paged, reply, with_world};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{Deployment, DeploymentStatus, Level, Refusal};

#[derive(Deserialize)]
pub(super) struct DeploymentFilter {
    task: Option<String>,
    environment: Option<String>,
    sha: Option<String>,
    #[serde(rename = "ref")]
    git_ref: Option<String>,
}

pub(super) async fn list_deployments(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RepoPath>,
    OriginalUri(uri): OriginalUri,
    Query(paging): Query<Paging>,
    Query(filter): Query<DeploymentFilter>,
) -> Reply {
    caller.require("deployments", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let urls = shared.urls(repo);
    let items = repo
        .deployments
        .values()
        .rev()
        .filter(|d| filter.task.as_ref().is_none_or(|t| &d.task == t))
        .filter(|d| {
            filter
                .environment
                .as_ref()
                .is_none_or(|e| &d.environment == e)
        })
        .filter(|d| filter.sha.as_ref().is_none_or(|s| &d.sha == s))
        .filter(|d| filter.git_ref.as_ref().is_none_or(|r| &d.git_ref == r))
        .map(|d| shapes::deployment(&world, &urls, d))
        .collect();
    let (page, headers) = paged(&uri, &paging, items, shared.base());
    list_reply(headers, Value::Array(page))
}

#[derive(Deserialize)]
pub(super) struct NewDeployment {
    #[serde(rename = "ref")]
    git_ref: String,
    task: Option<String>,
    environment: Option<String>,
    payload: Option<Value>,
    description: Option<String>,
}

pub(super) async fn create_deployment(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RepoPath>,
    Json(new): Json<NewDeployment>,
) -> Reply {
    caller.require("deployments", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    let id = with_world(&shared, |w| {
        let sha = w
            .repo(&repo)?
            .resolve(&new.git_ref)
            .map(|c| c.sha.clone())
            .ok_or_else(|| Refusal::new(422, format!("No ref found for: {}", new.git_ref)))?;
        let at = w.tick();
        let id = w.id();
        w.repo_mut(&repo)?.deployments.insert(
            id,
            Deployment {
                id,
                sha,
                git_ref: new.git_ref.clone(),
                task: new.task.clone().unwrap_or_else(|| "deploy".into()),
                environment: new
                    .environment
                    .clone()
                    .unwrap_or_else(|| "production".into()),
                payload: new.payload.clone().unwrap_or_else(|| json!({})),
                description: new.description.clone(),
                creator: caller.login.clone(),
                created_at: at,
                updated_at: at,
                statuses: Vec::new(),
            },
        );
        w.happened.push(crate::hooks::Happening::Deployment {
            repo: repo.clone(),
            deployment: id,
            status: None,
            sender: caller.login.clone(),
        });
        Ok(id)
    })?;
    deployment_reply(&shared, &repo, id, StatusCode::CREATED)
}

fn deployment_reply(shared: &Shared, repo: &str, id: u64, status: StatusCode) -> Reply {
    let world = shared.read();
    let repo = world.repo(repo)?;
    let d = repo.deployments.get(&id).ok_or_else(Refusal::not_found)?;
    reply(status, shapes::deployment(&world, &shared.urls(repo), d))
}

pub(super) async fn get_deployment(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
) -> Reply {
    caller.require("deployments", Level::Read)?;
    deployment_reply(&shared, &full(&p.owner, &p.repo), p.number, StatusCode::OK)
}

pub(super) async fn list_statuses(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
    OriginalUri(uri): OriginalUri,
    Query(paging): Query<Paging>,
) -> Reply {
    caller.require("deployments", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let d = repo
        .deployments
        .get(&p.number)
        .ok_or_else(Refusal::not_found)?;
    let urls = shared.urls(repo);
    let items = d
        .statuses
        .iter()
        .rev()
        .map(|s| shapes::deployment_status(&world, &urls, d, s))
        .collect();
    let (page, headers) = paged(&uri, &paging, items, shared.base());
    list_reply(headers, Value::Array(page))
}

#[derive(Deserialize)]
pub(super) struct NewStatus {
    state: String,
    description: Option<String>,
    log_url: Option<String>,
    target_url: Option<String>,
    auto_inactive: Option<bool>,
}

const STATES: &[&str] = &[
    "error",
    "failure",
    "inactive",
    "in_progress",
    "queued",
    "pending",
    "success",
];

pub(super) async fn create_status(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
    Json(new): Json<NewStatus>,
) -> Reply {
    caller.require("deployments", Level::Write)?;
    if !STATES.contains(&new.state.as_str()) {
        return Err(Refusal::new(
            422,
            "Validation Failed: state is not a deployment state",
        ));
    }
    let repo = full(&p.owner, &p.repo);
    let status_id = with_world(&shared, |w| {
        let at = w.tick();
        let id = w.id();
        let inactive_id = w.id();
        let repo_name = repo.clone();
        let repo = w.repo_mut(&repo)?;
        let environment = repo
            .deployments
            .get(&p.number)
            .ok_or_else(Refusal::not_found)?
            .environment
            .clone();
        let status = DeploymentStatus {
            id,
            state: new.state.clone(),
            description: new.description.clone().unwrap_or_default(),
            creator: caller.login.clone(),
            log_url: new.log_url.clone().or_else(|| new.target_url.clone()),
            created_at: at,
        };
        if new.state == "success" && new.auto_inactive.unwrap_or(true) {
            // GitHub's default: an earlier success in the environment goes inactive.
            for other in repo.deployments.values_mut() {
                let earlier_success = other.statuses.last().is_some_and(|s| s.state == "success");
                if other.id != p.number && other.environment == environment && earlier_success {
                    other.statuses.push(DeploymentStatus {
                        id: inactive_id,
                        state: "inactive".into(),
                        description: String::new(),
                        creator: caller.login.clone(),
                        log_url: None,
                        created_at: at,
                    });
                }
            }
        }
        let deployment = repo
            .deployments
            .get_mut(&p.number)
            .ok_or_else(Refusal::not_found)?;
        deployment.statuses.push(status);
        deployment.updated_at = at;
        w.happened.push(crate::hooks::Happening::Deployment {
            repo: repo_name.clone(),
            deployment: p.number,
            status: Some(id),
            sender: caller.login.clone(),
        });
        Ok(id)
    })?;
    let world = shared.read();
    let repo = world.repo(&repo)?;
    let d = &repo.deployments[&p.number];
    let s = d
        .statuses
        .iter()
        .find(|s| s.id == status_id)
        .ok_or_else(Refusal::not_found)?;
    reply(
        StatusCode::CREATED,
        shapes::deployment_status(&world, &shared.urls(repo), d, s),
    )
}
