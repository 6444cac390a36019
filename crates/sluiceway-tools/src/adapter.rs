//! The adapter seam: the one way a mode asks any tool for anything.
//!
//! A mode holds an [`Adapter`] per stack and calls the same six steps whatever the tool
//! (version check, preparation, preview, drift check, tool diff, deploy), so the scan and
//! the apply never name a tool. The seam is a closed enum rather than a trait object:
//! what a preview keeps for its deploy (a saved plan, a rendered set) is private to the
//! adapter that made it, and [`Kept`] only goes back to that adapter.

use std::path::{Path, PathBuf};

use sluiceway_core::config::Wrapper;
use sluiceway_core::diff::{Change, Diff};
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::stack::{Stack, StackId, Tool, ToolOptions};

use crate::helm;
use crate::kubectl;
use crate::kubernetes::rendered_set::RenderedSet;
pub use crate::opentofu::cost::{Estimate, NotEstimated};
use crate::opentofu::{self, Binary, Launch, SavedPlan};
pub use crate::preview_document::PreviewDocument;
use crate::pulumi;
pub use crate::pulumi::Ensured;
pub use crate::pulumi::history::{DeployKind, Deployed};
use crate::tool_log::{ToolDiffText, ToolLog};
pub use crate::tool_run::{Asks, Checked, Context, VersionError};
use crate::version::Version;

/// One stack, as its tool's adapter drives it.
#[derive(Debug, Clone)]
pub enum Adapter {
    Kubectl(kubectl::Stack),
    RootModule(opentofu::Stack),
    Helm(helm::Stack),
    Pulumi(pulumi::Stack),
}

/// A stack no adapter of this version drives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported {
    pub tool: Tool,
    /// What is missing, in Sluiceway's words.
    pub what: &'static str,
}

impl Unsupported {
    pub fn failure(&self) -> Failure {
        Failure::new(FailureReason::NotSupported {
            what: self.what.to_owned(),
        })
    }
}

/// A preparation: a tool's set-up step for one directory, run once before the previews
/// of the stacks that need it. Stacks that share a directory share it. Preparations sort
/// by level first, so a chart's dependencies are built before the chart.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Preparation {
    level: usize,
    dir: PathBuf,
    step: Prepare,
}

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Prepare {
    /// `tofu init` / `terraform init` of a root module, directly or through Terragrunt.
    Init(Launch),
    /// `cdktf synth` of a CDKTF app, before the init of each of its stacks.
    Synth,
    /// `helm dependency build .` of a chart.
    DependencyBuild,
}

impl Preparation {
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether it runs in the scan's pool, beside previews of other stacks (ADR 0038): an
    /// init writes only its own module's folder and the plugin cache. A CDKTF synth and a
    /// chart's dependency build run before the pool, one at a time: both use caches of
    /// their own (npm's, Helm's repositories) that nothing proves safe to share.
    pub fn joins_the_pool(&self) -> bool {
        matches!(self.step, Prepare::Init(_))
    }

    /// Whether it may run while another preparation runs, given the version the job's
    /// check found of its tool: only an init straight through a tool that locks its
    /// plugin cache. An init through Terragrunt has Terragrunt's caches too.
    pub fn runs_beside_another(&self, found: Option<&Version>) -> bool {
        match self.step {
            Prepare::Init(Launch::Direct(binary)) => {
                found.is_some_and(|version| opentofu::plugin_cache::locked(binary, version))
            }
            _ => false,
        }
    }

    /// Runs it.
    pub fn run(&self, ctx: &Context<'_>) -> Step<()> {
        let (result, log) = match self.step {
            Prepare::Init(launch) => {
                let run = opentofu::prepare(&self.dir, launch, ctx);
                (run.result, run.log)
            }
            Prepare::Synth => {
                let run = opentofu::cdktf::synth(&self.dir, ctx);
                (run.result, run.log)
            }
            Prepare::DependencyBuild => {
                let run = helm::build_dependencies(&self.dir, ctx);
                (run.result, run.log)
            }
        };
        Step { result, log }
    }
}

/// A program whose version a job checks once before it runs it for any stack: a tool,
/// or a wrapper in front of one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Program {
    Tool(Tool),
    Cdktf,
    Terragrunt,
}

