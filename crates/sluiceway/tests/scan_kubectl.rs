//! The scan end to end with the real `kubectl` against the real local control plane
//! (built by scripts/build-control-plane.sh, kubectl installed by
//! scripts/install-kubectl.sh; `.ci/run` does both): the manifests are deployed into the
//! cluster first, one is then changed in the checkout, and the real `sluiceway` binary,
//! run as a GitHub Actions job runs it against the emulator, shows that stack pending
//! with the property path that changed; the other stack, changed in the cluster by
//! someone else, asks for drift checks and shows its drift. Without the control plane
//! the test says so and passes, but not in CI.

#![allow(
    clippy::print_stderr,
    reason = "a test that cannot run here says so in the test log"
)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use github_emulator::Act;
use github_emulator::world::FileChange;
use sluiceway_dashboard::reader;
use sluiceway_fixtures::control_plane::{ControlPlane, cached_pair};
use sluiceway_github::GitHub;
use support::receivers::{Answer, Receivers};
use support::{Bed, REPO, kubectl_run};

const CANARY: &str = "CANARY-VALUE-7f3a";
const NAMESPACE: &str = "sluiceway-e2e";

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn config_map(name: &str, key: &str, value: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: {NAMESPACE}\ndata:\n  {key}: {value}\n"
    )
}

/// The v1.34 control plane, started, and its kubectl; where there is none, `None` after
/// saying which story was not run (under CI there must be one).
fn control_plane(story: &str) -> Option<(PathBuf, ControlPlane)> {
    let Some((kubectl, binaries)) = cached_pair("v1.34.5") else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must build the control plane and install kubectl"
        );
        eprintln!("notice: no control plane or kubectl here; the {story} was not run");
        return None;
    };
    let plane = ControlPlane::start(&binaries, &kubectl).unwrap();
    Some((kubectl, plane))
}

