//! How a writer other than the scan changes the dashboard: it rewrites the rows it acted
//! on and carries every other block byte for byte, over the live body the write loop
//! hands it; the trail is drawn again from the records.

use jiff::Timestamp;
use sluiceway_core::calendar::Calendar;
use sluiceway_core::config::Config;
use sluiceway_core::discovery::Discovery;
use sluiceway_dashboard::body;
use sluiceway_dashboard::outside::{self, OutsideDeploy};
use sluiceway_dashboard::reader::{self, ReadBody, RowBlock};
use sluiceway_dashboard::updates::Updates;
use sluiceway_dashboard::view::{
    BulkNote, BulkSection, Confirm, Hint, Ignored, Links, Root, RowSource, TrailEntry, View,
};
use sluiceway_github::GitHub;

use crate::base::identity;
use crate::base::setup::Setup;
use crate::modes::job::Job;
use crate::modes::records::Records;
use crate::modes::write_loop::{self, WriteError, Written};

/// What every rewrite of a body needs besides the live body.
pub struct Rewrite<'a> {
    pub config: &'a Config,
    pub discovery: &'a Discovery,
    pub links: Links,
    pub trail: Vec<TrailEntry>,
    pub version: &'a str,
    /// The confirm boxes and bulk-box notes to draw; `None` carries the live body's.
    pub boxes: Option<Boxes>,
    /// The lines under the scan line this writer owes (a freeze near or on).
    pub hints: Vec<Hint>,
    /// This writer's own run: the run the root says waits for a runner no longer does
    /// when it is this one (decision 0086).
    pub run: u64,
    /// The updates waiting to merge to draw; `None` carries the live body's.
    pub updates: Option<Updates>,
}

/// What stands in the bulk boxes' places (decision 0083).
#[derive(Debug, Clone, Default)]
pub struct Boxes {
    pub confirms: Vec<Confirm>,
    pub notes: Vec<BulkNote>,
    /// Sections whose box stays ticked.
    pub ticked: Vec<BulkSection>,
}

impl Boxes {
    /// The live body's: a confirm box whose rows still stand as it named them, else its
    /// bulk box back with the `changed` note; a bulk box's note where no confirm stands.
    pub fn carried(live: &ReadBody) -> Boxes {
        let mut boxes = Boxes::default();
        for line in &live.bulk {
            let Some(section) = line.marker.get("section").and_then(BulkSection::parse) else {
                continue;
            };
            if line.ticked && !boxes.ticked.contains(&section) {
                boxes.ticked.push(section);
            }
        }
        for confirm in live.bulk.iter().filter_map(|b| Confirm::read(&b.marker)) {
            if confirm.holds_for(&live.rows) {
                boxes.confirms.push(confirm);
            } else {
                boxes.ticked.retain(|s| *s != confirm.section);
                boxes.notes.push(BulkNote::changed(&confirm, &live.rows));
            }
        }
        for note in live.bulk.iter().filter_map(|b| BulkNote::read(&b.marker)) {
            if !boxes.confirms.iter().any(|c| c.section == note.section)
                && !boxes.notes.iter().any(|n| n.section == note.section)
            {
                boxes.notes.push(note);
            }
        }
        boxes
    }
}

/// The freeze line every writer draws under the scan line while a freeze is on and in
/// the week before it.
pub fn freeze_hint(calendar: &Calendar, now: Timestamp) -> Option<Hint> {
    calendar.freeze_to_tell(now).map(|freeze| Hint::Freeze {
        from: freeze.starts(&calendar.zone),
        to: freeze.ends(&calendar.zone),
        reason: freeze.reason.clone(),
    })
}

/// The trail with each deploy's shipped line: its own when this writer walked it, else
/// the one the live body shows for the same record (decision 0072); only a scan walks.
pub(crate) fn with_shipped(trail: &[TrailEntry], live: &ReadBody) -> Vec<TrailEntry> {
    let carried = sluiceway_dashboard::shipped::from_markers(&live.shipped);
    trail
        .iter()
        .map(|entry| TrailEntry {
            shipped: entry
                .shipped
                .clone()
                .or_else(|| carried.get(&entry.record).cloned()),
            ..entry.clone()
        })
        .collect()
}

impl<'a> Rewrite<'a> {
    /// A job's rewrite over its setup, with the trail drawn from the records and the live
    /// body's bulk boxes carried.
    pub(crate) fn of_job(
        setup: &'a Setup,
        job: &Job,
        records: &Records,
        now: Timestamp,
    ) -> Rewrite<'a> {
        Rewrite {
            config: &setup.config,
            discovery: &setup.discovery,
            links: job.links(),
            trail: records.trail(|run| job.links().run(run)),
            version: identity::VERSION,
            boxes: None,
            hints: freeze_hint(&setup.config.calendar, now)
                .into_iter()
                .collect(),
            run: job.run_id,
            updates: None,
        }
    }
}

