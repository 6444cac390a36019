//! Replaying a recorded scenario through an adapter.
//!
//! From each recorded command the replay works out what the adapter was asked to do (a
//! preview, a drift check, the tool diff, a deploy, the version check), which stack (its
//! directory from the command's `cwd`) and which options (from its flags), then asks the
//! adapter to do exactly that against a runner that answers from the recording. Every
//! call must match a recorded command, and every recorded command must be asked for.

mod helm;
mod pulumi;

pub use pulumi::DeployedJson;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use sluiceway_core::diff::{Change, Diff};
use sluiceway_core::failure::Failure;
use sluiceway_core::stack::StackId;
use sluiceway_core::values::ValueList;
use sluiceway_tools::kubectl;
use sluiceway_tools::kubernetes::{
    self,
    rendered_set::{self, RenderedSet},
};
use sluiceway_tools::opentofu;
use sluiceway_tools::recording::{RecordedCommand, RecordingError, Scenario};
use sluiceway_tools::replay::{Placeholder, Replay};
use sluiceway_tools::tool_log::ToolDiffText;
use sluiceway_tools::tool_run::{Asks, Context};
use thiserror::Error;

/// What the replay document says, one entry per adapter operation.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub scenario: String,
    pub steps: Vec<Step>,
    /// Everything else the adapter produced, for tests that hold it to the value rule;
    /// never printed.
    #[serde(skip)]
    pub produced: Produced,
}

