//! Naming the ticker from the edit history (decisions 0025 and 0119). The bodies are
//! rendered by the dashboard crate; each entry is what a person's or the bot's edit
//! leaves, made the way GitHub's task-list box flips it.

mod support;

use github_emulator::FaultKind;
use jiff::Timestamp;
use sluiceway::modes::ticker::{self, History, Nobody, Tick, Walk};
use sluiceway::modes::write_loop;
use sluiceway_core::config::RawDashboard;
use sluiceway_core::diff::{Change, Diff, Op};
use sluiceway_core::stack::StackId;
use sluiceway_dashboard::body;
use sluiceway_dashboard::view::*;
use sluiceway_github::{Actor, ActorKind, Edit, GitHub};
use support::{Bed, REPO};

const BOT: &str = "github-actions[bot]";

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn pending(stack: &str, address: &str) -> Row {
    let id = StackId::given(stack);
    Row {
        stack: id.clone(),
        state: State::Pending {
            diff: Diff {
                stack: id,
                changes: vec![Change::new(address, "T", address, Op::Update)],
                drift: None,
            },
            preview: None,
            attribution: None,
        },
        failure: None,
        notes: vec![],
        drift_not_checked: false,
        policies: None,
        cost: None,
    }
}

/// A scan's body with two pending rows, every box clear.
fn scanned() -> String {
    let view = View {
        root: Root {
            scan_sha: "34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91".into(),
            scan_run: 900,
            scan_at: at("2026-11-30T10:02:41Z"),
            full_scan_at: None,
            full_scan_run: None,
            waiting: None,
            failed_runs: None,
        },
        links: Links {
            server: "https://github.com".into(),
            repository: "acme/infra".into(),
            summary: "https://github.com/acme/infra/actions/runs/900#summary".into(),
            pictures: "https://example.invalid/header".into(),
            reach: Reach::Runs,
        },
        rows: vec![pending("apps/web", "web"), pending("apps/api", "api")]
            .into_iter()
            .map(RowSource::Fresh)
            .collect(),
        unknown: vec![],
        trail: vec![],
        outside: vec![],
        ignored: vec![],
        confirms: vec![],
        bulk_notes: Vec::new(),
        ticked_boxes: Vec::new(),
        hints: vec![],
        layout: RawDashboard::default(),
        attribution_names: 5,
        version: "0.1.0".into(),
        updates: Default::default(),
    };
    body::render(&view).unwrap()
}

/// The body with the box of `stack`'s row flipped, as a click on it does.
fn flip(body: &str, stack: &str, ticked: bool) -> String {
    let (from, to) = if ticked {
        ("- [ ]", "- [x]")
    } else {
        ("- [x]", "- [ ]")
    };
    let needle = format!("stack=\"{stack}\"");
    let lines: Vec<String> = body
        .lines()
        .map(|line| {
            if line.contains(&needle) && line.starts_with(from) {
                line.replacen(from, to, 1)
            } else {
                line.to_owned()
            }
        })
        .collect();
    assert_ne!(lines.join("\n"), body, "{stack} has a box to flip");
    lines.join("\n")
}

fn person(login: &str) -> Option<Actor> {
    let kind = if login == BOT {
        ActorKind::Bot
    } else {
        ActorKind::User
    };
    Some(Actor {
        login: login.into(),
        kind,
    })
}

fn entry(editor: &str, body: &str, second: u32) -> Edit {
    Edit {
        edited_at: at(&format!("2026-11-30T11:00:{second:02}Z")),
        editor: person(editor),
        body: Some(body.to_owned()),
        deleted: false,
    }
}

/// Entries oldest first, as they happened, turned newest first as GitHub gives them.
fn history(happened: &[(&str, &str)]) -> Vec<Edit> {
    let mut edits: Vec<Edit> = happened
        .iter()
        .enumerate()
        .map(|(n, (who, body))| entry(who, body, n as u32))
        .collect();
    edits.reverse();
    edits
}

fn walk_all(tick: &Tick, edits: &[Edit]) -> Walk {
    let body = edits[0].body.clone().unwrap();
    ticker::walk(
        tick,
        History {
            body: &body,
            edits,
            complete: true,
            total: edits.len() as u64,
        },
        BOT,
    )
}

fn row_tick(body: &str, stack: &str) -> Tick {
    Tick::all_in(body)
        .into_iter()
        .find(|t| matches!(t, Tick::Row { stack: s, .. } if s == stack))
        .unwrap_or_else(|| panic!("{stack} is ticked"))
}

#[test]
fn ticks_a_second_apart_by_different_people_are_each_credited_to_their_own_ticker() {
    let original = scanned();
    let alice = flip(&original, "apps/web", true);
    let bob = flip(&alice, "apps/api", true);
    let edits = history(&[(BOT, &original), ("alice", &alice), ("bob", &bob)]);
    assert_eq!(Tick::all_in(&bob).len(), 2);
    assert_eq!(
        walk_all(&row_tick(&bob, "apps/web"), &edits),
        Walk::Ticker(person("alice"))
    );
    assert_eq!(
        walk_all(&row_tick(&bob, "apps/api"), &edits),
        Walk::Ticker(person("bob"))
    );
}

