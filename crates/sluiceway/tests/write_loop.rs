//! The write loop against the emulator (decisions 0004 and 0119): no write when nothing
//! changes, read-back, a person's edit that lands between the read and the write is
//! written back, and a dashboard that never holds still ends in an error that says so.

mod support;

use github_emulator::world::Level;
use github_emulator::{Act, FaultKind};
use sluiceway::modes::write_loop::{self, WriteError, Written};
use sluiceway_github::{Endpoints, GitHub, HttpGitHub};
use support::{Bed, REPO};

const PATCH_ISSUE: &str = "PATCH /repos/{owner}/{repo}/issues/{issue_number}";
const READ_BODY: &str = "graphql ReadBody";
const BODY: &str =
    "<!-- sluiceway:dashboard -->\nscanned at 09:00\n- [ ] **apps/web** <!-- row -->";

fn dashboard() -> (Bed, u64) {
    let bed = Bed::new();
    let issue = bed.issue("github-actions[bot]", "Sluiceway", BODY, &["sluiceway"]);
    (bed, issue)
}

/// Alice ticks the row just before the operation `on` is served.
fn tick_first(bed: &Bed, issue: u64, on: &str) {
    bed.arm(
        on,
        FaultKind::TickFirst {
            repo: REPO.into(),
            issue,
            editor: "alice".into(),
            line: "apps/web".into(),
        },
    );
}

