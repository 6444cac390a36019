//! The console's own description of its API (OpenAPI 3.1), served at
//! `/api/v1/openapi.json`: the paths it answers and the schemas of its answers, drawn from
//! the very types it serializes, so the document cannot drift from the answers.

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, SchemaGenerator};
use serde_json::{Map, Value, json};

use super::error::ChangesRefused;
use super::error::ErrorBody;
use super::{Audit, ChangesBody, Deploy, Me, Org, Repo, RescanAnswer, Stack, TickAnswer, TickBody};

/// One operation: its id, path, parameters beyond the path's, what it answers, and a
/// sentence of what it is for.
struct Operation {
    id: &'static str,
    /// `get`, or `post` for an operation that asks GitHub for something.
    method: &'static str,
    path: &'static str,
    query: &'static [(&'static str, &'static str)],
    summary: &'static str,
}

const OPERATIONS: &[Operation] = &[
    Operation {
        id: "me",
        method: "get",
        path: "/api/v1/me",
        query: &[],
        summary: "Who the token acts as, for which org, and until when.",
    },
    Operation {
        id: "org",
        method: "get",
        path: "/api/v1/orgs/{org}",
        query: &[],
        summary: "Every stack of the org's repositories, those that need a person first.",
    },
    Operation {
        id: "repo",
        method: "get",
        path: "/api/v1/orgs/{org}/repos/{repo}",
        query: &[],
        summary: "One repository's last scan and stacks.",
    },
    Operation {
        id: "stack",
        method: "get",
        path: "/api/v1/orgs/{org}/repos/{repo}/stacks/{stack}",
        query: &[],
        summary: "One stack's facts; its id URL-encoded in the path.",
    },
    Operation {
        id: "deployment",
        method: "get",
        path: "/api/v1/orgs/{org}/repos/{repo}/deployments/{deployment}",
        query: &[],
        summary: "One deploy, by its deployment record's number.",
    },
    Operation {
        id: "preview",
        method: "get",
        path: "/api/v1/orgs/{org}/repos/{repo}/stacks/{stack}/preview",
        query: &[],
        summary: "One stack's full preview, read from its preview page on GitHub now and kept nowhere: every change with its type, name and property paths, and the values the repository's dashboard.showValues lets its pages show. no-preview when the stack has nothing waiting or no page.",
    },
    Operation {
        id: "config",
        method: "get",
        path: "/api/v1/orgs/{org}/repos/{repo}/config",
        query: &[],
        summary: "The repository's sluiceway.yaml at the scanned commit: its text, whether the action loads it, and the value it gives each key a change may name.",
    },
    Operation {
        id: "configPullRequest",
        method: "post",
        path: "/api/v1/orgs/{org}/repos/{repo}/config/pull-request",
        query: &[],
        summary: "Opens one pull request on the branch sluiceway/dashboard that changes only the keys asked in sluiceway.yaml, every other byte of the file kept; null puts the action's default back. A person merges it. Needs write access to the repository.",
    },
    Operation {
        id: "tick",
        method: "post",
        path: "/api/v1/orgs/{org}/repos/{repo}/stacks/{stack}/tick",
        query: &[],
        summary: "Ticks the stack as the token's person, judged by the action's own tick rule and the person's permission read live; a stack that deletes or replaces needs its confirm sent back. Opens the deployment record the workflow's resolve starts.",
    },
    Operation {
        id: "rescan",
        method: "post",
        path: "/api/v1/orgs/{org}/repos/{repo}/rescan",
        query: &[],
        summary: "Asks for a full scan of the repository, as the token's person, unless a run of its workflow is queued or under way.",
    },
    Operation {
        id: "audit",
        method: "get",
        path: "/api/v1/orgs/{org}/audit",
        query: &[
            ("repo", "Only this repository's deploys."),
            ("stack", "Only this stack's deploys."),
            ("flagged", "1 for deploys made outside the dashboard only."),
        ],
        summary: "A line per deploy the console has heard of, newest first.",
    },
];