#[test]
fn bot_entries_inside_the_stretch_keep_the_person_who_ticked() {
    let original = scanned();
    let alice = flip(&original, "apps/web", true);
    let rescanned = alice.replace("2026-11-30T10:02:41Z", "2026-11-30T10:30:00Z");
    let edits = history(&[(BOT, &original), ("alice", &alice), (BOT, &rescanned)]);
    assert_eq!(
        walk_all(&row_tick(&rescanned, "apps/web"), &edits),
        Walk::Ticker(person("alice"))
    );
}

#[test]
fn a_deleted_entry_in_the_stretch_names_nobody() {
    let original = scanned();
    let alice = flip(&original, "apps/web", true);
    let mallory = alice.replace("2026-11-30T10:02:41Z", "2026-11-30T10:03:00Z");
    let mut edits = history(&[(BOT, &original), ("alice", &alice), ("mallory", &mallory)]);
    edits[1].deleted = true;
    edits[1].body = None;
    assert_eq!(
        walk_all(&row_tick(&mallory, "apps/web"), &edits),
        Walk::Nobody(Nobody::BrokenByADeletedEntry)
    );
}

#[test]
fn a_stretch_that_reaches_the_start_of_a_capped_history_names_nobody() {
    let original = scanned();
    let ticked = flip(&original, "apps/web", true);
    let edits: Vec<Edit> = (0..10)
        .map(|n| entry(if n == 9 { "alice" } else { "bob" }, &ticked, n))
        .collect();
    let tick = row_tick(&ticked, "apps/web");
    let capped = History {
        body: &ticked,
        edits: &edits,
        complete: true,
        total: 100,
    };
    assert_eq!(
        ticker::walk(&tick, capped, BOT),
        Walk::Nobody(Nobody::PastTheKeptHistory)
    );
    let more = History {
        complete: false,
        ..capped
    };
    assert_eq!(ticker::walk(&tick, more, BOT), Walk::ReadMore);
}

#[test]
fn a_body_that_moved_since_it_was_read_is_read_again() {
    let original = scanned();
    let alice = flip(&original, "apps/web", true);
    let edits = history(&[(BOT, &original), ("alice", &alice)]);
    let tick = row_tick(&alice, "apps/web");
    let stale = History {
        body: &original,
        edits: &edits,
        complete: true,
        total: 2,
    };
    assert_eq!(ticker::walk(&tick, stale, BOT), Walk::Moved);
    assert_eq!(
        ticker::walk(
            &tick,
            History {
                edits: &[],
                ..stale
            },
            BOT
        ),
        Walk::Nobody(Nobody::NoEdits)
    );
}

#[test]
fn the_bot_s_write_over_a_tick_is_looked_through_once_when_the_bot_wrote_it_back() {
    let original = scanned();
    let alice = flip(&original, "apps/web", true);
    let went_over = original.replace("2026-11-30T10:02:41Z", "2026-11-30T10:30:00Z");
    let written_back = flip(&went_over, "apps/web", true);
    let edits = history(&[
        (BOT, &original),
        ("alice", &alice),
        (BOT, &went_over),
        (BOT, &written_back),
    ]);
    assert_eq!(
        walk_all(&row_tick(&written_back, "apps/web"), &edits),
        Walk::Ticker(person("alice"))
    );
}

#[test]
fn nothing_else_is_looked_through() {
    let original = scanned();
    let alice = flip(&original, "apps/web", true);
    let went_over = original.replace("2026-11-30T10:02:41Z", "2026-11-30T10:30:00Z");
    let written_back = flip(&went_over, "apps/web", true);
    let tick = row_tick(&written_back, "apps/web");
    // A person's untick is not looked through: the stretch starts after it.
    let by_carol = history(&[
        (BOT, &original),
        ("alice", &alice),
        ("carol", &went_over),
        ("carol", &written_back),
    ]);
    assert_eq!(walk_all(&tick, &by_carol), Walk::Ticker(person("carol")));
    // Not when the newest entry is a person's.
    let newest_bob = history(&[
        (BOT, &original),
        ("alice", &alice),
        (BOT, &went_over),
        ("bob", &written_back),
    ]);
    assert_eq!(walk_all(&tick, &newest_bob), Walk::Ticker(person("bob")));
    // And only one bot entry.
    let again = went_over.replace("10:30:00Z", "10:31:00Z");
    let twice = history(&[
        (BOT, &original),
        ("alice", &alice),
        (BOT, &went_over),
        (BOT, &written_back),
        (BOT, &again),
        (BOT, &flip(&again, "apps/web", true)),
    ]);
    let tick = row_tick(&flip(&again, "apps/web", true), "apps/web");
    assert_eq!(
        walk_all(&tick, &twice),
        Walk::Ticker(person(BOT)),
        "the stretch ends at the second write-over"
    );
}

