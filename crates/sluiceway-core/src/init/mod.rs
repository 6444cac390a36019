//! What `init` writes: a first `sluiceway.yaml` read from the repository's files, and the
//! one-job workflow. Pure: the binary decides whether and where to write.

mod toolchain;

use std::collections::BTreeSet;
use std::fmt::Write as _;

use saphyr::{LoadableYamlNode, Yaml};

use crate::claim::{Claims, SUGGESTED_UNRELATED};
use crate::config::Config;
use crate::discovery::gitops::{self, GitOps};
use crate::discovery::{Verdict, component_in, is_manifest, kustomization_in, root_module};
use crate::glob::FileGlobs;
use crate::repo::{FileSource, RepoFiles, child, split};
use crate::stack::Tool;

pub use toolchain::{CDKTF_CLI_VERSION, Toolchain};

/// The workflow's path inside the repository.
pub const WORKFLOW_PATH: &str = ".github/workflows/deploy-dashboard.yml";
/// The check workflow's path (`sluiceway init --check`).
pub const CHECK_WORKFLOW_PATH: &str = ".github/workflows/sluiceway-check.yml";

/// The check workflow: on every pull request, the action's files-only check (decision
/// 0042), with no credentials and nothing to deploy, so it asks only to read the code.
pub fn check_workflow() -> String {
    let action = crate::identity::action();
    format!(
        r#"# Written by `sluiceway init --check`. On every pull request, Sluiceway checks
# sluiceway.yaml, what it finds and the workflows that run it, from the files alone:
# no credentials, no tool, no deploy. Problems are annotations on their lines.
name: Sluiceway check

on:
  pull_request:

permissions:
  contents: read

jobs:
  check:
    runs-on: ubuntu-latest
    timeout-minutes: 10
    steps:
      - uses: actions/checkout@v4
      - uses: {action}
        with:
          mode: check
"#
    )
}

/// A first configuration: its text, and what init could not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proposal {
    pub config_text: String,
    pub unknowns: Vec<String>,
}

