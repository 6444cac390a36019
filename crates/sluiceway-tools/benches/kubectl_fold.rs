//! Reading and folding a `kubectl diff` of 5,000 objects under the allocator the
//! `sluiceway` binary runs with (`crates/sluiceway/src/main.rs`, ADR 0041): the figure a
//! user gets. `kubectl_fold_system` runs the same under the system's allocator.

#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/kubectl_diff.rs"]
mod kubectl_diff;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn bench(c: &mut Criterion) {
    kubectl_diff::bench(c, "mimalloc, as the binary runs");
}

criterion_group!(benches, bench);
criterion_main!(benches);
