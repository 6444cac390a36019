//! The job summary: every stack with every change in full, an index with an anchor per
//! stack (the row's links land here), under its own budget. What does not fit stays in
//! the job log.

use std::fmt::Write as _;

use sluiceway_core::diff::{Change, Op, code_unit_order};

use crate::escape;
use crate::view::{RowSource, State, View};

/// GitHub keeps up to 1 MiB of a step's summary.
pub const BUDGET: usize = 1024 * 1024;

/// The anchor a stack's section has: stable for a stack id, unique in one summary.
pub fn anchor(stack: &str) -> String {
    let mut out = String::from("stack-");
    for c in stack.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else {
            let _ = write!(out, "-{:x}-", u32::from(c));
        }
    }
    out
}

pub(crate) fn change_line(change: &Change) -> String {
    let label = match (change.op, change.tracking) {
        (Op::None, Some(t)) => t.name().to_owned(),
        (op, Some(t)) => format!("{} ({})", op.name(), t.name()),
        (op, None) => op.name().to_owned(),
    };
    let mut line = format!(
        "- **{label}** <code>{}</code> {}",
        escape::text(&change.kind),
        escape::text(&change.name)
    );
    if let Some(previous) = &change.previous_address {
        let _ = write!(line, " · from <code>{}</code>", escape::text(previous));
    }
    let mut keys = change.changed_keys.clone();
    keys.sort_by(|a, b| code_unit_order(a, b));
    let shown_at = |path: &str| change.values.iter().find(|v| v.path == path);
    let mut parts: Vec<String> = keys
        .iter()
        .map(|k| match shown_at(k) {
            Some(value) => format!(
                "<code>{}</code> {}",
                escape::text(k),
                crate::rows::old_to_new(value)
            ),
            None => format!("<code>{}</code>", escape::text(k)),
        })
        .collect();
    parts.extend(
        change
            .values
            .iter()
            .filter(|v| !change.changed_keys.contains(&v.path))
            .map(|v| {
                format!(
                    "<code>{}</code> {}",
                    escape::text(&v.path),
                    crate::rows::old_to_new(v)
                )
            }),
    );
    if !parts.is_empty() {
        let _ = write!(line, " · {}", parts.join(", "));
    }
    if !change.replace_keys.is_empty() {
        let forced: Vec<String> = change
            .replace_keys
            .iter()
            .map(|k| format!("<code>{}</code>", escape::text(k)))
            .collect();
        let _ = write!(line, " · forced by {}", forced.join(", "));
    }
    line
}

/// The summary of a scan.
pub fn render(view: &View) -> String {
    let mut out = format!(
        "## Sluiceway scan of {}\n\n",
        view.links
            .scanned(&view.root.scan_sha)
            .trim_end_matches(',')
    );
    let mut rows: Vec<&RowSource> = view.rows.iter().collect();
    let stack_of = |r: &RowSource| match r {
        RowSource::Fresh(row) => row.stack.to_string(),
        RowSource::Carried(block) => block.facts.stack.clone(),
    };
    rows.sort_by(|a, b| code_unit_order(&stack_of(a), &stack_of(b)));
    out.push_str("| Stack | State |\n|---|---|\n");
    for row in &rows {
        let stack = stack_of(row);
        let state = match row {
            RowSource::Fresh(row) => match &row.state {
                State::Pending { .. } => "pending",
                State::Drifted { .. } => "drifted",
                State::Deploying { .. } => "deploying",
                State::Queued { .. } => "queued",
                State::PreviewFailed { .. } => "preview failed",
                State::Busy { .. } => "busy",
                State::InSync => "in sync",
            },
            RowSource::Carried(_) => "not previewed by this scan",
        };
        let _ = writeln!(
            out,
            "| [{}](#{}) | {state} |",
            escape::text(&stack),
            anchor(&stack)
        );
    }
    out.push('\n');
    let mut cut = false;
    for row in rows {
        let RowSource::Fresh(row) = row else { continue };
        let (diff, heading) = match &row.state {
            State::Pending { diff, .. } => (diff, "pending"),
            State::Drifted { diff, .. } => (diff, "drifted"),
            _ => continue,
        };
        let stack = row.stack.to_string();
        let mut section = format!(
            "### <a id=\"{}\"></a>{}\n\n{heading} · diff hash `{}`\n\n",
            anchor(&stack),
            escape::text(&stack),
            diff.hash()
        );
        let mut changes = diff.changes.clone();
        changes.sort_by(|a, b| code_unit_order(&a.address, &b.address));
        for change in &changes {
            section.push_str(&change_line(change));
            section.push('\n');
        }
        if let Some(drift) = diff.drift.as_ref().filter(|d| !d.is_empty()) {
            section.push_str("\nChanged outside the code:\n\n");
            for change in drift {
                section.push_str(&change_line(change));
                section.push('\n');
            }
        }
        section.push('\n');
        if cut || out.len() + section.len() > BUDGET - 200 {
            if !cut {
                out.push_str("The rest of the changes did not fit in this summary; the job log lists them.\n");
            }
            cut = true;
            continue;
        }
        out.push_str(&section);
    }
    out
}
