//! The recorder: runs scenarios against a real cluster and saves what the tool printed.
//!
//! Each scenario runs on a fresh copy of the example project in a fixed work directory
//! (tool output holds absolute paths), with an environment built from nothing. Files are
//! written into a hidden directory beside the target and moved into place only when the
//! whole scenario recorded and met its expectations, so a failed scenario leaves nothing.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sluiceway_core::runner::{Invocation, Outcome, Runner};
use sluiceway_tools::kubectl::inventory;
use sluiceway_tools::kubernetes::{objects, rendered_set};
use sluiceway_tools::recording::{
    RECORDING_FILE, RecordedCommand, Recording, Scenario as Recorded, StdoutFormat,
};
use thiserror::Error;

use crate::race::raced_write;
use crate::scenario::{Exit, Record, Scenario, Step};

/// Decision 0090: how many runs a raced diff gets in all.
pub const MAX_RUNS: usize = 10;

/// How long one command may take.
const TIME_LIMIT: Duration = Duration::from_secs(300);

#[derive(Debug, Error)]
pub enum RecorderError {
    #[error(
        "{scenario}, step {step}: {file} holds the text to replace {count} times, not once; the example and the scenario moved apart"
    )]
    EditMismatch {
        scenario: String,
        step: usize,
        file: String,
        count: usize,
    },
    #[error("{scenario}, step {step}: {file} is not in the example")]
    MissingFile {
        scenario: String,
        step: usize,
        file: String,
    },
    #[error("{scenario}, step {step}: `{command}` failed ({how}):\n{stderr}")]
    Setup {
        scenario: String,
        step: usize,
        command: String,
        how: String,
        stderr: String,
    },
    #[error("{scenario}, step {step}: `{command}` could not be run: {why}")]
    NotStarted {
        scenario: String,
        step: usize,
        command: String,
        why: String,
    },
    #[error(
        "{scenario}: every one of {MAX_RUNS} runs of {id} raced a change elsewhere in the cluster (an object's two sides carried different resourceVersions). The cluster never held still; nothing of this scenario was saved."
    )]
    NeverHeldStill { scenario: String, id: String },
    #[error("{scenario}: the recording does not meet its expectations:\n  {}", problems.join("\n  "))]
    Expectation {
        scenario: String,
        problems: Vec<String>,
    },
    #[error("{scenario}: {what}: {source}")]
    Io {
        scenario: String,
        what: String,
        source: std::io::Error,
    },
}

pub struct Recorder<'a> {
    pub runner: &'a dyn Runner,
    /// The whole environment of every command: PATH, KUBECONFIG, HOME, nothing else.
    pub env: BTreeMap<String, String>,
    /// The example project the scenarios edit copies of.
    pub example: PathBuf,
    /// A fixed directory: the project copies and plan files live here.
    pub work: PathBuf,
    /// Where scenario directories go (`fixtures/kubectl/<version>`).
    pub out: PathBuf,
    pub cli_version: String,
}

/// A command a scenario keeps running; stopped when dropped.
struct Held(std::process::Child);

impl Drop for Held {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The paths a scenario's placeholders stand for.
struct Places {
    project: PathBuf,
    plan: PathBuf,
    prune: PathBuf,
}

impl Places {
    /// The real paths in place of `{plan}` and `{prune}`, alone or inside an argument
    /// (`-out={plan}`).
    fn resolve(&self, argv: &[String]) -> Vec<String> {
        let (plan, prune) = (
            self.plan.display().to_string(),
            self.prune.display().to_string(),
        );
        argv.iter()
            .map(|a| a.replace("{plan}", &plan).replace("{prune}", &prune))
            .collect()
    }

    /// The environment with the project's path in place of `{project}`: a Pulumi
    /// scenario's backend lives inside its own project copy.
    fn environment(
        &self,
        base: &BTreeMap<String, String>,
        extra: &BTreeMap<String, String>,
    ) -> BTreeMap<String, String> {
        let project = self.project.display().to_string();
        base.iter()
            .chain(extra)
            .map(|(k, v)| (k.clone(), v.replace("{project}", &project)))
            .collect()
    }

