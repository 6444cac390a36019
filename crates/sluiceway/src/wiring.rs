//! The edge where the modes meet the real world: the process environment, the event
//! payload, the machine's runner, clock and cores, and GitHub over HTTP. Everything
//! below takes these as ports.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use sluiceway_dashboard::view::Hint;
use sluiceway_github::{GitHub, HttpGitHub};
use sluiceway_tools::process::SystemRunner;

use crate::base::Outcome;
use crate::base::env_files;
use crate::base::printer::{Audience, ForAPerson, Printer, Progress, Quiet};
use crate::modes::apply::Applying;
use crate::modes::inputs::{Inputs, JobStatus, Mode};
use crate::modes::job::{Clock, Job, Reach, SystemClock};
use crate::modes::notify::Notifier;
use crate::modes::notify::channels::Channel;
use crate::modes::notify::post::HttpPost;
use crate::modes::outputs::Outputs;
use crate::modes::resolve::Started;
use crate::modes::scan::{self, Surroundings, Target};
use crate::modes::{self, NoRun, Route};

fn environment() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

fn cores() -> Option<usize> {
    std::thread::available_parallelism().ok().map(usize::from)
}

fn pause(time: Duration) {
    std::thread::sleep(time);
}

/// `sluiceway run` (mode from the input) and `sluiceway scan` (mode given).
pub(crate) fn action(mode: Option<Mode>, printer: &mut Printer) -> Outcome {
    let env = environment();
    let inputs = match Inputs::read(&env) {
        Ok(inputs) => inputs,
        Err(e) => {
            printer.say(&format!("::error::{e}."));
            return Outcome::Failed;
        }
    };
    // The channels' secrets are masked before anything else can print them.
    for secret in inputs.channels.iter().flat_map(Channel::secrets) {
        printer.say(&format!("::add-mask::{secret}"));
    }
    let payload = env
        .get("GITHUB_EVENT_PATH")
        .and_then(|path| std::fs::read_to_string(path).ok());
    let mut job = Job::from_env(&env, payload.as_deref());
    let mut inputs = inputs;
    if let Some(mode) = mode {
        inputs.mode = mode;
    }
    let route = match modes::route(&inputs, &job) {
        Ok(route) => route,
        Err(NoRun::Notice(why)) => {
            printer.say(&format!("::notice::{why}"));
            return Outcome::Done;
        }
        Err(NoRun::Refuse(why)) => {
            printer.say(&format!("::error::{why}."));
            return Outcome::Failed;
        }
    };
    if !runs_a_tool(&route, &inputs) {
        if inputs.env_file.is_some() {
            // As the reference does: a step that runs no tool has no use for the file,
            // and a workflow that passes it to every step should not go red for it.
            printer.say("::warning::The env-file input is for steps that run a tool, and this step runs none, so the file was not read.");
        }
    } else if let Err(why) = load_env_file(&inputs, &mut job, printer) {
        printer.say(&format!("::error::{why}"));
        return Outcome::Failed;
    }
    let dashboard_route = !matches!(
        route,
        Route::Settle | Route::Check { .. } | Route::Shard { .. }
    );
    if inputs.job_status == JobStatus::Cancelled && dashboard_route {
        // A person (or a newer run) stopped the job: that is not a failure to show on
        // the dashboard. The post step still settles what the job left open.
        printer.say("::notice::The job was cancelled before this step, so Sluiceway did nothing.");
        return Outcome::Done;
    }
    if let Route::Check { preview } = route {
        // The check needs no token; a pull request's preview after it does.
        let checked = check_step(&job, &inputs, printer);
        if !preview || checked == Outcome::Failed {
            return checked;
        }
    }
    let github = match HttpGitHub::from_action(|name| env.get(name).cloned()) {
        Ok(github) => github,
        Err(e) => {
            printer.say(&format!("::error::{e}."));
            return Outcome::Failed;
        }
    };
    if inputs.job_status == JobStatus::Failure && dashboard_route {
        // An earlier step failed: nothing deploys, nothing is previewed, and the
        // dashboard says so. Settle still ends what a cancelled run left open.
        let hint = Hint::RunFailed { run: job.run_url() };
        scan::say_under_the_scan_line(&job, &github, hint, printer);
        printer.say("An earlier step of this job did not succeed, so Sluiceway deployed and previewed nothing; the dashboard says so.");
        if let Err(e) = Outputs::scan_defaults().write(job.output_file.as_deref()) {
            printer.say(&format!(
                "::warning::The step outputs could not be written: {e}"
            ));
        }
        return Outcome::Done;
    }
    if route == Route::Settle && !inputs.channels.is_empty() {
        printer.say("::warning::A notification channel is set on a settle step, which sends no notifications; set it on the steps that scan, resolve or apply.");
    }
    let runner = SystemRunner::default();
    let post = HttpPost::new();
    let notifier = Notifier::new(inputs.channels.clone(), &post, &job.repository);
    let mut outputs = Outputs::default();
    let applying = Applying {
        job: &job,
        inputs: &inputs,
        runner: &runner,
        clock: &SystemClock,
        notifier: &notifier,
    };
    let sweep = route == Route::Sweep;
    let outcome = match route {
        Route::Scan => {
            let (scanned, merged) =
                scan_on_this_machine(&job, &inputs, Target::GitHub(&github), &notifier, printer);
            // A split workflow's apply jobs take the merge's deploys from `matrix`.
            if inputs.mode != Mode::Auto || merged.is_empty() {
                return scanned;
            }
            modes::auto::deploy(&applying, &github, scanned, &merged, &mut outputs, printer)
        }
        Route::Resolve => {
            modes::resolve::run(
                &job,
                &github,
                &SystemClock,
                &notifier,
                false,
                &mut outputs,
                printer,
            )
            .0
        }
        Route::Apply(id) => modes::apply::run(&applying, &github, id, &mut outputs, printer),
        Route::Settle => modes::settle::run(&job, &github, &SystemClock, &mut outputs, printer),
        Route::Ticks | Route::Sweep => {
            modes::auto::ticks(&applying, &github, &mut outputs, printer)
        }
        Route::Plan { shards } => {
            let runner = SystemRunner::default();
            let s = surroundings(&job, &inputs, &runner, &Quiet, &notifier);
            scan::sharded::plan(&s, &github, shards, printer)
        }
        Route::Shard { shard, plan } => {
            let runner = SystemRunner::default();
            let s = surroundings(&job, &inputs, &runner, &Quiet, &notifier);
            scan::sharded::shard(&s, shard, &plan, printer)
        }
        Route::Join {
            plan,
            partial_results,
        } => {
            let runner = SystemRunner::default();
            let s = surroundings(&job, &inputs, &runner, &Quiet, &notifier);
            // A split workflow's apply jobs take the merge's deploys from `matrix`.
            scan::sharded::join(&s, &github, &plan, &partial_results, printer).0
        }
        Route::Check { .. } => match &job.pull_request {
            Some(pull) => {
                scan_on_this_machine(
                    &job,
                    &inputs,
                    Target::PullRequest(&github, pull),
                    &notifier,
                    printer,
                )
                .0
            }
            None => {
                printer.say("::error::The event's payload names no pull request.");
                Outcome::Failed
            }
        },
    };
    // The full scan after a schedule's or a dispatch's ticks; the deploys' outputs are
    // written after the scan's, so `matrix` names every deploy the step started.
    let outcome = if sweep {
        let (scanned, started) =
            scan_on_this_machine(&job, &inputs, Target::GitHub(&github), &notifier, printer);
        // The scan after a merge hands the merged stacks' changes to deploys, which the
        // auto mode applies in this run (a split workflow's apply jobs take `matrix`).
        let scanned = if inputs.mode == Mode::Auto && !started.is_empty() {
            modes::auto::deploy(&applying, &github, scanned, &started, &mut outputs, printer)
        } else {
            scanned
        };
        if scanned == Outcome::Failed {
            Outcome::Failed
        } else {
            outcome
        }
    } else {
        outcome
    };
    printer.say(&format!(
        "This run made {} requests to the GitHub API.",
        github.requests_made()
    ));
    if let Err(e) = outputs.write(job.output_file.as_deref()) {
        printer.say(&format!(
            "::warning::The step outputs could not be written: {e}"
        ));
    }
    outcome
}

