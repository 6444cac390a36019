//! The scan: previews the stacks through the adapter seam and the pool, and brings the
//! dashboard up to date. The steps run in the order of the spec's scan algorithm: setup
//! and discovery, the scan plan, the first write that says a scan is running, the version
//! check once per tool, the preparations one at a time, the pool and its retry round, the
//! job log groups, then the one late write through the write loop, the summary, the
//! outputs and the result file. All slow work comes before the late write.
//!
//! A scan writes either to GitHub (the action) or into a folder (`scan --local`): the
//! same body, summary and result file either way.

mod after_merge;
pub mod attribution;
mod head_start;
mod local;
pub mod merge;
mod pages;
pub mod plan;
pub mod pool;
mod pull_request;
pub mod result_file;
pub mod rows;
mod runs;
pub mod sharded;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use jiff::Timestamp;
use sluiceway_core::claim::{Claimants, Claims};
use sluiceway_core::config::{self, ConfigProblem};
use sluiceway_core::discovery::root_module;
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::runner::Runner;
use sluiceway_core::stack::{Stack, StackId, Tool};
use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::preview_page::PageLinks;
use sluiceway_dashboard::reader::{self, ReadBody};
use sluiceway_dashboard::shipped::{self, Shipped};
use sluiceway_dashboard::view::{CostLine, Hint, Policed, View};
use sluiceway_dashboard::{body, summary};
use sluiceway_github::{GitHub, Issue};
use sluiceway_tools::adapter::{
    Adapter, Checked, Context, Deployed, Ensured, Preparation, Program, Step,
};
use sluiceway_tools::opentofu::plugin_cache;

use crate::base::Outcome;
use crate::base::checkout::Checkout;
use crate::base::env_files::StackEnvs;
use crate::base::identity;
use crate::base::policies::PolicySets;
use crate::base::printer::{Printer, Progress};
use crate::base::setup::{self, SetupError};
use crate::modes::dashboard_issue;
use crate::modes::inputs::Inputs;
use crate::modes::job::{Clock, Event, EventPullRequest, Job};
use crate::modes::notify::news::{self, News};
use crate::modes::notify::{self as notify, Notice, Notifier};
use crate::modes::outputs::Outputs;
use crate::modes::records::{Records, ShippedRange};
use crate::modes::resolve::Started;
use crate::modes::rewrite::freeze_hint;
use crate::modes::write_loop;
use plan::{Facts, ScanPlan};
use result_file::{ScanResult, StackResult, StackState};
use rows::{Found, Scanned};

/// What a scan runs with: the job, its inputs and the ports to the world.
pub struct Surroundings<'a> {
    pub job: &'a Job,
    pub inputs: &'a Inputs,
    pub runner: &'a dyn Runner,
    pub clock: &'a dyn Clock,
    /// Waits; tests pass one that returns at once.
    pub pause: &'a (dyn Fn(Duration) + Sync),
    /// The machine's cores, when it says.
    pub cores: Option<usize>,
    /// Hears each preview end: a person's scan shows it as it goes.
    pub progress: &'a dyn Progress,
    /// Tells the channels of the stacks newly pending or drifted.
    pub notifier: &'a Notifier<'a>,
}

/// Where the scan writes its dashboard.
pub enum Target<'a> {
    GitHub(&'a dyn GitHub),
    /// `scan --local`: files in this folder, no GitHub.
    Folder(&'a Path),
    /// A pull request's preview: pages on its head commit, no dashboard (decision 0101).
    PullRequest(&'a dyn GitHub, &'a EventPullRequest),
}

impl<'a> Target<'a> {
    /// The dashboard's GitHub: a pull request's preview never reads or writes it.
    fn dashboard(&self) -> Option<&'a dyn GitHub> {
        match self {
            Target::GitHub(github) => Some(*github),
            Target::Folder(_) | Target::PullRequest(..) => None,
        }
    }
}

/// Runs one scan; the deploys a merge started are handed back for apply (auto mode).
pub fn run(
    s: &Surroundings<'_>,
    target: Target<'_>,
    printer: &mut Printer,
) -> (Outcome, Vec<Started>) {
    let github = match &target {
        Target::GitHub(github) | Target::PullRequest(github, _) => Some(*github),
        Target::Folder(_) => None,
    };
    let mut outputs = Outputs::scan_defaults();
    let (outcome, started) = scan(s, &target, &mut outputs, printer);
    if let Some(github) = github {
        printer.say(&format!(
            "The scan made {} requests to the GitHub API.",
            github.requests_made()
        ));
    }
    if let Err(e) = outputs.write(s.job.output_file.as_deref()) {
        printer.say(&format!(
            "::warning::The step outputs could not be written: {e}"
        ));
    }
    (outcome, started)
}

fn scan(
    s: &Surroundings<'_>,
    target: &Target<'_>,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> (Outcome, Vec<Started>) {
    let github = target.dashboard();
    let checkout = Checkout::new(&s.job.workspace);
    let Some(setup) = read_setup(s.job, github, &checkout, printer) else {
        return (Outcome::Failed, Vec::new());
    };
    let opened = open(s, target, github, &setup, printer);
    let asked = Asked::from_plan(s.job, &setup, &opened.plan, opened.live.as_ref());
    let previews = preview(s, &checkout, &setup, &asked, printer);
    let finishing = Finishing {
        listed: opened.listed,
        full: opened.plan.is_full(),
        at: opened.at,
        previews,
        lost: None,
    };
    finish(s, target, &setup, finishing, outputs, printer)
}

/// Reads `sluiceway.yaml` and runs discovery; a problem is said as annotations and, when
/// the dashboard can be reached, under its scan line. `None` stops the step.
fn read_setup(
    job: &Job,
    github: Option<&dyn GitHub>,
    checkout: &Checkout,
    printer: &mut Printer,
) -> Option<setup::Setup> {
    match setup::read(checkout) {
        Ok(setup) => {
            for line in setup::unacted_annotations(&setup.config) {
                printer.say(&line);
            }
            Some(setup)
        }
        Err(SetupError::Unreadable(why)) => {
            printer.say(&format!("::error::{why}"));
            None
        }
        Err(SetupError::Problems(problems)) => {
            say_problems(&problems, printer);
            if let Some(github) = github {
                let hint = Hint::ConfigProblem { run: job.run_url() };
                say_under_the_scan_line(job, github, hint, printer);
            }
            None
        }
    }
}

/// What a scan knows before any tool runs: the issues its label lists (`None` when that
/// list failed; the late write asks again), the live body, the plan, and when it began.
struct Opened {
    listed: Option<Vec<Issue>>,
    live: Option<ReadBody>,
    plan: ScanPlan,
    at: Timestamp,
}

