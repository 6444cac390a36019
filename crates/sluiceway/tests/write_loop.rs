//! The write loop against the emulator (decisions 0004 and 0119): no write when nothing
//! changes, read-back, a person's edit that lands between the read and the write is
//! written back, and a dashboard that never holds still ends in an error that says so.

use github_emulator::world::{Level, Role};
use github_emulator::{Act, Descriptions, Emulator, Fault, FaultKind, Options, World};
use sluiceway::write_loop::{self, WriteError, Written};
use sluiceway_github::{Endpoints, GitHub, HttpGitHub};

const REPO: &str = "octo/infra";
const PATCH_ISSUE: &str = "PATCH /repos/{owner}/{repo}/issues/{issue_number}";
const READ_BODY: &str = "graphql ReadBody";
const BODY: &str =
    "<!-- sluiceway:dashboard -->\nscanned at 09:00\n- [ ] **apps/web** <!-- row -->";

struct Bed {
    emulator: Emulator,
    github: HttpGitHub,
    issue: u64,
}

impl Bed {
    fn new() -> Bed {
        let descriptions = Descriptions::installed().unwrap_or_else(|e| panic!("{e}"));
        let emulator = Emulator::start(
            World::new("2026-03-01T09:00:00Z".parse().unwrap()),
            Options {
                descriptions: Some(descriptions.into()),
                ..Options::default()
            },
        )
        .unwrap();
        emulator
            .act(Act::AddRepo {
                repo: REPO.into(),
                default_branch: "main".into(),
            })
            .unwrap();
        emulator
            .act(Act::AddCollaborator {
                repo: REPO.into(),
                login: "alice".into(),
                role: Role::Write,
            })
            .unwrap();
        emulator
            .act(Act::AddToken {
                token: "t".into(),
                login: "github-actions[bot]".into(),
                permissions: None,
            })
            .unwrap();
        let issue = emulator
            .act(Act::CreateIssue {
                repo: REPO.into(),
                author: "github-actions[bot]".into(),
                title: "Sluiceway".into(),
                body: BODY.into(),
                labels: vec!["sluiceway".into()],
            })
            .unwrap()
            .as_u64()
            .unwrap();
        let github = HttpGitHub::new(Endpoints::at(&emulator.base_url()).unwrap(), "t", REPO);
        Bed {
            emulator,
            github,
            issue,
        }
    }

    fn arm(&self, on: &str, kind: FaultKind) {
        self.emulator.arm(Fault {
            on: on.into(),
            times: 1,
            kind,
        });
    }

    fn tick_first(&self, on: &str) {
        self.arm(
            on,
            FaultKind::TickFirst {
                repo: REPO.into(),
                issue: self.issue,
                editor: "alice".into(),
                line: "apps/web".into(),
            },
        );
    }

    fn body(&self) -> String {
        self.github.read_body(self.issue, None).unwrap().body
    }
}

impl Drop for Bed {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            assert_eq!(self.emulator.violations(), Vec::<String>::new());
        }
    }
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
    let bed = Bed::new();
    let before = bed.github.requests_made();
    let written = write_loop::write(&bed.github, bed.issue, rescan("09:00")).unwrap();
    assert_eq!(
        written,
        Written {
            writes: 0,
            over_an_edit: false
        }
    );
    assert_eq!(bed.github.requests_made() - before, 1, "the late read only");
    assert!(!bed.emulator.traffic().contains(&PATCH_ISSUE.to_string()));
}

#[test]
fn a_write_is_read_back_in_three_requests() {
    let bed = Bed::new();
    let before = bed.github.requests_made();
    let written = write_loop::write(&bed.github, bed.issue, rescan("10:00")).unwrap();
    assert_eq!(
        written,
        Written {
            writes: 1,
            over_an_edit: false
        }
    );
    assert_eq!(
        bed.github.requests_made() - before,
        3,
        "late read, write, read back"
    );
    assert!(bed.body().contains("scanned at 10:00"));
}

