//! Policies over 500 pending stacks: compiled once and asked in-process, against one
//! `conftest test` process per stack, as the reference runs them. Each stack's document
//! is the recorded OpenTofu plan of `fixtures/opentofu/v1.6.2/mixed` (a create, an update,
//! a replace and a delete); the policies deny the delete and warn on every change. The Conftest
//! side runs only where `scripts/build-conftest.sh` built it.

#![allow(clippy::print_stderr, reason = "the bench says which side it skipped")]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use sluiceway_policy::{Policies, Source};

const STACKS: usize = 500;

const POLICY: &str = r#"package plan

deny contains msg if {
  some change in input.resource_changes
  "delete" in change.change.actions
  msg := sprintf("%s must not be deleted", [change.address])
}

warn contains msg if {
  some change in input.resource_changes
  not "no-op" in change.change.actions
  msg := sprintf("%s changes", [change.address])
}
"#;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn plan() -> String {
    std::fs::read_to_string(root().join("fixtures/opentofu/v1.6.2/mixed/show.stdout")).unwrap()
}

fn conftest() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    let binary = Path::new(&home).join(".cache/sluiceway/conftest/v0.70.1/bin/conftest");
    binary.is_file().then_some(binary)
}

fn in_process(c: &mut Criterion) {
    let text = plan();
    let plan: serde_json::Value = serde_json::from_str(&text).unwrap();
    let sources = [Source {
        path: "policy/plan.rego".to_owned(),
        text: POLICY.to_owned(),
    }];
    let mut group = c.benchmark_group("policies over 500 stacks");
    group.sample_size(10);
    group.bench_function("in-process (compiled once)", |b| {
        b.iter(|| {
            let policies = Policies::compile(&sources).unwrap();
            let mut failures = 0;
            for _ in 0..STACKS {
                let report = policies
                    .test(std::slice::from_ref(&plan), Duration::from_secs(60))
                    .unwrap();
                failures += report.failures().count();
            }
            assert_eq!(failures, 2 * STACKS, "the replace and the delete fail");
        });
    });
    match conftest() {
        Some(conftest) => {
            let dir = tempfile::tempdir().unwrap();
            std::fs::create_dir(dir.path().join("policy")).unwrap();
            std::fs::write(dir.path().join("policy/plan.rego"), POLICY).unwrap();
            std::fs::write(dir.path().join("plan.json"), &text).unwrap();
            group.bench_function("conftest v0.70.1, one process per stack", |b| {
                b.iter(|| {
                    for _ in 0..STACKS {
                        let ran = Command::new(&conftest)
                            .args([
                                "test",
                                "--output",
                                "json",
                                "--all-namespaces",
                                "--no-color",
                                "--policy",
                                "policy",
                                "plan.json",
                            ])
                            .current_dir(dir.path())
                            .env_clear()
                            .env("HOME", dir.path())
                            .output()
                            .unwrap();
                        assert_eq!(ran.status.code(), Some(1));
                    }
                });
            });
        }
        None => eprintln!("no conftest v0.70.1 here: only the in-process side ran"),
    }
    group.finish();
}

criterion_group!(benches, in_process);
criterion_main!(benches);
