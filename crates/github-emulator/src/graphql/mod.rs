//! The GraphQL endpoint: the part of GitHub's schema the port reads, with GitHub's own
//! type, field and argument names (a test holds every one of them to the published
//! schema). Each query reads one snapshot of the world.

use std::sync::Arc;

use async_graphql::{
    EmptySubscription, Enum, ErrorExtensions, ID, InputObject, Interface, Object, Schema,
    SimpleObject,
};
use serde::{Deserialize, Serialize};

use crate::server::{Caller, Shared};
use crate::world::{Level, Refusal, Repo, World};

mod commit;
mod deployment;
mod issue;
mod mutation;
mod pull_request;

use commit::{Commit, GitObject};
use deployment::{Deployment, DeploymentConnection};
use issue::{Issue, PinnedIssue, PinnedIssueConnection};
use mutation::Mutation;
use pull_request::{PullRequest, PullRequestConnection, pull_connection};

pub(crate) type EmulatorSchema = Schema<Query, Mutation, EmptySubscription>;

pub(crate) fn schema() -> EmulatorSchema {
    Schema::build(Query, Mutation, EmptySubscription).finish()
}

#[derive(Serialize, Deserialize, Clone, Debug)]
#[serde(transparent)]
pub(crate) struct DateTime(String);
async_graphql::scalar!(DateTime);

#[derive(Serialize, Deserialize, Clone, Debug)]
#[serde(transparent)]
pub(crate) struct Uri(String);
async_graphql::scalar!(Uri, "URI");

#[derive(Serialize, Deserialize, Clone, Debug)]
#[serde(transparent)]
pub(crate) struct GitObjectID(String);
async_graphql::scalar!(GitObjectID);

/// What every object of one query reads: the world as it was when the query came.
#[derive(Clone)]
struct Snapshot {
    world: Arc<World>,
    repo: String,
    base: Arc<str>,
}

impl Snapshot {
    fn repo(&self) -> &Repo {
        &self.world.repos[&self.repo]
    }

    fn html(&self, rest: &str) -> Uri {
        Uri(format!("{}/{}{rest}", self.base, self.repo))
    }

    fn actor(&self, login: &str) -> Option<Actor> {
        let account = self.world.account(login)?;
        let url = Uri(format!("{}/{}", self.base, account.login));
        let id = ID(format!("U_{}", account.id));
        Some(match account.kind {
            crate::world::AccountKind::Bot => Actor::Bot(Bot {
                login: account.login.clone(),
                id,
                url,
            }),
            _ => Actor::User(User {
                login: account.login.clone(),
                id,
                url,
            }),
        })
    }

    /// The user GitHub names in place of a deleted account.
    fn ghost(&self) -> Actor {
        Actor::User(User {
            login: "ghost".into(),
            id: ID("U_10137".into()),
            url: Uri(format!("{}/ghost", self.base)),
        })
    }
}

fn not_found(kind: &str, what: &str) -> async_graphql::Error {
    async_graphql::Error::new(format!(
        "Could not resolve to {kind} with the name '{what}'."
    ))
    .extend_with(|_, e| e.set("type", "NOT_FOUND"))
}

fn forbidden(refusal: Refusal) -> async_graphql::Error {
    async_graphql::Error::new(refusal.message).extend_with(|_, e| e.set("type", "FORBIDDEN"))
}

#[derive(SimpleObject, Clone)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct PageInfo {
    end_cursor: Option<String>,
    has_next_page: bool,
    has_previous_page: bool,
    start_cursor: Option<String>,
}

