//! Local stand-ins for the places notifications go: a Slack incoming webhook, the
//! Telegram Bot API's `sendMessage` and a team's own webhook, on one loopback port. Each
//! request is held to its service's documented shape (Slack's `text` and Block Kit
//! blocks; Telegram's `sendMessage` fields; our published webhook schema) and answered
//! 400 when it strays; each can be told to answer 500 or never to answer.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::routing::post;
use serde_json::Value;

use super::workspace;

/// How a receiver answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Answer {
    Ok,
    ServerError,
    /// Holds the request longer than any sender waits.
    Hang,
    /// Sends the sender on to another receiver of this set, which a sender must not follow.
    RedirectTo(&'static str),
}

/// One request as it arrived.
#[derive(Debug, Clone)]
pub(crate) struct Received {
    /// `slack`, `telegram` or `webhook`.
    pub(crate) channel: &'static str,
    pub(crate) path: String,
    pub(crate) body: Value,
    pub(crate) raw: String,
    /// What was wrong with its shape, if anything.
    pub(crate) stray: Option<String>,
}

#[derive(Default)]
struct Shared {
    answers: BTreeMap<&'static str, Answer>,
    received: Vec<Received>,
}

pub(crate) struct Receivers {
    pub(crate) base: String,
    shared: Arc<Mutex<Shared>>,
    _runtime: tokio::runtime::Runtime,
}

impl Receivers {
    pub(crate) fn start() -> Receivers {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let shared = Arc::new(Mutex::new(Shared::default()));
        let app = Router::new()
            .route("/slack/{*rest}", post(slack))
            .route("/webhook/{*rest}", post(webhook))
            .route("/telegram/{bot}/sendMessage", post(telegram))
            .with_state(shared.clone());
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .unwrap();
        let port = listener.local_addr().unwrap().port();
        runtime.spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        Receivers {
            base: format!("http://127.0.0.1:{port}"),
            shared,
            _runtime: runtime,
        }
    }

    pub(crate) fn answer(&self, channel: &'static str, answer: Answer) {
        self.shared.lock().unwrap().answers.insert(channel, answer);
    }

    pub(crate) fn received(&self) -> Vec<Received> {
        self.shared.lock().unwrap().received.clone()
    }

    pub(crate) fn of(&self, channel: &str) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|r| r.channel == channel)
            .collect()
    }

    /// The inputs that point every channel here.
    pub(crate) fn inputs(&self) -> Vec<(String, String)> {
        vec![
            (
                "slack-webhook-url".into(),
                format!("{}/slack/T01/B02/sekrit", self.base),
            ),
            ("webhook-url".into(), format!("{}/webhook/in", self.base)),
            ("telegram-bot-token".into(), "4242:AAbb_cc-dd".into()),
            ("telegram-chat-id".into(), "-1001234".into()),
            ("telegram-thread-id".into(), "17".into()),
        ]
    }

    /// The job's variable that sends Telegram's requests here.
    pub(crate) fn telegram_api(&self) -> (String, String) {
        (
            "SLUICEWAY_TELEGRAM_API".into(),
            format!("{}/telegram", self.base),
        )
    }
}

async fn take(
    shared: &Arc<Mutex<Shared>>,
    channel: &'static str,
    path: String,
    raw: Bytes,
    judge: fn(&Value) -> Option<String>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let (body, stray) = match serde_json::from_str::<Value>(&raw) {
        Ok(body) => {
            let stray = judge(&body);
            (body, stray)
        }
        Err(e) => (Value::Null, Some(format!("not JSON: {e}"))),
    };
    let answer = {
        let mut shared = shared.lock().unwrap();
        shared.received.push(Received {
            channel,
            path,
            body,
            raw,
            stray: stray.clone(),
        });
        shared.answers.get(channel).copied().unwrap_or(Answer::Ok)
    };
    match (answer, stray) {
        (_, Some(_)) => StatusCode::BAD_REQUEST.into_response(),
        (Answer::Ok, None) => StatusCode::OK.into_response(),
        (Answer::ServerError, None) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
        (Answer::Hang, None) => {
            tokio::time::sleep(Duration::from_secs(60)).await;
            StatusCode::OK.into_response()
        }
        (Answer::RedirectTo(to), None) => {
            (StatusCode::FOUND, [(axum::http::header::LOCATION, to)]).into_response()
        }
    }
}

