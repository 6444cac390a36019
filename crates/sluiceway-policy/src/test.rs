//! Asking the policies about a document, rule by rule, as `conftest test` does.

use std::num::NonZeroU32;
use std::time::Duration;

use regorus::Value;
use regorus::utils::limits::ExecutionTimerConfig;

use crate::compile::{Namespace, Policies, is_failure};
use crate::report::{Finding, NamespaceReport, Report};

/// Why a document could not be judged. It names the namespace and rule; the
/// interpreter's own words may quote the document, so they go to the job log only.
#[derive(Debug, thiserror::Error)]
pub enum TestError {
    #[error("data.{namespace}.{rule} could not be evaluated: {words}")]
    Evaluation {
        namespace: String,
        rule: String,
        words: String,
    },
    #[error("the document could not be handed to the policies: {words}")]
    Input { words: String },
    #[error("data.{namespace}.{rule} gave an object without a string `msg`")]
    ResultWithoutMessage { namespace: String, rule: String },
}

impl Policies {
    /// Judges a preview: one document, or the documents of a YAML stream, each on its
    /// own, their results added up per namespace. Evaluation stops at `limit` (the
    /// stack's preview limit), so a policy that never ends fails that stack alone.
    pub fn test(
        &self,
        documents: &[serde_json::Value],
        limit: Duration,
    ) -> Result<Report, TestError> {
        let mut engine = self.engine.clone();
        engine.set_execution_timer_config(ExecutionTimerConfig {
            limit,
            check_interval: NonZeroU32::MIN,
        });
        let mut namespaces: Vec<NamespaceReport> = self
            .namespaces
            .iter()
            .map(|n| NamespaceReport {
                namespace: n.name.clone(),
                ..NamespaceReport::default()
            })
            .collect();
        for document in documents {
            let input = serde_json::from_value::<Value>(document.clone()).map_err(|e| {
                TestError::Input {
                    words: e.to_string(),
                }
            })?;
            engine.set_input(input);
            for (namespace, report) in self.namespaces.iter().zip(namespaces.iter_mut()) {
                check(&mut engine, namespace, report)?;
            }
        }
        namespaces.sort_by(|a, b| a.namespace.cmp(&b.namespace));
        Ok(Report { namespaces })
    }
}

/// One namespace over the engine's input, added to `report`.
fn check(
    engine: &mut regorus::Engine,
    namespace: &Namespace,
    report: &mut NamespaceReport,
) -> Result<(), TestError> {
    let failed = |rule: &str, e: &dyn std::fmt::Display| TestError::Evaluation {
        namespace: namespace.name.clone(),
        rule: rule.to_owned(),
        words: e.to_string(),
    };
    let mut results = 0;
    let mut successes = 0;
    for rule in &namespace.rules {
        let waived = engine
            .eval_query(
                format!(
                    "data.{}.exception[_][_] == {}",
                    namespace.name,
                    Value::from(waived_name(rule))
                        .to_json_str()
                        .unwrap_or_default()
                ),
                false,
            )
            .map_err(|e| failed("exception", &e))?
            .result
            .len();
        let value = engine
            .eval_rule(format!("data.{}.{}", namespace.name, rule))
            .map_err(|e| failed(rule, &e))?;
        if waived > 0 {
            report.exceptions += waived;
            results += waived;
            continue;
        }
        let values: Vec<&Value> = match &value {
            Value::Set(set) => set.iter().collect(),
            Value::Array(array) => array.iter().collect(),
            _ => Vec::new(),
        };
        if values.is_empty() {
            successes += 1;
            results += 1;
            continue;
        }
        for value in values {
            let finding = match value {
                Value::String(message) => Finding {
                    message: message.to_string(),
                    metadata: serde_json::Map::new(),
                },
                Value::Object(_) => {
                    finding(value).ok_or_else(|| TestError::ResultWithoutMessage {
                        namespace: namespace.name.clone(),
                        rule: rule.clone(),
                    })?
                }
                _ => continue,
            };
            results += 1;
            if finding.message.is_empty() {
                successes += 1;
            } else if is_failure(rule) {
                report.failures.push(finding);
            } else {
                report.warnings.push(finding);
            }
        }
    }
    report.successes += successes + namespace.definitions.saturating_sub(results);
    Ok(())
}

/// The name an `exception` lists to waive a rule: `deny_public` is waived by `public`;
/// a bare `deny`, `violation` or `warn` by the empty name.
fn waived_name(rule: &str) -> &str {
    if matches!(rule, "deny" | "violation" | "warn") {
        return "";
    }
    ["violation_", "deny_", "warn_"]
        .iter()
        .find_map(|prefix| rule.strip_prefix(prefix))
        .unwrap_or(rule)
}

/// A result that is an object: its `msg`, and the rest as metadata (without `_loc`).
fn finding(value: &Value) -> Option<Finding> {
    let serde_json::Value::Object(mut fields) =
        serde_json::from_str::<serde_json::Value>(&value.to_json_str().ok()?).ok()?
    else {
        return None;
    };
    let serde_json::Value::String(message) = fields.remove("msg")? else {
        return None;
    };
    fields.remove("_loc");
    Some(Finding {
        message,
        metadata: fields,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sources::Source;

    #[test]
    fn a_policy_that_runs_past_the_limit_fails_that_document_only() {
        let slow = Policies::compile(&[Source {
            path: "slow.rego".to_owned(),
            text: "package slow\n\nimport rego.v1\n\ncounted := count([i | some i in numbers.range(1, 20000000)])\n\ndeny contains msg if {\n  counted > 0\n  msg := \"slow\"\n}\n".to_owned(),
        }])
        .unwrap();
        let started = std::time::Instant::now();
        let stopped = slow.test(&[serde_json::json!({})], Duration::from_millis(200));
        assert!(
            matches!(stopped, Err(TestError::Evaluation { ref rule, .. }) if rule == "deny"),
            "{stopped:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{:?}",
            started.elapsed()
        );
    }
}
