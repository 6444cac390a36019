//! The job a mode runs in: what GitHub Actions says about it in the environment, read
//! once at the edge, and the clock. Nothing below reads the environment itself.

use std::collections::BTreeMap;
use std::path::PathBuf;

use jiff::Timestamp;
use sluiceway_dashboard::view::Links;
pub use sluiceway_dashboard::view::Reach;

/// The summary a local scan writes beside its dashboard, where its links point.
pub const LOCAL_SUMMARY: &str = "summary.md";

/// What started the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    Push,
    Schedule,
    Dispatch,
    /// An issue was opened, edited, …: the dashboard's edit wakes resolve.
    Issues,
    /// A pull request was opened or pushed to: previewed for its reviewer (decision 0101).
    PullRequest,
    /// Any other event, by GitHub's name for it.
    Other(String),
}

impl Event {
    pub fn name(&self) -> &str {
        match self {
            Event::Push => "push",
            Event::Schedule => "schedule",
            Event::Dispatch => "workflow_dispatch",
            Event::Issues => "issues",
            Event::PullRequest => "pull_request",
            Event::Other(name) => name,
        }
    }

    fn from_name(name: &str) -> Event {
        match name {
            "push" => Event::Push,
            "schedule" => Event::Schedule,
            "workflow_dispatch" => Event::Dispatch,
            "issues" => Event::Issues,
            "pull_request" => Event::PullRequest,
            other => Event::Other(other.to_owned()),
        }
    }
}

/// The issue an `issues` event is about, as its payload says; only a wake-up, never
/// the source of a tick (decision 0025).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventIssue {
    pub number: u64,
    /// `edited`, `opened`, …
    pub action: String,
    pub open: bool,
    pub author: String,
    pub first_line: String,
    pub labels: Vec<String>,
    pub html_url: String,
}

/// The pull request a `pull_request` event is about, as its payload says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventPullRequest {
    pub number: u64,
    /// The commit the reviewer sees, where the pages go.
    pub head_sha: String,
    /// The base branch's commit the pull request is compared with.
    pub base_sha: String,
    /// `owner/name` of the head's repository; `None` when the payload names none (a
    /// deleted fork).
    pub head_repository: Option<String>,
    pub base_repository: String,
}

impl EventPullRequest {
    /// From a fork, or from nowhere the payload names: its code never runs here with this
    /// repository's credentials.
    pub fn is_from_a_fork(&self) -> bool {
        self.head_repository
            .as_deref()
            .is_none_or(|head| !head.eq_ignore_ascii_case(&self.base_repository))
    }
}

/// The job's facts.
#[derive(Debug, Clone)]
pub struct Job {
    pub event: Event,
    /// The checked-out commit.
    pub sha: String,
    pub run_id: u64,
    pub run_attempt: u64,
    /// `https://github.com`, or a GitHub Enterprise Server.
    pub server: String,
    /// `owner/name`.
    pub repository: String,
    /// The checkout's directory.
    pub workspace: PathBuf,
    /// `$GITHUB_OUTPUT`, `$GITHUB_STEP_SUMMARY`, `$RUNNER_TEMP`.
    pub output_file: Option<PathBuf>,
    pub summary_file: Option<PathBuf>,
    pub runner_temp: PathBuf,
    /// The ref pushed to, and the repository's default branch from the event payload.
    pub pushed_ref: Option<String>,
    pub default_branch: Option<String>,
    /// Who sent the event (the pusher, a person or an app): a merge's deploys are theirs.
    pub sender: Option<String>,
    /// The issue of an `issues` event.
    pub issue: Option<EventIssue>,
    /// The pull request of a `pull_request` event.
    pub pull_request: Option<EventPullRequest>,
    /// The updates a resolve merged, when this run is the scan it asked for: the
    /// `sluiceway-merged` input of a dispatch by the workflow's own token (decision 0064).
    /// A person's dispatch with the input gets a full scan.
    pub merged_updates: Vec<u64>,
    /// The workflow's file name (`deploy-dashboard.yml`), from `GITHUB_WORKFLOW_REF`.
    pub workflow_file: Option<String>,
    /// The tool's environment: the job's, without the `INPUT_*` variables.
    pub tool_env: BTreeMap<String, String>,
    /// What this job's links may point at: a job's runs, or less for a local scan.
    pub reach: Reach,
}

impl Job {
    /// Where the dashboard's links point for this job: the server, the repository, this
    /// attempt's summary and the release's pictures.
    pub fn links(&self) -> Links {
        Links {
            server: self.server.clone(),
            repository: self.repository.clone(),
            // A local scan's summary is the file beside its dashboard.
            summary: match self.reach {
                Reach::Runs => self.attempt_url(),
                Reach::Repository | Reach::Nothing => LOCAL_SUMMARY.to_owned(),
            },
            pictures: crate::base::identity::pictures(),
            reach: self.reach,
        }
    }

