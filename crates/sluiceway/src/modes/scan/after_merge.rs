//! An update previewed as it would be after the merge (`mergeAndDeploy.preview`,
//! decision 0071): the checkout is copied into the runner's temporary folder without
//! `.git`, each file the pull request changes is written over with its text at the
//! pull request's head (or removed when the head has none), and each of its stacks is
//! prepared and previewed in the copy with the tool the scan already checked. The line
//! shows counts only; the tick still merges the shown head, and the scan after the
//! merge and its hash decide what deploys. A path that would leave the copy through a
//! link fails that update's preview; nothing here ever fails the scan.

use std::collections::BTreeMap;
use std::path::{Component, Path};
use std::time::Duration;

use sluiceway_core::runner::Runner;
use sluiceway_core::stack::Stack;
use sluiceway_core::values::ValueList;
use sluiceway_dashboard::updates::AfterMerge;
use sluiceway_github::{GitHub, OpenPullRequest};
use sluiceway_tools::adapter::{Adapter, Asks, Context, Program};
use sluiceway_tools::tool_run::Checked;

use crate::base::printer::Printer;
use crate::modes::job::Job;

/// Only the oldest updates are previewed.
pub(super) const MOST_PREVIEWED: usize = 30;

/// What the previews run with: the scan's runner, limit, value list and the versions its
/// check found.
pub(super) struct Previewing<'a> {
    pub job: &'a Job,
    pub runner: &'a dyn Runner,
    pub time_limit: Duration,
    pub values: &'a ValueList,
    pub checked: &'a BTreeMap<Program, Checked>,
}

/// Each of the update's stacks as it would be after the merge.
pub(super) fn preview(
    p: &Previewing<'_>,
    github: &dyn GitHub,
    pull: &OpenPullRequest,
    stacks: &[&Stack],
    printer: &mut Printer,
) -> Vec<(String, AfterMerge)> {
    let number = pull.number;
    let failed = |printer: &mut Printer, why: String| {
        printer.say(&format!(
            "The preview of #{number} after the merge failed: {why}."
        ));
        stacks
            .iter()
            .map(|s| (s.id.to_string(), AfterMerge::Failed))
            .collect()
    };
    let copy = match tempfile::Builder::new()
        .prefix("sluiceway-after-merge-")
        .tempdir_in(&p.job.runner_temp)
    {
        Ok(copy) => copy,
        Err(e) => return failed(printer, format!("no folder for the copy ({})", e.kind())),
    };
    if let Err(e) = copy_checkout(&p.job.workspace, copy.path()) {
        return failed(
            printer,
            format!("the checkout could not be copied ({})", e.kind()),
        );
    }
    for file in &pull.files {
        let text = match github.file_at(&file.path, &pull.head_sha) {
            Ok(text) => text,
            Err(e) => return failed(printer, e.to_string()),
        };
        if let Err(why) = overlay(copy.path(), &file.path, text.as_deref()) {
            return failed(printer, format!("{}: {why}", file.path));
        }
    }
    printer.say(&format!("::group::[#{number} after the merge]"));
    let previews = stacks
        .iter()
        .map(|stack| {
            (
                stack.id.to_string(),
                preview_stack(p, stack, copy.path(), printer),
            )
        })
        .collect();
    printer.say("::endgroup::");
    previews
}

fn preview_stack(
    p: &Previewing<'_>,
    stack: &Stack,
    root: &Path,
    printer: &mut Printer,
) -> AfterMerge {
    let Ok(mut adapter) = Adapter::for_stack(stack, root) else {
        return AfterMerge::Failed;
    };
    let checked = p.checked.get(&Program::Tool(adapter.tool())).filter(|_| {
        adapter
            .programs()
            .iter()
            .all(|program| p.checked.contains_key(program))
    });
    let Some(checked) = checked else {
        printer.say(&format!(
            "{}: its tool could not be used in this scan.",
            stack.id
        ));
        return AfterMerge::Failed;
    };
    adapter.learn(checked);
    let ctx = Context {
        runner: p.runner,
        env: &p.job.tool_env,
        repository: &p.job.repository,
        scratch: &p.job.runner_temp,
        time_limit: p.time_limit,
        deploy_limit: None,
        values: p.values,
    };
    for preparation in adapter.preparations() {
        let step = preparation.run(&ctx);
        for line in step.log.job_log_lines() {
            printer.say(line);
        }
        if let Err(failure) = step.result {
            printer.say(&format!("{}: {}.", stack.id, failure.reason));
            return AfterMerge::Failed;
        }
    }
    let step = adapter.preview(&ctx, Asks::default());
    for line in step.log.job_log_lines() {
        printer.say(line);
    }
    match step.result {
        Ok(previewed) => AfterMerge::Changes(previewed.diff.changes),
        Err(failure) => {
            printer.say(&format!("{}: {}.", stack.id, failure.reason));
            AfterMerge::Failed
        }
    }
}

/// The checkout's files, links kept as links, without `.git`.
fn copy_checkout(from: &Path, to: &Path) -> std::io::Result<()> {
    let walk = walkdir::WalkDir::new(from)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| !(e.depth() == 1 && e.file_name() == ".git"));
    for entry in walk {
        let entry = entry.map_err(std::io::Error::other)?;
        let relative = entry
            .path()
            .strip_prefix(from)
            .map_err(std::io::Error::other)?;
        let target = to.join(relative);
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Writes a file's text at the head over the copy, or removes it; refuses a path that
/// leaves the copy, by its own parts or through a link on the way.
fn overlay(root: &Path, path: &str, text: Option<&str>) -> Result<(), String> {
    let relative = Path::new(path);
    if relative
        .components()
        .any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err("the path leaves the repository".to_owned());
    }
    let mut at = root.to_path_buf();
    for part in relative.components() {
        at.push(part);
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err("a link on its path could lead out of the copy".to_owned());
        }
    }
    let target = root.join(relative);
    match text {
        Some(text) => {
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).map_err(|e| e.kind().to_string())?;
            }
            std::fs::write(&target, text).map_err(|e| e.kind().to_string())
        }
        None => match std::fs::remove_file(&target) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.kind().to_string()),
            _ => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overlay_writes_removes_and_never_follows_a_link_out() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("net")).unwrap();
        std::fs::write(root.path().join("net/main.tf"), "old").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("out")).unwrap();
        overlay(root.path(), "net/main.tf", Some("new")).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.path().join("net/main.tf")).unwrap(),
            "new"
        );
        overlay(root.path(), "net/extra/vars.tf", Some("x")).unwrap();
        overlay(root.path(), "net/main.tf", None).unwrap();
        assert!(!root.path().join("net/main.tf").exists());
        overlay(root.path(), "net/gone.tf", None).unwrap();
        for escaping in ["out/evil.tf", "../evil.tf", "/etc/evil", "net/../../evil"] {
            assert!(
                overlay(root.path(), escaping, Some("x")).is_err(),
                "{escaping}"
            );
        }
        assert!(
            std::fs::read_dir(outside.path()).unwrap().next().is_none(),
            "nothing written outside"
        );
    }
}
