//! Reading and folding a `kubectl diff` of 5,000 objects, shared by the two benchmarks
//! that run it under different allocators.
//!
//! The two sides are generated as kubectl lays them out (one file per object in a LIVE
//! and a MERGED directory) and the output is made by the real `diff -N -U1000000`, the
//! program kubectl runs, whose own time is measured beside ours.

use std::fmt::Write as _;
use std::fs;
use std::process::Command;
use std::time::Instant;

use criterion::{Criterion, Throughput};
use sluiceway_core::values::ValueList;
use sluiceway_tools::kubernetes::fold;

const OBJECTS: usize = 5_000;

/// A Deployment with a few dozen containers' worth of fields, about 7 KB of YAML, laid
/// out as kubectl dumps an object: keys sorted, a sequence's dashes at its key's indent.
fn deployment(i: usize, replicas: usize, image: &str) -> String {
    let mut text = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    app.kubernetes.io/name: app-{i}\n  name: app-{i}\n  namespace: bench\n  resourceVersion: \"{i}\"\nspec:\n  replicas: {replicas}\n  template:\n    spec:\n      containers:\n"
    );
    for c in 0..20 {
        let _ = write!(
            text,
            "      - env:\n        - name: SETTING_{c}_A\n          value: \"{i}-{c}-a\"\n        - name: SETTING_{c}_B\n          value: \"{i}-{c}-b\"\n        image: {image}\n        name: c{c}\n        resources:\n          limits:\n            cpu: 100m\n            memory: 64Mi\n"
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
    // The output goes to a file and is read back in one allocation of its size, so the
    // memory held before folding is the output's, not a growing buffer's leftovers.
    let written = dir.path().join("diff.out");
    let started = Instant::now();
    let status = Command::new("diff")
        .args(["-N", "-U1000000"])
        .arg(&live)
        .arg(&merged)
        .stdout(fs::File::create(&written).unwrap())
        .status()
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    assert_eq!(status.code(), Some(1));
    (fs::read_to_string(&written).unwrap(), seconds)
}

/// A figure of this process's memory from `/proc/self/status`, in MiB.
fn memory_mib(field: &str) -> f64 {
    let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// Starts the peak resident memory again from what the process holds now, so the peak
/// read later is the fold's, not the generation's.
fn reset_peak() {
    let _ = fs::write("/proc/self/clear_refs", "5");
}

/// Reads and folds the diff of 5,000 objects, naming the allocator this binary runs with.
pub(crate) fn bench(c: &mut Criterion, allocator: &str) {
    let (output, diff_seconds) = generate();
    let mib = output.len() as f64 / (1024.0 * 1024.0);
    println!(
        "generated: {OBJECTS} objects, {mib:.1} MiB of diff output; `diff -N -U1000000` took {diff_seconds:.3} s"
    );
    reset_peak();
    let before = memory_mib("VmRSS:");
    let mut group = c.benchmark_group("kubectl");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(output.len() as u64));
    group.bench_function(format!("read and fold 5000 objects ({allocator})"), |b| {
        b.iter(|| {
            let folded = fold::fold_output(&output, &|_| false, &ValueList::none()).unwrap();
            assert_eq!(folded.changes.len(), OBJECTS);
        })
    });
    group.finish();
    let peak = memory_mib("VmHWM:");
    println!(
        "peak resident memory while folding: {peak:.0} MiB, {:.0} MiB above the {before:.0} MiB held before (the output itself: {mib:.0} MiB)",
        peak - before
    );
}