fn schema_of<T: JsonSchema>(generator: &mut SchemaGenerator) -> Value {
    serde_json::to_value(generator.subschema_for::<T>()).unwrap_or_default()
}

/// The document, whole.
pub(crate) fn document() -> Value {
    let mut generator = SchemaSettings::draft2020_12()
        .with(|s| s.definitions_path = "/components/schemas/".into())
        .into_generator();
    let answers = [
        ("me", schema_of::<Me>(&mut generator)),
        ("org", schema_of::<Org>(&mut generator)),
        ("repo", schema_of::<Repo>(&mut generator)),
        ("stack", schema_of::<Stack>(&mut generator)),
        ("deployment", schema_of::<Deploy>(&mut generator)),
        ("audit", schema_of::<Audit>(&mut generator)),
        (
            "preview",
            schema_of::<crate::preview::Preview>(&mut generator),
        ),
        (
            "config",
            schema_of::<crate::config::ConfigAnswer>(&mut generator),
        ),
        ("tick", schema_of::<TickAnswer>(&mut generator)),
        ("rescan", schema_of::<RescanAnswer>(&mut generator)),
        (
            "configPullRequest",
            schema_of::<crate::config_pull_request::PullRequestAnswer>(&mut generator),
        ),
    ];
    let tick_body = schema_of::<TickBody>(&mut generator);
    let changes_body = schema_of::<ChangesBody>(&mut generator);
    let refused = schema_of::<ChangesRefused>(&mut generator);
    let error = schema_of::<ErrorBody>(&mut generator);
    let mut paths = Map::new();
    for operation in OPERATIONS {
        let answer = answers
            .iter()
            .find(|(id, _)| *id == operation.id)
            .map(|(_, schema)| schema.clone())
            .unwrap_or_default();
        let mut parameters: Vec<Value> = operation
            .path
            .split('/')
            .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
            .map(|name| json!({ "name": name, "in": "path", "required": true, "schema": { "type": "string" } }))
            .collect();
        parameters.extend(operation.query.iter().map(|(name, about)| {
            json!({ "name": name, "in": "query", "required": false, "description": about, "schema": { "type": "string" } })
        }));
        let failure = |about: &str| json!({ "description": about, "content": { "application/json": { "schema": error } } });
        let mut described = json!({
                "operationId": operation.id,
                "summary": operation.summary,
                "security": [{ "token": [] }],
                "parameters": parameters,
                "responses": {
                    "200": { "description": "The answer.", "content": { "application/json": { "schema": answer } } },
                    "401": failure("No token, or one that is unknown, expired or revoked."),
                    "403": failure("The token is for another org, or the console's GitHub App is not installed on it any more."),
                    "404": failure("Nothing at this address for the token's org."),
                    "429": failure("Too many requests with this token this minute; see Retry-After."),
                    "503": failure("The console could not answer, or GitHub did not answer it; try again shortly."),
                },
        });
        if operation.id == "configPullRequest" {
            described["requestBody"] = json!({
                "required": true,
                "content": { "application/json": { "schema": changes_body } },
            });
            described["responses"]["400"] = json!({
                "description": "Changes refused before GitHub was asked anything.",
                "content": { "application/json": { "schema": refused } },
            });
        }
        if operation.id == "tick" {
            described["requestBody"] = json!({
                "required": false,
                "content": { "application/json": { "schema": tick_body } },
            });
        }
        paths.insert(
            operation.path.to_owned(),
            json!({ operation.method: described }),
        );
    }
    let schemas: Map<String, Value> = generator.take_definitions(true).into_iter().collect();
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Sluiceway console",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "The API of a Sluiceway console a team runs itself. Every request carries a personal token in Authorization: Bearer sluiceway_…; a cookie never works here. A token is for one org and acts as its person. Answers hold stack-level facts only.",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": { "token": { "type": "http", "scheme": "bearer" } },
        },
    })
}
