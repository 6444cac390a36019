//! How a release's objects are named, whichever way they were compared.
//!
//! A chart's templates usually leave `metadata.namespace` out and Helm puts the object in
//! the release's namespace, so an object without one is named in that namespace, unless
//! its kind is one Kubernetes never places in a namespace. The address is the kubectl
//! adapter's (`ConfigMap/shop/settings`, `ClusterRole.rbac.authorization.k8s.io/reader`);
//! the display name is the object's name, with its namespace only when that is not the
//! release's.

use sluiceway_core::diff::Change;

use crate::kubernetes::objects::Identity;

/// Built-in kinds that live outside every namespace, by API group. A custom resource
/// of cluster scope that a chart leaves without a namespace is named in the release's,
/// as helm-diff names it.
const CLUSTER_SCOPED: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
    ),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    ("networking.k8s.io", "IngressClass"),
    ("node.k8s.io", "RuntimeClass"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"),
    ("storage.k8s.io", "StorageClass"),
    ("storage.k8s.io", "VolumeAttachment"),
];

/// Whether Kubernetes keeps objects of this kind outside every namespace.
pub fn is_cluster_scoped(group: &str, kind: &str) -> bool {
    CLUSTER_SCOPED.contains(&(group, kind))
}

/// The identity Helm gives an object of a release in `namespace`.
pub fn in_release(mut identity: Identity, namespace: &str) -> Identity {
    if is_cluster_scoped(&identity.group, &identity.kind) {
        identity.namespace = None;
    } else if identity.namespace.as_deref().is_none_or(str::is_empty) {
        identity.namespace = Some(namespace.to_owned());
    }
    identity
}

/// The display name of an object of a release in `namespace`.
pub fn display_name(identity: &Identity, namespace: &str) -> String {
    match &identity.namespace {
        Some(ns) if ns != namespace => format!("{ns}/{}", identity.name),
        _ => identity.name.clone(),
    }
}

/// A change to one object of the release, with no keys yet.
pub fn change(identity: &Identity, namespace: &str, op: sluiceway_core::diff::Op) -> Change {
    Change::new(
        identity.address(),
        identity.kind.clone(),
        display_name(identity, namespace),
        op,
    )
}

/// A Secret's `data` and `stringData` are one path, `data`: Kubernetes folds one into
/// the other, and neither a key's value nor its length may show. Other objects' paths
/// stay as they are.
pub fn secret_paths(identity: &Identity, keys: Vec<String>) -> Vec<String> {
    if !identity.is_core("Secret") {
        return keys;
    }
    let mut folded: Vec<String> = keys
        .into_iter()
        .map(|key| {
            let top = key.split(['.', '[']).next().unwrap_or_default();
            if top == "data" || top == "stringData" {
                "data".to_owned()
            } else {
                key
            }
        })
        .collect();
    folded.sort();
    folded.dedup();
    folded
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(group: &str, kind: &str, namespace: Option<&str>, name: &str) -> Identity {
        Identity {
            group: group.into(),
            kind: kind.into(),
            namespace: namespace.map(str::to_owned),
            name: name.into(),
        }
    }

    #[test]
    fn objects_without_a_namespace_land_in_the_releases() {
        let settings = in_release(id("", "ConfigMap", None, "settings"), "shop");
        assert_eq!(settings.address(), "ConfigMap/shop/settings");
        assert_eq!(display_name(&settings, "shop"), "settings");
        let elsewhere = in_release(id("", "ConfigMap", Some("other"), "settings"), "shop");
        assert_eq!(elsewhere.address(), "ConfigMap/other/settings");
        assert_eq!(display_name(&elsewhere, "shop"), "other/settings");
        let role = in_release(
            id(
                "rbac.authorization.k8s.io",
                "ClusterRole",
                Some("shop"),
                "reader",
            ),
            "shop",
        );
        assert_eq!(
            role.address(),
            "ClusterRole.rbac.authorization.k8s.io/reader"
        );
        assert_eq!(display_name(&role, "shop"), "reader");
    }

    #[test]
    fn a_secrets_keys_are_one_path() {
        let secret = id("", "Secret", Some("shop"), "credentials");
        assert_eq!(
            secret_paths(
                &secret,
                vec![
                    "data[\"api-key\"]".into(),
                    "stringData".into(),
                    "metadata.labels.tier".into()
                ]
            ),
            ["data", "metadata.labels.tier"]
        );
        let map = id("", "ConfigMap", Some("shop"), "settings");
        assert_eq!(secret_paths(&map, vec!["data.motd".into()]), ["data.motd"]);
    }
}