/// Finds the dashboard, plans the scan and says so, and makes the first write: the
/// dashboard says a scan is running (decision 0108).
fn open(
    s: &Surroundings<'_>,
    target: &Target<'_>,
    github: Option<&dyn GitHub>,
    setup: &setup::Setup,
    printer: &mut Printer,
) -> Opened {
    let label = &setup.config.settings.dashboard.label;
    let mut listed: Option<Vec<Issue>> = None;
    if let Some(github) = github {
        match dashboard_issue::find(github, label) {
            Ok(open) => listed = Some(open),
            Err(e) => printer.say(&format!("The dashboard could not be read: {e}")),
        }
    }
    let found_issue = listed.as_ref().and_then(|open| open.first());
    let live: Option<ReadBody> = found_issue.map(|issue| reader::read(&issue.body));

    let plan = match target {
        Target::PullRequest(pulls, pull) => plan_pull_request(*pulls, pull, setup),
        _ => plan_scan(s, github, setup, live.as_ref()),
    };
    printer.say(&plan.why);
    if !plan.unclaimed.is_empty() {
        printer.say("::group::Changed files no stack claims");
        for file in &plan.unclaimed {
            printer.say(file);
        }
        printer.say("A stack claims a file in its directory or matched by its `inputs`; `scan.unrelated` lists files that claim nothing and force nothing.");
        printer.say("::endgroup::");
    }

    let at = s.clock.now();
    // It starts from the body the list brought, and is read back like every write.
    if let (Some(github), Some(live), Some(issue)) = (github, live.as_ref(), found_issue) {
        let scanned = scanned(s, setup, plan.is_full(), at);
        if let Some(view) = rows::running(&scanned, live, at, &s.job.run_url()) {
            match body::render(&view) {
                Ok(running) => {
                    if let Err(e) =
                        write_loop::write_over(github, issue.number, issue.body.clone(), |_| {
                            running.clone()
                        })
                    {
                        printer.say(&format!(
                            "The dashboard could not say a scan is running: {e}"
                        ));
                    }
                }
                Err(e) => printer.say(&format!(
                    "The dashboard could not say a scan is running: {e}"
                )),
            }
        }
    }
    Opened {
        listed,
        live,
        plan,
        at,
    }
}

/// What the rows are drawn from before the late read: the scan's own facts, no record,
/// page or preview yet.
fn scanned<'a>(
    s: &Surroundings<'a>,
    setup: &'a setup::Setup,
    full: bool,
    at: Timestamp,
) -> Scanned<'a> {
    let config = &setup.config;
    let job = s.job;
    Scanned {
        config,
        discovery: &setup.discovery,
        open_records: &NO_STACKS,
        fresher_records: &NO_STACKS,
        trail: Vec::new(),
        failures: BTreeMap::new(),
        pages: BTreeMap::new(),
        attributions: BTreeMap::new(),
        full,
        sha: &job.sha,
        default_branch: job.default_branch.as_deref(),
        workflow_file: job.workflow_file.as_deref(),
        run: job.run_id,
        at,
        links: job.links(),
        job_url: job_url(s),
        hints: freeze_hint(&config.calendar, at).into_iter().collect(),
        version: identity::VERSION,
        histories: BTreeMap::new(),
        own_runs: BTreeMap::new(),
        merging: BTreeMap::new(),
        drift_not_checked: BTreeSet::new(),
        policies: BTreeMap::new(),
        costs: BTreeMap::new(),
        last_recorded: BTreeMap::new(),
        deployed_hashes: BTreeMap::new(),
        runs: Vec::new(),
        updates: None,
    }
}

static NO_STACKS: BTreeSet<StackId> = BTreeSet::new();

/// What the previews are asked to do: which stacks, which of them have their drift
/// checked, and whether the scan is full (a full scan reads each stack's own history).
pub struct Asked {
    pub stacks: BTreeSet<StackId>,
    pub drift: BTreeSet<StackId>,
    pub full: bool,
}

impl Asked {
    /// From the plan: drift checks run on scheduled and manual full scans, for the stacks
    /// that ask, and on every scan for the stacks whose live rows show drift or say it was
    /// not checked, so a push keeps a drift it cannot fix (ADR 0029).
    fn from_plan(
        job: &Job,
        setup: &setup::Setup,
        plan: &ScanPlan,
        live: Option<&ReadBody>,
    ) -> Asked {
        let drift_scan = plan.is_full() && matches!(job.event, Event::Schedule | Event::Dispatch);
        let drift_shown = |id: &StackId| {
            live.is_some_and(|live| {
                live.rows.iter().any(|r| {
                    r.facts.stack == id.as_str() && (r.facts.drift || r.facts.drift_check_failed)
                })
            })
        };
        let previewed = setup
            .discovery
            .stacks
            .iter()
            .filter(|st| plan.previews(&st.id));
        Asked {
            stacks: previewed.clone().map(|st| st.id.clone()).collect(),
            drift: previewed
                .filter(|st| st.settings.drift && (drift_scan || drift_shown(&st.id)))
                .map(|st| st.id.clone())
                .collect(),
            full: plan.is_full(),
        }
    }
}

/// What the previews found, with what the rows show beside each diff; `red` when a tool
/// could not be used or Sluiceway failed inside a preview.
#[derive(Default)]
pub struct Previews {
    pub found: BTreeMap<StackId, Found>,
    /// Each preview's tries and seconds.
    pub tries: BTreeMap<StackId, (u8, f64)>,
    pub drift_not_checked: BTreeSet<StackId>,
    pub policies: BTreeMap<StackId, Policed>,
    pub costs: BTreeMap<StackId, Option<CostLine>>,
    pub histories: BTreeMap<StackId, Vec<Deployed>>,
    /// The programs whose version check passed, for the updates previewed after a merge.
    pub checked: BTreeMap<Program, Checked>,
    pub red: bool,
}

/// Takes in a preparation's step: its log goes to the log group of every stack that
/// shares it, and a failure fails each of them.
fn prepared(
    preparation: &Preparation,
    sharing: &[&Adapter],
    step: Step<()>,
    found: &mut BTreeMap<StackId, Found>,
    logs: &mut BTreeMap<StackId, Vec<String>>,
    printer: &mut Printer,
) {
    for adapter in sharing {
        logs.entry(adapter.id().clone())
            .or_default()
            .extend(step.log.job_log_lines().iter().cloned());
    }
    if let Err(failure) = step.result {
        printer.say(&format!(
            "The preparation in {} failed: {}.",
            preparation.dir().display(),
            failure.reason
        ));
        for adapter in sharing {
            found.insert(adapter.id().clone(), Found::Failed(failure.clone()));
        }
    }
}

