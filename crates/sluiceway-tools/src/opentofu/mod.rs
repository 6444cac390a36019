//! The OpenTofu and Terraform adapter: one adapter, two binaries, and two wrappers that
//! end in the same plan (decision 0068).
//!
//! A stack is a root module in a workspace: written by hand, synthesized from a CDKTF
//! app ([`cdktf`]), or a Terragrunt unit whose every tool command goes through
//! `terragrunt run` ([`terragrunt`]). Its preparation is `init`, once per directory and
//! one at a time. Its preview is `plan -json -out=<plan>` then `show -json
//! <plan>`, read into changes; its deploy applies exactly that saved plan. The plan file
//! holds every value, so it lives in a private directory and is removed when dropped.

pub mod cdktf;
pub mod cost;
pub mod plan;
mod plan_paths;
pub mod plugin_cache;
pub mod terragrunt;

use crate::preview_document::PreviewDocument;
use crate::tool_run::Asks;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use sluiceway_core::diff::Diff;
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::runner::Outcome;
use sluiceway_core::stack::StackId;
use tempfile::TempDir;

use crate::tool_log::{ToolDiffText, ToolLog};
pub use crate::tool_run::{Context, VersionError};
use crate::tool_run::{accept, minutes, version_of};
use crate::version::Version;

/// The plan file's name; replays match the plan placeholder on it.
pub const PLAN_FILE: &str = "tfplan";
/// The variable that selects a stack's workspace; replays tell runs apart by it.
pub const WORKSPACE_VAR: &str = "TF_WORKSPACE";
/// The oldest OpenTofu our recordings prove.
pub const TOFU_FLOOR: Version = Version {
    major: 1,
    minor: 6,
    patch: 2,
};
/// The oldest Terraform our recordings prove.
pub const TERRAFORM_FLOOR: Version = Version {
    major: 1,
    minor: 11,
    patch: 4,
};
/// The one reason taken from the tool's words: the state lock is held.
const LOCK_HELD: &str = "Error acquiring the state lock";

/// Which binary drives the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Binary {
    Tofu,
    Terraform,
}

impl Binary {
    pub fn name(self) -> &'static str {
        match self {
            Binary::Tofu => "tofu",
            Binary::Terraform => "terraform",
        }
    }

    fn floor(self) -> Version {
        match self {
            Binary::Tofu => TOFU_FLOOR,
            Binary::Terraform => TERRAFORM_FLOOR,
        }
    }
}

/// What stands in front of the tool for a stack.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Wrapper {
    /// The stack is the CDKTF stack of this name, in the app of the stack's directory.
    Cdktf { stack: String },
    /// The stack's directory is a Terragrunt unit.
    Terragrunt,
}

/// How a tool command reaches the tool: directly, or through `terragrunt run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Launch {
    Direct(Binary),
    Terragrunt(Binary),
}

impl Launch {
    /// The command line of the tool command `args`.
    pub fn command(self, args: &[&str]) -> Vec<String> {
        match self {
            Launch::Direct(binary) => std::iter::once(binary.name())
                .chain(args.iter().copied())
                .map(str::to_owned)
                .collect(),
            Launch::Terragrunt(binary) => terragrunt::command(binary, args),
        }
    }
}

/// One root-module stack as the adapter needs it.
#[derive(Debug, Clone)]
pub struct Stack {
    pub id: StackId,
    /// The stack's directory, absolute: the root module, the CDKTF app or the unit.
    pub dir: PathBuf,
    pub binary: Binary,
    pub wrapper: Option<Wrapper>,
    pub workspace: Option<String>,
    /// Relative to the stack's directory, passed as `-var-file=` in order.
    pub var_files: Vec<String>,
}

impl Stack {
    pub fn launch(&self) -> Launch {
        match self.wrapper {
            Some(Wrapper::Terragrunt) => Launch::Terragrunt(self.binary),
            _ => Launch::Direct(self.binary),
        }
    }

    /// Where the tool runs: the root module synth wrote, for a CDKTF stack.
    pub fn module_dir(&self) -> PathBuf {
        match &self.wrapper {
            Some(Wrapper::Cdktf { stack }) => cdktf::stack_dir(&self.dir, stack),
            _ => self.dir.clone(),
        }
    }

    fn command(&self, args: &[&str]) -> Vec<String> {
        self.launch().command(args)
    }

    fn with_var_files(&self, mut argv: Vec<String>) -> Vec<String> {
        argv.extend(self.var_files.iter().map(|f| format!("-var-file={f}")));
        argv
    }

    fn env(&self) -> Vec<(&str, &str)> {
        let mut env = vec![("TF_IN_AUTOMATION", "true")];
        if let Some(workspace) = &self.workspace {
            env.push((WORKSPACE_VAR, workspace.as_str()));
        }
        env
    }
}

