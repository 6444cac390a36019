//! The value fingerprint (decision 0102): a tick covers the values its row does not
//! show. A row names addresses, ops and paths; when a value under a shown path changes
//! after the tick, the diff hash stays the same, so each change also gets a digest of
//! the values it sets, and a row a digest of those. Only digests leave the adapter.
//!
//! An entry is `{"path":p,"old":v}`, `{"path":p,"new":v}`, `{"path":p,"new":v,"old":v}`
//! or `{"path":p,"secret":true}`; entries sorted by path (code units), ties by their
//! text; keys sorted, no whitespace; SHA-256, the first 16 hex digits.

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::diff::{Change, code_unit_order};
use crate::property_path::{PropertyPath, Step};
use crate::stack::StackId;

/// One leaf the change sets, or a secret mark with nothing read below it.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Value {
        path: String,
        old: Option<Value>,
        new: Option<Value>,
    },
    Secret {
        path: String,
    },
}

impl Entry {
    pub fn path(&self) -> &str {
        match self {
            Entry::Value { path, .. } | Entry::Secret { path } => path,
        }
    }

    /// The entry's canonical text, written key by key in their sorted order (`new`,
    /// `old`, `path`, `secret`) without building an object first.
    fn json(&self) -> String {
        let mut out = Vec::new();
        match self {
            Entry::Value { path, old, new } => {
                out.push(b'{');
                for (key, value) in [("new", new), ("old", old)] {
                    if let Some(value) = value {
                        write_json(&mut out, key);
                        out.push(b':');
                        write_canonical(&mut out, value);
                        out.push(b',');
                    }
                }
                out.extend_from_slice(b"\"path\":");
                write_json(&mut out, path);
                out.push(b'}');
            }
            Entry::Secret { path } => {
                out.extend_from_slice(b"{\"path\":");
                write_json(&mut out, path);
                out.extend_from_slice(b",\"secret\":true}");
            }
        }
        into_text(out)
    }
}

/// The leaves that differ between two sides of one resource: every leaf of a side that
/// is alone (a create), the changed leaves of both (an update). `is_secret` is asked at
/// every named path; a secret subtree that differs is one entry, nothing below it read.
/// A missing side and `null` are the same; empty containers give nothing.
pub fn leaves(
    old: Option<&Value>,
    new: Option<&Value>,
    is_secret: &dyn Fn(&[Step]) -> bool,
) -> Vec<Entry> {
    let mut found = Vec::new();
    walk(old, new, is_secret, &mut Vec::new(), &mut found);
    found
}

fn walk(
    old: Option<&Value>,
    new: Option<&Value>,
    is_secret: &dyn Fn(&[Step]) -> bool,
    at: &mut Vec<Step>,
    found: &mut Vec<Entry>,
) {
    let old = old.filter(|v| !v.is_null());
    let new = new.filter(|v| !v.is_null());
    // Equal sides set nothing anywhere below: the walk goes down only where they part.
    if old == new {
        return;
    }
    let here = |at: &[Step]| PropertyPath::from_steps(at.to_vec()).to_string();
    if !at.is_empty() && is_secret(at) {
        found.push(Entry::Secret { path: here(at) });
        return;
    }
    let container = |v: Option<&Value>| matches!(v, Some(Value::Object(_) | Value::Array(_)));
    let mut steps: Vec<Step> = Vec::new();
    for side in [old, new] {
        match side {
            Some(Value::Object(map)) => {
                for key in map.keys() {
                    let step = Step::Field(key.clone());
                    if !steps.contains(&step) {
                        steps.push(step);
                    }
                }
            }
            Some(Value::Array(items)) => {
                for i in 0..items.len() {
                    if !steps.contains(&Step::Index(i)) {
                        steps.push(Step::Index(i));
                    }
                }
            }
            _ => {}
        }
    }
    // A scalar on one side where the other has a container: the scalar at this path,
    // and the container's leaves under it.
    let scalar = |v: Option<&Value>| v.filter(|v| !container(Some(v))).cloned();
    let (old_scalar, new_scalar) = (scalar(old), scalar(new));
    if (old_scalar.is_some() || new_scalar.is_some()) && old_scalar != new_scalar && !at.is_empty()
    {
        found.push(Entry::Value {
            path: here(at),
            old: old_scalar,
            new: new_scalar,
        });
    }
    for step in steps {
        let (o, n) = (child(old, &step), child(new, &step));
        at.push(step.clone());
        walk(o, n, is_secret, at, found);
        at.pop();
    }
}

