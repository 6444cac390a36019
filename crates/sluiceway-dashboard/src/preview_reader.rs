//! A stack's preview page read back (the console's `preview`, issue 41): the policies that
//! failed, every change with its type, name, property paths and the values the page
//! shows, and the drift, from the text [`crate::preview_page::render`] wrote. Nothing is
//! guessed: a line this reader does not know is counted, never half read.
//!
//! The page is unambiguous to read because every name on it is escaped text, in which
//! `<` never stands: a change line is its label, its type in `<code>`, its name, and then
//! parts each starting ` · ` and a tag.

use sluiceway_core::diff::{Op, Tracking};
use sluiceway_core::values::ShownValue;

use crate::escape::unescape;

/// What a page lists.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadPage {
    /// The policies that failed on the change, in the page's order.
    pub policies: Vec<FailedPolicy>,
    /// Every change listed, deletes and replaces first.
    pub changes: Vec<ReadChange>,
    /// What changed outside the code.
    pub drift: Vec<ReadChange>,
    /// Changes the page leaves out to stay inside GitHub's limit.
    pub unlisted: usize,
    /// Lines this reader could not read.
    pub unread: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedPolicy {
    pub namespace: String,
    /// In the policy's own words, on one line.
    pub message: String,
}

/// One change line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadChange {
    pub op: Op,
    pub tracking: Option<Tracking>,
    pub kind: String,
    pub name: String,
    /// A move's address before.
    pub previous: Option<String>,
    /// The property paths that change (an update's or a replace's), those that force a
    /// replace first.
    pub properties: Vec<String>,
    pub forced_by: Vec<String>,
    /// The values the page shows, by path; `None` where the property is absent.
    pub values: Vec<ShownValue>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Section {
    None,
    Policies,
    Changes,
    Drift,
}

/// Reads a page's text.
pub fn read(text: &str) -> ReadPage {
    let mut page = ReadPage::default();
    let mut section = Section::None;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match line {
            "### Policies failed" => section = Section::Policies,
            "### Changes" => section = Section::Changes,
            "### Drift: changed outside the code" => section = Section::Drift,
            _ => {
                if let Some(left) = unlisted(line) {
                    page.unlisted = left;
                    continue;
                }
                let read = match section {
                    Section::Policies => policy(line).map(|p| page.policies.push(p)),
                    Section::Changes => change(line).map(|c| page.changes.push(c)),
                    Section::Drift => change(line).map(|c| page.drift.push(c)),
                    Section::None => None,
                };
                if read.is_none() {
                    page.unread += 1;
                }
            }
        }
    }
    page
}

/// `N more lines are not listed here; …`.
fn unlisted(line: &str) -> Option<usize> {
    let (count, rest) = line.split_once(' ')?;
    rest.starts_with("more lines are not listed here")
        .then(|| count.parse().ok())
        .flatten()
}

fn policy(line: &str) -> Option<FailedPolicy> {
    let rest = line.strip_prefix("- <code>")?;
    let (namespace, message) = rest.split_once("</code> · ")?;
    Some(FailedPolicy {
        namespace: unescape(namespace),
        message: unescape(message),
    })
}

/// The label a change line starts with: an op, an op and its tracking, or a tracking
/// alone (a change to how the tool tracks a resource and nothing else).
fn label(text: &str) -> Option<(Op, Option<Tracking>)> {
    const OPS: [Op; 5] = [Op::Create, Op::Update, Op::Replace, Op::Delete, Op::None];
    const TRACKINGS: [Tracking; 3] = [Tracking::Import, Tracking::Forget, Tracking::Move];
    if let Some(tracking) = TRACKINGS.iter().find(|t| t.name() == text) {
        return Some((Op::None, Some(*tracking)));
    }
    match text.split_once(" (") {
        Some((op, tracking)) => {
            let tracking = tracking.strip_suffix(')')?;
            Some((
                *OPS.iter().find(|o| o.name() == op)?,
                Some(*TRACKINGS.iter().find(|t| t.name() == tracking)?),
            ))
        }
        None => Some((*OPS.iter().find(|o| o.name() == text)?, None)),
    }
}

