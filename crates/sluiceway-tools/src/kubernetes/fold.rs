//! Folding object pairs into changes.
//!
//! Fields the API server owns (status, and the bookkeeping under metadata) are left out
//! before comparing: a dry run bumps `generation` on every spec change, and a controller
//! writes status whenever it likes. A Secret's `data` and `stringData` are compared whole
//! and reported as that one path.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Mutex, PoisonError};

use serde_json::Value;
use sluiceway_core::diff::{Change, Op, code_unit_order};
use sluiceway_core::fingerprint;
use sluiceway_core::property_path::{PropertyPath, Step};
use sluiceway_core::values::{ShownValue, ValueList};

use super::block_yaml;
use super::hunks::{Hunk, HunkError, Hunks, ObjectPair, Side};
use super::objects::{Identity, NotYaml, read_side, read_side_generally};
use crate::changed_paths::changed_paths;

/// The metadata fields the server writes.
const SERVER_METADATA: [&str; 6] = [
    "generation",
    "resourceVersion",
    "uid",
    "creationTimestamp",
    "managedFields",
    "selfLink",
];

/// A pair that could not be folded: the object's number (1-based) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldError {
    pub object: usize,
    pub expected: &'static str,
}

impl std::fmt::Display for FoldError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "The tool's output, at object {}: expected {}.",
            self.object, self.expected
        )
    }
}

/// A pair read into objects, before folding.
#[derive(Debug, Clone)]
pub struct ReadPair {
    pub identity: Identity,
    pub live: Option<Value>,
    pub merged: Option<Value>,
}

fn read_pair(pair: &ObjectPair, object: usize) -> Result<ReadPair, FoldError> {
    identify(read_side(&pair.live), read_side(&pair.merged), object)
}

/// What [`read_pair`] answers for the pair of the hunk, its sides read where they lie in
/// the output; only a side outside kubectl's block layout is copied out to be parsed.
fn read_hunk(hunk: &Hunk<'_>, object: usize) -> Result<ReadPair, FoldError> {
    let side = |side| match block_yaml::read_lines(hunk.lines(side)) {
        Some(read) => Ok(Some(read)),
        None => read_side_generally(&hunk.text(side)),
    };
    identify(side(Side::Live), side(Side::Merged), object)
}

/// The pair of two sides read, named by its object.
fn identify(
    live: Result<Option<Value>, NotYaml>,
    merged: Result<Option<Value>, NotYaml>,
    object: usize,
) -> Result<ReadPair, FoldError> {
    let not_yaml = |_| FoldError {
        object,
        expected: "one YAML object on each side",
    };
    let (live, merged) = (live.map_err(not_yaml)?, merged.map_err(not_yaml)?);
    let Some(identity) = merged.as_ref().or(live.as_ref()).and_then(Identity::of) else {
        if live.is_none() && merged.is_none() {
            return Err(FoldError {
                object,
                expected: "an object on at least one side",
            });
        }
        return Err(FoldError {
            object,
            expected: "an object with apiVersion, kind and metadata.name",
        });
    };
    Ok(ReadPair {
        identity,
        live,
        merged,
    })
}

/// Reads every pair into objects with an identity, refusing duplicates. Keeps every
/// object in memory: the drift check needs their managed fields.
pub fn read_pairs(pairs: &[ObjectPair]) -> Result<Vec<ReadPair>, FoldError> {
    let read: Vec<ReadPair> = pairs
        .iter()
        .enumerate()
        .map(|(i, pair)| read_pair(pair, i + 1))
        .collect::<Result<_, _>>()?;
    refuse_duplicates(read.iter().map(|r| r.identity.address()))?;
    Ok(read)
}

fn refuse_duplicates(addresses: impl Iterator<Item = String>) -> Result<(), FoldError> {
    let mut seen = BTreeSet::new();
    for (i, address) in addresses.enumerate() {
        if !seen.insert(address) {
            return Err(FoldError {
                object: i + 1,
                expected: "each object once",
            });
        }
    }
    Ok(())
}

