//! Any text as a YAML file that may say a GitOps controller deploys a tree, as the values
//! of an Argo CD chart, and as a kustomization: reading never panics, and every tree it
//! names is a path inside the repository.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_core::discovery::gitops::{GitOps, included_dirs};
use sluiceway_core::repo::MemoryRepo;

fuzz_target!(|text: &str| {
    let repo = MemoryRepo::default()
        .with("clusters/home/ks.yaml", text)
        .with("system/argocd/Chart.yaml", "name: argocd\ndependencies:\n  - name: argo-cd\n")
        .with("system/argocd/values.yaml", text)
        .with("infra/kustomization.yaml", text)
        .with("infra/crds/kustomization.yaml", "resources: []\n");
    let files = repo.files();
    let gitops = GitOps::read(&files, &repo);
    for tree in &gitops.trees {
        assert!(!tree.path.starts_with('/') && !tree.path.split('/').any(|p| p == ".."), "{tree:?}");
        let _ = gitops.deploying(&tree.path);
    }
    for dir in included_dirs(&files, &repo, "infra") {
        assert!(files.has_dir(&dir), "{dir}");
    }
});
