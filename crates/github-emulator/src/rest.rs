//! The REST endpoints the port uses, with GitHub's paths (axum's `{param}` templates
//! are the OpenAPI description's own), statuses and error bodies.

use std::collections::{BTreeMap, BTreeSet};

use axum::Json;
use axum::Router;
use axum::extract::{Extension, OriginalUri, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{CheckRun, Deployment, DeploymentStatus, Level, Refusal, Run, World};

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route(
            "/repos/{owner}/{repo}/issues",
            get(list_issues).post(create_issue),
        )
        .route(
            "/repos/{owner}/{repo}/issues/{issue_number}",
            get(get_issue).patch(update_issue),
        )
        .route(
            "/repos/{owner}/{repo}/issues/{issue_number}/comments",
            get(list_comments).post(create_comment),
        )
        .route(
            "/repos/{owner}/{repo}/deployments",
            get(list_deployments).post(create_deployment),
        )
        .route(
            "/repos/{owner}/{repo}/deployments/{deployment_id}",
            get(get_deployment),
        )
        .route(
            "/repos/{owner}/{repo}/deployments/{deployment_id}/statuses",
            get(list_statuses).post(create_status),
        )
        .route(
            "/repos/{owner}/{repo}/commits/{ref}/check-runs",
            get(list_check_runs),
        )
        .route("/repos/{owner}/{repo}/check-runs", post(create_check_run))
        .route(
            "/repos/{owner}/{repo}/check-runs/{check_run_id}",
            axum::routing::patch(update_check_run),
        )
        .route(
            "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
            post(dispatch_workflow),
        )
        .route(
            "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs",
            get(list_runs),
        )
        .route("/repos/{owner}/{repo}/actions/runs/{run_id}", get(get_run))
        .route("/repos/{owner}/{repo}/compare/{basehead}", get(compare))
        .route("/repos/{owner}/{repo}/commits/{ref}", get(get_commit))
        .route(
            "/repos/{owner}/{repo}/collaborators/{username}/permission",
            get(permission),
        )
        .route(
            "/repos/{owner}/{repo}/pulls/{pull_number}/merge",
            put(merge_pull),
        )
}

type Reply = Result<Response, Refusal>;

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(shapes::error(self.status, &self.message))).into_response()
    }
}

fn reply(status: StatusCode, value: Value) -> Reply {
    Ok((status, Json(value)).into_response())
}

fn full(owner: &str, repo: &str) -> String {
    format!("{owner}/{repo}")
}

#[derive(Deserialize)]
struct RepoPath {
    owner: String,
    repo: String,
}

#[derive(Deserialize)]
struct NumberPath {
    owner: String,
    repo: String,
    #[serde(
        alias = "issue_number",
        alias = "deployment_id",
        alias = "check_run_id",
        alias = "run_id",
        alias = "pull_number"
    )]
    number: u64,
}

#[derive(Deserialize)]
struct RefPath {
    owner: String,
    repo: String,
    #[serde(
        rename = "ref",
        alias = "basehead",
        alias = "workflow_id",
        alias = "username"
    )]
    name: String,
}

#[derive(Deserialize, Default)]
struct Paging {
    per_page: Option<usize>,
    page: Option<usize>,
}

/// One page of `items` and GitHub's `Link` header for the rest.
fn paged(
    uri: &axum::http::Uri,
    paging: &Paging,
    items: Vec<Value>,
    base: &str,
) -> (Vec<Value>, HeaderMap) {
    let per_page = paging.per_page.unwrap_or(30).clamp(1, 100);
    let page = paging.page.unwrap_or(1).max(1);
    let last = items.len().div_ceil(per_page).max(1);
    let slice: Vec<Value> = items
        .into_iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .collect();
    let mut headers = HeaderMap::new();
    if page < last {
        let query: Vec<String> = uri
            .query()
            .unwrap_or("")
            .split('&')
            .filter(|p| !p.is_empty() && !p.starts_with("page="))
            .map(str::to_owned)
            .collect();
        let link = |n: usize| {
            let mut q = query.clone();
            q.push(format!("page={n}"));
            format!("<{base}{}?{}>", uri.path(), q.join("&"))
        };
        let value = format!(
            "{}; rel=\"next\", {}; rel=\"last\"",
            link(page + 1),
            link(last)
        );
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.insert(header::LINK, value);
        }
    }
    (slice, headers)
}

fn list_reply(headers: HeaderMap, value: Value) -> Reply {
    Ok((StatusCode::OK, headers, Json(value)).into_response())
}

fn with_world<T>(
    shared: &Shared,
    f: impl FnOnce(&mut World) -> Result<T, Refusal>,
) -> Result<T, Refusal> {
    shared.change(f)
}

#[derive(Deserialize)]
struct IssueFilter {
    labels: Option<String>,
    state: Option<String>,
    direction: Option<String>,
}

