//! Reading a body back: the root facts, each row block with its marker facts and box,
//! the rescan and bulk boxes. The text between a row's markers is never read: a block is
//! kept whole, byte for byte, to be carried by the next writer. The lines of the calm
//! in-sync list are given back as the blocks drawn for them (ADR 0039).

use crate::facts::RowFacts;
use crate::marker::Marker;

const ROW_END: &str = "<!-- /sluiceway:row -->";

/// A row block as it stands in a body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowBlock {
    pub facts: RowFacts,
    /// The marker as written, unknown keys included.
    pub marker: Marker,
    /// The box at the start of the first line is ticked.
    pub ticked: bool,
    /// From the first line through the closing marker line, without a final newline.
    pub text: String,
}

/// A box outside the rows: the rescan box or a bulk box.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoxLine {
    pub marker: Marker,
    pub ticked: bool,
}

/// What a reader finds in a body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadBody {
    /// The root marker, when the first line is one.
    pub root: Option<Marker>,
    pub rows: Vec<RowBlock>,
    pub rescan: Option<BoxLine>,
    pub bulk: Vec<BoxLine>,
    /// The markers of the trail's lines for deploys made outside the dashboard.
    pub outside: Vec<Marker>,
    /// The markers of the trail's shipped lines (decision 0072).
    pub shipped: Vec<Marker>,
    /// The lines of "Updates waiting to merge", as they stand.
    pub updates: crate::updates::Updates,
}

impl ReadBody {
    /// Rows of states this version does not know: carried, never counted or acted on.
    pub fn unknown_rows(&self) -> impl Iterator<Item = &RowBlock> {
        self.rows.iter().filter(|r| r.facts.state.is_none())
    }
}

/// `- [x] ` or `- [ ] ` at the start of a line: `Some(ticked)`, else no box.
fn box_state(line: &str) -> Option<bool> {
    let rest = line.strip_prefix("- [")?;
    match rest.get(..3)? {
        "x] " | "X] " => Some(true),
        " ] " => Some(false),
        _ => None,
    }
}

pub fn read(body: &str) -> ReadBody {
    let body = body.replace("\r\n", "\n");
    let lines: Vec<&str> = body.split('\n').collect();
    let mut read = ReadBody {
        root: lines
            .first()
            .and_then(|l| Marker::at_end_of(l))
            .filter(|m| m.kind == "dashboard" && lines[0].trim_start().starts_with("<!--")),
        ..ReadBody::default()
    };
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let Some(marker) = Marker::at_end_of(line) else {
            i += 1;
            continue;
        };
        match marker.kind.as_str() {
            "row" => {
                let Some(facts) = RowFacts::from_marker(&marker) else {
                    i += 1;
                    continue;
                };
                let Some(offset) = lines[i + 1..].iter().position(|l| l.trim() == ROW_END) else {
                    // A row that never closes is not a block; nothing of it is carried.
                    i += 1;
                    continue;
                };
                let end = i + 1 + offset;
                read.rows.push(RowBlock {
                    facts,
                    marker,
                    ticked: box_state(line) == Some(true),
                    text: lines[i..=end].join("\n"),
                });
                i = end + 1;
            }
            crate::in_sync_list::KIND => {
                let (rows, read_lines) = crate::in_sync_list::read(&lines[i + 1..]);
                read.rows.extend(rows);
                i += 1 + read_lines;
            }
            "rescan" => {
                read.rescan = Some(BoxLine {
                    marker,
                    ticked: box_state(line) == Some(true),
                });
                i += 1;
            }
            "bulk" => {
                read.bulk.push(BoxLine {
                    marker,
                    ticked: box_state(line) == Some(true),
                });
                i += 1;
            }
            "shipped" => {
                read.shipped.push(marker);
                i += 1;
            }
            "merge" => {
                read.updates.listed.push(crate::updates::UpdateLine {
                    text: line.to_owned(),
                    ticked: box_state(line) == Some(true),
                    update: crate::updates::from_marker(&marker),
                });
                i += 1;
            }
            "waiting" => {
                read.updates.waiting.push(line.to_owned());
                i += 1;
            }
            "outside" => {
                read.outside.push(marker);
                i += 1;
            }
            _ => i += 1,
        }
    }
    read
}
