//! Pulumi stacks end to end with the real `pulumi` CLI, its YAML language host and its
//! Kubernetes provider (built from the Go module proxy by `scripts/build-pulumi.sh`)
//! against the real local control plane and a file backend in the checkout: network:dev
//! deployed by hand, then changed in the code and in the cluster; app:dev never
//! deployed and waiting on network:dev through its stack reference (`dependsOn: auto`);
//! network:prod not in the backend, and made there by the scan (`createInBackend`). The
//! real `sluiceway` binary, run as a GitHub Actions job runs it against the emulator,
//! shows all three pending (network's drift beside its change), refuses app's tick while
//! network:dev waits, deploys network:dev on a tick with its drift put back, finds it in
//! sync, and then deploys app. The deploy by hand is on the trail from network:dev's own
//! history; Sluiceway's own deploy is not counted as one from outside. Without the tools
//! the test says so and passes, but not in CI.

#![allow(
    clippy::print_stderr,
    reason = "a test that cannot run here says so in the test log"
)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use sluiceway_fixtures::control_plane::{ControlPlane, cached_pair};
use support::Bed;
use support::job::*;

const CONFIG: &str = "ignore:
  - \"generated/*:*\"
stacks:
  - path: network
    drift:
      enabled: true
  - path: network
    name: prod
    createInBackend: true
  - path: app
    dependsOn: auto
";
const PASSPHRASE: &str = "sluiceway-fixtures";

fn pulumi_bin() -> Option<PathBuf> {
    let cache = std::env::var_os("SLUICEWAY_CACHE")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/sluiceway")
        });
    let dir = cache.join("pulumi/v3.229.0/bin");
    dir.join("pulumi").is_file().then_some(dir)
}

/// The job's variables for Pulumi: its home and backend in the checkout, no update check.
fn pulumi_env(checkout: &Path) -> Vec<(String, String)> {
    [
        (
            "PULUMI_HOME",
            checkout.join(".pulumi-home").display().to_string(),
        ),
        (
            "PULUMI_BACKEND_URL",
            format!("file://{}", checkout.join(".backend").display()),
        ),
        ("PULUMI_CONFIG_PASSPHRASE", PASSPHRASE.to_owned()),
        ("PULUMI_SKIP_UPDATE_CHECK", "true".to_owned()),
    ]
    .map(|(k, v)| (k.to_owned(), v))
    .to_vec()
}

fn run(program: &Path, path: &str, env: &[(String, String)], cwd: &Path, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", path)
        .envs(env.iter().cloned())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        program.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The lab as each test starts it: the control plane, network:dev deployed by hand and
/// then changed in the code and in the cluster, app:dev made and never deployed,
/// network:prod in no backend.
struct Lab {
    _plane: ControlPlane,
    bed: Bed,
    job: Job,
    /// The job's PATH: pulumi, kubectl, the system.
    path: String,
    /// The job's variables for Pulumi and the cluster.
    env: Vec<(String, String)>,
    kubectl: PathBuf,
}

impl Lab {
    /// `None` when the tools are not here (never in CI).
    fn start() -> Option<Lab> {
        let (Some((kubectl, binaries)), Some(bin)) = (cached_pair("v1.34.5"), pulumi_bin()) else {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI must build the control plane and Pulumi and install kubectl"
            );
            eprintln!(
                "notice: no control plane, kubectl v1.34.5 or Pulumi v3.229.0 here; the Pulumi scan was not run"
            );
            return None;
        };
        let plane = ControlPlane::start(&binaries, &kubectl).unwrap();
        let kubeconfig = plane.kubeconfig().display().to_string();

        let bed = Bed::new();
        let job = Job::of("examples/pulumi-lab");
        std::fs::write(job.file("sluiceway.yaml"), CONFIG).unwrap();
        std::fs::create_dir_all(job.file(".backend")).unwrap();
        let path = format!(
            "{}:{}:/usr/bin:/bin",
            bin.display(),
            kubectl.parent().unwrap().display()
        );
        let mut env = pulumi_env(job.checkout.path());
        env.push(("KUBECONFIG".into(), kubeconfig));
        let pulumi = bin.join("pulumi");
        let network = job.file("network");
        run(
            &kubectl,
            &path,
            &env,
            &network,
            &["create", "namespace", "sluiceway-fixtures"],
        );
        for (dir, stack) in [(&network, "dev"), (&job.file("app"), "dev")] {
            run(
                &pulumi,
                &path,
                &env,
                dir,
                &["stack", "init", stack, "--non-interactive"],
            );
        }
        run(
            &pulumi,
            &path,
            &env,
            &network,
            &[
                "up",
                "--yes",
                "--skip-preview",
                "--non-interactive",
                "--stack",
                "dev",
            ],
        );
        // A new tier in the code, and the zone changed in the cluster by hand.
        let program = job.file("network/Pulumi.yaml");
        let text = std::fs::read_to_string(&program).unwrap();
        std::fs::write(&program, text.replace("tier: edge", "tier: core")).unwrap();
        run(
            &kubectl,
            &path,
            &env,
            &network,
            &[
                "patch",
                "configmap",
                "network-settings",
                "--namespace=sluiceway-fixtures",
                r#"--patch={"data":{"zone":"CANARY-VALUE by hand"}}"#,
            ],
        );
        Some(Lab {
            _plane: plane,
            bed,
            job,
            path,
            env,
            kubectl,
        })
    }
}

