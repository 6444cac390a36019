//! The process runner port: how adapters run a tool.
//!
//! Adapters describe a run as an [`Invocation`] and get an [`Outcome`] back; they never
//! spawn processes themselves. The real runner lives in `sluiceway-tools`; a replay of a
//! recording stands in for it in tests.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// One run of a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invocation {
    /// The program and its arguments; no shell ever reads them.
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    /// The child's whole environment.
    pub env: BTreeMap<String, String>,
    /// `None`: no limit (a deploy without `deploy-timeout`).
    pub time_limit: Option<Duration>,
    /// Between SIGINT at the limit and SIGKILL; `None` is the runner's own. A deploy gets
    /// longer, so the tool can release its state lock.
    pub grace: Option<Duration>,
    /// Write stdout to this file (created private) instead of keeping it: for output
    /// that is large or holds values, read from a private place afterwards.
    pub stdout_file: Option<PathBuf>,
}

/// Which output stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// How a run ended. Failures are values, never panics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Exited {
        /// `None` when a signal ended the process.
        code: Option<i32>,
        stdout: Vec<u8>,
        stderr: Vec<u8>,
        /// The first stream that went over the cap; the rest of it was dropped.
        cut: Option<Stream>,
    },
    TimedOut {
        stdout: Vec<u8>,
        stderr: Vec<u8>,
    },
    /// The program could not be started (missing, not executable); the words are ours.
    NotStarted {
        why: String,
    },
}

/// Runs tools. Implementations must be usable from several pool threads at once.
pub trait Runner: Sync {
    fn run(&self, invocation: &Invocation) -> Outcome;
}

/// The environment a tool gets: the job's, without the action's `INPUT_*` variables (the
/// GitHub token must never reach stack code).
pub fn tool_environment(
    job: impl IntoIterator<Item = (String, String)>,
) -> BTreeMap<String, String> {
    job.into_iter()
        .filter(|(name, _)| !name.starts_with("INPUT_"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_never_reach_the_tool() {
        let env = tool_environment([
            ("INPUT_GITHUB-TOKEN".to_owned(), "secret".to_owned()),
            ("KUBECONFIG".to_owned(), "/k".to_owned()),
            ("PATH".to_owned(), "/bin".to_owned()),
        ]);
        assert_eq!(env.keys().collect::<Vec<_>>(), ["KUBECONFIG", "PATH"]);
    }
}