impl Rewrite<'_> {
    /// The live body's view with `replace` given each row block: `Some` is the row now,
    /// `None` keeps the block. `None` when the live body is not one this version writes.
    pub fn view(
        &self,
        live: &ReadBody,
        replace: &dyn Fn(&RowBlock) -> Option<RowSource>,
    ) -> Option<View> {
        let boxes = self.boxes.clone().unwrap_or_else(|| Boxes::carried(live));
        let mut root = Root::read(live)?;
        root.waiting = root.waiting.filter(|waiting| waiting.run != self.run);
        Some(View {
            root,
            links: self.links.clone(),
            rows: live
                .rows
                .iter()
                .filter(|r| r.facts.state.is_some())
                .map(|block| replace(block).unwrap_or_else(|| RowSource::Carried(block.clone())))
                .collect(),
            unknown: live.unknown_rows().map(|r| r.text.clone()).collect(),
            trail: with_shipped(&self.trail, live),
            outside: carried_outside(live, self.discovery),
            ignored: ignored(self.discovery),
            confirms: boxes.confirms,
            bulk_notes: boxes.notes,
            ticked_boxes: boxes.ticked,
            hints: self.hints.clone(),
            layout: self.config.settings.dashboard.clone(),
            attribution_names: self.config.settings.attribution.names as usize,
            version: self.version.to_owned(),
            updates: self.updates.clone().unwrap_or_else(|| live.updates.clone()),
        })
    }
}

impl Rewrite<'_> {
    /// Writes the dashboard through the write loop, each try rebuilt from the live body
    /// with `replace`; a body this version cannot write over is left as it is.
    pub fn write(
        &self,
        github: &dyn GitHub,
        number: u64,
        replace: &dyn Fn(&RowBlock) -> Option<RowSource>,
    ) -> Result<Written, WriteError> {
        write_loop::write(github, number, |from| {
            let live = reader::read(from);
            self.view(&live, replace)
                .and_then(|view| body::render(&view).ok())
                .unwrap_or_else(|| from.to_owned())
        })
    }
}

/// The trail's lines for deploys made outside the dashboard, as the live body holds
/// them, for the stacks that still exist.
pub fn carried_outside(live: &ReadBody, discovery: &Discovery) -> Vec<OutsideDeploy> {
    outside::from_markers(&live.outside)
        .into_iter()
        .filter(|d| discovery.stacks.iter().any(|s| s.id == d.stack))
        .collect()
}

/// The stacks `ignore` leaves out, as the In sync section lists them.
pub fn ignored(discovery: &Discovery) -> Vec<Ignored> {
    discovery
        .ignored
        .iter()
        .map(|i| Ignored {
            stack: i.id.clone(),
            reason: i.reason.clone(),
        })
        .collect()
}

/// The block with its box cleared and, when given, a note right under its first line
/// (never twice). Only the `[x]` is edited: the rest stays as the live body has it.
pub fn untick(block: &RowBlock, note: Option<&str>) -> RowBlock {
    let mut lines: Vec<String> = block.text.lines().map(str::to_owned).collect();
    // A row a policy took the box off gets none back (decision 0106).
    let cleared = if block.facts.policy_failed {
        "-"
    } else {
        "- [ ]"
    };
    if let Some(first) = lines.first_mut() {
        *first = first
            .replacen("- [x]", cleared, 1)
            .replacen("- [X]", cleared, 1);
    }
    if let Some(note) = note {
        let line = format!("  {note}");
        if lines.get(1) != Some(&line) {
            lines.insert(1.min(lines.len()), line);
        }
    }
    RowBlock {
        ticked: false,
        text: lines.join("\n"),
        ..block.clone()
    }
}

#[cfg(test)]
mod tests {
    use sluiceway_dashboard::reader;

    use super::*;

    #[test]
    fn untick_edits_only_the_box_and_adds_the_note_once() {
        let body = "- [x] **a** · 1 create <!-- sluiceway:row stack=\"a\" state=\"pending\" hash=\"0123456789abcdef\" creates=\"1\" -->\n  <details>…</details>\n  <!-- /sluiceway:row -->\n";
        let block = &reader::read(body).rows[0];
        assert!(block.ticked);
        let cleared = untick(block, Some("a note"));
        assert!(!cleared.ticked);
        assert!(
            cleared
                .text
                .starts_with("- [ ] **a** · 1 create <!-- sluiceway:row")
        );
        assert_eq!(cleared.text.lines().nth(1), Some("  a note"));
        let again = untick(&cleared, Some("a note"));
        assert_eq!(again.text, cleared.text, "the note is there once");
        let rendered = format!("{}\n", cleared.text);
        let read = reader::read(&rendered);
        assert_eq!(read.rows[0].facts, block.facts, "the marker is untouched");
    }

    #[test]
    fn a_row_a_policy_failed_on_gets_no_box_back() {
        let body = "- [x] **a** · 1 delete <!-- sluiceway:row stack=\"a\" state=\"pending\" hash=\"0123456789abcdef\" deletes=\"1\" policy=\"failed\" -->\n  <!-- /sluiceway:row -->\n";
        let block = &reader::read(body).rows[0];
        let cleared = untick(block, None);
        assert!(
            cleared
                .text
                .starts_with("- **a** · 1 delete <!-- sluiceway:row"),
            "{}",
            cleared.text
        );
    }
}
