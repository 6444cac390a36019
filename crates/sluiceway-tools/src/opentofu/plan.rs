//! Reading the plan JSON of `tofu show -json` / `terraform show -json`.
//!
//! Only the keys that decide the diff are read: `format_version` (must be 1.x),
//! `errored`, `complete` (Terraform's deferred changes), and each of `resource_changes`.
//! Resources are folded into changes one at a time as the stream is read and dropped
//! at once, so memory follows the largest resource, not the plan. Values are compared
//! and forgotten; only paths and a digest of the values (decision 0102) come out.

use std::fmt;
use std::io::Read;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use sluiceway_core::diff::{Change, Op, Tracking, code_unit_order};
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::fingerprint;
use sluiceway_core::property_path::PropertyPath;
use sluiceway_core::values::ValueList;

use super::plan_paths::{Marks, replace_path, walk};

#[derive(Deserialize)]
struct ResourceChange {
    address: String,
    previous_address: Option<String>,
    mode: Option<String>,
    #[serde(rename = "type")]
    kind: String,
    deposed: Option<String>,
    change: ChangeBody,
}

#[derive(Deserialize)]
struct ChangeBody {
    actions: Vec<String>,
    before: Option<Value>,
    after: Option<Value>,
    after_unknown: Option<Value>,
    before_sensitive: Option<Value>,
    after_sensitive: Option<Value>,
    replace_paths: Option<Vec<Vec<Value>>>,
    importing: Option<IgnoredAny>,
}

/// Why a plan was not read; each maps to a fixed failure reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlanError {
    /// Not JSON, cut, or not the plan shape; `detail` names where, never what.
    Unreadable(String),
    UnknownStep(String),
}

impl From<PlanError> for Failure {
    fn from(error: PlanError) -> Failure {
        match error {
            PlanError::Unreadable(detail) => {
                Failure::with_detail(FailureReason::UnreadableOutput, detail)
            }
            PlanError::UnknownStep(detail) => {
                Failure::with_detail(FailureReason::UnknownStep, detail)
            }
        }
    }
}

/// The display name: the address without its `<type>.`, module path and key kept.
fn display_name(address: &str, kind: &str) -> String {
    let prefix = format!("{kind}.");
    if let Some(rest) = address.strip_prefix(&prefix) {
        return rest.to_owned();
    }
    address.replacen(&format!(".{prefix}"), ".", 1)
}

/// One resource change folded into a change, or `None` for what is not a change.
fn fold(
    resource: ResourceChange,
    index: usize,
    values: &ValueList,
) -> Result<Option<Change>, PlanError> {
    let ResourceChange {
        address,
        previous_address,
        mode,
        kind,
        deposed,
        change,
    } = resource;
    let actions: Vec<&str> = change.actions.iter().map(String::as_str).collect();
    let place = || format!("The plan, at resource change {index}");
    if mode.as_deref() == Some("data") {
        return match actions.as_slice() {
            ["read"] | ["no-op"] => Ok(None),
            _ => Err(PlanError::UnknownStep(format!(
                "{}: expected a data source to be read",
                place()
            ))),
        };
    }
    let (op, forget) = match actions.as_slice() {
        ["no-op"] | ["read"] => (Op::None, false),
        ["create"] => (Op::Create, false),
        ["update"] => (Op::Update, false),
        ["delete", "create"] | ["create", "delete"] => (Op::Replace, false),
        ["delete"] => (Op::Delete, false),
        ["forget"] => (Op::None, true),
        ["forget", "create"] | ["create", "forget"] => (Op::Create, true),
        _ => {
            return Err(PlanError::UnknownStep(format!(
                "{}: expected an action list Sluiceway knows",
                place()
            )));
        }
    };
    let moved = previous_address.is_some();
    let imported = change.importing.is_some();
    let sources = usize::from(moved) + usize::from(imported) + usize::from(forget);
    if sources > 1 {
        return Err(PlanError::Unreadable(format!(
            "{}: expected at most one change of tracking",
            place()
        )));
    }
    let tracking = if moved {
        Some(Tracking::Move)
    } else if imported {
        Some(Tracking::Import)
    } else if forget {
        Some(Tracking::Forget)
    } else {
        None
    };
    if op == Op::None && tracking.is_none() {
        return Ok(None);
    }
    let marks = Marks {
        before_sensitive: change.before_sensitive.as_ref(),
        after_sensitive: change.after_sensitive.as_ref(),
        after_unknown: change.after_unknown.as_ref(),
    };
    let mut keys = Vec::new();
    let mut replace_keys = Vec::new();
    if matches!(op, Op::Update | Op::Replace) {
        walk(
            change.before.as_ref(),
            change.after.as_ref(),
            marks,
            &mut Vec::new(),
            &mut keys,
        );
        for path in change.replace_paths.iter().flatten() {
            if let Some(path) = replace_path(path, marks) {
                replace_keys.push(path.to_string());
            }
        }
    }
    let mut changed_keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
    changed_keys.extend(replace_keys.iter().cloned());
    changed_keys.sort_by(|a, b| code_unit_order(a, b));
    changed_keys.dedup();
    replace_keys.sort_by(|a, b| code_unit_order(a, b));
    replace_keys.dedup();
    let address = match deposed {
        Some(key) => format!("{address} deposed {key}"),
        None => address,
    };
    let name = display_name(&address, &kind);
    let is_sensitive = |steps: &[sluiceway_core::property_path::Step]| marks.sensitive_at(steps);
    let entries = match op {
        Op::Create => fingerprint::leaves(None, change.after.as_ref(), &is_sensitive),
        Op::Update | Op::Replace => {
            fingerprint::leaves(change.before.as_ref(), change.after.as_ref(), &is_sensitive)
        }
        _ => Vec::new(),
    };
    // A value the tool learns only at deploy time is never shown (decision 0052).
    let unknown = unknown_paths(change.after_unknown.as_ref());
    let (shown, hidden) = values.split(entries, &|path| {
        unknown.iter().any(|u| {
            path.strip_prefix(u.as_str())
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
        })
    });
    Ok(Some(Change {
        changed_keys,
        replace_keys,
        fingerprint: fingerprint::of_entries(hidden),
        values: shown,
        tracking,
        previous_address: previous_address.filter(|_| moved),
        ..Change::new(address, kind, name, op)
    }))
}

