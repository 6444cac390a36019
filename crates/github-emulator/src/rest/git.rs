//! Branches through the git references API.

use axum::Json;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;

use super::{Reply, full, reply, with_world};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{Level, Refusal};

#[derive(serde::Deserialize)]
pub(super) struct RefName {
    owner: String,
    repo: String,
    #[serde(rename = "ref")]
    name: String,
}

/// The branch a `heads/<branch>` reference names; the emulator keeps no tags.
fn branch_of(name: &str) -> Result<&str, Refusal> {
    let name = name.strip_prefix("refs/").unwrap_or(name);
    name.strip_prefix("heads/").ok_or_else(Refusal::not_found)
}

pub(super) async fn get_ref(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RefName>,
) -> Reply {
    caller.require("contents", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let branch = branch_of(&p.name)?;
    let sha = repo.branches.get(branch).ok_or_else(Refusal::not_found)?;
    reply(
        StatusCode::OK,
        shapes::git_ref(&shared.urls(repo), branch, sha),
    )
}

#[derive(serde::Deserialize)]
pub(super) struct NewRef {
    #[serde(rename = "ref")]
    name: String,
    sha: String,
}

pub(super) async fn create_ref(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<super::RepoPath>,
    Json(new): Json<NewRef>,
) -> Reply {
    caller.require("contents", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    let branch = new
        .name
        .strip_prefix("refs/heads/")
        .ok_or_else(|| Refusal::new(422, "Reference name must start with refs/heads/"))?
        .to_owned();
    with_world(&shared, |w| w.create_branch(&repo, &branch, &new.sha))?;
    let world = shared.read();
    let found = world.repo(&repo)?;
    reply(
        StatusCode::CREATED,
        shapes::git_ref(&shared.urls(found), &branch, &new.sha),
    )
}

#[derive(serde::Deserialize)]
pub(super) struct Move {
    sha: String,
    #[serde(default)]
    force: bool,
}

pub(super) async fn update_ref(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<RefName>,
    Json(moved): Json<Move>,
) -> Reply {
    caller.require("contents", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    let branch = branch_of(&p.name)?.to_owned();
    with_world(&shared, |w| {
        w.move_branch(&repo, &branch, &moved.sha, moved.force)
    })?;
    let world = shared.read();
    let found = world.repo(&repo)?;
    reply(
        StatusCode::OK,
        shapes::git_ref(&shared.urls(found), &branch, &moved.sha),
    )
}
