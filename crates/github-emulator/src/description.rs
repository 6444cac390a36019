//! GitHub's own published descriptions, as the judge of traffic: the REST OpenAPI
//! description (`@octokit/openapi`, api.github.com) and the public GraphQL schema
//! (`@octokit/graphql-schema`), installed by `scripts/install-github-descriptions.sh`.
//! A request our client sends that the description does not allow, a response the
//! emulator gives that it does not describe, a GraphQL document the schema refuses:
//! each is a violation, and the tests fail on any.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use apollo_compiler::validation::Valid;
use apollo_compiler::{ExecutableDocument, Schema};
use jsonschema::{Draft, Registry, Validator};
use serde_json::{Map, Value};

/// The versions `scripts/install-github-descriptions.sh` installs.
pub const VERSIONS: &str = "23.0.2-15.26.1";

const ROOT: &str = "urn:github-rest";

#[derive(Debug, Clone, thiserror::Error)]
pub enum DescriptionError {
    #[error(
        "GitHub's API descriptions are not installed at {0}; run scripts/install-github-descriptions.sh (or point SLUICEWAY_GITHUB_DESCRIPTIONS at them)"
    )]
    Missing(PathBuf),
    #[error("{path}: {problem}")]
    Unreadable { path: PathBuf, problem: String },
}

pub struct Descriptions {
    rest: Value,
    registry: Registry<'static>,
    graphql: Valid<Schema>,
    validators: Mutex<HashMap<String, Arc<Validator>>>,
}

impl std::fmt::Debug for Descriptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Descriptions")
    }
}

