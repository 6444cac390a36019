//! Apply: deploys the one stack a deployment record names, exactly as ticked (decisions
//! 0003, 0019, 0035, 0051). It runs only on an open Sluiceway record that this run opened
//! for a stack discovery knows; it previews the stack again, keeping what the deploy
//! applies, and deploys only when the fresh diff hash is the ticked one. Every way out
//! ends the record with a fixed reason and swaps the row.

use std::collections::BTreeMap;
use std::time::Instant;

use schemars::JsonSchema;
use serde::Serialize;
use sluiceway_core::failure::FailureReason;
use sluiceway_core::gate::Waits;
use sluiceway_core::record::Approved;
use sluiceway_core::runner::Runner;
use sluiceway_core::stack::Stack;
use sluiceway_dashboard::reader;
use sluiceway_dashboard::view::{Root, Row, RowSource, State};
use sluiceway_github::{GitHub, NewDeploymentStatus, RecordState};
use sluiceway_tools::adapter::{Adapter, Asks, Context, Program};

use crate::base::Outcome;
use crate::base::checkout::Checkout;
use crate::base::env_files::{NotLoaded, StackEnvs};
use crate::base::printer::Printer;
use crate::base::setup;
use crate::modes::inputs::Inputs;
use crate::modes::job::{Clock, Job};
use crate::modes::layers;
use crate::modes::notify::{self, Notice, Notifier};
use crate::modes::outputs::Outputs;
use crate::modes::records::{Opener, Record, Records, ended};
use crate::modes::resolve::{Dispatched, dispatch_workflow};
use crate::modes::rewrite::Rewrite;

pub const RESULT_FILE: &str = "sluiceway-apply-result.json";

/// How an apply ended: the `outcome` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Ended {
    Deployed,
    InSync,
    Rehearsed,
    Refused,
    Failed,
}

impl Ended {
    fn name(self) -> &'static str {
        match self {
            Ended::Deployed => "deployed",
            Ended::InSync => "in-sync",
            Ended::Rehearsed => "rehearsed",
            Ended::Refused => "refused",
            Ended::Failed => "failed",
        }
    }
}

/// `sluiceway-apply-result.json`: what one apply did, for later steps. No value, no
/// tool text, no time of day.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(title = "Sluiceway apply result, version 1")]
pub struct ApplyResult {
    #[schemars(range(min = 1, max = 1))]
    pub version: u8,
    pub stack: String,
    pub deployment: u64,
    pub outcome: Ended,
    /// Sluiceway's fixed reason when it did not deploy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// From the start of the apply to the file.
    pub seconds: f64,
    /// The tool's deploy, when it was asked to deploy.
    pub deploy_seconds: Option<f64>,
}

pub fn result_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(ApplyResult)).unwrap_or_default()
}

/// What apply runs with.
pub struct Applying<'a> {
    pub job: &'a Job,
    pub inputs: &'a Inputs,
    pub runner: &'a dyn Runner,
    pub clock: &'a dyn Clock,
    /// Tells the channels how the deploy ended.
    pub notifier: &'a Notifier<'a>,
}