/// Reads the repository and writes down, as `stacks` entries, what discovery cannot name
/// on its own: OpenTofu/Terraform root modules that root-module discovery leaves out
/// (not called as a module, not under `modules/`), and Helm charts. Kubernetes manifest
/// directories are never declared, because files do not say which cluster they go to;
/// they are listed as unknowns instead, but for one another listed kustomization already
/// includes. A tree a GitOps controller deploys (Flux, Argo CD) is proposed in no form:
/// it has its deployer, and the file is named that says so.
pub fn propose(files: &RepoFiles, source: &impl FileSource) -> Proposal {
    let mut entries = String::new();
    let mut unknowns = Vec::new();
    let mut declared_dirs: Vec<String> = Vec::new();
    let gitops = GitOps::read(files, source);
    let deployed_elsewhere = |dir: &str| gitops.deploying(dir).is_some();

    if let Ok(verdicts) = root_module::examine(files, source, &BTreeSet::new()) {
        for (dir, verdict) in &verdicts {
            let Verdict::LeftOut(why) = verdict else {
                continue;
            };
            if why.starts_with("called as a local module")
                || why.contains("directory named modules")
            {
                continue;
            }
            let tool = if files.files_in(dir).iter().any(|n| n.ends_with(".tofu"))
                || !why.contains("Terraform")
            {
                Tool::OpenTofu
            } else {
                Tool::Terraform
            };
            let var_files: Vec<&String> = files
                .files_in(dir)
                .iter()
                .filter(|n| {
                    n.ends_with(".tfvars")
                        && *n != "terraform.tfvars"
                        && !n.ends_with(".auto.tfvars")
                })
                .collect();
            match var_files.as_slice() {
                [] => writeln!(entries, "  - path: {}\n    tool: {tool}", quote(dir)).ok(),
                [one] => writeln!(
                    entries,
                    "  - path: {}\n    tool: {tool}\n    options:\n      varFiles: [{}]",
                    quote(dir),
                    quote(one)
                )
                .ok(),
                several => {
                    for file in several {
                        let name = file.trim_end_matches(".tfvars");
                        writeln!(
                            entries,
                            "  - path: {}\n    name: {}\n    tool: {tool}\n    options:\n      workspace: {}\n      varFiles: [{}]",
                            quote(dir),
                            quote(name),
                            quote(name),
                            quote(file)
                        )
                        .ok();
                    }
                    unknowns.push(format!("{dir}: one stack per var file, each in a workspace of the same name; check the workspace names"));
                    Some(())
                }
            };
            if tool == Tool::OpenTofu && !files.files_in(dir).iter().any(|n| n.ends_with(".tofu")) {
                unknowns.push(format!(
                    "{dir}: declared as OpenTofu; write `tool: terraform` if Terraform deploys it"
                ));
            }
            declared_dirs.push(dir.clone());
        }
    }

    for chart_file in files.files().filter(|f| split(f).1 == "Chart.yaml") {
        let dir = split(chart_file).0;
        if dir.split('/').any(|p| p == "charts") && dir != "charts" && !dir.starts_with("charts/") {
            continue;
        }
        let Some(chart) = source
            .read_text(chart_file)
            .and_then(|t| Yaml::load_from_str(&t).ok())
            .and_then(|d| d.into_iter().next())
        else {
            continue;
        };
        if chart.as_mapping_get("type").and_then(Yaml::as_str) == Some("library")
            || deployed_elsewhere(dir)
        {
            continue;
        }
        let name = chart
            .as_mapping_get("name")
            .and_then(Yaml::as_str)
            .map(helm_safe)
            .unwrap_or_else(|| helm_safe(split(dir).1));
        let values = files.files_in(dir).iter().any(|n| n == "values.yaml");
        writeln!(
            entries,
            "  - path: {}\n    tool: helm\n    options:\n      release: {name}\n      namespace: {name}\n      chart: .{}",
            quote(dir),
            if values { "\n      valuesFiles: [values.yaml]" } else { "" }
        )
        .ok();
        unknowns.push(format!("{dir}: the Helm release and namespace are guessed as {name}; the kubeconfig context comes from the workflow"));
        declared_dirs.push(dir.to_owned());
    }

    let manifest_dirs: Vec<&str> = files
        .dirs()
        .filter(|d| {
            !d.split('/')
                .any(|p| p.starts_with('.') && p != "." || p == "charts" || p == "templates")
        })
        .filter(|d| !declared_dirs.iter().any(|c| crate::repo::is_within(d, c)))
        .filter(|d| !deployed_elsewhere(d))
        // A Component deploys only inside the kustomization that includes it.
        .filter(|d| component_in(files, source, d).is_none())
        .filter(|d| {
            kustomization_in(files, d).is_some()
                || files
                    .files_in(d)
                    .iter()
                    .filter(|n| is_manifest(n))
                    .any(|n| looks_like_manifest(source, &child(d, n)))
        })
        .collect();
    // A kustomization another one includes (a listed one, or one a controller deploys)
    // deploys with it, never on its own.
    let included: BTreeSet<String> = files
        .dirs()
        .filter(|d| kustomization_in(files, d).is_some())
        .flat_map(|d| gitops::included_dirs(files, source, d))
        .collect();
    let manifest_dirs: Vec<&str> = manifest_dirs
        .into_iter()
        .filter(|d| !included.contains(*d))
        .collect();
    let mut kubectl_hint = String::new();
    for dir in &manifest_dirs {
        writeln!(kubectl_hint, "  #  - path: {}\n  #    tool: kubectl\n  #    options:\n  #      context: <your-context>", quote(dir)).ok();
        unknowns.push(format!("{dir}: Kubernetes manifests; declare them with `tool: kubectl` and the context they deploy to"));
    }

    let mut text = String::from(
        "# yaml-language-server: $schema=sluiceway.schema.json\n\
         # Written by `sluiceway init` from this repository's files. Read it, then run `sluiceway check`.\n",
    );
    if entries.is_empty() && kubectl_hint.is_empty() {
        text.push_str("stacks: []\n");
    } else {
        text.push_str("stacks:\n");
        text.push_str(&entries);
        if !kubectl_hint.is_empty() {
            text.push_str("  # Kubernetes manifests do not say which cluster they deploy to; declare them yourself:\n");
            text.push_str(&kubectl_hint);
        }
    }
    if entries.is_empty() {
        text = text.replace("stacks:\n", "stacks: []\n");
    }
    if !gitops.trees.is_empty() {
        text.push_str("# Deployed by a GitOps controller, so not proposed; declare one only to deploy it from the dashboard as well:\n");
        for tree in &gitops.trees {
            writeln!(
                text,
                "#   {}: {} ({})",
                tree.path,
                tree.controller.name(),
                tree.said_by()
            )
            .ok();
            unknowns.push(format!(
                "{}: deployed by {}, as {} {}, so not proposed as a stack",
                tree.path,
                tree.controller.name(),
                tree.said_by(),
                tree.verb()
            ));
        }
    }
    Proposal {
        config_text: text,
        unknowns,
    }
}

