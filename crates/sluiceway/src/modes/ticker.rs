//! Who ticked: the ticker is named from the edit history, never from the event
//! that woke the job (decisions 0025 and 0119). Walking back from the newest entry, the
//! stretch is the unbroken run of entries in which the box stays ticked at the same
//! stack and hash; the editor of its oldest entry ticked. Anything that leaves the
//! stretch in doubt names nobody, and nothing deploys.

use sluiceway_dashboard::reader::{self, BoxLine};
use sluiceway_dashboard::view::{BulkSection, Confirm};
use sluiceway_github::{Actor, Edit};

/// One thing a person can tick: a row at the hash it shows, a section's bulk box, the
/// confirm box that names what the bulk box would deploy, or the rescan box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tick {
    Row {
        stack: String,
        hash: String,
    },
    /// An update's box (decision 0054): the pull request at the head it shows.
    Merge {
        pr: u64,
        head: String,
    },
    Bulk(BulkSection),
    Confirm(Confirm),
    Rescan,
}

/// What a bulk line's marker is: a section's bulk box, or a confirm box.
fn bulk_tick(line: &BoxLine) -> Option<Tick> {
    if line.marker.get("confirm").is_some() {
        return Confirm::read(&line.marker).map(Tick::Confirm);
    }
    BulkSection::parse(line.marker.get("section")?).map(Tick::Bulk)
}

impl Tick {
    /// The ticks a body holds, in row order, the rescan box last.
    pub fn all_in(body: &str) -> Vec<Tick> {
        let read = reader::read(body);
        let rows = read
            .rows
            .into_iter()
            .filter(|row| row.ticked)
            .filter_map(|row| {
                Some(Tick::Row {
                    hash: row.facts.hash?,
                    stack: row.facts.stack,
                })
            });
        let bulk: Vec<Tick> = read
            .bulk
            .iter()
            .filter(|b| b.ticked)
            .filter_map(bulk_tick)
            .collect();
        let merges: Vec<Tick> = read
            .updates
            .listed
            .iter()
            .filter(|line| line.ticked)
            .filter_map(|line| {
                let update = line.update.as_ref()?;
                Some(Tick::Merge {
                    pr: update.number,
                    head: update.head.clone(),
                })
            })
            .collect();
        let rescan = read.rescan.filter(|b| b.ticked).map(|_| Tick::Rescan);
        rows.chain(bulk).chain(merges).chain(rescan).collect()
    }

    fn holds_in(&self, body: &str) -> bool {
        let read = reader::read(body);
        match self {
            Tick::Row { stack, hash } => read.rows.iter().any(|row| {
                row.ticked && row.facts.stack == *stack && row.facts.hash.as_deref() == Some(hash)
            }),
            Tick::Bulk(_) | Tick::Confirm(_) => read
                .bulk
                .iter()
                .any(|b| b.ticked && bulk_tick(b).as_ref() == Some(self)),
            Tick::Merge { pr, head } => read.updates.listed.iter().any(|line| {
                line.ticked
                    && line
                        .update
                        .as_ref()
                        .is_some_and(|u| u.number == *pr && u.head == *head)
            }),
            Tick::Rescan => read.rescan.is_some_and(|b| b.ticked),
        }
    }
}

/// The edit history read so far: the body, and entries newest first.
#[derive(Debug, Clone, Copy)]
pub struct History<'a> {
    pub body: &'a str,
    pub edits: &'a [Edit],
    /// GitHub has no more entries than these.
    pub complete: bool,
    /// Entries GitHub keeps in all; at 100 the oldest ones are gone.
    pub total: u64,
}

/// GitHub keeps the original and the newest 99 edits; from this many on, the start of
/// the history is not the start of the issue.
const CAPPED_AT: u64 = 100;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Walk {
    /// The editor of the stretch's oldest entry; `None` for a deleted account.
    Ticker(Option<Actor>),
    /// Nobody can be named: nothing deploys, the box is cleared, no comment.
    Nobody(Nobody),
    /// The stretch runs past the entries read: read the next page.
    ReadMore,
    /// The newest entry is not the body just read: read both again.
    Moved,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Nobody {
    /// An entry in the stretch has no body (deleted, or empty).
    BrokenByADeletedEntry,
    /// The stretch reaches the oldest entry of a capped history.
    PastTheKeptHistory,
    /// The issue was never edited, so no person ticked it.
    NoEdits,
    /// The newest entry does not hold this tick.
    NotTicked,
}

/// Names the ticker of `tick`. `bot` is the workflow token's login: one entry of the
/// bot's that went over the tick is looked through when the bot wrote the tick back
/// right after it (decision 0119).
pub fn walk(tick: &Tick, history: History<'_>, bot: &str) -> Walk {
    let edits = history.edits;
    let Some(newest) = edits.first() else {
        return Walk::Nobody(Nobody::NoEdits);
    };
    match newest.body.as_deref() {
        None => return Walk::Nobody(Nobody::BrokenByADeletedEntry),
        Some(body) if body != history.body => return Walk::Moved,
        Some(_) => {}
    }
    let by_bot = |edit: &Edit| {
        edit.editor
            .as_ref()
            .is_some_and(|a| a.login.eq_ignore_ascii_case(bot))
    };
    let holds = |edit: &Edit| -> Option<bool> {
        let body = edit
            .body
            .as_deref()
            .filter(|b| !b.is_empty() && !edit.deleted)?;
        Some(tick.holds_in(body))
    };
    let mut oldest: Option<usize> = None;
    let mut looked_through = false;
    for (i, edit) in edits.iter().enumerate() {
        match holds(edit) {
            None => return Walk::Nobody(Nobody::BrokenByADeletedEntry),
            Some(true) => oldest = Some(i),
            Some(false) => {
                let Some(oldest) = oldest else {
                    return Walk::Nobody(Nobody::NotTicked);
                };
                let may_look_through = !looked_through && by_bot(edit) && by_bot(newest);
                match edits.get(i + 1) {
                    None if may_look_through && !history.complete => return Walk::ReadMore,
                    Some(next) if may_look_through && holds(next) == Some(true) => {
                        looked_through = true;
                    }
                    _ => return Walk::Ticker(edits[oldest].editor.clone()),
                }
            }
        }
    }
    if !history.complete {
        Walk::ReadMore
    } else if history.total >= CAPPED_AT {
        Walk::Nobody(Nobody::PastTheKeptHistory)
    } else {
        Walk::Ticker(oldest.and_then(|i| edits[i].editor.clone()))
    }
}
