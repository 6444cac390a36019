//! Records that wait (decisions 0056 and 0104): behind other stacks' deploys, or for
//! the stack's deploy window. Resolve opens them queued, with the stacks they wait
//! behind (or `window`) in the payload. A later run starts a waiting record as a new
//! record of its own once nothing holds it: every stack it waited behind went out
//! (that run is dispatched by the apply that ended the last of them), its window is
//! open, and no freeze is on; or it ends the record when a dependency did not deploy.
//! Only a scheduled or dispatched run starts a record that waited for its window, since
//! nothing else wakes when a window opens. A waiting record is never deployed itself.
//!
//! A record a login of `recordWriters` opened outside the dashboard (decision 0109)
//! waits the same way, for a scheduled or dispatched run and an open window, and is
//! started as a record of the workflow's own; apply then checks its hash and values as
//! it checks a tick's. An open record anyone else opened is ended and never deployed.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use sluiceway_core::calendar::{Calendar, Moment};
use sluiceway_core::gate::{self, Newest, Readiness};
use sluiceway_core::record::{self, Payload};
use sluiceway_core::stack::{Stack, StackId};
use sluiceway_github::{
    GitHub, GitHubError, NewDeploymentRecord, NewDeploymentStatus, RecordState,
};

use crate::base::printer::Printer;
use crate::modes::job::Job;
use crate::modes::records::{Opener, Record, Records, ended};
use crate::modes::resolve::Started;

/// Opens a record for `stack` and gives it its `queued` status; its id.
pub fn open_record(
    job: &Job,
    github: &dyn GitHub,
    stack: &Stack,
    payload: &Payload,
) -> Result<u64, GitHubError> {
    let how = if payload.on_merge { "merged" } else { "ticked" };
    let made = github.create_deployment_record(&NewDeploymentRecord {
        sha: job.sha.clone(),
        task: record::task_for(&stack.id),
        environment: stack.settings.environment.clone(),
        payload: payload.to_json(),
        description: format!("{} {how} by {}", stack.id, payload.ticker),
    })?;
    github.set_deployment_status(
        made.id,
        &NewDeploymentStatus {
            state: RecordState::Queued,
            description: format!("{how} by {}", payload.ticker),
            log_url: Some(job.run_url()),
        },
    )?;
    Ok(made.id)
}

/// What one run did with the queued records it found.
#[derive(Debug, Default)]
pub struct Advanced {
    /// New records, handed on like fresh ticks.
    pub started: Vec<Started>,
    /// Stacks whose queued record ended because a dependency did not deploy.
    pub ended: Vec<StackId>,
    pub red: bool,
}

/// When the run judges the waiting records.
pub struct When<'a> {
    pub calendar: &'a Calendar,
    pub now: Timestamp,
    /// A scheduled or dispatched run: it starts records that waited for their window.
    pub starts_waiting: bool,
}

impl When<'_> {
    /// Whether a deploy of `stack` may start now: no freeze, and its window open.
    pub fn may_start(&self, stack: &Stack) -> bool {
        self.calendar
            .judge(&stack.settings.deploy_windows, self.now)
            == Moment::Open
    }
}

/// Whether an open record waits rather than deploys: behind other stacks, for its
/// window, or for a run to start a record writer's.
pub fn waits(record: &Record) -> bool {
    !record.payload.behind.is_empty() || record.payload.window || record.opener == Opener::Writer
}

/// Whether only a scheduled or dispatched run may start the record.
fn waits_for_a_timed_run(record: &Record) -> bool {
    record.payload.window || record.opener == Opener::Writer
}

/// The waiting records of the records read, newest per stack, in stack-id order.
fn queued(records: &Records) -> BTreeMap<&StackId, &Record> {
    let mut queued = BTreeMap::new();
    for record in records.all.iter().filter(|r| r.is_open() && waits(r)) {
        queued
            .entry(&record.stack)
            .and_modify(|kept: &mut &Record| {
                if record.id > kept.id {
                    *kept = record;
                }
            })
            .or_insert(record);
    }
    queued
}

fn newest(records: &Records, stack: &StackId) -> Newest {
    match records.newest_of(stack) {
        None => Newest::None,
        Some(r) if r.is_open() => Newest::Open,
        Some(r) => match r.state {
            Some(RecordState::Success | RecordState::Inactive) => Newest::WentOut,
            _ => Newest::Failed,
        },
    }
}