/// Adds the `scan.unrelated` block: the suggested globs that match files of this
/// repository, counting the files init itself writes.
pub fn with_unrelated(
    proposal: Proposal,
    config: &Config,
    files: &RepoFiles,
    discovery_stacks: &[crate::stack::Stack],
) -> Proposal {
    let Ok(claims) = Claims::new(
        discovery_stacks,
        &config.settings.scan.unrelated,
        Some("sluiceway.yaml"),
    ) else {
        return proposal;
    };
    let mut all: Vec<&str> = files.files().collect();
    all.push(WORKFLOW_PATH);
    let globs: Vec<&str> = SUGGESTED_UNRELATED
        .iter()
        .copied()
        .filter(|g| {
            FileGlobs::new([*g]).is_ok_and(|set| {
                all.iter()
                    .any(|f| set.matches(f) && claims.claim(f) != crate::claim::Claim::Stacks)
            })
        })
        .collect();
    if globs.is_empty() {
        return proposal;
    }
    let mut text = proposal.config_text;
    text.push_str("scan:\n  unrelated:\n");
    for glob in globs {
        writeln!(text, "    - \"{glob}\"").ok();
    }
    Proposal {
        config_text: text,
        ..proposal
    }
}

fn looks_like_manifest(source: &impl FileSource, path: &str) -> bool {
    source.read_text(path).is_some_and(|t| {
        t.lines().any(|l| l.starts_with("apiVersion:")) && t.lines().any(|l| l.starts_with("kind:"))
    })
}

/// Helm's release rule: lowercase letters, digits and `-`, at most 53 characters.
fn helm_safe(name: &str) -> String {
    let cleaned: String = name
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let trimmed = cleaned.trim_matches('-');
    let short: String = trimmed.chars().take(53).collect();
    if short.is_empty() {
        "release".to_owned()
    } else {
        short.trim_end_matches('-').to_owned()
    }
}

/// Quotes a value for YAML when it could be read as something other than text.
fn quote(text: &str) -> String {
    let plain = text
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || "./_-".contains(c))
        && !text.starts_with(['.', '-'])
        || text == ".";
    if plain
        && text.parse::<f64>().is_err()
        && !["true", "false", "null", "yes", "no", "on", "off"].contains(&text)
    {
        text.to_owned()
    } else {
        format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
    }
}

