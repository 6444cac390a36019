//! The preview pages (decision 0050): one neutral check run per pending or drifted
//! stack on the scanned commit, which that stack's row links to. A page is filed under
//! its diff hash (the check run's `external_id`); the hash covers everything the page
//! lists, so a page already on the commit under the same hash is linked as it is and
//! not written again. A page never fails the scan: after GitHub refuses one (no
//! `checks: write`, or a rate limit) no more are written in this job, and the rows link
//! to the summary instead.

use std::collections::BTreeMap;

use sluiceway_core::stack::StackId;
use sluiceway_dashboard::preview_page::{self, PageLinks};
use sluiceway_dashboard::view::Policed;
use sluiceway_github::{Failure, GitHub, PreviewPage};

use super::rows::Found;

/// Writes the pages and gives back each page's address by stack.
pub(super) fn write(
    github: &dyn GitHub,
    sha: &str,
    found: &BTreeMap<StackId, Found>,
    policies: &BTreeMap<StackId, Policed>,
    links: &PageLinks,
    say: &mut dyn FnMut(String),
) -> BTreeMap<StackId, String> {
    let mut written = BTreeMap::new();
    let diffs: Vec<_> = found
        .values()
        .filter_map(|f| match f {
            Found::Diff(diff)
                if !diff.changes.is_empty()
                    || diff.drift.as_ref().is_some_and(|d| !d.is_empty()) =>
            {
                Some(diff)
            }
            _ => None,
        })
        .collect();
    if diffs.is_empty() {
        return written;
    }
    let existing = match github.check_runs(sha) {
        Ok(runs) => runs,
        Err(e) => {
            say(format!("No preview pages were written: {e}."));
            return written;
        }
    };
    for diff in diffs {
        let page = preview_page::render(diff, policies.get(&diff.stack), links);
        let hash = diff.hash();
        let same = existing.iter().find(|r| r.name == page.name);
        if let Some(run) = same.filter(|r| r.external_id.as_deref() == Some(hash.as_str())) {
            written.insert(diff.stack.clone(), run.html_url.clone());
            continue;
        }
        let id = same.map(|r| r.id);
        let page = PreviewPage {
            sha: sha.to_owned(),
            name: page.name,
            external_id: hash,
            title: page.title,
            summary: page.summary,
            text: page.text,
        };
        match github.write_check_run(&page, id) {
            Ok(run) => {
                written.insert(diff.stack.clone(), run.html_url);
            }
            Err(e) => {
                let refused = matches!(
                    e.failure,
                    Failure::Status {
                        status: 403 | 429,
                        ..
                    } | Failure::RateLimited { .. }
                );
                say(format!(
                    "The preview page of {} could not be written: {e}.{}",
                    diff.stack,
                    if refused {
                        " No more preview pages are written in this job; rows link to the summary."
                    } else {
                        ""
                    }
                ));
                if refused {
                    break;
                }
            }
        }
    }
    written
}
