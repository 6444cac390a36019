//! Discovery over in-memory repositories: the rules of root-module discovery in their
//! order, ids, entries, ignore, and dependency errors.

use sluiceway_core::config::{self, Config};
use sluiceway_core::discovery::{Discovery, Verdict, discover};
use sluiceway_core::repo::MemoryRepo;
use sluiceway_core::stack::{Tool, ToolOptions};

const BACKEND: &str = "terraform {\n  backend \"s3\" {}\n}\n";
const OPENTOFU_LOCK: &str =
    "provider \"registry.opentofu.org/hashicorp/null\" {\n  version = \"3.2.2\"\n}\n";
const TERRAFORM_LOCK: &str =
    "provider \"registry.terraform.io/hashicorp/null\" {\n  version = \"3.2.2\"\n}\n";

fn run(repo: &MemoryRepo) -> Result<Discovery, Vec<config::ConfigProblem>> {
    let config = match repo.contents.get("sluiceway.yaml") {
        Some(text) => config::load("sluiceway.yaml", text).unwrap(),
        None => Config::default(),
    };
    discover(&config, &repo.files(), repo)
}

fn verdict(found: &Discovery, dir: &str) -> Verdict {
    found.root_modules[dir].clone()
}

fn left_out(found: &Discovery, dir: &str) -> String {
    match verdict(found, dir) {
        Verdict::LeftOut(why) => why,
        other => panic!("{dir} was not left out: {other:?}"),
    }
}

#[test]
fn root_module_rules_apply_in_order() {
    let repo = MemoryRepo::default()
        .with(
            "live/main.tf",
            &format!("{BACKEND}module \"net\" {{\n  source = \"../shared/net\"\n}}\n"),
        )
        .with("live/.terraform.lock.hcl", OPENTOFU_LOCK)
        .with("shared/net/main.tf", BACKEND)
        .with("shared/net/.terraform.lock.hcl", OPENTOFU_LOCK)
        .with("modules/vpc/main.tf", BACKEND)
        .with(
            "nobackend/main.tf",
            "resource \"terraform_data\" \"x\" {}\n",
        )
        .with(
            "workspaces/main.tf",
            &format!("{BACKEND}locals {{\n  env = terraform.workspace\n}}\n"),
        )
        .with(
            "commented/main.tf",
            &format!("{BACKEND}# terraform.workspace is not read here\n"),
        )
        .with("commented/main.tofu", "")
        .with("choosing/main.tf", BACKEND)
        .with("choosing/prod.tfvars", "")
        .with("choosing/.terraform.lock.hcl", OPENTOFU_LOCK)
        .with("envdir/main.tf", BACKEND)
        .with("envdir/env/prod.tfbackend", "")
        .with("untold/main.tf", BACKEND)
        .with("both/main.tofu", BACKEND)
        .with("both/.terraform.lock.hcl", TERRAFORM_LOCK)
        .with(
            "tf/main.tf.json",
            r#"{"terraform": [{"backend": {"gcs": {}}}]}"#,
        )
        .with("tf/.terraform.lock.hcl", TERRAFORM_LOCK)
        .with(".terraform/modules/x/main.tf", BACKEND);
    let found = run(&repo).unwrap();
    assert_eq!(
        verdict(&found, "live"),
        Verdict::Found {
            tool: Tool::OpenTofu,
            evidence: "backend \"s3\"; its lock file names the OpenTofu registry".into()
        }
    );
    assert_eq!(
        left_out(&found, "shared/net"),
        "called as a local module from live"
    );
    assert_eq!(
        left_out(&found, "modules/vpc"),
        "it lies under a directory named modules"
    );
    assert_eq!(
        left_out(&found, "nobackend"),
        "it has no backend or cloud block"
    );
    assert_eq!(
        left_out(&found, "workspaces"),
        "it reads its workspace, so it is deployed in more than one"
    );
    assert!(matches!(
        verdict(&found, "commented"),
        Verdict::Found {
            tool: Tool::OpenTofu,
            ..
        }
    ));
    assert_eq!(
        left_out(&found, "choosing"),
        "prod.tfvars suggests it is deployed with a choice of settings"
    );
    assert_eq!(
        left_out(&found, "envdir"),
        "envdir/env/ suggests it is deployed with a choice of settings"
    );
    assert_eq!(
        left_out(&found, "untold"),
        "nothing names its tool (no .terraform.lock.hcl, no .tofu files)"
    );
    assert_eq!(
        left_out(&found, "both"),
        "its files name both OpenTofu and Terraform"
    );
    assert!(matches!(
        verdict(&found, "tf"),
        Verdict::Found {
            tool: Tool::Terraform,
            ..
        }
    ));
    assert!(!found.root_modules.contains_key(".terraform/modules/x"));
    let ids: Vec<&str> = found.stacks.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["commented", "live", "tf"]);
}

