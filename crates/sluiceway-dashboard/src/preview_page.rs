//! A stack's preview page (decision 0050): the check run a pending or drifted row links
//! to, on the scanned commit. Its title and summary say what the row says; its text lists
//! every change with full property paths, deletes and replaces first, after every policy
//! that failed on it. No value and no tool text, like every page Sluiceway writes.

use std::fmt::Write as _;

use sluiceway_core::diff::{Diff, Op};
use sluiceway_core::stack::StackId;

use crate::escape;
use crate::rows::{counts_in_words, drift_in_words};
use crate::summary::change_line;
use crate::view::Policed;

/// GitHub's limit on a check run's text, in UTF-8 bytes.
pub const TEXT_LIMIT: usize = 65_535;

/// Where a page sends its reader.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageLinks {
    /// The open dashboard issue, found by its label.
    pub dashboard: String,
    /// The scan's job summary.
    pub summary: String,
    /// The job's log, which holds the tool's own words.
    pub job: String,
}

/// The three texts of one page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Page {
    pub name: String,
    pub title: String,
    pub summary: String,
    pub text: String,
}

/// The check run's name for a stack; one page per stack and commit.
pub fn name(stack: &StackId) -> String {
    format!("sluiceway / {stack}")
}

/// A pending or drifted stack's page; with the policies' answer when they judged its
/// change, their failures listed first (decision 0106).
pub fn render(diff: &Diff, policed: Option<&Policed>, links: &PageLinks) -> Page {
    let drift = diff.drift.as_deref().unwrap_or_default();
    let counts = if diff.changes.is_empty() {
        drift_in_words(drift)
    } else {
        counts_in_words(&diff.changes)
    };
    let plain = counts.replace("**", "");
    let destroys = diff
        .changes
        .iter()
        .any(|c| matches!(c.op, Op::Delete | Op::Replace));
    let mut summary = format!("**{}** · {counts}\n\n", escape::text(diff.stack.as_str()));
    let failures = match policed {
        Some(Policed::Failed(failures)) => failures.as_slice(),
        _ => &[],
    };
    if !failures.is_empty() {
        let _ = write!(
            summary,
            ":no_entry: {}, so this change has no box on the dashboard until it passes; they are listed first.\n\n",
            if failures.len() == 1 {
                "1 policy failed".to_owned()
            } else {
                format!("{} policies failed", failures.len())
            }
        );
    }
    if let Some(Policed::NotRun(reason)) = policed {
        let _ = write!(
            summary,
            ":warning: The policies did not run: {}. Nothing was checked.\n\n",
            escape::text(reason)
        );
    }
    if destroys {
        summary.push_str(
            ":warning: This change deletes or replaces resources; they are listed first.\n\n",
        );
    }
    let _ = write!(
        summary,
        "[The dashboard]({}) · [the scan's summary]({}) · [the job's log]({}), which holds the tool's own words\n\nDiff hash `{}`.",
        links.dashboard,
        links.summary,
        links.job,
        diff.hash()
    );

    let mut ordered: Vec<_> = diff.changes.iter().collect();
    ordered.sort_by_key(|c| !matches!(c.op, Op::Delete | Op::Replace));
    let mut lines: Vec<String> = Vec::new();
    if !failures.is_empty() {
        lines.push("### Policies failed".to_owned());
        lines.extend(failures.iter().map(|f| {
            format!(
                "- <code>{}</code> · {}",
                escape::text(&f.namespace),
                escape::text(&crate::rows::policy_message(&f.message))
            )
        }));
    }
    if !ordered.is_empty() {
        lines.push("### Changes".to_owned());
        lines.extend(ordered.iter().map(|c| change_line(c)));
    }
    if !drift.is_empty() {
        lines.push("### Drift: changed outside the code".to_owned());
        lines.extend(drift.iter().map(change_line));
    }
    Page {
        name: name(&diff.stack),
        title: format!("{} · {plain}", diff.stack),
        summary,
        text: within_limit(&lines),
    }
}