/// Whether the route runs a tool, and so has a use for the `env-file` input: resolve and
/// settle never do, nor does a check that neither asks the backends nor previews.
fn runs_a_tool(route: &Route, inputs: &Inputs) -> bool {
    match route {
        Route::Resolve | Route::Settle => false,
        Route::Check { preview } => *preview || inputs.backend,
        _ => true,
    }
}

/// The action's check mode: files only, so no token is read and no tool runs (decision
/// 0042); the report goes to the job summary and each problem onto its file and line.
fn check_step(job: &Job, inputs: &Inputs, printer: &mut Printer) -> Outcome {
    if !inputs.channels.is_empty() {
        printer.say(
            "::warning::A notification channel is set on a check step, which sends no notifications.",
        );
    }
    crate::commands::check::run(
        &job.workspace,
        crate::commands::check::Voice::Action {
            summary: job.summary_file.as_deref(),
        },
        inputs.backend,
        SystemClock.now(),
        printer,
    )
}

/// Loads the `env-file` input's variables into the tool's environment, masking every value
/// in the job log before anything else is printed.
fn load_env_file(inputs: &Inputs, job: &mut Job, printer: &mut Printer) -> Result<(), String> {
    let Some(file) = &inputs.env_file else {
        return Ok(());
    };
    let variables = env_files::load(&job.workspace, file).map_err(|e| match e {
        env_files::LoadError::Unreadable { kind, .. } => {
            format!("The env-file input's {file} could not be read: {kind}")
        }
        env_files::LoadError::Refused(e) => {
            format!("The env-file input's file is not NAME=value lines: {e}")
        }
    })?;
    env_files::announce(&variables, "The tool", file, printer);
    for variable in variables {
        job.tool_env.insert(variable.name, variable.value);
    }
    Ok(())
}