fn child<'v>(side: Option<&'v Value>, step: &Step) -> Option<&'v Value> {
    match (side, step) {
        (Some(Value::Object(map)), Step::Field(key)) => map.get(key),
        (Some(Value::Array(items)), Step::Index(i)) => items.get(*i),
        _ => None,
    }
}

/// The fingerprint of one change's entries; `None` when there are none.
pub fn of_entries(mut entries: Vec<Entry>) -> Option<String> {
    if entries.is_empty() {
        return None;
    }
    let mut texts: Vec<(String, String)> = entries
        .drain(..)
        .map(|e| (e.path().to_owned(), e.json()))
        .collect();
    texts.sort_by(|a, b| code_unit_order(&a.0, &b.0).then_with(|| code_unit_order(&a.1, &b.1)));
    let list = format!(
        "[{}]",
        texts
            .into_iter()
            .map(|(_, text)| text)
            .collect::<Vec<_>>()
            .join(",")
    );
    Some(short_digest(&list))
}

/// The row's fingerprint over the changes (and drift) that have one; `None` when none
/// has, so the row carries no fingerprint at all.
pub fn of_row(stack: &StackId, changes: &[Change], drift: Option<&[Change]>) -> Option<String> {
    let listed = |changes: &[Change]| -> Vec<Value> {
        let mut with: Vec<&Change> = changes.iter().filter(|c| c.fingerprint.is_some()).collect();
        with.sort_by(|a, b| code_unit_order(&a.address, &b.address));
        with.into_iter()
            .map(|c| {
                let mut m = Map::new();
                m.insert("address".into(), Value::String(c.address.clone()));
                m.insert(
                    "fingerprint".into(),
                    Value::String(c.fingerprint.clone().unwrap_or_default()),
                );
                Value::Object(m)
            })
            .collect()
    };
    let changes = listed(changes);
    let drift = drift.map(listed).unwrap_or_default();
    if changes.is_empty() && drift.is_empty() {
        return None;
    }
    let mut doc = Map::new();
    doc.insert("changes".into(), Value::Array(changes));
    if !drift.is_empty() {
        doc.insert("drift".into(), Value::Array(drift));
    }
    doc.insert("stackId".into(), Value::String(stack.to_string()));
    Some(short_digest(&canonical(&Value::Object(doc))))
}

/// The first 16 lowercase hex digits of the SHA-256 of `text`: how every digest a
/// marker carries is written.
pub fn short_digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// JSON with object keys sorted by code unit and no whitespace.
fn canonical(value: &Value) -> String {
    let mut out = Vec::new();
    write_canonical(&mut out, value);
    into_text(out)
}

fn write_canonical(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by(|a, b| code_unit_order(a, b));
            write_list(out, [b'{', b'}'], keys, |out, key| {
                write_json(out, key);
                out.push(b':');
                write_canonical(out, &map[key]);
            });
        }
        Value::Array(items) => write_list(out, [b'[', b']'], items, write_canonical),
        scalar => write_json(out, scalar),
    }
}

/// The items between their brackets, a comma between each two.
fn write_list<T>(
    out: &mut Vec<u8>,
    [open, close]: [u8; 2],
    items: impl IntoIterator<Item = T>,
    write: impl Fn(&mut Vec<u8>, T),
) {
    out.push(open);
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(out, item);
    }
    out.push(close);
}

/// Compact JSON, as `serde_json` writes it; writing into a buffer cannot fail.
fn write_json(out: &mut Vec<u8>, value: &(impl serde::Serialize + ?Sized)) {
    serde_json::to_writer(out, value).expect("JSON written to memory");
}

