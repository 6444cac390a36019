use std::fmt;

/// Every call the port makes, with what it is about. A failure names its call and the
/// permission the workflow token needs for it, so a red job says what to grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    FindDashboard { label: String },
    CreateDashboard,
    ChangeIssueState { number: u64 },
    RenameIssue { number: u64 },
    ReadPinnedIssues,
    PinIssue { number: u64 },
    ReadBody { number: u64 },
    WriteBody { number: u64 },
    Comment { number: u64 },
    ReadDeploymentRecords { environment: String },
    ReadDeploymentRecord { id: u64 },
    CreateDeploymentRecord { task: String },
    SetDeploymentStatus { id: u64 },
    ReadCheckRuns { sha: String },
    WriteCheckRun { name: String },
    DispatchWorkflow { workflow: String },
    ReadWorkflowRuns { workflow: String },
    ReadWorkflowRun { id: u64 },
    Compare { base: String, head: String },
    ReadCommit { sha: String },
    WalkCommits { head: String },
    ReadPermission { login: String },
    ReadOpenPullRequests,
    MergePullRequest { number: u64 },
    ReadFile { path: String },
    ReadRepository,
    ReadBranch { branch: String },
    WriteBranch { branch: String },
    WriteFile { path: String },
    ReadPullRequestsFrom { branch: String },
    OpenPullRequest { branch: String },
}

impl Call {
    /// The workflow token's permission this call needs (GitHub's own names).
    pub fn permission(&self) -> &'static str {
        match self {
            Call::FindDashboard { .. } | Call::ReadPinnedIssues | Call::ReadBody { .. } => {
                "issues: read"
            }
            Call::CreateDashboard
            | Call::ChangeIssueState { .. }
            | Call::RenameIssue { .. }
            | Call::PinIssue { .. }
            | Call::WriteBody { .. }
            | Call::Comment { .. } => "issues: write",
            Call::ReadDeploymentRecords { .. } | Call::ReadDeploymentRecord { .. } => {
                "deployments: read"
            }
            Call::CreateDeploymentRecord { .. } | Call::SetDeploymentStatus { .. } => {
                "deployments: write"
            }
            Call::ReadCheckRuns { .. } => "checks: read",
            Call::WriteCheckRun { .. } => "checks: write",
            Call::DispatchWorkflow { .. } => "actions: write",
            Call::ReadWorkflowRuns { .. } | Call::ReadWorkflowRun { .. } => "actions: read",
            Call::Compare { .. } | Call::ReadCommit { .. } | Call::WalkCommits { .. } => {
                "contents: read"
            }
            Call::ReadPermission { .. } => "metadata: read",
            Call::ReadOpenPullRequests => "pull-requests: read",
            Call::MergePullRequest { .. } => "contents: write",
            Call::ReadFile { .. } | Call::ReadBranch { .. } => "contents: read",
            Call::ReadRepository => "metadata: read",
            Call::WriteBranch { .. } | Call::WriteFile { .. } => "contents: write",
            Call::ReadPullRequestsFrom { .. } => "pull-requests: read",
            Call::OpenPullRequest { .. } => "pull-requests: write",
        }
    }
}

impl fmt::Display for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Call::FindDashboard { label } => {
                write!(f, "find the dashboard (issues labelled {label:?})")
            }
            Call::CreateDashboard => f.write_str("create the dashboard issue"),
            Call::ChangeIssueState { number } => write!(f, "open or close issue #{number}"),
            Call::RenameIssue { number } => write!(f, "rename issue #{number}"),
            Call::ReadPinnedIssues => f.write_str("read the pinned issues"),
            Call::PinIssue { number } => write!(f, "pin issue #{number}"),
            Call::ReadBody { number } => {
                write!(f, "read the body and edit history of issue #{number}")
            }
            Call::WriteBody { number } => write!(f, "write the body of issue #{number}"),
            Call::Comment { number } => write!(f, "comment on issue #{number}"),
            Call::ReadDeploymentRecords { environment } => {
                write!(
                    f,
                    "read the deployment records of environment {environment:?}"
                )
            }
            Call::ReadDeploymentRecord { id } => write!(f, "read deployment record {id}"),
            Call::CreateDeploymentRecord { task } => {
                write!(f, "create a deployment record for {task:?}")
            }
            Call::SetDeploymentStatus { id } => {
                write!(f, "set the status of deployment record {id}")
            }
            Call::ReadCheckRuns { sha } => write!(f, "read the check runs of commit {sha}"),
            Call::WriteCheckRun { name } => write!(f, "write the check run {name:?}"),
            Call::DispatchWorkflow { workflow } => write!(f, "dispatch the workflow {workflow}"),
            Call::ReadWorkflowRuns { workflow } => {
                write!(f, "read the runs of the workflow {workflow}")
            }
            Call::ReadWorkflowRun { id } => write!(f, "read workflow run {id}"),
            Call::Compare { base, head } => write!(f, "compare {base}...{head}"),
            Call::ReadCommit { sha } => write!(f, "read commit {sha}"),
            Call::WalkCommits { head } => write!(f, "walk the commits before {head}"),
            Call::ReadPermission { login } => {
                write!(f, "read the repository permission of {login}")
            }
            Call::ReadOpenPullRequests => f.write_str("read the open pull requests"),
            Call::MergePullRequest { number } => write!(f, "merge pull request #{number}"),
            Call::ReadFile { path } => write!(f, "read {path}"),
            Call::ReadRepository => f.write_str("read the repository"),
            Call::ReadBranch { branch } => write!(f, "read the branch {branch}"),
            Call::WriteBranch { branch } => write!(f, "point the branch {branch}"),
            Call::WriteFile { path } => write!(f, "write {path}"),
            Call::ReadPullRequestsFrom { branch } => {
                write!(f, "read the open pull requests from {branch}")
            }
            Call::OpenPullRequest { branch } => write!(f, "open a pull request from {branch}"),
        }
    }
}
