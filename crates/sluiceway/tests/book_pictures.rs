//! The dashboards the book pictures, written by real scans: the book's one-job example
//! (`docs/book/examples/one-job`) scanned, ticked and deployed by the real binary as an
//! Actions job runs it, with the real `tofu`, against the emulator; and its drift example
//! (`docs/book/examples/drift`) with the real `kubectl` against the local control plane,
//! since OpenTofu has no drift check. Each state the book shows is reached for real and
//! asserted by the line that defines it: the first scan, deploying, all in sync, pending
//! with a delete (the caution block), a failed preview, a freeze, and drift. With
//! `SLUICEWAY_PICTURES=<dir>`, each body is also written there as `<state>.md`, for
//! `scripts/draw-dashboards.sh` to draw in headless Chromium. Without the control plane
//! the drift story says so and passes, but not in CI.

#![allow(
    clippy::print_stderr,
    reason = "a test that cannot run here says so in the test log"
)]

mod support;

use std::path::Path;
use std::time::{Duration, Instant};

use jiff::{Timestamp, ToSpan};
use sluiceway_fixtures::control_plane::{ControlPlane, cached_pair};
use support::job::*;
use support::{Bed, kubectl_run};

/// Writes the body of `state` where the picture script asked, when it asked.
fn keep(state: &str, body: &str) {
    if let Some(dir) = std::env::var_os("SLUICEWAY_PICTURES") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(Path::new(&dir).join(format!("{state}.md")), body).unwrap();
    }
}

/// Where GitHub's clock starts: an hour behind the machine's, so the trail's times read
/// as the same day as the scan line's. (The emulator's clock moves a second per event, and
/// a record it dates after the scan's own start would read as newer than the scan.)
fn an_hour_ago() -> Timestamp {
    Timestamp::now().checked_sub(1.hour()).unwrap()
}

/// The body a scan wrote, which ended with `code`.
fn scan(bed: &Bed, job: &Job, event: &str, sha: &str, code: i32) -> String {
    let ran = job.run(bed, event, sha);
    assert_eq!(ran.code, Some(code), "{}", ran.log);
    bed.body(dashboard(bed))
}

fn edit(job: &Job, path: &str, from: &str, to: &str) {
    let file = job.file(path);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains(from), "{path} holds {from}");
    std::fs::write(&file, text.replace(from, to)).unwrap();
}

