//! The Helm releases adapter, driven by `helm` (and `kubectl` for the drift check).
//!
//! A stack is one release of a chart in a namespace, declared in `sluiceway.yaml`. Helm
//! keeps no plan, so what a deploy may apply is pinned by the render: the preview
//! renders the release (`helm template`, server dry run, so `lookup` sees the cluster)
//! into a private rendered set and compares it object by object with the release as
//! deployed (`helm get manifest` and `helm get hooks`); the deploy renders again and
//! upgrades only when the render has not moved. No plugin is needed. When the runner
//! has helm-diff, its structured output is read into the same changes instead (decision
//! 0058's commands). Every argument is written `--name=value`, so no value can read as
//! another flag.

pub mod charts;
pub mod compare;
pub mod naming;
pub mod release;
pub mod structured;
pub mod tool_diff;

use std::path::{Path, PathBuf};
use std::time::Duration;

use sluiceway_core::diff::{Change, Diff, Op, code_unit_order};
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::runner::Outcome;
use sluiceway_core::stack::{Chart, StackId, ToolOptions};

use crate::kubernetes::rendered_set::RenderedSet;
use crate::kubernetes::{self, fold, hunks};
use crate::preview_document::PreviewDocument;
use crate::tool_log::{ToolDiffText, ToolLog};
pub use crate::tool_run::{Checked, Context, VersionError};
use crate::tool_run::{Ran, accept, minutes, unreadable};
use crate::version::Version;

/// The oldest helm Sluiceway drives: the oldest our own recordings prove.
pub const FLOOR: Version = Version {
    major: 3,
    minor: 19,
    patch: 0,
};
/// The oldest helm-diff whose structured output Sluiceway reads (decision 0058).
pub const PLUGIN_FLOOR: Version = Version {
    major: 3,
    minor: 15,
    patch: 11,
};
/// The version check's own limit.
const VERSION_TIME_LIMIT: Duration = Duration::from_secs(60);

/// Who compares a render with the deployed release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Differ {
    /// Sluiceway, in process: the default, and all a runner needs is helm.
    Sluiceway,
    /// The helm-diff plugin, when the runner has it.
    Plugin,
}

/// One Helm release as the adapter needs it.
#[derive(Debug, Clone)]
pub struct Stack {
    pub id: StackId,
    /// The stack's directory, absolute: helm runs here, and the chart and values files
    /// are named from here.
    pub dir: PathBuf,
    pub release: String,
    pub namespace: String,
    pub chart: Chart,
    pub values_files: Vec<String>,
    pub create_namespace: bool,
    pub differ: Differ,
}

impl Stack {
    /// The Helm stack of these options, compared by Sluiceway until the version check
    /// says otherwise.
    pub fn of(id: StackId, dir: PathBuf, options: &ToolOptions) -> Option<Stack> {
        match options {
            ToolOptions::Helm {
                release,
                namespace,
                chart,
                values_files,
                create_namespace,
            } => Some(Stack {
                id,
                dir,
                release: release.clone(),
                namespace: namespace.clone(),
                chart: chart.clone(),
                values_files: values_files.clone(),
                create_namespace: *create_namespace,
                differ: Differ::Sluiceway,
            }),
            _ => None,
        }
    }

    /// The local chart's directory, absolute; `None` for a chart reference.
    pub fn chart_dir(&self) -> Option<PathBuf> {
        match &self.chart {
            Chart::Local(path) => Some(self.dir.join(path)),
            Chart::Reference { .. } => None,
        }
    }

    /// `<release> <chart> --namespace=<ns> [--version=<v>]`.
    fn release_args(&self) -> Vec<String> {
        let mut args = vec![self.release.clone()];
        match &self.chart {
            Chart::Local(path) => args.push(path.clone()),
            Chart::Reference { name, .. } => args.push(name.clone()),
        }
        args.push(self.namespace_flag());
        if let Chart::Reference { version, .. } = &self.chart {
            args.push(format!("--version={version}"));
        }
        args
    }

    fn namespace_flag(&self) -> String {
        format!("--namespace={}", self.namespace)
    }

