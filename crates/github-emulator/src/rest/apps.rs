//! A GitHub App's own endpoints, which only its JSON Web Token opens: where it is
//! installed, and installation access tokens.

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
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