/// The canonical text, which JSON written by `serde_json` always is.
fn into_text(out: Vec<u8>) -> String {
    String::from_utf8(out).expect("JSON is UTF-8")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::diff::Op;

    fn none(_: &[Step]) -> bool {
        false
    }

    #[test]
    fn an_update_fingerprints_the_values_of_the_leaves_that_differ() {
        let old = json!({"input": {"cidr": "10.20.0.0/16", "name": "vpc"}});
        let new = json!({"input": {"cidr": "10.30.0.0/16", "name": "vpc"}});
        assert_eq!(
            leaves(Some(&old), Some(&new), &none),
            [Entry::Value {
                path: "input.cidr".into(),
                old: Some(json!("10.20.0.0/16")),
                new: Some(json!("10.30.0.0/16")),
            }]
        );
        // The same paths with other values: the same hash, another fingerprint.
        let other = json!({"input": {"cidr": "10.40.0.0/16", "name": "vpc"}});
        assert_ne!(
            of_entries(leaves(Some(&old), Some(&new), &none)),
            of_entries(leaves(Some(&old), Some(&other), &none))
        );
    }

    #[test]
    fn a_create_covers_every_leaf_and_empty_containers_give_nothing() {
        let new = json!({"a": 1, "b": [true, {"c": "x"}], "e": {}, "f": []});
        let paths: Vec<String> = leaves(None, Some(&new), &none)
            .iter()
            .map(|e| e.path().to_owned())
            .collect();
        assert_eq!(paths, ["a", "b[0]", "b[1].c"]);
        assert_eq!(
            of_entries(leaves(None, Some(&json!({"e": {}})), &none)),
            None
        );
    }

    #[test]
    fn a_secret_is_one_entry_and_nothing_below_it_is_read() {
        let old = json!({"data": {"password": "b2xk"}, "type": "Opaque"});
        let new = json!({"data": {"password": "bmV3"}, "type": "Opaque"});
        let secret = |steps: &[Step]| matches!(steps, [Step::Field(f)] if f == "data");
        let found = leaves(Some(&old), Some(&new), &secret);
        assert_eq!(
            found,
            [Entry::Secret {
                path: "data".into()
            }]
        );
        assert_eq!(found[0].json(), r#"{"path":"data","secret":true}"#);
    }

    #[test]
    fn a_scalar_against_an_object_is_the_scalar_and_the_leaves_below() {
        let found = leaves(
            Some(&json!({"a": "x"})),
            Some(&json!({"a": {"b": 1}})),
            &none,
        );
        assert_eq!(
            found,
            [
                Entry::Value {
                    path: "a".into(),
                    old: Some(json!("x")),
                    new: None
                },
                Entry::Value {
                    path: "a.b".into(),
                    old: None,
                    new: Some(json!(1))
                },
            ]
        );
    }

    #[test]
    fn the_vectors_hold() {
        // Worked by hand from the algorithm: one entry, its canonical text, its digest.
        let entry = Entry::Value {
            path: "spec.replicas".into(),
            old: Some(json!(1)),
            new: Some(json!(2)),
        };
        assert_eq!(entry.json(), r#"{"new":2,"old":1,"path":"spec.replicas"}"#);
        assert_eq!(
            of_entries(vec![entry]),
            Some(short_digest(
                r#"[{"new":2,"old":1,"path":"spec.replicas"}]"#
            ))
        );
        let mut change = Change::new("a", "t", "a", Op::Update);
        change.fingerprint = Some("0123456789abcdef".into());
        let stack = StackId::given("web");
        assert_eq!(
            of_row(&stack, &[change.clone()], None),
            Some(short_digest(
                r#"{"changes":[{"address":"a","fingerprint":"0123456789abcdef"}],"stackId":"web"}"#
            ))
        );
        change.fingerprint = None;
        assert_eq!(
            of_row(&stack, &[change], None),
            None,
            "no entries, no fingerprint"
        );
    }
}
