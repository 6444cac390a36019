//! Trees a GitOps controller deploys, read from the files that say so: a Flux
//! `Kustomization` (its `spec.path`), `FluxInstance` (its sync path) or `HelmRelease` (a
//! chart at a path in the repository), an Argo CD `Application` (each source's `path`) or `ApplicationSet` (each
//! git directory generator's `path`, a glob), and the same Argo CD shapes written into
//! the values of an Argo CD chart. Such a tree has its deployer; `init` does not propose
//! it as a stack, and `check` names the controller and the file beside a stack declared
//! in one. Pure, like all of discovery: the files come in, nothing runs.

use saphyr::{LoadableYamlNode, Yaml};

use crate::glob::FileGlobs;
use crate::repo::{FileSource, RepoFiles, is_within, join, split};

/// Who deploys a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Controller {
    Flux,
    ArgoCd,
}

impl Controller {
    pub fn name(self) -> &'static str {
        match self {
            Controller::Flux => "Flux",
            Controller::ArgoCd => "Argo CD",
        }
    }
}

/// One tree and the files that say who deploys it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Tree {
    /// A directory of the repository (`.` for all of it), or a glob of directories
    /// (an `ApplicationSet`'s `apps/*`).
    pub path: String,
    pub controller: Controller,
    /// The files that name it, in path order: more than one where several say the same
    /// (an Argo CD chart's `values.yaml` and its `values-seed.yaml`), so that a tree is
    /// named once however many files name it.
    pub files: Vec<String>,
}

impl Tree {
    /// The files that name the tree, for a sentence: `a`, `a and b`, `a, b and c`.
    pub fn said_by(&self) -> String {
        match self.files.as_slice() {
            [] => String::new(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} and {last}", init.join(", ")),
        }
    }

    /// `says` after one file, `say` after several.
    pub fn verb(&self) -> &'static str {
        if self.files.len() > 1 { "say" } else { "says" }
    }
}

/// Every tree a controller deploys, in path order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitOps {
    pub trees: Vec<Tree>,
}

impl GitOps {
    /// Reads every YAML file that may name a tree. A file that is not YAML, or says
    /// nothing of the kind, names none.
    pub fn read(files: &RepoFiles, source: &impl FileSource) -> GitOps {
        let mut trees = Vec::new();
        for file in files.files().filter(|f| is_yaml(f)) {
            let Some(text) = source.read_text(file) else {
                continue;
            };
            if !["fluxcd.io", "argoproj.io", "directories", "destination"]
                .iter()
                .any(|needle| text.contains(needle))
            {
                continue;
            }
            let Ok(documents) = Yaml::load_from_str(&text) else {
                continue;
            };
            let in_argo_chart = is_argo_chart_values(files, source, file);
            for document in &documents {
                read_document(document, file, in_argo_chart, &mut trees);
            }
        }
        trees.sort();
        trees.dedup();
        // One tree per path and controller, with every file that names it.
        let mut merged: Vec<Tree> = Vec::with_capacity(trees.len());
        for tree in trees {
            match merged.last_mut() {
                Some(last) if last.path == tree.path && last.controller == tree.controller => {
                    last.files.extend(tree.files);
                }
                _ => merged.push(tree),
            }
        }
        GitOps { trees: merged }
    }

    /// The tree that deploys `dir`, when one does: the first, in path order.
    pub fn deploying(&self, dir: &str) -> Option<&Tree> {
        self.trees.iter().find(|tree| covers(&tree.path, dir))
    }
}

fn is_yaml(path: &str) -> bool {
    path.ends_with(".yaml") || path.ends_with(".yml")
}

/// A values file (`values*.yaml`) beside a `Chart.yaml` that is Argo CD's or depends on
/// one of Argo CD's charts.
fn is_argo_chart_values(files: &RepoFiles, source: &impl FileSource, file: &str) -> bool {
    let (dir, name) = split(file);
    if !name.starts_with("values") {
        return false;
    }
    let chart = crate::repo::child(dir, "Chart.yaml");
    files.contains(&chart) && source.read_text(&chart).is_some_and(|t| t.contains("argo"))
}

/// Whether the tree `path` (a directory or a glob of them) holds `dir`.
fn covers(path: &str, dir: &str) -> bool {
    if !path.contains(['*', '?', '[', '{']) {
        return is_within(dir, path);
    }
    let Ok(glob) = FileGlobs::new([path]) else {
        return false;
    };
    let mut at = dir;
    loop {
        if glob.matches(at) {
            return true;
        }
        match at.rsplit_once('/') {
            Some((parent, _)) => at = parent,
            None => return false,
        }
    }
}

fn text<'a>(node: &'a Yaml<'a>, key: &str) -> Option<&'a str> {
    node.as_mapping_get(key).and_then(Yaml::as_str)
}

