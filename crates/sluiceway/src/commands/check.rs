//! `sluiceway check`: whether a repository's setup is understood, from its files alone;
//! with `--backend`, also whether each Pulumi stack's backend holds it.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

use jiff::Timestamp;
use serde::Serialize;
use sluiceway_core::claim::{Claims, suggested_unrelated, unclaimed_by_directory};
use sluiceway_core::config::Position;
use sluiceway_core::config::{self, ConfigProblem, DeployTrigger};
use sluiceway_core::credentials::{self, Given};
use sluiceway_core::discovery::gitops::GitOps;
use sluiceway_core::discovery::{Verdict, root_module};
use sluiceway_core::identity;
use sluiceway_core::named::unclaimed_named_files;
use sluiceway_core::repo::{FileSource, RepoFiles};
use sluiceway_core::stack::{Origin, Stack, Tool, ToolOptions};
use sluiceway_core::workflow::{
    self,
    lint::{self, Finding, SluicewayJob},
    tool_setup,
};
use sluiceway_tools::version::Version;

use crate::base::Outcome;
use crate::base::checkout::Checkout;
use crate::base::env_files;
use crate::base::policies::PolicySets;
use crate::base::printer::Printer;
use crate::base::setup::{self, Setup, SetupError};
use crate::commands::backend_check::{self, BackendJson};

/// How many unclaimed files the report names per directory before counting the rest.
const NAMED_PER_DIRECTORY: usize = 20;

/// The `--json` document, version 1. Documented in docs/formats/check-json.md; keys are
/// only ever added.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    pub version: u32,
    pub valid: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<ProblemJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub setup: Option<SetupJson>,
    /// With `--backend`: what each Pulumi project's backend holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backend: Option<BackendJson>,
}

