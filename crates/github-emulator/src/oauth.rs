//! GitHub's OAuth web flow for a GitHub App's sign-in, as a person meets it: the app
//! sends the person to `/login/oauth/authorize`, GitHub sends them back to the app's
//! address with a code, and the app trades the code (with its client secret) at
//! `/login/oauth/access_token` for a user token that speaks as the person. Here the
//! person is named by the authorize request's `login` and approves without a form.
//!
//! These are GitHub's pages, not its REST API: they sit beside it, outside the
//! description's checks.

use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Json, Router};
use serde::Deserialize;
use serde_json::json;

use crate::server::Shared;
use crate::world::{Grant, Refusal, World};

pub(crate) fn routes() -> Router<Shared> {
    Router::new()
        .route("/login/oauth/authorize", get(authorize))
        .route("/login/oauth/access_token", post(access_token))
}

/// A code GitHub gave back for a person's approval, not yet traded.
#[derive(Debug, Clone, serde::Serialize, Deserialize)]
pub struct Approval {
    pub code: String,
    pub client_id: String,
    pub login: String,
    pub redirect_uri: String,
}

#[derive(Deserialize)]
struct Authorize {
    client_id: String,
    redirect_uri: String,
    state: Option<String>,
    login: Option<String>,
}

fn page(status: StatusCode, text: &str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain")],
        text.to_owned(),
    )
        .into_response()
}

async fn authorize(State(shared): State<Shared>, Query(asked): Query<Authorize>) -> Response {
    let Some(login) = asked.login.clone() else {
        return page(
            StatusCode::BAD_REQUEST,
            "The emulator signs in the person the authorize request names with login=.",
        );
    };
    let approved = shared.change(|w| w.approve(&asked.client_id, &login, &asked.redirect_uri));
    match approved {
        Ok(code) => {
            let mut to = format!("{}?code={code}", asked.redirect_uri);
            if let Some(state) = &asked.state {
                to.push_str("&state=");
                to.push_str(
                    &percent_encoding::utf8_percent_encode(
                        state,
                        percent_encoding::NON_ALPHANUMERIC,
                    )
                    .to_string(),
                );
            }
            (StatusCode::FOUND, [(header::LOCATION, to)]).into_response()
        }
        Err(refusal) => page(StatusCode::NOT_FOUND, &refusal.message),
    }
}

#[derive(Deserialize)]
struct Trade {
    client_id: String,
    client_secret: String,
    code: String,
    redirect_uri: Option<String>,
}

/// GitHub answers a bad trade with 200 and an `error`, as its documentation says.
async fn access_token(State(shared): State<Shared>, Form(trade): Form<Trade>) -> Response {
    match shared.change(|w| {
        w.trade(
            &trade.client_id,
            &trade.client_secret,
            &trade.code,
            trade.redirect_uri.as_deref(),
        )
    }) {
        Ok(token) => Json(json!({ "access_token": token, "token_type": "bearer", "scope": "" }))
            .into_response(),
        Err(_) => Json(json!({
            "error": "bad_verification_code",
            "error_description": "The code passed is incorrect or expired.",
        }))
        .into_response(),
    }
}

impl World {
    /// The person approves the app whose client id is `client_id`; answers the code.
    pub(crate) fn approve(
        &mut self,
        client_id: &str,
        login: &str,
        redirect_uri: &str,
    ) -> Result<String, Refusal> {
        if !self.apps.iter().any(|a| a.client_id == client_id) {
            return Err(Refusal::new(404, "No app has that client id"));
        }
        if self.account(login).is_none() {
            return Err(Refusal::new(404, "No such person"));
        }
        let code = format!("code{:0>16}", self.id());
        self.approvals.push(Approval {
            code: code.clone(),
            client_id: client_id.to_owned(),
            login: login.to_owned(),
            redirect_uri: redirect_uri.to_owned(),
        });
        Ok(code)
    }

    /// Trades a code, once, for a user token; answers the token.
    pub(crate) fn trade(
        &mut self,
        client_id: &str,
        client_secret: &str,
        code: &str,
        redirect_uri: Option<&str>,
    ) -> Result<String, Refusal> {
        let bad = || Refusal::new(401, "bad_verification_code");
        if !self
            .apps
            .iter()
            .any(|a| a.client_id == client_id && a.client_secret == client_secret)
        {
            return Err(bad());
        }
        let at = self
            .approvals
            .iter()
            .position(|a| a.code == code && a.client_id == client_id)
            .ok_or_else(bad)?;
        let approval = self.approvals.remove(at);
        if redirect_uri.is_some_and(|uri| uri != approval.redirect_uri) {
            return Err(bad());
        }
        let token = format!("ghu_emulated{:0>24}", self.id());
        self.add_token(
            &token,
            Grant {
                login: approval.login,
                // A user token of an app reads what the person may, here: who they are.
                permissions: Some(Default::default()),
            },
        );
        Ok(token)
    }
}