/// A scan with this machine's runner, clock and cores; the deploys a merge started.
fn scan_on_this_machine(
    job: &Job,
    inputs: &Inputs,
    target: Target<'_>,
    notifier: &Notifier<'_>,
    printer: &mut Printer,
) -> (Outcome, Vec<Started>) {
    scan_with_progress(job, inputs, target, &Quiet, notifier, printer)
}

fn scan_with_progress(
    job: &Job,
    inputs: &Inputs,
    target: Target<'_>,
    progress: &dyn Progress,
    notifier: &Notifier<'_>,
    printer: &mut Printer,
) -> (Outcome, Vec<Started>) {
    let runner = SystemRunner::default();
    let surroundings = surroundings(job, inputs, &runner, progress, notifier);
    scan::run(&surroundings, target, printer)
}

/// What a scan, or a step of a sharded one, runs with on this machine.
fn surroundings<'a>(
    job: &'a Job,
    inputs: &'a Inputs,
    runner: &'a SystemRunner,
    progress: &'a dyn Progress,
    notifier: &'a Notifier<'a>,
) -> Surroundings<'a> {
    Surroundings {
        job,
        inputs,
        runner,
        clock: &SystemClock,
        pause: &pause,
        cores: cores(),
        progress,
        notifier,
    }
}

/// `sluiceway scan --local`: the same scan, written into a folder. It speaks to a person
/// (but in a job of GitHub Actions), shows each preview as it ends, links only what
/// exists (the checkout's GitHub repository, when it has one), and says so when the
/// folder is not a git checkout.
pub(crate) fn local_scan(repo: &Path, out: &Path, printer: &mut Printer) -> Outcome {
    let mut env = environment();
    let in_actions = env.get("GITHUB_ACTIONS").is_some_and(|v| v == "true");
    if !in_actions {
        printer.set_audience(Audience::Person);
    }
    env.retain(|name, _| !name.starts_with("GITHUB_") && !name.starts_with("INPUT_"));
    let inputs = match Inputs::read(&BTreeMap::new()) {
        Ok(inputs) => inputs,
        Err(e) => {
            printer.say(&format!("error: {e}."));
            return Outcome::Failed;
        }
    };
    let repo = std::path::absolute(repo).unwrap_or_else(|_| repo.to_owned());
    let remote = git(&repo, &["remote", "get-url", "origin"])
        .as_deref()
        .and_then(github_repository);
    if let Some(repository) = &remote {
        env.insert("GITHUB_REPOSITORY".into(), repository.clone());
    }
    env.insert(
        "GITHUB_SHA".into(),
        git(&repo, &["rev-parse", "HEAD"]).unwrap_or_default(),
    );
    env.insert("GITHUB_WORKSPACE".into(), repo.display().to_string());
    env.insert("GITHUB_EVENT_NAME".into(), "local".into());
    let mut job = Job::from_env(&env, None);
    job.runner_temp = std::env::temp_dir();
    job.reach = if remote.is_some() {
        Reach::Repository
    } else {
        Reach::Nothing
    };
    if let Err(e) = std::fs::create_dir_all(out) {
        printer.say(&format!("error: {} could not be made: {e}", out.display()));
        return Outcome::Failed;
    }
    let progress: Box<dyn Progress> = if in_actions {
        Box::new(Quiet)
    } else {
        Box::new(ForAPerson::on_stderr())
    };
    // A local scan tells no channel.
    scan_with_progress(
        &job,
        &inputs,
        Target::Folder(out),
        progress.as_ref(),
        &Notifier::none(),
        printer,
    )
    .0
}

/// What a git command says in `repo`, when it says it.
fn git(repo: &Path, args: &[&str]) -> Option<String> {
    std::process::Command::new("git")
        .arg("-C")
        .arg(repo)
        .args(args)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .filter(|text| !text.is_empty())
}

/// `owner/name` of a remote on github.com, in any of the forms git writes one.
fn github_repository(url: &str) -> Option<String> {
    let path = url
        .strip_prefix("https://github.com/")
        .or_else(|| url.strip_prefix("git@github.com:"))
        .or_else(|| url.strip_prefix("ssh://git@github.com/"))?;
    let path = path.trim_end_matches('/').trim_end_matches(".git");
    let (owner, name) = path.split_once('/')?;
    (!owner.is_empty() && !name.is_empty() && !name.contains('/'))
        .then(|| format!("{owner}/{name}"))
}
