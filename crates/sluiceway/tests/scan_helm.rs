//! Helm releases end to end with the real `helm` (v3.19.0 and v4.3.1, no plugin) and `kubectl`
//! against the real local control plane (`.ci/run` installs and builds them): one
//! release deployed by hand and then changed in the checkout and in the cluster, one
//! never installed; the real `sluiceway` binary, run as a GitHub Actions job runs it
//! against the emulator, builds the chart's dependencies, shows both pending with
//! their paths and the drift, deploys the ticked one, and then the drifted one with its
//! drift put back. Without the tools the test says so and passes, but not in CI.

#![allow(
    clippy::print_stderr,
    reason = "a test that cannot run here says so in the test log"
)]

mod support;

use std::path::Path;
use std::process::Command;

use sluiceway_fixtures::control_plane::{ControlPlane, cached_pair, cached_tool};
use support::Bed;
use support::job::*;

const CONFIG: &str = "stacks:
  - path: shop
    tool: helm
    drift:
      enabled: true
    inputs: [charts/shop/**]
    options:
      release: shop
      namespace: sluiceway-shop
      chart: ../charts/shop
      valuesFiles: [values.yaml]
  - path: queue
    tool: helm
    inputs: [charts/**]
    options:
      release: queue
      namespace: sluiceway-queue
      chart: ../charts/queue
      valuesFiles: [values.yaml, overrides.yaml]
      createNamespace: true
";

fn run(binary: &Path, kubeconfig: &Path, cwd: &Path, args: &[&str]) -> String {
    let out = Command::new(binary)
        .args(args)
        .current_dir(cwd)
        .env("KUBECONFIG", kubeconfig)
        .env("HOME", cwd)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} {args:?}: {}",
        binary.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The whole story with one helm and the kubectl of its layer, on that kubectl's server.
fn scan_tick_and_repair(kubectl_version: &str, helm_version: &str) {
    let (Some((kubectl, binaries)), Some(helm)) = (
        cached_pair(kubectl_version),
        cached_tool("helm", helm_version),
    ) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must build the control plane and install kubectl and helm"
        );
        eprintln!(
            "notice: no control plane, kubectl {kubectl_version} or helm {helm_version} here; the Helm scan was not run"
        );
        return;
    };
    let plane = ControlPlane::start(&binaries, &kubectl).unwrap();
    let kubeconfig = plane.kubeconfig().to_owned();

    let bed = Bed::new();
    let mut job = Job::of("examples/helm-lab");
    std::fs::write(job.file("sluiceway.yaml"), CONFIG).unwrap();
    let shop = job.file("shop");
    run(
        &kubectl,
        &kubeconfig,
        &shop,
        &["create", "namespace", "sluiceway-shop"],
    );
    run(
        &helm,
        &kubeconfig,
        &shop,
        &[
            "upgrade",
            "shop",
            "../charts/shop",
            "--namespace=sluiceway-shop",
            "--install",
            "--reset-values",
            "--hide-notes",
            "--values=values.yaml",
        ],
    );
    // A new theme in the code, and the greeting changed in the cluster by hand.
    let values = job.file("shop/values.yaml");
    let text = std::fs::read_to_string(&values).unwrap();
    std::fs::write(&values, text.replace("theme: light", "theme: dark")).unwrap();
    run(
        &kubectl,
        &kubeconfig,
        &shop,
        &[
            "patch",
            "configmap",
            "shop-settings",
            "--namespace=sluiceway-shop",
            "--type=merge",
            r#"--patch={"data":{"motd":"CANARY-VALUE by hand"}}"#,
        ],
    );

    let sha = push(&bed, "a darker shop", &["shop/values.yaml"]);
    let path = format!(
        "{}:{}:/usr/bin:/bin",
        helm.parent().unwrap().display(),
        kubectl.parent().unwrap().display()
    );
    job.env
        .push(("KUBECONFIG".into(), kubeconfig.display().to_string()));
    let ran = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(
        ran.log.contains(&format!("Using helm {helm_version}.")),
        "{}",
        ran.log
    );
    let number = dashboard(&bed);
    let body = bed.body(number);
    let rows = blocks(&body);
    assert!(rows["shop"].contains("state=\"pending\""), "{body}");
    assert!(rows["shop"].contains("shop-settings"), "{body}");
    assert!(rows["shop"].contains("ui.theme"), "{body}");
    assert!(rows["shop"].contains("drift=\"true\""), "{body}");
    assert!(
        rows["shop"].contains("motd"),
        "the drifted greeting is on the row: {body}"
    );
    assert!(rows["queue"].contains("state=\"pending\""), "{body}");
    for object in [
        "queue-consumers",
        "queue-settings",
        "queue-credentials",
        "queue-front",
    ] {
        assert!(rows["queue"].contains(object), "{object}: {body}");
    }
    for text in [&body, &ran.summary, &ran.result_text, &ran.log] {
        assert!(!text.contains("CANARY"), "a value left the adapter: {text}");
    }

    tick(&bed, number, "alice", "queue");
    job.payload = Some(edit_event(&bed, number));
    let ran = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    job.payload = None;
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(ran.log.contains("queue: deployed."), "{}", ran.log);
    let listed = run(
        &helm,
        &kubeconfig,
        &job.file("queue"),
        &["list", "--namespace=sluiceway-queue", "--output=json"],
    );
    assert!(listed.contains("\"status\":\"deployed\""), "{listed}");
    assert!(!ran.log.contains("CANARY"), "{}", ran.log);

    let later = job.run_with(&bed, "push", &sha, &path, &[]);
    assert_eq!(later.code, Some(0), "{}", later.log);
    let body = bed.body(number);
    assert!(
        blocks(&body)["queue"].contains("state=\"in-sync\""),
        "{body}"
    );

    // A tick on the drifted shop deploys the new theme and puts the greeting back: apply
    // checks the drift again, so its fresh hash is the ticked one.
    tick(&bed, number, "alice", "shop");
    job.payload = Some(edit_event(&bed, number));
    let ran = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    job.payload = None;
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    assert!(ran.log.contains("shop: deployed."), "{}", ran.log);
    let live = run(
        &kubectl,
        &kubeconfig,
        &shop,
        &[
            "get",
            "configmap",
            "shop-settings",
            "--namespace=sluiceway-shop",
            "--output=jsonpath={.data.motd} {.data.ui\\.theme}",
        ],
    );
    assert_eq!(live, "CANARY-VALUE open dark");
    let after = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(after.code, Some(0), "{}", after.log);
    let body = bed.body(number);
    assert!(
        blocks(&body)["shop"].contains("state=\"in-sync\""),
        "{body}"
    );
    // The trail says the deploy put back what changed outside the code.
    let trail = body
        .split("## Recently deployed")
        .nth(1)
        .expect("the trail");
    assert!(
        trail
            .lines()
            .any(|l| l.contains("shop · drift fixed · alice")),
        "{trail}"
    );
}

#[test]
fn helm_3_previews_drift_checks_deploys_and_repairs_without_the_plugin() {
    scan_tick_and_repair("v1.34.5", "v3.19.0");
}

/// Helm 4 applies the release server-side, so the repair of a field someone else took
/// over (the greeting `kubectl patch` changed) needs `--force-conflicts`.
#[test]
fn helm_4_previews_drift_checks_deploys_and_repairs_without_the_plugin() {
    scan_tick_and_repair("v1.37.1", "v4.3.1");
}

/// A chart of our own, at one version, that makes one ConfigMap named for its edition.
fn catalog_chart(at: &Path, version: &str, edition: &str) {
    std::fs::create_dir_all(at.join("templates")).unwrap();
    std::fs::write(
        at.join("Chart.yaml"),
        format!("apiVersion: v2\nname: catalog\ntype: application\nversion: {version}\n"),
    )
    .unwrap();
    std::fs::write(
        at.join("templates/settings.yaml"),
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: catalog-{edition}\ndata:\n  edition: {edition}\n"
        ),
    )
    .unwrap();
}

/// A chart repository served over HTTP from a folder, as long as it lives.
struct Served(std::process::Child);

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn serve(folder: &Path) -> (Served, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new("python3")
        .args([
            "-m",
            "http.server",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
        ])
        .current_dir(folder)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let served = Served(child);
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return (served, format!("http://127.0.0.1:{port}"));
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the chart repository did not start serving");
}

#[test]
fn a_chart_from_a_repository_is_previewed_and_deployed_at_the_version_its_stack_pins() {
    let (Some((kubectl, binaries)), Some(helm)) =
        (cached_pair("v1.34.5"), cached_tool("helm", "v3.19.0"))
    else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must build the control plane and install kubectl and helm"
        );
        eprintln!("notice: no control plane, kubectl or helm here; the chart version was not run");
        return;
    };
    let plane = ControlPlane::start(&binaries, &kubectl).unwrap();
    let kubeconfig = plane.kubeconfig().to_owned();

    // A repository holding the chart at 0.1.0 and at 0.2.0, the newest.
    let charts = tempfile::tempdir().unwrap();
    let served = charts.path().join("served");
    std::fs::create_dir(&served).unwrap();
    for (version, edition) in [("0.1.0", "first"), ("0.2.0", "second")] {
        let source = charts.path().join(edition);
        catalog_chart(&source, version, edition);
        run(
            &helm,
            &kubeconfig,
            charts.path(),
            &[
                "package",
                source.to_str().unwrap(),
                "--destination",
                "served",
            ],
        );
    }
    let (_server, url) = serve(&served);
    run(
        &helm,
        &kubeconfig,
        &served,
        &["repo", "index", ".", "--url", &url],
    );

    let mut job = Job::new();
    job.checkout = tempfile::tempdir().unwrap();
    std::fs::write(
        job.file("sluiceway.yaml"),
        "stacks:\n  - path: catalog\n    tool: helm\n    options:\n      release: catalog\n      namespace: sluiceway-catalog\n      chart: lab/catalog\n      version: 0.1.0\n      createNamespace: true\n",
    )
    .unwrap();
    std::fs::create_dir(job.file("catalog")).unwrap();
    std::fs::write(
        job.file("catalog/README.md"),
        "The catalog, from the lab's repository.\n",
    )
    .unwrap();
    // The workflow's own step adds the repository, as `helm repo add` in a job would.
    let helm_home = tempfile::tempdir().unwrap();
    let helm_env = [
        (
            "HELM_REPOSITORY_CONFIG",
            helm_home.path().join("repositories.yaml"),
        ),
        ("HELM_REPOSITORY_CACHE", helm_home.path().join("cache")),
    ];
    let added = Command::new(&helm)
        .args(["repo", "add", "lab", &url])
        .envs(helm_env.iter().map(|(k, v)| (k, v)))
        .env("HOME", helm_home.path())
        .output()
        .unwrap();
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    for (name, value) in &helm_env {
        job.env
            .push(((*name).to_owned(), value.display().to_string()));
    }
    job.env
        .push(("KUBECONFIG".into(), kubeconfig.display().to_string()));
    let path = format!(
        "{}:{}:/usr/bin:/bin",
        helm.parent().unwrap().display(),
        kubectl.parent().unwrap().display()
    );

    let bed = Bed::new();
    let sha = push(
        &bed,
        "the catalog",
        &["sluiceway.yaml", "catalog/README.md"],
    );
    let ran = job.run_with(&bed, "schedule", &sha, &path, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.log);
    let number = dashboard(&bed);
    let row = blocks(&bed.body(number))["catalog"].clone();
    assert!(row.contains("state=\"pending\""), "{row}");
    assert!(
        row.contains("catalog-first"),
        "the pinned version's object: {row}"
    );
    assert!(!row.contains("catalog-second"), "not the newest's: {row}");

    tick(&bed, number, "alice", "catalog");
    job.payload = Some(edit_event(&bed, number));
    let ran = job.run_with(&bed, "issues", &sha, &path, &[("mode", "")]);
    job.payload = None;
    assert_eq!(ran.outputs["outcome"], "deployed", "{}", ran.log);
    let listed = run(
        &helm,
        &kubeconfig,
        charts.path(),
        &["list", "--namespace=sluiceway-catalog", "--output=json"],
    );
    assert!(listed.contains("\"chart\":\"catalog-0.1.0\""), "{listed}");
    drop(plane);
}
