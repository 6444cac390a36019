//! Rendering, budgeting and reading back a 2,000-stack dashboard with large diffs, with
//! the allocations it takes.

#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use std::alloc::System;

use criterion::{Criterion, criterion_group, criterion_main};
use jiff::Timestamp;
use sluiceway_core::config::RawDashboard;
use sluiceway_core::diff::{Change, Diff, Op};
use sluiceway_core::stack::StackId;
use sluiceway_dashboard::view::*;
use sluiceway_dashboard::{body, reader};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};

#[global_allocator]
static ALLOCATOR: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Every row of a 2,000-stack dashboard does not fit one issue (in-sync rows alone take
/// about 110 characters each), so that size is budgeted and refused; 300 stacks fit.
const SIZES: [usize; 2] = [2_000, 300];

fn view(stacks: usize) -> View {
    let rows = (0..stacks)
        .map(|i| {
            let id = StackId::given(&format!("apps/stack-{i:04}:prod"));
            let changes: Vec<Change> = (0..if i % 10 == 0 { (i % 40) + 1 } else { 0 })
                .map(|c| {
                    let op = match c % 9 {
                        0 => Op::Delete,
                        1 => Op::Create,
                        2 => Op::Replace,
                        _ => Op::Update,
                    };
                    Change {
                        changed_keys: vec![
                            "spec.template.spec.containers[0].image".into(),
                            format!("metadata.labels[\"key-{c}\"]"),
                        ],
                        replace_keys: if op == Op::Replace {
                            vec!["spec.selector".into()]
                        } else {
                            vec![]
                        },
                        ..Change::new(
                            format!("Deployment.apps/ns/app-{c}"),
                            "Deployment",
                            format!("ns/app-{c}"),
                            op,
                        )
                    }
                })
                .collect();
            let state = if changes.is_empty() {
                State::InSync
            } else {
                State::Pending {
                    diff: Diff {
                        stack: id.clone(),
                        changes,
                        drift: None,
                    },
                    preview: Some(format!("https://github.com/acme/infra/runs/{i}")),
                    attribution: None,
                }
            };
            RowSource::Fresh(Row::new(id, state))
        })
        .collect();
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
        rows,
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

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("dashboard");
    group.sample_size(10);
    for stacks in SIZES {
        let view = view(stacks);
        let region = Region::new(ALLOCATOR);
        let rendered = body::render(&view);
        let stats = region.change();
        let outcome = match &rendered {
            Ok(text) => format!("a body of {} characters", text.encode_utf16().count()),
            Err(e) => format!("refused: {e}"),
        };
        println!(
            "render and budget, {stacks} stacks (one in ten pending, up to 40 changes): {outcome}; {} allocations, {} MiB allocated",
            stats.allocations,
            stats.bytes_allocated / (1024 * 1024)
        );
        group.bench_function(format!("render and budget {stacks} stacks"), |b| {
            b.iter(|| body::render(&view))
        });
        if let Ok(text) = rendered {
            let region = Region::new(ALLOCATOR);
            let read = reader::read(&text);
            let stats = region.change();
            println!(
                "read back {stacks} stacks: {} rows; {} allocations",
                read.rows.len(),
                stats.allocations
            );
            group.bench_function(format!("read {stacks} stacks"), |b| {
                b.iter(|| reader::read(&text).rows.len())
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