    fn values_args(&self) -> impl Iterator<Item = String> + '_ {
        self.values_files.iter().map(|f| format!("--values={f}"))
    }

    /// The render a deploy is held to.
    fn render_argv(&self) -> Vec<String> {
        let mut argv = strings(&["helm", "template"]);
        argv.extend(self.release_args());
        argv.push("--dry-run=server".to_owned());
        argv.extend(self.values_args());
        argv
    }

    /// The plugin's diff: `structured` for a preview or drift check, else the tool diff.
    fn plugin_argv(&self, three_way: bool, structured: bool) -> Vec<String> {
        let mut argv = strings(&["helm", "diff", "upgrade"]);
        argv.extend(self.release_args());
        argv.extend(strings(&[
            "--install",
            "--reset-values",
            "--dry-run=server",
        ]));
        if three_way {
            argv.extend(strings(&["--three-way-merge", "--no-hooks"]));
        }
        argv.push(
            if structured {
                "--output=structured"
            } else {
                "--output=diff"
            }
            .to_owned(),
        );
        argv.push("--no-color".to_owned());
        argv.extend(self.values_args());
        argv
    }

    fn list_argv(&self) -> Vec<String> {
        let mut argv = strings(&["helm", "list"]);
        argv.push(self.namespace_flag());
        argv.push(release::filter(&self.release));
        argv.extend(release::STATES.iter().map(|s| (*s).to_owned()));
        argv.push("--output=json".to_owned());
        argv
    }

    fn get_argv(&self, what: &str) -> Vec<String> {
        let mut argv = strings(&["helm", "get", what, &self.release]);
        argv.push(self.namespace_flag());
        argv
    }
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// A step's result, with the tool's words for the job log.
#[derive(Debug)]
pub struct Run<T> {
    pub result: Result<T, Failure>,
    pub log: ToolLog,
}

#[derive(Debug)]
pub struct Previewed {
    pub diff: Diff,
    /// The render the preview compared, kept only when asked (for a deploy).
    pub render: Option<RenderedSet>,
    /// The rendered manifests as documents, read only when asked (for the policies).
    pub document: Option<PreviewDocument>,
}

fn run(
    ctx: &Context<'_>,
    argv: Vec<String>,
    cwd: &Path,
    ok: &[i32],
    log: &mut ToolLog,
) -> Result<Ran, Failure> {
    accept(
        ctx.invoke(argv, cwd, &[], Some(ctx.time_limit)),
        ok,
        minutes(ctx.time_limit),
        log,
    )
}

fn text(ran: Ran, what: &str) -> Result<String, Failure> {
    String::from_utf8(ran.stdout).map_err(|_| unreadable(format!("{what}: expected UTF-8 text.")))
}

/// Renders the release and writes the render into a private set.
fn render(stack: &Stack, ctx: &Context<'_>, log: &mut ToolLog) -> Result<RenderedSet, Failure> {
    let ran = run(ctx, stack.render_argv(), &stack.dir, &[0], log)?;
    let rendered = text(ran, "The rendered release")?;
    let private = |e: std::io::Error, log: &mut ToolLog| {
        log.note(format!(
            "The render could not be written to a private file: {}",
            e.kind()
        ));
        Failure::new(FailureReason::ToolError { exit_code: None })
    };
    let dir = RenderedSet::directory(ctx.scratch).map_err(|e| private(e, log))?;
    RenderedSet::write(dir, &stack.id, &rendered, None).map_err(|e| private(e, log))
}

/// The release as deployed, hooks included; empty when it is not installed. A release
/// mid-operation is busy, one left failed a fixed reason.
fn deployed(
    stack: &Stack,
    ctx: &Context<'_>,
    hooks: bool,
    log: &mut ToolLog,
) -> Result<Option<String>, Failure> {
    let ran = run(ctx, stack.list_argv(), &stack.dir, &[0], log)?;
    let listed = text(ran, "The release list")?;
    match release::state(&listed, &stack.release) {
        None => Err(unreadable(
            "The release list: expected the JSON list helm prints.",
        )),
        Some(release::State::NotInstalled) => Ok(None),
        Some(release::State::Pending) => Err(Failure::new(FailureReason::Busy)),
        Some(release::State::Broken) => Err(Failure::new(FailureReason::ReleaseFailed)),
        Some(release::State::Deployed) => {
            let ran = run(ctx, stack.get_argv("manifest"), &stack.dir, &[0], log)?;
            let mut manifest = text(ran, "The deployed release's manifest")?;
            if hooks {
                let ran = run(ctx, stack.get_argv("hooks"), &stack.dir, &[0], log)?;
                manifest.push_str("\n---\n");
                manifest.push_str(&text(ran, "The deployed release's hooks")?);
            }
            Ok(Some(manifest))
        }
    }
}

fn read_set(set: &RenderedSet) -> Result<String, Failure> {
    std::fs::read_to_string(set.path())
        .map_err(|_| Failure::new(FailureReason::ToolError { exit_code: None }))
}

