//! Pull requests, their files and head commit.

use super::commit::Commit;
use super::{Actor, GitObjectID, PageInfo, Snapshot, Uri, page};
use async_graphql::{Enum, Object, SimpleObject};

pub(super) fn pull_connection(
    pulls: Vec<PullRequest>,
    first: Option<i32>,
    after: Option<&str>,
    last: Option<i32>,
) -> PullRequestConnection {
    let total = pulls.len() as i32;
    let (nodes, page_info) = page(pulls, first, after, last);
    PullRequestConnection {
        nodes: Some(nodes.into_iter().map(Some).collect()),
        page_info,
        total_count: total,
    }
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct PullRequestConnection {
    pub(super) nodes: Option<Vec<Option<PullRequest>>>,
    pub(super) page_info: PageInfo,
    pub(super) total_count: i32,
}

pub(super) struct PullRequest {
    pub(super) snapshot: Snapshot,
    pub(super) number: u64,
}

impl PullRequest {
    fn pull(&self) -> &crate::world::Pull {
        &self.snapshot.repo().pulls[&self.number]
    }
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(super) enum MergeableState {
    Conflicting,
    Mergeable,
    Unknown,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(super) enum PatchStatus {
    Added,
    Changed,
    Copied,
    Deleted,
    Modified,
    Renamed,
}

#[Object]
impl PullRequest {
    async fn number(&self) -> i32 {
        self.number as i32
    }

    async fn title(&self) -> &str {
        &self.pull().title
    }

    #[graphql(name = "isDraft")]
    async fn is_draft(&self) -> bool {
        self.pull().draft
    }

    #[graphql(name = "baseRefName")]
    async fn base_ref_name(&self) -> &str {
        &self.pull().base
    }

    #[graphql(name = "headRefOid")]
    async fn head_ref_oid(&self) -> GitObjectID {
        GitObjectID(self.pull().head_sha.clone())
    }

    async fn url(&self) -> Uri {
        self.snapshot.html(&format!("/pull/{}", self.number))
    }

    async fn mergeable(&self) -> MergeableState {
        if self.pull().mergeable {
            MergeableState::Mergeable
        } else {
            MergeableState::Conflicting
        }
    }

    async fn merged(&self) -> bool {
        self.pull().merge_commit.is_some()
    }

    #[graphql(name = "changedFiles")]
    async fn changed_files(&self) -> i32 {
        self.snapshot.repo().pull_files(self.pull()).len() as i32
    }

    async fn author(&self) -> Option<Actor> {
        self.snapshot.actor(&self.pull().author)
    }

    async fn files(
        &self,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> Option<PullRequestChangedFileConnection> {
        let _ = before;
        let files: Vec<PullRequestChangedFile> = self
            .snapshot
            .repo()
            .pull_files(self.pull())
            .into_iter()
            .map(|f| PullRequestChangedFile {
                path: f.path,
                change_type: match f.status.as_str() {
                    "added" => PatchStatus::Added,
                    "removed" => PatchStatus::Deleted,
                    "renamed" => PatchStatus::Renamed,
                    _ => PatchStatus::Modified,
                },
            })
            .collect();
        let total = files.len() as i32;
        let (nodes, page_info) = page(files, first, after.as_deref(), last);
        Some(PullRequestChangedFileConnection {
            nodes: Some(nodes.into_iter().map(Some).collect()),
            page_info,
            total_count: total,
        })
    }

    async fn commits(
        &self,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> PullRequestCommitConnection {
        let _ = before;
        let head = PullRequestCommit {
            commit: Commit {
                snapshot: self.snapshot.clone(),
                sha: self.pull().head_sha.clone(),
            },
        };
        let (nodes, page_info) = page(vec![head], first, after.as_deref(), last);
        PullRequestCommitConnection {
            nodes: Some(nodes.into_iter().map(Some).collect()),
            page_info,
            total_count: 1,
        }
    }
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct PullRequestChangedFileConnection {
    pub(super) nodes: Option<Vec<Option<PullRequestChangedFile>>>,
    pub(super) page_info: PageInfo,
    pub(super) total_count: i32,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct PullRequestChangedFile {
    pub(super) path: String,
    pub(super) change_type: PatchStatus,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct PullRequestCommitConnection {
    pub(super) nodes: Option<Vec<Option<PullRequestCommit>>>,
    pub(super) page_info: PageInfo,
    pub(super) total_count: i32,
}

#[derive(SimpleObject)]
pub(super) struct PullRequestCommit {
    pub(super) commit: Commit,
}