/// Runs the previews asked for: the env files, the version check once per program, the
/// preparations one at a time, backend creation, the pool and its retry round, each
/// stack's history on a full scan, then the job log groups.
fn preview(
    s: &Surroundings<'_>,
    checkout: &Checkout,
    setup: &setup::Setup,
    asked: &Asked,
    printer: &mut Printer,
) -> Previews {
    let config = &setup.config;
    let discovery = &setup.discovery;
    let mut out = Previews::default();
    let found = &mut out.found;
    let mut logs: BTreeMap<StackId, Vec<String>> = BTreeMap::new();
    // The stacks' own env files, read and masked before any tool runs (decision 0103).
    let previewed_stacks: Vec<&Stack> = discovery
        .stacks
        .iter()
        .filter(|st| asked.stacks.contains(&st.id))
        .collect();
    // Root modules' inits share a provider plugin cache when the workflow names none
    // (ADR 0038).
    let tool_env = if previewed_stacks
        .iter()
        .any(|st| matches!(st.tool, Tool::OpenTofu | Tool::Terraform))
    {
        let env = plugin_cache::shared(
            &s.job.tool_env,
            &s.job.runner_temp.join("sluiceway-plugin-cache"),
        );
        if let Some(folder) = env
            .get(plugin_cache::VAR)
            .filter(|_| !s.job.tool_env.contains_key(plugin_cache::VAR))
        {
            printer.say(&format!(
                "The workflow names no provider plugin cache; the inits share one in {folder}."
            ));
        }
        env
    } else {
        s.job.tool_env.clone()
    };
    let envs = StackEnvs::load(
        &s.job.workspace,
        &previewed_stacks,
        &tool_env,
        config.file.as_deref().unwrap_or(config::FILE_NAMES[0]),
        printer,
    );
    let mut adapters = Vec::new();
    for stack in previewed_stacks {
        if envs.of(&stack.id, &tool_env).is_err() {
            found.insert(
                stack.id.clone(),
                Found::Failed(Failure::new(FailureReason::EnvFileNotLoaded)),
            );
            continue;
        }
        match Adapter::for_stack(stack, &s.job.workspace) {
            Ok(adapter) => adapters.push(adapter),
            Err(unsupported) => {
                found.insert(stack.id.clone(), Found::Failed(unsupported.failure()));
            }
        }
    }
    // Each adapter's tool environment; every one loaded, the others failed above.
    let env_of = |adapter: &Adapter| envs.of(adapter.id(), &tool_env).unwrap_or(&tool_env);
    let env_source = |adapter: &Adapter| {
        discovery
            .stacks
            .iter()
            .find(|st| &st.id == adapter.id())
            .and_then(StackEnvs::source)
    };

    let scratch = s.job.runner_temp.clone();
    let ctx = Context {
        runner: s.runner,
        env: &tool_env,
        repository: &s.job.repository,
        scratch: &scratch,
        time_limit: s.inputs.preview_timeout,
        deploy_limit: None,
        values: &config.values,
    };

    // The version check, once per program at hand: each tool, and each wrapper in front
    // of one; the inits that need nothing it finds run beside it (ADR 0044).
    let programs: BTreeSet<Program> = adapters.iter().flat_map(Adapter::programs).collect();
    let mut ahead: Vec<head_start::Ahead<'_>> = Vec::new();
    for adapter in &adapters {
        if required_versions(adapter, setup, checkout).is_none_or(|found| !found.is_empty()) {
            continue;
        }
        for preparation in adapter.preparations() {
            let env_source = env_source(adapter);
            if preparation.joins_the_pool()
                && !ahead
                    .iter()
                    .any(|a| a.preparation == preparation && a.env_source == env_source)
            {
                ahead.push(head_start::Ahead {
                    preparation,
                    env_source,
                    env: env_of(adapter),
                });
            }
        }
    }
    let checks = head_start::check_versions(&programs, ahead, &ctx, &s.job.workspace);
    let mut ran_ahead = checks.ran;
    let mut unusable = BTreeSet::new();
    for (program, found) in checks.found {
        match found {
            Ok(found) => {
                printer.say(&format!("Using {program} {found}."));
                out.checked.insert(program, found);
            }
            Err(e) => {
                printer.say(&format!("::error::{e}"));
                unusable.insert(program);
                out.red = true;
            }
        }
    }
    for adapter in &mut adapters {
        if let Some(found) = out.checked.get(&Program::Tool(adapter.tool())) {
            adapter.learn(found);
        }
    }
    adapters.retain(|adapter| {
        match adapter
            .programs()
            .into_iter()
            .find(|p| unusable.contains(p))
        {
            Some(program) => {
                let failure = Failure::new(FailureReason::ToolUnusable {
                    tool: program.name().to_owned(),
                });
                found.insert(adapter.id().clone(), Found::Failed(failure));
                false
            }
            None => true,
        }
    });
    // A root module whose own `required_version` the runner's tool does not meet is
    // refused here, with both named, rather than left to fail in its init (issue 44).
    adapters.retain(
        |adapter| match version_not_met(adapter, setup, checkout, &out.checked) {
            Some(failure) => {
                found.insert(adapter.id().clone(), Found::Failed(failure));
                false
            }
            None => true,
        },
    );

    // Preparations, once for each env file among the stacks that share one; a failed one
    // fails only its own stacks. Inits join the pool; the others run first, one at a
    // time (ADR 0038).
    let shared_preparations = |adapters: &[Adapter], in_pool: bool| {
        let mut shared: BTreeMap<(Preparation, Option<&str>), Vec<usize>> = BTreeMap::new();
        for (at, adapter) in adapters.iter().enumerate() {
            for preparation in adapter.preparations() {
                if preparation.joins_the_pool() == in_pool {
                    shared
                        .entry((preparation, env_source(adapter)))
                        .or_default()
                        .push(at);
                }
            }
        }
        shared
    };
    for ((preparation, _), sharing) in shared_preparations(&adapters, false) {
        let sharing: Vec<&Adapter> = sharing.into_iter().map(|at| &adapters[at]).collect();
        // A CDKTF app that did not synthesize leaves its stacks nothing to init.
        if sharing
            .iter()
            .all(|adapter| matches!(found.get(adapter.id()), Some(Found::Failed(_))))
        {
            continue;
        }
        let step = preparation.run(&Context {
            env: env_of(sharing[0]),
            ..ctx
        });
        prepared(&preparation, &sharing, step, found, &mut logs, printer);
    }
    // Stacks whose entries ask to be made in their backends (decision 0107), one at a
    // time; a failure fails only that stack's preview.
    for adapter in &adapters {
        if found.contains_key(adapter.id()) {
            continue;
        }
        let Some(step) = adapter.ensure_in_backend(&Context {
            env: env_of(adapter),
            ..ctx
        }) else {
            continue;
        };
        let id = adapter.id().clone();
        logs.entry(id.clone())
            .or_default()
            .extend(step.log.job_log_lines().iter().cloned());
        match step.result {
            Ok(Ensured::Created) => printer.say(&format!(
                "{id}: made in its backend, which did not hold it."
            )),
            Ok(Ensured::AlreadyThere) => printer.say(&format!("{id}: its backend holds it.")),
            Err(failure) => {
                printer.say(&format!(
                    "{id}: it could not be made in its backend: {}.",
                    failure.reason
                ));
                found.insert(id, Found::Failed(failure));
            }
        }
    }
    adapters.retain(|a| !found.contains_key(a.id()));

    if !adapters.is_empty() {
        let size = pool::PoolSize::choose(s.inputs.concurrency, s.cores);
        printer.say(&size.sentence());
        // Each list of policies is read and compiled once; one that cannot be used is a
        // warning, and the rows it covers keep their boxes (decision 0106).
        let policy_sets = PolicySets::compile(
            checkout.root(),
            discovery.stacks.iter().map(|st| &st.settings),
        );
        for problem in policy_sets.problems(config.file.as_deref().unwrap_or(config::FILE_NAMES[0]))
        {
            printer.say(&format!(
                "::warning::{problem}. The stacks it covers keep their boxes, and their rows say nothing was checked."
            ));
        }
        let works: Vec<pool::Work<'_>> = adapters
            .iter()
            .map(|adapter| {
                let settings = discovery
                    .stacks
                    .iter()
                    .find(|st| &st.id == adapter.id())
                    .map(|st| &st.settings);
                pool::Work {
                    adapter,
                    env: env_of(adapter),
                    drift: asked.drift.contains(adapter.id()),
                    tool_diff: config.settings.scan.log_diff,
                    value_fingerprint: settings.is_none_or(|st| st.value_fingerprint),
                    policies: settings.and_then(|st| policy_sets.of(st)),
                    cost: settings.is_some_and(|st| st.cost.enabled),
                    time_limit: settings
                        .and_then(|st| st.preview_timeout_minutes)
                        .map_or(s.inputs.preview_timeout, |m| {
                            Duration::from_secs(u64::from(m) * 60)
                        }),
                }
            })
            .collect();
        // The inits, each before the previews of the stacks that share it.
        let in_pool = shared_preparations(&adapters, true);
        let mut preps: Vec<pool::Prep<'_>> = in_pool
            .iter()
            .map(|((preparation, _), before)| {
                let first = &adapters[before[0]];
                let found_version = out
                    .checked
                    .get(&Program::Tool(first.tool()))
                    .map(|checked| &checked.version);
                pool::Prep {
                    preparation,
                    env: env_of(first),
                    before: before.clone(),
                    beside_another: preparation.runs_beside_another(found_version),
                    ended: ran_ahead.remove(&(preparation.clone(), env_source(first))),
                }
            })
            .collect();
        let mut said = Vec::new();
        s.progress.begin(works.len());
        let pooled = pool::preview_all(
            &works,
            &mut preps,
            size.size,
            &ctx,
            s.pause,
            s.progress,
            &mut |line| said.push(line.to_owned()),
        );
        s.progress.end();
        for (((preparation, _), before), step) in in_pool.iter().zip(pooled.prepared) {
            let sharing: Vec<&Adapter> = before.iter().map(|&at| &adapters[at]).collect();
            prepared(preparation, &sharing, step, found, &mut logs, printer);
        }
        for line in said {
            printer.say(&line);
        }
        for (adapter, p) in adapters.iter().zip(pooled.previewed) {
            let Some(p) = p else { continue };
            let id = adapter.id().clone();
            let outcome = p.outcome();
            printer.say(&format!(
                "Previewed {id} in {:.1} s: {outcome}",
                p.took.as_secs_f64()
            ));
            if p.tries == 2
                && let Err(failure) = &p.result
                && failure.reason != FailureReason::Busy
            {
                printer.say(&format!(
                    "::warning::The preview of {id} failed twice: {}.",
                    failure.reason
                ));
            }
            if let Some(failure) = &p.drift_check {
                printer.say(&format!(
                    "::warning::The drift check of {id} failed: {}. Its row says drift not checked.",
                    failure.reason
                ));
                out.drift_not_checked.insert(id.clone());
            }
            if let Some(policed) = p.policed {
                out.policies.insert(id.clone(), policed);
            }
            match p.cost {
                Some(Ok(estimate)) => {
                    out.costs.insert(
                        id.clone(),
                        Some(CostLine {
                            currency: estimate.currency,
                            monthly: estimate.monthly,
                        }),
                    );
                }
                Some(Err(why)) => {
                    printer.say(&format!(
                        "::warning::Cost not estimated for {id}: {why}. Its row shows no cost line."
                    ));
                    out.costs.insert(id.clone(), None);
                }
                None => {}
            }
            logs.entry(id.clone()).or_default().extend(p.log);
            out.tries
                .insert(id.clone(), (p.tries, p.took.as_secs_f64()));
            found.insert(
                id,
                match p.result {
                    Ok(diff) => Found::Diff(diff),
                    Err(failure) => Found::Failed(failure),
                },
            );
        }
    }

    // A full scan reads each stack's own history, for the deploys made outside the
    // dashboard (decision 0073); one that cannot be read keeps its lines.
    let page_size = config.settings.dashboard.recently_deployed;
    if asked.full && page_size > 0 {
        for adapter in &adapters {
            let history_ctx = Context {
                env: env_of(adapter),
                ..ctx
            };
            let Some(step) = adapter.deploy_history(&history_ctx, page_size) else {
                continue;
            };
            let id = adapter.id().clone();
            match step.result {
                Ok(entries) => {
                    out.histories.insert(id, entries);
                }
                Err(failure) => {
                    printer.say(&format!(
                        "::warning::The history of {id} could not be read: {}. Its lines on the trail stay as they were.",
                        failure.reason
                    ));
                    printer.say(&format!("::group::[{id}] history"));
                    for line in step.log.job_log_lines() {
                        printer.say(line);
                    }
                    printer.say("::endgroup::");
                }
            }
        }
    }

    // Job log groups, in stack-id order; each previewed stack's diff in Sluiceway's words.
    for (id, result) in found.iter() {
        printer.say(&format!("::group::[{id}]"));
        match result {
            Found::Diff(diff) => {
                for change in &diff.changes {
                    printer.say(&change_line(change));
                }
                for change in diff.drift.iter().flatten() {
                    printer.say(&format!("drift: {}", change_line(change)));
                }
            }
            Found::Failed(failure) => {
                printer.say(&format!("The preview failed: {}.", failure.reason));
                for detail in &failure.detail {
                    printer.say(detail);
                }
            }
        }
        let log = logs.get(id).map(Vec::as_slice).unwrap_or_default();
        if log.is_empty() {
            printer.say(&format!("The tool wrote nothing for {id}."));
        }
        for line in log {
            printer.say(line);
        }
        printer.say("::endgroup::");
    }

    if found
        .values()
        .any(|f| matches!(f, Found::Failed(x) if x.reason == FailureReason::Internal))
    {
        // Only that stack's row says so; the job goes red after the write.
        printer.say("::error::Sluiceway failed inside a preview; the stack's row says so and the other stacks went on.");
        out.red = true;
    }
    out
}