#[test]
fn pulumi_stacks_preview_drift_check_deploy_and_repair() {
    let Some(Lab {
        _plane,
        bed,
        mut job,
        path,
        env,
        kubectl,
    }) = Lab::start()
    else {
        return;
    };
    let network = job.file("network");

    // The check asks the backend: network:dev and app:dev are there, network:prod is
    // not and its entry lets the first scan make it.
    let checked = run(
        Path::new(env!("CARGO_BIN_EXE_sluiceway")),
        &path,
        &env,
        job.checkout.path(),
        &["check", "--backend"],
    );
    for line in [
        "  app:dev · yes",
        "  network:dev · yes",
        "  network:prod · created by the first scan",
    ] {
        assert!(checked.contains(line), "{line}: {checked}");
    }
    assert!(!checked.contains("warning:"), "{checked}");

    let sha = push(&bed, "a new tier", &["network/Pulumi.yaml"]);
    job.env.extend(env.iter().cloned());
    // The action's check step asks the same with the backend input, and says so in
    // the job summary.
    let in_action = job.run_with(
        &bed,
        "pull_request",
        &sha,
        &path,
        &[("mode", "check"), ("backend", "true")],
    );
    assert_eq!(in_action.code, Some(0), "{}", in_action.log);
    assert!(
        in_action
            .log
            .contains("  network:prod · created by the first scan")
            && in_action
                .summary
                .contains("network:prod · created by the first scan"),
        "{}",
        in_action.log
    );
    let ran = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(ran.log.contains("Using pulumi v3.229.0."), "{}", ran.log);
    let number = dashboard(&bed);
    let body = bed.body(number);
    let rows = blocks(&body);
    let network_row = &rows["network:dev"];
    assert!(network_row.contains("state=\"pending\""), "{body}");
    assert!(network_row.contains("metadata.labels.tier"), "{body}");
    assert!(network_row.contains("drift=\"true\""), "{body}");
    assert!(
        network_row.contains("data.zone"),
        "the drifted zone is on the row: {body}"
    );
    assert!(rows["app:dev"].contains("state=\"pending\""), "{body}");
    assert!(rows["app:dev"].contains("release"), "{body}");
    assert!(
        ran.log
            .contains("network:prod: made in its backend, which did not hold it."),
        "{}",
        ran.log
    );
    assert!(rows["network:prod"].contains("state=\"pending\""), "{body}");
    assert!(
        rows["network:prod"].contains("credentials"),
        "all creates: {body}"
    );
    // The deploy by hand is on the trail, from network:dev's own history.
    assert!(
        body.contains("network:dev · deployed outside the dashboard · "),
        "{body}"
    );
    assert_eq!(
        body.matches("sluiceway:outside stack=\"network:dev\"")
            .count(),
        1,
        "{body}"
    );
    for text in [&body, &ran.summary, &ran.result_text, &ran.log] {
        assert!(!text.contains("CANARY"), "a value left the adapter: {text}");
    }

    // app:dev reads network:dev's outputs, so its tick waits while network:dev has a
    // change waiting.
    tick(&bed, number, "alice", "app:dev");
    job.payload = Some(edit_event(&bed, number));
    let ran = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    job.payload = None;
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(!ran.log.contains("app:dev: deployed."), "{}", ran.log);
    let body = bed.body(number);
    assert!(body.contains("it depends on **network:dev**"), "{body}");

    tick(&bed, number, "alice", "network:dev");
    job.payload = Some(edit_event(&bed, number));
    let ran = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    job.payload = None;
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(ran.log.contains("network:dev: deployed."), "{}", ran.log);
    assert!(!ran.log.contains("CANARY-SECRET"), "{}", ran.log);
    let live = run(
        &kubectl,
        &path,
        &env,
        &network,
        &[
            "get",
            "configmap",
            "network-routes",
            "network-settings",
            "--namespace=sluiceway-fixtures",
            "--output=jsonpath={.items[0].metadata.labels.tier} {.items[1].data.zone}",
        ],
    );
    assert_eq!(
        live, "core dev-a",
        "the new tier deployed and the zone put back"
    );

    let after = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(after.code, Some(0), "{}", after.log);
    let body = bed.body(number);
    assert!(
        blocks(&body)["network:dev"].contains("state=\"in-sync\""),
        "{body}"
    );
    assert!(
        blocks(&body)["app:dev"].contains("state=\"pending\""),
        "{body}"
    );
}

