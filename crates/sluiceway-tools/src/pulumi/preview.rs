//! Reading `pulumi preview --json`. Only `steps[]` (op, URN, reasons, `detailedDiff`,
//! `oldState.retainOnDelete`, and the states' `inputs` and `outputs`) and
//! `diagnostics[].message` are kept; every other field is skipped as the document is
//! parsed. The states' values stay here: the changes carry the digest of what they set
//! and the values the list lets a row show (decisions 0052 and 0102), nothing more.
//! Pulumi writes a secret as `"[secret]"`; a path at or below one is a secret's.

use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::Value;
use sluiceway_core::diff::{Change, Op, Tracking, code_unit_order};
use sluiceway_core::failure::{Failure, FailureReason};
use sluiceway_core::fingerprint::{self, Entry};
use sluiceway_core::property_path::{PropertyPath, Step};
use sluiceway_core::values::ValueList;

use super::paths;
use super::urn::Urn;
use crate::tool_log::ToolLog;
use crate::tool_run::unreadable;

#[derive(Deserialize)]
struct Document {
    steps: Option<Vec<RawStep>>,
    #[serde(default)]
    diagnostics: Vec<Diagnostic>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct RawStep {
    op: String,
    urn: String,
    #[serde(default)]
    diff_reasons: Option<Vec<String>>,
    #[serde(default)]
    replace_reasons: Option<Vec<String>>,
    #[serde(default)]
    detailed_diff: Option<BTreeMap<String, DiffEntry>>,
    #[serde(default)]
    old_state: Option<State>,
    #[serde(default)]
    new_state: Option<State>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DiffEntry {
    /// The difference is between the inputs; else the old side is the outputs.
    #[serde(default)]
    input_diff: Option<bool>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct State {
    #[serde(default)]
    retain_on_delete: Option<bool>,
    #[serde(default)]
    inputs: Option<Value>,
    #[serde(default)]
    outputs: Option<Value>,
}

/// How Pulumi writes a secret's value in a preview.
const SECRET: &str = "[secret]";

#[derive(Deserialize)]
pub(super) struct Diagnostic {
    #[serde(default)]
    message: Option<String>,
}

impl Diagnostic {
    /// The tool's own words, for the job log.
    pub(super) fn log(&self, log: &mut ToolLog) {
        if let Some(message) = &self.message {
            log.push_output(message.as_bytes());
        }
    }
}

/// Reads a preview document into changes, each with the values the list allows; its
/// diagnostics go to the log.
pub fn read(stdout: &[u8], log: &mut ToolLog, values: &ValueList) -> Result<Vec<Change>, Failure> {
    let document: Document = serde_json::from_slice(stdout).map_err(|e| {
        unreadable(format!(
            "The preview: expected one JSON document (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    for diagnostic in &document.diagnostics {
        diagnostic.log(log);
    }
    let steps = document.steps.ok_or_else(|| {
        unreadable("The preview: expected a list of steps, and the document has none")
    })?;
    let mut kept = Vec::new();
    for (number, step) in steps.iter().enumerate() {
        if let Some(change) = change_of(step, number + 1, "The preview", values)? {
            kept.push(change);
        }
    }
    finish(kept, "The preview")
}

/// A step as a change, or `None` for the ops that change nothing.
pub(super) fn change_of(
    step: &RawStep,
    number: usize,
    what: &str,
    values: &ValueList,
) -> Result<Option<Rooted>, Failure> {
    let urn = Urn::parse(&step.urn)
        .ok_or_else(|| unreadable(format!("{what}: step {number}: expected a Pulumi URN")))?;
    let (op, tracking) = match step.op.as_str() {
        "same" | "read" | "refresh" => return Ok(None),
        "create" => (Op::Create, None),
        "update" => (Op::Update, None),
        "replace" => (Op::Replace, None),
        "delete" if step.old_state.as_ref().and_then(|s| s.retain_on_delete) == Some(true) => {
            (Op::None, Some(Tracking::Forget))
        }
        "delete" => (Op::Delete, None),
        "import" => (Op::None, Some(Tracking::Import)),
        _ => {
            return Err(Failure::with_detail(
                FailureReason::UnknownStep,
                format!("{what}: step {number}"),
            ));
        }
    };
    let mut change = Change::new(step.urn.clone(), urn.kind(), urn.name, op);
    change.tracking = tracking;
    if matches!(op, Op::Update | Op::Replace) {
        let path = |text: &String| {
            paths::parse(text).map(|p| p.to_string()).ok_or_else(|| {
                unreadable(format!(
                    "{what}: step {number}: expected property paths in Pulumi's notation"
                ))
            })
        };
        let detailed: Vec<&String> = step.detailed_diff.iter().flat_map(|d| d.keys()).collect();
        let changed: Vec<&String> = if detailed.is_empty() {
            step.diff_reasons.iter().flatten().collect()
        } else {
            detailed
        };
        let replace: Vec<String> = step
            .replace_reasons
            .iter()
            .flatten()
            .map(path)
            .collect::<Result<_, _>>()?;
        let mut keys: BTreeSet<String> = changed.into_iter().map(path).collect::<Result<_, _>>()?;
        keys.extend(replace.iter().cloned());
        change.changed_keys = sorted(keys.into_iter().collect());
        if op == Op::Replace {
            change.replace_keys = sorted(replace);
        }
    }
    let (shown, hidden) = values.split(leaves_set(step, op), &|_| false);
    change.values = shown;
    change.fingerprint = fingerprint::of_entries(hidden);
    Ok(Some(Rooted {
        root: urn.is_root_stack(),
        change,
    }))
}

/// The leaves a step sets (decision 0102): every leaf of the new inputs for a create;
/// for an update or replace, below each path the step names, the old inputs (or
/// outputs, when the difference is not in the inputs) against the new inputs; nothing
/// for a delete or a change of tracking. A secret is one entry, nothing below it read.
fn leaves_set(step: &RawStep, op: Op) -> Vec<Entry> {
    match op {
        Op::Create => {
            let new = inputs(&step.new_state);
            fingerprint::leaves(None, new, &|steps: &[Step]| secret_at(new, steps))
        }
        Op::Update | Op::Replace => {
            let mut entries = Vec::new();
            let named: Vec<(&String, bool)> = match &step.detailed_diff {
                Some(detailed) if !detailed.is_empty() => detailed
                    .iter()
                    .map(|(path, entry)| (path, entry.input_diff == Some(true)))
                    .collect(),
                _ => step
                    .diff_reasons
                    .iter()
                    .flatten()
                    .map(|p| (p, true))
                    .collect(),
            };
            for (text, input_diff) in named {
                let Some(path) = paths::parse(text) else {
                    continue;
                };
                let old_side = step.old_state.as_ref().and_then(|s| {
                    if input_diff {
                        s.inputs.as_ref()
                    } else {
                        s.outputs.as_ref()
                    }
                });
                let new_side = inputs(&step.new_state);
                // A secret on the way to the path, on either side: one mark there, as
                // a secret's value is never read, changed or not.
                if let Some(depth) = [old_side, new_side]
                    .into_iter()
                    .filter_map(|side| secret_depth(side, path.steps()))
                    .min()
                {
                    entries.push(Entry::Secret {
                        path: PropertyPath::from_steps(path.steps()[..depth].to_vec()).to_string(),
                    });
                    continue;
                }
                let (old, new) = (
                    nested(old_side, path.steps()),
                    nested(new_side, path.steps()),
                );
                entries.extend(fingerprint::leaves(
                    old.as_ref(),
                    new.as_ref(),
                    &|steps: &[Step]| {
                        secret_at(old.as_ref(), steps) || secret_at(new.as_ref(), steps)
                    },
                ));
            }
            entries.sort_by(|a, b| code_unit_order(a.path(), b.path()));
            entries.dedup();
            entries
        }
        _ => Vec::new(),
    }
}

fn inputs(state: &Option<State>) -> Option<&Value> {
    state.as_ref().and_then(|s| s.inputs.as_ref())
}

/// Whether the value at `steps` in `side` is a secret.
fn secret_at(side: Option<&Value>, steps: &[Step]) -> bool {
    let mut at = side;
    for step in steps {
        at = at.and_then(|v| match (v, step) {
            (Value::Object(map), Step::Field(key)) => map.get(key),
            (Value::Array(items), Step::Index(i)) => items.get(*i),
            _ => None,
        });
    }
    at.and_then(Value::as_str) == Some(SECRET)
}

/// How many steps down `steps` a secret stands in `side`, when one does.
fn secret_depth(side: Option<&Value>, steps: &[Step]) -> Option<usize> {
    let mut at = side?;
    for (depth, step) in steps.iter().enumerate() {
        if at.as_str() == Some(SECRET) {
            return Some(depth);
        }
        at = match (at, step) {
            (Value::Object(map), Step::Field(key)) => map.get(key)?,
            (Value::Array(items), Step::Index(i)) => items.get(*i)?,
            _ => return None,
        };
    }
    (at.as_str() == Some(SECRET)).then_some(steps.len())
}

/// The value at `steps` in `side`, nested again under those steps alone, so the leaf
/// walk writes whole paths.
fn nested(side: Option<&Value>, steps: &[Step]) -> Option<Value> {
    let mut at = side?;
    for step in steps {
        at = match (at, step) {
            (Value::Object(map), Step::Field(key)) => map.get(key)?,
            (Value::Array(items), Step::Index(i)) => items.get(*i)?,
            _ => return None,
        };
    }
    let mut value = at.clone();
    for step in steps.iter().rev() {
        value = match step {
            Step::Field(key) => {
                let mut map = serde_json::Map::new();
                map.insert(key.clone(), value);
                Value::Object(map)
            }
            Step::Index(i) => {
                let mut items = vec![Value::Null; *i];
                items.push(value);
                Value::Array(items)
            }
        };
    }
    Some(value)
}

/// A change, and whether it is the stack's root resource.
pub(super) struct Rooted {
    pub root: bool,
    pub change: Change,
}

fn sorted(mut keys: Vec<String>) -> Vec<String> {
    keys.sort_by(|a, b| code_unit_order(a, b));
    keys.dedup();
    keys
}

/// Applies decision 0079 to the root stack resource and refuses two changes at one
/// address. The root's create is the one change only when there is no other work; its
/// update is outputs only; its delete and replace are destroys and stay.
pub(super) fn finish(kept: Vec<Rooted>, what: &str) -> Result<Vec<Change>, Failure> {
    let mut root_create = None;
    let mut changes = Vec::new();
    for Rooted { root, change } in kept {
        match (root, change.op) {
            (true, Op::Create) => root_create = Some(change),
            (true, Op::Update) => {}
            _ => changes.push(change),
        }
    }
    if changes.is_empty() {
        changes.extend(root_create);
    }
    changes.sort_by(|a, b| code_unit_order(&a.address, &b.address));
    if let Some(pair) = changes
        .windows(2)
        .position(|w| w[0].address == w[1].address)
    {
        return Err(unreadable(format!(
            "{what}: changes {} and {} name the same resource",
            pair + 1,
            pair + 2
        )));
    }
    Ok(changes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Vec<Change>, Failure> {
        read(text.as_bytes(), &mut ToolLog::default(), &ValueList::none())
    }

    fn step(op: &str, urn: &str, extra: &str) -> String {
        format!(r#"{{"op":"{op}","urn":"{urn}"{extra}}}"#)
    }

    const ROOT: &str = "urn:pulumi:dev::web::pulumi:pulumi:Stack::web-dev";
    const MAP: &str = "urn:pulumi:dev::web::kubernetes:core/v1:ConfigMap::settings";

    fn document(steps: &[String]) -> String {
        format!(r#"{{"steps":[{}]}}"#, steps.join(","))
    }

    #[test]
    fn the_op_table() {
        for (op, extra, want_op, want_tracking) in [
            ("create", "", Some(Op::Create), None),
            ("update", "", Some(Op::Update), None),
            ("replace", "", Some(Op::Replace), None),
            ("delete", "", Some(Op::Delete), None),
            (
                "delete",
                r#","oldState":{"retainOnDelete":true}"#,
                Some(Op::None),
                Some(Tracking::Forget),
            ),
            (
                "delete",
                r#","oldState":{"retainOnDelete":false}"#,
                Some(Op::Delete),
                None,
            ),
            ("import", "", Some(Op::None), Some(Tracking::Import)),
            ("same", "", None, None),
            ("read", "", None, None),
            ("refresh", "", None, None),
        ] {
            let changes = read_text(&document(&[step(op, MAP, extra)])).unwrap();
            assert_eq!(changes.first().map(|c| c.op), want_op, "{op}{extra}");
            assert_eq!(
                changes.first().and_then(|c| c.tracking),
                want_tracking,
                "{op}{extra}"
            );
        }
    }

    #[test]
    fn an_unknown_op_fails_the_preview() {
        let failure = read_text(&document(&[step("create-replacement", MAP, "")])).unwrap_err();
        assert_eq!(failure.reason, FailureReason::UnknownStep);
        assert_eq!(failure.detail, ["The preview: step 1"]);
    }

    #[test]
    fn keys_come_from_the_detailed_diff_else_the_reasons_and_replace_keys_join_them() {
        let changes = read_text(&document(&[
            step(
                "update",
                MAP,
                r#","diffReasons":["data"],"detailedDiff":{"data[\"a.b\"]":{"kind":"update"}}"#,
            ),
            step(
                "replace",
                "urn:pulumi:dev::web::random:index/randomPet:RandomPet::pet",
                r#","diffReasons":["prefix","length"],"replaceReasons":["prefix"],"detailedDiff":null"#,
            ),
        ]))
        .unwrap();
        assert_eq!(changes[0].changed_keys, ["data[\"a.b\"]"]);
        assert!(changes[0].replace_keys.is_empty());
        assert_eq!(changes[1].changed_keys, ["length", "prefix"]);
        assert_eq!(changes[1].replace_keys, ["prefix"]);
        assert_eq!(changes[1].kind, "random:index/randomPet:RandomPet");
        assert_eq!(changes[1].name, "pet");
    }

    #[test]
    fn the_root_stack_counts_only_when_it_is_all_there_is() {
        let alone = read_text(&document(&[step("create", ROOT, "")])).unwrap();
        assert_eq!(alone.len(), 1);
        assert_eq!(alone[0].kind, "pulumi:pulumi:Stack");
        let with_work = read_text(&document(&[
            step("create", ROOT, ""),
            step("create", MAP, ""),
        ]))
        .unwrap();
        assert_eq!(with_work.len(), 1);
        assert_eq!(with_work[0].address, MAP);
        let with_tracking = read_text(&document(&[
            step("create", ROOT, ""),
            step("import", MAP, ""),
        ]))
        .unwrap();
        assert_eq!(with_tracking[0].tracking, Some(Tracking::Import));
        assert_eq!(with_tracking.len(), 1);
        assert!(
            read_text(&document(&[step("update", ROOT, "")]))
                .unwrap()
                .is_empty()
        );
        assert_eq!(
            read_text(&document(&[step("delete", ROOT, "")])).unwrap()[0].op,
            Op::Delete
        );
        let nested = "urn:pulumi:dev::web::my:C$pulumi:pulumi:Stack::inner";
        assert_eq!(
            read_text(&document(&[step("update", nested, "")]))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn steps_in_another_order_give_the_same_changes() {
        let a = step("create", MAP, "");
        let b = step(
            "create",
            "urn:pulumi:dev::web::kubernetes:core/v1:Secret::s",
            "",
        );
        assert_eq!(
            read_text(&document(&[a.clone(), b.clone()])).unwrap(),
            read_text(&document(&[b, a])).unwrap()
        );
    }

    #[test]
    fn what_cannot_be_read() {
        for (text, reason) in [
            ("", FailureReason::UnreadableOutput),
            ("{\"steps\":[", FailureReason::UnreadableOutput),
            ("not json", FailureReason::UnreadableOutput),
            ("{\"config\":{}}", FailureReason::UnreadableOutput),
            (
                "{\"steps\":[{\"op\":\"create\"}]}",
                FailureReason::UnreadableOutput,
            ),
            (
                "{\"steps\":[{\"op\":\"create\",\"urn\":\"nope\"}]}",
                FailureReason::UnreadableOutput,
            ),
        ] {
            assert_eq!(read_text(text).unwrap_err().reason, reason, "{text}");
        }
        let twice = document(&[step("create", MAP, ""), step("update", MAP, "")]);
        assert_eq!(
            read_text(&twice).unwrap_err().detail,
            ["The preview: changes 1 and 2 name the same resource"]
        );
    }

    #[test]
    fn no_steps_is_never_in_sync() {
        let failure = read_text("{\"diagnostics\":[]}").unwrap_err();
        assert_eq!(failure.reason, FailureReason::UnreadableOutput);
        assert!(read_text("{\"steps\":[]}").unwrap().is_empty());
    }

    #[test]
    fn diagnostics_go_to_the_log() {
        let mut log = ToolLog::default();
        read(
            br#"{"steps":[],"diagnostics":[{"message":"\u001b[31mError\u001b[0m: broke\n","severity":"error"}]}"#,
            &mut log,
            &ValueList::none(),
        )
        .unwrap();
        assert_eq!(log.job_log_lines(), ["Error: broke"]);
    }
}
