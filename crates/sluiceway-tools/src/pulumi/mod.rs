//! The Pulumi adapter: the `pulumi` CLI, driven with `--json` and read against what its
//! documents hold (decision 0001), never through an SDK.
//!
//! Every command names its stack with `--stack`; the stack is never selected, so two
//! jobs on one runner cannot change each other's. A preview keeps no plan: the deploy is
//! `pulumi up` after a fresh preview whose hash equals the ticked one, and `up` runs
//! without `--json` because that streams values. The reason for a failure comes from
//! Pulumi's exit codes, and one phrase of its words: the stack's lock is held.

pub mod backend;
pub mod events;
pub mod history;
pub mod paths;
pub mod preview;
pub mod urn;

use std::path::{Path, PathBuf};
use std::time::Duration;

use sluiceway_core::diff::{Change, Diff};
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::runner::Outcome;
use sluiceway_core::stack::StackId;

use crate::adapter::Step;
use crate::preview_document::PreviewDocument;
use crate::tool_log::{ToolDiffText, ToolLog};
use crate::tool_run::{Context, Ran, VersionError, accept, minutes};
use crate::version::Version;

/// The oldest Pulumi CLI Sluiceway drives: the oldest our recordings prove.
pub const FLOOR: Version = Version {
    major: 3,
    minor: 229,
    patch: 0,
};
/// The variable that makes `refresh --preview-only --json` stream engine events.
pub const STREAMING_VAR: &str = "PULUMI_ENABLE_STREAMING_JSON_PREVIEW";
/// What Pulumi says when another update holds the stack's lock: the one reason read
/// from its words, because its exit code (1) says nothing more.
const LOCK_HELD: &str = "the stack is currently locked";
/// How long a question to the backend (its stack list, a stack's creation) may take.
const BACKEND_TIME_LIMIT: Duration = Duration::from_secs(600);
const VERSION_TIME_LIMIT: Duration = Duration::from_secs(60);

/// One Pulumi stack as the adapter needs it.
#[derive(Debug, Clone)]
pub struct Stack {
    pub id: StackId,
    /// The project's directory, absolute.
    pub dir: PathBuf,
    /// The stack's name in its backend: the `<name>` of `Pulumi.<name>.yaml`.
    pub name: String,
    /// A scan makes the stack when its backend lacks it (`createInBackend`).
    pub create_in_backend: bool,
}

impl Stack {
    /// `pulumi <args> --non-interactive --color never --stack <name>`.
    fn command(&self, args: &[&str]) -> Vec<String> {
        let mut argv = global(args);
        argv.extend(["--stack".to_owned(), self.name.clone()]);
        argv
    }
}

/// `pulumi <args> --non-interactive --color never`: a command about the project.
fn global(args: &[&str]) -> Vec<String> {
    std::iter::once("pulumi")
        .chain(args.iter().copied())
        .chain(["--non-interactive", "--color", "never"])
        .map(str::to_owned)
        .collect()
}

/// The fixed reason of one of Pulumi's exit codes.
pub fn reason_of(code: Option<i32>) -> FailureReason {
    match code {
        Some(2) => FailureReason::ConfigurationError,
        Some(3) => FailureReason::AuthenticationError,
        Some(4) => FailureReason::ResourceError,
        Some(6) => FailureReason::StackNotFound,
        Some(9) => FailureReason::ToolTimedOut,
        other => FailureReason::ToolError { exit_code: other },
    }
}

/// A run's output when it exited 0; otherwise the reason, with a held lock as `Busy`.
/// stderr goes to the log; stdout is left to the caller, which knows what it holds.
fn finish_run(outcome: Outcome, limit: u32, log: &mut ToolLog) -> Result<Ran, Failure> {
    let held = lock_held(&outcome);
    accept(outcome, &[0], limit, log).map_err(|failure| pulumi_reason(failure, held))
}

fn lock_held(outcome: &Outcome) -> bool {
    matches!(outcome, Outcome::Exited { stderr, .. }
        if String::from_utf8_lossy(stderr).contains(LOCK_HELD))
}

