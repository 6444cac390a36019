//! The HTTP server: GitHub's two APIs under one address, a gate in front of them
//! (the token, the traffic log, faults, the description checks), and the admin API a
//! test or a person uses to act as somebody.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use axum::body::{Body, Bytes, to_bytes};
use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::Value;

use crate::admin;
use crate::description::Descriptions;
use crate::faults::{FaultKind, Faults};
use crate::graphql::{self, EmulatorSchema};
use crate::rest;
use crate::shapes::{self, Site, Urls};
use crate::world::{Level, Refusal, Repo, World};

/// Where GitHub's two APIs sit under the emulator's address.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Layout {
    /// GitHub.com's: REST at the root, GraphQL at `/graphql`.
    #[default]
    GitHubCom,
    /// GitHub Enterprise Server's: REST under `/api/v3`, GraphQL at `/api/graphql`.
    EnterpriseServer,
}

impl Layout {
    fn rest_prefix(self) -> &'static str {
        match self {
            Layout::GitHubCom => "",
            Layout::EnterpriseServer => "/api/v3",
        }
    }

    fn graphql_path(self) -> &'static str {
        match self {
            Layout::GitHubCom => "/graphql",
            Layout::EnterpriseServer => "/api/graphql",
        }
    }
}

/// The largest body the emulator reads (GitHub's issue bodies stay far below it).
const BODY_LIMIT: usize = 64 * 1024 * 1024;

#[derive(Clone)]
pub struct Shared(Arc<Inner>);

struct Inner {
    world: Mutex<World>,
    site: OnceLock<Site>,
    layout: Layout,
    faults: Mutex<Faults>,
    descriptions: Option<Arc<Descriptions>>,
    violations: Mutex<Vec<String>>,
    traffic: Mutex<Vec<String>>,
    save_to: Option<PathBuf>,
    schema: EmulatorSchema,
    deliveries: OnceLock<tokio::sync::mpsc::UnboundedSender<crate::hooks::Outgoing>>,
    delivery_faults: Mutex<crate::hooks::DeliveryFaults>,
    made: Mutex<Vec<crate::hooks::Made>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Shared {
    pub(crate) fn new(
        layout: Layout,
        world: World,
        descriptions: Option<Arc<Descriptions>>,
        save_to: Option<PathBuf>,
    ) -> Self {
        Shared(Arc::new(Inner {
            world: Mutex::new(world),
            site: OnceLock::new(),
            layout,
            faults: Mutex::new(Faults::default()),
            descriptions,
            violations: Mutex::new(Vec::new()),
            traffic: Mutex::new(Vec::new()),
            save_to,
            schema: graphql::schema(),
            deliveries: OnceLock::new(),
            delivery_faults: Mutex::default(),
            made: Mutex::default(),
        }))
    }

    /// Sets the addresses once the emulator knows its own (`http://127.0.0.1:<port>`).
    pub(crate) fn set_origin(&self, origin: &str) {
        let api = format!("{origin}{}", self.0.layout.rest_prefix());
        let _ = self.0.site.set(Site {
            html: origin.to_owned(),
            api,
        });
    }

    pub(crate) fn site(&self) -> &Site {
        static UNSET: OnceLock<Site> = OnceLock::new();
        self.0.site.get().unwrap_or_else(|| {
            UNSET.get_or_init(|| Site {
                html: String::new(),
                api: String::new(),
            })
        })
    }

    /// The pages' origin, which is also where `Link` addresses start.
    pub fn base(&self) -> &str {
        &self.site().html
    }

    pub(crate) fn urls<'a>(&'a self, repo: &'a Repo) -> Urls<'a> {
        Urls {
            site: self.site(),
            repo,
        }
    }

    pub fn read(&self) -> MutexGuard<'_, World> {
        lock(&self.0.world)
    }

    /// Changes the world under its lock; a refused change is not saved.
    pub fn change<T>(
        &self,
        change: impl FnOnce(&mut World) -> Result<T, Refusal>,
    ) -> Result<T, Refusal> {
        let mut world = lock(&self.0.world);
        let mut draft = world.clone();
        let answer = change(&mut draft)?;
        *world = draft;
        let happened = std::mem::take(&mut world.happened);
        let outgoing = crate::hooks::outgoing(&world, self.site(), &happened);
        world.deliveries_made += outgoing.len() as u64;
        if let Some(path) = &self.0.save_to {
            save(path, &world);
        }
        drop(world);
        for delivery in outgoing {
            for problem in crate::hooks::checked(self.0.descriptions.as_deref(), &delivery) {
                self.violation(problem);
            }
            if let Some(queue) = self.0.deliveries.get() {
                let _ = queue.send(delivery);
            }
        }
        Ok(answer)
    }

    pub(crate) fn start_deliveries(
        &self,
        queue: tokio::sync::mpsc::UnboundedSender<crate::hooks::Outgoing>,
    ) {
        let _ = self.0.deliveries.set(queue);
    }

