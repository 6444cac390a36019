//! The header: which state the dashboard is in, computed from the row markers alone, and
//! the picture that shows it.
//!
//! Bad news wins: a failure outranks a deploy in progress, which outranks a queue, which
//! outranks changes waiting, which outrank drift. The picture shows one crate per pending
//! row (up to five, then a heap) and a sign for deletes and replaces waiting.

use crate::facts::{RowFacts, RowState};

/// The header's state, in order of precedence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum HeaderState {
    Failing,
    Deploying,
    Queued,
    Pending,
    Drift,
    FirstRun,
    InSync,
}

impl HeaderState {
    pub const ALL: [HeaderState; 7] = [
        HeaderState::Failing,
        HeaderState::Deploying,
        HeaderState::Queued,
        HeaderState::Pending,
        HeaderState::Drift,
        HeaderState::FirstRun,
        HeaderState::InSync,
    ];

    pub fn name(self) -> &'static str {
        match self {
            HeaderState::Failing => "failing",
            HeaderState::Deploying => "deploying",
            HeaderState::Queued => "queued",
            HeaderState::Pending => "pending",
            HeaderState::Drift => "drift",
            HeaderState::FirstRun => "first-run",
            HeaderState::InSync => "in-sync",
        }
    }

    /// States whose picture shows the crates waiting and the destroy signs.
    pub fn shows_crates(self) -> bool {
        matches!(
            self,
            HeaderState::Failing
                | HeaderState::Deploying
                | HeaderState::Queued
                | HeaderState::Pending
        )
    }
}

/// The most crates a picture draws; more are a heap.
pub const MOST_CRATES: usize = 5;

/// What the picture shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub state: HeaderState,
    pub pending: usize,
    pub deletes: bool,
    pub replaces: bool,
    pub busy: usize,
    pub failed_previews: usize,
    pub failed_deploys: usize,
}

/// The header of a body whose known rows have these facts.
pub fn header(rows: &[&RowFacts]) -> Header {
    let count = |state| rows.iter().filter(|r| r.state == Some(state)).count();
    let failed_previews = rows
        .iter()
        .filter(|r| r.state == Some(RowState::PreviewFailed) && !r.busy)
        .count();
    let failed_deploys = rows.iter().filter(|r| r.failed).count();
    let busy = rows.iter().filter(|r| r.busy).count();
    let state = if failed_previews + failed_deploys > 0 {
        HeaderState::Failing
    } else if count(RowState::Deploying) > 0 {
        HeaderState::Deploying
    } else if count(RowState::Queued) > 0 {
        HeaderState::Queued
    } else if count(RowState::Pending) > 0 {
        HeaderState::Pending
    } else if count(RowState::Drift) > 0 {
        HeaderState::Drift
    } else if rows.is_empty() {
        HeaderState::FirstRun
    } else {
        HeaderState::InSync
    };
    let waiting = |r: &&&RowFacts| {
        matches!(
            r.state,
            Some(RowState::Pending | RowState::Deploying | RowState::Queued)
        )
    };
    Header {
        state,
        pending: count(RowState::Pending),
        deletes: rows.iter().filter(waiting).any(|r| r.deletes > 0),
        replaces: rows.iter().filter(waiting).any(|r| r.destroys > r.deletes),
        busy,
        failed_previews,
        failed_deploys,
    }
}

impl Header {
    /// The picture's file name without the theme: `pending-3-deletes`, `in-sync`.
    pub fn picture(&self) -> String {
        if !self.state.shows_crates() {
            return self.state.name().to_owned();
        }
        picture_name(self.state, self.pending, self.deletes, self.replaces)
    }

    /// What the picture says to someone who cannot see it.
    pub fn alt(&self) -> String {
        let mut alt = match self.state {
            HeaderState::Failing => {
                let mut parts = Vec::new();
                if self.failed_previews > 0 {
                    parts.push(plural(self.failed_previews, "preview", "previews"));
                }
                if self.failed_deploys > 0 {
                    parts.push(plural(self.failed_deploys, "deploy", "deploys"));
                }
                format!("Sluiceway: {} failed", parts.join(" and "))
            }
            HeaderState::Deploying => "Sluiceway: deploying".to_owned(),
            HeaderState::Queued => "Sluiceway: deploys are queued".to_owned(),
            HeaderState::Pending => "Sluiceway: changes are waiting".to_owned(),
            HeaderState::Drift => "Sluiceway: something changed outside the code".to_owned(),
            HeaderState::FirstRun => "Sluiceway: no stacks yet".to_owned(),
            HeaderState::InSync => "Sluiceway: every stack is in sync".to_owned(),
        };
        if self.state.shows_crates() && self.pending > 0 {
            alt.push_str(&format!(
                ", {} pending",
                plural(self.pending, "stack is", "stacks are")
            ));
        }
        if self.state.shows_crates() && (self.deletes || self.replaces) {
            alt.push_str(", some changes delete or replace resources");
        }
        if self.busy > 0 {
            alt.push_str(&format!(
                ", {} busy",
                plural(self.busy, "stack is", "stacks are")
            ));
        }
        alt
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// `pending-3`, `failing-more-deletes-replaces`.
pub fn picture_name(state: HeaderState, crates: usize, deletes: bool, replaces: bool) -> String {
    let count = if crates > MOST_CRATES {
        "more".to_owned()
    } else {
        crates.to_string()
    };
    let sign = match (deletes, replaces) {
        (true, true) => "-deletes-replaces",
        (true, false) => "-deletes",
        (false, true) => "-replaces",
        (false, false) => "",
    };
    format!("{}-{count}{sign}", state.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(state: RowState) -> RowFacts {
        RowFacts {
            stack: "s".into(),
            state: Some(state),
            ..RowFacts::default()
        }
    }

    #[test]
    fn bad_news_wins() {
        let pending = RowFacts {
            deletes: 1,
            destroys: 1,
            ..row(RowState::Pending)
        };
        let failed = RowFacts {
            failed: true,
            ..row(RowState::InSync)
        };
        let deploying = row(RowState::Deploying);
        assert_eq!(
            header(&[&pending, &failed, &deploying]).state,
            HeaderState::Failing
        );
        assert_eq!(
            header(&[&pending, &deploying]).state,
            HeaderState::Deploying
        );
        assert_eq!(
            header(&[&pending, &row(RowState::Drift)]).state,
            HeaderState::Pending
        );
        assert_eq!(
            header(&[&row(RowState::Drift), &row(RowState::InSync)]).state,
            HeaderState::Drift
        );
        assert_eq!(header(&[]).state, HeaderState::FirstRun);
        let busy = RowFacts {
            busy: true,
            ..row(RowState::PreviewFailed)
        };
        assert_eq!(
            header(&[&busy]).state,
            HeaderState::InSync,
            "busy is not a failure"
        );
        let h = header(&[&pending, &deploying]);
        assert_eq!(h.picture(), "deploying-1-deletes");
        assert_eq!(
            h.alt(),
            "Sluiceway: deploying, 1 stack is pending, some changes delete or replace resources"
        );
    }

    #[test]
    fn more_than_five_crates_are_a_heap() {
        assert_eq!(
            picture_name(HeaderState::Pending, 6, false, true),
            "pending-more-replaces"
        );
        assert_eq!(
            picture_name(HeaderState::Queued, 5, false, false),
            "queued-5"
        );
    }
}
