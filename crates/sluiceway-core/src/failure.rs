//! Failure reasons: a fixed list of Sluiceway's own sentences.
//!
//! A tool's words stay in the job log. Everything that leaves a job (the dashboard, a
//! record, a result file) names a failure with one of these, filled in only with
//! Sluiceway's own facts (an exit code, a limit). Reasons are picked from exit codes,
//! never from what the tool printed.

use std::fmt;

/// Why a preview, drift check, tool diff or deploy did not give a result.
#[derive(Debug, Clone, PartialEq, Eq)]
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
        what: &'static str,
    },
    /// The stack's tool is missing or older than Sluiceway's floor for it; the job log
    /// says which, once for every stack of that tool.
    ToolUnusable {
        tool: &'static str,
    },
    /// The stack's own `envFile` is missing or not `NAME=value` lines (decision 0103):
    /// its tool did not run; the job log names the file's line or the key.
    EnvFileNotLoaded,
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
            FailureReason::EnvFileNotLoaded => {
                f.write_str("the env file of the stack could not be loaded")
            }
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
#[derive(Debug, Clone, PartialEq, Eq)]
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