/// The change one read pair makes, if any.
fn change_of(pair: &ReadPair, values: &ValueList) -> Option<Change> {
    let id = &pair.identity;
    let change = |op| Change::new(id.address(), id.kind.clone(), id.display_name(), op);
    match (&pair.live, &pair.merged) {
        (None, Some(merged)) => {
            let (values, fingerprint) = values_set(id, None, Some(merged), values);
            Some(Change {
                fingerprint,
                values,
                ..change(Op::Create)
            })
        }
        (Some(_), None) => Some(change(Op::Delete)),
        (Some(live), Some(merged)) => {
            let keys = changed_keys(id, live, merged);
            (!keys.is_empty()).then(|| {
                let (values, fingerprint) = values_set(id, Some(live), Some(merged), values);
                Change {
                    changed_keys: keys,
                    fingerprint,
                    values,
                    ..change(Op::Update)
                }
            })
        }
        (None, None) => None,
    }
}

/// The values a change sets: those the list lets its row show, and the digest of the
/// rest (decision 0102). The merged object's leaves for a create, the leaves that
/// differ from the live object for an update, server fields left out, a Secret's `data`
/// and `stringData` one mark each, never shown.
fn values_set(
    id: &Identity,
    live: Option<&Value>,
    merged: Option<&Value>,
    values: &ValueList,
) -> (Vec<ShownValue>, Option<String>) {
    let is_secret = secret_fields(id);
    let live = live.map(without_server_fields);
    let merged = merged.map(without_server_fields);
    let entries = fingerprint::leaves(live.as_deref(), merged.as_deref(), &is_secret);
    let (shown, hidden) = values.split(entries, &|_| false);
    (shown, fingerprint::of_entries(hidden))
}

/// A core Secret's `data` and `stringData` are compared whole and never read below.
fn secret_fields(id: &Identity) -> impl Fn(&[Step]) -> bool {
    let is_secret = id.is_core("Secret");
    move |steps: &[Step]| {
        is_secret && matches!(steps, [Step::Field(name)] if name == "data" || name == "stringData")
    }
}

/// The changes read pairs make, sorted by address. `skip` leaves out an object that is
/// Sluiceway's own (the inventory).
pub fn fold(
    pairs: &[ReadPair],
    skip: &dyn Fn(&Identity) -> bool,
    values: &ValueList,
) -> Vec<Change> {
    let mut changes: Vec<Change> = pairs
        .iter()
        .filter(|p| !skip(&p.identity))
        .filter_map(|pair| change_of(pair, values))
        .collect();
    changes.sort_by(|a, b| code_unit_order(&a.address, &b.address));
    changes
}

/// Why a whole-object diff could not be folded: its hunks, or an object in them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OutputError {
    #[error("{0}")]
    Hunks(HunkError),
    #[error("{0}")]
    Object(FoldError),
}

/// The changes a whole-object diff makes, and how many objects it held.
#[derive(Debug)]
pub struct Folded {
    pub changes: Vec<Change>,
    pub objects: usize,
}

/// One object's outcome in the order the diff holds them: its address, or why it could
/// not be read, and its change.
type Outcome = (usize, Result<(String, Option<Change>), FoldError>);

