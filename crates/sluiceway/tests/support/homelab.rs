//! Repositories shaped like the two public homelab layouts `init` must read well (issue
//! 25): one whose apps Flux deploys, one whose apps Argo CD deploys. Written here from
//! their structure alone (which files stand where and say what), not from their files.

use std::path::Path;

fn write(root: &Path, path: &str, text: &str) {
    let path = root.join(path);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The namespaces and apps of the Flux layout: each app a Flux `Kustomization` in its
/// `ks.yaml`, pointing at the app's own kustomization, itself a `HelmRelease`.
pub(crate) const FLUX_APPS: [(&str, &[&str]); 5] = [
    ("default", &["echo", "homepage", "atuin"]),
    ("media", &["plex", "sonarr", "radarr", "prowlarr"]),
    ("observability", &["grafana", "loki", "prometheus"]),
    ("network", &["cloudflared", "external-dns"]),
    ("database", &["cloudnative-pg", "dragonfly"]),
];

/// `kubernetes/apps/<namespace>/<app>/` trees deployed by Flux, a cluster Kustomization
/// over all of `kubernetes/apps`, a shared component every namespace includes, a
/// bootstrap kustomization applied by hand (with a nested one it includes), and two
/// OpenTofu directories: one with a backend (found), one without (proposed).
pub(crate) fn flux(root: &Path) {
    write(
        root,
        "kubernetes/flux/cluster/ks.yaml",
        "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: cluster-meta\n  namespace: flux-system\nspec:\n  interval: 30m\n  path: ./kubernetes/flux/meta\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: cluster-apps\n  namespace: flux-system\nspec:\n  dependsOn:\n    - name: cluster-meta\n  interval: 30m\n  path: ./kubernetes/apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    );
    // What `flux bootstrap` writes: the sync of the cluster's own directory.
    write(
        root,
        "kubernetes/flux/cluster/flux-system/gotk-sync.yaml",
        "---\napiVersion: source.toolkit.fluxcd.io/v1\nkind: GitRepository\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 1m0s\n  ref:\n    branch: main\n  url: ssh://git@example.invalid/home-ops\n---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: flux-system\n  namespace: flux-system\nspec:\n  interval: 10m0s\n  path: ./kubernetes/flux/cluster\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
    );
    write(
        root,
        "kubernetes/flux/meta/repositories/helm/bjw-s.yaml",
        "apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmRepository\nmetadata:\n  name: bjw-s\n  namespace: flux-system\nspec:\n  url: oci://ghcr.io/bjw-s/helm\n",
    );
    write(
        root,
        "kubernetes/flux/meta/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./repositories/helm/bjw-s.yaml\n",
    );
    write(
        root,
        "kubernetes/components/common/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - ./namespace.yaml\n",
    );
    // Components a Flux `Kustomization` includes through its own `spec.components`, as
    // the layout's backup and scale-to-zero components are: no kustomization file names
    // them, and each holds manifests of its own (issue 44).
    for (component, manifest) in [
        ("kopiur/backup", "replicationsource.yaml"),
        ("zeroscaler", "scaledobject.yaml"),
    ] {
        write(
            root,
            &format!("kubernetes/components/{component}/kustomization.yaml"),
            &format!(
                "---\n# yaml-language-server: $schema=https://json.schemastore.org/kustomization\napiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\nresources:\n  - ./{manifest}\n"
            ),
        );
        write(
            root,
            &format!("kubernetes/components/{component}/{manifest}"),
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"${APP}\"\n",
        );
    }
    write(
        root,
        "kubernetes/components/common/namespace.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: _\n",
    );
    for (namespace, apps) in FLUX_APPS {
        let resources: String = apps
            .iter()
            .map(|a| format!("  - ./{a}/ks.yaml\n"))
            .collect();
        write(
            root,
            &format!("kubernetes/apps/{namespace}/kustomization.yaml"),
            &format!(
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: {namespace}\ncomponents:\n  - ../../components/common\nresources:\n{resources}"
            ),
        );
        for app in apps {
            let dir = format!("kubernetes/apps/{namespace}/{app}");
            write(
                root,
                &format!("{dir}/ks.yaml"),
                &format!(
                    "---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: &app {app}\n  namespace: flux-system\nspec:\n  targetNamespace: {namespace}\n  path: ./{dir}/app\n  components:\n    - ../../../../components/kopiur/backup\n    - ../../../../components/zeroscaler\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n  interval: 1h\n"
                ),
            );
            write(
                root,
                &format!("{dir}/app/kustomization.yaml"),
                "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./helmrelease.yaml\n",
            );
            write(
                root,
                &format!("{dir}/app/helmrelease.yaml"),
                &format!(
                    "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: {app}\nspec:\n  chart:\n    spec:\n      chart: app-template\n      version: 3.7.3\n      sourceRef:\n        kind: HelmRepository\n        name: bjw-s\n        namespace: flux-system\n  values:\n    controllers:\n      {app}:\n        containers:\n          app:\n            image:\n              repository: ghcr.io/example/{app}\n"
                ),
            );
        }
    }
    write(
        root,
        "kubernetes/bootstrap/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./crds\n  - ./namespace.yaml\n",
    );
    write(
        root,
        "kubernetes/bootstrap/namespace.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: flux-system\n",
    );
    write(
        root,
        "kubernetes/bootstrap/crds/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - ./prometheus-crds.yaml\n",
    );
    write(
        root,
        "kubernetes/bootstrap/crds/prometheus-crds.yaml",
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: servicemonitors.monitoring.coreos.com\n",
    );
    write(
        root,
        "terraform/cloudflare/main.tf",
        "terraform {\n  backend \"s3\" {}\n}\n\nresource \"terraform_data\" \"zone\" {}\n",
    );
    write(
        root,
        "terraform/authentik/main.tf",
        "resource \"terraform_data\" \"flows\" {}\n",
    );
    write(root, "README.md", "# home-ops\n");
}

/// The charts of the Argo CD layout, by the directory their `ApplicationSet` generator
/// names.
pub(crate) const ARGO_CHARTS: [(&str, &[&str]); 3] = [
    (
        "system",
        &["argocd", "cert-manager", "ingress-nginx", "monitoring"],
    ),
    ("platform", &["gitea", "dex", "zot"]),
    ("apps", &["homepage", "jellyfin", "matrix", "paperless"]),
];

/// `system/`, `platform/` and `apps/` of Helm charts that Argo CD deploys: its own chart
/// in `system/argocd` holds, in its values, the `ApplicationSet` whose git directory
/// generators name the three trees; a bootstrap kustomization applied by hand; OpenTofu
/// with a backend under `external/`, whose `required_version` the pinned OpenTofu 1.6.2
/// does not meet; Ansible under `metal/`.
pub(crate) fn argo(root: &Path) {
    for (tree, charts) in ARGO_CHARTS {
        for chart in charts {
            let dir = format!("{tree}/{chart}");
            let dependency = if *chart == "argocd" {
                "dependencies:\n  - name: argo-cd\n    version: 7.7.0\n    repository: https://argoproj.github.io/argo-helm\n  - name: argocd-apps\n    version: 2.0.0\n    repository: https://argoproj.github.io/argo-helm\n".to_owned()
            } else {
                format!(
                    "dependencies:\n  - name: {chart}\n    version: 1.0.0\n    repository: https://charts.example.invalid\n"
                )
            };
            write(
                root,
                &format!("{dir}/Chart.yaml"),
                &format!("apiVersion: v2\nname: {chart}\nversion: 0.0.0\n{dependency}"),
            );
            write(
                root,
                &format!("{dir}/values.yaml"),
                &format!("{chart}:\n  enabled: true\n"),
            );
        }
    }
    write(
        root,
        "system/argocd/values.yaml",
        "argo-cd:\n  global:\n    domain: argocd.example.invalid\nargocd-apps:\n  applicationsets:\n    root:\n      generators:\n        - git:\n            repoURL: &repoURL https://git.example.invalid/ops/homelab\n            revision: &revision master\n            directories:\n              - path: system/*\n              - path: platform/*\n              - path: apps/*\n      template:\n        metadata:\n          name: '{{path.basename}}'\n        spec:\n          destination:\n            name: in-cluster\n            namespace: '{{path.basename}}'\n          project: default\n          source:\n            repoURL: *repoURL\n            path: '{{path}}'\n            targetRevision: *revision\n",
    );
    // The seed values the bootstrap installs Argo CD with list the same trees again.
    write(
        root,
        "system/argocd/values-seed.yaml",
        "argo-cd:\n  server:\n    insecure: true\nargocd-apps:\n  applicationsets:\n    root:\n      generators:\n        - git:\n            repoURL: https://git.example.invalid/ops/homelab\n            revision: master\n            directories:\n              - path: system/*\n              - path: platform/*\n              - path: apps/*\n      template:\n        spec:\n          destination:\n            name: in-cluster\n          source:\n            path: '{{path}}'\n",
    );
    write(
        root,
        "bootstrap/argocd/kustomization.yaml",
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: argocd\nresources:\n  - ./namespace.yaml\n",
    );
    write(
        root,
        "bootstrap/argocd/namespace.yaml",
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: argocd\n",
    );
    write(
        root,
        "external/main.tf",
        "terraform {\n  backend \"s3\" {}\n}\n\nresource \"terraform_data\" \"dns\" {}\n",
    );
    write(
        root,
        "external/versions.tf",
        "terraform {\n  required_version = \"~> 1.7\"\n}\n",
    );
    write(
        root,
        "metal/playbooks/cluster.yml",
        "- name: Create the cluster\n  hosts: metal\n  roles:\n    - k3s\n",
    );
}
