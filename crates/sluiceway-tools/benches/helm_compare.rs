//! Comparing two renders of a release of 5,000 objects without the plugin.
//!
//! The chart is generated (a Deployment template ranged over 5,000 names) and both
//! sides are rendered by the real `helm template` from the cache
//! (`scripts/install-helm.sh v3.19.0`), whose own time for one render is measured beside
//! the comparison. Half the objects change an image and every one its replicas between
//! the two renders.

#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use std::path::PathBuf;
use std::process::Command;
use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use sluiceway_tools::helm::compare;

const OBJECTS: usize = 5_000;

const TEMPLATE: &str = r#"{{- range $i := until (int .Values.count) }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-{{ $i }}
  labels:
    app.kubernetes.io/name: app-{{ $i }}
spec:
  replicas: {{ $.Values.replicas }}
  template:
    spec:
      containers:
      {{- range $c := until 20 }}
      - name: c{{ $c }}
        image: {{ if eq (mod $i 2) 0 }}{{ $.Values.image }}{{ else }}registry.k8s.io/pause:3.9{{ end }}
        env:
        - name: SETTING_{{ $c }}_A
          value: "{{ $i }}-{{ $c }}-a"
        resources:
          limits:
            cpu: 100m
            memory: 64Mi
      {{- end }}
{{- end }}
"#;

fn helm() -> Option<PathBuf> {
    let cache = std::env::var_os("SLUICEWAY_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/sluiceway")))?;
    let helm = cache.join("helm/v3.19.0/helm");
    helm.is_file().then_some(helm)
}

/// Renders the chart with these values; answers the render and helm's time for it.
fn render(helm: &PathBuf, chart: &std::path::Path, replicas: u32, image: &str) -> (String, f64) {
    let started = Instant::now();
    let out = Command::new(helm)
        .args(["template", "bench"])
        .arg(chart)
        .args([
            "--namespace=bench",
            &format!("--set=count={OBJECTS}"),
            &format!("--set=replicas={replicas}"),
            &format!("--set=image={image}"),
        ])
        .env("HOME", chart)
        .output()
        .unwrap();
    let seconds = started.elapsed().as_secs_f64();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (String::from_utf8(out.stdout).unwrap(), seconds)
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn compare_two_renders(c: &mut Criterion) {
    let Some(helm) = helm() else {
        println!("notice: no helm v3.19.0 in the cache; run scripts/install-helm.sh v3.19.0");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let chart = dir.path().join("bench");
    std::fs::create_dir_all(chart.join("templates")).unwrap();
    std::fs::write(
        chart.join("Chart.yaml"),
        "apiVersion: v2\nname: bench\nversion: 0.1.0\n",
    )
    .unwrap();
    std::fs::write(chart.join("templates/apps.yaml"), TEMPLATE).unwrap();
    let (deployed, _) = render(&helm, &chart, 1, "registry.k8s.io/pause:3.9");
    let mut times = Vec::new();
    let mut rendered = String::new();
    for _ in 0..5 {
        let (text, seconds) = render(&helm, &chart, 2, "registry.k8s.io/pause:3.10");
        times.push(seconds);
        rendered = text;
    }
    times.sort_by(f64::total_cmp);
    let before = peak_rss_mib();
    let changes = compare::compare(
        &deployed,
        &rendered,
        "bench",
        &sluiceway_core::values::ValueList::none(),
    )
    .unwrap();
    assert_eq!(changes.len(), OBJECTS);
    println!(
        "helm template of {OBJECTS} objects ({:.1} MiB): median {:.3} s over 5 renders",
        rendered.len() as f64 / (1024.0 * 1024.0),
        times[2]
    );
    println!(
        "peak resident memory after one comparison: {:.0} MiB (before: {before:.0} MiB, both renders held)",
        peak_rss_mib()
    );
    let mut group = c.benchmark_group("helm");
    group.sample_size(10);
    group.throughput(Throughput::Elements(OBJECTS as u64));
    group.bench_function("compare two renders of 5,000 objects", |b| {
        b.iter(|| {
            compare::compare(
                &deployed,
                &rendered,
                "bench",
                &sluiceway_core::values::ValueList::none(),
            )
            .unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, compare_two_renders);
criterion_main!(benches);