impl Descriptions {
    /// Where the install script puts them: `$SLUICEWAY_GITHUB_DESCRIPTIONS`, else the
    /// cache (`$SLUICEWAY_CACHE`, else `~/.cache/sluiceway`).
    pub fn default_dir() -> PathBuf {
        let set = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
        if let Some(dir) = set("SLUICEWAY_GITHUB_DESCRIPTIONS") {
            return PathBuf::from(dir);
        }
        let cache = set("SLUICEWAY_CACHE")
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/sluiceway")
            });
        cache.join("github-descriptions").join(VERSIONS)
    }

    /// The installed descriptions, loaded once per process (they are 14 MB of JSON and
    /// schema) and shared by every emulator that checks against them.
    pub fn shared() -> Result<Arc<Descriptions>, DescriptionError> {
        static LOADED: OnceLock<Result<Arc<Descriptions>, DescriptionError>> = OnceLock::new();
        LOADED
            .get_or_init(|| Self::installed().map(Arc::new))
            .clone()
    }

    /// Loads them from [`Descriptions::default_dir`], installing them first with the
    /// workspace's script when they are not there yet, so `cargo test` works on a
    /// fresh machine that can reach the npm registry.
    pub fn installed() -> Result<Self, DescriptionError> {
        let dir = Self::default_dir();
        if !dir.join("api.github.com.json").is_file() || !dir.join("schema.graphql").is_file() {
            let script = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../scripts/install-github-descriptions.sh");
            let installed = std::process::Command::new(&script)
                .stdout(std::process::Stdio::null())
                .status()
                .is_ok_and(|status| status.success());
            if !installed {
                return Err(DescriptionError::Missing(dir));
            }
        }
        Self::load(&dir)
    }

    pub fn load(dir: &Path) -> Result<Self, DescriptionError> {
        let rest_path = dir.join("api.github.com.json");
        let graphql_path = dir.join("schema.graphql");
        if !rest_path.is_file() || !graphql_path.is_file() {
            return Err(DescriptionError::Missing(dir.to_owned()));
        }
        let unreadable = |path: &Path, problem: String| DescriptionError::Unreadable {
            path: path.to_owned(),
            problem,
        };
        let text = std::fs::read(&rest_path).map_err(|e| unreadable(&rest_path, e.to_string()))?;
        let raw: Value =
            serde_json::from_slice(&text).map_err(|e| unreadable(&rest_path, e.to_string()))?;
        let rest = as_json_schema(raw);
        let registry = Registry::new()
            .draft(Draft::Draft4)
            .add(ROOT, rest.clone())
            .and_then(|builder| builder.prepare())
            .map_err(|e| unreadable(&rest_path, e.to_string()))?;
        let sdl = std::fs::read_to_string(&graphql_path)
            .map_err(|e| unreadable(&graphql_path, e.to_string()))?;
        // GitHub's schema is read as published; its own small departures from the
        // GraphQL specification are not ours to judge.
        let schema = Schema::parse(sdl, &graphql_path).unwrap_or_else(|partial| partial.partial);
        Ok(Descriptions {
            rest,
            registry,
            graphql: Valid::assume_valid(schema),
            validators: Mutex::new(HashMap::new()),
        })
    }

    pub fn graphql_schema(&self) -> &Valid<Schema> {
        &self.graphql
    }

    /// The operation at a path template (axum's and OpenAPI's templates are alike).
    fn operation(&self, method: &str, template: &str) -> Option<(String, &Value)> {
        let method = method.to_ascii_lowercase();
        let pointer = format!("/paths/{}/{method}", escape(template));
        self.rest.pointer(&pointer).map(|op| (pointer, op))
    }

    /// Follows a `$ref` (to a response, a parameter or a request body) to its target.
    fn follow<'a>(&'a self, pointer: String, value: &'a Value) -> (String, &'a Value) {
        match value
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
        {
            Some(target) => match self.rest.pointer(target) {
                Some(found) => self.follow(target.to_owned(), found),
                None => (pointer, value),
            },
            None => (pointer, value),
        }
    }

    fn validate(&self, pointer: &str, instance: &Value) -> Vec<String> {
        let validator = {
            let mut cache = self.validators.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(v) = cache.get(pointer) {
                v.clone()
            } else {
                let fragment = pointer
                    .replace('%', "%25")
                    .replace('{', "%7B")
                    .replace('}', "%7D");
                let schema = serde_json::json!({ "$ref": format!("{ROOT}#{fragment}") });
                match jsonschema::options()
                    .with_draft(Draft::Draft4)
                    .with_registry(&self.registry)
                    .build(&schema)
                {
                    Ok(v) => {
                        let v = Arc::new(v);
                        cache.insert(pointer.to_owned(), v.clone());
                        v
                    }
                    Err(e) => {
                        return vec![format!("the schema at {pointer} cannot be compiled: {e}")];
                    }
                }
            }
        };
        validator
            .iter_errors(instance)
            .take(5)
            .map(|e| {
                format!(
                    "at {}: {} (schema {})",
                    e.instance_path(),
                    short(&e.to_string()),
                    e.schema_path()
                )
            })
            .collect()
    }

    /// Holds a request to its operation's parameters (in its path and its query) and
    /// its request body.
    pub fn check_request(
        &self,
        method: &str,
        template: &str,
        path: &str,
        query: &str,
        body: Option<&Value>,
    ) -> Vec<String> {
        let Some((pointer, operation)) = self.operation(method, template) else {
            return vec![format!("GitHub describes no operation {method} {template}")];
        };
        let mut problems = Vec::new();
        let parameters: Vec<(String, &Value)> = operation
            .get("parameters")
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .enumerate()
                    .map(|(i, p)| self.follow(format!("{pointer}/parameters/{i}"), p))
                    .collect()
            })
            .unwrap_or_default();
        let declared = |place: &str, name: &str| {
            parameters.iter().find(|(_, p)| {
                p.get("in").and_then(Value::as_str) == Some(place)
                    && p.get("name").and_then(Value::as_str) == Some(name)
            })
        };
        for (segment, value) in template.split('/').zip(path.split('/')) {
            let Some(name) = segment.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
                continue;
            };
            let value = percent_encoding::percent_decode_str(value).decode_utf8_lossy();
            match declared("path", name) {
                Some((parameter_pointer, parameter)) => {
                    let typed =
                        typed_value(parameter.get("schema").unwrap_or(&Value::Null), &value);
                    for problem in self.validate(&format!("{parameter_pointer}/schema"), &typed) {
                        problems.push(format!(
                            "{method} {template}: path parameter {name:?} {problem}"
                        ));
                    }
                }
                None => problems.push(format!(
                    "{method} {template}: path parameter {name:?} is not described"
                )),
            }
        }
        let query_parameters: Vec<&(String, &Value)> = parameters
            .iter()
            .filter(|(_, p)| p.get("in").and_then(Value::as_str) == Some("query"))
            .collect();
        let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        for (name, value) in &pairs {
            let Some((parameter_pointer, parameter)) = query_parameters
                .iter()
                .find(|(_, p)| p.get("name").and_then(Value::as_str) == Some(name))
            else {
                problems.push(format!(
                    "{method} {template}: query parameter {name:?} is not described"
                ));
                continue;
            };
            let schema = parameter.get("schema").cloned().unwrap_or(Value::Null);
            let typed = typed_value(&schema, value);
            for problem in self.validate(&format!("{parameter_pointer}/schema"), &typed) {
                problems.push(format!(
                    "{method} {template}: query parameter {name:?} {problem}"
                ));
            }
        }
        for (_, parameter) in &query_parameters {
            let required = parameter.get("required").and_then(Value::as_bool) == Some(true);
            let name = parameter
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            if required && !pairs.iter().any(|(k, _)| k == name) {
                problems.push(format!(
                    "{method} {template}: required query parameter {name:?} is missing"
                ));
            }
        }
        match operation.get("requestBody") {
            Some(request_body) => {
                let (body_pointer, request_body) =
                    self.follow(format!("{pointer}/requestBody"), request_body);
                let required = request_body.get("required").and_then(Value::as_bool) == Some(true);
                match body {
                    Some(body) => {
                        let schema = format!("{body_pointer}/content/application~1json/schema");
                        for problem in self.validate(&schema, body) {
                            problems.push(format!("{method} {template}: request body {problem}"));
                        }
                    }
                    None if required => {
                        problems.push(format!("{method} {template}: the request body is missing"))
                    }
                    None => {}
                }
            }
            None if body.is_some() => problems.push(format!(
                "{method} {template}: GitHub describes no request body"
            )),
            None => {}
        }
        problems
    }

    /// Holds a response to the schema GitHub publishes for its operation and status.
    pub fn check_response(
        &self,
        method: &str,
        template: &str,
        status: u16,
        body: Option<&Value>,
    ) -> Vec<String> {
        let Some((pointer, operation)) = self.operation(method, template) else {
            return vec![format!("GitHub describes no operation {method} {template}")];
        };
        let status_key = status.to_string();
        let Some(response) = operation.pointer(&format!("/responses/{status_key}")) else {
            // Any endpoint may answer 401, 403 or 404, whether or not its operation
            // lists them; their body is then GitHub's basic error.
            if matches!(status, 401 | 403 | 404) {
                return match body {
                    Some(body) => self
                        .validate("/components/schemas/basic-error", body)
                        .into_iter()
                        .map(|p| format!("{method} {template} {status}: {p}"))
                        .collect(),
                    None => vec![format!(
                        "{method} {template} {status}: the error body is missing"
                    )],
                };
            }
            return vec![format!(
                "{method} {template}: GitHub does not describe status {status}"
            )];
        };
        let (response_pointer, response) =
            self.follow(format!("{pointer}/responses/{status_key}"), response);
        let described = response
            .pointer("/content/application~1json/schema")
            .is_some();
        let mut schema = format!("{response_pointer}/content/application~1json/schema");
        // GitHub describes some conflicts as one of two error schemas that any error body
        // satisfies both of, which `oneOf` then refuses; such a body is held to the
        // basic error alone.
        let basic = serde_json::json!({ "$ref": "#/components/schemas/basic-error" });
        if status >= 400
            && response
                .pointer("/content/application~1json/schema/oneOf")
                .and_then(Value::as_array)
                .is_some_and(|choices| choices.contains(&basic))
        {
            schema = "/components/schemas/basic-error".to_owned();
        }
        match body {
            Some(body) if described => self
                .validate(&schema, body)
                .into_iter()
                .map(|p| format!("{method} {template} {status}: {p}"))
                .collect(),
            Some(_) => vec![format!(
                "{method} {template} {status}: GitHub describes no body"
            )],
            None if described => vec![format!("{method} {template} {status}: the body is missing")],
            None => Vec::new(),
        }
    }

    /// Holds an event payload to the webhook schema GitHub publishes under that name
    /// (`webhook-pull-request-opened`): what a workflow's `GITHUB_EVENT_PATH` holds.
    pub fn check_webhook(&self, schema: &str, body: &Value) -> Vec<String> {
        self.validate(&format!("/components/schemas/{schema}"), body)
            .into_iter()
            .map(|p| format!("{schema}: {p}"))
            .collect()
    }

    /// Holds a GraphQL document to GitHub's schema.
    pub fn check_graphql(&self, document: &str) -> Vec<String> {
        match ExecutableDocument::parse_and_validate(&self.graphql, document, "document.graphql") {
            Ok(_) => Vec::new(),
            Err(with_errors) => with_errors
                .errors
                .iter()
                .map(|d| short(&d.error.to_string()))
                .collect(),
        }
    }
}

