//! The job summary lists every change in full, with an anchor per stack, and stays under
//! its own budget.

use jiff::Timestamp;
use sluiceway_core::config::RawDashboard;
use sluiceway_core::diff::{Change, Diff, Op};
use sluiceway_core::stack::StackId;
use sluiceway_dashboard::summary::{self, BUDGET, anchor};
use sluiceway_dashboard::view::*;

fn view(rows: Vec<Row>) -> View {
    View {
        root: Root {
            scan_sha: "34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91".into(),
            scan_run: 900,
            scan_at: "2026-11-30T10:02:41Z".parse::<Timestamp>().unwrap(),
            full_scan_at: None,
            full_scan_run: None,
            waiting: None,
            failed_runs: None,
        },
        links: Links {
            server: "https://github.com".into(),
            repository: "acme/infra".into(),
            summary: "https://github.com/acme/infra/actions/runs/900".into(),
            pictures: "https://example.invalid/pictures".into(),
            reach: Reach::Runs,
        },
        rows: rows.into_iter().map(RowSource::Fresh).collect(),
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
    }
}

fn row(stack: &str, changes: usize, key_length: usize) -> Row {
    let id = StackId::given(stack);
    let changes = (0..changes)
        .map(|i| Change {
            changed_keys: vec![
                format!("spec.{}", "x".repeat(key_length)),
                "metadata.labels[\"app.kubernetes.io/name\"]".into(),
            ],
            ..Change::new(
                format!("Deployment.apps/ns/app-{i}"),
                "Deployment",
                format!("ns/app-{i}"),
                Op::Update,
            )
        })
        .collect();
    Row {
        stack: id.clone(),
        state: State::Pending {
            diff: Diff {
                stack: id,
                changes,
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

#[test]
fn every_path_in_full_and_an_anchor_per_stack() {
    let text = summary::render(&view(vec![row("apps/web:prod", 2, 120)]));
    assert!(
        text.contains(&format!("<code>spec.{}</code>", "x".repeat(120))),
        "paths are never shortened here"
    );
    assert!(text.contains("| [apps/web:prod](#stack-apps-2f-web-3a-prod) | pending |"));
    assert!(text.contains("<a id=\"stack-apps-2f-web-3a-prod\"></a>apps/web:prod"));
    assert_ne!(anchor("a/b"), anchor("a:b"));
}

#[test]
fn a_summary_over_its_budget_sends_the_rest_to_the_job_log() {
    let rows: Vec<Row> = (0..40)
        .map(|i| row(&format!("apps/s{i:02}"), 400, 60))
        .collect();
    let text = summary::render(&view(rows));
    assert!(text.len() <= BUDGET);
    assert!(text.contains("the job log lists them"));
    assert!(
        text.contains("| [apps/s39](#stack-apps-2f-s39) | pending |"),
        "the index names every stack"
    );
}
