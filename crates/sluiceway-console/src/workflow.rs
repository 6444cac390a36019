//! The dashboard's workflow, found from the run that made its last scan: its file, which
//! a dispatch names, and the branch it scanned, the repository's default.

use sluiceway_github::GitHub;

/// A workflow a dispatch can name, and the branch to run it on.
pub(crate) struct Workflow {
    pub file: String,
    pub branch: String,
}

/// The workflow of the scan run `run`; `None` when GitHub does not say (the run is gone,
/// or the workflow is one GitHub made).
pub(crate) fn of_scan(github: &dyn GitHub, run: u64) -> Option<Workflow> {
    let run = github.workflow_run(run).ok()?;
    Some(Workflow {
        file: run.workflow_file?,
        branch: run.head_branch?,
    })
}
