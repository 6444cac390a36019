//! What the deployment records say (decision 0003): the lock and the history of every
//! deploy, read as one page of the newest records per environment. Every writer redraws
//! the rows' deploying state, failure lines and the trail from here, so the body is only
//! ever a cache of it.

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;
use sluiceway_core::record::{self, Approved, Payload};
use sluiceway_core::stack::{Stack, StackId};
use sluiceway_dashboard::view::{FailureLine, TrailEntry, TrailResult};
use sluiceway_github::{DeploymentRecord, GitHub, GitHubError, RecordState};

use crate::modes::resolve::BOT;

/// The fixed descriptions a record's statuses end with, below the modes so the console
/// reads them too.
pub use sluiceway_core::record::ended;

/// Who opened a record (decision 0109).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opener {
    /// The workflow itself, on a tick: its token's account.
    Workflow,
    /// A login `recordWriters` names: a bot or a console deploying without a tick. Its
    /// record is started by a scheduled or dispatched run as a record of the workflow's
    /// own, and deploys after the same hash and fingerprint checks.
    Writer,
    /// Anyone else: the record is ended and never deployed, nor read as history.
    Stranger,
}

impl Opener {
    /// Logins are compared as GitHub does, without regard to case.
    pub fn of(creator: Option<&str>, writers: &[String]) -> Opener {
        match creator {
            Some(login) if login.eq_ignore_ascii_case(BOT) => Opener::Workflow,
            Some(login) if writers.iter().any(|w| w.eq_ignore_ascii_case(login)) => Opener::Writer,
            _ => Opener::Stranger,
        }
    }
}

/// One Sluiceway record, its payload read.
#[derive(Debug, Clone)]
pub struct Record {
    pub id: u64,
    pub opener: Opener,
    /// The login that made it, when GitHub names one.
    pub creator: Option<String>,
    pub stack: StackId,
    pub environment: String,
    pub sha: String,
    pub payload: Payload,
    pub state: Option<RecordState>,
    pub description: String,
    /// When its newest status was written, else when it was made.
    pub at: Timestamp,
}

impl Record {
    /// Reads a record of ours; `None` for another task or a payload this version does
    /// not read.
    pub fn of(found: &DeploymentRecord, writers: &[String]) -> Option<Record> {
        let stack = StackId::given(record::stack_of_task(&found.task)?);
        let payload = Payload::read(&found.payload)?;
        Some(Record {
            id: found.id,
            opener: Opener::of(found.creator.as_deref(), writers),
            creator: found.creator.clone(),
            stack,
            environment: found.environment.clone(),
            sha: found.sha.clone(),
            payload,
            state: found.latest_status.as_ref().map(|s| s.state),
            description: found
                .latest_status
                .as_ref()
                .map(|s| s.description.clone())
                .unwrap_or_default(),
            at: found
                .latest_status
                .as_ref()
                .map_or(found.created_at, |s| s.created_at),
        })
    }

    pub fn is_open(&self) -> bool {
        !self.state.is_some_and(RecordState::is_result)
    }

    /// How the trail names this record, when it is a deploy fact at all.
    fn trail_result(&self) -> Option<TrailResult> {
        TrailResult::of(
            self.state?.rest_name(),
            &self.description,
            self.payload.drift,
        )
    }
}

/// A deploy on the trail and the commits it shipped: from its stack's success before to
/// its own commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShippedRange {
    pub record: u64,
    pub stack: StackId,
    pub from: String,
    pub to: String,
}

/// The records of every environment the stacks name, newest first.
#[derive(Debug, Clone, Default)]
pub struct Records {
    /// The records of the workflow and of the record writers: the lock and the history.
    pub all: Vec<Record>,
    /// Open records anyone else opened, which resolve ends; they lock nothing and are no
    /// part of the history, so a record nobody trusted cannot show as a deploy.
    pub strangers: Vec<Record>,
}

impl Records {
    pub fn read(
        github: &dyn GitHub,
        stacks: &[Stack],
        writers: &[String],
    ) -> Result<Records, GitHubError> {
        let environments: BTreeSet<&str> = stacks
            .iter()
            .map(|s| s.settings.environment.as_str())
            .collect();
        let mut all = Vec::new();
        for environment in environments {
            all.extend(
                github
                    .deployment_records(environment)?
                    .records
                    .iter()
                    .filter_map(|found| Record::of(found, writers)),
            );
        }
        all.sort_by(|a, b| b.at.cmp(&a.at).then(b.id.cmp(&a.id)));
        let (strangers, all): (Vec<Record>, Vec<Record>) =
            all.into_iter().partition(|r| r.opener == Opener::Stranger);
        Ok(Records {
            all,
            strangers: strangers.into_iter().filter(Record::is_open).collect(),
        })
    }

