//! Finding the dashboard issue, or making one (decision 0017). Only a scan does this;
//! every other writer takes the issue a scan made. The issue is found by its label, in
//! one list that also brings each body: of several open ones the lowest number is kept
//! and the others are closed with a comment that points to it; with none open, the
//! newest closed one is reopened; with none at all, one is created. Its title follows
//! `dashboard.title`, and with `dashboard.pin` it is pinned whenever the read of its body
//! says it is not. The pin is best effort: GitHub refuses a fourth pinned issue and a
//! token without the right, and a dashboard that is not pinned is still the dashboard,
//! so a refusal is told and the scan goes on.

use sluiceway_core::config::RawDashboard;
use sluiceway_github::{GitHub, GitHubError, Issue, IssueState, NewIssue};

/// The dashboard issue a scan will write, and what it took to get it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ensured {
    pub issue: Issue,
    pub how: How,
    /// Other open issues with the label, now closed.
    pub closed: Vec<u64>,
    pub renamed: bool,
}

/// What became of `dashboard.pin`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pin {
    /// Not asked for, or pinned already.
    Left,
    Pinned,
    /// GitHub would not read the pins or pin it; why, as GitHub said it.
    Refused(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    Found,
    Reopened,
    /// Created with the scan's first body.
    Created,
}

/// The open issues with the dashboard's label, lowest number first, each with its body.
pub fn find(github: &dyn GitHub, label: &str) -> Result<Vec<Issue>, GitHubError> {
    let mut open = github.open_issues_labelled(label)?;
    open.sort_by_key(|issue| issue.number);
    Ok(open)
}

/// Keeps the lowest of the `open` issues [`find`] listed (closing the others), or reopens
/// or creates one, with the configured title.
pub fn ensure(
    github: &dyn GitHub,
    dashboard: &RawDashboard,
    first_body: &str,
    open: Vec<Issue>,
) -> Result<Ensured, GitHubError> {
    let (issue, how, closed) = if let Some(kept) = open.first().cloned() {
        let mut closed = Vec::new();
        for duplicate in &open[1..] {
            github.comment(
                duplicate.number,
                &format!(
                    "Sluiceway keeps one dashboard per repository: #{}. This copy is closed.",
                    kept.number
                ),
            )?;
            github.set_issue_state(duplicate.number, IssueState::Closed)?;
            closed.push(duplicate.number);
        }
        (kept, How::Found, closed)
    } else if let Some(newest) = github
        .closed_issues_labelled(&dashboard.label)?
        .into_iter()
        .next()
    {
        github.set_issue_state(newest.number, IssueState::Open)?;
        (
            Issue {
                state: IssueState::Open,
                ..newest
            },
            How::Reopened,
            Vec::new(),
        )
    } else {
        let created = github.create_issue(&NewIssue {
            title: dashboard.title.clone(),
            body: first_body.to_owned(),
            labels: vec![dashboard.label.clone()],
        })?;
        (created, How::Created, Vec::new())
    };
    let renamed = issue.title != dashboard.title;
    if renamed {
        github.rename_issue(issue.number, &dashboard.title)?;
    }
    let issue = Issue {
        title: dashboard.title.clone(),
        ..issue
    };
    Ok(Ensured {
        issue,
        how,
        closed,
        renamed,
    })
}

/// Pins the dashboard when `dashboard.pin` asks and the newest read of its body said it
/// is not pinned (`None`: nothing was read, so the pins are asked for).
pub fn pin(
    github: &dyn GitHub,
    dashboard: &RawDashboard,
    issue: &Issue,
    pinned: Option<bool>,
) -> Pin {
    if !dashboard.pin {
        return Pin::Left;
    }
    let pinned = match pinned {
        Some(pinned) => pinned,
        None => match github.pinned_issues() {
            Ok(pins) => pins.contains(&issue.number),
            Err(e) => return Pin::Refused(e.to_string()),
        },
    };
    if pinned {
        return Pin::Left;
    }
    match github.pin_issue(issue) {
        Ok(()) => Pin::Pinned,
        Err(e) => Pin::Refused(e.to_string()),
    }
}
