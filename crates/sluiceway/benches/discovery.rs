//! Discovery plus `check` over a generated repository of 5,000 stacks and 50,000 files,
//! read from disk as the real command reads it.

use std::fs;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use sluiceway::base::printer::Printer;

const STACKS: usize = 5_000;
const FILES: usize = 50_000;

/// 2,000 Pulumi projects with two stacks each, 500 OpenTofu root modules found from their
/// files, 500 declared kubectl directories, and filler files (some unclaimed) up to 50,000.
fn generate(root: &Path) {
    let write = |path: &str, text: &str| {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    };
    fs::create_dir_all(root.join(".git")).unwrap();
    let mut config = String::from("ignore:\n  - apps/p0000:dev\nstacks:\n");
    let mut count = 0;
    for i in 0..2_000 {
        write(
            &format!("apps/p{i:04}/Pulumi.yaml"),
            "name: app\nruntime: nodejs\n",
        );
        write(&format!("apps/p{i:04}/Pulumi.dev.yaml"), "config: {}\n");
        write(&format!("apps/p{i:04}/Pulumi.prod.yaml"), "config: {}\n");
        count += 3;
    }
    for i in 0..500 {
        write(
            &format!("infra/m{i:03}/main.tf"),
            "terraform {\n  backend \"s3\" {}\n}\nmodule \"x\" {\n  source = \"../../modules/x\"\n}\n",
        );
        write(&format!("infra/m{i:03}/main.tofu"), "");
        count += 2;
    }
    write("modules/x/main.tf", "variable \"a\" {}\n");
    count += 1;
    for i in 0..500 {
        write(
            &format!("k8s/d{i:03}/deployment.yaml"),
            "apiVersion: apps/v1\nkind: Deployment\n",
        );
        config.push_str(&format!("  - path: k8s/d{i:03}\n    tool: kubectl\n"));
        count += 1;
    }
    let mut i = 0;
    while count < FILES - 1 {
        let dir = if i % 10 == 0 {
            format!("scripts/s{}", i % 100)
        } else {
            format!("apps/p{:04}/src", i % 2_000)
        };
        write(&format!("{dir}/f{i}.ts"), "");
        i += 1;
        count += 1;
    }
    write("sluiceway.yaml", &config);
    assert_eq!(2_000 * 2 + 500 + 500, STACKS);
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path());
    let mut group = c.benchmark_group("check");
    group.sample_size(10);
    group.bench_function("5000 stacks, 50000 files", |b| {
        b.iter(|| {
            let mut printer = Printer::new(Box::new(std::io::sink()), Box::new(std::io::sink()));
            let outcome = sluiceway::commands::check::run(
                dir.path(),
                sluiceway::commands::check::Voice::Terminal { json: true },
                false,
                jiff::Timestamp::now(),
                &mut printer,
            );
            assert_eq!(outcome, sluiceway::Outcome::Done);
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