#[test]
fn terragrunt_turns_root_module_discovery_off() {
    let repo = MemoryRepo::default()
        .with("live/main.tf", BACKEND)
        .with("live/main.tofu", "")
        .with("units/app/terragrunt.hcl", "");
    let found = run(&repo).unwrap();
    assert!(found.stacks.is_empty());
    assert!(
        found
            .root_modules_off
            .unwrap()
            .contains("units/app/terragrunt.hcl")
    );
}

#[test]
fn root_module_discovery_can_be_switched_off_or_overridden() {
    let base = MemoryRepo::default().with("live/main.tofu", BACKEND);
    assert_eq!(run(&base).unwrap().stacks.len(), 1);
    let off = base
        .clone()
        .with("sluiceway.yaml", "discovery:\n  rootModules: false\n");
    assert!(run(&off).unwrap().stacks.is_empty());
    let declared = base.with(
        "sluiceway.yaml",
        "stacks:\n  - path: live\n    tool: opentofu\n    options: { workspace: blue }\n",
    );
    let found = run(&declared).unwrap();
    assert_eq!(verdict(&found, "live"), Verdict::Declared);
    assert_eq!(found.stacks.len(), 1);
    assert!(
        matches!(&found.stacks[0].options, ToolOptions::RootModule { workspace: Some(w), .. } if w == "blue")
    );
}

#[test]
fn named_entries_win_key_by_key_and_inputs_add_up() {
    let repo = MemoryRepo::default()
        .with("app/Pulumi.yaml", "name: app\n")
        .with("app/Pulumi.dev.yaml", "")
        .with("app/Pulumi.prod.yaml", "")
        .with(
            "sluiceway.yaml",
            "tickers: maintain\nstacks:\n  - path: app\n    environment: shared\n    inputs: ['lib/**']\n  - path: app\n    name: prod\n    environment: production\n    inputs: ['prod/**']\n    tickers: [Alice]\n",
        );
    let found = run(&repo).unwrap();
    let [dev, prod] = &found.stacks[..] else {
        panic!()
    };
    assert_eq!(dev.settings.environment, "shared");
    assert_eq!(dev.settings.inputs, ["lib/**"]);
    assert_eq!(
        dev.settings.tick_rule.to_string(),
        "anyone with maintain access or more"
    );
    assert_eq!(prod.settings.environment, "production");
    assert_eq!(prod.settings.inputs, ["lib/**", "prod/**"]);
    assert_eq!(prod.settings.tick_rule.to_string(), "only alice");
}

#[test]
fn an_id_override_is_seen_by_ignore_and_dependencies() {
    let repo = MemoryRepo::default()
        .with("a/cm.yaml", "kind: ConfigMap\n")
        .with("b/cm.yaml", "kind: ConfigMap\n")
        .with(
            "sluiceway.yaml",
            "ignore: ['old-*']\nstacks:\n  - path: a\n    tool: kubectl\n    id: network@home\n  - path: b\n    tool: kubectl\n    dependsOn: [network@home]\n",
        );
    let found = run(&repo).unwrap();
    let ids: Vec<&str> = found.stacks.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["b", "network@home"]);
    assert_eq!(found.idle_ignores.len(), 1);
    assert_eq!(found.idle_ignores[0].glob, "old-*");
}

#[test]
fn an_idle_ignore_glob_is_offered_a_wider_form() {
    let repo = MemoryRepo::default()
        .with("app/Pulumi.yaml", "name: app\n")
        .with("app/Pulumi.dev.yaml", "")
        .with("sluiceway.yaml", "ignore: [app]\n");
    let found = run(&repo).unwrap();
    assert_eq!(found.idle_ignores[0].suggestion.as_deref(), Some("app:*"));
}

