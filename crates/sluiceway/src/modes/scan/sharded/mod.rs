//! A scan sharded over the workflow's own job matrix (ADR 0037), in three steps. The
//! plan finds the dashboard, plans the scan as a one-runner scan would, says a scan is
//! running, and splits the stacks to preview into shards (`shards` and `shard-plan`
//! outputs). Each shard previews only its stacks and writes a partial result for
//! `actions/upload-artifact`. The join reads every partial result and writes the
//! dashboard once, through the same late write as a one-runner scan; a shard that did
//! not report leaves its stacks' rows as they were, says so under the scan line, and
//! turns the join red.

pub mod partial;
pub mod split;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::stack::StackId;
use sluiceway_dashboard::view::Hint;
use sluiceway_github::GitHub;
use sluiceway_tools::adapter::{Adapter, Checked, Context, Program};

use super::rows::Found;
use super::{Asked, Finishing, Surroundings, Target};
use crate::base::Outcome;
use crate::base::checkout::Checkout;
use crate::base::printer::Printer;
use crate::modes::inputs::MOST_SHARDS;
use crate::modes::outputs::Outputs;
use crate::modes::resolve::Started;
use partial::{Gathered, PartialResult};
use split::{ShardPlan, Timings};

/// The planning step: outputs `shards` (the matrix's indices) and `shard-plan`.
pub fn plan(
    s: &Surroundings<'_>,
    github: &dyn GitHub,
    count: u32,
    printer: &mut Printer,
) -> Outcome {
    let mut outputs = Outputs::default();
    let outcome = plan_into(s, github, count, &mut outputs, printer);
    write_outputs(s, &outputs, printer);
    outcome
}

