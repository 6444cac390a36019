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
use crate::shapes::{issue_node_id, time};
use crate::world::{Level, Refusal, Repo, World};

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

fn pull_connection(
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
pub(crate) struct PinnedIssueConnection {
    nodes: Option<Vec<Option<PinnedIssue>>>,
    page_info: PageInfo,
    total_count: i32,
}

#[derive(SimpleObject)]
pub(crate) struct PinnedIssue {
    issue: Issue,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct DeploymentConnection {
    nodes: Option<Vec<Option<Deployment>>>,
    page_info: PageInfo,
    total_count: i32,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct PullRequestConnection {
    nodes: Option<Vec<Option<PullRequest>>>,
    page_info: PageInfo,
    total_count: i32,
}

pub(crate) struct Issue {
    snapshot: Snapshot,
    number: u64,
}

impl Issue {
    fn issue(&self) -> &crate::world::Issue {
        &self.snapshot.repo().issues[&self.number]
    }
}

#[Object]
impl Issue {
    async fn id(&self) -> ID {
        ID(issue_node_id(self.snapshot.repo(), self.number))
    }

    async fn number(&self) -> i32 {
        self.number as i32
    }

    async fn title(&self) -> &str {
        &self.issue().title
    }

    async fn body(&self) -> &str {
        &self.issue().body
    }

    /// Newest first, as GitHub lists them.
    #[graphql(name = "userContentEdits")]
    async fn user_content_edits(
        &self,
        first: Option<i32>,
        after: Option<String>,
        last: Option<i32>,
        before: Option<String>,
    ) -> Option<UserContentEditConnection> {
        let _ = before;
        let edits: Vec<UserContentEdit> = self
            .issue()
            .edits
            .iter()
            .rev()
            .map(|e| UserContentEdit {
                id: ID(format!("UCE_{}", e.id)),
                created_at: DateTime(time(e.at)),
                edited_at: DateTime(time(e.at)),
                updated_at: DateTime(time(e.deleted_at.unwrap_or(e.at))),
                deleted_at: e.deleted_at.map(|t| DateTime(time(t))),
                deleted_by: e.deleted_by.as_deref().and_then(|l| self.snapshot.actor(l)),
                diff: e.deleted_at.is_none().then(|| e.body.clone()),
                editor: e.editor.as_deref().and_then(|l| self.snapshot.actor(l)),
            })
            .collect();
        let total = edits.len() as i32;
        let (nodes, page_info) = page(edits, first, after.as_deref(), last);
        Some(UserContentEditConnection {
            nodes: Some(nodes.into_iter().map(Some).collect()),
            page_info,
            total_count: total,
        })
    }
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct UserContentEditConnection {
    nodes: Option<Vec<Option<UserContentEdit>>>,
    page_info: PageInfo,
    total_count: i32,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct UserContentEdit {
    id: ID,
    created_at: DateTime,
    edited_at: DateTime,
    updated_at: DateTime,
    deleted_at: Option<DateTime>,
    deleted_by: Option<Actor>,
    diff: Option<String>,
    editor: Option<Actor>,
}

pub(crate) struct Deployment {
    snapshot: Snapshot,
    id: u64,
}

impl Deployment {
    fn record(&self) -> &crate::world::Deployment {
        &self.snapshot.repo().deployments[&self.id]
    }
}

#[Object]
impl Deployment {
    async fn id(&self) -> ID {
        ID(format!("DE_{}", self.id))
    }

    #[graphql(name = "databaseId")]
    async fn database_id(&self) -> Option<i32> {
        i32::try_from(self.id).ok()
    }

    async fn task(&self) -> Option<&str> {
        Some(&self.record().task)
    }

    async fn environment(&self) -> Option<&str> {
        Some(&self.record().environment)
    }

    /// GitHub's GraphQL API gives the payload JSON-encoded twice (decision 0003).
    async fn payload(&self) -> Option<String> {
        let once = serde_json::to_string(&self.record().payload).ok()?;
        serde_json::to_string(&once).ok()
    }

    #[graphql(name = "createdAt")]
    async fn created_at(&self) -> DateTime {
        DateTime(time(self.record().created_at))
    }

    #[graphql(name = "commitOid")]
    async fn commit_oid(&self) -> &str {
        &self.record().sha
    }

    #[graphql(name = "latestStatus")]
    async fn latest_status(&self) -> Option<DeploymentStatus> {
        let status = self.record().statuses.last()?;
        Some(DeploymentStatus {
            id: ID(format!("DES_{}", status.id)),
            state: DeploymentStatusState::from_rest(&status.state)?,
            description: Some(status.description.clone()),
            created_at: DateTime(time(status.created_at)),
        })
    }
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct DeploymentStatus {
    id: ID,
    state: DeploymentStatusState,
    description: Option<String>,
    created_at: DateTime,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(crate) enum DeploymentStatusState {
    Error,
    Failure,
    Inactive,
    InProgress,
    Pending,
    Queued,
    Success,
    Waiting,
}

impl DeploymentStatusState {
    fn from_rest(state: &str) -> Option<Self> {
        Some(match state {
            "error" => Self::Error,
            "failure" => Self::Failure,
            "inactive" => Self::Inactive,
            "in_progress" => Self::InProgress,
            "pending" => Self::Pending,
            "queued" => Self::Queued,
            "success" => Self::Success,
            "waiting" => Self::Waiting,
            _ => return None,
        })
    }
}

pub(crate) struct PullRequest {
    snapshot: Snapshot,
    number: u64,
}

impl PullRequest {
    fn pull(&self) -> &crate::world::Pull {
        &self.snapshot.repo().pulls[&self.number]
    }
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(crate) enum MergeableState {
    Conflicting,
    Mergeable,
    Unknown,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(crate) enum PatchStatus {
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
pub(crate) struct PullRequestChangedFileConnection {
    nodes: Option<Vec<Option<PullRequestChangedFile>>>,
    page_info: PageInfo,
    total_count: i32,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct PullRequestChangedFile {
    path: String,
    change_type: PatchStatus,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct PullRequestCommitConnection {
    nodes: Option<Vec<Option<PullRequestCommit>>>,
    page_info: PageInfo,
    total_count: i32,
}

#[derive(SimpleObject)]
pub(crate) struct PullRequestCommit {
    commit: Commit,
}

#[derive(Interface)]
#[graphql(field(name = "oid", ty = "GitObjectID"))]
pub(crate) enum GitObject {
    Commit(Commit),
}

pub(crate) struct Commit {
    snapshot: Snapshot,
    sha: String,
}

impl Commit {
    fn commit(&self) -> Option<&crate::world::Commit> {
        self.snapshot.repo().commits.get(&self.sha)
    }
}

#[derive(SimpleObject)]
pub(crate) struct GitActor {
    user: Option<User>,
    name: Option<String>,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(crate) enum StatusState {
    Error,
    Expected,
    Failure,
    Pending,
    Success,
}

#[derive(Enum, Copy, Clone, PartialEq, Eq)]
pub(crate) enum CheckRunState {
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
pub(crate) struct CommitConnection {
    nodes: Option<Vec<Option<Commit>>>,
    page_info: PageInfo,
    total_count: i32,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct CommitHistoryConnection {
    nodes: Option<Vec<Option<Commit>>>,
    page_info: PageInfo,
    total_count: i32,
}

pub(crate) struct StatusCheckRollup {
    rollup: crate::world::Rollup,
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

fn status_state(name: &str) -> Option<StatusState> {
    Some(match name {
        "ERROR" => StatusState::Error,
        "EXPECTED" => StatusState::Expected,
        "FAILURE" => StatusState::Failure,
        "PENDING" => StatusState::Pending,
        "SUCCESS" => StatusState::Success,
        _ => return None,
    })
}

fn check_run_state(name: &str) -> Option<CheckRunState> {
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
pub(crate) struct StatusCheckRollupContextConnection {
    check_run_counts_by_state: Option<Vec<CheckRunStateCount>>,
    status_context_counts_by_state: Option<Vec<StatusContextStateCount>>,
    page_info: PageInfo,
    total_count: i32,
}

#[derive(SimpleObject)]
pub(crate) struct CheckRunStateCount {
    state: CheckRunState,
    count: i32,
}

#[derive(SimpleObject)]
pub(crate) struct StatusContextStateCount {
    state: StatusState,
    count: i32,
}

pub(crate) struct Mutation;

#[derive(InputObject)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct PinIssueInput {
    client_mutation_id: Option<String>,
    issue_id: ID,
}

#[derive(SimpleObject)]
#[graphql(rename_fields = "camelCase")]
pub(crate) struct PinIssuePayload {
    client_mutation_id: Option<String>,
    issue: Option<Issue>,
}

#[Object]
impl Mutation {
    #[graphql(name = "pinIssue")]
    async fn pin_issue(
        &self,
        ctx: &async_graphql::Context<'_>,
        input: PinIssueInput,
    ) -> async_graphql::Result<Option<PinIssuePayload>> {
        let shared = ctx.data::<Shared>()?;
        ctx.data::<Caller>()?
            .require("issues", Level::Write)
            .map_err(forbidden)?;
        let pinned = shared.change(|world| {
            for repo in world.repos.values_mut() {
                let found = repo
                    .issues
                    .keys()
                    .copied()
                    .find(|&n| issue_node_id(repo, n) == input.issue_id.0);
                if let Some(number) = found {
                    if !repo.pinned.contains(&number) {
                        if repo.pinned.len() >= 3 {
                            return Err(Refusal::new(
                                422,
                                "A repository can pin at most three issues.",
                            ));
                        }
                        repo.pinned.push(number);
                    }
                    return Ok((repo.full_name(), number));
                }
            }
            Err(Refusal::not_found())
        });
        let (repo, number) = match pinned {
            Ok(found) => found,
            Err(refusal) if refusal.status == 404 => {
                return Err(not_found("a node", &input.issue_id.0));
            }
            Err(refusal) => {
                return Err(async_graphql::Error::new(refusal.message)
                    .extend_with(|_, e| e.set("type", "UNPROCESSABLE")));
            }
        };
        let snapshot = Snapshot {
            world: Arc::new(shared.read().clone()),
            repo,
            base: Arc::from(shared.base()),
        };
        Ok(Some(PinIssuePayload {
            client_mutation_id: input.client_mutation_id,
            issue: Some(Issue { snapshot, number }),
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
