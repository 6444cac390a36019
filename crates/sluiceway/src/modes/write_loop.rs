//! The one way every mode writes the dashboard (decisions 0004 and 0119). GitHub has no
//! compare-and-swap for issue bodies, so a writer does its slow work first, then reads
//! the live body late, builds from it, skips a write that changes nothing, writes, and
//! reads back. A read-back that differs starts again from what it read. A read-back that
//! matches, but whose edit history shows that the write replaced a body other than the
//! one it was built from, went over a person's edit (a tick, say): the loop builds again
//! from that replaced body, so the edit is written back rather than lost.

use sluiceway_github::{BodyWithHistory, GitHub, GitHubError};

/// Writes (and rebuilds after an overwritten edit) one run may spend.
pub const TRIES: u8 = 3;

/// How a write ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Written {
    /// Bodies sent; 0 when the built body was already the live one.
    pub writes: u8,
    /// A write went over a person's edit and the loop wrote that edit back. The mode
    /// logs it once.
    pub over_an_edit: bool,
    /// Whether the issue is pinned, as the newest read said; `None` when the loop read
    /// nothing (it started from a body already read, and wrote nothing).
    pub pinned: Option<bool>,
}

#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error(transparent)]
    GitHub(#[from] GitHubError),
    #[error(
        "the dashboard (#{number}) changed under each of {TRIES} writes; the next scan writes it again"
    )]
    KeptMoving { number: u64 },
    #[error(
        "each of {TRIES} writes of the dashboard (#{number}) went over somebody's edit; a tick may be lost, so tick again to deploy"
    )]
    WentOverEdits { number: u64 },
}

/// Writes the body `build` makes from the live one. `build` is called once per try
/// with the body to build from, and must be the same function of it every time.
pub fn write(
    github: &dyn GitHub,
    number: u64,
    build: impl FnMut(&str) -> String,
) -> Result<Written, WriteError> {
    let read = github.read_body(number, None)?;
    let mut written = write_over(github, number, read.body, build)?;
    written.pinned = written.pinned.or(Some(read.pinned));
    Ok(written)
}

/// The same loop from a body the caller read moments ago (the scan's first write, from
/// the body it found the dashboard with), so it starts with a write, not a read; every
/// write is still read back.
pub fn write_over(
    github: &dyn GitHub,
    number: u64,
    live: String,
    mut build: impl FnMut(&str) -> String,
) -> Result<Written, WriteError> {
    // What the issue holds now, as far as we know, and what the next body is built from:
    // the same, but after a write that went over an edit, which is built from that edit.
    let mut live = live;
    let mut from = live.clone();
    let mut written = Written {
        writes: 0,
        over_an_edit: false,
        pinned: None,
    };
    let mut last_went_over = false;
    for _ in 0..TRIES {
        let body = build(&from);
        if body == live {
            return Ok(written);
        }
        github.write_body(number, &body)?;
        written.writes += 1;
        let after = github.read_body(number, None)?;
        written.pinned = Some(after.pinned);
        if after.body != body {
            last_went_over = false;
            live = after.body;
            from = live.clone();
            continue;
        }
        match replaced_edit(&after, &live) {
            Some(replaced) => {
                written.over_an_edit = true;
                last_went_over = true;
                live = body;
                from = replaced;
            }
            None => return Ok(written),
        }
    }
    Err(if last_went_over {
        WriteError::WentOverEdits { number }
    } else {
        WriteError::KeptMoving { number }
    })
}

/// The body our write replaced, when it is not the one we knew was live. When
/// the newest entry is not ours (the history moved on) or the one before it has no body
/// (deleted), nothing can be said, and the write stands.
fn replaced_edit(after: &BodyWithHistory, known: &str) -> Option<String> {
    let ours = after.edits.first()?;
    if ours.body.as_deref() != Some(after.body.as_str()) {
        return None;
    }
    let replaced = after.edits.get(1)?.body.as_deref()?;
    (replaced != known).then(|| replaced.to_owned())
}
