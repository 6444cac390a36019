//! The reader held to a body the reference implementation wrote
//! (`../shared/conformance/dashboard/example-dashboard.md`): every row block with its
//! stack, state, hash and box, the root facts, and the rescan box; and drawn as HTML as
//! GitHub shows it.

#![allow(
    clippy::print_stderr,
    reason = "a skipped corpus is announced on stderr"
)]

use std::path::Path;

use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::reader;

fn example() -> Option<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/conformance/dashboard/example-dashboard.md");
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(text),
        Err(_) => {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
            );
            eprintln!(
                "notice: {} is absent; the reader was not held to it",
                path.display()
            );
            None
        }
    }
}

#[test]
fn every_row_block_of_the_reference_body_is_found() {
    let Some(body) = example() else { return };
    let read = reader::read(&body);
    let root = read
        .root
        .as_ref()
        .expect("the root marker on the first line");
    assert_eq!(root.get("v"), Some("1"));
    assert_eq!(
        root.get("scan-sha"),
        Some("34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91")
    );
    assert_eq!(root.get("scan-run"), Some("17034455121"));
    assert_eq!(root.get("scan-at"), Some("2026-09-21T10:02:41Z"));
    assert_eq!(root.get("full-scan-at"), Some("2026-09-21T06:00:12Z"));
    let rows: Vec<(&str, Option<RowState>, Option<&str>, bool)> = read
        .rows
        .iter()
        .map(|r| {
            (
                r.facts.stack.as_str(),
                r.facts.state,
                r.facts.hash.as_deref(),
                r.ticked,
            )
        })
        .collect();
    use RowState::*;
    assert_eq!(
        rows,
        [
            ("apps/api:prod", Some(Deploying), None, false),
            ("apps/worker:prod", Some(Queued), None, false),
            (
                "apps/billing:prod",
                Some(Pending),
                Some("1d0a03db50bc7070"),
                false
            ),
            (
                "apps/legacy-worker:prod",
                Some(Pending),
                Some("63a63bc225aca792"),
                false
            ),
            (
                "apps/web:staging",
                Some(Pending),
                Some("ec5ef272e21b14c0"),
                false
            ),
            (
                "infra/network:prod",
                Some(Pending),
                Some("32cbe8fae705b3a9"),
                false
            ),
            (
                "monitoring/grafana:prod",
                Some(Drift),
                Some("3317badb7e6c946b"),
                false
            ),
            (
                "platform/external-dns:prod",
                Some(Drift),
                Some("78b602d7bc070d24"),
                false
            ),
            ("apps/api:staging", Some(InSync), None, false),
            ("apps/auth:prod", Some(InSync), None, false),
            ("apps/auth:staging", Some(InSync), None, false),
            ("apps/billing:staging", Some(InSync), None, false),
            ("apps/web:prod", Some(InSync), None, false),
            ("data/postgres:prod", Some(InSync), None, false),
            ("data/postgres:staging", Some(InSync), None, false),
            ("platform/ingress-nginx:prod", Some(InSync), None, false),
        ]
    );
    let legacy = &read.rows[3].facts;
    assert_eq!(
        (legacy.destroys, legacy.deletes, legacy.tracking),
        (3, 3, 1)
    );
    assert_eq!(read.rows[1].facts.behind, ["apps/api:prod"]);
    assert!(read.rescan.as_ref().is_some_and(|r| !r.ticked));
    assert_eq!(read.bulk.len(), 2);
    assert_eq!(read.bulk[1].marker.get("confirm"), Some("carol"));
    assert!(read.unknown_rows().next().is_none());
}

#[test]
fn a_tick_is_read_from_the_first_line_only_and_blocks_are_carried_whole() {
    let Some(body) = example() else { return };
    let ticked = body.replacen(
        "- [ ] **apps/billing:prod**",
        "- [x] **apps/billing:prod**",
        1,
    );
    let inside = ticked.replacen("  <kbd>create</kbd>", "  - [x] <kbd>create</kbd>", 1);
    let read = reader::read(&inside.replace('\n', "\r\n"));
    let billing = read
        .rows
        .iter()
        .find(|r| r.facts.stack == "apps/billing:prod")
        .unwrap();
    assert!(billing.ticked);
    assert_eq!(
        read.rows.iter().filter(|r| r.ticked).count(),
        1,
        "a box inside a block is never a tick"
    );
    assert!(
        billing.text.starts_with("- [x] **apps/billing:prod**")
            && billing.text.ends_with("<!-- /sluiceway:row -->")
    );
    assert!(
        billing.text.contains("  - [x] <kbd>create</kbd>"),
        "the text between the markers is carried as it is"
    );
}

#[test]
fn rows_of_unknown_states_are_carried_and_not_counted() {
    let Some(body) = example() else { return };
    let odd = body.replacen("state=\"in-sync\"", "state=\"hibernating\"", 1);
    let read = reader::read(&odd);
    assert_eq!(read.unknown_rows().count(), 1);
    assert_eq!(read.rows.len(), 16);
}

/// The reference's own example body, as GitHub shows it: emoji shortcodes become emoji,
/// the caution alert is an alert, and every box sits on its row.
#[test]
fn the_reference_body_renders_as_github_shows_it() {
    let Some(body) = example() else { return };
    let html = sluiceway_dashboard::page::page(&body, "example", None);
    for shortcode in [":warning:", ":x:", ":information_source:"] {
        assert!(!html.contains(shortcode), "{shortcode} stayed text");
    }
    assert!(
        html.contains("⚠️") || html.contains('⚠'),
        "the warning sign"
    );
    assert!(html.contains("<div class=\"markdown-alert markdown-alert-caution\">"));
    assert!(!html.contains("[!CAUTION]"));
    assert!(html.contains("<li class=\"task-list-item\"><input type=\"checkbox\""));
}
