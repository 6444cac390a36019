//! The scan plan: a full scan, or one narrowed to the stacks a push touched (decision
//! 0010). Narrowing fails open: whenever the push's changed files cannot be trusted or a
//! changed file is claimed by no stack, every stack is previewed, and the log says why.

use std::collections::BTreeSet;

use sluiceway_core::claim::{Claim, Claimants, Claims};
use sluiceway_core::stack::{Stack, StackId};
use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::reader::ReadBody;
use sluiceway_github::Comparison;

use crate::modes::job::Event;

/// From this many changed files on, GitHub's compare may leave files out.
pub const MOST_COMPARED_FILES: usize = 300;

/// Which stacks this scan previews, and why, in a sentence for the job log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanPlan {
    /// `None` for a full scan.
    pub narrowed_to: Option<BTreeSet<StackId>>,
    pub why: String,
    /// Changed files no stack claims, listed in their own log group.
    pub unclaimed: Vec<String>,
}

impl ScanPlan {
    pub fn is_full(&self) -> bool {
        self.narrowed_to.is_none()
    }

    pub fn previews(&self, id: &StackId) -> bool {
        self.narrowed_to.as_ref().is_none_or(|set| set.contains(id))
    }

    fn full(why: String) -> ScanPlan {
        ScanPlan {
            narrowed_to: None,
            why,
            unclaimed: Vec::new(),
        }
    }

    fn fell_back(why: impl std::fmt::Display) -> ScanPlan {
        ScanPlan::full(format!(
            "This is a full scan. A push gives a narrowed scan, and this one fell back to a full scan: {why}."
        ))
    }
}

/// What the plan is made from.
pub struct Facts<'a> {
    pub event: &'a Event,
    pub stacks: &'a [Stack],
    pub claims: &'a Claims,
    pub claimants: &'a Claimants,
    /// The live dashboard body as read, or `None` when there is no dashboard.
    pub live: Option<&'a ReadBody>,
}

/// Plans the scan. `compare` asks GitHub for the files changed since a commit; it is
/// called at most once, and only for a push with a trustworthy dashboard.
pub fn plan(
    facts: &Facts<'_>,
    compare: impl FnOnce(&str) -> Result<Comparison, String>,
) -> ScanPlan {
    if *facts.event != Event::Push {
        return ScanPlan::full(format!(
            "This is a full scan: the event is {}, and only a push gives a narrowed scan.",
            facts.event.name()
        ));
    }
    let Some(live) = facts.live else {
        return ScanPlan::fell_back("there is no dashboard yet");
    };
    let Some(root) = live.root.as_ref().filter(|r| r.get("v") == Some("1")) else {
        return ScanPlan::fell_back(
            "the dashboard's first line is not a marker this version reads",
        );
    };
    let Some(base) = root.get("scan-sha").filter(|sha| is_commit(sha)) else {
        return ScanPlan::fell_back("the dashboard does not say which commit it last scanned");
    };
    let comparison = match compare(base) {
        Ok(comparison) => comparison,
        Err(why) => return ScanPlan::fell_back(why),
    };
    if !matches!(comparison.status.as_str(), "ahead" | "identical") {
        return ScanPlan::fell_back(format_args!(
            "this commit is {} of the last scanned one, not ahead",
            comparison.status
        ));
    }
    if comparison.files.len() >= MOST_COMPARED_FILES {
        return ScanPlan::fell_back(format_args!(
            "the push changed {MOST_COMPARED_FILES} files or more, more than GitHub lists in full"
        ));
    }
    let mut touched = BTreeSet::new();
    let mut unclaimed = BTreeSet::new();
    let paths = comparison
        .files
        .iter()
        .flat_map(|f| std::iter::once(&f.path).chain(f.previous_path.as_ref()));
    for path in paths {
        match facts.claims.claim(path) {
            Claim::Config => {
                return ScanPlan::fell_back(format_args!(
                    "{path} changed, so every stack is previewed"
                ));
            }
            Claim::Unclaimed => {
                unclaimed.insert(path.clone());
            }
            Claim::Unrelated => {}
            Claim::Stacks => touched.extend(facts.claimants.of(path)),
        }
    }
    if let Some(first) = unclaimed.first() {
        let more = match unclaimed.len() - 1 {
            0 => String::new(),
            1 => " and 1 more changed file".to_owned(),
            n => format!(" and {n} more changed files"),
        };
        let mut plan = ScanPlan::fell_back(format_args!("no stack claims {first}{more}"));
        plan.unclaimed = unclaimed.into_iter().collect();
        return plan;
    }
    let mut narrowed: BTreeSet<StackId> = touched
        .into_iter()
        .map(|i| facts.stacks[i].id.clone())
        .collect();
    let claimed = narrowed.len();
    for stack in facts.stacks {
        let row = live
            .rows
            .iter()
            .find(|r| r.facts.stack == stack.id.as_str());
        let again = match row {
            None => true,
            Some(row) => row.facts.state == Some(RowState::PreviewFailed),
        };
        if again {
            narrowed.insert(stack.id.clone());
        }
    }
    let extra = narrowed.len() - claimed;
    let why = format!(
        "This is a narrowed scan: {claimed} of {} stacks claim the {} changed files{}.",
        facts.stacks.len(),
        comparison.files.len(),
        match extra {
            0 => String::new(),
            1 => ", and 1 more has no row or failed its last preview".to_owned(),
            n => format!(", and {n} more have no row or failed their last preview"),
        }
    );
    ScanPlan {
        narrowed_to: Some(narrowed),
        why,
        unclaimed: Vec::new(),
    }
}

/// A full commit id: 40 (SHA-1) or 64 (SHA-256) lower-case hex digits.
fn is_commit(sha: &str) -> bool {
    matches!(sha.len(), 40 | 64) && sha.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