/// A saved plan: only its own adapter reads it, and it is removed when dropped.
#[derive(Debug)]
pub struct SavedPlan {
    dir: TempDir,
    stack: StackId,
}

impl SavedPlan {
    pub fn path(&self) -> PathBuf {
        self.dir.path().join(PLAN_FILE)
    }
}

#[derive(Debug)]
pub struct Preview {
    pub result: Result<Previewed, Failure>,
    pub log: ToolLog,
}

#[derive(Debug)]
pub struct Previewed {
    pub diff: Diff,
    pub plan: Option<SavedPlan>,
    /// The plan as `show -json` printed it, read only when asked (for the policies).
    pub document: Option<PreviewDocument>,
    /// What the change costs a month, when asked and there are changes.
    pub cost: Option<Result<cost::Estimate, cost::NotEstimated>>,
}

#[derive(Debug)]
pub struct Run {
    pub result: Result<(), Failure>,
    pub log: ToolLog,
}

#[derive(Debug)]
pub struct ToolDiff {
    pub result: Result<ToolDiffText, Failure>,
    pub log: ToolLog,
}

/// Reduces a `-json` log to words for the job log: diagnostics and messages, without
/// the messages that list planned changes, outputs or drift.
pub fn log_words(stdout: &[u8], log: &mut ToolLog) {
    for line in String::from_utf8_lossy(stdout).lines() {
        let Ok(message) = serde_json::from_str::<Value>(line) else {
            log.push_output(line.as_bytes());
            continue;
        };
        let kind = message.get("type").and_then(Value::as_str).unwrap_or("");
        if matches!(
            kind,
            "outputs" | "planned_change" | "resource_drift" | "version"
        ) {
            continue;
        }
        if let Some(diagnostic) = message.get("diagnostic") {
            let severity = if diagnostic.get("severity").and_then(Value::as_str) == Some("warning")
            {
                "Warning"
            } else {
                "Error"
            };
            let summary = diagnostic
                .get("summary")
                .and_then(Value::as_str)
                .unwrap_or("");
            log.note(format!("{severity}: {summary}"));
            if let Some(range) = diagnostic.get("range") {
                let file = range.get("filename").and_then(Value::as_str).unwrap_or("?");
                let line = range
                    .pointer("/start/line")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                log.note(format!("  on {file} line {line}"));
            }
            if let Some(address) = diagnostic.get("address").and_then(Value::as_str) {
                log.note(format!("  at {address}"));
            }
            if let Some(detail) = diagnostic
                .get("detail")
                .and_then(Value::as_str)
                .filter(|d| !d.is_empty())
            {
                log.push_output(detail.as_bytes());
            }
        } else if let Some(text) = message.get("@message").and_then(Value::as_str) {
            log.note(text.to_owned());
        }
    }
}

/// Whether a failed plan's log says the state lock is held.
fn lock_held(stdout: &[u8]) -> bool {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .any(|message| {
            message
                .pointer("/diagnostic/severity")
                .and_then(Value::as_str)
                == Some("error")
                && message
                    .pointer("/diagnostic/summary")
                    .and_then(Value::as_str)
                    == Some(LOCK_HELD)
        })
}

/// `init`, for one directory; run one directory at a time, before any preview.
pub fn prepare(dir: &Path, launch: Launch, ctx: &Context<'_>) -> Run {
    let mut log = ToolLog::default();
    let argv = launch.command(&["init", "-input=false", "-no-color"]);
    let outcome = ctx.invoke(
        argv,
        dir,
        &[("TF_IN_AUTOMATION", "true")],
        Some(ctx.time_limit),
    );
    if let Outcome::Exited { stdout, .. } = &outcome {
        log.push_output(stdout);
    }
    let result = accept(outcome, &[0], minutes(ctx.time_limit), &mut log).map(|_| ());
    Run { result, log }
}

