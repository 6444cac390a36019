//! Signing in with GitHub: the OAuth web flow of the console's GitHub App. The console
//! sends a person to GitHub with a state it also sets in a cookie, takes them back with
//! a code, trades the code for their token, asks GitHub who they are, and drops the token.
//! It keeps a session of eight hours, found by the SHA-256 of a cookie that is
//! `HttpOnly`, `SameSite=Lax`, and `Secure` unless the console listens on loopback; every
//! form carries the session's form token. A session never works on the API.
//!
//! A person signed in lands on the console's front door (`/`, the pages). The one page
//! here, `/tokens`, makes a person's personal tokens: shown once, kept as a
//! hash, for an org the person belongs to on GitHub at that moment.

use axum::extract::{Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use cookie::{Cookie, SameSite};
use jiff::{SignedDuration, Timestamp};
use serde::Deserialize;
use sluiceway_dashboard::escape;

use crate::Console;
use crate::store::{KeptSession, KeptToken};
use crate::tokens;

/// The cookie that carries a sign-in's state to GitHub and back.
const STATE_COOKIE: &str = "sluiceway_signin";
/// The cookie that carries a session.
const SESSION_COOKIE: &str = "sluiceway_session";
const SESSION_HOURS: i64 = 8;
/// A sign-in left at GitHub for longer than this starts again.
const STATE_MINUTES: i64 = 10;

pub(crate) fn routes() -> Router<Console> {
    Router::new()
        .route("/signin", get(start))
        .route("/signin/callback", get(back))
        .route("/signout", post(sign_out))
        .route("/tokens", get(tokens_page).post(make_token))
}

/// Sixteen bytes of the system's randomness, in hex.
fn random() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(hex::encode(bytes))
}

/// A page of sign-in's in the pages' one layout; `body` is HTML whose every name was
/// escaped where it was written.
fn page(status: StatusCode, title: &str, body: &str) -> Response {
    crate::pages::respond(
        status,
        crate::pages::layout(title, None, maud::PreEscaped(body.to_owned())),
    )
}

fn see_other(to: &str) -> Response {
    (StatusCode::SEE_OTHER, [(header::LOCATION, to.to_owned())]).into_response()
}

impl Console {
    /// Cookies go over plain http only to a console on this machine.
    fn secure_cookies(&self) -> bool {
        !self.settings.listen.ip().is_loopback()
    }

    fn cookie(&self, name: &str, value: &str, path: &str, seconds: i64) -> HeaderValue {
        let cookie = Cookie::build((name, value))
            .http_only(true)
            .same_site(SameSite::Lax)
            .secure(self.secure_cookies())
            .path(path)
            .max_age(cookie::time::Duration::seconds(seconds))
            .build();
        HeaderValue::from_str(&cookie.to_string()).unwrap_or(HeaderValue::from_static(""))
    }
}

/// A cookie's value from the request's `Cookie` headers.
fn cookie_value(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_owned())
}

/// Two secrets compared in time that does not depend on where they differ.
pub(crate) fn same_secret(a: &str, b: &str) -> bool {
    use sha2::{Digest, Sha256};
    // Hashing first gives both sides one length; the comparison then reads every byte.
    let (a, b) = (Sha256::digest(a.as_bytes()), Sha256::digest(b.as_bytes()));
    a.iter().zip(b.iter()).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

#[derive(Deserialize)]
struct Start {
    /// The person to sign in as, passed on to GitHub, which suggests that account.
    login: Option<String>,
}

async fn start(State(console): State<Console>, Query(start): Query<Start>) -> Response {
    let Some(client) = &console.settings.sign_in else {
        return page(
            StatusCode::NOT_FOUND,
            "Sign-in is not set up",
            "<p>This console's operator has not given it the GitHub App's client id and secret, so nobody signs in here yet. Personal tokens are made with <code>sluiceway console token</code> on its machine.</p>",
        );
    };
    let Some(state) = random() else {
        return page(
            StatusCode::SERVICE_UNAVAILABLE,
            "Try again",
            "<p>The system's random source did not answer.</p>",
        );
    };
    let Ok(mut to) = reqwest::Url::parse(&format!("{}/login/oauth/authorize", client.web)) else {
        return page(
            StatusCode::SERVICE_UNAVAILABLE,
            "Try again",
            "<p>GitHub's address is not one to send a person to.</p>",
        );
    };
    to.query_pairs_mut()
        .append_pair("client_id", &client.client_id)
        .append_pair("redirect_uri", &console.callback())
        .append_pair("state", &state);
    if let Some(login) = start.login.filter(|l| !l.is_empty()) {
        to.query_pairs_mut().append_pair("login", &login);
    }
    let mut response = (StatusCode::FOUND, [(header::LOCATION, to.to_string())]).into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        console.cookie(STATE_COOKIE, &state, "/signin", STATE_MINUTES * 60),
    );
    response
}

impl Console {
    fn callback(&self) -> String {
        format!("{}/signin/callback", self.settings.public_url)
    }
}

#[derive(Deserialize)]
struct Back {
    code: Option<String>,
    state: Option<String>,
}

