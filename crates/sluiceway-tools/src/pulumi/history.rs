//! Reading `pulumi stack history --json` for the deploys it lists (decision 0073). Only
//! `kind`, `result`, `endTime`, `resourceChanges` and four environment keys are read;
//! the config, the message and who ran it are skipped as the document is parsed.

use std::collections::BTreeMap;

use serde::Deserialize;
use sluiceway_core::failure::Failure;

use crate::tool_run::unreadable;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEntry {
    kind: String,
    result: String,
    #[serde(default)]
    end_time: Option<String>,
    #[serde(default)]
    resource_changes: BTreeMap<String, u64>,
    #[serde(default)]
    environment: Environment,
}

#[derive(Deserialize, Default)]
struct Environment {
    #[serde(rename = "git.head", default)]
    head: Option<String>,
    #[serde(rename = "git.dirty", default)]
    dirty: Option<String>,
    #[serde(rename = "ci.system", default)]
    ci_system: Option<String>,
    #[serde(rename = "ci.build.id", default)]
    build_id: Option<String>,
}

/// What a deploy did to the stack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeployKind {
    Update,
    Destroy,
}

/// One deploy the history lists: it succeeded and changed something.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deployed {
    pub kind: DeployKind,
    /// When it ended, as the tool wrote it (ISO 8601).
    pub ended: String,
    /// The commit it was run from: forty hex digits or nothing.
    pub commit: Option<String>,
    /// The tree held uncommitted changes.
    pub dirty: bool,
    /// The CI system's name, when one ran it.
    pub ci_system: Option<String>,
    /// The CI run's id, digits only: how Sluiceway knows its own deploys.
    pub run: Option<u64>,
}

/// Reads the history, newest first as the tool lists it.
pub fn read(stdout: &[u8]) -> Result<Vec<Deployed>, Failure> {
    let entries: Vec<RawEntry> = serde_json::from_slice(stdout).map_err(|e| {
        unreadable(format!(
            "The stack's history: expected a JSON list of updates (line {}, column {})",
            e.line(),
            e.column()
        ))
    })?;
    Ok(entries
        .into_iter()
        .filter_map(|entry| {
            let kind = match entry.kind.as_str() {
                "update" => DeployKind::Update,
                "destroy" => DeployKind::Destroy,
                _ => return None,
            };
            let changed = entry
                .resource_changes
                .iter()
                .any(|(op, n)| op != "same" && *n > 0);
            if entry.result != "succeeded" || !changed {
                return None;
            }
            let env = entry.environment;
            Some(Deployed {
                kind,
                ended: entry.end_time?,
                commit: env
                    .head
                    .filter(|h| h.len() == 40 && h.bytes().all(|b| b.is_ascii_hexdigit())),
                dirty: env.dirty.as_deref() == Some("true"),
                ci_system: env.ci_system,
                run: env
                    .build_id
                    .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
                    .and_then(|id| id.parse().ok()),
            })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: &str, result: &str, changes: &str, env: &str) -> String {
        format!(
            r#"{{"kind":"{kind}","result":"{result}","endTime":"2026-09-22T14:17:11.000Z","resourceChanges":{{{changes}}},"environment":{{{env}}},"config":{{"x:y":"CANARY"}},"message":"m"}}"#
        )
    }

    #[test]
    fn only_succeeded_deploys_that_changed_something() {
        let head = r#""git.head":"7790ca54d9cff99a5dbeb4740ff3416ea32ce443","git.dirty":"true""#;
        let text = format!(
            "[{}]",
            [
                entry("update", "succeeded", r#""create":1,"same":2"#, head),
                entry("update", "succeeded", r#""same":3"#, head),
                entry("update", "failed", r#""create":1"#, head),
                entry("refresh", "succeeded", r#""update":1"#, head),
                entry(
                    "destroy",
                    "succeeded",
                    r#""delete":3"#,
                    r#""git.head":"abc""#
                ),
                entry(
                    "update",
                    "succeeded",
                    r#""update":1"#,
                    r#""ci.system":"GitHub Actions","ci.build.id":"1234""#
                ),
                entry(
                    "update",
                    "succeeded",
                    r#""update":1"#,
                    r#""ci.build.id":"12a""#
                ),
            ]
            .join(",")
        );
        let deployed = read(text.as_bytes()).unwrap();
        assert_eq!(deployed.len(), 4);
        assert_eq!(deployed[0].kind, DeployKind::Update);
        assert_eq!(
            deployed[0].commit.as_deref(),
            Some("7790ca54d9cff99a5dbeb4740ff3416ea32ce443")
        );
        assert!(deployed[0].dirty);
        assert_eq!(deployed[1].kind, DeployKind::Destroy);
        assert_eq!(deployed[1].commit, None);
        assert_eq!(deployed[2].run, Some(1234));
        assert_eq!(deployed[2].ci_system.as_deref(), Some("GitHub Actions"));
        assert_eq!(deployed[3].run, None);
    }

    #[test]
    fn a_history_that_is_not_a_list() {
        assert!(read(b"{}").is_err());
        assert!(read(b"[{\"kind\":").is_err());
        assert_eq!(read(b"[]").unwrap(), []);
    }
}
