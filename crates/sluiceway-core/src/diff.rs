//! The diff: what a preview found for one stack, as addresses, ops and property paths.
//! Never values, but for those the value list lets a row show (decision 0052).
//!
//! The diff hash is what a tick approves and what a deploy must reproduce, so it covers
//! exactly the diff and nothing derived from it (counts, text, times).

use std::cmp::Ordering;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::stack::StackId;

/// What a change does to its resource.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Op {
    Create,
    Update,
    Replace,
    Delete,
    None,
}

impl Op {
    pub fn name(self) -> &'static str {
        match self {
            Op::Create => "create",
            Op::Update => "update",
            Op::Replace => "replace",
            Op::Delete => "delete",
            Op::None => "none",
        }
    }
}

/// A change to how the tool tracks a resource, not to the resource.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Tracking {
    Import,
    Forget,
    Move,
}

impl Tracking {
    pub fn name(self) -> &'static str {
        match self {
            Tracking::Import => "import",
            Tracking::Forget => "forget",
            Tracking::Move => "move",
        }
    }
}

/// One entry of a diff.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Change {
    /// The tool's own name for the resource; unique within a diff, never parsed.
    pub address: String,
    /// For display: the resource's type (a Kubernetes kind, an OpenTofu type).
    pub kind: String,
    /// For display: the resource's name.
    pub name: String,
    pub op: Op,
    pub tracking: Option<Tracking>,
    /// Only with `Tracking::Move`.
    pub previous_address: Option<String>,
    /// Property paths that change; empty for creates and deletes.
    pub changed_keys: Vec<String>,
    /// The changed paths that force a replace; always also in `changed_keys`.
    pub replace_keys: Vec<String>,
    /// The digest of the values this change sets and its row does not show (decision
    /// 0102); not part of the hash.
    pub fingerprint: Option<String>,
    /// The values `dashboard.showValues` lets its row show, sorted by path, shortened in
    /// the adapter; part of the hash, so a tick approves what it saw (decision 0052).
    pub values: Vec<crate::values::ShownValue>,
}

impl Change {
    /// A change with an op and no keys, tracking or previous address.
    pub fn new(
        address: impl Into<String>,
        kind: impl Into<String>,
        name: impl Into<String>,
        op: Op,
    ) -> Change {
        Change {
            address: address.into(),
            kind: kind.into(),
            name: name.into(),
            op,
            tracking: None,
            previous_address: None,
            changed_keys: Vec::new(),
            replace_keys: Vec::new(),
            fingerprint: None,
            values: Vec::new(),
        }
    }
}

/// Everything a preview found for one stack.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Diff {
    pub stack: StackId,
    pub changes: Vec<Change>,
    /// What the drift check found; `None` when no drift check ran.
    pub drift: Option<Vec<Change>>,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.drift.as_ref().is_none_or(Vec::is_empty)
    }

    /// The row's value fingerprint, when any change has one.
    pub fn fingerprint(&self) -> Option<String> {
        crate::fingerprint::of_row(&self.stack, &self.changes, self.drift.as_deref())
    }

    /// The diff as a stack's `valueFingerprint` has it: unchanged when on, with no
    /// fingerprint anywhere when off.
    pub fn fingerprinted(mut self, on: bool) -> Diff {
        if !on {
            for change in self
                .changes
                .iter_mut()
                .chain(self.drift.iter_mut().flatten())
            {
                change.fingerprint = None;
            }
        }
        self
    }

    /// The 16 lowercase hex digits that name this exact diff.
    pub fn hash(&self) -> String {
        let digest = Sha256::digest(self.canonical_json().as_bytes());
        digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
    }

    /// The hash input: `{stackId, changes[, drift]}` with changes sorted by address, key
    /// lists sorted and de-duplicated, object keys sorted, absent optionals left out, no
    /// whitespace, every sort by UTF-16 code unit.
    pub fn canonical_json(&self) -> String {
        let mut doc = Map::new();
        doc.insert("stackId".to_owned(), Value::String(self.stack.to_string()));
        doc.insert("changes".to_owned(), changes_json(&self.changes));
        if let Some(drift) = self.drift.as_ref().filter(|d| !d.is_empty()) {
            doc.insert("drift".to_owned(), changes_json(drift));
        }
        let mut out = String::new();
        write_canonical(&Value::Object(doc), &mut out);
        out
    }
}

/// Orders text by UTF-16 code unit, as the hash and every list a person reads do.
pub fn code_unit_order(a: &str, b: &str) -> Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn sorted_unique(keys: &[String]) -> Vec<String> {
    let mut keys = keys.to_vec();
    keys.sort_by(|a, b| code_unit_order(a, b));
    keys.dedup();
    keys
}