fn change(line: &str) -> Option<ReadChange> {
    let rest = line.strip_prefix("- **")?;
    let (label_text, rest) = rest.split_once("** <code>")?;
    let (op, tracking) = label(label_text)?;
    let (kind, rest) = rest.split_once("</code> ")?;
    // The name runs to the first part: ` · ` and a tag, which escaped text never holds.
    let mut pieces = tagged_parts(rest).into_iter();
    let name = pieces.next()?;
    let mut previous = None;
    let mut listed: Vec<(String, Option<ShownValue>)> = Vec::new();
    let mut forced_by = Vec::new();
    for part in pieces {
        if let Some(from) = part.strip_prefix("from <code>") {
            previous = Some(unescape(from.strip_suffix("</code>")?));
        } else if let Some(forced) = part.strip_prefix("forced by ") {
            forced_by = codes(forced)?;
        } else {
            listed = keys(part)?;
        }
    }
    let changes_keys = matches!(op, Op::Update | Op::Replace);
    let mut properties: Vec<String> = if changes_keys {
        listed.iter().map(|(path, _)| path.clone()).collect()
    } else {
        Vec::new()
    };
    properties.sort_by_key(|p| !forced_by.contains(p));
    Some(ReadChange {
        op,
        tracking,
        kind: unescape(kind),
        name: unescape(name),
        previous,
        properties,
        forced_by,
        values: listed.into_iter().filter_map(|(_, value)| value).collect(),
    })
}

/// The text split at each ` · ` that a part's tag follows.
fn tagged_parts(text: &str) -> Vec<&str> {
    const TAGS: [&str; 3] = ["<code>", "from <code>", "forced by <code>"];
    let mut parts = Vec::new();
    let mut start = 0;
    let mut from = 0;
    while let Some(at) = text[from..].find(" · ").map(|i| from + i) {
        let after = &text[at + " · ".len()..];
        if TAGS.iter().any(|tag| after.starts_with(tag)) {
            parts.push(&text[start..at]);
            start = at + " · ".len();
        }
        // Separators may overlap (a name can end ` ·`): look again one byte on.
        from = at + 1;
    }
    parts.push(&text[start..]);
    parts
}

/// `<code>a</code>, <code>b</code>`.
fn codes(text: &str) -> Option<Vec<String>> {
    text.split(", <code>")
        .enumerate()
        .map(|(i, piece)| {
            let piece = if i == 0 {
                piece.strip_prefix("<code>")?
            } else {
                piece
            };
            Some(unescape(piece.strip_suffix("</code>")?))
        })
        .collect()
}

/// `<code>path</code>`, or `<code>path</code> <samp>old</samp> → nothing`, joined by `, `.
fn keys(text: &str) -> Option<Vec<(String, Option<ShownValue>)>> {
    let body = text.strip_prefix("<code>")?;
    body.split(", <code>")
        .map(|piece| {
            let (path, shown) = piece.split_once("</code>")?;
            let path = unescape(path);
            if shown.is_empty() {
                return Some((path, None));
            }
            // The old side ends at its own `</samp>` (a value's `<` is escaped, but its
            // text may hold the arrow).
            let shown = shown.strip_prefix(' ')?;
            let old_end = match shown.strip_prefix("<samp>") {
                Some(inner) => "<samp>".len() + inner.find("</samp>")? + "</samp>".len(),
                None if shown.starts_with("nothing") => "nothing".len(),
                None => return None,
            };
            let (old, new) = shown.split_at(old_end);
            let new = new.strip_prefix(" → ")?;
            let value = ShownValue {
                path: path.clone(),
                old: side(old)?,
                new: side(new)?,
            };
            Some((path, Some(value)))
        })
        .collect()
}

