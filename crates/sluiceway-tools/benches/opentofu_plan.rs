//! Reading a plan of 20,000 resource changes, streamed from the file `tofu show -json`
//! wrote, beside the time `tofu show -json` itself takes to print it.
//!
//! The plan is made by real OpenTofu (installed by scripts/install-tofu.sh): a module of
//! `terraform_data` resources with large inputs, planned once and cached outside the
//! repository. Without tofu the benchmark says so and measures nothing.

#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use std::fs;
use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sluiceway_core::values::ValueList;
use sluiceway_tools::opentofu::plan;

const RESOURCES: usize = 20_000;

fn cache() -> PathBuf {
    std::env::var_os("SLUICEWAY_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/sluiceway")
        })
}

/// The plan JSON of 20,000 creates with 8 KB inputs, made once with tofu and kept in
/// the cache (creating them first to plan updates would take tofu far longer than the
/// read it is there to measure).
fn plan_json(tofu: &std::path::Path) -> (PathBuf, f64) {
    let dir = cache().join("bench/opentofu-plan-20000");
    let json = dir.join("plan.json");
    let run = |args: &[&str]| {
        let status = Command::new(tofu)
            .args(args)
            .current_dir(&dir)
            .env("TF_IN_AUTOMATION", "true")
            .stdout(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(status.success(), "tofu {args:?}");
    };
    if !dir.join("tfplan").is_file() {
        fs::create_dir_all(&dir).unwrap();
        let big = "x".repeat(8_000);
        fs::write(
            dir.join("main.tf"),
            format!(
                "variable \"round\" {{\n  default = 1\n}}\nresource \"terraform_data\" \"r\" {{\n  count = {RESOURCES}\n  input = {{ round = var.round, index = count.index, payload = \"{big}\", tags = {{ a = \"1\", b = \"2\" }} }}\n}}\n"
            ),
        )
        .unwrap();
        run(&["init", "-input=false", "-no-color"]);
        run(&[
            "plan",
            "-input=false",
            "-no-color",
            "-refresh=false",
            "-out=tfplan",
        ]);
    }
    // Straight into the file, so that this process never holds the plan itself.
    let started = Instant::now();
    let status = Command::new(tofu)
        .args(["show", "-json", "tfplan"])
        .current_dir(&dir)
        .stdout(fs::File::create(&json).unwrap())
        .status()
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    assert!(status.success());
    (json, seconds)
}

fn peak_rss_mib() -> f64 {
    fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn bench(c: &mut Criterion) {
    let tofu = cache().join("tofu/v1.6.2/tofu");
    if !tofu.is_file() {
        println!(
            "notice: no tofu at {}; run scripts/install-tofu.sh v1.6.2",
            tofu.display()
        );
        return;
    }
    let (json, show_seconds) = plan_json(&tofu);
    let bytes = fs::metadata(&json).unwrap().len();
    println!(
        "plan: {RESOURCES} resource changes, {:.0} MiB; `tofu show -json` took {show_seconds:.2} s",
        bytes as f64 / 1048576.0
    );
    let before = peak_rss_mib();
    let changes = plan::read(fs::File::open(&json).unwrap(), &ValueList::none()).unwrap();
    assert_eq!(changes.len(), RESOURCES);
    println!(
        "peak resident memory after one streamed read: {:.0} MiB (before: {before:.0} MiB)",
        peak_rss_mib()
    );
    let mut group = c.benchmark_group("opentofu");
    group.sample_size(10);
    group.throughput(Throughput::Bytes(bytes));
    group.bench_function("read a plan of 20000 changes from its file", |b| {
        b.iter(|| {
            plan::read(fs::File::open(&json).unwrap(), &ValueList::none())
                .unwrap()
                .len()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
