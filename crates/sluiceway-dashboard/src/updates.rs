//! The "Updates waiting to merge" section (decisions 0054, 0064, 0081): open pull
//! requests by an update bot whose files stacks claim. One whose checks are green has a
//! box, and a tick merges it; one whose checks still run has a line without a box. The
//! scan draws the lines from the pull-request list; every other writer carries them as
//! they stand, but for the lines a resolve acted on.

use crate::escape;
use crate::marker::{Marker, join_list, split_list};

/// A title is cut to this many characters on its line.
const TITLE: usize = 80;
/// Listed updates shown before the rest fold.
const OPEN: usize = 10;
/// Updates listed at most, oldest first.
pub const MOST_LISTED: usize = 30;
/// Waiting lines at most, oldest first.
pub const MOST_WAITING: usize = 10;

/// One update as a line shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Update {
    pub number: u64,
    pub title: String,
    pub author: String,
    /// The stacks its files claim, in code-unit order.
    pub stacks: Vec<String>,
    /// The head commit the box merges.
    pub head: String,
    /// What each of its stacks would deploy after the merge (`mergeAndDeploy.preview`,
    /// decision 0071); empty when not previewed.
    pub after_merge: Vec<(String, AfterMerge)>,
}

/// A stack's preview as it would be after the merge: counts only on the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AfterMerge {
    Changes(Vec<sluiceway_core::diff::Change>),
    Failed,
}

impl AfterMerge {
    fn words(&self) -> String {
        match self {
            AfterMerge::Changes(changes) if changes.is_empty() => "no changes".to_owned(),
            AfterMerge::Changes(changes) => crate::rows::counts_in_words(changes),
            AfterMerge::Failed => "failed, the job log says why".to_owned(),
        }
    }
}