#[test]
fn the_books_dashboards_are_written_by_real_scans() {
    let bed = Bed::starting(an_hour_ago());
    let mut job = Job::of("docs/book/examples/one-job");
    let stacks = ["network", "storage:dev", "storage:prod"];

    // The first scan: every stack pending with creates.
    let sha = push(&bed, "the first commit", &["network/main.tf"]);
    let body = scan(&bed, &job, "push", &sha, 0);
    let rows = blocks(&body);
    for stack in stacks {
        assert!(rows[stack].contains("state=\"pending\""), "{body}");
    }
    keep("first-run", &body);

    // Deploying: alice ticks all three; the deploys are slowed so the body can be read
    // while the first runs.
    let number = dashboard(&bed);
    for stack in stacks {
        tick(&bed, number, "alice", stack);
    }
    job.payload = Some(edit_event(&bed, number));
    let slow = wrapped_tofu("if [ \"$1\" = apply ]; then sleep 4; fi");
    let path = format!("{}:/usr/bin:/bin", slow.path().display());
    let step = job
        .command(&bed, "issues", &sha, &path, &[("mode", "")])
        .spawn()
        .unwrap();
    let started = Instant::now();
    let deploying = loop {
        let body = bed.body(number);
        if body.contains("state=\"deploying\"") {
            break body;
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no row said deploying: {body}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(deploying.contains("## Deploying"), "{deploying}");
    keep("deploying", &deploying);
    let out = step.wait_with_output().unwrap();
    let ran = job.ran(&out);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    job.payload = None;

    // All in sync: the next scheduled scan finds nothing to do.
    let body = scan(&bed, &job, "schedule", &sha, 0);
    let rows = blocks(&body);
    for stack in stacks {
        assert!(rows[stack].contains("state=\"in-sync\""), "{body}");
    }
    assert!(body.contains("## Recently deployed"), "{body}");
    keep("in-sync", &body);

    // Pending with a delete: the network's only resource is removed, dev grows.
    edit(
        &job,
        "network/main.tf",
        "resource \"terraform_data\" \"vpc\" {\n  input = { cidr = \"10.20.0.0/16\" }\n}\n",
        "",
    );
    edit(&job, "storage/dev.tfvars", "replicas = 1", "replicas = 2");
    let sha = push(
        &bed,
        "retire the network, grow dev",
        &["network/main.tf", "storage/dev.tfvars"],
    );
    let body = scan(&bed, &job, "push", &sha, 0);
    assert!(body.contains("> [!CAUTION]"), "{body}");
    assert!(blocks(&body)["network"].contains("deletes=\"1\""), "{body}");
    keep("pending", &body);

    // A failed preview: the storage module no longer parses, so its preparation fails
    // and the job is red.
    let main = job.file("storage/main.tf");
    let good = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, format!("{good}\nresource \"terraform_data\" {{\n")).unwrap();
    let sha = push(&bed, "a typo", &["storage/main.tf"]);
    let body = scan(&bed, &job, "push", &sha, 1);
    assert!(
        blocks(&body)["storage:dev"].contains("state=\"preview-failed\""),
        "{body}"
    );
    assert!(body.contains("## Preview failed"), "{body}");
    keep("preview-failed", &body);
    std::fs::write(&main, good).unwrap();

    // A freeze: on since yesterday, for a week; the dashboard names it.
    let day = |days: i64| {
        Timestamp::now()
            .checked_add((days * 24).hours())
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M")
            .to_string()
    };
    let config = std::fs::read_to_string(job.file("sluiceway.yaml")).unwrap();
    std::fs::write(
        job.file("sluiceway.yaml"),
        format!(
            "{config}\nfreezes:\n  - from: \"{}\"\n    to: \"{}\"\n    reason: Year-end change freeze\n",
            day(-1),
            day(7)
        ),
    )
    .unwrap();
    let sha = push(
        &bed,
        "freeze for the year end",
        &["sluiceway.yaml", "storage/main.tf"],
    );
    let body = scan(&bed, &job, "push", &sha, 0);
    assert!(body.contains("Year-end change freeze"), "{body}");
    keep("freeze", &body);
}

#[test]
fn the_books_drifted_dashboard_is_written_by_a_real_drift_check() {
    let Some((binary, binaries)) = cached_pair("v1.34.5") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must build the control plane and install kubectl"
        );
        eprintln!(
            "notice: no control plane or kubectl here; the drifted picture's story was not run"
        );
        return;
    };
    let plane = ControlPlane::start(&binaries, &binary).unwrap();
    let kubeconfig = plane.kubeconfig().to_owned();
    let mut job = Job::of("docs/book/examples/drift");
    job.env
        .push(("KUBECONFIG".into(), kubeconfig.display().to_string()));

    // Both stacks are deployed as the manifests say; then someone resizes the cache by
    // hand.
    let checkout = job.checkout.path().to_owned();
    let kubectl = |args: &[&str]| kubectl_run(&binary, &kubeconfig, args, &checkout);
    kubectl(&["create", "namespace", "shop"]);
    for stack in ["apps/cache", "apps/web"] {
        kubectl(&["apply", "--server-side", "--namespace=shop", "-f", stack]);
    }
    kubectl(&[
        "patch",
        "configmap",
        "cache-settings",
        "--namespace=shop",
        "--type=merge",
        "--patch",
        r#"{"data":{"size":"4"}}"#,
    ]);

    let bed = Bed::starting(an_hour_ago());
    let sha = push(&bed, "the shop", &["apps/cache/settings.yaml"]);
    let path = format!("{}:/usr/bin:/bin", binary.parent().unwrap().display());
    let ran = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let body = bed.body(dashboard(&bed));
    let rows = blocks(&body);
    // The preview takes the field back (the stack owns it) and the drift check names
    // the change made by hand: both on the cache's row.
    assert!(rows["apps/cache"].contains("drift=\"true\""), "{body}");
    assert!(
        rows["apps/cache"].contains("1 changed outside the code"),
        "{body}"
    );
    assert!(rows["apps/web"].contains("state=\"in-sync\""), "{body}");
    keep("drifted", &body);
}
