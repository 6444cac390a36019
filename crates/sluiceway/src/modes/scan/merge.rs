//! Deploys on merge (decision 0095). A stack with `deploy: on-merge` deploys when the
//! scan of a push to the default branch finds its change pending, credited to whoever
//! sent the push: the scan opens its record at the late read, as a tick's would be
//! opened, and hands it on in `matrix`. Some changes still wait for a person's tick,
//! and their rows say why: a policy that failed on it, a delete or a replace, a change
//! whose hash covers drift, a cost above the stack's threshold (or one that could not be
//! estimated), a dependency with a change of its own waiting, deploys turned off, a
//! freeze. A closed
//! deploy window makes the record wait for it; a dependency deploying queues it behind.
//! The notes are plain text: the renderer escapes a fresh row's notes.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use sluiceway_core::calendar::Moment;
use sluiceway_core::config::DeployTrigger;
use sluiceway_core::diff::{Diff, Op, Tracking};
use sluiceway_core::gate::{self, Gated, Waits};
use sluiceway_core::record::{Approved, Payload};
use sluiceway_core::stack::{Stack, StackId, Tool};
use sluiceway_dashboard::view::Policed;
use sluiceway_github::{GitHub, NewDeploymentStatus, RecordState};

use crate::base::printer::Printer;
use crate::modes::job::Job;
use crate::modes::layers;
use crate::modes::records::{Opener, Record, Records, ended};
use crate::modes::resolve::{Started, hold_text};
use crate::modes::scan::rows::{Found, Scanned};

pub const DESTROYS_NOTE: &str = "this stack deploys on merge, and this change waits for a tick: it deletes or replaces a resource.";
pub const DRIFT_NOTE: &str =
    "the stack drifted, and a deploy would also put back what changed outside the code.";
pub const COST_UNKNOWN_NOTE: &str = "this stack deploys on merge, and this change waits for a tick: its cost could not be estimated.";
pub const POLICY_NOTE: &str =
    "this stack deploys on merge, and this change deployed nothing: a policy failed on it.";
pub const DEPLOYS_OFF_NOTE: &str =
    "this stack deploys on merge, and deploys are turned off in sluiceway.yaml.";

/// What the merge did to one stack's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MergeRow {
    Deploying {
        merger: String,
    },
    /// Its record waits: behind other stacks' deploys, or for its window.
    Queued {
        merger: String,
        behind: Vec<StackId>,
        opens: Option<Timestamp>,
    },
    /// Nothing deployed; the row says why and keeps its box for a tick.
    Waits(String),
}

/// The deploys one merge started, and every on-merge row it touched.
#[derive(Debug, Default)]
pub struct Merged {
    pub started: Vec<Started>,
    pub rows: BTreeMap<StackId, MergeRow>,
    /// A record could not be opened.
    pub red: bool,
}

/// Whether a change would delete or replace a resource; a change only to how the tool
/// tracks it (forgetting it) destroys nothing.
fn destroys(diff: &Diff) -> bool {
    diff.changes
        .iter()
        .any(|c| matches!(c.op, Op::Delete | Op::Replace) && c.tracking != Some(Tracking::Forget))
}

/// Why a change whose cost is above its stack's threshold, or could not be estimated,
/// waits for a tick (decision 0105); `None` for a change that may go. Stacks without a
/// threshold, and stacks whose tool has no estimate, are not held by cost.
fn over_threshold(stack: &Stack, scanned: &Scanned<'_>) -> Option<String> {
    let threshold = stack.settings.cost.threshold?;
    if !stack.settings.cost.enabled || !matches!(stack.tool, Tool::OpenTofu | Tool::Terraform) {
        return None;
    }
    match scanned.costs.get(&stack.id) {
        Some(Some(cost)) if cost.monthly > threshold => Some(format!(
            "this stack deploys on merge, and this change waits for a tick: it costs about {} {} more a month, above the threshold of {threshold} {}.",
            cost.monthly, cost.currency, cost.currency
        )),
        Some(Some(_)) => None,
        _ => Some(COST_UNKNOWN_NOTE.to_owned()),
    }
}