#[test]
fn a_changed_manifest_is_pending_with_its_path_and_drift_is_found_where_asked() {
    let Some((kubectl, plane)) = control_plane("kubectl scan") else {
        return;
    };
    let kubeconfig = plane.kubeconfig().to_owned();

    let checkout = tempfile::tempdir().unwrap();
    let root = checkout.path();
    write(
        root,
        "sluiceway.yaml",
        &format!(
            "notify:\n  events: [drift]\ndrift:\n  enabled: true\nstacks:\n  - path: apps/web\n    tool: kubectl\n    drift:\n      enabled: false\n    options:\n      namespace: {NAMESPACE}\n  - path: apps/cache\n    tool: kubectl\n    options:\n      namespace: {NAMESPACE}\n      forceConflicts: true\n"
        ),
    );
    write(
        root,
        "apps/web/settings.yaml",
        &config_map("web-settings", "greeting", CANARY),
    );
    write(
        root,
        "apps/cache/settings.yaml",
        &config_map("cache-settings", "size", "\"1\""),
    );
    kubectl_run(
        &kubectl,
        &kubeconfig,
        &["create", "namespace", NAMESPACE],
        root,
    );
    for dir in ["apps/web", "apps/cache"] {
        kubectl_run(
            &kubectl,
            &kubeconfig,
            &["apply", "--server-side", "-f", dir],
            root,
        );
    }
    write(
        root,
        "apps/web/settings.yaml",
        &config_map("web-settings", "greeting", &format!("{CANARY}-2")),
    );
    // Someone changes the cache's size outside the code.
    kubectl_run(
        &kubectl,
        &kubeconfig,
        &[
            "patch",
            "configmap",
            "cache-settings",
            "--namespace",
            NAMESPACE,
            "--type=merge",
            "--patch",
            r#"{"data":{"size":"2"}}"#,
        ],
        root,
    );

    let bed = Bed::new();
    let sha = bed
        .emulator
        .act(Act::Push {
            repo: REPO.into(),
            branch: "main".into(),
            author: Some("alice".into()),
            message: "a new greeting".into(),
            files: vec![FileChange {
                path: "apps/web/settings.yaml".into(),
                status: "modified".into(),
                previous_path: None,
                content: None,
            }],
        })
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned();
    let runner = tempfile::tempdir().unwrap();
    let base = bed.emulator.base_url();
    // Slack and the webhook take the news; Telegram answers 500 to both tries.
    let receivers = Receivers::start();
    receivers.answer("telegram", Answer::ServerError);
    let scan = || {
        let mut command = Command::new(env!("CARGO_BIN_EXE_sluiceway"));
        command.arg("run").env_clear();
        for (input, value) in receivers.inputs() {
            command.env(format!("INPUT_{}", input.to_uppercase()), value);
        }
        let (name, value) = receivers.telegram_api();
        command.env(name, value);
        command
            .env(
                "PATH",
                format!("{}:/usr/bin:/bin", kubectl.parent().unwrap().display()),
            )
            .env("HOME", runner.path())
            .env("KUBECONFIG", &kubeconfig)
            .env("GITHUB_EVENT_NAME", "schedule")
            .env("GITHUB_REPOSITORY", REPO)
            .env("GITHUB_SHA", &sha)
            .env("GITHUB_RUN_ID", "77")
            .env("GITHUB_API_URL", &base)
            .env("GITHUB_GRAPHQL_URL", format!("{base}/graphql"))
            .env("GITHUB_WORKSPACE", root)
            .env("GITHUB_OUTPUT", runner.path().join("output"))
            .env("GITHUB_STEP_SUMMARY", runner.path().join("summary.md"))
            .env("RUNNER_TEMP", runner.path())
            .env("INPUT_GITHUB-TOKEN", "t")
            .env("INPUT_MODE", "scan")
            .output()
            .unwrap()
    };
    let out = scan();
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{log}");
    let issues = bed.github.open_issues_labelled("sluiceway").unwrap();
    let body = bed.body(issues[0].number);
    let rows: std::collections::BTreeMap<String, (String, String)> = reader::read(&body)
        .rows
        .into_iter()
        .map(|r| {
            let state = r.facts.state.unwrap().name().to_owned();
            (r.facts.stack.clone(), (state, r.text))
        })
        .collect();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows["apps/cache"].0, "pending",
        "the code sets the size back: {log}"
    );
    let (state, web) = &rows["apps/web"];
    assert_eq!(state, "pending", "{body}");
    assert!(web.contains("web-settings"), "{web}");
    assert!(web.contains("data.greeting"), "{web}");
    // The scheduled full scan checked the cache for drift, as the top level asks, and
    // not the web, which turns it off for itself.
    let result: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(runner.path().join("sluiceway-scan-result.json")).unwrap(),
    )
    .unwrap();
    let drifted: Vec<(&str, Option<u64>)> = result["stacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["stack"].as_str().unwrap(), s["drifted"].as_u64()))
        .collect();
    assert_eq!(drifted, [("apps/cache", Some(1)), ("apps/web", None)]);
    assert!(
        rows["apps/cache"].1.contains("drift"),
        "{}",
        rows["apps/cache"].1
    );
    let summary = std::fs::read_to_string(runner.path().join("summary.md")).unwrap();
    for (what, text) in [("body", &body), ("summary", &summary)] {
        assert!(!text.contains(CANARY), "a value reached the {what}");
    }
    let left: Vec<_> = std::fs::read_dir(runner.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().starts_with("sluiceway-"))
        .filter(|n| n != "sluiceway-scan-result.json")
        .collect();
    assert!(left.is_empty(), "rendered sets left behind: {left:?}");

    // The drift was news: one Slack message and one webhook document name the cache,
    // and only the drift, as `notify.events` asks; Telegram's failures are warnings.
    let slack = receivers.of("slack");
    let webhook = receivers.of("webhook");
    assert_eq!((slack.len(), webhook.len()), (1, 1), "{log}");
    assert_eq!(webhook[0].body["event"], "drift");
    assert_eq!(webhook[0].body["stacks"], serde_json::json!(["apps/cache"]));
    assert_eq!(
        webhook[0].body["dashboard"].as_str(),
        Some(issues[0].html_url.as_str())
    );
    assert!(
        slack[0].body["text"]
            .as_str()
            .unwrap()
            .contains("apps/cache has drifted")
    );
    assert_eq!(receivers.of("telegram").len(), 2, "one retry after a 500");
    assert!(
        log.contains("::warning::Notification not sent to Telegram: it answered 500."),
        "{log}"
    );
    for received in receivers.received() {
        assert_eq!(
            received.stray, None,
            "{}: {}",
            received.channel, received.raw
        );
        assert!(
            !received.raw.contains(CANARY),
            "a value reached {}",
            received.channel
        );
    }
    for secret in ["sekrit", "AAbb_cc-dd", "-1001234"] {
        assert!(
            log.lines()
                .filter(|l| l.contains(secret))
                .all(|l| l.starts_with("::add-mask::")),
            "{secret} is only ever masked: {log}"
        );
    }
    // The same scan again finds nothing new, and tells nobody.
    let again = scan();
    assert_eq!(again.status.code(), Some(0));
    assert_eq!(
        receivers.received().len(),
        4,
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    drop(plane);
}

#[test]
fn a_tick_applies_the_rendered_set_into_the_cluster_and_the_next_scan_is_in_sync() {
    let Some((kubectl, plane)) = control_plane("kubectl deploy") else {
        return;
    };
    let kubeconfig = plane.kubeconfig().to_owned();
    let mut job = support::job::Job::new();
    job.checkout = tempfile::tempdir().unwrap();
    let root = job.checkout.path().to_owned();
    write(
        &root,
        "sluiceway.yaml",
        &format!(
            "stacks:\n  - path: apps/web\n    tool: kubectl\n    options:\n      namespace: {NAMESPACE}\n"
        ),
    );
    write(
        &root,
        "apps/web/settings.yaml",
        &config_map("web-settings", "greeting", "hello"),
    );
    kubectl_run(
        &kubectl,
        &kubeconfig,
        &["create", "namespace", NAMESPACE],
        &root,
    );
    kubectl_run(
        &kubectl,
        &kubeconfig,
        &["apply", "--server-side", "-f", "apps/web"],
        &root,
    );
    write(
        &root,
        "apps/web/settings.yaml",
        &config_map("web-settings", "greeting", "hi"),
    );
    job.env
        .push(("KUBECONFIG".into(), kubeconfig.display().to_string()));
    let path = format!("{}:/usr/bin:/bin", kubectl.parent().unwrap().display());

    let bed = Bed::new();
    let sha = support::job::push(&bed, "a new greeting", &["apps/web/settings.yaml"]);
    let scanned = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(scanned.code, Some(0), "{}", scanned.log);
    let number = support::job::dashboard(&bed);
    support::job::tick(&bed, number, "alice", "apps/web");
    job.payload = Some(support::job::edit_event(&bed, number));
    let ran = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    job.payload = None;
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert_eq!(ran.outputs["outcome"], "deployed", "{}", ran.log);

    let live = Command::new(&kubectl)
        .args([
            "get",
            "configmap",
            "web-settings",
            "--namespace",
            NAMESPACE,
            "-o",
            "jsonpath={.data.greeting}",
        ])
        .env("KUBECONFIG", &kubeconfig)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&live.stdout),
        "hi",
        "the cluster holds what was ticked"
    );
    let again = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(again.code, Some(0), "{}", again.log);
    let body = bed.body(number);
    assert!(
        support::job::blocks(&body)["apps/web"].contains("state=\"in-sync\""),
        "{body}"
    );
    let trail = body
        .split("## Recently deployed")
        .nth(1)
        .expect("the trail");
    assert!(
        trail.contains("apps/web") && trail.contains("alice"),
        "{trail}"
    );
    drop(plane);
}