/// A tool error named by Pulumi's exit code, or `Busy` when the lock was held.
fn pulumi_reason(failure: Failure, lock_held: bool) -> Failure {
    match failure.reason {
        FailureReason::ToolError { .. } if lock_held => Failure::new(FailureReason::Busy),
        FailureReason::ToolError { exit_code } => Failure::new(reason_of(exit_code)),
        _ => failure,
    }
}

fn stdout_of(outcome: &Outcome) -> Option<&[u8]> {
    match outcome {
        Outcome::Exited { stdout, .. } | Outcome::TimedOut { stdout, .. } => Some(stdout),
        Outcome::NotStarted { .. } => None,
    }
}

#[derive(Debug)]
pub struct Previewed {
    pub diff: Diff,
    /// The preview's JSON document, read only when asked (for the policies).
    pub document: Option<PreviewDocument>,
}

/// `pulumi preview --json`, read into changes; with `document`, its JSON is handed
/// back whole for the policies.
pub fn preview(stack: &Stack, ctx: &Context<'_>, document: bool) -> Step<Previewed> {
    let mut log = ToolLog::default();
    let argv = stack.command(&["preview", "--json"]);
    let outcome = ctx.invoke(argv, &stack.dir, &[], Some(ctx.time_limit));
    let failed_document = match &outcome {
        Outcome::Exited {
            code: Some(code), ..
        } if *code != 0 => stdout_of(&outcome).map(<[u8]>::to_vec),
        _ => None,
    };
    let result = match finish_run(outcome, minutes(ctx.time_limit), &mut log) {
        Ok(ran) => preview::read(&ran.stdout, &mut log, ctx.values).and_then(|changes| {
            Ok(Previewed {
                diff: Diff {
                    stack: stack.id.clone(),
                    changes,
                    drift: None,
                },
                document: document
                    .then(|| PreviewDocument::from_json(&ran.stdout))
                    .transpose()?,
            })
        }),
        Err(failure) => {
            // A failed preview still prints its document; its diagnostics say why.
            if let Some(document) = failed_document {
                let _ = preview::read(&document, &mut log, ctx.values);
            }
            Err(failure)
        }
    };
    Step { result, log }
}

/// `pulumi refresh --preview-only --json` as engine events: what changed outside the
/// code. It takes no lock, so it runs beside a deploy.
pub fn detect_drift(stack: &Stack, ctx: &Context<'_>) -> Step<Vec<Change>> {
    let mut log = ToolLog::default();
    let argv = stack.command(&["refresh", "--preview-only", "--json"]);
    let outcome = ctx.invoke(
        argv,
        &stack.dir,
        &[(STREAMING_VAR, "true")],
        Some(ctx.time_limit),
    );
    let result = finish_run(outcome, minutes(ctx.time_limit), &mut log)
        .and_then(|ran| events::read(&ran.stdout, &mut log));
    Step { result, log }
}

/// `pulumi preview --diff`: the tool's own diff for the job log, outputs left out
/// (secrets show as `[secret]`; other values show).
pub fn tool_diff(stack: &Stack, ctx: &Context<'_>) -> Step<ToolDiffText> {
    let mut log = ToolLog::default();
    let argv = stack.command(&["preview", "--diff", "--suppress-outputs"]);
    let outcome = ctx.invoke(argv, &stack.dir, &[], Some(ctx.time_limit));
    let result = finish_run(outcome, minutes(ctx.time_limit), &mut log)
        .map(|ran| ToolDiffText::new(String::from_utf8_lossy(&ran.stdout).into_owned()));
    Step { result, log }
}

/// `pulumi up`, with `--refresh` when the tick also puts back drift; within
/// `deploy-timeout` if set.
pub fn deploy(stack: &Stack, ctx: &Context<'_>, repair: bool) -> Step<()> {
    let mut log = ToolLog::default();
    let mut args = vec!["up", "--yes", "--skip-preview"];
    if repair {
        args.push("--refresh");
    }
    args.push("--suppress-outputs");
    let outcome = ctx.invoke_deploy(stack.command(&args), &stack.dir, &[]);
    if let Some(stdout) = stdout_of(&outcome) {
        log.push_output(stdout);
    }
    let held = lock_held(&outcome);
    let result = ctx
        .accept_deploy(outcome, &mut log)
        .map(|_| ())
        .map_err(|failure| pulumi_reason(failure, held));
    Step { result, log }
}

