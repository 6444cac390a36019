//! Files a stack's own files name but the stack does not claim.
//!
//! A kustomization that reads `../base`, a root module that calls `../modules/vpc`, or a
//! Helm stack whose chart sits elsewhere changes when those files change; unless the
//! stack claims them through `inputs`, a push there previews nothing for it (or forces a
//! full scan). Only what is cheap to see from the stack's own files is reported.

use saphyr::{LoadableYamlNode, Yaml};

use crate::discovery::{kustomization_in, root_module};
use crate::glob::FileGlobs;
use crate::repo::{FileSource, RepoFiles, child, is_within, join};
use crate::stack::{Chart, Stack, StackId, ToolOptions};

/// A path a stack's files name outside what the stack claims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedFile {
    pub stack: StackId,
    /// A file or directory of the repository.
    pub path: String,
    /// The file or `stacks` option that names it.
    pub named_in: String,
    /// The `inputs` glob that would claim it.
    pub suggested_input: String,
}

pub fn unclaimed_named_files(
    stacks: &[Stack],
    files: &RepoFiles,
    source: &impl FileSource,
) -> Vec<NamedFile> {
    let mut found = Vec::new();
    for stack in stacks {
        let inputs = FileGlobs::new(stack.settings.inputs.iter().map(String::as_str)).ok();
        for (named_in, relative) in references(stack, files, source) {
            let Some(path) = join(&stack.path, &relative) else {
                continue;
            };
            let is_dir = files.has_dir(&path) && !files.contains(&path);
            if !is_dir && !files.contains(&path) {
                continue;
            }
            let probe = if is_dir {
                files.files_under(&path).next().unwrap_or(&path).to_owned()
            } else {
                path.clone()
            };
            if is_within(&path, &stack.path) || inputs.as_ref().is_some_and(|g| g.matches(&probe)) {
                continue;
            }
            let suggested_input = if is_dir {
                format!("{}/**", escape(&path))
            } else {
                escape(&path)
            };
            found.push(NamedFile {
                stack: stack.id.clone(),
                path,
                named_in,
                suggested_input,
            });
        }
    }
    found.sort_by(|a, b| (&a.stack, &a.path).cmp(&(&b.stack, &b.path)));
    found.dedup();
    found
}

/// Escapes glob characters so a path matches only itself.
fn escape(path: &str) -> String {
    path.chars().fold(String::new(), |mut out, c| {
        if "*?[]{}\\".contains(c) {
            out.push('\\');
        }
        out.push(c);
        out
    })
}

/// (where it is named, the path relative to the stack's directory)
fn references(stack: &Stack, files: &RepoFiles, source: &impl FileSource) -> Vec<(String, String)> {
    match &stack.options {
        ToolOptions::RootModule { var_files, .. } => {
            let mut refs = root_module::local_module_sources(files, source, &stack.path);
            refs.extend(
                var_files
                    .iter()
                    .map(|f| ("options.varFiles".to_owned(), f.clone())),
            );
            refs
        }
        ToolOptions::Helm {
            chart,
            values_files,
            ..
        } => {
            let mut refs: Vec<(String, String)> = values_files
                .iter()
                .map(|f| ("options.valuesFiles".to_owned(), f.clone()))
                .collect();
            if let Chart::Local(chart) = chart {
                refs.push(("options.chart".to_owned(), chart.clone()));
            }
            refs
        }
        ToolOptions::Kubectl { .. } => kustomization_references(files, source, &stack.path),
        ToolOptions::Pulumi => Vec::new(),
    }
}

fn kustomization_references(
    files: &RepoFiles,
    source: &impl FileSource,
    dir: &str,
) -> Vec<(String, String)> {
    let Some(name) = kustomization_in(files, dir) else {
        return Vec::new();
    };
    let file = child(dir, &name);
    let Some(root) = source
        .read_text(&file)
        .and_then(|t| Yaml::load_from_str(&t).ok())
        .and_then(|d| d.into_iter().next())
    else {
        return Vec::new();
    };
    let mut refs = Vec::new();
    let mut push = |value: &Yaml| {
        if let Some(text) = value
            .as_str()
            .filter(|t| !t.contains("://") && !t.contains("?ref="))
        {
            refs.push((file.clone(), text.to_owned()));
        }
    };
    for key in [
        "resources",
        "bases",
        "components",
        "patchesStrategicMerge",
        "crds",
    ] {
        if let Some(items) = root.as_mapping_get(key).and_then(Yaml::as_sequence) {
            items.iter().for_each(&mut push);
        }
    }
    if let Some(patches) = root.as_mapping_get("patches").and_then(Yaml::as_sequence) {
        for patch in patches {
            if let Some(path) = patch.as_mapping_get("path") {
                push(path);
            }
        }
    }
    refs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config;
    use crate::discovery::discover;
    use crate::repo::MemoryRepo;

    #[test]
    fn a_kustomization_base_outside_the_stack_is_named() {
        let repo = MemoryRepo::default()
            .with("k8s/base/deployment.yaml", "kind: Deployment\n")
            .with(
                "k8s/base/kustomization.yaml",
                "resources: [deployment.yaml]\n",
            )
            .with(
                "k8s/prod/kustomization.yaml",
                "resources:\n  - ../base\n  - https://example.invalid/x.yaml\n",
            )
            .with(
                "sluiceway.yaml",
                "stacks:\n  - path: k8s/prod\n    tool: kubectl\n",
            );
        let config = config::load("sluiceway.yaml", &repo.contents["sluiceway.yaml"]).unwrap();
        let found = discover(&config, &repo.files(), &repo).unwrap();
        let named = unclaimed_named_files(&found.stacks, &repo.files(), &repo);
        assert_eq!(named.len(), 1);
        assert_eq!(named[0].path, "k8s/base");
        assert_eq!(named[0].suggested_input, "k8s/base/**");
        assert_eq!(named[0].named_in, "k8s/prod/kustomization.yaml");
    }

    #[test]
    fn a_claimed_reference_is_not_named() {
        let repo = MemoryRepo::default()
            .with("k8s/base/kustomization.yaml", "resources: []\n")
            .with("k8s/prod/kustomization.yaml", "resources: [../base]\n")
            .with(
                "sluiceway.yaml",
                "stacks:\n  - path: k8s/prod\n    tool: kubectl\n    inputs: ['k8s/base/**']\n",
            );
        let config = config::load("sluiceway.yaml", &repo.contents["sluiceway.yaml"]).unwrap();
        let found = discover(&config, &repo.files(), &repo).unwrap();
        assert!(unclaimed_named_files(&found.stacks, &repo.files(), &repo).is_empty());
    }
}
