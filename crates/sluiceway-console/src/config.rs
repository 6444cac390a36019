//! A repository's `sluiceway.yaml`, read from GitHub for the settings editor: the file's
//! text, whether the action loads it, and the value it gives each key a change may name.
//! Read at the scanned commit, so what it shows is what the dashboard was drawn with.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};
use sluiceway_core::config::{self, Document};
use sluiceway_github::{GitHub, GitHubError};

/// The branch a settings change's pull request comes from (the reference's edit mode).
pub const BRANCH: &str = "sluiceway/dashboard";

/// The keys a change may name at the top of the file, as JSON pointers by their dotted
/// names; each stack entry's `deploy` and `tickers` are named `stacks[<stack id>].<key>`.
pub const KEYS: &[&str] = &[
    "dashboard.title",
    "dashboard.personality",
    "dashboard.redact",
    "dashboard.readOnly",
    "dashboard.sections",
    "dashboard.showValues",
    "dashboard.recentlyDeployed",
    "dashboard.timeZone",
    "drift.enabled",
    "tickers",
    "recordWriters",
    "ignore",
];

/// What the config operation answers.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConfigAnswer {
    pub repo: String,
    /// `sluiceway.yaml` or `sluiceway.yml`; `None` when the repository has neither.
    pub file: Option<String>,
    /// The commit it was read at.
    pub sha: Option<String>,
    pub url: Option<String>,
    pub text: Option<String>,
    /// Why the action would not load it, with its line; `None` when it loads.
    pub problem: Option<String>,
    /// Every key a change may name, with the value the file gives it (`null` when it
    /// gives none, so the action's default holds).
    pub keys: Map<String, Value>,
    pub pull_request: PullRequestLine,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct PullRequestLine {
    pub title: String,
    pub branch: String,
    pub base: Option<String>,
}

/// Reads the file at `sha`; `base` is the branch a pull request would go to.
pub fn read(
    github: &dyn GitHub,
    repo: &str,
    html_url: &str,
    sha: &str,
    base: Option<String>,
) -> Result<ConfigAnswer, GitHubError> {
    let mut found = Vec::new();
    for name in config::FILE_NAMES {
        if let Some(text) = github.file_at(name, sha)? {
            found.push((name, text));
        }
    }
    let pull_request = PullRequestLine {
        title: "Change the Sluiceway dashboard's settings".to_owned(),
        branch: BRANCH.to_owned(),
        base,
    };
    let mut answer = ConfigAnswer {
        repo: repo.to_owned(),
        file: None,
        sha: Some(sha.to_owned()),
        url: None,
        text: None,
        problem: None,
        keys: keys_of(None),
        pull_request,
    };
    match found.as_slice() {
        [] => {}
        [(name, text)] => {
            answer.file = Some((*name).to_owned());
            answer.url = Some(format!("{html_url}/blob/{sha}/{name}"));
            answer.problem = config::load(name, text)
                .err()
                .and_then(|problems| problems.first().map(ToString::to_string));
            answer.keys = keys_of(Document::parse(text).ok().as_ref());
            answer.text = Some(text.clone());
        }
        _ => {
            answer.problem = Some(
                "The repository has both sluiceway.yaml and sluiceway.yml; the action reads neither."
                    .to_owned(),
            );
        }
    }
    Ok(answer)
}

/// Why the action would read no settings at a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unloaded {
    NoFile,
    TwoFiles,
    /// The file, named, does not load.
    Invalid(&'static str),
}

/// The settings at `sha` as the action loads them.
pub fn load_at(
    github: &dyn GitHub,
    sha: &str,
) -> Result<Result<config::Config, Unloaded>, GitHubError> {
    let mut found = Vec::new();
    for name in config::FILE_NAMES {
        if let Some(text) = github.file_at(name, sha)? {
            found.push((name, text));
        }
    }
    Ok(match found.as_slice() {
        [] => Err(Unloaded::NoFile),
        [(name, text)] => config::load(name, text).map_err(|_| Unloaded::Invalid(name)),
        _ => Err(Unloaded::TwoFiles),
    })
}

/// Whether `recordWriters` at `sha` names `bot`: a file that does not load names nobody.
pub fn names_record_writer(github: &dyn GitHub, sha: &str, bot: &str) -> Result<bool, GitHubError> {
    Ok(load_at(github, sha)?.is_ok_and(|config| {
        config
            .settings
            .record_writers
            .iter()
            .any(|w| w.eq_ignore_ascii_case(bot))
    }))
}

/// Each key a change may name, with the value `document` gives it.
fn keys_of(document: Option<&Document>) -> Map<String, Value> {
    let mut keys = Map::new();
    for key in KEYS {
        let pointer = format!("/{}", key.replace('.', "/"));
        let value = document
            .and_then(|d| d.value.pointer(&pointer))
            .cloned()
            .unwrap_or(Value::Null);
        keys.insert((*key).to_owned(), value);
    }
    let entries = document
        .and_then(|d| d.value.get("stacks"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for entry in entries {
        let Some(id) = entry_name(entry) else {
            continue;
        };
        for key in ["deploy", "tickers"] {
            keys.insert(
                format!("stacks[{id}].{key}"),
                entry.get(key).cloned().unwrap_or(Value::Null),
            );
        }
    }
    keys
}

/// How a change names an entry of `stacks`: the stack id it gives (its `id`, else its
/// path and name, as discovery derives it).
pub(crate) fn entry_name(entry: &Value) -> Option<String> {
    if let Some(id) = entry.get("id").and_then(Value::as_str) {
        return Some(id.to_owned());
    }
    let path = entry.get("path").and_then(Value::as_str)?;
    let name = entry.get("name").and_then(Value::as_str);
    Some(
        sluiceway_core::stack::StackId::derive(path, name)
            .as_str()
            .to_owned(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_a_change_may_name_is_listed_with_the_files_value_or_null() {
        let document = Document::parse(
            "dashboard:\n  title: Deploys # ours\nrecordWriters: [\"bot[bot]\"]\nstacks:\n  - path: network\n    deploy: onMerge\n",
        )
        .unwrap();
        let keys = keys_of(Some(&document));
        assert_eq!(keys["dashboard.title"], "Deploys");
        assert_eq!(keys["recordWriters"], serde_json::json!(["bot[bot]"]));
        assert_eq!(keys["drift.enabled"], Value::Null);
        assert_eq!(keys["stacks[network].deploy"], "onMerge");
        assert_eq!(keys["stacks[network].tickers"], Value::Null);
        assert_eq!(keys.len(), KEYS.len() + 2);
    }
}
