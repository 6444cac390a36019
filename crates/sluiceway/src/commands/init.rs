//! `sluiceway init`: a starter workflow and a first `sluiceway.yaml`, written into the
//! checkout. Nothing is committed; nothing existing is overwritten without `--force`.

use std::fs;
use std::path::Path;

use sluiceway_core::config;
use sluiceway_core::discovery::discover;
use sluiceway_core::init::{self, CHECK_WORKFLOW_PATH, WORKFLOW_PATH};
use sluiceway_core::repo::{FileSource, RepoFiles};

use crate::base::Outcome;
use crate::base::checkout::Checkout;
use crate::base::printer::Printer;
use crate::base::setup;

/// `sharded`: write the sharded workflow of that many shards (ADR 0037).
pub fn run(repo: &Path, force: bool, sharded: Option<u32>, printer: &mut Printer) -> Outcome {
    match plan(repo, force, sharded) {
        Ok(plan) => match write(repo, &plan) {
            Ok(()) => {
                report(&plan, printer);
                Outcome::Done
            }
            Err(message) => {
                printer.say(&format!("error: {message}"));
                Outcome::Failed
            }
        },
        Err(lines) => {
            for line in lines {
                printer.say(&line);
            }
            Outcome::Failed
        }
    }
}

/// `sluiceway init --check`: adds the check workflow alone, beside whatever runs the
/// dashboard; an existing one is replaced only with `--force`.
pub fn add_check(repo: &Path, force: bool, printer: &mut Printer) -> Outcome {
    if !repo.join(".git").exists() {
        printer.say(&format!(
            "error: init writes into a git checkout, and {} has no .git",
            repo.display()
        ));
        return Outcome::Failed;
    }
    let path = repo.join(CHECK_WORKFLOW_PATH);
    let replaces = path.exists();
    if replaces && !force {
        printer.say(&format!(
            "error: {CHECK_WORKFLOW_PATH} already exists; `sluiceway init --check --force` replaces it"
        ));
        return Outcome::Failed;
    }
    if let Err(e) = crate::base::files::write_whole(&path, init::check_workflow().as_bytes()) {
        printer.say(&format!(
            "error: {CHECK_WORKFLOW_PATH} could not be written: {e}"
        ));
        return Outcome::Failed;
    }
    printer.result(&format!(
        "{} {CHECK_WORKFLOW_PATH}\n\nEvery pull request now runs the files-only check: problems in sluiceway.yaml and the workflows become annotations on their lines. Nothing was committed.\n",
        if replaces { "Replaced" } else { "Wrote" }
    ));
    Outcome::Done
}

/// Everything init will write, decided before anything is written.
struct Plan {
    workflow: String,
    replaces_workflow: bool,
    /// `None` when a `sluiceway.yaml` exists and is kept as it is.
    config: Option<String>,
    unknowns: Vec<String>,
}

