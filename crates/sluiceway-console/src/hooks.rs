//! The webhook endpoint GitHub delivers to: each delivery read (signature first), and
//! applied once by its delivery id.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::post;
use axum::{Json, Router};
use serde_json::json;

use crate::store::Applied;
use crate::webhook::{self, Headers, News, WebhookError};
use crate::{Console, pick_up};

pub(crate) fn routes() -> Router<Console> {
    Router::new().route("/webhooks/github", post(deliver))
}

async fn deliver(
    State(console): State<Console>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, Json<serde_json::Value>) {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let delivery = match webhook::read(
        &console.settings.webhook_secret,
        Headers {
            event: header("x-github-event"),
            delivery: header("x-github-delivery"),
            signature: header("x-hub-signature-256"),
        },
        &body,
    ) {
        Ok(delivery) => delivery,
        Err(error) => {
            let status = match error {
                WebhookError::Unsigned | WebhookError::BadSignature => StatusCode::UNAUTHORIZED,
                _ => StatusCode::BAD_REQUEST,
            };
            return (status, Json(json!({ "error": error.to_string() })));
        }
    };
    let now = (console.clock)();
    let applied = match &delivery.news {
        News::Dashboard {
            place,
            dashboard,
            editor,
        } => {
            // The boxes as the console last knew them, to tell which this edit ticked.
            let before = match editor {
                Some(_) => console
                    .store
                    .repo(&place.org, &place.name)
                    .await
                    .ok()
                    .flatten(),
                None => None,
            };
            let applied = console
                .store
                .apply_dashboard(&delivery.id, &delivery.event, now, place, dashboard)
                .await;
            if let (Ok(Applied::Now), Some(editor), Some(before)) = (&applied, editor, before) {
                let ticked = pick_up::newly_ticked(&before.stacks, dashboard);
                if !ticked.is_empty() {
                    // GitHub waits for the answer, not for the pick-up.
                    let (console, place, editor) = (console.clone(), place.clone(), editor.clone());
                    tokio::spawn(async move {
                        for (stack, judged) in
                            pick_up::pick_up(&console, &place, &editor, ticked, now).await
                        {
                            if let Err(e) = judged {
                                crate::log::note(&format!(
                                    "the tick of {stack} on the dashboard was not picked up: {e}"
                                ));
                            }
                        }
                    });
                }
            }
            applied
        }
        News::Deploy {
            org,
            repo,
            html_url,
            deploy,
        } => {
            console
                .store
                .apply_deploy(
                    &delivery.id,
                    &delivery.event,
                    now,
                    (org, repo, html_url),
                    deploy,
                )
                .await
        }
        News::AppLeft { org } => {
            // Nothing kept of the org is answered once its installation is gone: the
            // next request asks GitHub, which says so.
            console.app.forget(org);
            console.members.forget(org);
            console
                .store
                .note_delivery(&delivery.id, &delivery.event, now)
                .await
        }
        News::Nothing => {
            console
                .store
                .note_delivery(&delivery.id, &delivery.event, now)
                .await
        }
    };
    match applied {
        Ok(Applied::Now) => (StatusCode::OK, Json(json!({ "applied": true }))),
        Ok(Applied::Before) => (StatusCode::OK, Json(json!({ "applied": false }))),
        // GitHub shows a failed delivery and a person can send it again.
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(json!({ "error": "the console's database did not answer" })),
        ),
    }
}