    fn cwd(&self, cwd: &str) -> PathBuf {
        if cwd == "." {
            self.project.clone()
        } else {
            self.project.join(cwd)
        }
    }
}

impl Recorder<'_> {
    /// Records one scenario into `<out>/<scenario>/`, replacing what was there. Returns
    /// how many runs each raced-then-retaken diff needed.
    pub fn record(&self, scenario: &Scenario) -> Result<Vec<(String, usize)>, RecorderError> {
        let name = scenario.name.to_owned();
        let io = |what: &str| {
            let (name, what) = (name.clone(), what.to_owned());
            move |source| RecorderError::Io {
                scenario: name,
                what,
                source,
            }
        };
        let base = self.work.join("scenarios").join(scenario.name);
        if base.exists() {
            fs::remove_dir_all(&base).map_err(io("clearing the work directory"))?;
        }
        let places = Places {
            project: base.join("project"),
            plan: base.join("plan").join(scenario.plan_file),
            prune: base.join("plan/prune.yaml"),
        };
        copy_dir(&self.example, &places.project).map_err(io("copying the example"))?;
        fs::create_dir_all(base.join("plan")).map_err(io("making the plan directory"))?;

        let mut recorded: Vec<(Record, Outcome)> = Vec::new();
        // Commands a step left running; stopped when the scenario ends, however it ends.
        let mut holding: Vec<Held> = Vec::new();
        let mut retaken = Vec::new();
        for (index, step) in scenario.steps.iter().enumerate() {
            let step_no = index + 1;
            match step {
                Step::Edit { file, from, to } => {
                    let path = places.project.join(file);
                    let text =
                        fs::read_to_string(&path).map_err(|_| RecorderError::MissingFile {
                            scenario: name.clone(),
                            step: step_no,
                            file: (*file).to_owned(),
                        })?;
                    let count = text.matches(from).count();
                    if count != 1 {
                        return Err(RecorderError::EditMismatch {
                            scenario: name,
                            step: step_no,
                            file: (*file).to_owned(),
                            count,
                        });
                    }
                    fs::write(&path, text.replacen(from, to, 1))
                        .map_err(io("editing the project"))?;
                }
                Step::Write { file, text } => {
                    let path = places.project.join(file);
                    fs::create_dir_all(path.parent().unwrap_or(&places.project))
                        .map_err(io("writing into the project"))?;
                    fs::write(path, text).map_err(io("writing into the project"))?;
                }
                Step::Remove { file } => {
                    fs::remove_file(places.project.join(file)).map_err(|_| {
                        RecorderError::MissingFile {
                            scenario: name.clone(),
                            step: step_no,
                            file: (*file).to_owned(),
                        }
                    })?
                }
                Step::Bundle {
                    stack,
                    recursive,
                    inventory: listed,
                } => {
                    let mut set = rendered_set::plain_manifests(&places.cwd(stack), *recursive)
                        .map_err(io("bundling"))?;
                    if let Some(also) = listed {
                        let objects =
                            objects::read_stream(&set).map_err(|_| RecorderError::Io {
                                scenario: name.clone(),
                                what: "bundling".into(),
                                source: std::io::Error::other("the manifests are not YAML"),
                            })?;
                        let mut listings: Vec<inventory::Listing> =
                            objects.iter().filter_map(inventory::Listing::of).collect();
                        listings.extend(also.iter().cloned());
                        let stack_id = sluiceway_core::stack::StackId::derive(stack, None);
                        let inventory_name = inventory::name("", &stack_id);
                        set = format!(
                            "{set}---\n{}",
                            inventory::manifest(&inventory_name, &stack_id, &listings)
                        );
                    }
                    fs::write(&places.plan, set).map_err(io("writing the plan"))?;
                }
                Step::PruneFile { listings } => {
                    fs::write(&places.prune, inventory::stubs(listings))
                        .map_err(io("writing the prune file"))?;
                }
                Step::Hold {
                    cwd,
                    argv,
                    env,
                    until,
                } => {
                    let held = self.hold(&places, cwd, argv, env, until).map_err(|why| {
                        RecorderError::NotStarted {
                            scenario: name.clone(),
                            step: step_no,
                            command: argv.join(" "),
                            why,
                        }
                    })?;
                    holding.push(held);
                }
                Step::Setup {
                    cwd,
                    argv,
                    env,
                    stdout_to_plan,
                } => {
                    let outcome = self.run(&places, cwd, argv, env);
                    let command = argv.join(" ");
                    match outcome {
                        Outcome::Exited {
                            code: Some(0),
                            stdout,
                            ..
                        } => {
                            if *stdout_to_plan {
                                fs::write(&places.plan, stdout).map_err(io("writing the plan"))?;
                            }
                        }
                        Outcome::Exited { code, stderr, .. } => {
                            let how = code.map_or("ended by a signal".to_owned(), |c| {
                                format!("exit code {c}")
                            });
                            return Err(RecorderError::Setup {
                                scenario: name,
                                step: step_no,
                                command,
                                how,
                                stderr: tail(&stderr),
                            });
                        }
                        Outcome::TimedOut { stderr, .. } => {
                            let how = "timed out".to_owned();
                            return Err(RecorderError::Setup {
                                scenario: name,
                                step: step_no,
                                command,
                                how,
                                stderr: tail(&stderr),
                            });
                        }
                        Outcome::NotStarted { why } => {
                            return Err(RecorderError::NotStarted {
                                scenario: name,
                                step: step_no,
                                command,
                                why,
                            });
                        }
                    }
                }
                Step::Record(record) => {
                    let (outcome, runs) = self.record_step(scenario, &places, record, step_no)?;
                    if runs > 1 {
                        retaken.push((record.id.to_owned(), runs));
                    }
                    if record.stdout_to_plan
                        && let Outcome::Exited { stdout, .. } = &outcome
                    {
                        fs::write(&places.plan, stdout).map_err(io("writing the plan"))?;
                    }
                    recorded.push((record.clone(), outcome));
                }
            }
        }
        self.save(scenario, recorded)?;
        Ok(retaken)
    }