/// A path a controller reads, from the repository's root (`./a/b`, `a/b/`, `/a`), with
/// a `${substitution}` read as `*`; `None` for a path outside the repository, or an
/// ApplicationSet template's `{{path}}`, which names no tree of its own.
fn tree_path(raw: &str) -> Option<String> {
    if raw.contains("{{") {
        return None;
    }
    let substituted: String = {
        let mut out = String::new();
        let mut rest = raw.trim();
        while let Some(start) = rest.find("${") {
            out.push_str(&rest[..start]);
            out.push('*');
            rest = rest[start..]
                .find('}')
                .map_or("", |end| &rest[start + end + 1..]);
        }
        out.push_str(rest);
        out
    };
    join(
        ".",
        substituted.trim_start_matches('/').trim_end_matches('/'),
    )
}

fn read_document(document: &Yaml<'_>, file: &str, in_argo_chart: bool, trees: &mut Vec<Tree>) {
    let api = text(document, "apiVersion").unwrap_or("");
    let kind = text(document, "kind").unwrap_or("");
    let spec = document.as_mapping_get("spec");
    let mut add = |path: Option<String>, controller| {
        if let Some(path) = path {
            trees.push(Tree {
                path,
                controller,
                files: vec![file.to_owned()],
            });
        }
    };
    match (api.split('/').next().unwrap_or(""), kind) {
        ("kustomize.toolkit.fluxcd.io", "Kustomization") => {
            add(
                spec.and_then(|s| text(s, "path")).and_then(tree_path),
                Controller::Flux,
            );
        }
        ("fluxcd.controlplane.io", "FluxInstance") => {
            let sync = spec.and_then(|s| s.as_mapping_get("sync"));
            add(
                sync.and_then(|s| text(s, "path")).and_then(tree_path),
                Controller::Flux,
            );
        }
        ("helm.toolkit.fluxcd.io", "HelmRelease") => {
            let chart = spec
                .and_then(|s| s.as_mapping_get("chart"))
                .and_then(|c| c.as_mapping_get("spec"))
                .and_then(|s| text(s, "chart"))
                .filter(|c| c.starts_with("./") || c.starts_with("../"));
            add(chart.and_then(tree_path), Controller::Flux);
        }
        ("argoproj.io", "Application") => {
            for path in spec.map(application_paths).unwrap_or_default() {
                add(tree_path(&path), Controller::ArgoCd);
            }
        }
        ("argoproj.io", "ApplicationSet") => {
            for path in spec.map(generator_paths).unwrap_or_default() {
                add(tree_path(&path), Controller::ArgoCd);
            }
        }
        _ if in_argo_chart => {
            let mut found = Vec::new();
            argo_shapes(document, &mut found);
            for path in found {
                add(tree_path(&path), Controller::ArgoCd);
            }
        }
        _ => {}
    }
}

/// An Application spec's source paths: `source.path` and each `sources[].path`.
fn application_paths(spec: &Yaml<'_>) -> Vec<String> {
    let mut paths: Vec<String> = spec
        .as_mapping_get("source")
        .and_then(|s| text(s, "path"))
        .map(str::to_owned)
        .into_iter()
        .collect();
    if let Some(sources) = spec.as_mapping_get("sources").and_then(Yaml::as_vec) {
        paths.extend(
            sources
                .iter()
                .filter_map(|s| text(s, "path"))
                .map(str::to_owned),
        );
    }
    paths
}

/// The `path` of every git directory generator under `generators`, nested ones (a
/// matrix's, a merge's) included; an `exclude: true` entry deploys nothing.
fn generator_paths(spec: &Yaml<'_>) -> Vec<String> {
    let mut paths = Vec::new();
    let Some(generators) = spec.as_mapping_get("generators").and_then(Yaml::as_vec) else {
        return paths;
    };
    for generator in generators {
        if let Some(directories) = generator
            .as_mapping_get("git")
            .and_then(|g| g.as_mapping_get("directories"))
            .and_then(Yaml::as_vec)
        {
            paths.extend(
                directories
                    .iter()
                    .filter(|d| d.as_mapping_get("exclude").and_then(Yaml::as_bool) != Some(true))
                    .filter_map(|d| text(d, "path"))
                    .map(str::to_owned),
            );
        }
        for nested in ["matrix", "merge"] {
            if let Some(inner) = generator.as_mapping_get(nested) {
                paths.extend(generator_paths(inner));
            }
        }
    }
    paths
}

/// Argo CD's shapes anywhere in a values document: a mapping with `generators` (an
/// ApplicationSet's spec) or with a `source` and a `destination` (an Application's).
fn argo_shapes(node: &Yaml<'_>, found: &mut Vec<String>) {
    if let Some(map) = node.as_mapping() {
        if node.as_mapping_get("generators").is_some() {
            found.extend(generator_paths(node));
        }
        if node.as_mapping_get("destination").is_some() {
            found.extend(application_paths(node));
        }
        for (_, child) in map {
            argo_shapes(child, found);
        }
    } else if let Some(items) = node.as_vec() {
        for item in items {
            argo_shapes(item, found);
        }
    }
}

