//! A runner that answers from a recording instead of running the tool.
//!
//! Each call the adapter makes must match a recorded command exactly (argv with its
//! placeholders, working directory, and the environment variables that tell two
//! otherwise equal commands apart), so the adapter's command lines are held to what the
//! real tool was given. A call with no recording is a failure that names the scenario and
//! the call.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sluiceway_core::runner::{Invocation, Outcome, Runner};

use crate::recording::{RecordedCommand, Scenario, in_plan_dir};

/// A placeholder in recorded argv and the file name the real argument must end with.
#[derive(Debug, Clone)]
pub struct Placeholder {
    pub token: &'static str,
    pub file_name: &'static str,
}

/// What the replay saw of one call it answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answered {
    pub id: String,
    /// The files the call was handed in place of placeholders, as they were then.
    pub files: BTreeMap<String, String>,
}

pub struct Replay {
    label: String,
    root: PathBuf,
    placeholders: Vec<Placeholder>,
    /// Variables whose presence and value must match the recording's.
    distinguishing: Vec<&'static str>,
    state: Mutex<State>,
}

struct State {
    waiting: Vec<(RecordedCommand, Vec<u8>, Vec<u8>)>,
    answered: Vec<Answered>,
    misses: Vec<String>,
}

impl Replay {
    /// A replay of `scenario` for a project whose root is `root`.
    pub fn new(
        scenario: &Scenario,
        root: &Path,
        placeholders: Vec<Placeholder>,
        distinguishing: Vec<&'static str>,
    ) -> Replay {
        let waiting = scenario
            .recording
            .commands
            .iter()
            .cloned()
            .zip(scenario.outputs.iter().cloned())
            .map(|(command, (out, err))| (command, out, err))
            .collect();
        Replay {
            label: scenario.label.clone(),
            root: root.to_owned(),
            placeholders,
            distinguishing,
            state: Mutex::new(State {
                waiting,
                answered: Vec::new(),
                misses: Vec::new(),
            }),
        }
    }

    /// The calls answered so far, in order.
    pub fn answered(&self) -> Vec<Answered> {
        self.lock().answered.clone()
    }

    /// Every call no recording held, as a sentence naming the scenario and the call.
    pub fn misses(&self) -> Vec<String> {
        self.lock().misses.clone()
    }