/// `nothing`, or `<samp>text</samp>`.
fn side(text: &str) -> Option<Option<String>> {
    if text == "nothing" {
        return Some(None);
    }
    let inner = text.strip_prefix("<samp>")?.strip_suffix("</samp>")?;
    Some(Some(unescape(inner)))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use sluiceway_core::diff::{Change, Diff};
    use sluiceway_core::stack::StackId;

    use super::*;
    use crate::preview_page::{PageLinks, render};
    use crate::view::{Policed, PolicyFailure};

    fn links() -> PageLinks {
        PageLinks {
            dashboard: "https://github.com/acme/infra/issues".into(),
            summary: "https://github.com/acme/infra/actions/runs/900/attempts/1".into(),
            job: "https://github.com/acme/infra/actions/runs/900/job/77".into(),
        }
    }

    /// Names as tools give them: any printable text, separators and markup included, no
    /// line break (the page turns one into a space).
    fn name() -> impl Strategy<Value = String> {
        "[a-zA-Z0-9 ·<>&\"*_\\[\\]:/.,→#@|-]{1,24}"
    }

    fn value() -> impl Strategy<Value = Option<String>> {
        proptest::option::of("[a-zA-Z0-9 ·<>&,→-]{0,12}")
    }

    fn change() -> impl Strategy<Value = Change> {
        (
            prop_oneof![
                Just(Op::Create),
                Just(Op::Update),
                Just(Op::Replace),
                Just(Op::Delete),
            ],
            proptest::option::of(prop_oneof![Just(Tracking::Import), Just(Tracking::Move)]),
            name(),
            name(),
            proptest::collection::btree_set("[a-z][a-z0-9.\\[\\]]{0,10}", 0..4),
            any::<bool>(),
            value(),
            value(),
        )
            .prop_map(|(op, tracking, kind, name, keys, forced, old, new)| {
                let mut change = Change::new(format!("{kind}.{name}"), kind, name, op);
                change.tracking = tracking;
                if tracking == Some(Tracking::Move) {
                    change.previous_address = Some("module.old.this".into());
                }
                let keys: Vec<String> = keys.into_iter().collect();
                if matches!(op, Op::Update | Op::Replace) {
                    change.changed_keys = keys.clone();
                    if op == Op::Replace && forced {
                        change.replace_keys = keys.iter().take(1).cloned().collect();
                    }
                    // A shown value is of a path that changes (the adapters' rule).
                    change.values = keys
                        .first()
                        .map(|path| ShownValue {
                            path: path.clone(),
                            old: old.clone(),
                            new: new.clone(),
                        })
                        .into_iter()
                        .collect();
                } else {
                    change.values = keys
                        .iter()
                        .take(1)
                        .map(|path| ShownValue {
                            path: path.clone(),
                            old: if op == Op::Create { None } else { old.clone() },
                            new: if op == Op::Delete { None } else { new.clone() },
                        })
                        .collect();
                }
                change
            })
    }

    proptest! {
        /// Every change a page lists reads back as it was written.
        #[test]
        fn a_page_reads_back_what_it_lists(changes in proptest::collection::vec(change(), 1..6)) {
            let diff = Diff { stack: StackId::given("apps/web"), changes: changes.clone(), drift: None };
            let page = render(&diff, None, &links());
            let read = read(&page.text);
            prop_assert_eq!(read.unread, 0, "{}", page.text);
            prop_assert_eq!(read.changes.len(), changes.len());
            for written in &changes {
                let found = read
                    .changes
                    .iter()
                    .find(|c| c.kind == written.kind && c.name == written.name && c.op == written.op)
                    .unwrap_or_else(|| panic!("{written:?} in {}", page.text));
                prop_assert_eq!(found.tracking, written.tracking);
                let mut properties = found.properties.clone();
                properties.sort();
                let mut changed = written.changed_keys.clone();
                changed.sort();
                prop_assert_eq!(properties, changed);
                prop_assert!(found.properties.iter().take(written.replace_keys.len()).all(|p| written.replace_keys.contains(p)));
                prop_assert_eq!(&found.forced_by, &written.replace_keys);
                prop_assert_eq!(&found.values, &written.values);
                prop_assert_eq!(found.previous.as_deref(), written.previous_address.as_deref());
            }
        }
    }

    #[test]
    fn policies_drift_and_what_is_left_out_are_read_and_a_stray_line_is_counted() {
        let mut gone = Change::new("aws_s3_bucket.logs", "aws_s3_bucket", "logs", Op::Delete);
        gone.values = Vec::new();
        let mut changed = Change::new("aws_iam_role.ci", "aws_iam_role", "ci", Op::Update);
        changed.changed_keys = vec!["assume_role_policy".into()];
        let diff = Diff {
            stack: StackId::given("network"),
            changes: vec![Change::new(
                "null_resource.a",
                "null_resource",
                "a",
                Op::Create,
            )],
            drift: Some(vec![gone, changed]),
        };
        let policed = Policed::Failed(vec![PolicyFailure {
            namespace: "main".into(),
            message: "buckets need <tags> & owners".into(),
        }]);
        let page = render(&diff, Some(&policed), &links());
        let text = format!(
            "{}- something else\n12 more lines are not listed here; the scan's summary lists them all.",
            page.text
        );
        let read = read(&text);
        assert_eq!(
            read.policies,
            [FailedPolicy {
                namespace: "main".into(),
                message: "buckets need <tags> & owners".into()
            }]
        );
        assert_eq!(read.changes.len(), 1);
        let drift: Vec<(Op, &str, &[String])> = read
            .drift
            .iter()
            .map(|c| (c.op, c.name.as_str(), c.properties.as_slice()))
            .collect();
        assert_eq!(
            drift,
            [
                (Op::Delete, "logs", &[][..]),
                (Op::Update, "ci", &["assume_role_policy".to_owned()][..])
            ]
        );
        assert_eq!((read.unlisted, read.unread), (12, 1));
    }
}