/// What the late write is handed: the issues the label listed at the start, whether the
/// scan was full, when it began, what the previews found, and the shards that did not
/// report (a sharded scan's join, ADR 0037).
pub struct Finishing {
    pub listed: Option<Vec<Issue>>,
    pub full: bool,
    pub at: Timestamp,
    pub previews: Previews,
    pub lost: Option<Hint>,
}

/// The late write, the summary, the outputs and the result file.
fn finish(
    s: &Surroundings<'_>,
    target: &Target<'_>,
    setup: &setup::Setup,
    finishing: Finishing,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> (Outcome, Vec<Started>) {
    let github = target.dashboard();
    let config = &setup.config;
    let label = &config.settings.dashboard.label;
    let Finishing {
        listed,
        full,
        at,
        previews,
        lost,
    } = finishing;
    let found = &previews.found;
    let mut red = previews.red;
    let failed = found
        .values()
        .filter(|f| matches!(f, Found::Failed(x) if x.reason != FailureReason::Busy))
        .count();
    if found.len() > 1 && failed == found.len() {
        printer.say("::error::Every preview failed.");
        red = true;
    }
    let mut scanned = scanned(s, setup, full, at);
    scanned.hints.extend(lost);
    scanned.drift_not_checked = previews.drift_not_checked.clone();
    scanned.policies = previews.policies.clone();
    scanned.costs = previews.costs.clone();
    scanned.histories = previews.histories.clone();

    // The late write, and the deploys a merge started there.
    let mut started = Vec::new();
    let page_links = PageLinks {
        dashboard: format!(
            "{}/{}/issues?q={}",
            s.job.server,
            s.job.repository,
            form_urlencoded::byte_serialize(
                format!("is:issue is:open label:\"{label}\"").as_bytes()
            )
            .collect::<String>()
        ),
        summary: s.job.attempt_url(),
        job: job_url(s),
    };
    let late = Late {
        listed,
        page_links: &page_links,
        previewing: after_merge::Previewing {
            job: s.job,
            runner: s.runner,
            time_limit: s.inputs.preview_timeout,
            values: &config.values,
            checked: &previews.checked,
        },
    };
    let (written, dashboard_url, dashboard_changed) = match target {
        Target::GitHub(github) => {
            match write_github(*github, &scanned, found, s.job, late, printer) {
                Ok(LateWrite {
                    written,
                    url,
                    changed,
                    merged,
                    news,
                }) => {
                    red |= merged.red;
                    started = merged.started;
                    tell(s, &news, &url, &config.settings.notify.events, printer);
                    (written, Some(url), changed)
                }
                Err(why) => {
                    printer.say(&format!("::error::{why}"));
                    return (Outcome::Failed, Vec::new());
                }
            }
        }
        Target::PullRequest(pulls, pull) => {
            let view = rows::view(&scanned, found, None, &rows::NoTicks);
            let written =
                pull_request::write_pages(*pulls, pull, found, &page_links, &mut |line| {
                    printer.say(&line)
                });
            printer.say(&format!(
                "Pull request #{}: {written} of {} pages written on its head commit; nothing was written to the dashboard and nothing deploys.",
                pull.number,
                found.len()
            ));
            match body::render(&view) {
                Ok(text) => (Written { text, view }, None, false),
                Err(e) => {
                    printer.say(&format!("::error::The summary could not be written: {e}."));
                    return (Outcome::Failed, Vec::new());
                }
            }
        }
        Target::Folder(_) => {
            let view = rows::view(&scanned, found, None, &rows::NoTicks);
            match body::render(&view) {
                Ok(text) => (Written { text, view }, None, true),
                Err(e) => {
                    printer.say(&format!(
                        "::error::The dashboard could not be written: {e}."
                    ));
                    return (Outcome::Failed, Vec::new());
                }
            }
        }
    };

    let mut summary_text = summary::render(&written.view);
    if let Target::PullRequest(_, pull) = target {
        summary_text = format!(
            "## A preview of pull request #{}\n\nEach stack it touches has a page on its head commit. Nothing deploys from a pull request; after the merge, the dashboard shows the change.\n\n{summary_text}",
            pull.number
        );
    }
    crate::modes::outputs::add_to_summary(s.job, &summary_text, printer);

    let read = reader::read(&written.text);
    let count = |state: RowState, busy: bool| {
        read.rows
            .iter()
            .filter(|r| r.facts.state == Some(state) && r.facts.busy == busy)
            .count()
    };
    let result = ScanResult {
        version: 1,
        full,
        dashboard_url: dashboard_url.clone(),
        dashboard_changed,
        pending: count(RowState::Pending, false),
        preview_failed: count(RowState::PreviewFailed, false),
        in_sync: count(RowState::InSync, false),
        busy: count(RowState::PreviewFailed, true),
        github_requests: github.map_or(0, |g| g.requests_made()),
        stacks: stack_results(&setup.discovery.stacks, found, &previews.tries),
    };
    outputs.set_scan(&result);
    let result_dir = match target {
        Target::Folder(out) => out.to_path_buf(),
        Target::GitHub(_) | Target::PullRequest(..) => s.job.runner_temp.clone(),
    };
    match write_result(&result_dir, &result) {
        Ok(path) => outputs.set("result-file", path.display().to_string()),
        Err(e) => printer.say(&format!(
            "::warning::The result file could not be written: {e}"
        )),
    }
    if let Target::Folder(out) = target {
        match local::write(out, &written.text, &summary_text, &written.view) {
            Ok(written) => {
                // Where each file is; the page's path last, for a script to take.
                let result_path = out.join(result_file::FILE_NAME);
                let result_path = std::path::absolute(&result_path).unwrap_or(result_path);
                printer.say(&format!("The dashboard's body: {}", written.body.display()));
                printer.say(&format!("The job summary: {}", written.summary.display()));
                printer.say(&format!("The result file: {}", result_path.display()));
                printer.say("The dashboard as GitHub shows it:");
                printer.result(&format!("{}\n", written.page.display()));
            }
            Err(e) => {
                printer.say(&format!("::error::{e}"));
                return (Outcome::Failed, Vec::new());
            }
        }
    }
    if s.inputs.strict && result.preview_failed > 0 {
        printer.say("::error::A preview failed twice, and the strict input makes that red.");
        red = true;
    }
    outputs.set("matrix", Started::matrix(&started));
    (if red { Outcome::Failed } else { Outcome::Done }, started)
}

/// Tells the channels what the write brought, before anything can turn the scan red.
fn tell(
    s: &Surroundings<'_>,
    news: &News,
    dashboard: &str,
    events: &[notify::Event],
    printer: &mut Printer,
) {
    for (event, stacks) in [
        (notify::Event::Pending, &news.pending),
        (notify::Event::Drift, &news.drift),
    ] {
        if stacks.is_empty() {
            continue;
        }
        let notice = Notice {
            event,
            stacks: stacks.clone(),
            dashboard: Some(dashboard.to_owned()),
            run: Some(s.job.run_url()),
        };
        s.notifier.tell(&notice, events, printer);
    }
}

/// What the late write did: the body and where it is, whether it changed, the deploys
/// a merge started, and what is news since the scan began.
struct LateWrite {
    written: Written,
    url: String,
    changed: bool,
    merged: merge::Merged,
    news: News,
}

/// The body as written, and the view it was rendered from.
struct Written {
    text: String,
    view: View,
}

fn plan_scan(
    s: &Surroundings<'_>,
    github: Option<&dyn GitHub>,
    setup: &setup::Setup,
    live: Option<&ReadBody>,
) -> ScanPlan {
    let Some(github) = github else {
        return ScanPlan::local();
    };
    let stacks = &setup.discovery.stacks;
    let Some((claims, claimants)) = setup::claims(&setup.config, &setup.discovery) else {
        // The loader checked every glob, so this is Sluiceway's own doubt: fail open.
        return ScanPlan::fell_back("the stacks' globs could not be read");
    };
    plan::plan(
        &Facts {
            event: &s.job.event,
            stacks,
            claims: &claims,
            claimants: &claimants,
            live,
            merged: &s.job.merged_updates,
        },
        |base| {
            github
                .compare(base, &s.job.sha)
                .map_err(|e| format!("GitHub could not compare the commits ({e})"))
        },
    )
}

/// A pull request's plan: the stacks its files claim, from GitHub's compare of its base
/// and head.
fn plan_pull_request(
    github: &dyn GitHub,
    pull: &EventPullRequest,
    setup: &setup::Setup,
) -> ScanPlan {
    let stacks = &setup.discovery.stacks;
    let Some((claims, claimants)) = setup::claims(&setup.config, &setup.discovery) else {
        return ScanPlan {
            narrowed_to: None,
            why: format!(
                "Pull request #{}: the stacks' globs could not be read, so every stack is previewed.",
                pull.number
            ),
            unclaimed: Vec::new(),
        };
    };
    let compared = github
        .compare(&pull.base_sha, &pull.head_sha)
        .map_err(|e| format!("GitHub could not compare the commits: {e}"));
    pull_request::plan(pull, stacks, &claims, &claimants, compared)
}

/// What the late write takes from the scan's start: the issues the label listed, with
/// their bodies (`None` when that list failed), and where preview pages link.
struct Late<'a> {
    listed: Option<Vec<Issue>>,
    page_links: &'a PageLinks,
    /// How updates are previewed as after the merge, when `mergeAndDeploy.preview` asks.
    previewing: after_merge::Previewing<'a>,
}