/// Plans the stack into a private plan file and reads the plan. With `keep_plan` the
/// plan is handed back for the deploy; otherwise it is removed before this returns.
pub fn preview(stack: &Stack, ctx: &Context<'_>, asks: Asks) -> Preview {
    let Asks {
        keep: keep_plan,
        document,
        cost: costed,
    } = asks;
    let mut log = ToolLog::default();
    let result = (|| {
        let dir = tempfile::Builder::new()
            .prefix(crate::recording::PLAN_DIR_PREFIX)
            .tempdir_in(ctx.scratch)
            .map_err(|e| {
                log.note(format!(
                    "A private directory for the plan could not be made: {}",
                    e.kind()
                ));
                Failure::new(FailureReason::ToolError { exit_code: None })
            })?;
        let plan = SavedPlan {
            dir,
            stack: stack.id.clone(),
        };
        let out = format!("-out={}", plan.path().display());
        let argv = stack.with_var_files(stack.command(&[
            "plan",
            "-input=false",
            "-no-color",
            "-refresh=false",
            "-json",
            &out,
        ]));
        let outcome = ctx.invoke(
            argv,
            &stack.module_dir(),
            &stack.env(),
            Some(ctx.time_limit),
        );
        if let Outcome::Exited {
            code: Some(code),
            stdout,
            ..
        } = &outcome
        {
            log_words(stdout, &mut log);
            if *code != 0 && lock_held(stdout) {
                return Err(Failure::new(FailureReason::Busy));
            }
        }
        accept(outcome, &[0], minutes(ctx.time_limit), &mut log)?;
        let shown = plan.dir.path().join("plan.json");
        let argv = stack.command(&[
            "show",
            "-json",
            "-no-color",
            &plan.path().display().to_string(),
        ]);
        let outcome = ctx.runner.run(&sluiceway_core::runner::Invocation {
            argv,
            cwd: stack.module_dir(),
            env: with_env(ctx, &stack.env()),
            time_limit: Some(ctx.time_limit),
            stdout_file: Some(shown.clone()),
            grace: None,
        });
        accept(outcome, &[0], minutes(ctx.time_limit), &mut log)?;
        let file = std::fs::File::open(&shown).map_err(|_| {
            Failure::with_detail(
                FailureReason::UnreadableOutput,
                "The plan: expected the output of show",
            )
        })?;
        let changes = plan::read(file, ctx.values);
        let document = if document && changes.is_ok() {
            let text = std::fs::read(&shown).map_err(|_| {
                Failure::with_detail(
                    FailureReason::UnreadableOutput,
                    "The plan: expected the output of show",
                )
            })?;
            Some(PreviewDocument::from_json(&text)?)
        } else {
            None
        };
        let changes = changes.map_err(Failure::from)?;
        let cost =
            (costed && !changes.is_empty()).then(|| cost::estimate(plan.dir.path(), ctx, &mut log));
        let _ = std::fs::remove_file(&shown);
        let diff = Diff {
            stack: stack.id.clone(),
            changes,
            drift: None,
        };
        Ok(Previewed {
            diff,
            plan: keep_plan.then_some(plan),
            document,
            cost,
        })
    })();
    Preview { result, log }
}

fn with_env(
    ctx: &Context<'_>,
    extra: &[(&str, &str)],
) -> std::collections::BTreeMap<String, String> {
    let mut env = ctx.env.clone();
    env.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    env
}

/// The tool's own plan text for the job log (values the tool does not mark sensitive
/// show in it).
pub fn tool_diff(stack: &Stack, ctx: &Context<'_>) -> ToolDiff {
    let mut log = ToolLog::default();
    let argv = stack.with_var_files(stack.command(&[
        "plan",
        "-input=false",
        "-no-color",
        "-refresh=false",
    ]));
    let outcome = ctx.invoke(
        argv,
        &stack.module_dir(),
        &stack.env(),
        Some(ctx.time_limit),
    );
    let result = accept(outcome, &[0], minutes(ctx.time_limit), &mut log)
        .map(|ran| ToolDiffText::new(String::from_utf8_lossy(&ran.stdout).into_owned()));
    ToolDiff { result, log }
}

/// Applies exactly the saved plan of this stack's preview, within `deploy-timeout` if set.
pub fn deploy(stack: &Stack, ctx: &Context<'_>, plan: &SavedPlan) -> Run {
    let mut log = ToolLog::default();
    if plan.stack != stack.id {
        log.note(format!(
            "The saved plan handed to {} is another stack's. Nothing was deployed.",
            stack.id
        ));
        return Run {
            result: Err(Failure::new(FailureReason::ChangedSincePreview)),
            log,
        };
    }
    let argv = stack.command(&[
        "apply",
        "-input=false",
        "-no-color",
        "-json",
        &plan.path().display().to_string(),
    ]);
    let outcome = ctx.invoke_deploy(argv, &stack.module_dir(), &stack.env());
    if let Outcome::Exited { stdout, .. } | Outcome::TimedOut { stdout, .. } = &outcome {
        log_words(stdout, &mut log);
    }
    let result = ctx.accept_deploy(outcome, &mut log).map(|_| ());
    Run { result, log }
}

/// Checks the binary is there and new enough; run once per job in the repository root.
pub fn check_version(
    ctx: &Context<'_>,
    binary: Binary,
    repo_root: &Path,
) -> Result<Version, VersionError> {
    let argv = vec![binary.name().to_owned(), "version".into(), "-json".into()];
    let outcome = ctx.invoke(argv, repo_root, &[], Some(Duration::from_secs(60)));
    version_of(outcome, binary.name(), binary.floor(), |out| {
        serde_json::from_str::<Value>(out).ok().and_then(|v| {
            v.get("terraform_version")
                .and_then(Value::as_str)
                .and_then(Version::parse)
        })
    })
}
