//! Files through the contents API: read at a reference, written on a branch.

use axum::Json;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use base64::Engine as _;

use super::{Reply, full, reply, with_world};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{FileWrite, Level, Refusal};

#[derive(serde::Deserialize)]
pub(super) struct ContentPath {
    owner: String,
    repo: String,
    path: String,
}

#[derive(serde::Deserialize)]
pub(super) struct ContentQuery {
    #[serde(rename = "ref")]
    git_ref: Option<String>,
}

pub(super) async fn get_content(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<ContentPath>,
    axum::extract::Query(q): axum::extract::Query<ContentQuery>,
) -> Reply {
    caller.require("contents", Level::Read)?;
    let world = shared.read();
    let repo = world.repo(&full(&p.owner, &p.repo))?;
    let reference = q.git_ref.unwrap_or_else(|| repo.default_branch.clone());
    let file = repo
        .file_at(&reference, &p.path)
        .ok_or_else(Refusal::not_found)?;
    reply(
        StatusCode::OK,
        shapes::content_file(&shared.urls(repo), &reference, file),
    )
}

#[derive(serde::Deserialize)]
pub(super) struct Write {
    message: String,
    content: String,
    sha: Option<String>,
    branch: Option<String>,
}

pub(super) async fn put_content(
    State(shared): State<Shared>,
    Extension(caller): Extension<Caller>,
    Path(p): Path<ContentPath>,
    Json(write): Json<Write>,
) -> Reply {
    caller.require("contents", Level::Write)?;
    let repo = full(&p.owner, &p.repo);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(write.content.split_whitespace().collect::<String>())
        .map_err(|_| Refusal::new(422, "content is not valid Base64"))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| Refusal::new(422, "the emulator keeps text files only"))?;
    let branch = match write.branch {
        Some(branch) => branch,
        None => shared.read().repo(&repo)?.default_branch.clone(),
    };
    let sha = with_world(&shared, |w| {
        w.write_file(
            &repo,
            FileWrite {
                path: &p.path,
                branch: &branch,
                text: &text,
                message: &write.message,
                author: &caller.login,
                replacing: write.sha.as_deref(),
            },
        )
    })?;
    let world = shared.read();
    let found = world.repo(&repo)?;
    let commit = found.commits.get(&sha).ok_or_else(Refusal::not_found)?;
    let file = &commit.files[0];
    let status = if file.status == "added" {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    reply(
        status,
        shapes::file_commit(&shared.urls(found), &branch, file, commit),
    )
}