fn plan_into(
    s: &Surroundings<'_>,
    github: &dyn GitHub,
    count: u32,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> Outcome {
    let checkout = Checkout::new(&s.job.workspace);
    let Some(setup) = super::read_setup(s.job, Some(github), &checkout, printer) else {
        return Outcome::Failed;
    };
    let target = Target::GitHub(github);
    let opened = super::open(s, &target, Some(github), &setup, printer);
    let asked = Asked::from_plan(s.job, &setup, &opened.plan, opened.live.as_ref());
    let timings = timings_file(s)
        .and_then(|path| std::fs::read_to_string(path).ok())
        .and_then(|text| Timings::read(&text))
        .unwrap_or_default();
    let stacks: Vec<StackId> = asked.stacks.iter().cloned().collect();
    let plan = ShardPlan {
        version: 1,
        commit: s.job.sha.clone(),
        run: s.job.run_id,
        started_at: opened.at.to_string(),
        full: asked.full,
        drift: asked.drift.iter().cloned().collect(),
        shards: split::balance(&stacks, count, &timings.seconds),
    };
    for (k, shard) in plan.shards.iter().enumerate() {
        let known: Vec<f64> = shard
            .iter()
            .filter_map(|id| timings.seconds.get(id).copied())
            .collect();
        let took = if known.is_empty() {
            String::new()
        } else {
            format!(
                "; {:.1} s by the last scan's times for {} of them",
                known.iter().sum::<f64>(),
                known.len()
            )
        };
        printer.say(&format!(
            "Shard {} of {count}: {}{took}.",
            k + 1,
            stacks_in_words(shard.len())
        ));
    }
    match serde_json::to_string(&plan) {
        Ok(text) => {
            outputs.set("shards", plan.indices());
            outputs.set("shard-plan", text);
            Outcome::Done
        }
        Err(e) => {
            printer.say(&format!(
                "::error::The shard plan could not be written: {e}."
            ));
            Outcome::Failed
        }
    }
}

/// One shard: previews the plan's stacks for `index` and writes the partial result.
pub fn shard(s: &Surroundings<'_>, index: u32, plan_text: &str, printer: &mut Printer) -> Outcome {
    let mut outputs = Outputs::default();
    let outcome = shard_into(s, index, plan_text, &mut outputs, printer);
    write_outputs(s, &outputs, printer);
    outcome
}

fn shard_into(
    s: &Surroundings<'_>,
    index: u32,
    plan_text: &str,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> Outcome {
    let plan = match read_plan(s, plan_text) {
        Ok(plan) => plan,
        Err(why) => return refuse(&why, printer),
    };
    let Some(own) = plan.stacks_of(index) else {
        return refuse(
            &format!(
                "the shard input is {index}, and the plan made shards 1 to {}",
                plan.count()
            ),
            printer,
        );
    };
    let checkout = Checkout::new(&s.job.workspace);
    let Some(setup) = super::read_setup(s.job, None, &checkout, printer) else {
        return Outcome::Failed;
    };
    if let Err(why) = all_discovered(&plan, &setup) {
        return refuse(&why, printer);
    }
    printer.say(&format!(
        "Shard {index} of {}: {} of commit {}.",
        plan.count(),
        stacks_in_words(own.len()),
        plan.commit
    ));
    let asked = Asked {
        stacks: own.iter().cloned().collect(),
        drift: plan
            .drift
            .iter()
            .filter(|id| own.contains(id))
            .cloned()
            .collect(),
        full: plan.full,
    };
    let previews = super::preview(s, &checkout, &setup, &asked, printer);
    let partial = PartialResult::of(&plan, index, &previews);
    let path = s.job.runner_temp.join(partial::file_name(index));
    let written = serde_json::to_string_pretty(&partial)
        .map_err(std::io::Error::other)
        .and_then(|text| crate::base::files::write_whole(&path, format!("{text}\n").as_bytes()));
    if let Err(e) = written {
        printer.say(&format!(
            "::error::The partial result could not be written to {}: {e}.",
            path.display()
        ));
        return Outcome::Failed;
    }
    printer.say(&format!("The partial result: {}", path.display()));
    outputs.set("partial-result", path.display().to_string());
    if previews.red {
        Outcome::Failed
    } else {
        Outcome::Done
    }
}

/// The join: the partial results in `folder`, checked against the plan, written once to
/// the dashboard. Refused partial results write nothing.
pub fn join(
    s: &Surroundings<'_>,
    github: &dyn GitHub,
    plan_text: &str,
    folder: &str,
    printer: &mut Printer,
) -> (Outcome, Vec<Started>) {
    let mut outputs = Outputs::scan_defaults();
    let (outcome, started) = join_into(s, github, plan_text, folder, &mut outputs, printer);
    printer.say(&format!(
        "The join made {} requests to the GitHub API.",
        github.requests_made()
    ));
    write_outputs(s, &outputs, printer);
    (outcome, started)
}

fn join_into(
    s: &Surroundings<'_>,
    github: &dyn GitHub,
    plan_text: &str,
    folder: &str,
    outputs: &mut Outputs,
    printer: &mut Printer,
) -> (Outcome, Vec<Started>) {
    let refused = |why: &str, printer: &mut Printer| (refuse(why, printer), Vec::new());
    let plan = match read_plan(s, plan_text) {
        Ok(plan) => plan,
        Err(why) => return refused(&why, printer),
    };
    let folder = s.job.workspace.join(folder);
    let files = match partial_files(&folder) {
        Ok(files) => files,
        Err(why) => return refused(&why, printer),
    };
    let Gathered { mut previews, lost } = match partial::gather(&plan, &files) {
        Ok(gathered) => gathered,
        Err(why) => {
            return refused(
                &format!("{why}. Nothing was written to the dashboard"),
                printer,
            );
        }
    };
    let checkout = Checkout::new(&s.job.workspace);
    let Some(setup) = super::read_setup(s.job, Some(github), &checkout, printer) else {
        return (Outcome::Failed, Vec::new());
    };
    if let Err(why) = all_discovered(&plan, &setup) {
        return refused(&why, printer);
    }
    let Ok(at) = plan.started_at.parse() else {
        return refused("the shard plan's startedAt is not a time", printer);
    };
    let label = &setup.config.settings.dashboard.label;
    let listed = match super::dashboard_issue::find(github, label) {
        Ok(open) => Some(open),
        Err(e) => {
            printer.say(&format!("The dashboard could not be read: {e}"));
            None
        }
    };
    // A lost shard's stacks keep their live rows; one with no row yet gets a failed one,
    // so every discovered stack still has its row.
    let live_rows: Vec<String> = listed
        .as_ref()
        .and_then(|open| open.first())
        .map(|issue| {
            sluiceway_dashboard::reader::read(&issue.body)
                .rows
                .into_iter()
                .map(|r| r.facts.stack)
                .collect()
        })
        .unwrap_or_default();
    let mut lost_stacks = 0;
    for k in &lost {
        for id in plan.stacks_of(*k).unwrap_or_default() {
            lost_stacks += 1;
            if !live_rows.iter().any(|row| row == id.as_str()) {
                previews.found.insert(
                    id.clone(),
                    Found::Failed(Failure::new(FailureReason::ShardLost)),
                );
            }
        }
    }
    // The updates waiting to merge are previewed as after their merge in the late write,
    // with the tools this job has (decision 0071).
    let merging = &setup.config.settings.merge_and_deploy;
    if merging.preview && !merging.authors.is_empty() {
        previews.checked = check_programs(s, &setup, printer);
    }
    let hint = (!lost.is_empty()).then(|| Hint::ShardsLost {
        shards: lost.clone(),
        of: plan.count(),
        run: s.job.run_url(),
    });
    let fresh: BTreeMap<StackId, f64> = previews
        .tries
        .iter()
        .map(|(id, (_, seconds))| (id.clone(), *seconds))
        .collect();
    let finishing = Finishing {
        listed,
        full: plan.full,
        at,
        previews,
        lost: hint,
    };
    let (mut outcome, started) = super::finish(
        s,
        &Target::GitHub(github),
        &setup,
        finishing,
        outputs,
        printer,
    );
    if !lost.is_empty() {
        let names: Vec<String> = lost.iter().map(u32::to_string).collect();
        printer.say(&format!(
            "::error::Shard{} {} of {} did not report, so {} keep their rows as they were; the line under the scan line links this run.",
            if lost.len() > 1 { "s" } else { "" },
            names.join(", "),
            plan.count(),
            stacks_in_words(lost_stacks)
        ));
        outcome = Outcome::Failed;
    }
    if let Some(path) = timings_file(s) {
        let before = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| Timings::read(&text))
            .unwrap_or_default();
        let stacks = &setup.discovery.stacks;
        let timings = before.updated(fresh, |id| stacks.iter().any(|st| &st.id == id));
        let written = serde_json::to_string(&timings)
            .map_err(std::io::Error::other)
            .and_then(|text| crate::base::files::write_whole(&path, text.as_bytes()));
        if let Err(e) = written {
            printer.say(&format!(
                "::warning::The preview times could not be kept in {}: {e}.",
                path.display()
            ));
        }
    }
    (outcome, started)
}

/// The version check of every program the stacks need, once each; one that cannot be
/// used is said and left out, so an update of its stacks is not previewed.
fn check_programs(
    s: &Surroundings<'_>,
    setup: &crate::base::setup::Setup,
    printer: &mut Printer,
) -> BTreeMap<Program, Checked> {
    let programs: BTreeSet<Program> = setup
        .discovery
        .stacks
        .iter()
        .filter_map(|stack| Adapter::for_stack(stack, &s.job.workspace).ok())
        .flat_map(|adapter| adapter.programs())
        .collect();
    let ctx = Context {
        runner: s.runner,
        env: &s.job.tool_env,
        repository: &s.job.repository,
        scratch: &s.job.runner_temp,
        time_limit: s.inputs.preview_timeout,
        deploy_limit: None,
        values: &setup.config.values,
    };
    let mut checked = BTreeMap::new();
    for program in programs {
        match program.check_version(&ctx, &s.job.workspace) {
            Ok(found) => {
                printer.say(&format!("Using {program} {found}."));
                checked.insert(program, found);
            }
            Err(e) => printer.say(&format!(
                "::warning::{e}; the updates waiting to merge that need it are not previewed."
            )),
        }
    }
    checked
}

/// The plan from the `shard-plan` input, of this release's version and this job's commit.
fn read_plan(s: &Surroundings<'_>, text: &str) -> Result<ShardPlan, String> {
    let plan: ShardPlan = serde_json::from_str(text).map_err(|e| {
        format!(
            "the shard-plan input is not the plan step's shard-plan output (column {}): it does not have the plan's shape",
            e.column()
        )
    })?;
    if plan.version != 1 {
        return Err(format!(
            "the shard plan is of version {}; this Sluiceway reads version 1, so the plan, every shard and the join must use the same release",
            plan.version
        ));
    }
    if plan.commit != s.job.sha {
        return Err(format!(
            "the shard plan is for commit {}, and this job checked out {}",
            plan.commit, s.job.sha
        ));
    }
    if plan.shards.is_empty() || plan.count() > MOST_SHARDS {
        return Err(format!(
            "the shard plan has {} shards; a plan has 1 to {}",
            plan.shards.len(),
            MOST_SHARDS
        ));
    }
    Ok(plan)
}

/// Every stack the plan names is one this checkout discovers.
fn all_discovered(plan: &ShardPlan, setup: &crate::base::setup::Setup) -> Result<(), String> {
    let stacks = &setup.discovery.stacks;
    match plan
        .shards
        .iter()
        .flatten()
        .find(|id| !stacks.iter().any(|st| &st.id == *id))
    {
        Some(id) => Err(format!(
            "the shard plan names the stack {id}, which this checkout does not discover"
        )),
        None => Ok(()),
    }
}

/// The JSON files in the folder and the folders right under it (where
/// `actions/download-artifact` puts each artifact without `merge-multiple`), in path
/// order, with their texts.
fn partial_files(folder: &Path) -> Result<Vec<(String, String)>, String> {
    let unreadable = |path: &Path, e: std::io::Error| {
        format!(
            "the partial-results folder {} could not be read: {e}",
            path.display()
        )
    };
    let mut paths: Vec<PathBuf> = Vec::new();
    for entry in std::fs::read_dir(folder).map_err(|e| unreadable(folder, e))? {
        let path = entry.map_err(|e| unreadable(folder, e))?.path();
        if path.is_dir() {
            for inner in std::fs::read_dir(&path).map_err(|e| unreadable(&path, e))? {
                paths.push(inner.map_err(|e| unreadable(&path, e))?.path());
            }
        } else {
            paths.push(path);
        }
    }
    paths.retain(|p| p.extension().is_some_and(|e| e == "json"));
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).map_err(|e| unreadable(&path, e))?;
            Ok((path.display().to_string(), text))
        })
        .collect()
}

fn timings_file(s: &Surroundings<'_>) -> Option<PathBuf> {
    s.inputs
        .timings_file
        .as_ref()
        .map(|file| s.job.workspace.join(file))
}

fn stacks_in_words(n: usize) -> String {
    if n == 1 {
        "1 stack".to_owned()
    } else {
        format!("{n} stacks")
    }
}

fn refuse(why: &str, printer: &mut Printer) -> Outcome {
    printer.say(&format!("::error::{why}."));
    Outcome::Failed
}

fn write_outputs(s: &Surroundings<'_>, outputs: &Outputs, printer: &mut Printer) {
    if let Err(e) = outputs.write(s.job.output_file.as_deref()) {
        printer.say(&format!(
            "::warning::The step outputs could not be written: {e}"
        ));
    }
}
