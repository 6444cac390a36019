//! Kubernetes objects as the adapter reads them: YAML text to a JSON tree, and the
//! identity that names an object on a row.

use saphyr::{LoadableYamlNode, Scalar, Yaml};
use serde_json::{Map, Number, Value};

/// Text that is not the YAML the step expects; it says nothing more, so nothing of the
/// text can travel with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not the expected YAML")]
pub struct NotYaml;

/// Reads one side of a pair: `None` for an absent object (empty text, or the single line
/// `null` kubectl prints for a Secret that does not exist yet). `Err` when the text is
/// not exactly one mapping.
pub fn read_side(text: &str) -> Result<Option<Value>, NotYaml> {
    let docs = Yaml::load_from_str(text).map_err(|_| NotYaml)?;
    match docs.as_slice() {
        [] => Ok(None),
        [single] if single.is_null() => Ok(None),
        [single @ Yaml::Mapping(_)] => Ok(Some(to_json(single)?)),
        _ => Err(NotYaml),
    }
}

/// Every document of a YAML stream, `List` items expanded; empty documents skipped.
pub fn read_stream(text: &str) -> Result<Vec<Value>, NotYaml> {
    let docs = Yaml::load_from_str(text).map_err(|_| NotYaml)?;
    let mut objects = Vec::new();
    for doc in docs.iter().filter(|d| !d.is_null()) {
        let value = to_json(doc)?;
        match value.get("items").and_then(Value::as_array) {
            Some(items)
                if value
                    .get("kind")
                    .and_then(Value::as_str)
                    .is_some_and(|k| k.ends_with("List")) =>
            {
                objects.extend(items.iter().cloned())
            }
            _ => objects.push(value),
        }
    }
    Ok(objects)
}

fn to_json(node: &Yaml) -> Result<Value, NotYaml> {
    Ok(match node {
        Yaml::Value(Scalar::Null) => Value::Null,
        Yaml::Value(Scalar::Boolean(b)) => Value::Bool(*b),
        Yaml::Value(Scalar::Integer(n)) => Value::Number((*n).into()),
        Yaml::Value(Scalar::FloatingPoint(f)) => {
            Number::from_f64(f.into_inner()).map_or(Value::Null, Value::Number)
        }
        Yaml::Value(Scalar::String(s)) => Value::String(s.to_string()),
        Yaml::Sequence(items) => Value::Array(items.iter().map(to_json).collect::<Result<_, _>>()?),
        Yaml::Mapping(entries) => {
            let mut map = Map::new();
            for (key, value) in entries {
                let key = match key {
                    Yaml::Value(Scalar::String(s)) => s.to_string(),
                    Yaml::Value(Scalar::Integer(n)) => n.to_string(),
                    Yaml::Value(Scalar::Boolean(b)) => b.to_string(),
                    _ => return Err(NotYaml),
                };
                map.insert(key, to_json(value)?);
            }
            Value::Object(map)
        }
        Yaml::Tagged(_, inner) => to_json(inner)?,
        Yaml::Representation(text, ..) => Value::String(text.to_string()),
        Yaml::Alias(_) | Yaml::BadValue => return Err(NotYaml),
    })
}

/// Who an object is: its API group, kind, namespace (as given) and name. The API
/// version is left out, so a version bump is the same object.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Identity {
    pub group: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl Identity {
    pub fn of(object: &Value) -> Option<Identity> {
        let api_version = object.get("apiVersion")?.as_str()?;
        let kind = object.get("kind")?.as_str()?.to_owned();
        let metadata = object.get("metadata")?;
        let name = metadata.get("name")?.as_str()?.to_owned();
        let namespace = metadata
            .get("namespace")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let group = api_version
            .rsplit_once('/')
            .map_or(String::new(), |(g, _)| g.to_owned());
        Some(Identity {
            group,
            kind,
            namespace,
            name,
        })
    }

    /// `Deployment.apps/shop/web`, `ConfigMap/shop/settings`, `ClusterRole.rbac.authorization.k8s.io/reader`.
    pub fn address(&self) -> String {
        let kind = if self.group.is_empty() {
            self.kind.clone()
        } else {
            format!("{}.{}", self.kind, self.group)
        };
        format!("{kind}/{}", self.display_name())
    }

    /// `namespace/name`, or `name` for a cluster-scoped object.
    pub fn display_name(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{ns}/{}", self.name),
            None => self.name.clone(),
        }
    }

    pub fn is_core(&self, kind: &str) -> bool {
        self.group.is_empty() && self.kind == kind
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn sides_are_one_mapping_or_absent() {
        assert_eq!(read_side("").unwrap(), None);
        assert_eq!(read_side("null\n").unwrap(), None);
        assert_eq!(read_side("a: 1\n").unwrap(), Some(json!({"a": 1})));
        assert!(read_side("- a\n").is_err());
        assert!(read_side("a: 1\n---\nb: 2\n").is_err());
        assert!(read_side("a: [\n").is_err());
    }

    #[test]
    fn addresses_leave_the_version_out() {
        let web = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "shop"}});
        assert_eq!(
            Identity::of(&web).unwrap().address(),
            "Deployment.apps/shop/web"
        );
        let role = json!({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "reader"}});
        assert_eq!(
            Identity::of(&role).unwrap().address(),
            "ClusterRole.rbac.authorization.k8s.io/reader"
        );
        let cm = json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "s", "namespace": "shop"}});
        assert_eq!(Identity::of(&cm).unwrap().address(), "ConfigMap/shop/s");
    }
}