/// Ends every open record a stranger opened, starts every waiting record that nothing
/// holds any longer, and ends every one whose dependency did not deploy; one that still
/// waits is left alone.
pub fn advance(
    job: &Job,
    github: &dyn GitHub,
    records: &Records,
    stacks: &BTreeMap<&str, &Stack>,
    when: &When<'_>,
    printer: &mut Printer,
) -> Advanced {
    let mut advanced = Advanced::default();
    for stranger in &records.strangers {
        let ended = github.set_deployment_status(
            stranger.id,
            &NewDeploymentStatus {
                state: RecordState::Failure,
                description: ended::NOT_A_WRITER.to_owned(),
                log_url: Some(job.run_url()),
            },
        );
        let by = stranger
            .creator
            .as_deref()
            .unwrap_or("an account GitHub no longer names");
        match ended {
            Ok(()) => printer.say(&format!(
                "::warning::{}: record {} was opened by {by}, whom recordWriters does not name, so it was ended and nothing was deployed.",
                stranger.stack, stranger.id
            )),
            Err(e) => {
                printer.say(&format!(
                    "::error::{}: record {} was opened by {by}, whom recordWriters does not name, and could not be ended: {e}.",
                    stranger.stack, stranger.id
                ));
                advanced.red = true;
            }
        }
    }
    let mut now_open: BTreeSet<StackId> = BTreeSet::new();
    for (id, waiting) in queued(records) {
        let readiness = gate::readiness(&waiting.payload.behind, |b| {
            if now_open.contains(b) {
                Newest::Open
            } else {
                newest(records, b)
            }
        });
        let status = |state, description: &str| NewDeploymentStatus {
            state,
            description: description.to_owned(),
            log_url: Some(job.run_url()),
        };
        let stack = stacks.get(id.as_str());
        let held_by_the_calendar = stack.is_some_and(|stack| {
            !when.may_start(stack) || (waits_for_a_timed_run(waiting) && !when.starts_waiting)
        });
        // A writer's record may come while a deploy of the stack is under way.
        let deploying = records
            .all
            .iter()
            .any(|r| &r.stack == id && r.is_open() && !waits(r));
        match readiness {
            Readiness::Waiting => {}
            Readiness::Ready if deploying => {
                printer.say(&format!(
                    "{id}: a deploy of it is under way, so its waiting record is left for a later run."
                ));
            }
            Readiness::Ready if held_by_the_calendar => {
                if waiting.opener == Opener::Writer
                    && !waiting.payload.window
                    && stack.is_some_and(|stack| when.may_start(stack))
                {
                    printer.say(&format!(
                        "{id}: a record writer's record waits for a scheduled or dispatched run, or a tick of its row."
                    ));
                } else {
                    printer.say(&format!(
                        "{id}: nothing it waited behind holds it, and it waits for its deploy window (or the end of a freeze)."
                    ));
                }
            }
            Readiness::DependencyFailed => {
                match github.set_deployment_status(
                    waiting.id,
                    &status(RecordState::Failure, ended::DEPENDENCY_FAILED),
                ) {
                    Ok(()) => {
                        printer.say(&format!("{id}: {}.", ended::DEPENDENCY_FAILED));
                        advanced.ended.push(id.clone());
                    }
                    Err(e) => {
                        printer.say(&format!(
                            "::error::The queued record of {id} could not be ended: {e}."
                        ));
                        advanced.red = true;
                    }
                }
            }
            Readiness::Ready => {
                let Some(stack) = stack else {
                    continue;
                };
                // Carried key by key (decision 0091): the approval, the ticker and what
                // it covers; the run is this one, and nothing is waited behind now.
                let payload = Payload {
                    approved: waiting.payload.approved.clone(),
                    ticker: waiting.payload.ticker.clone(),
                    drift: waiting.payload.drift,
                    on_merge: waiting.payload.on_merge,
                    fingerprint: waiting.payload.fingerprint.clone(),
                    run: job.run_id,
                    attempt: u32::try_from(job.run_attempt).ok(),
                    behind: Vec::new(),
                    window: false,
                };
                let opened = open_record(job, github, stack, &payload).and_then(|new| {
                    github.set_deployment_status(
                        waiting.id,
                        &status(RecordState::Inactive, ended::STARTED_LATER),
                    )?;
                    Ok(new)
                });
                match opened {
                    Ok(new) => {
                        match (waiting.opener, &waiting.creator) {
                            (Opener::Writer, Some(writer)) => printer.say(&format!(
                                "{id}: {writer}, a record writer, opened record {} outside the dashboard, so its deploy starts now.",
                                waiting.id
                            )),
                            _ => printer.say(&format!(
                                "{id}: nothing holds it any longer, so its deploy starts now."
                            )),
                        }
                        now_open.insert(id.clone());
                        advanced.started.push(Started {
                            stack: id.clone(),
                            environment: stack.settings.environment.clone(),
                            deployment: new,
                            ticker: payload.ticker.clone(),
                            on_merge: payload.on_merge,
                        });
                    }
                    Err(e) => {
                        printer.say(&format!(
                            "::error::The queued deploy of {id} could not be started: {e}."
                        ));
                        advanced.red = true;
                        break;
                    }
                }
            }
        }
    }
    advanced
}

/// Whether a queued record that waited behind `stack` no longer waits: the record of
/// `stack` just ended, and a run should come to start it (or end it). A record whose
/// window is closed now, or any while a freeze is on, is left to a scheduled run.
pub fn next_layer_due(
    records: &Records,
    stacks: &[Stack],
    stack: &StackId,
    when: &When<'_>,
) -> bool {
    queued(records).iter().any(|(id, waiting)| {
        let may_start = stacks
            .iter()
            .find(|s| &s.id == *id)
            .is_some_and(|s| when.may_start(s));
        waiting.payload.behind.contains(stack)
            && match gate::readiness(&waiting.payload.behind, |b| newest(records, b)) {
                Readiness::Waiting => false,
                Readiness::Ready => may_start,
                Readiness::DependencyFailed => true,
            }
    })
}
