//! Reading and folding a `kubectl diff` of 5,000 objects.
//!
//! The two sides are generated as kubectl lays them out (one file per object in a LIVE
//! and a MERGED directory) and the output is made by the real `diff -N -U1000000`, the
//! program kubectl runs, whose own time is measured beside ours.

#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use std::fmt::Write as _;
use std::fs;
use std::process::Command;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sluiceway_core::values::ValueList;
use sluiceway_tools::kubernetes::fold;

const OBJECTS: usize = 5_000;

/// A Deployment with a few dozen containers' worth of fields, about 7 KB of YAML.
fn deployment(i: usize, replicas: usize, image: &str) -> String {
    let mut text = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app-{i}\n  namespace: bench\n  resourceVersion: \"{i}\"\n  labels:\n    app.kubernetes.io/name: app-{i}\nspec:\n  replicas: {replicas}\n  template:\n    spec:\n      containers:\n"
    );
    for c in 0..20 {
        let _ = write!(
            text,
            "      - name: c{c}\n        image: {image}\n        env:\n        - name: SETTING_{c}_A\n          value: \"{i}-{c}-a\"\n        - name: SETTING_{c}_B\n          value: \"{i}-{c}-b\"\n        resources:\n          limits:\n            cpu: 100m\n            memory: 64Mi\n"
        );
    }
    text
}

fn generate() -> (String, f64) {
    let dir = tempfile::tempdir().unwrap();
    let (live, merged) = (dir.path().join("LIVE"), dir.path().join("MERGED"));
    fs::create_dir_all(&live).unwrap();
    fs::create_dir_all(&merged).unwrap();
    for i in 0..OBJECTS {
        let name = format!("apps.v1.Deployment.bench.app-{i}");
        fs::write(
            live.join(&name),
            deployment(i, 1, "registry.k8s.io/pause:3.9"),
        )
        .unwrap();
        let image = if i % 2 == 0 {
            "registry.k8s.io/pause:3.10"
        } else {
            "registry.k8s.io/pause:3.9"
        };
        fs::write(merged.join(&name), deployment(i, 2, image)).unwrap();
    }
    let started = Instant::now();
    let out = Command::new("diff")
        .args(["-N", "-U1000000"])
        .arg(&live)
        .arg(&merged)
        .output()
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(out.status.code(), Some(1));
    (String::from_utf8(out.stdout).unwrap(), seconds)
}

fn peak_rss_mib() -> f64 {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn bench(c: &mut Criterion) {
    let (output, diff_seconds) = generate();
    let mib = output.len() as f64 / (1024.0 * 1024.0);
    println!(
        "generated: {OBJECTS} objects, {mib:.1} MiB of diff output; `diff -N -U1000000` took {diff_seconds:.3} s"
    );
    let baseline = peak_rss_mib();
    let mut group = c.benchmark_group("kubectl");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(output.len() as u64));
    group.bench_function("read and fold 5000 objects", |b| {
        b.iter(|| {
            let folded = fold::fold_output(&output, &|_| false, &ValueList::none()).unwrap();
            assert_eq!(folded.changes.len(), OBJECTS);
        })
    });
    group.finish();
    println!(
        "peak resident memory: {:.0} MiB (before folding: {baseline:.0} MiB, the output itself: {mib:.0} MiB)",
        peak_rss_mib()
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