struct PlanVisitor<'v>(&'v ValueList);

impl<'de> Visitor<'de> for PlanVisitor<'_> {
    type Value = Result<Vec<Change>, PlanError>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a plan")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut format_ok = None;
        let mut errored = false;
        let mut complete = true;
        let mut changes: Result<Vec<Change>, PlanError> = Ok(Vec::new());
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "format_version" => {
                    let version: String = map.next_value()?;
                    format_ok = Some(version.split('.').next() == Some("1"));
                }
                "errored" => errored = map.next_value::<Option<bool>>()?.unwrap_or(false),
                "complete" => complete = map.next_value::<Option<bool>>()?.unwrap_or(true),
                "resource_changes" => changes = map.next_value_seed(ChangesSeed(self.0))?,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(match (format_ok, errored, complete) {
            (None, ..) => Err(PlanError::Unreadable(
                "The plan: expected a format_version".into(),
            )),
            (Some(false), ..) => Err(PlanError::Unreadable(
                "The plan: expected format version 1.x".into(),
            )),
            (_, true, _) => Err(PlanError::Unreadable(
                "The plan: expected a plan that did not error".into(),
            )),
            (_, _, false) => Err(PlanError::Unreadable(
                "The plan: expected a complete plan, with no deferred changes".into(),
            )),
            _ => changes,
        })
    }
}

/// Every path `after_unknown` marks, in the shared notation.
fn unknown_paths(after_unknown: Option<&Value>) -> Vec<String> {
    fn walk(value: &Value, at: &PropertyPath, found: &mut Vec<String>) {
        match value {
            Value::Bool(true) => found.push(at.to_string()),
            Value::Object(map) => {
                for (key, child) in map {
                    walk(child, &at.field(key), found);
                }
            }
            Value::Array(items) => {
                for (i, child) in items.iter().enumerate() {
                    walk(child, &at.index(i), found);
                }
            }
            _ => {}
        }
    }
    let mut found = Vec::new();
    if let Some(value) = after_unknown {
        walk(value, &PropertyPath::root(), &mut found);
    }
    found
}

struct ChangesSeed<'v>(&'v ValueList);

impl<'de> DeserializeSeed<'de> for ChangesSeed<'_> {
    type Value = Result<Vec<Change>, PlanError>;

    fn deserialize<D: de::Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_seq(ChangesVisitor(self.0))
    }
}

struct ChangesVisitor<'v>(&'v ValueList);

impl<'de> Visitor<'de> for ChangesVisitor<'_> {
    type Value = Result<Vec<Change>, PlanError>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of resource changes")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut changes = Vec::new();
        let mut failure = None;
        let mut index = 0;
        while let Some(resource) = seq.next_element::<ResourceChange>()? {
            index += 1;
            if failure.is_some() {
                continue;
            }
            match fold(resource, index, self.0) {
                Ok(Some(change)) => changes.push(change),
                Ok(None) => {}
                Err(e) => failure = Some(e),
            }
        }
        if let Some(failure) = failure {
            return Ok(Err(failure));
        }
        changes.sort_by(|a: &Change, b: &Change| code_unit_order(&a.address, &b.address));
        for pair in changes.windows(2) {
            if pair[0].address == pair[1].address {
                return Ok(Err(PlanError::Unreadable(
                    "The plan: expected each address once".into(),
                )));
            }
        }
        Ok(Ok(changes))
    }
}

/// Reads a plan from a stream, resource by resource, each change showing the values
/// the list allows.
pub fn read(input: impl Read, values: &ValueList) -> Result<Vec<Change>, PlanError> {
    let mut deserializer = serde_json::Deserializer::from_reader(std::io::BufReader::new(input));
    let changes = de::Deserializer::deserialize_map(&mut deserializer, PlanVisitor(values))
        .map_err(|e| {
            PlanError::Unreadable(format!(
                "The plan, at line {} column {}: expected the plan's JSON",
                e.line(),
                e.column()
            ))
        })??;
    deserializer.end().map_err(|e| {
        PlanError::Unreadable(format!(
            "The plan, at line {}: expected nothing after the plan",
            e.line()
        ))
    })?;
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_keep_the_module_path_and_key() {
        assert_eq!(display_name("random_pet.name", "random_pet"), "name");
        assert_eq!(
            display_name("module.net.aws_subnet.private[\"b\"]", "aws_subnet"),
            "module.net.private[\"b\"]"
        );
    }
}