#[derive(Deserialize)]
struct Traded {
    access_token: Option<String>,
}

#[derive(Deserialize)]
struct Person {
    login: String,
}

/// Trades the code for the person's token, asks GitHub who they are, and drops the token.
async fn who(console: &Console, code: &str) -> Option<String> {
    let client = console.settings.sign_in.as_ref()?;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .ok()?;
    let traded: Traded = http
        .post(format!("{}/login/oauth/access_token", client.web))
        .header(header::ACCEPT, "application/json")
        .form(&[
            ("client_id", client.client_id.as_str()),
            ("client_secret", client.client_secret.as_str()),
            ("code", code),
            ("redirect_uri", console.callback().as_str()),
        ])
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    let token = traded.access_token?;
    let person: Person = http
        .get(format!(
            "{}/user",
            console.settings.github.rest.as_str().trim_end_matches('/')
        ))
        .bearer_auth(&token)
        .header(header::ACCEPT, "application/vnd.github+json")
        .header(header::USER_AGENT, "sluiceway-console")
        .send()
        .await
        .ok()?
        .error_for_status()
        .ok()?
        .json()
        .await
        .ok()?;
    drop(token);
    Some(person.login)
}

/// The orgs this console serves that `login` belongs to, asked of GitHub now.
pub(crate) async fn orgs_of(console: &Console, login: &str) -> Result<Vec<String>, ()> {
    let orgs = console.store.orgs_with_a_repo().await.map_err(|_| ())?;
    let app = console.app.clone();
    let now = (console.clock)();
    let login = login.to_owned();
    tokio::task::spawn_blocking(move || {
        let mut member_of = Vec::new();
        for (org, repo) in orgs {
            if app.is_member(&org, &repo, &login, now).map_err(|_| ())? {
                member_of.push(org);
            }
        }
        Ok(member_of)
    })
    .await
    .map_err(|_| ())?
}

async fn back(
    State(console): State<Console>,
    headers: HeaderMap,
    Query(back): Query<Back>,
) -> Response {
    let started_here = match (&back.state, cookie_value(&headers, STATE_COOKIE)) {
        (Some(state), Some(kept)) => same_secret(state, &kept),
        _ => false,
    };
    if !started_here {
        return page(
            StatusCode::BAD_REQUEST,
            "Sign in again",
            "<p>This sign-in did not start on this console, or took longer than ten minutes. <a href=\"/signin\">Sign in again</a>.</p>",
        );
    }
    let Some(code) = back.code else {
        return page(
            StatusCode::BAD_REQUEST,
            "Not signed in",
            "<p>GitHub did not approve the sign-in. <a href=\"/signin\">Sign in again</a>.</p>",
        );
    };
    let Some(login) = who(&console, &code).await else {
        return page(
            StatusCode::BAD_GATEWAY,
            "Not signed in",
            "<p>GitHub did not say who signed in. <a href=\"/signin\">Try again</a>.</p>",
        );
    };
    match orgs_of(&console, &login).await {
        Ok(orgs) if !orgs.is_empty() => {}
        Ok(_) => {
            return page(
                StatusCode::FORBIDDEN,
                "Not a member",
                &format!(
                    "<p>{} is not a member of an org this console serves.</p>",
                    escape::text(&login)
                ),
            );
        }
        Err(()) => {
            return page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Try again",
                "<p>GitHub did not say which orgs you belong to.</p>",
            );
        }
    }
    let (Some(secret), Some(form_token)) = (random(), random()) else {
        return page(
            StatusCode::SERVICE_UNAVAILABLE,
            "Try again",
            "<p>The system's random source did not answer.</p>",
        );
    };
    let now = (console.clock)();
    let session = KeptSession {
        login,
        form_token,
        expires_at: now
            .saturating_add(SignedDuration::from_hours(SESSION_HOURS))
            .unwrap_or(now),
    };
    if console
        .store
        .add_session(&tokens::hash(&secret), &session)
        .await
        .is_err()
    {
        return page(
            StatusCode::SERVICE_UNAVAILABLE,
            "Try again",
            "<p>The console's database did not answer.</p>",
        );
    }
    let mut response = see_other("/");
    let headers = response.headers_mut();
    headers.append(
        header::SET_COOKIE,
        console.cookie(SESSION_COOKIE, &secret, "/", SESSION_HOURS * 3600),
    );
    headers.append(
        header::SET_COOKIE,
        console.cookie(STATE_COOKIE, "", "/signin", 0),
    );
    response
}

/// The signed-in person, with the session's hash, when the cookie names a live session.
pub(crate) async fn signed_in(
    console: &Console,
    headers: &HeaderMap,
) -> Option<(String, KeptSession)> {
    let secret = cookie_value(headers, SESSION_COOKIE)?;
    let hash = tokens::hash(&secret);
    let session = console.store.session(&hash).await.ok()??;
    ((console.clock)() < session.expires_at).then_some((hash, session))
}

