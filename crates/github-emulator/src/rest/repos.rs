//! A repository itself.

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use serde_json::json;

use super::{Reply, RepoPath, full, reply};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::Level;

/// GitHub's `full-repository`: the webhook's repository and the counts only this
/// answer carries.
pub(super) async fn get_repo(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RepoPath>,
) -> Reply {
    caller.require("metadata", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let mut answer = shapes::repository(&world, &shared.urls(repo), false);
    answer["network_count"] = json!(0);
    answer["subscribers_count"] = json!(0);
    reply(StatusCode::OK, answer)
}