/// What an adapter produced besides its diffs: its job-log lines, the hash inputs, and
/// the tool diff text (which may hold values, and goes only to the job log).
#[derive(Debug, Clone, Default)]
pub struct Produced {
    pub log_lines: Vec<String>,
    pub hash_inputs: Vec<String>,
    pub tool_diffs: Vec<String>,
    /// Each diff's value fingerprint (decision 0102), in step order.
    pub fingerprints: Vec<Option<String>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Step {
    /// The recorded id of the command that carried the operation.
    pub command: String,
    pub operation: Operation,
    #[serde(flatten)]
    pub outcome: StepOutcome,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Operation {
    Prepare,
    Preview,
    Drift,
    ToolDiff,
    Deploy,
    Version,
    /// The tool's own history of a stack's deploys.
    History,
    /// The stacks a project's backend holds.
    StackList,
    /// A stack made in its backend.
    CreateStack,
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum StepOutcome {
    Diff {
        diff: DiffJson,
        hash: String,
    },
    ToolDiff {
        #[serde(rename = "toolDiffLines")]
        lines: usize,
    },
    Deployed {
        deployed: bool,
    },
    Prepared {
        prepared: bool,
    },
    Version {
        version: String,
    },
    History {
        deploys: Vec<DeployedJson>,
    },
    Stacks {
        stacks: Vec<String>,
    },
    Created {
        created: bool,
    },
    Failure {
        failure: FailureJson,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct DiffJson {
    pub changes: Vec<ChangeJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<Vec<ChangeJson>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeJson {
    pub address: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    pub op: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tracking: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous_address: Option<String>,
    pub changed_keys: Vec<String>,
    pub replace_keys: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FailureJson {
    pub reason: String,
    pub detail: Vec<String>,
}

impl From<&Change> for ChangeJson {
    fn from(c: &Change) -> ChangeJson {
        ChangeJson {
            address: c.address.clone(),
            kind: c.kind.clone(),
            name: c.name.clone(),
            op: c.op.name().to_owned(),
            tracking: c.tracking.map(|t| t.name().to_owned()),
            previous_address: c.previous_address.clone(),
            changed_keys: c.changed_keys.clone(),
            replace_keys: c.replace_keys.clone(),
        }
    }
}

fn diff_outcome(diff: &Diff, produced: &mut Produced) -> StepOutcome {
    produced.hash_inputs.push(diff.canonical_json());
    produced.fingerprints.push(diff.fingerprint());
    StepOutcome::Diff {
        diff: DiffJson {
            changes: diff.changes.iter().map(ChangeJson::from).collect(),
            drift: diff
                .drift
                .as_ref()
                .map(|d| d.iter().map(ChangeJson::from).collect()),
        },
        hash: diff.hash(),
    }
}

/// A drift check's outcome: the diff a scan would hash, the stack's last previewed changes
/// with the drift beside them.
fn drift_outcome(
    stack: &StackId,
    last: Option<&Diff>,
    drift: Vec<Change>,
    produced: &mut Produced,
) -> StepOutcome {
    let diff = Diff {
        stack: stack.clone(),
        changes: last.map(|d| d.changes.clone()).unwrap_or_default(),
        drift: Some(drift),
    };
    diff_outcome(&diff, produced)
}

/// A version check's outcome: the version found, or why the tool cannot be used.
fn version_outcome(checked: Result<impl std::fmt::Display, impl std::fmt::Display>) -> StepOutcome {
    match checked {
        Ok(version) => StepOutcome::Version {
            version: version.to_string(),
        },
        Err(e) => StepOutcome::Failure {
            failure: FailureJson {
                reason: e.to_string(),
                detail: Vec::new(),
            },
        },
    }
}

/// A preparation's outcome.
fn prepared_outcome(result: Result<(), Failure>) -> StepOutcome {
    match result {
        Ok(()) => StepOutcome::Prepared { prepared: true },
        Err(failure) => failure_outcome(&failure),
    }
}

fn failure_outcome(failure: &Failure) -> StepOutcome {
    StepOutcome::Failure {
        failure: FailureJson {
            reason: failure.reason.to_string(),
            detail: failure.detail.clone(),
        },
    }
}

#[derive(Debug, Error)]
pub enum ReplayError {
    #[error(transparent)]
    Recording(#[from] RecordingError),
    #[error("{scenario}: command {command} is not a command this replay knows ({what})")]
    UnknownCommand {
        scenario: String,
        command: String,
        what: String,
    },
    #[error("{scenario}: the adapter asked for a command the recording does not hold:\n  {}", misses.join("\n  "))]
    Unrecorded {
        scenario: String,
        misses: Vec<String>,
    },
    #[error(
        "{scenario}: the recording holds commands the adapter never asked for: {}. Is --example the project the recording was made from?",
        unused.join(", ")
    )]
    Unused {
        scenario: String,
        unused: Vec<String>,
    },
    #[error("{scenario}: command {command} deploys, but no preview of its stack came before it")]
    DeployWithoutPreview { scenario: String, command: String },
    #[error("{scenario}: a private directory for rendered sets could not be made: {source}")]
    Scratch {
        scenario: String,
        source: std::io::Error,
    },
}

/// The tools the replay knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tool {
    Kubectl,
    Opentofu,
    Terraform,
    /// OpenTofu stacks of a CDK for Terraform app.
    Cdktf,
    /// OpenTofu or Terraform through Terragrunt.
    Terragrunt,
    Helm,
    Pulumi,
}

/// One adapter operation, worked out from the recorded commands.
struct Planned {
    operation: Operation,
    command: RecordedCommand,
    /// Preludes (render, inventory and live reads) seen before the main command.
    prunes: bool,
}

/// What kind of kubectl command a recorded one is.
enum KubectlCommand {
    Prelude {
        inventory: bool,
    },
    Main(Operation),
    DeployFollowUp,
    /// `kubectl version` against the cluster: what the recordings were made against.
    /// No adapter asks it; it is only read.
    ServerVersion,
}

fn classify(command: &RecordedCommand, label: &str) -> Result<KubectlCommand, ReplayError> {
    let args: Vec<&str> = command.argv.iter().map(String::as_str).collect();
    let unknown = |what: &str| ReplayError::UnknownCommand {
        scenario: label.to_owned(),
        command: command.id.clone(),
        what: what.to_owned(),
    };
    match args.as_slice() {
        ["kubectl", "version", rest @ ..] if !rest.contains(&"--client") => {
            Ok(KubectlCommand::ServerVersion)
        }
        ["kubectl", "version", ..] => Ok(KubectlCommand::Main(Operation::Version)),
        ["kubectl", "kustomize", ..] => Ok(KubectlCommand::Prelude { inventory: false }),
        ["kubectl", "get", "configmap", ..] => Ok(KubectlCommand::Prelude { inventory: true }),
        ["kubectl", "get", ..] => Ok(KubectlCommand::Prelude { inventory: false }),
        ["kubectl", "diff", rest @ ..] => Ok(KubectlCommand::Main(
            if !command.env.contains_key(kubernetes::EXTERNAL_DIFF_VAR) {
                Operation::ToolDiff
            } else if rest.contains(&"--show-managed-fields") {
                Operation::Drift
            } else {
                Operation::Preview
            },
        )),
        ["kubectl", "apply", ..] => Ok(KubectlCommand::Main(Operation::Deploy)),
        ["kubectl", "delete", ..] => Ok(KubectlCommand::DeployFollowUp),
        [first, ..] => Err(unknown(first)),
        [] => Err(unknown("an empty command line")),
    }
}

fn plan(scenario: &Scenario) -> Result<Vec<Planned>, ReplayError> {
    let mut planned = Vec::new();
    let mut pending: Option<(RecordedCommand, bool)> = None;
    for command in &scenario.recording.commands {
        match classify(command, &scenario.label)? {
            KubectlCommand::Prelude { inventory } => {
                let prunes = inventory || pending.as_ref().is_some_and(|(_, p)| *p);
                pending = Some((command.clone(), prunes));
            }
            KubectlCommand::Main(operation) => {
                let prunes = pending.take().is_some_and(|(_, p)| p);
                planned.push(Planned {
                    operation,
                    command: command.clone(),
                    prunes,
                });
            }
            KubectlCommand::DeployFollowUp | KubectlCommand::ServerVersion => {}
        }
    }
    // A render that failed leaves preludes with no main command: that was a preview.
    if let Some((command, prunes)) = pending {
        planned.push(Planned {
            operation: Operation::Preview,
            command,
            prunes,
        });
    }
    Ok(planned)
}

/// The stack a command was run for: its directory, and its options read off the flags.
fn stack_of(command: &RecordedCommand, example: &Path, prunes: bool) -> kubectl::Stack {
    let flag = |name: &str| {
        command
            .argv
            .iter()
            .find_map(|a| a.strip_prefix(name).map(str::to_owned))
    };
    let options = kubectl::Options {
        context: flag("--context="),
        namespace: flag("--namespace="),
        recursive: false,
        prune: prunes,
        force_conflicts: command.argv.iter().any(|a| a == "--force-conflicts"),
        field_manager: flag("--field-manager="),
    };
    let dir = if command.cwd == "." {
        example.to_owned()
    } else {
        example.join(&command.cwd)
    };
    kubectl::Stack {
        id: StackId::derive(&command.cwd, None),
        dir,
        options,
    }
}

/// Replays `scenario_dir` through the adapter of `tool`, with `example` as the project.
pub fn replay(tool: Tool, example: &Path, scenario_dir: &Path) -> Result<Report, ReplayError> {
    replay_showing(tool, example, scenario_dir, &ValueList::default())
}

/// The same replay, the adapter showing the values `values` allows (decision 0052).
pub fn replay_showing(
    tool: Tool,
    example: &Path,
    scenario_dir: &Path,
    values: &ValueList,
) -> Result<Report, ReplayError> {
    let binary = match tool {
        Tool::Kubectl => return replay_kubectl(example, scenario_dir, values),
        Tool::Helm => return helm::replay(example, scenario_dir, values),
        Tool::Pulumi => return pulumi::replay(example, scenario_dir, values),
        Tool::Opentofu | Tool::Cdktf | Tool::Terragrunt => opentofu::Binary::Tofu,
        Tool::Terraform => opentofu::Binary::Terraform,
    };
    replay_opentofu(binary, example, scenario_dir, values)
}

fn replay_kubectl(
    example: &Path,
    scenario_dir: &Path,
    values: &ValueList,
) -> Result<Report, ReplayError> {
    let mut scenario = Scenario::load(scenario_dir)?;
    let planned = plan(&scenario)?;
    // The server's version is a fact about the recording, not a command an adapter runs.
    let (commands, outputs): (Vec<_>, Vec<_>) = scenario
        .recording
        .commands
        .drain(..)
        .zip(scenario.outputs.drain(..))
        .filter(|(command, _)| {
            !matches!(
                classify(command, &scenario.label),
                Ok(KubectlCommand::ServerVersion)
            )
        })
        .unzip();
    scenario.recording.commands = commands;
    scenario.outputs = outputs;
    let runner = Replay::new(
        &scenario,
        example,
        vec![
            Placeholder {
                token: "{plan}",
                file_name: rendered_set::SET_FILE,
            },
            Placeholder {
                token: "{prune}",
                file_name: rendered_set::PRUNE_FILE,
            },
        ],
        vec![kubernetes::EXTERNAL_DIFF_VAR],
    );
    let setting = Setting::new(&scenario.label, values)?;
    let ctx = setting.context(&runner);
    let mut kept: BTreeMap<PathBuf, RenderedSet> = BTreeMap::new();
    let mut last_diff: BTreeMap<PathBuf, Diff> = BTreeMap::new();
    let mut steps = Vec::new();
    let mut produced = Produced::default();
    for step in planned {
        let stack = stack_of(&step.command, example, step.prunes);
        let outcome = match step.operation {
            // kubectl has no preparation and none of Pulumi's backend questions; a
            // recording never plans them.
            Operation::Prepare
            | Operation::History
            | Operation::StackList
            | Operation::CreateStack => continue,
            Operation::Version => version_outcome(kubectl::check_version(&ctx, example)),
            Operation::Preview => {
                let preview = kubectl::preview(&stack, &ctx, true, false);
                produced
                    .log_lines
                    .extend(preview.log.job_log_lines().iter().cloned());
                match preview.result {
                    Ok(previewed) => {
                        let outcome = diff_outcome(&previewed.diff, &mut produced);
                        last_diff.insert(stack.dir.clone(), previewed.diff);
                        if let Some(set) = previewed.set {
                            kept.insert(stack.dir.clone(), set);
                        }
                        outcome
                    }
                    Err(failure) => failure_outcome(&failure),
                }
            }
            Operation::Drift => match kubectl::detect_drift(&stack, &ctx).map(|d| {
                produced
                    .log_lines
                    .extend(d.log.job_log_lines().iter().cloned());
                d.result
            }) {
                Some(Ok(drift)) => {
                    drift_outcome(&stack.id, last_diff.get(&stack.dir), drift, &mut produced)
                }
                Some(Err(failure)) => failure_outcome(&failure),
                None => StepOutcome::Failure {
                    failure: FailureJson {
                        reason: "this stack has no drift check".to_owned(),
                        detail: Vec::new(),
                    },
                },
            },
            Operation::ToolDiff => {
                let kubectl::ToolDiff { result, log } = kubectl::tool_diff(&stack, &ctx);
                produced
                    .log_lines
                    .extend(log.job_log_lines().iter().cloned());
                tool_diff_outcome(result, &mut produced)
            }
            Operation::Deploy => {
                let Some(set) = kept.remove(&stack.dir) else {
                    return Err(ReplayError::DeployWithoutPreview {
                        scenario: scenario.label.clone(),
                        command: step.command.id.clone(),
                    });
                };
                let deploy = kubectl::deploy(&stack, &ctx, &set);
                produced
                    .log_lines
                    .extend(deploy.log.job_log_lines().iter().cloned());
                match deploy.result {
                    Ok(()) => StepOutcome::Deployed { deployed: true },
                    Err(failure) => failure_outcome(&failure),
                }
            }
        };
        steps.push(Step {
            command: step.command.id.clone(),
            operation: step.operation,
            outcome,
        });
    }
    finish(&runner, scenario, steps, produced)
}

/// What every replay runs its adapter in: a private scratch directory for rendered sets
/// and plans, and no environment (the replay answers every call).
struct Setting {
    scratch: tempfile::TempDir,
    env: BTreeMap<String, String>,
    values: ValueList,
}

impl Setting {
    fn new(label: &str, values: &ValueList) -> Result<Setting, ReplayError> {
        let scratch = tempfile::tempdir().map_err(|source| ReplayError::Scratch {
            scenario: label.to_owned(),
            source,
        })?;
        Ok(Setting {
            scratch,
            env: BTreeMap::new(),
            values: values.clone(),
        })
    }

    fn context<'a>(&'a self, runner: &'a Replay) -> Context<'a> {
        Context {
            runner,
            env: &self.env,
            repository: "",
            scratch: self.scratch.path(),
            time_limit: Duration::from_secs(600),
            deploy_limit: None,
            values: &self.values,
        }
    }
}

/// A tool diff's outcome: its text goes to what the adapter produced, its length to the
/// report.
fn tool_diff_outcome(
    result: Result<ToolDiffText, Failure>,
    produced: &mut Produced,
) -> StepOutcome {
    match result {
        Ok(text) => {
            produced.tool_diffs.push(text.job_log_text().to_owned());
            StepOutcome::ToolDiff {
                lines: text.job_log_text().lines().count(),
            }
        }
        Err(failure) => failure_outcome(&failure),
    }
}

/// A replay passes only if every call was recorded and every recorded call was made.
fn finish(
    runner: &Replay,
    scenario: Scenario,
    steps: Vec<Step>,
    produced: Produced,
) -> Result<Report, ReplayError> {
    let misses = runner.misses();
    if !misses.is_empty() {
        return Err(ReplayError::Unrecorded {
            scenario: scenario.label,
            misses,
        });
    }
    let unused = runner.unused();
    if !unused.is_empty() {
        return Err(ReplayError::Unused {
            scenario: scenario.label,
            unused,
        });
    }
    Ok(Report {
        scenario: scenario.recording.scenario,
        steps,
        produced,
    })
}

/// The report a person reads.
pub fn text(report: &Report) -> String {
    let mut out = format!("{}\n", report.scenario);
    for step in &report.steps {
        let operation = serde_json::to_value(step.operation)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        out.push_str(&format!("  {} ({operation}): ", step.command));
        match &step.outcome {
            StepOutcome::Diff { diff, hash } => {
                let drift = diff.drift.as_deref().unwrap_or_default();
                out.push_str(&format!(
                    "{} changes, {} drifted, hash {hash}\n",
                    diff.changes.len(),
                    drift.len()
                ));
                for (label, change) in diff
                    .changes
                    .iter()
                    .map(|c| ("", c))
                    .chain(drift.iter().map(|c| ("drift ", c)))
                {
                    let keys = if change.changed_keys.is_empty() {
                        String::new()
                    } else {
                        format!(" [{}]", change.changed_keys.join(", "))
                    };
                    out.push_str(&format!(
                        "    {label}{} {}{keys}\n",
                        change.op, change.address
                    ));
                }
            }
            StepOutcome::ToolDiff { lines } => {
                out.push_str(&format!("{lines} lines for the job log\n"))
            }
            StepOutcome::Deployed { .. } => out.push_str("deployed\n"),
            StepOutcome::Prepared { .. } => out.push_str("prepared\n"),
            StepOutcome::Version { version } => out.push_str(&format!("{version}\n")),
            StepOutcome::History { deploys } => {
                out.push_str(&format!("{} deploys in the history\n", deploys.len()));
                for d in deploys {
                    let commit = d.commit.as_deref().map_or("no commit", |c| &c[..7]);
                    out.push_str(&format!("    {} at {} from {commit}\n", d.kind, d.ended));
                }
            }
            StepOutcome::Stacks { stacks } => {
                out.push_str(&format!("the backend holds [{}]\n", stacks.join(", ")))
            }
            StepOutcome::Created { .. } => out.push_str("created\n"),
            StepOutcome::Failure { failure } => {
                out.push_str(&format!("failed: {}\n", failure.reason));
                for line in &failure.detail {
                    out.push_str(&format!("    {line}\n"));
                }
            }
        }
    }
    out
}

/// Replays an OpenTofu or Terraform scenario: `init` is a preparation, `plan -json` with
/// the `show -json` after it a preview, `plan` without `-json` the tool diff, `apply` a
/// deploy of the plan the last preview of that stack kept. A tool command through
/// `terragrunt run` is the same command of a unit's stack; a tool command in
/// `cdktf.out/stacks/<name>` is one of the app's stack `<name>`, and `cdktf synth` the
/// app's preparation.
fn replay_opentofu(
    binary: opentofu::Binary,
    example: &Path,
    scenario_dir: &Path,
    values: &ValueList,
) -> Result<Report, ReplayError> {
    let scenario = Scenario::load(scenario_dir)?;
    let runner = Replay::new(
        &scenario,
        example,
        vec![Placeholder {
            token: "{plan}",
            file_name: opentofu::PLAN_FILE,
        }],
        vec![opentofu::WORKSPACE_VAR],
    );
    let setting = Setting::new(&scenario.label, values)?;
    let ctx = setting.context(&runner);
    let mut kept: BTreeMap<(PathBuf, Option<String>), opentofu::SavedPlan> = BTreeMap::new();
    let mut steps = Vec::new();
    let mut produced = Produced::default();
    let within = |cwd: &str| {
        if cwd == "." {
            example.to_owned()
        } else {
            example.join(cwd)
        }
    };
    for command in &scenario.recording.commands {
        let argv: Vec<&str> = command.argv.iter().map(String::as_str).collect();
        let unknown = |what: &str| ReplayError::UnknownCommand {
            scenario: scenario.label.clone(),
            command: command.id.clone(),
            what: what.to_owned(),
        };
        // The wrappers' own commands.
        let wrapped = match argv.as_slice() {
            ["cdktf", "--version"] => Some((
                Operation::Version,
                version_outcome(opentofu::cdktf::check_version(&ctx, example)),
            )),
            ["cdktf", "synth", ..] => {
                let run = opentofu::cdktf::synth(&within(&command.cwd), &ctx);
                produced
                    .log_lines
                    .extend(run.log.job_log_lines().iter().cloned());
                Some((Operation::Prepare, prepared_outcome(run.result)))
            }
            ["terragrunt", "--version"] => Some((
                Operation::Version,
                version_outcome(opentofu::terragrunt::check_version(&ctx, example)),
            )),
            _ => None,
        };
        if let Some((operation, outcome)) = wrapped {
            steps.push(Step {
                command: command.id.clone(),
                operation,
                outcome,
            });
            continue;
        }
        let (launch, args): (opentofu::Launch, Vec<&str>) = match argv.as_slice() {
            ["terragrunt", "run", rest @ ..] => {
                let split = rest
                    .iter()
                    .position(|a| *a == "--")
                    .ok_or_else(|| unknown("terragrunt run without `--`"))?;
                let named = rest
                    .iter()
                    .position(|a| *a == "--tf-path")
                    .and_then(|i| rest.get(i + 1));
                let binary = match named {
                    Some(&"terraform") => opentofu::Binary::Terraform,
                    _ => opentofu::Binary::Tofu,
                };
                (
                    opentofu::Launch::Terragrunt(binary),
                    rest[split + 1..].to_vec(),
                )
            }
            [_, rest @ ..] => (opentofu::Launch::Direct(binary), rest.to_vec()),
            [] => return Err(unknown("an empty command line")),
        };
        let synthesized = command
            .cwd
            .rsplit_once(&format!("{}/stacks/", opentofu::cdktf::OUTPUT_DIR))
            .map(|(app, name)| (app.trim_end_matches('/'), name));
        let (path, wrapper, dir) = match (launch, synthesized) {
            (opentofu::Launch::Terragrunt(_), _) => (
                command.cwd.as_str(),
                Some(opentofu::Wrapper::Terragrunt),
                within(&command.cwd),
            ),
            (opentofu::Launch::Direct(_), Some((app, name))) => {
                let app = if app.is_empty() { "." } else { app };
                (
                    app,
                    Some(opentofu::Wrapper::Cdktf {
                        stack: name.to_owned(),
                    }),
                    within(app),
                )
            }
            (opentofu::Launch::Direct(_), None) => {
                (command.cwd.as_str(), None, within(&command.cwd))
            }
        };
        let workspace = command.env.get(opentofu::WORKSPACE_VAR).cloned();
        let name = match &wrapper {
            Some(opentofu::Wrapper::Cdktf { stack }) => Some(stack.clone()),
            _ => workspace.clone(),
        };
        let stack = opentofu::Stack {
            id: StackId::derive(path, name.as_deref()),
            dir: dir.clone(),
            binary: match launch {
                opentofu::Launch::Direct(binary) | opentofu::Launch::Terragrunt(binary) => binary,
            },
            wrapper,
            workspace: workspace.clone(),
            var_files: args
                .iter()
                .filter_map(|a| a.strip_prefix("-var-file="))
                .map(str::to_owned)
                .collect(),
        };
        let dir = stack.module_dir();
        let (operation, outcome) = match args.first().copied() {
            Some("version") => (
                Operation::Version,
                version_outcome(opentofu::check_version(&ctx, stack.binary, example)),
            ),
            Some("init") => {
                let run = opentofu::prepare(&dir, launch, &ctx);
                produced
                    .log_lines
                    .extend(run.log.job_log_lines().iter().cloned());
                (Operation::Prepare, prepared_outcome(run.result))
            }
            Some("plan") if args.contains(&"-json") => {
                let preview = opentofu::preview(
                    &stack,
                    &ctx,
                    Asks {
                        keep: true,
                        ..Asks::default()
                    },
                );
                produced
                    .log_lines
                    .extend(preview.log.job_log_lines().iter().cloned());
                (
                    Operation::Preview,
                    match preview.result {
                        Ok(previewed) => {
                            if let Some(plan) = previewed.plan {
                                kept.insert((dir.clone(), workspace.clone()), plan);
                            }
                            diff_outcome(&previewed.diff, &mut produced)
                        }
                        Err(failure) => failure_outcome(&failure),
                    },
                )
            }
            // Answered by the preview that asked for it.
            Some("show") => continue,
            Some("plan") => {
                let diff = opentofu::tool_diff(&stack, &ctx);
                produced
                    .log_lines
                    .extend(diff.log.job_log_lines().iter().cloned());
                (
                    Operation::ToolDiff,
                    tool_diff_outcome(diff.result, &mut produced),
                )
            }
            Some("apply") => {
                let Some(plan) = kept.remove(&(dir.clone(), workspace.clone())) else {
                    return Err(ReplayError::DeployWithoutPreview {
                        scenario: scenario.label.clone(),
                        command: command.id.clone(),
                    });
                };
                let run = opentofu::deploy(&stack, &ctx, &plan);
                produced
                    .log_lines
                    .extend(run.log.job_log_lines().iter().cloned());
                (
                    Operation::Deploy,
                    match run.result {
                        Ok(()) => StepOutcome::Deployed { deployed: true },
                        Err(failure) => failure_outcome(&failure),
                    },
                )
            }
            other => return Err(unknown(other.unwrap_or("an empty command line"))),
        };
        steps.push(Step {
            command: command.id.clone(),
            operation,
            outcome,
        });
    }
    finish(&runner, scenario, steps, produced)
}