/// One page of `items`: GitHub's `first`/`after` and `last`/`before`, with cursors that
/// are places in the list.
fn page<T>(
    items: Vec<T>,
    first: Option<i32>,
    after: Option<&str>,
    last: Option<i32>,
) -> (Vec<T>, PageInfo) {
    let total = items.len();
    let start = after
        .and_then(|c| c.strip_prefix("cursor:"))
        .and_then(|n| n.parse::<usize>().ok())
        .map_or(0, |n| n + 1);
    let mut end = total;
    let mut from = start.min(total);
    if let Some(first) = first {
        end = (from + first.max(0) as usize).min(total);
    }
    if let Some(last) = last {
        from = end.saturating_sub(last.max(0) as usize).max(from);
    }
    let slice: Vec<T> = items.into_iter().skip(from).take(end - from).collect();
    let info = PageInfo {
        start_cursor: (!slice.is_empty()).then(|| format!("cursor:{from}")),
        end_cursor: (!slice.is_empty()).then(|| format!("cursor:{}", end - 1)),
        has_next_page: end < total,
        has_previous_page: from > 0,
    };
    (slice, info)
}

#[derive(Interface, Clone)]
#[graphql(field(name = "login", ty = "&String"))]
pub(crate) enum Actor {
    User(User),
    Bot(Bot),
}

#[derive(SimpleObject, Clone)]
pub(crate) struct User {
    login: String,
    id: ID,
    url: Uri,
}

#[derive(SimpleObject, Clone)]
pub(crate) struct Bot {
    login: String,
    id: ID,
    url: Uri,
}

pub(crate) struct Query;

#[Object]
impl Query {
    async fn repository(
        &self,
        ctx: &async_graphql::Context<'_>,
        owner: String,
        name: String,
        #[graphql(name = "followRenames")] _follow_renames: Option<bool>,
    ) -> async_graphql::Result<Option<Repository>> {
        let shared = ctx.data::<Shared>()?;
        let caller = ctx.data::<Caller>()?;
        caller.require("metadata", Level::Read).map_err(forbidden)?;
        let full = format!("{owner}/{name}");
        let world = Arc::new(shared.read().clone());
        if !world.repos.contains_key(&full) {
            return Err(not_found("a Repository", &full));
        }
        Ok(Some(Repository(Snapshot {
            world,
            repo: full,
            base: Arc::from(shared.base()),
        })))
    }
}

pub(crate) struct Repository(Snapshot);

#[derive(InputObject)]
pub(crate) struct DeploymentOrder {
    direction: OrderDirection,
    field: DeploymentOrderField,
}