/// The changes from the deployed release to the render, without the plugin.
fn compared(
    stack: &Stack,
    ctx: &Context<'_>,
    log: &mut ToolLog,
) -> Result<(Vec<Change>, RenderedSet), Failure> {
    let set = render(stack, ctx, log)?;
    let old = deployed(stack, ctx, true, log)?.unwrap_or_default();
    let changes = compare::compare(&old, &read_set(&set)?, &stack.namespace, ctx.values)
        .map_err(|e| unreadable(e.to_string()))?;
    Ok((changes, set))
}

/// The plugin's structured diff, plain or three-way.
fn plugin_diff(
    stack: &Stack,
    ctx: &Context<'_>,
    three_way: bool,
    log: &mut ToolLog,
) -> Result<Vec<Change>, Failure> {
    let ran = run(
        ctx,
        stack.plugin_argv(three_way, true),
        &stack.dir,
        &[0],
        log,
    )?;
    structured::read(
        &text(ran, "The plugin's structured output")?,
        &stack.namespace,
        ctx.values,
    )
}

/// Previews the release. With `keep` the render is handed back for a deploy; otherwise
/// it is removed before this returns.
pub fn preview(stack: &Stack, ctx: &Context<'_>, keep: bool, document: bool) -> Run<Previewed> {
    let mut log = ToolLog::default();
    let result = (|| {
        let (changes, set) = match stack.differ {
            Differ::Sluiceway => {
                let (changes, set) = compared(stack, ctx, &mut log)?;
                (changes, Some(set))
            }
            Differ::Plugin => {
                let changes = plugin_diff(stack, ctx, false, &mut log)?;
                let set = if keep || document {
                    Some(render(stack, ctx, &mut log)?)
                } else {
                    None
                };
                (changes, set)
            }
        };
        let document = match (&set, document) {
            (Some(set), true) => Some(PreviewDocument::of_set(set)?),
            _ => None,
        };
        let render = set.filter(|_| keep);
        Ok(Previewed {
            document,
            diff: Diff {
                stack: stack.id.clone(),
                changes,
                drift: None,
            },
            render,
        })
    })();
    Run { result, log }
}

/// Looks for drift: what the release set that the live objects no longer hold. Without
/// the plugin, the deployed manifest goes through a server-side dry run (`kubectl diff
/// --server-side --force-conflicts`, whole objects), so a field the chart never set is
/// never drift and one it set shows where the live value differs; an object gone from
/// the cluster is a delete. Hooks are not part of the manifest. A release not installed
/// has no drift.
pub fn detect_drift(stack: &Stack, ctx: &Context<'_>) -> Run<Vec<Change>> {
    let mut log = ToolLog::default();
    let result = (|| match stack.differ {
        Differ::Plugin => {
            let plain = plugin_diff(stack, ctx, false, &mut log)?;
            let three_way = plugin_diff(stack, ctx, true, &mut log)?;
            structured::drift(&plain, &three_way)
        }
        Differ::Sluiceway => {
            let Some(manifest) = deployed(stack, ctx, false, &mut log)? else {
                return Ok(Vec::new());
            };
            let dir = RenderedSet::directory(ctx.scratch)
                .map_err(|_| Failure::new(FailureReason::ToolError { exit_code: None }))?;
            let set = RenderedSet::write(dir, &stack.id, &manifest, None)
                .map_err(|_| Failure::new(FailureReason::ToolError { exit_code: None }))?;
            let argv = drift_argv(stack, &set.path());
            let outcome = ctx.invoke(
                argv,
                &stack.dir,
                &[(kubernetes::EXTERNAL_DIFF_VAR, kubernetes::EXTERNAL_DIFF)],
                Some(ctx.time_limit),
            );
            let ran = accept(outcome, &[0, 1], minutes(ctx.time_limit), &mut log)?;
            let code = ran.code;
            let whole = text(ran, "The tool's output")?;
            let pairs = hunks::read(&whole).map_err(|e| unreadable(e.to_string()))?;
            if code == 1 && pairs.is_empty() {
                return Err(unreadable(
                    "The tool's output: expected at least one object, since the tool said it found differences.",
                ));
            }
            let pairs = fold::read_pairs(&pairs).map_err(|e| unreadable(e.to_string()))?;
            let pairs: Vec<fold::ReadPair> = pairs
                .into_iter()
                .map(|p| fold::ReadPair {
                    identity: naming::in_release(p.identity, &stack.namespace),
                    ..p
                })
                .collect();
            let mut drift = Vec::new();
            for pair in &pairs {
                let id = &pair.identity;
                match (&pair.live, &pair.merged) {
                    (None, Some(_)) => drift.push(naming::change(id, &stack.namespace, Op::Delete)),
                    (Some(live), Some(merged)) => {
                        let keys = fold::changed_keys(id, live, merged);
                        if !keys.is_empty() {
                            drift.push(Change {
                                changed_keys: naming::secret_paths(id, keys),
                                ..naming::change(id, &stack.namespace, Op::Update)
                            });
                        }
                    }
                    _ => {}
                }
            }
            drift.sort_by(|a, b| code_unit_order(&a.address, &b.address));
            Ok(drift)
        }
    })();
    Run { result, log }
}