/// The late read and write: find or make the issue, learn the open records and the
/// workflow's runs, write the pages and attribution of the rows that changed, build from
/// the live body in the write loop, and pin the issue when its read says it is not.
fn write_github(
    github: &dyn GitHub,
    scanned: &Scanned<'_>,
    found: &BTreeMap<StackId, Found>,
    job: &Job,
    late: Late<'_>,
    printer: &mut Printer,
) -> Result<LateWrite, String> {
    let dashboard = &scanned.config.settings.dashboard;
    let first = body::render(&rows::view(scanned, found, None, &rows::NoTicks))
        .map_err(|e| format!("The dashboard could not be written: {e}."))?;
    let open = match late.listed {
        Some(open) => open,
        None => dashboard_issue::find(github, &dashboard.label)
            .map_err(|e| format!("The dashboard could not be found or made: {e}."))?,
    };
    let at_start = open.first().map(|issue| reader::read(&issue.body));
    let ensured = dashboard_issue::ensure(github, dashboard, &first, open)
        .map_err(|e| format!("The dashboard could not be found or made: {e}."))?;
    let number = ensured.issue.number;
    let url = ensured.issue.html_url.clone();
    let records = Records::read(
        github,
        &scanned.discovery.stacks,
        &scanned.config.settings.record_writers,
    )
    .map_err(|e| {
        format!(
            "The deployment records could not be read, so the dashboard was left as it was: {e}."
        )
    })?;
    let open = records.open();
    let fresher = records.newer_than(scanned.at);
    let runs = runs::Seen::read(github, scanned.workflow_file, scanned.run);
    if let runs::Seen::Failed { why, .. } = &runs {
        printer.say(&format!(
            "The workflow's runs could not be read, so the dashboard does not say which wait for a runner or failed: {why}."
        ));
    }
    // A push to the default branch deploys the stacks that deploy on merge (decision
    // 0095), before the rows are drawn, so they say so.
    let mut merged = match job.merger() {
        Some(merger) => merge::open(job, github, scanned, found, &records, merger, printer),
        None => merge::Merged::default(),
    };
    // The scan after a tick merged an update hands its change to a deploy (decision 0054).
    let after = merge::after_updates(job, github, scanned, found, &records, printer);
    merged.started.extend(after.started);
    merged.rows.extend(after.rows);
    merged.red |= after.red;
    let run_url = |run: u64| scanned.links.run(run);
    let mut with_records = Scanned {
        open_records: &open,
        fresher_records: &fresher,
        trail: records.trail(run_url),
        failures: records.failure_lines(run_url),
        pages: BTreeMap::new(),
        attributions: BTreeMap::new(),
        hints: scanned.hints.clone(),
        links: scanned.links.clone(),
        job_url: scanned.job_url.clone(),
        histories: scanned.histories.clone(),
        own_runs: records.runs(),
        merging: merged.rows.clone(),
        drift_not_checked: scanned.drift_not_checked.clone(),
        policies: scanned.policies.clone(),
        costs: scanned.costs.clone(),
        last_recorded: records.last_recorded(),
        deployed_hashes: records.deployed_hashes(),
        runs: runs.others(),
        updates: waiting_to_merge(github, scanned, job, &late.previewing, printer),
        ..*scanned
    };
    // Rows drawn from the same inputs as the live ones are kept as they are (ADR 0029):
    // their pages and attribution are not asked for again.
    let kept = at_start
        .as_ref()
        .map(|live| rows::kept(&with_records, found, live))
        .unwrap_or_default();
    let changed: BTreeMap<StackId, Found> = found
        .iter()
        .filter(|(id, _)| !kept.contains(*id))
        .map(|(id, f)| (id.clone(), f.clone()))
        .collect();
    with_records.pages = pages::write(
        github,
        scanned.sha,
        &changed,
        &with_records.policies,
        late.page_links,
        &mut |line| printer.say(&line),
    );
    // What the trail's deploys shipped: carried from the live lines, walked for the
    // shown deploys that have none yet.
    let carried = at_start
        .as_ref()
        .map(|live| shipped::from_markers(&live.shipped))
        .unwrap_or_default();
    let shown = usize::try_from(dashboard.recently_deployed).unwrap_or(usize::MAX);
    let ranges: Vec<ShippedRange> = records
        .shipped_ranges()
        .into_iter()
        .filter(|range| {
            with_records
                .trail
                .iter()
                .take(shown)
                .any(|entry| entry.record == range.record)
                && !carried.contains_key(&range.record)
        })
        .collect();
    let mut walked = walk(github, scanned, &changed, &records, &ranges, printer);
    with_records.attributions = walked.attributions;
    for entry in &mut with_records.trail {
        entry.shipped = walked
            .shipped
            .remove(&entry.record)
            .or_else(|| carried.get(&entry.record).cloned());
    }
    let mut last: Option<Written> = None;
    let mut too_big = None;
    let written = write_loop::write(github, number, |from| {
        let live = reader::read(from);
        let view = rows::view(&with_records, found, Some(&live), &runs);
        match body::render(&view) {
            Ok(text) => {
                last = Some(Written {
                    text: text.clone(),
                    view,
                });
                text
            }
            Err(e) => {
                too_big = Some(e.to_string());
                from.to_owned()
            }
        }
    })
    .map_err(|e| format!("The dashboard could not be written: {e}."))?;
    if let Some(why) = too_big {
        return Err(format!("The dashboard could not be written: {why}."));
    }
    if let Some(why) = runs.needed_and_failed() {
        return Err(format!(
            "The workflow's runs could not be read, so a tick may be lost: {why}."
        ));
    }
    if written.over_an_edit {
        printer.say(&format!(
            "An edit landed on the dashboard (#{number}) between the read and the write, and the write went over it. The dashboard was written again on top of that edit."
        ));
    }
    if let dashboard_issue::Pin::Refused(why) =
        dashboard_issue::pin(github, dashboard, &ensured.issue, written.pinned)
    {
        printer.say(&format!(
            "::warning::The dashboard (#{number}) could not be pinned, so it is left unpinned: {why}. Unpin another issue, or set dashboard.pin to false."
        ));
    }
    let last = last.ok_or_else(|| "The dashboard could not be written.".to_owned())?;
    let changed = written.writes > 0 || ensured.how == dashboard_issue::How::Created;
    printer.say(&format!("The dashboard is {url}."));
    let news = news::between(at_start.as_ref(), &reader::read(&last.text));
    Ok(LateWrite {
        written: last,
        url,
        changed,
        merged,
        news,
    })
}