/// Issue 24: a sharded scan previews Pulumi stacks as one runner does. The shard that
/// holds network:prod makes it in its backend (`createInBackend`), the shard that holds
/// network:dev checks its drift, and the join writes every row; no value leaves in a
/// partial result, a log or the body.
#[test]
fn a_sharded_scan_makes_a_stack_in_its_backend_and_checks_drift_in_its_shard() {
    let Some(Lab {
        _plane,
        bed,
        mut job,
        path,
        env,
        ..
    }) = Lab::start()
    else {
        return;
    };
    job.env.extend(env.iter().cloned());
    let sha = push(&bed, "a new tier", &["network/Pulumi.yaml"]);

    let planned = job.run_with(
        &bed,
        "schedule",
        &sha,
        &path,
        &[("mode", "plan"), ("shards", "2")],
    );
    assert_eq!(planned.code, Some(0), "{}", planned.log);
    let plan = planned.outputs["shard-plan"].clone();
    let document: serde_json::Value = serde_json::from_str(&plan).unwrap();
    assert_eq!(
        document["drift"],
        serde_json::json!(["network:dev", "network:prod"]),
        "the drift check is on for the folder's stacks: {plan}"
    );

    let mut texts = vec![planned.log.clone()];
    let mut partials = Vec::new();
    for index in ["1", "2"] {
        let ran = job.run_with(
            &bed,
            "schedule",
            &sha,
            &path,
            &[("mode", "shard"), ("shard", index), ("shard-plan", &plan)],
        );
        assert_eq!(ran.code, Some(0), "{}", ran.log);
        let partial = std::fs::read_to_string(&ran.outputs["partial-result"]).unwrap();
        texts.extend([ran.log, partial.clone()]);
        partials.push((index, partial));
    }
    let logs = texts.join("\n");
    assert_eq!(
        logs.matches("network:prod: made in its backend, which did not hold it.")
            .count(),
        1,
        "{logs}"
    );
    for (index, text) in &partials {
        let folder = job.file(&format!("partials/sluiceway-shard-{index}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join(format!("sluiceway-shard-{index}.json")), text).unwrap();
    }
    let joined = job.run_with(
        &bed,
        "schedule",
        &sha,
        &path,
        &[
            ("mode", "join"),
            ("shard-plan", &plan),
            ("partial-results", "partials"),
        ],
    );
    assert_eq!(joined.code, Some(0), "{}", joined.log);
    let body = bed.body(dashboard(&bed));
    let rows = blocks(&body);
    assert!(rows["network:dev"].contains("state=\"pending\""), "{body}");
    assert!(rows["network:dev"].contains("drift=\"true\""), "{body}");
    assert!(rows["network:dev"].contains("data.zone"), "{body}");
    assert!(rows["network:prod"].contains("state=\"pending\""), "{body}");
    assert!(rows["app:dev"].contains("state=\"pending\""), "{body}");
    for text in [&body, &joined.summary, &joined.log, &logs] {
        assert!(!text.contains("CANARY"), "a value left the adapter: {text}");
    }
}
