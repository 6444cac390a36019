//! Settle (and the action's post step): ends every open Sluiceway record of its own run
//! that has no result, with `error` "the run ended without a result" (decisions 0003,
//! 0035), redraws those rows with their failure lines, and asks for a full scan. It runs
//! no tool and reads no env file. Red only when it could not write a status or ask for
//! the scan. Its `dashboard-url` is the event's issue when the event has one, and
//! otherwise the dashboard it found to redraw.

use sluiceway_dashboard::reader;
use sluiceway_dashboard::view::{Row, RowSource, State};
use sluiceway_github::{GitHub, NewDeploymentStatus, RecordState};

use crate::base::Outcome;
use crate::base::checkout::Checkout;
use crate::base::printer::Printer;
use crate::base::setup;
use crate::modes::apply::dashboard_issue;
use crate::modes::job::{Clock, Job};
use crate::modes::layers;
use crate::modes::outputs::Outputs;
use crate::modes::records::{Records, ended};
use crate::modes::resolve::{Dispatched, dispatch_workflow};
use crate::modes::rewrite::Rewrite;

pub fn run(
    job: &Job,
    github: &dyn GitHub,
    clock: &dyn Clock,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> Outcome {
    // From the event, as apply takes it: no request.
    if let Some(issue) = &job.issue {
        outputs.set("dashboard-url", issue.html_url.clone());
    }
    let setup = match setup::read(&Checkout::new(&job.workspace)) {
        Ok(setup) => setup,
        Err(_) => {
            printer.say("::error::sluiceway.yaml or discovery has a problem, so settle cannot tell which records are its own.");
            return Outcome::Failed;
        }
    };
    let records = match Records::read(
        github,
        &setup.discovery.stacks,
        &setup.config.settings.record_writers,
    ) {
        Ok(records) => records,
        Err(e) => {
            printer.say(&format!(
                "::error::The deployment records could not be read: {e}."
            ));
            return Outcome::Failed;
        }
    };
    let own: Vec<_> = records
        .all
        .iter()
        // A waiting record waits for a later run (decisions 0056, 0104): it is not this
        // run's to end.
        .filter(|r| r.is_open() && r.payload.run == job.run_id && !layers::waits(r))
        .collect();
    if own.is_empty() {
        printer.say("Every deployment record of this run has its result.");
        return Outcome::Done;
    }
    let mut red = false;
    let mut ended_now = Vec::new();
    for record in own {
        let status = NewDeploymentStatus {
            state: RecordState::Error,
            description: ended::NO_RESULT.to_owned(),
            log_url: Some(job.run_url()),
        };
        match github.set_deployment_status(record.id, &status) {
            Ok(()) => {
                printer.say(&format!("{}: {}.", record.stack, ended::NO_RESULT));
                ended_now.push(record.stack.clone());
            }
            Err(e) => {
                printer.say(&format!(
                    "::error::The deployment record {} of {} could not be ended: {e}.",
                    record.id, record.stack
                ));
                red = true;
            }
        }
    }
    // The rows of the records just ended say their deploy failed; a full scan follows.
    if let Some((number, url)) =
        dashboard_issue(job, github, &setup.config.settings.dashboard.label)
        && let Ok(records) = Records::read(
            github,
            &setup.discovery.stacks,
            &setup.config.settings.record_writers,
        )
    {
        outputs.set("dashboard-url", url);
        let failures = records.failure_lines(|run| job.links().run(run));
        let rewrite = Rewrite::of_job(&setup, job, &records, clock.now());
        let written = rewrite.write(github, number, &|block: &reader::RowBlock| {
            let stack = ended_now.iter().find(|s| s.as_str() == block.facts.stack)?;
            Some(RowSource::Fresh(Row {
                stack: stack.clone(),
                state: State::PreviewFailed {
                    reason: ended::NO_RESULT.to_owned(),
                    run: Some(job.run_url()),
                },
                failure: failures.get(stack).cloned(),
                notes: Vec::new(),
                drift_not_checked: false,
                policies: None,
                cost: None,
            }))
        });
        if let Err(e) = written {
            printer.say(&format!(
                "::warning::The dashboard could not be written: {e}."
            ));
        }
    }
    red |= !dispatch_workflow(job, github, Dispatched::FullScan, printer);
    if red { Outcome::Failed } else { Outcome::Done }
}
