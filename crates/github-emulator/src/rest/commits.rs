//! Commits and comparisons.

use std::collections::BTreeSet;

use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use serde_json::{Value, json};

use super::{RefPath, Reply, full, reply};
use crate::server::{Caller, Shared};
use crate::shapes;
use crate::world::{Level, Refusal};

/// GitHub's cap on the files one comparison lists.
const COMPARE_FILES: usize = 300;

pub(super) async fn compare(
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

pub(super) async fn get_commit(
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
