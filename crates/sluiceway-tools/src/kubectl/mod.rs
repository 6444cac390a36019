//! The Kubernetes manifests adapter, driven by `kubectl`.
//!
//! A stack is a directory of manifests or a kustomization, declared in `sluiceway.yaml`.
//! Its preview is the API server's own server-side dry run (`kubectl diff
//! --server-side`) of one rendered set; its deploy applies exactly that set. Every
//! argument is written `--name=value`, so no value can read as another flag, and the
//! same optional flags reach the preview, the drift check and the deploy.

pub mod inventory;
mod managed_fields;
pub mod version;

use std::path::{Path, PathBuf};
use std::time::Duration;

use sluiceway_core::diff::{Change, Diff, Op, code_unit_order};
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::runner::Outcome;
use sluiceway_core::stack::{StackId, ToolOptions};

use inventory::Listing;
pub use version::FLOOR;

use crate::kubernetes::fold;
use crate::kubernetes::hunks;
use crate::kubernetes::objects::{self, Identity};
use crate::kubernetes::rendered_set::{self, PRUNE_FILE, RenderedSet};
use crate::kubernetes::{EXTERNAL_DIFF, EXTERNAL_DIFF_VAR};
use crate::version::Version;

use crate::preview_document::PreviewDocument;
use crate::tool_log::{ToolDiffText, ToolLog};
pub use crate::tool_run::Context;
pub use crate::tool_run::VersionError;
use crate::tool_run::{accept, minutes, unreadable};

/// kubectl's own field manager name for server-side apply.
const DEFAULT_FIELD_MANAGER: &str = "kubectl";
/// The version check's own limit.
const VERSION_TIME_LIMIT: Duration = Duration::from_secs(60);

/// The options of a kubectl stack.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    pub context: Option<String>,
    pub namespace: Option<String>,
    pub recursive: bool,
    pub prune: bool,
    pub force_conflicts: bool,
    pub field_manager: Option<String>,
}

impl Options {
    /// The kubectl options of a stack, when it is a kubectl stack.
    pub fn of(options: &ToolOptions) -> Option<Options> {
        match options {
            ToolOptions::Kubectl {
                context,
                namespace,
                recursive,
                prune,
                force_conflicts,
                field_manager,
            } => Some(Options {
                context: context.clone(),
                namespace: namespace.clone(),
                recursive: *recursive,
                prune: *prune,
                force_conflicts: *force_conflicts,
                field_manager: field_manager.clone(),
            }),
            _ => None,
        }
    }

    fn target(&self) -> Vec<String> {
        let mut flags = Vec::new();
        flags.extend(self.context.as_ref().map(|c| format!("--context={c}")));
        flags.extend(self.namespace.as_ref().map(|n| format!("--namespace={n}")));
        flags
    }

    fn applier(&self) -> Vec<String> {
        let mut flags = Vec::new();
        if self.force_conflicts {
            flags.push("--force-conflicts".to_owned());
        }
        flags.extend(
            self.field_manager
                .as_ref()
                .map(|m| format!("--field-manager={m}")),
        );
        flags
    }

    fn own_manager(&self) -> &str {
        self.field_manager
            .as_deref()
            .unwrap_or(DEFAULT_FIELD_MANAGER)
    }
}

/// One kubectl stack as the adapter needs it.
#[derive(Debug, Clone)]
pub struct Stack {
    pub id: StackId,
    /// The stack's directory, absolute.
    pub dir: PathBuf,
    pub options: Options,
}

/// A preview's result, with the tool's words for the job log.
#[derive(Debug)]
pub struct Preview {
    pub result: Result<Previewed, Failure>,
    pub log: ToolLog,
}

#[derive(Debug)]
pub struct Previewed {
    pub diff: Diff,
    /// The set the preview diffed, kept only when asked (for a deploy).
    pub set: Option<RenderedSet>,
    /// The rendered manifests as documents, read only when asked (for the policies).
    pub document: Option<PreviewDocument>,
}

