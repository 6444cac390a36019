//! One row block per stack, in every state, at every detail level of the size budget.
//!
//! A block is its first line (box, name, counts, link, marker), then lines in a fixed
//! order: attribution, failure line, notes, every delete and replace open, the other
//! changes in a fold, drift in a fold, and the closing marker. Deletes and replaces are
//! never hidden behind a click, and are all shown or none.

use std::fmt::Write as _;

use jiff::Timestamp;
use jiff::tz::TimeZone;
use sluiceway_core::config::RawDashboard;
use sluiceway_core::config::raw::PendingDetail;
use sluiceway_core::diff::{Change, Diff, Op, code_unit_order};

use crate::escape;
use crate::facts::{RowFacts, RowState};
use crate::view::{
    Attributed, Attribution, CostLine, FailureLine, Links, Policed, Row, State, credit,
};

/// The line that closes a row block.
pub(crate) const ROW_END: &str = "  <!-- /sluiceway:row -->";
/// Paths one fold line names before it counts the rest.
const PATHS_PER_LINE: usize = 10;
/// A path longer than this (in characters) is shortened on a row.
const LONGEST_PATH: usize = 80;

/// What every row needs from the body around it.
pub(crate) struct Style<'a> {
    pub links: &'a Links,
    pub layout: &'a RawDashboard,
    pub zone: &'a TimeZone,
    /// How many changes an attribution line names (`attribution.names`).
    pub names: usize,
    /// This release, whose rows may be drawn otherwise than another's.
    pub version: &'a str,
}

impl Style<'_> {
    fn read_only(&self) -> bool {
        self.layout.read_only
    }

    fn personality(&self) -> bool {
        self.layout.personality
    }
}

/// A rendered row: its facts (for the marker, the counts and the sections) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RenderedRow {
    pub facts: RowFacts,
    pub text: String,
}

/// A note under a row: escaped as any text, but for the emoji shortcode it may open with
/// (`:information_source:`), which stays one.
/// The most policy failures a row lists; the rest are counted, and the preview page
/// lists them all.
const POLICY_FAILURES_LISTED: usize = 5;

/// The longest policy message a row shows, in characters.
const POLICY_MESSAGE_CHARS: usize = 200;

/// The lines a row gets from its policies (decision 0106). A shortened or redacted row
/// keeps the count and the link, never a message. `link` is the preview page, or the
/// summary when the row has none.
fn policy_lines(policed: &Policed, brief: bool, link: &str, summary: &str) -> Vec<String> {
    match policed {
        Policed::Passed => Vec::new(),
        Policed::NotRun(reason) => vec![format!(
            "  :warning: the policies did not run: {}. Nothing was checked, see the [summary]({summary}).",
            escape::text(reason)
        )],
        Policed::Failed(failures) => {
            let count = plural(failures.len(), "policy failed", "policies failed");
            if brief {
                return vec![format!(
                    "  :no_entry: **{count}**, so this change has no box until it passes. See the [preview]({link})."
                )];
            }
            let mut lines = vec![format!(
                "  :no_entry: **{count}**, so this change has no box until it passes:"
            )];
            lines.extend(failures.iter().take(POLICY_FAILURES_LISTED).map(|f| {
                format!(
                    "  :no_entry: <code>{}</code> · {}",
                    escape::text(&f.namespace),
                    escape::text(&policy_message(&f.message))
                )
            }));
            if failures.len() > POLICY_FAILURES_LISTED {
                lines.push(format!(
                    "  :no_entry: and {} more, see the [preview]({link})",
                    failures.len() - POLICY_FAILURES_LISTED
                ));
            }
            lines
        }
    }
}

/// A message as one line: control characters become spaces, and it is cut to
/// [`POLICY_MESSAGE_CHARS`].
pub(crate) fn policy_message(message: &str) -> String {
    let mut one_line: String = message
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(POLICY_MESSAGE_CHARS + 1)
        .collect();
    if one_line.chars().count() > POLICY_MESSAGE_CHARS {
        one_line = one_line.chars().take(POLICY_MESSAGE_CHARS - 1).collect();
        one_line.push('…');
    }
    one_line
}