#[test]
fn a_pruning_stack_deletes_what_left_its_manifests_and_shows_the_delete_first() {
    let Some((kubectl, plane)) = control_plane("kubectl prune") else {
        return;
    };
    let kubeconfig = plane.kubeconfig().to_owned();
    let mut job = support::job::Job::new();
    job.checkout = tempfile::tempdir().unwrap();
    let root = job.checkout.path().to_owned();
    write(
        &root,
        "sluiceway.yaml",
        &format!(
            "stacks:\n  - path: apps/web\n    tool: kubectl\n    options:\n      namespace: {NAMESPACE}\n      prune: true\n"
        ),
    );
    write(
        &root,
        "apps/web/settings.yaml",
        &config_map("web-settings", "greeting", "hello"),
    );
    write(
        &root,
        "apps/web/legacy.yaml",
        &config_map("web-legacy", "mode", "old"),
    );
    kubectl_run(
        &kubectl,
        &kubeconfig,
        &["create", "namespace", NAMESPACE],
        &root,
    );
    job.env
        .push(("KUBECONFIG".into(), kubeconfig.display().to_string()));
    let path = format!("{}:/usr/bin:/bin", kubectl.parent().unwrap().display());
    let bed = Bed::new();
    let deploy = |job: &mut support::job::Job, sha: &str| {
        let scanned = job.run_with(&bed, "push", sha, &path, &[]);
        assert_eq!(scanned.code, Some(0), "{}", scanned.log);
        let number = support::job::dashboard(&bed);
        support::job::tick(&bed, number, "alice", "apps/web");
        job.payload = Some(support::job::edit_event(&bed, number));
        let ran = job.run_with(&bed, "issues", sha, &path, &[("mode", "")]);
        job.payload = None;
        assert_eq!(ran.outputs["outcome"], "deployed", "{}", ran.log);
        number
    };
    let exists = |name: &str| {
        Command::new(&kubectl)
            .args(["get", "configmap", name, "--namespace", NAMESPACE])
            .env("KUBECONFIG", &kubeconfig)
            .output()
            .unwrap()
            .status
            .success()
    };
    let first = support::job::push(
        &bed,
        "the web's settings",
        &["apps/web/settings.yaml", "apps/web/legacy.yaml"],
    );
    deploy(&mut job, &first);
    assert!(exists("web-settings") && exists("web-legacy"));

    // The legacy settings leave the code: the row shows their delete, and the tick
    // deletes them from the cluster.
    std::fs::remove_file(root.join("apps/web/legacy.yaml")).unwrap();
    let second = support::job::push(&bed, "no more legacy", &["apps/web/legacy.yaml"]);
    let scanned = job.run_with(&bed, "push", &second, &path, &[]);
    assert_eq!(scanned.code, Some(0), "{}", scanned.log);
    let number = support::job::dashboard(&bed);
    let row = support::job::blocks(&bed.body(number))["apps/web"].clone();
    assert!(row.contains("state=\"pending\""), "{row}");
    assert!(
        row.contains("web-legacy"),
        "the delete is on the row: {row}"
    );
    assert!(!row.contains("web-settings"), "nothing else changes: {row}");
    deploy(&mut job, &second);
    assert!(!exists("web-legacy"), "pruned");
    assert!(exists("web-settings"), "and only that");
    drop(plane);
}