/// The tool's own human diff, values included (but for what kubectl masks): for the job
/// log only, when a repository asks for it.
#[derive(Debug)]
pub struct ToolDiff {
    pub result: Result<ToolDiffText, Failure>,
    pub log: ToolLog,
}

#[derive(Debug)]
pub struct DriftCheck {
    pub result: Result<Vec<Change>, Failure>,
    pub log: ToolLog,
}

#[derive(Debug)]
pub struct Deploy {
    pub result: Result<(), Failure>,
    pub log: ToolLog,
}

fn kubectl(args: impl IntoIterator<Item = String>) -> Vec<String> {
    std::iter::once("kubectl".to_owned()).chain(args).collect()
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| (*w).to_owned()).collect()
}

/// A set rendered and written, with what pruning found.
struct Rendered {
    set: RenderedSet,
    prune_deletes: Vec<Change>,
    live_inventory: Vec<Listing>,
}

/// Renders the stack's set into a private directory; with pruning, reads the inventory,
/// finds what to prune, and appends the inventory to the set.
fn render(stack: &Stack, ctx: &Context<'_>, log: &mut ToolLog) -> Result<Rendered, Failure> {
    let minutes = minutes(ctx.time_limit);
    let manifests = if rendered_set::is_kustomization(&stack.dir) {
        let outcome = ctx.invoke(
            strings(&["kubectl", "kustomize", "."]),
            &stack.dir,
            &[],
            Some(ctx.time_limit),
        );
        let ran = accept(outcome, &[0], minutes, log)?;
        String::from_utf8(ran.stdout)
            .map_err(|_| unreadable("The rendered kustomization: expected UTF-8 text."))?
    } else {
        rendered_set::plain_manifests(&stack.dir, stack.options.recursive).map_err(|e| {
            log.note(format!(
                "The manifests of {} could not be read: {}",
                stack.id,
                e.kind()
            ));
            Failure::new(FailureReason::ToolError { exit_code: None })
        })?
    };
    let dir = RenderedSet::directory(ctx.scratch).map_err(|e| {
        log.note(format!(
            "A private directory for the rendered set could not be made: {}",
            e.kind()
        ));
        Failure::new(FailureReason::ToolError { exit_code: None })
    })?;
    let written = |dir, text: &str, prune: Option<&str>, log: &mut ToolLog| {
        RenderedSet::write(dir, &stack.id, text, prune).map_err(|e| {
            log.note(format!(
                "The rendered set could not be written: {}",
                e.kind()
            ));
            Failure::new(FailureReason::ToolError { exit_code: None })
        })
    };
    if !stack.options.prune {
        let set = written(dir, &manifests, None, log)?;
        return Ok(Rendered {
            set,
            prune_deletes: Vec::new(),
            live_inventory: Vec::new(),
        });
    }

    let name = inventory::name(ctx.repository, &stack.id);
    let target = stack.options.target();
    let argv = kubectl(
        strings(&["get", "configmap", &name])
            .into_iter()
            .chain(target.clone())
            .chain(strings(&["--ignore-not-found", "--output=json"])),
    );
    let ran = accept(
        ctx.invoke(argv, &stack.dir, &[], Some(ctx.time_limit)),
        &[0],
        minutes,
        log,
    )?;
    let live_inventory =
        inventory::read(&String::from_utf8_lossy(&ran.stdout)).map_err(|line| {
            unreadable(format!(
                "The stack's inventory, at line {line}: expected an object Sluiceway listed."
            ))
        })?;
    let objects = objects::read_stream(&manifests)
        .map_err(|_| unreadable("The rendered set: expected YAML documents."))?;
    let in_set: Vec<Listing> = objects.iter().filter_map(Listing::of).collect();
    let candidates: Vec<Listing> = live_inventory
        .iter()
        .filter(|l| !in_set.iter().any(|s| s.same_object(l)))
        .cloned()
        .collect();

    let mut kept: Vec<(Listing, Identity)> = Vec::new();
    if !candidates.is_empty() {
        let prune_path = dir.path().join(PRUNE_FILE);
        rendered_set::write_private(&prune_path, &inventory::stubs(&candidates)).map_err(|e| {
            log.note(format!("The prune file could not be written: {}", e.kind()));
            Failure::new(FailureReason::ToolError { exit_code: None })
        })?;
        let argv = kubectl(
            strings(&["get"])
                .into_iter()
                .chain(target)
                .chain(strings(&[
                    "--ignore-not-found",
                    "--show-managed-fields",
                    "--output=json",
                    "-f",
                ]))
                .chain([prune_path.display().to_string()]),
        );
        let ran = accept(
            ctx.invoke(argv, &stack.dir, &[], Some(ctx.time_limit)),
            &[0],
            minutes,
            log,
        )?;
        let text = String::from_utf8_lossy(&ran.stdout);
        let live = if text.trim().is_empty() {
            Vec::new()
        } else {
            objects::read_stream(&text).map_err(|_| {
                unreadable("The objects to prune: expected the cluster's objects as JSON.")
            })?
        };
        for object in &live {
            let Some(identity) = Identity::of(object) else {
                continue;
            };
            let own = managed_fields::entries(object)
                .iter()
                .any(|e| e.manager == stack.options.own_manager() && e.operation == "Apply");
            if let Some(listing) = candidates.iter().find(|c| c.names(&identity))
                && own
            {
                kept.push((listing.clone(), identity));
            }
        }
    }
    let prune_deletes: Vec<Change> = kept
        .iter()
        .map(|(_, id)| Change::new(id.address(), id.kind.clone(), id.display_name(), Op::Delete))
        .collect();
    let prune_file = (!kept.is_empty()).then(|| {
        let cluster: Vec<Listing> = kept
            .iter()
            .map(|(listing, id)| Listing {
                namespace: id.namespace.clone(),
                ..listing.clone()
            })
            .collect();
        inventory::stubs(&cluster)
    });
    let listed: Vec<Listing> = in_set
        .into_iter()
        .chain(kept.into_iter().map(|(l, _)| l))
        .collect();
    let set_text = format!(
        "{manifests}---\n{}",
        inventory::manifest(&name, &stack.id, &listed)
    );
    let set = written(dir, &set_text, prune_file.as_deref(), log)?;
    Ok(Rendered {
        set,
        prune_deletes,
        live_inventory,
    })
}