/// The one-job workflow: the four triggers, the permissions every mode needs (`contents:
/// write` only when a tick merges updates, `mergeAndDeploy.authors`), a concurrency group
/// that queues (never cancels), the user's tool setup, and the step.
pub fn workflow(
    default_branch: &str,
    label: &str,
    toolchain: &Toolchain,
    merges_updates: bool,
) -> String {
    let contents = if merges_updates { "write" } else { "read" };
    let dispatch = dispatch_inputs(merges_updates);
    let setup = toolchain.steps();
    let action = crate::identity::action();
    format!(
        r#"# Written by `sluiceway init`. The dashboard issue shows what each stack would change;
# ticking a stack's box deploys exactly that. See `sluiceway check` for what it reads.
name: Deploy dashboard

on:
  push:
    branches: [{default_branch}]
  schedule:
    - cron: "23 5 * * *"
  workflow_dispatch:{dispatch}
  issues:
    types: [edited]

permissions:
  contents: {contents}
  issues: write
  deployments: write
  actions: write
  pull-requests: read
  checks: write

# One run at a time per dashboard edit; later runs wait in line and none is cancelled,
# so no tick is lost and no deploy is interrupted.
concurrency:
  group: sluiceway-${{{{ github.event.issue.number }}}}
  queue: max

jobs:
  sluiceway:
    if: github.event_name != 'issues' || contains(github.event.issue.labels.*.name, '{label}')
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v4
{setup}      # Load the credentials your stacks need here (cloud login, kubeconfig, backend tokens).
      - uses: {action}
        if: ${{{{ !cancelled() }}}}
        with:
          job-status: ${{{{ job.status }}}}
"#
    )
}

/// The dispatch trigger's inputs: the scan after a tick merged updates narrows to what
/// they changed (decision 0064).
fn dispatch_inputs(merges_updates: bool) -> &'static str {
    if merges_updates {
        "\n    inputs:\n      sluiceway-merged:\n        description: \"Set by Sluiceway after a tick merged updates: the scan narrows to what they changed.\"\n        required: false"
    } else {
        ""
    }
}

/// A matrix job that deploys each entry of the `matrix` output of the job `need`, under
/// its stack's environment.
fn apply_job(name: &str, need: &str, what: &str, setup: &str) -> String {
    let action = crate::identity::action();
    format!(
        r#"  # The deploys {what}.
  {name}:
    needs: {need}
    if: ${{{{ !cancelled() && needs.{need}.outputs.matrix != '' && needs.{need}.outputs.matrix != '[]' }}}}
    runs-on: ubuntu-latest
    timeout-minutes: 60
    strategy:
      fail-fast: false
      matrix:
        include: ${{{{ fromJSON(needs.{need}.outputs.matrix) }}}}
    environment: ${{{{ matrix.environment }}}}
    permissions:
      contents: read
      issues: write
      deployments: write
      pull-requests: read
    concurrency:
      group: sluiceway-apply-${{{{ matrix.stack }}}}
      queue: max
    steps:
      - uses: actions/checkout@v4
{setup}      # Deploy credentials, from this environment's secrets, go here.
      - uses: {action}
        with:
          mode: apply
          deployment-id: ${{{{ matrix.deployment }}}}

"#
    )
}

