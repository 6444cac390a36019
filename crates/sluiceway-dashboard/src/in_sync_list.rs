//! The calm in-sync list (ADR 0039): every in-sync row that says nothing but its stack's
//! name is one line of a single list, under one marker, instead of a block with a marker
//! of its own. A block costs a row about twice its name plus seventy characters, so a
//! few hundred stacks in sync filled an issue body; a line costs its name plus three,
//! and two thousand stacks of twenty-character names fit in under 47,000.
//!
//! A row whose block is anything more (a failure line, a note, a drift check that did
//! not run, a key this version does not know) keeps its block. The reader gives every
//! line back as the block this version would draw for it, so writers, counts and
//! sections see one kind of row whichever way it was written.

use crate::escape;
use crate::facts::{RowFacts, RowState};
use crate::marker::Marker;
use crate::reader::RowBlock;

/// The kind of the marker that opens the list.
pub(crate) const KIND: &str = "in-sync";
const END: &str = "<!-- /sluiceway:in-sync -->";

fn facts(stack: &str) -> RowFacts {
    RowFacts {
        stack: stack.to_owned(),
        state: Some(RowState::InSync),
        ..RowFacts::default()
    }
}

/// The block a plain in-sync row has: its name and its marker.
fn block_text(stack: &str) -> String {
    format!(
        "- {} {}\n{}",
        escape::text(stack),
        facts(stack).marker(RowState::InSync.name()).render(),
        crate::rows::ROW_END
    )
}

/// The block is a plain in-sync row, which one line of the list says whole: its name
/// reads back exactly (a line break would not) and the block is the one drawn for it.
pub fn is_plain(block_facts: &RowFacts, text: &str) -> bool {
    let stack = block_facts.stack.as_str();
    !stack.contains(['\n', '\r']) && *block_facts == facts(stack) && text == block_text(stack)
}

/// The list of these stacks, marker first and last, without a final newline.
pub(crate) fn write<'a>(stacks: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = Marker::new(KIND).render();
    for stack in stacks {
        out.push_str("\n- ");
        out.push_str(&escape::text(stack));
    }
    out.push('\n');
    out.push_str(END);
    out
}

/// Reads the list's lines after its opening marker: each item is a row, given back as the
/// block drawn for it. The list ends at its closing marker, or at the first line that is
/// not an item when someone took the marker out. Returns the rows and how many lines
/// were read, the closing marker included.
pub(crate) fn read(lines: &[&str]) -> (Vec<RowBlock>, usize) {
    let mut rows = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim() == END {
            return (rows, i + 1);
        }
        let Some(name) = line.strip_prefix("- ") else {
            return (rows, i);
        };
        // Only a line the writer could have written is a row: a name it would have
        // escaped otherwise (a line break among them) is an edit, and left unread.
        let stack = escape::unescape(name);
        if stack.is_empty() || escape::text(&stack) != name {
            continue;
        }
        let facts = facts(&stack);
        rows.push(RowBlock {
            marker: facts.marker(RowState::InSync.name()),
            text: block_text(&stack),
            facts,
            ticked: false,
        });
    }
    (rows, lines.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::{Row, State};
    use proptest::prelude::*;

    #[test]
    fn a_plain_row_is_the_block_the_rows_draw() {
        let row = Row::new(
            sluiceway_core::stack::StackId::given("apps/web_1:prod"),
            State::InSync,
        );
        let links = crate::view::Links {
            server: "https://github.com".into(),
            repository: "acme/infra".into(),
            summary: String::new(),
            pictures: String::new(),
            reach: crate::view::Reach::Runs,
        };
        let layout = sluiceway_core::config::RawDashboard::default();
        let zone = jiff::tz::TimeZone::UTC;
        let style = crate::rows::Style {
            links: &links,
            layout: &layout,
            zone: &zone,
            names: 3,
            version: "1.0.0",
        };
        let drawn = crate::rows::render(&row, 0, &style);
        assert_eq!(drawn.text, block_text("apps/web_1:prod"));
        assert!(is_plain(&drawn.facts, &drawn.text));
    }

    #[test]
    fn a_row_that_says_more_keeps_its_block() {
        let mut failed = facts("a");
        failed.failed = true;
        assert!(!is_plain(&failed, &block_text("a")));
        let mut unchecked = facts("a");
        unchecked.drift_check_failed = true;
        assert!(!is_plain(&unchecked, &block_text("a")));
        let carried = block_text("a").replace(" -->", " later=\"key\" -->");
        assert!(!is_plain(&facts("a"), &carried));
        assert!(!is_plain(&facts("a\nb"), &block_text("a\nb")));
    }

    #[test]
    fn a_list_without_its_closing_marker_ends_at_its_last_item() {
        let lines = ["- a", "- b", "", "</details>"];
        let (rows, read) = read(&lines);
        assert_eq!(rows.len(), 2);
        assert_eq!(read, 2);
    }

    #[test]
    fn a_line_the_writer_would_not_have_written_is_no_row() {
        let lines = ["- a_b", "- a&#95;b", "- a\rb", "- ", "- c"];
        let (rows, read) = read(&lines);
        let stacks: Vec<&str> = rows.iter().map(|r| r.facts.stack.as_str()).collect();
        assert_eq!(stacks, ["a_b", "c"]);
        assert_eq!(read, lines.len());
    }

    proptest! {
        #[test]
        fn a_list_reads_back_as_the_blocks_it_was_written_from(
            stacks in proptest::collection::btree_set("[^\\n\\r]{1,30}", 0..20)
        ) {
            let text = write(stacks.iter().map(String::as_str));
            let lines: Vec<&str> = text.split('\n').collect();
            prop_assert_eq!(Marker::at_end_of(lines[0]).unwrap().kind, KIND);
            let (rows, read) = read(&lines[1..]);
            prop_assert_eq!(read, lines.len() - 1);
            let back: Vec<String> = rows.iter().map(|r| r.facts.stack.clone()).collect();
            prop_assert_eq!(back, stacks.iter().cloned().collect::<Vec<_>>());
            for row in &rows {
                prop_assert!(is_plain(&row.facts, &row.text));
            }
        }
    }
}
