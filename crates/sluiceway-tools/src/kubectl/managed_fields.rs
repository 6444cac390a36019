//! Managed fields: which field manager holds which property paths of a live object.
//!
//! The drift check reads them to tell a change made outside the code (another manager
//! holds the path) from one the stack itself made. They are decoded into property paths
//! only to compare them with change paths; nothing of them leaves the adapter.

use serde_json::{Map, Value};
use sluiceway_core::property_path::PropertyPath;

/// One entry of `metadata.managedFields`, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ManagedEntry {
    pub manager: String,
    /// `Apply` or `Update`.
    pub operation: String,
    pub paths: Vec<PropertyPath>,
}

impl ManagedEntry {
    /// Whether this entry holds `path`: at it, above it, or below it.
    pub(super) fn holds(&self, path: &PropertyPath) -> bool {
        self.paths
            .iter()
            .any(|held| path.starts_with(held) || held.starts_with(path))
    }
}

pub(super) fn entries(live: &Value) -> Vec<ManagedEntry> {
    let Some(list) = live
        .pointer("/metadata/managedFields")
        .and_then(Value::as_array)
    else {
        return Vec::new();
    };
    list.iter()
        .map(|entry| {
            let mut paths = Vec::new();
            if let Some(fields) = entry.get("fieldsV1").and_then(Value::as_object) {
                decode(fields, &PropertyPath::root(), Some(live), &mut paths);
            }
            ManagedEntry {
                manager: entry
                    .get("manager")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                operation: entry
                    .get("operation")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_owned(),
                paths,
            }
        })
        .collect()
}

/// FieldsV1: `f:<name>` a field, `k:<json>` a list item by its keys, `v:<json>` a list
/// item by value, `i:<n>` an index, `.` the node itself; an empty set is the node and
/// everything below it. Items no longer in the object yield nothing.
fn decode(
    fields: &Map<String, Value>,
    at: &PropertyPath,
    node: Option<&Value>,
    out: &mut Vec<PropertyPath>,
) {
    if fields.is_empty() {
        if !at.is_root() {
            out.push(at.clone());
        }
        return;
    }
    for (key, inner) in fields {
        let inner = inner.as_object().cloned().unwrap_or_default();
        if key == "." {
            out.push(at.clone());
        } else if let Some(name) = key.strip_prefix("f:") {
            decode(&inner, &at.field(name), node.and_then(|n| n.get(name)), out);
        } else if let Some(index) = key.strip_prefix("i:").and_then(|i| i.parse::<usize>().ok()) {
            decode(
                &inner,
                &at.index(index),
                node.and_then(|n| n.get(index)),
                out,
            );
        } else if let Some(keys) = key
            .strip_prefix("k:")
            .and_then(|k| serde_json::from_str::<Map<String, Value>>(k).ok())
        {
            let found = node.and_then(Value::as_array).and_then(|items| {
                items
                    .iter()
                    .position(|item| keys.iter().all(|(k, v)| item.get(k) == Some(v)))
            });
            if let Some(index) = found {
                decode(
                    &inner,
                    &at.index(index),
                    node.and_then(|n| n.get(index)),
                    out,
                );
            }
        } else if let Some(value) = key
            .strip_prefix("v:")
            .and_then(|v| serde_json::from_str::<Value>(v).ok())
        {
            let found = node
                .and_then(Value::as_array)
                .and_then(|items| items.iter().position(|item| *item == value));
            if let Some(index) = found {
                decode(
                    &inner,
                    &at.index(index),
                    node.and_then(|n| n.get(index)),
                    out,
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fields_keys_values_and_the_node_itself() {
        let live = json!({
            "metadata": {"managedFields": [{
                "manager": "kubectl", "operation": "Apply",
                "fieldsV1": {
                    "f:spec": {
                        "f:replicas": {},
                        "f:containers": {"k:{\"name\":\"web\"}": {".": {}, "f:image": {}}},
                        "f:finalizers": {"v:\"a\"": {}}
                    }
                }
            }]},
            "spec": {"replicas": 1, "containers": [{"name": "side"}, {"name": "web", "image": "x"}], "finalizers": ["b", "a"]}
        });
        let decoded = entries(&live);
        let paths: Vec<String> = decoded[0].paths.iter().map(ToString::to_string).collect();
        assert_eq!(
            paths,
            [
                "spec.containers[1]",
                "spec.containers[1].image",
                "spec.finalizers[1]",
                "spec.replicas"
            ]
        );
        let replicas = PropertyPath::root().field("spec").field("replicas");
        assert!(decoded[0].holds(&replicas));
        assert!(
            decoded[0].holds(
                &PropertyPath::root()
                    .field("spec")
                    .field("containers")
                    .index(1)
                    .field("image")
            )
        );
        assert!(
            !decoded[0].holds(
                &PropertyPath::root()
                    .field("spec")
                    .field("containers")
                    .index(0)
                    .field("name")
            )
        );
    }
}