/// The directories a kustomization in `dir` includes (`resources`, `bases`,
/// `components` entries that are directories of the repository), by their paths.
pub fn included_dirs(files: &RepoFiles, source: &impl FileSource, dir: &str) -> Vec<String> {
    let Some(name) = crate::discovery::kustomization_in(files, dir) else {
        return Vec::new();
    };
    let Some(document) = source
        .read_text(&crate::repo::child(dir, &name))
        .and_then(|t| Yaml::load_from_str(&t).ok())
        .and_then(|d| d.into_iter().next())
    else {
        return Vec::new();
    };
    let mut included = Vec::new();
    for key in ["resources", "bases", "components"] {
        for entry in document
            .as_mapping_get(key)
            .and_then(Yaml::as_vec)
            .into_iter()
            .flatten()
            .filter_map(Yaml::as_str)
        {
            if let Some(path) = join(dir, entry).filter(|p| files.has_dir(p)) {
                included.push(path);
            }
        }
    }
    included
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::MemoryRepo;

    fn read(repo: &MemoryRepo) -> GitOps {
        GitOps::read(&repo.files(), repo)
    }

    #[test]
    fn flux_kustomizations_and_local_helm_releases_name_their_trees() {
        let repo = MemoryRepo::default()
            .with(
                "kubernetes/apps/media/plex/ks.yaml",
                "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: plex\nspec:\n  path: ./kubernetes/apps/media/plex/app\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: plex-extras\nspec:\n  path: ./kubernetes/apps/media/${APP}/extras/\n",
            )
            .with(
                "kubernetes/apps/media/plex/app/helmrelease.yaml",
                "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nspec:\n  chart:\n    spec:\n      chart: ./charts/plex\n",
            )
            .with("charts/plex/Chart.yaml", "name: plex\n");
        let trees = read(&repo);
        let paths: Vec<(&str, Controller)> = trees
            .trees
            .iter()
            .map(|t| (t.path.as_str(), t.controller))
            .collect();
        assert_eq!(
            paths,
            [
                ("charts/plex", Controller::Flux),
                ("kubernetes/apps/media/*/extras", Controller::Flux),
                ("kubernetes/apps/media/plex/app", Controller::Flux),
            ]
        );
        assert_eq!(
            trees
                .deploying("kubernetes/apps/media/plex/app/config")
                .map(|t| t.said_by())
                .as_deref(),
            Some("kubernetes/apps/media/plex/ks.yaml")
        );
        assert!(trees.deploying("kubernetes/apps/media/plex").is_none());
        assert!(
            trees
                .deploying("kubernetes/apps/media/sonarr/extras")
                .is_some()
        );
    }

    #[test]
    fn argo_applications_application_sets_and_an_argo_charts_values_name_theirs() {
        let repo = MemoryRepo::default()
            .with(
                "argo/app.yaml",
                "apiVersion: argoproj.io/v1alpha1\nkind: Application\nspec:\n  source:\n    path: platform/gitea\n  sources:\n    - path: platform/dex\n  destination: { server: x }\n",
            )
            .with(
                "argo/set.yaml",
                "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nspec:\n  generators:\n    - matrix:\n        generators:\n          - git:\n              directories:\n                - path: apps/*\n                - path: apps/legacy\n                  exclude: true\n",
            )
            .with("system/argocd/Chart.yaml", "name: argocd\ndependencies:\n  - name: argo-cd\n")
            .with(
                "system/argocd/values.yaml",
                "argocd-apps:\n  applicationsets:\n    root:\n      generators:\n        - git:\n            directories:\n              - path: system/*\n      template:\n        spec:\n          destination: { name: in-cluster }\n          source:\n            path: '{{path}}'\n",
            )
            .with("other/values.yaml", "generators:\n  - git:\n      directories:\n        - path: nope/*\n");
        let trees = read(&repo);
        let paths: Vec<&str> = trees.trees.iter().map(|t| t.path.as_str()).collect();
        assert_eq!(
            paths,
            ["apps/*", "platform/dex", "platform/gitea", "system/*"]
        );
        assert!(
            trees
                .trees
                .iter()
                .all(|t| t.controller == Controller::ArgoCd)
        );
        assert_eq!(
            trees
                .deploying("apps/blog/templates")
                .map(|t| t.said_by())
                .as_deref(),
            Some("argo/set.yaml")
        );
        assert_eq!(
            trees
                .deploying("system/argocd")
                .map(|t| t.said_by())
                .as_deref(),
            Some("system/argocd/values.yaml"),
            "the values of an Argo CD chart say so too"
        );
        assert!(
            trees.deploying("nope/x").is_none(),
            "only an Argo CD chart's values"
        );
    }

    #[test]
    fn a_kustomization_names_the_directories_it_includes() {
        let repo = MemoryRepo::default()
            .with(
                "infra/kustomization.yaml",
                "resources:\n  - ./crds\n  - namespace.yaml\n  - ../shared\n  - https://example.invalid/x\n",
            )
            .with("infra/namespace.yaml", "kind: Namespace\n")
            .with("infra/crds/kustomization.yaml", "resources: []\n")
            .with("shared/kustomization.yaml", "resources: []\n");
        assert_eq!(
            included_dirs(&repo.files(), &repo, "infra"),
            ["infra/crds", "shared"]
        );
    }
}
