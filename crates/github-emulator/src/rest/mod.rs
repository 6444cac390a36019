//! The REST endpoints the port uses, with GitHub's paths (axum's `{param}` templates
//! are the OpenAPI description's own), statuses and error bodies.

use axum::Json;
use axum::Router;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use serde::Deserialize;
use serde_json::Value;

use crate::server::Shared;
use crate::shapes;
use crate::world::{Refusal, World};

mod actions;
mod apps;
mod checks;
mod collaborators;
mod commits;
mod contents;
mod deployments;
mod git;
mod issues;
mod pulls;
mod repos;
mod users;

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route(
            "/repos/{owner}/{repo}/issues",
            get(issues::list_issues).post(issues::create_issue),
        )
        .route(
            "/repos/{owner}/{repo}/issues/{issue_number}",
            get(issues::get_issue).patch(issues::update_issue),
        )
        .route(
            "/repos/{owner}/{repo}/issues/{issue_number}/comments",
            get(issues::list_comments).post(issues::create_comment),
        )
        .route(
            "/repos/{owner}/{repo}/deployments",
            get(deployments::list_deployments).post(deployments::create_deployment),
        )
        .route(
            "/repos/{owner}/{repo}/deployments/{deployment_id}",
            get(deployments::get_deployment),
        )
        .route(
            "/repos/{owner}/{repo}/deployments/{deployment_id}/statuses",
            get(deployments::list_statuses).post(deployments::create_status),
        )
        .route(
            "/repos/{owner}/{repo}/commits/{ref}/check-runs",
            get(checks::list_check_runs),
        )
        .route(
            "/repos/{owner}/{repo}/check-runs",
            post(checks::create_check_run),
        )
        .route(
            "/repos/{owner}/{repo}/check-runs/{check_run_id}",
            axum::routing::patch(checks::update_check_run),
        )
        .route(
            "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches",
            post(actions::dispatch_workflow),
        )
        .route(
            "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs",
            get(actions::list_runs),
        )
        .route(
            "/repos/{owner}/{repo}/actions/runs/{run_id}",
            get(actions::get_run),
        )
        .route(
            "/repos/{owner}/{repo}/compare/{basehead}",
            get(commits::compare),
        )
        .route(
            "/repos/{owner}/{repo}/commits/{ref}",
            get(commits::get_commit),
        )
        .route(
            "/repos/{owner}/{repo}/collaborators/{username}/permission",
            get(collaborators::permission),
        )
        .route(
            "/repos/{owner}/{repo}/pulls/{pull_number}/merge",
            put(pulls::merge_pull),
        )
        .route("/user", get(users::authenticated))
        .route("/orgs/{org}/members/{username}", get(users::member))
        .route(
            "/repos/{owner}/{repo}/installation",
            get(apps::repo_installation),
        )
        .route(
            "/app/installations/{installation_id}/access_tokens",
            post(apps::access_token),
        )
        .route(
            "/installation/repositories",
            get(apps::installation_repositories),
        )
        .route(
            "/repos/{owner}/{repo}/contents/{*path}",
            get(contents::get_content).put(contents::put_content),
        )
        .route("/repos/{owner}/{repo}", get(repos::get_repo))
        .route("/repos/{owner}/{repo}/git/ref/{*ref}", get(git::get_ref))
        .route("/repos/{owner}/{repo}/git/refs", post(git::create_ref))
        .route(
            "/repos/{owner}/{repo}/git/refs/{*ref}",
            axum::routing::patch(git::update_ref),
        )
        .route(
            "/repos/{owner}/{repo}/pulls",
            get(pulls::list_pulls).post(pulls::create_pull),
        )
}

pub(super) type Reply = Result<Response, Refusal>;

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        (status, Json(shapes::error(self.status, &self.message))).into_response()
    }
}

pub(super) fn reply(status: StatusCode, value: Value) -> Reply {
    Ok((status, Json(value)).into_response())
}

pub(super) fn full(owner: &str, repo: &str) -> String {
    format!("{owner}/{repo}")
}

#[derive(Deserialize)]
pub(super) struct RepoPath {
    pub(super) owner: String,
    pub(super) repo: String,
}

#[derive(Deserialize)]
pub(super) struct NumberPath {
    pub(super) owner: String,
    pub(super) repo: String,
    #[serde(
        alias = "issue_number",
        alias = "deployment_id",
        alias = "check_run_id",
        alias = "run_id",
        alias = "pull_number"
    )]
    pub(super) number: u64,
}

#[derive(Deserialize)]
pub(super) struct RefPath {
    pub(super) owner: String,
    pub(super) repo: String,
    #[serde(
        rename = "ref",
        alias = "basehead",
        alias = "workflow_id",
        alias = "username"
    )]
    pub(super) name: String,
}

#[derive(Deserialize, Default)]
pub(super) struct Paging {
    pub(super) per_page: Option<usize>,
    pub(super) page: Option<usize>,
}

/// One page of `items` and GitHub's `Link` header for the rest.
pub(super) fn paged(
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

pub(super) fn list_reply(headers: HeaderMap, value: Value) -> Reply {
    Ok((StatusCode::OK, headers, Json(value)).into_response())
}

pub(super) fn with_world<T>(
    shared: &Shared,
    f: impl FnOnce(&mut World) -> Result<T, Refusal>,
) -> Result<T, Refusal> {
    shared.change(f)
}
