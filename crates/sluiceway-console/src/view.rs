//! The org view in the API's shapes, drawn from kept facts alone: a stack's five states,
//! its words and its one line, the counts of an org and of a repository. Pure; the
//! answers' field names are the API's (`v1.1.0`).

use serde::Serialize;
use sluiceway_dashboard::facts::RowState;

use jiff::Timestamp;
use sluiceway_dashboard::view::TrailResult;

use crate::facts::{DeployFacts, Ended, StackFacts};
use crate::store::KeptRepo;

/// The console's five states: a queued row is deploying, a drifted row drifted, a row
/// whose preview or last deploy failed (or whose lock was held, ADR 0047) failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    Pending,
    Deploying,
    Drifted,
    Failed,
    InSync,
}

impl State {
    /// The five, in the order the org view counts them.
    pub const ALL: [State; 5] = [
        State::Pending,
        State::Deploying,
        State::Drifted,
        State::Failed,
        State::InSync,
    ];

    /// The API's name for the state, which the pages' addresses use too.
    pub fn name(self) -> &'static str {
        match self {
            State::Pending => "pending",
            State::Deploying => "deploying",
            State::Drifted => "drifted",
            State::Failed => "failed",
            State::InSync => "in-sync",
        }
    }

    /// The state as a person reads it on a page.
    pub fn label(self) -> &'static str {
        match self {
            State::Pending => "Pending",
            State::Deploying => "Deploying",
            State::Drifted => "Drifted",
            State::Failed => "Failed",
            State::InSync => "In sync",
        }
    }

    pub fn named(name: &str) -> Option<State> {
        State::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl Counts {
    /// How many stacks are in `state`.
    pub fn of_state(&self, state: State) -> u64 {
        match state {
            State::Pending => self.pending,
            State::Deploying => self.deploying,
            State::Drifted => self.drifted,
            State::Failed => self.failed,
            State::InSync => self.in_sync,
        }
    }

    pub fn total(&self) -> u64 {
        State::ALL.iter().map(|s| self.of_state(*s)).sum()
    }
}

impl StackFacts {
    pub fn app_state(&self) -> State {
        if self.failed {
            return State::Failed;
        }
        match self.state {
            RowState::Pending => State::Pending,
            RowState::Deploying | RowState::Queued => State::Deploying,
            RowState::PreviewFailed => State::Failed,
            RowState::Drift => State::Drifted,
            RowState::InSync => State::InSync,
        }
    }

    /// The dashboard's own word for the row.
    pub fn word(&self) -> &'static str {
        match self.state {
            _ if self.failed => "deploy failed",
            RowState::Pending => "pending",
            RowState::Deploying => "deploying",
            RowState::Queued => "queued",
            RowState::PreviewFailed if self.busy => "busy",
            RowState::PreviewFailed => "preview failed",
            RowState::Drift => "drift",
            RowState::InSync => "in sync",
        }
    }

    /// What the pending change does, in the row's words (`1 create, 1 replace`).
    pub fn changes_in_words(&self) -> Option<String> {
        let words = [
            (self.creates, "create"),
            (self.updates, "update"),
            (self.replaces, "replace"),
            (self.deletes, "delete"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, word)| plural(*n, word))
        .chain((self.tracking > 0).then(|| format!("{} tracking only", self.tracking)))
        .collect::<Vec<_>>();
        (!words.is_empty()).then(|| words.join(", "))
    }

    /// What the pending change deletes or replaces, or `None`.
    pub fn destroys_in_words(&self) -> Option<String> {
        let words = [(self.replaces, "replace"), (self.deletes, "delete")]
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(n, word)| plural(*n, word))
            .collect::<Vec<_>>();
        (!words.is_empty()).then(|| words.join(", "))
    }

    /// What changed outside the code, or `None`.
    pub fn drift_in_words(&self) -> Option<String> {
        let mut words = Vec::new();
        if self.changed > 0 {
            words.push(format!("{} changed", self.changed));
        }
        if self.gone > 0 {
            words.push(format!("{} gone", self.gone));
        }
        (!words.is_empty()).then(|| format!("{} outside the code", words.join(", ")))
    }

    /// The row's one line of meaning, as the org view says it.
    pub fn line(&self) -> String {
        match self.state {
            _ if self.failed => "The last deploy failed; its run holds the tool's words.".into(),
            RowState::Pending => match (self.changes_in_words(), self.destroys > 0) {
                (Some(words), true) => {
                    format!("Waits for a tick: {words}, deleting or replacing resources.")
                }
                (Some(words), false) => format!("Waits for a tick: {words}."),
                (None, _) => "Waits for a tick.".into(),
            },
            RowState::Deploying => "Deploying now.".into(),
            RowState::Queued => "Ticked; waits its turn to deploy.".into(),
            RowState::PreviewFailed if self.busy => {
                "Another update holds the stack's lock; the next scan previews it.".into()
            }
            RowState::PreviewFailed => "The preview failed; its run holds the tool's words.".into(),
            RowState::Drift => match self.drift_in_words() {
                Some(words) => format!("Drifted: {words}."),
                None => "Drifted.".into(),
            },
            RowState::InSync => "In sync with the code.".into(),
        }
    }
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// How many stacks are in each state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Counts {
    pub pending: u64,
    pub deploying: u64,
    pub drifted: u64,
    pub failed: u64,
    #[serde(rename = "in-sync")]
    pub in_sync: u64,
}

