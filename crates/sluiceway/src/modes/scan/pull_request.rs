//! A pull request's preview (decision 0101, ADR 0031): the scan of a pull request's
//! merge checkout, narrowed to the stacks its files claim, whose findings go to one
//! neutral check run per stack on the head commit instead of the dashboard. Nothing is
//! written to the issue, no record is opened, nothing deploys.
//!
//! A pull request that changes `sluiceway.yaml` previews every stack: the file can move
//! any stack's settings, so no narrower set can be trusted. One that changes 300 files
//! or more previews nothing, since GitHub's compare may leave files out.

use std::collections::{BTreeMap, BTreeSet};

use sluiceway_core::claim::{Claimants, Claims};
use sluiceway_core::stack::{Stack, StackId};
use sluiceway_dashboard::preview_page::{self, PageLinks, PullPreview};
use sluiceway_github::{Comparison, GitHub, PreviewPage};

use super::plan::{MOST_COMPARED_FILES, ScanPlan, Sorted, sort};
use super::rows::Found;
use crate::modes::job::EventPullRequest;

/// The stacks the pull request's files claim, or why none or all are previewed.
pub(super) fn plan(
    pull: &EventPullRequest,
    stacks: &[Stack],
    claims: &Claims,
    claimants: &Claimants,
    compared: Result<Comparison, String>,
) -> ScanPlan {
    let number = pull.number;
    let nothing = |why: String| ScanPlan {
        narrowed_to: Some(BTreeSet::new()),
        why,
        unclaimed: Vec::new(),
    };
    let comparison = match compared {
        Ok(comparison) => comparison,
        Err(why) => {
            return nothing(format!(
                "Pull request #{number} is not previewed: its changed files could not be read ({why})."
            ));
        }
    };
    if comparison.files.len() >= MOST_COMPARED_FILES {
        return nothing(format!(
            "Pull request #{number} changes {MOST_COMPARED_FILES} files or more, more than GitHub lists in full, so nothing is previewed."
        ));
    }
    let Sorted {
        touched,
        unclaimed,
        config,
    } = sort(&comparison.files, claims, claimants);
    if let Some(path) = config {
        return ScanPlan {
            narrowed_to: None,
            why: format!(
                "Pull request #{number} changes {path}, which can move any stack's settings, so every stack is previewed."
            ),
            unclaimed: Vec::new(),
        };
    }
    let narrowed: BTreeSet<StackId> = touched.into_iter().map(|i| stacks[i].id.clone()).collect();
    ScanPlan {
        why: format!(
            "Pull request #{number}: {} of {} stacks claim its {} changed files{}.",
            narrowed.len(),
            stacks.len(),
            comparison.files.len(),
            match unclaimed.len() {
                0 => String::new(),
                n => format!(
                    "; {n} changed files no stack claims are listed below, and preview nothing"
                ),
            }
        ),
        narrowed_to: Some(narrowed),
        unclaimed: unclaimed.into_iter().collect(),
    }
}

/// One page per previewed stack on the head commit, each updated in place by its name.
/// A page that cannot be written is said in the log; it never fails the preview.
pub(super) fn write_pages(
    github: &dyn GitHub,
    pull: &EventPullRequest,
    found: &BTreeMap<StackId, Found>,
    links: &PageLinks,
    say: &mut dyn FnMut(String),
) -> usize {
    if found.is_empty() {
        return 0;
    }
    let existing = match github.check_runs(&pull.head_sha) {
        Ok(runs) => runs,
        Err(e) => {
            say(format!(
                "No page was written on the pull request's head commit: {e}."
            ));
            return 0;
        }
    };
    let mut written = 0;
    for (stack, found) in found {
        let (preview, filed_under) = match found {
            Found::Diff(diff) => (PullPreview::Diff(diff), diff.hash()),
            Found::Failed(failure) => (
                PullPreview::Failed(failure),
                format!("failed: {}", failure.reason),
            ),
        };
        let page = preview_page::for_pull_request(stack, preview, pull.number, links);
        let same = existing.iter().find(|r| r.name == page.name);
        if same.is_some_and(|r| r.external_id.as_deref() == Some(filed_under.as_str())) {
            written += 1;
            continue;
        }
        let page = PreviewPage {
            sha: pull.head_sha.clone(),
            name: page.name,
            external_id: filed_under,
            title: page.title,
            summary: page.summary,
            text: page.text,
        };
        match github.write_check_run(&page, same.map(|r| r.id)) {
            Ok(_) => written += 1,
            Err(e) => say(format!("The page of {stack} could not be written: {e}.")),
        }
    }
    written
}
