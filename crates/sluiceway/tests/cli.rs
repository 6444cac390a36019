//! The real binary, run as a person or a workflow runs it, on the bundled example and on
//! broken setups. Output a person reads is pinned with snapshots.

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn homelab() -> PathBuf {
    workspace_root().join("examples/homelab")
}

fn sluiceway(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).unwrap()
}

/// Copies a directory tree, for tests that let the binary write.
fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.unwrap();
        let target = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            fs::create_dir_all(&target).unwrap();
        } else {
            fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn check_reports_the_homelab_setup() {
    let out = sluiceway(&["check", "--repo", homelab().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    insta::assert_snapshot!(text(&out.stdout));
}

#[test]
fn check_json_is_one_document_with_every_stack() {
    let out = sluiceway(&["check", "--repo", homelab().to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = doc["setup"]["stacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            "charts/grafana",
            "k8s/cache",
            "k8s/web",
            "pulumi/dns:home",
            "pulumi/monitoring:home",
            "tofu/network",
            "tofu/storage:home",
            "tofu/storage:lab"
        ]
    );
    insta::assert_json_snapshot!(doc);
}

/// Every case under tests/broken is a repository whose setup is wrong in a named way.
#[test]
fn broken_setups_name_file_line_and_key_and_exit_1() {
    let cases = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/broken");
    let mut names: Vec<_> = fs::read_dir(&cases)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert!(names.len() >= 10);
    for name in names {
        let name = name.to_str().unwrap();
        let out = sluiceway(&["check", "--repo", cases.join(name).to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(
            out.stdout.is_empty(),
            "{name}: nothing on stdout when the setup is invalid"
        );
        let stderr = text(&out.stderr);
        assert!(!stderr.contains("panicked"), "{name}: {stderr}");
        insta::assert_snapshot!(format!("broken-{name}"), stderr);
    }
}

#[test]
fn broken_setups_in_json_say_invalid() {
    let case = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/broken/wrong-types");
    let out = sluiceway(&["check", "--repo", case.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["valid"], false);
    assert_eq!(doc["problems"][0]["key"], "dashboard.pin");
    assert_eq!(doc["problems"][0]["line"], 2);
}

#[test]
fn a_missing_directory_fails_and_a_usage_error_exits_2() {
    let out = sluiceway(&["check", "--repo", "/nonexistent/sluiceway-repo"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("could not be read"));
    assert_eq!(sluiceway(&["check", "--bogus"]).status.code(), Some(2));
    assert_eq!(sluiceway(&["deploy"]).status.code(), Some(2));
}

#[test]
fn help_teaches_the_commands() {
    let out = sluiceway(&["--help"]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(text(&out.stdout));
}

/// The committed schema that editors point at is the one the binary generates.
#[test]
fn the_committed_schema_is_current() {
    let out = sluiceway(&["schema"]);
    assert_eq!(out.status.code(), Some(0));
    let committed =
        fs::read_to_string(workspace_root().join("docs/sluiceway.schema.json")).unwrap();
    assert_eq!(
        text(&out.stdout),
        committed,
        "run `cargo run -- schema > docs/sluiceway.schema.json`"
    );
}

fn homelab_without_config() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_tree(&homelab(), dir.path());
    fs::remove_file(dir.path().join("sluiceway.yaml")).unwrap();
    fs::create_dir_all(dir.path().join(".git/refs/remotes/origin")).unwrap();
    fs::write(
        dir.path().join(".git/refs/remotes/origin/HEAD"),
        "ref: refs/remotes/origin/trunk\n",
    )
    .unwrap();
    dir
}

#[test]
fn init_writes_a_workflow_and_a_config_that_check_accepts() {
    let repo = homelab_without_config();
    let path = repo.path().to_str().unwrap();
    let out = sluiceway(&["init", "--repo", path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    insta::assert_snapshot!("init-output", text(&out.stdout));
    let config = fs::read_to_string(repo.path().join("sluiceway.yaml")).unwrap();
    insta::assert_snapshot!("init-config", config);
    let workflow =
        fs::read_to_string(repo.path().join(".github/workflows/deploy-dashboard.yml")).unwrap();
    insta::assert_snapshot!("init-workflow", workflow);
    assert!(workflow.contains("branches: [trunk]"));
    assert!(workflow.contains("queue: max") && !workflow.contains("cancel-in-progress"));

    let check = sluiceway(&["check", "--repo", path, "--json"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
}

/// The line (1-based) of the first line of `text` that is `wanted`.
fn line_of(text: &str, wanted: &str) -> usize {
    text.lines().position(|l| l == wanted).unwrap() + 1
}

/// What the reference's check says of a setup beside the config's own problems: a freeze
/// that is over, a deploying group that does not queue, a ref that is not a release, a
/// scanning workflow with nobody to resolve its ticks, and who decides deploys per job.
#[test]
fn check_names_an_ended_freeze_a_group_that_drops_deploys_a_moving_ref_and_who_decides() {
    let repo = homelab_without_config();
    let path = repo.path().to_str().unwrap();
    assert_eq!(sluiceway(&["init", "--repo", path]).status.code(), Some(0));
    let config_path = repo.path().join("sluiceway.yaml");
    let config = format!(
        "freezes:\n  - from: \"2020-12-20T18:00\"\n    to: \"2021-01-04T08:00\"\n  - from: \"2020-12-20T18:00\"\n    to: \"2999-01-04T08:00\"\n{}",
        fs::read_to_string(&config_path).unwrap()
    );
    fs::write(&config_path, &config).unwrap();
    let workflow_path = repo.path().join(".github/workflows/deploy-dashboard.yml");
    let workflow = fs::read_to_string(&workflow_path)
        .unwrap()
        .replace("  queue: max\n", "")
        .replace("sluiceway-rs@v0", "sluiceway-rs@main")
        .replace(
            "    runs-on: ubuntu-latest\n",
            "    runs-on: ubuntu-latest\n    environment: production\n",
        );
    fs::write(&workflow_path, &workflow).unwrap();
    // A second workflow scans and nobody resolves there.
    let scans = "on: [push, schedule, workflow_dispatch]\npermissions: read-all\nconcurrency: { group: scans }\njobs:\n  scan:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: sluiceway/sluiceway-rs@v0\n        with:\n          mode: scan\n";
    fs::write(repo.path().join(".github/workflows/scan.yml"), scans).unwrap();

    let out = sluiceway(&["check", "--repo", path]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "warnings only: {}",
        text(&out.stderr)
    );
    let warned = text(&out.stderr);
    let deploy = ".github/workflows/deploy-dashboard.yml";
    for expected in [
        "warning: sluiceway.yaml:3:5: the freeze from 2020-12-20T18:00 to 2021-01-04T08:00 is over, so it holds nothing any more; remove it".to_owned(),
        format!(
            "warning: {deploy}:{}: the job sluiceway's concurrency group does not queue",
            line_of(&workflow, "concurrency:")
        ),
        format!(
            "warning: {deploy}:{}: the step uses sluiceway/sluiceway-rs@main, which is not a release",
            line_of(&workflow, "      - uses: sluiceway/sluiceway-rs@main")
        ),
        "warning: .github/workflows/scan.yml:1: a job scans, but no job of this workflow resolves ticks".to_owned(),
    ] {
        assert!(warned.contains(&expected), "{expected}\n{warned}");
    }
    assert_eq!(
        warned.matches("is over").count(),
        1,
        "the freeze still ahead is kept: {warned}"
    );
    let report = text(&out.stdout);
    assert!(
        report.contains("  .github/workflows/deploy-dashboard.yml: job sluiceway (scan, resolve, apply, settle)\n    who may deploy: the environment production's required reviewers, if it has any (the check cannot read them); the tick rule decides who may ask\n")
            && report.contains("  .github/workflows/scan.yml: job scan (scan)\n")
            && !report.contains("job scan (scan)\n    who may deploy"),
        "{report}"
    );

    // Read only, the scanning workflow needs nobody to resolve; without an environment,
    // the tick rule decides.
    fs::write(
        &config_path,
        format!("dashboard:\n  readOnly: true\n{config}"),
    )
    .unwrap();
    fs::write(
        &workflow_path,
        workflow.replace("    environment: production\n", ""),
    )
    .unwrap();
    let out = sluiceway(&["check", "--repo", path]);
    assert!(
        !text(&out.stderr).contains("no job of this workflow resolves"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout)
            .contains("    who may deploy: the tick rule alone (the job names no environment)\n"),
        "{}",
        text(&out.stdout)
    );
    let json: serde_json::Value =
        serde_json::from_slice(&sluiceway(&["check", "--repo", path, "--json"]).stdout).unwrap();
    let decided: Vec<&serde_json::Value> = json["setup"]["workflows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| &j["deploysDecidedBy"])
        .collect();
    assert_eq!(
        decided,
        [&serde_json::json!("tick rule"), &serde_json::Value::Null]
    );
}

/// Decision 0065: the workflow init writes installs what the programs need before a
/// preview: Node at the repository's version with each lockfile's packages, `pulumi
/// install` for a Python program, and the repositories a chart's dependencies name.
#[test]
fn init_sets_up_node_pulumi_install_and_chart_repositories_from_the_files() {
    let repo = tempfile::tempdir().unwrap();
    for (path, text) in [
        (".git/HEAD", "ref: refs/heads/main\n"),
        (".nvmrc", "22\n"),
        ("apps/web/Pulumi.yaml", "name: web\nruntime: nodejs\n"),
        ("apps/web/Pulumi.prod.yaml", "config: {}\n"),
        ("apps/web/index.ts", "export {};\n"),
        ("apps/web/package-lock.json", "{}\n"),
        ("apps/data/Pulumi.yaml", "name: data\nruntime: python\n"),
        ("apps/data/Pulumi.prod.yaml", "config: {}\n"),
        ("apps/data/__main__.py", "\n"),
        (
            "charts/shop/Chart.yaml",
            "apiVersion: v2\nname: shop\nversion: 1.0.0\ndependencies:\n  - name: redis\n    version: 19.0.0\n    repository: https://charts.example.com/bitnami\n",
        ),
        ("charts/shop/values.yaml", "replicas: 1\n"),
    ] {
        let file = repo.path().join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, text).unwrap();
    }
    let path = repo.path().to_str().unwrap();
    let out = sluiceway(&["init", "--repo", path]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let workflow =
        fs::read_to_string(repo.path().join(".github/workflows/deploy-dashboard.yml")).unwrap();
    let steps = workflow
        .split("      - uses: actions/checkout@v4\n")
        .nth(1)
        .and_then(|rest| rest.split("      # Load the credentials").next())
        .unwrap();
    insta::assert_snapshot!("init-toolchain-steps", steps);
    let check = sluiceway(&["check", "--repo", path, "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
    assert_eq!(
        json["setup"]["workflowFindings"],
        serde_json::json!([]),
        "{json:#}"
    );
}

#[test]
fn init_never_overwrites_without_force_and_force_touches_only_the_workflow() {
    let repo = homelab_without_config();
    let path = repo.path().to_str().unwrap();
    assert_eq!(sluiceway(&["init", "--repo", path]).status.code(), Some(0));
    let workflow_path = repo.path().join(".github/workflows/deploy-dashboard.yml");
    fs::write(&workflow_path, "# mine\n").unwrap();
    fs::write(repo.path().join("sluiceway.yaml"), "stacks: []\n").unwrap();

    let again = sluiceway(&["init", "--repo", path]);
    assert_eq!(again.status.code(), Some(1));
    assert!(text(&again.stderr).contains("init --force"));
    assert_eq!(fs::read_to_string(&workflow_path).unwrap(), "# mine\n");

    let forced = sluiceway(&["init", "--repo", path, "--force"]);
    assert_eq!(forced.status.code(), Some(0), "{}", text(&forced.stderr));
    assert!(text(&forced.stdout).starts_with("Replaced .github/workflows/deploy-dashboard.yml"));
    assert_ne!(fs::read_to_string(&workflow_path).unwrap(), "# mine\n");
    assert_eq!(
        fs::read_to_string(repo.path().join("sluiceway.yaml")).unwrap(),
        "stacks: []\n"
    );
}

#[test]
fn init_refuses_without_git_or_with_a_broken_config_and_writes_nothing() {
    let plain = tempfile::tempdir().unwrap();
    let out = sluiceway(&["init", "--repo", plain.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("has no .git"));
    assert_eq!(fs::read_dir(plain.path()).unwrap().count(), 0);

    let repo = homelab_without_config();
    fs::write(
        repo.path().join("sluiceway.yaml"),
        "dashboard:\n  titel: x\n",
    )
    .unwrap();
    let out = sluiceway(&["init", "--repo", repo.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("sluiceway.yaml:2:3: dashboard.titel: unknown key"));
    assert!(!repo.path().join(".github").exists());
}

#[test]
fn init_stops_when_another_workflow_runs_sluiceway() {
    let repo = homelab_without_config();
    fs::create_dir_all(repo.path().join(".github/workflows")).unwrap();
    fs::write(
        repo.path().join(".github/workflows/old.yml"),
        "jobs:\n  x:\n    steps:\n      - uses: sluiceway/sluiceway@v0\n",
    )
    .unwrap();
    let out = sluiceway(&["init", "--repo", repo.path().to_str().unwrap(), "--force"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains(".github/workflows/old.yml already runs Sluiceway"));
    assert!(!repo.path().join("sluiceway.yaml").exists());
}

/// The pictures the dashboard links to are the ones the code draws.
#[test]
fn the_committed_pictures_are_current() {
    let dir = tempfile::tempdir().unwrap();
    let out = sluiceway(&["dashboard", "pictures", dir.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let committed = workspace_root().join("assets/header");
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut kept: Vec<String> = fs::read_dir(&committed)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    kept.sort();
    assert_eq!(
        names, kept,
        "run `cargo run -- dashboard pictures assets/header`"
    );
    for name in names {
        assert_eq!(
            fs::read(dir.path().join(&name)).unwrap(),
            fs::read(committed.join(&name)).unwrap(),
            "{name}"
        );
    }
}

fn reference_body() -> Option<PathBuf> {
    let path = workspace_root().join("../shared/conformance/dashboard/example-dashboard.md");
    assert!(
        path.is_file() || std::env::var_os("CI").is_none(),
        "CI must have the shared corpus beside the checkout (.ci/run checks it is there)"
    );
    path.is_file().then_some(path)
}

#[test]
fn dashboard_read_says_what_the_markers_say() {
    let Some(body) = reference_body() else { return };
    let out = sluiceway(&["dashboard", "read", body.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    insta::assert_snapshot!(text(&out.stdout));
    let json = sluiceway(&["dashboard", "read", "--json", body.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(doc["rows"].as_array().unwrap().len(), 16);
    assert_eq!(doc["rows"][2]["hash"], "1d0a03db50bc7070");
    assert_eq!(doc["rescan"]["ticked"], false);
    assert_eq!(doc["carried"], 0);
    assert_eq!(
        sluiceway(&["dashboard", "read", "/nonexistent/body.md"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn dashboard_html_is_one_page_with_the_body_rendered() {
    let Some(body) = reference_body() else { return };
    let out = sluiceway(&["dashboard", "html", body.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let page = text(&out.stdout);
    assert!(page.starts_with("<!doctype html>") && page.contains("<style>"));
    assert!(page.contains("<details><summary>8 stacks in sync</summary>"));
    assert!(
        page.contains("<input type=\"checkbox\""),
        "task lists are boxes"
    );
    assert!(
        page.contains("<table>") || !page.contains("|---|"),
        "tables render as tables"
    );
    assert!(
        !page.contains("<link ") && !page.contains("<script"),
        "nothing is loaded from elsewhere"
    );
    assert!(
        page.contains("src=\"data:image/svg+xml") && !page.contains("src=\"https://"),
        "the pictures the body names are embedded, wherever they are served from"
    );
}

#[test]
fn check_gives_a_pulumi_stack_the_phase_its_project_key_holds() {
    let repo = tempfile::tempdir().unwrap();
    for (path, text) in [
        (
            "sluiceway.yaml",
            "phases: [base, apps]\nstacks:\n  - path: dns\n    phase: { from: tier }\n  - path: web\n    phase: { from: tier }\n",
        ),
        (
            "dns/Pulumi.yaml",
            "name: dns\nruntime: yaml\nconfig:\n  tier:\n    type: string\n    default: base\n",
        ),
        ("dns/Pulumi.home.yaml", ""),
        ("web/Pulumi.yaml", "name: web\nruntime: yaml\ntier: apps\n"),
        ("web/Pulumi.home.yaml", ""),
    ] {
        let file = repo.path().join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, text).unwrap();
    }
    let out = sluiceway(&["check", "--repo", repo.path().to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        !text(&out.stderr).contains("does not act on it yet"),
        "{}",
        text(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let phases: Vec<(&str, &str)> = doc["setup"]["stacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["id"].as_str().unwrap(), s["phase"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(phases, [("dns:home", "base"), ("web:home", "apps")]);

    // A key that holds no phase is an error at the entry's key, and the run stops.
    fs::write(
        repo.path().join("web/Pulumi.yaml"),
        "name: web\nruntime: yaml\ntier: somewhere-else\n",
    )
    .unwrap();
    let out = sluiceway(&["check", "--repo", repo.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stderr) + &text(&out.stdout);
    assert!(
        said.contains("sluiceway.yaml:5:5: stacks[1].phase: the key `tier` of web/Pulumi.yaml does not hold one of the `phases`"),
        "{said}"
    );
    assert!(!said.contains("somewhere-else"), "{said}");
}

/// What `init` proposes for a repository and what `check --json` says of it.
fn init_and_check(layout: fn(&Path)) -> (String, String, serde_json::Value) {
    let repo = tempfile::tempdir().unwrap();
    layout(repo.path());
    fs::create_dir(repo.path().join(".git")).unwrap();
    let init = sluiceway(&["init", "--repo", repo.path().to_str().unwrap()]);
    assert_eq!(init.status.code(), Some(0), "{}", text(&init.stderr));
    let config = fs::read_to_string(repo.path().join("sluiceway.yaml")).unwrap();
    let check = sluiceway(&["check", "--json", "--repo", repo.path().to_str().unwrap()]);
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}{}",
        text(&check.stdout),
        text(&check.stderr)
    );
    (
        config,
        text(&init.stdout),
        serde_json::from_slice(&check.stdout).unwrap(),
    )
}

/// Issue 25: on a repository whose apps Flux deploys, `init` proposes none of them (a
/// tree with its own deployer), names every tree with the file that says so, proposes
/// a hand-applied kustomization once (its nested one with it, and no component the
/// apps include), and treats root modules as before; `check` names the same trees.
#[test]
fn init_on_a_flux_homelab_proposes_no_app_and_names_every_flux_tree() {
    let (config, said, check) = init_and_check(support::homelab::flux);
    let entries = config
        .lines()
        .filter(|l| l.starts_with("  - path: "))
        .count();
    let hints: Vec<&str> = config
        .lines()
        .filter(|l| l.starts_with("  #  - path: "))
        .collect();
    assert_eq!(entries, 2, "the root modules, as before: {config}");
    assert!(
        config.contains("  - path: terraform/authentik\n    tool: opentofu"),
        "{config}"
    );
    assert_eq!(
        hints,
        ["  #  - path: kubernetes/bootstrap"],
        "the parent alone: {config}"
    );
    let apps: usize = support::homelab::FLUX_APPS
        .iter()
        .map(|(_, a)| a.len())
        .sum();
    let trees = check["setup"]["gitops"].as_array().unwrap();
    assert_eq!(
        trees.len(),
        apps + 3,
        "each app, the cluster's apps, its meta and the cluster itself: {trees:?}"
    );
    assert!(trees.iter().all(|t| t["controller"] == "Flux"));
    assert!(
        trees
            .iter()
            .any(|t| t["path"] == "kubernetes/apps/media/plex/app"
                && t["file"] == "kubernetes/apps/media/plex/ks.yaml"),
        "{trees:?}"
    );
    assert!(said.contains("kubernetes/apps: deployed by Flux, as kubernetes/flux/cluster/ks.yaml says, so not proposed as a stack"), "{said}");
    assert!(
        config.contains(
            "#   kubernetes/apps/media/plex/app: Flux (kubernetes/apps/media/plex/ks.yaml)"
        ),
        "{config}"
    );
    let stacks: Vec<&str> = check["setup"]["stacks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        stacks,
        ["terraform/authentik", "terraform/cloudflare"],
        "nothing else"
    );
}

/// Issue 25: on a repository whose charts Argo CD deploys through an `ApplicationSet`
/// in the values of its own chart, `init` proposes no chart, names the three trees with
/// that values file, and proposes the hand-applied bootstrap; a chart declared inside a
/// tree anyway is said to have a second deployer.
#[test]
fn init_on_an_argo_cd_homelab_proposes_no_chart_and_names_every_argo_tree() {
    let (config, said, check) = init_and_check(support::homelab::argo);
    let entries = config
        .lines()
        .filter(|l| l.starts_with("  - path: "))
        .count();
    let hints: Vec<&str> = config
        .lines()
        .filter(|l| l.starts_with("  #  - path: "))
        .collect();
    assert_eq!(entries, 1, "the root module, as before: {config}");
    assert!(
        config.contains("  - path: external\n    tool: opentofu"),
        "{config}"
    );
    assert_eq!(hints, ["  #  - path: bootstrap/argocd"], "{config}");
    // Each tree once, naming both values files that list it (issue 44).
    let trees: Vec<(String, Vec<String>)> = check["setup"]["gitops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["path"].as_str().unwrap().to_owned(),
                serde_json::from_value(t["files"].clone()).unwrap(),
            )
        })
        .collect();
    let values = vec![
        "system/argocd/values-seed.yaml".to_owned(),
        "system/argocd/values.yaml".to_owned(),
    ];
    assert_eq!(
        trees,
        [
            ("apps/*".to_owned(), values.clone()),
            ("platform/*".to_owned(), values.clone()),
            ("system/*".to_owned(), values.clone()),
        ]
    );
    assert!(
        said.contains("apps/*: deployed by Argo CD, as system/argocd/values-seed.yaml and system/argocd/values.yaml say, so not proposed"),
        "{said}"
    );
    assert_eq!(
        said.matches("apps/*: deployed by").count(),
        1,
        "one line per tree: {said}"
    );
    assert_eq!(
        config.matches("#   apps/*: Argo CD").count(),
        1,
        "one line per tree: {config}"
    );

    // Declared anyway: check says who else deploys it.
    let repo = tempfile::tempdir().unwrap();
    support::homelab::argo(repo.path());
    fs::write(
        repo.path().join("sluiceway.yaml"),
        "stacks:\n  - path: apps/jellyfin\n    tool: helm\n    options:\n      release: jellyfin\n      namespace: jellyfin\n      chart: .\n",
    )
    .unwrap();
    let out = sluiceway(&["check", "--repo", repo.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("also deployed by Argo CD, as system/argocd/values-seed.yaml and system/argocd/values.yaml say"),
        "{}",
        text(&out.stdout)
    );
}

/// Issue 44: a Kustomize Component is only ever included by another kustomization
/// (or a Flux `Kustomization`'s `components`), so a kubectl stack declared on one is
/// refused at its entry, naming the component's file and the line that says so.
#[test]
fn check_refuses_a_kubectl_stack_declared_on_a_kustomize_component() {
    let repo = tempfile::tempdir().unwrap();
    support::homelab::flux(repo.path());
    fs::write(
        repo.path().join("sluiceway.yaml"),
        "stacks:\n  - path: kubernetes/bootstrap\n    tool: kubectl\n  - path: kubernetes/components/zeroscaler\n    tool: kubectl\n",
    )
    .unwrap();
    let out = sluiceway(&["check", "--repo", repo.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        said.contains("sluiceway.yaml:4:")
            && said.contains("stacks[1].path")
            && said.contains("kubernetes/components/zeroscaler/kustomization.yaml (line 4) is a Kustomize Component, which kubectl cannot build alone"),
        "{said}"
    );
    assert!(
        !said.contains("stacks[0]"),
        "the bootstrap is a kustomization of its own: {said}"
    );
}

/// Issue 44: where the workflow sets up an exact tofu version, `check` holds each root
/// module's `required_version` to it and warns at the step's version line.
#[test]
fn check_warns_when_the_workflows_tofu_does_not_meet_a_modules_required_version() {
    let repo = tempfile::tempdir().unwrap();
    support::homelab::argo(repo.path());
    let workflow = "on:\n  push: { branches: [main] }\njobs:\n  sluiceway:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - uses: opentofu/setup-opentofu@v1\n        with:\n          tofu_version: 1.6.2\n          tofu_wrapper: false\n      - uses: sluiceway/sluiceway-rs@v0\n";
    fs::create_dir_all(repo.path().join(".github/workflows")).unwrap();
    fs::write(repo.path().join(".github/workflows/deploy.yml"), workflow).unwrap();
    fs::write(
        repo.path().join("sluiceway.yaml"),
        "stacks:\n  - path: external\n    tool: opentofu\n",
    )
    .unwrap();
    let out = sluiceway(&["check", "--repo", repo.path().to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a warning, not a refusal: {}",
        text(&out.stderr)
    );
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        said.contains(".github/workflows/deploy.yml:10")
            && said.contains("this step sets up tofu 1.6.2, and external requires tofu ~> 1.7 (external/versions.tf line 2), so its previews would fail"),
        "{said}"
    );
    // A version that meets it says nothing.
    fs::write(
        repo.path().join(".github/workflows/deploy.yml"),
        workflow.replace("1.6.2", "1.7.4"),
    )
    .unwrap();
    let out = sluiceway(&["check", "--repo", repo.path().to_str().unwrap()]);
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!said.contains("requires tofu"), "{said}");
}

/// Decision 0052's bad input: a value-list entry no adapter writes is a warning at its
/// line and key; one that would show a credential's every value is refused by name.
#[test]
fn check_warns_about_a_value_list_path_no_adapter_writes_and_refuses_a_star_under_a_secret() {
    let repo = tempfile::tempdir().unwrap();
    let write = |config: &str| {
        fs::write(repo.path().join("sluiceway.yaml"), config).unwrap();
        sluiceway(&["check", "--repo", repo.path().to_str().unwrap()])
    };
    let out = write("dashboard:\n  showValues:\n    - spec.replicas\n    - spec..image\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    insta::assert_snapshot!(text(&out.stderr));
    let out = write("dashboard:\n  showValues:\n    - db.secrets.*\n");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    insta::assert_snapshot!(format!("{}{}", text(&out.stdout), text(&out.stderr)));
}

#[test]
fn check_warns_when_a_split_workflow_leaves_a_merges_record_to_nobody() {
    let repo = tempfile::tempdir().unwrap();
    let scan_job = "jobs:\n  scan:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: sluiceway/sluiceway-rs@v0\n        with:\n          mode: scan\n";
    for (path, text) in [
        (
            "sluiceway.yaml",
            "stacks:\n  - path: k8s\n    tool: kubectl\n    deploy: on-merge\n",
        ),
        ("k8s/cm.yaml", "kind: ConfigMap\n"),
        (".github/workflows/deploy.yml", scan_job),
    ] {
        let file = repo.path().join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, text).unwrap();
    }
    let out = sluiceway(&["check", "--repo", repo.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("warning: .github/workflows/deploy.yml: the job scan scans with `mode: scan`, and no job reads its `matrix` output, so k8s would open a record on merge that nothing deploys"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("deploys on merge"),
        "{}",
        text(&out.stdout)
    );

    // An apply job over the scan's matrix answers it.
    fs::write(
        repo.path().join(".github/workflows/deploy.yml"),
        format!("{scan_job}  apply:\n    needs: scan\n    strategy:\n      matrix:\n        include: ${{{{ fromJSON(needs.scan.outputs.matrix) }}}}\n    steps:\n      - uses: sluiceway/sluiceway-rs@v0\n        with:\n          mode: apply\n"),
    )
    .unwrap();
    let out = sluiceway(&["check", "--repo", repo.path().to_str().unwrap()]);
    assert!(
        !text(&out.stderr).contains("no job reads its `matrix` output"),
        "{}",
        text(&out.stderr)
    );
}

/// The action's check step, as a job runs it: no token, no GitHub, no tool.
fn check_step(repo: &Path, summary: &Path) -> Output {
    step_on(repo, summary, "check", "pull_request")
}

/// The action's step in `mode` on `event`, with no token and no tool on PATH.
fn step_on(repo: &Path, summary: &Path, mode: &str, event: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_sluiceway"))
        .arg("run")
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_EVENT_NAME", event)
        .env("GITHUB_REPOSITORY", "octo/infra")
        .env("GITHUB_WORKSPACE", repo)
        .env("GITHUB_STEP_SUMMARY", summary)
        .env("INPUT_MODE", mode)
        .output()
        .unwrap()
}

/// Decisions 0042 and 0061: `init` writes a workflow the check finds nothing to say
/// about, `init --check` adds the check workflow, and the action's check mode reports
/// into the job summary, puts each config problem and workflow finding on its file and
/// line, names the credentials each stack needs, and is red only on a config problem.
#[test]
fn the_actions_check_mode_annotates_problems_and_findings_and_init_adds_it() {
    let repo = homelab_without_config();
    let path = repo.path().to_str().unwrap();
    assert_eq!(sluiceway(&["init", "--repo", path]).status.code(), Some(0));
    let added = sluiceway(&["init", "--check", "--repo", path]);
    assert_eq!(added.status.code(), Some(0), "{}", text(&added.stderr));
    assert!(text(&added.stdout).starts_with("Wrote .github/workflows/sluiceway-check.yml"));
    assert_eq!(
        sluiceway(&["init", "--check", "--repo", path])
            .status
            .code(),
        Some(1),
        "never overwritten without --force"
    );
    let json: serde_json::Value =
        serde_json::from_slice(&sluiceway(&["check", "--repo", path, "--json"]).stdout).unwrap();
    assert_eq!(
        json["setup"]["workflowFindings"],
        serde_json::json!([]),
        "{json:#}"
    );
    let jobs: Vec<String> = json["setup"]["workflows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            format!(
                "{} {} {}",
                j["file"].as_str().unwrap(),
                j["job"].as_str().unwrap(),
                j["modes"]
            )
        })
        .collect();
    assert_eq!(
        jobs,
        [
            r#".github/workflows/deploy-dashboard.yml sluiceway ["scan","resolve","apply","settle"]"#,
            r#".github/workflows/sluiceway-check.yml check ["check"]"#,
        ]
    );

    let summary = repo.path().join("summary.md");
    let ran = check_step(repo.path(), &summary);
    assert_eq!(ran.status.code(), Some(0), "{}", text(&ran.stderr));
    let said = fs::read_to_string(&summary).unwrap();
    assert!(
        said.starts_with("## Sluiceway check\n\nThe setup is understood."),
        "{said}"
    );
    assert!(
        said.contains("Credentials each stack&#39;s tool needs")
            || said.contains("Credentials each stack's tool needs"),
        "{said}"
    );
    assert!(said.contains("KUBECONFIG"), "{said}");
    assert!(
        !text(&ran.stderr).contains("::error"),
        "{}",
        text(&ran.stderr)
    );

    // The auto mode checks a pull request and a merge queue's group the same way, with
    // no token to read: their code is not merged, so nothing else runs.
    for event in ["pull_request", "merge_group"] {
        fs::write(&summary, "").unwrap();
        let ran = step_on(repo.path(), &summary, "", event);
        assert_eq!(ran.status.code(), Some(0), "{event}: {}", text(&ran.stderr));
        assert_eq!(fs::read_to_string(&summary).unwrap(), said, "{event}");
    }

    // A workflow that starts on every issue event, and a config problem.
    let workflow = repo.path().join(".github/workflows/deploy-dashboard.yml");
    let unfiltered = fs::read_to_string(&workflow)
        .unwrap()
        .replace("  issues:\n    types: [edited]\n", "  issues:\n");
    fs::write(&workflow, &unfiltered).unwrap();
    let line = unfiltered.lines().position(|l| l == "  issues:").unwrap() + 1;
    let config = repo.path().join("sluiceway.yaml");
    let text_before = fs::read_to_string(&config).unwrap();
    fs::write(&summary, "").unwrap();
    let ran = check_step(repo.path(), &summary);
    assert_eq!(
        ran.status.code(),
        Some(0),
        "a workflow finding is a warning"
    );
    assert!(
        text(&ran.stderr).contains(&format!(
            "::warning file=.github/workflows/deploy-dashboard.yml,line={line},col=1::"
        )),
        "{}",
        text(&ran.stderr)
    );
    fs::write(
        &config,
        format!("dashboard:\n  pin: sometimes\n{text_before}"),
    )
    .unwrap();
    fs::write(&summary, "").unwrap();
    let ran = check_step(repo.path(), &summary);
    assert_eq!(ran.status.code(), Some(1));
    let log = text(&ran.stderr);
    assert!(
        log.contains(
            "::error file=sluiceway.yaml,line=2,col=3::sluiceway.yaml:2:3: dashboard.pin:"
        ),
        "{log}"
    );
    let said = fs::read_to_string(&summary).unwrap();
    assert!(
        said.contains("**The setup is not valid.**") && said.contains("dashboard.pin"),
        "{said}"
    );
}

/// Decision 0064: with `mergeAndDeploy.authors` set, a Renovate file that is not JSON5
/// is named by `check` at its line, as the reason a tick would merge nothing.
#[test]
fn check_names_a_renovate_file_that_is_not_json5_at_its_line() {
    let repo = tempfile::tempdir().unwrap();
    for (path, text) in [
        (
            "sluiceway.yaml",
            "mergeAndDeploy:\n  authors: [\"renovate[bot]\"]\nstacks:\n  - path: k8s\n    tool: kubectl\n",
        ),
        ("k8s/cm.yaml", "kind: ConfigMap\n"),
        (
            "renovate.json",
            "{\n  \"automergeStrategy\": \"squash\"\n  \"extends\": []\n}\n",
        ),
    ] {
        let file = repo.path().join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, text).unwrap();
    }
    let out = sluiceway(&["check", "--repo", repo.path().to_str().unwrap()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "a warning: {}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stderr).contains(
            "warning: renovate.json:3:3: not JSON5, so the merge method it asks for cannot be read"
        ),
        "{}",
        text(&out.stderr)
    );
}