/// What a scan's builder does: a fresh scan line, every other line carried as it is.
fn rescan(at: &str) -> impl Fn(&str) -> String + '_ {
    move |live: &str| {
        live.lines()
            .map(|line| {
                if line.starts_with("scanned at") {
                    format!("scanned at {at}")
                } else {
                    line.to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

#[test]
fn a_body_that_would_not_change_is_not_written() {
    let (bed, issue) = dashboard();
    let before = bed.github.requests_made();
    let written = write_loop::write(&bed.github, issue, rescan("09:00")).unwrap();
    assert_eq!(
        written,
        Written {
            writes: 0,
            over_an_edit: false,
            pinned: Some(false),
        }
    );
    assert_eq!(bed.github.requests_made() - before, 1, "the late read only");
    assert!(!bed.emulator.traffic().contains(&PATCH_ISSUE.to_string()));
}

#[test]
fn a_write_over_a_body_just_read_starts_with_the_write_and_is_read_back() {
    let (bed, issue) = dashboard();
    let live = bed.body(issue);
    let before = bed.github.requests_made();
    let written =
        write_loop::write_over(&bed.github, issue, live.clone(), rescan("10:00")).unwrap();
    assert_eq!(written.writes, 1);
    assert_eq!(bed.github.requests_made() - before, 2, "write, read back");
    let before = bed.github.requests_made();
    let unchanged =
        write_loop::write_over(&bed.github, issue, bed.body(issue), rescan("10:00")).unwrap();
    assert_eq!(
        (unchanged.writes, unchanged.pinned),
        (0, None),
        "nothing written and nothing read: the pin state is not known"
    );
    assert_eq!(
        bed.github.requests_made() - before,
        1,
        "only the test's own read"
    );
}

#[test]
fn a_write_is_read_back_in_three_requests() {
    let (bed, issue) = dashboard();
    let before = bed.github.requests_made();
    let written = write_loop::write(&bed.github, issue, rescan("10:00")).unwrap();
    assert_eq!(
        written,
        Written {
            writes: 1,
            over_an_edit: false,
            pinned: Some(false),
        }
    );
    assert_eq!(
        bed.github.requests_made() - before,
        3,
        "late read, write, read back"
    );
    assert!(bed.body(issue).contains("scanned at 10:00"));
}

#[test]
fn a_tick_that_lands_between_the_read_and_the_write_is_written_back() {
    let (bed, issue) = dashboard();
    tick_first(&bed, issue, PATCH_ISSUE);
    let written = write_loop::write(&bed.github, issue, rescan("10:00")).unwrap();
    assert_eq!(
        written,
        Written {
            writes: 2,
            over_an_edit: true,
            pinned: Some(false),
        }
    );
    let read = bed.github.read_body(issue, None).unwrap();
    assert!(
        read.body.contains("- [x] **apps/web**"),
        "the tick is back:\n{}",
        read.body
    );
    assert!(read.body.contains("scanned at 10:00"));
    let editors: Vec<String> = read
        .edits
        .iter()
        .map(|e| e.editor.clone().unwrap().login)
        .collect();
    assert_eq!(
        editors,
        [
            "github-actions[bot]",
            "github-actions[bot]",
            "alice",
            "github-actions[bot]"
        ]
    );
}

#[test]
fn a_tick_that_lands_after_the_write_is_kept_as_it_is() {
    let (bed, issue) = dashboard();
    bed.arm(READ_BODY, FaultKind::Slow { millis: 0 });
    tick_first(&bed, issue, READ_BODY);
    let written = write_loop::write(&bed.github, issue, rescan("10:00")).unwrap();
    assert_eq!(
        written.writes, 1,
        "built again from the read-back, it needs no second write"
    );
    let read = bed.github.read_body(issue, None).unwrap();
    assert!(
        read.body.contains("- [x] **apps/web**") && read.body.contains("scanned at 10:00"),
        "{}",
        read.body
    );
    assert_eq!(read.edits[0].editor.as_ref().unwrap().login, "alice");
}

#[test]
fn a_body_that_moved_after_the_write_is_built_again_from_what_was_read_back() {
    let (bed, issue) = dashboard();
    bed.arm(READ_BODY, FaultKind::Slow { millis: 0 });
    let other_writer = BODY.replace("09:00", "09:30").replace("- [ ]", "- [x]");
    bed.arm(
        READ_BODY,
        FaultKind::EditFirst {
            repo: REPO.into(),
            issue,
            editor: "alice".into(),
            body: other_writer,
        },
    );
    let written = write_loop::write(&bed.github, issue, rescan("10:00")).unwrap();
    assert_eq!(
        written,
        Written {
            writes: 2,
            over_an_edit: false,
            pinned: Some(false),
        }
    );
    let body = bed.body(issue);
    assert!(
        body.contains("- [x] **apps/web**") && body.contains("scanned at 10:00"),
        "{body}"
    );
}

#[test]
fn when_every_write_goes_over_an_edit_the_error_asks_for_a_fresh_tick() {
    let (bed, issue) = dashboard();
    for n in 0..3 {
        bed.arm(
            PATCH_ISSUE,
            FaultKind::EditFirst {
                repo: REPO.into(),
                issue,
                editor: "alice".into(),
                body: format!("{BODY}\nnote {n}"),
            },
        );
    }
    let error = write_loop::write(&bed.github, issue, rescan("10:00")).unwrap_err();
    assert!(matches!(error, WriteError::WentOverEdits { .. }), "{error}");
    assert!(error.to_string().contains("tick again"));
}

#[test]
fn a_refused_write_is_github_s_error_naming_the_permission() {
    let (bed, issue) = dashboard();
    let reader = bed
        .emulator
        .act(Act::AddToken {
            token: "reader".into(),
            login: "github-actions[bot]".into(),
            permissions: Some([("issues".to_string(), Level::Read)].into()),
        })
        .map(|_| {
            HttpGitHub::new(
                Endpoints::at(&bed.emulator.base_url()).unwrap(),
                "reader",
                REPO,
            )
        })
        .unwrap();
    match write_loop::write(&reader, issue, rescan("10:00")).unwrap_err() {
        WriteError::GitHub(error) => {
            assert_eq!(error.status(), Some(403));
            assert!(error.to_string().contains("issues: write"), "{error}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn a_dashboard_that_never_holds_still_ends_after_three_writes() {
    let (bed, issue) = dashboard();
    bed.arm(READ_BODY, FaultKind::Slow { millis: 0 });
    for minute in ["09:31", "09:32", "09:33"] {
        let body = BODY.replace("09:00", minute);
        bed.arm(
            READ_BODY,
            FaultKind::EditFirst {
                repo: REPO.into(),
                issue,
                editor: "alice".into(),
                body,
            },
        );
    }
    let before = bed.github.requests_made();
    let error = write_loop::write(&bed.github, issue, rescan("10:00")).unwrap_err();
    assert!(matches!(error, WriteError::KeptMoving { .. }), "{error}");
    assert_eq!(
        bed.github.requests_made() - before,
        7,
        "a late read and three writes, each read back"
    );
}
