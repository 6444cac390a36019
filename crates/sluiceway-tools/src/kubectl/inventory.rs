//! The inventory: a ConfigMap a pruning stack keeps of the objects it applied, so an
//! object taken out of the manifests can be found and deleted. It lists names, never
//! values.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use sluiceway_core::stack::StackId;

use super::objects::Identity;

/// `sluiceway-` and the first 16 hex digits of SHA-256 over `<repository>\n<stack id>`
/// (the repository is empty outside GitHub Actions).
pub fn name(repository: &str, stack: &StackId) -> String {
    let digest = Sha256::digest(format!("{repository}\n{stack}").as_bytes());
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("sluiceway-{hex}")
}

/// One listed object: how the manifest named it (namespace only when it wrote one).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Listing {
    pub api_version: String,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
}

impl Listing {
    pub fn of(object: &Value) -> Option<Listing> {
        let metadata = object.get("metadata")?;
        Some(Listing {
            api_version: object.get("apiVersion")?.as_str()?.to_owned(),
            kind: object.get("kind")?.as_str()?.to_owned(),
            namespace: metadata
                .get("namespace")
                .and_then(Value::as_str)
                .map(str::to_owned),
            name: metadata.get("name")?.as_str()?.to_owned(),
        })
    }

    fn group(&self) -> &str {
        self.api_version.rsplit_once('/').map_or("", |(g, _)| g)
    }

    /// The same object, whatever its API version.
    pub fn same_object(&self, other: &Listing) -> bool {
        self.group() == other.group()
            && self.kind == other.kind
            && self.namespace == other.namespace
            && self.name == other.name
    }

    /// Whether a live object is this listed one; the namespace counts only when listed.
    pub fn names(&self, live: &Identity) -> bool {
        self.group() == live.group
            && self.kind == live.kind
            && self.name == live.name
            && (self.namespace.is_none() || self.namespace == live.namespace)
    }

    /// A stub that names the object for `kubectl get -f` and `kubectl delete -f`.
    pub fn stub(&self) -> Value {
        let mut metadata = json!({ "name": self.name });
        if let Some(ns) = &self.namespace {
            metadata["namespace"] = json!(ns);
        }
        json!({ "apiVersion": self.api_version, "kind": self.kind, "metadata": metadata })
    }
}

/// The inventory ConfigMap, as one JSON document (JSON is YAML) to append to the set.
pub fn manifest(name: &str, stack: &StackId, listings: &[Listing]) -> String {
    let mut lines: Vec<String> = listings
        .iter()
        .map(|l| serde_json::to_string(l).unwrap_or_default())
        .collect();
    lines.sort();
    lines.dedup();
    let objects: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let configmap = json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": name,
            "labels": { "app.kubernetes.io/managed-by": "sluiceway" },
            "annotations": { "sluiceway.dev/stack": stack.as_str() }
        },
        "data": { "objects": objects }
    });
    format!(
        "{}\n",
        serde_json::to_string_pretty(&configmap).unwrap_or_default()
    )
}

/// Reads `kubectl get configmap … --output=json`: nothing printed means no inventory yet.
/// `Err(line)` names the line of `data.objects` that is not a listing.
pub fn read(stdout: &str) -> Result<Vec<Listing>, usize> {
    if stdout.trim().is_empty() {
        return Ok(Vec::new());
    }
    let value: Value = serde_json::from_str(stdout).map_err(|_| 0usize)?;
    let objects = value
        .pointer("/data/objects")
        .and_then(Value::as_str)
        .unwrap_or("");
    objects
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| serde_json::from_str::<Listing>(line).map_err(|_| i + 1))
        .collect()
}

/// Stubs for several objects, as a YAML stream.
pub fn stubs(listings: &[Listing]) -> String {
    listings
        .iter()
        .map(|l| format!("{}\n", serde_json::to_string(&l.stub()).unwrap_or_default()))
        .collect::<Vec<_>>()
        .join("---\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The corpus' inventory was recorded outside a repository for the stack `web`.
    #[test]
    fn the_name_is_pinned() {
        assert_eq!(
            name("", &StackId::derive("web", None)),
            "sluiceway-fe2582ff40821a0e"
        );
        assert_eq!(
            name("acme/infra", &StackId::derive("web", None)).len(),
            "sluiceway-".len() + 16
        );
    }

    #[test]
    fn listings_round_trip_sorted_without_values() {
        let listings = vec![
            Listing {
                api_version: "v1".into(),
                kind: "Service".into(),
                namespace: None,
                name: "web".into(),
            },
            Listing {
                api_version: "apps/v1".into(),
                kind: "Deployment".into(),
                namespace: Some("shop".into()),
                name: "web".into(),
            },
        ];
        let text = manifest("sluiceway-x", &StackId::derive("web", None), &listings);
        let value: Value = serde_json::from_str(&text).unwrap();
        let objects = value.pointer("/data/objects").unwrap().as_str().unwrap();
        assert_eq!(
            objects,
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"namespace\":\"shop\",\"name\":\"web\"}\n{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"name\":\"web\"}\n"
        );
        let mut read_back = read(&text).unwrap();
        read_back.sort();
        let mut expected = listings;
        expected.sort();
        assert_eq!(read_back, expected);
        assert_eq!(
            read("{\"data\": {\"objects\": \"{}\\nnot json\\n\"}}"),
            Err(1)
        );
    }
}