fn diff_argv(stack: &Stack, set: &Path, managed_fields: bool) -> Vec<String> {
    let mut args = strings(&["diff", "--server-side"]);
    args.extend(stack.options.target());
    args.extend(stack.options.applier());
    if managed_fields {
        args.push("--show-managed-fields".to_owned());
    }
    args.push("-f".to_owned());
    args.push(set.display().to_string());
    kubectl(args)
}

/// The whole-object diff kubectl wrote, and whether it said it found differences.
struct WholeObjectDiff {
    text: String,
    differs: bool,
}

/// The error for a diff that says it found differences and holds no object.
const NO_OBJECT: &str =
    "The tool's output: expected at least one object, since the tool said it found differences.";

/// Runs the whole-object diff.
fn whole_object_diff(
    stack: &Stack,
    ctx: &Context<'_>,
    set: &RenderedSet,
    managed_fields: bool,
    log: &mut ToolLog,
) -> Result<WholeObjectDiff, Failure> {
    let argv = diff_argv(stack, &set.path(), managed_fields);
    let outcome = ctx.invoke(
        argv,
        &stack.dir,
        &[(EXTERNAL_DIFF_VAR, EXTERNAL_DIFF)],
        Some(ctx.time_limit),
    );
    let ran = accept(outcome, &[0, 1], minutes(ctx.time_limit), log)?;
    let text = String::from_utf8(ran.stdout)
        .map_err(|_| unreadable("The tool's output: expected UTF-8 text."))?;
    Ok(WholeObjectDiff {
        text,
        differs: ran.code == 1,
    })
}