/// Reads and folds a `kubectl diff` while it is read, spread over the machine's cores:
/// one reader checks each hunk against its header, and a worker reads the hunk's sides
/// where they lie in the output and drops their objects as soon as the change is known,
/// so memory stays near the output's own size.
///
/// The first problem in the output's order is the one reported, as reading all hunks and
/// then folding them one by one would: the hunks' before any object's, the lowest
/// object's before a later one's.
pub fn fold_output(
    output: &str,
    skip: &(dyn Fn(&Identity) -> bool + Sync),
    values: &ValueList,
) -> Result<Folded, OutputError> {
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, 8);
    let source = Mutex::new(Hunks::new(output).enumerate());
    let hunk_error = Mutex::new(None);
    let next = || {
        let mut source = source.lock().unwrap_or_else(PoisonError::into_inner);
        match source.next()? {
            (i, Ok(hunk)) => Some((i, hunk)),
            (_, Err(e)) => {
                *hunk_error.lock().unwrap_or_else(PoisonError::into_inner) = Some(e);
                None
            }
        }
    };
    let mut outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                scope.spawn(|| {
                    let mut outcomes = Vec::new();
                    while let Some((i, hunk)) = next() {
                        let read = read_hunk(&hunk, i + 1);
                        let folded = read.map(|mut read| {
                            let change = (!skip(&read.identity)).then(|| {
                                strip_server_fields(&mut read);
                                change_of(&read, values)
                            });
                            (read.identity.address(), change.flatten())
                        });
                        outcomes.push((i, folded));
                    }
                    outcomes
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    });
    if let Some(e) = hunk_error
        .into_inner()
        .unwrap_or_else(PoisonError::into_inner)
    {
        return Err(OutputError::Hunks(e));
    }
    outcomes.sort_by_key(|(i, _)| *i);
    let objects = outcomes.len();
    let folded: Vec<(String, Option<Change>)> = outcomes
        .into_iter()
        .map(|(_, folded)| folded)
        .collect::<Result<_, _>>()
        .map_err(OutputError::Object)?;
    refuse_duplicates(folded.iter().map(|(address, _)| address.clone()))
        .map_err(OutputError::Object)?;
    let mut changes: Vec<Change> = folded
        .into_iter()
        .filter_map(|(_, change)| change)
        .collect();
    changes.sort_by(|a, b| code_unit_order(&a.address, &b.address));
    Ok(Folded { changes, objects })
}

/// Leaves out what the server writes, in place: the fold owns its objects and needs
/// nothing the server wrote, so nothing has to be copied to compare them.
fn strip_server_fields(pair: &mut ReadPair) {
    for object in [&mut pair.live, &mut pair.merged].into_iter().flatten() {
        strip(object);
    }
}

fn strip(object: &mut Value) {
    if let Some(map) = object.as_object_mut() {
        map.remove("status");
        if let Some(Value::Object(metadata)) = map.get_mut("metadata") {
            for field in SERVER_METADATA {
                metadata.remove(field);
            }
        }
    }
}

/// The changed paths of an object on both sides, server fields left out.
pub fn changed_keys(identity: &Identity, live: &Value, merged: &Value) -> Vec<String> {
    changed_property_paths(identity, live, merged)
        .iter()
        .map(ToString::to_string)
        .collect()
}

pub fn changed_property_paths(
    identity: &Identity,
    live: &Value,
    merged: &Value,
) -> Vec<PropertyPath> {
    let sensitive = secret_fields(identity);
    changed_paths(
        &without_server_fields(live),
        &without_server_fields(merged),
        &sensitive,
    )
}