    /// Starts a command that keeps running, and waits (at most a minute) until it made
    /// the project file `until`, or put a first entry in it when `until` is a folder:
    /// Pulumi leaves its locks folder behind after an earlier update, so the folder
    /// alone does not prove the lock is held.
    fn hold(
        &self,
        places: &Places,
        cwd: &str,
        argv: &[String],
        extra: &BTreeMap<String, String>,
        until: &str,
    ) -> Result<Held, String> {
        let argv = places.resolve(argv);
        let env = places.environment(&self.env, extra);
        let child = std::process::Command::new(&argv[0])
            .args(&argv[1..])
            .current_dir(places.cwd(cwd))
            .env_clear()
            .envs(&env)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("{} could not be started: {}", argv[0], e.kind()))?;
        let held = Held(child);
        let marker = places.project.join(until);
        let started = std::time::Instant::now();
        while !made(&marker) {
            if started.elapsed() > Duration::from_secs(60) {
                return Err(format!("{until} did not appear within a minute"));
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        Ok(held)
    }

    fn run(
        &self,
        places: &Places,
        cwd: &str,
        argv: &[String],
        extra: &BTreeMap<String, String>,
    ) -> Outcome {
        let env = places.environment(&self.env, extra);
        self.runner.run(&Invocation {
            argv: places.resolve(argv),
            cwd: places.cwd(cwd),
            env,
            time_limit: Some(TIME_LIMIT),
            stdout_file: None,
            grace: None,
        })
    }

    /// Runs a recorded step; a diff that raced a write runs again at once, at most
    /// [`MAX_RUNS`] times in all, and the first run that did not race is kept.
    fn record_step(
        &self,
        scenario: &Scenario,
        places: &Places,
        record: &Record,
        step: usize,
    ) -> Result<(Outcome, usize), RecorderError> {
        let runs = if record.race_checked { MAX_RUNS } else { 1 };
        for run in 1..=runs {
            let outcome = self.run(places, record.cwd, &record.argv, &record.env);
            if let Outcome::NotStarted { why } = outcome {
                return Err(RecorderError::NotStarted {
                    scenario: scenario.name.to_owned(),
                    step,
                    command: record.argv.join(" "),
                    why,
                });
            }
            let raced = match &outcome {
                Outcome::Exited { stdout, .. } if record.race_checked => {
                    raced_write(&String::from_utf8_lossy(stdout))
                }
                _ => false,
            };
            if !raced {
                return Ok((outcome, run));
            }
        }
        Err(RecorderError::NeverHeldStill {
            scenario: scenario.name.to_owned(),
            id: record.id.to_owned(),
        })
    }

    /// Writes the scenario beside its target, checks it there, then moves it into place.
    fn save(
        &self,
        scenario: &Scenario,
        recorded: Vec<(Record, Outcome)>,
    ) -> Result<(), RecorderError> {
        let name = scenario.name;
        let io = |what: &'static str| {
            move |source| RecorderError::Io {
                scenario: name.to_owned(),
                what: what.to_owned(),
                source,
            }
        };
        fs::create_dir_all(&self.out).map_err(io("making the output directory"))?;
        let partial = self.out.join(format!(".{name}.partial"));
        if partial.exists() {
            fs::remove_dir_all(&partial).map_err(io("clearing a partial recording"))?;
        }
        fs::create_dir_all(&partial).map_err(io("writing the recording"))?;
        let result = (|| {
            let mut commands = Vec::new();
            for (record, outcome) in recorded {
                let (code, stdout, stderr) = match outcome {
                    Outcome::Exited {
                        code,
                        stdout,
                        stderr,
                        ..
                    } => (code, stdout, stderr),
                    Outcome::TimedOut { stdout, stderr } => (None, stdout, stderr),
                    Outcome::NotStarted { .. } => (None, Vec::new(), Vec::new()),
                };
                let (out_file, err_file) = (
                    format!("{}.stdout", record.id),
                    format!("{}.stderr", record.id),
                );
                fs::write(partial.join(&out_file), stdout).map_err(io("writing an output file"))?;
                fs::write(partial.join(&err_file), stderr).map_err(io("writing an output file"))?;
                commands.push(RecordedCommand {
                    id: record.id.to_owned(),
                    argv: record.argv.clone(),
                    cwd: record.cwd.to_owned(),
                    exit_code: code,
                    stdout: out_file,
                    stderr: err_file,
                    stdout_format: record.format,
                    env: record.env.clone(),
                });
            }
            let recording = Recording {
                scenario: name.to_owned(),
                description: scenario.description.to_owned(),
                cli_version: self.cli_version.clone(),
                commands,
            };
            let json = serde_json::to_string_pretty(&recording).map_err(|e| RecorderError::Io {
                scenario: name.to_owned(),
                what: "writing recording.json".into(),
                source: std::io::Error::other(e),
            })?;
            fs::write(partial.join(RECORDING_FILE), format!("{json}\n"))
                .map_err(io("writing recording.json"))?;
            let problems = check_recording(scenario, &partial);
            if !problems.is_empty() {
                return Err(RecorderError::Expectation {
                    scenario: name.to_owned(),
                    problems,
                });
            }
            let target = self.out.join(name);
            if target.exists() {
                fs::remove_dir_all(&target).map_err(io("replacing the old recording"))?;
            }
            fs::rename(&partial, &target).map_err(io("moving the recording into place"))
        })();
        if result.is_err() {
            let _ = fs::remove_dir_all(&partial);
        }
        result
    }
}