/// What a pull request's preview found for one stack.
#[derive(Debug, Clone, Copy)]
pub enum PullPreview<'a> {
    Diff(&'a Diff),
    Failed(&'a sluiceway_core::failure::Failure),
}

/// A stack's page on a pull request's head commit (decision 0101): what merging it
/// would put on the stack's row, for the reviewer, also when nothing changes or the
/// preview failed. It says that nothing deploys from it; the dashboard deploys after
/// the merge. No value but those `dashboard.showValues` lists; no tool text.
pub fn for_pull_request(
    stack: &StackId,
    preview: PullPreview<'_>,
    number: u64,
    links: &PageLinks,
) -> Page {
    let id = escape::text(stack.as_str());
    let nothing_deploys = format!(
        "A preview of pull request &#35;{number} as GitHub would merge it. Nothing deploys from this page: after the merge, the dashboard shows the change and a tick deploys it."
    );
    match preview {
        PullPreview::Diff(diff) => {
            let mut page = render(diff, None, links);
            let empty = diff.changes.is_empty() && diff.drift.as_ref().is_none_or(Vec::is_empty);
            if empty {
                page.title = format!("{stack} · no changes");
                page.summary = format!(
                    "**{id}** · no changes: merging this pull request changes nothing this stack deploys.\n\n[The job's log]({}) holds the tool's own words.",
                    links.job
                );
                page.text = String::new();
            }
            page.summary = format!("{nothing_deploys}\n\n{}", page.summary);
            page
        }
        PullPreview::Failed(failure) => Page {
            name: name(stack),
            title: format!("{stack} · preview failed"),
            summary: format!(
                "{nothing_deploys}\n\n**{id}** · preview failed: {}. [The job's log]({}) holds the tool's own words.",
                failure.reason, links.job
            ),
            text: String::new(),
        },
    }
}

/// The lines, cut on a whole line so the text stays within GitHub's limit, with a last
/// line that counts what was left out.
fn within_limit(lines: &[String]) -> String {
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        let left = lines.len() - i;
        let closing = format!(
            "\n\n{left} more lines are not listed here; the scan's summary lists them all."
        );
        if text.len() + line.len() + 1 + closing.len() > TEXT_LIMIT {
            text.push_str(closing.trim_start());
            return text;
        }
        text.push_str(line);
        text.push('\n');
    }
    text
}

#[cfg(test)]
mod tests {
    use sluiceway_core::diff::Change;

    use super::*;

    fn links() -> PageLinks {
        PageLinks {
            dashboard:
                "https://github.com/acme/infra/issues?q=is%3Aissue+is%3Aopen+label%3Asluiceway"
                    .into(),
            summary: "https://github.com/acme/infra/actions/runs/900/attempts/1".into(),
            job: "https://github.com/acme/infra/actions/runs/900/job/77".into(),
        }
    }

    fn diff(changes: Vec<Change>) -> Diff {
        Diff {
            stack: StackId::given("apps/web:prod"),
            changes,
            drift: None,
        }
    }

    #[test]
    fn a_page_lists_destroys_first_with_full_paths() {
        let mut update = Change::new(
            "Deployment.apps/web/api",
            "Deployment.apps",
            "api",
            Op::Update,
        );
        update.changed_keys = vec!["spec.template.spec.containers[0].image".into()];
        let delete = Change::new("ConfigMap/web/old", "ConfigMap", "old", Op::Delete);
        let page = render(&diff(vec![update, delete]), None, &links());
        insta::assert_snapshot!(format!(
            "{}\n---\n{}\n---\n{}\n---\n{}",
            page.name, page.title, page.summary, page.text
        ));
    }

    #[test]
    fn a_page_lists_every_policy_failure_before_the_changes() {
        let delete = Change::new("ConfigMap/web/old", "ConfigMap", "old", Op::Delete);
        let failures = (1..=7)
            .map(|i| crate::view::PolicyFailure {
                namespace: if i % 2 == 0 { "main" } else { "prod.network" }.into(),
                message: format!("rule {i}: <b>old</b> must stay\nsecond line"),
            })
            .collect();
        let page = render(
            &diff(vec![delete]),
            Some(&Policed::Failed(failures)),
            &links(),
        );
        insta::assert_snapshot!(format!("{}\n---\n{}", page.summary, page.text));
    }

    #[test]
    fn a_long_text_is_cut_on_a_whole_line_and_says_how_much_is_left() {
        let changes = (0..5_000)
            .map(|i| {
                let mut c = Change::new(
                    format!("ConfigMap/web/cm-{i:05}"),
                    "ConfigMap",
                    format!("cm-{i:05}"),
                    Op::Update,
                );
                c.changed_keys = vec!["data".into()];
                c
            })
            .collect();
        let page = render(&diff(changes), None, &links());
        assert!(page.text.len() <= TEXT_LIMIT);
        let last = page.text.lines().last().unwrap();
        assert!(
            last.ends_with("more lines are not listed here; the scan's summary lists them all."),
            "{last}"
        );
        let listed = page.text.lines().filter(|l| l.starts_with("- ")).count();
        let left: usize = last.split(' ').next().unwrap().parse().unwrap();
        assert_eq!(listed + left, 5_000);
    }
}
