//! The comparison without the plugin: the release's deployed manifest against a fresh
//! render, object by object, in process.
//!
//! Both sides are what Helm rendered (the deployed side as Helm stored it, hooks
//! included), so this is what helm-diff compares: not the live objects, which the drift
//! check reads. Objects pair up by address; one only rendered is a create, one only
//! deployed a delete, one on both sides an update with the paths that differ, through
//! the kubectl adapter's fold. Helm has no replace and no tracking change.

use std::collections::BTreeMap;

use serde_json::Value;
use sluiceway_core::diff::{Change, code_unit_order};

use super::naming;
use crate::kubectl::fold::{self, ReadPair};
use crate::kubectl::objects::{self, Identity};

/// Which side of the comparison a problem is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The release as deployed (`helm get manifest` and `helm get hooks`).
    Deployed,
    /// The chart rendered now (`helm template`).
    Rendered,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Deployed => "The deployed release's manifest",
            Side::Rendered => "The rendered release",
        })
    }
}

/// A side that cannot be compared: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompareError {
    #[error("{side}: expected YAML documents.")]
    NotYaml { side: Side },
    #[error(
        "{side}, at object {object}: expected an object with apiVersion, kind and metadata.name."
    )]
    Unnamed { side: Side, object: usize },
    #[error("{side}, at object {object}: expected each object once.")]
    Twice { side: Side, object: usize },
}

/// The objects of one side by address, in the release's namespace.
pub fn objects_of(
    text: &str,
    namespace: &str,
    side: Side,
) -> Result<BTreeMap<String, (Identity, Value)>, CompareError> {
    let objects = objects::read_stream(text).map_err(|_| CompareError::NotYaml { side })?;
    let mut by_address = BTreeMap::new();
    for (i, mut object) in objects.into_iter().enumerate() {
        let identity = Identity::of(&object)
            .map(|id| naming::in_release(id, namespace))
            .ok_or(CompareError::Unnamed {
                side,
                object: i + 1,
            })?;
        // Helm puts the object where its identity says; writing it down on both sides
        // keeps a namespace spelled out in one render and left out in another from
        // counting as a change.
        if let (Some(ns), Some(Value::Object(metadata))) =
            (&identity.namespace, object.get_mut("metadata"))
        {
            metadata.insert("namespace".to_owned(), Value::String(ns.clone()));
        }
        if by_address
            .insert(identity.address(), (identity, object))
            .is_some()
        {
            return Err(CompareError::Twice {
                side,
                object: i + 1,
            });
        }
    }
    Ok(by_address)
}

/// The changes from `deployed` to `rendered` for a release in `namespace`, sorted by
/// address. An empty `deployed` is a release not installed: every object a create.
pub fn compare(
    deployed: &str,
    rendered: &str,
    namespace: &str,
) -> Result<Vec<Change>, CompareError> {
    let mut old = objects_of(deployed, namespace, Side::Deployed)?;
    let new = objects_of(rendered, namespace, Side::Rendered)?;
    let mut pairs = Vec::with_capacity(new.len() + old.len());
    for (address, (identity, object)) in new {
        let before = old.remove(&address).map(|(_, o)| o);
        pairs.push(ReadPair {
            identity,
            live: before,
            merged: Some(object),
        });
    }
    pairs.extend(old.into_values().map(|(identity, object)| ReadPair {
        identity,
        live: Some(object),
        merged: None,
    }));
    Ok(named(&pairs, namespace, fold::fold(&pairs, &|_| false)))
}

/// The fold's changes with Helm's display names and a Secret's paths as one.
pub fn named(pairs: &[ReadPair], namespace: &str, changes: Vec<Change>) -> Vec<Change> {
    let identities: BTreeMap<String, &Identity> = pairs
        .iter()
        .map(|p| (p.identity.address(), &p.identity))
        .collect();
    let mut changes: Vec<Change> = changes
        .into_iter()
        .map(|change| match identities.get(&change.address) {
            Some(identity) => Change {
                name: naming::display_name(identity, namespace),
                changed_keys: naming::secret_paths(identity, change.changed_keys),
                ..change
            },
            None => change,
        })
        .collect();
    changes.sort_by(|a, b| code_unit_order(&a.address, &b.address));
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluiceway_core::diff::Op;

    const DEPLOYED: &str = "---\n# Source: shop/templates/a.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  motd: one\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gone\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  key: old\n";
    const RENDERED: &str = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: shop\ndata:\n  motd: two\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  key: new\n";

    #[test]
    fn objects_pair_up_by_address_in_the_releases_namespace() {
        let changes = compare(DEPLOYED, RENDERED, "shop").unwrap();
        let seen: Vec<(&str, &str, Op, Vec<String>)> = changes
            .iter()
            .map(|c| {
                (
                    c.address.as_str(),
                    c.name.as_str(),
                    c.op,
                    c.changed_keys.clone(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (
                    "ConfigMap/shop/a",
                    "a",
                    Op::Update,
                    vec!["data.motd".to_owned()]
                ),
                ("ConfigMap/shop/gone", "gone", Op::Delete, vec![]),
                ("ConfigMap/shop/new", "new", Op::Create, vec![]),
                ("Secret/shop/s", "s", Op::Update, vec!["data".to_owned()]),
            ]
        );
    }

    #[test]
    fn nothing_deployed_is_all_creates_and_the_same_is_nothing() {
        let creates = compare("", RENDERED, "shop").unwrap();
        assert!(creates.iter().all(|c| c.op == Op::Create));
        assert_eq!(creates.len(), 3);
        assert!(compare(RENDERED, RENDERED, "shop").unwrap().is_empty());
    }

    #[test]
    fn an_address_twice_or_garbage_is_named() {
        let twice = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: shop\n";
        assert_eq!(
            compare("", twice, "shop").unwrap_err(),
            CompareError::Twice {
                side: Side::Rendered,
                object: 2
            }
        );
        assert_eq!(
            compare("a: [\n", RENDERED, "shop").unwrap_err(),
            CompareError::NotYaml {
                side: Side::Deployed
            }
        );
        assert_eq!(
            compare("", "kind: ConfigMap\n", "shop").unwrap_err(),
            CompareError::Unnamed {
                side: Side::Rendered,
                object: 1
            }
        );
    }
}