/// The sharded workflow (ADR 0037): the split workflow's jobs, with its scan job made
/// three: a plan, one job per shard of a matrix (each uploads its partial result), and a
/// join that downloads them and writes the dashboard. The preview times are kept with
/// `actions/cache` so the next plan balances by them.
pub fn sharded_workflow(
    default_branch: &str,
    label: &str,
    toolchain: &Toolchain,
    merges_updates: bool,
    shards: u32,
) -> String {
    let contents = if merges_updates { "write" } else { "read" };
    let dispatch = dispatch_inputs(merges_updates);
    let setup = toolchain.steps();
    // The join previews the updates waiting to merge as after their merge
    // (`mergeAndDeploy.preview`), so a workflow that merges them gives it the tools.
    let join_setup = if merges_updates {
        format!(
            "{setup}      # The tools preview the updates waiting to merge (mergeAndDeploy.preview).\n"
        )
    } else {
        String::new()
    };
    let action = crate::identity::action();
    let apply = apply_job(
        "apply",
        "resolve",
        "resolve started: ticks, and records that waited",
        &setup,
    );
    let apply_scanned = apply_job(
        "apply-scanned",
        "join",
        "the join started: stacks that deploy on merge, and merged updates",
        &setup,
    );
    format!(
        r#"# Written by `sluiceway init --sharded`. The dashboard issue shows what each stack would
# change; ticking a stack's box deploys exactly that. A scan runs as a plan, {shards} shards
# of a job matrix and a join that writes the dashboard once (docs/sharded-scan.md).
name: Deploy dashboard

on:
  push:
    branches: [{default_branch}]
  schedule:
    - cron: "23 5 * * *"
  workflow_dispatch:{dispatch}
  issues:
    types: [edited]

permissions: {{}}

jobs:
  plan:
    if: github.event_name != 'issues'
    runs-on: ubuntu-latest
    timeout-minutes: 10
    permissions:
      contents: read
      issues: write
    concurrency:
      group: sluiceway-scan
      queue: max
    outputs:
      shards: ${{{{ steps.sluiceway.outputs.shards }}}}
      shard-plan: ${{{{ steps.sluiceway.outputs.shard-plan }}}}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/cache/restore@v4
        with:
          path: .sluiceway-timings.json
          key: sluiceway-timings-${{{{ github.run_id }}}}
          restore-keys: sluiceway-timings-
      - id: sluiceway
        uses: {action}
        with:
          mode: plan
          shards: "{shards}"
          timings-file: .sluiceway-timings.json

  shard:
    needs: plan
    runs-on: ubuntu-latest
    timeout-minutes: 60
    permissions:
      contents: read
    strategy:
      fail-fast: false
      matrix:
        shard: ${{{{ fromJSON(needs.plan.outputs.shards) }}}}
    steps:
      - uses: actions/checkout@v4
{setup}      # Read-only credentials are enough to preview: load them here.
      - id: sluiceway
        uses: {action}
        with:
          mode: shard
          shard: ${{{{ matrix.shard }}}}
          shard-plan: ${{{{ needs.plan.outputs.shard-plan }}}}
      - uses: actions/upload-artifact@v4
        if: ${{{{ !cancelled() && steps.sluiceway.outputs.partial-result != '' }}}}
        with:
          name: sluiceway-shard-${{{{ matrix.shard }}}}
          path: ${{{{ steps.sluiceway.outputs.partial-result }}}}
          retention-days: 1

  # Runs whatever became of the shards: a shard that failed, timed out or was cancelled
  # leaves its stacks' rows as they were, with a line that says so, and the join red.
  join:
    needs: [plan, shard]
    if: ${{{{ always() && needs.plan.result == 'success' }}}}
    runs-on: ubuntu-latest
    timeout-minutes: 15
    permissions:
      contents: read
      issues: write
      deployments: write
      actions: read
      pull-requests: read
      checks: write
    concurrency:
      group: sluiceway-join
      queue: max
    outputs:
      matrix: ${{{{ steps.sluiceway.outputs.matrix }}}}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/download-artifact@v4
        with:
          pattern: sluiceway-shard-*
          path: .sluiceway-partials
{join_setup}      - uses: actions/cache/restore@v4
        with:
          path: .sluiceway-timings.json
          key: sluiceway-timings-${{{{ github.run_id }}}}
          restore-keys: sluiceway-timings-
      - id: sluiceway
        uses: {action}
        with:
          mode: join
          shard-plan: ${{{{ needs.plan.outputs.shard-plan }}}}
          partial-results: .sluiceway-partials
          timings-file: .sluiceway-timings.json
      - uses: actions/cache/save@v4
        if: ${{{{ always() }}}}
        with:
          path: .sluiceway-timings.json
          key: sluiceway-timings-${{{{ github.run_id }}}}

  resolve:
    if: github.event_name != 'push' && (github.event_name != 'issues' || contains(github.event.issue.labels.*.name, '{label}'))
    runs-on: ubuntu-latest
    timeout-minutes: 10
    permissions:
      contents: {contents}
      issues: write
      deployments: write
      actions: write
      pull-requests: read
    concurrency:
      group: sluiceway-resolve
    outputs:
      matrix: ${{{{ steps.sluiceway.outputs.matrix }}}}
    steps:
      - uses: actions/checkout@v4
      - id: sluiceway
        uses: {action}
        with:
          mode: resolve

{apply}{apply_scanned}  settle:
    needs: [apply, apply-scanned]
    if: ${{{{ always() }}}}
    runs-on: ubuntu-latest
    timeout-minutes: 10
    permissions:
      contents: read
      issues: read
      deployments: write
      actions: write
    concurrency:
      group: sluiceway-settle
      queue: max
    steps:
      - uses: actions/checkout@v4
      - uses: {action}
        with:
          mode: settle
"#
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::MemoryRepo;

    #[test]
    fn the_sharded_workflow_gives_each_step_what_the_check_asks_for() {
        for merges in [false, true] {
            let text = sharded_workflow(
                "main",
                "sluiceway",
                &Toolchain {
                    tools: BTreeSet::from([Tool::OpenTofu]),
                    ..Toolchain::default()
                },
                merges,
                6,
            );
            let action = crate::identity::action();
            let repository = action.split('@').next().unwrap();
            let (jobs, findings) = crate::workflow::lint::lint(
                "deploy.yml",
                &text,
                repository,
                crate::workflow::lint::Settings {
                    merges,
                    read_only: false,
                },
            );
            let ids: Vec<&str> = jobs.iter().map(|j| j.id.as_str()).collect();
            assert_eq!(
                ids,
                [
                    "apply",
                    "apply-scanned",
                    "join",
                    "plan",
                    "resolve",
                    "settle",
                    "shard"
                ]
            );
            assert_eq!(findings, Vec::new(), "merges {merges}");
            assert!(text.contains("shards: \"6\""));
            assert!(crate::workflow::scans_nobody_applies(&text, repository).is_empty());
            // The join gets the tools only to preview updates waiting to merge.
            let join = text.split("\n  join:\n").nth(1).unwrap();
            let join = join.split("\n  resolve:\n").next().unwrap();
            assert_eq!(join.contains("setup-opentofu"), merges, "{join}");
        }
    }

    #[test]
    fn the_workflow_init_writes_gives_each_mode_what_the_check_asks_for() {
        for merges in [false, true] {
            let text = workflow(
                "main",
                "sluiceway",
                &Toolchain {
                    tools: BTreeSet::from([Tool::OpenTofu]),
                    ..Toolchain::default()
                },
                merges,
            );
            let action = crate::identity::action();
            let repository = action.split('@').next().unwrap();
            let (jobs, findings) = crate::workflow::lint::lint(
                "deploy.yml",
                &text,
                repository,
                crate::workflow::lint::Settings {
                    merges,
                    read_only: false,
                },
            );
            assert_eq!(jobs.len(), 1, "{text}");
            assert_eq!(findings, Vec::new(), "merges {merges}");
            assert_eq!(text.contains("contents: write"), merges);
            let document = crate::config::Document::parse(&text).unwrap();
            assert_eq!(
                document
                    .value
                    .pointer("/on/workflow_dispatch/inputs/sluiceway-merged")
                    .is_some(),
                merges
            );
        }
    }

    #[test]
    fn values_that_yaml_would_misread_are_quoted() {
        assert_eq!(quote("infra/network"), "infra/network");
        assert_eq!(quote("."), ".");
        assert_eq!(quote("true"), "\"true\"");
        assert_eq!(quote("1.5"), "\"1.5\"");
        assert_eq!(quote("a b"), "\"a b\"");
    }

    #[test]
    fn helm_names_follow_helms_rule() {
        assert_eq!(helm_safe("My_Chart"), "my-chart");
        assert_eq!(helm_safe(&"x".repeat(60)).len(), 53);
    }

    #[test]
    fn several_var_files_give_one_stack_each() {
        let repo = MemoryRepo::default()
            .with("infra/app/main.tf", "terraform {\n  backend \"s3\" {}\n}\n")
            .with("infra/app/dev.tfvars", "")
            .with("infra/app/prod.tfvars", "");
        let proposal = propose(&repo.files(), &repo);
        assert!(
            proposal.config_text.contains("name: dev"),
            "{}",
            proposal.config_text
        );
        assert!(proposal.config_text.contains("varFiles: [prod.tfvars]"));
        let config = crate::config::load("sluiceway.yaml", &proposal.config_text).unwrap();
        assert_eq!(config.entries.len(), 2);
    }
}
