//! Failure reasons: a fixed list of Sluiceway's own sentences.
//!
//! A tool's words stay in the job log. Everything that leaves a job (the dashboard, a
//! record, a result file) names a failure with one of these, filled in only with
//! Sluiceway's own facts (an exit code, a limit). Reasons are picked from exit codes,
//! never from what the tool printed.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Why a preview, drift check, tool diff or deploy did not give a result. A sharded
/// scan's partial results carry it by its kind (ADR 0037).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "kind",
    rename_all = "kebab-case",
    rename_all_fields = "camelCase"
)]
pub enum FailureReason {
    /// The tool ran and exited with a code that has no meaning of its own; `None` when it
    /// could not be started at all.
    ToolError {
        exit_code: Option<i32>,
    },
    TimedOut {
        minutes: u32,
    },
    /// The deploy ran past `deploy-timeout`: it was interrupted, given two minutes to
    /// stop cleanly, then killed.
    DeployTimedOut {
        minutes: u32,
    },
    UnreadableOutput,
    UnknownStep,
    OutputTooLarge,
    /// A deploy refused because what would go out is not what was previewed.
    ChangedSincePreview,
    /// Another update holds the stack's state lock: not a failure of the stack, the next
    /// scan previews it.
    Busy,
    /// A Helm release whose last operation failed and was not rolled back: Helm would
    /// upgrade from a state nobody previewed, so a person repairs it first.
    ReleaseFailed,
    /// The tool said its configuration is wrong (Pulumi's exit code 2): a missing config
    /// value, a bad project file. A person fixes the code; a retry would fail the same way.
    ConfigurationError,
    /// The tool could not authenticate to its backend or cloud (Pulumi's exit code 3).
    AuthenticationError,
    /// A resource operation failed inside the tool (Pulumi's exit code 4).
    ResourceError,
    /// The backend holds no stack of that name (Pulumi's exit code 6).
    StackNotFound,
    /// The tool stopped at its own time limit (Pulumi's exit code 9), not Sluiceway's.
    ToolTimedOut,
    /// This version of Sluiceway has no adapter for the stack (`what` names it).
    NotSupported {
        what: String,
    },
    /// The stack's tool is missing or older than Sluiceway's floor for it; the job log
    /// says which, once for every stack of that tool.
    ToolUnusable {
        tool: String,
    },
    /// The runner's tool does not meet the root module's own `required_version` (issue
    /// 44): the tool would refuse the module, so it is not run. `constraint` is the
    /// module's text, `found` the version the job's check found.
    VersionNotMet {
        tool: String,
        constraint: String,
        found: String,
    },
    /// The stack's own `envFile` is missing or not `NAME=value` lines (decision 0103):
    /// its tool did not run; the job log names the file's line or the key.
    EnvFileNotLoaded,
    /// The shard of a sharded scan that held the stack did not report (it failed, timed
    /// out or was cancelled), and the stack had no row to keep (ADR 0037).
    ShardLost,
    /// Sluiceway itself failed inside this stack's preview; the other stacks went on.
    Internal,
}

impl FailureReason {
    /// Whether a scan tries the preview once more after a pause (decision 0117): what
    /// may pass a minute later (a tool's error exit, a held lock), not what would fail
    /// the same way again.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            FailureReason::ToolError { exit_code: Some(_) } | FailureReason::Busy
        )
    }
}

impl FailureReason {
    /// One reason of every kind, with example figures where a reason carries one: the
    /// list the book's reference of failure reasons is drawn from. A kind added to the
    /// enum must be added here too; [`FailureReason::remedy`]'s match, which will not
    /// compile until it says what to do about the new kind, is the reminder.
    pub fn every() -> Vec<FailureReason> {
        use FailureReason::*;
        vec![
            ToolError { exit_code: Some(1) },
            ToolError { exit_code: None },
            TimedOut { minutes: 10 },
            DeployTimedOut { minutes: 30 },
            UnreadableOutput,
            UnknownStep,
            OutputTooLarge,
            ChangedSincePreview,
            Busy,
            ReleaseFailed,
            ConfigurationError,
            AuthenticationError,
            ResourceError,
            StackNotFound,
            ToolTimedOut,
            NotSupported {
                what: "a Terragrunt unit".to_owned(),
            },
            ToolUnusable {
                tool: "tofu".to_owned(),
            },
            VersionNotMet {
                tool: "tofu".to_owned(),
                constraint: "~> 1.7".to_owned(),
                found: "v1.6.2".to_owned(),
            },
            EnvFileNotLoaded,
            ShardLost,
            Internal,
        ]
    }