/// The updates waiting to merge (decisions 0054, 0081), when `mergeAndDeploy.authors`
/// names anyone and the dashboard deploys; `None` carries the live lines (the list was
/// not asked for, or could not be read, which is a warning: `pull-requests: read` alone
/// suffices).
fn waiting_to_merge(
    github: &dyn GitHub,
    scanned: &Scanned<'_>,
    job: &Job,
    previewing: &after_merge::Previewing<'_>,
    printer: &mut Printer,
) -> Option<sluiceway_dashboard::updates::Updates> {
    let settings = &scanned.config.settings;
    if settings.merge_and_deploy.authors.is_empty() {
        return Some(Default::default());
    }
    if !settings.deploys || settings.dashboard.read_only {
        return Some(Default::default());
    }
    let base = job.default_branch.as_deref().unwrap_or("main");
    match github.open_pull_requests(base) {
        Ok(pulls) => {
            let mut judged =
                crate::modes::updates::judge_all(&pulls, scanned.config, scanned.discovery, base);
            for line in judged.log_lines() {
                printer.say(&line);
            }
            // The oldest updates, each as it would be after the merge (decision 0071).
            if settings.merge_and_deploy.preview {
                for update in judged.listed.iter_mut().take(after_merge::MOST_PREVIEWED) {
                    let Some(pull) = pulls.iter().find(|p| p.number == update.number) else {
                        continue;
                    };
                    let stacks: Vec<&sluiceway_core::stack::Stack> = scanned
                        .discovery
                        .stacks
                        .iter()
                        .filter(|s| update.stacks.iter().any(|id| id == s.id.as_str()))
                        .collect();
                    update.after_merge =
                        after_merge::preview(previewing, github, pull, &stacks, printer);
                }
            }
            Some(judged.lines(settings.dashboard.redact))
        }
        Err(e) => {
            printer.say(&format!(
                "::warning::Open pull requests not read, so the updates waiting to merge are left as they were: {e}."
            ));
            None
        }
    }
}

