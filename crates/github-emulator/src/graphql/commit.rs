//! Commits: history, parents, authors, associated pull requests, check rollups.

use super::pull_request::{PullRequest, PullRequestConnection, pull_connection};
use super::{Actor, GitObjectID, PageInfo, Snapshot, Uri, User, page};
use async_graphql::{Enum, ID, Interface, Object, SimpleObject};

#[derive(Interface)]
#[graphql(field(name = "oid", ty = "GitObjectID"))]
pub(super) enum GitObject {
    Commit(Commit),
}

pub(super) struct Commit {
    pub(super) snapshot: Snapshot,
    pub(super) sha: String,
}

impl Commit {
    fn commit(&self) -> Option<&crate::world::Commit> {
        self.snapshot.repo().commits.get(&self.sha)
    }
}

#[derive(SimpleObject)]
pub(super) struct GitActor {
    pub(super) user: Option<User>,
    pub(super) name: Option<String>,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(super) enum StatusState {
    Error,
    Expected,
    Failure,
    Pending,
    Success,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(super) enum CheckRunState {
    ActionRequired,
    Cancelled,
    Completed,
    Failure,
    InProgress,
    Neutral,
    Pending,
    Queued,
    Skipped,
    Stale,
    StartupFailure,
    Success,
    TimedOut,
    Waiting,
}

#[Object]
impl Commit {
    async fn id(&self) -> ID {
        ID(format!("C_{}", self.sha))
    }

    async fn oid(&self) -> GitObjectID {
        GitObjectID(self.sha.clone())
    }

    async fn url(&self) -> Uri {
        self.snapshot.html(&format!("/commit/{}", self.sha))
    }

    async fn parents(
        &self,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> CommitConnection {
        let _ = before;
        let parents: Vec<Commit> = self
            .commit()
            .map(|c| {
                c.parents
                    .iter()
                    .map(|sha| Commit {
                        snapshot: self.snapshot.clone(),
                        sha: sha.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let total = parents.len() as i32;
        let (nodes, page_info) = page(parents, first, after.as_deref(), last);
        CommitConnection {
            nodes: Some(nodes.into_iter().map(Some).collect()),
            page_info,
            total_count: total,
        }
    }

    async fn author(&self) -> Option<GitActor> {
        let login = self.commit()?.author.clone();
        let user = login.as_deref().and_then(|l| match self.snapshot.actor(l) {
            Some(Actor::User(user)) => Some(user),
            _ => None,
        });
        Some(GitActor { user, name: login })
    }

    #[graphql(name = "associatedPullRequests")]
    async fn associated_pull_requests(
        &self,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> Option<PullRequestConnection> {
        let _ = before;
        let pulls = self
            .snapshot
            .repo()
            .pulls_of_commit(&self.sha)
            .into_iter()
            .map(|p| PullRequest {
                snapshot: self.snapshot.clone(),
                number: p.number,
            })
            .collect();
        Some(pull_connection(pulls, first, after.as_deref(), last))
    }

    async fn history(
        &self,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> CommitHistoryConnection {
        let _ = before;
        let commits: Vec<Commit> = self
            .snapshot
            .repo()
            .history(&self.sha)
            .into_iter()
            .map(|c| Commit {
                snapshot: self.snapshot.clone(),
                sha: c.sha.clone(),
            })
            .collect();
        let total = commits.len() as i32;
        let (nodes, page_info) = page(commits, first, after.as_deref(), last);
        CommitHistoryConnection {
            nodes: Some(nodes.into_iter().map(Some).collect()),
            page_info,
            total_count: total,
        }
    }

    #[graphql(name = "statusCheckRollup")]
    async fn status_check_rollup(&self) -> Option<StatusCheckRollup> {
        let rollup = self.commit()?.checks.clone()?;
        Some(StatusCheckRollup { rollup })
    }
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct CommitConnection {
    pub(super) nodes: Option<Vec<Option<Commit>>>,
    pub(super) page_info: PageInfo,
    pub(super) total_count: i32,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct CommitHistoryConnection {
    pub(super) nodes: Option<Vec<Option<Commit>>>,
    pub(super) page_info: PageInfo,
    pub(super) total_count: i32,
}

pub(super) struct StatusCheckRollup {
    pub(super) rollup: crate::world::Rollup,
}

#[Object]
impl StatusCheckRollup {
    async fn state(&self) -> StatusState {
        status_state(&self.rollup.state).unwrap_or(StatusState::Pending)
    }

    async fn contexts(
        &self,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> StatusCheckRollupContextConnection {
        let _ = (first, after, last, before);
        let total: u64 = self
            .rollup
            .check_runs
            .values()
            .chain(self.rollup.status_contexts.values())
            .sum();
        StatusCheckRollupContextConnection {
            check_run_counts_by_state: Some(
                self.rollup
                    .check_runs
                    .iter()
                    .filter_map(|(state, count)| {
                        Some(CheckRunStateCount {
                            state: check_run_state(state)?,
                            count: *count as i32,
                        })
                    })
                    .collect(),
            ),
            status_context_counts_by_state: Some(
                self.rollup
                    .status_contexts
                    .iter()
                    .filter_map(|(state, count)| {
                        Some(StatusContextStateCount {
                            state: status_state(state)?,
                            count: *count as i32,
                        })
                    })
                    .collect(),
            ),
            page_info: PageInfo {
                end_cursor: None,
                has_next_page: false,
                has_previous_page: false,
                start_cursor: None,
            },
            total_count: total as i32,
        }
    }
}

pub(super) fn status_state(name: &str) -> Option<StatusState> {
    Some(match name {
        "ERROR" => StatusState::Error,
        "EXPECTED" => StatusState::Expected,
        "FAILURE" => StatusState::Failure,
        "PENDING" => StatusState::Pending,
        "SUCCESS" => StatusState::Success,
        _ => return None,
    })
}

pub(super) fn check_run_state(name: &str) -> Option<CheckRunState> {
    Some(match name {
        "ACTION_REQUIRED" => CheckRunState::ActionRequired,
        "CANCELLED" => CheckRunState::Cancelled,
        "COMPLETED" => CheckRunState::Completed,
        "FAILURE" => CheckRunState::Failure,
        "IN_PROGRESS" => CheckRunState::InProgress,
        "NEUTRAL" => CheckRunState::Neutral,
        "PENDING" => CheckRunState::Pending,
        "QUEUED" => CheckRunState::Queued,
        "SKIPPED" => CheckRunState::Skipped,
        "STALE" => CheckRunState::Stale,
        "STARTUP_FAILURE" => CheckRunState::StartupFailure,
        "SUCCESS" => CheckRunState::Success,
        "TIMED_OUT" => CheckRunState::TimedOut,
        "WAITING" => CheckRunState::Waiting,
        _ => return None,
    })
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(super) struct StatusCheckRollupContextConnection {
    pub(super) check_run_counts_by_state: Option<Vec<CheckRunStateCount>>,
    pub(super) status_context_counts_by_state: Option<Vec<StatusContextStateCount>>,
    pub(super) page_info: PageInfo,
    pub(super) total_count: i32,
}

#[derive(SimpleObject)]
pub(super) struct CheckRunStateCount {
    pub(super) state: CheckRunState,
    pub(super) count: i32,
}

#[derive(SimpleObject)]
pub(super) struct StatusContextStateCount {
    pub(super) state: StatusState,
    pub(super) count: i32,
}
