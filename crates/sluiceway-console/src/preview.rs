//! A stack's full preview, read from its preview page on GitHub at the moment it is asked
//! and kept nowhere: the one answer that holds resource types, names, property paths and
//! the values a repository's `dashboard.showValues` lets its pages show. It is read with
//! the dashboard crate's own reader of the page the action wrote.

use schemars::JsonSchema;
use serde::Serialize;
use sluiceway_core::diff::Op;
use sluiceway_core::stack::StackId;
use sluiceway_dashboard::preview_page;
use sluiceway_dashboard::preview_reader::{self, ReadChange};
use sluiceway_github::{GitHub, GitHubError};

/// The page a stack's row links: the check run on the scanned commit.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PageLine {
    pub name: String,
    pub url: String,
    pub sha: String,
    pub at: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PolicyLine {
    /// Only the policies that failed are on a page.
    pub result: PolicyResult,
    pub namespace: String,
    pub message: String,
}

#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PolicyResult {
    Failed,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangeLine {
    pub action: &'static str,
    pub tracking: Option<&'static str>,
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    pub properties: Vec<String>,
    pub forced_by: Vec<String>,
    pub values: Vec<ValueLine>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ValueLine {
    pub path: String,
    pub old: Option<String>,
    pub new: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DriftLine {
    /// `changed`, or `gone`.
    pub action: &'static str,
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    pub properties: Vec<String>,
}

/// What a stack's page says, as the API answers it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Preview {
    pub stack: String,
    pub repo: String,
    pub page: PageLine,
    pub title: String,
    pub policies: Vec<PolicyLine>,
    pub changes: Vec<ChangeLine>,
    pub drift: Vec<DriftLine>,
    pub unlisted: usize,
    pub unread: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    /// The commit has no page of the stack.
    #[error("no preview page of the stack on the scanned commit")]
    NoPage,
    /// The page is there without a text to read.
    #[error("the preview page has no text")]
    Unreadable,
    #[error("GitHub did not answer: {0}")]
    Silent(GitHubError),
}

/// Reads `stack`'s page on the scanned commit `sha` of `repo`.
pub fn preview(
    github: &dyn GitHub,
    repo: &str,
    stack: &str,
    sha: &str,
) -> Result<Preview, PreviewError> {
    let name = preview_page::name(&StackId::given(stack));
    let run = github
        .check_runs(sha)
        .map_err(PreviewError::Silent)?
        .into_iter()
        .find(|run| run.name == name)
        .ok_or(PreviewError::NoPage)?;
    let text = run.text.as_deref().ok_or(PreviewError::Unreadable)?;
    let read = preview_reader::read(text);
    Ok(Preview {
        stack: stack.to_owned(),
        repo: repo.to_owned(),
        page: PageLine {
            name: run.name.clone(),
            url: run.html_url.clone(),
            sha: sha.to_owned(),
            at: run.completed_at.map(|at| at.to_string()),
        },
        title: run.title.clone().unwrap_or(name),
        policies: read
            .policies
            .into_iter()
            .map(|p| PolicyLine {
                result: PolicyResult::Failed,
                namespace: p.namespace,
                message: p.message,
            })
            .collect(),
        changes: read.changes.into_iter().map(change_line).collect(),
        drift: read
            .drift
            .into_iter()
            .map(|c| DriftLine {
                action: if c.op == Op::Delete {
                    "gone"
                } else {
                    "changed"
                },
                kind: c.kind,
                name: c.name,
                properties: c.properties,
            })
            .collect(),
        unlisted: read.unlisted,
        unread: read.unread,
    })
}

fn change_line(change: ReadChange) -> ChangeLine {
    ChangeLine {
        action: change.op.name(),
        tracking: change.tracking.map(|t| t.name()),
        kind: change.kind,
        name: change.name,
        properties: change.properties,
        forced_by: change.forced_by,
        values: change
            .values
            .into_iter()
            .map(|v| ValueLine {
                path: v.path,
                old: v.old,
                new: v.new,
            })
            .collect(),
    }
}