impl Program {
    pub fn name(self) -> &'static str {
        match self {
            Program::Tool(tool) => tool.name(),
            Program::Cdktf => "cdktf",
            Program::Terragrunt => "terragrunt",
        }
    }

    /// Checks the program is there and new enough, in the repository root.
    pub fn check_version(self, ctx: &Context<'_>, root: &Path) -> Result<Checked, VersionError> {
        match self {
            Program::Tool(Tool::Kubectl) => kubectl::check_version(ctx, root).map(Checked::from),
            Program::Tool(Tool::OpenTofu) => {
                opentofu::check_version(ctx, Binary::Tofu, root).map(Checked::from)
            }
            Program::Tool(Tool::Terraform) => {
                opentofu::check_version(ctx, Binary::Terraform, root).map(Checked::from)
            }
            Program::Tool(Tool::Helm) => helm::check_version(ctx, root),
            Program::Tool(Tool::Pulumi) => pulumi::check_version(ctx, root).map(Checked::from),
            Program::Cdktf => opentofu::cdktf::check_version(ctx, root).map(Checked::from),
            Program::Terragrunt => {
                opentofu::terragrunt::check_version(ctx, root).map(Checked::from)
            }
        }
    }
}

impl std::fmt::Display for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A step's result, with the tool's words for the job log.
#[derive(Debug)]
pub struct Step<T> {
    pub result: Result<T, Failure>,
    pub log: ToolLog,
}

/// What a preview found, and what it kept for a deploy or read for the policies when
/// asked.
#[derive(Debug)]
pub struct Previewed {
    pub diff: Diff,
    pub kept: Option<Kept>,
    pub document: Option<PreviewDocument>,
    /// What the change costs a month, when asked of a root module with changes.
    pub cost: Option<Result<Estimate, NotEstimated>>,
}

/// What a deploy applies as is: only the adapter that made it reads it, and it is
/// removed when dropped.
#[derive(Debug)]
pub struct Kept(KeptBy);

#[derive(Debug)]
enum KeptBy {
    RenderedSet(RenderedSet),
    Plan(SavedPlan),
    /// The render a Helm deploy is held to.
    Render(RenderedSet),
    /// Pulumi keeps no plan: its deploy runs the program again, held to the fresh
    /// preview's hash by the apply. This names the stack it was previewed for.
    Stack(StackId),
}

impl Adapter {
    /// The adapter of a discovered stack; `root` is the checkout's directory.
    pub fn for_stack(stack: &Stack, root: &Path) -> Result<Adapter, Unsupported> {
        let dir = if stack.path == "." {
            root.to_owned()
        } else {
            root.join(&stack.path)
        };
        match (&stack.tool, &stack.options) {
            (Tool::Kubectl, options) => {
                let options = kubectl::Options::of(options).ok_or(Unsupported {
                    tool: Tool::Kubectl,
                    what: "a kubectl stack without kubectl options",
                })?;
                Ok(Adapter::Kubectl(kubectl::Stack {
                    id: stack.id.clone(),
                    dir,
                    options,
                }))
            }
            (
                tool @ (Tool::OpenTofu | Tool::Terraform),
                ToolOptions::RootModule {
                    workspace,
                    var_files,
                    wrapper,
                },
            ) => {
                let wrapper = match (wrapper, &stack.name) {
                    (None, _) => None,
                    (Some(Wrapper::Terragrunt), _) => Some(opentofu::Wrapper::Terragrunt),
                    (Some(Wrapper::Cdktf), Some(name)) => Some(opentofu::Wrapper::Cdktf {
                        stack: name.clone(),
                    }),
                    (Some(Wrapper::Cdktf), None) => {
                        return Err(Unsupported {
                            tool: *tool,
                            what: "a CDKTF stack without the name of its stack in the app",
                        });
                    }
                };
                Ok(Adapter::RootModule(opentofu::Stack {
                    id: stack.id.clone(),
                    dir,
                    binary: if *tool == Tool::OpenTofu {
                        Binary::Tofu
                    } else {
                        Binary::Terraform
                    },
                    wrapper,
                    workspace: workspace.clone(),
                    var_files: var_files.clone(),
                }))
            }
            (Tool::Helm, options) => helm::Stack::of(stack.id.clone(), dir, options)
                .map(Adapter::Helm)
                .ok_or(Unsupported {
                    tool: Tool::Helm,
                    what: "a Helm stack without Helm options",
                }),
            (Tool::Pulumi, _) => match &stack.name {
                Some(name) => Ok(Adapter::Pulumi(pulumi::Stack {
                    id: stack.id.clone(),
                    dir,
                    name: name.clone(),
                    create_in_backend: stack.settings.create_in_backend,
                })),
                None => Err(Unsupported {
                    tool: Tool::Pulumi,
                    what: "a Pulumi stack without a stack name",
                }),
            },
            (tool, _) => Err(Unsupported {
                tool: *tool,
                what: "a root module without root-module options",
            }),
        }
    }

