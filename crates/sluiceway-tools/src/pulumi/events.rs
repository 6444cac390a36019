//! Reading the engine events of `pulumi refresh --preview-only --json` (one JSON object
//! per line, with `PULUMI_ENABLE_STREAMING_JSON_PREVIEW=true`) into drift. Only a
//! resource's outputs event (op, URN, `diffs`, the keys of `detailedDiff`), the summary's
//! counts and diagnostics' messages are kept; the prelude's config and every state are
//! skipped as each line is parsed.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;
use sluiceway_core::diff::{Change, Op};
use sluiceway_core::failure::{Failure, FailureReason};

use super::paths;
use super::preview::{Diagnostic, Rooted, finish};
use super::urn::Urn;
use crate::tool_log::ToolLog;
use crate::tool_run::unreadable;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Event {
    #[serde(default)]
    res_outputs_event: Option<Outputs>,
    #[serde(default)]
    summary_event: Option<Summary>,
    #[serde(default)]
    diagnostic_event: Option<LoggedDiagnostic>,
}

#[derive(Deserialize)]
struct Outputs {
    metadata: Metadata,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Metadata {
    op: String,
    urn: String,
    #[serde(default)]
    diffs: Option<Vec<String>>,
    #[serde(default)]
    detailed_diff: Option<BTreeMap<String, IgnoredAny>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Summary {
    #[serde(default)]
    resource_changes: BTreeMap<String, u64>,
}

#[derive(Deserialize)]
struct LoggedDiagnostic {
    #[serde(default)]
    severity: Option<String>,
    #[serde(flatten)]
    diagnostic: Diagnostic,
}

const WHAT: &str = "The drift check";

/// Reads the event stream into drift: what changed outside the code (`update`) and what
/// is gone (`delete`). A stream with no summary, or whose summary counts changes it sent
/// no event for, is refused: part of it was lost.
pub fn read(stdout: &[u8], log: &mut ToolLog) -> Result<Vec<Change>, Failure> {
    let mut drift = Vec::new();
    let mut named = 0u64;
    let mut counted = None;
    for (number, line) in stdout.split(|b| *b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let event: Event = serde_json::from_slice(line).map_err(|_| {
            unreadable(format!(
                "{WHAT}: line {}: expected an engine event",
                number + 1
            ))
        })?;
        if let Some(logged) = &event.diagnostic_event
            && logged.severity.as_deref() != Some("debug")
        {
            logged.diagnostic.log(log);
        }
        if let Some(summary) = event.summary_event {
            counted = Some(
                summary
                    .resource_changes
                    .iter()
                    .filter(|(op, _)| op.as_str() != "same")
                    .map(|(_, n)| *n)
                    .sum::<u64>(),
            );
        }
        let Some(outputs) = event.res_outputs_event else {
            continue;
        };
        let metadata = outputs.metadata;
        let op = match metadata.op.as_str() {
            "same" | "refresh" => continue,
            "update" => Op::Update,
            "delete" => Op::Delete,
            _ => {
                return Err(Failure::with_detail(
                    FailureReason::UnknownStep,
                    format!("{WHAT}: line {}", number + 1),
                ));
            }
        };
        named += 1;
        let urn = Urn::parse(&metadata.urn).ok_or_else(|| {
            unreadable(format!(
                "{WHAT}: line {}: expected a Pulumi URN",
                number + 1
            ))
        })?;
        let mut change = Change::new(metadata.urn.clone(), urn.kind(), urn.name, op);
        if op == Op::Update {
            let detailed: Vec<&String> = metadata
                .detailed_diff
                .iter()
                .flat_map(|d| d.keys())
                .collect();
            let keys: Vec<&String> = if detailed.is_empty() {
                metadata.diffs.iter().flatten().collect()
            } else {
                detailed
            };
            let mut keys = keys
                .into_iter()
                .map(|k| {
                    paths::parse(k).map(|p| p.to_string()).ok_or_else(|| {
                        unreadable(format!(
                            "{WHAT}: line {}: expected property paths in Pulumi's notation",
                            number + 1
                        ))
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            keys.sort_by(|a, b| sluiceway_core::diff::code_unit_order(a, b));
            keys.dedup();
            change.changed_keys = keys;
        }
        drift.push(Rooted {
            root: urn.is_root_stack(),
            change,
        });
    }
    match counted {
        None => Err(unreadable(format!(
            "{WHAT}: expected a summary event at the end, and the stream has none"
        ))),
        Some(counted) if counted > named => Err(unreadable(format!(
            "{WHAT}: the summary counts {counted} changes and the stream names {named}"
        ))),
        Some(_) => finish(drift, WHAT),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "urn:pulumi:prod::site::pulumi-nodejs:dynamic:Resource::note";

    fn outputs(op: &str, urn: &str, extra: &str) -> String {
        format!(
            r#"{{"sequence":1,"resOutputsEvent":{{"metadata":{{"op":"{op}","urn":"{urn}"{extra}}}}}}}"#
        )
    }

    fn summary(changes: &str) -> String {
        format!(r#"{{"summaryEvent":{{"resourceChanges":{{{changes}}}}}}}"#)
    }

    fn read_lines(lines: &[String]) -> Result<Vec<Change>, Failure> {
        read(lines.join("\n").as_bytes(), &mut ToolLog::default())
    }

    #[test]
    fn updates_and_deletes_are_drift() {
        let drift = read_lines(&[
            r#"{"preludeEvent":{"config":{"site:token":"[secret]"}}}"#.to_owned(),
            outputs(
                "same",
                "urn:pulumi:prod::site::pulumi:pulumi:Stack::site-prod",
                "",
            ),
            outputs(
                "update",
                NOTE,
                r#","diffs":["content"],"detailedDiff":null"#,
            ),
            outputs(
                "delete",
                "urn:pulumi:prod::site::local:index/file:File::notes",
                "",
            ),
            summary(r#""same":4,"update":1,"delete":1"#),
        ])
        .unwrap();
        assert_eq!(drift.len(), 2);
        assert_eq!(drift[0].op, Op::Delete);
        assert!(drift[0].changed_keys.is_empty());
        assert_eq!(drift[1].op, Op::Update);
        assert_eq!(drift[1].changed_keys, ["content"]);
    }

    #[test]
    fn a_stream_without_its_summary_or_with_lost_events_is_refused() {
        let without = read_lines(&[outputs("update", NOTE, "")]).unwrap_err();
        assert_eq!(without.reason, FailureReason::UnreadableOutput);
        let lost =
            read_lines(&[outputs("update", NOTE, ""), summary(r#""update":2"#)]).unwrap_err();
        assert_eq!(
            lost.detail,
            ["The drift check: the summary counts 2 changes and the stream names 1"]
        );
    }

    #[test]
    fn a_line_that_is_not_an_event_or_an_op_we_do_not_know() {
        let garbled = read_lines(&[outputs("update", NOTE, ""), "{\"cut".to_owned()]).unwrap_err();
        assert_eq!(
            garbled.detail,
            ["The drift check: line 2: expected an engine event"]
        );
        let unknown = read_lines(&[outputs("create", NOTE, ""), summary("")]).unwrap_err();
        assert_eq!(unknown.reason, FailureReason::UnknownStep);
    }

    #[test]
    fn debug_diagnostics_stay_out_of_the_log() {
        let mut log = ToolLog::default();
        read(
            [
                r#"{"diagnosticEvent":{"message":"[rawstate] noise","severity":"debug"}}"#,
                r#"{"diagnosticEvent":{"message":"warning: kept","severity":"warning"}}"#,
                &summary(""),
            ]
            .join("\n")
            .as_bytes(),
            &mut log,
        )
        .unwrap();
        assert_eq!(log.job_log_lines(), ["warning: kept"]);
    }
}