fn plan(repo: &Path, force: bool, sharded: Option<u32>) -> Result<Plan, Vec<String>> {
    if !repo.join(".git").exists() {
        return Err(vec![format!(
            "error: init writes into a git checkout, and {} has no .git",
            repo.display()
        )]);
    }
    let checkout = Checkout::new(repo);
    let files = checkout
        .files()
        .map_err(|e| vec![format!("error: {} could not be read: {e}", repo.display())])?;
    let replaces_workflow = files.contains(WORKFLOW_PATH);
    if replaces_workflow && !force {
        return Err(vec![format!(
            "error: {WORKFLOW_PATH} already exists; `sluiceway check` reads it, and `sluiceway init --force` replaces it"
        )]);
    }
    if let Some(other) = other_sluiceway_workflow(&files, &checkout) {
        return Err(vec![format!(
            "error: {other} already runs Sluiceway; init stops rather than add a second workflow (see `sluiceway check`)"
        )]);
    }
    let problems_to_lines = |problems: Vec<config::ConfigProblem>| {
        let mut lines: Vec<String> = problems.iter().map(ToString::to_string).collect();
        lines.push("error: init stopped; fix the problems above first".to_owned());
        lines
    };
    let existing = setup::load_config(&files, &checkout).map_err(problems_to_lines)?;
    let mut unknowns = Vec::new();
    let (config, config_text) = if existing.file.is_some() {
        (existing, None)
    } else {
        let proposal = init::propose(&files, &checkout);
        let config =
            config::load("sluiceway.yaml", &proposal.config_text).map_err(problems_to_lines)?;
        let discovered = discover(&config, &files, &checkout).map_err(problems_to_lines)?;
        let proposal = init::with_unrelated(proposal, &config, &files, &discovered.stacks);
        let config =
            config::load("sluiceway.yaml", &proposal.config_text).map_err(problems_to_lines)?;
        unknowns = proposal.unknowns;
        (config, Some(proposal.config_text))
    };
    let discovery = discover(&config, &files, &checkout).map_err(problems_to_lines)?;
    if discovery.stacks.is_empty() && unknowns.is_empty() {
        return Err(vec![
            "error: no stacks found: no Pulumi project, root module, Helm chart or Kubernetes manifests".to_owned(),
            "Declare your stacks in sluiceway.yaml under `stacks` with `tool:`, then run init again.".to_owned(),
        ]);
    }
    let branch = default_branch(repo).unwrap_or_else(|| {
        unknowns.push(
            "the default branch: origin's HEAD is unknown here, so the workflow says `main`"
                .to_owned(),
        );
        "main".to_owned()
    });
    unknowns.push(
        "the credentials each stack needs: add their login steps where the workflow says so"
            .to_owned(),
    );
    unknowns.push("the runner: the workflow uses ubuntu-latest".to_owned());
    let label = &config.settings.dashboard.label;
    let toolchain = init::Toolchain::read(&discovery.stacks, &files, &checkout);
    unknowns.extend(toolchain.unknowns.iter().cloned());
    let merges = !config.settings.merge_and_deploy.authors.is_empty();
    let workflow = match sharded {
        Some(shards) => init::sharded_workflow(&branch, label, &toolchain, merges, shards),
        None => init::workflow(&branch, label, &toolchain, merges),
    };
    Ok(Plan {
        workflow,
        replaces_workflow,
        config: config_text,
        unknowns,
    })
}

/// Another workflow file with a step that uses the action.
fn other_sluiceway_workflow(files: &RepoFiles, source: &impl FileSource) -> Option<String> {
    files
        .files_in(".github/workflows")
        .iter()
        .map(|name| format!(".github/workflows/{name}"))
        .filter(|path| path != WORKFLOW_PATH && (path.ends_with(".yml") || path.ends_with(".yaml")))
        .find(|path| {
            // Ours, or the TypeScript implementation's `sluiceway/sluiceway`: either
            // keeps a dashboard, and two would fight over it.
            source
                .read_text(path)
                .is_some_and(|t| t.contains("uses: sluiceway/sluiceway"))
        })
}

/// `main` from `.git/refs/remotes/origin/HEAD` (`ref: refs/remotes/origin/main`).
fn default_branch(repo: &Path) -> Option<String> {
    let text = fs::read_to_string(repo.join(".git/refs/remotes/origin/HEAD")).ok()?;
    text.trim()
        .strip_prefix("ref: refs/remotes/origin/")
        .map(str::to_owned)
}

/// Writes each file whole or not at all: into a temporary file beside it, then renamed.
fn write(repo: &Path, plan: &Plan) -> Result<(), String> {
    let mut files = vec![(WORKFLOW_PATH, plan.workflow.as_str())];
    if let Some(config) = &plan.config {
        files.push(("sluiceway.yaml", config.as_str()));
    }
    for (relative, text) in files {
        crate::base::files::write_whole(&repo.join(relative), text.as_bytes())
            .map_err(|e| format!("{relative} could not be written: {e}"))?;
    }
    Ok(())
}

fn report(plan: &Plan, printer: &mut Printer) {
    let verb = if plan.replaces_workflow {
        "Replaced"
    } else {
        "Wrote"
    };
    let mut out = format!("{verb} {WORKFLOW_PATH}\n");
    match &plan.config {
        Some(_) => out.push_str("Wrote sluiceway.yaml\n"),
        None => out.push_str("Kept sluiceway.yaml as it is\n"),
    }
    out.push_str("\nWhat init could not know:\n");
    for unknown in &plan.unknowns {
        out.push_str(&format!("  - {unknown}\n"));
    }
    out.push_str(
        "\nNothing was committed. Review the files, run `sluiceway check`, then commit them.\n",
    );
    printer.result(&out);
}
