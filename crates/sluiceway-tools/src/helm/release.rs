//! What Helm says about a release: whether it is installed and in which state
//! (`helm list --output=json`), and how Helm 4 applies it (`helm get metadata
//! --output=json`). Only these fields are read; the state decides, never Helm's words.

use serde::Deserialize;

/// A release's state, as `helm list` names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Not installed: every object of a render is a create.
    NotInstalled,
    Deployed,
    /// An install, upgrade, rollback or removal is under way (`pending-*`,
    /// `uninstalling`): another run holds it.
    Pending,
    /// The last operation failed and nothing rolled it back (`failed`), or a state Helm
    /// itself calls unknown.
    Broken,
}

#[derive(Debug, Deserialize)]
struct Listed {
    name: String,
    status: String,
}

/// Reads `helm list --output=json` for the release `name`. `None` when the output is
/// not the list Helm prints.
pub fn state(stdout: &str, name: &str) -> Option<State> {
    let listed: Vec<Listed> = serde_json::from_str(stdout).ok()?;
    Some(match listed.iter().find(|l| l.name == name) {
        None => State::NotInstalled,
        Some(l) if l.status == "deployed" => State::Deployed,
        Some(l) if l.status.starts_with("pending-") || l.status == "uninstalling" => State::Pending,
        Some(_) => State::Broken,
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Metadata {
    #[serde(default)]
    apply_method: Option<String>,
}

/// Whether Helm 4 applies the release server-side (`applyMethod: ssa`): a deploy that
/// repairs drift must then take the drifted fields back with `--force-conflicts`.
/// `None` when the output is not the metadata Helm prints.
pub fn applied_server_side(stdout: &str) -> Option<bool> {
    let metadata: Metadata = serde_json::from_str(stdout).ok()?;
    Some(metadata.apply_method.as_deref() == Some("ssa"))
}

/// The states `helm list` is asked for: every one a release can be in while it is
/// installed. Helm 3 lists only deployed and failed releases unless asked, and Helm 4
/// has no `--all`; these flags mean the same to both.
pub const STATES: [&str; 4] = ["--deployed", "--failed", "--pending", "--uninstalling"];

/// The `--filter` that lists only `name`: Helm reads it as a regular expression.
pub fn filter(name: &str) -> String {
    format!("--filter=^{}$", name.replace('.', "\\."))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_come_from_the_status_field() {
        let list = r#"[{"name":"shop","namespace":"s","revision":"3","status":"deployed"},{"name":"shopx","status":"failed"}]"#;
        assert_eq!(state(list, "shop"), Some(State::Deployed));
        assert_eq!(state(list, "shopx"), Some(State::Broken));
        assert_eq!(state(list, "queue"), Some(State::NotInstalled));
        assert_eq!(
            state(r#"[{"name":"shop","status":"pending-upgrade"}]"#, "shop"),
            Some(State::Pending)
        );
        assert_eq!(state("Error", "shop"), None);
        assert_eq!(
            applied_server_side(r#"{"name":"shop","applyMethod":"ssa"}"#),
            Some(true)
        );
        assert_eq!(applied_server_side(r#"{"name":"shop"}"#), Some(false));
        assert_eq!(applied_server_side("{"), None);
        assert_eq!(filter("shop.v2"), "--filter=^shop\\.v2$");
    }
}