/// Whether a held command has made `marker`: a file that exists, or a folder with an
/// entry in it.
fn made(marker: &Path) -> bool {
    match std::fs::read_dir(marker) {
        Ok(mut entries) => entries.next().is_some(),
        Err(_) => marker.exists(),
    }
}

fn tail(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.lines().rev().take(10).collect();
    lines.into_iter().rev().collect::<Vec<_>>().join("\n")
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// The ops a `kubectl diff` shows, read coarsely from its hunk headers: nothing live is a
/// create, nothing merged a delete, anything else an update.
pub fn diff_ops(stdout: &str) -> Vec<&'static str> {
    stdout
        .lines()
        .filter_map(|line| line.strip_prefix("@@ -"))
        .filter_map(|rest| {
            let (ranges, _) = rest.split_once(" @@")?;
            let (live, merged) = ranges.split_once(" +")?;
            let count = |r: &str| {
                r.split_once(',')
                    .map_or(Some(1), |(_, c)| c.parse::<usize>().ok())
            };
            Some(match (count(live)?, count(merged)?) {
                (0, _) => "create",
                (_, 0) => "delete",
                _ => "update",
            })
        })
        .collect()
}

/// The ops a plan shows, read coarsely: each managed resource's actions joined by
/// commas, and `move` and `import` for the tracking changes.
pub fn plan_ops(show: &str) -> Vec<String> {
    let Ok(plan) = serde_json::from_str::<serde_json::Value>(show) else {
        return Vec::new();
    };
    let mut ops = Vec::new();
    for change in plan
        .get("resource_changes")
        .and_then(|r| r.as_array())
        .into_iter()
        .flatten()
    {
        if change.get("mode").and_then(|m| m.as_str()) == Some("data") {
            continue;
        }
        let actions: Vec<&str> = change
            .pointer("/change/actions")
            .and_then(|a| a.as_array())
            .into_iter()
            .flatten()
            .filter_map(|a| a.as_str())
            .collect();
        ops.push(actions.join(","));
        if change.get("previous_address").is_some_and(|p| !p.is_null()) {
            ops.push("move".to_owned());
        }
        if change
            .pointer("/change/importing")
            .is_some_and(|i| !i.is_null())
        {
            ops.push("import".to_owned());
        }
    }
    ops
}

