//! The workflow's runs, listed once per scan (the newest hundred, one request): whether
//! an issue-edit run that will pick ticks up is not over yet (decision 0025), which runs
//! wait for a runner (decision 0086), and which failed since the scan before (decision
//! 0120). Without the workflow's file there is nothing to ask about.

use std::cell::Cell;

use sluiceway_github::{GitHub, RunsFilter, WorkflowRun};

use super::rows::TicksInFlight;

/// What the listing gave.
pub(super) enum Seen {
    /// The job does not name its workflow file.
    Unknown,
    Listed {
        runs: Vec<WorkflowRun>,
        own: u64,
    },
    /// GitHub would not list them; why.
    Failed {
        why: String,
        asked: Cell<bool>,
    },
}

impl Seen {
    pub(super) fn read(github: &dyn GitHub, workflow: Option<&str>, own: u64) -> Seen {
        let Some(workflow) = workflow else {
            return Seen::Unknown;
        };
        let every = RunsFilter {
            event: None,
            status: None,
        };
        match github.workflow_runs(workflow, &every) {
            Ok(runs) => Seen::Listed { runs, own },
            Err(e) => Seen::Failed {
                why: e.to_string(),
                asked: Cell::new(false),
            },
        }
    }

    /// The runs other than this one, for the lines under the scan line.
    pub(super) fn others(&self) -> Vec<WorkflowRun> {
        match self {
            Seen::Listed { runs, own } => runs.iter().filter(|r| r.id != *own).cloned().collect(),
            Seen::Unknown | Seen::Failed { .. } => Vec::new(),
        }
    }

    /// Why the listing failed, once a ticked row needed it: a tick may be lost then.
    pub(super) fn needed_and_failed(&self) -> Option<&str> {
        match self {
            Seen::Failed { why, asked } if asked.get() => Some(why),
            _ => None,
        }
    }
}

impl TicksInFlight for Seen {
    /// An issue-edit run other than this one that is not over. Without a listing the ticks
    /// are taken to be on their way: nothing is swept that might be picked up.
    fn in_flight(&self) -> bool {
        match self {
            Seen::Listed { runs, own } => runs
                .iter()
                .any(|r| r.id != *own && r.event == "issues" && r.status != "completed"),
            Seen::Unknown => true,
            Seen::Failed { asked, .. } => {
                asked.set(true);
                true
            }
        }
    }
}