    pub fn id(&self) -> &StackId {
        match self {
            Adapter::Kubectl(stack) => &stack.id,
            Adapter::RootModule(stack) => &stack.id,
            Adapter::Helm(stack) => &stack.id,
            Adapter::Pulumi(stack) => &stack.id,
        }
    }

    /// The tool whose version is checked once per job for this stack.
    pub fn tool(&self) -> Tool {
        match self {
            Adapter::Kubectl(_) => Tool::Kubectl,
            Adapter::RootModule(stack) => match stack.binary {
                Binary::Tofu => Tool::OpenTofu,
                Binary::Terraform => Tool::Terraform,
            },
            Adapter::Helm(_) => Tool::Helm,
            Adapter::Pulumi(_) => Tool::Pulumi,
        }
    }

    /// The programs this stack's previews and deploys run: its tool, and the wrapper in
    /// front of it. A mode checks each one's version once per job.
    pub fn programs(&self) -> Vec<Program> {
        let tool = Program::Tool(self.tool());
        match self {
            Adapter::RootModule(stack) => match &stack.wrapper {
                Some(opentofu::Wrapper::Cdktf { .. }) => vec![tool, Program::Cdktf],
                Some(opentofu::Wrapper::Terragrunt) => vec![tool, Program::Terragrunt],
                None => vec![tool],
            },
            _ => vec![tool],
        }
    }

    /// Takes in what the version check of this stack's tool found: a Helm release is
    /// compared by helm-diff when the runner has it.
    pub fn learn(&mut self, checked: &Checked) {
        if let Adapter::Helm(stack) = self {
            stack.differ = if checked.plugin.is_some() {
                helm::Differ::Plugin
            } else {
                helm::Differ::Sluiceway
            };
        }
    }

    /// The preparations this stack needs before its preview, in the order they run. A
    /// CDKTF app is synthesized once, before the init of each of its stacks.
    pub fn preparations(&self) -> Vec<Preparation> {
        match self {
            Adapter::Kubectl(_) | Adapter::Pulumi(_) => Vec::new(),
            Adapter::RootModule(stack) => {
                let init = Preparation {
                    level: 0,
                    dir: stack.module_dir(),
                    step: Prepare::Init(stack.launch()),
                };
                match &stack.wrapper {
                    Some(opentofu::Wrapper::Cdktf { .. }) => vec![
                        Preparation {
                            level: 0,
                            dir: stack.dir.clone(),
                            step: Prepare::Synth,
                        },
                        Preparation { level: 1, ..init },
                    ],
                    _ => vec![init],
                }
            }
            Adapter::Helm(stack) => stack
                .chart_dir()
                .map(|dir| helm::charts::builds(&dir))
                .unwrap_or_default()
                .into_iter()
                .map(|build| Preparation {
                    level: build.level,
                    dir: build.dir,
                    step: Prepare::DependencyBuild,
                })
                .collect(),
        }
    }

    /// Makes the stack in its backend when the backend lacks it and its entry asks
    /// (`createInBackend`, decision 0107); `None` when there is nothing to ask. Only a
    /// scan calls it, once per job before the stack's first preview: a deploy of a stack
    /// that vanished fails its fresh preview instead.
    pub fn ensure_in_backend(&self, ctx: &Context<'_>) -> Option<Step<Ensured>> {
        match self {
            Adapter::Pulumi(stack) if stack.create_in_backend => {
                Some(pulumi::ensure_in_backend(stack, ctx))
            }
            _ => None,
        }
    }

    /// The deploys the tool's own history lists for this stack, newest first, at most
    /// `page_size` of its updates (decision 0073); `None` for tools whose history is not
    /// read. A full scan asks, to show deploys made outside the dashboard.
    pub fn deploy_history(&self, ctx: &Context<'_>, page_size: u32) -> Option<Step<Vec<Deployed>>> {
        match self {
            Adapter::Pulumi(stack) => Some(pulumi::history(stack, ctx, page_size)),
            _ => None,
        }
    }

    /// The names of the stacks this stack's project holds in its backend (decision
    /// 0074), asked in the project's directory; `None` for tools with no such list.
    pub fn list_in_backend(&self, ctx: &Context<'_>) -> Option<Step<Vec<String>>> {
        match self {
            Adapter::Pulumi(stack) => Some(pulumi::list_stacks(&stack.dir, ctx)),
            _ => None,
        }
    }

