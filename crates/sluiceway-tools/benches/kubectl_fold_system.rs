//! Reading and folding a `kubectl diff` of 5,000 objects under the system's allocator,
//! beside `kubectl_fold`, which runs it under the binary's (ADR 0041): how much of the
//! figure is the allocator's.

#![allow(clippy::print_stdout, reason = "a benchmark reports its figures")]

use criterion::{Criterion, criterion_group, criterion_main};

#[path = "support/kubectl_diff.rs"]
mod kubectl_diff;

fn bench(c: &mut Criterion) {
    kubectl_diff::bench(c, "the system's allocator");
}

criterion_group!(benches, bench);
criterion_main!(benches);
