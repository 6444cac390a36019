//! Who a user token speaks for, and whether a person belongs to an organization.

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use serde::Deserialize;

use super::{Reply, reply};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{Level, Refusal};

/// `GET /user`: the person a user token speaks for; an app's installation token is
/// nobody's, as GitHub answers it.
pub(super) async fn authenticated(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
) -> Reply {
    let world = shared.read();
    let account = world
        .account(&caller.login)
        .filter(|a| a.kind == crate::world::AccountKind::User)
        .ok_or_else(|| Refusal::new(403, "Resource not accessible by integration"))?;
    reply(StatusCode::OK, shapes::public_user(shared.site(), account))
}

#[derive(Deserialize)]
pub(super) struct MemberPath {
    org: String,
    username: String,
}

/// `GET /orgs/{org}/members/{username}`: 204 for a member, 404 for anyone else.
pub(super) async fn member(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<MemberPath>,
) -> Reply {
    caller.require("members", Level::Read)?;
    let world = shared.read();
    // GitHub answers both without a body.
    Ok(if world.is_member(&p.org, &p.username) {
        StatusCode::NO_CONTENT
    } else {
        StatusCode::NOT_FOUND
    }
    .into_response())
}