impl Counts {
    pub fn of<'a>(stacks: impl IntoIterator<Item = &'a StackFacts>) -> Counts {
        let mut counts = Counts::default();
        for stack in stacks {
            let n = match stack.app_state() {
                State::Pending => &mut counts.pending,
                State::Deploying => &mut counts.deploying,
                State::Drifted => &mut counts.drifted,
                State::Failed => &mut counts.failed,
                State::InSync => &mut counts.in_sync,
            };
            *n += 1;
        }
        counts
    }
}

/// A stack's line in the org view and a repository's view.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub struct StackLine {
    pub stack: String,
    pub repo: String,
    pub state: State,
    pub word: &'static str,
    pub destroys: bool,
    pub line: String,
    pub at: Option<String>,
}

impl StackLine {
    pub fn of(repo: &KeptRepo, stack: &StackFacts) -> StackLine {
        StackLine {
            stack: stack.stack.clone(),
            repo: repo.place.name.clone(),
            state: stack.app_state(),
            word: stack.word(),
            destroys: stack.app_state() == State::Pending && stack.destroys > 0,
            line: stack.line(),
            at: Some(repo.scan.at.to_string()),
        }
    }
}

/// The order the org view lists stacks in: what needs a person first, then what is in
/// flight, then the rest; by repository and stack id within each.
pub fn needs_you_first(lines: &mut [StackLine]) {
    let rank = |state: State| match state {
        State::Failed => 0,
        State::Pending => 1,
        State::Drifted => 2,
        State::Deploying => 3,
        State::InSync => 4,
    };
    lines.sort_by(|a, b| {
        (rank(a.state), &a.repo, &a.stack).cmp(&(rank(b.state), &b.repo, &b.stack))
    });
}

/// A deploy as the audit log says it: who asked, in the trail's words how it went, and
/// which of the console's deploy states that leaves the stack in.
impl DeployFacts {
    pub fn who(&self) -> String {
        if self.on_merge {
            format!("merged by {}", self.ticker)
        } else {
            format!("ticked by {}", self.ticker)
        }
    }

