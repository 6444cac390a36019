//! The port: what Sluiceway asks of GitHub, in the domain's words. One repository per
//! port; the implementation knows which.

use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::GitHubError;

pub type Result<T> = std::result::Result<T, GitHubError>;

/// Everything a mode may ask of GitHub. Each method is one call, which may be more than
/// one request on the wire (pages, a retry); [`GitHub::requests_made`] counts those.
pub trait GitHub {
    /// Requests sent on the wire so far: every page, GraphQL query, retry and refused
    /// request. The scan logs it.
    fn requests_made(&self) -> u64;

    /// Open issues with the label, every page, lowest number first.
    fn open_issues_labelled(&self, label: &str) -> Result<Vec<Issue>>;
    /// Closed issues with the label: one page of 100, newest first.
    fn closed_issues_labelled(&self, label: &str) -> Result<Vec<Issue>>;
    fn create_issue(&self, issue: &NewIssue) -> Result<Issue>;
    fn set_issue_state(&self, number: u64, state: IssueState) -> Result<()>;
    fn rename_issue(&self, number: u64, title: &str) -> Result<()>;
    /// Numbers of the repository's pinned issues.
    fn pinned_issues(&self) -> Result<Vec<u64>>;
    fn pin_issue(&self, issue: &Issue) -> Result<()>;
    /// The body and one page of its edit history (newest first, 10 entries), in one
    /// query; `after` continues a walk from the previous page.
    fn read_body(&self, number: u64, after: Option<&EditCursor>) -> Result<BodyWithHistory>;
    fn write_body(&self, number: u64, body: &str) -> Result<()>;
    /// Comments on the issue and answers the comment's address.
    fn comment(&self, number: u64, body: &str) -> Result<String>;

    /// The newest 100 deployment records of one environment (one GraphQL page), and
    /// whether the environment holds more.
    fn deployment_records(&self, environment: &str) -> Result<RecordsPage>;
    /// Every record of one task in one environment, each with its latest status (the
    /// REST fallback when the page was full).
    fn deployment_records_of_task(
        &self,
        task: &str,
        environment: &str,
    ) -> Result<Vec<DeploymentRecord>>;
    fn deployment_record(&self, id: u64) -> Result<DeploymentRecord>;
    fn create_deployment_record(&self, record: &NewDeploymentRecord) -> Result<DeploymentRecord>;
    fn set_deployment_status(&self, id: u64, status: &NewDeploymentStatus) -> Result<()>;

    /// The newest check run of each name on a commit.
    fn check_runs(&self, sha: &str) -> Result<Vec<CheckRun>>;
    /// Writes a preview page: updates the run `existing` names, or creates one.
    fn write_check_run(&self, page: &PreviewPage, existing: Option<u64>) -> Result<CheckRun>;

    /// Dispatches the workflow (`workflow` is its file name) and answers the run it
    /// started, when GitHub says.
    fn dispatch_workflow(
        &self,
        workflow: &str,
        git_ref: &str,
        inputs: &BTreeMap<String, String>,
    ) -> Result<Option<RunLink>>;
    /// One page (the newest 100) of the workflow's runs.
    fn workflow_runs(&self, workflow: &str, filter: &RunsFilter) -> Result<Vec<WorkflowRun>>;
    fn workflow_run(&self, id: u64) -> Result<WorkflowRun>;

    fn compare(&self, base: &str, head: &str) -> Result<Comparison>;
    /// The files one commit changed (a direct push, for attribution).
    fn commit_files(&self, sha: &str) -> Result<Vec<ChangedFile>>;
    /// Up to `count` commits reachable from `head`, newest first, each with the merged
    /// pull requests that brought it and their files.
    fn recent_commits(&self, head: &str, count: u16) -> Result<Vec<CommitFacts>>;

    fn permission(&self, login: &str) -> Result<Permission>;