#[test]
fn phases_are_checked_for_cycles_as_nodes() {
    let repo = MemoryRepo::default()
        .with("net/cm.yaml", "kind: ConfigMap\n")
        .with("app/cm.yaml", "kind: ConfigMap\n")
        .with(
            "sluiceway.yaml",
            "phases: [base, apps]\nstacks:\n  - path: net\n    tool: kubectl\n    phase: base\n    dependsOn: [app]\n  - path: app\n    tool: kubectl\n    phase: apps\n",
        );
    let problems = run(&repo).unwrap_err();
    assert_eq!(problems.len(), 1);
    assert_eq!(
        problems[0].message,
        "the dependencies make a cycle: app → the base phase → net → app"
    );
}

#[test]
fn declared_kubectl_directories_must_hold_manifests() {
    let repo = MemoryRepo::default()
        .with("k8s/README.md", "")
        .with("kust/overlay/kustomization.yaml", "resources: []\n")
        .with("kust/a.yaml", "kind: ConfigMap\n")
        .with(
            "sluiceway.yaml",
            "stacks:\n  - path: k8s\n    tool: kubectl\n  - path: kust\n    tool: kubectl\n    options: { recursive: true }\n",
        );
    let problems = run(&repo).unwrap_err();
    let messages: Vec<&str> = problems.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(
        messages,
        [
            "k8s holds no kustomization and no *.yaml, *.yml or *.json manifests directly in it",
            "`recursive` would read kust/overlay/kustomization.yaml, a kustomization; declare it as its own stack"
        ]
    );
}

/// Decision 0059 over a whole discovery: an `auto` stack waits on what its YAML program
/// references, by project and stack name, even when an entry gave the target another
/// id; an entry's own ids add up with them; createInBackend reaches the stack it names.
#[test]
fn dependencies_come_from_a_yaml_programs_stack_references() {
    let repo = MemoryRepo::default()
        .with("infra/Pulumi.yaml", "name: network\nruntime: yaml\n")
        .with("infra/Pulumi.prod.yaml", "")
        .with("infra/Pulumi.dev.yaml", "")
        .with(
            "web/Pulumi.yaml",
            "name: web\nruntime: yaml\nresources:\n  net:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: acme/network/prod\n  gone:\n    type: pulumi:pulumi:StackReference\n    properties:\n      name: acme/elsewhere/prod\n",
        )
        .with("web/Pulumi.prod.yaml", "")
        .with("db/cm.yaml", "kind: ConfigMap\n")
        .with(
            "sluiceway.yaml",
            "stacks:\n  - path: infra\n    name: prod\n    id: network\n  - path: web\n    dependsOn: auto\n  - path: db\n    tool: kubectl\n  - path: web\n    name: prod\n    dependsOn: [db]\n    createInBackend: true\n",
        );
    let found = run(&repo).unwrap();
    let web = found
        .stacks
        .iter()
        .find(|s| s.id.as_str() == "web:prod")
        .unwrap();
    let ids: Vec<&str> = web.settings.depends_on.iter().map(|i| i.as_str()).collect();
    assert_eq!(ids, ["db", "network"]);
    assert!(web.settings.create_in_backend);
    assert_eq!(
        found
            .unresolved_references
            .values()
            .copied()
            .collect::<Vec<_>>(),
        [1]
    );
    let dev = found
        .stacks
        .iter()
        .find(|s| s.id.as_str() == "infra:dev")
        .unwrap();
    assert!(!dev.settings.create_in_backend);
}

/// A repository of Pulumi projects `apps/<dir>` with one `dev` stack each, whose
/// project files hold `project`, and an entry per project asking for its phase from the
/// key `tier`.
fn projects_with_tiers(projects: &[(&str, &str)]) -> MemoryRepo {
    let mut repo = MemoryRepo::default();
    let mut config = String::from("phases: [base, apps]\nstacks:\n");
    for (dir, project) in projects {
        repo = repo
            .with(
                &format!("apps/{dir}/Pulumi.yaml"),
                &format!("name: {dir}\nruntime: yaml\n{project}"),
            )
            .with(&format!("apps/{dir}/Pulumi.dev.yaml"), "");
        config.push_str(&format!(
            "  - path: apps/{dir}\n    phase: {{ from: tier }}\n"
        ));
    }
    repo.with("sluiceway.yaml", &config)
}

