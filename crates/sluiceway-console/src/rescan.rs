//! A rescan asked in the console: a run of the dashboard's workflow, dispatched as the
//! rescan box on the dashboard asks for one, for a person with write access, and never
//! while a run of that workflow is queued or under way.

use schemars::JsonSchema;
use serde::Serialize;
use sluiceway_github::{GitHub, GitHubError, RunsFilter};

/// What came of a rescan, in the reference's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Asked,
    Refused,
    #[serde(rename = "github")]
    GitHub,
    Failed,
}

#[derive(Debug, thiserror::Error)]
#[error("GitHub did not answer: {0}")]
pub struct Silent(GitHubError);

/// Asks for a full scan as `person`: the outcome and its sentence.
pub fn rescan(
    github: &dyn GitHub,
    person: &str,
    scan_run: u64,
) -> Result<(Outcome, String), Silent> {
    let permission = match github.permission(person) {
        Ok(permission) => permission,
        Err(e) if e.status() == Some(404) => {
            return Ok((
                Outcome::Refused,
                format!("GitHub says {person} is not a user."),
            ));
        }
        Err(e) => return Err(Silent(e)),
    };
    if !permission.push {
        return Ok((
            Outcome::Refused,
            format!("{person} cannot write to the repository, and a rescan needs write access."),
        ));
    }
    let Some(workflow) = crate::workflow::of_scan(github, scan_run) else {
        return Ok((
            Outcome::GitHub,
            "GitHub does not say which workflow scanned the dashboard; tick its rescan box instead.".to_owned(),
        ));
    };
    for status in ["queued", "in_progress"] {
        let filter = RunsFilter {
            event: None,
            status: Some(status.to_owned()),
        };
        let under_way = github
            .workflow_runs(&workflow.file, &filter)
            .map_err(Silent)?;
        if !under_way.is_empty() {
            return Ok((
                Outcome::Refused,
                format!(
                    "A run of {} is {} already; the dashboard is rewritten when it ends.",
                    workflow.file,
                    if status == "queued" {
                        "queued"
                    } else {
                        "under way"
                    }
                ),
            ));
        }
    }
    Ok(
        match github.dispatch_workflow(&workflow.file, &workflow.branch, &Default::default()) {
            Ok(_) => (
                Outcome::Asked,
                format!(
                    "A full scan was asked for: a run of {} on {}.",
                    workflow.file, workflow.branch
                ),
            ),
            Err(_) => (
                Outcome::Failed,
                format!("GitHub refused a run of {}.", workflow.file),
            ),
        },
    )
}
