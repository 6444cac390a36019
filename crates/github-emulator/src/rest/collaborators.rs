//! A person's permission on the repository.

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;

use super::{RefPath, Reply, full, reply};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{Level, Refusal};

pub(super) async fn permission(
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