/// OpenAPI 3.0's `nullable` becomes JSON Schema's own way of saying it.
fn as_json_schema(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let nullable = map.get("nullable").and_then(Value::as_bool) == Some(true);
            let mut converted: Map<String, Value> = map
                .into_iter()
                .filter(|(k, _)| k != "nullable")
                .map(|(k, v)| (k, as_json_schema(v)))
                .collect();
            if !nullable {
                return Value::Object(converted);
            }
            // A typed schema takes `null` among its types (and its enum), which keeps
            // a validator's messages precise; anything else is wrapped.
            match converted
                .get("type")
                .and_then(Value::as_str)
                .map(str::to_owned)
            {
                Some(kind) => {
                    converted.insert("type".into(), serde_json::json!([kind, "null"]));
                    if let Some(Value::Array(values)) = converted.get_mut("enum") {
                        values.push(Value::Null);
                    }
                    Value::Object(converted)
                }
                None => {
                    serde_json::json!({ "anyOf": [Value::Object(converted), { "type": "null" }] })
                }
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(as_json_schema).collect()),
        other => other,
    }
}

/// A query parameter's text as the type its schema declares.
fn typed_value(schema: &Value, text: &str) -> Value {
    let kind = schema
        .get("type")
        .and_then(Value::as_str)
        .or_else(|| schema.pointer("/anyOf/0/type").and_then(Value::as_str));
    match kind {
        Some("integer") => text
            .parse::<i64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::from(text)),
        Some("number") => text
            .parse::<f64>()
            .map(Value::from)
            .unwrap_or_else(|_| Value::from(text)),
        Some("boolean") => match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::from(text),
        },
        _ => Value::from(text),
    }
}

fn escape(template: &str) -> String {
    template.replace('~', "~0").replace('/', "~1")
}

fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > 240 {
        format!("{}…", line.chars().take(240).collect::<String>())
    } else {
        line.to_owned()
    }
}
