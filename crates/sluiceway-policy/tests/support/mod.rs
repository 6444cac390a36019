//! What the policy tests share: one answer shape for the in-process evaluation and for
//! Conftest's JSON report, so the two compare as equals.

#![allow(dead_code, reason = "each test file uses its own part")]

use std::path::Path;

use serde_json::Value;
use sluiceway_policy::{Policies, Report};

/// One namespace's answer over one file, in the terms both sides share. Messages are
/// sorted: Conftest lists a set's members in OPA's order, which is not an answer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Answer {
    pub(crate) namespace: String,
    pub(crate) successes: u64,
    pub(crate) failures: Vec<String>,
    pub(crate) warnings: Vec<String>,
    pub(crate) exceptions: u64,
}

/// A finding as both sides can write it: the message, with its metadata when there is some.
fn said(message: &str, metadata: &serde_json::Map<String, Value>) -> String {
    if metadata.is_empty() {
        message.to_owned()
    } else {
        format!("{message} {}", Value::Object(metadata.clone()))
    }
}

/// The in-process report as answers.
pub(crate) fn answers(report: &Report) -> Vec<Answer> {
    let mut answers: Vec<Answer> = report
        .namespaces
        .iter()
        .map(|n| {
            let mut failures: Vec<String> = n
                .failures
                .iter()
                .map(|f| said(&f.message, &f.metadata))
                .collect();
            let mut warnings: Vec<String> = n
                .warnings
                .iter()
                .map(|f| said(&f.message, &f.metadata))
                .collect();
            failures.sort();
            warnings.sort();
            Answer {
                namespace: n.namespace.clone(),
                successes: n.successes as u64,
                failures,
                warnings,
                exceptions: n.exceptions as u64,
            }
        })
        .collect();
    answers.sort();
    answers
}

/// Conftest's `--output json` report as answers.
pub(crate) fn conftest_answers(stdout: &str) -> Vec<Answer> {
    let report: Vec<Value> = serde_json::from_str(stdout).expect("conftest's report is JSON");
    let findings = |entry: &Value, key: &str| -> Vec<String> {
        let mut found: Vec<String> = entry
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|f| {
                let mut metadata = f
                    .get("metadata")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                metadata.remove("query");
                said(f["msg"].as_str().unwrap_or_default(), &metadata)
            })
            .collect();
        found.sort();
        found
    };
    let mut answers: Vec<Answer> = report
        .iter()
        .map(|entry| Answer {
            namespace: entry["namespace"].as_str().unwrap_or_default().to_owned(),
            successes: entry["successes"].as_u64().unwrap_or_default(),
            failures: findings(entry, "failures"),
            warnings: findings(entry, "warnings"),
            exceptions: entry
                .get("exceptions")
                .and_then(Value::as_array)
                .map_or(0, |e| e.len() as u64),
        })
        .collect();
    answers.sort();
    answers
}

/// A document file as Conftest parses it: a JSON file is one document (an array's items
/// each one), a YAML file is its stream of documents.
pub(crate) fn documents(file: &Path) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(file).map_err(|e| e.to_string())?;
    if file.extension().is_some_and(|e| e == "json") {
        return match serde_json::from_str::<Value>(&text).map_err(|e| e.to_string())? {
            Value::Array(items) => Ok(items),
            one => Ok(vec![one]),
        };
    }
    sluiceway_tools::kubernetes::objects::read_stream(&text).map_err(|e| e.to_string())
}

/// Runs the policies at `policy_paths` (relative to `dir`) over `document` in-process.
pub(crate) fn in_process(
    dir: &Path,
    policy_paths: &[&str],
    document: &str,
) -> Result<Vec<Answer>, String> {
    let paths: Vec<String> = policy_paths.iter().map(|p| (*p).to_owned()).collect();
    let sources = sluiceway_policy::sources::load(dir, &paths).map_err(|e| e.to_string())?;
    let policies = Policies::compile(&sources).map_err(|e| e.to_string())?;
    let documents = documents(&dir.join(document))?;
    policies
        .test(&documents, std::time::Duration::from_secs(60))
        .map(|r| answers(&r))
        .map_err(|e| e.to_string())
}