/// Applies the record `id`, then tells the channels how it ended (decision 0078): a
/// deploy that went out, failed or was refused; one that found nothing to do or only
/// rehearsed says nothing. A failure before the record named its stack is told without
/// one.
pub fn run(
    a: &Applying<'_>,
    github: &dyn GitHub,
    id: u64,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> Outcome {
    // In the auto mode one step applies several records; each tells of its own.
    outputs.unset("outcome");
    outputs.unset("stack");
    let outcome = apply_record(a, github, id, outputs, printer);
    let event = match outputs.get("outcome") {
        Some("deployed") => Some(notify::Event::Deployed),
        Some("refused") => Some(notify::Event::Refused),
        Some("failed") => Some(notify::Event::Failed),
        None if outcome == Outcome::Failed => Some(notify::Event::Failed),
        _ => None,
    };
    if let Some(event) = event {
        let notice = Notice {
            event,
            stacks: outputs
                .get("stack")
                .map(str::to_owned)
                .into_iter()
                .collect(),
            dashboard: outputs
                .get("dashboard-url")
                .map(str::to_owned)
                .filter(|u| !u.is_empty()),
            run: Some(a.job.run_url()),
        };
        let events = setup::configured_events(&Checkout::new(&a.job.workspace));
        a.notifier.tell(&notice, &events, printer);
    }
    outcome
}

fn apply_record(
    a: &Applying<'_>,
    github: &dyn GitHub,
    id: u64,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> Outcome {
    let started = Instant::now();
    let found = match github.deployment_record(id) {
        Ok(found) => found,
        Err(e) => {
            printer.say(&format!(
                "::error::The deployment record {id} could not be read: {e}."
            ));
            return Outcome::Failed;
        }
    };
    // Writers do not count here: only the workflow's own records deploy, and a writer's
    // is started as one of those first (decision 0109).
    let Some(record) = Record::of(&found, &[]) else {
        printer.say(&format!(
            "::error::The deployment record {id} is not one of Sluiceway's, so nothing was deployed."
        ));
        return Outcome::Failed;
    };
    outputs.set("stack", record.stack.to_string());
    if record.opener != Opener::Workflow {
        printer.say(&format!(
            "::error::The deployment record {id} was not opened by this workflow; a record a login in recordWriters opened is started by a scheduled or dispatched run as a record of its own, so nothing was deployed."
        ));
        outputs.set("outcome", Ended::Refused.name());
        return Outcome::Failed;
    }
    if !record.is_open() {
        printer
            .say("::error::This deploy already ended. Tick the box on the dashboard to try again.");
        outputs.set("outcome", Ended::Refused.name());
        return Outcome::Failed;
    }
    if record.payload.window {
        printer.say(&format!(
            "::error::The deployment record {id} waits for its stack's deploy window; a scheduled run starts it as a record of its own once the window opens, so nothing was deployed."
        ));
        outputs.set("outcome", Ended::Refused.name());
        return Outcome::Failed;
    }
    if !record.payload.behind.is_empty() {
        let behind: Vec<&str> = record.payload.behind.iter().map(|s| s.as_str()).collect();
        printer.say(&format!(
            "::error::The deployment record {id} is queued behind {}; a later run starts it as a record of its own, so nothing was deployed.",
            behind.join(", ")
        ));
        outputs.set("outcome", Ended::Refused.name());
        return Outcome::Failed;
    }
    if record.payload.run != a.job.run_id {
        printer.say(&format!(
            "::error::The deployment record {id} was opened by run {}, not this one, so nothing was deployed.",
            record.payload.run
        ));
        outputs.set("outcome", Ended::Refused.name());
        return Outcome::Failed;
    }
    let setup = match setup::read(&Checkout::new(&a.job.workspace)) {
        Ok(setup) => setup,
        Err(_) => {
            set(
                a,
                github,
                &record,
                RecordState::Failure,
                "sluiceway.yaml or discovery has a problem",
                printer,
            );
            outputs.set("outcome", Ended::Failed.name());
            return Outcome::Failed;
        }
    };
    if !a.inputs.mode_is_auto() {
        // The auto mode's resolve has named them already.
        for line in setup::unacted_annotations(&setup.config) {
            printer.say(&line);
        }
    }
    let Some(stack) = setup.discovery.stacks.iter().find(|s| s.id == record.stack) else {
        set(
            a,
            github,
            &record,
            RecordState::Failure,
            "the stack is not in this commit's setup",
            printer,
        );
        outputs.set("outcome", Ended::Refused.name());
        return Outcome::Failed;
    };
    if !setup.config.settings.deploys {
        set(
            a,
            github,
            &record,
            RecordState::Failure,
            ended::DEPLOYS_OFF,
            printer,
        );
        outputs.set("outcome", Ended::Refused.name());
        return Outcome::Failed;
    }
    let calendar = &setup.config.calendar;
    let now = a.clock.now();
    if let Some(freeze) = calendar.freeze_at(now) {
        printer.say(&format!(
            "::error::A deploy freeze is on until {}, so nothing was deployed.",
            calendar.wall_time(freeze.ends(&calendar.zone))
        ));
        set(
            a,
            github,
            &record,
            RecordState::Failure,
            ended::FROZEN,
            printer,
        );
        outputs.set("outcome", Ended::Refused.name());
        return Outcome::Failed;
    }
    let envs = StackEnvs::load(
        &a.job.workspace,
        &[stack],
        &a.job.tool_env,
        setup
            .config
            .file
            .as_deref()
            .unwrap_or(sluiceway_core::config::FILE_NAMES[0]),
        printer,
    );
    let step = apply(
        a,
        github,
        stack,
        &record,
        envs.of(&stack.id, &a.job.tool_env),
        &setup.config,
        printer,
    );
    match write_row(a, github, &setup, stack, &step, printer) {
        Ok(url) => outputs.set("dashboard-url", url),
        Err(e) => printer.say(&format!(
            "::warning::The dashboard could not be written: {e}."
        )),
    }
    let label = &setup.config.settings.dashboard.label;
    match step.reason.as_deref() {
        Some(ended::MOVED) => {
            tell_the_ticker(a, github, &record, label, "the change moved", printer)
        }
        Some(ended::VALUE_CHANGED | ended::VALUE_NOISY) => tell_the_ticker(
            a,
            github,
            &record,
            label,
            "a value in the change moved",
            printer,
        ),
        _ => {}
    }
    let mut red = false;
    if Waits::of(&setup.discovery.stacks, &setup.config.settings.phases).any() {
        match Records::read(
            github,
            &setup.discovery.stacks,
            &setup.config.settings.record_writers,
        ) {
            Ok(records)
                if layers::next_layer_due(
                    &records,
                    &setup.discovery.stacks,
                    &stack.id,
                    &layers::When {
                        calendar,
                        now: a.clock.now(),
                        starts_waiting: false,
                    },
                ) =>
            {
                red |= !dispatch_workflow(a.job, github, Dispatched::NextLayer, printer);
            }
            Ok(_) => {}
            Err(e) => {
                printer.say(&format!(
                    "::error::The records waiting behind {} could not be read: {e}.",
                    stack.id
                ));
                red = true;
            }
        }
    }
    let result = ApplyResult {
        version: 1,
        stack: stack.id.to_string(),
        deployment: record.id,
        outcome: step.ended,
        reason: step.reason.clone(),
        seconds: round(started.elapsed().as_secs_f64()),
        deploy_seconds: step.deploy_seconds.map(round),
    };
    outputs.set("outcome", step.ended.name());
    let path = a.job.runner_temp.join(RESULT_FILE);
    match serde_json::to_string_pretty(&result)
        .map_err(std::io::Error::other)
        .and_then(|text| crate::base::files::write_whole(&path, format!("{text}\n").as_bytes()))
    {
        Ok(()) => outputs.set("result-file", path.display().to_string()),
        Err(e) => printer.say(&format!(
            "::warning::The result file could not be written: {e}"
        )),
    }
    printer.say(&format!("{}: {}.", stack.id, step.sentence()));
    crate::modes::outputs::add_to_summary(
        a.job,
        &format!(
            "## The deploy of {}

Ticked by {}: {}.

",
            sluiceway_dashboard::escape::text(stack.id.as_str()),
            sluiceway_dashboard::escape::text(&record.payload.ticker),
            step.sentence()
        ),
        printer,
    );
    match step.ended {
        Ended::Deployed | Ended::InSync | Ended::Rehearsed if !red => Outcome::Done,
        _ => Outcome::Failed,
    }
}

fn round(seconds: f64) -> f64 {
    (seconds * 1000.0).round() / 1000.0
}

/// What the apply did, and the row it leaves.
struct Applied {
    ended: Ended,
    reason: Option<String>,
    deploy_seconds: Option<f64>,
    /// The row's state after it.
    row: State,
    failed: Option<String>,
}

impl Applied {
    fn sentence(&self) -> String {
        match (&self.ended, &self.reason) {
            (Ended::Deployed, _) => "deployed".to_owned(),
            (Ended::InSync, _) => "nothing to deploy, already in sync".to_owned(),
            (Ended::Rehearsed, _) => "rehearsed, nothing was deployed".to_owned(),
            (_, Some(reason)) => format!("nothing was deployed: {reason}"),
            (_, None) => "nothing was deployed".to_owned(),
        }
    }
}

fn apply(
    a: &Applying<'_>,
    github: &dyn GitHub,
    stack: &Stack,
    record: &Record,
    env: Result<&BTreeMap<String, String>, NotLoaded>,
    config: &sluiceway_core::config::Config,
    printer: &mut Printer,
) -> Applied {
    let label = config.settings.dashboard.label.as_str();
    let run_url = a.job.run_url();
    let failed = |reason: String| Applied {
        ended: Ended::Failed,
        reason: Some(reason.clone()),
        deploy_seconds: None,
        row: State::PreviewFailed {
            reason: reason.clone(),
            run: Some(run_url.clone()),
        },
        failed: Some(reason),
    };
    set(
        a,
        github,
        record,
        RecordState::InProgress,
        "deploying",
        printer,
    );
    // The fresh preview fails as the scan's did when the stack's env file cannot be
    // loaded (decision 0103); the log already said where.
    let Ok(env) = env else {
        let reason = format!(
            "the preview before the deploy failed: {}",
            FailureReason::EnvFileNotLoaded
        );
        set(a, github, record, RecordState::Failure, &reason, printer);
        return failed(reason);
    };
    let mut adapter = match Adapter::for_stack(stack, &a.job.workspace) {
        Ok(adapter) => adapter,
        Err(unsupported) => {
            let reason = unsupported.failure().reason.to_string();
            set(a, github, record, RecordState::Failure, &reason, printer);
            return failed(reason);
        }
    };
    let scratch = a.job.runner_temp.clone();
    let limit = stack
        .settings
        .preview_timeout_minutes
        .map_or(a.inputs.preview_timeout, |m| {
            std::time::Duration::from_secs(u64::from(m) * 60)
        });
    let ctx = Context {
        runner: a.runner,
        env,
        repository: &a.job.repository,
        scratch: &scratch,
        time_limit: limit,
        deploy_limit: a.inputs.deploy_timeout,
        values: &config.values,
    };
    // The version check is the job's, as the scan's is: one per tool, whatever file.
    let job_ctx = Context {
        env: &a.job.tool_env,
        ..ctx
    };
    for program in adapter.programs() {
        match program.check_version(&job_ctx, &a.job.workspace) {
            Ok(found) if program == Program::Tool(adapter.tool()) => adapter.learn(&found),
            Ok(_) => {}
            Err(e) => {
                printer.say(&format!("::error::{e}"));
                let reason = FailureReason::ToolUnusable {
                    tool: program.name().to_owned(),
                }
                .to_string();
                set(a, github, record, RecordState::Failure, &reason, printer);
                return failed(reason);
            }
        }
    }
    printer.say(&format!("::group::[{}]", stack.id));
    let outcome = (|| {
        for preparation in adapter.preparations() {
            let step = preparation.run(&ctx);
            say_log(step.log.job_log_lines(), printer);
            if let Err(f) = step.result {
                return Err(format!(
                    "the preparation before the deploy failed: {}",
                    f.reason
                ));
            }
        }
        let preview = adapter.preview(
            &ctx,
            Asks {
                keep: true,
                ..Asks::default()
            },
        );
        say_log(preview.log.job_log_lines(), printer);
        let mut previewed = preview
            .result
            .map_err(|f| format!("the preview before the deploy failed: {}", f.reason))?;
        // A tick on a row with drift approved the drift too (decision 0055): it is
        // checked again, so the fresh hash covers what the ticked one did.
        if record.payload.drift
            && let Some(check) = adapter.detect_drift(&ctx)
        {
            say_log(check.log.job_log_lines(), printer);
            previewed.diff.drift =
                Some(check.result.map_err(|f| {
                    format!("the drift check before the deploy failed: {}", f.reason)
                })?);
        }
        previewed.diff = previewed
            .diff
            .fingerprinted(stack.settings.value_fingerprint);
        Ok(previewed)
    })();
    let previewed = match outcome {
        Ok(previewed) => previewed,
        Err(reason) => {
            printer.say("::endgroup::");
            set(a, github, record, RecordState::Failure, &reason, printer);
            return failed(reason);
        }
    };
    // A drift repair whose drift is gone before it ran (put back by hand, say) finds
    // nothing to do: it deploys nothing, and the trail says the drift is gone (0091).
    if record.payload.drift && previewed.diff.is_empty() {
        printer.say("::endgroup::");
        printer.say(&format!(
            "The drift of {} is gone: what changed outside the code was put back before this deploy, so there is nothing to deploy.",
            stack.id
        ));
        set(
            a,
            github,
            record,
            RecordState::Success,
            ended::IN_SYNC,
            printer,
        );
        return Applied {
            ended: Ended::InSync,
            reason: None,
            deploy_seconds: None,
            row: State::InSync,
            failed: None,
        };
    }
    let ticked = match &record.payload.approved {
        Approved::Hash(hash) => hash.clone(),
        Approved::Merge(_) => String::new(),
    };
    let fresh = previewed.diff.hash();
    let pending = State::Pending {
        diff: previewed.diff.clone(),
        preview: None,
        attribution: None,
    };
    let moved_values = previewed
        .diff
        .fingerprint()
        .filter(|fresh| fresh_fingerprint_differs(fresh, record.payload.fingerprint.as_deref()));
    if fresh != ticked {
        printer.say("::endgroup::");
        set(a, github, record, RecordState::Error, ended::MOVED, printer);
        return Applied {
            ended: Ended::Refused,
            reason: Some(ended::MOVED.to_owned()),
            deploy_seconds: None,
            row: if previewed.diff.is_empty() {
                State::InSync
            } else {
                pending
            },
            failed: None,
        };
    }
    if moved_values.is_some() {
        printer.say("::endgroup::");
        let reason = if last_scan_sha(a.job, github, label).as_deref() == Some(a.job.sha.as_str()) {
            ended::VALUE_NOISY
        } else {
            ended::VALUE_CHANGED
        };
        set(a, github, record, RecordState::Error, reason, printer);
        return Applied {
            ended: Ended::Refused,
            reason: Some(reason.to_owned()),
            deploy_seconds: None,
            row: pending,
            failed: Some(reason.to_owned()),
        };
    }
    if previewed.diff.is_empty() {
        printer.say("::endgroup::");
        set(
            a,
            github,
            record,
            RecordState::Success,
            ended::IN_SYNC,
            printer,
        );
        return Applied {
            ended: Ended::InSync,
            reason: None,
            deploy_seconds: None,
            row: State::InSync,
            failed: None,
        };
    }
    if a.inputs.dry_run {
        printer.say("::endgroup::");
        set(
            a,
            github,
            record,
            RecordState::Inactive,
            ended::REHEARSED,
            printer,
        );
        return Applied {
            ended: Ended::Rehearsed,
            reason: None,
            deploy_seconds: None,
            row: pending,
            failed: None,
        };
    }
    let Some(kept) = previewed.kept else {
        printer.say("::endgroup::");
        let reason = FailureReason::ChangedSincePreview.to_string();
        set(a, github, record, RecordState::Failure, &reason, printer);
        return failed(reason);
    };
    let deploying = Instant::now();
    let repair = previewed.diff.drift.as_ref().is_some_and(|d| !d.is_empty());
    let deployed = adapter.deploy(&ctx, &kept, repair);
    let deploy_seconds = Some(deploying.elapsed().as_secs_f64());
    say_log(deployed.log.job_log_lines(), printer);
    drop(kept);
    match deployed.result {
        Ok(()) => {
            printer.say("::endgroup::");
            set(
                a,
                github,
                record,
                RecordState::Success,
                ended::DEPLOYED,
                printer,
            );
            Applied {
                ended: Ended::Deployed,
                reason: None,
                deploy_seconds,
                row: State::InSync,
                failed: None,
            }
        }
        Err(failure) => {
            let reason = match failure.reason {
                FailureReason::DeployTimedOut { .. } => failure.reason.to_string(),
                _ => format!("the deploy failed: {}", failure.reason),
            };
            // What is left to deploy now, for the row.
            let after = adapter.preview(&ctx, Asks::default());
            say_log(after.log.job_log_lines(), printer);
            printer.say("::endgroup::");
            set(a, github, record, RecordState::Failure, &reason, printer);
            let row = match after.result {
                Ok(p) if p.diff.is_empty() => State::InSync,
                Ok(p) => State::Pending {
                    diff: p.diff,
                    preview: None,
                    attribution: None,
                },
                Err(f) => State::PreviewFailed {
                    reason: f.reason.to_string(),
                    run: Some(run_url.clone()),
                },
            };
            Applied {
                ended: Ended::Failed,
                reason: Some(reason.clone()),
                deploy_seconds,
                row,
                failed: Some(reason),
            }
        }
    }
}

/// The commit the dashboard's last scan previewed, from its root marker.
fn last_scan_sha(job: &Job, github: &dyn GitHub, label: &str) -> Option<String> {
    let number = dashboard_number(job, github, label)?;
    let read = github.read_body(number, None).ok()?;
    Root::read(&reader::read(&read.body)).map(|root| root.scan_sha)
}

/// A fresh fingerprint the record does not carry, or another one: a value moved.
fn fresh_fingerprint_differs(fresh: &str, ticked: Option<&str>) -> bool {
    ticked != Some(fresh)
}

fn say_log(lines: &[String], printer: &mut Printer) {
    for line in lines {
        printer.say(line);
    }
}

/// Writes a status of the record: `in_progress`, or a result with its fixed reason.
fn set(
    a: &Applying<'_>,
    github: &dyn GitHub,
    record: &Record,
    state: RecordState,
    description: &str,
    printer: &mut Printer,
) {
    let status = NewDeploymentStatus {
        state,
        description: description.to_owned(),
        log_url: Some(a.job.run_url()),
    };
    if let Err(e) = github.set_deployment_status(record.id, &status) {
        printer.say(&format!(
            "::error::The deployment record {} could not be set to {}: {e}.",
            record.id,
            state.rest_name()
        ));
    }
}

/// Swaps the stack's row for what the apply left, with the trail drawn again.
fn write_row(
    a: &Applying<'_>,
    github: &dyn GitHub,
    setup: &setup::Setup,
    stack: &Stack,
    applied: &Applied,
    printer: &mut Printer,
) -> Result<String, String> {
    let Some((number, url)) =
        dashboard_issue(a.job, github, &setup.config.settings.dashboard.label)
    else {
        return Err("no dashboard issue is open".to_owned());
    };
    let records = Records::read(
        github,
        &setup.discovery.stacks,
        &setup.config.settings.record_writers,
    )
    .map_err(|e| e.to_string())?;
    let job = a.job;
    let rewrite = Rewrite::of_job(setup, job, &records, a.clock.now());
    let failures = records.failure_lines(|run| job.links().run(run));
    let row = Row {
        stack: stack.id.clone(),
        state: applied.row.clone(),
        failure: failures.get(&stack.id).cloned(),
        notes: Vec::new(),
        drift_not_checked: false,
        policies: None,
        cost: None,
    };
    rewrite
        .write(github, number, &|block: &reader::RowBlock| {
            (block.facts.stack == stack.id.as_str()).then(|| RowSource::Fresh(row.clone()))
        })
        .map_err(|e| e.to_string())?;
    if let Some(reason) = &applied.failed {
        printer.say(&format!(
            "::error::The deploy of {} failed: {reason}.",
            stack.id
        ));
    }
    Ok(url)
}

/// The dashboard's number: from the event when it is the dashboard's edit, else found
/// by its label.
fn dashboard_number(job: &Job, github: &dyn GitHub, label: &str) -> Option<u64> {
    dashboard_issue(job, github, label).map(|(number, _)| number)
}

/// The dashboard's number and address, found as `dashboard_number` finds it.
pub fn dashboard_issue(job: &Job, github: &dyn GitHub, label: &str) -> Option<(u64, String)> {
    if let Some(issue) = &job.issue {
        return Some((issue.number, issue.html_url.clone()));
    }
    github
        .open_issues_labelled(label)
        .ok()?
        .into_iter()
        .min_by_key(|i| i.number)
        .map(|i| (i.number, i.html_url))
}

/// Tells the ticker the change moved (decision 0051), in one comment on the dashboard;
/// a merge's deploy tells the one who merged (decision 0095).
fn tell_the_ticker(
    a: &Applying<'_>,
    github: &dyn GitHub,
    record: &Record,
    label: &str,
    what: &str,
    printer: &mut Printer,
) {
    let stack = sluiceway_dashboard::escape::text(record.stack.as_str());
    let login = &record.payload.ticker;
    let (number, text) = if record.payload.on_merge {
        (
            dashboard_number(a.job, github, label),
            format!(
                "@{login} merged a change that **{stack}** deploys on merge, and {what} before the deploy, so nothing was deployed. The row on the dashboard shows the change as it is now. Tick it to deploy that."
            ),
        )
    } else {
        (
            a.job.issue.as_ref().map(|i| i.number),
            format!(
                "@{login} ticked **{stack}**, and {what} since the tick, so nothing was deployed. The row on the dashboard shows the change as it is now. Tick it again to deploy that."
            ),
        )
    };
    let Some(number) = number else {
        return;
    };
    if let Err(e) = github.comment(number, &text) {
        printer.say(&format!("::warning::The ticker could not be told: {e}."));
    }
}
