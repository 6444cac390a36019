//! A GitHub App's own endpoints, which only its JSON Web Token opens: where it is
//! installed, and installation access tokens; and what an installation's token may list.

use axum::extract::{Extension, Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use serde::Deserialize;
use serde_json::json;

use super::{Reply, RepoPath, full, reply};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::Refusal;

/// GitHub's answer when a token that is not an app's asks an app's endpoint.
fn app_of(caller: &Caller) -> Result<u64, Refusal> {
    caller
        .app
        .ok_or_else(|| Refusal::new(401, "A JSON web token could not be decoded"))
}

pub(super) async fn repo_installation(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RepoPath>,
) -> Reply {
    let app = app_of(&caller)?;
    let world = shared.read();
    let name = full(&p.owner, &p.repo);
    world.repo(&name)?;
    let installation = world
        .installation_for(app, &name)
        .ok_or_else(Refusal::not_found)?;
    reply(
        StatusCode::OK,
        shapes::installation(&world, shared.site(), installation),
    )
}

#[derive(Deserialize)]
pub(super) struct InstallationPath {
    installation_id: u64,
}

pub(super) async fn access_token(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<InstallationPath>,
) -> Reply {
    let app = app_of(&caller)?;
    let (token, expires_at, permissions) =
        shared.change(|w| w.installation_token(app, p.installation_id))?;
    reply(
        StatusCode::CREATED,
        json!({
            "token": token,
            "expires_at": shapes::time(expires_at),
            "permissions": permissions,
            "repository_selection": "all",
        }),
    )
}

#[derive(Deserialize)]
pub(super) struct Listing {
    per_page: Option<usize>,
    page: Option<usize>,
}

/// `GET /installation/repositories`: the repositories of the installation whose token
/// asks (every repository of its account: installations here are for all of them), by
/// name, a page at a time.
pub(super) async fn installation_repositories(
    State(shared): State<Shared>,
    headers: HeaderMap,
    Query(listing): Query<Listing>,
) -> Reply {
    let world = shared.read();
    let token = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split_once(' ').map(|(_, t)| t.trim()))
        .unwrap_or_default();
    let installation = world
        .minted
        .get(token)
        .and_then(|id| world.installations.iter().find(|i| i.id == *id))
        .ok_or_else(|| Refusal::new(403, "Resource not accessible by integration"))?;
    let mut repos: Vec<_> = world
        .repos
        .values()
        .filter(|r| r.owner.eq_ignore_ascii_case(&installation.account))
        .collect();
    repos.sort_by_key(|r| r.name.to_ascii_lowercase());
    let per_page = listing.per_page.unwrap_or(30).clamp(1, 100);
    let page = listing.page.unwrap_or(1).max(1);
    let shown: Vec<_> = repos
        .iter()
        .skip((page - 1) * per_page)
        .take(per_page)
        .map(|r| shapes::repository(&world, &shared.urls(r), false))
        .collect();
    reply(
        StatusCode::OK,
        json!({
            "total_count": repos.len(),
            "repositories": shown,
            "repository_selection": "all",
        }),
    )
}
