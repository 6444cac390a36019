//! A row's marker facts: what a writer or a reader may know of a row without reading its
//! text. Counts, the header and the sections are computed from these alone.

use crate::marker::{Marker, join_list, split_list};

/// The states a row marker can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum RowState {
    Pending,
    Deploying,
    Queued,
    PreviewFailed,
    Drift,
    InSync,
}

impl RowState {
    pub fn name(self) -> &'static str {
        match self {
            RowState::Pending => "pending",
            RowState::Deploying => "deploying",
            RowState::Queued => "queued",
            RowState::PreviewFailed => "preview-failed",
            RowState::Drift => "drift",
            RowState::InSync => "in-sync",
        }
    }

    pub fn parse(name: &str) -> Option<RowState> {
        [
            RowState::Pending,
            RowState::Deploying,
            RowState::Queued,
            RowState::PreviewFailed,
            RowState::Drift,
            RowState::InSync,
        ]
        .into_iter()
        .find(|s| s.name() == name)
    }
}

/// The facts of a row marker, in the marker's fixed key order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowFacts {
    pub stack: String,
    /// `None` for a state this version does not know (its row is carried, never counted).
    pub state: Option<RowState>,
    pub hash: Option<String>,
    /// Pending deletes plus replaces.
    pub destroys: usize,
    pub deletes: usize,
    /// The last deploy failed.
    pub failed: bool,
    /// The size budget's level, 0 to 3.
    pub shortened: u8,
    pub drift: bool,
    /// Drifted resources gone outside the code, and changed outside it.
    pub gone: usize,
    pub changed: usize,
    pub creates: usize,
    pub updates: usize,
    pub replaces: usize,
    pub tracking: usize,
    pub behind: Vec<String>,
    pub busy: bool,
    /// The value fingerprint (decision 0102), after every older key.
    pub fingerprint: Option<String>,
    /// The drift check ran and failed (decision 0121): the row says drift not checked.
    pub drift_check_failed: bool,
    /// A policy failed on the pending change (decision 0106): the row has no box, and a
    /// tick or a bulk box that reaches it deploys nothing.
    pub policy_failed: bool,
    /// A digest of what a pending or drifted row was drawn from, apart from its
    /// attribution and its preview link (ADR 0029): a scan of the same commit that would
    /// draw it from the same keeps the block as it is.
    pub drawn: Option<String>,
}

fn count(n: usize) -> String {
    if n == 0 { String::new() } else { n.to_string() }
}

fn flag(on: bool) -> &'static str {
    if on { "true" } else { "" }
}

impl RowFacts {
    pub fn marker(&self, state_name: &str) -> Marker {
        Marker::new("row")
            .with("stack", self.stack.clone())
            .with("state", state_name)
            .with("hash", self.hash.clone().unwrap_or_default())
            .with("destroys", count(self.destroys))
            .with("deletes", count(self.deletes))
            .with("failed", flag(self.failed))
            .with("shortened", count(usize::from(self.shortened)))
            .with("drift", flag(self.drift))
            .with("gone", count(self.gone))
            .with("changed", count(self.changed))
            .with("creates", count(self.creates))
            .with("updates", count(self.updates))
            .with("replaces", count(self.replaces))
            .with("tracking", count(self.tracking))
            .with("behind", join_list(&self.behind))
            .with("busy", flag(self.busy))
            .with("fingerprint", self.fingerprint.clone().unwrap_or_default())
            .with(
                "drift-check",
                if self.drift_check_failed {
                    "failed"
                } else {
                    ""
                },
            )
            .with("policy", if self.policy_failed { "failed" } else { "" })
            .with("drawn", self.drawn.clone().unwrap_or_default())
    }

    /// Reads a row marker; `None` when it names no stack. Unknown keys are ignored.
    pub fn from_marker(marker: &Marker) -> Option<RowFacts> {
        if marker.kind != "row" {
            return None;
        }
        let stack = marker.get("stack").filter(|s| !s.is_empty())?.to_owned();
        let number = |key: &str| {
            marker
                .get(key)
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(0)
        };
        let yes = |key: &str| marker.get(key) == Some("true");
        Some(RowFacts {
            stack,
            state: marker.get("state").and_then(RowState::parse),
            hash: marker.get("hash").map(str::to_owned),
            destroys: number("destroys"),
            deletes: number("deletes"),
            failed: yes("failed"),
            shortened: u8::try_from(number("shortened").min(3)).unwrap_or(0),
            drift: yes("drift"),
            gone: number("gone"),
            changed: number("changed"),
            creates: number("creates"),
            updates: number("updates"),
            replaces: number("replaces"),
            tracking: number("tracking"),
            behind: split_list(marker.get("behind").unwrap_or("")),
            busy: yes("busy"),
            fingerprint: marker
                .get("fingerprint")
                .filter(|f| !f.is_empty())
                .map(str::to_owned),
            drift_check_failed: marker.get("drift-check") == Some("failed"),
            policy_failed: marker.get("policy") == Some("failed"),
            drawn: marker
                .get("drawn")
                .filter(|d| !d.is_empty())
                .map(str::to_owned),
        })
    }
}