/// Opens the records of the on-merge stacks whose change may go, in stack-id order,
/// stopping at the first that cannot be written.
pub fn open(
    job: &Job,
    github: &dyn GitHub,
    scanned: &Scanned<'_>,
    found: &BTreeMap<StackId, Found>,
    records: &Records,
    merger: &str,
    printer: &mut Printer,
) -> Merged {
    let mut merged = Merged::default();
    let settings = &scanned.config.settings;
    if settings.dashboard.read_only {
        return merged;
    }
    let calendar = &scanned.config.calendar;
    let open_records = records.open();
    let pending =
        |id: &StackId| matches!(found.get(id), Some(Found::Diff(diff)) if !diff.changes.is_empty());
    let on_merge: Vec<(&Stack, &Diff)> = scanned
        .discovery
        .stacks
        .iter()
        .filter(|s| s.settings.deploy == DeployTrigger::OnMerge && !open_records.contains(&s.id))
        .filter_map(|s| match found.get(&s.id) {
            Some(Found::Diff(diff)) if !diff.changes.is_empty() => Some((s, diff)),
            _ => None,
        })
        .collect();
    let mut candidates: BTreeMap<StackId, (&Stack, &Diff)> = BTreeMap::new();
    for (stack, diff) in on_merge {
        let waits = if !settings.deploys {
            Some(DEPLOYS_OFF_NOTE.to_owned())
        } else if matches!(scanned.policies.get(&stack.id), Some(Policed::Failed(_))) {
            Some(POLICY_NOTE.to_owned())
        } else if let Some(freeze) = calendar.freeze_at(scanned.at) {
            let reason = freeze
                .reason
                .as_ref()
                .map(|r| format!(" ({r})"))
                .unwrap_or_default();
            Some(format!(
                ":snowflake: a deploy freeze{reason} is on until {}, so this merge deployed nothing. Tick it after the freeze.",
                calendar.wall_time(freeze.ends(&calendar.zone))
            ))
        } else if destroys(diff) {
            Some(DESTROYS_NOTE.to_owned())
        } else if diff.drift.as_ref().is_some_and(|d| !d.is_empty()) {
            Some(DRIFT_NOTE.to_owned())
        } else {
            over_threshold(stack, scanned)
        };
        match waits {
            Some(note) => {
                merged.rows.insert(stack.id.clone(), MergeRow::Waits(note));
            }
            None => {
                candidates.insert(stack.id.clone(), (stack, diff));
            }
        }
    }

    // Ordered as if every candidate were ticked together, every other pending row left
    // unticked.
    let ids: BTreeSet<StackId> = candidates.keys().cloned().collect();
    let waits = Waits::of(&scanned.discovery.stacks, &settings.phases);
    let gated = gate::gate(&ids, &waits, pending, |id| open_records.contains(id));
    for (id, (stack, diff)) in &candidates {
        let behind = match &gated[id] {
            Gated::Held(blocking) => {
                merged.rows.insert(
                    id.clone(),
                    MergeRow::Waits(hold_text(
                        "this stack deploys on merge, and this merge started nothing",
                        blocking,
                    )),
                );
                continue;
            }
            Gated::Start => Vec::new(),
            Gated::Behind(behind) => behind.clone(),
        };
        let going = Going {
            stack,
            diff,
            merger,
            opens: window(scanned, stack, &behind),
            behind,
        };
        match going.open(job, github, &mut merged) {
            Ok(true) => printer.say(&format!(
                "{id}: it deploys on merge, merged by {merger}, so its deploy starts now."
            )),
            Ok(false) => printer.say(&format!(
                "{id}: it deploys on merge, merged by {merger}; its record waits."
            )),
            Err(e) => {
                printer.say(&format!(
                    "::error::The deployment record of {id} could not be opened, so it and the stacks after it do not deploy on this merge: {e}."
                ));
                merged.red = true;
                break;
            }
        }
    }
    merged
}

/// A change that goes out without a tick on its own row, credited to whoever merged it:
/// its hashed record opens now and is handed on, or waits behind other stacks' deploys or
/// for the stack's window.
struct Going<'a> {
    stack: &'a Stack,
    diff: &'a Diff,
    merger: &'a str,
    behind: Vec<StackId>,
    opens: Option<Timestamp>,
}

impl Going<'_> {
    /// Opens the record and says on the row what it did; `true` when the deploy starts
    /// in this run.
    fn open(
        self,
        job: &Job,
        github: &dyn GitHub,
        merged: &mut Merged,
    ) -> Result<bool, sluiceway_github::GitHubError> {
        let id = &self.stack.id;
        let payload = Payload {
            approved: Approved::Hash(self.diff.hash()),
            ticker: self.merger.to_owned(),
            run: job.run_id,
            attempt: u32::try_from(job.run_attempt).ok(),
            behind: self.behind.clone(),
            drift: false,
            on_merge: true,
            fingerprint: self.diff.fingerprint(),
            window: self.opens.is_some(),
        };
        let deployment = layers::open_record(job, github, self.stack, &payload)?;
        let merger = self.merger.to_owned();
        if self.behind.is_empty() && self.opens.is_none() {
            merged.started.push(Started {
                stack: id.clone(),
                environment: self.stack.settings.environment.clone(),
                deployment,
                ticker: merger.clone(),
                on_merge: true,
            });
            merged
                .rows
                .insert(id.clone(), MergeRow::Deploying { merger });
            Ok(true)
        } else {
            merged.rows.insert(
                id.clone(),
                MergeRow::Queued {
                    merger,
                    behind: self.behind,
                    opens: self.opens,
                },
            );
            Ok(false)
        }
    }
}

/// When the stack's window opens, if it is closed now and nothing else holds it.
fn window(scanned: &Scanned<'_>, stack: &Stack, behind: &[StackId]) -> Option<Timestamp> {
    match scanned
        .config
        .calendar
        .judge(&stack.settings.deploy_windows, scanned.at)
    {
        Moment::Closed { opens } if behind.is_empty() => Some(opens.timestamp()),
        _ => None,
    }
}

