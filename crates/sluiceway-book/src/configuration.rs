//! The `sluiceway.yaml` reference, drawn from the JSON Schema the loader validates
//! against: every key with its type, default, effect and an example, and the keys this
//! version does not act on yet marked so. The schema is generated from the config types,
//! so a key added to the code lands here, and one without its words fails the drawing.

use serde_json::{Map, Value, json};
use sluiceway_core::config::unacted::NOT_ACTED_ON;

use crate::BookError;
use crate::yaml::block;

/// A key of the file, in the schema's notation (`stacks[].options.chart`).
#[derive(Debug, Clone)]
pub struct Key {
    pub path: String,
    /// The key's own schema node, its `$ref`s resolved.
    node: Value,
    /// The property as the parent declares it (its description and default live here
    /// when the node is a `$ref`).
    declared: Value,
    /// The snippet that sets the key: the key's example, nested under its parents, with
    /// the fields an array item requires.
    pub example: Value,
}

impl Key {
    /// The anchor the reference page gives the key.
    pub fn anchor(&self) -> String {
        anchor(&self.path)
    }

    fn lookup(&self, field: &str) -> Option<&Value> {
        self.declared.get(field).or_else(|| self.node.get(field))
    }

    /// Whether the key may be left out to mean "not set" (`T | null`).
    fn nullable(&self) -> bool {
        let null = json!({"type": "null"});
        let in_any_of = self
            .declared
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| branches.contains(&null));
        let in_types = self
            .declared
            .get("type")
            .and_then(Value::as_array)
            .is_some_and(|types| types.contains(&json!("null")));
        in_any_of || in_types
    }

    /// The key as its parent declares it, a `$ref` followed: its type in words is drawn
    /// from this, so `text, or a map` stays both.
    fn declared_kind(&self, root: &Value) -> String {
        kind(root, &resolve_ref(root, &self.declared))
    }

    fn is_container(&self) -> bool {
        !children(&self.node).is_empty()
    }

    /// The capability the key waits for, when this version does not act on it yet.
    pub fn waits_for(&self) -> Option<&'static str> {
        NOT_ACTED_ON.iter().find_map(|(pattern, capability)| {
            (self.path == *pattern || self.path.starts_with(&format!("{pattern}.")))
                .then_some(*capability)
        })
    }
}

/// The anchor of a key path: lower case, `[]` dropped, dots as dashes.
pub fn anchor(path: &str) -> String {
    path.replace("[]", "")
        .replace('.', "-")
        .to_ascii_lowercase()
}

/// Every key of the schema, parents before children, in the schema's order.
pub fn keys(schema: &Value) -> Result<Vec<Key>, BookError> {
    let mut found = Vec::new();
    walk(schema, schema, "", &mut Vec::new(), &mut found)?;
    Ok(found)
}

/// The key paths of the schema, for the pages' check.
pub fn key_paths(schema: &Value) -> Result<Vec<String>, BookError> {
    Ok(keys(schema)?.into_iter().map(|k| k.path).collect())
}

/// What the walk knows about the array items above a key: the item's required fields'
/// examples, which a snippet needs to be a valid item.
#[derive(Clone)]
struct Frame {
    /// The key path of the array (`stacks`).
    array: String,
    required: Map<String, Value>,
}

fn walk(
    root: &Value,
    node: &Value,
    prefix: &str,
    frames: &mut Vec<Frame>,
    found: &mut Vec<Key>,
) -> Result<(), BookError> {
    for (name, declared) in children(&resolve(root, node)) {
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        let own = resolve(root, &declared);
        let value = example_of(root, &declared, &own).ok_or_else(|| BookError::Undocumented {
            key: path.clone(),
            missing: "example (`#[schemars(example = …)]`, a default or an enum)",
        })?;
        if declared
            .get("description")
            .or(own.get("description"))
            .is_none()
        {
            return Err(BookError::Undocumented {
                key: path.clone(),
                missing: "description (the field's doc comment)",
            });
        }
        let mut example = nest(&path, value, frames);
        with_companions(&mut example, &path, &declared, &own);
        found.push(Key {
            example,
            path: path.clone(),
            node: own.clone(),
            declared: declared.clone(),
        });
        if let Some(items) = array_items(root, &own) {
            let required = required_examples(root, &items);
            frames.push(Frame {
                array: path.clone(),
                required,
            });
            walk(root, &items, &format!("{path}[]"), frames, found)?;
            frames.pop();
        } else {
            walk(root, &own, &path, frames, found)?;
        }
    }
    Ok(())
}