/// The drift check's server-side dry run of the deployed manifest.
fn drift_argv(stack: &Stack, set: &Path) -> Vec<String> {
    let mut argv = strings(&["kubectl", "diff", "--server-side", "--force-conflicts"]);
    argv.push(stack.namespace_flag());
    argv.push("-f".to_owned());
    argv.push(set.display().to_string());
    argv
}

/// The tool's diff for the job log: the plugin's own, or Sluiceway's comparison as text.
/// A Secret's values are masked either way (the plugin masks them itself).
pub fn tool_diff(stack: &Stack, ctx: &Context<'_>) -> Run<ToolDiffText> {
    let mut log = ToolLog::default();
    let result = (|| match stack.differ {
        Differ::Plugin => {
            let ran = run(
                ctx,
                stack.plugin_argv(false, false),
                &stack.dir,
                &[0],
                &mut log,
            )?;
            let plain = strip_ansi_escapes::strip(&ran.stdout);
            Ok(ToolDiffText::new(
                String::from_utf8_lossy(&plain).into_owned(),
            ))
        }
        Differ::Sluiceway => {
            let set = render(stack, ctx, &mut log)?;
            let old = deployed(stack, ctx, true, &mut log)?.unwrap_or_default();
            tool_diff::text(&old, &read_set(&set)?, &stack.namespace)
                .map_err(|e| unreadable(e.to_string()))
        }
    })();
    Run { result, log }
}

/// Deploys the release as the preview rendered it: renders again with the preview's
/// command and refuses a render that moved; then `helm upgrade --install`, rolled back
/// on failure (`--atomic` on Helm 3, `--rollback-on-failure` on Helm 4). A drift repair
/// on Helm 4 of a release it applies server-side takes the drifted fields back with
/// `--force-conflicts`.
pub fn deploy(stack: &Stack, ctx: &Context<'_>, kept: &RenderedSet, repair: bool) -> Run<()> {
    let mut log = ToolLog::default();
    let result = (|| {
        let again = run(ctx, stack.render_argv(), &stack.dir, &[0], &mut log)?;
        let again = text(again, "The rendered release")?;
        if kept.stack() != &stack.id || !kept.holds(&again) {
            log.note(format!(
                "The render of {} moved since its preview. Nothing was deployed.",
                stack.id
            ));
            return Err(Failure::new(FailureReason::ChangedSincePreview));
        }
        let version = version(ctx, &stack.dir)?;
        let mut argv = strings(&["helm", "upgrade"]);
        argv.extend(stack.release_args());
        argv.extend(strings(&["--install", "--reset-values"]));
        if version.major >= 4 {
            argv.push("--rollback-on-failure".to_owned());
            if repair && applied_server_side(stack, ctx, &mut log)? {
                argv.push("--force-conflicts".to_owned());
            }
        } else {
            argv.push("--atomic".to_owned());
        }
        if stack.create_namespace {
            argv.push("--create-namespace".to_owned());
        }
        argv.push("--hide-notes".to_owned());
        argv.extend(stack.values_args());
        let outcome = ctx.invoke_deploy(argv, &stack.dir, &[]);
        if let Outcome::Exited { stdout, stderr, .. } = &outcome {
            log.push_output(stdout);
            log.push_output(stderr);
        }
        ctx.accept_deploy(outcome, &mut ToolLog::default())?;
        Ok(())
    })();
    Run { result, log }
}

fn applied_server_side(
    stack: &Stack,
    ctx: &Context<'_>,
    log: &mut ToolLog,
) -> Result<bool, Failure> {
    let mut argv = stack.get_argv("metadata");
    argv.push("--output=json".to_owned());
    let ran = run(ctx, argv, &stack.dir, &[0], log)?;
    release::applied_server_side(&text(ran, "The release's metadata")?)
        .ok_or_else(|| unreadable("The release's metadata: expected the JSON helm prints."))
}

