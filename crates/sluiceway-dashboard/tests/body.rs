//! The body a person reads, pinned by snapshot, and the properties every writer relies
//! on: the same view gives the same bytes, reading a body gives back its facts, carried
//! rows come back byte for byte, and the size budget holds.

use jiff::Timestamp;
use proptest::prelude::*;
use sluiceway_core::config::RawDashboard;
use sluiceway_core::diff::{Change, Diff, Op, Tracking};
use sluiceway_core::stack::StackId;
use sluiceway_dashboard::body::{self, HARD_LIMIT_UNITS, TARGET};
use sluiceway_dashboard::facts::RowState;
use sluiceway_dashboard::reader;
use sluiceway_dashboard::shipped::Shipped;
use sluiceway_dashboard::view::*;

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn links() -> Links {
    Links {
        server: "https://github.com".into(),
        repository: "acme/infra".into(),
        summary: "https://github.com/acme/infra/actions/runs/900#summary".into(),
        pictures: "https://raw.githubusercontent.com/sluiceway/sluiceway/v0.1.0/assets/header"
            .into(),
        reach: Reach::Runs,
    }
}

fn view(rows: Vec<Row>) -> View {
    View {
        root: Root {
            scan_sha: "34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91".into(),
            scan_run: 900,
            scan_at: at("2026-11-30T10:02:41Z"),
            full_scan_at: Some(at("2026-11-30T06:00:12Z")),
            full_scan_run: Some(880),
            waiting: None,
            failed_runs: None,
        },
        links: links(),
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

fn id(text: &str) -> StackId {
    StackId::given(text)
}

fn change(address: &str, op: Op, keys: &[&str]) -> Change {
    let (kind, name) = address.split_once('/').unwrap_or(("T", address));
    Change {
        changed_keys: keys.iter().map(|k| (*k).to_owned()).collect(),
        ..Change::new(address, kind, name, op)
    }
}

fn pending(stack: &str, changes: Vec<Change>) -> Row {
    Row {
        stack: id(stack),
        state: State::Pending {
            diff: Diff {
                stack: id(stack),
                changes,
                drift: None,
            },
            preview: Some(format!(
                "https://github.com/acme/infra/runs/{}",
                stack.len()
            )),
            attribution: None,
        },
        failure: None,
        notes: vec![],
        drift_not_checked: false,
        policies: None,
        cost: None,
    }
}

fn every_state() -> View {
    let replace = Change {
        replace_keys: vec!["cidr_block".into()],
        ..change(
            "aws_subnet.private_b",
            Op::Replace,
            &["cidr_block", "tags[\"Name\"]"],
        )
    };
    let tracked = Change {
        tracking: Some(Tracking::Import),
        ..change("aws_s3_bucket.logs", Op::None, &[])
    };
    let mut billing = pending(
        "apps/billing:prod",
        vec![
            change(
                "Deployment.apps/shop/billing",
                Op::Update,
                &["spec.replicas"],
            ),
            change("ConfigMap/shop/flags", Op::Create, &[]),
        ],
    );
    if let State::Pending { attribution, .. } = &mut billing.state {
        *attribution = Some(Attribution {
            changes: vec![
                Attributed::PullRequest {
                    number: 514,
                    author: "erin".into(),
                },
                Attributed::Push {
                    sha: "11fa403908e7cf940afa4635f39fb7d8bf5f0eaa".into(),
                    author: "renovate[bot]".into(),
                },
            ],
            outside: 1,
            compare: Some("https://github.com/acme/infra/compare/92a260f...34e410f".into()),
            deployed: true,
            earlier: false,
        });
    }
    let network = pending(
        "infra/network:prod",
        vec![
            replace,
            tracked,
            change(
                "aws_route_table.private",
                Op::Update,
                &["route[1].nat_gateway_id"],
            ),
        ],
    );
    let legacy = Row {
        failure: Some(FailureLine {
            reason: "the tool exited with an error (exit code 1)".into(),
            ticker: "bob".into(),
            on_merge: false,
            at: at("2026-11-29T16:40:00Z"),
            run: "https://github.com/acme/infra/actions/runs/850".into(),
        }),
        ..pending(
            "apps/legacy #12 @team",
            vec![change("Queue/legacy-jobs", Op::Delete, &[])],
        )
    };
    let drifted = Row {
        stack: id("monitoring/grafana:prod"),
        state: State::Drifted {
            diff: Diff {
                stack: id("monitoring/grafana:prod"),
                changes: vec![],
                drift: Some(vec![
                    change(
                        "Deployment.apps/mon/grafana",
                        Op::Update,
                        &["spec.replicas"],
                    ),
                    change("Record/status", Op::Delete, &[]),
                ]),
            },
            preview: None,
        },
        failure: None,
        notes: vec![],
        drift_not_checked: false,
        policies: None,
        cost: None,
    };
    let simple = |stack: &str, state: State| Row {
        stack: id(stack),
        state,
        failure: None,
        notes: vec![],
        drift_not_checked: false,
        policies: None,
        cost: None,
    };
    let mut view = view(vec![
        billing,
        network,
        legacy,
        drifted,
        simple(
            "apps/api:prod",
            State::Deploying {
                ticker: "alice".into(),
                on_merge: false,
                run: "https://github.com/acme/infra/actions/runs/901".into(),
                attribution: None,
            },
        ),
        simple(
            "apps/worker:prod",
            State::Queued {
                behind: vec![id("apps/api:prod")],
                opens: None,
                ticker: "alice".into(),
                on_merge: false,
                run: "https://github.com/acme/infra/actions/runs/901".into(),
            },
        ),
        simple(
            "data/cache:prod",
            State::PreviewFailed {
                reason: "the preview timed out after 10 minutes".into(),
                run: Some("https://github.com/acme/infra/actions/runs/900/job/1".into()),
            },
        ),
        simple(
            "infra/dns:prod",
            State::Busy {
                run: Some("https://github.com/acme/infra/actions/runs/900/job/2".into()),
            },
        ),
        simple("apps/auth:prod", State::InSync),
        simple("apps/auth:staging", State::InSync),
    ]);
    view.ignored = vec![Ignored {
        stack: id("sandbox/playground:dev"),
        reason: Some("deployed by hand".into()),
    }];
    view.trail = vec![
        TrailEntry {
            stack: id("apps/auth:prod"),
            result: TrailResult::Deployed,
            login: "alice".into(),
            on_merge: false,
            at: at("2026-11-30T09:41:00Z"),
            run: "https://github.com/acme/infra/actions/runs/890".into(),
            record: 4711,
            shipped: Some(Shipped {
                record: 4711,
                changes: vec![
                    Attributed::PullRequest {
                        number: 512,
                        author: "dave".into(),
                    },
                    Attributed::Push {
                        sha: "11fa403908e7cf940afa4635f39fb7d8bf5f0eaa".into(),
                        author: "renovate[bot]".into(),
                    },
                ],
                outside: 1,
                earlier: false,
                from: "7790ca54d9cff99a5dbeb4740ff3416ea32ce443".into(),
                to: "34e410f2ce7bd7cfd94d9a2f1d5bc0b2dcc6aa91".into(),
            }),
        },
        TrailEntry {
            stack: id("monitoring/grafana:prod"),
            result: TrailResult::DriftFixed,
            login: "carol".into(),
            on_merge: false,
            at: at("2026-11-30T08:12:00Z"),
            run: "https://github.com/acme/infra/actions/runs/880".into(),
            record: 4705,
            shipped: None,
        },
        TrailEntry {
            stack: id("monitoring/loki:prod"),
            result: TrailResult::DriftGone,
            login: "carol".into(),
            on_merge: false,
            at: at("2026-11-30T08:10:00Z"),
            run: "https://github.com/acme/infra/actions/runs/879".into(),
            record: 4704,
            shipped: None,
        },
        TrailEntry {
            stack: id("apps/web:prod"),
            result: TrailResult::Failed,
            login: "bob".into(),
            on_merge: true,
            at: at("2026-11-29T16:40:00Z"),
            run: "https://github.com/acme/infra/actions/runs/850".into(),
            record: 0,
            shipped: None,
        },
    ];
    view
}

#[test]
fn a_body_with_every_state() {
    let body = body::render(&every_state()).unwrap();
    insta::assert_snapshot!(body);
}

#[test]
fn without_personality_and_in_another_zone() {
    let mut view = every_state();
    view.layout.personality = false;
    view.layout.time_zone = "Europe/Amsterdam".into();
    view.layout.read_only = true;
    let body = body::render(&view).unwrap();
    assert!(!body.contains("<picture>") && !body.contains("🟡"));
    assert!(body.contains("on 2026-11-30 11:02 +01:00"), "{body}");
    assert!(
        !body.contains("- [ ]"),
        "a read-only dashboard draws no boxes"
    );
    assert!(!body.contains("#12 @team") && body.contains("&#35;12 &#64;team"));
}

#[test]
fn the_reader_finds_what_the_renderer_wrote_and_carried_rows_come_back_whole() {
    let view = every_state();
    let body = body::render(&view).unwrap();
    let read = reader::read(&body);
    assert_eq!(read.root.as_ref().unwrap().get("scan-run"), Some("900"));
    assert_eq!(read.rows.len(), 10);
    assert!(read.rescan.as_ref().is_some_and(|r| !r.ticked));
    let carried = View {
        rows: read.rows.into_iter().map(RowSource::Carried).collect(),
        ..view
    };
    assert_eq!(
        body::render(&carried).unwrap(),
        body,
        "render, read, render is a fixed point"
    );
}

#[test]
fn the_body_never_ends_with_a_newline_and_is_deterministic() {
    let a = body::render(&every_state()).unwrap();
    let b = body::render(&every_state()).unwrap();
    assert_eq!(a, b);
    assert!(!a.ends_with('\n'));
}

/// A pending row with `n` changes, some of them destroys.
fn big_row(i: usize, n: usize, deletes: usize) -> Row {
    let changes = (0..n)
        .map(|c| {
            let op = if c < deletes { Op::Delete } else { Op::Update };
            change(
                &format!("kubernetes:apps/v1:Deployment/app-{i}-{c}"),
                op,
                &[
                    "spec.template.spec.containers[0].image",
                    "metadata.labels[\"app.kubernetes.io/version\"]",
                ],
            )
        })
        .collect();
    pending(&format!("apps/stack-{i:04}:prod"), changes)
}

#[test]
fn a_large_dashboard_is_shortened_biggest_rows_first() {
    let mut rows: Vec<Row> = (0..100).map(|i| big_row(i, 1, 0)).collect();
    rows.push(big_row(100, 450, 451));
    let body = body::render(&view(rows)).unwrap();
    assert!(body.encode_utf16().count() <= TARGET);
    let read = reader::read(&body);
    let huge = read
        .rows
        .iter()
        .find(|r| r.facts.stack == "apps/stack-0100:prod")
        .unwrap();
    assert_eq!(huge.facts.shortened, 3);
    assert!(huge.text.contains("deletes 450, too many to list here"));
    assert!(
        read.rows
            .iter()
            .filter(|r| r.facts.stack != "apps/stack-0100:prod")
            .all(|r| r.facts.shortened == 0),
        "the small rows keep their detail"
    );
    assert!(body.contains("> [!NOTE]\n> This dashboard is too long for one issue, so 1 of 101 rows are shortened (Pending)."));
}

#[test]
fn a_dashboard_that_cannot_fit_is_not_written() {
    let rows: Vec<Row> = (0..400).map(|i| big_row(i, 60, 30)).collect();
    assert!(matches!(
        body::render(&view(rows)),
        Err(body::BodyError::TooLarge { .. })
    ));
}

/// ADR 0039: a calm in-sync row is one line of a list, so a repository of 2,000 stacks
/// has a dashboard, with room left for pending rows; every line reads back as its row.
#[test]
fn two_thousand_stacks_in_sync_fit_one_issue() {
    let mut rows: Vec<Row> = (0..2_000)
        .map(|i| Row::new(id(&format!("stacks/s{i:04}/lab:dev")), State::InSync))
        .collect();
    rows[7].drift_not_checked = true;
    rows.extend((0..10).map(|i| big_row(i, 3, 1)));
    let body = body::render(&view(rows)).unwrap();
    assert!(body.encode_utf16().count() <= TARGET, "{}", body.len());
    assert!(!body.contains("shortened"), "no pending row gave way");
    assert!(body.contains("<details><summary>2000 stacks in sync</summary>\n\n- stacks/s0007/lab:dev · drift not checked <!--"));
    let read = reader::read(&body);
    let in_sync: Vec<&str> = read
        .rows
        .iter()
        .filter(|r| r.facts.state == Some(RowState::InSync))
        .map(|r| r.facts.stack.as_str())
        .collect();
    assert_eq!(in_sync.len(), 2_000);
    assert!(read.rows.iter().any(|r| r.facts.drift_check_failed));
    let carried = View {
        rows: read.rows.into_iter().map(RowSource::Carried).collect(),
        ..view(Vec::new())
    };
    assert_eq!(body::render(&carried).unwrap(), body);
}

/// The budget's promise for one set of rows: the body is under GitHub's limit or
/// refused; every row block is present; delete lines are all there or none.
fn budget_holds(rows: Vec<Row>) -> Result<(), TestCaseError> {
    let count = rows.len();
    match body::render(&view(rows)) {
        Ok(body) => {
            prop_assert!(body.encode_utf16().count() <= HARD_LIMIT_UNITS);
            let read = reader::read(&body);
            prop_assert_eq!(read.rows.len(), count);
            for row in &read.rows {
                let shown = row.text.matches("<kbd>DELETE</kbd>").count();
                prop_assert!(
                    shown == 0 || shown == row.facts.deletes,
                    "{} shows {} of {} deletes",
                    row.facts.stack,
                    shown,
                    row.facts.deletes
                );
            }
        }
        Err(body::BodyError::TooLarge { .. }) => {}
        Err(other) => prop_assert!(false, "{:?}", other),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(8))]

    /// Up to 2,000 stacks.
    #[test]
    fn the_budget_holds_for_many_stacks(n in 1usize..2000, changes in 1usize..4) {
        budget_holds((0..n).map(|i| big_row(i, changes, usize::from(i % 7 == 0))).collect())?;
    }

    /// Diffs of any size, small to huge.
    #[test]
    fn the_budget_holds_for_any_diff(sizes in proptest::collection::vec((0usize..400, 0usize..5), 1..60)) {
        budget_holds(sizes.iter().enumerate().map(|(i, (n, d))| big_row(i, *n + 1, (*d).min(*n + 1))).collect())?;
    }

    /// Carried blocks survive any change to the other rows.
    #[test]
    fn carried_rows_survive_other_rows_changing(n in 1usize..20, changed in 0usize..20) {
        let rows: Vec<Row> = (0..n).map(|i| big_row(i, 2, 0)).collect();
        let first = body::render(&view(rows.clone())).unwrap();
        let blocks = reader::read(&first).rows;
        let mut sources: Vec<RowSource> = blocks.iter().cloned().map(RowSource::Carried).collect();
        let k = changed % n;
        sources[k] = RowSource::Fresh(big_row(k, 5, 1));
        let second = body::render(&View { rows: sources, ..view(vec![]) }).unwrap();
        for (i, block) in blocks.iter().enumerate() {
            if i != k {
                prop_assert!(second.contains(&block.text));
            }
        }
    }
}

fn rendered(change: impl FnOnce(&mut View)) -> String {
    let mut view = every_state();
    change(&mut view);
    let body = body::render(&view).unwrap();
    assert_eq!(
        reader::read(&body).rows.len(),
        10,
        "no layout key ever drops a row block"
    );
    body
}

#[test]
fn the_layout_keys_move_and_hide_but_never_drop_a_row() {
    use sluiceway_core::config::raw::{DestroyAlert, InSyncSection, PendingDetail, Section};
    let body = rendered(|v| v.layout.sections = vec![Section::InSync, Section::Pending]);
    assert!(body.find("## In sync").unwrap() < body.find("## Pending").unwrap());
    assert!(
        body.find("## Pending").unwrap() < body.find("## Deploying").unwrap(),
        "unnamed sections follow in their order"
    );

    let body = rendered(|v| v.layout.deploying_section = false);
    assert!(!body.contains("## Deploying"));
    assert!(
        body.contains(
            "<details><summary>2 stacks in sections this dashboard does not show</summary>"
        )
    );

    // Without the drifted section, a drifted row whose resources are gone still shows;
    // one that only changed is folded away.
    let body = rendered(|v| v.layout.drifted_section = false);
    assert!(
        body.contains("## Drifted") && body.contains("monitoring/grafana:prod"),
        "{body}"
    );
    let body = rendered(|v| {
        v.layout.drifted_section = false;
        for row in &mut v.rows {
            if let RowSource::Fresh(Row {
                state: State::Drifted { diff, .. },
                ..
            }) = row
            {
                diff.drift.as_mut().unwrap().retain(|c| c.op != Op::Delete);
            }
        }
    });
    assert!(
        !body.contains("## Drifted") && !body.contains("Repair all"),
        "{body}"
    );

    let body = rendered(|v| v.layout.in_sync_section = InSyncSection::List);
    assert!(
        !body.contains("stacks in sync</summary>")
            && body.contains("<!-- sluiceway:in-sync -->\n- apps/auth:prod\n"),
        "{body}"
    );
    let body = rendered(|v| v.layout.in_sync_section = InSyncSection::Off);
    assert!(!body.contains("## In sync") && !body.contains("left out by ignore"));

    let mut quiet = every_state();
    quiet.rows.retain(|r| {
        matches!(
            r,
            RowSource::Fresh(Row {
                state: State::InSync,
                ..
            })
        )
    });
    quiet.layout.zero_counts = false;
    let body = body::render(&quiet).unwrap();
    assert!(
        body.contains("⚪&nbsp;**0 pending** · 🟢&nbsp;2 in sync\n"),
        "zero counts hidden, pending kept"
    );

    quiet.layout.destroy_alert = DestroyAlert::Always;
    assert!(
        body::render(&quiet)
            .unwrap()
            .contains("> [!NOTE]\n> No pending stack deletes or replaces resources.")
    );

    let body = rendered(|v| v.layout.pending_detail = PendingDetail::Compact);
    assert!(
        !body.contains("<details><summary>2 changes</summary>")
            && body.contains("<kbd>DELETE</kbd>")
            && body.contains("[preview]")
    );
    let body = rendered(|v| v.layout.pending_detail = PendingDetail::Names);
    assert!(!body.contains("[preview]") && body.contains("<kbd>REPLACE</kbd>"));

    let body = rendered(|v| {
        v.layout.deploy_all = false;
        v.layout.rescan_box = false;
        v.layout.footer = false;
    });
    assert!(
        !body.contains("Deploy all")
            && !body.contains("Rescan all")
            && !body.contains("<sub>[Sluiceway]")
    );
    assert!(!body.contains("\n---\n"), "no rule when nothing follows it");
}

#[test]
fn the_repair_all_box_and_the_trails_length_follow_their_keys() {
    // The box stands under two drifted rows or more.
    let mut two = every_state();
    let drifted = two
        .rows
        .iter()
        .find_map(|r| match r {
            RowSource::Fresh(row) if matches!(row.state, State::Drifted { .. }) => {
                Some(row.clone())
            }
            _ => None,
        })
        .unwrap();
    two.rows.push(RowSource::Fresh(Row {
        stack: id("net/edge:prod"),
        ..drifted
    }));
    let body = body::render(&two).unwrap();
    assert!(body.contains("Repair all 2 drifted stacks"), "{body}");
    two.layout.repair_all = false;
    let body = body::render(&two).unwrap();
    assert!(body.contains("## Drifted") && !body.contains("Repair all"));

    let full = rendered(|_| {});

    let trail = |body: &str| {
        body.split("## Recently deployed")
            .nth(1)
            .map(|t| t.matches("actions/runs/8").count())
    };
    assert_eq!(trail(&full), Some(4), "every record by default");
    assert_eq!(
        trail(&rendered(|v| v.layout.recently_deployed = 1)),
        Some(1)
    );
    assert_eq!(
        trail(&rendered(|v| v.layout.recently_deployed = 0)),
        None,
        "0 hides the trail"
    );
}

/// Decision 0052: a shown value stands after its path as `old → new`, a missing side
/// `nothing`, every side escaped as any text a person wrote; a create's values follow its
/// name. The row, the summary and the preview page say the same.
#[test]
fn shown_values_read_old_to_new_after_their_path() {
    use sluiceway_core::values::ShownValue;
    let value = |path: &str, old: Option<&str>, new: Option<&str>| ShownValue {
        path: path.into(),
        old: old.map(str::to_owned),
        new: new.map(str::to_owned),
    };
    let mut update = change(
        "Deployment.apps/shop/web",
        Op::Update,
        &["spec.replicas", "spec.template.spec.containers[0].image"],
    );
    update.values = vec![value("spec.replicas", Some("1"), Some("2"))];
    let mut create = change("ConfigMap/shop/flags", Op::Create, &[]);
    create.values = vec![value("data.owner", None, Some("@team <b>x</b>"))];
    let row = pending("apps/shop", vec![update, create]);
    let body = body::render(&view(vec![row.clone()])).unwrap();
    let block = reader::read(&body).rows[0].text.clone();
    insta::assert_snapshot!(block);
    assert!(
        !block.contains("@team") && !block.contains("<b>x"),
        "{block}"
    );
    let summary = sluiceway_dashboard::summary::render(&view(vec![row]));
    assert!(
        summary.contains("<code>spec.replicas</code> <samp>1</samp> → <samp>2</samp>"),
        "{summary}"
    );
}

/// Decision 0072: a shipped line names what a deploy shipped and ends with its marker,
/// so every writer reads it back; over the body's target it is counted before any row is
/// shortened.
#[test]
fn a_shipped_line_reads_back_and_gives_way_to_its_count_first() {
    let full = body::render(&every_state()).unwrap();
    let read = reader::read(&full);
    let shipped = sluiceway_dashboard::shipped::from_markers(&read.shipped);
    assert_eq!(shipped.len(), 1);
    assert_eq!(shipped[&4711].changes.len(), 2);
    // Many pending rows: the body is over its target.
    let mut view = every_state();
    for i in 0..60 {
        view.rows.push(RowSource::Fresh(big_row(1000 + i, 40, 0)));
    }
    let crowded = body::render(&view).unwrap();
    assert!(
        crowded.contains(
            "  shipped 1 pull request and 1 push, and 1 change outside this stack · [compare]"
        ),
        "{}",
        crowded
            .split("## Recently deployed")
            .nth(1)
            .unwrap_or_default()
    );
    assert_eq!(
        sluiceway_dashboard::shipped::from_markers(&reader::read(&crowded).shipped),
        shipped,
        "the count form keeps the facts"
    );
}

#[test]
fn a_redacted_row_names_no_type_name_or_path_and_keeps_its_hash() {
    let plain = reader::read(&body::render(&every_state()).unwrap());
    let body = rendered(|v| v.layout.redact = true);
    for secret in [
        "shop/billing",
        "spec.replicas",
        "aws&#95;subnet",
        "legacy-jobs",
        "cidr&#95;block",
        "<code>Deployment",
    ] {
        assert!(
            !body.contains(secret),
            "{secret} is shown on a redacted dashboard"
        );
    }
    let redacted = reader::read(&body);
    let hashes = |read: &reader::ReadBody| {
        read.rows
            .iter()
            .map(|r| r.facts.hash.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        hashes(&redacted),
        hashes(&plain),
        "the hash covers the whole diff either way"
    );
    assert!(body.contains(":warning: **deletes 1, too many to list here.**"));
}

#[test]
fn a_confirm_box_names_what_it_deploys_and_hints_sit_under_the_scan_line() {
    let body = rendered(|v| {
        v.confirms = vec![Confirm {
            section: BulkSection::Pending,
            asked_by: "carol".into(),
            stacks: vec![id("apps/billing:prod"), id("infra/network:prod")],
            hashes: vec!["6c2da1081e759753".into(), "f9251526ee7b0873".into()],
            scan_run: 900,
        }];
        v.hints = vec![Hint::ScanRunning {
            since: at("2026-11-30T10:05:00Z"),
            run: "https://github.com/acme/infra/actions/runs/901".into(),
        }];
        v.root.waiting = Some(RunWaiting {
            run: 902,
            since: at("2026-11-30T08:57:00Z"),
            more: 2,
        });
        v.root.failed_runs = Some(FailedRuns {
            count: 2,
            newest: 899,
            at: at("2026-11-30T09:40:00Z"),
        });
    });
    assert!(body.contains(
        "- [ ] **Confirm:** deploy all 2 pending stacks: **apps/billing:prod**, **infra/network:prod** · asked by carol <!-- sluiceway:bulk section=\"pending\" confirm=\"carol\" stacks=\"apps/billing:prod,infra/network:prod\" hashes=\"6c2da1081e759753,f9251526ee7b0873\" scan-run=\"900\" -->"
    ));
    assert!(!body.contains("Deploy all 3 pending stacks"));
    let read = reader::read(&body);
    assert_eq!(read.bulk[0].marker.get("confirm"), Some("carol"));
    assert!(body.contains("· <sub>last full scan 2026-11-30 06:00 UTC</sub>\n\nA scan is running since 2026-11-30 10:05 UTC · [run]"));
    let under: Vec<&str> = body
        .split("</sub>\n\n")
        .nth(1)
        .unwrap()
        .split("\n\n")
        .take(3)
        .collect();
    insta::assert_snapshot!(under.join("\n\n"));
    let root = Root::read(&read).unwrap();
    assert_eq!(
        root.waiting.unwrap().more,
        2,
        "every writer reads the lines back"
    );
    assert_eq!(root.failed_runs.unwrap().newest, 899);
}

#[test]
fn a_wait_reads_in_whole_minutes_and_hours() {
    let line = |since: &str, more: usize| {
        let body = rendered(|v| {
            v.root.waiting = Some(RunWaiting {
                run: 902,
                since: at(since),
                more,
            })
        });
        body.lines()
            .find(|l| l.contains("queued for a runner"))
            .unwrap()
            .to_owned()
    };
    // The scan was at 10:02:41; the wait is counted in whole minutes to it.
    assert!(line("2026-11-30T09:52:00Z", 0).contains("for 10 minutes, since"));
    assert!(line("2026-11-30T09:01:41Z", 1).contains("for 1 hour and 1 minute, since"));
    assert!(line("2026-11-30T08:02:41Z", 1).contains("for 2 hours, since"));
    assert!(
        line("2026-11-30T08:02:41Z", 1)
            .ends_with("One more run has been queued for ten minutes or more as well.")
    );
    assert!(!line("2026-11-30T08:02:41Z", 0).contains("more"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Whatever the rows, a writer that carries every block of a body writes that body
    /// again, byte for byte.
    #[test]
    fn render_read_render_is_a_fixed_point(
        shapes in proptest::collection::vec((0usize..4, 0usize..6, any::<bool>()), 0..40),
        personality in any::<bool>(),
        read_only in any::<bool>(),
    ) {
        let rows: Vec<Row> = shapes
            .iter()
            .enumerate()
            .map(|(i, (kind, n, failed))| {
                let mut row = big_row(i, *n + 1, n % 3);
                row.state = match kind {
                    0 => row.state,
                    1 => State::InSync,
                    2 => State::PreviewFailed { reason: "the preview timed out after 10 minutes".into(), run: Some("https://example.invalid/run".into()) },
                    _ => State::Deploying { ticker: "alice".into(), on_merge: false, run: "https://example.invalid/run".into(), attribution: None },
                };
                if *failed {
                    row.failure = Some(FailureLine { reason: "the tool exited with an error (exit code 1)".into(), ticker: "bob".into(), on_merge: false, at: at("2026-11-29T16:40:00Z"), run: "https://example.invalid/run".into() });
                }
                row
            })
            .collect();
        let mut first = view(rows);
        first.layout.personality = personality;
        first.layout.read_only = read_only;
        let body = body::render(&first).unwrap();
        let carried = View { rows: reader::read(&body).rows.into_iter().map(RowSource::Carried).collect(), ..first };
        prop_assert_eq!(body::render(&carried).unwrap(), body);
    }
}

/// Decision 0073: deploys made outside the dashboard sit on the trail in time order with
/// Sluiceway's own (a commit linked, uncommitted changes said, a destroy named, never
/// who), and every writer reads their markers back to the same lines.
#[test]
fn deploys_made_outside_the_dashboard_are_on_the_trail() {
    use sluiceway_dashboard::outside::{self, OutsideDeploy, OutsideKind};
    let mut view = every_state();
    view.outside = vec![
        OutsideDeploy::new(
            id("network:dev"),
            OutsideKind::Deploy,
            at("2026-11-30T10:02:00Z"),
            Some("59ff6e7c0a1b2c3d4e5f60718293a4b5c6d7e8f9".into()),
            true,
        ),
        OutsideDeploy::new(
            id("network:prod"),
            OutsideKind::Destroy,
            at("2026-11-29T17:00:00Z"),
            None,
            false,
        ),
    ];
    let body = body::render(&view).unwrap();
    let trail = &body[body.find("## Recently deployed").unwrap()..];
    let end = ["\n## ", "\n---", "\n<details>"]
        .iter()
        .filter_map(|next| trail[1..].find(next).map(|i| i + 1))
        .min()
        .unwrap_or(trail.len());
    insta::assert_snapshot!(&trail[..end]);
    assert_eq!(
        outside::from_markers(&reader::read(&body).outside),
        view.outside
    );
}

/// A pending row that deletes a bucket, with what its policies said (decision 0106).
fn policed_row(stack: &str, policies: Option<Policed>) -> Row {
    Row {
        policies,
        ..pending(stack, vec![change("aws_s3_bucket/logs", Op::Delete, &[])])
    }
}

fn failures(n: usize) -> Policed {
    Policed::Failed(
        (1..=n)
            .map(|i| PolicyFailure {
                namespace: if i % 2 == 0 { "main" } else { "prod.storage" }.into(),
                message: format!(
                    "aws_s3_bucket.logs must not be deleted #{i} @alice <b>now</b>\r\nsee www.example.com"
                ),
            })
            .collect(),
    )
}

/// Each row's block, by stack.
fn policy_blocks(body: &str) -> Vec<(String, String, bool)> {
    reader::read(body)
        .rows
        .into_iter()
        .map(|b| (b.facts.stack.clone(), b.text, b.facts.policy_failed))
        .collect()
}

#[test]
fn rows_say_what_the_policies_said() {
    let rows = vec![
        policed_row("one", Some(failures(1))),
        policed_row("seven", Some(failures(7))),
        policed_row(
            "long",
            Some(Policed::Failed(vec![PolicyFailure {
                namespace: "main".into(),
                message: "x".repeat(300),
            }])),
        ),
        policed_row("passed", Some(Policed::Passed)),
        policed_row(
            "unjudged",
            Some(Policed::NotRun("a policy does not parse".into())),
        ),
        policed_row("plain", None),
    ];
    let body = body::render(&view(rows)).unwrap();
    let read = policy_blocks(&body);
    let failed: Vec<&str> = read
        .iter()
        .filter(|(_, _, failed)| *failed)
        .map(|(s, _, _)| s.as_str())
        .collect();
    assert_eq!(failed, ["long", "one", "seven"]);
    for (stack, text, failed) in &read {
        assert_eq!(text.starts_with("- [ ] "), !failed, "{stack}: {text}");
    }
    let shown: Vec<String> = read.iter().map(|(_, text, _)| text.clone()).collect();
    insta::assert_snapshot!(shown.join("\n"));
}

#[test]
fn a_redacted_row_keeps_only_the_count() {
    let mut view = view(vec![policed_row("seven", Some(failures(7)))]);
    view.layout.redact = true;
    let body = body::render(&view).unwrap();
    let (_, text, failed) = &policy_blocks(&body)[0];
    assert!(*failed);
    assert!(
        text.contains("  :no_entry: **7 policies failed**, so this change has no box until it passes. See the [preview](https://github.com/acme/infra/runs/5).")
            && !text.contains("must not be deleted"),
        "{text}"
    );
}

#[test]
fn a_cost_line_sits_under_the_first_line_and_stays_when_redacted() {
    let costed = |stack: &str, cents: &str| Row {
        cost: Some(CostLine {
            currency: "USD".into(),
            monthly: sluiceway_core::cost::Amount::parse(cents).unwrap(),
        }),
        ..pending(
            stack,
            vec![change("aws_instance/web", Op::Update, &["instance_type"])],
        )
    };
    let rows = vec![
        costed("more", "31.2"),
        costed("less", "-12"),
        costed("same", "0"),
    ];
    let body = body::render(&view(rows.clone())).unwrap();
    let shown: Vec<String> = reader::read(&body)
        .rows
        .into_iter()
        .map(|b| b.text)
        .collect();
    insta::assert_snapshot!(shown.join("\n"));
    for text in &shown {
        assert!(
            !text.lines().next().unwrap().contains("USD"),
            "not in the first line or the marker"
        );
    }
    let mut redacted = view(rows);
    redacted.layout.redact = true;
    let body = body::render(&redacted).unwrap();
    assert!(
        body.contains("\n  about **31.20 USD** more a month\n"),
        "{body}"
    );
}