fn is_inventory(name: &str) -> impl Fn(&Identity) -> bool + Sync + '_ {
    move |id: &Identity| id.is_core("ConfigMap") && id.name == name
}

/// Previews the stack. With `keep_set` the rendered set is handed back for a deploy;
/// otherwise it is removed before this returns.
pub fn preview(stack: &Stack, ctx: &Context<'_>, keep_set: bool, document: bool) -> Preview {
    let mut log = ToolLog::default();
    let result = (|| {
        let rendered = render(stack, ctx, &mut log)?;
        let diff = whole_object_diff(stack, ctx, &rendered.set, false, &mut log)?;
        let name = inventory::name(ctx.repository, &stack.id);
        let skip = is_inventory(&name);
        let prune = stack.options.prune;
        let folded = fold::fold_output(&diff.text, &|id| prune && skip(id), ctx.values)
            .map_err(|e| unreadable(e.to_string()))?;
        if diff.differs && folded.objects == 0 {
            return Err(unreadable(NO_OBJECT));
        }
        let mut changes = folded.changes;
        changes.extend(rendered.prune_deletes);
        changes.sort_by(|a, b| code_unit_order(&a.address, &b.address));
        let diff = Diff {
            stack: stack.id.clone(),
            changes,
            drift: None,
        };
        let document = document
            .then(|| PreviewDocument::of_set(&rendered.set))
            .transpose()?;
        Ok(Previewed {
            diff,
            set: keep_set.then_some(rendered.set),
            document,
        })
    })();
    Preview { result, log }
}

/// Looks for drift, for stacks with `prune` or `forceConflicts`; `None` for others (for
/// them an outside change is already a change or a conflict on the row).
pub fn detect_drift(stack: &Stack, ctx: &Context<'_>) -> Option<DriftCheck> {
    if !(stack.options.prune || stack.options.force_conflicts) {
        return None;
    }
    let mut log = ToolLog::default();
    let result = (|| {
        let rendered = render(stack, ctx, &mut log)?;
        let diff = whole_object_diff(stack, ctx, &rendered.set, true, &mut log)?;
        let pairs = hunks::read(&diff.text).map_err(|e| unreadable(e.to_string()))?;
        if diff.differs && pairs.is_empty() {
            return Err(unreadable(NO_OBJECT));
        }
        let pairs = fold::read_pairs(&pairs).map_err(|e| unreadable(e.to_string()))?;
        let name = inventory::name(ctx.repository, &stack.id);
        let skip = is_inventory(&name);
        let own = stack.options.own_manager();
        let mut drift = Vec::new();
        for pair in pairs.iter().filter(|p| !skip(&p.identity)) {
            let id = &pair.identity;
            match (&pair.live, &pair.merged) {
                (None, Some(_)) if rendered.live_inventory.iter().any(|l| l.names(id)) => {
                    drift.push(Change::new(
                        id.address(),
                        id.kind.clone(),
                        id.display_name(),
                        Op::Delete,
                    ));
                }
                (Some(live), Some(merged)) => {
                    let entries = managed_fields::entries(live);
                    let (mine, others): (Vec<_>, Vec<_>) = entries
                        .iter()
                        .partition(|e| e.manager == own && e.operation == "Apply");
                    let keys: Vec<String> = fold::changed_property_paths(id, live, merged)
                        .into_iter()
                        .filter(|p| {
                            !mine.iter().any(|e| e.holds(p)) && others.iter().any(|e| e.holds(p))
                        })
                        .map(|p| p.to_string())
                        .collect();
                    if !keys.is_empty() {
                        drift.push(Change {
                            changed_keys: keys,
                            ..Change::new(
                                id.address(),
                                id.kind.clone(),
                                id.display_name(),
                                Op::Update,
                            )
                        });
                    }
                }
                _ => {}
            }
        }
        drift.sort_by(|a, b| code_unit_order(&a.address, &b.address));
        Ok(drift)
    })();
    Some(DriftCheck { result, log })
}

