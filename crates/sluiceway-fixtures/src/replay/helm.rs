//! Replaying a Helm scenario: recordings without the plugin (ours) and with it (the
//! reference's).
//!
//! Helm's operations share commands (a preview and a tool diff both render and read the
//! release), so the replay reads them by their order, the way the adapter runs them. At
//! each command not yet answered it decides which operation starts there, from that
//! command and the next, runs the operation against the recording, and goes on from
//! the first command still unanswered:
//!
//! - `helm version` is the version check; `helm dependency build` a preparation;
//! - `helm diff upgrade --output=diff` the plugin's tool diff; a plain structured diff
//!   followed by a three-way one the plugin's drift check, else a preview (keeping its
//!   render when a `helm template` follows);
//! - `helm template` a deploy when a preview of that stack kept a render and no
//!   `helm list` follows, else a preview without the plugin;
//! - `helm list` a tool diff when the render follows it (after the manifest and hooks),
//!   else a drift check. A drift check of a release that is not installed, followed at
//!   once by a render, therefore reads as a tool diff.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use sluiceway_core::diff::Diff;
use sluiceway_core::stack::{Chart, StackId};
use sluiceway_core::values::ValueList;
use sluiceway_tools::helm::{self, Differ};
use sluiceway_tools::kubernetes::rendered_set::RenderedSet;
use sluiceway_tools::recording::{RecordedCommand, Scenario};
use sluiceway_tools::replay::{Placeholder, Replay};

use super::{
    Operation, Produced, ReplayError, Report, Setting, Step, StepOutcome, diff_outcome,
    drift_outcome, failure_outcome, finish, prepared_outcome, tool_diff_outcome, version_outcome,
};

/// What the replay decided a command starts.
enum Start {
    Version,
    Prepare,
    Preview { differ: Differ, keep: bool },
    Drift(Differ),
    ToolDiff(Differ),
    Deploy,
}

fn words(command: &RecordedCommand) -> Vec<&str> {
    command.argv.iter().map(String::as_str).collect()
}

fn is(command: Option<&RecordedCommand>, cwd: &str, prefix: &[&str]) -> bool {
    command.is_some_and(|c| c.cwd == cwd && words(c).starts_with(prefix))
}

fn decide(
    command: &RecordedCommand,
    next: Option<&RecordedCommand>,
    after: Option<&RecordedCommand>,
    kept: &BTreeMap<String, RenderedSet>,
    label: &str,
) -> Result<Start, ReplayError> {
    let argv = words(command);
    let cwd = command.cwd.as_str();
    Ok(match argv.as_slice() {
        ["helm", "version", ..] => Start::Version,
        ["helm", "dependency", "build", ..] => Start::Prepare,
        ["helm", "diff", "upgrade", rest @ ..] if rest.contains(&"--output=diff") => {
            Start::ToolDiff(Differ::Plugin)
        }
        ["helm", "diff", "upgrade", rest @ ..] if !rest.contains(&"--three-way-merge") => {
            let three_way = next.is_some_and(|n| {
                n.cwd == cwd
                    && words(n).starts_with(&["helm", "diff", "upgrade"])
                    && n.argv.iter().any(|a| a == "--three-way-merge")
            });
            if three_way {
                Start::Drift(Differ::Plugin)
            } else {
                Start::Preview {
                    differ: Differ::Plugin,
                    keep: is(next, cwd, &["helm", "template"]),
                }
            }
        }
        ["helm", "template", ..] => {
            if kept.contains_key(cwd) && !is(next, cwd, &["helm", "list"]) {
                Start::Deploy
            } else {
                Start::Preview {
                    differ: Differ::Sluiceway,
                    keep: true,
                }
            }
        }
        ["helm", "list", ..] => {
            let renders_next = is(next, cwd, &["helm", "template"]);
            let reads_hooks = is(next, cwd, &["helm", "get", "manifest"])
                && is(after, cwd, &["helm", "get", "hooks"]);
            if renders_next || reads_hooks {
                Start::ToolDiff(Differ::Sluiceway)
            } else {
                Start::Drift(Differ::Sluiceway)
            }
        }
        _ => {
            return Err(ReplayError::UnknownCommand {
                scenario: label.to_owned(),
                command: command.id.clone(),
                what: argv
                    .first()
                    .copied()
                    .unwrap_or("an empty command line")
                    .to_owned(),
            });
        }
    })
}

/// The release a command names: its positional words after the subcommand, and its
/// flags. Commands that name only the release (`list`, `get`, kubectl's) take the rest
/// from the stack's earlier commands.
fn stack_of(
    command: &RecordedCommand,
    example: &Path,
    known: &BTreeMap<String, helm::Stack>,
) -> helm::Stack {
    let argv = words(command);
    let flag = |name: &str| argv.iter().find_map(|a| a.strip_prefix(name));
    let skip = match argv.as_slice() {
        ["helm", "diff", "upgrade", ..] => 3,
        ["helm", "get", ..] => 3,
        _ => 2,
    };
    let positional: Vec<&str> = argv
        .iter()
        .skip(skip)
        .filter(|a| !a.starts_with('-'))
        .copied()
        .collect();
    let dir = if command.cwd == "." {
        example.to_owned()
    } else {
        example.join(&command.cwd)
    };
    let earlier = known.get(&command.cwd);
    let release = positional
        .first()
        .map(|r| (*r).to_owned())
        .or_else(|| flag("--filter=^").map(|f| f.trim_end_matches('$').replace("\\.", ".")))
        .or_else(|| earlier.map(|s| s.release.clone()))
        .unwrap_or_default();
    let chart = match (positional.get(1), flag("--version=")) {
        (Some(chart), _) if chart.starts_with("./") || chart.starts_with("../") => {
            Some(Chart::Local((*chart).to_owned()))
        }
        (Some(chart), Some(version)) => Some(Chart::Reference {
            name: (*chart).to_owned(),
            version: version.to_owned(),
        }),
        _ => None,
    };
    let values: Vec<String> = argv
        .iter()
        .filter_map(|a| a.strip_prefix("--values="))
        .map(str::to_owned)
        .collect();
    helm::Stack {
        id: StackId::derive(&command.cwd, None),
        dir,
        release,
        namespace: flag("--namespace=")
            .map(str::to_owned)
            .or_else(|| earlier.map(|s| s.namespace.clone()))
            .unwrap_or_default(),
        chart: chart
            .or_else(|| earlier.map(|s| s.chart.clone()))
            .unwrap_or_else(|| Chart::Local(".".to_owned())),
        values_files: if values.is_empty() {
            earlier.map(|s| s.values_files.clone()).unwrap_or_default()
        } else {
            values
        },
        create_namespace: false,
        differ: Differ::Sluiceway,
    }
}