    /// The ids of recorded commands no call asked for.
    pub fn unused(&self) -> Vec<String> {
        self.lock()
            .waiting
            .iter()
            .map(|(c, ..)| c.id.clone())
            .collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn argv_matches(
        &self,
        recorded: &[String],
        asked: &[String],
    ) -> Option<BTreeMap<String, String>> {
        argv_matches(&self.placeholders, recorded, asked)
    }

    fn cwd_of(&self, recorded: &str) -> PathBuf {
        if recorded == "." {
            self.root.clone()
        } else {
            self.root.join(recorded)
        }
    }
}

/// The files standing in for placeholders, when every argument matches. A placeholder
/// may stand alone (`{plan}`) or inside an argument (`-out={plan}`).
fn argv_matches(
    placeholders: &[Placeholder],
    recorded: &[String],
    asked: &[String],
) -> Option<BTreeMap<String, String>> {
    if recorded.len() != asked.len() {
        return None;
    }
    let mut files = BTreeMap::new();
    for (r, a) in recorded.iter().zip(asked) {
        if r == a {
            continue;
        }
        let placeholder = placeholders.iter().find(|p| r.contains(p.token))?;
        let (prefix, suffix) = r.split_once(placeholder.token)?;
        let path = a.strip_prefix(prefix)?.strip_suffix(suffix)?;
        if !path.ends_with(&format!("/{}", placeholder.file_name)) {
            return None;
        }
        files.insert(placeholder.token.to_owned(), path.to_owned());
    }
    Some(files)
}

/// A runner that answers every call from whichever of several recorded scenarios holds
/// it, as often as it is asked, wherever the project sits: a recorded working directory
/// matches the end of the call's (`.` matches any). Stand-ins and benchmarks use it to
/// let many stacks replay the same real runs.
pub struct Library {
    scenarios: Vec<Scenario>,
    placeholders: Vec<Placeholder>,
    distinguishing: Vec<&'static str>,
}

impl Library {
    pub fn new(
        scenarios: Vec<Scenario>,
        placeholders: Vec<Placeholder>,
        distinguishing: Vec<&'static str>,
    ) -> Library {
        Library {
            scenarios,
            placeholders,
            distinguishing,
        }
    }
}

impl Runner for Library {
    fn run(&self, invocation: &Invocation) -> Outcome {
        for scenario in &self.scenarios {
            let commands = scenario.recording.commands.iter().zip(&scenario.outputs);
            for (command, (stdout, stderr)) in commands {
                let here = command.cwd == "."
                    || invocation.cwd.ends_with(&command.cwd)
                    || in_plan_dir(&command.cwd, &invocation.cwd);
                if here
                    && argv_matches(&self.placeholders, &command.argv, &invocation.argv).is_some()
                    && self
                        .distinguishing
                        .iter()
                        .all(|name| command.env.get(*name) == invocation.env.get(*name))
                {
                    if let Some(path) = &invocation.stdout_file {
                        if let Err(e) = std::fs::write(path, stdout) {
                            let why =
                                format!("{} could not be written: {}", path.display(), e.kind());
                            return Outcome::NotStarted { why };
                        }
                        return Outcome::Exited {
                            code: command.exit_code,
                            stdout: Vec::new(),
                            stderr: stderr.clone(),
                            cut: None,
                        };
                    }
                    return Outcome::Exited {
                        code: command.exit_code,
                        stdout: stdout.clone(),
                        stderr: stderr.clone(),
                        cut: None,
                    };
                }
            }
        }
        Outcome::NotStarted {
            why: format!("no recording holds `{}`", invocation.argv.join(" ")),
        }
    }
}

impl Runner for Replay {
    fn run(&self, invocation: &Invocation) -> Outcome {
        let mut state = self.lock();
        let found = state.waiting.iter().position(|(command, ..)| {
            self.argv_matches(&command.argv, &invocation.argv).is_some()
                && (self.cwd_of(&command.cwd) == invocation.cwd
                    || in_plan_dir(&command.cwd, &invocation.cwd))
                && self
                    .distinguishing
                    .iter()
                    .all(|name| command.env.get(*name) == invocation.env.get(*name))
        });
        let Some(index) = found else {
            let extras: Vec<String> = self
                .distinguishing
                .iter()
                .filter_map(|name| invocation.env.get(*name).map(|v| format!("{name}={v}")))
                .collect();
            let cwd = invocation
                .cwd
                .strip_prefix(&self.root)
                .map_or(invocation.cwd.clone(), Path::to_path_buf);
            let miss = format!(
                "{} holds no recording of `{}` in {}{}",
                self.label,
                invocation.argv.join(" "),
                if cwd.as_os_str().is_empty() {
                    ".".into()
                } else {
                    cwd.display().to_string()
                },
                if extras.is_empty() {
                    String::new()
                } else {
                    format!(" with {}", extras.join(", "))
                }
            );
            state.misses.push(miss.clone());
            return Outcome::NotStarted { why: miss };
        };
        let (command, stdout, stderr) = state.waiting.remove(index);
        let handed = self
            .argv_matches(&command.argv, &invocation.argv)
            .unwrap_or_default();
        let files = handed
            .into_iter()
            .map(|(token, path)| (token, std::fs::read_to_string(path).unwrap_or_default()))
            .collect();
        state.answered.push(Answered {
            id: command.id.clone(),
            files,
        });
        let stdout = match &invocation.stdout_file {
            Some(path) => match std::fs::write(path, &stdout) {
                Ok(()) => Vec::new(),
                Err(e) => {
                    let why = format!("{} could not be written: {}", path.display(), e.kind());
                    return Outcome::NotStarted { why };
                }
            },
            None => stdout,
        };
        Outcome::Exited {
            code: command.exit_code,
            stdout,
            stderr,
            cut: None,
        }
    }
}
