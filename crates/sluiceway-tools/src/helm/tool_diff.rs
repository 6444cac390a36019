//! The tool diff without the plugin: the comparison as text, for the job log only.
//!
//! Each object that differs gets a unified diff of its two sides as indented JSON, under
//! headers naming it, in address order; objects equal on both sides are left out. A
//! Secret's `data` and `stringData` values are replaced by a mark before anything is
//! written, so not even the job log holds them: `***` where both sides agree,
//! `*** (before)` and `*** (after)` where they differ.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::compare::{CompareError, Side, objects_of};
use crate::kubernetes::objects::Identity;
use crate::tool_log::ToolDiffText;

/// The job-log text of the comparison from `deployed` to `rendered`.
pub fn text(deployed: &str, rendered: &str, namespace: &str) -> Result<ToolDiffText, CompareError> {
    let mut old = objects_of(deployed, namespace, Side::Deployed)?;
    let mut new = objects_of(rendered, namespace, Side::Rendered)?;
    for (address, (identity, object)) in &mut new {
        if identity.is_core("Secret") {
            let before = old.get_mut(address).map(|(_, o)| o);
            mask_secret(before, object);
        }
    }
    for (identity, object) in old.values_mut() {
        if identity.is_core("Secret") && !new.contains_key(&identity.address()) {
            mask_secret(None, object);
        }
    }
    let written = |side: &BTreeMap<String, (Identity, Value)>, address: &str| {
        side.get(address)
            .map(|(_, object)| {
                format!(
                    "{}\n",
                    serde_json::to_string_pretty(object).unwrap_or_default()
                )
            })
            .unwrap_or_default()
    };
    let addresses: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let mut diff = String::new();
    for address in addresses {
        let (before, after) = (written(&old, address), written(&new, address));
        if before != after {
            diff.push_str(
                &similar::TextDiff::from_lines(&before, &after)
                    .unified_diff()
                    .context_radius(3)
                    .header(
                        &format!("deployed {address}"),
                        &format!("rendered {address}"),
                    )
                    .to_string(),
            );
        }
    }
    Ok(ToolDiffText::new(diff))
}

fn mask_secret(before: Option<&mut Value>, after: &mut Value) {
    let fields = ["data", "stringData"];
    let old: BTreeMap<(usize, String), Value> = before
        .as_deref()
        .map(|b| {
            fields
                .iter()
                .enumerate()
                .filter_map(|(i, f)| b.get(*f)?.as_object().map(|m| (i, m)))
                .flat_map(|(i, m)| m.iter().map(move |(k, v)| ((i, k.clone()), v.clone())))
                .collect()
        })
        .unwrap_or_default();
    let mut new = BTreeMap::new();
    for (i, field) in fields.iter().enumerate() {
        if let Some(Value::Object(map)) = after.get_mut(*field) {
            for (key, value) in map.iter_mut() {
                let same = old.get(&(i, key.clone())) == Some(value);
                new.insert((i, key.clone()), same);
                *value = Value::String(if same { "***" } else { "*** (after)" }.to_owned());
            }
        }
    }
    if let Some(before) = before {
        for (i, field) in fields.iter().enumerate() {
            if let Some(Value::Object(map)) = before.get_mut(*field) {
                for (key, value) in map.iter_mut() {
                    let same = new.get(&(i, key.clone())).copied().unwrap_or(false);
                    *value = Value::String(if same { "***" } else { "*** (before)" }.to_owned());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_show_but_a_secrets_never_do() {
        let deployed = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  motd: CANARY-VALUE one\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  key: CANARY-SECRET\n  same: CANARY-SECRET-2\n";
        let rendered = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  motd: CANARY-VALUE two\n---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: s\nstringData:\n  key: CANARY-SECRET-NEW\n  same: CANARY-SECRET-2\n";
        let text = text(deployed, rendered, "shop").unwrap();
        let text = text.job_log_text();
        assert!(
            text.contains("-    \"motd\": \"CANARY-VALUE one\""),
            "{text}"
        );
        assert!(
            text.contains("+    \"motd\": \"CANARY-VALUE two\""),
            "{text}"
        );
        assert!(!text.contains("CANARY-SECRET"), "{text}");
        assert!(text.contains("-    \"key\": \"*** (before)\""), "{text}");
        assert!(text.contains("+    \"key\": \"*** (after)\""), "{text}");
        assert!(text.contains("     \"same\": \"***\""), "{text}");
        let new_secret = text_of("", rendered);
        assert!(!new_secret.contains("CANARY-SECRET"), "{new_secret}");
        let gone_secret = text_of(deployed, "");
        assert!(!gone_secret.contains("CANARY-SECRET"), "{gone_secret}");
    }

    fn text_of(deployed: &str, rendered: &str) -> String {
        text(deployed, rendered, "shop")
            .unwrap()
            .job_log_text()
            .to_owned()
    }
}