    pub(crate) fn arm_delivery(&self, fault: crate::hooks::DeliveryFault) {
        lock(&self.0.delivery_faults).0.push_back(fault);
    }

    pub(crate) fn next_delivery_fault(&self) -> Option<crate::hooks::DeliveryFault> {
        lock(&self.0.delivery_faults).0.pop_front()
    }

    pub(crate) fn made(&self, made: crate::hooks::Made) {
        lock(&self.0.made).push(made);
    }

    pub fn deliveries(&self) -> Vec<crate::hooks::Made> {
        lock(&self.0.made).clone()
    }

    pub fn faults(&self) -> MutexGuard<'_, Faults> {
        lock(&self.0.faults)
    }

    pub fn violations(&self) -> Vec<String> {
        lock(&self.0.violations).clone()
    }

    pub fn traffic(&self) -> Vec<String> {
        lock(&self.0.traffic).clone()
    }

    fn violation(&self, problem: String) {
        lock(&self.0.violations).push(problem);
    }
}

/// Writes the state beside its file and renames it over, so a crash leaves the old one.
fn save(path: &std::path::Path, world: &World) {
    let partial = path.with_extension("partial");
    if let Ok(text) = serde_json::to_vec_pretty(world)
        && std::fs::write(&partial, text).is_ok()
    {
        let _ = std::fs::rename(&partial, path);
    }
}

/// Who a request speaks for, from its token.
#[derive(Clone, Debug)]
pub(crate) struct Caller {
    pub(crate) login: String,
    permissions: Option<BTreeMap<String, Level>>,
    /// The app a JSON Web Token speaks for: it may use the app's own endpoints, and no
    /// other.
    pub(crate) app: Option<u64>,
}

impl Caller {
    /// GitHub's answer to a token that lacks a permission.
    pub(crate) fn require(&self, scope: &str, level: Level) -> Result<(), Refusal> {
        let Some(permissions) = &self.permissions else {
            return Ok(());
        };
        if scope == "metadata"
            || permissions
                .get(scope)
                .is_some_and(|granted| *granted >= level)
        {
            Ok(())
        } else {
            Err(Refusal::new(403, "Resource not accessible by integration"))
        }
    }
}

pub(crate) fn router(shared: Shared) -> Router {
    let layout = shared.0.layout;
    let gate = middleware::from_fn_with_state(shared.clone(), gate);
    let rest = rest::routes()
        .route_layer(gate.clone())
        .with_state(shared.clone());
    let graphql = Router::new()
        .route(layout.graphql_path(), post(graphql_endpoint))
        .route_layer(gate)
        .with_state(shared.clone());
    let github = match layout.rest_prefix() {
        "" => rest,
        prefix => Router::new().nest(prefix, rest),
    };
    Router::new()
        .merge(github)
        .merge(graphql)
        .merge(crate::oauth::routes().with_state(shared.clone()))
        .nest("/_emulator", admin::routes().with_state(shared))
}

fn bearer(request: &Request) -> Option<String> {
    let value = request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("token "))?;
    Some(token.trim().to_owned())
}

fn refuse(status: u16, message: &str) -> Response {
    Refusal::new(status, message).into_response()
}