/// Holds a saved recording to its scenario: every record step has its command (same
/// argv, cwd, format and environment), the exit codes and ops meet the expectations, and
/// nothing else was recorded. Reads only the saved files, so it serves fresh recordings
/// and committed fixtures alike.
pub fn check_recording(scenario: &Scenario, dir: &Path) -> Vec<String> {
    let recorded = match Recorded::load(dir) {
        Ok(recorded) => recorded,
        Err(e) => return vec![format!("{e}; record the fixtures again")],
    };
    let mut problems = Vec::new();
    let records: Vec<&Record> = scenario.records().collect();
    if records.len() != recorded.recording.commands.len() {
        problems.push(format!(
            "{} commands are recorded, and the scenario records {}",
            recorded.recording.commands.len(),
            records.len()
        ));
    }
    for record in records {
        let Some((command, (stdout, _))) = recorded
            .recording
            .commands
            .iter()
            .zip(&recorded.outputs)
            .find(|(c, _)| c.id == record.id)
        else {
            problems.push(format!("{}: not recorded", record.id));
            continue;
        };
        if command.argv != record.argv
            || command.cwd != record.cwd
            || command.stdout_format != record.format
            || command.env != record.env
        {
            problems.push(format!(
                "{}: the scenario now runs a different command; record it again",
                record.id
            ));
        }
        match (record.expect.exit, command.exit_code) {
            (Exit::Zero, Some(0)) | (Exit::Nonzero, Some(1..)) => {}
            (expected, found) => problems.push(format!(
                "{}: expected exit code {expected:?}, got {found:?}",
                record.id
            )),
        }
        let text = String::from_utf8_lossy(stdout);
        let readable = match command.stdout_format {
            StdoutFormat::Json => serde_json::from_str::<serde_json::Value>(&text).is_ok(),
            StdoutFormat::Jsonl => {
                text.lines().any(|l| !l.trim().is_empty())
                    && text
                        .lines()
                        .filter(|l| !l.trim().is_empty())
                        .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
            }
            StdoutFormat::Text | StdoutFormat::Diff => true,
        };
        // A command that failed may print nothing, or half a document.
        if !readable && record.expect.exit == Exit::Zero {
            problems.push(format!(
                "{}: the output is not {:?}",
                record.id, command.stdout_format
            ));
        }
        // The ops the tool's output holds, read coarsely, where a format says them.
        let pulumi = command.argv.first().is_some_and(|a| a == "pulumi");
        let found = match command.stdout_format {
            StdoutFormat::Json | StdoutFormat::Jsonl if pulumi => Some(pulumi_ops(&text)),
            StdoutFormat::Json if command.argv.get(1).is_some_and(|a| a == "show") => {
                Some(plan_ops(&text))
            }
            StdoutFormat::Diff => Some(diff_ops(&text).into_iter().map(str::to_owned).collect()),
            _ => None,
        };
        for op in &record.expect.ops {
            if let Some(found) = found.as_ref().filter(|f| !f.iter().any(|f| f == op)) {
                problems.push(format!(
                    "{}: expected a change with op {op}, found only: {}",
                    record.id,
                    found.join(", ")
                ));
            }
        }
    }
    problems
}

/// The ops of a Pulumi preview's steps, or of a drift check's outputs events.
fn pulumi_ops(text: &str) -> Vec<String> {
    let op = |v: &serde_json::Value| v.get("op").and_then(|o| o.as_str()).map(str::to_owned);
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(document) => document
            .get("steps")
            .and_then(|s| s.as_array())
            .map(|steps| steps.iter().filter_map(op).collect())
            .unwrap_or_default(),
        Err(_) => text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter_map(|e| e.pointer("/resOutputsEvent/metadata").and_then(op))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ops_are_read_from_hunk_headers() {
        assert_eq!(
            diff_ops("@@ -0,0 +1,12 @@\n@@ -1,9 +0,0 @@\n@@ -1,5 +1,6 @@\n@@ -1 +1,12 @@\n"),
            ["create", "delete", "update", "update"]
        );
    }
}
