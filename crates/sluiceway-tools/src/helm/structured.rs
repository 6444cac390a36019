//! helm-diff's structured output (`--output=structured`), read into changes.
//!
//! The plugin prints one JSON array: an entry per object with its change type and, for a
//! modification, the fields that change, each with its old and new value. The values
//! stay here: a change carries the ones the value list lets its row show and the
//! digest of the rest (decisions 0052 and 0102); a Secret's are marks, never read.
//! Which entries count is decided by the change type alone: an addition, a
//! modification or a removal. Anything else, or a modification whose fields the plugin
//! held back, is a failure and never "in sync".

use std::collections::BTreeMap;

use serde::Deserialize;
use sluiceway_core::diff::{Change, Op, code_unit_order};
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::fingerprint::{self, Entry};
use sluiceway_core::property_path::{PropertyPath, Step};
use sluiceway_core::values::ValueList;

use super::naming;
use crate::kubernetes::objects::Identity;
use crate::tool_run::unreadable;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ObjectEntry {
    api_version: String,
    kind: String,
    #[serde(default)]
    namespace: Option<String>,
    name: String,
    change_type: String,
    #[serde(default)]
    changes: Option<Vec<FieldChange>>,
    #[serde(default)]
    changes_suppressed: bool,
}

/// One changed field: where it sits, and its two values.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FieldChange {
    #[serde(default)]
    path: Option<String>,
    field: String,
    #[serde(default)]
    old_value: Option<serde_json::Value>,
    #[serde(default)]
    new_value: Option<serde_json::Value>,
}

/// The plugin's dotted `path` in steps, then `field` whole (a label key keeps its dots
/// and slashes), a number in place of a field being a list index.
fn property_path(path: Option<&str>, field: &str) -> PropertyPath {
    let mut steps = Vec::new();
    for segment in path
        .unwrap_or_default()
        .split('.')
        .filter(|s| !s.is_empty())
    {
        let mut rest = segment;
        let name_end = rest.find('[').unwrap_or(rest.len());
        if name_end > 0 {
            steps.push(Step::Field(rest[..name_end].to_owned()));
        }
        rest = &rest[name_end..];
        while let Some(inner) = rest.strip_prefix('[') {
            let Some(close) = inner.find(']') else {
                steps.push(Step::Field(rest.to_owned()));
                break;
            };
            match inner[..close].parse::<usize>() {
                Ok(index) => steps.push(Step::Index(index)),
                Err(_) => steps.push(Step::Field(inner[..close].to_owned())),
            }
            rest = &inner[close + 1..];
        }
    }
    match field.parse::<usize>() {
        Ok(index) => steps.push(Step::Index(index)),
        Err(_) => steps.push(Step::Field(field.to_owned())),
    }
    PropertyPath::from_steps(steps)
}

/// Reads the plugin's structured output for a release in `namespace` into changes,
/// sorted by address.
pub fn read(stdout: &str, namespace: &str, values: &ValueList) -> Result<Vec<Change>, Failure> {
    let entries: Vec<ObjectEntry> = serde_json::from_str(stdout).map_err(|e| {
        unreadable(format!(
            "The plugin's structured output, at line {}: expected a JSON array of changed objects.",
            e.line()
        ))
    })?;
    let mut changes: BTreeMap<String, Change> = BTreeMap::new();
    for (number, entry) in entries.into_iter().enumerate() {
        let number = number + 1;
        let group = entry
            .api_version
            .rsplit_once('/')
            .map_or(String::new(), |(g, _)| g.to_owned());
        let identity = naming::in_release(
            Identity {
                group,
                kind: entry.kind,
                namespace: entry.namespace,
                name: entry.name,
            },
            namespace,
        );
        let op = match entry.change_type.as_str() {
            "ADD" => Op::Create,
            "MODIFY" => Op::Update,
            "REMOVE" => Op::Delete,
            _ => return Err(Failure::new(FailureReason::UnknownStep)),
        };
        if entry.changes_suppressed {
            return Err(unreadable(format!(
                "The plugin's structured output, at entry {number}: the plugin held back which fields change."
            )));
        }
        let mut change = naming::change(&identity, namespace, op);
        if op == Op::Update {
            let fields = entry.changes.unwrap_or_default();
            if fields.is_empty() {
                return Err(unreadable(format!(
                    "The plugin's structured output, at entry {number}: expected the fields a modification changes."
                )));
            }
            let mut keys: Vec<String> = fields
                .iter()
                .map(|f| property_path(f.path.as_deref(), &f.field).to_string())
                .collect();
            keys.sort();
            keys.dedup();
            change.changed_keys = naming::secret_paths(&identity, keys);
            let entries: Vec<Entry> = if identity.is_core("Secret") {
                change
                    .changed_keys
                    .iter()
                    .map(|path| Entry::Secret { path: path.clone() })
                    .collect()
            } else {
                fields
                    .into_iter()
                    .map(|f| Entry::Value {
                        path: property_path(f.path.as_deref(), &f.field).to_string(),
                        old: f.old_value.filter(|v| !v.is_null()),
                        new: f.new_value.filter(|v| !v.is_null()),
                    })
                    .collect()
            };
            let (shown, hidden) = values.split(entries, &|_| false);
            change.values = shown;
            change.fingerprint = fingerprint::of_entries(hidden);
        }
        if changes.insert(change.address.clone(), change).is_some() {
            return Err(unreadable(format!(
                "The plugin's structured output, at entry {number}: expected each object once."
            )));
        }
    }
    let mut changes: Vec<Change> = changes.into_values().collect();
    changes.sort_by(|a, b| code_unit_order(&a.address, &b.address));
    Ok(changes)
}