    /// Stacks with an open record: they are deploying.
    pub fn open(&self) -> BTreeSet<StackId> {
        self.all
            .iter()
            .filter(|r| r.is_open())
            .map(|r| r.stack.clone())
            .collect()
    }

    /// The stack's newest record, by the order GitHub made them in (a status written
    /// later to an older record does not make it newer).
    pub fn newest_of(&self, stack: &StackId) -> Option<&Record> {
        self.all
            .iter()
            .filter(|r| &r.stack == stack)
            .max_by_key(|r| r.id)
    }

    /// The open record of a stack, if any.
    pub fn open_of(&self, stack: &StackId) -> Option<&Record> {
        self.all.iter().find(|r| r.is_open() && &r.stack == stack)
    }

    /// The commit of each stack's newest successful deploy.
    pub fn last_deploys(&self) -> BTreeMap<StackId, String> {
        let mut last = BTreeMap::new();
        for record in &self.all {
            if record.state == Some(RecordState::Success) {
                last.entry(record.stack.clone())
                    .or_insert_with(|| record.sha.clone());
            }
        }
        last
    }

    /// The deploys on the trail that went out, each with the commit of its stack's
    /// success before (a deploy, or one that found nothing): what decision 0072's shipped
    /// line covers. A deploy with no success before it in the records read has none.
    pub fn shipped_ranges(&self) -> Vec<ShippedRange> {
        self.all
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                matches!(
                    r.trail_result(),
                    Some(TrailResult::Deployed | TrailResult::DriftFixed)
                )
            })
            .filter_map(|(i, r)| {
                let before = self.all[i + 1..]
                    .iter()
                    .find(|o| o.stack == r.stack && o.state == Some(RecordState::Success))?;
                Some(ShippedRange {
                    record: r.id,
                    stack: r.stack.clone(),
                    from: before.sha.clone(),
                    to: r.sha.clone(),
                })
            })
            .collect()
    }

    /// Stacks with a record written after `since`.
    pub fn newer_than(&self, since: Timestamp) -> BTreeSet<StackId> {
        self.all
            .iter()
            .filter(|r| r.at > since)
            .map(|r| r.stack.clone())
            .collect()
    }

    /// When each stack's newest record (of anyone) was made or last given a status: a row
    /// drawn before that may show a deploy, failure or attribution that moved (ADR 0029).
    pub fn last_recorded(&self) -> BTreeMap<StackId, Timestamp> {
        let mut last: BTreeMap<StackId, Timestamp> = BTreeMap::new();
        for record in self.all.iter().chain(&self.strangers) {
            let at = last.entry(record.stack.clone()).or_insert(record.at);
            *at = (*at).max(record.at);
        }
        last
    }

    /// The runs of each stack's records, whatever their result: a tool's history entry
    /// of one of them is Sluiceway's own deploy (decision 0073).
    pub fn runs(&self) -> BTreeMap<StackId, BTreeSet<u64>> {
        let mut runs: BTreeMap<StackId, BTreeSet<u64>> = BTreeMap::new();
        for record in &self.all {
            runs.entry(record.stack.clone())
                .or_default()
                .insert(record.payload.run);
        }
        runs
    }

    /// Every deploy that ended, newest first (decision 0062).
    pub fn trail(&self, run_url: impl Fn(u64) -> String) -> Vec<TrailEntry> {
        self.all
            .iter()
            .filter_map(|r| {
                Some(TrailEntry {
                    stack: r.stack.clone(),
                    result: r.trail_result()?,
                    login: r.payload.ticker.clone(),
                    on_merge: r.payload.on_merge,
                    at: r.at,
                    run: run_url(r.payload.run),
                    record: r.id,
                    shipped: None,
                })
            })
            .collect()
    }

    /// The hash each stack's newest ended record deployed, when that record went out
    /// (a deploy or a drift repair that changed something): a fresh preview that is
    /// pending at that very hash says so on its row.
    pub fn deployed_hashes(&self) -> BTreeMap<StackId, String> {
        let mut seen = BTreeSet::new();
        let mut hashes = BTreeMap::new();
        for record in &self.all {
            let Some(result) = record.trail_result() else {
                continue;
            };
            if !seen.insert(record.stack.clone()) {
                continue;
            }
            if let (TrailResult::Deployed | TrailResult::DriftFixed, Approved::Hash(hash)) =
                (result, &record.payload.approved)
            {
                hashes.insert(record.stack.clone(), hash.clone());
            }
        }
        hashes
    }

    /// The failure line of each stack whose newest ended deploy failed: it stays on the
    /// row until a later deploy goes out.
    pub fn failure_lines(&self, run_url: impl Fn(u64) -> String) -> BTreeMap<StackId, FailureLine> {
        let mut seen = BTreeSet::new();
        let mut lines = BTreeMap::new();
        for record in &self.all {
            let Some(result) = record.trail_result() else {
                continue;
            };
            if !seen.insert(record.stack.clone()) {
                continue;
            }
            if result == TrailResult::Failed {
                lines.insert(
                    record.stack.clone(),
                    FailureLine {
                        reason: record.description.clone(),
                        ticker: record.payload.ticker.clone(),
                        on_merge: record.payload.on_merge,
                        at: record.at,
                        run: run_url(record.payload.run),
                    },
                );
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(
        stack: &str,
        hash: &str,
        drift: bool,
        state: RecordState,
        description: &str,
    ) -> Record {
        Record {
            id: 1,
            opener: Opener::Workflow,
            creator: Some(BOT.to_owned()),
            stack: StackId::given(stack),
            environment: "sluiceway".to_owned(),
            sha: "34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91".to_owned(),
            payload: Payload {
                approved: Approved::Hash(hash.to_owned()),
                ticker: "alice".to_owned(),
                run: 7,
                attempt: Some(1),
                behind: Vec::new(),
                drift,
                on_merge: false,
                fingerprint: None,
                window: false,
            },
            state: Some(state),
            description: description.to_owned(),
            at: "2026-11-30T10:00:00Z".parse().unwrap(),
        }
    }

    /// Decisions 0059 and 0091: a drift repair that changed something says drift fixed,
    /// one that found nothing drift gone; only a deploy that went out names its hash.
    #[test]
    fn the_trail_tells_a_drift_repair_and_the_newest_deploy_names_its_hash() {
        let records = Records {
            all: vec![
                record(
                    "a",
                    "1111111111111111",
                    true,
                    RecordState::Success,
                    ended::DEPLOYED,
                ),
                record(
                    "b",
                    "2222222222222222",
                    true,
                    RecordState::Success,
                    ended::IN_SYNC,
                ),
                record(
                    "c",
                    "3333333333333333",
                    false,
                    RecordState::Success,
                    ended::DEPLOYED,
                ),
                record(
                    "d",
                    "4444444444444444",
                    false,
                    RecordState::Inactive,
                    ended::REHEARSED,
                ),
                record(
                    "c",
                    "5555555555555555",
                    false,
                    RecordState::Success,
                    ended::DEPLOYED,
                ),
            ],
            strangers: Vec::new(),
        };
        let results: Vec<(String, TrailResult)> = records
            .trail(|run| run.to_string())
            .into_iter()
            .map(|e| (e.stack.to_string(), e.result))
            .collect();
        assert_eq!(
            results[..4],
            [
                ("a".to_owned(), TrailResult::DriftFixed),
                ("b".to_owned(), TrailResult::DriftGone),
                ("c".to_owned(), TrailResult::Deployed),
                ("d".to_owned(), TrailResult::Rehearsed),
            ]
        );
        let hashes = records.deployed_hashes();
        assert_eq!(
            hashes.get(&StackId::given("a")).map(String::as_str),
            Some("1111111111111111")
        );
        assert_eq!(hashes.get(&StackId::given("b")), None, "nothing went out");
        assert_eq!(
            hashes.get(&StackId::given("c")).map(String::as_str),
            Some("3333333333333333"),
            "the newest record, listed first"
        );
        assert_eq!(
            hashes.get(&StackId::given("d")),
            None,
            "a rehearsal deploys nothing"
        );
    }

    #[test]
    fn the_opener_is_the_workflow_a_writer_or_a_stranger_whatever_the_case() {
        let writers = vec!["Deploy-Bot[bot]".to_owned()];
        assert_eq!(Opener::of(Some(BOT), &writers), Opener::Workflow);
        assert_eq!(
            Opener::of(Some("GitHub-Actions[bot]"), &[]),
            Opener::Workflow
        );
        assert_eq!(
            Opener::of(Some("deploy-bot[bot]"), &writers),
            Opener::Writer
        );
        assert_eq!(Opener::of(Some("deploy-bot"), &writers), Opener::Stranger);
        assert_eq!(Opener::of(Some("mallory"), &writers), Opener::Stranger);
        assert_eq!(Opener::of(None, &writers), Opener::Stranger);
    }
}