#[derive(Debug, Serialize)]
pub struct ProblemJson {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub key: String,
    pub message: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SetupJson {
    pub config_file: Option<String>,
    pub stacks: Vec<StackJson>,
    pub ignored: Vec<IgnoredJson>,
    pub idle_ignores: Vec<IdleIgnoreJson>,
    pub root_modules: Vec<RootModuleJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub root_modules_off: Option<String>,
    /// Top-level directory (`.` for the root) → unclaimed files in it.
    pub unclaimed: BTreeMap<String, Vec<String>>,
    pub suggested_unrelated: Vec<String>,
    pub named_unclaimed: Vec<NamedJson>,
    /// Trees a GitOps controller deploys, and the file that says so.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub gitops: Vec<GitOpsJson>,
    /// The workflow jobs that run this action, and the modes they run.
    pub workflows: Vec<WorkflowJobJson>,
    /// What the workflow files lack for those modes (decisions 0061, 0074).
    pub workflow_findings: Vec<FindingJson>,
    /// What each stack's tool needs to be given, by name (decision 0099).
    pub credentials: Vec<CredentialJson>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkflowJobJson {
    pub file: String,
    pub job: String,
    pub modes: Vec<String>,
    /// The job's `environment:` as written.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment: Option<String>,
    /// For a deploying job, what decides who may deploy (decision 0093's second file):
    /// `tick rule`, or `environment` when its reviewers may.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deploys_decided_by: Option<&'static str>,
}

#[derive(Debug, Serialize)]
pub struct FindingJson {
    pub file: String,
    pub line: usize,
    pub message: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CredentialJson {
    pub stack: String,
    /// What asks for it: `the hashicorp/aws provider`.
    pub what: String,
    pub file: String,
    /// The variables or login steps that give it, in words.
    pub given_by: String,
    /// Deploying jobs (`file: job`) where nothing gives it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_given_in: Vec<String>,
    /// Deploying jobs with a step that may load it (it writes `$GITHUB_ENV`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub may_be_given_in: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct GitOpsJson {
    pub path: String,
    /// `Flux` or `Argo CD`.
    pub controller: String,
    /// The first file that names the tree, as version 1 has always said.
    pub file: String,
    /// Every file that names it (issue 44: one tree, named once).
    pub files: Vec<String>,
    /// Those files for a sentence, with their verb: `a says`, `a and b say`.
    #[serde(skip)]
    pub said_by: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StackJson {
    pub id: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub tool: String,
    /// `cdktf` or `terragrunt`, when one stands in front of the tool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wrapper: Option<String>,
    pub environment: String,
    pub tick_rule: String,
    pub inputs: Vec<String>,
    pub depends_on: Vec<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub depends_on_auto: bool,
    /// With `dependsOn: auto`: how many stack references matched no stack, or several.
    #[serde(skip_serializing_if = "is_zero")]
    pub unresolved_references: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The controller that deploys the stack's directory too, and the file that says so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deployed_by: Option<GitOpsJson>,
    /// `deploy: on-merge`: a push to the default branch deploys it (decision 0095).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub deploys_on_merge: bool,
    /// Why the stack exists: `pulumi stack file`, `found root module` or `declared`.
    pub origin: String,
    pub evidence: String,
}

#[derive(Debug, Serialize)]
pub struct IgnoredJson {
    pub id: String,
    pub tool: String,
    pub glob: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct IdleIgnoreJson {
    pub glob: String,
    pub line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct RootModuleJson {
    pub dir: String,
    /// `found`, `left out` or `declared`.
    pub verdict: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    pub why: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NamedJson {
    pub stack: String,
    pub path: String,
    pub named_in: String,
    pub suggested_input: String,
}

/// Who the check speaks to: a person at a terminal (or a script, with `--json`), or a
/// job of GitHub Actions, which gets the report in its summary and each problem and
/// warning as an annotation on the file and line it is about (decisions 0042, 0061).
pub enum Voice<'a> {
    Terminal { json: bool },
    Action { summary: Option<&'a Path> },
}

/// A warning the check gives, at its place when it has one.
struct Warning {
    place: Option<(String, usize, usize)>,
    message: String,
}

/// The check of the repository at `repo`; `now` judges which freezes are over.
pub fn run(
    repo: &Path,
    voice: Voice<'_>,
    backend: bool,
    now: Timestamp,
    printer: &mut Printer,
) -> Outcome {
    let checkout = Checkout::new(repo);
    let mut warnings: Vec<Warning> = Vec::new();
    let report = match setup::read(&checkout) {
        Ok(setup) => match (report(&setup, &checkout), file_problems(&setup, &checkout)) {
            (Ok(_), problems) if !problems.is_empty() => invalid(problems),
            (Ok(mut report), _) => {
                let file = setup
                    .config
                    .file
                    .as_deref()
                    .unwrap_or(config::FILE_NAMES[0]);
                for unacted in &setup.config.unacted {
                    warnings.push(Warning {
                        place: Some((
                            file.to_owned(),
                            unacted.position.line,
                            unacted.position.column,
                        )),
                        message: unacted.warning(file),
                    });
                }
                for warning in &setup.config.warnings {
                    warnings.push(Warning {
                        place: Some((
                            warning.file.clone(),
                            warning.position.line,
                            warning.position.column,
                        )),
                        message: warning.to_string(),
                    });
                }
                // The merge method a tick on an update uses (decision 0064).
                if !setup.config.settings.merge_and_deploy.authors.is_empty()
                    && let Err(e) = sluiceway_core::renovate::method(&setup.files, &checkout)
                {
                    warnings.push(Warning {
                        place: Some((e.file.clone(), e.line, e.column)),
                        message: format!("{e}; a tick on an update merges nothing until it is"),
                    });
                }
                for freeze in setup.config.calendar.freezes_over(now) {
                    let Position { line, column } = freeze.position;
                    warnings.push(Warning {
                        place: Some((file.to_owned(), line, column)),
                        message: format!(
                            "{file}:{line}:{column}: the freeze from {} to {} is over, so it holds nothing any more; remove it",
                            freeze.from.strftime("%Y-%m-%dT%H:%M"),
                            freeze.to.strftime("%Y-%m-%dT%H:%M"),
                        ),
                    });
                }
                for message in merges_nobody_applies(&setup, &checkout) {
                    warnings.push(Warning {
                        place: None,
                        message,
                    });
                }
                if let Some(setup) = &report.setup {
                    for finding in &setup.workflow_findings {
                        warnings.push(Warning {
                            place: Some((finding.file.clone(), finding.line, 1)),
                            message: format!(
                                "{}:{}: {}",
                                finding.file, finding.line, finding.message
                            ),
                        });
                    }
                }
                if backend {
                    let mut log = Vec::new();
                    report.backend = Some(ask_backends(&setup, &checkout, &mut log));
                    for line in log {
                        printer.say(&line);
                    }
                }
                report
            }
            (Err(problem), _) => invalid(vec![problem]),
        },
        Err(SetupError::Problems(problems)) => invalid(problems),
        Err(SetupError::Unreadable(message)) => {
            printer.say(&format!("::error::{message}"));
            return Outcome::Failed;
        }
    };
    let in_action = matches!(voice, Voice::Action { .. });
    for warning in &warnings {
        match (&warning.place, in_action) {
            (Some((file, line, col)), true) => printer.say(&format!(
                "::warning file={file},line={line},col={col}::{}",
                warning.message
            )),
            _ => printer.say(&format!("warning: {}", warning.message)),
        }
    }
    for problem in &report.problems {
        let said = format!(
            "{}:{}:{}: {}{}",
            problem.file,
            problem.line,
            problem.column,
            key_prefix(&problem.key),
            problem.message
        );
        if in_action {
            printer.say(&format!(
                "::error file={},line={},col={}::{said}",
                problem.file, problem.line, problem.column
            ));
        } else if !matches!(voice, Voice::Terminal { json: true }) {
            printer.say(&said);
        }
    }
    let mut out = text(&report);
    if let Some(backend) = &report.backend {
        out.push_str(&backend_check::text(backend));
    }
    match voice {
        Voice::Terminal { json: true } => printer.result(&format!(
            "{}\n",
            serde_json::to_string_pretty(&report).unwrap_or_default()
        )),
        Voice::Terminal { json: false } if report.valid => printer.result(&out),
        Voice::Terminal { json: false } => {}
        Voice::Action { summary } => {
            printer.say(&out);
            if let Some(summary) = summary {
                let text = summary_text(&report, &out);
                if let Err(e) = crate::base::files::append(summary, &text) {
                    printer.say(&format!(
                        "::warning::The job summary could not be written: {e}"
                    ));
                }
            }
        }
    }
    if !report.valid {
        let count = report.problems.len();
        printer.say(&format!(
            "{}the setup is not valid: {count} problem{}",
            if in_action { "::error::" } else { "error: " },
            if count == 1 { "" } else { "s" }
        ));
    }
    if report.valid {
        Outcome::Done
    } else {
        Outcome::Failed
    }
}

/// The job summary of the action's check: a sentence, the problems when there are any,
/// and the whole report as the terminal shows it, folded.
fn summary_text(report: &CheckReport, text: &str) -> String {
    let mut out = String::from("## Sluiceway check\n\n");
    if report.valid {
        out.push_str("The setup is understood. The check reads files only: it cannot prove that previews will work.\n\n");
    } else {
        out.push_str("**The setup is not valid.** Each problem is also an annotation on its file and line.\n\n");
        for p in &report.problems {
            out.push_str(&format!(
                "- `{}:{}:{}` {}{}\n",
                p.file,
                p.line,
                p.column,
                key_prefix(&p.key),
                sluiceway_dashboard::escape::text(&p.message)
            ));
        }
        out.push('\n');
    }
    if !text.is_empty() {
        out.push_str("<details><summary>The whole report</summary>\n\n<pre>\n");
        for line in text.lines() {
            out.push_str(&sluiceway_dashboard::escape::text(line));
            out.push('\n');
        }
        out.push_str("</pre>\n\n</details>\n\n");
    }
    out
}

/// A warning at each workflow step that sets up a tool version a root module's own
/// `required_version` refuses (issue 44): the scan would fail that stack with the same
/// two facts, so check says so from the files first.
fn unmet_required_versions(
    stacks: &[Stack],
    setups: &[tool_setup::SetUpTool],
    files: &RepoFiles,
    checkout: &Checkout,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for stack in stacks {
        let binary = match (&stack.tool, &stack.options) {
            (Tool::OpenTofu, ToolOptions::RootModule { wrapper: None, .. }) => "tofu",
            (Tool::Terraform, ToolOptions::RootModule { wrapper: None, .. }) => "terraform",
            _ => continue,
        };
        let required = root_module::required_versions(files, checkout, &stack.path);
        for setup in setups.iter().filter(|s| s.binary == binary) {
            let Some(version) = Version::parse(&setup.version)
                .or_else(|| Version::parse(&format!("{}.0", setup.version)))
            else {
                continue;
            };
            for unmet in required
                .iter()
                .filter(|r| version.meets(&r.constraint) == Some(false))
            {
                findings.push(Finding {
                    file: setup.file.clone(),
                    line: setup.line,
                    message: format!(
                        "this step sets up {binary} {}, and {} requires {binary} {} ({} line {}), so its previews would fail",
                        setup.version, stack.id, unmet.constraint, unmet.file, unmet.line
                    ),
                });
            }
        }
    }
    findings
}

/// The repository's workflow files that run this action: their jobs, what they lack,
/// and each job's parsed text for the credentials it gives.
struct Workflows {
    jobs: Vec<SluicewayJob>,
    findings: Vec<Finding>,
    parsed: BTreeMap<String, serde_json::Value>,
    /// Every step of any workflow that sets up a tool at an exact version.
    setups: Vec<tool_setup::SetUpTool>,
}

impl Workflows {
    fn read(files: &RepoFiles, checkout: &Checkout, settings: lint::Settings) -> Workflows {
        let mut read = Workflows {
            jobs: Vec::new(),
            findings: Vec::new(),
            parsed: BTreeMap::new(),
            setups: Vec::new(),
        };
        for path in files
            .files_in(".github/workflows")
            .iter()
            .filter(|p| p.ends_with(".yml") || p.ends_with(".yaml"))
        {
            let path = format!(".github/workflows/{path}");
            let Some(text) = checkout.read_text(&path) else {
                continue;
            };
            read.setups.extend(tool_setup::set_up_tools(&path, &text));
            let (jobs, findings) = lint::lint(&path, &text, identity::REPOSITORY, settings);
            if !jobs.is_empty()
                && let Ok(document) = config::Document::parse(&text)
            {
                read.parsed.insert(path.clone(), document.value);
            }
            read.jobs.extend(jobs);
            read.findings.extend(findings);
        }
        read
    }

    /// The jobs that run a mode whose tool needs credentials.
    fn deploying(&self) -> impl Iterator<Item = &SluicewayJob> {
        self.jobs
            .iter()
            .filter(|j| j.modes.iter().any(|m| m != "check" && m != "settle"))
    }
}

fn credentials_json(
    discovery: &sluiceway_core::discovery::Discovery,
    files: &RepoFiles,
    checkout: &Checkout,
    workflows: &Workflows,
) -> Vec<CredentialJson> {
    let given: Vec<(String, Given)> = workflows
        .deploying()
        .filter_map(|job| {
            let parsed = workflows.parsed.get(&job.file)?;
            Some((
                format!("{}: {}", job.file, job.id),
                Given::of_job(parsed, &job.id),
            ))
        })
        .collect();
    credentials::needs(&discovery.stacks, files, checkout)
        .into_iter()
        .flat_map(|(stack, needs)| {
            let given = &given;
            needs.into_iter().map(move |need| {
                let missing = given.iter().filter(|(_, g)| !g.gives(&need.give));
                let (may, not): (Vec<_>, Vec<_>) = missing.partition(|(_, g)| g.may_load_more);
                CredentialJson {
                    stack: stack.clone(),
                    what: need.what,
                    file: need.file,
                    given_by: need.give.words(),
                    not_given_in: not.into_iter().map(|(job, _)| job.clone()).collect(),
                    may_be_given_in: may.into_iter().map(|(job, _)| job.clone()).collect(),
                }
            })
        })
        .collect()
}

/// The scan jobs of split workflows whose `matrix` no job reads, when a stack deploys on
/// merge (decision 0095): its record would be opened and nothing would deploy it.
fn merges_nobody_applies(setup: &Setup, checkout: &Checkout) -> Vec<String> {
    let on_merge: Vec<&str> = setup
        .discovery
        .stacks
        .iter()
        .filter(|s| s.settings.deploy == DeployTrigger::OnMerge)
        .map(|s| s.id.as_str())
        .collect();
    if on_merge.is_empty() {
        return Vec::new();
    }
    setup
        .files
        .files_under(".github/workflows")
        .filter(|p| p.ends_with(".yml") || p.ends_with(".yaml"))
        .filter_map(|path| {
            let text = std::fs::read_to_string(checkout.root().join(path)).ok()?;
            Some((path.to_owned(), text))
        })
        .flat_map(|(path, text)| {
            let stacks = on_merge.join(", ");
            workflow::scans_nobody_applies(&text, identity::REPOSITORY)
                .into_iter()
                .map(move |job| {
                    format!(
                        "{path}: the job {job} scans with `mode: scan`, and no job reads its `matrix` output, so {stacks} would open a record on merge that nothing deploys; add an apply job over `needs.{job}.outputs.matrix`, or use the auto mode"
                    )
                })
        })
        .collect()
}

/// The files `sluiceway.yaml` names that cannot be used, at the keys that name them: each
/// stack's own env file (decision 0103), which would fail that stack's preview, and the
/// policies (decision 0106), which would check nothing.
fn file_problems(setup: &Setup, checkout: &Checkout) -> Vec<ConfigProblem> {
    let file = setup
        .config
        .file
        .as_deref()
        .unwrap_or(config::FILE_NAMES[0]);
    let mut problems = env_file_problems(setup, checkout, file);
    problems.extend(
        PolicySets::compile(
            checkout.root(),
            setup.discovery.stacks.iter().map(|s| &s.settings),
        )
        .problems(file),
    );
    problems
}

fn env_file_problems(setup: &Setup, checkout: &Checkout, file: &str) -> Vec<ConfigProblem> {
    let mut problems: Vec<ConfigProblem> = setup
        .discovery
        .stacks
        .iter()
        .filter_map(|stack| {
            let setting = stack.settings.env_file.as_ref()?;
            let why = env_files::load(checkout.root(), &setting.path).err()?;
            Some(setting.problem(file, format!("the env file {why}")))
        })
        .collect();
    // Entries that make several stacks name one key once.
    problems.dedup_by(|a, b| a.key == b.key);
    problems
}

/// Asks the backends with the tools on this machine, with its environment but the
/// action's inputs, ten minutes per question.
fn ask_backends(setup: &Setup, checkout: &Checkout, log: &mut Vec<String>) -> BackendJson {
    let runner = sluiceway_tools::process::SystemRunner::default();
    let env: BTreeMap<String, String> = std::env::vars()
        .filter(|(name, _)| !name.starts_with("INPUT_"))
        .collect();
    let scratch = std::env::temp_dir();
    let ctx = sluiceway_tools::adapter::Context {
        runner: &runner,
        env: &env,
        repository: "",
        scratch: &scratch,
        time_limit: std::time::Duration::from_secs(600),
        deploy_limit: None,
        values: &setup.config.values,
    };
    backend_check::ask(&setup.config, &setup.discovery, checkout.root(), &ctx, log)
}

fn key_prefix(key: &str) -> String {
    if key.is_empty() {
        String::new()
    } else {
        format!("{key}: ")
    }
}

fn invalid(problems: Vec<ConfigProblem>) -> CheckReport {
    CheckReport {
        version: 1,
        valid: false,
        problems: problems
            .into_iter()
            .map(|p| ProblemJson {
                file: p.file,
                line: p.position.line,
                column: p.position.column,
                key: if p.key.0.is_empty() {
                    String::new()
                } else {
                    p.key.to_string()
                },
                message: p.message,
            })
            .collect(),
        setup: None,
        backend: None,
    }
}

fn report(setup: &Setup, checkout: &Checkout) -> Result<CheckReport, ConfigProblem> {
    let Setup {
        config,
        files,
        discovery,
    } = setup;
    let claims = Claims::new(
        &discovery.stacks,
        &config.settings.scan.unrelated,
        config.file.as_deref(),
    )
    .map_err(|e| ConfigProblem {
        file: config.file.clone().unwrap_or_default(),
        position: Default::default(),
        key: Default::default(),
        message: e.to_string(),
    })?;
    let unclaimed = unclaimed_by_directory(files, &claims);
    let suggested = suggested_unrelated(&unclaimed, &config.settings.scan.unrelated);
    let named = unclaimed_named_files(&discovery.stacks, files, checkout);
    let gitops = GitOps::read(files, checkout);
    let mut workflows = Workflows::read(
        files,
        checkout,
        lint::Settings {
            merges: !config.settings.merge_and_deploy.authors.is_empty(),
            read_only: config.settings.dashboard.read_only,
        },
    );
    let unmet = unmet_required_versions(&discovery.stacks, &workflows.setups, files, checkout);
    workflows.findings.extend(unmet);
    let tree_json = |tree: &sluiceway_core::discovery::gitops::Tree| GitOpsJson {
        path: tree.path.clone(),
        controller: tree.controller.name().to_owned(),
        file: tree.files.first().cloned().unwrap_or_default(),
        files: tree.files.clone(),
        said_by: format!("{} {}", tree.said_by(), tree.verb()),
    };
    Ok(CheckReport {
        version: 1,
        valid: true,
        problems: Vec::new(),
        setup: Some(SetupJson {
            config_file: config.file.clone(),
            stacks: discovery
                .stacks
                .iter()
                .map(|s| {
                    let unresolved = discovery.unresolved_references.get(&s.id);
                    StackJson {
                        deployed_by: gitops.deploying(&s.path).map(tree_json),
                        ..stack_json(s, unresolved.copied().unwrap_or(0))
                    }
                })
                .collect(),
            ignored: discovery
                .ignored
                .iter()
                .map(|i| IgnoredJson {
                    id: i.id.to_string(),
                    tool: i.tool.to_string(),
                    glob: i.glob.clone(),
                    reason: i.reason.clone(),
                })
                .collect(),
            idle_ignores: discovery
                .idle_ignores
                .iter()
                .map(|i| IdleIgnoreJson {
                    glob: i.glob.clone(),
                    line: i.position.line,
                    suggestion: i.suggestion.clone(),
                })
                .collect(),
            root_modules: discovery
                .root_modules
                .iter()
                .map(|(dir, verdict)| {
                    let (word, tool, why) = match verdict {
                        Verdict::Found { tool, evidence } => {
                            ("found", Some(tool.to_string()), evidence.clone())
                        }
                        Verdict::LeftOut(why) => ("left out", None, why.clone()),
                        Verdict::Declared => (
                            "declared",
                            None,
                            "a stacks entry with a tool declares it".to_owned(),
                        ),
                    };
                    RootModuleJson {
                        dir: dir.clone(),
                        verdict: word.to_owned(),
                        tool,
                        why,
                    }
                })
                .collect(),
            root_modules_off: discovery.root_modules_off.clone(),
            unclaimed,
            suggested_unrelated: suggested,
            named_unclaimed: named
                .into_iter()
                .map(|n| NamedJson {
                    stack: n.stack.to_string(),
                    path: n.path,
                    named_in: n.named_in,
                    suggested_input: n.suggested_input,
                })
                .collect(),
            gitops: gitops.trees.iter().map(tree_json).collect(),
            workflows: workflows
                .jobs
                .iter()
                .map(|j| WorkflowJobJson {
                    file: j.file.clone(),
                    job: j.id.clone(),
                    modes: j.modes.clone(),
                    environment: j.environment.clone(),
                    deploys_decided_by: j.deploys().then_some(if j.environment.is_some() {
                        "environment"
                    } else {
                        "tick rule"
                    }),
                })
                .collect(),
            workflow_findings: workflows
                .findings
                .iter()
                .map(|f| FindingJson {
                    file: f.file.clone(),
                    line: f.line,
                    message: f.message.clone(),
                })
                .collect(),
            credentials: credentials_json(discovery, files, checkout, &workflows),
        }),
        backend: None,
    })
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

fn stack_json(stack: &Stack, unresolved_references: usize) -> StackJson {
    let (origin, evidence) = match &stack.origin {
        Origin::PulumiStackFile(file) => ("pulumi stack file", file.clone()),
        Origin::FoundRootModule(evidence) => ("found root module", evidence.clone()),
        Origin::Declared(index) => ("declared", format!("stacks[{index}]")),
    };
    StackJson {
        id: stack.id.to_string(),
        path: stack.path.clone(),
        name: stack.name.clone(),
        tool: stack.tool.to_string(),
        wrapper: match &stack.options {
            ToolOptions::RootModule {
                wrapper: Some(wrapper),
                ..
            } => Some(wrapper.name().to_owned()),
            _ => None,
        },
        environment: stack.settings.environment.clone(),
        tick_rule: stack.settings.tick_rule.to_string(),
        inputs: stack.settings.inputs.clone(),
        depends_on: stack
            .settings
            .depends_on
            .iter()
            .map(ToString::to_string)
            .collect(),
        depends_on_auto: stack.settings.depends_on_auto,
        unresolved_references,
        phase: stack.settings.phase.clone(),
        deployed_by: None,
        deploys_on_merge: stack.settings.deploy == DeployTrigger::OnMerge,
        origin: origin.to_owned(),
        evidence,
    }
}

/// The report a person reads.
fn text(report: &CheckReport) -> String {
    let Some(setup) = &report.setup else {
        return String::new();
    };
    let mut out = String::new();
    let w = &mut out;
    match &setup.config_file {
        Some(file) => writeln!(w, "{file} is valid.").ok(),
        None => writeln!(w, "No sluiceway.yaml: every setting is its default.").ok(),
    };
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    writeln!(w, "\nStacks ({}):", setup.stacks.len()).ok();
    if setup.stacks.is_empty() {
        writeln!(w, "  none found: Pulumi stacks and root modules are found from files; declare others under `stacks` with `tool:`").ok();
    }
    for stack in &setup.stacks {
        let through = stack
            .wrapper
            .as_ref()
            .map(|w| format!(" through {w}"))
            .unwrap_or_default();
        writeln!(
            w,
            "  {} ({}{through}, {}: {})",
            stack.id, stack.tool, stack.origin, stack.evidence
        )
        .ok();
        let mut facts = vec![
            format!("environment {}", stack.environment),
            format!("ticks: {}", stack.tick_rule),
        ];
        if !stack.inputs.is_empty() {
            facts.push(format!("inputs: {}", stack.inputs.join(", ")));
        }
        if stack.depends_on_auto {
            let on = if stack.depends_on.is_empty() {
                "nothing".to_owned()
            } else {
                stack.depends_on.join(", ")
            };
            let mut fact = format!("depends on: {on} (from its stack references)");
            if stack.unresolved_references > 0 {
                fact.push_str(&format!(
                    "; {} of its references name no stack here, or several",
                    stack.unresolved_references
                ));
            }
            facts.push(fact);
        } else if !stack.depends_on.is_empty() {
            facts.push(format!("depends on: {}", stack.depends_on.join(", ")));
        }
        if let Some(phase) = &stack.phase {
            facts.push(format!("phase {phase}"));
        }
        if stack.deploys_on_merge {
            facts.push("deploys on merge".to_owned());
        }
        if let Some(by) = &stack.deployed_by {
            facts.push(format!(
                "also deployed by {}, as {}: two deployers of one tree undo each other",
                by.controller, by.said_by
            ));
        }
        writeln!(w, "    {}", facts.join(" · ")).ok();
    }
    if !setup.gitops.is_empty() {
        writeln!(
            w,
            "\nDeployed by a GitOps controller ({}), so not stacks unless declared:",
            plural(setup.gitops.len(), "tree")
        )
        .ok();
        for tree in &setup.gitops {
            writeln!(
                w,
                "  {}: {}, as {}",
                tree.path, tree.controller, tree.said_by
            )
            .ok();
        }
    }
    if !setup.ignored.is_empty() {
        writeln!(w, "\nLeft out by ignore ({}):", setup.ignored.len()).ok();
        for ignored in &setup.ignored {
            let reason = ignored
                .reason
                .as_ref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default();
            writeln!(
                w,
                "  {} ({}), by \"{}\"{reason}",
                ignored.id, ignored.tool, ignored.glob
            )
            .ok();
        }
    }
    if !setup.idle_ignores.is_empty() {
        writeln!(w, "\nIgnore globs that match no stack:").ok();
        for idle in &setup.idle_ignores {
            let hint = idle
                .suggestion
                .as_ref()
                .map(|s| format!("; did you mean \"{s}\"?"))
                .unwrap_or_default();
            writeln!(w, "  \"{}\" (line {}){hint}", idle.glob, idle.line).ok();
        }
    }
    if let Some(off) = &setup.root_modules_off {
        writeln!(w, "\nRoot modules: {off}.").ok();
    } else if !setup.root_modules.is_empty() {
        writeln!(w, "\nRoot modules (directories of .tf and .tofu files):").ok();
        for module in &setup.root_modules {
            let tool = module
                .tool
                .as_ref()
                .map(|t| format!(" as {t}"))
                .unwrap_or_default();
            writeln!(
                w,
                "  {}: {}{tool} ({})",
                module.dir, module.verdict, module.why
            )
            .ok();
        }
    }
    let unclaimed_count: usize = setup.unclaimed.values().map(Vec::len).sum();
    if unclaimed_count == 0 {
        writeln!(w, "\nEvery file is claimed by a stack or unrelated: a push previews only the stacks it touches.").ok();
    } else {
        writeln!(
            w,
            "\nUnclaimed files ({}): no stack claims them, so a push that changes one previews every stack.",
            plural(unclaimed_count, "file")
        )
        .ok();
        for (dir, files) in &setup.unclaimed {
            let label = if dir == "." {
                "(root):".to_owned()
            } else {
                format!("{dir}/:")
            };
            let shown: Vec<&str> = files
                .iter()
                .take(NAMED_PER_DIRECTORY)
                .map(String::as_str)
                .collect();
            let more = files.len().saturating_sub(NAMED_PER_DIRECTORY);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            writeln!(w, "  {label} {}{more}", shown.join(", ")).ok();
        }
        writeln!(
            w,
            "  Claim them with a stack's `inputs`, or mark them as `scan.unrelated`."
        )
        .ok();
        if !setup.suggested_unrelated.is_empty() {
            writeln!(
                w,
                "  A start for sluiceway.yaml:\n    scan:\n      unrelated:"
            )
            .ok();
            for glob in &setup.suggested_unrelated {
                writeln!(w, "        - \"{glob}\"").ok();
            }
        }
    }
    if !setup.named_unclaimed.is_empty() {
        writeln!(
            w,
            "\nFiles a stack reads but does not claim (a change there would not preview it):"
        )
        .ok();
        for named in &setup.named_unclaimed {
            writeln!(
                w,
                "  {}: {} (named in {}); add to its inputs: \"{}\"",
                named.stack, named.path, named.named_in, named.suggested_input
            )
            .ok();
        }
    }
    if !setup.workflows.is_empty() {
        writeln!(w, "\nWorkflows that run Sluiceway:").ok();
        for job in &setup.workflows {
            writeln!(
                w,
                "  {}: job {} ({})",
                job.file,
                job.job,
                job.modes.join(", ")
            )
            .ok();
            // Where the real gate is, for a team that separates asking from deploying.
            match (job.deploys_decided_by, &job.environment) {
                (Some(_), Some(environment)) => writeln!(
                    w,
                    "    who may deploy: the environment {environment}'s required reviewers, if it has any (the check cannot read them); the tick rule decides who may ask"
                )
                .ok(),
                (Some(_), None) => writeln!(
                    w,
                    "    who may deploy: the tick rule alone (the job names no environment)"
                )
                .ok(),
                (None, _) => None,
            };
        }
    }
    if !setup.credentials.is_empty() {
        writeln!(
            w,
            "\nCredentials each stack's tool needs (names only; the check reads no value):"
        )
        .ok();
        for need in &setup.credentials {
            writeln!(
                w,
                "  {}: {} ({}): {}",
                need.stack, need.what, need.file, need.given_by
            )
            .ok();
            for job in &need.not_given_in {
                writeln!(w, "    nothing in {job} gives it").ok();
            }
            for job in &need.may_be_given_in {
                writeln!(w, "    {job} may load it (a step writes $GITHUB_ENV)").ok();
            }
        }
    }
    writeln!(
        w,
        "\nThis check reads files only: it cannot prove that previews will work."
    )
    .ok();
    out
}