fn changes_json(changes: &[Change]) -> Value {
    let mut sorted: Vec<&Change> = changes.iter().collect();
    sorted.sort_by(|a, b| code_unit_order(&a.address, &b.address));
    Value::Array(
        sorted
            .into_iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("address".into(), Value::String(c.address.clone()));
                m.insert("changedKeys".into(), sorted_unique(&c.changed_keys).into());
                m.insert("name".into(), Value::String(c.name.clone()));
                m.insert("op".into(), Value::String(c.op.name().into()));
                if let Some(previous) = &c.previous_address {
                    m.insert("previousAddress".into(), Value::String(previous.clone()));
                }
                m.insert("replaceKeys".into(), sorted_unique(&c.replace_keys).into());
                if let Some(tracking) = c.tracking {
                    m.insert("tracking".into(), Value::String(tracking.name().into()));
                }
                m.insert("type".into(), Value::String(c.kind.clone()));
                if !c.values.is_empty() {
                    let mut values = c.values.clone();
                    values.sort_by(|a, b| code_unit_order(&a.path, &b.path));
                    let values = values
                        .into_iter()
                        .map(|v| {
                            let mut side = Map::new();
                            side.insert("path".into(), Value::String(v.path));
                            if let Some(old) = v.old {
                                side.insert("old".into(), Value::String(old));
                            }
                            if let Some(new) = v.new {
                                side.insert("new".into(), Value::String(new));
                            }
                            Value::Object(side)
                        })
                        .collect();
                    m.insert("values".into(), Value::Array(values));
                }
                Value::Object(m)
            })
            .collect(),
    )
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| code_unit_order(a, b));
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn web_update() -> Change {
        Change {
            changed_keys: vec![
                "spec.replicas".into(),
                "spec.template.spec.containers[0].image".into(),
            ],
            ..Change::new(
                "Deployment.apps/shop/web",
                "Deployment",
                "shop/web",
                Op::Update,
            )
        }
    }

    /// Written out by hand: the canonical document and its SHA-256 (computed outside
    /// Rust with `printf '%s' '<document>' | sha256sum | cut -c1-16`).
    #[test]
    fn fixed_vectors() {
        let diff = Diff {
            stack: StackId::derive("k8s/web", None),
            changes: vec![web_update()],
            drift: None,
        };
        assert_eq!(
            diff.canonical_json(),
            r#"{"changes":[{"address":"Deployment.apps/shop/web","changedKeys":["spec.replicas","spec.template.spec.containers[0].image"],"name":"shop/web","op":"update","replaceKeys":[],"type":"Deployment"}],"stackId":"k8s/web"}"#
        );
        assert_eq!(diff.hash(), "b6e09908ce23bf5c");

        // A value the list shows joins the hash; an empty list leaves it as it was.
        let shown = Diff {
            stack: StackId::derive("k8s/web", None),
            changes: vec![Change {
                values: vec![crate::values::ShownValue {
                    path: "spec.replicas".into(),
                    old: Some("1".into()),
                    new: Some("2".into()),
                }],
                ..web_update()
            }],
            drift: None,
        };
        assert_eq!(
            shown.canonical_json(),
            r#"{"changes":[{"address":"Deployment.apps/shop/web","changedKeys":["spec.replicas","spec.template.spec.containers[0].image"],"name":"shop/web","op":"update","replaceKeys":[],"type":"Deployment","values":[{"new":"2","old":"1","path":"spec.replicas"}]}],"stackId":"k8s/web"}"#
        );
        assert_eq!(shown.hash(), "f43b40503a1baaca");

        let empty = Diff {
            stack: StackId::derive(".", Some("prod")),
            changes: vec![],
            drift: Some(vec![]),
        };
        assert_eq!(
            empty.canonical_json(),
            r#"{"changes":[],"stackId":".:prod"}"#
        );
        assert_eq!(empty.hash(), "9f4066158a19f335");

        let moved = Change {
            tracking: Some(Tracking::Move),
            previous_address: Some("aws_s3_bucket.old".into()),
            changed_keys: vec![
                "tags[\"b\"]".into(),
                "tags[\"a\"]".into(),
                "tags[\"a\"]".into(),
            ],
            replace_keys: vec!["tags[\"a\"]".into()],
            ..Change::new("aws_s3_bucket.logs", "aws_s3_bucket", "logs", Op::Replace)
        };
        let gone = Change::new(
            "ConfigMap/shop/extra",
            "ConfigMap",
            "shop/extra",
            Op::Delete,
        );
        let diff = Diff {
            stack: StackId::derive("infra", None),
            changes: vec![moved],
            drift: Some(vec![gone]),
        };
        assert_eq!(
            diff.canonical_json(),
            r#"{"changes":[{"address":"aws_s3_bucket.logs","changedKeys":["tags[\"a\"]","tags[\"b\"]"],"name":"logs","op":"replace","previousAddress":"aws_s3_bucket.old","replaceKeys":["tags[\"a\"]"],"tracking":"move","type":"aws_s3_bucket"}],"drift":[{"address":"ConfigMap/shop/extra","changedKeys":[],"name":"shop/extra","op":"delete","replaceKeys":[],"type":"ConfigMap"}],"stackId":"infra"}"#
        );
        assert_eq!(diff.hash(), "834070270bf69a0a");
    }

    #[test]
    fn code_unit_order_is_not_byte_order() {
        // U+FF5E sorts after U+1F600 in UTF-8 bytes but before it in UTF-16 code units.
        assert_eq!(code_unit_order("\u{1F600}", "\u{FF5E}"), Ordering::Less);
        assert_eq!("\u{1F600}".cmp("\u{FF5E}"), Ordering::Greater);
    }

    proptest! {
        /// The hash does not depend on the order of changes or of keys, nor on duplicates.
        #[test]
        fn the_hash_ignores_order_and_duplicates(
            addresses in proptest::collection::btree_set("[a-z]{1,6}", 1..6),
            keys in proptest::collection::vec("[a-z.\\[\\]0-9]{1,8}", 0..5),
            rotate in 0usize..6,
        ) {
            let changes: Vec<Change> = addresses.iter().map(|a| Change {
                changed_keys: keys.clone(),
                ..Change::new(a.clone(), "T", a.clone(), Op::Update)
            }).collect();
            let mut shuffled = changes.clone();
            shuffled.rotate_left(rotate % changes.len());
            for c in &mut shuffled {
                c.changed_keys.reverse();
                c.changed_keys.extend(keys.first().cloned());
            }
            let stack = StackId::derive("s", None);
            let a = Diff { stack: stack.clone(), changes, drift: None };
            let b = Diff { stack, changes: shuffled, drift: None };
            prop_assert_eq!(a.hash(), b.hash());
        }
    }
}
