//! What every adapter shares to run its tool: the job's context, and how a run's outcome
//! becomes its output or a fixed reason (from the exit code, never from the tool's words).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::runner::{Invocation, Outcome, Runner};
use sluiceway_core::values::ValueList;

use crate::tool_log::ToolLog;

/// What every run needs from the job.
pub struct Context<'a> {
    pub runner: &'a dyn Runner,
    /// The tool's environment: the job's, minus `INPUT_*`.
    pub env: &'a BTreeMap<String, String>,
    /// `GITHUB_REPOSITORY`, or empty; part of the inventory's name.
    pub repository: &'a str,
    /// Where private directories for rendered sets are made.
    pub scratch: &'a Path,
    pub time_limit: Duration,
    /// The deploy's own limit (`deploy-timeout`); `None` lets a deploy run to its end.
    pub deploy_limit: Option<Duration>,
    /// The paths whose values a change may carry for its row (`dashboard.showValues`).
    pub values: &'a ValueList,
}

/// How long a deploy past its limit gets between SIGINT and SIGKILL: long enough for
/// the tool to stop cleanly and release its state lock.
pub const DEPLOY_GRACE: Duration = Duration::from_secs(120);

/// What a preview hands back besides its diff.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Asks {
    /// What its deploy must apply.
    pub keep: bool,
    /// The tool's preview document, for the policies.
    pub document: bool,
    /// What the change costs a month (root modules with changes only, decision 0105).
    pub cost: bool,
}

impl Context<'_> {
    pub(crate) fn invoke(
        &self,
        argv: Vec<String>,
        cwd: &Path,
        extra_env: &[(&str, &str)],
        limit: Option<Duration>,
    ) -> Outcome {
        self.run(argv, cwd, extra_env, limit, None)
    }

    /// Runs a deploy step: the deploy's limit, and the deploy's grace after it.
    pub(crate) fn invoke_deploy(
        &self,
        argv: Vec<String>,
        cwd: &Path,
        extra_env: &[(&str, &str)],
    ) -> Outcome {
        self.run(argv, cwd, extra_env, self.deploy_limit, Some(DEPLOY_GRACE))
    }

    fn run(
        &self,
        argv: Vec<String>,
        cwd: &Path,
        extra_env: &[(&str, &str)],
        limit: Option<Duration>,
        grace: Option<Duration>,
    ) -> Outcome {
        let mut env = self.env.clone();
        for (name, value) in extra_env {
            env.insert((*name).to_owned(), (*value).to_owned());
        }
        self.runner.run(&Invocation {
            argv,
            cwd: cwd.to_owned(),
            env,
            time_limit: limit,
            stdout_file: None,
            grace,
        })
    }

    /// A deploy step's outcome: exit 0 or a fixed reason; past its limit, the deploy's.
    pub(crate) fn accept_deploy(
        &self,
        outcome: Outcome,
        log: &mut ToolLog,
    ) -> Result<Ran, Failure> {
        let limit = self.deploy_limit.map_or(0, minutes);
        accept(outcome, &[0], limit, log).map_err(|failure| match failure.reason {
            FailureReason::TimedOut { minutes } => {
                Failure::new(FailureReason::DeployTimedOut { minutes })
            }
            _ => failure,
        })
    }
}

/// What a run gave, when it ended with a code the step accepts.
pub(crate) struct Ran {
    pub code: i32,
    pub stdout: Vec<u8>,
}

/// Maps a run's outcome to its output or a fixed reason; stderr goes to the log.
pub(crate) fn accept(
    outcome: Outcome,
    ok_codes: &[i32],
    minutes: u32,
    log: &mut ToolLog,
) -> Result<Ran, Failure> {
    match outcome {
        Outcome::Exited {
            code,
            stdout,
            stderr,
            cut,
        } => {
            log.push_output(&stderr);
            if cut.is_some() {
                return Err(Failure::new(FailureReason::OutputTooLarge));
            }
            match code {
                Some(code) if ok_codes.contains(&code) => Ok(Ran { code, stdout }),
                other => Err(Failure::new(FailureReason::ToolError { exit_code: other })),
            }
        }
        Outcome::TimedOut { stderr, .. } => {
            log.push_output(&stderr);
            Err(Failure::new(FailureReason::TimedOut { minutes }))
        }
        Outcome::NotStarted { why } => {
            log.note(why);
            Err(Failure::new(FailureReason::ToolError { exit_code: None }))
        }
    }
}

pub(crate) fn minutes(limit: Duration) -> u32 {
    u32::try_from(limit.as_secs().div_ceil(60)).unwrap_or(u32::MAX)
}

pub(crate) fn unreadable(detail: impl Into<String>) -> Failure {
    Failure::with_detail(FailureReason::UnreadableOutput, detail)
}

/// What a version check found: the tool's version and, for helm, the diff plugin's
/// when it answered and is new enough (the Helm adapter then lets it compare).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked {
    pub version: crate::version::Version,
    pub plugin: Option<crate::version::Version>,
}

impl From<crate::version::Version> for Checked {
    fn from(version: crate::version::Version) -> Checked {
        Checked {
            version,
            plugin: None,
        }
    }
}

impl std::fmt::Display for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.version)?;
        match self.plugin {
            Some(plugin) => write!(f, " with helm-diff {plugin}"),
            None => Ok(()),
        }
    }
}

/// Why a tool cannot be used: the only failure that stops a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionError {
    Missing {
        tool: &'static str,
        floor: crate::version::Version,
    },
    Unreadable {
        tool: &'static str,
    },
    TooOld {
        tool: &'static str,
        found: crate::version::Version,
        floor: crate::version::Version,
    },
}

impl std::fmt::Display for VersionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VersionError::Missing { tool, floor } => {
                write!(
                    f,
                    "{tool} could not be run; Sluiceway needs {tool} {floor} or newer on PATH"
                )
            }
            VersionError::Unreadable { tool } => write!(f, "{tool} did not say its version"),
            VersionError::TooOld { tool, found, floor } => {
                write!(
                    f,
                    "{tool} {found} is too old; Sluiceway needs {tool} {floor} or newer"
                )
            }
        }
    }
}

/// What a version check makes of its command's outcome: the version `read` finds in what
/// the tool printed, held to `floor`.
pub(crate) fn version_of(
    outcome: Outcome,
    tool: &'static str,
    floor: crate::version::Version,
    read: impl FnOnce(&str) -> Option<crate::version::Version>,
) -> Result<crate::version::Version, VersionError> {
    match outcome {
        Outcome::Exited {
            code: Some(0),
            stdout,
            ..
        } => {
            let found =
                read(&String::from_utf8_lossy(&stdout)).ok_or(VersionError::Unreadable { tool })?;
            if found < floor {
                Err(VersionError::TooOld { tool, found, floor })
            } else {
                Ok(found)
            }
        }
        Outcome::NotStarted { .. } => Err(VersionError::Missing { tool, floor }),
        _ => Err(VersionError::Unreadable { tool }),
    }
}