/// ADR 0029 and decision 0121: a push scan that previews a drifted stack checks its drift
/// again, so the row keeps it; a drift check that fails leaves the preview standing and
/// says `drift not checked`, and the next scan of any kind checks that stack again.
#[test]
fn a_push_keeps_the_drift_of_a_drifted_row_and_a_failed_drift_check_says_so() {
    let Some((kubectl, plane)) = control_plane("drift story") else {
        return;
    };
    let kubeconfig = plane.kubeconfig().to_owned();
    let mut job = support::job::Job::new();
    job.checkout = tempfile::tempdir().unwrap();
    let root = job.checkout.path().to_owned();
    write(
        &root,
        "sluiceway.yaml",
        &format!(
            "stacks:\n  - path: apps/cache\n    tool: kubectl\n    drift:\n      enabled: true\n    options:\n      namespace: {NAMESPACE}\n      forceConflicts: true\n"
        ),
    );
    let settings = |size: &str, note: &str| {
        format!(
            "# {note}\n{}",
            config_map("cache-settings", "size", &format!("\"{size}\""))
        )
    };
    write(&root, "apps/cache/settings.yaml", &settings("1", "first"));
    kubectl_run(
        &kubectl,
        &kubeconfig,
        &["create", "namespace", NAMESPACE],
        &root,
    );
    kubectl_run(
        &kubectl,
        &kubeconfig,
        &["apply", "--server-side", "-f", "apps/cache"],
        &root,
    );
    kubectl_run(
        &kubectl,
        &kubeconfig,
        &[
            "patch",
            "configmap",
            "cache-settings",
            "--namespace",
            NAMESPACE,
            "--type=merge",
            "--patch",
            r#"{"data":{"size":"2"}}"#,
        ],
        &root,
    );
    job.env
        .push(("KUBECONFIG".into(), kubeconfig.display().to_string()));
    let path = format!("{}:/usr/bin:/bin", kubectl.parent().unwrap().display());
    let bed = Bed::new();
    let row = |number: u64| {
        reader::read(&bed.body(number))
            .rows
            .into_iter()
            .find(|r| r.facts.stack == "apps/cache")
            .unwrap()
    };

    let sha = support::job::push(&bed, "the cache", &["apps/cache/settings.yaml"]);
    let scheduled = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(scheduled.code, Some(0), "{}", scheduled.log);
    let number = support::job::dashboard(&bed);
    assert!(row(number).facts.drift, "the schedule found the drift");

    // A push that touches the stack previews it again, and checks its drift again.
    write(
        &root,
        "apps/cache/settings.yaml",
        &settings("1", "a comment"),
    );
    let pushed = support::job::push(&bed, "a comment", &["apps/cache/settings.yaml"]);
    let ran = job.run_with(&bed, "push", &pushed, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let kept = row(number);
    assert!(
        kept.facts.drift && !kept.facts.drift_check_failed,
        "{}",
        kept.text
    );

    // A drift check that fails (the managed-fields diff): the preview stands.
    let broken = tempfile::tempdir().unwrap();
    let wrapper = broken.path().join("kubectl");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --show-managed-fields ] && {{ echo 'error: the server is unavailable' >&2; exit 2; }}; done\nexec {} \"$@\"\n",
            kubectl.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    write(
        &root,
        "apps/cache/settings.yaml",
        &settings("1", "another comment"),
    );
    let again = support::job::push(&bed, "another comment", &["apps/cache/settings.yaml"]);
    let broken_path = format!("{}:/usr/bin:/bin", broken.path().display());
    let ran = job.run_with(&bed, "push", &again, &broken_path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.contains("::warning::The drift check of apps/cache failed: the tool exited with an error (exit code 2). Its row says drift not checked."),
        "{}",
        ran.log
    );
    let unchecked = row(number);
    assert_eq!(
        unchecked.facts.state.unwrap().name(),
        "pending",
        "{}",
        unchecked.text
    );
    assert!(
        unchecked.facts.drift_check_failed && !unchecked.facts.drift,
        "{}",
        unchecked.text
    );
    assert!(
        unchecked
            .text
            .lines()
            .next()
            .unwrap()
            .contains(" · drift not checked"),
        "{}",
        unchecked.text
    );
    assert!(
        !unchecked.text.contains("server is unavailable"),
        "the tool's words stay in the log"
    );

    // The next scan checks it again, with the tool working.
    write(
        &root,
        "apps/cache/settings.yaml",
        &settings("1", "a third comment"),
    );
    let third = support::job::push(&bed, "a third comment", &["apps/cache/settings.yaml"]);
    let ran = job.run_with(&bed, "push", &third, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let checked = row(number);
    assert!(
        checked.facts.drift && !checked.facts.drift_check_failed,
        "{}",
        checked.text
    );
    assert!(
        !checked.text.contains("drift not checked"),
        "{}",
        checked.text
    );

    // Decision 0091: a tick on the drifted row, and the drift put back by hand before
    // the deploy: nothing deploys, and the trail says the drift is gone.
    support::job::tick(&bed, number, "alice", "apps/cache");
    kubectl_run(
        &kubectl,
        &kubeconfig,
        &[
            "patch",
            "configmap",
            "cache-settings",
            "--namespace",
            NAMESPACE,
            "--type=merge",
            "--patch",
            r#"{"data":{"size":"1"}}"#,
        ],
        &root,
    );
    job.payload = Some(support::job::edit_event(&bed, number));
    let repaired = job.run_with(&bed, "issues", &third, &path, &[("mode", "")]);
    job.payload = None;
    assert_eq!(repaired.outputs["outcome"], "in-sync", "{}", repaired.log);
    assert!(
        repaired.log.contains("The drift of apps/cache is gone"),
        "{}",
        repaired.log
    );
    let body = bed.body(number);
    let trail = body
        .split("## Recently deployed")
        .nth(1)
        .expect("the trail");
    assert!(trail.contains("apps/cache · drift gone · alice"), "{trail}");
    drop(plane);
}
