//! The recording format: what a real tool printed, saved by the recorder.
//!
//! A scenario directory holds `recording.json` and, for each recorded command, the two
//! files its stdout and stderr were saved to. The format is shared with the reference's
//! conformance corpus, so both read the same way.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// `recording.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Recording {
    pub scenario: String,
    pub description: String,
    pub cli_version: String,
    pub commands: Vec<RecordedCommand>,
}

/// One command as it ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordedCommand {
    pub id: String,
    /// The exact command line, with `{plan}` and `{prune}` standing for the files.
    pub argv: Vec<String>,
    /// Relative to the example project's root; `.` for the root.
    pub cwd: String,
    /// `None` when a signal ended the command.
    pub exit_code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub stdout_format: StdoutFormat,
    /// Only the variables this step added to the recorder's environment.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum StdoutFormat {
    Text,
    Json,
    Jsonl,
    Diff,
}

/// The file name of a recording inside a scenario directory.
pub const RECORDING_FILE: &str = "recording.json";

/// The working directory a recording writes for a plan's private directory, where the
/// cost estimate runs (decision 0105).
pub const PLAN_DIR: &str = "{plan-dir}";

/// How every plan's private directory is named, so a replay knows one.
pub const PLAN_DIR_PREFIX: &str = "sluiceway-plan-";

/// Whether a call in `cwd` is in the plan directory a recorded `{plan-dir}` stands for.
pub fn in_plan_dir(recorded: &str, cwd: &std::path::Path) -> bool {
    recorded == PLAN_DIR
        && cwd
            .file_name()
            .is_some_and(|name| name.to_string_lossy().starts_with(PLAN_DIR_PREFIX))
}

#[derive(Debug, Error)]
pub enum RecordingError {
    #[error("{scenario}: {RECORDING_FILE} is missing or unreadable: {source}")]
    Unreadable {
        scenario: String,
        source: std::io::Error,
    },
    #[error("{scenario}: {RECORDING_FILE} is not a recording: {source}")]
    Malformed {
        scenario: String,
        source: serde_json::Error,
    },
    #[error("{scenario}: the output file {file} of command {command} is missing or unreadable")]
    MissingOutput {
        scenario: String,
        command: String,
        file: String,
    },
    #[error(
        "{scenario}: command {command} names the output file {file}, which is not a plain file name"
    )]
    UnsafeFileName {
        scenario: String,
        command: String,
        file: String,
    },
}

/// A scenario directory read whole: the recording and every output, in command order.
#[derive(Debug, Clone)]
pub struct Scenario {
    pub dir: PathBuf,
    /// `v1.34.0/update`: the version directory and the scenario, to name it in messages.
    pub label: String,
    pub recording: Recording,
    pub outputs: Vec<(Vec<u8>, Vec<u8>)>,
}

impl Scenario {
    pub fn load(dir: &Path) -> Result<Scenario, RecordingError> {
        let label = label_of(dir);
        let text = fs::read_to_string(dir.join(RECORDING_FILE)).map_err(|source| {
            RecordingError::Unreadable {
                scenario: label.clone(),
                source,
            }
        })?;
        let recording: Recording =
            serde_json::from_str(&text).map_err(|source| RecordingError::Malformed {
                scenario: label.clone(),
                source,
            })?;
        let mut outputs = Vec::new();
        for command in &recording.commands {
            let read = |file: &str| {
                if file.contains('/') || file.contains('\\') || file == ".." || file.is_empty() {
                    return Err(RecordingError::UnsafeFileName {
                        scenario: label.clone(),
                        command: command.id.clone(),
                        file: file.to_owned(),
                    });
                }
                fs::read(dir.join(file)).map_err(|_| RecordingError::MissingOutput {
                    scenario: label.clone(),
                    command: command.id.clone(),
                    file: file.to_owned(),
                })
            };
            outputs.push((read(&command.stdout)?, read(&command.stderr)?));
        }
        Ok(Scenario {
            dir: dir.to_owned(),
            label,
            recording,
            outputs,
        })
    }
}

/// `<version dir>/<scenario dir>`, from the last two parts of the path.
fn label_of(dir: &Path) -> String {
    let parts: Vec<String> = dir
        .components()
        .rev()
        .take(2)
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.into_iter().rev().collect::<Vec<_>>().join("/")
}
