//! Kubernetes objects as the adapter reads them: YAML text to a JSON tree, and the
//! identity that names an object on a row.

use saphyr::Scalar;
use saphyr_parser::Event;
use serde_json::{Map, Number, Value};

use super::block_yaml;

/// Text that is not the YAML the step expects; it says nothing more, so nothing of the
/// text can travel with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("not the expected YAML")]
pub struct NotYaml;

/// Reads one side of a pair: `None` for an absent object (empty text, or the single line
/// `null` kubectl prints for a Secret that does not exist yet). `Err` when the text is
/// not exactly one mapping. kubectl's own block layout is read line by line, anything
/// else by the general parser.
pub fn read_side(text: &str) -> Result<Option<Value>, NotYaml> {
    match block_yaml::read(text) {
        Some(object) => Ok(Some(object)),
        None => read_side_generally(text),
    }
}

/// What [`read_side`] answers, by the general parser alone: for a side the block-layout
/// reader has already left.
pub(super) fn read_side_generally(text: &str) -> Result<Option<Value>, NotYaml> {
    let docs = documents(text)?;
    match docs.as_slice() {
        [] | [Value::Null] => Ok(None),
        [Value::Object(_)] => Ok(docs.into_iter().next()),
        _ => Err(NotYaml),
    }
}

/// Every document of a YAML stream, `List` items expanded; empty documents skipped.
pub fn read_stream(text: &str) -> Result<Vec<Value>, NotYaml> {
    let mut objects = Vec::new();
    for value in documents(text)?.into_iter().filter(|d| !d.is_null()) {
        let is_list = value
            .get("kind")
            .and_then(Value::as_str)
            .is_some_and(|k| k.ends_with("List"));
        match value {
            Value::Object(mut map) if is_list && map.get("items").is_some_and(Value::is_array) => {
                if let Some(Value::Array(items)) = map.remove("items") {
                    objects.extend(items);
                }
            }
            other => objects.push(other),
        }
    }
    Ok(objects)
}

/// A container being built while the parser's events arrive.
enum Frame {
    Sequence(Vec<Value>),
    Mapping(Map<String, Value>, Option<String>),
}

/// Parses a YAML stream with the general parser, straight from its events into JSON
/// values, with the YAML 1.2 core schema for plain scalars. Building the values
/// directly, without an intermediate YAML tree, keeps even this path quick.
pub fn documents(text: &str) -> Result<Vec<Value>, NotYaml> {
    let mut docs = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    for event in saphyr_parser::Parser::new_from_str(text) {
        let (event, _) = event.map_err(|_| NotYaml)?;
        let complete = match event {
            Event::Scalar(value, style, _, tag) => {
                let is_key = matches!(stack.last(), Some(Frame::Mapping(_, None)));
                if is_key {
                    if let Some(Frame::Mapping(_, key)) = stack.last_mut() {
                        *key = Some(value.into_owned());
                    }
                    continue;
                }
                resolved(
                    Scalar::parse_from_cow_and_metadata(value, style, tag.as_ref())
                        .ok_or(NotYaml)?,
                )
            }
            Event::SequenceStart(..) => {
                stack.push(Frame::Sequence(Vec::new()));
                continue;
            }
            Event::MappingStart(..) => {
                stack.push(Frame::Mapping(Map::new(), None));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Frame::Sequence(items)) => Value::Array(items),
                Some(Frame::Mapping(map, None)) => Value::Object(map),
                _ => return Err(NotYaml),
            },
            Event::Alias(_) => return Err(NotYaml),
            Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd
            | Event::Nothing => {
                continue;
            }
        };
        match stack.last_mut() {
            None => docs.push(complete),
            Some(Frame::Sequence(items)) => items.push(complete),
            Some(Frame::Mapping(map, key)) => {
                // A key that is itself a mapping or a list: not something a manifest has.
                let key = key.take().ok_or(NotYaml)?;
                map.insert(key, complete);
            }
        }
    }
    if stack.is_empty() {
        Ok(docs)
    } else {
        Err(NotYaml)
    }
}

/// A resolved scalar as a JSON value; a float JSON cannot hold (NaN, infinity) is null.
pub(super) fn resolved(value: Scalar<'_>) -> Value {
    match value {
        Scalar::Null => Value::Null,
        Scalar::Boolean(b) => Value::Bool(b),
        Scalar::Integer(n) => Value::Number(n.into()),
        Scalar::FloatingPoint(f) => {
            Number::from_f64(f.into_inner()).map_or(Value::Null, Value::Number)
        }
        Scalar::String(s) => Value::String(s.into_owned()),
    }
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