/// `preview after the merge: 1 update, **1 replace**`, per stack when there are several.
fn after_merge_words(update: &Update) -> Option<String> {
    match update.after_merge.as_slice() {
        [] => None,
        [(_, one)] => Some(format!("preview after the merge: {}", one.words())),
        many => Some(format!(
            "preview after the merge: {}",
            many.iter()
                .map(|(stack, preview)| format!("**{}**: {}", escape::text(stack), preview.words()))
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

/// A listed update's line as it stands in a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateLine {
    pub text: String,
    pub ticked: bool,
    /// What its marker says; `None` when the marker cannot be read.
    pub update: Option<Update>,
}

/// The section's lines: listed updates (with boxes) and updates waiting on their checks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Updates {
    pub listed: Vec<UpdateLine>,
    pub waiting: Vec<String>,
}

impl Updates {
    /// Fresh lines for the updates a scan found.
    pub fn drawn(listed: &[Update], waiting: &[Update], redact: bool) -> Updates {
        Updates {
            listed: listed
                .iter()
                .take(MOST_LISTED)
                .map(|u| UpdateLine {
                    text: listed_line(u, redact),
                    ticked: false,
                    update: Some(u.clone()),
                })
                .collect(),
            waiting: waiting
                .iter()
                .take(MOST_WAITING)
                .map(|u| waiting_line(u, redact))
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.listed.is_empty() && self.waiting.is_empty()
    }
}

fn stacks_words(stacks: &[String]) -> String {
    stacks
        .iter()
        .map(|s| format!("**{}**", escape::text(s)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn title_words(title: &str, redact: bool) -> Option<String> {
    if redact {
        return None;
    }
    let one_line: String = title.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = if one_line.chars().count() > TITLE {
        let mut cut: String = one_line.chars().take(TITLE - 1).collect();
        cut.push('…');
        cut
    } else {
        one_line
    };
    Some(escape::text(&cut))
}

fn by(update: &Update) -> String {
    format!("&#35;{} by {}", update.number, escape::text(&update.author))
}

/// `- [ ] **app** · Update nginx to v1.27 · #418 by renovate[bot] <!-- sluiceway:merge … -->`
pub fn listed_line(update: &Update, redact: bool) -> String {
    let mut parts = vec![stacks_words(&update.stacks)];
    parts.extend(title_words(&update.title, redact));
    parts.push(by(update));
    parts.extend(after_merge_words(update));
    let marker = Marker::new("merge")
        .with("pr", update.number.to_string())
        .with("stack", join_list(&update.stacks))
        .with("head", update.head.clone());
    format!("- [ ] {} {}", parts.join(" · "), marker.render())
}

/// `- **app** · Update nginx · #421 by renovate[bot] · waits on its checks <!-- sluiceway:waiting … -->`
pub fn waiting_line(update: &Update, redact: bool) -> String {
    let mut parts = vec![stacks_words(&update.stacks)];
    parts.extend(title_words(&update.title, redact));
    parts.push(by(update));
    parts.push("waits on its checks".to_owned());
    let marker = Marker::new("waiting")
        .with("pr", update.number.to_string())
        .with("stack", join_list(&update.stacks));
    format!("- {} {}", parts.join(" · "), marker.render())
}

/// The update a `sluiceway:merge` marker names.
pub fn from_marker(marker: &Marker) -> Option<Update> {
    Some(Update {
        number: marker.get("pr")?.parse().ok()?,
        title: String::new(),
        author: String::new(),
        stacks: split_list(marker.get("stack")?),
        head: marker.get("head")?.to_owned(),
        after_merge: Vec::new(),
    })
}

/// The section, or nothing when there is no line to show.
pub fn section(updates: &Updates) -> String {
    if updates.is_empty() {
        return String::new();
    }
    let mut out = String::from("## Updates waiting to merge\n\n");
    if !updates.listed.is_empty() {
        out.push_str("Ticking a box merges that pull request; the scan after the merge deploys the stacks it changes.\n\n");
        let (open, folded) = updates.listed.split_at(updates.listed.len().min(OPEN));
        for line in open {
            out.push_str(&line.text);
            out.push('\n');
        }
        if !folded.is_empty() {
            out.push_str(&format!(
                "\n<details><summary>{} more updates waiting to merge</summary>\n\n",
                folded.len()
            ));
            for line in folded {
                out.push_str(&line.text);
                out.push('\n');
            }
            out.push_str("\n</details>\n");
        }
        out.push('\n');
    }
    if !updates.waiting.is_empty() {
        out.push_str(
            "These wait on their own checks. Each gets a box here once its checks are green.\n\n",
        );
        for line in &updates.waiting {
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reader;

    fn update(number: u64, stacks: &[&str]) -> Update {
        Update {
            number,
            title: "Update nginx Docker tag to v1.27.3 | with a <b>long</b> tail that goes on and on past eighty characters".into(),
            author: "renovate[bot]".into(),
            stacks: stacks.iter().map(|s| (*s).to_owned()).collect(),
            head: "3f".repeat(20),
            after_merge: Vec::new(),
        }
    }

    #[test]
    fn the_section_lists_boxes_then_waiting_lines_and_folds_after_ten() {
        let listed: Vec<Update> = (1..=12)
            .map(|n| update(n, &["apps/web", "apps/a,b"]))
            .collect();
        let text = section(&Updates::drawn(&listed, &[update(40, &["db"])], false));
        insta::assert_snapshot!(text);
        let read = reader::read(&text);
        assert_eq!(read.updates.listed.len(), 12);
        assert_eq!(read.updates.waiting.len(), 1);
        let first = read.updates.listed[0].update.clone().unwrap();
        assert_eq!(
            first.stacks,
            ["apps/web", "apps/a,b"],
            "a comma in an id survives"
        );
        assert_eq!(first.number, 1);
        let redacted = listed_line(&update(7, &["db"]), true);
        assert!(!redacted.contains("nginx"), "{redacted}");
        let mut previewed = update(8, &["db", "app"]);
        previewed.after_merge = vec![
            ("app".into(), AfterMerge::Changes(Vec::new())),
            ("db".into(), AfterMerge::Failed),
        ];
        let line = listed_line(&previewed, false);
        assert!(
            line.contains(" · preview after the merge: **app**: no changes; **db**: failed, the job log says why <!--"),
            "{line}"
        );
    }
}
