//! Which open pull requests are updates one tick may merge (decisions 0054, 0071, 0081
//! and the second 0119). The scan judges the list to draw the "Updates waiting to merge"
//! lines; resolve judges the pull request again, live, before it merges one. Pure.
//!
//! An update qualifies when `mergeAndDeploy.authors` lists its author, it is not a
//! draft, its base is the default branch, it does not conflict, GitHub lists all its
//! files (at most 100) with no rename, every file is claimed by a stack, and none of
//! its stacks depends on another of them. A qualifying update whose checks are green
//! gets a box; one whose checks still run (and none has failed) gets a line without.

use std::collections::BTreeSet;

use sluiceway_core::claim::Claim;
use sluiceway_core::config::Config;
use sluiceway_core::discovery::Discovery;
use sluiceway_dashboard::updates::{Update, Updates};
use sluiceway_github::{CheckCounts, OpenPullRequest};

/// GitHub lists at most this many files of a pull request at once.
const MOST_FILES: u64 = 100;

/// What one pull request is to the dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    /// Checks green: a box.
    Listed(Update),
    /// Checks still running: a line without a box.
    Waiting(Update),
    /// Not an update a tick may merge, and why (a lasting reason, for the log).
    Not(String),
    /// Not by an author the list names: not said at all.
    NotAnUpdate,
}

/// The checks of the head commit, from the rollup's counts alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checks {
    Green,
    Running,
    Failed,
    None,
}

impl Checks {
    pub fn of(counts: Option<&CheckCounts>) -> Checks {
        let Some(counts) = counts else {
            return Checks::None;
        };
        let failed_runs = counts.check_runs.iter().any(|(state, n)| {
            *n > 0
                && !matches!(
                    state.as_str(),
                    "SUCCESS"
                        | "NEUTRAL"
                        | "SKIPPED"
                        | "IN_PROGRESS"
                        | "PENDING"
                        | "QUEUED"
                        | "WAITING"
                )
        });
        let failed_statuses = counts
            .status_contexts
            .iter()
            .any(|(state, n)| *n > 0 && matches!(state.as_str(), "FAILURE" | "ERROR"));
        match counts.state.as_str() {
            "SUCCESS" => Checks::Green,
            "PENDING" | "EXPECTED" if !(failed_runs || failed_statuses) => Checks::Running,
            _ => Checks::Failed,
        }
    }
}

/// Judges one pull request against the setup. `base` is the default branch.
pub fn judge(pull: &OpenPullRequest, config: &Config, discovery: &Discovery, base: &str) -> Judged {
    let authors = &config.settings.merge_and_deploy.authors;
    let Some(author) = pull.author.as_ref().map(|a| a.login.clone()) else {
        return Judged::NotAnUpdate;
    };
    if !authors.iter().any(|a| a.eq_ignore_ascii_case(&author)) {
        return Judged::NotAnUpdate;
    }
    let not = |why: &str| Judged::Not(format!("#{} by {author} {why}", pull.number));
    if pull.draft {
        return not("is a draft");
    }
    if pull.base != base {
        return not(&format!("is not against the default branch {base}"));
    }
    if pull.mergeable == "CONFLICTING" {
        return not("conflicts with its base");
    }
    if pull.changed_files > MOST_FILES || (pull.files.len() as u64) < pull.changed_files {
        return not(&format!(
            "changes more than {MOST_FILES} files, more than GitHub lists"
        ));
    }
    if pull.files.iter().any(|f| f.change_type == "RENAMED") {
        return not("renames a file");
    }
    let stacks = &discovery.stacks;
    let Some((claims, claimants)) = crate::base::setup::claims(config, discovery) else {
        return not("could not be matched to stacks");
    };
    let mut claimed = BTreeSet::new();
    for file in &pull.files {
        match claims.claim(&file.path) {
            Claim::Stacks => claimed.extend(claimants.of(&file.path)),
            Claim::Config => return not(&format!("changes {}", file.path)),
            Claim::Unclaimed | Claim::Unrelated => {
                return not(&format!("changes {}, which no stack claims", file.path));
            }
        }
    }
    let ids: Vec<_> = claimed.iter().map(|i| &stacks[*i].id).collect();
    if ids.is_empty() {
        return not("changes no file a stack claims");
    }
    if ids.iter().any(|id| {
        stacks
            .iter()
            .any(|s| &&s.id == id && s.settings.depends_on.iter().any(|d| ids.contains(&d)))
    }) {
        return not("changes stacks that depend on each other, which deploy one after another");
    }
    let mut names: Vec<String> = ids.iter().map(|id| id.to_string()).collect();
    names.sort();
    let update = Update {
        number: pull.number,
        title: pull.title.clone(),
        author: author.clone(),
        stacks: names,
        head: pull.head_sha.clone(),
        after_merge: Vec::new(),
    };
    match Checks::of(pull.checks.as_ref()) {
        Checks::Green => Judged::Listed(update),
        Checks::Running => Judged::Waiting(update),
        Checks::Failed => not("has checks that failed"),
        Checks::None => not("has no checks, and only green checks let an update merge"),
    }
}

/// Every pull request judged, oldest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    pub listed: Vec<Update>,
    pub waiting: Vec<Update>,
    pub not: Vec<String>,
}

impl Judgement {
    pub fn lines(&self, redact: bool) -> Updates {
        Updates::drawn(&self.listed, &self.waiting, redact)
    }

    /// What the job log says of the list.
    pub fn log_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if !self.listed.is_empty() {
            lines.push(format!(
                "{} updates wait to merge: {}.",
                self.listed.len(),
                numbers(&self.listed)
            ));
        }
        if !self.waiting.is_empty() {
            lines.push(format!(
                "{} pull requests wait on their checks: {}.",
                self.waiting.len(),
                numbers(&self.waiting)
            ));
        }
        lines.extend(
            self.not
                .iter()
                .map(|why| format!("Not an update to merge: {why}.")),
        );
        lines
    }
}

fn numbers(updates: &[Update]) -> String {
    updates
        .iter()
        .map(|u| format!("#{}", u.number))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn judge_all(
    pulls: &[OpenPullRequest],
    config: &Config,
    discovery: &Discovery,
    base: &str,
) -> Judgement {
    let mut pulls: Vec<&OpenPullRequest> = pulls.iter().collect();
    pulls.sort_by_key(|p| p.number);
    let mut judgement = Judgement::default();
    for pull in pulls {
        match judge(pull, config, discovery, base) {
            Judged::Listed(u) => judgement.listed.push(u),
            Judged::Waiting(u) => judgement.waiting.push(u),
            Judged::Not(why) => judgement.not.push(why),
            Judged::NotAnUpdate => {}
        }
    }
    judgement
}
