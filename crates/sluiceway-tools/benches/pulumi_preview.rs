//! Reading a preview of 10,000 steps beside the time `pulumi preview --json` itself took
//! for the 301 steps of our `many-resources` recording.
//!
//! The document is made from that real recording: its steps (each with its new state
//! and inputs, as Pulumi prints them) repeated under new names to 10,000, every third an
//! update with the detailed diff of the `nested-paths` recording's Deployment. Nothing is
//! written by hand; without the fixtures the benchmark says so and measures nothing.

#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use std::fs;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;
use sluiceway_core::values::ValueList;
use sluiceway_tools::pulumi::preview;
use sluiceway_tools::tool_log::ToolLog;

const STEPS: usize = 10_000;

fn recorded(scenario: &str) -> Option<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/pulumi/v3.229.0")
        .join(scenario)
        .join("preview.stdout");
    serde_json::from_slice(&fs::read(path).ok()?).ok()
}

fn peak_rss_mib() -> f64 {
    fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The generated document and `pulumi preview`'s own time for the recording, in seconds.
fn document() -> Option<(Vec<u8>, f64)> {
    let many = recorded("many-resources")?;
    let nested = recorded("nested-paths")?;
    let seconds = many["duration"].as_f64()? / 1e9;
    let creates: Vec<&Value> = many["steps"].as_array()?.iter().skip(1).collect();
    let update = nested["steps"]
        .as_array()?
        .iter()
        .find(|s| s["op"] == "update")?;
    let mut steps = vec![many["steps"][0].clone()];
    for i in 0..STEPS - 1 {
        let mut step = if i % 3 == 2 {
            update.clone()
        } else {
            creates[i % creates.len()].clone()
        };
        let urn = step["urn"].as_str()?;
        let renamed = format!("{}-{i:05}", urn);
        step["urn"] = Value::String(renamed);
        steps.push(step);
    }
    let mut document = many.clone();
    document["steps"] = Value::Array(steps);
    Some((serde_json::to_vec_pretty(&document).ok()?, seconds))
}

fn bench(c: &mut Criterion) {
    let Some((document, pulumi_seconds)) = document() else {
        println!("notice: no Pulumi fixtures under fixtures/pulumi/v3.229.0; nothing measured");
        return;
    };
    println!(
        "preview: {STEPS} steps, {:.1} MiB; `pulumi preview --json` took {pulumi_seconds:.2} s for the 301 steps of many-resources",
        document.len() as f64 / 1048576.0
    );
    // Forget the peak the generator reached, so the figure is the read's alone.
    let _ = fs::write("/proc/self/clear_refs", "5");
    let before = peak_rss_mib();
    let changes = preview::read(&document, &mut ToolLog::default(), &ValueList::none()).unwrap();
    assert_eq!(changes.len(), STEPS - 1);
    println!(
        "peak resident memory after one read: {:.0} MiB (before: {before:.0} MiB, the document held)",
        peak_rss_mib()
    );
    let mut group = c.benchmark_group("pulumi");
    group.sample_size(20);
    group.throughput(Throughput::Elements(STEPS as u64));
    group.bench_function("read a preview of 10000 steps", |b| {
        b.iter(|| {
            preview::read(&document, &mut ToolLog::default(), &ValueList::none())
                .unwrap()
                .len()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