/// `pulumi stack history --json`: the last `page_size` updates, read for the deploys
/// they made (decision 0073). Its output is never logged.
pub fn history(stack: &Stack, ctx: &Context<'_>, page_size: u32) -> Step<Vec<history::Deployed>> {
    let mut log = ToolLog::default();
    let size = page_size.to_string();
    let argv = stack.command(&["stack", "history", "--json", "--page-size", &size]);
    let outcome = ctx.invoke(argv, &stack.dir, &[], Some(ctx.time_limit));
    let result = finish_run(outcome, minutes(ctx.time_limit), &mut log)
        .and_then(|ran| history::read(&ran.stdout));
    Step { result, log }
}

/// `pulumi stack ls --json` in a project's directory: the names of the stacks its
/// backend holds (decision 0074). Read-only: no lock, no passphrase.
pub fn list_stacks(project_dir: &Path, ctx: &Context<'_>) -> Step<Vec<String>> {
    let mut log = ToolLog::default();
    let outcome = ctx.invoke(
        global(&["stack", "ls", "--json"]),
        project_dir,
        &[],
        Some(BACKEND_TIME_LIMIT),
    );
    let result = finish_run(outcome, minutes(BACKEND_TIME_LIMIT), &mut log)
        .and_then(|ran| backend::read(&ran.stdout));
    Step { result, log }
}

/// What making sure a stack exists in its backend did (decision 0107).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ensured {
    AlreadyThere,
    Created,
}

/// `pulumi stack init <name>`: makes the stack in the project's backend.
pub fn create_stack(stack: &Stack, ctx: &Context<'_>) -> Step<()> {
    let mut log = ToolLog::default();
    let outcome = ctx.invoke(
        global(&["stack", "init", &stack.name]),
        &stack.dir,
        &[],
        Some(ctx.time_limit),
    );
    if let Some(stdout) = stdout_of(&outcome) {
        log.push_output(stdout);
    }
    let result = finish_run(outcome, minutes(ctx.time_limit), &mut log).map(|_| ());
    Step { result, log }
}

/// Lists the project's stacks and, when this one is missing, creates it: only a scan
/// does this, only when the stack's entry asks (`createInBackend`).
pub fn ensure_in_backend(stack: &Stack, ctx: &Context<'_>) -> Step<Ensured> {
    let listed = list_stacks(&stack.dir, ctx);
    let mut log = listed.log;
    let result = match listed.result {
        Ok(names) if names.contains(&stack.name) => Ok(Ensured::AlreadyThere),
        Ok(_) => {
            let created = create_stack(stack, ctx);
            for line in created.log.job_log_lines() {
                log.note(line.clone());
            }
            created.result.map(|()| Ensured::Created)
        }
        Err(failure) => Err(failure),
    };
    Step { result, log }
}

