//! The wire: one place that sends, counts, retries and waits. Every request carries the
//! token in a header marked sensitive, and nothing here formats a request or a header,
//! so no log line or error can hold the token.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use jiff::Timestamp;
use reqwest::Method;
use reqwest::blocking::Client;
use reqwest::header::{self, HeaderMap, HeaderValue};
use serde_json::Value;

use super::Endpoints;
use crate::{Call, Failure, GitHubError};

/// The REST API version every request asks for (the reference's, decision 0017).
pub(crate) const API_VERSION: &str = "2026-03-10";

/// How long the client waits before its one retry of a 5xx, and the most it waits in
/// all for rate limits within one call before it gives up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pauses {
    pub retry: Duration,
    pub wait_bound: Duration,
}

impl Default for Pauses {
    fn default() -> Self {
        Pauses {
            retry: Duration::from_secs(1),
            wait_bound: Duration::from_secs(60),
        }
    }
}

/// Time, injected: the client sleeps and reads the clock only through this, so tests
/// can see each wait without spending it.
pub trait Sleeper: fmt::Debug + Send + Sync {
    fn sleep(&self, duration: Duration);
    fn now(&self) -> Timestamp;
}

#[derive(Debug, Clone, Copy)]
pub struct SystemSleeper;

impl Sleeper for SystemSleeper {
    fn sleep(&self, duration: Duration) {
        std::thread::sleep(duration);
    }

    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// When GitHub does not say how long a secondary rate limit lasts, its documentation
/// asks for at least a minute.
const SECONDARY_LIMIT_WAIT: Duration = Duration::from_secs(60);

pub(crate) struct Transport {
    http: Client,
    endpoints: Endpoints,
    authorization: HeaderValue,
    pauses: Pauses,
    sleeper: Arc<dyn Sleeper>,
    requests: AtomicU64,
}

impl fmt::Debug for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Transport")
            .field("endpoints", &self.endpoints)
            .field("pauses", &self.pauses)
            .field("requests", &self.requests)
            .finish_non_exhaustive()
    }
}

/// A 2xx answer.
pub(crate) struct Answer {
    pub(crate) status: u16,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    pub(crate) fn json(&self, call: &Call) -> Result<Value, GitHubError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| GitHubError::new(call, Failure::Unreadable(format!("not JSON ({e})"))))
    }

    /// The `rel="next"` address of GitHub's `Link` header.
    pub(crate) fn next_page(&self) -> Option<String> {
        let link = self.headers.get(header::LINK)?.to_str().ok()?;
        link.split(',').find_map(|part| {
            let (target, params) = part.split_once(';')?;
            params
                .split(';')
                .any(|p| p.trim() == "rel=\"next\"")
                .then(|| {
                    target
                        .trim()
                        .trim_start_matches('<')
                        .trim_end_matches('>')
                        .to_owned()
                })
        })
    }
}

impl Transport {
    pub(crate) fn new(
        endpoints: Endpoints,
        token: &str,
        pauses: Pauses,
        sleeper: Arc<dyn Sleeper>,
    ) -> Self {
        let mut authorization = HeaderValue::from_str(&format!("Bearer {token}"))
            .unwrap_or_else(|_| HeaderValue::from_static("Bearer"));
        authorization.set_sensitive(true);
        let http = Client::builder()
            .user_agent(concat!("sluiceway/", env!("CARGO_PKG_VERSION")))
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap_or_else(|_| Client::new());
        Transport {
            http,
            endpoints,
            authorization,
            pauses,
            sleeper,
            requests: AtomicU64::new(0),
        }
    }