#[test]
fn a_tick_that_lands_between_the_read_and_the_write_is_written_back() {
    let bed = Bed::new();
    bed.tick_first(PATCH_ISSUE);
    let written = write_loop::write(&bed.github, bed.issue, rescan("10:00")).unwrap();
    assert_eq!(
        written,
        Written {
            writes: 2,
            over_an_edit: true
        }
    );
    let read = bed.github.read_body(bed.issue, None).unwrap();
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
    let bed = Bed::new();
    bed.arm(READ_BODY, FaultKind::Slow { millis: 0 });
    bed.tick_first(READ_BODY);
    let written = write_loop::write(&bed.github, bed.issue, rescan("10:00")).unwrap();
    assert_eq!(
        written.writes, 1,
        "built again from the read-back, it needs no second write"
    );
    let read = bed.github.read_body(bed.issue, None).unwrap();
    assert!(
        read.body.contains("- [x] **apps/web**") && read.body.contains("scanned at 10:00"),
        "{}",
        read.body
    );
    assert_eq!(read.edits[0].editor.as_ref().unwrap().login, "alice");
}

#[test]
fn a_body_that_moved_after_the_write_is_built_again_from_what_was_read_back() {
    let bed = Bed::new();
    bed.arm(READ_BODY, FaultKind::Slow { millis: 0 });
    let other_writer = BODY.replace("09:00", "09:30").replace("- [ ]", "- [x]");
    bed.arm(
        READ_BODY,
        FaultKind::EditFirst {
            repo: REPO.into(),
            issue: bed.issue,
            editor: "alice".into(),
            body: other_writer,
        },
    );
    let written = write_loop::write(&bed.github, bed.issue, rescan("10:00")).unwrap();
    assert_eq!(
        written,
        Written {
            writes: 2,
            over_an_edit: false
        }
    );
    let body = bed.body();
    assert!(
        body.contains("- [x] **apps/web**") && body.contains("scanned at 10:00"),
        "{body}"
    );
}

#[test]
fn when_every_write_goes_over_an_edit_the_error_asks_for_a_fresh_tick() {
    let bed = Bed::new();
    for n in 0..3 {
        bed.arm(
            PATCH_ISSUE,
            FaultKind::EditFirst {
                repo: REPO.into(),
                issue: bed.issue,
                editor: "alice".into(),
                body: format!("{BODY}\nnote {n}"),
            },
        );
    }
    let error = write_loop::write(&bed.github, bed.issue, rescan("10:00")).unwrap_err();
    assert!(matches!(error, WriteError::WentOverEdits { .. }), "{error}");
    assert!(error.to_string().contains("tick again"));
}

#[test]
fn a_refused_write_is_github_s_error_naming_the_permission() {
    let bed = Bed::new();
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
    match write_loop::write(&reader, bed.issue, rescan("10:00")).unwrap_err() {
        WriteError::GitHub(error) => {
            assert_eq!(error.status(), Some(403));
            assert!(error.to_string().contains("issues: write"), "{error}");
        }
        other => panic!("{other}"),
    }
}

#[test]
fn a_dashboard_that_never_holds_still_ends_after_three_writes() {
    let bed = Bed::new();
    bed.arm(READ_BODY, FaultKind::Slow { millis: 0 });
    for minute in ["09:31", "09:32", "09:33"] {
        let body = BODY.replace("09:00", minute);
        bed.arm(
            READ_BODY,
            FaultKind::EditFirst {
                repo: REPO.into(),
                issue: bed.issue,
                editor: "alice".into(),
                body,
            },
        );
    }
    let before = bed.github.requests_made();
    let error = write_loop::write(&bed.github, bed.issue, rescan("10:00")).unwrap_err();
    assert!(matches!(error, WriteError::KeptMoving { .. }), "{error}");
    assert_eq!(
        bed.github.requests_made() - before,
        7,
        "a late read and three writes, each read back"
    );
}
