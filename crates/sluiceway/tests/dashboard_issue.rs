//! Finding or making the dashboard issue (decision 0017), against the emulator.

mod support;

use sluiceway::modes::dashboard_issue::{self, How, Pin};
use sluiceway_core::config::RawDashboard;
use sluiceway_github::{GitHub, IssueState};
use support::{Bed, REPO};

const FIRST: &str = "<!-- sluiceway:dashboard -->\nThe first scan is running.";

fn config() -> RawDashboard {
    RawDashboard::default()
}

/// The scan's way: list once, then keep, reopen or create.
fn ensure(bed: &Bed, config: &RawDashboard) -> dashboard_issue::Ensured {
    let open = dashboard_issue::find(&bed.github, &config.label).unwrap();
    dashboard_issue::ensure(&bed.github, config, FIRST, open).unwrap()
}

fn open_labelled(bed: &Bed) -> Vec<u64> {
    bed.github
        .open_issues_labelled("sluiceway")
        .unwrap()
        .iter()
        .map(|i| i.number)
        .collect()
}

#[test]
fn the_first_scan_creates_labels_and_pins_it_in_five_requests() {
    let bed = Bed::new();
    let before = bed.github.requests_made();
    let ensured = ensure(&bed, &config());
    let read = bed.github.read_body(ensured.issue.number, None).unwrap();
    assert!(
        !read.pinned,
        "the read of the body says it is not pinned yet"
    );
    let pin = dashboard_issue::pin(&bed.github, &config(), &ensured.issue, Some(read.pinned));
    assert_eq!(
        bed.github.requests_made() - before,
        5,
        "open, closed, create, the body read, pin"
    );
    assert_eq!(ensured.how, How::Created);
    assert!(pin == Pin::Pinned && !ensured.renamed && ensured.closed.is_empty());
    assert!(
        bed.github
            .read_body(ensured.issue.number, None)
            .unwrap()
            .pinned
    );
    assert_eq!(ensured.issue.title, "Sluiceway dashboard");
    assert_eq!(bed.body(ensured.issue.number), FIRST);
    assert_eq!(bed.github.pinned_issues().unwrap(), [ensured.issue.number]);
}

#[test]
fn a_refused_pin_is_told_and_the_scan_stays_green() {
    let bed = Bed::new();
    for title in ["one", "two", "three"] {
        bed.issue("alice", title, "pinned before Sluiceway came", &["notes"]);
    }
    for issue in bed.github.open_issues_labelled("notes").unwrap() {
        bed.github.pin_issue(&issue).unwrap();
    }
    let ensured = ensure(&bed, &config());
    let pin = dashboard_issue::pin(&bed.github, &config(), &ensured.issue, Some(false));
    assert!(
        matches!(&pin, Pin::Refused(why) if why.contains("at most three")),
        "{pin:?}"
    );
    assert_eq!(open_labelled(&bed), [ensured.issue.number]);

    // The scan says so and stays green.
    let job = support::job::Job::new();
    let sha = support::job::push(&bed, "the first commit", &["network/main.tf"]);
    let ran = job.run(&bed, "push", &sha);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.contains(&format!(
            "::warning::The dashboard (#{}) could not be pinned, so it is left unpinned:",
            ensured.issue.number
        )),
        "{}",
        ran.log
    );
    assert!(bed.body(ensured.issue.number).contains("network"));
}

#[test]
fn a_later_scan_finds_it_with_its_body_in_one_request_and_asks_nothing_to_keep_the_pin() {
    let bed = Bed::new();
    let first = ensure(&bed, &config());
    dashboard_issue::pin(&bed.github, &config(), &first.issue, Some(false));
    let before = bed.github.requests_made();
    let open = dashboard_issue::find(&bed.github, "sluiceway").unwrap();
    assert_eq!(open[0].body, FIRST, "the list brings the body");
    let again = dashboard_issue::ensure(&bed.github, &config(), FIRST, open).unwrap();
    let pinned = bed
        .github
        .read_body(again.issue.number, None)
        .unwrap()
        .pinned;
    let pin = dashboard_issue::pin(&bed.github, &config(), &again.issue, Some(pinned));
    assert_eq!(
        bed.github.requests_made() - before,
        2,
        "the list, and the read of the body that says it is pinned"
    );
    assert_eq!(
        (again.how, again.issue.number, pin),
        (How::Found, first.issue.number, Pin::Left)
    );
    let unpinned = RawDashboard {
        pin: false,
        ..config()
    };
    let before = bed.github.requests_made();
    assert_eq!(
        dashboard_issue::pin(&bed.github, &unpinned, &again.issue, None),
        Pin::Left
    );
    assert_eq!(bed.github.requests_made() - before, 0);
}

#[test]
fn of_several_open_dashboards_the_lowest_is_kept_and_the_others_closed_with_a_pointer() {
    let bed = Bed::new();
    let keep = bed.issue(
        "github-actions[bot]",
        "Sluiceway dashboard",
        FIRST,
        &["sluiceway"],
    );
    let other = bed.issue("alice", "unrelated", "", &["bug"]);
    let copy = bed.issue(
        "github-actions[bot]",
        "Sluiceway dashboard",
        FIRST,
        &["sluiceway"],
    );
    let ensured = ensure(&bed, &config());
    assert_eq!(ensured.issue.number, keep);
    assert_eq!(ensured.closed, [copy]);
    assert_eq!(open_labelled(&bed), [keep]);
    let world = bed.emulator.world();
    let closed = &world.repos[REPO].issues[&copy];
    assert!(!closed.open);
    assert_eq!(
        closed.comments[0].body,
        format!("Sluiceway keeps one dashboard per repository: #{keep}. This copy is closed.")
    );
    assert!(
        world.repos[REPO].issues[&other].open,
        "an issue without the label is not touched"
    );
}

#[test]
fn with_none_open_the_newest_closed_one_is_reopened_and_renamed() {
    let bed = Bed::new();
    let older = bed.issue("github-actions[bot]", "Old", FIRST, &["sluiceway"]);
    let newer = bed.issue("github-actions[bot]", "Deploys", FIRST, &["sluiceway"]);
    for number in [older, newer] {
        bed.github
            .set_issue_state(number, IssueState::Closed)
            .unwrap();
    }
    let ensured = ensure(&bed, &config());
    assert_eq!(
        (ensured.how, ensured.issue.number, ensured.renamed),
        (How::Reopened, newer, true)
    );
    assert_eq!(ensured.issue.state, IssueState::Open);
    let reopened = bed.github.open_issues_labelled("sluiceway").unwrap();
    assert_eq!(
        reopened
            .iter()
            .map(|i| (i.number, i.title.as_str()))
            .collect::<Vec<_>>(),
        [(newer, "Sluiceway dashboard")]
    );
}