/// What one walk of recent commits gives the late write: each pending stack's
/// attribution (decision 0026) and what each trail deploy shipped (decision 0072).
#[derive(Default)]
struct Walked {
    attributions: BTreeMap<StackId, sluiceway_dashboard::view::Attribution>,
    shipped: BTreeMap<u64, Shipped>,
}

/// Walks the commits once, for the pending stacks in `found` and the trail deploys in
/// `ranges`; with neither, nothing is asked. A failure leaves the lines out and is said
/// once; it never stops the scan.
fn walk(
    github: &dyn GitHub,
    scanned: &Scanned<'_>,
    found: &BTreeMap<StackId, Found>,
    records: &Records,
    ranges: &[ShippedRange],
    printer: &mut Printer,
) -> Walked {
    let stacks = &scanned.discovery.stacks;
    let pending: Vec<usize> = stacks
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(found.get(&s.id), Some(Found::Diff(d)) if !d.changes.is_empty()))
        .map(|(i, _)| i)
        .collect();
    if pending.is_empty() && ranges.is_empty() {
        return Walked::default();
    }
    let settings = &scanned.config.settings;
    let lookback = u16::try_from(settings.attribution.lookback).unwrap_or(u16::MAX);
    let commits = match github.recent_commits(scanned.sha, lookback) {
        Ok(commits) => commits,
        Err(e) => {
            printer.say(&format!("No row or trail line says who changed what: {e}."));
            return Walked::default();
        }
    };
    let default_branch = scanned.default_branch;
    let mut push_files = std::collections::HashMap::new();
    for sha in attribution::Walk::pushes(&commits, default_branch) {
        match github.commit_files(&sha) {
            Ok(files) => {
                let paths = files
                    .into_iter()
                    .flat_map(|f| std::iter::once(f.path).chain(f.previous_path))
                    .collect();
                push_files.insert(sha, paths);
            }
            Err(e) => printer.say(&format!(
                "The files of {sha} could not be read, so it counts as outside every stack: {e}."
            )),
        }
    }
    let (Ok(claims), Ok(claimants)) = (
        Claims::new(
            stacks,
            &settings.scan.unrelated,
            scanned.config.file.as_deref(),
        ),
        Claimants::new(stacks),
    ) else {
        return Walked::default();
    };
    let attributing = attribution::Attributing {
        walk: attribution::Walk {
            commits: &commits,
            push_files: &push_files,
            default_branch,
        },
        claims: &claims,
        claimants: &claimants,
        head: scanned.sha,
        repository_url: format!("{}/{}", scanned.links.server, scanned.links.repository),
    };
    let last_deploys = records.last_deploys();
    let last: BTreeMap<usize, String> = stacks
        .iter()
        .enumerate()
        .filter_map(|(i, s)| Some((i, last_deploys.get(&s.id)?.clone())))
        .collect();
    let index_of = |id: &StackId| stacks.iter().position(|s| &s.id == id);
    Walked {
        attributions: attribution::all(&attributing, &pending, &last)
            .into_iter()
            .map(|(i, a)| (stacks[i].id.clone(), a))
            .collect(),
        shipped: ranges
            .iter()
            .filter_map(|range| {
                let shipped = attribution::shipped(
                    &attributing,
                    index_of(&range.stack)?,
                    range.record,
                    &range.from,
                    &range.to,
                )?;
                Some((range.record, shipped))
            })
            .collect(),
    }
}