    /// What a person does about it, in Sluiceway's words: the row names the reason, the
    /// job log holds the tool's own words.
    pub fn remedy(&self) -> &'static str {
        use FailureReason::*;
        match self {
            ToolError { exit_code: Some(_) } => {
                "Read the tool's own words in the job log of the run the row links. A scan tries once more after a pause, so a row that still shows it failed twice; fix the code or the credentials, then push or tick the rescan box."
            }
            ToolError { exit_code: None } => {
                "The runner has no such program, or it is not executable. Install the tool in a step before Sluiceway's, or put it on the PATH."
            }
            TimedOut { .. } => {
                "Raise `preview-timeout` (or the stack's `previewTimeout`), or find out in the job log what the tool waited on: a provider that hangs, a lock, a prompt."
            }
            DeployTimedOut { .. } => {
                "The deploy was interrupted, so the stack may be half deployed: read the job log, check the state, and let the next scan show what is left. Raise `deploy-timeout` if deploys of this size are normal."
            }
            UnreadableOutput | UnknownStep => {
                "The tool printed something this version cannot read, often a newer tool than Sluiceway was recorded with. Pin the tool to a version the book's tool pages list, and report the job log's detail line (it names a place, never a value)."
            }
            OutputTooLarge => {
                "The stack is too large to preview as one: split it into smaller stacks, or narrow what the tool renders."
            }
            ChangedSincePreview => {
                "Nothing was deployed. Something moved between the tick and the deploy (a push, a change by hand). The next scan previews the stack again; tick the new row if it still says what you want."
            }
            Busy => {
                "Another run holds the stack's state lock. Wait for it; the next scan previews the stack. If no run is going, the lock is stale: release it with the tool (`tofu force-unlock`, `pulumi cancel`)."
            }
            ReleaseFailed => {
                "Repair the release with helm (a rollback, or a fixed upgrade by hand), then scan again; Sluiceway never upgrades from a state nobody previewed."
            }
            ConfigurationError => {
                "Fix the stack's configuration: the job log names what the tool missed (a config value, a bad project file). A retry fails the same way."
            }
            AuthenticationError => {
                "Give the job the credentials the stack's tool needs (`sluiceway check` names them), and check they reach this job's environment."
            }
            ResourceError => {
                "A resource operation failed inside the tool; the job log says which. Fix the cause in the code or the cloud, then scan again."
            }
            StackNotFound => {
                "Create the stack in its backend (`pulumi stack init`), or set `createInBackend: true` on its entry so a scan creates it."
            }
            ToolTimedOut => {
                "The tool's own time limit stopped it; raise that limit in the tool's settings, or find what it waited on in the job log."
            }
            NotSupported { .. } => {
                "This version has no adapter for the stack. Leave it out with `ignore`, or deploy it another way until a version that supports it."
            }
            ToolUnusable { .. } => {
                "Install the tool, at least at the version the book's tool page names, in a step before Sluiceway's."
            }
            VersionNotMet { .. } => {
                "Install a version of the tool that meets the module's `required_version` in a step before Sluiceway's (`tofu_version` of setup-opentofu, `terraform_version` of setup-terraform), or change the constraint if the module works with the version the runner has. `sluiceway check` says so from the files when the workflow names its version."
            }
            EnvFileNotLoaded => {
                "Make the stack's `envFile` exist and hold only `NAME=value` lines; the job log names the line that is wrong, and `sluiceway check` finds it too."
            }
            ShardLost => {
                "Open the run the line under the scan line links and read the failed shard's job log; the next scan previews the stack again."
            }
            Internal => {
                "A fault in Sluiceway itself; the other stacks went on. Scan again, and report the job log's detail."
            }
        }
    }
}

impl fmt::Display for FailureReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FailureReason::ToolError {
                exit_code: Some(code),
            } => {
                write!(f, "the tool exited with an error (exit code {code})")
            }
            FailureReason::ToolError { exit_code: None } => {
                f.write_str("the tool could not be started")
            }
            FailureReason::DeployTimedOut { minutes } => {
                let unit = if *minutes == 1 { "minute" } else { "minutes" };
                write!(f, "the deploy timed out after {minutes} {unit}")
            }
            FailureReason::TimedOut { minutes } => {
                let unit = if *minutes == 1 { "minute" } else { "minutes" };
                write!(f, "the preview timed out after {minutes} {unit}")
            }
            FailureReason::UnreadableOutput => f.write_str("the tool's output could not be read"),
            FailureReason::UnknownStep => {
                f.write_str("the tool reported a step Sluiceway does not know")
            }
            FailureReason::OutputTooLarge => {
                f.write_str("the tool printed more than the 128 MiB Sluiceway holds")
            }
            FailureReason::Busy => f.write_str("another update holds the stack's state lock"),
            FailureReason::ReleaseFailed => f.write_str(
                "the release's last Helm operation failed and was not rolled back; repair it with helm, then scan again",
            ),
            FailureReason::ConfigurationError => {
                f.write_str("the tool found its configuration incomplete or wrong")
            }
            FailureReason::AuthenticationError => {
                f.write_str("the tool could not authenticate to its backend or cloud")
            }
            FailureReason::ResourceError => f.write_str("a resource operation failed in the tool"),
            FailureReason::StackNotFound => {
                f.write_str("the backend has no stack of this name; create it, or set createInBackend")
            }
            FailureReason::ToolTimedOut => f.write_str("the tool stopped at its own time limit"),
            FailureReason::NotSupported { what } => {
                write!(f, "this version of Sluiceway cannot preview {what} yet")
            }
            FailureReason::ToolUnusable { tool } => write!(
                f,
                "{tool} is missing on the runner or older than Sluiceway needs; the job log says which"
            ),
            FailureReason::VersionNotMet {
                tool,
                constraint,
                found,
            } => write!(
                f,
                "the module requires {tool} {constraint} (its required_version) and the runner has {found}"
            ),
            FailureReason::EnvFileNotLoaded => {
                f.write_str("the env file of the stack could not be loaded")
            }
            FailureReason::ShardLost => f.write_str(
                "the shard of the scan that held this stack did not report; the next scan previews it",
            ),
            FailureReason::Internal => {
                f.write_str("Sluiceway failed inside this preview; the job log holds the detail")
            }
            FailureReason::ChangedSincePreview => f.write_str(
                "what would be deployed changed after its preview; nothing was deployed",
            ),
        }
    }
}

/// A failure: the reason, and detail lines that name a place (a line, an object number)
/// and what was expected there, never what was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    pub reason: FailureReason,
    pub detail: Vec<String>,
}

impl Failure {
    pub fn new(reason: FailureReason) -> Failure {
        Failure {
            reason,
            detail: Vec::new(),
        }
    }

    pub fn with_detail(reason: FailureReason, detail: impl Into<String>) -> Failure {
        Failure {
            reason,
            detail: vec![detail.into()],
        }
    }
}