#[derive(InputObject)]
pub(crate) struct IssueOrder {
    direction: OrderDirection,
    field: IssueOrderField,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(crate) enum OrderDirection {
    Asc,
    Desc,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(crate) enum DeploymentOrderField {
    CreatedAt,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(crate) enum IssueOrderField {
    Comments,
    CreatedAt,
    UpdatedAt,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(crate) enum PullRequestState {
    Closed,
    Merged,
    Open,
}

#[Object]
impl Repository {
    async fn issue(
        &self,
        ctx: &async_graphql::Context<'_>,
        number: i32,
    ) -> async_graphql::Result<Option<Issue>> {
        ctx.data::<Caller>()?
            .require("issues", Level::Read)
            .map_err(forbidden)?;
        match self.0.repo().issues.get(&(number as u64)) {
            Some(_) => Ok(Some(Issue {
                snapshot: self.0.clone(),
                number: number as u64,
            })),
            None => Err(not_found("an Issue", &number.to_string())),
        }
    }

    #[graphql(name = "pinnedIssues")]
    async fn pinned_issues(
        &self,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> Option<PinnedIssueConnection> {
        let _ = before;
        let pins: Vec<PinnedIssue> = self
            .0
            .repo()
            .pinned
            .iter()
            .map(|&number| PinnedIssue {
                issue: Issue {
                    snapshot: self.0.clone(),
                    number,
                },
            })
            .collect();
        let total = pins.len() as i32;
        let (nodes, page_info) = page(pins, first, after.as_deref(), last);
        Some(PinnedIssueConnection {
            nodes: Some(nodes.into_iter().map(Some).collect()),
            page_info,
            total_count: total,
        })
    }

    #[allow(clippy::too_many_arguments)]
    async fn deployments(
        &self,
        ctx: &async_graphql::Context<'_>,
        environments: Option<Vec<String>>,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
        #[graphql(name = "orderBy")] order_by: Option<DeploymentOrder>,
    ) -> async_graphql::Result<DeploymentConnection> {
        let _ = before;
        ctx.data::<Caller>()?
            .require("deployments", Level::Read)
            .map_err(forbidden)?;
        let mut records: Vec<Deployment> = self
            .0
            .repo()
            .deployments
            .values()
            .filter(|d| {
                environments
                    .as_ref()
                    .is_none_or(|e| e.contains(&d.environment))
            })
            .map(|d| Deployment {
                snapshot: self.0.clone(),
                id: d.id,
            })
            .collect();
        if order_by.is_some_and(|o| o.direction == OrderDirection::Desc) {
            records.reverse();
        }
        let total = records.len() as i32;
        let (nodes, page_info) = page(records, first, after.as_deref(), last);
        Ok(DeploymentConnection {
            nodes: Some(nodes.into_iter().map(Some).collect()),
            page_info,
            total_count: total,
        })
    }

    #[graphql(name = "pullRequests")]
    #[allow(clippy::too_many_arguments)]
    async fn pull_requests(
        &self,
        ctx: &async_graphql::Context<'_>,
        states: Option<Vec<PullRequestState>>,
        #[graphql(name = "baseRefName")] base_ref_name: Option<String>,
        #[graphql(name = "headRefName")] head_ref_name: Option<String>,
        labels: Option<Vec<String>>,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
        #[graphql(name = "orderBy")] order_by: Option<IssueOrder>,
    ) -> async_graphql::Result<PullRequestConnection> {
        let _ = (labels, before);
        ctx.data::<Caller>()?
            .require("pull-requests", Level::Read)
            .map_err(forbidden)?;
        let mut pulls: Vec<PullRequest> = self
            .0
            .repo()
            .pulls
            .values()
            .filter(|p| {
                let state = match (p.open, p.merge_commit.is_some()) {
                    (true, _) => PullRequestState::Open,
                    (false, true) => PullRequestState::Merged,
                    (false, false) => PullRequestState::Closed,
                };
                states.as_ref().is_none_or(|s| s.contains(&state))
            })
            .filter(|p| base_ref_name.as_ref().is_none_or(|b| &p.base == b))
            .filter(|p| head_ref_name.as_ref().is_none_or(|h| &p.head_branch == h))
            .map(|p| PullRequest {
                snapshot: self.0.clone(),
                number: p.number,
            })
            .collect();
        if order_by.is_some_and(|o| o.direction == OrderDirection::Desc) {
            pulls.reverse();
        }
        Ok(pull_connection(pulls, first, after.as_deref(), last))
    }

    async fn object(
        &self,
        expression: Option<String>,
        oid: Option<GitObjectID>,
    ) -> Option<GitObject> {
        let wanted = oid.map(|o| o.0).or(expression)?;
        let commit = self.0.repo().resolve(&wanted)?;
        Some(GitObject::Commit(Commit {
            snapshot: self.0.clone(),
            sha: commit.sha.clone(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::page;
    use proptest::prelude::*;

    proptest! {
        /// Following `endCursor` from the first page reads every item once, in order,
        /// and the last page says there is no next.
        #[test]
        fn cursors_walk_every_item_once(len in 0usize..300, first in 1i32..120) {
            let items: Vec<usize> = (0..len).collect();
            let mut seen = Vec::new();
            let mut after: Option<String> = None;
            loop {
                let (slice, info) = page(items.clone(), Some(first), after.as_deref(), None);
                prop_assert!(slice.len() <= first as usize);
                seen.extend(slice);
                if !info.has_next_page {
                    break;
                }
                after = info.end_cursor;
            }
            prop_assert_eq!(seen, items);
        }
    }
}
