//! What a scan's write brought that the dashboard did not show before (decision 0078):
//! the news is told once, when it first appears, and a second scan that finds the same
//! says nothing. Both sides are row markers, so the judgement reads no row's text.
//!
//! A pending row is news when the body before the scan's first write had no pending
//! row of that stack at the same hash: a new change to a stack already pending is news
//! too, as it asks for a new tick. A drifted row is news when the stack's row did not
//! show drift before.

use std::collections::BTreeSet;

use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::reader::ReadBody;

/// The stacks newly pending and newly drifted, in the written body's order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct News {
    pub pending: Vec<String>,
    pub drift: Vec<String>,
}

/// `before` is the body the scan started from (`None` for a dashboard it created).
pub fn between(before: Option<&ReadBody>, after: &ReadBody) -> News {
    let rows = before.map(|b| b.rows.as_slice()).unwrap_or_default();
    let pending_before: BTreeSet<(&str, Option<&str>)> = rows
        .iter()
        .filter(|r| is_pending(r.facts.state, r.facts.busy))
        .map(|r| (r.facts.stack.as_str(), r.facts.hash.as_deref()))
        .collect();
    let drift_before: BTreeSet<&str> = rows
        .iter()
        .filter(|r| r.facts.drift)
        .map(|r| r.facts.stack.as_str())
        .collect();
    let mut news = News::default();
    for row in &after.rows {
        let stack = row.facts.stack.as_str();
        if is_pending(row.facts.state, row.facts.busy)
            && !pending_before.contains(&(stack, row.facts.hash.as_deref()))
        {
            news.pending.push(stack.to_owned());
        }
        if row.facts.drift && !drift_before.contains(stack) {
            news.drift.push(stack.to_owned());
        }
    }
    news
}

fn is_pending(state: Option<RowState>, busy: bool) -> bool {
    state == Some(RowState::Pending) && !busy
}

#[cfg(test)]
mod tests {
    use sluiceway_dashboard::facts::RowFacts;
    use sluiceway_dashboard::reader::RowBlock;

    use super::*;

    fn body(rows: &[(&str, RowState, &str, bool)]) -> ReadBody {
        ReadBody {
            root: None,
            rows: rows
                .iter()
                .map(|(stack, state, hash, drift)| {
                    let facts = RowFacts {
                        stack: (*stack).to_owned(),
                        state: Some(*state),
                        hash: Some((*hash).to_owned()),
                        drift: *drift,
                        ..RowFacts::default()
                    };
                    RowBlock {
                        marker: facts.marker(state.name()),
                        facts,
                        ticked: false,
                        text: String::new(),
                    }
                })
                .collect(),
            rescan: None,
            bulk: Vec::new(),
            outside: Vec::new(),
            shipped: Vec::new(),
            updates: Default::default(),
        }
    }

    #[test]
    fn only_what_was_not_shown_before_is_news() {
        use RowState::*;
        let before = body(&[
            ("a", Pending, "h1", false),
            ("b", Pending, "h2", false),
            ("c", Drift, "h3", true),
            ("d", InSync, "h4", false),
        ]);
        let after = body(&[
            ("a", Pending, "h1", false),
            ("b", Pending, "h9", false),
            ("c", Drift, "h3", true),
            ("d", Pending, "h5", true),
            ("e", InSync, "h6", false),
        ]);
        assert_eq!(
            between(Some(&before), &after),
            News {
                pending: vec!["b".into(), "d".into()],
                drift: vec!["d".into()],
            }
        );
        assert_eq!(between(Some(&after), &after), News::default());
        assert_eq!(
            between(None, &after).pending,
            ["a", "b", "d"],
            "a dashboard made by this scan had nothing before"
        );
    }
}