/// The object without what the server writes; borrowed as it is when it holds none (a
/// rendered manifest), so only objects read back from the server are copied.
fn without_server_fields(object: &Value) -> Cow<'_, Value> {
    let metadata = object.get("metadata");
    let holds_server_fields = object.get("status").is_some()
        || SERVER_METADATA
            .iter()
            .any(|field| metadata.is_some_and(|m| m.get(field).is_some()));
    if !holds_server_fields {
        return Cow::Borrowed(object);
    }
    let mut object = object.clone();
    strip(&mut object);
    Cow::Owned(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(live: &str, merged: &str) -> ObjectPair {
        ObjectPair {
            live: live.into(),
            merged: merged.into(),
        }
    }

    const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  generation: 1\n  resourceVersion: \"5\"\nspec:\n  replicas: 1\nstatus:\n  replicas: 1\n";

    #[test]
    fn server_fields_alone_are_no_change() {
        let merged = DEPLOYMENT
            .replace("generation: 1", "generation: 2")
            .replace("\"5\"", "\"9\"")
            .replace("status:\n  replicas: 1", "status:\n  replicas: 3");
        let read = read_pairs(&[pair(DEPLOYMENT, &merged)]).unwrap();
        assert!(fold(&read, &|_| false, &ValueList::none()).is_empty());
    }

    #[test]
    fn updates_creates_and_secrets() {
        let merged = DEPLOYMENT.replace("replicas: 1\nstatus", "replicas: 2\nstatus");
        let secret_live = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: shop\ndata:\n  password: '*** (before)'\n";
        let secret_merged = secret_live.replace("before", "after");
        let read = read_pairs(&[
            pair(DEPLOYMENT, &merged),
            pair(
                "null\n",
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: new\n",
            ),
            pair(secret_live, &secret_merged),
        ])
        .unwrap();
        let changes = fold(&read, &|_| false, &ValueList::none());
        let summary: Vec<(String, &str, Vec<String>)> = changes
            .iter()
            .map(|c| (c.address.clone(), c.op.name(), c.changed_keys.clone()))
            .collect();
        assert_eq!(
            summary,
            [
                ("ConfigMap/new".to_owned(), "create", vec![]),
                (
                    "Deployment.apps/shop/web".to_owned(),
                    "update",
                    vec!["spec.replicas".to_owned()]
                ),
                (
                    "Secret/shop/creds".to_owned(),
                    "update",
                    vec!["data".to_owned()]
                ),
            ]
        );
    }

    #[test]
    fn bad_pairs_name_the_object() {
        assert_eq!(
            read_pairs(&[pair("- a\n", "")]).unwrap_err(),
            FoldError {
                object: 1,
                expected: "one YAML object on each side"
            }
        );
        assert_eq!(
            read_pairs(&[pair(DEPLOYMENT, DEPLOYMENT), pair(DEPLOYMENT, DEPLOYMENT)])
                .unwrap_err()
                .object,
            2
        );
        assert_eq!(
            read_pairs(&[pair("", "a: 1\n")]).unwrap_err().expected,
            "an object with apiVersion, kind and metadata.name"
        );
    }

    /// One object's hunk as `diff -N -U1000000` lays it out.
    fn hunk(live: &str, merged: &str) -> String {
        let lines = |side: &str, marker: char| -> (usize, String) {
            let count = side.lines().count();
            (
                count,
                side.lines().map(|l| format!("{marker}{l}\n")).collect(),
            )
        };
        let ((live_count, live), (merged_count, merged)) = (lines(live, '-'), lines(merged, '+'));
        let start = |count: usize| usize::from(count > 0);
        format!(
            "--- /tmp/LIVE/a\n+++ /tmp/MERGED/a\n@@ -{},{live_count} +{},{merged_count} @@\n{live}{merged}",
            start(live_count),
            start(merged_count)
        )
    }

    /// What reading every hunk and then folding the objects one by one gives.
    fn one_by_one(output: &str) -> Result<Vec<Change>, OutputError> {
        let pairs = super::super::hunks::read(output).map_err(OutputError::Hunks)?;
        let read = read_pairs(&pairs).map_err(OutputError::Object)?;
        Ok(fold(&read, &|_| false, &ValueList::none()))
    }

    #[test]
    fn folding_while_reading_reports_what_reading_first_would() {
        let config = |name: &str, value: &str| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\ndata:\n  a: \"{value}\"\n"
            )
        };
        let good: Vec<String> = (0..40)
            .map(|i| {
                hunk(
                    &config(&format!("c{i}"), "1"),
                    &config(&format!("c{i}"), "2"),
                )
            })
            .collect();
        let bad = hunk("- a\n", "");
        let good = |range: std::ops::Range<usize>| good[range].concat();
        let outputs = [
            good(0..40),
            [good(0..5), bad.clone(), good(5..40)].concat(),
            [good(0..5), bad.clone(), good(5..9), bad.clone()].concat(),
            [good(0..40), good(3..4)].concat(),
            [good(0..2), bad, good(2..40), "@@ -1 +1 @@\n".to_owned()].concat(),
            String::new(),
        ];
        for output in outputs {
            let streamed = fold_output(&output, &|_| false, &ValueList::none());
            let expected = one_by_one(&output);
            match (streamed, expected) {
                (Ok(folded), Ok(changes)) => {
                    assert_eq!(folded.changes, changes);
                    assert_eq!(folded.objects, output.matches("--- ").count());
                }
                (Err(streamed), Err(expected)) => assert_eq!(streamed, expected),
                (streamed, expected) => panic!("{streamed:?} where {expected:?} was expected"),
            }
        }
    }
}