/// In front of every GitHub endpoint: authenticate, log, meet an armed fault, check the
/// request against GitHub's description, serve, check the response.
async fn gate(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let method = request.method().as_str().to_owned();
    let layout = shared.0.layout;
    let matched = request
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str())
        .unwrap_or_default();
    // GraphQL is `/graphql` in the traffic log and to the checks, whatever the layout;
    // REST templates lose the Enterprise prefix, so they are the description's own.
    let template = if matched == layout.graphql_path() {
        "/graphql".to_owned()
    } else {
        // A path that spans segments is axum's `{*path}`, the description's `{path}`.
        matched
            .strip_prefix(layout.rest_prefix())
            .unwrap_or(matched)
            .replace("{*", "{")
    };
    let path = request.uri().path();
    let path = path
        .strip_prefix(layout.rest_prefix())
        .unwrap_or(path)
        .to_owned();
    let query = request.uri().query().unwrap_or("").to_owned();
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, BODY_LIMIT).await.unwrap_or_default();
    let json: Option<Value> = if bytes.is_empty() {
        None
    } else {
        serde_json::from_slice(&bytes).ok()
    };
    let operation = if template == "/graphql" {
        format!(
            "graphql {}",
            json.as_ref()
                .and_then(graphql_operation_name)
                .unwrap_or_default()
        )
    } else {
        format!("{method} {template}")
    };
    lock(&shared.0.traffic).push(operation.clone());

    let caller = match bearer(&Request::from_parts(parts.clone(), Body::empty())) {
        None => return refuse(401, "Requires authentication"),
        // An app's own token is checked against the machine's clock, as the app signs it.
        Some(token) if crate::apps::looks_like_jwt(&token) => {
            let app = crate::apps::app_of_jwt(&shared.read(), &token, jiff::Timestamp::now());
            match app {
                Ok(app) => Caller {
                    login: String::new(),
                    permissions: Some(BTreeMap::new()),
                    app: Some(app),
                },
                Err(refusal) => return refusal.into_response(),
            }
        }
        Some(token) => match shared.read().tokens.get(&token).cloned() {
            None => return refuse(401, "Bad credentials"),
            Some(grant) => Caller {
                login: grant.login,
                permissions: grant.permissions,
                app: None,
            },
        },
    };

    if let Some(descriptions) = &shared.0.descriptions {
        if template == "/graphql" {
            let document = json
                .as_ref()
                .and_then(|j| j.get("query"))
                .and_then(Value::as_str)
                .unwrap_or("");
            for problem in descriptions.check_graphql(document) {
                shared.violation(format!("{operation}: {problem}"));
            }
        } else {
            for problem in
                descriptions.check_request(&method, &template, &path, &query, json.as_ref())
            {
                shared.violation(format!("request {problem}"));
            }
        }
    }

    let fault = shared.faults().take(&operation);
    if let Some(fault) = fault {
        match fault {
            FaultKind::Status { status, message } => return refuse(status, &message),
            FaultKind::Slow { millis } => tokio::time::sleep(Duration::from_millis(millis)).await,
            FaultKind::SecondaryRateLimit { retry_after } => {
                let mut response = refuse(
                    403,
                    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                );
                if let Some(seconds) = retry_after
                    && let Ok(value) = HeaderValue::from_str(&seconds.to_string())
                {
                    response.headers_mut().insert(header::RETRY_AFTER, value);
                }
                return response;
            }
            FaultKind::PrimaryRateLimit { reset_in } => {
                let reset = jiff::Timestamp::now().as_second() + reset_in as i64;
                let mut response = refuse(403, "API rate limit exceeded for installation.");
                let headers = response.headers_mut();
                headers.insert("x-ratelimit-remaining", HeaderValue::from_static("0"));
                if let Ok(value) = HeaderValue::from_str(&reset.to_string()) {
                    headers.insert("x-ratelimit-reset", value);
                }
                return response;
            }
            FaultKind::EditFirst {
                repo,
                issue,
                editor,
                body,
            } => {
                let _ = shared.change(|w| w.edit_body(&repo, issue, &editor, &body));
            }
            FaultKind::TickFirst {
                repo,
                issue,
                editor,
                line,
            } => {
                let _ = shared.change(|w| w.set_box(&repo, issue, &editor, &line, true));
            }
        }
    }

    let mut request = Request::from_parts(parts, Body::from(bytes));
    request.extensions_mut().insert(caller);
    let response = next.run(request).await;

    let Some(descriptions) = &shared.0.descriptions else {
        return response;
    };
    if template == "/graphql" {
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes: Bytes = to_bytes(body, BODY_LIMIT).await.unwrap_or_default();
    let json: Option<Value> = if bytes.is_empty() {
        None
    } else {
        serde_json::from_slice(&bytes).ok()
    };
    for problem in
        descriptions.check_response(&method, &template, parts.status.as_u16(), json.as_ref())
    {
        shared.violation(format!("response {problem}"));
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// The operation's name, for the traffic log and for faults.
fn graphql_operation_name(request: &Value) -> Option<String> {
    if let Some(name) = request.get("operationName").and_then(Value::as_str) {
        return Some(name.to_owned());
    }
    let query = request.get("query")?.as_str()?;
    let mut words = query
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty());
    while let Some(word) = words.next() {
        if word == "query" || word == "mutation" {
            return words.next().map(str::to_owned);
        }
    }
    None
}

async fn graphql_endpoint(
    State(shared): State<Shared>,
    axum::extract::Extension(caller): axum::extract::Extension<Caller>,
    body: Bytes,
) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return refuse(400, "Problems parsing JSON");
    };
    let query = request
        .get("query")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    let mut gql = async_graphql::Request::new(query);
    if let Some(variables) = request.get("variables").filter(|v| v.is_object()) {
        gql = gql.variables(async_graphql::Variables::from_json(variables.clone()));
    }
    let gql = gql.data(shared.clone()).data(caller);
    let answer = shared.0.schema.execute(gql).await;
    let mut value = serde_json::to_value(&answer).unwrap_or(Value::Null);
    // GitHub puts an error's type beside its message, not under `extensions`.
    if let Some(errors) = value.get_mut("errors").and_then(Value::as_array_mut) {
        for error in errors {
            if let Some(kind) = error.pointer("/extensions/type").cloned() {
                error["type"] = kind;
            }
        }
    }
    (StatusCode::OK, Json(value)).into_response()
}

/// An error body in GitHub's shape, for the admin API's refusals too.
pub(crate) fn error_body(refusal: &Refusal) -> Value {
    shapes::error(refusal.status, &refusal.message)
}

/// Serves `router` until the future resolves; used by the binary and by `Emulator`.
pub(crate) fn app(shared: Shared) -> Router {
    router(shared).fallback(
        get(|| async { refuse(404, "Not Found") }).post(|| async { refuse(404, "Not Found") }),
    )
}