#[test]
fn a_tick_at_another_hash_is_another_tick() {
    let original = scanned();
    let alice = flip(&original, "apps/web", true);
    let Tick::Row { stack, .. } = row_tick(&alice, "apps/web") else {
        unreachable!()
    };
    let other = Tick::Row {
        stack,
        hash: "0000000000000000".into(),
    };
    let edits = history(&[(BOT, &original), ("alice", &alice)]);
    assert_eq!(walk_all(&other, &edits), Walk::Nobody(Nobody::NotTicked));
}

/// Decision 0119's race, end to end: alice ticks while a scan writes; the scan's write
/// goes over her tick, the write loop writes it back, and the walk still names her.
#[test]
fn a_tick_a_scan_wrote_over_is_written_back_and_still_credited_to_the_person() {
    let bed = Bed::new();
    let issue = bed.issue(BOT, "Sluiceway dashboard", &scanned(), &["sluiceway"]);
    bed.arm(
        "PATCH /repos/{owner}/{repo}/issues/{issue_number}",
        FaultKind::TickFirst {
            repo: REPO.into(),
            issue,
            editor: "alice".into(),
            line: "stack=\"apps/web\"".into(),
        },
    );
    let rescan = |live: &str| live.replace("2026-11-30T10:02:41Z", "2026-11-30T10:30:00Z");
    let written = write_loop::write(&bed.github, issue, rescan).unwrap();
    assert!(written.over_an_edit);

    let read = bed.github.read_body(issue, None).unwrap();
    let ticks = Tick::all_in(&read.body);
    assert_eq!(ticks.len(), 1, "the tick is back");
    let history = History {
        body: &read.body,
        edits: &read.edits,
        complete: read.next.is_none(),
        total: read.total_edits,
    };
    assert_eq!(
        ticker::walk(&ticks[0], history, BOT),
        Walk::Ticker(person("alice"))
    );
}

mod invariant {
    use super::*;
    use proptest::prelude::*;

    /// One edit: who makes it, and whether it ticks, unticks, or only rewrites the
    /// scan time (as a bot's scan does).
    #[derive(Debug, Clone, Copy)]
    enum Step {
        Tick(usize),
        Untick(usize),
        Rescan(usize),
    }

    const EDITORS: [&str; 3] = ["alice", "bob", BOT];

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            (0usize..3).prop_map(Step::Tick),
            (0usize..3).prop_map(Step::Untick),
            (0usize..3).prop_map(Step::Rescan),
        ]
    }

    proptest! {
        /// The walk names the editor of the entry in which the tick last appeared,
        /// looking past one bot write-over only when the bot wrote the tick back.
        #[test]
        fn the_named_ticker_is_the_one_who_ticked(steps in proptest::collection::vec(step(), 1..14)) {
            let mut body = scanned();
            let mut time = "2026-11-30T10:02:41Z".to_string();
            let mut happened: Vec<(&str, String)> = vec![(BOT, body.clone())];
            for (n, step) in steps.iter().enumerate() {
                let ticked = body.contains("- [x]");
                let (who, next) = match *step {
                    Step::Tick(who) if !ticked => (who, flip(&body, "apps/web", true)),
                    Step::Untick(who) if ticked => (who, flip(&body, "apps/web", false)),
                    Step::Tick(who) | Step::Untick(who) | Step::Rescan(who) => {
                        let later = format!("2026-11-30T11:{n:02}:00Z");
                        let next = body.replace(&time, &later);
                        time = later;
                        (who, next)
                    }
                };
                prop_assert_ne!(&next, &body);
                body = next;
                happened.push((EDITORS[who], body.clone()));
            }
            let pairs: Vec<(&str, &str)> = happened.iter().map(|(w, b)| (*w, b.as_str())).collect();
            let edits = history(&pairs);
            let Some(tick) = Tick::all_in(&body).into_iter().next() else { return Ok(()) };
            // The same rule, said by breaks: going back from the newest entry, the tick
            // appeared where the entry before it lacks it; past that one break the walk
            // goes only over a bot entry, when the newest entry is the bot's too.
            let holds = |e: &Edit| Tick::all_in(e.body.as_deref().unwrap_or_default()).contains(&tick);
            let appeared = |from: usize| {
                (from..edits.len()).find(|&k| edits.get(k + 1).is_none_or(|older| !holds(older))).unwrap()
            };
            let by_bot = |e: &Edit| e.editor.as_ref().is_some_and(|a| a.login == BOT);
            let first = appeared(0);
            let looked_through = edits.get(first + 2).is_some_and(|after_gap| {
                by_bot(&edits[first + 1]) && by_bot(&edits[0]) && holds(after_gap)
            });
            let expected = if looked_through { appeared(first + 2) } else { first };
            prop_assert_eq!(walk_all(&tick, &edits), Walk::Ticker(edits[expected].editor.clone()));
        }
    }
}