#[test]
fn a_phase_is_read_from_the_pulumi_project_key_in_each_form_the_schema_names() {
    let repo = projects_with_tiers(&[
        ("text", "config:\n  tier: base\n"),
        ("value", "config:\n  tier:\n    value: apps\n"),
        (
            "default",
            "config:\n  tier:\n    type: string\n    default: base\n",
        ),
        ("top", "tier: apps\n"),
        ("both", "tier: base\nconfig:\n  tier: apps\n"),
    ]);
    let found = run(&repo).unwrap();
    let phase = |dir: &str| {
        found
            .stacks
            .iter()
            .find(|s| s.path == format!("apps/{dir}"))
            .and_then(|s| s.settings.phase.clone())
    };
    assert_eq!(phase("text").as_deref(), Some("base"));
    assert_eq!(phase("value").as_deref(), Some("apps"));
    assert_eq!(phase("default").as_deref(), Some("base"));
    assert_eq!(phase("top").as_deref(), Some("apps"));
    assert_eq!(
        phase("both").as_deref(),
        Some("apps"),
        "`config` comes first"
    );
}

#[test]
fn a_phase_key_that_is_secret_missing_or_not_a_phase_is_an_error_that_never_quotes_it() {
    let repo = projects_with_tiers(&[
        (
            "secret",
            "config:\n  tier:\n    secret: true\n    value: s3cr3t-tier\n",
        ),
        ("stranger", "config:\n  tier: unheard-of-tier\n"),
        ("missing", "config:\n  other: base\n"),
        ("list", "config:\n  tier: [base]\n"),
    ]);
    let problems = run(&repo).unwrap_err();
    let messages: Vec<String> = problems.iter().map(ToString::to_string).collect();
    let said = messages.join("\n");
    assert_eq!(problems.len(), 4, "{said}");
    for (index, message) in [
        (
            0,
            "the key `tier` of apps/secret/Pulumi.yaml is secret, and a phase is never read from a secret",
        ),
        (
            1,
            "the key `tier` of apps/stranger/Pulumi.yaml does not hold one of the `phases`, so apps/stranger:dev has no phase",
        ),
        (
            2,
            "apps/missing/Pulumi.yaml has no key `tier`, under `config` or at the top level, to read the phase of apps/missing:dev from",
        ),
        (
            3,
            "the key `tier` of apps/list/Pulumi.yaml is not text (nor a `value` or `default` that is)",
        ),
    ] {
        assert!(
            said.contains(&format!("stacks[{index}].phase: {message}")),
            "{said}"
        );
    }
    assert!(
        !said.contains("s3cr3t-tier") && !said.contains("unheard-of-tier"),
        "{said}"
    );
}

/// Issue 44: each `required_version` of a module's files, at its own line, in file
/// order; a one-line block is found on its line; JSON files, other blocks and files
/// that are not HCL set none.
#[test]
fn a_modules_required_versions_are_read_at_their_lines() {
    use sluiceway_core::discovery::root_module::{RequiredVersion, required_versions};
    let repo = MemoryRepo::default()
        .with("m/main.tf", BACKEND)
        .with(
            "m/versions.tf",
            "# pinned\nterraform {\n  required_providers {}\n  required_version = \"~> 1.7\"\n}\n",
        )
        .with("m/x.tf", "locals { required_version = \"9\" }\n\nterraform { required_version = \">= 1.5, < 2.0\" }\n")
        .with("m/broken.tf", "terraform {\n  required_version = \n")
        .with("m/y.tf.json", "{\"terraform\": {\"required_version\": \"1.0.0\"}}");
    assert_eq!(
        required_versions(&repo.files(), &repo, "m"),
        [
            RequiredVersion {
                file: "m/versions.tf".to_owned(),
                line: 4,
                constraint: "~> 1.7".to_owned(),
            },
            RequiredVersion {
                file: "m/x.tf".to_owned(),
                line: 3,
                constraint: ">= 1.5, < 2.0".to_owned(),
            },
        ]
    );
}