    /// Open pull requests against `base`, every page.
    fn open_pull_requests(&self, base: &str) -> Result<Vec<OpenPullRequest>>;
    /// A file's text at a commit; `None` when the commit has no such file.
    fn file_at(&self, path: &str, git_ref: &str) -> Result<Option<String>> {
        Ok(self.repo_file(path, git_ref)?.map(|file| file.text))
    }
    /// A file's text and blob at a commit or branch; `None` when there is no such file.
    fn repo_file(&self, path: &str, git_ref: &str) -> Result<Option<RepoFile>>;
    /// The repository's default branch.
    fn default_branch(&self) -> Result<String>;
    /// The commit a branch points at; `None` when there is no such branch.
    fn branch_head(&self, branch: &str) -> Result<Option<String>>;
    /// Points a branch at a commit: made when missing, moved there (forced) when not.
    fn point_branch(&self, branch: &str, sha: &str) -> Result<()>;
    /// Writes a file on a branch as one commit; answers the commit.
    fn write_file(&self, write: &FileWrite<'_>) -> Result<String>;
    /// The open pull request whose head is `branch` in this repository, if any.
    fn pull_request_from(&self, branch: &str) -> Result<Option<PullRequestLink>>;
    fn open_pull_request(&self, new: &NewPullRequest<'_>) -> Result<PullRequestLink>;
    /// Merges the pull request only if its head is still `head_sha`; answers the merge
    /// commit.
    fn merge_pull_request(
        &self,
        number: u64,
        head_sha: &str,
        method: MergeMethod,
    ) -> Result<String>;
}

/// A file in the repository, with the blob a write that replaces it must name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoFile {
    pub text: String,
    pub sha: String,
}

/// A file written on a branch.
#[derive(Debug, Clone, Copy)]
pub struct FileWrite<'a> {
    pub path: &'a str,
    pub branch: &'a str,
    pub text: &'a str,
    pub message: &'a str,
    /// The blob the file had when it was read; `None` for a new file.
    pub replacing: Option<&'a str>,
}

/// A pull request to open, from a branch of the repository.
#[derive(Debug, Clone, Copy)]
pub struct NewPullRequest<'a> {
    pub title: &'a str,
    pub body: &'a str,
    pub head: &'a str,
    pub base: &'a str,
}

