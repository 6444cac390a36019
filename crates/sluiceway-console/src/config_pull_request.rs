//! A settings change asked in the console: the keys changed in `sluiceway.yaml` by hand's
//! rules (every other byte kept), committed on the branch `sluiceway/dashboard` and
//! offered as one pull request to the default branch. A person merges it; the console
//! never writes the default branch.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sluiceway_core::config::{self, Document, KeyPath, edit};
use sluiceway_github::{FileWrite, GitHub, GitHubError, NewPullRequest};

use crate::config::{BRANCH, KEYS};

/// One key to change, by the name the config operation lists; `null` puts the action's
/// default back.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyChange {
    pub key: String,
    pub value: Value,
}

/// A key a change names, read from its name.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Named {
    /// A key of the file's top, as dotted names.
    Top(KeyPath),
    /// `deploy` or `tickers` of the entry of `stacks` for a stack.
    Stack { id: String, key: String },
}

/// Reads every change's key before GitHub is asked anything: one sentence for each key
/// that is not one a change may name, or named twice.
pub fn check(changes: &[KeyChange]) -> Result<(), Vec<String>> {
    let mut problems = Vec::new();
    let mut seen = std::collections::BTreeSet::new();
    if changes.is_empty() {
        problems.push("The request names no change.".to_owned());
    }
    for change in changes {
        if named(&change.key).is_none() {
            problems.push(format!(
                "{} is not a key the console changes; the config operation lists those it does.",
                change.key
            ));
        } else if !seen.insert(change.key.as_str()) {
            problems.push(format!("{} is named more than once.", change.key));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn named(key: &str) -> Option<Named> {
    if KEYS.contains(&key) {
        let mut path = KeyPath::default();
        for part in key.split('.') {
            path = path.key(part);
        }
        return Some(Named::Top(path));
    }
    let rest = key.strip_prefix("stacks[")?;
    let (id, key) = rest.rsplit_once("].")?;
    (!id.is_empty() && matches!(key, "deploy" | "tickers")).then(|| Named::Stack {
        id: id.to_owned(),
        key: key.to_owned(),
    })
}

/// What came of it, in the reference's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Opened,
    PullRequestOpen,
    NothingToChange,
    ConfigInvalid,
    TwoFiles,
    NoDefaultBranch,
    ReadFailed,
    WriteFailed,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PullRequestAnswer {
    pub outcome: Outcome,
    pub pull_request: Option<u64>,
    pub url: Option<String>,
    pub sentence: String,
    /// One line per key changed.
    pub changes: Vec<String>,
    /// Why the file, or the file as changed, would not load; one line each.
    pub problems: Vec<String>,
}

impl PullRequestAnswer {
    fn said(outcome: Outcome, sentence: impl Into<String>) -> PullRequestAnswer {
        PullRequestAnswer {
            outcome,
            pull_request: None,
            url: None,
            sentence: sentence.into(),
            changes: Vec::new(),
            problems: Vec::new(),
        }
    }
}

/// The person cannot write to the repository: GitHub would refuse the pull request's
/// branch anyway, and the console does not write for a person who could not.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("no write access")]
    NoWriteAccess,
    #[error("GitHub did not answer: {0}")]
    Silent(GitHubError),
}

/// Opens the pull request for `changes` (already [`check`]ed) as asked by `person`.
pub fn open(
    github: &dyn GitHub,
    person: &str,
    changes: &[KeyChange],
) -> Result<PullRequestAnswer, Refusal> {
    match github.permission(person) {
        Ok(permission) if permission.push => {}
        Ok(_) => return Err(Refusal::NoWriteAccess),
        Err(e) if e.status() == Some(404) => return Err(Refusal::NoWriteAccess),
        Err(e) => return Err(Refusal::Silent(e)),
    }
    let read_failed = |e: GitHubError| {
        // GitHub's own words go to the console's log, for its operator.
        crate::log::note(&format!(
            "a settings change could not read the repository: {e}"
        ));
        PullRequestAnswer::said(
            Outcome::ReadFailed,
            "GitHub did not give the console the repository's sluiceway.yaml; nothing was written.",
        )
    };
    let base = match github.default_branch() {
        Ok(base) => base,
        Err(e) => return Ok(read_failed(e)),
    };
    let base_sha = match github.branch_head(&base) {
        Ok(Some(sha)) => sha,
        Ok(None) => {
            return Ok(PullRequestAnswer::said(
                Outcome::NoDefaultBranch,
                "The repository has no default branch to open a pull request against.",
            ));
        }
        Err(e) => return Ok(read_failed(e)),
    };
    match github.pull_request_from(BRANCH) {
        Ok(Some(open)) => {
            let mut answer = PullRequestAnswer::said(
                Outcome::PullRequestOpen,
                format!(
                    "Pull request #{} from {BRANCH} is still open; merge or close it before asking for another change.",
                    open.number
                ),
            );
            answer.pull_request = Some(open.number);
            answer.url = Some(open.html_url);
            return Ok(answer);
        }
        Ok(None) => {}
        Err(e) => return Ok(read_failed(e)),
    }
    let mut found = Vec::new();
    for name in config::FILE_NAMES {
        match github.repo_file(name, &base_sha) {
            Ok(Some(file)) => found.push((name, file)),
            Ok(None) => {}
            Err(e) => return Ok(read_failed(e)),
        }
    }
    let (name, text, blob) = match found.as_slice() {
        [] => (config::FILE_NAMES[0], String::new(), None),
        [(name, file)] => (*name, file.text.clone(), Some(file.sha.clone())),
        _ => {
            return Ok(PullRequestAnswer::said(
                Outcome::TwoFiles,
                "The repository has both sluiceway.yaml and sluiceway.yml; the action reads neither, so remove one first.",
            ));
        }
    };
    if let Err(problems) = config::load(name, &text) {
        let mut answer = PullRequestAnswer::said(
            Outcome::ConfigInvalid,
            format!("{name} on {base} does not load as it is; fix it first."),
        );
        answer.problems = problems.iter().map(ToString::to_string).collect();
        return Ok(answer);
    }
    let (changed, said, problems) = apply(&text, changes);
    if !problems.is_empty() {
        let mut answer = PullRequestAnswer::said(
            Outcome::ConfigInvalid,
            "The changes could not be made in the file; nothing was written.",
        );
        answer.problems = problems;
        return Ok(answer);
    }
    if changed == text {
        let mut answer = PullRequestAnswer::said(
            Outcome::NothingToChange,
            format!("{name} on {base} already says so; nothing was written."),
        );
        answer.changes = said;
        return Ok(answer);
    }
    if let Err(problems) = config::load(name, &changed) {
        let mut answer = PullRequestAnswer::said(
            Outcome::ConfigInvalid,
            format!("{name} as changed would not load; nothing was written."),
        );
        answer.problems = problems.iter().map(ToString::to_string).collect();
        answer.changes = said;
        return Ok(answer);
    }
    let title = "Change the Sluiceway dashboard's settings";
    let body = format!(
        "Asked by @{person} in the Sluiceway console.\n\n{}\n\nEvery other line of {name} is as it was.",
        said.iter()
            .map(|line| format!("- {line}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let written = github
        .point_branch(BRANCH, &base_sha)
        .and_then(|()| {
            github.write_file(&FileWrite {
                path: name,
                branch: BRANCH,
                text: &changed,
                message: title,
                replacing: blob.as_deref(),
            })
        })
        .and_then(|_| {
            github.open_pull_request(&NewPullRequest {
                title,
                body: &body,
                head: BRANCH,
                base: &base,
            })
        });
    match written {
        Ok(opened) => Ok(PullRequestAnswer {
            outcome: Outcome::Opened,
            pull_request: Some(opened.number),
            url: Some(opened.html_url),
            sentence: format!(
                "Opened pull request #{} from {BRANCH}; the settings change when it is merged.",
                opened.number
            ),
            changes: said,
            problems: Vec::new(),
        }),
        Err(e) => {
            crate::log::note(&format!("a settings change could not be written: {e}"));
            let mut answer = PullRequestAnswer::said(
                Outcome::WriteFailed,
                "GitHub refused part of the pull request; the console's log says which.",
            );
            answer.changes = said;
            Ok(answer)
        }
    }
}

/// The text with every change made in turn: the text, a line per change, and a line per
/// change that could not be made.
pub(crate) fn apply(text: &str, changes: &[KeyChange]) -> (String, Vec<String>, Vec<String>) {
    let mut text = text.to_owned();
    let mut said = Vec::new();
    let mut problems = Vec::new();
    for change in changes {
        let Some(named) = named(&change.key) else {
            continue;
        };
        let path = match named {
            Named::Top(path) => path,
            Named::Stack { id, key } => match entry_of(&text, &id) {
                Some(index) => KeyPath::default().key("stacks").index(index).key(&key),
                None => {
                    problems.push(format!(
                        "{}: sluiceway.yaml has no entry in stacks for {id}; add one by hand first.",
                        change.key
                    ));
                    continue;
                }
            },
        };
        match edit::set(&text, &path, &change.value) {
            Ok(edited) => {
                said.push(if change.value.is_null() {
                    format!("{} back to the action's default", change.key)
                } else {
                    format!("{} set to {}", change.key, change.value)
                });
                text = edited;
            }
            Err(e) => problems.push(format!("{}: {e}", change.key)),
        }
    }
    (text, said, problems)
}

/// The index of the entry of `stacks` for a stack, named as the config operation names
/// it.
fn entry_of(text: &str, id: &str) -> Option<usize> {
    let document = Document::parse(text).ok()?;
    document
        .value
        .get("stacks")?
        .as_array()?
        .iter()
        .position(|entry| crate::config::entry_name(entry).as_deref() == Some(id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(key: &str, value: Value) -> KeyChange {
        KeyChange {
            key: key.to_owned(),
            value,
        }
    }

    #[test]
    fn keys_are_read_before_github_is_asked() {
        assert!(check(&[change("dashboard.title", json!("x"))]).is_ok());
        assert!(check(&[change("stacks[apps/web:prod].deploy", json!("onMerge"))]).is_ok());
        let refused = check(&[
            change("dashboard.colour", json!("red")),
            change("stacks[].deploy", json!(1)),
            change("tickers", json!([])),
            change("tickers", json!(["a"])),
        ])
        .unwrap_err();
        assert_eq!(refused.len(), 3, "{refused:?}");
        assert!(refused[2].contains("more than once"));
        assert!(check(&[]).is_err());
    }

    #[test]
    fn a_stack_is_found_by_its_id_or_its_path() {
        let text = "stacks:\n  - path: network\n  - path: apps\n    id: apps-prod\n  - path: db\n    name: dev\n";
        let (changed, said, problems) = apply(
            text,
            &[
                change("stacks[apps-prod].deploy", json!("onMerge")),
                change("stacks[network].tickers", json!(["alice"])),
                change("stacks[db:dev].deploy", json!("on-tick")),
                change("stacks[nowhere].deploy", json!("onMerge")),
            ],
        );
        assert_eq!(
            changed,
            "stacks:\n  - path: network\n    tickers:\n      - alice\n  - path: apps\n    id: apps-prod\n    deploy: onMerge\n  - path: db\n    name: dev\n    deploy: on-tick\n"
        );
        assert_eq!(said.len(), 3);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].starts_with("stacks[nowhere].deploy: "));
    }
}
