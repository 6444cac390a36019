//! Replaying a Pulumi scenario. Every Pulumi command is one adapter operation, read off
//! its words: `version`; `preview --json` a preview and `preview --diff` the tool diff;
//! `refresh --preview-only` a drift check; `up` a deploy (a repair with `--refresh`);
//! `stack history` the history read; `stack ls` the backend's list; `stack init` the
//! creation of a missing stack. The stack is the command's `--stack` in its `cwd`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;
use sluiceway_core::diff::Diff;
use sluiceway_core::stack::StackId;
use sluiceway_core::values::ValueList;
use sluiceway_tools::pulumi::{self, history::DeployKind};
use sluiceway_tools::recording::{RecordedCommand, Scenario};
use sluiceway_tools::replay::Replay;

use super::{
    Operation, Produced, ReplayError, Report, Setting, Step, StepOutcome, diff_outcome,
    drift_outcome, failure_outcome, finish, tool_diff_outcome, version_outcome,
};

/// A deploy the history lists, as the report shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DeployedJson {
    pub kind: &'static str,
    pub ended: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    pub dirty: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<u64>,
}

fn stack_of(command: &RecordedCommand, example: &Path) -> pulumi::Stack {
    let name = command
        .argv
        .iter()
        .skip_while(|a| *a != "--stack")
        .nth(1)
        .or_else(|| match command.argv.get(1..3) {
            Some([stack, init]) if stack == "stack" && init == "init" => command.argv.get(3),
            _ => None,
        })
        .cloned()
        .unwrap_or_default();
    let dir = if command.cwd == "." {
        example.to_owned()
    } else {
        example.join(&command.cwd)
    };
    pulumi::Stack {
        id: StackId::derive(&command.cwd, Some(&name)),
        dir,
        name,
        create_in_backend: false,
    }
}

/// Replays a Pulumi scenario recorded from `example`.
pub(super) fn replay(
    example: &Path,
    scenario_dir: &Path,
    values: &ValueList,
) -> Result<Report, ReplayError> {
    let scenario = Scenario::load(scenario_dir)?;
    let runner = Replay::new(&scenario, example, Vec::new(), vec![pulumi::STREAMING_VAR]);
    let setting = Setting::new(&scenario.label, values)?;
    let ctx = setting.context(&runner);
    let mut last: BTreeMap<StackId, Diff> = BTreeMap::new();
    let mut steps = Vec::new();
    let mut produced = Produced::default();
    for command in &scenario.recording.commands {
        let args: Vec<&str> = command.argv.iter().skip(1).map(String::as_str).collect();
        let stack = stack_of(command, example);
        let mut log = |lines: &[String]| produced.log_lines.extend(lines.iter().cloned());
        let (operation, outcome) = match args.as_slice() {
            ["version", ..] => (
                Operation::Version,
                version_outcome(pulumi::check_version(&ctx, example)),
            ),
            ["preview", "--json", ..] => {
                let preview = pulumi::preview(&stack, &ctx, false);
                log(preview.log.job_log_lines());
                let outcome = match preview.result {
                    Ok(previewed) => {
                        let outcome = diff_outcome(&previewed.diff, &mut produced);
                        last.insert(stack.id.clone(), previewed.diff);
                        outcome
                    }
                    Err(failure) => failure_outcome(&failure),
                };
                (Operation::Preview, outcome)
            }
            ["preview", "--diff", ..] => {
                let diff = pulumi::tool_diff(&stack, &ctx);
                log(diff.log.job_log_lines());
                (
                    Operation::ToolDiff,
                    tool_diff_outcome(diff.result, &mut produced),
                )
            }
            ["refresh", "--preview-only", ..] => {
                let drift = pulumi::detect_drift(&stack, &ctx);
                log(drift.log.job_log_lines());
                let outcome = match drift.result {
                    Ok(drift) => {
                        drift_outcome(&stack.id, last.get(&stack.id), drift, &mut produced)
                    }
                    Err(failure) => failure_outcome(&failure),
                };
                (Operation::Drift, outcome)
            }
            ["up", rest @ ..] => {
                let deploy = pulumi::deploy(&stack, &ctx, rest.contains(&"--refresh"));
                log(deploy.log.job_log_lines());
                let outcome = match deploy.result {
                    Ok(()) => StepOutcome::Deployed { deployed: true },
                    Err(failure) => failure_outcome(&failure),
                };
                (Operation::Deploy, outcome)
            }
            ["stack", "history", "--json", "--page-size", size, ..] => {
                let page_size = size.parse().map_err(|_| unknown(&scenario, command))?;
                let history = pulumi::history(&stack, &ctx, page_size);
                log(history.log.job_log_lines());
                let outcome = match history.result {
                    Ok(deploys) => StepOutcome::History {
                        deploys: deploys
                            .into_iter()
                            .map(|d| DeployedJson {
                                kind: match d.kind {
                                    DeployKind::Update => "update",
                                    DeployKind::Destroy => "destroy",
                                },
                                ended: d.ended,
                                commit: d.commit,
                                dirty: d.dirty,
                                run: d.run,
                            })
                            .collect(),
                    },
                    Err(failure) => failure_outcome(&failure),
                };
                (Operation::History, outcome)
            }
            ["stack", "ls", ..] => {
                let listed = pulumi::list_stacks(&stack.dir, &ctx);
                log(listed.log.job_log_lines());
                let outcome = match listed.result {
                    Ok(stacks) => StepOutcome::Stacks { stacks },
                    Err(failure) => failure_outcome(&failure),
                };
                (Operation::StackList, outcome)
            }
            ["stack", "init", ..] => {
                let created = pulumi::create_stack(&stack, &ctx);
                log(created.log.job_log_lines());
                let outcome = match created.result {
                    Ok(()) => StepOutcome::Created { created: true },
                    Err(failure) => failure_outcome(&failure),
                };
                (Operation::CreateStack, outcome)
            }
            _ => return Err(unknown(&scenario, command)),
        };
        steps.push(Step {
            command: command.id.clone(),
            operation,
            outcome,
        });
    }
    finish(&runner, scenario, steps, produced)
}

fn unknown(scenario: &Scenario, command: &RecordedCommand) -> ReplayError {
    ReplayError::UnknownCommand {
        scenario: scenario.label.clone(),
        command: command.id.clone(),
        what: command.argv.get(1).cloned().unwrap_or_default(),
    }
}