    /// Previews the stack, handing back what `asks` names besides the diff.
    pub fn preview(&self, ctx: &Context<'_>, asks: Asks) -> Step<Previewed> {
        let Asks { keep, document, .. } = asks;
        match self {
            Adapter::Kubectl(stack) => {
                let p = kubectl::preview(stack, ctx, keep, document);
                Step {
                    result: p.result.map(|r| Previewed {
                        diff: r.diff,
                        kept: r.set.map(|s| Kept(KeptBy::RenderedSet(s))),
                        document: r.document,
                        cost: None,
                    }),
                    log: p.log,
                }
            }
            Adapter::RootModule(stack) => {
                let p = opentofu::preview(stack, ctx, asks);
                Step {
                    result: p.result.map(|r| Previewed {
                        diff: r.diff,
                        kept: r.plan.map(|p| Kept(KeptBy::Plan(p))),
                        document: r.document,
                        cost: r.cost,
                    }),
                    log: p.log,
                }
            }
            Adapter::Helm(stack) => {
                let p = helm::preview(stack, ctx, keep, document);
                Step {
                    result: p.result.map(|r| Previewed {
                        diff: r.diff,
                        kept: r.render.map(|s| Kept(KeptBy::Render(s))),
                        document: r.document,
                        cost: None,
                    }),
                    log: p.log,
                }
            }
            Adapter::Pulumi(stack) => {
                let p = pulumi::preview(stack, ctx, document);
                Step {
                    result: p.result.map(|r| Previewed {
                        diff: r.diff,
                        kept: keep.then(|| Kept(KeptBy::Stack(stack.id.clone()))),
                        document: r.document,
                        cost: None,
                    }),
                    log: p.log,
                }
            }
        }
    }

    /// Looks for drift; `None` when this stack's tool has no drift check for it (an
    /// outside change then shows as a change on the row).
    pub fn detect_drift(&self, ctx: &Context<'_>) -> Option<Step<Vec<Change>>> {
        match self {
            Adapter::Kubectl(stack) => kubectl::detect_drift(stack, ctx).map(|d| Step {
                result: d.result,
                log: d.log,
            }),
            Adapter::RootModule(_) => None,
            Adapter::Helm(stack) => {
                let d = helm::detect_drift(stack, ctx);
                Some(Step {
                    result: d.result,
                    log: d.log,
                })
            }
            Adapter::Pulumi(stack) => Some(pulumi::detect_drift(stack, ctx)),
        }
    }

    /// The tool's own diff, values included: for the job log only.
    pub fn tool_diff(&self, ctx: &Context<'_>) -> Step<ToolDiffText> {
        let (result, log) = match self {
            Adapter::Kubectl(stack) => {
                let d = kubectl::tool_diff(stack, ctx);
                (d.result, d.log)
            }
            Adapter::RootModule(stack) => {
                let d = opentofu::tool_diff(stack, ctx);
                (d.result, d.log)
            }
            Adapter::Helm(stack) => {
                let d = helm::tool_diff(stack, ctx);
                (d.result, d.log)
            }
            Adapter::Pulumi(stack) => return pulumi::tool_diff(stack, ctx),
        };
        Step { result, log }
    }

    /// Deploys exactly what this stack's preview kept; `repair` when the tick also puts
    /// back drift. What another adapter kept is refused as changed since the preview.
    pub fn deploy(&self, ctx: &Context<'_>, kept: &Kept, repair: bool) -> Step<()> {
        let (result, log) = match (self, &kept.0) {
            (Adapter::Kubectl(stack), KeptBy::RenderedSet(set)) => {
                let d = kubectl::deploy(stack, ctx, set);
                (d.result, d.log)
            }
            (Adapter::RootModule(stack), KeptBy::Plan(plan)) => {
                let d = opentofu::deploy(stack, ctx, plan);
                (d.result, d.log)
            }
            (Adapter::Helm(stack), KeptBy::Render(render)) => {
                let d = helm::deploy(stack, ctx, render, repair);
                (d.result, d.log)
            }
            (Adapter::Pulumi(stack), KeptBy::Stack(id)) if *id == stack.id => {
                return pulumi::deploy(stack, ctx, repair);
            }
            _ => {
                let mut log = ToolLog::default();
                log.note(format!(
                    "What was kept for {} came from another tool. Nothing was deployed.",
                    self.id()
                ));
                (Err(Failure::new(FailureReason::ChangedSincePreview)), log)
            }
        };
        Step { result, log }
    }
}