fn version_argv() -> Vec<String> {
    strings(&["helm", "version", "--template={{.Version}}"])
}

/// helm's version, read for a deploy's flags.
fn version(ctx: &Context<'_>, cwd: &Path) -> Result<Version, Failure> {
    let mut log = ToolLog::default();
    let ran = run(ctx, version_argv(), cwd, &[0], &mut log)?;
    Version::parse(String::from_utf8_lossy(&ran.stdout).trim())
        .ok_or_else(|| unreadable("helm's version: expected vMAJOR.MINOR.PATCH."))
}

/// Checks that helm is there and new enough, and whether helm-diff answers (both are
/// always asked, so the job log says what the runner has). Run once per job, in the
/// repository root.
pub fn check_version(ctx: &Context<'_>, repo_root: &Path) -> Result<Checked, VersionError> {
    let found = match ctx.invoke(version_argv(), repo_root, &[], Some(VERSION_TIME_LIMIT)) {
        Outcome::Exited {
            code: Some(0),
            stdout,
            ..
        } => Version::parse(String::from_utf8_lossy(&stdout).trim())
            .ok_or(VersionError::Unreadable { tool: "helm" })?,
        Outcome::NotStarted { .. } => {
            return Err(VersionError::Missing {
                tool: "helm",
                floor: FLOOR,
            });
        }
        _ => return Err(VersionError::Unreadable { tool: "helm" }),
    };
    let argv = strings(&["helm", "diff", "version"]);
    let plugin = match ctx.invoke(argv, repo_root, &[], Some(VERSION_TIME_LIMIT)) {
        Outcome::Exited {
            code: Some(0),
            stdout,
            ..
        } => Version::parse(String::from_utf8_lossy(&stdout).trim()).filter(|v| *v >= PLUGIN_FLOOR),
        _ => None,
    };
    if found < FLOOR {
        return Err(VersionError::TooOld {
            tool: "helm",
            found,
            floor: FLOOR,
        });
    }
    Ok(Checked {
        version: found,
        plugin,
    })
}

/// Runs `helm dependency build .` in one chart directory.
pub fn build_dependencies(dir: &Path, ctx: &Context<'_>) -> Run<()> {
    let mut log = ToolLog::default();
    let result = run(
        ctx,
        strings(&["helm", "dependency", "build", "."]),
        dir,
        &[0],
        &mut log,
    )
    .map(|_| ());
    Run { result, log }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(chart: Chart) -> Stack {
        Stack {
            id: StackId::derive("apps/web", None),
            dir: PathBuf::from("/repo/apps/web"),
            release: "web".into(),
            namespace: "shop".into(),
            chart,
            values_files: vec!["base.yaml".into(), "prod.yaml".into()],
            create_namespace: false,
            differ: Differ::Sluiceway,
        }
    }

    #[test]
    fn a_chart_reference_is_pinned_and_values_files_keep_their_order() {
        let pinned = stack(Chart::Reference {
            name: "oci://registry.example/charts/web".into(),
            version: "1.2.3".into(),
        });
        assert_eq!(
            pinned.render_argv(),
            [
                "helm",
                "template",
                "web",
                "oci://registry.example/charts/web",
                "--namespace=shop",
                "--version=1.2.3",
                "--dry-run=server",
                "--values=base.yaml",
                "--values=prod.yaml",
            ]
        );
        let local = stack(Chart::Local("../charts/web".into()));
        assert_eq!(
            local.chart_dir(),
            Some(PathBuf::from("/repo/apps/web/../charts/web"))
        );
        assert_eq!(pinned.chart_dir(), None);
        assert_eq!(
            local.plugin_argv(true, true)[..5],
            ["helm", "diff", "upgrade", "web", "../charts/web"]
        );
        assert!(
            local
                .plugin_argv(true, true)
                .windows(2)
                .any(|w| w == ["--three-way-merge", "--no-hooks"])
        );
    }

    #[test]
    fn the_version_check_says_when_the_plugin_compares() {
        let version = Version::parse("v3.19.0").unwrap();
        let with = Checked {
            version,
            plugin: Version::parse("3.15.11"),
        };
        assert_eq!(with.to_string(), "v3.19.0 with helm-diff v3.15.11");
        assert_eq!(Checked::from(version).to_string(), "v3.19.0");
    }
}