/// Drift from the plugin's two diffs of one release: the plain one (the chart against
/// the release's manifest) and the three-way one (against the live objects too). An
/// object only the three-way diff adds is gone from the cluster; paths only it changes
/// were changed outside Helm. An object only it removes cannot be: the live objects are
/// not the release's.
pub fn drift(plain: &[Change], three_way: &[Change]) -> Result<Vec<Change>, Failure> {
    let mut drift = Vec::new();
    for change in three_way {
        let before = plain.iter().find(|p| p.address == change.address);
        match (change.op, before) {
            (Op::Create, None) => drift.push(Change {
                op: Op::Delete,
                changed_keys: Vec::new(),
                ..change.clone()
            }),
            (Op::Delete, None) => {
                return Err(unreadable(
                    "The plugin's three-way diff removes an object its plain diff keeps.",
                ));
            }
            (Op::Update, before) => {
                let keys: Vec<String> = change
                    .changed_keys
                    .iter()
                    .filter(|k| before.is_none_or(|b| !b.changed_keys.contains(k)))
                    .cloned()
                    .collect();
                if !keys.is_empty() {
                    drift.push(Change {
                        changed_keys: keys,
                        ..change.clone()
                    });
                }
            }
            _ => {}
        }
    }
    Ok(drift)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_resegmented_and_fields_kept_whole() {
        assert_eq!(
            property_path(Some("spec.ports[0]"), "port").to_string(),
            "spec.ports[0].port"
        );
        assert_eq!(
            property_path(Some("metadata.labels"), "app.kubernetes.io/version").to_string(),
            "metadata.labels[\"app.kubernetes.io/version\"]"
        );
        assert_eq!(
            property_path(Some("spec.ports"), "1").to_string(),
            "spec.ports[1]"
        );
        assert_eq!(property_path(None, "data").to_string(), "data");
        assert_eq!(property_path(Some("a[x]"), "b").to_string(), "a.x.b");
    }

    #[test]
    fn change_types_decide_and_unknown_ones_fail() {
        let doc = r#"[{"apiVersion":"v1","kind":"ConfigMap","name":"a","changeType":"OWNERSHIP"}]"#;
        assert_eq!(
            read(doc, "shop", &ValueList::none()).unwrap_err().reason,
            FailureReason::UnknownStep
        );
        let held = r#"[{"apiVersion":"v1","kind":"Secret","name":"a","changeType":"MODIFY","changesSuppressed":true}]"#;
        assert_eq!(
            read(held, "shop", &ValueList::none()).unwrap_err().reason,
            FailureReason::UnreadableOutput
        );
        let bare = r#"[{"apiVersion":"v1","kind":"ConfigMap","name":"a","changeType":"MODIFY"}]"#;
        assert_eq!(
            read(bare, "shop", &ValueList::none()).unwrap_err().reason,
            FailureReason::UnreadableOutput
        );
        assert_eq!(
            read("[{", "shop", &ValueList::none()).unwrap_err().reason,
            FailureReason::UnreadableOutput
        );
        let twice = r#"[{"apiVersion":"v1","kind":"ConfigMap","name":"a","changeType":"ADD"},{"apiVersion":"v1","kind":"ConfigMap","name":"a","changeType":"REMOVE"}]"#;
        assert_eq!(
            read(twice, "shop", &ValueList::none()).unwrap_err().reason,
            FailureReason::UnreadableOutput
        );
    }
}