async fn slack(
    State(shared): State<Arc<Mutex<Shared>>>,
    Path(rest): Path<String>,
    raw: Bytes,
) -> axum::response::Response {
    take(&shared, "slack", rest, raw, slack_shape).await
}

async fn webhook(
    State(shared): State<Arc<Mutex<Shared>>>,
    Path(rest): Path<String>,
    raw: Bytes,
) -> axum::response::Response {
    take(&shared, "webhook", rest, raw, webhook_shape).await
}

async fn telegram(
    State(shared): State<Arc<Mutex<Shared>>>,
    Path(bot): Path<String>,
    raw: Bytes,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if bot != "bot4242:AAbb_cc-dd" {
        return StatusCode::NOT_FOUND.into_response();
    }
    take(&shared, "telegram", bot, raw, telegram_shape).await
}

/// Slack's incoming webhook: `text` (a string), and `blocks` of the kinds Slack lists,
/// here a `section` with a `mrkdwn` text object and a `context` of `mrkdwn` elements.
fn slack_shape(body: &Value) -> Option<String> {
    let Some(text) = body["text"].as_str() else {
        return Some("no text".into());
    };
    if text.is_empty() || text.len() > 40_000 {
        return Some("text empty or over 40,000 characters".into());
    }
    let Some(blocks) = body["blocks"].as_array() else {
        return Some("no blocks".into());
    };
    for block in blocks {
        let ok = match block["type"].as_str() {
            Some("section") => {
                block["text"]["type"] == "mrkdwn"
                    && block["text"]["text"]
                        .as_str()
                        .is_some_and(|t| t.len() <= 3000)
            }
            Some("context") => block["elements"].as_array().is_some_and(|es| {
                !es.is_empty()
                    && es
                        .iter()
                        .all(|e| e["type"] == "mrkdwn" && e["text"].is_string())
            }),
            _ => false,
        };
        if !ok {
            return Some(format!("a block Slack would refuse: {block}"));
        }
    }
    let known = ["text", "blocks", "unfurl_links", "unfurl_media"];
    body.as_object()
        .into_iter()
        .flat_map(|o| o.keys())
        .find(|k| !known.contains(&k.as_str()))
        .map(|k| format!("an unknown field {k}"))
}

/// Telegram's `sendMessage`: `chat_id` (integer or `@name`), `text` of 1 to 4096
/// characters, `message_thread_id` an integer, `link_preview_options.is_disabled`; we
/// also hold Sluiceway to plain text (no `parse_mode`) and no preview.
fn telegram_shape(body: &Value) -> Option<String> {
    let chat_ok =
        body["chat_id"].is_i64() || body["chat_id"].as_str().is_some_and(|c| c.starts_with('@'));
    let text_ok = body["text"]
        .as_str()
        .is_some_and(|t| !t.is_empty() && t.chars().count() <= 4096);
    let thread_ok = body.get("message_thread_id").is_none_or(Value::is_i64);
    let preview_off = body["link_preview_options"]["is_disabled"] == true;
    if !(chat_ok && text_ok && thread_ok && preview_off) || body.get("parse_mode").is_some() {
        return Some(format!("not a plain sendMessage: {body}"));
    }
    None
}

/// Our webhook's document, held to the published schema.
fn webhook_shape(body: &Value) -> Option<String> {
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace().join("docs/formats/notification.schema.json"))
            .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    validator
        .validate(body)
        .err()
        .map(|e| format!("off the schema: {e}"))
}