/// Replays a Helm scenario, with `example` as the project.
pub(super) fn replay(
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
            file_name: sluiceway_tools::kubernetes::rendered_set::SET_FILE,
        }],
        vec![sluiceway_tools::kubernetes::EXTERNAL_DIFF_VAR],
    );
    let setting = Setting::new(&scenario.label, values)?;
    let ctx = setting.context(&runner);
    let commands = &scenario.recording.commands;
    let mut known: BTreeMap<String, helm::Stack> = BTreeMap::new();
    let mut kept: BTreeMap<String, RenderedSet> = BTreeMap::new();
    let mut last_diff: BTreeMap<String, Diff> = BTreeMap::new();
    let mut steps = Vec::new();
    let mut produced = Produced::default();
    loop {
        let answered: BTreeSet<String> = runner.answered().into_iter().map(|a| a.id).collect();
        let mut waiting = commands.iter().filter(|c| !answered.contains(&c.id));
        let Some(command) = waiting.next() else {
            break;
        };
        let (next, after) = (waiting.next(), waiting.next());
        let start = decide(command, next, after, &kept, &scenario.label)?;
        // A tool diff without the plugin renders last: its render names the chart.
        let naming = match start {
            Start::ToolDiff(Differ::Sluiceway) => commands
                .iter()
                .filter(|c| !answered.contains(&c.id) && c.cwd == command.cwd)
                .find(|c| words(c).starts_with(&["helm", "template"]))
                .unwrap_or(command),
            _ => command,
        };
        let mut stack = stack_of(naming, example, &known);
        let (operation, outcome) = match start {
            Start::Version => (
                Operation::Version,
                version_outcome(helm::check_version(&ctx, example)),
            ),
            Start::Prepare => {
                let run = helm::build_dependencies(&stack.dir, &ctx);
                produced
                    .log_lines
                    .extend(run.log.job_log_lines().iter().cloned());
                (Operation::Prepare, prepared_outcome(run.result))
            }
            Start::Preview { differ, keep } => {
                stack.differ = differ;
                known.insert(command.cwd.clone(), stack.clone());
                let preview = helm::preview(&stack, &ctx, keep, false);
                produced
                    .log_lines
                    .extend(preview.log.job_log_lines().iter().cloned());
                let outcome = match preview.result {
                    Ok(previewed) => {
                        if let Some(render) = previewed.render {
                            kept.insert(command.cwd.clone(), render);
                        }
                        let outcome = diff_outcome(&previewed.diff, &mut produced);
                        last_diff.insert(command.cwd.clone(), previewed.diff);
                        outcome
                    }
                    Err(failure) => failure_outcome(&failure),
                };
                (Operation::Preview, outcome)
            }
            Start::Drift(differ) => {
                stack.differ = differ;
                let run = helm::detect_drift(&stack, &ctx);
                produced
                    .log_lines
                    .extend(run.log.job_log_lines().iter().cloned());
                let outcome = match run.result {
                    Ok(drift) => {
                        drift_outcome(&stack.id, last_diff.get(&command.cwd), drift, &mut produced)
                    }
                    Err(failure) => failure_outcome(&failure),
                };
                (Operation::Drift, outcome)
            }
            Start::ToolDiff(differ) => {
                stack.differ = differ;
                let run = helm::tool_diff(&stack, &ctx);
                produced
                    .log_lines
                    .extend(run.log.job_log_lines().iter().cloned());
                let outcome = tool_diff_outcome(run.result, &mut produced);
                (Operation::ToolDiff, outcome)
            }
            Start::Deploy => {
                let Some(render) = kept.remove(&command.cwd) else {
                    return Err(ReplayError::DeployWithoutPreview {
                        scenario: scenario.label.clone(),
                        command: command.id.clone(),
                    });
                };
                let later: Vec<&RecordedCommand> = commands
                    .iter()
                    .filter(|c| !answered.contains(&c.id) && c.cwd == command.cwd)
                    .collect();
                let upgrade = later
                    .iter()
                    .find(|c| words(c).starts_with(&["helm", "upgrade"]));
                stack.create_namespace =
                    upgrade.is_some_and(|u| u.argv.iter().any(|a| a == "--create-namespace"));
                let repair = later
                    .iter()
                    .any(|c| words(c).starts_with(&["helm", "get", "metadata"]));
                let run = helm::deploy(&stack, &ctx, &render, repair);
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
        };
        steps.push(Step {
            command: command.id.clone(),
            operation,
            outcome,
        });
        let still: usize = runner.answered().len();
        if still == answered.len() {
            // The operation asked for nothing the recording holds: say which call missed.
            break;
        }
    }
    drop(kept);
    finish(&runner, scenario, steps, produced)
}
