//! What the console learns from a dashboard: the scan's facts from the root marker and
//! each row's from its marker, read with the action's own reader so the console and the
//! action never disagree about a row. A row's text is never read, so no resource name,
//! property path or value can reach the console's store from here.

use jiff::Timestamp;
use sluiceway_core::record::{self, Payload};
use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::reader;
use sluiceway_dashboard::view::{Root, TrailResult};

/// A dashboard's facts, as its markers state them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dashboard {
    pub scan: Scan,
    pub stacks: Vec<StackFacts>,
}

/// The scan that last wrote the dashboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scan {
    pub sha: String,
    pub run: u64,
    pub at: Timestamp,
}

/// One row's facts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StackFacts {
    pub stack: String,
    pub state: RowState,
    pub creates: u64,
    pub updates: u64,
    pub replaces: u64,
    pub deletes: u64,
    /// Pending deletes plus replaces.
    pub destroys: u64,
    pub tracking: u64,
    /// Drifted resources changed outside the code, and gone outside it.
    pub changed: u64,
    pub gone: u64,
    /// The last deploy failed.
    pub failed: bool,
    /// Another update held the stack's lock at both tries of its preview.
    pub busy: bool,
    pub ticked: bool,
}

impl Dashboard {
    /// The facts of an issue body, or `None` when it is not a dashboard this version
    /// reads (no root marker of version 1). Rows in states this version does not know
    /// are left out, as the action leaves them uncounted.
    pub fn read(body: &str) -> Option<Dashboard> {
        let read = reader::read(body);
        let root = Root::read(&read)?;
        let stacks = read
            .rows
            .iter()
            .filter_map(|row| {
                let facts = &row.facts;
                Some(StackFacts {
                    stack: facts.stack.clone(),
                    state: facts.state?,
                    creates: count(facts.creates),
                    updates: count(facts.updates),
                    replaces: count(facts.replaces),
                    deletes: count(facts.deletes),
                    destroys: count(facts.destroys),
                    tracking: count(facts.tracking),
                    changed: count(facts.changed),
                    gone: count(facts.gone),
                    failed: facts.failed,
                    busy: facts.busy,
                    ticked: row.ticked,
                })
            })
            .collect();
        Some(Dashboard {
            scan: Scan {
                sha: root.scan_sha,
                run: root.scan_run,
                at: root.scan_at,
            },
            stacks,
        })
    }
}

/// One of Sluiceway's deployment records, as a delivery tells it: the stack its task
/// names, its payload read with the action's own reader, and its newest status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeployFacts {
    pub id: u64,
    pub stack: String,
    pub sha: String,
    pub ticker: String,
    pub on_merge: bool,
    pub drift: bool,
    /// The workflow run that opened the record.
    pub run: u64,
    pub created_at: Timestamp,
    pub status: Option<StatusFacts>,
}

/// A record's newest status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusFacts {
    /// GitHub's state: `queued`, `in_progress`, `success`, `failure`…
    pub state: String,
    pub at: Timestamp,
    /// How the record ended, once it has.
    pub ended: Option<Ended>,
}

/// How a record ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// A deploy fact, as the trail names it.
    Trail(TrailResult),
    /// No deploy: the change moved since the tick, or a later record carries it on.
    NotADeploy,
}

impl Ended {
    const NAMES: [(&'static str, Ended); 7] = [
        ("deployed", Ended::Trail(TrailResult::Deployed)),
        ("drift-fixed", Ended::Trail(TrailResult::DriftFixed)),
        ("drift-gone", Ended::Trail(TrailResult::DriftGone)),
        ("no-changes", Ended::Trail(TrailResult::NoChanges)),
        ("rehearsed", Ended::Trail(TrailResult::Rehearsed)),
        ("failed", Ended::Trail(TrailResult::Failed)),
        ("not-a-deploy", Ended::NotADeploy),
    ];

    /// The name the store keeps it by.
    pub fn name(self) -> &'static str {
        Ended::NAMES
            .iter()
            .find(|(_, ended)| *ended == self)
            .map_or("not-a-deploy", |(name, _)| name)
    }

    pub fn parse(name: &str) -> Option<Ended> {
        Ended::NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, ended)| *ended)
    }
}

impl DeployFacts {
    /// A record's facts from its task and payload, or `None` when it is not one of
    /// Sluiceway's or its payload cannot be read whole.
    pub fn read(
        id: u64,
        task: &str,
        payload: &serde_json::Value,
        sha: &str,
        created_at: Timestamp,
    ) -> Option<DeployFacts> {
        let stack = record::stack_of_task(task)?.to_owned();
        let payload = Payload::read(payload)?;
        Some(DeployFacts {
            id,
            stack,
            sha: sha.to_owned(),
            ticker: payload.ticker,
            on_merge: payload.on_merge,
            drift: payload.drift,
            run: payload.run,
            created_at,
            status: None,
        })
    }

    /// The record with the status GitHub set: `description` is read only for how the
    /// record ended, and is not kept.
    pub fn with_status(mut self, state: &str, description: &str, at: Timestamp) -> DeployFacts {
        let ends = matches!(state, "success" | "inactive" | "failure" | "error");
        self.status = Some(StatusFacts {
            state: state.to_owned(),
            at,
            ended: ends.then(|| {
                TrailResult::of(state, description, self.drift)
                    .map_or(Ended::NotADeploy, Ended::Trail)
            }),
        });
        self
    }
}

fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dashboards drawn by real scans for the book (`scripts/draw-dashboards.sh`).
    const PENDING: &str = include_str!("../../../docs/book/pictures/pending.md");
    const PREVIEW_FAILED: &str = include_str!("../../../docs/book/pictures/preview-failed.md");

    #[test]
    fn a_dashboard_gives_its_scan_and_each_rows_marker_facts() {
        let dashboard = Dashboard::read(PENDING).unwrap();
        assert_eq!(
            dashboard.scan.sha,
            "6b2690d6ff7090d1aeca03f5cdf75157faee3c31"
        );
        assert_eq!(dashboard.scan.run, 4242);
        let network = &dashboard.stacks[0];
        assert_eq!(
            (
                network.stack.as_str(),
                network.state,
                network.deletes,
                network.destroys
            ),
            ("network", RowState::Pending, 1, 1)
        );
        let dev = &dashboard.stacks[1];
        assert_eq!(
            (dev.stack.as_str(), dev.updates, dev.destroys),
            ("storage:dev", 1, 0)
        );
        assert!(dashboard.stacks.iter().all(|s| !s.ticked));
        let failed = Dashboard::read(PREVIEW_FAILED).unwrap();
        assert_eq!(
            failed
                .stacks
                .iter()
                .filter(|s| s.state == RowState::PreviewFailed)
                .map(|s| s.stack.as_str())
                .collect::<Vec<_>>(),
            ["storage:dev", "storage:prod"]
        );
    }

    #[test]
    fn an_issue_that_is_no_dashboard_gives_nothing() {
        assert_eq!(Dashboard::read("Please fix the login page."), None);
        assert_eq!(
            Dashboard::read(&PENDING.replacen("v=\"1\"", "v=\"2\"", 1)),
            None
        );
    }
}