    pub(crate) fn requests_made(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    pub(crate) fn rest_url(&self, path_and_query: &str) -> String {
        self.endpoints.rest_url(path_and_query)
    }

    /// Whether an address GitHub gave us lies under the REST API's.
    pub(crate) fn is_rest_url(&self, url: &str) -> bool {
        let base = self.endpoints.rest_url("");
        url.strip_prefix(&base)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    }

    /// A GraphQL query; answers its `data`, or the first error GitHub gave.
    pub(crate) fn graphql(
        &self,
        call: &Call,
        query: &str,
        variables: Value,
    ) -> Result<Value, GitHubError> {
        let url = self.endpoints.graphql.to_string();
        let request = serde_json::json!({ "query": query, "variables": variables });
        let mut answer = self
            .send(call, Method::POST, &url, Some(&request))?
            .json(call)?;
        if let Some(error) = answer
            .get("errors")
            .and_then(Value::as_array)
            .and_then(|e| e.first())
        {
            let text = |key: &str| error.get(key).and_then(Value::as_str).map(str::to_owned);
            return Err(GitHubError::new(
                call,
                Failure::GraphQl {
                    kind: text("type").unwrap_or_else(|| "an error".into()),
                    message: text("message").unwrap_or_default(),
                },
            ));
        }
        match answer.get_mut("data").map(Value::take) {
            Some(data) if data.is_object() => Ok(data),
            _ => Err(GitHubError::new(
                call,
                Failure::Unreadable("no data".into()),
            )),
        }
    }

    /// A request to an address (a REST path made absolute, a `Link` from GitHub, or
    /// the GraphQL endpoint), retried and waited as the module says.
    pub(crate) fn send(
        &self,
        call: &Call,
        method: Method,
        url: &str,
        body: Option<&Value>,
    ) -> Result<Answer, GitHubError> {
        let mut retried = false;
        let mut waited = Duration::ZERO;
        loop {
            self.requests.fetch_add(1, Ordering::Relaxed);
            let mut request = self
                .http
                .request(method.clone(), url)
                .header(header::AUTHORIZATION, self.authorization.clone())
                .header(header::ACCEPT, "application/vnd.github+json")
                .header("X-GitHub-Api-Version", API_VERSION);
            if let Some(body) = body {
                request = request.json(body);
            }
            let response = match request.send() {
                Ok(response) => response,
                Err(_) if !retried => {
                    retried = true;
                    self.sleeper.sleep(self.pauses.retry);
                    continue;
                }
                Err(error) => {
                    return Err(GitHubError::new(
                        call,
                        Failure::Transport(transport_words(&error)),
                    ));
                }
            };
            let status = response.status().as_u16();
            let headers = response.headers().clone();
            let body = match response.bytes() {
                Ok(bytes) => bytes.to_vec(),
                Err(error) => {
                    return Err(GitHubError::new(
                        call,
                        Failure::Transport(transport_words(&error)),
                    ));
                }
            };
            if (200..300).contains(&status) {
                return Ok(Answer {
                    status,
                    headers,
                    body,
                });
            }
            if status >= 500 && !retried {
                retried = true;
                self.sleeper.sleep(self.pauses.retry);
                continue;
            }
            let message = github_message(status, &body);
            if let Some(wait) = self.rate_limit_wait(status, &headers, &message) {
                if waited + wait <= self.pauses.wait_bound {
                    waited += wait;
                    self.sleeper.sleep(wait);
                    continue;
                }
                return Err(GitHubError::new(
                    call,
                    Failure::RateLimited {
                        wait_seconds: wait.as_secs(),
                        bound_seconds: self.pauses.wait_bound.as_secs(),
                    },
                ));
            }
            return Err(GitHubError::new(call, Failure::Status { status, message }));
        }
    }

    /// How long GitHub asks us to wait, when the refusal is a rate limit: its
    /// `Retry-After`, else the reset time of an exhausted primary limit, else a minute
    /// for a secondary limit. Never less than a second, so a loop cannot spin.
    fn rate_limit_wait(&self, status: u16, headers: &HeaderMap, message: &str) -> Option<Duration> {
        if status != 403 && status != 429 {
            return None;
        }
        let number =
            |name: &str| -> Option<u64> { headers.get(name)?.to_str().ok()?.trim().parse().ok() };
        let wait = if let Some(seconds) = number("retry-after") {
            Duration::from_secs(seconds)
        } else if number("x-ratelimit-remaining") == Some(0) {
            let reset = number("x-ratelimit-reset")?;
            let now = self.sleeper.now().as_second().max(0) as u64;
            Duration::from_secs(reset.saturating_sub(now))
        } else if message
            .to_ascii_lowercase()
            .contains("secondary rate limit")
        {
            SECONDARY_LIMIT_WAIT
        } else {
            return None;
        };
        Some(wait.max(Duration::from_secs(1)))
    }
}

/// GitHub's `message`, else the status's reason; cut short, since it is shown to people.
fn github_message(status: u16, body: &[u8]) -> String {
    let message = serde_json::from_slice::<Value>(body)
        .ok()
        .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_owned))
        .unwrap_or_else(|| {
            reqwest::StatusCode::from_u16(status)
                .ok()
                .and_then(|s| s.canonical_reason())
                .unwrap_or("no message")
                .to_owned()
        });
    message.chars().take(300).collect()
}

/// What went wrong on the wire, without the address (which could carry a query).
fn transport_words(error: &reqwest::Error) -> String {
    if error.is_timeout() {
        "the request timed out".into()
    } else if error.is_connect() {
        "the connection failed".into()
    } else {
        "the connection broke".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_addresses_under_the_rest_api_are_followed() {
        let endpoints = Endpoints::from_vars(|name| {
            (name == "GITHUB_API_URL").then(|| "https://ghe.example.test/api/v3".to_owned())
        })
        .unwrap();
        let transport = Transport::new(endpoints, "t", Pauses::default(), Arc::new(SystemSleeper));
        assert!(transport.is_rest_url("https://ghe.example.test/api/v3/repos/o/r/issues?page=2"));
        assert!(!transport.is_rest_url("https://ghe.example.test/api/v3evil/repos"));
        assert!(!transport.is_rest_url("https://elsewhere.example.test/api/v3/repos/o/r/issues"));
        assert!(!transport.is_rest_url("https://ghe.example.test/other"));
    }
}