async fn list_issues(
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
struct NewIssue {
    title: Value,
    body: Option<String>,
    #[serde(default)]
    labels: Vec<Value>,
}

async fn create_issue(
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

async fn get_issue(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
) -> Reply {
    caller.require("issues", Level::Read)?;
    issue_reply(&shared, &full(&p.owner, &p.repo), p.number, StatusCode::OK)
}

#[derive(Deserialize)]
struct IssueUpdate {
    title: Option<String>,
    body: Option<String>,
    state: Option<String>,
}

async fn update_issue(
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

async fn list_comments(
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
struct Body {
    body: String,
}

async fn create_comment(
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

#[derive(Deserialize)]
struct DeploymentFilter {
    task: Option<String>,
    environment: Option<String>,
    sha: Option<String>,
    #[serde(rename = "ref")]
    git_ref: Option<String>,
}

async fn list_deployments(
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
struct NewDeployment {
    #[serde(rename = "ref")]
    git_ref: String,
    task: Option<String>,
    environment: Option<String>,
    payload: Option<Value>,
    description: Option<String>,
}

async fn create_deployment(
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

async fn get_deployment(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<NumberPath>,
) -> Reply {
    caller.require("deployments", Level::Read)?;
    deployment_reply(&shared, &full(&p.owner, &p.repo), p.number, StatusCode::OK)
}

async fn list_statuses(
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
struct NewStatus {
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

async fn create_status(
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

#[derive(Deserialize)]
struct CheckRunFilter {
    filter: Option<String>,
    check_name: Option<String>,
}

async fn list_check_runs(
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
struct CheckRunWrite {
    name: Option<String>,
    head_sha: Option<String>,
    status: Option<String>,
    conclusion: Option<String>,
    output: Option<Output>,
}

#[derive(Deserialize)]
struct Output {
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
    if let Some(conclusion) = &write.conclusion {
        run.conclusion = Some(conclusion.clone());
        run.status = "completed".into();
        run.completed_at = Some(at);
    }
    Ok(())
}

async fn create_check_run(
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

async fn update_check_run(
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

#[derive(Deserialize)]
struct Dispatch {
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

async fn dispatch_workflow(
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
struct RunFilter {
    event: Option<String>,
    status: Option<String>,
}

async fn list_runs(
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

async fn get_run(
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

/// GitHub's cap on the files one comparison lists.
const COMPARE_FILES: usize = 300;

async fn compare(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RefPath>,
) -> Reply {
    caller.require("contents", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let (base_ref, head_ref) = p.name.split_once("...").ok_or_else(Refusal::not_found)?;
    let missing = |r: &str| Refusal::new(404, format!("No commit found for the ref {r}"));
    let base = repo.resolve(base_ref).ok_or_else(|| missing(base_ref))?;
    let head = repo.resolve(head_ref).ok_or_else(|| missing(head_ref))?;
    let base_history: BTreeSet<&str> = repo
        .history(&base.sha)
        .iter()
        .map(|c| c.sha.as_str())
        .collect();
    let head_history = repo.history(&head.sha);
    let head_set: BTreeSet<&str> = head_history.iter().map(|c| c.sha.as_str()).collect();
    let ahead: Vec<_> = head_history
        .iter()
        .filter(|c| !base_history.contains(c.sha.as_str()))
        .rev()
        .collect();
    let behind = base_history
        .iter()
        .filter(|sha| !head_set.contains(*sha))
        .count();
    let merge_base = head_history
        .iter()
        .find(|c| base_history.contains(c.sha.as_str()))
        .copied()
        .unwrap_or(base);
    let status = match (ahead.len(), behind) {
        (0, 0) => "identical",
        (_, 0) => "ahead",
        (0, _) => "behind",
        _ => "diverged",
    };
    let urls = shared.urls(repo);
    let mut files: Vec<Value> = Vec::new();
    for commit in &ahead {
        for file in &commit.files {
            files.retain(|f| f["filename"] != json!(file.path));
            files.push(shapes::diff_entry(&urls, &commit.sha, file));
        }
    }
    files.truncate(COMPARE_FILES);
    let compare = urls.api(&format!("/compare/{}", p.name));
    reply(
        StatusCode::OK,
        json!({
            "url": compare,
            "html_url": urls.html(&format!("/compare/{}", p.name)),
            "permalink_url": urls.html(&format!("/compare/{}...{}", base.sha, head.sha)),
            "diff_url": urls.html(&format!("/compare/{}.diff", p.name)),
            "patch_url": urls.html(&format!("/compare/{}.patch", p.name)),
            "base_commit": shapes::commit(&world, &urls, base, false),
            "merge_base_commit": shapes::commit(&world, &urls, merge_base, false),
            "status": status,
            "ahead_by": ahead.len(),
            "behind_by": behind,
            "total_commits": ahead.len(),
            "commits": ahead.iter().map(|c| shapes::commit(&world, &urls, c, false)).collect::<Vec<_>>(),
            "files": files,
        }),
    )
}

async fn get_commit(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RefPath>,
) -> Reply {
    caller.require("contents", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let commit = repo
        .resolve(&p.name)
        .ok_or_else(|| Refusal::new(422, format!("No commit found for SHA: {}", p.name)))?;
    reply(
        StatusCode::OK,
        shapes::commit(&world, &shared.urls(repo), commit, true),
    )
}

async fn permission(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RefPath>,
) -> Reply {
    caller.require("metadata", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let account = world
        .account(&p.name)
        .ok_or_else(|| Refusal::new(404, format!("{} is not a user", p.name)))?;
    reply(
        StatusCode::OK,
        shapes::collaborator_permission(shared.site(), account, repo.role_of(&p.name)),
    )
}

#[derive(Deserialize)]
struct Merge {
    sha: Option<String>,
    merge_method: Option<String>,
}

async fn merge_pull(
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