/// A pull request as a person finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequestLink {
    pub number: u64,
    pub html_url: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueState {
    Open,
    Closed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    pub number: u64,
    /// GraphQL's id, which pinning needs.
    pub node_id: String,
    pub title: String,
    pub state: IssueState,
    pub author: Actor,
    pub html_url: String,
    pub labels: Vec<String>,
    pub created_at: Timestamp,
    /// The body as the list or read had it, so finding the dashboard reads it once.
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewIssue {
    pub title: String,
    pub body: String,
    pub labels: Vec<String>,
}

/// Who did something, as GitHub types them. A tick counts only from a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub login: String,
    pub kind: ActorKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActorKind {
    User,
    Bot,
    /// An organization, a mannequin, or a type GitHub adds later.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyWithHistory {
    pub body: String,
    /// Newest first.
    pub edits: Vec<Edit>,
    /// How many entries GitHub keeps in all (the original and the newest 99 edits).
    pub total_edits: u64,
    /// Where the next page starts, when there is one.
    pub next: Option<EditCursor>,
    /// The issue is pinned to the repository, read with the body so pinning asks nothing
    /// more when it is.
    pub pinned: bool,
}

/// One entry of an issue's edit history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub edited_at: Timestamp,
    /// `None` for an entry somebody deleted, or a deleted account.
    pub editor: Option<Actor>,
    /// The whole body as of this entry; `None` once the entry was deleted.
    pub body: Option<String>,
    pub deleted: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditCursor(pub String);

#[derive(Debug, Clone, PartialEq)]
pub struct RecordsPage {
    /// Newest first.
    pub records: Vec<DeploymentRecord>,
    pub more: bool,
}

/// One deployment record, Sluiceway's lock and history for a stack's deploy.
#[derive(Debug, Clone, PartialEq)]
pub struct DeploymentRecord {
    pub id: u64,
    pub task: String,
    pub environment: String,
    pub sha: String,
    /// The payload as JSON, whatever its version; the domain decides what it reads.
    pub payload: serde_json::Value,
    pub created_at: Timestamp,
    /// The login of the account that made the record: the workflow's own for a record
    /// a tick opened, another for one written outside the dashboard (decision 0109).
    /// `None` when GitHub names no account (a deleted one).
    pub creator: Option<String>,
    pub latest_status: Option<RecordStatus>,
}

impl DeploymentRecord {
    /// An open record is a deploy under way: its row says deploying and takes no tick.
    pub fn is_open(&self) -> bool {
        !self
            .latest_status
            .as_ref()
            .is_some_and(|status| status.state.is_result())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordStatus {
    pub state: RecordState,
    pub description: String,
    pub created_at: Timestamp,
}

/// GitHub's deployment states. `Queued`, `InProgress`, `Pending` and `Waiting` leave a
/// record open; the others are results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordState {
    Queued,
    InProgress,
    Pending,
    Waiting,
    Success,
    Failure,
    Error,
    Inactive,
}

impl RecordState {
    pub fn rest_name(self) -> &'static str {
        match self {
            RecordState::Queued => "queued",
            RecordState::InProgress => "in_progress",
            RecordState::Pending => "pending",
            RecordState::Waiting => "waiting",
            RecordState::Success => "success",
            RecordState::Failure => "failure",
            RecordState::Error => "error",
            RecordState::Inactive => "inactive",
        }
    }

    /// `success`, `inactive`, `failure` and `error` end a record; any other state, or no
    /// status at all, leaves it open (decision 0003).
    pub fn is_result(self) -> bool {
        matches!(
            self,
            RecordState::Success
                | RecordState::Inactive
                | RecordState::Failure
                | RecordState::Error
        )
    }

    /// Reads REST's lower-case and GraphQL's upper-case spellings alike.
    pub fn parse(name: &str) -> Option<RecordState> {
        [
            RecordState::Queued,
            RecordState::InProgress,
            RecordState::Pending,
            RecordState::Waiting,
            RecordState::Success,
            RecordState::Failure,
            RecordState::Error,
            RecordState::Inactive,
        ]
        .into_iter()
        .find(|state| state.rest_name().eq_ignore_ascii_case(name))
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct NewDeploymentRecord {
    pub sha: String,
    pub task: String,
    pub environment: String,
    pub payload: serde_json::Value,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDeploymentStatus {
    pub state: RecordState,
    pub description: String,
    /// The run that wrote it.
    pub log_url: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRun {
    pub id: u64,
    pub name: String,
    pub html_url: String,
    /// What the writer filed it under: a preview page's diff hash, so a page whose
    /// content is the same is not written again.
    pub external_id: Option<String>,
    /// The commit it is on.
    pub head_sha: String,
    /// Its output's title and text: a preview page's counts and its list of changes.
    pub title: Option<String>,
    pub text: Option<String>,
    pub completed_at: Option<Timestamp>,
}

/// A stack's preview page: a completed, neutral check run on the scanned commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewPage {
    pub sha: String,
    pub name: String,
    /// The diff hash the page shows.
    pub external_id: String,
    pub title: String,
    pub summary: String,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLink {
    pub id: u64,
    pub html_url: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunsFilter {
    pub event: Option<String>,
    pub status: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkflowRun {
    pub id: u64,
    pub event: String,
    pub status: String,
    pub conclusion: Option<String>,
    pub html_url: String,
    /// `run_started_at`, else `created_at`.
    pub started_at: Timestamp,
    /// The branch the run ran on: the default branch for a dashboard's scan.
    pub head_branch: Option<String>,
    /// The workflow's file, as a dispatch names it; `None` for a workflow GitHub made.
    pub workflow_file: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comparison {
    /// `ahead`, `behind`, `identical` or `diverged`.
    pub status: String,
    pub ahead_by: u64,
    pub files: Vec<ChangedFile>,
    pub html_url: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangedFile {
    pub path: String,
    /// The path before a rename.
    pub previous_path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommitFacts {
    pub sha: String,
    pub parents: Vec<String>,
    /// The GitHub account of the author, when GitHub links one.
    pub author: Option<Actor>,
    pub html_url: String,
    pub pull_requests: Vec<MergedPullRequest>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedPullRequest {
    pub number: u64,
    pub title: String,
    pub author: Option<Actor>,
    pub base: String,
    pub html_url: String,
    /// Up to 100 paths; `changed_files` says how many there are.
    pub files: Vec<String>,
    pub changed_files: u64,
}

/// A person's access to the repository, from GitHub's booleans.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Permission {
    pub login: String,
    pub kind: ActorKind,
    pub push: bool,
    pub maintain: bool,
    pub admin: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenPullRequest {
    pub number: u64,
    pub title: String,
    pub author: Option<Actor>,
    pub draft: bool,
    pub base: String,
    pub head_sha: String,
    pub html_url: String,
    /// GitHub's `MERGEABLE`, `CONFLICTING` or `UNKNOWN`.
    pub mergeable: String,
    pub changed_files: u64,
    /// Up to 100 files: path and, for a rename, the change type.
    pub files: Vec<PullRequestFile>,
    pub checks: Option<CheckCounts>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullRequestFile {
    pub path: String,
    pub change_type: String,
}

/// The head commit's check rollup, counts only (see decision 0119, second file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckCounts {
    pub state: String,
    /// Check-run states (GitHub's names) and how many runs are in each.
    pub check_runs: BTreeMap<String, u64>,
    /// Status-context states and how many contexts are in each.
    pub status_contexts: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeMethod {
    Merge,
    Squash,
    Rebase,
}

impl MergeMethod {
    pub fn rest_name(self) -> &'static str {
        match self {
            MergeMethod::Merge => "merge",
            MergeMethod::Squash => "squash",
            MergeMethod::Rebase => "rebase",
        }
    }
}