    /// Reads the job from the environment and the event payload's text.
    pub fn from_env(env: &BTreeMap<String, String>, event_payload: Option<&str>) -> Job {
        let get = |name: &str| env.get(name).filter(|v| !v.is_empty()).cloned();
        let number = |name: &str| get(name).and_then(|v| v.parse().ok()).unwrap_or(0);
        let payload: serde_json::Value = event_payload
            .and_then(|text| serde_json::from_str(text).ok())
            .unwrap_or_default();
        let text_at = |pointer: &str| {
            payload
                .pointer(pointer)
                .and_then(serde_json::Value::as_str)
                .map(str::to_owned)
        };
        Job {
            event: Event::from_name(&get("GITHUB_EVENT_NAME").unwrap_or_default()),
            sha: get("GITHUB_SHA").unwrap_or_default(),
            run_id: number("GITHUB_RUN_ID"),
            run_attempt: number("GITHUB_RUN_ATTEMPT").max(1),
            server: get("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".to_owned()),
            repository: get("GITHUB_REPOSITORY").unwrap_or_default(),
            workspace: get("GITHUB_WORKSPACE").map_or_else(|| PathBuf::from("."), PathBuf::from),
            output_file: get("GITHUB_OUTPUT").map(PathBuf::from),
            summary_file: get("GITHUB_STEP_SUMMARY").map(PathBuf::from),
            runner_temp: get("RUNNER_TEMP").map_or_else(std::env::temp_dir, PathBuf::from),
            pushed_ref: text_at("/ref").or_else(|| get("GITHUB_REF")),
            default_branch: text_at("/repository/default_branch"),
            sender: text_at("/sender/login").filter(|login| !login.is_empty()),
            issue: payload.get("issue").and_then(|issue| {
                Some(EventIssue {
                    number: issue.get("number")?.as_u64()?,
                    action: text_at("/action").unwrap_or_default(),
                    open: issue.get("state").and_then(serde_json::Value::as_str) == Some("open"),
                    author: issue
                        .pointer("/user/login")
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                    first_line: issue
                        .get("body")
                        .and_then(serde_json::Value::as_str)
                        .and_then(|b| b.lines().next())
                        .unwrap_or_default()
                        .to_owned(),
                    labels: issue
                        .get("labels")
                        .and_then(serde_json::Value::as_array)
                        .map(|labels| {
                            labels
                                .iter()
                                .filter_map(|l| l.get("name")?.as_str().map(str::to_owned))
                                .collect()
                        })
                        .unwrap_or_default(),
                    html_url: issue
                        .get("html_url")
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                })
            }),
            pull_request: payload.get("pull_request").and_then(|pull| {
                let text = |pointer: &str| {
                    pull.pointer(pointer)
                        .and_then(serde_json::Value::as_str)
                        .map(str::to_owned)
                };
                Some(EventPullRequest {
                    number: pull.get("number")?.as_u64()?,
                    head_sha: text("/head/sha")?,
                    base_sha: text("/base/sha")?,
                    head_repository: text("/head/repo/full_name"),
                    base_repository: text("/base/repo/full_name")?,
                })
            }),
            merged_updates: match (
                text_at("/sender/login"),
                text_at("/inputs/sluiceway-merged"),
            ) {
                (Some(sender), Some(numbers)) if sender == "github-actions[bot]" => numbers
                    .split(',')
                    .filter_map(|n| n.trim().parse().ok())
                    .collect(),
                _ => Vec::new(),
            },
            workflow_file: get("GITHUB_WORKFLOW_REF").and_then(|r| {
                let path = r.split('@').next()?;
                let (_, file) = path.rsplit_once("/.github/workflows/")?;
                Some(file.to_owned())
            }),
            tool_env: sluiceway_core::runner::tool_environment(env.clone()),
            reach: Reach::Runs,
        }
    }

    /// The login a push to the default branch came from: the one deploys on merge are
    /// credited to. `None` for any other event, or a push without a sender.
    pub fn merger(&self) -> Option<&str> {
        let default = self.default_branch.as_ref()?;
        (self.event == Event::Push
            && self.pushed_ref.as_deref() == Some(format!("refs/heads/{default}").as_str()))
        .then_some(self.sender.as_deref())
        .flatten()
    }

    /// The run's page, where a row's `run` link points.
    pub fn run_url(&self) -> String {
        format!(
            "{}/{}/actions/runs/{}",
            self.server, self.repository, self.run_id
        )
    }

    /// The page of this attempt, which holds the job summary (decision 0044).
    pub fn attempt_url(&self) -> String {
        format!("{}/attempts/{}", self.run_url(), self.run_attempt)
    }
}

/// Where time comes from; tests pin it.
pub trait Clock: Sync {
    fn now(&self) -> Timestamp;
}

/// The machine's clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}