fn note_line(note: &str) -> String {
    let shortcode = note.strip_prefix(':').and_then(|rest| {
        let end = rest.find(':')?;
        let name = &rest[..end];
        (!name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
            .then(|| &note[..end + 2])
    });
    match shortcode {
        Some(code) => format!("  {code}{}", escape::text(&note[code.len()..])),
        None => format!("  {}", escape::text(note)),
    }
}

/// `2026-09-21 10:02 UTC`, or with the zone's offset: `2026-09-21 12:02 +02:00`.
pub(crate) fn time(at: Timestamp, zone: &TimeZone) -> String {
    sluiceway_core::calendar::wall_time(at, zone)
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

fn counts(changes: &[Change]) -> (usize, usize, usize, usize, usize) {
    let count = |op| changes.iter().filter(|c| c.op == op).count();
    let tracking = changes
        .iter()
        .filter(|c| c.op == Op::None && c.tracking.is_some())
        .count();
    (
        count(Op::Create),
        count(Op::Update),
        count(Op::Replace),
        count(Op::Delete),
        tracking,
    )
}

/// `1 create, 2 updates, **1 replace**, **3 deletes**, 1 tracking only`.
pub(crate) fn counts_in_words(changes: &[Change]) -> String {
    let (creates, updates, replaces, deletes, tracking) = counts(changes);
    let mut words = Vec::new();
    if creates > 0 {
        words.push(plural(creates, "create", "creates"));
    }
    if updates > 0 {
        words.push(plural(updates, "update", "updates"));
    }
    if replaces > 0 {
        words.push(format!("**{}**", plural(replaces, "replace", "replaces")));
    }
    if deletes > 0 {
        words.push(format!("**{}**", plural(deletes, "delete", "deletes")));
    }
    if tracking > 0 {
        words.push(format!("{tracking} tracking only"));
    }
    words.join(", ")
}

pub(crate) fn drift_in_words(drift: &[Change]) -> String {
    let changed = drift.iter().filter(|c| c.op != Op::Delete).count();
    let gone = drift.len() - changed;
    let mut words = Vec::new();
    if changed > 0 {
        words.push(format!("{changed} changed outside the code"));
    }
    if gone > 0 {
        words.push(format!("{gone} gone outside the code"));
    }
    words.join(", ")
}

/// A path as a row shows it: a long one keeps its first segment and as much of its end
/// as fits, cut at a segment boundary where it can be.
fn short_path(path: &str) -> String {
    let chars: Vec<char> = path.chars().collect();
    if chars.len() <= LONGEST_PATH {
        return path.to_owned();
    }
    let first_end = path
        .find(['.', '['])
        .map_or(chars.len(), |i| path[..i].chars().count());
    let head: String = chars[..first_end.min(24)].iter().collect();
    let room = LONGEST_PATH - head.chars().count() - 1;
    let tail_start = chars.len() - room;
    let tail: String = chars[tail_start..].iter().collect();
    let tail = match tail.find(['.', '[']) {
        Some(cut) if cut > 0 => tail[cut..].trim_start_matches('.').to_owned(),
        _ => tail,
    };
    format!("{head}…{tail}")
}

fn code(text: &str) -> String {
    format!("<code>{}</code>", escape::text(text))
}

fn paths(keys: &[String]) -> String {
    let mut keys: Vec<&String> = keys.iter().collect();
    keys.sort_by(|a, b| code_unit_order(a, b));
    let shown: Vec<String> = keys
        .iter()
        .take(PATHS_PER_LINE)
        .map(|k| code(&short_path(k)))
        .collect();
    let more = keys.len().saturating_sub(PATHS_PER_LINE);
    if more > 0 {
        format!("{}, and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// The changed paths with the values the list lets the row show, `old → new` after
/// their path (`nothing` for a side that is not there), then the shown values under no
/// changed path (a create's).
fn paths_and_values(change: &Change) -> String {
    let mut keys: Vec<&String> = change.changed_keys.iter().collect();
    keys.sort_by(|a, b| code_unit_order(a, b));
    let shown_at = |path: &str| change.values.iter().find(|v| v.path == path);
    let mut parts: Vec<String> = keys
        .iter()
        .take(PATHS_PER_LINE)
        .map(|k| match shown_at(k) {
            Some(value) => format!("{} {}", code(&short_path(k)), old_to_new(value)),
            None => code(&short_path(k)),
        })
        .collect();
    let more = keys.len().saturating_sub(PATHS_PER_LINE);
    if more > 0 {
        parts.push(format!("and {more} more"));
    }
    parts.extend(
        change
            .values
            .iter()
            .filter(|v| !change.changed_keys.contains(&v.path))
            .map(|v| format!("{} {}", code(&short_path(&v.path)), old_to_new(v))),
    );
    parts.join(", ")
}

/// `1 → 2`, a missing side `nothing`; the adapter shortened each side already.
pub(crate) fn old_to_new(value: &sluiceway_core::values::ShownValue) -> String {
    let side = |v: &Option<String>| {
        v.as_deref().map_or_else(
            || "nothing".to_owned(),
            |v| format!("<samp>{}</samp>", escape::text(v)),
        )
    };
    format!("{} → {}", side(&value.old), side(&value.new))
}

fn resource(change: &Change) -> String {
    format!(
        "{} <b>{}</b>",
        code(&change.kind),
        escape::text(&change.name)
    )
}

fn destroy_line(change: &Change) -> String {
    match change.op {
        Op::Delete => format!("  :warning: <kbd>DELETE</kbd> {}", resource(change)),
        _ if change.replace_keys.is_empty() => {
            format!("  :warning: <kbd>REPLACE</kbd> {}", resource(change))
        }
        _ => format!(
            "  :warning: <kbd>REPLACE</kbd> {} · forced by {}{}",
            resource(change),
            paths(&change.replace_keys),
            if change.values.is_empty() {
                String::new()
            } else {
                format!(" · {}", paths_and_values(change))
            }
        ),
    }
}

fn fold_line(change: &Change) -> String {
    let label = match (change.op, change.tracking) {
        (Op::None, Some(tracking)) => tracking.name().to_owned(),
        (op, Some(tracking)) => format!("{}</kbd> <kbd>{}", op.name(), tracking.name()),
        (op, None) => op.name().to_owned(),
    };
    let keys = if change.changed_keys.is_empty() && change.values.is_empty() {
        String::new()
    } else {
        format!(" · {}", paths_and_values(change))
    };
    format!("  <kbd>{label}</kbd> {}{keys}<br>", resource(change))
}

fn drift_line(change: &Change) -> String {
    let label = if change.op == Op::Delete {
        "gone"
    } else {
        "changed"
    };
    let keys = if change.changed_keys.is_empty() {
        String::new()
    } else {
        format!(" · {}", paths(&change.changed_keys))
    };
    format!("  <kbd>{label}</kbd> {}{keys}<br>", resource(change))
}

fn sorted(changes: impl Iterator<Item = Change>) -> Vec<Change> {
    let mut changes: Vec<Change> = changes.collect();
    changes.sort_by(|a, b| code_unit_order(&a.address, &b.address));
    changes
}

fn attribution_line(
    attribution: &Attribution,
    links: &Links,
    names: usize,
    counted: bool,
) -> String {
    let outside = match attribution.outside {
        0 => String::new(),
        n => format!(
            ", and {} outside this stack",
            plural(n, "change", "changes")
        ),
    };
    let compare = attribution
        .compare
        .as_ref()
        .map(|url| format!(" · [compare]({url})"))
        .unwrap_or_default();
    if !attribution.deployed {
        return format!("  not deployed from this dashboard yet{compare}");
    }
    let earlier = if attribution.earlier {
        ", and earlier changes"
    } else {
        ""
    };
    if attribution.changes.is_empty() {
        return match attribution.outside {
            0 if attribution.earlier => format!(
                "  nothing this stack claims has changed in the commits walked, but there are earlier changes{compare}"
            ),
            0 => format!("  nothing this stack claims has changed since its last deploy{compare}"),
            n => format!(
                "  from {} outside this stack{earlier}{compare}",
                plural(n, "change", "changes")
            ),
        };
    }
    let named = if counted {
        let prs = attribution
            .changes
            .iter()
            .filter(|c| matches!(c, Attributed::PullRequest { .. }))
            .count();
        let pushes = attribution.changes.len() - prs;
        let mut parts = Vec::new();
        if prs > 0 {
            parts.push(plural(prs, "pull request", "pull requests"));
        }
        if pushes > 0 {
            parts.push(plural(pushes, "push", "pushes"));
        }
        parts.join(" and ")
    } else {
        let mut parts: Vec<String> = attribution
            .changes
            .iter()
            .take(names)
            .map(|change| match change {
                Attributed::PullRequest { number, author } => {
                    format!("#{number} by {}", escape::text(author))
                }
                Attributed::Push { sha, author } => {
                    let short: String = sha.chars().take(7).collect();
                    format!(
                        "[{short}]({}) by {}",
                        links.commit(sha),
                        escape::text(author)
                    )
                }
            })
            .collect();
        let more = attribution.changes.len().saturating_sub(names);
        if more > 0 {
            parts.push(format!("and {more} more"));
        }
        parts.join(", ")
    };
    format!("  from {named}{outside}{earlier}{compare}")
}

fn failure_line(failure: &FailureLine, zone: &TimeZone) -> String {
    format!(
        "  :x: last deploy failed: {} · {} · {} · [run]({})",
        escape::text(&failure.reason),
        credit(&failure.ticker, failure.on_merge),
        time(failure.at, zone),
        failure.run
    )
}

/// ` · [run](…)` after a failed row's words, or nothing where no run exists.
fn run_suffix(run: Option<&str>) -> String {
    run.map(|run| format!(" · [run]({run})"))
        .unwrap_or_default()
}

fn spinner(style: &Style<'_>, file: &str) -> String {
    if !style.personality() {
        return String::new();
    }
    let base = &style.links.pictures;
    format!(
        "<picture><source media=\"(prefers-color-scheme: dark)\" srcset=\"{base}/{file}-dark.svg\"><img alt=\"\" width=\"16\" height=\"16\" src=\"{base}/{file}-light.svg\"></picture> "
    )
}

fn diff_facts(diff: &Diff, facts: &mut RowFacts) {
    let (creates, updates, replaces, deletes, tracking) = counts(&diff.changes);
    facts.creates = creates;
    facts.updates = updates;
    facts.replaces = replaces;
    facts.deletes = deletes;
    facts.tracking = tracking;
    facts.destroys = replaces + deletes;
    if let Some(drift) = diff.drift.as_ref().filter(|d| !d.is_empty()) {
        facts.drift = true;
        facts.gone = drift.iter().filter(|c| c.op == Op::Delete).count();
        facts.changed = drift.len() - facts.gone;
    }
    facts.hash = Some(diff.hash());
    facts.fingerprint = diff.fingerprint();
}

/// The parts of a pending or drifted row.
struct DiffRow<'a> {
    id: &'a str,
    box_: &'a str,
    diff: &'a Diff,
    preview: Option<&'a str>,
    attribution: Option<&'a Attribution>,
    pending: bool,
    drift_not_checked: bool,
    cost: Option<&'a CostLine>,
}

/// What the change costs a month, in a few words (decision 0105).
fn cost_line(cost: &CostLine) -> String {
    let currency = escape::text(&cost.currency);
    if cost.monthly.is_zero() {
        "  about the same cost a month".to_owned()
    } else if cost.monthly.is_negative() {
        format!("  about **{} {currency}** less a month", cost.monthly.abs())
    } else {
        format!("  about **{} {currency}** more a month", cost.monthly)
    }
}

fn diff_row(
    row: DiffRow<'_>,
    level: u8,
    style: &Style<'_>,
    facts: &mut RowFacts,
    lines: &mut Vec<String>,
    failure: Option<String>,
    notes: impl Iterator<Item = String>,
) {
    let DiffRow {
        id,
        box_,
        diff,
        preview,
        attribution,
        pending,
        drift_not_checked,
        cost,
    } = row;
    let detail = style.layout.pending_detail;
    facts.state = Some(if pending {
        RowState::Pending
    } else {
        RowState::Drift
    });
    diff_facts(diff, facts);
    facts.shortened = level;
    // A redacted row names no type, name or path: it shows what a shortest row shows.
    let level = if style.layout.redact { 3 } else { level };
    let drift = diff.drift.clone().unwrap_or_default();
    let words = if pending && !drift.is_empty() {
        format!(
            "{}, {}",
            counts_in_words(&diff.changes),
            drift_in_words(&drift)
        )
    } else if pending {
        counts_in_words(&diff.changes)
    } else {
        drift_in_words(&drift)
    };
    let words = if pending && drift_not_checked {
        facts.drift_check_failed = true;
        format!("{words} · drift not checked")
    } else {
        words
    };
    let link = match (preview, detail) {
        (Some(url), PendingDetail::Full | PendingDetail::Compact) => format!(" · [preview]({url})"),
        _ => String::new(),
    };
    lines.push(format!("{box_}**{id}** · {words}{link}"));
    lines.extend(cost.map(cost_line));
    if let Some(attribution) = attribution {
        lines.push(attribution_line(
            attribution,
            style.links,
            style.names,
            level >= 1,
        ));
    }
    lines.extend(failure);
    lines.extend(notes);
    let deletes = sorted(diff.changes.iter().filter(|c| c.op == Op::Delete).cloned());
    let replaces = sorted(diff.changes.iter().filter(|c| c.op == Op::Replace).cloned());
    let others = sorted(
        diff.changes
            .iter()
            .filter(|c| !matches!(c.op, Op::Delete | Op::Replace))
            .cloned(),
    );
    if level >= 3 {
        lines.push(if facts.destroys > 0 {
            let mut what = Vec::new();
            if facts.deletes > 0 {
                what.push(format!("deletes {}", facts.deletes));
            }
            if facts.replaces > 0 {
                what.push(format!("replaces {}", facts.replaces));
            }
            format!(
                "  :warning: **{}, too many to list here.** Read the [summary]({}) before you tick.",
                what.join(", "),
                style.links.summary
            )
        } else {
            format!("  Changes not listed here, see the [summary]({}).", style.links.summary)
        });
        return;
    }
    lines.extend(deletes.iter().chain(&replaces).map(destroy_line));
    if detail != PendingDetail::Full {
        return;
    }
    if !others.is_empty() {
        let noun = if deletes.is_empty() && replaces.is_empty() {
            plural(others.len(), "change", "changes")
        } else {
            plural(others.len(), "other change", "other changes")
        };
        if level >= 2 {
            lines.push(format!(
                "  {noun} not listed here, see the [summary]({})",
                style.links.summary
            ));
        } else {
            lines.push(format!("  <details><summary>{noun}</summary>"));
            lines.extend(others.iter().map(fold_line));
            lines.push("  </details>".to_owned());
        }
    }
    if !drift.is_empty() && level < 2 {
        lines.push(format!(
            "  <details><summary>{} outside the code</summary>",
            plural(drift.len(), "change", "changes")
        ));
        lines.extend(sorted(drift.into_iter()).iter().map(drift_line));
        lines.push("  </details>".to_owned());
    }
}

/// Renders a row at a detail level: 0 full, 1 attribution counted, 2 other changes
/// counted, 3 no change lines.
pub(crate) fn render(row: &Row, level: u8, style: &Style<'_>) -> RenderedRow {
    let id = escape::text(row.stack.as_str());
    let mut facts = RowFacts {
        stack: row.stack.to_string(),
        failed: row.failure.is_some(),
        ..RowFacts::default()
    };
    let box_ = if style.read_only() { "- " } else { "- [ ] " };
    let detail = style.layout.pending_detail;
    let mut lines: Vec<String> = Vec::new();
    let failure = row.failure.as_ref().map(|f| failure_line(f, style.zone));
    let notes = row.notes.iter().map(|n| note_line(n));
    match &row.state {
        State::Pending {
            diff,
            preview,
            attribution,
        } => {
            let attribution = attribution
                .as_ref()
                .filter(|_| detail == PendingDetail::Full);
            let failed = matches!(row.policies, Some(Policed::Failed(_)));
            facts.policy_failed = failed;
            let summary = style.links.summary.as_str();
            let link = preview.as_deref().unwrap_or(summary);
            let policed = row
                .policies
                .iter()
                .flat_map(|p| policy_lines(p, level >= 1 || style.layout.redact, link, summary));
            diff_row(
                DiffRow {
                    id: &id,
                    box_: if failed { "- " } else { box_ },
                    diff,
                    preview: preview.as_deref(),
                    attribution,
                    pending: true,
                    drift_not_checked: row.drift_not_checked,
                    cost: row.cost.as_ref(),
                },
                level,
                style,
                &mut facts,
                &mut lines,
                failure.clone(),
                notes.clone().chain(policed),
            );
        }
        State::Drifted { diff, preview } => {
            diff_row(
                DiffRow {
                    id: &id,
                    box_,
                    diff,
                    preview: preview.as_deref(),
                    attribution: None,
                    pending: false,
                    drift_not_checked: false,
                    cost: None,
                },
                level,
                style,
                &mut facts,
                &mut lines,
                failure.clone(),
                notes.clone(),
            );
        }
        State::Deploying {
            ticker,
            on_merge,
            run,
            attribution,
        } => {
            facts.state = Some(RowState::Deploying);
            lines.push(format!(
                "- {}**{id}** · {} · {} · [run]({run})",
                spinner(style, "spinner"),
                if *on_merge {
                    "deploying on merge"
                } else {
                    "deploying"
                },
                credit(ticker, *on_merge)
            ));
            if let Some(attribution) = attribution {
                lines.push(attribution_line(
                    attribution,
                    style.links,
                    style.names,
                    level >= 1,
                ));
            }
            lines.extend(failure.clone());
            lines.extend(notes.clone());
        }
        State::Queued {
            behind,
            opens,
            ticker,
            on_merge,
            run,
        } => {
            facts.state = Some(RowState::Queued);
            facts.behind = behind.iter().map(ToString::to_string).collect();
            let names: Vec<String> = behind
                .iter()
                .map(|b| format!("**{}**", escape::text(b.as_str())))
                .collect();
            let window = opens.map(|at| {
                format!(
                    "for the deploy window, which opens {}",
                    time(at, style.zone)
                )
            });
            let waits = match window {
                None => format!("queued behind {}", names.join(", ")),
                Some(window) if behind.is_empty() => format!("queued {window}"),
                Some(window) => format!("queued behind {}, and {window}", names.join(", ")),
            };
            lines.push(format!(
                "- {}**{id}** · {waits} · {} · [run]({run})",
                spinner(style, "spinner-queued"),
                credit(ticker, *on_merge)
            ));
            lines.extend(failure.clone());
            lines.extend(notes.clone());
        }
        State::PreviewFailed { reason, run } => {
            facts.state = Some(RowState::PreviewFailed);
            lines.push(format!(
                "- **{id}** · preview failed: {}{}",
                escape::text(reason),
                run_suffix(run.as_deref())
            ));
            lines.extend(failure.clone());
            lines.extend(notes.clone());
        }
        State::Busy { run } => {
            facts.state = Some(RowState::PreviewFailed);
            facts.busy = true;
            lines.push(format!(
                "- **{id}** · busy: another update holds the stack's lock, the next scan previews it{}",
                run_suffix(run.as_deref())
            ));
            lines.extend(failure.clone());
            lines.extend(notes.clone());
        }
        State::InSync => {
            facts.state = Some(RowState::InSync);
            facts.drift_check_failed = row.drift_not_checked;
            lines.push(if row.drift_not_checked {
                format!("- {id} · drift not checked")
            } else {
                format!("- {id}")
            });
            lines.extend(failure.clone());
            lines.extend(notes.clone());
        }
    }
    facts.drawn = row.drawn(style.version);
    let marker = facts
        .marker(facts.state.map_or("", RowState::name))
        .render();
    lines[0] = format!("{} {marker}", lines[0]);
    lines.push(ROW_END.to_owned());
    let mut text = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        let _ = write!(text, "{line}");
    }
    RenderedRow { facts, text }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_paths_keep_their_head_and_tail() {
        let long = format!("spec.template.spec.containers[0].{}.value", "x".repeat(90));
        let short = short_path(&long);
        assert!(short.starts_with("spec…"), "{short}");
        assert!(short.chars().count() <= LONGEST_PATH);
        assert_eq!(short_path("spec.replicas"), "spec.replicas");
    }

    #[test]
    fn counts_read_as_words() {
        use sluiceway_core::diff::Tracking;
        let change = |op| Change::new("a", "T", "a", op);
        let changes = vec![
            change(Op::Create),
            change(Op::Update),
            change(Op::Update),
            change(Op::Replace),
            change(Op::Delete),
            change(Op::Delete),
            Change {
                tracking: Some(Tracking::Forget),
                ..change(Op::None)
            },
        ];
        assert_eq!(
            counts_in_words(&changes),
            "1 create, 2 updates, **1 replace**, **2 deletes**, 1 tracking only"
        );
    }
}