/// Writes the problems the way `check` does, as annotations the job page shows.
fn say_problems(problems: &[ConfigProblem], printer: &mut Printer) {
    for p in problems {
        printer.say(&format!(
            "::error file={},line={},col={}::{}",
            p.file, p.position.line, p.position.column, p
        ));
    }
    printer.say("The scan stopped before any tool ran: sluiceway.yaml or discovery has a problem.");
}

/// Writes one line under the scan line of the existing dashboard (the last run found a
/// problem in sluiceway.yaml, or failed before Sluiceway ran), every row carried as it is.
/// Adds one line under the scan line of the dashboard the configuration labels, every
/// row carried: for a run that cannot (or may not) go on.
pub(crate) fn say_under_the_scan_line(
    job: &Job,
    github: &dyn GitHub,
    hint: Hint,
    printer: &mut Printer,
) {
    let label = setup::configured_label(&Checkout::new(&job.workspace));
    let Some(number) = dashboard_issue::find(github, &label)
        .ok()
        .and_then(|open| open.first().map(|issue| issue.number))
    else {
        return;
    };
    let result = write_loop::write(github, number, |from| {
        let live = reader::read(from);
        rows::with_hint(&live, job.links(), hint.clone(), identity::VERSION)
            .and_then(|view| body::render(&view).ok())
            .unwrap_or_else(|| from.to_owned())
    });
    if let Err(e) = result {
        printer.say(&format!("The dashboard could not say so: {e}"));
    }
}

fn change_line(change: &sluiceway_core::diff::Change) -> String {
    let mut line = format!("{} {}", change.op.name(), change.address);
    if let Some(tracking) = change.tracking {
        line.push_str(&format!(" ({})", tracking.name()));
    }
    if !change.changed_keys.is_empty() {
        line.push_str(&format!(": {}", change.changed_keys.join(", ")));
    }
    if !change.replace_keys.is_empty() {
        line.push_str(&format!(
            " (replaced by {})",
            change.replace_keys.join(", ")
        ));
    }
    line
}

fn stack_results(
    stacks: &[sluiceway_core::stack::Stack],
    found: &BTreeMap<StackId, Found>,
    tries: &BTreeMap<StackId, (u8, f64)>,
) -> Vec<StackResult> {
    stacks
        .iter()
        .filter_map(|stack| {
            let result = found.get(&stack.id)?;
            let (tries, seconds) = tries.get(&stack.id).copied().unwrap_or((1, 0.0));
            let mut r = StackResult {
                stack: stack.id.to_string(),
                tool: stack.tool.name().to_owned(),
                state: StackState::InSync,
                hash: None,
                creates: 0,
                updates: 0,
                replaces: 0,
                deletes: 0,
                tracking: 0,
                drifted: None,
                reason: None,
                tries,
                seconds: (seconds * 1000.0).round() / 1000.0,
            };
            match result {
                Found::Diff(diff) => {
                    use sluiceway_core::diff::Op;
                    let n = |op: Op| diff.changes.iter().filter(|c| c.op == op).count();
                    r.creates = n(Op::Create);
                    r.updates = n(Op::Update);
                    r.replaces = n(Op::Replace);
                    r.deletes = n(Op::Delete);
                    r.tracking = diff
                        .changes
                        .iter()
                        .filter(|c| c.op == Op::None && c.tracking.is_some())
                        .count();
                    r.drifted = diff.drift.as_ref().map(Vec::len);
                    if !diff.changes.is_empty() {
                        r.state = StackState::Pending;
                        r.hash = Some(diff.hash());
                    } else if r.drifted.unwrap_or(0) > 0 {
                        r.state = StackState::Drift;
                        r.hash = Some(diff.hash());
                    }
                }
                Found::Failed(failure) => {
                    r.state = if failure.reason == FailureReason::Busy {
                        StackState::Busy
                    } else {
                        StackState::PreviewFailed
                    };
                    r.reason = Some(failure.reason.to_string());
                }
            }
            Some(r)
        })
        .collect()
}

fn write_result(dir: &Path, result: &ScanResult) -> std::io::Result<PathBuf> {
    let path = dir.join(result_file::FILE_NAME);
    let text = serde_json::to_string_pretty(result).map_err(std::io::Error::other)?;
    crate::base::files::write_whole(&path, format!("{text}\n").as_bytes())?;
    Ok(path)
}

/// The `required_version` settings of a plain root module (no wrapper: a CDKTF app's
/// module is written by its synth, a Terragrunt unit's lies elsewhere); `None` for any
/// other stack.
fn required_versions(
    adapter: &Adapter,
    setup: &setup::Setup,
    checkout: &Checkout,
) -> Option<Vec<root_module::RequiredVersion>> {
    let Adapter::RootModule(module) = adapter else {
        return None;
    };
    if module.wrapper.is_some() {
        return None;
    }
    let stack = setup
        .discovery
        .stacks
        .iter()
        .find(|st| &st.id == adapter.id())?;
    Some(root_module::required_versions(
        &setup.files,
        checkout,
        &stack.path,
    ))
}

/// The failure of a plain root module whose `required_version` the checked tool does
/// not meet; `None` when it meets every one, or one cannot be read.
fn version_not_met(
    adapter: &Adapter,
    setup: &setup::Setup,
    checkout: &Checkout,
    checked: &BTreeMap<Program, Checked>,
) -> Option<Failure> {
    let Adapter::RootModule(module) = adapter else {
        return None;
    };
    let found = checked.get(&Program::Tool(adapter.tool()))?.version;
    let unmet = required_versions(adapter, setup, checkout)?
        .into_iter()
        .find(|required| found.meets(&required.constraint) == Some(false))?;
    Some(Failure::with_detail(
        FailureReason::VersionNotMet {
            tool: module.binary.name().to_owned(),
            constraint: unmet.constraint,
            found: found.to_string(),
        },
        format!("{} line {} sets required_version", unmet.file, unmet.line),
    ))
}

/// Where a failure's `run` link points: the job's log when the job id is known, else
/// the attempt's summary (decision 0044).
fn job_url(s: &Surroundings<'_>) -> String {
    match s.inputs.job_id {
        Some(job) => format!("{}/job/{job}", s.job.run_url()),
        None => s.job.attempt_url(),
    }
}