async fn tokens_page(State(console): State<Console>, headers: HeaderMap) -> Response {
    let Some((_, session)) = signed_in(&console, &headers).await else {
        return see_other("/signin");
    };
    let orgs = match orgs_of(&console, &session.login).await {
        Ok(orgs) => orgs,
        Err(()) => {
            return page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Try again",
                "<p>GitHub did not say which orgs you belong to.</p>",
            );
        }
    };
    page(
        StatusCode::OK,
        "Personal tokens",
        &token_form(&session, &orgs),
    )
}

fn token_form(session: &KeptSession, orgs: &[String]) -> String {
    let options: String = orgs
        .iter()
        .map(|org| {
            let org = escape::text(org);
            format!("<option value=\"{org}\">{org}</option>")
        })
        .collect();
    let lives: String = tokens::LIVES
        .iter()
        .map(|days| format!("<option value=\"{days}\">{days} days</option>"))
        .collect();
    let form_token = escape::text(&session.form_token);
    format!(
        "<p>Signed in as <strong>{login}</strong>.</p>\n<form method=\"post\" action=\"/tokens\">\n<input type=\"hidden\" name=\"form_token\" value=\"{form_token}\">\n<label>Org <select name=\"org\">{options}</select></label>\n<label>Name <input name=\"name\" required maxlength=\"64\"></label>\n<label>Lives <select name=\"days\">{lives}</select></label>\n<button type=\"submit\">Make a token</button>\n</form>\n<form method=\"post\" action=\"/signout\">\n<input type=\"hidden\" name=\"form_token\" value=\"{form_token}\">\n<button type=\"submit\">Sign out</button>\n</form>",
        login = escape::text(&session.login),
    )
}

#[derive(Deserialize)]
struct TokenAsked {
    form_token: String,
    org: String,
    name: String,
    days: u16,
}

fn forged() -> Response {
    page(
        StatusCode::FORBIDDEN,
        "Not sent from this console",
        "<p>The form did not come from this console's own page; nothing was done. <a href=\"/tokens\">Start again</a>.</p>",
    )
}

async fn make_token(
    State(console): State<Console>,
    headers: HeaderMap,
    Form(asked): Form<TokenAsked>,
) -> Response {
    let Some((_, session)) = signed_in(&console, &headers).await else {
        return see_other("/signin");
    };
    if !same_secret(&asked.form_token, &session.form_token) {
        return forged();
    }
    let name = asked.name.trim();
    if name.is_empty() || name.chars().count() > 64 {
        return page(
            StatusCode::BAD_REQUEST,
            "No token made",
            "<p>A token's name is one to sixty-four characters. <a href=\"/tokens\">Start again</a>.</p>",
        );
    }
    match orgs_of(&console, &session.login).await {
        Ok(orgs) if orgs.iter().any(|o| o.eq_ignore_ascii_case(&asked.org)) => {}
        Ok(_) => {
            return page(
                StatusCode::FORBIDDEN,
                "No token made",
                "<p>You are not a member of that org on GitHub.</p>",
            );
        }
        Err(()) => {
            return page(
                StatusCode::SERVICE_UNAVAILABLE,
                "Try again",
                "<p>GitHub did not say which orgs you belong to.</p>",
            );
        }
    }
    let now: Timestamp = (console.clock)();
    let Ok(minted) = tokens::mint(asked.days, now) else {
        return page(
            StatusCode::BAD_REQUEST,
            "No token made",
            "<p>A token lives 30, 90 or 365 days.</p>",
        );
    };
    let kept = KeptToken {
        org: asked.org.clone(),
        login: session.login.clone(),
        name: name.to_owned(),
        expires_at: minted.expires_at,
        revoked: false,
    };
    if console.store.add_token(&minted.hash, &kept).await.is_err() {
        return page(
            StatusCode::SERVICE_UNAVAILABLE,
            "Try again",
            "<p>The console's database did not answer.</p>",
        );
    }
    page(
        StatusCode::OK,
        "Your new token",
        &format!(
            "<p>A token for {login} in {org}, named {name}, until {until}. It is shown once: the console keeps only its hash.</p>\n<p><code id=\"token\">{secret}</code></p>\n<p>Sign in on the command line with <code>sluiceway login --app {app}</code>.</p>",
            login = escape::text(&session.login),
            org = escape::text(&asked.org),
            name = escape::text(name),
            until = minted.expires_at,
            secret = minted.secret,
            app = escape::text(&console.settings.public_url),
        ),
    )
}

#[derive(Deserialize)]
struct SignOut {
    form_token: String,
}

async fn sign_out(
    State(console): State<Console>,
    headers: HeaderMap,
    Form(asked): Form<SignOut>,
) -> Response {
    let Some((hash, session)) = signed_in(&console, &headers).await else {
        return see_other("/signin");
    };
    if !same_secret(&asked.form_token, &session.form_token) {
        return forged();
    }
    let _ = console.store.end_session(&hash, (console.clock)()).await;
    let mut response = page(
        StatusCode::OK,
        "Signed out",
        "<p>You are signed out of this console. <a href=\"/signin\">Sign in again</a>.</p>",
    );
    response.headers_mut().append(
        header::SET_COOKIE,
        console.cookie(SESSION_COOKIE, "", "/", 0),
    );
    response
}