    /// The result in the trail's words, and the deploy state: `deploying` while the record
    /// is open, `in-sync` for a change that went out, `failed`, and `none` for a record
    /// that deployed nothing.
    pub fn result(&self) -> (&'static str, &'static str) {
        let Some(status) = &self.status else {
            return ("waiting to start", "deploying");
        };
        match status.ended {
            None if status.state == "in_progress" => ("deploying now", "deploying"),
            None => ("waiting to start", "deploying"),
            Some(Ended::Trail(TrailResult::Deployed)) => ("went out", "in-sync"),
            Some(Ended::Trail(TrailResult::DriftFixed)) => ("drift fixed", "in-sync"),
            Some(Ended::Trail(TrailResult::DriftGone)) => ("drift gone", "none"),
            Some(Ended::Trail(TrailResult::NoChanges)) => ("no changes", "none"),
            Some(Ended::Trail(TrailResult::Rehearsed)) => ("rehearsed", "none"),
            Some(Ended::Trail(TrailResult::Failed)) => ("failed", "failed"),
            Some(Ended::NotADeploy) => ("not deployed", "none"),
        }
    }

    /// A line of the audit log: every record but one that ended without being a deploy.
    pub fn is_audited(&self) -> bool {
        self.status
            .as_ref()
            .is_none_or(|s| s.ended != Some(Ended::NotADeploy))
    }

    /// When it last moved: its newest status, else its opening.
    pub fn at(&self) -> Timestamp {
        self.status.as_ref().map_or(self.created_at, |s| s.at)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(state: RowState) -> StackFacts {
        crate::testing::stack("network", state)
    }

    #[test]
    fn a_state_s_name_is_the_api_s_and_names_it_back() {
        for state in State::ALL {
            assert_eq!(
                serde_json::to_value(state).unwrap(),
                serde_json::json!(state.name())
            );
            assert_eq!(State::named(state.name()), Some(state));
        }
        assert_eq!(State::named("in sync"), None);
    }

    #[test]
    fn the_six_row_states_fall_in_the_five_app_states() {
        let cases = [
            (RowState::Pending, State::Pending, "pending"),
            (RowState::Deploying, State::Deploying, "deploying"),
            (RowState::Queued, State::Deploying, "queued"),
            (RowState::PreviewFailed, State::Failed, "preview failed"),
            (RowState::Drift, State::Drifted, "drift"),
            (RowState::InSync, State::InSync, "in sync"),
        ];
        for (row, app, word) in cases {
            assert_eq!((stack(row).app_state(), stack(row).word()), (app, word));
        }
        let failed = StackFacts {
            failed: true,
            ..stack(RowState::Pending)
        };
        assert_eq!(
            (failed.app_state(), failed.word()),
            (State::Failed, "deploy failed")
        );
        let busy = StackFacts {
            busy: true,
            ..stack(RowState::PreviewFailed)
        };
        assert_eq!((busy.app_state(), busy.word()), (State::Failed, "busy"));
    }

    #[test]
    fn a_pending_row_says_its_counts_and_what_it_destroys() {
        let row = StackFacts {
            creates: 2,
            updates: 1,
            replaces: 1,
            destroys: 1,
            ..stack(RowState::Pending)
        };
        assert_eq!(
            row.changes_in_words().as_deref(),
            Some("2 creates, 1 update, 1 replace")
        );
        assert_eq!(row.destroys_in_words().as_deref(), Some("1 replace"));
        assert_eq!(
            row.line(),
            "Waits for a tick: 2 creates, 1 update, 1 replace, deleting or replacing resources."
        );
        let drifted = StackFacts {
            changed: 1,
            gone: 2,
            ..stack(RowState::Drift)
        };
        assert_eq!(
            drifted.drift_in_words().as_deref(),
            Some("1 changed, 2 gone outside the code")
        );
    }

    #[test]
    fn counts_count_each_stack_once_in_its_app_state() {
        let stacks = [
            stack(RowState::Pending),
            stack(RowState::Queued),
            stack(RowState::Deploying),
            stack(RowState::InSync),
            StackFacts {
                failed: true,
                ..stack(RowState::InSync)
            },
        ];
        assert_eq!(
            Counts::of(&stacks),
            Counts {
                pending: 1,
                deploying: 2,
                drifted: 0,
                failed: 1,
                in_sync: 1
            }
        );
    }
}