/// The properties of an object node, or of the object among an `anyOf`'s branches.
fn children(node: &Value) -> Vec<(String, Value)> {
    if let Some(properties) = node.get("properties").and_then(Value::as_object) {
        return properties
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
    }
    Vec::new()
}

/// A node with its `$ref` followed and, for `T | null` written as `anyOf`, the `T`.
fn resolve(root: &Value, node: &Value) -> Value {
    if let Some(target) = node.get("$ref").and_then(Value::as_str) {
        let name = target.rsplit('/').next().unwrap_or_default();
        return resolve(root, &root["$defs"][name]);
    }
    if let Some(branches) = node.get("anyOf").and_then(Value::as_array) {
        let solid: Vec<&Value> = branches
            .iter()
            .filter(|b| b.get("type") != Some(&json!("null")))
            .collect();
        if let [only] = solid.as_slice() {
            return resolve(root, only);
        }
        if let Some(object) = solid
            .iter()
            .map(|b| resolve(root, b))
            .find(|b| b.get("properties").is_some())
        {
            return object;
        }
    }
    node.clone()
}

/// The item schema of an array of objects.
fn array_items(root: &Value, node: &Value) -> Option<Value> {
    let items = resolve(root, node.get("items")?);
    items.get("properties").is_some().then_some(items)
}

fn required_examples(root: &Value, items: &Value) -> Map<String, Value> {
    let mut required = Map::new();
    for name in items
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        let declared = &items["properties"][name];
        if let Some(value) = example_of(root, declared, &resolve(root, declared)) {
            required.insert(name.to_owned(), value);
        }
    }
    required
}

/// A key's example: the schema's own, else a default that says something (not null, not
/// empty), else the first choice of an enum, else one built from its children.
fn example_of(root: &Value, declared: &Value, own: &Value) -> Option<Value> {
    let first = |field: &str| {
        declared
            .get(field)
            .or(own.get(field))
            .and_then(Value::as_array)
            .and_then(|list| list.iter().find(|v| !v.is_null()).cloned())
    };
    if let Some(example) = first("examples") {
        return Some(example);
    }
    let default = declared.get("default").or(own.get("default"));
    if let Some(default) = default.filter(|d| telling(d)) {
        return Some(default.clone());
    }
    if let Some(choice) = first("enum") {
        return Some(choice);
    }
    if let Some(items) = array_items(root, own) {
        let mut item = required_examples(root, &items);
        if item.is_empty() {
            return None;
        }
        item.retain(|_, v| !v.is_null());
        return Some(Value::Array(vec![Value::Object(item)]));
    }
    let fields = children(own);
    if fields.is_empty() {
        return None;
    }
    let (name, first_child) = fields.iter().find_map(|(name, child)| {
        example_of(root, child, &resolve(root, child)).map(|v| (name.clone(), v))
    })?;
    Some(json!({ name: first_child }))
}

fn telling(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Array(list) => !list.is_empty(),
        Value::Object(map) => !map.is_empty(),
        _ => true,
    }
}

/// The snippet that sets `path` to `value`: nested maps, and each array above it as a
/// one-item list holding its required fields.
fn nest(path: &str, value: Value, frames: &[Frame]) -> Value {
    let mut inner = value;
    let mut rest = path.to_owned();
    for frame in frames.iter().rev() {
        let within = rest
            .strip_prefix(&format!("{}[].", frame.array))
            .unwrap_or(&rest)
            .to_owned();
        let mut item = frame.required.clone();
        insert_path(&mut item, &within, inner);
        inner = Value::Array(vec![Value::Object(item)]);
        rest = frame.array.clone();
    }
    let mut top = Map::new();
    insert_path(&mut top, &rest, inner);
    Value::Object(top)
}

