//! Checks that a declared stack's directory holds what its tool needs, from files alone.

use saphyr::{LoadableYamlNode, Yaml};

use crate::config::{StackEntry, Wrapper};
use crate::discovery::cdktf::APP_FILE;
use crate::repo::{FileSource, RepoFiles, child, join};
use crate::stack::{Chart, Tool, ToolOptions};

const KUSTOMIZATIONS: [&str; 3] = ["kustomization.yaml", "kustomization.yml", "Kustomization"];
/// What makes a directory a Terragrunt unit (decision 0068).
const TERRAGRUNT_UNIT: [&str; 2] = ["terragrunt.hcl", "terragrunt.hcl.json"];

pub fn is_manifest(name: &str) -> bool {
    name.ends_with(".yaml") || name.ends_with(".yml") || name.ends_with(".json")
}

pub fn kustomization_in(files: &RepoFiles, dir: &str) -> Option<String> {
    files
        .files_in(dir)
        .iter()
        .find(|n| KUSTOMIZATIONS.contains(&n.as_str()))
        .cloned()
}

/// A Kustomize Component in `dir`: its kustomization file and the line that says
/// `kind: Component`. A Component (`kustomize.config.k8s.io/v1alpha1`) is only ever
/// included by another kustomization's `components`; `kubectl kustomize` cannot build
/// it alone, so it is never a stack of its own.
pub fn component_in(
    files: &RepoFiles,
    source: &impl FileSource,
    dir: &str,
) -> Option<(String, usize)> {
    let file = child(dir, &kustomization_in(files, dir)?);
    let text = source.read_text(&file)?;
    let document = Yaml::load_from_str(&text).ok()?.into_iter().next()?;
    if document.as_mapping_get("kind").and_then(Yaml::as_str) != Some("Component") {
        return None;
    }
    let line = text
        .lines()
        .position(|l| {
            l.strip_prefix("kind:")
                .is_some_and(|rest| rest.trim().trim_matches(['"', '\'']) == "Component")
        })
        .map_or(1, |index| index + 1);
    Some((file, line))
}

/// What is wrong with the directory a tool entry declares, in words; empty when fine.
pub(crate) fn problems(
    files: &RepoFiles,
    source: &impl FileSource,
    entry: &StackEntry,
    tool: Tool,
    options: &ToolOptions,
) -> Vec<String> {
    let dir = entry.path.as_str();
    if !files.has_dir(dir) {
        return vec![format!(
            "the directory {dir} does not exist or holds no files"
        )];
    }
    let names = files.files_in(dir);
    let mut problems = Vec::new();
    let inside = |relative: &str| join(dir, relative);
    match (tool, options) {
        (
            Tool::OpenTofu | Tool::Terraform,
            ToolOptions::RootModule {
                var_files, wrapper, ..
            },
        ) => {
            let module_file = |n: &&String| match tool {
                Tool::Terraform => n.ends_with(".tf") || n.ends_with(".tf.json"),
                _ => {
                    n.ends_with(".tf")
                        || n.ends_with(".tf.json")
                        || n.ends_with(".tofu")
                        || n.ends_with(".tofu.json")
                }
            };
            match wrapper {
                None if !names.iter().any(|n| module_file(&n)) => {
                    let kinds = if tool == Tool::Terraform {
                        "*.tf or *.tf.json"
                    } else {
                        "*.tf, *.tofu, *.tf.json or *.tofu.json"
                    };
                    problems.push(format!("{dir} holds no {kinds} files for {tool}"));
                }
                Some(Wrapper::Cdktf) if !names.iter().any(|n| n == APP_FILE) => {
                    problems.push(format!("{dir} holds no {APP_FILE}: it is not a CDKTF app"));
                }
                Some(Wrapper::Terragrunt)
                    if !names.iter().any(|n| TERRAGRUNT_UNIT.contains(&n.as_str())) =>
                {
                    problems.push(format!(
                        "{dir} holds no terragrunt.hcl or terragrunt.hcl.json: it is not a Terragrunt unit"
                    ));
                }
                _ => {}
            }
            for file in var_files {
                match inside(file) {
                    Some(path) if files.contains(&path) => {}
                    Some(path) => problems.push(format!("the var file {path} does not exist")),
                    None => {
                        problems.push(format!("the var file {file} lies outside the repository"))
                    }
                }
            }
        }
        (
            Tool::Helm,
            ToolOptions::Helm {
                chart,
                values_files,
                ..
            },
        ) => {
            if let Chart::Local(chart) = chart {
                match inside(chart) {
                    Some(chart_dir) if files.contains(&child(&chart_dir, "Chart.yaml")) => {}
                    Some(chart_dir) => {
                        problems.push(format!("the local chart {chart_dir} has no Chart.yaml"))
                    }
                    None => problems.push(format!("the chart {chart} lies outside the repository")),
                }
            }
            for file in values_files {
                match inside(file) {
                    Some(path) if files.contains(&path) => {}
                    Some(path) => problems.push(format!("the values file {path} does not exist")),
                    None => problems.push(format!(
                        "the values file {file} lies outside the repository"
                    )),
                }
            }
        }
        (Tool::Kubectl, ToolOptions::Kubectl { recursive, .. }) => {
            let kustomization = kustomization_in(files, dir);
            if *recursive {
                if kustomization.is_some() {
                    problems.push("`recursive` cannot be used on a kustomization".to_owned());
                } else if let Some(nested) = files.files_under(dir).find(|f| {
                    f.rsplit('/')
                        .next()
                        .is_some_and(|n| KUSTOMIZATIONS.contains(&n))
                }) {
                    problems.push(format!("`recursive` would read {nested}, a kustomization; declare it as its own stack"));
                } else if !files.files_under(dir).any(is_manifest) {
                    problems.push(format!("{dir} holds no *.yaml, *.yml or *.json manifests"));
                }
            } else if kustomization.is_none() && !names.iter().any(|n| is_manifest(n)) {
                problems.push(format!("{dir} holds no kustomization and no *.yaml, *.yml or *.json manifests directly in it"));
            } else if let Some((file, line)) = component_in(files, source, dir) {
                problems.push(format!("{file} (line {line}) is a Kustomize Component, which kubectl cannot build alone; declare the kustomization that includes it in `components` instead"));
            }
        }
        _ => {}
    }
    problems
}
