//! Merging a pull request.

use axum::Json;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::json;

use super::{NumberPath, Reply, full, reply, with_world};
use crate::server::{Caller, Shared};
use crate::world::Level;

#[derive(Deserialize)]
pub(super) struct Merge {
    sha: Option<String>,
    merge_method: Option<String>,
}

pub(super) async fn merge_pull(
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