/// The scan after a tick merged an update (decision 0054): each open merge record whose
/// stack this scan previewed ends, and a change the merge brought goes out in a record
/// of its own, credited to the ticker, through the same gate, window and freeze as any
/// deploy. A merge that changed nothing the stack deploys ends as in sync; a failed
/// preview ends it with the failure's reason. A stack not previewed keeps its merge
/// record for a later scan.
pub fn after_updates(
    job: &Job,
    github: &dyn GitHub,
    scanned: &Scanned<'_>,
    found: &BTreeMap<StackId, Found>,
    records: &Records,
    printer: &mut Printer,
) -> Merged {
    let mut merged = Merged::default();
    let settings = &scanned.config.settings;
    let calendar = &scanned.config.calendar;
    let merge_records: Vec<&Record> = records
        .all
        .iter()
        .filter(|r| r.is_open() && r.opener == Opener::Workflow)
        .filter(|r| matches!(r.payload.approved, Approved::Merge(_)))
        .collect();
    if merge_records.is_empty() {
        return merged;
    }
    let end = |record: &Record, state: RecordState, why: String, printer: &mut Printer| {
        if let Err(e) = github.set_deployment_status(
            record.id,
            &NewDeploymentStatus {
                state,
                description: why,
                log_url: Some(job.run_url()),
            },
        ) {
            printer.say(&format!(
                "::warning::The merge record of {} could not be ended; the next scan tries again: {e}.",
                record.stack
            ));
        }
    };
    let pending =
        |id: &StackId| matches!(found.get(id), Some(Found::Diff(diff)) if !diff.changes.is_empty());
    let open_records = records.open();
    for record in merge_records {
        let Approved::Merge(pr) = record.payload.approved else {
            continue;
        };
        let Some(stack) = scanned
            .discovery
            .stacks
            .iter()
            .find(|s| s.id == record.stack)
        else {
            end(
                record,
                RecordState::Failure,
                "the stack is not in this commit's setup".to_owned(),
                printer,
            );
            continue;
        };
        let ticker = record.payload.ticker.clone();
        let diff = match found.get(&stack.id) {
            None => continue,
            Some(Found::Failed(failure)) => {
                end(
                    record,
                    RecordState::Failure,
                    failure.reason.to_string(),
                    printer,
                );
                continue;
            }
            Some(Found::Diff(diff)) if diff.changes.is_empty() => {
                printer.say(&format!(
                    "{}: the merge of #{pr} changed nothing it deploys.",
                    stack.id
                ));
                end(
                    record,
                    RecordState::Success,
                    ended::IN_SYNC.to_owned(),
                    printer,
                );
                continue;
            }
            Some(Found::Diff(diff)) => diff,
        };
        if !settings.deploys {
            end(
                record,
                RecordState::Failure,
                ended::DEPLOYS_OFF.to_owned(),
                printer,
            );
            merged.rows.insert(
                stack.id.clone(),
                MergeRow::Waits(DEPLOYS_OFF_NOTE.to_owned()),
            );
            continue;
        }
        if let Some(freeze) = calendar.freeze_at(scanned.at) {
            end(
                record,
                RecordState::Failure,
                ended::FROZEN.to_owned(),
                printer,
            );
            merged.rows.insert(
                stack.id.clone(),
                MergeRow::Waits(format!(
                    ":snowflake: a deploy freeze is on until {}, so the merge of #{pr} deployed nothing. Tick it after the freeze.",
                    calendar.wall_time(freeze.ends(&calendar.zone))
                )),
            );
            continue;
        }
        let ids: BTreeSet<StackId> = [stack.id.clone()].into();
        let waits = Waits::of(&scanned.discovery.stacks, &settings.phases);
        let gated = gate::gate(&ids, &waits, pending, |id| {
            open_records.contains(id) && *id != stack.id
        });
        let behind = match &gated[&stack.id] {
            Gated::Held(blocking) => {
                merged.rows.insert(
                    stack.id.clone(),
                    MergeRow::Waits(hold_text(
                        &format!("the merge of #{pr} started nothing"),
                        blocking,
                    )),
                );
                end(
                    record,
                    RecordState::Failure,
                    "a stack it depends on has a change waiting".to_owned(),
                    printer,
                );
                continue;
            }
            Gated::Start => Vec::new(),
            Gated::Behind(behind) => behind.clone(),
        };
        let going = Going {
            stack,
            diff,
            merger: &ticker,
            opens: window(scanned, stack, &behind),
            behind,
        };
        match going.open(job, github, &mut merged) {
            Ok(now) => {
                end(
                    record,
                    RecordState::Inactive,
                    ended::MERGED_FOLLOWS.to_owned(),
                    printer,
                );
                printer.say(&format!(
                    "{}: #{pr} merged for {ticker}, so {}.",
                    stack.id,
                    if now {
                        "its deploy starts now"
                    } else {
                        "its record waits"
                    }
                ));
            }
            Err(e) => {
                printer.say(&format!(
                    "::error::The deployment record of {} could not be opened after the merge of #{pr}: {e}.",
                    stack.id
                ));
                merged.red = true;
            }
        }
    }
    merged
}
