//! The modes: the one hall that joins discovery, the adapter seam, the dashboard and the
//! GitHub port. Each mode is a function of the job, its inputs and its ports (the tool
//! runner, GitHub, the clock); `run` reads the `mode` input and picks one.

pub mod apply;
pub mod inputs;
pub mod job;
pub mod outputs;
pub mod records;
pub mod resolve;
pub mod rewrite;
pub mod scan;
pub mod settle;

use inputs::{Inputs, Mode};
use job::{Event, Job};

/// What a run does, from the `mode` input and the event (decision 0077).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    Scan,
    Resolve,
    Apply(u64),
    Settle,
    /// The dashboard's edit in auto mode: resolve, apply each record it opened in turn,
    /// then settle.
    Ticks,
    /// Nothing to do; the sentence says why, and the step stays green.
    Notice(String),
    /// The inputs do not make a run; the step fails with the sentence.
    Refuse(String),
}

pub fn route(inputs: &Inputs, job: &Job) -> Route {
    if let (Some(_), false) = (inputs.deployment_id, inputs.mode == Mode::Apply) {
        return Route::Refuse(format!(
            "the deployment-id input is for the apply mode, and this step's mode is {}",
            inputs.mode.name()
        ));
    }
    match inputs.mode {
        Mode::Scan => Route::Scan,
        Mode::Resolve => Route::Resolve,
        Mode::Settle => Route::Settle,
        Mode::Apply => match inputs.deployment_id {
            Some(id) => Route::Apply(id),
            None => Route::Refuse("the apply mode needs the deployment-id input".to_owned()),
        },
        Mode::Check => Route::Refuse(
            "the check mode runs as `sluiceway check`; the action's check step is not part of this version".to_owned(),
        ),
        Mode::Auto => match &job.event {
            Event::Push => {
                let default = job
                    .default_branch
                    .as_ref()
                    .map(|b| format!("refs/heads/{b}"));
                if default.is_some() && job.pushed_ref != default {
                    Route::Notice(format!(
                        "This push is to {}, not the default branch; only a push to the default branch is scanned.",
                        job.pushed_ref.as_deref().unwrap_or("another branch")
                    ))
                } else {
                    Route::Scan
                }
            }
            Event::Schedule | Event::Dispatch => Route::Scan,
            Event::Issues if job.issue.as_ref().is_some_and(|i| i.action == "edited") => Route::Ticks,
            Event::Issues => Route::Notice(
                "Only an edit of the dashboard issue asks Sluiceway for anything.".to_owned(),
            ),
            Event::Other(name) => Route::Notice(format!(
                "Sluiceway has nothing to do on the {name} event."
            )),
        },
    }
}