/// Checks the CLI is there and new enough; run once per job in the repository root.
pub fn check_version(ctx: &Context<'_>, repo_root: &Path) -> Result<Version, VersionError> {
    let tool = "pulumi";
    let argv = vec!["pulumi".to_owned(), "version".to_owned()];
    match ctx.invoke(argv, repo_root, &[], Some(VERSION_TIME_LIMIT)) {
        Outcome::Exited {
            code: Some(0),
            stdout,
            ..
        } => {
            let found = Version::parse(String::from_utf8_lossy(&stdout).trim())
                .ok_or(VersionError::Unreadable { tool })?;
            if found < FLOOR {
                Err(VersionError::TooOld {
                    tool,
                    found,
                    floor: FLOOR,
                })
            } else {
                Ok(found)
            }
        }
        Outcome::NotStarted { .. } => Err(VersionError::Missing { tool, floor: FLOOR }),
        _ => Err(VersionError::Unreadable { tool }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_names_its_stack_and_never_selects_it() {
        let stack = Stack {
            id: StackId::derive("network", Some("dev")),
            dir: PathBuf::from("/r/network"),
            name: "dev".into(),
            create_in_backend: false,
        };
        assert_eq!(
            stack.command(&["preview", "--json"]).join(" "),
            "pulumi preview --json --non-interactive --color never --stack dev"
        );
        assert_eq!(
            global(&["stack", "init", "prod"]).join(" "),
            "pulumi stack init prod --non-interactive --color never"
        );
    }

    /// A runner that answers every call with one outcome, to hold the mapping of an
    /// outcome to its reason (what the tool printed plays no part in it).
    struct Answers(Outcome);

    impl sluiceway_core::runner::Runner for Answers {
        fn run(&self, _: &sluiceway_core::runner::Invocation) -> Outcome {
            self.0.clone()
        }
    }

    /// What `step` gives in a job whose every run ends with `outcome`.
    fn answered<T>(outcome: Outcome, step: impl FnOnce(&Context<'_>) -> T) -> T {
        let runner = Answers(outcome);
        let env = std::collections::BTreeMap::new();
        step(&Context {
            runner: &runner,
            env: &env,
            repository: "",
            scratch: Path::new("/tmp"),
            time_limit: Duration::from_secs(60),
            deploy_limit: None,
            values: &sluiceway_core::values::ValueList::none(),
        })
    }

    fn preview_with(outcome: Outcome) -> FailureReason {
        let stack = Stack {
            id: StackId::derive("network", Some("dev")),
            dir: PathBuf::from("/r/network"),
            name: "dev".into(),
            create_in_backend: false,
        };
        answered(outcome, |ctx| {
            preview(&stack, ctx, false).result.unwrap_err().reason
        })
    }

    #[test]
    fn output_over_the_cap_and_the_tools_own_time_limit_are_fixed_reasons() {
        let exited = |code, cut| Outcome::Exited {
            code: Some(code),
            stdout: Vec::new(),
            stderr: Vec::new(),
            cut,
        };
        assert_eq!(
            preview_with(exited(0, Some(sluiceway_core::runner::Stream::Stdout))),
            FailureReason::OutputTooLarge
        );
        assert_eq!(preview_with(exited(9, None)), FailureReason::ToolTimedOut);
        assert_eq!(
            preview_with(exited(2, None)),
            FailureReason::ConfigurationError
        );
        assert_eq!(
            preview_with(Outcome::TimedOut {
                stdout: Vec::new(),
                stderr: Vec::new()
            }),
            FailureReason::TimedOut { minutes: 1 }
        );
    }

    /// Decision 0001: an older CLI is one error naming the version found and the floor.
    #[test]
    fn the_floor_is_v3_229_0() {
        let said = |version: &str| {
            let outcome = Outcome::Exited {
                code: Some(0),
                stdout: format!("{version}\n").into_bytes(),
                stderr: Vec::new(),
                cut: None,
            };
            answered(outcome, |ctx| {
                check_version(ctx, Path::new("/r")).map_err(|e| e.to_string())
            })
        };
        assert_eq!(
            said("v3.228.5"),
            Err("pulumi v3.228.5 is too old; Sluiceway needs pulumi v3.229.0 or newer".to_owned())
        );
        assert_eq!(
            said("v3.229.0").map(|v| v.to_string()),
            Ok("v3.229.0".to_owned())
        );
        assert_eq!(
            said("not a version"),
            Err("pulumi did not say its version".to_owned())
        );
    }

    #[test]
    fn exit_codes_are_reasons() {
        assert_eq!(reason_of(Some(2)), FailureReason::ConfigurationError);
        assert_eq!(reason_of(Some(3)), FailureReason::AuthenticationError);
        assert_eq!(reason_of(Some(4)), FailureReason::ResourceError);
        assert_eq!(reason_of(Some(6)), FailureReason::StackNotFound);
        assert_eq!(reason_of(Some(9)), FailureReason::ToolTimedOut);
        assert_eq!(
            reason_of(Some(1)),
            FailureReason::ToolError { exit_code: Some(1) }
        );
    }
}