/// Adds what an example needs beside its key for the rules the loader reads beyond the
/// schema, so each example is a file the loader accepts: a threshold comes with
/// estimates turned on, a phase with the `phases` that name it, a tool's option with its
/// tool (named where the option's doc comment begins, `helm: …`), and a Helm option with
/// the release it belongs to.
fn with_companions(example: &mut Value, path: &str, declared: &Value, own: &Value) {
    let phase = example
        .pointer("/stacks/0/phase")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if let (Some(phase), Value::Object(top)) = (phase, &mut *example) {
        top.insert(
            "phases".to_owned(),
            Value::Array(vec![Value::String(phase)]),
        );
    }
    let (scope, key) = match path.strip_prefix("stacks[].") {
        Some(key) => (example.pointer_mut("/stacks/0"), key),
        None => (Some(&mut *example), path),
    };
    let Some(Value::Object(scope)) = scope else {
        return;
    };
    if key == "cost.threshold" {
        insert_path(scope, "cost.enabled", Value::Bool(true));
    }
    // The option set, or for the options themselves the first option their example sets.
    let option = match key.strip_prefix("options.") {
        Some(option) => option.to_owned(),
        None if key == "options" => match scope.get("options") {
            Some(Value::Object(options)) => options.keys().next().cloned().unwrap_or_default(),
            _ => return,
        },
        None => return,
    };
    let described = |node: &Value| {
        node.get("description")
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let description = if key == "options" {
        own.pointer(&format!("/properties/{option}"))
            .and_then(described)
    } else {
        described(declared).or_else(|| described(own))
    }
    .unwrap_or_default();
    let tool = if description.starts_with("helm") {
        "helm"
    } else if description.starts_with("kubectl") {
        "kubectl"
    } else {
        "opentofu"
    };
    scope.insert("tool".to_owned(), Value::String(tool.to_owned()));
    if tool == "helm" {
        // A chart version pins a chart reference; a local chart's is in its Chart.yaml.
        let chart = if option == "version" {
            "example/web"
        } else {
            "./charts/web"
        };
        for (name, value) in [("release", "web"), ("namespace", "web"), ("chart", chart)] {
            if scope.get("options").is_none_or(|o| o.get(name).is_none()) {
                insert_path(
                    scope,
                    &format!("options.{name}"),
                    Value::String(value.to_owned()),
                );
            }
        }
    }
}

fn insert_path(map: &mut Map<String, Value>, dotted: &str, value: Value) {
    match dotted.split_once('.') {
        None => {
            map.insert(dotted.to_owned(), value);
        }
        Some((head, tail)) => {
            let child = map
                .entry(head.to_owned())
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(child) = child {
                insert_path(child, tail, value);
            }
        }
    }
}

/// The key's type, in words.
fn kind(root: &Value, node: &Value) -> String {
    if let Some(choices) = node.get("enum").and_then(Value::as_array) {
        let named: Vec<String> = choices
            .iter()
            .filter(|c| !c.is_null())
            .map(|c| format!("`{}`", c.as_str().unwrap_or_default()))
            .collect();
        return format!("one of {}", named.join(", "));
    }
    if let Some(branches) = node.get("anyOf").and_then(Value::as_array) {
        let named: Vec<String> = branches
            .iter()
            .filter(|b| b.get("type") != Some(&json!("null")))
            .map(|b| kind(root, &resolve_ref(root, b)))
            .collect();
        return named.join(", or ");
    }
    let types: Vec<&str> = match node.get("type") {
        Some(Value::String(one)) => vec![one.as_str()],
        Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let main = types.into_iter().find(|t| *t != "null").unwrap_or("any");
    match main {
        "boolean" => "`true` or `false`".to_owned(),
        "integer" => match (
            node.get("minimum").and_then(Value::as_u64),
            node.get("maximum").and_then(Value::as_u64),
        ) {
            (Some(min), Some(max)) => format!("a whole number from {min} to {max}"),
            (Some(min), None) => format!("a whole number, at least {min}"),
            _ => "a whole number".to_owned(),
        },
        "number" => "a number".to_owned(),
        "string" => "text".to_owned(),
        "array" => match node.get("items") {
            Some(items) => {
                let items = resolve_ref(root, items);
                if items.get("properties").is_some() {
                    "a list of entries".to_owned()
                } else {
                    format!("a list, each {}", kind(root, &items))
                }
            }
            None => "a list".to_owned(),
        },
        "object" => "a map".to_owned(),
        other => other.to_owned(),
    }
}

fn resolve_ref(root: &Value, node: &Value) -> Value {
    match node.get("$ref").and_then(Value::as_str) {
        Some(target) => {
            let name = target.rsplit('/').next().unwrap_or_default();
            resolve_ref(root, &root["$defs"][name])
        }
        None => node.clone(),
    }
}

/// The reference page.
pub fn page(schema: &Value) -> Result<String, BookError> {
    let keys = keys(schema)?;
    let mut out = String::from(
        "# Configuration reference\n\n\
         <!-- Drawn by `cargo run -p sluiceway-book -- generate` from the schema `sluiceway schema` prints; do not edit. -->\n\n\
         Every key `sluiceway.yaml` accepts, drawn from the JSON Schema the loader validates \
         the file against (`sluiceway schema` prints it; \
         `# yaml-language-server: $schema=sluiceway.schema.json` on the file's first line lets an \
         editor complete and check it). Every key is optional: a repository without the file gets \
         every default. A key marked **not acted on yet** is accepted, and `sluiceway check` and \
         every run warn wherever a file sets it, because this version changes nothing for it.\n\n\
         | Key | Type | Default |\n|---|---|---|\n",
    );
    for key in &keys {
        let mark = if key.waits_for().is_some() {
            " (not acted on yet)"
        } else {
            ""
        };
        out.push_str(&format!(
            "| [`{}`](#{}){mark} | {} | {} |\n",
            key.path,
            key.anchor(),
            key.declared_kind(schema),
            default_words(key, &keys),
        ));
    }
    for key in &keys {
        out.push_str(&format!("\n## `{}` {{#{}}}\n\n", key.path, key.anchor()));
        if let Some(capability) = key.waits_for() {
            out.push_str(&format!(
                "> **Not acted on yet.** This version accepts the key and changes nothing for it \
                 (it waits for {capability}); `sluiceway check` and every run warn where a file sets it.\n\n"
            ));
        }
        let description = key
            .lookup("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        out.push_str(&format!("{}\n\n", one_paragraph(description)));
        out.push_str(&format!("- Type: {}\n", key.declared_kind(schema)));
        out.push_str(&format!("- Default: {}\n", default_words(key, &keys)));
        if key.is_container() {
            let names: Vec<String> = keys
                .iter()
                .filter(|k| parent(&k.path) == Some(key.path.as_str()))
                .map(|k| format!("[`{}`](#{})", last(&k.path), k.anchor()))
                .collect();
            out.push_str(&format!("- Holds: {}\n", names.join(", ")));
        }
        out.push_str(&format!(
            "\nFor example:\n\n```yaml\n{}```\n",
            block(&key.example)
        ));
    }
    Ok(out)
}

fn default_words(key: &Key, keys: &[Key]) -> String {
    let inherited = key
        .path
        .strip_prefix("stacks[].")
        .filter(|own| !own.contains('.') && keys.iter().any(|k| k.path == *own));
    match (key.lookup("default"), inherited) {
        (Some(Value::Null) | None, Some(top)) => format!("none: the top-level `{top}` applies"),
        (Some(Value::Null) | None, None) if key.is_container() && !key.nullable() => {
            "each key below has its own".to_owned()
        }
        (Some(Value::Null) | None, None) => "none".to_owned(),
        (Some(Value::Object(_)), _) => "each key below has its own".to_owned(),
        (Some(Value::String(text)), _) => format!("`{text}`"),
        (Some(other), _) => format!("`{other}`"),
    }
}

fn parent(path: &str) -> Option<&str> {
    let (head, _) = path.rsplit_once('.')?;
    Some(head.strip_suffix("[]").unwrap_or(head))
}

fn last(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// Doc comments keep their line breaks in the schema; a table cell or a paragraph wants
/// one line.
fn one_paragraph(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
