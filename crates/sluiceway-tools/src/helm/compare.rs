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
use sluiceway_core::values::ValueList;

use super::naming;
use crate::kubernetes::fold::{self, ReadPair};
use crate::kubernetes::objects::{self, Identity};

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

/// The documents of a YAML stream, each from its `---` line: a marker at the start of a
/// line always begins a document, so each can be read on its own.
fn documents(text: &str) -> impl Iterator<Item = &str> {
    let mut starts = vec![0];
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let marker = bare == "---" || bare.starts_with("--- ") || bare.starts_with("---\t");
        if marker && offset > 0 {
            starts.push(offset);
        }
        offset += line.len();
    }
    starts.push(text.len());
    let pieces: Vec<&str> = starts.windows(2).map(|w| &text[w[0]..w[1]]).collect();
    pieces.into_iter()
}

/// Reads one side a document at a time, so no more than one document's objects are
/// held as trees at once, and hands each object on with its identity in the release.
fn each_object(
    text: &str,
    namespace: &str,
    side: Side,
    mut each: impl FnMut(usize, Identity, Value) -> Result<(), CompareError>,
) -> Result<(), CompareError> {
    let mut number = 0;
    for document in documents(text) {
        let objects = objects::read_stream(document).map_err(|_| CompareError::NotYaml { side })?;
        for mut object in objects {
            number += 1;
            let identity = Identity::of(&object)
                .map(|id| naming::in_release(id, namespace))
                .ok_or(CompareError::Unnamed {
                    side,
                    object: number,
                })?;
            // Helm puts the object where its identity says; writing it down on both
            // sides keeps a namespace spelled out in one render and left out in another
            // from counting as a change.
            if let (Some(ns), Some(Value::Object(metadata))) =
                (&identity.namespace, object.get_mut("metadata"))
            {
                metadata.insert("namespace".to_owned(), Value::String(ns.clone()));
            }
            each(number, identity, object)?;
        }
    }
    Ok(())
}

/// The objects of one side by address, in the release's namespace, as trees.
pub fn objects_of(
    text: &str,
    namespace: &str,
    side: Side,
) -> Result<BTreeMap<String, (Identity, Value)>, CompareError> {
    let mut by_address = BTreeMap::new();
    each_object(
        text,
        namespace,
        side,
        |object, identity, value| match by_address.insert(identity.address(), (identity, value)) {
            Some(_) => Err(CompareError::Twice { side, object }),
            None => Ok(()),
        },
    )?;
    Ok(by_address)
}

/// The objects of one side by address, each as compact JSON: a fraction of the memory a
/// tree takes, and two equal objects are two equal strings (keys sort).
fn compact_objects_of(
    text: &str,
    namespace: &str,
    side: Side,
) -> Result<BTreeMap<String, (Identity, String)>, CompareError> {
    let mut by_address = BTreeMap::new();
    each_object(text, namespace, side, |object, identity, value| {
        let compact = value.to_string();
        match by_address.insert(identity.address(), (identity, compact)) {
            Some(_) => Err(CompareError::Twice { side, object }),
            None => Ok(()),
        }
    })?;
    Ok(by_address)
}

/// The changes from `deployed` to `rendered` for a release in `namespace`, sorted by
/// address. An empty `deployed` is a release not installed: every object a create.
/// Objects equal on both sides are skipped unread; the others are read back into trees
/// one pair at a time and folded.
pub fn compare(
    deployed: &str,
    rendered: &str,
    namespace: &str,
    values: &ValueList,
) -> Result<Vec<Change>, CompareError> {
    let mut old = compact_objects_of(deployed, namespace, Side::Deployed)?;
    let new = compact_objects_of(rendered, namespace, Side::Rendered)?;
    let tree = |compact: &str| serde_json::from_str::<Value>(compact).ok();
    let mut changes = Vec::new();
    let mut fold_one = |pair: ReadPair| {
        let pairs = [pair];
        changes.extend(named(
            &pairs,
            namespace,
            fold::fold(&pairs, &|_| false, values),
        ));
    };
    for (address, (identity, after)) in new {
        let before = old.remove(&address).map(|(_, b)| b);
        if before.as_deref() == Some(after.as_str()) {
            continue;
        }
        fold_one(ReadPair {
            identity,
            live: before.as_deref().and_then(tree),
            merged: tree(&after),
        });
    }
    for (identity, before) in old.into_values() {
        fold_one(ReadPair {
            identity,
            live: tree(&before),
            merged: None,
        });
    }
    changes.sort_by(|a, b| code_unit_order(&a.address, &b.address));
    Ok(changes)
}

/// The fold's changes with Helm's display names and a Secret's paths as one.
fn named(pairs: &[ReadPair], namespace: &str, changes: Vec<Change>) -> Vec<Change> {
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
        let changes = compare(DEPLOYED, RENDERED, "shop", &ValueList::default()).unwrap();
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
        let creates = compare("", RENDERED, "shop", &ValueList::default()).unwrap();
        assert!(creates.iter().all(|c| c.op == Op::Create));
        assert_eq!(creates.len(), 3);
        assert!(
            compare(RENDERED, RENDERED, "shop", &ValueList::default())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn an_address_twice_or_garbage_is_named() {
        let twice = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: shop\n";
        assert_eq!(
            compare("", twice, "shop", &ValueList::default()).unwrap_err(),
            CompareError::Twice {
                side: Side::Rendered,
                object: 2
            }
        );
        assert_eq!(
            compare("a: [\n", RENDERED, "shop", &ValueList::default()).unwrap_err(),
            CompareError::NotYaml {
                side: Side::Deployed
            }
        );
        assert_eq!(
            compare("", "kind: ConfigMap\n", "shop", &ValueList::default()).unwrap_err(),
            CompareError::Unnamed {
                side: Side::Rendered,
                object: 1
            }
        );
    }
}