/// The tool's own diff for the job log: the preview's command with the job's own diff
/// program.
pub fn tool_diff(stack: &Stack, ctx: &Context<'_>) -> ToolDiff {
    let mut log = ToolLog::default();
    let result = (|| {
        let rendered = render(stack, ctx, &mut log)?;
        let argv = diff_argv(stack, &rendered.set.path(), false);
        let outcome = ctx.invoke(argv, &stack.dir, &[], Some(ctx.time_limit));
        let ran = accept(outcome, &[0, 1], minutes(ctx.time_limit), &mut log)?;
        let text = strip_ansi_escapes::strip(&ran.stdout);
        Ok(ToolDiffText::new(
            String::from_utf8_lossy(&text).into_owned(),
        ))
    })();
    ToolDiff { result, log }
}

/// Deploys exactly the set a preview kept: refuses a set of another stack or one whose
/// bytes changed; applies it, then deletes what pruning found, within `deploy-timeout`.
pub fn deploy(stack: &Stack, ctx: &Context<'_>, set: &RenderedSet) -> Deploy {
    let mut log = ToolLog::default();
    let result = (|| {
        if set.stack() != &stack.id || !set.is_unchanged() {
            log.note(format!(
                "The rendered set of {} changed after its preview. Nothing was deployed.",
                stack.id
            ));
            return Err(Failure::new(FailureReason::ChangedSincePreview));
        }
        let mut args = strings(&["apply", "--server-side"]);
        args.extend(stack.options.target());
        args.extend(stack.options.applier());
        args.extend(["-f".to_owned(), set.path().display().to_string()]);
        let outcome = ctx.invoke_deploy(kubectl(args), &stack.dir, &[]);
        record_deploy_output(&outcome, &mut log);
        ctx.accept_deploy(outcome, &mut ToolLog::default())?;
        if let Some(prune) = set.prune_path() {
            let mut args = strings(&["delete"]);
            args.extend(stack.options.target());
            args.extend([
                "--ignore-not-found".to_owned(),
                "-f".to_owned(),
                prune.display().to_string(),
            ]);
            let outcome = ctx.invoke_deploy(kubectl(args), &stack.dir, &[]);
            record_deploy_output(&outcome, &mut log);
            ctx.accept_deploy(outcome, &mut ToolLog::default())?;
        }
        Ok(())
    })();
    Deploy { result, log }
}

/// A deploy's log is its whole output: apply prints only `kind/name serverside-applied`.
fn record_deploy_output(outcome: &Outcome, log: &mut ToolLog) {
    if let Outcome::Exited { stdout, stderr, .. } = outcome {
        log.push_output(stdout);
        log.push_output(stderr);
    }
}

/// Checks that kubectl is there and new enough. Run once per job, in the repository root.
pub fn check_version(ctx: &Context<'_>, repo_root: &Path) -> Result<Version, VersionError> {
    let argv = strings(&["kubectl", "version", "--client", "--output=json"]);
    match ctx.invoke(argv, repo_root, &[], Some(VERSION_TIME_LIMIT)) {
        Outcome::Exited {
            code: Some(0),
            stdout,
            ..
        } => {
            let found = version::client_version(&String::from_utf8_lossy(&stdout))
                .ok_or(VersionError::Unreadable { tool: "kubectl" })?;
            if found < FLOOR {
                Err(VersionError::TooOld {
                    tool: "kubectl",
                    found,
                    floor: FLOOR,
                })
            } else {
                Ok(found)
            }
        }
        Outcome::NotStarted { .. } => Err(VersionError::Missing {
            tool: "kubectl",
            floor: FLOOR,
        }),
        _ => Err(VersionError::Unreadable { tool: "kubectl" }),
    }
}
